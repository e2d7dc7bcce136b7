"""A game: game.yaml's metadata, rules model, data tables and component manifest, loaded and validated."""

import math
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataError, LoadError, why_not_read
from ..project import Project, present, read_project_file, utf8_text
from ..report import Mark, Report, bounded_suggestions, named, shortened, suggestions_bounded
from ..template import ExprError, MissingMacros, module
from .balance import BALANCE_FIELDS, check_balance_syntax
from .colours import COLOUR_SET_FIELDS, check_colour_sets
from .components import COMPONENT_FIELDS, Component, Kinds, load_components, template_printed_as_written
from .constraints import CONSTRAINT_FIELDS, check_constraints
from .glossary import Glossary, load_glossary, load_timings
from .icons import IconIndex
from .reads import (ALL, MEMBERS, FieldCache, Reaching, Read, Tables, note_all, reading, recording, refusing_reads,
                    track)
from .load import MAX_FILE_BYTES, MarkedList, Record, load_data_file, shown, values_allowance
from ..options import did_you_mean
from .schema import INVALID, Enums, Schema, repeated_value
from .shapes import CheckerShape
from .tables import TABLE_FIELDS, check_tables, derive, load_tables
from .views import VIEW_FIELDS, check_views

# The shape of game.yaml, written in the rules model's own field types (and listed by `pnp reference`).
GAME_FILE = {
    "title": {"type": "scalar", "doc": "the game's name, on the rulebook's title page and every PDF, as written "
                                       "(not a template, as none of game.yaml's texts is)"},
    "subtitle": {"type": "scalar", "required": False, "doc": "a line under the title"},
    "players": {"type": "players", "doc": "how many play: 4, 2-5 or 3+"},
    "ages": {"type": "scalar", "doc": "e.g. 10+"},
    "time": {"type": "scalar", "doc": "how long a game takes, e.g. 30-45 minutes"},
    "credits": {"type": "map", "values": "scalar", "doc": "role: name, e.g. design: Ada Lovelace"},
    "version": {"type": "scalar", "required": False, "doc": "the edition of the rules and cards"},
    "description": {"type": "scalar", "required": False, "doc": "a sentence about the game"},
    "min_text_size": {"type": "number", "min": 6, "max": 72, "default": 6,
                      "doc": "the smallest text, in points, that may print on anything a player handles, from "
                             "the game's layouts (after shrinking to fit, and as printed by a `use` that draws it "
                             "smaller; a rulebook's pictures are exempt); 6 unless a game asks for more. The "
                             "rulebook's own text is set by pnp at its own sizes, 8 pt at the least (its page "
                             "footer), which this does not change: set above 8, validate warns at this key"},
    "icons": {"type": "map", "values": "str", "default": {},
              "doc": "icon aliases: a name used in data and layouts -> an icon file's name"},
    "enums": {"type": "map", "values": {"type": "list", "of": "scalar"}, "default": {},
              "doc": "named lists of values, used by `enum` fields and in templates as `enums.NAME`"},
    "rules": {"type": "any", "required": False,
              "doc": "the game's rule numbers (a mapping, or the name of a YAML file holding one), "
                     "seen by templates as `game.rules`"},
    "tables": {"type": "map", "values": {"type": "record", "fields": TABLE_FIELDS}, "default": {},
               "doc": "the data tables: name -> its file and fields (see Tables)"},
    "timings": {"type": "any", "required": False,
                "doc": "the turn structure: the names of the phases or steps of a turn and any other timing "
                       "words, as a list or a Jinja expression over the data (`data.turn | map(attribute="
                       "'title') | list + ['Any time']`); a `timing` field must hold one of them"},
    "glossary": {"type": "any", "required": False,
                 "doc": "the table (or list of tables) of the game's keywords, statuses and timing words: each "
                        "item has a `name` and its one rules `text` (and may have a `timing`). `[[Name]]` in "
                        "any text names a term (printed in bold; an undefined one is an error at its line); "
                        "templates print a rule with `keyword('Name').text` and list all with `glossary`"},
    "constraints": {"type": "list", "of": {"type": "record", "fields": CONSTRAINT_FIELDS}, "default": [],
                    "doc": "rules the data must keep, as Jinja expressions (see Constraints)"},
    "colour_sets": {"type": "list", "of": {"type": "record", "fields": COLOUR_SET_FIELDS}, "default": [],
                    "doc": "colours that tell players or categories apart: checked as colour-blind players see "
                           "them (see Colour sets)"},
    # at most 64 views: each chart takes some 50 ms to draw, so thousands of them ran for minutes
    "report": {"type": "list", "of": {"type": "record", "fields": VIEW_FIELDS}, "default": [], "max_items": 64,
               "doc": "the charts `pnp report` draws besides every table's own: each view one chart, at most 64 (see "
                      "Report views)"},
    "balance": {"type": "list", "of": {"type": "record", "fields": BALANCE_FIELDS}, "default": [],
                "doc": "rules over what `pnp simulate` measures by playing the game (win rates, game length, how "
                       "games end, each tracked item's rates): checked by pnp simulate, their syntax by validate"},
    "components": {"type": "any", "default": [],
                   "doc": "what is in the box: each component with its kind, items and layouts (see Components)"},
}


# What every template and expression of a game sees (the reference lists these).
CONTEXT = {
    "game": "game.yaml's keys: `game.title`, `game.players`, `game.rules.NAME`...",
    "data": "every table as a list of items: `data.cards | length`",
    "ref": "every table by id: `ref.cards['lion'].power`",
    "components": "the manifest: each component's `id`, `name`, `kind`, `count` and `items`",
    "enums": "game.yaml's enums: `enums.suit`",
    "macros": "the macros of layouts/<game>/macros.j2: `macros.NAME(...)`",
    "keyword": "`keyword('Paralyze')`: the glossary's entry for a term (by name or id, any case): `.name`, "
               "`.text` (its one rules text), `.timing`...; an unknown term is an error",
    "glossary": "every glossary term's entry, in order: `{% for k in glossary %}{{ k.name }}: {{ k.text }}`",
    "item": "in a constraint with `each`, a derived field or a filter: the item being checked",
}


# characters of a game's title that the report and the preview show: game.yaml sets no bound on it, a title of
# 30,000 words took ReportLab 40 s to set as the report's heading, and six titles of 15 MB made a preview index
# page of 94 MB (12 s to send)
TITLE_SHOWN = 200
RULES_BROKEN = "(rules)"  # in Game.broken: no table's name (a table is named as an id is, without brackets)


def shown_title(title: str) -> str:
    """A game's title as a page about it shows it: cut to TITLE_SHOWN characters."""
    return shortened(title, TITLE_SHOWN)


@dataclass
class Game:
    id: str
    project: Project
    # None only while game.yaml is unread (load_game returns such a game when it cannot read it: its callers
    # test `game.meta is None` first); every loading step after that reads a Record
    meta: Record = None  # type: ignore[assignment]
    enums: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, MarkedList] = field(default_factory=dict)
    components: list[Component] = field(default_factory=list)
    icons: IconIndex = None  # type: ignore[assignment]  # set with meta, before anything reads it
    glossary: Glossary = field(default_factory=Glossary)
    timings: list[str] | None = None  # the turn structure's phase and timing names (game.yaml's `timings`)
    _ref: dict[str, dict[Any, Record]] | None = None
    _views: tuple[Any, ...] | None = None  # what context() gives templates of the tables, components and glossary
    # layouts/<game>/macros.j2 as a Jinja module, when the game has one that loaded
    macros: Any = field(default_factory=lambda: MissingMacros("the game has no macros.j2 in its layouts folder"))
    macros_source: str = ""  # its text: what a cache of results over the data depends on besides the tables
    # tables whose files could not be read ("*": game.yaml's tables; RULES_BROKEN: the rules, written but unread)
    broken: set[str] = field(default_factory=set)
    dirty: set[tuple[str, int]] = field(default_factory=set)  # (table, index) of records with schema errors
    # each table's fields of enum values, with those values (tables.table_enums), from its schema (check_tables)
    enum_fields: dict[str, dict[str, list[object]]] = field(default_factory=dict)
    dropped: set[str] = field(default_factory=set)  # keys of game.yaml left out because their value was wrong
    used_files: set[Path] = field(default_factory=set)  # files read besides the game's own data (images)
    # what the components' items depend on (reads.py keys)
    component_reads: frozenset[Read] | None = frozenset((ALL,))  # None while the components are being made

    @property
    def title(self) -> str:
        # (a title validate refuses is held as None: `pnp list` and the preview's index said the game's title was 'None')
        title = self.meta.get("title") if self.meta else None
        return self.id if title is None else str(title)

    @property
    def shown_title(self) -> str:
        """The title as a page about the game heads it (the report, the preview): its first TITLE_SHOWN characters."""
        return shown_title(self.title)

    @property
    def folder(self) -> Path:
        return self.project.cards / self.id

    @property
    def layout_folder(self) -> Path:
        return self.project.layouts / self.id

    def component(self, cid: str) -> Component | None:
        return next((c for c in self.components if c.id == cid), None)

    def context(self, **extra: Any) -> dict[str, Any]:
        """What templates see: game metadata, data tables, `ref` (table -> id -> item), components, enums."""
        if self._ref is None:
            self.refresh()
        assert self._ref is not None  # refresh() made it
        seen = (self.glossary, self.tables, self._ref, self.components)
        views = self._views  # what templates read through them is noted (reads.py); a copy of the game has its own
        if views is None or any(a is not b for a, b in zip(views[0], seen)):
            terms = _weakly(self.glossary_reads)
            views = self._views = (seen, Tables(self.tables), Tables(self._ref),
                                   Reaching(self.components, _weakly(self.components_read)),
                                   reading(self.glossary.keyword, terms), Reaching(self.glossary.entries, terms))
        _, data, ref, components, keyword, glossary = views
        return {"game": self.meta, "data": data, "ref": ref, "components": components,
                "enums": self.enums, "macros": self.macros, "keyword": keyword, "glossary": glossary, **extra}

    def components_read(self) -> frozenset[Read]:
        """What reading the components reads: which items each holds (every table's membership, the fields its
        filter and quantity read)."""
        if self.component_reads is None:
            note_all((ALL,))  # (at the top of macros.j2, its own refusal is said: refusing_reads)
            raise ValueError(COMPONENTS_NOT_MADE)
        return self.component_reads

    def glossary_reads(self) -> tuple[tuple[str, None, None], ...]:
        """What finding a glossary term reads: anything in the glossary's tables (a term is found by any item's
        name or id)."""
        return tuple((name, None, None) for name in self.glossary.tables)

    def refresh(self, tables: Iterable[str] | None = None) -> None:
        """Rebuild the id lookups after tables change (derived fields were added): of `tables` alone when
        given (the others are as they were). The dict is updated in place, so macros that captured it see the
        new items."""
        if self._ref is None:
            self._ref = {}
        if tables is None:
            self._ref.clear()
        names = self.tables.keys() if tables is None else tables
        self._ref.update({name: {it["id"]: it for it in self.tables[name]
                                 if isinstance(it, Record) and _is_key(it.get("id"))} for name in names})

    def file(self, name: object, mark: Mark | None, what: str = "file") -> Path:
        """A file of this game's cards/ folder named in game.yaml (a table's, the rules'): it must be inside the
        project, and not in its output/ (a table read from an earlier build's folder, as pictures are not)."""
        if name == "":  # ("must be text, got ''" said text was not text)
            raise DataError(f"a {what} name is empty: name a file of {self.project.rel(self.folder)}/", mark)
        if not isinstance(name, str):
            raise DataError(f"{what} name must be text, got {shown(name)}", mark)
        return self.project.inside(self.folder / name, mark, what, shown=name, built=False)


def _is_key(value: object) -> bool:
    """An id that can name an item: text or a number (a list typed as an id is reported by its field)."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


class TableIds(list[Any]):
    """A table's ids, in order (what a suggestion is chosen from), with `in` answered by hashing: a ref field's
    check of every item looked through the whole list (quadratic in the table's size). An id that cannot be
    hashed (a list typed where an id should be, refused at its own line) is looked for as a list would. true and
    false are no number's id (Python counts them equal to 1 and 0: a ref `true` named the item of id 1, exit 0)."""

    def __init__(self, ids: Iterable[Any]) -> None:
        super().__init__(ids)
        self._hashed: set[Any] = set()
        self._unhashable: list[Any] = []
        for value in self:
            try:
                self._hashed.add(_id_key(value))
            except TypeError:
                self._unhashable.append(value)

    def __contains__(self, value: object) -> bool:
        try:
            if _id_key(value) in self._hashed:
                return True
        except TypeError:
            pass
        return any(value is other or _id_key(value) == _id_key(other) for other in self._unhashable)


def _id_key(value: object) -> tuple[bool, object]:
    """What an id is compared by: its value, and whether it is true/false."""
    return isinstance(value, bool), value


class Checker:
    """What field checks ask about the game while it loads; collects problems so one run reports all."""

    def __init__(self, game: Game, report: Report) -> None:
        self.game, self.report = game, report
        # one budget for the suggestions of the whole load: 3,000 items each naming 5 unknown icons compared
        # every one with every icon's name (17 s)
        self.suggestions = bounded_suggestions()
        self._ids: dict[str, tuple[object, int, TableIds]] = {}  # table -> (its items, their count, their ids)

    def ids(self, table: str) -> list[Any] | None:
        """The table's ids in order, made once per check of the table as it is (each ref field's check made the
        list again and looked through it: 5,000 cards naming one another took 8 s to load)."""
        items = self.game.tables.get(table)
        if items is None:
            return None
        kept = self._ids.get(table)
        if kept is None or kept[0] is not items or kept[1] != len(items):
            kept = self._ids[table] = (items, len(items), TableIds(it.get("id") for it in items))
        return kept[2]

    def icon_exists(self, name: str) -> bool:
        # (an alias refused at game.yaml's icons is taken as there: its error was said at its line)
        return self.game.icons.exists(name) or self.game.icons.said(name)

    def icon_names(self) -> list[str]:
        return self.game.icons.names()

    def timings(self) -> list[str] | None:
        return self.game.timings

    def unknown_terms(self, text: str) -> list[tuple[str, str]]:
        """(term, message) for each `[[Term]]` of a text that the glossary does not define."""
        return self.game.glossary.unknown(text, self.suggestions)

    def suggest(self, word: object, choices: Iterable[object], *, letters: bool = True) -> str:
        return self.suggestions(word, choices, letters=letters)

    def error(self, message: str, mark: Mark | None) -> None:
        self.report.error(message, mark, code="data")


def load_game(project: Project, game_id: str, report: Report, kinds: Kinds | None = None,
              cache: FieldCache | None = None, whole: bool = True) -> Game:
    """Load and validate one game; problems go to `report`. Returns the Game (possibly partial).
    `kinds` maps each component kind to what its components accept (see products); None skips kind checks.
    `cache`: the results of the last load (the preview's), derived fields and constraints taken from it when
    nothing they read changed (reads.py). `whole`: with the rules over the whole game (else the caller
    checks them later: check_whole_game). The game's data files share one allowance of values
    (load.MAX_GAME_VALUES): checking them takes time in proportion."""
    with values_allowance(), suggestions_bounded():
        return _load_game(project, game_id, report, kinds, cache, whole)


def _load_game(project: Project, game_id: str, report: Report, kinds: Kinds | None,
               cache: FieldCache | None, whole: bool) -> Game:
    game = Game(game_id, project)
    path = game.folder / "game.yaml"
    shown = project.rel(path)
    try:
        meta = load_data_file(project.inside(path), shown, project.root)  # parsed once per process for the same bytes
    except (LoadError, DataError) as e:
        report.add(e)
        return game
    if not isinstance(meta, Record):
        report.error("game.yaml must be a mapping of title, players, ..., tables, components", Mark(shown, 1, 1))
        return game
    chk = Checker(game, report)
    game.icons = IconIndex(project, [game.layout_folder / "icons", project.shared_layouts / "icons"])
    written_enums, written_icons = meta.get("enums"), meta.get("icons")
    game.meta = meta = _checked_meta(meta, chk, shown, game.dropped)
    if "tables" in game.dropped:
        game.broken.add("*")  # tables: was written but wrong: what depends on the tables would only repeat it
    game.icons.set_aliases(meta["icons"], chk, _refused(meta["icons"], written_icons, "icons" in game.dropped))
    game.icons.check_credits(chk)
    game.meta = meta = _load_rules(game, meta, chk)
    game.enums = Enums(meta["enums"], _refused(meta["enums"], written_enums, "enums" in game.dropped))
    for name, values in game.enums.items():
        if isinstance(values, list) and (repeated := repeated_value(values)):
            mark = values.mark_of(repeated[0]) if isinstance(values, MarkedList) else meta.mark_of("enums")
            chk.error(f"enum {named(name)} lists {repeated[1]}: write each once", mark)
    game.component_reads = None  # (reading the components is refused until they are made)
    load_tables(game, meta["tables"], chk)
    game.glossary = load_glossary(game, meta, chk)
    timings = load_timings(game, meta, chk)  # (each timing field's value looked for in it: by hashing, as an id)
    game.timings = timings if timings is None else TableIds(timings)
    check_tables(game, meta["tables"], chk, cache.checks if cache is not None else None)
    _load_macros(game, chk)
    # every item notes what reads it: what changed since the last load is known (the preview's cache), and
    # what a layout's element reads of an item tells which items it prints the same for (layout/resolve.py)
    track(game.tables)
    game.refresh()
    if cache is not None:
        cache.start((meta, game.macros_source), game.tables)
    derive(game, meta["tables"], chk, cache)
    with recording() as reads:  # which items the components hold: what reading them depends on
        load_components(game, meta["components"], kinds, chk, cache)
    game.component_reads = frozenset(reads) | {(name, MEMBERS, None) for name in game.tables}
    if whole:
        check_whole_game(game, report, cache)
    return game


def check_whole_game(game: Game, report: Report, cache: FieldCache | None = None) -> None:
    """The rules over the whole game of a loaded game: its constraints, colour sets, report views and balance
    rules' syntax."""
    if game.meta is None or game.broken:  # counts over a table that did not load would only repeat its error
        return
    chk, meta = Checker(game, report), game.meta
    check_constraints(game, meta["constraints"], chk, cache)
    check_colour_sets(game, meta["colour_sets"], chk)
    check_views(game, meta["report"], chk)
    check_balance_syntax(game, meta["balance"], chk)


def _refused(kept: Mapping[str, Any], written: object, dropped: bool) -> frozenset[str] | None:
    """The names of a mapping of game.yaml (enums, icons) `written` but refused, their error said: not `kept` by
    its check, or all (None) if the whole key was `dropped`. What names one then says nothing more."""
    if dropped:
        return None
    names = written if isinstance(written, Mapping) else {}
    return frozenset(name for name in names if isinstance(name, str) and name not in kept)


def _checked_meta(meta: Record, chk: CheckerShape, shown: str, dropped: set[str]) -> Record:
    """game.yaml checked against GAME_FILE: every problem reported, every bad part left out, so the rest of
    loading can trust the shapes it reads."""
    schema = Schema(GAME_FILE, {}, word="key")
    for message, mark in schema.check(meta, chk):
        if "unknown key" in message:
            message = message.replace("unknown key", "unknown key in game.yaml:", 1)
        chk.error(message, mark)
    cleaned: dict[str, Any] = {}
    for name, spec in schema.fields.items():
        value = spec.clean(spec.read(meta, name), meta.mark_of(name), chk) if name in meta else INVALID
        if value is INVALID and name in meta:
            dropped.add(name)
        cleaned[name] = spec.default if value is INVALID else value
    cleaned = {k: v for k, v in cleaned.items() if v is not None or k in meta}
    _no_template_printed_as_written(cleaned, meta, chk)
    return _with_marked_defaults(Record(cleaned, meta._marks, meta._key_marks, meta.mark or Mark(shown, 1, 1)))


def _no_template_printed_as_written(cleaned: dict[str, Any], meta: Record, chk: CheckerShape) -> None:
    """A template in one of game.yaml's own texts (its title, credits...), which print as typed on the title
    page and every footer: refused at its line (`title: '{{ name }}'` printed its braces, exit 0)."""
    for name, spec in GAME_FILE.items():
        value = cleaned.get(name)
        if not isinstance(spec, dict):
            continue
        if spec["type"] == "scalar":
            found = [(name, value, meta.mark_of(name))]
        elif spec.get("values") == "scalar" and isinstance(value, Record):  # credits: each role and its name
            found = [(name, role, value.key_mark(role)) for role in value]
            found += [(name, value[role], value.mark_of(role)) for role in value]
        else:
            continue
        for key, text, mark in found:
            if (problem := template_printed_as_written(key, text, "game.yaml's")) is not None:
                chk.error(problem, mark)


def _with_marked_defaults(record: Record) -> Record:
    """Defaults are plain dicts and lists; the rest of loading reads marks, so they become marked empties."""
    for key in ("icons", "enums", "tables"):
        if not isinstance(record[key], Record):
            record = record.with_values({key: Record({}, mark=record.mark)})
    for key in ("constraints", "colour_sets", "report", "balance"):
        if not isinstance(record[key], MarkedList):
            record = record.with_values({key: MarkedList(mark=record.mark)})
    return record


def _load_rules(game: Game, meta: Record, chk: CheckerShape) -> Record:
    """rules: a mapping, or the name of a YAML file holding one (a game's rule numbers in a file of their own)."""
    meta = _rules_read(game, meta, chk)
    _refuse_not_finite(meta.get("rules"), chk)
    return meta


def _refuse_not_finite(rules: object, chk: CheckerShape) -> None:
    """An error at each number of the rules that is not finite (.nan, .inf): the rulebook printed 'nan' where it
    said `{{ game.rules.x }}`, and a constraint comparing with it held or failed whatever the data (a table's
    fields refuse such numbers by their type; the rules have none)."""
    stack: list[tuple[Any, str]] = [(rules, "rules")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, (Record, MarkedList)):
            for key in list(value.keys() if isinstance(value, Record) else range(len(value))):
                one, at = value[key], f"{path}.{key}" if isinstance(value, Record) else f"{path}[{key}]"
                if isinstance(one, float) and not math.isfinite(one):
                    chk.error(f"{named(at)} is {shown(one)}, no finite number: the rulebook would print "
                              f"'{one}' and a comparison with it would hold or fail whatever the data",
                              value.mark_of(key))
                stack.append((one, at))


def _rules_read(game: Game, meta: Record, chk: CheckerShape) -> Record:
    """`meta` with its rules as a mapping: read from the YAML file they name, where they name one. Rules written
    but unread mark the game broken, as a table that did not load does: one wrong line of rules.yaml was said,
    then again as 19 constraints and the timings of game.yaml failing on an empty `game.rules`."""
    rules = meta.get("rules")
    if rules is None or isinstance(rules, Record):
        return meta
    read = _rules_from(game, meta, rules, chk)
    if read is None:
        game.broken.add(RULES_BROKEN)
        read = Record()
    return meta.with_values({"rules": read})


def _rules_from(game: Game, meta: Record, rules: object, chk: CheckerShape) -> Record | None:
    """The rules `rules` names as a mapping, or None when they cannot be read (said)."""
    if not isinstance(rules, str):
        chk.error(f"rules is a mapping or the name of a YAML file, got {shown(rules)}", meta.mark_of("rules"))
        return None
    try:
        path = game.file(rules, meta.mark_of("rules"), "rules file")
        if not present(path):  # at the line naming it, as a table's file is: said at the missing file, of no line
            raise LoadError(f"rules file {named(rules)} not found{game.project.meant(game.folder, rules)}",
                            meta.mark_of("rules"))
        loaded = load_data_file(path, game.project.rel(game.folder / rules), game.project.root)
    except (LoadError, DataError) as e:
        chk.report.add(e)
        return None
    if not isinstance(loaded, Record):
        chk.error("a rules file holds a mapping of rule names to values",
                  getattr(loaded, "mark", None) or Mark(game.project.rel(game.folder / rules), 1, 1))
        return None
    return loaded


# The top of macros.j2 (outside its macros) runs once per load, before the derived fields and the components are
# made: `components | length` there was 0 and a derived field missing, and what it read of the data was noted by
# no item, so the preview kept faces printing a value of the data as it was before an edit
MACROS_TOP_READS = ("the top of macros.j2 (outside a macro) runs before the derived fields and the components are "
                    "made, so it reads no data, ref, components or glossary: read them inside a macro")


# The timings and derived fields are computed before the components are made (a component's filter may read
# them), and a component's filter while they are: `components | length` there, or in a macro one called, was 0
# with exit 0 where the cards printed 3
COMPONENTS_NOT_MADE = ("the components are made after the timings and the derived fields, and while their "
                       "filters run: these cannot read `components` (count the items in `data` instead)")


def _load_macros(game: Game, chk: CheckerShape) -> None:
    """layouts/<game>/macros.j2: Jinja macros every template and expression can call as macros.NAME(...),
    so one definition (say, how an ability reads) serves cards, aids and the rulebook."""
    path = game.layout_folder / "macros.j2"
    if not path.exists() and not path.is_symlink():
        return
    shown = game.project.rel(path)
    # (replaced once it loads: a template calling a macro of one that did not is told so, not "the value is none")
    game.macros = MissingMacros(f"{shown} did not load (its error is said at its line)")
    try:
        real = game.project.inside(path, Mark(shown), "macros file")
        source = utf8_text(read_project_file(real, MAX_FILE_BYTES, Mark(shown), beneath=game.project.root), shown)
        game.macros_source = source
        context = game.context()
        with refusing_reads(MACROS_TOP_READS):
            game.macros = module(source, context)
    except DataError as e:
        chk.report.add(e)
    except OSError as e:  # (bytes that are not UTF-8 are refused by utf8_text, at their line)
        chk.error(f"cannot read: {why_not_read(e)}", Mark(shown))
    except ExprError as e:
        chk.error(f"macros: {e.message}", Mark(shown, e.line or 0, 1 if e.line else 0))


__all__ = ["Component", "Game", "load_game", "GAME_FILE", "COMPONENT_FIELDS", "did_you_mean"]


def _weakly(method: Callable[[], Iterable[Read]]) -> Callable[[], Iterable[Read]]:
    """A game's `method` giving what a view of it reads, held without holding the game: the game holds its
    views, and a cycle would leave a whole check's data (10,000 items) to the cyclic collector's full pass
    instead of being freed when its last user lets go. A view outliving its game reads anything at all."""
    ref = weakref.WeakMethod(method)

    def reads() -> Iterable[Read]:
        bound = ref()
        return (ALL,) if bound is None else bound()

    return reads
