"""Layout files: size, bleed, safe area, vars and elements, with `extends:` followed and every key checked.
A layout is found as layouts/<game>/NAME.yaml, then layouts/shared/NAME.yaml."""

import re
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import units
from ..errors import DataError, LayoutError
from ..model.load import Record, load_file
from ..model.reads import FILE, SIZE, note, note_files
from ..options import converted, did_you_mean, shown_number, type_name
from ..report import QUOTE_LIMIT, Mark, named, shortened, shown
from . import params as P
from .budget import DrawingBudget
from .compile import Compiled, compile_elements
from .elements.base import hides_reserved
from .place import Measure, Placement, plan
from .resolve import KeptElements, Resolver
from .styles import STYLES_FILE, StyleSet
from ..project import Project, present

NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*\Z")


class Size(P.Param):
    """A component size: a named size, [width, height], or 'W x H'."""

    kind = "size"
    unit = "a name (" + ", ".join(units.CARD_SIZES) + "), `[w, h]` or `'w x h'`"

    def convert(self, value: object) -> tuple[float, float]:
        w, h = units.size(value)
        for side in (w, h):
            # at least 1 mm: a side of 0.001 mm is no pixel at any export's resolution (a traceback there)
            if not units.MM <= side <= 2000 * units.MM:
                raise ValueError(f"each side is at least 1 and at most 2000 mm, got {shown_number(side / units.MM)} mm")
        return w, h


MAX_EXTENDS_DEPTH = 50  # layouts each extending the next (text styles may extend 50 deep too)

# The keys of a layout file. Component kinds add their own (a die's `net`, a token's `shape`).
LAYOUT_PARAMS = {
    "extends": P.Name(None, "another layout this one builds on: its settings, vars and elements come first (50 "
                            "deep at most)"),
    "size": Size("=the extended layout's", "the trim size"),
    "bleed": P.Length("3mm", "art beyond the trim that the layout provides (rects with `bleed: true` reach it)",
                      minimum=0, maximum=25),
    "safe": P.Length("3mm", "text on cut components (cards, tokens, a die's faces) must stay this far inside the cut line, whatever its shape (a warning; one that leaves no safe area is said once)", minimum=0,
                     maximum=500),
    "radius": P.Length(0, "corner radius of the cut of cards, aids and square or rounded tokens; refused where "
                          "the cut has no such corners (a circle, hex or uncut token, a die, a board)",
                       minimum=0),
    "vars": P.Variables({}, "names every template of the layout sees (also as `vars.NAME`): colours, lookups; "
                            "values as written, not templates"),
    "elements": P.Elements([], "what is drawn, in order, later elements over earlier ones"),
    "doc": P.Note(None, "a note for people reading the layout"),
}




@dataclass
class Layout:
    name: str
    file: str
    width: float  # points
    height: float
    bleed: float  # points of art beyond the trim line the layout provides
    safe: float
    radius: float
    vars: dict[str, Any]
    elements: list[Compiled]
    spec: Record  # the file's keys over its parents'
    options: dict[str, Any] = field(default_factory=dict)  # converted values of the keys component kinds add
    chain: list[str] = field(default_factory=list)  # files, child first
    placement: Placement[Compiled] | None = None  # when elements are placed against each other

    @property
    def size_mm(self) -> list[float]:
        return [units.to_mm(self.width), units.to_mm(self.height)]


class KeptLayouts:
    """Layouts read by the earlier LayoutSets of one game (the preview's refreshes), kept while their files
    are the same: a layout is its files' text compiled, whatever the data. `files` lists every file read as a
    layout (those whose change forgets only the layouts made from them: see forget)."""

    def __init__(self, elements: KeptElements | None = None) -> None:
        self.layouts: dict[str, Layout] = {}  # name -> the layout read and checked whole
        self.files: set[str] = set()  # project-relative paths of the files read as layouts
        self.elements = elements  # what the layouts' elements resolved to, kept too (the preview's), or None

    def forget(self, changed: set[str] | None) -> dict[str, "Layout"]:
        """Forget the layouts made from any of these files (their own or one they extend); all with None.
        Returns those forgotten (name -> layout)."""
        if changed is None:
            gone, self.layouts, self.files = self.layouts, {}, set()
            if self.elements is not None:
                self.elements = KeptElements()
            return gone
        gone = {name: layout for name, layout in self.layouts.items() if not changed.isdisjoint(layout.chain)}
        self.layouts = {name: layout for name, layout in self.layouts.items() if name not in gone}
        return gone


def _layout_name(name: str | None, mark: Mark | None) -> str:
    """`name`, refused (LayoutError at `mark`, the asker's) when it cannot name a layout."""
    if not isinstance(name, str) or not NAME.match(name) or ".." in name.split("/"):
        raise LayoutError(f"{named(name)} is not a layout name (letters, digits, '-', '_' and '/' between "
                          "folders)", mark)
    if name == STYLES_FILE:  # (read as a layout, each style was said to be an unknown key of it, in a file with
        # no mistake)
        raise LayoutError(f"'{STYLES_FILE}' is the game's text styles ({STYLES_FILE}.yaml), not a layout", mark)
    return name


class LayoutSet:
    """A game's layouts, read and checked once each; `resolver(name)` evaluates one for items. Looking one up
    notes its files as read (model/reads.py), so what a layout file's edit reaches is known; `kept` gives the
    layouts read by earlier sets whose files are unchanged."""

    def __init__(self, project: Project, game_id: str, context: dict[str, Any],
                 options: dict[str, P.Param] | None = None, budget: DrawingBudget | None = None,
                 kept: KeptLayouts | None = None) -> None:
        self.project, self.game_id, self.context = project, game_id, context
        self.budget = budget or DrawingBudget()  # the game's drawing steps, which resolving spends
        self.folders = [project.layouts / game_id, project.shared_layouts]
        self.options = dict(options or {})  # kind-specific layout keys: name -> Param
        self.styles = StyleSet(project, game_id)
        self._layouts: dict[str, Layout | LayoutError] = {}  # a file's problems are remembered too
        self._files: dict[str, tuple[str, ...]] = {}  # name -> the files reading it read (its own, its parents')
        self._known_names: dict[tuple[Path, ...], tuple[str, ...]] = {}  # (_known's, once a list of folders)
        self.kept = kept if kept is not None else KeptLayouts()
        self.elements = self.kept.elements
        self._resolvers: dict[str, Resolver] = {}
        self.using: list[str] = []  # layouts being resolved through `use`, to refuse one that uses itself
        # text primitive -> the height its lines take once fitted (set by the studio)
        self.measure: Measure | None = None


    def _known(self, folders: tuple[Path, ...]) -> tuple[str, ...]:
        """The layouts of `folders` (the game's, or the shared one alone), as 'not found' suggests one: listed
        once per set (200 components naming missing layouts beside 2,000 layout files listed both folders for
        each: 19 s, 400 MB), the same tuple each time so the suggestions' bound counts its cost once."""
        known = self._known_names.get(folders)
        if known is None:
            known = self._known_names[folders] = tuple(p.stem for f in folders if f.is_dir()
                                                       for p in f.glob("*.yaml") if p.stem != STYLES_FILE)
        return known

    def path(self, name: str | None, mark: Mark | None = None) -> Path:
        name = _layout_name(name, mark)
        looked: list[str] = []
        for folder in self.folders:
            candidate = folder / f"{name}.yaml"
            looked.append(self.project.rel(candidate))
            if present(candidate):
                try:
                    self.project.inside(candidate, mark, "layout")
                except DataError as e:
                    # a refusal is the answer of the files looked at: their edit (a link made a file again)
                    # must reach what asked, as an edit of a layout read does (model/reads.py)
                    note_files(looked)
                    raise LayoutError(e.message, e.mark) from None
                return candidate
        note_files(looked)
        folders, looked = self._looked_for(name, mark, looked)
        where = " or ".join(shortened(path, 2 * QUOTE_LIMIT) for path in looked)  # (a path holds the name)
        # a file named alike in another case or Unicode form (a game made on a Mac, where 'BACK' opens back.yaml)
        alike = next((hint for folder in folders if (hint := self.project.meant(folder, f"{name}.yaml"))), "")
        hint = alike or did_you_mean(name, self._known(tuple(folders)))
        raise LayoutError(f"layout {named(name)} not found{hint} (looked for {where})", mark)

    def _looked_for(self, name: str, mark: Mark | None, looked: list[str]) -> tuple[list[Path], list[str]]:
        """The folders a missing layout is said to be looked for in, and their files as said: for a shared
        layout's `extends:` (each game looks in its own folder) in words alike for every game, so that it is
        said once (it named each game's folder, and was said once per game using it)."""
        shared = self.project.rel(self.project.shared_layouts).rstrip("/") + "/"
        if mark is None or not mark.file.startswith(shared):
            return self.folders, looked
        return [self.project.shared_layouts], [f"{shared}{name}.yaml", f"the game's own layouts/<game>/{name}.yaml"]

    def get(self, name: str | None, mark: Mark | None = None, _stack: tuple[str, ...] = ()) -> Layout:
        """The layout, or a LayoutError listing every problem of its file (remembered: said once)."""
        found = self._found(name, mark, _stack)
        note_files(found.chain)
        return found

    def size(self, name: str | None, mark: Mark | None = None) -> tuple[float, float]:
        """The layout's (width, height) in points, noted as read alone (a rulebook's picture of a card is as
        large as the card, whatever its colours), or get()'s LayoutError."""
        found = self._found(name, mark, ())
        note(((FILE, found.file), 0, SIZE))
        return found.width, found.height

    def _found(self, name: str | None, mark: Mark | None, _stack: tuple[str, ...]) -> Layout:
        """get()'s layout, its files not noted as read (a LayoutError's are)."""
        if name in _stack:
            raise LayoutError(f"layouts extend each other in a circle: {' -> '.join(_stack + (name,))}", mark)
        if len(_stack) >= MAX_EXTENDS_DEPTH:  # (each is read inside the one it extends: 320 deep broke Python's stack)
            raise LayoutError(f"layouts extend each other more than {MAX_EXTENDS_DEPTH} deep ({_stack[0]} -> "
                              f"{_stack[1]} -> ... -> {_stack[-1]} -> {name})", mark)
        found = self._layouts.get(name) if name is not None else None
        if found is None:
            found = self.kept.layouts.get(name) if name is not None else None
        if found is None:
            self.path(name, mark)  # a name that finds no file is the asker's mistake: said at the asker's mark
            assert name is not None  # path() refused it
            try:
                found = self._read(name, _stack, mark)
                self.kept.layouts[name] = found
            except LayoutError as e:
                found = e
            self._layouts[name] = found
        if isinstance(found, LayoutError):
            note_files(self._files.get(name or "", ()))
            raise found
        return found

    def resolver(self, name: str, mark: Mark | None = None) -> Resolver:
        layout = self.get(name, mark)  # its files noted as read, each time
        if name not in self._resolvers:
            # (held weakly by its resolvers, which it holds: no cycle, so a check's layouts and everything
            # their resolvers made are freed when the check's studio is let go, not by a full collection)
            self._resolvers[name] = Resolver(layout, weakref.proxy(self), self.context)
        return self._resolvers[name]

    def constant(self, name: str) -> bool:
        """Whether the layout reads nothing of its item (Resolver.constant). Its files are not noted as read
        once it has a resolver: whoever resolved a printable of it noted them."""
        found = self._resolvers.get(name)
        return (found if found is not None else self.resolver(name)).constant

    def _read(self, name: str, stack: tuple[str, ...], mark: Mark | None) -> Layout:
        path = self.path(name, mark)
        shown = self.project.rel(path)
        self._files[name] = (shown,)
        self.kept.files.add(shown)
        try:
            spec = load_file(self.project.inside(path, mark, "layout"), shown, self.project.root)
        except DataError as e:  # (LoadError too; inside's, for a file changed since path())
            raise LayoutError(e.message, e.mark) from None
        if not isinstance(spec, Record):
            raise LayoutError(f"a layout is a mapping with size and elements, got {type_name(spec)}", Mark(shown, 1, 1))
        problems: list[tuple[str, Mark | None]] = []
        values = self._values(spec, problems)
        parent = None
        if values.get("extends"):
            try:
                parent = self.get(values["extends"], spec.mark_of("extends"), stack + (name,))
            except LayoutError as e:
                problems.extend(e.problems)
            self._files[name] += tuple(parent.chain) if parent is not None else self._files.get(values["extends"], ())
        if "size" not in spec and parent is None and not problems:
            problems.append(("layout needs a 'size' (poker, bridge, mini, tarot, square or [w, h])", Mark(shown, 1, 1)))
        elements = compile_elements(values.get("elements", []), spec.mark_of("elements"), self.styles, problems)
        if problems:
            raise LayoutError(problems[0][0], problems[0][1], problems)
        layout = self._layout(name, shown, spec, values, parent, elements)
        if layout.radius > min(layout.width, layout.height) / 2 + 1e-6:  # its corners' curves crossed: a bow-tie cut
            problems.append((f"radius: {shown_number(layout.radius / units.MM)} mm is more than half the layout's "
                             f"{shown_number(min(layout.width, layout.height) / units.MM)} mm side: the cut's corners would "
                             "cross each other", spec.mark_of("radius" if "radius" in spec else "size")))
        layout.placement = plan(layout.elements, problems)
        if problems:
            raise LayoutError(problems[0][0], problems[0][1], problems)
        return layout

    def _values(self, spec: Record, problems: list[tuple[str, Mark | None]]) -> dict[str, Any]:
        """The file's own keys, checked and converted; a variable may not hide a name templates rely on."""
        known = {**LAYOUT_PARAMS, **self.options}
        values: dict[str, Any] = {}
        for key in spec:
            if key not in known:
                problems.append((f"unknown layout key {named(spec.key_quoted(key))}{did_you_mean(key, known)}", spec.key_mark(key)))
                continue
            try:
                values[key] = converted(known[key], known[key].as_read(spec[key], spec.written_of(key)), spec.written_of(key))
            except ValueError as e:
                problems.append((f"{key}: {e}", P.refused_at(spec, key, e)))
                continue
            if (tiny := P.tiny_number_inside(known[key], spec, key)) is not None:
                problems.append(tiny)
        for name in values.get("vars", {}):
            if not isinstance(name, str):  # (`vars: {true: x}` or {1: x}: every template of the layout stopped in
                # Python's words, "keywords must be strings", at an element, not at the name)
                problems.append((f"vars: a variable's name is text, and {shown(spec['vars'].key_quoted(name))} is "
                                 f"{type_name(name)}: name it with letters, digits and _, as templates write it",
                                 spec["vars"].key_mark(name)))
            elif (hidden := hides_reserved("a variable", name)) is not None:
                problems.append((hidden, spec["vars"].key_mark(name)))
            elif (found := P.template_inside(spec["vars"], name)) is not None:
                problems.append((f"vars: '{name}' holds a template ({shown(found[0], 40)}), which a variable prints "
                                 "as written, braces and all: a layout's vars are values; compute it in the "
                                 "element that prints it (or in a macro)", found[1]))
        return values

    def _layout(self, name: str, shown: str, spec: Record, values: dict[str, Any], parent: Layout | None,
                elements: list[Compiled]) -> Layout:
        def pick(key: str) -> Any:
            if key in values:
                return values[key]
            return getattr(parent, key) if parent else LAYOUT_PARAMS[key].initial()

        if "size" in values:
            width, height = values["size"]
        else:
            assert parent is not None  # a layout with no size of its own extends one (else _read refused it)
            width, height = parent.width, parent.height
        options = {**(parent.options if parent else {}),
                   **{k: v for k, v in values.items() if k in self.options}}
        return Layout(
            name=name, file=shown, width=width, height=height, bleed=pick("bleed"), safe=pick("safe"),
            radius=pick("radius"), vars={**(parent.vars if parent else {}), **dict(values.get("vars") or {})},
            elements=(parent.elements if parent else []) + elements,
            spec=spec.merged_over(parent.spec) if parent else spec, options=options,
            chain=[shown] + (parent.chain if parent else []),
        )

