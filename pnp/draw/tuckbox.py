"""Drawing a tuck box's net: its glue tab, dashed fold lines and solid cut line, the front's art clipped to
its panel, and one-line labels shrunk to fit their panel. The geometry comes from pnp.impose.tuckbox."""

import contextlib
from collections.abc import Iterator, Sequence

from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth

from ..impose.tuckbox import Net, Point
from .sheet import TAB, points_path, polygon
from .fonts import FontSet
from reportlab.pdfgen.canvas import Canvas


INK = colors.Color(0.13, 0.13, 0.13)


def tuck_net(canvas: Canvas, net: Net) -> None:
    """A tuck box's net (pnp.impose.tuckbox.Net, in the canvas's coordinates): the glue tab grey, every
    fold line dashed, the cut outline solid."""
    canvas.saveState()
    canvas.setLineWidth(0.4)
    polygon(canvas, net.glue, fill=TAB, stroke=None)
    canvas.setStrokeColor(colors.Color(0.4, 0.4, 0.4))
    canvas.setDash([3, 2])
    for (x1, y1), (x2, y2) in net.folds:
        canvas.line(x1, y1, x2, y2)
    canvas.setDash([])
    canvas.setStrokeColor(colors.black)
    canvas.setLineWidth(0.5)
    canvas.drawPath(points_path(canvas, net.outline, close=False), stroke=1, fill=0)
    canvas.restoreState()


@contextlib.contextmanager
def clipped_to(canvas: Canvas, points: Sequence[Point]) -> Iterator[None]:
    """Everything drawn inside the block clipped to the polygon `points`."""
    canvas.saveState()
    canvas.clipPath(points_path(canvas, points), stroke=0, fill=0)
    try:
        yield
    finally:
        canvas.restoreState()


def fitted_label(canvas: Canvas, fonts: FontSet, text: str, centre: Point, room: float,
                 style: tuple[str, bool, float, float], turned: bool = False) -> bool:
    """One line of `text` centred on `centre`, in `style` = (family, bold, size, smallest size), shrunk until
    it is at most `room` long; turned a quarter anticlockwise (reading up the page) when `turned`. Returns
    False, drawing nothing, when it does not fit even at its smallest size."""
    family, bold, size, smallest = style
    font = fonts.name(family, bold=bold)
    while stringWidth(text, font, size) > room and size > smallest:
        size = max(smallest, size - 0.5)
    if stringWidth(text, font, size) > room:
        return False
    canvas.saveState()
    canvas.translate(*centre)
    if turned:
        canvas.rotate(90)
    canvas.setFillColor(INK)
    canvas.setFont(font, size)
    canvas.drawCentredString(0, -size * 0.35, text)  # the line's middle on the centre
    canvas.restoreState()
    return True
