"""An element's primitives are made once per distinct values it reads of its item and shared by the items
reading the same (layout/resolve.py): what every shipped game's printables resolve to is what each resolves
to alone."""

import pytest

from conftest import REPO, counted_calls
from pnp.check import validate
from pnp.layout.resolve import Resolver
from pnp.model.game import load_game
from pnp.printables import Studio
from pnp.products import component_keys
from pnp.project import find
from pnp.report import Report

GAMES = find(REPO).games()


@pytest.mark.parametrize("game", GAMES)
def test_shared_primitives_are_each_items_own(game):
    """The game loaded, not validated: the resolving compared is the same, and validating the whole game (its
    rules, every face's fit) took three quarters of the time (DinoSpan's and Dino Ranch's 4 s)."""
    project = find(REPO)
    report = Report(project.root)
    studio = Studio(load_game(project, game, report, component_keys()))
    assert not report.errors
    layouts = studio.layouts
    compared = 0
    for p in studio.printables():
        if p.item is None or p.extra:
            continue
        prims = studio.resolve(p)
        alone = Resolver(layouts.get(p.layout), layouts, layouts.context).resolve(p.item)  # a new one shares nothing
        assert prims == alone, p.label
        compared += 1
    assert compared


def test_an_item_told_apart_by_identity_gets_its_own_primitives(tmp_path):
    """The last three cards have the same text; an element marks the second by identity, which no read of
    the item shows: the cards sharing its text must not get its mark."""
    from conftest import make_project

    make_project(tmp_path, case={"replace": {"layouts/mini/card.yaml": [[
        'text: "{{ card.text }}"', 'text: "{{ card.text }}{% if card is sameas data.cards[1] %} MARKED{% endif %}"']]}})
    project = find(tmp_path)
    report = Report(project.root)
    studio = Studio(load_game(project, "mini", report, component_keys()))
    fronts = [p for p in studio.printables() if p.side == "front" and p.item is not None]
    marked = ["MARKED" in " ".join(prim.text for prim in studio.resolve(p)) for p in fronts]
    assert marked == [False, True, False, False], marked


@pytest.mark.parametrize("template", ["{{ [card] == [data.cards[1]] }}",  # a list compares its entries by identity first
                                      "{{ card }}"])  # not a field: it prints the item whole
def test_an_item_used_itself_gets_its_own_primitives(tmp_path, template):
    """An element using its item itself rather than a field of it reads nothing that tells one item from
    another: every front must show what that front alone resolves to."""
    from conftest import make_project

    make_project(tmp_path, case={"replace": {"layouts/mini/card.yaml": [[
        'text: "{{ card.id }}"', f'text: "{template}"']]}})
    project = find(tmp_path)
    report = Report(project.root)
    _, studio = validate(project, "mini", report)
    layouts = studio.layouts
    fronts = [p for p in studio.printables() if p.side == "front" and p.item is not None]
    texts = [[prim.text for prim in studio.resolve(p) if prim.kind == "text"][0] for p in fronts]
    alone = [[prim.text for prim in Resolver(layouts.get(p.layout), layouts, layouts.context).resolve(p.item)
              if prim.kind == "text"][0] for p in fronts]
    assert texts == alone and len(set(texts)) > 1, texts


def test_a_long_text_an_alias_repeats_on_many_items_is_digested_once(monkeypatch):
    # an item's digest wrote its data out as JSON and digested it whole, on each item: a text of 950,000
    # characters an alias repeats on 5,000 cards took 38 s of a build
    from pnp import printables
    hashed = counted_calls(monkeypatch, printables, "hashlib", "sha256", len)
    printables._text_digest.cache_clear()
    text = "a long text, the same on every card " * 1000
    digests = {printables._digest_of({"id": f"c{i}", "text": text}) for i in range(50)}
    assert len(digests) == 50
    assert sum(hashed) < len(text) + 50 * 200  # the text once, then each item's short stand-in
    # no text stands for another: a long text, its stand-in written out, and another long text
    stand_in = printables._text_digest(text)
    assert len({printables._digest_of({"t": t}) for t in (text, stand_in, text + "!")}) == 3


def test_a_components_faces_are_listed_in_steps_linear_in_its_items(monkeypatch):
    """Whether a side's faces use several layouts was worked out again for every face, over every face: a deck
    of 5,000 counters took 25 million steps in every validate. Here each read of a face's layout is counted."""
    from pnp.products import base

    reads: list[int] = []

    class Counted(base.Printable):
        def __getattribute__(self, name: str):
            if name == "layout":
                reads.append(1)
            return object.__getattribute__(self, name)

    monkeypatch.setattr(base, "Printable", Counted)
    project = find(REPO)
    report = Report(project.root)
    studio = Studio(load_game(project, "diamonds-and-dinosaurs", report, component_keys()))
    component = max(studio.game.components, key=lambda c: len(c.items or []))  # its deck: 52 cards, 104 faces
    faces = studio.kind(component).printables(component, studio)
    assert len(faces) >= 100
    assert len(reads) <= 3 * len(faces), (len(reads), len(faces))
