"""The preview keeps what each layout element resolved to between refreshes (layout/resolve.py KeptElements) and
re-checks a rulebook's pictures and a tuck box only when a pictured or boxed layout's size changes
(LayoutSet.size): a layout edit
resolves again only the elements it changed or whose reads changed, and the page shows what a fresh preview
shows, image for image and message for message."""

from collections import Counter

import pytest

from conftest import make_project
from test_incremental import _gallery as _page  # what the page shows: images, messages, status
from pnp.layout import resolve
from pnp.project import Project
from pnp.serve.preview import Preview

# an element reading another item (the card's friend's name): kept while that item's name is the same
FRIEND = ('  - {type: icon, icon: star, x: 25, y: 50, w: 13, h: 13, when: card.strong}\n',
          '  - {type: icon, icon: star, x: 25, y: 50, w: 13, h: 13, when: card.strong}\n'
          '  - {type: text, x: 5, y: 70, w: 53, h: 10, size: 9, '
          'text: "{{ ref.cards[card.friend].name if card.friend else \'\' }}"}\n')
WOLF_OVERFLOWS = ("power: 3\n", "power: 3\n  text: \"" + "howls all night " * 40 + "\"\n")
A_BOX = ("    layout: board\n", "    layout: board\n  - {id: box, name: Card box, kind: tuckbox, deck: deck}\n")


@pytest.fixture
def preview(tmp_path, monkeypatch):
    """A preview of the mini game whose card layout also prints the friend's name, the wolf's text too long,
    with a tuck box for the deck;
    `preview.made` counts the elements resolved by the last refresh, by their line in card.yaml."""
    root = make_project(tmp_path / "proj", case={"replace": {"layouts/mini/card.yaml": [FRIEND],
                                                            "cards/mini/cards.yaml": [WOLF_OVERFLOWS],
                                                            "cards/mini/game.yaml": [A_BOX]}})
    shown = Preview(Project(root.resolve()), "mini")
    made: Counter = Counter()
    prims = resolve.Resolver._prims

    def counted(self, el, *args, **kwargs):
        if el.mark is not None and el.mark.file.endswith("card.yaml"):
            made[el.mark.line] += 1
        return prims(self, el, *args, **kwargs)

    monkeypatch.setattr(resolve.Resolver, "_prims", counted)
    shown.made = made
    shown.refresh()
    assert made[3] == 1 and made[4] == 4  # the rect reads nothing of its item: made once; the id, per card
    return shown


def _edit(preview, rel, old, new):
    path = preview.project.root / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _refreshed(preview):
    preview.made.clear()
    preview.refresh()
    return dict(preview.made)


def _fresh(preview):
    fresh = Preview(preview.project, "mini")
    fresh.refresh()
    return _page(fresh)


def test_a_colour_edit_resolves_that_element_alone_and_the_page_equals_a_fresh_one(preview):
    _edit(preview, "layouts/mini/card.yaml", 'fill: "#eeeeee"', 'fill: "#ddeeff"')
    assert _refreshed(preview) == {3: 1}  # the rect (made once for all); every other element was kept
    assert preview.drawn >= 4 and preview.state["status"] == "errors"  # the wolf's overflow, said again
    assert _page(preview) == _fresh(preview)


def test_an_elements_edit_resolves_exactly_that_element_again(preview):
    _edit(preview, "layouts/mini/card.yaml", "size: 10, min_size: 7", "size: 9, min_size: 7")
    # the text element (once per distinct text: two cards have none) and the rect (made once for all cards)
    assert _refreshed(preview) == {3: 1, 5: 3}
    assert _page(preview) == _fresh(preview)


def test_a_line_moved_makes_its_elements_again_to_carry_the_new_line(preview):
    _edit(preview, "layouts/mini/card.yaml", "size: poker\n", "size: poker\n# a note\n")
    # every element again, as in a first refresh: their primitives carry their line
    assert _refreshed(preview) == {4: 1, 5: 4, 6: 3, 7: 2, 8: 2}
    assert _page(preview) == _fresh(preview)
    lines = {prim.mark.line for studio, face in preview._sources.values() if face.printable.layout == "card"
             for prim in studio.resolve(face.printable) if prim.mark is not None}
    assert lines and lines <= {4, 5, 6, 7, 8}  # where the drawing says its elements are (its budget, its errors)


def test_a_value_an_element_reads_of_another_item_makes_it_again(preview):
    """The fern's friend is the lion: renaming the lion in the same save as a layout edit that resolves every
    card again, the fern's friend line is made again and shows the new name."""
    _edit(preview, "layouts/mini/card.yaml", 'fill: "#eeeeee"', 'fill: "#ddeeff"')
    _edit(preview, "cards/mini/cards.yaml", "name: Lion", "name: Big Lion")
    assert _refreshed(preview) == {3: 1, 7: 1}  # the rect, and the fern's friend line alone
    page = _page(preview)
    assert page == _fresh(preview)
    assert "Big Lion" in preview.state["cards"]["deck/fern"]["faces"][0]["text"]


def test_after_a_refresh_that_could_not_print_nothing_read_elsewhere_is_trusted(preview):
    """A save with a data error goes by without printing: what changed meanwhile is not known, so an element
    reading another item is made again."""
    _edit(preview, "cards/mini/cards.yaml", "name: Lion", "name: Big Lion")
    _edit(preview, "cards/mini/cards.yaml", "power: 2", "power: many")  # the moss's
    preview.refresh()
    assert preview.state["status"] == "stale"
    _edit(preview, "cards/mini/cards.yaml", "power: many", "power: 2")
    _edit(preview, "layouts/mini/card.yaml", 'fill: "#eeeeee"', 'fill: "#ddeeff"')
    made = _refreshed(preview)
    assert made.get(7, 0) >= 1 and 4 not in made  # the friend lines again; the card's own fields kept
    assert _page(preview) == _fresh(preview)
    assert "Big Lion" in preview.state["cards"]["deck/fern"]["faces"][0]["text"]


def test_the_rulebook_and_a_tuck_box_are_checked_again_only_when_the_cards_size_changes(preview):
    """The rulebook pictures a card, the tuck box holds the cards: of the card's layout, both read its size."""
    _edit(preview, "layouts/mini/card.yaml", 'fill: "#eeeeee"', 'fill: "#ddeeff"')
    preview.refresh()
    assert {("check", "rulebook"), ("check", "box")}.isdisjoint(preview.memo.fields.computed)
    _edit(preview, "layouts/mini/card.yaml", "size: poker", "size: bridge")
    preview.refresh()
    assert {("check", "rulebook"), ("check", "box")} <= set(preview.memo.fields.computed)
    assert any("not all one size" in p["message"] for p in preview.state["problems"])  # the back is poker
    assert _page(preview) == _fresh(preview)
