"""The last resort: an error pnp did not foresee (a bug, met by some input) is said in one line at the input
pnp was working on, never as a traceback, and one game's failure leaves the others' builds and the previous
output alone. The bugs here are made on purpose, by replacing one of pnp's own functions."""
import pytest

from pnp.draw.paint import Painter
from pnp.errors import PnpError, blame, blamed, unforeseen
from pnp.model import load as loader
from pnp.report import Mark

from conftest import run

pytestmark = pytest.mark.unforeseen  # every test here makes pnp meet a bug on purpose


def _raises(*args, **kwargs):
    raise ZeroDivisionError("division by zero")


def _said_once_without_traceback(result):
    assert "Traceback" not in result.output
    assert result.output.count("This is a bug in pnp") == 1


def test_a_bug_met_drawing_is_said_at_the_layout_element_and_the_old_kit_is_kept(project, monkeypatch):
    assert run(project, "build", "mini").exit_code == 0
    kit = sorted((project / "output" / "mini").glob("*.pdf"))
    before = {p: p.read_bytes() for p in kit}
    monkeypatch.setattr(Painter, "_icon", _raises)  # only card.yaml's star icon, at its line 6, draws icons
    result = run(project, "build", "mini", "--force")
    assert result.exit_code == 1
    _said_once_without_traceback(result)
    line = next(line for line in result.output.splitlines() if "bug in pnp" in line)
    assert line.startswith("layouts/mini/card.yaml:6:")
    assert "mini: build failed, previous output left intact" in line
    assert "ZeroDivisionError: division by zero" in line
    assert {p: p.read_bytes() for p in kit} == before


def test_a_bug_met_loading_a_data_file_is_said_at_that_file(project, monkeypatch):
    real = loader._plain_parse

    def fails_on_cards(raw, file):
        if file.endswith("cards.yaml"):
            raise KeyError("x")
        return real(raw, file)

    monkeypatch.setattr(loader, "_plain_parse", fails_on_cards)
    loader.PARSED.__init__()  # (nothing parsed earlier in this process is taken from memory)
    result = run(project, "validate", "mini")
    assert result.exit_code == 1
    _said_once_without_traceback(result)
    assert "cards/mini/cards.yaml: error: mini: check failed: pnp met something here it does not handle (KeyError" in result.output


def test_a_bug_outside_any_game_is_said_in_one_line(project, monkeypatch):
    import pnp.project

    monkeypatch.setattr(pnp.project.Project, "select", _raises)
    result = run(project, "list")
    assert result.exit_code == 1
    _said_once_without_traceback(result)
    assert "pnp list: pnp met something here it does not handle (ZeroDivisionError: division by zero)" in result.output


def test_pnp_traceback_shows_where_in_pnp(project, monkeypatch, capsys):
    monkeypatch.setenv("PNP_TRACEBACK", "1")
    said = unforeseen(_caught(), "g: build failed")
    assert "Traceback" in capsys.readouterr().err
    assert said.code == "internal" and said.mark is None


def _caught() -> Exception:
    try:
        _raises()
    except ZeroDivisionError as e:
        return e
    raise AssertionError


def test_the_innermost_input_is_blamed_and_pnps_own_errors_say_their_own_place():
    error = _caught()
    blame(error, Mark("layouts/g/card.yaml", 6, 5))  # the element, inside
    blame(error, Mark("cards/g/cards.yaml", 3, 3))  # the card it was drawn for, outside
    assert blamed(error) == Mark("layouts/g/card.yaml", 6, 5)
    own = PnpError("refused", Mark("a.yaml", 1, 1))
    blame(own, Mark("b.yaml", 2, 2))
    assert blamed(own) is None and str(own) == "a.yaml:1:1: refused"


@pytest.mark.parametrize("text", ["", "   ", "x" * 5000 + "\nsecond line"])
def test_the_line_is_short_whatever_the_exception_says(text):
    said = unforeseen(ValueError(text), "g: build failed")
    assert len(said.message) < 400 and "\n" not in said.message


def test_a_bug_met_reading_an_icon_is_said_at_the_icon_file(project, monkeypatch):
    # (an SVG's fill="url(#)" was such a bug: said at no file, with the game's icons all equally suspect)
    import pnp.check

    monkeypatch.setattr(pnp.check, "unreadable", _raises)
    result = run(project, "validate", "mini")
    assert result.exit_code == 1
    _said_once_without_traceback(result)
    line = next(line for line in result.output.splitlines() if "bug in pnp" in line)
    assert line.startswith("layouts/shared/icons/") and ".svg: error: mini: check failed: " in line, line


def test_a_bug_met_charting_the_design_report_is_said_at_the_games_views(project, monkeypatch):
    # (a scatter drawn past its plot was such a bug: 'pnp report: … a bug in pnp' at no file)
    import pnp.draw.charts

    monkeypatch.setattr(pnp.draw.charts, "write_report", _raises)
    result = run(project, "report", "mini")
    assert result.exit_code == 1
    _said_once_without_traceback(result)
    line = next(line for line in result.output.splitlines() if "bug in pnp" in line)
    assert line.startswith("cards/mini/game.yaml:"), line
