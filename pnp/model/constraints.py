"""Constraints: rules the data must keep, written as Jinja expressions over the whole game or each item."""

import functools
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from ..errors import failed_at, said_in_text
from ..template import ExprError, charged, compile_template, condition_holds, constant_condition, enum_mistakes, evaluate, \
    is_template, render
from ..report import QUOTE_LIMIT, Mark, printable, shortened, spelt
from .load import MarkedList, Record
from .reads import FieldCache, note_table
from .shapes import CheckerShape, GameShape
from .components import held_fields, missing_field
from .tables import ITEM, table_enums


# a message is a line or a few: one of a million characters was printed for every item that broke the rule
MAX_MESSAGE = 2_000
TOO_LONG_MESSAGE = "the message is longer than {max_chars:,} characters"

CONSTRAINT_FIELDS = {
    "expr": {"type": "condition", "doc": "a Jinja expression that must be true, e.g. data.cards | length == 52"},
    "message": {"type": "str", "required": False,
                "doc": "what to print when it is false (a template: it may show the numbers; at most 2,000 "
                       "characters)"},
    "each": {"type": "str", "required": False,
             "doc": "a table: the expression is checked once per item, which it sees as `item`"},
    "where": {"type": "str", "required": False,
              "doc": "where the message points: a table's file, or a value in the rules as rules.KEY.KEY"},
    "field": {"type": "str", "required": False,
              "doc": "with `each` or `where` naming a table: the field of its items whose line the message "
                     "points at"},
    "doc": {"type": "str", "required": False, "doc": "why the rule exists"},
}


def check_constraints(game: GameShape, constraints: MarkedList, chk: CheckerShape,
                      cache: FieldCache | None = None) -> None:
    """Check each constraint (once per item with `each`). With a `cache` (reads.py), a check whose reads did
    not change since the last load says again what it said then."""
    held = functools.cache(functools.partial(held_fields, game))  # (each table's looked through once)
    for n, c in enumerate(constraints):
        each = c.get("each")
        if each is not None and each not in game.tables:
            chk.error(f"constraint 'each: {each}' names no table{chk.suggest(each, game.tables)}", c.mark_of("each"))
            continue
        where_problem = _where_problem(game, c, chk)
        if where_problem:
            chk.error(where_problem, c.mark_of("where"))
        field_problem = _field_problem(game, c, chk, held)
        if field_problem:
            chk.error(field_problem, c.mark_of("field"))
        _check_message(c, chk)
        constant = constant_condition(str(c["expr"]))
        if constant is not None:
            chk.error(f"constraint: {constant}", c.mark_of("expr"))
            continue
        _check_enum_names(game, c, each, chk)
        for i, item in enumerate(game.tables[each] if each else [None]):
            compute = partial(_checked, game, c, item)
            key = ("constraint", n, i if each else None, bool(game.dirty))
            with charged():
                problems, stop = compute() if cache is None else cache.value(key, compute)
            for message, mark in problems:
                chk.error(message, mark)
            if stop:
                break


def _check_enum_names(game: GameShape, c: Record, each: str | None, chk: CheckerShape) -> None:
    """Each enum value a constraint's expression names that its field has not (as in a derived field or a
    filter: `data.cards | selectattr('kind', 'eq', 'Beast')`, a typo for beast, picked nothing, and the
    constraint held, or failed saying its message, for the wrong reason)."""
    for message, line in enum_mistakes(c["expr"], True, ITEM if each else frozenset(),
                                       table_enums(game, each) if each else {}, partial(table_enums, game)):
        chk.error(f"constraint: {message}", said_in_text(c.mark_of("expr"), line))


def _check_message(c: Record, chk: CheckerShape) -> None:
    """A constraint's message compiled as it loads, as a balance rule's is: one that cannot be (`{{ x `) was said
    only once the constraint failed, and then at the item's line, not the message's; while it held, exit 0."""
    message = c.get("message")
    if is_template(message):
        try:
            compile_template(str(message))
        except ExprError as e:
            chk.error(f"constraint's message: {e.message}", failed_at(c.mark_of("message"), e))


def _where_problem(game: GameShape, c: Record, chk: CheckerShape) -> str | None:
    """What is wrong with a constraint's `where:`: it must name a table or a value in the rules (rules.KEY.KEY);
    one naming neither (a misspelt table) pointed the message at the expression without a word."""
    where = c.get("where")
    if where is None or where in game.tables:
        return None
    said = shortened(spelt(where), QUOTE_LIMIT)  # (a name of 5,000 characters was quoted whole)
    if isinstance(where, str) and where.startswith("rules."):
        node: object = game.meta.get("rules")
        path = "rules"
        for key in where.split(".")[1:]:
            if not isinstance(node, Record) or key not in node:
                known = [f"{path}.{k}" for k in node] if isinstance(node, Record) else []
                return f"constraint 'where: {said}' names no value in the rules{chk.suggest(where, known)}"
            node, path = node[key], f"{path}.{key}"
        return None
    return (f"constraint 'where: {said}' names no table (nor a value in the rules, written rules.KEY)"
            f"{chk.suggest(str(where), game.tables)}")


def _field_problem(game: GameShape, c: Record, chk: CheckerShape, held: Callable[[str], set[object]]) -> str | None:
    """What is wrong with a constraint's `field:`, which points its message at a field of the table it is about
    (`each`, or a `where` naming a table): otherwise the message would point elsewhere without a word."""
    field = c.get("field")
    if field is None:
        return None
    table = c.get("each") or c.get("where")
    if table not in game.tables:
        return f"field: '{field}' points into a table's items: give the constraint each: or where: a table"
    missing = missing_field(game, table, field, chk.suggest, held)
    return None if missing is None else f"constraint 'field: {field}'{missing}"


def _checked(game: GameShape, c: Record, item: Record | None) -> tuple[list[tuple[str, Mark | None]], bool]:
    """([(message, mark)...], whether to stop) of one constraint for one item (None: the whole game): its
    message when it is false, its failure (unless items have errors: theirs matter) with stop when it cannot
    be evaluated."""
    ctx = game.context(item=item) if item is not None else game.context()
    try:
        ok = condition_holds(evaluate(c["expr"], ctx))  # ('false' or a namespace held, as any such value)
    except ExprError as e:
        return ([] if game.dirty else [(f"constraint failed to evaluate: {e.message}", failed_at(c.mark_of("expr"), e))]), True
    if ok:
        return [], False
    try:
        message = rendered_message(str(c.get("message", "constraint not met: " + c["expr"])), ctx)
    except ExprError as e:
        message = f"constraint not met: {c['expr']} (its message failed: {e.message})"
    return [(message, _where(game, c, item))], False


def rendered_message(source: str, context: Mapping[str, Any]) -> str:
    """A rule's message (a template: a constraint's, a balance rule's) as a message of pnp's says it: rendered,
    and each control character it made written as its escape (printable), as every text of a game is quoted in a
    message; raw, `{{ '\\x02' }}` made the marks of a part pnp pastes, and the words between them went uncut and
    the characters unprinted. ExprError when it cannot be rendered or runs past MAX_MESSAGE characters."""
    return printable(render(source, context, MAX_MESSAGE, TOO_LONG_MESSAGE))


def _where(game: GameShape, c: Record, item: Record | None) -> Mark | None:
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
        note_table(where)  # read here, not through a template's `data`
        items = game.tables[where]
        if c.get("field") and items:
            return items[0].mark_of(c["field"])
        if items.mark is not None:
            return items.mark.__class__(items.mark.file, 1, 1)
    return c.mark_of("expr")

