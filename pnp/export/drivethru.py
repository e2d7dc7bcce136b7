"""DriveThruCards: one PDF per deck, each card's front then its back, on pages of the card plus 1/8 in bleed,
in CMYK with at most 240% total ink (rich black C60 M40 Y40 K100), made PDF/X-1a:2003 by Ghostscript."""

import shutil
import subprocess
import zlib
from pathlib import Path

from ..errors import PnpError

INK_LIMIT = 2.40  # total ink, as a fraction: 240%
RICH_BLACK = (0.60, 0.40, 0.40)  # cyan, magenta, yellow laid under a full black
ICC_PROFILES = ("/usr/share/color/icc/ghostscript/default_cmyk.icc",)  # Debian's ghostscript package

PDFX_DEF = """%!
[ /GTS_PDFXVersion (PDF/X-1a:2003) /Title ({title}) /Trapped /False /DOCINFO pdfmark
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


def profile():
    icc = next((p for p in ICC_PROFILES if Path(p).is_file()), None)
    if shutil.which("gs") is None or icc is None:
        raise DriveThruError("the drivethru format needs Ghostscript and its CMYK profile (Debian: apt-get install "
                             "ghostscript)")
    return icc


def to_cmyk(icc):
    """The colour transform from sRGB to the CMYK profile (made once per deck: making one takes a while)."""
    from PIL import ImageCms

    return ImageCms.buildTransform(ImageCms.createProfile("sRGB"), ImageCms.getOpenProfile(icc), "RGB", "CMYK",
                                   renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)


def cmyk(image, transform):
    """RGB image -> CMYK bytes through the CMYK profile that the PDF names as its output intent (littleCMS,
    in Pillow); then every pixel's total ink is held to INK_LIMIT by thinning its cyan, magenta and yellow,
    and the deepest blacks become the rich black C60 M40 Y40 K100."""
    import numpy as np
    from PIL import ImageCms

    rgb = image.convert("RGB")
    ink = np.asarray(ImageCms.applyTransform(rgb, transform), dtype=np.float32) / 255.0
    k = ink[..., 3]
    colour = ink[..., :3].sum(axis=-1)
    room = np.clip(INK_LIMIT - k, 0.0, None)
    ink[..., :3] *= np.where(colour > room, room / np.maximum(colour, 1e-6), 1.0)[..., None]
    darkest = np.asarray(rgb.convert("L"), dtype=np.uint8) < 8
    ink[darkest] = (*RICH_BLACK, 1.0)
    planes = np.concatenate([np.floor(ink[..., :3] * 255.0), np.round(ink[..., 3:] * 255.0)], axis=-1)
    return np.clip(planes, 0, 255).astype(np.uint8).tobytes()


def raster_pdf(images, path, bleed_pt):
    """A PDF with one page per CMYK image (TIFFs made by cmyk) at 300 dpi, in DeviceCMYK; TrimBox inset by
    the bleed."""
    import pikepdf
    from PIL import Image

    pdf = pikepdf.new()
    for image_path in images:
        with Image.open(image_path) as image:
            w_px, h_px = image.size
            data = image.tobytes()
        w, h = w_px * 72 / 300, h_px * 72 / 300
        xobject = pikepdf.Stream(pdf, zlib.compress(data, 6), Type=pikepdf.Name.XObject,
                                 Subtype=pikepdf.Name.Image, Width=w_px, Height=h_px,
                                 ColorSpace=pikepdf.Name.DeviceCMYK, BitsPerComponent=8,
                                 Filter=pikepdf.Name.FlateDecode)
        page = pdf.add_blank_page(page_size=(w, h))
        page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=xobject))
        page.Contents = pikepdf.Stream(pdf, f"q {w:.4f} 0 0 {h:.4f} 0 0 cm /Im0 Do Q".encode())
        page.TrimBox = [bleed_pt, bleed_pt, w - bleed_pt, h - bleed_pt]
        page.BleedBox = [0, 0, w, h]
    pdf.save(path)


def pdfx(source, target, title):
    """Ghostscript writes `source` again as PDF/X-1a:2003 with a CMYK output intent."""
    gs, icc = shutil.which("gs"), profile()
    definition = Path(target).with_suffix(".pdfx.ps")
    safe_title = "".join(ch for ch in title if ch.isalnum() or ch in " -_:,.")
    definition.write_text(PDFX_DEF.format(title=safe_title, icc=icc))
    try:
        run = subprocess.run([gs, "-q", "-dPDFX=true", "-dBATCH", "-dNOPAUSE", "-dNOSAFER", "-sDEVICE=pdfwrite",
                              "-dCompatibilityLevel=1.4", "-sColorConversionStrategy=CMYK",
                              "-sProcessColorModel=DeviceCMYK",
                              # keep the 300 dpi CMYK pixels exactly: no JPEG, no downsampling
                              "-dAutoFilterColorImages=false", "-sColorImageFilter=FlateEncode",
                              "-dDownsampleColorImages=false", f"-sOutputFile={target}", str(definition),
                              str(source)], capture_output=True, text=True, timeout=300)
    finally:
        definition.unlink(missing_ok=True)
    if run.returncode != 0:
        raise DriveThruError(f"Ghostscript could not make {Path(target).name} PDF/X-1a: "
                             f"{(run.stderr or run.stdout).strip()[:300]}")


def max_ink(path):
    """The largest total ink of any pixel of the PDF, as Ghostscript renders it (72 dpi), in percent."""
    import numpy as np
    from PIL import Image

    gs = shutil.which("gs")
    tiff = Path(path).with_suffix(".ink.tif")
    try:
        subprocess.run([gs, "-q", "-dBATCH", "-dNOPAUSE", "-sDEVICE=tiff32nc", "-r72", f"-sOutputFile={tiff}",
                        str(path)], check=True, capture_output=True, timeout=300)
        worst = 0.0
        with Image.open(tiff) as image:
            for n in range(getattr(image, "n_frames", 1)):
                image.seek(n)
                planes = np.asarray(image.convert("CMYK"), dtype=np.float32)
                worst = max(worst, float(planes.sum(axis=-1).max()) / 255.0 * 100.0)
        return worst
    finally:
        tiff.unlink(missing_ok=True)


def deck_pdf(out, rel_images, pdf_name, title, bleed_pt):
    """Make one deck's PDF/X-1a from its card images (front, back, front, back...) under `out`."""
    raw = out / f".{pdf_name}.raw.pdf"
    try:
        raster_pdf([out / rel for rel in rel_images], raw, bleed_pt)
        pdfx(raw, out / pdf_name, title)
    finally:
        raw.unlink(missing_ok=True)
