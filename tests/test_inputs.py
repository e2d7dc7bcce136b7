"""What pnp reads from a game folder: ordinary files inside the project, under a size cap, of the kind pnp
means. A named pipe, a device, a padded font or a PostScript file dressed as a picture is refused by name,
never waited on, read whole or handed to Ghostscript. (The bad-input cases in tests/data/bad hold the
messages; these check what a case cannot: nothing ran, nothing blocked.)"""

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import EpsImagePlugin

from conftest import make_project, run
from pnp.errors import DataError, LoadError
from pnp.project import find, read_project_file
from pnp.report import Mark

EPS = "%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n{} loop\nshowpage\n"  # would loop for ever in gs
IMAGE_CARD = "size: poker\nelements:\n  - {type: image, src: images/t.png, x: 0, y: 0, w: 10, h: 10}\n"


def test_a_postscript_file_named_png_never_reaches_ghostscript(tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(EpsImagePlugin, "Ghostscript", lambda *a, **k: ran.append(a))
    monkeypatch.setattr(EpsImagePlugin, "gs_windows_binary", None)
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": IMAGE_CARD, "layouts/mini/images/t.png": EPS})
    for command in ("validate", "build"):
        result = run(root, command)
        assert result.exit_code == 1
        assert "layouts/mini/card.yaml:3:24: error: image 'images/t.png' cannot be used" in result.stderr
    assert ran == [] and not (root / "output" / "mini").exists()


def test_the_drawing_checks_an_image_itself_before_reportlab_opens_it(tmp_path):
    """An image replaced after validation (pnp serve draws long after) is refused, not opened as PostScript."""
    from reportlab.pdfgen.canvas import Canvas

    from pnp.draw.paint import Painter

    root = make_project(tmp_path / "proj", {"layouts/mini/images/t.png": EPS})
    painter = Painter(Canvas(str(tmp_path / "x.pdf")), None, None, find(root), root / "layouts" / "mini")
    prim = SimpleNamespace(text="images/t.png", mark=Mark("layouts/mini/card.yaml", 3, 24), x=0, y=0, w=10, h=10)
    with pytest.raises(DataError, match=r"images/t.png' cannot be used: a PostScript \(EPS\) file"):
        painter._image(prim, 0, 100)


def test_a_font_padded_to_3_gb_is_refused_before_it_is_read(tmp_path):
    root = make_project(tmp_path / "proj", {"fonts/fonts.yaml": "families:\n  Body: {regular: body.ttf}\n"})
    with open(root / "fonts" / "body.ttf", "wb") as font:
        font.truncate(3 * 1024**3)  # sparse: no disk is used, but a read would hold 3 GB
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "fonts/fonts.yaml:2:19: error: font file 'body.ttf' is larger than 64 MB" in result.stderr


def test_a_named_pipe_in_the_game_folders_does_not_block_a_build(tmp_path):
    """Files no build reads are still inputs (the up-to-date check digests them): a pipe is told, not read."""
    root = make_project(tmp_path / "proj", case={"fifos": ["cards/mini/notes", "fonts/readme", "layouts/mini/x"]})
    first = run(root, "build")
    assert first.exit_code == 0, first.output
    assert run(root, "build").exit_code == 0
    assert "up to date" in run(root, "build").output


def test_devices_and_pipes_are_refused_by_name_without_being_opened_for_long(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    for path, kind in ((tmp_path / "pipe", "a named pipe"), (Path("/dev/zero"), "a device"), (tmp_path, "a folder")):
        with pytest.raises(LoadError, match=f"^x: data file 'x' is {kind}, not an ordinary file"):
            read_project_file(path, 1024, Mark("x"), "data file", "x")


def test_a_file_is_read_up_to_its_cap_and_no_further(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 1025)
    with pytest.raises(LoadError, match="is larger than 1,024 bytes"):
        read_project_file(path, 1024, Mark("f"))
    assert read_project_file(path, 1025, Mark("f")) == b"x" * 1025


def test_svglib_never_looks_for_a_font_an_icon_names(monkeypatch):
    """An icon drawn without validation (pnp serve draws long after) still cannot make svglib open the TrueType
    file its font-family names, nor run fc-match to find one."""
    import hashlib
    import subprocess

    from reportlab.pdfbase import ttfonts

    from pnp.draw import icons

    looked = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: looked.append(a))
    monkeypatch.setattr(ttfonts, "TTFontFile", lambda *a, **k: looked.append(a))
    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="5" height="5"/>'
           b'<text font-family="../../outside/font" x="1" y="8">A</text></svg>')
    drawing = icons._drawing(svg, hashlib.sha256(svg).digest())
    assert drawing.width > 0 and looked == []


def test_a_file_name_that_is_not_utf8_is_listed_in_the_manifest_escaped(tmp_path):
    import json

    root = make_project(tmp_path / "proj")
    (root / "cards" / "mini" / os.fsdecode(b"notes-\xff.txt")).write_text("a note\n")
    result = run(root, "build")
    assert result.exit_code == 0, result.output
    inputs = json.loads((root / "output" / "mini" / "manifest.json").read_text(encoding="utf-8"))["inputs"]["files"]
    assert "cards/mini/notes-\\xff.txt" in inputs
    assert "mini: up to date" in run(root, "build").output


def _with_character_map(font: bytes, subtable: bytes, lost_maps: int = 0) -> bytes:
    """The font with its cmap table replaced by one Windows Unicode map, `subtable` (appended at its end),
    after `lost_maps` maps whose place is past the end of the file."""
    import struct

    data = bytearray(font + b"\0" * (-len(font) % 4))
    for n in range(struct.unpack_from(">H", data, 4)[0]):
        if data[12 + 16 * n: 16 + 16 * n] == b"cmap":
            lost = struct.pack(">HHI", 0, 4, 0xFFFFFF00) * lost_maps
            cmap = struct.pack(">HH", 0, 1 + lost_maps) + lost + struct.pack(">HHI", 3, 10, 12 + 8 * lost_maps) \
                + subtable
            struct.pack_into(">II", data, 12 + 16 * n + 8, len(data), len(cmap))
            return bytes(data + cmap)
    raise AssertionError("no cmap")


@pytest.mark.parametrize("groups, claimed, lost_maps", [
    ([(0, 0xFFFFFFFF)], 1, 0), ([(0x20, 0x7E)] * 20_000, 20_000, 0),
    # a map before it that lies past the file's end; more groups claimed than the file holds (ReportLab
    # walks those there before it fails): each hid the map from pnp's check, and ReportLab took 1 GB and ran on
    ([(0, 0xFFFFFFFF)], 1, 2), ([(0, 0xFFFFFFFF)], 1_000_000, 0),
    # more groups than any font has, mapping none (5 million took 13 s), and one after them that the check
    # stopped before (60 of all Unicode took 48 s and 3 GB)
    ([(10, 5)] * 200_001 + [(0, 0x10FFFF)], 200_002, 0)])
def test_a_font_whose_character_map_spans_billions_of_code_points_is_refused_before_reportlab_walks_it(
        tmp_path, groups, claimed, lost_maps):
    """ReportLab steps through each code point of each range of a cmap: one range of 4 billion, or a small
    range repeated, ran without end."""
    import struct

    from pnp.project import BUILTIN_FONTS

    regular = (BUILTIN_FONTS / "SourceSansPro" / "SourceSansPro-Regular.ttf").read_bytes()
    body = b"".join(struct.pack(">III", start, end, 0) for start, end in groups)
    font = _with_character_map(regular, struct.pack(">HHIII", 12, 0, 16 + len(body), 0, claimed) + body, lost_maps)
    root = make_project(tmp_path / "proj", {"fonts/fonts.yaml": "families:\n  Body: {regular: body.ttf}\n"})
    (root / "fonts" / "body.ttf").write_bytes(font)
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "fonts/fonts.yaml:2:19: error: font Body regular (body.ttf) cannot be loaded: its character map (cmap) " \
           "spans" in result.stderr


def test_a_font_whose_format_10_character_map_counts_millions_of_entries_is_refused_before_reportlab_reads_it(
        tmp_path):
    """A format 10 map reads one entry per code point, as many as its 32-bit count says, to the file's end: 8
    million in a 16 MB font took ReportLab 20 s and 1.4 GB. Here one entry past pnp's limit."""
    import struct

    from pnp.draw.fonts import MAX_CMAP_CODES
    from pnp.project import BUILTIN_FONTS

    regular = (BUILTIN_FONTS / "SourceSansPro" / "SourceSansPro-Regular.ttf").read_bytes()
    count = MAX_CMAP_CODES + 1
    entries = struct.pack(">95H", *range(0x20, 0x7F)) * (count // 95 + 1)
    font = _with_character_map(regular, struct.pack(">HHIIII", 10, 0, 20 + 2 * count, 0, 0, count)
                               + entries[:2 * count])
    root = make_project(tmp_path / "proj", {"fonts/fonts.yaml": "families:\n  Body: {regular: body.ttf}\n"})
    (root / "fonts" / "body.ttf").write_bytes(font)
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "fonts/fonts.yaml:2:19: error: font Body regular (body.ttf) cannot be loaded: its character map (cmap) " \
           f"spans {count:,} code points" in result.stderr, result.stderr


def _jpeg(scans: int = 1, comments: int = 0, lead: bytes = b"") -> bytes:
    """A small JPEG, progressive when `scans` > 1 (its scans repeated until there are at least that many),
    with `lead` and then `comments` comment segments before the picture."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 64), "#884422").save(out, "JPEG", progressive=scans > 1)
    data = out.getvalue()
    start = data.index(b"\xff\xda")
    copies = -(-scans // data.count(b"\xff\xda"))
    comment = b"\xff\xfe\x00\x05abc"
    return data[:2] + lead + comment * comments + data[2:start] + data[start:-2] * copies + data[-2:]


@pytest.mark.parametrize("jpeg, problem", [
    (_jpeg(scans=31), "a JPEG of more than 30 scans"),
    (_jpeg(comments=201), "a JPEG of more than 200 segments before its picture"),
    # a restart marker has no length: a walk reading its next bytes as one skipped the comments after it
    (_jpeg(comments=201, lead=b"\xff\xd0"), "a JPEG of more than 200 segments before its picture"),
    # Pillow walks bytes that are no marker one at a time (5 MB: 1.5 s), before the file is found padded
    (_jpeg(lead=b"\xff\x00" + bytes(65 * 1024)), "a JPEG holding more than 64 KB that are no marker between its "
                                                  "segments (from byte 2): a damaged file?"),
])
def test_a_jpeg_too_costly_to_decode_is_refused_before_it_is_decoded(tmp_path, jpeg, problem):
    """Each scan decodes the whole picture again, and Pillow reads many metadata segments in quadratic time:
    thousands of either ran for minutes."""
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": IMAGE_CARD})
    (root / "layouts" / "mini" / "images").mkdir()
    (root / "layouts" / "mini" / "images" / "t.png").write_bytes(jpeg)
    result = run(root, "validate")
    assert result.exit_code == 1
    assert f"layouts/mini/card.yaml:3:24: error: image 'images/t.png' cannot be used: {problem}" in result.stderr


def test_a_jpeg_within_the_bounds_is_drawn(tmp_path):
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": IMAGE_CARD.replace("w: 10, h: 10", "w: 5, h: 5")})
    (root / "layouts" / "mini" / "images").mkdir()
    (root / "layouts" / "mini" / "images" / "t.png").write_bytes(_jpeg(scans=30, comments=150))
    result = run(root, "validate")
    assert result.exit_code == 0, result.output
