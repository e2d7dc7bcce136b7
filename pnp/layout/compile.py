"""A layout's elements checked once when the file is read: unknown keys, missing ones and constant values
are reported with file:line; what is left to do per item is rendering the templates."""

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from ..errors import ExprError, LayoutError, failed_at, said_in_text
from ..model.load import MarkedList, Record
from ..options import converted, did_you_mean, type_name
from ..template import compile_expression, compile_template, constant_condition, evaluate, is_template, render
from ..template import CallerPlaces, MacroArgument, TableEnums, enum_mistakes as template_enum_mistakes, expression_item_table, \
    macro_items
from . import params as P
from .elements import ELEMENTS
from .place import RELATIONS, REST
from ..report import Mark, named, shown
from .elements.base import RESERVED, Context, Element, hides_reserved, unused_common, unused_paint
from .styles import StyleSet

MAX_ELEMENTS = 5_000  # elements in one layout file, groups included


class Compiled:
    """One element of a layout, checked: constant values converted once, templates kept to render per item."""

    __slots__ = ("element", "spec", "params", "consts", "templates", "children", "when", "repeat", "name",
                 "step", "mark", "_marks")

    element: Element
    spec: Record
    mark: Mark | None
    params: dict[str, P.Param]
    when: object  # the `when` expression, or None
    repeat: object  # the `repeat` expression, or None
    name: str  # what a repeated copy calls its value
    step: Sequence[float]  # how far each repeated copy moves: [dx, dy]

    def __init__(self, element: Element, spec: Record) -> None:
        self.element, self.spec, self.mark = element, spec, spec.mark
        self.params = element.all_params()
        self.consts: dict[str, Any] = {}
        self.templates: dict[str, Any] = {}
        self.children: list[Compiled] = []
        self._marks: dict[str, Mark | None] = {}  # key -> mark_of(key): each text of each item carries one

    def mark_of(self, key: str) -> Mark | None:
        if key not in self._marks:
            self._marks[key] = self.spec.mark_of(key)
        return self._marks[key]

    def has(self, key: str) -> bool:
        return key in self.spec

    def is_templated(self, names: Iterable[str]) -> bool:
        return any(n in self.templates for n in names)

    def values(self, ctx: Context, later: Collection[str] = ()) -> dict[str, Any]:
        """Every parameter's value for one item: constants as converted at load, templates rendered now
        (except those named in `later`, which a grid renders per cell). The dict may be shared between
        items: read it, never change it."""
        if not self.templates:
            return self.consts
        out = dict(self.consts)
        for name, source in self.templates.items():
            if name not in later:
                out[name] = self._rendered(name, source, ctx)
        return out

    def _rendered(self, name: str, source: str, ctx: Context) -> Any:
        param = self.params[name]
        try:
            text = render(source, ctx)
        except ExprError as e:
            raise LayoutError(f"{name}: {e.message}", failed_at(self.mark_of(name), e)) from None
        if not isinstance(param, P.Text) and (not text or text.isspace()):  # a template that gives nothing: the default
            if param.required:
                raise LayoutError(f"{name}: the template gave nothing, and '{name}' is needed", self.mark_of(name))
            return self.consts[name]
        try:
            return param.convert(text)
        except ValueError as e:
            raise LayoutError(f"{name}: {e}", self.mark_of(name)) from None
        except ExprError as e:  # a limit met reading the text (points read as YAML)
            raise LayoutError(f"{name}: {e.message}", self.mark_of(name)) from None

    def evaluate(self, key: str, ctx: Context) -> Any:
        try:
            return evaluate(self.spec[key], ctx)
        except ExprError as e:
            raise LayoutError(f"{key}: {e.message}", failed_at(self.mark_of(key), e)) from None


# A repeated copy sees its value and its index besides the names every template sees: `as` may not hide one of
# them (`as: i` printed the indexes, not the values)
COPY_HIDES = {**RESERVED, "i": "the copy's index"}


class _Compiler:
    def __init__(self, styles: StyleSet, problems: list[tuple[str, Mark | None]]) -> None:
        self.styles, self.problems, self.count = styles, problems, 0

    def elements(self, specs: object, mark: Mark | None) -> list[Compiled]:
        if not isinstance(specs, list):
            self.problems.append((f"elements is a list (one '- type: ...' each), got {type_name(specs)}", mark))
            return []
        out: list[Compiled] = []
        for i, spec in enumerate(specs):
            compiled = self.element(spec, specs.mark_of(i) if isinstance(specs, MarkedList) else mark)
            if compiled is not None:
                out.append(compiled)
        return out

    @staticmethod
    def _type_refused(spec: Record, kind: object) -> str:
        """Why an element's type is none pnp draws: a type left out or not a name was said as the element type
        'None' or '['rect']' (Python's words), with a 'did you mean' to the very name the list held."""
        types = f"types: {', '.join(ELEMENTS)}"
        if "type" not in spec:
            return f"an element says what it draws with type: (one of its {types})"
        if not isinstance(kind, str):
            return f"type: expected an element type's name, got {type_name(kind)}; {types}"
        return f"unknown element type {named(kind)}{did_you_mean(kind, ELEMENTS)}; {types}"

    def element(self, spec: object, mark: Mark | None) -> Compiled | None:
        self.count += 1
        if self.count > MAX_ELEMENTS:
            if self.count == MAX_ELEMENTS + 1:
                self.problems.append((f"more than {MAX_ELEMENTS:,} elements in one layout", mark))
            return None
        if not isinstance(spec, Record):
            self.problems.append((f"an element is a mapping with 'type', got {type_name(spec)}", mark))
            return None
        kind = spec.get("type")
        element = ELEMENTS.get(kind) if isinstance(kind, str) else None
        if element is None:
            self.problems.append((self._type_refused(spec, kind), spec.mark_of("type")))
            return None
        spec = self._styled(spec)
        compiled = Compiled(element, spec)
        self._check_keys(compiled)
        for name, param in compiled.params.items():
            self._value(compiled, name, param)
        compiled.when, compiled.repeat = spec.get("when"), spec.get("repeat")
        compiled.name, compiled.step = compiled.consts["as"], compiled.consts["step"]
        if (named_wrong := self._copy_name_problem(compiled.name)) is not None:
            self.problems.append((named_wrong, spec.mark_of("as")))
        if kind == "group" and compiled.consts.get("elements"):
            compiled.children = self.elements(compiled.consts["elements"], spec.mark_of("elements"))
            self._placed_in_group(compiled.children)
        return compiled

    @staticmethod
    def _copy_name_problem(name: object) -> str | None:
        """Why a repeat's `as:` cannot name its copies, or None. (`as: 1` or `as: 'a b'` named a value no
        template can write: it built, and every read of the copy's value stopped as an unknown name.)"""
        if isinstance(name, str) and not name.isidentifier():
            return (f"as: a repeated copy's name is letters, digits and _ (not first a digit), as templates write "
                    f"it; not {shown(name)}")
        return hides_reserved("as: a repeated copy", name, COPY_HIDES) if isinstance(name, str) else None

    def _placed_in_group(self, children: list[Compiled]) -> None:
        """Placement (`below: NAME`, `h: rest`) is worked out among a layout's own elements: inside a group it
        was left out, silently (the text drawn over the one it was to go below, an unknown name not said)."""
        for child in children:
            for key in (r for r in RELATIONS if r in child.spec):
                self.problems.append((f"{key}: an element inside a group is not placed against others; give it "
                                      "x and y (or move it out of the group)", child.spec.mark_of(key)))
            if child.spec.get("h") == REST:
                self.problems.append((f"h: '{REST}' is for a layout's own elements; inside a group give a height",
                                      child.spec.mark_of("h")))

    def _styled(self, spec: Record) -> Record:
        """The element's settings over those of its named text style."""
        name = spec.get("style")
        if "style" not in ELEMENTS[spec["type"]].params:
            return spec
        if isinstance(name, (int, float)) and not isinstance(name, bool):  # `style: .nan`, `style: 1e308`: the
            # option's check passed a number, and the text printed in no style at all, exit 0
            self.problems.append((f"style: a text style is named by text, and {name!r} is a number: quote the "
                                  "style's name", spec.mark_of("style")))
            return spec
        if not isinstance(name, str):
            return spec  # (a style named otherwise than by text is refused as the `style:` option checks it)
        style = self.styles.get(name)
        if style is None and (name in self.styles.refused or self.styles.unread):  # (said at the style, or at
            return spec  # the styles file left unread: 'unknown', with its name among none, was said too)
        if style is None:
            known = self.styles.names()
            self.problems.append((f"unknown text style {named(name)}{did_you_mean(name, known)}; styles: "
                                  f"{', '.join(known) or 'none (declare them in text-styles.yaml)'}", spec.mark_of("style")))
            return spec
        return spec.merged_over(style)

    def _check_keys(self, compiled: Compiled) -> None:
        kind, spec = compiled.element.type, compiled.spec
        for key in spec:
            if key in compiled.params:
                continue
            if key == "rotate":
                message = f"'{kind}' elements do not rotate"
            else:
                message = f"'{kind}' element does not take {named(spec.key_quoted(key))}{did_you_mean(key, compiled.params)}"
            self.problems.append((message, spec.key_mark(key)))
        for name, param in compiled.params.items():
            if param.required and name not in spec:
                self.problems.append((f"'{kind}' element needs '{name}' ({param.doc})", spec.mark))
        self.problems.extend(compiled.element.check(spec))
        self.problems.extend(unused_paint(kind, compiled.params, spec))
        self.problems.extend(unused_common(kind, compiled.params, spec))

    def _value(self, compiled: Compiled, name: str, param: P.Param) -> None:
        spec = compiled.spec
        if name not in spec:
            compiled.consts[name] = param.initial()
            return
        value = param.as_read(spec[name], spec.written_of(name))
        if name == "h" and value == REST:  # the space left: worked out when the element is placed
            if compiled.element.type not in ("text", "rect"):
                self.problems.append((f"h: '{REST}' is for text and rect elements", spec.mark_of(name)))
            compiled.consts[name] = param.initial()
            return
        try:
            if isinstance(param, P.Expression):
                compile_expression(param.convert(value))
                compiled.consts[name] = value
                if isinstance(param, P.Condition) and isinstance(value, str) \
                        and (constant := constant_condition(value)) is not None:
                    self.problems.append((f"{name}: {constant}", spec.mark_of(name)))
            elif param.templated and is_template(value):
                compile_template(value)
                compiled.templates[name] = value
                compiled.consts[name] = param.initial()
            else:
                compiled.consts[name] = converted(param, value, spec.written_of(name))
                if (tiny := P.tiny_number_inside(param, spec, name)) is not None:
                    self.problems.append(tiny)
        except (ValueError, ExprError) as e:
            self.problems.append((f"{name}: {getattr(e, 'message', e)}", failed_at(P.refused_at(spec, name, e), e)))
            compiled.consts[name] = param.initial()


def compile_elements(specs: object, mark: Mark | None, styles: StyleSet,
                     problems: list[tuple[str, Mark | None]]) -> list[Compiled]:
    """The compiled elements of a layout file; problems found are appended as (message, mark)."""
    return _Compiler(styles, problems).elements(specs, mark)



def enum_mistakes(elements: Iterable[Compiled], enums: Mapping[str, Sequence[object]], item: frozenset[str],
                  tables: TableEnums | None = None, callers: CallerPlaces = frozenset()) -> list[tuple[str, Mark | None]]:
    """(message, mark) for each text the elements' templates and expressions compare an item's field of enum
    values with (or, with `tables`, a field of a table read whole), when it is none of the field's values
    (template.enum_mistakes), at the key's line and the template's line in it. `callers`: what macros.j2's macros
    give caller() (template.macro_callers)."""
    found: list[tuple[str, Mark | None]] = []
    for compiled in elements:
        sources = [(key, source, False) for key, source in compiled.templates.items()]
        sources += [(key, compiled.spec[key], True) for key, param in compiled.params.items()  # (when, repeat...)
                    if isinstance(param, P.Expression) and compiled.spec.get(key) is not None]
        for key, source, expression in sources:
            mark = compiled.mark_of(key)
            for message, line in template_enum_mistakes(source, expression, item, enums, tables, callers):
                found.append((f"{key}: {message}", said_in_text(mark, line)))
        found += enum_mistakes(compiled.children, enums, item, tables, callers)
    return found


def macros_given_item(elements: Iterable[Compiled], item: frozenset[str],
                      callers: CallerPlaces = frozenset()) -> set[MacroArgument]:
    """The arguments the elements' templates and expressions give macros.j2's macros that are plainly the item
    (template.macro_items)."""
    found: set[MacroArgument] = set()
    for compiled in elements:
        sources = [(source, False) for source in compiled.templates.values()]
        sources += [(compiled.spec[key], True) for key, param in compiled.params.items()
                    if isinstance(param, P.Expression) and compiled.spec.get(key) is not None]
        for source, expression in sources:
            found |= macro_items(str(source), expression, item, callers)
        found |= macros_given_item(compiled.children, item, callers)
    return found


def used_for_item(elements: Iterable[Compiled], item: frozenset[str]) -> list[tuple[str, str | None]]:
    """(layout, table) of the layouts the elements' `use`s draw for the item itself (`item: card`, one of
    `item`'s names: table None) or for an item of a table (`item: ref.cards['rex']`, `data.cards[0]`): their
    templates compare that item's fields (enum_mistakes). A layout named by a template is not known here."""
    found: list[tuple[str, str | None]] = []
    for compiled in elements:
        given = compiled.spec.get("item") if compiled.element.type == "use" else None
        layout = compiled.consts.get("layout")
        if isinstance(given, str) and isinstance(layout, str):
            table = None if given.strip() in item else expression_item_table(given)
            if table is not None or given.strip() in item:
                found.append((layout, table))
        found += used_for_item(compiled.children, item)
    return found
