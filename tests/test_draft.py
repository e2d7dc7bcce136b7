"""Draft builds: a card with an error is drawn marked with its messages and every other card as usual, in
files named '-draft'; a plain build still refuses, and a proof of other cards is not blocked by it."""

import re

import pytest

from conftest import DATA, make_project, run
from pdfread import page_texts

LONG = "Roars and roars. " * 40


@pytest.fixture
def broken(tmp_path):
    """The mini game with the lion's text too long for its box and the wolf's power not a number."""
    cards = (DATA / "base/cards/mini/cards.yaml").read_text(encoding="utf-8")
    cards = cards.replace('text: "Roars :star: loudly."', f'text: "{LONG}"').replace("power: 3", "power: lots")
    return make_project(tmp_path / "proj", {"cards/mini/cards.yaml": cards})


def test_a_plain_build_refuses_and_a_draft_draws_every_card_marking_the_broken_ones(broken):
    refused = run(broken, "build")
    assert refused.exit_code == 1 and not (broken / "output/mini/mini-a4.pdf").exists()
    draft = run(broken, "build", "--draft")
    assert draft.exit_code == 1, draft.output  # errors remain errors
    assert "mini: DRAFT, not for print (2 items marked with errors)" in draft.stdout
    assert "cards/mini/cards.yaml:" in draft.stderr and "power" in draft.stderr
    pdf = broken / "output/mini/mini-cards-a4-draft.pdf"
    text = " ".join(page_texts(pdf))
    for name in ("lion", "fern", "wolf", "moss"):  # every card is in the draft
        assert name in text, name
    assert text.count("DRAFT: ") == 4  # the lion and the wolf, front and back, each face marked once
    assert "DRAFT: text is about" in text and "DRAFT: power: expected a" in text  # data errors first
    assert "DRAFT, not for print · Mini" in text  # every sheet's footer says so
    assert not (broken / "output/mini/mini-a4.pdf").exists()  # never under a print-ready kit's name
    assert (broken / "output/mini/manifest-draft.json").is_file()


def test_a_proof_of_other_cards_is_not_blocked_and_one_holding_a_broken_card_is_a_draft(broken):
    clean = run(broken, "build", "--only", "card.id in ['fern', 'moss']")
    assert clean.exit_code == 1 and "selection of 2 items" in clean.stdout  # the errors are still said
    proof = re.search(r"pages? in (\S+/mini-selection-[0-9a-f]{8}-a4\.pdf)", clean.stdout)
    assert proof and "DRAFT" not in " ".join(page_texts(broken / proof[1]))
    marked = run(broken, "build", "--only", "card.id in ['fern', 'lion']")
    proof = re.search(r"pages? in (\S+/mini-selection-[0-9a-f]{8}-a4-draft\.pdf)", marked.stdout)
    assert proof and "DRAFT: text is about" in " ".join(page_texts(broken / proof[1]))


def test_a_drafts_reprint_marks_its_broken_cards_as_the_draft_kit_does(broken):
    """`build --draft --changed-since` drew the changed cards of the draft's reprint unmarked: the wolf with
    power 'lots' looked print-ready there while the draft kit marked it."""
    before = broken.parent / "before.json"
    run(broken, "build", "--draft")
    before.write_bytes((broken / "output/mini/manifest-draft.json").read_bytes())
    cards = broken / "cards/mini/cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("power: lots", "power: heaps"), encoding="utf-8")
    result = run(broken, "build", "--draft", "--changed-since", str(before))
    reprint = re.search(r"pages? in (\S+/mini-reprint-[0-9a-f]{8}-a4-draft\.pdf)", result.stdout)
    assert reprint, result.output
    text = " ".join(page_texts(broken / reprint[1]))
    assert "wolf" in text.lower() and "DRAFT: power: expected a" in text


def test_a_draft_of_a_game_without_errors_is_the_kit_under_draft_names(tmp_path):
    root = make_project(tmp_path / "proj")
    result = run(root, "build", "--draft")
    assert result.exit_code == 0 and "0 items marked" in result.stdout
    assert "DRAFT: " not in " ".join(page_texts(root / "output/mini/mini-cards-a4-draft.pdf"))


def test_missing_art_is_a_placeholder_in_a_draft_and_an_error_for_print(tmp_path):
    card = (DATA / "base/layouts/mini/card.yaml").read_text(encoding="utf-8")
    card += '  - {type: image, src: "art/{{ card.id }}.png", x: 5, y: 45, w: 53, h: 30}\n'
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    assert run(root, "build").exit_code == 1
    draft = run(root, "build", "--draft")
    assert "4 items marked" in draft.stdout, draft.output
    text = " ".join(page_texts(root / "output/mini/mini-cards-a4-draft.pdf"))
    for name in ("lion", "fern", "wolf", "moss"):
        assert f"missing: art/{name}.png" in text, name



@pytest.mark.parametrize("broken_power", [True, False])
def test_validate_json_gives_each_message_with_its_place_kind_and_card(tmp_path, broken_power):
    """`pnp validate --json`: the same problems as the lines, as fields a program reads (no message parsing):
    a data error (checking stops there), and text too long for its box on the lion (item 0 of the `deck` component)."""
    import json

    cards = (DATA / "base/cards/mini/cards.yaml").read_text(encoding="utf-8")
    cards = cards.replace("power: 3", "power: lots") if broken_power else \
        cards.replace('text: "Roars :star: loudly."', f'text: "{LONG}"')
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": cards})
    lines = run(root, "validate")
    data = json.loads(run(root, "validate", "--json").stdout)
    printed = [line for line in lines.stderr.splitlines() if ": error: " in line or ": warning: " in line]
    assert len(data["diagnostics"]) == len(printed) == 1 and data["errors"] == 1 and not data["ok"]
    (d,) = data["diagnostics"]
    assert printed[0] == f"{d['file']}:{d['line']}:{d['col']}: {d['severity']}: {d['message']}"
    assert lines.stderr.splitlines()[-1].endswith("1 error")
    if broken_power:
        assert d["file"] == "cards/mini/cards.yaml" and d["code"] == "data" and "power" in d["message"]
    else:
        assert d["code"] == "print" and d["item"] == {"component": "deck", "index": 0}, d


def test_a_drafts_manifest_says_its_marked_faces_apart_from_the_fixed_ones(tmp_path):
    """A draft's face marked with an error fixed elsewhere (an icon game.yaml forgot) shows what the fixed one
    does not: compared with the draft's manifest, it is changed; the real build's manifest is another file,
    which the draft leaves alone, and its change report is unaffected."""
    root = make_project(tmp_path / "proj")
    assert run(root, "build").exit_code == 0
    real = (root / "output/mini/manifest.json").read_bytes()
    game = root / "cards/mini/game.yaml"
    fixed = game.read_text(encoding="utf-8")
    game.write_text(fixed.replace("star: round-star", "starry: round-star"), encoding="utf-8")
    draft = run(root, "build", "--draft")
    assert "(1 item marked with errors)" in draft.stdout, draft.output
    assert (root / "output/mini/manifest.json").read_bytes() == real
    game.write_text(fixed, encoding="utf-8")
    since_draft = run(root, "changes", "--since", str(root / "output/mini/manifest-draft.json"))
    assert since_draft.exit_code == 0 and "changed  deck lion  (front: look; back: look)" in since_draft.stdout, since_draft.output
    assert "fern" not in since_draft.stdout
    since_real = run(root, "changes")
    assert since_real.exit_code == 0 and "nothing changed since output/mini/manifest.json" in since_real.stdout
