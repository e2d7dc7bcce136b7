"""grid: rows and columns of cells."""

from collections.abc import Iterator

from ...model.load import Record
from .. import params as P
from .base import Element, Problem
from .cells import CELL, PER_CELL, check_cells, draw_cells
from ..prims import Prim
from .base import Context, ElementResolver, ElementShape


class Grid(Element):
    """`rows` x `cols` cells from (x, y); each cell's templates see `row`, `col` and `n` (counted left to
    right, top to bottom, from 0)."""

    type = "grid"
    params = {
        "x": P.Length(0, "left edge of the grid"), "y": P.Length(0, "top edge of the grid"),
        "cols": P.Int(1, "columns", minimum=0, maximum=1000), "rows": P.Int(1, "rows", minimum=0, maximum=1000),
        "cell_w": P.Length("10mm", "width of a cell", minimum=0), "cell_h": P.Length("10mm", "height of a cell",
                                                                                     minimum=0),
        **CELL,
    }
    MAX_CELLS = 10_000

    def check(self, spec: Record) -> Iterator[Problem]:
        return check_cells(self.type, spec)

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx, later=PER_CELL)
        cols, rows, cw, ch = v["cols"], v["rows"], v["cell_w"], v["cell_h"]
        if cols * rows > self.MAX_CELLS:
            from ...errors import LimitError

            raise LimitError(f"a grid of {cols * rows:,} cells; at most {self.MAX_CELLS:,}")
        x0, y0 = ox + v["x"], oy + v["y"]
        cells = [(x0 + c * cw, y0 + r * ch, cw, ch, {"row": r, "col": c, "n": r * cols + c})
                 for r in range(rows) for c in range(cols)]
        draw_cells(el, ctx, cells, out, resolver)
