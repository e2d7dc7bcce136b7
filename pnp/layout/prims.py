"""Drawing primitives: what a layout resolves to for one item, in points from the trim's top-left corner."""

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..model.load import Record
from ..report import Mark


@dataclass(slots=True)
class Prim:
    """One thing to draw, in points, x/y from the trim box's top-left corner, y downwards.
    `rotate` turns it clockwise (degrees) about the centre of its box (x, y, w, h)."""

    kind: str  # rect line circle polygon text icon image
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    points: tuple[tuple[float, float], ...] = ()
    style: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    rotate: float = 0.0
    mark: Mark | None = None
    thumbnail: bool = False  # drawn smaller than its layout makes it (a card pictured on another card)
    # the element that made it (its file:line), which painting it spends the drawing budget for; not part of
    # what is drawn, so not of its repr (shared faces are named by the repr of their primitives)
    source: Mark | None = field(default=None, repr=False, compare=False)
    # (the `use` element of the printed layout that draws it inside that layout, the scale it is drawn at all
    # told): None when its own layout draws it; said where printed text is too small. Not part of what is drawn.
    used: "tuple[Mark | None, float] | None" = field(default=None, repr=False, compare=False)
    # (text: where its `font:` was written, the element's own or its text style's; None for a font nobody
    # wrote): a font refused at its style's line is not said again at each element the style draws, and a font
    # an element writes itself is said at that element, whatever its style's. Not part of what is drawn.
    font_mark: Mark | None = field(default=None, repr=False, compare=False)


def polygon(points: list[tuple[float, float]], style: dict[str, Any], rotate: float = 0.0,
            mark: Mark | None = None) -> Prim:
    """A polygon primitive whose box is the points' bounding box (so it turns about its own centre)."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return Prim("polygon", min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys), tuple(points), style,
                rotate=rotate, mark=mark)


def scaled(p: Prim, x: float, y: float, s: float, used: Mark | None) -> Prim:
    """A copy of a primitive scaled by s about the origin, then moved by (x, y), drawn by the `use` element at
    `used` (that layout's, outside any it draws it in)."""
    style = dict(p.style)
    for key in ("size", "min_size", "stroke_width", "radius"):
        if key in style and style[key] is not None:
            style[key] = style[key] * s
    if style.get("dash"):
        style["dash"] = tuple(d * s for d in style["dash"])
    return Prim(p.kind, x + p.x * s, y + p.y * s, p.w * s, p.h * s,
                tuple((x + px * s, y + py * s) for px, py in p.points), style, p.text, p.rotate, p.mark,
                p.thumbnail or s < 0.999, p.source, (used, s * (p.used[1] if p.used is not None else 1.0)),
                p.font_mark)


class PlacedShape(Protocol):
    """What placing reads of a compiled element (pnp.layout.compile.Compiled, which imports placing)."""

    @property
    def spec(self) -> Record: ...
    @property
    def mark(self) -> Mark | None: ...
    @property
    def consts(self) -> dict[str, Any]: ...
    def mark_of(self, key: str) -> Mark | None: ...


class LayoutShape(Protocol):
    """What resolving and placing read of a layout (pnp.layout.layouts.Layout, which imports them)."""

    name: str
    width: float
    height: float
    bleed: float
    safe: float
    vars: dict[str, Any]
    elements: list[Any]
    placement: Any
