"""`pnp export`: images read back from the files: their pixel sizes, colour mode and dpi, Tabletop Simulator's
sheets and saved object, print services' template sizes, and a failed export leaving the old files."""

import json
import os
import unicodedata
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from PIL import Image

from conftest import REPO, failing_after, make_project, run
from pdfread import MM, page_geometry, read


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    return make_project(tmp_path_factory.mktemp("export") / "proj")


def export(root, *args):
    result = run(root, "export", *args)
    assert result.exit_code == 0, result.output
    return result


def pngs(folder):
    return sorted(p for p in folder.rglob("*.png"))


def test_png_writes_every_face_at_its_size_with_bleed_and_dpi(mini):
    export(mini, "--format", "png", "--dpi", "150", "--bleed", "2")
    folder = mini / "output/mini/export/png-150dpi-bleed2mm"  # not the defaults: a folder of its own
    names = sorted(p.relative_to(folder).as_posix() for p in pngs(folder))
    cards = [n for n in names if n.startswith("deck/")]
    assert len(cards) == 8  # 4 distinct cards, front and back each
    assert "deck/001-lion-front.png" in names and "deck/001-lion-back.png" in names
    with Image.open(folder / "deck/001-lion-front.png") as image:
        # poker 63 x 88 mm at 150 dpi plus 2 mm each side
        assert image.size == (round(63 / 25.4 * 150) + 2 * round(2 / 25.4 * 150),
                              round(88 / 25.4 * 150) + 2 * round(2 / 25.4 * 150))
        assert image.mode == "RGB" and round(image.info["dpi"][0]) == 150
    assert any(n.startswith("board/") for n in names)  # boards are faces too


def test_png_bytes_are_the_same_however_the_faces_are_drawn_and_split(mini, monkeypatch):
    """The faces drawn a chunk at a time and rendered by two processes give the same files as all in one PDF in
    one process, and nothing of the drawing is left in the export."""
    folder = mini / "output/mini/export/png-72dpi"
    monkeypatch.setattr("pnp.export.run.CHUNKS", (1, 2))  # chunks of 1, 2, 2, ... pages
    export(mini, "--format", "png", "--dpi", "72", "--force", "-j", "2")
    chunked = {p.relative_to(folder): p.read_bytes() for p in pngs(folder)}
    monkeypatch.setattr("pnp.export.run.CHUNKS", (10_000, 10_000))
    export(mini, "--format", "png", "--dpi", "72", "--force", "-j", "1")
    assert len(chunked) > 8 and {p.relative_to(folder): p.read_bytes() for p in pngs(folder)} == chunked
    assert sorted(p.name for p in folder.iterdir() if p.is_file()) == ["export.json"]
    assert not list(folder.rglob("*.pdf"))


def test_png_bytes_unfiltered_and_up_filtered_give_the_same_pixels_and_the_same_bytes_each_time():
    """The preview's images (rows unfiltered) and export's (rows "Up"), in strips: decoded, the same pixels."""
    import io

    import numpy as np

    from pnp.export.raster import PNG_STRIP, png_bytes

    pixels = np.random.default_rng(7).integers(0, 256, (PNG_STRIP + 3, 5, 3), dtype=np.uint8)
    pixels[:, 2:] = pixels[:, :1]  # (some runs for deflate to find)
    for up in (True, False):
        data = png_bytes(pixels, 96, up=up)
        assert data == png_bytes(pixels, 96, up=up)
        assert (np.asarray(Image.open(io.BytesIO(data)).convert("RGB")) == pixels).all()


def test_png_of_noise_is_written_without_holding_its_file_several_times(tmp_path):
    """A noisy picture compresses to about its own size: the file is written piece by piece, its compressed
    pixels held once, not joined four times over (a worker at 1200 dpi took 240 MB for a 43 MB card)."""
    import tracemalloc

    import numpy as np

    from pnp.export.raster import save

    pixels = np.random.default_rng(3).integers(0, 256, (2000, 500, 3), dtype=np.uint8)
    save(pixels[:8], str(tmp_path / "warm.png"), 300)  # (its imports, not counted)
    tracemalloc.start()
    try:
        save(pixels, str(tmp_path / "noise.png"), 300)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (tmp_path / "noise.png").stat().st_size > pixels.nbytes  # (incompressible, as meant)
    assert peak < 2 * pixels.nbytes  # (four times over, and more, before)


def test_png_matches_the_pdf_card(mini):
    """The exported face and the card in the built PDF come from the same drawing: rendered alike, their
    pixels agree."""
    import pypdfium2 as pdfium

    export(mini, "--format", "png", "--dpi", "100", "--bleed", "0")
    assert run(mini, "build", "--bleed", "0").exit_code == 0
    card = Image.open(mini / "output/mini/export/png-100dpi-bleed0mm/deck/001-lion-front.png").convert("L")
    pdf = mini / "output/mini/mini-cards-a4.pdf"
    _, clips = page_geometry(read(pdf).pages[0])
    # the first card (lion) sits top left: its clip is its trim plus outer bleed on the left and top only
    cx, cy, cw, ch = clips[0]
    w, h = 63 * MM, 88 * MM
    x, y = cx + cw - w, cy
    page = pdfium.PdfDocument(str(pdf))[0]
    sheet = page.render(scale=100 / 72).to_pil().convert("L")
    top = sheet.height - (y + h) * 100 / 72
    printed = sheet.crop((round(x * 100 / 72), round(top), round((x + w) * 100 / 72), round(top + h * 100 / 72)))
    a, b = (im.resize((63, 88)) for im in (printed, card))
    diff = [abs(p - q) for p, q in zip(a.tobytes(), b.tobytes())]
    # grey levels on average over the card: 0.5 here (edge anti-aliasing); another card of the deck is 4.3 off
    assert sum(diff) / len(diff) < 1.5, sum(diff) / len(diff)


def test_tts_sheets_and_saved_object(mini, monkeypatch):
    monkeypatch.chdir(mini)
    export(mini, "--format", "tts", "--out", "elsewhere")  # a relative folder: the JSON still names files
    folder = mini / "elsewhere/mini/tts"
    save = json.loads((folder / "mini.json").read_text())
    decks = [o for o in save["ObjectStates"] if o["Name"] == "DeckCustom"]
    assert len(decks) == 1
    deck = decks[0]
    assert len(deck["DeckIDs"]) == 4 and [c["Nickname"] for c in deck["ContainedObjects"]][:1]
    for card_id in deck["DeckIDs"]:
        entry = deck["CustomDeck"][str(card_id // 100)]
        assert card_id % 100 < entry["NumWidth"] * entry["NumHeight"]
        assert entry["NumWidth"] <= 10 and entry["NumHeight"] <= 7
        for url in (entry["FaceURL"], entry["BackURL"]):
            path = Path(unquote(urlparse(url).path))
            assert path.is_file(), url
            with Image.open(path) as sheet:
                assert max(sheet.size) <= 4096 and sheet.mode == "RGB"
    assert any(o["Name"] == "Custom_Tile" and o["Locked"] for o in save["ObjectStates"])  # the board


@pytest.mark.parametrize("fmt, size", [("tgc", (825, 1125)), ("mpc", (822, 1122))])
def test_print_services_get_their_template_size(tmp_path, fmt, size):
    """Diamonds and Dinosaurs' 52 poker cards, fronts and backs, at the service's poker template size."""
    result = run(REPO, "export", "diamonds-and-dinosaurs", "--format", fmt, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    folder = tmp_path / "diamonds-and-dinosaurs" / fmt
    fronts = [p for p in pngs(folder) if p.name.endswith("-front.png")]
    backs = [p for p in pngs(folder) if p.name.endswith("-back.png")]
    assert len(fronts) == 52 and backs
    for path in fronts + backs:
        with Image.open(path) as image:
            assert image.size == size and image.mode == "RGB", path


@pytest.mark.parametrize("fmt, option", [("tgc", ["--dpi", "600"]), ("drivethru", ["--bleed", "3"]),
                                         ("proof", ["--base-url", "https://example.org/"]), ("tts", ["--dpi", "72"])])
def test_an_option_the_format_does_not_read_is_refused_before_any_work(tmp_path, fmt, option):
    """`--format tgc --dpi 600` wrote the service's template size, exit 0: the option was left unused unsaid."""
    result = run(tmp_path, "export", "--format", fmt, *option)  # (refused before the project is looked for)
    assert result.exit_code == 2 and f"Error: {option[0]}: the {fmt} format does not read it" in result.output, \
        result.output
    assert not (tmp_path / "output").exists()


def test_a_deck_of_no_service_size_is_left_out_with_a_warning(mini):
    card = mini / "layouts/mini/card.yaml"
    original = card.read_text()
    back = mini / "layouts/mini/back.yaml"
    original_back = back.read_text()
    card.write_text(original.replace("size: poker", "size: [50mm, 50mm]"))
    back.write_text(original_back.replace("size: poker", "size: [50mm, 50mm]"))  # (a back is its front's size)
    try:
        result = run(mini, "export", "--format", "tgc")
    finally:
        card.write_text(original)
        back.write_text(original_back)
    assert "layouts/mini/card.yaml:1:7: warning: Cards refused: 50 x 50 mm cards are none of" in result.output
    # its only deck left out, the export made nothing: exit 0, "1 files" (its record) in an empty folder
    assert result.exit_code == 1
    # the lines are sorted by file: the warnings at layouts/ come after the error at cards/, not above it
    assert ("cards/mini/game.yaml: error: mini: not exported as tgc: the format makes nothing of this game (its "
            "warnings say why)") in result.output
    assert not (mini / "output/mini/export/tgc").exists()


def test_a_failed_export_leaves_the_previous_files(mini, monkeypatch):
    export(mini, "--format", "png")
    folder = mini / "output/mini/export/png"
    before = {p: p.read_bytes() for p in pngs(folder)}

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device", str(folder / "deck"))

    monkeypatch.setattr("pnp.export.run.write_all", broken)
    result = run(mini, "export", "--format", "png", "--force")
    assert result.exit_code == 1 and "export failed" in result.output
    assert {p: p.read_bytes() for p in pngs(folder)} == before
    left = [p for p in folder.parent.iterdir() if p.name.startswith(".") and p.name != ".pnp.lock"]
    assert not left  # no half-written folder left


def test_a_deck_of_cards_of_several_sizes_is_left_out_of_the_formats_of_one_card_size():
    # a layout picked per item: each card was drawn at the first's template, a 70 x 120 mm card among poker cards
    # cut down and white where it did not reach (tgc, mpc, drivethru, tts), exit 0
    from types import SimpleNamespace

    from pnp.export.formats import Plan
    from pnp.export.services import _decks
    from pnp.export.tts import _several_sizes
    from pnp.units import MM

    spec = SimpleNamespace(mark_of=lambda key: f"game.yaml:{key}")
    component = SimpleNamespace(id="cards", name="Cards", spec=spec)
    faces = [SimpleNamespace(kind="deck", side="front", component=component, trim=(w * MM, h * MM))
             for w, h in ((63, 88), (70, 120), (63, 88))]
    plan = Plan()
    assert _decks("tgc", faces, None, plan) == [] and _several_sizes(faces, plan)
    said = "Cards left out: its cards are of 2 sizes (63 x 88 mm, 70 x 120 mm)"
    assert [(m.startswith(said), mark) for m, mark in plan.skipped] == [(True, "game.yaml:layout")] * 2
    assert not _several_sizes(faces[::2], plan)  # (one size: kept)


def test_a_proof_gives_each_card_of_a_deck_the_room_of_its_largest():
    # a deck of several sizes was framed at its first card's: a taller card drawn over its neighbours and the heading
    from types import SimpleNamespace

    from pnp.export.formats import _largest, _proof_grid
    from pnp.units import MM

    fronts = [SimpleNamespace(trim=(w * MM, h * MM)) for w, h in ((63, 88), (50, 120), (63, 88))]
    assert _largest(fronts) == (63 * MM, 120 * MM)
    assert _proof_grid(_largest(fronts))[1] < _proof_grid(fronts[0].trim)[1]  # fewer rows: each as tall as the tallest


def test_preflight_names_each_file_outside_the_rules(tmp_path):
    from pnp.export.formats import Plan
    from pnp.export.registry import preflight

    folder, work = tmp_path / "final", tmp_path / "work"
    work.mkdir()
    Image.new("RGB", (10, 10)).save(work / "a.png")
    Image.new("L", (5, 5)).save(work / "b.png")
    plan = Plan(expect={str(folder / "a.png"): (10, 11), str(folder / "b.png"): (5, 5), str(folder / "c.png"): (1, 1)})
    found = list(preflight(plan, folder, work, lambda p: Path(p).name))
    assert found == [("a.png", "10 x 10 px; the format needs 10 x 11 px"),
                     ("b.png", "colour mode L; the format needs RGB"), ("c.png", "missing")]


def test_proof_sheet_shows_every_card_with_its_id_and_name(mini):
    from pdfread import texts

    export(mini, "--format", "proof")
    pdf = read(mini / "output/mini/export/proof/deck.pdf")
    shown = [t for page in pdf.pages for t, _, _ in texts(page)]
    for label in ("lion · Lion", "fern · Fern", "wolf · Wolf", "moss · Moss"):
        assert label in shown, (label, shown)
    assert "Mini Game: Cards, 4 cards · proof page 1 of 1" in shown
    assert pdf.metadata.title == "Mini Game — proof of Cards"  # (it was 'untitled')
    # pnp's mark, as the README says of every PDF pnp writes (it was ReportLab's 'anonymous', 'unspecified')
    assert (pdf.metadata.creator, pdf.metadata.author, pdf.metadata.subject) == ("pnp", "pnp", "")


@pytest.mark.parametrize(("cards", "said"), [(1, ", 1 card · proof page 1 of 1"), (2, ", 2 cards · proof page 1 of 1")])
def test_a_proof_page_s_heading_counts_its_cards_in_words(cards, said):
    # a deck of one card was headed "1 cards"
    from pnp.export.formats import _proof_page

    assert _proof_page(cards, 1, 1) == said


@pytest.mark.parametrize("title", ["Wide " * 23, "Mini Game"])
def test_a_proof_page_s_heading_stays_on_the_page_with_its_page_number(title):
    # a title the rulebook's footer holds at 8 pt ran 330 pt past the page's edge at 10 pt bold, its page number off it
    from types import SimpleNamespace

    from reportlab.pdfbase.pdfmetrics import stringWidth

    from pnp.export.formats import _proof_heading

    studio = SimpleNamespace(fonts=SimpleNamespace(name=lambda family, bold=False: "Helvetica-Bold"))
    heading = _proof_heading(studio, f"{title}: Cards of the Great Market of the Far Northern Lands",
                             ", 4 cards · proof page 1 of 1", 500)
    assert heading.endswith(", 4 cards · proof page 1 of 1") and stringWidth(heading, "Helvetica-Bold", 10) <= 500
    assert heading.startswith(title.strip()) == (title == "Mini Game")  # cut short only when too long


@pytest.mark.parametrize("title, name, said, heading", [
    ("Łódź", "Cards", ["title"], "Łód?: Cards"), ("G", "Łódź Cards", ["name"], "G: Łód? Cards"),
    ("G", "Cards", [], "G: Cards")])
def test_a_proof_heading_holding_characters_its_bold_font_lacks_shows_them_as_marks_with_a_warning(title, name, said,
                                                                                                   heading):
    # the heading is set in Body's bold style, which validate does not check the title and names in (the footers
    # print them in its regular one): a bold font without 'ź' printed the deck 'Łódź Cards' as 'Łód Cards', exit 0
    from types import SimpleNamespace

    from pnp.export.formats import _heading_in_font
    from pnp.export.registry import Plan

    lacks = {True: "ź", False: ""}
    fonts = SimpleNamespace(unmapped=lambda text, family, bold=False: next((c for c in text if c in lacks[bold]), None),
                            styles_lacking=lambda ch, family: "bold")
    studio = SimpleNamespace(fonts=fonts, game=SimpleNamespace(title=title, meta=SimpleNamespace(mark_of=lambda k: k)))
    face = SimpleNamespace(component=SimpleNamespace(name=name, id="deck", spec=SimpleNamespace(mark_of=lambda k: k)))
    plan = Plan()
    assert _heading_in_font(studio, face, plan) == heading
    assert [mark for _, mark in plan.notes] == said and all("U+017A" in m and "bold" in m for m, _ in plan.notes)


def test_a_proof_of_cards_larger_than_half_the_page_draws_them_smaller_on_it(tmp_path):
    # 600 x 800 mm cards at half size ran off the A4 page: each proof page showed its title alone, exit 0
    from pdfread import texts

    root = make_project(tmp_path / "proj")
    for face in (root / "layouts/mini/card.yaml", root / "layouts/mini/back.yaml"):
        face.write_text(face.read_text().replace("size: poker", "size: [600mm, 800mm]"))
    assert run(root, "export", "mini", "--format", "proof").exit_code == 0
    page = read(root / "output/mini/export/proof/deck.pdf").pages[0]
    width, height = float(page.mediabox.width), float(page.mediabox.height)
    shown = {t: (x, y) for t, x, y in texts(page)}
    assert "lion" in shown and "lion · Lion" in shown, shown  # the card's own text, and its label
    assert all(0 < x < width and 0 < y < height for x, y in shown.values()), shown


def test_a_proof_label_holding_characters_its_font_lacks_shows_them_as_marks_with_a_warning_at_the_name(tmp_path):
    """The proof prints each card's name, which its layouts need not print (so validate passes it): a card named
    '😀字Lion' was labelled 'lion · Lion', the two characters dropped without a word, exit 0."""
    from pdfread import texts

    root = make_project(tmp_path / "proj")
    cards = root / "cards/mini/cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("name: Lion", 'name: "😀字Lion"', 1), encoding="utf-8")
    result = export(root, "--format", "proof")
    said = [line for line in result.output.splitlines() if "U+" in line]
    assert [line.split(": warning: ")[0] for line in said] == ["cards/mini/cards.yaml:2:9"] * 2, result.output
    assert "U+1F600" in said[0] and "U+5B57" in said[1] and "001-lion-front" in said[0]
    shown = [t for page in read(root / "output/mini/export/proof/deck.pdf").pages for t, _, _ in texts(page)]
    assert "lion · ??Lion" in shown, shown


def _images_drawn(part):
    """The images a page or form draws, also those of the forms it draws, read as pikepdf 8 (the lower bound)
    reads them too: Page.get_images came in a later version, and this test failed at the bound."""
    for _, inner in part.get("/Resources", {}).get("/XObject", {}).items():
        if inner.get("/Subtype") == "/Form":
            yield from _images_drawn(inner)
        elif inner.get("/Subtype") == "/Image":
            yield inner


def test_drivethru_is_cmyk_pdfx_within_240_percent_ink(mini, monkeypatch):
    import pikepdf

    from pnp.export import drivethru
    from pnp.export.drivethru import max_ink

    export(mini, "--format", "drivethru")
    path = mini / "output/mini/export/drivethru/deck.pdf"
    with pikepdf.open(path) as pdf:
        assert str(pdf.docinfo["/GTS_PDFXVersion"]) == "PDF/X-1a:2003"
        assert str(pdf.docinfo["/Creator"]) == "pnp"  # (Ghostscript's rewrite named no creator: pnp's mark)
        assert pdf.Root.OutputIntents[0].S == "/GTS_PDFX"
        assert len(pdf.pages) == 8  # 4 cards, each front then its back
        for page in pdf.pages:
            assert [round(float(v), 2) for v in page.MediaBox] == [0, 0, 198, 270]  # 2.75 x 3.75 in
            assert [round(float(v), 2) for v in page.TrimBox] == [9, 9, 189, 261]  # 1/8 in of bleed
    assert max_ink(path) <= 240.5
    # the same game gives the same bytes: Ghostscript dated the file the second it ran, and made its /ID of that
    made = path.read_bytes()
    export(mini, "--format", "drivethru", "--force")
    assert path.read_bytes() == made
    # Ghostscript (or its CMYK profile) upgraded: the files are made again, not found up to date for ever
    assert "mini: up to date" in export(mini, "--format", "drivethru").output
    tools = drivethru.tools()
    monkeypatch.setattr(drivethru, "tools", lambda: {**tools, "ghostscript": "99.0"})
    assert "mini: up to date" not in export(mini, "--format", "drivethru").output
    assert json.loads((path.parent / "export.json").read_text())["ghostscript"] == "99.0"
    # a long deck is converted in runs of PDFX_PAGES_PER_RUN pages, joined after: Ghostscript kept about 1 MB for
    # each page it read until its run ended (500 cards: 1.17 GB). The same pages, the first run's output intent
    runs, ghostscript = [], drivethru._ghostscript

    def counted(arguments: list[str], folder, doing: str, handed=()) -> None:
        runs.append([a for a in arguments if a.startswith(("-dFirstPage", "-dLastPage"))])
        ghostscript(arguments, folder, doing, handed)

    monkeypatch.setattr(drivethru, "PDFX_PAGES_PER_RUN", 2)
    monkeypatch.setattr(drivethru, "_ghostscript", counted)
    export(mini, "--format", "drivethru", "--force")
    assert len(runs) >= 3 and runs[0] == ["-dFirstPage=1", "-dLastPage=2"] and runs[1][0] == "-dFirstPage=3"
    with pikepdf.open(path) as pdf:
        assert str(pdf.docinfo["/GTS_PDFXVersion"]) == "PDF/X-1a:2003" and pdf.Root.OutputIntents[0].S == "/GTS_PDFX"
        assert len(pdf.pages) == 8
        assert all([round(float(v), 2) for v in page.TrimBox] == [9, 9, 189, 261] for page in pdf.pages)
    assert max_ink(path) <= 240.5
    assert sorted(p.name for p in path.parent.iterdir()) == ["deck.pdf", "export.json"]  # (no run's part left)


def test_an_unchanged_export_is_not_made_again(tmp_path):
    root = make_project(tmp_path / "proj")
    assert "mini: 10 files" in export(root, "--format", "png").output
    folder = root / "output/mini/export/png"
    made = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
    assert "mini: up to date" in export(root, "--format", "png").output
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == made
    assert "mini: 10 files" in export(root, "--format", "png", "--dpi", "150").output  # a setting changed
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == made  # into png-150dpi/: png/ as it was
    cards = root / "cards/mini/cards.yaml"
    cards.write_text(cards.read_text().replace("Roars", "Growls"))
    assert "mini: 10 files" in export(root, "--format", "png", "--dpi", "150").output  # the data changed
    assert "mini: 10 files" in export(root, "--format", "png", "--dpi", "150", "--force").output


def test_a_face_too_large_for_one_image_is_exported_smaller_with_a_warning(tmp_path, monkeypatch):
    from pnp.export import formats

    monkeypatch.setattr(formats, "MAX_PIXELS", 1_000_000)  # the real cap: the test below, without rendering
    root = make_project(tmp_path / "proj")
    result = export(root, "--format", "png", "--dpi", "150", "--bleed", "0", "-j", "1")
    # the 400 x 300 mm board at 150 dpi is 2362 x 1772 pixels: 4.2 million
    assert ("layouts/mini/board.yaml:1:7: warning: Board: 400 x 300 mm at 150 dpi would be 2,362 x 1,772 "
            "pixels, more than the 1 million pnp renders in one image: exported at 73 dpi") in result.stderr
    with Image.open(root / "output/mini/export/png-150dpi-bleed0mm/board/001-front.png") as image:
        assert image.width * image.height <= 1_000_000
        assert image.size == (round(400 / 25.4 * 73), round(300 / 25.4 * 73))
        assert round(image.info["dpi"][0]) == 73
    with Image.open(root / "output/mini/export/png-150dpi-bleed0mm/deck/001-lion-front.png") as card:
        assert round(card.info["dpi"][0]) == 150  # the cards fit: their resolution is the one asked for


@pytest.mark.parametrize("mm, dpi", [((2000, 2000), 300), ((2000, 10), 1200), ((63, 88), 1200)])
def test_the_pixel_cap_holds_for_the_largest_faces(mm, dpi):
    from pnp.export.formats import MAX_PIXELS, fitting_dpi

    inches = (mm[0] / 25.4, mm[1] / 25.4)
    fitting = fitting_dpi(inches, dpi)
    assert (round(inches[0] * fitting) + 2) * (round(inches[1] * fitting) + 2) <= MAX_PIXELS
    assert fitting == dpi or (inches[0] * (fitting + 1)) * (inches[1] * (fitting + 1)) > MAX_PIXELS * 0.99


def _fill_colours_of_text(page):
    """The fill colour operators in force at each text-showing operator of a page's content (and its forms)."""
    import pikepdf

    found = []

    def walk(stream, resources):
        fill = None
        for operands, operator in pikepdf.parse_content_stream(stream):
            name = str(operator)
            if name in ("k", "g", "rg", "sc", "scn"):
                fill = (name, tuple(round(float(v), 3) for v in operands))
            elif name in ("Tj", "TJ", "'", '"'):
                found.append(fill)
            elif name == "Do":
                inner = resources.XObject[operands[0]]
                if inner.Subtype == "/Form":
                    walk(inner, inner.get("/Resources", resources))

    walk(page, page.Resources)
    return found


def test_drivethru_pdf_is_titled_as_the_game_whatever_its_letters(tmp_path, monkeypatch):
    # the title went to Ghostscript as UTF-8 bytes (in the locale's encoding), its parentheses dropped: the PDF
    # of 'Café (2e)' was titled 'CafÃ© 2e'
    import re

    import pikepdf

    from pnp.export import drivethru

    monkeypatch.setattr(drivethru, "profile", lambda: "/profile.icc")
    said = []
    monkeypatch.setattr(drivethru, "_ghostscript", lambda arguments, folder, doing, handed: said.append(
        handed[1].read()))  # (the definition, handed to it open)
    with pikepdf.new() as one_page:
        one_page.add_blank_page()
        one_page.save(tmp_path / "in.pdf")
    drivethru.pdfx(tmp_path / "in.pdf", tmp_path / "out.pdf", "Café (2e) \\ %: Cards")
    title = re.search(rb"/Title <([0-9A-F]+)>", said[0])
    assert said[0].isascii() and title and bytes.fromhex(title[1].decode()).decode("utf-16") == "Café (2e) \\ %: Cards"


def test_drivethru_text_is_vector_and_black_is_black_ink_only(tmp_path):
    """Text stays text (no page is an image of itself), and black text is drawn 0 0 0 1 k: black ink alone."""
    import pikepdf

    root = make_project(tmp_path / "proj", images={"layouts/mini/images/art.png": [40, 30]},
                        case={"replace": {"layouts/mini/back.yaml": [["elements:\n", "elements:\n  - {type: image, src: "
                                                                      "images/art.png, x: 5, y: 30, w: 53, h: 40, min_dpi: 1}\n"]]}})
    export(root, "--format", "drivethru")
    with pikepdf.open(root / "output/mini/export/drivethru/deck.pdf") as pdf:
        fills = _fill_colours_of_text(pdf.pages[0])
        # an RGB picture (on each back) is CMYK too: the mini game's cards drew none, and this met no image
        images = [image for page in pdf.pages for image in _images_drawn(page.obj)]
        assert len(images) >= 4, images
        for image in images:
            assert image.ColorSpace == "/DeviceCMYK" and image.Filter == "/FlateDecode", image
    assert fills, "the card's text was not kept as text"
    assert ("k", (0.0, 0.0, 0.0, 1.0)) in fills
    for name, values in fills:
        assert name in ("k", "g"), (name, values)  # in CMYK (or grey, which Ghostscript puts in black ink)
        if name == "k" and values[3] >= 0.99:
            assert values[:3] == (0.0, 0.0, 0.0), values  # no four-colour black under text


def test_every_service_file_alternates_front_and_back(tmp_path):
    """A deck without a back layout still gets a back for every front: a plain one, with a warning naming the
    layout; DriveThruCards' PDF alternates front and back, every back page alike."""
    import pikepdf

    root = make_project(tmp_path / "proj")
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text().replace("    back: back\n", ""))
    result = export(root, "--format", "drivethru")
    assert "layouts/mini/card.yaml:1:7: warning: Cards: layout 'card' has no back layout" in result.output
    with pikepdf.open(root / "output/mini/export/drivethru/deck.pdf") as pdf:
        assert len(pdf.pages) == 8  # 4 cards, front then back
        backs = [pdf.pages[n].Contents.read_bytes() if "/Contents" in pdf.pages[n] else b""
                 for n in range(1, 8, 2)]
        fronts = [pdf.pages[n].Contents.read_bytes() for n in range(0, 8, 2)]
    assert len(set(backs)) == 1 and len(set(fronts)) == 4
    for fmt in ("tgc", "mpc"):
        export(root, "--format", fmt)
        folder = root / f"output/mini/export/{fmt}/deck"
        fronts = sorted(p.name for p in folder.glob("*-front.png"))
        backs = sorted(p.name for p in folder.glob("*-back.png"))
        assert len(fronts) == 4 and [b.replace("-back", "-front") for b in backs] == fronts
        assert len({(folder / b).read_bytes() for b in backs}) == 1


def test_a_card_size_no_product_fits_is_refused_not_stretched(tmp_path):
    from pnp.export.services import product_for
    from pnp.units import MM

    assert product_for("tgc", (63 * MM, 88 * MM)).name == "Euro Poker Deck"  # not Poker, 1% larger
    assert product_for("tgc", (63.5 * MM, 63.5 * MM)).name == "Small Square Deck"
    assert product_for("drivethru", (70 * MM, 120 * MM)).name == "Tarot Cards"
    assert product_for("mpc", (60 * MM, 88 * MM)) is None  # 3 mm narrower than Poker Size: no stretching
    root = make_project(tmp_path / "proj")
    card = root / "layouts/mini/card.yaml"
    for face in (card, root / "layouts/mini/back.yaml"):  # (a back is its front's size)
        face.write_text(face.read_text().replace("size: poker", "size: [60mm, 88mm]"))
    result = run(root, "export", "--format", "mpc")
    assert ("layouts/mini/card.yaml:1:7: warning: Cards refused: 60 x 88 mm cards are none of MakePlayingCards' "
            "card products (Poker Size 63.5 x 88.9 mm") in result.output
    assert not list((root / "output/mini/export/mpc").rglob("*.png"))


def test_a_product_of_the_decks_own_size_is_no_note_and_an_offset_is_said_in_hundredths():
    from pnp.export.services import cut_off, product_for
    from pnp.units import MM

    poker = (63.5 * MM, 88.9 * MM)  # the float noise of mm against the product's inches: no 5e-15 mm note
    assert cut_off(product_for("tgc", poker).trim, poker) is None
    assert cut_off(poker, (63 * MM, 88 * MM)) == "0.25 mm and 0.45 mm"


def _cmyk_pdf(path, content, image=None):
    """A one-page PDF drawing `content`, with `image` ((w, h), CMYK bytes) as /Im in a form it draws."""
    import pikepdf

    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(100, 100))
    if image is not None:
        (w, h), data = image
        pixels = pdf.make_stream(data, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image, Width=w, Height=h,
                                 ColorSpace=pikepdf.Name.DeviceCMYK, BitsPerComponent=8)
        form = pdf.make_stream(b"10 0 0 10 0 0 cm /Im Do", Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form,
                               BBox=[0, 0, 100, 100], Resources=pikepdf.Dictionary(
                                   XObject=pikepdf.Dictionary(Im=pixels)))
        page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Art=form))
    page.Contents = pdf.make_stream(content)
    pdf.save(path)
    return path


def test_drivethru_preflight_reads_the_ink_of_every_colour_and_image(tmp_path, monkeypatch):
    """The ink check reads the colours the pages set and the images' pixels: a rich black anywhere is caught."""
    from pnp.export import drivethru
    from pnp.export.drivethru import max_ink
    from pnp.export.formats import Plan
    from pnp.export.registry import preflight

    folder, work = tmp_path / "final", tmp_path / "work"
    work.mkdir()
    monkeypatch.setattr(drivethru, "_rendered_max_ink", lambda path: pytest.fail(f"{path} was rendered"))
    _cmyk_pdf(work / "text.pdf", b"0 0 0 1 k BT ET 0.6 0.4 0.4 1 k 0 0 5 5 re f 0.7 0.6 0.6 0.95 K 0 0 m 9 9 l S")
    _cmyk_pdf(work / "art.pdf", b"0 0 0 1 k q /Art Do Q", ((2, 1), bytes([0, 0, 0, 255, 250, 200, 200, 255])))
    _cmyk_pdf(work / "fine.pdf", b"0.6 0.4 0.4 1 k 0 0 5 5 re f /DeviceGray cs 0 sc /Art Do", ((1, 1), bytes([60] * 4)))
    assert round(max_ink(work / "text.pdf")) == 285  # the stroke's four-colour black
    assert round(max_ink(work / "art.pdf")) == 355  # the image's second pixel
    names = ("text.pdf", "art.pdf", "fine.pdf")
    plan = Plan(pdfs={str(folder / n): 1 for n in names}, ink={str(folder / n): 240 for n in names})
    checked = []
    found = list(preflight(plan, folder, work, lambda p: Path(p).name, checked.append))
    assert found == [("art.pdf", "355% total ink somewhere; the format allows 240%"),
                     ("text.pdf", "285% total ink somewhere; the format allows 240%")]
    assert checked == [1, 1, 1]  # each file's check counted on the progress bar
    # a deck's pages known by the face each prints: said at the face's layout's line, naming it (it was said at the
    # PDF alone, 'somewhere')
    from pnp.report import Mark
    plan.ink_faces[str(folder / "art.pdf")] = [("deck 'lion' front, laid out by layout 'card',", Mark("cards/g/game.yaml", 7, 5))]
    found = list(preflight(plan, folder, work, lambda p: Path(p).name))
    assert found[0] == (Mark("cards/g/game.yaml", 7, 5), "deck 'lion' front, laid out by layout 'card', prints 355% "
                        "total ink on page 1 of art.pdf; the format allows 240%: lighten its darkest colours or pictures")


def test_export_starts_no_more_processes_than_cores(monkeypatch, tmp_path):
    """-j 64 started 65 processes (4.2 GB together) for no gain past the cores: the pool is cut to the cores."""
    from pnp.export import raster

    sizes = []

    class Stop(Exception):
        pass

    def pool(processes):
        sizes.append(processes)
        raise Stop

    monkeypatch.setattr(raster, "_pool", pool)
    monkeypatch.setattr(raster, "usable_cores", lambda: 3)  # (the cores the process may use)
    shots = [raster.Shot(0, str(tmp_path / f"{n}.png"), (1, 1), (0, 0, 0, 0), 0, (1, 1), 72) for n in range(100)]
    with pytest.raises(Stop):
        raster.write_all([], shots, jobs=64)
    assert sizes == [3]


def test_the_images_being_rendered_at_once_take_at_most_the_render_memory_together(tmp_path, monkeypatch):
    """One worker per core, each rendering an image near MAX_PIXELS (~400 MB apiece), took 984 MB together on two
    cores and would take over 3 GB on eight: a batch is given to the workers only while the batches not yet done
    take at most RENDER_MEMORY together. Counted on a pool that renders nothing, each batch done when waited for."""
    from pnp.export import raster

    given, waiting = [], []

    class Result:
        def __init__(self, shots):
            self.shots = shots
            waiting.append(self)

        def done(self):
            return False

        def result(self):
            waiting.remove(self)
            return len(self.shots)

    class FakePool:
        def submit(self, work, batch):
            result = Result(batch[1])
            given.append(len(waiting) * 8000 * 4900 * 10)  # ~10 bytes a pixel at the peak of rendering each
            return result

        def shutdown(self, **kwargs):
            pass

    monkeypatch.setattr(raster, "_pool", lambda jobs: FakePool())
    monkeypatch.setattr(raster, "usable_cores", lambda: 8)
    big = [raster.Shot(n, str(tmp_path / f"{n}.png"), (8000, 4900), (0, 0, 0, 0), 0, (1, 1), 72) for n in range(24)]
    done = []
    raster.write_all([(tmp_path / "faces.pdf", 0, 24)], big, jobs=8, on_done=done.append)
    assert sum(done) == 24 and len(given) == 3  # every shot, in three batches
    assert max(given) <= raster.RENDER_MEMORY, given




def test_the_pictures_kept_for_drawing_are_given_up_before_the_rendering_processes_are_forked(monkeypatch):
    """Forked holding the resampled pictures the check kept (up to KEPT_BYTES), each worker kept its copy of
    their pages for good once pnp let them go for its next faces: a 1200-dpi export of noisy pictures on two
    cores peaked at 984 MB summed over the processes, 761 MB once they were given up before the fork."""
    import concurrent.futures

    from pnp.draw import pictures
    from pnp.export import raster

    seen = []

    class FakeExecutor:  # made where the pool forks: how many pictures it would have inherited
        def __init__(self, *args, **kwargs):
            seen.append(len(pictures._kept))

        def submit(self, *args):
            pass

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", FakeExecutor)
    monkeypatch.setattr(pictures, "_kept", type(pictures._kept)({"board|2362x2362": (b"x" * 1000, "d")}))
    raster._pool(2)
    assert seen == [0]
def _ctrl_c_in_worker() -> tuple[bool, bool]:
    import signal

    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN, signal.SIGINT in signal.pthread_sigmask(
        signal.SIG_BLOCK, set())


def test_ctrl_c_is_the_exports_not_its_rendering_processes():
    """Ctrl-C in a terminal reaches every process of the group: each rendering worker printed its traceback
    (KeyboardInterrupt in its import of pypdfium2, or in its wait for work) beside pnp's 'Aborted!'."""
    import signal

    from pnp.export import raster

    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    pool = raster._pool(1)
    try:
        assert pool.submit(_ctrl_c_in_worker).result(timeout=60) == (True, False)  # ignored, not held for good
    finally:
        pool.shutdown()
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before  # the parent's mask given back


def test_an_export_whose_rendering_process_dies_fails_saying_so(mini, monkeypatch):
    """A process rendering the images ended by the system (out of memory, a crash in the renderer) left the
    export waiting for its result for good."""
    import signal

    from pnp.export import raster

    def dying(*args):  # (in the workers: forked with this patch)
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(raster, "render_pixels", dying)
    monkeypatch.setattr(raster, "usable_cores", lambda: 2)
    with failing_after(60, "the export waited for good for a dead process"):
        result = run(mini, "export", "mini", "--format", "png", "--dpi", "72", "-j", "2", "--force")
    assert result.exit_code == 1, result.output
    assert "mini: export failed: a process rendering the images ended without a word" in result.output
    assert not list((mini / "output").rglob("*.tmp"))


def _die_faces_exported(tmp_path, die: str) -> list:
    """The PNG files `pnp export --format png` writes for the faces of a die drawn by the layout `die`."""
    root = make_project(tmp_path / "p", case={"files": {"layouts/mini/die.yaml": die}, "replace": {
        "cards/mini/game.yaml": [["components:\n", "components:\n  - {id: die, name: Die, kind: die, count: 1, "
                                  "layout: die}\n"]]}})
    result = run(root, "export", "mini", "--format", "png", "--dpi", "72", "-j", "1")
    assert result.exit_code == 0, result.output
    return sorted((root / "output/mini/export/png-72dpi/die").glob("*.png"))


def test_die_faces_whose_names_slug_alike_each_get_an_image_of_their_own(tmp_path):
    """A die's faces 1 and '1', 'a b' and 'a-b' slug alike: each face's PNG was written over the other's
    (4 images for a d6, exit 0). 'ς' and 'σ' slugged apart, into two names a disk blind to case (a Mac,
    Windows, a USB stick) takes for one."""
    die = ('size: [20mm, 20mm]\nnet: d6\nedge: 20mm\nfaces: ["a b", 1, "1", "a-b", "\u03c2", "\u03c3"]\n'
           'elements:\n'
           '  - {type: text, x: 1, y: 8, w: 18, h: 4, text: "{{ face }} {{ face is number }}", size: 7}\n')
    images = _die_faces_exported(tmp_path, die)
    assert len({unicodedata.normalize("NFC", image.name).casefold() for image in images}) == 6, images
    assert len({image.read_bytes() for image in images}) == 6  # each its own face


def test_an_export_refused_counts_the_errors_as_build_does(tmp_path):
    # "not exported (fix the errors above)" follows from the errors before it: it was counted as one more
    # (build said "1 error", export "2 errors" of the same game)
    root = make_project(tmp_path / "p", case={"replace": {"cards/mini/game.yaml": [["kind: board", "kind: bored"]]}})
    outputs = {command: run(root, command, *args).output
               for command, args in (("build", ()), ("export", ("--format", "png")))}
    assert "built 0 of 1 game: 1 error\n" in outputs["build"]
    assert "exported 0 of 1 game as png: 1 error\n" in outputs["export"]
    assert "mini: not exported (fix the errors above)" in outputs["export"]


def test_die_faces_named_in_letters_of_four_bytes_each_get_a_file_a_file_system_can_hold(tmp_path):
    """A face's file name held 60 characters of its value: 60 letters of 4 bytes (U+1D400), a twelfth face
    numbered -12 among those alike, made a name of 256 bytes. The game passed validate and its export failed,
    "File name too long" at a temporary folder's name."""
    faces = ", ".join(f'"{chr(0x1D400) * 60}{n}"' for n in range(12))
    die = (f"size: [10mm, 10mm]\nnet: d12\nfaces: [{faces}]\nelements:\n"
           "  - {type: text, x: 1, y: 3, w: 8, h: 4, text: '{{ face[60:] }}', size: 7}\n")
    images = _die_faces_exported(tmp_path, die)
    assert len(images) == 12 and all(len(os.fsencode(image.name)) <= 255 for image in images), images


@pytest.mark.skipif(not Path("/usr/bin/gs").exists(), reason="needs Ghostscript")
@pytest.mark.parametrize("gs_options", ["", "-dNOSAFER"])
def test_ghostscript_opens_nothing_beside_its_files(tmp_path, monkeypatch, gs_options):
    """Ghostscript, measuring the ink of a file it renders, may write nothing outside the export's work folder:
    not with GS_OPTIONS=-dNOSAFER in the user's environment, nor in /tmp (its temporary folder, which -dSAFER
    leaves open to it). The file here is PostScript named .pdf, which Ghostscript runs as a program."""
    from pnp.export.drivethru import DriveThruError, _rendered_max_ink

    work, outside = tmp_path / "work", tmp_path / "outside.txt"
    work.mkdir()
    (work / "deck.pdf").write_text(f"%!PS\n/f ({outside}) (w) file def f (hi) writestring f closefile showpage\n")
    monkeypatch.setenv("GS_OPTIONS", gs_options)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with pytest.raises(DriveThruError, match="measure the ink of deck.pdf"):
        _rendered_max_ink(work / "deck.pdf")
    assert not outside.exists()
    assert sorted(p.name for p in work.iterdir()) == ["deck.pdf"]


@pytest.mark.skipif(not Path("/usr/bin/gs").exists(), reason="needs Ghostscript")
def test_ghostscript_writes_and_reads_the_files_pnp_made_not_a_link_swapped_in_for_one(tmp_path, monkeypatch):
    """The files Ghostscript writes (a deck's PDF/X, the ink measure's TIFF) and reads (the page, the
    definition) are handed to it open: named by path, each swapped for a link while it ran (the work folder is in
    the project) had the PDF or the TIFF written through it outside the project."""
    import pikepdf

    from pnp.export import drivethru

    work, outside = tmp_path / "work", tmp_path / "outside.txt"
    work.mkdir()
    outside.write_text("the user's")
    with pikepdf.new() as pdf:
        pdf.add_blank_page(page_size=(20, 20))
        pdf.save(work / "deck.pdf")
    ghostscript = drivethru._ghostscript

    def swapped(arguments: list, folder: Path, doing: str, handed=()) -> None:
        for name in ("deck.ink.tif", "deck.x.pdf", "deck.x.pdfx.ps"):
            if (folder / name).exists():
                (folder / name).unlink()
                (folder / name).symlink_to(outside)
        ghostscript(arguments, folder, doing, handed)

    monkeypatch.setattr(drivethru, "_ghostscript", swapped)
    assert drivethru._rendered_max_ink(work / "deck.pdf")[0] == 0.0  # (the page as rendered: white)
    drivethru._pdfx_run(work / "deck.pdf", work / "deck.x.pdf", "t")
    assert outside.read_text() == "the user's"


@pytest.mark.parametrize("written, said", [(None, "wrote nothing"), (b"junk", "not a whole PDF"),
                                           (b"%PDF-1.4\n%%EOF\n", "not a whole PDF"), ("one page", "not a whole PDF")])
def test_ghostscript_that_exits_0_without_a_whole_pdf_fails_the_export_as_such(tmp_path, written, said):
    """Ghostscript that says it made the deck's PDF/X-1a but left no file, junk or a PDF short of pages (a disk
    that filled up): the export fails saying so, not as a bug in pnp (qpdf's PdfError, or an IndexError)."""
    import pikepdf

    from pnp.export.drivethru import DriveThruError, _in_order

    distinct = tmp_path / ".deck.pdf.distinct.pdf"
    if written == "one page":
        with pikepdf.new() as pdf:
            pdf.add_blank_page()
            pdf.save(distinct)
    elif written is not None:
        distinct.write_bytes(written)
    with pytest.raises(DriveThruError, match=f"deck.pdf PDF/X-1a: .*{said}"):
        _in_order(distinct, [0, 1, 1], tmp_path / "deck.pdf")
    assert not (tmp_path / "deck.pdf").exists()


@pytest.mark.parametrize("written", [None, b"junk", b"II*\x00"])
def test_ghostscript_that_exits_0_without_a_whole_tiff_fails_the_ink_measure_as_such(tmp_path, monkeypatch, written):
    """The ink measured on a page Ghostscript renders: none, junk or a TIFF cut short left by a Ghostscript that
    exits 0 fails the export saying so (it was a bug in pnp, PIL's UnidentifiedImageError)."""
    from pnp.export import drivethru

    def ghostscript(arguments: list, folder: Path, doing: str, handed=()) -> None:
        if written is not None:
            (folder / "deck.ink.tif").write_bytes(written)

    monkeypatch.setattr(drivethru, "_ghostscript", ghostscript)
    (tmp_path / "deck.pdf").write_bytes(b"%PDF-1.4\n")  # (opened before Ghostscript runs, to be handed to it)
    with pytest.raises(drivethru.DriveThruError, match="measure the ink of deck.pdf: .*not a whole TIFF"):
        drivethru._rendered_max_ink(tmp_path / "deck.pdf")
    assert not (tmp_path / "deck.ink.tif").exists()


def test_a_format_s_tasks_run_no_more_at_once_than_there_are_cores(tmp_path, monkeypatch):
    """`-j 64` runs a format's tasks (drivethru's Ghostscript conversion of each deck) at most one per core, as the
    images are: all at once, a game of 25 decks ran 25 Ghostscripts together on two cores (720 MB)."""
    import threading
    import time

    from pnp.export import raster
    from pnp.export.raster import run_tasks

    monkeypatch.setattr(raster, "usable_cores", lambda: 2)
    lock, running, most, done = threading.Lock(), [0], [0], []

    def task(folder):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.02)  # (long enough for every thread allowed to start meanwhile)
        with lock:
            running[0] -= 1

    run_tasks([task] * 8, tmp_path, jobs=64, on_done=done.append)
    assert most[0] <= 2 and len(done) == 8


def test_an_export_of_more_pixels_than_one_export_writes_is_refused_before_drawing_with_the_dpi_that_fits(tmp_path):
    """Each image was held to MAX_PIXELS but an export as a whole had no bound: DinoSpan's 356 faces at --dpi 1200
    ran for many minutes, writing gigabytes. Fifty-seven boards at 1200 dpi (each held to 40 million pixels) are
    refused at game.yaml before a face is drawn, with the highest --dpi that fits."""
    from pnp.export.raster import MAX_EXPORT_PIXELS

    boards = "".join(f"  - {{id: b{n}, name: B{n}, kind: board, layout: board}}\n" for n in range(56))
    root = make_project(tmp_path / "p", case={"replace": {"cards/mini/game.yaml": [["components:\n",
                                                                                   "components:\n" + boards]]}})
    result = run(root, "export", "mini", "--format", "png", "--dpi", "1200")
    assert result.exit_code == 1
    said = re.search(r"^cards/mini/game\.yaml:(\d+):\d+: error: mini: the png export's 65 images would hold ([\d,]+) "
                     r"million pixels \('b0' the most\), more than the ([\d,]+) million .*; export at --dpi (\d+) or "
                     r"less$", result.output, re.M)
    assert said, result.output
    lines = (root / "cards/mini/game.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[int(said[1]) - 1].startswith("  - {id: b0,")  # at the component to print fewer of, not at no line
    said = said.group(0, 2, 3, 4)
    assert int(said[1].replace(",", "")) > int(said[2].replace(",", "")) == MAX_EXPORT_PIXELS // 10**6
    assert 72 <= int(said[3]) < 1200
    assert not (root / "output/mini/export/png-1200dpi").exists()  # nothing drawn, nothing written


def test_a_proofs_label_is_read_no_longer_than_a_line_could_show():
    # a name an alias repeats on every card (950,000 characters on 500 cards) was read whole for the font's
    # glyphs, on each card, before the label was cut to its width: past 60 s
    from types import SimpleNamespace

    from pnp.export.formats import MAX_LABEL, _label
    face = SimpleNamespace(item={"id": "c1"}, name="n" * 100_000, index=0)
    assert _label(face) == ("c1 · " + "n" * 100_000)[:MAX_LABEL]  # type: ignore[arg-type]


def test_drivethru_deck_is_composed_part_by_part_within_its_picture_budget(tmp_path, monkeypatch):
    # 1,000 full-art cards held every CMYK picture in one Pdf until it was saved: 600 MB, twice that at 2,000
    from reportlab.pdfgen import canvas

    from pnp.export import drivethru
    faces = tmp_path / "faces.pdf"
    c = canvas.Canvas(str(faces), pagesize=(180, 252))
    for n in range(3):  # three faces, each its own RGB picture
        picture = tmp_path / f"{n}.png"
        Image.new("RGB", (20, 28), (80 * n, 40, 200)).save(picture)
        c.drawImage(str(picture), 0, 0, 180, 252)
        c.showPage()
    c.save()
    monkeypatch.setattr(drivethru, "COMPOSE_PART_BYTES", 1)  # every picture fills a part
    job = drivethru.DeckJob("d.pdf", "t", [0, None, 1, None, 0, 2], (180.0, 252.0), 9.0, 0.0)
    parts: list[Path] = []
    order = job.compose(faces, tmp_path / "raw", parts)
    import pikepdf
    counts = [len(pikepdf.open(part).pages) for part in parts]
    assert counts == [1, 2, 1]  # face 0; a white back and face 1; face 2
    assert order == [0, 1, 2, 1, 0, 3]  # numbered across the parts in order, repeats drawn once


def test_drivethru_pictures_are_compressed_once_not_by_ghostscript_on_every_page(tmp_path, monkeypatch):
    # pdfwrite compressed a picture on every page that drew it before finding it a repeat: 1,000 cards showing
    # one 2000 x 2500 picture took 180 s of Ghostscript. It copies the pixels; pikepdf compresses them, once
    import pikepdf
    from reportlab.pdfgen import canvas

    from pnp.export import drivethru
    from pnp.export.faces import FACES_PDF
    picture = tmp_path / "art.png"
    Image.new("RGB", (40, 56), (200, 40, 90)).save(picture)
    (tmp_path / FACES_PDF).parent.mkdir()
    c = canvas.Canvas(str(tmp_path / FACES_PDF), pagesize=(180, 252))
    for n in range(2):  # two faces showing the one picture
        c.drawImage(str(picture), 0, 0, 180, 252)
        c.drawString(20, 20, f"card {n}")
        c.showPage()
    c.save()
    runs, ghostscript = [], drivethru._ghostscript
    monkeypatch.setattr(drivethru, "_ghostscript", lambda arguments, *rest: (runs.append(arguments),
                                                                            ghostscript(arguments, *rest)))
    drivethru.DeckJob("d.pdf", "t", [0, 1], (180.0, 252.0), 9.0, 0.0)(tmp_path)
    assert len(runs) == 1 and "-dEncodeColorImages=false" in runs[0]
    with pikepdf.open(tmp_path / "d.pdf") as pdf:
        images = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"]
        assert len(images) == 1 and images[0].Filter == "/FlateDecode"  # drawn once, compressed
        assert len(images[0].read_raw_bytes()) < 40 * 56 * 4 / 4
        assert str(images[0].ColorSpace) == "/DeviceCMYK"


def test_drivethru_card_enlarged_beneath_shows_only_in_the_ring_outside_the_card():
    # the copy beneath, enlarged to fill the bleed, showed through a card with no background (or a transparent
    # picture): every title and frame printed twice, a hair apart, in the drivethru PDF only
    from pnp.export import drivethru
    job = drivethru.DeckJob("d.pdf", "t", [0], (180.0, 252.0), 9.0, 9.0)
    beneath, card = job._placed(190.0, 260.0, 198.0, 270.0).decode().split("\n")
    ops = beneath.split()
    assert ops[:14] == ["q", "0", "0", "198.0000", "270.0000", "re", "4.0000", "5.0000", "190.0000", "260.0000",
                        "re", "W*", "n", ops[13]]  # clipped to the page less the card (even-odd) before it draws
    assert ops.index("W*") < ops.index("Do") and card.endswith("/Card Do Q")
