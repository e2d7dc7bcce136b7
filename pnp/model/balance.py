"""Balance rules: game.yaml's `balance:`, constraints over what `pnp simulate` measures by playing. Loading
checks their syntax only; pnp simulate evaluates them."""

from ..errors import failed_at
from ..template import ExprError, compile_expression, compile_template, constant_condition, is_template
from .load import MarkedList
from .shapes import CheckerShape, GameShape

BALANCE_FIELDS = {
    "expr": {"type": "condition",
             "doc": "a Jinja expression over the simulation that must be true, e.g. "
                    "sim.seat_win_rate[0] >= 0.4 and sim.seat_win_rate[0] <= 0.6 (see `pnp simulate`)"},
    "each": {"type": "str", "required": False,
             "doc": "a table the rules track: the expression is checked once per item in play, seen as `item` "
                    "(item.taken, item.gap, item.<event>...); the items that fail are named"},
    "message": {"type": "str", "required": False, "doc": "what to print when it is false (a template; at most 2,000 characters)"},
    "doc": {"type": "str", "required": False, "doc": "why the rule exists"},
}


def check_balance_syntax(game: GameShape, rules: MarkedList, chk: CheckerShape) -> None:
    """Each balance rule's expression and message parse, and its `each` names a table."""
    for rule in rules:
        each = rule.get("each")
        if each is not None and each not in game.tables:
            chk.error(f"balance rule 'each: {each}' names no table{chk.suggest(each, game.tables)}",
                      rule.mark_of("each"))
        try:
            compile_expression(rule["expr"])
            constant = constant_condition(str(rule["expr"]))
            if constant is not None:
                chk.error(f"balance rule: {constant}", rule.mark_of("expr"))
        except ExprError as e:
            chk.error(f"balance rule: {e.message}", failed_at(rule.mark_of("expr"), e))
        message = rule.get("message")
        if is_template(message):
            try:
                compile_template(message)
            except ExprError as e:
                chk.error(f"balance rule's message: {e.message}", failed_at(rule.mark_of("message"), e))
