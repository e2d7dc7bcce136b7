"""Paints layout primitives onto a ReportLab canvas; the only place primitives meet PDF coordinates."""

import functools

from reportlab.lib import colors

from . import text as rtext
from .icons import draw_icon


class ColourError(ValueError):
    pass


@functools.lru_cache(maxsize=1024)
def colour(value):
    """'#rrggbb', '#rgb', a CSS/ReportLab colour name, or none/transparent -> Color or None."""
    if value is None:
        return None
    s = str(value).strip()
    if s.lower() in ("", "none", "transparent"):
        return None
    try:
        return colors.toColor(s)
    except (ValueError, AttributeError, TypeError):
        raise ColourError(f"unknown colour {value!r}: use '#rrggbb' or a colour name") from None


class Painter:
    """Draws primitives of one game: fonts, icons and images resolved through the game's folders."""

    def __init__(self, canvas, fonts, icons, image_folder, fit_cache=None):
        self.c, self.fonts, self.icons, self.image_folder = canvas, fonts, icons, image_folder
        self.fit_cache = {} if fit_cache is None else fit_cache

    def icon(self, canvas, name, x, y, w, h, col):
        path = self.icons.path(name)
        if path is None:  # validation reports it; a build never fails on one missing glyph
            return
        draw_icon(canvas, path, x, y, w, h, col or colors.black)

    def paint(self, prims, x0, y0, height):
        """Draw `prims` with the trim box's bottom-left corner at (x0, y0) and the given trim height."""
        c = self.c
        top = y0 + height
        for p in prims:
            if p.rotate:
                c.saveState()
                cx, cy = x0 + p.x + p.w / 2, top - p.y - p.h / 2
                c.translate(cx, cy)
                c.rotate(-p.rotate)
                c.translate(-cx, -cy)
            getattr(self, "_" + p.kind)(p, x0, top)
            if p.rotate:
                c.restoreState()

    def _stroke_fill(self, p):
        s = p.style
        fill, stroke = colour(s.get("fill")), colour(s.get("stroke"))
        c = self.c
        if fill is not None:
            c.setFillColor(fill)
        if stroke is not None:
            c.setStrokeColor(stroke)
            c.setLineWidth(s.get("stroke_width", 0.5))
            dash = s.get("dash")
            c.setDash([float(v) for v in str(dash).split()] if dash else [])
        if "opacity" in s:
            c.setFillAlpha(s["opacity"])
        return int(fill is not None), int(stroke is not None)

    def _rect(self, p, x0, top):
        fill, stroke = self._stroke_fill(p)
        if not (fill or stroke):
            return
        r = p.style.get("radius", 0)
        y = top - p.y - p.h
        if r:
            self.c.roundRect(x0 + p.x, y, p.w, p.h, r, stroke=stroke, fill=fill)
        else:
            self.c.rect(x0 + p.x, y, p.w, p.h, stroke=stroke, fill=fill)
        if "opacity" in p.style:
            self.c.setFillAlpha(1)

    def _circle(self, p, x0, top):
        fill, stroke = self._stroke_fill(p)
        if fill or stroke:
            self.c.ellipse(x0 + p.x, top - p.y - p.h, x0 + p.x + p.w, top - p.y, stroke=stroke, fill=fill)

    def _line(self, p, x0, top):
        stroke = colour(p.style.get("stroke", "#000000"))
        if stroke is None:
            return
        self._stroke_fill(p) if "stroke" in p.style else self.c.setStrokeColor(stroke)
        (x1, y1), (x2, y2) = p.points
        self.c.line(x0 + x1, top - y1, x0 + x2, top - y2)

    def _polygon(self, p, x0, top):
        fill, stroke = self._stroke_fill(p)
        if not (fill or stroke) or not p.points:
            return
        path = self.c.beginPath()
        (fx, fy), rest = p.points[0], p.points[1:]
        path.moveTo(x0 + fx, top - fy)
        for x, y in rest:
            path.lineTo(x0 + x, top - y)
        path.close()
        self.c.drawPath(path, stroke=stroke, fill=fill)

    def _icon(self, p, x0, top):
        self.icon(self.c, p.text, x0 + p.x, top - p.y - p.h, p.w, p.h, colour(p.style.get("color", "#000000")))

    def _image(self, p, x0, top):
        path = self.image_folder / p.text
        if path.is_file():
            self.c.drawImage(str(path), x0 + p.x, top - p.y - p.h, p.w, p.h, preserveAspectRatio=True,
                             anchor="c", mask="auto")

    def fit_text(self, p):
        s = p.style
        key = (p.text, s["font"], round(p.w, 3), round(p.h, 3), s["size"], s["min_size"], s["leading"],
               s.get("max_lines", 0))
        fitted = self.fit_cache.get(key)
        if fitted is None:
            fitted = self.fit_cache[key] = rtext.fit(p.text, self.fonts, s["font"], p.w, p.h, s["size"],
                                                     s["min_size"], s["leading"], s.get("max_lines", 0))
        return fitted

    def _text(self, p, x0, top):
        s = p.style
        fitted = self.fit_text(p)
        used = len(fitted.lines) * fitted.leading - (fitted.leading - fitted.size)
        offset = {"middle": (p.h - used) / 2, "bottom": p.h - used}.get(s["valign"], 0.0)
        rtext.draw_lines(self.c, fitted, x0 + p.x, top - p.y - max(offset, 0.0), p.w, s["align"],
                         colour(s["color"]) or colors.black, self.fonts, s["font"], self.icon)
