"""What grids and tracks share: cells drawn as shapes with an optional label, templated per cell."""

from collections.abc import Iterable, Iterator
from typing import Any

from ...model.load import Record
from .. import params as P
from ..prims import Prim
from .base import HOLDS, PAINT, Problem, holds, paint_style
from .base import Context, ElementResolver, ElementShape

CELL = {
    "shape": P.Choice(("rect", "circle"), "rect", "the shape of each cell"),
    **PAINT,
    "label": P.Text("", "text centred in each cell (a template: it sees the cell's numbers)"),
    "label_size": P.FontSize("=about half the cell", "the label's font size"),
    "font": P.Text("Display", "the label's font family"),
    "color": P.Ink("#000000", "the label's colour"),
    **HOLDS,
}
PER_CELL = tuple(CELL)


LABEL_ONLY = ("label_size", "font", "color")


Cell = tuple[float, float, float, float, dict[str, Any]]  # (x, y, w, h, the cell's variables)


def check_cells(kind: str, spec: Record) -> Iterator[Problem]:
    """The label's settings apply only to a label."""
    if "label" not in spec:
        for key in LABEL_ONLY:
            if key in spec:
                yield f"'{key}' sets how a label looks, and this {kind} has no 'label'", spec.key_mark(key)


def draw_cells(el: ElementShape, ctx: Context, cells: Iterable[Cell], out: list[Prim],
               resolver: ElementResolver) -> None:
    """Each cell (x, y, w, h, cell variables) as a shape plus its label; every CELL parameter is a template
    evaluated with the cell's variables, so colours and labels can change from cell to cell. Each cell is
    paid for as it is made, as a repeat's copy is (10,000 cells of a grid whose drawing budget ran out at
    its first are never made to be counted)."""
    per_cell = el.is_templated(PER_CELL)
    v: dict[str, Any] = {} if per_cell else el.values(ctx)  # per cell: made for each below
    for x, y, w, h, cell_vars in cells:
        if per_cell:
            v = el.values({**ctx, **cell_vars})
        style = paint_style(v)
        out.append(Prim("circle" if v["shape"] == "circle" else "rect", x, y, w, h, style=style, mark=holds(el, style)))
        if v["label"] not in (None, ""):
            _label(el, v, x, y, w, h, out)
        resolver.pay(el, out)


def _label(el: ElementShape, v: dict[str, Any], x: float, y: float, w: float, h: float, out: list[Prim]) -> None:
    """A cell's label, centred in its box."""
    size = v["label_size"] or min(w, h) / 2.2
    out.append(Prim("text", x, y + (h - size) / 2, w, size * 1.3, text=v["label"],
                    style={"font": v["font"], "size": size, "min_size": size * 0.6, "leading": 1.0,
                           "align": "center", "valign": "top", "color": v["color"], "max_lines": 1},
                    mark=el.mark_of("label")))
