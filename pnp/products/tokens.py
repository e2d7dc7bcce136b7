"""Token sheets: counters of mixed sizes packed in rows, each with the outline it is cut along; optional
mirrored backs."""

from ..draw import sheet as paper
from ..impose import sheet
from ..layout import params as P
from ..units import MM, to_mm
from .base import Kind
from .sheets import TOKEN_GAP, by_side

ROUNDED_DEFAULT = 2 * MM


class Tokens(Kind):
    """Counters, markers and standees: packed in rows on as few sheets as fit, each with its cut line
    (the layout's `shape`); backs, if any, on the following page mirrored for long-edge duplex."""

    name = "tokens"
    file_part = "tokens"
    order = 2
    layout_options = {
        "shape": P.Choice(("square", "rounded", "circle", "hex", "none"), "square",
                          "the line a token is cut along: its box, the box with rounded corners (the "
                          "layout's `radius`, else 2 mm), the circle or the hexagon inside its box, or none"),
    }

    def check(self, component, studio, report):
        """Every token must fit on the paper inside its margins (a bigger one is a board)."""
        room = [side - 2 * sheet.MARGIN for side in studio.paper]
        for p in studio.of(component):
            layout = studio.layouts.get(p.layout)
            if layout.width > room[0] + 0.01 or layout.height > room[1] + 0.01:
                report.error(f"a {layout.size_mm[0]:g} x {layout.size_mm[1]:g} mm token does not fit on the paper "
                             f"(at most {to_mm(room[0]):g} x {to_mm(room[1]):g} mm); make it a board, which is tiled",
                             layout.spec.mark_of("size"))

    def draw(self, canvas, component, studio):
        fronts, backs = by_side(component, studio)
        layouts = [studio.layouts.get(p.layout) for p in fronts]
        pages = sheet.shelves(studio.paper, [(lay.width, lay.height) for lay in layouts], gap=TOKEN_GAP)
        has_back = any(b is not None for b in backs)
        painter, title = studio.painter(canvas), studio.game.title
        for n, page in enumerate(pages):
            for placed in page:
                i = placed.index
                studio.draw(canvas, painter, fronts[i], placed.x, placed.y, shared=True)
                cut_line(canvas, layouts[i], placed.x, placed.y)
            paper.footer(canvas, studio.fonts, studio.paper, f"{title} · {component.name} · sheet {n + 1} of "
                                                             f"{len(pages)} · cut along the grey lines")
            canvas.showPage()
            if has_back:
                for placed in page:
                    if backs[placed.index] is not None:  # long-edge duplex mirrors left and right
                        x = studio.paper[0] - placed.x - placed.w
                        studio.draw(canvas, painter, backs[placed.index], x, placed.y, shared=True)
                paper.footer(canvas, studio.fonts, studio.paper, f"{title} · {component.name} · backs of sheet {n + 1}")
                canvas.showPage()
        return len(pages) * (2 if has_back else 1)


def cut_line(canvas, layout, x, y):
    shape, w, h = layout.options.get("shape", "square"), layout.width, layout.height
    if shape == "none":
        return
    if shape == "circle":
        paper.cut_outline(canvas, x=x, y=y, w=w, h=h, ellipse=True)
    elif shape == "hex":
        paper.cut_outline(canvas, points=hexagon(x, y, w, h))
    elif shape == "rounded":
        paper.cut_outline(canvas, x=x, y=y, w=w, h=h, radius=layout.radius or ROUNDED_DEFAULT)
    else:
        paper.cut_outline(canvas, x=x, y=y, w=w, h=h, radius=layout.radius)


def hexagon(x, y, w, h):
    """The hexagon touching the box's four sides: corners left and right with flat top and bottom in a wide
    box, corners top and bottom in a tall one (regular when the box has a regular hexagon's proportions)."""
    cx, cy, a, b = x + w / 2, y + h / 2, w / 2, h / 2
    if w >= h:
        return [(cx + a, cy), (cx + a / 2, cy + b), (cx - a / 2, cy + b), (cx - a, cy), (cx - a / 2, cy - b),
                (cx + a / 2, cy - b)]
    return [(cx, cy + b), (cx - a, cy + b / 2), (cx - a, cy - b / 2), (cx, cy - b), (cx + a, cy - b / 2),
            (cx + a, cy + b / 2)]
