"""What a designer gets from `pnp build`: geometry read back from the PDFs, fonts, manifest, determinism."""

import json
import math
import os
import subprocess
import sys

import pdfplumber
import pytest
import yaml

from pnp.errors import DataError
from pnp.products import KINDS
from conftest import DATA, REPO, make_project, run
from pdfread import MM, drawn, fonts, page_geometry, placed_forms, read, texts, tile_targets

PAPERS = {"a4": (210, 297), "letter": (215.9, 279.4)}
# a poker card's trim on each paper's card sheet (mm across, up): Letter's cards lie turned, 2 x 4, as three
# upright rows would leave no room above and below for crop marks of 3 mm
CARD = {"a4": (63, 88), "letter": (88, 63)}


def build(root, *args):
    result = run(root, "build", *args)
    assert result.exit_code == 0, result.output
    return root / "output" / "mini"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The mini game built once on each paper (module-scoped: building is the slow part)."""
    out = {}
    for paper in PAPERS:
        root = make_project(tmp_path_factory.mktemp(paper) / "proj")
        out[paper] = build(root, "--paper", paper)
    return out


def card_pages(folder, paper):
    reader = read(folder / f"mini-cards-{paper}.pdf")
    return reader, reader.pages[0], reader.pages[1]


def cut_lines(segments):
    """x of the vertical crop marks and y of the horizontal ones (mm): the lines a player cuts along."""
    return (sorted({round(a[0] / MM, 2) for a, b in segments if abs(a[0] - b[0]) < 1e-6}),
            sorted({round(a[1] / MM, 2) for a, b in segments if abs(a[1] - b[1]) < 1e-6}))


@pytest.mark.parametrize("paper", PAPERS)
def test_butted_cards_meet_on_the_cut_line_and_bleed_outwards(built, paper):
    _, front, _ = card_pages(built[paper], paper)
    segments, clips = page_geometry(front)
    cards = [tuple(v / MM for v in c) for c in clips if c[2] < 100 * MM]
    assert len(cards) == 4  # the mini deck: four cards on one sheet
    xs, ys = cut_lines(segments)
    outward, trims = [], []
    for x, y, w, h in cards:
        # each card's art is clipped between two neighbouring cut lines each way, a card's trim apart, or up
        # to 3 mm (the layout's bleed) past one where no card is next to it
        left = min(v for v in xs if v >= x - 0.01)
        right = max(v for v in xs if v <= x + w + 0.01)
        bottom = min(v for v in ys if v >= y - 0.01)
        top = max(v for v in ys if v <= y + h + 0.01)
        assert abs(right - left - CARD[paper][0]) < 0.1 and abs(top - bottom - CARD[paper][1]) < 0.1
        trims.append((left, bottom, right - left, top - bottom))
        past = (left - x, bottom - y, x + w - right, y + h - top)
        assert all(-0.01 < d < 3.01 for d in past), past
        outward += [d for d in past if d > 0.01]
    # no card's art reaches into another card's trim: where two cards meet, both stop at the cut line
    for i, a in enumerate(cards):
        for j, b in enumerate(trims):
            across = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
            up = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
            assert i == j or across < 0.01 or up < 0.01, (a, b)
    assert outward and max(outward) > 2.9  # the margins leave room for 3 mm of outer bleed on some side


@pytest.mark.parametrize("paper", PAPERS)
def test_crop_marks_continue_the_cut_lines_outside_the_cards(built, paper):
    _, front, _ = card_pages(built[paper], paper)
    segments, clips = page_geometry(front)
    pw, ph = (v * MM for v in PAPERS[paper])
    cards = [c for c in clips if c[2] < 100 * MM]
    left = min(c[0] for c in cards)
    bottom = min(c[1] for c in cards)
    top = max(c[1] + c[3] for c in cards)
    vertical = sorted({round(a[0] / MM, 2) for a, b in segments if abs(a[0] - b[0]) < 1e-6})
    horizontal = sorted({round(a[1] / MM, 2) for a, b in segments if abs(a[1] - b[1]) < 1e-6})
    # the 4-card deck on A4 fills a row of 3 and one slot of the next: 4 cut lines 63 mm apart across, and
    # the 3 lines of those two 88 mm rows down; the empty third row gets no marks. On Letter it fills two
    # rows of 2 turned cards: 3 lines 88 mm apart across, 3 lines 63 mm apart down
    steps_x = [b - a for a, b in zip(vertical, vertical[1:])]
    steps_y = [b - a for a, b in zip(horizontal, horizontal[1:])]
    lines = {"a4": (4, 3), "letter": (3, 3)}[paper]
    assert len(vertical) == lines[0] and all(abs(s - CARD[paper][0]) < 0.1 for s in steps_x), vertical
    assert len(horizontal) == lines[1] and all(abs(s - CARD[paper][1]) < 0.1 for s in steps_y), horizontal
    assert -0.01 < vertical[0] - left / MM < 3.01  # the first cut line at the first card, its outer bleed past it
    # every mark lies in the margin, outside the block of cards, and on the paper
    for (x1, y1), (x2, y2) in segments:
        if abs(x1 - x2) < 1e-6:
            assert max(y1, y2) <= bottom + 0.01 or min(y1, y2) >= top - 0.01
        for x, y in ((x1, y1), (x2, y2)):
            assert 0 < x < pw and 0 < y < ph


@pytest.mark.parametrize("paper", PAPERS)
def test_crop_marks_are_3_mm_long_and_stop_short_of_the_footer(tmp_path, paper):
    """A full sheet of poker cards, front and back: every crop mark is at least 3 mm long (shorter ones are
    hard to find and to lay a ruler on) and none runs into the footer line below the cards."""
    root = make_project(tmp_path / "proj")
    cards = "".join(f"- {{id: {name}, name: C{name}, kind: beast, power: 1}}\n" for name in ["lion", *"abcdefgh"])
    (root / "cards/mini/cards.yaml").write_text(cards, encoding="utf-8")
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text().replace("length == 4", "length == 9").replace("count: 4", "count: 9"))
    _, front, back = card_pages(build(root, "--paper", paper), paper)
    for page in (front, back):
        footer_y = min(y for text, x, y in texts(page) if "Mini Game" in text)
        segments, clips = page_geometry(page)
        cards = [c for c in clips if c[2] < 100 * MM]
        bottom, top = min(c[1] for c in cards), max(c[1] + c[3] for c in cards)
        marks = [(a, b) for a, b in segments if max(a[1], b[1]) <= bottom + 0.01 or min(a[1], b[1]) >= top - 0.01
                 or abs(a[1] - b[1]) < 1e-6]  # the vertical marks above and below the cards, the horizontal ones
        assert len(marks) >= 12
        assert min(math.dist(a, b) for a, b in marks) >= 3 * MM - 0.01
        lowest = min(min(a[1], b[1]) for a, b in marks)
        assert lowest > footer_y + 2 * MM  # above the footer: its 6.5 pt capitals stand 1.6 mm over the baseline


def test_backs_are_mirrored_for_long_edge_duplex(built):
    reader, front, back = card_pages(built["a4"], "a4")
    pw = 210 * MM
    ids = {"lion", "fern", "wolf", "moss"}
    fronts = {t: (x, y) for t, x, y in texts(front) if t in ids}
    # each back is a form XObject holding the card and its 3 mm of bleed, placed at (x, y): its trim corner
    # is 3 mm further in; the text is drawn inside it
    backs = {t: (x + 3 * MM, y + 3 * MM) for _, x, y, inner in placed_forms(back) for t in inner if t in ids}
    assert set(fronts) == set(backs) == ids
    offsets = set()
    for card, (fx, fy) in fronts.items():
        bx, by = backs[card]
        # the front's text starts 5 mm inside its card's left trim edge; the back sits in the mirrored
        # column: front trim x + back trim x = paper width - card width
        assert abs((fx - 5 * MM) + bx - (pw - 63 * MM)) < 0.1 * MM, card
        offsets.add(round(fy - by, 2))
    # same row: the text's height above its back's bottom edge is one constant for every card
    assert len(offsets) == 1 and 0 < offsets.pop() < 88 * MM


def test_every_font_in_every_pdf_is_embedded(built):
    for pdf in sorted(built["a4"].glob("*.pdf")):
        found = fonts(read(pdf))
        assert found, pdf.name
        assert all(found.values()), (pdf.name, found)
        assert not any("Helvetica" in name or "Times" in name for name in found), found


def test_manifest_counts_equal_the_data(built):
    manifest = json.loads((built["a4"] / "manifest.json").read_text())
    comps = {c["id"]: c for c in manifest["components"]}
    assert comps["deck"]["count"] == 4 and comps["deck"]["kind"] == "deck"
    assert comps["deck"]["size_mm"] == [63.0, 88.0]
    assert comps["board"]["count"] == 1
    files = {f["path"]: f for f in manifest["files"]}
    assert {"mini-a4.pdf", "mini-cards-a4.pdf", "mini-rulebook-a4.pdf", "mini-boards-a4.pdf",
            "mini-boards-fullsize.pdf"} <= set(files)
    for f in manifest["files"]:
        assert len(read(built["a4"] / f["path"]).pages) == f["pages"]
    first, last = comps["deck"]["pages"]
    assert (first, last) == (1, 2)  # fronts then backs
    everything = len(read(built["a4"] / "mini-a4.pdf").pages)
    assert comps["board"]["all_in_one"]["pages"][1] == everything


def test_board_bigger_than_the_paper_is_tiled_with_matching_targets(built):
    reader = read(built["a4"] / "mini-boards-a4.pdf")
    assert len(reader.pages) == 4  # 400 x 300 mm: 2 x 2 tiles on landscape A4 (portrait would need 3 x 2)
    assert float(reader.pages[0].mediabox[2]) > float(reader.pages[0].mediabox[3])
    # every registration target sits in an overlap, so it is printed on exactly two tiles at the same
    # board point: read back from the pages, each board point must come up exactly twice
    seen = {}
    for page in reader.pages:
        for point in tile_targets(page):
            seen[point] = seen.get(point, 0) + 1
    assert seen and all(n == 2 for n in seen.values()), seen
    assert len(seen) == 8  # 2 x 2 tiles have four seams (two across, two down), two targets on each
    full = read(built["a4"] / "mini-boards-fullsize.pdf")
    page = full.pages[0]
    w, h = (float(v) / MM for v in page.mediabox[2:])
    # the board, its layout's 3 mm of bleed all round, and 12 mm of margin for the crop marks
    assert abs(w - (400 + 6 + 24)) < 0.1 and abs(h - (300 + 6 + 24)) < 0.1
    trim, bleed = ([float(v) / MM for v in box] for box in (page.trimbox, page.bleedbox))
    assert all(abs(a - b) < 0.01 for a, b in zip(trim, (15, 15, 415, 315))), trim
    assert all(abs(a - b) < 0.01 for a, b in zip(bleed, (12, 12, 418, 318))), bleed


def test_the_full_size_file_holds_each_boards_back_after_its_front(tmp_path):
    """A print shop prints the full-size file double-sided: a two-sided mat's back follows its front, on a page
    of the same size with the same trim."""
    base = (DATA / "base/cards/mini/game.yaml").read_text()
    sided = base.replace("    kind: board\n    layout: board\n", "    kind: board\n    layout: board\n    back: board-back\n")
    assert sided != base
    back = "size: [400mm, 300mm]\nelements:\n  - {type: rect, x: 0, y: 0, w: 400, h: 300, bleed: true, fill: '#335577'}\n"
    folder = build(make_project(tmp_path / "p", {"cards/mini/game.yaml": sided, "layouts/mini/board-back.yaml": back}))
    full = read(folder / "mini-boards-fullsize.pdf")
    assert len(full.pages) == 2
    front, rear = full.pages
    assert [float(v) for v in front.mediabox] == [float(v) for v in rear.mediabox]
    assert [float(v) for v in front.trimbox] == [float(v) for v in rear.trimbox]


def test_two_builds_are_byte_identical(tmp_path):
    a = build(make_project(tmp_path / "a"))
    b = build(make_project(tmp_path / "b"))
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_a_pdf_saved_part_by_part_is_the_pdf_reportlab_would_have_joined(tmp_path):
    """FormCanvas.save writes each part of the PDF to its file as it is made (the pictures of a full-art deck
    were held three times over while saving): the bytes are those of ReportLab's own getpdfdata, to a path or
    to a stream, and a getpdfdata after a save still gives its bytes."""
    import io

    from PIL import Image
    from reportlab.lib.utils import ImageReader

    from pnp.draw.canvas import new_canvas

    picture = io.BytesIO()
    Image.effect_noise((64, 48), 90).convert("RGB").save(picture, "PNG")

    def drawn(target):
        canvas = new_canvas(target, "Helvetica", compression=1)
        for page in range(3):
            canvas.beginForm(f"f{page}")
            canvas.drawImage(ImageReader(io.BytesIO(picture.getvalue())), 0, 0, 64 + page, 48)
            canvas.endForm()
            canvas.doForm(f"f{page}")
            canvas.drawString(10, 10, f"page {page}")
            canvas.showPage()
        return canvas

    joined = drawn(io.BytesIO()).getpdfdata()
    drawn(str(tmp_path / "a.pdf")).save()
    stream = io.BytesIO()
    drawn(stream).save()
    assert joined.startswith(b"%PDF-") and len(joined) > 9_000
    assert (tmp_path / "a.pdf").read_bytes() == joined == stream.getvalue()
    assert drawn(io.BytesIO()).getpdfdata() == joined  # (ReportLab's own way, after pnp's saves)


def test_failed_build_leaves_previous_output_intact(tmp_path, monkeypatch):
    root = make_project(tmp_path / "p")
    out = build(root)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    # invalid data: nothing is built, nothing is touched
    (root / "cards/mini/cards.yaml").write_text("- {id: lion, name: Lion, kind: beest, power: 4}\n")
    result = run(root, "build")
    assert result.exit_code == 1 and "not built" in result.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before

    # a failure half-way through drawing: the old files stay, no temporary file is left behind
    make_project(tmp_path / "p2")
    (root / "cards/mini/cards.yaml").write_text((tmp_path / "p2/cards/mini/cards.yaml").read_text())
    (root / "cards/mini/cards.yaml").write_text((tmp_path / "p2/cards/mini/cards.yaml").read_text()
                                                .replace("Lion", "Lioness"))

    def boom(*args, **kwargs):
        raise DataError("simulated failure while drawing")

    monkeypatch.setattr(KINDS["board"], "draw", boom)
    result = run(root, "build")
    assert result.exit_code == 1 and "previous output left intact" in result.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_out_option_and_bleed(tmp_path):
    root = make_project(tmp_path / "p")
    result = run(root, "build", "--out", str(tmp_path / "elsewhere"), "--bleed", "3")
    assert result.exit_code == 0, result.output
    folder = tmp_path / "elsewhere" / "mini"
    _, clips = page_geometry(read(folder / "mini-cards-a4-bleed3mm.pdf").pages[0])
    cards = [c for c in clips if c[2] < 100 * MM]
    assert len(cards) == 4
    for x, y, w, h in cards:  # each card is clipped to its trim plus 3 mm of bleed all round (turned: 8 fit
        assert sorted((w / MM, h / MM)) == pytest.approx([69, 94], abs=0.1)  # an A4 sheet that way, 6 upright)
    manifest = json.loads((folder / "manifest-bleed3mm.json").read_text())
    assert manifest["bleed_mm"] == 3.0


DIE_GAME = """- id: die
    name: Die
    kind: die
    layout: die
"""


@pytest.mark.parametrize("net, faces", [("d4", 4), ("d6", 6), ("d8", 8), ("d12", 12), ("d20", 20)])
def test_every_die_net_builds_with_each_face_value_once(tmp_path, net, faces):
    base = (DATA / "base/cards/mini/game.yaml").read_text()
    die = (f"net: {net}\nedge: 18mm\nsize: [14mm, 14mm]\nfaces: range(1, {faces + 1}) | list\n"
           "elements:\n  - {type: text, y: 4, w: 14, h: 6, text: '{{ face }}', size: 9, align: center}\n")
    root = make_project(tmp_path / "p", {"cards/mini/game.yaml": base.replace("components:\n", "components:\n  " + DIE_GAME),
                                         "layouts/mini/die.yaml": die})
    folder = build(root)
    page = read(folder / "mini-dice-a4.pdf").pages[0]
    values = sorted(int(t) for kind, t, *_ in drawn(page) if kind == "text" and t.isdigit())
    assert values == list(range(1, faces + 1))  # every face drawn once, with its own value
    manifest = json.loads((folder / "manifest.json").read_text())
    assert next(c for c in manifest["components"] if c["id"] == "die")["pages"] == [1, 1]


def _built_die(tmp_path, faces):
    """The first page of the dice of the test game given a d6 of these `faces` (as written in its layout), its
    face's value printed by a text."""
    base = (DATA / "base/cards/mini/game.yaml").read_text()
    die = (f"net: d6\nedge: 18mm\nsize: [14mm, 14mm]\nfaces: {faces}\n"
           "elements:\n  - {type: text, y: 4, w: 14, h: 6, text: '{{ face }}', size: 9, align: center}\n")
    root = make_project(tmp_path / "p", {"cards/mini/game.yaml": base.replace("components:\n", "components:\n  " + DIE_GAME),
                                         "layouts/mini/die.yaml": die})
    return read(build(root) / "mini-dice-a4.pdf").pages[0]


def test_a_die_face_written_as_a_number_prints_as_typed(tmp_path):
    """YAML reads `1.50` as 1.5 and `0x1F` as 31: a face's value printed 1.5 and 31 where the layout says 1.50
    and 0x1F (a layout's text prints as typed; so does a face)."""
    page = _built_die(tmp_path, "[1.50, 0x1F, 1_000, 2, 1.0, 3]")
    faces = sorted(t for kind, t, *_ in drawn(page) if kind == "text" and t[:1].isdigit())
    assert faces == ["0x1F", "1.0", "1.50", "1_000", "2", "3"]


def test_a_die_net_that_fits_letter_only_is_refused_by_the_letter_build_too(tmp_path):
    """A die's net, a tuck box and a token were checked on the build's own paper alone: a d6 of 61 mm edges
    (Letter is wider than A4) built on Letter, exit 0, while validate refused it, and a token that fits A4
    alone passed validate and stopped the Letter build. Each is checked on every paper, as the rulebook is."""
    base = (DATA / "base/cards/mini/game.yaml").read_text()
    die = "net: d6\nedge: 61mm\nsize: [14mm, 14mm]\nfaces: range(1, 7) | list\nelements: []\n"
    root = make_project(tmp_path / "p", {"cards/mini/game.yaml": base.replace("components:\n", "components:\n  " + DIE_GAME),
                                         "layouts/mini/die.yaml": die})
    result = run(root, "build", "mini", "--paper", "letter")
    assert result.exit_code == 1 and not (root / "output").exists(), result.output
    assert ("layouts/mini/die.yaml:2:7: error: a d6 net with 61 mm edges is 196 x 257 mm with its glue tabs, more "
            "than the paper holds; edges of at most 60 mm fit (on a4 paper: a kit prints on every paper pnp "
            "offers)") in result.output


def test_copies_of_a_die_show_one_net_painted_once(tmp_path):
    """Each copy of a die prints its net on a page of its own, every face with its value, but the net is painted
    once (a form every copy's page shows): its painting is charged once, and 400 copies of a d20 painted afresh
    took 12 s of processor time."""
    base = (DATA / "base/cards/mini/game.yaml").read_text()
    die = ("net: d20\nedge: 18mm\nsize: [10mm, 8mm]\nfaces: range(1, 21) | list\n"
           "elements:\n  - {type: text, y: 1, w: 10, h: 6, text: '{{ face }}', size: 9, align: center}\n")
    root = make_project(tmp_path / "p", {"cards/mini/game.yaml": base.replace(
        "components:\n", "components:\n  " + DIE_GAME + "    copies: 3\n"), "layouts/mini/die.yaml": die})
    pages = read(build(root) / "mini-dice-a4.pdf").pages
    assert len(pages) == 3
    nets = set()
    for page in pages:
        shown = drawn(page)
        assert sorted(int(t) for kind, t, *_ in shown if kind == "text" and t.isdigit()) == list(range(1, 21))
        nets.update(form for kind, form, *_ in drawn(page, enter_forms=False) if kind == "form")
    assert len(nets) == 1  # the one net, placed on every page


def test_a_die_of_one_value_paints_its_face_once_for_every_face_of_the_net(tmp_path):
    """A face shown on several faces of a net is painted once, as a form each of them shows: its painting is
    charged once, and a d20 of one value painted its face of 50,000 shapes 20 times (12 s)."""
    page = _built_die(tmp_path, "\"['X'] * 6\"")
    shown = drawn(page)
    assert [t for kind, t, *_ in shown if kind == "text" and t == "X"] == ["X"] * 6
    net = {form for kind, form, *_ in drawn(page, enter_forms=False) if kind == "form"}
    faces = [form for kind, form, *_ in shown if kind == "form" and form not in net]
    assert len(faces) == 6 and len(set(faces)) == 1  # one face, placed six times


def test_a_card_pictured_many_times_in_the_rulebook_is_painted_once(tmp_path):
    """Each picture of one face in the rulebook shows one form, painted once: its painting is charged once,
    and a card of 5,000 shapes pictured 400 times, painted each time, built in 20 s."""
    book = '# Play\n\n{% for i in range(3) %}![Lion {{ i }}](component:deck/lion "20mm")\n\n{% endfor %}\n'
    root = make_project(tmp_path / "p", {"layouts/mini/rulebook.md.j2": book})
    pages = read(build(root) / "mini-rulebook-a4.pdf").pages
    placed = [form for page in pages for kind, form, *_ in drawn(page, enter_forms=False)
              if kind == "form" and ".item" in form]
    assert len(placed) == 3 and len(set(placed)) == 1


def test_token_cut_lines_follow_each_shape(tmp_path):
    base = (DATA / "base/cards/mini/game.yaml").read_text()
    tokens = base.replace("components:\n", "components:\n  - {id: chits, name: Chits, kind: tokens, items: shapes, "
                                           "layout: '{{ item.id }}'}\n")
    tokens = tokens.replace("tables:\n", "tables:\n  shapes:\n    fields: {id: {type: id}}\n")
    files = {"cards/mini/game.yaml": tokens, "cards/mini/shapes.yaml": "- {id: square}\n- {id: rounded}\n"
             "- {id: circle}\n- {id: hex}\n"}
    for shape in ("square", "rounded", "circle", "hex"):  # 30 x 26 mm: a regular hexagon's proportions
        files[f"layouts/mini/{shape}.yaml"] = f"size: [30mm, 26mm]\nshape: {shape}\nbleed: 1mm\nelements: []\n"
    folder = build(make_project(tmp_path / "p", files))
    strokes = [e[1] for e in drawn(read(folder / "mini-tokens-a4.pdf").pages[0]) if e[0] == "path" and e[2] == "S"]
    assert len(strokes) == 8  # each cut line twice: a light line under a dark one, to show on any colour
    assert strokes[0::2] == strokes[1::2]
    outlines = strokes[1::2]
    square, rounded, circle, hexagon = outlines  # packed in order
    lefts = [min(x for x, _ in p) for p in outlines]
    rights = [max(x for x, _ in p) for p in outlines]
    for right, left in zip(rights, lefts[1:]):  # 2 mm of paper between the 1 mm bleeds of two neighbours
        assert (left - right) / MM == pytest.approx(4, abs=0.01)
    for points in outlines:  # each outline spans its token's box exactly
        xs, ys = [x for x, _ in points], [y for _, y in points]
        assert (max(xs) - min(xs)) / MM == pytest.approx(30, abs=0.01)
        assert (max(ys) - min(ys)) / MM == pytest.approx(26, abs=0.01)
    assert len(square) == 4 and len(hexagon) == 6
    mid = (min(y for _, y in hexagon) + max(y for _, y in hexagon)) / 2  # corners left and right, flat top
    assert sum(1 for _, y in hexagon if abs(y - mid) < 0.01) == 2
    assert len(rounded) > 4 and len(circle) > 4  # curves: corners rounded, and the circle itself


def test_gutterfold_puts_each_back_behind_its_front_across_the_fold(tmp_path):
    folder = build(make_project(tmp_path / "p"), "--imposition", "gutterfold")
    reader = read(folder / "mini-cards-a4-gutterfold.pdf")
    assert len(reader.pages) == 1  # four cards, fronts and backs, on one folded sheet
    page = reader.pages[0]
    pw, ph = (float(v) for v in page.mediabox[2:])
    assert pw > ph  # landscape A4, folded up the middle: two columns of two each side
    ids = {"lion", "fern", "wolf", "moss"}
    fronts = {e[1]: (e[2], e[3]) for e in drawn(page, enter_forms=False) if e[0] == "text" and e[1] in ids}
    # a back's form holds its 3 mm of bleed too: its trim corner is 3 mm inside where the form is placed
    backs = {t: (x + 3 * MM, y + 3 * MM) for _, x, y, inner in placed_forms(page) for t in inner if t in ids}
    assert set(fronts) == set(backs) == ids
    for card, (fx, fy) in fronts.items():  # mirrored across the fold: the same row, the mirrored column
        bx, by = backs[card]
        assert abs((fx - 5 * MM) + bx - (pw - 63 * MM)) < 0.1 * MM, card
    fold = [(a, b) for a, b in page_geometry(page)[0] if abs(a[0] - pw / 2) < 0.01 and abs(b[0] - pw / 2) < 0.01]
    assert fold  # the fold line, up the middle of the page
    manifest = json.loads((folder / "manifest-gutterfold.json").read_text())
    assert manifest["imposition"] == "gutterfold"
    assert (folder / "mini-cards-a4.pdf").exists() is False  # a variant never writes the standard names


def test_duplex_offset_moves_the_backs_and_only_them(tmp_path):
    root = make_project(tmp_path / "a")
    folder = build(root)
    build(root, "--duplex-offset", "1,2")  # beside the home kit, under its own names
    plain, moved = folder / "mini-cards-a4.pdf", folder / "mini-cards-a4-offset1_2mm.pdf"

    def placements(pdf, number):
        page = read(pdf).pages[number]
        return sorted((round(x, 2), round(y, 2)) for _, x, y, inner in placed_forms(page))

    for (x0, y0), (x1, y1) in zip(placements(plain, 1), placements(moved, 1)):
        # seen from the front, the back's cross was 1 mm right and 2 mm up: the back page moves 1 mm the
        # same way across (a long-edge flip mirrors left and right) and 2 mm down
        assert (x1 - x0) / MM == pytest.approx(1, abs=0.01) and (y1 - y0) / MM == pytest.approx(-2, abs=0.01)
    assert texts(read(plain).pages[0]) == texts(read(moved).pages[0])
    assert json.loads((folder / "manifest-offset1_2mm.json").read_text())["duplex_offset_mm"] == [1.0, 2.0]
    assert json.loads((folder / "manifest.json").read_text())["duplex_offset_mm"] == [0.0, 0.0]
    build(root, "--duplex-offset", "-20,20")  # the most: the grid keeps its margins that much wider
    with pdfplumber.open(folder / "mini-cards-a4-offset-20_20mm.pdf") as far:
        for page in far.pages:  # every back stays on the paper (its outer column was 12 mm past the edge)
            for art in page.rects + page.images:
                assert min(art["x0"], art["top"], page.width - art["x1"], page.height - art["bottom"]) >= 7 * MM - 0.01


def test_calibration_sheet_has_scales_on_the_front_and_a_cross_on_the_back(tmp_path):
    result = run(make_project(tmp_path / "p"), "calibrate", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    reader = read(tmp_path / "out" / "calibrate-a4.pdf")
    assert len(reader.pages) == 2
    labels = {t for t, _, _ in texts(reader.pages[0])}
    assert {"+5", "-5", "+15", "-15", "X", "Y"} <= labels
    segments, _ = page_geometry(reader.pages[1])
    long_lines = [(a, b) for a, b in segments if math.dist(a, b) > 100 * MM]
    assert len(long_lines) == 2  # the back's cross crosses at the centre of the page
    for a, b in long_lines:
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        assert mid == pytest.approx((105 * MM, 148.5 * MM), abs=0.01)


def test_the_calibration_sheet_is_set_in_pnps_own_fonts_whatever_the_projects_lack(tmp_path):
    """The sheet was set in the project's fonts: a Body font without '+' printed every scale number as a box
    (exit 0), and a malformed fonts.yaml refused a sheet that prints nothing of the games."""
    from test_hostile_assets import _font_mapping_to_notdef

    root = make_project(tmp_path / "p", changes={
        "fonts/fonts.yaml": "families:\n  Body: {regular: boxed.ttf}\n  Display: {regular: boxed.ttf}\n"})
    regular = (REPO / "pnp" / "fonts" / "SourceSansPro" / "SourceSansPro-Regular.ttf").read_bytes()
    (root / "fonts" / "boxed.ttf").write_bytes(_font_mapping_to_notdef(
        regular.replace(b"SourceSansPro-Regular", b"BoxedSansPro1-Regular"), ord("+")))
    result = run(root, "calibrate", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    reader = read(tmp_path / "out" / "calibrate-a4.pdf")
    assert {"+5", "+15"} <= {t for t, _, _ in texts(reader.pages[0])}
    assert not [name for name in fonts(reader) if "Boxed" in name]
    (root / "fonts" / "fonts.yaml").write_text("families:\n  Body: [\n")
    assert run(root, "calibrate", "--out", str(tmp_path / "out")).exit_code == 0


@pytest.mark.parametrize("offset, message", [("left", "expected X,Y in millimetres"),
                                             ("nan,0", "expected X,Y in millimetres"),
                                             ("0,inf", "expected X,Y in millimetres"),
                                             ("1_0", "expected X,Y in millimetres"),  # float() reads 10
                                             ("\u0663,0", "expected X,Y in millimetres"),  # an Arabic-Indic 3
                                             ("0," + "9" * 400, "more than any printer is out")])
def test_bad_duplex_offset_is_a_usage_error(tmp_path, offset, message):
    root = make_project(tmp_path / "p")
    result = run(root, "build", f"--duplex-offset={offset}")
    assert result.exit_code == 2 and message in result.output, result.output
    assert not (root / "output").exists()  # a nan offset had built a kit named -offsetnan_0mm


def test_a_duplex_offset_with_a_gutterfold_kit_is_a_usage_error(tmp_path):
    # no back page of a gutterfold kit is moved: it built the gutterfold kit again under -offset1_2mm names, exit 0
    result = run(tmp_path, "build", "--imposition", "GutterFold", "--duplex-offset", "1,2")
    assert result.exit_code == 2 and "--duplex-offset: a gutterfold kit is printed single-sided" in result.output


@pytest.mark.parametrize("command", [["build"], ["export", "--format", "png"]])
def test_bleed_nan_is_a_usage_error(tmp_path, command):
    # nan passes a plain range check (it compares false with both bounds) and reached the imposition
    result = run(tmp_path, *command, "--bleed", "nan")
    assert result.exit_code == 2 and "--bleed" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("option, value", [("--bleed", "1_0"), ("--bleed", "\u0663"), ("--jobs", "\u0663"),
                                           ("--seed", "1_0"), ("--sample", "\uff13")])
def test_a_number_option_takes_plain_ascii_decimals_only(tmp_path, option, value):
    # Python's float() and int() (and click's types after them) read 1_0 as 10 and other scripts' digits
    result = run(tmp_path, "build", option, value)
    assert result.exit_code == 2 and f"Invalid value for '{option}'" in result.output and "digits 0-9" in result.output


@pytest.mark.parametrize("option, value", [("--bleed", "9" * 400), ("--jobs", "9" * 400), ("--jobs", "-0"),
                                           ("--bleed", "-1")])
def test_a_number_out_of_range_is_said_as_typed(tmp_path, option, value):
    # click said the number it read: --bleed of 400 nines as 'inf is not in the range', --jobs -0 as 0, and quoted
    # a 400-digit --jobs whole
    result = run(tmp_path, "build", option, value)
    assert result.exit_code == 2 and f"{value[:20]}" in result.output and "out of range" in result.output
    assert "inf" not in result.output and len(result.output) < 500, result.output


@pytest.mark.parametrize("args", [["build", "--paper"], ["build", "--duplex-offset"], ["export", "--format"],
                                  ["export", "--format", "png", "--dpi"], ["convert", "x.yaml", "--to"]])
def test_an_option_value_of_any_length_is_quoted_in_a_bounded_line(tmp_path, args):
    # click quotes the value it refuses whole: `--paper` of 50,000 letters was said in a line of 50 KB
    result = run(tmp_path, *args, "x" * 50_000)
    assert result.exit_code == 2 and "Invalid value for" in result.output and len(result.output) < 3_000, \
        len(result.output)


def test_each_tile_names_its_board_in_the_footer(tmp_path):
    base = (DATA / "base/cards/mini/game.yaml").read_text()
    boards = base.replace("  - id: board\n    name: Board\n    kind: board\n    layout: board\n",
                          "  - id: board\n    name: Boards\n    kind: board\n    items: cards\n    count: 2\n"
                          "    filter: item.kind == 'plant'\n    layout: board\n"
                          "    item_name: \"{{ item.name }}'s meadow\"\n")
    assert boards != base
    folder = build(make_project(tmp_path / "p", {"cards/mini/game.yaml": boards}))
    footers = [" ".join(t for t, *_ in texts(page) if "tile" in t) for page in read(folder / "mini-boards-a4.pdf").pages]
    plants = [c["name"] for c in yaml.safe_load((DATA / "base/cards/mini/cards.yaml").read_text()) if c["kind"] == "plant"]
    assert plants and len(footers) == 4 * len(plants)  # each 400 x 300 mm board on 2 x 2 tiles
    for n, name in enumerate(plants):
        assert all(f"{name}'s meadow" in f for f in footers[4 * n:4 * n + 4]), footers


def test_a_board_that_fits_only_turned_is_one_page_with_crop_marks(tmp_path):
    folder = build(make_project(tmp_path / "p", {"layouts/mini/board.yaml": "size: [250mm, 180mm]\nelements:\n"
                                                 "  - {type: rect, x: 0, y: 0, w: 250, h: 180, bleed: true, fill: '#dddddd'}\n"}))
    reader = read(folder / "mini-boards-a4.pdf")
    assert len(reader.pages) == 1
    page = reader.pages[0]
    assert float(page.mediabox[2]) > float(page.mediabox[3])  # landscape
    footer = " ".join(t for t, *_ in texts(page))
    assert "whole board on this page" in footer and "tile" not in footer
    xs, ys = cut_lines(page_geometry(page)[0])
    assert len(xs) == 2 and abs(xs[1] - xs[0] - 250) < 0.1 and len(ys) == 2 and abs(ys[1] - ys[0] - 180) < 0.1


def test_a_space_pictured_small_in_a_diagram_still_holds_its_token(tmp_path):
    """`holds` is checked where the board is printed at its size, not on its small picture in the rulebook."""
    files = {
        "layouts/mini/token.yaml": "size: [10, 10]\nelements:\n  - {type: rect, fill: '#884422'}\n",
        "layouts/mini/board.yaml": "size: [400mm, 300mm]\nelements:\n  - {type: rect, x: 0, y: 0, w: 400, h: 300, "
                                   "fill: '#ddeeff'}\n  - {type: rect, x: 20, y: 20, w: 12, h: 12, holds: token, "
                                   "stroke: '#000000'}\n",
        "layouts/mini/diagram.yaml": "size: [100, 75]\nelements:\n  - {type: use, layout: board, w: 100}\n",
    }
    root = make_project(tmp_path / "p", files)
    rulebook = root / "layouts/mini/rulebook.md.j2"
    rulebook.write_text(rulebook.read_text() + "\n![The board](layout:diagram)\n")
    assert run(root, "validate").exit_code == 0
    small = files["layouts/mini/board.yaml"].replace("w: 12, h: 12", "w: 8, h: 8")
    (root / "layouts/mini/board.yaml").write_text(small)
    result = run(root, "validate")
    assert result.exit_code == 1 and "does not fit this 8.0 x 8.0 mm space" in result.output


def test_the_rulebook_can_picture_a_cards_back(tmp_path):
    root = make_project(tmp_path / "p")

    def lions():
        pages = read(build(root) / "mini-rulebook-a4.pdf").pages
        return sum(1 for page in pages for event in drawn(page) if event[0] == "text" and event[1] == "lion")

    before = lions()  # the rulebook pictures the lion's front, which prints its id
    rulebook = root / "layouts/mini/rulebook.md.j2"
    rulebook.write_text(rulebook.read_text() + "\n![Its back](component:deck/lion:back)\n")
    assert lions() == before + 1  # its back prints the id too
    # without an item, the deck's back: `:deck:` in what a picture points at is no icon (it was an unknown one)
    rulebook.write_text(rulebook.read_text() + "\n![The back](component:deck:back) [a link](http://h:80:star:)\n")
    assert lions() == before + 2
    rulebook.write_text(rulebook.read_text() + "\n![No such](component:deck/lion:back:back)\n")
    result = run(root, "validate")
    assert result.exit_code == 1 and "component 'deck' has no back 'lion:back'" in result.output


def test_icons_once_worked_out_are_drawn_from_the_disk_cache_alike(tmp_path):
    """A second build finds every icon's drawing in the cache (it does not even load svglib) and writes the
    same bytes. (A damaged entry is worked out again: the icons' cache is a DiskCache, and test_writes damages
    one in every way; a third build here did so again, a second of the suite's time.)"""
    root = make_project(tmp_path / "proj")
    env = {**os.environ, "PNP_CACHE_DIR": str(tmp_path / "cache")}
    script = ("import sys; from pnp.cli import main; sys.argv = ['pnp', 'build', '--force']\n"
              "try:\n    main()\nfinally:\n    print('svglib loaded:', 'svglib' in sys.modules)")

    def build_and_read():
        done = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout, {p.name: p.read_bytes() for p in (root / "output" / "mini").glob("*.pdf")}

    first_output, first = build_and_read()
    assert "svglib loaded: True" in first_output
    entries = sorted((tmp_path / "cache").glob("icons-*/*.marshal"))
    assert entries
    second_output, second = build_and_read()
    assert "svglib loaded: False" in second_output and second == first


def test_an_icon_edited_while_pnp_runs_is_drawn_as_it_is_now(tmp_path, monkeypatch):
    """pnp serve draws in one long process: an icon file changed between two PDFs shows its new drawing."""
    import io

    from reportlab.lib import colors
    from reportlab.pdfgen.canvas import Canvas

    from pnp.draw.icons import draw_icon

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    icon = tmp_path / "shape.svg"

    def drawn_with(path_data):
        icon.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="{path_data}"/></svg>')
        out = io.BytesIO()
        canvas = Canvas(out, pageCompression=0, invariant=1)
        draw_icon(canvas, icon, 0, 0, 10, 10, colors.black)
        canvas.showPage()
        canvas.save()
        return out.getvalue()

    first = drawn_with("M0 0 L10 10 L0 10 Z")
    assert drawn_with("M5 0 L10 5 L0 10 Z") != first
    assert drawn_with("M0 0 L10 10 L0 10 Z") == first


def test_tile_seams_keep_clear_of_a_boards_title(tmp_path):
    """The title's box spans the board's middle, where the seam between two tiles would fall, but its words
    take a third of it: the seam goes beside the words, read back from each tile page (the dashed trim line
    against where the title is drawn)."""
    board = ("size: [400mm, 300mm]\nelements:\n"
             "  - {type: rect, x: 0, y: 0, w: 400, h: 300, fill: '#ddeeff'}\n"
             "  - {type: text, x: 60, y: 20, w: 280, h: 16, text: 'Meadow', size: 28, align: center}\n")
    folder = build(make_project(tmp_path / "p", {"layouts/mini/board.yaml": board}))
    pages = read(folder / "mini-boards-a4.pdf").pages
    assert len(pages) == 4  # 2 x 2 tiles
    seams_seen = 0
    for page in pages:
        ox = next(x for name, x, y, _ in placed_forms(page) if "board" in name)
        centre = ox + 200 * MM  # the title is centred in its box
        titles = [x for kind, text, x, *_ in drawn(page) if kind == "text" and text == "Meadow"]
        assert len(titles) == 1
        left, right = titles[0], 2 * centre - titles[0]
        assert 30 * MM < right - left < 90 * MM  # the word's own width, not its 280 mm box
        segments, _ = page_geometry(page)
        seams = [a[0] for a, b in segments if abs(a[0] - b[0]) < 1e-6 and abs(a[1] - b[1]) > 100 * MM]
        seams_seen += len(seams)
        assert all(not left - 1 * MM < x < right + 1 * MM for x in seams), (left, right, seams)
    assert seams_seen == 2  # the two right-hand tiles are trimmed along the seam between the columns


def test_cards_larger_than_the_paper_are_tiled_front_then_back(tmp_path):
    """A deck of cards too large for the paper is tiled like a board: each back was left out, exit 0."""
    root = make_project(tmp_path / "proj", {
        "layouts/mini/card.yaml": "size: [200, 280]\nelements: [{type: rect, fill: '#ff0000'}]\n",
        "layouts/mini/back.yaml": "size: [200, 280]\nelements: [{type: rect, fill: '#0000ff'}]\n"})
    folder = build(root)
    reader = read(folder / "mini-cards-a4.pdf")
    footers = [next(t for t, _, _ in texts(page) if t.startswith("Mini Game · Cards")) for page in reader.pages]
    backs = [f for f in footers if "· back ·" in f]
    assert len(footers) == 16 and len(backs) == 8, footers  # 4 cards of 2 tiles each, each side
    assert all("· back ·" in footers[i] for i in (2, 3)) and "· back ·" not in footers[0], footers


@pytest.mark.parametrize("words, shrunk, cut", [(3, False, False), (39, True, False), (2000, True, True)])
def test_a_sheet_footer_too_long_for_the_page_shrinks_to_6_pt_then_is_cut(words, shrunk, cut):
    """A long game or component name shrank the footer without a floor (1,000 words: under 1 pt); it stops at
    6 pt, the least any printed text is, and the rest of the line is cut, ending in an ellipsis."""
    import io

    from pypdf import PdfReader
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen.canvas import Canvas

    from pnp.draw import sheet

    class Helvetica:
        def name(self, family, bold=False, italic=False):
            return "Helvetica"

    out, paper = io.BytesIO(), (210 * MM, 297 * MM)
    canvas = Canvas(out, pagesize=paper, invariant=1)
    sheet.footer(canvas, Helvetica(), paper, "Dino " * words)
    canvas.save()
    shown = []
    PdfReader(io.BytesIO(out.getvalue())).pages[0].extract_text(
        visitor_text=lambda text, cm, tm, font, size: shown.append((text.strip(), size)) if text.strip() else None)
    [(text, size)] = shown
    assert (size == 6.5) != shrunk and size >= 6.0
    assert stringWidth(text, "Helvetica", size) <= paper[0] - 2 * sheet.EDGE_SAFE
    assert text.endswith("…") == cut


def test_cards_of_several_sizes_are_each_printed_at_their_own_size_not_cut_to_the_firsts_slot(tmp_path):
    """One grid of slots cuts one size: a deck whose layout picks a tarot card for some items imposed them
    into the first card's poker slots, clipped (their foot lost, exit 0). Each is printed at its own size."""
    base = (DATA / "base/cards/mini/game.yaml").read_text()
    mixed = base.replace("    layout: card\n    back: back\n", "    layout: \"{{ 'card' if item.power > 2 else 'tall' }}\"\n")
    assert mixed != base
    tall = ("size: tarot\nelements:\n  - {type: rect, x: 0, y: 0, w: 70, h: 120, bleed: true, fill: '#224422'}\n"
            "  - {type: text, x: 5, y: 105, w: 60, h: 10, text: '{{ card.id }} foot', size: 12}\n")
    folder = build(make_project(tmp_path / "p", {"cards/mini/game.yaml": mixed, "layouts/mini/tall.yaml": tall}))
    reader = read(folder / "mini-cards-a4.pdf")
    faces = [[text for *_, found in placed_forms(page) for text in found] for page in reader.pages]
    assert len(faces) == 4  # one card a page (not 4 to a sheet), each whole: the tarot cards' feet are there
    assert [texts for texts in faces if any(t.endswith("foot") for t in texts)] == [["fern foot"], ["moss foot"]]


def test_a_kind_the_game_no_longer_has_leaves_no_pdf_beside_the_new_kit(project):
    # the board removed: its PDFs of the last build stayed in the folder, listed by no manifest, printed with the kit
    assert run(project, "build", "mini").exit_code == 0
    assert run(project, "build", "mini", "--paper", "letter").exit_code == 0
    folder = project / "output/mini"
    (folder / "notes.pdf").write_bytes(b"the user's own\n")
    game = project / "cards/mini/game.yaml"
    text = game.read_text(encoding="utf-8")
    game.write_text(text[:text.index("  - id: board")], encoding="utf-8")
    result = run(project, "build", "mini")
    assert result.exit_code == 0, result.output
    assert not (folder / "mini-boards-a4.pdf").exists() and not (folder / "mini-boards-fullsize.pdf").exists()
    listed = {f["path"] for f in json.loads((folder / "manifest.json").read_text())["files"]}
    assert {p.name for p in folder.glob("mini-*a4.pdf")} <= listed
    # the letter kit's files (another build's) and the user's are kept
    assert (folder / "mini-boards-letter.pdf").is_file() and (folder / "mini-boards-fullsize-letter.pdf").is_file()
    assert (folder / "notes.pdf").read_bytes() == b"the user's own\n"


def test_a_received_kits_manifest_has_none_of_the_files_it_lists_read_or_removed(tmp_path, monkeypatch):
    """A received folder's manifest listing every kind's name of a kit, each a 2 GB sparse file: a build hashed
    them all (10 GB, 53 s) to tell whether they were the old kit's to remove. Of a manifest this user's pnp did
    not write (not sealed) none is read or removed; of a sealed one, a file of another size than listed is not
    read."""
    from pnp.kit import render

    read: list = []
    monkeypatch.setattr(render, "sha256", lambda path, **kw: read.append(path) or "0" * 64)
    (tmp_path / "manifest.json").write_text("{}", encoding="utf-8")
    (tmp_path / "g-boards-a4.pdf").write_bytes(b"x")
    own = {"g-boards-a4.pdf"}
    assert render._outgrown(tmp_path / "manifest.json", {"g-boards-a4.pdf": ("0" * 64, 1)}, set(), own) == []
    monkeypatch.setattr(render, "sealed", lambda path: True)
    assert render._outgrown(tmp_path / "manifest.json", {"g-boards-a4.pdf": ("0" * 64, 2**31)}, set(), own) == []
    assert not read
    assert render._outgrown(tmp_path / "manifest.json", {"g-boards-a4.pdf": ("0" * 64, 1)}, set(), own) == [
        tmp_path / "g-boards-a4.pdf"]


def test_a_pdf_of_the_last_kit_edited_since_is_kept_when_its_kind_goes(project):
    assert run(project, "build", "mini").exit_code == 0
    boards = project / "output/mini/mini-boards-a4.pdf"
    boards.write_bytes(boards.read_bytes() + b"% marked up by hand\n")
    game = project / "cards/mini/game.yaml"
    text = game.read_text(encoding="utf-8")
    game.write_text(text[:text.index("  - id: board")], encoding="utf-8")
    assert run(project, "build", "mini").exit_code == 0
    assert boards.read_bytes().endswith(b"% marked up by hand\n")


def test_a_game_of_no_component_is_warned_of_and_nothing_is_built_or_exported(tmp_path):
    """A game of tables alone (its design report reads them) validated, then built a kit of 0 pages, which
    viewers refuse, and exported a table of nothing, exit 0. Each command now says so at `components:` and
    writes nothing."""
    root = make_project(tmp_path / "proj")
    game = root / "cards/mini/game.yaml"
    text = game.read_text(encoding="utf-8")
    line = text[: text.index("components:")].count("\n") + 1
    game.write_text(text[: text.index("components:")] + "components: []\n", encoding="utf-8")
    for command in (["validate"], ["build"], ["export", "--format", "tts"], ["export", "--format", "png"]):
        result = run(root, *command)
        assert result.exit_code == 0, result.output
        assert f"cards/mini/game.yaml:{line}:1: warning: the game has no components" in result.output, result.output
    assert not (root / "output").exists()
    assert run(root, "report").exit_code == 0


def test_a_token_the_check_passes_by_a_hair_is_packed_and_built(tmp_path):
    """A token 0.00000001 mm wider than the room on the paper passed validate (the check allows rounding's
    1e-6 pt) and stopped the build as a bug in pnp: the packer refused any excess. Both ask units.fits."""
    base = (DATA / "base/cards/mini/game.yaml").read_text()
    game = base.replace("components:\n", "components:\n  - {id: chits, name: Chits, kind: tokens, layout: chit}\n")
    root = make_project(tmp_path / "p", {"cards/mini/game.yaml": game,
                                         "layouts/mini/chit.yaml": "size: [192.00000001mm, 50mm]\nelements: []\n"})
    folder = build(root)
    assert read(folder / "mini-tokens-a4.pdf").pages
