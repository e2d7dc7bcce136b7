"""What each export format makes of a game's faces: which images at which pixel sizes, what else it writes,
and the rules its preflight checks afterwards (Tabletop Simulator's in tts.py)."""

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..units import MM, NAMED_SIZES
from .raster import MAX_PIXELS, Shot

INCH = 72.0

# Print services' card products, trim in inches, and the bleed their templates add on each side. The
# Game Crafter's templates are the trim plus 1/8 in all round at 300 dpi (poker 825 x 1125 px);
# MakePlayingCards' are the trim plus 0.12 in (poker 822 x 1122 px, tarot 897 x 1497 px); DriveThruCards'
# pages are the trim plus 1/8 in (poker 2.75 x 3.75 in).
SERVICES = {
    "tgc": {"title": "The Game Crafter", "dpi": 300, "bleed_in": 0.125},
    "mpc": {"title": "MakePlayingCards", "dpi": 300, "bleed_in": 0.12},
    "drivethru": {"title": "DriveThruCards", "dpi": 300, "bleed_in": 0.125},
}
for _service_id, _spec in SERVICES.items():  # each service's card products, from the one table of named sizes
    _spec["products"] = {size.services[_service_id]: size.inches for size in NAMED_SIZES.values()
                         if _service_id in size.services}
SERVICE_BLEED = max(spec["bleed_in"] for spec in SERVICES.values()) * INCH  # points of art the services take
MATCH = 0.03  # a card within 3% of a product's trim on each side is printed as that product


@dataclass
class Plan:
    """What one format writes for one game: images to render, files to copy or compose, and the checks."""

    shots: list = field(default_factory=list)  # raster.Shot
    copies: list = field(default_factory=list)  # (source path, target path): identical faces encoded once
    expect: dict = field(default_factory=dict)  # path -> (w, h) px each image must have
    problems: list = field(default_factory=list)  # (message, mark): nothing is exported
    skipped: list = field(default_factory=list)  # (message, mark): those faces are left out, the rest exported
    notes: list = field(default_factory=list)  # (message, mark): warnings about faces exported all the same
    finish: object = None  # function(folder) run after the images exist (sheets, saved object)
    pdfs: dict = field(default_factory=dict)  # path -> pages each PDF must have
    ink: dict = field(default_factory=dict)  # path -> the most total ink (percent) any of its pixels may have


def _px(points, dpi):
    return round(points / INCH * dpi)


def _split(total):
    """Bleed pixels for the two sides of one axis when the template's total is odd: the extra one after."""
    return total // 2, total - total // 2


def _shot(face, folder, rel, trim_px, bleed_px, dpi):
    return Shot(face.page, str(folder / rel), trim_px, bleed_px, face.art_bleed, face.trim, dpi)


def _per_face(faces, folder, sizing, plan):
    """One image per face, named <component>/<stem>.png; faces drawn alike are rendered once, then copied."""
    first = {}
    for face in faces:
        trim_px, bleed_px, dpi = sizing(face)
        rel = Path(face.component.id) / f"{face.stem}.png"
        key = (face.page, trim_px, bleed_px)
        plan.expect[str(folder / rel)] = (trim_px[0] + bleed_px[0] + bleed_px[2], trim_px[1] + bleed_px[1] + bleed_px[3])
        if key in first:
            plan.copies.append((first[key], str(folder / rel)))
            continue
        first[key] = str(folder / rel)
        plan.shots.append(_shot(face, folder, rel, trim_px, bleed_px, dpi))


def png(faces, folder, options, studio):
    """Every face and back at `dpi` with `bleed` of art all round; a face too large for MAX_PIXELS at that
    resolution (a big board at a high dpi) at the highest whole dpi within it, with a warning."""
    plan = Plan()

    def sizing(face):
        dpi = within_cap(face, options["dpi"], options["bleed"], studio, plan)
        b = _px(options["bleed"], dpi)
        return (_px(face.trim[0], dpi), _px(face.trim[1], dpi)), (b, b, b, b), dpi

    _per_face(faces, folder, sizing, plan)
    return plan


def fitting_dpi(inches: tuple, dpi: float, cap: int | None = None) -> float:
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


def within_cap(face, dpi, bleed, studio, plan):
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


def _product(service, face):
    w, h = face.trim[0] / INCH, face.trim[1] / INCH
    for name, (pw, ph) in SERVICES[service]["products"].items():
        if abs(w / pw - 1) <= MATCH and abs(h / ph - 1) <= MATCH:
            return name, (pw, ph)
    return None, None


def _service_sized(service, faces, studio, plan):
    """The card faces a print service can take, each with its template's trim in pixels; the decks of no
    size it sells are left out, with a warning at their layout's size."""
    spec = SERVICES[service]
    dpi, sized = spec["dpi"], []
    for face in faces:
        if face.kind != "deck":
            continue
        name, trim_in = _product(service, face)
        if name is None:
            layout = studio.layouts.get(face.printable.layout)
            sizes = ", ".join(f"{n} {w:g} x {h:g} in" for n, (w, h) in spec["products"].items())
            problem = (f"{face.component.name} left out: {face.trim[0] / MM:g} x {face.trim[1] / MM:g} mm cards are "
                       f"none of {spec['title']}'s card sizes ({sizes})", layout.spec.mark_of("size"))
            if all(not m.startswith(f"{face.component.name} left out") for m, _ in plan.skipped):
                plan.skipped.append(problem)
            continue
        sized.append((face, (round(trim_in[0] * dpi), round(trim_in[1] * dpi))))
    bleed = round(2 * spec["bleed_in"] * dpi)
    (left, right), (top, bottom) = _split(bleed), _split(bleed)
    return sized, (left, top, right, bottom), dpi


def _service(service):
    def plan_for(faces, folder, options, studio):
        plan = Plan()
        sized, bleed, dpi = _service_sized(service, faces, studio, plan)
        trims = {id(face): trim for face, trim in sized}
        _per_face([face for face, _ in sized], folder, lambda face: (trims[id(face)], bleed, dpi), plan)
        return plan
    plan_for.__doc__ = f"{SERVICES[service]['title']}: each card face at the template size of its card product."
    return plan_for


def drivethru(faces, folder, options, studio):
    """DriveThruCards: a PDF/X-1a per deck, each card's front then its back, the card plus 1/8 in bleed a page,
    CMYK within 240% ink (rendered at 300 dpi from the same drawing, then converted)."""
    from .drivethru import INK_LIMIT, deck_pdf

    plan = Plan()
    sized, bleed, dpi = _service_sized("drivethru", faces, studio, plan)
    trims = {id(face): trim for face, trim in sized}
    decks = {}
    for face, _ in sized:
        decks.setdefault(face.component.id, {}).setdefault(face.index, []).append(face)
    pages = {}
    for cid, cards in decks.items():
        order = [face for index in sorted(cards) for face in sorted(cards[index], key=lambda f: f.side != "front")]
        pages[cid] = [Path(".cmyk") / cid / f"{face.stem}.tif" for face in order]
        for face, rel in zip(order, pages[cid]):
            plan.shots.append(replace(_shot(face, folder, rel, trims[id(face)], bleed, dpi), encoding="cmyk"))
        plan.pdfs[str(folder / f"{cid}.pdf")] = len(order)
        plan.ink[str(folder / f"{cid}.pdf")] = INK_LIMIT * 100
    bleed_pt = SERVICES["drivethru"]["bleed_in"] * INCH

    def finish(out):
        import shutil

        for cid, images in pages.items():
            deck_pdf(out, images, f"{cid}.pdf", f"{studio.game.title}: {cid}", bleed_pt)
        shutil.rmtree(out / ".cmyk", ignore_errors=True)

    plan.finish = finish
    return plan


PROOF_SCALE, PROOF_MARGIN, PROOF_LABEL = 0.5, 12 * MM, 16  # label: points under each card for id and name


def proof(faces, folder, options, studio):
    """A proof sheet per deck: every card front at half size in a grid on A4, its id and name beneath, drawn
    by the same code as the kit, for checking a whole deck at a glance."""
    plan = Plan()
    decks = {}
    for face in faces:
        if face.kind == "deck" and face.side == "front":
            decks.setdefault(face.component.id, []).append(face)
    layouts = {}
    for cid, fronts in decks.items():
        cols, rows = _proof_grid(fronts[0])
        layouts[cid] = (cols, rows)
        plan.pdfs[str(folder / f"{cid}.pdf")] = math.ceil(len(fronts) / (cols * rows))
    plan.finish = lambda out: [_draw_proof(studio, fronts, layouts[cid], out / f"{cid}.pdf")
                               for cid, fronts in decks.items()]
    return plan


def _proof_grid(face):
    from ..units import PAPER_SIZES

    pw, ph = (v * MM for v in PAPER_SIZES["a4"])
    cw, ch = face.trim[0] * PROOF_SCALE + 4 * MM, face.trim[1] * PROOF_SCALE + PROOF_LABEL + 2 * MM
    return max(1, int((pw - 2 * PROOF_MARGIN) // cw)), max(1, int((ph - 2 * PROOF_MARGIN - 10 * MM) // ch))


def _draw_proof(studio, fronts, grid, path):
    from reportlab.pdfgen.canvas import Canvas

    from ..units import PAPER_SIZES

    pw, ph = (v * MM for v in PAPER_SIZES["a4"])
    cols, rows = grid
    canvas = Canvas(str(path), pagesize=(pw, ph), invariant=1, initialFontName=studio.fonts.name("Body"))
    painter = studio.painter(canvas)
    per_page = cols * rows
    cw, ch = fronts[0].trim[0] * PROOF_SCALE, fronts[0].trim[1] * PROOF_SCALE
    cell_w, cell_h = (pw - 2 * PROOF_MARGIN) / cols, ch + PROOF_LABEL + 2 * MM
    pages = math.ceil(len(fronts) / per_page)
    for n, face in enumerate(fronts):
        if n % per_page == 0:
            if n:
                canvas.showPage()
            canvas.setFont(studio.fonts.name("Body", bold=True), 10)
            canvas.drawString(PROOF_MARGIN, ph - PROOF_MARGIN, f"{studio.game.title}: {face.component.name}, "
                              f"{len(fronts)} cards · proof page {n // per_page + 1} of {pages}")
        col, row = n % cols, (n % per_page) // cols
        x = PROOF_MARGIN + col * cell_w + (cell_w - cw) / 2
        y = ph - PROOF_MARGIN - 10 * MM - (row + 1) * cell_h + PROOF_LABEL
        canvas.saveState()
        canvas.scale(PROOF_SCALE, PROOF_SCALE)
        studio.draw(canvas, painter, face.printable, x / PROOF_SCALE, y / PROOF_SCALE, clip=0)
        canvas.restoreState()
        canvas.setStrokeColorRGB(0.7, 0.7, 0.7)
        canvas.setLineWidth(0.3)
        canvas.rect(x, y, cw, ch, stroke=1, fill=0)
        canvas.setFont(studio.fonts.name("Body"), 7)
        item_id = str(face.item.get("id") if face.item is not None else face.index + 1)
        label = item_id if face.name in (item_id, str(face.index + 1)) else f"{item_id} · {face.name}"
        canvas.drawCentredString(x + cw / 2, y - 8, _fit_label(label, cw, studio))
        if face.copies > 1:
            canvas.drawCentredString(x + cw / 2, y - 15, f"× {face.copies}")
    canvas.save()


def _fit_label(text, width, studio):
    from reportlab.pdfbase.pdfmetrics import stringWidth

    font = studio.fonts.name("Body")
    while len(text) > 4 and stringWidth(text, font, 7) > width:
        text = text[:-2] + "…"
    return text


FORMATS = {"png": png, "tgc": _service("tgc"), "mpc": _service("mpc"), "drivethru": drivethru,
           "proof": proof}  # and "tts" (tts.py, which builds on this module), added in run.py
