"""Token sheets: counters of mixed sizes packed in rows, each with the outline it is cut along; optional
mirrored backs."""


from ..options import shown_number
from ..draw import sheet as paper
from ..impose import sheet
from ..impose.shapes import Outline, cut_shape
from ..layout import params as P
from ..units import MM, paper_too_small, to_mm
from .base import Kind
from .sheets import TOKEN_GAP, back_shift, by_side
from ..draw.paint import Painter
from ..layout.layouts import Layout
from ..model.components import Component
from ..report import Mark
from .base import Printable, Reporter, Studio
from reportlab.pdfgen.canvas import Canvas

ROUNDED_DEFAULT = 2 * MM
MAX_TOKEN_BLEED = 2 * MM  # art past a token's cut line: enough for a cut a little off, not so much it crowds


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

    def cut(self, layout: Layout) -> tuple[Outline, ...]:
        outline = _outline(layout, 0.0, 0.0)
        return () if outline is None else (outline,)

    def check(self, component: Component, studio: Studio, report: Reporter) -> None:
        """Every token must fit on the paper inside the margins its packing keeps, its bleed's too (a bigger one
        is a board): measured against the paper's margins alone, a token 195 mm wide passed validate and
        stopped the build as a bug in pnp."""
        super().check(component, studio, report)
        names: dict[str, Mark | None] = {}  # each once, where it is asked for (an item's line when it picked it)
        for p in studio.of(component):
            if p.side == "front":
                names.setdefault(p.layout, p.mark)
        layouts = [studio.layouts.get(name, mark) for name, mark in names.items()]
        margin = (_margin(_bleed(layouts)) if layouts else sheet.MARGIN) + _shift(component, studio)
        offset = ", keeping the room --duplex-offset moves its backs by" if _shift(component, studio) else ""
        for layout in layouts:
            small = paper_too_small(studio.options.paper, (layout.width, layout.height), margin, margin)
            if small is not None:
                room, on_paper = small.room, small.on_paper
                report.error(f"a {shown_number(layout.width / MM)} x {shown_number(layout.height / MM)} mm token "
                             f"does not fit on the paper (at most {shown_number(room[0] / MM)} x "
                             f"{shown_number(room[1] / MM)} mm{offset}); make it a board, which is "
                             f"tiled{on_paper}", layout.spec.mark_of("size"))
        _check_back_cuts(component, studio, report)

    def draw(self, canvas: Canvas, component: Component, studio: Studio) -> int:
        fronts, backs = by_side(component, studio)
        layouts = [studio.layouts.get(p.layout) for p in fronts]
        bleed, pages = _packed(layouts, studio.paper, _shift(component, studio))
        has_back = any(b is not None for b in backs)
        painter, title = studio.painter(canvas), studio.page_title
        for n, page in enumerate(pages):
            for placed in page:
                outline = _outline(layouts[placed.index], placed.x, placed.y)
                _draw_token(canvas, studio, painter, fronts[placed.index], placed.x, placed.y, outline, bleed)
                if outline is not None:
                    paper.cut_outline(canvas, outline)
            paper.footer(canvas, studio.fonts, studio.paper, f"{title} · {component.name} · sheet {n + 1} of "
                                                             f"{len(pages)} · cut along the grey lines")
            canvas.showPage()
            if has_back:
                with paper.shifted(canvas, *back_shift(studio)):
                    for placed in page:
                        if (back := backs[placed.index]) is not None:  # long-edge duplex mirrors left and right
                            x = studio.paper[0] - placed.x - placed.w
                            outline = _outline(layouts[placed.index], x, placed.y)
                            _draw_token(canvas, studio, painter, back, x, placed.y, outline, bleed)
                paper.footer(canvas, studio.fonts, studio.paper, f"{title} · {component.name} · backs of sheet {n + 1}")
                canvas.showPage()
        return len(pages) * (2 if has_back else 1)


    def pages(self, component: Component, studio: Studio, paper: tuple[float, float]) -> int:
        """Its sheets as draw packs them, and as many of backs: 2,500 copies of a token the size of the page
        passed validate and stopped the build at the kit's page allowance."""
        fronts, backs = by_side(component, studio)
        if not fronts:
            return 0
        try:
            _, pages = _packed([studio.layouts.get(p.layout) for p in fronts], paper, _shift(component, studio))
        except ValueError:  # a token larger than this paper: said by check
            return 0
        return len(pages) * (2 if any(b is not None for b in backs) else 1)


def _check_back_cuts(component: Component, studio: Studio, report: Reporter) -> None:
    """A back is cut with its front, along the front's line: a back layout's own `shape` or `radius` that differ
    were ignored (a hex back printed as its front's circle, exit 0)."""
    fronts, backs = by_side(component, studio)
    for front, back in dict.fromkeys((f.layout, b.layout) for f, b in zip(fronts, backs) if b is not None):
        front_layout, back_layout = studio.layouts.get(front), studio.layouts.get(back)
        cuts = {"shape": (front_layout.options.get("shape", "square"), back_layout.options.get("shape", "square")),
                "radius": (f"{to_mm(front_layout.radius):g} mm", f"{to_mm(back_layout.radius):g} mm")}
        for key, (cut, own) in cuts.items():
            if own != cut and key in back_layout.spec:
                report.error(f"{key}: a token's back is cut with its front, along the front's line ({front}'s "
                             f"{key}: {cut}); give it the front's {key}, or leave it out", back_layout.spec.mark_of(key))


def _packed(layouts: list[Layout], paper_size: tuple[float, float],
            shift: float = 0.0) -> tuple[float, list[list[sheet.Placed]]]:
    """(the bleed every token gets, the pages of tokens packed in rows on the paper, `shift` more margin kept)."""
    bleed = _bleed(layouts)
    # 2 mm of paper between neighbours' art, however much art runs past each cut line
    return bleed, sheet.shelves(paper_size, [(lay.width, lay.height) for lay in layouts], gap=TOKEN_GAP + 2 * bleed,
                                margin=_margin(bleed) + shift)


def _shift(component: Component, studio: Studio) -> float:
    """The margin a sheet of the component's tokens keeps besides its own: as far as a back page is moved by the
    duplex offset, when it has backs, so that no back moves off the paper (a 190 mm token's back, moved 20 mm,
    ran 13 mm past the edge of A4 and lost its name, exit 0; a sheet of cards keeps this margin too)."""
    if not any(b is not None for b in by_side(component, studio)[1]):
        return 0.0
    return max(abs(v) for v in back_shift(studio))


def _bleed(layouts: list[Layout]) -> float:
    """The bleed every token of a component gets: the most any of them asks for, up to MAX_TOKEN_BLEED."""
    return max(min(lay.bleed, MAX_TOKEN_BLEED) for lay in layouts)


def _margin(bleed: float) -> float:
    """The paper kept round a sheet of tokens: the sheet's margin, and the tokens' bleed beyond it (the bleed
    stays clear of the footer too)."""
    return sheet.MARGIN + bleed


def _outline(layout: Layout, x: float, y: float) -> Outline | None:
    return cut_shape(layout.options.get("shape", "square"), x, y, layout.width, layout.height, layout.radius,
                     ROUNDED_DEFAULT)


def _draw_token(canvas: Canvas, studio: Studio, painter: Painter, printable: Printable, x: float, y: float,
                outline: Outline | None, bleed: float) -> None:
    """A token's art, running `bleed` past its cut line all round and clipped to that grown shape."""
    canvas.saveState()
    if outline is not None:
        paper.clipped(canvas, outline.grown(bleed))
    studio.draw(canvas, painter, printable, x, y, shared=True, clip=bleed)
    canvas.restoreState()
