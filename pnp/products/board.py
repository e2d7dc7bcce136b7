"""Boards and mats: on one sheet when they fit, else tiles with overlap, alignment targets and a tile map;
and each at full size on a page of its own, for a print shop."""

from ..draw import sheet as paper
from ..impose import tiles as tiling
from ..impose.sheet import EDGE_SAFE, FOOTER_BAND, Grid, pages_needed
from ..impose.tiles import Interval, Tile
from ..layout.prims import Prim
from ..units import MM
from ..errors import LayoutError, failed_at
from ..template import ExprError, render
from .base import DrawFile, Kind, Printable, Reporter
from .sheets import by_side, draw_sheets, fits_sheet, fold_for, grid_for
from ..draw.paint import Painter
from ..model.components import Component
from ..model.load import Record, shown
from ..model.schema import Str
from .base import Studio
from reportlab.pdfgen.canvas import Canvas

FULL_SIZE_MARGIN = 12 * MM


def piece_of(component: Component, item: Record, studio: Studio) -> str:
    """Which physical board the item is a side of: the text of the component's `piece` template over it;
    LayoutError at the template's line when it cannot be made."""
    try:
        return render(str(component.spec["piece"]), studio.context(item=item, card=item))
    except ExprError as e:
        raise LayoutError(f"piece: {e.message}", failed_at(component.spec.mark_of("piece"), e)) from None


def _check_pieces(component: Component, studio: Studio, report: Reporter) -> None:
    """Each item's `piece`, and the sides it gathers: one physical board has two, printed as often as each
    other (three items of one piece, or sides printed once and twice, were printed as if they could be glued
    back to back, and exported as that many boards flipping between them, exit 0), and neither has a `back:` (each
    was printed with its back, hidden by the glue, and exported flipping to it). Their sizes may differ (a small
    side glued onto a large one)."""
    sides: dict[str, list[Printable]] = {}
    with_back = {p.index for p in studio.of(component) if p.side == "back"}
    for p in studio.of(component):
        if p.item is not None and p.side == "front":
            sides.setdefault(piece_of(component, p.item, studio), []).append(p)
    for piece, faces in sides.items():
        names = ", ".join(repr(studio.kind(component).item_name(component, f, studio)) for f in faces[:3])
        problem = _piece_problem(f"the piece {shown(piece, 40)} ({names}", faces, with_back)
        if problem:
            report.error(f"piece: {problem}", component.spec.mark_of("piece"))


def _piece_problem(piece: str, faces: list[Printable], with_back: set[int]) -> str | None:
    """What is wrong with the sides `faces` of one piece (`piece` names it and its first items, its bracket
    open), or None: a piece is two sides printed as often as each other, neither with a back of its own."""
    if len(faces) == 2 and any(f.index in with_back for f in faces):  # (a piece of one side may have a back)
        return (f"the two sides of {piece}) are glued back to back, so neither has a back of its own to print: "
                "leave out `back:` for them, or give each a piece of its own")
    if len(faces) > 2:
        return (f"{len(faces)} items give {piece}{', ...' if len(faces) > 3 else ''}); a board is glued back to "
                "back from two sides")
    if len({f.copies for f in faces}) > 1:
        return (f"the two sides of {piece}) are printed {' and '.join(str(f.copies) for f in faces)} times: they "
                "are glued back to back, so each needs the other's count")
    return None

class Board(Kind):
    """Boards and mats: imposed like cards when they fit the paper, otherwise split into tiles that
    overlap by 12 mm, with registration targets and a map of the tiles; also each on one page of its own
    size in <game>-boards-fullsize.pdf, a two-sided board's back on the page after its front."""

    name = "board"
    file_part = "boards"
    order = 3
    turn_to_fit = False  # a board too wide for the page is printed upright on a landscape page instead
    gutter_folds = True
    footer_names_items = True
    paintings = 2  # once on its sheets (or as the form its tiles show), once more at full size
    # A tiled board's back is tiled on the pages after its front's tiles, upright, to be assembled and glued
    # on: the shared `back:` text ("on the following page, mirrored for long-edge duplex") held only for a
    # board that fits the paper, and a designer printing a tiled one duplex got front tiles backed by fronts
    component_keys = {**Kind.component_keys, "back": Str.key(
        None, "the layout of each item's back, of its front's size: a board that fits the paper has it on the "
              "following page, mirrored for long-edge duplex; a tiled board has it tiled on the pages after its "
              "front's tiles, upright, to be assembled apart and glued on (not for duplex printing)"), "piece": Str.key(
        None, "which physical board each item is a side of, a template over `item` such as `{{ item.half }}`: "
              "the two items that give the same value are printed apart but glued back to back (so each is "
              "printed as often as the other, and neither has a `back:`), and the Tabletop Simulator export makes them one board that flips "
              "between them")}

    def check(self, component: Component, studio: Studio, report: Reporter) -> None:
        """Besides what every kind checks, each item's `piece`: validation never made it, so a template that
        failed (or ran for 2 s an item, outside any game's budget) was met only by the Tabletop Simulator export,
        which refused with no file or line where validate had said ok."""
        super().check(component, studio, report)
        if component.spec.get("piece"):
            _check_pieces(component, studio, report)

    def draw(self, canvas: Canvas, component: Component, studio: Studio) -> int:
        if fits_sheet(component, studio):
            return draw_sheets(canvas, component, studio)
        return draw_tiled(canvas, component, studio)

    def extra_files(self) -> tuple[tuple[str, str, DrawFile], ...]:
        return (("boards-fullsize", "boards at full size", draw_full_size),)

    def pages(self, component: Component, studio: Studio, paper: tuple[float, float]) -> int:
        """Its tiles (or sheets) and its full-size pages: one tile per page, one full-size page per face
        printed, copies counted (where seams fall moves with the text, how many tiles there are does not)."""
        fronts, backs = by_side(component, studio)
        return len([f for f in fronts + backs if f is not None]) + sheet_pages(component, studio, paper)


def sheet_pages(component: Component, studio: Studio, paper: tuple[float, float]) -> int:
    """The pages draw_sheets or draw_tiled print for the component on `paper`: its sheets, or one page per
    tile (where seams fall moves with the text, how many tiles there are does not)."""
    fronts, backs = by_side(component, studio)
    faces = [f for f in fronts + backs if f is not None]
    if not faces:
        return 0
    grid = grid_for(component, studio, paper)  # (it has faces, so it fits a sheet when it has a grid)
    has_back = any(b is not None for b in backs)
    if grid is not None and (fold := fold_for(component, studio, paper)) is not None:  # as draw_folded prints them
        return pages_needed(len(fronts), fold.per_page)
    if grid is not None:
        return (2 if has_back else 1) * pages_needed(len(fronts), grid.per_page)
    tiled = 0
    for face in faces:
        layout = studio.layouts.get(face.layout)
        tiled += len(_tiling(paper, (layout.width, layout.height), ([], []))[1])
    return tiled


def draw_tiled(canvas: Canvas, component: Component, studio: Studio) -> int:
    """Each face over as many pages as it needs, portrait or landscape, whichever takes fewer; its back (if it
    has one) tiled on the pages after it (a deck of cards larger than the paper printed no backs at all)."""
    pages = 0
    painter = studio.painter(canvas)
    drawn = canvas.__dict__.setdefault("_pnp_board_forms", set())
    for face in (f for pair in zip(*by_side(component, studio)) for f in pair if f is not None):
        layout = studio.layouts.get(face.layout)
        size = (layout.width, layout.height)
        prims = studio.printed(face)
        name = f"board-{component.id}-{face.side}-{face.index}"
        if name not in drawn:  # the whole face once; every tile shows a clipped window of it
            paper.form(canvas, painter, prims, name, *size)
            drawn.add(name)
        page, parts = _tiling(studio.paper, size, _text_spans(painter, prims, layout.height))
        for tile in parts:
            canvas.setPageSize(page)
            _draw_tile(canvas, studio, component, name, tile, page, face)
            canvas.showPage()
            pages += 1
        canvas.setPageSize(studio.paper)
    return pages


def _text_spans(painter: Painter, prims: list[Prim], height: float) -> tuple[list[Interval], list[Interval]]:
    """Where the face's lines of text are inked, across and up (board coordinates), each weighed by its
    height (its type size): seams are kept out of them, out of the largest type first."""
    lines = [box for p in prims if p.kind == "text" for box in painter.text_lines(p)]
    return ([(left, right, bottom - top) for left, top, right, bottom in lines],
            [(height - bottom, height - top, bottom - top) for left, top, right, bottom in lines])


def _tiling(page: tuple[float, float], size: tuple[float, float],
            spans: tuple[list[Interval], list[Interval]]) -> tuple[tuple[float, float], list[Tile]]:
    """(page size, tiles) on portrait or landscape pages, whichever needs fewer tiles (portrait on a tie)."""
    portrait = tiling.tiles(page, size, avoid_x=spans[0], avoid_y=spans[1])
    landscape_page = (page[1], page[0])
    landscape = tiling.tiles(landscape_page, size, avoid_x=spans[0], avoid_y=spans[1])
    return (landscape_page, landscape) if len(landscape) < len(portrait) else (page, portrait)


def _draw_tile(canvas: Canvas, studio: Studio, component: Component, form_name: str, tile: Tile,
               page: tuple[float, float], face: Printable) -> None:
    pw, ph = page
    lift = FOOTER_BAND / 2 if tile.rows * tile.cols == 1 else 0.0  # a whole board: centred above the footer
    ox, oy = (pw - tile.bw) / 2 - tile.bx, (ph - tile.bh) / 2 + lift - tile.by  # the window centred on the page
    window = (ox + tile.bx, oy + tile.by, tile.bw, tile.bh)
    trims = [((ox + x1, oy + y1), (ox + x2, oy + y2)) for (x1, y1), (x2, y2) in tile.trim_lines()]
    targets = [(ox + mx, oy + my) for mx, my in tiling.alignment_marks(tile)]
    paper.tile_window(canvas, form_name, (ox, oy), window, trims, targets)
    kind = studio.kind(component)
    which = f" · {kind.item_name(component, face, studio)}" if kind.footer_names_items and component.count > 1 else ""
    which += " · back" if face.side == "back" else ""
    footer = f"{studio.page_title} · {component.name}{which}"
    if tile.rows * tile.cols == 1:  # a board that fits the page only turned: cut it out like a card
        grid = Grid(page, 1, 1, (tile.bw, tile.bh), 0.0, 0.0, window[:2])
        paper.marks(canvas, grid.crop_marks(style=studio.options.marks))
        paper.footer(canvas, studio.fonts, page, f"{footer} · the whole board on this page, turned to fit")
        return
    cell = min(3 * MM, (tiling.MARGIN - EDGE_SAFE - 1.5 * MM) / tile.rows)
    x0, y0 = pw - EDGE_SAFE - 4 * MM - tile.cols * cell, ph - EDGE_SAFE - 1 * MM - tile.rows * cell
    cells = [(x0 + c * cell, y0 + (tile.rows - 1 - r) * cell, cell, (r, c) == (tile.row, tile.col))
             for r in range(tile.rows) for c in range(tile.cols)]
    paper.tile_map(canvas, studio.fonts, cells, tile.label.capitalize(), (x0 - 1.5 * MM, y0 + tile.rows * cell - 2.5 * MM))
    how = ("trim along the dashed line, lay it over its neighbour, line up the targets" if tile.trim_lines()
           else "the other tile is laid over this one" if tile.rows * tile.cols == 2
           else "the other tiles are laid over this one")
    paper.footer(canvas, studio.fonts, page, f"{footer} · {tile.label} · {how}")


def draw_full_size(canvas: Canvas, component: Component, studio: Studio) -> int:
    """Each face on one page of its own size plus a margin with corner crop marks, for a print shop, its back
    (if it has one) on the page after: the shop prints the pair double-sided. The art runs into the bleed the
    layout provides (or the build's `--bleed`): a shop's cut is never exact."""
    pages = 0
    painter = studio.painter(canvas)
    for front, back in zip(*by_side(component, studio)):
        for face in (front, back):
            if face is not None:
                _full_size_page(canvas, studio, painter, face)
                pages += 1
    return pages


def _full_size_page(canvas: Canvas, studio: Studio, painter: Painter, face: Printable) -> None:
    margin = FULL_SIZE_MARGIN
    layout = studio.layouts.get(face.layout)
    bleed = studio.bleed or layout.bleed
    page = (layout.width + 2 * margin + 2 * bleed, layout.height + 2 * margin + 2 * bleed)
    canvas.setPageSize(page)
    # a print shop's software reads where to cut and how far the art runs from these boxes
    trim = (margin + bleed, margin + bleed, margin + bleed + layout.width, margin + bleed + layout.height)
    canvas.setTrimBox(trim)
    canvas.setBleedBox((trim[0] - bleed, trim[1] - bleed, trim[2] + bleed, trim[3] + bleed))
    studio.draw(canvas, painter, face, margin + bleed, margin + bleed, clip=bleed)
    grid = Grid(page, 1, 1, (layout.width, layout.height), bleed, 0.0, (margin, margin), footer=0.0)  # no footer
    paper.marks(canvas, grid.crop_marks(style=studio.options.marks))
    canvas.showPage()
