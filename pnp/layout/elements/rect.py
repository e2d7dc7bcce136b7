"""rect: a rectangle, optionally rounded, that may run out into the bleed."""

from .. import params as P
from ..prims import Prim
from .base import HOLDS, PAINT, Element, box, holds, paint_style
from .base import Context, ElementResolver, ElementShape


class Rect(Element):
    """A rectangle, optionally with rounded corners."""

    type = "rect"
    rotates = True
    params = {
        **box("=the layout's width", "=the layout's height"),
        "h": P.Length("=the layout's height", "height of the box, or `rest`: down to the bottom of the layout's safe area "
                          "(after the element is placed; not with `above`, nor turned but by a multiple of 180 "
                          "degrees)", minimum=0),
        "radius": P.Length(0, "corner radius (half the shorter side or more rounds it fully)", minimum=0),
        "bleed": P.Bool(False, "sides that lie on the trim line run on into the bleed, so a cut a little "
                               "off still shows no white edge"),
        **PAINT,
        **HOLDS,
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        lay = resolver.layout
        w = lay.width if v["w"] is None else v["w"]
        h = lay.height if v["h"] is None else v["h"]
        x, y = ox + v["x"], oy + v["y"]
        if v["bleed"]:  # sides lying on the trim line run out into the bleed
            b, W, H = lay.bleed, lay.width, lay.height
            x2, y2 = x + w, y + h
            x, y = (x - b if x <= 0.01 else x), (y - b if y <= 0.01 else y)
            x2, y2 = (x2 + b if x2 >= W - 0.01 else x2), (y2 + b if y2 >= H - 0.01 else y2)
            w, h = x2 - x, y2 - y
        style = paint_style(v)
        style["radius"] = v["radius"]
        out.append(Prim("rect", x, y, w, h, style=style, rotate=v["rotate"], mark=holds(el, style)))
