"""DriveThruCards: one PDF per deck, each card's front then its back, on pages of the product's trim plus 1/8 in
bleed, made PDF/X-1a:2003 in CMYK by Ghostscript from the faces PDF itself: text and line art stay vectors, black
text and lines print in black ink alone, and no colour has more than 240% total ink."""

import contextlib
import errno
import hashlib
import os
import subprocess
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import pikepdf

from .. import PDF_CREATOR
from ..errors import PnpError
from ..project import NO_FOLLOW, new_file, open_file, opened_pdf, program
from ..template import give_back_freed_memory
from .faces import FACES_PDF

if TYPE_CHECKING:
    from PIL.Image import Image
    from PIL.ImageCms import ImageCmsTransform

# a part of a PDF's object graph walked with .get(key, default) chains, where a default stands in for what the
# file leaves out: pikepdf.Object, or the {} given for it
PdfPart = Any

INK_LIMIT = 2.40  # total ink, as a fraction: 240%
ICC_PROFILES = ("/usr/share/color/icc/ghostscript/default_cmyk.icc",)  # Debian's ghostscript package

PDFX_DEF = """%!
[ /GTS_PDFXVersion (PDF/X-1a:2003) /Title {title} /Creator {creator} /Trapped /False /DOCINFO pdfmark
/ICCProfile ({icc}) def
[/_objdef {{icc_PDFX}} /type /stream /OBJ pdfmark
[{{icc_PDFX}} << /N 4 >> /PUT pdfmark
[{{icc_PDFX}} ICCProfile (r) file /PUT pdfmark
[/_objdef {{OutputIntent_PDFX}} /type /dict /OBJ pdfmark
[{{OutputIntent_PDFX}} << /Type /OutputIntent /S /GTS_PDFX /OutputCondition (Commercial printing)
  /Info (CMYK) /OutputConditionIdentifier (CGATS TR 001) /RegistryName (http://www.color.org)
  /DestOutputProfile {{icc_PDFX}} >> /PUT pdfmark
[{{Catalog}} <</OutputIntents [ {{OutputIntent_PDFX}} ]>> /PUT pdfmark
"""


class DriveThruError(PnpError):
    """Ghostscript is missing or failed: the message says which and what to do."""


def profile() -> str:
    icc = next((p for p in ICC_PROFILES if Path(p).is_file()), None)
    if program("gs") is None or icc is None:
        raise DriveThruError("the drivethru format needs Ghostscript and its CMYK profile (Debian: apt-get install "
                             "ghostscript)")
    return icc


def to_cmyk(icc: str) -> "ImageCmsTransform":
    """The colour transform from sRGB to the CMYK profile (made once per deck: making one takes a while)."""
    from PIL import ImageCms

    return ImageCms.buildTransform(ImageCms.createProfile("sRGB"), ImageCms.getOpenProfile(icc), "RGB", "CMYK",
                                   renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)


def cmyk(image: "Image", transform: "ImageCmsTransform") -> bytes:
    """RGB image -> CMYK bytes through the CMYK profile that the PDF names as its output intent (littleCMS,
    in Pillow); then every pixel's total ink is held to INK_LIMIT by thinning its cyan, magenta and yellow,
    and greys and black (r = g = b) print in black ink alone."""
    import numpy as np
    from PIL import ImageCms

    rgb = image.convert("RGB")
    ink = np.asarray(ImageCms.applyTransform(rgb, transform), dtype=np.float32) / 255.0
    k = ink[..., 3]
    colour = ink[..., :3].sum(axis=-1)
    room = np.clip(INK_LIMIT - k, 0.0, None)
    ink[..., :3] *= np.where(colour > room, room / np.maximum(colour, 1e-6), 1.0)[..., None]
    neutral = (np.ptp(np.asarray(rgb, dtype=np.int16), axis=-1) == 0)[..., None]
    grey = 1.0 - np.asarray(rgb.convert("L"), dtype=np.float32)[..., None] / 255.0
    ink = np.where(neutral, np.concatenate([np.zeros_like(grey)] * 3 + [grey], axis=-1), ink)
    planes = np.concatenate([np.floor(ink[..., :3] * 255.0), np.round(ink[..., 3:] * 255.0)], axis=-1)
    return np.clip(planes, 0, 255).astype(np.uint8).tobytes()


def _handed(file: BinaryIO) -> str:
    """The name Ghostscript opens a file pnp holds open by: its descriptor's (/dev/fd/N, passed to it). Named by
    its path, a file in the export's work folder (in the project, writable by whoever can write there) swapped
    for a link while Ghostscript ran had the deck's PDF written through it outside the project, or a file outside
    read into the export; a descriptor is the very file pnp made or checked. (Its bytes as by the path: a folder
    name that is not UTF-8 is not in it either.)"""
    return f"/dev/fd/{file.fileno()}"


def _scratch(path: Path) -> BinaryIO:
    """A new file at `path` (FileExistsError when anything is there, a link above all), open to be written and
    read back: what Ghostscript writes into it through _handed, or reads from it, is the file pnp made."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | NO_FOLLOW | getattr(os, "O_CLOEXEC", 0)
    return os.fdopen(os.open(path, flags, 0o666), "w+b")


# The pages one Ghostscript run converts at most: its PDF reader keeps about 1 MB for every page it has read
# until the run ends (a deck of 500 cards, 1,000 pages, took it to 1.17 GB); a longer deck is converted in runs
# of this many pages, joined after
PDFX_PAGES_PER_RUN = 200
# the most bytes of CMYK pictures a deck's page-composing holds in memory before saving its part (DeckJob.compose)
COMPOSE_PART_BYTES = 150_000_000


def pdfx(source: str | Path, target: str | Path, title: str) -> None:
    """Ghostscript writes `source` again as PDF/X-1a:2003 with a CMYK output intent: in runs of at most
    PDFX_PAGES_PER_RUN pages, the later runs' pages joined to the first's (whose catalog holds the intent)."""
    with opened_pdf(source) as pdf:
        pages = len(pdf.pages)
    if pages <= PDFX_PAGES_PER_RUN:
        _pdfx_run(source, target, title)
        return
    target = Path(target)
    parts = [target.with_name(f"{target.name}.{n}.pdf") for n in range(-(-pages // PDFX_PAGES_PER_RUN))]
    try:
        for n, part in enumerate(parts):
            first = n * PDFX_PAGES_PER_RUN + 1
            _pdfx_run(source, part, title, (first, min(pages, first + PDFX_PAGES_PER_RUN - 1)), target.name)
        _joined(parts, target)
    finally:
        for part in parts:
            part.unlink(missing_ok=True)


def _joined(parts: list[Path], target: Path) -> None:
    """`target`: the first of the PDFs `parts` (its catalog, the output intent and metadata), the pages of the
    others after its own. DriveThruError when one is not a whole PDF (Ghostscript exiting 0 on a full disk)."""
    try:
        with contextlib.ExitStack() as opened:
            whole, *rest = [opened.enter_context(opened_pdf(part)) for part in parts]
            for pdf in rest:
                whole.pages.extend(pdf.pages)
            with new_file(target) as stream:  # (never through a link put there since; see opened_pdf)
                whole.save(stream)
    except (pikepdf.PdfError, OSError) as e:
        if isinstance(e, OSError) and e.errno != errno.ENOENT:  # (gone: see open_file's ReadFault)
            raise
        raise DriveThruError(f"Ghostscript could not make {target.name} PDF/X-1a: it said it had, but what it "
                             "wrote is not a whole PDF") from None


def _pdfx_run(source: str | Path, target: str | Path, title: str, pages: tuple[int, int] | None = None,
              shown: str | None = None) -> None:
    """One Ghostscript run of pdfx: `pages` (first, last) of `source` only, when given; `shown`: the file
    its failure is said of."""
    icc = profile()
    definition = Path(target).with_suffix(".pdfx.ps")
    folder = Path(target).parent
    chosen = [f"-dFirstPage={pages[0]}", f"-dLastPage={pages[1]}"] if pages is not None else []
    try:
        with _scratch(definition) as ps, new_file(target) as out, open_file(source) as read:
            ps.write(PDFX_DEF.format(title=_text_string(title), creator=_text_string(PDF_CREATOR), icc=icc).encode("ascii"))
            ps.flush()
            ps.seek(0)  # (where a system's /dev/fd shares the descriptor's place, macOS's)
            # the profile the definition reads is the one file it may read besides its arguments (it ran
            # -dNOSAFER for that read: no file or command was denied to it)
            _ghostscript([f"--permit-file-read={icc}", "-dPDFX=true", "-sDEVICE=pdfwrite", *chosen,
                          "-dCompatibilityLevel=1.4", "-sColorConversionStrategy=CMYK",
                          "-sProcessColorModel=DeviceCMYK",
                          # keep the 300 dpi CMYK pixels exactly: no JPEG, no downsampling
                          "-dAutoFilterColorImages=false", "-sColorImageFilter=FlateEncode",
                          "-dDownsampleColorImages=false",
                          # nor compressed again: pdfwrite compresses a picture on every page that draws it
                          # before finding it a repeat (1,000 cards showing one 2000 x 2500 picture: 180 s
                          # of 190); pikepdf compresses each once as it saves the deck (_in_order, _joined)
                          "-dEncodeColorImages=false", "-dEncodeGrayImages=false",
                          f"-sOutputFile={_handed(out)}", _handed(ps),
                          _handed(read)], folder, f"make {shown or Path(target).name} PDF/X-1a", (out, ps, read))
    finally:
        definition.unlink(missing_ok=True)


def _text_string(text: str) -> str:
    """`text` as a PostScript string that pdfmark writes into the PDF as a text string: UTF-16BE after its byte
    order mark, in hex, so that no character of it is read as PostScript. Written as its UTF-8 bytes (the
    title 'Café' read 'CafÃ©' in the PDF), and those in the locale's encoding, the letters kept and others
    dropped (the title's parentheses and the like, which would have closed the string)."""
    return "<" + ("\ufeff" + text).encode("utf-16-be", "surrogatepass").hex().upper() + ">"


def _ghostscript(arguments: list[str], folder: Path, doing: str, handed: tuple[BinaryIO, ...] = ()) -> None:
    """Run Ghostscript in `folder` on pnp's own files: -dSAFER (only its arguments, and what they permit, are
    open to it), its temporary files in `folder`, and none of the user's GS_* variables (GS_OPTIONS=-dNOSAFER,
    or a GS_LIB of PostScript run at start-up, reached every run; the ink measurement also ran without -dSAFER,
    which only Ghostscript 9.50 and later assume, and /tmp, its temporary folder, stayed open to writes).
    DriveThruError, saying what it was to `doing`, when it fails or runs past five minutes. `handed`: the files
    its arguments name by descriptor (_handed), passed to it."""
    gs = program("gs")
    assert gs is not None  # profile() has found it
    try:
        run = subprocess.run([gs, "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", *arguments], capture_output=True,
                             text=True, errors="replace", timeout=300, cwd=folder, env=_environment(),
                             pass_fds=tuple(file.fileno() for file in handed))
    except subprocess.TimeoutExpired:
        raise DriveThruError(f"Ghostscript could not {doing}: it ran past five minutes") from None
    if run.returncode != 0:
        raise DriveThruError(f"Ghostscript could not {doing}: {(run.stderr or run.stdout).strip()[:300]}")


def _environment() -> dict[str, str]:
    """The environment Ghostscript runs in: the user's but for its GS_* variables, its temporary files in the
    folder it runs in (see _ghostscript)."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("GS_") and k not in ("TMPDIR", "TEMP", "TMP")}
    return {**kept, "TMPDIR": os.curdir, "TEMP": os.curdir, "TMP": os.curdir}


@lru_cache(maxsize=None)
def tools() -> dict[str, str]:
    """What makes a drivethru file besides pnp and its libraries (inputs.engine): Ghostscript's version and a
    digest of the CMYK profile ("absent" for what is not installed), recorded in export.json: an export made
    before either was upgraded was found up to date for ever, its files not what pnp now makes of the game."""
    gs = program("gs")
    icc = next((p for p in ICC_PROFILES if Path(p).is_file()), None)
    version = "absent"
    if gs is not None:
        try:
            run = subprocess.run([gs, "--version"], capture_output=True, text=True, errors="replace", timeout=30,
                                 cwd=os.sep, env=_environment())
            version = run.stdout.strip()[:40] if run.returncode == 0 else "unknown"
        except (OSError, subprocess.TimeoutExpired):
            version = "unknown"
    digest = "absent"
    if icc is not None:
        with contextlib.suppress(OSError):
            digest = hashlib.sha256(Path(icc).read_bytes()).hexdigest()[:16]
    return {"ghostscript": version, "cmyk_profile": digest}


def max_ink(path: Path) -> float:
    """The largest total ink anywhere in the PDF, in percent (max_ink_at)."""
    return max_ink_at(path)[0]


def max_ink_at(path: Path) -> tuple[float, int | None]:
    """The largest total ink anywhere in the PDF, in percent, and the page (from 0) it is first met on: read from
    the colours its pages set and the pixels of its images (exact, and quick: nothing is rendered), or, where a
    page holds something whose ink cannot be read that way (a shading, a pattern, a spot colour, overprint),
    measured on the pages as Ghostscript renders them at 72 dpi. (The page names the face at fault: the refusal
    named neither it nor its layout.)"""
    with opened_pdf(path) as pdf:
        try:
            inks = _Inks()
            for inks.page, page in enumerate(pdf.pages):
                inks.stream(page.obj, page.obj.get("/Resources"))
            return inks.worst * 100.0, inks.worst_page
        except _Unreadable:
            pass
    return _rendered_max_ink(path)


class _Unreadable(Exception):
    """Content whose ink cannot be read from the file's operators and images alone."""


# the colour operators and what draws with them; everything else in a content stream leaves the ink alone
_INK_OPERATORS = "k K g G rg RG cs CS sc SC scn SCN sh gs Do BI ID EI"  # BI ID EI: an inline image
_INKS_OF_SPACE = {"/DeviceCMYK": 4, "/DeviceGray": 1}  # colour space -> its components, whose ink is read


class _Inks:
    """The worst total ink (1.0 = 100%) of the colours set and the images drawn in one PDF's content streams."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.page = 0  # the page read now, from 0
        self.worst_page: int | None = None  # the page the worst ink was first met on
        self.seen: set[tuple[int, int]] = set()

    def saw(self, ink: float) -> None:
        if ink > self.worst:
            self.worst, self.worst_page = ink, self.page

    def colour(self, components: list[Any]) -> None:
        values = [float(v) for v in components]
        self.saw(sum(values) if len(values) == 4 else 1.0 - values[0])

    def stream(self, stream: pikepdf.Object, resources: PdfPart | None) -> None:
        if stream.objgen in self.seen:
            return
        self.seen.add(stream.objgen)
        resources = resources if resources is not None else pikepdf.Dictionary()
        if any(font.get("/Subtype") == "/Type3" for _, font in resources.get("/Font", {}).items()):
            raise _Unreadable  # its glyphs are content streams that may set colours of their own
        spaces: dict[str, int] = {}  # "fill" / "stroke" -> components of the colour space set by cs / CS
        for instruction in pikepdf.parse_content_stream(stream, _INK_OPERATORS):
            if isinstance(instruction, pikepdf.ContentStreamInlineImage):
                raise _Unreadable
            self.operator(str(instruction.operator), list(instruction.operands), resources, spaces)

    def operator(self, name: str, operands: list[Any], resources: PdfPart, spaces: dict[str, int]) -> None:
        if name in ("k", "K", "g", "G"):
            self.colour(operands)
        elif name in ("cs", "CS"):
            spaces[name] = self.components(operands[0], resources)
        elif name in ("sc", "SC", "scn", "SCN"):
            if spaces.get("cs" if name[0] == "s" else "CS", 1) != len(operands):  # DeviceGray until set
                raise _Unreadable  # a pattern, or components of a space that was not read
            self.colour(operands)
        elif name == "Do":
            self.xobject(resources.get("/XObject", {}).get(str(operands[0])))
        elif name == "gs":
            state = resources.get("/ExtGState", {}).get(str(operands[0])) or {}
            if state.get("/OP") or state.get("/op") or str(state.get("/BM", "/Normal")) not in ("/Normal",
                                                                                                   "/Compatible"):
                raise _Unreadable  # overprint and blending add inks of things drawn over each other
        else:  # rg, RG (not CMYK at all), sh (a shading)
            raise _Unreadable

    def components(self, space: PdfPart, resources: PdfPart) -> int:
        """How many components a colour space of the file has, if its ink can be read from them."""
        space = resources.get("/ColorSpace", {}).get(str(space), space)
        if isinstance(space, pikepdf.Array) and len(space) == 2 and space[0] == "/ICCBased":
            space = {4: "/DeviceCMYK", 1: "/DeviceGray"}.get(int(space[1].get("/N", 0)), "")
        if str(space) not in _INKS_OF_SPACE:
            raise _Unreadable
        return _INKS_OF_SPACE[str(space)]

    def xobject(self, xobject: PdfPart | None) -> None:
        if xobject is None:
            return
        if xobject.get("/Subtype") == "/Form":
            self.stream(xobject, xobject.get("/Resources"))
        elif not xobject.get("/ImageMask") and xobject.objgen not in self.seen:  # a mask paints the fill colour
            self.seen.add(xobject.objgen)
            self.image(xobject)

    def image(self, image: PdfPart) -> None:
        import numpy as np

        components = self.components(image.get("/ColorSpace"), {})
        if int(image.get("/BitsPerComponent", 8)) != 8 or "/Decode" in image:
            raise _Unreadable
        pixels = np.frombuffer(image.read_bytes(), dtype=np.uint8)
        pixels = pixels[:len(pixels) // components * components].reshape(-1, components)
        if len(pixels):
            total = pixels.sum(axis=1, dtype=np.uint16).max() if components == 4 else 255 - pixels.min()
            self.saw(float(total) / 255.0)


def _rendered_max_ink(path: Path) -> tuple[float, int | None]:
    """The largest total ink of any pixel of the PDF, as Ghostscript renders it (72 dpi), in percent, and the page
    (from 0) it is first met on."""
    import numpy as np
    from PIL import Image

    tiff = Path(path).with_suffix(".ink.tif")
    try:
        with _scratch(tiff) as image_file, open_file(path) as read:
            _ghostscript(["-sDEVICE=tiff32nc", "-r72", f"-sOutputFile={_handed(image_file)}", _handed(read)],
                         tiff.parent, f"measure the ink of {Path(path).name}", (image_file, read))
            worst, worst_page = 0.0, None
            try:
                image_file.seek(0)  # (read back through the descriptor it was written into, not by name)
                with Image.open(image_file, formats=("TIFF",)) as image:  # (what Ghostscript was asked to write)
                    for n in range(getattr(image, "n_frames", 1)):
                        image.seek(n)
                        planes = np.asarray(image.convert("CMYK"), dtype=np.float32)
                        ink = float(planes.sum(axis=-1).max()) / 255.0 * 100.0
                        if ink > worst:
                            worst, worst_page = ink, n
            except (OSError, ValueError, EOFError):
                # Ghostscript that exits 0 yet leaves no image, or junk (a disk that filled up) was 'a bug in
                # pnp' (PIL's UnidentifiedImageError) or a folder said missing for a file to be written in
                raise DriveThruError(f"Ghostscript could not measure the ink of {Path(path).name}: it said it had, "
                                     "but what it wrote is not a whole TIFF image") from None
        return worst, worst_page
    finally:
        tiff.unlink(missing_ok=True)


@dataclass(frozen=True)
class DeckJob:
    """One deck's PDF: `pages` of the faces PDF in print order (None: a plain white back), each centred at its
    own size on a page of `trim` (points) plus `bleed` all round; where the card's art (`art_bleed` beyond its
    trim) stops short of the page edge, the card enlarged underneath fills the rest, so no white shows at a cut."""

    name: str  # the PDF's file name
    title: str
    pages: list[int | None]
    trim: tuple[float, ...]  # (w, h)
    bleed: float
    art_bleed: float

    def __call__(self, out: Path) -> None:
        raws: list[Path] = []
        distincts: list[Path] = []
        distinct = out / f".{self.name}.distinct.pdf"
        try:
            order = self.compose(out / FACES_PDF, out / f".{self.name}.raw", raws)
            for raw in raws:
                distincts.append(raw.with_suffix(".x.pdf"))
                pdfx(raw, distincts[-1], self.title)
                raw.unlink()  # (its pictures are on disk twice until then: one part's worth at a time)
            if len(distincts) > 1:
                _joined(distincts, distinct)
            _in_order(distinct if len(distincts) > 1 else distincts[0], order, out / self.name)
        finally:
            for part in (*raws, *distincts, distinct):
                part.unlink(missing_ok=True)

    def compose(self, faces: Path, stem: Path, parts: list[Path]) -> list[int]:
        """Write each distinct page of the deck once (a deck's backs are mostly one drawing, and Ghostscript
        takes as long over a repeated page as over a new one) into PDFs <stem>.<n>.pdf, appended to `parts` as
        each is saved: a new one once a part's pictures, converted to CMYK and held in memory until it is saved,
        reach COMPOSE_PART_BYTES (1,000 full-art cards held them all at once: 600 MB, twice that at 2,000).
        Returns, for each page of the deck in order, the number of its page in the parts taken in order."""
        with opened_pdf(faces) as source:
            pdf = pikepdf.new()
            forms: dict[int, pikepdf.Object] = {}
            seen: set[tuple[int, int]] = set()
            written: dict[bytes | None, int] = {}
            order: list[int] = []
            held = before = 0  # bytes of pictures the open part holds; pages of the parts saved
            for index in self.pages:
                drawing = None if index is None else _drawing(source.pages[index])
                if drawing not in written:
                    if held >= COMPOSE_PART_BYTES:
                        before += self._saved(pdf, stem, parts)
                        pdf, forms, seen, held = pikepdf.new(), {}, set(), 0
                    written[drawing] = before + len(pdf.pages)
                    held += self._add_page(pdf, source, index, forms, seen)
                order.append(written[drawing])
            self._saved(pdf, stem, parts)
        return order

    @staticmethod
    def _saved(pdf: pikepdf.Pdf, stem: Path, parts: list[Path]) -> int:
        """Save `pdf` as the next part; its page count."""
        parts.append(stem.with_name(f"{stem.name}.{len(parts)}.pdf"))
        count = len(pdf.pages)
        with new_file(parts[-1]) as stream:  # (never through a link put there since)
            pdf.save(stream)
        pdf.close()
        give_back_freed_memory()  # (else the next part's pictures came on top of this one's freed buffers)
        return count

    def _add_page(self, pdf: pikepdf.Pdf, source: pikepdf.Pdf, index: int | None, forms: dict[int, pikepdf.Object],
                  seen: set[tuple[int, int]]) -> int:
        """Add the page of `index` (None: a plain white one); the bytes of the pictures it converted."""
        width, height = self.trim[0] + 2 * self.bleed, self.trim[1] + 2 * self.bleed
        page = pdf.add_blank_page(page_size=(width, height))
        page.TrimBox = [self.bleed, self.bleed, width - self.bleed, height - self.bleed]
        page.BleedBox = [0, 0, width, height]
        if index is None:
            return 0
        converted = 0
        if index not in forms:
            forms[index] = pdf.copy_foreign(source.pages[index].as_form_xobject())
            converted = _in_cmyk(forms[index], seen)
        box = [float(v) for v in source.pages[index].MediaBox]
        page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Card=forms[index]))
        page.Contents = pdf.make_stream(self._placed(box[2] - box[0], box[3] - box[1], width, height))
        return converted

    def _placed(self, card_w: float, card_h: float, width: float, height: float) -> bytes:
        """The content stream drawing the card centred, over an enlarged copy when its art falls short: the copy
        clipped to the ring between the card and the page edge (even-odd), as the card shows through wherever it
        draws nothing or something see-through (a card without a background, a transparent picture) and the
        copy beneath it printed there too: every title and frame doubled, a hair larger, in the PDF alone."""
        dx, dy = (width - card_w) / 2, (height - card_h) / 2
        ops = []
        if dx > 0.01 or dy > 0.01:
            scale = max(width / card_w, height / card_h) * 1.002
            ops.append(f"q 0 0 {width:.4f} {height:.4f} re {dx:.4f} {dy:.4f} {card_w:.4f} {card_h:.4f} re W* n "
                       f"{scale:.5f} 0 0 {scale:.5f} {(width - scale * card_w) / 2:.4f} "
                       f"{(height - scale * card_h) / 2:.4f} cm /Card Do Q")
        ops.append(f"q 1 0 0 1 {dx:.4f} {dy:.4f} cm /Card Do Q")
        return "\n".join(ops).encode()


def _drawing(page: pikepdf.Page) -> bytes:
    """What a faces page draws, as bytes equal for pages drawn alike: its box, its content and its resources
    (the fonts and forms it uses, by object number)."""
    import hashlib

    contents = page.obj.get("/Contents")
    streams = contents if isinstance(contents, pikepdf.Array) else [contents] if contents is not None else []
    digest = hashlib.sha256(page.obj.MediaBox.unparse())
    for stream in streams:
        digest.update(stream.read_raw_bytes())
    digest.update(page.obj.get("/Resources", pikepdf.Dictionary()).unparse())
    return digest.digest()


# the date a deck's PDF says it was made and changed: PDF/X-1a must say both, and Ghostscript wrote the moment it
# ran, and an /ID made from it, so that no two exports of the same game were the same bytes. The kit's PDFs
# (ReportLab's invariant mode) say the same date
MADE_ON = "D:20000101000000+00'00'"


def _in_order(distinct: Path, order: list[int], target: Path) -> None:
    """The deck's PDF from its distinct pages: page n of the deck is page order[n] of `distinct`, repeated
    pages sharing their drawing (the file holds it once); dated MADE_ON, its /ID made from its title and content."""
    if not distinct.is_file():  # (its open was said to be a folder missing for a file to be written in)
        raise DriveThruError(f"Ghostscript could not make {target.name} PDF/X-1a: it said it had, but wrote nothing")
    try:
        with opened_pdf(distinct) as pdf:
            _in_order_of(pdf, order, target)
    except pikepdf.PdfError:
        # Ghostscript that exits 0 yet leaves no whole PDF (a disk that filled up, a build of it that fails so)
        # was 'a bug in pnp', in qpdf's words about the damaged file
        raise DriveThruError(f"Ghostscript could not make {target.name} PDF/X-1a: it said it had, but what it "
                             "wrote is not a whole PDF") from None


def _in_order_of(pdf: pikepdf.Pdf, order: list[int], target: Path) -> None:
    """_in_order of the distinct pages' Pdf, open. pikepdf.PdfError when it is damaged: qpdf reads a file
    lazily, so a part found damaged is found only as the pages are copied or saved."""
    if len(pdf.pages) != len(set(order)):
        # (a recovered file of fewer pages: pages[n] would be an IndexError)
        raise pikepdf.PdfError(f"{len(pdf.pages)} pages where {len(set(order))} were given")
    if order != list(range(len(order))):
        count = len(pdf.pages)
        for n in order:
            pdf.pages.append(pdf.pages[n])
        del pdf.pages[:count]
    pdf.docinfo["/CreationDate"] = pdf.docinfo["/ModDate"] = pikepdf.String(MADE_ON)
    # qpdf keeps the first half of the /ID the file has (Ghostscript's, of the moment) and makes the second
    # of the content: the first is made of what the file is, its title
    first = pikepdf.String(hashlib.md5(bytes(pdf.docinfo.get("/Title", pikepdf.String(""))),
                                       usedforsecurity=False).digest())
    pdf.trailer.ID = pikepdf.Array([first, first])
    with new_file(target) as stream:  # (never through a link put there since; see opened_pdf)
        pdf.save(stream, deterministic_id=True)


_TRANSFORM: list["ImageCmsTransform"] = []  # the sRGB -> CMYK transform, made once per process (making one takes a while)
_TRANSFORM_LOCK = threading.Lock()


def _transform() -> "ImageCmsTransform":
    with _TRANSFORM_LOCK:
        if not _TRANSFORM:
            _TRANSFORM.append(to_cmyk(profile()))
    return _TRANSFORM[0]


_COLOURS: dict[tuple[int, ...], list[float]] = {}  # (r, g, b) 0-255 -> [c, m, y, k] 0-1: a game's few hundred colours, converted once per process
_TO_CMYK = {pikepdf.Operator("rg"): pikepdf.Operator("k"), pikepdf.Operator("RG"): pikepdf.Operator("K")}


def _colour(rgb: PdfPart) -> list[float]:
    """One RGB colour (0-1 each) as CMYK ink fractions, by the same rules as the images' pixels (cmyk)."""
    from PIL import Image

    key = tuple(round(float(v) * 255) for v in rgb)
    if key not in _COLOURS:
        planes = cmyk(Image.new("RGB", (1, 1), key), _transform())
        _COLOURS[key] = [round(b / 255, 4) for b in planes]
    return _COLOURS[key]


def _in_cmyk(form: PdfPart, seen: set[tuple[int, int]]) -> int:
    """Rewrite a form (and the forms and images it draws) in DeviceCMYK, converted by pnp rather than by
    Ghostscript's own profile, which prints black text in all four inks (fringing wherever the plates are a hair
    out of register) and dark colours above the ink limit: RGB colours as cmyk() makes them, greys and black in
    black ink alone; RGB images likewise, pixel by pixel. Text and paths stay as they are drawn."""
    if form.objgen in seen:
        return 0
    seen.add(form.objgen)
    converted = 0  # the bytes of the pictures converted, returned
    instructions = pikepdf.parse_content_stream(form)
    for n, instruction in enumerate(instructions):  # the parsed instructions are written back as they are but
        # for the colours: unparsing them is twice as fast as unparsing (operands, operator) pairs
        if instruction.operator in _TO_CMYK and len(instruction.operands) == 3:
            instructions[n] = pikepdf.ContentStreamInstruction(_colour(instruction.operands),
                                                               _TO_CMYK[instruction.operator])
    form.write(pikepdf.unparse_content_stream(instructions))
    for _, inner in (form.get("/Resources", {}).get("/XObject", {}) or {}).items():  # (pikepdf 8 has no .values())
        if inner.get("/Subtype") == "/Form":
            converted += _in_cmyk(inner, seen)
        elif inner.get("/Subtype") == "/Image" and inner.get("/ColorSpace") == "/DeviceRGB" and inner.objgen not in seen:
            seen.add(inner.objgen)
            converted += _image_in_cmyk(inner)
    return converted


def _image_in_cmyk(image: PdfPart) -> int:
    """Convert one RGB image to CMYK in place; the bytes of its new stream."""
    import zlib

    from pikepdf import PdfImage

    pixels = PdfImage(image).as_pil_image().convert("RGB")
    data = zlib.compress(cmyk(pixels, _transform()), 6)
    image.write(data, filter=pikepdf.Name.FlateDecode)
    image.ColorSpace = pikepdf.Name.DeviceCMYK
    for key in ("/DecodeParms", "/Decode"):
        if key in image:
            del image[key]
    return len(data)
