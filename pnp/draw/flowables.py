"""Platypus flowables built on pnp's own text engine, so rulebooks and cards share fonts and inline icons."""

from collections.abc import Callable
from typing import Any

from reportlab.lib import colors
from reportlab.platypus import Flowable

from . import text as rtext
from .paint import colour
from .fonts import FontSet
from reportlab.pdfgen.canvas import Canvas


LaidOut = dict[tuple[str, str, float, float], list[rtext.Line]]  # (markup, family, size, width) -> lines


def layout_only(canvas: Canvas) -> bool:
    """True on the canvas of a pass that only finds where things fall (the rulebook's table-of-contents
    passes): flowables then size themselves as usual but draw nothing costly."""
    return getattr(canvas, "pnp_layout_only", False)


class RichText(Flowable):
    """A paragraph of pnp markup (**bold**, *italic*, :icon:) that wraps and splits across frames."""

    def __init__(self, markup: str, fonts: FontSet, draw_icon: rtext.DrawIcon, family: str = "Body",
                 size: float = 10.0, leading: float = 1.35, color: str = "#222222", align: str = "left",
                 space_before: float = 0.0, space_after: float = 4.0, indent: float = 0.0,
                 lines: list[rtext.Line] | None = None, layouts: LaidOut | None = None) -> None:
        super().__init__()
        self.markup, self.fonts, self.draw_icon = markup, fonts, draw_icon
        self.family, self.size, self.leading_factor = family, size, leading
        self.color, self.align, self.indent = color, align, indent
        self.spaceBefore, self.spaceAfter = space_before, space_after
        self._lines = lines
        self._width: float | None = None
        self._layouts = layouts  # (markup, family, size, width) -> lines, shared by a book's layout passes

    @property
    def leading(self) -> float:
        return self.size * self.leading_factor

    def _layout(self, width: float) -> list[rtext.Line]:
        if self._lines is None or self._width != width:
            if self._lines is not None and self._width is None:
                return self._lines  # a split part keeps its lines
            key = (self.markup, self.family, self.size, width - self.indent)
            lines = self._layouts.get(key) if self._layouts is not None else None
            if lines is None:
                lines, _ = rtext.layout(rtext.parse(self.markup), self.fonts, self.family, self.size,
                                        width - self.indent)
                if self._layouts is not None:
                    self._layouts[key] = lines
            self._lines, self._width = lines, width
        return self._lines

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        lines = self._layout(avail_width)
        self.width, self.height = avail_width, len(lines) * self.leading
        return self.width, self.height

    def split(self, avail_width: float, avail_height: float) -> list["RichText"]:
        lines = self._layout(avail_width)
        fit = int(avail_height // self.leading)
        if fit <= 0 or fit >= len(lines):
            return [] if fit <= 0 else [self]
        fit = min(fit, len(lines) - 2)  # at least two lines on each side: no lone line at a page's head
        if fit < 2:  # nor at its foot: the paragraph goes to the next page whole
            return []
        head = self._copy(lines[:fit], space_after=0.0)
        tail = self._copy(lines[fit:], space_before=0.0)
        return [head, tail]

    def _copy(self, lines: list[rtext.Line], **kw: float) -> "RichText":
        part = RichText(self.markup, self.fonts, self.draw_icon, self.family, self.size, self.leading_factor,
                        self.color, self.align, kw.get("space_before", self.spaceBefore),
                        kw.get("space_after", self.spaceAfter), self.indent, lines=lines, layouts=self._layouts)
        return part

    def draw(self) -> None:
        if layout_only(self.canv):
            return
        assert self._lines is not None  # Platypus wraps a flowable, laying out its lines, before it draws it
        fitted = rtext.Fitted(self.size, self.leading, self._lines, False)
        top = self.height - (self.leading - self.size) / 2
        rtext.draw_lines(self.canv, fitted, self.indent, top, self.width - self.indent, self.align,
                         colour(self.color) or colors.black, self.fonts, self.family, self.draw_icon)


class Heading(RichText):
    """A heading that records its page for the table of contents when it is drawn."""

    def __init__(self, markup: str, level: int, registry: list[tuple[int, str, int]], **kw: Any) -> None:
        super().__init__(markup, **kw)
        self.level, self.registry = level, registry

    def draw(self) -> None:
        super().draw()
        self.registry.append((self.level, self.markup, self.canv.getPageNumber()))


class Rule(Flowable):
    """A thin line across the column it is set in: Markdown's thematic break (`---`, `***`, `___`)."""

    def __init__(self, color: str, thickness: float = 0.5, space: float = 6.0) -> None:
        super().__init__()
        self.color, self.thickness = color, thickness
        self.spaceBefore = self.spaceAfter = space

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        self.width, self.height = avail_width, self.thickness
        return self.width, self.height

    def draw(self) -> None:
        if layout_only(self.canv):
            return
        c = self.canv
        c.saveState()
        c.setStrokeColor(colour(self.color) or colors.black)
        c.setLineWidth(self.thickness)
        c.line(0, self.thickness / 2, self.width, self.thickness / 2)
        c.restoreState()


class Picture(Flowable):
    """A component drawn by the same renderer as the printed one, scaled to a width, with a caption."""

    def __init__(self, draw: Callable[[Canvas], None], natural_size: tuple[float, float], width: float, caption: str,
                 caption_flowable: RichText | None = None, enlarged: bool = False) -> None:
        super().__init__()
        self._draw, self.natural = draw, natural_size
        # drawn at `width`, up to its own size unless `enlarged` (a width the rulebook writes: '![x](component:
        # token "40mm")' of a 20 mm token printed it at 20 mm, exit 0); never wider than its column (see wrap)
        self.scale = width / natural_size[0] if enlarged else min(1.0, width / natural_size[0])
        self.caption = caption_flowable
        self.spaceBefore, self.spaceAfter = 4, 6

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        self.scale = min(self.scale, aw / self.natural[0])
        h = self.natural[1] * self.scale
        self.pic_h = h
        ch = self.caption.wrap(aw, ah)[1] if self.caption else 0
        self.width, self.height = aw, h + ch + 3
        return self.width, self.height

    def draw(self) -> None:
        c = self.canv
        w = self.natural[0] * self.scale
        c.saveState()
        c.translate((self.width - w) / 2, self.height - self.pic_h)
        c.scale(self.scale, self.scale)
        if not layout_only(c):
            self._draw(c)
        c.restoreState()
        c.saveState()
        c.setStrokeColor(colors.Color(0.75, 0.75, 0.75))
        c.setLineWidth(0.4)
        c.rect((self.width - w) / 2, self.height - self.pic_h, w, self.pic_h, stroke=1, fill=0)
        c.restoreState()
        if self.caption:
            self.caption.drawOn(c, 0, 0)
