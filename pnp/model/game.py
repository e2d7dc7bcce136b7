"""A game: metadata, rules model, data tables and component manifest, loaded and validated."""

from dataclasses import dataclass, field

from ..report import Mark
from jinja2 import TemplateError

from ..template import ENV, ExprError, evaluate, render
from .icons import IconIndex
from .load import LoadError, MarkedList, Record, load_file
from .schema import Schema, did_you_mean

TOP_KEYS = {"title", "subtitle", "players", "ages", "time", "credits", "icons", "enums", "tables",
            "constraints", "components", "version", "description", "rules"}
TABLE_KEYS = {"file", "files", "fields", "derived", "unique", "doc"}
COMPONENT_KEYS = {"id", "name", "kind", "description", "items", "filter", "quantity", "copies", "count", "parts",
                  "layout", "back", "doc"}
CONSTRAINT_KEYS = {"expr", "message", "each", "where", "field", "doc"}
KINDS = ("deck", "tokens", "board", "aid", "die", "rulebook")
META_REQUIRED = ("title", "players", "ages", "time", "credits")


@dataclass
class Component:
    id: str
    name: str
    kind: str
    spec: Record
    count: int = 0
    items: list = field(default_factory=list)  # the data items, each repeated by its quantity

    @property
    def description(self):
        return self.spec.get("description", "")


@dataclass
class Game:
    id: str
    project: object
    meta: Record = None
    enums: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)
    components: list = field(default_factory=list)
    icons: IconIndex = None
    _ref: dict = None
    macros: object = None  # layouts/<game>/macros.j2 as a module, when the game has one
    broken: set = field(default_factory=set)  # tables whose files could not be read
    dirty: set = field(default_factory=set)  # (table, index) of records with schema errors

    @property
    def title(self):
        return self.meta.get("title", self.id) if self.meta else self.id

    @property
    def folder(self):
        return self.project.cards / self.id

    @property
    def layout_folder(self):
        return self.project.layouts / self.id

    def component(self, cid):
        return next((c for c in self.components if c.id == cid), None)

    def context(self, **extra):
        """What templates see: game metadata, data tables, `ref` (table -> id -> item), components, enums."""
        if self._ref is None:
            self._ref = {}
            self.refresh()
        return {"game": self.meta, "data": self.tables, "ref": self._ref, "components": self.components,
                "enums": self.enums, "macros": self.macros, **extra}

    def refresh(self):
        """Rebuild the id lookups after tables change (derived fields were added). The dict is updated in
        place, so macros that captured it see the new items."""
        if self._ref is None:
            self._ref = {}
        self._ref.clear()
        self._ref.update({name: {it.get("id"): it for it in items if isinstance(it, Record) and "id" in it}
                          for name, items in self.tables.items()})


class _Checker:
    """Collects problems while the game is loaded, so one run reports all of them."""

    def __init__(self, game, report):
        self.game, self.report = game, report

    def ids(self, table):
        items = self.game.tables.get(table)
        return None if items is None else [it.get("id") for it in items]

    def icon_exists(self, name):
        return self.game.icons.exists(name)

    def icon_names(self):
        return self.game.icons.names()

    def error(self, message, mark):
        self.report.error(message, mark)


def load_game(project, game_id, report):
    """Load and validate one game; problems go to `report`. Returns the Game (possibly partial)."""
    game = Game(game_id, project)
    rel = project.rel
    path = game.folder / "game.yaml"
    try:
        meta = load_file(path, rel(path))
    except LoadError as e:
        report.error(e.message, e.mark)
        return game
    if not isinstance(meta, Record):
        report.error("game.yaml must be a mapping of title, players, ..., tables, components", Mark(rel(path), 1, 1))
        return game
    game.meta = meta
    chk = _Checker(game, report)

    for key in meta:
        if key not in TOP_KEYS:
            chk.error(f"unknown key '{key}' in game.yaml{did_you_mean(key, TOP_KEYS)}", meta.key_mark(key))
    for key in META_REQUIRED:
        if key not in meta:
            chk.error(f"game.yaml is missing '{key}'", Mark(rel(path), 1, 1))

    icon_aliases = meta.get("icons") or {}
    game.icons = IconIndex([game.layout_folder / "icons", project.shared_layouts / "icons"], icon_aliases)
    for alias, target in icon_aliases.items():
        if not game.icons.exists(target):
            chk.error(f"icon alias '{alias}' points to unknown icon '{target}'"
                      f"{did_you_mean(target, game.icons.names())}", icon_aliases.mark_of(alias))

    if isinstance(meta.get("rules"), str):  # rules: rules.yaml -- a game's rule numbers in a file of their own
        rpath = game.folder / meta["rules"]
        try:
            rules = load_file(rpath, rel(rpath))
        except LoadError as e:
            chk.error(e.message, e.mark)
            rules = Record()
        meta = game.meta = meta.with_values({"rules": rules if isinstance(rules, Record) else Record()})
    game.enums = dict(meta.get("enums") or {})
    schemas = _load_tables(game, meta.get("tables") or Record(), chk)
    _check_tables(game, schemas, chk)
    _load_macros(game, chk)
    _derive(game, meta.get("tables") or Record(), chk)
    _load_components(game, meta.get("components") or [], chk)
    if not game.broken:  # counts over a table that did not load would only repeat the load error
        _check_constraints(game, meta.get("constraints") or [], chk)
    return game


def _load_tables(game, tables, chk):
    rel = game.project.rel
    schemas = {}
    for name, spec in tables.items():
        if not isinstance(spec, Record):
            chk.error(f"table '{name}' must be a mapping with 'file' and 'fields'", tables.mark_of(name))
            continue
        for key in spec:
            if key not in TABLE_KEYS:
                chk.error(f"unknown key '{key}' in table '{name}'{did_you_mean(key, TABLE_KEYS)}", spec.key_mark(key))
        schema = Schema(spec.get("fields"), game.enums)
        for message, mark in schema.problems:
            chk.error(message, mark)
        schemas[name] = schema
        files = spec.get("files") or [spec.get("file", f"{name}.yaml")]
        items = MarkedList()
        items.marks, items.mark = [], spec.mark
        for fname in files:
            path = game.folder / fname
            try:
                data = load_file(path, rel(path))
            except LoadError as e:
                chk.error(e.message, e.mark)
                game.broken.add(name)
                continue
            if data is None:
                data = MarkedList()
                data.marks, data.mark = [], Mark(rel(path), 1, 1)
            if not isinstance(data, MarkedList):
                chk.error(f"expected a list of {name} (one '- ' entry each)", getattr(data, "mark", Mark(rel(path), 1, 1)))
                game.broken.add(name)
                continue
            for i, item in enumerate(data):
                if not isinstance(item, Record):
                    chk.error(f"each entry of {name} must be a mapping of fields", data.mark_of(i))
                    continue
                items.append(item)
                items.marks.append(item.mark)
            if items.mark is spec.mark:
                items.mark = data.mark
        game.tables[name] = items
    game.refresh()
    return schemas


def _check_tables(game, schemas, chk):
    for name, items in game.tables.items():
        schema = schemas[name]
        derived = tuple(game.meta["tables"][name].get("derived") or ())  # may be typed in; checked later
        for i, item in enumerate(items):
            for message, mark in schema.check(item, chk, derived):
                chk.error(message, mark)
                game.dirty.add((name, i))
            items[i] = schema.with_defaults(item)
        game.refresh()
        unique = ["id"] if "id" in schema.fields else []
        unique += list(game.meta["tables"][name].get("unique") or [])
        for key in unique:
            seen = {}
            for item in items:
                value = item.get(key)
                if value is None or isinstance(value, (Record, list)):
                    continue
                if value in seen:
                    chk.error(f"duplicate {key} '{value}' (first at {seen[value]})", item.mark_of(key))
                else:
                    seen[value] = item.mark_of(key)


def _same(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(a - b) < 1e-9
    return a == b


def _load_macros(game, chk):
    """layouts/<game>/macros.j2: Jinja macros every template and expression can call as macros.NAME(...),
    so one definition (say, how an ability reads) serves cards, aids and the rulebook."""
    path = game.layout_folder / "macros.j2"
    if not path.is_file():
        return
    try:
        game.macros = ENV.from_string(path.read_text(encoding="utf-8")).make_module(game.context())
    except TemplateError as e:
        chk.error(f"macros: {e}", Mark(game.project.rel(path), getattr(e, "lineno", 0) or 0, 1))


def _derive(game, tables, chk):
    """Computed fields (a goal tile's share, a size class...): filled in, or checked where typed by hand."""
    for name, spec in tables.items():
        derived = spec.get("derived") if isinstance(spec, Record) else None
        if not derived or name not in game.tables:
            continue
        items = game.tables[name]
        for i, item in enumerate(items):
            values = {}
            for fname, expr in derived.items():
                try:
                    value = evaluate(expr, game.context(item=item.with_values(values)))
                except ExprError as e:
                    if (name, i) in game.dirty:  # the item's own errors are already reported
                        continue
                    chk.error(f"derived field '{fname}': {e.message}", derived.mark_of(fname))
                    return
                if fname in item and not _same(item[fname], value):
                    chk.error(f"{fname} is {item[fname]!r} here but the data gives {value!r} "
                              f"(it is computed: remove it or correct it)", item.mark_of(fname))
                values[fname] = value
            computed = {k: v for k, v in values.items() if k not in item}
            items[i] = item.with_values(computed, derived.mark)
        game.refresh()


def _check_constraints(game, constraints, chk):
    for n, c in enumerate(constraints):
        mark = constraints.mark_of(n) if isinstance(constraints, MarkedList) else None
        if not isinstance(c, Record) or "expr" not in c:
            chk.error("a constraint is a mapping with 'expr' (and 'message')", mark)
            continue
        for key in c:
            if key not in CONSTRAINT_KEYS:
                chk.error(f"unknown key '{key}' in constraint{did_you_mean(key, CONSTRAINT_KEYS)}", c.key_mark(key))
        each = c.get("each")
        if each is not None and each not in game.tables:
            chk.error(f"constraint 'each: {each}' names no table{did_you_mean(each, game.tables)}", c.mark_of("each"))
            continue
        cases = [(item, item) for item in game.tables[each]] if each else [(None, None)]
        for item, _ in cases:
            ctx = game.context(item=item) if item is not None else game.context()
            try:
                ok = evaluate(c["expr"], ctx)
            except ExprError as e:
                if not game.dirty:  # with bad records it is their errors that matter
                    chk.error(f"constraint failed to evaluate: {e.message}", c.mark_of("expr"))
                break
            if ok:
                continue
            try:
                message = render(str(c.get("message", "constraint not met: " + c["expr"])), ctx)
            except ExprError as e:
                message = f"constraint not met: {c['expr']} (its message failed: {e.message})"
            chk.error(message, _where(game, c, item))


def _where(game, c, item):
    """Point a broken constraint at the data it is about: the item's field, the item, or the table's file."""
    if item is not None:
        return item.mark_of(c["field"]) if c.get("field") else item.mark
    where = c.get("where")
    if isinstance(where, str) and where.startswith("rules."):  # a value in the rules: its own line
        node, mark = game.meta.get("rules"), None
        for key in where.split(".")[1:]:
            if not isinstance(node, Record) or key not in node:
                break
            mark, node = node.mark_of(key), node[key]
        if mark is not None:
            return mark
    if where in game.tables:
        items = game.tables[where]
        if c.get("field") and items:
            return items[0].mark_of(c["field"])
        mark = items.mark
        return Mark(mark.file, 1, 1) if mark else None
    return c.mark_of("expr")


def _load_components(game, components, chk):
    ids = set()
    for n, spec in enumerate(components):
        mark = components.mark_of(n) if isinstance(components, MarkedList) else None
        if not isinstance(spec, Record):
            chk.error("a component is a mapping with id, name, kind", mark)
            continue
        for key in spec:
            if key not in COMPONENT_KEYS:
                chk.error(f"unknown key '{key}' in component{did_you_mean(key, COMPONENT_KEYS)}", spec.key_mark(key))
        cid, kind = spec.get("id"), spec.get("kind")
        if not cid:
            chk.error("component needs an 'id'", spec.mark)
            continue
        if cid in ids:
            chk.error(f"duplicate component id '{cid}'", spec.mark_of("id"))
        ids.add(cid)
        if kind not in KINDS:
            chk.error(f"component kind '{kind}' is not one of {', '.join(KINDS)}{did_you_mean(kind, KINDS)}",
                      spec.mark_of("kind"))
            continue
        comp = Component(cid, spec.get("name", cid), kind, spec)
        copies = spec.get("copies", 1)
        if not isinstance(copies, int) or isinstance(copies, bool) or copies < 1:
            chk.error(f"copies must be a whole number >= 1, got {copies!r}", spec.mark_of("copies"))
            copies = 1
        table = spec.get("items")
        if table is not None:
            if table not in game.tables:
                chk.error(f"component '{cid}': no table '{table}'{did_you_mean(table, game.tables)}", spec.mark_of("items"))
                continue
            qty = spec.get("quantity")
            rows = game.tables[table]
            if spec.get("filter") is not None:  # e.g. one deck per era from one table of cards
                try:
                    rows = [it for it in rows if evaluate(spec["filter"], game.context(item=it))]
                except ExprError as e:
                    chk.error(f"component '{cid}' filter: {e.message}", spec.mark_of("filter"))
                    continue
            for item in rows:
                times = item.get(qty, 1) if qty else 1
                if not isinstance(times, int) or isinstance(times, bool) or times < 0:
                    chk.error(f"{qty} must be a whole number, got {times!r}", item.mark_of(qty))
                    times = 1
                comp.items.extend([item] * times)
            comp.items *= copies
            comp.count = len(comp.items)
        else:
            comp.count = copies
        if kind == "rulebook":
            comp.count = copies
        typed = spec.get("count")
        if table in game.broken:
            pass
        elif typed is not None and typed != comp.count:
            chk.error(f"component '{cid}' says count {typed} but the data gives {comp.count}", spec.mark_of("count"))
        parts = spec.get("parts")
        if parts:
            total = sum(p.get("count", 0) for p in parts if isinstance(p, Record))
            if total != comp.count:
                chk.error(f"the parts of '{cid}' add up to {total}, not {comp.count}", spec.mark_of("parts"))
        game.components.append(comp)
