"""group: elements placed together, offset as one."""

from .. import params as P
from .base import Element
from ..prims import Prim
from .base import Context, ElementResolver, ElementShape


class Group(Element):
    """Elements drawn together, their positions counted from the group's (x, y); repeat a group to repeat
    them all."""

    type = "group"
    params = {
        "x": P.Length(0, "offset of the group's elements from the left"),
        "y": P.Length(0, "offset of the group's elements from the top"),
        "elements": P.Elements(doc="the elements of the group"),
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        gx, gy = ox + v["x"], oy + v["y"]
        for child in el.children:
            resolver.element(child, ctx, gx, gy, out)
