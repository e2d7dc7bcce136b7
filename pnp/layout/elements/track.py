"""track: numbered spaces along a line, or clockwise around a rectangle."""

import math
from collections.abc import Iterator

from ...errors import LayoutError
from ...model.load import Record
from ... import units
from .. import params as P
from .base import Element, Problem
from .cells import CELL, PER_CELL, check_cells, draw_cells
from ..prims import Prim
from .base import Context, ElementResolver, ElementShape


class Track(Element):
    """`count` spaces of size `cell`: evenly along the line (x1, y1) to (x2, y2) when x1 is given, else
    clockwise around the edge of the box (x, y, w, h) from its top-left corner, one on each corner. Each space's templates see
    `n` (its number, from `start`), `i` (from 0) and `last`."""

    type = "track"
    params = {
        "x1": P.Length(None, "start of the line (from the trim's left)"), "y1": P.Length(0, "start of the line"),
        "x2": P.Length(0, "end of the line"), "y2": P.Length(0, "end of the line"),
        "x": P.Length(0, "left edge of the box the track runs around"), "y": P.Length(0, "top edge of the box"),
        "w": P.Length("=the layout's width", "width of the box", minimum=0),
        "h": P.Length("=the layout's height", "height of the box", minimum=0),
        "count": P.Int(10, "how many spaces", minimum=0, maximum=10_000),
        "start": P.Int(0, "the number of the first space", minimum=-1_000_000, maximum=1_000_000),
        "cell": P.Length("10mm", "width and height of each space", minimum=0),
        **CELL,
    }

    LINE, BOX = ("x1", "y1", "x2", "y2"), ("x", "y", "w", "h")

    def check(self, spec: Record) -> Iterator[Problem]:
        yield from check_cells(self.type, spec)
        form, other = (self.LINE, self.BOX) if "x1" in spec else (self.BOX, self.LINE)
        for key in other:
            if key in spec:
                yield (f"'{key}' does not apply: a track runs along a line (x1, y1, x2, y2) or around a box "
                       f"(x, y, w, h), and this one {'has x1' if form is self.LINE else 'has no x1'}",
                       spec.key_mark(key))

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx, later=PER_CELL)
        count, cell = v["count"], v["cell"]
        centres: list[tuple[float, float]] | None
        if v["x1"] is not None:
            x1, y1, x2, y2 = ox + v["x1"], oy + v["y1"], ox + v["x2"], oy + v["y2"]
            steps = max(count - 1, 1)
            centres = [(x1 + (x2 - x1) * k / steps, y1 + (y2 - y1) * k / steps) for k in range(count)]
            if count > 1 and math.dist((x1, y1), (x2, y2)) / steps < cell - 0.01:
                raise LayoutError(f"track: {count} spaces of {units.to_mm(cell)} mm overlap along a line of "
                                  f"{units.to_mm(math.dist((x1, y1), (x2, y2)))} mm", el.mark)
        else:
            lay = resolver.layout
            w = lay.width if v["w"] is None else v["w"]
            h = lay.height if v["h"] is None else v["h"]
            if 1 < count < 4:  # (said as spaces that overlap, which they need not)
                raise LayoutError(f"track: a track around a box has a space on each of its 4 corners, so {count} "
                                  "spaces are too few; give 4 or more, or run them along a line (x1, y1, x2, y2)",
                                  el.mark_of("count") or el.mark)
            centres = around(ox + v["x"] + cell / 2, oy + v["y"] + cell / 2, w - cell, h - cell, count, cell)
            if centres is None:
                raise LayoutError(f"track: {count} spaces of {units.to_mm(cell)} mm do not fit around "
                                  f"{units.to_mm(w)} x {units.to_mm(h)} mm without overlapping", el.mark)
        cells = [(cx - cell / 2, cy - cell / 2, cell, cell, {"n": v["start"] + k, "i": k, "last": k == count - 1})
                 for k, (cx, cy) in enumerate(centres)]
        draw_cells(el, ctx, cells, out, resolver)


def around(x: float, y: float, w: float, h: float, count: int, cell: float) -> list[tuple[float, float]] | None:
    """`count` centres clockwise around a rectangle's edge from its top-left corner, a space on every
    corner and the rest shared out between the sides by their length, so no two spaces overlap at a corner.
    None when the spaces do not fit (a side would need them closer than `cell`)."""
    if count <= 0:
        return []
    sides = [w, h, w, h]
    if count < 4 or min(sides) <= 0:
        return None if count > 1 else [(x, y)]
    perimeter = sum(sides)
    shares = [max(1, round(count * side / perimeter)) for side in sides]
    while sum(shares) != count:  # rounding: take from (or give to) the side that minds it least
        k = max(range(4), key=lambda i: sides[i] / shares[i] * (1 if sum(shares) < count else -1))
        shares[k] += 1 if sum(shares) < count else -1
        if shares[k] < 1:
            return None
    if any(side / n < cell - 0.01 for side, n in zip(sides, shares)):
        return None
    corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    directions = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    points = []
    for (cx, cy), (dx, dy), side, n in zip(corners, directions, sides, shares):
        step = side / n
        points += [(cx + dx * step * k, cy + dy * step * k) for k in range(n)]
    return points
