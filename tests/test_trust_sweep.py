"""What a received folder or a failing disk can do to the parts of pnp merged last: the parse cache, the
manifests read back, `python -m pnp` run inside a game folder, and a commit of a kit's files that fails half-way."""

import gc
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, make_project, run
from pnp import project as project_module
from pnp.kit import inputs
from pnp.kit.changes import MAX_MANIFEST_FACES, read_faces
from pnp.kit.faces import FACE_FIELDS
from pnp.kit.manifest import MAX_KEPT_WARNINGS, Manifest, warning_records
from pnp.errors import DataError, UsageError
from pnp.model.load import MAX_FILE_BYTES, ParsedFiles
from pnp.project import Project, commit_files, temporary_beside
from pnp.report import Mark, Report


def test_the_parse_cache_keeps_no_more_bytes_of_text_than_its_bound():
    assert ParsedFiles.MAX_BYTES >= MAX_FILE_BYTES  # the largest data file can be kept
    parsed = ParsedFiles()
    parsed.MAX_BYTES = 3000
    for n in range(5):  # files of one long text each: few values, many bytes
        assert parsed.load(f"- id: c{n}\n  text: {'x' * 1000}\n".encode(), f"cards/g/t{n}.yaml")[0]["id"] == f"c{n}"
    assert sum(size for _, size, _ in parsed._kept.values()) <= 3000 and len(parsed._kept) == 2


def _manifest(tmp_path, **changes):
    data = {"game": "g", "files": [], "warnings": [], "inputs": {"files": {}}, **changes}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("changes", [
    {"warnings": [{"message": "a", "file": "x.yaml", "line": None, "col": None},  # sorted with a number: traceback
                  {"message": "b", "file": "x.yaml", "line": 3, "col": 1}]},
    {"warnings": [{"message": "a\x1b]0;title\x07\nfake line", "file": "x.yaml", "line": 1, "col": 1}]},
    {"inputs": {"files": ["cards/g/cards.yaml"]}},
    {"inputs": {"files": {"cards/g/cards.yaml": 3}}},
])
def test_a_manifest_not_as_pnp_writes_it_is_refused_by_name(tmp_path, changes):
    with pytest.raises(UsageError) as refused:
        Manifest.read(_manifest(tmp_path, **changes), "output/g/manifest.json")
    assert str(refused.value.mark) == "output/g/manifest.json"


def test_a_manifest_naming_more_used_files_than_a_build_records_is_not_looked_at_one_by_one(tmp_path, monkeypatch):
    assert inputs.MAX_USED_ELSEWHERE >= 4134  # every icon of game-icons.net
    monkeypatch.setattr(inputs, "MAX_USED_ELSEWHERE", 3)
    project = Project(tmp_path)
    (tmp_path / "cards" / "g").mkdir(parents=True)
    (tmp_path / "cards" / "g" / "cards.yaml").write_text("[]\n")
    assert len(inputs.snapshot(project, "g", [tmp_path / f"cards/g/x{n}" for n in range(4)])) == 5
    with pytest.raises(ValueError):
        inputs.snapshot(project, "g", [tmp_path / f"cards/g/x{n}" for n in range(5)])


@pytest.mark.parametrize("name", ["lion\x1b[2J\nfake: line", "x" * 5000])
def test_changes_refuses_a_manifest_whose_names_would_act_on_the_terminal_or_flood_it(tmp_path, name):
    path = _manifest(tmp_path, face_fields=FACE_FIELDS,
                     components=[{"id": "deck", "faces": [[name, "front", 1, "0a", "0b"]]}])
    with pytest.raises(UsageError) as refused:
        read_faces(Project(tmp_path), path, "g")
    assert str(refused.value.mark) == "manifest.json" and "\n" not in str(refused.value)


@pytest.mark.parametrize("decks", [1, 2])  # one deck of too many faces; two decks of half as many (and themselves)
def test_changes_refuses_a_manifest_listing_more_faces_than_pnp_writes_at_the_manifest(tmp_path, decks):
    rows = [["c", "f", 1, "", ""]] * (MAX_MANIFEST_FACES // decks)  # (16 MB of such rows once took 30 s)
    faces = [{"id": f"d{n}", "faces": rows} for n in range(decks)]
    path = _manifest(tmp_path, face_fields=FACE_FIELDS, components=faces)
    with pytest.raises(UsageError) as refused:
        read_faces(Project(tmp_path), path, "g")
    assert str(refused.value.mark) == "manifest.json" and f"{MAX_MANIFEST_FACES:,}" in str(refused.value)
    at_cap = _manifest(tmp_path, face_fields=FACE_FIELDS, components=[{"id": "d", "faces": [["c", "f", 1, "", ""]]}])
    assert read_faces(Project(tmp_path), at_cap, "g") == {"d": {("c", "f"): ("", "")}}


def test_a_manifest_is_parsed_with_the_collector_paused_and_it_runs_again_after(tmp_path):
    assert gc.isenabled()
    Manifest.read(_manifest(tmp_path), "manifest.json")
    (tmp_path / "manifest.json").write_text("[[], [], {", encoding="utf-8")
    with pytest.raises(UsageError):
        Manifest.read(tmp_path / "manifest.json", "manifest.json")
    assert gc.isenabled()


def test_a_manifest_keeps_so_many_warnings_and_one_keeping_more_is_not_said_again(tmp_path):
    report = Report(tmp_path)
    for line in range(MAX_KEPT_WARNINGS + 5):
        report.warning("a warning", Mark("cards/g/cards.yaml", line + 1, 1))
    kept = warning_records(report)
    assert len(kept) == MAX_KEPT_WARNINGS + 1 and kept[-1]["message"].startswith("and 5 more warnings")
    assert len(Manifest.read(_manifest(tmp_path, warnings=kept), "m.json").replayed()) == MAX_KEPT_WARNINGS + 1
    with pytest.raises(UsageError) as refused:  # 200,000 planted ones took 18 s to say again
        Manifest.read(_manifest(tmp_path, warnings=kept + kept[:1]), "output/g/manifest.json")
    assert str(refused.value.mark) == "output/g/manifest.json" and f"{MAX_KEPT_WARNINGS:,}" in str(refused.value)


def test_python_m_pnp_in_a_game_folder_imports_nothing_from_it(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "click.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-m", "pnp", "--help"], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()


@pytest.mark.parametrize("given_root", [False, True])
def test_python_m_pnp_in_a_deleted_folder_is_no_traceback(tmp_path, given_root):
    gone = tmp_path / "gone"
    gone.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    arguments = ["--root", str(tmp_path), "list"] if given_root else ["list"]
    code = f"import os, subprocess, sys; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); " \
           f"r = subprocess.run([sys.executable, '-m', 'pnp', *{arguments!r}], capture_output=True, text=True); " \
           "sys.stdout.write(r.stderr)"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    # (os.getcwd() in __main__ raised FileNotFoundError; then it was said as output that could not be written)
    assert "Traceback" not in result.stdout
    # with an absolute --root the command runs there (ReportLab's import asked for the gone folder: refused)
    assert ("current folder is gone" in result.stdout) is not given_root


def test_ctrl_c_while_pnp_starts_is_no_traceback():
    """Ctrl-C in the second or so pnp's modules take to import printed Python's traceback (KeyboardInterrupt)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    code = "import os, signal, sys; sys.argv[0] = 'pnp'; import pnp; os.kill(os.getpid(), signal.SIGINT); " \
           "import time; time.sleep(30)"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stderr.strip() == "Aborted!"


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_end_a_command_as_ctrl_c_does(name):
    """SIGTERM and SIGHUP ended pnp where it stood: a build left its temporary files in the output folder."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    code = f"import os, signal, time, pnp; pnp.ready_for_interrupts(); os.kill(os.getpid(), signal.{name}); " \
           "time.sleep(30)"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert "KeyboardInterrupt" in result.stderr


def test_a_forked_worker_ends_by_sigterm_whichever_thread_the_system_hands_it_to():
    """`pnp build -j` hung after building every game: its pool's terminate() sent SIGTERM to a worker waiting on
    the task queue, the system handed it to the worker's other thread, and pnp's handler, waiting for the main
    thread to run Python, never ran. Here the worker's main thread blocks the signal, so only its other thread
    can take it."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    code = ("import os, signal, threading, time, pnp; pnp.ready_for_interrupts(); pid = os.fork()\n"
            "if pid == 0:\n"
            "    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
            "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM}); time.sleep(30); os._exit(0)\n"
            "time.sleep(0.1); os.kill(pid, signal.SIGTERM); end = time.monotonic() + 5\n"
            "while os.waitpid(pid, os.WNOHANG) == (0, 0) and time.monotonic() < end: time.sleep(0.01)\n"
            "print('ended' if time.monotonic() < end else 'hung'); os.kill(pid, signal.SIGKILL)\n")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "ended", result.stderr


def test_an_interrupt_raised_in_a_finalizer_is_delivered_again_not_printed_and_lost(monkeypatch, capsys):
    """SIGTERM during a regex's __del__ printed 'Exception ignored ... KeyboardInterrupt' and validate ended 0."""
    import signal

    import pnp

    class Finalized:
        def __del__(self) -> None:
            raise KeyboardInterrupt

    monkeypatch.setattr(sys, "unraisablehook", pnp._interrupt_not_lost)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            Finalized()
            time.sleep(5)  # (the signal, sent again a moment later, ends it)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert "Exception ignored" not in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full, a disk always full")
def test_output_sent_to_a_full_disk_is_one_line_of_error_not_a_traceback(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "pnp", "reference"], cwd=tmp_path, env=env, stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith("pnp: cannot write its output: ") and result.stderr.count("\n") == 1


def test_a_closed_standard_output_fails_as_a_full_disk_does(monkeypatch):
    """`pnp list >&-` and `pnp validate --json >&-` ended 0 with their output lost (Python leaves sys.stdout None
    and click printed to nothing); and a closed descriptor 0, 1 or 2 was the number of the next file pnp opened."""
    import click

    from pnp import cli

    kept = os.dup(0)
    try:
        os.close(0)
        monkeypatch.setattr(sys, "stdout", None)
        cli._standard_streams_held()
        assert os.path.samestat(os.fstat(0), os.stat(os.devnull))  # (held: no file of pnp's takes its number)
    finally:
        os.dup2(kept, 0)
        os.close(kept)
    with pytest.raises(OSError) as said:
        click.echo("pnp's product")
    assert said.value.filename is None  # (main says it as 'pnp: cannot write its output: ...', exit 1)


def test_a_closed_standard_error_or_input_is_no_bug_in_pnp(monkeypatch):
    """`pnp build 2>&-`: Python leaves sys.stderr None, and the first progress check (sys.stderr.isatty()) was
    'This is a bug in pnp'. Its messages now go nowhere, as with 2>/dev/null; a closed input reads as empty."""
    from pnp import cli

    monkeypatch.setattr(sys, "stderr", None)
    monkeypatch.setattr(sys, "stdin", None)
    cli._standard_streams_held()
    assert sys.stderr is not None and sys.stdin is not None
    assert isinstance(sys.stderr.isatty(), bool) and sys.stderr.writable()


def test_serve_with_its_output_not_written_says_so_not_that_it_cannot_listen(tmp_path, monkeypatch):
    """`pnp serve >&-` (or >/dev/full) said 'cannot listen on 127.0.0.1:8000: No space left on device', exit 2:
    the URL it could not print was taken for the socket's error. It is what main says of any output not written."""
    import click

    import pnp.serve.app

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pnp.serve.app, "serve", lambda project, games, host, port, listening, hosts:
                        listening("http://127.0.0.1:8000/", None))
    monkeypatch.setattr(click, "echo", full)
    with pytest.raises(OSError) as said:
        run(make_project(tmp_path / "proj"), "serve")
    assert said.value.errno == 28 and said.value.filename is None  # (main: 'pnp: cannot write its output: ...')


class _FullDisk:
    """A file on a disk that fills after 1,000 bytes."""

    def __init__(self, path, mode):
        self._file = open(path, mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._file.close()

    def write(self, data):
        if self._file.tell() + len(data) > 1000:
            raise OSError(28, "No space left on device")
        return self._file.write(data)

    def __getattr__(self, name):
        return getattr(self._file, name)


def test_a_disk_filling_while_the_whole_kit_is_saved_is_one_error_and_the_old_kit_stays(tmp_path, monkeypatch):
    """qpdf, saving with a deterministic id, ended the whole process (std::terminate, no message, temporary
    files left behind) when a write failed."""
    from pnp.kit import render
    from conftest import make_project, run

    root = make_project(tmp_path / "proj")
    assert run(root, "build").exit_code == 0
    folder = root / "output" / "mini"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    monkeypatch.setattr(render, "open_to_write", lambda path: _FullDisk(path, "wb"))  # (the all-in-one's file)
    result = run(root, "build", "--force")
    assert result.exit_code == 1 and "the disk is full; previous output left intact" in result.output
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_a_disk_filling_as_the_manifest_is_written_leaves_no_hidden_kit(tmp_path, monkeypatch):
    """The disk full as the kit's manifest was written, the last file: refused, but the kit's every new PDF was
    left hidden in its folder (.evo-a4.pdf.pnp-x.tmp...), as much again as the kit, on a disk full already."""
    from types import SimpleNamespace

    from pnp.kit import render
    from pnp.units import PrintOptions

    pdf = temporary_beside(tmp_path / "g-a4.pdf")
    pdf.write_bytes(b"%PDF-1.4 new")
    studio = SimpleNamespace(options=PrintOptions(), project=SimpleNamespace(rel=str))
    result = render.GameBuild(SimpleNamespace(id="g"), studio, tmp_path, files={"g-a4.pdf": pdf})

    class Full:
        def write(self, file):
            file.write("{")
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(render, "manifest", lambda result: Full())
    with pytest.raises(OSError):
        render.commit(result)
    assert list(tmp_path.iterdir()) == []


def _kit(folder: Path) -> dict[Path, Path]:
    """Three old files of a kit and the new ones written beside them, to be committed."""
    renames = {}
    for name in ("a.pdf", "b.pdf", "manifest.json"):
        (folder / name).write_bytes(b"old " + name.encode())
        tmp = temporary_beside(folder / name)
        tmp.write_bytes(b"new " + name.encode())
        renames[tmp] = folder / name
    return renames


def test_a_commit_that_fails_half_way_leaves_every_old_file_and_nothing_else(tmp_path, monkeypatch):
    renames = _kit(tmp_path)
    moved = []

    def fails_at_the_second(made, target):
        if moved:
            raise OSError(28, "No space left on device")
        moved.append(target)
        os.replace(made, target)

    monkeypatch.setattr(project_module, "move_into_place", fails_at_the_second)
    with pytest.raises(OSError):
        commit_files(renames)
    for tmp in renames:  # what the caller removes
        tmp.unlink(missing_ok=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == \
        {n: b"old " + n.encode() for n in ("a.pdf", "b.pdf", "manifest.json")}


@pytest.mark.parametrize("killed_after", [1, 2, 3])
def test_a_commit_killed_between_two_renames_leaves_the_old_files_for_the_next_clean_up_to_put_back(
        tmp_path, monkeypatch, killed_after):
    """A SIGKILL between two renames (no `except` or `finally` runs) left the first files new and the rest old,
    and the next command's clean-up removed the old ones' second names: the previous kit was lost. A file the
    new kit adds (a kind of component the old had not: c.pdf) went with the old kit put back, listed by none of
    its manifests, and every later build refused it as a file pnp did not write."""
    renames = _kit(tmp_path)
    added = temporary_beside(tmp_path / "c.pdf")
    added.write_bytes(b"new c.pdf")
    renames = {**dict(list(renames.items())[:2]), added: tmp_path / "c.pdf", **dict(list(renames.items())[2:])}
    moved = []

    def killed(made, target):
        if len(moved) == killed_after:
            raise KeyboardInterrupt  # stands for the kill: what follows is what the kill leaves on disk
        moved.append(target)
        os.replace(made, target)

    monkeypatch.setattr(project_module, "move_into_place", killed)
    monkeypatch.setattr(project_module, "remove_tree", lambda *args, **kwargs: None)  # (no clean-up ran)
    with pytest.raises(KeyboardInterrupt):
        commit_files(renames)
    monkeypatch.undo()
    project_module.remove_leftovers(tmp_path)
    for tmp in renames:  # what the next writer's clean-up removes as well
        tmp.unlink(missing_ok=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == \
        {n: b"old " + n.encode() for n in ("a.pdf", "b.pdf", "manifest.json")}


@pytest.mark.parametrize("forged", ["replaced", "new", "new-outside"])
def test_a_forged_leftover_of_a_commit_puts_back_or_removes_none_of_the_folders_files(tmp_path, forged):
    """The check digits of a leftover's name are no secret: a game folder someone sent held
    `output/<game>/..previous.pnp-<hex>.tmp/` with a `notes.txt` that the next command put over the user's own
    (any file of the folder), or a `.new` record of the user's file's size and time that had it removed, or a
    `.new` that was a link, whose folder outside the project was read. The forgery alone goes now."""
    from pnp.errors import temporary_name
    folder = tmp_path / "out"
    folder.mkdir()
    mine = folder / "notes.txt"
    mine.write_bytes(b"mine")
    leftover = folder / temporary_name(".previous", "0badf00d")
    leftover.mkdir()
    state = mine.stat()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "notes.txt").write_text(f"{state.st_size} {state.st_mtime_ns} {state.st_ino}")
    if forged == "replaced":
        (leftover / "notes.txt").write_bytes(b"forged")
        (leftover / ".replaced").mkdir()
        (leftover / ".replaced" / "notes.txt").write_text(f"{state.st_size} {state.st_mtime_ns}")
    elif forged == "new":
        (leftover / ".new").mkdir()
        (leftover / ".new" / "notes.txt").write_text(f"{state.st_size} {state.st_mtime_ns}")
    else:
        (leftover / ".new").symlink_to(tmp_path / "outside")
    project_module.remove_leftovers(folder)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"] and mine.read_bytes() == b"mine"


@pytest.mark.parametrize("killed", [False, True])
def test_a_kits_outgrown_file_goes_in_the_commit_of_the_new_kit_and_comes_back_with_the_old(tmp_path, monkeypatch,
                                                                                          killed):
    """The PDF of a kind of component the game no longer has was removed after the new kit's renames: a kill in
    between left it beside the new kit for good (no later build removed it: no manifest listed it any more)."""
    renames = _kit(tmp_path)
    (tmp_path / "d.pdf").write_bytes(b"old d.pdf")
    if killed:
        unlink = Path.unlink

        def kill_at_the_removal(path, missing_ok=False):
            if path == tmp_path / "d.pdf":
                raise KeyboardInterrupt  # stands for the kill, after every rename
            unlink(path, missing_ok=missing_ok)
        monkeypatch.setattr(Path, "unlink", kill_at_the_removal)
        monkeypatch.setattr(project_module, "remove_tree", lambda *args, **kwargs: None)  # (no clean-up ran)
        with pytest.raises(KeyboardInterrupt):
            commit_files(renames, [tmp_path / "d.pdf"])
        monkeypatch.undo()
        project_module.remove_leftovers(tmp_path)
    else:
        commit_files(renames, [tmp_path / "d.pdf"])
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == (
        {n: b"old " + n.encode() for n in ("a.pdf", "b.pdf", "manifest.json", "d.pdf")} if killed
        else {n: b"new " + n.encode() for n in ("a.pdf", "b.pdf", "manifest.json")})


@pytest.mark.parametrize("fails", [False, True])
def test_a_commit_on_a_file_system_without_hard_links_replaces_the_old_files_or_puts_them_back(tmp_path, monkeypatch,
                                                                                             fails):
    """The old files were kept aside by hard links alone: on a USB stick (FAT) every build over an older one
    failed, "Operation not permitted"."""
    def no_hard_links(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    def fails_at_the_manifest(made, target):
        if target.name == "manifest.json":
            raise OSError(28, "No space left on device")
        os.replace(made, target)

    renames = _kit(tmp_path)
    monkeypatch.setattr(project_module.os, "link", no_hard_links)
    if fails:
        monkeypatch.setattr(project_module, "move_into_place", fails_at_the_manifest)
        with pytest.raises(OSError):
            commit_files(renames)
        for tmp in renames:  # what the caller removes
            tmp.unlink(missing_ok=True)
    else:
        commit_files(renames)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == \
        {n: (b"old " if fails else b"new ") + n.encode() for n in ("a.pdf", "b.pdf", "manifest.json")}


def test_a_kill_between_the_renames_of_a_write_without_hard_links_leaves_the_old_file_at_its_name(tmp_path,
                                                                                                   monkeypatch):
    """Without hard links (FAT, a network share) the old file was renamed away to be kept: a pnp killed before
    the new file came left no file at its name (`convert --force` over a table: the table gone)."""
    class Killed(BaseException):
        pass

    def no_hard_links(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    def killed(made, target):
        raise Killed

    (tmp_path / "x.csv").write_bytes(b"mine")
    monkeypatch.setattr(project_module.os, "link", no_hard_links)
    monkeypatch.setattr(project_module, "move_into_place", killed)
    with pytest.raises(Killed):
        project_module.write_file(tmp_path / "x.csv", b"new")
    assert (tmp_path / "x.csv").read_bytes() == b"mine"


def test_an_export_folder_is_put_in_place_where_the_file_system_refuses_to_change_its_mode(tmp_path, monkeypatch):
    """FAT refuses a folder mode it cannot store: the export failed after every image was made."""
    def no_modes(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    (tmp_path / "png").mkdir()
    (tmp_path / "png" / "old.png").write_bytes(b"old")
    work = temporary_beside(tmp_path / "png", folder=True)
    (work / "new.png").write_bytes(b"new")
    monkeypatch.setattr(project_module.os, "chmod", no_modes)
    project_module.replace_folder(tmp_path / "png", work)
    assert [p.name for p in tmp_path.iterdir()] == ["png"]
    assert {p.name: p.read_bytes() for p in (tmp_path / "png").iterdir()} == {"new.png": b"new"}


def test_an_export_folder_set_aside_by_a_run_killed_before_the_new_took_its_place_is_put_back(tmp_path, monkeypatch):
    """A kill between replace_folder's two renames left no export folder, and the next run's clean-up removed
    the old one, set aside, with the temporaries: the previous export was lost. A work folder a killed run left
    is still removed."""
    (tmp_path / "png").mkdir()
    (tmp_path / "png" / "old.png").write_bytes(b"old")
    work = temporary_beside(tmp_path / "png", folder=True)
    (work / "new.png").write_bytes(b"new")
    monkeypatch.setattr(project_module, "move_into_place", lambda source, target: (  # killed after the first
        os.rename(source, target) if source == tmp_path / "png" else sys.exit("killed")))
    with pytest.raises(SystemExit):
        project_module.replace_folder(tmp_path / "png", work)
    monkeypatch.undo()
    project_module.remove_leftovers(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["png"]
    assert {p.name: p.read_bytes() for p in (tmp_path / "png").iterdir()} == {"old.png": b"old"}


def test_a_commits_folder_of_second_names_swapped_for_a_link_gets_nothing_through_it(tmp_path, monkeypatch):
    """The old files' second names (hard links) and the records of new ones were made in commit_files' folder by
    its path: that folder (in the output folder) swapped for a link to a folder outside while a kit was committed
    had the old kit linked, and the records written, outside the project."""
    folder, outside = tmp_path / "out", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    renames = _kit(folder)
    added = temporary_beside(folder / "c.pdf")
    added.write_bytes(b"new c.pdf")
    renames[added] = folder / "c.pdf"
    move = project_module.move_into_place

    def swapping_the_folder(made, target):  # (another process, after the first rename)
        for aside in folder.glob(".*.previous.pnp-*.tmp"):
            if not aside.is_symlink():
                aside.rename(folder / "moved-away")
                aside.symlink_to(outside)
        move(made, target)

    monkeypatch.setattr(project_module, "move_into_place", swapping_the_folder)
    with pytest.raises(OSError):  # (its last rename, of the link, onto a folder: the commit is undone)
        commit_files(renames)
    assert list(outside.iterdir()) == []
    kept = {n: (folder / n).read_bytes() for n in ("a.pdf", "b.pdf", "manifest.json")}
    assert kept == {n: b"old " + n.encode() for n in kept} and not (folder / "c.pdf").exists()


def test_a_commit_puts_every_new_file_in_place_and_leaves_no_second_name(tmp_path):
    commit_files(_kit(tmp_path))
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == \
        {n: b"new " + n.encode() for n in ("a.pdf", "b.pdf", "manifest.json")}


@pytest.mark.parametrize("name, said", [
    ("x\x1b]0;title\x07y", r"cards/'x\x1b]0;title\x07y' holds a control character"),  # sets the terminal's title
    ("a\nb", r"cards/'a\nb' holds a control character"),  # a forged line of output
    ("g" * 101, "is longer than 100 bytes"),  # output/<game>/<game>-cards-a4.pdf: past 255 bytes, build failed
])
def test_a_game_folder_named_to_act_on_the_terminal_or_too_long_is_refused_by_its_escaped_name(tmp_path, name, said):
    root = make_project(tmp_path / "proj")
    (root / "cards" / "mini").rename(root / "cards" / name)
    result = run(root, "validate")
    assert result.exit_code == 2
    assert said in result.output and "\x1b" not in result.output and name not in result.output


@pytest.mark.parametrize("names", [("Dino", "dino"), ("caf\u00e9", "cafe\u0301")])
def test_two_game_folders_a_mac_takes_for_one_are_refused_naming_both_and_their_output(tmp_path, names):
    """cards/Dino and cards/dino (or 'é' as one letter and as 'e' and an accent) are two games on Linux and one
    folder of output on a Mac, Windows or a USB stick: the second game's build wrote over the first's."""
    for name in (*names, "other"):
        (tmp_path / "cards" / name).mkdir(parents=True)
        (tmp_path / "cards" / name / "game.yaml").write_text("name: x\n")
    with pytest.raises(UsageError) as refused:
        Project(tmp_path).games()
    first, second = (repr(name) for name in sorted(names))
    said = str(refused.value)
    assert f"game folders cards/{first} and cards/{second} differ only in case" in said
    assert f"output/{first} and output/{second}" in said


@pytest.mark.parametrize("name", ["shared", "Con.txt", "calibrate-A4.pdf"])
def test_a_game_folder_of_a_name_pnp_reserves_is_refused_as_pnp_new_refuses_it(tmp_path, name):
    """Only `pnp new` refused these: cards/shared made by hand validated, its layouts/shared every game's shared
    layouts; cards/Con.txt cannot be checked out on Windows; output/calibrate-a4.pdf is `pnp calibrate`'s sheet,
    and a game named so was refused by whichever of build and calibrate came second, 'Is a directory'."""
    (tmp_path / "cards" / name).mkdir(parents=True)
    (tmp_path / "cards" / name / "game.yaml").write_text("name: x\n")
    with pytest.raises(UsageError, match=f"game folder cards/'{name}' is a name pnp reserves"):
        Project(tmp_path).games()


def test_a_game_folder_of_a_name_windows_cannot_hold_is_refused(tmp_path):
    """A game folder whose name ends in a dot or a space (Windows drops it: `evo.` is `evo` there), or holds a
    character Windows refuses, validated and built: a kit of it sent to a Windows user could not be unpacked, nor
    the project checked out there. Each is refused naming the folder, as pnp reserves the names of its devices."""
    for name, said in (("evo.", "ends in a dot"), ("evo ", "ends in a space"), ("a:b", "holds :"),
                       ('q"?', 'holds " ?'), ("con .txt", "is a name pnp reserves")):
        folder = tmp_path / name / "cards" / name
        folder.mkdir(parents=True)
        (folder / "game.yaml").write_text("name: x\n")
        with pytest.raises(UsageError, match=f"game folder cards/{re.escape(repr(name))} {said}"):
            Project(tmp_path / name).games()


def test_a_game_folder_whose_game_file_is_spelt_otherwise_is_refused_not_left_out(tmp_path):
    """A game's Game.yaml is found as game.yaml on a Mac's disk, blind to case; on Linux `pnp build` built the
    project's other games, exit 0, and left that one out without a word (a game.yml too)."""
    root = make_project(tmp_path / "proj")
    for game, spelt in (("other", "Game.yaml"), ("third", "game.yml")):
        shutil.copytree(root / "cards" / "mini", root / "cards" / game)
        (root / "cards" / game / "game.yaml").rename(root / "cards" / game / spelt)
    result = run(root, "build")
    assert result.exit_code == 2 and not (root / "output").exists()
    assert "game folder cards/'other' holds 'Game.yaml', not game.yaml: rename it to game.yaml" in result.output
    (root / "cards" / "other" / "Game.yaml").rename(root / "cards" / "other" / "game.yaml")
    result = run(root, "validate", "mini")
    assert result.exit_code == 2
    assert "game folder cards/'third' holds 'game.yml', not game.yaml: rename it to game.yaml" in result.output


def test_games_are_found_in_no_hidden_folder_and_never_outside_the_project(tmp_path):
    """`pnp list` showed cards/.old as a game ('.old: .old (? players, ?)') that `pnp validate` then refused as
    a hidden folder, failing every other game's run with it: pnp reads no hidden folder as a game, for any
    command, and one named on the command line is said to be hidden."""
    for name in (".old", "mini"):
        (tmp_path / "cards" / name).mkdir(parents=True)
        (tmp_path / "cards" / name / "game.yaml").write_text("name: x\n")
    assert Project(tmp_path).games() == Project(tmp_path).select(None) == ["mini"]
    with pytest.raises(UsageError, match="game folder cards/'.old' is hidden"):
        Project(tmp_path).select([".old"])
    # cards/ a link out of the project: its games were listed from there, which validate refused one by one
    (tmp_path / "other").mkdir()
    shutil.move(tmp_path / "cards", tmp_path / "other" / "cards")
    (tmp_path / "other" / "project").mkdir()
    (tmp_path / "other" / "project" / "cards").symlink_to(tmp_path / "other" / "cards")
    with pytest.raises(DataError, match="folder 'cards' is outside the project folder"):
        Project(tmp_path / "other" / "project").games()


def test_list_says_a_refused_title_player_count_or_time_is_unknown_not_none(tmp_path):
    """A value validate refuses is held as None: `pnp list` said 'None (None players, None)', Python's word."""
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["players: 2-3", "players: [2, 4]"], ["time: 10 minutes", "time: {a: 1}"], ["title: Mini Game", "title: [1]"]]}})
    listed = run(root, "list")
    assert listed.stdout.startswith("mini: mini (? players, ?)\n") and "(3 data errors:" in listed.stderr
    one = make_project(tmp_path / "one", case={"replace": {"cards/mini/game.yaml": [["title: Mini Game", "title: {a: 1}"]]}})
    assert "(1 data error: run" in run(one, "list").stderr  # not '1 data errors'


def test_font_files_named_by_many_families_are_read_within_a_bound(tmp_path, monkeypatch):
    # each font file is read and kept whole by ReportLab: one 60 MB font named by 30 families was 7 GB (one file
    # is now read once however many name it: two files of it are read twice)
    from pnp.draw import fonts
    font = REPO / "pnp" / "fonts" / "SourceSansPro" / "SourceSansPro-Regular.ttf"
    monkeypatch.setattr(fonts, "MAX_FONTS_READ", 3 * font.stat().st_size // 2)  # one reading of it, and a half
    root = make_project(tmp_path / "proj", {
        "fonts/fonts.yaml": "families:\n  Body: {regular: f.ttf}\n  Display: {regular: g.ttf}\n"})
    (root / "fonts" / "f.ttf").write_bytes(font.read_bytes())
    (root / "fonts" / "g.ttf").write_bytes(font.read_bytes())
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "fonts/fonts.yaml:3:22: error: the font files fonts.yaml names add up to more than" in result.stderr


def test_folders_nested_past_pythons_recursion_limit_are_inputs_like_any_other(tmp_path):
    """A game folder someone sent, with folders nested 1,200 deep: `pnp build` raised RecursionError while it
    listed the game's inputs; every file is listed, a link to a folder is not walked into."""
    project = Project(tmp_path)
    game = tmp_path / "cards" / "g"
    game.mkdir(parents=True)
    deep = game
    for _ in range(1200):  # one by one: Path.mkdir(parents=True) recurses as deep
        deep = deep / "d"
        deep.mkdir()
    (deep / "x.yaml").write_text("[]\n")
    (game / "cards.yaml").write_text("[]\n")
    (game / "loop").symlink_to("..")
    try:
        names = inputs.snapshot(project, "g")
        assert sorted(names) == ["cards/g/cards.yaml", "cards/g/" + "d/" * 1200 + "x.yaml"]
    finally:  # removed here, deepest first: pytest's clean-up of old temporary folders (shutil.rmtree) recurses,
        # and a later run's would raise RecursionError on this tree
        (deep / "x.yaml").unlink()
        while deep != game:
            deep.rmdir()
            deep = deep.parent


def test_a_game_folder_holding_more_files_than_the_cap_is_refused_by_name_before_they_are_read(tmp_path, monkeypatch):
    """120,000 unused files in layouts/<game>/ took 20 s of CPU a build and the preview never came up: the
    build's inputs and the preview's listing stop at the cap with the folder's name."""
    from pnp import printables
    from pnp.errors import DataError

    assert project_module.MAX_FOLDER_FILES > 10 * max(  # the shipped games are far below it
        sum(len(files) for _, _, files in os.walk(REPO / part / game))
        for part in ("cards", "layouts") for game in os.listdir(REPO / "cards"))
    monkeypatch.setattr(project_module, "MAX_FOLDER_FILES", 5)
    project = Project(tmp_path)
    (tmp_path / "cards" / "g").mkdir(parents=True)
    junk = tmp_path / "layouts" / "g" / "junk"
    junk.mkdir(parents=True)
    for n in range(5):
        (junk / str(n)).write_text("")
    assert len(inputs.snapshot(project, "g")) == 5
    (junk / "5").write_text("")
    with pytest.raises(DataError) as refused:
        inputs.snapshot(project, "g")
    assert str(refused.value).startswith("layouts/g: holds more than 5 files")
    with pytest.raises(DataError) as refused:
        printables._files_under(tmp_path / "layouts" / "g", project)
    assert str(refused.value).startswith("layouts/g: holds more than 5 files")
    # ... and validate says so too: it never says ok to a game its build refuses
    assert [str(e) for e in project.folder_problems("g")] == [str(refused.value)]


def test_a_kit_inputs_digest_reads_a_file_as_it_was_checked_inside_the_project(tmp_path, monkeypatch):
    """A build's snapshot of its inputs checks each file's path to lie inside the project, then opened it by that
    path, following links: a folder of it swapped for a link to a folder outside between the two (a race) had
    pnp read and digest a file outside. It is opened one folder at a time from the project's, and stands as what
    could not be read."""
    root, outside = tmp_path / "proj", tmp_path / "outside"
    (root / "cards/g").mkdir(parents=True)
    outside.mkdir()
    (root / "cards/g/cards.yaml").write_text("inside\n")
    (outside / "cards.yaml").write_text("outside\n")
    hidden = inputs.is_hidden

    def swapped_after_the_check(project, real):
        found = hidden(project, real)
        if not (root / "cards/g").is_symlink():
            (root / "cards/g").rename(root / "cards/g-before")
            (root / "cards/g").symlink_to(outside, target_is_directory=True)
        return found

    monkeypatch.setattr(inputs, "is_hidden", swapped_after_the_check)
    said = inputs._digest(Project(root), root / "cards/g/cards.yaml")
    assert said != inputs.sha256(outside / "cards.yaml") and "cannot be read" in said, said


@pytest.mark.skipif(not hasattr(os, "fork"), reason="flock: POSIX")
def test_a_write_outside_any_lock_removes_the_temporaries_killed_writers_of_its_file_left_not_a_live_ones(tmp_path):
    """`pnp convert` (or icons add, simulate --out) SIGKILLed between making its temporary and renaming it left
    the whole hidden file beside the table for good: nothing of pnp's ever removed it. The next write of that
    file removes the ones no live writer holds, and outside an output folder another file's too (see
    test_writes' test_a_killed_writers_temporary_of_another_name_goes_outside_an_output_folder); a held one, or
    one just made, is left."""
    import fcntl
    import time

    from pnp.project import write_file
    target = tmp_path / "cards.xlsx"
    dead, live, fresh = (temporary_beside(target) for _ in range(3))
    other = temporary_beside(tmp_path / "x.yaml")  # another file's: removed too, in no output folder
    old = time.time() - 3600
    for path in (dead, live, other):
        os.utime(path, (old, old))
    held = os.open(live, os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        write_file(target, b"new")
    finally:
        os.close(held)
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, live.name, fresh.name])


def test_a_probe_a_killed_pnp_left_where_no_lock_is_held_is_removed_by_the_next_probe(tmp_path):
    """`pnp export` SIGKILLed between making and removing the probe of its game folder (which no lock of
    export's covers) left an empty .probe.pnp-<hex>.tmp folder there that no later export ever removed. The
    next probe there removes it, but never a non-empty folder of that name nor another name."""
    from pnp import project as project_module
    folder = tmp_path / "game"
    folder.mkdir()
    left = temporary_beside(folder / "probe", folder=True)
    kept = temporary_beside(folder / "probe", folder=True)
    (kept / "x").write_bytes(b"")
    other = temporary_beside(folder / "other", folder=True)
    (users := folder / ".probe.pnp-aaaaaaaaaaaa.tmp").mkdir()  # (named alike, its check digits wrong)
    project_module._writable(Project(tmp_path), folder / "export" / "tgc", folder)
    assert sorted(p.name for p in folder.iterdir()) == sorted([kept.name, other.name, users.name])
    assert not left.exists()


def test_a_leftover_deeper_than_python_recurses_is_removed_by_a_loop(tmp_path):
    """A game folder someone sent with a killed run's leftover in its output holding folders 1,500 deep: its
    removal (shutil.rmtree, a call per folder) made every build 'a bug in pnp' (RecursionError). Said under a
    lowered recursion limit, so the tree stays shallow; a link in it is removed, not what it leads to."""
    from pnp.errors import temporary_name

    leftover = tmp_path / temporary_name("png", "01234567")
    deep = leftover / "/".join(["d"] * 300)
    deep.mkdir(parents=True)
    (deep / "f.png").write_bytes(b"x")
    (deep / "link").symlink_to(tmp_path / "kept")
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "k").write_bytes(b"k")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(250)
    try:
        project_module.remove_leftovers(tmp_path)
    finally:
        sys.setrecursionlimit(limit)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept"] and (tmp_path / "kept" / "k").exists()


@pytest.mark.parametrize("folder", ["output", "cards"])
def test_an_older_pnps_leftover_without_check_digits_is_kept_and_said(tmp_path, capsys, folder):
    """A pnp of before the check digits, killed while it wrote, left `.x.pdf.pnp-<12 hex>.tmp` (a set-aside kit,
    megabytes) in an output folder, or a table's or icon's beside it (convert, icons add): today's clean-up keeps
    it (it may be a user's) and it lay there unsaid."""
    from pnp.errors import temporary_name
    old = tmp_path / ".a.pdf.pnp-669c4ff4f4d1.tmp"
    old.write_bytes(b"old pnp's")
    today = tmp_path / temporary_name("a.pdf", "0badf00d")
    today.write_bytes(b"today's")
    (tmp_path / "notes.txt").write_bytes(b"mine")
    if folder == "output":
        project_module.remove_leftovers(tmp_path)
    else:
        os.utime(today, (0, 0))  # (a dead writer's: old)
        project_module._remove_dead_writers(tmp_path / "a.pdf", tmp_path / "mine")
        project_module._remove_dead_writers(tmp_path / "a.pdf", tmp_path / "mine")  # (said once a command)
    said = capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == [old.name, "notes.txt"]
    assert said.count("note: kept") == 1 and old.name in said and "notes.txt" not in said


def test_an_older_pnps_export_record_listing_no_sizes_is_checked_by_sha256(tmp_path):
    # an export.json written before pnp recorded each file's "bytes": every file of it was taken as 'changed
    # since', and a newer pnp refused to export over the user's own export until it was moved away
    import hashlib

    from pnp.export.run import _first_unlisted, _Reading
    from pnp.kit.manifest import UNRECORDED, of_size

    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "001-a-front.png").write_bytes(b"face")
    listed = {"cards/001-a-front.png": (hashlib.sha256(b"face").hexdigest(), UNRECORDED)}
    assert _first_unlisted(tmp_path, listed, _Reading(own=False)) is None
    (tmp_path / "cards" / "001-a-front.png").write_bytes(b"edited")  # still told from its sha256
    assert _first_unlisted(tmp_path, listed, _Reading(own=False)) == ("cards/001-a-front.png", True)
    assert of_size(4, 4) and of_size(4, UNRECORDED) and not of_size(5, 4)
