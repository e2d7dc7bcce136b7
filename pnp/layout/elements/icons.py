"""icons: a row (or column) of the same icon, e.g. one per point of cost."""

from .. import params as P
from ..prims import Prim
from .base import Element
from .base import Context, ElementResolver, ElementShape

DIRECTIONS = {"right": (1, 0), "left": (-1, 0), "down": (0, 1), "up": (0, -1)}


class Icons(Element):
    """`count` copies of an icon in a row, from (x, y) in `direction`."""

    type = "icons"
    params = {
        "icon": P.Text(doc="the icon's name"),
        "count": P.Int(1, "how many", minimum=0, maximum=1000),
        "x": P.Length(0, "left edge of the first icon"), "y": P.Length(0, "top edge of the first icon"),
        "size": P.Length("5mm", "width and height of each icon", minimum=0),
        "gap": P.Length("1mm", "space between two icons"),
        "direction": P.Choice(tuple(DIRECTIONS), "right", "which way the row runs from the first icon"),
        "color": P.Ink("#000000", "the icons' colour"),
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        dx, dy = DIRECTIONS[v["direction"]]
        size, pitch = v["size"], v["size"] + v["gap"]
        x, y = ox + v["x"], oy + v["y"]
        for k in range(v["count"]):
            out.append(Prim("icon", x + k * dx * pitch, y + k * dy * pitch, size, size, text=v["icon"],
                            style={"color": v["color"]}, mark=el.mark_of("icon")))
