"""What every layout element shares: the base class and the parameters common to all (or many) types."""

from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any, Protocol

from ...model.load import Record
from ...report import Mark
from ...template import FUNCTION_NAMES, LANGUAGE_WORDS
from .. import params as P
from ..place import PLACE
from ..place import RELATIONS as PLACE_RELATIONS
from ..prims import LayoutShape, PlacedShape, Prim

# What a layout's templates see for one item (the game's context, the layout's variables, the item).
Context = dict[str, Any]
Problem = tuple[str, Mark | None]  # (message, where)
Style = dict[str, Any]  # a primitive's style

# Every element takes these.
COMMON = {
    "type": P.Name(doc="the element type"),
    "when": P.Condition(None, "draw the element only when this expression is true, e.g. `card.cost > 2`, or "
                              "`card.text` (none, 0 and an empty text or list are false; a text 'false', 'no' "
                              "or '0' is refused, never taken as true); an expression reading nothing of the game must "
                              "be true or false"),
    "repeat": P.Expression(None, "draw the element once per value of this expression (a list, or a number n "
                                 "for 0 to n-1); each copy sees its value as `it` (or the `as` name) and its "
                                 "index as `i`"),
    "as": P.Name("it", "the name under which a repeated copy sees its value (not `i`, nor a name templates "
                      "see already: `card`, `W`...)"),
    "step": P.Lengths(2, [0, 0], "how far each repeated copy moves from the one before: [dx, dy]"),
    "name": P.Name(None, "a name for the element: others may be placed against it (`below: NAME`)"),
    "doc": P.Note(None, "a note for people reading the layout"),
    **PLACE,
}

# Names every layout template sees already (resolve.CONTEXT and the game's): a variable must not hide them.
RESERVED = {"W": "the layout's width", "H": "the layout's height", "B": "the layout's bleed",
            "item": "the item printed", "card": "the item printed", "vars": "the layout's variables",
            "game": "game.yaml", "data": "the tables", "ref": "the tables by id", "components": "the manifest",
            "enums": "the enums", "macros": "macros.j2", "ink_saver": "whether ink is being saved"}


def hides_reserved(what: str, name: str, reserved: dict[str, str] = RESERVED) -> str | None:
    """Why `name` may not be given to `what` (a layout's variable, a used layout's `with:`, a repeated copy's
    `as:`): templates already see a value by that name, which it would hide. None when the name is free."""
    # (a function's name: `vars: {range: 5}` made every `range(3)` of the layout "'int' object is not callable")
    taken = reserved.get(name) or (f"the function {name}()" if name in FUNCTION_NAMES else None)
    if name in LANGUAGE_WORDS:
        return f"{what} may not be called '{name}': templates read that name as a word of their own, never as a variable"
    if taken is None:
        return None
    return f"{what} may not be called '{name}': templates already use that name for {taken}"

# Elements that can turn take this.
ROTATE = {"rotate": P.Angle(0, "turn the element clockwise about the centre of its box")}

# Filled and outlined shapes.
PAINT = {
    "fill": P.Colour(None, "the fill colour"),
    "stroke": P.Colour(None, "the outline colour"),
    "stroke_width": P.Length("0.5pt", "the outline's width (of a `stroke`)", minimum=0, maximum=50),
    "dash": P.Dash(None, None, "dash and gap lengths of a dashed outline (of a `stroke`), e.g. `[1, 0.7]`"),
    "opacity": P.Number(1, "the opacity of the `fill`, from 0 (invisible) to 1", minimum=0, maximum=1),
}

# How text looks: what a text style (styles.yaml) may set.
TEXT_STYLE = {
    "font": P.Text("Body", "the font family: Body or Display (pnp's own fonts), or a family of the project's fonts/fonts.yaml"),
    "size": P.FontSize(9, "the largest font size"),
    "min_size": P.FontSize("=the size", "the smallest size the text may shrink to so that it fits its box (at most `size`)"),
    "leading": P.Number(1.2, "line spacing as a multiple of the font size", minimum=0.5, maximum=5),
    "align": P.Choice(("left", "center", "right"), "left", "horizontal alignment"),
    "valign": P.Choice(("top", "middle", "bottom"), "top", "vertical alignment in the box"),
    "color": P.Ink("#000000", "the text colour"),
    "max_lines": P.Int(0, "the most lines the text may take (0: as many as fit)", minimum=0, maximum=1000),
}


# A space a token sits on: validation checks that the token fits.
HOLDS = {"holds": P.Name(None, "the layout of the token or marker that sits here; validation checks that it "
                               "fits (its width and height at most this space's)"),
         "snap": P.Bool(False, "a space where things are put (a card slot): in the Tabletop Simulator export, a "
                               "snap point at its centre (a space that `holds` a token is one already)")}


class ElementShape(PlacedShape, Protocol):
    """What the element types and resolving read of a compiled element (pnp.layout.compile.Compiled, which
    imports the element types): what placing reads of it (its spec, mark, constants and marks of keys), and
    more."""

    @property
    def element(self) -> "Element": ...
    @property
    def templates(self) -> dict[str, Any]: ...
    @property
    def children(self) -> Sequence["ElementShape"]: ...
    @property
    def when(self) -> object: ...
    @property
    def repeat(self) -> object: ...
    @property
    def name(self) -> str: ...
    @property
    def step(self) -> Sequence[float]: ...
    def has(self, key: str) -> bool: ...
    def is_templated(self, names: Iterable[str]) -> bool: ...
    def values(self, ctx: Context, later: Collection[str] = ()) -> dict[str, Any]: ...
    def evaluate(self, key: str, ctx: Context) -> Any: ...


class ElementResolver(Protocol):
    """What the element types ask of the resolver (pnp.layout.resolve.Resolver, which imports them)."""

    @property
    def layout(self) -> LayoutShape: ...
    def element(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim]) -> None: ...
    def use(self, name: str, item: object, extra: dict[str, Any],
            el: ElementShape) -> tuple[LayoutShape, list[Prim]]: ...
    def pay(self, el: ElementShape, out: list[Prim]) -> None: ...


def holds(el: ElementShape, style: Style) -> Mark | None:
    """A space's style with the token it holds, and the mark to report a misfit at."""
    name = el.consts.get("holds")
    if name:
        style["holds"] = name
    if name or el.consts.get("snap"):
        style["snap"] = True
    return el.mark_of("holds") if name else None


def box(w: Any = P.REQUIRED, h: Any = P.REQUIRED) -> dict[str, P.Param]:
    """x, y, w and h of an element drawn in a box (the defaults of w and h vary by element)."""
    return {"x": P.Length(0, "left edge of the box, from the trim's left"),
            "y": P.Length(0, "top edge of the box, from the trim's top"),
            "w": P.Length(w, "width of the box", minimum=0), "h": P.Length(h, "height of the box", minimum=0)}


# What sets how a shape's outline or fill looks, and what draws it: without that, the setting drew nothing
PAINT_NEEDS = {"stroke_width": ("an outline", "stroke"), "dash": ("an outline", "stroke"),
               "opacity": ("a fill", "fill")}


def unused_paint(kind: str, params: dict[str, P.Param], spec: Record) -> Iterator[Problem]:
    """A width or dash of an outline the shape does not draw (no `stroke`), an opacity of a fill it does not
    draw (no `fill`): `dash: [1, 1]` on a rect without a stroke drew no outline, exit 0. (A line's stroke is
    black unless told: a shape whose own default draws it needs none written.)"""
    for key, (what, needed) in PAINT_NEEDS.items():
        param = params.get(needed)
        if key in spec and needed not in spec and param is not None and param.initial() is None:
            yield f"'{key}' sets how {what} looks, and this {kind} has no '{needed}'", spec.key_mark(key)


# What a common setting does, and the keys without one of which it does nothing
COMMON_NEEDS = {"step": ("moves each repeated copy", "has no 'repeat'", ("repeat",)),
                "as": ("names each repeated copy's value", "has no 'repeat'", ("repeat",)),
                "gap": ("is the space to the element this one is placed against", "is placed against none "
                        "(no below, above, right_of or left_of)", tuple(PLACE_RELATIONS))}


def unused_common(kind: str, params: dict[str, P.Param], spec: Record) -> Iterator[Problem]:
    """A `step` or `as` of an element that is not repeated, a `gap` of one placed against no other: it did
    nothing (`step: [5, 0]` with `repeat` left out drew one copy, exit 0). An element's own key of that name
    (the `gap` between an `icons` row's icons) is its own."""
    for key, (does, lacks, needed) in COMMON_NEEDS.items():
        if key in spec and params.get(key) is COMMON[key] and not any(k in spec for k in needed):
            yield f"'{key}' {does}, and this {kind} {lacks}", spec.key_mark(key)


def paint_style(v: dict[str, Any]) -> Style:
    """The primitive style of a filled or outlined shape from its resolved values."""
    return {"fill": v["fill"], "stroke": v["stroke"], "stroke_width": v["stroke_width"], "dash": v["dash"],
            "opacity": v["opacity"]}


class Element:
    """A layout element type. Subclasses set `type`, their `params` and `resolve`; the class docstring is
    its one-line description in the reference."""

    type = ""
    params: dict[str, P.Param] = {}
    rotates = False  # whether `rotate` applies (it is refused where it would be ignored)
    registry: dict[str, "Element"] = {}  # `type:` name -> an instance of each element class

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.type:
            Element.registry[cls.type] = cls()

    def all_params(self) -> dict[str, P.Param]:
        return {**COMMON, **(ROTATE if self.rotates else {}), **self.params}

    def check(self, spec: Record) -> Iterator[Problem]:
        """(message, mark) for each problem of how the element is written, beyond each parameter's own
        check: parameters that exclude or need each other."""
        return iter(())

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        """Append the primitives of compiled element `el` for template context `ctx`, offset by (ox, oy)."""
        raise NotImplementedError
