"""The design report's views: charts a game declares in game.yaml's `report:`, checked against its tables."""

from collections.abc import Iterator, Mapping
from typing import Any

from ..report import named
from .load import MarkedList, Record
from .shapes import CheckerShape, GameShape

VIEW_KINDS = ("scatter", "counts", "histogram", "bars")

VIEW_FIELDS = {
    "kind": {"type": "enum", "values": list(VIEW_KINDS),
             "doc": "scatter: y against x, a trend fitted, the rows furthest from it named; counts: rows per value "
                    "of x (by a second field `by`: a grid of counts; 40 values a side at most); histogram: how a number is spread (per value "
                    "of `by`: one series each); bars: each row's number x as a bar named by `label`"},
    "table": {"type": "str", "doc": "the table whose rows are charted"},
    "x": {"type": "str", "doc": "a field of the table (typed or derived): across the chart"},
    "y": {"type": "str", "required": False, "doc": "scatter: the number up the chart"},
    "by": {"type": "str", "required": False,
           "doc": "a field whose values split the rows: colours in a scatter or histogram, columns of counts"},
    "weight": {"type": "str", "required": False,
               "doc": "counts: add up this number per value instead of counting rows (e.g. copies)"},
    "label": {"type": "str", "required": False,
              "doc": "the field naming a row in a scatter or bars (default: name, else id)"},
    # (capped: a doc of 60,000 words took ReportLab 35 s to set across pages)
    "title": {"type": "str", "required": False, "max_len": 200,
              "doc": "the chart's heading (default: made from the fields), 200 characters at most"},
    "doc": {"type": "str", "required": False, "max_len": 2000,
            "doc": "what the view shows the designer, printed under its title, 2,000 characters at most"},
}

NUMERIC_TYPES = ("int", "number")


def field_type(spec: object) -> str:
    """A table field's type name from its spec in game.yaml ('str' when it is not said)."""
    if isinstance(spec, str):
        return spec
    return str(spec.get("type", "str")) if isinstance(spec, Mapping) else "any"


def table_fields(spec: Mapping[str, Any]) -> dict[str, str]:
    """{field: type} of a table as game.yaml declares it; derived fields have the type 'derived'."""
    fields = spec.get("fields")
    out = {name: field_type(f) for name, f in fields.items()} if isinstance(fields, Mapping) else {}
    for name in spec.get("derived") or ():
        out.setdefault(name, "derived")
    return out


# The largest number a chart or a margin places: the sums, differences and squares a chart makes of its
# numbers stay finite (two derived values of +-1.7e308 made a histogram's range infinite, and a scatter's
# trend and a counts view's weights overflowed: tracebacks), and the smallest but 0
MAX_CHARTED = 1e100
# The points a report's scatters draw in all: a point costs ReportLab a few milliseconds to draw and measure
# (16 scatters of 3,000 rows took a minute); two scatters of the benchmark's 10,000 rows
MAX_SCATTER_POINTS = 20_000
# The values of `by` a scatter or histogram colours apart: the report's palette (draw.charts.PALETTE) and its
# legend beside the chart hold this many; 300 drew a legend down the page, over the next sections and past its foot
MAX_SERIES = 8


def is_number(value: object) -> bool:
    """A number a chart or a margin can place: infinity, nan, a number past MAX_CHARTED (a derived
    `10 ** 1000 * item.power`) or nearer 0 than its inverse have no place on an axis (a histogram of one
    ended in a traceback)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        size = abs(float(value))
    except OverflowError:
        return False
    return size == 0 or 1 / MAX_CHARTED <= size <= MAX_CHARTED  # (and 5e-324's round step is 0: StopIteration)


def numeric(game: GameShape, table: str, name: str, kind: str) -> bool:
    """Whether a field holds numbers a chart can place: typed int/number or derived, with such a number (or
    nothing) in every row (a typed 1.7e+308 is a number, but not one a chart can place)."""
    if kind not in NUMERIC_TYPES and kind != "derived":
        return False
    values = [it.get(name) for it in game.tables.get(table, ())]
    return all(v is None or is_number(v) for v in values)


def default_label(fields: Mapping[str, object]) -> str:
    return "name" if "name" in fields else "id"


def scatter_points(game: GameShape, view: Record) -> int:
    """The points a scatter view draws: its rows' distinct (by, x, y), rows on one spot drawn once."""
    x, y, by = view["x"], view["y"], view.get("by")
    return len({(series_key(row.get(by)) if by else None, row.get(x), row.get(y)) for row in game.tables.get(view["table"], ())
                if is_number(row.get(x)) and is_number(row.get(y))})


def check_views(game: GameShape, views: MarkedList, chk: CheckerShape) -> None:
    """Every view's table and fields must exist, and fields that are charted as numbers must hold numbers;
    the scatters draw at most MAX_SCATTER_POINTS points in all."""
    drawn = 0
    for view in views:
        if not _check_view(game, view, chk) or view["kind"] != "scatter" or drawn > MAX_SCATTER_POINTS:
            continue
        drawn += scatter_points(game, view)
        if drawn > MAX_SCATTER_POINTS:  # said once, at the view past the limit
            chk.error(f"report: the scatters draw {drawn:,} points up to this one, more than the {MAX_SCATTER_POINTS:,} "
                      "a report draws (each takes a few milliseconds); chart fewer scatters of the large table",
                      view.mark_of("kind"))


def _check_view(game: GameShape, view: Record, chk: CheckerShape) -> bool:
    """Check one view (see check_views); whether it is sound."""
    table = view["table"]
    if table not in game.tables:
        chk.error(f"report: no table {named(table)}{chk.suggest(table, game.tables)}", view.mark_of("table"))
        return False
    fields = table_fields(game.meta["tables"][table])
    for key in ("x", "y", "by", "weight", "label"):
        name = view.get(key)
        if name is not None and name not in fields:
            chk.error(f"report: table '{table}' has no field {named(name)}{chk.suggest(name, fields)}",
                      view.mark_of(key))
            return False
    sound = True
    for message, key in _shape_problems(game, view, fields):
        chk.error(f"report: {message}", view.mark_of(key) if key in view else view.mark)
        sound = False
    return sound


def _shape_problems(game: GameShape, view: Record, fields: dict[str, str]) -> Iterator[tuple[str, str]]:
    """(message, key) for what the view's kind needs and lacks."""
    kind, table = view["kind"], view["table"]
    wants_number = {"scatter": ("x", "y"), "histogram": ("x",), "bars": ("x",), "counts": ("weight",)}[kind]
    if kind == "scatter" and view.get("y") is None:
        yield "a scatter needs 'y', the number up the chart", "kind"
    for key in ("weight",) if kind != "counts" else ():
        if view.get(key) is not None:
            yield f"'{key}' is for counts only", key
    if kind == "bars" and view.get("by") is not None:
        yield "bars take no 'by' (use counts or a histogram)", "by"
    title = view.get("title")
    if isinstance(title, str) and not title.strip():  # a chart printed without a heading
        yield "'title' is blank: the chart would have no heading; write it, or leave it out (a title is made)", "title"
    yield from _naming_problems(game, view, fields)
    yield from _series_problems(game, view, fields)
    for key in wants_number:
        name = view.get(key)
        if name is not None and not numeric(game, table, name, fields[name]):
            yield f"a {kind} charts '{name}' as a number, but it is {fields[name]}" + (
                " and not every row's value is a number a chart can place (text, infinity, nan, past 1e100 or nearer 0 than 1e-100)"
                if fields[name] == "derived" or fields[name] in NUMERIC_TYPES else ""), key


def _series_problems(game: GameShape, view: Record, fields: dict[str, str]) -> Iterator[tuple[str, str]]:
    """(message, "by") for a scatter or histogram colouring its rows by more values than it tells apart."""
    kind, table, by = view["kind"], view["table"], view.get("by")
    if kind not in ("scatter", "histogram") or by is None or not names_rows_plainly(game, table, by, fields[by]):
        return
    told = {series_key(row.get(by)) for row in game.tables.get(table, ())}
    if len(told) > MAX_SERIES:
        yield (f"a {kind} colours its rows by '{by}', which has {len(told):,} values: at most {MAX_SERIES} can be "
               "told apart (the report's colours); use a field of fewer values, or counts"), "by"


NAMING_KEYS = {"counts": ("x", "by"), "scatter": ("by", "label"), "histogram": ("by",), "bars": ("label",)}


def series_key(value: Any) -> tuple[bool, Any]:
    """The key a chart tells a value apart by: yes and no apart from the numbers 1 and 0, which Python holds
    equal (a derived field giving yes for some rows and 1 for others drew one bar '1' counting both). A list or
    mapping, which a typed field's row still holds where its type refused it (an error at its line already), is
    told apart by how it prints: it cannot be hashed, and the views are checked after the fields (a crash)."""
    return isinstance(value, bool), value if _plain(value) else repr(value)


def names_rows_plainly(game: GameShape, table: str, name: str, kind: str) -> bool:
    """Whether a field holds values a chart can name a bar, a colour or a point by: no lists or mappings."""
    if kind in ("list", "map", "record"):
        return False
    if kind != "derived":
        return True
    return all(_plain(v) for v in (it.get(name) for it in game.tables.get(table, ())))


def _plain(value: Any) -> bool:
    """Whether `value` is one a chart can name a row by: a text, a number, yes or no, or nothing."""
    return value is None or isinstance(value, (str, bool, int, float))


def _naming_problems(game: GameShape, view: Record, fields: dict[str, str]) -> Iterator[tuple[str, str]]:
    """(message, key) for a field the view names rows by (its categories, colours, labels) that holds lists
    or mappings: they have no name to print, and cannot be counted as one value."""
    for key in NAMING_KEYS[view["kind"]]:
        name = view.get(key)
        if name is not None and not names_rows_plainly(game, view["table"], name, fields[name]):
            yield (f"a {view['kind']} names rows by '{name}' ('{key}'), but it is {fields[name]} and holds lists or "
                   "mappings, not a value to name a row by"), key
