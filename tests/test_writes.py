"""What pnp writes and what it trusts from earlier runs: each variant under its own names, one writer per
output folder at a time, outputs only in real folders of the project (or the --out given), manifests that
open only their own folder's files, cache entries that are checked before they are used."""

import dataclasses
import fcntl
import hashlib
import json
import marshal
import os
import shutil
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from conftest import REPO, make_project, run
from pnp.kit.inputs import listed_file, manifest_name, sha256
from pnp.kit.run import already_built
from pnp.cache import DiskCache, _checksum
from pnp.errors import temporary_name
from pnp.project import Project
from pnp.units import MM, PrintOptions

# a value other than the home kit's for every print option: a new option must say how its files are named
NOT_HOME = {"paper": "letter", "bleed": 3 * MM, "ink_saver": True, "imposition": "gutterfold",
            "duplex_offset": (0.5 * MM, -1 * MM), "marks": "corners", "draft": True}


def kit(folder, manifest="manifest.json"):
    """{file name: bytes} of the kit a manifest lists, after checking each against its sha256."""
    listed = json.loads((folder / manifest).read_text(encoding="utf-8"))["files"]
    files = {f["path"]: (folder / f["path"]).read_bytes() for f in listed}
    for f in listed:
        assert hashlib.sha256(files[f["path"]]).hexdigest() == f["sha256"], f["path"]
    return files


# -- variants -----------------------------------------------------------------------------------------------
def test_every_print_option_is_in_the_names_of_what_it_prints():
    assert {f.name for f in dataclasses.fields(PrintOptions)} == set(NOT_HOME)
    home = PrintOptions()
    assert (home.variant, manifest_name(home)) == ("", "manifest.json")  # the home kit keeps its names
    variants = [PrintOptions(**{name: value}) for name, value in NOT_HOME.items()]
    variants += [PrintOptions(marks="none"), PrintOptions(bleed=0.5 * MM), PrintOptions(**NOT_HOME)]
    names = [(o.paper + o.variant, manifest_name(o)) for o in [home, *variants]]
    assert len({pdf for pdf, _ in names}) == len({m for _, m in names}) == len(names)
    assert manifest_name(PrintOptions(**NOT_HOME)) == \
        "manifest-letter-bleed3mm-inksaver-gutterfold-offset0.5_-1mm-cornermarks-draft.json"


def test_options_differing_below_what_the_names_say_print_the_same_kit():
    # the names and the manifest say lengths to 0.01 mm: what is printed is that length, never a third kit
    # written under another's names
    named = PrintOptions(bleed=0.25 * MM, duplex_offset=(0.54 * MM, -1 * MM))
    finer = PrintOptions(bleed=0.254 * MM, duplex_offset=(0.541 * MM, -1.001 * MM))
    assert finer == named and manifest_name(finer) == "manifest-bleed0.25mm-offset0.54_-1mm.json"
    # a length that rounds to nothing is the home kit's, in its manifest too (which said -0.0)
    assert PrintOptions(bleed=-0.0, duplex_offset=(-0.001 * MM, -0.0)).record() == PrintOptions().record()
    assert "-0" not in json.dumps(PrintOptions(duplex_offset=(-0.001 * MM, -0.0)).record())


def test_a_build_with_other_options_never_touches_another_builds_files(tmp_path):
    root = make_project(tmp_path / "p")
    folder = root / "output" / "mini"
    assert run(root, "build").exit_code == 0
    home = {p.name: (p.read_bytes(), p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.iterdir()}
    for options in (["--bleed", "3"], ["--paper", "letter"]):
        result = run(root, "build", *options)
        assert result.exit_code == 0 and "6 files" in result.output, result.output
    assert {p.name: (p.read_bytes(), p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.iterdir()
            if p.name in home} == home  # not one byte written again
    kits = [kit(folder, m) for m in ("manifest.json", "manifest-bleed3mm.json", "manifest-letter.json")]
    assert sum(len(k) for k in kits) == len({name for k in kits for name in k}) == 15  # no file shared
    assert "mini-a4-bleed3mm.pdf" in kits[1] and "mini-boards-fullsize-letter.pdf" in kits[2]
    for options in ([], ["--bleed", "3"], ["--paper", "letter"]):  # each variant is up to date by itself
        assert "mini: up to date" in run(root, "build", *options).output


# -- two builds at once -------------------------------------------------------------------------------------
def test_two_builds_at_once_wait_for_each_other_and_write_one_whole_kit(tmp_path):
    root = make_project(tmp_path / "p")
    folder = root / "output" / "mini"
    folder.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-c", "from pnp.cli import main; main()", "--root", str(root), "build", "--jobs", "1"]
    lock = os.open(folder / ".pnp.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)  # a build already writing: both new ones must wait for it, then each other
    errs = [tmp_path / f"err{i}" for i in range(2)]
    builds = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=err.open("w")) for err in errs]
    deadline = time.monotonic() + 30
    while not all("waiting" in err.read_text() for err in errs) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.close(lock)
    outs = [b.communicate(timeout=60)[0].decode() for b in builds]
    assert [b.returncode for b in builds] == [0, 0], outs
    assert all("output/mini: another pnp is writing here; waiting" in err.read_text() for err in errs)
    assert sorted(o.split(",")[0] for o in outs) == ["mini: 6 files", "mini: up to date"]
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    assert run(root, "build", "--out", str(tmp_path / "fresh")).exit_code == 0
    assert kit(folder) == kit(tmp_path / "fresh" / "mini")  # byte for byte a single build's


@pytest.mark.parametrize("output_folder", [False, True])
def test_a_killed_writers_temporary_of_another_name_goes_outside_an_output_folder(tmp_path, output_folder):
    """A `convert --out cards/g/new.csv` (or `icons add`) SIGKILLed left .new.csv.pnp-<hex>.tmp beside the table,
    removed only by a run writing new.csv again, often never: the next write into that folder removes it now.
    Kept: one written a moment ago or whose writer holds its lock (a live pnp's), and in an output folder (its
    .pnp.lock there) any but the written file's own, which a build there writes holding no lock on them."""
    from pnp.project import LOCK_NAME, write_file

    if output_folder:
        (tmp_path / LOCK_NAME).write_bytes(b"")
    dead, fresh, live = (tmp_path / temporary_name(f"{name}.csv", "01234567") for name in ("new", "fresh", "live"))
    for path in (dead, fresh, live):
        path.write_bytes(b"id,name\n")
    for path in (dead, live):
        os.utime(path, (time.time() - 3600,) * 2)
    held = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        write_file(tmp_path / "cards.csv", b"id,name\n")
    finally:
        os.close(held)
    assert dead.exists() == output_folder and fresh.exists() and live.exists()


def test_what_a_killed_pnp_left_is_removed_by_the_next_writer_of_the_folder(tmp_path):
    """A build or export killed while it wrote (SIGKILL: no clean-up runs) left its temporary files and
    folders for good; the next command holding the folder's lock removes those, and nothing else."""
    root = make_project(tmp_path / "p")
    folder, export = root / "output" / "mini", root / "output" / "mini" / "export"
    left = [folder / temporary_name("mini-a4.pdf", "01234567"), folder / temporary_name("mini-report.pdf", "ba987654"),
            export / temporary_name("proof", "0a1b2c3d") / "deck.pdf"]
    kept = [folder / "notes.pnp-0123456789ab.tmp", folder / ".mini-a4.pdf.0123456789ab.tmp",  # not pnp's
            folder / ".mini-a4.pdf.tmp", export / ".proof-keep" / "x",
            folder / ".notes.pnp-aaaaaaaaaaaa.tmp"]  # (a user's, named alike: its check digits are not pnp's)
    for path in left + kept:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"%PDF-1.7 half")
    assert run(root, "build", "--jobs", "1").exit_code == 0
    assert run(root, "export", "mini", "--format", "proof", "--jobs", "1").exit_code == 0
    assert [p for p in left if p.exists()] == [] and not left[2].parent.exists()
    assert all(p.exists() for p in kept)
    assert not [p.name for p in folder.rglob("*.tmp") if p not in kept and p.parent not in kept]
    # killed after the kit was made (a forced build): the next finds it up to date, and still removes them
    for path in left:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"%PDF-1.7 half")
    assert "up to date" in run(root, "build", "--jobs", "1").output
    assert "up to date" in run(root, "export", "mini", "--format", "proof").output
    assert [p for p in left if p.exists()] == [] and all(p.exists() for p in kept)


def test_a_shared_icon_saved_while_a_build_draws_makes_the_next_build_again(tmp_path, monkeypatch):
    """A shared icon is an input only once a build has used it, so it is digested at the end: saved during
    the build, it was recorded as the new version though the old one was drawn, and the kit found up to date."""
    import pnp.kit.render as render

    root = make_project(tmp_path / "p")
    icon = root / "layouts" / "shared" / "icons" / "round-star.svg"
    drawn = icon.read_bytes()
    original = render.render_game

    def saved_meanwhile(*args, **kwargs):
        result = original(*args, **kwargs)
        icon.unlink()  # a new file, as an editor saves (it may be a hard link to the repository's)
        icon.write_bytes(drawn + b"<!-- saved again -->\n")
        return result

    monkeypatch.setattr(render, "render_game", saved_meanwhile)
    assert run(root, "build", "--jobs", "1").exit_code == 0
    monkeypatch.undo()
    again = run(root, "build", "--jobs", "1")
    assert again.exit_code == 0 and "up to date" not in again.output
    assert "up to date" in run(root, "build", "--jobs", "1").output


def test_a_game_file_rewritten_while_a_build_reads_it_is_not_recorded_as_built_from(tmp_path):
    """The game's own files are digested before the build reads them: one saved meanwhile and then put back as
    it was (an undo, an editor rewriting it in place as the build read it) matched its digest again, and the
    kit drawn from what was read in between was found up to date from then on. What does not write the file
    keeps it built from: a hard link made to it elsewhere (which changes its change time), a time past now (an
    archive unpacked from a machine whose clock was ahead, never up to date again)."""
    from pnp.kit.inputs import CHANGED_WHILE_BUILT, build_start, record

    root = make_project(tmp_path / "p")
    project = Project(root.resolve())
    game = root / "cards" / "mini"
    for name, when in (("cards.yaml", 10**18), ("game.yaml", time.time_ns() + 3600 * 10**9)):
        data = (game / name).read_bytes()
        (game / name).unlink()  # (a file of its own, not a hard link into the repository's)
        (game / name).write_bytes(data)
        os.utime(game / name, ns=(when, when))  # (2001: its rewrite has another time; an hour ahead)
    start = build_start(project, "mini")
    with open(game / "cards.yaml", "r+b") as f:  # in place: the same file, the same bytes
        f.write((game / "cards.yaml").read_bytes())
    os.link(game / "game.yaml", tmp_path / "backup-of-game.yaml")
    elsewhere = root / "notes.txt"  # (a file it used outside its folders, such as a shared icon)
    elsewhere.write_text("x")
    os.utime(elsewhere, ns=(time.time_ns() + 3600 * 10**9,) * 2)
    files = record(project, "mini", start, [elsewhere])["files"]
    assert files["cards/mini/cards.yaml"] == CHANGED_WHILE_BUILT
    assert files["cards/mini/game.yaml"] == start.digests["cards/mini/game.yaml"] != CHANGED_WHILE_BUILT
    assert files["notes.txt"] not in ("", CHANGED_WHILE_BUILT)


def test_ctrl_c_on_a_build_in_processes_leaves_no_temporary_files(tmp_path, monkeypatch):
    """The pool ends its workers on Ctrl-C before they can remove their temporary files: the parent does."""
    import pnp.kit.run as kit_run

    root = make_project(tmp_path / "p")
    folder = root / "output" / "mini"
    folder.mkdir(parents=True)
    (folder / ".pnp.lock").touch()
    left = folder / temporary_name("mini-a4.pdf", "01234567")  # as a worker ended midway leaves it
    left.write_bytes(b"%PDF-1.7 half")

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(kit_run, "_follow", interrupted)
    with pytest.raises(KeyboardInterrupt):
        kit_run.build_games(Project(root.resolve()), ["mini", "mini"], PrintOptions(), root / "output", jobs=2)
    assert not left.exists()


# -- where outputs go ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("link, commands", [
    ("output", [["build"], ["report"], ["calibrate"], ["simulate", "mini"]]),
    ("output/mini", [["build"], ["report"], ["export", "--format", "proof"], ["simulate", "mini"]]),
    ("output/mini/export", [["export", "--format", "proof"]]),
])
def test_a_linked_output_folder_is_refused(tmp_path, link, commands):
    root = make_project(tmp_path / "p")
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / link).symlink_to(elsewhere)
    for command in commands:
        result = run(root, *command)
        assert result.exit_code == 2, (command, result.output)
        # (at the path, as every refusal at a path: it was `Error: output/mini: output is a symbolic link ...`)
        assert result.output.startswith(f"{link}") and f": error: {link} is a symbolic link (to {elsewhere})" \
            in result.output, (command, result.output)
        assert "give --out a folder outside the project" in result.output
    assert not list(elsewhere.iterdir())


def test_a_linked_folder_on_converts_way_advises_an_out_file(tmp_path):
    # convert's --out names a file: it was told to give "--out a folder outside the project"
    root = make_project(tmp_path / "p")
    (tmp_path / "elsewhere").mkdir()
    (root / "output").symlink_to(tmp_path / "elsewhere")
    result = run(root, "convert", str(root / "cards/mini/cards.yaml"), "--to", "csv", "--out",
                 str(root / "output/cards.csv"))
    assert result.exit_code == 2 and "output is a symbolic link" in result.output, result.output
    assert "give --out a file outside the project" in result.output
    assert not list((tmp_path / "elsewhere").iterdir())


@pytest.mark.parametrize("out", ["cards", "layouts/shared", "fonts", ".git", "output/../cards",
                                 # one folder with cards/, layouts/ and .git/ on macOS, Windows or a USB stick
                                 "CARDS", "Layouts/shared", ".GIT", "fonts. "])
def test_out_into_the_folders_pnp_reads_is_refused(tmp_path, monkeypatch, out):
    root = make_project(tmp_path / "p")
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    before = sorted(root.rglob("*"))
    for command in (["build"], ["report"], ["calibrate"], ["export", "--format", "proof"], ["simulate", "mini"]):
        result = run(root, *command, "--out", out)
        assert result.exit_code == 2 and f"--out {out}: " in result.output, (command, result.output)
        assert "whose files pnp reads" in result.output
    result = run(root, "convert", "cards/mini/cards.yaml", "--to", "csv", "--out", f"{out}/cards.csv")
    first = Path(os.path.normpath(out)).parts[0]
    into_cards = first == "cards"  # a table's other format goes beside it
    # (CARDS/: no folder here, into which convert makes none; cards/ itself on a disk that ignores case)
    assert result.exit_code == (0 if into_cards else 1 if first == "CARDS" else 2), result.output
    assert set(root.rglob("*")) - set(before) == ({root / os.path.normpath(out) / "cards.csv"} if into_cards
                                                  else set())


def test_out_given_outside_the_project_is_followed(tmp_path):
    root = make_project(tmp_path / "p")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert run(root, "calibrate", "--out", str(tmp_path / "link")).exit_code == 0
    assert (tmp_path / "real" / "calibrate-a4.pdf").is_file()


# -- manifests read defensively -----------------------------------------------------------------------------
@pytest.mark.parametrize("listed", ["{secret}", "../../../secret", "/dev/zero", "", 7, "a\\..\\b"])
def test_a_manifest_names_only_files_of_its_own_folder(tmp_path, listed):
    folder = tmp_path / "out"
    folder.mkdir()
    (tmp_path / "secret").write_text("not pnp's")
    with pytest.raises(ValueError):
        listed_file(folder, listed.format(secret=tmp_path / "secret") if isinstance(listed, str) else listed)


def test_a_device_or_a_pipe_is_never_read():
    with pytest.raises(OSError):
        sha256("/dev/zero")


def test_an_up_to_date_check_never_trusts_a_file_outside_the_kit(tmp_path):
    root = make_project(tmp_path / "p")
    folder = root / "output" / "mini"
    assert run(root, "build").exit_code == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    (tmp_path / "secret").write_bytes(b"a file of yours")
    digest = hashlib.sha256(b"a file of yours").hexdigest()
    project = Project(root.resolve())
    assert already_built(project, "mini", PrintOptions(), folder) is not None
    for listed in (str(tmp_path / "secret"), "../../../secret"):  # its true digest: trusted, it would match
        (folder / "manifest.json").write_text(json.dumps(
            {**manifest, "files": [*manifest["files"], {"path": listed, "sha256": digest, "pages": 1}]}))
        assert already_built(project, "mini", PrintOptions(), folder) is None  # not up to date: built again
    for damaged in ('{"inputs": {"files": [[[', "[" * 100_000, '{"inputs": 1}', "\xff"):
        (folder / "manifest.json").write_text(damaged, encoding="latin-1")
        assert already_built(project, "mini", PrintOptions(), folder) is None
    # not replaced, as it may be a file of the user's own: said at it, and built once it is moved away
    refused = run(root, "build")
    assert refused.exit_code == 1 and refused.output.startswith("output/mini/manifest.json: error: "), refused.output
    assert (folder / "manifest.json").read_bytes() == b"\xff"
    (folder / "manifest.json").unlink()  # now no manifest lists the kit's files: they too may be the user's
    refused = run(root, "build")
    assert refused.exit_code == 1 and refused.output.startswith("output/mini/mini-a4.pdf: error: "), refused.output
    shutil.rmtree(folder)
    assert "mini: 6 files" in run(root, "build").output


def test_a_malformed_manifest_is_an_error_naming_it(tmp_path):
    root = make_project(tmp_path / "p")
    assert run(root, "build").exit_code == 0
    shown = "output/mini/manifest.json"
    (root / shown).write_text('{"face_fields": ["item", "side", "copies", "look", "data"],\n "components": [3')
    result = run(root, "changes", "mini", "--since", str(root / shown))  # (edited: compared only when named)
    assert result.exit_code == 2 and f"{shown}:2:" in result.output and "not a pnp manifest" in result.output
    (root / shown).write_text('{"face_fields": ["item", "side", "copies", "look", "data"], "components": [3]}')
    result = run(root, "changes", "mini", "--since", str(root / shown))
    assert result.exit_code == 2 and f"{shown}: error: not a pnp manifest" in result.output
    (root / shown).unlink()
    (root / shown).symlink_to("/dev/zero")
    result = run(root, "changes", "mini")
    assert result.exit_code == 2 and f"{shown}: error: cannot read it: it is a symbolic link" in result.output
    (root / "deep.json").write_text("[" * 100_000)
    result = run(root, "changes", "mini", "--since", str(root / "deep.json"))
    assert result.exit_code == 2 and "deep.json: error: not a pnp manifest" in result.output
    (root / "long.json").write_text('{"components": ' + "9" * 5000 + "}")
    result = run(root, "changes", "mini", "--since", str(root / "long.json"))
    assert result.exit_code == 2 and "long.json: error: not a pnp manifest: a number of more than" in result.output


# -- the cache ----------------------------------------------------------------------------------------------
def _is_code(value: object) -> bool:
    return isinstance(value, types.CodeType)


def _is_int(value: object) -> bool:
    return type(value) is int


def _forge(cache: DiskCache, value: object) -> None:
    """Every entry of `cache` rewritten to hold `value`, whole, under the checksum the cache itself writes."""
    payload = marshal.dumps(value)
    for entry in cache.folder().iterdir():
        entry.write_bytes(_checksum(bytes.fromhex(entry.stem), payload) + payload)


def _counted_maker():
    """A maker of the cache's value (code giving 42), and the list it adds one to each time it makes it."""
    made = []

    def make():
        made.append(1)
        return compile("6 * 7", "<test>", "eval")

    return made, make


def test_a_cache_entry_of_another_type_is_made_again_never_used(tmp_path, monkeypatch):
    """An entry whose checksum is right but whose value is not what its caller expects (written by hand, or
    by another pnp that kept something else under that name) was used: compiled code that was a number gave a
    traceback. It is made again and written back, as a damaged one is."""
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    made, make = _counted_maker()
    cache = DiskCache("test")
    assert eval(cache.value("key", make, _is_code)) == 42
    [entry] = cache.folder().iterdir()
    good = entry.read_bytes()
    forgeries = (42, "6 * 7", None, (1.0, 2.0, ["q"]), [compile("6 * 9", "<x>", "eval")])
    for forged in forgeries:
        _forge(cache, forged)
        assert entry.read_bytes() != good
        assert eval(cache.value("key", make, _is_code)) == 42  # made again, not read
        assert entry.read_bytes() == good  # and written again whole
    assert len(made) == 1 + len(forgeries)


def test_the_template_and_icon_caches_make_again_an_entry_of_another_type(tmp_path, monkeypatch):
    """Each user of the disk cache says what its values are: a template's code, an icon's drawing, its paint
    count and what is wrong with it, each forged as another type, is worked out again to the same answer."""
    from reportlab.lib import colors
    from reportlab.pdfgen.canvas import Canvas

    from pnp import template as tm
    from pnp.draw import icons

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(tm, "CODE_CACHE", DiskCache("templates", "forged"))
    monkeypatch.setattr(icons, "FORMS", DiskCache("icons", "forged"))
    icon = REPO / "layouts/shared/icons/amber-mosquito.svg"

    def worked_out() -> tuple:
        """What the caches give, each asked afresh (this process's own memories of them forgotten)."""
        monkeypatch.setattr(tm, "_TEMPLATES", {})
        monkeypatch.setattr(icons, "_forms", {})
        monkeypatch.setattr(icons, "_paints", {})
        monkeypatch.setattr(icons, "_checked", {})
        canvas = Canvas(str(tmp_path / "icon.pdf"))
        drawn = icons.draw_icon(canvas, icon, 0, 0, 10, 10, colors.black)
        return (tm._compile_template("{{ a * 2 }}").render(a=21), icons.icon_paints(icon), icons.unreadable(icon),
                drawn, canvas.getpdfdata().count(b"/FormXob"))

    fresh = worked_out()
    assert fresh[0] == "42" and fresh[1] > 0 and fresh[2] is None and fresh[4] == 1
    for forged in (7.5, "text", (1.0, 2.0, [3]), ("x", 1, 1.5)):  # (each of another type for every entry)
        _forge(tm.CODE_CACHE, forged)
        _forge(icons.FORMS, forged)
        assert worked_out() == fresh, forged


def test_a_damaged_cache_entry_is_made_again_never_used(tmp_path, monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    made, make = _counted_maker()
    cache = DiskCache("test")
    assert eval(cache.value("key", make, _is_code)) == 42 and eval(cache.value("key", make, _is_code)) == 42
    assert len(made) == 1
    [entry] = cache.folder().iterdir()
    good = entry.read_bytes()
    for damage in (lambda b: b[:-1] + bytes([b[-1] ^ 1]), lambda b: b[:5], lambda b: b"",
                   lambda b: b[:16] + marshal.dumps(compile("6 * 9", "<x>", "eval"))):
        entry.write_bytes(damage(good))
        assert eval(cache.value("key", make, _is_code)) == 42  # made again, not read
        assert entry.read_bytes() == good  # and written again whole
    assert len(made) == 5


def test_a_whole_cache_entry_moved_to_another_entrys_name_is_made_again_never_used(tmp_path, monkeypatch):
    """Each entry's checksum matched its own bytes, so entries swapped on disk were each trusted: a template
    ran another's code (a game failed on lines that were right) and a card could draw another's icon."""
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    cache = DiskCache("test")
    assert cache.value("six", lambda: 6, _is_int) == 6 and cache.value("seven", lambda: 7, _is_int) == 7
    first, second = sorted(cache.folder().iterdir())
    first_bytes, second_bytes = first.read_bytes(), second.read_bytes()
    first.write_bytes(second_bytes)
    second.write_bytes(first_bytes)
    assert cache.value("six", lambda: 6, _is_int) == 6 and cache.value("seven", lambda: 7, _is_int) == 7
    assert sorted(p.read_bytes() for p in cache.folder().iterdir()) == sorted([first_bytes, second_bytes])
    assert cache.value("six", lambda: -1, _is_int) == 6  # and, written again under its own name, read back


def test_a_cache_entry_that_is_no_ordinary_file_or_too_large_is_made_again_never_read(tmp_path, monkeypatch):
    """An entry replaced by a named pipe hung every later run; by a link to /dev/zero or a 3 GB sparse file it
    was read without end or whole: each is made again and the entry written back as an ordinary file."""
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    cache = DiskCache("test")
    assert cache.value("key", lambda: 42, _is_int) == 42
    [entry] = cache.folder().iterdir()
    for replace in (os.mkfifo, lambda p: p.symlink_to("/dev/zero"), lambda p: p.touch() or os.truncate(p, 3 << 30)):
        entry.unlink()
        replace(entry)
        assert cache.value("key", lambda: 43, _is_int) == 43
        assert entry.is_file() and not entry.is_symlink() and entry.stat().st_size < 100


def _running(pid: int) -> bool:
    """Whether the process `pid` is there and not a zombie (an orphan's reaper may be slow to reap it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or not hasattr(os, "fork"), reason="needs fork and /proc")
def test_a_worker_ends_once_the_pnp_that_started_it_has_ended():
    """`pnp build -j 2` ended by `kill` or `timeout` (the main process alone) left its workers drawing the games:
    they put the kits in place after pnp had ended and printed tracebacks when their results found no reader.
    Every worker (build, export, simulate) calls end_with_parent first: here a worker whose pnp ends at once."""
    from pnp.project import PARENT_LOOKED_AT_EVERY, end_with_parent

    read_end, write_end = os.pipe()
    watching_read, watching_write = os.pipe()
    pnp = os.fork()
    if pnp == 0:  # the pnp: starts a worker, says its pid once the worker watches, and ends
        worker = os.fork()
        if worker == 0:
            end_with_parent()
            os.write(watching_write, b"w")
            time.sleep(60)
            os._exit(0)
        os.read(watching_read, 1)
        os.write(write_end, f"{worker}".encode())
        os._exit(0)
    os.close(write_end)
    os.close(watching_write)
    os.close(watching_read)
    os.waitpid(pnp, 0)
    worker = int(os.read(read_end, 32))
    os.close(read_end)
    for _ in range(int(3 / PARENT_LOOKED_AT_EVERY)):
        if not _running(worker):
            break
        time.sleep(PARENT_LOOKED_AT_EVERY)
    alive = _running(worker)
    if alive:
        os.kill(worker, 9)
    assert not alive


def test_a_worker_ends_with_pnp_where_the_system_keeps_its_parents_id(monkeypatch):
    """Windows never gives a process another parent: a worker's parent id stays the ended pnp's, and a worker
    watching the id alone (end_with_parent) played on for good. There it watches the handle of its parent that
    a spawned worker holds (multiprocessing.parent_process): here one of a pnp ended, the id unchanged."""
    import multiprocessing
    import threading

    import pnp.project as project_mod

    class EndedParent:
        pid = os.getppid()  # (the id of one that ended stays the parent's)

        def is_alive(self) -> bool:
            return False

    ended = threading.Event()
    monkeypatch.setattr(os, "name", "nt")
    monkeypatch.setattr(multiprocessing, "parent_process", EndedParent)
    monkeypatch.setattr(project_mod.os, "_exit", lambda code: ended.set())
    project_mod.end_with_parent()
    monkeypatch.setattr(os, "name", "posix")
    assert ended.wait(2)


def test_a_worker_whose_pnp_ended_before_it_watched_ends_too(monkeypatch):
    """A pnp ended before its worker began to watch it had already given the worker another parent, whose id
    the watch took for pnp's: the worker played on for good. The watch compares with the id multiprocessing
    recorded when pnp started the worker: here that of a process that has ended."""
    import multiprocessing
    import threading
    from types import SimpleNamespace

    import pnp.project as project_mod

    gone = os.fork()
    if gone == 0:
        os._exit(0)
    os.waitpid(gone, 0)
    ended = threading.Event()
    pnp_ended = SimpleNamespace(pid=gone, is_alive=lambda: False)  # (its pipe closed as it ended)
    monkeypatch.setattr(multiprocessing, "parent_process", lambda: pnp_ended)
    monkeypatch.setattr(project_mod.os, "_exit", lambda code: ended.set())
    project_mod.end_with_parent()
    assert ended.wait(2)


# -- a refused command leaves its folders as it found them ----------------------------------------------------
def test_a_refused_command_leaves_no_lock_file_nor_folder_it_made(tmp_path, monkeypatch):
    """An export refused for a user's file in its folder left docs/mini/.pnp.lock; a command that failed while
    it wrote into a fresh --out left the folders it made, each holding only a lock file."""
    from pnp.project import output_lock

    root = make_project(tmp_path / "p")
    monkeypatch.chdir(root)
    (root / "docs" / "mini" / "png").mkdir(parents=True)
    (root / "docs" / "mini" / "png" / "mine.txt").write_text("mine\n")
    result = run(root, "export", "mini", "--format", "png", "--out", "docs")
    assert result.exit_code == 1 and "docs/mini/png: error: mini: not exported: it holds mine.txt" in result.output, \
        result.output
    assert sorted(p.relative_to(root / "docs").as_posix() for p in (root / "docs").rglob("*")) == [
        "mini", "mini/png", "mini/png/mine.txt"]
    with pytest.raises(OSError), output_lock(tmp_path / "fresh" / "kits" / "mini"):
        raise OSError("refused while writing")  # (as a build's render or a report's write fails)
    assert not (tmp_path / "fresh").exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / ".pnp.lock").touch()  # a lock file found there is left there
    with pytest.raises(OSError), output_lock(kept):
        raise OSError("refused while writing")
    assert [p.name for p in kept.iterdir()] == [".pnp.lock"]


def test_a_command_waiting_on_a_lock_file_removed_by_its_holder_locks_the_one_in_its_place(tmp_path):
    """The holder that wrote nothing removes the lock file it made (and its folder): one waiting on that file
    must then lock the file at the path, or it would write beside a third command that locked a new one."""
    import threading

    from pnp.project import output_lock

    folder = tmp_path / "out" / "game"
    first_in, first_may_end, second_in = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with output_lock(folder):
            first_in.set()
            first_may_end.wait(10)

    def second() -> None:
        with output_lock(folder, on_wait=lambda message: first_may_end.set()):
            second_in.set()
            (folder / "written").write_text("x")
            time.sleep(0.2)

    one = threading.Thread(target=first)
    one.start()
    first_in.wait(10)
    two = threading.Thread(target=second)
    two.start()
    assert second_in.wait(10)
    held = os.open(folder / ".pnp.lock", os.O_RDWR)
    try:
        with pytest.raises(BlockingIOError):  # the second holds the file now at the path
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(held)
    one.join(10)
    two.join(10)
    assert sorted(p.name for p in folder.iterdir()) == [".pnp.lock", "written"]


def test_a_file_written_over_keeps_its_permissions(tmp_path):
    from pnp.project import write_file

    private = tmp_path / "ATTRIBUTION.md"
    private.write_text("mine\n")
    private.chmod(0o600)
    write_file(private, b"mine\nand a row\n")  # (was made 0644 by the rename: a private file made readable by all)
    assert private.read_bytes() == b"mine\nand a row\n" and private.stat().st_mode & 0o777 == 0o600


def test_an_old_folder_set_aside_is_removed_even_with_a_read_only_folder_in_it(tmp_path, monkeypatch):
    """A designer's chmod 555 of an export's component folder (or a copy from a read-only medium): the old
    export set aside kept that folder's files, a hidden .png.pnp-<hex>.tmp beside each new export, for good
    (as any user but root, who is refused nothing: emulated here)."""
    import stat

    from pnp.project import replace_folder

    old, new = tmp_path / "png", tmp_path / "work"
    (old / "cards").mkdir(parents=True)
    (old / "cards" / "001-a-front.png").write_bytes(b"old")
    (old / "cards").chmod(0o555)
    new.mkdir()
    (new / "export.json").write_text("{}")
    unlink = os.unlink

    def as_a_user(path, *, dir_fd=None):  # a file of a folder without write permission cannot be removed
        folder = os.fstat(dir_fd) if dir_fd is not None else os.stat(os.path.dirname(path))
        if not folder.st_mode & stat.S_IWUSR:
            raise PermissionError(13, "Permission denied", path)
        unlink(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "unlink", as_a_user)
    replace_folder(old, new)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["png"] and (old / "export.json").is_file()


def test_a_read_only_export_folder_is_refused_at_itself_with_nothing_left_beside_it(tmp_path, monkeypatch):
    """A folder is moved into another only by one who may write into it: a read-only export folder (chmod 555)
    was refused at .proof.pnp-<hex>.tmp/.previous, the temporary set aside for it, left empty beside it (as any
    user but root, who is refused nothing: emulated here)."""
    from pnp.project import replace_folder

    old, new = tmp_path / "proof", tmp_path / "work"
    old.mkdir()
    (old / "deck.pdf").write_bytes(b"old")
    new.mkdir()
    access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != old and access(path, mode, **kw))
    with pytest.raises(PermissionError) as refused:
        replace_folder(old, new)
    assert refused.value.filename == str(old) and (old / "deck.pdf").read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["proof", "work"]


def test_an_output_folder_swapped_for_a_link_while_locked_gets_nothing_through_the_link(tmp_path):
    """A build's folder renamed away and replaced by a link to another folder while the build wrote had every
    PDF and the manifest renamed into that other folder (outside the project), exit 0: what is put in place
    goes into the folder locked, or nowhere."""
    from pnp.project import commit_files, new_file, open_to_write, output_lock, temporary_beside, write_file

    folder, elsewhere = tmp_path / "out" / "game", tmp_path / "elsewhere"
    elsewhere.mkdir()
    with output_lock(folder):
        (folder / "kit.pdf").write_bytes(b"old")
        folder.rename(tmp_path / "out" / "moved")
        folder.symlink_to(elsewhere)
        with pytest.raises(OSError):
            write_file(folder / "manifest.json", b"{}")
        made = temporary_beside(folder / "kit.pdf")  # (made in the folder locked, not through the link)
        with open_to_write(made) as file:  # (as a PDF's writer would: there too)
            file.write(b"new")
        with pytest.raises(OSError):
            commit_files({made: folder / "kit.pdf"})
        assert (tmp_path / "out" / "moved" / made.name).read_bytes() == b"new"
        with new_file(folder / "export.json"):  # (a new file of the folder's: there too)
            pass
        assert (tmp_path / "out" / "moved" / "export.json").exists()
    assert list(elsewhere.iterdir()) == []
    assert (tmp_path / "out" / "moved" / "kit.pdf").read_bytes() == b"old"


@pytest.mark.parametrize("swap", ["link", "dangling", "hard link"])
def test_a_temporary_swapped_for_a_link_is_not_written_through(tmp_path, swap):
    # a kit's temporary is made, then opened again by name to be written (the PDF, the manifest): a link swapped in
    # meanwhile had the kit written outside the project, a named pipe held the build
    import errno

    from pnp.draw.canvas import FormCanvas
    from pnp.project import temporary_beside

    outside = tmp_path / "outside.pdf"
    outside.write_bytes(b"mine")
    tmp = temporary_beside(tmp_path / "kit.pdf")
    tmp.unlink()
    if swap == "hard link":  # (another name of a file elsewhere: O_NOFOLLOW does not see it)
        os.link(outside, tmp)
    else:
        tmp.symlink_to(outside if swap == "link" else tmp_path / "made-outside.pdf")
    with pytest.raises(OSError) as refused:
        FormCanvas(str(tmp)).save()
    assert refused.value.errno == (errno.EEXIST if swap == "hard link" else errno.ELOOP)
    assert outside.read_bytes() == b"mine" and not (tmp_path / "made-outside.pdf").exists()


def test_a_picture_pnp_wrote_is_read_back_only_as_what_it_wrote(tmp_path):
    # an export reads its own PNGs back (tts sheets, the table preview, the preflight of sizes): a file of another
    # format in its place (swapped in while it ran) is handed to no other decoder of Pillow's
    from PIL import Image

    from pnp.project import opened_picture

    Image.new("RGB", (3, 2), "red").save(tmp_path / "face.png", "PNG")
    Image.new("RGB", (3, 2), "red").save(tmp_path / "other.png", "BMP")
    with opened_picture(tmp_path / "face.png") as image:
        assert image.size == (3, 2)
    with pytest.raises(OSError), opened_picture(tmp_path / "other.png"):
        pass
    (tmp_path / "link.png").symlink_to(tmp_path / "face.png")
    with pytest.raises(OSError), opened_picture(tmp_path / "link.png"):
        pass


def test_write_file_does_not_write_through_a_link_swapped_in_for_its_temporary(tmp_path, monkeypatch):
    # convert, report, calibrate write through write_file: its temporary is made, then opened again by name
    import pnp.project as project

    outside = tmp_path / "outside.csv"
    outside.write_bytes(b"mine")
    made = project.temporary_beside

    def swapped(path, folder=False):  # the temporary, swapped for a link once made (as another process would)
        tmp = made(path, folder)
        tmp.unlink()
        tmp.symlink_to(outside)
        return tmp

    monkeypatch.setattr(project, "temporary_beside", swapped)
    with pytest.raises(OSError):
        project.write_file(tmp_path / "table.csv", b"id\n", durable=False)
    assert outside.read_bytes() == b"mine" and not (tmp_path / "table.csv").exists()


def test_a_proof_s_record_is_not_written_through_a_link_swapped_in_for_its_temporary(tmp_path, monkeypatch):
    # the record of a proof (or a reprint) was written by name into its temporary (Path.write_bytes): a link put
    # there while the proof was drawn had the record written over a file outside the project. (The drawing is
    # left out: what is at stake is the record's write.)
    from types import SimpleNamespace

    import pnp.printables
    import pnp.project as project
    from pnp.kit import changes, render

    outside = tmp_path / "outside.json"
    outside.write_bytes(b"mine")
    made = project.temporary_beside

    def swapped(path, folder=False):  # the record's temporary, swapped for a link once made
        tmp = made(path, folder)
        if Path(path).name == "record.json":
            tmp.unlink()
            tmp.symlink_to(outside)
        return tmp

    monkeypatch.setattr(project, "temporary_beside", swapped)
    monkeypatch.setattr(changes, "selected", lambda game, keys: SimpleNamespace(components=[object()]))
    monkeypatch.setattr(pnp.printables, "Studio", lambda *args, **kwargs: SimpleNamespace())
    monkeypatch.setattr(render, "by_kind", lambda game: [])
    monkeypatch.setattr(render, "new_canvas", lambda target, studio, what: SimpleNamespace(save=lambda: None))
    studio = SimpleNamespace(game=SimpleNamespace(components=[]), options=None, budget=None, marks=None)
    with pytest.raises(OSError):
        changes.write_selection(studio, {}, tmp_path / "proof.pdf",
                                record=(tmp_path / "record.json", lambda pdf, pages: b"{}"))
    assert outside.read_bytes() == b"mine" and not (tmp_path / "record.json").exists()


def test_a_new_file_in_a_temporary_folder_is_made_through_no_link_below_it(tmp_path):
    # an export writes each picture by path into its component's folder in its work folder (in the project): that
    # folder swapped for a link to a folder outside had the pictures made there
    from pnp.project import make_folders, new_file, open_to_write, temporary_beside

    work, outside = temporary_beside(tmp_path / "png", folder=True), tmp_path / "outside"
    outside.mkdir()
    (work / "deck").symlink_to(outside)
    with pytest.raises(OSError) as refused:
        new_file(work / "deck" / "001-front.png")
    assert refused.value.filename == str(work / "deck" / "001-front.png")  # (the whole path, not the name alone)
    with pytest.raises(OSError):
        make_folders(work / "deck" / "backs")  # (a component's folders, made before its pictures)
    with pytest.raises(OSError):
        open_to_write(work / "deck" / "faces.pdf")  # (the faces PDF, the proofs: canvases saved by name)
    assert list(outside.iterdir()) == []
    make_folders(work / "board")
    with new_file(work / "board" / "001-front.png") as file:  # (a folder of its own: made as before)
        file.write(b"png")
    assert (work / "board" / "001-front.png").read_bytes() == b"png"
