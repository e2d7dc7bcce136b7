"""Putting things on paper: items clipped to trim and bleed, shared forms, crop marks, cut outlines, tile
windows and targets, die nets, page footers. Geometry comes in from impose/ and products/; this module only
draws it."""

import contextlib
import hashlib
import string

from collections.abc import Callable, Iterable, Iterator, Sequence

from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.pathobject import PDFPathObject

from ..impose.shapes import Outline
from ..impose.sheet import EDGE_SAFE, Segment
from ..units import MM
from .colour import colour
from .primitive import Primitive
from .fonts import FontSet
from .paint import Painter
from . import text as rtext
from reportlab.pdfgen.canvas import Canvas

FOOTER_GREY = colors.Color(0.45, 0.45, 0.45)
FOOTER_FAMILY, FOOTER_SIZE = "Body", 6.5  # the font family and size (points) of each sheet's footer line
FOOTER_SMALLEST = 6.0  # points: the least it shrinks to
# The characters of pnp's own words in the footers ('sheet 2 of 3 · cut along the grey lines', 'DRAFT, not for print',
# '(print double-sided, flip on the long edge)', a long line's ellipsis), set in FOOTER_FAMILY: a project's font lacking
# its '·' printed a blank box three times on every sheet, with exit 0 (a game's own words there are checked where
# they are written)
FOOTER_OWN_CHARACTERS = string.ascii_letters + string.digits + " ,.()-·…"
GUIDE = colors.Color(0.3, 0.3, 0.3)
CUT = colors.Color(0.35, 0.35, 0.35)
TAB = colors.Color(0.88, 0.88, 0.88)

Point = tuple[float, float]
Sides = tuple[float, float, float, float]  # (left, bottom, right, top)
# polygon, centre, what draws the face with its trim's bottom-left corner at a point, its size
NetFace = tuple[list[Point], Point, Callable[[float, float], None], tuple[float, float]]


def _clip_to(canvas: Canvas, x: float, y: float, width: float, height: float, clip: Sides) -> None:
    """Clip to the trim box at (x, y) grown by `clip` = (left, bottom, right, top)."""
    left, bottom, right, top = clip
    path = canvas.beginPath()
    path.rect(x - left, y - bottom, width + left + right, height + bottom + top)
    canvas.clipPath(path, stroke=0, fill=0)


def item(canvas: Canvas, painter: Painter, prims: Sequence[Primitive], x: float, y: float, width: float,
         height: float, clip: Sides) -> None:
    """One item with its trim box's bottom-left corner at (x, y), clipped to its trim grown by `clip`
    (left, bottom, right, top): the bleed it shows on each side."""
    canvas.saveState()
    _clip_to(canvas, x, y, width, height, clip)
    painter.paint(prims, x, y, height)
    canvas.restoreState()


def shared_item(canvas: Canvas, painter: Painter, prims: Sequence[Primitive], x: float, y: float, width: float,
                height: float, clip: Sides, key: str, bleed: float) -> None:
    """Like `item`, but identical items (every card back) are stored once in the PDF as a form XObject with
    `bleed` of art all round, each copy clipped to its own `clip`; `key` names what is drawn (its layout and
    the digest of its primitives, worked out once per face: 600 copies of a face of 5,000 shapes written out
    again for each took 20 s), so the same bytes come out on every build."""
    forms = canvas.__dict__.setdefault("_pnp_forms", {})
    digest = hashlib.sha1(repr((key, bleed)).encode()).hexdigest()[:16]
    name = forms.get(digest)
    if name is None:
        name = forms[digest] = f"item{digest}"
        canvas.beginForm(name, 0, 0, width + 2 * bleed, height + 2 * bleed)
        painter.paint(prims, bleed, bleed, height)
        canvas.endForm()
    canvas.saveState()
    _clip_to(canvas, x, y, width, height, clip)
    canvas.translate(x - bleed, y - bleed)
    canvas.doForm(name)
    canvas.restoreState()


def form(canvas: Canvas, painter: Painter, prims: Sequence[Primitive], name: str, width: float, height: float) -> None:
    """A whole item drawn once as a named form (a board that several tiles show part of)."""
    canvas.beginForm(name, 0, 0, width, height)
    painter.paint(prims, 0, 0, height)
    canvas.endForm()


@contextlib.contextmanager
def shifted(canvas: Canvas, dx: float, dy: float) -> Iterator[None]:
    """Everything drawn inside the block moved by (dx, dy) points: a back page made up for the printer."""
    canvas.saveState()
    canvas.translate(dx, dy)
    try:
        yield
    finally:
        canvas.restoreState()


@contextlib.contextmanager
def quarter_turned(canvas: Canvas, x: float, y: float, w: float, h: float, clockwise: bool = False) -> Iterator[None]:
    """Drawing at (0, 0) an item `h` wide and `w` high fills the box (x, y, w, h) turned a quarter round:
    counter-clockwise (its top to the left) or clockwise (its top to the right)."""
    canvas.saveState()
    if clockwise:
        canvas.translate(x, y + h)
        canvas.rotate(-90)
    else:
        canvas.translate(x + w, y)
        canvas.rotate(90)
    try:
        yield
    finally:
        canvas.restoreState()


@contextlib.contextmanager
def turned(canvas: Canvas, x: float, y: float, w: float, h: float) -> Iterator[None]:
    """Everything drawn inside the block turned half round about the centre of the box (x, y, w, h)."""
    canvas.saveState()
    canvas.translate(x + w / 2, y + h / 2)
    canvas.rotate(180)
    canvas.translate(-x - w / 2, -y - h / 2)
    try:
        yield
    finally:
        canvas.restoreState()


def fold_line(canvas: Canvas, fonts: FontSet, line: Segment, label: str) -> None:
    """A dashed fold line with a small word at each end."""
    (x1, y1), (x2, y2) = line
    canvas.saveState()
    canvas.setStrokeColor(GUIDE)
    canvas.setLineWidth(0.4)
    canvas.setDash([4, 3])
    canvas.line(x1, y1, x2, y2)
    canvas.setFillColor(GUIDE)
    canvas.setFont(fonts.name("Body"), 6.5)
    if x1 == x2:  # up the page: the word beside its top end (the footer is at the bottom)
        canvas.drawString(x1 + 1 * MM, y2 - 3 * MM, label)
    else:
        canvas.drawString(x1 + 1 * MM, y1 + 1 * MM, label)
        canvas.drawRightString(x2 - 1 * MM, y1 + 1 * MM, label)
    canvas.restoreState()


def footer(canvas: Canvas, fonts: FontSet, paper: tuple[float, float], text: str) -> None:
    """A small grey line at the bottom of a page: which game, component and side it is."""
    text = text.replace(rtext.SOFT_HYPHEN, "")  # a marker, never printed (rtext.SOFT_HYPHEN): the font drew a hyphen
    canvas.saveState()
    canvas.setFillColor(FOOTER_GREY)
    font, room = fonts.name(FOOTER_FAMILY), paper[0] - 2 * EDGE_SAFE
    # a long title shrinks the line to the page's width, down to 6 pt (no text pnp prints is smaller); past
    # that its end is cut, marked by an ellipsis
    size = max(FOOTER_SMALLEST, min(FOOTER_SIZE, FOOTER_SIZE * room / max(stringWidth(text, font, FOOTER_SIZE), 1e-6)))
    text = rtext.cut_to_width(text, font, size, room)
    canvas.setFont(font, size)
    canvas.drawCentredString(paper[0] / 2, EDGE_SAFE + 0.6 * MM, text)  # descenders stay clear of the edge
    canvas.restoreState()


def marks(canvas: Canvas, segments: Iterable[Segment], width: float = 0.25) -> None:
    """Crop marks: thin black segments ((x1, y1), (x2, y2))."""
    canvas.saveState()
    canvas.setStrokeColor(colors.black)
    canvas.setLineWidth(width)
    for (x1, y1), (x2, y2) in segments:
        canvas.line(x1, y1, x2, y2)
    canvas.restoreState()


def points_path(canvas: Canvas, points: Sequence[Point], close: bool = True) -> PDFPathObject:
    """A path through `points` (PDF coordinates), closed back to the first unless `close` is false."""
    path = canvas.beginPath()
    path.moveTo(*points[0])
    for p in points[1:]:
        path.lineTo(*p)
    if close:
        path.close()
    return path


def _outline_path(canvas: Canvas, outline: Outline) -> PDFPathObject:
    if outline.kind == "polygon":
        return points_path(canvas, outline.points)
    path = canvas.beginPath()
    if outline.kind == "ellipse":
        path.ellipse(outline.x, outline.y, outline.w, outline.h)
    elif outline.radius:
        path.roundRect(outline.x, outline.y, outline.w, outline.h, outline.radius)
    else:
        path.rect(outline.x, outline.y, outline.w, outline.h)
    return path


def cut_outline(canvas: Canvas, outline: Outline) -> None:
    """The line a token is cut along, drawn twice, a wide light line under a thin dark one, so that it shows
    on dark art and on light art alike."""
    canvas.saveState()
    for colour_, width in ((colors.white, 1.3), (CUT, 0.45)):
        canvas.setStrokeColor(colour_)
        canvas.setLineWidth(width)
        canvas.drawPath(_outline_path(canvas, outline), stroke=1, fill=0)
    canvas.restoreState()


def clipped(canvas: Canvas, outline: Outline) -> None:
    """Clip what follows to `outline` (call inside saveState/restoreState)."""
    canvas.clipPath(_outline_path(canvas, outline), stroke=0, fill=0)


def polygon(canvas: Canvas, points: Sequence[Point], fill: colors.Color | None, stroke: colors.Color | None) -> None:
    """A closed path through `points` (PDF coordinates), filled and/or stroked with ReportLab colours."""
    path = points_path(canvas, points)
    if fill is not None:
        canvas.setFillColor(fill)
    if stroke is not None:
        canvas.setStrokeColor(stroke)
    canvas.drawPath(path, stroke=int(stroke is not None), fill=int(fill is not None))


def tile_window(canvas: Canvas, form_name: str, offset: Point, window: tuple[float, float, float, float],
                seams: Iterable[Segment], targets: Iterable[Point]) -> None:
    """One tile of a board: the part `window` (x, y, w, h on the page) of the board form placed at `offset`,
    its outline, the dashed `seams` ((x1, y1), (x2, y2)) to trim along, and registration `targets`."""
    ox, oy = offset
    wx, wy, ww, wh = window
    canvas.saveState()
    path = canvas.beginPath()
    path.rect(wx, wy, ww, wh)
    canvas.clipPath(path, stroke=0, fill=0)
    canvas.translate(ox, oy)
    canvas.doForm(form_name)
    canvas.restoreState()
    canvas.saveState()
    canvas.setStrokeColor(GUIDE)
    canvas.setLineWidth(0.3)
    canvas.rect(wx, wy, ww, wh, stroke=1, fill=0)
    canvas.setDash([2, 2])
    for (x1, y1), (x2, y2) in seams:
        canvas.line(x1, y1, x2, y2)
    canvas.setDash([])
    for tx, ty in targets:
        target(canvas, tx, ty)
    canvas.restoreState()


def target(canvas: Canvas, x: float, y: float, r: float = 2.2 * MM) -> None:
    """A registration target: a circle with a cross; both neighbouring tiles print it at the same board point."""
    canvas.setStrokeColor(colors.black)
    canvas.setLineWidth(0.35)
    canvas.circle(x, y, r * 0.6, stroke=1, fill=0)
    canvas.line(x - r, y, x + r, y)
    canvas.line(x, y - r, x, y + r)


def tile_map(canvas: Canvas, fonts: FontSet, cells: Iterable[tuple[float, float, float, bool]], label: str,
             label_at: Point) -> None:
    """A small map of all tiles, this one filled: `cells` are (x, y, size, is_this_tile)."""
    canvas.saveState()
    canvas.setLineWidth(0.3)
    canvas.setStrokeColor(GUIDE)
    for x, y, size, this in cells:
        canvas.setFillColor(colors.black if this else colors.white)
        canvas.rect(x, y, size, size, stroke=1, fill=1)
    canvas.setFillColor(GUIDE)
    canvas.setFont(fonts.name("Body", bold=True), 7)
    canvas.drawRightString(label_at[0], label_at[1], label)
    canvas.restoreState()


def die_net(canvas: Canvas, faces: Sequence[NetFace], tabs: Iterable[Sequence[Point]],
            outline: Iterable[Segment], face_fill: str) -> None:
    """A die net: glue `tabs` (polygons) in grey, each face (polygon, centre, what draws it, layout size)
    filled and drawn clipped to its shape, fold lines dashed, the cut `outline` (segments) solid."""
    canvas.saveState()
    canvas.setLineWidth(0.4)
    for tab in tabs:
        polygon(canvas, tab, fill=TAB, stroke=colors.Color(0.3, 0.3, 0.3))
    fill = colour(face_fill) or colors.white
    for poly, (cx, cy), draw_face, (w, h) in faces:
        polygon(canvas, poly, fill=fill, stroke=None)
        canvas.saveState()
        path = canvas.beginPath()
        path.moveTo(*poly[0])
        for p in poly[1:]:
            path.lineTo(*p)
        path.close()
        canvas.clipPath(path, stroke=0, fill=0)
        draw_face(cx - w / 2, cy - h / 2)
        canvas.restoreState()
    canvas.setDash([2, 2])
    for poly, *_ in faces:
        polygon(canvas, poly, fill=None, stroke=colors.Color(0.4, 0.4, 0.4))
    canvas.setDash([])
    canvas.setStrokeColor(colors.black)
    for (x1, y1), (x2, y2) in outline:
        canvas.line(x1, y1, x2, y2)
    canvas.restoreState()

