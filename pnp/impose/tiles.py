"""Tiling a board bigger than the paper: tiles with overlap, alignment marks and a map of the tiles."""

import math
from dataclasses import dataclass

from ..units import MM

OVERLAP = 12 * MM
MARGIN = 10 * MM


@dataclass(frozen=True)
class Tile:
    col: int
    row: int
    cols: int
    rows: int
    # the part of the board this tile shows, in board points from the board's bottom-left corner
    bx: float
    by: float
    bw: float
    bh: float

    @property
    def label(self):
        return f"{chr(ord('A') + self.row)}{self.col + 1}"



def tiles(paper, size, overlap=OVERLAP, margin=MARGIN):
    """Split a board of `size` over pages: rows top to bottom (A, B, ...), columns left to right (1, 2, ...)."""
    aw, ah = paper[0] - 2 * margin, paper[1] - 2 * margin
    W, H = size
    cols = 1 if W <= aw else math.ceil((W - overlap) / (aw - overlap))
    rows = 1 if H <= ah else math.ceil((H - overlap) / (ah - overlap))
    # share the board evenly between tiles rather than leaving a thin last strip
    tw = W if cols == 1 else (W + (cols - 1) * overlap) / cols
    th = H if rows == 1 else (H + (rows - 1) * overlap) / rows
    out = []
    for r in range(rows):
        for c in range(cols):
            bx = c * (tw - overlap)
            top = H - r * (th - overlap)
            out.append(Tile(c, r, cols, rows, bx, top - th, tw, th))
    return out


def alignment_marks(tile, overlap=OVERLAP):
    """Board-coordinate centres of the registration targets in this tile's overlap strips.
    A target sits in the middle of each overlap, so the same target prints on both neighbouring tiles."""
    marks = []
    half = overlap / 2
    if tile.col > 0:
        x = tile.bx + half
        marks += [(x, tile.by + tile.bh * f) for f in (0.25, 0.75)]
    if tile.col < tile.cols - 1:
        x = tile.bx + tile.bw - half
        marks += [(x, tile.by + tile.bh * f) for f in (0.25, 0.75)]
    if tile.row > 0:
        y = tile.by + tile.bh - half
        marks += [(tile.bx + tile.bw * f, y) for f in (0.25, 0.75)]
    if tile.row < tile.rows - 1:
        y = tile.by + half
        marks += [(tile.bx + tile.bw * f, y) for f in (0.25, 0.75)]
    return marks
