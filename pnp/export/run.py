"""`pnp export`: validate a game, draw its faces once into a faces PDF, rasterise them for the format,
check what was written against the format's rules, and put the folder in place of the old one at once."""

import bisect
import functools
import io
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..kit.inputs import BuildStart, build_start, record, sha256
from ..kit.manifest import Manifest, of_size, recorded_size, seal, sealed, up_to_date, warning_records
from ..check import few_collections, validate
from ..errors import PnpError, UsageError, cannot_write, unforeseen
from ..project import (make_folders, new_file, open_file, open_to_write, output_lock, replace_folder,
                       temporary_beside, tidy)
from ..report import Diagnostic, Mark, Report
from .faces import FACES_PDF, Face, collect, drawn_in_chunks, number_pages
from .raster import MAX_EXPORT_PIXELS, Shot, run_tasks, write_all
from .registry import ExportFormat, Plan, moved, registered

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..model.game import Game
    from ..printables import Studio
    from ..project import Project


@dataclass
class Exported:
    game_id: str
    ok: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    folder: Path | None = None
    files: int = 0
    up_to_date: bool = False


MANIFEST = "export.json"
MIN_DPI = 72  # the least --dpi (as cli.export takes it)
CHUNKS = (8, 32)  # pages of the first faces PDF drawn, and of the largest: see faces.drawn_in_chunks


def _settings(fmt: str, options: dict[str, Any]) -> dict[str, Any]:
    """What shapes an export besides the game's files: the format, and the settings it says shape it."""
    return {"format": fmt, **registered()[fmt].settings(options)}


def export_game(project: "Project", game_id: str, fmt: str, folder: str | Path, options: dict[str, Any], jobs: int = 1,
                on_progress: Callable[[str, int], None] | None = None, force: bool = False) -> Exported:
    """Export one game in `fmt` into `folder` (replaced whole, only when everything was written and checked),
    unless an export from the same inputs and settings is already there (or `force`).
    `options`: print options plus 'dpi' and 'bleed' (points) for the png format; its 'folder' is set here.
    `on_progress(event, value)`: ('start', images to make), then ('advance', images made) as they are written."""
    folder = Path(folder).absolute()  # Tabletop Simulator's saved object names its images by absolute path
    options = {**options, "folder": folder}  # (which the format's settings may depend on: see ExportFormat.settings)
    if not force:
        manifest = up_to_date(project, game_id, _settings(fmt, options), folder, MANIFEST)
        if manifest is not None:
            tidy(folder.parent)  # an export killed after this one was made left its work folder
            return Exported(game_id, True, manifest.replayed(), folder, len(manifest.files) + 1, up_to_date=True)
    report = Report(project.root)
    start = build_start(project, game_id)  # before reading anything: a file edited meanwhile exports again next time
    game, studio = validate(project, game_id, report, options["print"])
    if studio is None or report.errors:
        report.consequence(f"{game_id}: not exported (fix the errors above)")
        return Exported(game_id, False, report.diagnostics)
    if game is None or not game.components:  # nothing to export (validate said so)
        return Exported(game_id, False, report.diagnostics)
    try:
        with output_lock(folder.parent, project.rel(folder.parent)):  # one export into a folder at a time
            if _foreign(project, game_id, fmt, folder, report):
                return Exported(game_id, False, report.diagnostics)
            count = _written(project, studio, fmt, folder, options, jobs, on_progress, report, start)
        if count is None:
            return Exported(game_id, False, report.diagnostics)
    except PnpError as e:
        report.error(f"{game_id}: export failed: {e.message}", e.mark)
        return Exported(game_id, False, report.diagnostics)
    except OSError as e:
        refused = cannot_write(project.rel(folder.parent), e, project.rel)
        report.error(f"{game_id}: export failed: {refused.message}; the previous export is left as it was", refused.mark)
        return Exported(game_id, False, report.diagnostics)
    except Exception as e:  # noqa: BLE001 - a bug in pnp met by this game: said at its input, not as a traceback
        report.add(unforeseen(e, f"{game_id}: export failed, the previous export is left as it was"))
        return Exported(game_id, False, report.diagnostics)
    return Exported(game_id, True, report.diagnostics, folder, count)


def _foreign(project: "Project", game_id: str, fmt: str, folder: Path, report: Report) -> bool:
    """True, said in the report, when `folder` holds what this export may not replace (not_an_export)."""
    problem = not_an_export(project, folder, game_id, fmt)
    if problem:
        # (at the folder, as every refusal at a path is said: it was `error: g: not exported: PATH holds ...`)
        report.error(f"{game_id}: not exported: it {problem}; an export replaces its folder whole: move that away or "
                     "choose another --out", Mark(project.rel(folder)))
    return problem is not None


# what a file manager leaves in a folder it showed (macOS's Finder, its ._ files on other disks, Windows
# Explorer's thumbnails), each known by how its file begins, so that a user's own file of such a name is kept
FILE_MANAGERS_OWN = {".DS_Store": b"\0\0\0\1Bud1", "Thumbs.db": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"}
APPLE_DOUBLE = b"\0\x05\x16\x07"  # ._<name>: a file's Finder data on a disk that cannot hold it beside the file


def _file_managers_own(path: Path) -> bool:
    """Whether `path` is an ordinary file a file manager made by showing the folder (FILE_MANAGERS_OWN)."""
    magic = APPLE_DOUBLE if path.name.startswith("._") else FILE_MANAGERS_OWN.get(path.name)
    if magic is None or path.is_symlink() or not path.is_file():
        return False
    try:  # opened as what was looked at: a named pipe put there since held the export for good
        with open_file(path) as f:
            return f.read(len(magic)) == magic
    except OSError:
        return False


def not_an_export(project: "Project", folder: Path, game_id: str, fmt: str) -> str | None:
    """Why `folder` may not be replaced by the export of `game_id` as `fmt` (None when it may): something there
    that no export wrote, since the whole folder goes: a file or link of the user's in its place, a file its
    record (export.json) does not list (an --out of the user's own, ~/kits/<game>/png/ holding their photos, or
    a note put in an export), one it lists that is not as the export left it (its size and sha256: a record
    someone sent, or crafted, naming the user's notes.txt listed it as the export's, and the export removed
    it; an image the user touched up since), or another game's or format's export (a game named `export` sent
    with --out into output/<game>/). An empty folder or none may be."""
    if not folder.exists() and not folder.is_symlink():
        return None
    if folder.is_symlink():
        return f"is a link (to {os.readlink(folder)}), which an export would replace"
    if not folder.is_dir():
        return "is a file pnp did not write"
    made, listed, said = _record_of(project, folder / MANIFEST)
    if made is not None and made != (game_id, fmt):
        return f"holds the {made[1]} export of {made[0]}, which the {fmt} export of {game_id} would replace"
    try:
        foreign = _first_unlisted(folder, listed, _Reading(_sealed(folder / MANIFEST)))
    except _ReadTooMuch:
        return (f"holds files its {MANIFEST} lists, more than {UNSEALED_READ >> 20} MB of them, which were not "
                f"read to tell whether they are as the export wrote them ({MANIFEST} is not one this user's pnp "
                "wrote: a received folder's)")
    if foreign is None:
        return None
    name, changed = foreign
    return f"holds {name}, " + (_CHANGED if changed else said).format(record=MANIFEST)


Listed = dict[str, tuple[str, int]]  # a record's files: {name as it writes it: (sha256, bytes)}

UNSEALED_READ = 512 * 2**20  # bytes of the files a record this user's pnp did not write lists read, at most


class _ReadTooMuch(Exception):
    """The files of a record this user's pnp did not write would be read past UNSEALED_READ."""


class _Reading:
    """What _as_written may still read of the files a record lists: any amount of those of a record this user's
    pnp wrote (its own export, as large as it made it), UNSEALED_READ of another's: a received folder's
    export.json listing 5 files of 2 GB each (sparse: a few KB in an archive), their sizes right, made every
    export read 10 GB (12 s) to tell whether they were as written."""

    def __init__(self, own: bool) -> None:
        self.left = None if own else UNSEALED_READ

    def take(self, size: int) -> None:
        if self.left is not None:
            self.left -= size
            if self.left < 0:
                raise _ReadTooMuch


def _sealed(record: Path) -> bool:
    """Whether the export record at `record` is one this user's pnp wrote (no record, or unreadable: not)."""
    try:
        return sealed(record)
    except OSError:
        return False


def _first_unlisted(folder: Path, listed: Listed, reading: _Reading) -> tuple[str, bool] | None:
    """The first entry of `folder` (by name, each folder's before those in it) that no export wrote, and whether
    it is one `listed` but changed since: neither the record itself, nor a file `listed` (as the record names
    them) as the record says it was written (an ordinary file of its size and sha256), nor a folder holding
    one, nor a file manager's own; None when there is none. Only the folders holding listed files are walked,
    so the walk ends within the record's entries and one more: 300,000 files no record listed were all listed
    and sorted (16 s) before the first was named, and as many empty folders would have been walked each in
    turn. A folder is known to hold a listed file by looking its name up among the sorted names: every folder
    of each name, made up front, took time and memory growing with the square of a name's depth (a record
    listing 'a/a/.../x.png', 30,000 deep in 60 KB, ran for minutes)."""
    ordered = sorted(listed)

    def holding(prefix: str) -> bool:  # whether a listed name begins with `prefix` (a folder's, ending in '/')
        first = bisect.bisect_left(ordered, prefix)
        return first < len(ordered) and ordered[first].startswith(prefix)

    walking = [(folder, "")]  # (folder, its name as the record writes it: "" or ending in '/')
    while walking:
        path, prefix = walking.pop()
        with os.scandir(path) as scanned:
            entries = sorted(scanned, key=lambda entry: entry.name)
        inside = []
        for entry in entries:
            name = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                if not holding(name + "/"):
                    return name + "/", False
                inside.append((Path(entry.path), name + "/"))
            elif name == MANIFEST:  # (the record itself, at the top)
                continue
            elif name in listed:
                if not _as_written(Path(entry.path), *listed[name], reading):
                    return name, True
            elif not _file_managers_own(Path(entry.path)):  # (made by looking at it)
                return name, False
        walking += reversed(inside)  # the first name walked first
    return None


def _as_written(path: Path, digest: str, size: int, reading: _Reading) -> bool:
    """Whether `path` is an ordinary file of `size` bytes and sha256 `digest`, as an export's record lists the
    files it wrote (the size first: a file of another size is not read; `reading`: how much may be)."""
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or not of_size(info.st_size, size):
            return False
        reading.take(info.st_size)
        return _sha256_of(str(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns,
                          info.st_ctime_ns) == digest
    except OSError:
        return False


@functools.lru_cache(maxsize=65_536)
def _sha256_of(path: str, *unchanged: int) -> str:
    """The sha256 of the file at `path`, read once while it is `unchanged` (device, inode, size, times): an
    export checks its folder before and after it writes, and a folder of gigabytes of images was read twice."""
    return sha256(Path(path), follow=False)


_UNLISTED = "which no export wrote (its {record} does not list it)"
_CHANGED = "which is not as the export wrote it (changed since: its {record} records another size or sha256)"


def _record_of(project: "Project", record: Path) -> tuple[tuple[Any, Any] | None, Listed, str]:
    """What an export folder's record says: the (game, format) it was made as (None when there is no record
    pnp wrote), the files it lists, and how a file it does not list is said."""
    try:
        manifest = Manifest.read(record, project.rel(record))
        made = (manifest.head.get("game"), manifest.head.get("format"))
        if not all(isinstance(part, str) for part in made):  # an export names both as text: a record naming
            # them otherwise (or not at all) was said to hold "the None export of ['a']", in Python's words
            raise TypeError("not an export's record")
        return (made,
                {entry["path"]: (entry["sha256"], recorded_size(entry)) for entry in manifest.files}, _UNLISTED)
    except (UsageError, OSError, TypeError, KeyError):  # none, or not one pnp wrote: it lists nothing
        if record.exists() or record.is_symlink():  # (said so: "does not list it" sent the user to read it)
            return None, {}, "and its {record}, which lists an export's files, is not one an export writes"
        return None, {}, _UNLISTED


def _written(project: "Project", studio: "Studio", fmt: str, folder: Path, options: dict[str, Any], jobs: int,
             on_progress: Callable[[str, int], None] | None, report: Report,
             start: BuildStart) -> int | None:
    """Write the export into a new folder of its own beside `folder` and put it in its place; returns how
    many files it holds, None when refused (the report says why)."""
    work = temporary_beside(folder, folder=True)  # with the lock held: see remove_leftovers
    try:
        if not _write(project, studio, fmt, folder, work, options, jobs, on_progress, report):
            return None
        if not any(p.is_file() for p in work.rglob("*")):  # every deck left out (or none): said ok, "1 files"
            # (its warnings, not "the warnings above": lines are sorted by file, and those at layouts/ come after)
            report.error(f"{studio.game.id}: not exported as {fmt}: the format makes nothing of this game"
                         + (" (its warnings say why)" if report.warnings else "") + "; the previous export is left "
                         "as it was", Mark(project.rel(studio.game.folder / "game.yaml")))
            return None
        if (work / MANIFEST).exists():  # a file named after the game (tts: <game>.json) would be replaced by the record
            report.error(f"{studio.game.id}: not exported as {fmt}: one of its files is named {MANIFEST} (after the "
                         f"game's folder), the name of the export's own record, which would replace it; rename "
                         "the game's folder", Mark(project.rel(studio.game.folder / "game.yaml")))
            return None
        count = _record(project, studio.game, fmt, options, work, start, report)
        if _foreign(project, studio.game.id, fmt, folder, report):  # a file put there while the export was written
            return None
        replace_folder(folder, work)
        seal(folder / MANIFEST)
        return count
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _record(project: "Project", game: "Game", fmt: str, options: dict[str, Any], work: Path,
            start: BuildStart, report: Report) -> int:
    """export.json: the settings, the inputs (as the build records them), the warnings and each file's sha256,
    so that the next export of unchanged inputs is skipped. Returns how many files the export holds."""
    files = [{"path": p.relative_to(work).as_posix(), "sha256": sha256(p), "bytes": p.stat().st_size}
             for p in sorted(work.rglob("*")) if p.is_file()]
    manifest = Manifest({"game": game.id, **_settings(fmt, options)}, files, warning_records(report),
                        record(project, game.id, start, game.icons.used | game.used_files))
    with io.TextIOWrapper(open_to_write(work / MANIFEST), encoding="utf-8") as f:
        manifest.write(f)
    return len(files) + 1


def _write(project: "Project", studio: "Studio", fmt: str, folder: Path, work: Path, options: dict[str, Any], jobs: int,
           on_progress: Callable[[str, int], None] | None, report: Report) -> bool:
    """Everything the format writes, into `work`, checked; False when refused (the report says why)."""
    game_id = studio.game.id
    export_format: ExportFormat = registered()[fmt]
    with few_collections():
        faces = collect(studio, export_format.art_bleed(options))
        pages = number_pages(studio, faces)
        plan = export_format.plan(faces, folder, options, studio)
    for message, mark in plan.problems:
        report.error(message, mark)
    for message, mark in plan.skipped + plan.notes:
        report.warning(message, mark)
    within_work(project, studio, fmt, faces, plan, folder, options, report)
    if report.errors:
        report.consequence(f"{game_id}: not exported as {fmt} (see above)")
        return False
    shots = [_into(shot, folder, work) for shot in plan.shots]
    for shot in shots:
        make_folders(Path(shot.path).parent)  # (through no link swapped in below the work folder)
    progress = on_progress or (lambda event, value: None)
    advance = lambda n: progress("advance", n)  # noqa: E731
    # one bar for the images, the format's other files and their ink checks: shown until the last file is checked
    # the tasks read the whole faces PDF; the images need only their pages, drawn a chunk at a time, rendered by
    # other processes while the next chunk is drawn
    make_folders((work / FACES_PDF).parent)
    chunks = drawn_in_chunks(studio, pages, work / FACES_PDF, None if plan.tasks else CHUNKS)
    with few_collections():
        write_all(chunks, shots, jobs, advance,
                  lambda: progress("start", len(shots) + len(plan.tasks) + len(plan.ink)))
    run_tasks(plan.tasks, work, jobs, advance)
    for source, target in plan.copies:
        with open_file(moved(source, folder, work)) as read, new_file(moved(target, folder, work)) as written:
            shutil.copyfileobj(read, written)
    if plan.finish:
        said = len(plan.notes)
        plan.finish(work)
        for message, mark in plan.notes[said:]:  # (the notes of what it composed: a die left out was never said)
            report.warning(message, mark)
    shutil.rmtree((work / FACES_PDF).parent)
    for shown, message in export_format.preflight(plan, folder, work, project.rel, advance):
        report.error(message, shown if isinstance(shown, Mark) else Mark(shown))
    if report.errors:
        report.error(f"{game_id}: the {fmt} files fail their preflight; the previous export is left as it was")
        return False
    return True


def within_work(project: "Project", studio: "Studio", fmt: str, faces: list["Face"], plan: Plan, folder: Path,
                options: dict[str, Any], report: Report) -> None:
    """Refuse, in the report, an export whose images hold more than MAX_EXPORT_PIXELS together (each image is
    within raster.MAX_PIXELS, but a game of many faces at a high --dpi was not), before any face is drawn;
    the highest --dpi that fits is said when the format takes one. Every image the plan expects is counted,
    the copies of faces drawn alike too: each is a file of its own."""
    total = _pixels(plan)
    if total <= MAX_EXPORT_PIXELS:
        return
    export_format = registered()[fmt]

    def fits(dpi: int) -> bool:  # planned again at `dpi`: images held to MAX_PIXELS do not go with its square
        return _pixels(export_format.plan(faces, folder, {**options, "dpi": dpi}, studio)) <= MAX_EXPORT_PIXELS

    dpi = _settings(fmt, options).get("dpi")
    least, most = MIN_DPI, (dpi or MIN_DPI) - 1  # the highest that fits is sought between them, by halves
    if not dpi or not fits(least):
        advice = "export fewer faces"
    else:
        while least < most:
            middle = (least + most + 1) // 2
            least, most = (middle, most) if fits(middle) else (least, middle - 1)
        advice = f"export at --dpi {least} or less"
    # said at the component whose faces are the most area together (it was game.yaml at no line: which of a
    # game's components to print fewer of was left to guess)
    area: dict[str, float] = {}
    for face in faces:
        area[face.component.id] = area.get(face.component.id, 0.0) + face.trim[0] * face.trim[1]
    largest = next((face.component for face in faces if face.component.id == max(area, key=area.__getitem__)), None)
    most = f" ('{largest.id}' the most)" if largest is not None else ""
    report.error(f"{studio.game.id}: the {fmt} export's {len(plan.expect):,} images would hold "
                 f"{total / 1e6:,.0f} million pixels{most}, more than the {MAX_EXPORT_PIXELS / 1e6:,.0f} million pnp "
                 f"writes in one export (minutes of work, gigabytes of files); {advice}",
                 Mark(project.rel(studio.game.folder / "game.yaml")) if largest is None else
                 largest.spec.mark_of("count") if "count" in largest.spec else largest.spec.mark)


def _pixels(plan: Plan) -> int:
    """The pixels of every image `plan` writes, together."""
    return sum(w * h for w, h in plan.expect.values())


def _into(shot: Shot, folder: Path, work: Path) -> Shot:
    from dataclasses import replace

    return replace(shot, path=str(moved(shot.path, folder, work)))
