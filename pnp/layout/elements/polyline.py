"""polyline: an open line through a list of points (a cut line along hexes, a route)."""

from .. import params as P
from ..prims import Prim
from .base import PAINT, Element
from .base import Context, ElementResolver, ElementShape


class Polyline(Element):
    """An open line through its points, in order."""

    type = "polyline"
    params = {
        "points": P.Points(doc="the points, each [x, y] from the trim's top-left"),
        "stroke": P.Colour("#000000", "the line's colour"),
        "stroke_width": PAINT["stroke_width"], "dash": PAINT["dash"],
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        points = tuple((ox + x, oy + y) for x, y in v["points"])
        xs, ys = [x for x, _ in points], [y for _, y in points]
        out.append(Prim("polyline", min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys), points,
                        {"stroke": v["stroke"], "stroke_width": v["stroke_width"], "dash": v["dash"]}))
