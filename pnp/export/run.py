"""`pnp export`: validate a game, draw its faces once into a faces PDF, rasterise them for the format,
check what was written against the format's rules, and put the folder in place of the old one at once."""

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..build.inputs import record, sha256, snapshot, up_to_date
from ..build.run import few_collections, replayed, validate, warning_records
from ..errors import PnpError, cannot_write
from ..project import output_lock
from ..report import Report
from ..units import to_mm
from . import formats, services, tts
from .faces import collect, draw_faces
from .raster import run_tasks, write_all

FORMAT_PLANS = {**formats.FORMATS, **services.FORMATS, "tts": tts.tts}  # format name -> its plan maker
FORMATS = tuple(FORMAT_PLANS)


@dataclass
class Exported:
    game_id: str
    ok: bool
    diagnostics: list = field(default_factory=list)
    folder: Path = None
    files: int = 0
    up_to_date: bool = False


MANIFEST = "export.json"


def _settings(fmt, options):
    """What shapes an export besides the game's files: the format, and the png format's dpi and bleed."""
    return {"format": fmt, "dpi": options["dpi"] if fmt == "png" else None,
            "bleed_mm": to_mm(options["bleed"]) if fmt == "png" else None,
            **({"base_url": options.get("base_url")} if fmt == "tts" else {})}


def export_game(project, game_id, fmt, folder, options, jobs=1, on_progress=None, force=False):
    """Export one game in `fmt` into `folder` (replaced whole, only when everything was written and checked),
    unless an export from the same inputs and settings is already there (or `force`).
    `options`: print options plus 'dpi' and 'bleed' (points) for the png format. `on_progress(event, value)`:
    ('start', images to make), then ('advance', images made) as they are written."""
    folder = Path(folder).absolute()  # Tabletop Simulator's saved object names its images by absolute path
    if not force:
        manifest = up_to_date(project, game_id, _settings(fmt, options), folder, MANIFEST)
        if manifest is not None:
            return Exported(game_id, True, replayed(manifest), folder, len(manifest["files"]) + 1, up_to_date=True)
    report = Report(project.root)
    trees = snapshot(project, game_id)
    game, studio = validate(project, game_id, report, options["print"])
    if studio is None or report.errors:
        report.error(f"{game_id}: not exported (fix the errors above)")
        return Exported(game_id, False, report.diagnostics)
    try:
        with output_lock(folder.parent, project.rel(folder.parent)):  # one export into a folder at a time
            count = _written(project, studio, fmt, folder, options, jobs, on_progress, report, trees)
        if count is None:
            return Exported(game_id, False, report.diagnostics)
    except PnpError as e:
        report.error(f"{game_id}: export failed: {e.message}", e.mark)
        return Exported(game_id, False, report.diagnostics)
    except OSError as e:
        report.error(f"{game_id}: export failed: {cannot_write(folder.parent, e)}; the previous export is left "
                     "as it was")
        return Exported(game_id, False, report.diagnostics)
    return Exported(game_id, True, report.diagnostics, folder, count)


def _written(project, studio, fmt, folder, options, jobs, on_progress, report, trees) -> int | None:
    """Write the export into a new folder of its own beside `folder` and put it in its place; returns how
    many files it holds, None when refused (the report says why)."""
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        if not _write(project, studio, fmt, folder, work, options, jobs, on_progress, report):
            return None
        count = _record(project, studio.game, fmt, options, work, trees, report)
        _replace(folder, work)
        return count
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _record(project, game, fmt, options, work, trees, report):
    """export.json: the settings, the inputs (as the build records them), the warnings and each file's sha256,
    so that the next export of unchanged inputs is skipped. Returns how many files the export holds."""
    files = [{"path": p.relative_to(work).as_posix(), "sha256": sha256(p)}
             for p in sorted(work.rglob("*")) if p.is_file()]
    manifest = {"game": game.id, **_settings(fmt, options), "files": files, "warnings": warning_records(report),
                "inputs": record(project, game.id, trees, game.icons.used | game.used_files)}
    (work / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return len(files) + 1


def _write(project, studio, fmt, folder, work, options, jobs, on_progress, report):
    """Everything the format writes, into `work`, checked; False when refused (the report says why)."""
    game_id = studio.game.id
    with few_collections():
        faces = collect(studio, options["bleed"] if fmt == "png" else max(options["bleed"], services.SERVICE_BLEED))
        draw_faces(studio, faces, work / "faces.pdf")
        plan = FORMAT_PLANS[fmt](faces, folder, options, studio)
    for message, mark in plan.problems:
        report.error(message, mark)
    for message, mark in plan.skipped + plan.notes:
        report.warning(message, mark)
    if report.errors:
        report.error(f"{game_id}: not exported as {fmt} (see above)")
        return False
    shots = [_into(shot, folder, work) for shot in plan.shots]
    for shot in shots:
        Path(shot.path).parent.mkdir(parents=True, exist_ok=True)
    progress = on_progress or (lambda event, value: None)
    advance = lambda n: progress("advance", n)  # noqa: E731
    # one bar for the images, the format's other files and their ink checks: shown until the last file is checked
    write_all(work / "faces.pdf", shots, jobs, advance,
              lambda: progress("start", len(shots) + len(plan.tasks) + len(plan.ink)))
    run_tasks(plan.tasks, work, jobs, advance)
    for source, target in plan.copies:
        shutil.copyfile(_moved(source, folder, work), _moved(target, folder, work))
    if plan.finish:
        plan.finish(work)
    (work / "faces.pdf").unlink()
    for message in preflight(plan, folder, work, project.rel, advance):
        report.error(message)
    if report.errors:
        report.error(f"{game_id}: the {fmt} files fail their preflight; the previous export is left as it was")
        return False
    return True


def _moved(path, folder, work):
    """A path under the final folder, as it is while being written (under the work folder)."""
    return work / Path(path).relative_to(folder)


def _into(shot, folder, work):
    from dataclasses import replace

    return replace(shot, path=str(_moved(shot.path, folder, work)))


def preflight(plan, folder, work, shown_as, on_checked=None):
    """Each image as the format needs it: its exact pixel size, RGB, and nothing missing; each PDF its page count
    and ink (`on_checked(1)` as each PDF's ink is read)."""
    from PIL import Image

    for path, size in sorted(plan.expect.items()):
        written = _moved(path, folder, work)
        shown = shown_as(path)
        if not written.is_file():
            yield f"{shown}: missing"
            continue
        with Image.open(written) as image:
            if image.size != tuple(size):
                yield f"{shown}: {image.width} x {image.height} px; the format needs {size[0]} x {size[1]} px"
            if image.mode != "RGB":
                yield f"{shown}: colour mode {image.mode}; the format needs RGB"
    yield from _pdf_pages(plan, folder, work, shown_as, on_checked or (lambda n: None))


def _pdf_pages(plan, folder, work, shown_as, on_checked):
    import pypdfium2 as pdfium

    for path, pages in sorted(plan.pdfs.items()):
        written = _moved(path, folder, work)
        if not written.is_file():
            yield f"{shown_as(path)}: missing"
            continue
        document = pdfium.PdfDocument(str(written))
        if len(document) != pages:
            yield f"{shown_as(path)}: {len(document)} pages; {pages} expected"
        document.close()
    from concurrent.futures import ThreadPoolExecutor

    from .drivethru import max_ink

    def worst_ink(path: str) -> float:
        worst = max_ink(_moved(path, folder, work))
        on_checked(1)
        return worst

    checked = sorted(plan.ink.items())
    with ThreadPoolExecutor(2) as pool:  # a check that cannot read the ink from the file renders it in Ghostscript
        worst_inks = list(pool.map(lambda item: worst_ink(item[0]), checked))
    for (path, limit), worst in zip(checked, worst_inks):
        if worst > limit + 0.5:
            yield f"{shown_as(path)}: {worst:.0f}% total ink somewhere; the format allows {limit:g}%"


def _replace(folder, work):
    """Put the new folder where the old one was: the old one is moved aside first, removed last."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(work, 0o777 & ~mask)  # a temporary folder is private; the export is as any folder made here
    old = None
    if folder.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{folder.name}-old-", dir=folder.parent)) / "old"
        os.replace(folder, old)
    os.replace(work, folder)
    if old is not None:
        shutil.rmtree(old.parent, ignore_errors=True)
