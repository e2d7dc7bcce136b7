"""polygon: a closed shape through a list of points."""

from .. import params as P
from ..prims import polygon
from .base import PAINT, Element, paint_style


class Polygon(Element):
    """A closed shape through its points."""

    type = "polygon"
    rotates = True
    params = {
        "points": P.Points(doc="the corners, each [x, y] from the trim's top-left"),
        **PAINT,
    }

    def resolve(self, el, ctx, ox, oy, out, resolver) -> None:
        v = el.values(ctx)
        out.append(polygon([(ox + x, oy + y) for x, y in v["points"]], paint_style(v), v["rotate"]))
