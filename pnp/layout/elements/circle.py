"""circle: a circle by its centre and radius."""

from .. import params as P
from ..prims import Prim
from .base import HOLDS, PAINT, Element, holds, paint_style
from .base import Context, ElementResolver, ElementShape


class Circle(Element):
    """A circle."""

    type = "circle"
    params = {
        "cx": P.Length(0, "centre, from the trim's left"), "cy": P.Length(0, "centre, from the trim's top"),
        "r": P.Length(doc="radius", minimum=0),
        **PAINT,
        **HOLDS,
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        r = v["r"]
        style = paint_style(v)
        out.append(Prim("circle", ox + v["cx"] - r, oy + v["cy"] - r, 2 * r, 2 * r, style=style, mark=holds(el, style)))
