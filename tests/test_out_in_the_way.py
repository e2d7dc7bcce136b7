"""Commands refuse an output folder that cannot be made (a file in the way) before they draw anything."""

import os

import pytest

from conftest import make_project, run
from pnp.kit.select import Selection
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
    monkeypatch.setattr(Studio, "printed", lambda self, printable, resolved=None: drawn.append(printable) or [])
    result = run(mini, *command, "--out", str(mini / "afile" / "sub"))
    assert result.exit_code == 1, result.output
    assert result.output.startswith("afile/sub/mini") and ": error: cannot write: afile is a file, not a folder" \
        in result.output, result.output
    assert drawn == []
    assert list(mini.glob("afile*")) == [mini / "afile"]


@pytest.mark.parametrize("command", [["build", "mini"], ["report", "mini"], ["calibrate"]])
def test_an_ordinary_file_as_out_is_refused_in_pnps_words(mini, command):
    """`pnp build --out afile` was refused in click's words, "Directory 'afile' is a file.", calling the file a
    directory."""
    result = run(mini, *command, "--out", str(mini / "afile"))
    assert result.exit_code == 2, result.output
    assert "afile' is a file, not a folder: name a folder" in result.output, result.output
    assert "Directory" not in result.output


def test_a_folder_as_converts_file_is_refused_in_pnps_words(mini):
    """`pnp convert TABLE --out kits` (or `pnp convert kits`) was refused in click's words, "File 'kits' is a
    directory."."""
    table = str(mini / "cards" / "mini" / "game.yaml")  # (refused as a folder before it is read as a table)
    for args in ([table, "--out", str(mini / "kits")], [str(mini / "kits")]):
        result = run(mini, "convert", *args, "--to", "csv")
        assert result.exit_code == 2 and "kits' is a folder, not a file: name a file" in result.output, result.output


@pytest.mark.parametrize("command", [["build", "mini"], ["export", "mini", "--format", "png"]])
def test_a_file_where_the_games_folder_goes_is_refused_before_any_drawing(mini, command, monkeypatch):
    drawn = []
    monkeypatch.setattr(Studio, "printed", lambda self, printable, resolved=None: drawn.append(printable) or [])
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
    assert result.output.startswith("afile/sub: error: cannot write: afile is a file, not a folder"), result.output
    assert list(mini.glob("afile*")) == [mini / "afile"]


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
@pytest.mark.parametrize("command", [["build", "mini"], ["export", "mini", "--format", "png"], ["report", "mini"],
                                     ["calibrate"]])
def test_an_out_whose_nearest_folder_cannot_be_written_is_refused_before_any_drawing(mini, command, monkeypatch):
    """`pnp build --out /proc/self/x` drew every page, then said "cannot write ... No such file or directory": the
    folders on the way were checked only up to the first that was not there, never that it could be made."""
    drawn = []
    monkeypatch.setattr(Studio, "printed", lambda self, printable, resolved=None: drawn.append(printable) or [])
    result = run(mini, *command, "--out", "/proc/self/pnp-out")
    assert result.exit_code == 1, result.output
    assert result.output.startswith("/proc/self/pnp-out") and \
        ": error: cannot write: nothing can be made in /proc/self" in result.output, result.output
    assert drawn == []


@pytest.mark.parametrize("command", [["build", "mini"], ["export", "mini", "--format", "png"], ["calibrate"]])
def test_an_out_folder_name_longer_than_the_file_system_allows_is_refused_before_any_drawing(mini, command, monkeypatch):
    """`pnp build --out` a folder name of 300 letters drew every page (10 s for dinospan), then said "File name
    too long"; the folders to be made are held to their file system's longest name before the work. Inside
    the project, the name was said to be "a loop of symbolic links"."""
    drawn = []
    monkeypatch.setattr(Studio, "printed", lambda self, printable, resolved=None: drawn.append(printable) or [])
    outside = mini.parent / f"outside-long-{command[0]}"
    outside.mkdir()
    result = run(mini, *command, "--out", str(outside / ("n" * 300) / "sub"))
    assert result.exit_code == 1, result.output
    assert "is 300 bytes long, past the" in result.output and drawn == [] and list(outside.iterdir()) == []
    deep = run(mini, *command, "--out", str(outside.joinpath(*["d" * 250] * 17)))
    assert deep.exit_code == 1 and "bytes long, past the" in deep.output and drawn == [], deep.output
    # a path a few bytes under the system's limit passed, drew every page, then failed at a file's longer path;
    # so too where its folders are there already
    near = _path_of(outside, os.pathconf(outside, "PC_PATH_MAX") - 40)
    for made in (False, True):
        if made:
            os.makedirs(near)  # (nothing else: the refusal made no folder)
        under = run(mini, *command, "--out", near)
        assert under.exit_code == 1 and "bytes long, past the" in under.output and drawn == [], under.output
        assert made or list(outside.iterdir()) == []
    inside = run(mini, *command, "--out", str(mini / ("n" * 300) / "sub"))
    assert inside.exit_code == 2 and "loop" not in inside.output and drawn == [], inside.output


def test_a_line_break_in_the_name_of_a_file_in_the_way_is_said_as_an_escape(mini):
    """The file in the way of --out was named as it is: a line break in its name forged a line of pnp's output."""
    (mini / "forged\nerror: x").write_text("a file\n")
    result = run(mini, "calibrate", "--out", str(mini / "forged\nerror: x" / "sub"))
    assert result.exit_code == 1 and "forged\\nerror: x is a file, not a folder" in result.output, result.output
    assert not any(line.startswith("error: x") for line in result.output.splitlines())


def _path_of(folder, length: int) -> str:
    """A path of `length` bytes in `folder`, of folders of 250 letters (the last shorter)."""
    path = str(folder)
    while len(path) + 251 < length:
        path += "/" + "d" * 250
    return path + "/" + "e" * (length - len(path) - 1)


def test_convert_refuses_an_out_whose_folder_or_file_name_is_longer_than_the_file_system_allows(mini):
    """`pnp convert --out` into a folder named with 300 letters was a traceback ("File name too long" where it
    asked whether the file was there); a file name of 240 letters was said as "cannot write to" its folder,
    made too long by the temporary it is written as first."""
    outside = mini.parent / "outside-convert"
    outside.mkdir()
    table = str(mini / "cards" / "mini" / "cards.yaml")
    for out, said in ((outside / ("n" * 300) / "x.csv", "the folder name n"), (outside / ("n" * 240 + ".csv"), "the name n")):
        result = run(mini, "convert", table, "--to", "csv", "--out", str(out))
        assert result.exit_code == 1 and said in result.output and "bytes long, past the" in result.output, result.output
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("command", [["build", "mini"], ["export", "mini", "--format", "png"], ["report", "mini"]])
def test_a_link_to_nothing_where_the_games_folder_goes_is_refused_before_any_drawing(mini, command, monkeypatch):
    """A symbolic link to nothing at <--out>/<game> passed the check (nothing there to stat), every page was
    drawn, then the folder could not be made in its place: "cannot write to .../mini: File exists"."""
    drawn = []
    monkeypatch.setattr(Studio, "printed", lambda self, printable, resolved=None: drawn.append(printable) or [])
    out = mini.parent / f"dangling-{command[0]}"
    out.mkdir()
    (out / "mini").symlink_to(mini.parent / "nowhere")
    result = run(mini, *command, "--out", str(out))
    assert result.exit_code == 1 and f"{out / 'mini'} is a symbolic link to {mini.parent / 'nowhere'}, which is no folder" \
        in result.output, result.output
    assert drawn == [] and [p.name for p in out.iterdir()] == ["mini"] and not (mini.parent / "nowhere").exists()


@pytest.mark.parametrize("command, name", [
    (["report", "mini"], "mini/mini-report.pdf"),
    (["calibrate"], "calibrate-a4.pdf"),
    (["build", "mini", "--only", "true"], f"mini/mini-selection-{Selection(only='true').key()}-a4.pdf"),  # a proof
    (["build", "mini", "--only", "true"], f"mini/manifest-selection-{Selection(only='true').key()}.json"),  # its record
])
def test_a_users_file_at_the_name_of_a_pdf_written_alone_is_refused_and_kept(tmp_path, mini, command, name):
    """`pnp report GAME --out DIR` replaced the user's own DIR/<game>/<game>-report.pdf, `pnp calibrate --out DIR`
    their DIR/calibrate-<paper>.pdf, a proof its <game>-selection-<key>-<paper>.pdf (a reprint likewise), exit 0:
    no manifest lists any, so pnp tells its own by its mark. A proof's record, manifest-selection-<key>.json, is
    pnp's when it is a manifest naming the game."""
    mine = tmp_path / "out" / name
    mine.parent.mkdir(parents=True)
    mine.write_text("mine\n")
    result = run(mini, *command, "--out", str(tmp_path / "out"))
    assert result.exit_code != 0 and f"{name}: error: " in result.output \
        and "a file pnp did not write" in result.output and "move it away, or choose another --out" \
        in result.output, result.output
    assert mine.read_text() == "mine\n"


def _pdf_info_early(info: bytes) -> bytes:
    """A PDF as ReportLab writes a long one: its Info (object 2) before 70 KB of page streams, then the table of
    objects and the trailer naming the Info."""
    parts = [b"%PDF-1.4\n", b"1 0 obj\n<< /Type /Catalog >>\nendobj\n", b"2 0 obj\n" + info + b"\nendobj\n",
             b"3 0 obj\n<< /Length 70000 >>\nstream\n" + b" " * 70_000 + b"\nendstream\nendobj\n"]
    offsets = [sum(map(len, parts[:i])) for i in range(1, len(parts))]
    table = b"xref\n0 4\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    trailer = b"trailer\n<< /Info 2 0 R /Root 1 0 R /Size 4 >>\nstartxref\n%d\n%%%%EOF\n" % sum(map(len, parts))
    return b"".join(parts) + table + trailer


@pytest.mark.parametrize("tail, refused", [
    (_pdf_info_early(b"<< /Creator (pnp) >>"), False),  # a reprint of a long rulebook: the Info found by the trailer
    (_pdf_info_early(b"<< /Creator (Word) >>"), True),
    (b"/Info 1 0 R" * 6000 + b"startxref 0 %%EOF", True),  # (each read once: no search backtracking over the tail)
    (b"%PDF-1.4\n<< /Creator (pnp) /Title (x) >>\n%%EOF\n", False),  # pnp's mark, as every PDF pnp writes now
    (b"%PDF-1.4\n<< /Author (pnp) /Creator (\\(unspecified\\)) /Title (G: design report) >>\n", False),  # earlier
    (b"%PDF-1.4\n<< /Creator (pnp) >>\n" + b" " * 70_000, True),  # a mark before the last 64 KB is not looked at
    (b"%PDF-1.4\n<< /Author (pnp) /Creator (Word) >>\n", True),
    (b"%PDF-1.4\n<< /Creator (pnp 0.1.0) >>\n", False),  # a kit's
    (b"%PDF-1.4\n<< /Creator (pnpx) >>\n", True),  # another tool's
    (b"mine\n", True),
])
def test_a_pdf_written_alone_is_pnps_by_its_mark(tmp_path, tail, refused):
    from pnp.errors import UsageError
    from pnp.project import refuse_unmarked_pdf

    (tmp_path / "a.pdf").write_bytes(tail)
    try:
        refuse_unmarked_pdf(tmp_path / "a.pdf", "the report", lambda p: p.name)
        assert not refused
    except UsageError as e:
        assert refused and str(e.mark) == "a.pdf" and "in the report's way" in e.message


@pytest.mark.parametrize("make, said", [
    (lambda p: p.write_text('{"game": "mini", "file": "x.pdf"}'), None),  # a manifest of the game: pnp's
    (lambda p: p.write_text('{"game": "other"}'), "a file pnp did not write"),
    (lambda p: p.write_text("[1]"), "a file pnp did not write"),
    (lambda p: p.mkdir(), None),  # (said when written: 'cannot write: a folder is in its place', and kept)
    (lambda p: p.symlink_to("nowhere"), "a link pnp did not make"),  # (removed when nothing changed, before)
    (lambda p: os.mkfifo(p), "a named pipe pnp did not make"),
])
def test_a_proofs_or_reprints_manifest_is_pnps_when_it_names_the_game(tmp_path, make, said):
    from pnp.errors import UsageError
    from pnp.kit.inputs import refuse_foreign_record

    make(tmp_path / "manifest-reprint-0.json")
    try:
        refuse_foreign_record(tmp_path / "manifest-reprint-0.json", "mini", "the reprint", lambda p: p.name)
        assert said is None
    except UsageError as e:
        assert said is not None and e.message.startswith(said) and "in the reprint's way" in e.message \
            and str(e.mark) == "manifest-reprint-0.json", e.message


def test_a_pdf_pnp_cannot_read_is_kept_as_the_users(tmp_path, monkeypatch):
    """An unreadable file at the name was let through ('said when written'), and the rename replaced it."""
    import pnp.project
    from pnp.errors import UsageError

    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.4\n<< /Creator (pnp) >>\n")

    def unreadable(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(pnp.project.os, "open", unreadable)
    with pytest.raises(UsageError, match="in the report's way"):
        pnp.project.refuse_unmarked_pdf(tmp_path / "a.pdf", "the report", lambda p: p.name)


def test_a_folder_in_the_kit_manifests_place_is_said_there_not_at_the_kits_first_pdf(tmp_path):
    """A folder named manifest.json beside the kit: no manifest read, the kit's first PDF was refused as 'a file
    pnp did not write (no manifest.json beside it lists it)', and moving it away led to the folder's refusal."""
    from pnp.kit.render import _refuse_foreign

    (tmp_path / "manifest.json").mkdir()
    (tmp_path / "mini-a4.pdf").write_bytes(b"%PDF-1.4 old")
    with pytest.raises(IsADirectoryError) as refused:
        _refuse_foreign(tmp_path, "manifest.json", None, ["mini-a4.pdf"], "mini", lambda p: p.name)
    assert refused.value.filename == str(tmp_path / "manifest.json")


@pytest.mark.parametrize("there", [b'{"game": "other"}', b"[" * 5])
def test_a_manifest_not_the_games_is_said_before_the_kits_files_it_does_not_list(tmp_path, there):
    """A game named before 'manifest.json' (g: g-a4.pdf) had its kit's first PDF refused as 'no manifest.json
    beside it lists it', beside a manifest.json of another game's or damaged, never named."""
    from pnp.errors import UsageError
    from pnp.kit.render import _refuse_foreign

    (tmp_path / "manifest.json").write_bytes(there)
    (tmp_path / "g-a4.pdf").write_bytes(b"%PDF-1.4 old")
    with pytest.raises(UsageError) as refused:
        _refuse_foreign(tmp_path, "manifest.json", None, ["g-a4.pdf"], "g", lambda p: p.name)
    assert "not a manifest of g's kit" in refused.value.message and refused.value.mark.file == "manifest.json"


def test_a_pipe_swapped_in_for_simulation_results_after_the_look_never_holds_the_run(tmp_path, monkeypatch):
    """simulate looked at output/<game>/simulation.json (an ordinary file), then opened the name: a named pipe
    put there between the two held the run for good. What is opened is checked again, without waiting."""
    import threading

    import pnp.simulate as simulate

    path = tmp_path / "simulation.json"
    os.mkfifo(path)
    looked = os.stat(__file__)  # (as the look before the swap saw it: an ordinary file)
    monkeypatch.setattr(simulate.os, "lstat", lambda p: looked)
    said: list[object] = []
    reader = threading.Thread(target=lambda: said.append(simulate._foreign(path, "mini")), daemon=True)
    reader.start()
    reader.join(2)
    if reader.is_alive():  # (let the held reader go)
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    assert said and "pnp did not write" in str(said[0])


def test_a_pipe_swapped_in_for_a_file_managers_own_file_after_the_look_never_holds_the_export(tmp_path, monkeypatch):
    """An export looked at a .DS_Store in its folder (an ordinary file), then opened the name: a named pipe put
    there between the two held the export for good."""
    import pathlib
    import threading

    from pnp.export.run import _file_managers_own

    path = tmp_path / ".DS_Store"
    os.mkfifo(path)
    monkeypatch.setattr(pathlib.Path, "is_file", lambda self: True)  # (as the look before the swap saw it)
    said: list[bool] = []
    reader = threading.Thread(target=lambda: said.append(_file_managers_own(path)), daemon=True)
    reader.start()
    reader.join(2)
    if reader.is_alive():  # (let the held reader go)
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    assert said == [False]
