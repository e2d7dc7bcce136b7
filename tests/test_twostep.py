"""The preview's refresh in two steps: a data edit brings the page the edited card first (its image as a
fresh preview draws it, the status saying the rest is being checked), then the whole game, whose final state is
a fresh preview's; a newer save waiting leaves the whole game's work off, and the next refresh is whole."""

from conftest import make_project
from pnp.project import Project
from pnp.serve.preview import Preview

BOARD_READS_TEXTS = """size: [400mm, 300mm]
elements:
  - {type: rect, x: 0, y: 0, w: 400, h: 300, fill: "#ddeeff"}
  - {type: text, x: 10, y: 10, w: 300, h: 20, size: 24, text: "{{ data.cards | map(attribute='text') | join(', ') }}"}
"""


def _preview(tmp_path):
    root = make_project(tmp_path / "proj", {"layouts/mini/board.yaml": BOARD_READS_TEXTS})
    preview = Preview(Project(root.resolve()), "mini")
    preview.refresh()
    assert preview.state["status"] == "ok", preview.state["problems"]
    return root, preview


def _images(preview, state):
    """(card key, side) -> the bytes of its image as the state shows it."""
    return {(key, f["side"]): preview.store.get(f["image"]).png if f["image"] else None
            for key, card in state["cards"].items() for f in card["faces"]}


def _shown(preview, state):
    """What the page shows: every image's bytes, the cards' entries but for their image names, the messages."""
    cards = {key: {**card, "faces": [{**f, "image": None} for f in card["faces"]]} for key, card in state["cards"].items()}
    rest = {k: v for k, v in state.items() if k not in ("generation", "seconds", "cards")}
    return _images(preview, state), cards, rest


def _edit(root, old, new):
    cards = root / "cards/mini/cards.yaml"
    cards.write_text(cards.read_text().replace(old, new, 1))


def test_a_data_edit_shows_the_edited_card_first_then_what_a_fresh_preview_shows(tmp_path):
    root, preview = _preview(tmp_path)
    before = _images(preview, preview.state)
    _edit(root, "Roars :star: loudly.", "Roars :star: softly, and not for long.")
    firsts = []
    final = preview.refresh(lambda state: firsts.append((state, _images(preview, state))))

    fresh = Preview(preview.project, "mini")
    fresh.refresh()
    fresh_images = _images(fresh, fresh.state)
    [(first, shown)] = firsts
    assert first["status"] == "checking" and first["generation"] < final["generation"]
    assert shown[("deck/lion", "front")] == fresh_images[("deck/lion", "front")] != before[("deck/lion", "front")]
    assert shown[("board/#1", "front")] == before[("board/#1", "front")]  # reads every card: the second step's
    assert shown[("board/#1", "front")] != fresh_images[("board/#1", "front")]
    assert final["status"] == "ok"
    assert _shown(preview, final) == _shown(fresh, fresh.state)


def test_an_edit_that_overflows_its_card_says_it_in_the_first_step_at_its_line(tmp_path):
    root, preview = _preview(tmp_path)
    _edit(root, "Roars :star: loudly.", "Roars all night " * 40)
    firsts = []
    final = preview.refresh(firsts.append)
    [first] = firsts
    said = [p for p in first["problems"] if "text is about" in p["message"]]
    line = next(n for n, text in enumerate((root / "cards/mini/cards.yaml").read_text().splitlines(), 1)
                if "Roars all night" in text)
    assert first["status"] == "checking" and [(p["card"], p["where"]["line"]) for p in said] == [("deck/lion", line)]
    fresh = Preview(preview.project, "mini")
    fresh.refresh()
    assert final["status"] == "errors" and _shown(preview, final) == _shown(fresh, fresh.state)


def test_a_newer_save_leaves_the_whole_game_off_and_the_next_refresh_is_whole(tmp_path):
    root, preview = _preview(tmp_path)
    _edit(root, "Roars :star: loudly.", "Roars :star: softly.")
    firsts = []
    left = preview.refresh(firsts.append, newer=lambda: True)
    assert left is firsts[0] and left["status"] == "checking"
    _edit(root, "power: 3", "power: 5")  # the wolf, saved while the lion's edit was checked
    final = preview.refresh(firsts.append)
    assert len(firsts) == 2 and final["status"] == "ok"
    fresh = Preview(preview.project, "mini")
    fresh.refresh()
    assert _shown(preview, final) == _shown(fresh, fresh.state)


FERN = "- id: fern\n  name: Fern\n  kind: plant\n  power: 1\n  friend: lion\n"


def test_edits_that_stop_the_check_give_in_two_steps_what_they_give_in_one(tmp_path):
    """A card added (the deck's count and constraints fail: the game is shown stale), a value of the wrong
    type, then both undone: each state of the two-step preview is the one-step preview's."""
    edits = [(FERN, ""), ("power: 3", "power: many"), ("", FERN), ("power: many", "power: 3")]
    shown = []
    for two in (True, False):
        root, preview = _preview(tmp_path / str(two))
        for old, new in edits:
            if old:
                _edit(root, old, new)
            else:  # put back where it was
                cards = root / "cards/mini/cards.yaml"
                cards.write_text(cards.read_text().replace("- id: wolf", new + "- id: wolf", 1))
            state = preview.refresh(lambda state: None) if two else preview.refresh()
            shown.append((state["status"], _shown(preview, state)))
    assert [status for status, _ in shown[:len(edits)]] == ["stale", "stale", "stale", "ok"]
    assert shown[:len(edits)] == shown[len(edits):]


def test_a_float_edited_to_one_that_equals_it_but_prints_otherwise_is_an_edit(tmp_path):
    """-0.0 equals 0.0 and NaN equals nothing: a value's text says whether it changed, as a fresh preview reads it."""
    root, preview = _preview(tmp_path)
    for value in ("-0.0", "0.0", ".nan", ".nan", "1.0"):
        cards = root / "cards/mini/cards.yaml"
        lines = cards.read_text().splitlines(keepends=True)
        lines[4] = f"  text: {value}\n"
        cards.write_text("".join(lines))
        state = preview.refresh(lambda state: None)
        fresh = Preview(preview.project, "mini")
        fresh.refresh()
        assert state["problems"] == fresh.state["problems"] and state["problems"], value


BEASTS = "  - {id: beasts, name: Beasts, kind: deck, items: cards, filter: \"item.kind == 'beast'\", layout: card, back: back}\n"


def test_an_edit_taking_a_card_out_of_a_filtered_component_shows_no_first_step_still_holding_it(tmp_path):
    """The lion stops being a beast: no state shows it among the beasts, as a fresh preview does not."""
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [["    layout: board\n",
                                                                                         "    layout: board\n" + BEASTS]]}})
    preview = Preview(Project(root.resolve()), "mini")
    preview.refresh()
    _edit(root, "kind: beast", "kind: plant")
    states = []
    final = preview.refresh(states.append)
    fresh = Preview(preview.project, "mini")
    fresh.refresh()
    beasts = [entry["cards"] for state in [*states, final, fresh.state] for entry in state["components"]
              if entry["id"] == "beasts"]
    assert beasts == [["beasts/wolf"]] * (len(states) + 2)
    assert _shown(preview, final) == _shown(fresh, fresh.state)
    _edit(root, "name: Wolf", "name: Wolfie")  # an edit within the members: the first step still comes
    assert preview.refresh(states.append)["status"] == "ok" and states[-1]["status"] == "checking"


def test_an_icon_alias_pointed_at_another_icon_redraws_the_faces_that_show_it(tmp_path):
    """A face's primitives say `star`; which picture that is, game.yaml's `icons:` says: pointed at another
    icon, the page showed the old picture (with status ok) until the preview restarted."""
    root, preview = _preview(tmp_path)
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text().replace("  star: round-star\n", "  star: ammonite\n", 1))
    final = preview.refresh(lambda state: None)
    fresh = Preview(preview.project, "mini")
    fresh.refresh()
    assert final["status"] == "ok" and _shown(preview, final) == _shown(fresh, fresh.state)
