"""A top-down picture of a Tabletop Simulator save, drawn from its objects' positions, scales and images alone
(Tabletop Simulator cannot run here): what a group sees when it sits down at the table."""

import math
from pathlib import Path
from typing import Callable

from PIL import Image, ImageDraw

from ..project import open_file
from .table import footprint, kind_of


def _rgb(path: Path) -> Image.Image:
    """The picture the export wrote at `path`, in RGB (open_file: not a link or a pipe swapped in since)."""
    with open_file(path) as file, Image.open(file) as image:
        return image.convert("RGB")

PX_PER_UNIT = 24  # an inch of table in pixels, at most
MAX_SIDE = 2400  # the preview's long side, at most
MARGIN = 2.0  # units of table around the objects
TABLE, BAG, BAG_EDGE, DIE, FALLBACK = (62, 94, 72), (140, 100, 62), (90, 62, 38), (245, 242, 232), (200, 200, 200)


def object_image(state: dict, resolve: Callable[[str], Path | None]) -> Image.Image | None:
    """The image seen from above: a face-down deck's back (its first card's on a back sheet), a tile's top, a
    custom die's first face; None when there is none to show."""
    if state.get("CustomDeck"):
        key, entry = next(iter(state["CustomDeck"].items()))
        card_id = state.get("CardID", (state.get("DeckIDs") or [int(key) * 100])[0])
        return _cell(resolve(entry["BackURL"]), entry, card_id % 100 if entry.get("UniqueBack") else None)
    image = state.get("CustomImage") or {}
    if image.get("ImageURL"):
        path = resolve(image["ImageURL"])
        if path is None:
            return None
        picture = _rgb(path)
        if image.get("CustomDice"):  # the first face of the grid the export writes
            faces = {0: 4, 1: 6, 2: 8, 3: 10, 4: 12, 5: 20}.get(image["CustomDice"].get("Type"), 6)
            cols = math.ceil(math.sqrt(faces))
            rows = math.ceil(faces / cols)
            return picture.crop((0, 0, picture.width // cols, picture.height // rows))
        return picture
    if state.get("CustomPDF"):
        return _pdf_page(resolve(state["CustomPDF"]["PDFUrl"]))
    return None


def _cell(path: Path | None, entry: dict, index: int | None) -> Image.Image | None:
    if path is None:
        return None
    sheet = _rgb(path)
    if index is None:
        return sheet
    w, h = sheet.width // entry["NumWidth"], sheet.height // entry["NumHeight"]
    x, y = index % entry["NumWidth"], index // entry["NumWidth"]
    return sheet.crop((x * w, y * h, x * w + w, y * h + h))


def _pdf_page(path: Path | None) -> Image.Image | None:
    if path is None:
        return None
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(open_file(path), autoclose=True)
    try:
        return document[0].render(scale=0.5).to_pil().convert("RGB")
    finally:
        document.close()


def object_footprint(state: dict, image: Image.Image | None) -> tuple[float, float]:
    """(width, depth) on the table from the object's scale and its image's aspect, by the export's one rule."""
    aspect = image.width / image.height if image is not None else 1.0  # a card's back is a card's shape
    return footprint(kind_of(state["Name"]), state["Transform"]["scaleZ"], aspect)


def render_preview(save: dict, resolve: Callable[[str], Path | None]) -> Image.Image:
    """The table from above, north up: every object at its place and size, turned as it lies."""
    laid = []
    for state in save["ObjectStates"]:
        image = object_image(state, resolve)
        (w, d), t = object_footprint(state, image), state["Transform"]
        laid.append((state, image, t["posX"] - w / 2, t["posZ"] - d / 2, w, d))
    if not laid:
        return Image.new("RGB", (64, 64), TABLE)
    left = min(x for _, _, x, _, _, _ in laid) - MARGIN
    right = max(x + w for _, _, x, _, w, _ in laid) + MARGIN
    bottom = min(z for _, _, _, z, _, _ in laid) - MARGIN
    top = max(z + d for _, _, _, z, _, d in laid) + MARGIN
    k = min(PX_PER_UNIT, MAX_SIDE / max(right - left, top - bottom))
    canvas = Image.new("RGB", (round((right - left) * k), round((top - bottom) * k)), TABLE)
    draw = ImageDraw.Draw(canvas)
    for state, image, x, z, w, d in sorted(laid, key=lambda o: not o[0].get("Locked")):  # boards underneath
        box = (round((x - left) * k), round((top - z - d) * k), round((x + w - left) * k), round((top - z) * k))
        size = (max(1, box[2] - box[0]), max(1, box[3] - box[1]))
        if state["Name"] in ("Bag", "Infinite_Bag"):
            _bag(canvas, draw, state, box, resolve)
        elif image is not None:
            turned = image if state["Transform"]["rotY"] == 180.0 else image.rotate(180)
            canvas.paste(turned.resize(size, Image.Resampling.LANCZOS), box[:2])
        else:
            draw.rectangle(box, fill=DIE if kind_of(state["Name"]) == "die" else FALLBACK, outline=(40, 40, 40))
            draw.text((box[0] + 2, box[1] + 2), state["Name"].replace("Die_", "d"), fill=(20, 20, 20))
    return canvas


def _bag(canvas: Image.Image, draw: ImageDraw.ImageDraw, state: dict, box: tuple,
         resolve: Callable[[str], Path | None]) -> None:
    """A bag as a pouch, with the first piece it holds on top of it."""
    draw.ellipse(box, fill=BAG, outline=BAG_EDGE, width=max(1, (box[2] - box[0]) // 20))
    inside = (state.get("ContainedObjects") or [{}])[0]
    image = object_image(inside, resolve) if inside else None
    if image is None:
        return
    side = (box[2] - box[0]) // 2
    image.thumbnail((side, side), Image.Resampling.LANCZOS)
    canvas.paste(image, ((box[0] + box[2] - image.width) // 2, (box[1] + box[3] - image.height) // 2))
