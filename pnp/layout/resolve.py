"""Evaluates a layout for one item: `when`, `repeat` and each element's templates -> drawing primitives."""

import functools
import itertools
from collections.abc import Callable, Hashable, ItemsView, Iterator, KeysView, Mapping, Sequence, ValuesView
from typing import Any, Protocol, cast

from .. import units
from ..errors import BudgetSpent, ExprError, LayoutError, LimitError, blame
from ..model.load import Place, Record, place_mark, shown
from ..model.reads import MARK, Tracked, note_all, recording
from ..template import as_printed, condition_holds, may_tell_identity, value_got
from ..report import Mark
from .budget import DrawingBudget, drawn_by
from .elements.base import Context, ElementShape
from .place import Box, Measure, Placement
from .prims import LayoutShape, PlacedShape, Prim

MAX_REPEAT = 10_000  # copies of one repeated element
MAX_PRIMS = 100_000  # primitives one layout may resolve to for one item
MAX_USE_DEPTH = 8  # layouts inside layouts inside layouts...

# What a layout's templates see besides the game's own variables (the reference lists these).
CONTEXT = {
    "item, card": "the item being printed (none for a component without items)",
    "vars, NAME": "the layout's `vars`, each also by its own name",
    "W, H, B": "the layout's width, height and bleed in mm",
    "it (or the `as` name), i, it_i": "in a repeated element: the value, its index from 0, and the index under "
                                      "the value's name (which nested repeats keep)",
}


Problems = list[tuple[str, Mark | None]]


class LayoutSource(Protocol):
    """What resolving reads of the game's layouts (pnp.layout.layouts.LayoutSet, which imports this module)."""

    budget: DrawingBudget
    using: list[str]
    measure: Measure | None
    elements: "KeptElements | None"  # elements' primitives kept from earlier sets (the preview's), or None

    def resolver(self, name: str, mark: Mark | None = None) -> "Resolver": ...


class _Made(list[Prim]):
    """The primitives one top-level element resolves to, and how many of them were paid for already (the
    elements of a group, and each copy of a repeat, pay for theirs as they are made)."""

    __slots__ = ("paid",)

    def __init__(self) -> None:
        super().__init__()
        self.paid = 0


class Resolver:
    """Resolve `layout` for an item (any Record or None) in the game's template context."""

    def __init__(self, layout: LayoutShape, layouts: LayoutSource, base_context: Context) -> None:
        self.layout, self.layouts = layout, layouts
        self.base = {**base_context, "vars": layout.vars, **layout.vars, "W": units.to_mm(layout.width),
                     "H": units.to_mm(layout.height), "B": units.to_mm(layout.bleed)}
        # placed elements depend on each other as drawn for the item: none is resolved once for all
        self.item_free: set[ElementShape] = \
            {el for el in layout.elements if _item_free(el)} if layout.placement is None else set()
        self.constant = len(self.item_free) == len(layout.elements)
        self._same_for_all: list[Prim] | None = None  # a constant layout's primitives, shared by every item
        # item-free element -> its primitives (shared: nobody changes a primitive)
        self._fixed: dict[ElementShape, list[Prim]] = {}
        # element -> what it made by the values it read of its item (see _by_reads); None once it gave up
        self._by_item: dict[ElementShape, _ByReads | tuple[Any, ...] | None] = {}
        self._context_key: Written | None = None  # what the layout adds to every template (_memo_of)

    def resolve(self, item: object = None, problems: Problems | None = None,
                extra: dict[str, Any] | None = None) -> list[Prim]:
        """The primitives for `item`, with `extra` template variables (a die face's value). With a `problems`
        list, an element that fails is reported there as (message, mark) and left out, so one run finds
        every failing element; without one it raises. A layout that reads nothing of the item (a card back)
        is resolved once: every item gets the same list, which nobody may change."""
        if not (self.constant and not extra):
            return self._resolve(item, problems, extra)
        if self._same_for_all is None:
            before = len(problems) if problems is not None else 0
            prims = self._resolve(item, problems, extra)
            if problems is not None and len(problems) > before:
                return prims
            self._same_for_all = prims
        return self._same_for_all

    def _resolve(self, item: object, problems: Problems | None, extra: dict[str, Any] | None) -> list[Prim]:
        ctx = {**self.base, "item": item, "card": item, **(extra or {})}
        if not self.layouts.using:  # the printed layout (a used one's templates are its use's to pay for)
            self.layouts.budget.start_resolving()
        if self.layout.placement is not None:
            return self._placed(ctx, problems)
        out: list[Prim] = []
        at = getattr(item, "_at", None) if not extra else None  # a tracked item notes what is read of it
        for el in self.layout.elements:
            prims = self._fixed.get(el)  # an element that reads nothing of the item: its shapes, made once
            if prims is None:
                if el in self.item_free:
                    prims = self._prims(el, ctx, problems)
                    if prims:
                        self._fixed[el] = prims
                elif at is not None:
                    prims = self._by_reads(el, item, at, ctx, problems)
                else:
                    prims = self._prims(el, ctx, problems)
            out.extend(prims)
            _bounded(out, el)
        return out

    def _by_reads(self, el: ElementShape, item: Any, at: tuple[str, int], ctx: Context,
                  problems: Problems | None) -> list[Prim]:
        """An element's primitives for a tracked item, made once per distinct set of values it reads of
        its item: templates are deterministic, and the rest of what they read (other tables, the game, the
        layout) is the same for every item of one check, so an item whose fields read equal those of an
        earlier one gets that one's primitives (shared, as item-free elements' are), with the same drawing
        steps spent and the same reads noted (of this item). An element that reads where its item was
        written, or the whole item, or values other than text, numbers, yes/no, null and small mappings and
        lists of them, is made each time; so is one that found nothing to share in its first MEMO_TRIES items
        (a name on every card), and one whose templates may tell its item from an equal one by identity,
        which no read shows (_shareable).
        With the preview's kept elements (LayoutSource.elements), what an element made is kept for the next
        refreshes under what it is written as (_memo_of), so a layout edit resolves again only the elements
        it changed (and those reading data the edit changed: KeptElements.start)."""
        memo = self._memo(el, at)
        if memo is None:
            return self._prims(el, ctx, problems)
        budget = self.layouts.budget
        found = memo.find(item._data)
        if found is not None:
            prims, steps, fields, other_reads = found
            if not budget.would_pass(steps):  # near the end: made, to stop
                budget.spend(steps, None)  # where making it stops
                memo.hits += 1
                note_all(other_reads)
                note_all([(*at, field) for field in fields])
                return prims
        before, spent = len(problems) if problems is not None else 0, budget.spent
        with recording() as reads:
            prims = self._prims(el, ctx, problems)
        if problems is None or len(problems) == before:
            memo.keep(item._data, at, reads, prims, budget.spent - spent)
        if memo.tries >= MEMO_TRIES and not memo.hits and \
                (self.layouts.elements is None or len(memo) >= LASTING_PER_ELEMENT):
            self._by_item[el] = None  # (kept for later refreshes, it is found there: a layout edit's reuse)
        return prims

    def _memo(self, el: ElementShape, at: tuple[str, int]) -> "_ByReads | None":
        """Where what `el` makes for the item at `at` is kept: the element's store (_memo_of), or with the
        preview's kept elements, for an element whose items cannot share (_shareable), a store of its own for
        that item, kept for the next refreshes under the element's key and the item's place."""
        found = self._by_item.get(el, _UNSEEN)
        if found is _UNSEEN:
            found = self._by_item[el] = self._memo_of(el)
        if isinstance(found, tuple):
            assert self.layouts.elements is not None  # (only _memo_of gives a key, with kept elements)
            return self.layouts.elements.of((found[0], at))
        return cast("_ByReads | None", found)

    def _memo_of(self, el: ElementShape) -> "_ByReads | tuple[Any, ...] | None":
        """A new element's store of what it made: its own, the kept one of the element written the same (shared
        by its items), or the key of that element (kept item by item); None: made each time (a `use`, whose
        other layout may change unseen here; without kept elements, one whose items cannot share)."""
        lasting = self.layouts.elements
        if lasting is None:
            return _ByReads() if _shareable(el) else None
        if _uses(el):
            return None
        if self._context_key is None:
            self._context_key = lasting.context(self.layout)
        key = Written((self._context_key, written(el.spec)))
        return lasting.of(key) if _shareable(el) else (key,)

    def _placed(self, ctx: Context, problems: Problems | None) -> list[Prim]:
        """A layout whose elements are placed against each other: each resolved after those it is placed
        against, then all put on paper in the file's order."""
        placement: Placement[ElementShape] = self.layout.placement
        per: dict[ElementShape, list[Prim]] = {}
        boxes: dict[PlacedShape, Box | None] = {}  # placed element -> the box it is drawn in
        for el in placement.order:
            per[el] = self._prims(el, ctx, problems, functools.partial(placement.place, el, boxes=boxes,
                                                                        layout=self.layout,
                                                                        measure=self.layouts.measure))
        out: list[Prim] = []
        for el in self.layout.elements:
            out.extend(per.get(el, ()))
            _bounded(out, el)
        return out

    def _prims(self, el: ElementShape, ctx: Context, problems: Problems | None,
               then: Callable[[list[Prim]], None] | None = None) -> list[Prim]:
        """One element's primitives (then `then(prims)`, which may move them). With a `problems` list, an
        element that fails is reported there and gives none; without one, its LayoutError is raised."""
        prims = _Made()
        try:
            self.element(el, ctx, 0.0, 0.0, prims)
            if then is not None:
                then(prims)
        except LayoutError as e:
            if problems is None:
                raise
            problems.extend(e.problems)
            return []
        return prims

    def element(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim]) -> None:
        """One compiled element (and, through groups, its children) with `when` and `repeat` applied."""
        try:
            if el.repeat is None:
                if _drawn(el, ctx):
                    el.element.resolve(el, ctx, ox, oy, out, self)
            else:
                self._repeated(el, ctx, ox, oy, out)
        except (LimitError, ExprError) as e:
            raise LayoutError(e.message, el.mark) from None
        except Exception as e:
            blame(e, el.mark)
            raise
        self.pay(el, out)  # every element draws into the list _prims made

    def _repeated(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim]) -> None:
        values = _copies(el.evaluate("repeat", ctx), el)
        dx, dy = el.step
        for i, value in enumerate(values):  # `i` is this repeat's index; `<as>_i` survives nested repeats
            each = {**ctx, el.name: value, "i": i, f"{el.name}_i": i}
            if _drawn(el, each):  # `when` may test the repeated value
                el.element.resolve(el, each, ox + i * dx, oy + i * dy, out, self)
            self.pay(el, out)  # after each copy: a million copies are never made to be counted

    def pay(self, el: ElementShape, out: list[Prim]) -> None:
        """Spend from the game's drawing budget for the element `el` resolved once more (or one more of its
        copies or cells) and the primitives it added to `out` since the last payment; refuse more than
        MAX_PRIMS for one item."""
        made = cast(_Made, out)  # every element draws into the list _prims made
        self.layouts.budget.spend_on(made[made.paid:], el.mark)
        made.paid = len(made)
        _bounded(made, el)

    def use(self, name: str, item: object, extra: dict[str, Any],
            el: ElementShape) -> tuple[LayoutShape, list[Prim]]:
        """(layout, primitives) of another layout drawn inside this one, for `item`. The drawing budget spent
        by one of its elements is said there, drawn by this use when it is the printed layout's own."""
        stack = self.layouts.using
        # the printed layout, then each used one: the chain a message shows (with the used ones alone, one 8
        # deep read 'l7 -> l0 -> ... -> l7 -> l8', a circle that was not there)
        chain = stack or [self.layout.name]
        if name in chain or len(chain) > MAX_USE_DEPTH:
            shown_chain = " -> ".join(chain + [name])
            raise LayoutError(f"layout: layouts use each other in a circle or too deep ({shown_chain})",
                              el.mark_of("layout"))
        inner = self.layouts.resolver(name, el.mark_of("layout"))  # its own file's problems, if any
        printed = not stack
        if printed:
            stack.append(self.layout.name)
        stack.append(name)
        try:
            return inner.layout, inner.resolve(item, extra=extra)
        except BudgetSpent as e:
            if not printed or e.mark is None:  # (said already: passed over in silence)
                raise
            raise BudgetSpent(e.message + drawn_by(el.mark), e.mark) from None
        except LayoutError as e:  # said at the used layout's element, and the use whose item or `with` it had
            if not printed:
                raise
            said = drawn_by(el.mark)
            raise LayoutError(e.message + said, e.mark, [(message + said, at) for message, at in e.problems]) \
                from None
        finally:
            del stack[-2 if printed else -1:]


_Kept = tuple[list[Prim], int, tuple[Any, ...], tuple[Any, ...]]
ELEMENTS_KEPT = 50_000  # resolved elements the preview keeps between refreshes (each a list of primitives)
LASTING_PER_ELEMENT = 2_000  # of one element that differs on every item (a name): the rest made each time
MEMO_TRIES = 100  # items an element's primitives are kept for before it is found to differ on every item
_ABSENT = object()  # a field the element asked for that the item does not have
_UNSEEN = object()  # an element not met yet by a resolver


class _ByReads:
    """One element's primitives by the values it read of its item: for each set of fields read (a template
    may read other fields depending on a value), the values -> (primitives, drawing steps, reads)."""

    __slots__ = ("by_fields", "tries", "hits", "reading")

    def __init__(self) -> None:
        # fields read -> their values -> (primitives, steps, the fields, the other reads)
        self.by_fields: dict[tuple[Any, ...], dict[tuple[Any, ...], _Kept]] = {}
        self.tries = self.hits = 0
        self.reading: set[tuple[Any, ...]] = set()  # the fields read whose entries may hold other reads

    def __len__(self) -> int:
        return sum(map(len, self.by_fields.values()))

    def find(self, data: dict[Any, Any]) -> "_Kept | None":
        for fields, made in self.by_fields.items():
            key = _values_key(data, fields)
            if key is not None and key in made:
                return made[key]
        return None

    def keep(self, data: dict[Any, Any], at: tuple[str, int], reads: set[Any], prims: list[Prim],
             steps: int) -> None:
        """Keep what an element made for the item at `at` (its `data`) and what it read, unless it read more
        of the item than field values."""
        self.tries += 1
        fields, others = [], []
        for read in reads:
            if isinstance(read, tuple) and read[:2] == at:
                if read[2] is None or read[2] == MARK:
                    return
                fields.append(read[2])
            else:
                others.append(read)
        own = tuple(sorted(fields, key=repr))
        key = _values_key(data, own)
        if key is not None:
            # an item's field read another way than through the item (data.cards[0].power, on that card) is
            # read again by every item taking these primitives: reaching another item reads something else
            again = [(*at, field) for field in own] if others else []
            self.by_fields.setdefault(own, {})[key] = (prims, steps, own, tuple(others + again))
            if others:
                self.reading.add(own)


class KeptElements:
    """What elements resolved to, kept between the preview's refreshes (KeptLayouts.elements): element key
    (the layout's size and variables, the element as written, marks included, since its primitives carry its
    file:line; with the item's place for an element whose items cannot share) -> its _ByReads. An entry holds
    while what else it read (other tables, other items) is unchanged: `start` drops those an edit reaches, and
    when a check went by unseen, all that read anything but their own item's values.
    The templates' other inputs (macros, styles, fonts, icons, game.yaml) forget every kept layout and so
    these too (printables.Memo.start)."""

    def __init__(self) -> None:
        self.by_element: dict[Hashable, _ByReads] = {}
        self._used: set[Hashable] = set()  # the keys asked for since the last start
        # id of a layout (kept between checks while its files are the same) -> (it, its context's key)
        self._contexts: dict[int, tuple[LayoutShape, Written]] = {}
        self._contexts_used: set[int] = set()

    def context(self, layout: LayoutShape) -> "Written":
        """The key of what a layout adds to its templates' context (its size and vars), worked out once while
        the layout is kept (its vars may be large)."""
        self._contexts_used.add(id(layout))
        found = self._contexts.get(id(layout))
        if found is None or found[0] is not layout:
            found = self._contexts[id(layout)] = (layout, Written((layout.width, layout.height, layout.bleed,
                                                                   written(layout.vars))))
        return found[1]

    def of(self, key: Hashable) -> _ByReads:
        self._used.add(key)
        found = self.by_element.get(key)
        if found is None:
            found = self.by_element[key] = _ByReads()
        found.tries = found.hits = 0
        return found

    def start(self, reached: Callable[[tuple[Any, ...]], bool]) -> None:
        """A new check: drop what read something `reached` says changed; past ELEMENTS_KEPT, the elements the
        last check did not ask for (an element before its edit) first, then all."""
        for memo in self.by_element.values():
            for fields in memo.reading:  # (the entries reading nothing but their item's values stay)
                memo.by_fields[fields] = {key: kept for key, kept in memo.by_fields[fields].items()
                                          if not kept[3] or not reached(kept[3])}
        if sum(map(len, self.by_element.values())) > ELEMENTS_KEPT:
            self.by_element = {key: memo for key, memo in self.by_element.items() if key in self._used}
            if sum(map(len, self.by_element.values())) > ELEMENTS_KEPT:
                self.by_element = {}
        self._used = set()
        self._contexts = {key: found for key, found in self._contexts.items() if key in self._contexts_used}
        self._contexts_used = set()


class Written:
    """A large key (written()'s) hashed once: an element's key is looked up for each item."""

    __slots__ = ("value", "hash")

    def __init__(self, value: Any) -> None:
        self.value, self.hash = value, hash(value)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Written) and self.hash == other.hash and self.value == other.value


def written(value: Any, seen: dict[int, Any] | None = None) -> Any:
    """A hashable key of a value read from a file: its values with their types (a float by its repr), and
    where each mapping, key and value was written. A list or mapping met again (a YAML alias) is keyed once."""
    if isinstance(value, (Mapping, list, tuple)):
        seen = {} if seen is None else seen
        found = seen.get(id(value))
        if found is None:
            found = seen[id(value)] = (value, _written(value, seen))  # (the value held: its id stays its own)
        return found[1]
    return (type(value), repr(value) if isinstance(value, float) else value)


def _written(value: "Mapping[Any, Any] | list[Any] | tuple[Any, ...]", seen: dict[int, Any]) -> Any:
    if isinstance(value, Record):
        own = value.mark
        return (Record, _at(own), tuple((written(k, seen), written(v, seen), _at(value._marks.get(k), own),
                                         _at(value._key_marks.get(k), own)) for k, v in value._data.items()))
    if isinstance(value, Mapping):
        return (dict, tuple((written(k, seen), written(v, seen)) for k, v in value.items()))
    own = getattr(value, "mark", None)
    return (type(value), _at(own), tuple(_at(place, own) for place in getattr(value, "marks", ())),
            tuple(written(v, seen) for v in value))


def _at(place: Place | None, holder: Mark | None = None) -> tuple[str, int, int] | None:
    """A mark (or the loader's place in the file of `holder`, the mapping or list holding it) as a plain tuple:
    keys made of them are hashed and compared without a call per mark."""
    mark = place_mark(place, holder)
    return None if mark is None else (mark.file, mark.line, mark.col)


def _values_key(data: dict[Any, Any], fields: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The values of `fields` in `data` with their types (1, 1.0 and True print differently; a float by its
    repr, which tells 0.0 from -0.0), or None when one is not a plain value or a small mapping or list of
    them (_value_key)."""
    key = []
    for field in fields:
        value = data.get(field, _ABSENT)
        if value is _ABSENT:
            key.append((object, None))
            continue
        found = _value_key(value, 0)
        if found is None:
            return None
        key.append(found)
    return tuple(key)


def _value_key(value: Any, depth: int, room: list[int] | None = None) -> Any:
    """A value as _values_key keys it: its type and value, a mapping's or list's (a cost, an ability) made of
    such values, item by item; None for anything else, or nested past MAX_KEY_DEPTH, or past MAX_KEY_VALUES
    values in all (a large value is made each time rather than compared for each item)."""
    kind = type(value)
    if kind is float:
        return kind, repr(value)
    if kind in _PLAIN:
        return kind, value
    if not isinstance(value, (Mapping, list, tuple)):
        return None
    room = [MAX_KEY_VALUES] if room is None else room
    room[0] -= len(value)
    return _container_key(value, depth, room) if depth < MAX_KEY_DEPTH and room[0] >= 0 else None


def _container_key(value: "Mapping[Any, Any] | list[Any] | tuple[Any, ...]", depth: int, room: list[int]) -> Any:
    """_value_key of a mapping or list: its type and its items' keys, None when one has none."""
    kind = type(value)
    if isinstance(value, Mapping):
        pairs = [(_value_key(k, depth + 1, room), _value_key(v, depth + 1, room)) for k, v in value.items()]
        return None if any(k is None or v is None for k, v in pairs) else (kind, tuple(pairs))
    items = [_value_key(v, depth + 1, room) for v in value]
    return None if any(v is None for v in items) else (kind, tuple(items))


_PLAIN = (str, int, bool, type(None))
ITEM_NAMES = frozenset({"item", "card"})  # the names _resolve gives the item
_ITEM_METHODS = frozenset(name for name in dir(Tracked) if not name.startswith("_"))  # card.keys is no field
MAX_KEY_DEPTH = 8  # nesting of a field's value that _value_key follows
MAX_KEY_VALUES = 1_000  # values in a field's mappings and lists that _value_key keys


def _copies(values: object, el: ElementShape) -> Sequence[Any]:
    """The values of a repeat's copies: a list, or range(n) for a number n; LayoutError at `repeat` for
    anything else (a negative or fractional count, which would draw nothing), or for too many."""
    if isinstance(values, str):  # ('fire water' drew a copy for each of its 10 characters, with exit 0)
        raise LayoutError(f"repeat: expected a number or a list, got the text {shown(values)}, which would repeat "
                          "once per character (a list of its words: `... | split`)", el.mark_of("repeat"))
    if isinstance(values, Mapping):  # (repeated over its keys, without a word: the reference says a list)
        raise LayoutError(f"repeat: expected a number or a list, got a mapping {shown(as_printed(values))}, which "
                          "would repeat once per key (a list of its keys: `... | list`; of its values: "
                          "`... | dictsort | map('last') | list`)", el.mark_of("repeat"))
    # a list (or tuple, range), what a filter yields one by one (`select`, `map`), a mapping's keys(), values()
    # or items() asked for by name; a number; nothing else
    if isinstance(values, bool) or not isinstance(values, (int, float, Sequence, Iterator, KeysView, ValuesView,
                                                                ItemsView)):
        raise LayoutError(f"repeat: expected a number or a list, got {value_got(values)}", el.mark_of("repeat"))
    if isinstance(values, (int, float)):
        whole = isinstance(values, int) or values.is_integer()
        if not whole or not 0 <= values <= MAX_REPEAT:  # -1 or 2.5 copies would silently draw none, or 2
            count = f"{values:,}" if isinstance(values, int) and abs(values) < 10 ** 15 else shown(as_printed(values))
            raise LayoutError(f"repeat: {count} copies; the number of copies is a whole number from 0 to "
                              f"{MAX_REPEAT:,}", el.mark_of("repeat"))
        return range(int(values))
    values = list(itertools.islice(values, MAX_REPEAT + 1))
    if len(values) > MAX_REPEAT:
        raise LayoutError(f"repeat: more than {MAX_REPEAT:,} copies", el.mark_of("repeat"))
    return values


def _drawn(el: ElementShape, ctx: Context) -> bool:
    """Whether the element is drawn for `ctx`: its `when` (none) or what it gives true, by the one rule of a
    condition (template.condition_holds); LayoutError at `when` for a value whose truth is not what it says."""
    if el.when is None:
        return True
    value = el.evaluate("when", ctx)  # (its own failure is said as every expression's is)
    try:
        return condition_holds(value)
    except ExprError as e:
        raise LayoutError(f"when: {e.message}", el.mark_of("when")) from None


def _bounded(out: list[Prim], el: ElementShape) -> None:
    if len(out) > MAX_PRIMS:
        raise LayoutError(f"the layout draws more than {MAX_PRIMS:,} shapes for one item", el.mark)


def _shareable(el: ElementShape) -> bool:
    """Whether an element's primitives may be shared by items reading the same values: none of its templates
    (its children's included) may compare by identity (template.may_tell_identity), and no other layout is
    drawn inside (a `use` evaluates templates not seen here)."""
    expressions = [value for value in (el.when, el.repeat) if isinstance(value, str)]
    return (el.element.type != "use"
            and not any(may_tell_identity(e, True, ITEM_NAMES, _ITEM_METHODS) for e in expressions)
            and not any(may_tell_identity(t, False, ITEM_NAMES, _ITEM_METHODS)
                        for t in el.templates.values() if isinstance(t, str))
            and all(_shareable(child) for child in el.children))


def _uses(el: ElementShape) -> bool:
    """Whether another layout is drawn inside the element (or one of its children)."""
    return el.element.type == "use" or any(_uses(child) for child in el.children)


def _item_free(el: ElementShape) -> bool:
    """True when the element (with its children) cannot depend on the item: nothing templated, no `when` or
    `repeat`, no other layout drawn inside (a `use` evaluates its item)."""
    return (not el.templates and el.when is None and el.repeat is None and el.element.type != "use"
            and all(_item_free(child) for child in el.children))
