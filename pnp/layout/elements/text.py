"""text: rich text in a box, wrapped and shrunk to fit."""

from ...errors import LimitError
from .. import params as P
from ..prims import Prim
from .base import TEXT_STYLE, Element, box
from .base import Context, ElementResolver, ElementShape

MAX_TEXT = 20_000  # characters in one text box: a rulebook page, many times over


class Text(Element):
    """A box of text that wraps and shrinks from `size` to `min_size` to fit; **bold**, *italic* and :icon:
    names inline."""

    type = "text"
    rotates = True
    params = {
        **box("=the layout's width", "10mm"),
        "h": P.Length("10mm", "height of the box, or `rest`: down to the bottom of the layout's safe area "
                          "(after the element is placed)", minimum=0),
        "text": P.Text("", "the text (a template: `{{ card.name }}`)"),
        "style": P.Name(None, "a named text style from text-styles.yaml; the element's own settings win over it"),
        **TEXT_STYLE,
    }

    def resolve(self, el: ElementShape, ctx: Context, ox: float, oy: float, out: list[Prim],
                resolver: ElementResolver) -> None:
        v = el.values(ctx)
        text = v["text"]
        if not text.strip():
            return
        if len(text) > MAX_TEXT:
            raise LimitError(f"text of {len(text):,} characters; a text box holds at most {MAX_TEXT:,}")
        style = {key: v[key] for key in TEXT_STYLE}
        style["min_size"] = min(style["size"], style["min_size"] or style["size"])
        w = resolver.layout.width if v["w"] is None else v["w"]
        out.append(Prim("text", ox + v["x"], oy + v["y"], w, v["h"], text=text, style=style, rotate=v["rotate"],
                        mark=el.mark_of("text")))
