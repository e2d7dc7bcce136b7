"""The formats that draw for pnp's own use, png and proof, and the sizing the image formats share: pixels
per face, the highest dpi within MAX_PIXELS (Tabletop Simulator's format is in tts.py, the print services'
in services.py; registry.py holds the base class, the Plan and the list of them all)."""

import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..report import counted, named
from ..units import MM, to_mm
from .raster import MAX_PIXELS, Shot
from .registry import ExportFormat, Plan, register

if TYPE_CHECKING:
    from ..printables import Studio
    from .faces import Face

INCH = 72.0
Px = tuple[int, int]  # (w, h) in pixels
BleedPx = tuple[int, int, int, int]  # (left, top, right, bottom) pixels of art beyond the trim
# a face's (trim px, bleed px, dpi) as a format sizes its image
Sizing = Callable[["Face"], tuple[Px, BleedPx, float]]


def _px(points: float, dpi: float) -> int:
    return round(points / INCH * dpi)


def _split(total: int) -> tuple[int, int]:
    """Bleed pixels for the two sides of one axis when the template's total is odd: the extra one after."""
    return total // 2, total - total // 2


def _shot(face: "Face", folder: Path, rel: Path, trim_px: Px, bleed_px: BleedPx, dpi: float) -> Shot:
    return Shot(face.page, str(folder / rel), trim_px, bleed_px, face.art_bleed, face.trim, dpi)


def _per_face(faces: list["Face"], folder: Path, sizing: Sizing, plan: Plan) -> None:
    """One image per face, named <component>/<stem>.png; faces drawn alike are rendered once, then copied."""
    for face in faces:
        trim_px, bleed_px, dpi = sizing(face)
        rel = Path(face.component.id) / f"{face.stem}.png"
        plan.expect[str(folder / rel)] = (trim_px[0] + bleed_px[0] + bleed_px[2], trim_px[1] + bleed_px[1] + bleed_px[3])
        plan.shoot(_shot(face, folder, rel, trim_px, bleed_px, dpi))


@register
class Png(ExportFormat):
    """Every face and back at `dpi` with `bleed` of art all round; a face too large for MAX_PIXELS at that
    resolution (a big board at a high dpi) at the highest whole dpi within it, with a warning."""

    name = "png"
    takes = ("dpi", "bleed")
    help = "every face and back as a PNG"
    writes = "<component>/<nnn>-<id>-front.png and -back.png, at --dpi with --bleed, RGB"

    def settings(self, options: dict[str, Any]) -> dict[str, Any]:
        """--dpi and --bleed (millimetres) shape the images."""
        return {"dpi": options["dpi"], "bleed_mm": to_mm(options["bleed"])}

    def plan(self, faces: list["Face"], folder: Path, options: dict[str, Any], studio: "Studio") -> Plan:
        """One image per face at --dpi (or less, within MAX_PIXELS) with --bleed of art all round."""
        plan = Plan()

        def sizing(face: "Face") -> tuple[Px, BleedPx, float]:
            dpi = within_cap(face, options["dpi"], options["bleed"], studio, plan)
            b = _px(options["bleed"], dpi)
            return (_px(face.trim[0], dpi), _px(face.trim[1], dpi)), (b, b, b, b), dpi

        _per_face(faces, folder, sizing, plan)
        return plan


def fitting_dpi(inches: tuple[float, float], dpi: float, cap: int | None = None) -> float:
    """`dpi`, or the highest whole dpi at which an image of `inches` (w, h) has at most `cap` pixels
    (MAX_PIXELS), counting a pixel of rounding on each side."""
    cap = cap or MAX_PIXELS

    def pixels(d: float) -> float:
        return (inches[0] * d + 2) * (inches[1] * d + 2)

    if pixels(dpi) <= cap:
        return dpi
    fitting = math.floor(math.sqrt(cap / (inches[0] * inches[1])))
    while fitting > 1 and pixels(fitting) > cap:
        fitting -= 1
    return fitting


def within_cap(face: "Face", dpi: float, bleed: float, studio: "Studio", plan: Plan) -> float:
    """`dpi`, or the highest whole dpi at which the face with `bleed` all round stays within MAX_PIXELS, noted
    in the plan once per component at its layout's size."""
    inches = ((face.trim[0] + 2 * bleed) / INCH, (face.trim[1] + 2 * bleed) / INCH)
    fitting = fitting_dpi(inches, dpi)
    if fitting == dpi:
        return dpi
    layout = studio.layouts.get(face.printable.layout)
    said = f"{face.component.name}: "
    if all(not m.startswith(said) for m, _ in plan.notes):
        plan.notes.append((f"{said}{face.trim[0] / MM:g} x {face.trim[1] / MM:g} mm at {dpi:g} dpi would be "
                           f"{round(inches[0] * dpi):,} x {round(inches[1] * dpi):,} pixels, more than the "
                           f"{MAX_PIXELS / 1e6:g} million pnp renders in one image: exported at {fitting} dpi",
                           layout.spec.mark_of("size")))
    return fitting


PROOF_SCALE, PROOF_MARGIN, PROOF_LABEL = 0.5, 12 * MM, 16  # label: points under each card for id and name


@register
class Proof(ExportFormat):
    """A proof sheet per deck: every card front at half size in a grid on A4, its id and name beneath, drawn
    by the same code as the kit, for checking a whole deck at a glance."""

    name = "proof"
    help = "a PDF per deck with every card small, its id and name beneath"
    writes = "<deck>.pdf: every card at half size (less if too big) with its id and name, to check a deck at a glance"

    def plan(self, faces: list["Face"], folder: Path, options: dict[str, Any], studio: "Studio") -> Plan:
        """One PDF per deck of its fronts, drawn when the plan finishes; each PDF's page count checked."""
        plan = Plan()
        decks: dict[str, list[Face]] = {}
        for face in faces:
            if face.kind == "deck" and face.side == "front":
                decks.setdefault(face.component.id, []).append(face)
        layouts: dict[str, tuple[int, int]] = {}
        labels: dict[str, list[str]] = {}  # each card's label, made (and its missing glyphs noted) once, here
        headings: dict[str, str] = {}  # each deck's pages' heading, as labels
        for cid, fronts in decks.items():
            labels[cid] = [_label_in_font(studio, _label(face), face, plan) for face in fronts]
            headings[cid] = _heading_in_font(studio, fronts[0], plan)
            cols, rows = _proof_grid(_largest(fronts))
            layouts[cid] = (cols, rows)
            plan.pdfs[str(folder / f"{cid}.pdf")] = math.ceil(len(fronts) / (cols * rows))
        def finish(out: Path) -> None:
            for cid, fronts in decks.items():
                _draw_proof(studio, fronts, (headings[cid], labels[cid]), layouts[cid], out / f"{cid}.pdf")

        plan.finish = finish
        return plan


def _proof_scale(trim: tuple[float, float]) -> float:
    """PROOF_SCALE, or less for a card that would not fit the page at it with its label: a card of 600 x 800 mm
    was drawn off the page, its proof blank but for the page's title, exit 0."""
    from ..units import PAPER_SIZES

    pw, ph = (v * MM for v in PAPER_SIZES["a4"])
    room = (pw - 2 * PROOF_MARGIN - 4 * MM, ph - 2 * PROOF_MARGIN - 10 * MM - PROOF_LABEL - 2 * MM)
    return min(PROOF_SCALE, room[0] / trim[0], room[1] / trim[1])


def _largest(fronts: list["Face"]) -> tuple[float, float]:
    """The room a deck's card takes on its proof: the widest card's width and the tallest's height (a layout
    picked per item may make cards of several sizes: each was framed at the first's, a taller one drawn over
    the page's heading)."""
    return max(face.trim[0] for face in fronts), max(face.trim[1] for face in fronts)


def _proof_grid(trim: tuple[float, float]) -> tuple[int, int]:
    from ..units import PAPER_SIZES

    pw, ph = (v * MM for v in PAPER_SIZES["a4"])
    scale = _proof_scale(trim)
    cw, ch = trim[0] * scale + 4 * MM, trim[1] * scale + PROOF_LABEL + 2 * MM
    return max(1, int((pw - 2 * PROOF_MARGIN) // cw)), max(1, int((ph - 2 * PROOF_MARGIN - 10 * MM) // ch))


def _proof_page(cards: int, page: int, pages: int) -> str:
    """What a proof page's heading says after the deck's name: its count of cards and the page's number."""
    return f", {counted(cards, 'card')} · proof page {page} of {pages}"


def _draw_proof(studio: "Studio", fronts: list["Face"], words: tuple[str, list[str]], grid: tuple[int, int],
                path: Path) -> None:
    """The proof of one deck's `fronts`, under its pages' heading, each with its label beneath (words: the two,
    as Proof.plan made them), into `path`."""
    heading, labels = words
    from ..draw.canvas import new_canvas
    from ..units import PAPER_SIZES

    pw, ph = (v * MM for v in PAPER_SIZES["a4"])
    cols, rows = grid
    canvas = new_canvas(str(path), studio.fonts.name("Body"), (pw, ph),
                        title=f"{studio.game.title} — proof of {fronts[0].component.name}")
    painter = studio.painter(canvas)
    per_page = cols * rows
    largest = _largest(fronts)
    scale = _proof_scale(largest)
    cell_w, cell_h = (pw - 2 * PROOF_MARGIN) / cols, largest[1] * scale + PROOF_LABEL + 2 * MM
    pages = math.ceil(len(fronts) / per_page)
    for n, (face, label) in enumerate(zip(fronts, labels, strict=True)):
        if n % per_page == 0:
            if n:
                canvas.showPage()
            canvas.setFont(studio.fonts.name("Body", bold=True), 10)
            canvas.drawString(PROOF_MARGIN, ph - PROOF_MARGIN, _proof_heading(
                studio, heading, _proof_page(len(fronts), n // per_page + 1, pages), pw - 2 * PROOF_MARGIN))
        col, row = n % cols, (n % per_page) // cols
        cw, ch = face.trim[0] * scale, face.trim[1] * scale  # (each card at its own size, above its label)
        x = PROOF_MARGIN + col * cell_w + (cell_w - cw) / 2
        y = ph - PROOF_MARGIN - 10 * MM - (row + 1) * cell_h + PROOF_LABEL
        canvas.saveState()
        canvas.scale(scale, scale)
        studio.draw(canvas, painter, face.printable, x / scale, y / scale, clip=0)
        canvas.restoreState()
        canvas.setStrokeColorRGB(0.7, 0.7, 0.7)
        canvas.setLineWidth(0.3)
        canvas.rect(x, y, cw, ch, stroke=1, fill=0)
        canvas.setFont(studio.fonts.name("Body"), 7)
        canvas.drawCentredString(x + cw / 2, y - 8, _fit_label(label, cw, studio))
        if face.copies > 1:
            canvas.drawCentredString(x + cw / 2, y - 15, f"× {face.copies}")
    canvas.save()


def _proof_heading(studio: "Studio", heading: str, tail: str, width: float) -> str:
    """A proof page's heading within `width` points: the game's title and the deck's name, cut short where they
    are too long for it, then `tail` (its card count and page) whole. A title the rulebook's footer holds at 8 pt
    ran past the page's edge at 10 pt bold, the page's number off it."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from ..draw.text import cut_to_width

    bold = studio.fonts.name("Body", bold=True)
    return cut_to_width(heading, bold, 10, width - stringWidth(tail, bold, 10), least=3) + tail


def _heading_in_font(studio: "Studio", face: "Face", plan: Plan) -> str:
    """A deck's proof pages' heading, the game's title and the deck's name (at most MAX_LABEL characters), with
    each character the Body font's bold style has no glyph for printed as '?', noted in `plan` as a warning at the
    title or name holding it: validate checks them in the footers' regular style only, and a bold style lacking
    one printed nothing in its place ('Łódź Cards' read 'Łód Cards' in a bold font without 'ź'), exit 0."""
    from ..draw.fonts import unmapped_message

    meta, spec = studio.game.meta, face.component.spec
    heading = f"{studio.game.title}: {face.component.name}"[:MAX_LABEL]
    while (missing := studio.fonts.unmapped(heading, "Body", bold=True)) is not None:
        mark = meta.mark_of("title") if missing in studio.game.title else spec.mark_of("name")
        plan.notes.append((unmapped_message(missing, "Body", studio.fonts.styles_lacking(missing, "Body"))
                           + f" (the proof of "
                           f"{named(face.component.id)} prints it in its pages' heading as '?')", mark))
        heading = heading.replace(missing, "?")
    return heading


# characters of a label read at most: far more than a line beneath a card holds at 7 pt (cut to its width after),
# so that a name an alias repeats on every card (950,000 characters on 500) is not read whole for the font's
# glyphs on each (past 60 s)
MAX_LABEL = 1000


def _label(face: "Face") -> str:
    """What the proof prints beneath a card: its id, and its name when that says more (MAX_LABEL characters)."""
    item_id = str(face.item.get("id") if face.item is not None else face.index + 1)
    return (item_id if face.name in (item_id, str(face.index + 1)) else f"{item_id} · {face.name}")[:MAX_LABEL]


def _label_in_font(studio: "Studio", label: str, face: "Face", plan: Plan | None = None) -> str:
    """The label with each character the Body font has no glyph for printed as '?' (ReportLab printed nothing
    in its place: a card named '😀 Lion' was labelled 'Lion', exit 0), each such character noted in `plan` as a
    warning at the item's field holding it. A card's name need not be printed by its layouts, so validate does
    not refuse it: the proof alone prints it."""
    from ..check import _field_with
    from ..draw.fonts import unmapped_message

    while (missing := studio.fonts.unmapped(label, "Body")) is not None:
        if plan is not None:
            plan.notes.append((unmapped_message(missing, "Body") + f" (the proof prints it beneath card "
                               f"{face.stem} as '?')", _field_with(face.item, missing) or face.component.spec.mark))
        label = label.replace(missing, "?")
    return label


def _fit_label(text: str, width: float, studio: "Studio") -> str:
    from ..draw.text import cut_to_width

    return cut_to_width(text, studio.fonts.name("Body"), 7, width, least=3)

