"""The design report: every table's numbers and values charted, the views game.yaml declares, and each
constraint's margin, as blocks that draw.charts lays out into a PDF."""

import bisect
import math
import statistics
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model.load import MarkedList, Record
from ..model.margins import HOW, margins
from ..model.views import default_label, is_number, numeric, series_key, table_fields
from ..options import blank
from ..report import Mark, counted, shortened
from ..template import printed_number
from .simulation import Simulated, read_simulation, simulation_blocks, warnings

if TYPE_CHECKING:
    from ..draw.charts import Block
    from ..model.game import Game
    from ..draw.fonts import FontSet
    from ..project import Project
    from ..report import Report

Emit = Callable[[str, str, Any], None]  # (event, game id, value), as a build tells its progress
View = Mapping[str, Any]  # one view of game.yaml's `report`

MAX_BARS = 40  # categories drawn in one chart; the rest are said in a line
MAX_INT_BARS = 24  # whole numbers spanning at most this many values get one bar each
BINS = 12
FEW = 5  # numbers up to which a field's values are listed rather than charted


SHOWN = 60  # characters of a value the report prints: a long text would be a paragraph taller than the page
# characters of a rule the margins' table prints (about 8 lines of its column): a row never splits, and one of a
# rule thousands of characters long was taller than a page (ReportLab's LayoutError)
RULE_SHOWN = 600


def _text(value: object) -> str:
    """A value as the report names it (a bar, a point, a table's min and max): as a card prints it, a float to
    the digits a template prints (four digits named 11000.25 and 11000.5 both '1.1e+04', two bars alike)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):  # (a whole one as a whole number: a median 3, not 3.0)
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else printed_number(value)
    said = "(none)" if value is None else str(value)
    if blank(said):  # a bar or point named by a blank text (or zero-width spaces) was named by nothing
        return "(blank)"
    return shortened(said, SHOWN)


def _nice(step: float) -> float:
    """The round step (1, 2, 2.5 or 5 times a power of ten) at or above `step`."""
    power = 10 ** math.floor(math.log10(step))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= step * (1 - 1e-9))


def _bounds_text(bounds: list[float]) -> list[str]:
    """The bars' bounds (increasing) as text, in as few significant digits (4 at least) as tell them all apart:
    bars of values that agree in their first 4 digits were all labelled '1-1'."""
    for digits in range(4, 18):  # (17 tell any two floats apart)
        texts = [f"{bound:.{digits}g}" for bound in bounds]
        if len(set(texts)) == len(texts):
            break
    return texts


class Bins:
    """How numbers are grouped into bars: one bar per whole number over a short range, else about BINS bins of
    a round width (the last one closed)."""

    whole: bool
    start: float  # where the first bar starts
    width: float  # of each bar
    labels: list[str]  # a bar's

    def __init__(self, values: Sequence[float]) -> None:
        lo, hi = min(values), max(values)
        self.whole = all(isinstance(v, int) for v in values) and hi - lo < MAX_INT_BARS
        if self.whole:
            self.start, self.width, n = lo, 1, hi - lo + 1
            self.labels = [str(v) for v in range(int(lo), int(hi) + 1)]  # whole: ints already
            return
        step = hi / BINS - lo / BINS  # (hi - lo may pass a float's range)
        self.width = _nice(step) if step > 0 else 1.0
        first = math.floor(lo / self.width)  # bars are counted in widths: a difference of values may overflow
        self.start = first * self.width
        n = max(1, math.ceil(hi / self.width - first + 1e-9))
        if (first + n) * self.width <= hi:
            n += 1
        # each bound the number its label writes, as a value written so is read (0.6 is 3 widths of 0.2 while
        # 3 * 0.2 is 0.6000000000000001), and a value counted in the bar its bounds hold it in: 0.6 / 0.2 is
        # 2.9999999999999996, and 0.6 was counted in the bar '0.4-0.6'
        bounds = [float(Decimal(first + i) * Decimal(repr(self.width))) for i in range(n + 1)]
        self.bounds = bounds
        if not step > 0 or len(set(bounds)) <= n:  # values closer than floats of their size tell apart: one bar
            self.labels = [_text(lo) if lo == hi else "-".join(_bounds_text([lo, hi]))]
            return
        texts = _bounds_text(bounds)
        self.labels = [f"{texts[i]}-{texts[i + 1]}" for i in range(n)]

    def index(self, v: float) -> int:
        at = int(v) - int(self.start) if self.whole else bisect.bisect_right(self.bounds, v) - 1  # (whole: exact)
        return max(0, min(len(self.labels) - 1, at))

    def counts(self, values: Iterable[float]) -> list[int]:
        counts = [0] * len(self.labels)
        for v in values:
            counts[self.index(v)] += 1
        return counts


def histogram(values: Sequence[float]) -> tuple[list[str], list[int]]:
    """(labels, counts) of numbers, binned as Bins says."""
    bins = Bins(values)
    return bins.labels, bins.counts(values)


def _domain(game: "Game", name: str, spec: Any, values: Iterable[Any]) -> list[Any]:
    """The values a categorical field may take, in their declared order (enums, a ref's ids, yes/no), then
    any others the rows hold."""
    kind = spec.get("type") if hasattr(spec, "get") else spec
    domain = []
    if kind == "enum" and hasattr(spec, "get"):
        domain = list(spec.get("values") or game.enums.get(spec.get("enum"), []))
    elif kind == "ref" and hasattr(spec, "get"):
        domain = [it.get("id") for it in game.tables.get(spec.get("table"), ())]
    elif kind == "bool":
        domain = [True, False]
    elif name in game.enums:  # a derived field named after an enum (size_class) takes its values
        domain = list(game.enums[name])
    seen = {series_key(v) for v in domain}
    others = {series_key(v): v for v in values if series_key(v) not in seen}
    return domain + sorted(others.values(), key=_order)


def _order(value: Any) -> tuple[int, Any, str]:
    """Numbers in numeric order (2 before 10), then text in alphabetical order, then nothing."""
    if is_number(value):
        return 0, value, ""
    return (1, 0, _text(value)) if value is not None else (2, 0, "")


def _item_spec(spec: Any) -> Any:
    """A list field's item spec (`of`)."""
    of = spec.get("of", "str") if hasattr(spec, "get") else "str"
    return {"type": of} if isinstance(of, str) else of


def _categorical(kind: str, spec: Any, values: list[Any]) -> bool:
    """Whether a field is charted as counts per value: enums, refs, yes/no, lists of those, and derived
    fields holding text or yes/no with few distinct values."""
    if kind in ("enum", "ref", "bool"):
        return True
    if kind == "list":
        return (_item_spec(spec).get("type") if hasattr(_item_spec(spec), "get") else None) in ("enum", "ref")
    if kind == "derived":
        present = [v for v in values if v is not None]
        return bool(present) and all(isinstance(v, (str, bool)) for v in present) and len(set(present)) <= MAX_BARS
    return False


def field_block(game: "Game", table: str, name: str, kind: str, spec: Any) -> "Block | None":
    """The chart (or line) of one field of a table, or None when the field is not charted."""
    items = game.tables[table]
    values = [it.get(name) for it in items]
    if kind in ("int", "number") or (kind == "derived" and numeric(game, table, name, kind)
                                     and any(is_number(v) for v in values)):
        return _numeric_block(table, name, [v for v in values if is_number(v)], len(values))
    if not _categorical(kind, spec, values):
        return None
    if kind == "list":
        spec = _item_spec(spec)
        values = [v for vs in values if isinstance(vs, list) for v in vs]
    domain = _domain(game, name, spec, values)
    if len(domain) > MAX_BARS:  # a ref to a long table: too many bars to read; the numbers say it
        used = len(set(values) & set(domain))
        return {"kind": "note", "title": f"{table}.{name}",
                "text": f"{len(domain)} possible values (more than {MAX_BARS}: not charted), {used} used by "
                        f"{counted(len(values), 'row')}, {len(domain) - used} used by none"}
    return _counts_block(f"{table}.{name}", values, domain)


def _numeric_block(table: str, name: str, values: list[Any], rows: int) -> "Block":
    title = f"{table}.{name}"
    if not values:
        return {"kind": "note", "title": title, "text": f"no row gives {name}"}
    stats = {"min": min(values), "median": statistics.median(values), "max": max(values)}
    said = f"min {_text(stats['min'])}, median {_text(stats['median'])}, max {_text(stats['max'])}"
    if len(values) < rows:
        said += f"; {len(values)} of {rows} rows give it"
    if stats["min"] == stats["max"]:
        return {"kind": "note", "title": title, "text": _all_alike(len(values), stats["min"]), "stats": stats}
    if len(values) <= FEW:  # a histogram of a handful of numbers says less than the numbers
        return {"kind": "note", "title": title, "stats": stats,
                "text": f"{said}; the values: {', '.join(_text(v) for v in sorted(values))}"}
    bins = Bins(values)
    labels, counts = bins.labels, bins.counts(values)
    if bins.whole and len(set(counts)) == 1:  # 1, 2, 3... each as often: a flat chart would say only this
        return {"kind": "note", "title": title, "stats": stats,
                "text": f"{said}; each whole number from {labels[0]} to {labels[-1]} occurs {_times(counts[0])}"}
    return {"kind": "bars", "title": title, "text": said, "labels": labels, "series": [("rows", counts)],
            "stats": stats, "axis": name}


def _all_alike(count: int, value: Any) -> str:
    """What a note says of a field whose `count` values are all `value` (of a table of one row it said
    'all 1 values are 9')."""
    return f"its one value is {_text(value)}" if count == 1 else f"all {count} values are {_text(value)}"


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _unused_finding(unused: list[Any]) -> str:
    """The line naming the values of a field no row uses (the first 12)."""
    if not unused:
        return ""
    return f"used by no row: {', '.join(_text(u) for u in unused[:12])}" + (" ..." if len(unused) > 12 else "")


def _counts_block(title: str, values: list[Any], domain: list[Any]) -> "Block":
    counts = Counter(series_key(v) for v in values)
    unused = [d for d in domain if counts[series_key(d)] == 0]
    if len(counts) == 1 and len(domain) <= 1:
        return {"kind": "note", "title": title, "text": _all_alike(len(values), values[0])}
    if len(domain) > 1 and len({counts[series_key(d)] for d in domain}) == 1:  # a flat chart would say only this
        return {"kind": "note", "title": title,
                "text": f"each of its {len(domain)} values is used {_times(counts[series_key(domain[0])])}: "
                        f"{', '.join(_text(d) for d in domain[:12])}{' ...' if len(domain) > 12 else ''}"}
    shown = domain[:MAX_BARS]
    said = f"{len(domain)} values, {len(values)} uses"
    return {"kind": "bars", "title": title, "text": said, "finding": _unused_finding(unused),
            "labels": [_text(d) for d in shown],
            "series": [("rows", [counts[series_key(d)] for d in shown])]}


def table_blocks(game: "Game", table: str) -> list["Block"]:
    """A heading with the row count, then a chart or a line per charted field."""
    spec = game.meta["tables"][table]
    items = game.tables[table]
    blocks = [{"kind": "h2", "text": f"{table}: {len(items)} row{'s' * (len(items) != 1)}", "rows": len(items)}]
    if not items:
        return blocks + [{"kind": "p", "text": "The table is empty: nothing to chart."}]
    fields = spec.get("fields") if hasattr(spec.get("fields"), "items") else {}
    for name, kind in table_fields(spec).items():
        block = field_block(game, table, name, kind, fields.get(name, {"type": kind}))
        if block is not None:
            blocks.append(block)
    return blocks


# -- declared views --------------------------------------------------------------------------------------------

def _groups(items: Iterable["Record"], by: str | None) -> list[tuple[Any, list["Record"]]]:
    """[(value of `by`, rows having it)] in first-seen order ([(None, items)] without `by`)."""
    if by is None:
        return [(None, list(items))]
    groups: dict[tuple[bool, Any], tuple[Any, list[Record]]] = {}
    for it in items:
        groups.setdefault(series_key(it.get(by)), (it.get(by), []))[1].append(it)
    return list(groups.values())


def fit(points: Sequence[Sequence[float]]) -> tuple[float, float] | None:
    """Least squares (slope, intercept) of [(x, y)]; None for fewer than two distinct x."""
    try:
        slope, intercept = statistics.linear_regression([p[0] for p in points], [p[1] for p in points])
        return slope, intercept
    except statistics.StatisticsError:
        return None


def scatter_block(game: "Game", view: View, label: str) -> "Block":
    x, y, by = view["x"], view["y"], view.get("by")
    groups: list[dict[str, Any]] = []
    labelled: list[tuple[float, tuple[Any, Any, str]]] = []
    for value, rows in _groups(game.tables[view["table"]], by):
        points = [(it[x], it[y], _text(it.get(label))) for it in rows
                  if is_number(it.get(x)) and is_number(it.get(y))]
        trend = fit([p[:2] for p in points])
        groups.append({"name": _text(value) if by else "", "points": points, "trend": trend})
        if trend:
            labelled += [(abs(p[1] - (trend[0] * p[0] + trend[1])), p) for p in points]
    if not any(group["points"] for group in groups):  # (a field with nothing in every row)
        return {"kind": "note", "text": f"no row gives both {x} and {y}"}
    far = [p for d, p in sorted(labelled, key=lambda f: (-f[0], f[1][2]))[:4] if d > 0]
    return {"kind": "scatter", "x": x, "y": y, "groups": groups, "labelled": far}


def _left_out(domains: Iterable[tuple[str | None, list[Any]]]) -> str:
    """The line saying which fields had more values than a chart shows."""
    return "; ".join(f"{len(values):,} values of {name}, the first {MAX_BARS} shown" for name, values in domains
                     if len(values) > MAX_BARS)


def counts_view(game: "Game", view: View) -> "Block":
    x, by, weight = view["x"], view.get("by"), view.get("weight")
    items = game.tables[view["table"]]
    spec = game.meta["tables"][view["table"]].get("fields") or {}

    def dom(name: str) -> list[Any]:
        return _domain(game, name, spec.get(name, {}) if hasattr(spec, "get") else {}, [it.get(name) for it in items])
    # at most MAX_BARS values each way, the rest said in a line: 5,000 ids by 5,000 names made a grid of 25
    # million cells (3.5 GB, over a minute, still drawing)
    all_xs = dom(x)
    all_ys = dom(by) if by is not None else []
    xs, ys = all_xs[:MAX_BARS], all_ys[:MAX_BARS]
    finding = _left_out(((x, all_xs), (by, all_ys)))
    amount = (lambda it: it.get(weight) or 0) if weight else (lambda it: 1)
    if by is None:
        totals: Counter[Any] = Counter()
        for it in items:
            totals[series_key(it.get(x))] += amount(it)
        return {"kind": "bars", "labels": [_text(v) for v in xs], "finding": finding,
                "series": [(weight or "rows", [totals[series_key(v)] for v in xs])], "axis": x}
    cells: Counter[tuple[Any, Any]] = Counter()
    for it in items:
        cells[(series_key(it.get(x)), series_key(it.get(by)))] += amount(it)
    return {"kind": "grid", "rows": [_text(v) for v in xs], "cols": [_text(v) for v in ys], "row_name": x,
            "finding": finding,
            "col_name": by, "cells": [[cells[(series_key(a), series_key(b))] for b in ys] for a in xs]}


def histogram_view(game: "Game", view: View) -> "Block":
    x, by = view["x"], view.get("by")
    items = game.tables[view["table"]]
    values = [it[x] for it in items if is_number(it.get(x))]
    if not values:
        return {"kind": "note", "text": f"no row gives {x}"}
    bins = Bins(values)
    series = [(_text(value) if by else "rows", bins.counts([it[x] for it in rows if is_number(it.get(x))]))
              for value, rows in _groups(items, by)]
    return {"kind": "bars", "labels": bins.labels, "series": series, "axis": x}


def bars_view(game: "Game", view: View, label: str) -> "Block":
    seen: set[tuple[str, Any]] = set()
    labels: list[str] = []
    values: list[Any] = []
    for it in game.tables[view["table"]]:
        # (a row alike in name and number is drawn once: by its whole name, as the name cut to SHOWN characters
        # took rows whose long names began alike for one, and left them out of the chart without a word)
        key = (str(it.get(label)), it.get(view["x"]))
        if key in seen or not is_number(key[1]):
            continue
        seen.add(key)
        labels.append(_text(it.get(label)))
        values.append(key[1])
    shown = MAX_BARS * 2
    # the rows past those drawn are said, as counts says its values past MAX_BARS (they were left out silently)
    finding = f"{len(labels):,} rows give {view['x']}, the first {shown} shown" if len(labels) > shown else ""
    return {"kind": "bars", "labels": labels[:shown], "series": [(view["x"], values[:shown])],
            "axis": view["x"], "wide": True, "finding": finding}


def view_block(game: "Game", view: View) -> "Block":
    """The chart of one declared view, with its title and doc."""
    fields = table_fields(game.meta["tables"][view["table"]])
    label = view.get("label") or default_label(fields)
    block: Block
    if not game.tables[view["table"]]:
        block = {"kind": "note", "text": "the table is empty"}
    elif view["kind"] == "scatter":
        block = scatter_block(game, view, label)
    elif view["kind"] == "counts":
        block = counts_view(game, view)
    elif view["kind"] == "histogram":
        block = histogram_view(game, view)
    else:
        block = bars_view(game, view, label)
    words = {"scatter": f"{view.get('y')} against {view['x']}",
             "counts": f"{view.get('weight') or 'rows'} per {view['x']}",  # (a weighted one adds up its weight)
             "histogram": f"{view['x']}", "bars": f"{view['x']} per {label}"}[view["kind"]]
    by = f" by {view['by']}" if view.get("by") else ""
    said = block.get("text", "") if block["kind"] == "note" else ""  # (a note's text is what the chart shows)
    block.update(title=view.get("title") or f"{view['table']}: {words}{by}",
                 text=" ".join(t for t in (view.get("doc") or "", said) if t), wide=True)
    return block


# -- the whole report ------------------------------------------------------------------------------------------

MAX_RULE_ROWS = 200  # rules the margins' table lists, nearest to failing first (the shipped games have 10 to 36): a
# table of 5,000 rules took 7 s to set; the rest are counted in a line


def margin_rows(game: "Game") -> list[list[str]]:
    rows = []
    measured = margins(game)
    for m in measured[:MAX_RULE_ROWS]:
        where = f" (each {m.each}{': ' + _text(m.row) if m.row else ''})" if m.each else ""
        rule = shortened(m.expr, RULE_SHOWN)
        if m.margin is None:
            rows.append([rule + where, "", "", "", "holds" if m.holds else "FAILS"])
        else:
            rows.append([rule + where, _text(m.value), f"{m.op} {_text(m.limit)}", _text(m.margin),
                         "holds" if m.holds else "FAILS"])
    rest = measured[MAX_RULE_ROWS:]
    if rest:  # (the rules past those listed are farther from failing, or have no margin; those that fail are said)
        failing = sum(not m.holds for m in rest)
        rows.append([f"{counted(len(rest), 'more rule')}, farther from failing or without a margin, not listed", "", "", "",
                     f"{failing:,} FAIL" if failing else "hold"])
    return rows


def report_title(game: "Game") -> str:
    """The game's title as the report prints it (heading, footer, PDF title): Game.shown_title."""
    return game.shown_title


def report_blocks(game: "Game", step: Callable[[str], None] = lambda label: None,
                  simulated: Simulated | None = None) -> list["Block"]:
    """Every block of a game's report, in order; `step(label)` after each part (for a progress bar).
    `simulated`: what was read of the game's simulation.json, charted in its own section."""
    blocks: list[Block] = [{"kind": "h1", "text": f"{report_title(game)}: design report"}]
    views = game.meta.get("report") or []
    if views:
        blocks.append({"kind": "h2", "text": "Views"})
        for view in views:
            blocks.append(view_block(game, view))
            step(f"view of {view['table']}")
    blocks += [{"kind": "h2", "text": "Rules and their margins"}, {"kind": "p", "text": HOW},
               {"kind": "table", "header": ["rule", "value", "limit", "margin", ""], "rows": margin_rows(game)}
               if game.meta["constraints"] else {"kind": "p", "text": "The game has no constraints."}]
    step("margins")
    if simulated is not None:
        blocks += simulation_blocks(game, simulated)
        step("simulation")
    blocks.append({"kind": "h1", "text": "Tables"})
    for table in game.tables:
        blocks += table_blocks(game, table)
        step(f"table {table}")
    return _charts_capped(blocks)


MAX_CHARTS = 40  # charts of views and fields one report draws: ReportLab takes about 0.08 s to draw each (the
# shipped games draw 10 to 30), and a table of 1,000 number fields took 81 s
CHARTS = ("bars", "scatter", "grid")
# lines said of fields instead of a chart (a field of one value, a handful of numbers) one report prints: each took
# about 0.25 ms to set, and a table of 20,000 fields of three rows printed 20,000 of them in 5 s (1,000 pages)
MAX_NOTES = 400


def _capped_as(block: "Block") -> str | None:
    """The cap a block counts against: "charts", "notes" or none."""
    return "charts" if block["kind"] in CHARTS else "notes" if block["kind"] == "note" else None


def _left_out_line(cap: str, titles: list[str]) -> "Block":
    """The line naming a run of blocks left out past their cap."""
    shown = ", ".join(_text(title) for title in titles[:12]) + (" ..." if len(titles) > 12 else "")
    if cap == "charts":
        return {"kind": "p", "text": f"Not charted, as a report draws its first {MAX_CHARTS} charts: "
                                     f"{len(titles)} more ({shown})."}
    return {"kind": "p", "text": f"Not said, as a report says its first {MAX_NOTES} lines of fields and views: "
                                 f"{len(titles):,} more ({shown})."}


def _charts_capped(blocks: list["Block"]) -> list["Block"]:
    """The blocks with the charts past the first MAX_CHARTS, and the notes past the first MAX_NOTES, left out,
    each run of them named in one line (a note of each was as slow to set as the charts: 1,000 fields took
    8 s)."""
    out: list[Block] = []
    drawn = {"charts": 0, "notes": 0}
    limits = {"charts": MAX_CHARTS, "notes": MAX_NOTES}
    left_out: dict[str, list[str]] = {}
    for block in blocks + [{"kind": "end"}]:
        cap = _capped_as(block)
        if cap is not None:
            drawn[cap] += 1
            if drawn[cap] > limits[cap]:
                left_out.setdefault(cap, []).append(block.get("title") or "")
                continue
        out += [_left_out_line(cap, titles) for cap, titles in left_out.items()]
        left_out = {}
        out.append(block)
    return out[:-1]


def steps(game: "Game") -> int:
    """How many times report_blocks calls `step`."""
    return len(game.meta.get("report") or []) + 2 + len(game.tables)


def game_report_pdf(project: "Project", game_id: str, report: "Report",
                    emit: Emit = lambda *event: None) -> bytes | None:
    """Check a game's data and draw its design report; the PDF's bytes, or None when the data has errors
    (they are in `report`). Nothing is written. `emit(event, game_id, value)` tells progress as the build's
    does, all but the "end"."""
    from ..errors import BudgetSpent
    from ..template import budget

    emit("check", game_id, None)
    # one budget for the check and the report's own expressions (each rule's sides measured again for its
    # margin, the balance rules): the margins were measured outside it, and a rule over every pair of rows that
    # the check ran in just under 8 s took as long again (16 s, no end said)
    with budget():
        try:
            return _report_pdf(project, game_id, report, emit)
        except BudgetSpent as e:  # (said where it ran out, unless it carries its place)
            if e.mark is not None:
                report.add(e)
            report.consequence(f"{game_id}: no report (fix the errors above)")
            return None


def _report_pdf(project: "Project", game_id: str, report: "Report", emit: Emit) -> bytes | None:
    """game_report_pdf's work, inside the game's budget."""
    import io

    from ..check import load
    from ..draw.charts import write_report
    from ..draw.fonts import load_fonts
    from ..errors import DataError, blame

    before = len(report.errors)
    game = load(project, game_id, report)
    if game.meta is None or len(report.errors) > before:
        report.consequence(f"{game_id}: no report (fix the errors above)")  # (it was counted as one error more)
        return None
    try:
        fonts = load_fonts(project)
    except DataError as e:
        report.add(e)
        return None
    simulated = read_simulation(project, game_id)
    shown = Mark(simulated.shown)
    for warning in warnings(simulated):
        report.warning(warning, shown)
    fit_names(simulated, fonts, report, project.rel(game.folder))
    emit("start", game_id, steps(game) + 1)
    try:
        blocks = report_blocks(game, lambda label: emit("step", game_id, label), simulated)
        if not printable(blocks, game, simulated, fonts, report):
            report.consequence(f"{game_id}: no report (fix the errors above)")
            return None
        pdf = io.BytesIO()
        write_report(pdf, blocks, fonts, report_title(game))
    except DataError as e:  # (a rule whose margin ran out of the game's time: said at its line)
        report.add(e)
        report.consequence(f"{game_id}: no report (fix the errors above)")
        return None
    except Exception as e:
        # an error pnp did not foresee is said at the game's `report:` views (else its game.yaml), the input
        # the report charts: a scatter drawn past its plot was 'a bug in pnp' at no file
        blame(e, game.meta.mark_of("report") if "report" in game.meta else game.meta.mark)
        raise
    return pdf.getvalue()


def fit_names(found: Simulated, fonts: "FontSet", report: "Report", folder: str) -> None:
    """The names of files the report prints (the game's id, simulation.json's path, the file changed since
    the run, the parts of it not read) with each character the report's fonts cannot print as it is read written as its escape
    (`\\u01f0`), with a warning: a name is no text of the designer's to refuse, and its characters were
    blamed on pnp's own fonts.yaml (a game folder named 'ǰ', a notes file named with an emoji, a byte no
    encoding reads: the report refused at pnp/fonts/fonts.yaml:4:5)."""
    found.game, found.file = _fitted(found.game, fonts), found.shown  # (the id said with the path, which holds it)
    found.names = lambda name: _fitted(name, fonts)  # (a balance rule's place: cards/<game>/game.yaml:12:5)
    for name in (found.shown, found.changed):
        if (fitted := _fitted(name, fonts)) != name:
            report.warning(f"the design report prints this name as '{fitted}': its fonts cannot print it as written",
                           Mark(name if name == found.changed else folder))
    found.shown, found.changed = _fitted(found.shown, fonts), _fitted(found.changed, fonts)
    # what could not be read of the file is said with its names too ('a simulation of the game 'dino-ranch', not
    # of 'ǰ'', a link's path): printed as escapes, as the warning just printed says them
    found.problems = [_fitted(problem, fonts) for problem in found.problems]


def _fitted(name: str, fonts: "FontSet") -> str:
    """`name` with each character the report's body font (regular or bold) lacks, or cannot set as read (a
    combining mark, a right-to-left letter, an unpaired surrogate of an undecodable byte), as its escape."""
    from ..draw.fonts import MARKS, unsettable

    def fits(ch: str) -> bool:
        return ch.isascii() and ch.isprintable() or (
            ch.isprintable() and not unsettable(ch) and unicodedata.category(ch) not in MARKS
            and fonts.unmapped(ch, "Body") is None and fonts.unmapped(ch, "Body", True) is None)

    return "".join(ch if fits(ch) else ch.encode("unicode_escape").decode("ascii") for ch in name)


MAX_UNMAPPED = 20  # characters the fonts lack said one by one; a report of CJK names in a Latin font lacks thousands


def printable(blocks: list["Block"], game: "Game", simulated: Simulated, fonts: "FontSet", report: "Report") -> bool:
    """Whether the fonts print every character of the report, as validate asks of every text pnp prints: each
    one a font lacks is an error at the place that first writes it (game.yaml, a table's file, simulation.json),
    else at the font's family in fonts.yaml (a character pnp draws itself)."""
    from ..draw.charts import unmapped_characters
    from ..draw.fonts import unmapped_message

    missing = unmapped_characters(blocks, fonts, report_title(game))
    shown = list(missing)[:MAX_UNMAPPED]
    places = written_at(game, set(shown))
    for ch in shown:
        in_simulation = simulated.line_of(ch)
        where = places.get(ch) or (in_simulation if in_simulation.line else fonts.credit_marks.get(missing[ch]))
        report.error(unmapped_message(ch, missing[ch]) + " (the design report prints it)", where)
    if len(missing) > len(shown):
        report.consequence(f"and {len(missing) - len(shown):,} more characters the fonts lack")
    blank = fonts.blank_problems()  # (a glyph with no outline, noted by unmapped)
    for message, mark in blank:
        report.error(message, mark)
    return not missing and not blank


def written_at(game: "Game", characters: set[str]) -> dict[str, Mark | None]:
    """Where each of `characters` is first written in game.yaml or the tables' files (a name, a value, a key),
    for those written there: one walk of their texts, ended when all are found."""
    found: dict[str, Mark | None] = {}
    for source in (game.meta, *game.tables.values()):
        for text, mark in _texts_written(source):
            for ch in characters.intersection(text):
                found[ch] = mark
                characters.discard(ch)
            if not characters:
                return found
    return found


def _texts_written(value: object) -> Iterator[tuple[str, Mark | None]]:
    """(text, where it is written) of every key and text in loaded data, however deep."""
    if isinstance(value, Record):
        for key, part in value.items():
            if isinstance(key, str):
                yield key, value.key_mark(key)
            yield from _texts_written(part) if not isinstance(part, str) else [(part, value.mark_of(key))]
    elif isinstance(value, MarkedList):
        for i, part in enumerate(value):
            yield from _texts_written(part) if not isinstance(part, str) else [(part, value.mark_of(i))]


def write_game_report(project: "Project", game_id: str, folder: str | Path, report: "Report",
                      emit: Emit = lambda *event: None) -> Path | None:
    """Check a game's data and write folder/<game>-report.pdf; returns its path, or None when the data has
    errors (they are in `report`). `emit(event, game_id, value)` tells progress as the build's does."""
    from ..errors import UsageError, cannot_write
    from ..project import output_lock, refuse_unmarked_pdf, write_file

    try:
        folder = Path(folder)
        target = folder / f"{game_id}-report.pdf"
        try:  # said before the report is drawn (and again under the lock, where it is written)
            refuse_unmarked_pdf(target, "the report", project.rel)
        except UsageError as e:
            report.error(f"{game_id}: no report: {e.message}", e.mark)
            return None
        pdf = game_report_pdf(project, game_id, report, emit)
        if pdf is None:
            return None
        try:
            with output_lock(folder, project.rel(folder)):  # the folder's writers' lock: see remove_leftovers
                refuse_unmarked_pdf(target, "the report", project.rel)  # (the user's own file of its name)
                write_file(target, pdf)  # atomic, under a name of its own: two reports at once never share a file
        except UsageError as e:
            report.error(f"{game_id}: no report: {e.message}", e.mark)
            return None
        except OSError as e:
            refused = cannot_write(project.rel(folder), e, project.rel)
            report.error(f"{game_id}: no report: {refused.message}", refused.mark)
            return None
        emit("step", game_id, "written")
        return target
    finally:
        emit("end", game_id, None)
