"""text: rich text in a box, wrapped and shrunk to fit."""

from collections.abc import Iterator

from ...errors import LayoutError
from ...model.load import Record, field_holding
from ...options import shown_number
from ...template import is_template
from .. import params as P
from ..prims import Prim
from .base import TEXT_STYLE, Element, box
from .base import Context, ElementResolver, ElementShape, Problem

MAX_TEXT = 20_000  # characters in one text box: a rulebook page, many times over


class Text(Element):
    """A box of text that wraps and shrinks from `size` to `min_size` to fit; **bold**, *italic* and :icon:
    names inline."""

    type = "text"
    rotates = True
    params = {
        **box("=the layout's width", "10mm"),
        "h": P.Length("10mm", "height of the box, or `rest`: down to the bottom of the layout's safe area "
                          "(after the element is placed; not with `above`, nor turned but by a multiple of 180 "
                          "degrees)", minimum=0),
        "text": P.Text("", "the text (a template: `{{ card.name }}`)"),
        "style": P.Name(None, "a named text style from text-styles.yaml; the element's own settings win over it"),
        **TEXT_STYLE,
    }

    def check(self, spec: Record) -> Iterator[Problem]:
        """A `min_size` above `size` (both written as numbers): the text would never shrink as the layout says."""
        sizes = []
        for key in ("size", "min_size"):
            if key not in spec or is_template(spec[key]):
                return
            try:
                sizes.append(float(TEXT_STYLE[key].convert(spec[key])))  # type: ignore[arg-type]
            except ValueError:
                return  # the parameter's own check says what is wrong with it
        problem = min_size_problem(*sizes)
        if problem:
            yield problem, spec.mark_of("min_size")

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        text = v["text"]
        if not text or text.isspace():  # (never text.strip(): a copy of the whole text, on every card)
            return
        if len(text) > MAX_TEXT:
            too_long = f"text of {len(text):,} characters; a text box holds at most {MAX_TEXT:,}"
            # said at the data field that wrote it, when one did, as check.Checks says a text that does not fit
            # (it was said at the layout's element alone: a LimitError is said at the element it escapes)
            _, field = field_holding(ctx.get("item"), text)
            if field is not None:
                raise LayoutError(f"{too_long} (laid out by {el.mark_of('text')})", field)
            raise LayoutError(too_long, el.mark_of("text"))  # (at its own line: it was said at the element's,
            # a line or more above where a block-style element writes its text)
        style = {key: v[key] for key in TEXT_STYLE}
        problem = min_size_problem(style["size"], style["min_size"])
        if problem:  # templated sizes, known only now
            raise LayoutError(problem, el.mark_of("min_size"))
        style["min_size"] = style["min_size"] or style["size"]
        w = resolver.layout.width if v["w"] is None else v["w"]
        out.append(Prim("text", ox + v["x"], oy + v["y"], w, v["h"], text=text, style=style, rotate=v["rotate"],
                        mark=el.mark_of("text"), font_mark=el.mark_of("font") if el.has("font") else None))


def min_size_problem(size: float, min_size: float | None) -> str | None:
    """What is wrong when a text's smallest size is above its largest (None: min_size not set, or fine)."""
    if min_size is not None and min_size > size:
        # (digits enough to tell them apart: 'min_size: 6 pt is above size (6 pt)' for a size of 5.99999999)
        return (f"min_size: {shown_number(min_size)} pt is above size ({shown_number(size)} pt): text shrinks from "
                "size down to "
                f"min_size, so min_size is at most size")
    return None
