"""A game's pictures, opened only as the formats pnp prints: Pillow is never let guess another one, as it
would hand a PostScript file named pic.png to Ghostscript."""

import contextlib
import hashlib
import io
import math
import re
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, cast

if TYPE_CHECKING:
    from PIL import Image, ImageCms

from ..errors import DataError, LimitError
from ..report import Mark, named
from ..template import metered

IMAGE_FORMATS = ("PNG", "JPEG", "WEBP")  # Pillow's names; ReportLab draws each of them
# What Pillow calls a JPEG it opened: a phone's photo with a second picture after it (a preview, a depth map) is
# a multi-picture JPEG, "MPO", read as its first picture (it was taken for no JPEG: its EXIF orientation was not
# read, and a portrait photo printed on its side)
JPEG_KINDS = frozenset({"JPEG", "MPO"})
# a picture printed 600 x 400 mm at 300 dpi is 33 million pixels; ReportLab embeds every pixel, and a picture
# of 100 million took 16 s and 1.8 GB to build: more is a mistake or a decompression bomb
MAX_IMAGE_PIXELS = 40_000_000
MAX_IMAGE_BYTES = 200 * 1024 * 1024  # past any photograph of that many pixels
# ...and at most this many on a side (JPEG's own limit; a picture 600 mm long at 600 dpi has 14,173): decoding
# costs per row besides per pixel, and a PNG one pixel wide and 39 million high took 5 s to decode (validation
# took 10 s to say its resolution was too low)
MAX_IMAGE_SIDE = 65_535
# A progressive JPEG has about 10 scans, each decoding the whole picture again: 300 copies of a 4000 x 4000
# picture's scans decoded for minutes, 50 of a 40-million-pixel photograph 6 s. Its segments before the
# picture (tables, EXIF, ICC, XMP, comments) are a dozen or so: Pillow's reading of them grows with their
# number squared (400 took 0.7 s, 3000 never ended)
MAX_JPEG_SCANS = 30
# Pillow's modes of more than 8 bits a sample (a 16-bit greyscale PNG opens as "I;16"): Pillow, and ReportLab
# through it, clip such samples to 0-255 when they make 8-bit pixels of them, so every grey but the darkest
# printed white; pnp scales them itself (pnp.draw.pictures)
DEEP_MODES = frozenset({"I", "I;16", "I;16B", "I;16L", "I;16N"})
# A picture's EXIF (camera, date, orientation...) fits a JPEG's segment of 64 KB: Pillow reads every value of it to
# find the orientation, and a WebP of 3000 x 3000 px holding an EXIF of 36 MB (one tag of 9 million numbers) took
# 7 s and 500 MB to validate
MAX_EXIF_BYTES = 64 * 1024
# ...and its colour profile (ICC) and XMP packet are read whole at each opening, the profile by littleCMS too to
# tell sRGB from other colours: a photograph's profile is a few KB (a printer's, of tables, 1 to 3 MB) and its XMP
# some KB, but a WebP's are as long as its file (a 6000 x 6000 px WebP holding a profile of 99 MB took 17 s and
# 900 MB to validate, one of a 99 MB XMP packet 11 s)
MAX_PROFILE_BYTES = 4 * 1024 * 1024
MAX_XMP_BYTES = 4 * 1024 * 1024
ORIENTATION = 0x0112  # the EXIF tag of how a camera held the picture: 1 upright; 5 to 8 turned a quarter
TURNED = frozenset({5, 6, 7, 8})
# A picture's file holds its pixels, compressed, and a little about them (EXIF, colour profile, XMP: under
# 1 MB in a photograph): a 400 x 400 JPEG padded to 100 MB (bytes after its end, or comments before its
# picture) was embedded whole in every PDF printing it (each export spent 18 s more), and a padded WebP is read
# whole at each opening. A file of more bytes than its pixels could need is refused
MAX_BYTES_PER_PIXEL = 4
METADATA_BYTES = 2 * 1024 * 1024


# The formats whose further frames are an animation viewers play (an animated PNG, an animated WebP); a JPEG's further
# pictures (MPO: a preview, a depth map) are shown by none
ANIMATED_FORMATS = frozenset({"PNG", "WEBP"})


def animation_problem(image: "Image.Image") -> str | None:
    """Why an open picture cannot be printed as viewers show it because it is animated, or None for a still one.
    Pillow reads an animated PNG's or WebP's first frame, or the PNG's default image, which viewers that play
    the animation never show (an APNG whose default image was red and frames blue and green printed red), and
    which frame a print should show no file says. Read from the file's header (its frame count)."""
    frames = getattr(image, "n_frames", 1) if image.format in ANIMATED_FORMATS else 1
    if frames <= 1:
        return None
    return (f"an animated picture of {frames} frames (viewers play them; a print shows one): save the frame to "
            "print as a still picture")


def colour_keyed(image: "Image.Image") -> bool:
    """Whether a picture that is no palette says one of its colours is transparent (a PNG's tRNS): ReportLab
    reads such a key on a palette alone, and printed the colour (a 16-bit grey picture's too, once made 8-bit)."""
    return image.mode != "P" and "transparency" in image.info


def drawn_as_is(image: "Image.Image", held: int | None = None) -> bool:
    """Whether ReportLab, given the open picture's file, draws it as viewers show it: upright by its EXIF
    orientation (orientation, or `held` when the caller read it already: each read parses the EXIF), of
    samples of 8 bits (DEEP_MODES), with no transparent colour (colour_keyed)."""
    upright = (orientation(image) if held is None else held) == 1
    return upright and image.mode not in DEEP_MODES and not colour_keyed(image) and _frame_passed_through(image) \
        and not srgb_profile(image)


# The modes whose colours are red, green and blue (a palette's too): an RGB colour profile describes them
RGB_MODES = frozenset({"RGB", "RGBA", "P", "PA"})
# ...and those of greys, which a grey (GRAY) profile describes: Photoshop saves grey pictures with one (its default
# "Dot Gain 20%" prints grey 128 as 101), which browsers apply, and such a picture printed its numbers as sRGB
# greys. A CMYK picture's profile is not read: its inks are printed as they are (see pnp.draw.pictures)
GREY_MODES = frozenset({"1", "L", "LA", *DEEP_MODES})
# How far an embedded profile's colorants (XYZ, D50) may lie from sRGB's and it still be sRGB: the sRGB profiles
# cameras, editors and Ghostscript embed differ by under 0.0005; Display P3's red lies 0.08 away, Adobe RGB's 0.17
SRGB_TOLERANCE = 0.002


def srgb_profile(image: "Image.Image") -> bytes | None:
    """The ICC profile embedded in an open picture of red, green and blue (RGB_MODES) or of greys (GREY_MODES)
    when its colours must be converted from it to sRGB to print as viewers show them (pnp.draw.pictures): a
    profile of RGB whose colorants are not sRGB's (a Display P3 or Adobe RGB photograph printed duller, its numbers
    taken as sRGB's), a grey profile whose greys are not sRGB's, or one that cannot be read (profile_problem
    refuses it). None for a picture of no profile, of an sRGB one, of a profile of another colour space than its
    own (viewers ignore it), or of other modes (CMYK)."""
    profile = image.info.get("icc_profile")
    if image.mode not in RGB_MODES | GREY_MODES or not isinstance(profile, bytes) or not profile:
        return None
    try:
        return None if _is_srgb(profile, grey=image.mode in GREY_MODES) else profile
    except ValueError:
        return profile


def profile_problem(image: "Image.Image") -> str | None:
    """Why an open picture's colour profile cannot be used to print it as viewers show it (srgb_profile), or None."""
    profile = srgb_profile(image)
    if profile is None:
        return None
    if _srgb_chunk_first(image):
        return ("a PNG that says it is sRGB (an sRGB chunk) before a colour profile of other colours: viewers "
                "read different ones; save it with one colour profile")
    try:
        srgb_transform(profile, "L" if image.mode in GREY_MODES else
                       "RGBA" if image.mode in ("RGBA", "PA") or "transparency" in image.info else "RGB")
    except ValueError as e:
        return f"its colour profile cannot be read ({e}): save it with an sRGB profile, or none"
    return None


def _srgb_chunk_first(image: "Image.Image") -> bool:
    """Whether a PNG of a colour profile (iCCP) gives an sRGB chunk before it (_png_colour_chunks_agree): libpng
    reads the first of the two, the PNG standard the profile, so viewers read different ones; a profile first is
    the one both read (a Display P3 picture saved with an sRGB chunk after its profile was refused, where browsers
    convert it from its profile). Pillow puts each chunk's key in the picture's info as it reads it, in order."""
    keys = list(image.info)
    return "srgb" in keys and "icc_profile" in keys and keys.index("srgb") < keys.index("icc_profile")


def _is_srgb(profile: bytes, grey: bool = False) -> bool:
    """Whether an ICC profile is sRGB by its colorants (SRGB_TOLERANCE), or, for a picture of greys, whether its
    greys are sRGB's (_greys_are_srgb); True for one of another colour space than the picture's (nothing is
    converted from it); ValueError for a profile that cannot be read. Known once per profile."""
    if grey:
        return bool(_known(profile, "sRGB greys?", lambda: _greys_are_srgb(profile)))
    return bool(_known(profile, "sRGB?", lambda: _colorants_are_srgb(profile)))


def _greys_are_srgb(profile: bytes) -> bool:
    """_is_srgb of a grey picture's profile, read afresh: its greys converted to sRGB are each within 2 of
    themselves (Ghostscript's sGray is; Photoshop's Dot Gain 20% and a gamma 1.8 grey are not)."""
    from PIL import Image, ImageCms

    if _read_profile(profile).profile.xcolor_space.strip() != "GRAY":
        return True
    greys = [level for level, _, _ in _SAMPLES[:5]]
    samples = Image.new("L", (len(greys), 1))
    samples.putdata(greys)
    converted = ImageCms.applyTransform(samples, srgb_transform(profile, "L"))
    assert converted is not None  # (applyTransform returns None only when told to work in place)
    return all(abs(level - channel) <= 2 for x, level in enumerate(greys)
               for channel in cast("tuple[int, int, int]", converted.getpixel((x, 0))))


def _colorants_are_srgb(profile: bytes) -> bool:
    """_is_srgb, read afresh (a profile of tables, not colorants, is no sRGB: it is converted by its tables). Its
    tone curves must be sRGB's too: a profile of sRGB's colorants and a linear curve (Ghostscript's scrgb.icc)
    was taken for sRGB, and its grey 128, which viewers show as 188, printed 128."""
    from PIL import Image, ImageCms

    read = _read_profile(profile).profile
    if read.xcolor_space.strip() != "RGB":
        return True
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).profile
    for name in ("red_colorant", "green_colorant", "blue_colorant"):
        found, wanted = getattr(read, name), getattr(srgb, name)
        if not found or any(abs(a - b) > SRGB_TOLERANCE for a, b in zip(found[0], wanted[0], strict=True)):
            return False
    samples = Image.new("RGB", (len(_SAMPLES), 1))
    samples.putdata(_SAMPLES)
    converted = ImageCms.applyTransform(samples, srgb_transform(profile, "RGB"))
    assert converted is not None  # (applyTransform returns None only when told to work in place)
    return all(abs(a - b) <= 2 for x, before in enumerate(_SAMPLES)
               for a, b in zip(before, cast("tuple[int, int, int]", converted.getpixel((x, 0))), strict=True))


# Colours an sRGB profile gives back within 2 of themselves, converted to sRGB: greys along the tone curve and a
# colour of each primary
_SAMPLES = [(16, 16, 16), (64, 64, 64), (128, 128, 128), (192, 192, 192), (240, 240, 240), (200, 40, 40),
            (40, 200, 40), (40, 40, 200)]


def _read_profile(profile: bytes) -> "ImageCms.ImageCmsProfile":
    """An ICC profile read by littleCMS; ValueError, in its words, for one that cannot be, or in pnp's for one
    whose reading costs more than its bytes (profile_cost_problem), refused before littleCMS reads it."""
    from PIL import ImageCms

    if problem := profile_cost_problem(profile):
        raise ValueError(problem)
    try:
        return ImageCms.ImageCmsProfile(io.BytesIO(profile))
    except (OSError, ImageCms.PyCMSError, TypeError) as e:
        raise ValueError(str(e) or "not an ICC profile") from None


# What littleCMS reads of a profile costs about as much as its bytes, but for its floating-point tables (ICC
# "multiProcessElements": D2Bx, B2Dx), a chain of stages each found by an offset: stages and curves may name the
# same bytes over and over (8 bytes each), every curve is worked out at 4,096 points through each of its
# segments, and the stages are joined pairwise then run at each point of a 33 x 33 x 33 grid (a table of n
# channels at 2^(n-3) points of it each). A profile of 16 KB, one curve set named 2,000 times, took 45 s to
# validate (its picture printed); one of 16 stages of 8 channels 1 s. A picture's profile has a few stages of
# three channels and curves of a few segments: these bound them (the worst they let through, 0.06 s), and no two
# of a table's stages or curves may lie on the same bytes.
MAX_PROFILE_STAGES = 8
MAX_STAGE_CHANNELS = 4
MAX_CURVE_SEGMENTS = 16
_MULTI_PROCESS = b"mpet"
_ICC_HEADER = 128


def profile_cost_problem(profile: bytes) -> str | None:
    """Why littleCMS's reading of an ICC profile would cost far more than its bytes (its floating-point tables
    past MAX_PROFILE_STAGES, MAX_STAGE_CHANNELS or MAX_CURVE_SEGMENTS, or stages or curves sharing bytes), or
    None; None too for what littleCMS will refuse itself (a table that does not fit the profile)."""
    if len(profile) < _ICC_HEADER + 4:
        return None
    count = _number(profile, _ICC_HEADER, 4)
    seen: set[int] = set()  # (tags may name the same table)
    for i in range(min(count, (len(profile) - _ICC_HEADER - 4) // 12)):
        entry = _ICC_HEADER + 4 + 12 * i
        tag, offset = profile[entry:entry + 4], _number(profile, entry + 4, 4)
        if profile[offset:offset + 4] == _MULTI_PROCESS and offset not in seen:
            seen.add(offset)
            shown = tag.decode("latin-1").strip() or "?"
            try:
                _stages_within(profile, offset)
            except ValueError as e:
                return f"its floating-point table {shown} {e}"
    return None


def _stages_within(profile: bytes, tag: int) -> None:
    """Check a multiProcessElements table at offset `tag` against the bounds (profile_cost_problem): ValueError
    saying what passes them."""
    read: list[tuple[int, int]] = []  # (start, end) of each stage's and curve's bytes, as littleCMS reads them
    stages = _number(profile, tag + 12, 4)
    if stages > MAX_PROFILE_STAGES:
        raise ValueError(f"has {stages:,} stages, more than {MAX_PROFILE_STAGES}")
    for stage in _positions(profile, tag, tag + 16, stages):
        kind, inputs, outputs = profile[stage:stage + 4], _number(profile, stage + 8, 2), _number(profile, stage + 10, 2)
        if max(inputs, outputs) > MAX_STAGE_CHANNELS:
            raise ValueError(f"has a stage of {max(inputs, outputs)} channels, more than {MAX_STAGE_CHANNELS}")
        if kind == b"cvst":
            read.append((stage, stage + 12 + 8 * inputs))
            read.extend(_curve_bytes(profile, curve) for curve in _positions(profile, stage, stage + 12, inputs))
        elif kind == b"matf":
            read.append((stage, stage + 12 + 4 * (inputs + 1) * outputs))
        elif kind == b"clut":
            read.append((stage, stage + 28 + 4 * outputs * math.prod(profile[stage + 12:stage + 12 + inputs])))
        else:
            read.append((stage, stage + 12))
    read.sort()
    if read and read[-1][1] > len(profile) or any(start < end for (_, end), (start, _) in zip(read, read[1:])):
        raise ValueError("has stages or curves that lie on the same bytes (each is read again for each naming "
                         "it), or past the profile's end")


def _curve_bytes(profile: bytes, curve: int) -> tuple[int, int]:
    """(start, end) of a segmented curve's bytes ('curf': its breakpoints, then each segment, a formula or
    samples); ValueError past MAX_CURVE_SEGMENTS."""
    segments = _number(profile, curve + 8, 2)
    if segments > MAX_CURVE_SEGMENTS:
        raise ValueError(f"has a curve of {segments:,} segments, more than {MAX_CURVE_SEGMENTS}")
    at = curve + 12 + 4 * max(segments - 1, 0)
    for _ in range(segments):
        if profile[at:at + 4] == b"samf":
            at += 12 + 4 * _number(profile, at + 8, 4)
        else:  # a formula ('parf') of 4 or 5 parameters
            at += 12 + 4 * (4 if _number(profile, at + 8, 2) == 0 else 5)
    return curve, at


def _number(profile: bytes, at: int, size: int) -> int:
    return int.from_bytes(profile[at:at + size], "big")


def _positions(profile: bytes, base: int, table: int, count: int) -> list[int]:
    """The offsets, from the profile's start, of the `count` elements a position table at `table` names,
    each relative to `base`."""
    return [base + _number(profile, table + 8 * i, 4) for i in range(count)]


def srgb_transform(profile: bytes, mode: str) -> "ImageCms.ImageCmsTransform":
    """The colour transform from an ICC profile of RGB to sRGB, for pictures of `mode` (RGB, RGBA: the alpha is
    kept), or from a grey profile, for pictures of "L" (made RGB: littleCMS's LA to RGBA loses every pixel, so
    a grey's alpha is put back by the caller), relative colorimetric as browsers convert such pictures;
    ValueError for a profile that cannot make one. Made once per profile and mode: making one reads the profile
    again."""
    from PIL import ImageCms

    def made() -> "ImageCms.ImageCmsTransform":
        try:
            return ImageCms.buildTransform(_read_profile(profile), ImageCms.createProfile("sRGB"), mode,
                                           "RGB" if mode == "L" else mode,
                                           renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
        except (OSError, ImageCms.PyCMSError, TypeError) as e:
            raise ValueError(str(e) or "no transform to sRGB") from None

    return cast("ImageCms.ImageCmsTransform", _known(profile, mode, made))


_KNOWN_PROFILES = 64
# (a profile's digest, "sRGB?" or a mode) -> what was found of it (whether it is sRGB, its transform to sRGB) or
# why it cannot be used, newest last: by digest, not by the profile's bytes (up to MAX_PROFILE_BYTES each)
_profiles_known: dict[tuple[str, str], Any] = {}


# The profile digested last and its digest: a picture's profile is asked after several times per use (is it sRGB,
# its transform, as _colorants_are_srgb makes it, whether the picture is drawn as is; and again at each opening of
# the picture: checked, decoded, placed on each sheet), and each asking hashed all of it again, up to
# MAX_PROFILE_BYTES: comparing bytes (the same object at once) costs a fraction of hashing them
_last_digest: tuple[bytes, str] | None = None


def _digest(profile: bytes) -> str:
    """The SHA-256 of a profile, worked out once for the same profile asked again in a row."""
    global _last_digest
    last = _last_digest  # (one read: another thread may set it meanwhile)
    if last is not None and last[0] == profile:
        return last[1]
    digest = hashlib.sha256(profile).hexdigest()
    _last_digest = (profile, digest)
    return digest


def _known(profile: bytes, what: str, make: Callable[[], Any]) -> Any:
    """What `make` finds of a profile (`what`: "sRGB?" or a mode), made once per profile and kept for the next
    pictures; the ValueError it raised is raised again. Its time is spent from the game's budget: LimitError
    (not kept) when that runs out."""
    key = (_digest(profile), what)
    found = _profiles_known.get(key)
    if found is None:
        try:
            with metered("littleCMS reading its colour profile"):  # its time is the game's, as svglib's is
                found = make()
        except ValueError as e:
            found = e
        _profiles_known[key] = found
        while len(_profiles_known) > _KNOWN_PROFILES:
            _profiles_known.pop(next(iter(_profiles_known)), None)
    if isinstance(found, ValueError):
        raise ValueError(str(found))
    return found


# The JPEG frames ReportLab embeds as they are (its readJPEGInfo): baseline, extended and progressive Huffman DCT
_PASSED_THROUGH_FRAMES = frozenset({0xC0, 0xC1, 0xC2})
_NOT_FRAMES = frozenset({0xC4, 0xC8, 0xCC})  # markers numbered among the frames' that are none (tables)


def _frame_passed_through(image: "Image.Image") -> bool:
    """Whether a JPEG's frame is one ReportLab embeds as it is (any other picture is decoded): it read an
    arithmetic-coded JPEG, which Pillow decodes, as a broken picture, and the PDF printed it so with exit 0. Its
    markers must be walked alike by libjpeg (Pillow) and ReportLab (jpeg_markers, with no bytes between them that
    each skips its own way) up to a frame ReportLab embeds, and ReportLab's own reading of the header must find
    that frame: a JPEG it cannot read (a JFIF segment too short for its reading) it embedded as a broken picture."""
    fp = getattr(image, "fp", None)
    if image.format not in JPEG_KINDS or fp is None:
        return True
    if not isinstance(fp, io.BytesIO):  # (no picture is opened from its file: _whole)
        return False
    kept = fp.tell()
    try:
        with _whole(fp) as data:
            frame = _first_frame(data)
        return frame in _PASSED_THROUGH_FRAMES and _reportlab_reads(fp, image)
    finally:
        fp.seek(kept)


def _whole(fp: io.BytesIO) -> contextlib.AbstractContextManager[bytes]:
    """The bytes of a picture's BytesIO: a picture is checked and drawn from the bytes of its file read once
    (pnp.draw.pictures.checked_source), never from its file (cut while it was mapped to be walked, it ended pnp
    with SIGBUS; read again, it may have changed since its check)."""
    return contextlib.nullcontext(fp.getvalue())


def _first_frame(data: bytes) -> int | None:
    """The marker code of a JPEG's frame (SOFn), when its markers before it are walked alike by libjpeg and
    ReportLab: None past bytes that are no marker (fill, junk), an end of image or a bogus length (each reader
    goes its own way there), or at a scan before any frame."""
    found = _frame_marker(data)
    return found[1] if found else None


def _frame_marker(data: bytes) -> tuple[int, int] | None:
    """(where it starts, its code) of the marker of a JPEG's frame, as _first_frame finds it, or None."""
    for at, code in jpeg_markers(data):
        if code < 0 or code in (_END_OF_IMAGE, 0xDA):
            return None
        if 0xC0 <= code <= 0xCF and code not in _NOT_FRAMES:
            return at, code
    return None


def _reportlab_reads(fp: BinaryIO, image: "Image.Image") -> bool:
    """Whether ReportLab's reading of a JPEG's header (readJPEGInfo, which its embedding relies on) succeeds and
    finds the size and colour channels Pillow found."""
    from reportlab.pdfbase.pdfutils import readJPEGInfo

    fp.seek(0)
    try:
        width, height, channels, _ = readJPEGInfo(fp)
    except Exception:  # noqa: BLE001 - whatever it raises, ReportLab then embeds no such JPEG as it is
        return False
    return (width, height) == image.size and channels == len(image.getbands())


def padded(file_bytes: int, size: tuple[int, int]) -> bool:
    """Whether a picture's file holds more bytes than its pixels could need (MAX_BYTES_PER_PIXEL)."""
    return file_bytes > size[0] * size[1] * MAX_BYTES_PER_PIXEL + METADATA_BYTES


def orientation(image: "Image.Image") -> int:
    """A picture's EXIF orientation (1: upright), read from its header: a JPEG's, a WebP's, and a PNG's eXIf chunk
    before its pixels (the one browsers turn a PNG by; Pillow reads the header's chunks as it opens the file, one
    after the pixels only as it decodes them). A PNG's was not read, and a PNG a phone or an editor saved on its
    side with orientation 6, shown upright by browsers, printed on its side. The EXIF's alone, as viewers and
    browsers turn a picture by it: Pillow's getexif takes an XMP packet's tiff:Orientation when the EXIF has
    none, and a picture viewers show upright printed on its side."""
    from PIL import Image

    if image.format not in JPEG_KINDS | {"WEBP", "PNG"}:
        return 1
    with warnings.catch_warnings():  # of tags of unexpected sizes: the orientation is checked below
        warnings.simplefilter("ignore")
        exif = Image.Exif()
        exif.load(image.info.get("exif") or b"")
        found = exif.get(ORIENTATION, 1)
    return found if isinstance(found, int) else 1
MAX_JPEG_SEGMENTS = 200
# Bytes that are no marker where one is due (0xFF fill bytes, junk): the standard allows a few fill bytes, and
# Pillow walks such bytes one at a time in Python (5 MB of them took 1.5 s to open, and the file was refused as
# padded only once open)
MAX_JPEG_JUNK = 64 * 1024
_START_OF_SCAN = b"\xff\xda"
_END_MARKER = b"\xff\xd9"  # (EOI: _END_OF_IMAGE is its code)
# A file that ends before its picture data does, as a download or copy cut short leaves it (png_problem,
# jpeg_problem, webp_problem): Pillow refused it in its own words, one of several by where it was cut ("image file
# is truncated", "Truncated File Read", "could not create decoder object"), or as no picture it knows, and a PNG cut
# in its header was said as a header of the wrong length
CUT_SHORT = "the file ends before its picture data does: cut short?"
# A picture whose file is whole and whose data Pillow cannot decode (a PNG row of an unknown filter, a damaged
# compressed stream, a WebP whose frame is not the size its header gives, or that holds none): said so in pnp's
# words, at the element naming it, whatever the library said
DAMAGED = "its picture data is damaged (viewers show it broken, or not at all): save it again"
# A file emptied or written over between pnp's looks at it (an editor saving it as pnp reads it)
CHANGED = "the file changed while pnp read it: build again once it is saved"
_END_OF_IMAGE = 0xD9
# markers with no length after them (TEM, RST0-7, SOI, EOI): libjpeg, Pillow and ReportLab read on after them
_PARAMETERLESS = frozenset({0x01, *range(0xD0, 0xDA)})


def jpeg_markers(data: bytes) -> Iterator[tuple[int, int]]:
    """(offset, code) of each marker of a JPEG up to its first scan's (0xDA), walked as libjpeg and Pillow walk
    them: a parameterless marker is two bytes, any other is followed by its length. Bytes that are no marker
    where one is due (fill bytes 0xFF, junk, a marker and a length below 2, which libjpeg refuses and Pillow reads
    on after) are yielded as (offset, -count), up to the next 0xFF."""
    at = 2
    while at + 2 <= len(data):
        code = data[at + 1]
        if data[at] != 0xFF or code in (0x00, 0xFF):
            found = data.find(b"\xff", at + 1)
            end = len(data) if found < 0 else found
            yield at, -(end - at)
            at = end
            continue
        length = 0 if code in _PARAMETERLESS else int.from_bytes(data[at + 2:at + 4], "big")
        if code not in _PARAMETERLESS and length < 2:
            yield at, -4
            at += 4
            continue
        yield at, code
        if code == 0xDA:
            return
        at += 2 + length


def jpeg_problem(data: bytes) -> str | None:
    """Why a JPEG's structure is too costly to decode (too many scans, or segments or bytes that are no marker
    before the first), or it is CUT_SHORT (no end, EOI, after its first scan), or None; None too for what is no
    JPEG. Upper bounds read without decoding: a marker of the compressed data is always a marker (its 0xFF bytes
    are stuffed), one inside a segment's payload is counted as one too."""
    if data[:2] != b"\xff\xd8":
        return None
    scans, at = 0, data.find(_START_OF_SCAN)
    while at >= 0 and scans <= MAX_JPEG_SCANS:
        scans, at = scans + 1, data.find(_START_OF_SCAN, at + 2)
    if scans > MAX_JPEG_SCANS:
        return f"a JPEG of more than {MAX_JPEG_SCANS} scans (a progressive JPEG has about 10)"
    segments, junk, exif, scan = 0, 0, 0, -1
    profile_parts: list[tuple[int, int]] = []  # (its number, of how many) of each segment of its colour profile
    for at, code in jpeg_markers(data):
        scan = at if code == 0xDA else scan
        if code < 0:
            junk -= code
        else:
            segments += 1
        if code == 0xE2 and data[at + 4:at + 16] == _ICC_SEGMENT:
            number, count = (bytes(data[at + 16:at + 18]) + b"\0\0")[:2]  # (a file may end there)
            profile_parts.append((number, count))
        exif += code == 0xE1 and data[at + 4:at + 10] == _EXIF_SEGMENT
        if segments > MAX_JPEG_SEGMENTS:
            return f"a JPEG of more than {MAX_JPEG_SEGMENTS} segments before its picture (EXIF, colour profile, " \
                   "comments...)"
        if junk > MAX_JPEG_JUNK:
            return f"a JPEG holding more than {MAX_JPEG_JUNK >> 10} KB that are no marker between its segments " \
                   f"(from byte {at:,}): a damaged file?"
    if scan < 0 or data.find(_END_MARKER, scan) < 0:  # (every JPEG ends so: Pillow refused one without, in its words)
        return CUT_SHORT
    return _jpeg_joined_problem(profile_parts, exif)


def _jpeg_joined_problem(profile_parts: list[tuple[int, int]], exif: int) -> str | None:
    """Why a JPEG's segments that Pillow joins (its colour profile's, each (its number, of how many); its `exif`
    EXIF segments) are read otherwise by viewers, or None."""
    if profile_parts and sorted(profile_parts) != [(n, len(profile_parts)) for n in range(1, len(profile_parts) + 1)]:
        return ("a JPEG whose colour profile's segments are not numbered 1 to their count, each once: viewers read "
                "no profile from it, Pillow joins its parts; save it again")
    if exif > 1:
        return ("a JPEG of more than one EXIF segment: viewers turn it by the first one's orientation alone, Pillow "
                "reads them joined (the first's table may lie in the next); save it with one")
    return None


# An EXIF is one APP1 segment of this signature (its 64 KB hold a camera's): viewers read the first, Pillow joins
# every one, so that the first's offsets reach into the next: a JPEG whose first EXIF ended at its header and whose
# second held orientation 6 printed on its side, where viewers show it upright (exit 0)
_EXIF_SEGMENT = b"Exif\0\0"


# A colour profile is split into APP2 segments of this signature, each numbered (1 to their count) and holding their
# count: libjpeg (viewers) reads no profile from segments numbered otherwise (a number twice, 0, past the count, or
# counts that differ), Pillow joins them whenever the first's count is how many there are, in the order of their
# bytes: a JPEG of two segments each numbered 1 of 2 printed converted from the Display P3 profile Pillow made of
# them, where viewers show it as sRGB (exit 0)
_ICC_SEGMENT = b"ICC_PROFILE\0"


# A PNG holds a dozen chunks besides its picture data (colour, text, a profile), and its picture data in
# chunks of 8 to 64 KB; Pillow reads each chunk in Python at every opening: 1.5 million empty chunks in an 18 MB
# file took 29 s to validate and over a minute to build
MAX_PNG_CHUNKS = 200  # besides the picture data (IDAT)
MAX_PNG_DATA_CHUNKS = 100_000
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_problem(data: bytes) -> str | None:
    """Why a PNG is CUT_SHORT (one of its chunks before its end, IEND, runs past the file's end, or it ends before
    any picture data, IDAT), or its structure is too costly to read (too many chunks), or gives its colours
    otherwise than Pillow reads them (_PngChunks), or None; None too for what is no PNG. One walk over the chunks'
    lengths, without reading the picture data: a file cut short is said so whatever its whole chunks hold (the
    cut is what to mend first), so the walk goes on past the first other problem to the file's end, at most as
    many chunks as the limits allow (past them, _png_count_problem has been said)."""
    if data[:8] != _PNG_SIGNATURE:
        return None
    chunks, at = _PngChunks(data), 8
    for _ in range(MAX_PNG_CHUNKS + MAX_PNG_DATA_CHUNKS + 2):
        if at + 8 > len(data):  # (ended between chunks: the picture may be whole, IEND aside)
            return chunks.problem() if chunks.pictures else CUT_SHORT
        kind, length = data[at + 4:at + 8], int.from_bytes(data[at:at + 4], "big")
        if kind == b"IEND":
            break
        past_most = length > _MOST_PNG_CHUNK_BYTES  # (said by _png_damage_problem, as damage, not as a cut)
        if not past_most and at + 12 + length > len(data):
            return CUT_SHORT
        chunks.read(at, kind, length)
        if past_most:
            break
        at += 12 + length
    return chunks.problem()


class _PngChunks:
    """What is read of a PNG's chunks, one at a time in their order, up to the first that makes a problem: their
    counts, its _PngHeader, and its text's bytes."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.others, self.pictures, self.text = 0, 0, 0  # chunks besides the picture data (IDAT), and of it
        self.header = _PngHeader(data[25:26])
        self.found: str | None = None  # the problem of the first chunk that made one

    def read(self, at: int, kind: bytes, length: int) -> None:
        """Read the chunk at `at` (its kind, its length), unless a chunk before made a problem."""
        if kind == b"IDAT":
            self.pictures += 1
        else:
            self.others += 1
        if self.found is None:
            self.found = self._problem(at, kind, length)

    def _problem(self, at: int, kind: bytes, length: int) -> str | None:
        """Why the chunk at `at` (its kind and length), after those read before, makes a problem, or None."""
        data = self.data
        if not self.pictures or kind == b"IDAT" and self.pictures == 1:
            if problem := self.header.read(kind, length, data[at + 8:at + 8 + min(length, 33)]):
                return problem
        if problem := _png_count_problem(self.others, self.pictures) or \
                _png_chunk_problem(kind, data[at + 8:at + 8 + min(length, _PNG_KEYWORD_BYTES + 2)], at == 8,
                                   self.header.palette is not None) or _png_damage_problem(data, at, kind, length):
            return problem  # (a chunk named otherwise than in letters said before its checksum is read)
        if kind in _PNG_TEXT_CHUNKS or kind == b"iCCP":
            read, problem = _png_text_problem(kind, data[at + 8:at + 8 + length], self.text)
            self.text += read
            return problem
        return None

    def problem(self) -> str | None:
        """The problem of the first chunk that made one, or else of the chunks before the picture data."""
        return self.found or self.header.problem()


def _png_count_problem(others: int, pictures: int) -> str | None:
    """Why a PNG of `others` chunks besides its picture data, and `pictures` of it, so far, is too costly to read."""
    if others > MAX_PNG_CHUNKS or pictures > MAX_PNG_DATA_CHUNKS:
        return (f"a PNG of more than {MAX_PNG_CHUNKS} chunks besides its picture data, or its picture in more than "
                f"{MAX_PNG_DATA_CHUNKS:,} chunks")
    return None


class _PngHeader:
    """A PNG's chunks up to its first picture data (IDAT), as libpng reads them: its palette (PLTE), its
    transparencies (tRNS), and the _PNG_HEADER_CHUNKS whose colour space, gamma, primaries and EXIF it reads."""

    def __init__(self, colour_type: bytes) -> None:
        self.colour_type = colour_type  # (IHDR's: _PALETTE_COLOURS, or a key of _TRANSPARENCY_BYTES)
        self.palette: int | None = None  # the count of the palette's colours, once it has one
        self.chunks: list[bytes] = []  # the _PNG_HEADER_CHUNKS libpng reads (their kind and their payload's start)
        self.transparencies: list[tuple[int, int | None]] = []  # each tRNS: its length, the palette's count then
        self.grey_palette = False  # whether a PLTE was read in a picture of greys

    def read(self, kind: bytes, length: int, start: bytes) -> str | None:
        """Take the chunk (its kind, its length, its payload's first 33 bytes: one past a right cHRM); why libpng
        shows no picture of the PNG at it, or None."""
        if self.grey_palette and kind in _BEFORE_PALETTE:
            return (f"a PNG of greys holding a palette (PLTE), which the PNG standard forbids, and a {kind.decode()} "
                    "chunk after it: viewers read that chunk or ignore it by their version of libpng; save it again")
        if kind in _PNG_HEADER_CHUNKS and not (self.palette is not None and kind in _BEFORE_PALETTE):
            self.chunks.append(kind + start)
        elif kind == b"tRNS":
            self.transparencies.append((length, self.palette))
        elif kind == b"PLTE":
            if self.palette is not None:  # (libpng stops at a second: "duplicate")
                return "a PNG of more than one palette (PLTE): viewers show no picture of it; save it again"
            if self.colour_type == _PALETTE_COLOURS and not (0 < length <= _MOST_PALETTE_BYTES and length % 3 == 0):
                # libpng stops at it ("invalid"; an empty one, "Invalid palette"), where Pillow read the colours
                # whole and drew the rest black (exit 0)
                return ("a PNG whose palette (PLTE) is empty, or not a whole number of colours (1 to 256 of 3 bytes "
                        "each): viewers show no picture of it; save it again")
            self.palette = length // 3
            self.grey_palette = self.colour_type in _GREY_COLOURS
        elif kind == b"IDAT" and self.palette is None and self.colour_type == _PALETTE_COLOURS:
            return ("a PNG of palette colours with no palette (PLTE) before its picture data: viewers show no picture "
                    "of it; save it again")
        return None

    def problem(self) -> str | None:
        """Why what was read makes the PNG print otherwise than viewers show it, or None."""
        return _png_transparency_problem(self.colour_type, self.transparencies) or _png_header_problem(self.chunks)


# libpng (viewers) reads a PNG's transparency (tRNS) only from one chunk of the length its colour type gives (2
# bytes for greys, 6 for RGB, 1 to the palette's count after the palette): it ignores another, as Pillow reads
# any (the last of two): a palette picture of a tRNS before its PLTE, or longer than the palette, or a grey picture
# of a 4-byte tRNS, shown opaque, printed with its colour made transparent (exit 0)
_TRANSPARENCY_BYTES = {b"\x00": 2, b"\x02": 6}  # by colour type: grey, RGB; a palette's (3) is its own
_PALETTE_COLOURS = b"\x03"  # the colour type of a picture of palette colours, which libpng needs a PLTE for
# The colour types of greys (with or without alpha), which may hold no PLTE. libpng up to 1.6.46 takes one there
# for the palette, so that a colour space, gamma or primaries chunk after it is out of place and ignored (and a
# second PLTE stops it); from 1.6.47 it ignores the PLTE alone and reads them: a grey PNG of gamma 1.0 after a PLTE
# printed its grey 128 as 128, where newer viewers show 188 (exit 0). pnp refuses such a chunk there, and reads a
# grey PNG's PLTE otherwise as both do: as nothing
_GREY_COLOURS = (b"\x00", b"\x04")
_MOST_PALETTE_BYTES = 3 * 256


def _png_transparency_problem(colour_type: bytes, transparencies: list[tuple[int, int | None]]) -> str | None:
    """Why a PNG's tRNS chunks before its picture data (each its length and the palette's count of colours before
    it, or None) are read otherwise by libpng than by Pillow, or None."""
    if not transparencies:
        return None
    length, colours = transparencies[0]
    if len(transparencies) > 1:
        return ("a PNG of more than one transparency chunk (tRNS): viewers read the first, Pillow the last; save it "
                "again")
    wanted = _TRANSPARENCY_BYTES.get(colour_type)
    if (colour_type == _PALETTE_COLOURS and (colours is None or not 1 <= length <= colours)) or wanted not in (None, length):
        return ("a PNG whose transparency chunk (tRNS) is out of place or of the wrong length for its colours: "
                "viewers ignore it and show the picture opaque, Pillow reads it; save it again")
    return None


def _png_text_problem(kind: bytes, payload: bytes, text: int) -> tuple[int, str | None]:
    """(the bytes of a PNG's text or profile chunk once decompressed, counted up to the limits; why they are
    past MAX_PNG_CHUNK_TEXT_BYTES, or with the `text` bytes of the chunks before past MAX_PNG_TEXT_BYTES, or None)."""
    read, compressed = _png_text_bytes(kind, payload, min(MAX_PNG_CHUNK_TEXT_BYTES, MAX_PNG_TEXT_BYTES - text) + 1)
    if compressed and read > MAX_PNG_CHUNK_TEXT_BYTES:
        what, remedy = ("colour profile (iCCP)", "an sRGB profile, or none") if kind == b"iCCP" else \
            (f"compressed text chunk ({kind.decode()})", "no comments or XMP (an editor's history)")
        return read, (f"a PNG whose {what} is more than {MAX_PNG_CHUNK_TEXT_BYTES >> 20} MB decompressed, more than "
                      f"pnp reads of one chunk (a photograph's are a few KB): save it with {remedy}")
    if text + read > MAX_PNG_TEXT_BYTES:
        return read, (f"a PNG holding more than {MAX_PNG_TEXT_BYTES >> 20} MB of text and colour profiles (its "
                      "comments, XMP and profile; a photograph's are a few KB): save it without them")
    return read, None


# libpng (browsers) reads a PNG whose first chunk is its header (IHDR) alone, and its colour profile (iCCP) only
# under a keyword of 1 to 79 bytes and compression method 0: Pillow read a PNG of a chunk before its header, which
# viewers show as a broken picture, and a profile of no keyword or a long one, which viewers ignore, converting the
# picture from it (exit 0); it refused one of another method as "not a PNG"
_PNG_KEYWORD_BYTES = 79


def _png_chunk_problem(kind: bytes, start: bytes, first: bool, after_palette: bool = False) -> str | None:
    """Why a PNG's chunk (its kind and its payload's first bytes, `first` for its first chunk, `after_palette`
    for one after a PLTE chunk) is read otherwise by libpng than by Pillow, or None."""
    if first and kind != b"IHDR":
        return ("a PNG whose first chunk is not its header (IHDR): viewers show no picture of it; save it again")
    if (problem := _png_unknown_problem(kind, start, first)) is not None:
        return problem
    if kind != b"iCCP":
        return None
    if after_palette:
        return ("a PNG whose colour profile chunk (iCCP) comes after its palette (PLTE), where viewers ignore it and "
                "Pillow reads it: save it again, with an sRGB profile or none")
    keyword = start.find(b"\0")
    if not 1 <= keyword <= _PNG_KEYWORD_BYTES or start[keyword + 1:keyword + 2] != b"\0":
        return ("a PNG whose colour profile chunk (iCCP) is malformed (its name is not 1 to 79 bytes, or its "
                "compression is not zlib's): viewers ignore the profile, Pillow reads it or refuses the file; "
                "save it with an sRGB profile, or none")
    return None


# The lengths the PNG standard gives the chunks Pillow reads of one length: libpng (viewers) ignores one of another
# length as invalid, where Pillow refused a shorter one in its own words ("Truncated sRGB chunk"; after the picture
# data, only when it drew the picture) and read a longer one's first bytes (an sRGB chunk of 2 bytes, ignored by
# viewers, was read as the picture's colour space)
_PNG_CHUNK_BYTES = {b"gAMA": 4, b"cHRM": 32, b"sRGB": 1, b"pHYs": 9, b"cICP": 4}
_MOST_PNG_CHUNK_BYTES = 2**31 - 1  # the PNG standard's bound on a chunk's length


def _png_damage_problem(data: bytes, at: int, kind: bytes, length: int) -> str | None:
    """Why the PNG chunk at `at` (its kind and length) is damaged, or None: its checksum (CRC) is not its bytes'
    (libpng stops at a damaged critical chunk and drops an ancillary one; Pillow refused the file as "not a PNG"
    for one before the picture data, and printed a picture of a damaged IDAT, exit 0), or it is not of the length
    the PNG standard gives its kind (_PNG_CHUNK_BYTES)."""
    import zlib

    if length > _MOST_PNG_CHUNK_BYTES:  # (libpng stops at it, "PNG unsigned integer out of range"; Pillow read on)
        return (f"a damaged PNG: its {kind.decode(errors='replace')} chunk gives a length past the PNG standard's "
                f"most ({_MOST_PNG_CHUNK_BYTES:,} bytes); viewers show no picture of it; save it again")
    stored = data[at + 8 + length:at + 12 + length]
    if len(stored) == 4 and zlib.crc32(data[at + 8:at + 8 + length], zlib.crc32(kind)) != int.from_bytes(stored, "big"):
        return (f"a damaged PNG: the checksum (CRC) of its {kind.decode(errors='replace')} chunk is not that "
                "chunk's; viewers show no picture of it or drop the chunk; save it again")
    if kind in _PNG_CHUNK_BYTES and length != _PNG_CHUNK_BYTES[kind]:
        return (f"a PNG whose {kind.decode()} chunk is {length} bytes, not the {_PNG_CHUNK_BYTES[kind]} the PNG "
                "standard gives it: viewers ignore it, Pillow reads it or refuses the file; save it again")
    return None


# The chunks libpng must understand to show a PNG (its "critical" ones, named with a capital first letter), and
# the compression and filter methods of its header it knows (0 alone, the standard's)
_PNG_CRITICAL_CHUNKS = frozenset({b"IHDR", b"PLTE", b"IDAT", b"IEND"})
_PNG_HEADER_BYTES = 13  # the length of a header (IHDR), which libpng stops at in any other


def _png_unknown_problem(kind: bytes, start: bytes, first: bool) -> str | None:
    """Why libpng (viewers) stops at a PNG's chunk where Pillow reads on, or None: a second header (Pillow read
    the picture by the last one), a header not of 13 bytes or of a compression, filter or interlace method it does
    not know, a critical chunk
    it does not know or a chunk named otherwise than in four letters (Pillow passed over both), each of which
    printed a picture viewers show none of (exit 0)."""
    if kind == b"IHDR" and not first:
        return "a PNG of more than one header (IHDR): viewers show no picture of it; save it again"
    if kind == b"IHDR" and (len(start) != _PNG_HEADER_BYTES or start[10:12] != b"\0\0" or start[12] > 1):
        # (an interlace method past 1, Adam7's, was read by Pillow as Adam7; a header of 15 bytes, as its first 13)
        return ("a PNG whose header (IHDR) is not of 13 bytes, or gives a compression, filter or interlace method "
                "the PNG standard does not have: viewers show no picture of it; save it again")
    if not kind.isalpha():  # (bytes: ASCII letters alone)
        return "a PNG holding a chunk whose name is not four letters: viewers show no picture of it; save it again"
    if kind[0] & 0x20 == 0 and kind not in _PNG_CRITICAL_CHUNKS:
        return (f"a PNG holding a chunk ({kind.decode()}) that viewers must know to show the picture and do not: "
                "they show no picture of it; save it again")
    return None


# A PNG says its colour space in one chunk: a colour profile (iCCP), sRGB, or video code points (cICP). Viewers read
# only one where a file holds several, and not the same one (libpng the first of iCCP and sRGB, the PNG standard
# cICP before iCCP before sRGB), while Pillow reads the last iCCP: a PNG of an sRGB profile then a Display P3 one
# printed converted from P3, where viewers show it as sRGB (exit 0). Pillow reads no cICP: one saying other
# colours than sRGB's (a wide-gamut or HDR picture, which browsers convert) printed its numbers as sRGB.
_PNG_COLOUR_CHUNKS = frozenset({b"iCCP", b"sRGB", b"cICP"})
_SRGB_CODE_POINTS = b"cICP\x01\x0d\x00\x01"  # BT.709 primaries, sRGB's tone curve, RGB, full range


# Without one of them, Skia (Chromium) and Firefox apply a PNG's gamma (gAMA) and primaries (cHRM) chunks, where
# Pillow reads none: a PNG of gamma 1.0 printed its grey 128 as 128 where browsers show 188 (exit 0). Old Photoshop
# and GIMP files give sRGB's own numbers in them: those print as they are seen. In the PNG's units (1/100,000):
# gamma 1/2.2 within about 2%, and sRGB's white (D65) and primaries within 0.01
_PNG_GAMMA_CHUNKS = frozenset({b"gAMA", b"cHRM"})
_SRGB_GAMMA = range(45_000, 46_001)
_SRGB_CHROMATICITIES = (31_270, 32_900, 64_000, 33_000, 30_000, 60_000, 15_000, 6_000)  # white, red, green, blue
_CHROMATICITY_TOLERANCE = 1_000


def _png_gamma_is_srgb(chunk: bytes) -> bool:
    """Whether a gAMA or cHRM chunk (its kind and payload) gives sRGB's numbers (_SRGB_GAMMA,
    _SRGB_CHROMATICITIES); False too for one of a wrong length."""
    kind, payload = chunk[:4], chunk[4:]
    if kind == b"gAMA":
        return len(payload) == 4 and int.from_bytes(payload, "big") in _SRGB_GAMMA
    numbers = [int.from_bytes(payload[i:i + 4], "big") for i in range(0, len(payload), 4)]
    return len(payload) == 32 and all(abs(n - srgb) <= _CHROMATICITY_TOLERANCE
                                      for n, srgb in zip(numbers, _SRGB_CHROMATICITIES, strict=True))


# The chunks libpng reads before the picture data alone (one after it is ignored), as Pillow reads them when it opens
# the file: the colour space, gamma and primaries, and the EXIF of its orientation
_PNG_HEADER_CHUNKS = _PNG_COLOUR_CHUNKS | _PNG_GAMMA_CHUNKS | {b"eXIf"}
# ...of which the colour space, gamma and primaries only before the palette (PLTE), as the PNG standard orders them:
# libpng ignores one after it, as out of place, where Pillow reads it (a palette picture of a Display P3 profile
# after its PLTE, which viewers show as sRGB, printed converted from P3, exit 0; one of gamma 1.0 there was refused)
_BEFORE_PALETTE = _PNG_COLOUR_CHUNKS | _PNG_GAMMA_CHUNKS


def _png_header_problem(chunks: list[bytes]) -> str | None:
    """Why a PNG's _PNG_HEADER_CHUNKS before its picture data (each its kind and the start of its payload) make
    it print otherwise than viewers show it, or None."""
    if sum(c[:4] == b"eXIf" for c in chunks) > 1:
        return ("a PNG of more than one EXIF chunk (eXIf): viewers turn it by the first one's orientation, Pillow by "
                "the last one's; save it with one")
    return _png_colour_problem(chunks)


def _png_colour_problem(chunks: list[bytes]) -> str | None:
    """Why a PNG's colour space chunks, and gamma and primaries chunks (among `chunks`, each its kind and the start
    of its payload), cannot be printed as viewers show it, or None."""
    first: dict[bytes, bytes] = {}  # the first gAMA and the first cHRM: libpng ignores another of a kind it has
    for c in chunks:
        if c[:4] in _PNG_GAMMA_CHUNKS:
            first.setdefault(c[:4], c)
    gamma = list(first.values())
    chunks = [c for c in chunks if c[:4] in _PNG_COLOUR_CHUNKS]
    if not chunks and not all(_png_gamma_is_srgb(c) for c in gamma):
        return ("a PNG whose gamma or primaries (" + ", ".join(dict.fromkeys(c[:4].decode() for c in gamma))
                + " chunks) are not sRGB's and that has no colour profile: browsers apply them, pnp prints its "
                "numbers as sRGB's; save it with an sRGB profile, or none")
    if len(chunks) > 1 and not _png_colour_chunks_agree(chunks):
        return ("a PNG that gives its colour space more than once (" + ", ".join(c[:4].decode() for c in chunks)
                + " chunks): viewers read different ones; save it with one colour profile")
    if chunks and chunks[0][:4] == b"cICP" and chunks[0] != _SRGB_CODE_POINTS:
        return ("a PNG whose colours are given as video code points (a cICP chunk) other than sRGB's, which pnp "
                "cannot convert: save it with an ICC colour profile, or as sRGB")
    return None


def _png_colour_chunks_agree(chunks: list[bytes]) -> bool:
    """Whether a PNG's several colour space chunks (each its kind and the start of its payload) all say sRGB, so
    that viewers show it as sRGB whichever they read: sRGB chunks and sRGB's code points (cICP), and beside sRGB
    chunks one colour profile, which profile_problem refuses unless it is sRGB's too (Pillow tells it the sRGB
    chunk; it reads no cICP, so a profile beside one is refused here)."""
    kinds = [c[:4] for c in chunks]
    if kinds.count(b"iCCP") > 1 or (b"iCCP" in kinds and b"cICP" in kinds):
        return False
    return all(c[:4] in (b"iCCP", b"sRGB") or c == _SRGB_CODE_POINTS for c in chunks)


# A PNG's text (tEXt, zTXt, iTXt: comments, an XMP packet), and its colour profile (iCCP), are read, and
# decompressed, at each opening: 63 chunks of 1 MB each (Pillow's most) fit in a 68 KB file, and each opening took a
# second
MAX_PNG_TEXT_BYTES = MAX_XMP_BYTES
_PNG_TEXT_CHUNKS = frozenset({b"tEXt", b"zTXt", b"iTXt"})
# ...and each compressed chunk of it (zTXt, a compressed iTXt) and its colour profile (iCCP), decompressed, at most
# this: Pillow's own cap on one chunk (its MAX_TEXT_CHUNK), past which it refused the picture in its own words
MAX_PNG_CHUNK_TEXT_BYTES = 1024 * 1024


def _png_text_bytes(kind: bytes, payload: bytes, most: int) -> tuple[int, bool]:
    """(the bytes of a PNG text chunk's text, or of its colour profile (iCCP), once decompressed, counted up to
    `most`; whether they are compressed)."""
    import zlib

    keyword_end = payload.find(b"\0")
    if kind in (b"zTXt", b"iCCP"):  # keyword \0 compression method, compressed data
        compressed: bytes | None = payload[keyword_end + 2:]
    elif kind == b"iTXt" and payload[keyword_end + 1:keyword_end + 2] == b"\1":
        # keyword \0 compressed method language \0 translated keyword \0 text
        language_end = payload.find(b"\0", keyword_end + 3)
        compressed = payload[payload.find(b"\0", language_end + 1) + 1:]
    else:
        compressed = None
    if compressed is None or keyword_end < 0:
        return len(payload), False
    try:
        return len(zlib.decompressobj().decompress(compressed, most)), True
    except zlib.error:  # Pillow reads a damaged one as no text
        return 0, True


def structure_problem(data: bytes) -> str | None:
    """Why a JPEG's or PNG's structure is too costly to read, or says its colours otherwise than Pillow reads
    them, or a JPEG, PNG or WebP is CUT_SHORT, or None (jpeg_problem, png_problem, webp_problem)."""
    return jpeg_problem(data) or png_problem(data) or webp_problem(data)


# A still WebP holds a few chunks (VP8X, ICCP, ANIM, ALPH, VP8 or VP8L, EXIF, XMP); an animated one is refused
# (animation_problem): its chunks are walked for a cut up to this many, no further
MAX_WEBP_CHUNKS = 64


def webp_problem(data: bytes) -> str | None:
    """CUT_SHORT for a WebP whose RIFF container, or one of its first MAX_WEBP_CHUNKS chunks, says it holds more
    bytes than the file does, else None; None too for what is no WebP. A file cut short whose container's size
    was written again after the cut (as a tool mending the header does) was refused by Pillow in its own words
    ("could not create decoder object")."""
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return None
    end = 8 + int.from_bytes(data[4:8], "little")
    if end > len(data):
        return CUT_SHORT
    at = 12
    for _ in range(MAX_WEBP_CHUNKS):
        if at + 8 > end:
            break
        length = int.from_bytes(data[at + 4:at + 8], "little")
        if at + 8 + length > len(data):
            return CUT_SHORT
        at += 8 + length + (length & 1)  # (a chunk of an odd length is padded to an even one)
    return None


# The samples of a pixel of each colour type of a PNG's header: grey, RGB, palette, grey and alpha, RGBA
_PNG_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_INFLATED_STEP = 1024 * 1024


def png_data_cut(data: bytes) -> bool:
    """Whether a PNG whose chunks are whole ends its picture data (its IDAT chunks, joined) before their
    compressed stream ends, as a file whose last IDAT chunks were lost does: Pillow refused it in its own words
    ("image file is truncated"). Read only once Pillow has failed to decode the picture (its data is inflated
    again, at most as many bytes as its pixels could need), so that a file decoded whole is read but once, or for
    a picture inside an icon, which svglib decodes only as it draws it. False too for what is no PNG."""
    import zlib

    if data[:8] != _PNG_SIGNATURE or len(data) < 26:  # (a signature and a header's size and depth)
        return False
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    row_bits = width * _PNG_SAMPLES.get(data[25], 4) * min(data[24], 16)
    most = height * ((row_bits + 7) // 8 + 8) + _INFLATED_STEP  # (each row's filter byte; an interlaced one's 7 more)
    stream, inflated, at = zlib.decompressobj(), 0, 8
    try:
        for _ in range(MAX_PNG_CHUNKS + MAX_PNG_DATA_CHUNKS + 2):
            if at + 8 > len(data) or stream.eof or inflated > most:
                break
            kind, length = data[at + 4:at + 8], int.from_bytes(data[at:at + 4], "big")
            if kind == b"IEND":
                break
            if kind == b"IDAT":
                pending = bytes(data[at + 8:at + 8 + length])
                while pending and not stream.eof and inflated <= most:
                    inflated += len(stream.decompress(pending, _INFLATED_STEP))
                    pending = stream.unconsumed_tail
            at += 12 + length
    except zlib.error:  # damaged, not cut: said in Pillow's words
        return False
    return inflated > 0 and not stream.eof and inflated <= most


def checked_picture(source: io.BytesIO, mark: Mark | None, shown: str) -> tuple[tuple[int, int], bool]:
    """(its (width, height) in pixels as it is seen, whether it can be embedded as it is) of the picture in
    `source` (the BytesIO of the bytes that will be used: checked and used, a file's bytes must be read once),
    read from its header: a picture whose EXIF says the camera was turned is seen turned (a phone's portrait
    photo is stored on its side), and it, or one of more than 8 bits a sample (DEEP_MODES) or with a transparent
    colour (colour_keyed), must be redrawn (pnp.draw.pictures) to print as it is seen. A file padded with bytes
    its pixels do not need (padded) is refused. DataError at `mark`, naming the image as
    `shown`, unless it is one of IMAGE_FORMATS and of at most MAX_IMAGE_PIXELS and MAX_IMAGE_SIDE (its pixels
    are decoded, once, by pnp.draw.pictures)."""
    if problem := _file_structure_problem(source):
        raise DataError(f"image {named(shown)} cannot be used: {problem}", mark)
    with opened_image(source, shown, mark) as image:
        held = orientation(image)
        size = image.size[::-1] if held in TURNED else image.size
        try:
            problem = profile_problem(image)
        except LimitError as e:  # the game's time ran out reading it: said here, at the picture
            raise DataError(f"image {named(shown)} cannot be used: {e.message}", mark) from None
        if problem:
            raise DataError(f"image {named(shown)} cannot be used: {problem}", mark)
        as_is = drawn_as_is(image, held)
        if padded(file_bytes := _source_bytes(source), image.size):
            raise DataError(f"image {named(shown)} cannot be used: a file of {file_bytes:,} bytes for "
                            f"{image.size[0]}x{image.size[1]} px, more than its pixels could need "
                            f"({MAX_BYTES_PER_PIXEL} bytes a pixel and 2 MB): data after its picture?", mark)
    return size, as_is


def _source_bytes(source: io.BytesIO) -> int:
    """The bytes of a picture's BytesIO (its value's length: getbuffer would copy them)."""
    return len(source.getvalue())


@contextlib.contextmanager
def opened_image(source: io.BytesIO, shown: str, mark: Mark | None) -> Iterator["Image.Image"]:
    """The picture in `source` (a file's bytes, read once) opened as one of IMAGE_FORMATS, of at most
    MAX_IMAGE_PIXELS and MAX_IMAGE_SIDE; Pillow's errors while it is open or decoded in the block are DataError
    at `mark`."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():  # Pillow warns past its own cap; the one here is checked below
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(source, formats=IMAGE_FORMATS) as image:
                size = image.size
                over = f"{MAX_IMAGE_PIXELS:,} pixels" if size[0] * size[1] > MAX_IMAGE_PIXELS else \
                    f"{MAX_IMAGE_SIDE:,} pixels on a side" if max(size) > MAX_IMAGE_SIDE else None
                if over:
                    raise DataError(f"image {named(shown)} cannot be used: {size[0]}x{size[1]} px, more than {over}", mark)
                if problem := animation_problem(image):
                    raise DataError(f"image {named(shown)} cannot be used: {problem}", mark)
                if len(exif := image.info.get("exif") or b"") > MAX_EXIF_BYTES:
                    raise DataError(f"image {named(shown)} cannot be used: its EXIF data is {len(exif):,} bytes, more than "
                                    f"{MAX_EXIF_BYTES >> 10} KB (a camera's fits a JPEG's 64 KB segment)", mark)
                if problem := metadata_problem(image):
                    raise DataError(f"image {named(shown)} cannot be used: {problem}", mark)
                yield image
    except UnidentifiedImageError:
        raise DataError(f"image {named(shown)} cannot be used: {_unread_kind(source)}", mark) from None
    except Image.DecompressionBombError:
        raise DataError(f"image {named(shown)} cannot be used: more than {MAX_IMAGE_PIXELS:,} pixels", mark) \
            from None
    except (OSError, ValueError, SyntaxError, EOFError):  # Pillow's errors for damaged files
        if _picture_data_cut(source):
            raise DataError(f"image {named(shown)} cannot be used: {CUT_SHORT}", mark) from None
        raise DataError(f"image {named(shown)} cannot be read: {DAMAGED}", mark) from None


def _picture_data_cut(source: io.BytesIO) -> bool:
    """Whether the PNG in `source` (that Pillow failed to decode) is png_data_cut; False for another picture."""
    source.seek(0)
    if source.read(8) != _PNG_SIGNATURE:
        return False
    with _whole(source) as data:
        return png_data_cut(data)


# The bit depths a PNG's header may give each colour type (grey, RGB, palette, grey and alpha, RGBA)
_PNG_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}


def _unread_kind(source: io.BytesIO) -> str:
    """What the file in `source`, which Pillow opened as none of IMAGE_FORMATS, is, in pnp's words: a JPEG, PNG or
    WebP of a kind Pillow does not read is said as one (a 12-bit JPEG was said to be "not a PNG, JPEG or WebP")."""
    if found := unread_kind(source):
        return found
    source.seek(0)
    start = source.read(12)
    if not start:
        return "an empty file (0 bytes), no picture: save the picture again"
    if any(len(start) < len(begins) and begins.startswith(start) for begins in (_PNG_SIGNATURE, b"\xff\xd8\xff", b"RIFF")):
        return CUT_SHORT  # (ended within the bytes that begin a PNG, a JPEG or a WebP: it was one)
    if start[:4] == b"RIFF" and start[8:12] == b"WEBP":
        return "a WebP whose header pnp cannot read (damaged, or of a newer kind): save it again"
    if _svg_start(start + source.read(_SVG_LOOKED_AT)):
        return ("an SVG drawing, which pnp prints as an icon, not as an image: put it in layouts/<game>/icons/ and "
                "draw it with `type: icon` (or `:name:` in text)")
    source.seek(0)
    if _LFS_POINTER.match(source.read(64)):  # (its first line is at most 44 bytes)
        return ("a Git LFS pointer, a few lines standing for the picture, which was never fetched: run "
                "`git lfs pull` (or get the folder with its pictures)")
    kind = next((kind for begins, kind in _OTHER_PICTURES if begins(start)), None)
    if kind is not None:
        return f"{kind}, which pnp does not print (it prints PNG, JPEG and WebP images): save it as PNG"
    return "not a PNG, JPEG or WebP image"


# what a file of a kind pnp does not print begins as, and that kind, said instead of "not a PNG, JPEG or WebP image"
# (a GIF, a TIFF, a phone's HEIC photo, each an image to whoever gave it)
_OTHER_PICTURES: tuple[tuple[Callable[[bytes], bool], str], ...] = (
    (lambda start: start[:6] in (b"GIF87a", b"GIF89a"), "a GIF image"),
    (lambda start: start[:2] == b"BM" and start[6:10] == bytes(4), "a BMP image"),  # (its reserved bytes are 0)
    (lambda start: start[:4] in (b"II*\0", b"MM\0*"), "a TIFF image"),
    (lambda start: start[4:8] == b"ftyp" and start[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"avif"),
     "a HEIF image (HEIC or AVIF, as a phone saves photos)"),
    (lambda start: start[:4] == b"8BPS", "a Photoshop document (PSD)"),
    (lambda start: start[:4] == b"%PDF", "a PDF document"),
    (lambda start: start[:4] == b"%!PS" or start[:4] == b"\xc5\xd0\xd3\xc6", "a PostScript (EPS) file"),
)
# how a Git LFS pointer file begins (its spec's first line, and the spec's name before LFS was named so): what a
# repository of LFS pictures holds at every commit, and in a folder cloned without LFS, in place of each picture;
# it was said to be "not a PNG, JPEG or WebP image", and its designer sees the picture in their own folder
_LFS_POINTER = re.compile(rb"version https://(?:git-lfs|hawser)\.github\.com/spec/v1\n")
_SVG_LOOKED_AT = 4096  # the bytes of a file looked through for an <svg> element, past an XML declaration and comments


# an SVG drawing's start: its first element <svg, past a byte-order mark, an XML declaration, comments and a
# doctype (a web page holding an <svg> further on is none)
_SVG_START = re.compile(rb"(?:\xef\xbb\xbf)?(?:\s|<\?.*?\?>|<!--.*?-->|<!doctype[^>\[]*(?:\[.*?\])?\s*>)*<svg[\s>/]",
                        re.DOTALL | re.IGNORECASE)


def _svg_start(start: bytes) -> bool:
    """Whether `start` (a file's first bytes) begins as an SVG drawing does (_SVG_START)."""
    return _SVG_START.match(start) is not None


def unread_kind(source: io.BytesIO) -> str | None:
    """What the file in `source`, which Pillow opened as no picture, is, where it begins as a JPEG or a PNG does
    (a JPEG of samples of other than 8 bits, a PNG of a bit depth its colour type does not have, or one whose
    header cannot be read), in pnp's words; None for any other file."""
    source.seek(0)
    start = source.read(16)
    if start.startswith(b"\xff\xd8"):
        with _whole(source) as data:
            bits = _jpeg_precision(data)
        if bits is not None and bits != 8:
            return (f"a JPEG of {bits}-bit samples, which pnp cannot read (it prints JPEGs of 8-bit samples): save it "
                    "as an ordinary 8-bit JPEG")
        return "a JPEG whose header pnp cannot read (damaged, or of a kind viewers do not show): save it again"
    if start.startswith(_PNG_SIGNATURE):
        if len(start) == 16 and start[12:16] == b"IHDR":
            with _whole(source) as data:
                depth, colours = data[24:25], data[25:26]
            if depth and colours and depth[0] not in _PNG_DEPTHS.get(colours[0], ()):
                return (f"a PNG of a bit depth ({depth[0]}) and colour type ({colours[0]}) the PNG standard does not "
                        "pair: viewers show no picture of it; save it again")
        return "a PNG whose header pnp cannot read (damaged): save it again"
    return None


def _jpeg_precision(data: bytes) -> int | None:
    """The bits of a sample that a JPEG's first frame (SOFn) gives, or None where it has none."""
    frame = _frame_marker(data)
    found = data[frame[0] + 4:frame[0] + 5] if frame else b""
    return found[0] if found else None


def metadata_problem(image: "Image.Image") -> str | None:
    """Why an open picture's colour profile or XMP packet is too long to read at each opening, or None."""
    for key, name, most, remedy in (("icc_profile", "colour profile (ICC)", MAX_PROFILE_BYTES, "save it with an sRGB "
                                     "profile, or none"),
                                    ("xmp", "XMP metadata", MAX_XMP_BYTES, "save it without its XMP (an editor's "
                                     "history of it)")):
        found = image.info.get(key) or b""
        if len(found) > most:
            return f"its {name} is {len(found):,} bytes, more than {most >> 20} MB (a photograph's is a few KB): {remedy}"
    return None


def _file_structure_problem(f: io.BytesIO) -> str | None:
    """structure_problem of a picture file's bytes before Pillow opens them (a JPEG's, a PNG's or a WebP's alone)."""
    with _whole(f) as data:
        if not data.startswith((b"\xff\xd8", _PNG_SIGNATURE, b"RIFF")):
            return None
        return structure_problem(data)
