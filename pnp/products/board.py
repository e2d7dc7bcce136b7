"""Boards and mats: one page when they fit, else tiles with overlap, alignment targets and a tile map."""

from reportlab.lib import colors

from ..impose import tiles as tiling
from ..impose.sheet import EDGE_SAFE
from ..units import MM
from .sheets import draw_sheets, fits_sheet, items_of

GUIDE = colors.Color(0.3, 0.3, 0.3)


def draw_boards(canvas, studio, component):
    if fits_sheet(studio, component):
        return draw_sheets(canvas, studio, component)
    pages = 0
    for n, item in enumerate(items_of(component)):
        name = studio.layout_name(component, "layout", item)
        layout = studio.layouts.get(name)
        size = (layout.width, layout.height)
        form = _board_form(canvas, studio, name, item, f"{component.id}-{n}")
        paper = _best_orientation(studio.paper, size)
        parts = tiling.tiles(paper, size)
        portrait = studio.paper
        studio.paper = paper  # page furniture (footer, tile map) follows the page's orientation
        try:
            for tile in parts:
                canvas.setPageSize(paper)
                _draw_tile(canvas, studio, component, form, tile, size, n)
                canvas.showPage()
                pages += 1
        finally:
            studio.paper = portrait
            canvas.setPageSize(portrait)
    return pages


def _best_orientation(paper, size):
    """Portrait or landscape pages, whichever needs fewer tiles (portrait on a tie)."""
    landscape = (paper[1], paper[0])
    return landscape if len(tiling.tiles(landscape, size)) < len(tiling.tiles(paper, size)) else paper


def _board_form(canvas, studio, name, item, key):
    """The whole board drawn once as a form; every tile shows a clipped window of it."""
    layout = studio.layouts.get(name)
    form = f"board-{key}"
    canvas.beginForm(form, 0, 0, layout.width, layout.height)
    studio.painter(canvas).paint(studio.resolver(name).resolve(item), 0, 0, layout.height)
    canvas.endForm()
    return form


def _draw_tile(canvas, studio, component, form, tile, size, n):
    pw, ph = studio.paper
    # centre the tile's window on the page
    ox = (pw - tile.bw) / 2 - tile.bx
    oy = (ph - tile.bh) / 2 - tile.by
    canvas.saveState()
    path = canvas.beginPath()
    path.rect(ox + tile.bx, oy + tile.by, tile.bw, tile.bh)
    canvas.clipPath(path, stroke=0, fill=0)
    canvas.translate(ox, oy)
    canvas.doForm(form)
    canvas.restoreState()
    canvas.saveState()
    canvas.setStrokeColor(GUIDE)
    canvas.setLineWidth(0.3)
    # the outline of this window, and where the overlap strips begin (dashed: trim one side to it)
    canvas.rect(ox + tile.bx, oy + tile.by, tile.bw, tile.bh, stroke=1, fill=0)
    canvas.setDash([2, 2])
    ov = tiling.OVERLAP
    if tile.col > 0:
        canvas.line(ox + tile.bx + ov, oy + tile.by, ox + tile.bx + ov, oy + tile.by + tile.bh)
    if tile.row > 0:
        y = oy + tile.by + tile.bh - ov
        canvas.line(ox + tile.bx, y, ox + tile.bx + tile.bw, y)
    canvas.setDash([])
    for mx, my in tiling.alignment_marks(tile):
        _target(canvas, ox + mx, oy + my)
    canvas.restoreState()
    _tile_map(canvas, studio, tile)
    studio.footer(canvas, f"{studio.game.title} · {component.name}{f' {n + 1}' if component.count > 1 else ''} · "
                          f"tile {tile.label} of {tile.rows * tile.cols} · "
                          "trim at the dashed line, overlap the neighbour, match the targets")


def _target(canvas, x, y, r=2.2 * MM):
    """A registration target: a circle with a cross; both neighbouring tiles print it at the same board point."""
    canvas.setStrokeColor(colors.black)
    canvas.setLineWidth(0.35)
    canvas.circle(x, y, r * 0.6, stroke=1, fill=0)
    canvas.line(x - r, y, x + r, y)
    canvas.line(x, y - r, x, y + r)


def _tile_map(canvas, studio, tile):
    """A small map of all tiles in the top margin, this one filled, so a stack of pages sorts itself."""
    cell = min(3 * MM, (tiling.MARGIN - EDGE_SAFE - 1.5 * MM) / tile.rows)
    x0 = studio.paper[0] - EDGE_SAFE - 4 * MM - tile.cols * cell
    y0 = studio.paper[1] - EDGE_SAFE - 1 * MM - tile.rows * cell
    canvas.saveState()
    canvas.setLineWidth(0.3)
    canvas.setStrokeColor(GUIDE)
    for r in range(tile.rows):
        for c in range(tile.cols):
            canvas.setFillColor(colors.black if (r, c) == (tile.row, tile.col) else colors.white)
            canvas.rect(x0 + c * cell, y0 + (tile.rows - 1 - r) * cell, cell, cell, stroke=1, fill=1)
    canvas.setFillColor(GUIDE)
    canvas.setFont(studio.fonts.name("Body", bold=True), 7)
    canvas.drawRightString(x0 - 1.5 * MM, y0 + tile.rows * cell - 2.5 * MM, f"Tile {tile.label}")
    canvas.restoreState()


def draw_full_size(canvas, studio, component):
    """Each board on one page of its own size plus a margin with corner crop marks, for a print shop."""
    from ..impose.sheet import Grid

    pages = 0
    margin = 12 * MM
    for item in items_of(component):
        name = studio.layout_name(component, "layout", item)
        layout = studio.layouts.get(name)
        paper = (layout.width + 2 * margin + 2 * studio.bleed, layout.height + 2 * margin + 2 * studio.bleed)
        canvas.setPageSize(paper)
        studio.draw_item(canvas, name, item, margin + studio.bleed, margin + studio.bleed)
        grid = Grid(paper, 1, 1, (layout.width, layout.height), studio.bleed, 0.0, (margin, margin))
        studio.marks(canvas, grid.crop_marks())
        canvas.showPage()
        pages += 1
    return pages
