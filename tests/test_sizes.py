"""Named sizes: every size of the one table prints at its millimetres (read back from the crop marks), and
imposition turns cards a quarter round where more of them fit the paper, backs standing behind fronts."""

import pytest

from conftest import run
from pdfread import MM, drawn, page_geometry, read
from pnp.units import NAMED_SIZES

FRONT = """size: {size}
elements:
  - {{type: rect, bleed: true, fill: "#dddddd"}}
  - {{type: text, x: 4, y: 4, w: 30, h: 8, text: "{{{{ card.id }}}}", size: 8}}
"""
BACK = """size: {size}
elements:
  - {{type: rect, bleed: true, fill: "#224422"}}
  - {{type: text, x: 4, y: 4, w: 30, h: 8, text: "back of {{{{ card.id }}}}", size: 8, color: "#ffffff"}}
"""


def _sized(project, size):
    (project / "layouts/mini/card.yaml").write_text(FRONT.format(size=size), encoding="utf-8")
    (project / "layouts/mini/back.yaml").write_text(BACK.format(size=size), encoding="utf-8")
    result = run(project, "build", "mini")
    assert result.exit_code == 0, result.output
    return read(project / "output/mini/mini-cards-a4.pdf").pages


def _cuts(page):
    """The cut lines the crop marks point along: x of the vertical marks, y of the horizontal ones."""
    segments, _ = page_geometry(page)
    xs = sorted({round(a[0], 2) for a, b in segments if abs(a[0] - b[0]) < 0.01})
    ys = sorted({round(a[1], 2) for a, b in segments if abs(a[1] - b[1]) < 0.01})
    return xs, ys


def _pitch(values):
    return min(b - a for a, b in zip(values, values[1:]))


@pytest.mark.parametrize("name", list(NAMED_SIZES))
def test_every_named_size_prints_at_its_millimetres(project, name):
    size = NAMED_SIZES[name]
    xs, ys = _cuts(_sized(project, name)[0])
    across, up = _pitch(xs) / MM, _pitch(ys) / MM
    assert sorted((across, up)) == pytest.approx(sorted((size.w, size.h)), abs=0.1)


def test_cards_are_turned_where_more_fit_and_backs_stand_behind_fronts(project):
    # business cards (50.8 x 88.9 mm): 3 x 3 upright on A4, 2 x 5 turned; the mini deck has 4 cards
    pages = _sized(project, "business")
    xs, ys = _cuts(pages[0])
    assert _pitch(xs) / MM == pytest.approx(88.9, abs=0.1) and _pitch(ys) / MM == pytest.approx(50.8, abs=0.1)
    fronts, backs = _directions(pages[0]), _directions(pages[1])
    assert set(fronts) == {"lion", "wolf", "fern", "moss"}
    assert all(d == (0, 1) for d, _ in fronts.values())  # a front lies with its top to the left: text runs up
    assert all(d == (0, -1) for d, _ in backs.values())  # its back, top to the right: text runs down
    for card, (_, (x, y)) in fronts.items():  # each back behind its front once the page is flipped
        _, (bx, by) = backs[f"back of {card}"]
        assert by == pytest.approx(y, abs=60 * MM) and abs((bx + x) - float(pages[0].mediabox[2])) < 60 * MM


def _directions(page):
    """{text: ((dx, dy) its baseline runs in, (x, y))} of the cards' strings on a page (forms entered)."""
    found = {}
    for event in drawn(page):
        if event[0] == "text" and "Mini Game" not in event[1]:
            m = event[4]
            norm = max(abs(m[0]), abs(m[1]))
            found[event[1]] = ((round(m[0] / norm), round(m[1] / norm)), (event[2], event[3]))
    return found
