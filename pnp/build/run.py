"""Build games: a game whose inputs and options did not change since its last build is left as it is; any
other is validated, drawn and committed. With jobs > 1 the games are built in separate processes; progress
arrives as events and problems come back with each game, so what is printed is whole and in game order."""

import contextlib
import gc
import multiprocessing
import os
import queue as queues
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import PnpError
from ..report import Diagnostic, Mark, Report
from ..template import budget
from .inputs import manifest_name, record, snapshot, up_to_date


@dataclass
class Outcome:
    """What became of one game: 'built', 'up to date', 'not built' (invalid data) or 'failed'."""

    game_id: str
    status: str
    diagnostics: list = field(default_factory=list)
    files: list = field(default_factory=list)  # the kit's files, as paths
    pages: int = 0  # pages of the all-in-one PDF
    all_name: str = ""


@contextlib.contextmanager
def few_collections():
    """Loading, checking and drawing a game make millions of small objects and hardly a reference cycle;
    Python's cyclic collector, run after every 700 new objects, would rescan the growing data time and
    again (a quarter of the time of validating 10,000 cards). It runs after every 50,000 instead."""
    previous = gc.get_threshold()
    gc.set_threshold(50_000, 20, 100)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def validate(project, game_id, report, options=None):
    """Validate one game within its time budget; returns (game, studio) as check.validate_game does."""
    from ..check import validate_game  # ReportLab comes with it: loaded only when a game is really checked

    with budget(), few_collections():
        return validate_game(project, game_id, report, options)


def _warning_record(d):
    mark = d.mark or Mark("")
    return {"message": d.message, "file": mark.file, "line": mark.line, "col": mark.col}


def _replayed(manifest):
    return [Diagnostic("warning", w["message"], Mark(w["file"], w["line"], w["col"]) if w["file"] else None)
            for w in manifest.get("warnings", [])]


def build_game(project, game_id, options, folder, force=False, emit=None):
    """Build one game into `folder` unless it is up to date (or `force`). `emit(event, game_id, value)` tells
    progress: ('start', total steps), ('step', label). Returns an Outcome; never raises for bad data."""
    emit = emit or (lambda *event: None)
    folder = Path(folder)
    if not force:
        manifest = up_to_date(project, game_id, options, folder, manifest_name(options))
        if manifest is not None:
            all_in_one = next(c["all_in_one"] for c in manifest["components"]) if manifest["components"] else {}
            files = [folder / f["path"] for f in manifest["files"]] + [folder / manifest_name(options)]
            pages = next((f["pages"] for f in manifest["files"] if f["path"] == all_in_one.get("file")), 0)
            return Outcome(game_id, "up to date", _replayed(manifest), files, pages, all_in_one.get("file", ""))
    report = Report(project.root)
    trees = snapshot(project, game_id)  # before reading anything: a file edited meanwhile rebuilds next time
    game, studio = validate(project, game_id, report, options)
    if studio is None or report.errors:
        report.error(f"{game_id}: not built (fix the errors above)")
        return Outcome(game_id, "not built", report.diagnostics)
    from .render import commit, render_game, steps

    emit("start", game_id, steps(game))
    try:
        with few_collections():
            result = render_game(game, studio, folder, on_step=lambda label: emit("step", game_id, label))
        result.warnings = [_warning_record(d) for d in report.warnings]
        result.inputs = record(project, game_id, trees, game.icons.used | game.used_files)
        files = commit(result)
    except PnpError as e:
        report.error(f"{game_id}: build failed: {e.message}; previous output left intact", e.mark)
        return Outcome(game_id, "failed", report.diagnostics)
    except OSError as e:
        report.error(f"{game_id}: build failed: cannot write {e.filename or ''}: {e.strerror}; previous "
                     "output left intact")
        return Outcome(game_id, "failed", report.diagnostics)
    return Outcome(game_id, "built", report.diagnostics, files, result.pages[result.all_name], result.all_name)


def default_jobs():
    """One process per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_EVENTS = None  # the worker's end of the progress queue, set when its process starts


def _start_worker(events):
    global _EVENTS
    _EVENTS = events


def _in_worker(project, game_id, options, folder, force):
    return build_game(project, game_id, options, folder, force, emit=lambda *event: _EVENTS.put(event))


def build_games(project, game_ids, options, out_root, jobs=1, force=False, progress=None):
    """Build each game into out_root/<game>/; returns their Outcomes in the order given. `progress` (a
    context manager with on_event) is entered once the worker processes exist, never before: a process
    forked while the progress bar's thread runs could inherit a held lock."""
    progress = progress or _Quiet()
    jobs = max(1, min(jobs, len(game_ids)))
    if jobs == 1:
        with progress:
            return [build_game(project, g, options, Path(out_root) / g, force, progress.on_event) for g in game_ids]
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    events = context.Queue()
    with context.Pool(jobs, initializer=_start_worker, initargs=(events,)) as pool:
        pending = [pool.apply_async(_in_worker, (project, g, options, Path(out_root) / g, force)) for g in game_ids]
        with progress:
            while not all(p.ready() for p in pending):
                _drain(events, progress, timeout=0.05)
            _drain(events, progress, timeout=0)
        return [p.get() for p in pending]


def _drain(events, progress, timeout):
    try:
        while True:
            progress.on_event(*events.get(timeout=timeout))
    except queues.Empty:
        return


class _Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def on_event(self, *event):
        pass
