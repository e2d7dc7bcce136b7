"""`pnp new`: in an empty folder, a new game validates and builds at once, from each starting point, and an
existing game is never overwritten."""

import errno
import json
import os
import shlex
import time

import pytest

from click.testing import CliRunner
from conftest import run
from pnp.cli import cli


@pytest.mark.parametrize("start, kinds", [
    ("deck", {"rulebook", "deck", "tokens"}),
    ("board", {"rulebook", "board", "tokens"}),
    ("tokens", {"rulebook", "tokens"}),
])
def test_a_new_game_validates_and_builds_in_an_empty_folder(tmp_path, start, kinds):
    root = tmp_path / "empty"
    root.mkdir()
    made = run(root, "new", "mygame", "--from", start)
    assert made.exit_code == 0, made.output
    assert (root / "cards/mygame/game.yaml").is_file() and not (root / "fonts").exists()
    checked = run(root, "validate")
    assert checked.exit_code == 0, checked.output
    built = run(root, "build")
    assert built.exit_code == 0, built.output
    manifest = json.loads((root / "output/mygame/manifest.json").read_text(encoding="utf-8"))
    assert {c["kind"] for c in manifest["components"]} == kinds
    assert (root / "output/mygame/mygame-a4.pdf").stat().st_size > 10_000


def test_every_file_of_a_new_game_says_what_it_is(tmp_path):
    run(tmp_path, "new", "mygame")
    for path in list((tmp_path / "cards/mygame").glob("*.yaml")) + list((tmp_path / "layouts/mygame").glob("*.*")):
        first = path.read_text(encoding="utf-8").lstrip()
        assert first.startswith(("#", "{#-", "<svg")), path.name
    assert "__" not in (tmp_path / "cards/mygame/game.yaml").read_text(encoding="utf-8")


def test_new_never_overwrites_a_game(tmp_path):
    assert run(tmp_path, "new", "mygame").exit_code == 0
    card = tmp_path / "cards/mygame/cards.yaml"
    card.write_text("# mine\n", encoding="utf-8")
    again = run(tmp_path, "new", "mygame", "--from", "board")
    assert again.exit_code == 2 and again.output.startswith("cards/mygame: error: already exists"), again.output
    assert card.read_text(encoding="utf-8") == "# mine\n"
    assert not (tmp_path / "layouts/mygame/board.yaml").exists()


@pytest.mark.parametrize("there, said", [("cards/MyGame", "cards/'MyGame' is named alike"),
                                         ("layouts/MYGAME", "layouts/'MYGAME' is named alike"),
                                         ("Cards/old", "Cards: error: is there, one folder with the project's cards/"),
                                         ("LAYOUTS/x", "LAYOUTS: error: is there, one folder with the project's layouts/")])
def test_new_refuses_a_name_a_folder_there_has_but_for_case(tmp_path, there, said):
    """`pnp new mygame` beside cards/MyGame wrote a second game, which validate and build then refused with the
    first (their folders are one on a Mac's, Windows' or a USB stick's disk) until one was renamed. Beside a
    Cards/ it made a second cards/, one folder with it there."""
    (tmp_path / there).mkdir(parents=True)
    made = run(tmp_path, "new", "mygame")
    assert made.exit_code == 2 and said in made.output, made.output
    assert not (tmp_path / "cards/mygame").exists() and not (tmp_path / "layouts/mygame").exists()


@pytest.mark.parametrize("first", [0, 1])
def test_a_game_made_by_another_pnp_new_meanwhile_is_named_and_kept(tmp_path, monkeypatch, first):
    """Two `pnp new g` at once: the second, finding cards/g made after its check, was refused at its staging
    folder ('.pnp-new-x1y2/cards/g', gone by then) rather than at cards/g; then at the folder, but in the
    system's words ('cannot write the new game there: Directory not empty'), where a second `pnp new` after the
    first says the game already exists. Either folder (`first`: cards/g, layouts/g) made meanwhile."""
    from pnp import new as new_mod

    checked = new_mod._checked

    def made_meanwhile(project, game_id, start):
        targets = checked(project, game_id, start)
        targets[first].mkdir(parents=True)
        (targets[first] / "game.yaml").write_text("# the other's\n", encoding="utf-8")
        return targets

    monkeypatch.setattr(new_mod, "_checked", made_meanwhile)
    result = run(tmp_path, "new", "mygame")
    there = ("cards/mygame", "layouts/mygame")[first]
    assert result.exit_code == 2 and result.output.startswith(f"{there}: error: already exists: "), result.output
    assert (tmp_path / there / "game.yaml").read_text(encoding="utf-8") == "# the other's\n"
    assert not (tmp_path / ("layouts/mygame", "cards/mygame")[first]).exists() and not list(tmp_path.glob(".*"))


class _Killed(BaseException):
    """A kill: no `except OSError` clean-up of pnp's runs for it."""


def test_a_new_killed_between_its_two_folders_leaves_no_game_without_its_layouts(tmp_path, monkeypatch):
    """`pnp new` killed between moving in its two folders: it left cards/<game>/ without its layouts, a game
    every later `pnp validate` and `pnp build` of the project refused (an icon unknown...) until it was deleted;
    now the layouts go first (a layouts folder alone is read by no command), and the game exists only once its
    cards/<game>/game.yaml is in place."""
    from pnp import new as new_mod

    moved, calls = new_mod.move_into_place, []

    def killed_at_the_second(made, target):
        calls.append(target)
        if len(calls) == 2:
            raise _Killed
        moved(made, target)

    monkeypatch.setattr(new_mod, "move_into_place", killed_at_the_second)
    with pytest.raises(_Killed):
        run(tmp_path, "new", "mygame")
    assert not (tmp_path / "cards/mygame").exists() and (tmp_path / "layouts/mygame").is_dir()


def test_a_killed_news_staging_folder_is_removed_by_the_next_and_a_live_ones_kept(tmp_path):
    """A SIGKILL runs no clean-up: each `pnp new` killed while it staged its game left .pnp-new-<random>/ (a whole
    game when killed before its moves) in the project for good. The next `pnp new` removes those no live pnp holds;
    one another pnp holds (its lock), or made less than a minute ago, is kept."""
    import fcntl

    from pnp import new as new_mod

    old = time.time() - 3600
    from pnp.errors import scratch_name

    dead, live, fresh = (tmp_path / scratch_name(".pnp-new-", n) for n in ("dead", "1ee0", "f7e5"))
    mine = tmp_path / ".pnp-new-mynotes1"  # a designer's own folder named alike, a year old: kept
    for folder in (dead, live, fresh, mine):
        (folder / "cards/g").mkdir(parents=True)
    for folder in (dead, live, mine):
        os.utime(folder, (old, old))
    held = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert run(tmp_path, "new", "mygame").exit_code == 0
    finally:
        os.close(held)
    assert not dead.exists() and live.is_dir() and fresh.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(new_mod.STAGING_PREFIX)) == sorted([
        fresh.name, live.name, mine.name])


@pytest.mark.parametrize("blocked", ["cards", "layouts"])
def test_new_where_a_games_folder_is_a_file_says_so_and_leaves_nothing(tmp_path, blocked):
    """A project whose cards/ (or layouts/) is a file was a traceback (FileExistsError), then said as 'something
    that is no file is in its place' (it is one): said as a file in the folder's place, before any work."""
    (tmp_path / blocked).write_text("mine\n", encoding="utf-8")
    result = run(tmp_path, "new", "mygame")
    assert result.exit_code == 2 and result.output.startswith(f"{blocked}: error: a file is in the place of the "
                                                              f"project's folder {blocked}/"), result.output
    assert (tmp_path / blocked).read_text(encoding="utf-8") == "mine\n"
    assert not list(tmp_path.glob("*/mygame")) and not list(tmp_path.glob(".*"))  # no half game, no staging
    assert sorted(p.name for p in tmp_path.iterdir()) == [blocked]  # nor the other folder, made for it, left empty


def test_new_in_a_project_it_may_not_write_names_the_project_not_its_staging_folder(tmp_path, monkeypatch):
    """A read-only project folder: refused at '.pnp-new-x1y2', the staging folder pnp could not make there."""
    made = os.mkdir

    def refused(path, *args, **kwargs):  # as os.mkdir says it in a folder without write permission (root ignores
        if os.path.basename(path).startswith(".pnp-new-"):  # chmod)
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return made(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", refused)
    result = run(tmp_path, "new", "mygame")
    assert result.exit_code == 2 and result.output.startswith(".: error: cannot write"), result.output
    assert ".pnp-new" not in result.output


def test_new_with_a_root_under_a_file_says_so(tmp_path):
    (tmp_path / "file").write_text("mine\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--root", str(tmp_path / "file" / "proj"), "new", "mygame"])
    assert result.exit_code == 2 and f"--root {tmp_path / 'file' / 'proj'}: cannot make the folder" in result.output


@pytest.mark.parametrize("name", ["My Game", "../escape", "UPPER", ""])
def test_new_refuses_a_name_that_cannot_be_a_game_id(tmp_path, name):
    result = run(tmp_path, "new", name)
    assert result.exit_code == 2 and "cannot name a game" in result.output
    assert not (tmp_path / "cards").exists()


def test_new_refuses_a_name_pnp_reserves(tmp_path):
    # layouts/shared would become every game's shared layouts (their templates and icons)
    result = run(tmp_path, "new", "shared")
    assert result.exit_code == 2 and "'shared' cannot name a game: pnp reserves it (layouts/shared" in result.output
    assert not (tmp_path / "cards").exists() and not (tmp_path / "layouts").exists()


@pytest.mark.parametrize("name", ["con", "nul", "com1", "lpt9"])
def test_new_refuses_a_name_windows_keeps_for_a_device(tmp_path, name):
    # cards/con cannot be made, nor the project checked out, on Windows
    result = run(tmp_path, "new", name)
    assert result.exit_code == 2 and f"'{name}' cannot name a game: pnp reserves it (Windows names a device" \
        in result.output
    assert not (tmp_path / "cards").exists() and not (tmp_path / "layouts").exists()


def test_new_with_root_makes_the_folder_and_its_hint_runs_as_printed(tmp_path):
    root = tmp_path / "not yet"
    made = run(root, "new", "mygame")
    assert made.exit_code == 0, made.output
    hint = made.output.strip().splitlines()[-1]
    commands = hint.removeprefix("next: ").split("   (")[0].split(" && ")
    for command in commands:  # each as the user would paste it: `pnp --root '<root>' validate mygame`
        words = shlex.split(command)
        assert words[:3] == ["pnp", "--root", str(root)]
        result = CliRunner().invoke(cli, words[1:], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    assert f"edit {root}/cards/mygame/game.yaml" in hint


def test_the_hint_of_a_root_holding_an_escape_is_printable_and_pastes_into_bash(tmp_path):
    """--root with an escape sequence (and a quote) reached the terminal raw in the hint's shell words."""
    import shutil
    import subprocess

    root = tmp_path / "a\x1b[2Jb'c\u200fd"
    made = run(root, "new", "mygame")
    hint = made.output.strip().splitlines()[-1]
    assert made.exit_code == 0 and hint.isprintable() and "\\x1b[2J" in hint
    if shutil.which("bash"):  # the words as bash reads them, printed back
        command = hint.removeprefix("next: ").split(" && ")[0].replace("pnp ", "printf '%s\\0' ", 1)
        words = subprocess.run(["bash", "-c", command], capture_output=True, check=True).stdout.split(b"\0")
        assert words[:3] == [b"--root", os.fsencode(root), b"validate"]


@pytest.mark.parametrize("linked", ["cards", "layouts"])
def test_new_writes_nothing_through_a_linked_cards_or_layouts_folder(tmp_path, linked):
    root, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    (root / linked).symlink_to(elsewhere)  # a project someone sent, holding `cards -> ~`
    result = run(root, "new", "mygame")
    assert result.exit_code == 2 and f"{linked} is a symbolic link" in result.output
    assert "--out" not in result.output  # pnp new has no --out to advise
    assert list(elsewhere.iterdir()) == []
    assert not (root / "cards" / "mygame").exists()


@pytest.mark.parametrize("title", ["{7 * 7} & [raw]", "Yes", "Dinos: the #1 game", "- 1e3", "Jeu d'été",
                                   "Les\u00a0dinos !"])  # (a no-break space: not isprintable, yet printed)
def test_a_title_yaml_would_read_otherwise_is_kept_as_given(tmp_path, title):
    assert run(tmp_path, "new", "mygame", "--from", "tokens", "--title", title).exit_code == 0
    listed = run(tmp_path, "list")
    assert listed.exit_code == 0 and f"mygame: {title} (" in listed.output, listed.output


def test_a_title_holding_a_template_is_refused_as_the_game_would_be(tmp_path):
    """game.yaml's title prints as written, braces and all (refused there since run 33): `pnp new` writes no
    game that would not validate."""
    result = run(tmp_path, "new", "mygame", "--from", "tokens", "--title", "{{ 7 * 7 }} & {% raw %}")
    assert result.exit_code == 2 and "cards/mygame/game.yaml:4:8: error: title:" in result.output, result.output
    assert not (tmp_path / "cards" / "mygame").exists()


def test_a_title_of_more_than_one_line_is_refused_and_nothing_written(tmp_path):
    made = run(tmp_path, "new", "mygame", "--title", "A\nplayers: 9")
    assert made.exit_code == 2 and "a title is one line of printable text" in made.output
    assert not (tmp_path / "cards").exists()
    # a byte of another encoding on the command line (a lone surrogate) was refused as 'malformed YAML' at
    # game.yaml, a file pnp had written, once the game was written and checked
    made = run(tmp_path, "new", "mygame", "--title", "Caf\udce9")
    assert made.exit_code == 2 and "--title 'Caf\\udce9': not UTF-8 text" in made.output, made.output
    assert not (tmp_path / "cards").exists()
    # a blank title quietly took the one made from the game's name; a title of 100,000 characters was written
    # and validated, at twice a game's time: both refused before any work
    for title, said in [("", "--title '': a title cannot be blank"), (" \u3000", "a title cannot be blank"),
                        ("x" * 100_000, "--title: a title of 100,000 characters; a title has at most 200")]:
        made = run(tmp_path, "new", "mygame", "--title", title)
        assert made.exit_code == 2 and said in made.output and len(made.output) < 300, made.output
        assert not (tmp_path / "cards").exists()


@pytest.mark.parametrize("title, said", [
    ("Long " * 39, "too long for the rulebook's page footer"),  # (within MAX_TITLE: a longer one is refused before)
    ("Ḉ the game", "U+1E08"),
])
def test_a_title_the_game_could_not_print_is_refused_and_nothing_written(tmp_path, title, said):
    """A title too long for the footer, or holding characters the fonts lack, wrote a game validate refused."""
    made = run(tmp_path, "new", "mygame", "--from", "tokens", "--title", title)
    assert made.exit_code == 2, made.output
    assert "pnp new wrote nothing" in made.output and "cards/mygame/game.yaml:4:8: error:" in made.output
    assert said in made.output
    assert not list(tmp_path.glob("*/mygame")) and not list(tmp_path.glob(".*"))


@pytest.mark.parametrize("start, layout", [("deck", "card-back.yaml"), ("board", "board.yaml")])
def test_a_title_of_markup_characters_validates_and_prints_as_typed(tmp_path, start, layout):
    """The card back and the board print the title as typed (the as_typed filter): read as markup, '*a' opened
    italic and `pnp new` refused it, ':bolt:' was an icon, and 'a*b*c' printed 'abc' with a b in italic."""
    import yaml
    from pnp.draw.text import parse
    from pnp.template import ENV

    title = "*a a*b*c :bolt: [[x]] \\* a\\b, {x} __GAME__"
    made = run(tmp_path, "new", "mygame", "--from", start, "--title", title)
    assert made.exit_code == 0, made.output
    assert run(tmp_path, "validate", "mygame").exit_code == 0
    elements = yaml.safe_load((tmp_path / "layouts" / "mygame" / layout).read_text(encoding="utf-8"))["elements"]
    printed = [e["text"] for e in elements if e["type"] == "text" and e.get("style") == "title"]
    assert printed == ["{{ game.title | as_typed }}"]  # (the title as game.yaml gives it, so a new one shows)
    markup = ENV.from_string(printed[0]).render(game={"title": title})
    assert "".join(r.text for r in parse(markup)) == title
    assert {(r.kind, r.bold, r.italic) for r in parse(markup)} <= {("text", False, False), ("space", False, False)}


def test_a_refused_title_leaves_no_folder_new_made(tmp_path):
    """'pnp new wrote nothing': a title the game would not validate with left the project's cards/ and layouts/,
    and the --root folders, that pnp new had made for the game, empty."""
    root = tmp_path / "games" / "mine"
    made = CliRunner().invoke(cli, ["--root", str(root), "new", "mygame", "--from", "tokens", "--title", "{{ x }}"])
    assert made.exit_code == 2 and "pnp new wrote nothing" in made.output, made.output
    assert list(tmp_path.iterdir()) == []


def test_a_refused_title_taken_back_leaves_no_half_game_when_killed(tmp_path, monkeypatch):
    """The game a refused title had written was deleted where it was: a pnp killed midway (here, at the first
    deletion) left cards/mygame/ with part of its files, a game every validate of the project refused. Each
    folder is moved out of the way in one rename first; Ctrl-C while the game is checked takes it back too."""
    import pnp.project as project_module
    from pnp.errors import UsageError
    from pnp.new import new_game
    from pnp.project import Project

    class Killed(BaseException):
        pass

    removals = []
    remove_all = project_module.remove_all

    def killed(*args, **kwargs):  # the first removal is of the folder the game was staged in, once it is moved
        removals.append(args[0])
        if len(removals) > 1:
            raise Killed
        remove_all(*args, **kwargs)

    monkeypatch.setattr(project_module, "remove_all", killed)
    with pytest.raises(Killed):
        new_game(Project(tmp_path), "mygame", "tokens", "{{ x }}")
    assert not (tmp_path / "cards" / "mygame").exists() and not (tmp_path / "layouts" / "mygame").exists()
    monkeypatch.undo()

    def interrupted(*args, **kwargs):
        raise SystemExit(130)  # (as Ctrl-C is: KeyboardInterrupt would stop pytest)

    monkeypatch.setattr("pnp.check.validate", interrupted)
    with pytest.raises(SystemExit):
        new_game(Project(tmp_path), "other", "tokens", "A title")
    assert not (tmp_path / "cards" / "other").exists() and not (tmp_path / "layouts" / "other").exists()
    monkeypatch.undo()
    with pytest.raises(UsageError):
        new_game(Project(tmp_path), "mygame", "tokens", "{{ x }}")


def test_new_stages_nothing_through_a_link_swapped_in_for_a_folder_of_its_staging_folder(tmp_path):
    # the scaffold's files were written into pnp new's staging folder by path: a subfolder of it (in the project)
    # swapped for a link to a folder outside had the game's files made there
    from pnp.new import _stage

    staged, outside = tmp_path / "staged", tmp_path / "outside"
    staged.mkdir()
    outside.mkdir()
    (staged / "cards").symlink_to(outside)
    with pytest.raises(OSError):
        list(_stage(staged, "deck", "g", "G", {}))
    assert list(outside.iterdir()) == []
