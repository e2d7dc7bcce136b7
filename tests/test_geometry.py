"""Pure geometry: units, sheet grids, board tiles and die nets."""

import math

import pytest

from pnp import units
from pnp.impose import nets, sheet, tiles
from pnp.units import MM

A4 = (210 * MM, 297 * MM)
LETTER = (215.9 * MM, 279.4 * MM)


@pytest.mark.parametrize("text, mm", [("63mm", 63), ("2.5cm", 25), ("1in", 25.4), ("72pt", 25.4), (10, 10)])
def test_lengths(text, mm):
    assert abs(units.length(text) / MM - mm) < 1e-9


def test_bad_length_says_what_it_wanted():
    with pytest.raises(ValueError, match="expected a length like '3mm'"):
        units.length("three mm")


@pytest.mark.parametrize("text", ["63 x 88 x 3", "0x58 x 88"])
def test_a_size_of_more_than_two_sides_is_refused_as_a_whole(text):
    """Cut at its first x, '63 x 88 x 3' was refused as a length ' 88 x 3', and '0x58 x 88' as '58 x 88'."""
    with pytest.raises(ValueError, match="expected one width and one height, 'w x h', got '" + text + "'"):
        units.size(text)


@pytest.mark.parametrize("paper, shape", [(A4, (3, 3, False)), (LETTER, (2, 4, True))])
def test_poker_cards_fill_the_sheet_leaving_room_for_crop_marks(paper, shape):
    """3 x 3 on A4; Letter's 279 mm leave 7.7 mm above and below three 88 mm rows, too little for 3 mm
    marks clear of the edge and the footer, so its cards lie turned, 2 x 4."""
    grid = sheet.densest(paper, (63 * MM, 88 * MM))
    assert (grid.cols, grid.rows, grid.turned) == shape
    assert min(grid.mark_room()) >= sheet.MARK_MIN


def test_mirrored_slot_is_the_same_row_in_the_opposite_column():
    grid = sheet.grid(A4, (63 * MM, 88 * MM))
    for i in range(9):
        front, back = grid.slot(i), grid.slot(i, mirrored=True)
        assert back.row == front.row and back.col == 2 - front.col
        assert abs((front.x + front.w / 2) + (back.x + back.w / 2) - A4[0]) < 1e-6


def test_tiles_cover_the_board_and_neighbours_share_their_targets():
    size = (600 * MM, 420 * MM)
    parts = tiles.tiles(A4, size)
    assert min(t.bx for t in parts) == 0 and abs(max(t.bx + t.bw for t in parts) - size[0]) < 1e-6
    assert abs(min(t.by for t in parts)) < 1e-6 and abs(max(t.by + t.bh for t in parts) - size[1]) < 1e-6
    for t in parts:  # each tile's window fits the paper inside the margins
        assert t.bw <= A4[0] - 2 * tiles.MARGIN + 1e-6 and t.bh <= A4[1] - 2 * tiles.MARGIN + 1e-6
    by_pos = {(t.row, t.col): t for t in parts}
    for (r, c), t in by_pos.items():
        right = by_pos.get((r, c + 1))
        if right:
            shared = set(map(_round, tiles.alignment_marks(t))) & set(map(_round, tiles.alignment_marks(right)))
            assert len(shared) == 2  # two targets in the overlap, printed on both tiles
            for x, y in shared:
                assert right.bx <= x <= t.bx + t.bw  # inside the overlap strip


def _round(p):
    return (round(p[0], 3), round(p[1], 3))


# faces, and outer edges of the net: every solid edge that is not a fold shows twice on the outline
DICE = [(nets.d4, 4, 6), (nets.d6, 6, 14), (nets.d8, 8, 10), (nets.d12, 12, 38), (nets.d20, 20, 22)]


@pytest.mark.parametrize("make, faces, edges", DICE)
def test_die_nets_have_the_right_faces_and_half_their_outer_edges_tabbed(make, faces, edges):
    net = make()
    assert len(net) == faces
    assert len(nets.outer_edges(net)) == edges
    assert len(nets.tabbed_edges(net)) == edges // 2
    for face in net:  # unit edge length everywhere
        for k in range(len(face)):
            (x1, y1), (x2, y2) = face[k], face[(k + 1) % len(face)]
            assert abs(math.hypot(x2 - x1, y2 - y1) - 1) < 1e-9


def test_d12_faces_do_not_overlap():
    net = nets.d12()
    centres = [(sum(x for x, _ in f) / 5, sum(y for _, y in f) / 5) for f in net]
    inradius = 1 / (2 * math.tan(math.pi / 5))
    for i, a in enumerate(centres):
        for b in centres[i + 1:]:
            assert math.dist(a, b) >= 2 * inradius - 1e-9


@pytest.mark.parametrize("make, faces", [(make, faces) for make, faces, _ in DICE])
def test_every_net_folds_onto_its_solid_each_face_once(make, faces):
    corners, which, solid = nets.fold(make())
    assert sorted(which) == list(range(faces))  # each solid face covered by exactly one net face
    for f, face in enumerate(corners):  # each net face's corners are the corners of the face it lands on
        assert sorted(face) == sorted(solid[which[f]][0])


def test_net_faces_do_not_overlap():
    for make, _, _ in DICE:
        net = make()
        centres = [(sum(x for x, _ in f) / len(f), sum(y for _, y in f) / len(f)) for f in net]
        for i, a in enumerate(centres):  # at unit edge no two face centres are closer than a triangle's
            for b in centres[i + 1:]:  # inradius twice over
                assert math.dist(a, b) > 2 * (math.sqrt(3) / 6) - 1e-9, make.__name__


@pytest.mark.parametrize("make, total", [(nets.d6, 7), (nets.d8, 9), (nets.d12, 13), (nets.d20, 21)])
def test_folded_nets_pair_every_outer_edge_and_put_opposites_summing_like_real_dice(make, total):
    net = make()
    pairs = nets.glue_pairs(net)
    assert all(len(p) == 2 for p in pairs) and len(pairs) * 2 == len(nets.outer_edges(net))
    values = nets.assign_values(net, list(range(1, len(net) + 1)))
    opposite = nets.opposite_faces(net)
    assert sorted(values) == list(range(1, len(net) + 1))
    assert all(values[f] + values[opposite[f]] == total for f in range(len(net)))


def test_a_d4_has_no_opposite_faces_and_takes_its_values_in_order():
    net = nets.d4()
    assert nets.opposite_faces(net) == [None] * 4
    assert nets.assign_values(net, [1, 2, 3, 4]) == [1, 2, 3, 4]
    assert len(nets.glue_pairs(net)) == 3


def test_a_seam_that_must_cut_text_cuts_the_smallest_type():
    """A 6 pt line runs across the whole board, so every seam cuts it; a 22 pt title sits where the even
    seam would fall: the seam moves off the title and cuts only the small line."""
    size = (400 * MM, 100 * MM)
    note, title = (10 * MM, 390 * MM, 6.0), (170 * MM, 230 * MM, 22.0)
    parts = tiles.tiles((A4[1], A4[0]), size, avoid_x=[note, title])
    seam = next(t.bx + tiles.OVERLAP / 2 for t in parts if t.col == 1)
    assert not title[0] <= seam <= title[1] and note[0] < seam < note[1]


def test_seams_among_thousands_of_labels_find_the_one_clear_spot():
    """A board labelled all over (50,000 lines of text, a hex map's): every seam still goes to where no
    text is cut, and where it crosses the least, now found by sums over sorted lines rather than by comparing
    every line with every place a seam might go (a 100 x 100 hex board took 70 s to tile)."""
    size = (500 * MM, 100 * MM)
    gap = (240 * MM, 260 * MM)  # the only strip free of text
    lines = [(a * MM, (a + 3) * MM, 7.0) for a in range(0, 500) if not gap[0] < (a + 1.5) * MM < gap[1]
             and not gap[0] < a * MM < gap[1] and not gap[0] < (a + 3) * MM < gap[1]] * 100
    parts = tiles.tiles((A4[1], A4[0]), size, avoid_x=lines)
    seams = [t.bx + tiles.OVERLAP / 2 for t in parts if t.col > 0 and t.row == 0]
    assert len(lines) > 45_000 and len(seams) == 1
    assert gap[0] <= seams[0] <= gap[1]
    assert not any(a < seams[0] < b for a, b, _ in lines)


def test_a_rect_rounded_past_half_its_side_is_rounded_fully():
    """A radius over half the shorter side drew corner curves that crossed (a bow tie): it rounds fully."""
    from pnp.draw.paint import Painter
    from pnp.layout.prims import Prim

    drawn = []

    class Canvas:
        def roundRect(self, x, y, w, h, r, stroke, fill):
            drawn.append(r)

        def setFillColor(self, *args):
            pass

    painter = Painter.__new__(Painter)
    painter.c = Canvas()
    painter._rect(Prim("rect", 0, 0, 20 * MM, 10 * MM, style={"fill": "#ff0000", "radius": 100 * MM}), 0, 0)
    assert drawn == [5 * MM]


@pytest.mark.parametrize("net", sorted(nets.NETS))
@pytest.mark.parametrize("paper", [A4, LETTER])
def test_a_die_net_that_fits_lies_on_the_paper_with_its_glue_tabs(net, paper):
    """The net is placed by its faces and tabs together, inside the margins and clear of the footer: measured
    and centred by its faces alone, then lifted 6 mm, a d6 of 65 mm edges (accepted) printed its tabs past
    the paper's edges."""
    from pnp.products.die import _origin

    faces = nets.NETS[net]()
    left, bottom, right, top = nets.printed_extent(faces)
    assert all(left <= x <= right and bottom <= y <= top
               for a, b, centre in nets.tabbed_edges(faces) for x, y in nets.tab(a, b, centre))
    largest = max(edge for edge in range(5, 101) if _origin(faces, edge * MM, paper) is not None) * MM
    ox, oy = _origin(faces, largest, paper)
    assert ox + left * largest >= sheet.MARGIN - 0.01 and ox + right * largest <= paper[0] - sheet.MARGIN + 0.01
    assert oy + bottom * largest >= sheet.NET_FOOTER_ROOM - 0.01 and oy + top * largest <= paper[1] - sheet.MARGIN + 0.01
    assert _origin(faces, largest + MM, paper) is None  # a millimetre more is refused
