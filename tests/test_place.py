"""Relative placement, read back from the PDF: an element placed below a text moves down by as much as the
text grows; unknown names, circles and placements off the card are refused with file:line."""

import pytest

from conftest import run
from pdfread import drawn, read

CARD = """size: poker
elements:
  - {type: rect, x: 0, y: 0, w: 63, h: 88, bleed: true, fill: "#eeeeee"}
  - {type: text, name: title, x: 5, y: 5, w: 53, h: 10, text: "{{ card.id }}", size: 12}
  - {type: text, name: rules, below: title, gap: 2, x: 5, y: 0, w: 53, h: 40, text: "{{ card.text }}", size: 10}
  - {type: text, name: footer, below: rules, gap: 3, x: 5, y: 0, w: 53, h: 6, text: "footer of {{ card.id }}", size: 8}
  - {type: rect, below: footer, gap: 2, x: 5, w: 53, h: rest, stroke: "#ff0000"}
"""


def _footer_y(project, text):
    path = project / "cards/mini/cards.yaml"
    original = path.with_suffix(".orig")
    if not original.exists():
        original.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    cards = original.read_text(encoding="utf-8")
    assert 'text: "Roars :star: loudly."' in cards
    path.unlink()  # never written through a link into the repository's own file
    path.write_text(cards.replace('text: "Roars :star: loudly."', f"text: {text}"), encoding="utf-8")
    (project / "layouts/mini/card.yaml").write_text(CARD, encoding="utf-8")
    result = run(project, "build", "mini", "--force")
    assert result.exit_code == 0, result.output
    page = read(project / "output/mini/mini-cards-a4.pdf").pages[0]
    return next(e[3] for e in drawn(page) if e[0] == "text" and e[1] == "footer of lion")


def test_an_element_below_a_text_moves_down_as_the_text_grows(project, tmp_path):
    one = _footer_y(project, '"One line."')
    three = _footer_y(project, '"One line.\\nA second.\\nAnd a third."')
    assert one - three == pytest.approx(2 * 10 * 1.2, abs=0.05)  # two more lines of 10 pt at 1.2 leading


def _errors(project, layout):
    (project / "layouts/mini/card.yaml").write_text(layout, encoding="utf-8")
    result = run(project, "validate", "mini")
    assert result.exit_code == 1 and "Traceback" not in result.output
    return [ln for ln in result.stderr.splitlines() if ": error: " in ln]


@pytest.mark.parametrize("change, where, message", [
    (("below: title", "below: titel"), "layouts/mini/card.yaml:5:", "no element of this layout is named 'titel' "
                                                                   "(did you mean 'title'?)"),
    (("name: title, x: 5", "name: title, below: footer, x: 5"), "layouts/mini/card.yaml:", "placements go round in a circle"),
    (("below: rules, gap: 3", "below: rules, gap: 75"), "layouts/mini/card.yaml:6:", "past the card's bottom edge"),
    (("x: 5, w: 53, h: rest", "x: 5, w: 53, h: rest, bleed: true"), None, None),
    # below the safe area's bottom (3 mm up from the card's) `h: rest` drew the rectangle 0 mm tall, without a word
    (("below: footer, gap: 2, x: 5,", "x: 5, y: 87,"), "layouts/mini/card.yaml:7:", "0 mm tall"),
    # placed above the footer, the rectangle was stretched down over it and past it to the safe area (exit 0)
    (("below: footer, gap: 2, x: 5,", "above: footer, gap: 2, x: 5,"), "layouts/mini/card.yaml:7:",
     "`above` puts its bottom above another element"),
    # turned a quarter about its centre, the stretched box ran sideways past the trim (exit 0)
    (("x: 5, w: 53, h: rest", "x: 5, w: 53, h: rest, rotate: 90"), "layouts/mini/card.yaml:7:",
     "the element is turned 90 degrees"),
    (("x: 5, w: 53, h: rest", "x: 5, w: 53, h: rest, rotate: 180"), None, None),
])
def test_placements_that_cannot_be_made_are_refused_with_file_and_line(project, change, where, message):
    layout = CARD.replace(*change)
    assert layout != CARD
    if where is None:  # a valid variation: no error at all
        (project / "layouts/mini/card.yaml").write_text(layout, encoding="utf-8")
        assert run(project, "validate", "mini").exit_code == 0
        return
    found = _errors(project, layout)
    assert any(ln.startswith(where) and message in ln for ln in found), found


def test_a_chain_of_placements_longer_than_python_recurses_is_ordered_and_a_circle_said():
    """1,100 elements each placed below the next were ordered by recursion: 'a bug in pnp' (RecursionError)."""
    from pnp.layout.place import _ordered

    class Element:
        def __init__(self, name):
            self.consts, self.mark = {"name": name}, name

    chain = [Element(f"r{i}") for i in range(1101)]
    anchors = {el: [("below", chain[i + 1], 0)] for i, el in enumerate(chain[:-1])}
    problems = []
    assert _ordered(chain, anchors, problems) == chain[::-1] and problems == []
    anchors[chain[-1]] = [("below", chain[0], 0)]  # (closed into a circle: said once, at the element met again)
    assert len(_ordered(chain, anchors, problems)) == 1101
    assert problems == [(f"placements go round in a circle: {' -> '.join(f'r{i}' for i in range(1101))} -> r0", "r0")]


def test_rest_is_only_for_text_and_rectangles(project):
    found = _errors(project, CARD + "  - {type: icon, icon: star, x: 5, y: 70, w: 10, h: rest}\n")
    assert any("h: 'rest' is for text and rect elements" in ln and ln.startswith("layouts/mini/card.yaml:8:")
               for ln in found), found


TURNED = """size: poker
elements:
  - {type: rect, name: post, x: 1, y: 60, w: 30, h: 10, rotate: 90, fill: "#0000ff"}
  - {type: rect, right_of: post, y: 40, w: 60, h: 10, rotate: 90, fill: "#00ff00"}
"""


@pytest.mark.parametrize("y, message", [
    # drawn 10 mm wide and 60 tall: it fits right of the post as turned (its unturned box was measured: refused
    # as 25 mm past the right edge, and an element below a turned bar was placed over it)
    (40, None),
    # turned about its centre at y 65 it reaches y 95, past the bottom (and its bleed) by 4 mm
    (60, "layouts/mini/card.yaml:4:28: error: placed right of 'post', the element runs 4.0 mm past the card's "
         "bottom edge"),
])
def test_turned_elements_are_placed_and_checked_as_drawn(project, y, message):
    (project / "layouts/mini/card.yaml").write_text(TURNED.replace("y: 40", f"y: {y}"), encoding="utf-8")
    result = run(project, "validate", "mini")
    assert "Traceback" not in result.output
    if message is None:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1 and any(ln.startswith(message) for ln in result.stderr.splitlines()), \
            result.output


def test_a_turned_box_is_measured_by_its_turned_corners():
    from pnp.layout.place import extent
    from pnp.layout.prims import Prim

    box = extent([Prim("rect", 0, 30, 60, 10, rotate=90)])
    assert box == pytest.approx((25, 5, 35, 65))
    assert extent([Prim("rect", 0, 30, 60, 10, rotate=360)]) == pytest.approx((0, 30, 60, 40))


class _El:
    """A compiled element as placing reads it."""

    def __init__(self, **consts):
        self.consts, self.spec, self.mark = {"gap": 0.0, **consts}, {}, None

    def mark_of(self, key):
        return None


@pytest.mark.parametrize("rules_drawn, rules_placed, rules_at, top", [
    (True, True, {}, 26),  # below the rules as drawn: moved 2 below the title, they end at 22; 4 below that
    (False, True, {}, 16),  # the rules not drawn take no room where they would begin: 12 below the title, 4 below
    # the rules not drawn and placed against nothing, with no x and y of their own (a circle, or templates): the
    # footer keeps its own y, as the reference says (it said "where it would be", and a footer written without a
    # y went to the card's top)
    (False, False, {}, 70),
    # ... and with their own x and y: the footer goes 4 below where they stand (it kept its own y, 70, and one
    # written without a y went over the card's header)
    (False, False, {"x": 5.0, "y": 40.0}, 44),
    (False, True, {"x": 5.0, "y": 40.0}, 16),  # placed against the title, the rules stand past it, as before
])
def test_an_element_below_one_that_draws_nothing_goes_where_the_reference_says(rules_drawn, rules_placed, rules_at,
                                                                               top):
    from types import SimpleNamespace

    from pnp.layout.place import plan
    from pnp.layout.prims import Prim

    title = _El(name="title")
    rules = _El(name="rules", **rules_at, **({"below": "title", "gap": 2} if rules_placed else {}))
    footer = _El(below="rules", gap=4)
    placement = plan([title, rules, footer], [])
    layout = SimpleNamespace(width=63, height=88, bleed=3, safe=3)
    boxes = {}
    placement.place(title, [Prim("rect", 5, 0, 53, 10)], boxes, layout, None)
    placement.place(rules, [Prim("rect", 5, 20, 53, 10)] if rules_drawn else [], boxes, layout, None)
    prims = [Prim("rect", 5, 70, 53, 5)]
    placement.place(footer, prims, boxes, layout, None)
    assert prims[0].y == pytest.approx(top)
