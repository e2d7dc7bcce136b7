"""Tuck box nets: the flat shape of a box that holds a deck, as pure geometry in points (origin at the net's
bottom-left corner, y up). Panels, the fold lines between them, the glue tab and the cut outline.

Across, left to right: the front (it shows the deck's back), a side, the back, the other side and the glue
tab, which is glued inside the front's edge. Above the back the lid folds over the top and its tuck flap
slides in behind the front (a thumb notch in the front's top edge lets you pull it out); below the front the
bottom folds under and its tuck flap slides in behind the back. Each side has a dust flap at both ends,
folded in under the lid and the bottom."""

import math
from dataclasses import dataclass

from ..units import MM, fits

Point = tuple[float, float]
Rect = tuple[float, float, float, float]  # (x, y, w, h)

TUCK = 15 * MM  # the depth of a tuck flap (at most a quarter of the panel's height)
GLUE = 10 * MM  # the width of the glue tab (at most a quarter of the panel's width)
NOTCH = 9 * MM  # the radius of the thumb notch (at most a sixth of the panel's width)
TUCK_INSET = 1 * MM  # a tuck flap narrows by this much each side towards its tip, so it slides in
DUST_MIN = 12 * MM  # the least depth of a dust flap (they are as deep as the box, when it is deeper)


@dataclass(frozen=True)
class Net:
    """A tuck box's net. `panels` maps a panel's name to its rectangle (x, y, w, h); `folds` are the dashed
    lines ((x1, y1), (x2, y2)); `outline` is the closed cut line (a list of points, its first repeated at
    the end); `glue` is the glue tab's polygon and `front_cut` the front panel's shape with its thumb notch."""

    width: float  # W: a card's width plus the clearance (the front and back panels)
    height: float  # H: a card's height plus the clearance (the front, back and sides)
    depth: float  # D: the deck's thickness plus the clearance (the sides, the lid and the bottom)
    panels: dict[str, Rect]
    folds: list[tuple[Point, Point]]
    outline: list[Point]
    glue: list[Point]
    front_cut: list[Point]

    @property
    def size(self) -> tuple[float, float]:
        """The net's flat size (w, h)."""
        xs = [x for x, _ in self.outline]
        ys = [y for _, y in self.outline]
        return max(xs) - min(xs), max(ys) - min(ys)


def box_size(card: tuple[float, float], count: int, thickness: float, clearance: float) -> tuple[float, float, float]:
    """(W, H, D) of the box that holds `count` cards of `card` = (w, h), each `thickness` thick, with
    `clearance` of play in each direction (all in points)."""
    w, h = card
    return w + clearance, h + clearance, count * thickness + clearance


def _arc(cx: float, cy: float, r: float, start: float, end: float, steps: int = 12) -> list[Point]:
    """Points on a circle from angle `start` to `end` (degrees, anticlockwise when end > start)."""
    return [(cx + r * math.cos(math.radians(start + (end - start) * k / steps)),
             cy + r * math.sin(math.radians(start + (end - start) * k / steps))) for k in range(steps + 1)]


def _tuck_flap(x0: float, x1: float, y: float, depth: float, up: bool) -> list[Point]:
    """The outer edge of a tuck flap on the fold line y from x0 to x1 (left to right), reaching `depth` up
    (or down): narrowing by TUCK_INSET, with rounded corners at its tip."""
    s = 1 if up else -1
    r = min(depth / 2, 6 * MM)
    tip = y + s * depth
    left = [(x0, y), (x0 + TUCK_INSET, y + s * (depth - r))]
    left += _arc(x0 + TUCK_INSET + r, tip - s * r, r, 180, 180 - s * 90)[1:]
    right = _arc(x1 - TUCK_INSET - r, tip - s * r, r, 90 * s, 0) + [(x1, y)]
    return left + right


def _dust_flap(x0: float, x1: float, y: float, depth: float, up: bool) -> list[Point]:
    """A dust flap on the fold line y from x0 to x1 (left to right): a trapezoid narrowing towards its tip."""
    s = 1 if up else -1
    slant = min((x1 - x0) * 0.25, depth * 0.3, 3 * MM)
    return [(x0, y), (x0 + slant, y + s * depth), (x1 - slant, y + s * depth), (x1, y)]


def tuck_net(width: float, height: float, depth: float) -> Net:
    """The net of a box whose front is `width` x `height` and whose sides are `depth` wide (points)."""
    W, H, D = width, height, depth
    T = min(TUCK, H / 4)
    G = min(GLUE, W / 4)
    R = min(NOTCH, W / 6)
    F = min(W / 2 - 1 * MM, max(D, DUST_MIN), D + T)
    y0, y1 = T + D, T + D + H  # the main row's bottom and top
    xa, xb, xc, xd = W, W + D, 2 * W + D, 2 * W + 2 * D  # the folds between the panels, left to right
    gi = min(G, H / 8)  # the glue tab narrows by this much at each end, clear of the dust flaps' folds
    notch = _arc(W / 2, y1, R, 180, 360)
    top = [(0, y1)] + notch + [(xa, y1)]
    top += _dust_flap(xa, xb, y1, F, True)[1:]
    top += [(xb, y1 + D)] + _tuck_flap(xb, xc, y1 + D, T, True)[1:] + [(xc, y1)]
    top += _dust_flap(xc, xd, y1, F, True)[1:]
    glue = [(xd, y1), (xd + G, y1 - gi), (xd + G, y0 + gi), (xd, y0)]
    bottom = list(reversed(_dust_flap(xc, xd, y0, F, False)))[1:] + [(xb, y0)]
    bottom += list(reversed(_dust_flap(xa, xb, y0, F, False)))[1:]
    bottom += [(xa, y0 - D)] + list(reversed(_tuck_flap(0, xa, y0 - D, T, False)))[1:] + [(0, y0)]
    outline = top + glue[1:] + bottom + [(0, y1)]
    panels = {"front": (0, y0, W, H), "side": (xa, y0, D, H), "back": (xb, y0, W, H), "side-2": (xc, y0, D, H),
              "lid": (xb, y1, W, D), "bottom": (0, y0 - D, W, D), "top-tuck": (xb, y1 + D, W, T),
              "bottom-tuck": (0, y0 - D - T, W, T), "glue": (xd, y0, G, H)}
    folds = [((x, y0), (x, y1)) for x in (xa, xb, xc, xd)]
    folds += [((a, y), (b, y)) for y in (y0, y1) for a, b in ((xa, xb), (xc, xd))]
    folds += [((xb, y1), (xc, y1)), ((xb, y1 + D), (xc, y1 + D)), ((0, y0), (xa, y0)), ((0, y0 - D), (xa, y0 - D))]
    front_cut = [(0, y0), (xa, y0)] + [(xa, y1)] + list(reversed(notch)) + [(0, y1)]
    return Net(W, H, D, panels, folds, outline, glue, front_cut)


def placement(net_size: tuple[float, float], paper: tuple[float, float], margin: float,
              footer: float) -> tuple[tuple[float, float], Point] | None:
    """Where a net of `net_size` goes: (page size, (x, y) of its bottom-left corner), centred on the paper
    (portrait, else landscape) inside `margin` all round and `footer` of room at the bottom; None when it
    fits neither way."""
    w, h = net_size
    for page in (paper, (paper[1], paper[0])):
        room_w, room_h = page[0] - 2 * margin, page[1] - margin - footer
        if fits((w, h), (room_w, room_h)):
            return page, ((page[0] - w) / 2, footer + (room_h - h) / 2)
    return None


def room(paper: tuple[float, float], margin: float, footer: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The largest net that fits the paper, portrait and landscape: ((w, h), (w, h))."""
    return ((paper[0] - 2 * margin, paper[1] - margin - footer), (paper[1] - 2 * margin, paper[0] - margin - footer))
