"""image: a picture file fitted in a box."""

from .. import params as P
from ..prims import Prim
from .base import Element, box
from .base import Context, ElementResolver, ElementShape


class Image(Element):
    """A PNG, JPEG or WebP picture from layouts/<game>/, fitted (aspect kept) and centred in its box."""

    type = "image"
    rotates = True
    params = {
        "src": P.Text(doc="the file, relative to layouts/<game>/ (it must be inside the project)"),
        **box(),
        "min_dpi": P.Number(150, "the least resolution accepted at the printed size", minimum=1, maximum=2400,
                            unit="dpi"),
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        out.append(Prim("image", ox + v["x"], oy + v["y"], v["w"], v["h"], text=v["src"],
                        style={"min_dpi": v["min_dpi"]}, rotate=v["rotate"], mark=el.mark_of("src")))
