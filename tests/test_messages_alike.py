"""Messages of one shape at one place are said MAX_ALIKE times, then one line says how many more; the summary
counts the lines said."""

from pnp.report import MAX_ALIKE, Mark, Report


def test_past_the_cap_one_line_says_how_many_more_like_it_and_the_summary_counts_what_is_printed():
    report = Report()
    here, there = Mark("layouts/g/board.yaml", 3, 5), Mark("cards/g/cards.yaml", 9, 1)
    for n in range(MAX_ALIKE + 7):
        report.error(f"unknown icon 'zz{n}'", here)
    report.error("unknown icon 'zz0'", there)  # another place: its own count
    report.error("text too long for its box by 3 lines", here)  # another shape: its own count
    lines = [str(d) for d in report.sorted()]
    assert lines[MAX_ALIKE] == "layouts/g/board.yaml:3:5: error: unknown icon 'zz19'"
    assert "layouts/g/board.yaml:3:5: error: and 7 more like it (unknown icon …)" in lines
    assert len(lines) == 1 + MAX_ALIKE + 1 + 1
    assert report.summary("validated 1 game") == \
        f"validated 1 game: {MAX_ALIKE + 2} errors (and more like them, not shown)"
    assert not report.enough_at(there) and report.enough_at(here)
    assert str(report.sorted()[-2]).endswith("(unknown icon …); the rest of this element is not checked")
