"""The games we ship validate and build, and what the manifest says matches their data."""

import functools
import hashlib
import json
import math
import re

import pytest

from conftest import REPO, run
from pdfread import MM, drawn, fonts, page_geometry, page_strings, placed_forms, read, targets, texts, tile_targets
from pnp.model.game import load_game
from pnp.project import find
from pnp.report import Report
from pnp.template import evaluate

GAMES = find(REPO).games()


def test_the_vendored_icons_are_as_vendored():
    # tests and benchmarks copy layouts/shared by hard links: a file written through one changes the repository's
    # own (round-star.svg once shipped as a 1 x 1 square, printing EVO's starred beaches as a dot)
    icons = REPO / "layouts/shared/icons"
    listed = dict(reversed(line.split("  ", 1)) for line in (icons / "SHA256SUMS").read_text().splitlines())
    assert set(listed) == {p.name for p in icons.glob("*.svg")}
    changed = [name for name, digest in listed.items() if hashlib.sha256((icons / name).read_bytes()).hexdigest() != digest]
    assert not changed, f"changed since tools/vendor_icons.py wrote them: {changed}"


def test_the_pilot_game_is_shipped():
    assert "diamonds-and-dinosaurs" in GAMES


def test_shipped_game_validates_and_builds(built, game):
    """The shared build of the shipped games (exit 0, asserted where it is made) validated each game as
    `pnp validate` does, with the same checks, before drawing it: a game with an error is not built. Each game
    was built, and the build said nothing about it but its files (validating each game again here took 8 s)."""
    said = (built / "build-output.txt").read_text(encoding="utf-8").splitlines()
    about = [line for line in said if line.startswith((f"{game}:", f"cards/{game}/", f"layouts/{game}/"))]
    assert about and all(line.startswith(f"{game}: ") and " files, " in line for line in about), about
    assert (built / game / f"{game}-a4.pdf").exists()


@pytest.fixture
def built(shipped_kit):
    return shipped_kit


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    """Each shipped game: a parameter of the module's scope, so the tests of one game run one after another and
    share what `kit` read of its files."""
    return request.param


@pytest.fixture(scope="module")
def kit(shipped_kit, game):
    """The game's built file of a name, read once for all the tests of the game: pdfread keeps what it parses
    of a page (its content, its forms) on the reader, and parsing the kits' pages again in each test was most
    of this module's time."""
    return functools.cache(lambda name: read(shipped_kit / game / name))


def test_manifest_counts_equal_the_data(built, kit, game):
    manifest = json.loads((built / game / "manifest.json").read_text())
    data = load_game(find(REPO), game, Report())
    assert manifest["game"] == game and manifest["paper"] == "a4"
    by_id = {c["id"]: c for c in manifest["components"]}
    for component in data.components:
        entry = by_id[component.id]
        assert entry["kind"] == component.kind
        if component.spec.get("items"):
            table = data.tables[component.spec["items"]]
            if component.spec.get("filter"):
                table = [it for it in table if evaluate(component.spec["filter"], data.context(item=it))]
            per_item = component.spec.get("quantity")
            expected = sum(it.get(per_item, 1) if per_item else 1 for it in table) * component.spec.get("copies", 1)
            assert entry["count"] == expected
        if component.spec.get("count") is not None:
            assert entry["count"] == component.spec["count"]
    for f in manifest["files"]:
        assert len(kit(f["path"]).pages) == f["pages"]
        assert all(fonts(kit(f["path"])).values()), f["path"]


def test_diamonds_and_dinosaurs_box(built):
    manifest = json.loads((built / "diamonds-and-dinosaurs" / "manifest.json").read_text())
    counts = {c["id"]: c["count"] for c in manifest["components"]}
    assert counts["deck"] == 52 and counts["tokens"] == 46 and counts["d12"] == 1


def test_dinospan_box(built):
    manifest = json.loads((built / "dinospan" / "manifest.json").read_text())
    counts = {c["id"]: c["count"] for c in manifest["components"]}
    assert (counts["deck-triassic"], counts["deck-jurassic"], counts["deck-cretaceous"]) == (16, 54, 70)
    assert counts["goals"] == 14 and counts["paleo-atlas"] == 5 and counts["player-aid"] == 5


def test_every_goal_tile_prints_the_share_computed_from_the_cards(built):
    manifest = json.loads((built / "dinospan" / "manifest.json").read_text())
    goals = next(c for c in manifest["components"] if c["id"] == "goals")
    reader = read(built / "dinospan" / goals["file"])
    first, last = goals["pages"]
    printed_shares, printed_counts = [], []
    for number in range(first, last + 1, 2):  # fronts; every other page holds the backs
        for text, _, _ in texts(reader.pages[number - 1]):
            if text.endswith("%") and text[:-1].isdigit():
                printed_shares.append(int(text[:-1]))
            if text.endswith("species") and " of " in text:
                printed_counts.append(int(text.split()[0]))
    game = load_game(find(REPO), "dinospan", Report())
    cards = game.tables["dinosaurs"]
    computed = []
    for goal in game.tables["goals"]:
        category = game.context()["ref"]["centres"][goal["centre"]]["category"]
        matches = sum(1 for card in cards if card[category] == goal["value"])
        computed.append((matches, int(matches * 100 / len(cards) + 0.5)))
    assert sorted(printed_counts) == sorted(m for m, _ in computed)
    assert sorted(printed_shares) == sorted(s for _, s in computed)


def test_evo_box(built):
    manifest = json.loads((built / "evo" / "manifest.json").read_text())
    counts = {c["id"]: c["count"] for c in manifest["components"]}
    assert counts["events"] == 26 and counts["genes"] == 62 and counts["portraits"] == 5
    assert counts["map"] == 4 and counts["information-board"] == 1 and counts["bidding-board"] == 1
    assert counts["tokens"] == 62


def test_tiled_boards_meet_at_their_targets(built, kit, game):
    """Every registration target read back from the tile pages marks one board point on exactly two tiles
    (of each printed copy of the board)."""
    manifest = json.loads((built / game / "manifest.json").read_text())
    for component in manifest["components"]:
        if component["kind"] != "board":
            continue
        reader = kit(component["file"])
        words = page_strings(built / game / component["file"])
        first, last = component["pages"]
        by_form, tiles = {}, {}
        for number in range(first, last + 1):
            page = reader.pages[number - 1]
            names = [name for name, *_ in placed_forms(page) if "board" in name]
            if not names:
                continue  # a board small enough for one sheet
            label = re.search(r"tile \d+ of \d+", words[number - 1])
            tiles.setdefault(names[0], []).append(label.group(0) if label else number)
            kept = kept_part(page)
            for point in tile_targets(page):
                key = (names[0], point)
                by_form[key] = by_form.get(key, 0) + 1
            for x, y in targets(page):  # each target whole inside what the tile keeps once trimmed
                assert kept[0] <= x - ARM and x + ARM <= kept[2] and kept[1] <= y - ARM and y + ARM <= kept[3], \
                    (component["id"], number, (x, y), kept)
        for form, labels in tiles.items():  # twice in each printed copy of the board (each tile repeats per copy)
            if not any(isinstance(label, str) for label in labels):
                continue  # a board printed whole on one page, turned: no tiles, no targets
            copies = max(labels.count(label) for label in labels)
            counts = [n for (name, _), n in by_form.items() if name == form]
            assert counts and all(n == 2 * copies for n in counts), (component["id"], form, copies, by_form)


ARM = 2.2 * MM  # a target's cross reaches this far from its centre


def kept_part(page):
    """What a tile keeps once trimmed, read back from its page: its window (the clip the board is drawn
    in) cut back to the dashed trim lines, the lines inside the window that are not a target's cross."""
    segments, clips = page_geometry(page)
    x0, y0, w, h = max(clips, key=lambda c: c[2] * c[3])
    x1, y1 = x0 + w, y0 + h
    for (ax, ay), (bx, by) in segments:
        length = math.hypot(bx - ax, by - ay)
        if abs(length - 2 * ARM) < 0.01:
            continue  # a target's arm
        if abs(ax - bx) < 1e-6 and x0 + 1 < ax < x1 - 1 and abs(length - h) < 0.01:
            x0 = ax  # trimmed along a vertical line: keeps what is right of it
        elif abs(ay - by) < 1e-6 and y0 + 1 < ay < y1 - 1 and abs(length - w) < 0.01:
            y1 = ay  # trimmed along a horizontal line: keeps what is below it
    return x0, y0, x1, y1


def test_the_contents_give_each_headings_page(kit, game):
    """Every row of the rulebook's contents (page 2) names the page its heading is printed on: the layout
    passes that find those pages settle on the real ones."""
    pages = kit(f"{game}-rulebook-a4.pdf").pages
    strings = texts(pages[1])
    numbers = {round(y): int(t) for t, x, y in strings if t.isdigit() and x > 400}
    rows = [(t, numbers[round(y)]) for t, x, y in strings if x < 400 and round(y) in numbers]
    assert len(rows) >= 8

    # each page's strings set larger than body text (10 pt); headings are never inside a picture's form
    headings = {n: {e[1].strip() for e in drawn(page, enter_forms=False)
                    if e[0] == "text" and e[5] * math.hypot(e[4][0], e[4][1]) > 11}
                for n, page in enumerate(pages, 1)}
    for title, page in rows:
        assert title in headings[page], f"'{title}' is not a heading on page {page}"
        listed = {p for t, p in rows if t == title}  # two headings may share a title
        earlier = [n for n in range(3, page) if n not in listed and title in headings[n]]
        assert not earlier, f"'{title}' is listed on page {page} but printed on page {earlier[0]}"


def test_no_text_a_player_handles_prints_under_6_pt(built, kit, game):
    """Read back from every per-kind PDF but the rulebook: the size of each string as printed (font size
    times the scale it is drawn at, inside forms too)."""
    smallest = []
    for pdf in sorted((built / game).glob(f"{game}-*-a4.pdf")):
        if "rulebook" in pdf.name:
            continue
        for number, page in enumerate(kit(pdf.name).pages, 1):
            for kind, text, x, y, matrix, size in (e for e in drawn(page) if e[0] == "text"):
                printed = size * math.hypot(matrix[0], matrix[1])
                smallest.append((round(printed, 2), pdf.name, number, text))
    assert smallest and min(smallest)[0] >= 6, min(smallest)


def test_nothing_prints_within_5_mm_of_the_paper_edge(built, kit, game):
    """Home printers clip the edge: every string and every line drawn on the page itself (crop marks, tile
    outlines, targets, footers; a board's own art is clipped to its tile) keeps 5 mm from each side."""
    edge = 5 * MM - 0.01
    for pdf in sorted((built / game).glob(f"{game}-*-a4.pdf")):
        for number, page in enumerate(kit(pdf.name).pages, 1):
            pw, ph = float(page.mediabox[2]), float(page.mediabox[3])
            segments, _ = page_geometry(page)
            points = [p for segment in segments for p in segment]
            points += [(e[2], e[3]) for e in drawn(page, enter_forms=False) if e[0] == "text"]
            for x, y in points:
                assert edge <= x <= pw - edge and edge <= y <= ph - edge, (pdf.name, number, x / MM, y / MM)


def _half(page):
    """A map half read back from its full-size page: its zigzag cut line and the centres of its hexes."""
    paths = drawn(page)
    cut = max((e[1] for e in paths if e[0] == "path" and e[2] == "S"), key=len)
    hexes = [e[1] for e in paths if e[0] == "path" and e[2][0] in "fB" and len(e[1]) == 6]  # filled, outlined
    centres = [(sum(x for x, _ in h) / 6, sum(y for _, y in h) / 6) for h in hexes]
    return cut, centres


def test_evo_map_halves_interlock_row_into_row(built):
    """Cut out along their zigzags, half B fits into half A: laid so the cut lines meet, B's first row sits
    one hex row (1.5 R = 30 mm) below A's last, half a hex across, for every pairing of sides."""
    manifest = json.loads((built / "evo" / "manifest.json").read_text())
    full = read(built / "evo" / "evo-boards-fullsize.pdf")
    sides = {item: _half(full.pages[n]) for n, item in enumerate(["a-small", "a-large", "b-small", "b-large"])}
    assert next(c for c in manifest["components"] if c["id"] == "map")["count"] == 4
    for north in ("a-small", "a-large"):
        for south in ("b-small", "b-large"):
            cut_a, hexes_a = sides[north]
            cut_b, hexes_b = sides[south]
            assert len(cut_a) == len(cut_b) == 19  # the board's two edges and 17 corners along 8 hexes
            dx, dy = cut_a[0][0] - cut_b[0][0], cut_a[0][1] - cut_b[0][1]
            for (ax, ay), (bx, by) in zip(cut_a, cut_b):  # the same line: the halves meet along all of it
                assert abs(ax - (bx + dx)) < 0.05 and abs(ay - (by + dy)) < 0.05
            last_a = [p for p in hexes_a if abs(p[1] - min(y for _, y in hexes_a)) < 0.5]
            first_b = [(x + dx, y + dy) for x, y in hexes_b if abs(y - max(y for _, y in hexes_b)) < 0.5]
            assert len(last_a) == len(first_b) == 8  # the joining rows are land from end to end
            for x, y in first_b:
                nearest = min(last_a, key=lambda p: math.dist(p, (x, y)))
                assert (nearest[1] - y) / MM == pytest.approx(30, abs=0.1)  # one row lower (PDF y runs up)
                assert abs(nearest[0] - x) / MM == pytest.approx(34.641 / 2, abs=0.1)  # half a hex across


def _ink(path):
    """The ink of a PDF: each page drawn by pdfium at 25 dpi, and its coverage of cyan, magenta and yellow as
    white less red, green and blue, a share of the page, summed over the pages and the colorants. Ghostscript's
    inkcov device measured it before: on the five kits both found the ink saver's share of the ink within 0.05
    of each other (0.28 to 0.44), and pdfium takes a third of the time (Ghostscript interpreting the kits was 14 s
    of the suite)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    total = 0.0
    try:
        for page in document:
            image = page.render(scale=25 / 72).to_pil().convert("RGB")
            counts = image.histogram()  # (256 counts of each value, for red, then green, then blue)
            total += sum((255 - value) * count for channel in range(3)
                         for value, count in enumerate(counts[channel * 256:(channel + 1) * 256])) / 255 / (image.width * image.height)
    finally:
        document.close()
    return total


def test_the_ink_saver_at_least_halves_a_kits_ink(built, tmp_path, game):
    result = run(REPO, "build", game, "--ink-saver", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    standard = _ink(built / game / f"{game}-a4.pdf")
    saved = _ink(tmp_path / game / f"{game}-a4-inksaver.pdf")
    assert saved <= standard / 2, (game, standard, saved)


def test_evo_only_the_climate_cards_say_one_a_turn(built):
    # the banner sits between a card's title and its effect; a title is the first text of its card
    data = load_game(find(REPO), "evo", Report())
    events = {e["id"]: e["title"] for e in data.tables["events"]}
    climate = {events[i] for i in data.meta["rules"]["event_cards"]["climate_cards"]}
    titles = set(events.values())
    marked = set()
    for page in read(built / "evo" / "evo-cards-a4.pdf").pages:
        shown = texts(page)
        for title, x, y in shown:
            if title in titles and any("Only one climate card a turn" in t and abs(tx - x) < 40 * MM and 0 < y - ty < 30 * MM
                                       for t, tx, ty in shown):
                marked.add(title)
    assert climate and marked == climate, marked
