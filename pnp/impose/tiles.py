"""Tiling a board bigger than the paper: tiles that overlap, a trim line on one side of each seam, and
registration targets that stay on both tiles once that side is trimmed.

How a tiled board goes together: a tile right of or below another is trimmed along its dashed line (its
left or top edge) and laid over its neighbour, so the seam falls in the middle of the overlap; the targets
sit between the trim line and the end of the overlap, so both tiles keep them (pin through a target, or
hold the pair to the light, to line the two up). Seams are moved, where the paper leaves room, so that no
text is cut in two, and where some must be, the smallest type rather than a title."""

import bisect
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..units import MM

Point = tuple[float, float]
Interval = tuple[float, float, float]  # (start, end, weight): a line of text a seam should not cut, its type size

OVERLAP = 12 * MM
MARGIN = 10 * MM
TARGET_ARM = 2.2 * MM  # half the length of a target's cross (its circle is 0.6 of that)
SEAM_STEP = 1 * MM  # how finely a seam is moved off text


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
    def number(self) -> int:
        """1, 2, ... reading left to right, top to bottom."""
        return self.row * self.cols + self.col + 1

    @property
    def label(self) -> str:
        return f"tile {self.number} of {self.rows * self.cols} (row {self.row + 1}, column {self.col + 1})"

    def trim_lines(self, overlap: float = OVERLAP) -> list[tuple[Point, Point]]:
        """Board segments ((x1, y1), (x2, y2)) this tile is trimmed along: the middle of its overlap with the
        tile to its left, and with the tile above it."""
        lines: list[tuple[Point, Point]] = []
        if self.col > 0:
            x = self.bx + overlap / 2
            lines.append(((x, self.by), (x, self.by + self.bh)))
        if self.row > 0:
            y = self.by + self.bh - overlap / 2
            lines.append(((self.bx, y), (self.bx + self.bw, y)))
        return lines

    def kept(self, overlap: float = OVERLAP) -> tuple[float, float, float, float]:
        """The part of the board this tile keeps once trimmed: (x0, y0, x1, y1)."""
        x0 = self.bx + (overlap / 2 if self.col > 0 else 0)
        y1 = self.by + self.bh - (overlap / 2 if self.row > 0 else 0)
        return x0, self.by, self.bx + self.bw, y1


def _seams(length: float, count: int, room: float, overlap: float, avoid: Sequence[Interval]) -> list[float]:
    """Where the `count - 1` seams go along a board side of `length`: evenly, each then moved, within what
    keeps every tile at most `room` long, to the place that cuts the least text (see `_clear_spot`).
    A tile spans from the seam before it to the seam after it, plus half the overlap at each seam."""
    seams: list[float] = []
    held = (_Coverage(avoid), _Coverage([(a - overlap / 2, b + overlap / 2, w) for a, b, w in avoid]))
    for c in range(count - 1):
        later = count - 2 - c  # seams still to place after this one
        if seams:
            lo, hi = seams[-1] + overlap, seams[-1] + room - overlap
        else:
            lo, hi = overlap, room - overlap / 2
        # the tiles after this seam must still reach the end of the board
        lo = max(lo, length + overlap / 2 - room - later * (room - overlap))
        even = min(max(length * (c + 1) / count, lo), hi)
        seams.append(_clear_spot(even, lo, hi, held) if avoid else even)
    return seams


class _Coverage:
    """The weights of open intervals (start, end, weight) that hold a point, summed in logarithmic time: a
    board of 10,000 labels tiled over 88 pages compared every label with every place a seam might go (70 s)."""

    def __init__(self, intervals: Sequence[Interval]) -> None:
        kept = [(a, b, w) for a, b, w in intervals if a < b]  # (an empty interval holds no point)
        by_start, by_end = sorted(kept, key=lambda i: i[0]), sorted(kept, key=lambda i: i[1])
        self.starts, self.ends = [a for a, _, _ in by_start], [b for _, b, _ in by_end]
        self.start_sums = list(itertools.accumulate((w for *_, w in by_start), initial=0.0))
        self.end_sums = list(itertools.accumulate((w for *_, w in by_end), initial=0.0))

    def at(self, point: float) -> float:
        """The weights of the intervals with start < point < end: those begun before it less those ended."""
        begun = self.start_sums[bisect.bisect_left(self.starts, point)]
        return begun - self.end_sums[bisect.bisect_right(self.ends, point)]


def _clear_spot(even: float, lo: float, hi: float, held: tuple[_Coverage, _Coverage]) -> float:
    """The position in [lo, hi] whose seam cuts the least text, the size of the type cut counting (a title
    weighs more than a note), then whose overlap strip (where the targets go) crosses the least, then the
    nearest `even`. `held` holds the lines of text, each weighed by its type size: (the lines themselves, the
    lines widened by half the overlap on each side, which an overlap strip centred on a seam crosses)."""
    cut, crossed = held

    def cost(s: float) -> tuple[float, float, float]:
        return (round(cut.at(s), 3), round(crossed.at(s), 3), abs(s - even))

    if lo > hi:
        return even
    steps = int((hi - lo) / SEAM_STEP) + 1
    return min([even, *(lo + k * SEAM_STEP for k in range(steps + 1) if lo + k * SEAM_STEP <= hi)], key=cost)


def tiles(paper: tuple[float, float], size: tuple[float, float], overlap: float = OVERLAP, margin: float = MARGIN,
          avoid_x: Sequence[Interval] = (), avoid_y: Sequence[Interval] = ()) -> list[Tile]:
    """Split a board of `size` over pages: rows top to bottom, columns left to right. `avoid_x` and
    `avoid_y` are board intervals (start, end, weight) across, and up from the bottom, that a seam should
    not cut: lines of text, weighed by their type size."""
    aw, ah = paper[0] - 2 * margin, paper[1] - 2 * margin
    W, H = size
    cols = 1 if W <= aw else math.ceil((W - overlap) / (aw - overlap))
    rows = 1 if H <= ah else math.ceil((H - overlap) / (ah - overlap))
    xs = [0.0] + _seams(W, cols, aw, overlap, avoid_x) + [W]  # seams across, left to right
    # seams down, from the top (a row is counted from the top; board y runs up from the bottom)
    ys = [H] + [H - s for s in _seams(H, rows, ah, overlap, [(H - b, H - a, w) for a, b, w in avoid_y])] + [0.0]
    out: list[Tile] = []
    for r in range(rows):
        for c in range(cols):
            x0 = xs[c] - (overlap / 2 if c > 0 else 0)
            x1 = xs[c + 1] + (overlap / 2 if c < cols - 1 else 0)
            y1 = ys[r] + (overlap / 2 if r > 0 else 0)
            y0 = ys[r + 1] - (overlap / 2 if r < rows - 1 else 0)
            out.append(Tile(c, r, cols, rows, x0, y0, x1 - x0, y1 - y0))
    return out


def alignment_marks(tile: Tile, overlap: float = OVERLAP) -> list[Point]:
    """Board-coordinate centres of the registration targets on this tile: in each overlap, between the trim
    line (the seam) and the overlap's far edge, where the trimmed tile keeps them and its neighbour, which
    is not trimmed there, keeps them too."""
    marks: list[Point] = []
    quarter = overlap / 4
    if tile.col > 0:  # this tile's left overlap: trimmed here at the seam
        x = tile.bx + overlap / 2 + quarter
        marks += [(x, tile.by + tile.bh * f) for f in (0.25, 0.75)]
    if tile.col < tile.cols - 1:  # the right overlap: the neighbour is trimmed at the seam
        x = tile.bx + tile.bw - overlap / 2 + quarter
        marks += [(x, tile.by + tile.bh * f) for f in (0.25, 0.75)]
    if tile.row > 0:  # the top overlap: trimmed here
        y = tile.by + tile.bh - overlap / 2 - quarter
        marks += [(tile.bx + tile.bw * f, y) for f in (0.25, 0.75)]
    if tile.row < tile.rows - 1:  # the bottom overlap: the tile below is trimmed at the seam
        y = tile.by + overlap / 2 - quarter
        marks += [(tile.bx + tile.bw * f, y) for f in (0.25, 0.75)]
    return marks
