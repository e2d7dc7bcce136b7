"""icon: one SVG icon fitted in a box."""

from .. import params as P
from ..prims import Prim
from .base import Element


class Icon(Element):
    """An icon, fitted (aspect kept) and centred in its box, in one colour."""

    type = "icon"
    rotates = True
    params = {
        "icon": P.Text(doc="the icon's name (or an alias from game.yaml's `icons`)"),
        "x": P.Length(0, "left edge of the box"), "y": P.Length(0, "top edge of the box"),
        "w": P.Length(doc="width of the box", minimum=0),
        "h": P.Length("=the width", "height of the box", minimum=0),
        "color": P.Colour("#000000", "the icon's colour"),
    }

    def resolve(self, el, ctx, ox, oy, out, resolver):
        v = el.values(ctx)
        if not v["icon"]:
            return
        h = v["w"] if v["h"] is None else v["h"]
        out.append(Prim("icon", ox + v["x"], oy + v["y"], v["w"], h, text=v["icon"], style={"color": v["color"]},
                        rotate=v["rotate"], mark=el.mark_of("icon")))
