"""polygon: a closed shape through a list of points."""

from .. import params as P
from ..prims import polygon
from .base import PAINT, Element, paint_style
from ..prims import Prim
from .base import Context, ElementResolver, ElementShape


class Polygon(Element):
    """A closed shape through its points."""

    type = "polygon"
    rotates = True
    params = {
        "points": P.Corners(doc="the corners, each [x, y] from the trim's top-left"),
        **PAINT,
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        out.append(polygon([(ox + x, oy + y) for x, y in v["points"]], paint_style(v), v["rotate"]))
