"""One game's drawing budget: the work of laying out and painting everything it prints, counted in steps
where the work happens (each element or repeated copy resolved, each shape made and each shape painted, a
text by its length), so that layouts asking for far too much stop with one message at the element that
spent the last step, whatever multiplies the work (repeats in repeats, many items, long texts)."""

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence

from ..draw.primitive import Primitive
from ..draw.text import glyph_runs
from ..errors import BudgetSpent
from .prims import Prim
from ..report import Mark
from ..template import evaluations_made, memory_checkpoint

# The steps a game may spend on its drawing in one command (validate, build, export, a preview refresh): a
# base, and an allowance per face printed, so that a deck of 10,000 cards can be drawn and a small game cannot
# be made to draw for minutes. Built, the shipped games spend 16,000 to 92,000 steps, 137 to 457 per face on
# average (the rulebook's counted); a deck of 1,000 cards of 60 elements a face spends about 480 a front; a
# step takes 5 to 15 microseconds of processor time. Each face's allowance is its own, not pooled: what a face
# spends past it comes from the base, shared by the whole game (a board, the rulebook, a face or two far
# heavier than the rest), so that a layout of thousands of elements over thousands of cards stops within the
# base (a few seconds), rather than spending every face's unused allowance (4,980 elements in a chain over
# 4,980 cards ran 27.6 s before stopping).
BASE_STEPS = 250_000
STEPS_PER_FACE = 500
CHARACTERS_PER_STEP = 8  # making a text (its template rendered) costs about as much per 8 characters as one shape
# each corner of an outline is worked out, and set again in the PDF each time it is painted: a board of 60,000
# hexagons took 2.7 times a board of 60,000 rectangles to build, when a point was a step per 8
POINTS_PER_STEP = 3
# Painting a text costs far more than making it: it is fitted to its box (by validation, and again by a board's
# tiling) and set as a PDF text object each time it is painted, about six shapes' work for a short label (a
# board of 40,000 six-character labels, charged a step each, took 44 s to build), then one step per 4
# characters (word widths, wrapping, glyphs written) and per glyph run past its first (each change of font, icon
# or line break is one more string set)
TEXT_STEPS = 6
TEXT_CHARACTERS_PER_STEP = 4
ICON_STEPS = 3  # an icon costs about three plain shapes to place and paint...
ICON_PAINTS = 3  # ...when it paints no more than this (game-icons.net's paint one to three): each more is a step
# A dashed outline is rendered dash by dash (pypdfium2 drew 20 million dashes in 7 s of processor time): 4,000
# lines of 0.1 mm dashes across a board took 11 s to export as PNG, and a game could ask for minutes of it
DASHES_PER_STEP = 32
# Each template or expression a layout evaluates (a `when`, a templated colour of each grid cell or repeated copy)
# costs about 20 to 40 microseconds of processor time with what surrounds it: 110,000 templated cells, priced as
# the shape each made, ran 4.4 s before the shape cap stopped them
TEMPLATE_STEPS = 3
# The pixels a game's pictures may have decoded in one command, the same way: a base and an allowance per face.
# Decoding and resampling go at about 30 million pixels a second (a plain 40-million-pixel PNG took 1.3 s to
# decode, 1.4 s more to resample), so the base is about 3 s of it: a 33-million-pixel board picture is decoded
# once to check it and once more by ReportLab to embed it as it is (66 million). Each face adds what a full-art
# poker card needs, its art 69 x 94 mm with bleed at 600 dpi (3.6 million pixels) decoded, resampled to its box
# and embedded (11 million): a deck of 1,000 such cards builds, four 40-million-pixel pictures on four
# cards are refused at the third.
BASE_PIXELS = 100_000_000
PIXELS_PER_FACE = 12_000_000
# The pages a game's kit may have in one command, the same way: a base, and half a page per face printed (its
# copies counted: a copy costs no drawing steps, but each is printed again). A page costs about 5 ms to draw and
# write, whatever is on it, so copies of a board tiled over many sheets, or a deck of cards larger than the
# paper, could otherwise run for minutes. A deck of poker cards needs two pages per nine faces, a board of
# 400 x 300 mm five pages (its tiles and its print-shop page); the shipped games print at most 0.3 a face.
BASE_PAGES = 500
PAGES_PER_FACE = 0.5


def steps_of(prim: Primitive) -> int:
    """What making one primitive costs, in steps: one (an icon three), and one per few characters of its text,
    points of its outline, or dashes of its dashed outline."""
    return ((ICON_STEPS if prim.kind == "icon" else 1) + len(prim.text) // CHARACTERS_PER_STEP
            + len(prim.points) // POINTS_PER_STEP + _dashes(prim) // DASHES_PER_STEP)


def painting_steps(prim: Primitive) -> int:
    """What painting one primitive costs, in steps: a text TEXT_STEPS, one per few of its characters and one
    per glyph run past its first; any other, what making it costs."""
    if prim.kind == "text":
        return TEXT_STEPS + len(prim.text) // TEXT_CHARACTERS_PER_STEP + glyph_runs(prim.text) - 1
    return steps_of(prim)


def _dashes(prim: Primitive) -> int:
    """About how many dashes a primitive's dashed outline has: its length (a box's perimeter for a shape
    drawn in its box, more than a circle's or a hexagon's) over its pattern's."""
    pattern = prim.style.get("dash") if prim.style.get("stroke") else None
    if not pattern or sum(pattern) <= 0:
        return 0
    points = prim.points
    if points:
        ends = points[1:] + (points[:1] if prim.kind == "polygon" else ())
        length = sum(math.dist(a, b) for a, b in zip(points, ends))
    else:
        length = 2 * (abs(prim.w) + abs(prim.h))
    return int(length / sum(pattern))


def drawn_by(used: Mark | None) -> str:
    """What a message about an element adds when a `use` at `used` draws it inside the printed layout."""
    return f" (drawn by the use at {used})" if used is not None else ""


class DrawingBudget:
    """The steps left to one game's drawing. Spending past the limit raises BudgetSpent at the element that
    spent the last step, which ends the game's command there (no other element goes on to be reported as
    failing); any later spending raises it again without a place, for a caller to pass over in silence."""

    def __init__(self, base: int | None = None) -> None:
        self.base = self.limit = BASE_STEPS if base is None else base
        self.spent = 0
        self.pixel_limit, self.pixels = BASE_PIXELS, 0  # pictures' pixels decoded (or resampled) so far
        self.paid: set[str] = set()  # the pictures' work paid for, each once (a picture, a size, an embedding)
        self.drawn: set[str] = set()  # the distinct drawings whose painting is paid for, each once (Studio.look)
        # the pictures' work paid for, in order, as spend_pixels was told it: a check kept by the preview spends
        # it again (Studio.adding, Studio.took), as a fresh check would
        self.pixel_work: list[tuple[str, int, Mark | None, str]] = []
        self.page_limit, self.pages = BASE_PAGES, 0  # the kit's pages drawn so far
        self.foreseen = 0  # the kit's pages foreseen by validation so far (Kind.pages)
        self.stopped: str | None = None  # the message said when the budget ran out
        self.again = 0  # inside paid_for() blocks: work done again, paid for already
        # id of a primitive -> (it, whether it had a source, what painting it costs): a primitive shared by many
        # drawings (the same card text on 10,000 fronts) is costed once (nobody changes a primitive; the
        # primitive is held so that its id names no other while kept)
        self._costs: dict[int, tuple[Primitive, bool, int]] = {}
        self.evaluations_paid = 0  # the count of evaluations_made() that spend_on has charged up to
        self.pooled = 0  # the steps spent from the base: outside any face, or past a face's own allowance
        self.faces: dict[object, int] = {}  # a face's key -> the steps it has spent (see face())
        self._face: object | None = None  # the key of the face being drawn, None outside any

    def halt(self, why: str) -> None:
        """End the drawing from another thread (the preview stopping): the next spending raises BudgetSpent
        saying `why`, so a check or drawing under way stops within an element rather than going on for
        seconds nobody will see."""
        self.stopped = why

    def start_resolving(self) -> None:
        """A printed layout starts being resolved: the templates evaluated before (validating data) are not
        its to pay for."""
        self.evaluations_paid = evaluations_made()

    def allow_faces(self, faces: int, printed: int = 0) -> None:
        """Size the budget for a game that prints `faces` faces, `printed` times in all (copies counted)."""
        self.limit = self.base + STEPS_PER_FACE * faces
        self.pixel_limit = BASE_PIXELS + PIXELS_PER_FACE * faces
        self.page_limit = BASE_PAGES + int(PAGES_PER_FACE * max(faces, printed))

    @contextlib.contextmanager
    def face(self, key: object) -> Iterator[None]:
        """Steps spent inside the block are the face `key`'s (resolving it, painting it): up to STEPS_PER_FACE
        of them come from its own allowance, the rest from the base (see BASE_STEPS)."""
        outer, self._face = self._face, key
        try:
            yield
        finally:
            self._face = outer

    def _from_base(self, steps: int) -> int:
        """What spending `steps` now takes from the base."""
        if self._face is None:
            return steps
        had = self.faces.get(self._face, 0)
        return max(0, had + steps - STEPS_PER_FACE) - max(0, had - STEPS_PER_FACE)

    def would_pass(self, steps: int) -> bool:
        """Whether spending `steps` now would pass the limit (those kept from an earlier check, spent again
        only when they would not: else made again, to stop where making them stops)."""
        return (self.stopped is not None or self.spent + steps > self.limit
                or self.pooled + self._from_base(steps) > self.base)

    def spend_page(self, mark: Mark | None) -> None:
        """Count one more page of the kit, drawn for the component at `mark`: past the limit, BudgetSpent."""
        if self.stopped is not None:
            raise BudgetSpent(self.stopped)
        self.pages += 1
        self._pages_within(self.pages, mark)

    def foresee_pages(self, pages: int, mark: Mark | None, on_paper: str = "") -> None:
        """Count `pages` the kit will print for the component at `mark`, foreseen before any is drawn (by
        validation): past the limit, BudgetSpent there, in the words of spend_page (and `on_paper`, which says
        the paper counted when it is not the build's), seconds before the drawing would have reached it."""
        if self.stopped is not None:
            raise BudgetSpent(self.stopped)
        self.foreseen += pages
        self._pages_within(self.foreseen, mark, on_paper)

    def _pages_within(self, pages: int, mark: Mark | None, on_paper: str = "") -> None:
        if pages > self.page_limit:
            self.stopped = (f"the kit prints too many pages: past its {self.page_limit:,} ({BASE_PAGES:,} and "
                            f"{PAGES_PER_FACE:g} per face printed, copies counted){on_paper}; pnp stops here "
                            "(too many copies of a board tiled over many sheets, or faces far larger than the "
                            "paper?)")
            raise BudgetSpent(self.stopped, mark)

    def spend(self, steps: int, mark: Mark | None, used: Mark | None = None) -> None:
        """Spend `steps` for the element at `mark` (its file:line), drawn by the `use` element at `used` if one
        draws it inside the printed layout (said with it: the element's own layout may print nowhere else)."""
        if self.stopped is not None:
            raise BudgetSpent(self.stopped)
        memory_checkpoint()
        if self.again:
            return
        self.spent += steps
        self.pooled += self._from_base(steps)
        if self._face is not None:
            self.faces[self._face] = self.faces.get(self._face, 0) + steps
        if self.spent > self.limit or self.pooled > self.base:
            past = (f"past its {self.limit:,} drawing steps" if self.spent > self.limit else
                    f"past the {self.base:,} drawing steps it may spend besides each face's own {STEPS_PER_FACE} "
                    "(a face's past them, the rulebook's)")
            self.stopped = (f"the game draws too much: {past} (one per element "
                            f"or copy, per shape made or painted, per {CHARACTERS_PER_STEP} characters of text made, "
                            f"{TEXT_STEPS} per text painted and one per {TEXT_CHARACTERS_PER_STEP} of its characters, "
                            f"per {DASHES_PER_STEP} dashes); "
                            "pnp stops here (a repeat far too big, or repeats inside repeats?)")
            raise BudgetSpent(self.stopped + drawn_by(used), mark)

    @contextlib.contextmanager
    def paid_for(self) -> Iterator[None]:
        """Steps spent inside the block are not counted: its work was paid for once in this command, and is
        done again (a printable resolved again after it was let go from memory, in a deck too large to keep)."""
        self.again += 1
        try:
            yield
        finally:
            self.again -= 1

    def spend_pixels(self, work: str, pixels: int, mark: Mark | None, shown: str) -> None:
        """Spend `pixels` decoded or resampled for the picture `shown`, which the element or field at `mark`
        asked for, before the work is done: past the limit, BudgetSpent there. The same `work` (a picture
        decoded, resampled to a size, embedded) is paid for once, however often it is done again (made
        again after pnp let it go from memory, embedded in each PDF)."""
        if work in self.paid:
            return
        if self.stopped is not None:
            raise BudgetSpent(self.stopped)
        self.paid.add(work)
        memory_checkpoint(coming=4 * pixels)  # (decoded as up to four bytes a pixel)
        self.pixel_work.append((work, pixels, mark, shown))
        self.pixels += pixels
        if self.pixels > self.pixel_limit:
            self.stopped = (f"the game's pictures are too many pixels in all: past its {self.pixel_limit:,} "
                            f"pixels decoded or resampled at picture '{shown}' ({BASE_PIXELS:,} and "
                            f"{PIXELS_PER_FACE:,} per face printed); pnp stops here")
            raise BudgetSpent(self.stopped, mark)

    def spend_on(self, prims: Sequence[Prim], mark: Mark | None) -> None:
        """Spend one step for the element at `mark`, resolved once more, TEMPLATE_STEPS for each template
        evaluated since the last payment, and what the `prims` it made cost; each then knows the element that
        made it, if it did not yet: painting it spends in that name."""
        evaluated = evaluations_made()
        steps = 1 + TEMPLATE_STEPS * max(evaluated - self.evaluations_paid, 0)
        self.evaluations_paid = evaluated
        for prim in prims:
            steps += steps_of(prim)
            if prim.source is None:
                prim.source = mark
        self.spend(steps, mark)

    def spend_drawing(self, drawing: str, prims: Sequence[Primitive],
                      icon_paints: Callable[[Primitive], Sequence[int]], paintings: int = 1) -> None:
        """Spend what painting `prims` `paintings` times costs (a board is painted on its sheets and again at
        full size), once per command for each distinct `drawing` (a digest of what it shows), in the name of
        the element that made the one that would pass the limit: each primitive's steps and, past ICON_PAINTS,
        the fills and strokes of each icon it paints (`icon_paints`: its own or its
        text's inline ones; a PDF holds an icon once, but every use is painted again where it is rendered:
        5,000 uses of an icon of 640 shapes took 15 s and 1.9 GB to export as PNG). What a drawing costs
        follows from what it shows, not from which path paints it or how often: validation pays for it, so
        that the check, the build, an export and a preview that keeps the faces it drew give the same verdict."""
        if drawing in self.drawn:
            return
        if self.stopped is not None:
            raise BudgetSpent(self.stopped)
        self.drawn.add(drawing)
        known, costs = self._costs, []
        for prim in prims:  # (_painting's lookup, made here: most primitives are shared, costed already)
            cost = known.get(id(prim))
            if cost is not None and cost[0] is prim and cost[1] == (prim.source is not None):
                costs.append(cost[2])
            else:
                costs.append(self._painting(prim, icon_paints))
        costs = [cost * paintings for cost in costs]
        if not self.would_pass(sum(costs)):
            self.spend(sum(costs), None)
            return
        for prim, steps in zip(prims, costs):  # the one that passes it
            self.spend(steps, prim.source, prim.used[0] if prim.used is not None else None)

    def _painting(self, prim: Primitive, icon_paints: Callable[[Primitive], Sequence[int]]) -> int:
        """What painting one primitive costs (spend_drawing), worked out once per primitive in this command."""
        sourced = prim.source is not None  # none: the rulebook's, within its limits
        known = self._costs.get(id(prim))
        if known is not None and known[0] is prim and known[1] == sourced:
            return known[2]
        cost = painting_steps(prim) + (sum(max(0, paints - ICON_PAINTS) for paints in icon_paints(prim)) if sourced else 0)
        self._costs[id(prim)] = (prim, sourced, cost)
        return cost

    def saved(self) -> tuple[int, str | None, int, int, frozenset[str], int, dict[object, int]]:
        """What has been spent so far, for restore()."""
        return (self.spent, self.stopped, self.pixels, len(self.pixel_work), frozenset(self.drawn), self.pooled,
                dict(self.faces))

    def restore(self, saved: tuple[int, str | None, int, int, frozenset[str], int, dict[object, int]]) -> None:
        """Spent as when saved() was: work done meanwhile is paid for again when it is next done."""
        self.spent, self.stopped, self.pixels, works, drawn, self.pooled, faces = saved
        self.faces = dict(faces)
        del self.pixel_work[works:]
        self.paid, self.drawn = {work for work, *_ in self.pixel_work}, set(drawn)
