"""Pictures are embedded with the pixels their printed size needs (600 dpi) and no more, in the same place,
with the same bytes on every build; a picture that has no more than that is embedded as it is."""

import base64
import hashlib
import io

import pdfplumber
import pikepdf
import pytest

from PIL import Image

from conftest import make_project, run

MM = 72 / 25.4
# a 20 x 20 mm box: a 2:1 picture is fitted 20 mm wide and 10 mm high, centred (5 mm down from the box's top)
CARD = ("size: poker\nelements:\n"
        "  - {type: image, src: images/art.EXT, x: 5, y: 5, w: 20, h: 20}\n")


def _built(tmp_path, name, size, ext="png"):
    root = make_project(tmp_path / name, {"layouts/mini/card.yaml": CARD.replace("EXT", ext)},
                        images={f"layouts/mini/images/art.{ext}": size})
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    return root, root / "output" / "mini" / "mini-cards-a4.pdf"


def _pictures(pdf):
    """(box in mm: x0, top, x1, bottom), pixels and filter of each picture on the first page."""
    with pdfplumber.open(pdf) as document:
        return [((round(i["x0"] / MM, 1), round(i["top"] / MM, 1), round(i["x1"] / MM, 1), round(i["bottom"] / MM, 1)),
                 tuple(i["srcsize"]), str(i["stream"].get("Filter"))) for i in document.pages[0].images]


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    root, pdf = _built(tmp_path_factory.mktemp("big"), "proj", [3000, 1500])
    return root, pdf, pdf.read_bytes()


def test_a_picture_is_resampled_to_600_dpi_of_its_printed_size_in_the_same_place(big, tmp_path):
    _, pdf, _ = big
    _, small_pdf = _built(tmp_path, "small", [300, 150])  # 381 dpi there: embedded as it is
    resampled, kept = _pictures(pdf), _pictures(small_pdf)
    assert len(resampled) == len(kept) == 4  # the deck's four cards
    # 20 mm at 600 dpi is 472.4 pixels: 473 x 237
    assert {pixels for _, pixels, _ in resampled} == {(473, 237)}
    assert {pixels for _, pixels, _ in kept} == {(300, 150)}
    assert [box for box, _, _ in resampled] == [box for box, _, _ in kept]
    x0, top, x1, bottom = resampled[0][0]
    assert (round(x1 - x0, 1), round(bottom - top, 1)) == (20.0, 10.0)


def test_a_rebuild_of_a_resampled_picture_gives_the_same_bytes(big):
    root, pdf, first = big
    assert run(root, "build", "mini", "--force").exit_code == 0
    assert pdf.read_bytes() == first


def test_a_resampled_jpeg_stays_a_jpeg(tmp_path):
    _, pdf = _built(tmp_path, "jpeg", [3000, 1500], "jpg")
    pictures = _pictures(pdf)
    assert {pixels for _, pixels, _ in pictures} == {(473, 237)}
    assert all("DCTDecode" in kind for _, _, kind in pictures)


def test_two_picture_files_of_the_same_bytes_are_drawn_from_one_form(tmp_path):
    """Each card names its own file, two of them holding the same picture: resampled, they were two forms of
    one name, and ReportLab ended the build in a traceback while writing the PDF."""
    card = CARD.replace("images/art.EXT", "\"images/{{ 'a' if card.power > 2 else 'b' }}.png\"")
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card},
                        images={"layouts/mini/images/a.png": [3000, 1500], "layouts/mini/images/b.png": [3000, 1500]})
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    pictures = _pictures(root / "output" / "mini" / "mini-cards-a4.pdf")
    assert len(pictures) == 4 and {pixels for _, pixels, _ in pictures} == {(473, 237)}


def _built_small_and_big(tmp_path, mode: str, colour, ext: str):
    """The cards PDF of a card showing one picture of `mode` and `colour` twice, at 20 x 20 mm: a 300 x 150
    file (embedded as it is) and a 3000 x 1500 one (resampled)."""
    card = ("size: poker\nelements:\n"
            f"  - {{type: image, src: images/small.{ext}, x: 5, y: 5, w: 20, h: 20}}\n"
            f"  - {{type: image, src: images/big.{ext}, x: 5, y: 40, w: 20, h: 20}}\n")
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    (root / "layouts/mini/images").mkdir()
    for name, size in (("small", (300, 150)), ("big", (3000, 1500))):
        Image.new(mode, size, colour).save(root / f"layouts/mini/images/{name}.{ext}")
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    return root / "output" / "mini" / "mini-cards-a4.pdf"


def test_a_16_bit_greyscale_picture_prints_its_greys_resampled_or_not(tmp_path):
    # Pillow and ReportLab clipped 16-bit samples to 8 bits: a mid grey (40000 of 65535) printed white
    with pikepdf.open(_built_small_and_big(tmp_path, "I;16", 40000, "png")) as pdf:
        greys = {pikepdf.PdfImage(image).as_pil_image().convert("L").getpixel((0, 0))
                 for image in _images_in(pdf.pages[0].obj)}
    assert greys == {156}  # 40000 / 256, in both


def test_a_cmyk_jpeg_prints_the_same_inks_resampled_or_not(tmp_path):
    # resampled, a CMYK photo was made RGB by Pillow's reckoning: drawn small it printed other colours than
    # drawn large (its inks embedded as they are)
    with pikepdf.open(_built_small_and_big(tmp_path, "CMYK", (200, 30, 0, 40), "jpg")) as pdf:
        images = list(_images_in(pdf.pages[0].obj))
        inks = {(str(image.ColorSpace), tuple(pikepdf.PdfImage(image).as_pil_image().getpixel((0, 0))))
                for image in images}
    assert len(images) == 2 and len(inks) == 1 and next(iter(inks))[0] == "/DeviceCMYK", inks


def _short_jfif(jpeg):
    """A JFIF segment too short for ReportLab's reading of it (libjpeg and Pillow read on past it)."""
    return jpeg[:2] + b"\xff\xe0\x00\x05abc" + jpeg[2:]


def _arithmetic_behind_a_restart_marker(jpeg):
    """An arithmetic-coded frame, behind a restart marker (two bytes, no length) and a comment holding a
    baseline frame's marker where a walk reading the restart marker's next two bytes as its length lands."""
    frame = jpeg.find(b"\xff\xc0")
    comment = bytearray(b"x" * 65533)
    comment[65530:65532] = b"\xff\xc0"
    return (jpeg[:2] + b"\xff\xd0\xff\xfe\xff\xff" + bytes(comment) + jpeg[2:frame + 1] + b"\xc9"
            + jpeg[frame + 2:])


@pytest.mark.parametrize("hostile, colours_kept", [(_short_jfif, True), (_arithmetic_behind_a_restart_marker, False)])
def test_a_jpeg_reportlab_would_read_otherwise_than_libjpeg_prints_as_pillow_reads_it(tmp_path, hostile, colours_kept):
    """A JPEG is embedded as it is only when ReportLab reads its header as libjpeg does: a JFIF segment of 3
    bytes (ReportLab's reading failed, and the picture printed blank with exit 0), or an arithmetic-coded frame
    behind a restart marker (a walk taking the marker's next bytes for a length found a baseline frame inside a
    comment), is redrawn as a baseline JPEG of its own size (red above blue where the coding is the one written:
    Pillow reads Huffman data as arithmetic coding into other pixels)."""
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "jpg")})
    (root / "layouts/mini/images").mkdir()
    picture = Image.new("RGB", (300, 150), "red")
    picture.paste((0, 0, 255), (0, 75, 300, 150))
    stored = io.BytesIO()
    picture.save(stored, "JPEG")
    (root / "layouts/mini/images/art.jpg").write_bytes(hostile(stored.getvalue()))
    result = run(root, "build", "mini")
    if not colours_kept and result.exit_code == 1:  # Pillow before 13 cannot decode Huffman data as arithmetic
        assert "layouts/mini/card.yaml:3:24: error: image 'images/art.jpg' cannot be read" in result.output
        return  # (refused at its line, never embedded broken)
    assert result.exit_code == 0, result.output
    with pikepdf.open(root / "output" / "mini" / "mini-cards-a4.pdf") as document:
        images = _images_in(document.pages[0])
        embedded = {base64.a85decode(bytes(image.read_raw_bytes()).strip()[:-2]) for image in images}
        sizes = {(int(image.Width), int(image.Height)) for image in images}
    assert len(embedded) == 1 and sizes == {(300, 150)}, sizes
    with Image.open(io.BytesIO(next(iter(embedded)))) as drawn:
        assert drawn.size == (300, 150) and b"\xff\xc9" not in next(iter(embedded))
        top, bottom = drawn.convert("RGB").getpixel((150, 30)), drawn.convert("RGB").getpixel((150, 120))
    assert not colours_kept or (top[0] > 200 > top[2] and bottom[2] > 200 > bottom[0]), (top, bottom)


def _two_pictures_project(tmp_path, first, second, height):
    """A project whose card draws images/<first>.png above images/<second>.png, each 20 mm x `height` mm; its
    images folder made, empty."""
    card = ("size: poker\nelements:\n"
            f"  - {{type: image, src: images/{first}.png, x: 5, y: 5, w: 20, h: {height}}}\n"
            f"  - {{type: image, src: images/{second}.png, x: 5, y: 40, w: 20, h: {height}}}\n")
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    (root / "layouts/mini/images").mkdir()
    return root


def test_a_pictures_transparent_colour_is_transparent_in_print(tmp_path):
    # a PNG may say one colour of an RGB or a 16-bit grey picture is transparent (tRNS): ReportLab reads that of
    # a palette only, so the transparent part printed in its colour; the picture is redrawn with an alpha channel
    root = _two_pictures_project(tmp_path, "rgb", "grey", 20)
    rgb = Image.new("RGB", (300, 150), (255, 0, 0))
    rgb.paste((0, 0, 255), (0, 0, 150, 150))
    rgb.save(root / "layouts/mini/images/rgb.png", transparency=(255, 0, 0))
    grey = Image.new("I;16", (300, 150), 40000)
    grey.paste(1000, (0, 0, 150, 150))
    grey.save(root / "layouts/mini/images/grey.png", transparency=40000)
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    with pikepdf.open(root / "output" / "mini" / "mini-cards-a4.pdf") as pdf:
        masks = [pikepdf.PdfImage(image.SMask).as_pil_image().convert("L") for image in _images_in(pdf.pages[0].obj)]
    assert sorted((m.getpixel((0, 0)), m.getpixel((299, 0))) for m in masks) == [(255, 0), (255, 0)]


def _grey_png(depth, transparent_grey, rows):
    """A grey PNG of `depth` bits a sample whose grey `transparent_grey` is transparent (tRNS), written chunk by
    chunk: Pillow writes no grey of 2 or 4 bits."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 8 * len(rows[0]) // depth, len(rows), depth, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"tRNS", struct.pack(">H", transparent_grey))
            + chunk(b"IDAT", zlib.compress(b"".join(b"\0" + row for row in rows))) + chunk(b"IEND", b""))


def test_a_low_bit_grey_pictures_transparent_grey_is_transparent_in_print(tmp_path):
    # Pillow reads a 2- or 4-bit grey PNG as 8-bit greys, and keeps its transparent grey (tRNS) as the file
    # writes it: white (3 of 2 bits, 15 of 4) matched no 8-bit grey (255), and printed opaque
    root = _two_pictures_project(tmp_path, "two", "four", 10)
    for name, depth in (("two", 2), ("four", 4)):  # 400 x 100 px, the left half white, the right half black
        row = b"\xff" * (25 * depth) + b"\0" * (25 * depth)
        (root / f"layouts/mini/images/{name}.png").write_bytes(_grey_png(depth, 2**depth - 1, [row] * 100))
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    with pikepdf.open(root / "output" / "mini" / "mini-cards-a4.pdf") as pdf:
        masks = [pikepdf.PdfImage(image.SMask).as_pil_image().convert("L") for image in _images_in(pdf.pages[0].obj)]
    assert sorted((m.getpixel((0, 0)), m.getpixel((m.width - 1, 0))) for m in masks) == [(0, 255), (0, 255)]


def _images_in(xobject):
    """The pictures a page or an XObject is or holds (a resampled picture is drawn from a form)."""
    if xobject.get("/Subtype") == "/Image":
        return [xobject]
    inners = xobject.get("/Resources", {}).get("/XObject", {})
    return [image for name in inners.keys() for image in _images_in(inners[name])]  # (pikepdf 8: no .values())


@pytest.mark.parametrize("kind", ["JPEG", "MPO", "PNG"])
def test_a_photo_turned_by_its_exif_orientation_prints_upright_resampled_or_not(tmp_path, kind):
    # a phone stores a portrait photo on its side, with EXIF orientation 6: it printed on its side (a photo with
    # a second picture after it, a multi-picture JPEG, too once it was fixed for a JPEG; a PNG's EXIF, which
    # browsers turn it by, was not read: it printed on its side)
    ext = "png" if kind == "PNG" else "jpg"
    card = ("size: poker\nelements:\n"
            f"  - {{type: image, src: images/small.{ext}, x: 5, y: 5, w: 20, h: 20, min_dpi: 1}}\n"  # as it is
            f"  - {{type: image, src: images/big.{ext}, x: 5, y: 40, w: 20, h: 20}}\n")  # resampled
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    (root / "layouts/mini/images").mkdir()
    for name, side in (("small", 40), ("big", 600)):
        stored = Image.new("RGB", (2 * side, side), "red")
        stored.paste((0, 0, 255), (0, 0, side, side))  # its left half blue: the top once turned upright
        exif = stored.getexif()
        exif[0x0112] = 6
        more = {"save_all": True, "append_images": [Image.new("RGB", (2 * side, side), "green")]} if kind == "MPO" else {}
        stored.save(root / f"layouts/mini/images/{name}.{ext}", kind, exif=exif.tobytes(), **more)
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    with pikepdf.open(root / "output" / "mini" / "mini-cards-a4.pdf") as pdf:
        drawn = [pikepdf.PdfImage(image).as_pil_image().convert("RGB") for image in _images_in(pdf.pages[0].obj)]
    assert len(drawn) == 2
    for picture in drawn:
        width, height = picture.size
        assert abs(height - 2 * width) <= 1  # portrait, as viewers show it (resampled: rounded up)
        top, bottom = picture.getpixel((width // 2, height // 4)), picture.getpixel((width // 2, 3 * height // 4))
        assert top[2] > 200 > top[0] and bottom[0] > 200 > bottom[2]  # blue above red



def test_a_picture_padded_past_what_its_pixels_need_is_refused_at_its_element(tmp_path):
    """A 400 x 200 JPEG with 3 MB after its end: embedded as it was, every PDF printing it carried the 3 MB (a
    game padding one to 100 MB made each export spend 18 s more; a padded WebP is read whole at each opening)."""
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "jpg")},
                        images={"layouts/mini/images/art.jpg": [400, 200]})
    art = root / "layouts" / "mini" / "images" / "art.jpg"
    art.write_bytes(art.read_bytes() + b"\0" * 3_000_000)
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert "layouts/mini/card.yaml:3:24: error: image 'images/art.jpg' cannot be used: a file of 3,0" in result.output
    assert "400x200 px" in result.output


def _exif(values: int) -> bytes:
    """An EXIF of orientation 6 (turned) and a camera maker (one text) given as `values` numbers."""
    import struct
    entries = struct.pack(">HHII", 0x010F, 4, values, 8 + 2 + 24 + 4) + struct.pack(">HHII", 0x0112, 3, 1, 6 << 16)
    return b"Exif\0\0MM\0\x2a" + struct.pack(">IH", 8, 2) + entries + b"\0\0\0\0" + b"\0" * (4 * values)


def test_a_webp_whose_exif_is_past_what_a_camera_writes_is_refused_at_its_element(tmp_path):
    """Pillow reads every value of an EXIF to find the orientation: a 3000 x 3000 WebP holding one of 36 MB took 7 s
    and 500 MB to validate. A JPEG's EXIF segment holds at most 64 KB."""
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "webp")})
    (root / "layouts/mini/images").mkdir()
    Image.new("RGB", (400, 400), "red").save(root / "layouts/mini/images/art.webp", "WEBP", exif=_exif(20_000))
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert ("layouts/mini/card.yaml:3:24: error: image 'images/art.webp' cannot be used: its EXIF data is 80,038 "
            "bytes, more than 64 KB") in result.output


def test_a_photo_whose_orientation_only_its_xmp_gives_prints_as_viewers_show_it(tmp_path):
    """Viewers and browsers turn a picture by its EXIF orientation alone: Pillow's getexif took an XMP packet's
    tiff:Orientation when there was no EXIF, and pnp printed on its side a picture every viewer shows upright."""
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "jpg")})
    (root / "layouts/mini/images").mkdir()
    xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
           b'<rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>')
    Image.new("RGB", (300, 150), "red").save(root / "layouts/mini/images/art.jpg", "JPEG", xmp=xmp)
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    pictures = _pictures(root / "output" / "mini" / "mini-cards-a4.pdf")
    assert {pixels for _, pixels, _ in pictures} == {(300, 150)}, pictures


def test_a_turned_webp_whose_exif_has_a_tag_of_odd_size_prints_upright_with_no_warning(tmp_path):
    # Pillow warned of the tag on the terminal, twice (reading the orientation, then turning the picture)
    import warnings
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "webp")})
    (root / "layouts/mini/images").mkdir()
    stored = Image.new("RGB", (1200, 600), "red")
    stored.paste((0, 0, 255), (0, 0, 600, 600))  # its left half blue: the top once turned upright
    stored.save(root / "layouts/mini/images/art.webp", "WEBP", exif=_exif(3), lossless=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    with pikepdf.open(root / "output" / "mini" / "mini-cards-a4.pdf") as pdf:
        (picture,) = [pikepdf.PdfImage(image).as_pil_image().convert("RGB") for image in _images_in(pdf.pages[0].obj)]
    width, height = picture.size
    assert height > width
    top, bottom = picture.getpixel((width // 2, height // 4)), picture.getpixel((width // 2, 3 * height // 4))
    assert top[2] > 200 > top[0] and bottom[0] > 200 > bottom[2]


def test_a_jpeg_of_a_frame_reportlab_does_not_embed_prints_as_pillow_reads_it(tmp_path):
    """ReportLab embeds a JPEG's bytes only for a baseline, extended or progressive (Huffman) frame: an
    arithmetic-coded one (SOF9), which Pillow decodes, was drawn as a broken picture of other pixels (poppler:
    'Bad image parameters') with exit 0. It is redrawn, as a baseline JPEG of its own size."""
    root, pdf = _built(tmp_path, "arith", [300, 150], "jpg")
    art = root / "layouts/mini/images/art.jpg"
    data = bytearray(art.read_bytes())
    frame = data.find(b"\xff\xc0")
    data[frame + 1] = 0xC9  # (the same Huffman data read as arithmetic coding: Pillow decodes it to other pixels)
    art.write_bytes(bytes(data))
    with Image.open(art) as image:
        image.load()  # as pnp reads it
    assert run(root, "build", "mini").exit_code == 0
    pictures = _pictures(pdf)
    assert len(pictures) == 4 and {pixels for _, pixels, _ in pictures} == {(300, 150)}, pictures
    with pikepdf.open(pdf) as document:
        # (ReportLab writes the JPEG's bytes in ASCII85, ended by '~>')
        embedded = {base64.a85decode(bytes(image.read_raw_bytes()).strip()[:-2])
                    for image in _images_in(document.pages[0])}
    assert len(embedded) == 1 and b"\xff\xc0" in next(iter(embedded)) and b"\xff\xc9" not in next(iter(embedded))


@pytest.mark.parametrize("ext, frames", [("png", 3), ("webp", 2)])
def test_an_animated_picture_is_refused_at_its_element(tmp_path, ext, frames):
    """Pillow reads an animated picture's first frame, and an animated PNG's default image, which viewers playing
    the animation never show: an APNG whose default image was red and whose frames were blue and green printed
    red, exit 0. Which frame a print shows no file says: refused, as an animated WebP is."""
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", ext)})
    (root / "layouts/mini/images").mkdir()
    red, blue, green = (Image.new("RGB", (400, 200), colour) for colour in ("red", "blue", "green"))
    shown = {"png": [blue, green], "webp": [blue]}[ext]
    red.save(root / f"layouts/mini/images/art.{ext}", save_all=True, append_images=shown, default_image=True)
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert (f"layouts/mini/card.yaml:3:24: error: image 'images/art.{ext}' cannot be used: an animated picture of "
            f"{frames} frames") in result.output, result.output


def _profile_of_colorants(colorants) -> bytes:
    """sRGB's ICC profile with its red, green and blue colorants (XYZ, D50) set to `colorants`: a profile of another
    gamut made here, not read from the machine's colour folder."""
    import struct

    from PIL import ImageCms

    data = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    for i in range(struct.unpack(">I", data[128:132])[0]):
        tag, offset, _ = struct.unpack(">4sII", data[132 + 12 * i:144 + 12 * i])
        for name, xyz in zip((b"rXYZ", b"gXYZ", b"bXYZ"), colorants):
            if tag == name:
                data[offset + 8:offset + 20] = b"".join(struct.pack(">i", round(v * 65536)) for v in xyz)
    return bytes(data)


DISPLAY_P3 = ((0.5151, 0.2412, -0.0011), (0.2920, 0.6922, 0.0419), (0.1571, 0.0666, 0.7841))


def _built_pictures(root, at):
    """The mini game built: the colour at `at` of each picture on its first card page (sorted), and the filters
    of those embedded as they are (drawn on the page itself; the others are redrawn, each from a form)."""
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    with pikepdf.open(root / "output" / "mini" / "mini-cards-a4.pdf") as pdf:
        colours = sorted(pikepdf.PdfImage(image).as_pil_image().convert("RGB").getpixel(at)
                         for image in _images_in(pdf.pages[0].obj))
        xobjects = pdf.pages[0].Resources.XObject
        as_is = [str(image.get("/Filter")) for image in map(xobjects.get, xobjects.keys())
                 if image.get("/Subtype") == "/Image"]
    return colours, as_is



def test_a_picture_of_a_wide_gamut_profile_prints_its_colours_as_srgb_resampled_or_not(tmp_path):
    """A Display P3 photo's numbers were embedded as they are, and a PDF prints numbers as sRGB: its red
    (200, 40, 40) printed duller than every viewer shows it, (218, 0, 26) in sRGB. An sRGB-profiled picture
    drawn at its own size is still embedded as it is (its JPEG bytes unchanged)."""
    from PIL import ImageCms

    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    card = ("size: poker\nelements:\n" + "".join(
        f"  - {{type: image, src: images/{name}, x: 5, y: {5 + 25 * i}, w: 20, h: 20}}\n"
        for i, name in enumerate(("p3.png", "p3-big.png", "p3.jpg", "srgb.jpg"))))
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    folder = root / "layouts/mini/images"
    folder.mkdir()
    p3 = _profile_of_colorants(DISPLAY_P3)
    for name, size, profile in (("p3.png", (300, 150), p3), ("p3-big.png", (1000, 500), p3),
                                ("p3.jpg", (300, 150), p3), ("srgb.jpg", (300, 150), srgb)):
        Image.new("RGB", size, (200, 40, 40)).save(folder / name, icc_profile=profile, quality=100)
    colours, as_is = _built_pictures(root, (150, 75))
    assert len(colours) == 4 and len(as_is) == 1 and "DCTDecode" in as_is[0]
    converted, kept = [c for c in colours if c[1] < 20], [c for c in colours if c[1] >= 20]
    assert len(converted) == 3 and all(abs(r - 218) <= 2 and g <= 2 and abs(b - 26) <= 2 for r, g, b in converted)
    assert len(kept) == 1 and all(abs(v - w) <= 2 for v, w in zip(kept[0], (200, 40, 40)))


def _grey_profile(gamma: float | None) -> bytes:
    """An ICC profile of greys (GRAY) of tone curve `gamma`, or sRGB's (None): a profile made here, as a Photoshop
    grey picture's, not read from the machine's colour folder."""
    import struct

    def fixed(value: float) -> bytes:
        return struct.pack(">i", round(value * 65536))

    d50 = fixed(0.9642) + fixed(1.0) + fixed(0.8249)
    curve = (b"curv" + bytes(4) + struct.pack(">IH", 1, round(gamma * 256)) + bytes(2) if gamma is not None else
             b"para" + bytes(4) + struct.pack(">H", 3) + bytes(2)
             + b"".join(fixed(v) for v in (2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045)))
    tags = [(b"wtpt", b"XYZ " + bytes(4) + d50), (b"kTRC", curve)]
    start, table, body = 128 + 4 + 12 * len(tags), b"", b""
    for signature, data in tags:
        table += signature + struct.pack(">II", start + len(body), len(data))
        body += data + bytes(-len(data) % 4)
    header = (struct.pack(">I", start + len(body)) + bytes(4) + b"\x02\x10\0\0mntrGRAYXYZ " + bytes(12) + b"acsp"
              + bytes(28) + d50 + bytes(48))
    return header + struct.pack(">I", len(tags)) + table + body


def test_a_grey_picture_of_a_grey_profile_prints_its_greys_as_srgb_resampled_or_not(tmp_path):
    """Photoshop saves a grey picture with a grey profile (Dot Gain 20%, Gray Gamma 1.8...), which browsers apply:
    its numbers printed as sRGB greys, a grey 128 of a linear profile as 128 where browsers show 188 (exit 0). Its
    greys are converted, resampled or not, a JPEG's, a PNG's, one with an alpha channel and a 16-bit one's alike;
    a grey picture of sRGB's greys is still embedded as it is."""
    grey, srgb_grey = _grey_profile(1.0), _grey_profile(None)
    names = ("grey.jpg", "grey-big.png", "grey-alpha.png", "grey-16.png", "srgb-grey.jpg")
    card = ("size: poker\nelements:\n" + "".join(
        f"  - {{type: image, src: images/{name}, x: 5, y: {5 + 15 * i}, w: 20, h: 10}}\n" for i, name in enumerate(names)))
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    folder = root / "layouts/mini/images"
    folder.mkdir()
    Image.new("L", (300, 150), 128).save(folder / "grey.jpg", icc_profile=grey, quality=100)
    Image.new("L", (600, 300), 128).save(folder / "grey-big.png", icc_profile=grey)
    Image.new("LA", (300, 150), (128, 255)).save(folder / "grey-alpha.png", icc_profile=grey)
    Image.new("I;16", (300, 150), 128 * 257).save(folder / "grey-16.png", icc_profile=grey)
    Image.new("L", (300, 150), 128).save(folder / "srgb-grey.jpg", icc_profile=srgb_grey, quality=100)
    greys, as_is = _built_pictures(root, (100, 50))
    assert len(greys) == 5 and len(as_is) == 1 and "DCTDecode" in as_is[0]
    assert all(abs(v - 128) <= 2 for v in greys[0]), greys
    assert all(abs(v - 188) <= 2 for colour in greys[1:] for v in colour), greys


def test_a_profile_of_srgbs_colorants_but_another_tone_curve_is_converted_from():
    """A profile of sRGB's colorants and a linear tone curve (as Ghostscript's scrgb.icc) was taken for sRGB by
    its colorants alone: its grey 128, which viewers show as 188, printed 128. sRGB itself is still left as it
    is."""
    import struct

    from PIL import ImageCms

    from pnp.model.images import srgb_profile

    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    linear = bytearray(srgb)
    for i in range(struct.unpack(">I", srgb[128:132])[0]):
        tag, offset, _ = struct.unpack(">4sII", srgb[132 + 12 * i:144 + 12 * i])
        if tag in (b"rTRC", b"gTRC", b"bTRC"):  # a curve of no points: the identity, gamma 1
            linear[offset:offset + 12] = b"curv" + bytes(8)
    pictures = {name: Image.new("RGB", (2, 2)) for name in ("srgb", "linear")}
    pictures["srgb"].info["icc_profile"], pictures["linear"].info["icc_profile"] = srgb, bytes(linear)
    assert srgb_profile(pictures["srgb"]) is None
    assert srgb_profile(pictures["linear"]) == bytes(linear)
    converted = ImageCms.applyTransform(Image.new("RGB", (1, 1), (128, 128, 128)),
                                        ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(bytes(linear))),
                                                                ImageCms.createProfile("sRGB"), "RGB", "RGB"))
    assert converted.getpixel((0, 0))[0] > 180  # what the linear grey is in sRGB: why it must be converted


def test_a_picture_whose_colour_profile_cannot_be_read_is_refused_at_its_element(tmp_path):
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "png")})
    (root / "layouts/mini/images").mkdir()
    Image.new("RGB", (300, 150), (200, 40, 40)).save(root / "layouts/mini/images/art.png", icc_profile=b"not a profile" * 20)
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert "layouts/mini/card.yaml:3:24: error: image 'images/art.png' cannot be used: its colour profile cannot be read" \
        in result.output, result.output


def _floating_point_profile(stages: int, shared: bool) -> bytes:
    """An RGB profile whose relative colorimetric table (D2B1, read by littleCMS before any other) is a chain of
    `stages` curve sets, each of three curves: in their own bytes, or all naming one curve set whose three curves
    name one curve (8 bytes a naming, each read and worked out again)."""
    import struct

    curve = b"curf" + bytes(4) + struct.pack(">HH", 1, 0) + b"parf" + bytes(4) + struct.pack(">HH4f", 0, 0, 1, 1, 0, 0)
    curves = 1 if shared else 3
    curve_set = (b"cvst" + bytes(4) + struct.pack(">HH", 3, 3)
                 + b"".join(struct.pack(">II", 36 + len(curve) * (i % curves), len(curve)) for i in range(3))
                 + curve * curves)
    sets = 1 if shared else stages
    first = 16 + 8 * stages
    table = (b"mpet" + bytes(4) + struct.pack(">HHI", 3, 3, stages)
             + b"".join(struct.pack(">II", first + len(curve_set) * (i % sets), len(curve_set)) for i in range(stages))
             + curve_set * sets)
    header = (struct.pack(">I", 144 + len(table)) + b"lcms" + bytes([4, 0x30, 0, 0]) + b"mntrRGB XYZ " + bytes(12)
              + b"acsp" + bytes(28) + b"".join(struct.pack(">i", round(v * 65536)) for v in (0.9642, 1.0, 0.8249)))
    return header.ljust(128, b"\0") + struct.pack(">I4sII", 1, b"D2B1", 144, len(table)) + table


def test_a_colour_profile_whose_reading_costs_far_more_than_its_bytes_is_refused_at_its_element(tmp_path):
    """A profile's floating-point table may name one curve set over and over, each worked out at 4,096 points and
    joined pairwise: 16 KB of 2,000 stages took 45 s to validate, and the picture printed (exit 0). A table of a
    few stages of their own bytes is read as littleCMS reads it."""
    from PIL import ImageCms

    from pnp.model.images import profile_cost_problem

    own = _floating_point_profile(4, shared=False)
    assert profile_cost_problem(own) is None
    ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(own)), ImageCms.createProfile("sRGB"), "RGB", "RGB",
                            renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    assert "lie on the same bytes" in profile_cost_problem(_floating_point_profile(4, shared=True))
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "png")})
    (root / "layouts/mini/images").mkdir()
    Image.new("RGB", (300, 150), (200, 40, 40)).save(root / "layouts/mini/images/art.png",
                                                      icc_profile=_floating_point_profile(2000, shared=True))
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert ("layouts/mini/card.yaml:3:24: error: image 'images/art.png' cannot be used: its colour profile cannot be "
            "read (its floating-point table D2B1 has 2,000 stages, more than 8)") in result.output, result.output


def test_reading_a_colour_profile_is_spent_from_the_games_time_and_said_at_the_picture(tmp_path):
    """littleCMS's reading of a profile is the game's work, as svglib's of an icon: once the game's time is
    spent, the picture whose profile was being read is named."""
    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark
    from pnp.template import budget

    Image.new("RGB", (30, 15)).save(tmp_path / "art.png", icc_profile=_profile_of_colorants(DISPLAY_P3)[:-1] + b"\1")
    with budget(seconds=0.0), pytest.raises(DataError) as raised:
        checked_source(Project(tmp_path), tmp_path / "art.png", Mark("card.yaml", 3), "art.png")[0]
    assert raised.value.mark == Mark("card.yaml", 3)
    assert raised.value.message.startswith("image 'art.png' cannot be used: checking this game took longer")


def test_a_picture_giving_its_colour_space_otherwise_than_pillow_reads_it_is_refused_at_its_element(tmp_path):
    """Pillow reads a PNG's last iCCP chunk and no cICP; viewers read the first of iCCP and sRGB (libpng), or cICP
    first (the PNG standard): a PNG of an sRGB profile then a Display P3 one printed converted from P3 (exit 0),
    and one of P3 code points printed its numbers as sRGB. Pillow joins a JPEG's profile segments numbered
    otherwise than 1 to their count, from which viewers read none. A PNG of one profile (an sRGB chunk after it
    too: libpng reads the first, the standard the profile, which run 38 refused), or of sRGB's code points,
    or of several colour chunks that all say sRGB (an sRGB chunk beside sRGB's profile, which run 35 refused), and a
    JPEG's profile split as it should be, print."""
    import struct
    import zlib

    from PIL import ImageCms

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    def icc(profile: bytes) -> bytes:
        return chunk(b"iCCP", b"icc\0\0" + zlib.compress(profile))

    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    p3 = _profile_of_colorants(DISPLAY_P3)
    colour = {"two.png": icc(srgb) + icc(p3), "both.png": chunk(b"sRGB", b"\0") + icc(p3),
              "p3.png": chunk(b"cICP", bytes([12, 13, 0, 1])), "srgb.png": chunk(b"cICP", bytes([1, 13, 0, 1])),
              "one.png": icc(p3), "agree.png": icc(srgb) + chunk(b"sRGB", b"\0"),
              "codes.png": chunk(b"sRGB", b"\0") + chunk(b"cICP", bytes([1, 13, 0, 1])),
              "codes-profile.png": chunk(b"cICP", bytes([1, 13, 0, 1])) + icc(srgb),
              "profile-first.png": icc(p3) + chunk(b"sRGB", b"\0")}
    card = "size: poker\nelements:\n" + "".join(f"  - {{type: image, src: {name}, x: 5, y: {5 + 10 * i}, w: 9, h: 9}}\n"
                                                 for i, name in enumerate(colour))
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    plain = io.BytesIO()
    Image.new("RGB", (60, 60), (200, 40, 40)).save(plain, "PNG")
    for name, chunks in colour.items():  # the colour chunks after the header (IHDR), before the picture
        (root / "layouts/mini" / name).write_bytes(plain.getvalue()[:33] + chunks + plain.getvalue()[33:])
    photo = io.BytesIO()
    Image.new("RGB", (60, 60), (200, 40, 40)).save(photo, "JPEG")
    numbered = [b"\xff\xe2" + struct.pack(">H", 16 + len(part)) + b"ICC_PROFILE\0\1\2" + part
                for part in (p3[1000:], p3[:1000])]  # both "1 of 2": Pillow joins them in their bytes' order
    (root / "layouts/mini/two.jpg").write_bytes(photo.getvalue()[:2] + b"".join(numbered) + photo.getvalue()[2:])
    (root / "layouts/mini/card.yaml").write_text(card + "  - {type: image, src: two.jpg, x: 5, y: 85, w: 9, h: 9}\n")
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if ": error: " in line]
    assert len(lines) == 5, result.output
    assert lines[0].startswith("layouts/mini/card.yaml:3:24: error: image 'two.png' cannot be used: a PNG that gives "
                               "its colour space more than once (iCCP, iCCP chunks)")
    assert lines[1].startswith("layouts/mini/card.yaml:4:24: error: image 'both.png' cannot be used: a PNG that says "
                               "it is sRGB (an sRGB chunk) before a colour profile of other colours")
    assert lines[2].startswith("layouts/mini/card.yaml:5:24: error: image 'p3.png' cannot be used: a PNG whose colours "
                               "are given as video code points (a cICP chunk) other than sRGB's")
    assert lines[3].startswith("layouts/mini/card.yaml:10:24: error: image 'codes-profile.png' cannot be used: a PNG that "
                               "gives its colour space more than once (cICP, iCCP chunks)")
    assert lines[4].startswith("layouts/mini/card.yaml:12:24: error: image 'two.jpg' cannot be used: a JPEG whose colour "
                               "profile's segments are not numbered 1 to their count, each once")
    from pnp.model.images import jpeg_problem

    large = io.BytesIO()  # a profile past a segment's 64 KB, split by Pillow into segments numbered 1 to 3
    Image.new("RGB", (8, 8)).save(large, "JPEG", icc_profile=p3 + bytes(150_000))
    assert large.getvalue().count(b"ICC_PROFILE") == 3 and jpeg_problem(large.getvalue()) is None


def test_a_png_whose_gamma_or_primaries_are_not_srgbs_and_that_has_no_profile_is_refused_at_its_element(tmp_path):
    """Browsers apply a PNG's gAMA and cHRM chunks when it has no colour profile, Pillow none: a PNG of gamma 1.0
    printed its grey 128 where browsers show 188 (exit 0), in a game's pictures and in an icon's. sRGB's own
    numbers (old Photoshop and GIMP files), any numbers beside a profile (which viewers read instead), and a gAMA
    after the picture data or after another (which libpng ignores, and run 34 refused), print."""
    import base64
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    def chromaticities(*numbers: float) -> bytes:
        return chunk(b"cHRM", b"".join(struct.pack(">I", round(n * 100_000)) for n in numbers))

    srgb_primaries = (0.3127, 0.329, 0.64, 0.33, 0.3, 0.6, 0.15, 0.06)
    p3_primaries = (0.3127, 0.329, 0.68, 0.32, 0.265, 0.69, 0.15, 0.06)
    linear, photoshop = chunk(b"gAMA", struct.pack(">I", 100_000)), chunk(b"gAMA", struct.pack(">I", 45_455))
    colour = {"linear.png": linear, "p3.png": photoshop + chromaticities(*p3_primaries),
              "short.png": chunk(b"gAMA", b"\0\0"), "photoshop.png": photoshop + chromaticities(*srgb_primaries),
              "gimp.png": chunk(b"gAMA", struct.pack(">I", 45_000)), "profiled.png": linear + chunk(b"sRGB", b"\0")}
    plain = io.BytesIO()
    Image.new("RGB", (60, 60), (128, 128, 128)).save(plain, "PNG")
    pictures = {name: plain.getvalue()[:33] + chunks + plain.getvalue()[33:] for name, chunks in colour.items()}
    # after its picture data, where libpng (and so browsers) reads no gamma: it prints as it is seen
    pictures["after.png"] = plain.getvalue()[:-12] + linear + plain.getvalue()[-12:]
    colour["after.png"] = linear
    # a second gAMA, which libpng ignores (it keeps the first): printed as it is seen
    pictures["twice.png"] = plain.getvalue()[:33] + photoshop + linear + plain.getvalue()[33:]
    colour["twice.png"] = photoshop + linear
    icon = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">\n<image width="10" height="10" '
            f'href="data:image/png;base64,{base64.b64encode(pictures["linear.png"]).decode()}"/>\n</svg>\n')
    card = "size: poker\nelements:\n" + "".join(f"  - {{type: image, src: {name}, x: 5, y: {5 + 10 * i}, w: 9, h: 9}}\n"
                                                 for i, name in enumerate(colour))
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card, "layouts/shared/icons/round-star.svg": icon})
    for name, data in pictures.items():
        (root / "layouts/mini" / name).write_bytes(data)
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if ": error: " in line]
    assert len(lines) == 4, result.output
    said = ("chunks) are not sRGB's and that has no colour profile: browsers apply them, pnp prints its numbers as "
            "sRGB's; save it with an sRGB profile, or none")
    assert lines[0].startswith("layouts/mini/card.yaml:3:24: error: image 'linear.png' cannot be used: a PNG whose "
                               f"gamma or primaries (gAMA {said}")
    assert lines[1].startswith("layouts/mini/card.yaml:4:24: error: image 'p3.png' cannot be used: a PNG whose "
                               f"gamma or primaries (gAMA, cHRM {said}")
    assert lines[2].startswith("layouts/mini/card.yaml:5:24: error: image 'short.png' cannot be used: a PNG whose "
                               "gAMA chunk is 2 bytes, not the 4 the PNG standard gives it")  # (libpng ignores it)
    assert lines[3].startswith("layouts/shared/icons/round-star.svg:2:")
    assert f"gamma or primaries (gAMA {said}" in lines[3]


def test_a_png_whose_compressed_profile_or_text_chunk_is_past_pillows_cap_is_refused_in_pnps_words(tmp_path):
    """Pillow refuses a PNG whose iCCP, zTXt or compressed iTXt chunk decompresses past 1 MB, in its own words
    (naming its MAX_TEXT_CHUNK); pnp refuses it first, in its own, at the picture's line. An uncompressed tEXt of
    that size Pillow reads, and so does pnp."""
    import struct
    import zlib

    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    plain = io.BytesIO()
    Image.new("RGB", (300, 300), (128, 128, 128)).save(plain, "PNG")
    large = zlib.compress(bytes(1_100_000))
    chunks = {"profile.png": chunk(b"iCCP", b"icc\0\0" + large), "ztxt.png": chunk(b"zTXt", b"Comment\0\0" + large),
              "itxt.png": chunk(b"iTXt", b"XML:com.adobe.xmp\0\1\0\0\0" + large),
              "text.png": chunk(b"tEXt", b"Comment\0" + b"a" * 1_100_000)}
    said = {"profile.png": "colour profile (iCCP)", "ztxt.png": "compressed text chunk (zTXt)",
            "itxt.png": "compressed text chunk (iTXt)"}
    for name, data in chunks.items():
        (tmp_path / name).write_bytes(plain.getvalue()[:33] + data + plain.getvalue()[33:])
        if name not in said:
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
            continue
        with pytest.raises(DataError) as raised:
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
        assert raised.value.mark == Mark("card.yaml", 3)
        assert raised.value.message.startswith(f"image '{name}' cannot be used: a PNG whose {said[name]} is more "
                                               "than 1 MB decompressed")


def test_a_png_whose_header_or_profile_chunk_libpng_reads_otherwise_than_pillow_is_refused_at_its_element(tmp_path):
    """libpng (browsers) shows no picture of a PNG whose first chunk is not its header (IHDR), and ignores a colour
    profile (iCCP) of no keyword, a keyword past 79 bytes or a compression method other than 0, and reads the
    first of two EXIF chunks (eXIf): Pillow read the first, converted the picture from the profiles (exit 0), or
    called one "not a PNG", and turned a picture by its last EXIF's orientation. A profile of a keyword and method
    0 prints."""
    import struct
    import zlib

    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    plain = io.BytesIO()
    Image.new("RGB", (60, 30), (200, 40, 40)).save(plain, "PNG")
    png, p3 = plain.getvalue(), zlib.compress(_profile_of_colorants(DISPLAY_P3))
    upright, turned = Image.Exif(), Image.Exif()
    upright[0x0112], turned[0x0112] = 1, 6
    pictures = {"first.png": png[:8] + chunk(b"iCCP", b"icc\0\0" + p3) + png[8:],
                "unnamed.png": png[:33] + chunk(b"iCCP", b"\0\0" + p3) + png[33:],
                "long-name.png": png[:33] + chunk(b"iCCP", b"k" * 80 + b"\0\0" + p3) + png[33:],
                "method.png": png[:33] + chunk(b"iCCP", b"icc\0\1" + p3) + png[33:],
                "empty.png": png[:33] + chunk(b"iCCP", b"") + png[33:],
                "named.png": png[:33] + chunk(b"iCCP", b"k" * 79 + b"\0\0" + p3) + png[33:],
                "two-exif.png": png[:33] + chunk(b"eXIf", upright.tobytes()) + chunk(b"eXIf", turned.tobytes()) + png[33:]}
    for name, data in pictures.items():
        (tmp_path / name).write_bytes(data)
        if name == "named.png":
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
            continue
        with pytest.raises(DataError) as raised:
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
        assert raised.value.mark == Mark("card.yaml", 3)
        said = {"first.png": "whose first chunk is not its header (IHDR)",
                "two-exif.png": "of more than one EXIF chunk (eXIf)"}.get(name, "whose colour profile chunk (iCCP) is malformed")
        assert raised.value.message.startswith(f"image '{name}' cannot be used: a PNG {said}"), raised.value.message


@pytest.mark.parametrize("key, said", [("icc_profile", "its colour profile (ICC) is 5,000,000 bytes, more than 4 MB"),
                                       ("xmp", "its XMP metadata is 5,000,000 bytes, more than 4 MB")])
def test_a_webp_whose_colour_profile_or_xmp_is_past_what_a_photograph_holds_is_refused_at_its_element(tmp_path, key,
                                                                                                      said):
    """A WebP holds its profile and XMP in chunks as long as its file, each read whole at every opening (and the
    profile by littleCMS): a 6000 x 6000 px WebP of a 99 MB profile took 17 s and 900 MB to validate."""
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "webp")})
    (root / "layouts/mini/images").mkdir()
    Image.new("RGB", (1200, 1200), (200, 40, 40)).save(root / "layouts/mini/images/art.webp", quality=50,
                                                       **{key: b"x" * 5_000_000})
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert f"layouts/mini/card.yaml:3:24: error: image 'images/art.webp' cannot be used: {said}" in result.output, \
        result.output


def test_a_png_of_megabytes_of_compressed_text_is_refused_at_its_element(tmp_path):
    """63 text chunks of 1 MB each (Pillow's most) compress to a 68 KB file, decompressed at each opening: each
    such picture cost seconds a build."""
    from PIL import PngImagePlugin

    text = PngImagePlugin.PngInfo()
    for i in range(5):
        text.add_itxt(f"note{i}", "a" * 1_000_000, zip=True)
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "png")})
    (root / "layouts/mini/images").mkdir()
    Image.new("RGB", (100, 100), (200, 40, 40)).save(root / "layouts/mini/images/art.png", pnginfo=text)
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert "layouts/mini/card.yaml:3:24: error: image 'images/art.png' cannot be used: a PNG holding more than 4 MB " \
           "of text" in result.output, result.output


def test_a_colour_profile_is_hashed_once_however_often_its_picture_is_opened(tmp_path, monkeypatch):
    """A picture's profile (up to 4 MB) was hashed at each question asked of it, to look up what was known of it:
    whether it is sRGB, its transform, whether it is drawn as is, at each opening (checked, decoded, placed on each
    sheet): 5 times to validate a game of one such picture (checked, then decoded), 9 more to build it."""
    import hashlib

    import pnp.model.images as images

    profile = _profile_of_colorants(DISPLAY_P3)
    hashed: list[int] = []

    class Counted:
        @staticmethod
        def sha256(data: bytes = b"") -> "hashlib._Hash":
            hashed.append(data == profile)
            return hashlib.sha256(data)

    monkeypatch.setattr(images, "hashlib", Counted)
    monkeypatch.setattr(images, "_last_digest", None, raising=False)
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": CARD.replace("EXT", "png")})
    (root / "layouts/mini/images").mkdir()
    Image.new("RGB", (160, 160), (200, 40, 40)).save(root / "layouts/mini/images/art.png", icc_profile=profile)
    said = run(root, "validate", "mini")
    assert said.exit_code == 0, said.output
    assert sum(hashed) == 1


def test_a_jpeg_of_two_exif_segments_is_refused_at_its_element_and_one_of_one_turns(tmp_path):
    """Viewers turn a JPEG by its first EXIF segment alone; Pillow joins every EXIF segment, so the first's table
    of tags may lie in the next: a JPEG whose first EXIF was its header alone and whose second held orientation 6
    was seen on its side (100x200 px) and printed so, where viewers show it upright (exit 0). A JPEG of one EXIF
    saying 6 is still turned."""
    import struct

    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark

    def app1(payload: bytes) -> bytes:
        return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload

    photo = io.BytesIO()
    Image.new("RGB", (200, 100), (200, 40, 40)).save(photo, "JPEG")
    jpeg = photo.getvalue()
    header = b"Exif\0\0MM\0*\0\0\0\x08"  # a TIFF header whose first table lies past its segment's end...
    table = struct.pack(">HHHIHHI", 1, 0x0112, 3, 1, 6, 0, 0)  # ...and a table of one tag: orientation 6
    (tmp_path / "two.jpg").write_bytes(jpeg[:2] + app1(header) + app1(b"Exif\0\0" + table) + jpeg[2:])
    (tmp_path / "one.jpg").write_bytes(jpeg[:2] + app1(header + table) + jpeg[2:])
    with pytest.raises(DataError) as raised:
        checked_source(Project(tmp_path), tmp_path / "two.jpg", Mark("card.yaml", 3), "two.jpg")[0]
    assert raised.value.mark == Mark("card.yaml", 3)
    assert raised.value.message.startswith("image 'two.jpg' cannot be used: a JPEG of more than one EXIF segment")
    assert checked_source(Project(tmp_path), tmp_path / "one.jpg", Mark("card.yaml", 3), "one.jpg")[0][1] == (100, 200)


def test_a_pngs_colour_chunks_after_its_palette_are_read_as_viewers_read_them(tmp_path):
    """libpng (viewers) ignores a colour profile (iCCP), gamma (gAMA) or primaries (cHRM) chunk after the palette
    (PLTE) as out of place, where Pillow reads it: a palette picture of a Display P3 profile after its PLTE, shown
    as sRGB, printed converted from P3 (exit 0), and a picture of gamma 1.0 there, shown as it is, was refused.
    The profile is refused (Pillow would apply it), the gamma read as viewers do: not at all. A picture of greys
    may hold no PLTE: libpng versions read a gamma after one otherwise, and it is refused there."""
    import struct
    import zlib

    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    def before_data(png: bytes, chunks: bytes) -> bytes:
        at = png.index(b"IDAT") - 4
        return png[:at] + chunks + png[at:]

    palette, truecolour = io.BytesIO(), io.BytesIO()
    Image.new("RGB", (60, 30), (200, 40, 40)).convert("P").save(palette, "PNG")
    Image.new("RGB", (60, 30), (128, 128, 128)).save(truecolour, "PNG")
    p3 = chunk(b"iCCP", b"p3\0\0" + zlib.compress(_profile_of_colorants(DISPLAY_P3)))
    (tmp_path / "profile.png").write_bytes(before_data(palette.getvalue(), p3))
    (tmp_path / "gamma.png").write_bytes(before_data(truecolour.getvalue(), chunk(b"PLTE", b"\0\0\0")
                                                     + chunk(b"gAMA", struct.pack(">I", 100_000))))
    grey = io.BytesIO()  # a PLTE in greys, which libpng 1.6.47 ignores and reads the gamma after it, 1.6.46 not
    Image.new("L", (60, 30), 128).save(grey, "PNG")
    (tmp_path / "grey.png").write_bytes(before_data(grey.getvalue(), chunk(b"PLTE", b"\0\0\0")
                                                    + chunk(b"gAMA", struct.pack(">I", 100_000))))
    with pytest.raises(DataError) as raised:
        checked_source(Project(tmp_path), tmp_path / "grey.png", Mark("card.yaml", 3), "grey.png")[0]
    assert raised.value.message.startswith("image 'grey.png' cannot be used: a PNG of greys holding a palette "
                                           "(PLTE), which the PNG standard forbids, and a gAMA chunk after it"), \
        raised.value.message
    (tmp_path / "grey-palette.png").write_bytes(before_data(grey.getvalue(), chunk(b"PLTE", b"\0\0\0")))
    checked_source(Project(tmp_path), tmp_path / "grey-palette.png", Mark("card.yaml", 3), "grey-palette.png")[0]
    with pytest.raises(DataError) as raised:
        checked_source(Project(tmp_path), tmp_path / "profile.png", Mark("card.yaml", 3), "profile.png")[0]
    assert raised.value.message.startswith("image 'profile.png' cannot be used: a PNG whose colour profile chunk "
                                           "(iCCP) comes after its palette (PLTE)"), raised.value.message
    checked_source(Project(tmp_path), tmp_path / "gamma.png", Mark("card.yaml", 3), "gamma.png")[0]


def test_a_pngs_transparency_that_viewers_ignore_is_refused(tmp_path):
    """libpng (viewers) reads a PNG's transparency (tRNS) from one chunk of its colour type's length, a palette's
    after the palette (PLTE) and no longer than it, and ignores any other, where Pillow reads each (the last of
    two): such a picture, shown opaque, printed with a colour of it made transparent (exit 0). A transparency as
    Pillow saves it prints."""
    import struct
    import zlib

    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    def saved(mode: str, **options) -> bytes:
        picture, out = Image.new(mode, (60, 30), 5), io.BytesIO()
        if mode == "P":
            picture.putpalette([200, 40, 40, 0, 0, 255])
        picture.save(out, "PNG", **options)
        return out.getvalue()

    def before(png: bytes, kind: bytes, chunks: bytes) -> bytes:
        at = png.index(kind) - 4
        return png[:at] + chunks + png[at:]

    palette = saved("P")
    pictures = {"before-palette.png": before(palette, b"PLTE", chunk(b"tRNS", b"\0")),
                "past-palette.png": before(palette, b"IDAT", chunk(b"tRNS", b"\0" * 3)),
                "two.png": before(palette, b"IDAT", chunk(b"tRNS", b"\xff") + chunk(b"tRNS", b"\0")),
                "grey.png": before(saved("L"), b"IDAT", chunk(b"tRNS", struct.pack(">HH", 5, 0))),
                "rgb.png": before(saved("RGB"), b"IDAT", chunk(b"tRNS", struct.pack(">HHHH", 5, 0, 0, 0))),
                "saved.png": saved("P", transparency=0), "saved-rgb.png": saved("RGB", transparency=(5, 0, 0))}
    for name, data in pictures.items():
        (tmp_path / name).write_bytes(data)
        if name.startswith("saved"):
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
            continue
        with pytest.raises(DataError) as raised:
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
        said = "of more than one transparency chunk" if name == "two.png" else "whose transparency chunk (tRNS) is " \
            "out of place or of the wrong length"
        assert raised.value.message.startswith(f"image '{name}' cannot be used: a PNG {said}"), raised.value.message


def test_a_palette_png_viewers_show_no_picture_of_is_refused(tmp_path):
    """libpng (viewers) stops at a PNG of two palettes (PLTE), or of palette colours with no palette before its
    picture data or one that is empty or not of whole colours, and shows no picture; Pillow read the last palette, or none (black), and the card printed it
    (exit 0)."""
    import struct
    import zlib

    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    picture, out = Image.new("P", (60, 30), 1), io.BytesIO()
    picture.putpalette([200, 40, 40, 0, 0, 255])
    picture.save(out, "PNG")
    png = out.getvalue()
    at, data = png.index(b"PLTE") - 4, png.index(b"IDAT") - 4
    palette = png[at:data]
    pictures = {"two.png": png[:data] + chunk(b"PLTE", bytes(6)) + png[data:],
                "none.png": png[:at] + png[data:],
                "late.png": png[:at] + png[data:-12] + palette + png[-12:],
                "ragged.png": png[:at] + chunk(b"PLTE", bytes(7)) + png[data:],
                "empty.png": png[:at] + chunk(b"PLTE", b"") + png[data:]}
    for name, data_of in pictures.items():
        (tmp_path / name).write_bytes(data_of)
        with pytest.raises(DataError) as raised:
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
        said = {"two.png": "of more than one palette (PLTE)", "ragged.png": "whose palette (PLTE) is empty, or not",
                "empty.png": "whose palette (PLTE) is empty, or not"}.get(name, "of palette colours with no palette (PLTE)")
        assert raised.value.message.startswith(f"image '{name}' cannot be used: a PNG {said}"), raised.value.message


def test_a_png_libpng_stops_at_is_refused(tmp_path):
    """libpng (viewers) stops at a PNG of two headers (IHDR), of one not of 13 bytes, of a compression, filter or
    interlace method the standard does not have (Pillow read any interlace method past 0 as Adam7), or holding a
    critical chunk it does not know (a capital first letter) or a chunk not named in letters, and shows no picture;
    Pillow read on (the picture by its last header), and the card printed it (exit 0)."""
    import struct
    import zlib

    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    out = io.BytesIO()
    Image.new("RGB", (60, 30), (200, 40, 40)).save(out, "PNG")
    png = out.getvalue()
    header, rest = png[:33], png[33:]
    pictures = {"two.png": header + chunk(b"IHDR", struct.pack(">IIBBBBB", 3, 3, 8, 0, 0, 0, 0)) + rest,
                "method.png": png[:8] + chunk(b"IHDR", png[16:26] + b"\1\0\0") + rest,
                "interlace.png": png[:8] + chunk(b"IHDR", png[16:28] + b"\2") + rest,
                "long.png": png[:8] + chunk(b"IHDR", png[16:29] + b"\0\0") + rest,
                "critical.png": header + chunk(b"ABCD", b"x") + rest,
                "named.png": header + chunk(b"ab1d", b"x") + rest}
    said = {"two.png": "of more than one header (IHDR)", "method.png": "whose header (IHDR) is not of 13 bytes, or gives",
            "interlace.png": "whose header (IHDR) is not of 13", "long.png": "whose header (IHDR) is not of 13",
            "critical.png": "holding a chunk (ABCD) that viewers must know", "named.png": "holding a chunk whose name"}
    for name, data in pictures.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(DataError) as raised:
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
        assert raised.value.message.startswith(f"image '{name}' cannot be used: a PNG {said[name]}"), raised.value.message


def test_a_damaged_png_or_one_of_a_chunk_of_the_wrong_length_is_refused_in_pnps_words(tmp_path):
    """A chunk whose checksum (CRC) is not its bytes' (libpng stops at a critical one and drops an ancillary one)
    was refused as "not a PNG" before the picture data, and printed where it was the picture data's (exit 0); an
    sRGB or pHYs chunk of no bytes (viewers ignore it) was refused in Pillow's words, a gAMA of 2 bytes as gamma
    not sRGB's, after the picture data passed validate and failed the build, and an sRGB of 2 bytes was read as
    the picture's colour space; a chunk's length past 2**31 - 1 (libpng shows nothing) printed the picture. Each
    is refused at its element, naming the chunk."""
    import struct
    import zlib

    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark

    def chunk(kind: bytes, data: bytes, crc: int | None = None) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) if crc is None
                                                                         else crc)

    plain = io.BytesIO()
    Image.new("RGB", (60, 30), (200, 40, 40)).save(plain, "PNG")
    png = plain.getvalue()
    data_at, end_at = png.index(b"IDAT") - 4, png.index(b"IEND") - 4
    data_bytes = int.from_bytes(png[data_at:data_at + 4], "big")
    pictures = {"gamma-crc.png": (png[:33] + chunk(b"gAMA", struct.pack(">I", 45_455), 1) + png[33:],
                                  "a damaged PNG: the checksum (CRC) of its gAMA chunk"),
                "data-crc.png": (png[:data_at + 8 + data_bytes] + b"\0\0\0\0" + png[data_at + 12 + data_bytes:],
                                 "a damaged PNG: the checksum (CRC) of its IDAT chunk"),
                "data-length.png": (png[:data_at] + b"\xff\xff\xff\xff" + png[data_at + 4:],  # (libpng: no picture)
                                    "a damaged PNG: its IDAT chunk gives a length past the PNG standard's most"),
                "srgb-empty.png": (png[:33] + chunk(b"sRGB", b"") + png[33:],
                                   "a PNG whose sRGB chunk is 0 bytes, not the 1"),
                "srgb-long.png": (png[:33] + chunk(b"sRGB", b"\0\0") + png[33:],
                                  "a PNG whose sRGB chunk is 2 bytes, not the 1"),
                "phys-after.png": (png[:end_at] + chunk(b"pHYs", b"") + png[end_at:],
                                   "a PNG whose pHYs chunk is 0 bytes, not the 9")}
    for name, (data, said) in pictures.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(DataError) as raised:
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
        assert raised.value.mark == Mark("card.yaml", 3)
        assert raised.value.message.startswith(f"image '{name}' cannot be used: {said}"), raised.value.message


def test_a_picture_cut_short_is_said_so_whatever_its_kind_and_wherever_it_was_cut(tmp_path):
    """A PNG, JPEG or WebP that ends before its picture data does (a download or copy cut short) was refused in
    Pillow's words, one of several by where it was cut ("image file is truncated", "Truncated File Read", "could
    not create decoder object"), or as "not a PNG, JPEG or WebP image", or a PNG cut in its header as a header of
    the wrong length; each is said cut short, and the whole file still reads. A PNG or JPEG cut short embedded in
    an icon was passed, and drawing it said Pillow's words at the icon's first line."""
    from pnp.draw.icons import _embedded_problem
    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.project import Project
    from pnp.report import Mark

    for kind in ("PNG", "JPEG", "WEBP"):
        whole = io.BytesIO()
        Image.effect_noise((64, 64), 60).convert("RGB").save(whole, kind)
        data = whole.getvalue()
        (tmp_path / f"whole.{kind}").write_bytes(data)
        checked_source(Project(tmp_path), tmp_path / f"whole.{kind}", Mark("card.yaml", 3), "whole")[0]
        for kept in (20, 40, 100, len(data) // 2, len(data) - 13):
            name = f"cut-{kept}.{kind}"
            (tmp_path / name).write_bytes(data[:kept])
            with pytest.raises(DataError) as raised:
                checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
            assert raised.value.mark == Mark("card.yaml", 3)
            assert raised.value.message == f"image '{name}' cannot be used: the file ends before its picture data " \
                                           "does: cut short?", raised.value.message
            if kind != "WEBP":  # embedded in an icon: it was passed, and drawing it said "image file is truncated" at 1:1
                assert _embedded_problem(base64.b64encode(data[:kept]).decode()) == (
                    "cannot be used: the file ends before its picture data does: cut short?", 0)


def test_a_picture_whose_picture_data_ends_early_in_whole_chunks_is_said_cut_short(tmp_path):
    """A PNG whose last picture data chunks were lost (every chunk whole, IEND after them), or a cut WebP whose
    container's size was written again, was refused in Pillow's words ("image file is truncated", "could not
    create decoder object"), and such a PNG embedded in an icon was passed, then said so at the icon's line 1:1 as
    it was drawn; each is said cut short. A PNG whose picture data is damaged, not cut, is not said cut short."""
    import zlib

    from pnp.draw.icons import _embedded_problem
    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.model.images import opened_image
    from pnp.project import Project
    from pnp.report import Mark

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return len(payload).to_bytes(4, "big") + kind + payload + zlib.crc32(payload, zlib.crc32(kind)).to_bytes(4, "big")

    whole = io.BytesIO()
    Image.effect_noise((64, 64), 60).convert("RGB").save(whole, "PNG")
    png = whole.getvalue()
    idat = png.index(b"IDAT") - 4
    stream = png[idat + 8:idat + 8 + int.from_bytes(png[idat:idat + 4], "big")]
    head, end = png[:idat], chunk(b"IEND", b"")
    said = "cannot be used: the file ends before its picture data does: cut short?"
    for name, data, cut in (("idat-cut.png", head + chunk(b"IDAT", stream[:len(stream) // 2]) + end, True),
                            ("idat-lost.png", head + chunk(b"IDAT", stream[:4000]) + end, True),
                            ("idat-damaged.png", head + chunk(b"IDAT", stream[:2] + b"\xff" * 4000) + end, False)):
        with pytest.raises(DataError) as raised, opened_image(io.BytesIO(data), name, Mark("card.yaml", 3)) as image:
            image.load()
        assert raised.value.mark == Mark("card.yaml", 3)
        assert (raised.value.message == f"image '{name}' {said}") == cut, raised.value.message
        assert (_embedded_problem(base64.b64encode(data).decode()) == (said, 0)) == cut
    with opened_image(io.BytesIO(png), "whole.png", None) as image:
        image.load()
    webp = io.BytesIO()
    Image.effect_noise((64, 64), 60).convert("RGB").save(webp, "WEBP")
    cut_webp = bytearray(webp.getvalue()[:len(webp.getvalue()) // 2])
    cut_webp[4:8] = (len(cut_webp) - 8).to_bytes(4, "little")
    (tmp_path / "cut.webp").write_bytes(cut_webp)
    with pytest.raises(DataError) as raised:
        checked_source(Project(tmp_path), tmp_path / "cut.webp", Mark("card.yaml", 3), "cut.webp")[0]
    assert raised.value.message == f"image 'cut.webp' {said}", raised.value.message


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    import zlib

    return len(payload).to_bytes(4, "big") + kind + payload + zlib.crc32(payload, zlib.crc32(kind)).to_bytes(4, "big")


def _damaged_pictures() -> dict[str, bytes]:
    """Whole files whose picture data cannot be decoded: a PNG row of filter 9 (the standard has 0 to 4), a PNG
    whose compressed stream is damaged, a WebP whose header's canvas is not its frame's size, one with no frame."""
    import zlib

    header = _png_chunk(b"IHDR", (4).to_bytes(4, "big") * 2 + b"\x08\x00\x00\x00\x00")
    rows = b"".join(b"\x09" + b"\x80" * 4 for _ in range(4))
    png = b"\x89PNG\r\n\x1a\n" + header
    end = _png_chunk(b"IEND", b"")
    webp = io.BytesIO()
    Image.effect_noise((64, 64), 60).convert("RGB").save(webp, "WEBP", exif=Image.Exif().tobytes())
    vp8x = webp.getvalue()
    assert vp8x[12:16] == b"VP8X"
    wider = vp8x[:24] + (99).to_bytes(3, "little") + vp8x[27:]
    frame = vp8x.index(b"VP8 ")
    framed = 8 + int.from_bytes(vp8x[frame + 4:frame + 8], "little")
    frameless = vp8x[:frame] + vp8x[frame + framed + (framed & 1):]
    frameless = frameless[:4] + (len(frameless) - 8).to_bytes(4, "little") + frameless[8:]
    return {"filter-9.png": png + _png_chunk(b"IDAT", zlib.compress(rows)) + end,
            "zlib.png": png + _png_chunk(b"IDAT", b"\x78\x9c" + b"\xff" * 40) + end,
            "canvas.webp": wider, "frameless.webp": frameless}


def test_a_picture_whose_data_is_damaged_not_cut_is_said_so_in_pnps_words_at_its_element(tmp_path):
    """A whole picture whose data cannot be decoded was refused in Pillow's words ("unrecognized data stream
    contents", "could not create decoder object"...): each is one message, at the element naming it."""
    from pnp.errors import DataError
    from pnp.draw.pictures import checked_source
    from pnp.model.images import DAMAGED, opened_image
    from pnp.project import Project
    from pnp.report import Mark

    for name, data in _damaged_pictures().items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(DataError) as raised:
            checked_source(Project(tmp_path), tmp_path / name, Mark("card.yaml", 3), name)[0]
            with opened_image(io.BytesIO(data), name, Mark("card.yaml", 3)) as image:  # (decoded as a build does)
                image.load()
        assert raised.value.mark == Mark("card.yaml", 3), name
        assert raised.value.message == f"image '{name}' cannot be read: {DAMAGED}", raised.value.message


def test_a_picture_is_decoded_from_the_bytes_that_were_checked(tmp_path, monkeypatch):
    """A picture swapped for another file between its check and its reading (an editor saving over it as pnp
    reads it) was decoded unchecked: its file was checked, then read again to be used. It is read once, and
    the bytes decoded are the bytes checked."""
    from pnp.draw import pictures
    from pnp.model import images
    from pnp.project import Project
    from pnp.report import Mark

    checked, other = io.BytesIO(), io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(checked, "PNG")
    Image.new("RGB", (16, 16), "blue").save(other, "PNG")
    picture, swapped = tmp_path / "art.png", tmp_path / "other.png"
    picture.write_bytes(checked.getvalue())
    swapped.write_bytes(other.getvalue() + bytes(3 << 20))  # (padded: refused by the check it was not given)
    opened, decoded = images.opened_image, []

    def checking(source, shown, mark):  # swaps the file once it is being checked
        if swapped.exists():
            swapped.replace(picture)
        return opened(source, shown, mark)

    def decoding(source, shown, mark):
        decoded.append(source.getvalue())
        return opened(source, shown, mark)

    monkeypatch.setattr(images, "opened_image", checking)
    monkeypatch.setattr(pictures, "opened_image", decoding)
    size = pictures.verified_picture(Project(tmp_path), picture, Mark("card.yaml", 3), "art.png", (72.0, 72.0),
                                     lambda work, pixels: None)
    assert (size, decoded) == ((8, 8), [checked.getvalue()])


def test_a_picture_is_walked_unmapped_and_one_cut_or_emptied_after_its_check_is_refused_as_changed(tmp_path,
                                                                                                      monkeypatch):
    """A picture's file past 32 MB was mapped to walk its structure: cut by another process while mapped, it ended
    pnp with SIGBUS and no message; a picture emptied between pnp's look at its first bytes and its reading of
    the rest raised a ValueError (a traceback). Its bytes are read once and walked and decoded from there, and a
    file cut or emptied after its check is refused as changed where it is drawn, at its element."""
    import mmap

    from pnp.draw.canvas import new_canvas
    from pnp.draw.pictures import checked_source, draw_as_is
    from pnp.errors import DataError
    from pnp.model.images import CHANGED
    from pnp.project import Project
    from pnp.report import Mark

    def no_mapping(*args, **kwargs):
        raise AssertionError("a picture's file was mapped")

    monkeypatch.setattr(mmap, "mmap", no_mapping)
    whole = io.BytesIO()
    Image.effect_noise((64, 64), 60).convert("RGB").save(whole, "PNG")
    picture = tmp_path / "art.png"
    for cut in (len(whole.getvalue()) // 2, 0):
        picture.write_bytes(whole.getvalue())
        checked = checked_source(Project(tmp_path), picture, Mark("card.yaml", 3), "art.png")[0]
        assert checked.size == (64, 64)
        with picture.open("r+b") as f:
            f.truncate(cut)
        with pytest.raises(DataError) as raised:
            draw_as_is(new_canvas(io.BytesIO(), "Helvetica"), checked, 0, 0, 50, 50, Mark("card.yaml", 3), "art.png")
        assert (raised.value.mark, raised.value.message) == (Mark("card.yaml", 3),
                                                              f"image 'art.png' cannot be used: {CHANGED}")


def test_a_picture_drawn_as_it_is_gives_the_same_pdf_wherever_the_project_lies_and_is_drawn_from_its_checked_bytes(
        tmp_path):
    """A picture embedded as it is was named in the PDF by the digest of its file's path: the same game built in
    two folders gave two PDFs. It is named by its bytes, and drawn from the bytes checked: its file, read again by
    ReportLab, was opened by Pillow as any format it knows (a file saved over since it was checked was drawn
    unchecked); one changed since is refused, at its element."""
    from pnp.draw.canvas import new_canvas
    from pnp.draw.pictures import checked_source, draw_as_is
    from pnp.errors import DataError
    from pnp.model.images import CHANGED
    from pnp.project import Project
    from pnp.report import Mark

    pictures = {}
    for ext, kind in (("png", "PNG"), ("jpg", "JPEG")):
        out = io.BytesIO()
        Image.effect_noise((40, 30), 60).convert("RGB").save(out, kind)
        pictures[f"art.{ext}"] = out.getvalue()
    pdfs = []
    for root in (tmp_path / "a", tmp_path / "b" / "deeper"):
        root.mkdir(parents=True)
        pdf = io.BytesIO()
        canvas = new_canvas(pdf, "Helvetica", (200, 200))
        for name, data in pictures.items():
            (root / name).write_bytes(data)
            for x in (0, 100):  # (twice: embedded once)
                picture = checked_source(Project(root), root / name, Mark("card.yaml", 3), name)[0]
                draw_as_is(canvas, picture, x, 0, 50, 50, Mark("card.yaml", 3), name)
        canvas.save()
        pdfs.append(pdf.getvalue())
    assert pdfs[0] == pdfs[1] and pdfs[0].count(b"/Subtype /Image") == 2
    root = tmp_path / "a"
    picture = checked_source(Project(root), root / "art.png", Mark("card.yaml", 3), "art.png")[0]
    (root / "art.png").write_bytes(pictures["art.jpg"])
    with pytest.raises(DataError) as raised:
        draw_as_is(new_canvas(io.BytesIO(), "Helvetica"), picture, 0, 0, 50, 50, Mark("card.yaml", 3), "art.png")
    assert (raised.value.mark, raised.value.message) == (Mark("card.yaml", 3),
                                                          f"image 'art.png' cannot be used: {CHANGED}")


def test_a_picture_whose_folder_becomes_a_link_outside_after_its_check_is_not_read(tmp_path, monkeypatch):
    """A picture's path was checked to lie inside the project, then opened following links: a folder of it
    swapped for a link to a folder outside between the two (a race) had pnp read, and print, the file outside.
    It is opened as it was checked, one folder at a time without following a link, and refused at its element."""
    from pnp.draw import pictures
    from pnp.errors import DataError
    from pnp.project import Project
    from pnp.report import Mark

    root, outside = tmp_path / "game", tmp_path / "outside"
    (root / "images").mkdir(parents=True)
    outside.mkdir()
    Image.new("RGB", (8, 8), "red").save(root / "images" / "art.png")
    Image.new("RGB", (16, 16), "blue").save(outside / "art.png")
    checked = Project.inside

    def swapped_after_the_check(self, *args, **kwargs):
        found = checked(self, *args, **kwargs)
        (root / "images").rename(root / "images-before")
        (root / "images").symlink_to(outside, target_is_directory=True)
        return found

    monkeypatch.setattr(Project, "inside", swapped_after_the_check)
    with pytest.raises(DataError) as raised:
        pictures.verified_picture(Project(root), root / "images" / "art.png", Mark("card.yaml", 3), "images/art.png",
                                  (72.0, 72.0), lambda work, pixels: None)
    assert raised.value.mark == Mark("card.yaml", 3)
    assert raised.value.message.startswith("image 'images/art.png' cannot be read: "), raised.value.message


def test_a_checked_picture_read_again_to_be_drawn_is_read_as_it_was_checked(tmp_path):
    """A picture is checked, then read again where a PDF draws it (its bytes compared with those checked): that
    second reading followed links, so a folder of it swapped for a link to a folder outside since had pnp open
    and read the file there. It is read beneath the project's folder, as it was checked, and refused."""
    from pnp.draw import pictures
    from pnp.draw.canvas import new_canvas
    from pnp.errors import DataError
    from pnp.project import Project
    from pnp.report import Mark

    root, outside = tmp_path / "game", tmp_path / "outside"
    (root / "images").mkdir(parents=True)
    outside.mkdir()
    Image.new("RGB", (8, 8), "red").save(root / "images" / "art.png")
    (outside / "art.png").write_bytes((root / "images" / "art.png").read_bytes())  # (the same bytes: passes the comparison)
    picture = pictures.checked_source(Project(root), root / "images" / "art.png", Mark("card.yaml", 3), "images/art.png")[0]
    (root / "images").rename(root / "images-before")
    (root / "images").symlink_to(outside, target_is_directory=True)
    with pytest.raises(DataError) as raised:
        pictures.draw_as_is(new_canvas(io.BytesIO(), "Helvetica"), picture, 0, 0, 10, 10, Mark("card.yaml", 3),
                            "images/art.png")
    assert raised.value.mark == Mark("card.yaml", 3)
    assert raised.value.message.startswith("image 'images/art.png' cannot be read: "), raised.value.message


def test_a_picture_is_read_and_digested_once_for_its_first_drawing(tmp_path, monkeypatch):
    """A picture drawn for the first time in a PDF was read and digested twice: once to be checked, once again to
    be drawn. Its first drawing, as it is or resampled, draws the bytes checked; a later PDF reads it again
    (checked against what was checked: a file saved over since is refused)."""
    from pnp.draw import pictures
    from pnp.draw.canvas import new_canvas
    from pnp.project import Project
    from pnp.report import Mark

    out = io.BytesIO()
    Image.effect_noise((40, 30), 60).convert("RGB").save(out, "PNG")
    (tmp_path / "art.png").write_bytes(out.getvalue())
    reads = []
    reading = pictures.read_project_file
    monkeypatch.setattr(pictures, "read_project_file", lambda *a, **k: reads.append(a[0]) or reading(*a, **k))
    mark = Mark("card.yaml", 3)
    for draw in (lambda c, p, s: pictures.draw_as_is(c, p, 0, 0, 50, 50, mark, "art.png", s),
                 lambda c, p, s: pictures.draw_resampled(c, p, (10, 8), 0, 0, 50, 50, mark, "art.png",
                                                         lambda work, pixels: None, s)):
        reads.clear()
        picture, source = pictures.checked_source(Project(tmp_path), tmp_path / "art.png", mark, "art.png")
        draw(new_canvas(io.BytesIO(), "Helvetica"), picture, source)
        assert len(reads) == 1
        draw(new_canvas(io.BytesIO(), "Helvetica"), picture, None)
        assert len(reads) == 2


def test_validation_alone_resamples_a_picture_to_check_it_but_keeps_no_encoding_for_a_drawing(tmp_path):
    """`pnp validate` of 20 full-art cards of 1600x2200 pictures spent three quarters of its time encoding each
    resampled picture as PNG, kept for a drawing that never came. Validation alone (checked_only) resamples it,
    as a build's does, and refuses what it refuses, but encodes nothing; a build's validation keeps it."""
    from pnp.draw import pictures
    from pnp.errors import DataError
    from pnp.project import Project
    from pnp.report import Mark

    whole, cut = tmp_path / "art.png", tmp_path / "cut.png"
    Image.effect_noise((300, 300), 80).save(whole)
    whole_bytes = whole.read_bytes()
    cut.write_bytes(whole_bytes[: len(whole_bytes) // 2])
    needed = pictures.printed_pixels((300, 300), 1.2, 1.2)
    assert needed is not None
    project, key = Project(tmp_path), pictures._key(hashlib.sha256(whole_bytes).hexdigest(), needed)

    def verified(path):
        return pictures.verified_picture(project, path, Mark("card.yaml", 3), path.name, (1.2, 1.2),
                                         lambda work, pixels: None)

    pictures._kept.pop(key, None)
    with pictures.checked_only():
        assert verified(whole) == (300, 300) and key not in pictures._kept
        with pytest.raises(DataError):
            verified(cut)
    assert verified(whole) == (300, 300) and key in pictures._kept


def test_validation_alone_resamples_a_picture_small(tmp_path, monkeypatch):
    """`pnp validate` of 200 photos of 2000x1500 px resampled each to its printed size at 600 dpi (17 s of 30)
    for pixels nothing drew: checked only, a picture goes through every step of a resampling, to a few pixels."""
    from pnp.draw import pictures
    from pnp.project import Project
    from pnp.report import Mark

    Image.effect_noise((400, 300), 80).convert("RGB").save(tmp_path / "photo.jpg")
    sizes = []
    resampling = pictures._resampled_image
    monkeypatch.setattr(pictures, "_resampled_image", lambda image, size: sizes.append(size) or resampling(image, size))
    with pictures.checked_only():
        assert pictures.verified_picture(Project(tmp_path), tmp_path / "photo.jpg", Mark("card.yaml", 3), "photo.jpg",
                                         (20.0, 15.0), lambda work, pixels: None) == (400, 300)
    assert sizes == [(pictures.CHECKED_SIDE, pictures.CHECKED_SIDE * 3 // 4)]


def test_a_resampled_jpeg_drawn_leaves_no_decoded_picture_behind(tmp_path):
    """ReportLab's reader of a JPEG refers to itself, so the pixels it decoded stayed until a full garbage
    collection: a deck of 200 photos took a build to 1.4 GB (387 MB now)."""
    import gc

    from reportlab.lib.utils import ImageReader

    from pnp.draw import pictures
    from pnp.draw.canvas import new_canvas
    from pnp.project import Project
    from pnp.report import Mark

    Image.effect_noise((200, 150), 80).convert("RGB").save(tmp_path / "photo.jpg")
    mark = Mark("card.yaml", 3)
    picture, source = pictures.checked_source(Project(tmp_path), tmp_path / "photo.jpg", mark, "photo.jpg")
    gc.collect()
    gc.disable()
    try:
        pictures.draw_resampled(new_canvas(io.BytesIO(), "Helvetica"), picture, (100, 75), 0, 0, 50, 50, mark,
                                "photo.jpg", lambda work, pixels: None, source)
        assert not [o for o in gc.get_objects() if isinstance(o, ImageReader) and getattr(o, "_data", None)]
    finally:
        gc.enable()
