"""Token sheets: mixed-size counters packed in rows, each with its cut line; optional mirrored backs."""

from reportlab.lib import colors

from ..impose import sheet
from .sheets import TOKEN_GAP, items_of

CUT = colors.Color(0.35, 0.35, 0.35)


def _cut_line(canvas, layout, x, y):
    shape = layout.spec.get("shape", "rect")
    canvas.saveState()
    canvas.setStrokeColor(CUT)
    canvas.setLineWidth(0.4)
    if shape == "circle":
        canvas.ellipse(x, y, x + layout.width, y + layout.height, stroke=1, fill=0)
    elif shape != "none":
        canvas.roundRect(x, y, layout.width, layout.height, layout.radius, stroke=1, fill=0) if layout.radius \
            else canvas.rect(x, y, layout.width, layout.height, stroke=1, fill=0)
    canvas.restoreState()


def draw_tokens(canvas, studio, component):
    items = items_of(component)
    names = [studio.layout_name(component, "layout", it) for it in items]
    layouts = [studio.layouts.get(n) for n in names]
    pages = sheet.shelves(studio.paper, [(lay.width, lay.height) for lay in layouts], gap=TOKEN_GAP)
    has_back = component.spec.get("back") is not None
    for p, page in enumerate(pages):
        for placed in page:
            i = placed.index
            studio.draw_shared(canvas, names[i], items[i], placed.x, placed.y)
            _cut_line(canvas, layouts[i], placed.x, placed.y)
        studio.footer(canvas, f"{studio.game.title} · {component.name} · sheet {p + 1} of {len(pages)}"
                              " · cut along the grey lines")
        canvas.showPage()
        if has_back:
            for placed in page:
                i = placed.index
                x = studio.paper[0] - placed.x - placed.w  # long-edge duplex mirrors left and right
                studio.draw_shared(canvas, studio.layout_name(component, "back", items[i]), items[i], x, placed.y)
            studio.footer(canvas, f"{studio.game.title} · {component.name} · backs of sheet {p + 1}")
            canvas.showPage()
    return len(pages) * (2 if has_back else 1)
