"""Paints layout primitives onto a ReportLab canvas; the only place primitives meet PDF coordinates."""

import functools
from collections.abc import Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from reportlab.lib import colors

from ..errors import BudgetSpent, LimitError, blame
from ..model.icons import IconIndex
from ..report import Mark
from . import text as rtext
from .colour import ColourError, colour
from .icons import draw_icon, icon_paints
from .pictures import CheckedPicture, checked_source, draw_as_is, draw_resampled, drawn_pixels, verified_picture
from .primitive import Primitive
from ..project import Project, present
from .fonts import FontSet
from reportlab.pdfgen.canvas import Canvas

__all__ = ["Painter", "colour", "ColourError"]

TextBox = tuple[float, float, float, float]  # (left, top, right, bottom), points from the trim's top-left


class PaintingBudget(Protocol):
    """What painting spends of the game's drawing budget (pnp.layout.budget.DrawingBudget, which imports this
    package)."""

    def spend_pixels(self, work: str, pixels: int, mark: Mark | None, shown: str) -> None: ...


class Painter:
    """Draws primitives of one game: fonts, icons and images resolved through the game's folders."""

    def __init__(self, canvas: Canvas, fonts: FontSet, icons: IconIndex, project: Project, image_folder: Path,
                 fit_cache: MutableMapping[tuple[Any, ...], rtext.Fitted] | None = None,
                 budget: PaintingBudget | None = None) -> None:
        self.c, self.fonts, self.icons, self.image_folder = canvas, fonts, icons, image_folder
        self.project = project  # images are drawn only once known to be its own files, of a format pnp prints
        self.fit_cache: MutableMapping[tuple[Any, ...], rtext.Fitted] = {} if fit_cache is None else fit_cache
        self.budget = budget  # the game's drawing budget (layout.budget.DrawingBudget), which pictures spend
        self._icon_paints: dict[Path, int] = {}  # an icon file -> the fills and strokes it paints (this command)

    def icon(self, canvas: Canvas, name: str, x: float, y: float, w: float, h: float,
             col: colors.Color | None) -> None:
        path = self.icons.path(name)
        if path is None:  # validation reports it; a build never fails on one missing glyph
            return
        draw_icon(canvas, path, x, y, w, h, col or colors.black, self.icons.icon_of(path), self.project.root)

    def icon_paints(self, p: Primitive) -> list[int]:
        """The fills and strokes of each icon that painting `p` draws (its icon, or its text's inline icons),
        as draw_icon counts them: what the drawing budget charges for each use (layout.budget.spend_drawing)."""
        if p.kind == "icon":
            names = [p.text]
        elif p.kind == "text" and ":" in p.text:  # (every icon its markup holds: a text cut short still pays)
            names = [run.text for run in rtext.parse(p.text) if run.kind == "icon"]
        else:
            return []
        paints = []
        for name in names:
            path = self.icons.path(name)
            if path is None:  # drawn as nothing (validation says so)
                continue
            if path not in self._icon_paints:
                try:
                    self._icon_paints[path] = icon_paints(path, self.project.root)
                except LimitError as e:  # the game's time ran out reading it: said at the element using it
                    raise BudgetSpent(f"{e.message} reading icon '{name}'", p.mark) from None
            paints.append(self._icon_paints[path])
        return paints

    def paint(self, prims: Sequence[Primitive], x0: float, y0: float, height: float) -> None:
        """Draw `prims` with the trim box's bottom-left corner at (x0, y0) and the given trim height."""
        c = self.c
        top = y0 + height
        for p in prims:
            try:
                if p.rotate:  # clockwise on the page about the centre of the primitive's box
                    c.saveState()
                    cx, cy = x0 + p.x + p.w / 2, top - p.y - p.h / 2
                    c.translate(cx, cy)
                    c.rotate(-p.rotate)
                    c.translate(-cx, -cy)
                getattr(self, "_" + p.kind)(p, x0, top)
                if p.rotate:
                    c.restoreState()
            except Exception as e:
                blame(e, p.mark)  # the layout element that made it
                raise

    def _stroke_fill(self, p: Primitive) -> tuple[int, int]:
        s = p.style
        fill, stroke = colour(s.get("fill")), colour(s.get("stroke"))
        c = self.c
        if fill is not None:
            c.setFillColor(fill)
        if stroke is not None:
            c.setStrokeColor(stroke)
            c.setLineWidth(s.get("stroke_width", 0.5))
            c.setDash(list(s.get("dash") or ()))
        opacity = s.get("opacity", 1)
        if opacity != 1:
            c.setFillAlpha(opacity)
        return int(fill is not None), int(stroke is not None)

    def _reset_opacity(self, p: Primitive) -> None:
        if p.style.get("opacity", 1) != 1:
            self.c.setFillAlpha(1)

    def _rect(self, p: Primitive, x0: float, top: float) -> None:
        fill, stroke = self._stroke_fill(p)
        if fill or stroke:
            # at most half the shorter side, which rounds it fully (a pill, a circle): past that the corners' curves
            # crossed, drawing a bow tie
            r = min(p.style.get("radius", 0), p.w / 2, p.h / 2)
            y = top - p.y - p.h
            if r:
                self.c.roundRect(x0 + p.x, y, p.w, p.h, r, stroke=stroke, fill=fill)
            else:
                self.c.rect(x0 + p.x, y, p.w, p.h, stroke=stroke, fill=fill)
        self._reset_opacity(p)

    def _circle(self, p: Primitive, x0: float, top: float) -> None:
        fill, stroke = self._stroke_fill(p)
        if fill or stroke:
            self.c.ellipse(x0 + p.x, top - p.y - p.h, x0 + p.x + p.w, top - p.y, stroke=stroke, fill=fill)
        self._reset_opacity(p)

    def _line(self, p: Primitive, x0: float, top: float) -> None:
        _, stroke = self._stroke_fill(p)
        if stroke:
            (x1, y1), (x2, y2) = p.points
            self.c.line(x0 + x1, top - y1, x0 + x2, top - y2)

    def _polyline(self, p: Primitive, x0: float, top: float) -> None:
        _, stroke = self._stroke_fill(p)
        if stroke and p.points:
            path = self.c.beginPath()
            (fx, fy), rest = p.points[0], p.points[1:]
            path.moveTo(x0 + fx, top - fy)
            for x, y in rest:
                path.lineTo(x0 + x, top - y)
            self.c.drawPath(path, stroke=1, fill=0)

    def _polygon(self, p: Primitive, x0: float, top: float) -> None:
        fill, stroke = self._stroke_fill(p)
        if (fill or stroke) and p.points:
            path = self.c.beginPath()
            (fx, fy), rest = p.points[0], p.points[1:]
            path.moveTo(x0 + fx, top - fy)
            for x, y in rest:
                path.lineTo(x0 + x, top - y)
            path.close()
            self.c.drawPath(path, stroke=stroke, fill=fill)
        self._reset_opacity(p)

    def _icon(self, p: Primitive, x0: float, top: float) -> None:
        self.icon(self.c, p.text, x0 + p.x, top - p.y - p.h, p.w, p.h, colour(p.style.get("color", "#000000")))

    def _image(self, p: Primitive, x0: float, top: float) -> None:
        path = self.image_folder / p.text
        if not present(path):  # validation refuses it for print: a draft or the preview
            return self._missing_art(p, x0, top)  # shows where the picture will go
        # checked here right before it is drawn, as validation checks it (a file edited since is refused), and
        # drawn from the bytes checked
        checked = self.c.__dict__.setdefault("_pnp_images_checked", {})
        source = None  # the bytes checked, when checked here: drawn from, not read again
        if path not in checked:
            checked[path], source = checked_source(self.project, path, p.mark, p.text)
        picture: CheckedPicture = checked[path]
        x, y = x0 + p.x, top - p.y - p.h
        needed = drawn_pixels(picture.size, picture.as_is, p.w, p.h)
        spend = self._spending(p)
        if needed is not None:  # more pixels than its printed size needs: resampled
            try:
                return draw_resampled(self.c, picture, needed, x, y, p.w, p.h, p.mark, p.text, spend, source)
            except (OSError, ValueError):  # a picture Pillow cannot resample is drawn as it is, once it is known
                # not damaged (as validation says it): the preview draws a game with errors, and a damaged picture
                # was then also refused for the memory its header's size would take to embed as it is
                verified_picture(self.project, path, p.mark, p.text, (p.w, p.h), lambda work, pixels: None)
        spend(f"embedded|{picture.real}", picture.size[0] * picture.size[1])  # ReportLab decodes it to embed it
        try:
            draw_as_is(self.c, picture, x, y, p.w, p.h, p.mark, p.text, source)
        except (OSError, ValueError):
            # a damaged file, which validation refuses, drawn by the preview (it draws a game with errors):
            # refused as validation says it, at its element, not in ReportLab's words as 'drawing failed'
            verified_picture(self.project, path, p.mark, p.text, (p.w, p.h), lambda work, pixels: None)
            raise

    def _spending(self, p: Primitive) -> Callable[[str, int], None]:
        """What decoding a picture for `p` spends: the game's pixels, in the name of the element that drew it."""
        if self.budget is None:
            return lambda work, pixels: None
        return functools.partial(self.budget.spend_pixels, mark=p.mark, shown=p.text)

    def _missing_art(self, p: Primitive, x0: float, top: float) -> None:
        """A placeholder for a picture not drawn yet: a grey box crossed corner to corner, with its file name."""
        c, x, y = self.c, x0 + p.x, top - p.y - p.h
        c.saveState()
        c.setFillColor(colors.Color(0.9, 0.9, 0.9))
        c.setStrokeColor(colors.Color(0.55, 0.55, 0.55))
        c.setLineWidth(0.5)
        c.rect(x, y, p.w, p.h, stroke=1, fill=1)
        c.line(x, y, x + p.w, y + p.h)
        c.line(x, y + p.h, x + p.w, y)
        c.setFillColor(colors.Color(0.3, 0.3, 0.3))
        font = self.fonts.name("Body")
        label = f"missing: {p.text}"
        size = 6.0
        while size > 4 and c.stringWidth(label, font, size) > p.w - 4:
            size -= 0.5
        if c.stringWidth(label, font, size) <= p.w - 2 and p.h > size + 2:
            c.setFont(font, size)
            c.drawCentredString(x + p.w / 2, y + p.h / 2 - size / 3, label)
        c.restoreState()

    def fit_text(self, p: Primitive) -> rtext.Fitted:
        s = p.style
        key = (p.text, s["font"], round(p.w, 3), round(p.h, 3), s["size"], s["min_size"], s["leading"],
               s.get("max_lines", 0))
        fitted = self.fit_cache.get(key)
        if fitted is None:
            fitted = self.fit_cache[key] = rtext.fit(p.text, self.fonts, s["font"], p.w, p.h, s["size"],
                                                     s["min_size"], s["leading"], s.get("max_lines", 0))
        return fitted

    def text_height(self, p: Primitive) -> float:
        """The height a text primitive's lines take, fitted as they will be drawn (the fit is kept)."""
        return self.fit_text(p).height

    def text_lines(self, p: Primitive) -> list[TextBox]:
        """Where a text primitive's lines are inked: (left, top, right, bottom) each, in the primitive's
        coordinates (points from the trim's top-left, y down), as `_text` places them; a turned text's box."""
        if p.rotate % 360:
            half_w, half_h = (p.h / 2, p.w / 2) if p.rotate % 180 else (p.w / 2, p.h / 2)
            cx, cy = p.x + p.w / 2, p.y + p.h / 2
            return [(cx - half_w, cy - half_h, cx + half_w, cy + half_h)]
        s = p.style
        fitted = self.fit_text(p)
        top = p.y + rtext.valign_offset(s["valign"], p.h, fitted.height)
        lines: list[TextBox] = []
        for n, line in enumerate(fitted.lines):
            dx = {"center": (p.w - line.width) / 2, "right": p.w - line.width}.get(s["align"], 0.0)
            y = top + n * fitted.leading
            lines.append((p.x + dx, y, p.x + dx + line.width, y + fitted.size))
        return lines

    def _text(self, p: Primitive, x0: float, top: float) -> None:
        s = p.style
        fitted = self.fit_text(p)
        offset = rtext.valign_offset(s["valign"], p.h, fitted.height)
        rtext.draw_lines(self.c, fitted, x0 + p.x, top - p.y - offset, p.w, s["align"],
                         colour(s["color"]) or colors.black, self.fonts, s["font"], self.icon)
