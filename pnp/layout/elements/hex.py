"""hex: a regular hexagon by its centre and radius."""

import math

from .. import params as P
from ..prims import polygon
from .base import PAINT, Element, paint_style
from ..prims import Prim
from .base import Context, ElementResolver, ElementShape


class Hex(Element):
    """A regular hexagon."""

    type = "hex"
    rotates = True
    params = {
        "cx": P.Length(0, "centre, from the trim's left"), "cy": P.Length(0, "centre, from the trim's top"),
        "r": P.Length(doc="radius: centre to corner", minimum=0),
        "orientation": P.Choice(("flat", "pointy"), "flat", "`flat`: a flat side on top; `pointy`: a corner "
                                                            "on top"),
        **PAINT,
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        cx, cy, r = ox + v["cx"], oy + v["cy"], v["r"]
        start = 0 if v["orientation"] == "flat" else 30
        points = [(cx + r * math.cos(math.radians(start + 60 * k)), cy + r * math.sin(math.radians(start + 60 * k)))
                  for k in range(6)]
        out.append(polygon(points, paint_style(v), v["rotate"]))
