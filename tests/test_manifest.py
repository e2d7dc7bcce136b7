"""The manifest as one typed record (pnp/kit/manifest.py): a part not as pnp writes it is a clean refusal
naming the file for `pnp changes`, and makes `pnp build` build again rather than trust it."""

import json
import os

import pytest

from conftest import make_project, run
from pnp.kit.manifest import seal


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("manifest") / "proj")
    assert run(root, "build").exit_code == 0
    return root


@pytest.mark.parametrize("part, value", [("files", "x"), ("files", [{"path": "a.pdf", "sha256": "0", "pages": "9"}]),
                                         ("files", [{"path": "mini-a4.pdf", "sha256": "0"}] * 2),  # (each checked)
                                         ("warnings", [{"message": "m", "file": "f", "line": "1", "col": None}]),
                                         ("inputs", []), ("components", "abc")])
def test_a_part_not_as_pnp_writes_it_is_refused_naming_the_file(built, part, value):
    path = built / "output/mini/manifest.json"
    written = path.read_text(encoding="utf-8")
    try:
        path.write_text(json.dumps({**json.loads(written), part: value}), encoding="utf-8")
        result = run(built, "changes", "mini", "--since", str(path))  # (edited: compared only when named)
        assert result.exit_code == 2
        assert f"output/mini/manifest.json: error: not a pnp manifest: its {part} are not as pnp writes them" in result.output
        rebuilt = run(built, "build")
        assert rebuilt.exit_code == 0 and "up to date" not in rebuilt.output
        assert path.read_text(encoding="utf-8") == written  # built again: the same bytes as before
    finally:
        path.write_text(written, encoding="utf-8")


def test_a_file_a_manifest_names_many_ways_is_read_once_when_checking_up_to_date(tmp_path, monkeypatch):
    """A manifest (in a project someone sent) naming one file by many spellings ('cards/../big.bin', ...)
    among its inputs made `pnp build` read it each time before it said anything: 59 spellings of a 100 MB file
    took 27 s. (One listing an output file many times is refused: test_a_part_not_as_pnp_writes_it_is_refused...)"""
    import hashlib
    import os

    import pnp.kit.inputs as inputs
    from conftest import make_project, run

    root = make_project(tmp_path / "p")
    (root / "big.bin").write_bytes(b"\0" * 1000)
    assert run(root, "build", "mini").exit_code == 0
    path = root / "output/mini/manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    digest = hashlib.sha256(b"\0" * 1000).hexdigest()
    manifest["inputs"]["files"].update({"cards/../" * n + "big.bin": digest for n in range(1, 30)})
    manifest["inputs"]["files"] = dict(sorted(manifest["inputs"]["files"].items()))
    path.write_text(json.dumps(manifest), encoding="utf-8")
    seal(path)  # taken for pnp's own: one sent is not read at all (test_a_manifest_sent_with_the_game...)
    read: list[int] = []  # the inode of each file read
    real_sha256_of = inputs._sha256_of
    monkeypatch.setattr(inputs, "_sha256_of", lambda f: read.append(os.fstat(f.fileno()).st_ino) or real_sha256_of(f))
    result = run(root, "build", "mini")
    assert result.exit_code == 0 and "up to date" in result.output, result.output
    assert len(read) == len(set(read)), sorted(read)


def test_files_past_the_snapshots_bytes_are_known_by_size_and_time_and_still_rebuild_when_changed(tmp_path,
                                                                                                    monkeypatch):
    """Eight empty 255 MB files (sparse: 12 KB on disk) in a game's folder made every build read 2 GB (20 s)
    to tell whether it was up to date. (The limit is lowered here: the same comparison at any size.)"""
    import os

    import pnp.kit.inputs as inputs
    from conftest import make_project, run

    root = make_project(tmp_path / "p")
    monkeypatch.setattr(inputs, "MAX_SNAPSHOT_BYTES", 4000)  # less than the notes' 5,000 bytes
    notes = root / "cards/mini/notes.txt"
    notes.write_bytes(b"a" * 5000)
    read: list[int] = []  # the sizes of the files read
    real_sha256_of = inputs._sha256_of
    monkeypatch.setattr(inputs, "_sha256_of", lambda f: read.append(os.fstat(f.fileno()).st_size) or real_sha256_of(f))
    assert run(root, "build", "mini").exit_code == 0
    assert 5000 not in read
    assert "up to date" in run(root, "build", "mini").output
    notes.write_bytes(b"b" * 5000)
    os.utime(notes, ns=(notes.stat().st_atime_ns, notes.stat().st_mtime_ns + 10**9))
    result = run(root, "build", "mini")
    assert result.exit_code == 0 and "up to date" not in result.output, result.output


def test_a_manifest_sent_with_the_game_never_makes_its_kit_up_to_date(tmp_path):
    """A game folder someone sent with its output/ (its manifest listing the digests of the PDFs beside it, as
    anyone can write one) made `pnp build` say "up to date" over PDFs its data did not make: here the rulebook
    in place of the cards. Only a manifest this user's pnp wrote there makes a kit up to date."""
    import hashlib
    import shutil

    sent = make_project(tmp_path / "sent")
    assert run(sent, "build").exit_code == 0
    kit = sent / "output/mini"
    shutil.copyfile(kit / "mini-rulebook-a4.pdf", kit / "mini-cards-a4.pdf")
    path = kit / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    for entry in manifest["files"]:
        entry["sha256"] = hashlib.sha256((kit / entry["path"]).read_bytes()).hexdigest()
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    received = tmp_path / "received"
    shutil.copytree(sent, received)
    for root in (sent, received):  # forged in place, or the folder as it arrives
        result = run(root, "build")
        assert result.exit_code == 0 and "up to date" not in result.output, result.output
        assert (root / "output/mini/mini-cards-a4.pdf").read_bytes() != (kit / "mini-rulebook-a4.pdf").read_bytes()
        assert "up to date" in run(root, "build").output  # the manifest it wrote


def test_the_seals_of_old_builds_do_not_pile_up_in_the_users_cache(tmp_path, own_disk_cache, monkeypatch):
    """Each manifest pnp writes is sealed by an entry in the user's cache, which nothing removed: every output
    folder ever built (each test's, each CI run's) left one for ever. The least lately written are removed past
    cache.MAX_ENTRIES, and the seal of the build just made is kept (the next build is up to date); so are the
    temporary files of writers killed long ago. (The limit is lowered here: the same pruning at any size.)"""
    import os
    import time

    from pnp.kit import manifest

    monkeypatch.setattr(manifest._WRITTEN, "_folder", False)  # (looked for anew, in this test's cache)
    monkeypatch.setattr(manifest._WRITTEN, "_pruned", False, raising=False)
    monkeypatch.setattr(manifest._WRITTEN, "max_entries", 40, raising=False)
    folder = manifest._WRITTEN.folder()
    assert folder is not None
    year_ago = time.time() - 365 * 86400
    for n in range(100):  # years of builds
        stale = folder / f"{n:064x}.marshal"
        stale.write_bytes(b"\0" * 20)
        os.utime(stale, (year_ago, year_ago))
    killed = folder / f".{0:064x}.marshal.pnp-{0:012x}.tmp"  # a writer killed a year ago left it
    killed.write_bytes(b"\0" * 20)
    os.utime(killed, (year_ago, year_ago))
    at_work = folder / f".{1:064x}.marshal.pnp-{1:012x}.tmp"  # one being written now
    at_work.write_bytes(b"")
    root = make_project(tmp_path / "proj")
    assert run(root, "build", "mini").exit_code == 0
    assert len(list(folder.glob("*.marshal"))) == 40
    assert not killed.exists() and at_work.exists()
    again = run(root, "build", "mini")
    assert again.exit_code == 0 and "up to date" in again.output, again.output


def test_the_cache_folders_of_versions_no_longer_used_are_removed(tmp_path, monkeypatch):
    """Each cache folder is named by a digest of pnp's and its libraries' versions: every upgrade left the last
    version's folders (thousands of entries each) for ever. One untouched for a month is removed when a cache
    of the same name stores a value; one lately used, a link, another cache's and anything else kept are not."""
    import os
    import time

    from pnp import cache

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    month_ago = time.time() - 31 * 86400
    entry, killed = f"{0:064x}.marshal", f".{0:064x}.marshal.pnp-{0:012x}.tmp"
    folders = {}
    for name, files in [("templates-0123456789abcdef", [entry, killed]), ("templates-fedcba9876543210", [entry]),
                        ("templates-aaaaaaaaaaaaaaaa", [entry, "notes.txt"]), ("icons-0123456789abcdef", [entry]),
                        ("elsewhere", [entry])]:
        folders[name] = tmp_path / "cache" / name
        folders[name].mkdir(parents=True)
        for file in files:
            (folders[name] / file).write_bytes(b"\0" * 20)
        if name != "templates-fedcba9876543210":  # (used yesterday)
            os.utime(folders[name], (month_ago, month_ago))
    (tmp_path / "cache/templates-bbbbbbbbbbbbbbbb").symlink_to(folders["elsewhere"])
    cache.DiskCache("templates", "this version").store("key", "value")
    assert not folders["templates-0123456789abcdef"].exists()
    assert sorted(p.name for p in folders["templates-aaaaaaaaaaaaaaaa"].iterdir()) == ["notes.txt"]
    for kept in ("templates-fedcba9876543210", "icons-0123456789abcdef", "elsewhere"):
        assert (folders[kept] / entry).exists(), kept
    assert cache.DiskCache("templates", "this version").stored("key", lambda v: True) == "value"


def test_a_user_with_no_home_the_system_knows_builds_without_a_cache(tmp_path, monkeypatch):
    """No HOME and a uid with no entry in the system's users (a container run as any uid): Path.home() raised,
    and every command that compiles a template ended in pnp's internal error."""
    import pwd

    from pnp import template
    from pnp.draw import icons
    from pnp.kit import manifest

    for name in ("HOME", "XDG_CACHE_HOME", "PNP_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)

    def unknown(uid):
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", unknown)
    for cache in (template.CODE_CACHE, icons.FORMS, manifest._WRITTEN):
        monkeypatch.setattr(cache, "_folder", False)
    root = make_project(tmp_path / "proj")
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    assert (root / "output/mini/mini-a4.pdf").exists()


def test_a_huge_file_unpacked_over_a_sealed_manifest_or_a_file_it_lists_is_never_read(tmp_path, own_disk_cache,
                                                                                     monkeypatch):
    """A 10 GB file (sparse: a few KB in an archive) unpacked over a kit's PDF or over the manifest pnp had
    sealed was hashed whole (49 s, 51 s) by every build, export and `pnp changes` that looked at it. A listed
    file whose size is not the one recorded, or a manifest larger than any pnp writes, is not read: the kit
    is made again, and `pnp changes` says the manifest is not pnp's."""
    import os

    from pnp.kit import inputs, manifest

    monkeypatch.setattr(manifest._WRITTEN, "_folder", False)
    root = make_project(tmp_path / "proj")
    assert run(root, "build", "mini").exit_code == 0
    read = []
    hashed = inputs._sha256_of
    monkeypatch.setattr(inputs, "_sha256_of", lambda f: read.append(os.fstat(f.fileno()).st_size) or hashed(f))
    kit = root / "output/mini"
    os.truncate(kit / "mini-boards-a4.pdf", 10 << 30)
    again = run(root, "build", "mini")
    assert again.exit_code == 0 and "up to date" not in again.output, again.output
    assert (kit / "mini-boards-a4.pdf").stat().st_size < 1 << 20
    os.truncate(kit / "manifest.json", 10 << 30)
    said = run(root, "changes", "mini")
    assert said.exit_code == 2 and "output/mini/manifest.json: error: mini: it is not one your pnp wrote" in said.output, said.output
    assert max(read) < 1 << 20


def test_a_manifest_that_is_a_link_to_itself_is_not_pnps_and_no_bug(tmp_path, own_disk_cache):
    """A manifest.json that is a link to itself made Path.resolve raise RuntimeError on Python 3.11, and
    `pnp build` said 'This is a bug in pnp'. It is no manifest pnp wrote: the kit is not up to date."""
    from pnp.kit.manifest import sealed

    loop = tmp_path / "manifest.json"
    loop.symlink_to("manifest.json")
    assert sealed(loop) is False


def test_reportlab_reads_nothing_in_the_users_home(tmp_path, monkeypatch):
    """ReportLab's import ran ~/.reportlab_mods and ~/.reportlab_settings (code outside the project, which could
    change every PDF's bytes), and with HOME a file it ended in pnp's internal error (NotADirectoryError)."""
    import importlib

    import reportlab
    from reportlab import rl_config

    marker = tmp_path / "ran"
    for name in (".reportlab_mods", ".reportlab_settings"):
        (tmp_path / name).write_text(f"open({str(marker)!r}, 'a').write({name!r})\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    importlib.reload(reportlab)  # (its import's own code, run again as a first import runs it)
    rl_config._defaults_init()
    assert not marker.exists()


def test_reportlab_looks_up_no_font_folder_outside_pnp(tmp_path, monkeypatch):
    """ReportLab's first import looked up some seventy font and CMap folders whatever the game: ~/.fonts, the
    current folder's fonts/ (a received game's), 'C:\\Program Files\\...' named relatively, and listed every
    folder under /usr/share/fonts; those found were where it opened a font named without a folder."""
    import reportlab.rl_settings
    from reportlab import rl_config

    for folder in ("fonts/CMap", ".fonts", "C:\\Program Files\\Adobe\\Acrobat\\Resource\\CMap"):
        (tmp_path / folder).mkdir(parents=True)
    monkeypatch.chdir(tmp_path)  # (a received game's folder)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(rl_config, "_SAVED", {})  # (its first import's start, run again)
    monkeypatch.setattr(rl_config, "_DEFAULTS", rl_config._defaults_init())
    rl_config._startUp()
    assert rl_config.T1SearchPath == rl_config.TTFSearchPath == rl_config.CMapSearchPath == []
    listed = reportlab.rl_settings.T1SearchPath + reportlab.rl_settings.TTFSearchPath
    assert not [folder for folder in listed if folder.startswith(("/usr/share/fonts/type1/", "/usr/share/fonts/truetype/"))]


def test_no_system_list_of_file_types_is_read():
    """Python's mimetypes, first used by openpyxl's import, read /etc/mime.types and eight more system lists on
    every `pnp convert` of a spreadsheet: files outside the project, which could change the bytes written."""
    import mimetypes

    import openpyxl  # noqa: F401  (its import is a first use)

    import pnp  # noqa: F401

    assert mimetypes.knownfiles == []


def test_reportlab_and_pillow_read_no_setting_from_the_environment(monkeypatch):
    """ReportLab reads each RL_<setting> variable as that setting of every PDF: RL_useA85=0 gave other bytes for
    the same game, and RL_invariant=yes ended every command in pnp's internal error (ValueError); Pillow printed
    its own warning for PILLOW_BLOCK_SIZE=x on every command; openpyxl wrote other bytes for OPENPYXL_LXML=False."""
    import warnings

    import pnp
    from PIL import Image
    from reportlab import rl_config

    monkeypatch.setenv("RL_useA85", "0")
    monkeypatch.setenv("RL_invariant", "yes")
    monkeypatch.setenv("PILLOW_BLOCK_SIZE", "x")
    monkeypatch.setenv("OPENPYXL_LXML", "False")  # (other bytes for every spreadsheet written)
    pnp._forget_library_settings()
    from openpyxl import xml

    assert xml.lxml_env_set()
    rl_config._startUp()  # (what the libraries' first imports run: the settings read again)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Image._apply_env_variables()
    assert rl_config.useA85 == 1 and rl_config.invariant == 0


def test_pnp_imports_nothing_from_the_folder_it_runs_in_by_pythonpath(tmp_path, monkeypatch):
    """An empty entry of PYTHONPATH (`export PYTHONPATH=$PYTHONPATH:/tools`) is the current folder, a received
    game's: its click.py ran at pnp's start and its multiprocessing.py in every worker."""
    import sys

    import pnp

    monkeypatch.chdir(tmp_path)  # (a received game's folder)
    here, lib = os.getcwd(), os.path.abspath("lib")  # (as Python puts PYTHONPATH's relative entries on the path)
    monkeypatch.setattr(sys, "path", [here, "/tools", lib, *sys.path])
    own = os.path.dirname(os.path.dirname(os.path.abspath(pnp.__file__)))  # (pnp's own folder, named relatively, stays)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["", "/tools", "lib", os.path.relpath(own)]))
    pnp._import_from_absolute_folders_only()
    assert here not in sys.path and lib not in sys.path and "/tools" in sys.path
    assert os.environ["PYTHONPATH"] == os.pathsep.join(["/tools", own])
