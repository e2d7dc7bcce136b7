"""What a designer gets from `pnp build`: geometry read back from the PDFs, fonts, manifest, determinism."""

import json

import pytest

from pnp.errors import DataError
from pnp.products import KINDS
from conftest import DATA, make_project, run
from pdfread import MM, drawn, fonts, page_geometry, placed_forms, read, texts, tile_targets

PAPERS = {"a4": (210, 297), "letter": (215.9, 279.4)}


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


@pytest.mark.parametrize("paper", PAPERS)
def test_card_trim_size_is_poker_within_a_tenth_of_a_mm(built, paper):
    _, front, _ = card_pages(built[paper], paper)
    _, clips = page_geometry(front)
    cards = [c for c in clips if c[2] < 100 * MM]
    assert len(cards) == 4  # the mini deck: four cards on one sheet
    for x, y, w, h in cards:
        assert abs(w / MM - 63) < 0.1 and abs(h / MM - 88) < 0.1


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
    # the 4-card deck fills a row of 3 and one slot of the next: 4 cut lines 63 mm apart across, and the
    # 3 lines of those two 88 mm rows down; the empty third row gets no marks
    steps_x = [b - a for a, b in zip(vertical, vertical[1:])]
    steps_y = [b - a for a, b in zip(horizontal, horizontal[1:])]
    assert len(vertical) == 4 and all(abs(s - 63) < 0.1 for s in steps_x), vertical
    assert len(horizontal) == 3 and all(abs(s - 88) < 0.1 for s in steps_y), horizontal
    assert abs(vertical[0] - left / MM) < 0.1
    # every mark lies in the margin, outside the block of cards, and on the paper
    for (x1, y1), (x2, y2) in segments:
        if abs(x1 - x2) < 1e-6:
            assert max(y1, y2) <= bottom + 0.01 or min(y1, y2) >= top - 0.01
        for x, y in ((x1, y1), (x2, y2)):
            assert 0 < x < pw and 0 < y < ph


def test_backs_are_mirrored_for_long_edge_duplex(built):
    reader, front, back = card_pages(built["a4"], "a4")
    pw = 210 * MM
    ids = {"lion", "fern", "wolf", "moss"}
    fronts = {t: (x, y) for t, x, y in texts(front) if t in ids}
    # each back is a form XObject placed with its trim corner at (x, y); the text is drawn inside it
    backs = {t: (x, y) for _, x, y, inner in placed_forms(back) for t in inner if t in ids}
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
    w, h = (float(v) / MM for v in full.pages[0].mediabox[2:])
    assert abs(w - (400 + 24)) < 0.1 and abs(h - (300 + 24)) < 0.1


def test_two_builds_are_byte_identical(tmp_path):
    a = build(make_project(tmp_path / "a"))
    b = build(make_project(tmp_path / "b"))
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


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
    _, clips = page_geometry(read(folder / "mini-cards-a4.pdf").pages[0])
    cards = [c for c in clips if c[2] < 100 * MM]
    for x, y, w, h in cards:  # each card is clipped to its trim plus 3 mm of bleed all round
        assert abs(w / MM - 69) < 0.1 and abs(h / MM - 94) < 0.1
    manifest = json.loads((folder / "manifest.json").read_text())
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
