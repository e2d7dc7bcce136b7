"""Boards and mats: on one sheet when they fit, else tiles with overlap, alignment targets and a tile map;
and each at full size on a page of its own, for a print shop."""

from ..draw import sheet as paper
from ..impose import tiles as tiling
from ..impose.sheet import EDGE_SAFE, Grid
from ..units import MM
from .base import Kind
from .sheets import by_side, draw_sheets, fits_sheet

FULL_SIZE_MARGIN = 12 * MM


class Board(Kind):
    """Boards and mats: imposed like cards when they fit the paper, otherwise split into tiles that
    overlap by 12 mm, with registration targets and a map of the tiles; also each on one page of its own
    size in <game>-boards-fullsize.pdf."""

    name = "board"
    file_part = "boards"
    order = 3

    def draw(self, canvas, component, studio):
        if fits_sheet(component, studio):
            return draw_sheets(canvas, component, studio)
        return draw_tiled(canvas, component, studio)

    def extra_files(self):
        return (("boards-fullsize", "boards at full size", draw_full_size),)


def draw_tiled(canvas, component, studio):
    """Each face over as many pages as it needs, portrait or landscape, whichever takes fewer."""
    pages = 0
    painter = studio.painter(canvas)
    drawn = canvas.__dict__.setdefault("_pnp_board_forms", set())
    for n, face in enumerate(by_side(component, studio)[0]):
        layout = studio.layouts.get(face.layout)
        size = (layout.width, layout.height)
        name = f"board-{component.id}-{face.index}"
        if name not in drawn:  # the whole face once; every tile shows a clipped window of it
            paper.form(canvas, painter, studio.resolve(face), name, *size)
            drawn.add(name)
        page = _best_orientation(studio.paper, size)
        for tile in tiling.tiles(page, size):
            canvas.setPageSize(page)
            _draw_tile(canvas, studio, component, name, tile, page, n)
            canvas.showPage()
            pages += 1
        canvas.setPageSize(studio.paper)
    return pages


def _best_orientation(page, size):
    """Portrait or landscape pages, whichever needs fewer tiles (portrait on a tie)."""
    landscape = (page[1], page[0])
    return landscape if len(tiling.tiles(landscape, size)) < len(tiling.tiles(page, size)) else page


def _draw_tile(canvas, studio, component, form_name, tile, page, n):
    pw, ph = page
    ox, oy = (pw - tile.bw) / 2 - tile.bx, (ph - tile.bh) / 2 - tile.by  # the tile's window centred on the page
    window = (ox + tile.bx, oy + tile.by, tile.bw, tile.bh)
    ov, seams = tiling.OVERLAP, []
    if tile.col > 0:  # where the overlap strips begin: trim one side to it
        x = window[0] + ov
        seams.append(((x, window[1]), (x, window[1] + tile.bh)))
    if tile.row > 0:
        y = window[1] + tile.bh - ov
        seams.append(((window[0], y), (window[0] + tile.bw, y)))
    targets = [(ox + mx, oy + my) for mx, my in tiling.alignment_marks(tile)]
    paper.tile_window(canvas, form_name, (ox, oy), window, seams, targets)
    cell = min(3 * MM, (tiling.MARGIN - EDGE_SAFE - 1.5 * MM) / tile.rows)
    x0, y0 = pw - EDGE_SAFE - 4 * MM - tile.cols * cell, ph - EDGE_SAFE - 1 * MM - tile.rows * cell
    cells = [(x0 + c * cell, y0 + (tile.rows - 1 - r) * cell, cell, (r, c) == (tile.row, tile.col))
             for r in range(tile.rows) for c in range(tile.cols)]
    paper.tile_map(canvas, studio.fonts, cells, f"Tile {tile.label}", (x0 - 1.5 * MM, y0 + tile.rows * cell - 2.5 * MM))
    number = f" {n + 1}" if component.count > 1 else ""
    paper.footer(canvas, studio.fonts, page, f"{studio.game.title} · {component.name}{number} · tile {tile.label} of "
                                             f"{tile.rows * tile.cols} · trim at the dashed line, overlap the "
                                             "neighbour, match the targets")


def draw_full_size(canvas, component, studio):
    """Each face on one page of its own size plus a margin with corner crop marks, for a print shop."""
    pages = 0
    painter, margin, bleed = studio.painter(canvas), FULL_SIZE_MARGIN, studio.bleed
    for face in by_side(component, studio)[0]:
        layout = studio.layouts.get(face.layout)
        page = (layout.width + 2 * margin + 2 * bleed, layout.height + 2 * margin + 2 * bleed)
        canvas.setPageSize(page)
        studio.draw(canvas, painter, face, margin + bleed, margin + bleed)
        grid = Grid(page, 1, 1, (layout.width, layout.height), bleed, 0.0, (margin, margin))
        paper.marks(canvas, grid.crop_marks())
        canvas.showPage()
        pages += 1
    return pages
