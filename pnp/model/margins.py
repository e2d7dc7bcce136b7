"""How far each constraint of a game is from failing: its comparisons evaluated side by side on the data."""

import operator
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import DataError, ExprError, LimitError, failed_at
from ..template import Side, comparisons, condition_holds, evaluate, out_of_time
from .load import Record
from .shapes import GameShape

# A side's value: a number, or one of pnp simulate's measured figures (an interval, `low` and `high`), which
# compares and subtracts like one.
Figure = float
Pairs = list[tuple[Side, str, Side]]  # the comparisons of an expression: (left, operator, right)
Measure = tuple[float, Figure, str, Figure, bool]  # (margin, value, operator, limit, holds)

# The names a side reads that make it "the value the data gives"; the other side is the limit.
DATA_NAMES = frozenset({"data", "item", "ref", "components", "macros", "sim"})  # sim: pnp simulate's figures

# The largest number a margin measures: the difference of two stays finite (limit - value)
MAX_MEASURED = 1e300

HOW = ("The margin is how far the value the data gives may move before the rule fails: limit - value for "
       "<= and <, value - limit for >= and >, the distance between them for !=, and 0 for == (any change breaks "
       "it). The limit is the side of the comparison that reads the rules (game.rules...) or no data, the value "
       "the other; a chain a <= b <= c and comparisons joined by 'and' are each measured and the nearest is "
       "shown. For a rule checked on each row, the row with the smallest margin is named. Rules are listed by "
       "the margin relative to the limit (margin / the larger of |limit| and 1), nearest to failing first; a rule "
       "that is not a comparison of numbers (or of numbers past 1e300) is listed as holding, without a margin.")


@dataclass
class Margin:
    """One constraint's standing: `margin` None when it is not a comparison of numbers."""

    expr: str
    each: str | None = None
    value: Figure | None = None
    op: str = ""
    limit: Figure | None = None
    margin: float | None = None
    row: str = ""  # with `each`: the row nearest its limit
    holds: bool = True
    line: int = 0

    @property
    def relative(self) -> float:
        if self.margin is None:
            return float("inf")
        assert self.limit is not None  # measured with the margin
        return self.margin / max(abs(self.limit), 1)


def _measure(op: str, value: Figure, limit: Figure) -> float:
    """The margin of `value op limit` (value and limit as the comparison is read with the value first). A
    figure measured with an interval (pnp simulate's: `low`, `high`) is ordered by its interval, so its
    margin is taken from the end of the interval nearest the limit's far side."""
    if op in ("<=", "<"):
        return getattr(limit, "high", limit) - getattr(value, "low", value)
    if op in (">=", ">"):
        return getattr(value, "high", value) - getattr(limit, "low", limit)
    if op == "!=":
        return abs(value - limit)
    return 0.0 - abs(value - limit)  # ==: 0 when it holds (-abs made it -0.0, printed "-0")


_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


_HOLDS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
          "!=": operator.ne}


class _Sides:
    """Each side's value in a context; a side that does not read `item` is the same for every row, so it is
    evaluated once."""

    def __init__(self) -> None:
        self.fixed: dict[int, object] = {}

    def value(self, side: Side, context: dict[str, Any]) -> object:
        if "item" in side.names:
            return side.value(context)
        if id(side) not in self.fixed:
            self.fixed[id(side)] = side.value(context)
        return self.fixed[id(side)]


def _measurable(value: object) -> bool:
    """A number a margin is taken of: one whose differences stay finite. Charts leave out a number nearer 0
    than they place (views.is_number), but a margin measures it: `x * 1e-320 >= 0` was listed as holding with
    no margin, as a rule that compares no numbers."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return abs(float(value)) <= MAX_MEASURED  # (nan is not)
    except OverflowError:  # a whole number past any float
        return False


def _pair(left: Side, op: str, right: Side, values: tuple[Any, Any]) -> Measure | None:
    """(margin, value, op, limit, holds) of one comparison of two numbers; None when they are not."""
    a, b = values
    if not (_measurable(a) and _measurable(b)):
        return None
    holds = _HOLDS[op](a, b)
    if not _limit_like(left) or _limit_like(right):
        return _measure(op, a, b), a, op, b, holds
    return _measure(_FLIPPED[op], b, a), b, _FLIPPED[op], a, holds


def _limit_like(side: Side) -> bool:
    """A side that reads the rules (game.rules...) or no data at all reads as a limit."""
    return "game" in side.names or not (side.names & DATA_NAMES)


def _nearest(pairs: Pairs, context: dict[str, Any], sides: _Sides) -> tuple[Measure, bool] | None:
    """The comparison nearest to failing and whether all hold; None when any is not a comparison of numbers."""
    best: Measure | None = None
    holds = True
    for left, op, right in pairs:
        found = _pair(left, op, right, (sides.value(left, context), sides.value(right, context)))
        if found is None:
            return None
        holds = holds and found[4]
        if best is None or found[0] / max(abs(found[3]), 1) < best[0] / max(abs(best[3]), 1):
            best = found
    assert best is not None  # asked only of comparisons there are
    return best, holds


def nearest_comparison(expr: object, context: dict[str, Any]) -> tuple[float, Figure, str, Figure] | None:
    """(margin, value, op, limit) of the comparison in `expr` nearest to failing in one context (a balance
    rule's, say); None when the expression is not comparisons of numbers or a side fails alone."""
    pairs = comparisons(expr)
    try:
        found = _nearest(pairs, context, _Sides()) if pairs else None
    except ExprError:
        return None
    return found[0][:4] if found else None


def _label(item: object) -> str:
    return str(item.get("name") or item.get("id") or "") if hasattr(item, "get") else ""


def _measured(game: GameShape, pairs: Pairs, items: Iterable[Record | None],
              each: str | None) -> tuple[list[tuple[float, int, tuple[float, Figure, str, Figure], Record | None]],
                                         bool] | None:
    """[(relative margin, row index, measurement, item)] and whether every row holds; None when a row's sides
    are not numbers."""
    sides, holds = _Sides(), True
    found: list[tuple[float, int, tuple[float, Figure, str, Figure], Record | None]] = []
    for i, item in enumerate(items):
        measured = _nearest(pairs, game.context(item=item) if each else game.context(), sides)
        if measured is None:
            return None
        (margin, value, op, limit, _), ok = measured
        holds = holds and ok
        found.append((margin / max(abs(limit), 1), i, (margin, value, op, limit), item))
    return found, holds


def _refuse_over_time(c: Record, e: ExprError) -> None:
    """A rule whose margin ran out of the game's time (the check's and the report's together) is an error at
    its line, not a rule said to fail or to have no margin: a failed side is said as any ExprError."""
    if out_of_time(str(c["expr"])):
        raise DataError(f"constraint: measuring its margin for the design report: {e.message}",
                        failed_at(c.mark_of("expr"), e)) from None


def constraint_margin(game: GameShape, c: Record) -> Margin:
    """The Margin of one constraint (as game.yaml's `constraints:` gives it)."""
    expr, each = str(c["expr"]), c.get("each")
    result = Margin(expr, each, line=getattr(c.mark_of("expr"), "line", 0))
    try:
        pairs = comparisons(expr)
    except LimitError as e:  # (reading it ran out of memory) the report is not made: said at the rule's line
        raise DataError(f"constraint: {e.message}", failed_at(c.mark_of("expr"), e)) from None
    items: Iterable[Record | None] = game.tables.get(each, ()) if each else [None]
    try:
        measured = _measured(game, pairs, items, each) if pairs else None
    except ExprError as e:  # a side that fails alone (the other side of an `and` guarded it): no margin
        _refuse_over_time(c, e)
        measured = None
    if measured is None:
        try:
            result.holds = all(condition_holds(evaluate(expr, game.context(item=item) if each else game.context())) for item in items)
        except ExprError as e:
            _refuse_over_time(c, e)
            result.holds = False
        return result
    found, result.holds = measured
    if found:
        # rows of one rule share its units: the nearest is the smallest margin (then the relative one)
        nearest = min(found, key=lambda f: (f[2][0], f[0], f[1]))
        (result.margin, result.value, result.op, result.limit), item = nearest[2], nearest[3]
        result.row = _label(item) if each else ""
    return result


def margins(game: GameShape) -> list[Margin]:
    """Every constraint's Margin, nearest to failing first (at the same margin an inequality before an equality,
    which is always at 0; those without a margin last, in file order)."""
    out = [constraint_margin(game, c) for c in game.meta["constraints"]]
    return sorted(out, key=lambda m: (m.margin is None, m.relative if m.margin is not None else 0, m.op == "=="))
