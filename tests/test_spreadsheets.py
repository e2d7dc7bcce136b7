"""Tables kept in spreadsheets: `pnp convert` round trips, CSV and XLSX tables that build the same PDFs as
their YAML, and errors that point at the spreadsheet's row and column (and sheet)."""

import csv
import datetime
import functools
import io
import warnings
import os
import re
import shutil
import struct
import time
import zipfile

import openpyxl
import pytest
import yaml

from conftest import REPO, make_project, run, share_repo_assets

GAME = "diamonds-and-dinosaurs"


def table_files(game):
    meta = yaml.safe_load((REPO / "cards" / game / "game.yaml").read_text(encoding="utf-8"))
    for name, spec in meta["tables"].items():
        yield from spec.get("files") or [spec.get("file", f"{name}.yaml")]


def _shipped(root, *games):
    for game in games:
        shutil.copytree(REPO / "cards" / game, root / "cards" / game)
        shutil.copytree(REPO / "layouts" / game, root / "layouts" / game)
    share_repo_assets(root)
    return root


@pytest.fixture
def proj(tmp_path):
    """A project of Diamonds and Dinosaurs alone (copying three games for each of the file's 460 tests was 9 s of
    the suite)."""
    return _shipped(tmp_path / "proj", GAME)


@pytest.fixture
def three_games(tmp_path):
    """A project of EVO, DinoSpan and Diamonds and Dinosaurs, for the tests that read or write another game."""
    return _shipped(tmp_path / "proj", "evo", "dinospan", GAME)


def convert(root, path, fmt, *extra):
    result = run(root, "convert", str(path), "--to", fmt, *extra)
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize("game", ["evo", "dinospan", GAME])
def test_every_shipped_table_round_trips_through_csv_and_xlsx(tmp_path, game):
    # (a project of the game alone: each convert reads every game's game.yaml for the files it reads, and three
    # games made the test twice as long)
    proj = _shipped(tmp_path / "proj", game)
    folder = proj / "cards" / game
    for name in table_files(game):
        original = yaml.safe_load((folder / name).read_text(encoding="utf-8"))
        for fmt in ("csv", "xlsx"):
            sheet = folder / name.replace(".yaml", f".{fmt}")
            back = proj / "back.yaml"
            convert(proj, folder / name, fmt, "--force")
            convert(proj, sheet, "yaml", "--out", str(back), "--force")
            assert yaml.safe_load(back.read_text(encoding="utf-8")) == original, (name, fmt)


def test_an_enum_column_of_a_written_workbook_offers_its_values_in_a_drop_down(proj):
    folder = proj / "cards" / GAME
    convert(proj, folder / "cards.yaml", "xlsx")
    book = openpyxl.load_workbook(folder / "cards.xlsx")
    sheet = book.worksheets[0]
    column = openpyxl.utils.get_column_letter([c.value for c in sheet[1]].index("rank") + 1)
    rule = next(r for r in sheet.data_validations.dataValidation if str(r.sqref).startswith(f"{column}2:"))
    lists = book[rule.formula1.split("!")[0].strip("'")]
    offered = [cell.value for row in lists[rule.formula1.split("!")[1].replace("$", "")] for cell in row]
    ranks = yaml.safe_load((folder / "game.yaml").read_text(encoding="utf-8"))["enums"]["rank"]
    assert rule.type == "list" and offered == ranks and lists.sheet_state == "hidden"  # 2 a number, as in the data


def test_csv_and_xlsx_tables_build_the_same_pdfs_as_their_yaml(proj, tmp_path):
    assert run(proj, "build", GAME, "--out", str(tmp_path / "yaml")).exit_code == 0
    folder = proj / "cards" / GAME
    convert(proj, folder / "tokens.yaml", "csv")
    convert(proj, folder / "cards.yaml", "xlsx")
    (folder / "tokens.yaml").unlink()  # the table names no file: <name>.csv is read when no .yaml is there
    (folder / "cards.yaml").unlink()
    result = run(proj, "build", GAME, "--out", str(tmp_path / "sheets"))
    assert result.exit_code == 0, result.output
    pdfs = sorted((tmp_path / "yaml" / GAME).glob("*.pdf"))
    assert len(pdfs) >= 5
    for pdf in pdfs:
        assert (tmp_path / "sheets" / GAME / pdf.name).read_bytes() == pdf.read_bytes(), pdf.name


def errors(root):
    result = run(root, "validate", GAME)
    assert result.exit_code == 1 and "Traceback" not in result.output
    return [ln for ln in result.stderr.splitlines() if ": error: " in ln]


def tokens_as_csv(root):
    """The game's tokens table moved to tokens.csv: (its path, its rows as text, the header's names)."""
    folder = root / "cards" / GAME
    convert(root, folder / "tokens.yaml", "csv")
    (folder / "tokens.yaml").unlink()
    path = folder / "tokens.csv"
    rows = path.read_text(encoding="utf-8").splitlines()
    return path, rows, rows[0].split(",")


def test_a_csv_error_names_the_file_row_and_column(proj):
    path, rows, header = tokens_as_csv(proj)
    cells = rows[2].split(",")
    cells[header.index("count")] = "many"
    rows[2] = ",".join(cells)
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    col = header.index("count") + 1
    assert any(ln.startswith(f"cards/{GAME}/tokens.csv:3:{col}: error: count") and "'many'" in ln
               for ln in errors(proj)), errors(proj)


def test_a_misspelt_header_is_one_error_at_its_cell_not_one_per_row(proj):
    path, rows, header = tokens_as_csv(proj)
    col = header.index("count") + 1
    rows[0] = rows[0].replace("count", "cuont", 1)
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    found = errors(proj)
    assert found == [f"cards/{GAME}/tokens.csv:1:{col}: error: the header row has no column for 'count', a field "
                     "every item needs; is column 'cuont' meant to be 'count'?"], found


def test_an_xlsx_error_names_the_file_sheet_row_and_column(proj):
    folder = proj / "cards" / GAME
    convert(proj, folder / "turn.yaml", "xlsx")
    (folder / "turn.yaml").unlink()
    book = openpyxl.load_workbook(folder / "turn.xlsx")
    sheet = book.active
    header = [c.value for c in sheet[1]]
    col = header.index("icon") + 1
    sheet.cell(row=5, column=col, value="no-such-icon")
    book.save(folder / "turn.xlsx")
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:5:{col}: error: icon: unknown icon 'no-such-icon'")
               for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("content, message", [
    (b'id,name\n"unclosed,x\n', "tokens.csv:2:1: error: malformed CSV"),
    (b"id,name,id\nx,y,z\n", "tokens.csv:1:3: error: column 'id' appears twice"),
    (b"id,name\nx,y,stray\n", "tokens.csv:2:3: error: a value in a column without a name"),
    (b"id,name\nx,Caf\xe9\n", "tokens.csv:2:6: error: not UTF-8 text (byte 0xe9)"),
    # UTF-16 without a byte-order mark was refused at its first NUL, a control character of a header 'i\x00d\x00'
    ("id,name\nx,Café\n".encode("utf-16-le"), "tokens.csv:1:1: error: UTF-16 text, not UTF-8"),
    ("id,name\nx,Café\n".encode("utf-16-be"), "tokens.csv:1:1: error: UTF-16 text, not UTF-8"),
    # the rule of every text pnp prints or exports (a YAML table's too), then what YAML refuses besides
    (b"id,name\nx,Li\x00on\n", "tokens.csv:2:2: error: the text holds the control character U+0000"),
    (b"id,name\nx,Li\xe2\x80\xaeon\n", "tokens.csv:2:2: error: the text holds the control character U+202E"),
    (b"id,name\nx,Li\xef\xbf\xbeon\n", "tokens.csv:2:2: error: character U+FFFE is not allowed in a table's text"),
    # Python's int() reads these as 40 and 4; a YAML table and a reader of the sheet do not
    ("id,name,layout,icon,count\nx,y,z,star,4_0\n".encode(), "tokens.csv:2:5: error: count: expected a whole number"),
    ("id,name,layout,icon,count\nx,y,z,star,\u0664\n".encode(), "tokens.csv:2:5: error: count: expected a whole number"),
])
def test_a_broken_csv_is_refused_at_its_cell(proj, content, message):
    folder = proj / "cards" / GAME
    (folder / "tokens.yaml").unlink()
    (folder / "tokens.csv").write_bytes(content)
    assert any(message in ln for ln in errors(proj)), errors(proj)


def test_a_file_that_is_no_workbook_is_refused_by_name(proj):
    """A file beginning as a zip package, then garbled or cut short (a download that did not finish), was refused
    in Python's words ("BadZipFile: File is not a zip file"), where it began as one: said as damaged."""
    path = xlsx_table(proj, "turn")
    whole = path.read_bytes()
    for data in (b"PK\x03\x04 not really a zip", whole[:len(whole) // 2]):
        path.write_bytes(data)
        said = [ln for ln in errors(proj) if "turn.xlsx" in ln]
        assert len(said) == 1 and said[0].startswith(f"cards/{GAME}/turn.xlsx: error: not a readable .xlsx workbook")
        assert "damaged or cut short" in said[0] and "zipfile" not in said[0].lower(), said



def compound_file(streams):
    """A Compound File (OLE2), as an encrypted workbook or an Excel 97-2003 one is saved: a header, one sector of
    its allocation table, one of its directory, then each stream (of at least 4,096 bytes, in sectors of its own)."""
    size, end, free = 512, 0xFFFFFFFE, 0xFFFFFFFF
    chains, starts = [], []
    for body in streams.values():
        starts.append(2 + len(chains))
        chains += [body[i:i + size].ljust(size, b"\0") for i in range(0, len(body), size)]
    table = [0xFFFFFFFD, end]
    for body, start in zip(streams.values(), starts):
        count = -(-len(body) // size)
        table += [start + i + 1 for i in range(count - 1)] + [end]

    def entry(name, kind, right, child, start, length):
        encoded = (name + "\0").encode("utf-16-le")
        return (encoded.ljust(64, b"\0") + struct.pack("<HBBIII", len(encoded), kind, 1, free, right, child)
                + b"\0" * 36 + struct.pack("<IQ", start, length))

    names = list(streams)
    directory = entry("Root Entry", 5, free, 1, end, 0) + b"".join(
        entry(name, 2, i + 2 if i + 1 < len(names) else free, free, start, len(streams[name]))
        for i, (name, start) in enumerate(zip(names, starts)))
    header = (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 16 + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
              + b"\0" * 6 + struct.pack("<9I", 0, 1, 1, 0, 4096, end, 0, end, 0)
              + struct.pack("<109I", 0, *[free] * 108))
    return (header + struct.pack("<128I", *table, *[free] * (128 - len(table))) + directory.ljust(size, b"\0")
            + b"".join(chains))


def test_a_table_file_that_is_no_zip_package_is_refused_saying_what_it_is(tmp_path):
    """A workbook saved with a password to open it (a Compound File holding the workbook encrypted), an Excel
    97-2003 one, and a text, each named .xlsx, were refused as "BadZipFile: File is not a zip file"."""
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["    fields:", "    file: cards.xlsx\n    fields:"]]}, "files": {"cards/mini/cards.yaml": None}})
    files = {"encrypted": compound_file({"EncryptionInfo": b"\x04\x00\x04\x00" + bytes(4092),
                                         "EncryptedPackage": bytes(8192)}),
             "Excel 97-2003": compound_file({"Workbook": b"\x09\x08" + bytes(4094)}),
             "a CSV file is named .csv": b"id,name\nlion,Lion\n"}
    for said, data in files.items():
        (root / "cards" / "mini" / "cards.xlsx").write_bytes(data)
        result = run(root, "validate", "mini")
        assert result.exit_code == 1 and "zipfile" not in result.output.lower(), result.output
        assert result.stderr.startswith("cards/mini/cards.xlsx: error: ") and said in result.stderr, result.output



def zip_of(parts, encrypted=()):
    """A zip of `parts` (name -> text), the parts named in `encrypted` flagged as encrypted as a zip encrypts (in
    their local header and in the directory; zipfile writes no encrypted part)."""
    made = io.BytesIO()
    with zipfile.ZipFile(made, "w") as z:
        for name, text in parts.items():
            z.writestr(name, text)
    data = bytearray(made.getvalue())
    for name in encrypted:
        for signature, flags, length, offset in ((b"PK\x03\x04", 6, 26, 30), (b"PK\x01\x02", 8, 28, 46)):
            at = next(at for at in range(len(data)) if data.startswith(signature, at) and data[
                at + offset:at + offset + struct.unpack_from("<H", data, at + length)[0]] == name.encode())
            data[at + flags] |= 0x1
    return bytes(data)


def test_a_zip_package_that_is_no_workbook_is_refused_saying_what_it_is(tmp_path):
    """Refused in Python's words: an OpenDocument spreadsheet named .xlsx ("KeyError: There is no item named
    '[Content_Types].xml'"), a Word document ("OSError: File contains no valid workbook part"), a part encrypted
    as a zip's ("RuntimeError: File <ZipInfo filename=...> is encrypted, password required for extraction")."""
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    types = ('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override '
             'PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
             'wordprocessingml.document.main+xml"/></Types>')
    files = {"an OpenDocument spreadsheet (.ods)": zip_of({
                 "mimetype": "application/vnd.oasis.opendocument.spreadsheet", "content.xml": "<document/>"}),
             "names no workbook part": zip_of({"[Content_Types].xml": types, "word/document.xml": "<document/>"}),
             "part 'xl/workbook.xml' of the workbook is encrypted": zip_of(
                 {"[Content_Types].xml": "<Types/>", "xl/workbook.xml": "<workbook/>"}, encrypted={"xl/workbook.xml"})}
    path = tmp_path / "t.xlsx"
    for said, data in files.items():
        path.write_bytes(data)
        with pytest.raises(LoadError) as refused:
            read_table(path, "cards/g/t.xlsx", Schema({"id": {"type": "id"}}, {}))
        assert refused.value.mark.file == "cards/g/t.xlsx" and said in refused.value.message, refused.value.message
        assert "Error" not in refused.value.message, refused.value.message

def test_convert_refuses_a_file_no_table_reads_and_never_overwrites(proj):
    folder = proj / "cards" / GAME
    result = run(proj, "convert", str(folder / "nothing.yaml"), "--to", "csv")
    assert result.exit_code == 2 and "no table of" in result.output
    convert(proj, folder / "tokens.yaml", "csv")
    again = run(proj, "convert", str(folder / "tokens.yaml"), "--to", "csv")
    assert again.exit_code == 2 and again.output.startswith(f"cards/{GAME}/tokens.csv: error: exists; --force "
                                                           "replaces it"), again.output
    # a name that reads as tokens.csv but for case wrote a second file beside it here, where a Mac or Windows
    # refuses it (or with --force replaces tokens.csv): the project sent on held two files of one name
    for forced in ((), ("--force",)):
        alike = run(proj, "convert", str(folder / "tokens.yaml"), "--to", "csv", "--out", str(folder / "Tokens.CSV"),
                    *forced)
        assert alike.exit_code == 2 and alike.output.startswith(f"cards/{GAME}/Tokens.CSV: error: a disk that does "
                                                                "not tell names apart by case"), alike.output
        assert "'tokens.csv', which is there" in alike.output and not (folder / "Tokens.CSV").exists()
    # `--out TOKENS.YAML --force` on a system comparing names without case (macOS, Windows) wrote the table over
    # the file read (a workbook's other sheets lost), exit 0; a hard link stands for that other name here
    before = (folder / "tokens.yaml").read_bytes()
    os.link(folder / "tokens.yaml", folder / "TOKENS-linked.yaml")
    itself = run(proj, "convert", str(folder / "tokens.yaml"), "--to", "yaml", "--out",
                 str(folder / "TOKENS-linked.yaml"), "--force")
    assert itself.exit_code == 2 and f"cards/{GAME}/TOKENS-linked.yaml: error: is cards/{GAME}/tokens.yaml itself" \
        in itself.output, itself.output
    assert (folder / "tokens.yaml").read_bytes() == before
    assert os.path.samefile(folder / "tokens.yaml", folder / "TOKENS-linked.yaml")


def test_convert_refuses_a_table_whose_fields_game_yaml_cannot_read(proj):
    # read without its types, the text '0012' of a field whose spec had a typo came back as the number 12
    folder = proj / "cards" / GAME
    game_yaml = folder / "game.yaml"
    text = game_yaml.read_text(encoding="utf-8")
    assert "timing: {type: timing, required: false}" in text
    game_yaml.write_text(text.replace("timing: {type: timing, required: false}",
                                      "timing: {type: timing, optional: true}"), encoding="utf-8")
    line = next(n for n, ln in enumerate(game_yaml.read_text(encoding="utf-8").splitlines(), 1) if "optional" in ln)
    result = run(proj, "convert", str(folder / "terms.yaml"), "--to", "csv")
    assert result.exit_code != 0 and f"cards/{GAME}/game.yaml:{line}:" in result.output, result.output
    assert "field 'timing'" in result.output and not (folder / "terms.csv").exists()


def test_convert_refuses_an_out_named_for_another_format(proj):
    # a mistyped --out (`--to xlsx --out game.yaml --force`) wrote a workbook over the game's definition
    game_yaml = proj / "cards" / GAME / "game.yaml"
    before = game_yaml.read_bytes()
    result = run(proj, "convert", str(proj / "cards" / GAME / "tokens.yaml"), "--to", "xlsx", "--out",
                 str(game_yaml), "--force")
    assert result.exit_code == 2 and "game.yaml" in result.output and game_yaml.read_bytes() == before
    assert "an XLSX file is named *.xlsx" in result.output, result.output


@pytest.mark.parametrize("game", [GAME, "evo"])
def test_convert_never_writes_a_table_over_a_games_game_yaml(three_games, game):
    """`--to yaml --out cards/<game>/game.yaml --force` wrote the table over the game's definition (exit 0)."""
    proj = three_games
    game_yaml = proj / "cards" / game / "game.yaml"
    before = game_yaml.read_bytes()
    result = run(proj, "convert", str(proj / "cards" / GAME / "tokens.yaml"), "--to", "yaml", "--out",
                 str(game_yaml), "--force")
    assert result.exit_code == 2 and f"cards/{game}/game.yaml" in result.output and game_yaml.read_bytes() == before


# text a spreadsheet would take for a formula (OWASP's list) and for an error value
FORMULA_LIKE = ['=HYPERLINK("http://example.com","click")', "=cmd|' /C calc'!A0", "+1", "-2 health", "@SUM(1)",
                "#N/A", "=", "'=1+1", "''@x"]  # (the last two a text beginning with the quote OWASP's escape adds)


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_text_that_looks_like_a_formula_round_trips_as_text(proj, fmt):
    folder = proj / "cards" / GAME
    turn = yaml.safe_load((folder / "turn.yaml").read_text(encoding="utf-8"))
    for step, text in zip(turn, FORMULA_LIKE):
        step["text"] = text
    (folder / "turn.yaml").write_text(yaml.safe_dump(turn, sort_keys=False), encoding="utf-8")
    convert(proj, folder / "turn.yaml", fmt)
    convert(proj, folder / f"turn.{fmt}", "yaml", "--out", str(proj / "back.yaml"))
    assert yaml.safe_load((proj / "back.yaml").read_text(encoding="utf-8")) == turn
    if fmt == "xlsx":  # text cells, never a live formula, and marked as text for whoever edits them
        cells = [row[3] for row in openpyxl.load_workbook(folder / "turn.xlsx").active.iter_rows(min_row=2)]
        assert [c.data_type for c in cells[:len(FORMULA_LIKE)]] == ["s"] * len(FORMULA_LIKE)
        assert all(c.quotePrefix for c in cells[:5])
    else:  # as OWASP asks, a quote before each text a spreadsheet would run (a CSV's '=HYPERLINK(...)' ran)
        cells = [row[3] for row in csv.reader(io.StringIO((folder / "turn.csv").read_text(encoding="utf-8")))][1:]
        assert cells[:len(FORMULA_LIKE)] == ["'" * (text[0] in "=+-@'") + text for text in FORMULA_LIKE]


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_text_with_a_carriage_return_or_a_tab_first_round_trips_item_for_item(proj, fmt):
    """A bare \\r left unquoted in a CSV was read back as the end of a row: an item more, its text cut."""
    folder = proj / "cards" / GAME
    turn = yaml.safe_load((folder / "turn.yaml").read_text(encoding="utf-8"))
    for step, text in zip(turn, ["\r=2+2", "\t=1+1", "a\rb\r\nc"]):
        step["text"] = text
    (folder / "turn.yaml").write_text(yaml.safe_dump(turn, sort_keys=False), encoding="utf-8")
    convert(proj, folder / "turn.yaml", fmt)
    convert(proj, folder / f"turn.{fmt}", "yaml", "--out", str(proj / "back.yaml"))
    assert yaml.safe_load((proj / "back.yaml").read_text(encoding="utf-8")) == turn
    if fmt == "xlsx":  # marked as text for whoever edits them, as OWASP's list asks of these first characters
        cells = [row[3] for row in openpyxl.load_workbook(folder / "turn.xlsx").active.iter_rows(min_row=2)]
        assert [c.quotePrefix for c in cells[:2]] == [True, True]


def xlsx_table(proj, table):
    """The table converted to XLSX, its YAML removed: the game reads the workbook."""
    folder = proj / "cards" / GAME
    convert(proj, folder / f"{table}.yaml", "xlsx")
    (folder / f"{table}.yaml").unlink()
    return folder / f"{table}.xlsx"


def test_a_formula_cell_is_refused_at_its_cell_never_run(proj):
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active.cell(row=3, column=4, value="=1+1")
    book.save(path)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:4: error: this cell holds a formula ('=1+1')")
               for ln in errors(proj)), errors(proj)


def test_a_table_found_in_two_files_says_which_it_reads(proj):
    """With no `file:`, a table's YAML is read before its workbook, and a CSV before a workbook: edits made in the
    file not read printed nowhere, with no word. Here the YAML turned into a workbook and a CSV, then removed."""
    folder = proj / "cards" / GAME
    convert(proj, folder / "turn.yaml", "xlsx")
    convert(proj, folder / "turn.yaml", "csv")
    line = next(n for n, row in enumerate((folder / "game.yaml").read_text(encoding="utf-8").splitlines(), start=1)
                if row.strip() == "turn:")
    for read, beside in (("turn.yaml", "turn.csv, turn.xlsx"), ("turn.csv", "turn.xlsx")):
        result = run(proj, "validate", GAME)
        assert result.exit_code == 0 and "Traceback" not in result.output
        assert (f"cards/{GAME}/game.yaml:{line}:3: warning: table 'turn' is read from {read}; {beside} beside it is "
                "not read") in result.stderr, result.stderr
        (folder / read).unlink()
    assert "warning: table 'turn'" not in run(proj, "validate", GAME).stderr


def _with_shared_texts(path):
    """The workbook at `path` with its texts in a shared-strings part, as Excel and LibreOffice write them
    (openpyxl writes each in its cell)."""
    texts: list[bytes] = []

    def shared(found: re.Match) -> bytes:
        texts.append(found[2])
        return found[1] + b' t="s"><v>%d</v></c>' % (len(texts) - 1)
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    parts["xl/worksheets/sheet1.xml"] = re.sub(rb'(<c r="[A-Z]+\d+"(?: s="\d+")?) t="inlineStr"><is><t[^>]*>(.*?)</t></is></c>',
                                               shared, parts["xl/worksheets/sheet1.xml"])
    parts["xl/sharedStrings.xml"] = (b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                                     + b"".join(b"<si><t>%s</t></si>" % text for text in texts) + b"</sst>")
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(b"</Types>", (
        b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument'
        b'.spreadsheetml.sharedStrings+xml"/></Types>'))
    parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(b"</Relationships>", (
        b'<Relationship Id="rIdShared" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        b'sharedStrings" Target="sharedStrings.xml"/></Relationships>'))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return texts


def test_a_workbook_of_shared_texts_as_excel_writes_is_read_with_its_escapes(proj):
    """A workbook keeping its texts in a shared-strings part (as every spreadsheet program writes) was refused at
    its first text cell ("refers to shared text '0', and the workbook has 0"); a character Excel writes as
    _xHHHH_ (a carriage return from Windows text) was printed as those seven characters. Here a step's text
    holds a literal _x0041_, written and read back as typed (in its cell, as pnp writes it), and another one
    Excel's _x0042_ for a B."""
    folder = proj / "cards" / GAME
    rows = (folder / "turn.yaml").read_text(encoding="utf-8").splitlines()
    lines = [n for n, row in enumerate(rows) if row.startswith("  text:")][:2]
    rows[lines[0]], rows[lines[1]] = "  text: typed _x0041_ as is", "  text: an escaped B"
    (folder / "turn.yaml").write_text("\n".join(rows) + "\n", encoding="utf-8")
    path = xlsx_table(proj, "turn")
    convert(proj, path, "yaml", "--out", str(folder / "back.yaml"))
    assert "text: typed _x0041_ as is" in (folder / "back.yaml").read_text(encoding="utf-8")
    rezip(path, lambda name, data: data.replace(b"an escaped B", b"an escaped _x0042_"))
    assert len(_with_shared_texts(path)) > 10
    convert(proj, path, "yaml", "--out", str(folder / "back.yaml"), "--force")
    back = (folder / "back.yaml").read_text(encoding="utf-8")
    assert "text: an escaped B" in back, back
    assert run(proj, "validate", GAME).exit_code == 0


def test_a_shared_text_is_read_as_typed_its_runs_joined(proj):
    """openpyxl drops every "x005F_" of a shared text: a text typed "_x0041_" in Excel (which writes it
    _x005F_x0041_) printed "A", and one typed "x005F_" lost it, with exit 0. A rich text's runs are joined, its
    phonetic guide left out."""
    folder = proj / "cards" / GAME
    path = xlsx_table(proj, "turn")
    _with_shared_texts(path)
    rezip(path, lambda name, data: data.replace(b"<si><t>The jungle grows</t></si>", (
        "<si><r><t>The </t></r><r><rPr><b/></rPr><t>jungle</t></r><r><t xml:space='preserve'> grows</t></r>"
        "<rPh sb='0' eb='1'><t>ジャ</t></rPh></si>").encode()).replace(b"Fight dinosaurs", b"Fight _x005F_x0041_ x005F_"))
    convert(proj, path, "yaml", "--out", str(folder / "back.yaml"))
    titles = [item["title"] for item in yaml.safe_load((folder / "back.yaml").read_text(encoding="utf-8"))]
    assert titles[:2] == ["The jungle grows", "Fight _x0041_ x005F_"], titles


@pytest.mark.parametrize("code, value", [("0.0%", 0.5), ("# ?/?", 0.5), ("#,##0", 1234), ("0%", -0.001),
                                         ("0" + "%" * 20, 0.5)])  # (1e40 times: past decimal's 28 digits)
def test_a_number_shown_otherwise_than_its_text_is_refused_in_a_text_field(proj, code, value):
    """A number cell formatted to show 50.0%, 1/2 or 1,234 printed 0.5 or 1234 in a text field, with exit 0
    (a decimal point or a thousands separator is shown as the reader's language writes it, so no one text is
    what the sheet shows)."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active.cell(row=2, column=2, value=value).number_format = code  # title, a text field
    book.save(path)
    assert [ln for ln in errors(proj) if "turn.xlsx" in ln] == [
        f"cards/{GAME}/turn.xlsx[turn]:2:2: error: this number cell ({value}) is formatted as '{code}', so the sheet "
        "shows it otherwise than its text field would print it: format the cell as text and type the text"]


def test_a_number_formatted_as_whole_digits_is_read_in_a_text_field_as_the_sheet_shows_it(proj):
    """A number cell formatted 0% (Excel's percent style), 000 or 0 was refused in a text field: it reads as the
    sheet shows it, in any language (50%, 007, 2 of 1.5, rounded half away from zero as Excel rounds)."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    shown = [("0%", 0.5, "50%"), ("000", 7, "007"), ("0", 1.5, "2"), ("0%", 0.285, "29%"), ('"No. "0', 3, "No. 3"),
             ("$0", -5, "-$5")]
    for row, (code, value, _) in enumerate(shown, start=2):
        book.active.cell(row=row, column=2, value=value).number_format = code  # title, a text field
    book.save(path)
    convert(proj, path, "yaml", "--out", str(proj / "back.yaml"))
    titles = [item["title"] for item in yaml.safe_load((proj / "back.yaml").read_text(encoding="utf-8"))]
    assert titles[:len(shown)] == [text for _, _, text in shown]


def test_a_number_shown_as_its_text_is_read_in_a_text_field(proj):
    """The formats that show 7 as 7, and a number field under a format showing its number as itself, read as the
    number it is (once for all of them: each refused format's test validated these again)."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    for code, number_code in zip(("General", "GENERAL", "@", "0", "[Blue]General"), ("000", "#,##0", "0.00", "0", "[Red]0")):
        book.active.cell(row=2, column=1, value=1).number_format = number_code  # step, an int field
        book.active.cell(row=2, column=2, value=7).number_format = code
        book.save(path)
        assert run(proj, "validate", GAME).exit_code == 0, code


def test_a_whole_number_past_2_53_formatted_0_is_refused_in_a_text_field(proj):
    # "0" shows 100000000000000000000, and the text field printed 1e+20, exit 0 (and the cell is quoted as a sheet
    # spells the number it holds, 1E+20, not in Python's 1e+20)
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active.cell(row=2, column=2, value=1e20).number_format = "0"
    book.save(path)
    assert [ln for ln in errors(proj) if "turn.xlsx" in ln] == [
        f"cards/{GAME}/turn.xlsx[turn]:2:2: error: this number cell (1E+20) is formatted as '0', so the sheet shows it "
        "otherwise than its text field would print it: format the cell as text and type the text"]


@pytest.mark.parametrize("part, encoding", [("xl/worksheets/sheet1.xml", "utf-8"), ("xl/styles.xml", "utf-16")])
def test_a_part_declaring_a_document_type_is_refused_before_its_entities_expand(proj, part, encoding):
    """No spreadsheet program writes a DOCTYPE in a workbook: one of entities nested three deep in 3 MB of sheet
    XML gave a cell of 300 MB (16 s, 1 GB). Here a small one, in any encoding."""
    path = xlsx_table(proj, "turn")

    def declared(name, data):
        if name != part:
            return data
        text = data.decode().replace('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', "")
        return ('<?xml version="1.0" encoding="%s"?><!DOCTYPE x [<!ENTITY a "jungle">]>' % encoding
                + text.replace("The jungle grows", "The &a; grows")).encode(encoding)
    rezip(path, declared)
    assert errors(proj)[-1] == (f"cards/{GAME}/turn.xlsx: error: part '{part}' of the workbook declares a document "
                                "type (<!DOCTYPE>), which no spreadsheet program writes (a workbook's XML has none): "
                                "the file is damaged")


def test_a_number_typed_in_an_enum_of_texts_is_read_as_the_value_it_shows(proj):
    """A rank typed 2 in a workbook is the number 2 (a spreadsheet makes it one), and the ranks are the texts
    "A", "2"...: every such card was refused, "'2' is not a known rank (did you mean '2'?)"."""
    folder = proj / "cards" / GAME
    path = xlsx_table(proj, "cards")
    book = openpyxl.load_workbook(path)
    column = [c.value for c in book.active[1]].index("rank") + 1
    numbers = 0
    for row in range(2, book.active.max_row + 1):
        if (cell := book.active.cell(row, column)).value.isdigit():
            cell.value, numbers = int(cell.value), numbers + 1
    book.save(path)
    assert numbers == 36
    assert run(proj, "validate", GAME).exit_code == 0
    convert(proj, path, "yaml", "--out", str(folder / "back.yaml"))
    assert "rank: '2'" in (folder / "back.yaml").read_text(encoding="utf-8")


def test_a_table_reads_the_first_sheet_a_spreadsheet_program_shows_not_a_hidden_one(proj):
    """A hidden sheet before the table's was read instead: the sheet a spreadsheet opens at, and edits, printed
    nowhere, with exit 0."""
    folder = proj / "cards" / GAME
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    hidden = book.create_sheet("old turn", 0)
    hidden.append(["step", "title", "icon"])
    hidden.append([1, "An old title", "jungle"])
    hidden.sheet_state = "hidden"
    book.save(path)
    convert(proj, path, "yaml", "--out", str(folder / "back.yaml"))
    back = (folder / "back.yaml").read_text(encoding="utf-8")
    assert "The jungle grows" in back and "An old title" not in back


@pytest.mark.parametrize("row, column, value, code", [
    (3, 4, datetime.datetime(2024, 1, 2), "d-mmm"),  # a text typed "1/2", which Excel makes a date
    (3, 1, datetime.timedelta(days=3), "[h]:mm"),  # a duration in a number field
    (3, 2, datetime.time(1, 30), "h:mm"),
    (1, 6, datetime.datetime(2024, 1, 2), "d-mmm"),  # a header cell: it named its column by Python's text
])
def test_a_date_or_time_cell_is_refused_at_its_cell_naming_its_format(proj, row, column, value, code):
    """A date cell in a text field printed as Python writes it ('2024-01-02 00:00:00' where the sheet showed
    2-Jan), with exit 0; a duration or a time of day was a traceback when the table was converted to YAML. Its
    refusal said it as Python writes it too, and a header's named an unknown field so: it names its format."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active.cell(row=row, column=column, value=value).number_format = code
    book.save(path)
    message = (f"{row}:{column}: error: this cell holds a date or time (its number format is '{code}'), which pnp's "
               "data has no type for")
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:{message}") for ln in errors(proj)), errors(proj)
    result = run(proj, "convert", str(path), "--to", "yaml")
    assert result.exit_code == 1 and "Traceback" not in result.output and message.split(" error: ")[1] in result.output


def test_a_number_header_cell_names_its_column_as_the_sheet_shows_it(proj):
    """A header cell of the number 1E+20 was said 'unknown field 1e+20', Python's text, and one of 7 formatted
    000 'unknown field 7'."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    for column, (number, code) in enumerate([(1e20, "General"), (7, "000"), (-123456789012, "General")], start=6):
        book.active.cell(row=1, column=column, value=number).number_format = code
        book.active.cell(row=2, column=column, value="x")
    book.save(path)
    found = [ln.split(": error: ")[1] for ln in errors(proj) if "turn.xlsx[turn]:1:" in ln]
    assert {"unknown field '1E+20'", "unknown field '007'", "unknown field '-1.23457E+11'"} <= {
        f.split(" (")[0] for f in found}, found


@pytest.mark.parametrize("number", ["9" * 4301, "1" + "0" * 4400 + ".0e-4400", "0." + "0" * 4300 + "1"])
def test_a_csv_number_of_more_digits_than_yaml_reads_is_refused_as_yaml_refuses_it(proj, number):
    """A whole number of 4,301 digits in a CSV cell was said to be text ('expected a whole number, got text'), and
    1 written with 4,400 zeros and .0e-4400 read as 1, where the same written in YAML is refused for its digits."""
    path, rows, header = tokens_as_csv(proj)
    col = header.index("count") + 1
    cells = rows[1].split(",")
    cells[col - 1] = number
    path.write_text("\n".join([rows[0], ",".join(cells), *rows[2:]]) + "\n", encoding="utf-8")
    said = "error: a number of more than 4,300 digits cannot be read"
    assert f"cards/{GAME}/tokens.csv:2:{col}: {said}" in errors(proj)
    (proj / "cards" / GAME / "tokens.yaml").write_text(f"- {{id: a, name: A, count: {number}}}\n", encoding="utf-8")
    path.unlink()
    assert f"cards/{GAME}/tokens.yaml:1:27: {said}" in errors(proj)


def test_a_true_false_cell_in_a_text_field_prints_as_the_sheet_shows_it(proj):
    """A workbook's true/false cell shows TRUE or FALSE; in a text field it printed 'true' or 'false'."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active.cell(row=2, column=4, value=True)
    book.active.cell(row=3, column=4, value=False)
    book.save(path)
    field = book.active.cell(row=1, column=4).value
    back = proj / "cards" / GAME / "back.yaml"
    convert(proj, path, "yaml", "--out", str(back))
    texts = [row[field] for row in yaml.safe_load(back.read_text(encoding="utf-8"))[:2]]
    assert texts == ["TRUE", "FALSE"]


def test_merged_cells_are_refused_at_their_first_cell(proj):
    """A text merged down a column shows on every row in the sheet; openpyxl reads it in the first row alone and
    the others blank: the other items printed without it, with exit 0."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active.merge_cells("D3:D5")
    book.save(path)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:4: error: cells 'D3:D5' are merged")
               for ln in errors(proj)), errors(proj)


def test_a_workbook_of_more_sheets_than_pnp_reads_is_refused_before_openpyxl_opens_them(proj):
    """openpyxl opens every sheet a workbook lists as it loads it, looking each up in lists: 9,900 empty sheets
    took 10 s. Here the workbook lists its one sheet 1,001 times (sheets may share a part)."""
    from pnp.model.workbook_parts import MAX_SHEETS

    path = xlsx_table(proj, "turn")

    def more_sheets(name: str, data: bytes) -> bytes:
        if name != "xl/workbook.xml":
            return data
        sheet = re.search(rb"<sheet [^>]*/>", data)[0]
        return data.replace(sheet, b"".join(sheet.replace(b'name="', b'name="%d' % n, 1).replace(
            b'sheetId="', b'sheetId="%d' % n, 1) for n in range(MAX_SHEETS + 1)))
    rezip(path, more_sheets)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: workbook has more than {MAX_SHEETS:,} sheets")
               for ln in errors(proj)), errors(proj)


def test_a_workbook_of_more_defined_names_than_pnp_reads_is_refused_before_openpyxl_makes_them(proj):
    """openpyxl makes each defined name (a named range) an object as it loads the workbook: 98,000 of them, in
    4 MB, took 11 s."""
    path = xlsx_table(proj, "turn")
    names = b"<definedNames>" + b"".join(b'<definedName name="n%d">1</definedName>' % n for n in range(10_001)) \
        + b"</definedNames>"
    rezip(path, lambda name, data: data.replace(b"</sheets>", b"</sheets>" + names, 1)
          if name == "xl/workbook.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: workbook has more than 10,000 defined names")
               for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("part, before, elements, said", [
    ("xl/workbook.xml", b"<sheets>", (b"<bookViews>", b'<workbookView xWindow="%d"/>', b"</bookViews>"),
     "workbook has more than 20,000 elements"),
    ("[Content_Types].xml", b"</Types>", (b"", b'<Override PartName="/x%d.xml" ContentType="application/xml"/>', b""),
     "part '[Content_Types].xml' of the workbook holds more than 20,000 elements"),
])
def test_a_part_openpyxl_reads_into_objects_of_more_elements_than_pnp_reads_is_refused(proj, part, before, elements,
                                                                                        said):
    """openpyxl makes an object of each element of the parts it reads whole: 90,000 workbook views took 8 s,
    30,000 custom properties 6 s."""
    path = xlsx_table(proj, "turn")
    start, element, end = elements
    filler = start + b"".join(element % n for n in range(20_001)) + end
    rezip(path, lambda name, data: data.replace(before, filler + before, 1) if name == part else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: {said}") for ln in errors(proj)), errors(proj)


def test_a_link_to_another_workbook_of_more_elements_than_pnp_reads_is_refused(proj):
    """openpyxl reads each linked workbook's cached values whole into objects: 4 MB of them took 5 s."""
    path = xlsx_table(proj, "turn")
    link = (b'<externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><externalBook>'
            + b"<sheetNames>" + b'<sheetName val="s"/>' * 20_001 + b"</sheetNames></externalBook></externalLink>")
    rel = (b'<Relationship Id="rIdLink" Target="externalLinks/externalLink1.xml" '
           b'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLink"/>')
    rezip(path, lambda name, data: data.replace(b"</Relationships>", rel + b"</Relationships>")
          if name == "xl/_rels/workbook.xml.rels" else data)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("xl/externalLinks/externalLink1.xml", link)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: part 'xl/externalLinks/externalLink1.xml' of the "
                             "workbook holds more than 20,000 elements") for ln in errors(proj)), errors(proj)


def rezip(path, change):
    """Rewrite the workbook at `path` with change(name, bytes) -> bytes applied to each part."""
    with zipfile.ZipFile(path) as z:
        parts = [(info.filename, change(info.filename, z.read(info))) for info in z.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts:
            z.writestr(name, data)


def test_a_workbook_text_longer_than_a_cell_holds_is_refused_at_its_cell(proj):
    """A cell of 40,000 characters (no Excel cell holds more than 32,767, as it counts them: an emoji two) was read
    whole, and the YAML converted from it refused as a workbook again. 32,767 x's are read."""
    path = xlsx_table(proj, "turn")
    texts = iter(["x" * 32_767, "\U0001F996" * 16_384])  # (rows 2 and 3) 32,767 units; 32,768
    rezip(path, lambda name, data: re.sub(rb"<t>(The jungle grows|Fight dinosaurs)</t>",
                                          lambda m: b"<t>" + next(texts).encode() + b"</t>", data)
          if name == "xl/worksheets/sheet1.xml" else data)
    result = run(proj, "convert", str(path), "--to", "yaml", "--out", str(proj / "back.yaml"))
    assert result.exit_code == 1 and result.output.strip().endswith(
        f"cards/{GAME}/turn.xlsx[turn]:3:2: error: this cell holds a text of 32,768 characters as a workbook counts them, "
        "and a workbook cell holds at most 32,767 (Excel does not keep it whole): keep a text this long in a YAML "
        "table"), result.output

def test_a_sheet_whose_dimension_understates_it_is_read_whole(proj):
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    last = book.active.max_row
    book.active.cell(row=last, column=3, value="no-such-icon")
    book.save(path)
    rezip(path, lambda name, data: re.sub(rb'<dimension ref="[^"]*"', b'<dimension ref="A1:B2"', data)
          if name.startswith("xl/worksheets/") else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:{last}:3: error: icon: unknown icon 'no-such-icon'")
               for ln in errors(proj)), errors(proj)


def test_a_sheet_whose_relation_is_not_listed_is_refused_in_pnps_words(proj):
    """openpyxl's refusal was "KeyError: 'rId9'"."""
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: re.sub(rb' r:id="rId[0-9]+"', b' r:id="rId9"', data, count=1)
          if name == "xl/workbook.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: sheet 'turn' finds its part by relation 'rId9', which "
                             "the workbook's relations do not list: the file is damaged") for ln in errors(proj)), \
        errors(proj)


def test_a_sheet_whose_relation_names_a_part_of_no_cells_is_refused_never_read_as_empty(proj):
    """A workbook whose sheet's relation named its styles part was read as a sheet of no rows, the table as of no
    items, exit 0."""
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: re.sub(rb'Target="/?xl/worksheets/sheet1.xml"', b'Target="styles.xml"', data)
          if name == "xl/_rels/workbook.xml.rels" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:1:1: error: the sheet's part 'xl/styles.xml' holds a "
                             "<styleSheet>, not the <worksheet> of a sheet of cells") for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("cell, message", [
    (b'<c r="A3"', "3:1: error: cell A3 after column 2 of its row: a row's cells are in column order"),
    (b'<c r="B9"', "3:3: error: a cell named 'B9' in row 3: each cell is named by its column and its own row"),
])
def test_a_cell_out_of_its_place_is_refused_at_it_never_dropped(proj, cell, message):
    """openpyxl's reader put a cell out of column order, or named for another row, in the wrong place or left it
    out without a word: an item's value lost with exit 0. Here row 3's cells are moved or one is added."""
    path = xlsx_table(proj, "turn")

    def change(row: bytes) -> bytes:
        cells = re.findall(rb'<c r="[A-Z]+3".*?</c>', row)
        if cell == b'<c r="A3"':  # B3 first, then A3
            return row.replace(cells[0] + cells[1], cells[1] + cells[0])
        return row.replace(cells[1], cells[1] + cells[1].replace(b'r="B3"', b'r="B9"'))
    rezip(path, lambda name, data: re.sub(rb'<row r="3".*?</row>', lambda m: change(m[0]), data, count=1)
          if name == "xl/worksheets/sheet1.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:{message}") for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("size, message", [
    (2 * 2**20, "part 'xl/worksheets/sheet1.xml' of the workbook is packed "),  # ratio 1000:1
    (5 * 2**20, "part 'xl/worksheets/sheet1.xml' of the workbook unpacks to 5.0 MB; pnp reads at most 4 MB"),
])
def test_a_workbook_that_unzips_too_far_is_refused_before_it_is_read(proj, size, message):
    path = xlsx_table(proj, "turn")
    # spaces where the sheet's XML allows them: the same rows, inflated
    rezip(path, lambda name, data: data.replace(b"<sheetData>", b"<sheetData>" + b" " * size)
          if name == "xl/worksheets/sheet1.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: {message}") for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("extra, message", [
    # a part of 1,300 bzip2 bytes saying it unpacks to 1,000 inflated 1.8 GB in 10 s: zipfile bounds no bzip2 read
    ([("xl/media/a.bin", b"\x89PNG", zipfile.ZIP_BZIP2)],
     "part 'xl/media/a.bin' of the workbook is packed by method 12 (bzip2), where a spreadsheet program deflates"),
    # 200 parts of 1 MB of spaces were each inflated whole to find their first byte (5 s); here 20, all white space
    ([(f"xl/media/{n}.bin", b" " * 2**20, zipfile.ZIP_DEFLATED) for n in range(20)],
     "workbook too large: its XML parts unpack to more than 16 MB"),
])
def test_a_workbook_whose_parts_would_take_long_to_tell_is_refused_before_they_are_read(tmp_path, extra, message):
    from pnp.errors import LoadError
    from pnp.model.workbook_parts import check_parts

    path = tmp_path / "t.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>", zipfile.ZIP_DEFLATED)
        for name, data, method in extra:
            z.writestr(name, data, method)
    with zipfile.ZipFile(path) as z, pytest.raises(LoadError) as refused:
        check_parts(z, "cards/g/t.xlsx")
    assert refused.value.message.startswith(message) and str(refused.value.mark) == "cards/g/t.xlsx"


def test_a_sheet_in_a_part_not_named_xml_is_held_to_the_xml_limits(proj):
    """The XML limits went by a part's name: a sheet's XML in 'sheet1.dat' (the workbook's relations name any
    part) was parsed whole, 150 MB for 40 s and 3 GB. Here 5 MB of elements that pack 3 to 1 (no zip bomb)."""
    path = xlsx_table(proj, "turn")
    filler = b"".join(b'<x a="%s"/>' % os.urandom(8).hex().encode() for _ in range(5 * 2**20 // 24))
    rezip(path, lambda name, data: data.replace(b"</worksheet>", b"<extLst>" + filler + b"</extLst></worksheet>")
          if name == "xl/worksheets/sheet1.xml" else data.replace(b"worksheets/sheet1.xml", b"worksheets/sheet1.dat"))
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name.replace("sheet1.xml", "sheet1.dat"), data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: part 'xl/worksheets/sheet1.dat' of the workbook "
                             "unpacks to 5.") and "pnp reads at most 4 MB of XML" in ln
               for ln in errors(proj)), errors(proj)


def test_a_number_format_longer_than_any_spreadsheet_writes_is_refused(proj):
    """openpyxl tells a date format by a regular expression that takes the square of the code's length: a code
    of 100,000 '[' took 23 s to open the workbook. Here one just past the limit, on every cell's style."""
    path = xlsx_table(proj, "turn")
    code = b'<numFmts count="1"><numFmt numFmtId="164" formatCode="' + b"[" * 1001 + b'"/></numFmts>'

    def change(name: str, data: bytes) -> bytes:
        if name != "xl/styles.xml":
            return data
        data = re.sub(rb"<numFmts.*?(</numFmts>|/>)", b"", data, count=1, flags=re.S)
        return re.sub(rb'numFmtId="\d+"', b'numFmtId="164"', re.sub(rb"(<styleSheet[^>]*>)", rb"\1" + code, data))
    rezip(path, change)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: the workbook's number format '164' is 1,001 characters "
                             "long; pnp reads at most 1,000") for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("code, styles, said", [
    (b"[h" * 499, 9, "9 cell styles, with number formats of up to 998 characters"),  # each within the limit
    (b"0", 20_001, "styles hold more than 20,000 elements"),  # each a few tens of microseconds in openpyxl
])
def test_a_workbook_whose_cell_styles_ask_openpyxl_too_much_is_refused(proj, code, styles, said):
    """openpyxl tests each cell style's number format for a date, style by style, in a time growing with the
    square of the format's length: 110,000 styles of one 999-character format ran past a minute."""
    path = xlsx_table(proj, "turn")
    formats = b'<numFmts count="1"><numFmt numFmtId="164" formatCode="' + code + b'"/></numFmts>'
    xfs = b'<cellXfs count="%d">' % styles + b'<xf numFmtId="164"/>' * styles + b"</cellXfs>"

    def change(name: str, data: bytes) -> bytes:
        if name != "xl/styles.xml":
            return data
        data = re.sub(rb"<numFmts.*?(</numFmts>|/>)", b"", data, count=1, flags=re.S)
        data = re.sub(rb"<cellXfs.*?</cellXfs>", lambda _: xfs, data, count=1, flags=re.S)
        return re.sub(rb"(<styleSheet[^>]*>)", rb"\1" + formats, data)
    rezip(path, change)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: the workbook") and said in ln for ln in errors(proj)), \
        errors(proj)


@pytest.mark.parametrize("text, message", [
    ('"bell \\a"', "the text holds the control character U+0007"),  # refused as any text is, on reading
    ("x" * 32_768, "text of 32,768 characters; a workbook cell holds at most 32,767"),  # openpyxl cuts it short
    ("🦖" * 16_384, "text of 16,384 characters (32,768 as a workbook counts them, a character past U+FFFF two); "
                    "a workbook cell holds at most 32,767"),  # (Excel counts UTF-16 units)
])
def test_text_a_workbook_cannot_hold_is_refused_at_its_item(proj, text, message):
    folder = proj / "cards" / GAME
    rows = (folder / "turn.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, row in enumerate(rows, start=1) if row.startswith("  text:"))
    rows[line - 1] = f"  text: {text}"
    (folder / "turn.yaml").write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = run(proj, "convert", str(folder / "turn.yaml"), "--to", "xlsx")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cards/{GAME}/turn.yaml:{line}:9: error: {message}" in result.output
    assert not (folder / "turn.xlsx").exists()


@pytest.mark.parametrize("column", [1001, 16384])
def test_a_row_wider_than_the_limit_is_refused_at_its_row(proj, column):
    # at the value's own cell: one at XFD4, past blank cells, was named at 4:1001, where nothing is
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active.cell(row=4, column=column, value="x")
    book.save(path)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:4:{column}: error: row has more than 1,000 columns")
               for ln in errors(proj)), errors(proj)


def test_a_blank_cell_styled_past_the_limit_holds_nothing_and_is_passed_over(proj):
    """A column formatted far to the right (a fill on column 1,500, as a spreadsheet program saves it, cell by
    cell) was refused as a row of more than 1,000 columns, at column 1,001, where nothing is."""
    from openpyxl.styles import PatternFill

    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    for row in range(1, 5):
        book.active.cell(row=row, column=1500).fill = PatternFill("solid", fgColor="FFFF00")
    book.save(path)
    result = run(proj, "validate", GAME)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("separator", [",", ";"])
def test_excels_line_naming_the_delimiter_is_read_as_that_not_as_the_header(proj, separator):
    """Excel reads and writes a first line "sep=;": it was read as the header, and the file refused as 'a value in
    a column without a name'. Lines are numbered as in the file."""
    path, rows, header = tokens_as_csv(proj)
    cells = list(csv.reader(rows))
    cells[2][header.index("count")] = "many"
    text = io.StringIO(newline="")
    csv.writer(text, delimiter=separator, lineterminator="\n").writerows(cells)
    path.write_text(f"sep={separator}\n" + text.getvalue(), encoding="utf-8")
    assert {ln.split(": error: ")[0] for ln in errors(proj) if "tokens.csv" in ln} == \
        {f"cards/{GAME}/tokens.csv:4:{header.index('count') + 1}"}


@pytest.mark.parametrize("name", ["sep=|", "Sep=ab"])
def test_a_field_named_as_excels_delimiter_line_round_trips_through_csv(proj, name):
    """A table of one field named 'sep=|' is written with its header quoted, not taken for the line naming the
    delimiter when read back, nor one named 'Sep=ab' refused as a malformed one."""
    items = [{name: "a"}, {name: "b"}]
    path = add_table(proj, "marks", {f'"{name}"': "{type: str}"}, items)
    convert(proj, path, "csv")
    convert(proj, path.with_suffix(".csv"), "yaml", "--out", str(proj / "back.yaml"))
    assert yaml.safe_load((proj / "back.yaml").read_text(encoding="utf-8")) == items


def test_a_csv_row_of_millions_of_cells_is_refused_at_its_line_before_it_is_split(proj):
    """A line of 7 million cells (20 MB) was split whole into a list of them all (700 MB, 4.5 s) before its
    length was checked; its cells are counted first. A quoted cell's delimiters and line breaks are not counted."""
    path, rows, header = tokens_as_csv(proj)
    spans = f'"a, quoted\ncell{"," * 2_000}",x'  # one row of two cells, on two lines
    path.write_text("\n".join([*rows, spans, "ab," * 3_000_000]) + "\n", encoding="utf-8")
    assert errors(proj) == [f"cards/{GAME}/tokens.csv:{len(rows) + 3}:1001: error: row has more than 1,000 columns"]



def test_blank_csv_cells_past_the_limit_are_passed_over_as_a_workbooks_are(proj):
    """A spreadsheet program writes a row's empty cells up to the end of its used range: a CSV whose rows run
    blank past the 1,000th cell was refused as rows of more than 1,000 columns, where the same blank cells in a
    workbook are passed over. A row of a million empty cells is read too; a value past them is still refused,
    at its row and its own column, and so is a quoted blank's neighbour that holds a character."""
    path, rows, header = tokens_as_csv(proj)
    wide = [rows[0] + "," * 1_500, *(row + ',""' + "," * 1_000 for row in rows[1:-1]), rows[-1] + "," * 1_000_000]
    back = ["convert", str(path), "--to", "yaml", "--out", str(proj / "back.yaml"), "--force"]
    path.write_text("\n".join(wide) + "\n", encoding="utf-8")
    assert run(proj, *back).exit_code == 0
    assert len(yaml.safe_load((proj / "back.yaml").read_text(encoding="utf-8"))) == len(rows) - 1
    cells = len(next(csv.reader([rows[-1]])))
    for last, column in ((rows[-1] + "," * 2_000 + "x", cells + 2_000), (rows[-1] + "," * 1_000 + '""," ."', cells + 1_001),
                         (rows[-1] + ',"  "' * 1_200 + ",x", cells + 1_201)):
        path.write_text("\n".join([*wide, last]) + "\n", encoding="utf-8")
        result = run(proj, *back)
        assert result.exit_code == 1 and result.output.strip().endswith(
            f"cards/{GAME}/tokens.csv:{len(rows) + 1}:{column}: error: row has more than 1,000 columns"), result.output

def _hide_row(ws):
    ws.auto_filter.ref = ws.dimensions  # a filter hides the row
    ws.row_dimensions[3].hidden = True


def _hide_rows_by_default(ws):
    ws.sheet_format.zeroHeight = True  # rows of no height of their own are hidden: the third has none
    for row in range(1, ws.max_row + 1):
        ws.row_dimensions[row].height = None if row == 3 else 15


def _hide_column(ws):
    ws.column_dimensions["B"].hidden = True


def _shrink_row(ws):
    ws.row_dimensions[3].height = 0.01  # a row no pixel high: read and printed, exit 0, as the sheet showed none


def _shrink_column(ws):
    ws.column_dimensions["B"].width = 0.01


def _hide_columns_by_default(ws):
    ws.sheet_format.defaultColWidth = 0  # columns of no width of their own are hidden: the second has none
    ws.column_dimensions["A"].width = 12


@pytest.mark.parametrize("hide, cell, what", [(_hide_row, "3:1", "row is hidden (by hand, by a filter"),
                                              (_hide_rows_by_default, "3:1", "row is hidden (by hand, by a filter"),
                                              (_hide_column, "1:2", "column is hidden (by hand"),
                                              (_hide_columns_by_default, "1:2", "column is hidden (by hand"),
                                              (_shrink_row, "3:1", "row is hidden (by hand, by a filter, by a height"),
                                              (_shrink_column, "1:2", "column is hidden (by hand, by a width")])
def test_a_hidden_row_or_column_holding_a_value_is_refused_at_its_first_cell(proj, hide, cell, what):
    """A row hidden by a filter was read as an item, and a hidden column as a field, with exit 0: the sheet
    shows the table without them."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    hide(book.active)
    book.save(path)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:{cell}: error: this cell's {what}")
               for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("before, after, cell, what", [
    (b'<row r="3"', b'<row r="3" ht="0" customHeight="1"', "3:1", "row is hidden (by hand, by a filter, by a height"),
    (b"<sheetData>", b'<cols><col min="1" max="16384" width="0" customWidth="1"/></cols><sheetData>', "1:1",
     "column is hidden (by hand, by a width"),
    (b'defaultRowHeight="15"', b'defaultRowHeight="0.01" customHeight="1"', "1:1",
     "row is hidden (by hand, by a filter, by a height")])
def test_a_row_or_column_of_no_size_hidden_in_no_other_way_is_refused_at_its_first_cell(proj, before, after, cell, what):
    """A row of a height of 0 marked as set by hand (customHeight) but not hidden, and one <col> giving every
    column of a sheet (1 to 16,384) a width of 0, show nothing as a hidden row or column does (openpyxl writes
    neither: the sheet's XML is changed here). So does a sheet's default row height of 0.01 for every row of no
    height of its own: read and printed, exit 0."""
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: data.replace(before, after, 1) if name.startswith("xl/worksheets/") else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:{cell}: error: this cell's {what}")
               for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("code", [";;;", ";-0;0"])
def test_a_number_its_format_shows_as_nothing_is_refused_at_its_cell(proj, code):
    """A step numbered 2 formatted ;;; was read as 2 where the sheet showed a blank cell (exit 0)."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active["A3"].number_format = code
    book.save(path)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:1: error: this number cell (2) is formatted as")
               for ln in errors(proj)), errors(proj)


def test_a_zero_the_sheets_view_shows_as_blank_is_refused_at_its_cell(proj):
    """With Excel's "Show a zero in cells that have zero value" off, a cell holding 0 showed blank, and was read as
    0 (printed on the card in a text field), exit 0."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active.sheet_view.showZeros = False
    book.active["A3"] = 0
    book.save(path)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:1: error: this number cell holds 0, and the sheet's view")
               for ln in errors(proj)), errors(proj)

def test_a_row_numbered_past_a_sheets_last_row_is_refused_not_walked_to(proj):
    """openpyxl yields every missing row up to a row's number, one by one: a billion of them ran for minutes. Said at
    the row it stands in, after row 2 (it was said at no line)."""
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: re.sub(rb'<row r="3"(.*?)</row>', lambda m: re.sub(
        rb'r="([A-Z]+)3"', rb'r="\g<1>999999999"', m[0].replace(b'<row r="3"', b'<row r="999999999"')),
        data, count=1) if name == "xl/worksheets/sheet1.xml" else data)
    assert f"cards/{GAME}/turn.xlsx[turn]:3:1: error: a row is numbered past 1,048,576" in "\n".join(errors(proj))


def test_an_array_formula_is_named_by_its_text(proj):
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: re.sub(rb'<c r="D3"[^>]*>.*?</c>', b'<c r="D3"><f t="array" ref="D3">SUM(1,3)'
                                          b'</f><v>4</v></c>', data, count=1)
          if name == "xl/worksheets/sheet1.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:4: error: this cell holds a formula ('=SUM(1,3)')")
               for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("number, said", [(b"0", "a row numbered 0 after row 2"),  # row 3 numbered 0
                                          (b"2", "a row numbered 2 after row 2"),  # row 3 numbered again 2
                                          (b"-7", "a row numbered -7 after row 2")])
def test_a_row_out_of_order_is_refused_at_its_place_not_left_out(proj, number, said):
    """openpyxl's reader left out a row numbered 0 or less, or not after the row before it: an item lost."""
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: data.replace(b'<row r="3"', b'<row r="' + number + b'"', 1)
          if name == "xl/worksheets/sheet1.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:1: error: {said}") for ln in errors(proj)), \
        errors(proj)


def test_a_sheet_holds_no_more_values_than_the_same_items_in_yaml(tmp_path, monkeypatch):
    # a row of four cells counts as YAML counts its item (each value in every list and mapping around it: 18),
    # not 4: 99,000 rows passed the loader and took 11 s to validate; the limit is made small here
    from pnp.model import spreadsheet
    monkeypatch.setattr(spreadsheet, "MAX_EXPANDED_VALUES", 1000)
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    rows = "".join(f"c{i},N,beast,4\n" for i in range(60))
    (root / "cards" / "mini" / "cards.csv").write_text("id,name,kind,power\n" + rows, encoding="utf-8")
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "cards/mini/cards.csv:57:1: error: more than 1,000 values" in result.stderr  # 56 rows x 18 > 1,000


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_field_whose_name_yaml_reads_as_no_text_round_trips(tmp_path, fmt):
    # game.yaml's `no:` is the field False and `1:` the field 1: convert to xlsx was a TypeError traceback, and a
    # sheet's header cell, text, named no field ("unknown field 'False' (did you mean 'False'?)")
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [["      text: {type: text, default: \"\"}",
                                  "      text: {type: text, default: \"\"}\n      no: {type: str}\n      1: {type: int}"]],
        "cards/mini/cards.yaml": [["  power: 4\n", "  power: 4\n  no: hi\n  1: 7\n"]]}})
    for item in ("fern", "wolf", "moss"):
        text = (root / "cards/mini/cards.yaml").read_text(encoding="utf-8")
        (root / "cards/mini/cards.yaml").write_text(text.replace(f"id: {item}\n", f"id: {item}\n  no: x\n  1: 2\n"))
    _round_trips_and_validates(root, fmt)


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_an_enum_of_true_false_and_number_values_round_trips_and_validates(tmp_path, fmt):
    # the cell of the enum value true is written 'true' and was matched against str(True), 'True': read back as
    # the text 'true', no value of the enum, in the sheet and in the YAML converted back
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [["      text: {type: text, default: \"\"}",
                                  "      text: {type: text, default: \"\"}\n"
                                  "      seal: {type: enum, values: [true, 1, '01', 'null'], required: false}"]]}})
    cards = (root / "cards/mini/cards.yaml").read_text(encoding="utf-8")
    for item, seal in (("lion", "true"), ("fern", "1"), ("wolf", "'01'"), ("moss", "'null'")):
        cards = cards.replace(f"id: {item}\n", f"id: {item}\n  seal: {seal}\n")
    (root / "cards/mini/cards.yaml").write_text(cards, encoding="utf-8")
    convert(root, root / "cards/mini/cards.yaml", fmt)
    convert(root, root / f"cards/mini/cards.{fmt}", "yaml", "--out", str(root / "back.yaml"))
    back = yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8"))
    assert [(item["seal"], type(item["seal"])) for item in back] == [(True, bool), (1, int), ("01", str), ("null", str)]
    if fmt == "xlsx":  # (Excel's message on a value typed outside the drop-down said Python's 'True')
        rule = openpyxl.load_workbook(root / "cards/mini/cards.xlsx").active.data_validations.dataValidation[-1]
        assert rule.error == "seal is one of: TRUE, 1, 01, null"
    (root / "cards/mini/cards.yaml").unlink()
    result = run(root, "validate")
    assert result.exit_code == 0, result.output


def test_cells_of_yaml_flow_text_share_the_tables_count_of_values(tmp_path):
    # each cell of a list field was its own YAML text, allowed the game's whole count of values: a row holding
    # a short alias bomb (111,110 values in 240 characters) was counted as one value, and 60 such rows took 27 s
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None}, case={"replace": {
        "cards/mini/game.yaml": [["      text: {type: text, default: \"\"}",
                                  "      text: {type: text, default: \"\"}\n      tags: {type: list, required: false}"]]}})
    levels = ["&a0 [x, x, x, x, x, x, x, x, x, x]"] + [f"&a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 5)]
    rows = "".join(f'c{i},N,beast,4,"[{", ".join(levels)}]"\n' for i in range(60))
    (root / "cards" / "mini" / "cards.csv").write_text("id,name,kind,power,tags\n" + rows, encoding="utf-8")
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "cards/mini/cards.csv:3:5: error: more than 600,000 values with the game's other data files" \
        in result.stderr, result.stderr  # (the second row: each cell counts its values as a file would)


@pytest.mark.parametrize("cell, message", [
    (b'<c r="B3" t="s"><v>-1</v></c>', "this cell refers to shared text '-1', and the workbook has "),  # (was its last)
    (b'<c r="B3" t="s"><v>9999</v></c>', "this cell refers to shared text '9999', and the workbook has "),
    (b'<c r="B3" t="n"><v>nan</v></c>', "this number cell holds 'nan', which is no finite number"),
    (b'<c r="B3"><v>1e999</v></c>', "this number cell holds '1e999', which is no finite number"),  # (was inf)
    (b'<c r="B3" t="n"><v>12 monkeys</v></c>', "this number cell holds '12 monkeys', which is no finite number"),
    (b'<c r="B3" t="b"><v>7</v></c>', "this true/false cell holds '7'; a workbook writes 1 or 0"),  # (was true)
    (b'<c r="B3" t="d"><v>soon</v></c>', "this date cell holds 'soon', which is no date"),
    (b'<c r="B3" t="e"><v>#N/A</v></c>', "this cell holds the error value '#N/A'"),  # (was the text #N/A)
    (b'<c r="B3" s="x"><v>4</v></c>', "this cell's style is 'x', where a workbook writes a number"),
    (b'<c r="B3" s="999"><v>4</v></c>', "this cell's style is '999', and the workbook has "),  # (a refusal of no cell)
    # each read as blank, as another text or as text, without a word
    (b'<c r="B3" t="inlineStr"><v>Roll</v></c>', "this cell of type 'inlineStr' holds a <v>"),
    (b'<c r="B3" t="s"><is><t>Roll</t></is></c>', "this cell of type 's' holds a <is>"),
    (b'<c r="B3" t="inlineStr"><is><t>Ro</t><t>ll</t></is></c>', "this cell holds a part twice"),
    (b'<c r="B3"><v>1</v><v>2</v></c>', "this cell holds a part twice"),
    (b'<c r="B3" t="inlineStr"><is><r><t>Ro</t><t>ll</t></r></is></c>', "this cell holds a part twice"),  # ('ll')
    # a value or a text of another namespace: read as blank
    (b'<c r="B3" t="inlineStr"><is xmlns="urn:q"><t>Roll</t></is></c>', "this cell holds a <is> element of namespace 'urn:q'"),
    (b'<c r="B3" t="n"><q:v xmlns:q="urn:q">1</q:v></c>', "this cell holds a <v> element of namespace 'urn:q'"),
    (b'<c r="B3" s=""><v>1</v></c>', "this cell's style is '', where a workbook writes a number"),  # (a TypeError)
    (b'<c r="B3" t="text"><v>Roll</v></c>', "this cell's type is 'text', which is none of a workbook's"),
    # read up to the element, exit 0: 'Ro', 1
    (b'<c r="B3" t="inlineStr"><is><t>Ro<x/>ll</t></is></c>', "this text holds a <x> element inside it"),
    (b'<c r="B3"><v>1<x/>2</v></c>', "this cell's <v> holds an element inside its text"),
])
def test_a_damaged_cell_is_refused_at_its_cell(proj, cell, message):
    """A cell whose value openpyxl cannot read failed the whole workbook, naming the file alone; some it read
    as something else without a word. Here the workbook is saved by openpyxl (its texts shared), then row 3's
    second cell is damaged."""
    path = xlsx_table(proj, "turn")
    openpyxl.load_workbook(path).save(path)
    rezip(path, lambda name, data: re.sub(rb'<c r="B3".*?</c>', cell, data, count=1)
          if name == "xl/worksheets/sheet1.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:2: error: {message}") for ln in errors(proj)), \
        errors(proj)


@pytest.mark.parametrize("cells, said", [
    # a formula of 4,500 characters, then 2,000 cells sharing it: openpyxl parsed it again for each (16,000 cells
    # sharing one of 72,000 characters ran past a minute)
    (b'<c r="A3"><f t="shared" si="0" ref="A3:BZZ3">' + b"+".join(b"A%d" % n for n in range(1, 900)) + b"</f><v>1</v></c>"
     + b"".join(b'<c r="%s3"><f t="shared" si="0"/><v>1</v></c>' % openpyxl.utils.get_column_letter(column).encode()
                for column in range(2, 2000)), "this cell holds a formula ('=A1+A2+A3+"),
    (b'<c r="A3"><f t="shared" si="0"/><v>2</v></c>', "this cell holds a formula (one shared from another cell)"),
])
def test_a_formula_is_refused_at_its_cell_before_openpyxl_reads_it(proj, cells, said):
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: re.sub(rb'<c r="A3".*?</c>', lambda _: cells, data, count=1)
          if name == "xl/worksheets/sheet1.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:1: error: {said}") for ln in errors(proj)), errors(proj)


def test_a_cell_style_of_a_number_format_the_workbook_has_not_is_refused_at_the_cell(proj):
    """An IndexError refused the workbook, naming no cell."""
    path = xlsx_table(proj, "turn")  # (the header's cells are of style 1)
    rezip(path, lambda name, data: data.replace(b'<xf numFmtId="0" fontId="1"', b'<xf numFmtId="300" fontId="1"')
          if name == "xl/styles.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:1:1: error: this cell's style (1) has number format 300, "
                             "which the workbook's styles do not hold") for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("extra", [b"<si><t>extra</t></si>", b'<q:si xmlns:q="urn:q"><t>extra</t></q:si>'])
def test_a_shared_text_out_of_its_place_is_refused_never_counted(proj, extra):
    """A <si> inside another, or of another namespace, was counted among the shared texts: every later cell read
    the text after its own, exit 0."""
    path = xlsx_table(proj, "turn")
    _with_shared_texts(path)
    rezip(path, lambda name, data: data.replace(b"<t>step</t></si>", b"<t>step</t>" + extra + b"</si>", 1)
          if name == "xl/sharedStrings.xml" else data)
    assert f"cards/{GAME}/turn.xlsx: error: the workbook's shared texts hold a <si> element out of its place" in \
        "\n".join(errors(proj))


@pytest.mark.parametrize("cell, said", [
    (b'<c r="D3" t="e"><v>#DIV/0!</v></c>', "this cell holds the error value '#DIV/0!'"),  # was printed as text
    (b'<c r="D3" t="s"><v>99999</v></c>', "this cell refers to shared text '99999'"),
    (b'<c r="D3" t="n"><v>abc</v></c>', "this number cell holds 'abc', which is no finite number"),
    (b'<c r="D3" t="d"><v>soon</v></c>', "this date cell holds 'soon', which is no date"),
    (b'<c r="D3" t="n"><v>1e999</v></c>', "this number cell holds '1e999', which is no finite number"),  # was 'inf'
    (b'<c r="D3" t="inlineStr"><is><t>&undefined;</t></is></c>', "the sheet's XML cannot be read (undefined entity"),
    # 5,000 digits, zeros first: Python's int() refuses them (the workbook was refused in its words, naming no cell)
    (b'<c r="D3" t="s"><v>' + b"0" * 5000 + b'1</v></c>', "this cell refers to shared text '000"),
    (b'<c r="D3" s="' + b"0" * 5000 + b'1"><v>1</v></c>', "this cell's style is '000"),
    (b'<c r="D3" t="n"><v>' + b"0" * 5000 + b'1</v></c>', "this number cell holds '000"),  # (5,001 characters long)
    # more digits than a spreadsheet keeps, written by another program: the sheet shows 1.23457E+19 and holds
    # 12345678901234600000, where all 20 digits were read and printed, exit 0
    (b'<c r="D3"><v>12345678901234567890</v></c>', "this number cell holds the whole number 12345678901234567890, "
     "20 digits, and a spreadsheet keeps a number in 15 significant digits: it holds 12345678901234600000 and shows "
     "1.23457E+19"),
    (b'<c r="D3"><v>9007199254740993</v></c>', "this number cell holds the whole number 9007199254740993, 16"),
])
def test_a_cell_openpyxl_cannot_read_or_reads_as_an_error_is_refused_at_the_cell(proj, cell, said):
    """A value that does not read as its type says was refused for the whole workbook, with no cell named;
    an error value (#DIV/0!, #VALUE!) or a number past a float's range was printed on the card as it reads."""
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: re.sub(rb'<c r="D3"[^>]*>.*?</c>', cell, data, count=1)
          if name == "xl/worksheets/sheet1.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:4: error: {said}") for ln in errors(proj)), \
        errors(proj)


def test_xml_that_cannot_be_read_after_a_row_of_5000_digits_is_refused_at_that_row(proj):
    # the row's number, read to say where the XML broke, was int() of 5,000 digits: the workbook was refused in
    # Python's words ("Exceeds the limit (4300 digits)"), no sheet or row named; a row past the last is the next
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: re.sub(rb'<c r="D3"[^>]*>.*?</c>', b'<c r="D3"><v>1</v><x></c>',
                                          data.replace(b'<row r="3"', b'<row r="' + b"1" * 5000 + b'"'), count=1)
          if name == "xl/worksheets/sheet1.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:3:4: error: the sheet's XML cannot be read")
               for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("fmt, field, text, said", [
    ("csv", "title", '""', "no characters"),  # required: its blank cell read back as missing
    ("xlsx", "text", '"  "', "only spaces"),  # its blank cell read back as the default, ""
    ("xlsx", "title", ".inf", ".inf, not a finite number"),  # written as an empty number cell: read back as left out
    ("csv", "text", ".NaN", ".nan, not a finite number"),  # read back as the text 'nan' (said as YAML writes it)
])
def test_a_blank_text_a_blank_cell_cannot_give_back_is_refused_at_its_item(proj, fmt, field, text, said):
    folder = proj / "cards" / GAME
    rows = (folder / "turn.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, row in enumerate(rows, start=1) if row.startswith(f"  {field}:"))
    rows[line - 1] = f"  {field}: {text}"
    (folder / "turn.yaml").write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = run(proj, "convert", str(folder / "turn.yaml"), "--to", fmt)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cards/{GAME}/turn.yaml:{line}:{len(field) + 5}: error: '{field}' is {'' if 'finite' in said else 'a text of '}{said}" \
        in result.output
    assert not (folder / f"turn.{fmt}").exists()


def test_a_number_a_workbook_cell_cannot_hold_exactly_round_trips_as_its_text(proj):
    """openpyxl writes a number cell with 16 digits: 10**23 came back as 9.999999999999999e+22, 0.1 + 0.2 as 0.3."""
    folder = proj / "cards" / GAME
    turn = yaml.safe_load((folder / "turn.yaml").read_text(encoding="utf-8"))
    turn[0]["step"], turn[1]["step"], turn[2]["weight"] = 10**23, 2**53 + 1, 0.1 + 0.2
    (folder / "turn.yaml").write_text(yaml.safe_dump(turn, sort_keys=False), encoding="utf-8")
    convert(proj, folder / "turn.yaml", "xlsx")
    convert(proj, folder / "turn.xlsx", "yaml", "--out", str(proj / "back.yaml"))
    assert yaml.safe_load((proj / "back.yaml").read_text(encoding="utf-8")) == turn
    cells = list(openpyxl.load_workbook(folder / "turn.xlsx").active.iter_rows(min_row=2, max_col=1, values_only=True))
    assert cells[3] == (4,)  # a number a cell holds exactly stays a number, for sorting and sums


def test_a_written_workbook_bears_no_time_of_writing(proj):
    """The same data gives the same file: book.save() stamped its modified date and each zip entry the time of
    writing, so two converts of one table were two files."""
    folder = proj / "cards" / GAME
    convert(proj, folder / "turn.yaml", "xlsx")
    with zipfile.ZipFile(folder / "turn.xlsx") as book:
        assert {entry.date_time for entry in book.infolist()} == {(2000, 1, 1, 0, 0, 0)}
    assert openpyxl.load_workbook(folder / "turn.xlsx").properties.modified.year == 2000


def test_a_number_a_workbook_cell_gives_back_as_another_type_round_trips_as_its_text(proj):
    """A cell's whole number is read as an int below 2**53 only: 2**63 came back a float, which the int field
    then refused, and 3.0 or -0.0 came back the int 3 or 0, printed so on the cards."""
    folder = proj / "cards" / GAME
    turn = yaml.safe_load((folder / "turn.yaml").read_text(encoding="utf-8"))
    turn[0]["step"], turn[1]["step"], turn[2]["weight"], turn[3]["weight"] = 2**63, 10**20, 3.0, -0.0
    (folder / "turn.yaml").write_text(yaml.safe_dump(turn, sort_keys=False), encoding="utf-8")
    convert(proj, folder / "turn.yaml", "xlsx")
    convert(proj, folder / "turn.xlsx", "yaml", "--out", str(proj / "back.yaml"))
    assert (proj / "back.yaml").read_text(encoding="utf-8") == yaml.safe_dump(turn, allow_unicode=True,
                                                                               sort_keys=False, width=110)


@pytest.mark.parametrize("table, sheet", [("ca:rds/[1]", "ca_rds__1_"), ("pnp lists", "pnp lists"),
                                          ("pnp liſts", "pnp liſts"),  # (one name without case, not lower())
                                          ("🦖" * 20, "🦖" * 15),  # (31 UTF-16 units: Excel repaired 20 emoji)
                                          ("history", "history_")])  # (a name Excel keeps for itself)
def test_a_table_whose_name_no_sheet_can_bear_converts_and_offers_its_own_drop_downs(proj, table, sheet):
    """A name with a character Excel refuses in a sheet's name was a traceback; one the same as the hidden
    sheet of drop-down values made the drop-downs offer the table's own first column."""
    folder = proj / "cards" / GAME
    game = (folder / "game.yaml").read_text(encoding="utf-8")
    (folder / "game.yaml").write_text(game.replace("\n  cards:\n", f'\n  "{table}":\n    file: cards.yaml\n', 1),
                                      encoding="utf-8")
    convert(proj, folder / "cards.yaml", "xlsx")
    convert(proj, folder / "cards.xlsx", "yaml", "--out", str(proj / "back.yaml"))
    assert yaml.safe_load((proj / "back.yaml").read_text(encoding="utf-8")) == \
        yaml.safe_load((folder / "cards.yaml").read_text(encoding="utf-8"))
    book = openpyxl.load_workbook(folder / "cards.xlsx")
    assert book.worksheets[0].title == sheet
    rule = book.worksheets[0].data_validations.dataValidation[0]
    assert book[rule.formula1.split("!")[0].strip("'")].sheet_state == "hidden"


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_text_holding_a_character_yaml_reads_as_a_line_end_converts_to_yaml_pnp_reads(proj, fmt):
    """A sheet's text with U+2028 (or U+2029, U+0085) was written into the YAML as it is, a file pnp then
    refuses ('not allowed in YAML text'); a list's flow text in a cell too. Now they are escaped (\\L)."""
    folder = proj / "cards" / GAME
    turn = yaml.safe_load((folder / "turn.yaml").read_text(encoding="utf-8"))
    turn[0]["title"], turn[1]["text"] = "Grow\u2028now", "Fight\u2029 them"
    (folder / "turn.yaml").write_text(yaml.safe_dump(turn, sort_keys=False), encoding="utf-8")  # escaped: \L, \P
    convert(proj, folder / "turn.yaml", fmt)
    convert(proj, folder / f"turn.{fmt}", "yaml", "--out", str(folder / "back.yaml"))
    back = (folder / "back.yaml").read_text(encoding="utf-8")
    assert not re.search("[\u0085\u2028\u2029]", back) and yaml.safe_load(back) == turn


def add_table(proj, name, fields, items):
    """A table `name` of these fields (game.yaml's flow text) and items added to the game, in YAML."""
    folder = proj / "cards" / GAME
    game = folder / "game.yaml"
    spec = "".join(f"      {field}: {kind}\n" for field, kind in fields.items())
    game.write_text(game.read_text(encoding="utf-8").replace("tables:\n", f"tables:\n  {name}:\n    fields:\n{spec}",
                                                             1), encoding="utf-8")
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(items, sort_keys=False), encoding="utf-8")
    return folder / f"{name}.yaml"


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_cell_naming_an_id_or_an_icon_that_looks_like_a_number_is_read_as_that_name(proj, fmt):
    """A ref cell is read as the id it names is: '007' and '10' were read as the numbers 7 and 10, no id (the
    game validated in YAML, not in the spreadsheet), and converted back to YAML as those numbers with exit 0; an
    icon's cell is read as its name (an icon named 12 was unknown)."""
    icons = proj / "layouts" / "shared" / "icons"
    shutil.copy(next(icons.glob("*.svg")), icons / "12.svg")
    items = [{"id": "10", "next": "007", "icon": "12"}, {"id": "007", "next": "10", "suit": "hearts"}]
    path = add_table(proj, "codes", {"id": "{type: id}", "next": "{type: ref, table: codes, required: false}",
                                     "suit": "{type: ref, table: suits, required: false}",
                                     "icon": "{type: icon, required: false}"}, items)
    convert(proj, path, fmt)
    path.unlink()
    result = run(proj, "validate", GAME)
    assert result.exit_code == 0, result.output
    convert(proj, path.with_suffix(f".{fmt}"), "yaml")
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == items


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_an_item_of_no_value_is_refused_at_it_not_lost_in_a_blank_row(proj, fmt):
    """An item leaving every field to its default validates in YAML; a spreadsheet's blank row is no item, so
    converted it was left out (4 items written, 3 read back, exit 0)."""
    path = add_table(proj, "marks", {"name": "{type: str, default: mark}"}, [{"name": "a"}, {}, {"name": "b"}])
    result = run(proj, "convert", str(path), "--to", fmt)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cards/{GAME}/marks.yaml:2:3: error: this item gives no value" in result.output
    assert not path.with_suffix(f".{fmt}").exists()


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_sheet_of_many_blank_cells_is_refused_at_the_row_past_the_limit(proj, fmt, monkeypatch):
    """Rows of 1,000 blank cells each (a CSV of commas, a workbook row naming cell ALL3) were each looked at:
    40,000 of them took 30 s. The limit is lowered here to keep the test fast."""
    monkeypatch.setattr("pnp.model.spreadsheet.MAX_CELLS", 5_000)
    path = add_table(proj, "marks", {"name": "{type: str}"}, [{"name": "a"}])
    convert(proj, path, fmt)
    path.unlink()
    path = path.with_suffix(f".{fmt}")
    if fmt == "csv":
        path.write_text(path.read_text(encoding="utf-8") + ("," * 999 + "\n") * 10, encoding="utf-8")
    else:
        book = openpyxl.load_workbook(path)
        for row in range(3, 13):
            book.active.cell(row=row, column=1000).number_format = "0.00"  # a blank cell, kept by its style
        book.save(path)
    shown = f"cards/{GAME}/marks.{fmt}" + ("[marks]" if fmt == "xlsx" else "")
    assert f"{shown}:7:1: error: sheet has more than 5,000 cells in its rows" in "\n".join(errors(proj))


@pytest.mark.parametrize("typed, fmt, said", [
    ("base_camp: true, roll: 1", "xlsx", None),  # a true/false cell and a number cell give them back
    ("base_camp: true", "csv", "'base_camp' is true (true/false), which its cell would give back as 'true'"),
    ("reach: 100.0", "csv", None),
    ("id_text: '10'", "xlsx", "'id_text' is '10' (text), which its cell would give back as 10"),
])
def test_a_derived_field_typed_by_hand_round_trips_or_is_refused(proj, typed, fmt, said):
    """A column game.yaml gives no type (a derived field, typed by hand) was read as a number when it looked
    like one, else as text: a typed-in '10' came back as 10, true as 'true', each then not the value computed
    (validate refused the converted table, exit 0 from convert)."""
    folder = proj / "cards" / GAME
    game = folder / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("    derived:\n", "    derived:\n      id_text: \"'10'\"\n",
                                                             1), encoding="utf-8")
    cards = folder / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("suit: spades}", f"suit: spades, {typed}}}", 1),
                     encoding="utf-8")
    result = run(proj, "convert", str(cards), "--to", fmt)
    if said:
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert f"cards/{GAME}/cards.yaml:30:" in result.output and said in result.output, result.output
        return
    assert result.exit_code == 0, result.output
    convert(proj, cards.with_suffix(f".{fmt}"), "yaml", "--out", str(proj / "back.yaml"))
    assert yaml.safe_load((proj / "back.yaml").read_text(encoding="utf-8")) == yaml.safe_load(
        cards.read_text(encoding="utf-8"))


def test_a_chart_sheet_is_named_never_read(proj):
    """A chart sheet holds no cells: `sheet:` naming one was refused as "AttributeError: 'Chartsheet' object has
    no attribute '_get_source'", and any workbook holding one with no drawing as "AttributeError: 'list'
    object has no attribute 'find'" (openpyxl read its charts, and opened their pictures with Pillow). A chart
    sheet first is passed over for the first sheet of cells; a workbook of charts alone is refused by name."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.create_chartsheet("chart", 0)
    book["turn"].title = "turn "  # (its names are quoted: listed unquoted, a trailing space could not be seen)
    book.save(path)
    assert run(proj, "validate", GAME).exit_code == 0
    game = proj / "cards" / GAME / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("  turn:\n", "  turn:\n    sheet: chart\n"),
                    encoding="utf-8")
    said = errors(proj)  # (at the `sheet:` naming it, the line below `turn:`)
    line = game.read_text(encoding="utf-8").splitlines().index("    sheet: chart") + 1
    assert f"cards/{GAME}/game.yaml:{line}:12: error: sheet 'chart' of 'cards/{GAME}/turn.xlsx' is a chart sheet, " \
           "which holds no cells; its sheets of cells: 'turn '" in said
    charts = openpyxl.Workbook()
    charts.remove(charts.active)
    charts.create_chartsheet("chart")
    charts.save(path)
    game.write_text(game.read_text(encoding="utf-8").replace("    sheet: chart\n", ""), encoding="utf-8")
    assert f"cards/{GAME}/turn.xlsx: error: workbook has no sheet of cells (its chart sheets hold none: 'chart')" \
           in errors(proj)


def test_a_sheet_openpyxl_leaves_out_is_refused_never_passed_over(proj):
    """openpyxl leaves out a sheet listed without its part (as it reads a Strict Open XML workbook's), with a
    warning printed under its own file's name: the next sheet was read instead, or the workbook was refused as
    "IndexError: list index out of range". Here the table's sheet has lost its link to its part."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.create_sheet("notes")
    book.save(path)
    rezip(path, lambda name, data: data.replace(b' r:id="rId1"', b"") if name == "xl/workbook.xml" else data)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        found = errors(proj)
    assert f"cards/{GAME}/turn.xlsx: error: workbook lists 2 sheets, of which 1 can be read (a sheet without its " \
           "part, or a workbook saved as Strict Open XML): save it as an Excel Workbook (.xlsx)" in found, found
    assert not [w for w in said if "openpyxl" in w.filename], [str(w.message) for w in said]


@pytest.mark.parametrize("move, column", [
    (lambda row, cell: row.replace(cell, b"") + cell, 4),  # the cell beside its row, in <sheetData>
    (lambda row, cell: row.replace(cell, cell.replace(b"<c ", b'<x:c xmlns:x="urn:x" ')  # another namespace's
                                   .replace(b"</c>", b"</x:c>")), 4),
])
def test_a_cell_out_of_its_row_is_refused_never_dropped_or_misplaced(proj, move, column):
    """openpyxl reads every element in a row as a cell, and none beside it: row 3's text beside its row was lost,
    and an element of another kind in a row was read as a cell unseen by pnp's checks (a title was replaced and
    the rest of its row lost), each with exit 0."""
    path = xlsx_table(proj, "turn")

    def change(data: bytes) -> bytes:
        row = re.search(rb'<row r="3".*?</row>', data)[0]
        cell = re.search(rb'<c r="D3".*?</c>', row)[0]
        return data.replace(row, move(row, cell))
    rezip(path, lambda name, data: change(data) if name == "xl/worksheets/sheet1.xml" else data)
    assert f"cards/{GAME}/turn.xlsx[turn]:3:{column}: error: a <c> element where a sheet holds none (its cells " \
           "are each in a <row> of its <sheetData>): the file is damaged; save it again from the spreadsheet " \
           "program" in errors(proj), errors(proj)


def test_the_cells_of_a_games_sheets_together_are_bounded(proj, monkeypatch):
    """Blank cells hold no value, so many tables reading one sheet of them each read it whole: 40 tables reading
    a CSV of 1,000,000 blank cells took 40 s. The game's sheets share one allowance of cells (lowered here)."""
    for module in ("load", "spreadsheet"):
        monkeypatch.setattr(f"pnp.model.{module}.MAX_GAME_CELLS", 5_000)
    path = add_table(proj, "marks", {"name": "{type: str}"}, [{"name": "a"}])
    convert(proj, path, "csv")
    path.unlink()
    csv = path.with_suffix(".csv")
    csv.write_text(csv.read_text(encoding="utf-8") + ("," * 99 + "\n") * 30, encoding="utf-8")  # 3,000 cells
    game = proj / "cards" / GAME / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "tables:\n", "tables:\n  marks2:\n    file: marks.csv\n    fields:\n      name: {type: str}\n", 1),
        encoding="utf-8")
    assert f"cards/{GAME}/marks.csv:22:1: error: the game's spreadsheets hold more than 5,000 cells together (each " \
           "time one is read) (blank ones counted: delete the columns and rows past the table's own)" \
           in errors(proj), errors(proj)


def test_the_work_of_reading_a_games_workbooks_together_is_bounded(proj, monkeypatch):
    """A workbook's row, its cells holding anything and its sheet's XML cost more to read than a CSV's cells, and
    were counted as a row's width alone (a row of no cell, and the XML's parse, not at all): 21 tables reading one
    workbook of 60,000 rows of an empty text cell took 33 s to be refused, 11 reading 150,000 rows of no cell 12 s.
    Here the allowance is lowered, and the sheet holds empty text cells and empty rows (counted as 1 cell each, the
    game's 5,000 were not reached)."""
    for module in ("load", "spreadsheet"):
        monkeypatch.setattr(f"pnp.model.{module}.MAX_GAME_CELLS", 5_000)
    path = xlsx_table(proj, "turn")
    rows = b"".join(b'<row r="%d"><c r="A%d" t="inlineStr"><is><t></t></is></c></row><row r="%d"/>' % (n, n, n + 1)
                    for n in range(20, 1000, 2))
    rezip(path, lambda name, data: data.replace(b"</sheetData>", rows + b"</sheetData>")
          if name == "xl/worksheets/sheet1.xml" else data)
    result = run(proj, "convert", str(path), "--to", "yaml", "--out", str(proj / "back.yaml"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cards/{GAME}/turn.xlsx[turn]:" in result.output and (
        "error: the game's spreadsheets hold more than 5,000 cells together (each time one is read; a workbook's row "
        "counts as 4") in result.output, result.output


def test_a_table_whose_workbook_would_be_more_reading_than_a_game_reads_is_never_written(proj, monkeypatch):
    monkeypatch.setattr("pnp.model.spreadsheet.MAX_GAME_CELLS", 300)
    result = run(proj, "convert", str(proj / "cards" / GAME / "turn.yaml"), "--to", "xlsx")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "the table as a workbook is more than pnp reads (reading it counts as" in result.output, result.output
    assert not (proj / "cards" / GAME / "turn.xlsx").exists()


def test_a_table_whose_cells_alone_are_more_reading_than_a_game_reads_is_refused_before_its_cells_are_checked(
        proj, monkeypatch):
    """A table of 3,500 items of 41 fields had each of its cells checked for a round trip and a workbook made
    (8 s) only to be refused then: its cells alone count past the game's allowance, known before any is checked."""
    monkeypatch.setattr("pnp.model.spreadsheet.MAX_GAME_CELLS", 20)

    def checked(*args: object) -> None:
        raise AssertionError("cells checked")
    monkeypatch.setattr("pnp.model.spreadsheet._cells_given_back", checked)
    result = run(proj, "convert", str(proj / "cards" / GAME / "turn.yaml"), "--to", "xlsx")
    assert result.exit_code == 1 and "cells checked" not in result.output, result.output
    assert "the table as a workbook is more than pnp reads (reading it counts as" in result.output, result.output
    assert not (proj / "cards" / GAME / "turn.xlsx").exists()


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_text_a_cell_cannot_hold_is_refused_at_its_item_never_written(proj, fmt):
    """A YAML escape gives a text any character: U+FFFE was an internal error writing a workbook, and a CSV
    holding it was written with exit 0 and then refused by pnp reading it."""
    path = add_table(proj, "marks", {"name": "{type: str}"}, [{"name": "a"}])
    path.write_text('- name: "a"\n- name: "b \\uFFFE"\n', encoding="utf-8")
    result = run(proj, "convert", str(path), "--to", fmt)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cards/{GAME}/marks.yaml:2:9: error: 'name': character U+FFFE is not allowed in a table's text" in result.output
    assert not path.with_suffix(f".{fmt}").exists()


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
@pytest.mark.parametrize("kind, value, said", [
    ("any", "[1, 2]", "'extra' is [1, 2] (a list), which its cell would give back as '[1, 2]' (text)"),
    ("scalar", "'12'", "'extra' is '12' (text), which its cell would give back as 12 (a whole number)"),
    ("int", "'3'", "'extra' is '3' (text), which its cell would give back as 3 (a whole number)"),
])
def test_a_value_its_cell_gives_back_otherwise_is_refused_at_its_item(proj, fmt, kind, value, said):
    """A list in an `any` field came back from its cell as its text, a `scalar` text '12' as the number 12 (the
    game validating both ways), and an int field's text '3' as 3, each converted with exit 0."""
    path = add_table(proj, "marks", {"name": "{type: str}", "extra": f"{{type: {kind}}}"}, [])
    path.write_text(f"- name: a\n  extra: 1\n- name: b\n  extra: {value}\n", encoding="utf-8")
    result = run(proj, "convert", str(path), "--to", fmt)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cards/{GAME}/marks.yaml:4:10: error: {said}: its field ({kind}) reads the cell so" in result.output, result.output
    assert not path.with_suffix(f".{fmt}").exists()


def test_a_text_longer_than_a_csv_cell_pnp_reads_is_refused_when_written(proj):
    """A text of 140,000 characters was written to a CSV with exit 0, and the CSV then refused ("field larger
    than field limit")."""
    path = add_table(proj, "marks", {"name": "{type: str}"}, [{"name": "a"}, {"name": "x" * 140_000}])
    result = run(proj, "convert", str(path), "--to", "csv")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cards/{GAME}/marks.yaml:2:9: error: 'name' is 140,000 characters as a cell; a CSV cell holds at most " \
           in result.output, result.output
    assert not path.with_suffix(".csv").exists()


@pytest.mark.parametrize("shared", [False, True])
def test_a_text_raised_or_lowered_in_part_is_refused_at_its_cell(proj, shared):
    """A cell showing "Attack 10²" (a run of the rich text superscript) printed "Attack 102", with exit 0, read
    as an inline text or a shared one."""
    path = xlsx_table(proj, "turn")
    if shared:
        _with_shared_texts(path)
        rich = b"<si><r><t>Attack 10</t></r><r><rPr><vertAlign val='superscript'/></rPr><t>2</t></r></si>"
        rezip(path, lambda name, data: data.replace(b"<si><t>Fight dinosaurs</t></si>", rich))
    else:
        rich = b"<is><r><t>Attack 10</t></r><r><rPr><vertAlign val='superscript'/></rPr><t>2</t></r></is>"
        rezip(path, lambda name, data: data.replace(b"<is><t>Fight dinosaurs</t></is>", rich))
    assert f"cards/{GAME}/turn.xlsx[turn]:3:2: error: part of this text is raised or lowered (superscript or " \
           "subscript), which pnp prints on the line (10² as 102): type the character itself (²), or the text " \
           "without it" in errors(proj), errors(proj)


def test_a_shared_text_holding_an_element_is_refused_at_its_cell_never_read_in_part(proj):
    """openpyxl's reader reads a text up to an element inside it: "Fight <x/>dinosaurs" printed "Fight ", exit 0."""
    path = xlsx_table(proj, "turn")
    _with_shared_texts(path)
    rezip(path, lambda name, data: data.replace(b"<si><t>Fight dinosaurs</t></si>", b"<si><t>Fight <x/>dinosaurs</t></si>"))
    assert f"cards/{GAME}/turn.xlsx[turn]:3:2: error: this text holds a <x> element inside it, and would be read up " \
           "to it: the file is damaged; save it again from the spreadsheet program" in errors(proj), errors(proj)


@pytest.mark.parametrize("number, said", [
    (b"1e1", "11:1: error: a row numbered 4 after row 10"),  # read as row 10: the rows after it were dropped
    (b"2.0", "3:1: error: a row numbered 2 after row 2"),
    (b"2.5", "3:1: error: a row numbered '2.5', which is no whole number: the file is damaged"),
])
def test_a_row_number_is_read_as_openpyxl_reads_it(proj, number, said):
    """A row numbered 1e1 is row 10 to openpyxl's reader, and was taken by pnp's check for the next row: every
    row after it was left out (7 items of 9), with exit 0. Here row 3's cells name no row."""
    path = xlsx_table(proj, "turn")

    def change(data: bytes) -> bytes:
        row = re.search(rb'<row r="3".*?</row>', data)[0]
        return data.replace(row, re.sub(rb' r="[A-Z]+3"', b"", row).replace(b'<row r="3"', b'<row r="' + number + b'"'))
    rezip(path, lambda name, data: change(data) if name == "xl/worksheets/sheet1.xml" else data)
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx[turn]:{said}") for ln in errors(proj)), errors(proj)


@pytest.mark.parametrize("code", ['@" cm"', '"Step: "@', "@@", ";;;", "0;-0;0;", '\\;@', "*-@"])
def test_a_text_cell_formatted_to_show_otherwise_is_refused_at_its_cell(proj, code):
    """A text cell whose number format's text section adds to the text or hides it (the sheet showed 'Step: The
    jungle grows' or nothing) printed the text alone, with exit 0."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    book.active.cell(row=3, column=2).number_format = code
    book.save(path)
    assert [ln for ln in errors(proj) if "turn.xlsx" in ln] == [
        f"cards/{GAME}/turn.xlsx[turn]:3:2: error: this text cell is formatted as {code!r}, so the sheet shows it "
        "otherwise than the text it holds, which pnp reads: format the cell as General or Text and type the text as "
        "it should read"]


def test_a_text_cell_formatted_to_show_the_text_as_it_is_is_read(proj):
    """The formats whose text section shows the text as typed (once for all of them: each refused format's test
    validated these six again)."""
    path = xlsx_table(proj, "turn")
    book = openpyxl.load_workbook(path)
    for code in ("@", "[Blue]@", "_(@_)", "0.00", "0;-0;0;@", "0.00;@"):  # each shows the text as it is
        book.active.cell(row=3, column=2).number_format = code
        book.save(path)
        assert run(proj, "validate", GAME).exit_code == 0, code


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_fields_named_with_spaces_or_delimiters_round_trip(tmp_path, fmt):
    # a field ' pad' came back as 'pad' (the header cell trimmed), and a CSV's header naming a field 'a;b;c;d'
    # was read as separated by semicolons ("no column for 'id'"), each from a file convert wrote with exit 0
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [["      text: {type: text, default: \"\"}",
                                  "      text: {type: text, default: \"\"}\n      ' pad': {type: str, required: false}\n"
                                  "      'a;b;c;d;e;f;g;h;i;j;k;l': {type: str, required: false}"]],
        "cards/mini/cards.yaml": [["  power: 4\n", "  power: 4\n  ' pad': hi\n  'a;b;c;d;e;f;g;h;i;j;k;l': x\n"]]}})
    _round_trips_and_validates(root, fmt)


def test_a_csv_header_cell_holding_semicolons_is_one_cell_of_a_comma_separated_file(proj):
    # its semicolons were counted, and the file read as separated by semicolons ("no column for 'step'")
    path = proj / "cards" / GAME / "turn.csv"
    convert(proj, path.with_suffix(".yaml"), "csv")
    path.with_suffix(".yaml").unlink()
    header, rest = path.read_text(encoding="utf-8").split("\n", 1)
    path.write_text(header + ',"notes; kept; by; hand; here"\n' + rest, encoding="utf-8")
    result = run(proj, "validate", GAME)
    assert result.exit_code == 0, result.output


def test_a_row_far_below_the_others_is_read_at_its_number_without_the_rows_between(proj):
    # openpyxl's reader made an empty row of each number between (a million rows walked: 4 s a sheet)
    path = xlsx_table(proj, "turn")
    far = ('<row r="1048576"><c r="A1048576"><v>99</v></c><c r="B1048576" t="inlineStr"><is><t>far</t></is></c>'
           '<c r="C1048576" t="inlineStr"><is><t>d12</t></is></c></row></sheetData>')
    rezip(path, lambda name, data: data.replace(b"</sheetData>", far.encode()) if name.endswith("sheet1.xml") else data)
    assert [ln for ln in errors(proj) if "turn.xlsx[turn]:1048576" in ln] == [
        f"cards/{GAME}/turn.xlsx[turn]:1048576:1: error: step: 99 is out of range (expected 1 to 9)"]


@pytest.mark.parametrize("element", ['<hyperlink ref="A{n}" location="B{n}"/>', '<col min="{n}" max="{n}" width="9"/>'])
def test_a_sheet_of_more_elements_beside_its_cells_than_pnp_reads_is_refused(proj, element):
    # openpyxl makes an object of each: 90,000 links in a 4 MB sheet took 5 s, 50,000 conditional formats 8 s
    path = xlsx_table(proj, "turn")
    wrap = "hyperlinks" if "hyperlink" in element else "cols"
    many = f"<{wrap}>" + "".join(element.format(n=n) for n in range(1, 20_002)) + f"</{wrap}>"
    at = "</sheetData>" if wrap == "hyperlinks" else "<sheetData>"  # (the standard's order of a sheet's parts)
    rezip(path, lambda name, data: data.replace(at.encode(), (at + many if wrap == "hyperlinks" else many + at).encode())
          if name.endswith("sheet1.xml") else data)
    assert [ln for ln in errors(proj) if "turn.xlsx" in ln] == [
        f"cards/{GAME}/turn.xlsx[turn]: error: the sheet holds more than 20,000 elements beside its cells (formats, "
        "links, column widths...); pnp reads at most 20,000 (a sheet has a few dozen): the file is damaged"]


@pytest.mark.parametrize("value, said", [("1E-7", "1E-07"), ("123456789012", "123456789012"),
                                         ("0.3333333333333333", "0.3333333333333333")])
def test_a_number_general_shows_otherwise_than_its_text_is_refused_in_a_text_field(proj, value, said):
    # General shows 1E-07, 1.23457E+11 and 0.333333333 (at a column's standard width), where the text field printed
    # Python's text of the number
    path = xlsx_table(proj, "turn")
    rezip(path, lambda name, data: re.sub(rb'<c r="B2"[^>]*>.*?</c>', f'<c r="B2"><v>{value}</v></c>'.encode(), data,
                                          count=1) if name.endswith("sheet1.xml") else data)
    assert [ln for ln in errors(proj) if "turn.xlsx" in ln] == [
        f"cards/{GAME}/turn.xlsx[turn]:2:2: error: this number cell ({said}) is formatted as 'General', so the sheet "
        "shows it otherwise than its text field would print it: format the cell as text and type the text"]


def test_a_number_general_shows_in_15_digits_is_read_in_a_text_field_as_shown(proj):
    """0.30000000000000004 (a sum's float, 0.1 + 0.2, as a program writes it) is shown by General in Excel's 15
    significant digits, as 0.3: a text field refused it as shown otherwise. It reads "0.3", as the sheet shows it;
    -0.30000000000000004 "-0.3"."""
    path = xlsx_table(proj, "turn")
    cells = {"B2": "0.30000000000000004", "B3": "-0.30000000000000004"}
    rezip(path, lambda name, data: re.sub(rb'<c r="(B[23])"[^>]*>.*?</c>', lambda found: f'<c r="{found[1].decode()}">'
                                          f'<v>{cells[found[1].decode()]}</v></c>'.encode(), data, count=2)
          if name.endswith("sheet1.xml") else data)
    back = path.with_name("back.yaml")
    convert(proj, path, "yaml", "--out", str(back))
    assert [item["title"] for item in yaml.safe_load(back.read_text(encoding="utf-8"))[:2]] == ["0.3", "-0.3"]


def test_rows_of_no_value_past_the_limit_are_passed_over_and_a_value_after_them_refused(proj, monkeypatch):
    """250,000 <row/> elements, each walked by openpyxl's reader, took 7 s: the rows of a sheet are counted as read.
    Rows of no value past the limit (formatted down the sheet, as a spreadsheet program saves them row by row)
    were refused as too many, at a row where nothing is: they are passed over, unread; a value after them is
    refused at its row."""
    monkeypatch.setattr("pnp.model.spreadsheet.MAX_ROWS", 20)
    path = xlsx_table(proj, "turn")
    empty = "".join(f'<row r="{n}" s="0" customFormat="1"><c r="A{n}" s="0"/><c r="C{n}" t="s"/></row>'
                    for n in range(11, 41))
    rezip(path, lambda name, data: data.replace(b"</sheetData>", (empty + "</sheetData>").encode())
          if name.endswith("sheet1.xml") else data)
    result = run(proj, "validate", GAME)
    assert result.exit_code == 0, result.output
    rezip(path, lambda name, data: data.replace(b"</sheetData>", b'<row r="41"><c r="B41" t="inlineStr"><is><t>x</t>'
                                                b"</is></c></row></sheetData>") if name.endswith("sheet1.xml") else data)
    assert [ln for ln in errors(proj) if "turn.xlsx" in ln] == [
        f"cards/{GAME}/turn.xlsx[turn]:41:1: error: sheet has more than 20 rows"]


def test_blank_csv_rows_past_the_limit_are_passed_over_and_a_value_after_them_refused(proj, monkeypatch):
    """A CSV of a few rows followed by blank lines (150,000 of them, or lines of commas: a spreadsheet program
    saves the rows of its used range) was refused as more than 100,000 rows, at a line where nothing is. Past
    the limit a rest of blank rows is left out unread; a value after them is refused at its line."""
    monkeypatch.setattr("pnp.model.spreadsheet.MAX_ROWS", 20)
    path, rows, header = tokens_as_csv(proj)
    back = ["convert", str(path), "--to", "yaml", "--out", str(proj / "back.yaml"), "--force"]
    blank = ["", ",,,", ',"",  ,', "\r", ""] * 10
    path.write_text("\n".join([*rows, *blank]), encoding="utf-8", newline="")
    assert run(proj, *back).exit_code == 0
    assert len(yaml.safe_load((proj / "back.yaml").read_text(encoding="utf-8"))) == len(rows) - 1
    # the value's own line is named (the line after the 20th row, a blank one, was), wherever a quote makes it
    for after in (["x"], [' ""'], [' ""', *blank], [',""', ' ""', *blank, "x"]):  # (a space before a quote is text)
        path.write_text("\n".join([*rows, *blank, *after]), encoding="utf-8", newline="")
        result = run(proj, *back)
        line = len(rows) + len(blank) + 1 + after.index(next(cell for cell in after if cell.strip(',"')))
        assert result.exit_code == 1 and result.output.strip().endswith(
            f"cards/{GAME}/tokens.csv:{line}:1: error: sheet has more than 20 rows"), result.output


def _round_trips_and_validates(root, fmt):
    """The mini game's cards converted to `fmt` and back give the same YAML, and the game validates with the
    cards read from the `fmt` file alone."""
    convert(root, root / "cards/mini/cards.yaml", fmt)
    convert(root, root / f"cards/mini/cards.{fmt}", "yaml", "--out", str(root / "back.yaml"))
    assert yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8")) == \
        yaml.safe_load((root / "cards/mini/cards.yaml").read_text(encoding="utf-8"))
    (root / "cards/mini/cards.yaml").unlink()
    result = run(root, "validate")
    assert result.exit_code == 0, result.output


def test_a_header_row_below_the_first_names_its_own_row_in_messages(proj):
    """A sheet whose header is row 3 (rows 1 and 2 empty) said an unknown column was at row 1."""
    path = xlsx_table(proj, "turn")

    def lower(data: bytes) -> bytes:
        data = re.sub(rb' r="([A-Z]+)(\d+)"', lambda m: b' r="%s%d"' % (m[1], int(m[2]) + 2), data)
        return re.sub(rb'<row r="(\d+)"', lambda m: b'<row r="%d"' % (int(m[1]) + 2), data).replace(
            b"<t>term</t>", b"<t>terms</t>")
    rezip(path, lambda name, data: lower(data) if name.endswith("sheet1.xml") else data)
    assert [ln for ln in errors(proj) if "turn.xlsx" in ln] == [
        f"cards/{GAME}/turn.xlsx[turn]:3:5: error: unknown field 'terms' (did you mean 'term'?)"]


def two_tables(tmp_path, first, second, files):
    """A project of the mini game whose game.yaml also declares tables `first` and `second` (name -> fields),
    written beside it as `files` (name -> text)."""
    root = tmp_path / "two"
    make_project(root)
    folder = root / "cards" / "mini"
    game_yaml = folder / "game.yaml"
    declared = yaml.safe_dump({"tables": {**first, **second}}, sort_keys=False).split("\n", 1)[1]
    game_yaml.write_text(game_yaml.read_text(encoding="utf-8").replace("tables:\n", "tables:\n" + declared, 1),
                         encoding="utf-8")
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return root, folder


def test_convert_never_writes_over_another_of_its_tables_files_of_the_same_name(tmp_path):
    """`files: [t.yaml, t.csv]`: converting t.yaml to csv with --force wrote its items over t.csv's, which were
    lost, exit 0 (a file of the table's own name in another format was taken for the table's own file)."""
    root, folder = two_tables(tmp_path, {"a": {"files": ["t.yaml", "t.csv"], "fields": {"id": "str", "n": "int"}}},
                              {}, {"t.yaml": "- {id: x, n: 3}\n", "t.csv": "id,n\ny,4\n"})
    result = run(root, "convert", str(folder / "t.yaml"), "--to", "csv", "--force")
    assert result.exit_code == 2 and "t.csv: error: is read by table 'a' of cards/mini/game.yaml" in result.output
    assert (folder / "t.csv").read_text(encoding="utf-8") == "id,n\ny,4\n"


@pytest.mark.parametrize("game_yaml", ["tables: [\n", "", "- a\n", "tables: [cards]\n", "tables:\n  cards: [1]\n",
                                       "tables:\n  cards: {file: 3}\n", "tables:\n  cards: {files: x.csv}\n"])
def test_convert_never_writes_over_a_file_of_a_game_whose_game_yaml_does_not_load(tmp_path, game_yaml):
    """Another game's game.yaml holding a syntax error (a designer midway through an edit): which of its files it
    reads could not be told, and `--out cards/other/cards.csv --force` wrote mini's items over that game's own
    table, exit 0; as did one that loads but validate refuses (empty, a list, tables or a table's file of the wrong
    type: taken for a game reading no file). A new file there is written."""
    root = make_project(tmp_path / "p")
    other = root / "cards" / "other"
    other.mkdir()
    (other / "game.yaml").write_text(game_yaml, encoding="utf-8")
    (other / "cards.csv").write_text("id,n\ny,4\n", encoding="utf-8")
    source = str(root / "cards/mini/cards.yaml")
    result = run(root, "convert", source, "--to", "csv", "--out", str(other / "cards.csv"), "--force")
    assert result.exit_code == 2 and result.output.startswith("cards/other/cards.csv: error: is in the folder of a "
                                                              "game whose cards/other/game.yaml does not load"), result.output
    assert (other / "cards.csv").read_text(encoding="utf-8") == "id,n\ny,4\n"
    assert run(root, "convert", source, "--to", "csv", "--out", str(other / "new.csv"), "--force").exit_code == 0


def test_convert_reads_a_file_by_the_table_that_reads_it_not_one_reading_its_namesake(tmp_path):
    # table a reads t.yaml, table b reads t.csv: t.csv was converted by a's fields, its text '007' as 7, exit 0
    root, folder = two_tables(tmp_path, {"a": {"file": "t.yaml", "fields": {"id": "str", "n": "int"}}},
                              {"b": {"file": "t.csv", "fields": {"id": "str", "n": "str"}}},
                              {"t.yaml": "- {id: x, n: 3}\n", "t.csv": "id,n\nx,007\n"})
    convert(root, folder / "t.csv", "yaml", "--out", str(root / "back.yaml"))
    assert yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8")) == [{"id": "x", "n": "007"}]
    # a file neither reads, each reading its namesake by other fields, is read by neither
    result = run(root, "convert", str(folder / "t.xlsx"), "--to", "yaml")
    assert result.exit_code == 2 and "tables a, b of cards/mini/game.yaml" in result.output, result.output


def test_an_enum_value_a_workbook_would_show_otherwise_is_offered_escaped_as_a_cell_holding_it(tmp_path):
    # '_x0041_' was written as it is in the drop-down's list, which Excel shows as 'A': picked, it was refused
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", "k": {"type": "enum", "values": ["_x0041_"]}}}},
                              {}, {"a.yaml": "- {id: x, k: _x0041_}\n"})
    convert(root, folder / "a.yaml", "xlsx")
    with zipfile.ZipFile(folder / "a.xlsx") as book:
        texts = [t for name in book.namelist() if name.startswith("xl/worksheets/")
                 for t in re.findall(r"<t[^>]*>([^<]*)</t>", book.read(name).decode("utf-8"))]
    assert texts.count("_x005F_x0041_") == 2 and "_x0041_" not in texts, texts  # (the cell, its drop-down's value)
    convert(root, folder / "a.xlsx", "yaml", "--out", str(root / "back.yaml"))
    assert yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8")) == [{"id": "x", "k": "_x0041_"}]


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_table_of_no_item_converts_to_a_sheet_naming_its_fields_that_reads_back(tmp_path, fmt):
    # its CSV was a header naming no field, refused when read back ("the first row names the fields")
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", "n": "int"}}}, {}, {"a.yaml": "[]\n"})
    convert(root, folder / "a.yaml", fmt)
    if fmt == "csv":
        assert (folder / "a.csv").read_text(encoding="utf-8") == "id,n\n"
    convert(root, folder / f"a.{fmt}", "yaml", "--out", str(root / "back.yaml"))
    assert yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_field_given_as_null_is_refused_at_it_not_converted_as_left_out(tmp_path, fmt):
    # YAML refuses `n:` of nothing (expected a whole number); its blank cell was read as the field left out, and the
    # converted table validated, the default printed
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", "n": {"type": "int", "default": 3}}}}, {},
                              {"a.yaml": "- id: x\n  n:\n"})
    result = run(root, "convert", str(folder / "a.yaml"), "--to", fmt)
    assert result.exit_code == 1 and "cards/mini/a.yaml:2:5: error: 'n' is given as null" in result.output, result.output
    assert not (folder / f"a.{fmt}").exists()


def test_a_table_whose_yaml_would_repeat_long_field_names_past_the_file_limit_is_refused_before_written(tmp_path):
    # a CSV of 20,000 rows under a field named in 100,000 characters ran out of memory writing 2 GB of YAML
    name = "k" * 30_000
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", name: "str"}}}, {},
                              {"a.csv": f"id,{name}\n" + "".join(f"i{n},x\n" for n in range(800))})
    result = run(root, "convert", str(folder / "a.csv"), "--to", "yaml")
    assert result.exit_code == 1 and "cards/mini/a.csv:1:1: error: written as YAML, the table's field names" in result.output
    assert not (folder / "a.yaml").exists()


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_table_of_more_columns_than_a_sheet_is_read_with_is_refused_before_written(tmp_path, fmt):
    # 1,001 fields were written as 1,001 columns, and the sheet refused when read back
    fields = {f"f{n}": {"type": "int", "required": False} for n in range(1001)}
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", **fields}}}, {},
                              {"a.yaml": "- {id: x, " + ", ".join(f"f{n}: 1" for n in range(1001)) + "}\n"})
    result = run(root, "convert", str(folder / "a.yaml"), "--to", fmt)
    assert result.exit_code == 1 and "cards/mini/a.yaml:1:1: error: as a spreadsheet, the table would be 1,002 columns" \
        in result.output, result.output


def test_a_table_whose_workbook_pnp_would_not_read_is_refused_before_written(tmp_path, monkeypatch):
    # 3,000 texts of 3,000 characters made a sheet of 9 MB of XML, written, then refused when read back (the limit
    # lowered here: the reader's own is tested above)
    from pnp.model import workbook_parts

    monkeypatch.setattr(workbook_parts, "MAX_XML_PART_BYTES", 20_000)
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", "t": "str"}}}, {},
                              {"a.yaml": "".join(f"- {{id: i{n}, t: {'x' * 300}}}\n" for n in range(100))})
    result = run(root, "convert", str(folder / "a.yaml"), "--to", "xlsx")
    assert result.exit_code == 1 and "cards/mini/a.yaml:1:1: error: the table as a workbook is more than pnp reads" \
        in result.output, result.output
    assert not (folder / "a.xlsx").exists()


def test_a_converted_file_larger_than_pnp_reads_is_refused_before_written(tmp_path, monkeypatch):
    from pnp.model import convert as convert_module

    monkeypatch.setattr(convert_module, "MAX_FILE_BYTES", 1000)  # (the real 20 MB: what the reader reads, load.MAX_FILE_BYTES)
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", "t": "str"}}}, {},
                              {"a.csv": "id,t\n" + "".join(f"i{n},{'x' * 30}\n" for n in range(30))})
    result = run(root, "convert", str(folder / "a.csv"), "--to", "yaml")
    assert result.exit_code == 1 and "cards/mini/a.csv:1:1: error: as YAML, the table is 0.0 MB" in result.output, result.output


def test_a_workbook_is_written_with_the_sheet_its_table_reads(tmp_path):
    # converted to YAML and back, its sheet was named for the table, and validate refused it: "workbook has no sheet"
    root, folder = two_tables(tmp_path, {"a": {"file": "a.xlsx", "sheet": "My Cards",
                                               "fields": {"id": "str", "t": "str"}}}, {},
                              {"a.yaml": "- {id: x, t: y}\n"})
    convert(root, folder / "a.yaml", "xlsx")
    assert openpyxl.load_workbook(folder / "a.xlsx").sheetnames == ["My Cards"]
    (folder / "a.yaml").unlink()
    result = run(root, "validate")
    assert result.exit_code == 0, result.output


def test_a_field_named_beginning_with_a_byte_order_mark_is_read_back_from_its_csv(tmp_path):
    # the reader took it for the mark Excel writes: the header was read without it, and the field said missing
    root, folder = two_tables(tmp_path, {"a": {"fields": {"\ufeffx": "str", "id": "str"}}}, {},
                              {"a.yaml": '- {"\\ufeffx": y, id: z}\n'})
    convert(root, folder / "a.yaml", "csv")
    convert(root, folder / "a.csv", "yaml", "--out", str(root / "back.yaml"))
    assert yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8")) == [{"\ufeffx": "y", "id": "z"}]


def test_a_workbook_is_not_written_for_a_sheet_name_no_workbook_holds(tmp_path):
    # written as 'Cards_ the long list of all the' (the name cut and cleaned), validate then said "workbook has no
    # sheet 'Cards: the long list of all the cards'", after convert's exit 0
    root, folder = two_tables(tmp_path, {"a": {"file": "a.xlsx", "sheet": "Cards: the long list of all the cards",
                                               "fields": {"id": "str", "t": "str"}}}, {},
                              {"a.yaml": "- {id: x, t: y}\n"})
    result = run(root, "convert", str(folder / "a.yaml"), "--to", "xlsx")
    line = next(n for n, text in enumerate((folder / "game.yaml").read_text().splitlines(), 1) if "sheet:" in text)
    assert result.exit_code == 1 and f"cards/mini/game.yaml:{line}:" in result.output, result.output
    assert "is no name a workbook's sheet may have" in result.output and not (folder / "a.xlsx").exists()
    convert(root, folder / "a.yaml", "csv")  # (a CSV has no sheet)


def test_a_written_workbook_lists_each_enums_values_once_and_no_more_than_it_may(tmp_path, monkeypatch):
    # an enum of 90,000 values read by 8 fields was written in 720,000 cells of the hidden sheet (78 s, 345 MB)
    monkeypatch.setattr("pnp.model.spreadsheet.MAX_LISTED_VALUES", 3)
    root, folder = two_tables(tmp_path, {"a": {"fields": {
        "id": "str", "k1": {"type": "enum", "values": ["x", "y"]}, "k2": {"type": "enum", "values": ["x", "y"]},
        "b": {"type": "enum", "values": ["p", "q", "r"]}}}}, {}, {"a.yaml": "- {id: i, k1: x, k2: y, b: p}\n"})
    convert(root, folder / "a.yaml", "xlsx")
    book = openpyxl.load_workbook(folder / "a.xlsx")
    rules = {str(rule.sqref): rule.formula1 for rule in book["a"].data_validations.dataValidation}
    assert rules == {"B2:B502": "'pnp lists'!$A$1:$A$2", "C2:C502": "'pnp lists'!$A$1:$A$2"}  # b's 3 values: none
    assert [[cell.value for cell in row] for row in book["pnp lists"].iter_rows()] == [["x"], ["y"]]


def test_a_field_name_no_workbook_cell_holds_is_refused_before_the_workbook_is_written(tmp_path):
    # U+FFFE, which openpyxl lets by, failed the writing of the sheet's XML: "pnp met something it does not handle"
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", "x\ufffe": "str"}}}, {},
                              {"a.yaml": '- {id: i, "x\\uFFFE": y}\n'})
    result = run(root, "convert", str(folder / "a.yaml"), "--to", "xlsx")
    assert result.exit_code == 1 and "cards/mini/a.yaml:1:1: error: 'x\\ufffe': character U+FFFE is not allowed" in result.output
    assert "does not handle" not in result.output and not (folder / "a.xlsx").exists()


@pytest.mark.parametrize("number", ["1" * 5000, "²"])
def test_a_style_numbering_its_format_otherwise_than_a_workbook_does_is_refused_in_pnps_words(tmp_path, number):
    # openpyxl's int() refused them: "not a readable .xlsx workbook (ValueError: Exceeds the limit (4300 digits)
    # for integer string conversion ... use sys.set_int_max_str_digits())"
    from pnp.errors import LoadError
    from pnp.model.workbook_parts import check_number_formats

    path = tmp_path / "t.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("xl/styles.xml", f'<styleSheet><cellXfs><xf numFmtId="{number}"/></cellXfs></styleSheet>')
    with zipfile.ZipFile(path) as z, pytest.raises(LoadError) as refused:
        check_number_formats(z, "cards/g/t.xlsx")
    assert refused.value.message.startswith("the workbook's styles give a style's numFmtId as '")
    assert refused.value.message.endswith("where a workbook writes a number of at most 9 digits: the file is damaged")


def _styled_workbook(path, styles=None, workbook=None):
    """A workbook of one sheet (id / i), its styles or workbook part changed by (old, new) pairs."""
    book = openpyxl.Workbook()
    book.active.append(["id"])
    book.active.append(["i"])
    book.save(path)
    rezip(path, lambda name, data: functools.reduce(lambda d, pair: d.replace(*pair), {
        "xl/styles.xml": styles, "xl/workbook.xml": workbook}.get(name) or [], data))


@pytest.mark.parametrize("styles, said", [
    # kept by openpyxl in an array of 32-bit numbers: "OverflowError: signed integer is greater than maximum"
    ([(b'fontId="0"', b'fontId="99999999999"')], "styles give a style's fontId as '99999999999', where a workbook "
                                                 "writes a number of at most 9 digits"),
    ([(b'borderId="0"', b'borderId="\xc2\xb2"')], "styles give a style's borderId as '\xb2', where"),
    # a named style's base read before its number was checked: "invalid literal for int()", in Python's words
    ([(b'xfId="0" builtinId="0"', b'xfId="\xc2\xb2" builtinId="0"')], "styles give a style's xfId as '\xb2', where"),
    # openpyxl printed "5 is out of range" on pnp's output, then refused with an IndexError
    ([(b'xfId="0" builtinId="0"', b'xfId="5" builtinId="0"')], "styles hold a named style based on style 5, and "
                                                               "list 1 base styles"),
])
def test_a_style_numbering_a_part_otherwise_than_a_workbook_does_is_refused_in_pnps_words(tmp_path, capfd, styles,
                                                                                           said):
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    _styled_workbook(tmp_path / "t.xlsx", styles=styles)
    with pytest.raises(LoadError) as refused:
        read_table(tmp_path / "t.xlsx", "cards/g/t.xlsx", Schema({"id": "str"}, {}))
    assert refused.value.message.startswith(f"the workbook's {said}") and "Error" not in refused.value.message
    assert capfd.readouterr().out == ""


@pytest.mark.parametrize("styles, workbook, part", [
    ([(b'<color theme="1"/>', b'<color rgb="zz"/>')], None, "its styles (fonts, fills, borders, cell styles...)"),
    (None, [(b'state="visible"', b'state="bogus"')], "its workbook part (its sheets, its views, its defined names)"),
])
def test_a_part_openpyxl_cannot_read_is_named_not_the_workbooks_path(tmp_path, styles, workbook, part):
    # openpyxl's own refusal: "Unable to read workbook: could not read stylesheet from /tmp/.../t.xlsx.\nThis is
    # most probably because ..." (its absolute path, its line breaks escaped); or none naming the part
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    _styled_workbook(tmp_path / "t.xlsx", styles=styles, workbook=workbook)
    with pytest.raises(LoadError) as refused:
        read_table(tmp_path / "t.xlsx", "cards/g/t.xlsx", Schema({"id": "str"}, {}))
    message = refused.value.message
    assert message.startswith(f"not a readable .xlsx workbook: openpyxl cannot read {part} (")
    assert str(tmp_path) not in message and "\\n" not in message


def test_a_csv_of_lines_ending_in_carriage_returns_is_read_by_its_first_lines_delimiter(tmp_path):
    # Excel's "CSV (Macintosh)" ends each line in \r alone: the file was counted whole as its first line, its cells'
    # semicolons outnumbered its commas, and it was refused ("a value in a column without a name in the header row")
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    path = tmp_path / "t.csv"
    path.write_bytes(b"id,name\rx,a; b; c; d\ry,e; f\r")
    items = read_table(path, "cards/g/t.csv", Schema({"id": "str", "name": "str"}, {}))
    assert [dict(item) for item in items] == [{"id": "x", "name": "a; b; c; d"}, {"id": "y", "name": "e; f"}]


@pytest.mark.parametrize("target, decoy, said", [
    (b"styles.xml", "decoy.xml", "styles (number formats) in 'xl/decoy.xml', and pnp reads them (as openpyxl does) "
                                 "from 'xl/styles.xml'"),
    (b"sharedStrings.xml", "decoy.xml", "shared texts in 'xl/decoy.xml', and pnp reads them (as openpyxl does) from "
                                        "'xl/sharedStrings.xml'"),
    (b"workbook.xml", "decoy.xml", "workbook part (its sheets) in 'xl/decoy.xml', and pnp reads them (as openpyxl "
                                   "does) from 'xl/workbook.xml'"),  # (a decoy's first sheet shown, or hidden, otherwise)
    # (a long s: one name with styles.xml by full case folding alone, which a package's names are not compared by;
    # the decoy was then refused as its twin, and relations naming it with no such part passed)
    (b"styles.xml", "\u017ftyles.xml", "styles (number formats) in 'xl/\u017ftyles.xml', and pnp reads them (as "
                                        "openpyxl does) from 'xl/styles.xml'"),
    (b"styles.xml", "", "styles (number formats) in 'xl/\u017ftyles.xml', and pnp reads them (as openpyxl does) "
                        "from 'xl/styles.xml'"),
])
def test_a_workbook_whose_relations_name_other_styles_or_texts_than_pnp_reads_is_refused(tmp_path, target, decoy,
                                                                                         said):
    # a spreadsheet program reads the parts its relations name: a decoy xl/styles.xml passed while the styles
    # named showed every text cell as "Heal 9 " and its text (or other shared texts showed), exit 0
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    path = tmp_path / "t.xlsx"
    _styled_workbook(path)
    _with_shared_texts(path)
    with zipfile.ZipFile(path) as z:
        part = z.read("xl/" + target.decode())
    named = (decoy or "\u017ftyles.xml").encode()
    rezip(path, lambda name, data: re.sub(b'Target="(/?xl/)?%s"' % target, rb'Target="\1' + named + b'"', data)
          if name.endswith(".rels") else data)
    if decoy:
        with zipfile.ZipFile(path, "a") as z:
            z.writestr("xl/" + decoy, part)
    with pytest.raises(LoadError) as refused:
        read_table(path, "cards/g/t.xlsx", Schema({"id": "str"}, {}))
    assert refused.value.message.startswith(f"the workbook's relations name its {said}: a spreadsheet program")


@pytest.mark.parametrize("packing, data, said", [
    (zipfile.ZIP_DEFLATED, b'<?xml version="1.0"?><!DOCTYPE x []><x/>', "declares a document type"),
    (zipfile.ZIP_BZIP2, b"x", "is packed by method 12 (bzip2)"),
])
def test_a_part_named_with_control_characters_is_quoted_escaped_and_cut_short(tmp_path, packing, data, said):
    """A part's name is the file's: \x02...\x03 in it are the marks of a part of a message said whole (a pasted
    command), and were taken as such, its 300 characters said whole, the marks dropped."""
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table
    from pnp.report import Diagnostic

    path = tmp_path / "t.xlsx"
    _styled_workbook(path)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("xl/odd\x02" + "a" * 300 + "\x03.xml", data, compress_type=packing)
    with pytest.raises(LoadError) as refused:
        read_table(path, "cards/g/t.xlsx", Schema({"id": "str"}, {}))
    assert str(Diagnostic("error", refused.value.message)) == (
        f"error: part 'xl/odd\\x02{'a' * 52}…' of the workbook {said}" + refused.value.message.partition(said)[2])


def test_a_sheet_of_a_long_name_is_named_cut_short_where_its_messages_are(tmp_path):
    """A sheet's name is said in each message of its cells: one of 5,000 characters was said whole, each time."""
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    path = tmp_path / "t.xlsx"
    book = openpyxl.Workbook()
    book.active.append(["id", "id"])
    book.save(path)
    rezip(path, lambda name, data: data.replace(b'name="Sheet"', b'name="%s"' % (b"L" * 5000)))
    with pytest.raises(LoadError) as refused:
        read_table(path, "cards/g/t.xlsx", Schema({"id": "str"}, {}))
    assert refused.value.mark.file == f"cards/g/t.xlsx[{'L' * 59}…]"


def test_a_header_name_holding_control_characters_is_quoted_escaped(tmp_path):
    """\x02...\x03 in a column's name were taken for the marks of a part of its message said whole (a pasted
    command): the name said whole, however long, its marks dropped."""
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table
    from pnp.report import Diagnostic

    path = tmp_path / "t.csv"
    name = "x\x02" + "y" * 300 + "\x03"
    path.write_text(f"id,{name},{name}\n", encoding="utf-8")
    with pytest.raises(LoadError) as refused:
        read_table(path, "cards/g/t.csv", Schema({"id": "str"}, {}))
    assert str(Diagnostic("error", refused.value.message)) == (
        f"error: column 'x\\x02{'y' * 57}…' appears twice in the header row (first in column 2)")


@pytest.mark.parametrize("part", ["_rels/.rels", "xl/_rels/workbook.xml.rels", "xl/worksheets/_rels/sheet1.xml.rels"])
def test_a_relations_part_listing_a_relation_without_its_type_is_refused_naming_it(tmp_path, part):
    """openpyxl warned (its own line, its install's path, on pnp's output) and read the part as listing nothing,
    refused as a workbook whose relations name its styles or its workbook part in no part; a sheet's, read for
    the sheet's Excel tables, warned so and passed."""
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    path = tmp_path / "t.xlsx"
    _styled_workbook(path)
    rezip(path, lambda name, data: data.replace(b"</worksheet>", b'<tableParts count="1"><tablePart xmlns:r="http://'
                                                b'schemas.openxmlformats.org/officeDocument/2006/relationships" '
                                                b'r:id="rId1"/></tableParts></worksheet>'))
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("xl/worksheets/_rels/sheet1.xml.rels",
                   '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship '
                   'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/table" '
                   'Target="../tables/table1.xml" Id="rId1"/></Relationships>')
        z.writestr("xl/tables/table1.xml", '<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                   'id="1" name="T" displayName="T" ref="A1:A2"><tableStyleInfo name="TableStyleMedium2"/></table>')
    rezip(path, lambda name, data: re.sub(rb' Type="[^"]*"', b"", data, count=1) if name == part else data)
    with warnings.catch_warnings(record=True) as warned, pytest.raises(LoadError) as refused:
        warnings.simplefilter("always")
        read_table(path, "cards/g/t.xlsx", Schema({"id": "str"}, {}))
    assert refused.value.message.startswith(f"part '{part}' of the workbook lists a relation without its Id, Type")
    assert not warned, [str(w.message) for w in warned]


@pytest.mark.parametrize("second", ["xl/worksheets/sheet1.xml", "XL/Worksheets/Sheet1.xml",
                                    "xl\\Worksheets\\sheet1.xml"])  # (a backslash: a slash to a Windows zip program)
def test_a_workbook_of_two_parts_of_one_name_is_refused(tmp_path, second):
    # zipfile (and openpyxl through it) read the last of two sheet1.xml, where a spreadsheet program may read the
    # first: the sheet printed was not the one shown, exit 0
    from pnp.errors import LoadError
    from pnp.model.workbook_parts import check_parts

    path = tmp_path / "t.xlsx"
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as z:
        warnings.simplefilter("ignore")  # (zipfile's warning of a duplicate name)
        z.writestr("xl/worksheets/sheet1.xml", "<worksheet/>")
        z.writestr(second, "<worksheet/>")
    with zipfile.ZipFile(path) as z, pytest.raises(LoadError) as refused:
        check_parts(z, "cards/g/t.xlsx")
    said = second.replace("\\", "\\\\")  # (a backslash is said escaped, as in Python)
    assert refused.value.message.startswith(f"the workbook holds two parts named '{said}' (in any case)")


@pytest.mark.parametrize("name, escape", [("xl/worksheets/sheet%31.xml", "'%31', an escaped '1'"),
                                          ("xl/worksheets%2fsheet1.xml", "'%2f', an escaped '/'"),
                                          ("xl/media/%E3%81%82%20.png", None), ("xl/media/100%25.png", None)])
def test_a_part_named_with_an_escaped_plain_character_is_refused(tmp_path, name, escape):
    """A spreadsheet program reads a relation naming worksheets/sheet%31.xml as the part worksheets/sheet1.xml,
    and openpyxl reads the part named sheet%31.xml: a decoy so named beside the sheet shown was read, exit 0.
    A name escaping what a part's name must escape (a character past ASCII, a space, a %) is read as it is."""
    from pnp.errors import LoadError
    from pnp.model.workbook_parts import check_parts

    path = tmp_path / "t.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("xl/worksheets/sheet1.xml", "<worksheet/>")
        z.writestr(name, "<worksheet/>")
    with zipfile.ZipFile(path) as z:
        if escape is None:
            check_parts(z, "cards/g/t.xlsx")
            return
        with pytest.raises(LoadError) as refused:
            check_parts(z, "cards/g/t.xlsx")
    assert refused.value.message.startswith(f"part '{name}' of the workbook is named with {escape}, which no part")


@pytest.mark.parametrize("first, second", [("xl/media/Straße.png", "xl/media/STRASSE.png"),
                                           ("xl/media/kelvin.png", "xl/media/\u212aelvin.png")])
def test_parts_whose_names_are_one_by_full_case_folding_alone_are_two_parts(tmp_path, first, second):
    """A package's part names are compared without the case of their ASCII letters alone: full case folding made
    'Straße' and 'STRASSE' (or a Kelvin sign and a k) one name, and the workbook was refused as damaged."""
    from pnp.model.workbook_parts import check_parts

    path = tmp_path / "t.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(first, b"\x89PNG")
        z.writestr(second, b"\x89PNG")
    with zipfile.ZipFile(path) as z:
        check_parts(z, "cards/g/t.xlsx")


def test_a_workbook_whose_document_properties_are_damaged_is_read_for_its_cells(tmp_path):
    # its properties (a created date of year 0) hold no cell's value: openpyxl's refusal of them refused the workbook
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    path = tmp_path / "t.xlsx"
    _styled_workbook(path)
    rezip(path, lambda name, data: re.sub(rb"(<dcterms:created[^>]*>)[^<]*", rb"\g<1>0000-01-01T00:00:00Z", data)
          if name == "docProps/core.xml" else data)
    assert [dict(item) for item in read_table(path, "cards/g/t.xlsx", Schema({"id": "str"}, {}))] == [{"id": "i"}]


@pytest.mark.parametrize("name, said", [("t.tsv", "a tab-separated sheet (.tsv)"),
                                        ("t.XLS", "an Excel 97-2003 workbook (.XLS)"),
                                        ("t.ods", "an OpenDocument spreadsheet (.ods)")])
def test_a_table_file_of_a_spreadsheet_format_pnp_does_not_read_is_refused_by_its_format(tmp_path, name, said):
    # read as YAML, a .xls was refused as "not UTF-8 text (byte 0xd0)", a .tsv as "expected a list of t"
    root, folder = two_tables(tmp_path, {"t": {"file": name, "fields": {"id": "str", "n": "int"}}}, {},
                              {name: "id\tn\nx\t3\n"})
    found = [ln for ln in run(root, "validate", "mini").stderr.splitlines() if ": error: " in ln]
    assert found == [f"cards/mini/{name}: error: this is {said}, which pnp does not read as a table: save the sheet "
                     "as an Excel Workbook (.xlsx) or as CSV UTF-8 (.csv, which may be separated by tabs), and name "
                     "that file"], found
    result = run(root, "convert", str(folder / name), "--to", "yaml")
    assert result.exit_code == 1 and f"cards/mini/{name}: error: this is {said}" in result.output, result.output
    assert not (folder / "t.yaml").exists()


def test_each_value_a_written_workbooks_drop_down_offers_is_read_back_as_that_value(tmp_path):
    # the drop-down's list held each number as openpyxl writes one (16 digits): 0.30000000000000004 was offered
    # as 0.3 and 12345678901234567891 as 1.234567890123457e+19, each refused once picked
    values = [0.30000000000000004, 12345678901234567891, 2.5, 2.0]
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", "k": {"type": "enum", "values": values}}}},
                              {}, {"a.yaml": "- {id: x, k: 2.5}\n"})
    convert(root, folder / "a.yaml", "xlsx")
    book = openpyxl.load_workbook(folder / "a.xlsx")
    offered = [row[0].value for row in book["pnp lists"].iter_rows()]
    for row, value in enumerate(offered, start=2):  # each picked, in an item of its own
        book["a"].cell(row, 1, f"i{row}")
        book["a"].cell(row, 2, value)
    book.save(folder / "a.xlsx")
    convert(root, folder / "a.xlsx", "yaml", "--out", str(root / "back.yaml"))
    back = yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8"))
    assert [item["k"] for item in back] == values and [type(item["k"]) for item in back] == list(map(type, values))


@pytest.mark.parametrize("sheet, said", [('""', "sheet: is empty: name the workbook's sheet, or leave sheet: out"),
                                         ("2", "sheet: expected text, got a whole number 2")])
def test_a_sheet_key_naming_no_sheet_is_refused_at_its_line_not_as_the_workbooks_fault(tmp_path, sheet, said):
    # read as a sheet's name, it was refused as the workbook's: "cards.xlsx: error: workbook has no sheet ''"
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str"}}}, {}, {"a.yaml": "- {id: x}\n"})
    convert(root, folder / "a.yaml", "xlsx")
    game_yaml = folder / "game.yaml"
    game_yaml.write_text(game_yaml.read_text(encoding="utf-8").replace(
        "  a:\n", f"  a:\n    file: a.xlsx\n    sheet: {sheet}\n", 1), encoding="utf-8")
    result = run(root, "validate", "mini")
    found = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert len(found) == 1 and found[0].startswith("cards/mini/game.yaml:") and said in found[0], found
    converted = run(root, "convert", str(folder / "a.xlsx"), "--to", "yaml", "--out", str(root / "back.yaml"))
    assert converted.exit_code == 1 and "cards/mini/game.yaml:" in converted.output, converted.output
    assert "workbook has no sheet" not in converted.output and not (root / "back.yaml").exists()


@pytest.mark.parametrize("files, said", [("12", "a whole number"), ("true", "true/false"), ("a.yaml", "text")])
def test_convert_refuses_a_files_key_that_is_no_list_at_its_line(tmp_path, files, said):
    # files: 12 (or true) was a bug in pnp ('int' object is not iterable); files: a.yaml was walked letter by letter
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str"}}}, {}, {"a.yaml": "- {id: x}\n"})
    game_yaml = folder / "game.yaml"
    game_yaml.write_text(game_yaml.read_text(encoding="utf-8").replace("  a:\n", f"  a:\n    files: {files}\n", 1),
                         encoding="utf-8")
    converted = run(root, "convert", str(folder / "a.yaml"), "--to", "csv")
    assert converted.exit_code == 1 and converted.output.startswith("cards/mini/game.yaml:"), converted.output
    assert f"files: expected a list, got {said}" in converted.output and not (folder / "a.csv").exists()


def test_a_header_of_a_hundred_thousand_characters_is_quoted_short_in_its_message(tmp_path):
    # an unknown field named by a CSV header of 130,000 characters was said whole: one line of 130 KB
    root, folder = two_tables(tmp_path, {"a": {"file": "a.csv", "fields": {"id": "str"}}}, {},
                              {"a.csv": f"id,{'Z' * 130_000}\nx,y\n"})
    result = run(root, "validate", "mini")
    line = next(ln for ln in result.output.splitlines() if ln.startswith("cards/mini/a.csv:1:2:"))
    assert result.exit_code == 1 and "unknown field 'ZZZ" in line and len(line) < 200, line


def test_no_message_is_longer_than_pnp_says_one():
    from pnp.report import MAX_MESSAGE, Diagnostic

    said = str(Diagnostic("error", "word " * 20_000, None))
    assert len(said) < MAX_MESSAGE + 40 and said.endswith("… (100,000 characters)")


def test_no_word_of_a_message_is_longer_than_pnp_says_one():
    """A value quoted whole, as one word of 100,000 characters, is cut in its middle: what the message says after
    it is still said (it was cut off at MAX_MESSAGE), and the value's start and end are kept."""
    from pnp.report import MAX_WORD, Diagnostic

    said = str(Diagnostic("error", f"image 'a{'x' * 100_000}z.png' cannot be used: not a picture", None))
    assert said.startswith("error: image 'axxx") and said.endswith("xxz.png' cannot be used: not a picture"), said
    assert "(99,828 characters left out)" in said and max(map(len, said.split())) <= MAX_WORD, said


def test_a_part_of_a_message_the_user_pastes_is_said_whole_by_the_word_cut():
    """A command or path a hint gives to paste (report.pasted) is left whole by the word cut (cut in its middle,
    `--since <path>` named no file), its marks taken out; the words around it are still cut, and the message as a
    whole still bounded."""
    from pnp.report import MAX_MESSAGE, MAX_WORD, Diagnostic, bounded_message, pasted

    path = "/" + "/".join(["d" * 60] * 5) + "/manifest.json"
    said = str(Diagnostic("error", f"'{'y' * 500}' is old; compare with it: --since {pasted(path)}", None))
    assert said.endswith(f"compare with it: --since {path}") and "(322 characters left out)" in said, said
    assert "\x02" not in said and "\x03" not in said and "\x02" not in bounded_message(pasted("pnp simulate g"))
    assert bounded_message(pasted("x" * 10 * MAX_MESSAGE)).endswith("… (20,000 characters)")
    assert len(bounded_message(pasted("x" * 10 * MAX_MESSAGE))) < MAX_MESSAGE + 40 and MAX_WORD < len(path)


_OVERSIZED = "x" * 140_000


@pytest.mark.parametrize("content, message", [
    # a cell longer than the CSV reader reads was refused in its words, at column 1 of the line it stopped at
    (f"id,name,kind,power\nlion,{_OVERSIZED},beast,4\n", "cards.csv:2:2: error: cell holds more than 131,072"),
    (f'id;name;kind;power\nlion;Lion;"{_OVERSIZED[:70_000]}\n{_OVERSIZED[:70_000]}";4\n',
     "cards.csv:2:3: error: cell holds more than 131,072"),
    # and a cell the reader refuses: text after its closing quote, a quote never closed
    # (text after its closing quote was said in the reader's words, "',' expected after '\"'")
    ('id,"name" ,kind,power\nlion,Lion,beast,4\n', "cards.csv:1:2: error: malformed CSV: this cell's text goes on"),
    ('id,name,kind,power\nlion,Lion,beast,4\nfern,Fern,"pl\nant,1\n', "cards.csv:3:3: error: malformed CSV"),
    # a quote no quote closes over more than the reader reads was said in its words as a field past its limit
    (f'id,name,kind,power\nlion,"{_OVERSIZED}\n', "cards.csv:2:2: error: malformed CSV: this cell opens a quote"),
    # a 'sep=' line naming a character no delimiter should be: NUL read as the delimiter, a letter split the words
    ("sep=\0\nid\0name\0kind\0power\nlion\0Lion\0beast\0 4\n", "cards.csv:1:5: error: 'sep=' names U+0000"),
    ("sep=i\nid,name,kind,power\nlion,Lion,beast,4\n", "cards.csv:1:5: error: 'sep=' names U+0069"),
    # a first line beginning 'sep=' that names no one delimiter was read as the header (a column named 'sep=; ')
    ("sep=; \nid;name;kind;power\nlion;Lion;beast;4\n", "cards.csv:1:6: error: a first line beginning 'sep='"),
    ("SEP=\r\nid,name,kind,power\r\nlion,Lion,beast,4\r\n", "cards.csv:1:5: error: a first line beginning 'sep='"),
    ("sep=ab,name,kind,power\nlion,Lion,beast,4\n", "cards.csv:1:6: error: a first line beginning 'sep='"),
])
def test_a_csv_cell_too_long_or_a_delimiter_no_file_means_is_refused_at_its_place(tmp_path, content, message):
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    (root / "cards" / "mini" / "cards.csv").write_text(content, encoding="utf-8", newline="")
    result = run(root, "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cards/mini/{message}" in result.stderr, result.stderr


def test_the_delimiter_is_guessed_from_the_start_of_a_long_first_line():
    """The guess stripped the quoted cells of the whole first line: 20 MB of them took 2 to 3 s."""
    from pnp.model.spreadsheet import _GUESSED_CHARS, _delimiter
    line = '"" ' * 7_000_000 + ";;" + "\n"
    # the semicolons past the part looked at are not counted (counted, they would be the delimiter); the time
    # this saves is measured in benchmarks/, not here
    assert len(line) > _GUESSED_CHARS and _delimiter(line) == "," and _delimiter(line[-100:]) == ";"


def test_a_workbook_whose_every_sheet_is_hidden_is_refused(tmp_path):
    """Every sheet hidden (which Excel does not allow), the first was read without a word."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    book = openpyxl.Workbook()
    book.active.append(["id", "name", "kind", "power"])
    book.active.append(["lion", "Lion", "beast", 4])
    saved = io.BytesIO()
    book.save(saved)  # (openpyxl will not hide a workbook's only sheet: hidden in its workbook.xml)
    with zipfile.ZipFile(saved) as z, zipfile.ZipFile(root / "cards" / "mini" / "cards.xlsx", "w") as out:
        for name in z.namelist():
            part = z.read(name)
            out.writestr(name, part.replace(b'state="visible"', b'state="hidden"') if name == "xl/workbook.xml"
                         else part)
    result = run(root, "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "cards/mini/cards.xlsx: error: every sheet of cells of the workbook is hidden" in result.stderr, \
        result.stderr


MINI_CARDS = (["id", "name", "kind", "power"], ["lion", "Lion", "beast", 4], ["fern", "Fern", "plant", 1],
              ["ant", "Ant", "beast", 2], ["rex", "Rex", "beast", 5])


def mini_cards_workbook():
    """The test game's cards as a workbook of one sheet, 'cards'."""
    book = openpyxl.Workbook()
    book.active.title = "cards"
    for row in MINI_CARDS:
        book.active.append(row)
    return book


def saved_with(book, path, edited):
    """`book` saved at `path`, each part of its package first given to edited(name, bytes) to change."""
    saved = io.BytesIO()
    book.save(saved)
    with zipfile.ZipFile(saved) as z, zipfile.ZipFile(path, "w") as out:
        for name in z.namelist():
            out.writestr(name, edited(name, z.read(name)))


def two_sheet_workbook(root, first, second):
    """The mini game's cards in a workbook of two sheets named `first` and `second` (each holding them)."""
    book = openpyxl.Workbook()
    book.active.title = "first"
    for ws in (book.active, book.create_sheet("second")):
        for row in MINI_CARDS:
            ws.append(row)
    saved = io.BytesIO()
    book.save(saved)  # (openpyxl renames a sheet named as another: renamed in its workbook.xml)
    with zipfile.ZipFile(saved) as z, zipfile.ZipFile(root / "cards" / "mini" / "cards.xlsx", "w") as out:
        for name in z.namelist():
            part = z.read(name)
            out.writestr(name, part.replace(b'"first"', f'"{first}"'.encode()).replace(b'"second"', f'"{second}"'.encode())
                         if name == "xl/workbook.xml" else part)


@pytest.mark.parametrize("second", ["cards", "CARDS"])
def test_a_workbook_of_two_sheets_of_one_name_to_excel_is_refused_naming_both(tmp_path, second):
    """Sheets 'Cards' and 'cards' (which Excel renames one of, repairing the file): the first was read, exit 0."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    two_sheet_workbook(root, "Cards", second)
    result = run(root, "validate")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cards/mini/cards.xlsx: error: workbook has two sheets named 'Cards' and '{second}'" in result.stderr, \
        result.stderr


@pytest.mark.parametrize("sheet, exit_code", [("OTHER", 0), ("Straße", 0), ("STRASSE", 1)])
def test_sheet_names_a_sheet_as_a_spreadsheet_program_finds_it_without_case(tmp_path, sheet, exit_code):
    """Excel finds a sheet by its name in any case (sheets 'Other' and 'other' are one name to it): `sheet: OTHER`
    was refused as "workbook has no sheet 'OTHER'; its sheets: 'Straße', 'Other'". Full case folding is not
    Excel's (ß is not SS)."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None},
                        case={"replace": {"cards/mini/game.yaml": [["  cards:\n", f"  cards:\n    sheet: {sheet}\n"]]}})
    two_sheet_workbook(root, "Straße", "Other")
    result = run(root, "validate")
    assert result.exit_code == exit_code, result.output
    # (at the table's `sheet:`, the name mistyped: it was said at the workbook, with no line)
    assert exit_code == 0 or re.search(r"cards/mini/game\.yaml:[0-9]+:12: error: workbook 'cards/mini/cards.xlsx' "
                                       "has no sheet 'STRASSE'", result.stderr), result.stderr


def test_sheets_whose_names_are_one_by_full_case_folding_alone_are_two_sheets(tmp_path):
    """'Straße' and 'STRASSE' are two names to Excel, which compares a character with a character (ß is not SS):
    the workbook was refused as one of two sheets of one name."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    two_sheet_workbook(root, "Straße", "STRASSE")
    result = run(root, "validate")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_field_whose_header_cell_would_name_no_column_or_another_is_refused_before_written(tmp_path, fmt):
    # a field named '' or ' ' was written under a blank header cell (its values then refused: 'a value in a column
    # without a name'), and fields 1 and '1' under two cells '1' ('column appears twice'), each with exit 0
    root = make_project(tmp_path / "proj")
    game, cards = root / "cards/mini/game.yaml", root / "cards/mini/cards.yaml"
    base_game, base_cards = game.read_text(encoding="utf-8"), cards.read_text(encoding="utf-8")
    optional = "type: str, required: false"
    for fields, given, line in ((f"      ' ': {{{optional}}}\n", "  ' ': hi\n", 20),
                                (f"      1: {{{optional}}}\n      '1': {{{optional}}}\n", "  1: x\n  '1': y\n", 20)):
        game.write_text(base_game.replace("    derived:", fields + "    derived:"), encoding="utf-8")
        cards.write_text(base_cards.replace("  power: 4\n", "  power: 4\n" + given), encoding="utf-8")
        assert run(root, "validate").exit_code == 0
        result = run(root, "convert", str(cards), "--to", fmt)
        assert result.exit_code == 1 and f"cards/mini/game.yaml:{line}:" in result.output \
            and "would be written as " in result.output, result.output
        assert not (root / f"cards/mini/cards.{fmt}").exists()


def test_convert_refuses_a_workbook_whose_sheets_two_tables_read(tmp_path):
    # tables a and b, of the same fields, read sheets A and B of one workbook: A was converted alone, exit 0
    fields = {"id": "str", "n": "int"}
    root, folder = two_tables(tmp_path, {"a": {"file": "t.xlsx", "sheet": "A", "fields": fields}},
                              {"b": {"file": "t.xlsx", "sheet": "B", "fields": fields}}, {})
    book = openpyxl.Workbook()
    book.active.title = "A"
    book.create_sheet("B")
    for sheet, item in (("A", ["x", 1]), ("B", ["y", 2])):
        book[sheet].append(["id", "n"])
        book[sheet].append(item)
    book.save(folder / "t.xlsx")
    assert run(root, "validate").exit_code == 0
    result = run(root, "convert", str(folder / "t.xlsx"), "--to", "yaml")
    assert result.exit_code == 2 and "tables a, b of cards/mini/game.yaml read 't.xlsx'" in result.output \
        and "different sheets" in result.output, result.output
    assert not (folder / "t.yaml").exists()


def test_a_shared_text_read_by_many_cells_counts_for_each_against_the_sheets_text(tmp_path):
    # a sheet of 61 KB whose 2,000 cells each read one shared text of 200,000 characters took 45 s: 400 million
    # characters checked, where a CSV or YAML file of them would be refused for its size. Here a text of 32,000
    # characters, within a cell's 32,767, read by 700 cells: the 656th passes the sheet's 20 MB
    root = make_project(tmp_path / "proj")
    folder = root / "cards/mini"
    book = openpyxl.Workbook()
    book.active.title = "cards"
    book.active.append(["id", "name", "kind", "power", "text"])
    for n in range(700):
        book.active.append([f"c{n}", "n", "beast", 1, "long"])
    book.save(folder / "cards.xlsx")
    _with_shared_texts(folder / "cards.xlsx")
    with zipfile.ZipFile(folder / "cards.xlsx") as z:
        parts = {name: z.read(name) for name in z.namelist()}
    texts = re.findall(rb"<si><t>(.*?)</t></si>", parts["xl/sharedStrings.xml"])
    long = b"%d" % texts.index(b"long")
    parts["xl/worksheets/sheet1.xml"] = re.sub(rb'(<c r="E(?!1")\d+" t="s"><v>)\d+', rb"\g<1>" + long,
                                               parts["xl/worksheets/sheet1.xml"])
    parts["xl/sharedStrings.xml"] = parts["xl/sharedStrings.xml"].replace(b"<t>long</t>", b"<t>%s</t>" % (b"word " * 6_400), 1)
    with zipfile.ZipFile(folder / "cards.xlsx", "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    (folder / "cards.yaml").unlink()
    assert "cards/mini/cards.xlsx[cards]:657:5: error: the sheet's text cells hold more than 20 MB of text together" \
        in run(root, "validate").output


def test_the_text_of_a_games_sheets_together_is_bounded(tmp_path, monkeypatch):
    # each table reading one sheet read its text again: the game's sheets share one allowance (lowered here)
    for module in ("load", "spreadsheet"):
        monkeypatch.setattr(f"pnp.model.{module}.MAX_GAME_SHEET_TEXT", 200)
    root = make_project(tmp_path / "proj")
    convert(root, root / "cards/mini/cards.yaml", "csv")
    (root / "cards/mini/cards.yaml").unlink()
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "tables:\n", "tables:\n  again:\n    file: cards.csv\n    fields: {id: {type: str}}\n", 1), encoding="utf-8")
    assert "cards/mini/cards.csv:1:1: error: the game's spreadsheets' text cells hold more than 0 MB of text" \
        in run(root, "validate").output


def test_a_field_named_longer_than_a_csv_cell_pnp_reads_is_refused_when_written(tmp_path):
    # the header cell of a field named in 140,000 characters was written with exit 0, and the CSV then refused
    name = "f" * 140_000
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [["    derived:", f"      ? {name}\n      : {{type: str, required: false}}\n    derived:"]],
        "cards/mini/cards.yaml": [["  power: 4\n", f"  power: 4\n  ? {name}\n  : x\n"]]}})
    assert run(root, "validate").exit_code == 0
    result = run(root, "convert", str(root / "cards/mini/cards.yaml"), "--to", "csv")
    assert result.exit_code == 1 and "cards/mini/game.yaml:21:9: error: field 'fff" in result.output \
        and "is named in 140,000 characters" in result.output, result.output
    assert not (root / "cards/mini/cards.csv").exists()


def test_a_table_file_in_a_folder_of_its_game_converts(tmp_path):
    # `file: data/cards.yaml` validated, and convert refused it: "a table file lives in cards/<game>/"
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [["  cards:\n", "  cards:\n    file: data/cards.csv\n"]]}})
    (root / "cards/mini/data").mkdir()
    (root / "cards/mini/cards.yaml").rename(root / "cards/mini/data/cards.yaml")
    convert(root, root / "cards/mini/data/cards.yaml", "csv")
    assert run(root, "validate").exit_code == 0
    result = run(root, "convert", str(root / "cards/mini/cards.yaml"), "--to", "csv")  # (no such table file)
    assert result.exit_code == 2 and "no table of cards/mini/game.yaml is read from 'cards.yaml'" in result.output


def test_a_table_file_named_through_dot_dot_converts_where_the_system_finds_it(tmp_path):
    """`pnp convert cards/mini/../mini/cards.yaml` was refused: "a table file lives in cards/<game>/", though the
    file named is cards/mini/cards.yaml. A '..' after a link is where the link leads, out of the project here."""
    root = make_project(tmp_path / "proj")
    result = run(root, "convert", str(root / "cards/mini/../mini/cards.yaml"), "--to", "csv")
    assert result.exit_code == 0 and "wrote cards/mini/cards.csv: 4 items" in result.output, result.output
    for folder in ("mini", "in"):
        (tmp_path / "elsewhere" / folder).mkdir(parents=True)
    shutil.copy(root / "cards/mini/cards.yaml", tmp_path / "elsewhere" / "mini" / "cards.yaml")
    (root / "cards" / "away").symlink_to(tmp_path / "elsewhere" / "in")
    linked = run(root, "convert", str(root / "cards/away/../mini/cards.yaml"), "--to", "xlsx")
    assert linked.exit_code == 2 and "cards/away/../mini/cards.yaml: error: a table file lives in cards/<game>/" \
        in linked.output, linked.output
    assert sorted(p.name for p in (tmp_path / "elsewhere" / "mini").iterdir()) == ["cards.yaml"]
    assert not (root / "cards/mini/cards.xlsx").exists()
    # a name longer than the system allows, before its '..': no link (asked of the system, it raised)
    long = run(root, "convert", str(root / "cards/mini" / ("n" * 300) / ".." / "cards.yaml"), "--to", "xlsx")
    assert long.exit_code == 0 and "wrote cards/mini/cards.xlsx" in long.output, long.output


@pytest.mark.parametrize("rule, said", [
    ('<cfRule type="expression" priority="1" dxfId="0"><formula>TRUE</formula></cfRule>',
     "cards/mini/cards.xlsx[cards]:2:2: error: conditional formatting of cells 'B2:B5' shows them in the number "
     "format ';;;'"),
    ('<cfRule type="dataBar" priority="1"><dataBar showValue="0"><cfvo type="min"/><cfvo type="max"/>'
     '<color rgb="FF638EC6"/></dataBar></cfRule>',
     "cards/mini/cards.xlsx[cards]:2:2: error: conditional formatting of cells 'B2:B5' shows its bar alone")])
def test_a_conditional_format_changing_what_its_cells_show_is_refused_at_its_first_cell(tmp_path, rule, said):
    """A rule of number format ;;; over the names (or a data bar shown without its values) left the sheet blank
    where the cards printed the names, exit 0: pnp runs no rule's condition."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    book = mini_cards_workbook()
    def edited(name: str, part: bytes) -> bytes:
        if name == "xl/worksheets/sheet1.xml":
            return part.replace(b"</sheetData>", f'</sheetData><conditionalFormatting sqref="B2:B5">{rule}'
                                '</conditionalFormatting>'.encode())
        if name == "xl/styles.xml":
            return re.sub(rb"<dxfs[^>]*/>|<dxfs.*?</dxfs>", b"", part).replace(b"<tableStyles", (
                '<dxfs count="1"><dxf><numFmt numFmtId="200" formatCode=";;;"/></dxf></dxfs>'
                '<tableStyles').encode())
        return part

    saved_with(book, root / "cards" / "mini" / "cards.xlsx", edited)
    result = run(root, "validate")
    assert result.exit_code == 1 and said in result.stderr, result.output


def test_a_number_field_reads_a_number_cell_as_the_sheet_shows_it_or_refuses_it_at_its_cell(tmp_path):
    """A number field read the number a cell holds under any format: 1 formatted 0% (shown 100%), 1.4 formatted 0
    (shown 1), 3 formatted "No. "0, -2 formatted 0;0 (shown 2), each with exit 0. It reads the number where the
    sheet shows it as itself (a thousands separator, decimals it has, a colour, Excel's accounting style), and
    refuses it at its cell where it does not."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    path = root / "cards" / "mini" / "cards.xlsx"
    book = mini_cards_workbook()
    shown_as_itself = ["#,##0", "0.00", "[Blue]General", '_-* #,##0_-;-* #,##0_-;_-* "-"_-;_-@_-']
    for row, code in enumerate(shown_as_itself, start=2):
        book.active.cell(row=row, column=4).number_format = code  # power, an int field
    book.save(path)
    result = run(root, "validate")
    assert result.exit_code == 0, result.output
    for code, value in (("0%", 1), ("0", 1.4), ('"No. "0', 3), ("0;0", -2)):
        cell = book.active.cell(row=3, column=4, value=value)
        cell.number_format = code
        book.save(path)
        result = run(root, "validate")
        assert result.exit_code == 1 and (f"cards/mini/cards.xlsx[cards]:3:4: error: this number cell ({value}) is "
                                          f"formatted as '{code}', so the sheet shows it as another number"
                                          ) in result.stderr, result.output


def test_a_comma_scaling_a_number_and_a_number_closer_to_zero_than_floats_hold_are_refused_at_their_cells(tmp_path):
    """A comma after a number's digits and not before another (0,.0) divides it by 1,000 as a sheet shows it: a
    number field read 2 where the sheet showed 0.0, exit 0 (0,0.0 is a thousands separator, read as the number).
    A number closer to 0 than 2.2251e-308 (Excel's smallest) was read as 0, or with fewer digits: 1e-400 in a CSV
    printed 0.0; a workbook's 5e-324 (which Excel shows as 0) as 5e-324."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    game = root / "cards" / "mini" / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace('      text: {type: text, default: ""}\n', (
        '      text: {type: text, default: ""}\n      weight: {type: number, required: false}\n')), encoding="utf-8")
    book = mini_cards_workbook()
    book.active["G1"], book.active["G4"] = "weight", 2
    book.active["G4"].number_format = "0,0.0"  # (shows 2.0)
    book.active["D3"].number_format = "0,.0"  # power 1 shown as 0.0
    book.save(root / "cards" / "mini" / "cards.xlsx")
    result = run(root, "validate")
    assert result.exit_code == 1 and "cards/mini/cards.xlsx[cards]:3:4: error: this number cell (1) is formatted as " \
        "'0,.0', so the sheet shows it as another number" in result.stderr, result.output
    assert ":4:7:" not in result.stderr
    book.active["D3"].number_format, book.active["G2"] = "General", 5e-324
    book.save(root / "cards" / "mini" / "cards.xlsx")
    result = run(root, "validate")
    assert result.exit_code == 1 and "cards/mini/cards.xlsx[cards]:2:7: error: '5e-324' is closer to 0 than the " \
        "smallest number" in result.stderr, result.output
    (root / "cards" / "mini" / "cards.xlsx").unlink()
    (root / "cards" / "mini" / "cards.csv").write_text(
        "id,name,kind,power,weight\nlion,Lion,beast,4,-0.0e-400\nfern,Fern,plant,1,1e-400\n", encoding="utf-8")
    result = run(root, "validate")
    assert result.exit_code == 1 and "cards/mini/cards.csv:3:5: error: '1e-400' is closer to 0 than the smallest " \
        "number pnp (or a spreadsheet) holds with its digits" in result.stderr, result.output


def test_a_number_of_a_built_in_format_left_to_the_language_is_refused_at_its_cell(tmp_path):
    """numFmtId 31 is a date in Japanese Excel (2023年3月15日), and openpyxl reads it as General: the text field
    printed 45000, exit 0. Here as the power (a number field), whose cell shows a date just as well."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    book = mini_cards_workbook()
    book.active["D3"].number_format = "0.00E+00"  # (built-in 11, made 31 below)
    saved_with(book, root / "cards" / "mini" / "cards.xlsx", lambda name, part: part.replace(
        b'numFmtId="11"', b'numFmtId="31"') if name == "xl/styles.xml" else part)
    result = run(root, "validate")
    assert result.exit_code == 1 and ("cards/mini/cards.xlsx[cards]:3:4: error: this number cell (1) has the built-in "
                                      "number format 31, which a spreadsheet program shows as its language does"
                                      ) in result.stderr, result.output


def test_a_workbook_converted_on_windows_is_the_same_file(proj, monkeypatch):
    """Each zip entry bore the system it was made on (ZipInfo reads sys.platform): a table converted on Windows
    was a file other than on Linux, a change in version control at each convert by another teammate."""
    folder = proj / "cards" / GAME
    convert(proj, folder / "turn.yaml", "xlsx")
    made = (folder / "turn.xlsx").read_bytes()
    monkeypatch.setattr("sys.platform", "win32")
    convert(proj, folder / "turn.yaml", "xlsx", "--force")
    assert (folder / "turn.xlsx").read_bytes() == made


@pytest.mark.parametrize("name, data, said", [
    ("cards.csv", b"PK\x03\x04\x14\0\0\0\x08\0\xc7id,name\n", "this is a zip package, as an .xlsx workbook is, not CSV text"),
    ("cards.csv", b"PK\x05\x06" + bytes(18), "this is a zip package, as an .xlsx workbook is, not CSV text"),
    ("cards.csv", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504), "this is an Excel 97-2003 workbook (.xls)"),
    ("cards.yaml", b"PK\x03\x04\x14\0\0\0\x08\0\xc7", "this is a zip package, as an .xlsx workbook is, not YAML text"),
])
def test_a_workbook_named_as_a_text_table_is_refused_saying_what_it_is(tmp_path, name, data, said):
    """A workbook renamed .csv (read as the table's cards.csv) was refused as "not UTF-8 text (byte 0xc7)", an
    empty one's bytes read as a header (refused as one naming no field), an .xls workbook renamed .csv as "not
    UTF-8 text (byte 0xd0)", a workbook named .yaml as YAML's "not UTF-8 text"."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    (root / "cards" / "mini" / name).write_bytes(data)
    result = run(root, "validate")
    assert result.exit_code == 1 and result.stderr.startswith(f"cards/mini/{name}:1:1: error: {said}"), result.output


def test_a_cell_aligned_as_fill_is_refused_at_its_cell(tmp_path):
    """Fill alignment repeats a cell's text across it: the sheet showed 'LionLionLion' where the card printed
    'Lion', exit 0."""
    from openpyxl.styles import Alignment

    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    book = mini_cards_workbook()
    book.active["B2"].alignment = Alignment(horizontal="fill")
    book.save(root / "cards" / "mini" / "cards.xlsx")
    result = run(root, "validate")
    assert result.exit_code == 1 and result.stderr.startswith(
        "cards/mini/cards.xlsx[cards]:2:2: error: this cell is aligned as Fill"), result.output


def test_a_drop_downs_error_message_holds_at_most_255_units_as_excel_counts(tmp_path):
    """The message was cut at 255 characters, and an enum of emoji made one of 340 UTF-16 units, past Excel's
    255 (each emoji two)."""
    kinds = [chr(0x1F400 + n) for n in range(120)]
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["kind: [beast, plant]", f"kind: [{', '.join(kinds)}]"]]}})
    cards = (root / "cards" / "mini" / "cards.yaml").read_text(encoding="utf-8")
    (root / "cards" / "mini" / "cards.yaml").write_text(
        cards.replace("kind: beast", f"kind: {kinds[0]}").replace("kind: plant", f"kind: {kinds[1]}"), encoding="utf-8")
    result = run(root, "convert", str(root / "cards" / "mini" / "cards.yaml"), "--to", "xlsx")
    assert result.exit_code == 0, result.output
    rule = openpyxl.load_workbook(root / "cards" / "mini" / "cards.xlsx").active.data_validations.dataValidation[0]
    assert rule.error.startswith("kind is one of: ") and 250 < len(rule.error.encode("utf-16-le")) // 2 <= 255


def test_convert_never_writes_over_a_file_a_game_reads_for_another_table(three_games):
    """`--out cards/<game>/other-table.yaml --force` wrote this table's items over the file the game reads another
    table from (exit 0; the game then failed by the hundred); the table's own file, in another format, is
    replaced with --force as before."""
    proj = three_games
    evo, dinospan = proj / "cards" / "evo", proj / "cards" / "dinospan"
    events = evo / "events.yaml"
    os.link(evo / "genes.yaml", evo / "GENES-linked.yaml")  # (another name of it: GENES.yaml on macOS, Windows)
    for out, reader in ((evo / "genes.yaml", "table 'genes' of cards/evo/game.yaml"),
                        (evo / "GENES-linked.yaml", "table 'genes' of cards/evo/game.yaml"),
                        (evo / "rules.yaml", "the rules: of cards/evo/game.yaml"),
                        (evo / ".." / "dinospan" / "goals.yaml", "table 'goals' of cards/dinospan/game.yaml")):
        kept = out.read_bytes()
        result = run(proj, "convert", str(events), "--to", out.suffix[1:], "--out", str(out), "--force")
        assert result.exit_code == 2 and f"is read by {reader}, and --force does not" in result.output, result.output
        assert out.read_bytes() == kept, out
    convert(proj, evo / "map.yaml", "csv")  # map names no file: it reads map.yaml, else map.csv
    (evo / "map.yaml").unlink()
    result = run(proj, "convert", str(events), "--to", "yaml", "--out", str(evo / "map.yaml"))  # (read before map.csv)
    assert result.exit_code == 2 and "is read by table 'map' of" in result.output, result.output
    assert not (evo / "map.yaml").exists()
    triassic, jurassic = dinospan / "dinosaurs-triassic.yaml", dinospan / "dinosaurs-jurassic.yaml"
    result = run(proj, "convert", str(triassic), "--to", "yaml", "--out", str(jurassic), "--force")
    assert result.exit_code == 2 and "table 'dinosaurs' of cards/dinospan/game.yaml" in result.output, result.output
    convert(proj, events, "csv")
    convert(proj, evo / "events.csv", "yaml", "--out", str(events), "--force")
    # names a disk blind to case reads as the file of another table, or as the file converted (a Mac's, Windows')
    for out, said in ((evo / "GENES.yaml", "is read by table 'genes' of cards/evo/game.yaml"),
                      (evo / "Events.yaml", "is cards/evo/events.yaml itself by another name")):
        result = run(proj, "convert", str(events), "--to", "yaml", "--out", str(out), "--force")
        assert result.exit_code == 2 and said in result.output and not out.exists(), result.output


def test_a_number_cell_in_an_enum_field_is_matched_by_what_the_sheet_shows(tmp_path):
    """An enum cell holding 0.5 formatted 0% was refused though 50% was one of the enum's values, where a text
    field reads it as the 50% the sheet shows; one formatted 0.0% (the sheet shows 50.0%) was matched with the
    value 0.5, printed where the sheet showed 50.0%, exit 0: it is refused as in a text field."""
    root, folder = two_tables(tmp_path, {"a": {"fields": {"id": "str", "k": {"type": "enum", "values": ["50%", 0.5]}}}},
                              {}, {"a.yaml": "- {id: x, k: 0.5}\n- {id: y, k: 0.5}\n"})
    convert(root, folder / "a.yaml", "xlsx")
    (folder / "a.yaml").unlink()
    book = openpyxl.load_workbook(folder / "a.xlsx")
    book.active["B2"].number_format = "0%"
    book.save(folder / "a.xlsx")
    convert(root, folder / "a.xlsx", "yaml", "--out", str(root / "back.yaml"))
    assert yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8")) == [{"id": "x", "k": "50%"},
                                                                                 {"id": "y", "k": 0.5}]
    book.active["B3"].number_format = "0.0%"
    book.save(folder / "a.xlsx")
    result = run(root, "validate", "mini")
    assert result.exit_code == 1 and [ln for ln in result.stderr.splitlines() if ": error: " in ln] == [
        "cards/mini/a.xlsx[a]:3:2: error: this number cell (0.5) is formatted as '0.0%', so the sheet shows it "
        "otherwise than its enum field would print it: format the cell as text and type the text"]


def test_a_csv_tables_refused_number_is_quoted_as_its_cell_writes_it(tmp_path):
    """A CSV cell's number refused was quoted as Python prints it: a power of 4.50 was said as 4.5, where a YAML
    table's is said as written (a designer looking for 4.5 in the sheet found nothing)."""
    root = make_project(tmp_path / "proj", changes={
        "cards/mini/cards.yaml": None,
        "cards/mini/cards.csv": "id,name,kind,power\nlion,Lion,beast,4.50\nfern,Fern,plant,1\nwolf,Wolf,beast,3\n"
                                "moss,Moss,plant,2\n"})
    said = [ln for ln in run(root, "validate", "mini").stderr.splitlines() if ": error: " in ln]
    assert said == ["cards/mini/cards.csv:2:4: error: power: expected a whole number, got a number 4.50"], said


@pytest.mark.parametrize("held, said", [("0.30000000000000004", "0.3"), ("1E17", "1E+17")])
def test_a_number_cell_is_quoted_as_pnp_prints_the_number(tmp_path, held, said):
    """A number cell has no written text, and a message quoted its number as Python writes it: a count of
    0.30000000000000004 (as a program writes 0.1 + 0.2, and the sheet shows 0.3) was said so, in the field's check
    and in the component's count of copies; a whole number past 2**53 (1E+17, as General shows it) as 1e+17."""
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["    count: 4\n", "    quantity: power\n"]]}})
    folder = root / "cards" / "mini"
    convert(root, folder / "cards.yaml", "xlsx")
    (folder / "cards.yaml").unlink()
    with zipfile.ZipFile(folder / "cards.xlsx") as book:
        parts = {name: book.read(name) for name in book.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    parts["xl/worksheets/sheet1.xml"] = re.sub(r'(<c r="D2"[^>]*>)<v>4</v>', rf"\g<1><v>{held}</v>", sheet).encode()
    with zipfile.ZipFile(folder / "cards.xlsx", "w") as book:
        for name, data in parts.items():
            book.writestr(name, data)
    result = run(root, "validate", "mini")
    lines = [line for line in result.stderr.splitlines() if "cards.xlsx[cards]:2:4:" in line]
    assert len(lines) == 2 and all(line.endswith(f" {said}") for line in lines), result.output


def test_a_number_field_reads_a_number_a_format_of_sections_or_fractions_shows_as_itself(tmp_path):
    """A negative number under a format writing its own minus (0;-0, #,##0;-#,##0, Excel's accounting style), a
    whole number under a fraction of ? places (# ?/? shows 3 as 3), and General in a format of several sections
    were refused as shown otherwise, where the sheet shows the number pnp reads; a number of 11 digits under 30
    decimal places was a traceback (rounded in a context of 40 digits). Still refused where it shows another: (2)
    for -2, 3/1 for 3, 5 for -5 (General;General)."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    path = root / "cards" / "mini" / "cards.xlsx"
    back = ["convert", str(path), "--to", "yaml", "--out", str(root / "back.yaml"), "--force"]
    shown_as_itself = [("0;-0", -2), ("#,##0;-#,##0", -2000), ("# ?/?", 3), ("General;-General", -5),
                       ("[Red]0.0;[Blue]-0.0", -2.5), ('_-* #,##0_-;-* #,##0_-;_-* "-"_-;_-@_-', -5),
                       ("# ??/??", 12), ('0;"-"0', -4), ("0." + "0" * 30, 12345678901)]  # (30 places: Excel's most)
    for first in (0, 4, 8):
        book = mini_cards_workbook()
        for row, (code, value) in enumerate(shown_as_itself[first:first + 4], start=2):
            book.active.cell(row=row, column=4, value=value).number_format = code  # power, an int field
        book.save(path)
        result = run(root, *back)
        assert result.exit_code == 0, result.output
        read = [card["power"] for card in yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8"))]
        assert read[:len(shown_as_itself[first:first + 4])] == [value for _, value in shown_as_itself[first:first + 4]]
    for code, value in (("#,##0;(#,##0)", -2), ("?/?", 3), ("General;General", -5), ("0;0-", -2)):
        book = mini_cards_workbook()
        book.active.cell(row=3, column=4, value=value).number_format = code
        book.save(path)
        result = run(root, *back)
        assert result.exit_code == 1 and (f"cards/mini/cards.xlsx[cards]:3:4: error: this number cell ({value}) is "
                                          f"formatted as '{code}', so the sheet shows it as another number"
                                          ) in result.output, result.output


def test_a_number_formatted_in_a_language_of_its_own_digits_is_refused_at_its_cell(tmp_path):
    """A language tag whose top byte names a numeral system ([$-D000000]: Thai digits, as the built-in formats
    left to the language show) was taken for one changing no character: the sheet showed ๕ where a text field
    printed 5, exit 0; a number field read 5 where the built-in Thai format is refused. A tag naming a language
    alone ([$-409]) still reads."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    path = root / "cards" / "mini" / "cards.xlsx"
    back = ["convert", str(path), "--to", "yaml", "--out", str(root / "back.yaml"), "--force"]
    for column, code, read in ((2, "[$-409]General", True), (4, "[$-409]0.00", True), (2, "[$-D000000]General", False),
                               (4, "[$-D000000]0", False), (4, "[$-F800]0", False)):
        book = mini_cards_workbook()
        book.active.cell(row=3, column=column, value=5).number_format = code  # the name (text) or the power
        book.save(path)
        result = run(root, *back)
        assert (result.exit_code == 0) == read, (code, result.output)
        assert read or f"cards/mini/cards.xlsx[cards]:3:{column}: error: this number cell (5) is formatted as '{code}'" \
            in result.output, result.output


def test_a_number_a_section_of_general_shows_as_its_text_is_read_in_a_text_field(tmp_path):
    """A number cell under General;-General (or [Blue]General;[Red]-General) shows its text as General does, -5 as
    -5: a text field refused it as shown otherwise. General;General shows -5 as 5: still refused."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    path = root / "cards" / "mini" / "cards.xlsx"
    back = ["convert", str(path), "--to", "yaml", "--out", str(root / "back.yaml"), "--force"]
    book = mini_cards_workbook()
    book.active.cell(row=3, column=2, value=-5).number_format = "General;-General"  # the name, a text field
    book.active.cell(row=4, column=2, value=2.5).number_format = "[Blue]General;[Red]-General"
    book.save(path)
    result = run(root, *back)
    assert result.exit_code == 0, result.output
    assert [card["name"] for card in yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8"))][1:3] == [
        "-5", "2.5"]
    book.active.cell(row=3, column=2).number_format = "General;General"
    book.save(path)
    result = run(root, *back)
    assert result.exit_code == 1 and "cards/mini/cards.xlsx[cards]:3:2: error: this number cell (-5) is formatted as " \
        "'General;General'" in result.output, result.output


def test_a_csv_file_of_blank_rows_is_a_table_of_no_items_as_an_empty_file_is(tmp_path):
    """A CSV file of blank lines (or of commas, or of spaces) was refused as 'the first row names the fields; it is
    empty', where an empty file of 0 bytes was read as a table of no items: each is read as no items. A blank first
    row before a header is still refused there."""
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["    fields:", "    file: cards.csv\n    fields:"]]}, "files": {"cards/mini/cards.yaml": None}})
    path = root / "cards" / "mini" / "cards.csv"
    for data in (b"\n\n\n", b",,,\r\n  ,\"\"\r\n"):
        path.write_bytes(data)
        result = run(root, "validate", "mini")
        assert "count 4 but the data gives 0" in result.stderr and "cards.csv:1:1: error: the first row" not in \
            result.stderr, (data, result.output)
    path.write_bytes(b"\n\nid,name\n")
    assert "cards/mini/cards.csv:1:1: error: the first row names the fields" in run(root, "validate", "mini").stderr


def test_the_line_of_a_value_after_many_blank_rows_is_counted_without_a_list_of_line_ends(monkeypatch):
    """A value after 20 MB of blank lines past the limit was found at its line by a list of every line end before
    it (7 s; 830 MB where they were \\r\\n): they are counted, the memory used no more than a few bytes a line."""
    import tracemalloc

    from pnp.model import spreadsheet

    monkeypatch.setattr(spreadsheet, "MAX_ROWS", 3)
    text = "id,name\na,b\n" + "\r\n" * 1_000_000 + "\r\n\rx\n"
    tracemalloc.start()
    try:
        _, line = spreadsheet._check_row_widths(text, ",", "t.csv", 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert line == 2 + 1_000_000 + 2 + 1 and peak < 4 * 2**20, (line, peak)


def test_a_number_field_reads_a_number_under_a_format_of_decimals_as_the_sheet_shows_it(tmp_path):
    """0.30000000000000004 (a sum's float, as a program writes 0.1 + 0.2) formatted 0.0 is shown 0.3, in Excel's 15
    significant digits: a number field refused it as shown otherwise. It reads 0.3, as shown: a field of at most 0.3
    takes it."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None}, case={"replace": {"cards/mini/game.yaml": [
        ["power: {type: int, min: 1, max: 5}", "power: {type: number, min: 0, max: 0.3}"]]}})
    book = mini_cards_workbook()
    for row, value in enumerate((0.30000000000000004, -0.30000000000000004 + 0.6, 0.1, 0.2), start=2):
        book.active.cell(row=row, column=4, value=value).number_format = "0.0"
    book.save(root / "cards" / "mini" / "cards.xlsx")
    result = run(root, "validate")
    assert result.exit_code == 0, result.output


def test_blank_csv_cells_past_the_limits_are_blank_as_the_rows_before_read_them(tmp_path, monkeypatch):
    """A cell of white space reads as blank in the rows of a CSV table; past its limits (rows, columns) a quoted
    space, a tab or a no-break space was taken for a value, and the file refused as too long or too wide. They are
    passed over there too; a character beside a quoted cell is still refused, at its line."""
    monkeypatch.setattr("pnp.model.spreadsheet.MAX_ROWS", 6)  # (MAX_COLUMNS is compiled into a cached pattern)
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["    fields:", "    file: cards.csv\n    fields:"]]}, "files": {"cards/mini/cards.yaml": None}})
    path = root / "cards" / "mini" / "cards.csv"
    past = "," * 1_000  # (past the 1,000th column)
    rows = ["id,name,kind,power", f'lion,Lion,beast,4{past}," "', f'fern,Fern,plant,1{past},\t,"\t"', "ant,Ant,beast,2",
            f'rex,Rex,beast,5{past},"\u00a0\r\n",\u00a0']
    blank = ['" "', "\t,\u00a0", ',"  ",""', '"\n"']
    path.write_text("\n".join(rows + blank) + "\n", encoding="utf-8", newline="")
    assert run(root, "validate", "mini").exit_code == 0
    for after, line in (('" "x', 12), (' " "', 12), ('" " ', 12), ('"\n "x', 12)):
        path.write_text("\n".join(rows + blank + [after]), encoding="utf-8", newline="")
        result = run(root, "validate", "mini")
        assert f"cards/mini/cards.csv:{line}:1: error: sheet has more than 6 rows" in result.stderr, (after, result.output)


@pytest.mark.parametrize("encoding", ["utf-32", "utf-32-be", "utf-32-le"])
def test_a_utf32_csv_is_said_to_be_utf32(tmp_path, encoding):
    """A UTF-32 CSV with its byte-order mark was said to be UTF-16 (the mark's first two bytes are UTF-16's); one
    without a mark was refused at its first NUL, as a control character."""
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["    fields:", "    file: cards.csv\n    fields:"]]}, "files": {"cards/mini/cards.yaml": None}})
    (root / "cards" / "mini" / "cards.csv").write_bytes("id,name\nx,Café\n".encode(encoding))
    result = run(root, "validate", "mini")
    assert result.exit_code == 1 and "cards/mini/cards.csv:1:1: error: UTF-32 text, not UTF-8" in result.stderr, \
        result.output


def test_blank_workbook_cells_past_the_limits_are_blank_as_the_rows_before_read_them(tmp_path, monkeypatch):
    """A text cell of white space reads as blank in the rows of a sheet, as in a CSV table's; past the sheet's
    limits (rows, columns) a shared, inline or formula-result text of a space was taken for a value, and the
    workbook refused as too long or too wide, where the CSV reader passes such cells over. They are passed over
    there too; a text that is not blank is still refused, at its cell."""
    monkeypatch.setattr("pnp.model.spreadsheet.MAX_ROWS", 6)
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    path = root / "cards" / "mini" / "cards.xlsx"
    book = mini_cards_workbook()
    for row in range(2, 8):  # (the 7th and 8th rows are past the 6 read)
        book.active.cell(row=row, column=1_001, value=" \u00a0")
        book.active.cell(row=row, column=5, value=" ")
    book.active.cell(row=8, column=1, value="\t")
    book.save(path)
    _with_shared_texts(path)
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    blank = (b'<row r="9"><c r="A9" t="inlineStr"><is><r><t xml:space="preserve"> </t></r></is></c>'
             b'<c r="B9" t="str"><v xml:space="preserve"> </v></c><c r="ALM9" t="inlineStr"><is><t> </t></is></c></row>')
    for after, said in ((b"", None), (b'<row r="10"><c r="B10" t="inlineStr"><is><t> </t></is></c>'
                                      b'<c r="C10" t="s"><v>0</v></c></row>', "10:1")):  # (shared text 0 is 'id')
        parts["xl/worksheets/sheet1.xml"] = re.sub(rb"(<row r=\"9\".*)?</sheetData>", blank + after + b"</sheetData>",
                                                   parts["xl/worksheets/sheet1.xml"])
        _validated_as(root, path, parts, said and f"{said}: error: sheet has more than 6 rows")


def test_a_number_field_reads_a_number_under_general_in_15_digits_as_under_a_format_of_decimals(tmp_path):
    """A number under a format of decimals reads in Excel's 15 significant digits, as the sheet shows and keeps it;
    under General the float held was read: 0.1234567890123456 converted to YAML (and printed by '%r') so, where
    under 0.000000000000000 it was 0.123456789012346. Both read the 15 digits, as Excel keeps a number typed in."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None}, case={"replace": {"cards/mini/game.yaml": [
        ["power: {type: int, min: 1, max: 5}", "power: {type: number, min: 0}"]]}})
    book = mini_cards_workbook()
    values = (0.1234567890123456, 0.1234567890123456, 12345678901234567891, 2)
    for row, (value, shape) in enumerate(zip(values, ("General", "0.000000000000000", "General", "General")), start=2):
        book.active.cell(row=row, column=4, value=value).number_format = shape
    book.save(root / "cards" / "mini" / "cards.xlsx")
    convert(root, root / "cards" / "mini" / "cards.xlsx", "yaml")
    read = yaml.safe_load((root / "cards" / "mini" / "cards.yaml").read_text(encoding="utf-8"))
    assert [item["power"] for item in read] == [0.123456789012346, 0.123456789012346, 1.23456789012346e19, 2], read
    (root / "cards" / "mini" / "cards.yaml").write_text(yaml.safe_dump([{**read[0], "power": 0.1234567890123456}]))
    convert(root, root / "cards" / "mini" / "cards.yaml", "xlsx", "--force")  # (the number a text cell: as typed)
    convert(root, root / "cards" / "mini" / "cards.xlsx", "yaml", "--force")
    assert yaml.safe_load((root / "cards" / "mini" / "cards.yaml").read_text(encoding="utf-8"))[0]["power"] == \
        0.1234567890123456


def test_a_whole_number_past_the_largest_float_converts_to_a_workbook_as_its_text(tmp_path):
    """A number cell holds a float: a whole number past the largest (10**400, which a number field and an enum
    take) ended convert --to xlsx as a bug in pnp (OverflowError), the table given as an item's value or an enum's
    value offered in its drop-down. Written as its text, it reads back as the number."""
    huge = "1" + "0" * 400
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["power: {type: int, min: 1, max: 5}", "power: {type: int, min: 1}"], ["kind: [beast, plant]",
                                                                            f"kind: [beast, plant, {huge}]"]],
        "cards/mini/cards.yaml": [["power: 4", f"power: {huge}"], ["kind: beast", f"kind: {huge}"]]}})
    folder = root / "cards" / "mini"
    original = yaml.safe_load((folder / "cards.yaml").read_text(encoding="utf-8"))
    assert original[0]["power"] == original[0]["kind"] == 10**400, original[0]
    convert(root, folder / "cards.yaml", "xlsx")
    convert(root, folder / "cards.xlsx", "yaml", "--out", str(root / "back.yaml"))
    assert yaml.safe_load((root / "back.yaml").read_text(encoding="utf-8")) == original


def test_a_utf16_csv_that_begins_with_the_character_0_is_said_to_be_utf16(tmp_path):
    """UTF-16's byte-order mark and a character U+0000 are FF FE 00 00, UTF-32's mark: such a file was said to be
    UTF-32. The characters after it are read as UTF-32 to tell them apart."""
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["    fields:", "    file: cards.csv\n    fields:"]]}, "files": {"cards/mini/cards.yaml": None}})
    (root / "cards" / "mini" / "cards.csv").write_bytes("\ufeff\x00id,name\nx,Café\n".encode("utf-16-le"))
    result = run(root, "validate", "mini")
    assert result.exit_code == 1 and "cards/mini/cards.csv:1:1: error: UTF-16 text, not UTF-8" in result.stderr, \
        result.output


def test_workbook_cells_of_an_empty_value_past_the_limits_are_blank_as_the_rows_before_read_them(tmp_path,
                                                                                                monkeypatch):
    """A cell whose <v/> holds no value reads as blank in a sheet's rows; past its limits (rows, columns) it was
    taken for a value, and the sheet refused as too long or too wide. An error cell of no value is said so, not
    as Python's 'None'."""
    monkeypatch.setattr("pnp.model.spreadsheet.MAX_ROWS", 6)
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    path = root / "cards" / "mini" / "cards.xlsx"
    mini_cards_workbook().save(path)
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"]
    for cells, said in ((b'<c r="E2"><v/></c><c r="ALM2"><v></v></c><c r="ALN2" t="n"><v/></c>'
                         b'<c r="ALO2" t="s"><v/></c><c r="ALP2" t="b"><v/></c>', None),
                        (b'<c r="E2" t="e"><v/></c>', "2:5: error: this cell holds an error value (of no text)")):
        rows_past = b'<row r="9"><c r="A9"><v/></c><c r="B9" t="s"><v/></c></row></sheetData>'
        parts["xl/worksheets/sheet1.xml"] = re.sub(rb'(<row r="2">.*?)</row>', rb"\1" + cells + b"</row>", sheet,
                                                   count=1).replace(b"</sheetData>", rows_past)
        _validated_as(root, path, parts, said)


def _validated_as(root, path, parts, said):
    """The workbook at `path` written of `parts`; the mini game then validates (said None) or is refused with
    cards.xlsx[cards]:`said`."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    result = run(root, "validate", "mini")
    if said is None:
        assert result.exit_code == 0, result.output
    else:
        assert f"cards/mini/cards.xlsx[cards]:{said}" in result.stderr, result.output


def test_a_true_false_header_cell_names_its_column_as_the_sheet_shows_it(tmp_path):
    """A header cell of TRUE named its column 'True', Python's word, where the sheet shows TRUE."""
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": None})
    book = mini_cards_workbook()
    book.active.cell(row=1, column=5, value=True)
    book.active.cell(row=2, column=5, value=7)
    book.save(root / "cards" / "mini" / "cards.xlsx")
    result = run(root, "validate", "mini")
    assert "cards/mini/cards.xlsx[cards]:1:5: error: unknown field 'TRUE'" in result.stderr, result.output


def test_convert_refuses_a_file_named_as_a_folder(proj):
    """`--out x.csv/` (a folder, to the user and the system) wrote a file x.csv: Python's paths drop the '/'."""
    tokens = proj / "cards" / GAME / "tokens.yaml"
    for args in ([str(tokens), "--out", str(proj / "cards" / GAME / "x.csv") + "/"],
                 [str(tokens), "--out", str(proj / "cards" / GAME / "x.csv") + "/."], [str(tokens) + "/"]):
        result = run(proj, "convert", *args, "--to", "csv")
        assert result.exit_code == 2 and "which names a folder" in result.output, result.output
    assert not list((proj / "cards" / GAME).glob("*.csv"))


@pytest.mark.parametrize("custom, read", [("", True), (' customHeight="1"', False)])
def test_a_default_row_height_of_0_hides_rows_only_when_set_by_hand(tmp_path, custom, read):
    """Excel sizes a row of no height of its own by the Normal style's font unless the sheet's defaultRowHeight is
    marked as set (customHeight, ECMA-376 Part 1, 18.3.1.81): a sheet of defaultRowHeight="0" alone, which Excel
    shows whole, was refused as hiding its rows."""
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    path = tmp_path / "t.xlsx"
    _styled_workbook(path)
    rezip(path, lambda name, data: re.sub(rb'defaultRowHeight="15"', b'defaultRowHeight="0"%s' % custom.encode(), data)
          if name == "xl/worksheets/sheet1.xml" else data)
    if read:
        assert [dict(item) for item in read_table(path, "cards/g/t.xlsx", Schema({"id": "str"}, {}))] == [{"id": "i"}]
    else:
        with pytest.raises(LoadError) as refused:
            read_table(path, "cards/g/t.xlsx", Schema({"id": "str"}, {}))
        assert (refused.value.mark.line, refused.value.mark.col) == (1, 1)
        assert refused.value.message.startswith("this cell's row is hidden"), refused.value.message


def test_a_value_coloured_as_its_fill_is_read_and_warned_of_at_its_first_cell(tmp_path):
    """A cell typed in white on no fill (or on a white one, or black on black, or shown in white by its number
    format, or a rich text's run in white) showed nothing in the sheet, and was read and printed with no word. It is still read (its value is the cell's), with one warning for the sheet at its
    first such cell; white on a dark fill, a tinted theme colour that shows, and white on a patterned fill are not
    warned of."""
    from openpyxl.cell.rich_text import CellRichText, TextBlock
    from openpyxl.cell.text import InlineFont
    from openpyxl.styles import Color, Font, PatternFill

    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    white, solid = Font(color="FFFFFFFF"), lambda colour: PatternFill("solid", fgColor=colour)
    cells = {"B2": (white, PatternFill()), "B3": (Font(color="FF000000"), solid("FF000000")),
             "B4": (Font(color=Color(theme=0)), solid("FFFFFFFF")), "B5": (white, solid("FF203864")),
             "B6": (Font(color=Color(theme=0, tint=-0.5)), PatternFill()), "B7": (white, PatternFill("gray125")),
             "B9": (Font(color=Color(indexed=65)), PatternFill())}  # (the system's background: white)
    book = openpyxl.Workbook()
    for row in [["id", "name"], *([f"i{n}", "x"] for n in range(2, 11))]:
        book.active.append(row)
    path, said = tmp_path / "t.xlsx", []
    for case in ({}, cells):
        for name, (font, fill) in case.items():
            book.active[name].font, book.active[name].fill = font, fill
        book.active["B8"].number_format = "[White]General" if case else "General"
        book.active["B10"] = CellRichText([TextBlock(InlineFont(color="FFFFFFFF"), "x")]) if case else "x"
        book.save(path)
        assert not said, said  # (none, uncoloured)
        items = read_table(path, "cards/g/t.xlsx", Schema({"id": "str", "name": "str"}, {}),
                           warn=lambda message, mark: said.append((str(mark), message)))
        assert [item["name"] for item in items] == ["x"] * 9
    assert len(said) == 1 and said[0][0] == "cards/g/t.xlsx[Sheet]:2:2", said
    assert said[0][1].startswith("this cell's value is coloured as its fill is") and "5 more cells" in said[0][1]


@pytest.mark.parametrize("font, fill, said", [
    ("FF000000", ("solid", "FF000000"), "(black text on a black fill)"),  # (was said 'white on white')
    ("FFFFFFFF", ("gradient", "FFFFFFFF"), "(white text on a gradient fill of white to white)"),  # (was unwarned)
    ("FFFFFFFF", ("gradient", "FF000000"), None),  # (a stop shows it)
    ("FF000000", ("auto", None), "(black text on a black fill)"),  # (<fgColor auto="1"/>: was unwarned)
    ("FFFFFFFF", ("auto", None), None),
    ("FF0A0A0A", ("solid", "FF000000"), "(#0A0A0A text on a black fill)")])
def test_a_hidden_values_warning_names_the_colours_it_judged(tmp_path, font, fill, said):
    """The warning of a value coloured as its fill is said "(white on white, or nearly)" of black text on a black
    fill; white text on a gradient fill all of whose stops are white, and black text on a solid fill of the
    automatic colour (the system's foreground, black), were not warned of. It names the colours it judged."""
    from openpyxl.styles import Color, Font, GradientFill, PatternFill

    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    kind, colour = fill
    book = openpyxl.Workbook()
    for row in (["id", "name"], ["i", "x"]):
        book.active.append(row)
    book.active["B2"].font = Font(color=font)
    book.active["B2"].fill = (GradientFill(stop=(colour, colour if font == "FFFFFFFF" and said else "FFFFFFFF"))
                              if kind == "gradient" else PatternFill("solid", fgColor=Color(auto=True) if kind ==
                                                                     "auto" else colour))
    path, warned = tmp_path / "t.xlsx", []
    book.save(path)
    items = read_table(path, "cards/g/t.xlsx", Schema({"id": "str", "name": "str"}, {}),
                       warn=lambda message, mark: warned.append(message))
    assert [item["name"] for item in items] == ["x"]
    assert [message.split(", so")[0] for message in warned] == (
        [f"this cell's value is coloured as its fill is {said}"] if said else []), warned


@pytest.mark.parametrize("fields, item, begins", [
    ({"id": "str", "name": "str"}, {"id": "a", "name": "Café"}, b"\xef\xbb\xbfid,name\n"),  # (Excel's CSV UTF-8)
    ({"ID": "str"}, {"ID": "a"}, b'"ID"\n'),  # (not Excel's SYLK mark)
    ({"id": "str"}, {"id": "a"}, b"id\na\n")])
def test_a_written_csv_opens_in_excel_as_the_text_it_holds(tmp_path, fields, item, begins):
    """A CSV holding 'Café' was written without the byte-order mark Excel's "CSV UTF-8" writes, and Excel opened it
    in the system's code page ('CafÃ©', saved and printed so); a first field named 'ID' made Excel take the file for
    a SYLK one and refuse it. Each reads back as written."""
    from pnp.model.load import Record
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table, write_csv

    schema, path = Schema(fields, {}), tmp_path / "t.csv"
    path.write_bytes(write_csv([Record(item)], schema))
    assert path.read_bytes().startswith(begins)
    assert [dict(read) for read in read_table(path, "cards/g/t.csv", schema)] == [item]


def test_a_text_colour_is_judged_by_the_theme_tables_and_conditions_excel_shows(tmp_path):
    """A workbook's theme kept elsewhere than xl/theme/theme1.xml (found by the workbook's relations) was read as
    the Office theme's (its lt1, black here, taken for white: a false warning); white text on no fill in a sheet
    holding an Excel table, whose style may fill it, was warned of; a conditional format colouring its cells' text
    white on their white fill was not. Each cell's value is read."""
    from openpyxl.formatting.rule import CellIsRule
    from openpyxl.styles import Color, Font
    from openpyxl.worksheet.table import Table, TableStyleInfo

    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    def said(path):
        warned = []
        items = read_table(path, "cards/g/t.xlsx", Schema({"id": "str"}, {}),
                           warn=lambda message, mark: warned.append(f"{mark}: {message[:47]}"))
        assert [item["id"] for item in items] == ["i", "j"]
        return warned

    book = openpyxl.Workbook()
    for row in (["id"], ["i"], ["j"]):
        book.active.append(row)
    book.active["A2"].font = Font(color=Color(theme=0))  # (lt1: white in the Office theme, black in this one)
    path = tmp_path / "t.xlsx"
    book.save(path)
    rename = {b"theme/theme1.xml": b"theme/mine.xml", b'<a:sysClr val="window" lastClr="FFFFFF"/>':
              b'<a:srgbClr val="000000"/>'}
    with zipfile.ZipFile(path) as z:
        parts = {info.filename.replace("theme1", "mine"): functools.reduce(
            lambda d, pair: d.replace(*pair), rename.items(), z.read(info)) for info in z.infolist()}
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    assert said(path) == []
    book.active["A2"].font = Font(color="FFFFFFFF")
    book.active.add_table(Table(displayName="T", ref="A1:A3", tableStyleInfo=TableStyleInfo(name="TableStyleDark1")))
    book.save(path)
    assert said(path) == []
    del book.active.tables["T"]
    book.active["A2"].font = Font()
    book.active.conditional_formatting.add("A3:A9", CellIsRule(operator="equal", formula=['"j"'],
                                                               font=Font(color="FFFFFFFF")))
    book.save(path)
    assert said(path) == ["cards/g/t.xlsx[Sheet]:3:1: conditional formatting of cells 'A3:A9' colours"]


@pytest.mark.parametrize("name", ["t.xlsx", "t.csv"])
def test_a_table_whose_folder_becomes_a_link_outside_after_its_check_is_not_read(tmp_path, name):
    """A table's file was checked to lie inside the project (Project.inside), then opened by its path, following
    links, three times over (its checks, the zip reader, openpyxl): a folder of it swapped for a link to a folder
    outside since (a race) had pnp read the table outside. It is opened as it was checked, one folder at a time
    from the project's, without following a link, and refused."""
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table
    from pnp.project import Project

    root, outside = tmp_path / "proj", tmp_path / "outside"
    for folder, value in ((root / "cards/g", "inside"), (outside, "outside")):
        folder.mkdir(parents=True)
        if name.endswith(".csv"):
            (folder / name).write_text(f"id\n{value}\n")
        else:
            book = openpyxl.Workbook()
            book.active.append(["id"])
            book.active.append([value])
            book.save(folder / name)
    real = Project(root).inside(root / "cards/g" / name)
    schema = Schema({"id": "str"}, {})
    assert [row["id"] for row in read_table(real, f"cards/g/{name}", schema, beneath=root)] == ["inside"]
    (root / "cards/g").rename(root / "cards/g-before")
    (root / "cards/g").symlink_to(outside, target_is_directory=True)
    with pytest.raises(LoadError) as refused:
        read_table(real, f"cards/g/{name}", schema, beneath=root)
    assert refused.value.mark.file == f"cards/g/{name}" and "cannot be read" in refused.value.message, refused.value



X14_CONDITION = (
    '<extLst><ext uri="{78C0D931-6437-407d-A8EE-F0AAD7539E65}" '
    'xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"><x14:conditionalFormattings>'
    '<x14:conditionalFormatting xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main">'
    '<x14:cfRule type="expression" priority="1" id="{00000000-0000-0000-0000-000000000001}"><xm:f>TRUE</xm:f>'
    '<x14:dxf>%s</x14:dxf></x14:cfRule><xm:sqref>A2:A3</xm:sqref></x14:conditionalFormatting>'
    '</x14:conditionalFormattings></ext></extLst>')


@pytest.mark.parametrize("style, said", [
    ('<font><color rgb="FFFFFFFF"/></font>', "warned: cards/g/t.xlsx[Sheet]:2:1: conditional formatting of cells "
     "'A2:A3' colours their text as their fill is"),
    ('<font><color rgb="FFFFFFFF"/></font><fill><patternFill><bgColor rgb="FFFEFEFE"/></patternFill></fill>',
     "warned: cards/g/t.xlsx[Sheet]:2:1: conditional formatting of cells 'A2:A3' colours their text as their fill is"),
    ('<font><color rgb="FFFFFFFF"/></font><fill><patternFill><bgColor rgb="FF000000"/></patternFill></fill>', ""),
    # (a rule filling the cells alone, black behind their black text; a fill of no colour changes nothing)
    ('<fill><patternFill><bgColor rgb="FF000000"/></patternFill></fill>', "warned: cards/g/t.xlsx[Sheet]:2:1: "
     "conditional formatting of cells 'A2:A3' colours their text as their fill is"),
    ('<fill><patternFill/></fill>', ""),
    ('<numFmt numFmtId="200" formatCode=";;;"/>', "refused: cards/g/t.xlsx[Sheet]:2:1: conditional formatting of "
     "cells 'A2:A3' shows them in the number format ';;;'"),
    ('<font><color rgb="white"/></font>', "refused: cards/g/t.xlsx[Sheet]:2:1: conditional formatting of cells "
     "'A2:A3' holds a style that cannot be read")])
def test_a_conditional_format_excel_2010_keeps_in_the_sheets_extlst_is_judged_as_any_other(tmp_path, style, said):
    """A rule Excel 2010 writes in the sheet's extLst (<x14:cfRule>, its style held in it, its range an
    <xm:sqref>) colouring white text on its cells' white fill went unwarned, where the same rule written the
    ordinary way was warned of; a number format of its own is refused as an ordinary rule's is. A rule setting a
    fill alone is judged against its cells' own text colour (filling black cells of black text went unwarned)."""
    from openpyxl.styles import PatternFill

    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    book = openpyxl.Workbook()
    for row in (["id"], ["i"], ["j"]):
        book.active.append(row)
    for cell in ("A2", "A3"):
        book.active[cell].fill = PatternFill("solid", fgColor="FFFFFFFF")
    path = tmp_path / "t.xlsx"
    book.save(path)
    rezip(path, lambda name, data: data.replace(b"</worksheet>", (X14_CONDITION % style).encode() + b"</worksheet>")
          if name == "xl/worksheets/sheet1.xml" else data)
    warned = []
    try:
        items = read_table(path, "cards/g/t.xlsx", Schema({"id": "str"}, {}),
                           warn=lambda message, mark: warned.append(f"warned: {mark}: {message}"))
        assert [item["id"] for item in items] == ["i", "j"]
    except LoadError as e:
        warned.append(f"refused: {e.mark}: {e.message}")
    assert [w[:len(said)] for w in warned] == ([said] if said else []), warned


@pytest.mark.parametrize("table, style, said", [
    ("A1:B3", "TableStyleMedium2", []),  # (the table's style may fill its rows: taken to show, as it did)
    ("A1:A3", "TableStyleMedium2", ["cards/g/t.xlsx[Sheet]:2:2"]),  # (the names outside the table)
    ("A1:B3", None, ["cards/g/t.xlsx[Sheet]:2:2"]),  # (a table of no style fills nothing)
    ("A1:B3", "broken", [])])  # (a table whose part cannot be found: the sheet is taken to be in it)
def test_white_text_of_no_fill_is_warned_of_outside_a_styled_table_not_in_it(tmp_path, table, style, said):
    """White text on no fill was warned of in no cell of a sheet holding an Excel table, in it or not (the table's
    style may fill its rows, with colours pnp does not read); a cell outside every table's range, or in a table of
    no style, is judged as in a sheet of none."""
    from openpyxl.styles import Font
    from openpyxl.worksheet.table import Table, TableStyleInfo

    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    book = openpyxl.Workbook()
    for row in (["id", "name"], ["i", "x"], ["j", "y"]):
        book.active.append(row)
    book.active["B2"].font = book.active["B3"].font = Font(color="FFFFFFFF")
    book.active.add_table(Table(displayName="T", ref=table, tableStyleInfo=TableStyleInfo(
        name=style if style != "broken" else "TableStyleMedium2", showRowStripes=True)))
    path = tmp_path / "t.xlsx"
    book.save(path)
    if style == "broken":
        rezip(path, lambda name, data: data.replace(b"tables/table1.xml", b"tables/gone.xml")
              if name.endswith("sheet1.xml.rels") else data)
    warned = []
    items = read_table(path, "cards/g/t.xlsx", Schema({"id": "str", "name": "str"}, {}),
                       warn=lambda message, mark: warned.append((str(mark), message)))
    assert [item["name"] for item in items] == ["x", "y"]
    assert [mark for mark, _ in warned] == said, warned
    assert all(message.startswith("this cell's value is coloured as its fill is (white text on no fill (the sheet's "
                                  "white)) (and 1 more cells") for _, message in warned), warned


@pytest.mark.parametrize("code, said", [
    ("[$USD-409]", "so the sheet shows it otherwise than its text field would print it"),  # (shows 'USD')
    ("*-", "so the sheet shows it otherwise than its text field would print it"),  # (a line of dashes)
    ('[$-409]" ";;', "so the sheet shows nothing where pnp reads the number")])
def test_a_number_format_showing_a_currency_or_a_fill_is_not_said_to_show_nothing(tmp_path, code, said):
    """A number cell formatted [$USD-409] (the sheet shows 'USD') or *- (a line of dashes) was refused as shown
    as nothing: a currency, an elapsed time or a fill of a character shows one."""
    from pnp.errors import LoadError
    from pnp.model.schema import Schema
    from pnp.model.spreadsheet import read_table

    book = openpyxl.Workbook()
    for row in (["id", "n"], ["a", 5]):
        book.active.append(row)
    book.active["B2"].number_format = code
    book.save(tmp_path / "t.xlsx")
    with pytest.raises(LoadError) as refused:
        read_table(tmp_path / "t.xlsx", "cards/g/t.xlsx", Schema({"id": "str", "n": "str"}, {}))
    assert str(refused.value.mark) == "cards/g/t.xlsx[Sheet]:2:2", refused.value
    assert refused.value.message.startswith(f"this number cell (5) is formatted as {code!r}, {said}"), refused.value


def test_convert_never_writes_over_another_file_its_own_tables_files_list(tmp_path):
    """A table of `files: [cards.yaml, cards.csv]`: `convert cards.yaml --to csv --force` wrote cards.yaml's items
    over cards.csv's (exit 0, two cards lost), taken for the table's own file in another format."""
    root = make_project(tmp_path / "proj", case={
        "replace": {"cards/mini/game.yaml": [["  cards:\n    fields:", "  cards:\n    files: [cards.yaml, cards.csv]\n"
                                                                   "    fields:"]]},
        "files": {"cards/mini/cards.csv": "id,name,kind,power\nwolf,Wolf,beast,3\nmoss,Moss,plant,2\n"}})
    csv_file = root / "cards/mini/cards.csv"
    before = csv_file.read_bytes()
    result = run(root, "convert", str(root / "cards/mini/cards.yaml"), "--to", "csv", "--force")
    assert result.exit_code == 2 and "cards/mini/cards.csv: error: is read by table 'cards' of cards/mini/game.yaml" \
        in result.output, result.output
    assert csv_file.read_bytes() == before


@pytest.mark.parametrize("text", [
    "1" + ":2" * 100_000, "1" + ":59" * 100_000 + ".5", "1" + ":2" * 100_000 + ":60", "1" + ":2::3" * 100_000, "1:30"])
def test_a_long_base_60_text_is_written_in_a_cell_without_its_repeated_parts_resolved(text, monkeypatch):
    # whether a text is quoted is found as the loader finds what it reads as, with PyYAML's base-60 patterns
    # given at most three colons (10 million parts: 1.1 GB and 11 s to write one cell), written as PyYAML would
    from pnp.model import spreadsheet
    expected = yaml.dump([text], Dumper=spreadsheet._SafeDumper, default_flow_style=True, width=1_000_000).strip()
    given: list[str] = []
    resolve = spreadsheet._SafeDumper.resolve
    monkeypatch.setattr(spreadsheet._SafeDumper, "resolve", lambda self, kind, value, implicit:
                        given.append(value) or resolve(self, kind, value, implicit))
    assert spreadsheet.cell_text([text]) == expected
    assert max(value.count(":") for value in given) <= 3


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "yaml"])
def test_a_table_whose_texts_alone_are_past_what_pnp_reads_is_refused_before_a_cell_is_written(monkeypatch, fmt):
    # an alias repeats one text of 950,000 characters on 5,000 cards: each cell was checked, its whole length,
    # and written (5 GB) before the file's size was refused, past 60 s
    from pnp.errors import DataError
    from pnp.model import convert
    from pnp.model.load import MAX_FILE_BYTES, MarkedList, Record
    from pnp.report import Mark

    def never(*args: object) -> bytes:
        raise AssertionError("written")

    for writer in ("write_csv", "write_xlsx", "write_yaml"):
        monkeypatch.setattr(convert, writer, never)
    text = "x" * (MAX_FILE_BYTES // 10 + 1)
    items = MarkedList([Record({"id": f"c{i}", "text": text}) for i in range(100)],
                       [Mark("cards/g/t.yaml", 1 + i) for i in range(100)], Mark("cards/g/t.yaml"))
    with pytest.raises(DataError) as refused:
        convert._written(items, fmt, None, lambda: "Sheet", {})  # type: ignore[arg-type]
    assert refused.value.mark == Mark("cards/g/t.yaml", 10)  # the item past which the texts are too long


def test_a_sheet_of_many_rows_reads_an_enum_of_many_values_without_a_scan_per_cell(tmp_path, monkeypatch):
    # each cell was compared with every value of the enum, each written as a cell shows it: 3,000 rows of an enum
    # of 3,000 values made 9 million texts
    from pnp.model import spreadsheet
    from pnp.model.schema import Schema

    made = []
    monkeypatch.setattr(spreadsheet, "cell_text", lambda value, cell_text=spreadsheet.cell_text: made.append(1) or
                        cell_text(value))
    path = tmp_path / "t.csv"
    path.write_text("id,kind\n" + "".join(f"c{i},{299 - i}\n" for i in range(300)) + "x,true\n")
    schema = Schema({"id": "str", "kind": {"type": "enum", "values": [*range(300), True]}}, {})
    items = spreadsheet.read_table(path, "cards/g/t.csv", schema)
    assert [item["kind"] for item in items[:2]] == [299, 298] and items[-1]["kind"] is True
    assert len(made) < 2_000  # (a text for each value, and one for each cell, not 90,000)


def test_a_convert_killed_while_writing_leaves_no_hidden_file_for_good(tmp_path):
    """SIGKILLed before its rename, `convert` left .cards.csv.pnp-<hex>.tmp in the game's cards folder, which no
    later run removed. The next convert of that file removes it; another file's temporary is kept, and so is the
    designer's own file named alike (it was deleted as a killed writer's once a minute old)."""
    from pnp.errors import temporary_name

    root = make_project(tmp_path / "proj")
    folder = root / "cards/mini"
    left = folder / temporary_name("cards.csv", "01234567")
    left.write_bytes(b"id,na")
    own = folder / temporary_name("cards.xlsx", "01234567")  # another file's: perhaps a live pnp's
    notes = folder / ".notes.pnp-aaaaaaaaaaaa.tmp"  # the designer's, a year old
    for path in (own, notes):
        path.write_bytes(b"mine")
    os.utime(notes, (time.time() - 3e7,) * 2)
    assert run(root, "convert", str(folder / "cards.yaml"), "--to", "csv").exit_code == 0
    assert not left.exists() and own.read_bytes() == b"mine" and (folder / "cards.csv").is_file()
    assert notes.read_bytes() == b"mine"


def test_a_workbook_many_tables_read_is_checked_and_opened_once(tmp_path, monkeypatch):
    """Each table reading its own sheet of one workbook checked and opened the whole workbook again, and read its
    theme (through its relations, one per sheet): 200 tables of one workbook took 8.5 s to validate, four times
    100's. Within one load it is opened once and its theme read once, each sheet read alone."""
    from pnp.model import spreadsheet
    from pnp.model.schema import Schema

    path = tmp_path / "book.xlsx"
    book = openpyxl.Workbook()
    for i in range(3):
        sheet = book.active if i == 0 else book.create_sheet()
        sheet.title = f"s{i}"
        sheet.append(["id", "v"])
        sheet.append([f"t{i}", i])
    book.save(path)
    opened = []
    checked = spreadsheet._checked_book
    monkeypatch.setattr(spreadsheet, "_checked_book", lambda *a: opened.append(a) or checked(*a))
    themes = []
    theme = spreadsheet.theme_colours
    monkeypatch.setattr(spreadsheet, "theme_colours", lambda *a: themes.append(a) or theme(*a))
    schema = Schema({"id": {"type": "id"}, "v": {"type": "int"}}, {})
    with spreadsheet.reading_workbooks():
        read = [spreadsheet.read_table(path, "book.xlsx", schema, f"S{i % 3}") for i in range(6)]
    assert [(rows[0]["id"], rows[0]["v"]) for rows in read] == [(f"t{i % 3}", i % 3) for i in range(6)]
    assert len(opened) == 1 and len(themes) == 1
