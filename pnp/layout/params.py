"""Parameter types of layout elements and layout files: the options of pnp.options (one vocabulary for every
option), and the points of a polyline, which are read with the data model's safe loader."""

from typing import Any

from ..errors import LoadError
from ..model.load import Record
from ..report import Mark
from ..template import is_template, metered
from ..options import (  # noqa: F401  (the elements read every option type from here, as P.Length ...)
    MAX_DASHES, MIN_DASH_CYCLE, NUMBER_LIMIT, REQUIRED, Angle, Anything, Bool, Choice, Colour, Condition, Dash,
    Elements, Expression, FontSize, Ink, Int, Length, Lengths, Name, Note, Number, Option, Text, Variables, shown)

Param = Option  # a layout parameter is an option like any other


class Points(Option):
    """A list of [x, y] points, written as a list or given by a template as text: '[[0, 0], [10, 5]]'."""

    kind = "points"
    unit = "mm"

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
        if not isinstance(value, list) or len(value) < 2:
            raise ValueError("expected a list of at least two [x, y] points")
        out = []
        for p in value:
            if not isinstance(p, list) or len(p) != 2:
                raise ValueError(f"each point is [x, y], got {shown(p)}")
            out.append((_POINT.convert(p[0]), _POINT.convert(p[1])))
        return tuple(out)


_POINT = Length()  # each coordinate of a point: a length like any other


def template_inside(container: Any, key: Any, below: bool = False) -> tuple[str, Mark | None] | None:
    """The first text inside container[key] (in lists and mappings within it too; with `below`, only in those
    within the values of the mapping or list container[key] is, not its own values) that is a Jinja template,
    with where it is written; None when there is none."""
    stack = [(container, key)]
    if below:  # (its own values were looked at too: `use`'s `with: {who: "{{ card.name }}"}`, the template its
        # reference gives, was refused as one inside a mapping)
        stack = [pair for holder, at in _children(container[key]) for pair in _children(holder[at])]
    while stack:
        holder, at = stack.pop()
        value = holder[at]
        if isinstance(value, str) and is_template(value):
            return value, holder.mark_of(at) if hasattr(holder, "mark_of") else None
        stack.extend(_children(value))
    return None


def _children(value: Any) -> list[tuple[Any, Any]]:
    """(container, key or index) of each value directly inside a mapping or list, the first last."""
    if isinstance(value, Record):
        return [(value, key) for key in reversed(list(value))]
    if isinstance(value, list):
        return [(value, index) for index in reversed(range(len(value)))]
    return []
