"""Card-like faces imposed in a grid on the paper, with crop marks and mirrored backs: what decks and aids
print, and boards small enough for one sheet."""

from dataclasses import replace

from ..draw import sheet as paper
from ..impose import sheet
from ..impose.sheet import Fold, Grid
from ..layout.layouts import Layout
from ..units import MM
from ..draw.paint import Painter
from ..model.components import Component
from .base import Printable, Studio
from reportlab.pdfgen.canvas import Canvas

TOKEN_GAP = 2 * MM  # paper between two tokens' art, so each can be cut with nothing of its neighbour


HOME_BLEEDS = (3 * MM, 2 * MM, 1.5 * MM, 1 * MM)  # tried in turn for kinds that space their items apart


def grid_for(component: Component, studio: Studio, sheet_size: tuple[float, float] | None = None) -> Grid | None:
    """The grid of the component's first face on the paper (the build's, or `sheet_size`: validation counts the
    pages on each paper pnp offers), or None if one face does not fit a page or its faces are not all one size. A kind
    that spaces its items (`spaced`) gets the most bleed the paper allows without losing a slot or its crop
    marks, so a cut a little off shows its own art, not the neighbour's; butted items get what outer bleed
    the margins leave room for."""
    faces = studio.of(component)
    layout = studio.layouts.get(faces[0].layout)
    size = (layout.width, layout.height)
    if any(studio.layouts.size(face.layout) != size for face in faces[1:]):
        return None  # one grid cuts one size: a back, or an item's own layout, of another size was cut to the
        # first face's slot (a tarot back clipped to a poker card's, exit 0); each face is printed at its own size
    sheet_size = sheet_size or studio.paper
    shift = [abs(v) for v in back_shift(studio)]
    if any(shift) and any(back is not None for back in by_side(component, studio)[1]):
        # a back page is moved by the duplex offset: the grid keeps its margins that much wider, or a 20 mm
        # offset moved the backs' outer column past the paper's edge (cut off, exit 0)
        narrowed = grid_for_paper(component, studio, (sheet_size[0] - 2 * shift[0], sheet_size[1] - 2 * shift[1]))
        return None if narrowed is None else replace(
            narrowed, paper=sheet_size, origin=(narrowed.origin[0] + shift[0], narrowed.origin[1] + shift[1]))
    return grid_for_paper(component, studio, sheet_size)


def offset_tiled(component: Component, studio: Studio) -> Layout | None:
    """The layout of the component's faces when the duplex offset alone sends them off the sheets, else None: the
    margins a moved back needs leave no room for one face, which then prints as a board too large for the paper
    does, a face to a page and its back upright on the next, to be glued on, not moved by the offset."""
    faces = studio.of(component)
    if not faces or not any(back_shift(studio)) or not any(b is not None for b in by_side(component, studio)[1]):
        return None
    layout = studio.layouts.get(faces[0].layout)
    if any(studio.layouts.size(face.layout) != (layout.width, layout.height) for face in faces[1:]):
        return None  # faces of several sizes are never on one grid: tiled whatever the offset
    if grid_for(component, studio) is not None or grid_for_paper(component, studio, studio.paper) is None:
        return None  # on sheets, or too large for one even without the offset (tiled either way)
    return layout


def offset_tiled_message(component: Component, studio: Studio) -> str:
    """What offset_tiled's warning says of the component."""
    dx, dy = (f"{v / MM:g}" for v in studio.options.duplex_offset)
    return (f"{component.name}: with --duplex-offset {dx},{dy} a sheet keeps its margins that much wider, and "
            "these faces no longer fit one: each prints on a page of its own with its back upright on the next, "
            "to be glued on (not moved by the offset); a smaller offset prints them as double-sided sheets")


def grid_for_paper(component: Component, studio: Studio, sheet_size: tuple[float, float]) -> Grid | None:
    """grid_for on paper of `sheet_size`, the duplex offset aside."""
    faces = studio.of(component)
    layout = studio.layouts.get(faces[0].layout)
    size = (layout.width, layout.height)
    impose = sheet.densest if studio.kind(component).turn_to_fit else sheet.grid
    butted = impose(sheet_size, size, studio.bleed)
    if butted is None or studio.bleed:
        return butted
    if studio.kind(component).spaced:
        for bleed in HOME_BLEEDS:
            spaced = impose(sheet_size, size, min(bleed, layout.bleed))
            if spaced is not None and spaced.per_page >= butted.per_page:  # the grid keeps its crop marks
                return spaced
    return butted.with_outer_bleed(layout.bleed)


def fold_for(component: Component, studio: Studio, paper_size: tuple[float, float] | None = None) -> Fold | None:
    """The gutter fold a `--imposition gutterfold` kit prints the component on, on paper of `paper_size` (the
    build's by default): None when the kit is not one, the component has no backs, or its cards do not fit
    half the page (then its fronts and backs print on sheets of their own, to glue back to back: unfolded)."""
    fronts, backs = by_side(component, studio)
    if studio.options.imposition != "gutterfold" or not fronts or all(b is None for b in backs):
        return None
    layout = studio.layouts.get(fronts[0].layout)
    return sheet.gutterfold(paper_size or studio.paper, (layout.width, layout.height), studio.bleed)


def unfolded(component: Component, studio: Studio) -> Layout | None:
    """The layout of the component's fronts when a `--imposition gutterfold` kit prints them and their backs
    on sheets of their own, as a duplex kit does, to glue back to back: they have backs and fit a sheet, but
    not half of one (a single-sided printer's way with a double-sided piece too large to fold); else None."""
    fronts, backs = by_side(component, studio)
    if studio.options.imposition != "gutterfold" or not fronts or all(b is None for b in backs) \
            or grid_for(component, studio) is None or fold_for(component, studio) is not None:
        return None
    return studio.layouts.get(fronts[0].layout)


def unfolded_message(component: Component, paper: str) -> str:
    """The warning for a component `unfolded` on the named paper, which says it: whether it folds depends on the
    paper (106 mm wide fits half a Letter page, not half an A4 one), and validate checks the default paper."""
    return (f"component '{component.id}' prints front and back on separate sheets, to glue back to back: it does "
            f"not fit half a page of {paper} paper for a gutter fold")


def fits_sheet(component: Component, studio: Studio, sheet_size: tuple[float, float] | None = None) -> bool:
    return bool(studio.of(component)) and grid_for(component, studio, sheet_size) is not None


def by_side(component: Component, studio: Studio) -> tuple[list[Printable], list[Printable | None]]:
    """(fronts, backs) in print order: each printed copy of each item, with its back (or None)."""
    faces = studio.of(component)
    fronts = {p.index: p for p in faces if p.side == "front"}
    backs = {p.index: p for p in faces if p.side == "back"}
    order: list[int] = []
    for p in faces:
        if p.side == "front":
            order.extend([p.index] * p.copies)
    return [fronts[i] for i in order], [backs.get(i) for i in order]


def draw_sheets(canvas: Canvas, component: Component, studio: Studio) -> int:
    """Fronts page, then (if the component has backs) the mirrored backs page, for each sheet of items;
    or, with the gutter-fold imposition, fronts and backs on one page either side of a fold line (cards too
    large for half a page print as in a duplex kit, their backs to be glued on: unfolded)."""
    fronts, backs = by_side(component, studio)
    if (fold := fold_for(component, studio)) is not None:
        return draw_folded(canvas, component, studio, fold, fronts, backs)
    grid = grid_for(component, studio)
    assert grid is not None  # drawn on sheets only when a face fits one (fits_sheet)
    pages = sheet.pages_needed(len(fronts), grid.per_page)
    has_back = any(b is not None for b in backs)
    painter, title = studio.painter(canvas), studio.page_title
    glued = studio.options.imposition == "gutterfold"  # printed single-sided: a back is glued on (back_shift)
    how = "glue back to back with the fronts, tops together" if glued else "print double-sided, flip on the long edge"
    for p in range(pages):
        chunk = range(p * grid.per_page, min((p + 1) * grid.per_page, len(fronts)))
        # marks for the slots that hold a card, none for empty ones
        crop = grid.crop_marks(len(chunk), style=studio.options.marks)
        for slot_index, i in enumerate(chunk):
            place(canvas, studio, painter, grid, fronts[i], slot_index, len(chunk))
        paper.marks(canvas, crop)
        side = " · fronts" if has_back else ""
        paper.footer(canvas, studio.fonts, studio.paper, f"{title} · {component.name}{side} · sheet {p + 1} of {pages}")
        canvas.showPage()
        if has_back:
            with paper.shifted(canvas, *back_shift(studio)):
                for slot_index, i in enumerate(chunk):
                    if (back := backs[i]) is not None:
                        place(canvas, studio, painter, grid, back, slot_index, len(chunk), back=True)
                paper.marks(canvas, grid.crop_marks(len(chunk), mirrored=True, style=studio.options.marks))
            paper.footer(canvas, studio.fonts, studio.paper, f"{title} · {component.name} · backs of sheet {p + 1} "
                                                             f"({how})")
            canvas.showPage()
    return pages * (2 if has_back else 1)


def place(canvas: Canvas, studio: Studio, painter: Painter, grid: Grid, face: Printable, slot_index: int,
          filled: int | None, back: bool = False) -> None:
    """Draw one face into its slot. In a turned grid a front lies with its top to the left and its back with
    its top to the right, so that after a long-edge flip the back still stands the same way as its front."""
    s = grid.slot(slot_index, mirrored=back)
    left, bottom, right, top = grid.clip(slot_index, filled, mirrored=back)
    if not grid.turned:
        studio.draw(canvas, painter, face, s.x, s.y, shared=back, clip=(left, bottom, right, top))
        return
    with paper.quarter_turned(canvas, s.x, s.y, s.w, s.h, clockwise=back):
        # the face's own sides, after the turn: its left lies along the slot's bottom (or top), and so on
        clip = (top, left, bottom, right) if back else (bottom, right, top, left)
        studio.draw(canvas, painter, face, 0, 0, shared=back, clip=clip)


def back_shift(studio: Studio) -> tuple[float, float]:
    """How far to move a back page so that it lands behind its front on this printer. The duplex offset is
    where the back's cross showed on `pnp calibrate`'s sheet, seen from the front (right and up); a long-edge
    flip mirrors left and right, so the back moves the same way across and the other way up and down. A
    gutterfold kit is printed single-sided: a back on a page of its own (a token's, a card's too large to fold)
    is glued on, and no printer has misplaced it."""
    if studio.options.imposition == "gutterfold":
        return 0.0, 0.0
    dx, dy = studio.options.duplex_offset
    return dx, -dy


def draw_folded(canvas: Canvas, component: Component, studio: Studio, fold: Fold, fronts: list[Printable],
                backs: list[Printable | None]) -> int:
    """Gutter fold: each page holds fronts on one half and their backs mirrored on the other; fold on the
    dashed line, glue the halves together, then cut."""
    pages = sheet.pages_needed(len(fronts), fold.per_page)
    painter, title = studio.painter(canvas), studio.page_title
    canvas.setPageSize(fold.page)
    for p in range(pages):
        chunk = range(p * fold.per_page, min((p + 1) * fold.per_page, len(fronts)))
        for slot_index, i in enumerate(chunk):
            s = fold.front(slot_index)
            studio.draw(canvas, painter, fronts[i], s.x, s.y)
            if (back := backs[i]) is None:
                continue
            b = fold.back(slot_index)
            if fold.vertical:
                studio.draw(canvas, painter, back, b.x, b.y, shared=True)
            else:  # folded across the page: the back is turned half round so it reads upright
                with paper.turned(canvas, b.x, b.y, b.w, b.h):
                    studio.draw(canvas, painter, back, b.x, b.y, shared=True)
        paper.marks(canvas, fold.crop_marks(len(chunk), style=studio.options.marks))
        paper.fold_line(canvas, studio.fonts, fold.line(), "fold")
        paper.footer(canvas, studio.fonts, fold.page, f"{title} · {component.name} · sheet {p + 1} of {pages} · "
                                                      "fold on the dashed line, glue the halves together, then cut")
        canvas.showPage()
    canvas.setPageSize(studio.paper)
    return pages
