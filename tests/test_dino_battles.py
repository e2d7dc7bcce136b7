"""Biomechanic Dino Battles: the rules model and the balance check catch a designer's mistakes, with file:line.

Each test copies the shipped game into a throw-away project, makes one realistic mistake in its data and
checks the message `pnp validate` prints and the line it points at.
"""

from conftest import run
from test_game_rules import edit_match, errors, find, shipped

GAME = "dino-battles"
DINOS = "cards/dino-battles/dinosaurs.yaml"


def edit_in_block(root, rel, block, old, new):
    """Replace the first `old` line after `block` (e.g. '- id: voltaraptor') in a data file; returns its line."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    at = text.index(old, text.index(block))
    path.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    return text.count("\n", 0, at) + 1


def test_shipped_pool_is_valid_and_balanced(tmp_path):
    root = shipped(tmp_path, GAME)
    result = run(root, "validate", GAME)
    assert result.exit_code == 0, result.output
    assert "error" not in result.output


def test_hp_not_a_multiple_of_five(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit_in_block(root, DINOS, "- id: voltaraptor", "  hp: 35", "  hp: 37")
    lines = errors(root, GAME)
    find(lines, f"{DINOS}:{line}:", "Voltaraptor: HP 37 is not a multiple of 5")


def test_unknown_keyword(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit_match(root, DINOS, r"keywords: \[spiked\]", "keywords: [spikey]")
    lines = errors(root, GAME)
    find(lines, f"{DINOS}:{line}:", "'spikey' is not one of spiked, immune-poison, immune-paralyze")


def test_starter_deck_of_eleven(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit_in_block(root, "cards/dino-battles/basics.yaml", "- id: wound", "  starter: 3", "  starter: 2")
    lines = errors(root, GAME)
    find(lines, f"cards/dino-battles/basics.yaml:{line}:",
         "a starter deck holds 3 Wound, not 2: that makes each starter deck 11 cards instead of 12")
    find(lines, "cards/dino-battles/game.yaml:", "component 'starter-decks' says count 48 but the data gives 44")


def test_overpowered_dinosaur_outside_the_band(tmp_path):
    root = shipped(tmp_path, GAME)
    # a typo: Ferro-Rex's big bite does 50 instead of 30
    edit_match(root, DINOS, r"\{name: Hydraulic Bite, cost: \[attack, attack\], damage: 30\}",
               "{name: Hydraulic Bite, cost: [attack, attack], damage: 50}")
    text = (root / DINOS).read_text()
    line = text.count("\n", 0, text.index("  cost: 6", text.index("- id: ferro-rex"))) + 1
    lines = errors(root, GAME)
    find(lines, f"{DINOS}:{line}:", "Ferro-Rex: power 8.50 is outside the band 5.25–6.75 for cost 6 (overpowered)")


def test_useless_strategy_outside_the_band(tmp_path):
    root = shipped(tmp_path, GAME)
    line = edit_match(root, "cards/dino-battles/strategies.yaml",
                      r"name: Overclock, cost: 2, copies: 6, bonuses: \{draw: 2\}",
                      "name: Overclock, cost: 4, copies: 6, bonuses: {draw: 2}")
    lines = errors(root, GAME)
    find(lines, f"cards/dino-battles/strategies.yaml:{line}:",
         "Overclock: power 2.00 is outside the band 3.25–4.75 for cost 4 (too weak)")
