"""The one walk over everything a game prints. A Studio holds one game's layouts, fonts and paper, asks each
component's kind for its printables, resolves each printable once (validation and build share the result)
and draws it. Validation, build, the manifest, the rulebook's pictures and credits all go through it."""

import bisect
import contextlib
import functools
import hashlib
import json
import marshal
import os
import time
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from stat import S_ISLNK, S_ISREG
from typing import TYPE_CHECKING, Any

from .draw import sheet as paper
from .draw.fonts import load_fonts
from .draw.ink import ink_saved
from .draw.paint import Painter
from .errors import DataError, ExprError, LayoutError
from .layout.budget import DrawingBudget
from .layout.prims import Prim
from .layout.layouts import KeptLayouts, LayoutSet
from .model.images import MAX_IMAGE_BYTES
from .layout.resolve import KeptElements
from .model.load import MAX_FILE_BYTES, plain
from .model.reads import FieldCache, note_all, recording
from .model.schema import icons_in
from .products import KINDS, layout_options
from .products.rulebook import icons_shown
from .project import MAX_LINK_HOPS, count_folder_file, file_status, read_project_file
from .report import Diagnostic, Mark, shortened
from .units import PrintOptions

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from reportlab.pdfgen.canvas import Canvas

    from .layout.layouts import Layout
    from .model.components import Component
    from .model.game import Game
    from .model.load import Record
    from .products.base import Kind, Printable, Problems
    from .project import Project

    PrintableKey = tuple[str, str, int, tuple[tuple[str, Any], ...]]  # Printable.key



RESOLVED_KEPT = 5000  # printables whose primitives (and texts whose fitting) are kept for the drawing
# marshal's format 2 writes a value as its value alone; from format 3 on, an object referred to more than once
# at that moment is written as a back-reference, so equal primitives gave different bytes (and a face another
# digest) depending on who else held their strings: a kept primitive and a newly resolved one
LOOK_FORMAT = 2


LONG_TEXT = 256  # characters past which a text of an item is digested once, its digest written in its place


@functools.lru_cache(maxsize=1024)
def _text_digest(text: str) -> str:
    """A long text's stand-in in an item's digest: kept for the texts met last, so that one text an alias
    repeats on every card is read once (each object is found by itself, its hash kept: never read again)."""
    return "\x00" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _texts_digested(value: Any) -> Any:
    """`value` with each long text (and each text starting with NUL, the stand-ins' mark, so that no text
    stands for another) written as its digest."""
    if isinstance(value, str):
        return _text_digest(value) if len(value) > LONG_TEXT or value.startswith("\x00") else value
    if isinstance(value, dict):
        return {k: _texts_digested(x) for k, x in value.items()}
    if isinstance(value, list):
        return [_texts_digested(x) for x in value]
    return value


def _digest_of(item: "Record | dict[str, Any] | None") -> str:
    """A short digest of an item's data (keys of mixed types, which JSON cannot sort, by their text). Its long
    texts are digested once each (_text_digest): a text of 950,000 characters an alias repeats on 5,000 cards
    was written out as JSON and digested on each, 38 s of a build."""
    value = _texts_digested(plain(item))
    try:
        text = json.dumps(value, sort_keys=True, default=str)
    except TypeError:
        text = repr(sorted((str(k), repr(v)) for k, v in value.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _icon_names(prims: list[Prim]) -> frozenset[str]:
    """The names of the icons `prims` draw: their icon elements' and those their texts name."""
    names: set[str] = set()
    for prim in prims:
        if prim.kind == "icon":
            names.add(prim.text)
        elif prim.kind == "text":
            names.update(icons_in(prim.text))
    return frozenset(names)


class _Recent(OrderedDict):
    """A dict that keeps only its `size` newest entries. Validation resolves every printable and the build
    draws the same primitives; beyond `size` the oldest are resolved again when drawn (the same result), so a
    deck of 10,000 cards needs no more memory than one of 2,500."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        if len(self) > self.size:
            self.popitem(last=False)


class Memo:
    """What one check of a game resolved, kept for the next (the preview's refreshes): each printable's
    primitives with what they were made from: its layout, its item and the data its templates read, field by
    field, and the layout files it read (model/reads.py; `fields` holds the data's own results and what changed
    since the last check). A printable none of whose reads changed gets its primitives back unresolved. The
    layouts are kept too (`layouts`), each while its files are the same; a layout file's edit forgets only
    the layouts and results that read it, any other change besides the data (a font, an icon or image file,
    the text styles, macros, game.yaml, the options, a file added or removed) forgets them all. Texts' fitting
    is kept under the same rule. `resolved` lists the keys of the printables the last check resolved,
    `reused` counts those it took from here."""

    def __init__(self) -> None:
        self.inputs: str | None = None  # the digest of game.yaml and the options
        self.files: dict[str, str] = {}  # every file of the layout folders and fonts (project-relative) -> digest
        # printable key -> (signature, reads, primitives, drawing steps spent)
        self.entries: dict[PrintableKey, tuple[tuple[Any, ...] | None, frozenset[Any], list[Prim], int]] = {}
        self.fields = FieldCache()  # the data's results (derived fields, constraints, checks) and the changes
        self.layouts = KeptLayouts(KeptElements())  # the layouts read, while their files are the same
        self.fit_cache = _Recent(RESOLVED_KEPT)
        # printable key -> (its primitives, their look): digested once while kept
        self.looks: dict[PrintableKey, tuple[list[Prim], str]] = {}
        self.resolved: list[PrintableKey] = []
        self.reused = 0
        self._touched: set[PrintableKey] = set()
        self._check = 0  # the data's check (fields.started) this one's entries were kept or made in
        self._resized: dict[str, Layout] = {}  # the layouts a file's edit forgot, as they were (see sized)

    def start(self, game: "Game", options: PrintOptions) -> None:
        """A new check of `game`: keep what the last one had, but for what read a changed layout file; all of
        it forgotten when anything else changed besides the data."""
        inputs, files = options_digest(game, options), file_digests(game)
        changed = {path for path in files.keys() | self.files.keys() if files.get(path) != self.files.get(path)}
        if inputs != self.inputs or files.keys() != self.files.keys() or not changed <= self.layouts.files:
            self.entries, self.fit_cache, self.looks = {}, _Recent(RESOLVED_KEPT), {}
            self.fields.entries = {key: v for key, v in self.fields.entries.items() if key[0] in _DATA_ONLY}
            self.layouts.forget(None)
            self._resized = {}
        else:
            self._keep_unchanged(changed)
        self.inputs, self.files, self._check = inputs, files, self.fields.started
        self.resolved, self.reused = [], 0
        self._touched = set()

    def abandon(self) -> None:
        """The check stopped half way (FieldCache.abandon): the printables it did not reach are kept while
        no change it saw reaches what they read."""
        changes = self.fields.changes
        self._touched |= {key for key, entry in self.entries.items() if not changes.reach(entry[1])}
        self.fields.abandon()

    def _keep_unchanged(self, changed: set[str]) -> None:
        """start()'s work when only the data and layout files changed: what did not read them is kept."""
        # a printable that is gone (a deleted card) is not kept for ever; none is when a check of the data
        # went by without printing (it had errors): `fields.changes` does not say what changed since
        continued = self.fields.started == self._check + 1
        kept = self._touched if continued else ()
        self.entries = {key: self.entries[key] for key in kept if key in self.entries}
        self.looks = {key: self.looks[key] for key in self.entries if key in self.looks}
        for path in changed:  # what read them (printables, checks) is made again; the rest is kept
            self.fields.changes.add_file(path)
        self._resized = self.layouts.forget(changed)
        if self.layouts.elements is not None:  # (the elements' other reads, as the printables' above)
            self.layouts.elements.start(self.fields.changes.reach if continued else lambda reads: True)

    def sized(self, layouts: LayoutSet) -> None:
        """Note as changed the size of each layout a file's edit forgot whose size is not what it was (read
        again now: what only reads a layout's size, LayoutSet.size, is checked again only then)."""
        for name, layout in self._resized.items():
            try:
                size: tuple[float, float] | None = layouts.size(name)
            except LayoutError:
                size = None
            if size != (layout.width, layout.height):
                self.fields.changes.add_size(layout.file)
        self._resized = {}

    def recall(self, studio: "Studio", printable: "Printable") -> tuple[list[Prim], frozenset[Any]] | None:
        """(primitives, reads) kept for `printable`, when nothing they were made from changed; their drawing
        steps are spent again (near the budget's end it is resolved again, to stop where a full check stops)."""
        self._touched.add(printable.key)
        entry = self.entries.get(printable.key)
        if entry is None:
            return None
        signature, reads, prims, steps = entry
        budget = studio.budget
        if signature != self._signature(studio, printable) or self.fields.changes.reach(reads):
            del self.entries[printable.key]  # out of date: not kept past this check, whether resolved whole or not
            return None
        if budget.would_pass(steps):
            return None
        budget.spend(steps, None)
        self.reused += 1
        return prims, reads

    def keep(self, studio: "Studio", printable: "Printable", prims: list[Prim], reads: frozenset[Any], steps: int) -> None:
        self.resolved.append(printable.key)
        self._touched.add(printable.key)
        self.entries[printable.key] = (self._signature(studio, printable), reads, prims, steps)

    def _signature(self, studio: "Studio", printable: "Printable") -> tuple[Any, ...] | None:
        """What a printable's primitives are made from besides the data its templates read: its layout's
        name, which item it prints (its data when that item notes no reads) and its extra variables."""
        item = getattr(printable.item, "_at", None) or studio.data_digest(printable)
        if printable.extra:
            return printable.layout, item, _digest_of(dict(printable.extra))
        try:
            constant = studio.layouts.resolver(printable.layout, printable.mark).constant
        except LayoutError:  # resolving it will say why
            return None
        return printable.layout, "" if constant else item


_DATA_ONLY = ("derived", "constraint", "filter")  # FieldCache results that depend on nothing printed (layouts, fonts)


def inputs_digest(game: "Game", options: PrintOptions) -> str:
    """What a printable's primitives are made from besides the data: the layouts (with macros and styles),
    the fonts, the icon and image files (by size and time, read cheaply), game.yaml and the print options."""
    digest = hashlib.sha256(options_digest(game, options).encode())
    for path, file_digest in file_digests(game).items():
        digest.update(f"{path}\0{file_digest}\0".encode("utf-8", "surrogateescape"))  # a name not in UTF-8 (os.fsdecode)
    return digest.hexdigest()[:32]


def options_digest(game: "Game", options: PrintOptions) -> str:
    """The digest of the print options and game.yaml."""
    return hashlib.sha256(repr((options, _digest_of(game.meta))).encode()).hexdigest()[:32]


def file_digests(game: "Game") -> dict[str, str]:
    """{project-relative path: digest} of every file of the game's layouts folder, the shared layouts and the
    fonts (see _file_digest), in order, and of its output/<game>/simulation.json when there is one. Each file's name is its folder's as shown plus its path in it (no
    Path made per file: a refresh lists a few hundred files)."""
    project = game.project
    digests: dict[str, str] = {}
    followed: dict[str, str | None] = {}  # _linked_digest's, by the name links lead to
    for folder in (game.layout_folder, project.shared_layouts, project.fonts):
        top, shown = str(folder), project.rel(folder)
        for path, stat in _files_under(folder, project):
            tail = path[len(top) + 1:]
            digests[f"{shown}/{tail}" if shown != "." else tail] = _linked_digest(project, path, stat, followed)
    # what `pnp simulate` measured, which the rulebook prints: the preview's next check kept the rulebook drawn
    # without it (or with the last run's figures) while only the data and layouts were compared
    simulated = str(project.simulation(game.id))
    with contextlib.suppress(OSError):
        digests[project.rel(Path(simulated))] = _file_digest(project, simulated, os.lstat(simulated))
    return digests


def _files_under(folder: Path, project: "Project") -> list[tuple[str, os.stat_result | None]]:
    """(path, lstat) of the files in `folder` and its folders (a link to a file included, a link to a folder
    followed once when it leads inside the project: the game reads its files through it), in path order, read
    from the directory entries (no stat of each to tell a file from a folder); each path is `folder`'s, a
    slash and the path below it."""
    found: list[tuple[str, os.stat_result | None]] = []
    folders, linked = [str(folder)], set[Path]()
    shown = project.rel(folder)  # (once: each file named it again, 19,000 times in a folder of links)
    while folders:
        at = folders.pop()
        try:
            entries = list(os.scandir(at))
        except OSError:  # not a folder (none), or unreadable: no files of its own
            continue
        for entry in entries:
            # only a link to a folder is resolved (each of 19,000 links to a picture was, at every refresh)
            if entry.is_dir(follow_symlinks=False) or entry.is_symlink() and _is_folder(entry) and \
                    _first_visit(project, Path(entry.path), linked):
                folders.append(entry.path)
            elif _is_file(entry):
                count_folder_file(len(found), shown)
                try:
                    stat: os.stat_result | None = entry.stat(follow_symlinks=False)
                except OSError:  # gone since the folder was listed
                    stat = None
                found.append((entry.path, stat))
    start = len(str(folder)) + 1
    found.sort(key=lambda pair: pair[0][start:].split("/"))  # (as Path.parts: a folder's files before "a-b")
    return found


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """Whether an entry is a folder or a link to one (a link to itself or to nothing is not)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    """Whether an entry is a file or a link to one (not a link to itself, as Path.is_file says)."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _first_visit(project: "Project", link: Path, linked: set[Path]) -> bool:
    """Whether a link leads to a folder inside the project to a folder no other link led to (so a link to a
    folder above it ends)."""
    try:
        real = project.inside(link, built=True)
        if not real.is_dir():
            return False
    except (DataError, OSError):  # out of the project, or a link to itself
        return False
    if real in linked:
        return False
    linked.add(real)
    return True


def _linked_digest(project: "Project", path: str, stat: os.stat_result | None,
                   followed: dict[str, str | None]) -> str:
    """_file_digest of `path`; of a link, that of the name its links lead to, followed as written (each link's
    text read, as many as the system follows), taken once a refresh (`followed`) and kept as an ordinary file's
    is, by its status: a link's own status says nothing of its target's, so each of 19,000 icon links to one
    picture was resolved and read at every refresh of the preview (4.5 s a save). A link leading out of the
    project, to a hidden file or nowhere is known by its own status, as _status_digest knows it: what it leads
    to is never looked at, its content nor its status."""
    if stat is None or not S_ISLNK(stat.st_mode):
        return _file_digest(project, path, stat)
    along = path
    for _hop in range(MAX_LINK_HOPS):
        try:
            along = os.path.join(os.path.dirname(along), os.readlink(along))
        except (OSError, ValueError):  # no link (or none there): `along` names the file
            break
    if along not in followed:
        try:
            project.inside(along, built=True)
            followed[along] = _file_digest(project, along, os.lstat(along))
        except (DataError, OSError, ValueError):  # out of the project, hidden or nowhere: never looked at
            followed[along] = None
    found = followed[along]
    return found if found is not None else _own_status(stat)


def _file_digest(project: "Project", path: str, stat: os.stat_result | None) -> str:
    """A file by its content, read as the game's files are (inside the project, capped in size: a text file as
    the data, any other as a picture); one that reader refuses (a link out of the project, a padded file: the
    check says why where the game uses it) by its status, never read. The digest is taken again from the last
    time while the file's status (`stat`, its lstat; None: gone since its folder was listed) is the same
    (_KEPT_DIGESTS): a picture is read once, not at every refresh."""
    if stat is None:
        return "missing"
    key = (project.root, path)
    status = file_status(stat)
    kept = _KEPT_DIGESTS.get(key)
    if kept is not None and kept[0] == status:
        return kept[1]
    limit = MAX_FILE_BYTES if os.path.splitext(path)[1] in (".yaml", ".yml", ".j2", ".md", ".txt") else MAX_IMAGE_BYTES
    try:
        real = project.inside(path, built=True)
        digest = hashlib.sha256(read_project_file(real, limit, Mark(project.rel(path)), beneath=project.root)).hexdigest()
    except (DataError, OSError):
        return _status_digest(project, path, stat)
    # a file changed in the last moments may change again within its clock's step, its status the same
    # ("racy git"): kept only once older than that; a link's status says nothing of its target's
    if S_ISREG(stat.st_mode) and time.time_ns() - max(stat.st_mtime_ns, stat.st_ctime_ns) > _SETTLED_NS:
        if len(_KEPT_DIGESTS) >= _KEPT_DIGESTS_MAX:
            _KEPT_DIGESTS.clear()
        _KEPT_DIGESTS[key] = (status, digest)
    return digest


def _status_digest(project: "Project", path: str, stat: os.stat_result) -> str:
    """A file not read by its size, modification time and inode, and a link by the file it leads to as well,
    when that is inside the project."""
    own = _own_status(stat)
    if S_ISLNK(stat.st_mode):
        try:
            target = os.stat(project.inside(path, built=True))
            return f"{own}\0{target.st_size}\0{target.st_mtime_ns}\0{target.st_dev}\0{target.st_ino}"
        except (DataError, OSError):  # out of the project, or gone: (the check says why where the game uses it)
            pass
    return own


def _own_status(stat: os.stat_result) -> str:
    """A file (or a link) known by its own size, modification time and inode, not by its content."""
    return f"{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_dev}\0{stat.st_ino}"


# (project root, layout file) -> (its lstat: mode, device, inode, size, times; its content's digest), for
# file_digests: a save re-reads only the files it changed
_KEPT_DIGESTS: dict[tuple[Path, str], tuple[tuple[int, ...], str]] = {}
_KEPT_DIGESTS_MAX = 50_000
_SETTLED_NS = 2_000_000_000  # file times step by as much as 2 s on some file systems (FAT), by ms on most


class Studio:
    """One game's printing context for one set of print options."""

    def __init__(self, game: "Game", options: PrintOptions | None = None, memo: Memo | None = None,
                 budget: DrawingBudget | None = None) -> None:
        self.game, self.options = game, options or PrintOptions()
        self.paper, self.bleed = self.options.paper_size, self.options.bleed
        self.project, self.icons = game.project, game.icons
        # one for all the game's drawing in this command: resolving and painting. `budget`: the whole game's,
        # shared by a studio of part of it (a reprint's, a proof's), sized by the game's faces and with the work
        # its check paid for: sized afresh by the part's few faces, a reprint of the board pictures a kit drew
        # within the game's budget was refused for pixels (the part's check of them is the kit's, paid once)
        self.budget = DrawingBudget() if budget is None else budget
        self._sizes_budget = budget is None  # a shared budget is sized by the studio that made it
        if memo is not None:  # before the layouts: it forgets those whose files changed
            memo.start(game, self.options)
        self.layouts = LayoutSet(game.project, game.id, self.context(), layout_options(), self.budget,
                                 memo.layouts if memo is not None else None)
        if memo is not None:
            memo.sized(self.layouts)
        self.fonts = load_fonts(game.project)  # DataError when fonts.yaml is wrong
        self.cache: dict[str, Any] = {}  # products keep per-build results here (the rulebook's Markdown)
        self.memo = memo  # what the last check resolved (the preview's), or None
        # text fitting, shared by every painter of the build (and kept by the memo while the fonts are the same)
        self.fit_cache = memo.fit_cache if memo is not None else _Recent(RESOLVED_KEPT)
        self._measurer = self.painter(None)  # fits texts for placement, with no page to draw on
        # elements placed below a text follow its fitted lines: measured by the painter, which holds no studio
        # (a bound method of the studio would make a cycle, and all a check made be freed by the cyclic
        # collector's full pass rather than when its last user lets go: ~0.2 s for 10,000 cards)
        self.layouts.measure = self._measurer.text_height
        self._faces: dict[str, list[Printable]] | None = None  # component id -> its printables
        self._some: dict[str, list[Printable]] = {}  # the same, of the components of_one() asked for
        self._resolved = _Recent(RESOLVED_KEPT)  # printable key -> primitives
        self._paid: set[PrintableKey] = set()  # the printables whose resolving the drawing budget was spent for
        self._reads = _Recent(RESOLVED_KEPT)  # printable key -> what resolving it read (model/reads.py)
        # printable key -> the icons its primitives resolved whole draw, noted as they are resolved and kept past
        # _resolved's bound: the rulebook's credit of the icons printed resolved every face again once more than
        # RESOLVED_KEPT were checked (a second resolving of a 10,000-card deck, a seventh of validating it)
        self._icons: dict[PrintableKey, frozenset[str]] = {}
        # layout name -> (primitives, reads) of a layout that reads nothing of its item (a deck's backs), resolved
        # whole: the same for each of its printables, which without a memo keeping an entry for each are served
        # from here (10,000 backs, one entry)
        self._same: dict[str, tuple[list[Prim], frozenset[Any]]] = {}
        self.problems: Problems = []  # (message, mark) found while walking
        self._looks: dict[PrintableKey, str] = {}  # printable key -> look
        self._prim_bytes: dict[int, tuple[Prim, bytes]] = {}  # id of a primitive -> (it, its bytes in a look)
        self._picture_digests: dict[str, str] = {}  # an image element's src -> its file's digest (_picture_digest)
        self._data_digests: dict[tuple[str, int], str] = {}  # (component id, item index) -> data
        self._constant_looks: dict[str, str] = {}  # layout name -> the look of a layout that reads nothing of its item
        # (component id, id(item)) -> the error messages a draft prints over that item's faces
        self.marks: dict[tuple[str, int], list[str]] = {}

    @property
    def page_title(self) -> str:
        """What each printed sheet's footer calls the game: a draft says on every page that it is one."""
        return f"DRAFT, not for print · {self.game.title}" if self.options.draft else self.game.title

    def kind(self, component: "Component") -> "Kind":
        return KINDS[component.kind]

    def context(self, **extra: Any) -> dict[str, Any]:
        """What the game's templates see, and whether the kit is printed to save ink (`ink_saver`)."""
        return self.game.context(ink_saver=self.options.ink_saver, **extra)

    # -- the walk ----------------------------------------------------------------------------------------
    def printables(self) -> list["Printable"]:
        """Every printable of the game, component by component in manifest order."""
        return [p for c in self.game.components for p in self.of(c)]

    def of(self, component: "Component") -> list["Printable"]:
        """The printables of one component (computed once; a component whose printables cannot be worked
        out prints nothing, and why is in `problems`)."""
        if self._faces is None:
            self._faces = {}
            for c in self.game.components:
                try:
                    self._faces[c.id] = self._some[c.id] if c.id in self._some else self.kind(c).printables(c, self)
                except (DataError, LayoutError) as e:
                    self._faces[c.id] = []
                    self.problems.extend(getattr(e, "problems", None) or [(e.message, e.mark)])
            every = [p for faces in self._faces.values() for p in faces]
            if self._sizes_budget:
                self.budget.allow_faces(len(every), sum(p.copies for p in every))
        note_all(self.game.components_read())  # which items it prints
        return self._faces.get(component.id, [])

    def of_one(self, component: "Component") -> list["Printable"]:
        """The printables of one component, the others' not worked out yet (the preview's first step: the
        rulebook's take long); of() takes them from here. A component whose printables cannot be worked out
        has none here; of() says why."""
        if self._faces is not None:
            return self.of(component)
        if component.id not in self._some:
            try:
                self._some[component.id] = self.kind(component).printables(component, self)
            except (DataError, LayoutError):
                return []
        note_all(self.game.components_read())
        return self._some[component.id]

    def resolve(self, printable: "Printable", problems: list[Any] | None = None) -> list[Prim]:
        """The primitives of a printable, resolved once per build. With a `problems` list, failing elements
        are reported there and left out; without, the first failure raises LayoutError."""
        same = self._same.get(printable.layout) if self._same and not printable.extra else None
        if same is not None:
            note_all(same[1])
            return same[0]
        prims = self._resolved.get(printable.key)
        if prims is None:
            if problems is None and self.options.draft:  # a draft draws what it can: checking said the rest
                problems = []
            if printable.key in self._paid:  # (resolved in this command, let go from memory since)
                with self.budget.paid_for():
                    kept = self._recalled(printable, problems)
            else:
                self._paid.add(printable.key)
                with self.budget.face(printable.key):  # (its steps spent from its own allowance first)
                    kept = self._recalled(printable, problems)
            if isinstance(kept, list):  # resolved now
                return kept
            prims, self._reads[printable.key] = kept
            self._resolved[printable.key] = prims
            self._icons[printable.key] = _icon_names(prims)
        note_all(self._reads.get(printable.key, ()))  # whoever asks (the rulebook's pictures) read that too
        return prims

    def _recalled(self, printable: "Printable",
                  problems: list[Any] | None) -> "list[Prim] | tuple[list[Prim], frozenset[Any]]":
        """(primitives, reads) the memo kept for a printable, or its primitives resolved now."""
        kept = self.memo.recall(self, printable) if self.memo is not None else None
        return self._resolved_now(printable, problems) if kept is None else kept

    def _resolved_now(self, printable: "Printable", problems: list[Any] | None) -> list[Prim]:
        """resolve()'s work when nothing kept it: the layout evaluated for the item, noting the tables read."""
        before = len(problems) if problems is not None else 0
        spent = self.budget.spent
        with recording() as reads:  # its layout's files too (a layout file's edit reaches it)
            resolver = self.layouts.resolver(printable.layout, printable.mark)
            prims = resolver.resolve(printable.item, problems, dict(printable.extra))
        if problems is None or len(problems) == before:  # keep only what resolved whole
            self._resolved[printable.key] = prims
            self._reads[printable.key] = read = frozenset(reads)
            self._icons[printable.key] = _icon_names(prims)
            if self.memo is not None:
                self.memo.keep(self, printable, prims, read, self.budget.spent - spent)
            elif resolver.constant and not printable.extra:
                self._same[printable.layout] = (prims, read)
        return prims

    def forget(self, printables: "Iterable[Printable]") -> None:
        """Resolve these printables again when next asked (the memo gives them back, their steps spent again):
        the preview's first step checked them before the whole game's check, which spends the game's budget
        again in its own order, so as to run out where a fresh check does."""
        for printable in printables:
            for key in (printable.key, ("ink saver",) + printable.key):
                self._resolved.pop(key, None)
            self._reads.pop(printable.key, None)
            self._icons.pop(printable.key, None)
            self._paid.discard(printable.key)

    def reads_of(self, printable: "Printable") -> frozenset[Any] | None:
        """What resolving a printable whole read (model/reads.py); None when it was not (its failing elements
        left out)."""
        same = self._same.get(printable.layout) if self._same and not printable.extra else None
        return same[1] if same is not None else self._reads.get(printable.key)

    def remembered(self, key: tuple[Any, ...], compute: "Callable[[], Any]") -> Any:
        """compute()'s value, or the last check's when nothing it read changed (the preview's memo)."""
        return compute() if self.memo is None else self.memo.fields.value(key, compute)

    def kept(self, key: tuple[Any, ...], compute: "Callable[[], Any]") -> Any:
        """remembered()'s value, with what computing it added to the studio (adding) added again when it is
        the last check's."""
        def computed() -> tuple[Any, dict[str, Any]]:
            with self.adding() as effects:
                value = compute()
            return value, effects

        value, effects = self.remembered(key, computed)
        self.took(effects)
        return value

    @contextlib.contextmanager
    def adding(self) -> Iterator[dict[str, Any]]:
        """Collect what the block adds to the studio and game, to add it again when its result is taken
        from a cache (took): the icons and files looked up, the products' cached results."""
        icons, files, cache = set(self.icons.used), set(self.game.used_files), dict(self.cache)
        paid = len(self.budget.pixel_work)  # and the pictures' work it paid for, paid for again when taken
        effects: dict[str, Any] = {}
        try:
            yield effects
        finally:
            effects.update(icons=frozenset(self.icons.used - icons), files=frozenset(self.game.used_files - files),
                           cache={k: v for k, v in self.cache.items() if cache.get(k, self) is not v},
                           pixels=tuple(self.budget.pixel_work[paid:]))

    def took(self, effects: dict[str, Any]) -> None:
        """Add what a block added (adding), its result taken from a cache."""
        self.icons.used |= effects["icons"]
        self.game.used_files |= effects["files"]
        for key, value in effects["cache"].items():
            self.cache.setdefault(key, value)
        for work, pixels, mark, shown in effects["pixels"]:  # (once per command: work paid for is not again)
            self.budget.spend_pixels(work, pixels, mark, shown)

    def data_digest(self, printable: "Printable") -> str:
        """The digest of a printable's item data (one per item)."""
        data_key = (printable.component.id, printable.index)
        data = self._data_digests.get(data_key)
        if data is None:
            data = self._data_digests[data_key] = _digest_of(printable.item)
        return data

    def printed(self, printable: "Printable", resolved: list[Prim] | None = None) -> list[Prim]:
        """The primitives as they go on paper: resolved (`resolved`, when the caller just resolved it whole),
        and lightened by the ink saver when it is on."""
        if not self.options.ink_saver:
            return self.resolve(printable) if resolved is None else resolved
        key = ("ink saver",) + printable.key
        prims = self._resolved.get(key)
        if prims is None:
            layout = self.layouts.get(printable.layout)
            whole = self.resolve(printable) if resolved is None else resolved
            prims = self._resolved[key] = ink_saved(whole, layout.width, layout.height)
        return prims

    def fingerprint(self, printable: "Printable", prims: list[Prim] | None = None) -> tuple[str, str]:
        """What a face shows and what it is made from, as two short digests: its primitives as drawn
        (positions, styles, texts; not where in the files they were written) and its item's data. Kept in
        the manifest, so `pnp changes` can tell which faces a later edit changed. Taken while the face is
        drawn, when its primitives are at hand, so a large deck is not resolved a second time for it."""
        return self.shown_digest(printable, prims), self.data_digest(printable)  # (look, data)

    def shown_digest(self, printable: "Printable", prims: list[Prim] | None = None) -> str:
        """The digest of what a face shows as drawn: its look, and a draft's errors marked over it."""
        look = self.look(printable, prims)
        messages = self.marks.get(marked_key(printable)) if self.marks and printable.side != "picture" else None
        if messages:  # a draft's face drawn marked with its errors: not what the item prints once they are fixed
            look = hashlib.sha256("\0".join([look, *messages]).encode()).hexdigest()[:16]
        return look

    def look(self, printable: "Printable", prims: list[Prim] | None = None) -> str:
        """The digest of a face's primitives as drawn (fingerprint's first part), once per build."""
        found = self._looks.get(printable.key)
        if found is None:
            found = self._looks[printable.key] = self._look(printable, prims)
        return found

    def _look(self, printable: "Printable", prims: list[Prim] | None) -> str:
        """The digest of a face's primitives; a layout that reads nothing of its item (every card back)
        looks the same for all, and is digested once; primitives the memo kept, once while kept."""
        constant = not printable.extra and self.layouts.constant(printable.layout)
        if constant and printable.layout in self._constant_looks:
            return self._constant_looks[printable.layout]
        prims = self.printed(printable) if prims is None else prims
        kept = self.memo.looks.get(printable.key) if self.memo is not None else None
        if kept is not None and kept[0] is prims:  # the same list (held there): nobody changes a primitive
            return kept[1]
        digest = hashlib.sha256(b"".join(map(self._drawn_bytes, prims))).hexdigest()[:16]
        if constant:
            self._constant_looks[printable.layout] = digest
        if self.memo is not None:
            self.memo.looks[printable.key] = (prims, digest)
        return digest

    def _drawn_bytes(self, prim: Prim) -> bytes:
        """What a face's look digests of one primitive (how it is drawn), written once per primitive in this
        command: the primitives an element shares between faces (_by_reads) are written once, not per face."""
        known = self._prim_bytes.get(id(prim))
        if known is not None and known[0] is prim:
            return known[1]
        fields = (prim.kind, prim.x, prim.y, prim.w, prim.h, prim.points, prim.style, prim.text, prim.rotate,
                  prim.thumbnail)
        try:
            written = marshal.dumps(fields, LOOK_FORMAT)
        except ValueError:  # a value marshal cannot write: its text stands in
            written = repr(fields).encode()
        if prim.kind == "image":  # what the picture shows: its file redrawn under the same name, the face changed
            written += self._picture_digest(prim.text).encode()
        self._prim_bytes[id(prim)] = (prim, written)  # (held: its id names no other primitive while kept)
        return written

    def _picture_digest(self, src: str) -> str:
        """The digest of the picture file an image element names (_file_digest: read once while unchanged), once
        per command; one outside the project or missing by that alone (validation says why): a card whose art was
        saved over was not in `build --changed-since`'s reprint, nor in `pnp changes` ("nothing changed")."""
        found = self._picture_digests.get(src)
        if found is None:
            path = self.game.layout_folder / src
            try:
                self.project.inside(path, built=True)
                found = _file_digest(self.project, str(path), os.lstat(path))
            except (DataError, OSError, ValueError):
                found = "unread"
            self._picture_digests[src] = found
        return found

    def icons_used(self) -> set[Path]:
        """Icon files (aliases resolved, links followed) that the printed components and the rulebook really draw."""
        names: set[str] = set()
        for p in self.printables():
            found = self._icons.get(p.key)
            names.update(_icon_names(self.resolve(p)) if found is None else found)
        names.update(icons_shown(self))
        return {path for n in names if (path := self.icons.path(n)) is not None}

    def mark_data_errors(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """Mark the items that errors found in the data name (the item whose entry holds the error's line),
        for a draft: errors found while checking a printable marked their item already. Returns the errors
        that concern no one item (the game's own)."""
        if not any(d.severity == "error" for d in diagnostics):
            return []  # a clean build: nothing to mark, no index of the items' lines to make
        lines = self._item_lines()
        whole_game: list[Diagnostic] = []
        data: dict[tuple[str, int], list[str]] = {}
        for d in diagnostics:
            if d.severity != "error" or d.item is not None or d.consequence:
                continue
            keys = _items_at(lines.get(d.mark.file) if d.mark else None, d.mark.line if d.mark else 0)
            if not keys:
                whole_game.append(d)
            for key in keys:
                data.setdefault(key, []).append(d.message)
        for key, messages in data.items():  # the data's own errors first: the layout's follow from them
            self.marks[key] = messages + self.marks.get(key, [])
        return whole_game

    def _item_lines(self) -> dict[str, list[tuple[int, tuple[str, int]]]]:
        """{data file: sorted [(first line of an item's entry, its marked_key)]} over every printed item."""
        starts: dict[str, set[tuple[int, tuple[str, int]]]] = {}
        for component in self.game.components:
            for p in self.of(component):
                mark = getattr(p.item, "mark", None)
                if p.item is not None and mark is not None and mark.line:
                    starts.setdefault(mark.file, set()).add((mark.line, marked_key(p)))
        return {file: sorted(found, key=lambda row: row[0]) for file, found in starts.items()}

    # -- drawing -----------------------------------------------------------------------------------------
    def painter(self, canvas: "Canvas | None") -> Painter:
        return Painter(canvas, self.fonts, self.icons, self.game.project, self.game.layout_folder, self.fit_cache,
                       self.budget)

    def draw(self, canvas: "Canvas", painter: Painter, printable: "Printable", x: float, y: float, shared: bool = False,
             clip: float | tuple[float, float, float, float] | None = None) -> None:
        """A printable with its trim's bottom-left corner at (x, y), clipped to its trim grown by `clip`: the
        bleed on every side, or (left, bottom, right, top); the build's bleed when not given. `shared` stores
        identical faces (every card back) once in the PDF; so is a face printed more than once."""
        layout = self.layouts.get(printable.layout)
        messages = self.marks.get(marked_key(printable)) if self.marks else None
        if messages and printable.side != "picture":
            prims = self._marked(printable, layout, messages)
        else:
            prims = self.printed(printable)
        self.charge(printable, prims)  # (paid already when the check drew it: it checks every printable)
        clip = self.bleed if clip is None else clip
        if not isinstance(clip, tuple):
            clip = (clip,) * 4
        if shared or printable.copies > 1:
            paper.shared_item(canvas, painter, prims, x, y, layout.width, layout.height, clip,
                              f"{printable.layout}|{self.shown_digest(printable, prims)}", max(layout.bleed, *clip))
        else:
            paper.item(canvas, painter, prims, x, y, layout.width, layout.height, clip)

    def charge(self, printable: "Printable", prims: list[Prim]) -> None:
        """Spend what painting a printable's drawing (`prims`) costs, once per distinct drawing (its look) in
        this command, as often as its kind's build paints it: the check does it for every printable, so
        whichever faces are painted after, or kept from a preview's last refresh and not painted again, the
        game's verdict is the same."""
        with self.budget.face(printable.key):  # (painting a face spends its allowance too)
            self.budget.spend_drawing(self.look(printable, prims), prims, self._measurer.icon_paints,
                                      self.kind(printable.component).paintings)

    def _marked(self, printable: "Printable", layout: "Layout", messages: list[str]) -> list[Prim]:
        """A draft's face of an item with errors: what of it can be drawn (elements that fail left out), under
        a red frame and a panel saying DRAFT and the errors, so it cannot pass for a finished card."""
        try:
            prims = list(self.resolve(printable))
        except (DataError, LayoutError, ExprError):  # the layout itself cannot be had: the mark alone
            prims = []
        return prims + draft_mark(layout.width, layout.height, messages)


def marked_key(printable: "Printable") -> tuple[str, int]:
    """How a draft's marks name a printable's item: the same data item in a selection's copy of the game too."""
    return (printable.component.id, id(printable.item))


def draft_mark(width: float, height: float, messages: list[str]) -> list[Prim]:
    """The primitives of a draft's mark over a face of `width` x `height` points: a red frame inside the trim
    and a white panel across the middle with the errors in red (7 pt, shrinking to 6)."""
    inset, red = min(width, height) * 0.04, "#d0021b"
    panel_h = min(height * 0.5, max(height * 0.3, 60.0))
    said = "DRAFT: " + "; ".join(dict.fromkeys(messages))
    text = shortened(said, 400)
    frame = {"fill": None, "stroke": red, "stroke_width": 2.0, "dash": None, "opacity": 1}
    panel = {"fill": "#ffffff", "stroke": red, "stroke_width": 1.0, "dash": None, "opacity": 1}
    top = (height - panel_h) / 2
    style = {"font": "Body", "size": 7.0, "min_size": 6.0, "leading": 1.1, "align": "left", "valign": "middle",
             "color": red, "max_lines": 0}
    return [Prim("rect", inset, inset, width - 2 * inset, height - 2 * inset, style=frame),
            Prim("rect", inset, top, width - 2 * inset, panel_h, style=panel),
            Prim("text", inset + 3, top + 2, width - 2 * inset - 6, panel_h - 4, text=text, style=style)]


def _items_at(rows: list[tuple[int, tuple[str, int]]] | None, line: int) -> list[tuple[str, int]]:
    """The marked keys of the items whose entry holds `line` (the last to start at or before it; every
    component printing that item)."""
    if not rows or not line:
        return []
    at = bisect.bisect_right([start for start, _ in rows], line) - 1
    if at < 0:
        return []
    return [key for start, key in rows if start == rows[at][0]]
