"""An output folder that cannot be written (read-only, or a file in the way) is a one-line error naming the
folder, exit 1, for every command that writes: never a traceback. A file in the way stands for a read-only
folder here because the tests may run as root, whom permissions do not stop."""

import errno
import hashlib
import os
import json
import shutil

import click
import pytest
from click.testing import CliRunner

from conftest import make_project, run
from pnp.cli import _Choice, cli
from pnp.kit.manifest import seal


@pytest.fixture(scope="module")
def _exported_once(tmp_path_factory):
    """The test game and its tts export in kits/, made once for the module (an export took a second a test)."""
    root = tmp_path_factory.mktemp("exported")
    with pytest.MonkeyPatch.context() as patch:  # what the command keeps in the environment ends with it
        patch.setenv("PNP_NO_CACHE_IN", "")
        patch.delenv("PNP_NO_CACHE_IN")
        result = run(make_project(root / "proj"), "export", "mini", "--format", "tts", "--out", str(root / "kits"))
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def exported(_exported_once, tmp_path):
    """(project, kits): a copy of the test game and its tts export in kits/, the export's record sealed where it
    now lies, as if exported there (an export only replaces a folder whose record its user's pnp wrote there)."""
    shutil.copytree(_exported_once, tmp_path, symlinks=True, dirs_exist_ok=True)
    seal(tmp_path / "kits/mini/tts/export.json")
    return tmp_path / "proj", tmp_path / "kits"


@pytest.mark.parametrize("command", [
    ["build", "mini"],
    ["report", "mini"],
    ["export", "mini", "--format", "tts"],
    ["calibrate"],
])
def test_an_unwritable_output_folder_is_an_error_naming_it(project, tmp_path, command):
    in_the_way = tmp_path / "not-a-folder"
    in_the_way.write_text("a file where the output folder would go\n")
    out = in_the_way / "kits"
    result = run(project, *command, "--out", str(out))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.output.startswith(str(out)) and ": error: cannot write: " in result.output, result.output
    assert not any(tmp_path.glob("**/*.pdf"))


def test_an_empty_folder_named_is_refused_not_taken_for_the_default(project):
    """`--out "$DIR"` with DIR unset was no --out at all: build replaced the kit in output/, export and
    calibrate wrote there, and `--root ""` checked the current folder, each exit 0."""
    for command in (["build", "mini", "--out", ""], ["export", "mini", "--format", "tts", "--out", ""],
                    ["calibrate", "--out", ""], ["report", "mini", "--out", ""], ["changes", "mini", "--out", ""]):
        result = run(project, *command)
        assert result.exit_code == 2 and "Invalid value for '--out': '' is empty" in result.output, result.output
    result = CliRunner().invoke(cli, ["--root", "", "validate"])
    assert result.exit_code == 2 and "Invalid value for '--root': '' is empty" in result.output, result.output
    result = run(project, "build", "mini", "--out", "   ")  # `--out "$A $B"`, both unset
    assert result.exit_code == 2 and "Invalid value for '--out': '   ' is only spaces" in result.output, result.output
    assert not (project / "   ").exists()
    for root in ("a" * 5000, "a/" * 3000):  # a name too long for the system was a traceback
        result = CliRunner().invoke(cli, ["--root", root, "validate"])
        assert result.exit_code == 2 and f"Error: --root {root[:40]}" in result.output, result.output[-300:]
    assert not (project / "output").exists()


def test_a_named_pipe_or_a_device_named_as_the_output_folder_is_refused_as_what_it_is(project, tmp_path):
    """click refuses an ordinary file given as a folder, not a named pipe or a device: `calibrate --out PIPE` said
    "cannot write to PIPE: File exists", and the other commands got as far as "cannot write to PIPE/mini"."""
    pipe = tmp_path / "kits"
    os.mkfifo(pipe)
    for command in (["calibrate"], ["build", "mini"], ["report", "mini"]):
        result = run(project, *command, "--out", str(pipe))
        assert result.exit_code == 2, result.output
        assert f"Invalid value for '--out': '{pipe}' is a named pipe, not a folder" in result.output, result.output
    result = run(project, "build", "mini", "--out", os.devnull)
    assert result.exit_code == 2 and f"'{os.devnull}' is a device, not a folder" in result.output, result.output
    assert not (project / "output").exists()


def test_convert_into_an_unwritable_folder_is_an_error_naming_it(project, tmp_path):
    in_the_way = tmp_path / "not-a-folder"
    in_the_way.write_text("a file where the output folder would go\n")
    result = run(project, "convert", str(project / "cards/mini/cards.yaml"), "--to", "csv",
                 "--out", str(in_the_way / "cards.csv"))
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"{in_the_way}/cards.csv: error: cannot write: {in_the_way} is a file, "
                                    "not a folder"), result.output
    assert in_the_way.read_text() == "a file where the output folder would go\n"


@pytest.mark.parametrize("command, in_the_way", [
    (["build", "mini"], "output/mini/mini-a4.pdf"),
    (["report", "mini"], "output/mini/mini-report.pdf"),
    (["calibrate"], "output/calibrate-a4.pdf"),
    (["convert", "cards/mini/cards.yaml", "--to", "csv", "--force"], "cards/mini/cards.csv"),
    (["build", "mini"], "output/mini/.pnp.lock"),  # the lock file: the message named the folder
    (["calibrate"], "output/.pnp.lock"),
])
def test_a_folder_where_the_file_goes_is_named_not_its_folder_or_a_temporary_name(project, command, in_the_way):
    (project / in_the_way).mkdir(parents=True)
    result = run(project, *[str(project / a) if a.endswith(".yaml") else a for a in command])
    assert result.exit_code == 1, result.output
    # (at its place, as every refusal at a file is said: it was "Error: cannot write to PATH: ...")
    assert any(line.startswith(f"{in_the_way}: error: ") and "cannot write: " in line
               for line in result.output.splitlines()) and ".tmp" not in result.output, result.output
    assert (project / in_the_way).is_dir() and not list((project / in_the_way).iterdir())


@pytest.mark.parametrize("inside", ["", "games/mine"])
def test_an_export_folder_that_is_or_holds_the_project_is_refused_and_the_project_kept(tmp_path, inside):
    from conftest import make_project

    # --out kits makes kits/mini/tts/, replaced whole by the export: here it is the project (or holds it)
    root = make_project(tmp_path / "kits" / "mini" / "tts" / inside)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    result = run(root, "export", "mini", "--format", "tts", "--out", str(tmp_path / "kits"))
    assert result.exit_code == 2, result.output
    assert f"--out {tmp_path / 'kits'}: {tmp_path / 'kits/mini/tts'} is or holds the project's folder" in result.output
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


@pytest.mark.parametrize("foreign", ["mini/tts/notes.txt", "mini/tts/sub/photo.png", "mini/tts", "mini/tts-link"])
def test_an_export_never_replaces_a_folder_holding_files_no_export_wrote(project, tmp_path, foreign):
    # the export replaces DIR/<game>/<format>/ whole: a folder of the user's there lost every file in it
    kits = tmp_path / "kits"
    (kits / foreign).parent.mkdir(parents=True)
    (kits / foreign).write_text("the user's own\n")
    if foreign.endswith("-link"):  # the export folder a link to the user's file
        (kits / "mini/tts").symlink_to(kits / foreign)
    result = run(project, "export", "mini", "--format", "tts", "--out", str(kits))
    assert result.exit_code == 1, result.output
    said = {"mini/tts": "is a file pnp did not write", "mini/tts-link": "is a link (to "}.get(foreign, "which no export wrote")
    assert result.output.startswith(f"{kits / 'mini/tts'}: error: mini: not exported: it ") and said in result.output, \
        result.output
    assert (kits / foreign).read_text() == "the user's own\n"


def test_an_export_folder_is_walked_only_where_its_record_lists_files(tmp_path):
    """Every entry of the folder was listed and sorted before the first unlisted one was named: 300,000 files
    there took 16 s. Now only the folders holding the record's files are walked, so a folder the record does
    not name is said at once, files and all (or none: an empty one is walked no further either)."""
    from pnp.export.run import not_an_export
    from pnp.project import Project

    folder = tmp_path / "kits/mini/tts"
    (folder / "cards/deck").mkdir(parents=True)
    (folder / "cards/deck/001-lion-front.png").write_bytes(b"png")
    (folder / "export.json").write_text(json.dumps({"game": "mini", "format": "tts", "files": [
        {"path": "cards/deck/001-lion-front.png", "sha256": hashlib.sha256(b"png").hexdigest(), "bytes": 3}]}))
    project = Project(tmp_path)
    assert not_an_export(project, folder, "mini", "tts") is None
    for n in range(3):
        (folder / "cards/deck/zz" / str(n)).mkdir(parents=True)
    assert not_an_export(project, folder, "mini", "tts").startswith("holds cards/deck/zz/, which no export wrote")
    (folder / "cards/deck/zz").rename(tmp_path / "zz")
    (folder / "cards/deck/notes.txt").write_text("the user's own\n")
    assert not_an_export(project, folder, "mini", "tts").startswith("holds cards/deck/notes.txt, which no")


def test_a_record_listing_a_deeply_nested_name_is_checked_at_once(tmp_path):
    """Every folder of each name the record lists was made up front, in time and memory growing with the
    square of the name's depth: one listing 'a/a/.../x.png' 30,000 deep (60 KB of a record someone sent with
    the game's output) ran `pnp export` for minutes before it said anything."""
    from pnp.export.run import not_an_export
    from pnp.project import Project

    folder = tmp_path / "kits/mini/png"
    (folder / "a/a").mkdir(parents=True)
    (folder / "a/a/notes.txt").write_text("the user's own\n")
    (folder / "export.json").write_text(json.dumps({"game": "mini", "format": "png", "files": [
        {"path": "a/" * 30_000 + "x.png", "sha256": "0" * 64}]}))
    assert not_an_export(Project(tmp_path), folder, "mini", "png").startswith("holds a/a/notes.txt, which no")


def test_a_received_record_listing_gigabytes_has_no_more_than_512_mb_of_them_read(tmp_path, monkeypatch):
    """A received folder's export.json listing 5 files of 2 GB each (sparse: a few KB in an archive), their
    sizes right, made every export read 10 GB (12 s) to tell whether they were as the export wrote them. Of a
    record this user's pnp did not write (not sealed) at most 512 MB is read; past that the folder is refused
    unread. One sealed is read whole (an export of the user's own, as large as pnp made it)."""
    from pnp.export import run as export_run
    from pnp.project import Project

    read: list = []
    monkeypatch.setattr(export_run, "_sha256_of", lambda path, *unchanged: read.append(path) or "0" * 64)
    folder = tmp_path / "kits/mini/png"
    folder.mkdir(parents=True)
    files = []
    for n in range(2):
        with open(folder / f"{n}.png", "wb") as f:
            f.truncate(300 * 2**20)
        files.append({"path": f"{n}.png", "sha256": "0" * 64, "bytes": 300 * 2**20})
    (folder / "export.json").write_text(json.dumps({"game": "mini", "format": "png", "files": files}))
    monkeypatch.setattr(export_run, "sealed", lambda path: False)
    said = export_run.not_an_export(Project(tmp_path), folder, "mini", "png")
    assert said.startswith("holds files its export.json lists, more than 512 MB of them") and len(read) == 1
    monkeypatch.setattr(export_run, "sealed", lambda path: True)
    assert export_run.not_an_export(Project(tmp_path), folder, "mini", "png") is None and len(read) == 3


def test_an_export_replaces_its_own_folder_but_not_a_file_added_to_it(exported):
    project, kits = exported
    (kits / "mini/tts/.DS_Store").write_bytes(b"\0\0\0\1Bud1\0")  # a file manager's own, left by looking at it
    (kits / "mini/tts/._rulebook.pdf").write_bytes(b"\0\x05\x16\x07\0\x02")  # (an AppleDouble file)
    assert run(project, "export", "mini", "--format", "tts", "--out", str(kits), "--force").exit_code == 0
    (kits / "mini/tts/notes.txt").write_text("the user's own\n")
    result = run(project, "export", "mini", "--format", "tts", "--out", str(kits), "--force")
    assert result.exit_code == 1 and "holds notes.txt, which no export wrote" in result.output, result.output
    assert (kits / "mini/tts/notes.txt").read_text() == "the user's own\n"


def test_a_record_naming_a_users_file_does_not_make_it_the_exports(exported):
    """An export replaces only the files its record lists as it wrote them (size and sha256): a record listing
    the user's notes.txt (one someone sent, or crafted to say so) made the export take it for its own and
    remove it, exit 0. One of the export's own images edited since is kept too; the record itself is not."""
    project, kits = exported
    folder = kits / "mini/tts"
    record = json.loads((folder / "export.json").read_text())
    (folder / "notes.txt").write_text("the user's own\n")
    for digest, size in (("0" * 64, 15), (hashlib.sha256(b"other").hexdigest(), 15)):
        record["files"].append({"path": "notes.txt", "sha256": digest, "bytes": size})
        (folder / "export.json").write_text(json.dumps(record))
        seal(folder / "export.json")  # (even as this user's pnp would have written it)
        result = run(project, "export", "mini", "--format", "tts", "--out", str(kits), "--force")
        assert result.exit_code == 1 and "holds notes.txt, which is not as the export wrote it" in result.output, \
            result.output
        assert (folder / "notes.txt").read_text() == "the user's own\n"
        record["files"].pop()
    (folder / "notes.txt").unlink()
    (folder / "export.json").write_text(json.dumps(record))
    seal(folder / "export.json")
    image = next(p for p in sorted(folder.rglob("*.png")))
    image.write_bytes(image.read_bytes() + b"touched up")
    result = run(project, "export", "mini", "--format", "tts", "--out", str(kits), "--force")
    assert result.exit_code == 1 and f"holds {image.relative_to(folder).as_posix()}, which is not as the export " \
        "wrote it" in result.output, result.output
    assert image.read_bytes().endswith(b"touched up")


@pytest.mark.parametrize("name", ["._notes.txt", ".DS_Store", "Thumbs.db"])
def test_a_users_file_named_as_a_file_managers_is_kept(exported, name):
    # a file manager's own files are known by how they begin: a text of the user's named ._notes.txt was removed
    project, kits = exported
    (kits / "mini/tts" / name).write_text("the user's own\n")
    result = run(project, "export", "mini", "--format", "tts", "--out", str(kits), "--force")
    assert result.exit_code == 1 and f"holds {name}, which no export wrote" in result.output, result.output
    assert (kits / "mini/tts" / name).read_text() == "the user's own\n"


def test_a_file_put_in_the_export_folder_while_it_is_written_is_kept(exported, monkeypatch):
    from pnp.export import run as export_run

    project, kits = exported
    recorded = export_run._record

    def record_then_the_user_saves(*args, **kwargs):  # the user saves a file there as the export ends
        (kits / "mini/tts/notes.txt").write_text("the user's own\n")
        return recorded(*args, **kwargs)

    monkeypatch.setattr(export_run, "_record", record_then_the_user_saves)
    result = run(project, "export", "mini", "--format", "tts", "--out", str(kits), "--force")
    assert result.exit_code == 1 and "holds notes.txt, which no export wrote" in result.output, result.output
    assert (kits / "mini/tts/notes.txt").read_text() == "the user's own\n"
    assert not [p for p in (kits / "mini").iterdir() if p.name.endswith(".tmp")]  # no work folder left


@pytest.mark.parametrize("record", ['{"files": 3}',
                                    # a game or format not text (or none) was said "the None export of ['a']"
                                    '{"game": null, "format": ["a"]}', '{"format": "tts"}', '{"game": "mini"}'])
def test_an_export_whose_record_is_damaged_is_refused_saying_so(exported, record):
    # every file was said to be one "no export wrote ... (its export.json does not list it)", which it did
    project, kits = exported
    (kits / "mini/tts/export.json").write_text(record)
    result = run(project, "export", "mini", "--format", "tts", "--out", str(kits), "--force")
    assert result.exit_code == 1 and "and its export.json, which lists an export's files, is not one an export " \
        "writes" in result.output, result.output
    assert (kits / "mini/tts/export.json").read_text() == record


def test_an_export_never_replaces_another_games_or_formats_export(exported):
    # a game named `export` sent with --out output/<game>/ would write into <game>/export/: another game's
    # export there, whose record lists every file, was replaced whole
    project, kits = exported
    (kits / "mini/tts").rename(kits / "mini/png")  # the tts export standing where the png export goes
    before = sorted(p.name for p in (kits / "mini/png").iterdir())
    result = run(project, "export", "mini", "--format", "png", "--out", str(kits))
    assert result.exit_code == 1 and "holds the tts export of mini, which the png export of mini would replace" \
        in result.output, result.output
    assert sorted(p.name for p in (kits / "mini/png").iterdir()) == before


def _side_files() -> list[tuple[list[str], str]]:
    """(command, a file it writes beside the kit): a proof's PDF and its manifest, a reprint's PDF."""
    from pnp.kit.changes import State
    from pnp.kit.select import Selection

    key = Selection(components=("deck",)).key()
    since = f"reprint-{State({}, 'commit', 'HEAD').key()}"
    return [(["build", "mini", "--component", "deck"], f"output/mini/mini-selection-{key}-a4.pdf"),
            (["build", "mini", "--component", "deck"], f"output/mini/manifest-selection-{key}.json"),
            (["build", "mini", "--changed-since", "HEAD"], f"output/mini/mini-{since}-a4.pdf")]


@pytest.mark.parametrize("command, in_the_way", _side_files())
def test_a_folder_where_a_proof_or_reprint_goes_is_an_error_naming_it(project, command, in_the_way):
    """A proof's or reprint's file is written (or, for a reprint with nothing changed, removed) after the kit:
    a folder in its place was a traceback."""
    import subprocess

    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "cards", "layouts"], check=True)
    subprocess.run([*git, "commit", "-qm", "v1"], check=True)
    (project / in_the_way).mkdir(parents=True)
    result = run(project, *command)
    assert result.exit_code == 1, result.output
    # (at its place, as every refusal at a file is said: it was "Error: cannot write to PATH: ...")
    assert any(line.startswith(f"{in_the_way}: error: ") and "cannot write: " in line
               for line in result.output.splitlines()) and ".tmp" not in result.output, result.output
    assert (project / in_the_way).is_dir() and not list((project / in_the_way).iterdir())


def test_a_folder_named_with_a_byte_not_utf8_is_written_to_by_build_export_and_their_records(tmp_path):
    """A name the system allows but that is not UTF-8 (read as a lone surrogate): the all-in-one PDF failed
    as a bug in pnp (pikepdf names the files it opens as UTF-8), Ghostscript dropped the byte and could not
    open its files, and a proof's and a reprint's records failed to be written after their PDFs were."""
    import json
    import os

    from conftest import make_project

    root = make_project(tmp_path / "proj")
    out = tmp_path / os.fsdecode(b"kits\xff")
    assert run(root, "build", "--out", str(out)).exit_code == 0
    assert (out / "mini/mini-a4.pdf").read_bytes().startswith(b"%PDF")
    result = run(root, "export", "--format", "drivethru", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (out / "mini/drivethru/deck.pdf").read_bytes().startswith(b"%PDF")
    manifest = tmp_path / os.fsdecode(b"old\xff.json")
    manifest.write_bytes((out / "mini/manifest.json").read_bytes())
    cards = root / "cards/mini/cards.yaml"
    cards.write_text(cards.read_text().replace("Roars", "Purrs"))
    assert run(root, "build", "--changed-since", str(manifest)).exit_code == 0
    only = os.fsdecode(b'card.id != "\xff"')
    assert run(root, "build", "--only", only).exit_code == 0
    records = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in (root / "output/mini").glob("manifest-*.json")}
    assert sorted(r.get("since") or r["selection"]["only"] for r in records.values()) == [str(manifest), only]


@pytest.mark.parametrize("command", [["build", "mini"], ["export", "mini", "--format", "tts"], ["calibrate"]])
def test_an_out_folder_named_with_a_line_break_and_an_escape_is_said_as_one_printable_line(project, tmp_path, command):
    out = tmp_path / "o\x1b[31m\nmini: fake line"
    result = run(project, *command, "--out", str(out))
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if line.startswith(("mini: ", "wrote "))]
    assert len(said) == 1 and "o\\x1b[31m\\nmini: fake line/" in said[0], result.output


def test_a_converted_file_named_with_a_line_break_and_an_escape_is_said_as_one_printable_line(project, tmp_path):
    out = tmp_path / "o\x1b[31m\nmini: fake line.csv"
    result = run(project, "convert", str(project / "cards/mini/cards.yaml"), "--to", "csv", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"wrote {tmp_path}/o\\x1b[31m\\nmini: fake line.csv: 4 items"], result.output


def test_a_refusal_at_a_place_in_a_file_of_a_long_path_names_the_file_whole(project):
    """Every word of a message over report.MAX_WORD characters is cut in its middle, but not the place before it:
    a path of 400 characters cut so named no file an editor could open at its line."""
    folder = f"{'d' * 200}/{'e' * 200}"
    (project / "cards/mini" / folder).mkdir(parents=True)
    (project / "cards/mini" / folder / "t.yaml").write_text("- id: a\n  name: [x\n", encoding="utf-8")
    game = project / "cards/mini/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "  cards:\n    fields:", f"  cards:\n    file: {folder}/t.yaml\n    fields:", 1), encoding="utf-8")
    result = run(project, "convert", str(project / "cards/mini" / folder / "t.yaml"), "--to", "csv", "--out", str(project / "t.csv"))
    said = result.output.splitlines()
    assert result.exit_code == 1 and said[0].startswith(f"cards/mini/{folder}/t.yaml:2:"), result.output
    assert ": error: " in said[0], result.output


def test_a_converted_file_whose_folder_is_not_there_is_refused_naming_it_as_the_project_shows_it(project):
    # the folder was named by its whole path, the system's (/home/.../proj/nothere), where every message says
    # a path in the project as from the project's folder; then as "cannot write to nothere: No such file or
    # directory", the system's words, naming the folder and not the file refused
    for out, missing in (("nothere/cards.csv", "nothere"), ("a/b/cards.csv", "a")):
        result = run(project, "convert", str(project / "cards/mini/cards.yaml"), "--to", "csv", "--out",
                     str(project / out))
        assert result.exit_code == 1, result.output
        assert f"{out}: error: cannot write: there is no folder {missing}," in result.output, result.output
        assert "No such file" not in result.output and not (project / missing).exists(), result.output


def test_every_choice_option_reads_its_value_in_any_case_of_its_letters(project):
    """`--paper LETTER` worked, `--imposition GUTTERFOLD`, `--format PNG` and `--agents RANDOM` were refused: each
    command's choices are read one way, by the CLI's choice type (only A-Z folded: a long s is no s)."""
    def choices(command: click.Command) -> list[click.Choice]:
        found = [p.type for p in command.params if isinstance(p.type, click.Choice)]
        for sub in getattr(command, "commands", {}).values():
            found += choices(sub)
        return found

    every = choices(cli)
    assert len(every) >= 8 and all(isinstance(kind, _Choice) for kind in every), every
    for command in (["build", "nosuch", "--imposition", "GUTTERFOLD", "--marks", "Corners", "--paper", "LETTER"],
                    ["export", "nosuch", "--format", "PNG"], ["changes", "nosuch", "--paper", "Letter"],
                    ["simulate", "nosuch", "--agents", "RANDOM,Mcts-4"]):
        result = run(project, *command)
        assert result.exit_code == 2 and "unknown game 'nosuch'" in result.output, result.output
    result = run(project, "export", "nosuch", "--format", "tt\u017f")  # (casefold reads it as tts)
    assert result.exit_code == 2 and "--format" in result.output and "nosuch" not in result.output, result.output
    result = run(project, "convert", str(project / "cards/mini/cards.yaml"), "--to", "CSV", "--out",
                 str(project / "cards/mini/cards-upper.csv"))
    assert result.exit_code == 0 and (project / "cards/mini/cards-upper.csv").is_file(), result.output


def test_a_folder_named_through_a_link_to_nothing_is_refused_as_one(project, tmp_path):
    """`--out LINK` (or a folder in it) where LINK leads nowhere: every command said "cannot write to LINK: File
    exists", the system's word for making the folder where the link is."""
    link = tmp_path / "kits"
    link.symlink_to(tmp_path / "unmounted" / "kits")
    said = f"'{link}' is a symbolic link to '{tmp_path / 'unmounted' / 'kits'}', which does not exist"
    for out in (link, f"{link}/", link / "2026"):
        for command in (["build", "mini"], ["calibrate"], ["export", "mini", "--format", "tts"]):
            result = run(project, *command, "--out", str(out))
            assert result.exit_code == 2 and said in result.output and "File exists" not in result.output, result.output
    result = CliRunner().invoke(cli, ["--root", str(link), "validate"])
    assert result.exit_code == 2 and said in result.output, result.output
    assert not (tmp_path / "unmounted").exists()


def test_a_write_that_fails_is_said_in_pnps_words_naming_the_path():
    """A write that failed was said in the system's words ("No such file or directory", "No space left on
    device"), which say nothing of what to do; a failure pnp has no words for is said as the system says it."""
    from pnp.errors import cannot_write

    assert str(cannot_write("out/x.csv", OSError(28, "No space left on device"))) == \
        "out/x.csv: cannot write: the disk is full"
    assert str(cannot_write("out", OSError(2, "No such file or directory", "out/x.csv.part"))) == \
        "out/x.csv.part: cannot write: a folder it is to be written in is not there"
    assert str(cannot_write("out", OSError(5, "Input/output error"))) == "out: cannot write: Input/output error"
    assert str(cannot_write("out", OSError(errno.ELOOP, "Too many levels of symbolic links", "out", None,
                                           "out/.pnp.lock"))).startswith("out/.pnp.lock: cannot write: a symbolic link")
    # a file of pnp's read back from its work folder (gone with it: said at the folder), as the read it is; it
    # was 'cannot write: Input/output error' at the work folder's file
    from pnp.errors import ReadFault
    work = "out/.png.pnp-0123456789ab.tmp/.faces/faces.pdf"
    assert str(cannot_write("out", ReadFault(5, "Input/output error", work))) == "out: cannot read: Input/output error"
    assert str(cannot_write("out", OSError(28, "No space left on device", work))) == "out: cannot write: the disk is full"
    # too many files open (`ulimit -n 7`) is no fault of the file: it was said 'Too many open files' alone
    for error in (ReadFault(errno.EMFILE, "Too many open files", work), OSError(errno.EMFILE, "Too many open files")):
        assert "the system's limit of open files is too low (raise it, as with `ulimit -n 1024`" in \
            str(cannot_write("out", error))


@pytest.mark.parametrize("name, in_the_way", [
    ("manifest.json", '{"name": "my web app", "icons": []}\n'),  # a manifest of something else
    ("manifest.json", '{"game": "other", "files": []}\n'),  # another game's
    ("mini-a4.pdf", "%PDF-1.7 my own file\n"),  # no manifest beside it lists it
])
def test_a_build_never_replaces_a_file_no_build_of_the_game_wrote(project, tmp_path, name, in_the_way):
    """`build --out ~/Desktop` over the user's own ~/Desktop/<game>/manifest.json (or a PDF of a kit's name)
    replaced it with exit 0: refused at that file, which is kept, and nothing else of the kit is written."""
    folder = tmp_path / "kits" / "mini"
    folder.mkdir(parents=True)
    (folder / name).write_text(in_the_way)
    result = run(project, "build", "mini", "--out", str(tmp_path / "kits"))
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"{folder / name}: error: mini: build failed: "), result.output
    assert "move it away, or choose another --out; previous output left intact" in result.output
    assert sorted(p.name for p in folder.iterdir()) == [name] and (folder / name).read_text() == in_the_way


def test_a_build_replaces_its_own_kit_though_a_file_was_changed_or_a_kind_added(project, tmp_path):
    """What the folder's manifest of the game lists is the kit's, edited or not; a kind of component new to the
    game writes a name that manifest does not list yet, in a folder only builds wrote to."""
    kits = tmp_path / "kits"
    assert run(project, "build", "mini", "--out", str(kits)).exit_code == 0
    (kits / "mini/mini-a4.pdf").write_text("annotated in a viewer\n")
    result = run(project, "build", "mini", "--out", str(kits))
    assert result.exit_code == 0 and (kits / "mini/mini-a4.pdf").read_bytes().startswith(b"%PDF-"), result.output


@pytest.mark.parametrize("command, name", [(["calibrate"], "output/calibrate-a4.pdf"),
                                           (["report", "mini"], "output/mini/mini-report.pdf"),
                                           (["build", "mini"], "output/mini/mini-a4.pdf")])
@pytest.mark.parametrize("kind", ["link", "pipe"])
def test_a_link_or_a_pipe_where_a_file_goes_is_kept_and_said(project, tmp_path, command, name, kind):
    """A link of the user's (to a file of theirs) or a named pipe at the name of a file pnp writes was replaced
    by the file, exit 0: refused at it, and kept."""
    (project / name).parent.mkdir(parents=True, exist_ok=True)
    mine = tmp_path / "mine.txt"
    mine.write_text("mine\n")
    (project / name).symlink_to(mine) if kind == "link" else os.mkfifo(project / name)
    result = run(project, *command)
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"{name}: error: "), result.output
    assert "cannot write: something that is no ordinary file (a link, a pipe) is in its place" in result.output
    assert (project / name).is_symlink() if kind == "link" else (project / name).is_fifo()
    assert mine.read_text() == "mine\n"
