"""Data tables: their files read, every item checked against its table's fields, derived fields computed."""

import datetime
import functools
import numbers
from collections.abc import ItemsView, KeysView, Mapping, Sequence, Set as AbstractSet, ValuesView
from pathlib import Path
from typing import Any

from ..errors import DataError, LoadError, failed_at, said_in_text
from ..project import present
from ..report import Mark, named
from ..template import ExprError, enum_mistakes, evaluate, is_template, printed_size, value_got
from ..options import control_problem, did_you_mean
from .load import MarkedList, Record, load_data_file, shown
from .reads import FieldCache, KeptChecks, same
from .schema import Enum, Field, List, Map, Nested, Schema
from .shapes import CheckerShape, GameShape
from .spreadsheet import id_fields, read_table, reading_workbooks
from .workbook_parts import SPREADSHEETS, check_spreadsheet_format

# Characters the values of a game's derived fields may print as, all of them together: a derived field is a
# number, a name or a short list, but one may hold whole items or tables (`data.cards | list`, `item`), each
# holding those of the fields before it; every build writes each item out whole (its digest), and three such
# fields over 100 cards wrote a hundred million items (the build never ended; validate said ok in 2 s)
MAX_DERIVED_SIZE = 1_000_000

TABLE_FIELDS = {
    "file": {"type": "str", "required": False,
             "doc": "the file in cards/<game>/ holding the items: YAML (a list of mappings), or a spreadsheet "
                    "(.csv, .xlsx: a header row of field names, then a row per item); default: <table name>.yaml, "
                    "else <table name>.csv or .xlsx, whichever exists"},
    "sheet": {"type": "str", "required": False,
              "doc": "for an .xlsx file: the sheet holding the table, its name in any case (default: the first not "
                     "hidden)"},
    "files": {"type": "list", "of": "str", "required": False,
              "doc": "several files whose items make one table, in this order (instead of `file`)"},
    "fields": {"type": "any", "doc": "each field's name and its type (see Field types)"},
    "derived": {"type": "map", "values": "str", "required": False,
                "doc": "computed fields: name -> a Jinja expression over `item` and the game, giving a value as "
                       "a table holds (a number, a text, a list or a mapping of them; not a namespace); an item may type "
                       "the value too, and it must then agree. They are computed in the order written, each for "
                       "every item at once, table after table: one may read the derived fields written before it, "
                       "on any item, not the components; all their values together print as at most "
                       f"{MAX_DERIVED_SIZE:,} characters"},
    "unique": {"type": "list", "of": "str", "required": False,
               "doc": "fields besides `id` whose values must differ from item to item"},
    "doc": {"type": "str", "required": False, "doc": "what the table holds"},
}


def load_tables(game: GameShape, tables: Record, chk: CheckerShape) -> None:
    """Read every table's files into game.tables (a MarkedList of Records per table)."""
    ids = id_fields(tables, game.enums)  # (a spreadsheet's ref cell is read as the id it names)
    with reading_workbooks():  # (a workbook many tables read is checked and opened once)
        for name in tables:
            _load_table(game, tables, name, chk, ids)
    game.refresh()


def _load_table(game: GameShape, tables: Record, name: str, chk: CheckerShape,
                ids: Mapping[Any, Field | None]) -> None:
    """Read one table's files into game.tables[name]."""
    spec = tables[name]
    items = MarkedList(mark=spec.mark)
    if not (spec.get("files") or spec.get("file")) and len(found := _files_found(game.folder, name)) > 1:
        # (a table edited in its workbook while its YAML is read, or a CSV and a workbook: the edits printed
        # nowhere, with no word)
        chk.report.warning(f"table '{name}' is read from {found[0]}; {', '.join(found[1:])} beside it "
                           "is not read (say which file with `file:`, or remove the others)",
                           tables.key_mark(name))
    files = _files_named(game.folder, spec, name, chk)
    _refuse_ignored_keys(spec, files or [], chk)
    if files is None:  # (said at its line; the default file was read instead, or said missing at no line)
        game.broken.add(name)
        game.tables[name] = items
        return
    read: dict[Path, str] = {}  # each file read so far (after links) -> as files: names it
    for fname in files:
        data = _read(game, spec, name, fname, chk, read, ids)
        if data is None:
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


EMPTY_SHEET = "sheet: is empty: name the workbook's sheet, or leave sheet: out to read its first sheet not hidden"


def table_sheet(spec: Record) -> str | None:
    """The name of the sheet a table's `sheet:` reads, or None: left out, or no name (no text, or empty), which
    the table's definition is refused for where it is checked."""
    sheet = spec.get("sheet")
    return sheet if isinstance(sheet, str) and sheet else None


def _files_named(folder: Path, spec: Record, name: str, chk: CheckerShape) -> list[str] | None:
    """The files a table reads: its `files:`, its `file:`, else its default file; None where what it names is no
    file name (`files: []` is refused here, any other value not text by the schema, each at its line)."""
    files, file = spec.get("files"), spec.get("file")
    if files == []:
        chk.error("files: is empty: list the table's files, or leave files: out to read the default one",
                  spec.key_mark("files"))
        return None
    if files is not None or spec.wrote_key("files"):  # (a value refused, left out: the default was read)
        return files if isinstance(files, list) and all(isinstance(f, str) for f in files) else None
    if file is None and not spec.wrote_key("file"):
        return [default_file(folder, name)]
    return [file] if isinstance(file, str) and file else None


def _refuse_ignored_keys(spec: Record, files: list[str], chk: CheckerShape) -> None:
    """Refuses what a table's definition says that reading its files would pass over without a word."""
    if "file" in spec and "files" in spec:
        chk.error("a table reads file: or files:, not both (file: would be ignored): list every file under files:",
                  spec.key_mark("file"))
    elif spec.get("file") == "":
        chk.error("file: is empty: name the table's file, or leave file: out to read the default one",
                  spec.key_mark("file"))
    if spec.get("sheet") == "":  # (read as the name of a sheet, it was refused as the workbook's, naming no line)
        chk.error(EMPTY_SHEET, spec.key_mark("sheet"))
    elif "sheet" in spec and not any(str(fname).lower().endswith(".xlsx") for fname in files):
        chk.error(f"sheet: names a sheet of an .xlsx file, and the table reads {', '.join(map(shown, files))}: "
                  "leave sheet: out", spec.key_mark("sheet"))


def default_file(folder: Path, name: str) -> str:
    """<name>.yaml, else <name>.csv, else <name>.xlsx: the first that exists (in a game's cards folder)."""
    return next(iter(_files_found(folder, name)), f"{name}.yaml")


def _files_found(folder: Path, name: str) -> list[str]:
    """The files a table of no `file:` may be read from that exist, the one read first."""
    return [f"{name}{suffix}" for suffix in (".yaml",) + SPREADSHEETS if present(folder / f"{name}{suffix}")]


def _read(game: GameShape, spec: Record, name: str, fname: str, chk: CheckerShape,
          read: dict[Path, str], ids: Mapping[str, Field | None]) -> MarkedList | None:
    """One file of a table as a MarkedList, or None (reported) when it cannot be read or was `read` before (its
    items were each said twice as their own first, at the same line); `ids`: every table's id field."""
    mark = spec.mark_of("files" if "files" in spec else "file")
    file_shown = game.project.rel(game.folder / fname)
    try:
        path = game.file(fname, mark, "table file")
        named = "file" in spec or "files" in spec
        if not present(path):  # (at the line naming it: the file it names has none)
            subject = f"table file '{fname}'" if named else "file"
            raise LoadError(f"{subject} not found{game.project.meant(game.folder, fname)}",
                            mark if named else Mark(file_shown))
        if named and path.is_dir():  # (the reader refused it at the folder's path, naming no line of game.yaml)
            raise LoadError(f"table file {shown(fname)} is a folder, not a file: name a file of "
                            f"{game.project.rel(game.folder)}/", mark)
        if path in read:
            chk.error(f"files: names the file {shown(read[path])} twice (again as {shown(fname)})", mark)
            return None
        read[path] = fname
        if path.suffix.lower() in SPREADSHEETS:  # (read_table checks its format)
            data = read_table(path, file_shown, Schema(spec.get("fields"), game.enums), table_sheet(spec), ids,
                              chk.report.warning, game.project.root, spec.mark_of("sheet"))
        else:
            check_spreadsheet_format(path, file_shown, game.project.root)
            data = load_data_file(path, file_shown, game.project.root)
    except (LoadError, DataError) as e:
        chk.report.add(e)
        game.broken.add(name)
        return None
    if data is None:
        return MarkedList(mark=Mark(file_shown, 1, 1))
    if not isinstance(data, MarkedList):
        chk.error(f"expected a list of {name} (one '- ' entry each)", getattr(data, "mark", None) or Mark(file_shown, 1, 1))
        game.broken.add(name)
        return None
    return data


def check_tables(game: GameShape, tables: Record, chk: CheckerShape,
                 kept: KeptChecks | None = None) -> dict[str, Schema]:
    """Check every item against its table's schema (defaults filled in) and the unique fields.
    Returns the schemas, by table name. `kept`: the last load's item checks, taken again where they still
    hold (the preview's refreshes)."""
    schemas = {name: _schema(game, name, spec, tables, chk) for name, spec in tables.items()}
    game.enum_fields = {name: {field: list(kind.values) for field, kind in schema.fields.items() if isinstance(kind, Enum)}
                        for name, schema in schemas.items() if isinstance(tables[name].get("fields"), Mapping)}
    if kept is not None:
        kept.start(tables, game.enums, chk)
    for name, items in game.tables.items():
        schema, spec = schemas[name], tables[name]
        if name in game.broken and not schema.fields:
            continue
        _check_items(game, name, schema, tuple(spec.get("derived") or ()), chk, kept)
        _check_unique(items, (["id"] if "id" in schema.fields else []) + _unique_fields(name, spec, schema, chk), chk)
    if kept is not None:
        kept.finish()
    game.refresh()
    return schemas


def _check_items(game: GameShape, name: str, schema: Schema, derived: tuple[str, ...], chk: CheckerShape,
                 kept: KeptChecks | None) -> None:
    """Check each item of a table against its schema and fill in its defaults (check_tables); `derived` names
    its derived fields, which an item may type in (checked by derive())."""
    items = game.tables[name]
    for i, item in enumerate(items):
        # a schema that gave up on a check (a pattern too slow) checks the items after less, in this load's
        # order: from there on no check is taken from the last load nor kept for the next
        kept_here = None if kept is None or schema.gave_up() else kept
        problems, items[i] = (_item_check(schema, item, chk, derived) if kept_here is None
                              else kept_here.check(name, i, item,
                                                   functools.partial(_item_check, schema, item, derived=derived)))
        if kept is not None and schema.gave_up():
            kept.forget(name, i)
        for message, mark in problems:
            chk.error(message, mark)
        if problems:
            game.dirty.add((name, i))
        if kept is not None and _id(items[i]) is not _id(item):  # a default id: the table's ids changed
            kept.answers.pop(("ids", name), None)


def _item_check(schema: Schema, item: Record, chk: CheckerShape,
                derived: tuple[str, ...]) -> tuple[tuple[tuple[str, Mark | None], ...], Record]:
    """(the problems of one item, the item with its defaults)."""
    return tuple(schema.check(item, chk, derived)), schema.with_defaults(item)


def _id(item: object) -> object:
    return item.get("id") if isinstance(item, Record) else None


def _schema(game: GameShape, name: str, spec: Record, tables: Record, chk: CheckerShape) -> Schema:
    """A table's schema, its problems reported (a ref to a table that does not exist: once, where declared)."""
    schema = Schema(spec.get("fields"), game.enums)
    for message, mark in schema.problems:
        chk.error(message, mark or spec.mark_of("fields"))
    for table, mark in schema.refs():
        if table not in tables:
            chk.error(f"field refers to table {named(table)}, which game.yaml does not declare"
                      f"{did_you_mean(table, tables)}", mark or spec.mark_of("fields"))
    if not isinstance(spec.get("fields"), Mapping):  # no fields to check items against: said once above
        game.broken.add(name)
    else:
        _check_defaults(schema, spec["fields"], chk)
    return schema


def _check_defaults(schema: Schema, fields: Mapping[str, Any], chk: CheckerShape, within: str = "") -> None:
    """Each field's default checked as a value its items could write, at the default's line: an item leaving
    the field out was given it unchecked (an int field's default "abc", an enum's value not among its values,
    printed and computed with, exit 0). So are the defaults of the fields of a record, a list's records and a
    map's records, at any depth (`powers: {type: list, of: {type: record, fields: {hp: {type: int, default:
    [1]}}}}` gave every power a list for hp, said only where a derived field computed with it)."""
    for field_name, field in schema.fields.items():
        spec = fields.get(field_name)
        if not isinstance(spec, Record):
            continue
        if field.default is not None and "default" in spec:
            for message, _ in field.check(field.default, None, chk):
                chk.error(f"field '{within}{field_name}': default: {message}", spec.mark_of("default"))
        _check_inner_defaults(field, spec, chk, f"{within}{field_name}.")


def _check_inner_defaults(field: Field, spec: Record, chk: CheckerShape, within: str) -> None:
    """_check_defaults for the fields of the record `field` is, or its list's items or map's values are."""
    inner: Any = field
    while isinstance(inner, (List, Map)) and isinstance(spec, Record):  # (a list of maps of records...)
        inner, spec = (inner.item, spec.get("of")) if isinstance(inner, List) else (inner.value, spec.get("values"))
    if isinstance(inner, Nested) and isinstance(spec, Record) and isinstance(spec.get("fields"), Mapping):
        _check_defaults(inner.schema, spec["fields"], chk, within)


def _unique_fields(name: str, spec: Record, schema: Schema, chk: CheckerShape) -> list[str]:
    """The fields of `unique` whose values the items give (a derived field's are checked once computed:
    _check_unique_derived); an error at each name that is neither a field nor a derived field of the table: a
    typo ('rnk') checked nothing, exit 0."""
    unique, derived = spec.get("unique") or [], spec.get("derived") or {}
    given = []
    for i, key in enumerate(unique):
        if key in schema.fields:
            given.append(key)
        elif key not in derived and isinstance(key, str):
            chk.error(f"unique: table {named(name)} has no field {named(key)}"
                      f"{did_you_mean(key, [*schema.fields, *derived])}",
                      unique.mark_of(i) if isinstance(unique, MarkedList) else spec.mark_of("unique"))
    return given


def _check_unique_derived(name: str, spec: Record, items: list[Record], chk: CheckerShape) -> None:
    """Check the derived fields `unique` names, once computed (they were not checked at all: check_tables runs
    before derive); a duplicate is said at its item."""
    fields = spec.get("fields") if isinstance(spec.get("fields"), Mapping) else {}
    derived = spec.get("derived") or {}
    keys = [key for key in spec.get("unique") or [] if key in derived and key not in fields]
    _check_unique(items, keys, chk, at_item=True)


def _unique_key(value: object) -> object:
    """`value` as a key two equal values share: a list's or a mapping's too (a list, map or record field named by
    `unique` was skipped without a word, and two cards with one `wants: [a, b]` passed, exit 0). A mapping's key
    does not hang on the order its entries are written in; a list's does. true and 1 differ (Python counts them
    equal)."""
    if isinstance(value, Mapping):
        return ("mapping", frozenset((k, _unique_key(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", tuple(_unique_key(v) for v in value))
    return isinstance(value, bool), value  # (true is no duplicate of 1, an enum of [1, true] holding both)


def _check_unique(items: list[Record], keys: list[str], chk: CheckerShape, at_item: bool = False) -> None:
    for key in keys:
        seen: dict[object, Record] = {}  # value -> the first item with it (its Mark made for a duplicate only)
        for item in items:
            value = item.get(key)
            if value is None:
                continue
            try:
                found = seen.get(_unique_key(value))
            except TypeError:  # (a value of the data that no key can stand for: refused where it is read)
                continue
            if found is not None:
                first, here = (found.mark, item.mark) if at_item else (found.mark_of(key), item.mark_of(key))
                chk.error(f"duplicate {key} {shown(value) if isinstance(value, (list, Mapping)) else named(value)} "
                          f"(first at {first})", here)
            else:
                seen[_unique_key(value)] = item


def _same(a: object, b: object) -> bool:
    """Whether a derived field's value typed by an item agrees with the one computed: numbers within rounding,
    true/false only with true/false (Python counts true equal to 1: `strong: 1` typed where the field computes
    true passed, and the card printed 1), lists and mappings item by item alike."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) < 1e-9
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def derive(game: GameShape, tables: Record, chk: CheckerShape, cache: FieldCache | None = None) -> None:
    """Computed fields (a goal tile's share, a size class...): filled in, or checked where typed by hand.
    A field that fails is reported once and skipped; the other fields and tables are still computed. With a
    `cache` (reads.py), an item's field whose reads did not change since the last load is taken from it, and
    a field whose value changed is added to the cache's changes, for what reads it next."""
    printed = [MAX_DERIVED_SIZE]  # what the derived fields of the game may still print as, all together
    for name, spec in tables.items():
        derived = spec.get("derived")
        if not derived or name not in game.tables:
            continue
        failed: set[str] = set()
        enums = table_enums(game, name)
        for fname in derived:
            expression = derived[fname]
            for message, line in enum_mistakes(expression, not is_template(expression), ITEM, enums,
                                               functools.partial(table_enums, game)):
                chk.error(f"{fname}: {message}", said_in_text(derived.mark_of(fname), line))
        # field by field, each given to every item at once: computed item by item, an item's field that read
        # another item's derived field ('data.cards | map(attribute="strong", default=false)') saw it on the items
        # before it alone, and printed 0, 1, 1, 2 on four cards where each should say 2
        _derive_table(game, name, derived, failed, chk, cache, printed)
        _check_unique_derived(name, spec, game.tables[name], chk)


def _derive_table(game: GameShape, name: str, derived: Record, failed: set[str], chk: CheckerShape,
                  cache: FieldCache | None, printed: list[int]) -> None:
    """The derived fields of table `name`, field by field. Its items are copied once, then each field's
    values are added to these copies in place while no value holds an item, a table or any record (a number,
    a text, a fresh list of them): each item copied again for every field made 10,000 derived fields of four
    cards take 30 s (the copies grow with the fields: a quadratic). A field whose value may hold the data is
    given to new copies of every item, in a new list, as before: the value keeps the items it was computed
    from, and they never come to hold the value itself."""
    items = game.tables[name] = MarkedList((item.with_values({}) if isinstance(item, Record) else item
                                            for item in game.tables[name]), game.tables[name].marks,
                                           game.tables[name].mark)
    game.refresh((name,))
    now: dict[str, Any] | None = None
    for fname in derived:
        if now is None:
            # the data as it is before this field: a value holding `data` or `ref` whole keeps it so, and does
            # not come to hold the items that carry the value itself
            context = game.context()
            now = {"data": context["data"].as_now(), "ref": context["ref"].as_now()}
        values = [_checked_value(game, name, i, item, fname, derived, failed, chk, cache, now, printed)
                  for i, item in enumerate(items)]
        renewed = _given(items, fname, values, derived.mark_of(fname))
        if renewed is not None:
            items = game.tables[name] = renewed
            now = None  # (the table is a new list: the next field sees it)
        game.refresh((name,))  # (the other tables' items are as they were)


def _given(items: MarkedList, fname: str, values: list[object], mark: Mark | None) -> MarkedList | None:
    """Give each item its value of `fname` (none where it failed or the item types it): in place when every
    value is plain (None returned), else on new copies in a new list (returned), the table's old one left as it
    was: a value that holds the table itself (`data.cards`) keeps the items it was computed from; the table
    changed in place held itself, and writing an item out (its digest in the build) never ended."""
    if all(_plain(value) for value in values):
        for item, value in zip(items, values):
            if value is not _FAILED and fname not in item and isinstance(item, Record):
                item.add_computed(fname, value, mark)
        return None
    return MarkedList((item.with_values({fname: value} if value is not _FAILED and fname not in item else {}, mark)
                       if isinstance(item, Record) else item for item, value in zip(items, values)),
                      items.marks, items.mark)


def _checked_value(game: GameShape, name: str, i: int, item: Record, fname: str, derived: Record,
                   failed: set[str], chk: CheckerShape, cache: FieldCache | None, now: dict[str, Any],
                   printed: list[int]) -> object:
    """Derived field `fname` of item `i`, or _FAILED; where the item types it by hand, a value unlike the one
    it derives is said at its line."""
    value = _derived(game, name, i, item, fname, derived, failed, chk, cache, now)
    value = _sized(value, fname, derived, failed, chk, printed)
    if value is not _FAILED and fname in item and not _same(item[fname], value):
        chk.error(f"{fname} is {shown(item[fname])} here but the data gives {shown(value)} "
                  f"(it is computed: remove it or correct it)", item.mark_of(fname))
    return value


_PLAIN_CONTAINERS = (list, tuple, dict, set, frozenset)


def _plain(value: object) -> bool:
    """Whether `value` is made of values and containers of Python's own alone (never a record, a table, the
    data's views): what no later change of an item can reach. Walked to its end (a derived value is bounded
    by MAX_DERIVED_SIZE, and _FAILED holds nothing)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if node is _FAILED or isinstance(node, _DATA_VALUES):
            continue
        if type(node) not in _PLAIN_CONTAINERS:
            return False
        if isinstance(node, dict):
            stack.extend(part for pair in node.items() for part in pair)
        elif isinstance(node, (list, tuple, set, frozenset)):
            stack.extend(node)
    return True


# the name a derived field, a component's filter and a constraint with `each` see their item by (what
# enum_mistakes reads as the item in them)
ITEM = frozenset({"item"})
_FAILED = object()  # a derived field that could not be computed for an item


def _sized(value: object, fname: str, derived: Record, failed: set[str], chk: CheckerShape,
           printed: list[int]) -> object:
    """`value`, or _FAILED (reported once per field) when it cannot be printed or the game's derived values
    together would print longer than MAX_DERIVED_SIZE; `printed` holds what they may still print as."""
    if value is _FAILED:
        return value
    try:
        size = printed_size(value, printed[0])
        if size <= printed[0]:
            _data_only(value)  # (walked once its size is known to be bounded)
            printed[0] -= size
            return value
    except ExprError as e:  # (LimitError too)
        problem = e.message
    else:
        problem = (f"the game's derived fields hold more than {MAX_DERIVED_SIZE:,} characters in all as printed "
                   "(does a field hold whole items or tables? derive a number, a name or a list of ids)")
    if fname not in failed:
        chk.error(f"derived field '{fname}': {problem}", derived.mark_of(fname))
        failed.add(fname)
    return _FAILED


# what a derived value may be, as a table's own values are: none, true or false, a number, a text, a date, a
# range; and lists, mappings (an item) and sets of them
_DATA_VALUES = (type(None), bool, numbers.Number, str, datetime.date, datetime.time, range)
_DATA_CONTAINERS = (Sequence, Mapping, KeysView, ValuesView, ItemsView, AbstractSet)


def _data_only(value: object) -> object:
    """`value`, a derived field's, refused (ExprError) where it is or holds what no table holds: a namespace
    (`namespace(a=item.power)`) validated, yet no template may set into it (made elsewhere) and it prints as
    Python writes it (`<Namespace {'a': 4}>`), on the card, in the report, in an export; a cycler or a joiner is
    changed by reading it. Each container is walked once, and only once _sized found the value short enough to
    print."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, _DATA_VALUES):
            continue
        if not isinstance(node, _DATA_CONTAINERS) or callable(node):
            raise ExprError(f"a derived value is a value of the game (a number, a text, a list or a mapping of "
                            f"them), got {value_got(node)}" + (f" in {value_got(value)}" if node is not value else "")
                            + ": derive the values themselves (`item.power`, or a mapping of them), which print and "
                            "export as a table's do")
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(part for pair in node.items() for part in pair) if isinstance(node, Mapping) \
                else stack.extend(node)
    return value


def _derived(game: GameShape, name: str, i: int, item: Record, fname: str, derived: Record, failed: set[str],
             chk: CheckerShape, cache: FieldCache | None, now: dict[str, Any]) -> object:
    """One derived field of one item (from the cache when what it read is unchanged), or _FAILED (reported
    once per field); the cache's changes learn when its value is not the last load's."""
    key = ("derived", name, i, fname)
    found, before = cache.previous(key) if cache is not None else (False, None)
    value = _FAILED
    if fname not in failed:
        try:
            def compute() -> object:
                result = evaluate(derived[fname], game.context(item=item, **now))
                problem = control_problem(result) if isinstance(result, str) else None
                if problem:  # ('\u202e' in the expression): the rule of the data's own text (model.load)
                    raise ExprError(problem)
                if callable(result):  # `item.name.upper`: a method kept as the item's value, its memory address
                    # in whatever prints it
                    raise ExprError("the value is a function or a method, not a value (is a '()' missing?)")
                return result

            value = compute() if cache is None else cache.value(key, compute)
        except ExprError as e:
            if (name, i) not in game.dirty:  # a dirty item's own errors are already reported
                chk.error(f"derived field '{fname}': {e.message}", failed_at(derived.mark_of(fname), e))
                failed.add(fname)
    if cache is not None and (value is _FAILED or not found or not same(before, value)):
        cache.changes.add(name, i, fname)
    return value



def table_enums(game: GameShape, table: str) -> dict[str, list[object]]:
    """The fields of a table's items that hold one of an enum's values, with those values (none for a table
    whose fields are not a mapping: that is said where they are checked), as check_tables found them in its
    schema: a Schema made again at each call was made for every template, filter and derived field."""
    return game.enum_fields.get(table, {})
