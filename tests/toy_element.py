"""A toy layout element in one module, as a new element type is added to pnp/layout/elements/: its parameters
as options types, and how it resolves to primitives. tests/test_registries.py registers it."""

from pnp.layout import params as P
from pnp.layout.elements.base import PAINT, Context, Element, ElementResolver, ElementShape, paint_style
from pnp.layout.prims import Prim


class Dot(Element):
    """A round dot of a given diameter at a point (the centre)."""

    type = "toydot"
    params = {
        "x": P.Length(0, "centre, from the trim's left"), "y": P.Length(0, "centre, from the trim's top"),
        "d": P.Length(doc="diameter", minimum=0.5),
        **PAINT,
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        r = v["d"] / 2
        out.append(Prim("circle", ox + v["x"] - r, oy + v["y"] - r, 2 * r, 2 * r, style=paint_style(v)))
