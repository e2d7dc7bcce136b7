"""Paper dice: a net of the solid (d4, d6, d8, d12 or d20) with each face drawn from the layout, fold lines,
the cut outline and one glue tab per seam."""

import functools
import math
from typing import Any

from ..draw import sheet as paper
from ..errors import LayoutError, failed_at
from ..options import ColourError, as_written, control_problem, parse_colour, hundredths_down, shown_number
from ..impose import nets
from ..impose.shapes import Outline
from ..layout import params as P
from ..model.components import ITEM_FIELDS
from ..model.load import MarkedList, Record, shown
from ..report import Mark, named
from ..template import ExprError, evaluate
from ..impose.sheet import MARGIN, NET_FOOTER_ROOM
from ..units import MM, fits, paper_too_small, room_on, to_mm
from .base import LAYOUT_KEY, Kind, Printable, distinct
from ..layout.layouts import Layout
from ..model.components import Component
from .base import Reporter, Studio
from reportlab.pdfgen.canvas import Canvas

EDGE = 20 * MM
FACE_FILL = "face_fill"  # the layout's variable that colours its faces under their art


class Die(Kind):
    """A die to cut, fold and glue: its layout is one face, drawn once per value in `faces`, centred on each
    face of the net; values i and n-1-i land on opposite faces, so a d6 of 1-6 sums to 7 like a real die.
    The faces are filled with the layout's `vars.face_fill` (a colour; white by default) under their art."""

    name = "die"
    file_part = "dice"
    order = 5
    component_keys = {**ITEM_FIELDS, "layout": LAYOUT_KEY}
    layout_options = {
        "net": P.Choice(tuple(nets.NETS), "d6", "the solid the die folds into"),
        "faces": P.Anything(P.REQUIRED, "the value on each face: a list, or an expression giving one, e.g. "
                                        "`range(1, 7) | list`; each face's templates see its value as `face`"),
        "edge": P.Length("20mm", "the length of one edge of the solid (the layout must fit inside the box around "
                                 "a face: each face is cut to its shape)", minimum=5, maximum=100),
    }

    template_names = {"face": "the value of the face printed (`faces`)"}

    def printables(self, component: Component, studio: Studio) -> list[Printable]:
        """One printable per face of each die, its value in the template variable `face`."""
        out: list[Printable] = []
        for index, (item, copies) in enumerate(distinct(component.items or [None] * component.count)):
            name = self.layout_name(component, "layout", item, studio)
            layout = studio.layouts.get(name, component.spec.mark_of("layout"))
            assert name is not None  # get() refused a missing name
            for value in dict.fromkeys(face_values(layout, studio.context(item=item))):  # each value once
                out.append(Printable(component, "face", index, item, name, (("face", value),), copies,
                                     component.spec.mark_of("layout")))
        return out

    cut_edge = "face's edge"

    def cut(self, layout: Layout) -> tuple[Outline, ...]:
        """Each shape a face of the net has (a d20's triangles point up and down), as the layout lies on it:
        centred on the face and drawn clipped to it, so a number in the corner of a triangle's box printed
        nothing."""
        edge = layout.options.get("edge") or EDGE
        shapes: dict[tuple[tuple[float, float], ...], Outline] = {}
        for face in nets.NETS[layout.options.get("net", "d6")]():
            cx, cy = sum(x for x, _ in face) / len(face), sum(y for _, y in face) / len(face)
            points = tuple((layout.width / 2 + (x - cx) * edge, layout.height / 2 - (y - cy) * edge) for x, y in face)
            key = tuple(sorted((round(x, 3), round(y, 3)) for x, y in points))
            shapes.setdefault(key, Outline("polygon", 0.0, 0.0, layout.width, layout.height, points=points))
        return tuple(shapes.values())

    def check(self, component: Component, studio: Studio, report: Reporter) -> None:
        super().check(component, studio, report)
        for item, _ in distinct(component.items or [None] * component.count):
            layout = studio.layouts.get(self.layout_name(component, "layout", item, studio),
                                        component.spec.mark_of("layout"))
            net = layout.options.get("net", "d6")
            face_values(layout, studio.context(item=item))  # as many as the net has faces, or an error
            _check_face_fill(layout, report)
            faces = nets.NETS[net]()
            edge = layout.options.get("edge") or EDGE
            _check_face_room(net, faces, edge, layout, report)
            left, bottom, right, top = nets.printed_extent(faces)
            w, h = (right - left) * edge, (top - bottom) * edge
            small = paper_too_small(studio.options.paper, (w, h), MARGIN, NET_FOOTER_ROOM)
            if small is not None:
                room_w, room_h = small.room
                largest = min(room_w / (right - left), room_h / (top - bottom))
                report.error(f"a {net} net with {to_mm(edge):g} mm edges is {to_mm(w):.0f} x {to_mm(h):.0f} mm with "
                             f"its glue tabs, more than the paper holds; edges of at most {int(to_mm(largest))} mm "
                             f"fit{small.on_paper}", layout.spec.mark_of("edge"))

    def draw(self, canvas: Canvas, component: Component, studio: Studio) -> int:
        pages = 0
        dice: dict[int, list[Printable]] = {}  # the die's index -> its faces
        for p in studio.of(component):
            dice.setdefault(p.index, []).append(p)
        for die_faces in dice.values():
            layout = studio.layouts.get(die_faces[0].layout)
            values = face_values(layout, studio.context(item=die_faces[0].item))
            # the net painted once, as a form each copy's page shows: its faces' painting is charged once
            # (printables.Studio.charge), and 400 copies of a d20 painted afresh took 12 s of processor time
            name = f"die-{component.id}-{die_faces[0].index}"
            canvas.beginForm(name, 0, 0, *studio.paper)
            _draw_net(canvas, studio, layout, die_faces, values)
            canvas.endForm()
            for _ in range(die_faces[0].copies):
                canvas.doForm(name)
                paper.footer(canvas, studio.fonts, studio.paper, f"{studio.page_title} · {component.name} · cut the "
                                                                 "solid outline, fold every dashed line, glue the grey "
                                                                 "tabs inside")
                canvas.showPage()
                pages += 1
        return pages


def _check_face_room(net: str, faces: list[nets.Face], edge: float, layout: Layout, report: Reporter) -> None:
    """Refuse a face layout wider or taller than every face of the net holds (the box around a face, the
    narrowest of them): each face is drawn centred on its face of the net and cut to it, so what lay outside
    was lost without a word (a 40 mm layout's text on a d6 of 5 mm edges printed nothing)."""
    room_w, room_h = (min(side) * edge for side in zip(*(nets.bounds([face]) for face in faces)))
    if not fits((layout.width, layout.height), (room_w, room_h)):
        report.error(f"a face layout of {shown_number(layout.width / MM)} x {shown_number(layout.height / MM)} "
                     f"mm is larger than a face of this {net} with {shown_number(edge / MM)} mm edges holds "
                     f"({hundredths_down(room_w / MM)} x {hundredths_down(room_h / MM)} mm): each face is cut to its shape, "
                     "so what lies outside is lost; make the layout smaller or "
                     "the edges longer", layout.spec.mark_of("size") or layout.spec.mark)



def _check_face_fill(layout: Layout, report: Reporter) -> None:
    """The faces' fill, `vars.face_fill`, is a colour: read only as the net was painted, one that was not
    stopped the build as a bug in pnp where validate had said ok."""
    try:
        parse_colour(layout.vars.get(FACE_FILL, "#ffffff"))
    except ColourError as e:
        own = layout.spec.get("vars")  # else it came with `extends`: said there
        report.error(f"vars: {FACE_FILL}: {e}", own.mark_of(FACE_FILL) if isinstance(own, Record) and FACE_FILL in own
                     else layout.spec.mark_of("extends"))


def _room(paper: tuple[float, float]) -> tuple[float, float]:
    """The width and height a net may take on the paper: inside its margins, and clear of the page's footer."""
    return room_on(paper, MARGIN, NET_FOOTER_ROOM)


def _origin(net: list[nets.Face], edge: float, paper: tuple[float, float]) -> nets.Point | None:
    """Where the net's (0, 0) goes on the paper so that the net and its glue tabs are centred in the room
    the paper has for them; None when they do not fit. (The faces alone were measured and centred, then lifted
    6 mm: a d6 of 65 mm edges printed its tabs past the paper's edges, exit 0.)"""
    left, bottom, right, top = nets.printed_extent(net)
    (room_w, room_h), w, h = _room(paper), (right - left) * edge, (top - bottom) * edge
    if not fits((w, h), (room_w, room_h)):
        return None
    return MARGIN + (room_w - w) / 2 - left * edge, NET_FOOTER_ROOM + (room_h - h) / 2 - bottom * edge


FaceValue = str | int | float


def face_values(layout: Layout, context: dict[str, Any]) -> list[FaceValue]:
    """The values of a die's faces from its layout's `faces` (a list, or an expression giving one)."""
    faces = _as_typed(layout.options.get("faces"))
    if isinstance(faces, str):
        try:
            faces = evaluate(faces, context)
        except ExprError as e:
            raise LayoutError(f"faces: {e.message}", failed_at(layout.spec.mark_of("faces"), e)) from None
    if not isinstance(faces, (list, tuple, range)):
        raise LayoutError(f"faces: expected a list of face values (numbers or text), got {shown(faces)}",
                          layout.spec.mark_of("faces"))
    _refuse_faces_unprintable(faces, layout)
    net = layout.options.get("net", "d6")
    solid = nets.NETS[net]()
    if len(faces) != len(solid):  # said before any face is made: 100,000 values would be 100,000 faces to check
        raise LayoutError(f"a {net} has {len(solid)} faces, 'faces' gives {len(faces)}", layout.spec.mark_of("faces"))
    _refuse_one_value_two_ways(list(faces), layout)
    return list(faces)


def _refuse_faces_unprintable(faces: list[Any] | tuple[Any, ...] | range, layout: Layout) -> None:
    """A LayoutError, at the face's own item where the layout writes the list, for the first face that is no
    number or text, holds a control character, or is .nan or .inf."""
    odd = next((n for n, v in enumerate(faces) if not isinstance(v, (str, int, float)) or isinstance(v, bool)), None)
    if odd is not None:
        raise LayoutError(f"faces: expected a list of face values (numbers or text), got {shown(faces)}",
                          _face_mark(layout, odd))
    for n, value in enumerate(faces):  # (a list written in the layout was checked as it was read; one computed was not)
        problem = control_problem(value, f"the face {named(value)}") if isinstance(value, str) else None
        if problem:  # a face's value is printed, names its export's file and is said in messages ("die face X")
            raise LayoutError(f"faces: {problem}", _face_mark(layout, n))
    endless = next((n for n, v in enumerate(faces) if isinstance(v, float) and not math.isfinite(v)), None)
    if endless is not None:  # (YAML's .nan and .inf: printed 'nan' on a face, exit 0)
        raise LayoutError(f"faces: {faces[endless]!r} is no number a face can print; write the face's number or text",
                          _face_mark(layout, endless))


def _face_mark(layout: Layout, index: int) -> Mark | None:
    """Where the face at `index` is written: its own item of a list the layout writes (a face refused was said at
    the list's first line), else the `faces` key's value (a list an expression gives)."""
    written = layout.spec.get("faces")
    return written.mark_of(index) if isinstance(written, MarkedList) else layout.spec.mark_of("faces")


def _as_typed(faces: object) -> object:
    """A list of faces with each number YAML reads so that it prints otherwise (`1.50` as 1.5, `0x1F` as 31)
    given as its text as typed, as a layout's text is (Option.as_read); a .nan or .inf stays what YAML reads
    (refused by face_values)."""
    if not isinstance(faces, MarkedList) or not faces.written:
        return faces
    return [value if isinstance(value, float) and not math.isfinite(value) else
            as_written(value, faces.written.get(n)) for n, value in enumerate(faces)]


def _refuse_one_value_two_ways(faces: list[FaceValue], layout: Layout) -> None:
    """Refuse two faces holding one number written two ways (1 and 1.0, 0 and -0.0): a face is found by its
    value, which counts them as one face, while each prints as written, so one of them was printed with the
    other's text (or the build stopped on it)."""
    written: dict[FaceValue, FaceValue] = {}
    for value in faces:
        first = written.setdefault(value, value)
        if repr(first) != repr(value):
            raise LayoutError(f"faces: {first!r} and {value!r} are one value written two ways; write it one way "
                              "on every face", layout.spec.mark_of("faces"))


def _draw_net(canvas: Canvas, studio: Studio, layout: Layout, die_faces: list[Printable],
              values: list[FaceValue]) -> None:
    net = nets.NETS[layout.options.get("net", "d6")]()
    edge = layout.options.get("edge") or EDGE
    origin = _origin(net, edge, studio.paper)
    if origin is None:  # refused by check
        raise LayoutError("the die's net does not fit the paper", layout.spec.mark_of("edge"))
    ox, oy = origin

    def pt(p: nets.Point) -> nets.Point:
        return ox + p[0] * edge, oy + p[1] * edge

    tabs = [[pt(p) for p in nets.tab(a, b, centre)] for a, b, centre in nets.tabbed_edges(net)]
    by_value = {repr(dict(p.extra)["face"]): p for p in die_faces}
    painter = studio.painter(canvas)
    drawn = []
    for face, value in zip(net, nets.assign_values(net, values)):
        poly = [pt(p) for p in face]
        centre = (sum(x for x, _ in poly) / len(poly), sum(y for _, y in poly) / len(poly))
        # each face stored once, as a form every net face of its value shows, and drawn unclipped but by
        # the net face's own shape (it lies within an edge of the layout's box): its painting is charged once,
        # and a d20 of one value painted its face of 50,000 shapes 20 times (12 s)
        draw_face = functools.partial(studio.draw, canvas, painter, by_value[repr(value)], shared=True, clip=edge)
        drawn.append((poly, centre, draw_face, (layout.width, layout.height)))
    outline = [(pt(a), pt(b)) for a, b, _ in nets.outer_edges(net)]
    paper.die_net(canvas, drawn, tabs, outline, layout.vars.get(FACE_FILL, "#ffffff"))
