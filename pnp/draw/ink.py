"""The ink saver: large floods of colour (a card back, a board's sea, a cream card face) are left unprinted,
the paper's white in their place, and keep only their outline; light text or icons that stood on such a
flood take the flood's colour so they still read. Everything else prints as designed. Leaving the flood out
rather than tinting it matters: a printer lays some ink on every pixel of a tint."""

from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

from reportlab.lib.colors import Color

from .colour import colour
from .primitive import Primitive

FLOOD = 0.2  # a fill covering this share of the face or more is a flood
LIGHT = 0.75  # text or icons lighter than this (luminance 0..1) were meant to stand on a dark flood
OUTLINE = 0.6  # points: the outline a flood keeps

Prim = TypeVar("Prim", bound=Primitive)
Box = tuple[float, float, float, float]  # (x, y, w, h)


def _luminance(c: Color) -> float:
    return 0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue


def _hex(r: float, g: float, b: float) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(round(v * 255) for v in (r, g, b)))


def _contains(box: Box, x: float, y: float) -> bool:
    return box[0] <= x <= box[0] + box[2] and box[1] <= y <= box[1] + box[3]


def ink_saved(prims: Sequence[Prim], width: float, height: float) -> list[Prim]:
    """The primitives of one face as the ink saver prints them."""
    area = width * height
    fills: list[tuple[Box, Color | None]] = []  # (box, its colour if it was lightened, else None), in drawing order
    out: list[Prim] = []
    for p in prims:
        fill = colour(p.style.get("fill")) if p.kind in ("rect", "circle", "polygon") else None
        if fill is not None:
            flood = p.w * p.h >= FLOOD * area
            fills.append(((p.x, p.y, p.w, p.h), fill if flood else None))
            if flood:  # the paper shows instead; a flood that was not near white keeps its outline
                outline = p.style.get("stroke") or (_hex(fill.red, fill.green, fill.blue)
                                                    if _luminance(fill) < 0.9 else None)
                p = replace(p, style={**p.style, "fill": None, "stroke": outline,
                                      "stroke_width": p.style.get("stroke_width") or OUTLINE})
        elif p.kind in ("text", "icon"):
            p = _readable(p, fills)
        out.append(p)
    return out


def _readable(p: Prim, fills: list[tuple[Box, Color | None]]) -> Prim:
    """Light text or an icon on a flood that is now light takes the flood's own colour."""
    ink = colour(p.style.get("color", "#000000"))
    if ink is None or _luminance(ink) < LIGHT:
        return p
    cx, cy = p.x + p.w / 2, p.y + p.h / 2
    under = next((flood for box, flood in reversed(fills) if _contains(box, cx, cy)), None)
    if under is None or _luminance(under) >= LIGHT:  # it stood on something light already: as designed
        return p
    return replace(p, style={**p.style, "color": _hex(under.red, under.green, under.blue)})
