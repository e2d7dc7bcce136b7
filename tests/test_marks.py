"""Crop-mark styles, read back from the PDF: every mark stays outside every card's art and 5 mm clear of the
paper's edge; `corners` draws short L arms, `none` draws nothing; the files say which style they hold."""

import pytest

from conftest import run
from pdfread import MM, page_geometry, read


def _inside(segment, box):
    """Whether a segment reaches into a clip box's inside (touching its edge is allowed)."""
    (x1, y1), (x2, y2) = segment
    bx, by, bw, bh = box
    eps = 0.01
    return (min(x1, x2) < bx + bw - eps and max(x1, x2) > bx + eps
            and min(y1, y2) < by + bh - eps and max(y1, y2) > by + eps)


@pytest.mark.parametrize("style, suffix", [("lines", ""), ("corners", "-cornermarks"), ("none", "-nomarks")])
def test_marks_stay_outside_the_art_and_clear_of_the_edge(project, style, suffix):
    result = run(project, "build", "mini", "--marks", style)
    assert result.exit_code == 0, result.output
    pdf = project / "output" / "mini" / f"mini-cards-a4{suffix}.pdf"
    for page in read(pdf).pages:
        pw, ph = float(page.mediabox[2]), float(page.mediabox[3])
        segments, clips = page_geometry(page)
        arts = [c for c in clips if c[2] < pw * 0.9]  # each card is clipped to its art (the page is not)
        assert len(arts) == 4
        if style == "none":
            assert segments == []
            continue
        assert segments
        for seg in segments:
            assert not any(_inside(seg, art) for art in arts), seg
            for x, y in seg:
                assert 5 * MM - 0.01 <= x <= pw - 5 * MM + 0.01 and 5 * MM - 0.01 <= y <= ph - 5 * MM + 0.01
        if style == "corners":
            lengths = {round(abs(a[0] - b[0]) + abs(a[1] - b[1]), 2) for a, b in segments}
            assert lengths == {round(4 * MM, 2)}
