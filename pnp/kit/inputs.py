"""What a game's kit was built from, as content digests, and whether the kit on disk is still what those
inputs and options make. Light on purpose: telling that a game is up to date loads neither ReportLab nor
the game.

A game's inputs are every file of its own folders (cards/<game>/, layouts/<game>/), the project's fonts
(every PDF embeds them) and shared layout files, the files it named elsewhere (the shared icons it drew, its
images), the print options, and the engine itself (pnp's version and a digest of its code and fonts)."""

import errno
import gc
import hashlib
import json
import os
import platform
import stat
import time
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING, Any

from .. import __version__
from ..errors import LoadError, UsageError, in_the_way, why_not_read
from ..project import MAX_LINK_HOPS, is_hidden, not_regular, open_project_file, open_regular
from ..report import Mark

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from ..project import Project
    from ..units import PrintOptions

ENGINE = Path(__file__).resolve().parent.parent  # the pnp package
# a file past this is read by no build (every kind of input has a smaller cap), so its bytes cannot change
# what one prints: it is recorded as too large, and the up-to-date check never spends long hashing it
MAX_DIGESTED_BYTES = 256 * 1024 * 1024


def manifest_name(options: "PrintOptions", what: str = "") -> str:
    """manifest.json for the home kit (A4, no option changed); any other build has its own beside it, named
    by every option it changes, the paper too (manifest-letter-bleed3mm.json). `what` names a manifest of
    something else than the kit (manifest-selection-KEY.json)."""
    return f"manifest{'-' * bool(what)}{what}{options.suffix}.json"


def _tree_files(project: "Project", game_id: str) -> list[Path]:
    files: list[Path] = []
    shared_icons = project.shared_layouts / "icons"  # (made once: each file made it again, a folder's worth)
    for tree in project.input_trees(game_id):
        if tree.is_dir():  # shared icons are inputs only of the games that draw them (recorded when used)
            files += [p for p in project.files_below(tree) if not (p.suffix == ".svg" and p.parent == shared_icons)]
    # what `pnp simulate` measured, which the rulebook may print: an input when it is there, so that a new run
    # makes the next build print the new figures instead of finding the kit up to date
    simulated = project.simulation(game_id)
    if simulated.exists() or simulated.is_symlink():
        files.append(simulated)
    return files


# bytes of the files of one snapshot read for their digests (a second or two); the files past it are known by
# their size and time of change: eight empty 255 MB files (sparse: 12 KB on disk) in a game's folder, which no
# build reads, made every build and up-to-date check read 2 GB (20 s)
MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024


@dataclass
class Digested:
    """The digests one snapshot has taken, by file (device, inode), and the bytes it read for them."""

    by_file: dict[tuple[int, int], str] = field(default_factory=dict)
    read: int = 0
    # by the name each link led to, followed as written (_digest): 19,000 icon links to one file were each resolved
    by_name: dict[str, str] = field(default_factory=dict)


def _digest(project: "Project", path: Path, digested: "Digested | None" = None) -> str:
    """_file_digest of `path`, and with `digested`, of the name its links lead to as written (each link's text
    read, as many as the system follows: a loop is resolved, and said, as the link is), once a snapshot: the
    digest of a link is that of what it names, and 19,000 icon links to one file were each resolved (and opened
    folder by folder) from the project's folder, 2 s of every build's up-to-date check."""
    if digested is None:
        return _file_digest(project, path, None)
    along = os.fspath(path)
    for _hop in range(MAX_LINK_HOPS):
        try:
            along = os.path.join(os.path.dirname(along), os.readlink(along))
        except (OSError, ValueError):  # no link (or none there): `along` is what is digested
            break
    found = digested.by_name.get(along)
    if found is None:
        found = digested.by_name[along] = _file_digest(project, Path(along), digested)
    return found


def _file_digest(project: "Project", path: Path, digested: "Digested | None" = None) -> str:
    """A file's sha256, or what stands in its place: a file pnp may not read has no content to it (a named
    pipe or device is never opened to be read, so it cannot block the check); one past the snapshot's
    MAX_SNAPSHOT_BYTES is known by its size and time of change. `digested`: what the snapshot took so far: a
    file named many ways (hard links, links, 'cards/../x') is read once (a manifest naming one 100 MB file by
    59 spellings of it made `pnp build` read it 59 times before it said anything)."""
    try:
        real = path.resolve()
        if not real.is_relative_to(project.root):
            return "outside the project"
        if is_hidden(project, real):  # (a link to the project's .env: its digest would say when it changed)
            return "a hidden file"
        with open_project_file(real, MAX_DIGESTED_BYTES, Mark(str(path)), beneath=project.root) as f:
            info = os.fstat(f.fileno())
            seen = digested if digested is not None else Digested()
            found = seen.by_file.get((info.st_dev, info.st_ino))
            if found is None and seen.read + info.st_size > MAX_SNAPSHOT_BYTES:
                found = f"not read: {info.st_size} bytes changed at {info.st_mtime_ns} ns"
            elif found is None:
                seen.read += info.st_size
                found = _sha256_of(f)
            seen.by_file[(info.st_dev, info.st_ino)] = found
            return found
    except LoadError as e:  # too large, or a special file: what it is stands for its content
        return e.message
    except (OSError, RuntimeError):
        return "missing"


def sha256(path: Path, follow: bool = True, at_most: int | None = None) -> str:
    """The file's sha256; OSError when it is no regular file (a pipe or a device is never read), "" (no file's
    digest) when it holds more than `at_most` bytes, unread."""
    with os.fdopen(open_regular(path, follow), "rb") as f:
        if at_most is not None and os.fstat(f.fileno()).st_size > at_most:
            return ""
        return _sha256_of(f)


def _sha256_of(f: IO[bytes]) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


MANIFEST_MAX_BYTES = 16 << 20  # 5 times the manifest of a 10,000-card game (3 MB); 64 MB of JSON took 7 s to parse


def read_manifest(path: Path, shown: str, follow: bool = False) -> dict[str, Any]:
    """A manifest pnp wrote (JSON), read defensively: a regular file (a link only if `follow`: one the user
    named), at most MANIFEST_MAX_BYTES, holding an object. UsageError naming the file otherwise."""
    try:
        with os.fdopen(open_regular(path, follow), "rb") as f:
            data = f.read(MANIFEST_MAX_BYTES + 1)
    except OSError as e:
        reason = "it is a symbolic link (pnp reads the manifest it wrote)" if e.errno == errno.ELOOP else why_not_read(e)
        raise UsageError(f"cannot read it: {reason}", Mark(shown)) from None
    if len(data) > MANIFEST_MAX_BYTES:
        raise UsageError(f"more than {MANIFEST_MAX_BYTES >> 20} MB: not a manifest pnp wrote", Mark(shown))
    try:
        manifest = _parsed(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise UsageError(f"not a pnp manifest: not UTF-8 ({e.reason})", Mark(shown)) from None
    except json.JSONDecodeError as e:
        # (at the place the parse stopped, in pnp's words: Python's parser's, "Expecting value", were printed)
        raise UsageError("not a pnp manifest: not JSON text from here on", Mark(shown, e.lineno, e.colno)) from None
    except ValueError:  # the only other refusal of Python's JSON parser: an integer past its 4,300 digits
        raise UsageError("not a pnp manifest: a number of more than 4,300 digits", Mark(shown)) from None
    except RecursionError:
        raise UsageError("not a pnp manifest: nested too deeply", Mark(shown)) from None
    if not isinstance(manifest, dict):
        raise UsageError("not a pnp manifest: expected a JSON object", Mark(shown, 1, 1))
    return manifest


def refuse_foreign_record(path: Path, game_id: str, what: str, rel: "Callable[[Path], str]") -> None:
    """UsageError at `path`, the name of the record (a manifest) a proof or a reprint of `game_id` writes beside
    its PDF (`what`: 'the reprint'), when something is there that is not such a manifest of the game: a build
    --changed-since replaced the user's own manifest-reprint-KEY.json there, or removed it when nothing had
    changed, exit 0 (its PDF was already refused by its mark: refuse_unmarked_pdf). A manifest is told as the
    kit's is (render._names_listed): a JSON object naming the game."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # none there (or said when it is written)
        return
    if stat.S_ISDIR(mode):  # said when it is written, as every write's folder in the way ('cannot write'); never
        return  # removed (unlink refuses a folder)
    kind = "a link" if stat.S_ISLNK(mode) else not_regular(mode)  # (said as what it is)
    try:
        if kind is None and read_manifest(path, path.name).get("game") == game_id:
            return
    except UsageError:  # (not JSON, too large: not one pnp wrote)
        pass
    raise UsageError(in_the_way(f"{f'{kind} pnp did not make' if kind else 'a file pnp did not write'} (not a "
                                f"manifest of {game_id}'s)", f"{what}'s"), Mark(rel(path)))


def _parsed(text: str) -> Any:
    """JSON text parsed with Python's cyclic collector paused: JSON makes no reference cycle, and the collector's
    passes over the objects it was making took 16 MB of `[],` (5 million empty lists) from 1 s to 5-8 s."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return json.loads(text)
    finally:
        if collecting:
            gc.enable()


def listed_file(folder: Path, listed: Any) -> Path:
    """The file of `folder` a manifest lists as `listed`: a relative path down from the folder, with no '..'
    and no symbolic link on the way, so a manifest can only make pnp open the files of its own folder.
    ValueError otherwise."""
    parts = PurePosixPath(listed).parts if isinstance(listed, str) and "\\" not in listed else ()
    if not parts or PurePosixPath(listed).is_absolute() or any(p in ("..", ".") or "\0" in p for p in parts):
        raise ValueError(f"{listed!r} is not a file of {folder}")
    path = Path(folder)
    for part in parts[:-1]:
        path = path / part
        if path.is_symlink():
            raise ValueError(f"{listed!r} goes through a symbolic link")
    return path / parts[-1]


# the libraries whose version changes what pnp writes from the same files, each recorded by its version: those
# that read the inputs (PyYAML, openpyxl, Pillow, and lxml, tinycss2 and cssselect2 under svglib), make their text
# (Jinja2, markdown-it-py, regex), draw and convert them (ReportLab, svglib, colorspacious, numpy, pikepdf), and
# render and encode the exports' images (pypdfium2, Pillow). Only the first three were: an export made before
# pypdfium2 or Pillow was upgraded was found up to date for ever, its images the old version's, not the bytes
# pnp now makes of the same game (the CLI's and the preview server's libraries change nothing written)
DRAWN_BY = ("reportlab", "pikepdf", "svglib", "pillow", "pypdfium2", "jinja2", "markdown-it-py", "pyyaml", "openpyxl",
            "regex", "colorspacious", "numpy", "lxml", "tinycss2", "cssselect2")


@lru_cache(maxsize=None)
def engine() -> dict[str, str]:
    """pnp's version, a digest of its own code, and the versions of what draws the bytes (DRAWN_BY, Python, and
    the zlib that compresses every PDF stream and PNG)."""
    digest = hashlib.sha256()
    for path in _engine_files():
        digest.update(path.relative_to(ENGINE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    versions = {name: _version(name) for name in DRAWN_BY}
    return {"pnp": __version__, "code": digest.hexdigest()[:16], **versions, "python": platform.python_version(),
            "zlib": zlib.ZLIB_RUNTIME_VERSION}


def _engine_files() -> list[Path]:
    """Every file of the pnp package but Python's compiled bytecode: its code, built-in fonts and the data its
    code reads (export/catalogue.yaml, each print service's pixel sizes and bleed). Only the code and the fonts
    were digested: a pnp upgraded with new figures for a service left its old exports up to date for ever,
    their images at the sizes the service no longer takes."""
    return sorted(path for path in ENGINE.rglob("*")
                  if "__pycache__" not in path.relative_to(ENGINE).parts and path.is_file())


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def _named(project: "Project", path: Path) -> str:
    """A file's name in the manifest: relative to the project, and text JSON can hold even when the name's
    bytes are not UTF-8 (written as \\xff escapes; such a file cannot be one the game names)."""
    return project.rel(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# files a game's kit may record as used outside its own folders (shared icons: game-icons.net has 4,134): a
# manifest naming a million made `pnp build` look at each for minutes before building
MAX_USED_ELSEWHERE = 5_000


def snapshot(project: "Project", game_id: str, extra: "Collection[Path | str]" = ()) -> dict[str, str]:
    """{path relative to the project: digest} of every input file: the game's trees and `extra` (paths, or
    names relative to the project). ValueError when `extra` names more than MAX_USED_ELSEWHERE files besides
    the trees' (no build records that many), before any is looked at."""
    return _snapshot(project, game_id, extra, None)


def _snapshot(project: "Project", game_id: str, extra: "Collection[Path | str]",
              statuses: "dict[str, tuple[Path, FileStatus]] | None") -> dict[str, str]:
    """snapshot(), each file's path and status put in `statuses` (when given) just before its digest is taken."""
    paths = {_named(project, p): p for p in _tree_files(project, game_id)}
    if len(extra) > len(paths) + MAX_USED_ELSEWHERE:
        raise ValueError(f"more than {MAX_USED_ELSEWHERE:,} files used outside the game's folders")
    for p in extra:
        if p not in paths:  # (a tree's file the record names, as it names it: named once)
            p = project.root / p  # a path as it is (an absolute one), a name from the project's folder
            paths.setdefault(_named(project, p), p)
    digested = Digested()
    digests = {}
    for rel in sorted(paths):
        if statuses is not None:
            statuses[rel] = (paths[rel], _status(paths[rel]))
        digests[rel] = _digest(project, paths[rel], digested)
    return digests


# what tells a version of a file from another without reading it, of the name and of the file a link at it
# leads to: (device, inode, size, modification time) each, or () when missing. Not the change time: a hard link
# made or removed elsewhere (a backup's `cp -al`, another checkout) changes it, and would rebuild for nothing
FileStatus = tuple[tuple[int, ...], tuple[int, ...]]


def _status(path: Path) -> FileStatus:
    def of(look: "Callable[[Path], os.stat_result]") -> tuple[int, ...]:
        try:
            status = look(path)
        except (OSError, ValueError):
            return ()  # missing (or a link to nothing): its digest says so
        return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns

    return of(os.lstat), of(os.stat)


@dataclass(frozen=True)
class BuildStart:
    """What a build or export read its game from, taken before it reads anything: the digests of the game's
    trees (snapshot), each file's path and status as it was digested, and when (time.time_ns)."""

    ns: int
    digests: dict[str, str]
    statuses: "dict[str, tuple[Path, FileStatus]]"


def build_start(project: "Project", game_id: str) -> BuildStart:
    """The game's inputs as a build or export begins (see BuildStart)."""
    ns = time.time_ns()
    statuses: dict[str, tuple[Path, FileStatus]] = {}
    digests = _snapshot(project, game_id, (), statuses)
    return BuildStart(ns, digests, statuses)


CHANGED_WHILE_BUILT = "changed while it was built from"  # matches no digest: the next build makes it again


def record(project: "Project", game_id: str, start: BuildStart, used: "Iterable[Path]") -> dict[str, Any]:
    """The manifest's `inputs`: the trees as digested before the build (`start`), plus the files it used
    elsewhere, which are known only once it is done. A file written since the build began is recorded as
    CHANGED_WHILE_BUILT, since what was drawn may be another version than its digest says: a tree's file saved
    during the build and put back as it was (an undo; an editor rewriting it in place as the build read it)
    matched its digest again, and a shared icon saved during a build was recorded as the new one, and either
    way the kit drawn from the other was found up to date from then on."""
    files = {name: digest if _unchanged(start.statuses.get(name)) else CHANGED_WHILE_BUILT
             for name, digest in start.digests.items()}
    for path in used:
        name = _named(project, path)
        if name not in files:
            files[name] = CHANGED_WHILE_BUILT if _written_since(Path(path), start.ns) else \
                _digest(project, Path(path))
    return {"engine": engine(), "files": dict(sorted(files.items()))}


def _unchanged(as_digested: "tuple[Path, FileStatus] | None") -> bool:
    """Whether the file has the status it had as its digest was taken (a write changes its time or its inode)."""
    return as_digested is not None and _status(as_digested[0]) == as_digested[1]


def _written_since(path: Path, started_ns: int) -> bool:
    """Whether `path` (or the link it is) was written since `started_ns`: a write stamps the time it was made, so
    a time past now is not one (a file unpacked from an archive made where the clock was ahead: it was never up
    to date)."""
    now = time.time_ns()
    for look in (os.lstat, os.stat):
        try:
            status = look(path)
        except (OSError, ValueError):
            continue  # missing (or a link to nothing): its digest says so
        if started_ns <= status.st_mtime_ns <= now:
            return True
    return False
