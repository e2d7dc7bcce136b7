"""Build games: a game whose inputs and options did not change since its last build is left as it is; any
other is validated, drawn and committed. With jobs > 1 the games are built in separate processes; progress
arrives as events and problems come back with each game, so what is printed is whole and in game order."""

import contextlib
import os
import queue as queues
import resource
import sys
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self, cast

from ..errors import PnpError, cannot_write, unforeseen
from ..project import (ctrl_c_held_while_forking, ctrl_c_left_to_parent, end_with_parent, output_lock, tidy,
                       usable_cores, worker_context)
from ..report import Diagnostic, Report
from .inputs import build_start, manifest_name, record
from .manifest import up_to_date, warning_records

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext
    from multiprocessing.pool import AsyncResult
    from multiprocessing.queues import Queue
    from multiprocessing.sharedctypes import SynchronizedArray
    from multiprocessing.synchronize import Condition

    from ..project import Project
    from ..units import PrintOptions

Emit = Callable[[str, str, Any], None]  # (event, game id, value): see build_game

# The memory the games checked and drawn at once by `build -j N` may need together (see MemoryGate): each worker
# holds a whole game, and two hostile games near the budgets in parallel could pass 1 GB. A check holds the
# worker's resident memory as it grows (looked at with the budget's); drawing's need is estimated from the check
# (the worker's peak resident size while checking it) with DRAWING_GROWTH for what drawing adds to the checked
# game it holds (the shipped games' drawing took their check's peak 1.0 to 1.2 times); a game whose need alone
# is more goes on while no other holds any (each game alone is within pnp's own bounds). What is left of 1 GB is
# the parent's (about 100 MB) and a margin.
BUILDS_MEMORY = 700_000_000
DRAWING_GROWTH = 1.5


@dataclass
class Outcome:
    """What became of one game: 'built', 'draft' (built with its items' errors marked on them), 'up to date',
    'not built' (invalid data) or 'failed'."""

    game_id: str
    status: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)  # the kit's files, as paths
    pages: int = 0  # pages of the all-in-one PDF
    all_name: str = ""
    marked: int = 0  # a draft's items drawn marked with their errors


def already_built(project: "Project", game_id: str, options: "PrintOptions", folder: Path) -> "Outcome | None":
    """The 'up to date' Outcome of a game whose kit in `folder` was built from its current inputs and these
    options; None when it must be built."""
    manifest = up_to_date(project, game_id, options, folder, manifest_name(options))
    if manifest is None:
        return None
    tidy(folder)  # a build killed after this kit was made left its temporary files
    try:
        all_in_one = next(c["all_in_one"] for c in manifest.components) if manifest.components else {}
        files = [folder / f["path"] for f in manifest.files] + [folder / manifest_name(options)]
        pages = manifest.pages_of(all_in_one.get("file", ""))
        return Outcome(game_id, "up to date", manifest.replayed(), files, pages, all_in_one.get("file", ""))
    except (KeyError, TypeError, AttributeError, ValueError):  # not as pnp writes it: built again, replaced
        return None


def build_game(project: "Project", game_id: str, options: "PrintOptions", folder: str | Path, force: bool = False,
               emit: "Emit | None" = None, checked: bool = False) -> Outcome:
    """Build one game into `folder` unless it is up to date (or `force`). `emit(event, game_id, value)` tells
    progress: ('check', None) while validating, ('start', total steps) once drawing starts, ('step', label)
    after each, ('wait', message) while another pnp writes to the folder. `checked`: the caller has just
    found it not up to date. Returns an Outcome; never raises for bad data."""
    emit = emit or (lambda *event: None)
    folder = Path(folder)
    if not force and not checked:
        unchanged = already_built(project, game_id, options, folder)
        if unchanged is not None:
            return unchanged
    emit("check", game_id, None)
    try:
        return _validated_and_drawn(project, game_id, options, folder, emit, force)
    finally:
        emit("end", game_id, None)


def _validated_and_drawn(project: "Project", game_id: str, options: "PrintOptions", folder: Path, emit: "Emit",
                         force: bool) -> Outcome:
    from ..check import few_collections  # ReportLab comes with it: loaded only when a game is really checked
    from ..template import budget  # one budget for checking and drawing the game

    with budget(), few_collections():  # the whole build: its objects live until it ends (see few_collections)
        return _built(project, game_id, options, folder, emit, force)


def _built(project: "Project", game_id: str, options: "PrintOptions", folder: Path, emit: "Emit",
           force: bool) -> Outcome:
    """Validate, then draw and commit with the folder locked: a second build of it meanwhile waits, then
    finds the kit up to date when the first built the same (a build never mixes its files with another's)."""
    report = Report(project.root)
    start = build_start(project, game_id)  # before reading anything: a file edited meanwhile rebuilds next time
    from ..check import validate

    game, studio = validate(project, game_id, report, options)
    if game is None or studio is None or (report.errors and not options.draft):  # game is None only when studio is
        report.consequence(f"{game_id}: not built (fix the errors above)")
        return Outcome(game_id, "not built", report.diagnostics)
    if not game.components:  # nothing to print (validate said so): a kit of no page is one viewers refuse
        return Outcome(game_id, "nothing to print", report.diagnostics)
    studio.mark_data_errors(report.diagnostics)  # a draft: every item with an error is drawn marked
    from .render import commit, render_game, steps

    try:
        _drawing_admitted()
        with output_lock(folder, project.rel(folder), lambda message: emit("wait", game_id, message)) as waited:
            unchanged = already_built(project, game_id, options, folder) if waited and not force else None
            if unchanged is not None:
                return unchanged
            emit("start", game_id, steps(game))
            result = render_game(game, studio, folder, on_step=lambda label: emit("step", game_id, label))
            result.warnings = warning_records(report)
            result.inputs = record(project, game_id, start, game.icons.used | game.used_files)
            files = commit(result)
    except PnpError as e:
        report.error(f"{game_id}: build failed: {e.message}; previous output left intact", e.mark)
        return Outcome(game_id, "failed", report.diagnostics)
    except OSError as e:
        refused = cannot_write(project.rel(folder), e, project.rel)
        report.error(f"{game_id}: build failed: {refused.message}; previous output left intact", refused.mark)
        return Outcome(game_id, "failed", report.diagnostics)
    except Exception as e:  # noqa: BLE001 - a bug in pnp met by this game: said at its input, the other games go on
        report.add(unforeseen(e, f"{game_id}: build failed, previous output left intact"))
        return Outcome(game_id, "failed", report.diagnostics)
    status = "draft" if options.draft else "built"
    outcome = Outcome(game_id, status, report.diagnostics, files, result.pages[result.all_name], result.all_name)
    outcome.marked = len(studio.marks)
    return outcome


def default_jobs() -> int:
    """One process per core this process may use."""
    return usable_cores()


class MemoryGate:
    """The memory the games held by the workers of one build need together, kept at most `limit`, from each
    game's check to the end of its drawing. A worker takes its share (its memory now) as its game's check
    begins, while the others leave room for it or none holds any; as its check or drawing outgrows its share,
    it waits for room (the others end their games, or wait too). A worker waits holding what it has, so when
    every other holder waits as well the largest goes on alone: no two wait for each other for good."""

    def __init__(self, context: "BaseContext", limit: int, workers: int) -> None:
        self.limit = limit
        self._changed: "Condition" = context.Condition()
        # per worker (its process id, the bytes it holds, whether it waits for more), under _changed's lock: a
        # worker that died is forgotten by its process id (forget), or the others would wait for it for good
        self._held = context.Array("q", _SLOT * workers, lock=False)
        self._mine = 0  # in a worker: the bytes its slot holds (read without the lock by `grow`'s quick test)

    def _others(self, me: int) -> list[tuple[int, int, int]]:
        """(bytes, waiting, process id) of each worker holding memory but `me`."""
        held = self._held
        return [(held[i + 1], held[i + 2], held[i]) for i in range(0, len(held), _SLOT) if held[i] not in (0, me)]

    def _room_for(self, me: int, need: int, holding: bool) -> bool:
        """Whether `me` may hold `need` bytes: they fit beside the others' or none holds any, or (`holding`: it
        waits with memory held) every other holder waits too and it holds the most (ties: the higher pid)."""
        others = self._others(me)
        if not others or sum(o[0] for o in others) + need <= self.limit:
            return True
        return holding and all(o[1] for o in others) and (self._mine, me) > max((o[0], o[2]) for o in others)

    def _hold(self, slot: int, need: int) -> None:
        self._held[slot + 1], self._held[slot + 2] = need, 0
        self._mine = need

    @contextlib.contextmanager
    def holding(self, need: int) -> Iterator[None]:
        """Wait until `need` bytes fit beside what the others hold (or none holds any), then hold them for the
        block (one game, checked and drawn), growing with `grow`."""
        held, me = self._held, os.getpid()
        with self._changed:
            # a slot is free unless a worker died and the pool's new one came before the parent forgot it
            self._changed.wait_for(lambda: 0 in held[::_SLOT] and self._room_for(me, need, False))
            slot = held[::_SLOT].index(0) * _SLOT
            held[slot] = me
            self._hold(slot, need)
        try:
            yield
        finally:
            self.forget(me)
            self._mine = 0

    def grow(self, need: int) -> None:
        """In a worker holding memory (`holding`): hold `need` bytes (and GROWTH_STEP more, for the next few
        looks), once they fit; at once when it holds as much already, or holds nothing (one game alone)."""
        if need <= self._mine or not self._mine:
            return
        need += GROWTH_STEP
        held, me = self._held, os.getpid()
        with self._changed:
            slot = held[::_SLOT].index(me) * _SLOT
            if not self._room_for(me, need, True):
                held[slot + 2] = 1  # waiting: another waiting may now be the largest of those who wait
                self._changed.notify_all()
                self._changed.wait_for(lambda: self._room_for(me, need, True))
            self._hold(slot, need)

    def forget(self, pid: int) -> None:
        """The process `pid` holds no memory any more (its game ended, or the process died)."""
        with self._changed:
            for i in range(0, len(self._held), _SLOT):
                if self._held[i] == pid:
                    self._held[i] = self._held[i + 1] = self._held[i + 2] = 0
            self._changed.notify_all()


_SLOT = 3  # MemoryGate's numbers per worker
GROWTH_STEP = 16 << 20  # bytes a worker's hold grows by past what it needs now: the gate is not asked at each look


def peak_memory() -> int:
    """This process's peak resident size, in bytes (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _peak_reset() -> None:
    """Start this process's peak resident size afresh (Linux: a worker's next game is measured alone; elsewhere
    the peak stays that of its largest game so far, which only admits fewer games at once)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        pass


def _drawing_admitted() -> None:
    """In a worker of build_games, wait for room in the build's MemoryGate for the need the game's check
    measured (its drawing holds the checked game, and adds to it); elsewhere (one game at a time) at once."""
    if _GATE is not None:
        _GATE.grow(int(peak_memory() * DRAWING_GROWTH))


_EVENTS: "Queue[tuple[str, str, Any]] | None" = None  # the worker's end of the progress queue, set when its process starts
_GATE: MemoryGate | None = None  # the build's MemoryGate, in its workers
_BUILDERS: "SynchronizedArray[int] | None" = None  # the process building each game, in its workers (see _Deaths)


def _start_worker(events: "Queue[tuple[str, str, Any]]", gate: MemoryGate,
                  builders: "SynchronizedArray[int]") -> None:
    from ..template import watch_memory

    global _EVENTS, _GATE, _BUILDERS
    end_with_parent()
    ctrl_c_left_to_parent()  # (the pool ends its workers on Ctrl-C: see build_all)
    _EVENTS, _GATE, _BUILDERS = events, gate, builders
    watch_memory(gate.grow)  # the game's check and drawing wait for room as they grow


def _in_worker(project: "Project", game_id: str, options: "PrintOptions", folder: Path, force: bool,
               index: int) -> Outcome:
    assert _EVENTS is not None and _BUILDERS is not None  # set by _start_worker as the process starts
    _BUILDERS[index] = os.getpid()  # (shared memory, at once: an event sent could die with the process)
    emit = _EVENTS.put
    _peak_reset()  # the check measures this game's memory, not the worker's earlier games'
    from ..template import memory_now

    assert _GATE is not None
    try:
        with _GATE.holding(memory_now()):  # the check's memory counts beside the other games' as drawing's does
            return build_game(project, game_id, options, folder, force, lambda *event: emit(event), checked=True)
    finally:
        emit(("done", game_id, None))  # after its last step: the parent stops waiting at once


def build_games(project: "Project", game_ids: list[str], options: "PrintOptions", out_root: str | Path, jobs: int = 1,
                force: bool = False, progress: "Progress | None" = None) -> list[Outcome]:
    """Build each game into out_root/<game>/; returns their Outcomes in the order given. Which games are up
    to date is known first, here; only the others are built, in `jobs` processes. `progress` (a context
    manager with on_event) is entered once the worker processes exist, never before: a process forked while
    the progress bar's thread runs could inherit a held lock."""
    progress = progress or Quiet()
    outcomes = {g: None if force else already_built(project, g, options, Path(out_root) / g) for g in game_ids}
    todo = [g for g in game_ids if outcomes[g] is None]
    # no more processes than games to build or cores: `build -j 64` of five games started five on two cores,
    # each holding a game (hundreds of MB at the most a game may draw), for no gain past the cores
    jobs = max(1, min(jobs, len(todo), usable_cores()))
    if jobs == 1:
        with progress:
            for g in todo:
                outcomes[g] = build_game(project, g, options, Path(out_root) / g, force, progress.on_event,
                                         checked=True)
        return cast(list[Outcome], [outcomes[g] for g in game_ids])  # every game has one by now
    context = worker_context("fork")
    events = context.Queue()
    gate = MemoryGate(context, BUILDS_MEMORY, jobs)
    builders = context.Array("q", len(todo), lock=False)  # the process building each game of todo, once begun
    try:
        with ctrl_c_held_while_forking():  # (its threads, which fork a worker anew if one dies, hold it too)
            pool = context.Pool(jobs, initializer=_start_worker, initargs=(events, gate, builders))
        with pool:
            pending = [pool.apply_async(_in_worker, (project, g, options, Path(out_root) / g, force, i))
                       for i, g in enumerate(todo)]
            with progress:
                died = _follow(events, progress, pending, _Deaths(pending, builders, gate))
            for i, g in enumerate(todo):
                outcomes[g] = _died(project, g, Path(out_root) / g) if i in died else pending[i].get()
    except BaseException:  # Ctrl-C: the pool has ended its workers, whose temporary files are left
        for g in todo:
            tidy(Path(out_root) / g)
        raise
    return cast(list[Outcome], [outcomes[g] for g in game_ids])


class _Deaths:
    """The games whose worker process died building them (killed by the system, out of memory, or a crash in
    a library): the pool starts another worker, but their results never come, and `build -j` waited for them
    for good. Each is found by its process id, gone, its memory forgotten by the gate."""

    def __init__(self, pending: list["AsyncResult[Outcome]"], builders: "SynchronizedArray[int]",
                 gate: MemoryGate) -> None:
        self.pending, self.builders, self.gate = pending, builders, gate

    def __call__(self) -> set[int]:
        """The indexes of the games whose process has died, as far as is known now."""
        died = set()
        for i, result in enumerate(self.pending):
            pid = self.builders[i]
            if pid and not result.ready() and not _alive(pid):
                died.add(i)
                self.gate.forget(pid)
        return died


def _alive(pid: int) -> bool:
    """Whether the process `pid` is still there (the pool reaps its dead workers within a tenth of a second)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (there, another user's: not ours, but there)
        return True
    return True


def _died(project: "Project", game_id: str, folder: Path) -> Outcome:
    """The Outcome of a game whose worker died building it; its temporary files are removed."""
    tidy(folder)
    report = Report(project.root)
    report.error(f"{game_id}: build failed: its process ended without a word (ended by the system: out of "
                 "memory?); previous output left intact")
    return Outcome(game_id, "failed", report.diagnostics)


def _follow(events: "Queue[tuple[str, str, Any]]", progress: "Progress", pending: Collection["AsyncResult[Outcome]"],
            deaths: Callable[[], set[int]] = set) -> set[int]:
    """Pass the workers' events to `progress` until every game has said it is done (or a worker failed:
    its error comes out of its result); returns the games (as indexes of `pending`) whose worker died."""
    done, died = 0, set[int]()
    while done + len(died) < len(pending):
        try:
            event = events.get(timeout=0.5)
        except queues.Empty:
            if any(p.ready() and not p.successful() for p in pending):
                break
            died = deaths()
            continue
        if event[0] == "done":
            done += 1
        else:
            progress.on_event(*event)
    return died | deaths()


class Progress(Protocol):
    """What build_games tells of its progress: entered while the games are built, told each event (see
    build_game)."""

    def __enter__(self) -> object: ...

    def __exit__(self, *exc: object) -> bool | None: ...

    def on_event(self, event: str, game_id: str = "", value: Any = None) -> None: ...


class Quiet:
    """Progress that shows nothing (output piped, or in CI) but a wait for another pnp writing the folder."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        return False

    def on_event(self, event: str, game_id: str = "", value: Any = None) -> None:
        if event == "wait":
            print(f"pnp: {value}", file=sys.stderr, flush=True)
