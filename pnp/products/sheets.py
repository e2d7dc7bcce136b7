"""Card-like faces imposed in a grid on the paper, with crop marks and mirrored backs: what decks and aids
print, and boards small enough for one sheet."""

from ..draw import sheet as paper
from ..impose import sheet
from ..units import MM

TOKEN_GAP = 2 * MM  # paper between two tokens' art, so each can be cut with nothing of its neighbour


def grid_for(component, studio):
    """The grid of the component's first face on the paper, or None if one face does not fit a page."""
    faces = studio.of(component)
    layout = studio.layouts.get(faces[0].layout)
    return sheet.grid(studio.paper, (layout.width, layout.height), studio.bleed)


def fits_sheet(component, studio):
    return bool(studio.of(component)) and grid_for(component, studio) is not None


def by_side(component, studio):
    """(fronts, backs) in print order: each printed copy of each item, with its back (or None)."""
    faces = studio.of(component)
    fronts = {p.index: p for p in faces if p.side == "front"}
    backs = {p.index: p for p in faces if p.side == "back"}
    order = []
    for p in faces:
        if p.side == "front":
            order.extend([p.index] * p.copies)
    return [fronts[i] for i in order], [backs.get(i) for i in order]


def draw_sheets(canvas, component, studio):
    """Fronts page, then (if the component has backs) the mirrored backs page, for each sheet of items."""
    fronts, backs = by_side(component, studio)
    grid = grid_for(component, studio)
    pages = sheet.pages_needed(len(fronts), grid.per_page)
    has_back = any(b is not None for b in backs)
    painter, title = studio.painter(canvas), studio.game.title
    for p in range(pages):
        chunk = range(p * grid.per_page, min((p + 1) * grid.per_page, len(fronts)))
        crop = grid.crop_marks(len(chunk))  # marks for the slots that hold a card, none for empty ones
        for slot_index, i in enumerate(chunk):
            s = grid.slot(slot_index)
            studio.draw(canvas, painter, fronts[i], s.x, s.y)
        paper.marks(canvas, crop)
        side = " · fronts" if has_back else ""
        paper.footer(canvas, studio.fonts, studio.paper, f"{title} · {component.name}{side} · sheet {p + 1} of {pages}")
        canvas.showPage()
        if has_back:
            for slot_index, i in enumerate(chunk):
                if backs[i] is not None:
                    s = grid.slot(slot_index, mirrored=True)
                    studio.draw(canvas, painter, backs[i], s.x, s.y, shared=True)
            paper.marks(canvas, grid.crop_marks(len(chunk), mirrored=True))
            paper.footer(canvas, studio.fonts, studio.paper, f"{title} · {component.name} · backs of sheet {p + 1} "
                                                             "(print double-sided, flip on the long edge)")
            canvas.showPage()
    return pages * (2 if has_back else 1)
