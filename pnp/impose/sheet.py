"""Sheet geometry: how many items fit a page, where each goes, crop marks, and mirrored duplex backs."""

import functools
import math
from dataclasses import dataclass, replace

from ..units import MM, fits

MARGIN = 7 * MM       # the least paper left around the cut block for printer grip and crop marks
MARK_GAP = 1.5 * MM   # crop marks start this far from the cut block so they never touch the art
MARK_MAX = 6 * MM
MARK_MIN = 3 * MM     # a crop mark shorter than this is hard to find and to lay a ruler on
Point = tuple[float, float]
Segment = tuple[Point, Point]  # a crop mark or fold line: ((x1, y1), (x2, y2))
Box = tuple[float, float, float, float]  # (left, bottom, right, top), or (x, y, w, h) where said

CORNER_ARM = 4 * MM   # each arm of a corner mark
EDGE_SAFE = 5 * MM    # nothing is printed closer to the paper's edge: many home printers clip 4-5 mm
FOOTER_BAND = 3 * MM  # the page's footer line, centred this high above EDGE_SAFE: crop marks stop short of it
NET_FOOTER_ROOM = EDGE_SAFE + 4 * MM  # paper under a net cut from one sheet (a tuck box, a die): clear of the footer
MARK_CLEAR = EDGE_SAFE + MARK_GAP + MARK_MIN  # the least paper beside a block: room for its crop marks


@dataclass(frozen=True)
class Slot:
    """One item's trim box on a page (points, PDF coordinates: bottom-left origin)."""

    x: float
    y: float
    w: float
    h: float
    col: int
    row: int


@dataclass(frozen=True)
class Grid:
    paper: tuple[float, float]  # (w, h) points
    cols: int
    rows: int
    item: tuple[float, float]  # trim (w, h)
    bleed: float
    gap: float
    origin: tuple[float, float]  # bottom-left of the whole block, including bleed
    outer: tuple[float, float] = (0.0, 0.0)  # art beyond the block's edges, across and up: butted cards' outer bleed
    turned: bool = False  # items lie a quarter turn round (`item` is then their turned size), as more fit so
    footer: float = FOOTER_BAND  # paper kept for the page's footer above EDGE_SAFE at the foot of the page

    @property
    def per_page(self) -> int:
        return self.cols * self.rows

    @property
    def pitch(self) -> tuple[float, float]:
        return self.item[0] + 2 * self.bleed + self.gap, self.item[1] + 2 * self.bleed + self.gap

    def slot(self, index: int, mirrored: bool = False) -> Slot:
        """Slot of item `index` on its page, counted left to right, top to bottom.
        A mirrored slot swaps columns: the back of a card printed long-edge duplex."""
        i = index % self.per_page
        row, col = divmod(i, self.cols)
        if mirrored:
            col = self.cols - 1 - col
        px, py = self.pitch
        x = self.origin[0] + col * px + self.bleed
        y = self.origin[1] + (self.rows - 1 - row) * py + self.bleed
        return Slot(x, y, self.item[0], self.item[1], col, row)

    def block(self) -> Box:
        px, py = self.pitch
        return (self.origin[0], self.origin[1], self.cols * px - self.gap, self.rows * py - self.gap)

    def _filled(self, filled: int | None, mirrored: bool) -> list[Slot]:
        count = self.per_page if filled is None else min(filled, self.per_page)
        return [self.slot(i, mirrored) for i in range(count)]

    @functools.lru_cache(maxsize=256)  # noqa: B019 (a grid lives as long as its build) asked for each card of a sheet, the same answer for the whole sheet
    def _taken(self, filled: int | None, mirrored: bool) -> frozenset[tuple[int, int]]:
        return frozenset((t.col, t.row) for t in self._filled(filled, mirrored))

    def clip(self, index: int, filled: int | None = None, mirrored: bool = False) -> Box:
        """How far slot `index`'s art may run past its trim: (left, bottom, right, top). Every side gets the
        grid's bleed; a side with no card next to it also gets the outer bleed, so a cut a little off the
        line shows the card's own art there, not white paper."""
        s = self.slot(index, mirrored)
        taken = self._taken(filled, mirrored)
        ox, oy = self.outer
        return (self.bleed + (ox if (s.col - 1, s.row) not in taken else 0),
                self.bleed + (oy if (s.col, s.row + 1) not in taken else 0),
                self.bleed + (ox if (s.col + 1, s.row) not in taken else 0),
                self.bleed + (oy if (s.col, s.row - 1) not in taken else 0))

    def cut_lines(self, filled: int | None = None, mirrored: bool = False) -> tuple[list[float], list[float]]:
        """x positions of vertical cuts and y positions of horizontal cuts (deduplicated, sorted) of the
        first `filled` slots (all of them when not given)."""
        xs, ys = set[float](), set[float]()
        for s in self._filled(filled, mirrored):
            xs.update((round(s.x, 3), round(s.x + s.w, 3)))
            ys.update((round(s.y, 3), round(s.y + s.h, 3)))
        return sorted(xs), sorted(ys)

    def mark_room(self) -> tuple[float, float]:
        """(across, up): the paper left beside the block and its outer bleed for crop marks, keeping clear
        of the art, of the paper's edge and of the footer's band (the marks above the block are as long as
        those below it)."""
        bx, by, bw, bh = self.block()
        pw, ph = self.paper
        return (min(bx, pw - bx - bw) - self.outer[0] - MARK_GAP - EDGE_SAFE,
                min(by - self.footer, ph - by - bh) - self.outer[1] - MARK_GAP - EDGE_SAFE)

    def crop_marks(self, filled: int | None = None, mirrored: bool = False, style: str = "lines") -> list[Segment]:
        """Line segments ((x1, y1), (x2, y2)) marking where to cut the filled slots (all slots when `filled`,
        how many hold an item, is not given; on a backs page, `mirrored`, the slots are the mirrored ones).
        `lines`: each cut line continued into the margins, starting just past the art; `corners`: an L at
        each corner of each item, wherever it clears every item's art; `none`. Never within EDGE_SAFE of
        the paper's edge."""
        slots = self._filled(filled, mirrored)
        if not slots or style == "none":
            return []
        if style == "corners":
            return self._corner_marks(filled, mirrored)
        (ox, oy), b = self.outer, self.bleed
        left, right = min(s.x for s in slots) - b - ox, max(s.x + s.w for s in slots) + b + ox
        bottom, top = min(s.y for s in slots) - b - oy, max(s.y + s.h for s in slots) + b + oy
        xs, ys = self.cut_lines(filled, mirrored)
        room_h, room_v = self.mark_room()
        lh, lv = min(MARK_MAX, room_h), min(MARK_MAX, room_v)
        marks: list[Segment] = []
        if lv > 1 * MM:
            for x in xs:
                marks.append(((x, bottom - MARK_GAP), (x, bottom - MARK_GAP - lv)))
                marks.append(((x, top + MARK_GAP), (x, top + MARK_GAP + lv)))
        if lh > 1 * MM:
            for y in ys:
                marks.append(((left - MARK_GAP, y), (left - MARK_GAP - lh, y)))
                marks.append(((right + MARK_GAP, y), (right + MARK_GAP + lh, y)))
        return marks

    def _corner_marks(self, filled: int | None, mirrored: bool) -> list[Segment]:
        slots = self._filled(filled, mirrored)
        arts: list[Box] = []
        for i, s in enumerate(slots):
            left, bottom, right, top = self.clip(i, filled, mirrored)
            arts.append((s.x - left, s.y - bottom, s.x + s.w + right, s.y + s.h + top))
        pw, ph = self.paper
        safe = (EDGE_SAFE, EDGE_SAFE, pw - EDGE_SAFE, ph - EDGE_SAFE)
        marks: list[Segment] = []
        for s, art in zip(slots, arts):
            for cx, ax, sx in ((s.x, art[0], -1), (s.x + s.w, art[2], 1)):
                for cy, ay, sy in ((s.y, art[1], -1), (s.y + s.h, art[3], 1)):
                    start_x, start_y = ax + sx * MARK_GAP, ay + sy * MARK_GAP
                    for seg in (((start_x, cy), (start_x + sx * CORNER_ARM, cy)),
                                ((cx, start_y), (cx, start_y + sy * CORNER_ARM))):
                        if _inside(seg, safe) and not any(_crosses(seg, a) for a in arts):
                            marks.append(seg)
        return list(dict.fromkeys(marks))

    def with_outer_bleed(self, art: float) -> "Grid":
        """This butted grid with up to `art` of outer bleed on each axis, as much as leaves crop marks of
        MARK_MIN or more (none on an axis that would get less than half a millimetre)."""
        room_h, room_v = self.mark_room()
        ox, oy = (min(art, room - MARK_MIN) for room in (room_h, room_v))
        return replace(self, outer=(ox if ox >= 0.5 * MM else 0.0, oy if oy >= 0.5 * MM else 0.0))


def _inside(segment: Segment, box: Box) -> bool:
    (x1, y1), (x2, y2) = segment
    return all(box[0] <= x <= box[2] for x in (x1, x2)) and all(box[1] <= y <= box[3] for y in (y1, y2))


def _crosses(segment: Segment, box: Box) -> bool:
    """Whether an axis-parallel segment reaches into the box's inside (running along its edge does not)."""
    (x1, y1), (x2, y2) = segment
    return _overlaps(min(x1, x2), max(x1, x2), box[0], box[2]) and _overlaps(min(y1, y2), max(y1, y2), box[1], box[3])


def _overlaps(lo: float, hi: float, a: float, b: float) -> bool:
    """[lo, hi] (a point when lo == hi) against the open interval (a, b)."""
    return a < lo < b if lo == hi else lo < b and hi > a


def densest(paper: tuple[float, float], item: tuple[float, float], bleed: float = 0.0, gap: float = 0.0,
            margin: float = MARGIN) -> Grid | None:
    """The grid holding the most items: upright, or turned a quarter round when that holds more."""
    upright = grid(paper, item, bleed, gap, margin)
    turned = grid(paper, (item[1], item[0]), bleed, gap, margin)
    if turned is not None and (upright is None or turned.per_page > upright.per_page):
        return replace(turned, turned=True)
    return upright


def grid(paper: tuple[float, float], item: tuple[float, float], bleed: float = 0.0, gap: float = 0.0,
         margin: float = MARGIN) -> Grid | None:
    """The largest grid of `item`-sized boxes (plus bleed) that fits the paper, centred, leaving on every side
    at least `margin` and room for crop marks of MARK_MIN (above and below, clear of the footer too): a row
    or column less rather than marks too short to find; None if none fits."""
    pw, ph = paper
    w, h = item[0] + 2 * bleed, item[1] + 2 * bleed
    side, ends = max(margin, MARK_CLEAR), max(margin, MARK_CLEAR + FOOTER_BAND)
    cols = int((pw - 2 * side + gap) // (w + gap) + 1e-9)
    rows = int((ph - 2 * ends + gap) // (h + gap) + 1e-9)
    if cols < 1 or rows < 1:
        return None
    bw, bh = cols * (w + gap) - gap, rows * (h + gap) - gap
    return Grid(paper, cols, rows, item, bleed, gap, ((pw - bw) / 2, (ph - bh) / 2))


@dataclass(frozen=True)
class Fold:
    """A gutter-fold sheet: fronts on one half of the page, each back at the mirror of its front across the
    fold line, so that folding the sheet (and gluing it) puts every back behind its front. Folded about a
    vertical line the backs print upright; about a horizontal line they are turned half round."""

    page: tuple[float, float]  # (w, h) points: the paper, portrait or landscape, whichever holds more
    half: Grid  # the fronts' grid on their half (the left half, or the top half shifted down to 0)
    vertical: bool  # the fold line runs up the middle of the page (else across it)

    @property
    def per_page(self) -> int:
        return self.half.per_page

    def _lift(self) -> float:
        return 0.0 if self.vertical else self.page[1] / 2  # the top half starts halfway up the page

    def front(self, index: int) -> Slot:
        s = self.half.slot(index)
        return Slot(s.x, s.y + self._lift(), s.w, s.h, s.col, s.row)

    def back(self, index: int) -> Slot:
        """The back of the item in slot `index`: the front's slot mirrored across the fold."""
        s, (pw, ph) = self.front(index), self.page
        if self.vertical:
            return Slot(pw - s.x - s.w, s.y, s.w, s.h, s.col, s.row)
        return Slot(s.x, ph - s.y - s.h, s.w, s.h, s.col, s.row)

    def line(self) -> Segment:
        """The fold line, from edge to edge of the page's printable area."""
        pw, ph = self.page
        if self.vertical:
            return ((pw / 2, EDGE_SAFE), (pw / 2, ph - EDGE_SAFE))
        return ((EDGE_SAFE, ph / 2), (pw - EDGE_SAFE, ph / 2))

    def crop_marks(self, filled: int | None, style: str = "lines") -> list[Segment]:
        """Marks for the fronts' cuts (kept within their half), and the same mirrored for the backs."""
        lift, (pw, ph) = self._lift(), self.page
        marks = [((x1, y1 + lift), (x2, y2 + lift)) for (x1, y1), (x2, y2) in self.half.crop_marks(filled, style=style)]
        if self.vertical:
            mirror = [((pw - x1, y1), (pw - x2, y2)) for (x1, y1), (x2, y2) in marks]
        else:
            mirror = [((x1, ph - y1), (x2, ph - y2)) for (x1, y1), (x2, y2) in marks]
        return marks + mirror


def gutterfold(paper: tuple[float, float], item: tuple[float, float], bleed: float = 0.0) -> Fold | None:
    """The best gutter fold for items of `item` size: portrait or landscape paper, folded up the middle or
    across it, whichever holds most (folded up the middle on a tie, so no back is upside down). Each half
    keeps the sheet margin on all sides, the fold included, so nothing is printed on the fold."""
    best: Fold | None = None
    for page in (paper, (paper[1], paper[0])):
        pw, ph = page
        for vertical in (True, False):
            half = grid((pw / 2, ph) if vertical else (pw, ph / 2), item, bleed)
            if half is not None and (best is None or half.per_page > best.per_page):
                best = Fold(page, half, vertical)
    return best


def pages_needed(count: int, per_page: int) -> int:
    return max(1, math.ceil(count / per_page))


@dataclass(frozen=True)
class Placed:
    index: int
    x: float
    y: float
    w: float
    h: float


def shelves(paper: tuple[float, float], sizes: list[tuple[float, float]], gap: float = 3 * MM,
            margin: float = MARGIN) -> list[list[Placed]]:
    """Pack boxes of mixed sizes in rows (shelves), in order; returns pages of Placed (PDF coords)."""
    pw, ph = paper
    left, right, top, bottom = margin, pw - margin, ph - margin, margin
    pages: list[list[Placed]] = []
    page: list[Placed] = []
    x, y, shelf_h = left, top, 0.0
    for i, (w, h) in enumerate(sizes):
        if not fits((w, h), (right - left, top - bottom)):  # (as the check tells it: paper_too_small)
            raise ValueError(f"a {w / MM:.0f} x {h / MM:.0f} mm item does not fit on the paper")
        if x + w > right + 0.01:  # next shelf
            x, y, shelf_h = left, y - shelf_h - gap, 0.0
        if y - h < bottom - 0.01:  # next page
            pages.append(page)
            page, x, y, shelf_h = [], left, top, 0.0
        page.append(Placed(i, x, y - h, w, h))
        x += w + gap
        shelf_h = max(shelf_h, h)
    if page:
        pages.append(page)
    return _centre(pages, paper, margin)


def _centre(pages: list[list[Placed]], paper: tuple[float, float], margin: float) -> list[list[Placed]]:
    """Centre each page's packed block horizontally so the sheet looks intended."""
    out: list[list[Placed]] = []
    for page in pages:
        if not page:
            out.append(page)
            continue
        right = max(p.x + p.w for p in page)
        dx = (paper[0] - margin - right - (min(p.x for p in page) - margin)) / 2
        out.append([Placed(p.index, p.x + dx, p.y, p.w, p.h) for p in page])
    return out
