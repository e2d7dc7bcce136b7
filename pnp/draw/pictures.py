"""Pictures drawn at the resolution their printed size needs. ReportLab embeds every pixel it is given: a
40-million-pixel picture on a card cost seconds and hundreds of MB per build, and as much in the PDF. A
picture that has more pixels than PRINT_DPI needs where it is drawn is resampled to that, once per picture and
size, and stored once per PDF as a form; any other is drawn from its file as it is (its bytes unchanged)."""

import hashlib
import io
import math
from collections import OrderedDict
from pathlib import Path

from PIL import Image
from reportlab.pdfgen.canvas import Canvas

from ..model.images import IMAGE_FORMATS, MAX_IMAGE_BYTES
from ..project import read_project_file
from ..report import Mark

# Print shops ask for 300 dpi and home printers print at 600: twice what a shop needs keeps fine lines and
# small lettering in the art sharp on either, at a quarter of the pixels of a 1200 dpi scan.
PRINT_DPI = 600
JPEG_QUALITY = 95  # a photograph resampled stays a JPEG, kept this close to its original (no chroma halving)
KEPT = 32  # resampled pictures kept encoded in memory, for the next PDF that draws them


def printed_pixels(size: tuple[int, int], width: float, height: float) -> tuple[int, int] | None:
    """The (width, height) in pixels that a picture of `size` pixels needs, fitted (aspect kept) in a box of
    `width` x `height` points, at PRINT_DPI; None when it has no more than that (drawn as it is)."""
    pixels_w, pixels_h = size
    drawn = min(width / pixels_w, height / pixels_h)  # points per pixel, fitted in the box
    ratio = max(drawn, 0.0) / 72 * PRINT_DPI  # pixels needed per pixel there is
    if not ratio < 1:
        return None
    return max(1, math.ceil(pixels_w * ratio)), max(1, math.ceil(pixels_h * ratio))


def draw_resampled(canvas: Canvas, path: Path, size: tuple[int, int], x: float, y: float, width: float,
                   height: float, mark: Mark | None) -> None:
    """Draw the picture at `path`, resampled to `size` pixels, fitted and centred in the box (x, y, width,
    height) as ReportLab's preserveAspectRatio does. The resampled picture is one form per PDF, named by its
    content, so the same bytes come out on every build wherever the project lies."""
    from reportlab.lib.utils import ImageReader

    forms = canvas.__dict__.setdefault("_pnp_pictures", {})
    name = forms.get((path, size))
    if name is None:
        source = read_project_file(path, MAX_IMAGE_BYTES, mark, "image")
        data, digest = _resampled(source, size)
        name = forms[(path, size)] = f"picture{digest}"
        if not canvas.hasForm(name):  # two files of the same bytes are one form (a second was a broken PDF)
            canvas.beginForm(name, 0, 0, size[0], size[1])
            canvas.drawImage(ImageReader(io.BytesIO(data)), 0, 0, size[0], size[1], mask="auto")
            canvas.endForm()
    scale = min(width / size[0], height / size[1])
    canvas.saveState()
    canvas.translate(x + (width - size[0] * scale) / 2, y + (height - size[1] * scale) / 2)
    canvas.scale(scale, scale)
    canvas.doForm(name)
    canvas.restoreState()


def _resampled(source: bytes, size: tuple[int, int]) -> tuple[bytes, str]:
    """(the picture in `source` resampled to `size` and encoded, a short digest of both), made once per
    picture and size: the newest KEPT are kept for the next PDF (pnp serve keeps running)."""
    key = f"{hashlib.sha256(source).hexdigest()}|{size[0]}x{size[1]}"
    found = _kept.pop(key, None)
    if found is None:
        found = _encoded(source, size), hashlib.sha256(key.encode()).hexdigest()[:16]
    _kept[key] = found
    while len(_kept) > KEPT:
        _kept.popitem(last=False)
    return found


_kept: OrderedDict[str, tuple[bytes, str]] = OrderedDict()  # key -> (encoded picture, digest), oldest first


def _encoded(source: bytes, size: tuple[int, int]) -> bytes:
    """The picture in `source` resampled to `size` (Lanczos; a JPEG decoded at a reduced scale first, which
    costs a fraction of the time and memory), as JPEG when it was one, else as PNG: Pillow's encoders give the
    same bytes for the same pixels, so a rebuild gives the same PDF."""
    from PIL import Image

    with Image.open(io.BytesIO(source), formats=IMAGE_FORMATS) as image:
        was_jpeg = image.format == "JPEG" and image.mode in ("L", "RGB")
        if image.format == "JPEG":
            image.draft(image.mode, size)  # at least `size`: the decoder skips what Lanczos would average away
        picture = image if image.mode in ("L", "LA", "RGB", "RGBA") else \
            image.convert("RGBA" if _transparent(image) else "RGB")  # a palette, CMYK, 16 bits: resampled as RGB
        resampled = picture.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
    out = io.BytesIO()
    if was_jpeg:
        resampled.save(out, "JPEG", quality=JPEG_QUALITY, subsampling=0, optimize=False)
    else:
        resampled.save(out, "PNG", compress_level=6)
    return out.getvalue()


def _transparent(image: Image.Image) -> bool:
    return "A" in image.getbands() or "transparency" in image.info
