"""Commands refuse an output folder that cannot be made (a file in the way) before they draw anything."""

import os

import pytest

from conftest import make_project, run
from pnp.printables import Studio


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("in-the-way") / "proj")
    (root / "afile").write_text("not a folder\n")
    (root / "kits").mkdir()
    (root / "kits" / "mini").write_text("a file where the game's folder goes\n")
    return root


@pytest.mark.parametrize("command", [["build", "mini"], ["export", "mini", "--format", "png"], ["report", "mini"]])
# (simulate says the file in the way before it plays, at that file: test_simulate.py)
def test_a_file_on_the_way_to_out_is_refused_before_any_drawing(mini, command, monkeypatch):
    """`pnp build --out afile/sub` drew every page, then said "cannot write ... Not a directory" (exit 1)."""
    drawn = []
    monkeypatch.setattr(Studio, "printed", lambda self, face: drawn.append(face))
    result = run(mini, *command, "--out", str(mini / "afile" / "sub"))
    assert result.exit_code == 1, result.output
    assert "cannot write to afile/sub/mini" in result.output and ": afile is a file, not a folder" in result.output
    assert drawn == []
    assert list(mini.glob("afile*")) == [mini / "afile"]


@pytest.mark.parametrize("command", [["build", "mini"], ["export", "mini", "--format", "png"]])
def test_a_file_where_the_games_folder_goes_is_refused_before_any_drawing(mini, command, monkeypatch):
    drawn = []
    monkeypatch.setattr(Studio, "printed", lambda self, face: drawn.append(face))
    result = run(mini, *command, "--out", str(mini / "kits"))
    assert result.exit_code == 1, result.output
    assert "kits/mini is a file, not a folder" in result.output
    assert drawn == []
    assert (mini / "kits" / "mini").read_text() == "a file where the game's folder goes\n"


def test_calibrate_names_the_file_in_the_way_of_its_out(mini):
    """`pnp calibrate --out afile/sub` said "cannot write to afile/sub: Not a directory", naming the folder it was
    given rather than the file in its way, as build, export and report do."""
    result = run(mini, "calibrate", "--out", str(mini / "afile" / "sub"))
    assert result.exit_code == 1, result.output
    assert "cannot write to afile/sub: afile is a file, not a folder" in result.output, result.output
    assert list(mini.glob("afile*")) == [mini / "afile"]


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
@pytest.mark.parametrize("command", [["build", "mini"], ["export", "mini", "--format", "png"], ["report", "mini"],
                                     ["calibrate"]])
def test_an_out_whose_nearest_folder_cannot_be_written_is_refused_before_any_drawing(mini, command, monkeypatch):
    """`pnp build --out /proc/self/x` drew every page, then said "cannot write ... No such file or directory": the
    folders on the way were checked only up to the first that was not there, never that it could be made."""
    drawn = []
    monkeypatch.setattr(Studio, "printed", lambda self, face: drawn.append(face))
    result = run(mini, *command, "--out", "/proc/self/pnp-out")
    assert result.exit_code == 1, result.output
    assert "cannot write to /proc/self/pnp-out" in result.output and "nothing can be made in /proc/self" in result.output
    assert drawn == []
