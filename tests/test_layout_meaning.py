"""What layout elements mean, read back from the PDF pnp draws: directions, steps, rotation, alignment,
offsets and orientation. Each test draws a small layout with the engine and checks where things landed."""

import io
import math

import pytest
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from conftest import make_project
from pdfread import MM, drawn, read
from pnp.check import validate
from pnp.project import find
from pnp.report import Report

SIZE = 60  # mm: every probe layout is a 60 x 60 mm square


def draw(tmp_path, elements):
    """Draw the mini game's first card with `elements` as its layout; returns (events, fonts) where each
    event's position is in mm from the layout's top-left corner (y down, as layouts measure)."""
    layout = f"size: [{SIZE}mm, {SIZE}mm]\nbleed: 0\nelements:\n" + "".join(f"  - {e}\n" for e in elements)
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": layout, "layouts/mini/back.yaml": layout})
    report = Report()
    game, studio = validate(find(root), "mini", report)
    assert not report.errors, [str(d) for d in report.errors]
    card = studio.of(game.component("deck"))[0]
    buf = io.BytesIO()
    canvas = Canvas(buf, pagesize=(SIZE * MM, SIZE * MM), invariant=1, initialFontName=studio.fonts.name("Body"))
    studio.draw(canvas, studio.painter(canvas), card, 0, 0, clip=0)
    canvas.save()
    path = tmp_path / "probe.pdf"
    path.write_bytes(buf.getvalue())
    events = []
    for e in drawn(read(path).pages[0]):
        if e[0] in ("text", "form", "image"):
            events.append((e[0], e[1], e[2] / MM, SIZE - e[3] / MM, *e[4:]))
        else:
            events.append((e[0], [(x / MM, SIZE - y / MM) for x, y in e[1]], e[2]))
    return events, studio.fonts


def icons(events):
    """Where each icon's form was placed (the same corner of every icon's box)."""
    return [(x, y) for kind, name, x, y, matrix in (e for e in events if e[0] == "form" and "icon" in e[1])]


def filled(events):
    """The vertices of every filled path."""
    return [points for kind, points, op in (e for e in events if e[0] == "path") if op.startswith("f")]


def corner(points):
    return (round(min(x for x, _ in points), 2), round(min(y for _, y in points), 2))


def texts(events):
    return [e for e in events if e[0] == "text"]


@pytest.mark.parametrize("direction, step", [("right", (6, 0)), ("left", (-6, 0)), ("down", (0, 6)),
                                             ("up", (0, -6))])
def test_an_icon_row_runs_in_its_direction(tmp_path, direction, step):
    events, _ = draw(tmp_path, ["{type: icons, icon: star, count: 3, x: 27, y: 27, size: 5, gap: 1, "
                                f"direction: {direction}}}"])
    placed = icons(events)
    assert len(placed) == 3
    for a, b in zip(placed, placed[1:]):  # each icon one size plus one gap further on
        assert b[0] - a[0] == pytest.approx(step[0], abs=0.01) and b[1] - a[1] == pytest.approx(step[1], abs=0.01)


def test_a_repeat_steps_each_copy_by_dx_dy(tmp_path):
    events, _ = draw(tmp_path, ["{type: rect, x: 5, y: 5, w: 4, h: 4, fill: red, repeat: 3, step: [10, 7]}"])
    corners = sorted(corner(p) for p in filled(events))
    assert corners == [(5, 5), (15, 12), (25, 19)]  # right and down, as layouts measure


def test_rotate_turns_clockwise(tmp_path):
    events, _ = draw(tmp_path, ["{type: text, x: 10, y: 25, w: 40, h: 10, text: Turned, size: 10, rotate: 90}"])
    (_, text, x, y, matrix, size), = texts(events)
    # the baseline's direction on the page (PDF y up): straight down the page is clockwise from reading
    # left to right
    assert matrix[0] == pytest.approx(0, abs=1e-6) and matrix[1] < 0


@pytest.mark.parametrize("valign", ["top", "middle", "bottom"])
def test_valign_places_one_line_at_the_top_middle_or_bottom_of_its_box(tmp_path, valign):
    events, fonts = draw(tmp_path, [f"{{type: text, x: 10, y: 10, w: 40, h: 30, text: Word, size: 10, valign: {valign}}}"])
    (_, _, _, baseline, _, size), = texts(events)
    from reportlab.pdfbase.pdfmetrics import getAscent

    cap_top = baseline - getAscent(fonts.name("Body")) / 1000 * size / MM  # the line's top, in mm
    expected = {"top": 10, "middle": 10 + (30 - size / MM) / 2, "bottom": 40 - size / MM}[valign]
    assert cap_top == pytest.approx(expected, abs=0.05)


def test_a_text_ending_in_a_line_break_prints_its_words_alone(tmp_path):
    """A card text written as a YAML block (`text: |`) ends in a line break: plain text was set as one run with it,
    and the font drew it as its missing-character box after the last word, exit 0."""
    events, _ = draw(tmp_path, ['{type: text, x: 10, y: 10, w: 40, h: 30, text: "Roars loudly.\\n", size: 10}'])
    assert [t[1] for t in texts(events)] == ["Roars loudly."]


def test_a_track_runs_clockwise_from_the_top_left_corner(tmp_path):
    events, _ = draw(tmp_path, ["{type: track, x: 5, y: 5, w: 50, h: 50, count: 8, cell: 10, stroke: black, "
                                "label: '{{ n }}', label_size: 8}"])
    where = {t[1]: (t[2], t[3]) for t in texts(events)}
    centre = {n: where[str(n)] for n in range(8)}
    assert centre[1][0] > centre[0][0] and centre[1][1] == pytest.approx(centre[0][1], abs=0.01)  # along the top
    assert centre[3][1] > centre[2][1]  # then down the right side
    assert centre[5][0] < centre[4][0]  # back along the bottom
    assert centre[7][1] < centre[6][1]  # and up the left side


def test_a_group_offsets_its_elements(tmp_path):
    events, _ = draw(tmp_path, ["{type: group, x: 10, y: 20, elements: [{type: rect, x: 5, y: 5, w: 4, h: 4, fill: red}]}"])
    (points,) = filled(events)
    assert corner(points) == (15, 25)


def test_right_alignment_ends_the_line_at_the_box_edge(tmp_path):
    events, fonts = draw(tmp_path, ["{type: text, x: 10, y: 10, w: 40, h: 10, text: Right, size: 10, align: right}"])
    (_, text, x, _, _, size), = texts(events)
    width = stringWidth(text, fonts.name("Body"), size) / MM
    assert x + width == pytest.approx(50, abs=0.01)


@pytest.mark.parametrize("orientation, corners_on_top", [("flat", 2), ("pointy", 1)])
def test_hex_orientation(tmp_path, orientation, corners_on_top):
    events, _ = draw(tmp_path, [f"{{type: hex, cx: 30, cy: 30, r: 20, orientation: {orientation}, fill: red}}"])
    (points,) = filled(events)
    top = min(y for _, y in points)
    assert sum(1 for _, y in points if abs(y - top) < 0.01) == corners_on_top
    assert max(math.dist((30, 30), p) for p in points) == pytest.approx(20, abs=0.01)


def test_a_style_sets_what_the_element_leaves_out_and_the_element_wins(tmp_path):
    (tmp_path / "proj/layouts/mini").mkdir(parents=True)
    (tmp_path / "proj/layouts/mini/text-styles.yaml").write_text("big: {size: 14, align: right}\n")
    events, fonts = draw(tmp_path, ["{type: text, style: big, x: 10, y: 10, w: 40, h: 10, text: One}",
                                    "{type: text, style: big, x: 10, y: 30, w: 40, h: 10, text: Two, size: 8}"])
    one, two = texts(events)
    assert one[5] == 14 and two[5] == 8  # the style's size, then the element's own
    for _, text, x, _, _, size in (one, two):  # both right-aligned, from the style
        assert x + stringWidth(text, fonts.name("Body"), size) / MM == pytest.approx(50, abs=0.01)


def _centre(points):
    return (round(sum(x for x, _ in points) / len(points), 2), round(sum(y for _, y in points) / len(points), 2))


@pytest.mark.parametrize("orientation, offset", [("pointy", "odd"), ("pointy", "even"), ("flat", "odd"),
                                                 ("flat", "even")])
def test_a_hexgrid_tiles_the_plane_and_labels_cells_with_axial_coordinates(tmp_path, orientation, offset):
    # every cell labelled q,r: cells one axial step apart must touch (centres sqrt(3) R apart), others not
    events, _ = draw(tmp_path, [f"{{type: hexgrid, x: 2, y: 2, cols: 4, rows: 3, radius: 7, orientation: "
                                f"{orientation}, offset: {offset}, fill: '#dddddd', label: '{{{{ q }}}},{{{{ r }}}}',"
                                " label_size: 6}"])
    hexes = filled(events)
    assert len(hexes) == 12 and all(len(h) >= 6 for h in hexes)
    centres = {_centre(h) for h in hexes}
    labels = {}
    for _, text, x, y, *_ in texts(events):
        near = min(centres, key=lambda c: math.dist(c, (x, y)))
        labels[tuple(int(v) for v in text.split(","))] = near
    assert len(labels) == 12
    steps = {(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)}
    for (q, r), c in labels.items():
        for (q2, r2), c2 in labels.items():
            apart = math.dist(c, c2)
            if (q2 - q, r2 - r) in steps:
                assert apart == pytest.approx(7 * math.sqrt(3), abs=0.05), ((q, r), (q2, r2))
            elif (q2, r2) != (q, r):
                assert apart > 7 * math.sqrt(3) + 1, ((q, r), (q2, r2))
    top = min(y for h in hexes for _, y in h)
    left = min(x for h in hexes for x, _ in h)
    assert (round(left, 2), round(top, 2)) == (2, 2)  # the grid's box starts at (x, y)


def test_a_hexgrid_cell_can_be_left_out_and_carry_an_icon(tmp_path):
    events, _ = draw(tmp_path, ["{type: hexgrid, cols: 3, rows: 2, radius: 5, fill: red, show: '{{ n != 4 }}', "
                                "icon: '{{ \"star\" if n == 0 else \"\" }}'}"])
    hexes = [h for h in filled(events) if max(x for x, _ in h) - min(x for x, _ in h) == pytest.approx(5 * math.sqrt(3))]
    assert len(hexes) == 5 and len(icons(events)) == 1
