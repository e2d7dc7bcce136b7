"""Die nets (d6 cube, d12 dodecahedron): faces drawn from the layout, fold lines, cut outline, glue tabs."""

from reportlab.lib import colors

from ..impose import nets
from ..layout.resolve import Resolver
from ..template import ExprError, evaluate
from ..units import MM, length
from .sheets import items_of

NETS = {"d6": nets.d6, "d12": nets.d12}
TAB = colors.Color(0.88, 0.88, 0.88)


def net_of(layout):
    kind = layout.spec.get("net")
    if kind not in NETS:
        raise ValueError(f"{layout.file}: die layout needs 'net: d6' or 'net: d12'")
    return kind, NETS[kind]()


def faces_of(layout, context):
    faces = layout.spec.get("faces")
    if isinstance(faces, str):
        try:
            faces = evaluate(faces, context)
        except ExprError as e:
            raise ValueError(f"{layout.file}: faces: {e.message}") from None
    return list(faces or [])


def draw_dice(canvas, studio, component):
    pages = 0
    for item in items_of(component):
        name = studio.layout_name(component, "layout", item)
        layout = studio.layouts.get(name)
        kind, faces = net_of(layout)
        edge = length(layout.spec.get("edge", "20mm"))
        values = faces_of(layout, studio.game.context(item=item))
        if len(values) != len(faces):
            raise ValueError(f"{layout.file}: a {kind} net has {len(faces)} faces, 'faces' gives {len(values)}")
        _draw_net(canvas, studio, name, layout, item, faces, values, edge, component)
        canvas.showPage()
        pages += 1
    return pages


def _draw_net(canvas, studio, name, layout, item, faces, values, edge, component):
    w, h = nets.bounds(faces)
    pw, ph = studio.paper
    scale = edge
    ox, oy = (pw - w * scale) / 2, (ph - h * scale) / 2 + 6 * MM
    pt = lambda p: (ox + p[0] * scale, oy + p[1] * scale)  # noqa: E731

    canvas.saveState()
    canvas.setLineWidth(0.4)
    for a, b, centre in nets.tabbed_edges(faces):
        poly = [pt(p) for p in nets.tab(a, b, centre)]
        _polygon(canvas, poly, fill=TAB, stroke=colors.Color(0.3, 0.3, 0.3))
    resolver = Resolver(layout, studio.game.context())
    fill = layout.vars.get("face_fill", "#ffffff")
    for face, value in zip(faces, nets.assign_values(faces, values)):
        poly = [pt(p) for p in face]
        _polygon(canvas, poly, fill=colors.toColor(fill), stroke=None)
        cx = sum(x for x, _ in poly) / len(poly)
        cy = sum(y for _, y in poly) / len(poly)
        # each face is a small layout of the die's own size, centred on the face
        canvas.saveState()
        path = canvas.beginPath()
        path.moveTo(*poly[0])
        for p in poly[1:]:
            path.lineTo(*p)
        path.close()
        canvas.clipPath(path, stroke=0, fill=0)
        prims = resolver.resolve(item, face=value)
        studio.painter(canvas).paint(prims, cx - layout.width / 2, cy - layout.height / 2, layout.height)
        canvas.restoreState()
    # fold lines dashed (inner edges), cut outline solid
    canvas.setStrokeColor(colors.Color(0.3, 0.3, 0.3))
    canvas.setDash([2, 2])
    for face in faces:
        poly = [pt(p) for p in face]
        _polygon(canvas, poly, fill=None, stroke=colors.Color(0.4, 0.4, 0.4))
    canvas.setDash([])
    for a, b, _ in nets.outer_edges(faces):
        canvas.setStrokeColor(colors.black)
        (x1, y1), (x2, y2) = pt(a), pt(b)
        canvas.line(x1, y1, x2, y2)
    canvas.restoreState()
    studio.footer(canvas, f"{studio.game.title} · {component.name} · cut the solid outline, fold every dashed "
                          "line, glue the grey tabs inside")


def _polygon(canvas, points, fill, stroke):
    path = canvas.beginPath()
    path.moveTo(*points[0])
    for p in points[1:]:
        path.lineTo(*p)
    path.close()
    if fill is not None:
        canvas.setFillColor(fill)
    if stroke is not None:
        canvas.setStrokeColor(stroke)
    canvas.drawPath(path, stroke=int(stroke is not None), fill=int(fill is not None))
