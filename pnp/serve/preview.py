"""One game as the preview page shows it: validated, every face's image rendered (or taken from the image
store when its digest is known), each card with its data, the file and line it comes from and its messages.
A game that fails keeps showing its last good images, marked stale. No web code here: the app serves
`Preview.state`, a plain dict."""

import bisect
import itertools
import threading
import time
import traceback
from collections.abc import Callable, ItemsView, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..kit.faces import item_key, side_key
from ..kit.render import all_in_one_name
from ..check import Checks, validate
from ..errors import BudgetSpent, PnpError, blamed
from ..export.faces import collect, face_of
from ..products import KINDS
from ..model.reads import ALL, MARK, MEMBERS
from ..printables import Memo, Studio
from ..report import Report, bounded_message, printable, shortened
from ..units import PrintOptions
from .images import DETAIL, Book, Image, ImageStore, assets_digest, face_digest, render_faces, rulebook_pdf

if TYPE_CHECKING:
    from ..export.faces import Face
    from ..model.components import Component
    from ..model.game import Game
    from ..model.load import Record
    from ..printables import PrintableKey
    from ..products.base import Printable
    from ..project import Project
    from ..report import Diagnostic, Mark

FIRST_ITEMS = 12  # a refresh's first step draws the edited cards when at most this many (TwoSteps)
# the files /source/ shows as a page (app.source): text. A problem or card of any other file (a workbook's cell,
# 'cards/g/t.xlsx[Sheet]:2:2', a picture) names no page to link to: its link was a 404
TEXT_SUFFIXES = {".yaml", ".yml", ".j2", ".md", ".csv", ".txt", ".json"}
REFRESH = threading.Lock()  # one game is checked and drawn at a time: ReportLab's state is not per thread


# what the page shows of one card's data, at most: a text's characters (what a text box holds) and a list's or
# mapping's entries. A value an alias repeats on every card (a text of 950,000 characters on 500) was sent whole
# for each: state.json was 475 MB, 18 s to the first page of the game
MAX_SHOWN_CHARS, MAX_SHOWN_ENTRIES = 20_000, 1_000
# and of all of one card's data together: cut text by text, a list of 100 aliases of one 900,000-character text
# on 200 cards was still 2 MB a card (20,000 characters each), a state.json of 400 MB, 15 s and 880 MB in the
# server; an entry past it is left out, as the page shows no more of a card
MAX_SHOWN_ITEM_CHARS = 50_000
# and of all the cards together, each card's share of it (MIN_SHOWN_ITEM_CHARS at least): 3,000 cards of a
# 1 MB file, each a name and a list of aliases of one long text, made a 211 MB state.json at 50,000 a card
MAX_SHOWN_ALL_CHARS, MIN_SHOWN_ITEM_CHARS = 20_000_000, 500


def _plain(value: object, most: int = MAX_SHOWN_ITEM_CHARS) -> Any:
    """Data as JSON shows it, each text and list cut to what the page shows (MAX_SHOWN_*), all of it together
    to `most` characters."""
    return _cut(value, [most])


def _item_share(faces: int) -> int:
    """The characters of one card's data (and of its name) the page is sent, when the game has `faces`."""
    return max(MIN_SHOWN_ITEM_CHARS, min(MAX_SHOWN_ITEM_CHARS, MAX_SHOWN_ALL_CHARS // max(1, faces)))


def _cut(value: object, left: list[int]) -> Any:
    """`value` as _plain shows it, `left` the characters still to be shown (taken from as texts are shown; an
    entry counts one at least, so that no list of empty texts goes uncounted)."""
    if isinstance(value, Mapping):
        shown: dict[str, Any] = {}
        for k, v in itertools.islice(value.items(), MAX_SHOWN_ENTRIES):
            if left[0] <= 0:
                break
            key = _cut(str(k), left)
            shown[key] = _cut(v, left)
        return shown
    if isinstance(value, (list, tuple)):
        entries: list[Any] = []
        for v in value[:MAX_SHOWN_ENTRIES]:
            if left[0] <= 0:
                break
            entries.append(_cut(v, left))
        return entries
    if isinstance(value, (int, float, bool)) or value is None:
        left[0] -= 1
        return value
    text = shortened(str(value), max(1, min(MAX_SHOWN_CHARS, left[0])))
    left[0] -= max(1, len(text))
    return text


def card_key(component_id: str, item: "Record | None", index: int) -> str:
    return f"{component_id}/{item_key(item, index)}"


def _where(mark: "Mark | None") -> dict[str, Any] | None:
    """Where a problem or card is: `file` as it is named, the source page's link (None when /source/ shows no
    page of it: a workbook's sheet, a picture), `at` as the page shows it, printable as the printed line says it
    (a file name holding U+202E reversed the rest of the line)."""
    if mark is None:
        return None
    linked = mark.file if PurePosixPath(mark.file).suffix in TEXT_SUFFIXES else None
    return {"file": linked, "line": mark.line, "col": mark.col, "at": printable(str(mark))}


class Cards:
    """Which card a message concerns: the printed item it was found on (the diagnostic's `item`, set where it
    was found), else the file and line of its item's data. Never read from the message's words."""

    def __init__(self) -> None:
        self.lines: dict[str, list[tuple[int, str]]] = {}  # file -> sorted [(line, card key)]
        self.items: dict[tuple[str, int], str] = {}  # (component id, item index) -> card key

    def add(self, key: str, item: "Record | None", printables: "list[Printable]") -> None:
        mark = getattr(item, "mark", None)
        if mark is not None and mark.line:
            bisect.insort(self.lines.setdefault(mark.file, []), (mark.line, key))
        for p in printables:
            self.items[(p.component.id, p.index)] = key

    def of(self, diagnostic: "Diagnostic") -> str | None:
        if diagnostic.item is not None and diagnostic.item in self.items:
            return self.items[diagnostic.item]
        mark = diagnostic.mark
        rows = self.lines.get(mark.file) if mark else None
        if not rows or mark is None or not mark.line:
            return None
        at = bisect.bisect_right(rows, (mark.line, "\uffff")) - 1
        return rows[at][1] if at >= 0 else None


class Preview:
    """The preview of one game; `refresh()` re-reads it (from a worker thread), `state` is what was last
    shown, `generation` counts refreshes."""

    def __init__(self, project: "Project", game_id: str, options: PrintOptions | None = None) -> None:
        self.project, self.game_id, self.store = project, game_id, ImageStore()
        self.options = options or PrintOptions()
        self.generation = 0
        self.good: dict[str, Any] | None = None  # the last state whose every face was drawn: {components, cards}
        self.faces: dict[PrintableKey, str] = {}  # printable key -> digest of its last good image
        self._sources: "dict[str, tuple[Studio, Face]]" = {}  # digest of a shown image -> the studio and face that
        # drew it, to draw its detail image when the page asks for it
        self.book: Book | None = None  # the rulebook's Book, when drawn
        self._studio: Studio | None = None  # the last refresh's studio, while its rulebook is still to be drawn
        self.seconds = 0.0  # how long the last refresh took
        self.memo = Memo()  # what the last refresh resolved, for the next to take what did not change
        self.drawn = 0  # faces the last refresh drew, in its two steps (the others' images were in the store)
        # (table, index) -> that item's fields as the last gallery showed them
        self._fields: dict[tuple[str, int], Any] = {}
        self._fields_check = -1  # the data's check (memo.fields.started) of that gallery
        self._share = MAX_SHOWN_ITEM_CHARS  # what that gallery showed of each card (_item_share)
        self.state = self._state([], "starting", None)
        self.closing = False  # the server is stopping: a refresh under way leaves off (close)
        self._checking: Studio | None = None  # the studio of the refresh under way, once made

    def halt(self, studio: Studio) -> None:
        """The refresh under way is checking `studio`: when the server is stopping, its drawing budget ends the
        work at its next element."""
        self._checking = studio
        if self.closing:
            studio.budget.halt(STOPPING)

    # -- the refresh ---------------------------------------------------------------------------------------
    def refresh(self, on_first: "Callable[[dict[str, Any]], None] | None" = None,
                newer: "Callable[[], bool] | None" = None) -> dict[str, Any]:
        """Validate the game and render what changed; never raises (a crash is shown as an error). In two
        steps (TwoSteps) when `on_first` is given: it gets the state with the edited cards drawn, before the
        whole game is checked; while `newer()` says a newer save waits, the whole game's work is left off (the
        state stays the first step's) so that the newer save is served first."""
        started = time.monotonic()
        with REFRESH:
            report, self.drawn = Report(self.project.root), 0
            wanted = newer or (lambda: False)
            steps = TwoSteps(self, started, on_first, lambda: self.closing or wanted()) if on_first is not None \
                else None
            try:
                game, studio = validate(self.project, self.game_id, report, self.options, self.memo, steps)
                if steps is not None:
                    steps.between()
                if studio is not None:
                    self.halt(studio)
                status = self._gallery(game, studio, report)
                if self.closing:  # left off: what it drew is not the game's
                    raise Superseded
            except Superseded:  # a newer save waits: served next, from what this check kept
                self.memo.abandon()
                return self.state
            except PnpError as e:  # a refusal raised while drawing: shown as the command line shows it
                report.add(e)
                game, status = None, "stale"
            except Exception as e:  # noqa: BLE001 - a bug or a broken file must not take the server down
                report.error(f"pnp failed while checking {self.game_id}: {_crash(e)}", blamed(e))
                game, status = None, "stale"
            finally:
                self._checking = None
            self.generation += 1
            self.seconds = time.monotonic() - started
            self.state = self._state(report.sorted(), status, game)
        return self.state

    def refresh_book(self) -> bool:
        """Draw the rulebook of the last refresh's game, if it was valid (after the cards: it takes longer).
        Returns whether its pages changed."""
        with REFRESH:
            studio, self._studio = self._studio, None
            try:
                pdf = rulebook_pdf(studio) if studio is not None else None
            except PnpError as e:  # validation passed, drawing did not (its budget ran out): said on the page
                # (bounded as every message is: a part to paste marked in it said whole, its marks taken out)
                problem = {"severity": "error",
                           "message": printable(bounded_message(f"the rulebook could not be drawn: {e.message}")),
                           "where": _where(e.mark), "card": None}
                self.generation += 1
                self.state = {**self.state, "generation": self.generation, "status": "errors",
                              "problems": [*self.state["problems"], problem]}
                return True
            except Exception:  # noqa: BLE001 - a bug must not take the server down; validation shows the rest
                pdf = None
            if pdf is None:
                return False
            book = Book(pdf)
            if self.book is not None and self.book.digest == book.digest:
                book.close()
                return False
            if self.book is not None:
                self.book.close()
            self.book = book
            self.store.keep(set(), book=True)
            self.generation += 1
            self.state = {**self.state, "generation": self.generation, "rulebook": self._book_state()}
            return True

    def detail(self, digest: str) -> Image | None:
        """The detail image of the shown face whose gallery image is `digest`: the same drawing at the detail
        view's scale (images.DPI), drawn when first asked for and kept while the face is shown; None for a digest
        no face shows now."""
        found = self.store.get(DETAIL + digest)
        if found is not None or digest not in self._sources:  # answered without waiting for a refresh: made-up
            return found  # digests, which any web page can ask for, held the server's threads through one
        with REFRESH:
            found = self.store.get(DETAIL + digest)
            source = self._sources.get(digest)
            if found is not None or source is None:
                return found
            studio, face = source
            paid = studio.budget.saved()
            try:
                images, _ = render_faces(studio, [face], [digest], detail=True)
            except PnpError:  # (the drawing budget: drawn within it for the gallery, so not reached)
                return None
            finally:  # the gallery paid for this drawing: drawn again at another scale, it costs the game nothing
                studio.budget.restore(paid)
            found = images.get(digest)
            if found is not None:
                self.store.put(DETAIL + digest, found)
            return found

    def stop(self) -> None:
        """The server is stopping: a refresh under way leaves off at its next element, or its next check of
        a component (from the server's thread: Ctrl-C waited seconds for a refresh nobody would see)."""
        self.closing = True
        studio = self._checking
        if studio is not None:
            studio.budget.halt(STOPPING)

    def close(self) -> None:
        self.stop()
        with REFRESH:
            if self.book is not None:
                self.book.close()
                self.book = None

    def _gallery(self, game: "Game | None", studio: Studio | None, report: Report) -> str:
        """Render the faces of a game that could be checked; 'ok', 'errors' (drawn, with errors) or 'stale'."""
        if studio is None or game is None:  # (validate gives a studio only with its game)
            return "stale"
        try:
            return self._drawn(game, studio, report)
        except BudgetSpent as e:  # the game's drawing ran out of its budget: said once, where it did
            report.add(e)
            return "stale"

    def _drawn(self, game: "Game", studio: Studio, report: Report) -> str:
        """_gallery's work, which the game's drawing budget may stop."""
        faces = collect(studio, 0)
        digests = self._drawn_faces(studio, faces, assets_digest(self.memo.files, studio.game.icons.aliases), report)
        self._remember(studio, faces, digests)
        self._sources = self._drawers(studio, faces, digests)
        self._studio = studio if not report.errors else None
        return "ok" if not report.errors else "errors"

    def _first_state(self, game: "Game", studio: Studio, report: Report, started: float) -> dict[str, Any] | None:
        """The first step of a refresh whose edit changed a few items' data (TwoSteps): those items' printables
        checked and their faces drawn (the edited items' first), the last gallery with their cards made anew;
        the state to show while the rest is checked, or None when there is no such step (the first refresh,
        an edit of anything but the data, a card added or renamed)."""
        changes = self.memo.fields.changes
        if self.good is None or changes.everything or not changes.items:
            return None
        edited = {field[:2] for field in changes.fields if field[2] != MARK} | changes.whole  # (lines that
        # moved are no edit of their items)
        chosen = _first_printables(studio, self.memo, edited)
        if not chosen or len({id(p.item) for p in chosen}) > FIRST_ITEMS:  # many cards: one step is as quick
            return None
        early = Report(self.project.root, list(report.diagnostics), dict(report.alike), dict(report.untold))
        marks, studio.marks = studio.marks, {}  # the whole check marks them again, in its order
        spent = studio.budget.saved()
        try:
            Checks(studio, early).printables(chosen)
            faces = [face_of(studio, p, 0) for p in chosen if KINDS[p.component.kind].exports_faces]
            digests = self._drawn_faces(studio, faces, assets_digest(self.memo.files, studio.game.icons.aliases), early)
        except BudgetSpent:  # sized for the few items of the first step: the whole check has the game's budget
            return None
        finally:  # the whole check spends it again in its own order, as a fresh one (where it runs out)
            studio.marks = marks
            studio.budget.restore(spent)
            studio.forget(chosen)
        cards = self._cards_anew(studio, faces, digests)
        if cards is None:
            return None
        self.generation += 1
        self.seconds = time.monotonic() - started
        return self._state(early.sorted(), "checking", game, {**self.good, "cards": cards})

    def _cards_anew(self, studio: Studio, faces: "list[Face]", digests: dict[int, str]) -> dict[str, Any] | None:
        """The last gallery's cards with those of `faces` made anew; None when one is not in it (a card
        added or renamed) or a component holds other cards than it showed (an edit took an item out of a
        component's `filter`): the whole refresh shows it."""
        cards = dict(self.good["cards"]) if self.good is not None else {}
        if self.good is not None and not _same_members(studio.game, self.good["components"]):
            return None
        for component in studio.game.components:
            group = [(n, face) for n, face in enumerate(faces) if face.component is component]
            for key, of_card in _cards(component, group):
                if key not in cards:
                    return None
                cards[key] = self._card(key, of_card, digests, {}, self._fields)
        return cards

    def _drawn_faces(self, studio: Studio, faces: "list[Face]", assets: str, report: Report) -> dict[int, str]:
        """Draw the faces whose images are not in the store; {n: digest} of those that have an image now
        (a face that failed is reported)."""
        digests: dict[int, str] = {}
        for n, face in enumerate(faces):
            try:
                digests[n] = face_digest(studio, face, assets)
            except BudgetSpent:
                raise
            except PnpError:  # the layout fails for this face: its last good image, marked stale
                continue
        todo = [n for n in digests if digests[n] not in self.store]
        self.drawn += len(todo)
        images, errors = render_faces(studio, [faces[n] for n in todo], [digests[n] for n in todo])
        for digest, image in images.items():
            self.store.put(digest, image)
        for i, (message, mark) in errors.items():
            face = faces[todo[i]]
            report.error(f"{message} (printing {face.printable.label})", mark or face.printable.mark,
                         item=(face.printable.component.id, face.printable.index))
            del digests[todo[i]]
        return digests

    def _drawers(self, studio: Studio, faces: "list[Face]",
                 digests: dict[int, str]) -> "dict[str, tuple[Studio, Face]]":
        """Digest -> (studio, face) of each image the gallery shows now (self.faces): this refresh's, or for a
        stale face, the earlier studio's that drew its last good image."""
        drew = {digests[n]: (studio, faces[n]) for n in digests}
        kept = self._sources
        return {d: drew.get(d) or kept[d] for d in self.faces.values() if d in drew or d in kept}

    def _remember(self, studio: Studio, faces: "list[Face]", digests: dict[int, str]) -> None:
        """The gallery of this refresh: each face's image, or its last good one (stale) when it failed."""
        components: list[dict[str, Any]] = []
        cards: dict[str, dict[str, Any]] = {}
        by_component: dict[str, list[tuple[int, Face]]] = {}
        for n, face in enumerate(faces):
            by_component.setdefault(face.component.id, []).append((n, face))
        index = Cards()
        shown: dict[PrintableKey, str] = {}
        kept, self._fields = self._fields, {}
        if self._fields_check + 1 != self.memo.fields.started:  # a check went by without a gallery: what
            kept = {}  # changed since is not known
        self._fields_check = self.memo.fields.started
        share = _item_share(len(faces))
        if share != self._share:  # (the kept fields were cut to another share)
            kept = {}
        self._share = share
        for component in studio.game.components:
            if component.id not in by_component:
                continue
            entry: dict[str, Any] = {"id": component.id, "name": shortened(str(component.name), MAX_SHOWN_CHARS), "kind": component.kind,
                     "count": component.count, "cards": []}
            for key, group in _cards(component, by_component[component.id]):
                cards[key] = self._card(key, group, digests, shown, kept)
                entry["cards"].append(key)
                index.add(key, group[0][1].item, [face.printable for _, face in group])
            components.append(entry)
        self.faces = shown  # a face that fails again next time still has its last good image
        self.good = {"components": components, "cards": cards, "index": index}
        self.store.keep({f["image"] for c in cards.values() for f in c["faces"] if f["image"]})

    def _card(self, key: str, group: "list[tuple[int, Face]]", digests: dict[int, str],
              shown: "dict[PrintableKey, str]", kept: dict[tuple[str, int], Any]) -> dict[str, Any]:
        """A card's entry: its data, source and faces; `shown` collects printable key -> image digest, `kept`
        holds the last gallery's fields of the items."""
        first = group[0][1]
        item = first.item
        mark = getattr(item, "mark", None) or first.printable.mark
        name = str(first.name)
        if item is not None and item.get("id") is not None and name == str(first.index + 1):
            name = str(item.get("id"))  # an item with no name of its own: its id says more than its number
        # (cut as its data is: a name of 900,000 characters an alias gave 200 cards made a 184 MB state.json)
        out = {"key": key, "name": shortened(name, min(MAX_SHOWN_CHARS, self._share)), "id": item_key(item, first.index),
               "copies": first.copies, "fields": self._fields_of(item, kept), "source": _where(mark), "faces": []}
        for n, face in group:
            digest = digests.get(n)
            stale = digest is None
            if stale:
                digest = self.faces.get(face.printable.key)
            image = self.store.get(digest) if digest else None
            if image is not None and digest:  # (an image is only had for a digest)
                shown[face.printable.key] = digest
            out["faces"].append({"side": side_key(face.printable), "image": digest if image else None,
                                 "shape": face.shape,
                                 "stale": stale, "size": list(image.size) if image else None,
                                 "text": shortened(image.text, MAX_SHOWN_CHARS) if image else ""})
        return out

    def _fields_of(self, item: "Record | None", kept: dict[tuple[str, int], Any]) -> dict[str, Any]:
        """An item's fields as the page shows them: the last gallery's while nothing of the item changed."""
        at = getattr(item, "_at", None)  # a table's item, noting its reads (model/reads.py)
        if at is None:
            return _plain(item, self._share) if item is not None else {}
        fields = kept.get(at)
        if fields is None or self.memo.fields.changes.reach(((*at, None),)):
            fields = _plain(item, self._share)
        self._fields[at] = fields
        return fields

    # -- what the page reads -------------------------------------------------------------------------------
    def _state(self, diagnostics: "list[Diagnostic]", status: str, game: "Game | None",
               gallery: dict[str, Any] | None = None) -> dict[str, Any]:
        """What the page shows: `gallery` (the first step's), else the last good one."""
        good = gallery or self.good or {"components": [], "cards": {}, "index": Cards()}
        index = good["index"]
        if game is not None and status == "stale":  # the data as it is now says where each card is
            index = _index_of(game) or index
        # each message as the printed line says it (report.printable, as --json does): a U+202E that a game's
        # text put into one reversed how the rest of it displayed, a newline forged a line of its own
        problems = [{"severity": d.severity, "message": printable(d.message), "where": _where(d.mark),
                     "card": index.of(d)} for d in diagnostics]
        problems.sort(key=lambda p: p["severity"] != "error")  # errors first, each in file order
        title = game.shown_title if game is not None and game.meta else self.game_id
        return {"game": self.game_id, "title": shortened(title, MAX_SHOWN_CHARS),
                "generation": self.generation, "status": status, "stale": status == "stale" and bool(self.good),
                "problems": problems, "components": good["components"], "cards": good["cards"],
                "rulebook": self._book_state(), "seconds": round(self.seconds, 3),
                "build": self._build_shown()}

    def _build_shown(self) -> str | None:
        """The game's latest kit as the page links it, when /files/ serves it: a file inside the project. One
        that is a link out of it (to /etc/passwd) was offered as the latest build, its link answering 404, and
        looked at outside the project at every refresh."""
        build = built_kit(self.project, self.game_id, self.options)
        try:
            real = self.project.inside(build, built=True)
        except (PnpError, OSError):
            return None
        return self.project.rel(build) if real.is_file() else None

    def _book_state(self) -> dict[str, Any] | None:
        if self.book is None:
            return None
        return {"digest": self.book.digest, "pages": [list(s) for s in self.book.sizes]}



STOPPING = "the preview is stopping"  # the drawing budget's word when the server stops a refresh (never shown)


class Superseded(Exception):
    """A newer save waits: the refresh under way leaves off its whole-game work."""


class TwoSteps:
    """A refresh in two steps (check.Steps): once the data is loaded, the edited cards are checked and
    drawn and the page hears of them (`on_first`, with the state saying the rest is being checked); then the
    whole game is checked and drawn as a refresh in one step would. Between the whole game's checks, a newer
    save waiting (`newer()`) stops it (Superseded)."""

    def __init__(self, preview: Preview, started: float, on_first: "Callable[[dict[str, Any]], None]",
                 newer: "Callable[[], bool]") -> None:
        self.preview, self.started, self.on_first, self.newer = preview, started, on_first, newer

    def first(self, game: "Game", studio: Studio, report: Report) -> None:
        try:
            state = self.preview._first_state(game, studio, report, self.started)
        except BudgetSpent:
            raise
        except Exception:  # noqa: BLE001 - the whole check says what went wrong, where it did
            return
        self.preview.halt(studio)
        if state is not None:
            self.preview.state = state
            self.on_first(state)

    def between(self) -> None:
        if self.newer():
            raise Superseded


def _first_printables(studio: Studio, memo: Memo, edited: "set[tuple[str, int]]") -> "list[Printable]":
    """The printables of a refresh's first step: those of the edited items, then those of the items whose
    faces read an edited item and only a few items besides (a card naming its parent), each item's faces
    together. Components of no table's items (a rulebook, aids, maps) and faces reading whole tables wait for
    the whole check."""
    printables = [(p, at) for c in studio.game.components if c.items for p in studio.of_one(c)
                  if p.side != "picture" and (at := getattr(p.item, "_at", None)) is not None]
    near: set[tuple[str, int]] = set()
    for p, at in printables:
        entry = memo.entries.get(p.key)
        if at not in edited and entry is not None and memo.fields.changes.reach(entry[1]) and _few_items(entry[1]):
            near.add(at)
    return [p for p, at in printables if at in edited] + [p for p, at in printables if at in near]


def _few_items(reads: "frozenset[Any]", most: int = 8) -> bool:
    """Whether reads name at most `most` items, each by its place (no table whole, none's membership)."""
    items = set()
    for key in reads:
        if key == ALL or key[1] is None or key[1] == MEMBERS:
            if key != ALL and isinstance(key[0], tuple):  # a layout file: no item
                continue
            return False
        items.add(key[:2])
    return len(items) <= most


def built_kit(project: "Project", game_id: str, options: PrintOptions) -> Path:
    """Where `pnp build` writes the game's whole kit for these options (the page links to it when it is
    there): the one place serve names a build's file, as kit/render.py does."""
    return project.output / game_id / all_in_one_name(game_id, options)


def _cards(component: "Component",
           faces: "list[tuple[int, Face]]") -> "ItemsView[str, list[tuple[int, Face]]]":
    """(card key, [(n, face)...]) per item of a component, in order: its front, back or die faces."""
    groups: dict[str, list[tuple[int, Face]]] = {}
    for n, face in faces:
        groups.setdefault(card_key(component.id, face.item, face.index), []).append((n, face))
    return groups.items()


def _same_members(game: "Game", shown: list[dict[str, Any]]) -> bool:
    """Whether each component the gallery `shown` lists holds the same cards, in the same order, now."""
    cards = {entry["id"]: entry["cards"] for entry in shown}
    for component in game.components:
        if component.id in cards and _member_keys(component) != cards[component.id]:
            return False
    return True


def _member_keys(component: "Component") -> list[str]:
    """The card keys of a component's distinct items, in order (an item printed many times is one card); a
    component of no items prints one card."""
    seen: dict[int, str] = {}
    for item in component.items or []:
        if id(item) not in seen:
            seen[id(item)] = card_key(component.id, item, len(seen))
    return list(seen.values()) or [card_key(component.id, None, 0)]


def _index_of(game: "Game") -> Cards | None:
    """A Cards index from a game whose data did not validate (its items still know their lines)."""
    index = Cards()
    try:
        for component in game.components:
            seen = set()
            for item in component.items or []:
                if id(item) not in seen:
                    seen.add(id(item))
                    index.add(card_key(component.id, item, len(seen) - 1), item, [])
    except Exception:  # noqa: BLE001 - half-loaded data: no index, the messages still show
        return None
    return index


def _crash(error: BaseException) -> str:
    """An unexpected exception in one line: its type, message and the innermost pnp frame."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "/pnp/" in f.filename]
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{where}"
