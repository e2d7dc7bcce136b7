"""Tuck boxes, measured from the PDF a build writes: the panels are the cards' size plus the clearance, the
sides as wide as the deck is thick, every flap as wide as the panel it closes, fold lines dashed and the cut
line solid; and the mistakes a designer can make with one are reported at their game.yaml line."""

import json
import math

import pytest
import yaml

from conftest import REPO, make_project, run
from pdfread import MM, _mul, drawn, read
from pnp.check import load
from pnp.project import find
from pnp.report import Report

GAME = "cards/mini/game.yaml"
ANCHOR = "    layout: board\n"
TOL = 0.5 * MM


def project_with(tmp_path, *boxes, case=None):
    """The mini game with tuck box components (each a line of YAML flow mapping) after its board."""
    lines = "".join(f"  - {box}\n" for box in boxes)
    case = dict(case or {})
    case.setdefault("replace", {}).setdefault(GAME, []).append([ANCHOR, ANCHOR + lines])
    return make_project(tmp_path / "proj", case=case)


def build(root):
    out = root / "output"
    result = run(root, "build", "mini", "--out", str(out))
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "mini" / "manifest.json").read_text())
    return out / "mini", manifest


def box_pages(folder, manifest, component_id):
    entry = next(c for c in manifest["components"] if c["id"] == component_id)
    reader = read(folder / entry["file"])
    first, last = entry["pages"]
    return entry, [reader.pages[n - 1] for n in range(first, last + 1)]


def strokes(page):
    """(start, end, dashed) of each straight segment of the page's stroked paths (top level), in page
    coordinates, the graphics state (q/Q, cm, d) followed."""
    ctm, dash, stack, path, out = [1, 0, 0, 1, 0, 0], False, [], [], []
    for operands, op in page.get_contents().operations:
        op = op.decode() if isinstance(op, bytes) else op
        if op == "q":
            stack.append((ctm, dash))
        elif op == "Q":
            ctm, dash = stack.pop()
        elif op == "cm":
            ctm = _mul([float(v) for v in operands], ctm)
        elif op == "d":
            dash = bool(list(operands[0]))
        elif op in ("m", "l"):
            x, y = float(operands[0]), float(operands[1])
            point = (ctm[0] * x + ctm[2] * y + ctm[4], ctm[1] * x + ctm[3] * y + ctm[5])
            path = [point] if op == "m" else path + [point]
        elif op in ("S", "s"):
            out += [(a, b, dash) for a, b in zip(path, path[1:])]
            path = []
        elif op in ("f", "F", "f*", "B", "B*", "b", "b*", "n", "re"):
            path = [] if op != "re" else path
    return out


def folds(page):
    """The dashed fold lines: vertical ones as (x, y1, y2), horizontal ones as (y, x1, x2), rounded to 0.01 pt."""
    vertical, horizontal = [], []
    for (ax, ay), (bx, by), dashed in strokes(page):
        if not dashed:
            continue
        if abs(ax - bx) < 0.01:
            vertical.append((ax, min(ay, by), max(ay, by)))
        elif abs(ay - by) < 0.01:
            horizontal.append((ay, min(ax, bx), max(ax, bx)))
    return sorted(vertical), sorted(horizontal)


def cut_line(page):
    """The solid segments of the cut outline (the longest run of solid strokes)."""
    return [(a, b) for a, b, dashed in strokes(page) if not dashed]


def near(a, b):
    return abs(a - b) <= TOL


def measure(page):
    """The net's panels read back from its fold lines and cut line."""
    vertical, horizontal = folds(page)
    xs = sorted({round(x, 2) for x, _, _ in vertical})
    assert len(xs) == 4, xs  # front|side, side|back, back|side, side|glue tab
    xa, xb, xc, xd = xs
    cut = cut_line(page)
    left = min(min(a[0], b[0]) for a, b in cut)
    y0 = min(y1 for _, y1, _ in vertical)
    y1 = max(y2 for _, _, y2 in vertical)
    return dict(front=xa - left, side=xb - xa, back=xc - xb, side2=xd - xc, height=y1 - y0, x=(left, xa, xb, xc, xd),
                y=(y0, y1), vertical=vertical, horizontal=horizontal, cut=cut)


POKER = (63 * MM, 88 * MM)


def test_a_poker_deck_of_52_gives_panels_of_card_size_plus_clearance(tmp_path):
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck, holds: 52}")
    folder, manifest = build(root)
    entry, pages = box_pages(folder, manifest, "box")
    assert entry["kind"] == "tuckbox" and entry["file"] == "mini-tuckboxes-a4.pdf" and len(pages) == 1
    m = measure(pages[0])
    width, height, depth = POKER[0] + 1 * MM, POKER[1] + 1 * MM, 52 * 0.32 * MM + 1 * MM
    assert near(m["front"], width) and near(m["back"], width), (m["front"] / MM, m["back"] / MM)
    assert near(m["side"], depth) and near(m["side2"], depth), (m["side"] / MM, depth / MM)
    assert near(m["height"], height)
    # each side panel and the glue tab's fold run the front's whole height
    for x, y1, y2 in m["vertical"]:
        assert near(y1, m["y"][0]) and near(y2, m["y"][1])
    assert entry["size_mm"] == pytest.approx([64, 89, 17.64], abs=0.01)


def test_every_flap_meets_the_panel_it_closes(tmp_path):
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck, holds: 30, thickness: 0.5, "
                                  "clearance: 2}")
    folder, manifest = build(root)
    m = measure(box_pages(folder, manifest, "box")[1][0])
    left, xa, xb, xc, xd = m["x"]
    y0, y1 = m["y"]
    width, depth = 63 * MM + 2 * MM, 30 * 0.5 * MM + 2 * MM
    assert near(m["front"], width) and near(m["side"], depth)
    lines = {(round(y), round(a), round(b)) for y, a, b in m["horizontal"]}

    def has(y, a, b):
        return any(abs(y - ly) <= TOL and abs(a - la) <= TOL and abs(b - lb) <= TOL for ly, la, lb in lines)

    assert has(y1, xb, xc) and has(y1 + depth, xb, xc), "the lid: as wide as the back, as deep as the sides"
    assert has(y0, left, xa) and has(y0 - depth, left, xa), "the bottom: as wide as the front, as deep as the sides"
    for a, b in ((xa, xb), (xc, xd)):  # each side's dust flaps, top and bottom
        assert has(y1, a, b) and has(y0, a, b)
    # the tuck flaps beyond the lid and the bottom are cut: their outline starts at the fold's ends
    top = y1 + depth
    ends = [p for seg in m["cut"] for p in seg if abs(p[1] - top) < 0.01]
    assert any(abs(x - xb) < 0.01 for x, _ in ends) and any(abs(x - xc) < 0.01 for x, _ in ends)
    beyond = [p for seg in m["cut"] for p in seg if p[1] > top + 1]
    assert beyond and min(x for x, _ in beyond) >= xb - 0.01 and max(x for x, _ in beyond) <= xc + 0.01
    # the glue tab is no taller than the front it is glued inside
    glue = [p for seg in m["cut"] for p in seg if p[0] > xd + 0.01]
    assert glue and min(y for _, y in glue) >= y0 - 0.01 and max(y for _, y in glue) <= y1 + 0.01


def test_fold_lines_are_dashed_and_the_cut_line_solid(tmp_path):
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck}")
    folder, manifest = build(root)
    page = box_pages(folder, manifest, "box")[1][0]
    vertical, horizontal = folds(page)
    assert len(vertical) == 4 and len(horizontal) == 8, (vertical, horizontal)
    cut = cut_line(page)
    assert len(cut) > 20
    # the cut line is one closed loop round the whole net, every fold line's ends on it or on another fold
    assert all(math.dist(a[1], b[0]) < 0.01 for a, b in zip(cut, cut[1:])) and math.dist(cut[-1][1], cut[0][0]) < 0.01
    corners = [p for seg in cut for p in seg]
    ends = [p for x, y1, y2 in vertical for p in ((x, y1), (x, y2))] + \
           [p for y, x1, x2 in horizontal for p in ((x1, y), (x2, y))]
    assert all(any(math.dist(e, c) < 0.01 for c in corners) for e in ends)


def test_the_front_shows_the_decks_back_and_the_box_says_what_it_holds(tmp_path):
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck, holds: 40, label: The Beasts}",
                        "{id: one, kind: tuckbox, deck: deck, holds: 1}")
    folder, manifest = build(root)
    page = box_pages(folder, manifest, "box")[1][0]
    m = measure(page)
    strings = [e for e in drawn(page) if e[0] == "text"]
    words = [e[1] for e in strings]
    assert "Mini Game" in words and "The Beasts" in words and "40 cards" in words
    # a box of one card says so in the singular (it printed "1 cards")
    assert "1 card" in [e[1] for e in drawn(box_pages(folder, manifest, "one")[1][0]) if e[0] == "text"]
    spines = [e for e in strings if e[1].startswith("Mini Game") and e[1].endswith("The Beasts")]
    assert len(spines) == 2 and all(abs(e[4][0]) < 1e-6 and e[4][1] > 0 for e in spines)  # reading up each side
    for e in spines:
        assert m["x"][1] < e[2] < m["x"][2] or m["x"][3] < e[2] < m["x"][4]
    lion = next(e for e in strings if e[1] == "lion")  # the deck's back prints its card's id: the first card's
    assert m["x"][0] < lion[2] < m["x"][1] and m["y"][0] < lion[3] < m["y"][1]  # ... on the front panel
    assert min(e[5] * math.hypot(e[4][0], e[4][1]) for e in strings) >= 6


def test_a_deck_too_thick_for_portrait_is_printed_turned(tmp_path):
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck, holds: 100}")
    folder, manifest = build(root)
    page = box_pages(folder, manifest, "box")[1][0]
    pw, ph = float(page.mediabox[2]), float(page.mediabox[3])
    assert pw > ph
    m = measure(page)
    assert near(m["side"], 100 * 0.32 * MM + 1 * MM)
    for (x, y), _ in m["cut"]:
        assert 5 * MM <= x <= pw - 5 * MM and 5 * MM <= y <= ph - 5 * MM


def _errors(root):
    result = run(root, "validate", "mini")
    assert result.exit_code == 1, result.output
    return [ln for ln in result.stderr.splitlines() if ": error: " in ln]


def _line(root, fragment):
    text = (root / GAME).read_text()
    return text[: text.index(fragment)].count("\n") + 1


def test_a_box_for_a_deck_that_is_not_there_says_where(tmp_path):
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: dek}")
    lines = _errors(root)
    line = _line(root, "deck: dek")
    assert any(ln.startswith(f"{GAME}:{line}:") and "no deck 'dek' to box (did you mean 'deck'?)" in ln
               for ln in lines), lines


def test_a_box_for_tokens_is_refused(tmp_path):
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: board}")
    lines = _errors(root)
    assert any(ln.startswith(f"{GAME}:{_line(root, 'deck: board')}:") and "'board' is a board component" in ln
               for ln in lines), lines


def test_a_deck_whose_faces_differ_in_size_is_refused(tmp_path):
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck}",
                        case={"replace": {"layouts/mini/back.yaml": [["size: poker", "size: bridge"]]}})
    lines = _errors(root)
    assert any(ln.startswith(f"{GAME}:{_line(root, 'kind: tuckbox, deck: deck')}:") and "not all one size" in ln
               for ln in lines), lines


def test_a_box_too_large_for_the_paper_says_how_to_box_the_cards_the_deck_prints(tmp_path):
    """The advice counts the deck's 4 cards, not `holds: 200`: it said to put them in 2 boxes of 100."""
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck, holds: 200}")
    lines = _errors(root)
    hit = [ln for ln in lines if ln.startswith(f"{GAME}:{_line(root, 'holds: 200')}:")]
    assert hit and "more than the paper holds" in hit[0] and \
        hit[0].endswith("the deck prints 4 cards, which one box holds: give `holds: 4`"), lines


def test_a_label_too_long_for_the_boxs_back_is_refused_not_left_off(tmp_path):
    label = "W" * 200  # fits no poker box's back even at the smallest size: it used to vanish, exit 0
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck, label: " + label + "}")
    lines = _errors(root)
    hit = [ln for ln in lines if ln.startswith(f"{GAME}:{_line(root, 'label: W')}:")]
    assert hit and "mm long at 6.5 pt, the smallest the tuck box prints it" in hit[0], lines


def test_a_layout_of_its_own_on_the_front(tmp_path):
    front = ("size: poker\nelements:\n  - {type: rect, x: 0, y: 0, w: 63, h: 88, bleed: true, fill: '#884422'}\n"
             "  - {type: text, x: 5, y: 40, w: 53, h: 10, text: Our Deck, size: 14}\n")
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck, layout: box-front}",
                        case={"files": {"layouts/mini/box-front.yaml": front}})
    folder, manifest = build(root)
    page = box_pages(folder, manifest, "box")[1][0]
    m = measure(page)
    ours = [e for e in drawn(page) if e[0] == "text" and e[1] == "Our Deck"]
    assert len(ours) == 1 and m["x"][0] < ours[0][2] < m["x"][1]
    assert not any(e[0] == "text" and e[1] == "lion" for e in drawn(page))  # not the deck's back


def test_copies_of_a_box_show_its_front_painted_once(tmp_path):
    """Every copy of a box shows its front, painted once as a form (600 boxes of a front of 5,000 shapes,
    each painted and digested afresh, built in 21 s)."""
    front = "size: poker\nelements:\n  - {type: text, x: 5, y: 40, w: 53, h: 10, text: Our Deck, size: 14}\n"
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck, layout: box-front, "
                                  "copies: 3}", case={"files": {"layouts/mini/box-front.yaml": front}})
    folder, manifest = build(root)
    pages = box_pages(folder, manifest, "box")[1]
    assert len(pages) == 3
    forms = set()
    for page in pages:
        assert [e[1] for e in drawn(page) if e[0] == "text" and e[1] == "Our Deck"] == ["Our Deck"]
        forms.update(e[1] for e in drawn(page, enter_forms=False) if e[0] == "form")
    assert len(forms) == 1  # the one front, placed on every copy


# the shipped games with a tuck box, from their game.yaml as written: loading each game here (3.4 s) was paid
# by every test worker while it collected the suite, before any test ran
SHIPPED = [g for g in find(REPO).games()
           if any(c.get("kind") == "tuckbox" for c in yaml.load(  # (libyaml's reader where PyYAML has it)
               (REPO / "cards" / g / "game.yaml").read_text(encoding="utf-8"),
               Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))["components"])]


@pytest.fixture
def shipped(shipped_kit):
    return shipped_kit


@pytest.mark.parametrize("game", SHIPPED)
def test_every_shipped_box_fits_its_deck(shipped, game):
    """Each shipped tuck box, read back from its page: front and back its deck's card size plus 1 mm, the
    sides a card's thickness (0.32 mm unless the box says) for each card it holds plus 1 mm, all on one page of
    the paper, and both sides print the deck's label turned up the spine (two 8-card boxes had none). Boxes
    that hold different decks differ on the front too (four of Dino Battles' showed one back)."""
    data = load(find(REPO), game, Report())
    manifest = json.loads((shipped / game / "manifest.json").read_text())
    by_id = {c["id"]: c for c in manifest["components"]}
    boxes = [c for c in data.components if c.kind == "tuckbox"]
    assert SHIPPED and boxes
    fronts = {}
    for box in boxes:
        deck = by_id[box.spec["deck"]]
        entry, pages = box_pages(shipped / game, manifest, box.id)
        assert len(pages) == box.count
        holds = box.spec.get("holds", deck["count"])
        label = box.spec.get("label") or deck["name"]
        for page in pages:
            m = measure(page)
            w, h = (v * MM + 1 * MM for v in deck["size_mm"])
            assert near(m["front"], w) and near(m["back"], w) and near(m["height"], h), (box.id, m["front"] / MM)
            side = holds * box.spec.get("thickness", 0.32) * MM + 1 * MM
            assert near(m["side"], side) and near(m["side2"], m["side"]), box.id
            spines = [e for e in drawn(page) if e[0] == "text" and abs(e[4][0]) < 1e-6 and e[1].endswith(label)]
            assert len(spines) == 2, (box.id, spines)
            fronts[box.spec["deck"]] = tuple(sorted(e[1] for e in drawn(page) if e[0] == "text"
                                                    and m["x"][0] < e[2] < m["x"][1] and m["y"][0] < e[3] < m["y"][1]))
    assert all(fronts.values()) and len(set(fronts.values())) == len(fronts), fronts


def test_a_label_too_long_or_in_a_script_the_fonts_lack_is_refused_at_its_line(tmp_path):
    """The back panel left a label longer than its width off the box, and printed a character its font lacks
    as a blank box, with exit 0: each said at the line that writes it."""
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck, label: " + "Beasts " * 12 + "}",
                        "{id: box2, name: Card box, kind: tuckbox, deck: deck, label: 獣の箱}")
    errors = _errors(root)
    line = _line(root, "label: Beasts")
    assert any(e.startswith(f"{GAME}:{line}:") and "mm long at 6.5 pt, the smallest the tuck box prints it" in e for e in errors), errors
    assert any("U+7363" in e and "'Body'" in e for e in errors), errors
    game = "cards/mini/game.yaml:"
    assert all(e.startswith(game) for e in errors if "tuck box" in e), errors


@pytest.mark.parametrize("size, said", [
    ("[3, 60]", "its back is 4 mm wide, 8 mm of it kept clear at its edges"),  # was "its back is -4 mm wide"
    ("[60, 12]", "a tuck box's back is as tall as its cards and the clearance, here 13 mm;"),
], ids=["narrow-cards", "short-cards"])
def test_a_box_for_cards_too_small_for_its_words_says_so_in_true_measures(tmp_path, size, said):
    """The back's room for its words less its padding was said of narrow cards' boxes as "-4 mm wide"; the
    deck's name and count on a box for cards 12 mm tall were printed below its back, off the box, exit 0."""
    replaced = [["size: poker", f"size: {size}"]]
    root = project_with(tmp_path, "{id: box, name: Card box, kind: tuckbox, deck: deck}",
                        case={"replace": {"layouts/mini/card.yaml": replaced, "layouts/mini/back.yaml": replaced}})
    errors = [e for e in _errors(root) if "tuck box" in e]
    # (at the title's line, the label's, or the box's)
    assert errors and all(e.startswith(f"{GAME}:") for e in errors), errors
    assert any(said in e for e in errors) and not any(" -" in e for e in errors), errors
