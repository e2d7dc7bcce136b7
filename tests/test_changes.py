"""What changed: the manifest fingerprints every face, `pnp changes` names exactly the cards edited since a
build or a git commit, and `pnp build --changed-since` writes a reprint of only their sheets and backs."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from conftest import make_project, run
from test_game_rules import shipped
from pnp.kit.changes import _copy as _real_copy
from pnp.kit.manifest import seal

# Dino Battles: its decks have backs of their own, and it validates in a fraction of DinoSpan's time (each
# `changes` or reprint of DinoSpan validated it, 3 s, most of this file's time)
GAME = "dino-battles"
FILE = "cards/dino-battles/dinosaurs.yaml"
EDITED = {"ferro-rex": "Ferro-Rex", "voltaraptor": "Voltaraptor"}


@pytest.fixture(scope="module")
def built(tmp_path_factory, shipped_kit):
    """A copy of the game with the run's shared build of it in its output folder (as if built there: the
    build writes what it read relative to the project, so the copy is up to date; building it again took 5 s)."""
    root = shipped(tmp_path_factory.mktemp("changes"), GAME)
    shutil.copytree(shipped_kit / GAME, root / "output" / GAME)
    return root


@pytest.fixture
def proj(built, tmp_path):
    """A copy of the built game, its manifest sealed where it now lies, as if built there (`pnp changes` compares
    only with a manifest the user's pnp wrote in its place)."""
    root = tmp_path / "proj"
    shutil.copytree(built, root)
    seal(root / "output" / GAME / "manifest.json")
    return root


def edit_facts(root):
    """Give two dinosaurs a new flavour text (printed on their fronts)."""
    path = root / FILE
    text = path.read_text(encoding="utf-8")
    for card in EDITED:
        block = re.search(rf"- id: {card}\n(?:  .*\n)*?  flavour: .*\n", text)
        assert block, card
        new = re.sub(r"  flavour: .*\n", "  flavour: \"A flavour rewritten after the playtest.\"\n", block.group(0))
        text = text.replace(block.group(0), new)
    path.write_text(text, encoding="utf-8")


def changed_items(output):
    return sorted(line.split()[2] for line in output.splitlines() if line.startswith("  changed"))


def _committed(folder):
    """The folder made a git repository of one commit ("as sent") holding all it holds."""
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "as sent"], check=True)


def _one_file_committed(tmp_path, text):
    """A project folder whose repository's one commit holds `cards/a.yaml` of `text`, and that file's blob id:
    (the folder, the id). Skipped where git is not installed."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "proj"
    (root / "cards").mkdir(parents=True)
    (root / "cards" / "a.yaml").write_text(text)
    _committed(root)
    oid = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD:cards/a.yaml"], capture_output=True, text=True,
                         check=True).stdout.strip()
    return root, oid


def test_every_face_is_fingerprinted_in_the_manifest(built):
    manifest = json.loads((built / "output" / GAME / "manifest.json").read_text(encoding="utf-8"))
    fields = manifest["face_fields"]
    deck = next(c for c in manifest["components"] if c["id"] == "dinosaurs")
    faces = [dict(zip(fields, row)) for row in deck["faces"]]
    assert sum(f["copies"] for f in faces if f["side"] == "front") == deck["count"] == 50  # 10 species, 5 copies
    assert all(len(f["look"]) == 16 and len(f["data"]) == 16 for f in faces)
    fronts = {f["look"] for f in faces if f["side"] == "front"}
    backs = {f["look"] for f in faces if f["side"] == "back"}
    assert len(fronts) == 10 and len(backs) == 1  # every species looks its own; the deck's backs look alike


def test_changes_names_exactly_the_two_cards_edited(proj):
    assert "nothing changed" in run(proj, "changes", GAME).output
    edit_facts(proj)
    result = run(proj, "changes", GAME)
    assert result.exit_code == 0, result.output
    assert changed_items(result.output) == sorted(EDITED), result.output
    assert "(front: look, data; back: data)" in result.output
    assert not [ln for ln in result.output.splitlines() if ln.startswith(("  added", "  removed"))]


def test_the_reprint_holds_only_the_changed_cards_and_their_backs(proj, monkeypatch):
    import pnp.project as project_mod

    # the reprint and its manifest are put in place by one commit, all or none: written one after the other, a
    # pnp killed between the two left the new reprint beside the manifest of the previous, which said other items
    committed, commit = [], project_mod.commit_files
    monkeypatch.setattr(project_mod, "commit_files", lambda renames, *removed: (committed.append(
        sorted(final.name for final in renames.values())), commit(renames, *removed)))
    manifest = proj / "before.json"
    shutil.copy(proj / "output" / GAME / "manifest.json", manifest)
    kit = {p.name: p.read_bytes() for p in (proj / "output" / GAME).glob("*.pdf")}
    edit_facts(proj)
    result = run(proj, "build", GAME, "--changed-since", str(manifest))
    assert result.exit_code == 0, result.output
    reprints = list((proj / "output" / GAME).glob(f"{GAME}-reprint-*-a4.pdf"))
    assert len(reprints) == 1, reprints
    reprint = reprints[0]
    pages = PdfReader(reprint).pages
    assert len(pages) == 4  # 2 species, 5 copies each: 10 poker cards 9-up, two sheets of fronts, each then its backs
    fronts = pages[0].extract_text() + pages[2].extract_text()
    for name in EDITED.values():
        assert name in fronts
    others = [n for n in re.findall(r"^  name: (.*)", (proj / FILE).read_text(encoding="utf-8"), re.M)
              if n not in EDITED.values()]
    assert len(others) == 8 and not [n for n in others if n in fronts]
    assert all("Dino deck" in pages[i].extract_text() for i in (1, 3))  # the deck's own back
    assert set(kit) <= {p.name for p in (proj / "output" / GAME).glob("*.pdf")}  # the kit is still all there
    key = reprint.name.removeprefix(f"{GAME}-reprint-").removesuffix("-a4.pdf")
    recorded = json.loads((proj / "output" / GAME / f"manifest-reprint-{key}.json").read_text(encoding="utf-8"))
    assert recorded["file"] == reprint.name and recorded["pages"] == 4 and recorded["since"] == "before.json"
    assert recorded["items"] == {"dinosaurs": sorted(EDITED)}
    assert [names for names in committed if reprint.name in names] == [sorted([reprint.name, f"manifest-reprint-{key}.json"])]


def test_changes_since_a_git_commit(tmp_path, monkeypatch):
    """`--since` a commit names the cards edited since it, as `pnp changes` does since a build (the test game:
    the two comparisons validate the game twice, seconds each for a shipped one); a name that is neither a
    manifest nor a commit is refused. The copy of the game at the commit, in the system's temporary folder, is
    removed, and those of killed runs (a SIGKILL runs no clean-up: each was left there for good) with it."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    import tempfile
    import time

    system_tmp = tmp_path / "tmp"
    from pnp.errors import scratch_name

    dead, fresh = (system_tmp / scratch_name("pnp-since-", n) for n in ("dead", "f7e5"))
    for folder in (dead, fresh):
        (folder / "project" / "cards").mkdir(parents=True)
    os.utime(dead, (time.time() - 3600,) * 2)
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    proj = make_project(tmp_path / "proj")
    _committed(proj)
    cards = proj / "cards" / "mini" / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text.replace("power: 4", "power: 5").replace("power: 2", "power: 1"), encoding="utf-8")
    result = run(proj, "changes", "mini", "--since", "HEAD")
    assert result.exit_code == 0, result.output
    assert "since commit HEAD" in result.output
    assert changed_items(result.output) == ["lion", "moss"], result.output
    assert sorted(p.name for p in system_tmp.iterdir()) == [fresh.name]  # (a live run's, or one just made: kept)
    bad = run(proj, "changes", "mini", "--since", "no-such-ref")
    assert bad.exit_code == 2 and "neither a manifest file nor a git commit" in bad.output
    # a ref of any length names a commit: its 100 KB were printed whole in "... since commit HEAD^0^0..."
    long = "HEAD" + "^0" * 500
    for ref, code in ((long, 0), (long + "~9", 2)):
        said = run(proj, "changes", "mini", "--since", ref)
        assert said.exit_code == code and "HEAD^0^0" in said.output and long not in said.output, said.output[:200]


@pytest.mark.parametrize("command", [("changes", "--since"), ("build", "--changed-since")])
def test_a_since_holding_a_nul_is_refused_as_no_file_nor_commit(project, command):
    """A NUL in --since (possible from a script calling pnp, never from a shell) reached the system's calls,
    which raised ValueError: 'This is a bug in pnp'."""
    result = run(project, *command, "a\0b")
    assert result.exit_code == 2 and "bug in pnp" not in result.output
    assert "a\\x00b: holds a NUL character" in result.output, result.output


def test_a_commit_is_read_without_running_what_the_received_folders_git_config_names(tmp_path):
    """A game folder someone sent you may carry a .git/config whose filters (and fsmonitor) name commands:
    comparing with one of its commits runs none of them, and still names the card edited since."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    marker = tmp_path / "ran"
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (root / ".gitattributes").write_text("* filter=sent\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "as sent"], check=True)
    command = f"touch {marker}; cat"
    with open(root / ".git" / "config", "a", encoding="utf-8") as config:
        config.write(f'[filter "sent"]\n\tsmudge = "{command}"\n\tclean = "{command}"\n\trequired = true\n'
                     f'[core]\n\tfsmonitor = "touch {marker}"\n\tpager = "touch {marker}; cat"\n')
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "attributes").write_text("* filter=sent\n")
    cards = root / "cards" / "mini" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("name: Wolf", "name: Grey Wolf"), encoding="utf-8")
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 0, result.output
    assert changed_items(result.output) == ["wolf"], result.output
    assert not marker.exists()


@pytest.mark.parametrize("redirect", ["alternates", "include", "gitdir", "linked pack", "linked in the project",
                                      "include after a byte-order mark", "include after another header",
                                      "include in config.worktree", "named pipe", "partial clone",
                                      "huge packed-refs", "gitdir read otherwise by git", "huge pack index"])
def test_a_received_git_folder_that_points_elsewhere_is_refused_before_git_reads_it(tmp_path, redirect):
    """Objects kept in another repository, config included from another file, a .git file naming a repository
    elsewhere: each would make git read outside the project, so none is read, and the message names it."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    elsewhere = tmp_path / "elsewhere"
    if redirect == "alternates":
        (root / ".git" / "objects" / "info" / "alternates").write_text(f"{elsewhere}/objects\n")
        named = ".git/objects/info/alternates"
    elif redirect == "include":
        with open(root / ".git" / "config", "a", encoding="utf-8") as config:
            config.write(f"[includeIf \"gitdir:/\"]\n\tpath = {elsewhere}/config\n")
        named = ".git/config"
    elif redirect.startswith("include "):  # git's own parser takes these; a pattern on the text did not
        config = root / ".git" / "config"
        include = f"[include]\n\tpath = {elsewhere}/config\n"
        start, end = {"include after a byte-order mark": ("\ufeff" + include, ""),
                      "include after another header": ("", "[core]" + include),
                      "include in config.worktree": ("", "[extensions]\n\tworktreeConfig = true\n")}[redirect]
        config.write_text(start + config.read_text(encoding="utf-8") + end, encoding="utf-8")
        named = ".git/config"
        if redirect == "include in config.worktree":
            (root / ".git" / "config.worktree").write_text(include)
            named = ".git/config.worktree"
    elif redirect == "partial clone":  # git fetched a missing object itself, running the remote's uploadpack
        with open(root / ".git" / "config", "a", encoding="utf-8") as config:
            config.write(f'[extensions]\n\tpartialClone = origin\n[remote "origin"]\n\turl = {elsewhere}\n'
                         f'\tpromisor = true\n\tuploadpack = touch {elsewhere}; git-upload-pack\n')
        named = ".git/config"
    elif redirect == "named pipe":  # git waited on it for the minute pnp gives it
        (root / ".git" / "packed-refs").unlink(missing_ok=True)
        os.mkfifo(root / ".git" / "packed-refs")
        named = ".git/packed-refs"
    elif redirect == "huge pack index":  # git maps it whole: 'mmap failed' on every commit, naming no file
        with open(root / ".git/objects/pack/pack-1.idx", "wb") as index:
            index.truncate(641 << 19)
        named = ".git/objects/pack/pack-1.idx"
    elif redirect == "huge packed-refs":  # git read it whole: 2 GB of memory for a 2 GB file (sparse here)
        with open(root / ".git" / "packed-refs", "ab") as refs:
            refs.truncate(65 << 20)
        named = ".git/packed-refs"
    elif redirect == "gitdir":
        (root / ".git").rename(elsewhere)
        (root / ".git").write_text(f"gitdir: {elsewhere}\n")
        named = ".git"
    elif redirect == "gitdir read otherwise by git":  # git keeps the space: it used '.g ', pnp checked .g
        (root / ".git").rename(root / ".g ")
        subprocess.run(["git", "init", "-q", "--bare", str(root / ".g")], check=True)
        (root / ".g " / "objects" / "info" / "alternates").write_text(f"{elsewhere}/objects\n")
        (root / ".git").write_text("gitdir: .g \n")
        named = ".git"  # ('.g ' is refused at once: Windows reads it as '.g', as every path check refuses it)
    elif redirect == "linked pack":  # git follows links in its folder: this read another repository's objects
        (root / ".git" / "objects" / "pack").rename(elsewhere)
        (root / ".git" / "objects" / "pack").symlink_to(elsewhere)
        named = ".git/objects/pack"
    else:  # a link to a folder of the project beyond .git, whose own links the check would not walk
        (root / ".git" / "refs" / "tags").rmdir()
        (root / ".git" / "refs" / "tags").symlink_to(root / "cards")
        named = ".git/refs/tags"
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 2
    assert f"{named}: error: --since: the project's git repository cannot be read safely" in result.output
    assert redirect != "partial clone" or not elsewhere.exists()  # the remote's command never ran


@pytest.mark.parametrize("component, said", [
    ({"faces": []}, "a component without its id and faces"),
    ({"id": "cards", "faces": [["a", "front", 1, "look"]]}, "a face of cards is not a row of item, side"),
    ({"id": "cards", "faces": [["a", "front", 1, ["look"], {"data": 1}]]}, "a face of cards is not a row of"),
])
def test_a_manifests_malformed_component_is_refused_in_pnps_words(tmp_path, component, said):
    """A component without its id, or a face row of four fields, was refused with Python's words for it
    ("KeyError('id')", "ValueError('not enough values to unpack (expected 5, got 4)')"); fingerprints that
    are no text were compared as they were."""
    import json

    root = make_project(tmp_path / "proj")
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"game": "mini", "paper": "a4", "components": [component], "files": [],
                                "warnings": [], "inputs": {}, "face_fields": ["item", "side", "copies", "look", "data"]}))
    result = run(root, "changes", "mini", "--since", str(path))
    assert result.exit_code == 2 and f"its components are not as pnp writes them ({said}" in result.output, result.output
    assert "Error(" not in result.output



def test_a_manifest_that_is_no_json_is_refused_where_the_parse_stopped_in_pnps_words(tmp_path):
    """`--since .git/HEAD` said "not a pnp manifest: Expecting value" (Python's JSON parser's words)."""
    root = make_project(tmp_path / "proj")
    path = tmp_path / "m.json"
    path.write_text('{"game": "mini",\n  "paper": }')
    result = run(root, "changes", "mini", "--since", str(path))
    assert result.exit_code == 2 and f"{path}:2:12: error: not a pnp manifest: not JSON text" in result.output, result.output
    assert "Expecting" not in result.output


def test_a_manifest_naming_a_component_by_a_number_is_refused_as_not_pnps(tmp_path):
    """Names a manifest gives must be text: a number among them could not be sorted with the rest (a
    TypeError traceback)."""
    import json

    root = make_project(tmp_path / "proj")
    assert run(root, "build").exit_code == 0
    path = root / "output" / "mini" / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["components"][0]["id"] = 5
    path.write_text(json.dumps(manifest), encoding="utf-8")
    result = run(root, "changes", "--since", str(path))  # (edited: compared only when named)
    assert result.exit_code == 2
    assert "output/mini/manifest.json: error: not a pnp manifest: its components are not as pnp writes them" in result.output


def test_a_commit_of_more_files_than_the_limit_is_refused_before_they_are_written(tmp_path, monkeypatch):
    """Each file of the commit is a round trip to git and a file written: 600,000 of them ran for minutes.
    (The limit is lowered here: the listing is stopped at the same count whatever it is.)"""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    from pnp.kit import changes

    monkeypatch.setattr(changes, "MAX_COMMIT_FILES", 5)
    root = make_project(tmp_path / "proj", {f"cards/mini/notes/n{i}.txt": "a note\n" for i in range(6)})
    _committed(root)
    result = run(root, "changes", "mini", "--since", "HEAD")
    assert result.exit_code == 2
    assert "--since HEAD: the game has more than 5 files at that commit" in result.output
    monkeypatch.setattr(changes, "MAX_COMMIT_FILES", 100_000)
    assert "mini: nothing changed since commit HEAD" in run(root, "changes", "mini", "--since", "HEAD").output


def test_a_commit_is_written_out_within_its_cap_and_a_file_past_every_input_cap_only_as_its_size(tmp_path,
                                                                                                 monkeypatch):
    """A file no input reader takes (past MAX_BLOB_BYTES) is written as a stand-in of its size, not read from git:
    it costs neither time nor disk; the rest together is held to MAX_COMMIT_BYTES. (Both lowered here.)"""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    from pnp.kit import changes

    root = make_project(tmp_path / "proj", {"cards/mini/sketch.psd": "x" * 500_000})
    others = [path.stat().st_size for path in root.rglob("*") if path.is_file() and path.name != "sketch.psd"]
    monkeypatch.setattr(changes, "MAX_BLOB_BYTES", max(others))
    monkeypatch.setattr(changes, "MAX_COMMIT_BYTES", sum(others))
    _committed(root)
    written = []
    monkeypatch.setattr(changes, "_copy", lambda source, size, target: (written.append(target.name),
                                                                          _real_copy(source, size, target)))
    assert "mini: nothing changed since commit HEAD" in run(root, "changes", "mini", "--since", "HEAD").output
    assert written and "sketch.psd" not in written
    monkeypatch.setattr(changes, "MAX_COMMIT_BYTES", 1000)
    result = run(root, "changes", "mini", "--since", "HEAD")
    assert result.exit_code == 2 and "--since HEAD: the game's files at that commit are too large to compare" \
        in result.output


def test_a_commits_file_past_the_largest_readers_cap_is_never_read_from_git():
    """The stand-in threshold is the largest cap any reader of a game's file has (every reader refuses by size
    before it reads): at 256 MB, a file of 250 MB of zeros (250 KB in the repository), read by nothing, was
    inflated and written out whole (6 s); the commit's total stays at its own cap."""
    from pnp.draw.fonts import MAX_FONT_BYTES
    from pnp.draw.icons import MAX_ICON_BYTES
    from pnp.kit import changes
    from pnp.model.images import MAX_IMAGE_BYTES
    from pnp.model.load import MAX_FILE_BYTES
    from pnp.products.rulebook import MAX_SIMULATION_BYTES
    from pnp.simulate.api import MAX_RULES_BYTES

    caps = (MAX_IMAGE_BYTES, MAX_FONT_BYTES, MAX_FILE_BYTES, MAX_ICON_BYTES, MAX_SIMULATION_BYTES, MAX_RULES_BYTES)
    assert changes.MAX_BLOB_BYTES == max(caps)
    assert changes.MAX_COMMIT_BYTES == 256 * 2**20


@pytest.mark.parametrize("command", [["changes", "mini", "--since"], ["build", "mini", "--force", "--changed-since"]])
def test_another_games_manifest_is_refused_by_name(tmp_path, command):
    """Compared with another game's build every face was added or removed: a reprint of the whole game, exit 0."""
    root = make_project(tmp_path / "proj")
    assert run(root, "build").exit_code == 0
    path = root / "output" / "mini" / "manifest.json"
    other = root / "other.json"
    other.write_text(path.read_text(encoding="utf-8").replace('"game": "mini"', '"game": "evo"', 1), encoding="utf-8")
    result = run(root, *command, str(other))
    assert result.exit_code == 2 and "other.json: error: this is the manifest of 'evo', not of mini" in result.output, \
        result.output
    assert not list((root / "output" / "mini").glob("*reprint*"))


def test_a_received_repository_holding_the_project_in_a_subfolder_is_checked_as_its_own(tmp_path):
    """The checks looked only at the project's own .git: one a folder above, as sent, was read unchecked."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "sent" / "proj")
    _committed(tmp_path / "sent")
    with open(tmp_path / "sent" / ".git" / "config", "a", encoding="utf-8") as config:
        config.write(f"[include]\n\tpath = {tmp_path / 'elsewhere'}\n")
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 2, result.output
    assert "sent/.git/config: error: --since: the project's git repository cannot be read safely" in result.output
    # a .git file there naming a repository anywhere on the disk: git read its objects and config
    (tmp_path / "sent" / ".git").rename(tmp_path / "elsewhere.git")
    (tmp_path / "sent" / ".git").write_text(f"gitdir: {tmp_path / 'elsewhere.git'}\n")
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 2, result.output
    assert "sent/.git: error: --since: the project's git repository cannot be read safely: git folder" in result.output


@pytest.mark.parametrize("gitdir", ["//pnp-test.invalid/share/repo.git", "/\\\\pnp-test.invalid\\share\\repo.git"])
def test_a_git_file_naming_a_folder_of_another_machine_is_refused_before_it_is_looked_at(tmp_path, monkeypatch, gitdir):
    """`gitdir: //host/share/repo.git` (a network share on Windows) was resolved to be checked: that look alone
    connects to the host, handing it the user's credentials."""
    from pnp.errors import DataError
    from pnp.kit.changes import _git_folder
    from pnp.project import Project

    (tmp_path / ".git").write_text(f"gitdir: {gitdir}\n")
    looked: list[str] = []
    monkeypatch.setattr(Path, "resolve", lambda self, strict=False: looked.append(str(self)) or self)
    with pytest.raises(DataError, match="of another machine"):
        _git_folder(Project(tmp_path), tmp_path / ".git", tmp_path)
    assert not [p for p in looked if "pnp-test.invalid" in p]


def test_a_game_made_since_the_commit_has_every_card_added(tmp_path):
    """A game not in the commit (or in a project folder made since: git ls-tree said only that it could not list
    the commit's files) was refused, and with it every game of `build --changed-since COMMIT`."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "README").write_text("before the game\n")
    _committed(tmp_path / "repo")
    root = make_project(tmp_path / "repo" / "games")
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 0, result.output
    assert "(0 changed, 6 added, 0 removed)" in result.output  # the board, four cards and the rulebook's text
    built = run(root, "build", "--changed-since", "HEAD")
    assert built.exit_code == 0, built.output
    reprints = list((root / "output" / "mini").glob("mini-reprint-*.pdf"))
    assert len(reprints) == 1


def test_a_project_folder_laid_out_as_a_bare_repository_is_not_taken_for_one(tmp_path):
    """Left to find its repository, git took a project holding HEAD, objects/ and refs/ for a bare one, and
    ran what its config named; pnp gives git the repository it checked."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "mine" / "proj")
    _committed(tmp_path / "mine")
    shutil.copytree(tmp_path / "mine" / ".git" / "objects", root / "objects")
    shutil.copytree(tmp_path / "mine" / ".git" / "refs", root / "refs")
    shutil.copy(tmp_path / "mine" / ".git" / "HEAD", root / "HEAD")
    marker = tmp_path / "ran"
    (root / "config").write_text(f'[core]\n\tbare = true\n[extensions]\n\tpartialClone = origin\n[remote "origin"]\n'
                                 f'\turl = {tmp_path}\n\tpromisor = true\n\tuploadpack = touch {marker}; git-upload-pack\n'
                                 f'[include]\n\tpath = {tmp_path / "elsewhere"}\n')
    result = run(root, "changes", "--since", "HEAD~0")
    assert result.exit_code == 0 and "nothing changed since commit HEAD~0" in result.output, result.output
    assert not marker.exists()


def test_a_repository_git_refuses_is_said_with_gits_reason(tmp_path):
    """A repository git cannot read (a config of a later format) was reported as an unknown commit; then as the
    --since's fault with git's reason, naming no file: it is said at .git/config."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    subprocess.run(["git", "-C", str(root), "config", "core.repositoryFormatVersion", "9"], check=True)
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 2 and result.output.startswith(".git/config: error: --since HEAD: "), result.output
    assert "git cannot read this file of the repository (git: " in result.output


def test_a_commit_that_does_not_validate_is_refused_naming_its_first_error_there(tmp_path):
    """The refusal said only how many errors the game had at that commit, naming no file."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    cards = root / "cards" / "mini" / "cards.yaml"
    good = cards.read_text(encoding="utf-8")
    cards.write_text(good.replace("name: Wolf", "name: [Wolf"), encoding="utf-8")
    _committed(root)
    cards.write_text(good, encoding="utf-8")
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 2, result.output
    assert "HEAD:cards/mini/cards.yaml:" in result.output and "mini at HEAD does not validate (1 error;" in result.output
    # (it said "1 errors")


def test_a_reprint_since_another_state_never_replaces_or_removes_this_one(tmp_path, monkeypatch):
    """Both reprints were <game>-reprint-a4.pdf: --changed-since HEAD~1 replaced the one since a manifest, and a
    --changed-since that found nothing changed removed it (one build changing another's files)."""
    from pnp.kit import changes

    root = make_project(tmp_path / "proj")
    assert run(root, "build", "mini").exit_code == 0
    shutil.copy(root / "output" / "mini" / "manifest.json", root / "before.json")
    cards = root / "cards" / "mini" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("Roars", "Growls", 1), encoding="utf-8")
    first = run(root, "build", "mini", "--changed-since", str(root / "before.json"))
    assert first.exit_code == 0 and "reprint of 1 item" in first.output, first.output
    written = {p.name: p.read_bytes() for p in (root / "output" / "mini").glob("*reprint*")}
    key = changes.State({}, "manifest", "before.json").key()
    assert sorted(written) == [f"manifest-reprint-{key}.json", f"mini-reprint-{key}-a4.pdf"]
    shutil.copy(root / "output" / "mini" / "manifest.json", root / "after.json")
    second = run(root, "build", "mini", "--changed-since", str(root / "after.json"))
    assert second.exit_code == 0 and "nothing added or changed since after.json; no reprint" in second.output
    assert {p.name: p.read_bytes() for p in (root / "output" / "mini").glob("*reprint*")} == written
    # a user's own file at the name of a reprint's manifest was removed by a build that found nothing changed (and
    # replaced when something had): refused, as a file at the reprint's own name is (by pnp's mark)
    mine = root / "output" / "mini" / f"manifest-reprint-{changes.State({}, 'manifest', 'after.json').key()}.json"
    mine.write_text("mine\n", encoding="utf-8")
    third = run(root, "build", "mini", "--changed-since", str(root / "after.json"))
    assert third.exit_code != 0 and f"output/mini/{mine.name}: error: " in third.output \
        and "a file pnp did not write" in third.output, third.output
    assert mine.read_text(encoding="utf-8") == "mine\n"
    # nothing changed since before.json any more: its reprint and manifest go in one step (commit_files, all or
    # none); removed one after the other, a pnp killed between the two left the manifest, said of no file
    import pnp.project as project_mod

    removed, commit = [], project_mod.commit_files
    monkeypatch.setattr(project_mod, "commit_files", lambda renames, gone=(): (removed.append(
        sorted(p.name for p in gone if p.exists())), commit(renames, gone)))
    cards.write_text(cards.read_text(encoding="utf-8").replace("Growls", "Roars", 1), encoding="utf-8")
    fourth = run(root, "build", "mini", "--changed-since", str(root / "before.json"))
    assert "nothing added or changed since before.json; no reprint" in fourth.output, fourth.output
    assert sorted(written) in removed and not list((root / "output" / "mini").glob(f"*reprint-{key}*"))


def test_two_kept_manifests_given_by_one_relative_name_are_two_states(tmp_path, monkeypatch):
    """`--changed-since manifest.json` given in two folders (two builds kept outside the project, v1/ and v2/)
    named one state: one key, and the reprint since v2 replaced the one since v1."""
    root = make_project(tmp_path / "proj")
    cards = root / "cards" / "mini" / "cards.yaml"
    for n, kept in enumerate(("v1", "v2")):
        assert run(root, "build", "mini").exit_code == 0
        (tmp_path / kept).mkdir()
        shutil.copy(root / "output" / "mini" / "manifest.json", tmp_path / kept / "manifest.json")
        cards.write_text(cards.read_text(encoding="utf-8").replace("Roars", "Growls", 1) if n == 0 else
                         cards.read_text(encoding="utf-8").replace("power: 3", "power: 4", 1), encoding="utf-8")
    said = []
    for kept in ("v1", "v2"):
        monkeypatch.chdir(tmp_path / kept)
        result = run(root, "build", "mini", "--changed-since", "manifest.json")
        assert result.exit_code == 0, result.output
        said.append(re.search(r"since (\S+), \d+ pages? in (\S+)", result.output).groups())
    assert said[0][0] != said[1][0] and said[0][1] != said[1][1], said
    assert len(list((root / "output" / "mini").glob("mini-reprint-*-a4.pdf"))) == 2


def test_a_manifest_named_like_a_commit_is_another_state_than_the_commit(tmp_path):
    """A reprint was named by the words said for its state: a manifest file named `commit HEAD` and the commit
    HEAD were both "commit HEAD", so each build replaced the other's reprint and record."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    assert run(root, "build", "mini").exit_code == 0
    shutil.copy(root / "output" / "mini" / "manifest.json", root / "commit HEAD")
    cards = root / "cards" / "mini" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("Roars", "Growls", 1), encoding="utf-8")
    since_commit = run(root, "build", "mini", "--changed-since", "HEAD")
    assert since_commit.exit_code == 0 and "reprint of 1 item" in since_commit.output, since_commit.output
    written = {p.name: p.read_bytes() for p in (root / "output" / "mini").glob("*reprint*")}
    cards.write_text(cards.read_text(encoding="utf-8").replace("Growls", "Howls", 1), encoding="utf-8")
    since_file = run(root, "build", "mini", "--changed-since", str(root / "commit HEAD"))
    assert since_file.exit_code == 0 and "reprint of 1 item" in since_file.output, since_file.output
    after = {p.name: p.read_bytes() for p in (root / "output" / "mini").glob("*reprint*")}
    assert len(after) == 4 and {name: after[name] for name in written} == written
    records = [json.loads(after[name]) for name in after if name.endswith(".json")]
    assert sorted((r["since_kind"], r["since"]) for r in records) == [("commit", "commit HEAD"),
                                                                     ("manifest", "commit HEAD")]


@pytest.mark.parametrize("name, head, said", [
    ("export/png/export.json", {"format": "png"}, "an export's record"),
    # a selection's was said to be "an export's or a reprint's"
    ("manifest-selection-0123abcd.json", {"paper": "a4", "selection": {"only": "true"}, "file": "x.pdf"},
     "a selection's record"),
    ("manifest-reprint-0123abcd.json", {"paper": "a4", "since": "commit HEAD", "since_kind": "commit"},
     "a reprint's record")])
def test_another_record_of_pnps_given_for_a_manifest_is_said_to_be_what_it_is(tmp_path, name, head, said):
    # it was said to be "written by a pnp that did not record faces; build again with --force", which never helps
    root = make_project(tmp_path / "proj")
    record = root / "output/mini" / name
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"game": "mini", **head, "files": [], "warnings": [], "inputs": {}}))
    result = run(root, "changes", "mini", "--since", str(record))
    assert result.exit_code == 2, result.output
    assert f"output/mini/{name}: error: not a build's manifest but {said} (it lists no components)" in result.output


def test_a_manifest_of_a_pnp_that_recorded_no_faces_is_refused_at_its_place(tmp_path):
    # it was said as `Error: PATH was written by ...`, where each other refusal of a manifest is `PATH: error: ...`
    root = make_project(tmp_path / "proj")
    record = root / "old.json"
    record.write_text(json.dumps({"game": "mini", "components": [], "files": [], "warnings": [], "inputs": {}}))
    result = run(root, "changes", "mini", "--since", str(record))
    assert result.exit_code == 2, result.output
    assert result.output.startswith("old.json: error: written by a pnp that did not record faces"), result.output


@pytest.mark.parametrize("entries, said", [
    (lambda blob, tree: f"120000 blob {blob('a' * 5000)}\tlong\n", "link 'cards/mini/long' cannot be made: "),
    (lambda blob, tree: "120000 blob " + blob("a\0b") + "\tnulled\n",
     "link 'cards/mini/nulled' cannot be made: its target holds a NUL"),
    # a tree git itself would not write: a link and a folder of one name
    (lambda blob, tree: f"120000 blob {blob('cards.yaml')}\tsub\n040000 tree {tree()}\tsub\n",
     "link 'cards/mini/sub' cannot be made: "),
    # a name past the system's 255 bytes: "git cat-file failed ([Errno 36] File name too long: '/tmp/…')"
    (lambda blob, tree: f"100644 blob {blob('x')}\t{'n' * 300}.png\n", "file 'cards/mini/nnnn"),
    # a name Windows takes for folders: written there, it left the scratch folder
    (lambda blob, tree: f"100644 blob {blob('x')}\t..\\..\\..\\x.yaml\n", "file 'cards/mini/..\\..\\..\\x.yaml' holds a "),
])
def test_a_commits_link_the_system_cannot_make_is_refused_by_name(tmp_path, entries, said):
    """A hostile repository's link of a 5,000-byte or NUL-holding target, or one where a folder of the commit
    is, was a traceback (os.symlink's own error)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)

    def git(*args, given=None):
        return subprocess.run(["git", "-C", str(root), *args], input=given, capture_output=True, check=True,
                              text=True).stdout.strip()

    blob = lambda text: git("hash-object", "-w", "--stdin", given=text)  # noqa: E731
    tree = lambda: git("mktree", given=f"100644 blob {blob('x')}\tx\n")  # noqa: E731
    mini = git("mktree", given=git("ls-tree", "HEAD:cards/mini") + "\n" + entries(blob, tree))
    cards = git("mktree", given=f"040000 tree {mini}\tmini\n")
    top = git("mktree", given="".join(f"{line}\n" for line in git("ls-tree", "HEAD").splitlines()
                                      if not line.endswith("\tcards")) + f"040000 tree {cards}\tcards\n")
    git("tag", "hostile", git("-c", "user.name=t", "-c", "user.email=t@t", "commit-tree", top, "-m", "hostile"))
    result = run(root, "changes", "mini", "--since", "hostile")
    assert result.exit_code == 2 and f"--since hostile: the commit's {said}" in result.output, result.output


@pytest.mark.parametrize("lion_id", ["'#2'", '"a\\tb"'])
def test_an_id_that_is_no_plain_name_names_its_item_by_number_and_its_change_is_seen(tmp_path, lion_id):
    """An id field of type str allows any text: the id '#2' was taken for the second card's number (its
    change compared with the other card's face: "nothing changed", exit 0), and an id holding a tab made
    `pnp changes` refuse the manifest pnp had just written."""
    root = make_project(tmp_path / "p", case={"replace": {
        "cards/mini/game.yaml": [["id: {type: id}", "id: {type: str, required: false}"]],
        "cards/mini/cards.yaml": [["- id: lion\n", f"- id: {lion_id}\n"], ["- id: fern\n  name", "- name"],
                                  ["  friend: lion\n", ""]],
        "layouts/mini/rulebook.md.j2": [["component:deck/lion", "component:deck/wolf"]],
        # the card of no id prints none of it (the word 'None' is refused)
        "layouts/mini/card.yaml": [["{{ card.id }}", "{{ card.id or '' }}"]],
        "layouts/mini/back.yaml": [["{{ card.id }}", "{{ card.id or '' }}"]]}})
    built = run(root, "build", "mini")
    assert built.exit_code == 0, built.output
    cards = root / "cards/mini/cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("power: 4", "power: 5", 1), encoding="utf-8")
    result = run(root, "changes", "mini")
    assert result.exit_code == 0, result.output
    assert changed_items(result.output) == ["#1"], result.output


def test_die_faces_1_and_text_1_and_a_tab_are_each_a_side_of_their_own(tmp_path):
    """A die's face named by its value: 1 and '1' were both 'face 1' (one's fingerprint hid the other's), and
    a face 'a<tab>b' made `pnp changes` refuse the manifest pnp had just written."""
    die = ('size: [20mm, 20mm]\nnet: d6\nedge: 20mm\nfaces: ["a\\tb", 1, "1", "\\"1\\"", 3, 4]\nelements:\n'
           '  - {type: text, x: 1, y: 8, w: 18, h: 4, text: "{{ face }}", size: 7}\n')
    root = make_project(tmp_path / "p", case={"files": {"layouts/mini/die.yaml": die}, "replace": {
        "cards/mini/game.yaml": [["components:\n", "components:\n  - {id: die, name: Die, kind: die, count: 1, "
                                  "layout: die}\n"]]}})
    built = run(root, "build", "mini")
    assert built.exit_code == 0, built.output
    manifest = json.loads((root / "output/mini/manifest.json").read_text(encoding="utf-8"))
    faces = next(c["faces"] for c in manifest["components"] if c["id"] == "die")
    assert len({side for _, side, *_ in faces}) == 6, faces
    result = run(root, "changes", "mini")
    assert result.exit_code == 0 and "nothing changed" in result.output, result.output


@pytest.mark.parametrize("folder", [" games", os.fsdecode(b"games-\xff")])
def test_a_project_in_a_subfolder_named_with_a_leading_space_or_not_utf8_is_compared(tmp_path, folder):
    """git's answer for the project's folder was stripped (' games' became 'games': "did not exist at HEAD")
    and decoded as UTF-8 (a traceback for a name the system holds in other bytes)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "repo" / folder)
    _committed(tmp_path / "repo")
    result = run(root, "changes", "mini", "--since", "HEAD")
    assert result.exit_code == 0 and "nothing changed since commit HEAD" in result.output, result.output


def test_a_git_folder_of_more_entries_than_the_limit_is_refused_before_git_runs(tmp_path, monkeypatch):
    """Every entry of the git folder is looked at before git runs: 200,000 empty loose refs took 35 s."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    import pnp.kit.changes as changes

    root = make_project(tmp_path / "p")
    _committed(root)
    many = root / ".git/refs/tags/many"
    many.mkdir()
    entries = sum(len(dirs) + len(files) for _, dirs, files in os.walk(root / ".git"))
    for n in range(20):
        (many / str(n)).touch()
    monkeypatch.setattr(changes, "MAX_GIT_ENTRIES", entries + 10)
    result = run(root, "changes", "mini", "--since", "HEAD")
    assert result.exit_code == 2, result.output
    assert f".git: error: --since: the project's git repository cannot be read safely: the git folder holds more than " \
        f"{entries + 10:,} files" in result.output, result.output
    monkeypatch.setattr(changes, "MAX_GIT_ENTRIES", entries + 21)  # the folder as it is: read
    assert run(root, "changes", "mini", "--since", "HEAD").exit_code == 0


def test_a_git_folder_holding_a_folder_it_cannot_list_is_refused_before_git_runs(tmp_path, monkeypatch):
    """A received .git holding folders 3,000 deep (past the system's path length) was 'a bug in pnp' (OSError,
    a path of 6,000 characters) as the folder was checked for links out; here its listing fails so."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    import errno

    root = make_project(tmp_path / "p")
    _committed(root)
    (root / ".git/deep/d").mkdir(parents=True)
    scandir = os.scandir

    def too_long(path):
        if os.fspath(path).endswith("/deep/d"):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", too_long)
    result = run(root, "changes", "mini", "--since", "HEAD")
    monkeypatch.undo()
    assert result.exit_code == 2 and ".git: error: --since: the project's git repository cannot be read safely: " \
        "the git folder holds a folder pnp cannot read (nested past the system's path length): '.git/deep/d'" \
        in result.output, result.output


def test_a_commit_object_larger_than_gits_memory_cap_is_refused_at_once(tmp_path, monkeypatch):
    """A received repository whose HEAD is a commit of a 1.5 GB message (1.5 MB compressed) took git 1.5 GB
    and a minute; git now runs within MAX_GIT_MEMORY (here made 96 MB, the commit 128 MB) and stops at once."""
    import hashlib
    import zlib

    import pnp.kit.changes as changes

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    git = ["git", "-C", str(root)]
    tree, parent = (subprocess.run([*git, "rev-parse", f"HEAD{s}"], capture_output=True, text=True,
                                   check=True).stdout.strip() for s in ("^{tree}", ""))
    head = f"tree {tree}\nparent {parent}\nauthor t <t@t> 0 +0000\ncommitter t <t@t> 0 +0000\n\n".encode()
    block, blocks = b"x" * (1 << 20), 128
    digest, packer = hashlib.sha1(), zlib.compressobj(1)
    packed = []
    for part in [f"commit {len(head) + blocks * len(block)}\0".encode(), head, *[block] * blocks]:
        digest.update(part)
        packed.append(packer.compress(part))
    oid = digest.hexdigest()
    (root / ".git/objects" / oid[:2]).mkdir(exist_ok=True)
    (root / ".git/objects" / oid[:2] / oid[2:]).write_bytes(b"".join(packed) + packer.flush())
    subprocess.run([*git, "update-ref", "HEAD", oid], check=True)
    monkeypatch.setattr(changes, "MAX_GIT_MEMORY", 96 << 20)
    assert run(root, "changes", "--since", parent).exit_code == 0  # git works within the cap
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 2 and "--since HEAD: neither a manifest file nor a git commit" in result.output
    assert "(git: " in result.output


def test_each_git_process_is_capped_in_processor_time(monkeypatch):
    """A received pack of 340 KB held a 200 MB blob made by a chain of 2,000 deltas each copying its base
    whole: git rebuilt it for 7 minutes (pnp's watchdog killed it after 120 s). Each git now runs within
    MAX_GIT_SECONDS of processor time, set with its memory cap before it starts."""
    import resource

    import pnp.kit.changes as changes

    limits: dict[int, tuple[int, int]] = {}
    monkeypatch.setattr(resource, "setrlimit", lambda kind, limit: limits.__setitem__(kind, limit))
    changes._memory_capped()
    assert limits[resource.RLIMIT_CPU] == (changes.MAX_GIT_SECONDS, changes.MAX_GIT_SECONDS)
    assert limits[resource.RLIMIT_AS] == (changes.MAX_GIT_MEMORY, changes.MAX_GIT_MEMORY)


def test_an_empty_changed_since_is_refused_not_ignored(tmp_path):
    # it built the kit and wrote no reprint, exit 0, as if the option had not been given
    root = make_project(tmp_path / "proj")
    result = run(root, "build", "mini", "--changed-since", "")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "--changed-since" in result.output and not (root / "output" / "mini").exists()
    result = run(root, "build", "mini", "--changed-since", "v1")  # the option is named as given, not changes'
    assert result.exit_code == 2 and "Error: --changed-since v1: no such file, and the project is in no git repository" \
        in result.output, result.output
    # a mistyped manifest's name, outside any repository, is said as the name given (it was "--since: the project
    # is in no git repository" alone)
    result = run(root, "changes", "mini", "--since", "nonexist.json")
    assert result.exit_code == 2 and "--since nonexist.json: no such file" in result.output, result.output


def test_a_folder_given_as_since_is_said_to_be_one_with_the_manifest_it_holds(tmp_path):
    """`--since output/mini` (the build's folder, not its manifest) was taken for a git commit: "the project is
    in no git repository", which sent the user to look for a repository."""
    root = make_project(tmp_path / "proj")
    build = root / "output" / "mini"
    build.mkdir(parents=True)
    (build / "manifest.json").write_text("{}")
    for command in (["changes", "mini", "--since"], ["build", "mini", "--changed-since"]):
        result = run(root, *command, str(build))
        assert result.exit_code == 2, result.output
        assert f"is a folder, not a build's manifest; give one of its manifests, such as {build / 'manifest.json'}" \
            in result.output and "git" not in result.output, result.output
    result = run(root, "changes", "mini", "--since", str(root / "cards"))
    assert result.exit_code == 2 and "is a folder, not a build's manifest" in result.output, result.output


def test_a_long_path_a_hint_gives_to_paste_is_said_whole(tmp_path):
    """The word cut of every message (report.bounded_message) cut the manifest a `--since FOLDER` hint names in
    its middle when its path was over 200 characters: pasted, it named no file."""
    root = make_project(tmp_path / "proj")
    build = root.joinpath(*["long-folder-name-" + "x" * 40] * 5)
    build.mkdir(parents=True)
    (build / "manifest.json").write_text("{}")
    result = run(root, "changes", "mini", "--since", str(build))
    assert result.exit_code == 2 and "characters left out" not in result.output, result.output
    assert result.output.rstrip().endswith(f"give one of its manifests, such as {build / 'manifest.json'}"), \
        result.output


def test_a_named_pipe_given_as_since_is_refused_by_what_it_is(tmp_path):
    """`--since PIPE` (a named pipe, a device) is no file os.path.isfile knows: it was taken for a git commit,
    "the project is in no git repository", where every other command names the special file."""
    root = make_project(tmp_path / "proj")
    pipe = tmp_path / "manifest.json"
    os.mkfifo(pipe)
    for command in (["changes", "mini", "--since"], ["build", "mini", "--changed-since"]):
        result = run(root, *command, str(pipe))
        assert result.exit_code == 2, result.output
        assert f"{pipe}: is a named pipe, not a build's manifest" in result.output and "no git repository" not in result.output
    assert not (root / "output").exists()


def test_a_manifest_given_with_a_trailing_slash_is_refused_as_the_path_of_a_folder(tmp_path):
    """`--since output/mini/manifest.json/` (a folder's path: the system says "Not a directory") was read as the
    manifest, exit 0, because Path drops the trailing '/' (and '/.')."""
    root = make_project(tmp_path / "proj")
    build = root / "output" / "mini"
    build.mkdir(parents=True)
    (build / "manifest.json").write_text("{}")
    for command, typed in ((["changes", "mini", "--since"], f"{build}/manifest.json/"),
                           (["changes", "--since"], f"{build}/manifest.json/."),
                           (["build", "mini", "--changed-since"], f"{build}/manifest.json/")):
        result = run(root, *command, typed)
        assert result.exit_code == 2, result.output
        assert f"{typed}: ends as the path of a folder, but {build / 'manifest.json'} is a file" in result.output
        assert not (build / "mini-a4.pdf").exists()
    # a name too long for the system (one part, or the whole path) is no file and no commit, not a traceback
    for typed in ("a" * 5000, "a/" * 3000):
        for command in (["changes", "mini", "--since"], ["build", "mini", "--changed-since"]):
            result = run(root, *command, typed)
            assert result.exit_code == 2 and f"{command[-1]} {typed[:40]}" in result.output, result.output[-300:]
            assert "no such file, and the project is in no git repository" in result.output, result.output[-300:]


def test_changes_never_reads_a_build_through_an_output_folder_that_is_a_link(tmp_path):
    """`pnp changes GAME` read output/<game>/manifest.json through `output -> a folder outside the project`
    (which build refuses to write to), and said it had compared with output/mini/manifest.json."""
    root = make_project(tmp_path / "proj")
    assert run(root, "build", "mini").exit_code == 0
    (root / "output").rename(tmp_path / "elsewhere")
    (root / "output").symlink_to(tmp_path / "elsewhere")
    result = run(root, "changes", "mini")
    assert result.exit_code == 2 and "output is a symbolic link" in result.output, result.output
    assert "changed since" not in result.output
    kits = tmp_path / "kits"  # a --out outside the project is the user's: followed as given
    assert run(root, "build", "mini", "--out", str(kits)).exit_code == 0
    result = run(root, "changes", "mini", "--out", str(kits))
    assert result.exit_code == 0 and "nothing changed since" in result.output, result.output


def test_a_card_whose_id_is_text_is_reprinted_alone(tmp_path):
    """A component was kept whole when the item key 'text' (a rulebook's text, faces.TEXT) was selected: the
    change of the card `text` reprinted its whole deck, said to be a reprint of 1 item (exit 0)."""
    root = make_project(tmp_path / "proj")
    for rel, old, new in [("cards/mini/cards.yaml", "id: lion", "id: text"), ("cards/mini/cards.yaml",
                          "friend: lion", "friend: text"), ("layouts/mini/rulebook.md.j2", "deck/lion", "deck/text")]:
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    assert run(root, "build", "mini").exit_code == 0
    shutil.copy(root / "output/mini/manifest.json", root / "before.json")
    cards = root / "cards/mini/cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("Roars", "Growls", 1), encoding="utf-8")
    result = run(root, "build", "mini", "--changed-since", str(root / "before.json"))
    assert result.exit_code == 0 and "reprint of 1 item" in result.output, result.output
    fronts = PdfReader(next((root / "output/mini").glob("mini-reprint-*.pdf"))).pages[0].extract_text()
    assert "text" in fronts and "Growls" in fronts and not {"fern", "wolf", "moss"} & set(fronts.split()), fronts


def test_a_build_made_with_ink_saver_is_compared_with_faces_drawn_with_it_or_refused_at_its_manifest(tmp_path):
    """Faces drawn with and without --ink-saver differ everywhere: compared across it, EVO's 68 coloured
    cards were each said "changed" (and reprinted) though nothing in the game had changed, exit 0."""
    root = make_project(tmp_path / "proj")
    assert run(root, "build", "mini", "--ink-saver").exit_code == 0
    saved = "output/mini/manifest-inksaver.json"
    for command in (["changes", "mini", "--since", str(root / saved)], ["build", "mini", "--changed-since", str(root / saved)]):
        result = run(root, *command)
        assert result.exit_code == 2 and f"{saved}: error: this build was made with --ink-saver" in result.output, \
            result.output
    result = run(root, "changes", "mini", "--ink-saver")
    assert result.exit_code == 0 and f"mini: nothing changed since {saved}" in result.output, result.output
    assert not list((root / "output" / "mini").glob("*reprint*"))
    # without the option, the build there is named (one of other options: it said "build first"), not a
    # manifest someone else wrote there since
    shutil.copy(root / saved, root / "output/mini/manifest-bleed3mm.json")
    result = run(root, "changes", "mini")
    assert result.exit_code == 2 and "output/mini/manifest.json is missing" in result.output, result.output
    assert f"the last build there is {root / saved}, of other options: compare with it (--since {root / saved})" \
        in result.output and "build first" not in result.output, result.output


def test_a_manifest_named_with_a_line_break_and_an_escape_is_said_as_one_printable_line(tmp_path):
    root = make_project(tmp_path / "proj")
    assert run(root, "build", "mini").exit_code == 0
    named = root / "m\x1b[31mred\nmini: fake line.json"
    shutil.copyfile(root / "output/mini/manifest.json", named)
    result = run(root, "changes", "mini", "--since", str(named))
    assert result.exit_code == 0 and result.output == "mini: nothing changed since m\\x1b[31mred\\nmini: fake line.json\n", \
        result.output


def test_a_commit_named_by_its_message_is_compared_and_a_tree_is_refused_by_the_name_given(tmp_path):
    """`--since ':/as sent'` (git's name of the newest commit whose message says it) was refused as no commit:
    the '^{commit}' pnp added became part of the words searched for."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    result = run(root, "changes", "mini", "--since", ":/as sent")
    assert result.exit_code == 0 and "mini: nothing changed since commit :/as sent" in result.output, result.output
    tree = run(root, "changes", "mini", "--since", "HEAD:cards")
    assert tree.exit_code == 2 and "--since HEAD:cards: neither a manifest file nor a git commit" in tree.output
    assert "(git: " in tree.output and not re.search("[0-9a-f]{40}", tree.output), tree.output  # named as given
    # `^HEAD` (a range's excluded end): rev-parse --verify printed '^' and the id, taken for the commit, and
    # ls-tree then said only that it "could not list the files of ^HEAD"
    ranged = run(root, "changes", "mini", "--since", "^HEAD")
    assert ranged.exit_code == 2 and "--since ^HEAD: neither a manifest file nor a git commit" in ranged.output, \
        ranged.output
    # a range `a..b`, and an older commit of a shallow clone, were said only as no commit, as a mistyped name is
    for given in ("HEAD..HEAD", "HEAD^!"):
        ranged = run(root, "changes", "mini", "--since", given)
        assert ranged.exit_code == 2 and "it names a range of commits: give one commit" in ranged.output, ranged.output
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    (root / ".git" / "shallow").write_text(head)  # (as a clone of depth 1 records it)
    older = run(root, "changes", "mini", "--since", "HEAD~1")
    assert older.exit_code == 2 and "--since HEAD~1: neither a manifest file nor a git commit" in older.output
    assert "the repository is a shallow clone" in older.output and "range" not in older.output, older.output


def test_a_file_named_like_a_commit_is_refused_as_both_until_the_user_says_which(tmp_path, monkeypatch):
    """A file `HEAD` in the folder pnp ran in (one a received project holds) was compared with in place of the
    commit HEAD, said only as "since HEAD", exit 0: git refuses such an argument as ambiguous, and so does pnp."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    (root / "HEAD").write_text("[]\n")  # read as the file, it is no manifest: said so at it
    monkeypatch.chdir(root)
    both = run(root, "changes", "mini", "--since", "HEAD")
    assert both.exit_code == 2 and "--since HEAD: names both a file and a git commit" in both.output, both.output
    assert "./HEAD" in both.output and "HEAD^{commit}" in both.output
    as_file = run(root, "changes", "mini", "--since", "./HEAD")
    assert as_file.exit_code == 2 and "HEAD:1:1: error: not a pnp manifest" in as_file.output, as_file.output


def test_changes_never_takes_a_received_folders_manifest_for_the_last_build(tmp_path):
    """A game folder sent with its output/ holds a manifest of faces its data never made (a kit built, then the
    cards edited): `pnp changes` compared with it as the last build and said "nothing changed", exit 0. Only a
    manifest the user's pnp wrote in that place is the last build; one named with --since is compared as asked."""
    sent = make_project(tmp_path / "sent")
    assert run(sent, "build", "mini").exit_code == 0
    received = tmp_path / "received"
    shutil.copytree(sent, received)
    result = run(received, "changes", "mini")
    assert result.exit_code == 2, result.output
    assert "output/mini/manifest.json: error: mini: it is not one your pnp wrote there" in result.output
    assert "changed since" not in result.output
    named = run(received, "changes", "mini", "--since", str(received / "output/mini/manifest.json"))
    assert named.exit_code == 0 and "nothing changed since" in named.output, named.output
    assert run(sent, "changes", "mini").exit_code == 0  # where it was built, it is the last build


def test_a_program_named_git_or_gs_in_the_folder_pnp_runs_in_is_never_run(tmp_path, monkeypatch):
    """A PATH with an empty or relative entry (PATH=":$PATH", or $TOOLS:$PATH with TOOLS unset) names the folder
    pnp runs in, often a game someone sent: an executable `git` at its top ran in place of git's."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    marker = tmp_path / "ran"
    for name in ("git", "gs"):
        (root / name).write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
        (root / name).chmod(0o755)
    monkeypatch.chdir(root)
    monkeypatch.setenv("PATH", ":.:" + os.environ["PATH"])
    result = run(root, "changes", "mini", "--since", "HEAD")
    assert result.exit_code == 0 and "since commit HEAD" in result.output, result.output
    assert not marker.exists()
    from pnp.project import program

    assert program("git") == shutil.which("git", path=os.environ["PATH"].lstrip(":.")) and program("gs") != "gs"


def test_changes_with_no_cache_to_keep_its_record_says_so_not_build_first(tmp_path, monkeypatch):
    """pnp knows its own manifests by a record in its cache: with the cache not writable (or off), the build
    kept none, and `pnp changes` said "build first", which builds again and keeps none again."""
    from pnp.kit import manifest

    root = make_project(tmp_path)
    monkeypatch.setattr(manifest._WRITTEN, "_folder", None)  # as a cache folder that cannot be made leaves it
    assert run(root, "build", "mini").exit_code == 0
    result = run(root, "changes", "mini")
    assert result.exit_code == 2 and "build first" not in result.output, result.output
    assert result.output.startswith("output/mini/manifest.json: error: mini: it cannot be told from one received") \
        and "PNP_CACHE_DIR" in result.output, result.output
    assert "compare with it anyway: --since" in result.output


def test_changes_after_a_build_of_other_options_says_which_build_it_compares_with(tmp_path):
    """`changes` compares with the last build of the paper and --ink-saver it is given: after a newer build with
    --bleed 3 it compared with the older home kit's, and said nothing of the newer one the user had just made."""
    root = make_project(tmp_path)
    assert run(root, "build", "mini").exit_code == 0
    assert run(root, "changes", "mini").output.count("\n") == 1  # the last build is that one: no note
    home = root / "output/mini/manifest.json"
    os.utime(home, ns=(home.stat().st_atime_ns, home.stat().st_mtime_ns - 10**9))
    assert run(root, "build", "mini", "--bleed", "3").exit_code == 0
    result = run(root, "changes", "mini")
    assert result.exit_code == 0 and "nothing changed since output/mini/manifest.json" in result.output
    assert "note: compared with output/mini/manifest.json" in result.output, result.output
    assert "output/mini/manifest-bleed3mm.json compares with it" in result.output


def test_the_since_a_changes_note_gives_pastes_back_as_one_word_when_the_path_has_spaces_and_quotes(tmp_path):
    """The `--since PATH` a note or a refusal of `changes` gives was printed as it was: under a folder named
    `my 'games'`, pasted back, the shell split it into words and lost the quotes."""
    import shlex

    root = make_project(tmp_path / "my 'games' $HOME")
    assert run(root, "build", "mini").exit_code == 0
    home = root / "output/mini/manifest.json"
    os.utime(home, ns=(home.stat().st_atime_ns, home.stat().st_mtime_ns - 10**9))
    assert run(root, "build", "mini", "--bleed", "3").exit_code == 0
    notes = [run(root, "changes", "mini").output]
    home.unlink()
    notes.append(run(root, "changes", "mini").output)  # the last build there is ..., (--since ...)
    for output in notes:
        command = output[output.index("--since "):].split(" compares")[0].split(")")[0]
        words = shlex.split(command)
        assert words == ["--since", str(root / "output/mini/manifest-bleed3mm.json")], output
        result = run(root, "changes", "mini", *words)
        assert result.exit_code == 0 and "nothing changed since" in result.output, result.output


def test_changes_says_a_missing_build_without_loading_the_engine(tmp_path):
    """`pnp changes GAME` with no earlier build imported the check, the component kinds and the drawing before it
    looked for the manifest (4.4 s to say there was none): it is looked for first."""
    repo = Path(__file__).resolve().parent.parent
    script = ("import sys; from pnp.cli import main\n"
              f"sys.argv = ['pnp', '--root', {str(repo)!r}, 'changes', 'dinospan', '--out', {str(tmp_path)!r}]\n"
              "try:\n    main()\nexcept SystemExit as e:\n    print('exit', e.code)\n"
              "print(*sorted(m for m in sys.modules if m.startswith('pnp.')))")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(repo), "PNP_CACHE_DIR": "off"})
    *_, said, imported = done.stdout.splitlines()
    assert said == "exit 2" and "no earlier build to compare with" in done.stderr, done.stdout + done.stderr
    engine = ("pnp.check", "pnp.draw", "pnp.products", "pnp.layout", "pnp.printables")
    assert [name for name in imported.split() if name.startswith(engine)] == []
    assert list(tmp_path.iterdir()) == []


def test_a_since_that_is_no_commit_is_refused_without_loading_the_engine(tmp_path):
    """`pnp changes GAME --since -` or a ref git does not know imported the check, the component kinds and the
    drawing before git was asked (3.8 s to refuse it): the commit is found first."""
    root = make_project(tmp_path / "proj")
    _committed(root)
    repo = Path(__file__).resolve().parent.parent
    script = ("import sys; from pnp.cli import main\n"
              "for since in ('-', 'no-such-ref'):\n"
              f"    sys.argv = ['pnp', '--root', {str(root)!r}, 'changes', 'mini', '--since', since]\n"
              "    try:\n        main()\n    except SystemExit as e:\n        print('exit', e.code)\n"
              "print(*sorted(m for m in sys.modules if m.startswith('pnp.')))")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(repo), "PNP_CACHE_DIR": "off"})
    *_, first, second, imported = done.stdout.splitlines()
    assert first == second == "exit 2", done.stdout + done.stderr
    assert done.stderr.count("neither a manifest file nor a git commit") == 2, done.stderr
    engine = ("pnp.check", "pnp.draw", "pnp.products", "pnp.layout", "pnp.printables")
    assert [name for name in imported.split() if name.startswith(engine)] == []


def test_changes_out_a_folder_name_longer_than_the_system_allows_is_said_to_hold_no_build(tmp_path):
    """`pnp changes --out` a folder named with 300 letters was a traceback ("File name too long", where the last
    build's manifest was looked for): no build can be there."""
    repo = Path(__file__).resolve().parent.parent
    result = run(repo, "changes", "dinospan", "--out", str(tmp_path / ("n" * 300)))
    assert result.exit_code == 2 and "dinospan: no earlier build to compare with" in result.output, result.output
    assert list(tmp_path.iterdir()) == []


def test_a_folder_in_the_place_of_the_last_builds_manifest_is_said_to_be_one_not_missing(tmp_path):
    root = make_project(tmp_path / "proj")
    (tmp_path / "kits" / "mini" / "manifest.json").mkdir(parents=True)
    result = run(root, "changes", "mini", "--out", str(tmp_path / "kits"))
    assert result.exit_code == 2 and result.output.startswith(
        f"{tmp_path}/kits/mini/manifest.json: error: mini: no earlier build to compare with: it is a folder"), result.output


@pytest.mark.parametrize("option, value, said", [("--since", "", "is empty"), ("--changed-since", "", "is empty"),
                                                 ("--since", " ", "is only spaces")])
def test_an_empty_since_is_said_as_empty(tmp_path, option, value, said):
    """`pnp changes GAME --since ''` said "--since : is a folder, not a build's manifest" (Path('') is '.'); a
    --since ' ' was said unseen, "--since  : no such file"."""
    repo = Path(__file__).resolve().parent.parent
    result = run(repo, "changes" if option == "--since" else "build", "dinospan", option, value, "--out", str(tmp_path))
    assert result.exit_code == 2 and f"{option}: {said}" in result.output, result.output
    assert list(tmp_path.iterdir()) == []


def test_a_picture_saved_over_under_its_name_changes_the_faces_that_show_it(tmp_path):
    """A face's look digested its picture by name alone: art redrawn in place left `pnp changes` saying nothing
    changed, and `build --changed-since` printing no reprint of the cards that show it."""
    from PIL import Image

    card = ("size: poker\nelements:\n"
            "  - {type: image, src: 'images/{{ card.id }}.png', x: 5, y: 5, w: 5, h: 5}\n")
    root = make_project(tmp_path / "game", {"layouts/mini/card.yaml": card},
                        images={f"layouts/mini/images/{name}.png": [60, 60] for name in ("lion", "fern", "wolf", "moss")})
    built = run(root, "build", "mini")
    assert built.exit_code == 0, built.output
    Image.new("RGB", (60, 60), (200, 10, 10)).save(root / "layouts/mini/images/lion.png")
    result = run(root, "changes", "mini")
    assert result.exit_code == 0, result.output
    changed = [line for line in result.output.splitlines() if line.lstrip().startswith("changed")]
    assert len(changed) == 1 and "lion" in changed[0], result.output


def test_a_loose_object_longer_than_its_size_is_refused_at_its_file(tmp_path):
    """A received repository's loose object whose header says 11 bytes and whose body runs on (2 GB of zeros,
    2 MB compressed): git wrote it all after the 11 bytes, pnp read the zeros as the next object's header, one
    line of 2 GB (4 GB of memory, 45 s), and blamed the next file. Here 1 MB runs on, and is the last file."""
    import zlib

    from pnp.errors import UsageError
    from pnp.kit.changes import _write_tree
    from pnp.project import Project

    root, oid = _one_file_committed(tmp_path, "placeholder")
    loose = root / ".git/objects" / oid[:2] / oid[2:]
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob 11\0placeholder" + b"\0" * (1 << 20)))
    with pytest.raises(UsageError, match=r"could not read 'cards/a.yaml' \(a damaged object"):
        _write_tree(Project(root.resolve()), "HEAD", [("100644", oid, "cards/a.yaml", 11)], tmp_path / "out")


@pytest.mark.skipif(not hasattr(signal, "SIGXCPU"), reason="needs a processor-time limit (POSIX)")
def test_a_git_stopped_at_its_processor_time_is_said_so_at_the_file_it_read(tmp_path, monkeypatch):
    """A pack whose delta chain expands hugely: git stopped at its processor time (MAX_GIT_SECONDS), and pnp
    said 'git cat-file failed (the blob ended early)'. Here a git that stops so half way through an object."""
    import pnp.kit.changes as changes
    from pnp.errors import UsageError
    from pnp.project import Project

    fake_git = "printf '0123 blob 100\\n'; printf abc; kill -XCPU $$"
    monkeypatch.setattr(changes, "_git_command", lambda project, *args: ["sh", "-c", fake_git])
    with pytest.raises(UsageError) as refused:
        changes._write_tree(Project(tmp_path.resolve()), "HEAD", [("100644", "0123", "cards/x.yaml", 100)], tmp_path / "out")
    said = refused.value.message
    assert "'cards/x.yaml'" in said and f"more than the {changes.MAX_GIT_SECONDS} s of processor time" in said


@pytest.mark.parametrize("mode, name, target, said", [
    ("100644", "a" * 70_000, b"x", "longer than any system allows"),
    ("120000", "long", b"a" * 5000, "link 'cards/long' cannot be made: its target is longer"),
    # (its name quoted with its line break and escape sequence escaped: said raw, they ended the message's line
    # and coloured the terminal)
    ("120000", "l\x1b[2J\nx", b"a" * 5000, re.escape("link 'cards/l\\x1b[2J\\nx' cannot be made")),
])
def test_a_commit_holding_a_name_no_system_allows_is_refused_as_it_is_listed(tmp_path, mode, name, target, said):
    """A received commit whose tree held one name of 200 MB (200 KB compressed): its listing was read whole and
    copied over and over (875 MB) before the name was refused as too long for the system. Here 70 KB. So was a
    link of a 250 MB target, read from git and held twice (570 MB), before the system refused to make it."""
    from pnp.errors import UsageError
    from pnp.kit.changes import _tree
    from pnp.project import Project

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "proj"
    root.mkdir()
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)

    def written(kind: str, body: bytes) -> str:
        return subprocess.run([*git, "hash-object", "-t", kind, "-w", "--literally", "--stdin"], input=body,
                              capture_output=True, check=True).stdout.decode().strip()

    named = written("tree", f"{mode} {name}".encode() + b"\0" + bytes.fromhex(written("blob", target)))
    top = written("tree", b"40000 cards\0" + bytes.fromhex(named))
    commit = subprocess.run([*git, "commit-tree", top, "-m", "as sent"], capture_output=True, text=True,
                            check=True).stdout.strip()
    with pytest.raises(UsageError, match=said):
        _tree(Project(root.resolve()), "HEAD", commit, "", ["cards"])


def test_a_commit_holding_a_file_deeper_than_python_recurses_is_refused_as_it_is_listed(tmp_path, monkeypatch):
    """A received commit's file 1,990 folders deep (its path within the system's 4,096 bytes): Path.mkdir made its
    folders by recursion, 'This is a bug in pnp' (RecursionError), as shutil.rmtree would have removed them. Here
    the cap is lowered to 3 folders."""
    import pnp.kit.changes as changes
    from pnp.errors import UsageError
    from pnp.project import Project

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.setattr(changes, "MAX_COMMIT_DEPTH", 3)
    root = tmp_path / "proj"
    root.mkdir()
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)

    def written(kind: str, body: bytes) -> str:
        return subprocess.run([*git, "hash-object", "-t", kind, "-w", "--stdin"], input=body,
                              capture_output=True, check=True).stdout.decode().strip()

    tree = written("tree", b"100644 f.yaml\0" + bytes.fromhex(written("blob", b"x")))
    for name in ("b", "a", "cards"):
        tree = written("tree", f"40000 {name}".encode() + b"\0" + bytes.fromhex(tree))
    commit = subprocess.run([*git, "commit-tree", tree, "-m", "as sent"], capture_output=True, text=True,
                            check=True).stdout.strip()
    with pytest.raises(UsageError, match=r"a file 4 folders deep, at 'cards/a/b/f.yaml'; pnp writes out at most 3"):
        changes._tree(Project(root.resolve()), "HEAD", commit, "", ["cards"])
    monkeypatch.setattr(changes, "MAX_COMMIT_DEPTH", 4)
    assert [path for _, _, path, _ in changes._tree(Project(root.resolve()), "HEAD", commit, "", ["cards"])] == \
        ["cards/a/b/f.yaml"]


def _damaged_object(root, name):
    """The loose object of `name` in the repository at `root` cut to its first 20 bytes; its path there. `pack
    NAME`: its object packed, and its compressed bytes in the pack garbled."""
    git = ["git", "-C", str(root)]
    if name.startswith("pack "):
        oid = subprocess.run([*git, "rev-parse", name[5:]], capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run([*git, "repack", "-adq"], check=True)
        pack = next((root / ".git/objects/pack").glob("*.pack"))
        with open(pack.with_suffix(".idx"), "rb") as index:
            offsets = subprocess.run([*git, "show-index"], stdin=index, capture_output=True, text=True, check=True).stdout
        at = next(int(line.split()[0]) for line in offsets.splitlines() if line.split()[1] == oid)
        pack.chmod(0o644)
        data = bytearray(pack.read_bytes())
        data[at + 3:at + 30] = bytes(b ^ 0x55 for b in data[at + 3:at + 30])
        pack.write_bytes(bytes(data))
        return f".git/objects/pack/{pack.name}"
    oid = subprocess.run([*git, "rev-parse", name], capture_output=True, text=True, check=True).stdout.strip()
    loose = root / ".git/objects" / oid[:2] / oid[2:]
    loose.chmod(0o644)
    loose.write_bytes(loose.read_bytes()[:20])
    return f".git/objects/{oid[:2]}/{oid[2:]}"


@pytest.mark.parametrize("damage, ref, said", [
    ("refs/heads/main garbage", "HEAD", "holds 'garbage', neither an object id nor 'ref: NAME'"),
    ("HEAD garbage", "main", "holds 'garbage', neither an object id nor 'ref: NAME'"),
    ("refs/heads/x ref: refs/heads/y", "x", "names 'refs/heads/y', which is no ref of the repository"),
    ("refs/heads/x ref: refs/heads/y;refs/heads/y ref: refs/heads/x", "x", "leads back to it through symbolic refs"),
    ("HEAD ref: HEAD", "HEAD", "leads back to it through symbolic refs"),
    ("refs/heads/x " + "1" * 40, "x", f"names object {'1' * 40}, which the repository does not hold"),
    ("object HEAD", "HEAD", "git cannot read this file of the repository"),
    ("shallow garbage", "HEAD", "git cannot read this file of the repository (git: fatal: bad shallow line"),
    ("config [core] repositoryformatversion = 1\n[extensions] frobnicate = 1", "HEAD", "unknown repository extension"),
    ("config [core] repositoryformatversion = 0\n[core] packedGitLimit = 1e400", "HEAD",
     "git cannot read this file of the repository"),
    ("object HEAD:cards", "HEAD", "git ls-tree could not list the files of the commit"),
    ("object HEAD:cards/mini/cards.yaml", "HEAD", "the commit's file 'cards/mini/cards.yaml' cannot be read"),
])
def test_a_damaged_file_of_a_received_repository_is_named_where_since_is_refused(tmp_path, damage, ref, said):
    """A received repository's ref file holding no id, symbolic refs naming none or one another, a damaged object:
    each was said at the option alone (`Error: --since HEAD: neither a manifest file nor a git commit`, `Error: git
    ls-tree could not list ...`, `Error: git ls-tree: cannot read '100644 blob ... BAD...'`), naming no file."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    subprocess.run(["git", "-C", str(root), "branch", "-qm", "main"], check=True)
    if damage.startswith("object "):
        named = _damaged_object(root, damage.removeprefix("object "))
    else:
        for change in damage.split(";"):
            name, _, text = change.partition(" ")
            (root / ".git" / name).write_text(text + "\n")
        named = ".git/" + damage.split(" ")[0]
    result = run(root, "changes", "--since", ref)
    assert result.exit_code == 2 and "bug in pnp" not in result.output
    assert f"{named}" in result.output and f"error: --since {ref}: " in result.output and said in result.output, \
        result.output
    assert result.output.startswith(named), result.output


@pytest.mark.parametrize("damage, said", [
    ("HEAD is a folder", ".git/HEAD: error: --since: the project's git repository cannot be read safely: the git "
                         "folder's HEAD is not a file"),
    ("no objects", ".git: error: --since: the project's git repository cannot be read safely: the git folder's "
                   "objects is missing"),
    ("a link to nowhere", ".git: error: --since: the project's git repository cannot be read safely: the git folder "
                          "it names, 'nowhere', is missing"),
    ("a bad config line", ".git/config:{line}:1: error: --since: the project's git repository cannot be read safely: "
                          "git cannot parse this line of the config"),
])
def test_a_received_git_folder_git_takes_for_none_is_refused_at_the_file_at_fault(tmp_path, damage, said):
    """A .git whose HEAD is a folder, or without objects/, was said as git's "not a git repository: '/abs/.git'";
    a .git link to nowhere at the missing target's name; a config line git cannot parse in git's words with its
    absolute path, at the file alone. Each is said at the file (and line) at fault."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    git_dir = root / ".git"
    if damage == "HEAD is a folder":
        (git_dir / "HEAD").unlink()
        (git_dir / "HEAD").mkdir()
    elif damage == "no objects":
        shutil.rmtree(git_dir / "objects")
    elif damage == "a link to nowhere":
        shutil.rmtree(git_dir)
        git_dir.symlink_to("nowhere")
    else:
        text = (git_dir / "config").read_text(encoding="utf-8")
        (git_dir / "config").write_text(text + "[core\n", encoding="utf-8")
        said = said.format(line=text.count("\n") + 1)
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 2 and result.output.startswith(said), result.output


@pytest.mark.parametrize("trusted", [False, True])
def test_a_repository_another_user_owns_is_not_read_unless_the_users_git_config_trusts_it(tmp_path, monkeypatch,
                                                                                          trusted):
    """git refuses a repository another user of the machine owns ("dubious ownership"); pinned with --git-dir, it
    ran on a /tmp/.git another user made above a game unpacked in /tmp, and that commit was compared with. (Here
    the user is made another, as this test's files cannot be given to one.)"""
    if shutil.which("git") is None or not hasattr(os, "geteuid"):
        pytest.skip("git is not installed, or the system has no owners of files")
    outer = tmp_path / "outer"
    root = make_project(outer / "proj")
    _committed(outer)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    if trusted:
        (home / ".gitconfig").write_text(f"[safe]\n\tdirectory = {outer}\n", encoding="utf-8")
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(outer).st_uid + 1)
    monkeypatch.delenv("SUDO_UID", raising=False)
    if trusted:  # (the repository's checks alone: a whole comparison takes a second)
        from pnp.kit.changes import _own_repository
        from pnp.project import Project

        _own_repository(Project(root.resolve()))
        return
    result = run(root, "changes", "--since", "HEAD")
    assert result.exit_code == 2 and result.output.startswith(f"{outer}: error: --since: "), result.output
    assert "belongs to another user of this machine" in result.output


def test_a_since_naming_a_file_of_the_git_folder_git_never_reads_as_a_ref_is_not_blamed_on_it(tmp_path):
    """git reads a name of its folder itself as a ref only as refs/... or in capitals (HEAD, ORIG_HEAD): a --since
    of `description` is no commit, not a damaged ref file .git/description; nor is one of 400 digits."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path / "proj")
    _committed(root)
    (root / ".git" / "ORIG_HEAD").write_text("garbage\n")
    # a branch named with a character pnp's own names never hold ('#'), which git allows: HEAD naming it was said to
    # hold "neither an object id nor 'ref: NAME'" when HEAD~9 was past the history
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    (root / ".git/refs/heads/feature#1").write_text(head.stdout)
    (root / ".git/HEAD").write_text("ref: refs/heads/feature#1\n")
    digits = "1" * 400  # (a name past the system's length: Path.is_file raised, 'This is a bug in pnp')
    for since, said in (("description", "Error: --since description: neither a manifest file nor a git commit"),
                        (digits, f"Error: --since {digits[:79]}…: neither a manifest file nor a git commit"),
                        ("HEAD~9", "Error: --since HEAD~9: neither a manifest file nor a git commit"),
                        ("ORIG_HEAD", ".git/ORIG_HEAD:1:1: error: --since ORIG_HEAD: this ref file holds 'garbage'")):
        result = run(root, "changes", "--since", since)
        assert result.exit_code == 2 and result.output.startswith(said), result.output


def test_a_received_repositorys_huge_commit_graph_and_multi_pack_index_are_not_read(tmp_path):
    """A received repository's commit-graph of 3 GB (a sparse file: nothing on disk): git maps it whole, past the
    memory pnp gives it, and every --since was refused as 'neither a manifest file nor a git commit' (git: mmap
    failed). They only speed up a walk of history: git now reads the commits themselves."""
    from pnp.kit.changes import MAX_GIT_MEMORY, _commit_named, _listing
    from pnp.project import Project

    root, _ = _one_file_committed(tmp_path, "a: 1\n")
    for name in ("info/commit-graph", "pack/multi-pack-index"):
        with open(root / ".git/objects" / name, "wb") as huge:
            huge.truncate(MAX_GIT_MEMORY + (64 << 20))
    project = Project(root.resolve())
    commit = _commit_named(project, "HEAD~0")
    assert commit == subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                                    check=True).stdout.strip()
    assert _listing(project, "HEAD", "ls-tree", "-r", "-z", "--name-only", commit).split(b"\0")[0] == b"cards/a.yaml"


def test_a_damaged_packed_object_is_refused_at_its_pack(tmp_path):
    """A received repository's pack whose blob is garbled: git stops half way through it, said as 'could not read
    'cards/a.yaml': the blob ended early', naming no file. (Written out directly: through `changes`, the engine's
    imports come first.)"""
    from pnp.errors import UsageError
    from pnp.kit.changes import _write_tree
    from pnp.project import Project

    root, oid = _one_file_committed(tmp_path, "a: placeholder, long enough to be garbled\n")
    named = _damaged_object(root, "pack HEAD:cards/a.yaml")
    with pytest.raises(UsageError, match="could not read 'cards/a.yaml': it ended before its size") as refused:
        _write_tree(Project(root.resolve()), "HEAD", [("100644", oid, "cards/a.yaml", 42)], tmp_path / "out")
    assert refused.value.mark.file == named




def test_a_card_saved_between_the_kit_and_its_reprint_is_not_reprinted_as_the_kit_does_not_print_it(proj,
                                                                                                   monkeypatch):
    """The reprint draws the faces the new kit's manifest names as changed from the files as they are: a card
    saved between the two (an editor's save while pnp built) was reprinted as the kit does not print it, exit 0."""
    import pnp.check
    from pnp.errors import UsageError
    from pnp.kit.changes import State, write_reprint
    from pnp.project import Project
    from pnp.units import PrintOptions

    edit_facts(proj)  # (saved after the kit was drawn: its manifest says the cards as they were)
    monkeypatch.setattr(pnp.check, "validate", lambda *args: (None, None))  # (the game as it is: not needed here)
    with pytest.raises(UsageError, match="changed since the kit was drawn from it") as refused:
        write_reprint(Project(proj.resolve()), GAME, proj / "output" / GAME, State({}, "manifest", "x.json"),
                      PrintOptions())  # (since a state of no face: every card is reprinted)
    assert refused.value.mark.file == FILE
    assert not list((proj / "output" / GAME).glob("*reprint*"))


@pytest.mark.parametrize("path", [
    "cards/mini/con", "cards/mini/NUL.yaml", "cards/mini/com1.png", "cards/mini/Aux .txt", "cards/mini/lpt¹",
    "cards/mini/conin$", "cards/mini/a.yaml.", "cards/mini/a.yaml ", "cards/mini/art./x.png",
    "cards/mini/.GIT/config", "cards/mini/.git./config", "cards/mini/git~1/config", "cards/mini/.g\u200cit/config",
])
def test_a_commits_file_windows_writes_elsewhere_is_refused_on_every_system(path):
    """A received commit's file 'cards/g/com1.yaml' was written by Windows to a serial port, out of the scratch
    folder; 'a.yaml.' over 'a.yaml'; '.GIT/config' (a disk blind to case) or 'git~1' (Windows' short name) into
    a .git. Each is refused at its name, on every system, as git for Windows refuses to check it out."""
    from pnp.errors import UsageError
    from pnp.kit import changes

    with pytest.raises(UsageError, match="the commit"):
        changes._one_spelling("hostile", path, {})
    changes._one_spelling("hostile", "cards/mini/console.yaml", {})  # (a device's name only as a whole or before a dot)
    changes._one_spelling("hostile", "cards/mini/a.b/com10.yaml", {})


def test_a_commits_files_in_more_folders_than_a_game_holds_are_refused_as_listed(monkeypatch):
    """A tree of one folder 250 deep, named by 20,000 entries of another (a repository of 300 objects), had 5
    million folders made (each path's parts were looked at anew: 10 s before any was made). Here the cap is 2."""
    from pnp.errors import UsageError
    from pnp.kit import changes

    monkeypatch.setattr(changes, "MAX_COMMIT_FOLDERS", 2)
    monkeypatch.setattr(changes, "MAX_COMMIT_FILES", 1)
    spelt: dict[tuple[int, str], tuple[int, str]] = {}
    changes._one_spelling("hostile", "cards/mini/a", spelt)
    changes._one_spelling("hostile", "cards/mini/a", spelt)  # (met again: nothing new)
    with pytest.raises(UsageError, match="more than 2 folders"):
        changes._one_spelling("hostile", "cards/mini/b", spelt)


@pytest.mark.parametrize("paths", [
    ["cards/mini/Cards.yaml", "cards/mini/cards.yaml"], ["cards/mini/Art/a.png", "cards/mini/art/b.png"],
    ["cards/mini/caf\u00e9.png", "cards/mini/cafe\u0301.png"], ["cards/mini/x", "cards/mini/X/y"],
])
def test_a_commits_files_alike_but_for_case_or_accents_are_refused_on_every_system(paths):
    """A received commit's 'Cards.yaml' beside 'cards.yaml' was compared on Linux and refused on a Mac as 'File
    exists', the system's words: both named, on every system alike."""
    from pnp.errors import UsageError
    from pnp.kit import changes

    spelt: dict[tuple[int, str], tuple[int, str]] = {}
    changes._one_spelling("hostile", paths[0], spelt)
    with pytest.raises(UsageError, match="differ only in case"):
        changes._one_spelling("hostile", paths[1], spelt)
    changes._one_spelling("hostile", paths[0], spelt)  # (a path and its folders, spelt alike, are met again)
