"""Tables kept in spreadsheets: `pnp convert` round trips, CSV and XLSX tables that build the same PDFs as
their YAML, and errors that point at the spreadsheet's row and column (and sheet)."""

import shutil

import openpyxl
import pytest
import yaml

from conftest import REPO, run, share_repo_assets

GAME = "diamonds-and-dinosaurs"


def table_files(game):
    meta = yaml.safe_load((REPO / "cards" / game / "game.yaml").read_text(encoding="utf-8"))
    for name, spec in meta["tables"].items():
        yield from spec.get("files") or [spec.get("file", f"{name}.yaml")]


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    for game in ("evo", "dinospan", GAME):
        shutil.copytree(REPO / "cards" / game, root / "cards" / game)
        shutil.copytree(REPO / "layouts" / game, root / "layouts" / game)
    share_repo_assets(root)
    return root


def convert(root, path, fmt, *extra):
    result = run(root, "convert", str(path), "--to", fmt, *extra)
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize("game", ["evo", "dinospan", GAME])
def test_every_shipped_table_round_trips_through_csv_and_xlsx(proj, game):
    folder = proj / "cards" / game
    for name in table_files(game):
        original = yaml.safe_load((folder / name).read_text(encoding="utf-8"))
        for fmt in ("csv", "xlsx"):
            sheet = folder / name.replace(".yaml", f".{fmt}")
            back = proj / "back.yaml"
            convert(proj, folder / name, fmt, "--force")
            convert(proj, sheet, "yaml", "--out", str(back), "--force")
            assert yaml.safe_load(back.read_text(encoding="utf-8")) == original, (name, fmt)


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


def test_a_csv_error_names_the_file_row_and_column(proj):
    folder = proj / "cards" / GAME
    convert(proj, folder / "tokens.yaml", "csv")
    (folder / "tokens.yaml").unlink()
    path = folder / "tokens.csv"
    rows = path.read_text(encoding="utf-8").splitlines()
    header = rows[0].split(",")
    cells = rows[2].split(",")
    cells[header.index("count")] = "many"
    rows[2] = ",".join(cells)
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    col = header.index("count") + 1
    assert any(ln.startswith(f"cards/{GAME}/tokens.csv:3:{col}: error: count") and "'many'" in ln
               for ln in errors(proj)), errors(proj)


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
    (b"\xff\xfeid\n", "tokens.csv: error: not UTF-8 text"),
])
def test_a_broken_csv_is_refused_at_its_cell(proj, content, message):
    folder = proj / "cards" / GAME
    (folder / "tokens.yaml").unlink()
    (folder / "tokens.csv").write_bytes(content)
    assert any(message in ln for ln in errors(proj)), errors(proj)


def test_a_file_that_is_no_workbook_is_refused_by_name(proj):
    folder = proj / "cards" / GAME
    (folder / "turn.yaml").unlink()
    (folder / "turn.xlsx").write_bytes(b"PK\x03\x04 not really a zip")
    assert any(ln.startswith(f"cards/{GAME}/turn.xlsx: error: not a readable .xlsx workbook")
               for ln in errors(proj)), errors(proj)


def test_convert_refuses_a_file_no_table_reads_and_never_overwrites(proj):
    folder = proj / "cards" / GAME
    result = run(proj, "convert", str(folder / "nothing.yaml"), "--to", "csv")
    assert result.exit_code == 2 and "no table of" in result.output
    convert(proj, folder / "tokens.yaml", "csv")
    again = run(proj, "convert", str(folder / "tokens.yaml"), "--to", "csv")
    assert again.exit_code == 2 and "exists; --force replaces it" in again.output
