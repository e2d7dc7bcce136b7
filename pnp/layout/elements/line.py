"""line: a straight line between two points."""

from .. import params as P
from ..prims import Prim
from .base import PAINT, Element
from .base import Context, ElementResolver, ElementShape


class Line(Element):
    """A straight line from (x1, y1) to (x2, y2)."""

    type = "line"
    params = {
        "x1": P.Length(0, "start, from the trim's left"), "y1": P.Length(0, "start, from the trim's top"),
        "x2": P.Length(0, "end, from the trim's left"), "y2": P.Length(0, "end, from the trim's top"),
        "stroke": P.Colour("#000000", "the line's colour"),
        "stroke_width": PAINT["stroke_width"], "dash": PAINT["dash"],
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        style = {"stroke": v["stroke"], "stroke_width": v["stroke_width"], "dash": v["dash"]}
        out.append(Prim("line", points=((ox + v["x1"], oy + v["y1"]), (ox + v["x2"], oy + v["y2"])), style=style))
