"""Relative placement: an element placed against another element of its layout by name (`below: rules`,
`above`, `right_of`, `left_of`, with a `gap`), measured on the other element as drawn, after its text has
shrunk to fit and its `when:` has been decided; and `h: rest`, a text or rectangle that runs down to the
bottom of the layout's safe area. A layout that uses none of this resolves exactly as before."""

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Generic, TypeVar, cast

from ..draw.text import valign_offset
from ..errors import LayoutError
from ..units import MM
from ..options import did_you_mean
from . import params as P
from ..report import Mark, named as quoted_name
from .prims import LayoutShape, PlacedShape, Prim

RELATIONS = {"below": "y", "above": "y", "right_of": "x", "left_of": "x"}
REST = "rest"  # `h: rest`

# Every element takes these (listed in the reference with the common parameters).
Box = tuple[float, float, float, float]  # (left, top, right, bottom)
Placed = TypeVar("Placed", bound=PlacedShape)  # the compiled elements placed
Relation = tuple[str, Placed, float]  # (below/above/right_of/left_of, the element placed against, gap)
Measure = Callable[[Prim], float]  # a text primitive -> the height its lines take once fitted

PLACE = {
    "below": P.Name(None, "place the element's top `gap` below the bottom of the element of this `name`, as "
                          "drawn (a text's last line, after shrinking to fit); one that draws nothing (its `when` "
                          "false, its text empty) takes no room where it would begin, just past what it is placed "
                          "against, or when it is placed against nothing at its own `x` and `y` (written as "
                          "numbers; else, and for an element placed by its centre or ends, the element keeps its "
                          "own `y`, `x` for `right_of` and `left_of`, 0 when not given); a layout's own elements "
                          "are placed so, not those inside a group"),
    "above": P.Name(None, "place the element's bottom `gap` above the top of the named element"),
    "right_of": P.Name(None, "place the element's left edge `gap` right of the named element's right edge"),
    "left_of": P.Name(None, "place the element's right edge `gap` left of the named element's left edge"),
    "gap": P.Length(0, "the space between an element and the one it is placed against"),
}


class Placement(Generic[Placed]):
    """Which top-level elements are placed against which, and an order that resolves every element after
    the ones it is placed against (the primitives still go on paper in the file's order)."""

    def __init__(self, anchors: dict[Placed, list[Relation[Placed]]], rest: set[Placed], order: list[Placed]) -> None:
        self.anchors, self.rest, self.order = anchors, rest, order

    def place(self, el: Placed, prims: list[Prim], boxes: dict[PlacedShape, Box | None], layout: LayoutShape,
              measure: Measure | None) -> None:
        """Move an element's primitives to where its relations put them, stretch `h: rest`, check that it
        stays on the card, and record the box it is drawn in for the elements placed against it."""
        relations = self.anchors.get(el, ())
        own = extent(prims)
        if own is not None and relations:
            dx, dy = _offset(relations, own, boxes)
            if dx or dy:
                prims[:] = [_moved(p, dx, dy) for p in prims]
        if el in self.rest:
            prims[:] = [_rest(el, p, layout) if p.kind in ("text", "rect") else p for p in prims]
        if relations:
            _check_on_card(el, relations, extent(prims), layout)
        boxes[el] = drawn(prims, measure) or _nothing_drawn(relations, boxes) or _own_place(el)


def _rest(el: PlacedShape, p: Prim, layout: LayoutShape) -> Prim:
    """A text or rectangle of `h: rest` stretched down to the bottom of the safe area; one that starts at or
    below it is refused (it was drawn 0 mm tall, without a word)."""
    bottom = layout.height - layout.safe
    if p.rotate % 180:  # turned about its centre, the stretched box's foot left the safe area's bottom (a
        # rect of h: rest turned 90 degrees ran past the trim, exit 0)
        raise LayoutError(f"h: rest runs down to the bottom of the safe area, but the element is turned "
                          f"{p.rotate:g} degrees, so its box would end elsewhere; turn it by a multiple of 180 "
                          "degrees, or give it a height", el.mark_of("h"))
    if p.y > bottom - 0.01:
        raise LayoutError(f"h: rest runs down to the bottom of the safe area, {bottom / MM:.1f} mm from the top, "
                          f"but the element starts at {p.y / MM:.1f} mm: it would be 0 mm tall; place it higher or "
                          "give it a height", el.mark_of("h"))
    return replace(p, h=bottom - p.y)


def plan(elements: Sequence[Placed], problems: list[tuple[str, Mark | None]]) -> Placement[Placed] | None:
    """The Placement of a layout's top-level elements, or None when none is placed relatively; unknown
    names and circles of placements are reported into `problems`."""
    named = {el.consts.get("name"): el for el in elements if el.consts.get("name")}
    anchors: dict[Placed, list[Relation[Placed]]] = {}
    rest = {el for el in elements if el.spec.get("h") == REST}
    for el in elements:
        for relation in RELATIONS:
            target = el.consts.get(relation)
            if target is None:
                continue
            problem = _unplaceable(el, target, named, elements)
            if problem is not None:
                problems.append((f"{relation}: {problem}", el.mark_of(relation)))
            else:
                anchors.setdefault(el, []).append((relation, named[target], el.consts["gap"]))
    if not anchors and not rest:
        return None
    _check_relations(anchors, rest, problems)
    return Placement(anchors, rest, _ordered(elements, anchors, problems))


def _check_relations(anchors: dict[Placed, list[Relation[Placed]]], rest: set[Placed],
                     problems: list[tuple[str, Mark | None]]) -> None:
    """Each element placed against one other at most on each axis, and never both `above` another and `h: rest`
    (each would set its foot: rest won, and the element placed above another was stretched down over it, exit 0)."""
    for el, relations in anchors.items():
        axes = [RELATIONS[r] for r, _, _ in relations]
        if len(axes) != len(set(axes)):
            problems.append(("place an element against one other at most across (right_of or left_of) and one "
                             "up and down (below or above)", el.mark))
        if el in rest and "above" in (r for r, _, _ in relations):
            problems.append(("h: rest runs the element down to the bottom of the safe area, and `above` puts its "
                             "bottom above another element: give it a height, or place it `below` what is above it",
                             el.mark_of("h")))


def _unplaceable(el: Placed, target: str, named: dict[Any, Placed], elements: Sequence[Placed]) -> str | None:
    """Why `el` cannot be placed against the element named `target`, or None."""
    if target not in named:
        return f"no element of this layout is named {quoted_name(target)}{did_you_mean(target, named)}"
    same = [str(e.mark) for e in elements if e.consts.get("name") == target]
    if len(same) > 1:  # the last of them was taken, silently
        return f"{len(same)} elements are named {quoted_name(target)} ({', '.join(same)}): name them apart"
    if named[target] is el:
        return "an element cannot be placed against itself"
    return None


def _ordered(elements: Sequence[Placed], anchors: dict[Placed, list[Relation[Placed]]],
             problems: list[tuple[str, Mark | None]]) -> list[Placed]:
    """The elements, each after those it is placed against; a circle is reported and broken. Walked by a loop
    with a stack of its own, not by recursion: a layout of 1,500 elements each placed below the next was 'a bug
    in pnp' (RecursionError), and each step copied the path walked so far."""
    order: list[Placed] = []
    state: dict[Placed, str] = {}
    for start in elements:
        if start in state:
            continue
        state[start] = "visiting"
        stack = [(start, iter(anchors.get(start, ())))]  # the elements being visited, each with its anchors left
        while stack:
            el, left = stack[-1]
            relation = next(left, None)
            if relation is None:
                stack.pop()
                state[el] = "done"
                order.append(el)
            elif state.get(anchor := relation[1]) == "visiting":
                path = [visiting for visiting, _ in stack]
                names = [p.consts.get("name") or "?" for p in path[path.index(anchor):]] + [anchor.consts.get("name")]
                problems.append((f"placements go round in a circle: {' -> '.join(names)}", anchor.mark))
            elif anchor not in state:
                state[anchor] = "visiting"
                stack.append((anchor, iter(anchors.get(anchor, ()))))
    return order


def turned_corners(p: Prim, corners: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The corners as drawn: turned clockwise (y down) by the primitive's `rotate` about the centre of its box,
    as painting turns it."""
    if not p.rotate % 360:
        return corners
    cx, cy = p.x + p.w / 2, p.y + p.h / 2
    cos, sin = math.cos(math.radians(p.rotate)), math.sin(math.radians(p.rotate))
    return [(cx + (x - cx) * cos - (y - cy) * sin, cy + (x - cx) * sin + (y - cy) * cos) for x, y in corners]


def _box_corners(left: float, top: float, right: float, bottom: float) -> list[tuple[float, float]]:
    return [(left, top), (right, top), (right, bottom), (left, bottom)]


def extent(prims: Sequence[Prim]) -> Box | None:
    """(left, top, right, bottom) of the primitives as drawn (turned ones by their turned corners), or None
    for none."""
    corners: list[tuple[float, float]] = []
    for p in prims:
        corners += turned_corners(p, list(p.points) or _box_corners(p.x, p.y, p.x + p.w, p.y + p.h))
    return _around(corners)


def _around(corners: list[tuple[float, float]]) -> Box | None:
    if not corners:
        return None
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    return (min(xs), min(ys), max(xs), max(ys))


def drawn(prims: Sequence[Prim], measure: Measure | None) -> Box | None:
    """The box the primitives really take: a text as tall as its lines after shrinking to fit (turned, as
    its box, about the centre of its whole box)."""
    boxes: list[Box] = []  # one primitive's extent is never None
    for p in prims:
        if p.kind == "text" and measure is not None:
            used = min(measure(p), p.h)
            top = p.y + valign_offset(p.style.get("valign"), p.h, used)
            boxes.append(cast(Box, _around(turned_corners(p, _box_corners(p.x, top, p.x + p.w, top + used)))))
        else:
            boxes.append(cast(Box, extent([p])))
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _offset(relations: Sequence[Relation[PlacedShape]], own: Box,
            boxes: dict[PlacedShape, Box | None]) -> tuple[float, float]:
    dx = dy = 0.0
    for relation, anchor, gap in relations:
        a = boxes.get(anchor)
        if a is None:
            continue
        if relation == "below":
            dy = a[3] + gap - own[1]
        elif relation == "above":
            dy = a[1] - gap - own[3]
        elif relation == "right_of":
            dx = a[2] + gap - own[0]
        else:
            dx = a[0] - gap - own[2]
    return dx, dy


def _nothing_drawn(relations: Sequence[Relation[PlacedShape]], boxes: dict[PlacedShape, Box | None]) -> Box | None:
    """Where an element that draws nothing (its `when` false, its text empty) stands for the elements placed
    against it: no room at all, just past what it is placed against; None (they keep their own places)
    when it is placed against nothing."""
    for relation, anchor, gap in relations:
        a = boxes.get(anchor)
        if a is not None:
            x = {"right_of": a[2] + gap, "left_of": a[0] - gap}.get(relation, a[0])
            y = {"below": a[3] + gap, "above": a[1] - gap}.get(relation, a[1])
            return (x, y, x, y)
    return None


def _own_place(el: PlacedShape) -> Box | None:
    """Where an element that draws nothing and is placed against nothing stands: no room, at its own `x` and `y`
    (a title left empty at y 30 put the rules placed below it at their own y, 0, over the card's header); None
    for an element with no such place (a circle's is its centre), or one whose `x` or `y` is a template, which
    is not worked out for what is not drawn (the elements placed against it keep their own places)."""
    x, y = el.consts.get("x"), el.consts.get("y")
    if not isinstance(x, float) or not isinstance(y, float):
        return None
    return (x, y, x, y)


def _moved(p: Prim, dx: float, dy: float) -> Prim:
    return replace(p, x=p.x + dx, y=p.y + dy, points=tuple((x + dx, y + dy) for x, y in p.points))


def _check_on_card(el: PlacedShape, relations: Sequence[Relation[PlacedShape]], box: Box | None,
                   layout: LayoutShape) -> None:
    if box is None:
        return
    edge = layout.bleed + 0.01
    past = {"left": -box[0], "top": -box[1], "right": box[2] - layout.width, "bottom": box[3] - layout.height}
    side, by = max(past.items(), key=lambda kv: kv[1])
    if by > edge:
        relation, anchor, _ = relations[0]
        raise LayoutError(f"placed {relation.replace('_', ' ')} '{anchor.consts.get('name')}', the element runs "
                          f"{(by - layout.bleed) / MM:.1f} mm past the card's {side} edge (and its bleed)",
                          el.mark_of(relation))
