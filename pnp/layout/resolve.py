"""Evaluates a layout for one item: templates, `when`, `repeat`, grids and tracks -> drawing primitives."""

import math
from dataclasses import dataclass, field

from .. import units
from ..template import ExprError, evaluate, is_template, render
from .spec import LayoutError

MM = units.MM


@dataclass(slots=True)
class Prim:
    """One thing to draw, in points, x/y from the trim box's top-left corner, y downwards."""

    kind: str  # rect line circle polygon text icon image
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    points: tuple = ()
    style: dict = field(default_factory=dict)
    text: str = ""
    rotate: float = 0.0
    mark: object = None


class Resolver:
    """Resolve `layout` for an item (any Record or None) in the game's template context."""

    def __init__(self, layout, base_context, resolver_for=None):
        self.layout = layout
        self.resolver_for = resolver_for  # name -> Resolver, for `use` elements
        self.base = {**base_context, "vars": layout.vars, **layout.vars,
                     "W": units.to_mm(layout.width), "H": units.to_mm(layout.height),
                     "B": units.to_mm(layout.bleed)}

    def resolve(self, item=None, **extra):
        ctx = {**self.base, "item": item, "card": item, **extra}
        out = []
        for el in self.layout.elements:
            self._element(el, ctx, 0.0, 0.0, out)
        return out

    # -- values -------------------------------------------------------------
    def _raw(self, el, key, ctx, default=None):
        if key not in el:
            return default
        value = el[key]
        if is_template(value):
            try:
                value = render(value, ctx)
            except ExprError as e:
                raise LayoutError(f"{key}: {e.message}", el.mark_of(key)) from None
        return value

    def _len(self, el, key, ctx, default=0.0):
        value = self._raw(el, key, ctx)
        if value is None or value == "":
            return default
        try:
            return units.length(value)
        except ValueError as e:
            raise LayoutError(f"{key}: {e}", el.mark_of(key)) from None

    def _num(self, el, key, ctx, default):
        value = self._raw(el, key, ctx)
        if value is None or value == "":
            return default
        try:
            return float(value)
        except (TypeError, ValueError):
            raise LayoutError(f"{key}: expected a number, got {value!r}", el.mark_of(key)) from None

    def _expr(self, el, key, ctx):
        try:
            return evaluate(el[key], ctx)
        except ExprError as e:
            raise LayoutError(f"{key}: {e.message}", el.mark_of(key)) from None

    def _style(self, el, ctx):
        style = {}
        for key in ("fill", "stroke", "color", "dash"):
            if key in el:
                style[key] = self._raw(el, key, ctx)
        if "stroke_width" in el:
            style["stroke_width"] = self._len(el, "stroke_width", ctx)
        if "opacity" in el:
            style["opacity"] = self._num(el, "opacity", ctx, 1.0)
        return style

    # -- elements -----------------------------------------------------------
    def _element(self, el, ctx, ox, oy, out):
        if "repeat" not in el:
            if "when" not in el or self._expr(el, "when", ctx):
                self._one(el, ctx, ox, oy, out)
            return
        values = self._expr(el, "repeat", ctx)
        if isinstance(values, int):
            values = range(values)
        step = el.get("step") or [0, 0]
        try:
            dx, dy = units.length(step[0]), units.length(step[1])
        except (ValueError, IndexError, TypeError):
            raise LayoutError("step: expected [dx, dy]", el.mark_of("step")) from None
        name = el.get("as", "it")
        for i, value in enumerate(values):  # `i` is this repeat's index; `<as>_i` survives nested repeats
            each = {**ctx, name: value, "i": i, f"{name}_i": i}
            if "when" not in el or self._expr(el, "when", each):  # `when` may test the repeated value
                self._one(el, each, ox + i * dx, oy + i * dy, out)

    def _one(self, el, ctx, ox, oy, out):
        kind = el["type"]
        L = lambda key, default=0.0: self._len(el, key, ctx, default)  # noqa: E731
        rotate = self._num(el, "rotate", ctx, 0.0)
        if kind == "group":
            gx, gy = ox + L("x"), oy + L("y")
            for child in el.get("elements") or []:
                self._element(child, ctx, gx, gy, out)
            return
        if kind in ("grid", "track"):  # their colours and labels are templates per cell
            (self._grid if kind == "grid" else self._track)(el, ctx, ox, oy, out)
            return
        style = self._style(el, ctx)
        if kind == "rect":
            x, y, w, h = ox + L("x"), oy + L("y"), L("w", self.layout.width), L("h", self.layout.height)
            if el.get("bleed"):  # sides lying on the trim line run out into the bleed
                b, W, H = self.layout.bleed, self.layout.width, self.layout.height
                x2, y2 = x + w, y + h
                x, y = (x - b if x <= 0.01 else x), (y - b if y <= 0.01 else y)
                x2, y2 = (x2 + b if x2 >= W - 0.01 else x2), (y2 + b if y2 >= H - 0.01 else y2)
                w, h = x2 - x, y2 - y
            style["radius"] = L("radius")
            out.append(Prim("rect", x, y, w, h, style=style, rotate=rotate))
        elif kind == "line":
            out.append(Prim("line", points=((ox + L("x1"), oy + L("y1")), (ox + L("x2"), oy + L("y2"))),
                            style=style))
        elif kind == "circle":
            r = L("r")
            out.append(Prim("circle", ox + L("cx") - r, oy + L("cy") - r, 2 * r, 2 * r, style=style))
        elif kind == "polygon":
            pts = self._raw(el, "points", ctx) or []
            try:
                points = tuple((ox + units.length(p[0]), oy + units.length(p[1])) for p in pts)
            except (ValueError, TypeError, IndexError):
                raise LayoutError("points: expected a list of [x, y]", el.mark_of("points")) from None
            out.append(Prim("polygon", points=points, style=style, rotate=rotate))
        elif kind == "hex":
            cx, cy, r = ox + L("cx"), oy + L("cy"), L("r")
            start = 0 if self._raw(el, "orientation", ctx, "flat") == "flat" else 30
            points = tuple((cx + r * math.cos(math.radians(start + 60 * k)),
                            cy + r * math.sin(math.radians(start + 60 * k))) for k in range(6))
            out.append(Prim("polygon", points=points, style=style))
        elif kind == "text":
            self._text(el, ctx, ox, oy, out, rotate)
        elif kind == "icon":
            name = str(self._raw(el, "icon", ctx) or "")
            if name:
                out.append(Prim("icon", ox + L("x"), oy + L("y"), L("w"), L("h", L("w")), text=name,
                                style=style, rotate=rotate, mark=el.mark_of("icon")))
        elif kind == "image":
            out.append(Prim("image", ox + L("x"), oy + L("y"), L("w"), L("h"), text=str(self._raw(el, "src", ctx)),
                            style={"min_dpi": self._num(el, "min_dpi", ctx, 150)}, rotate=rotate,
                            mark=el.mark_of("src")))
        elif kind == "icons":
            self._icon_row(el, ctx, ox, oy, out, style)
        elif kind == "grid":
            self._grid(el, ctx, ox, oy, out)
        elif kind == "use":
            self._use(el, ctx, ox, oy, out)
        elif kind == "track":
            self._track(el, ctx, ox, oy, out)

    def _use(self, el, ctx, ox, oy, out):
        """Another layout drawn inside this one (a card in an anatomy diagram), scaled to width `w`."""
        name = str(self._raw(el, "layout", ctx))
        if self.resolver_for is None:
            raise LayoutError("'use' elements need a build context", el.mark_of("layout"))
        try:
            inner = self.resolver_for(name)
        except LayoutError as e:
            raise LayoutError(f"use: {e.message}", el.mark_of("layout")) from None
        item = self._expr(el, "item", ctx) if "item" in el else None
        width = self._len(el, "w", ctx, inner.layout.width)
        scale = width / inner.layout.width
        x, y = ox + self._len(el, "x", ctx), oy + self._len(el, "y", ctx)
        extra = {k: (render(v, ctx) if is_template(v) else v) for k, v in (el.get("with") or {}).items()}
        for p in inner.resolve(item, **extra):
            out.append(_scaled(p, x, y, scale))

    def _text(self, el, ctx, ox, oy, out, rotate):
        text = self._raw(el, "text", ctx, "")
        text = "" if text is None else str(text)
        if not text.strip():
            return
        size = self._num(el, "size", ctx, 9.0)
        style = {
            "font": self._raw(el, "font", ctx, "Body"),
            "size": size,
            "min_size": self._num(el, "min_size", ctx, size),
            "leading": self._num(el, "leading", ctx, 1.2),
            "align": self._raw(el, "align", ctx, "left"),
            "valign": self._raw(el, "valign", ctx, "top"),
            "color": self._raw(el, "color", ctx, "#000000"),
            "max_lines": int(self._num(el, "max_lines", ctx, 0)),
        }
        out.append(Prim("text", ox + self._len(el, "x", ctx), oy + self._len(el, "y", ctx),
                        self._len(el, "w", ctx, self.layout.width), self._len(el, "h", ctx, 10 * MM),
                        text=text, style=style, rotate=rotate, mark=el.mark_of("text")))

    def _icon_row(self, el, ctx, ox, oy, out, style):
        name = str(self._raw(el, "icon", ctx) or "")
        count = int(self._num(el, "count", ctx, 1))
        size = self._len(el, "size", ctx, 5 * MM)
        gap = self._len(el, "gap", ctx, 1 * MM)
        direction = self._raw(el, "direction", ctx, "right")
        dx, dy = {"right": (1, 0), "left": (-1, 0), "down": (0, 1), "up": (0, -1)}.get(direction, (1, 0))
        x, y = ox + self._len(el, "x", ctx), oy + self._len(el, "y", ctx)
        for k in range(count):
            out.append(Prim("icon", x + k * dx * (size + gap), y + k * dy * (size + gap), size, size,
                            text=name, style=style, mark=el.mark_of("icon")))

    def _cells(self, el, ctx, cells, out):
        """Draw each cell (x, y, w, h, vars) as a rect plus an optional centred label, templated per cell."""
        for x, y, w, h, cell_vars in cells:
            cctx = {**ctx, **cell_vars}
            style = self._style(el, cctx)
            shape = self._raw(el, "shape", cctx, "rect")
            if shape == "circle":
                out.append(Prim("circle", x, y, w, h, style=style))
            else:
                out.append(Prim("rect", x, y, w, h, style=style))
            if "label" in el:
                label = self._raw(el, "label", cctx)
                if label not in (None, ""):
                    size = self._num(el, "label_size", cctx, min(w, h) / 2.2)
                    out.append(Prim("text", x, y + (h - size * 1.0) / 2, w, size * 1.3, text=str(label),
                                    style={"font": self._raw(el, "font", cctx, "Display"), "size": size,
                                           "min_size": size * 0.6, "leading": 1.0, "align": "center",
                                           "valign": "top", "color": self._raw(el, "color", cctx, "#000000"),
                                           "max_lines": 1},
                                    mark=el.mark_of("label")))

    def _grid(self, el, ctx, ox, oy, out):
        cols, rows = int(self._num(el, "cols", ctx, 1)), int(self._num(el, "rows", ctx, 1))
        cw, ch = self._len(el, "cell_w", ctx, 10 * MM), self._len(el, "cell_h", ctx, 10 * MM)
        x0, y0 = ox + self._len(el, "x", ctx), oy + self._len(el, "y", ctx)
        cells = [(x0 + c * cw, y0 + r * ch, cw, ch, {"row": r, "col": c, "n": r * cols + c})
                 for r in range(rows) for c in range(cols)]
        self._cells(el, ctx, cells, out)

    def _track(self, el, ctx, ox, oy, out):
        """Numbered spaces along a line (x1,y1 -> x2,y2) or clockwise around a rectangle's edge (x,y,w,h)."""
        count = int(self._num(el, "count", ctx, 10))
        start = int(self._num(el, "start", ctx, 0))
        cell = self._len(el, "cell", ctx, 10 * MM)
        if "x1" in el:
            x1, y1 = ox + self._len(el, "x1", ctx), oy + self._len(el, "y1", ctx)
            x2, y2 = ox + self._len(el, "x2", ctx), oy + self._len(el, "y2", ctx)
            centres = [(x1 + (x2 - x1) * k / max(count - 1, 1), y1 + (y2 - y1) * k / max(count - 1, 1))
                       for k in range(count)]
        else:
            x, y = ox + self._len(el, "x", ctx), oy + self._len(el, "y", ctx)
            w, h = self._len(el, "w", ctx, self.layout.width), self._len(el, "h", ctx, self.layout.height)
            centres = _around(x + cell / 2, y + cell / 2, w - cell, h - cell, count)
            if centres is None:
                raise LayoutError(f"track: {count} spaces of {units.to_mm(cell)} mm do not fit around "
                                  f"{units.to_mm(w)} x {units.to_mm(h)} mm", el.mark)
        cells = [(cx - cell / 2, cy - cell / 2, cell, cell, {"n": start + k, "i": k, "last": k == count - 1})
                 for k, (cx, cy) in enumerate(centres)]
        self._cells(el, ctx, cells, out)


def _scaled(p, x, y, s):
    """A copy of a primitive scaled by s about the origin, then moved by (x, y)."""
    style = dict(p.style)
    for key in ("size", "min_size"):
        if key in style:
            style[key] = style[key] * s
    for key in ("stroke_width", "radius"):
        if key in style:
            style[key] = style[key] * s
    return Prim(p.kind, x + p.x * s, y + p.y * s, p.w * s, p.h * s,
                tuple((x + px * s, y + py * s) for px, py in p.points), style, p.text, p.rotate, p.mark)


def _around(x, y, w, h, count):
    """`count` points evenly spaced clockwise around a rectangle's perimeter, from its top-left corner."""
    if count <= 0:
        return []
    step = 2 * (w + h) / count
    if step <= 0:
        return None
    points = []
    for k in range(count):
        d = k * step
        if d < w:
            points.append((x + d, y))
        elif d < w + h:
            points.append((x + w, y + d - w))
        elif d < 2 * w + h:
            points.append((x + w - (d - w - h), y + h))
        else:
            points.append((x, y + h - (d - 2 * w - h)))
    return points
