"""The preview's field-level dependencies (pnp/model/reads.py): after an edit, what the data, the checks and
the faces would be is the same whether the preview takes what did not change from its last refresh or checks
the game anew; and an edit that one card's front alone reads re-resolves that face and nothing else."""

import pytest

from conftest import _write, make_project
from pnp.project import find
from pnp.serve.preview import Preview

GAME = "cards/mini/game.yaml"
CARDS = "cards/mini/cards.yaml"
RULEBOOK = "layouts/mini/rulebook.md.j2"


@pytest.fixture
def game(tmp_path):
    """The mini game with an each-item constraint, a sum over the table, a count_by in a constraint and a
    rulebook line that reads a field only through a filter."""
    root = make_project(tmp_path / "proj")
    text = (root / GAME).read_text()
    text = text.replace("constraints:\n", "constraints:\n"
                        "  - {expr: item.power <= 4, each: cards, field: power, message: '{{ item.name }} is too strong'}\n"
                        "  - {expr: \"(data.cards | sum(attribute='power')) <= 12\", where: cards, "
                        "message: 'powers add up to {{ data.cards | sum(attribute=\"power\") }}'}\n"
                        "  - {expr: \"(data.cards | count_by('kind')).get('beast', 0) <= 2\", where: cards}\n", 1)
    _write(root / GAME, text.encode())
    book = (root / RULEBOOK).read_text() + "\nBeasts: {{ data.cards | selectattr('kind', 'equalto', 'beast') | list | length }}.\n"
    _write(root / RULEBOOK, book.encode())
    return root


def seen(preview: Preview) -> tuple:
    """What the page shows: its messages (with file:line) and each card's face images (digests; a game with
    errors shows its last good images, which a new preview has not), data and place."""
    state = preview.state
    problems = [(p["severity"], p["message"], p["where"] and p["where"]["at"], p["card"]) for p in state["problems"]]
    # a crash in the check is never what a page may show (a refreshed and a fresh preview crashing alike
    # would otherwise compare equal)
    assert not [p for p in problems if p[1].startswith("pnp failed while")], problems
    faces = {key: ([f["image"] for f in card["faces"]], card["fields"], card["source"])
             for key, card in state["cards"].items()} if state["status"] != "stale" else None
    return state["status"], sorted(problems), faces


def seen_fresh(root) -> tuple:
    """What a new preview of the same files shows (seen): what the refreshed one must show."""
    full = Preview(find(root), "mini")
    full.refresh()
    return seen(full)


def edit(root, rel: str, old: str, new: str) -> None:
    text = (root / rel).read_text()
    assert old in text, old
    _write(root / rel, text.replace(old, new, 1).encode())


EDITS = [
    (GAME, "  star: round-star\n", "  star: no-such-icon\n"),  # an answer lion's kept text check had: unknown now
    (GAME, "  star: no-such-icon\n", "  star: round-star\n"),  # and known again
    (CARDS, "text: \"Roars :star: loudly.\"", "text: \"Roars twice.\""),  # a card's text field
    (CARDS, "  power: 3\n", "  power: 5\n"),  # a number an each-constraint, a sum and a derived field read
    (CARDS, "- id: moss\n  name: Moss\n  kind: plant", "- id: moss\n  name: Moss\n  kind: beast"),  # through a filter
    (CARDS, "  power: 2\n", "  power: 2\n- id: toad\n  name: Toad\n  kind: beast\n  power: 1\n"),  # an item added
    (CARDS, "- id: wolf\n  name: Wolf\n  kind: beast\n  power: 5\n", ""),  # an item removed
    (CARDS, "- id: lion\n", "- id: leo\n"),  # an id renamed: fern's friend names no card now
    (CARDS, "- id: fern\n", "- id: fern\n  text: |\n    One line\n    and another\n"),  # the lines below move
    (CARDS, "- id: leo\n", "- id: lion\n"),  # and back: valid again
    (CARDS, "  name: Moss\n  kind: beast", "  name: Moss\n  kind: 1.5"),  # a number no kind is
    (CARDS, "  kind: 1.5\n", "  kind: 1.50\n"),  # the same number written otherwise: said as written
]


def test_each_edit_gives_what_a_full_check_gives(game):
    preview = Preview(find(game), "mini")
    preview.refresh()
    for rel, old, new in EDITS:
        edit(game, rel, old, new)
        preview.refresh()
        assert seen(preview) == seen_fresh(game), (old, new)
        assert preview.memo.fields.reused or rel == GAME, "nothing was taken from the last refresh"  # (game.yaml:
        # every derived field and constraint again; the items' field checks are kept while their answers hold)
        assert preview.memo.fields.checks.reused, "no item's field check was taken from the last refresh"


def test_an_edit_only_one_front_reads_re_resolves_that_face_alone(game):
    preview = Preview(find(game), "mini")
    preview.refresh()
    before = preview.state["cards"]
    edit(game, CARDS, "- id: wolf\n  name: Wolf\n", "- id: wolf\n  name: Wolf\n  text: Howls.\n")
    preview.refresh()
    assert preview.state["status"] == "ok", preview.state["problems"]
    # the page's data of the other cards is the last refresh's, not made again (moss's lines moved)
    assert [key for key, card in preview.state["cards"].items()
            if card["fields"] and card["fields"] is not before[key]["fields"]] == ["deck/wolf", "deck/moss"]
    assert preview.memo.resolved == [("deck", "front", 2, ())]
    # no derived field, constraint or rulebook check again; that front's elements alone checked again
    assert preview.memo.fields.computed == [("elements", ("deck", "front", 2, ()))]
    assert preview.drawn == 1


def test_an_edit_the_rulebook_reads_but_does_not_print_does_not_check_its_text_again(game):
    """Two cards swap kinds: the rulebook's count of beasts reads every card's kind, so it is rendered again,
    but its Markdown is the same: its text's checks (icons, terms, the blocks the build sets) are kept, and
    the page says what a new preview says."""
    preview = Preview(find(game), "mini")
    preview.refresh()
    edit(game, CARDS, "- id: lion\n  name: Lion\n  kind: beast", "- id: lion\n  name: Lion\n  kind: plant")
    edit(game, CARDS, "- id: moss\n  name: Moss\n  kind: plant", "- id: moss\n  name: Moss\n  kind: beast")
    preview.refresh()
    assert seen(preview) == seen_fresh(game)
    computed = [key[0] for key in preview.memo.fields.computed]
    assert "check" in computed and "rulebook text" not in computed
    edit(game, CARDS, "- id: wolf\n  name: Wolf\n", "- id: wolf\n  name: Wolf\n  text: Howls.\n")
    preview.refresh()  # read by wolf's front alone: the rulebook's check is kept whole, its text's with it
    assert [key[0] for key in preview.memo.fields.computed] == ["elements"]
    edit(game, CARDS, "- id: lion\n  name: Lion\n  kind: plant", "- id: lion\n  name: Lion\n  kind: beast")
    edit(game, CARDS, "- id: moss\n  name: Moss\n  kind: beast", "- id: moss\n  name: Moss\n  kind: plant")
    preview.refresh()
    assert "rulebook text" not in [key[0] for key in preview.memo.fields.computed]
    edit(game, CARDS, "  text: Howls.\n  kind: beast", "  text: Howls.\n  kind: plant")
    preview.refresh()  # one beast fewer: the text is new, checked again
    assert "rulebook text" in [key[0] for key in preview.memo.fields.computed]


LAYOUT_EDITS = [
    ("layouts/mini/frame.yaml", "#eeeeee", "#ddeedd"),  # the layout the fronts extend: the fronts alone
    ("layouts/mini/back.yaml", "size: 12,", "size: 11,"),  # the backs alone
    ("layouts/mini/card.yaml", "size: 12}", "size: 12, colour: red}"),  # a broken layout: said at its line
    ("layouts/mini/card.yaml", "size: 12, colour: red}", "size: 12}"),  # and mended
    (CARDS, "- id: wolf\n", "- id: wolf\n  colour: red\n"),  # a data error: nothing is printed ...
    (CARDS, "Roars :star: loudly.", "Roars twice."),  # ... while the lion's text changes ...
    (CARDS, "  colour: red\n", ""),  # ... and when it is mended, the lion's face shows its new text
    (CARDS, "  power: 3\n", "  power: 3\n  text: \"" + "howls all night " * 40 + "\"\n"),  # wolf's text overflows
    (CARDS, "  power: 4\n", "  power: 2\n"),  # another card's edit: wolf's overflow is said again, kept
]


def test_a_layout_file_edit_reads_and_resolves_again_only_what_read_that_file(game):
    """A layout file's edit forgets the layouts made from it (its own and those extending it) and the faces
    and checks that read them; the other layouts are kept, read once; each refresh shows what a new preview
    shows."""
    _write(game / "layouts/mini/frame.yaml", b"size: poker\nelements:\n"
           b"  - {type: rect, x: 0, y: 0, w: 63, h: 88, bleed: true, fill: \"#eeeeee\"}\n")
    edit(game, "layouts/mini/card.yaml", "size: poker\n", "extends: frame\n")
    edit(game, "layouts/mini/card.yaml", "  - {type: rect, x: 0, y: 0, w: 63, h: 88, bleed: true, fill: \"#eeeeee\"}\n",
         "")
    preview = Preview(find(game), "mini")
    preview.refresh()
    fronts, backs = ([("deck", side, n, ()) for n in range(4)] for side in ("front", "back"))
    resolved = {"frame.yaml": fronts, "back.yaml": backs, "card.yaml": fronts}
    read = {"frame.yaml": {"card", "frame"}, "back.yaml": {"back"}, "card.yaml": {"card"}}
    for rel, old, new in LAYOUT_EDITS:
        layouts = dict(preview.memo.layouts.layouts)
        edit(game, rel, old, new)
        preview.refresh()
        assert seen(preview) == seen_fresh(game), (old, new)
        if "power: 2" in new:
            assert any("too long" in p["message"] for p in preview.state["problems"])
            assert ("elements", ("deck", "front", 2, ())) not in preview.memo.fields.computed
        name = rel.rsplit("/", 1)[1]
        if name in resolved and preview.state["status"] == "ok":
            assert sorted(preview.memo.resolved) == resolved[name], rel
            read_again = {n for n, layout in preview.memo.layouts.layouts.items() if layouts.get(n) is not layout}
            assert read_again == read[name], rel


def test_a_filtered_component_follows_the_edits_of_what_its_filter_reads(tmp_path):
    """A deck of the beasts alone (a filter): each item's answer is kept while nothing it read changed, and an
    edit of a kind moves that card in or out of the deck, as a new preview shows it."""
    root = make_project(tmp_path / "proj", case={"replace": {GAME: [[
        "  - id: board\n", "  - id: beasts\n    name: Beasts\n    kind: deck\n    items: cards\n"
        "    filter: item.kind == 'beast'\n    layout: card\n    back: back\n  - id: board\n"]]}})
    preview = Preview(find(root), "mini")
    preview.refresh()
    for old, new in [("- id: moss\n  name: Moss\n  kind: plant", "- id: moss\n  name: Moss\n  kind: beast"),
                     ("  power: 3\n", "  power: 2\n"),  # read by no filter
                     ("- id: lion\n  name: Lion\n  kind: beast", "- id: lion\n  name: Lion\n  kind: plant")]:
        edit(root, CARDS, old, new)
        preview.refresh()
        assert seen(preview) == seen_fresh(root), new
        computed = [key for key in preview.memo.fields.computed if key[0] == "filter"]
        assert len(computed) == (0 if "power" in new else 1), computed  # the edited item's answer alone
    assert [c["cards"] for c in preview.state["components"] if c["id"] == "beasts"] == \
        [["beasts/wolf", "beasts/moss"]]


def test_items_checked_after_a_pattern_gave_up_are_checked_again(tmp_path, monkeypatch):
    """A pattern too slow on one card is given up for the cards after it in that check: what those were found
    to be is not kept for a refresh in which the pattern holds again (the next card's mismatch is said)."""
    monkeypatch.setattr("pnp.model.schema.PATTERN_SECONDS", 0.05)
    slow = "a" * 40 + "!"
    root = make_project(tmp_path / "proj", case={"replace": {
        GAME: [['text: {type: text, default: ""}', 'text: {type: text, default: "", pattern: "(a|aa)+"}']],
        CARDS: [['text: "Roars :star: loudly."', f'text: "{slow}"'], ["  power: 1\n", "  power: 1\n  text: Fern\n"]]}})
    preview = Preview(find(root), "mini")
    preview.refresh()
    edit(root, CARDS, slow, "aaaa")
    preview.refresh()
    assert seen(preview) == seen_fresh(root)
    assert any("'Fern' does not match" in problem[1] for problem in seen(preview)[1])


def test_a_field_read_through_the_data_follows_its_edits_on_every_card_sharing_it(tmp_path):
    """Every front prints the first card's power, read through `data`: the card whose own power is the same
    shares the first card's text, and follows that card's edit as a fresh check does."""
    root = make_project(tmp_path / "proj", case={"replace": {
        "layouts/mini/card.yaml": [['text: "{{ card.id }}"', 'text: "{{ data.cards[0].power }}"']],
        CARDS: [["  power: 3\n", "  power: 4\n"]]}})
    preview = Preview(find(root), "mini")
    preview.refresh()
    edit(root, CARDS, "  power: 4\n", "  power: 5\n")
    preview.refresh()
    assert seen(preview) == seen_fresh(root)


def test_a_filter_printing_its_item_whole_follows_any_edit_of_it(tmp_path):
    """`item | string` prints the item whole: the filter read every field,
    and renaming the lion takes it out of the deck, as a new preview shows it."""
    root = make_project(tmp_path / "proj", case={"replace": {GAME: [[
        "  - id: board\n", "  - id: lions\n    name: Lions\n    kind: deck\n    items: cards\n"
        "    filter: \"'Lion' in (item | string) or item.id == 'wolf'\"\n    layout: card\n    back: back\n"
        "  - id: board\n"]]}})  # (the wolf: a deck the edit left empty would be an error, no state to compare)
    preview = Preview(find(root), "mini")
    preview.refresh()
    assert "lions/lion" in preview.state["cards"]
    edit(root, CARDS, "  name: Lion\n", "  name: Leo\n")
    preview.refresh()
    assert seen(preview) == seen_fresh(root)
    assert "lions/lion" not in preview.state["cards"]


def _png(size: tuple[int, int], padding: int = 0) -> bytes:
    import io

    from PIL import Image, PngImagePlugin

    info = PngImagePlugin.PngInfo()
    if padding:
        info.add_text("pad", "x" * padding)
    out = io.BytesIO()
    Image.new("RGB", size, "#228833").save(out, "PNG", pnginfo=info)
    return out.getvalue()


def test_a_picture_replaced_by_one_of_the_same_size_and_time_is_checked_again(tmp_path):
    """A card's picture replaced by a smaller one of as many bytes, its modification time put back (as a copy
    keeping times does): the preview says what a fresh check says of it (its resolution)."""
    import os

    root = make_project(tmp_path / "proj", case={"replace": {"layouts/mini/card.yaml": [[
        "  - {type: icon", "  - {type: image, src: pic.png, x: 0, y: 0, w: 60, h: 80}\n  - {type: icon"]]}})
    picture = root / "layouts/mini/pic.png"
    sharp = _png((400, 500))
    picture.write_bytes(sharp)
    preview = Preview(find(root), "mini")
    preview.refresh()
    before = picture.stat()
    blurred = _png((20, 20))
    blurred = _png((20, 20), len(sharp) - len(blurred) - 16)  # a text chunk: 12 bytes and its key "pad\0"
    assert len(blurred) == len(sharp)
    picture.write_bytes(blurred)
    os.utime(picture, ns=(before.st_atime_ns, before.st_mtime_ns))
    preview.refresh()
    assert seen(preview) == seen_fresh(root)
    assert any("20x20 px" in problem[1] for problem in seen(preview)[1])


def test_a_picture_reached_through_a_link_is_checked_again_when_the_file_it_leads_to_changes(tmp_path):
    """layouts/mini/pic.png links to a picture elsewhere in the project: replacing that picture by a small one
    makes the preview say what a fresh check says (the link itself did not change)."""
    root = make_project(tmp_path / "proj", case={"replace": {"layouts/mini/card.yaml": [[
        "  - {type: icon", "  - {type: image, src: pic.png, x: 0, y: 0, w: 60, h: 80}\n  - {type: icon"]]}})
    (root / "art").mkdir()
    (root / "art/pic.png").write_bytes(_png((400, 500)))
    (root / "layouts/mini/pic.png").symlink_to("../../art/pic.png")
    preview = Preview(find(root), "mini")
    preview.refresh()
    (root / "art/pic.png").write_bytes(_png((20, 20)))
    preview.refresh()
    assert seen(preview) == seen_fresh(root)
    assert any("20x20 px" in problem[1] for problem in seen(preview)[1])


def test_a_picture_in_a_linked_folder_is_checked_again_when_it_changes(tmp_path):
    """layouts/mini/art links to a folder elsewhere in the project (and a link to itself lies beside it, which
    the preview must not fail on): replacing a picture in it makes the preview say what a fresh check says."""
    root = make_project(tmp_path / "proj", case={"replace": {"layouts/mini/card.yaml": [[
        "  - {type: icon", "  - {type: image, src: art/pic.png, x: 0, y: 0, w: 60, h: 80}\n  - {type: icon"]]}})
    (root / "art").mkdir()
    (root / "art/pic.png").write_bytes(_png((400, 500)))
    (root / "layouts/mini/art").symlink_to("../../art")
    (root / "layouts/mini/loop").symlink_to("loop")
    preview = Preview(find(root), "mini")
    preview.refresh()
    assert preview.state["status"] == "ok", preview.state["problems"]
    (root / "art/pic.png").write_bytes(_png((20, 20)))
    preview.refresh()
    full = Preview(find(root), "mini")
    full.refresh()
    assert seen(preview) == seen(full)
    assert any("20x20 px" in problem[1] for problem in seen(preview)[1])
    lion = preview.state["cards"]["deck/lion"]["faces"][0]["image"]  # drawn anew, not the old picture's image
    assert preview.store.get(lion).png == full.store.get(lion).png


def test_a_template_too_slow_for_the_data_once_runs_again_after_the_edit(tmp_path, monkeypatch):
    """A template that ran out of time on the lion is not run again in that check; after an edit that makes
    it quick, the next refresh runs it again and shows what a fresh check shows (no error)."""
    monkeypatch.setattr("pnp.template.SECONDS_PER_EVALUATION", 0.05)
    slow = "{% for i in range(100000 if card.power > 3 else 0) %}{% for j in range(1000) %}{% endfor %}{% endfor %}"
    root = make_project(tmp_path / "proj", case={"replace": {"layouts/mini/card.yaml": [[
        'text: "{{ card.id }}"', f'text: "{slow}{{{{ card.id }}}}"']]}})
    preview = Preview(find(root), "mini")
    preview.refresh()
    assert any("took longer than" in problem[1] for problem in seen(preview)[1])
    edit(root, CARDS, "  power: 4\n", "  power: 2\n")
    preview.refresh()
    assert seen(preview) == seen_fresh(root) and seen(preview)[1] == []


def test_a_font_file_replaced_while_the_preview_runs_is_drawn_anew(tmp_path):
    """The project's Body font files replaced by another font's (fonts.yaml unchanged): the lion's face is
    drawn as in a project that had the other font from the start, not with the font registered before."""
    import shutil

    from pnp.project import BUILTIN_FONTS

    def replaced(root):
        for style in ("Regular", "Bold", "It", "BoldIt"):
            shutil.copy(BUILTIN_FONTS / "AveriaSerifGWF/AveriaSerifGWF-Regular.ttf",
                        root / f"fonts/SourceSansPro/SourceSansPro-{style}.ttf")

    def lion(preview):
        return preview.store.get(preview.state["cards"]["deck/lion"]["faces"][0]["image"]).png

    roots = [make_project(tmp_path / name) for name in ("edited", "other")]
    for root in roots:
        shutil.copytree(BUILTIN_FONTS, root / "fonts")
    replaced(roots[1])
    preview = Preview(find(roots[0]), "mini")
    preview.refresh()
    before = lion(preview)
    replaced(roots[0])
    preview.refresh()
    other = Preview(find(roots[1]), "mini")
    other.refresh()
    assert lion(preview) == lion(other) != before


def test_an_edit_within_one_card_parses_that_card_alone(game, monkeypatch):
    """A save that changes one card's lines (as many lines) parses that card's lines alone (model/load.py
    ParsedFiles._spliced); what the page shows is what a new preview shows, whose files are parsed whole."""
    from pnp.model import load

    def seen_parsed_whole() -> tuple:
        kept = load.PARSED
        try:
            load.PARSED = load.ParsedFiles()
            return seen_fresh(game)
        finally:
            load.PARSED = kept

    monkeypatch.setattr(load, "PARSED", load.ParsedFiles())  # (no parse of another test's files with these bytes)
    preview = Preview(find(game), "mini")
    preview.refresh()
    for old, new, spliced in [("  power: 3\n", "  power: 4\n", 1),  # a number on lion's card
                              ("text: \"Roars :star: loudly.\"", "text: \"Roars :nope: loudly.\"", 1),  # an unknown icon
                              ("- id: wolf\n  name: Wolf\n", "- id: wolf\n  name: Wolf\n  text: Howls.\n", 0)]:  # a line more
        edit(game, CARDS, old, new)
        before = load.PARSED.spliced
        preview.refresh()
        assert load.PARSED.spliced - before == spliced, (old, new)
        assert seen(preview) == seen_parsed_whole(), (old, new)


def test_a_layout_made_a_link_out_of_the_project_then_a_file_again_is_shown_as_a_fresh_preview_shows_it(tmp_path):
    """The refusal of a layout that leads outside is the answer of its file, not of the data: the file made
    ordinary again takes the message away (it stayed at the component's line until the preview restarted)."""
    root = make_project(tmp_path / "proj")
    layout = root / "layouts/mini/card.yaml"
    text = layout.read_bytes()
    (tmp_path / "elsewhere.yaml").write_bytes(text)
    preview = Preview(find(root), "mini")
    preview.refresh()
    layout.unlink()
    layout.symlink_to(tmp_path / "elsewhere.yaml")
    preview.refresh()
    assert any("outside the project" in p["message"] for p in preview.state["problems"])
    layout.unlink()
    _write(layout, text)
    preview.refresh()
    assert seen(preview) == seen_fresh(root) and preview.state["status"] == "ok"


@pytest.mark.parametrize("before, after", [
    ({1: "a"}, {True: "a"}),  # equal keys that print otherwise
    ({0.0: 1}, {-0.0: 1}),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}),  # equal mappings printed in another order
])
def test_mappings_that_print_otherwise_are_not_the_same_value(before, after):
    """A derived field's value turning from {1: 'a'} to {True: 'a'} (equal) was taken as unchanged: the preview
    kept the face printing it as it was before the edit, and a fresh preview printed the other."""
    from pnp.model.load import Record
    from pnp.model.reads import same

    assert not same(before, after) and same(before, dict(before))
    assert not same(Record(before), Record(after)) and same(Record(before), Record(dict(before)))
