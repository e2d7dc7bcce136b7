"""Every face a game prints (cards, tokens, tiles, boards, die faces; not the rulebook), each drawn alone on a
page of its own size by the same code as the PDFs, so what is exported is what is printed."""

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..draw.canvas import new_canvas
from ..products import KINDS
from ..project import name_key

from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from ..printables import Studio
    from ..report import Mark
    from ..products.base import Printable

FACES_PDF = Path(".faces") / "faces.pdf"  # in an export's work folder: every face drawn, which its tasks read (its
# images are rendered from PDFs of a chunk of faces each, beside it); the folder is removed before the preflight


@dataclass
class Face:
    """One printable as exported: what its files are called and where it is in the faces PDF."""

    printable: "Printable"  # products.base.Printable: the component, side, item and copies
    name: str  # what players call it (the item's name)
    stem: str  # file name without extension: 001-lion-front
    trim: tuple  # (w, h) in points
    art_bleed: float  # points of art the layout provides beyond the trim (up to what was asked)
    shape: str  # a token's cut shape; "square" otherwise
    page: int = 0  # 0-based page in the faces PDF (faces drawn alike share one)

    component = property(lambda self: self.printable.component)
    kind = property(lambda self: self.printable.component.kind)
    side = property(lambda self: self.printable.side)  # front, back, face
    index = property(lambda self: self.printable.index)  # the item's place among the distinct items
    item = property(lambda self: self.printable.item)  # the data item, or None
    copies = property(lambda self: self.printable.copies)


# the bytes of one part of a face's file name (an item's id, a die face's value): a name holds two of them, and
# the number, side and suffix besides, well within the 255 bytes a file system allows. Cut at 60 characters, a
# die face of 60 letters of 4 bytes (U+1D400) named a file of 256 bytes: a game validate passed failed to
# export, "File name too long" at a temporary folder's name
MAX_SLUG_BYTES = 60


def _slug(value: object) -> str:
    """`value` as a part of a file name: its letters and digits, lower case, each run of others one hyphen; at
    most MAX_SLUG_BYTES of UTF-8, cut between characters. In one Unicode form (NFC), so that an accent typed
    apart from its letter (as a Mac writes it) names the same file as one typed with it, not a hyphen."""
    text = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in unicodedata.normalize("NFC", str(value)).lower())
    slug = "-".join(part for part in text.split("-") if part)
    return slug.encode("utf-8")[:MAX_SLUG_BYTES].decode("utf-8", "ignore") or "item"


def collect(studio: "Studio", bleed: float) -> list["Face"]:
    """The faces of every component whose kind exports faces (Kind.exports_faces), in game order, with the art
    bleed each can give (at most `bleed` points)."""
    faces: list[Face] = []
    for component in studio.game.components:
        kind = KINDS[component.kind]
        if not kind.exports_faces:
            continue
        taken: set[str] = set()
        for p in studio.of(component):
            face = face_of(studio, p, bleed)
            face.stem = _untaken(face.stem, taken)
            faces.append(face)
    return faces


def _untaken(stem: str, taken: set[str]) -> str:
    """`stem`, or `stem`-2, -3, ... when a face of its component (whose files share a folder) has it already,
    and now taken: the slugs of a die's faces 1 and '1' (or 'a b' and 'a-b') are one, and each face's image
    was written over the other's (4 files for a d6, exit 0; Tabletop Simulator's die showed one face twice).
    Names are told apart as a disk blind to case and Unicode form tells them (name_key): faces 'ς' and 'σ'
    (or 'ß' and 'ss') were two files on Linux and one on a Mac, Windows or a USB stick."""
    found, n = stem, 1
    while name_key(found) in taken:
        n += 1
        found = f"{stem}-{n}"
    taken.add(name_key(found))
    return found


def face_of(studio: "Studio", p: "Printable", bleed: float) -> "Face":
    """The face of one printable of a kind that exports faces (collect)."""
    component, layout = p.component, studio.layouts.get(p.layout)
    item_id = p.item.get("id") if p.item is not None else None
    number = f"{p.index + 1:03d}"
    parts = [number] + ([_slug(item_id)] if item_id is not None else []) + [p.side]
    parts += [_slug(value) for _, value in p.extra]
    name = KINDS[component.kind].item_name(component, p, studio) if p.item is not None else component.name
    return Face(p, name, "-".join(parts), (layout.width, layout.height), min(bleed, layout.bleed),
                str(layout.options.get("shape", "square")))


def draw_faces(studio: "Studio", faces: list["Face"], path: "Path | BinaryIO") -> int:
    """Draw each distinct face on a page of its trim plus its art bleed, into the PDF at `path` (or written to a
    binary stream). Faces that
    resolve to the very same drawing (a deck's one back) share a page. Returns the page count."""
    firsts = number_pages(studio, faces)
    draw_pages(studio, firsts, path)
    return len(firsts)


def number_pages(studio: "Studio", faces: list["Face"]) -> list["Face"]:
    """Give each face its page (Face.page) among the distinct drawings: faces that resolve to the very same
    drawing (a deck's one back) share a page. Returns the first face of each page, in page order."""
    pages: dict[tuple, int] = {}  # (layout, primitives' identity, art bleed) -> page
    firsts = []
    held = []  # every face's primitives, alive until the end: a freed list's id is reused by the next one
    for face in faces:
        prims = studio.printed(face.printable)
        held.append(prims)
        same = (face.printable.layout, id(prims), face.art_bleed)
        if same not in pages:
            pages[same] = len(pages)
            firsts.append(face)
        face.page = pages[same]
    return firsts


def draw_pages(studio: "Studio", pages: list["Face"], path: "Path | BinaryIO") -> None:
    """Draw `pages` (a face for each page, in order) into the PDF at `path` (or written to a binary stream),
    each on a page of its trim plus its art bleed."""
    canvas = new_canvas(str(path) if isinstance(path, Path) else path, studio.fonts.name("Body"), compression=0)
    painter = studio.painter(canvas)
    for face in pages:
        b = face.art_bleed
        canvas.setPageSize((face.trim[0] + 2 * b, face.trim[1] + 2 * b))
        studio.draw(canvas, painter, face.printable, b, b, clip=b)
        canvas.showPage()
    canvas.save()


def drawn_in_chunks(studio: "Studio", pages: list["Face"], path: Path,
                    sizes: tuple[int, int] | None) -> Iterator[tuple[Path, int, int]]:
    """Draw `pages` (as draw_pages) a chunk at a time, each chunk into a PDF of its own beside `path`, and yield
    (its path, its first page, its page count) as each is written, so its pages can be rasterised while the
    next is drawn. `sizes`: (first chunk, largest chunk) in pages, each chunk twice the one before (the first
    small, so the rasterising starts at once); None: every page in one PDF, at `path` itself."""
    if sizes is None:
        draw_pages(studio, pages, path)
        yield path, 0, len(pages)
        return
    start, size = 0, sizes[0]
    while start < len(pages):
        chunk = pages[start:start + size]
        written = path.with_name(f"{path.stem}-{start}{path.suffix}")
        draw_pages(studio, chunk, written)
        yield written, start, len(chunk)
        start += len(chunk)
        size = min(2 * size, sizes[1])


def of_several_sizes(fronts: list[Face], formed: str) -> "tuple[str, Mark] | None":
    """(message, mark) refusing a deck whose `fronts` are cards of several sizes (each item's layout picked by a
    template) for a format whose deck is one size of card (`formed`: what it makes of the deck), or None when
    they are all one size: each card was drawn at the first card's size, a 70 x 120 mm card among poker cards
    cut down and left white where it was not, exit 0."""
    from ..units import MM

    sizes = sorted({(round(f.trim[0] / MM, 2), round(f.trim[1] / MM, 2)) for f in fronts})
    if len(sizes) < 2:
        return None
    component = fronts[0].component
    said = ", ".join(f"{w:g} x {h:g} mm" for w, h in sizes)
    return (f"{component.name} left out: its cards are of {len(sizes)} sizes ({said}), and {formed} holds cards of "
            f"one size; give the cards of each size a component of their own", component.spec.mark_of("layout"))
