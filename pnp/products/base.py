"""What every component kind shares: the Printable (one face that gets printed) and the Kind base class.

A kind says what its components print (`printables`), what else must hold for them (`check`) and how they
are laid out on paper (`draw`). Products receive the game's studio (pnp.printables.Studio) as an argument:
it resolves printables to primitives, holds the layouts and fonts, and knows the paper."""

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from reportlab.pdfgen.canvas import Canvas

from ..draw.fonts import FontSet
from ..draw.paint import Painter
from ..errors import LayoutError, failed_at
from ..options import blank, control_problem
from ..impose.shapes import Outline
from ..layout.layouts import Layout, LayoutSet
from ..layout.params import Param
from ..layout.prims import Prim
from ..model.components import ITEM_FIELDS, Component
from ..model.game import Game
from ..model.icons import IconIndex
from ..model.schema import Field, Str
from ..model.load import Record
from ..project import Project
from ..report import Mark
from ..template import ExprError, is_template, render
from ..units import PrintOptions, to_mm


def _at_item_naming(p: "Printable", studio: "Studio") -> "Printable":
    """`p`, said at its item's line when the layout its item picked (a template naming layouts per item) is
    no layout: said at the template, the same line for every item, it did not say which item named it."""
    if p.item is None or p.item.mark is None:
        return p
    try:
        studio.layouts.path(p.layout)
    except LayoutError:
        return replace(p, mark=p.item.mark)
    return p


@dataclass(frozen=True, eq=False)
class Printable:
    """One face that gets printed: a component's item, one side of it, drawn with a layout."""

    component: Component
    side: str  # "front", "back", "face" (of a die), "picture" (in a rulebook)
    index: int  # the item's position among the component's distinct items
    item: Record | None  # the data item, or None
    layout: str  # the layout's name
    extra: tuple[tuple[str, Any], ...] = ()  # more template variables as (name, value) pairs: a die's ('face', 6)
    copies: int = 1  # how many times it is printed
    mark: Mark | None = None  # where it is asked for: the component's layout key in game.yaml, a rulebook line

    # stable across builds: what the printable is, not where it sits in memory (made once: a check asks for it
    # a dozen times per printable)
    key: tuple[str, str, int, tuple[tuple[str, Any], ...]] = dataclass_field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", (self.component.id, self.side, self.index, self.extra))  # (frozen)

    @property
    def which(self) -> str:
        """Which item of its component this is, as messages name it: " 'lion'" by its id, else " #3" by its
        place when the component has several, else nothing."""
        item_id = self.item.get("id") if self.item is not None else None
        return f" '{item_id}'" if item_id is not None else f" #{self.index + 1}" if self.component.count > 1 else ""

    @property
    def label(self) -> str:
        return f"{self.component.id}{self.which} {self.side}" + "".join(f" {value}" for _, value in self.extra)


Item = TypeVar("Item")


def distinct(items: Sequence[Item]) -> list[tuple[Item, int]]:
    """The distinct items of a component in first-printed order, each with how often it is printed."""
    counts: dict[int, int] = {}
    order: list[Item] = []
    for it in items:
        if id(it) not in counts:
            counts[id(it)] = 0
            order.append(it)
        counts[id(it)] += 1
    return [(it, counts[id(it)]) for it in order]


class Studio(Protocol):
    """What a product reads of the game's studio (pnp.printables.Studio, in the layer above, which calls it)."""

    game: Game
    options: PrintOptions
    paper: tuple[float, float]
    bleed: float
    project: Project
    layouts: LayoutSet
    fonts: FontSet
    icons: IconIndex
    cache: dict[str, Any]

    @property
    def page_title(self) -> str: ...
    def context(self, **extra: Any) -> dict[str, Any]: ...
    def kind(self, component: Component) -> "Kind": ...
    def of(self, component: Component) -> list[Printable]: ...
    def printed(self, printable: Printable) -> list[Prim]: ...
    def fingerprint(self, printable: Printable, prims: list[Prim] | None = None) -> tuple[str, str]: ...
    def icons_used(self) -> Collection[Path]: ...
    def painter(self, canvas: Canvas | None) -> Painter: ...
    def kept(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any: ...
    def draw(self, canvas: Canvas, painter: Painter, printable: Printable, x: float, y: float, shared: bool = False,
             clip: float | tuple[float, float, float, float] | None = None) -> None: ...


class Reporter(Protocol):
    """Where a kind's check reports (pnp.check.Said, in the layer above, which calls it)."""

    def error(self, message: str, mark: Mark | None = None) -> None: ...


DrawFile = Callable[[Canvas, Component, Studio], int]  # draws a kind's components into a PDF; returns the pages

Problems = list[tuple[str, Mark | None]]

LAYOUT_KEY = Str.key(doc="the layout of each item's front; a template such as `{{ item.layout }}` picks one per item")
BACK_KEY = Str.key(None, "the layout of each item's back, of its front's size; printed on the following page, mirrored "
                        "for long-edge duplex")


class Kind:
    """A kind of component. Subclasses set the class attributes and override what differs."""

    name = ""  # `kind:` in game.yaml
    file_part = ""  # <game>-<file_part>-<paper>.pdf holds every component of this kind
    order = 0  # place in the all-in-one PDF
    # accepted in game.yaml, each built as a field type (the keys' own notation, as layout_options' is)
    component_keys: dict[str, Field] = {**ITEM_FIELDS, "layout": LAYOUT_KEY, "back": BACK_KEY}
    layout_options: dict[str, Param] = {}  # keys this kind reads from its layout files
    # names this kind's layouts' templates see beside the common ones (a die's `face`), each with what it is: a
    # layout's variable of such a name would be hidden by it (see Checker.kind_names)
    template_names: dict[str, str] = {}
    sides: tuple[tuple[str, str], ...] = (("front", "layout"), ("back", "back"))  # (side, the key naming its layout)
    spaced = False  # imposed apart, each with what bleed the paper leaves room for (else butted together)
    turn_to_fit = True  # imposed a quarter turn round when more fit a sheet that way
    gutter_folds = False  # printed by draw_sheets: with --imposition gutterfold, fronts and backs on half a page each
    exports_faces = True  # `pnp export` writes each face as an image; a kind that is not a set of faces says False
    footer_names_items = False  # its sheets' footers name the item printed (item_name), when it has several
    paintings = 1  # how often the build paints each distinct face (the drawing budget charges each painting)
    registry: dict[str, "Kind"] = {}  # `kind:` name -> an instance of each kind class

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name:
            Kind.registry[cls.name] = cls()

    cut_edge = "cut line"  # what a message calls the line of `cut` (a straight one is the trim)

    def cut(self, layout: Layout) -> tuple[Outline, ...]:
        """The lines this kind's face of `layout` is cut or folded along, in the layout's own points (its trim
        at 0, 0; a face printed in several shapes, a die's, has each), none when it is not: text must keep
        `safe:` inside every one (check.py measures each printed line against them, whatever their shape)."""
        return ()

    def layout_name(self, component: Component, key: str, item: Record | None, studio: Studio) -> str | None:
        """A component's layout name for one item: the key's value, rendered when it is a template."""
        value = component.spec.get(key)
        if value is None:
            return None
        value = str(value)
        if not is_template(value):  # nearly always a plain name: no context to make per item
            return value
        try:
            return render(value, studio.context(item=item, card=item))
        except ExprError as e:
            raise LayoutError(f"{key}: {e.message}", failed_at(component.spec.mark_of(key), e)) from None

    def item_name(self, component: Component, printable: Printable, studio: Studio) -> str:
        """What players call one item (a board's tiles say which board they belong to): the component's
        `item_name` template, else the item's own name, title or id, else its number."""
        item = printable.item
        if "item_name" in component.spec:
            try:
                name = render(str(component.spec["item_name"]), studio.context(item=item, card=item))
            except ExprError as e:
                raise LayoutError(f"item_name: {e.message}", failed_at(component.spec.mark_of("item_name"), e)) from None
            problem = control_problem(name) or \
                ("blank: the item would be called nothing; write its words, or leave it out"
                 if blank(name) else None)  # (written out to pieces' names by exports)
            if problem:  # (said of the item it names: the template is one line for every item)
                raise LayoutError(f"item_name: {problem} (naming {component.id}{printable.which})",
                                  component.spec.mark_of("item_name"))
            return name
        for field in ("name", "title", "id"):
            if item is not None and isinstance(item.get(field), str) and item.get(field).strip():
                return item.get(field)
        return str(printable.index + 1)

    def printables(self, component: Component, studio: Studio) -> list[Printable]:
        """Every face the component prints: for each distinct item, each side that has a layout."""
        out: list[Printable] = []
        marks = {key: component.spec.mark_of(key) for _, key in self.sides}  # (one Mark for all its printables)
        for index, (item, copies) in enumerate(distinct(component.items or [None] * component.count)):
            for side, key in self.sides:
                name = self.layout_name(component, key, item, studio)
                if name is not None:
                    out.append(Printable(component, side, index, item, name, copies=copies, mark=marks[key]))
        # each side's layouts gathered once: counted again for every face, a deck of n items took n * n steps
        layouts: dict[str, set[str]] = {}
        for p in out:
            layouts.setdefault(p.side, set()).add(p.layout)
        return [_at_item_naming(p, studio) if len(layouts[p.side]) > 1 else p for p in out]

    def check(self, component: Component, studio: Studio, report: Reporter) -> None:
        """Problems of this kind beyond what resolving its printables finds (reported into `report`): here,
        what every kind with backs keeps (a kind adding its own calls this too)."""
        check_backs(component, studio, report)

    def draw(self, canvas: Canvas, component: Component, studio: Studio) -> int:
        """Draw the component onto the canvas, page by page; returns the number of pages."""
        raise NotImplementedError

    def pages(self, component: Component, studio: Studio, paper: tuple[float, float]) -> int:
        """The pages draw and extra_files will print for the component on `paper`, foreseen without drawing
        (validation refuses a kit past its page allowance on any paper pnp offers with it), or fewer where a
        kind cannot tell cheaply: those are counted as they are drawn."""
        return 0

    def size_mm(self, component: Component, studio: Studio) -> list[float] | None:
        """The trim size of the component's first face, for the manifest."""
        faces = studio.of(component)
        return studio.layouts.get(faces[0].layout).size_mm if faces else None

    def text_digest(self, component: Component, studio: Studio) -> str | None:
        """A digest of what the component prints besides its faces (a rulebook's text), or None."""
        return None

    def extra_files(self) -> tuple[tuple[str, str, DrawFile], ...]:
        """(file part, draw function) of PDFs this kind adds beside its own, e.g. boards at full size."""
        return ()


def check_backs(component: Component, studio: Studio, report: Reporter) -> None:
    """Each back is the size of its front: it is printed behind it and cut with it. A tarot back of poker
    fronts was cut to the fronts' slots (its foot lost) and a token's back placed by its front's size, exit 0."""
    fronts = {p.index: p for p in studio.of(component) if p.side == "front"}
    said: set[tuple[str, str]] = set()
    for back in (p for p in studio.of(component) if p.side == "back" and p.index in fronts):
        front = fronts[back.index]
        try:
            sizes = [studio.layouts.size(face.layout) for face in (front, back)]
        except LayoutError:  # a layout that cannot be read: said where its face is checked
            continue
        if sizes[0] == sizes[1] or (front.layout, back.layout) in said:
            continue
        said.add((front.layout, back.layout))
        shown = [f"{to_mm(w):g} x {to_mm(h):g} mm" for w, h in sizes]
        report.error(f"the back '{back.layout}' is {shown[1]}, its front '{front.layout}' {shown[0]} ({back.label}): "
                     "a back is printed behind its front and cut with it, so both must be one size", back.mark)
