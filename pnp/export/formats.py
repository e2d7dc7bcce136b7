"""What each export format makes of a game's faces: which images at which pixel sizes, what else it writes
(Tabletop Simulator's sheets and saved object), and the rules its preflight checks afterwards."""

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..units import MM
from .raster import MAX_PIXELS, Shot

INCH = 72.0

TTS_MAX_PX, TTS_COLS, TTS_ROWS = 4096, 10, 7


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
    tasks: list = field(default_factory=list)  # picklable callables run across processes, task(folder) -> None


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


def _markup_free(text):
    text = re.sub(r"\[\[([^\[\]\n]+)\]\]", r"\1", str(text))  # a glossary term reads as its name
    return re.sub(r":([a-z0-9-]+):", r"\1", text.replace("**", "").replace("*", "")).strip()


def _description(face, studio):
    """A card's text as Tabletop Simulator shows it on hover: the item's text fields, markup removed."""
    if face.item is None:
        return ""
    fields = (studio.game.meta.get("tables") or {}).get(face.component.spec.get("items"), {}).get("fields", {})
    texts = [face.item.get(name) for name, spec in fields.items() if (spec or {}).get("type") == "text"]
    return "\n".join(_markup_free(t) for t in texts if isinstance(t, str) and t.strip())


def tts(faces, folder, options, studio):
    """Tabletop Simulator: each deck as sheets of at most 10 x 7 cards and 4096 px a side (a back sheet when
    the backs differ), boards and tokens as images; and a saved object that loads them from these files."""
    plan = Plan()
    groups = {}
    for face in faces:
        groups.setdefault(face.component.id, []).append(face)
    decks = [g for g in groups.values() if g[0].kind == "deck"]
    others = [g for g in groups.values() if g[0].kind != "deck"]
    sheets = [sheet for faces_of in decks for sheet in _sheets(faces_of, folder, plan)]
    for faces_of in others:
        _pieces(faces_of, folder, plan)
    plan.finish = lambda out: _tts_finish(out, folder, sheets, others, studio, plan)
    return plan


def _sheets(faces_of, folder, plan):
    """One deck's sheets: (component, number, fronts, their backs, (cols, rows), card px) each; the card
    images they are made of are planned as shots."""
    fronts = [f for f in faces_of if f.side == "front"]
    backs = {f.index: f for f in faces_of if f.side == "back"}
    per_sheet = TTS_COLS * TTS_ROWS
    for n in range(0, len(fronts), per_sheet):
        chunk = fronts[n:n + per_sheet]
        cols = max(2, min(TTS_COLS, len(chunk)))
        rows = max(2, math.ceil(len(chunk) / cols))
        w_in, h_in = chunk[0].trim[0] / INCH, chunk[0].trim[1] / INCH
        k = min(300, TTS_MAX_PX / (cols * w_in), TTS_MAX_PX / (rows * h_in))  # pixels per inch
        card = (math.floor(w_in * k), math.floor(h_in * k))
        chunk_backs = [backs.get(f.index) for f in chunk]
        for face in chunk + [b for b in chunk_backs if b is not None]:
            rel = Path("cards") / face.component.id / f"{face.stem}.png"
            plan.shots.append(_shot(face, folder, rel, card, (0, 0, 0, 0), k))
            plan.expect[str(folder / rel)] = card
        yield chunk[0].component, n // per_sheet + 1, chunk, chunk_backs, (cols, rows), card


def _pieces(faces_of, folder, plan):
    """Boards, tokens and aids: one image per face at up to 150 dpi (4096 px at most)."""
    for face in faces_of:
        if face.kind == "die":
            continue  # Tabletop Simulator's custom dice need its own die templates: not made yet
        dpi = min(150, TTS_MAX_PX / max(face.trim[0] / INCH, face.trim[1] / INCH))
        rel = Path(face.component.id) / f"{face.stem}.png"
        trim_px = (_px(face.trim[0], dpi), _px(face.trim[1], dpi))
        plan.shots.append(_shot(face, folder, rel, trim_px, (0, 0, 0, 0), dpi))
        plan.expect[str(folder / rel)] = trim_px


def _tts_finish(out, folder, sheets, others, studio, plan):
    """Compose the deck sheets from the card images, then write the saved object."""
    from PIL import Image

    objects, deck_key = [], 0
    by_component = {}
    for component, number, fronts, backs, (cols, rows), card in sheets:
        deck_key += 1
        face_sheet = Image.new("RGB", (cols * card[0], rows * card[1]), "white")
        unique_back = len({(b.page if b else None) for b in backs}) > 1
        back_sheet = Image.new("RGB", face_sheet.size, "white") if unique_back else None
        for i, face in enumerate(fronts):
            x, y = (i % cols) * card[0], (i // cols) * card[1]
            face_sheet.paste(Image.open(out / "cards" / component.id / f"{face.stem}.png"), (x, y))
            if back_sheet is not None and backs[i] is not None:
                back_sheet.paste(Image.open(out / "cards" / component.id / f"{backs[i].stem}.png"), (x, y))
        faces_name = f"{component.id}-{number}-faces.png"
        face_sheet.save(out / faces_name, "PNG", compress_level=6)
        plan.expect[str(folder / faces_name)] = face_sheet.size
        if back_sheet is not None:
            back_name = f"{component.id}-{number}-backs.png"
            back_sheet.save(out / back_name, "PNG", compress_level=6)
            plan.expect[str(folder / back_name)] = back_sheet.size
        elif backs and backs[0] is not None:
            back_name = f"cards/{component.id}/{backs[0].stem}.png"
        else:
            back_name = faces_name  # no back layout: the sheet's own first card stands for it
        entry = {"FaceURL": (folder / faces_name).as_uri(), "BackURL": (folder / back_name).as_uri(),
                 "NumWidth": cols, "NumHeight": rows, "BackIsHidden": True, "UniqueBack": back_sheet is not None,
                 "Type": 0}
        deck = by_component.setdefault(component.id, {"component": component, "custom": {}, "cards": []})
        deck["custom"][str(deck_key)] = entry
        for i, face in enumerate(fronts):
            for _ in range(face.copies):
                deck["cards"].append((deck_key * 100 + i, face, str(deck_key)))
    for n, deck in enumerate(by_component.values()):
        objects.append(_deck_object(deck, n, studio))
    for n, faces_of in enumerate(others):
        objects.extend(_other_objects(faces_of, folder, n))
    save = {"SaveName": studio.game.title, "GameMode": studio.game.title, "Date": "", "Table": "", "Sky": "",
            "Note": f"{studio.game.title}: made by pnp from the game's data", "ObjectStates": objects}
    (out / f"{studio.game.id}.json").write_text(json.dumps(save, indent=2, ensure_ascii=False) + "\n",
                                                encoding="utf-8")


def _transform(x, z=0.0, flip=False):
    return {"posX": x, "posY": 1.0, "posZ": z, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0 if flip else 0.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def _deck_object(deck, n, studio):
    cards = [{"Name": "Card", "Nickname": face.name, "Description": _description(face, studio), "CardID": card_id,
              "CustomDeck": {key: deck["custom"][key]}, "Transform": _transform(3.0 * n, flip=True)}
             for card_id, face, key in deck["cards"]]
    return {"Name": "DeckCustom", "Nickname": deck["component"].name, "Description": "",
            "Transform": _transform(3.0 * n, flip=True), "DeckIDs": [c["CardID"] for c in cards],
            "CustomDeck": deck["custom"], "ContainedObjects": cards}


TILE_TYPES = {"square": 0, "hex": 1, "circle": 2, "rounded": 3, "none": 0}


def _other_objects(faces_of, folder, n):
    out = []
    fronts = [f for f in faces_of if f.side in ("front", "face")]
    backs = {f.index: f for f in faces_of if f.side == "back"}
    for i, face in enumerate(fronts):
        if face.kind == "die":
            continue
        url = (folder / face.component.id / f"{face.stem}.png").as_uri()
        back = backs.get(face.index)
        back_url = (folder / face.component.id / f"{back.stem}.png").as_uri() if back else ""
        position = _transform(-8.0 - 6.0 * n, z=2.0 * i)
        if face.kind == "board":
            out.append({"Name": "Custom_Board", "Nickname": face.name, "Transform": position,
                        "CustomImage": {"ImageURL": url, "ImageSecondaryURL": back_url, "WidthScale": 0.0}})
        else:
            for _ in range(max(1, face.copies)):
                out.append({"Name": "Custom_Tile", "Nickname": face.name, "Transform": position,
                            "CustomImage": {"ImageURL": url, "ImageSecondaryURL": back_url, "WidthScale": 0.0,
                                            "CustomTile": {"Type": TILE_TYPES.get(face.shape, 0), "Thickness": 0.2,
                                                           "Stackable": True, "Stretch": True}}})
    return out


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


FORMATS = {"png": png, "tts": tts, "proof": proof}  # the print services' are in services.py
