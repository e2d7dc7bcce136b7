"""Validation: the game's data against its rules model, then every printable resolved exactly as the build
will draw it, reporting what would print wrong (with file:line): text that does not fit, unknown icons and
fonts, unreadable images, words too close to the cut, and each kind's own rules."""

import contextlib
import decimal
import functools
import gc
import posixpath
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .draw.book import LEAST_SIZE
from .draw.fonts import unmapped_message
from .draw.icons import unreadable
from .draw.sheet import FOOTER_FAMILY, FOOTER_OWN_CHARACTERS
from .draw.text import BREAKING_SPACES, left_open, star_between_spaces, unmapped, wide_breaks
from .draw.pictures import verified_picture
from .impose.shapes import Outline, inside_by
from .layout.budget import drawn_by
from .layout.elements.base import hides_reserved
from .layout.compile import enum_mistakes, macros_given_item, used_for_item
from .layout.resolve import ITEM_NAMES
from .layout.place import extent, turned_corners
from .layout.prims import Prim
from .errors import BudgetSpent, DataError, LayoutError, LimitError, PnpError, blame, unforeseen
from .model.game import check_whole_game, load_game
from .model.load import Record, field_holding
from .model.reads import FieldCache, note_all
from .model.schema import colon_hint, icon_markers_unread, icons_in
from .model.tables import table_enums
from .printables import Studio, marked_key
from .products import KINDS, component_keys
from .products.rulebook import credit_problems
from .products.sheets import offset_tiled, offset_tiled_message, unfolded, unfolded_message
from .project import named_alike, on_another_machine, present, thaw
from .options import hundredths_down, shown_number
from .report import Mark, Report, bounded_suggestions, did_you_mean, named, shortened
from .template import MacroArgument, budget, is_template, macro_callers, macro_enum_mistakes
from .units import MM, PrintOptions, every_paper, on_other_paper, paper_points, to_mm

# how far under the game's minimum a fitted size may fall and still be that minimum: the arithmetic of a
# `use`'s scale alone (18 pt drawn at a third is 5.999999999999999); at 0.01 pt, a style's 'size: 5.99' was
# printed under 6 pt with exit 0
SIZE_ROUNDING = 1e-6
MARKS_PER_ITEM = 20  # the errors a draft marks one item with (its panel shows the first 400 characters of them)

if TYPE_CHECKING:
    from pathlib import Path

    from .layout.layouts import Layout
    from .model.components import Component
    from .model.game import Game
    from .products.base import Kind, Printable, Problems
    from .printables import Memo
    from .project import Project


@contextlib.contextmanager
def few_collections() -> Iterator[None]:
    """Loading, checking and drawing a game make millions of small objects and hardly a reference cycle;
    Python's cyclic collector, run after every 700 new objects, would rescan the growing data time and
    again (a quarter of the time of validating 10,000 cards). It runs after every 50,000 instead, over the
    objects made inside only: those made before (the modules, an earlier check's results and garbage) are
    frozen meanwhile, which took its middle generation's passes from ~60 ms to ~2 ms each, and a full pass
    over a process's earlier data from up to a second to nothing."""
    previous = gc.get_threshold()
    gc.set_threshold(50_000, 20, 100)
    gc.freeze()
    try:
        yield
    finally:
        thaw()  # (into the oldest generation: collected again from there)
        gc.set_threshold(*previous)


def validate(project: "Project", game_id: str, report: Report, options: "PrintOptions | None" = None,
             memo: "Memo | None" = None,
             steps: "Steps | None" = None) -> "tuple[Game, Studio | None] | tuple[None, None]":
    """Validate one game within its time budget; returns (game, studio) as validate_game does, (None,
    None) when the budget ran out (said once, where it did). `memo`, `steps`: see validate_game."""
    before = len(report.errors)
    with budget(), few_collections():
        try:
            return validate_game(project, game_id, report, options, memo, steps)
        except BudgetSpent as e:
            if e.mark is not None or len(report.errors) == before:  # where it ran out, unless said there
                report.add(e)
            return None, None
        except PnpError:
            raise
        except Exception as e:  # noqa: BLE001 - a bug in pnp met by this game: said at its input, not as a traceback
            if steps is not None:  # the preview's, which says it itself (and a newer save's signal passes)
                raise
            report.add(unforeseen(e, f"{game_id}: check failed"))
            return None, None


def load(project: "Project", game_id: str, report: Report, cache: FieldCache | None = None,
         whole: bool = True) -> "Game":
    """A game's data, checked against its rules model and the component kinds pnp knows (with the cache of
    the last load's results: model/reads.py); `whole`: see load_game."""
    return load_game(project, game_id, report, component_keys(), cache, whole)


def validate_game(project: "Project", game_id: str, report: Report, options: "PrintOptions | None" = None,
                  memo: "Memo | None" = None, steps: "Steps | None" = None) -> "tuple[Game, Studio | None]":
    """Load the data and check every printable; returns (game, studio), studio None when the data or the
    fonts are too broken to go on. With a printables.Memo, what the last check resolved from the same inputs
    is taken from it (the preview's refreshes). `steps` (Steps) is told when the data is loaded and the
    studio made, and between the whole game's checks (the preview's two steps)."""
    game, studio = _checked(project, game_id, report, options, memo, steps)
    if memo is not None:  # finished without a crash: what it kept is whole (a crash forgets it all next time)
        memo.fields.finish()
    return game, studio


def _checked(project: "Project", game_id: str, report: Report, options: "PrintOptions | None",
             memo: "Memo | None", steps: "Steps | None" = None) -> "tuple[Game, Studio | None]":
    """validate_game's work."""
    before = len(report.errors)
    fields = memo.fields if memo is not None else None
    for problem in project.folder_problems(game_id):  # (the build lists every file of them)
        report.add(problem)
    game = load(project, game_id, report, fields, whole=steps is None)  # in two steps: the whole game's rules
    studio = _studio(game, report, options, memo, before)  # in the second
    if steps is not None:
        if studio is not None:
            steps.first(game, studio, report)
        check_whole_game(game, report, fields)
        if _stopped(game, report, options, before):  # where a check in one step stops
            studio = None
    if studio is None:
        return game, None
    Checks(studio, report).run(steps.between if steps is not None else None)
    return game, studio


def _stopped(game: "Game", report: Report, options: "PrintOptions | None", before: int) -> bool:
    """Whether a check stops once the data is loaded: a draft goes on past bad items, not past tables that did
    not load."""
    draft = options is not None and options.draft
    return game.meta is None or (len(report.errors) > before and (not draft or bool(game.broken)))


def _studio(game: "Game", report: Report, options: "PrintOptions | None", memo: "Memo | None",
            before: int) -> Studio | None:
    """The studio of a loaded game, None when its check stops there (the data or the fonts too broken)."""
    if _stopped(game, report, options, before):
        return None
    try:
        return Studio(game, options or PrintOptions(), memo)
    except DataError as e:
        report.add(e)
        return None


class Steps(Protocol):
    """What validate_game tells as it goes (the preview's refresh in two steps)."""

    def first(self, game: "Game", studio: Studio, report: Report) -> None:
        """The data is loaded and checked (`report` so far) and the studio made; no printable checked yet."""

    def between(self) -> None:
        """Called between the whole game's checks (each component's, the printables'): may raise to stop."""

# what collecting() collected: ("error", message, mark, where), ("warning", message, mark) or
# ("small", mark, size, set size, label, text, used), said later by say()
Collected = tuple[Any, ...]


class Checks:
    """Everything checked on what a game prints; each message is reported once, however many items share it."""

    def __init__(self, studio: Studio, report: Report) -> None:
        self.studio, self.report, self.game = studio, report, studio.game
        self.painter = studio.painter(None)
        self.seen: set[tuple[str, Mark | None]] = set()
        self.warned: set[Mark | None] = set()
        # image file as named -> (its size in pixels or None, what reading it said, what it added: Studio.adding)
        self.images: dict[str, tuple[tuple[int, int] | None, list[Collected], dict[str, Any]]] = {}
        # where a text style names a font unknown to fonts.yaml (said there): the elements it draws say it no more
        self.fonts_refused: set[Mark | None] = set()  # (never None: a text whose font nobody wrote is not skipped)
        self.known_icons: dict[str, Path | Literal[False]] = {}  # icon name -> its file, or False when unknown
        # (id, handled, kind) of constant layouts' primitive lists checked without a problem
        self.clean: set[tuple[int, bool, str]] = set()
        self.broken: set[str] = set()  # the layouts whose file's problems were said (at the first item printing it)
        self.min_size = self.game.meta.get("min_text_size", 6)
        # text element's mark -> (printed size, its set size, item label, text, Prim.used)
        self.smallest: dict[Mark | None, tuple[float, float, str, str, "tuple[Mark | None, float] | None"]] = {}
        self.item: tuple[str, int] | None = None  # (component id, item index) of the printable being checked
        self.item_now: Record | None = None  # that printable's data item, to say errors at its fields
        self.marked: tuple[str, int] | None = None  # how the studio's draft marks name that item (marked_key)
        self.said: list[Collected] | None = None  # while collecting (collecting()): what would be said, to say later
        self.told = 0  # errors, warnings and small texts found so far (said or collected)
        # (id, handled) of primitives checked without a problem, with the primitive (kept, so its id is not
        # reused): one shared by many printables (an element reading the same values of each item) is
        # checked once
        self.clean_prims: dict[tuple[int, bool], "Prim"] = {}
        # one budget for the suggestions of every unknown icon and term the printed texts name (3,000 cards
        # each naming 5 unknown icons compared each with every icon's name)
        self.suggest = bounded_suggestions()
        self.macros_said: set[tuple[str, int]] = set()  # a macro's enum mistakes said (message, line)
        # layout -> (itself, the tables whose items it prints: None for none), its enum comparisons judged once
        # the printables checked have said them all (judge_enum_comparisons)
        self.enums_compared: dict[str, tuple["Layout", set[str | None]]] = {}

    @contextlib.contextmanager
    def collecting(self) -> Iterator[list[Collected]]:
        """Collect the errors, warnings and small texts the block finds instead of saying them (say() says
        them): a printable's element checks, kept by the preview under what they read."""
        outer, self.said = self.said, []
        try:
            yield self.said
        finally:
            self.said = outer

    def say(self, said: Iterable[Collected]) -> None:
        """Say what collecting() collected, in order, as if found now."""
        for what, *args in said:
            sayers: dict[str, Callable[..., None]] = {"error": self.error, "warning": self.warn, "small": self.small}
            sayers[what](*args)

    def error(self, message: str, mark: Mark | None = None, where: str = "") -> None:
        """Report once per message and place; `where` (the first printable it was found on) is shown. The
        item being checked is marked with it even when another item said it first."""
        self.told += 1
        if self.said is not None:
            self.said.append(("error", message, mark, where))
            return
        if self.marked is not None:
            marks = self.studio.marks.setdefault(self.marked, [])
            if len(marks) < MARKS_PER_ITEM:  # (a draft's panel shows the first 400 characters of them)
                marks.append(message)
        if (message, mark) not in self.seen:
            self.seen.add((message, mark))
            self.report.error(message + where, mark, item=self.item, code="print")

    def warn(self, message: str, mark: Mark | None) -> None:
        """A warning, once per place."""
        self.told += 1
        if self.said is not None:
            self.said.append(("warning", message, mark))
        elif mark not in self.warned:
            self.warned.add(mark)
            self.report.warning(message, mark)

    def small(self, mark: Mark | None, size: float, set_size: float, label: str, text: str,
              used: "tuple[Mark | None, float] | None" = None) -> None:
        """A text printed at `size` after fitting, below the game's minimum (`used`: the `use` that draws it
        and its scale, Prim.used): said at its smallest (small_text)."""
        self.told += 1
        if self.said is not None:
            self.said.append(("small", mark, size, set_size, label, text, used))
            return
        seen = self.smallest.get(mark)
        if seen is None or size < seen[0]:
            self.smallest[mark] = (size, set_size, label, text, used)

    def run(self, between: "Callable[[], None] | None" = None) -> None:
        """Every check; `between()` is called before each component's and before the printables'."""
        self.style_fonts()
        for component in self.game.components:
            if between is not None:
                between()
            said, effects = self.studio.remembered(("check", component.id), partial(self.component, component))
            for message, mark in said:
                self.error(message, mark)
            self.studio.took(effects)
        if not self.game.components:  # (a game of tables alone is one: its design report reads them)
            meta = self.game.meta
            self.warn("the game has no components: pnp build and pnp export write nothing for it (pnp report "
                      "still reads its tables)", meta.key_mark("components") or meta.mark)
        if between is not None:
            between()
        self.printables(self.studio.printables())
        for message, mark in self.studio.problems + self.studio.layouts.styles.problems:
            self.error(message, mark)
        self.kit_pages()
        self.gutter_fold()
        self.offset_room()
        self.icon_files()
        self.small_text()
        self.footer_names()
        if any(component.kind == "rulebook" for component in self.game.components):
            for message, mark in credit_problems(self.studio):
                self.error(message, mark)
            self.rulebook_below_min_size()
        for message, mark in self.studio.fonts.blank_problems():
            self.error(message, mark)

    def style_fonts(self) -> None:
        """A text style's font that fonts.yaml does not have, said at the style's `font:` line (it was said at
        each element the style drew, and not at all where none did); the elements drawn with it say it no more."""
        styles = self.studio.layouts.styles
        for spec in styles.raw.values():
            font = spec.get("font")
            if font is None and "font" in spec:  # `font: null` reads as the empty text, no family (it was said at
                font = ""  # each element the style drew, in that element's file)
            if isinstance(font, (int, float)) and not isinstance(font, bool):  # read as text, as written (`font: 1`
                font = spec.written_of("font") or str(font)  # was said at each element and not at its own line)
            if isinstance(font, str) and not is_template(font) and not self.studio.fonts.has(font):
                if (where := spec.mark_of("font")) is not None:  # (by place: an element's own `font: 2.50` is said)
                    self.fonts_refused.add(where)
                self.error(self.unknown_font(font), spec.mark_of("font"))

    def unknown_font(self, font: str) -> str:
        """The message for a font fonts.yaml has no family of, with the family it likely means ('body' was said
        with none, where other unknown names are)."""
        families = self.studio.fonts.families
        return f"unknown font {named(font)}{did_you_mean(font, families)} (fonts.yaml has {', '.join(families)})"

    def rulebook_below_min_size(self) -> None:
        """A warning at `min_text_size` where it is above the smallest type the rulebook sets itself: the key is
        the floor of what the game's components print from layouts, and pnp sets the rulebook at its own sizes
        (a game asking for 9 pt would otherwise think its rulebook's 8 pt footer was checked against it)."""
        meta = self.game.meta
        if isinstance(self.min_size, (int, float)) and self.min_size > LEAST_SIZE:
            self.warn(f"min_text_size {shown_number(self.min_size)} pt holds for the text the components print "
                      f"from layouts; the rulebook is set at pnp's own sizes, the smallest {LEAST_SIZE:g} pt (its "
                      "page footer), which this does not change", meta.mark_of("min_text_size"))

    def kit_pages(self) -> None:
        """The pages the kit will print, foreseen in print order against the game's page allowance: too many
        copies of a tiled board are refused here, at the component's `copies`, as the build would after
        drawing for a minute (BudgetSpent, said where validate catches it). They are counted on every paper
        pnp offers, the build's own first: a board tiled over more Letter pages than A4 ones passed validate
        and `build --paper letter` refused it; a count past the allowance only on another paper says it."""
        order = list(KINDS)
        components = sorted(self.game.components, key=lambda c: order.index(c.kind))
        papers = every_paper(self.studio.options.paper)
        counts = {name: self.pages_on(components, name) for name in papers}
        over = [name for name in papers if sum(pages for pages, _ in counts[name]) > self.studio.budget.page_limit]
        paper = over[0] if over else papers[0]
        on_paper = "" if paper == papers[0] else on_other_paper(paper, "kit")
        for pages, mark in counts[paper]:
            self.studio.budget.foresee_pages(pages, mark, on_paper)

    def gutter_fold(self) -> None:
        """A warning at the `size:` of each component a `--imposition gutterfold` kit prints as a duplex kit
        does, front and back on sheets of their own to glue back to back: its cards have backs and are too
        large for half the page (the build failed there, after drawing the rest of the kit; then refused such
        a game, dino-ranch among them, where a single-sided printer's user glues the two sheets)."""
        for component in self.game.components:
            if not KINDS[component.kind].gutter_folds:
                continue
            try:
                layout = unfolded(component, self.studio)
            except (DataError, LayoutError):  # its faces or layouts are wrong: said by their own checks
                continue
            if layout is not None:  # (once a component: two that share a layout are each said)
                self.report.warning(unfolded_message(component, self.studio.options.paper), layout.spec.mark_of("size"))

    def offset_room(self) -> None:
        """A warning at the `size:` of each component with backs that a `--duplex-offset` alone sends off the
        sheets, printed a face to a page with its back to glue on: a 190 x 255 mm card on A4 with
        --duplex-offset 5,5 was printed so, said nowhere (exit 0), and each back printed double-sided lay the
        offset away from its front."""
        for component in self.game.components:
            try:
                layout = offset_tiled(component, self.studio)
            except (DataError, LayoutError):  # its faces or layouts are wrong: said by their own checks
                continue
            if layout is not None:
                self.report.warning(offset_tiled_message(component, self.studio), layout.spec.mark_of("size"))

    def pages_on(self, components: "list[Component]", paper: str) -> list[tuple[int, Mark | None]]:
        """(pages, the place of its `copies`) of each component on the named paper, in print order."""
        counted = []
        for component in components:
            try:
                pages = KINDS[component.kind].pages(component, self.studio, paper_points(paper))
            except (DataError, LayoutError):  # its faces or layouts are wrong: said by their own checks
                continue
            counted.append((pages, component.spec.mark_of("copies")))
        return counted

    def footer_names(self) -> None:
        """The game's title and each component's name, printed in the footer of the sheets that print it, in
        the font family footers are set in: each character it has, at game.yaml's line."""
        meta, fonts = self.game.meta, self.studio.fonts
        names = [(self.game.title, meta.mark_of("title") if "title" in meta else meta.mark)]
        names += [(c.name, c.spec.mark_of("name") if "name" in c.spec else c.spec.mark) for c in self.game.components]
        for text, mark in names:
            missing = fonts.unmapped(text, FOOTER_FAMILY)
            if missing is not None:
                self.error(unmapped_message(missing, FOOTER_FAMILY) + " (the pages' footers print it)", mark)
        own = fonts.unmapped(FOOTER_OWN_CHARACTERS, FOOTER_FAMILY)
        if own is not None:  # (pnp's own fonts have them all: a project's fonts.yaml names the family)
            self.error(f"the font of family '{FOOTER_FAMILY}' has no character U+{ord(own):04X} ('{own}'), which pnp's "
                       "own words in the pages' footers print ('sheet 1 of 2 · cut along the grey lines'): it would "
                       "print as a blank box on every sheet; use a font file that has it",
                       fonts.credit_marks.get(FOOTER_FAMILY))

    def printables(self, printables: "Iterable[Printable]") -> None:
        """The checks of these printables, each with its item (where its errors are said and marked)."""
        for p in printables:
            on_item = p.item is not None and p.side != "picture"
            self.item, self.marked = ((p.component.id, p.index), marked_key(p)) if on_item else (None, None)
            self.item_now = p.item if on_item else None
            self.printable(p)
        self.item = self.marked = self.item_now = None
        self.judge_enum_comparisons()

    def component(self, component: "Component") -> tuple[tuple[tuple[str, Mark | None], ...], dict[str, Any]]:
        """(what its kind's own check says, what it added to the studio) of one component: a result the
        preview keeps while nothing it read changes (printables.Studio.remembered)."""
        said = Said()
        with self.studio.adding() as effects:
            try:
                KINDS[component.kind].check(component, self.studio, said)
                self.item_names(component)
            except (DataError, LayoutError) as e:  # said at the component when the problem has no place
                for message, mark in getattr(e, "problems", None) or [(e.message, e.mark)]:
                    said.error(message, mark or component.spec.mark)
            except Exception as e:
                blame(e, component.spec.mark)
                raise
        return tuple(said.problems), effects

    def item_names(self, component: "Component") -> None:
        """Each item's name from the component's `item_name` template, as exports write it (a Tabletop
        Simulator piece's name): LayoutError at the template's line when it cannot be made or breaks the
        rule of printed text, found by validation rather than by the export. A name the footers print (a
        board of several items) must also be in the footers' font: a character it lacks was left out."""
        kind = KINDS[component.kind]
        in_footer = kind.footer_names_items and component.count > 1
        if "item_name" not in component.spec and not in_footer:
            return
        for p in self.studio.of(component):
            if p.item is None:
                continue
            name = kind.item_name(component, p, self.studio)
            missing = self.studio.fonts.unmapped(name, FOOTER_FAMILY) if in_footer else None
            if missing is not None:
                mark = component.spec.mark_of("item_name") if "item_name" in component.spec else \
                    _field_with(p.item, missing) or component.spec.mark
                raise LayoutError(unmapped_message(missing, FOOTER_FAMILY) + " (the pages' footers name each item)",
                                  mark)

    def icon_files(self) -> None:
        """Every icon file the game prints can be drawn (a broken one is refused at its line, not found by
        the build's drawing). The icons are those looked up while checking what prints, the rulebook's
        included: the files the build depends on."""
        for path in sorted(self.game.icons.used):
            try:
                why = unreadable(path, self.game.project.root)
            except LimitError as e:  # the game's time ran out here: said once (the next icon finds it spent)
                self.error(e.message, Mark(self.game.project.rel(path)))
                continue
            except Exception as e:
                # an error pnp did not foresee is said at the icon file being read: a url(#) was 'a bug in pnp'
                # at no file
                blame(e, Mark(self.game.project.rel(path)))
                raise
            if why is not None:
                message, line, column = why
                self.error(f"icon '{self.game.icons.icon_of(path)}': {message}",
                           Mark(self.game.project.rel(path), line, column))

    def printable(self, p: "Printable") -> None:
        problems: "Problems" = []
        try:
            layout = self.studio.layouts.get(p.layout, p.mark)  # its file's problems, said once
            prims = self.studio.resolve(p, problems)
        except LayoutError as e:  # the layout file itself is wrong: its problems, once; each later item printing
            # it is marked with the first few (a draft's panel shows 400 characters): 4,980 bad elements said
            # again for each of 1,000 cards took 4.5 s, 10,000 cards would have kept 50 million marks
            problems_said = e.problems if p.layout not in self.broken else e.problems[:MARKS_PER_ITEM]
            self.broken.add(p.layout)
            for message, mark in problems_said:
                self.error(message, mark)
            return
        except BudgetSpent:  # the game's time ran out at one of these problems: it is said there
            self.printable_problems(p, problems)
            raise
        except Exception as e:
            blame(e, p.mark)
            raise
        table = p.component.spec.get("items") if p.item is not None else None
        self.enum_comparisons(table if isinstance(table, str) else None, layout)
        if problems:
            self.printable_problems(p, problems)
        else:  # (one drawn in part is printed only in a draft, which pays for it as it draws it)
            self.studio.charge(p, self.studio.printed(p, prims))
        handled = p.side != "picture"  # a diagram in the rulebook is read on the page, not at arm's length
        shared = (id(prims), handled, p.component.kind)  # a constant layout's one list (every card back) ...
        if shared in self.clean:  # ... is checked once for a kind when nothing was wrong with it
            return
        before = len(self.report.diagnostics)
        reads = self.studio.reads_of(p)
        if reads is None or self.studio.memo is None:  # resolved in part (said above), or nothing to keep
            self.elements(p, prims, layout)
        else:  # the preview keeps the element checks under what the printable and they read
            said, effects = self.studio.remembered(("elements", p.key), partial(self.kept_elements, p, prims, reads))
            self.say(said)
            self.studio.took(effects)
        if not problems and len(self.report.diagnostics) == before and self.studio.layouts.constant(p.layout):
            self.clean.add(shared)

    def enum_comparisons(self, table: str | None, layout: "Layout") -> None:
        """Note that the layout prints an item of `table` (None: none), and so do the layouts it `use`s for it:
        its comparisons of the item's fields are judged against every such table's (judge_enum_comparisons)."""
        layout_tables = self.enums_compared.setdefault(layout.name, (layout, set()))[1]
        if table in layout_tables:
            return
        layout_tables.add(table)
        # (`item: card`: the same item; `item: ref.cards['rex']`: an item of that table)
        for name, used in used_for_item(layout.elements, ITEM_NAMES):
            if used is not None or table is not None:
                with contextlib.suppress(LayoutError):  # (a layout that cannot be read is said where it is used)
                    self.enum_comparisons(used or table, self.studio.layouts.get(name))

    def judge_enum_comparisons(self) -> None:
        """A text the layouts' templates compare a field of enum values with that is none of its values (a
        typo: `card.kind == 'Beast'` where the values are beast, bird; `data.cards | selectattr('kind', 'eq',
        'Beast')`), refused once per layout. A layout (or a macro) printed for the items of several tables is
        judged against all their values: a layout shared by a deck of beasts and a deck of events may compare a
        kind with 'event' (refused as none of the beasts' kinds, a valid game did not validate)."""
        for p in self.studio.printables():  # (the preview checks a few printables first: their layouts are
            # judged against the tables of all they print)
            table = p.component.spec.get("items") if p.item is not None else None
            if p.layout in self.enums_compared and isinstance(table, str):
                self.enum_comparisons(table, self.enums_compared[p.layout][0])
        given: dict[MacroArgument, set[str]] = {}
        source = self.game.macros_source
        callers = macro_callers(source) if source else frozenset()  # ({% call(c) macros.m(card) %}: c is the item)
        for layout, layout_tables in self.enums_compared.values():
            item_tables = frozenset(t for t in layout_tables if t is not None)
            for message, mark in enum_mistakes(layout.elements, self.item_enums(item_tables), ITEM_NAMES,
                                               self.table_enums, callers):
                self.error(message, mark)
            for argument in macros_given_item(layout.elements, ITEM_NAMES, callers):
                given.setdefault(argument, set()).update(item_tables)
        self.enums_compared.clear()
        if source:  # (a macro given the item, `macros.badge(card)`: its parameter is the item)
            macros = Mark(self.game.project.rel(self.game.layout_folder / "macros.j2"))
            for message, line in macro_enum_mistakes(source, {a: frozenset(t) for a, t in given.items()},
                                                     self.item_enums, self.table_enums):
                if (message, line) not in self.macros_said:  # (said once, whichever layouts call it)
                    self.macros_said.add((message, line))
                    self.error(f"macros: {message}", Mark(macros.file, line, 1))

    def item_enums(self, tables: frozenset[str]) -> dict[str, list[object]]:
        """The fields of enum values of an item that may be of any of `tables`, with the values of them all: a
        field that is not one of enum values in each of them is not looked at (a text may be meant for the
        items of one whose field is free text)."""
        each = [self.table_enums(table) for table in sorted(tables)]
        if not each:
            return {}
        merged: dict[str, list[object]] = {}
        for field in each[0]:
            if all(field in enums for enums in each):
                merged[field] = list(dict.fromkeys(v for enums in each for v in enums[field]))
        return merged

    def table_enums(self, table: str) -> dict[str, list[object]]:
        """The fields of a table's items that hold enum values, with those values (a table that loaded)."""
        return table_enums(self.game, table) if table in self.game.tables else {}

    def kept_elements(self, p: "Printable", prims: list["Prim"],
                      reads: frozenset[Any]) -> tuple[tuple[Collected, ...], dict[str, Any]]:
        """(what the element checks of a printable found, what they added to the studio): a result the
        preview keeps while nothing the printable and they read changes."""
        note_all(reads)
        with self.studio.adding() as effects, self.collecting() as said:
            self.elements(p, prims)
        return tuple(said), effects

    def elements(self, p: "Printable", prims: list["Prim"], layout: "Layout | None" = None) -> None:
        """The checks of a printable's primitives (text fitting, icons, images, the safe area) and its layout's
        keys (`layout`, when the caller has it at hand)."""
        label = f" ({p.item.get('id')})" if p.item is not None and p.item.get("id") else ""
        layout = self.studio.layouts.get(p.layout, p.mark) if layout is None else layout
        kind = KINDS[p.component.kind]
        handled = p.side != "picture"
        clean = self.clean_prims
        for prim in prims:
            if (id(prim), handled) not in clean:  # (prim()'s own test, made here: most are shared and clean)
                self.prim(prim, label, handled)
        cuts = kind.cut(layout)
        off = self.off_layout(layout, prims, cuts)
        if cuts:
            self.safe_area(layout, [p for p in prims if id(p) not in off], cuts, kind.cut_edge)
        self.layout_keys(layout, kind)
        self.kind_names(layout, kind)
        self.unused_radius(layout, kind, cuts)

    def off_layout(self, layout: "Layout", prims: list["Prim"], cuts: tuple[Outline, ...]) -> set[int]:
        """The primitives drawn wholly outside what prints of the layout (its trim and bleed, and a die's faces
        around it), each warned of once per element: such a shape prints nothing (an icon at `y: 500` on a card,
        a text at 1000 mm on a board, passed with exit 0 and no word)."""
        printed = _printed_box(layout, cuts)
        off: set[int] = set()
        for p in prims:
            if (p.kind != "text" or p.text.strip()) and _wholly_outside(p, printed):
                off.add(id(p))
                used = drawn_by(p.used[0] if p.used is not None else None)
                article = "an" if p.kind[0] in "aeiou" else "a"
                self.warn(f"{article} {p.kind} this element draws lies wholly outside the {to_mm(layout.width):g} x "
                          f"{to_mm(layout.height):g} mm layout and its bleed: it prints nothing{used}; move it onto "
                          "the layout", p.mark or p.source)
        return off

    def printable_problems(self, p: "Printable", problems: list[tuple[str, Mark | None]]) -> None:
        # a rulebook's diagram is asked for at a line of the rulebook, which may be the one at fault (a card's
        # layout drawn with no item): said with the layout's line, which named no rulebook line at all
        asked = f" (the rulebook's picture at {p.mark})" if p.side == "picture" and p.mark is not None else ""
        label = f" (printing {p.label})" if p.item is not None or p.extra else ""
        for message, mark in problems:
            self.error(message, mark, label + asked)

    def layout_keys(self, layout: "Layout", kind: "Kind") -> None:
        """A key another kind's layouts read (a die's `net` on a card's layout) would be silently ignored."""
        for key in layout.options:
            if key not in kind.layout_options:
                users = [k.name for k in KINDS.values() if key in k.layout_options]
                self.error(f"'{key}' applies to {' and '.join(users)} layouts; this layout prints a "
                           f"{kind.name}", layout.spec.key_mark(key))

    def kind_names(self, layout: "Layout", kind: "Kind") -> None:
        """A layout's variable named as a name the kind gives its templates (`vars: {face: 9}` on a die's layout) is
        hidden by it: refused as one named as a name every template sees is (hides_reserved), where it was written
        (in this layout's file or one it extends)."""
        for name in layout.vars:
            if name in kind.template_names and (hidden := hides_reserved("a variable", name, kind.template_names)):
                self.error(f"{hidden} (this layout prints a {kind.name})", self.var_mark(layout, name))
        elements = list(layout.elements)
        while elements:  # (a repeated copy's `as:` hides it inside the element as well)
            compiled = elements.pop()
            elements += compiled.children
            if compiled.name in kind.template_names and \
                    (hidden := hides_reserved("as: a repeated copy", compiled.name, kind.template_names)):
                self.error(f"{hidden} (this layout prints a {kind.name})", compiled.mark_of("as"))

    def var_mark(self, layout: "Layout", name: str) -> Mark | None:
        """Where the layout's variable `name` was written: in its own `vars`, or those of a layout it extends."""
        seen: set[str] = set()
        current: Layout | None = layout
        while current is not None and current.file not in seen:
            seen.add(current.file)
            own = current.spec.get("vars")
            if isinstance(own, Record) and name in own:
                return own.key_mark(name)
            parent = current.spec.get("extends")
            current = self.studio.layouts.get(parent, current.spec.mark_of("extends")) if isinstance(parent, str) else None
        return layout.spec.mark_of("vars")

    def unused_radius(self, layout: "Layout", kind: "Kind", cuts: tuple[Outline, ...]) -> None:
        """A corner radius is used by a cut with corners (a card's, a square or rounded token's); on a circle,
        hex or uncut token, a die's faces or a board it was silently not used (`radius: 5mm` beside
        `shape: circle`, exit 0). Refused where it was written in the layout printed, or beside the `shape` that
        has no corners; one a layout inherits from a rounded layout it extends is not its own choice."""
        if not layout.radius or any(cut.kind == "rect" for cut in cuts):
            return
        spec = layout.spec
        written = spec.mark_of("radius")
        shape_at = spec.mark_of("shape") if "shape" in spec else None
        if written is None or written.file not in {layout.file, shape_at.file if shape_at else layout.file}:
            return
        cut = f"a `shape: {layout.options['shape']}` token" if "shape" in layout.options else f"a {kind.name}"
        self.error(f"radius: {to_mm(layout.radius):g} mm is not used: {cut} is cut without rounded corners; "
                   "leave it out", written)

    def prim(self, prim: "Prim", label: str, handled: bool) -> None:
        """One primitive's checks; one checked without a problem is not checked again (what it looked up is
        in the game's and studio's sets already; `label` appears only in problems)."""
        key = (id(prim), handled)
        if key in self.clean_prims:
            return
        told = self.told
        self._prim(prim, label, handled)
        if self.told == told and self.said is None:  # collected checks are kept by the preview with their reads
            self.clean_prims[key] = prim

    def _prim(self, prim: "Prim", label: str, handled: bool) -> None:
        if self.report.enough_at(prim.mark):  # its element said enough (a hexgrid's cells): checked no further
            return
        icons = self.game.icons
        if prim.kind == "icon":
            self.no_area(prim, "a width and height")  # (an icon's box is its `w` and `h`, or a row's `size`)
            if not self.icon_exists(prim.text):
                self.error(f"unknown icon {named(prim.text)}{self.suggest(prim.text, icons.names())}", prim.mark)
        elif prim.kind == "text":
            self.text(prim, label, handled)
        elif prim.kind == "image":
            self.image(prim)
        if prim.style.get("holds") and not prim.thumbnail:  # a board pictured small in a diagram holds nothing
            self.fits(prim)

    def icon_exists(self, name: str) -> bool:
        """Whether an icon name is known; each name is looked up once per validation."""
        known = self.known_icons.get(name)
        if known is None:
            known = self.known_icons[name] = self.game.icons.path(name) or False
        elif known:  # a used icon, whoever looked it up first (what one printable's checks use is kept)
            self.game.icons.used.add(known)
        return bool(known)

    def text(self, prim: "Prim", label: str, handled: bool) -> None:
        self.text_icons(prim, label)
        if "[[" in prim.text:
            note_all(self.game.glossary_reads())  # a term is found by any item of the glossary's tables
            for term, message in self.game.glossary.unknown(prim.text, self.suggest):
                field_mark = _field_with(self.item_now, f"[[{term}]]")  # the data that writes it, as an icon's
                if field_mark is not None:
                    self.error(f"{message}{label} (laid out by {prim.mark})", field_mark)
                else:
                    self.error(message, prim.mark, label)
        opened = left_open(prim.text)
        if opened is not None:
            self.left_open(prim, opened, label)
        elif (marker := star_between_spaces(prim.text)) is not None:
            self.star_between_spaces(prim, marker, label)
        font = prim.style["font"]
        if prim.font_mark in self.fonts_refused:  # (said at the text style's own `font:`, once, not at each element)
            return
        if not self.studio.fonts.has(font):  # at the element's own `font:` (it was said at its `text:` line)
            self.error(self.unknown_font(font), prim.font_mark or prim.mark)
            return
        missing = unmapped(prim.text, self.studio.fonts, font)
        if missing is not None:  # said at the item's field that writes it, else at the layout's element
            field_mark = _field_with(self.item_now, missing)
            self.error(unmapped_message(missing, font, self.studio.fonts.styles_lacking(missing, font)) + (f" (laid out by {prim.mark})" if field_mark else ""),
                       field_mark or prim.mark, label)
            return
        fitted = self.painter.fit_text(prim)
        if fitted.overflow:
            self.overflow(prim, label)
        elif handled and fitted.size < self.min_size - SIZE_ROUNDING:  # drawn by a `use` too: a player reads it as printed
            self.small(prim.mark, fitted.size, prim.style["size"], label, prim.text, prim.used)

    def text_icons(self, prim: "Prim", label: str) -> None:
        """The icons a text names: each known, and none written so that the text prints it as typed."""
        icons = self.game.icons
        for name in _icons_in(prim.text):
            if not self.icon_exists(name):  # said where the unread markers are (a name 'At 12:00:00' was said
                # at the layout's text alone, though its data wrote the ':00:')
                hint = self.suggest(name, icons.names()) + colon_hint(name)
                field_mark = _field_with(self.item_now, f":{name}:")
                self.error(f"unknown icon {named(f':{name}:')} in text{label}{hint}"
                           + (f" (laid out by {prim.mark})" if field_mark else ""), field_mark or prim.mark)
        for name in icon_markers_unread(prim.text):
            unread = icons.unread_marker(name, self.suggest)
            if unread is not None:  # said at the item's field that writes it, else at the layout's element
                field_mark = _field_with(self.item_now, f":{name}:")
                self.error(unread + label + (f" (laid out by {prim.mark})" if field_mark else ""),
                           field_mark or prim.mark)

    def left_open(self, prim: "Prim", opened: str, label: str) -> None:
        """Text whose '*' or '**' nothing closes, said at the item's text field that leaves it open when one
        does, else at the layout's element."""
        style = "bold" if opened == "**" else "italic"
        self.star_error(prim, left_open, f"text opens {style} with '{opened}' that nothing closes: '{opened}' "
                        f"prints nothing and the rest of the text prints in {style}; write '\\*' for a star{label}")

    def star_between_spaces(self, prim: "Prim", marker: str, label: str) -> None:
        """Text with a '*' or '**' (`marker`) between spaces, which opens or closes bold or italic and prints
        nothing."""
        does = f"sets text beside it in {'bold' if marker == '**' else 'italic'}" if marker in ("*", "**") else \
            "opens and closes bold or italic around nothing"  # (a run of them: '****')
        self.star_error(prim, star_between_spaces, f"text has '{marker}' between spaces, which prints nothing and "
                        f"{does}: '{_short(prim.text)}'; write '\\*' for a star{label}")

    def star_error(self, prim: "Prim", at_fault: Callable[[str], str | None], message: str) -> None:
        """Say `message` at the item's text field that `at_fault` finds at fault when one is, else at the
        layout's element."""
        item = self.item_now
        field_mark = None if item is None or not hasattr(item, "mark_of") else next(
            (item.mark_of(name) for name, value in item.items()
             if isinstance(value, str) and value in prim.text and at_fault(value)), None)
        self.error(message + (f" (laid out by {prim.mark})" if field_mark else ""), field_mark or prim.mark)

    def overflow(self, prim: "Prim", label: str) -> None:
        """Text too long for its box, said where the designer edits it: at the item's field whose text fills
        the box when there is one (with the layout's line), else at the layout; with how much must go."""
        lines = prim.style.get("max_lines") or 0  # (a box with room for more lines than it may take said so)
        box = f"its {prim.w / MM:.1f} x {prim.h / MM:.1f} mm box at {hundredths_down(prim.style['min_size'])} pt" + \
            (f" in at most {lines} line{'s' * (lines != 1)} (max_lines)" if lines else "")
        kept = self._fitting_length(prim)
        excess = len(prim.text) - kept
        field, mark = field_holding(self.item_now, prim.text)
        wide = self._word_too_wide(prim, kept) if excess > 0 else None
        if wide is not None:  # (it was said "about N characters too long ... 0 of its N fit": no shortening helps)
            said = f"{field} has" if field is not None else "text has"
            where = f" (laid out by {prim.mark})" if field is not None else ""
            unbroken = " (a no-break space breaks none)" if any(ch.isspace() for ch in wide) else ""
            self.error(f"{said} a word wider than {box}{label}: '{_short(wide, 30)}' ({len(wide):,} characters); "
                       f"lines break only at spaces{unbroken}: put one in it, or give the box more room{where}",
                       mark if field is not None else prim.mark)
            return
        if field is not None and excess > 0:
            self.error(f"{field} is about {excess:,} character{'s' * (excess != 1)} too long for {box}{label}: "
                       f"{kept:,} of its {len(prim.text):,} fit (laid out by {prim.mark})", mark)
            return
        more = f": about {excess:,} character{'s' * (excess != 1)} too many ({kept:,} of {len(prim.text):,} fit)" \
            if excess > 0 else ""
        self.error(f"text overflows {box}{label}{more}: '{_short(prim.text)}'", prim.mark)

    def _word_too_wide(self, prim: "Prim", kept: int) -> str | None:
        """The word after the `kept` characters that fit when it alone is wider than the box at its smallest
        size (however tall the box were), else None: the box is then full, or too short for a line."""
        rest = prim.text[kept:].lstrip("".join(BREAKING_SPACES))
        word = rest[:next((i for i, ch in enumerate(rest) if ch in BREAKING_SPACES), len(rest))]
        breaks = [at for at in wide_breaks(word) if at > 0]  # (a script without spaces breaks between characters)
        word = word[:min(breaks)] if breaks else word
        tall = replace(prim, text=word, h=max(prim.h, 1_000 * MM), style={**prim.style, "size": prim.style["min_size"]})
        return word if word and self.painter.fit_text(tall).overflow else None  # (none: only spaces are left)

    def _fitting_length(self, prim: "Prim") -> int:
        """How many characters of the text fit the box at its smallest size, cut between words."""
        # (between words: at any space or line break; at spaces alone, lines without one fitted none of them; and
        # between the characters of a script written without spaces, where its lines break: '0 of its 40 fit'; never
        # at a no-break space, where no line breaks: '54 of its 289 fit' was said of a text 6 of which fit)
        cuts = sorted({i for i, ch in enumerate(prim.text) if ch in BREAKING_SPACES} | set(wide_breaks(prim.text))) \
            + [len(prim.text)]
        lo, hi = 0, len(cuts)  # cuts[:lo] are known to fit, cuts[hi:] known not to
        while lo < hi:
            mid = (lo + hi) // 2
            trial = replace(prim, text=prim.text[:cuts[mid]], style={**prim.style, "size": prim.style["min_size"]})
            if self.painter.fit_text(trial).overflow:
                hi = mid
            else:
                lo = mid + 1
        return cuts[lo - 1] if lo else 0

    def small_text(self) -> None:
        """Text under the game's minimum size, after shrinking to fit: once per element, at its smallest."""
        for mark, (size, set_size, label, text, used) in self.smallest.items():
            how = f"is set at {hundredths_down(set_size)} pt" if size == set_size else f"shrinks to {hundredths_down(size)} pt to fit{label}"
            if used is not None:  # (the text element is fine in its own layout: the use is what prints it small)
                # (to hundredths, as the sizes beside it; the scale to 3 digits, neither written as Python
                # writes a small float: 'prints at 3.5e-05 pt ... at 5e-06 times its size')
                how = f"prints at {hundredths_down(size)} pt{label} inside the use at {used[0]}, which draws it at " \
                      f"{decimal.Decimal(f'{used[1]:.3g}').normalize():f} times its size"
            self.error(f"text {how} ('{_short(text, 30)}'): players need at least {self.min_size:g} pt to read "
                       "it at the table; make it larger or give it more room", mark)

    def fits(self, space: "Prim") -> None:
        """A token or marker declared to sit on a space must fit it: at most the space's width and height."""
        try:
            token = self.studio.layouts.get(space.style["holds"], space.mark)
        except LayoutError as e:
            self.error(e.message, e.mark)
            return
        if token.width > space.w + 0.01 or token.height > space.h + 0.01:
            self.error(f"the {token.size_mm[0]:g} x {token.size_mm[1]:g} mm '{token.name}' does not fit this "
                       f"{space.w / MM:.1f} x {space.h / MM:.1f} mm space it sits on; make the space bigger or the "
                       "token smaller", space.mark)

    def safe_area(self, layout: "Layout", prims: list["Prim"], cuts: tuple[Outline, ...], edge: str) -> None:
        """Text on a component cut with a blade must stay inside the safe area (`safe:` in from the cut line,
        whatever its shape), where a slightly off cut cannot reach it. A warning, once per layout element: the
        print still works. Each line is measured where it is inked, turned as drawn (a round token's text box
        has corners past its cut, its words need not; a turned text's unturned box said a text turned across
        the cut was inside, and one turned clear of it was not)."""
        s = layout.safe
        edge = "trim" if all(cut.kind == "rect" and not cut.radius for cut in cuts) else edge
        if self.no_safe_area(layout, prims, cuts):
            return
        for p in prims:
            if p.kind != "text" or not p.text or _box_clear(cuts, s, p.x, p.y, p.w, p.h, p.rotate):
                continue
            corners = self.inked_corners(p)
            if not corners:
                continue
            margin = min(inside_by(cut, x, y) for cut in cuts for x, y in corners)
            if margin < s - 0.01:  # (a text of a layout another uses is placed by that use: it is named too)
                used = drawn_by(p.used[0] if p.used is not None else None)
                self.warn(f"{_reach(margin, edge)}, inside the {s / MM:g} mm safe area{used}", p.mark)

    def no_safe_area(self, layout: "Layout", prims: list["Prim"], cuts: tuple[Outline, ...]) -> bool:
        """Whether `safe:` leaves no safe area, no point of the cut being that far inside it (each cut's centre
        is its deepest point): said once, at `safe`, where every text was warned of, one warning each."""
        deepest = max(inside_by(cut, cut.x + cut.w / 2, cut.y + cut.h / 2) for cut in cuts)
        if layout.safe < deepest - 0.01:
            return False
        if any(p.kind == "text" and p.text.strip() for p in prims):
            self.warn(f"safe: {layout.safe / MM:g} mm leaves no safe area: no point of the cut is more than "
                      f"{deepest / MM:g} mm inside its line, so every text is outside it; make `safe` smaller "
                      "or the cut larger", layout.spec.mark_of("safe"))
        return True

    def inked_corners(self, p: "Prim") -> list[tuple[float, float]]:
        """The corners of a text's lines where they are inked, turned as drawn, kept inside its box (an
        overflowing text's lines run past it, and the overflow is what is said of them)."""
        lines = self.painter.text_lines(replace(p, rotate=0) if p.rotate % 360 else p)
        return turned_corners(p, [_within(p, x, y) for left, top, right, bottom in lines
                                  for x in (left, right) for y in (top, bottom)])

    def no_area(self, prim: "Prim", sizes: str) -> None:
        """An image's or an icon's box of no width or height, refused: what is fitted in it prints nothing (an icon
        of `w: 0` passed without a word, as an image's did); `sizes` says what the element sets it by."""
        if not (prim.w > 0 and prim.h > 0):
            self.error(f"{prim.kind} {named(prim.text)} is fitted in a box of {prim.w / MM:.1f} x {prim.h / MM:.1f} "
                       f"mm, which has no area, so it prints nothing: give the element {sizes} above 0", prim.mark)

    def image(self, prim: "Prim") -> None:
        """An image must be a file inside the project that decodes completely, at enough dpi for its size, in a
        box of some area: a picture fitted into a box of no width or height prints nothing, and `w: 0, h: 0`
        passed as a picture of any resolution (a text's box of no size is refused: nothing of it fits)."""
        self.no_area(prim, "a `w` and `h`")
        key = prim.text
        if key not in self.images:  # read once per check; what it said and used, said and used by each user
            with self.studio.adding() as effects, self.collecting() as said:
                size = self._read_image(prim)
            self.images[key] = (size, said, effects)
        size, said, effects = self.images[key]
        self.say(said)
        self.studio.took(effects)
        if size is None:
            return
        px_w, px_h = size
        # points a pixel prints at: the picture is fitted in its box, its aspect kept (as pictures.printed_pixels
        # fits it), so a picture of another shape than its box prints at the box's width or height only (its dpi was
        # taken from the side it does not fill: a 600x200 px banner in a 50 mm square, printed 50x17 mm at 305 dpi,
        # was refused as 101 dpi at 50x50 mm)
        scale = min(prim.w / px_w, prim.h / px_h)
        dpi = 72 / scale if scale > 0 else 1e9
        need = prim.style.get("min_dpi", 150)
        if dpi < need:  # (inside a `use`, the size it prints at, and the use that draws it so, are said)
            used = f" inside the use at {prim.used[0]}, which draws it at {prim.used[1]:.3g} times its size" \
                if prim.used is not None else ""
            self.error(f"image {named(prim.text)} is {px_w}x{px_h} px: {dpi:.0f} dpi at its printed size "
                       f"{px_w * scale / MM:.0f}x{px_h * scale / MM:.0f} mm{used}, below the {need:g} dpi minimum",
                       prim.mark)

    def _read_image(self, prim: "Prim") -> tuple[int, int] | None:
        folder = self.game.layout_folder
        path = folder / prim.text
        if not prim.text.strip():  # (a card's empty field: it named the folder itself, "image '' is a folder")
            self.error(f"image {named(prim.text)}: its src names no file (an empty field of the item?): name a picture "
                       f"in {self.game.project.rel(folder)}/, or leave the element out where there is none (`when:`)",
                       prim.mark)
            return None
        if not present(path) and not on_another_machine(path):  # (one of another machine's: said by inside())
            self.error(f"image {named(prim.text)} not found (looked in {self.game.project.rel(folder)}/)"
                       f"{self.game.project.meant(folder, prim.text)}", prim.mark)
            return None
        try:
            real = self.game.project.inside(path, prim.mark, "image", shown=prim.text, built=False)
        except DataError as e:
            self.error(e.message, e.mark)
            return None
        if (alike := named_alike(path.parent, path.name)) is not None:  # (a copy on a Mac prints either)
            self.warn(f"image {named(prim.text)} has {named(posixpath.join(posixpath.dirname(prim.text), alike))} beside it, a name that differs only in case or in "
                      "how its accents are stored: one file on a disk that does not tell such names apart (macOS, "
                      "Windows, a USB stick), where the game prints whichever was copied there last: rename one",
                      prim.mark)
        self.game.used_files.add(real)
        try:
            asked_at = field_holding(self.item_now, prim.text)[1] or prim.mark  # the data field naming it
            return verified_picture(self.game.project, path, prim.mark, prim.text, (prim.w, prim.h),
                                    functools.partial(self.studio.budget.spend_pixels, mark=asked_at,
                                                      shown=prim.text))
        except DataError as e:
            self.error(e.message, e.mark)
        return None


class Said:
    """What a kind's check reports, kept to be said (and said again when the check is taken from a cache)."""

    def __init__(self) -> None:
        self.problems: "Problems" = []

    def error(self, message: str, mark: Mark | None = None) -> None:
        self.problems.append((message, mark))


@functools.lru_cache(maxsize=4096)
def _icons_in(text: str) -> tuple[str, ...]:
    return tuple(icons_in(text))


def _short(text: str, n: int = 40) -> str:
    return shortened(" ".join(text.split()), n)  # on one line: a message is one line


def _within(p: "Prim", x: float, y: float) -> tuple[float, float]:
    """The point moved into the primitive's box: an overflowing text's lines run past it, and the overflow is
    what is said of them."""
    return min(max(x, p.x), p.x + p.w), min(max(y, p.y), p.y + p.h)


@functools.lru_cache(maxsize=4096)
def _box_clear(cuts: tuple[Outline, ...], safe: float, x: float, y: float, w: float, h: float, rotate: float) -> bool:
    """Whether a text's whole box, turned as drawn, lies inside the safe area of every cut: then so does every
    line inked in it (`inked_corners` keeps them in the box), and its lines need not be laid out to know it.
    Every cut shape is convex, so how far a point lies inside one is least at a corner of the box. Most texts
    are placed by their layout alone, so one answer serves every card of a deck."""
    corners = turned_corners(Prim("text", x, y, w, h, rotate=rotate), [(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
    return min(inside_by(cut, cx, cy) for cut in cuts for cx, cy in corners) >= safe - 0.01


def _printed_box(layout: "Layout", cuts: tuple[Outline, ...]) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of what prints of a layout: its trim grown by its bleed, and the shapes it is
    cut along (a die's face may be larger than its layout's box)."""
    b = layout.bleed
    corners = [(-b, -b), (layout.width + b, layout.height + b), *(point for cut in cuts for point in cut.points)]
    return (min(x for x, _ in corners), min(y for _, y in corners), max(x for x, _ in corners),
            max(y for _, y in corners))


def _wholly_outside(p: "Prim", box: tuple[float, float, float, float]) -> bool:
    """Whether the primitive, as drawn (turned), lies wholly outside the box (an outline's stroke reaches half
    its width past its shape)."""
    drawn = (p.x, p.y, p.x + p.w, p.y + p.h) if not p.points and not p.rotate % 360 else extent([p])
    if drawn is None:
        return False
    pad = (p.style.get("stroke_width") or 0) / 2 + 0.01
    left, top, right, bottom = box
    return drawn[2] < left - pad or drawn[0] > right + pad or drawn[3] < top - pad or drawn[1] > bottom + pad


def _reach(margin: float, edge: str) -> str:
    """Where a text is, said as a designer measures it: so far inside the trim (or a shaped cut's line), on it,
    or past it."""
    mm = round(margin / MM, 1)
    if mm > 0:
        return f"text reaches within {mm:.1f} mm of the {edge}"
    if mm == 0:
        return f"text reaches the {edge}"
    return f"text runs {-mm:.1f} mm past the {edge}"


def _field_with(item: "Record | None", character: str) -> Mark | None:
    """The mark of the item's first text field holding `character`, None when none does (the layout wrote it)."""
    if item is None or not hasattr(item, "mark_of"):
        return None
    return next((item.mark_of(name) for name, value in item.items() if isinstance(value, str) and character in value),
                None)


