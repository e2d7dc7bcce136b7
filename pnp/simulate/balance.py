"""Balance rules checked on a run's figures: each rule of game.yaml's `balance:` reported like every other rule,
at its file:line, with the value measured, its limit and margin, and the items at fault."""

from dataclasses import dataclass
from typing import Any

from ..errors import BudgetSpent, ExprError
from ..model.game import Game
from ..model.constraints import rendered_message
from ..model.load import Record
from ..model.margins import nearest_comparison
from ..report import Mark
from ..template import condition_holds, evaluate
from .stats import Measured, expression_view, item_view

SHOWN_ITEMS = 8  # items named in one failing rule's message; the rest are counted


@dataclass
class Outcome:
    """One balance rule's result: `holds`, the nearest comparison's value/op/limit/margin, the failing items."""

    expr: str
    mark: Mark | None
    holds: bool
    value: float | None = None  # a Measured where the run measured it
    op: str = ""
    limit: float | None = None
    margin: float | None = None
    row: str = ""
    failing: tuple[str, ...] = ()
    message: str = ""


Row = dict[str, Any]  # what a rule with `each:` reads as `item` (stats.item_view)
Nearest = tuple[tuple[float, float, str, float], Row | None]  # ((margin, value, op, limit), its row)


def check_balance(game: Game, summary: dict[str, Any]) -> list[Outcome]:
    """Every balance rule's Outcome on this run's summary, up to the rule where the game's template time ran out:
    that one fails, at its `expr`, saying so; the rules after it are left unchecked. (BudgetSpent escaped the
    command: `Error: the game's templates took longer than 8 s in all`, without the file and line at fault nor
    the rules before it. The stop may meet a rule as that BudgetSpent, where reading its figures for one item
    passed over the LimitError that ran out: then it is said at that rule.)"""
    sim = expression_view(summary)
    outcomes: list[Outcome] = []
    for rule in game.meta.get("balance", ()):
        try:
            outcomes.append(_check(game, rule, sim, summary))
        except BudgetSpent as e:
            if not (outcomes and e.message in outcomes[-1].message):  # (not said where it ran out: said here)
                outcomes.append(Outcome(str(rule["expr"]), rule.mark_of("expr"), False,
                                        message=f"balance rule failed to evaluate: {e.message}"))
            break
    return outcomes


def _check(game: Game, rule: Record, sim: dict[str, Any], summary: dict[str, Any]) -> Outcome:
    expr, each = str(rule["expr"]), rule.get("each")
    outcome = Outcome(expr, rule.mark_of("expr"), True)
    rows = [None] if each is None else [item_view(i, s) for i, s in summary["items"].get(each, {}).items()]
    if not rows:  # no item to judge: the rule "held" on none, with exit 0
        tracked = summary.get("tracked")
        why = f"the rules do not track {each} (their ITEMS: {', '.join(map(str, tracked)) or 'none'})" \
            if isinstance(tracked, dict) and each not in tracked else f"no item of {each} was in play in any game"
        outcome.holds, outcome.mark = False, rule.mark_of("each")
        outcome.message = f"balance rule 'each: {each}': {why}, so the run measured none of its items"
        return outcome
    failing: list[Row | None] = []
    nearest: Nearest | None = None
    for row in rows:
        context = game.context(sim=sim, item=row) if row is not None else game.context(sim=sim)
        try:
            ok = condition_holds(evaluate(expr, context))
            measured = nearest_comparison(expr, context)  # (LimitError where reading it ran out of memory)
        except ExprError as e:
            outcome.holds, outcome.message = False, f"balance rule failed to evaluate: {e.message}"
            return outcome
        if measured is not None and (nearest is None or measured[0] < nearest[0][0]):
            nearest = (measured, row)
        if not ok:
            failing.append(row)
    _conclude(game, rule, sim, outcome, nearest, failing)
    return outcome


def _conclude(game: Game, rule: Record, sim: dict[str, Any], outcome: Outcome, nearest: Nearest | None,
              failing: list[Row | None]) -> None:
    """Fill in the nearest comparison's figures, whether the rule holds, the items at fault and the message."""
    if nearest is not None:
        (outcome.margin, outcome.value, outcome.op, outcome.limit), row = nearest
        outcome.row = row["name"] if row else ""
    outcome.holds = not failing
    outcome.failing = tuple(row["name"] for row in failing if row is not None)
    if failing:  # the message speaks of the row whose figures it shows, when that row fails
        shown = nearest[1] if nearest is not None and any(nearest[1] is row for row in failing) else failing[0]
        outcome.message = _message(game, rule, shown, sim, outcome)


def _message(game: Game, rule: Record, row: Row | None, sim: dict[str, Any], outcome: Outcome) -> str:
    text = rule.get("message")
    if text:
        try:
            text = rendered_message(str(text), game.context(sim=sim, item=row) if row is not None else
                                    game.context(sim=sim))
        except ExprError as e:
            text = f"balance rule not met: {outcome.expr} (its message failed: {e.message})"
    else:
        text = f"balance rule not met: {outcome.expr}"
    if outcome.margin is not None:
        text += f" ({figures(outcome)})"
    if outcome.failing:
        shown = ", ".join(outcome.failing[:SHOWN_ITEMS])
        more = len(outcome.failing) - SHOWN_ITEMS
        text += f"; at fault: {shown}" + (f" and {more} more" if more > 0 else "")
    return text


def figures(outcome: Outcome) -> str:
    """The nearest comparison's figures: the value measured with its 95% interval, the limit and the margin
    (taken from the interval's end, as the rule is judged). The interval's ends are joined by 'to': a gap's
    runs below 0, and '-1--0.307' read as a range of garbled signs."""
    value = outcome.value
    if isinstance(value, Measured):
        shown = "nothing (no games)" if value.n == 0 else \
            f"{_num(float(value))} [95% interval {_num(value.low)} to {_num(value.high)}]"
    else:
        shown = _num(value)
    return f"measured {shown} {outcome.op} {_num(outcome.limit)}, margin {_num(outcome.margin)}"


def _num(value: object) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)
