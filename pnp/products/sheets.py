"""Card-like components (decks, aids, boards that fit the paper): imposed in a grid with crop marks and backs."""

from ..impose import sheet
from ..units import MM


def items_of(component):
    return component.items or [None] * component.count


def draw_sheets(canvas, studio, component):
    """Fronts page, then (if the component has a back) the mirrored backs page, for each sheet of items."""
    items = items_of(component)
    grid = grid_for(studio, component)
    if grid is None:
        raise ValueError(f"{component.id}: its items do not fit the paper; use kind 'board' to tile them")
    pages = sheet.pages_needed(len(items), grid.per_page)
    has_back = component.spec.get("back") is not None
    marks = grid.crop_marks()
    for p in range(pages):
        chunk = items[p * grid.per_page:(p + 1) * grid.per_page]
        for i, item in enumerate(chunk):
            s = grid.slot(i)
            studio.draw_item(canvas, studio.layout_name(component, "layout", item), item, s.x, s.y)
        studio.marks(canvas, marks)
        side = " · fronts" if has_back else ""
        studio.footer(canvas, f"{studio.game.title} · {component.name}{side} · sheet {p + 1} of {pages}")
        canvas.showPage()
        if has_back:
            for i, item in enumerate(chunk):
                s = grid.slot(i, mirrored=True)
                studio.draw_shared(canvas, studio.layout_name(component, "back", item), item, s.x, s.y)
            studio.marks(canvas, marks)
            studio.footer(canvas, f"{studio.game.title} · {component.name} · backs of sheet {p + 1} "
                                  "(print double-sided, flip on the long edge)")
            canvas.showPage()
    return pages * (2 if has_back else 1)


def grid_for(studio, component):
    items = items_of(component)
    layout = studio.layouts.get(studio.layout_name(component, "layout", items[0]))
    return sheet.grid(studio.paper, (layout.width, layout.height), studio.bleed)


def fits_sheet(studio, component):
    return grid_for(studio, component) is not None


TOKEN_GAP = 3 * MM
