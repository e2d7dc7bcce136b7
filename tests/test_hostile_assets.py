"""What a received game's assets can make pnp do, beyond the golden bad-input cases: work that must be paid for
from the game's budget, however the icons share it out."""

import base64
import hashlib
import io
import struct
import shutil
import zlib
from pathlib import Path
from collections.abc import Iterator

import pytest
from PIL import Image

from conftest import REPO, make_project, run
from pnp.errors import LimitError
from pnp.draw import icons
from pnp.template import budget


def _icon_embedding(size: tuple[int, int]) -> bytes:
    picture = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(picture, "PNG")
    data = base64.b64encode(picture.getvalue()).decode()
    return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">'
            f'<image xlink:href="data:image/png;base64,{data}" width="10" height="10"/></svg>').encode()


def test_drawing_an_icons_embedded_picture_is_paid_from_the_games_time():
    """Each of 60 icons of a 3.8-million-pixel picture passed alone; drawn to check them, they took 10 s of
    processor time and 550 MB: the drawing is in the game's time, so the game stops at the icon that spends it."""
    svg = _icon_embedding((1000, 1000))
    digest = hashlib.sha256(svg).digest()
    icons._drawing(svg, digest)  # svglib's part, metered before: read with time to spare
    with budget(seconds=0.0001), pytest.raises(LimitError):
        icons._drawing_problem(svg, digest)
    with budget():
        assert icons._drawing_problem(svg, digest) is None


def _font_with_glyph_count(count: int) -> bytes:
    """pnp's own Body font, its maxp table saying it holds `count` glyphs."""
    font = bytearray((REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes())
    for n in range(struct.unpack(">H", font[4:6])[0]):
        tag, _, offset, _ = struct.unpack(">4sIII", font[12 + 16 * n:28 + 16 * n])
        if tag == b"maxp":
            font[offset + 4:offset + 6] = struct.pack(">H", count)
    return bytes(font)


def _variable_font(weight: int) -> bytes:
    """pnp's own Body font made a variable one (an fvar table of a weight axis, 100 to 900) whose default instance
    is of weight class `weight`."""
    font = bytearray((REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes())
    count = struct.unpack(">H", font[4:6])[0]
    entries = [list(struct.unpack(">4sIII", font[12 + 16 * n:28 + 16 * n])) for n in range(count)]
    for entry in entries:
        if entry[0] == b"OS/2":
            struct.pack_into(">H", font, entry[2] + 4, weight)
        entry[2] += 16  # (the directory grows by the new table's entry)
    fvar = struct.pack(">8H4s3i2H", 1, 0, 16, 2, 1, 20, 0, 8, b"wght", 100 << 16, weight << 16, 900 << 16, 0, 256)
    body = bytes(font[12 + 16 * count:])
    body += bytes(-(12 + 16 * (count + 1) + len(body)) % 4)
    entries.append([b"fvar", 0, 12 + 16 * (count + 1) + len(body), len(fvar)])
    directory = b"".join(struct.pack(">4sIII", *entry) for entry in sorted(entries))
    return bytes(font[:4]) + struct.pack(">H", count + 1) + bytes(font[6:12]) + directory + body + fvar


def _collection_of(*fonts: bytes) -> bytes:
    """A font collection (.ttc) of the fonts, in their order."""
    out = bytearray(b"ttcf" + struct.pack(">II", 0x00010000, len(fonts)) + bytes(4 * len(fonts)))
    for n, font in enumerate(fonts):
        out += bytes(-len(out) % 4)
        struct.pack_into(">I", out, 12 + 4 * n, at := len(out))
        moved = bytearray(font)
        for entry in range(struct.unpack(">H", font[4:6])[0]):  # its tables' offsets, from the collection's start
            struct.pack_into(">I", moved, 20 + 16 * entry, struct.unpack_from(">I", font, 20 + 16 * entry)[0] + at)
        out += moved
    return bytes(out)


def test_a_file_of_several_faces_named_as_a_style_its_printed_face_is_not_is_refused_at_its_line(tmp_path):
    """ReportLab prints a variable font's default instance alone, and a font collection's first font: the same
    variable file named as a family's regular and bold printed its bold text regular (exit 0), and so did a
    collection of a regular and a bold font. A variable font whose default instance is the style it is named for
    (a bold of weight 700) prints."""
    root = make_project(tmp_path / "proj")
    (root / "fonts").mkdir(exist_ok=True)
    (root / "fonts/v.ttf").write_bytes(_variable_font(400))
    (root / "fonts/heavy.ttf").write_bytes(_variable_font(700))
    fonts = REPO / "pnp/fonts/SourceSansPro"
    (root / "fonts/c.ttc").write_bytes(_collection_of((fonts / "SourceSansPro-Regular.ttf").read_bytes(),
                                                      (fonts / "SourceSansPro-It.ttf").read_bytes()))
    said = "no {} face; name a font file of that style (a variable font's download holds them, in static/)"
    refused = []
    for fonts_yaml in ("families:\n  Body: {regular: v.ttf, bold: v.ttf}\n  Display: {regular: v.ttf}\n",
                       "families:\n  Body: {regular: v.ttf, bold: heavy.ttf}\n  Display: {regular: v.ttf, italic: c.ttc}\n"):
        (root / "fonts/fonts.yaml").write_text(fonts_yaml)  # (fonts.yaml says its first refusal alone)
        result = run(root, "validate", "mini")
        assert result.exit_code == 1 and "Traceback" not in result.output
        refused += [line for line in result.output.splitlines() if ": error: " in line]
    assert refused == ["fonts/fonts.yaml:2:32: error: font Body bold (v.ttf) cannot be used: a variable font (its fvar "
                       "table), of which pnp prints the default instance alone, of weight 400, which is " +
                       said.format("bold"),
                       "fonts/fonts.yaml:3:37: error: font Display italic (c.ttc) cannot be used: a font collection of 2 "
                       "fonts, of which pnp prints the first alone, of weight 400, which is " + said.format("italic")]


def test_a_font_familys_name_that_prints_no_word_is_refused_at_its_line(tmp_path):
    """A family's `name` of spaces (or of none: the family's own name of spaces) is what the rulebook's credits print
    for the font: they printed "Fonts: (no licence file given)", exit 0."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf, name: '  '}\n  Display: {regular: f.ttf}\n"})
    (root / "fonts/f.ttf").write_bytes((REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes())
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert "fonts/fonts.yaml:2:32: error: font family 'Body': its name prints no word (the rulebook's credits print " \
           "it); give the font's name" in result.stderr


def _run_with_font(tmp_path, font: bytes, command: str):
    """`pnp COMMAND` run on a project whose fonts.yaml gives Body and Display the font file `font` (fonts/f.ttf)."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf}\n  Display: {regular: f.ttf}\n"})
    (root / "fonts/f.ttf").write_bytes(font)
    return run(root, command)


def test_a_font_whose_tables_disagree_is_refused_at_validation_not_in_the_builds_save(tmp_path):
    """A font whose cmap names glyphs past its glyph count was registered, validated, then failed the build
    with ReportLab's traceback when the PDF was saved."""
    result = _run_with_font(tmp_path, _font_with_glyph_count(0), "build")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "fonts/fonts.yaml:2:19: error: font Body regular (f.ttf) cannot be embedded in a PDF" in result.stderr


def _font_of_chained_composites() -> bytes:
    """pnp's own Body font, each of its glyphs but the last redrawn as a composite glyph made of the next one."""
    font = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    tables = {}
    for n in range(struct.unpack(">H", font[4:6])[0]):
        tag, _, offset, length = struct.unpack(">4sIII", font[12 + 16 * n:28 + 16 * n])
        tables[tag] = bytearray(font[offset:offset + length])
    count = struct.unpack(">H", tables[b"maxp"][4:6])[0]
    tables[b"head"][50:52] = struct.pack(">h", 1)  # long offsets in loca
    # (its flags: offsets as bytes, no more components)
    glyphs = b"".join(struct.pack(">h4hHHbb", -1, 0, 0, 9, 9, 0x02, g + 1, 0, 0) for g in range(count - 1))
    tables[b"glyf"] = bytearray(glyphs)
    tables[b"loca"] = bytearray(b"".join(struct.pack(">I", 16 * g) for g in range(count)) + struct.pack(">I", len(glyphs)))
    tags = sorted(tables)
    out, at = struct.pack(">IHHHH", 0x10000, len(tags), 0, 0, 0), 12 + 16 * len(tags)
    body = b""
    for tag in tags:
        out += struct.pack(">4sIII", tag, 0, at + len(body), len(tables[tag]))
        body += bytes(tables[tag]) + b"\0" * (-len(tables[tag]) % 4)
    return out + body


def test_a_font_whose_composite_glyphs_chain_is_refused_before_it_is_subset(tmp_path, monkeypatch):
    """A 1.4 MB font whose 65,534 glyphs were each made of the next one was walked whole for each subset of its
    characters: validation ran for minutes. The walk is counted before subsetting (the limit is made small
    here: the font's own 1,900 glyphs are walked for each of its subsets)."""
    from pnp.draw import fonts
    monkeypatch.setattr(fonts, "MAX_SUBSET_WALK", 5000)
    result = _run_with_font(tmp_path, _font_of_chained_composites(), "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "fonts/fonts.yaml:2:19: error: font Body regular (f.ttf) cannot be embedded in a PDF: subsetting its " \
           "characters walks more than 5,000 glyphs" in result.stderr, result.stderr


def test_a_font_whose_composite_glyphs_nest_past_a_few_dozen_is_refused_at_its_line(tmp_path):
    """The same font within the subsetting walk's limit: its points were counted by recursion, one call per glyph
    inside another, 1,900 deep: 'a bug in pnp' (RecursionError)."""
    result = _run_with_font(tmp_path, _font_of_chained_composites(), "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "fonts/fonts.yaml:2:19: error: font Body regular (f.ttf) cannot be used: its composite glyphs are made of " \
           "composite glyphs more than 32 deep" in result.stderr, result.stderr


def test_font_files_whose_glyphs_hold_more_points_than_any_real_fonts_are_refused_before_they_are_measured(
        tmp_path, monkeypatch):
    """An 18 MB font of 65,535 glyphs of 32,000 points each (its points' flags repeated: a few hundred bytes a
    glyph) took validation 218 s, FreeType loading each glyph to measure it. The points of all the glyphs the
    font files map are counted first (the limit is made small here: pnp's own Body font has 48,000)."""
    from pnp.draw import fonts
    monkeypatch.setattr(fonts, "MAX_FONT_POINTS", 40_000)
    result = _run_with_font(tmp_path, (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes(), "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "fonts/fonts.yaml:2:19: error: the font files fonts.yaml names draw the characters they map with more " \
           "than 40,000 points of outlines together" in result.stderr, result.stderr


@pytest.mark.parametrize("file, rows, refused", [
    ("big.yaml", "".join(f"- {{id: i{i}, name: N}}\n" for i in range(100)),
     "cards/mini/big.yaml:1:1: error: YAML data expands to "),
    ("big.csv", "id,name\n" + "".join(f"i{i},N\n" for i in range(100)), "cards/mini/big.csv:2:1: error: "),
])
def test_tables_past_the_games_count_of_values_are_refused_at_their_first_value(tmp_path, monkeypatch, file, rows,
                                                                                 refused):
    """200 tables of one 5,000-item file: each table past the game's count of values was read again up to what
    was left of it, then refused (28 s for YAML, 13 s for CSV). The file passing it spends the count, so the
    next are refused at their first value (the count is made small here)."""
    from pnp.model import load
    monkeypatch.setattr(load, "MAX_GAME_VALUES", 5000)
    tables = "".join(f"  t{i}:\n    file: {file}\n    fields: {{id: {{type: id}}, name: {{type: str}}}}\n"
                     for i in range(30))
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [["tables:\n",
                                                                                        "tables:\n" + tables]]}})
    (root / "cards/mini" / file).write_text(rows, encoding="utf-8")
    result = run(root, "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{refused}more than 5,000 values with the game's other data files" in result.stderr, result.stderr


def test_a_csv_of_blank_rows_or_wide_rows_stops_at_the_row_as_a_workbook_does(tmp_path, monkeypatch):
    """Two million empty CSV lines (10 MB) took 14 s and 550 MB to validate and said ok: blank rows count
    towards MAX_ROWS, and a row's cells towards MAX_COLUMNS, as in a workbook (the limit is made small here); blank
    rows past MAX_ROWS and a row's blank cells past MAX_COLUMNS are passed over, as a workbook's are, so a value
    follows the blank rows, and the wide row holds one past its blank cells."""
    from pnp.model import spreadsheet
    monkeypatch.setattr(spreadsheet, "MAX_ROWS", 50)
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    rows = "lion,Lion,beast,4\nfern,Fern,plant,1\nwolf,Wolf,beast,3\nmoss,Moss,plant,2\n"
    csv = root / "cards" / "mini" / "cards.csv"
    csv.write_text("id,name,kind,power\n" + rows + ",,,\n" * 60 + "x,,,\n", encoding="utf-8")
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "cards/mini/cards.csv:66:1: error: sheet has more than 50 rows" in result.stderr  # (the value's row)
    csv.write_text("id,name,kind,power\n" + rows.replace("moss,Moss,plant,2", "moss,Moss,plant,2" + "," * 1000 + "x"))
    result = run(root, "validate")
    assert "cards/mini/cards.csv:5:1004: error: row has more than 1,000 columns" in result.stderr  # (the value's cell)


def test_the_preview_never_draws_an_icon_validation_refuses(tmp_path):
    """The preview draws the faces of a game with errors: an icon refused by validation was drawn there anyway
    (250 uses of an embedded picture: 26 s and 2.5 GB; a gradient of nan: ReportLab's words, 'drawing failed'), and
    one that is a link was named by its target's name."""
    from pnp.project import Project
    from pnp.serve.preview import Preview

    gradient = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><linearGradient id="a" x2="1e308">'
                '<stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient></defs>'
                '<rect width="10" height="10" fill="url(#a)"/></svg>')
    root = make_project(tmp_path / "proj", {"layouts/shared/drawings/shape.svg": gradient})
    # the icon is a link, named by its link's name as validation names it (the drawing named it by its target's)
    (root / "layouts/shared/icons/round-star.svg").unlink()
    (root / "layouts/shared/icons/round-star.svg").symlink_to("../drawings/shape.svg")
    problems = [p["message"] for p in Preview(Project(root), "mini").refresh()["problems"]]
    assert problems and all(m.startswith("icon 'round-star': the SVG file cannot be drawn") for m in problems), \
        problems
    assert any(m.endswith("(printing deck 'lion' front)") for m in problems), problems  # the face that shows it


def test_the_preview_says_a_damaged_picture_as_validation_does_not_in_reportlabs_words(tmp_path):
    """A PNG whose header claims 6000 x 6000 pixels and holds a 20 x 20 picture's data: the preview drew it
    anyway and said 'drawing failed: OSError: identity=[ImageReader@0x...] image file is truncated'."""
    from pnp.project import Project
    from pnp.serve.preview import Preview

    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": (
        "size: poker\nelements:\n  - {type: image, src: images/t.png, x: 0, y: 0, w: 3, h: 3}\n")})
    picture = io.BytesIO()
    Image.new("RGB", (20, 20)).save(picture, "PNG")
    data = picture.getvalue()
    header = struct.pack(">IIBBBBB", 6000, 6000, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + header + struct.pack(">I", zlib.crc32(b"IHDR" + header))
    (root / "layouts/mini/images").mkdir()
    (root / "layouts/mini/images/t.png").write_bytes(data[:8] + chunk + data[33:])
    problems = Preview(Project(root), "mini").refresh()["problems"]
    assert problems and all(p["message"].startswith("image 'images/t.png' cannot be read: ")  # (then pnp's words)
                            and "ImageReader" not in p["message"]
                            and p["where"]["at"] == "layouts/mini/card.yaml:3:24" for p in problems), problems


@pytest.mark.parametrize("family, said", [
    ("{regular: f.ttf, name: '" + "N" * 5000 + "'}", "name of 5,000 characters; at most 100"),
    ("{regular: f.ttf, name: \"Sans\\e[31m\"}", "holds the control character U+001B"),
    ("{regular: f.ttf, name: \"Sans\\u202e\"}", "holds the control character U+202E"),
    ("{regular: f.ttf, license: /etc/hostname}", "licence file '/etc/hostname' is outside the project folder"),
    # the project's own folder, named from fonts/ (a traceback: 'This is a bug in pnp')
    ("{regular: f.ttf, license: ..}", "fonts.yaml:2:35: error: licence file '..' is a folder"),
    ("{regular: ..}", "fonts.yaml:2:19: error: font file '..' is a folder"),
    # validate said ok, and the build refused them at the rulebook's template; said at the name (they were said
    # at the family's first key)
    ("{regular: f.ttf, name: \"Sans\\u2028Pro\"}", "fonts.yaml:2:32: error: character U+2028 "),
    ("{regular: f.ttf, name: '" + "W" * 100 + "'}", "fonts.yaml:2:32: error: a word wider than the page's text (174"),
])
def test_a_fonts_name_or_licence_the_credits_cannot_print_is_an_error_at_its_line(tmp_path, family, said):
    """The rulebook's credits print each font's name and its licence's folder: a 100,000-character name failed
    the build with no line, an escape printed as text, a licence outside the project printed '..'."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": f"families:\n  Body: {family}\n  Display: {{regular: f.ttf}}\n"})
    shutil.copy(REPO / "pnp" / "fonts" / "SourceSansPro" / "SourceSansPro-Regular.ttf", root / "fonts" / "f.ttf")
    result = run(root, "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert any(ln.startswith("fonts/fonts.yaml:2:") and said in ln for ln in result.stderr.splitlines()), result.stderr


def _zero_table(font: bytes, name: bytes) -> bytes:
    """The font with one of its tables filled with zeros (its directory and every other table kept)."""
    out = bytearray(font)
    for n in range(struct.unpack_from(">H", font, 4)[0]):
        tag, _, offset, length = struct.unpack_from(">4sIII", font, 12 + 16 * n)
        if tag == name:
            out[offset:offset + length] = bytes(length)
    return bytes(out)


def test_a_font_whose_glyphs_have_no_outlines_is_refused_at_its_line_in_fonts_yaml(tmp_path):
    """A font whose glyph table is zeros maps every character, so nothing said it lacked one: every text set
    in it printed blank, with exit 0. A font drawing the characters a game prints passes (the Display family)."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: blank.ttf}\n  Display: {regular: f.ttf}\n"})
    # its own PostScript name (ReportLab draws a font registered under a name it met before with the first one)
    renamed = _sans_named("BlankSansPro0-Regular")
    (root / "fonts" / "blank.ttf").write_bytes(_zero_table(renamed, b"glyf"))
    shutil.copy(REPO / "pnp" / "fonts" / "AveriaSerifGWF" / "AveriaSerifGWF-Regular.ttf", root / "fonts" / "f.ttf")
    result = run(root, "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    said = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert len(said) == 1 and said[0].startswith("fonts/fonts.yaml:2:") and "'blank.ttf'" in said[0] \
        and "no outline" in said[0], said


def _font_named(font: bytes, name: str, new: str) -> bytes:
    """The font with its PostScript name (and every other name written the same) changed to one as long."""
    assert len(name) == len(new)
    return font.replace(name.encode(), new.encode()).replace(name.encode("utf-16-be"), new.encode("utf-16-be"))


def _sans_named(new: str) -> bytes:
    """pnp's own Source Sans Pro Regular under another PostScript name of as many letters: ReportLab draws a font
    registered under a name it met before with the first one."""
    regular = (REPO / "pnp" / "fonts" / "SourceSansPro" / "SourceSansPro-Regular.ttf").read_bytes()
    return _font_named(regular, "SourceSansPro-Regular", new)


def _advances(root) -> dict[str, set[tuple[str, float]]]:
    """The font names of the game's rulebook (set in both families), their subset tag left out, each with the
    (character, advance per point) it draws."""
    import pdfplumber

    drawn: dict[str, set[tuple[str, float]]] = {}
    with pdfplumber.open(root / "output/mini/mini-rulebook-a4.pdf") as pdf:
        for ch in (ch for page in pdf.pages for ch in page.chars if ch["text"].strip()):
            drawn.setdefault(ch["fontname"].split("+", 1)[-1], set()).add(
                (ch["text"], round((ch["x1"] - ch["x0"]) / ch["size"], 3)))
    return drawn


def test_font_files_of_one_postscript_name_each_draw_their_own_glyphs_in_one_process(tmp_path):
    """ReportLab gives a font registered under a PostScript name it met before the first font of that name: a
    second game (or a font file replaced while `pnp serve` runs) whose font file had the name of another's was
    drawn with the other's glyphs, exit 0. Built in one process: a game in Source Sans, a game with it and another
    font under Source Sans's name (two families), then the first game's file replaced by the other.
    Each text is as wide as its own file says, and the two files of one game print under two names (their PDF
    parts are named after it)."""
    from reportlab.pdfbase.ttfonts import TTFont

    files = {"sans": (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes(),
             "other": _font_named((REPO / "pnp/fonts/AveriaSerifGWF/AveriaSerifGWF-Italic.ttf").read_bytes(),
                                  "AveriaSerifGWF-Italic", "SourceSansPro-Regular")}
    widths = {name: TTFont(name, io.BytesIO(font)).stringWidth for name, font in files.items()}  # each file's own
    games = {"sans": {"Body": "sans", "Display": "sans"}, "both": {"Body": "sans", "Display": "other"}}
    for game, families in games.items():
        root = make_project(tmp_path / game, changes={"fonts/fonts.yaml": "families:\n" + "".join(
            f"  {family}: {{regular: {file}.ttf}}\n" for family, file in families.items())})
        for file in families.values():
            (root / "fonts" / f"{file}.ttf").write_bytes(files[file])
        result = run(root, "build")
        assert result.exit_code == 0, result.output
        drawn = _advances(root)
        used = list(dict.fromkeys(families.values()))  # in fonts.yaml's order: the first prints its own name
        assert sorted(drawn) == ["SourceSansPro-Regular", *(
            f"SourceSansPro-Regular-{hashlib.sha256(files[file]).hexdigest()[:8]}" for file in used[1:])], drawn
        for font_name, file in zip(sorted(drawn), used):
            for name in files:  # drawn as wide as its own file says, and not as the other (the two differ)
                assert all(abs(widths[name](ch, 1) - advance) < 0.002 for ch, advance in drawn[font_name]) \
                    == (name == file), (game, font_name, name)
    swapped = tmp_path / "sans"  # its font file replaced by the other (as while `pnp serve` runs), built again
    (swapped / "fonts" / "sans.ttf").write_bytes(files["other"])
    assert run(swapped, "build").exit_code == 0
    drawn = _advances(swapped)
    assert list(drawn) == ["SourceSansPro-Regular"] and all(
        abs(widths["other"](ch, 1) - advance) < 0.002 for ch, advance in drawn["SourceSansPro-Regular"])


@pytest.mark.parametrize("start, rest", [(b"OTTO", None), (b"\0\1\0\0", b"x" * 100)],
                         ids=["postscript-outlines", "no-table-directory"])
def test_a_font_file_reportlab_cannot_load_is_named_as_fonts_yaml_names_it(tmp_path, start, rest):
    """ReportLab's messages on a font file it cannot read (PostScript outlines, no table directory) named the
    file by its absolute path: said at fonts.yaml's line, the file is named as fonts.yaml names it."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: sub/f.ttf}\n  Display: {regular: sub/f.ttf}\n"})
    (root / "fonts" / "sub").mkdir()
    font = rest or (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()[4:]
    (root / "fonts" / "sub" / "f.ttf").write_bytes(start + font)
    result = run(root, "validate")
    said = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert result.exit_code == 1 and len(said) == 1, result.output
    assert said[0].startswith("fonts/fonts.yaml:2:19: error: font Body regular (sub/f.ttf) cannot be loaded: ")
    assert str(tmp_path) not in result.output and "/fonts/sub" not in result.output


@pytest.mark.parametrize("damage, said", [
    ("no-post", "it has no post table, which a TrueType font holds"),
    ("CFF-glyf", "it has no glyf table, where a TrueType font holds its outlines: an OpenType font of PostScript "
                 "outlines (a CFF table), which pnp does not embed"),
    ("units-per-em-0", "its head table gives 0 units per em, where a font has 16 to 16,384 (every measure of it is "
                       "divided by them): a damaged file?")])
def test_a_font_file_without_a_table_or_of_no_units_per_em_says_so(tmp_path, damage, said):
    """ReportLab looks a font's tables up by their tags, and divides its measures by its units per em: a font
    without its post table was refused as "cannot be loaded: 'post'", the missing table's tag alone, and one of 0
    units per em as "division by zero"."""
    import struct

    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf}\n  Display: {regular: f.ttf}\n"})
    font = bytearray((REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes())
    if damage in ("no-post", "CFF-glyf"):
        tag, other = (b"post", b"posu") if damage == "no-post" else (b"glyf", b"CFF ")  # (a glyf it failed without)
        at = font.index(tag, 12)  # its entry in the table directory, renamed
        font[at:at + 4] = other
    else:
        head = struct.unpack_from(">I", font, font.index(b"head", 12) + 8)[0]
        font[head + 18:head + 20] = bytes(2)
    (root / "fonts" / "f.ttf").write_bytes(bytes(font))
    result = run(root, "validate")
    lines = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert lines[0] == f"fonts/fonts.yaml:2:19: error: font Body regular (f.ttf) cannot be loaded: {said}"


def test_two_icon_files_of_one_name_in_different_folders_each_draw_their_own_drawing(tmp_path):
    """A game's icons/gem.svg linked to art/star.svg beside its own icons/star.svg: both were drawn as the
    first one the PDF met (forms were named by the file's name alone), and the build said ok."""
    from reportlab.lib import colors
    from reportlab.pdfgen.canvas import Canvas

    square, disc = tmp_path / "icons" / "star.svg", tmp_path / "art" / "star.svg"
    for path, shape in ((square, '<rect width="10" height="10"/>'), (disc, '<circle cx="5" cy="5" r="2"/>')):
        path.parent.mkdir(exist_ok=True)
        path.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">{shape}</svg>')
    out = io.BytesIO()
    canvas = Canvas(out, pageCompression=0)
    for path in (square, disc, square):
        icons.draw_icon(canvas, path, 0, 0, 10, 10, colors.black)
    canvas.showPage()
    canvas.save()
    pdf = out.getvalue()
    assert pdf.count(b"/Subtype /Form") == 2 and b"0 0 10 10 re f" in pdf and b" c\n" in pdf


@pytest.mark.parametrize("pattern", ["0.0025", ",".join(["0.0025"] * 400)], ids=["one-length", "400-lengths"])
def test_an_icons_dashes_count_as_what_each_use_of_it_paints(tmp_path, pattern):
    """Each dash is painted at every use: an icon of 5,000 dashes (its outline 25 units long, measured as 32 by
    its bounds, over a dash and a gap of 0.0025 each) costs the drawing budget as that many strokes, whether its
    pattern says one dash or 200 (a pattern of 30,000 lengths was counted as one dash a cycle: a card drawing
    it took a PDF reader seconds)."""
    dashed = tmp_path / "dashed.svg"
    dashed.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle cx="5" cy="5" r="4" '
                      f'fill="none" stroke="black" stroke-dasharray="{pattern}"/></svg>')
    assert 5_000 <= icons.icon_paints(dashed) <= 6_401


def test_an_icons_dash_pattern_of_zeros_strokes_solid(tmp_path):
    """SVG strokes a stroke-dasharray summing to zero solid; it was written into the PDF as it is (a PDF error)
    and counted as endless dashes, refusing the icon."""
    import hashlib

    from reportlab.lib import colors

    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle cx="5" cy="5" r="4" '
           b'fill="none" stroke="black" stroke-dasharray="0 0"/></svg>')
    (tmp_path / "zeros.svg").write_bytes(svg)
    assert icons.unreadable(tmp_path / "zeros.svg") is None
    operators = icons._operators(svg, hashlib.sha256(svg).digest(), colors.black, "Helvetica")[1]
    assert "[] 0 d" in operators and not any(op.endswith(" d") and op != "[] 0 d" for op in operators)


def test_an_icon_reached_through_a_link_is_credited_by_where_its_file_lies_not_by_its_name(tmp_path):
    """The designer's own drawing art/amber-mosquito.svg, drawn as :gem: through icons/gem.svg, was credited to
    game-icons.net (a shared icon has that name): the rulebook's credits said whose it is by name alone."""
    from pdfread import read

    root = make_project(tmp_path / "proj", case={
        "files": {"layouts/mini/art/amber-mosquito.svg":
                  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'},
        "replace": {"cards/mini/cards.yaml": [["Roars :star: loudly.", "Roars :gem: loudly."]]},
        "symlinks": {"layouts/mini/icons/gem.svg": "../art/amber-mosquito.svg"}})
    assert run(root, "build", "mini").exit_code == 0
    credits = " ".join(page.extract_text() for page in read(root / "output/mini/mini-rulebook-a4.pdf").pages)
    credits = " ".join(credits.split())
    assert "This game's own: amber-mosquito." in credits and "game: amber-mosquito" not in credits


def test_an_icons_file_name_prints_in_the_credits_as_it_is(tmp_path):
    """The icons' credit line is markup: an icon file named 'my*odd*[[x]]:y:.svg' was credited as 'myoddx' (in
    italics, a bold term, and ':y:' drew an icon or nothing), exit 0."""
    from pdfread import read

    root = make_project(tmp_path / "proj", case={
        "files": {"layouts/mini/icons/my*odd*[[x]]:y:.svg":
                  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'},
        "replace": {"cards/mini/game.yaml": [["star: round-star", "star: 'my*odd*[[x]]:y:'"]]}})
    assert run(root, "build", "mini").exit_code == 0
    credits = " ".join(page.extract_text() for page in read(root / "output/mini/mini-rulebook-a4.pdf").pages)
    assert "This game's own: my*odd*[[x]]:y:." in " ".join(credits.split())


def test_a_fonts_name_prints_in_the_credits_as_fonts_yaml_writes_it(tmp_path):
    # the credits line is markup: a name's stars made the rest bold and were not printed
    import pdfplumber
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf, name: 'Sans **Pro*'}\n  Display: {regular: f.ttf}\n"})
    shutil.copy(REPO / "pnp" / "fonts" / "SourceSansPro" / "SourceSansPro-Regular.ttf", root / "fonts" / "f.ttf")
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    with pdfplumber.open(root / "output" / "mini" / "mini-rulebook-a4.pdf") as pdf:
        text = " ".join(page.extract_text() for page in pdf.pages)
    assert "Sans **Pro* (" in text, text  # (pdfplumber joins the bold "Fonts:" to it)


def test_the_credits_name_only_the_licence_a_fonts_licence_file_grants(tmp_path):
    """Every font was credited under the SIL Open Font License, whatever its licence file said, and one with
    no licence file too."""
    import pdfplumber
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf, name: Own Sans, license: own/EULA.txt}\n"
                            "  Display: {regular: f.ttf, name: Free Serif, license: free/OFL.txt}\n"
                            "  Extra: {regular: f.ttf, name: Bare Mono}\n",
        "fonts/own/EULA.txt": "Own Sans end user licence. All rights reserved.\n",
        "fonts/free/OFL.txt": "Copyright 2020 someone\n\nThis Font Software is licensed under the SIL Open Font\n"
                              "License, Version 1.1.\n"})
    shutil.copy(REPO / "pnp" / "fonts" / "SourceSansPro" / "SourceSansPro-Regular.ttf", root / "fonts" / "f.ttf")
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    with pdfplumber.open(root / "output" / "mini" / "mini-rulebook-a4.pdf") as pdf:
        text = " ".join(" ".join((page.extract_text() or "").split()) for page in pdf.pages)
    assert "Own Sans (licence: own/EULA.txt)" in text, text
    assert "Free Serif (free, SIL Open Font License)" in text, text
    assert "Bare Mono (no licence file given)" in text, text
    assert text.count("SIL Open Font License") == 1


def _collection(font: bytes, fonts: int) -> bytes:
    """A font collection (.ttc) listing `fonts` fonts, each the one font (its tables' offsets made the file's)."""
    start, moved = 12 + 4 * fonts, bytearray(font)
    for n in range(struct.unpack_from(">H", font, 4)[0]):
        struct.pack_into(">I", moved, 12 + 16 * n + 8, struct.unpack_from(">I", font, 12 + 16 * n + 8)[0] + start)
    return b"ttcf" + struct.pack(">HHI", 1, 0, fonts) + struct.pack(">I", start) * fonts + bytes(moved)


@pytest.mark.parametrize("fonts, said", [(2, None), (257, "a font collection listing 257 fonts; pnp reads at most 256")])
def test_a_font_collection_listing_more_fonts_than_any_is_refused_before_reportlab_reads_the_list(tmp_path, fonts, said):
    """ReportLab reads every entry of a collection's list of fonts, one by one: one listing 15 million (a 60 MB
    file) ran for over a minute."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: c.ttc}\n  Display: {regular: c.ttc}\n"})
    font = (REPO / "pnp" / "fonts" / "SourceSansPro" / "SourceSansPro-Regular.ttf").read_bytes()
    (root / "fonts" / "c.ttc").write_bytes(_collection(font, fonts))
    result = run(root, "validate")
    if said is None:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1
        assert f"fonts/fonts.yaml:2:19: error: font Body regular (c.ttc) cannot be loaded: {said}" in result.stderr


def _resources_named_but_missing(reader) -> list[str]:
    """The shadings (`sh`) and graphics states (`gs`) a form of the PDF draws with that its resources lack."""
    from pypdf.generic import ContentStream

    missing, seen = [], set()

    def walk(xobjects):
        for name, ref in (xobjects or {}).items():
            form = ref.get_object()
            if form.get("/Subtype") != "/Form" or ref.idnum in seen:
                continue
            seen.add(ref.idnum)
            resources = form.get("/Resources", {})
            for operands, op in ContentStream(form, reader).operations:
                kind = {b"sh": "/Shading", b"gs": "/ExtGState"}.get(op)
                if kind and operands[0] not in resources.get(kind, {}):
                    missing.append(f"{name} {operands[0]} {op.decode()}")
            walk(resources.get("/XObject"))

    for page in reader.pages:
        walk(page.get("/Resources", {}).get("/XObject"))
    return missing


def test_a_gradient_or_opacity_drawn_inside_a_form_is_among_the_forms_resources(tmp_path):
    """An icon's gradient or opacity, and a card back's opacity, are drawn inside a form (drawn once, shown at
    every use): ReportLab listed none of them among the form's resources, so each PDF named a shading or
    graphics state no reader found (poppler: "ExtGState 'Sh0' is unknown") and drew it wrong."""
    from pypdf import PdfReader

    icon = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><linearGradient id="g">'
            '<stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient></defs>'
            '<rect width="5" height="5" fill="url(#g)"/><rect x="5" width="5" height="5" fill-opacity="0.5"/></svg>')
    root = make_project(tmp_path / "proj", {"layouts/shared/icons/round-star.svg": icon})
    back = root / "layouts/mini/back.yaml"
    back.write_text(back.read_text().replace('fill: "#224422"}', 'fill: "#224422", opacity: 0.5}'))
    card = (root / "layouts/mini/card.yaml").read_text().replace(", when: card.strong", "")
    (root / "layouts/mini/card.yaml").write_text(card)
    result = run(root, "build", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    reader = PdfReader(tmp_path / "out/mini/mini-cards-a4.pdf")
    forms = [page["/Resources"]["/XObject"] for page in reader.pages if "/XObject" in page["/Resources"]]
    assert forms, "the cards are drawn through forms"
    assert _resources_named_but_missing(reader) == []


def _font_with(font: bytes, table: bytes, at: int, fmt: str, value: int) -> bytes:
    """The font with one value of one of its tables written anew (`at` bytes into the table)."""
    out = bytearray(font)
    for n in range(struct.unpack_from(">H", font, 4)[0]):
        tag, _, offset, _ = struct.unpack_from(">4sIII", font, 12 + 16 * n)
        if tag == table:
            struct.pack_into(fmt, out, offset + at, value)
    return bytes(out)


def _advance_of(font: bytes, character: str, advance: int) -> bytes:
    """The font with one character's glyph's advance width (in its hmtx table) set."""
    from reportlab.pdfbase.ttfonts import TTFontFile
    glyph = TTFontFile(io.BytesIO(font)).charToGlyph[ord(character)]
    return _font_with(font, b"hmtx", 4 * glyph, ">H", advance)


def _advances_divided(font: bytes, by: int) -> bytes:
    """The font with every advance width of its hmtx table divided by `by`."""
    out, metrics = bytearray(font), _table_at(font, b"hmtx")
    for glyph in range(struct.unpack_from(">H", font, _table_at(font, b"hhea") + 34)[0]):
        struct.pack_into(">H", out, metrics + 4 * glyph, struct.unpack_from(">H", font, metrics + 4 * glyph)[0] // by)
    return bytes(out)


def _table_at(font: bytes, table: bytes) -> int:
    return next(struct.unpack_from(">I", font, 20 + 16 * n)[0] for n in range(struct.unpack_from(">H", font, 4)[0])
                if font[12 + 16 * n:16 + 16 * n] == table)


def _cmap_subtables(font: bytes) -> Iterator[tuple[int, int]]:
    """(format, offset) of each subtable of the font's character map."""
    cmap = _table_at(font, b"cmap")
    for n in range(struct.unpack_from(">H", font, cmap + 2)[0]):
        at = cmap + struct.unpack_from(">I", font, cmap + 8 + 8 * n)[0]
        yield struct.unpack_from(">H", font, at)[0], at


def _last_code_past_unicode(font: bytes) -> bytes:
    """The font with the last group of its format 12 character map mapping one code point, 0x110000 (past
    Unicode's last), as that group's first code did."""
    out = bytearray(font)
    for form, at in _cmap_subtables(font):
        if form == 12:
            last = at + 16 + 12 * (struct.unpack_from(">I", font, at + 12)[0] - 1)
            struct.pack_into(">II", out, last, 0x110000, 0x110000)
    return bytes(out)


def _letters_drawn_small(font: bytes) -> bytes:
    """The font with its ASCII letters' and digits' glyphs each a composite of 'Ð' at a sixteenth of its size (their
    outlines' own points unchanged)."""
    from reportlab.pdfbase.ttfonts import TTFontFile
    face = TTFontFile(io.BytesIO(font))
    small = struct.pack(">hhhhhHHhhH", -1, 0, 0, 100, 100, 0x1 | 0x2 | 0x8, face.charToGlyph[ord("Ð")], 0, 0, 0x0400)
    made = {face.charToGlyph[ord(ch)] for ch in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ªµ"}
    return _glyphs_replaced(font, {g: small for g in made})


def _glyph_moved(font: bytes, character: str, dx: int, dy: int) -> bytes:
    """The font with one character's glyph a composite of 'o' placed `dx`, `dy` units from where it is set."""
    from reportlab.pdfbase.ttfonts import TTFontFile
    face = TTFontFile(io.BytesIO(font))
    moved = struct.pack(">hhhhhHHhh", -1, 0, 0, 100, 100, 0x1 | 0x2, face.charToGlyph[ord("o")], dx, dy)
    return _glyphs_replaced(font, {face.charToGlyph[ord(character)]: moved})


def _glyph_cut_short(font: bytes, character: str) -> bytes:
    """The font with one character's glyph a simple one whose instructions are said to run past its end."""
    from reportlab.pdfbase.ttfonts import TTFontFile
    face = TTFontFile(io.BytesIO(font))
    cut = struct.pack(">hhhhhHH", 1, 0, 0, 100, 100, 2, 5000) + b"\0" * 8  # 1 contour of 3 points, 5,000 bytes of hints
    return _glyphs_replaced(font, {face.charToGlyph[ord(character)]: cut})


def _glyphs_replaced(font: bytes, replaced: dict[int, bytes]) -> bytes:
    """The font with the glyphs numbered in `replaced` given those outlines: glyf and loca written anew (loca
    long) at the file's end, the other glyphs as they were."""
    from reportlab.pdfbase.ttfonts import TTFontFile
    face, out, glyf = TTFontFile(io.BytesIO(font)), bytearray(font), _table_at(font, b"glyf")
    glyphs = [replaced.get(g) or font[glyf + face.glyphPos[g]:glyf + face.glyphPos[g + 1]] for g in range(face.numGlyphs)]
    positions = [0]
    for glyph in glyphs:
        positions.append(positions[-1] + len(glyph))
    for tag, table in ((b"glyf", b"".join(glyphs)), (b"loca", struct.pack(f">{len(positions)}I", *positions))):
        out += b"\0" * (-len(out) % 4)
        entry = next(12 + 16 * n for n in range(struct.unpack_from(">H", font, 4)[0]) if font[12 + 16 * n:16 + 16 * n] == tag)
        struct.pack_into(">II", out, entry + 8, len(out), len(table))
        out += table
    struct.pack_into(">h", out, _table_at(font, b"head") + 50, 1)  # loca of 32-bit offsets
    return bytes(out)


def _maps_declared(font: bytes, platform: int, encoding: int) -> bytes:
    """The font with each record of its cmap table saying its map is of `platform` and `encoding`."""
    out, cmap = bytearray(font), _table_at(font, b"cmap")
    for n in range(struct.unpack_from(">H", font, cmap + 2)[0]):
        struct.pack_into(">HH", out, cmap + 4 + 8 * n, platform, encoding)
    return bytes(out)


@pytest.mark.parametrize("change, said", [
    (lambda font: _advance_of(font, "•", 65535), "its character U+2022 ('•') is 65.5 em wide"),
    (lambda font: _font_with(font, b"head", 18, ">H", 16), " em wide"),  # every glyph 62.5 times as wide
    (lambda font: _font_with(font, b"OS/2", 68, ">h", 30000), "its ascender"),
    (lambda font: _font_with(font, b"OS/2", 68, ">h", -30000), "its ascender"),
    # units per em 16 times as many (the ascender too): every glyph drawn at a sixteenth of its size
    (lambda font: _font_with(_font_with(font, b"head", 18, ">H", 16000), b"OS/2", 68, ">h", 750 * 16),
     "is drawn 0.0"),
    # a sixteenth as many units, the advances and ascender too: letters 16 em tall, set 0.5 em apart
    (lambda font: _advances_divided(_font_with(_font_with(font, b"head", 18, ">H", 64), b"OS/2", 68, ">h", 48), 16),
     "is drawn 1"),
    (_last_code_past_unicode, "maps code point 0x110000, past Unicode's last"),
    (lambda font: font.replace(b"glyf", b"glyx", 1), "cannot be loaded: it has no glyf table, where a TrueType font "
                                                     "holds its outlines: a damaged file?"),
    # written into every PDF as the escape '#a', which PDF readers refuse: its font dictionaries broken, exit 0
    (lambda font: _font_named(font, "SourceSansPro-Regular", "Source\nSansPr-Regular"), "control character 0x0A"),
    # ReportLab reads any map it chooses as Unicode: a Mac Roman one printed 'Ë' as 'À', with exit 0
    (lambda font: _maps_declared(font, 1, 0), "character map is of Mac Roman codes (cmap platform 1, encoding 0)"),
    # a cmap of no map ReportLab reads (only variation sequences, 0/5; or none at all): refused in its words,
    # "could not find a suitable cmap encoding"
    (lambda font: _maps_declared(font, 0, 5), "holds no map of characters' codes ReportLab reads (platform 3 or 0, "
                                              "or the Mac's 1/0; it holds 0/5"),
    (lambda font: _font_with(font, b"cmap", 2, ">H", 0), "holds no map of characters' codes ReportLab reads"),
    # refused in ReportLab's or Python's words: "bad subfontIndex 0 not in [0,-1]", "unpack requires a buffer"
    (lambda font: b"ttcf\0\1\0\0\0\0\0\0" + font, "a font collection listing no fonts"),
    (lambda font: _font_with(font, b"name", 2, ">H", 65535), "its name table lists 65,535 names, past the file's end"),
    (_letters_drawn_small, "is drawn 0.04 em tall"),  # composite glyphs scaling a simple one down
    # an 'é' drawn 20 em above its line printed above the page, an 'a' 30 em before it off its card: exit 0
    (lambda font: _glyph_moved(font, "é", 0, 20000), "its character U+00E9 ('é') is drawn 20.50 em above its baseline"),
    (lambda font: _glyph_moved(font, "a", -30000, 0), "its character U+0061 ('a') is drawn 29.90 em before where"),
    # FreeType could not load the glyph: "a bug in pnp", naming no file
    (lambda font: _glyph_cut_short(font, "é"), "FreeType, which many PDF readers draw fonts with, cannot read its "
                                              "character U+00E9 ('é')"),
], ids=["bullet-65-em", "units-per-em-16", "ascender-30-em", "ascender-minus-30-em", "letters-a-16th-of-their-size",
        "letters-16-em-tall", "code-point-past-unicode", "no-glyph-table",
        "line-break-in-postscript-name", "mac-roman-map", "variation-sequences-map-only", "no-map",
        "collection-of-no-fonts", "names-past-the-end",
        "letters-composites-a-16th-of-their-size", "accent-20-em-above-its-line", "letter-30-em-before-its-place",
        "glyph-cut-short"])
def test_a_font_measuring_absurdly_is_refused_at_its_line_in_fonts_yaml(tmp_path, change, said):
    """pnp measures words, list labels and titles by a font's advances and sets a text's first line by its
    ascender: a font whose bullet was 65 em wide was said as a list column of "-59 mm" at the rulebook's
    lines, one whose letters were 62 times too wide as every card text too long, and one whose ascender was
    30 em (or -30) printed every card's text off its card with exit 0; one whose units per em drew its
    letters a sixteenth of their size printed 10 pt text 0.6 pt tall with exit 0, one mapping a code point past
    Unicode's said a bug in pnp. Refused at the font's line instead."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf}\n  Display: {regular: f.ttf}\n"})
    regular = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    (root / "fonts" / "f.ttf").write_bytes(change(regular))
    result = run(root, "validate")
    errors = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert errors[0].startswith("fonts/fonts.yaml:2:19: error: font Body regular (f.ttf) cannot be ") \
        and said in errors[0], errors


@pytest.mark.parametrize("fs_type, said", [(0x0002, "Restricted License"), (0x0100, "No subsetting"),
                                           (0x0200, "Bitmap embedding only")])
def test_a_font_whose_licence_forbids_embedding_a_subset_is_refused_at_its_line(tmp_path, fs_type, said):
    """pnp embeds a subset of each font in every PDF: a font whose OS/2 fsType forbids that (restricted, no
    subsetting, bitmaps only) was embedded as any other, and every PDF of the game broke its licence."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf}\n  Display: {regular: ok.ttf}\n"})
    regular = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    (root / "fonts" / "f.ttf").write_bytes(_font_with(regular, b"OS/2", 8, ">H", fs_type))
    (root / "fonts" / "ok.ttf").write_bytes(_font_with(regular, b"OS/2", 8, ">H", 0x0008))  # editable: allowed
    result = run(root, "validate")
    errors = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert errors[0].startswith("fonts/fonts.yaml:2:19: error: font Body regular (f.ttf) cannot be embedded") \
        and said in errors[0] and f"0x{fs_type:04X}" in errors[0], errors


def _font_made_of_copies(font: bytes, character: str, middle: str, base: str, copies: int) -> bytes:
    """The font with `character`'s glyph made of `copies` placings of `middle`'s, and that of `copies` of `base`'s:
    glyf and loca written anew (loca long) at the file's end, the directory pointing at them."""
    from reportlab.pdfbase.ttfonts import TTFontFile
    face = TTFontFile(io.BytesIO(font))
    out = bytearray(font)
    tables = {struct.unpack_from(">4s", font, 12 + 16 * n)[0]: n for n in range(struct.unpack_from(">H", font, 4)[0])}
    glyf = struct.unpack_from(">I", font, 12 + 16 * tables[b"glyf"] + 8)[0]
    outer, inner = face.charToGlyph[ord(character)], face.charToGlyph[ord(middle)]
    made = {glyph: struct.pack(">hhhhh", -1, 0, 0, 1000, 1000) + b"".join(
        struct.pack(">HHhh", 0x3 | (0x20 if k < copies - 1 else 0), part, 0, 0) for k in range(copies))
        for glyph, part in ((outer, inner), (inner, face.charToGlyph[ord(base)]))}
    glyphs = [made.get(g, font[glyf + face.glyphPos[g]:glyf + face.glyphPos[g + 1]]) for g in range(face.numGlyphs)]
    positions = [sum(len(g) for g in glyphs[:i]) for i in range(len(glyphs) + 1)]
    for tag, table in ((b"glyf", b"".join(glyphs)), (b"loca", struct.pack(f">{len(positions)}I", *positions))):
        out += b"\0" * (-len(out) % 4)
        struct.pack_into(">II", out, 12 + 16 * tables[tag] + 8, len(out), len(table))
        out += table
    head = struct.unpack_from(">I", font, 12 + 16 * tables[b"head"] + 8)[0]
    struct.pack_into(">h", out, head + 50, 1)  # loca of 32-bit offsets
    return bytes(out)


def test_a_font_whose_glyph_is_made_of_too_many_placed_parts_is_refused_at_its_line(tmp_path):
    """An 'é' made of 42 copies of a glyph of 42 copies of 'o' (40 points each: 70,560 in all) passed every check
    and FreeType (pdftoppm, poppler's viewers, pnp's PNG export) drew nothing of it: a card's text missing, exit 0."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: ok.ttf}\n  Display: {regular: f.ttf}\n"})
    regular = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    (root / "fonts" / "ok.ttf").write_bytes(_font_made_of_copies(regular, "é", "è", "o", 9))  # 3,240 points: real
    (root / "fonts" / "f.ttf").write_bytes(_font_made_of_copies(regular, "é", "è", "o", 42))
    result = run(root, "validate")
    errors = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert errors[0].startswith("fonts/fonts.yaml:3:") and "U+00E9 ('é')" in errors[0] and "32,767 points" in errors[0]


def test_a_font_whose_glyph_places_too_many_empty_parts_is_refused_at_its_line(tmp_path):
    """Parts of no points were counted as nothing: a 300 KB font whose glyph placed 200 parts of 200 parts of 200
    empty glyphs took validation 31 s and 430 MB (FreeType loads each part wherever it is placed), 1,000 of each
    hours. Each part placed counts: an 'é' of 182 copies of a glyph of 182 spaces places 33,306."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf}\n  Display: {regular: f.ttf}\n"})
    regular = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    (root / "fonts" / "f.ttf").write_bytes(_font_made_of_copies(regular, "é", "è", " ", 182))
    result = run(root, "validate")
    errors = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert errors[0].startswith("fonts/fonts.yaml:2:") and "U+00E9 ('é')" in errors[0] and "32,767 points" in errors[0]


def test_a_font_whose_letters_take_no_room_is_refused_at_its_line_in_fonts_yaml(tmp_path):
    """A font whose advances are all zero printed every character of a text on the next, as a blot, with exit
    0 (nothing measured too wide). Refused, as a font whose glyphs have no outline is, at the line naming it."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf}\n  Display: {regular: narrow.ttf}\n"})
    regular = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    shutil.copy(REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf", root / "fonts" / "f.ttf")
    tables = {struct.unpack_from(">4s", regular, 12 + 16 * n)[0]: struct.unpack_from(">I", regular, 12 + 16 * n + 8)[0]
              for n in range(struct.unpack_from(">H", regular, 4)[0])}
    metrics = struct.unpack_from(">H", regular, tables[b"hhea"] + 34)[0]  # glyphs with an advance of their own
    narrow = bytearray(regular)
    for glyph in range(metrics):
        struct.pack_into(">H", narrow, tables[b"hmtx"] + 4 * glyph, 0)
    (root / "fonts" / "narrow.ttf").write_bytes(bytes(narrow))
    result = run(root, "validate")
    said = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert result.exit_code == 1 and len(said) == 1, result.output
    assert said[0].startswith("fonts/fonts.yaml:3:") and "'narrow.ttf'" in said[0] and "no width" in said[0], said


def _font_mapping_to_notdef(font: bytes, code: int) -> bytes:
    """The font with `code` mapped to glyph 0 (its missing-character box) in each of its character maps of
    format 4 (through its glyph array) and 12, as a map names the characters a range of it skips."""
    out = bytearray(font)
    for form, at in _cmap_subtables(font):
        if form == 4:
            segments = struct.unpack_from(">H", font, at + 6)[0]
            ends, starts = at + 14, at + 16 + segments
            for s in range(segments // 2):
                start, end = struct.unpack_from(">H", font, starts + 2 * s)[0], struct.unpack_from(">H", font, ends + 2 * s)[0]
                offset = at + 16 + 3 * segments + 2 * s
                if start <= code <= end and struct.unpack_from(">H", font, offset)[0]:
                    struct.pack_into(">H", out, offset + struct.unpack_from(">H", font, offset)[0] + 2 * (code - start), 0)
        elif form == 12:
            for g in range(struct.unpack_from(">I", font, at + 12)[0]):
                start, end, _ = struct.unpack_from(">III", font, at + 16 + 12 * g)
                if start == code == end:
                    struct.pack_into(">I", out, at + 24 + 12 * g, 0)
    return bytes(out)


def test_a_character_a_font_maps_to_its_missing_character_box_is_one_it_lacks(tmp_path):
    """A character map naming glyph 0 (.notdef) for a character (DejaVu Sans ExtraLight does for 73) counted as
    having it: the rulebook printed '×' as a box, with exit 0."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: boxed.ttf}\n  Display: {regular: boxed.ttf}\n"})
    renamed = _sans_named("BoxedSansPro0-Regular")
    (root / "fonts" / "boxed.ttf").write_bytes(_font_mapping_to_notdef(renamed, ord("×")))
    result = run(root, "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "layouts/mini/rulebook.md.j2:5:1: error: character U+00D7 ('×') is not in the font family 'Body'" \
        in result.stderr, result.stderr


def test_a_footer_font_lacking_a_character_of_pnps_own_footer_words_is_refused_at_its_line(tmp_path):
    """The footers' own words ('Mini Game · Cards · fronts · sheet 1 of 1') were never checked against the footer's
    font: a project font without '·' printed a blank box three times on every sheet of a game without a rulebook
    (whose title page would have said it), with exit 0. Refused at the family's line of fonts.yaml."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: nodot.ttf}\n  Display: {regular: nodot.ttf}\n"})
    game = (root / "cards" / "mini" / "game.yaml").read_text()
    (root / "cards" / "mini" / "game.yaml").write_text(game.replace("  - id: rulebook\n    name: Rulebook\n"
                                                                    "    kind: rulebook\n", ""))
    renamed = _sans_named("NodotSansPro0-Regular")
    (root / "fonts" / "nodot.ttf").write_bytes(_font_mapping_to_notdef(_font_mapping_to_notdef(renamed, ord("·")),
                                                                       ord("•")))
    result = run(root, "validate")
    said = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert result.exit_code == 1 and "Traceback" not in result.output
    footer = ("fonts/fonts.yaml:2:9: error: the font of family 'Body' has no character U+00B7 ('·'), which pnp's own "
              "words in the pages' footers print ('sheet 1 of 2 · cut along the grey lines'): it would print as a "
              "blank box on every sheet; use a font file that has it")
    assert said == [footer], said
    # a rulebook's bulleted list: its bullet is pnp's, not a character of the line to leave out
    (root / "cards" / "mini" / "game.yaml").write_text(game)
    book = (root / "layouts" / "mini" / "rulebook.md.j2").read_text()
    (root / "layouts" / "mini" / "rulebook.md.j2").write_text(book + "\n- a step\n")
    said = [ln for ln in run(root, "validate").stderr.splitlines() if ": error: " in ln]
    assert f"layouts/mini/rulebook.md.j2:{len(book.splitlines()) + 2}:1: error: the font of family 'Body' has no '•' " \
           "(U+2022), which pnp prints as each item's bullet: it would print as a blank box; number the list ('1.'), " \
           "or use a font file that has it in fonts.yaml" in said, said
    # the title page's 'players · ages · time': its '·' is pnp's too, said once, at fonts.yaml (it was said again
    # at game.yaml's `players:`, 'leave it out')
    assert [ln for ln in said if "U+00B7" in ln] == [footer], said


def _font_remapping(font: bytes, codes: list[int]) -> bytes:
    """The font with the first characters its format 12 character map (the one ReportLab reads) gives a group of
    their own each mapped to `codes` instead: a font that has Hebrew or Devanagari's glyphs, made from pnp's own
    (none of the machine's)."""
    out = bytearray(font)
    for form, at in _cmap_subtables(font):
        if form == 12:
            left = list(codes)
            for g in range(struct.unpack_from(">I", font, at + 12)[0]):
                start, end, _ = struct.unpack_from(">III", font, at + 16 + 12 * g)
                if start == end > 0x7F and chr(start).isalpha() and left:  # (a letter: its glyph is drawn)
                    code = left.pop(0)
                    struct.pack_into(">II", out, at + 16 + 12 * g, code, code)
    return bytes(out)


def test_text_of_a_script_pnp_cannot_set_as_read_is_refused_though_its_font_has_the_glyphs(tmp_path):
    """pnp sets one glyph per character, left to right, unshaped. In a font that had the glyphs, a card's Hebrew
    printed its word backwards ('שלום' as 'םולש'; the PDF's text read back so too), and a Devanagari vowel sign
    after the consonant it is written before, with exit 0: both are refused at the line that writes them, on a
    card and in the rulebook alike, whatever the font."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: wide.ttf}\n  Display: {regular: wide.ttf}\n"})
    renamed = _sans_named("WidenSansPro0-Regular")
    # SHIN, ALEF, DEVANAGARI VOWEL SIGN I
    (root / "fonts" / "wide.ttf").write_bytes(_font_remapping(renamed, [0x05E9, 0x05D0, 0x093F]))
    cards = (root / "cards" / "mini" / "cards.yaml").read_text()
    (root / "cards" / "mini" / "cards.yaml").write_text(cards.replace("Roars :star: loudly.", "Roars \u05e9\u05d0"))
    book = (root / "layouts" / "mini" / "rulebook.md.j2").read_text()
    (root / "layouts" / "mini" / "rulebook.md.j2").write_text(book + "\nA sign: x\u093f.\n")
    result = run(root, "validate")
    said = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert said[0].startswith("cards/mini/cards.yaml:5:9: error: character U+05E9 ('\u05e9') is of a right-to-left "
                              "script"), said
    book_line = len(book.splitlines()) + 2
    assert any(ln.startswith(f"layouts/mini/rulebook.md.j2:{book_line}:1: error: character U+093F") for ln in said), said
    assert len(said) == 2, "\n".join(said)


def test_a_character_past_u_ffff_reads_back_from_the_pdf_as_typed(tmp_path):
    """ReportLab wrote a character past U+FFFF in a font subset's ToUnicode map as its bare digits (<1D538>),
    which readers cut to four: a rulebook's or a card's '𝔸𝔹' printed right but read back (copied, searched) as
    'ᵓᵓ', exit 0."""
    from pypdf import PdfReader
    from reportlab.pdfgen.canvas import Canvas
    from pnp.draw.book import Book, BookContent
    from pnp.draw.fonts import load_fonts
    from pnp.project import find
    from pnp.units import MM
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: wide.ttf}\n  Display: {regular: wide.ttf}\n"})
    renamed = _sans_named("AstraSansPro0-Regular")
    (root / "fonts" / "wide.ttf").write_bytes(_font_remapping(renamed, [0x1D538, 0x1D539, 0x10300]))
    out, page = io.BytesIO(), (210 * MM, 297 * MM)
    canvas = Canvas(out, pagesize=page, invariant=1)
    Book(BookContent(title="T", markdown="# Rules\n\nMath \U0001d538\U0001d539 and \U00010300.\n"),
         load_fonts(find(root)), page, lambda src, width: None, lambda *args: None).draw(canvas)
    canvas.save()
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages)
    assert "Math \U0001d538\U0001d539 and \U00010300." in text, text


def test_text_of_a_script_whose_lines_break_by_a_dictionary_is_refused_at_its_line(tmp_path):
    """Thai, Lao and Khmer write no space between words; their lines break where a dictionary of the language
    says a word ends, and pnp has none. A Thai sentence was one word, refused as too long for a card's box that
    held two lines of it ('0 of its 60 fit'); in a font that had the glyphs, a Lao tone mark printed over the vowel
    under it, exit 0. Refused at the line that writes them, whatever the font, saying why."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: wide.ttf}\n  Display: {regular: wide.ttf}\n"})
    renamed = _sans_named("ThaiiSansPro0-Regular")
    (root / "fonts" / "wide.ttf").write_bytes(_font_remapping(renamed, [0x0E01, 0x0E02, 0x0E40, 0x0E9E, 0x1780]))
    cards = (root / "cards" / "mini" / "cards.yaml").read_text()
    (root / "cards" / "mini" / "cards.yaml").write_text(cards.replace("Roars :star: loudly.", "\u0e40\u0e01\u0e02" * 20))
    book = (root / "layouts" / "mini" / "rulebook.md.j2").read_text()
    (root / "layouts" / "mini" / "rulebook.md.j2").write_text(book + "\nLao: \u0e9e, and Khmer: \u1780.\n")
    said = [ln for ln in run(root, "validate", "mini").stderr.splitlines() if ": error: " in ln]
    assert said[0].startswith("cards/mini/cards.yaml:5:9: error: character U+0E40 ('\u0e40') is of a script written "
                              "without spaces between words"), said
    assert "dictionary" in said[0]
    book_line = len(book.splitlines()) + 2
    assert said[1].startswith(f"layouts/mini/rulebook.md.j2:{book_line}:1: error: character U+0E9E"), said
    assert len(said) == 2, "\n".join(said)


def test_text_of_a_script_written_without_spaces_breaks_between_its_characters(tmp_path):
    """Lines broke only at spaces: a Japanese sentence was one word, refused as too long for a card's box ('0 of
    its 40 fit') that two lines of it filled, and in the rulebook as a word wider than the page ('break it with
    spaces', which would print). Chinese and Japanese break between characters (never before a closing mark)."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: wide.ttf}\n  Display: {regular: wide.ttf}\n"})
    renamed = _sans_named("KanjiSansPro0-Regular")
    (root / "fonts" / "wide.ttf").write_bytes(_font_remapping(renamed, [0x6F22, 0x5B57, 0x3002]))  # 漢, 字, 。
    sentence = "\u6f22\u5b57" * 24 + "\u3002"
    cards = (root / "cards" / "mini" / "cards.yaml").read_text()
    (root / "cards" / "mini" / "cards.yaml").write_text(cards.replace("Roars :star: loudly.", sentence).replace(
        "  friend: lion\n", f"  friend: lion\n  text: {sentence * 8}\n"))  # (too long: how much fits is said)
    book = (root / "layouts" / "mini" / "rulebook.md.j2").read_text()
    (root / "layouts" / "mini" / "rulebook.md.j2").write_text(book + "\n" + sentence * 6 + "\n")
    said = [ln for ln in run(root, "validate", "mini").stderr.splitlines() if ": error: " in ln]
    assert len(said) == 1 and said[0].startswith("cards/mini/cards.yaml:11:9: error: text is about "), said
    kept = int(said[0].split(": ")[3].split(" of its ")[0])
    assert 49 * 2 < kept < 49 * 8, said  # some lines of it, not "0 of its 392"
    from pnp.draw import text as rtext
    from pnp.draw.fonts import load_fonts
    from pnp.project import find
    lines, overflow = rtext.layout(rtext.parse(sentence), load_fonts(find(root)), "Body", 10, 100)
    assert not overflow and len(lines) > 1
    assert all(line.items[0][1].text[0] != "\u3002" for line in lines)  # a full stop starts no line


def test_where_a_script_without_spaces_breaks_each_character_is_looked_at_once(monkeypatch):
    """Each character was matched against the wide scripts twice, as the one after a place and as the one
    before the next (review): once each, and the places found are the same."""
    from pnp.draw import text as rtext

    looked: list[str] = []
    pattern = rtext._WIDE

    class Counting:
        def match(self, character: str):
            looked.append(character)
            return pattern.match(character)

        def search(self, text: str):
            return pattern.search(text)

    monkeypatch.setattr(rtext, "_WIDE", Counting())
    sentence = "\u6f22\u5b57 ab\u3002\uff08\u5b57"
    assert rtext.wide_breaks(sentence) == [1, 2, 6]  # (never before the full stop, nor after the bracket)
    assert len(looked) == len(sentence)


def _icon_ink(tmp_path, svg: str) -> tuple[bool, bool]:
    """Whether the icon `svg`, drawn by pnp in red in a 20 pt box and rasterised, prints (its middle, a point on
    its edge)."""
    image = _icon_image(tmp_path, svg)
    return image.getpixel((10, 10)) != (255, 255, 255), image.getpixel((10, 0)) != (255, 255, 255)


def _icon_image(tmp_path, svg: str):
    """The icon `svg`, drawn by pnp in red in a 20 pt box, rasterised (RGB)."""
    import pypdfium2 as pdfium
    from reportlab.lib import colors

    from pnp.draw.canvas import new_canvas

    (tmp_path / "icon.svg").write_text(svg)
    pdf = io.BytesIO()
    canvas = new_canvas(pdf, "Helvetica", page_size=(20, 20))
    icons.draw_icon(canvas, tmp_path / "icon.svg", 0, 0, 20, 20, colors.red)
    canvas.showPage()
    canvas.save()
    return pdfium.PdfDocument(pdf.getvalue())[0].render(scale=1).to_pil().convert("RGB")


_STOPS = '<stop stop-color="red"/><stop offset="1" stop-color="blue"/>'


@pytest.mark.parametrize("written, meant", [
    # a spreadMethod browsers do not read (in capitals) is pad: svglib printed black past the gradient's ends
    (f'<linearGradient id="g" x2="0" y1="0.4" y2="0.6" spreadMethod="Reflect">{_STOPS}</linearGradient>',
     f'<linearGradient id="g" x2="0" y1="0.4" y2="0.6">{_STOPS}</linearGradient>'),
    # a stop's offset below the one before it, or past 0 or 1, is clamped (the gradient printed reversed, faded)
    ('<linearGradient id="g" x2="0" y2="1"><stop offset="0.8" stop-color="red"/><stop offset="0.2" '
     'stop-color="blue"/></linearGradient>', '<linearGradient id="g" x2="0" y2="1"><stop offset="80%" '
     'stop-color="red"/><stop offset="0.8" stop-color="blue"/></linearGradient>'),
    ('<linearGradient id="g" x2="0" y2="1"><stop offset="-1" stop-color="red"/><stop offset="2" stop-color="blue"/>'
     '</linearGradient>', f'<linearGradient id="g" x2="0" y2="1">{_STOPS}</linearGradient>'),
    # ...and gradientUnits browsers do not read are objectBoundingBox (svglib read them as userSpaceOnUse)
    (f'<linearGradient id="g" x2="0" y2="1" gradientUnits="UserSpaceOnUse">{_STOPS}</linearGradient>',
     f'<linearGradient id="g" x2="0" y2="1">{_STOPS}</linearGradient>'),
    # a stop's stop-color of inherit is its gradient's (svglib printed black)
    ('<linearGradient id="g" style="stop-color: blue"><stop stop-color="inherit"/><stop offset="1" '
     'style="stop-color: INHERIT"/></linearGradient>', '<linearGradient id="g"><stop stop-color="blue"/><stop '
     'offset="1" stop-color="blue"/></linearGradient>'),
    # one of no length paints its last stop's colour (svglib painted from the first, or nothing: black)
    (f'<radialGradient id="g" r="0">{_STOPS}</radialGradient>',
     '<linearGradient id="g"><stop stop-color="blue"/></linearGradient>'),
    # ...and so does one of a radius the PDF writes as 0 (viewers painted its first stop's colour)
    (f'<radialGradient id="g" r="1e-9">{_STOPS}</radialGradient>',
     '<linearGradient id="g"><stop stop-color="blue"/></linearGradient>'),
    (f'<linearGradient id="g" x1="0.5" x2="50%">{_STOPS}</linearGradient>',
     '<linearGradient id="g"><stop stop-color="blue"/></linearGradient>'),
    # a gradient takes the direction, units and spread its href's gradient gives (svglib took its defaults)
    (f'<linearGradient id="g" href="#t"/><radialGradient id="t" href="#u"/><linearGradient id="u" x2="0" y2="1">'
     f'{_STOPS}</linearGradient>', f'<linearGradient id="g" x2="0" y2="1">{_STOPS}</linearGradient>'),
])
def test_a_gradient_prints_as_browsers_draw_it(tmp_path, written, meant):
    """A gradient written otherwise than its plain form, which browsers draw alike, prints alike (exit 0)."""
    assert _icon_image(tmp_path, _SQUARE.format(">" + written[:-1], 'fill="url(#g)"')).tobytes() == \
        _icon_image(tmp_path, _SQUARE.format(">" + meant[:-1], 'fill="url(#g)"')).tobytes()


@pytest.mark.parametrize("gradient, alike", [
    ("radialGradient", ((10, 5), (0, 10))),  # the middle of a long side and an end, both near the outer colour
    ("linearGradient x2='1' y2='1'", ((19, 5), (0, 14))),  # the corners off the gradient's diagonal, half way
])
def test_a_gradient_stretches_with_its_shape_as_browsers_draw_it(tmp_path, gradient, alike):
    """A gradient in its shape's box units (the default) is drawn in the unit square, stretched onto a box that is
    not square: svglib drew a radial one's circle of the box's mean side (an oval's ends printed the outer colour
    while the middle of its long sides was half way), a diagonal linear one's bands across its direction (one
    corner off it printed nearly red, the other nearly blue, where browsers draw both half way)."""
    image = _icon_image(tmp_path, '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><'
                        f'{gradient} id="g">{_STOPS}</{gradient.split()[0]}><rect width="20" height="10" fill="url(#g)"/></svg>')
    one, other = (image.getpixel(point) for point in alike)
    assert abs(one[0] - other[0]) < 40, (one, other)


_WIDE_BLACK_PNG = "iVBORw0KGgoAAAANSUhEUgAAACgAAAAUCAIAAABwJOjsAAAAGUlEQVR4nO3BMQEAAADCoPVPbQo/oAAAeBsJdAABQs/f3QAAAABJRU5ErkJggg=="  # 40 x 20
_SQUARE = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"{}><rect width="20" height="20" {}/></svg>'


@pytest.mark.parametrize("root, shape, middle, edge", [
    ("", 'fill="currentColor" color="transparent"', False, False),  # its own color, not its parent's
    ("", 'style="fill: currentcolor; color: rgba(0, 0, 0, 0)"', False, False),
    ('><style>rect { color: transparent }</style', 'fill="currentColor"', False, False),
    (' color="transparent"', 'fill="currentColor"', False, False),
    (' fill="none" stroke="currentColor" stroke-width="4"', "", False, True),  # a Feather/Lucide icon
    (' color="none"', 'fill="currentColor"', True, True),  # (not a colour: inherited, as browsers do)
    (' fill="red"', 'fill="bogus"', True, True),
    ("", 'fill="none" stroke="currentColor" color="transparent" stroke-width="4"', False, False),
    ("", 'fill="NONE"', False, False),  # (keywords and property names in any case)
    ("", 'style="FILL: none"', False, False),
    ("", 'style="display: none !important"', False, False),
    ('><style>rect { fill: none !important }</style', 'style="fill: black"', False, False),
    ("", 'fill-opacity="0%"', False, False),
    ("", 'fill-opacity="-1"', False, False),
    ('><polyline points="0 0 20 0 20 20 0 20 5"/', 'fill="none"', True, True),  # (filled, though odd)
    # points read as browsers read them, up to a word that is no number (svglib refused the icon in its own words)
    ('><polygon points="0,0 20,0 20,20 0,20 a 5 5"/', 'fill="none"', True, True),
    ('><ellipse cx="10" cy="10" rx="10"/', 'fill="none"', True, True),  # (ry: auto)
    ('><use href="#r" display="none"/', 'id="r" fill="none"', False, False),
    ('><rect xmlns="http://example.com/" width="20" height="20"/', 'fill="none"', False, False),
    ("", 'display="None"', False, False),
    ("><style>$$$ { fill: none } ::before { fill: none } rect { stroke: black; stroke-width: 4 }</style",
     "", True, True),  # (a rule of no selector svglib reads left out, a pseudo-element's styling nothing)
    (f'><image width="20" height="20" href="data:image/png;base64,{_WIDE_BLACK_PNG}"/', 'fill="none"', True, False),
    # a sheet for print, or for all media, is applied when printing, one for screen is not (@media print was
    # left out, and a background its icon hid on paper printed)
    ("><style>@media print { rect { fill: none } }</style", "", False, False),
    ("><style>@MEDIA not screen { @media all { rect { fill: none } } }</style", "", False, False),
    ("><style>@media screen, (prefers-color-scheme: dark) { rect { fill: none } }</style", "", True, True),
    ('><style media="screen">rect { fill: none }</style', "", True, True),
    ('><style media="print">rect { fill: none }</style', "", False, False),
    # a selector browsers drop as invalid, which cssselect2 failed on in Python's words (refused at line 1)
    ("><style>rect:nth-child(n+) { fill: none } rect:nth-child(+) { fill: none }</style", "", True, True),
    ('><style type="text/less">rect { fill: none }</style', "", True, True),  # (no CSS: browsers leave it out)
    # a shape of no size draws nothing, its stroke neither (svglib stroked a rect of width 0 as a line)
    ('><rect width="0" height="20" stroke="black" stroke-width="40"/', 'fill="none"', False, False),
    ('><ellipse cx="10" cy="10" rx="0" ry="10" stroke="black" stroke-width="40"/', 'fill="none"', False, False),
    # a paint of a gradient the icon lacks is its fallback colour (svglib painted nothing), else nothing
    ("", 'style="fill: url(#missing) red"', True, True),
    ("", 'fill="url(#missing)"', False, False),
    ("", 'fill="url(#)"', False, False),  # (naming no id: was a traceback, StopIteration, in the check of ids)
    ("", 'style="fill: url(#) red"', True, True),
    # ...and one written after the shape it fills is found, as a clip path is (svglib printed the shape unfilled)
    ('><rect width="20" height="20" style="fill: u\\72l(#g)"/><g><linearGradient id="g"><stop stop-color="red"/>'
     '</linearGradient></g', 'fill="none"', True, True),
    # a <use> of display none by a style or in capitals is not drawn (only the attribute's 'none' was left out)
    ('><defs><rect id="r" width="20" height="20"/></defs><style>use { display: none }</style><use href="#r"/',
     'fill="none"', False, False),
    ('><defs><rect id="r" width="20" height="20"/></defs><use style="display: none" href="#r"/', 'fill="none"',
     False, False),
    ('><defs><rect id="r" width="20" height="20"/></defs><use display=" NONE" href="#r"/', 'fill="none"', False,
     False),
    # a shape or group flattened by its transform to no area is not drawn (ReportLab divided by zero inverting it,
    # and the icon was refused as holding a number too large to write in a PDF)
    ('><rect transform="scale(0 1)" width="20" height="20" stroke="black" stroke-width="5"/', 'fill="none"', False,
     False),
    ('><g transform="translate(1) matrix(1 2 2 4 0 0)"><rect width="20" height="20"/></g', 'fill="none"', False, False),
    # a gradient stop of stop-color currentColor is the colour its color names (svglib failed in Python's words)
    ('><linearGradient id="g" color="blue"><stop style="stop-color: CurrentColor"/><stop offset="1" '
     'stop-color="currentColor"/></linearGradient', 'fill="url(#g)"', True, True),
    # ...and one that is no colour is black, a blank stop-opacity 1, and a dash pattern of a negative length is
    # ignored: a solid stroke (each refused at line 1, in ReportLab's or Python's words or as a number too large)
    ('><linearGradient id="h"><stop stop-color="rgb(1,2)"/><stop offset="1" stop-color="bogus" stop-opacity=" "/>'
     '</linearGradient', 'fill="url(#h)"', True, True),
    ('><line x1="0" y1="10" x2="20" y2="10" stroke="black" stroke-width="20" stroke-dasharray="5,-1"/', 'fill="none"',
     True, True),
    # display: contents draws a group's content, and is display: none on a shape (svglib drew the shape)
    ("", 'style="display: contents"', False, False),
    ('><g display="Contents"><rect width="20" height="20"/></g', 'fill="none"', True, True),
    # a style attribute is read as CSS: comments left out, escapes read (split at each ';', they were not read)
    ("", 'style="fill:/**/none"', False, False),
    ("", 'style="/* a; b */ f\\69ll: n\\6f ne"', False, False),
    # a style sheet is its element's child text, around a processing instruction or an element (the rules after
    # one were left out)
    ("><style>rect { fill: red } <?pi x?> rect { fill: none }</style", "", False, False),
    ("><style>rect { fill: red } <desc>x</desc> rect { fill: none }</style", "", False, False),
    # an @namespace names SVG's namespace by its URL, which nothing fetches (it was refused as a reference outside)
    ("><style>@namespace svg url(http://www.w3.org/2000/svg); rect { fill: none }</style", "", False, False),
    # ...and its prefixes and default namespace are those of the selectors after it (svg|rect matched nothing, and
    # rect after a default namespace of another language matched SVG's rect)
    ("><style>@namespace svg url(http://www.w3.org/2000/svg); svg|rect { fill: none }</style", "", False, False),
    ('><style>@namespace url("http://example.com/"); rect { fill: none }</style', "", True, True),
])
def test_an_icons_current_colour_and_unreadable_colours_print_as_browsers_draw_them(tmp_path, root, shape, middle,
                                                                                      edge):
    """svglib took currentColor from the parent's color, not the shape's own (a shape of color="transparent"
    printed solid), stroked nothing where no color was given (Feather's and Lucide's icons printed blank) and
    painted nothing for a colour it cannot read, where a browser ignores it and inherits; it read keywords and
    style names in capitals, !important and opacities in % or below 0 otherwise than CSS, and stretched an
    embedded picture to its box (a browser fits it, aspect kept)."""
    assert _icon_ink(tmp_path, _SQUARE.format(root, shape)) == (middle, edge)


@pytest.mark.parametrize("shape, said", [
    ('<rect width="20" height="20" style="transform: translate(10px, 0)"/>', "it gives transform in a style"),
    ('<rect width="20" height="20" stroke="black" stroke-width="50%"/>', "it gives stroke-width as a percentage"),
    ('<rect width="20" height="20" stroke="black" vector-effect="non-scaling-stroke"/>', "it holds a vector-effect"),
    ("<style>\n svg { display: None }</style>", "its <svg> is display: none"),  # (said at the <svg>: line 1)
    ('<rect width="4" height="12" transform="rotate(180)" style="transform-origin: 10px 10px"/>',
     "it turns or scales a shape about another point"),  # (svglib turned it about 0 0: off the icon)
    ('<rect width="20" height="20" fill="white" stroke="black" style="paint-order: markers stroke"/>',
     "it paints its stroke before its fill (paint-order)"),  # (svglib stroked over the fill)
    ('<path d="M0 0 H20 V20 H0 Z x M0 0 L1 1"/>', "its path data (d) cannot be read"),  # (said at its line, not line 1)
    # a transform list of a step given another count of numbers, which browsers ignore whole: svglib failed on a
    # matrix of 3 in Python's words (said at line 1) and moved a rect by the translate after a rotate of 2
    ('<rect width="20" height="20" transform="matrix(1 0 0)"/>', "gives transform as 'matrix(1 0 0)', which brows"),
    ('<rect width="5" height="5" transform="rotate(90 10) translate(5 5)"/>', "(rotate takes 1 or 3 numbers, not 2)"),
    # svglib failed in its own words, said at line 1; a CSS variable it painted black where browsers paint its value
    ('<rect width="calc(10px + 10px)" height="20"/>', "it gives width as 'calc(10px + 10px)', which svglib cannot read"),
    # a colour of a number past its range browsers clamp (rgb(300, 0, 0) is red, an alpha of 2 is 1): svglib cannot
    # read it, and the shape printed black, or its stroke not at all
    ('<rect width="20" height="20" fill="rgb(300, 0, 0)"/>', "it gives fill as 'rgb(300, 0, 0)', which browsers paint"),
    ('<rect width="20" height="20" stroke="hsla(10, 10%, 10%, 2)"/>', "it gives stroke as 'hsla(10, 10%, 10%, 2)'"),
    # a <use> sizing a <symbol> is its box in browsers, which read its percentages of it and clip it: svglib
    # printed this rect 10 wide where browsers draw it 1 wide
    ('<symbol id="s"><rect width="50%" height="50%"/></symbol><use href="#s" width="2" height="2"/>',
     "holds a <use> of a <symbol> given a width or height"),
    ('<rect width="20" height="20" style="fill: var(--c, none)"/>', "it gives fill by a CSS variable"),
    # a gradient's part svglib leaves out (the shape printed unstroked, the gradient otherwise than it is seen)
    ('<linearGradient id="g" spreadMethod="repeat"><stop stop-color="red"/></linearGradient>',
     "its gradient has a spreadMethod of repeat"),
    ('<linearGradient id="g" gradientTransform="rotate(90)"><stop stop-color="red"/></linearGradient>',
     "its gradient has a gradientTransform"),
    ('<radialGradient id="g" cx="40%" fx="0.4" fy="20%"><stop stop-color="red"/></radialGradient>',
     "its radial gradient has a focal point (fy)"),
    ('<radialGradient id="g"><stop stop-color="red"/></radialGradient><g fill-opacity="50%">\n'
     '<rect width="20" height="20" fill="url(#g)"/></g>', "it fills a shape with a gradient at a fill-opacity"),
    ('<radialGradient id="g"><stop stop-color="red"/></radialGradient>\n'
     '<rect width="20" height="20" style="fill: url(#g); fill-opacity: 0"/>', "it fills a shape with a gradient at"),
    ('<linearGradient id="g" stop-opacity="0.5">\n<stop stop-opacity="inherit"/></linearGradient>',
     "it holds a see-through gradient stop"),  # (its gradient's stop-opacity: svglib printed it opaque)
    ('<linearGradient id="g" gradientUnits="userSpaceOnUse" x2="100%"><stop stop-color="red"/></linearGradient>',
     "its gradient of gradientUnits userSpaceOnUse gives x2='100%', a percentage"),
    ('<linearGradient id="g"><stop stop-color="red"/></linearGradient><rect width="20" height="20" fill="none" '
     'stroke="url(#g)"/>', "it strokes a shape with a gradient"),
    ('<style>@import "x.css";</style>', "imports \"x.css\", outside the icon"),  # (a browser reads it; pnp did not)
    # brackets nested past what CSS's reader follows by recursion: RecursionError, said as a bug in pnp
    ('<rect width="20" height="20" style="fill: ' + "(" * 5000 + '"/>', "it nests brackets ((, [ or {) more than"),
    # a selector chained past what Python compiles of cssselect2's code for it: said in Python's words, at line 1
    ("<style>" + "rect " * 250 + "{ fill: none }</style>", "its style sheet's selector 'rect rect rect"),
    # a picture embedded in a data URL svglib does not decode (its type in capitals) is told as the embedded picture
    # it is (it was said to refer to a file 'outside the icon')
    ('<image width="20" height="20" href="data:IMAGE/PNG;BASE64,iVBORw0KGgo="/>', "embeds 'data:IMAGE/PNG;BASE64,"),
    ("<style>@supports (fill: red) { svg { fill: none } }</style>", "holds an @supports rule"),
    ("<style>rect { fill: red }\n@media (min-width: 10cm) { svg { fill: none } }</style>",
     "media query '(min-width: 10cm)' asks what pnp cannot say"),  # (at the rule's line: 3)
])
def test_what_svglib_reads_otherwise_than_css_is_refused_at_its_line(tmp_path, shape, said):
    """svglib read a CSS transform (units, commas) as an attribute's, and a percentage of a radius or stroke
    width as that many units: the icon printed otherwise than it is seen."""
    (tmp_path / "icon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">\n'
                                       f'  {shape}\n</svg>')
    message, line, _ = icons.unreadable(tmp_path / "icon.svg")
    assert said in message and line == (1 if "<svg>" in said else 2 + shape.count("\n"))


@pytest.mark.parametrize("shape, where", [
    ('<rect width="20"\n  height="20" style="fill: ' + "(" * 5000 + '"/>', (2, 3)),  # (at its tag, as its element's)
    ("<style>\nrect {}\n  rect { fill: " + "(" * 5000 + "}</style>", (4, 115)),  # (at the bracket past 100)
])
def test_brackets_nested_too_deep_are_said_where_they_are(tmp_path, shape, where):
    """Brackets nested past what pnp follows were said where the reader stopped: at the tag's or the text's end
    (a column past 5,000)."""
    (tmp_path / "icon.svg").write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">\n  {shape}\n</svg>')
    message, *at = icons.unreadable(tmp_path / "icon.svg")
    assert "it nests brackets" in message and tuple(at) == where


@pytest.mark.parametrize("shape, said", [
    # a CSS effect svglib leaves out without a word: the shape printed whole where browsers hide or change it
    ('<rect width="20" height="20" style="filter: opacity(0)"/>', "it gives filter: opacity(0), an effect svglib"),
    ('<rect width="20" height="20" filter="blur(4px)"/>', "it gives filter: blur(4px), an effect svglib"),
    ('<rect width="20" height="20" style="clip-path: inset(10px)"/>', "it gives clip-path: inset(10px), an effect"),
    ('<rect width="20" height="20" style="mask-image: linear-gradient(red, transparent)"/>', "it gives mask-image:"),
    ('<rect width="20" height="20" style="mix-blend-mode: multiply"/>', "it gives mix-blend-mode: multiply"),
    # a CSS-wide keyword svglib reads as no value: stroke: initial printed the parent's stroke (browsers: none)
    ('<g stroke="black"><rect width="20" height="20" style="stroke: initial"/></g>', "gives stroke as 'initial'"),
    ('<rect width="20" height="20" style="fill: UNSET !important"/>', "gives fill as 'UNSET !important'"),
    # an opacity however its style writes it (an escape in its name, a comment in its value)
    ('<rect width="20" height="20" style="opac\\69ty: 0"/>', "it holds an opacity of 0, which svglib does not draw"),
    ('<style>rect { opacity:/**/0 }</style><rect width="20" height="20"/>', "it holds an opacity of 0, which"),
    # a unit of the viewer's window, which svglib reads as 0: a rect 100vw wide (the whole icon) printed nothing
    ('<rect width="100vw" height="20"/>', "it gives width as '100vw', which svglib cannot read"),
    ('<circle cx="10" cy="10" r="5" stroke="black" stroke-width="1svmin"/>', "gives stroke-width as '1svmin'"),
])
def test_what_svglib_leaves_out_or_reads_as_nothing_is_refused_at_its_line(tmp_path, shape, said):
    """svglib drew a shape whole under a CSS filter, clip-path of a basic shape, mask image or blend mode, read
    initial, unset and revert as no value (the property inherited) and a viewport unit as 0: each icon printed
    otherwise than browsers draw it, exit 0."""
    (tmp_path / "icon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">\n'
                                       f'  {shape}\n</svg>')
    message, line, _ = icons.unreadable(tmp_path / "icon.svg")
    assert said in message and line == 2


def test_an_icons_effects_browsers_and_svglib_draw_alike_are_drawn(tmp_path):
    """A filter, mask or clip of none or by reference, a blend mode of normal and an inherited stroke pass."""
    assert _icon_ink(tmp_path, _SQUARE.format(
        '><clipPath id="c"><rect width="15" height="20"/></clipPath><style>rect { filter: none }</style',
        'clip-path="url(#c)" mask="none" mix-blend-mode="NORMAL" stroke="inherit"')) == (True, True)


@pytest.mark.parametrize("defined, referred", [
    ('<rect id="a" width="1" height="1"/>\n  <rect id="a" width="20" height="20"/>', '<use xlink:href=" #a"/>'),
    ('<rect id="a" width="1" height="1"/>\n  <linearGradient id="a"><stop stop-color="red"/></linearGradient>',
     "<style>rect { fill: url('#a') }</style>"),
])
def test_an_id_given_twice_and_referred_to_is_refused_at_its_second_line(tmp_path, defined, referred):
    """Browsers take the first element of an id, svglib the last it drew: a <use> printed the large rect where
    browsers draw the small one, a paint the gradient where browsers find a rect (no paint), exit 0."""
    (tmp_path / "icon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" '
                                       'xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">\n'
                                       f'  {defined}\n  {referred}\n</svg>')
    message, line, _ = icons.unreadable(tmp_path / "icon.svg")
    assert "gives the id 'a' to two elements (lines 2 and 3) and refers to it" in message and line == 3


@pytest.mark.parametrize("content, body, refused", [
    ("<rect width='20' height='20'/>", "&e;", True),  # (svglib printed nothing where browsers draw the square)
    ("rect { fill: none }", '<style>&e;</style><rect width="20" height="20"/>', True),  # (svglib: the square)
    ("http://www.w3.org/1999/xlink", '<rect xmlns:xlink="&e;" width="20" height="20"/>', False),  # (put in)
])
def test_an_entity_of_the_icons_document_type_is_refused_where_svglib_leaves_it_out(tmp_path, content, body,
                                                                                      refused):
    """Browsers put an entity's text in where it is used; svglib left it out of elements' text (a shape, a style
    sheet) and put it in attributes alone (as an Illustrator export's namespaces): the icon printed otherwise than
    it is seen, exit 0."""
    (tmp_path / "icon.svg").write_text(f'<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY e "{content}">]>\n'
                                       f'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">\n  {body}\n</svg>')
    problem = icons.unreadable(tmp_path / "icon.svg")
    assert (problem[:2] == ("it holds the entity &e; declared in its document type, whose text svglib leaves out where "
                            "browsers put it in (shapes or styles): write the text itself in the icon", 4)
            if refused else problem is None)


def test_entities_built_of_entities_past_libxmls_bound_are_refused_in_pnps_words_at_their_use(tmp_path):
    """Entities each made of a dozen of the one before put in an attribute: libxml stops there, and its words
    were the message ("Maximum entity amplification factor exceeded, see xmlCtxtSetMaxAmplification."), at
    column 1 of the line."""
    entities = '<!ENTITY a "' + "a" * 24 + '">' + "".join(
        f'<!ENTITY {b} "{("&" + a + ";") * n}">' for a, b, n in (("a", "b", 12), ("b", "c", 13), ("c", "d", 14),
                                                                 ("d", "e", 16)))
    (tmp_path / "icon.svg").write_text(f'<?xml version="1.0"?>\n<!DOCTYPE svg [{entities}]>\n'
                                       '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">'
                                       '<rect width="20" height="20" id="&e;"/></svg>')
    message, line, column = icons.unreadable(tmp_path / "icon.svg")
    at = 97  # the column of '&e;' (libxml says where it stopped: the end of the reference)
    assert "entities built of entities" in message and line == 3 and at <= column <= at + 3


@pytest.mark.parametrize("body, refused", [
    ('<rect width="20" height="&w;" fill="red"/>', True),  # (svglib: no height, nothing drawn)
    ('<rect width="20" height="20" fill="&red;"/>', True),  # (svglib: its default paint)
    ('<rect width="20" height="20" style="fill:&red;"/>', True),
    ('<rect width="20" height="20"/><text>&zz;</text>', True),
    ('<rect width="20" height="20" fill="&e;"/>', False),  # (declared in the file: put in, as browsers do)
])
def test_an_entity_declared_nowhere_in_the_icon_is_refused_at_it(tmp_path, body, refused):
    """An icon whose document type names a file of declarations (an external DTD, read by nothing here) may
    refer to entities it does not declare; both parsers read such an entity as nothing: `height="&w;"` printed
    no square, `fill="&none;"` a square painted, and validate said nothing. Refused at the reference, as its line
    and column."""
    (tmp_path / "icon.svg").write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [<!ENTITY e "red">]>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">\n  {body}\n</svg>')
    problem = icons.unreadable(tmp_path / "icon.svg")
    if not refused:
        assert problem is None
        return
    at = body.index("&")  # (the line is indented by two spaces)
    assert problem is not None and problem[1:] == (4, at + 3) and "declares nowhere" in problem[0]
    assert f"'{body[at:body.index(';') + 1]}'" in problem[0]


@pytest.mark.parametrize("declared, refused", [
    ('<!ATTLIST rect fill CDATA "none">', True),  # (expat, Firefox's reader, leaves it unpainted; svglib paints it)
    ('<!ATTLIST rect display CDATA #FIXED "none">', True),
    ('<!ATTLIST rect fill CDATA #IMPLIED>', False),  # (no value: nothing put in)
    ('<!ATTLIST svg xmlns:xlink CDATA #FIXED "http://www.w3.org/1999/xlink">', False),  # (a namespace: read alike)
])
def test_a_default_value_the_icons_document_type_gives_an_attribute_is_refused(tmp_path, declared, refused):
    """A default value of an attribute declared in the icon's document type is put on every element it names by
    expat and left out by libxml as svglib reads the icon: a square shown unpainted (fill "none") printed, exit 0.
    Refused at its line."""
    (tmp_path / "icon.svg").write_text(f'<?xml version="1.0"?>\n<!DOCTYPE svg [\n{declared}\n]>\n'
                                       '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">\n'
                                       '  <rect width="20" height="20"/>\n</svg>')
    problem = icons.unreadable(tmp_path / "icon.svg")
    if not refused:
        assert problem is None
        return
    assert problem is not None and problem[1] == 3 and "of 'rect' elements a default value" in problem[0]


def test_a_reference_outside_in_a_style_sheet_after_a_processing_instruction_is_refused(tmp_path):
    """The style sheet read whole (past a processing instruction) is checked whole for references outside."""
    (tmp_path / "icon.svg").write_text(_SQUARE.format("><style><?x?>rect { fill: url(/etc/hostname) }</style", ""))
    message, line, _ = icons.unreadable(tmp_path / "icon.svg")
    assert "refers to '/etc/hostname' outside the icon" in message


def test_an_icon_naming_a_style_sheet_by_xml_stylesheet_is_refused_at_it(tmp_path):
    """<?xml-stylesheet href?> names a sheet a browser reads and applies (a file, a URL): pnp left it out and
    printed the icon otherwise, exit 0; it is a reference outside the icon, as @import is."""
    (tmp_path / "icon.svg").write_text('<?xml version="1.0"?>\n<?xml-stylesheet type="text/css" href="/etc/ink.css"?>\n'
                                       + _SQUARE.format("", ""))
    message, line, _ = icons.unreadable(tmp_path / "icon.svg")
    assert "refers to '/etc/ink.css' outside the icon" in message and line == 2


def _rects_of(node: object) -> list:
    """The rectangles of a drawing svglib made, in the order drawn."""
    from reportlab.graphics.shapes import Group, Rect

    return [r for child in node.contents for r in _rects_of(child)] if isinstance(node, Group) else \
        [node] if isinstance(node, Rect) else []


@pytest.mark.parametrize("attributes, radii", [
    ('width="80" height="20" ry="30"', (30, 10)),  # rx: auto is ry, each then at most half its side
    ('width="20" height="20" rx="10" ry="0"', (0, 0)),  # square corners
    ('width="20" height="20" rx="auto" ry="4"', (4, 4)),
    ('width="20" height="20" rx="auto"', (0, 0)),
])
def test_an_icons_rect_corners_are_rounded_as_browsers_round_them(tmp_path, attributes, radii):
    """svglib rounded a rect of rx 10 and ry 0 (browsers draw its corners square) and refused rx="auto"; a
    radius given alone is the other's, each at most half its side."""
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="80" height="20"><rect {attributes}/></svg>'.encode()
    (tmp_path / "icon.svg").write_bytes(svg)
    assert icons.unreadable(tmp_path / "icon.svg") is None
    [rect] = _rects_of(icons._drawing(svg, hashlib.sha256(svg).digest()))
    assert (rect.rx, rect.ry) == radii


def _font_hinted_past_freetypes_bound(font: bytes) -> bytes:
    """The font with a hinting program (prep, run at each size it is drawn at) that calls functions of its fpgm
    each calling the one below twice, 20 deep: two million instructions, past the million FreeType runs of a
    program before it stops it (and fails to draw the font hinted)."""
    program = b"".join(bytes([0xB0, depth, 0x2C]) + (bytes([0xB1, depth - 1, depth - 1, 0x2B, 0x2B]) if depth else b"")
                       + b"\x2d" for depth in range(21))  # PUSHB n, FDEF, (PUSHB n-1 n-1, CALL, CALL), ENDF
    out = bytearray(font)
    for n in range(struct.unpack_from(">H", font, 4)[0]):
        tag, _, offset, length = struct.unpack_from(">4sIII", font, 12 + 16 * n)
        written = {b"fpgm": program, b"prep": bytes([0xB0, 20, 0x2B])}.get(tag)  # PUSHB 20, CALL
        if written is not None:
            assert len(written) <= length
            out[offset:offset + len(written)] = written
            struct.pack_into(">I", out, 12 + 16 * n + 12, len(written))
        elif tag == b"maxp":
            struct.pack_into(">H", out, offset + 20, 21)  # function definitions
            struct.pack_into(">H", out, offset + 24, max(64, struct.unpack_from(">H", font, offset + 24)[0]))
    return bytes(out)


def test_pnps_checks_of_a_font_run_none_of_its_hinting_programs(tmp_path):
    """FreeType runs a TrueType font's hinting programs (fpgm, prep, each glyph's instructions) to draw it
    hinted, up to a million instructions each: a font whose every glyph called a program of nearly that many
    took pnp's checks, which measure every glyph, 28 ms a glyph and validation a minute. What pnp prints needs
    no hinting (pdfium, its PNG export, draws without it): its checks measure the outlines unhinted, so a font
    whose hinting runs past FreeType's bound (here its prep, run once) is measured as any other."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf}\n  Display: {regular: f.ttf}\n"})
    regular = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    (root / "fonts" / "f.ttf").write_bytes(_font_hinted_past_freetypes_bound(regular))
    result = run(root, "validate")
    assert result.exit_code == 0, result.output


def test_a_font_file_named_by_many_styles_and_families_is_read_once(tmp_path, monkeypatch):
    """Each style of each family naming one font file read, parsed and checked it again, though ReportLab gives
    every later name the font registered first: 32 families naming DejaVu Sans (128 styles) took validation
    26 s. The file is read once."""
    from pnp.draw import fonts

    reads = []
    monkeypatch.setattr(fonts, "_read_font", lambda *args, made=fonts._read_font: reads.append(args[2]) or made(*args))
    families = "".join(f"  {name}: {{regular: f.ttf, bold: f.ttf}}\n" for name in ("Body", "Display", "Third"))
    root = make_project(tmp_path / "proj", changes={"fonts/fonts.yaml": f"families:\n{families}"})
    shutil.copy(REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf", root / "fonts" / "f.ttf")
    result = run(root, "validate", "mini")
    assert result.exit_code == 0, result.output
    assert reads == ["f.ttf"]


def test_the_glyphs_of_the_font_files_fonts_yaml_names_are_checked_within_a_bound(tmp_path, monkeypatch):
    """pnp checks every glyph of every font file fonts.yaml names: 32 families of four files each, copies of
    DejaVu Sans (94 MB), took validation 94 s and 535 MB. The files' glyphs are counted, from each file's maxp
    table before it is parsed, against a bound (made small here: the font holds 1,900 glyphs); a file named by
    several styles is counted once."""
    from pnp.draw import fonts
    monkeypatch.setattr(fonts, "MAX_FONT_GLYPHS", 3000)
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf, bold: f.ttf}\n  Display: {regular: g.ttf}\n"})
    for name in ("f.ttf", "g.ttf"):
        shutil.copy(REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf", root / "fonts" / name)
    result = run(root, "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    errors = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert len(errors) == 1 and errors[0].startswith("fonts/fonts.yaml:3:22: error: the font files fonts.yaml names "
                                                     "hold more than 3,000 glyphs together"), errors


@pytest.mark.parametrize("size", ['width="64"', 'height="64"', 'width="50%" height="64"', 'width="12%"'])
def test_an_icon_given_one_side_or_a_percentage_prints_at_the_size_browsers_show_it(tmp_path, size):
    """svglib took a side an icon's <svg> does not give as its viewBox's own, and a percentage of the viewBox's
    side: an icon of width="64" and viewBox="0 0 512 512" was a drawing 64 x 512 and printed, fitted in its box,
    at an eighth of its size, exit 0. A browser sizes it by its viewBox's proportions, as pnp now does."""
    import pypdfium2 as pdfium
    from reportlab.lib import colors
    from reportlab.pdfgen.canvas import Canvas

    def drawn(svg: str) -> int:
        path = tmp_path / f"icon{len(list(tmp_path.iterdir()))}.svg"
        path.write_text(svg)
        assert icons.unreadable(path) is None
        pdf = io.BytesIO()
        canvas = Canvas(pdf, pagesize=(100, 100))
        icons.draw_icon(canvas, path, 0, 0, 100, 100, colors.black)
        canvas.save()
        pixels = pdfium.PdfDocument(pdf.getvalue())[0].render(scale=1).to_pil().convert("L")
        return sum(pixels.histogram()[:128])  # the square's pixels

    square = '<path d="M0 0H512V512H0Z"/></svg>'
    as_seen = drawn(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">{square}')
    assert as_seen > 9000  # (it fills its 100 x 100 box)
    assert drawn(f'<svg xmlns="http://www.w3.org/2000/svg" {size} viewBox="0 0 512 512">{square}') == as_seen


def test_an_icon_file_named_on_a_mac_or_in_capitals_is_found_by_its_name(tmp_path):
    """An icon file whose accent a Mac stored as 'e' and an accent (cafe\u0301.svg) was not the icon 'café' that
    game.yaml names ("unknown icon 'café' (did you mean 'café'?)"), and one saved as STAR.SVG, which every SVG
    viewer shows, was among no icons at all."""
    drawing = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'
    root = make_project(tmp_path / "proj", case={
        "files": {"layouts/mini/icons/cafe\u0301.svg": drawing, "layouts/mini/icons/STAR.SVG": drawing},
        "replace": {"cards/mini/game.yaml": [["star: round-star", "star: caf\u00e9\n  other: STAR"]],
                    "layouts/mini/card.yaml": [["icon: star,", "icon: other,"]]}})
    result = run(root, "validate", "mini")
    assert result.exit_code == 0, result.output


def test_a_folder_is_listed_once_for_the_files_named_alike_of_every_picture_not_found(tmp_path):
    """Each picture not found looks for a file named alike in its folder: 3,000 cards naming pictures missing
    from a folder of 19,000 files listed the folder 3,000 times (3 s more to validate)."""
    from pnp import project as project_module

    root = make_project(tmp_path / "proj", case={
        "files": {"layouts/mini/card.yaml": "size: poker\nelements:\n  - {type: image, src: 'pictures/{{ card.id }}.png',"
                                            " x: 0, y: 0, w: 63, h: 88}\n"},
        "images": {"layouts/mini/Pictures/other.png": [10, 10]}})
    project_module._names_by_key.cache_clear()
    result = run(root, "validate", "mini")
    assert result.exit_code == 1 and result.output.count("(there is 'Pictures/") == 0
    assert result.output.count("not found") == 4
    assert project_module._names_by_key.cache_info().misses == 2  # layouts/mini/ and its Pictures/, once each


def _with_space_advance(font: bytes, advance: int) -> bytes:
    """The font with its space (U+0020) as wide as `advance` units: a face whose space is wider than its
    regular face's, as a bold face's often is (DejaVu Sans Bold's, 348 units to 318), made from pnp's own."""
    from reportlab.pdfbase.ttfonts import TTFontFile
    parsed = TTFontFile(io.BytesIO(font))
    out = bytearray(font)
    struct.pack_into(">H", out, parsed.table["hmtx"]["offset"] + 4 * parsed.charToGlyph[32], advance)
    return bytes(out)


def test_bold_words_whose_face_has_a_wider_space_end_at_their_boxs_edge(tmp_path):
    """Spaces were measured in the regular face whatever face drew them: in a project font whose bold space is
    wider, a line of bold words ran past its box's right edge (2 mm on a poker card, into the cut), and the lines
    of right-aligned bold text did not end together, with exit 0."""
    from pypdf import PdfReader
    from reportlab.lib.colors import black
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen.canvas import Canvas
    from pnp.draw import text as rtext
    from pnp.draw.fonts import load_fonts
    from pnp.project import find
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: r.ttf, bold: b.ttf}\n  Display: {regular: r.ttf}\n"})
    fonts_dir = REPO / "pnp" / "fonts" / "SourceSansPro"
    for face, style in (("r", "Regular"), ("b", "Bold")):  # renamed: fonts are registered by their own name
        font = (fonts_dir / f"SourceSansPro-{style}.ttf").read_bytes()
        for encoding in ("latin-1", "utf-16-be"):
            font = font.replace("SourceSansPro".encode(encoding), "SpacedSansPro".encode(encoding))
        (root / "fonts" / f"{face}.ttf").write_bytes(_with_space_advance(font, 600) if face == "b" else font)
    fonts = load_fonts(find(root))
    width, size = 150.0, 10.0
    fitted = rtext.fit("**" + " ".join(["i"] * 60) + "**", fonts, "Body", width, 200.0, size)
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(300, 300), invariant=1)
    rtext.draw_lines(canvas, fitted, 10.0, 280.0, width, "right", black, fonts, "Body", lambda *args: None)
    canvas.save()
    ends: list[float] = []
    PdfReader(io.BytesIO(out.getvalue())).pages[0].extract_text(visitor_text=lambda text, cm, tm, font, font_size: (
        ends.append(tm[4] + stringWidth(text.strip(), fonts.name("Body", True), size)) if text.strip() else None))
    assert len(ends) == len(fitted.lines) > 1
    assert all(abs(end - (10.0 + width)) < 0.05 for end in ends), ends


def test_fonts_yaml_is_parsed_from_the_bytes_it_was_known_by(tmp_path, monkeypatch):
    """fonts.yaml was read once to digest it (what the fonts loaded are kept by) and again, by its path, to parse
    it: a file changed between the two reads (an editor saving it, a game replaced while the preview ran) had its
    new text kept under the old bytes' digest, and a later load of the old bytes was served the new fonts."""
    from pnp.draw import fonts
    from pnp.project import find
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: SourceSansPro-Regular.ttf}\n"})
    shutil.copy(REPO / "pnp" / "fonts" / "SourceSansPro" / "SourceSansPro-Regular.ttf", root / "fonts")
    spec = root / "fonts" / "fonts.yaml"
    real_read = fonts.read_project_file

    def read_then_changed(path, *args, **kwargs):  # the file saved anew just after its bytes were read
        raw = real_read(path, *args, **kwargs)
        if path.name == "fonts.yaml":
            spec.write_text("families:\n  Other: {regular: SourceSansPro-Regular.ttf}\n")
        return raw

    monkeypatch.setattr(fonts, "read_project_file", read_then_changed)
    assert list(fonts.load_fonts(find(root)).families) == ["Body"]


def test_an_icons_reference_is_the_href_browsers_follow_where_it_has_xlink_href_too(tmp_path, own_disk_cache):
    """Browsers follow an element's href over its xlink:href (SVG 2), svglib the other way round: a <use> of
    xlink:href="#dot" and href="#square" printed a dot where browsers draw a square (exit 0). The href browsers
    follow is the one drawn, and the one checked: an <image> whose href leads outside the icon is refused, whatever
    its xlink:href holds."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'
           '<defs><rect id="dot" width="1" height="1"/><rect id="square" width="10" height="10"/></defs>'
           '<use xlink:href="#dot" href="#square"/></svg>').encode()
    (tmp_path / "icon.svg").write_bytes(svg)
    assert icons.unreadable(tmp_path / "icon.svg") is None
    [rect] = _rects_of(icons._drawing(svg, hashlib.sha256(svg).digest()))
    assert (rect.width, rect.height) == (10, 10)
    outside = svg.replace(b'<use xlink:href="#dot" href="#square"/>',
                          b'<image xlink:href="#dot" href="file:///etc/hostname" width="9" height="9"/>')
    (tmp_path / "outside.svg").write_bytes(outside)
    assert "file:///etc/hostname" in str(icons.unreadable(tmp_path / "outside.svg"))


def test_an_icons_reference_is_read_as_a_url_without_spaces_around_it(tmp_path, own_disk_cache, monkeypatch):
    """Browsers read an href as a URL: without the spaces around it, nor the line breaks in it. svglib read
    href=" #square" and "#squ&#10;are " as is: no element of that id (a <use> drew nothing where browsers draw the
    square), and an <image href=" #x"> as the file named ' ' in the folder pnp ran in, which it drew."""
    from PIL import Image
    from reportlab.graphics.shapes import Group, Rect

    def rects(node):
        return [r for child in node.contents for r in rects(child)] if isinstance(node, Group) else \
            [node] if isinstance(node, Rect) else []

    head = ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><rect id="square" width="10" '
            'height="10"/></defs>')
    for use in ('<use href=" #square"/>', '<use href="#squ&#10;are "/>', '<use href="" xlink:href="#square" '
                'xmlns:xlink="http://www.w3.org/1999/xlink"/>'):
        svg = (head + use + "</svg>").encode()
        (tmp_path / "icon.svg").write_bytes(svg)
        assert icons.unreadable(tmp_path / "icon.svg") is None
        drawn = rects(icons._drawing(svg, hashlib.sha256(svg).digest()))
        assert [(r.width, r.height) for r in drawn] == ([] if 'href=""' in use else [(10, 10)]), use
    monkeypatch.chdir(tmp_path)
    Image.new("RGB", (8, 8), "red").save(tmp_path / " ", "PNG")  # a file of the folder pnp runs in
    (tmp_path / "image.svg").write_bytes((head + '<image href=" #x" width="9" height="9"/></svg>').encode())
    assert icons.unreadable(tmp_path / "image.svg") is not None


def test_a_project_named_as_its_game_reads_pictures_beside_another_programs_manifest(tmp_path):
    """A folder is pnp's output by its record (manifest.json) where it is <out>/<game>/ or <out>/<game>/<format>/;
    the project's own folder is no <out>/<game>/. A project named as its game (mini/, of cards/mini/) holding art/
    with a web page's manifest.json had its pictures there refused as an earlier build's; mini/ in it still is."""
    root = make_project(tmp_path / "mini", case={
        "files": {"art/manifest.json": "{}\n", "mini/manifest.json": "{}\n"},
        "images": {"art/x.png": [600, 600], "mini/x.png": [600, 600]},
        "replace": {"layouts/mini/card.yaml": [["  - {type: icon", "  - {type: image, src: ../../art/x.png, x: 0, "
                                                "y: 0, w: 20, h: 20}\n  - {type: image, src: ../../mini/x.png, x: 0, "
                                                "y: 0, w: 20, h: 20}\n  - {type: icon"]]}})
    result = run(root, "validate", "mini")
    [refused] = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert refused.startswith("layouts/mini/card.yaml:7:") and "'../../mini/x.png' lies in a folder pnp wrote" in refused


def test_an_icons_image_of_its_own_element_is_refused_at_its_line(tmp_path, own_disk_cache):
    """An <image href="#id"> is a picture file to browsers (the icon's own, which an icon seen as a picture does not
    load), never one of its elements: svglib drew the element in the picture's box, and for an id of no element
    ended on its own error, said at the icon's first line."""
    for body in ('<rect id="a" width="3" height="3"/>\n<image href="#a" width="10" height="10"/>',
                 '\n<image href="#none" width="10" height="10"/>'):
        (tmp_path / "icon.svg").write_bytes(('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">\n'
                                             + body + "</svg>").encode())
        message, line, _ = icons.unreadable(tmp_path / "icon.svg")
        assert "holds an <image> of one of its own elements" in message and line == 3, (message, line)


@pytest.mark.parametrize("escaped", [
    '<defs><rect id="é" width="10" height="5"/></defs><use href="#%C3%A9" x="3"/>',  # a <use> of an escaped id
    '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>'
    '<rect width="10" height="5" fill="url(#%67) blue"/>',  # a paint server (red), not its fallback (blue)
    '<defs><clipPath id="c"><rect width="2" height="2"/></clipPath></defs>'
    '<rect width="10" height="5" style="clip-path: url(\'#%63\')"/>',  # a clip
])
def test_an_icons_reference_by_a_percent_escaped_id_draws_the_element_browsers_find(escaped):
    """Browsers decode a fragment's percent-escapes (UTF-8) to find the element it names: svglib looked for
    '%61' as written, and printed a <use href="#%61"> as nothing, a fill of url(#%67) as its fallback and a clip
    of url(#%63) as none (exit 0). The icon draws as the one naming its ids unescaped. A clip's url(#id) in quotes
    or spaced is read so too (svglib read no clip from it)."""
    from urllib.parse import unquote

    def drawn(svg: str) -> list:
        data = f'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">{svg}</svg>'.encode()
        drawing = icons._drawing(data, hashlib.sha256(data).digest())
        return [(type(node).__name__, getattr(node, "fillColor", None), getattr(node, "x", None))
                for node in _nodes_of(drawing)]

    plain = unquote(escaped).replace("url('#c')", "url(#c)")  # (the icon's only escapes are its references')
    assert plain != escaped and drawn(escaped) == drawn(plain)
    if "clipPath" in escaped:  # a clip's url in quotes, or spaced, was no clip to svglib
        assert drawn(plain) == drawn(plain.replace("url(#c)", "url( '#c' )")) != drawn(plain.replace("url(#c)", "none"))


def _nodes_of(node: object) -> list:
    """The nodes of a drawing svglib made, groups and shapes, in the order drawn."""
    from reportlab.graphics.shapes import Group

    return [node, *(found for child in node.contents for found in _nodes_of(child))] if isinstance(node, Group) \
        else [node]


def test_a_font_file_of_another_kind_or_whose_tables_lie_past_its_end_is_refused_in_pnps_words(tmp_path):
    """A WOFF2 web font named as a family's font was refused in ReportLab's words ("Not a recognized TrueType
    font: version=0x774F4632"), and a font whose maxp table, or a collection whose first font, lies past the file's
    end (a download cut short) as "unpack requires a buffer of 2 bytes": each is said at its line in fonts.yaml."""
    from pnp.draw.fonts import load_fonts
    from pnp.errors import DataError
    from pnp.project import Project

    font = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    maxp = font.index(b"maxp", 12)  # its entry in the table directory: its offset moved past the end
    collection = bytearray(_collection(font, 1))
    struct.pack_into(">I", collection, 12, len(collection))
    damaged = {"web.ttf": (b"wOF2" + font[4:], "a WOFF2 web font, where pnp embeds TrueType fonts (.ttf) and collections of them "
                                                  "(.ttc)"),
               "cut.ttf": (font[:maxp + 8] + struct.pack(">I", len(font)) + font[maxp + 12:],
                           "its maxp table lies past the file's end"),
               "cut.ttc": (bytes(collection), "its table directory lies past the file's end")}
    root = make_project(tmp_path / "proj", changes={"fonts/fonts.yaml": ""})
    for name, (data, said) in damaged.items():
        (root / "fonts" / name).write_bytes(data)
        (root / "fonts" / "fonts.yaml").write_text(f"families:\n  Body: {{regular: {name}}}\n  Display: {{regular: {name}}}\n")
        with pytest.raises(DataError) as raised:
            load_fonts(Project(root))
        assert (raised.value.mark.file, raised.value.mark.line) == ("fonts/fonts.yaml", 2), raised.value.mark
        assert raised.value.message == f"font Body regular ({name}) cannot be loaded: {said}" + (
            "; name the family's .ttf files" if name == "web.ttf" else f" ({len(data):,} bytes): a file cut short or "
                                                                       "damaged?"), raised.value.message


def test_an_icons_reference_escaping_a_character_xml_cannot_hold_names_no_element():
    """An id's escape of a character no XML file holds (%00, %01) names no element; lxml refused the decoded
    character, and the icon was refused in its words ("All strings must be XML compatible") at its first line,
    where browsers draw a <use> of it as nothing and a fill of it as its fallback. It draws as the icon naming an id
    no element has."""
    def drawn(svg: str) -> list:
        data = f'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">{svg}</svg>'.encode()
        drawing = icons._drawing(data, hashlib.sha256(data).digest())
        return [(type(node).__name__, getattr(node, "fillColor", None)) for node in _nodes_of(drawing)]

    body = '<defs><rect id="a" width="5" height="5"/></defs><use href="#{}"/><rect width="5" height="5" fill="url(#{}) blue"/>'
    assert drawn(body.format("%00", "%01")) == drawn(body.format("none", "none"))


@pytest.mark.parametrize("name, said", [
    ("Source(SansPr-Regular", "holds the character '('"), ("Source%SansPr-Regular", "holds the character '%'"),
    ("Source/SansPr-Regular", "holds the character '/'"), ("Source\x1bSansPr-Regular", "control character 0x1B"),
    ("Source SansPr-Regular", None)])  # (a space ReportLab writes as '-')
def test_a_font_whose_postscript_name_a_pdf_cannot_hold_is_refused_in_pnps_words(name, said):
    """ReportLab refused a PostScript name holding PostScript's delimiters in its own words, with the name's raw
    bytes and the character's code ("psName=b'Source(Sans...' contains invalid character 40"); read as ReportLab
    reads it, the name is refused before, saying the character."""
    from pnp.draw.fonts import _check_name_characters
    from pnp.errors import DataError

    regular = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    font = _font_named(regular, "SourceSansPro-Regular", name)
    if said is None:
        _check_name_characters(font, "font Body regular (f.ttf)", None)
        return
    with pytest.raises(DataError) as refused:
        _check_name_characters(font, "font Body regular (f.ttf)", None)
    assert refused.value.message.startswith("font Body regular (f.ttf) cannot be used: its PostScript name") \
        and said in refused.value.message and "psName" not in refused.value.message, refused.value.message


@pytest.mark.parametrize("length, refused", [(63, False), (64, True)])
def test_a_font_whose_postscript_name_is_past_opentypes_63_characters_is_refused(length, refused):
    """A font named by 30,000 letters was embedded under that name in every PDF, past PDF's 127 bytes a name
    (poppler: "name token is longer than what the specification says it can be")."""
    from pnp.draw.fonts import _check_name_characters
    from pnp.errors import DataError

    name = ("A" * length).encode("utf-16-be")
    table = struct.pack(">3H6H", 0, 1, 18, 3, 1, 0x409, 6, len(name), 0) + name
    font = struct.pack(">IHHHH4sIII", 0x10000, 1, 0, 0, 0, b"name", 0, 28, len(table)) + table
    if not refused:
        _check_name_characters(font, "font Body regular (f.ttf)", None)
        return
    with pytest.raises(DataError) as said:
        _check_name_characters(font, "font Body regular (f.ttf)", None)
    assert said.value.message.startswith("font Body regular (f.ttf) cannot be used: its PostScript name (its name "
                                         "table's ID 6) is 64 characters long"), said.value.message


@pytest.mark.parametrize("table, at, value, said", [
    (b"maxp", 4, 65535, "its hmtx table holds 7,768 bytes where its 65,535 glyphs (its maxp table) and 1,942 "
                        "advances (its hhea table) need 134,954"),
    (b"hhea", 34, 4000, "its hmtx table holds 7,768 bytes where its 1,942 glyphs (its maxp table) and 4,000 "
                        "advances (its hhea table) need 16,000"),
    (b"hhea", 34, 1942, None)])
def test_a_font_whose_advances_or_locations_are_fewer_than_its_glyphs_is_refused_in_pnps_words(table, at, value, said):
    """ReportLab reads a glyph's advance and outline's place for each glyph maxp and hhea count, on past the hmtx
    and loca tables into those after them (widths made of another table's bytes) or past the file's end
    ("unpack requires a buffer of 2 bytes")."""
    from pnp.draw.fonts import _check_metrics_and_locations_within
    from pnp.errors import DataError

    font = _font_with((REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes(), table, at, ">H", value)
    if said is None:
        _check_metrics_and_locations_within(font, "font Body regular (f.ttf)", None)
        return
    with pytest.raises(DataError) as refused:
        _check_metrics_and_locations_within(font, "font Body regular (f.ttf)", None)
    assert refused.value.message.startswith(f"font Body regular (f.ttf) cannot be loaded: {said}"), refused.value.message


@pytest.mark.parametrize("table, length", [(b"head", 20), (b"OS/2", 10), (b"head", 54)])
def test_a_font_whose_table_of_fixed_size_is_cut_short_is_refused_in_pnps_words(table, length):
    """ReportLab read a head table of 20 bytes on into the table after it, and refused it as "tables do not agree
    (IndexError: list index out of range)"; an OS/2 table of 10 gave it an ascender of another table's bytes."""
    from pnp.draw.fonts import _check_fixed_tables_whole
    from pnp.errors import DataError

    font = bytearray((REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes())
    struct.pack_into(">I", font, font.index(table, 12) + 12, length)  # (its directory entry's length)
    if length == 54:
        _check_fixed_tables_whole(bytes(font), "font Body regular (f.ttf)", None)
        return
    with pytest.raises(DataError) as refused:
        _check_fixed_tables_whole(bytes(font), "font Body regular (f.ttf)", None)
    assert refused.value.message.startswith(f"font Body regular (f.ttf) cannot be loaded: its {table.decode()} table "
                                            f"holds {length} bytes, where one holds "), refused.value.message


def test_a_font_whose_name_table_names_it_nothing_is_refused_in_pnps_words():
    """A name table of no records (no PostScript, full or family name) sent ReportLab to a setting its own version
    lacks: the font was refused as "module 'reportlab.rl_config' has no attribute ...". It is refused saying so."""
    from pnp.draw.fonts import _check_name_characters
    from pnp.errors import DataError

    regular = (REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes()
    with pytest.raises(DataError) as refused:
        _check_name_characters(_font_with(regular, b"name", 2, ">H", 0), "font Body regular (f.ttf)", None)
    assert refused.value.message.startswith("font Body regular (f.ttf) cannot be used: its name table holds no "
                                            "PostScript name"), refused.value.message


def test_an_icon_or_font_whose_folder_becomes_a_link_outside_after_its_check_is_not_read(tmp_path, monkeypatch):
    """An icon's and a font's path was checked to lie inside the project, then opened following links (as a
    picture's was, run 45): a folder of it swapped for a link to a folder outside between the two (a race) had
    pnp read the file outside (its words said at the icon, a font outside embedded). Each is opened as it was
    checked, one folder at a time without following a link, and refused, naming the file the game gave."""
    from pnp.draw.fonts import load_fonts
    from pnp.errors import DataError
    from pnp.model.icons import IconIndex
    from pnp.project import Project
    from pnp.report import Mark

    root, outside = tmp_path / "proj", tmp_path / "outside"
    for folder in (root / "icons", root / "fonts/own", outside / "icons", outside / "fonts"):
        folder.mkdir(parents=True)
    (root / "icons/star.svg").write_bytes((REPO / "layouts/shared/icons/round-star.svg").read_bytes())
    (outside / "icons/star.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
                                            '<text>outside</text></svg>')  # (refused, if it were read)
    (root / "fonts/fonts.yaml").write_text("families:\n  Body: {regular: own/f.ttf}\n  Display: {regular: own/f.ttf}\n")
    (root / "fonts/own/f.ttf").write_bytes((REPO / "pnp/fonts/SourceSansPro/SourceSansPro-Regular.ttf").read_bytes())
    (outside / "fonts/f.ttf").write_bytes(b"not a font, outside")

    def swap(folder: Path, to: Path) -> None:
        folder.rename(folder.with_name(folder.name + "-before"))
        folder.symlink_to(to, target_is_directory=True)

    project = Project(root)
    star = IconIndex(project, [root / "icons"]).path("star")  # (found, and checked, inside the project)
    assert star is not None and icons.unreadable(star, project.root) is None
    swap(root / "icons", outside / "icons")
    problem = icons.unreadable(star, project.root)  # (what validation asks of every icon the game prints)
    assert problem is not None and "cannot be read" in problem[0] and "text" not in problem[0], problem

    checked = Project.inside

    def fonts_swapped_after_the_check(self, path, *args, **kwargs):
        found = checked(self, path, *args, **kwargs)
        if Path(path).name == "f.ttf" and not (root / "fonts/own").is_symlink():
            swap(root / "fonts/own", outside / "fonts")
        return found

    monkeypatch.setattr(Project, "inside", fonts_swapped_after_the_check)
    with pytest.raises(DataError) as raised:
        load_fonts(project)
    assert raised.value.mark == Mark("fonts/fonts.yaml", 2, 19) and \
        raised.value.message.startswith("font file 'own/f.ttf' cannot be read"), (raised.value.mark, raised.value.message)


def test_an_icon_verdict_kept_on_disk_is_made_again_once_a_module_wording_it_is_edited(own_disk_cache, monkeypatch):
    """Icon verdicts kept in the disk cache were keyed by the bytes of draw/icons.py alone: an icon's embedded
    picture is checked and its refusal worded in model/images.py, and once that was edited (a message reworded,
    a check added) the old verdict was still said. The cache is keyed by every module that makes one."""
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="4" height="4"/></svg>'
    digest = hashlib.sha256(svg).digest()
    icons.FORMS.store(b"check\0" + digest, ("an old message", 1, 1))  # (as an older pnp's images.py said it)
    monkeypatch.setattr(icons, "_checked", {})
    assert icons.unreadable_svg(svg, digest) == ("an old message", 1, 1)  # (kept: read back while nothing changed)
    read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read(self) + (b"\n# reworded\n" if self.parts[-2:] == (
        "model", "images.py") else b""))
    monkeypatch.setattr(icons.FORMS, "_folder", False)  # (as a new process looks for its folder)
    monkeypatch.setattr(icons, "_checked", {})
    assert icons.unreadable_svg(svg, digest) is None


def test_icon_links_beside_their_icon_are_not_each_resolved_and_every_bad_link_is_said(tmp_path, monkeypatch):
    """A folder of 19,000 links to one icon resolved each link from the project's root (20 s of a 4 s validation),
    and a chain of 3,000 links, each resolved through all those after it, ran past a minute. A link ending at an
    icon beside it is where that icon is, with no resolve; a chain longer than the system follows (40 links) is
    refused as open() refuses it; a link out of the project, to nothing, to a hidden file, or round in a loop
    is still said, at the link."""
    from pnp.model.icons import MAX_LINK_HOPS, IconIndex
    from pnp.project import Project

    root = tmp_path / "proj"
    folder = root / "icons"
    folder.mkdir(parents=True)
    (tmp_path / "outside.svg").write_bytes((REPO / "layouts/shared/icons/round-star.svg").read_bytes())
    (folder / "t.svg").write_bytes((REPO / "layouts/shared/icons/round-star.svg").read_bytes())
    (folder / ".h.svg").write_bytes((folder / "t.svg").read_bytes())
    for i in range(100):
        (folder / f"l{i}.svg").symlink_to("t.svg")
    (folder / "c0.svg").symlink_to("t.svg")
    for i in range(1, MAX_LINK_HOPS + 3):  # c<i> is i + 1 links from t.svg
        (folder / f"c{i}.svg").symlink_to(f"c{i - 1}.svg")
    for name, target in {"out": "../../outside.svg", "none": "nothere.svg", "hid": ".h.svg", "a": "b.svg",
                         "b": "a.svg", "sub": "./t.svg"}.items():
        (folder / f"{name}.svg").symlink_to(target)
    # links into another folder: it is resolved once, and a link resolved whole only where its name is refused
    (root / "art").mkdir()
    (root / ".sec").mkdir()
    for other in (root / "art/t.svg", root / "art/.h.svg", root / ".sec/t.svg"):
        other.write_bytes((folder / "t.svg").read_bytes())
    (root / "art/d.svg").mkdir()
    for i in range(50):
        (folder / f"art{i}.svg").symlink_to("../art/t.svg")
    (root / "output").mkdir()
    (root / "output/t.svg").write_bytes((folder / "t.svg").read_bytes())
    for name, target in {"arth": "../art/.h.svg", "artd": "../art/d.svg", "sec1": "../.sec/t.svg",
                         "sec2": "../.sec/t.svg", "out2": "../../outside.svg", "built": "../output/t.svg"}.items():
        (folder / f"{name}.svg").symlink_to(target)

    resolved: list[Path] = []
    inside = Project.inside

    def counted(self: Project, path: Path, *args: object, **kwargs: object) -> Path:
        resolved.append(Path(path))
        return inside(self, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Project, "inside", counted)
    index = IconIndex(Project(root), [folder])
    real = (folder / "t.svg").resolve()
    assert all(index.path(f"l{i}") == real for i in range(100))
    assert all(index.path(f"c{i}") == real for i in range(MAX_LINK_HOPS))  # (40 links: as many as open() follows)
    assert index.path("sub") == real and index.path(f"c{MAX_LINK_HOPS}") is None
    assert all(index.path(f"art{i}") == (root / "art/t.svg").resolve() for i in range(50))
    said = {problem.mark.file: problem.message for problem in index.problems}  # type: ignore[union-attr]
    bad = {"out": "outside the project", "none": "link to no file", "hid": "hidden", "a": "loop", "b": "loop",
           "arth": "hidden", "artd": "a folder", "sec1": "hidden", "sec2": "hidden", "out2": "outside the project",
           "built": "output folder",
           **{f"c{i}": "loop" for i in range(MAX_LINK_HOPS, MAX_LINK_HOPS + 3)}}
    assert {file: next((what for what in bad.values() if what in message), message) for file, message in said.items()} \
        == {f"icons/{name}.svg": what for name, what in bad.items()}, said
    # the folder, and the links ending at no ordinary file of a plain name (a folder, a hidden name): none of the
    # 140 links to t.svg, nor the 50 to art/t.svg, nor those out of the project, into a hidden folder or the
    # output, each ending at a file of a folder resolved once
    assert sorted(path.name for path in resolved) == ["artd.svg", "arth.svg", "hid.svg", "icons", "none.svg"], resolved


def test_icon_links_out_of_the_project_are_said_without_keeping_their_frames_or_remaking_their_folders_path(
        tmp_path, monkeypatch):
    """19,000 icon links out of the project each made its path relative twice for its message, and each refusal
    kept the frames it was raised in (and those of the OSError it followed): 60 MB, and a second of the
    collector's and the report's work for messages past the first 200 printed. Each is said at its link, by the
    name the folder gives it, its folder's path made relative once."""
    from pnp.model.icons import IconIndex
    from pnp.project import Project

    root = tmp_path / "proj"
    folder = root / "layouts/g/icons"
    folder.mkdir(parents=True)
    (tmp_path / "outside.svg").write_bytes((REPO / "layouts/shared/icons/round-star.svg").read_bytes())
    for i in range(300):
        (folder / f"l{i}.svg").symlink_to(tmp_path / "outside.svg")
    made_relative: list[object] = []
    rel = Project.rel

    def counted(self: Project, path: object) -> str:
        made_relative.append(path)
        return rel(self, path)  # type: ignore[arg-type]

    monkeypatch.setattr(Project, "rel", counted)
    index = IconIndex(Project(root), [folder])
    assert sorted(str(problem.mark) for problem in index.problems) == \
        sorted(f"layouts/g/icons/l{i}.svg" for i in range(300))
    assert all(f"'{problem.mark}' is outside the project" in problem.message for problem in index.problems)
    assert all(problem.__traceback__ is None and problem.__context__ is None for problem in index.problems)
    assert len(made_relative) < 10, made_relative


def _clipped_before_drawn(node: object, clipped: bool = False) -> list:
    """(shape kind, whether a clip was set before it in its group or one around it) of each shape of a drawing."""
    from reportlab.graphics.shapes import Group
    from svglib.svglib import ClippingPath

    if not isinstance(node, Group):
        return [(type(node).__name__, clipped)]
    found = []
    for child in node.contents:
        clipped = clipped or isinstance(child, ClippingPath)
        found += [] if isinstance(child, ClippingPath) else _clipped_before_drawn(child, clipped)
    return found


@pytest.mark.parametrize("body", [
    '<rect width="10" height="10" clip-path="url(#c)"/><clipPath id="c"><rect width="5" height="5"/></clipPath>',
    '<clipPath id="c"><rect width="5" height="5"/></clipPath><a clip-path="url(#c)"><rect width="10" height="10"/></a>',
    '<clipPath id="c"><rect width="5" height="5"/></clipPath>'
    '<switch clip-path="url(#c)"><rect width="10" height="10"/></switch>',
])
def test_an_icons_shape_is_clipped_where_browsers_clip_it(body):
    """svglib found a clip path outside a <defs> only once it had drawn it (a shape clipped by one written after
    it printed unclipped), left out an <a>'s clip-path, and set a <switch>'s after drawing what it holds: each
    square printed whole, where browsers show a quarter of it (exit 0)."""
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">{body}</svg>'.encode()
    assert _clipped_before_drawn(icons._drawing(svg, hashlib.sha256(svg).digest())) == [("Rect", True)]


@pytest.mark.parametrize("first, said", [(b"OTTO", "an OpenType font of PostScript outlines (CFF)"),
                                         (b"\0\0\0\0", "no font pnp knows")], ids=["postscript", "zeros"])
def test_a_font_collection_whose_first_font_is_no_truetype_font_says_so(tmp_path, first, said):
    """A collection (.ttc) prints its first font: one that is no TrueType font was refused in ReportLab's words
    ("Not a recognized TrueType font: version=0x00000000")."""
    root = make_project(tmp_path / "proj", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: c.ttc}\n  Display: {regular: c.ttc}\n"})
    font = (REPO / "pnp" / "fonts" / "SourceSansPro" / "SourceSansPro-Regular.ttf").read_bytes()
    collection = bytearray(_collection(font, 1))
    collection[16:20] = first
    (root / "fonts" / "c.ttc").write_bytes(bytes(collection))
    result = run(root, "validate")
    assert result.exit_code == 1
    assert ("fonts/fonts.yaml:2:19: error: font Body regular (c.ttc) cannot be loaded: a font collection whose "
            f"first font (the one pnp prints) is {said}") in result.stderr, result.output
