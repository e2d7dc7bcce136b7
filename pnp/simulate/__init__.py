"""pnp simulate: a game plays itself with the rules of its cards/<game>/rules.py, and its balance rules are
checked on what the games measure."""

import errno
import json
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..check import load
from ..errors import DataError, OutputError, UsageError, in_the_way, why_not_written
from ..project import LOCK_NAME, SIMULATION_FILE, Project, folders_on_the_way, open_file, output_lock, write_file
from ..report import Mark, Report, pasted, shell_word
from ..model.load import Record
from ..model.schema import player_range
from ..model.simulated import MAX_AGENTS
from ..template import budget
from .agents import make_agent
from .api import no_rules
from .balance import Outcome, check_balance, figures
from .run import Options, games_in, run_apart
from .stats import MAX_FAILURES_KEPT, Tally, dead_items, to_json

MAX_GAMES = 1_000_000  # games in one run, all seatings together
MAX_SEED = 2**63 - 1  # of any game of a run: the report reads simulation.json's seed as a 64-bit whole number
REPLAYS = "replays"  # the folder, beside a run's game folders, where a failed game's replay line writes its results
# a replay's own folder in it: seed<S>-<agent>-<agent>... (the game's seed and seating: the game it replays)
REPLAY_NAME = re.compile(r"seed(?:\d+|S)(?:-[a-z0-9-]+)?")


@dataclass
class Simulation:
    """What one run gives the command line to print."""

    summary: dict[str, Any] | None = None
    outcomes: list[Outcome] = field(default_factory=list)  # balance rules' Outcomes
    path: Path | None = None
    logs: list[tuple[int, int, list[str]]] = field(default_factory=list)  # (game index, seed, lines) with --log
    log_lines_dropped: int = 0  # lines of --log past stats.MAX_LOG_LINES, not kept


def check_options(options: Options) -> None:
    """UsageError for no agent, agents pnp does not know or a run too large."""
    if not any(options.agents):  # "--agents ,": no seating to play, so no figures to print
        raise UsageError("--agents: name at least one agent (random, greedy, mcts, or mcts-N for N iterations, 1 to 100,000)")
    if "" in options.agents:  # "random,": the run played without the agent the user meant to name after the comma
        raise UsageError("--agents: an empty name in the list (a comma with no agent before or after it)")
    for name in options.agents:
        try:
            make_agent(name)
        except ValueError:
            raise UsageError(f"--agents: unknown agent '{name}' (random, greedy, mcts, or mcts-N for N iterations, 1 to 100,000)") from None
    if len(set(options.agents)) > MAX_AGENTS:  # the report reads no more: the file pnp wrote was refused
        raise UsageError(f"--agents: at most {MAX_AGENTS} different agents in a run")
    games = games_in(options)
    if games > MAX_GAMES:
        raise UsageError(f"--games: at most {MAX_GAMES:,} games in a run (all seatings together)")
    # the file's seed, and every replay's; none below 0: Python's Random takes -S as S, so seed -5 dealt seed 5's
    # games (a run from -3 played three deals twice) under another seed
    if not 0 <= options.seed <= MAX_SEED - (games - 1):
        raise UsageError(f"--seed: the games are seeded S to S+{games - 1:,}, which must lie between 0 and "
                         f"{MAX_SEED:,}")


def simulate(project: Project, game_id: str, options: Options, out_dir: Path, report: Report,
             progress: Callable[[int], object] | None = None, command: str = "pnp") -> Simulation:
    """Load the game, play the run, write <out_dir>/simulation.json and check the balance rules; problems go
    to `report` (a failing game or rule is an error). `command`: pnp as the user ran it (with its --root), the
    start of each failed game's replay line."""
    check_options(options)
    before = len(report.errors)
    with budget():
        game = load(project, game_id, report)
    if game.meta is None or len(report.errors) > before:
        return Simulation()
    if (missing := no_rules(project, game)) is not None:
        report.add(missing)
        return Simulation()
    if (unplayed := _unplayed_count(game.meta, options.players)) is not None:
        report.error(*unplayed)
        return Simulation()
    if (blocked := _in_the_way(out_dir / SIMULATION_FILE)) is not None:  # said before the games, not after them
        at, problem = blocked
        report.error(f"cannot write: {problem}", Mark(project.rel(at)))
        return Simulation()
    if (foreign := _foreign(out_dir / SIMULATION_FILE, game_id)) is not None:
        report.error(in_the_way(foreign, "the results'"), Mark(project.rel(out_dir / SIMULATION_FILE)))
        return Simulation()
    try:  # (as every command's output: a name or a path longer than the system allows, a folder it cannot write)
        folders_on_the_way(project, out_dir)
    except OutputError as e:
        report.add(e)
        return Simulation()
    try:
        played = run_apart(project, game, options, progress)
    except DataError as e:
        report.add(e)
        return Simulation()
    tally = played.tally
    sim = Simulation(logs=tally.logs, log_lines_dropped=tally.log_lines_dropped)
    replay = f"{command} simulate {shell_word(game_id)}"
    if _report_failures(tally, replay, out_dir, options, played.shown, report):
        return sim
    meta = {"game": game_id, "seed": options.seed, "players": options.players,
            "agents": list(dict.fromkeys(options.agents)),  # each once: 'random' 15,000 times was written so, and
            # the report refused the list
            "games_per_seating": options.games, "end_reasons_known": played.end_reasons,
            "tracked": played.items}
    sim.summary = tally.summary(meta, played.names)
    sim.path = _written(project, out_dir, game_id, sim.summary, report)
    with budget():
        sim.outcomes = check_balance(game, sim.summary)
    for outcome in sim.outcomes:
        if not outcome.holds:
            report.error(outcome.message, outcome.mark)
    return sim


def _unplayed_count(meta: Record, players: int) -> tuple[str, Mark | None] | None:
    """(message, game.yaml's `players` line) when the game is not played by `players` (--players): a game for
    3-5 was simulated with the default two players, its figures written as the game's (and printed in its
    rulebook), exit 0; else None."""
    declared = meta.get("players")
    span = player_range(declared)
    if span is None:  # (no count written, or one validate refuses: not this check's to say)
        return None
    least, most = span
    if least <= players and (most is None or players <= most):
        return None
    return (f"--players {players}: the game is played by {declared} players (its `players`); simulate a "
            f"count it is played by, e.g. --players {least}", meta.mark_of("players"))


MAX_RESULTS_READ = 64 * 2**20  # bytes of a simulation.json read to tell whether pnp wrote it (one is a few MB)


def _foreign(path: Path, game_id: str) -> str | None:
    """What stands at `path` that no run of `game_id` wrote, which writing the results would replace: a link or
    a special file, or a file that is not a simulation.json of the game. `--out ~/Desktop` over the user's own
    ~/Desktop/<game>/simulation.json (or a link there) replaced it, exit 0, as a build did a kit's name."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # none there (or said when the results are written)
        return None
    if stat.S_ISDIR(mode):
        return None  # (said by _in_the_way)
    if not stat.S_ISREG(mode):
        return "a link" if stat.S_ISLNK(mode) else "a special file"
    # known by the line naming the game among its top-level keys, as stats.to_json writes them (one space in),
    # not by parsing it: a received output/<game>/simulation.json of 64 MB of `[],` took 4.7 s and 1.7 GB to parse
    named = b'\n "game": ' + json.dumps(game_id, ensure_ascii=False).encode("utf-8") + b",\n"
    try:
        # opened as what was looked at: a named pipe swapped in after the look held the run for good
        with open_file(path) as file:
            data = file.read(MAX_RESULTS_READ + 1) if os.fstat(file.fileno()).st_size <= MAX_RESULTS_READ else b""
    except OSError:  # (unreadable, or no longer an ordinary file: kept as the user's)
        data = b""
    if data.startswith(b"{\n") and named in data:
        return None
    return f"a file pnp did not write (no simulation.json of {game_id})"


def _in_the_way(path: Path) -> tuple[Path, str] | None:
    """(what stands in the way, in pnp's words as every write's) when `path` could not be written for something
    already there: a folder at it, a link or a folder in the place of its folder's lock (which pnp never opens
    through a link), or a file (/dev/null) where one of its folders goes. A run played its games, a million of
    them maybe, before it found it could write none of their figures (a lock in the way was said then, and at
    its folder, whose .pnp.lock the user may not see). A name the system cannot look up (too long) is none of
    these: folders_on_the_way says it (it was a traceback here)."""
    # (os.path's tests, not Path's: a name too long for the system raised from Path's)
    lock = path.parent / LOCK_NAME
    if os.path.isdir(path) or os.path.isdir(lock) and not os.path.islink(lock):
        return (path if os.path.isdir(path) else lock), why_not_written(OSError(errno.EISDIR, ""))
    if os.path.islink(lock):
        return lock, why_not_written(OSError(errno.ELOOP, ""))
    for folder in path.parents:
        if os.path.exists(folder):
            return None if os.path.isdir(folder) else (folder, why_not_written(OSError(errno.ENOTDIR, "")))
    return None


def _written(project: Project, out_dir: Path, game_id: str, summary: dict[str, Any], report: Report) -> Path | None:
    """<out_dir>/simulation.json written with the summary, or None when it cannot be (said in `report`)."""
    path = out_dir / SIMULATION_FILE
    try:
        with output_lock(out_dir):  # the folder's writers' lock: see remove_leftovers
            # looked at again as it is written: a run plays for minutes, and a file of the user's saved there
            # meanwhile (after the look before the games) was replaced, exit 0
            if (foreign := _foreign(path, game_id)) is not None:
                report.error(in_the_way(foreign, "the results'"), Mark(project.rel(path)))
                return None
            write_file(path, to_json(summary))
    except OSError as e:
        # the file in the way as every write names it (errors.write_failure: the lock that is a link was said at
        # its folder), else a folder that is a file, else the results' file
        named = e.filename2 if e.filename2 is not None else e.filename
        blocking = Path(os.fsdecode(named)) if isinstance(named, (str, bytes, Path)) else path
        at = blocking if blocking in (*path.parents, path.parent / LOCK_NAME) else path
        report.error(f"cannot write: {why_not_written(e)}", Mark(project.rel(at)))  # (pnp's words, as every write's)
        return None
    return path


def replay_folder(out_dir: Path, seed: int | None = None, seating: tuple[str, ...] = ()) -> str:
    """The --out of the line replaying the game of `seed` and `seating` (None: `seedS`, for a hint), as the user
    types it: <the run's output folder>/replays/seed<S>-<seating>, whose <game>/simulation.json is no run's results
    file (a game's is <folder>/<game>/simulation.json, and a game's name is one folder's) nor another replayed
    game's. Replayed with the run's own --out, the replay, once the rules were fixed, replaced the run's results,
    thousands of games, with one game's; replayed into one replays/ folder, each replay replaced the last one's.
    A run that is itself a replay (its output folder is such a replays/<name>) has its replays written beside its
    own, not in a replays/ of its own: a replay of a replay wrote into replays/replays/, one folder deeper each
    time."""
    root = out_dir.parent  # the run's --out (or output/)
    if root.name == REPLAYS:  # (a replay of an older pnp, which wrote into replays/<game>/)
        base = root
    elif root.parent.name == REPLAYS and REPLAY_NAME.fullmatch(root.name):
        base = root.parent
    else:
        base = root / REPLAYS
    folder = base / ("seed" + ("S" if seed is None else str(seed)) + "".join(f"-{agent}" for agent in seating))
    try:
        return shell_word(str(folder.relative_to(Path.cwd())))  # typed where the user is, as --out reads it
    except (ValueError, OSError):  # outside the folder the user is in, or that folder was removed
        return shell_word(str(folder))


def _report_failures(tally: Tally, replay: str, out_dir: Path, options: Options, shown: str,
                     report: Report) -> bool:
    """Report the games the rules failed in (the first few, each with how to replay it: `replay`, the command
    that simulates the game, its options and the --out that keeps its results apart from the run's, written
    in `out_dir`, and from other replays'); True if any."""
    for r in tally.failures:
        command = (f"`{replay} --seed {r.seed} --games 1 --players {options.players} --agents "
                   f"{','.join(r.seating)} --log --out {replay_folder(out_dir, r.seed, r.seating)}`")
        report.error(f"game {r.index} (seed {r.seed}, seats {','.join(r.seating)}): {r.failure}; replay it with "
                     f"{pasted(command)}",
                     Mark(shown, r.line, 1 if r.line else 0))
    if tally.failed > len(tally.failures):
        report.error(f"{tally.failed - len(tally.failures)} more games failed", Mark(shown))
    played, planned = tally.games + tally.failed, games_in(options)
    if played < planned:  # it stopped (run.stops_run)
        why = f"{tally.failed} failed games" if tally.failed >= MAX_FAILURES_KEPT else "a game that ran out of time"
        report.error(f"the run stopped after {why}, {played:,} of its {planned:,} games played: the others are "
                     "played once these are fixed", Mark(shown))
    return bool(tally.failed)


def _ci(w: dict[str, Any]) -> str:
    if not w["n"]:
        return "-"
    return f"{w['rate']:.0%} ({w['low']:.0%}-{w['high']:.0%})"


def summary_lines(sim: Simulation) -> list[str]:
    """The run in a few lines for the terminal: seats, agents, pairings, length, ends, dead items, rules."""
    s = sim.summary
    assert s is not None  # asked only of a run that played its games
    lines = [f"{s['game']}: {s['games']} games, {s['players']} players, agents {', '.join(s['agents'])}, "
             f"seed {s['seed']}",
             "  win rate by seat (95% CI): " + "; ".join(f"seat {i + 1} {_ci(w)}"
                                                        for i, w in enumerate(s["seat_win_rate"]))]
    if len(s["agent_win_rate"]) > 1:
        lines.append("  by agent: " + "; ".join(f"{a} {_ci(w)}" for a, w in s["agent_win_rate"].items()))
        for a, row in s["matchup"].items():
            lines.append(f"  {a} against: " + "; ".join(f"{b} {_ci(w)}" for b, w in row.items()))
    turns = s["length"]["turns"]
    lines.append(f"  length: {turns['mean']:.1f} turns (min {turns['min']}, median {turns['median']:g}, "
                 f"max {turns['max']}); decisions per seat: "
                 + ", ".join(f"{d['mean']:.0f}" for d in s["length"]["decisions"]))
    lines.append("  ends: " + ", ".join(f"{r} {e['share']:.0%}" for r, e in s["end_reasons"].items()))
    lines.extend(_item_lines(s))
    for o in sim.outcomes:
        state = "holds" if o.holds else "FAILS"
        margin = f" ({figures(o)}{', ' + o.row if o.row else ''})" if o.margin is not None else ""
        lines.append(f"  balance {state}: {o.expr}{margin}")
    return lines


def _item_lines(s: dict[str, Any]) -> list[str]:
    """Dead items, and each table's item whose takers' win rate differs most from the others'."""
    lines = []
    for table, found in dead_items(s).items():
        for label, ids in found.items():
            names = [s["items"][table][i]["name"] for i in ids]
            lines.append(f"  {table} {label}: {', '.join(names)}")
    for table, items in s["items"].items():
        gaps = [(abs(st["gap"]), st["gap"], st["name"]) for st in items.values() if st["gap"] is not None]
        if gaps:
            _, gap, name = max(gaps)
            lines.append(f"  {table}: largest win-rate gap taken vs not: {name} {gap:+.0%}")
    return lines
