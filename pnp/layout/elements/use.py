"""use: another layout drawn inside this one, scaled to a width."""

from collections.abc import Iterator, Mapping
from dataclasses import replace

from ...errors import LayoutError, failed_at
from ...template import ExprError, render
from .. import params as P
from ..prims import scaled
from .base import Element
from ..prims import LayoutShape, Prim
from .base import Context, ElementResolver, ElementShape, Problem, hides_reserved
from ...model.load import Record
from ...report import shown


class Use(Element):
    """Another layout drawn inside this one (a card in a diagram), scaled to width `w`. On anything a player
    handles its text counts at the size it prints (`min_text_size`); in a rulebook's pictures it may be smaller."""

    type = "use"
    params = {
        "layout": P.Text(doc="the layout's name"),
        "item": P.Expression(None, "the item it is drawn for, e.g. `ref.cards['lion']`"),
        "x": P.Length(0, "left edge"), "y": P.Length(0, "top edge"),
        "w": P.Length("=the used layout's own width", "width it is drawn at", minimum=0),
        "with": P.Variables({}, "more template variables for it: name -> value (values are templates)"),
    }

    def check(self, spec: Record) -> Iterator[Problem]:
        """`with`'s values are rendered where they are texts: a template inside a list or mapping was printed as
        written, braces and all. Its names may not hide those the used layout's templates see (as a layout's
        vars may not): `with: {W: 300}` made the used layout's W 300."""
        given = spec.get("with")
        for name in given if isinstance(given, Record) else ():
            if not (isinstance(name, str) and name.isidentifier()):  # (`with: {'card name': x}` or {1: x} gave a
                # variable no template can write, so none read it: printed without it, exit 0)
                yield (f"with: a variable's name is letters, digits and _ (not first a digit), as templates write "
                       f"it; not {shown(given.key_quoted(name))}"), given.key_mark(name)
            elif (hidden := hides_reserved("with: a variable", name)) is not None:
                yield hidden + (" (give the item as `item:`)" if name in ("item", "card") else ""), given.key_mark(name)
        found = P.template_inside(spec, "with", below=True) if isinstance(spec.get("with"), Mapping) else None
        if found is not None:
            yield (f"with: a template inside a list or mapping ({shown(found[0], 40)}) is printed as written, braces "
                   "and all; only a value that is itself a text is rendered: give it a name of its own"), found[1]

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        item = el.evaluate("item", ctx) if el.has("item") else None
        extra = {k: _rendered(el, k, val, ctx) if isinstance(val, str) else val for k, val in v["with"].items()}
        inner, prims = resolver.use(v["layout"], item, extra, el)
        width = inner.width if v["w"] is None else v["w"]
        scale = width / inner.width if inner.width else 1.0
        x, y = ox + v["x"], oy + v["y"]
        out.extend(scaled(_trimmed(p, inner), x, y, scale, el.mark) for p in prims)


def _rendered(el: ElementShape, name: str, source: str, ctx: Context) -> object:
    """A `with` value's template rendered, its failure said at the value and named by its key, as any template
    of an element is: it was said at the element's first line, with neither (`with: {z: "{{ 1 / 0 }}"}`)."""
    try:
        return render(source, ctx)
    except ExprError as e:
        given = el.spec.get("with")
        mark = given.mark_of(name) if isinstance(given, Record) else el.mark_of("with")
        raise LayoutError(f"with: {name}: {e.message}", failed_at(mark, e)) from None


def _trimmed(p: Prim, layout: LayoutShape) -> Prim:
    """A rectangle cut back to the used layout's trim: a card pictured inside another layout shows as it is
    once cut, without the art its bleed carries past the edge."""
    if p.kind != "rect" or p.rotate:
        return p
    x0, y0 = max(p.x, 0.0), max(p.y, 0.0)
    x1, y1 = min(p.x + p.w, layout.width), min(p.y + p.h, layout.height)
    if (x0, y0, x1, y1) == (p.x, p.y, p.x + p.w, p.y + p.h):
        return p
    return replace(p, x=x0, y=y0, w=max(x1 - x0, 0.0), h=max(y1 - y0, 0.0))
