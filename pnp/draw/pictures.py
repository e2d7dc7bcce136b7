"""Pictures drawn at the resolution their printed size needs. ReportLab embeds every pixel it is given: a
40-million-pixel picture on a card cost seconds and hundreds of MB per build, and as much in the PDF. A
picture that has more pixels than PRINT_DPI needs where it is drawn is resampled to that, once per picture and
size, and stored once per PDF as a form; any other is drawn from its file as it is (its bytes unchanged), but for
one of more than 8 bits a sample, which ReportLab would clip: made 8-bit at its own size.

Decoding is the costly part (a second per 30 million pixels): validation decodes each picture once, and
resamples it there for the box it is drawn in, so that drawing finds it made; pictures already decoded in
this process (the same bytes) are not decoded again. Every decoding is paid for from the game's drawing
budget (layout.budget: pixels), before it is done."""

import contextlib
import hashlib
import io
import itertools
import math
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import NamedTuple

from PIL import Image, ImageFile
from reportlab.pdfgen.canvas import Canvas

from ..errors import BudgetSpent, DataError
from ..model.images import (CHANGED, DEEP_MODES, GREY_MODES, IMAGE_FORMATS, JPEG_KINDS, MAX_IMAGE_BYTES, TURNED,
                            checked_picture, colour_keyed, opened_image, orientation, srgb_profile, srgb_transform)
from ..project import Project, read_project_file
from ..report import Mark, named
from ..template import give_back_freed_memory

# Print shops ask for 300 dpi and home printers print at 600: twice what a shop needs keeps fine lines and
# small lettering in the art sharp on either, at a quarter of the pixels of a 1200 dpi scan.
PRINT_DPI = 600
JPEG_QUALITY = 95  # a photograph resampled stays a JPEG, kept this close to its original (no chroma halving)
KEPT = 1024  # resampled pictures kept encoded in memory, for the next PDF that draws them ...
KEPT_BYTES = 192 << 20  # ... and at most this many bytes of them (a full-art poker card is 1 to 6 MB)
VERIFIED = 4096  # digests of pictures decoded whole in this process, most recent last
# The most pixels one picture is embedded with, resampled to them past that: ReportLab decodes a picture it embeds
# whole and keeps about 26 bytes a pixel while it compresses it (the decoded picture, its colours and alpha apart,
# their compressed and ASCII85 copies): a 36-million-pixel PNG drawn 254 mm wide, as it is at 600 dpi, took a
# build 1.07 GB. 16 million are a 254 mm square at 400 dpi, past the 300 print shops ask for
MAX_EMBEDDED_PIXELS = 16_000_000
# The bytes of pictures one PDF may hold: ReportLab holds every picture's stream until the PDF is written (60
# full-art cards of incompressible 9 MB pictures peaked at 993 MB). Past it, the picture that crosses it is refused
# at its element. A JPEG is embedded as its own bytes, a fraction of those of the same photograph as PNG
MAX_PDF_PICTURE_BYTES = 400 << 20
# ReportLab's bytes a pixel while it embeds a decoded picture (as above), counted with those the PDF holds before
# a picture is embedded: past MAX_EMBEDDING_PEAK_BYTES it is refused, before the memory is taken. Six boards of
# 6000 x 6000 noise PNGs (16 million pixels each once resampled) peaked at 1.05 GB, the sixth embedded past
# 280 MB of the others; a 60-card full-art deck (3 million pixels a card) stays under it up to the 400 MB above
EMBEDDING_BYTES_PER_PIXEL = 26
MAX_EMBEDDING_PEAK_BYTES = 560 << 20
# The bytes of pictures the PDFs a game's all-in-one PDF is made of may hold together (share_kit_pictures): qpdf,
# through pikepdf, copies every stream of its parts into memory before it writes the whole. Four boards of noise
# PNGs and 46 token pictures (628 MB of parts, each under the cap above) took a build to 1.28 GB there
MAX_KIT_PICTURE_BYTES = 400 << 20


def printed_pixels(size: tuple[int, int], width: float, height: float) -> tuple[int, int] | None:
    """The (width, height) in pixels that a picture of `size` pixels needs, fitted (aspect kept) in a box of
    `width` x `height` points, at PRINT_DPI; None when it has no more than that (drawn as it is)."""
    pixels_w, pixels_h = size
    drawn = min(width / pixels_w, height / pixels_h)  # points per pixel, fitted in the box
    ratio = max(drawn, 0.0) / 72 * PRINT_DPI  # pixels needed per pixel there is
    if not ratio < 1:
        return None
    return max(1, math.ceil(pixels_w * ratio)), max(1, math.ceil(pixels_h * ratio))


def drawn_pixels(size: tuple[int, int], as_is: bool, width: float, height: float) -> tuple[int, int] | None:
    """printed_pixels, or the picture's own size for a picture that cannot be embedded as it is (turned by its
    EXIF orientation, or of samples of more than 8 bits, which ReportLab would clip): it is redrawn upright and
    8-bit by resampling (_encoded_from); either made at most MAX_EMBEDDED_PIXELS, its aspect kept."""
    needed = printed_pixels(size, width, height)
    drawn = size if needed is None and not as_is else needed
    pixels_w, pixels_h = size if drawn is None else drawn
    if pixels_w * pixels_h <= MAX_EMBEDDED_PIXELS:
        return drawn
    scale = math.sqrt(MAX_EMBEDDED_PIXELS / (pixels_w * pixels_h))
    return max(1, math.floor(pixels_w * scale)), max(1, math.floor(pixels_h * scale))


def verified_picture(project: Project, path: Path, mark: Mark | None, shown: str, box: tuple[float, float],
                     spend: Callable[[str, int], None]) -> tuple[int, int]:
    """The (width, height) of the picture at `path`, drawn in a `box` (width, height in points), after
    decoding every pixel of it (a truncated file fails here, not half-way through a build) unless this process
    already did for the same bytes; a picture drawn resampled is resampled now, for the drawing. DataError at
    `mark` for a picture that cannot be used; `spend(work, pixels)` is called before the work is done."""
    real, source, size, as_is = _read_and_checked(project, path, mark, shown)
    digest = hashlib.sha256(source).hexdigest()
    needed = drawn_pixels(size, as_is, *box)
    work = digest if needed is None else _key(digest, needed)
    spend(work, size[0] * size[1] * (1 if needed is None else 2))  # decoded (and resampled), even if it was
    if needed is None:  # ...and decoded by ReportLab to embed it as it is, as painting it will (Painter._image)
        spend(f"embedded|{real}", size[0] * size[1])
    if digest in _verified and (needed is None or work in _kept):  # before: a game's verdict is its own
        _verified.move_to_end(digest)
        return size
    with opened_image(io.BytesIO(source), shown, mark) as image:
        if needed is None:
            image.load()
        elif _DRAWN_AFTER.get():
            _keep(_key(digest, needed), _encoded_from(image, needed))
        else:  # resampled as drawing would, its failures said the same, but small and not encoded: nothing draws
            _resampled_image(image, _checking_size(needed))  # it
    _verified[digest] = size
    while len(_verified) > VERIFIED:
        _verified.popitem(last=False)
    return size


def _read_and_checked(project: Project, path: Path, mark: Mark | None,
                      shown: str) -> tuple[Path, bytes, tuple[int, int], bool]:
    """(the file after following links, its bytes, its size as it is seen, whether it can be embedded as it is)
    of the picture at `path`, checked (checked_picture) from the bytes read: read once, the bytes checked are the
    bytes used (a file swapped between a check and a second reading was used unchecked)."""
    real = project.inside(path, mark, "image", shown=shown, built=False)
    source = read_project_file(real, MAX_IMAGE_BYTES, mark, "image", shown, beneath=project.root)
    size, as_is = checked_picture(io.BytesIO(source), mark, shown)
    return real, source, size, as_is


class CheckedPicture(NamedTuple):
    """A picture file as a PDF draws it: the file after following links, its size in pixels as it is seen,
    whether it can be embedded as it is, the digest of the bytes checked, and the project's folder it was found
    in (Project.inside), beneath which it is read again as it was checked (open_project_file)."""

    real: Path
    size: tuple[int, int]
    as_is: bool
    digest: str
    root: Path


def checked_source(project: Project, path: Path, mark: Mark | None,
                   shown: str) -> tuple[CheckedPicture, bytes]:
    """(the picture at `path` checked, as a PDF draws it (see CheckedPicture), the bytes checked); DataError at
    `mark` as checked_picture refuses it. The bytes are given to the picture's first drawing (draw_as_is,
    draw_resampled), which read and digested its file a second time."""
    real, source, size, as_is = _read_and_checked(project, path, mark, shown)
    return CheckedPicture(real, size, as_is, hashlib.sha256(source).hexdigest(), project.root), source


def _checked_bytes(picture: CheckedPicture, mark: Mark | None, shown: str, source: bytes | None = None) -> bytes:
    """The bytes of a picture checked before: `source`, the bytes just checked (checked_source), else its file
    read again to be drawn, DataError at `mark` unless they are the bytes checked (the file was saved over
    since)."""
    if source is not None:
        return source
    source = read_project_file(picture.real, MAX_IMAGE_BYTES, mark, "image", shown, beneath=picture.root)
    if hashlib.sha256(source).hexdigest() != picture.digest:
        raise DataError(f"image {named(shown)} cannot be used: {CHANGED}", mark)
    return source


class _Embedded(str):
    """A picture's bytes as ReportLab's drawImage takes a file: by a name, which the PDF names the picture by the
    digest of (the digest of its bytes, the same wherever the project lies: the file's path made the same game,
    built in two folders, two PDFs), read as an open file would be (the bytes checked, never the file again, which
    Pillow would open as any format it knows). The name ends in the file's suffix, by which ReportLab embeds a
    JPEG as it is."""

    data: io.BytesIO

    def __new__(cls, name: str, data: bytes) -> "_Embedded":
        made = super().__new__(cls, name)
        made.data = io.BytesIO(data)
        return made

    def read(self, count: int = -1) -> bytes:
        return self.data.read(count)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.data.seek(offset, whence)

    def tell(self) -> int:
        return self.data.tell()

    def close(self) -> None:
        """(ReportLab closes what it read: the bytes stay for a second reading in the same drawing)"""


def draw_as_is(canvas: Canvas, picture: CheckedPicture, x: float, y: float, width: float, height: float,
               mark: Mark | None, shown: str, checked: bytes | None = None) -> None:
    """Draw a checked picture embedded as it is, fitted and centred in the box (x, y, width, height); embedded
    once per PDF, named by its bytes: `checked`, the bytes checked_source read, else its file's read again."""
    drawn = canvas.__dict__.setdefault("_pnp_embedded", set())
    name = f"picture{picture.digest[:32]}{picture.real.suffix.lower()}"
    # (ReportLab reads a name once a PDF)
    source = b"" if name in drawn else _checked_bytes(picture, mark, shown, checked)
    # (a JPEG is embedded as its own bytes, never decoded)
    decoded = 0 if not source or picture.real.suffix.lower() in {".jpg", ".jpeg"} else picture.size[0] * picture.size[1]
    with _held(canvas, mark, shown, decoded):
        canvas.drawImage(_Embedded(name, source), x, y, width, height, preserveAspectRatio=True, anchor="c",
                         mask="auto")
    drawn.add(name)


def draw_resampled(canvas: Canvas, picture: CheckedPicture, size: tuple[int, int], x: float, y: float,
                   width: float, height: float, mark: Mark | None, shown: str,
                   spend: Callable[[str, int], None], checked: bytes | None = None) -> None:
    """Draw a checked picture, resampled to `size` pixels, fitted and centred in the box (x, y, width,
    height) as ReportLab's preserveAspectRatio does. The resampled picture is one form per PDF, named by its
    content, so the same bytes come out on every build wherever the project lies. `spend(work, pixels)` is
    called before a picture not resampled yet is decoded; `checked`: as draw_as_is's."""
    from reportlab.lib.utils import ImageReader

    forms = canvas.__dict__.setdefault("_pnp_pictures", {})
    name = forms.get((picture.digest, size))
    if name is None:
        data, digest = _resampled(_checked_bytes(picture, mark, shown, checked), picture.digest, size, spend)
        name = forms[(picture.digest, size)] = f"picture{digest}"
        if not canvas.hasForm(name):  # two files of the same bytes are one form (a second was a broken PDF)
            canvas.beginForm(name, 0, 0, size[0], size[1])
            reader = ImageReader(io.BytesIO(data))
            try:
                with _held(canvas, mark, shown, size[0] * size[1]):
                    canvas.drawImage(reader, 0, 0, size[0], size[1], mask="auto")
            finally:  # its decoded picture and pixels dropped now: a JPEG's reader refers to itself (its jpeg_fh),
                # so they stayed until a full garbage collection, rare (a deck of 200 photos, 164 MB of streams in
                # its PDF, took a build to 1.4 GB, 6 MB a picture)
                reader.__dict__.clear()
            canvas.endForm()
    scale = min(width / size[0], height / size[1])
    canvas.saveState()
    canvas.translate(x + (width - size[0] * scale) / 2, y + (height - size[1] * scale) / 2)
    canvas.scale(scale, scale)
    canvas.doForm(name)
    canvas.restoreState()


@contextlib.contextmanager
def _held(canvas: Canvas, mark: Mark | None, shown: str, decoded: int = 0) -> Iterator[None]:
    """Around a drawImage of a picture of `decoded` pixels ReportLab decodes (0: none): refused first when the
    memory it takes to embed them, with the pictures the PDF holds, would pass MAX_EMBEDDING_PEAK_BYTES; the
    bytes of the streams it added to the PDF (a picture and its mask; none when the PDF holds it already)
    counted against MAX_PDF_PICTURE_BYTES; BudgetSpent at `mark` past either."""
    held = canvas.__dict__.get("_pnp_picture_bytes", 0)
    embedding = decoded * EMBEDDING_BYTES_PER_PIXEL
    if embedding and held + embedding + _kept_bytes() > MAX_EMBEDDING_PEAK_BYTES:
        # the pictures kept for the next PDF (up to KEPT_BYTES) are a cache: given up, with what they held, before
        # the embedding adds its memory to theirs (a picture-heavy build peaked at 889 MB, 191 MB of them kept)
        forget_kept()
    if held + embedding > MAX_EMBEDDING_PEAK_BYTES:
        raise BudgetSpent(f"picture '{shown}': embedding its {decoded:,} pixels in a PDF holding {held >> 20} MB of "
                          f"pictures already would take more memory than pnp allows: {_SMALLER_ART}", mark)
    objects = canvas._doc.idToObject
    before = len(objects)
    yield
    added = sum(len(getattr(made, "streamContent", b"") or b"") for made in itertools.islice(objects.values(), before, None))
    held = canvas.__dict__["_pnp_picture_bytes"] = held + added
    if held > MAX_PDF_PICTURE_BYTES:
        raise BudgetSpent(f"picture '{shown}': the PDF would hold more than {MAX_PDF_PICTURE_BYTES >> 20} MB of "
                          f"pictures with it, which pnp keeps in memory until the PDF is written: {_SMALLER_ART}",
                          mark)
    kit = canvas.__dict__.get("_pnp_kit_picture_bytes")
    if kit is not None:
        kit[0] += added
        if kit[0] > MAX_KIT_PICTURE_BYTES:
            raise BudgetSpent(f"picture '{shown}': the game's PDFs would hold more than {MAX_KIT_PICTURE_BYTES >> 20} "
                              "MB of pictures with it, which pnp keeps in memory to copy them into the all-in-one "
                              f"PDF: {_SMALLER_ART}", mark)


def share_kit_pictures(canvas: Canvas, tally: list[int]) -> None:
    """Count the bytes of pictures `canvas` embeds in `tally` too, where the game's other PDFs that make its
    all-in-one PDF count theirs: together they hold at most MAX_KIT_PICTURE_BYTES (see _held)."""
    canvas.__dict__["_pnp_kit_picture_bytes"] = tally


# what to do about a picture refused for the memory it would take in its PDF (_held)
_SMALLER_ART = "save the art as JPEG (a photograph takes a fraction of its bytes as PNG), or with fewer pixels"


def _key(digest: str, size: tuple[int, int]) -> str:
    return f"{digest}|{size[0]}x{size[1]}"


def _resampled(source: bytes, digest: str, size: tuple[int, int],
               spend: Callable[[str, int], None]) -> tuple[bytes, str]:
    """(the picture in `source`, of sha256 `digest` (its check's), resampled to `size` and encoded, a short
    digest of both), made once per picture and size: the newest are kept for the next PDF (pnp serve keeps
    running)."""
    key = _key(digest, size)
    with Image.open(io.BytesIO(source), formats=IMAGE_FORMATS) as image:
        spend(key, 2 * image.size[0] * image.size[1])  # decoded and resampled (paid once, made or kept)
        found = _kept.get(key)
        if found is None:
            return _keep(key, _encoded_from(image, size))
    _kept.move_to_end(key)
    return found


def _keep(key: str, data: bytes) -> tuple[bytes, str]:
    """Keep a resampled picture's bytes under `key`, with their digest, dropping the oldest past KEPT
    pictures or KEPT_BYTES (never the one just made)."""
    found = _kept[key] = data, hashlib.sha256(key.encode()).hexdigest()[:16]
    while len(_kept) > 1 and (len(_kept) > KEPT or _kept_bytes() > KEPT_BYTES):
        _kept.popitem(last=False)
    return found


def _kept_bytes() -> int:
    return sum(len(data) for data, _ in _kept.values())


def forget_kept() -> None:
    """Drop the resampled pictures kept for the next PDF, and give what they and other freed buffers held back to
    the system (template.give_back_freed_memory): before work whose own memory would otherwise come on top of up
    to KEPT_BYTES of them (a game's all-in-one PDF, its pages copied; an embedding; forking the export's workers)."""
    _kept.clear()
    give_back_freed_memory()


# Whether what this process validates is drawn after (a build, an export, the preview), and the pictures it
# resamples are worth encoding and keeping for it: `pnp validate` alone (checked_only) spent most of its time
# encoding full-art pictures (PNG, a second each on a loaded machine) that nothing drew
_DRAWN_AFTER: ContextVar[bool] = ContextVar("_DRAWN_AFTER", default=True)


@contextlib.contextmanager
def checked_only() -> Iterator[None]:
    """Within it, validation checks pictures without keeping what only drawing needs (see _DRAWN_AFTER)."""
    token = _DRAWN_AFTER.set(False)
    try:
        yield
    finally:
        _DRAWN_AFTER.reset(token)


_kept: OrderedDict[str, tuple[bytes, str]] = OrderedDict()  # key -> (encoded picture, digest), oldest first
_verified: OrderedDict[str, tuple[int, int]] = OrderedDict()  # digest of a picture decoded whole -> its size


# The longest side a picture is resampled to when it is only checked (checked_only): each of its steps is taken (a
# JPEG's every byte decoded, upright, 8-bit, its colour profile applied), so it fails as drawing would, but a JPEG is
# decoded at an eighth of its scale and few pixels are made: `pnp validate` of 200 photos of 2000x1500 px resampled
# each to its printed size at 600 dpi, 17 s of 30 on a loaded machine, for pixels nothing drew
CHECKED_SIDE = 64


def _checking_size(needed: tuple[int, int]) -> tuple[int, int]:
    """`needed` (a picture's resampled size) made at most CHECKED_SIDE pixels on its longer side, its aspect kept."""
    scale = min(1.0, CHECKED_SIDE / max(needed))
    return max(1, round(needed[0] * scale)), max(1, round(needed[1] * scale))


def _encoded_from(image: Image.Image, size: tuple[int, int]) -> bytes:
    """The open picture `image` resampled to `size` (_resampled_image) and encoded (_encoded)."""
    return _encoded(*_resampled_image(image, size))


def _resampled_image(image: Image.Image, size: tuple[int, int]) -> tuple[Image.Image, bool]:
    """(the open picture `image` resampled to `size` (Lanczos; a JPEG decoded at a reduced scale first, which
    costs a fraction of the time and memory), whether it is encoded as a JPEG: when it was one). Its colours are
    converted to sRGB from a colour profile that is not sRGB's (srgb_profile): ReportLab embeds numbers, which a
    PDF prints as sRGB."""
    was_jpeg = image.format in JPEG_KINDS and image.mode in ("L", "RGB", "CMYK")
    profile = srgb_profile(image)
    held = orientation(image)
    if image.format in JPEG_KINDS:  # at least `size` as stored: the decoder skips what Lanczos would average away
        image.draft(image.mode, size[::-1] if held in TURNED else size)
    if held in _UPRIGHTED:  # upright, as viewers show it (`size` is upright); by the orientation read once, as
        # Pillow's exif_transpose would read (and warn of) the whole EXIF again
        image = image.transpose(_UPRIGHTED[held])
    picture = _eight_bits(image)
    resampled = picture.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
    if profile is not None:  # converted once resampled: fewer pixels
        resampled = _converted_to_srgb(resampled, profile, grey=image.mode in GREY_MODES)
    return resampled, was_jpeg


def _encoded(resampled: Image.Image, was_jpeg: bool) -> bytes:
    """A resampled picture (_resampled_image) as JPEG when `was_jpeg`, else as PNG: Pillow's encoders give the
    same bytes for the same pixels, so a rebuild gives the same PDF."""
    out = io.BytesIO()
    if was_jpeg:
        resampled.save(out, "JPEG", quality=JPEG_QUALITY, subsampling=0, optimize=False)
    else:
        # only kept until ReportLab decodes it to embed its pixels: the PDF is the same whatever the level, and
        # level 6 took a quarter of a build of 60 full-art cards
        resampled.save(out, "PNG", compress_level=1)
    return out.getvalue()


def _converted_to_srgb(image: Image.Image, profile: bytes, grey: bool) -> Image.Image:
    """A resampled picture's colours converted from its colour profile (srgb_profile) to sRGB: a grey picture's
    (`grey`, made RGB or RGBA by _eight_bits where it had a transparent grey) as greys, its alpha kept apart."""
    from PIL import ImageCms

    if not grey:
        return ImageCms.applyTransform(image, srgb_transform(profile, image.mode)) or image
    alpha = image.getchannel("A") if "A" in image.getbands() else None
    converted = ImageCms.applyTransform(image.convert("L"), srgb_transform(profile, "L"))
    assert converted is not None  # (applyTransform returns None only when told to work in place)
    if alpha is not None:
        converted.putalpha(alpha)
    return converted


def _eight_bits(image: Image.Image) -> Image.Image:
    """The picture in one of the modes resampled and embedded as they are (L, LA, RGB, RGBA, and a JPEG's CMYK,
    embedded as its inks as a CMYK JPEG drawn at its own size is: made RGB, it printed other colours drawn
    small than large): a palette as RGB(A), samples of more than 8 bits scaled to 8 (Pillow's convert clips
    them: light greys white), a transparent colour (colour_keyed) as an alpha channel."""
    if image.mode in ("L", "LA", "RGB", "RGBA", "CMYK") and not colour_keyed(image):
        return image
    if image.mode in DEEP_MODES:
        samples = image.convert("I")
        grey = samples.point(lambda sample: sample * (1 / 256)).convert("L")
        key = image.info.get("transparency")
        if isinstance(key, int) and 0 <= key < 65536:  # (Pillow's convert to LA drops it)
            opacity = [255] * 65536  # of each sample value
            opacity[key] = 0
            grey.putalpha(samples.point(opacity, "L"))
        return grey
    if isinstance(key := image.info.get("transparency"), int) and (depth := _LOW_GREY_DEPTHS.get(_raw_mode(image))):
        # Pillow reads a 2- or 4-bit grey as 8-bit samples (3 of 2 bits as 255) and keeps the PNG's key unscaled
        # (3): no sample matched it, and the transparent grey printed
        image.info["transparency"] = key * 255 // (2**depth - 1)
    return image.convert("RGBA" if _transparent(image) else "RGB")


# an EXIF orientation -> what makes the picture upright (as Pillow's ImageOps.exif_transpose does)
_UPRIGHTED = dict(zip(range(2, 9), (Image.Transpose.FLIP_LEFT_RIGHT, Image.Transpose.ROTATE_180,
                                    Image.Transpose.FLIP_TOP_BOTTOM, Image.Transpose.TRANSPOSE,
                                    Image.Transpose.ROTATE_270, Image.Transpose.TRANSVERSE, Image.Transpose.ROTATE_90)))
_LOW_GREY_DEPTHS = {"L;2": 2, "L;4": 4}  # Pillow's raw modes of a PNG's greys of fewer than 8 bits -> the bits


def _raw_mode(image: Image.Image) -> str:
    """How the file stores the picture's samples, as Pillow names it (read before its pixels are decoded)."""
    tiles = image.tile if isinstance(image, ImageFile.ImageFile) else []
    return tiles[0].args if tiles and isinstance(tiles[0].args, str) else ""


def _transparent(image: Image.Image) -> bool:
    return "A" in image.getbands() or "transparency" in image.info
