"""Parameter types of layout elements and layout files: the options of pnp.options (one vocabulary for every
option), and the points of a polyline, which are read with the data model's safe loader."""

from collections.abc import Callable
from typing import Any

from ..errors import ItemRefused, LoadError
from ..model.load import MarkedList, Record
from ..report import Mark
from ..template import is_template, metered
from ..options import (  # noqa: F401  (the elements read every option type from here, as P.Length ...)
    MAX_DASHES, MIN_DASH_CYCLE, NUMBER_LIMIT, REQUIRED, Angle, Anything, Bool, Choice, Colour, Condition, Dash,
    Elements, Expression, FontSize, Ink, Int, Length, Lengths, Name, Note, Number, Option, Text, Variables, shown,
    SMALLEST_NUMBER, too_close_to_zero, written_closer_to_zero)

Param = Option  # a layout parameter is an option like any other
# the options whose values (lists and mappings) are kept as written, no option converting what is inside them
UNCONVERTED = (Variables, Anything)


class Points(Option):
    """A list of [x, y] points, written as a list or given by a template as text: '[[0, 0], [10, 5]]'."""

    kind = "points"
    unit = "mm"
    least = 2  # the fewest points it takes
    named = "points"  # what they are called in a message

    def convert(self, value: object) -> tuple[tuple[float, float], ...]:
        if isinstance(value, str):  # a template's text: read as data with the same safe loader
            from ..model.load import load_text

            try:
                # metered as the template's work that gave it, at its time: YAML is read at about a second a
                # megabyte (a million characters of points on each card ran for many seconds)
                with metered("reading the points its template gave"):
                    value = load_text(value, "points")
            except LoadError as e:
                raise ValueError(f"the points are not a list of [x, y]: {e.message}") from None
        if not isinstance(value, list) or len(value) < self.least:
            raise ValueError(f"expected a list of at least {_WORDS[self.least]} [x, y] {self.named}"
                             + (f", got {len(value)}" if isinstance(value, list) else ""))
        out = []
        for index, p in enumerate(value):
            try:
                if not isinstance(p, list) or len(p) != 2:
                    raise ValueError(f"each point is [x, y], got {shown(p)}")
                out.append((_POINT.convert(p[0]), _POINT.convert(p[1])))
            except ValueError as e:
                raise ItemRefused(str(e), index) from None
        return tuple(out)


class Corners(Points):
    """A closed shape's corners: at least three (one of two was drawn as a shape of no area, its fill printing
    nothing, exit 0)."""

    least = 3
    named = "corners"


_WORDS = {2: "two", 3: "three"}
_POINT = Length()  # each coordinate of a point: a length like any other


def refused_at(spec: Record, key: str, refusal: Exception) -> Mark | None:
    """Where spec[key]'s `refusal` is at fault: the item's own place when it names one of a list's items
    (ItemRefused), else where the key's value is written."""
    value = spec[key]
    if isinstance(refusal, ItemRefused) and isinstance(value, MarkedList):
        return value.mark_of(refusal.index)
    return spec.mark_of(key)


def template_inside(container: Any, key: Any, below: bool = False) -> tuple[str, Mark | None] | None:
    """The first text inside container[key] (in lists and mappings within it too; with `below`, only in those
    within the values of the mapping or list container[key] is, not its own values) that is a Jinja template,
    with where it is written; None when there is none."""
    stack = [(container, key)]
    if below:  # (its own values were looked at too: `use`'s `with: {who: "{{ card.name }}"}`, the template its
        # reference gives, was refused as one inside a mapping)
        stack = [pair for holder, at in _children(container[key]) for pair in _children(holder[at])]
    return _first_inside(stack, lambda holder, at: holder[at] if isinstance(holder[at], str) and
                         is_template(holder[at]) else None)


def tiny_number_inside(option: object, container: Any, key: str) -> tuple[str, Mark | None] | None:
    """For an `option` that holds its value unconverted (UNCONVERTED: a layout's `vars`, a `use`'s `with`, a die's
    `faces`, which held `1.0e-400` as 0 and printed it so, exit 0): the refusal, said with its key, of the first
    number inside container[key] (itself, or in lists and mappings within it) written other than 0 but
    too_close_to_zero to be held as written, and where it is written; None for any other option."""
    if not isinstance(option, UNCONVERTED):  # (an option that converts its value checks its numbers itself)
        return None
    def written_tiny(holder: Any, at: Any) -> str | None:
        value = holder[at]
        if type(value) is not float or abs(value) >= SMALLEST_NUMBER:  # (the only numbers it may be: looked at first)
            return None
        written = holder.written_of(at) if isinstance(holder, Record) else \
            (holder.written or {}).get(at) if isinstance(holder, MarkedList) else None
        return written_closer_to_zero(written or repr(value)) if too_close_to_zero(value, written) else None

    tiny = _first_inside([(container, key)], written_tiny)
    return None if tiny is None else (f"{key}: {tiny[0]}", tiny[1])


def _first_inside(stack: list[tuple[Any, Any]], found: Callable[[Any, Any], str | None]) -> tuple[str, Mark | None] | None:
    """The first value (holder, at) of `stack`, or inside one of them, of which `found` gives a text, that text
    and where the value is written; None when there is none. A list or mapping repeated by its YAML alias is
    looked inside once (an alias bomb's values were walked as often as repeated)."""
    seen: set[int] = set()
    while stack:
        holder, at = stack.pop()
        text = found(holder, at)
        if text is not None:
            return text, holder.mark_of(at) if hasattr(holder, "mark_of") else None
        value = holder[at]
        if isinstance(value, (Record, list)) and id(value) not in seen:
            seen.add(id(value))
            stack.extend(_children(value))
    return None


def _children(value: Any) -> list[tuple[Any, Any]]:
    """(container, key or index) of each value directly inside a mapping or list, the first last."""
    if isinstance(value, Record):
        return [(value, key) for key in reversed(list(value))]
    if isinstance(value, list):
        return [(value, index) for index in reversed(range(len(value)))]
    return []
