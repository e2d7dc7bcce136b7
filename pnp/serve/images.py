"""The preview's images: faces drawn by export's faces PDF and rasterised by export's raster module (pnp's own
drawing through pypdfium2), kept in memory under a digest of what they show, so an edit re-renders only the
faces whose drawing changed. Also the rulebook, drawn whole into a PDF whose pages are rendered on request."""

import hashlib
import io
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import BudgetSpent, PnpError
from ..export.faces import draw_faces
from ..export.raster import Shot, page_pixels, png_bytes, render_pixels
from ..printables import marked_key
from ..products import KINDS
from ..template import give_back_freed_memory

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    import numpy as np

    from ..export.faces import Face
    from ..printables import Studio

DPI = 200  # the detail view's images, drawn when the page asks for one: a poker card is 496 x 693 px
MAX_SIDE = 1600  # pixels of a face's longest side (a board at 200 dpi would be 5,000)
GALLERY_PX = (640, 360)  # the gallery's images fit in this: twice the page's box for a card (320 x 180 CSS px),
# a 2x screen's pixels; a poker card is 257 x 360 px, a quarter of the pixels to rasterise and encode at an edit
MAX_DETAILS = 256  # detail images kept at once (about 50 KB each for a poker card)
DETAIL = "detail-"  # the store's key of a face's detail image: this, then the face's digest
PAGE_DPI = 110  # rulebook pages: an A4 page is 909 x 1286 px
PDFIUM = threading.Lock()  # pdfium is not thread-safe: every use of it holds this
CHUNKS = (256, 256)  # faces drawn into one PDF before it goes to the rasterising threads (the first, then each
# next twice as many up to the second): a layout edit's 140 fronts in one PDF, its fonts and icons embedded and
# opened once, cost less CPU and wall time than PDFs of 8, 16, 32, 64 and 20 rasterised while the next was drawn
# (the threads' work slowed the drawing, which holds the GIL, as much as it overlapped it)
MAX_OPEN_PDFS = 2  # chunks' PDFs open at once: one rasterised while the next is drawn


@dataclass(frozen=True)
class Image:
    """One rendered picture: PNG bytes, its pixel size and the text drawn on it (from the PDF, for alt text)."""

    png: bytes
    size: tuple[int, int]
    text: str


class ImageStore:
    """digest -> Image, of one game's faces (DETAIL + digest: a face's detail image) and its rulebook's pages
    ('book-...'); `keep` drops what no state refers to any more."""

    def __init__(self) -> None:
        self._images: dict[str, Image] = {}
        self._details: OrderedDict[str, None] = OrderedDict()  # detail images' keys, the least recently asked first
        self._lock = threading.Lock()

    def get(self, digest: str) -> "Image | None":
        with self._lock:
            if digest in self._details:
                self._details.move_to_end(digest)
            return self._images.get(digest)

    def put(self, digest: str, image: "Image") -> None:
        """Keep an image; past MAX_DETAILS detail images, the one least recently asked for is forgotten (it is
        drawn again if asked for: every face of a 10,000-card game clicked through held about 0.5 GB)."""
        with self._lock:
            self._images[digest] = image
            if digest.startswith(DETAIL):
                self._details[digest] = None
                self._details.move_to_end(digest)
                while len(self._details) > MAX_DETAILS:
                    del self._images[self._details.popitem(last=False)[0]]

    def __contains__(self, digest: object) -> bool:
        with self._lock:
            return digest in self._images

    def keep(self, digests: "Collection[str]", book: bool = False) -> None:
        """Forget the faces, and their detail images, (or with `book`, the rulebook pages) whose digest is not in
        `digests`."""
        with self._lock:
            for d in [d for d in self._images
                      if d.startswith("book-") == book and d.removeprefix(DETAIL) not in digests]:
                del self._images[d]
                self._details.pop(d, None)


def assets_digest(files: "Mapping[str, str]", icons: "Mapping[str, Any]") -> str:
    """What a face's primitives do not say but its picture shows: the files of fonts, icons and images, as the
    check of a game knows them (`files`: printables.file_digests, which the refresh's printables.Memo took when
    its check started), and which file each icon name draws (`icons`: game.yaml's aliases; a primitive says
    `star`, the page shows the file it names). An edited icon, or an alias pointed at another, changes every
    face's digest."""
    digest = hashlib.sha256()
    for path, status in files.items():
        if not path.endswith((".yaml", ".j2", ".md")):
            digest.update(f"{path}\0{status}\0".encode("utf-8", "surrogateescape"))  # a name not in UTF-8 (os.fsdecode)
    digest.update(repr(sorted((str(name), repr(file)) for name, file in icons.items())).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:16]


def face_digest(studio: "Studio", face: "Face", assets: str) -> str:
    """The cache key of a face's image: what it shows (studio.look), its size and the assets. Raises
    what resolving the face raises (a layout error)."""
    look = studio.look(face.printable)  # not its data's digest: the picture is what it shows
    sizes = f"{DPI}|{MAX_SIDE}|{GALLERY_PX}"
    marks = studio.marks.get(marked_key(face.printable)) if face.printable.side != "picture" else None
    drawn = f"{look}|{face.trim}|{assets}|{sizes}" + (f"|{marks}" if marks else "")  # (drawn over it: Studio.draw)
    return hashlib.sha256(drawn.encode()).hexdigest()[:32]


def _scale(trim_pt: tuple[float, ...], detail: bool) -> float:
    """Pixels per point for a face: DPI, less for a face whose longest side would pass MAX_SIDE; in the gallery
    (not `detail`), less again for a face larger than GALLERY_PX."""
    scale = min(DPI / 72, MAX_SIDE / max(trim_pt[0], trim_pt[1], 1))
    if detail:
        return scale
    return min(scale, GALLERY_PX[0] / max(trim_pt[0], 1), GALLERY_PX[1] / max(trim_pt[1], 1))


def _shot(page: int, trim_pt: tuple[float, ...], detail: bool) -> Shot:
    scale = _scale(trim_pt, detail)
    px = (max(1, round(trim_pt[0] * scale)), max(1, round(trim_pt[1] * scale)))
    return Shot(page, "", px, (0, 0, 0, 0), 0.0, tuple(trim_pt), scale * 72)


def _encoded(pixels: "np.ndarray", text: str, dpi: float) -> Image:
    """Rendered pixels as the page's PNG, by export's encoder (half the time of Pillow's: a layout edit
    encodes every face again), rows unfiltered (for images of a screen's size, in less time)."""
    return Image(png_bytes(pixels, dpi, up=False), (pixels.shape[1], pixels.shape[0]), text)


def _page_text(page: Any) -> str:
    """The text drawn on an open page, as pdfium reads it back (what the picture really shows)."""
    textpage = page.get_textpage()
    try:
        return " ".join(textpage.get_text_range().split())
    finally:
        textpage.close()


def rasterise(document: Any, shots: dict) -> dict:
    """{index: Image} of each shot (index -> Shot) from an open pdfium document. Each page is loaded once for
    its pixels and its text, under PDFIUM; the encoding is done outside it, so that another thread may render
    meanwhile (zlib and numpy let go of the GIL)."""
    images = {}
    for index, shot in shots.items():
        with PDFIUM:
            page = document[shot.page]
            try:
                pixels, text = page_pixels(page, shot), _page_text(page)
            finally:
                page.close()
        images[index] = _encoded(pixels, text, shot.dpi)
    return images


def render_faces(studio: "Studio", faces: list, digests: list, detail: bool = False) -> tuple:
    """Draw and rasterise `faces` (export Faces, each with its digest in `digests`, index-aligned), for the
    gallery or, with `detail`, for the detail view (a larger scale, see _scale). Returns
    ({digest: Image}, {face index: (error message, its mark or None)}): a face that fails to draw is reported,
    and the others are rendered all the same. The faces are drawn a chunk at a time (CHUNKS), each into a PDF
    of its own that two threads rasterise and encode while the next is drawn: ReportLab's drawing holds the GIL,
    pdfium and zlib do not, so the two cores share a layout edit's work (the first faces, at the top of the
    page, are done first)."""
    from concurrent.futures import ThreadPoolExecutor

    images: dict[str, Image] = {}
    errors: dict[int, tuple] = {}
    if not faces:
        return images, errors
    documents: deque[tuple[Any, list]] = deque()  # (an open PDF, the futures rasterising it), oldest first
    with ThreadPoolExecutor(2) as pool:  # (the PDFs in memory: no folder made and removed at each edit)
        try:
            start, size = 0, CHUNKS[0]
            while start < len(faces):
                chunk = list(range(start, min(start + size, len(faces))))
                for pdf, drawn in _drawn(studio, faces, chunk, errors):
                    shots = {digests[n]: _shot(faces[n].page, faces[n].trim, detail) for n in drawn}
                    document = _opened(pdf)
                    # both threads on one document: one renders while the other encodes
                    documents.append((document, [pool.submit(rasterise, document, half) for half in _halves(shots)]))
                    while len(documents) > MAX_OPEN_PDFS:  # every chunk's PDF held open to the end: the gallery
                        _finished(documents.popleft(), images)  # of 2,000 full-art cards held them all
                start, size = chunk[-1] + 1, min(2 * size, CHUNKS[1])
            while documents:
                _finished(documents.popleft(), images)
        finally:
            for _, futures in documents:
                for future in futures:
                    future.cancel()
            pool.shutdown(wait=True)
            with PDFIUM:
                for document, _ in documents:
                    document.close()
    if len(faces) > CHUNKS[0]:  # the PDFs' and pixels' freed buffers, else resident after the refresh (229 MB of
        give_back_freed_memory()  # a 1,000-card full-art game's gallery, 122 MB once handed back; not at a click)
    return images, errors


def _finished(opened: tuple[Any, list], images: dict[str, Image]) -> None:
    """Wait for the rasterising of one open PDF, take its images and close it."""
    document, futures = opened
    try:
        for future in futures:
            images.update(future.result())
    finally:
        for future in futures:
            future.cancel()
        with PDFIUM:
            document.close()


def _halves(shots: dict) -> list[dict]:
    """The shots split in two, alternately (pages of like cost on both sides)."""
    items = list(shots.items())
    return [dict(half) for half in (items[0::2], items[1::2]) if half]


def _drawn(studio: "Studio", faces: list, chunk: list, errors: dict) -> list:
    """Draw the faces of `chunk` (indices into `faces`) into PDFs; returns [(its bytes, [face index drawn on
    it])]. All in one PDF when they draw; when one fails, each alone, its error in `errors`."""
    out = io.BytesIO()
    try:
        draw_faces(studio, [faces[n] for n in chunk], out)
        return [(out.getvalue(), chunk)]
    except BudgetSpent:  # the game's drawing is over its budget: no face is drawn one by one
        raise
    except Exception:  # noqa: BLE001 - one face's failure must not cost the others: draw them one by one
        pass
    drawn = []
    for n in chunk:
        alone = io.BytesIO()
        try:
            draw_faces(studio, [faces[n]], alone)
            drawn.append((alone.getvalue(), [n]))
        except PnpError as e:  # a refusal: its own words at its own place, as the command line says it
            errors[n] = (e.message, e.mark)
        except Exception as e:  # noqa: BLE001 - shown on the page beside the card, the server goes on
            errors[n] = (f"drawing failed: {type(e).__name__}: {e}", None)
    return drawn


def _opened(pdf: bytes) -> Any:
    """The faces PDF `pdf` opened by pdfium (closed by the caller, holding PDFIUM)."""
    import pypdfium2 as pdfium

    with PDFIUM:
        return pdfium.PdfDocument(pdf)


def rulebook_pdf(studio: "Studio") -> bytes | None:
    """The rulebook drawn as the build draws it, as PDF bytes (None when the game has none)."""
    from ..draw.canvas import new_canvas

    components = [c for c in studio.game.components if c.kind == "rulebook"]
    if not components:
        return None
    out = io.BytesIO()
    canvas = new_canvas(out, studio.fonts.name("Body"), studio.paper)
    for component in components:
        KINDS["rulebook"].draw(canvas, component, studio)
    canvas.save()
    return out.getvalue()


class Book:
    """A rulebook PDF whose pages are rasterised when first asked for."""

    def __init__(self, pdf: bytes) -> None:
        import pypdfium2 as pdfium

        self.digest, self.closed = hashlib.sha256(pdf).hexdigest()[:32], False
        with PDFIUM:
            self.document: pdfium.PdfDocument = pdfium.PdfDocument(pdf)
            self.sizes: list[tuple[float, float]] = [self.document[n].get_size() for n in range(len(self.document))]

    def close(self) -> None:
        with PDFIUM:
            self.closed = True
            self.document.close()

    def page(self, n: int, store: ImageStore) -> "Image | None":
        """Page n (from 0) as an Image, from `store` or rendered now; None once a newer rulebook replaced it."""
        key = f"book-{self.digest}-{n}"
        found = store.get(key)
        if found is None:
            scale = PAGE_DPI / 72
            w, h = self.sizes[n]
            shot = Shot(n, "", (round(w * scale), round(h * scale)), (0, 0, 0, 0), 0.0, (w, h), PAGE_DPI)
            with PDFIUM:
                if self.closed:
                    return None
                pixels = render_pixels(self.document, shot)
            found = _encoded(pixels, "", PAGE_DPI)
            store.put(key, found)
        return found
