"""Decks and player aids: cards imposed 9-up (poker) with crop marks and mirrored backs."""

from .base import Kind
from ..impose.shapes import Outline
from ..layout.layouts import Layout
from .board import draw_tiled, sheet_pages
from .sheets import draw_sheets, fits_sheet
from ..model.components import Component
from .base import Studio
from reportlab.pdfgen.canvas import Canvas


class Deck(Kind):
    """Cards: one per item (times its quantity and the copies), with fronts and optional backs,
    imposed as many to a sheet as fit, with crop marks; backs mirrored for long-edge duplex."""

    name = "deck"
    file_part = "cards"
    order = 1
    gutter_folds = True

    def cut(self, layout: Layout) -> tuple[Outline, ...]:
        return (Outline("rect", 0.0, 0.0, layout.width, layout.height, layout.radius),)

    def draw(self, canvas: Canvas, component: Component, studio: Studio) -> int:
        if fits_sheet(component, studio):
            return draw_sheets(canvas, component, studio)
        return draw_tiled(canvas, component, studio)

    def pages(self, component: Component, studio: Studio, paper: tuple[float, float]) -> int:
        """Its sheets, or its tiles when its cards are larger than the paper: 2,500 copies of a card the size of
        the page passed validate and stopped the build at the kit's page allowance."""
        return sheet_pages(component, studio, paper)


class Aid(Deck):
    """Player aids and other cards that are handed out rather than played: imposed like a deck, in a PDF
    of their own, spaced apart with their own bleed when the paper leaves room for it and for crop marks."""

    name = "aid"
    file_part = "aids"
    order = 4
    spaced = True  # few to a sheet: they have room for bleed, and each is cut on its own
