"""hexgrid: rows and columns of hexagons, in offset coordinates, each cell templated from its coordinates."""

import math
from collections.abc import Iterator
from typing import Any

from ...errors import LimitError
from ...model.load import Record
from .. import params as P
from ..prims import Prim, polygon
from .base import HOLDS, PAINT, Element, Problem, holds, paint_style
from .base import Context, ElementResolver, ElementShape

CELL = {
    "show": P.Bool(True, "whether this cell is drawn (a template: e.g. `{{ (row, col) in holes }}` leaves holes)"),
    **PAINT,
    "label": P.Text("", "text centred in each cell (a template: it sees the cell's coordinates)"),
    "label_size": P.FontSize("=about a third of the radius", "the label's font size"),
    "font": P.Text("Display", "the label's font family"),
    "color": P.Ink("#000000", "the label's colour"),
    "icon": P.Text("", "an icon centred in each cell (a template, e.g. `{{ terrain[n].icon }}`)"),
    "icon_size": P.Length("=the radius", "the icon's width and height", minimum=0),
    "icon_color": P.Ink("#000000", "the icon's colour"),
    **HOLDS,
}
PER_CELL = tuple(CELL)


class HexGrid(Element):
    """`rows` x `cols` regular hexagons of radius `radius`, the grid's bounding box at (x, y). `pointy` hexes
    sit in rows with every other row shifted half a hex right (`offset: odd` shifts rows 1, 3, ...; `even`
    rows 0, 2, ...); `flat` hexes sit in columns with every other column shifted half a hex down. Each cell's
    templates see `row`, `col`, `n` (counted left to right, top to bottom, from 0) and its axial coordinates
    `q` and `r` (neighbours differ by one step of (q, r): (1, 0), (0, 1), (-1, 1) and their opposites)."""

    type = "hexgrid"
    params = {
        "x": P.Length(0, "left edge of the grid's bounding box"), "y": P.Length(0, "top edge of the grid's box"),
        "cols": P.Int(1, "columns", minimum=0, maximum=1000), "rows": P.Int(1, "rows", minimum=0, maximum=1000),
        "radius": P.Length("10mm", "each hexagon's radius: centre to corner", minimum=0),
        "orientation": P.Choice(("pointy", "flat"), "pointy", "`pointy`: a corner on top, hexes in rows; "
                                                              "`flat`: a flat side on top, hexes in columns"),
        "offset": P.Choice(("odd", "even"), "odd", "which rows (pointy) or columns (flat) are shifted by half "
                                                   "a hex"),
        **CELL,
    }
    MAX_CELLS = 10_000

    def check(self, spec: Record) -> Iterator[Problem]:
        for key in ("label_size", "font", "color"):
            if key in spec and "label" not in spec:
                yield f"'{key}' sets how a label looks, and this hexgrid has no 'label'", spec.key_mark(key)
        for key in ("icon_size", "icon_color"):
            if key in spec and "icon" not in spec:
                yield f"'{key}' sets how an icon looks, and this hexgrid has no 'icon'", spec.key_mark(key)

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx, later=PER_CELL)
        cols, rows = v["cols"], v["rows"]
        if cols * rows > self.MAX_CELLS:
            raise LimitError(f"a hexgrid of {cols * rows:,} cells; at most {self.MAX_CELLS:,}")
        per_cell = el.is_templated(PER_CELL)
        cell: dict[str, Any] = {} if per_cell else el.values(ctx)  # per cell: made for each below
        for row in range(rows):
            for col in range(cols):
                cx, cy, coords = hex_cell(row, col, v["radius"], v["orientation"], v["offset"])
                if per_cell:
                    cell = el.values({**ctx, "row": row, "col": col, "n": row * cols + col, **coords})
                if cell["show"]:
                    _draw_cell(el, cell, ox + v["x"] + cx, oy + v["y"] + cy, v["radius"], v["orientation"], out)
                resolver.pay(el, out)  # each cell as it is made, as a repeat's copy is


def hex_cell(row: int, col: int, radius: float, orientation: str, offset: str) -> tuple[float, float, dict[str, Any]]:
    """A cell's centre from the grid box's top-left corner, and its axial coordinates {q, r} (the "odd-r",
    "even-r", "odd-q" and "even-q" offset layouts of Red Blob Games' hexagonal grid guide)."""
    across, along = math.sqrt(3) * radius, 1.5 * radius  # spacing across the shifted lines and along them
    sign = -1 if offset == "odd" else 1  # odd: lines 1, 3, ... are shifted; even: lines 0, 2, ...
    if orientation == "pointy":
        shifted = row % 2 == (1 if offset == "odd" else 0)
        cx = across / 2 + col * across + (across / 2 if shifted else 0)
        cy = radius + row * along
        return cx, cy, {"q": col - (row + sign * (row % 2)) // 2, "r": row}
    shifted = col % 2 == (1 if offset == "odd" else 0)
    cx = radius + col * along
    cy = across / 2 + row * across + (across / 2 if shifted else 0)
    return cx, cy, {"q": col, "r": row - (col + sign * (col % 2)) // 2}


def _draw_cell(el: ElementShape, v: dict[str, Any], cx: float, cy: float, radius: float, orientation: str,
               out: list[Prim]) -> None:
    """One hexagon with its icon and label, centred on (cx, cy)."""
    start = 30 if orientation == "pointy" else 0
    points = [(cx + radius * math.cos(math.radians(start + 60 * k)), cy + radius * math.sin(math.radians(start + 60 * k)))
              for k in range(6)]
    style = paint_style(v)
    out.append(polygon(points, style, mark=holds(el, style)))
    if v["icon"]:
        size = radius if v["icon_size"] is None else v["icon_size"]
        out.append(Prim("icon", cx - size / 2, cy - size / 2, size, size, text=v["icon"],
                        style={"color": v["icon_color"]}, mark=el.mark_of("icon")))
    if v["label"] not in (None, ""):
        size = v["label_size"] or radius / 3
        width = math.sqrt(3) * radius * 0.9
        out.append(Prim("text", cx - width / 2, cy - size * 0.65, width, size * 1.3, text=v["label"],
                        style={"font": v["font"], "size": size, "min_size": size * 0.6, "leading": 1.0,
                               "align": "center", "valign": "top", "color": v["color"], "max_lines": 1},
                        mark=el.mark_of("label")))
