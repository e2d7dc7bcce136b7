"""`pnp export --format tts` read back: the save's objects and the images they name, as Tabletop Simulator
would load them: real backs, real sizes by the one scale rule, nothing overlapping, tokens in bags, dice, the
rulebook, unique GUIDs, hover text, snap points, two-sided boards, and --base-url."""

import json
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from PIL import Image

from conftest import make_project, run
from pnp.export.preview import object_footprint, object_image
from pnp.export.table import DEPTH_AT_1, UNIT_MM

GAME = "cards/mini/game.yaml"
EXTRA = """
  - id: plain-deck
    name: Scenario cards
    kind: deck
    items: cards
    count: 4
    layout: card
  - id: counters
    name: Counters
    kind: tokens
    copies: 12
    count: 12
    layout: counter
  - id: die
    name: Weather die
    kind: die
    copies: 2
    count: 2
    layout: die
  - id: rune
    name: Rune die
    kind: die
    count: 1
    layout: rune
  - id: aid
    name: Player aid
    kind: aid
    copies: 3
    count: 3
    layout: aid
  - id: map
    name: Map
    kind: board
    items: cards
    filter: "item.id in ['lion', 'fern']"
    count: 2
    layout: board
    piece: "map"
"""
LAYOUTS = {
    "layouts/mini/counter.yaml": "size: [9mm, 9mm]\nshape: circle\nelements:\n"
                                 "  - {type: circle, cx: 4.5, cy: 4.5, r: 4.5, fill: '#aa3333'}\n",
    "layouts/mini/die.yaml": "net: d6\nedge: 16mm\nsize: [16mm, 16mm]\nfaces: \"['sun', 'rain', 'wind', 'sun', "
                             "'snow', 'fog']\"\nelements:\n"
                             "  - {type: text, x: 1, y: 5, w: 14, h: 6, text: '{{ face }}', size: 8}\n",
    "layouts/mini/rune.yaml": "net: d8\nedge: 20mm\nsize: [8mm, 8mm]\nfaces: \"['a', 'b', 'c', 'd', 'e', 'f', 'g', "
                              "'h']\"\nelements:\n  - {type: text, x: 0, y: 2, w: 8, h: 4, text: '{{ face }}', size: 8}\n",
    "layouts/mini/aid.yaml": "size: [95mm, 130mm]\nelements:\n  - {type: rect, x: 0, y: 0, w: 95, h: 130, fill: '#eeeeaa'}\n",
}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("tts") / "proj", LAYOUTS)
    game = root / GAME
    game.write_text(game.read_text().rstrip("\n") + "\n" + EXTRA.lstrip("\n"))
    board = root / "layouts/mini/board.yaml"
    board.write_text(board.read_text().replace('label: "{{ n }}"}', 'label: "{{ n }}", snap: true}')
                     + "  - {type: rect, x: 100, y: 100, w: 63, h: 88, stroke: '#000000', "
                                          "snap: true}\n")
    result = run(root, "export", "--format", "tts")
    assert result.exit_code == 0, result.output
    # a d8 of letters: Tabletop Simulator's custom d8 template is not published, so a plain d8 naming its faces
    # (its letters in a grid were stretched onto a template pnp does not know), and said so
    assert "Rune die: a plain die of 8 faces" in result.output
    folder = root / "output/mini/export/tts"
    return root, folder, json.loads((folder / "mini.json").read_text())


def local(url):
    path = Path(unquote(urlparse(url).path))
    assert path.is_file(), url
    return path


def walk(objects):
    for o in objects:
        yield o
        yield from walk(o.get("ContainedObjects", []))
        yield from walk(o.get("States", {}).values())


def test_decks_have_real_backs_and_hover_text(table):
    _, _, save = table
    decks = {o["Nickname"]: o for o in save["ObjectStates"] if o["Name"] == "DeckCustom"}
    assert set(decks) == {"Cards", "Scenario cards"}
    for deck in decks.values():
        for entry in deck["CustomDeck"].values():
            assert entry["BackURL"] != entry["FaceURL"] and entry["BackIsHidden"] is True
            local(entry["BackURL"])
        for card in deck["ContainedObjects"]:
            assert card["Nickname"] and card["Description"], card
        assert deck["Transform"]["rotZ"] == 180.0  # face down
    # the mini deck's backs show each card's id: a back sheet; the scenario deck has no back layout: a plain one
    assert next(iter(decks["Cards"]["CustomDeck"].values()))["UniqueBack"] is True
    plain = next(iter(decks["Scenario cards"]["CustomDeck"].values()))
    assert plain["UniqueBack"] is False and "plain-back" in plain["BackURL"]
    with Image.open(local(plain["BackURL"])) as back, Image.open(local(plain["FaceURL"])) as faces:
        assert back.width == faces.width // plain["NumWidth"]  # one card's back, not a sheet


def test_objects_are_at_real_size_and_do_not_overlap(table):
    _, _, save = table
    boxes = []
    for o in save["ObjectStates"]:
        t = o["Transform"]
        image = object_image(o, local)
        w, d = object_footprint(o, image)
        boxes.append((o["Nickname"], t["posX"] - w / 2, t["posZ"] - d / 2, t["posX"] + w / 2, t["posZ"] + d / 2))
        if o["Name"] == "Custom_Tile" and o["Nickname"] == "Player aid":  # 95 x 130 mm at the image's aspect
            assert abs(w * UNIT_MM - 95) < 1 and abs(d * UNIT_MM - 130) < 1, (w, d)
        if o["Name"] == "DeckCustom":  # poker 63 x 88 mm
            assert abs(w * UNIT_MM - 63) < 1 and abs(d * UNIT_MM - 88) < 1, (w, d)
            assert d == pytest.approx(DEPTH_AT_1["card"] * t["scaleZ"])
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2], (a, b)


def test_guids_are_unique_six_hex_and_boards_locked(table):
    _, _, save = table
    guids = [o["GUID"] for o in walk(save["ObjectStates"])]
    assert all(re.fullmatch(r"[0-9a-f]{6}", g) for g in guids) and len(set(guids)) == len(guids)
    boards = [o for o in save["ObjectStates"] if o["Nickname"] in ("Board",) or o.get("States")]
    assert boards and all(o["Locked"] for o in boards)


def test_tokens_in_bags_dice_rulebook_and_seats(table):
    _, _, save = table
    bags = [o for o in save["ObjectStates"] if o["Name"] == "Bag"]
    assert len(bags) == 1 and bags[0]["Nickname"] == "Counters" and len(bags[0]["ContainedObjects"]) == 12
    token = bags[0]["ContainedObjects"][0]
    tile = token["CustomImage"]["CustomTile"]
    assert tile["Stretch"] is False and tile["Type"] == 2  # a circle, at its own aspect
    with Image.open(local(token["CustomImage"]["ImageURL"])) as image:
        assert min(image.size) >= 256  # a 9 mm counter still reads on screen
    # drawn from its bag, a counter is 9 mm across (it came out at the bag's scale, 33 mm), 2 mm thick on the table
    assert DEPTH_AT_1["tile"] * token["Transform"]["scaleZ"] * UNIT_MM == pytest.approx(9, abs=0.05)
    assert tile["Thickness"] * token["Transform"]["scaleY"] * UNIT_MM == pytest.approx(2, abs=0.05)
    rune = next(o for o in save["ObjectStates"] if o["Nickname"] == "Rune die")
    assert rune["Name"] == "Die_8" and "CustomImage" not in rune and rune["Description"] == "a, b, c, d, e, f, g, h"
    dice = [o for o in save["ObjectStates"] if o["Name"] == "Custom_Dice"]
    assert len(dice) == 2 and dice[0]["CustomImage"]["CustomDice"]["Type"] == 1
    # one texture for both copies (made again for the second, it was refused as no ordinary file in its place)
    assert dice[0]["CustomImage"] == dice[1]["CustomImage"]
    # its faces where Tabletop Simulator's d6 template reads them (a 3 x 2 grid in face order was stretched onto
    # that template): 3 x 3 cells, the top row unused, face 1 bottom left upside down, face 4 the middle cell
    with Image.open(local(dice[0]["CustomImage"]["ImageURL"])) as texture:
        cell = texture.width // 3
        assert texture.size == (3 * cell, 3 * cell) and texture.crop((0, 0, 3 * cell, cell)).getextrema() == (
            (255, 255),) * 3
        one, four = (texture.crop((c * cell, r * cell, (c + 1) * cell, (r + 1) * cell)) for c, r in ((0, 2), (1, 1)))
        assert one.rotate(180).tobytes() == four.tobytes() != one.tobytes()  # both 'sun', 1 turned half round
        assert object_image(dice[0], local).tobytes() == one.tobytes()  # the preview's die: its face 1 alone
    pdfs = [o for o in save["ObjectStates"] if o["Name"] == "Custom_PDF"]
    assert len(pdfs) == 1 and local(pdfs[0]["CustomPDF"]["PDFUrl"]).read_bytes().startswith(b"%PDF")
    from pypdf import PdfReader  # (the rulebook a player opens on the table was titled 'untitled')
    assert PdfReader(local(pdfs[0]["CustomPDF"]["PDFUrl"])).metadata.title == "Mini Game — Rulebook"
    aids = [o for o in save["ObjectStates"] if o["Nickname"] == "Player aid"]
    assert len(aids) == 3  # one at each of the 2-3 players' seats: two south, one north turned to face it
    assert sorted(o["Transform"]["rotY"] for o in aids) == [0.0, 180.0, 180.0]


def test_snap_points_and_two_sided_boards(table):
    _, _, save = table
    board = next(o for o in save["ObjectStates"] if o["Nickname"] == "Board")
    # 2 mm thick, whatever its scale (a fixed Thickness of 0.1 scaled with a 300 mm board was 23 mm)
    thickness = board["CustomImage"]["CustomTile"]["Thickness"] * board["Transform"]["scaleY"] * UNIT_MM
    assert thickness == pytest.approx(2, abs=0.05)
    points = board["AttachedSnapPoints"]
    assert len(points) == 41  # the track's 40 cells and the card slot
    # the card slot's centre, 131.5 mm from the left of a 400 mm board: left of the centre, so local +x (turned)
    slot = points[-1]["Position"]
    assert slot["x"] == pytest.approx((0.5 - 131.5 / 400) * DEPTH_AT_1["tile"] * 400 / 300, abs=1e-3)
    flipping = [o for o in save["ObjectStates"] if o.get("States")]
    assert len(flipping) == 1 and flipping[0]["Nickname"] != flipping[0]["States"]["2"]["Nickname"]


def test_preview_and_same_bytes_and_base_url(table):
    root, folder, save = table
    with Image.open(folder / "table-preview.png") as preview:
        assert preview.mode == "RGB" and 200 < max(preview.size) <= 2400
    first = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file() and p.name != "export.json"}
    result = run(root, "export", "--format", "tts", "--force", "--base-url", "https://example.org/mini/")
    assert result.exit_code == 0, result.output
    again = json.loads((folder / "mini.json").read_text())
    urls = [v for o in walk(again["ObjectStates"]) for v in re.findall(r'"((?:file|https?):[^"]+)"', json.dumps(o))]
    assert urls and all(u.startswith("https://example.org/mini/") for u in urls)
    for path, data in first.items():
        if path.name != "mini.json":
            assert (folder / path).read_bytes() == data, path  # the same images, byte for byte
    assert run(root, "export", "--format", "tts", "--base-url", "ftp://x").exit_code == 2
    for address in ("https://x.org/?folder=", "https://x.org/files#"):  # each image would name the same file
        refused = run(root, "export", "--format", "tts", "--base-url", address)
        assert refused.exit_code == 2 and "has a query or fragment" in refused.output


@pytest.mark.parametrize("address", ["http://[::1", "https://x.org/\x01/", "https://x.org:99999/",
                                     "https://x.org:abc/", "https://:80/", "https://user@/", "https://x.org:0/"])
def test_a_base_url_urllib_cannot_parse_or_holding_a_control_character_is_a_usage_error(project, address):
    """An IPv6 host left open ended in urllib's ValueError, a traceback; a control character, a port no address
    has or no host at all went into the save's addresses (exit 0)."""
    result = run(project, "export", "--format", "tts", "--base-url", address)
    assert result.exit_code == 2 and "is not an http:// or https:// address" in result.output


@pytest.mark.parametrize("address, said", [("https://x.org/a\nb/", "'https://x.org/a\\nb/' is not an http"),
                                           ("https://x.org/?" + "q" * 50_000, "qqq… has a query or fragment")])
def test_a_base_url_refused_is_quoted_on_one_line_cut_short(project, address, said):
    # quoted as typed, a line break in it made the message two lines (a second one forged at will), and a
    # refused address of 50 KB was said whole
    result = run(project, "export", "--format", "tts", "--base-url", address)
    assert result.exit_code == 2 and said in result.output and len(result.output) < 1_000, result.output[:300]
    assert not any(line.startswith("b/'") for line in result.output.splitlines()), result.output


@pytest.mark.parametrize("address", ["https://ex.com/../../", "https://ex.com/a/%2E%2e/", "https://ex.com/a\\..\\b/",
                                     "https://ex.com/a/./b"])
def test_a_base_url_with_dot_segments_is_a_usage_error(project, address):
    """A browser resolves . and .. (https://ex.com/a/../ is https://ex.com/): the save named its images under
    https://ex.com/../../deck-1-faces.png, an address other than the one given (exit 0)."""
    result = run(project, "export", "--format", "tts", "--base-url", address)
    assert result.exit_code == 2 and "has . or .. in its path" in result.output
    assert not (project / "output").exists()


@pytest.mark.parametrize("address, said", [("https://x.org\\a/", "holds '\\\\', which"),
                                           ('https://x.org/"><b>/', "holds '\"', '<', '>', which"),
                                           ("https://x.org/{a|b}/", "holds '{', '|', '}', which"),
                                           ("https://x.org/%zz/", "holds a % not followed by two hex digits")])
def test_a_base_url_holding_what_an_address_holds_only_escaped_is_a_usage_error(project, address, said):
    """Written into the save as given (exit 0): a browser reads https://x.org\\a/ as https://x.org/a/, and no
    server reads a quote or a brace unescaped the same everywhere."""
    result = run(project, "export", "--format", "tts", "--base-url", address)
    assert result.exit_code == 2 and said in result.output, result.output


def test_a_game_named_export_is_refused_before_its_save_is_replaced_by_the_export_record(tmp_path):
    """The save is <game>.json, the record export.json: a game named `export` lost its save (exit 0)."""
    root = make_project(tmp_path / "proj")
    (root / "cards/mini").rename(root / "cards/export")
    (root / "layouts/mini").rename(root / "layouts/export")
    result = run(root, "export", "--format", "tts", "export")
    assert result.exit_code == 1
    assert "cards/export/game.yaml: error: export: not exported as tts: one of its files is named export.json" \
        in result.output
    assert not (root / "output/export/export/tts").exists()


def test_an_export_whose_save_names_its_images_elsewhere_is_not_up_to_date(project, tmp_path):
    """The save names its images by file:/// address: in a copy of the project (or the project moved), the
    export was found up to date and kept a save naming the images where they had been (exit 0)."""
    from pnp.export.registry import registered
    from pnp.kit.manifest import up_to_date
    from pnp.project import Project

    assert run(project, "export", "--format", "tts").exit_code == 0
    folder = project / "output/mini/export/tts"
    save = json.loads((folder / "mini.json").read_text())
    urls = {u for o in walk(save["ObjectStates"]) for u in re.findall(r'"(file:[^"]+)"', json.dumps(o))}
    assert urls and all(local(u).is_relative_to(folder) for u in urls)
    settings = {"format": "tts", **registered()["tts"].settings({"base_url": None, "folder": folder})}
    assert up_to_date(Project(project), "mini", settings, folder, "export.json") is not None
    moved = {**settings, **registered()["tts"].settings({"base_url": None, "folder": tmp_path / "tts"})}
    assert moved["images_at"] == (tmp_path / "tts").as_uri()
    assert up_to_date(Project(project), "mini", moved, folder, "export.json") is None


@pytest.mark.parametrize("text, hover", [
    ("Roars at 10\\:30:45 :star: **loudly**.", "Roars at 10:30:45 star loudly."),
    ("Costs 2\\*3 [[Food]], *then* rests.\nDone.", "Costs 2*3 Food, then rests.\nDone."),
    ("\\[[Nope]] as typed, \\\\[[Ro\\ar]]", "[[Nope]] as typed, \\Ro\\ar"),
])
def test_hover_text_reads_as_the_card_prints_it(text, hover):
    # its own icon and star patterns printed the documented escape '10\:30:45' as '10\3045' and '2\*3' as '2\3'
    from pnp.export.tts import _markup_free
    assert _markup_free(text) == hover


@pytest.mark.parametrize("typed, saved", [
    ("[b]Bold[/b] and [FF0000]red[-]", "[[-]b]Bold[[-]/b] and [[-]FF0000]red[[-]-]"),
    ("Roll [10] dice, [sub]x[/SUP] [url=https://x]y[/url] [c]", "Roll [[-]10] dice, [[-]sub]x[[-]/SUP] "
     "[[-]url=https://x]y[[-]/url] [[-]c]"),
    ("[[-]b] [x] [123] [bold] [ b] [", "[[[-]-]b] [x] [123] [bold] [ b] ["),
])
def test_a_name_or_hover_text_shows_tabletop_simulators_tags_as_typed(typed, saved):
    # '[b]' in a card's text printed '[b]' on the card and bold in Tabletop Simulator, '[10]' near-transparent
    from pnp.export.table import Placed
    from pnp.export.tts import _with_transform

    state = {"Nickname": typed, "Description": typed, "ContainedObjects": [{"Nickname": typed, "Name": "Card"}]}
    done = _with_transform(state, Placed(state, (1.0, 1.0), "supply", facing_north=True))
    assert done["Nickname"] == done["Description"] == done["ContainedObjects"][0]["Nickname"] == saved


def test_a_deck_sheet_s_card_is_a_pixel_at_least_each_way(tmp_path):
    # eight 2000 x 1 mm cards to a row were 0 px tall: Pillow refused the sheet, said as a bug in pnp
    from types import SimpleNamespace

    from pnp.export.tts import TablePlan, _sheets
    from pnp.units import MM

    component = SimpleNamespace(id="deck")
    faces = [SimpleNamespace(side="front", index=n, trim=(2000 * MM, 1 * MM), component=component, stem=f"{n:03}-front",
                             page=n, art_bleed=0.0) for n in range(8)]
    plan = TablePlan(folder=tmp_path)
    (sheet,) = _sheets(faces, tmp_path, plan)
    assert sheet[5][1] == 1 and sheet[5][0] * 8 <= 4096 and set(plan.expect.values()) == {sheet[5]}


def test_a_decks_one_back_is_rendered_once_and_copied_for_every_card(tmp_path):
    # each card's back was a shot of its own: a 1,000-card deck with one back rendered and encoded it 1,000 times
    from types import SimpleNamespace

    from pnp.export.tts import TablePlan, _sheets
    from pnp.units import MM

    component = SimpleNamespace(id="deck")
    face = lambda n, side, page: SimpleNamespace(side=side, index=n, trim=(63 * MM, 88 * MM), component=component,  # noqa: E731
                                                 stem=f"{n:03}-{side}", page=page, art_bleed=0.0)
    faces = [f for n in range(100) for f in (face(n, "front", n), face(n, "back", 100))]
    plan = TablePlan(folder=tmp_path)
    sheets = list(_sheets(faces, tmp_path, plan))
    assert len(sheets) == 2 and sorted(shot.page for shot in plan.shots) == list(range(101))
    assert len(plan.copies) == 99 and len(plan.expect) == 200
    assert {source for source, _ in plan.copies} == {str(tmp_path / "cards" / "deck" / "000-back.png")}


def test_tokens_one_back_is_rendered_once_and_copied_for_every_token(tmp_path):
    # each token's back was a shot of its own: 500 tokens with one back rendered and encoded it 500 times
    from types import SimpleNamespace

    from pnp.export.tts import TablePlan, _pieces
    from pnp.units import MM

    component = SimpleNamespace(id="chits")
    face = lambda n, side, page: SimpleNamespace(side=side, index=n, trim=(20 * MM, 20 * MM), component=component,  # noqa: E731
                                                 stem=f"{n:03}-{side}", page=page, art_bleed=0.0, kind="tokens")
    plan = TablePlan(folder=tmp_path)
    _pieces([f for n in range(50) for f in (face(n, "front", n), face(n, "back", 50))], tmp_path, plan)
    assert sorted(shot.page for shot in plan.shots) == list(range(51)) and len(plan.copies) == 49


@pytest.mark.parametrize("name, named", [("**Sc**out :coin:", "Scout coin"), ("Lion", "Lion"), ("**", "**")])
def test_a_piece_is_named_as_the_card_prints_its_name(name, named):
    # a layout's `{{ card.name }}` reads its markup: the save named the card '**Sc**out :coin:' on the table
    from types import SimpleNamespace

    from pnp.export.tts import _named
    assert _named(SimpleNamespace(name=name)) == named


@pytest.mark.parametrize("address", ["https://user:secret@ex.com/mini/", "https://token@ex.com/", "https://:pw@ex.com/"])
def test_a_base_url_holding_a_user_or_password_is_a_usage_error(project, address):
    """The save names every image by the address given: a password in it went to every player (exit 0)."""
    result = run(project, "export", "--format", "tts", "--base-url", address)
    assert result.exit_code == 2 and "holds a user name or password" in result.output, result.output
    assert not (project / "output").exists()


def test_a_pieces_name_on_the_table_is_cut_short():
    # a name an alias repeats on every card (950,000 characters on 500) was written whole into each card's
    # Nickname: a save of 475 MB, made with 1 GB of memory
    from types import SimpleNamespace

    from pnp.export.tts import MAX_NAME, _named
    named = _named(SimpleNamespace(name="n" * 100_000))  # type: ignore[arg-type]
    assert len(named) == MAX_NAME and named.endswith("…")
    assert _named(SimpleNamespace(name="**Sc**out")) == "Scout"  # type: ignore[arg-type]


@pytest.mark.parametrize("fields", [{"text": {"type": "text"}}, {}])  # its text field; its plain values
def test_a_hover_text_is_cut_as_a_text_box_holds_and_an_aliased_text_read_once(monkeypatch, fields):
    # a text no layout prints, an alias repeating it on every card (950,000 characters on 500): each card's
    # hover text was the whole of it, parsed whole for each card (11.7 s of CPU for 500 cards)
    from types import SimpleNamespace

    import pnp.draw.text
    from pnp.export.tts import MAX_HOVER, _hover, _markup_free
    from pnp.layout.elements.text import MAX_TEXT

    read: list[int] = []
    parse = pnp.draw.text.parse
    monkeypatch.setattr(pnp.draw.text, "parse", lambda text: read.append(len(text)) or parse(text))
    _markup_free.cache_clear()
    huge = "word " * 5_000 + "w" * 100_000
    studio = SimpleNamespace(game=SimpleNamespace(meta={"tables": {"cards": {"fields": fields}}}))
    component = SimpleNamespace(spec={"items": "cards"}, name="Cards", description="")
    hovers = {_hover(SimpleNamespace(item={"id": f"c{n}", "text": huge}, component=component), studio)  # type: ignore[arg-type]
              for n in range(50)}
    (hover,) = hovers
    assert MAX_HOVER == MAX_TEXT and len(hover) == MAX_HOVER and hover.endswith("…")
    assert len(read) == 1 and read[0] <= MAX_HOVER + 1, read


@pytest.mark.parametrize("turned", [180.0, 0.0])
def test_the_preview_decodes_a_picture_once_for_all_the_objects_showing_it(tmp_path, monkeypatch, turned):
    # the preview held every object's picture decoded at full size until it was drawn, and decoded it again for
    # each: 30 copies of a 520 mm board took 1.2 GB
    from pnp.export import preview

    Image.new("RGB", (40, 30), "red").save(tmp_path / "board.png")
    decoded: list[Path] = []
    real = preview._rgb
    monkeypatch.setattr(preview, "_rgb", lambda path: decoded.append(path) or real(path))
    objects = [{"Name": "Custom_Tile", "CustomImage": {"ImageURL": "board.png"},
                "Transform": {"posX": 3.0 * n, "posZ": 0.0, "scaleZ": 1.0, "rotY": turned}} for n in range(30)]
    image = preview.render_preview({"ObjectStates": objects}, lambda address: tmp_path / address)
    assert len(decoded) == 1 and dict((c, n) for n, c in image.getcolors(1 << 16)).get((255, 0, 0), 0) > 30


def test_the_save_holds_a_bounded_number_of_snap_points_each_face_worked_out_once(tmp_path, monkeypatch):
    # every copy of a piece carries its snap points: 9,900 copies of a token with 400 spaces marked `snap: true`
    # made a save of 1.1 GB in 72 s and 11 GB of memory, working the points out again for each copy
    from types import SimpleNamespace

    from pnp.export import tts

    worked: list[object] = []
    point = {"Position": {"x": 0.0, "y": 0.1, "z": 0.0}, "Rotation": {"x": 0.0, "y": 0.0, "z": 0.0}}
    monkeypatch.setattr(tts, "snap_points", lambda face, studio: worked.append(face) or [point] * 400)
    monkeypatch.setattr(tts, "_hover", lambda face, studio: "a coin")
    face = SimpleNamespace(component=SimpleNamespace(id="tokens"), stem="001-coin-front", shape="circle",
                           kind="tokens", name="Coin", index=0, copies=30, printable=SimpleNamespace(mark=None),
                           trim=(20.0, 20.0))
    plan = tts.TablePlan(folder=tmp_path)
    bag = tts._bag(face, None, lambda rel: rel, None, tts.Guids(), plan)
    held = [len(token.get("AttachedSnapPoints", ())) for token in bag.state["ContainedObjects"]]
    assert len(held) == 30 and sum(held) == tts.MAX_SNAP_POINTS and len(worked) == 1
    assert len(plan.notes) == 1 and "snap points" in plan.notes[0][0]


def test_a_card_s_name_and_hover_text_are_made_once_for_all_its_copies(monkeypatch, tmp_path):
    # made for each copy: 9,900 copies of a card with a text of 20,000 characters held 9,900 copies of that text,
    # 1.3 GB with the save's text
    from types import SimpleNamespace

    from pnp.export import tts

    made: list[object] = []
    monkeypatch.setattr(tts, "_hover", lambda face, studio: made.append(face) or "text " * 4000)
    face = SimpleNamespace(stem="001-scout-front", name="Scout", trim=(63 * 2.835, 88 * 2.835))
    component = SimpleNamespace(id="deck", name="Cards", description="the deck")
    deck = {"component": component, "cards": [(100, face, "1")] * 30, "custom": {"1": {}}}
    piece = tts._deck_piece(deck, None, tts.Guids(), tts.TablePlan(folder=tmp_path))
    texts = {id(card["Description"]) for card in piece.state["ContainedObjects"]}
    assert len(piece.state["ContainedObjects"]) == 30 and len(made) == 1 and len(texts) == 1


@pytest.mark.parametrize("read", ["digest", "preview", "pdf"])
def test_a_picture_the_export_reads_back_is_not_read_through_a_link_swapped_in_for_it(tmp_path, read):
    # the export reads back files it wrote in its temporary folder, inside the project: a link put there while it
    # ran had a picture outside the project pasted into the save's sheets (a named pipe blocked the export)
    import errno

    from pnp.export import preview, tts
    from pnp.project import opened_pdf

    outside = tmp_path / "outside.png"
    Image.new("RGB", (4, 4), "red").save(outside)
    link = tmp_path / "work" / "face.png"
    link.parent.mkdir()
    link.symlink_to(outside)
    readers = {"digest": lambda: tts._digest(link),
               "preview": lambda: preview._cell(link, {}, None), "pdf": lambda: opened_pdf(link).__enter__()}
    with pytest.raises(OSError) as refused:
        readers[read]()
    assert refused.value.errno == errno.ELOOP


@pytest.mark.parametrize("write", ["png", "sheet", "plain"])
def test_a_file_the_export_writes_is_not_written_through_a_link_put_in_its_place(tmp_path, write):
    # the export writes by name into its temporary folder, inside the project: a link put there while it ran had
    # the picture written through it, outside the project
    import numpy as np

    from pnp.export import raster, services, tts

    outside = tmp_path / "outside.png"
    outside.write_bytes(b"mine")
    work = tmp_path / "work"
    work.mkdir()
    (work / "face.png").symlink_to(outside)
    writers = {"png": lambda: raster.save(np.zeros((2, 2, 3), np.uint8), str(work / "face.png"), 300),
               "sheet": lambda: tts._saved(Image.new("RGB", (2, 2)), work / "face.png"),
               "plain": lambda: services._plain_backs(work, [(Path("face.png"), (2, 2))], 300)}
    with pytest.raises(FileExistsError):
        writers[write]()
    assert outside.read_bytes() == b"mine"


def test_the_saves_hover_text_is_bounded_however_many_copies_carry_it(tmp_path):
    # 9,360 copies of cards whose unprinted text (an alias, 22 KB of YAML) was 6,600 '[b]' made a save of 380 MB
    from types import SimpleNamespace

    from pnp.export.table import Guids
    from pnp.export.tts import MAX_SAVE_TEXT, TablePlan, _deck_piece, _literal
    from pnp.units import MM

    component = SimpleNamespace(id="d", name="Deck", description="[b]" * 6_000, spec={})
    face = SimpleNamespace(stem="001-front", name="Card", item=None, component=component, trim=(63 * MM, 88 * MM),
                           printable=SimpleNamespace(mark=None))
    plan = TablePlan(folder=tmp_path)
    deck = {"component": component, "cards": [(100, face, "1")] * 1_000, "custom": {"1": {}}}
    cards = _deck_piece(deck, None, Guids(), plan).state["ContainedObjects"]  # type: ignore[arg-type]
    written = sum(len(_literal(card["Description"])) for card in cards)
    assert 0 < written <= MAX_SAVE_TEXT and cards[-1]["Description"] == "" and len(plan.notes) == 1


def test_a_dies_name_on_the_table_is_cut_short_on_every_copy(monkeypatch, tmp_path):
    # a die component's name of 19,000 characters on 5,000 copies was written whole into each: a save of 97 MB
    from types import SimpleNamespace

    from pnp.export import tts
    from pnp.products import die

    monkeypatch.setattr(die, "face_values", lambda layout, context: [1, 2, 3, 4, 5, 6])
    component = SimpleNamespace(id="d6", name="D" * 19_000)
    faces = [SimpleNamespace(index=0, component=component, copies=50, item=None,
                             printable=SimpleNamespace(layout="die", extra=(("face", v),), mark=None)) for v in range(1, 7)]
    studio = SimpleNamespace(layouts={"die": SimpleNamespace(options={"edge": 16 * 2.835})},
                             context=lambda item: {})
    dice = tts._dice(faces, tmp_path, lambda rel: rel, studio, tts.Guids(), tts.TablePlan(folder=tmp_path))
    assert len(dice) == 50 and {len(d.state["Nickname"]) for d in dice} == {tts.MAX_NAME}


@pytest.mark.parametrize("size, copies", [((70, 70), 30), ((70, 120), 30), ((63, 88), 30), ((70, 70), 1)])
def test_a_card_of_another_shape_than_tabletop_simulators_is_scaled_across_apart(monkeypatch, tmp_path, size, copies):
    # a card is drawn on the table's one card shape (2.5 x 3.5 in at scale 1) whatever its image: scaled alike
    # each way, a square card showed as a poker card, its picture squeezed, and a tarot card 3.4 in wide, not 2.8
    from types import SimpleNamespace

    from pnp.export import tts
    from pnp.export.table import transform
    from pnp.units import MM

    monkeypatch.setattr(tts, "_hover", lambda face, studio: "text")
    face = SimpleNamespace(stem="001-scout-front", name="Scout", trim=(size[0] * MM, size[1] * MM))
    component = SimpleNamespace(id="deck", name="Cards", description="the deck")
    deck = {"component": component, "cards": [(100, face, "1")] * copies, "custom": {"1": {}}}
    piece = tts._deck_piece(deck, None, tts.Guids(), tts.TablePlan(folder=tmp_path))
    t = transform(piece)
    shown = (2.5 * t["scaleX"], DEPTH_AT_1["card"] * t["scaleZ"])  # the card shape's width at scale 1: 2.5 in
    assert shown == pytest.approx(object_footprint({"Name": piece.state["Name"], "Transform": t}, None))
    assert shown == pytest.approx((size[0] / UNIT_MM, size[1] / UNIT_MM), abs=0.01)
    assert shown == pytest.approx(piece.size, abs=0.01)  # where the packer made room for it


@pytest.mark.parametrize("values, slots", [
    ([6, 5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 6]),  # in face order, the face printed 6 lay in slot 1, reported as 1
    ([2, 1, 3, 4, 6, 5], [1, 2, 3, 4, 5, 6]),
    (["sun", "rain", "wind", "sun", "snow", "fog"], ["sun", "rain", "wind", "sun", "snow", "fog"]),
    ([1.0, 2, 3, 4, 5, 6], [1.0, 2, 3, 4, 5, 6]),  # not whole numbers: face order
    ([1, "two", 3, 4, 5, 6], [1, "two", 3, 4, 5, 6]),  # numbers and words: face order (was a TypeError)
])
def test_a_custom_die_s_numbers_lie_in_the_slots_tabletop_simulator_reports(values, slots):
    from types import SimpleNamespace

    from pnp.export.tts import _slotted

    faces = [SimpleNamespace(printable=SimpleNamespace(extra=(("face", v),))) for v in values]
    assert [dict(f.printable.extra)["face"] for f in _slotted(faces, values)] == slots  # type: ignore[arg-type]


def test_a_die_s_faces_named_on_each_copy_are_held_to_the_save_s_text_budget(tmp_path, monkeypatch):
    # every copy of a die named its faces in full: 8 faces of 20,000 characters on 200 copies made a 32 MB save
    from types import SimpleNamespace

    from pnp.export import tts
    from pnp.products import die
    from pnp.units import MM

    values = [letter * 2_000 for letter in "abcdefgh"]
    monkeypatch.setattr(die, "face_values", lambda layout, context: values)
    studio = SimpleNamespace(layouts={"d8": SimpleNamespace(options={"edge": 20 * MM})}, context=lambda item: {})
    component = SimpleNamespace(id="die", name="Die")
    faces = [SimpleNamespace(index=0, component=component, item=None, copies=20, name="Die",
                             printable=SimpleNamespace(layout="d8", extra=(("face", v),), mark=None)) for v in values]
    plan = tts.TablePlan(folder=tmp_path)
    plan.text_left = 100_000  # (the save's budget, made small: 20 copies of 16,000 characters)
    pieces = tts._dice(faces, tmp_path, lambda rel: rel, studio, tts.Guids(), plan)  # type: ignore[arg-type]
    assert len(pieces) == 20 and sum(len(p.state["Description"]) for p in pieces) <= 100_000
    assert any("hover text is left out" in note for note, _ in plan.notes)
