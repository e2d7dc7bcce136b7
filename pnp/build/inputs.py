"""What a game's kit was built from, as content digests, and whether the kit on disk is still what those
inputs and options make. Light on purpose: telling that a game is up to date loads neither ReportLab nor
the game.

A game's inputs are every file of its own folders (cards/<game>/, layouts/<game>/), the project's fonts
(every PDF embeds them) and shared layout files, the files it named elsewhere (the shared icons it drew, its
images), the print options, and the engine itself (pnp's version and a digest of its code and fonts)."""

import hashlib
import json
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from .. import __version__
from ..errors import LoadError
from ..project import open_project_file
from ..report import Mark

ENGINE = Path(__file__).resolve().parent.parent  # the pnp package
# a file past this is read by no build (every kind of input has a smaller cap), so its bytes cannot change
# what one prints: it is recorded as too large, and the up-to-date check never spends long hashing it
MAX_DIGESTED_BYTES = 256 * 1024 * 1024


def manifest_name(options):
    """manifest.json for the standard kit; a variant (ink saver, gutter fold) has its own beside it."""
    return f"manifest{options.variant}.json"


def _trees(project, game_id):
    """The folders whose every file is an input of the game (shared icons are counted one by one)."""
    return [project.cards / game_id, project.layouts / game_id, project.own_fonts, project.shared_layouts]


def _skipped(project, path):
    """Shared icons are inputs only of the games that draw them (they are recorded when used)."""
    return path.suffix == ".svg" and path.parent == project.shared_layouts / "icons"


def _tree_files(project, game_id):
    files = []
    for tree in _trees(project, game_id):
        if tree.is_dir():
            files += [p for p in tree.rglob("*") if not p.is_dir() and not _skipped(project, p)]
    return files


def _digest(project: object, path: Path) -> str:
    """A file's sha256, or what stands in its place: a file pnp may not read has no content to it (a named
    pipe or device is never opened to be read, so it cannot block the check)."""
    try:
        real = path.resolve()
        if not real.is_relative_to(project.root):
            return "outside the project"
        with open_project_file(real, MAX_DIGESTED_BYTES, Mark(str(path))) as f:
            return _sha256_of(f)
    except LoadError as e:  # too large, or a special file: what it is stands for its content
        return e.message
    except (OSError, RuntimeError):
        return "missing"


def sha256(path):
    with open(path, "rb") as f:
        return _sha256_of(f)


def _sha256_of(f: object) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


@lru_cache(maxsize=None)
def engine():
    """pnp's version, a digest of its own code, and the versions of what draws the bytes."""
    digest = hashlib.sha256()
    for path in sorted([*ENGINE.rglob("*.py"), *(ENGINE / "fonts").rglob("*.*")]):  # code and built-in fonts
        digest.update(path.relative_to(ENGINE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    versions = {name: _version(name) for name in ("reportlab", "pikepdf", "svglib")}
    return {"pnp": __version__, "code": digest.hexdigest()[:16], **versions}


def _version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def snapshot(project, game_id, extra=()):
    """{path relative to the project: digest} of every input file: the game's trees and `extra`."""
    paths = {project.rel(p): p for p in _tree_files(project, game_id)}
    for p in extra:
        paths.setdefault(project.rel(p), Path(p))
    return {rel: _digest(project, paths[rel]) for rel in sorted(paths)}


def record(project, game_id, tree_digests, used):
    """The manifest's `inputs`: the trees as digested before the build plus the files it used elsewhere."""
    files = dict(tree_digests)
    for path in used:
        files.setdefault(project.rel(path), _digest(project, Path(path)))
    return {"engine": engine(), "files": dict(sorted(files.items()))}


def up_to_date(project, game_id, options, folder, manifest_name):
    """The manifest of the kit in `folder` if it was built from exactly the current inputs with these options
    and its files are untouched since; None when anything differs (or cannot be read). `options` is the
    print options, or any dict of the settings the manifest records at its top level."""
    settings = options if isinstance(options, dict) else options.record()
    try:
        manifest = json.loads((Path(folder) / manifest_name).read_text(encoding="utf-8"))
        inputs = manifest["inputs"]
        if any(manifest.get(key) != value for key, value in settings.items()):
            return None
        if inputs["engine"] != engine():
            return None
        recorded = inputs["files"]
        elsewhere = [project.root / rel for rel in recorded]  # the used files are named by the record
        if snapshot(project, game_id, elsewhere) != recorded:
            return None
        for entry in manifest["files"]:
            if sha256(Path(folder) / entry["path"]) != entry["sha256"]:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return manifest
