"""icon: one SVG icon fitted in a box."""

from .. import params as P
from ..prims import Prim
from .base import Element, box
from .base import Context, ElementResolver, ElementShape


class Icon(Element):
    """An icon, fitted (aspect kept) and centred in its box, in one colour. What the SVG paints (and leaves
    unpainted: `none`, `transparent`, a `currentColor` whose `color` is transparent) is what a browser paints; what
    pnp cannot draw so (see-through gradient stops, a `transform` given in CSS, percentage radii or stroke widths,
    `vector-effect`, a picture cropped by `slice`) is refused at its line."""

    type = "icon"
    rotates = True
    params = {
        "icon": P.Text(doc="the icon's name (or an alias from game.yaml's `icons`)"),
        **box(h="=the width"),
        "color": P.Ink("#000000", "the icon's colour"),
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        if not v["icon"]:
            return
        h = v["w"] if v["h"] is None else v["h"]
        out.append(Prim("icon", ox + v["x"], oy + v["y"], v["w"], h, text=v["icon"], style={"color": v["color"]},
                        rotate=v["rotate"], mark=el.mark_of("icon")))
