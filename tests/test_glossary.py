"""Every rule said once: each glossary definition's wording is in exactly one place of a game's data and
layouts (cards, aids and rulebooks print it from there), and a [[Term]] prints as the term in bold."""

import json
import re

import pytest

from conftest import REPO
from pnp.draw.text import parse
from pnp.model.game import load_game
from pnp.project import find
from pnp.report import Report

PROJECT = find(REPO)
GLOSSARY_GAMES = [g for g in PROJECT.games() if "\nglossary:" in (REPO / "cards" / g / "game.yaml").read_text()]


def _sentences(text):
    """The definition's sentences long enough to be a rule said in words (five words or more)."""
    plain = re.sub(r"\[\[([^\]]+)\]\]", r"\1", text)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", plain) if len(s.split()) >= 5]


def _written(game_id):
    """Every data and layout file of a game, as (path, text with glossary markup and runs of spaces undone)."""
    files = [*sorted((REPO / "cards" / game_id).rglob("*")), *sorted((REPO / "layouts" / game_id).rglob("*"))]
    return [(p, re.sub(r"\s+", " ", re.sub(r"\[\[([^\]]+)\]\]", r"\1", p.read_text(encoding="utf-8"))))
            for p in files if p.is_file() and p.suffix in (".yaml", ".j2", ".csv")]


def test_the_shipped_games_have_a_glossary():
    assert {"dino-battles", "dino-ranch", "dinospan", "evo", "diamonds-and-dinosaurs"} <= set(GLOSSARY_GAMES)


@pytest.mark.parametrize("game_id", GLOSSARY_GAMES)
def test_each_definition_is_written_in_exactly_one_place(game_id):
    game = load_game(PROJECT, game_id, Report())  # validation itself is test_shipped_games' job
    assert game.glossary.entries
    written = _written(game_id)
    for entry in game.glossary.entries:
        sentences = _sentences(entry["text"])
        assert sentences, f"{entry['name']}: a definition says its rule in at least one sentence"
        for sentence in sentences:
            places = [str(p.relative_to(REPO)) for p, text in written for _ in range(text.count(sentence))]
            assert len(places) == 1, f"{entry['name']}: '{sentence}' is written in {places}"


def test_a_term_prints_as_its_words_in_bold():
    runs = parse("Each [[Immune to Poison]]. is *x*")
    words = [(r.text, r.bold) for r in runs if r.kind == "text"]
    assert words[:4] == [("Each", False), ("Immune", True), ("to", True), ("Poison", True)]
    assert words[4] == (".", False)  # punctuation after a term stays with it and is not bold


def test_a_term_in_a_short_line_prints_in_bold_not_in_brackets():
    """A text that fits one line and has no other markup takes a fast path; a [[Term]] in it is still a term
    (the Battles aid printed '[[Attach]] 1 card to any of your Dinosaurs')."""
    from pnp.draw.fonts import load_fonts
    from pnp.draw.text import fit

    fitted = fit("[[Attach]] 1 card", load_fonts(PROJECT), "Body", 300, 20, 9)
    runs = [(run.text, font) for line in fitted.lines for _, run, font in line.items]
    assert runs[0][0] == "Attach" and "[" not in "".join(text for text, _ in runs)
    assert runs[0][1] != runs[-1][1]  # the term in the bold face, the rest in the regular one


# game.yaml's change that makes the table `terms` (name, text) the mini game's glossary
GLOSSARY_OF_TERMS = [["tables:\n", "glossary: terms\ntables:\n  terms:\n    fields:\n      name: {type: str}\n"
                                  "      text: {type: text}\n"]]


def _names_compared(monkeypatch) -> list[int]:
    """The number of names each suggestion's search compares a word with, as they are searched."""
    import difflib

    from pnp import report

    compared: list[int] = []

    def counted(word, choices, n=3, cutoff=0.6):
        compared.append(len(choices))
        return difflib.get_close_matches(word, choices, n=n, cutoff=cutoff)

    monkeypatch.setattr(report, "get_close_matches", counted)
    report._closest.cache_clear()
    return compared


def test_suggestions_for_a_rulebooks_unknown_terms_and_icons_are_a_bounded_work(tmp_path, monkeypatch):
    """Each unknown term or icon of the rulebook was compared with every name for a suggestion: 6,000 unknown
    terms among 3,000 ran past a minute (6,000 icons among 170, 15 s). The first are still said with one."""
    from conftest import make_project, run
    from pnp import report

    compared = _names_compared(monkeypatch)
    terms = "".join(f"- {{name: Term{i:03d}, text: Rule {i}.}}\n" for i in range(200))
    book = "# Rules\n\n" + "".join(f"Use [[Term{i:03d}x]] and :zq{i:03d}x:.\n\n" for i in range(200))
    root = make_project(tmp_path / "proj", {"cards/mini/terms.yaml": terms, "layouts/mini/rulebook.md.j2": book},
                        case={"replace": {"cards/mini/game.yaml": GLOSSARY_OF_TERMS}})
    result = run(root, "validate", "mini", "--json")  # (every message: the printed lines stop at MAX_PRINTED)
    assert result.exit_code == 1
    said = [d["message"] for d in json.loads(result.stdout)["diagnostics"]]
    assert "'[[Term000x]]' is not a term of the glossary (terms) (did you mean 'Term000'?), in the rendered " \
           "rulebook line 3" in said
    assert "'[[Term199x]]' is not a term of the glossary (terms), in the rendered rulebook line 401" in said
    assert sum(compared) <= report.MAX_COMPARED


def test_suggestions_for_the_unknown_terms_and_icons_of_card_text_are_a_bounded_work(tmp_path, monkeypatch):
    """A card's text field (checked as data when the game loads, then as printed text) compared each unknown
    term and icon with every name: 3,000 cards each naming 5 unknown icons took 17 s, 400 unknown terms among 400 compared 160,000 names. They share the rulebook's
    budget (report.Suggestions), one for the load and one for the printed texts; the first are still said
    with a suggestion."""
    from conftest import make_project, run
    from pnp import report

    compared = _names_compared(monkeypatch)
    terms = "".join(f"- {{name: Term{i:03d}, text: Rule {i}.}}\n" for i in range(400))
    text = ":zq000x: " + " ".join(f"[[Term{i:03d}x]]" for i in range(400))
    root = make_project(tmp_path / "proj", {"cards/mini/terms.yaml": terms},
                        case={"replace": {"cards/mini/game.yaml": GLOSSARY_OF_TERMS,
                                          "cards/mini/cards.yaml": [["Roars :star: loudly.", text]]}})
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert "'[[Term000x]]' is not a term of the glossary (terms) (did you mean 'Term000'?)" in result.output
    assert "unknown icon ':zq000x:'" in result.output
    assert sum(compared) <= 2 * report.MAX_COMPARED


def test_a_text_repeated_on_many_items_is_read_once_and_each_name_looked_for_once():
    # an alias repeats one text on every card: a text of 50,000 icons and terms on 5,000 cards was read anew,
    # and each name looked for, on each (minutes before a word); each unknown term is said once a text
    from pnp.model.glossary import Glossary
    from pnp.model.schema import RichText
    looked: list[str] = []

    class Checker:
        glossary = Glossary(("terms",))

        def icon_exists(self, name: str) -> bool:
            looked.append(name)
            return name == "coin"

        def unknown_terms(self, text: str) -> list[tuple[str, str]]:
            return self.glossary.unknown(text)

    text, checker = "a :coin: [[nope]] " * 2000, Checker()
    said = [list(RichText({}, {}).check(text, None, checker)) for _ in range(3)]  # type: ignore[arg-type]
    assert said[0] == said[2] and [message for message, _ in said[0]] == [
        "'[[nope]]' is not a term of the glossary (terms)"]
    assert looked == ["coin"] * 3
    assert checker.glossary.unknown(text) is checker.glossary.unknown(text)
