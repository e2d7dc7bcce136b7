"""The component manifest: what is in the box, each component's items in print order and its count.
What a kind of component prints and how is the products' business; here only what every kind shares."""

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard

from ..errors import failed_at, said_in_text
from ..template import ExprError, condition_holds, constant_condition, enum_mistakes, evaluate, is_template
from .load import MarkedList, Record, shown
from .reads import FieldCache
from ..options import did_you_mean, quoted_as_written, shown_number, type_name
from ..project import WINDOWS_DEVICE_NAMES
from ..report import Suggest, named
from .schema import INVALID, ConditionValue, Field, Schema, Str, repeated_value
from .shapes import CheckerShape, GameShape
from .tables import ITEM, table_enums

MAX_COUNT = 10_000  # printed items in one component: far beyond any box, small enough to build in seconds...
# ...and in the whole game, copies counted: each component under its own cap, six of 10,000 tokens built in 50 s
MAX_GAME_COUNT = MAX_COUNT

COMPONENT_FIELDS = {
    "id": {"type": "id", "doc": "the component's id, unique in the game (used in file names and pictures)"},
    "name": {"type": "scalar", "required": False,
             "doc": "its name as printed, as written (not a template) (default: the id)"},
    "kind": {"type": "str", "doc": "what sort of thing it is (see Component kinds)"},
    "description": {"type": "str", "required": False,
                    "doc": "what it is for, shown in the rulebook's list, as written (not a template)"},
    "copies": {"type": "int", "min": 1, "max": MAX_COUNT, "default": 1,
               "doc": "how many times the whole component is printed"},
    "count": {"type": "int", "min": 0, "required": False,
              "doc": "the count you expect; pnp checks it against what the data gives"},
    "parts": {"type": "list", "required": False,
              "of": {"type": "record", "fields": {"name": {"type": "scalar"}, "count": {"type": "int", "min": 0}}},
              "doc": "a breakdown of the count (name and count each), which must add up to it"},
    "doc": {"type": "str", "required": False, "doc": "a note for people reading game.yaml"},
}

# The keys of components that print one face per data item; kinds that do include them in their own keys.
ITEM_FIELDS: dict[str, Field] = {
    "items": Str.key(None, "the table whose items this component prints"),
    "filter": ConditionValue.key(None, "a Jinja expression over `item`: only the items for which it is true"),
    "quantity": Str.key(None, "the field of each item saying how many copies of it to print"),
    "item_name": Str.key(None, "what one item is called on the pages that show it, such as a board's tiles; a "
                               "template over `item` (default: the item's `name`, `title` or `id`, else its number)"),
}


@dataclass
class Component:
    """One entry of the manifest: what kind of thing it is and the items it prints, in print order."""

    id: str
    name: str
    kind: str
    spec: Record
    count: int = 0
    items: list[Record] = field(default_factory=list)  # the data items, each repeated by its quantity and copies

    @property
    def description(self) -> str:
        return self.spec.get("description", "")


class _Game(GameShape, Protocol):
    """The game as its manifest is filled in."""

    components: list[Component]


Kinds = Mapping[str, Mapping[str, Field]]  # kind -> the keys its components take -> each key's field


def load_components(game: _Game, components: object, kinds: Kinds | None, chk: CheckerShape,
                    cache: FieldCache | None = None) -> None:
    """Check the manifest and fill game.components; `kinds` maps a kind name to its accepted keys. `cache`:
    the last load's results (reads.py), each item's filter answer taken from it while nothing it read changed."""
    if not _a_list(components, game, chk):
        return
    extra: dict[str, Field] = {}  # every kind's keys, optional here: which is needed is checked per kind
    for keys in (kinds or {}).values():
        extra.update({name: field.optional() for name, field in keys.items()})
    schema = Schema({**COMPONENT_FIELDS, **ITEM_FIELDS, **extra}, game.enums, word="key")
    ids: set[object] = set()
    printed = 0  # items printed by the components before this one, copies counted
    for n, spec in enumerate(components):
        mark = components.mark_of(n) if isinstance(components, MarkedList) else None
        if not isinstance(spec, Record):
            chk.error(f"a component is a mapping with id, name and kind, got {type_name(spec)}", mark)
            continue
        for message, where in schema.check(spec, chk):
            chk.error(message.replace("unknown key", "unknown key in component", 1), where)
        written_parts = spec.get("parts")
        spec = schema.clean(spec, chk)
        if spec is INVALID:
            continue
        spec = _parts_summed_whole(spec, written_parts)
        _no_template_printed_as_written(spec, chk)
        if spec["id"] in ids:
            chk.error(f"duplicate component id '{spec['id']}'", spec.mark_of("id"))
        ids.add(spec["id"])
        _no_device_name(spec, chk)
        if kinds is not None and not _kind_ok(spec, kinds, chk):
            continue
        component = _component(game, spec, chk, (n, cache))
        if component is not None:
            printed = _within_game_count(component, printed, chk)
            game.components.append(component)


def _parts_summed_whole(spec: Record, written_parts: object) -> Record:
    """The cleaned `spec`, without parts to add up where cleaning left a refused part out (its name a list, or
    true): its count was not added, and the parts were said to add up to 16, not 46, where they did (the part's
    own error says what is wrong)."""
    parts = spec.get("parts")
    if isinstance(written_parts, list) and isinstance(parts, list) and len(parts) < len(written_parts):
        return spec.with_values({"parts": None})
    return spec


def _no_device_name(spec: Record, chk: CheckerShape) -> None:
    """An error at a component's id that Windows keeps for a device (aux, con, nul, com1...): an export names a
    folder after it (png/aux/, tts/cards/aux/), which cannot be made there, so the export sent to a Windows user
    could not be unpacked (the game's own folders are held to this: project.game_name_problem)."""
    if str(spec["id"]) in WINDOWS_DEVICE_NAMES:
        chk.error(f"component id '{spec['id']}' is a name Windows keeps for a device: an export names a folder "
                  "after it, which could not be made or unpacked there; choose another id", spec.mark_of("id"))


PRINTED_AS_WRITTEN = ("name", "description")  # a component's texts that print as typed, not as templates


def template_printed_as_written(key: str, value: object, whose: str) -> str | None:
    """What is wrong with a text that prints as typed but holds a template, else None: `name: 'Cards {{ item.id
    }}'` printed its braces in every page's footer, exit 0 (a layout's keys are templates, these are not)."""
    if not is_template(value):
        return None
    return (f"{key}: {shown(value)} holds a template, which {whose} {key} prints as written, braces and all: "
            "write the words themselves")


def _no_template_printed_as_written(spec: Record, chk: CheckerShape) -> None:
    """A template in a component's name, description or a part's name: refused at its line."""
    for key in PRINTED_AS_WRITTEN:
        if (problem := template_printed_as_written(key, spec.get(key), "a component's")) is not None:
            chk.error(problem, spec.mark_of(key))
    parts = spec.get("parts")
    for part in parts if isinstance(parts, MarkedList) else ():
        if isinstance(part, Record) and (problem := template_printed_as_written(
                "name", part.get("name"), "a part's")) is not None:
            chk.error(problem, part.mark_of("name"))


def _within_game_count(component: Component, printed: int, chk: CheckerShape) -> int:
    """The items printed with this component's; past the game's cap, an error at the component that crosses it,
    its items cut to what is left (so that what is checked later is still bounded)."""
    if printed + component.count <= MAX_GAME_COUNT:
        return printed + component.count
    spec = component.spec
    if printed < MAX_GAME_COUNT:  # (said once: the components after it are cut to nothing)
        chk.error(f"component '{component.id}' brings the items the game prints to {printed + component.count:,}, "
                  f"copies counted; pnp prints at most {MAX_GAME_COUNT:,} in one game",
                  spec.mark_of("copies") if "copies" in spec else spec.mark)
    component.count = max(0, MAX_GAME_COUNT - printed)
    if component.items:
        component.items = component.items[:component.count]
    return MAX_GAME_COUNT


def _a_list(components: object, game: _Game, chk: CheckerShape) -> "TypeGuard[list[Any]]":
    """Whether `components` is a list (said otherwise). (An empty one is not refused: a game of tables alone
    has its design report.)"""
    if not isinstance(components, list):
        chk.error(f"components is a list of mappings (one '- id: ...' each), got {type_name(components)}",
                  getattr(components, "mark", None) or game.meta.mark_of("components"))
        return False
    return True


def _kind_ok(spec: Record, kinds: Kinds, chk: CheckerShape) -> bool:
    kind = spec["kind"]
    if kind not in kinds:
        chk.error(f"component kind {named(kind)} is not one of {', '.join(kinds)}{did_you_mean(kind, kinds)}",
                  spec.mark_of("kind"))
        return False
    shared = set(COMPONENT_FIELDS)
    for key in spec:
        if key not in shared and key not in kinds[kind]:
            chk.error(f"a '{kind}' component does not take {named(spec.key_quoted(key))}", spec.key_mark(key))
    missing = [key for key, field in kinds[kind].items() if field.required and key not in spec]
    for key in missing:
        if not spec.wrote_key(key):  # (one written of the wrong type is refused at its line already)
            chk.error(f"a '{kind}' component needs '{key}': {kinds[kind][key].doc}", spec.mark)
    return not missing


def _component(game: GameShape, spec: Record, chk: CheckerShape,
               kept: tuple[int, FieldCache | None]) -> Component | None:
    """The component of manifest entry `spec` (the kept[0]-th), with its items; None when it cannot be made."""
    component = Component(spec["id"], str(spec.get("name", spec["id"])), spec["kind"], spec)
    copies = spec.get("copies", 1)
    table = spec.get("items")
    if table is None:
        component.count = copies
    else:
        if table not in game.tables:
            if "*" in game.broken:
                return None
            chk.error(f"component '{component.id}': no table {named(table)}{did_you_mean(table, game.tables)}",
                      spec.mark_of("items"))
            return None
        items = _items(game, component, game.tables[table], chk, kept)
        if items is None:
            return None
        if len(items) * copies > MAX_COUNT:
            chk.error(f"component '{component.id}' would print {len(items) * copies:,} items; pnp prints at most "
                      f"{MAX_COUNT:,} of one component", spec.mark_of("copies"))
            copies = max(1, MAX_COUNT // max(len(items), 1))
        component.items = items * copies
        component.count = len(component.items)
    _check_count(game, component, spec, table, chk)
    return component


def _filter_written_well(game: GameShape, component: Component, chk: CheckerShape) -> bool:
    """Whether a component's filter may be run (False: it reads nothing of the game and is no test, as a
    layout's `when` may not be); its enum values not of their field are said too, and it runs."""
    spec = component.spec
    constant = constant_condition(str(spec["filter"]))
    if constant is not None:
        chk.error(f"component '{component.id}' filter: {constant}", spec.mark_of("filter"))
        return False
    for message, line in enum_mistakes(spec["filter"], True, ITEM, table_enums(game, spec["items"]),
                                       functools.partial(table_enums, game)):
        chk.error(f"component '{component.id}' filter: {message}", said_in_text(spec.mark_of("filter"), line))
    return True


def _items(game: GameShape, component: Component, rows: list[Record], chk: CheckerShape,
           kept: tuple[int, FieldCache | None]) -> list[Record] | None:
    """The rows the component prints (filtered), each repeated by its quantity; None if the filter fails.
    kept: (the component's place in the manifest, the cache of the last load's filter answers, or None)."""
    spec = component.spec
    if spec.get("filter") is not None:  # e.g. one deck per era from one table of cards
        place, cache = kept
        if not _filter_written_well(game, component, chk):
            return None

        def keeps(n: int, item: Record) -> bool:
            """Whether the filter keeps the n-th row (the last load's answer while nothing it read changed)."""
            def evaluated() -> bool:
                return condition_holds(evaluate(spec["filter"], game.context(item=item)))  # ('false' kept all)

            return evaluated() if cache is None else cache.value(("filter", place, spec["items"], n), evaluated)

        try:
            rows = [it for n, it in enumerate(rows) if keeps(n, it)]
        except ExprError as e:
            chk.error(f"component '{component.id}' filter: {e.message}", failed_at(spec.mark_of("filter"), e))
            return None
    qty = spec.get("quantity")
    # (`is not None`: `quantity: ""` passed as no quantity, where `quantity: " "` was refused)
    unknown = _unknown_field(game, spec["items"], qty) if qty is not None else None
    if unknown:  # (every item printed once: `quantity: copies` for a field named `count` printed a deck of 4)
        chk.error(f"component '{component.id}': quantity: {unknown}", spec.mark_of("quantity"))
        return None
    items: list[Record] = []
    for item in rows:
        times = item.get(qty, 1) if qty else 1
        if not isinstance(times, int) or isinstance(times, bool) or times < 0:
            # (a negative count was said to be no whole number)
            chk.error(f"{qty} must be a whole number from 0 (how many copies of the item to print), got "
                      f"{shown(quoted_as_written(times, item.written_of(qty)))}{_derived_for(game, spec, item, qty)}",
                      item.mark_of(qty))
            times = 1
        if len(items) + times > MAX_COUNT:
            chk.error(f"component '{component.id}' would print more than {MAX_COUNT:,} items; pnp prints at "
                      f"most {MAX_COUNT:,} of one component", item.mark_of(qty) if qty else spec.mark)
            return None
        items.extend([item] * times)
    return items


def _derived_for(game: GameShape, spec: Record, item: Record, qty: str) -> str:
    """' for item ID of TABLE' where the quantity `qty` is a derived field, whose error is said at its expression
    in game.yaml: 'got 15.0' there named no item of the table's many; else ''."""
    table = game.meta["tables"].get(spec["items"])
    derived = table.get("derived") if isinstance(table, Mapping) else None
    if not isinstance(derived, Mapping) or qty not in derived:
        return ""
    who = named(item["id"]) if isinstance(item.get("id"), (str, int)) else f"at {item.mark}"
    return f" for item {who} of {spec['items']}"


def _unknown_field(game: GameShape, table: str, field: str) -> str | None:
    """What is wrong with naming `field` of `table`'s items: None when the table types, derives or holds it."""
    missing = missing_field(game, table, field)
    return None if missing is None else f"'{field}'{missing}"


def missing_field(game: GameShape, table: str, field: object, suggest: Suggest = did_you_mean,
                  held: Callable[[str], set[object]] | None = None) -> str | None:
    """' names no field of TABLE (did you mean ...)' when `table`'s items have no field `field` (its schema types
    or derives none so named, nor does any item hold one); None when they have. Where one check asks it
    thousands of times, `suggest` is the load's bounded Suggestions and `held(table)` the fields the table's
    items hold, found once (held_fields): 10,000 constraints naming a field of 10,000 items none has looked
    through every item for each (55 s)."""
    spec = game.meta["tables"].get(table)
    known = {name for key in ("fields", "derived") if isinstance(spec, Record) and isinstance(spec.get(key), Record)
             for name in spec[key]}
    if field in known:  # (the items are looked at only past the schema: each item looked at is a read the
        return None     # preview's field cache keeps, and every edit of any item then checked the game again)
    known.update(held_fields(game, table) if held is None else held(table))
    return None if field in known else f" names no field of {table}{suggest(field, known)}"


def held_fields(game: GameShape, table: str) -> set[object]:
    """The fields the items of `table` hold, together."""
    return {name for item in game.tables[table] for name in item}


def _none_printed(game: GameShape, component: Component, spec: Record, table: str, chk: CheckerShape) -> None:
    """The error of a component of items that holds none: built, its kind's PDF was a file of no page (which
    viewers refuse to open) and its pages in the manifest [1, 0], exit 0; said at what left every item out."""
    rows = len(game.tables[table])
    key, why = (("filter", f"its filter keeps none of the {rows:,} items of {table}") if rows and "filter" in spec
                else ("quantity", f"the {spec['quantity']} of every item of {table} is 0") if rows and "quantity" in spec
                else ("items", f"the table {table} has no items"))
    chk.error(f"component '{component.id}' prints nothing: {why}; give it items or take it out of components",
              spec.mark_of(key))


def _check_count(game: GameShape, component: Component, spec: Record, table: str | None, chk: CheckerShape) -> None:
    typed = spec.get("count")
    if table in game.broken:
        return
    if typed is not None and typed != component.count:
        said = shown_number(typed) if isinstance(typed, (int, float)) and not isinstance(typed, bool) else shown(typed)
        chk.error(f"component '{component.id}' says count {said} but the data gives "
                  f"{shown_number(component.count)}",
                  spec.mark_of("count"))
    elif table is not None and not component.count:
        _none_printed(game, component, spec, table, chk)
    parts = spec.get("parts")
    if parts:
        total = sum(p["count"] for p in parts)
        if total != component.count:
            chk.error(f"the parts of '{component.id}' add up to {shown_number(total)}, not "
                      f"{shown_number(component.count)}", spec.mark_of("parts"))
        if repeated := repeated_value(part["name"] for part in parts):  # (the rulebook listed "4 A, 4 A")
            chk.error(f"the parts of '{component.id}' name {repeated[1]}: name each part once",
                      parts[repeated[0]].mark_of("name"))
