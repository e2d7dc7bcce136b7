"""Messages of one shape at one place are said MAX_ALIKE times, then one line says how many more; the summary
counts the lines said. A command prints MAX_PRINTED messages, then one line says how many more."""

import pytest

from pnp.report import MAX_ALIKE, MAX_PRINTED, Mark, Report, printable


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


def test_a_command_prints_the_first_messages_in_file_order_then_a_line_counting_the_rest():
    """A folder of 19,000 icon links out of the project printed 19,000 lines, each at its own file (no two
    alike at one place): past MAX_PRINTED one line counts the rest, the game's closing word is still said, and
    the summary still counts every one."""
    report = Report()
    for n in range(MAX_PRINTED + 30):
        report.error(f"icon file 'l{n:04}.svg' is outside the project folder", Mark(f"icons/l{n:04}.svg"))
    report.warning("a warning", Mark("icons/zz.svg"))
    report.consequence("g: not built (fix the errors above)")
    lines = report.printed()
    assert lines[:MAX_PRINTED] == [str(d) for d in report.sorted()[:MAX_PRINTED]]
    assert lines[MAX_PRINTED:] == [f"... 31 more not shown (30 errors, 1 warning): the first {MAX_PRINTED}, in file "
                                   "order, are above; fix those and run it again",
                                   "error: g: not built (fix the errors above)"]
    assert report.summary("built 0 of 1 game") == f"built 0 of 1 game: {MAX_PRINTED + 30} errors, 1 warning"
    few = Report()
    few.error("one", Mark("a.yaml", 1, 1))
    assert few.printed() == ["a.yaml:1:1: error: one"]


def test_json_says_a_hostile_character_as_the_printed_line_does():
    """`validate --json` wrote a message's C1 control, line separator and right-to-left override raw (JSON
    escapes nothing past U+001F: a YAML tag's %E2%80%AE reached an editor raw), where the printed line said each
    as its escape; each field of a record now reads as the printed line does."""
    report = Report()
    report.error("YAML tag '!x\u202e\u2028\x85\u2066y' is not allowed", Mark("cards/g/\u202ecards.yaml", 2, 7),
                 item=("de\u2028ck", 0))
    (d,) = report.sorted()
    (record,) = report.as_json("validated 1 game")["diagnostics"]
    assert str(d) == f"{record['file']}:{record['line']}:{record['col']}: {record['severity']}: {record['message']}"
    assert record["message"] == "YAML tag '!x\\u202e\\u2028\\x85\\u2066y' is not allowed"
    assert record["item"] == {"component": "de\\u2028ck", "index": 0}


@pytest.mark.parametrize("hidden", ["\t", "\u00ad", "\u180e", "\u2060", "\u2064", "\ufffa", "\U000e0041"])
def test_a_tab_or_an_invisible_format_character_in_a_message_is_said_as_its_escape(hidden):
    """A tab (alike on screen to spaces), a soft hyphen, the invisible operators, an interlinear annotation mark
    and a tag character (an unseen 'A') were printed raw: a name holding one was quoted as if it did not, or split
    where a terminal pleased."""
    assert printable(f"icon 'a{hidden}b' is not defined") == "icon 'a" + repr(hidden)[1:-1] + "b' is not defined"
    assert "\\" in repr(hidden)  # (each is one Python's repr escapes)


def test_a_report_is_sorted_and_its_messages_said_once_for_its_printed_lines_summary_and_json(monkeypatch):
    """19,000 messages were sorted, and each said (to drop repeats), once for the lines printed, again for the
    summary and again for --json: a second of a run printing 200 of them. Worked out once, and again only once
    the report has changed (a message added, a line counting those like it replaced)."""
    from pnp.report import Diagnostic

    report = Report()
    for n in range(MAX_PRINTED + 300):
        report.error(f"icon file 'l{n:04}.svg' is outside the project folder", Mark(f"icons/l{n:04}.svg"))
    said = 0
    as_str = Diagnostic.__str__

    def counted(self: Diagnostic) -> str:
        nonlocal said
        said += 1
        return as_str(self)

    monkeypatch.setattr(Diagnostic, "__str__", counted)
    report.printed()
    report.summary("validated 1 game")
    assert len(report.as_json("validated 1 game")["diagnostics"]) == MAX_PRINTED + 300
    assert said == (MAX_PRINTED + 300) + MAX_PRINTED
    report.warning("late", Mark("icons/a.svg"))
    assert str(report.sorted()[0]) == "icons/a.svg: warning: late"
    assert report.summary("validated 1 game") == f"validated 1 game: {MAX_PRINTED + 300} errors, 1 warning"
