"""A top-down picture of a Tabletop Simulator save, drawn from its objects' positions, scales and images alone
(Tabletop Simulator cannot run here): what a group sees when it sits down at the table."""

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PIL import Image, ImageDraw

from ..project import open_file, opened_picture
from .table import CARD_WIDTH_AT_1, D6_TEMPLATE, DEPTH_AT_1, footprint, kind_of


def _rgb(path: Path) -> Image.Image:
    """The picture the export wrote at `path`, in RGB (opened_picture: not a link or a pipe swapped in since, nor another format)."""
    with opened_picture(path) as image:
        return image.convert("RGB")

PX_PER_UNIT = 24  # an inch of table in pixels, at most
MAX_SIDE = 2400  # the preview's long side, at most
MARGIN = 2.0  # units of table around the objects
TABLE, BAG, BAG_EDGE, DIE, FALLBACK = (62, 94, 72), (140, 100, 62), (90, 62, 38), (245, 242, 232), (200, 200, 200)


def object_image(state: dict, resolve: Callable[[str], Path | None]) -> Image.Image | None:
    """The image seen from above: a face-down deck's back (its first card's on a back sheet), a tile's top, a
    custom die's first face; None when there is none to show."""
    source = object_source(state, resolve)
    return None if source is None else _picture(source)


@dataclass(frozen=True)
class Source:
    """Where an object's top comes from: a picture the export wrote (or the first page of its PDF), or one cell of
    a picture cut into a grid of `grid` (columns, rows), the `cell`-th."""

    path: Path
    grid: tuple[int, int] | None = None
    cell: int = 0
    pdf: bool = False


def object_source(state: dict, resolve: Callable[[str], Path | None]) -> Source | None:
    """Where the image seen from above comes from (see object_image), read from the save alone."""
    if state.get("CustomDeck"):
        key, entry = next(iter(state["CustomDeck"].items()))
        card_id = state.get("CardID", (state.get("DeckIDs") or [int(key) * 100])[0])
        path = resolve(entry["BackURL"])
        if path is None:
            return None
        if not entry.get("UniqueBack"):
            return Source(path)
        return Source(path, (entry["NumWidth"], entry["NumHeight"]), card_id % 100)
    image = state.get("CustomImage") or {}
    if image.get("ImageURL"):
        path = resolve(image["ImageURL"])
        if path is None:
            return None
        if image.get("CustomDice"):  # face 1, where the d6 template (the one custom die the export writes) has it
            col, row, _ = D6_TEMPLATE[1]
            return Source(path, (3, 3), row * 3 + col)
        return Source(path)
    if state.get("CustomPDF"):
        path = resolve(state["CustomPDF"]["PDFUrl"])
        return None if path is None else Source(path, pdf=True)
    return None


def _cell_box(source: Source, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The part of a picture of `size` pixels that `source` shows (None: all of it)."""
    if source.grid is None:
        return None
    cols, rows = source.grid
    w, h = size[0] // cols, size[1] // rows
    x, y = source.cell % cols, source.cell // cols
    return x * w, y * h, x * w + w, y * h + h


def _picture(source: Source) -> Image.Image:
    """The image `source` shows, decoded (in RGB)."""
    if source.pdf:
        return _pdf_page(source.path)
    sheet = _rgb(source.path)
    box = _cell_box(source, sheet.size)
    return sheet if box is None else sheet.crop(box)


def _size_of(source: Source) -> tuple[int, int]:
    """The pixel size of the image `source` shows, from its file's header alone (a PDF's page is rendered: the
    rulebook's, small): the preview's layout needs only the shapes of its objects' pictures."""
    if source.pdf:
        return _pdf_page(source.path).size
    with opened_picture(source.path) as image:
        size = image.size
    box = _cell_box(source, size)
    return size if box is None else (box[2] - box[0], box[3] - box[1])


def _cell(path: Path | None, entry: dict, index: int | None) -> Image.Image | None:
    if path is None:
        return None
    grid = None if index is None else (entry["NumWidth"], entry["NumHeight"])
    return _picture(Source(path, grid, index or 0))


def _pdf_page(path: Path) -> Image.Image:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(open_file(path), autoclose=True)
    try:
        return document[0].render(scale=0.5).to_pil().convert("RGB")
    finally:
        document.close()


def object_footprint(state: dict, image: Image.Image | tuple[int, int] | None) -> tuple[float, float]:
    """(width, depth) on the table from the object's scale and its image's aspect (or its pixel size), by the
    export's one rule."""
    kind, transform = kind_of(state["Name"]), state["Transform"]
    if kind == "card":  # drawn on the table's one card shape, scaled across apart (table.CARD_WIDTH_AT_1)
        return CARD_WIDTH_AT_1 * transform["scaleX"], DEPTH_AT_1[kind] * transform["scaleZ"]
    size = image.size if isinstance(image, Image.Image) else image
    aspect = size[0] / size[1] if size is not None else 1.0
    return footprint(kind, transform["scaleZ"], aspect)


def render_preview(save: dict, resolve: Callable[[str], Path | None]) -> Image.Image:
    """The table from above, north up: every object at its place and size, turned as it lies. The objects are
    laid out from their pictures' sizes, then each picture is decoded only to be pasted at its size, once for
    all the objects showing it alike: 30 copies of a board held 30 decoded board pictures at once (1.2 GB)."""
    laid = []
    for state in save["ObjectStates"]:
        source = object_source(state, resolve)
        (w, d), t = object_footprint(state, None if source is None else _size_of(source)), state["Transform"]
        laid.append((state, source, t["posX"] - w / 2, t["posZ"] - d / 2, w, d))
    if not laid:
        return Image.new("RGB", (64, 64), TABLE)
    left = min(x for _, _, x, _, _, _ in laid) - MARGIN
    right = max(x + w for _, _, x, _, w, _ in laid) + MARGIN
    bottom = min(z for _, _, _, z, _, _ in laid) - MARGIN
    top = max(z + d for _, _, _, z, _, d in laid) + MARGIN
    k = min(PX_PER_UNIT, MAX_SIDE / max(right - left, top - bottom))
    canvas = Image.new("RGB", (round((right - left) * k), round((top - bottom) * k)), TABLE)
    draw = ImageDraw.Draw(canvas)
    # each picture as pasted, by what it shows, its size and turn: no larger together than the canvas, for the
    # objects do not overlap
    pasted: dict[tuple[Source, tuple[int, int], bool], Image.Image] = {}
    for state, source, x, z, w, d in sorted(laid, key=lambda o: not o[0].get("Locked")):  # boards underneath
        box = (round((x - left) * k), round((top - z - d) * k), round((x + w - left) * k), round((top - z) * k))
        size = (max(1, box[2] - box[0]), max(1, box[3] - box[1]))
        if state["Name"] in ("Bag", "Infinite_Bag"):
            _bag(canvas, draw, state, box, resolve)
        elif source is not None:
            turned = state["Transform"]["rotY"] != 180.0
            key = (source, size, turned)
            if key not in pasted:
                image = _picture(source)
                pasted[key] = (image.rotate(180) if turned else image).resize(size, Image.Resampling.LANCZOS)
            canvas.paste(pasted[key], box[:2])
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
