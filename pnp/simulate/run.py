"""The runner: N seeded games per seating of the agents, across processes; each game bounded by a move cap and
a timeout, and a failure of the rules said with its game, seed and turn."""

import collections
import contextlib
import ctypes
import faulthandler
import gc
import itertools
import math
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.util import Finalize
from dataclasses import dataclass, field
from random import Random
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Literal, cast

from . import api, stats
from .agents import Agent, make_agent, win_shares
from .api import (MAX_END_REASONS, MAX_LINE as MAX_TEXT, MAX_WORKERS, RULES_FILE, RULES_MEMORY, GameData, GameRules,
                  RulesFault, RulesSource, Tracked, code_mark, hook_line, loaded_rules, raised, rules_class,
                  rules_made, said, seed_shared_random, source_of)
from ..errors import DataError
from ..model.game import Game
from ..project import Project, end_with_parent, freeze_once, usable_cores, worker_context
from ..report import Mark, shortened
from ..template import handler_after_alarm
from .stats import MAX_FAILURES_KEPT, Tally

MOVE_CAP = 20_000  # decisions in one game; a game still going then is reported as never ending
MAX_TURN = 2**53  # a turn number the statistics hold exactly (10**400 was no float, 10**5000 no text)
ItemKey = tuple[str, str]  # (table, id) of an item: kept apart, as "table:id" a table named 'x:y' was written as 'x'
GAME_TIMEOUT = 120.0  # seconds of processor time for one game (not wall time: a busy machine must not fail games)
IDLE_CHECK = 10.0  # seconds of wall time after which a game that used (almost) no processor time is waiting for good
IDLE_SHARE = 0.01  # of IDLE_CHECK: the processor time a game still playing uses in it, even on a busy machine
# processor seconds past a game's timeout after which the system ends the process playing it: the timeout is a
# signal, which Python handles between two steps of the rules only, never inside one call of its own (`-1 in
# itertools.count()`, `sum(range(10**15))` looped for good past the timeout, and the run with them)
HARD_STOP_GRACE = 1.0
_HARD_STOP = {"on": False}  # set in the processes pnp starts to play the rules (never in pnp's own)


@dataclass
class Options:
    """What one `pnp simulate` run plays."""

    games: int = 100  # per seating
    players: int = 2
    agents: tuple[str, ...] = ("random",)
    seed: int = 0
    jobs: int = 1
    log: bool = False
    move_cap: int = MOVE_CAP
    timeout: float = GAME_TIMEOUT
    idle: float = IDLE_CHECK


@dataclass
class GameResult:
    """One game as the statistics read it."""

    index: int
    seed: int
    seating: tuple[str, ...]  # the agent in each seat
    shares: list[float] = field(default_factory=list)  # each seat's share of the win
    decisions: list[int] = field(default_factory=list)  # per seat
    turns: int = 0
    end: str = ""
    available: list[ItemKey] = field(default_factory=list)  # (table, id) in play
    events: list[dict[str, list[ItemKey]]] = field(default_factory=list)  # per seat: {event: [(table, id), ...]}
    log: list[str] = field(default_factory=list)
    log_unwritten: int = 0  # lines of --log past what the run keeps (see _Logged), counted, never written
    failure: str = ""  # what went wrong, when the rules failed
    line: int = 0  # the rules file's line at fault, when known
    timed_out: bool = False  # the game ran out of its processor time: the run stops there (see stops_run)


class _Timeout(api.Stopped):
    """Raised by the game's alarm: a BaseException, so a rules file's `except Exception` cannot swallow it."""


class _Waiting(_Timeout):
    """Raised by the game's alarm when the game used no processor time for a while: it waits for good."""


Seating = tuple[str, ...]  # the agent in each seat
Scheduled = tuple[int, int, Seating]  # (game index, seed, seating)


def seatings(agents: Seating, players: int) -> list[Seating]:
    """Every seating of the agents: each way to seat them that seats as many different agents as it can (all of
    them when there are no more agents than seats, else one a seat). Each is played equally often, so every
    agent meets every other from every seat and the seats' win rates compare like with like (rotating the
    list seated the stronger of two agents first in some pairings only)."""
    written, agents = tuple(agents), tuple(dict.fromkeys(agents))  # an agent named twice is one agent
    out: list[Seating] = []

    def extend(seated: Seating) -> None:
        free = players - len(seated)
        if free == 0:
            out.append(seated)
            return
        unseated = [a for a in agents if a not in seated]
        for agent in agents:
            if len(agents) > players and agent in seated:
                continue  # more agents than seats: each sits at most once
            if len(agents) <= players and len(unseated) - (agent in unseated) > free - 1:
                continue  # fewer agents than seats: leave room for every one not yet seated
            extend(seated + (agent,))

    extend(())
    if written in out:  # the seating the list writes plays first, with the run's own seed: a failed game's
        # replay line names its seating so (--agents random,greedy,random), and replayed another seating
        out.remove(written)
        out.insert(0, written)
    return out


def count_seatings(agents: int, players: int) -> int:
    """How many seatings `seatings` gives, without listing them (a run is refused before it is enumerated)."""
    if agents > players:
        return math.perm(agents, players)
    return sum((-1) ** j * math.comb(agents, j) * (agents - j) ** players for j in range(agents + 1))


def games_in(options: Options) -> int:
    """How many games the run plays: --games for every seating."""
    return options.games * count_seatings(len(set(options.agents)), options.players)


def schedule(options: Options) -> Iterator[Scheduled]:
    """(index, seed, seating) of every game, games_in(options) of them, made as the run reaches them: game g
    plays with seed options.seed + g, whatever the jobs. (Listed up front, a run of a million games held 180 MB
    of them from its start.)"""
    for k, seating in enumerate(seatings(options.agents, options.players)):
        for i in range(options.games):
            g = k * options.games + i
            yield g, options.seed + g, seating


class _Call:
    """Calls into the rules, turning any exception into a RulesFault that names the hook and the line."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.path, self.shown, _ = source_of(type(rules))

    def __call__(self, hook: str, *args: Any) -> Any:
        try:
            return getattr(self.rules, hook)(*args)
        except (RulesFault, api.Stopped):  # said already, pnp's alarm, or Ctrl-C (api.Interrupted)
            raise
        except BaseException as e:  # the designer's code: any exception is a fault of the rules (exit() and their
            # own BaseException subclasses too: a traceback that ended the run)
            line = code_mark(e, self.shown, self.path).line
            raise RulesFault(f"{hook} raised {raised(e)}", line) from None


def play(rules: GameRules, options: Options, index: int, seed: int, seating: Seating) -> GameResult:
    """Play one game; a failure of the rules (an exception, no legal move, a loop) is kept in the result, said
    and let go under a bound of its own (see _let_go)."""
    result = GameResult(index, seed, seating)
    turn = [0]
    call = _Call(rules)
    # what lived before the process's first game (pnp, the game's data, the rules) is left out of the collection
    # of the game's cycles after each game (_let_go), within the game's bound: one over all of it took 60 ms a game
    # (0.3 s in a test process). What the games make, kept by the rules from one game to the next too, is
    # collected as ever
    freeze_once()
    seed_shared_random(f"game {seed}")  # (a replay line's --seed plays this game with this seed)
    remains, unraised_turn = _game(call, options, result, turn)
    _let_go(remains, call, options, result, turn[0], unraised_turn)
    end_if_forked()
    return result


_PLAYER: dict[str, int] = {}  # "pid": the process pnp started to play the rules (or a worker of it), as it began


def end_if_forked() -> None:
    """A process the rules forked that came back into pnp's code (the child of an os.fork() they did not end with
    os._exit, at the end of its game or of the rules' loading) ended at once, without a word. It played the
    run's games a second time, sending them on pnp's pipe beside the process it was forked from (where the two
    could garble each other's messages), and in a worker of --jobs N it took a chunk of games from the pool's
    queue and never gave it back: the run held for good."""
    if _PLAYER.get("pid", os.getpid()) != os.getpid():
        os._exit(0)


def _game(call: _Call, options: Options, result: GameResult,
          turn: list[int]) -> tuple[list[BaseException | None], int]:
    """The game under its alarm; what it leaves: the exception that ended it, if one did (its traceback holds
    the game's frames, and their objects), and the first error Python ignored in it (raised in a __del__), if
    one was; and the turn of that error."""
    alarm = _alarm(options.timeout, options.idle, turn)
    try:
        with alarm:
            _play(call, options, result, turn)
    except api.Interrupted:  # Ctrl-C (a KeyboardInterrupt the rules raise is their failure, said as any)
        raise
    except BaseException as e:
        return [e, alarm.unraised], alarm.unraised_turn
    return [None, alarm.unraised], alarm.unraised_turn


def _let_go(remains: list[BaseException | None], call: _Call, options: Options, result: GameResult, turn: int,
            unraised_turn: int) -> None:
    """Say how the game failed, from what it left (`remains`, from _game), then let go of that and collect the
    reference cycles the game made, all under the bound of a game: the rules' code that runs then (an error's
    __str__, a __del__) ran after the game's alarm, between two games, where a loop or a sleep in it held the
    run, and pnp, for good. A stop there is the game's failure (said at the rules' line that was running, in
    place of a failure said before: a run stops at it, see stops_run); so is an error Python ignored (printed as
    a traceback for each game, the run said ok)."""
    alarm = _alarm(options.timeout, options.idle)
    try:
        with alarm:
            if remains[0] is not None:
                _say_failure(remains[0], call, options, result, turn)
            remains[0] = None  # (the game's frames, let go)
            gc.collect()
            if remains[1] is None:
                unraised_turn = turn
            unraised, remains[1], alarm.unraised = remains[1] or alarm.unraised, None, None
            if unraised is not None and not result.failure:
                _say_unraised(unraised, call, result, unraised_turn)
            del unraised
    except _Timeout as e:
        result.failure = (f"turn {turn}: the rules waited {options.idle:g} s without doing anything after the game, "
                          "as its failure was said or its objects let go (a lock, a sleep or input in an error's "
                          "__str__ or a __del__?)" if isinstance(e, _Waiting) else
                          f"turn {turn}: the rules took more than {options.timeout:g} s of processor time after the "
                          "game, as its failure was said or its objects let go (a loop in an error's __str__ or a "
                          "__del__?)")
        result.line = code_mark(alarm.swallowed or e, call.shown, call.path).line
        result.timed_out = True
        # what is left is never let go: the run stops at this game (stops_run), and the process playing it ends
        # without letting go of anything (os._exit); let go here, past every bound, it could hold the run again
        _NEVER_LET_GO.append((remains, alarm, e))


_NEVER_LET_GO: list[object] = []  # what a game left whose letting go ran out of its bound (see _let_go)


def _say_failure(error: BaseException, call: _Call, options: Options, result: GameResult, turn: int) -> None:
    """What ended a game, and the rules' line at fault, into its result."""
    if isinstance(error, RulesFault):
        result.failure, result.line = f"turn {turn}: {error.message}", error.line or hook_line(type(call.rules), error.hook)
        return
    if isinstance(error, _Waiting):  # a lock taken twice, a sleep, input(): the processor-time limit never came
        result.failure = f"turn {turn}: the game waited {options.idle:g} s without playing (a lock, a sleep or input in the rules?)"
        result.timed_out = True
    elif isinstance(error, _Timeout):  # said at the line of the rules running when time ran out (the loop's, most often)
        result.failure = f"turn {turn}: the game took more than {options.timeout:g} s of processor time (a loop in the rules, or a search budget too large for the game?)"
        result.timed_out = True
    elif isinstance(error, RecursionError):
        result.failure = f"turn {turn}: the rules recursed without end"
    else:  # raised in the game loop, which calls the rules unwrapped (see _play)
        hook, line = _raised_in(error, call)
        result.failure, result.line = f"turn {turn}: {hook} raised {raised(error)}", line
        return
    result.line = code_mark(error, call.shown, call.path).line


def _say_unraised(error: BaseException, call: _Call, result: GameResult, turn: int) -> None:
    """An error of the rules that Python ignored where it was raised (a __del__, run where an object is let go),
    into the game's result as its failure."""
    result.failure = (f"turn {turn}: the rules raised {raised(error)} where Python ignores it and goes on (in a "
                      "__del__, or a thread of theirs?)")
    result.line = code_mark(error, call.shown, call.path).line


def ignored_after(rules: GameRules, when: str) -> tuple[str, Mark] | None:
    """An error Python ignored (a thread of the rules raising, a __del__) kept by keep_ignored_between after the
    last bound of this process, `when`, said as a failure and where in the rules; None when there is none. No
    later game's bound took it: it was said nowhere, the run said ok."""
    if not _IGNORED:
        return None
    error, source = _IGNORED.pop(), source_of(type(rules))
    return (f"the rules raised {raised(error)} {when}, where Python ignores it and goes on (in a __del__, or a "
            "thread of theirs?)", code_mark(error, source.shown, source.path))


def _raised_in(error: BaseException, call: _Call) -> tuple[str, int]:
    """(the rules' method that raised, the rules file's line) from the traceback: the outermost frame in the
    rules file or the API's default methods, and the agent whose look-ahead called it, if one did."""
    hook, agent, tb = "", None, error.__traceback__
    while tb is not None and not hook:
        code = tb.tb_frame.f_code
        if code.co_filename in (call.path, _API_FILE):
            hook = code.co_name
        elif code.co_filename == _AGENTS_FILE and agent is None:
            agent = tb.tb_frame.f_locals.get("self")
        tb = tb.tb_next
    where = (hook or "the rules") + (f" (in the {agent.name} agent's look-ahead)" if isinstance(agent, Agent) else "")
    return where, code_mark(error, call.shown, call.path).line


_API_FILE = GameRules.setup.__code__.co_filename
_AGENTS_FILE = make_agent.__code__.co_filename


def _play(call: _Call, options: Options, result: GameResult, turn: list[int]) -> None:
    """The game loop. The rules' hooks are called directly, not through _Call (a tenth of a random game's time
    went to that wrapper): an exception from them reaches `play`, which finds the hook in its traceback."""
    rules, players = call.rules, options.players
    game_rng, agent_rng = Random(result.seed), Random(f"agents {result.seed}")
    agents = [make_agent(name) for name in result.seating]
    state = call("setup", players, game_rng)
    decisions = result.decisions = [0] * players
    turn_of, is_over, to_act, legal_moves, apply = rules.turn, rules.is_over, rules.to_act, rules.legal_moves, \
        rules.apply
    for made in range(options.move_cap + 1):
        if made == options.move_cap:
            raise RulesFault(f"the game did not end within {options.move_cap:,} moves (is_over never true?)",
                             hook="is_over")
        number = turn_of(state)
        if number.__class__ is int and number > MAX_TURN:
            raise RulesFault(f"turn returned {said(number)}, not a turn number (at most {MAX_TURN:,})", hook="turn")
        turn[0] = number if number.__class__ is int and number >= 0 else made
        if is_over(state):
            break
        player = to_act(state)
        if player.__class__ is not int or not 0 <= player < players:
            raise RulesFault(f"to_act returned {said(player)}, not a player 0-{players - 1}", hook="to_act")
        moves = legal_moves(state)
        _check_moves(moves)
        move = agents[player].choose(rules, state, moves, player, agent_rng)
        if options.log:
            if LOGGED.room():
                result.log.append(f"turn {turn[0]}: P{player} {result.seating[player]}: "
                                  f"{_line_of_text('describe', call('describe', move))}")
            else:
                result.log_unwritten += 1
        decisions[player] += 1
        state = apply(state, move, game_rng)
    _finish(call, state, players, result, turn[0])


class _Logged:
    """The lines of --log this process wrote in its run. It plays its games in game order, so once it wrote the
    MAX_LOG_LINES the run keeps, a later game's lines are past them (Tally.add): counted, never written. Each was
    written, sent back and dropped: 300 long games took 129 s and 350 MB for the 5 games' lines printed, 37 s
    and 45 MB without --log."""

    def __init__(self) -> None:
        self.lines = 0

    def room(self) -> bool:
        """Whether one more line may be written (and is counted as written)."""
        self.lines += 1
        return self.lines <= stats.MAX_LOG_LINES


LOGGED = _Logged()


def _check_moves(moves: Any) -> None:
    if moves.__class__ not in (list, tuple) or not moves:
        # a set or a generator of moves was said as empty ('it must list at least one move'), which it was not
        if not isinstance(moves, (list, tuple)):
            raise RulesFault(f"legal_moves returned {said(moves)}, not a list or a tuple of moves (their order is "
                             "the one every run repeats: `sorted(...)` makes a list of a set)", hook="legal_moves")
        if not moves:
            raise RulesFault(f"legal_moves returned {said(moves)} while the game is not over (it must list at least "
                             "one move)", hook="legal_moves")
    try:
        hash(tuple(moves))  # every move at once, in C
    except TypeError:
        for move in moves:
            try:
                hash(move)
            except TypeError:
                raise RulesFault(f"legal_moves returned a move that is not hashable: {said(move)} (use a tuple, not "
                                 "a list)", hook="legal_moves") from None


def _finish(call: _Call, state: Any, players: int, result: GameResult, turn: int) -> None:
    scores = call("scores", state)
    if not (isinstance(scores, (list, tuple)) and len(scores) == players
            and all(isinstance(s, (int, float)) and s == s for s in scores)):  # (NaN: no one won, exit 0)
        raise RulesFault(f"scores returned {said(scores)}, not one number per player", hook="scores")
    result.shares = win_shares(list(scores))
    result.turns = turn
    result.end = _line_of_text("end_reason", call("end_reason", state))
    tracked = call("tracked", state)
    if not isinstance(tracked, Tracked):
        raise RulesFault(f"tracked returned {type(tracked).__name__}, not a Tracked", hook="tracked")
    _keep_tracked(tracked, result)


MAX_PAIRS = 100_000  # (table, id) pairs one game's tracking gives, all together: an endless iterable took 3 GB


def _keep_tracked(tracked: Tracked, result: GameResult) -> None:
    """What the rules tracked in a game, into its result, its events named by a line (its items are checked
    against the tables of ITEMS by the run: see refuse_unknown_items)."""
    players = len(result.shares)
    if not isinstance(tracked.events, (list, tuple)) or len(tracked.events) > players:
        given = f"{len(tracked.events)} players" if isinstance(tracked.events, (list, tuple)) else said(tracked.events)
        raise RulesFault(f"tracked returned events for {given}, not a list of one mapping per player (at most "
                         f"{players})", hook="tracked")
    pairs = itertools.count()
    result.available = _keys(tracked.available, pairs)
    result.events = []
    for events in tracked.events:
        if not isinstance(events, Mapping) or len(events) > MAX_END_REASONS:
            raise RulesFault(f"tracked returned the events {said(events)}, not a mapping of at most "
                             f"{MAX_END_REASONS} event names to items", hook="tracked")
        named = {_line_of_text("tracked (an event's name)", name): _keys(items, pairs)
                 for name, items in sorted(events.items(), key=lambda kv: str(kv[0]))}
        if len(named) < len(events):  # 1 and "1": one event's items replaced the other's, exit 0
            raise RulesFault(f"tracked returned the events {said(events)}, two of whose names read as one",
                             hook="tracked")
        result.events.append(named)


def _keys(pairs: Any, counted: Iterator[int]) -> list[ItemKey]:
    """The (table, id) of each pair of an iterable the rules tracked, in order; RulesFault for a
    pair of another shape (said as pnp's own unpacking error, at no line) or past MAX_PAIRS in the game."""
    if isinstance(pairs, (str, bytes, bytearray)) or not isinstance(pairs, Iterable):
        # (iterated as they were, None was said as the rules raising pnp's own TypeError, and "cards" as the
        # rules returning the item 'c')
        raise RulesFault(f"tracked returned {said(pairs)} where the items go, not a set of (table, id) pairs",
                         hook="tracked")
    keys: set[ItemKey] = set()
    for pair in pairs:
        if next(counted) >= MAX_PAIRS:
            raise RulesFault(f"tracked returned more than {MAX_PAIRS:,} (table, id) pairs in a game", hook="tracked")
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(part, str) for part in pair)):
            raise RulesFault(f"tracked returned {said(pair)}, not a (table, id) pair", hook="tracked")
        keys.add((str.__str__(pair[0]), str.__str__(pair[1])))  # plain strs: a subclass of the rules' cannot be sent
    return sorted(keys)


def _line_of_text(hook: str, value: Any) -> str:
    """What a hook returned as the summary or the log prints it: one line of printable text, short (an escape
    sequence acted on the terminal, a line break forged lines of pnp's output, and an end reason of 1 MB was
    printed whole and kept for every game in simulation.json)."""
    text = str.__str__(str(value))  # a plain str: the rules module's own subclass could not be sent to pnp
    if len(text) > MAX_TEXT or not text.isprintable():
        raise RulesFault(f"{hook} returned {said(text)}, not one line of printable text of at most {MAX_TEXT} "
                         "characters", hook=hook.split()[0])
    return text


class _alarm:
    """A timeout for one game, in the process's processor time, and a check every `idle` seconds of wall time
    that the game still uses the processor (a game waiting on a lock it holds never reached the first: the run
    waited for good); by the system's timers, on the main thread of a process (where signals go); elsewhere, and
    where the system has no such timers (Windows), none (README says so). Neither raises after the block: the kernel may deliver an alarm late, and
    the default action of one (a handler put back as it was) ended pnp. A stop that Python swallows (raised in
    the rules' __del__, run by the garbage collector, which prints it and goes on) is raised again STOP_AGAIN
    later: the next such __del__ looping or sleeping for good held the game for good, past every limit."""

    def __init__(self, seconds: float, idle: float = IDLE_CHECK, turn: list[int] | None = None) -> None:
        self.seconds, self.idle, self.turn = seconds, idle, turn or [0]  # (turn: the game's, as it plays)
        self.armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        self.used = 0.0  # the processor time used by the last check
        self.inside = False
        self.stopping: type[_Timeout] | None = None  # the stop raised, to be raised again where it was swallowed
        self.swallowed: BaseException | None = None  # the first stop Python swallowed, with its traceback
        self.unraised: BaseException | None = None  # the first other error Python ignored, with its traceback
        self.unraised_turn = 0  # the game's turn then

    def __enter__(self) -> None:
        if _IGNORED and self.unraised is None:  # raised between two bounds (keep_ignored_between): this one's
            self.unraised, self.unraised_turn = _IGNORED.pop(), self.turn[0]
        self.previous_hook, self.previous_thread_hook = sys.unraisablehook, threading.excepthook
        sys.unraisablehook, threading.excepthook = self._swallowed, self._thread_raised
        if self.armed:
            self.inside = True
            self.previous = signal.signal(signal.SIGVTALRM, self._out_of_time)
            self.previous_real = _OWN_SIGNAL(signal.SIGALRM, self._check_playing)
            self.used = time.process_time()
            signal.setitimer(signal.ITIMER_VIRTUAL, self.seconds)
            _OWN_SETITIMER(signal.ITIMER_REAL, self.idle, self.idle)
        self.cpu_limit = _limit_processor_time(self.seconds + HARD_STOP_GRACE) if _HARD_STOP["on"] else None

    def _out_of_time(self, signum: int, frame: FrameType | None) -> None:
        if self.inside:
            self._stop(_Timeout)

    def _check_playing(self, signum: int, frame: FrameType | None) -> None:
        used, continued = time.process_time(), _continued()  # (stopped meanwhile, it used none: not waiting)
        if self.inside and (self.stopping or (used - self.used < IDLE_SHARE * self.idle and not continued)):
            self._stop(self.stopping or _Waiting)
        self.used = used

    def _stop(self, error: type[_Timeout]) -> None:
        self.inside, self.stopping = False, error
        raise error()

    def _swallowed(self, unraisable: Any) -> None:
        """sys.unraisablehook while the game plays: this alarm's stop, swallowed, is raised again (and not
        printed: it was a traceback in the terminal); the first other error is kept, to be said as the game's
        failure (each was a traceback in the terminal, and the run was said ok)."""
        error = unraisable.exc_value
        if self._stopping() is None or not isinstance(error, _Timeout):
            self._keep(error, unraisable.exc_traceback)
            return
        if self.swallowed is None:  # where it was swallowed: the rules' line a message names
            self.swallowed = _with_traceback(unraisable.exc_value, unraisable.exc_traceback)
        if self.armed:
            self.inside = True
            _OWN_SETITIMER(signal.ITIMER_REAL, STOP_AGAIN, self.idle)

    def _thread_raised(self, raised: Any) -> None:
        """threading.excepthook while the game plays: an exception that ended a thread the rules started, kept
        as one Python ignored (_swallowed) to be said as the game's failure at its line: it was a traceback in
        the terminal for each game, and the run was said ok."""
        self._keep(raised.exc_value, raised.exc_traceback)

    def _keep(self, error: object, traceback: TracebackType | None) -> None:
        """The first error Python ignored in the game (other than this alarm's stop), kept with its traceback and
        the game's turn then, to be said as the game's failure; Python gives None where there is none."""
        if self.unraised is None and isinstance(error, BaseException):
            self.unraised, self.unraised_turn = _with_traceback(error, traceback), self.turn[0]

    def __exit__(self, *exc: object) -> Literal[False]:
        self.inside = False
        sys.unraisablehook, threading.excepthook = self.previous_hook, self.previous_thread_hook
        if self.cpu_limit is not None:
            _set_processor_limit(self.cpu_limit)
        if self.armed:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            _OWN_SETITIMER(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGVTALRM, handler_after_alarm(self.previous))
            _OWN_SIGNAL(signal.SIGALRM, handler_after_alarm(self.previous_real))
        stopping = self._stopping()
        if stopping is not None and exc[0] is None:  # stopped, but swallowed every time it was raised again
            raise stopping()
        return False

    def _stopping(self) -> type[_Timeout] | None:
        """The stop raised in the game, if one was."""
        return self.stopping


def _with_traceback(error: BaseException, traceback: TracebackType | None) -> BaseException:
    """The error with its traceback set by Python's own method: the rules' error class may override
    with_traceback, and its failure in one of Python's hooks (sys.unraisablehook, threading.excepthook) was
    printed as a traceback, the error lost (between two games, where no bound holds, a loop in it ran unbounded)."""
    return BaseException.with_traceback(error, traceback)


_IGNORED: list[BaseException] = []  # the first error of the rules Python ignored between two of pnp's bounds


def keep_ignored_between() -> Callable[[], None]:
    """From now on, in a process playing the rules, an error Python ignores outside a bound of pnp's (_alarm: a
    game, its letting go, the rules' loading) is kept, not printed, and the next bound takes it as one raised in
    it (said as the next game's failure at the rules' line); what puts the hooks before back. A thread the rules
    started that raised between two games, or a __del__ run there, was a traceback in the terminal, the run said
    ok. One kept after the process's last bound is said by ignored_after; one raised after the process ended,
    nowhere."""
    previous = sys.unraisablehook, threading.excepthook
    _IGNORED.clear()  # (a worker forked with one of the process that started it: said there, if anywhere)

    def kept(ignored: Any) -> None:
        if not _IGNORED and isinstance(ignored.exc_value, BaseException):  # (None where a thread gave none)
            _IGNORED.append(_with_traceback(ignored.exc_value, ignored.exc_traceback))

    sys.unraisablehook = threading.excepthook = kept

    def put_back() -> None:
        sys.unraisablehook, threading.excepthook = previous
        _IGNORED.clear()

    return put_back


def hold_continue() -> None:
    """In a process playing the rules: SIGCONT, which continues a stopped process whatever its mask, kept pending
    (blocked) for _continued to tell. Threads and processes the rules start later hold it too."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCONT})


def _continued() -> bool:
    """Whether this process was stopped and continued since this was last asked (a SIGCONT is pending, see
    hold_continue); the SIGCONT taken. A game stopped with pnp (Ctrl-Z, see _ctrl_z_passed_on) used no processor
    time while stopped, and was said to have waited for good once continued, its run failed."""
    if not hasattr(signal, "sigpending") or signal.SIGCONT not in signal.sigpending():
        return False
    signal.sigwait({signal.SIGCONT})
    return True


STOP_AGAIN = 0.001  # seconds after which a game's stop that Python swallowed is raised again (each __del__ the
# collector runs may swallow it: 700 at most, by its default threshold)


def stop_hard_past_timeouts() -> None:
    """In a process pnp started to play the rules: from now on each game's timeout is backed by the system's
    limit of processor time (_limit_processor_time), and the process ends without a core file."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
        _HARD_STOP["on"] = True
    except (ImportError, OSError, ValueError):
        pass


# calls deep the rules may have Python's recursion limit let them go (sys.setrecursionlimit), in the processes
# playing them: frames of 50,000 calls take tens of MB, within a worker's least share of the memory, and C's
# stack holds Python's own recursion (repr of nested lists) that deep
MAX_RECURSION_LIMIT = 50_000
# and the least: pnp's own code in those processes (its pool, sending a game's results) runs between two calls of
# the rules, under the limit they set; rules lowering it to 40 in __init__ failed there, said as 'This is a bug in
# pnp' (RecursionError) with no line of theirs
MIN_RECURSION_LIMIT = 200


def bound_recursion_limit() -> None:
    """In a process pnp started to play the rules: sys.setrecursionlimit refuses a limit past
    MAX_RECURSION_LIMIT, or under MIN_RECURSION_LIMIT, said at the rules' line that set it. Rules that set it to 10**9 and recursed for good
    ran 45 s to the end of their memory (1 GB), said in CPython's words ('SystemError: error return without
    exception set'), or ended their process on C's stack; within the bound they recurse into a RecursionError
    at once, said as recursing without end."""
    set_limit = sys.setrecursionlimit

    def bounded(limit: int, /) -> None:
        if isinstance(limit, int) and limit > MAX_RECURSION_LIMIT:
            raise ValueError(f"pnp plays the rules with a recursion limit of at most {MAX_RECURSION_LIMIT:,} calls, "
                             f"not {limit:,}")
        if isinstance(limit, int) and limit < MIN_RECURSION_LIMIT:
            raise ValueError(f"pnp plays the rules with a recursion limit of at least {MIN_RECURSION_LIMIT:,} calls "
                             f"(its own code runs under it between two calls of theirs), not {limit:,}")
        set_limit(limit)

    sys.setrecursionlimit = bounded


# pnp's own, as the rules cannot change them (guard_idle_alarm); no timer where the system has none (_alarm unarmed)
_OWN_SIGNAL, _OWN_SETITIMER = signal.signal, cast(Callable[..., Any], getattr(signal, "setitimer", None))


def guard_idle_alarm() -> None:
    """In a process pnp started to play the rules: the signal of the check that a game still plays (SIGALRM,
    _alarm's wall-time timer) is pnp's; the rules' handling, blocking or timing of it (signal.signal,
    pthread_sigmask, setitimer's ITIMER_REAL, alarm), and a wait no signal ends (sigwait), are refused at their
    line. Rules that ignored or blocked it
    and slept played one game for good, past every bound (the processor-time limits see no sleeping)."""
    if not hasattr(signal, "SIGALRM") or not hasattr(signal, "setitimer"):
        return
    refusal = "pnp's check that a game still plays uses SIGALRM and the real-time timer: the rules may not {}"
    set_handler, set_mask, set_timer = signal.signal, signal.pthread_sigmask, signal.setitimer

    def handler(signum: int, action: Any, /) -> Any:
        if signum == signal.SIGALRM:
            raise ValueError(refusal.format("handle it (signal.signal)"))
        return set_handler(signum, action)

    def mask(how: int, signals: Iterable[int], /) -> Any:
        signals = list(signals)
        if how != signal.SIG_UNBLOCK and signal.SIGALRM in signals:
            raise ValueError(refusal.format("block it (signal.pthread_sigmask)"))
        return set_mask(how, signals)

    def timer(which: int, seconds: float, interval: float = 0.0, /) -> tuple[float, float]:
        if which == signal.ITIMER_REAL:
            raise ValueError(refusal.format("set the real-time timer (signal.setitimer)"))
        return set_timer(which, seconds, interval)

    def alarm(seconds: int, /) -> int:
        raise ValueError(refusal.format("set an alarm (signal.alarm)"))

    def wait(sigset: Iterable[int]) -> signal.Signals:  # (a signal outside the set does not end the system's sigwait:
        # its handler, the check's, waits with it; sigwaitinfo and sigtimedwait are ended by it)
        raise ValueError(refusal.format("wait for a signal (signal.sigwait), which no alarm ends"))

    signal.signal, signal.pthread_sigmask, signal.setitimer = handler, mask, timer  # type: ignore[assignment]
    signal.alarm, signal.sigwait = alarm, wait


def _guard_rules_process() -> None:
    """What a process playing the rules sets before they load, the one that loaded them and each worker of
    --jobs N alike (the workers' list lacked guard_idle_alarm: a worker started afresh, not forked, had none)."""
    stop_hard_past_timeouts()
    bound_recursion_limit()
    guard_idle_alarm()
    unprinted_c_faults()
    keep_ignored_between()


def unprinted_c_faults() -> None:
    """In a process pnp started to play the rules: an exception that CPython's C code prints as it goes
    (PyErr_Print, through sys.excepthook) is not printed. There no exception of the rules reaches that hook (each
    is caught and said at its line); what does was raised by no line (it has no traceback), and printed before
    pnp's message, without a file or a line: rules whose `bytearray(b"a") * n` went past their memory printed
    'SystemError: deallocated bytearray object has exported buffers' (CPython 3.11 freeing the bytearray it
    could not make), then pnp's MemoryError at their line. One with a traceback (the rules calling the hook
    themselves) is printed as before."""
    printed = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, traceback: TracebackType | None) -> None:
        if traceback is not None:
            printed(kind, error, traceback)

    sys.excepthook = hook


def _limit_processor_time(seconds: float) -> tuple[int, int] | None:
    """Have the system end this process once it has used `seconds` more processor time (SIGXCPU); the limits
    it had, to be set back when the game ends, or None where the system cannot say or set them."""
    try:
        import resource

        before = resource.getrlimit(resource.RLIMIT_CPU)
        soft, hard = before
        cap = math.ceil(time.process_time() + seconds)
        if (soft == resource.RLIM_INFINITY or soft > cap) and (hard == resource.RLIM_INFINITY or hard > cap):
            resource.setrlimit(resource.RLIMIT_CPU, (cap, hard))
        return before
    except (ImportError, OSError, ValueError):
        return None


def _set_processor_limit(limits: tuple[int, int]) -> None:
    with contextlib.suppress(ImportError, OSError, ValueError):
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, limits)


_WORKER: dict[str, Any] = {}  # a worker process's "rules" (GameRules) and "options" (Options)


def _start_worker(source: RulesSource, game_id: str, game_data: GameData, options: Options, workers: int) -> None:
    path, shown = source.path, source.shown
    end_with_parent()  # (the games of a run whose pnp ended are played for no one)
    _PLAYER["pid"] = os.getpid()
    _end_when_done()
    _guard_rules_process()  # (for the worker's life)
    _cap_memory(RULES_MEMORY // (workers + 1), inherited=True)  # (see _play_apart)
    hold_continue()
    _tell_ctrl_c()
    _WORKER["options"] = options
    LOGGED.lines = 0
    # made again here, where the rules' code may do otherwise than it did in the process that loaded them (its
    # __init__ run a second time, or the module's top in a process started afresh): a failure, a loop or a wait
    # there is said as it is there, at its line (it was a traceback and 'a process ended without a word', or a
    # run held for good); the worker's first chunk raises it
    try:
        with _loading(shown, path, options):
            _WORKER["rules"] = rules_made(rules_class(source, game_id), game_data)
    except DataError as e:
        _WORKER["refused"] = e


def _end_when_done() -> None:
    """End this process as soon as its work is done, last of its exit steps: Python then waits for every thread
    still running, and a thread the rules started (to sleep, to serve) held the run, and pnp, for good. Its
    results are sent by then (a worker's go through a queue written at once)."""
    Finalize(None, os._exit, args=(0,), exitpriority=-1)


def stops_run(result: GameResult, failed: int) -> bool:
    """Whether the run stops after this game, `failed` games having failed with it: at its MAX_FAILURES_KEPT-th
    failed game (a failed run writes no figures: the games after these few would only be counted), or at the
    first that ran out of processor time (rules looping for good spent the timeout on each of those few: ten
    minutes for a run whose games need a second)."""
    return result.timed_out or failed >= MAX_FAILURES_KEPT


def _play_chunk(chunk: list[Scheduled]) -> list[GameResult]:
    """The chunk's games in order, up to the one where the run stops (stops_run: the run stops there, _played)."""
    if "refused" in _WORKER:  # the worker could not make the rules (_start_worker)
        raise _WORKER["refused"]
    played: list[GameResult] = []
    failed = 0
    for game in chunk:
        played.append(result := play(_WORKER["rules"], _WORKER["options"], *game))
        failed += bool(result.failure)
        if stops_run(result, failed):
            break
    if not played[-1].failure and (after := ignored_after(_WORKER["rules"], "after the game")):
        played[-1].failure, played[-1].line = after[0], after[1].line  # (the worker's next chunk may be none)
    return played


def run(rules: GameRules, options: Options, progress: Callable[[int], object] | None = None,
        data: GameData | None = None) -> Iterator[GameResult]:
    """Every game of the run as it is played, in game order (the same games whatever options.jobs); progress(n)
    after each n. `data`: the game data the rules were made with, which each worker makes its own Rules with
    (pnp's copy, from loaded_rules; else the rules' `game`, which rules whose __init__ set `self.game = None`
    made a bug in pnp with --jobs 2, where --jobs 1 said their games' faults)."""
    data = data if data is not None else rules.game
    games = schedule(options)
    LOGGED.lines = 0
    workers, size = pool_shape(options)
    if not workers:
        for game in games:
            yield play(rules, options, *game)
            if progress:
                progress(1)
        return
    chunks = iter(lambda: list(itertools.islice(games, size)), [])  # (made as the pool is given them: _in_order)
    source = source_of(type(rules))
    try:
        pool = ProcessPoolExecutor(workers, mp_context=worker_context(), initializer=_start_worker,
                                   initargs=(source, data.id, data, options, workers))
        finished = False
        try:
            for done in _in_order(pool, chunks, CHUNKS_AHEAD * workers):
                yield from done
                if progress:
                    progress(len(done))
            finished = True
        finally:  # the run stopped (stops_run, in _played) or ended: the chunks not begun are never played
            if not finished:  # and those begun are not played on: a worker waited for played its chunk's games
                # on, and those queued to it, each up to its timeout when the rules loop (minutes, for nothing)
                for process in list(pool._processes.values()):
                    process.kill()
            # not waited for once they are killed: a worker killed half way through sending its chunk's results
            # leaves the pool's own thread reading the rest for good (the pool's reader has no end while this
            # process holds the queue's other end), and the run would never end
            pool.shutdown(wait=finished, cancel_futures=True)
    except _StoppedProcess:
        raise DataError(STOPPED, Mark(source.shown)) from None
    except BrokenProcessPool:  # (a traceback): the rules ended their process (os._exit), or it was killed
        then = "; run with --jobs 1 to see in which game"
        raise crashed(source.shown, (source.path,), then) or DataError(ENDED + then, Mark(source.shown)) from None


def pool_shape(options: Options) -> tuple[int, int]:
    """The workers a run's games are played by (0: by the process that loaded the rules, alone) and the games of
    each chunk they are given."""
    count = games_in(options)
    if options.jobs <= 1 or count < 2:
        return 0, count
    most = min(options.jobs, usable_cores(), MAX_WORKERS)  # each worker with a useful share of the memory
    size = max(1, min(50, count // (most * 8)))
    return min(most, -(-count // size)), size


CHUNKS_AHEAD = 4  # chunks per worker given to the pool past the one the run waits for (see _in_order)


def _in_order(pool: ProcessPoolExecutor, chunks: Iterable[list[Scheduled]], ahead: int) -> Iterator[list[GameResult]]:
    """Each chunk's games as played, in the chunks' order, given to the pool in that order, at most `ahead` chunks
    past the one waited for; each let go once yielded. All given at once, the workers played on past a chunk
    slow to come (a game of a minute) and every chunk they played was kept until that one came: 5 MB a second
    of results held here, past 1 GB in a run of a million games. Stopped, it leaves the chunks not yet played
    to the pool's shutdown, which cancels them in the pool's own thread: pool.map cancelled them in this one,
    as the run killed the workers (a stopped run, Ctrl-C), and the pool's thread, finding them killed, failed
    every chunk not played, one this thread had just cancelled among them, and printed a traceback
    (InvalidStateError: CANCELLED) as the run ended."""
    given = iter(chunks)
    waiting: collections.deque[Future[list[GameResult]]] = collections.deque()

    def give(count: int) -> None:
        with ctrl_c_held():  # (the workers are started by the first: see ctrl_c_held)
            waiting.extend(pool.submit(_play_chunk, chunk) for chunk in itertools.islice(given, count))

    give(ahead + 1)
    while waiting:
        done = _result(waiting.popleft(), pool)
        give(1)
        yield done


def _result(future: "Future[list[GameResult]]", pool: ProcessPoolExecutor) -> list[GameResult]:
    """A chunk's games once played; _StoppedProcess where a worker of the pool is stopped meanwhile (it never
    plays on, and the run waited for it for good)."""
    while True:
        try:
            return future.result(ENDED_CHECK)
        except TimeoutError:
            if any(_stopped(pid) for pid in list(pool._processes)):
                raise _StoppedProcess from None


ENDED = ("a process playing the games ended without a word: the rules ended it (os._exit, a crash), a game ran past "
         "its processor time inside one call nothing interrupts, or the system killed it (out of memory?)")
# said when a MemoryError reached pnp's own code in a process playing the rules (sending a game's results, between
# two games): pnp takes little there, the rules held the memory (the resident-memory watcher raising again, 1 s
# after rules that caught its first MemoryError went on holding it; the limit of address space, reached by pnp's
# next allocation) and it was a bug in pnp
HELD = ("the rules held more than the {room:,} MB of memory they may take beyond pnp's{bound} past a call of theirs, "
        "so pnp could not go on playing: a MemoryError they caught (`except Exception`?) as they kept what they took")
# said instead when it was stopped (SIGSTOP) and would never end
STOPPED = ("the process playing the games was stopped (SIGSTOP or SIGTSTP: sent by the rules, or by someone): "
           "a stopped process plays nothing and never ends; the run was ended")
# said instead when the system ended it at a game's processor time (HARD_STOP_GRACE): the rules were inside one
# call of Python's that no signal interrupts
OUT_OF_TIME = ("a game ran past its {seconds:g} s of processor time inside one call of Python's own that nothing "
               "interrupts (a loop in a built-in, e.g. `x in itertools.count()`): the process playing it was ended; "
               "run with --log to see the last moves")
# said instead when that happened as the rules loaded, before any game (`x = 9**9**9` at the top of rules.py was
# said as a game, to be seen with --log, which shows nothing then)
LOAD_OUT_OF_TIME = ("the rules ran past {seconds:g} s of processor time as they loaded, inside one call of Python's "
                    "own that nothing interrupts (a huge number, e.g. `9**9**9`, or a loop in a built-in at the top of "
                    "rules.py, in __init__ or in ITEMS): the process loading them was ended")


@dataclass
class Played:
    """A run's games, folded into their statistics, and what the statistics read of the rules that played them."""

    tally: Tally
    items: dict[str, str]  # the rules' ITEMS
    end_reasons: list[str]  # their END_REASONS
    shown: str  # the rules file as messages name it
    names: dict[ItemKey, str]  # (table, id) -> the item's name, of every item of the tables of ITEMS


def item_names(game: Game, items: Iterable[str]) -> dict[ItemKey, str]:
    """(table, id) -> the item's name (its id when it has none), of every item of the tables `items` names, cut
    to the length simulation.json's reader takes: a card named in 283 characters (its schema allowing them) was
    written whole, and the report dropped the item as 'not what `pnp simulate` writes' (the rulebook refused the
    whole file)."""
    return {(table, str(it["id"])): shortened(str(it.get("name", it["id"])), MAX_TEXT) for table in items
            for it in game.tables.get(table, ()) if "id" in it}


def refuse_unknown_items(result: GameResult, known: Collection[ItemKey], rules: type[GameRules], tally: Tally) -> None:
    """A game whose rules tracked an item of no table of ITEMS ((table, id) not in `known`) failed: kept, it was
    printed as a dead item of no table with exit 0, and the report refused the file simulate wrote. So did a
    game ending a way, or naming an event, past the MAX_END_REASONS the run's file may hold (the report refused
    it too)."""
    if result.failure:
        return
    tracked = itertools.chain(result.available, *(items for events in result.events for items in events.values()))
    unknown = next((item for item in tracked if item not in known), None)
    if unknown is not None:
        table, item = unknown
        result.failure = (f"turn {result.turns}: tracked returned the item ({said(table)}, {said(item)}), which "
                          "is no item of a table of ITEMS")
        result.line = hook_line(rules, "tracked")
    elif result.end not in tally.ends and len(tally.ends) >= MAX_END_REASONS:
        result.failure = (f"turn {result.turns}: end_reason returned {said(result.end)}, a way to end past the "
                          f"{MAX_END_REASONS} a run may count")
        result.line = hook_line(rules, "end_reason")
    elif len(tally.items.event_names.union(*result.events)) > MAX_END_REASONS:
        result.failure = (f"turn {result.turns}: tracked returned events past the {MAX_END_REASONS} names a run "
                          "may count")
        result.line = hook_line(rules, "tracked")


def run_apart(project: Project, game: Game, options: Options,
              progress: Callable[[int], object] | None = None) -> Played:
    """Load the game's rules and play the run in a process of its own, forked (nothing is copied), so that what
    the rules do to their process stays there: os._exit(0) in them ended pnp with exit 0 and not a word, and a
    thread they started kept pnp running for good. That process leads a session, and so a process group, of its
    own, which pnp ends whole once the run has ended, failed or been stopped (_end_rules): a process the rules
    forked outlived pnp, holding its standard output open (`pnp simulate ... | tail` waited until it ended).
    Ctrl-C and Ctrl-Z, which the terminal sends to pnp's group alone, pnp passes on to it. DataError as load_rules and run
    raise it. Where no process can be forked (Windows) the run plays in pnp's own."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return _played(project, game, options, progress)
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=_play_apart, args=(sending, receiving, project, game, options), name="pnp-rules")
    _CRASHES["read"], _CRASHES["write"] = os.pipe()
    os.set_blocking(_CRASHES["write"], False)  # (a crash reported never waits on a pipe that is full)
    os.set_blocking(_CRASHES["read"], False)  # (a process the rules forked may hold it open: read what is there)
    try:
        with _orphans_ended():
            return _run_in(child, sending, receiving, project, game, options, progress)
    finally:
        for end in ("read", "write"):
            os.close(_CRASHES.pop(end))


_CRASHES: dict[str, int] = {}  # the ends ("read", "write") of the pipe that the process playing the rules, and the
# workers it starts, have Python's faulthandler write the traceback of a crash to, for pnp's process, or that
# process (a worker's), to read (see crashed)


def _run_in(child: BaseProcess, sending: Connection, receiving: Connection, project: Project, game: Game,
            options: Options, progress: Callable[[int], object] | None) -> Played:
    """run_apart's run in `child`, started here and ended whole (_end_rules) however the run ends."""
    loaded = False  # whether the rules loaded, and the games began
    patience = 5.0  # seconds the process playing the rules is given to end of itself
    try:
        with ctrl_c_held():  # let in once it can stop quietly (see _play_apart)
            child.start()
        sending.close()
        with _ctrl_z_passed_on(child):
            while True:
                try:
                    kind, value = _message(receiving, child)
                except _StoppedProcess:  # killed at once (_end_rules): a stopped process never ends of itself
                    patience = 0.0
                    raise DataError(STOPPED, Mark(project.rel(game.folder / RULES_FILE))) from None
                except EOFError:  # it ended before it said how the games went
                    _ended(child, 5)
                    raise _ended_unsaid(child, project, game, options, loaded) from None
                if kind == "loaded":
                    loaded = True
                elif kind == "played":
                    return cast(Played, value)
                elif kind == "raised":
                    raise cast(BaseException, value)
                elif progress:
                    progress(value)
    except KeyboardInterrupt:  # Ctrl-C reached pnp alone: passed on, the rules' process stops without a word
        if child.pid is not None and child.exitcode is None:
            os.kill(child.pid, signal.SIGINT)
        raise
    finally:
        sending.close()
        receiving.close()
        _end_rules(child, patience)


def _ended_unsaid(child: BaseProcess, project: Project, game: Game, options: Options, loaded: bool) -> DataError:
    """The refusal of a run whose process playing the rules ended before it said how the games went: ended by
    the system past a game's processor time, or crashed, said at the rules' line that was running (a crash in C
    code the rules called, ctypes' or a library's, was said at no line), or else ENDED."""
    shown = project.rel(game.folder / RULES_FILE)
    if child.exitcode == -signal.SIGXCPU:
        return DataError((OUT_OF_TIME if loaded else LOAD_OUT_OF_TIME).format(seconds=options.timeout), Mark(shown))
    path = game.folder / RULES_FILE
    return crashed(shown, (str(path), os.path.realpath(path))) or DataError(ENDED, Mark(shown))


def crashed(shown: str, paths: Iterable[str], then: str = "") -> DataError | None:
    """The refusal of a run whose process (pnp's child playing the rules, or a worker of that child's) crashed
    (a fatal signal: SIGSEGV, SIGABRT), at the rules' line innermost in the traceback faulthandler wrote of it
    (see _CRASHES), `then` said after; None when no crash was reported, or none at a line of the rules (at
    `paths`, as they were compiled). A crash in C code the rules called (ctypes', a library's) was said to have
    ended the process without a word, at no line. faulthandler writes a name's characters past ASCII as
    backslashreplace does, and a line in many writes: two workers crashing at once may garble each other's
    report, said then as ENDED."""
    report = b""
    with contextlib.suppress(OSError, KeyError):  # (BlockingIOError: nothing more; KeyError: no pipe)
        while len(report) < MAX_CRASH_REPORT and (chunk := os.read(_CRASHES["read"], MAX_CRASH_REPORT)):
            report += chunk
    text = report.decode("ascii", "replace")
    names = {path.encode("ascii", "backslashreplace").decode("ascii") for path in paths}
    line = next((int(found[2]) for found in re.finditer(r'^  File "(.*)", line (\d+)', text, re.MULTILINE)
                 if found[1] in names), None)
    if line is None:
        return None
    what = re.search(r"^Fatal Python error: (.{1,80})$", text, re.MULTILINE)
    return DataError(f"a process playing the games crashed ({what[1] if what else 'a fatal signal'}) in a call the rules "
                     f"make at this line (into C code: ctypes, a library's?){then}", Mark(shown, line, 1))


MAX_CRASH_REPORT = 1 << 16  # bytes of faulthandler's report read at most (each is a few KB: 100 frames at most)


@contextlib.contextmanager
def _ctrl_z_passed_on(child: BaseProcess) -> Iterator[None]:
    """Ctrl-Z (SIGTSTP, which the terminal sends to pnp's group alone) passed on while the rules play: their
    process group is stopped (SIGSTOP) with pnp, and continued with it. They played on, using the processor,
    while pnp was stopped; and pnp's handling of SIGTERM and SIGHUP is held until the rules are continued: a
    job killed while stopped (the shell's `kill %1`) left them stopped for good. Where this is not the main
    thread, or SIGTSTP is not the system's default (ignored, a caller's own), nothing."""
    if child.pid is None or not hasattr(signal, "SIGTSTP") or not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTSTP) != signal.SIG_DFL:
        yield
        return
    group = child.pid

    def pause(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(OSError):  # (ended already)
            os.killpg(group, signal.SIGSTOP)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGHUP})
        try:
            signal.signal(signal.SIGTSTP, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTSTP)  # (stopped here until continued: `fg`, `bg`, SIGCONT)
            signal.signal(signal.SIGTSTP, pause)
        finally:
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGCONT)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    signal.signal(signal.SIGTSTP, pause)
    try:
        yield
    finally:
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)


def _end_rules(child: BaseProcess, patience: float = 5.0) -> None:
    """The process playing the rules waited for (it ends itself once it has sent the games, see _play_apart,
    or once Ctrl-C reached it), then every process of its group killed: what the rules forked, or started
    with --jobs N, never outlives the run. The group is the one the process leads (its id is the process's):
    the id of a group is not given to another process while the group has one, so no other process is
    reached. A process the rules start in a group or session of their own (os.setpgid, os.setsid) leaves the
    group: it is ended once orphaned (_orphans_ended)."""
    if child.pid is None:  # (never started)
        return
    _ended(child, patience)
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):  # (none left; or not yet its own group)
            os.killpg(child.pid, signal.SIGKILL)
    if child.is_alive():
        child.kill()
        child.join()


PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37  # Linux's prctl options (linux/prctl.h)
STRAYS_PATIENCE = 2.0  # seconds spent at most ending the processes the rules left (a fork loop forks on)


@contextlib.contextmanager
def _orphans_ended() -> Iterator[None]:
    """While the rules play, this process (pnp's) made the one their orphans are given to (Linux's child
    subreaper), and every such orphan ended, with what it started, once the run is over: a process the rules
    forked that leaves their group (os.setsid or os.setpgid in it, a daemon's double fork) escaped _end_rules'
    kill of the group, and played on after pnp had ended, holding pnp's standard output open (`pnp simulate |
    tail` waited for it). Orphans come here once their parent has ended; the processes pnp had started before
    are left alone. Where the system has no subreaper (not Linux) or no list of a process's children, nothing:
    those processes are the rules'. A pnp that is killed (SIGKILL) ends none of them."""
    prctl = _prctl()
    if prctl is None or not (_TASKS / str(threading.get_native_id()) / "children").exists():
        yield
        return
    was = ctypes.c_int(0)
    prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    before = _children()
    try:
        yield
    finally:
        _end_strays(before)
        if not was.value:
            prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


PR_SET_PDEATHSIG = 1  # (linux/prctl.h)


def _continued_as_pnp_ends() -> None:
    """In the process playing the rules, on Linux: sent SIGCONT by the system as pnp ends, which continues it
    if stopped, for its watch of pnp (end_with_parent) to end its group. pnp killed (SIGKILL, which no handler
    sees) while stopped with the rules by Ctrl-Z (_ctrl_z_passed_on) left them stopped for good, that watch
    stopped with them. SIGCONT, not SIGKILL: the system sends it as the thread of pnp that started this process
    ends, which may be before pnp does; continuing a process that is not stopped does nothing, and the signal,
    held pending (hold_continue), is taken for a stop that was not, which only defers the look at whether the
    game waits (_continued). Elsewhere nothing: there a pnp killed while stopped leaves them stopped."""
    prctl = _prctl()
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGCONT, 0, 0, 0)


_TASKS = Path("/proc/self/task")  # (the process's threads, each listing its children: Linux)


def _prctl() -> Callable[..., int] | None:
    """The C library's prctl, where the system is Linux."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return cast(Callable[..., int], ctypes.CDLL(None, use_errno=True).prctl)
    except (OSError, AttributeError):
        return None


def _children() -> set[int]:
    """The ids of this process's children, of all its threads."""
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for task in _TASKS.iterdir():
            with contextlib.suppress(OSError, ValueError):
                found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


def _end_strays(before: set[int]) -> None:
    """Every child of this process not among `before` killed and reaped, until none is left: a child killed
    gives its own children here (the subreaper), to be killed next."""
    deadline = time.monotonic() + STRAYS_PATIENCE
    while (strays := _children() - before) and time.monotonic() < deadline:
        for pid in strays:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in strays:
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)


def _ended(child: BaseProcess, seconds: float) -> None:
    """Wait up to `seconds` for the process playing the rules to end. Told by its exit, not by Process.join,
    which waits on a pipe a process the rules forked holds too: it waited its whole time for that fork."""
    deadline = time.monotonic() + seconds
    while child.exitcode is None and time.monotonic() < deadline:
        time.sleep(ENDED_CHECK / 10)


def _message(receiving: Connection, child: BaseProcess) -> Any:
    """The next message of the process playing the rules; EOFError once it has ended without one. Its end is told
    by the process ending, not by the pipe's only: a process the rules forked (os.fork(), a pool of their own)
    holds the pipe open, and once the rules ended theirs (os._exit, a crash) pnp waited for a word for good. All
    it sent is in the pipe by the time it ends (a send returns once written)."""
    while not receiving.poll(ENDED_CHECK):
        if child.exitcode is not None and not receiving.poll():  # (its sentinel is a pipe the fork holds too)
            raise EOFError
        if _stopped(child.pid):
            raise _StoppedProcess
    return receiving.recv()


class _StoppedProcess(Exception):
    """The process playing the rules is stopped (job control's SIGSTOP, SIGTSTP)."""


def _stopped(pid: int | None) -> bool:
    """Whether a process playing the rules (a child of this one) is stopped: rules sending themselves SIGSTOP
    held pnp for good, a stopped process handling no alarm, so no timeout, and never ending. Asked without
    taking its state (WNOWAIT), which its end still gives Process.exitcode. Where the system cannot say (no
    waitid), never."""
    if pid is None or not hasattr(os, "waitid"):
        return False
    try:
        if os.waitid(os.P_PID, pid, os.WSTOPPED | os.WNOHANG | os.WNOWAIT) is None:
            return False
        time.sleep(ENDED_CHECK / 10)  # (and still stopped: a group pnp continues after Ctrl-Z is continued
        # one process after another, and a worker seen before its turn was said stopped by someone)
        return os.waitid(os.P_PID, pid, os.WSTOPPED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # (ended and reaped)
        return False


ENDED_CHECK = 0.1  # seconds between two looks at whether the process playing the rules has ended


def _played(project: Project, game: Game, options: Options, progress: Callable[[int], object] | None,
            loaded: Callable[[], object] | None = None) -> Played:
    """The run's games, played once the rules are loaded (then loaded() is called)."""
    put_back = keep_ignored_between()
    with contextlib.ExitStack() as stack, ctrl_c_told():
        stack.callback(put_back)
        rules, data, (items, end_reasons) = _loaded(project, game, options)
        if loaded:
            loaded()
        names = item_names(game, items)
        tally = Tally(options.players)
        for result in run(rules, options, progress, data):
            refuse_unknown_items(result, names, type(rules), tally)
            tally.add(result)
            if stops_run(result, tally.failed):
                break
        if after := ignored_after(rules, "after the run's last game"):
            raise DataError(*after)
        return Played(tally, items, end_reasons, source_of(type(rules)).shown, names)


def _interrupted(signum: int, frame: FrameType | None) -> None:
    """pnp's handler of SIGINT (Ctrl-C) where the rules play: api.Interrupted, told apart from a
    KeyboardInterrupt the rules raise."""
    raise api.Interrupted


def _tell_ctrl_c() -> Callable[[], object]:
    """Ctrl-C raised as api.Interrupted in this process from now on (where it is Python's own KeyboardInterrupt,
    and this is the main thread, which alone sets a handler); what puts the handler before back."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:  # (ignored, or a caller's own)
        return lambda: None
    previous = signal.signal(signal.SIGINT, _interrupted)
    return lambda: signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Ctrl-C held off in this thread (blocked: pending, not lost) while it starts processes to play the rules,
    which start with it held: a process Ctrl-C reached as it started, before it could take it as pnp's stop, printed
    a traceback (the process playing the rules, in end_with_parent; a worker of --jobs 2, 'Exception in
    initializer'). The process playing the rules lets it in once it can (_play_apart); a worker never does (the
    process that started it kills it once stopped). Where the system has no signal masks (Windows), nothing."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = _hold_ctrl_c()
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)  # (a Ctrl-C held meanwhile is raised now)


def _hold_ctrl_c() -> set[int]:
    """Ctrl-C blocked in this thread (where the system has signal masks); the signals blocked before."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else set()


def _let_ctrl_c_in() -> None:
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def ctrl_c_told() -> Iterator[None]:
    """Ctrl-C raised as api.Interrupted while the rules load and play, in whatever process plays them (pnp's
    own where none can be forked); Python's handler put back after."""
    restore = _tell_ctrl_c()
    try:
        yield
    finally:
        restore()


def _loaded(project: Project, game: Game,
            options: Options) -> tuple[GameRules, GameData, tuple[dict[str, str], list[str]]]:
    """loaded_rules within a game's processor time and idle check: the rules' code that runs as they load (the
    module's top, ITEMS, __init__) looping or waiting for good held pnp for good, where a game's is stopped."""
    with _loading(project.rel(game.folder / RULES_FILE), str(game.folder / RULES_FILE), options):
        return loaded_rules(project, game)


@contextlib.contextmanager
def _loading(shown: str, path: str, options: Options) -> Iterator[None]:
    """The rules' code that runs as they load (the module's top, ITEMS, __init__), in pnp's process playing them
    or in a worker of --jobs N, bounded as a game is: looping or waiting for good is a DataError at its line. So
    is an error Python ignored there (raised in a __del__, or in a thread the rules started), as in a game: it was
    lost without a word, the run said ok."""
    alarm = _alarm(options.timeout, options.idle)
    try:
        with alarm:
            yield
            end_if_forked()
            if (unraised := alarm.unraised) is not None:  # (said within the bound: its __str__ is the rules' code)
                raise DataError(f"the rules raised {raised(unraised)} as they loaded, where Python ignores it and "
                                "goes on (in a __del__, or a thread of theirs?)", code_mark(unraised, shown, path))
    except _Waiting as e:
        raise DataError(f"the rules waited {options.idle:g} s without doing anything as they loaded (a lock, a sleep "
                        "or input?)", code_mark(e, shown, path)) from None
    except _Timeout as e:
        raise DataError(f"the rules took more than {options.timeout:g} s of processor time to load (a loop at the "
                        "top of rules.py, in __init__ or in ITEMS?)", code_mark(e, shown, path)) from None


_MEMORY_FROM: dict[str, int] = {}  # "size": the address space pnp's process playing the rules had as it was capped,
# which the workers it forks inherit: their share is counted from it


def _cap_memory(room: int = RULES_MEMORY, inherited: bool = False) -> None:
    """Limit this process, the rules', and those it starts to `room` more address space than it has now:
    past it the rules' allocation raises MemoryError, a fault of the rules said at their line as any exception
    (rules keeping 3 GB a game ran past a minute, taking the machine's memory). With --jobs N the process that
    loads the rules and each worker are given RULES_MEMORY / (N + 1): each had its own RULES_MEMORY. With `inherited` (a worker forked from the
    process that loaded the rules) the share is counted from that process's size as it was capped: what the
    rules took there (the module's top, __init__) is the worker's too, its pages copied as the worker writes
    them (or touches a Python object on them), and each of N workers took that much again beyond its share
    (rules holding 700 MB at their top took 2.1 GB with --jobs 2). Where a limit this process started under is
    lower (a worker forked from the process that had made the rules, their memory counted already; a ulimit set
    on pnp), that one holds, and a MemoryError says the room it leaves: a worker whose rules' __init__ took
    600 MB was said 'past the 1,024 MB' with 424 MB left. Where the system cannot say or set it (no /proc,
    Windows), its own limits hold."""
    try:
        import resource

        # the watcher started first: its stack and the C library's memory for a thread (64 MB of address space)
        # are pnp's, not the rules' share (started after the limit, they took most of a worker's 128 MB)
        resident_cap = [sys.maxsize]
        watch_resident(resident_cap)
        with open("/proc/self/statm", "rb") as statm:
            size = int(statm.read().split()[0]) * resource.getpagesize()
        start = min(size, _MEMORY_FROM.get("size", size)) if inherited else size
        _MEMORY_FROM["size"] = start
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = start + room if hard == resource.RLIM_INFINITY else min(start + room, hard)
        if soft == resource.RLIM_INFINITY or soft >= cap:  # (a worker inherits its share: the same)
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
            left, bound = max(0, cap - size), f" (this process's share of the run's {RULES_MEMORY >> 20:,} MB)"
        else:
            cap, left, bound = soft, max(0, soft - size), " (what the memory limit this process started under leaves them)"
        api.memory_room, api.memory_bound = left, bound if left < RULES_MEMORY else ""
        with open("/proc/self/statm", "rb") as statm:
            resident = int(statm.read().split()[1]) * resource.getpagesize()
        # the room the limit of address space leaves, in memory held from now on: a worker's pages inherited from
        # the process that loaded the rules are held as it starts (pnp's too, counted with the rules' there by
        # the limit of address space, which still holds)
        resident_cap[0] = resident + max(0, cap - start)
    except (ImportError, OSError, ValueError, IndexError):
        pass


RESIDENT_POLL = 0.1  # seconds between two looks at the rules' process's resident memory: more often, its processor
# time (every 20 ms: 5 ms in 0.5 s) made rules sleeping as they loaded seem busy to the idle check (IDLE_SHARE)


def watch_resident(cap: list[int]) -> None:
    """A thread raising MemoryError in this process's main thread (where the rules play) as soon as its resident
    memory passes `cap[0]` bytes (set once the thread has started), looking every RESIDENT_POLL s for the process's
    life (none where the system has no /proc/self/statm to read it from): the second, honest bound of
    _cap_memory. A limit of address space counts only what the process maps anew, and a process forked from a
    heap holding much free space (pnp's, after it read a large game) filled that space unseen: rules forked from
    a test worker's heap took 700 MB of a 341 MB share. What the process holds in memory counts whatever the
    heap. Raised once the pages are touched, it is said at the rules' line as the limit's MemoryError is."""
    main = threading.main_thread().ident
    if not os.path.exists("/proc/self/statm"):  # (it looked there ten times a second in vain for good)
        return

    def look() -> None:
        page = os.sysconf("SC_PAGE_SIZE")
        waiting = threading.Event()  # (never set: waited on for its timeout)
        while not waiting.wait(RESIDENT_POLL):
            with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/self/statm", "rb") as statm:
                if int(statm.read().split()[1]) * page > cap[0] and main is not None and \
                        _SENDING.acquire(blocking=False):  # (else looked at again at the next poll)
                    try:
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main), ctypes.py_object(MemoryError))
                    finally:
                        _SENDING.release()
                    waiting.wait(RESIDENT_POLL * 10)  # (the exception's handling frees the memory meanwhile)

    threading.Thread(target=look, name="pnp-resident-memory", daemon=True).start()


# held while the process playing the rules writes a message to pnp: the resident watcher's MemoryError is not
# raised then, which would leave half a message in the pipe for pnp to read as the start of the next
_SENDING = threading.Lock()


def _send(sending: Connection, message: tuple[str, object]) -> None:
    with _SENDING:
        sending.send(message)


def _lead_own_group() -> None:
    """This process made the leader of a session of its own, and so of a process group that every process it
    starts joins, for pnp to end whole (_end_rules). A session, not only a group: a group of pnp's session
    other than the terminal's foreground one is stopped by the system as it opens and reads the terminal, or
    writes to it where the terminal says so (`stty tostop`), and the run waited for it for good; in a session
    of its own the terminal is none of its. Where there are no sessions (Windows), nothing."""
    if hasattr(os, "setsid"):
        with contextlib.suppress(OSError):  # (a leader already: never, a forked process is none)
            os.setsid()


def said_apart(error: BaseException, shown: str) -> BaseException:
    """What the process playing the rules sends pnp of an exception that stopped it: a MemoryError (raised in
    pnp's code there or in a worker, past every hook's) as the rules' refusal at `shown`, their file (see HELD),
    where it was 'a bug in pnp'; an OSError or a RuntimeError (Python's library failing on the process's
    state) too; any other as it is."""
    if isinstance(error, MemoryError):
        return DataError(HELD.format(room=api.memory_room >> 20, bound=api.memory_bound), Mark(shown))
    if isinstance(error, (OSError, RuntimeError)):  # Python's library failing pnp's own call there on the state
        # of a process the rules may have changed (sys.excepthook = None: no thread for --jobs' pool, 'sys.excepthook
        # is None'; RLIMIT_NOFILE lowered: no pipe for it): said in pnp's process it was 'This is a bug in pnp', or
        # for an OSError 'pnp: cannot write its output', at no file (pnp itself raises neither for a fault of its own)
        return DataError(f"pnp could not go on playing the rules in their process: {raised(error)} (something the "
                         "rules changed in it: one of sys's hooks, a system limit, a file they closed?)", Mark(shown))
    return error


def _play_apart(sending: Connection, receiving: Connection, project: Project, game: Game, options: Options) -> None:
    """run_apart's process: the games, or the exception that stopped them, sent back; then it ends at once,
    whatever threads the rules left running (Python would wait for them). Its copy of pnp's end of the pipe
    (`receiving`, forked with it) is closed first: held, the pipe outlived pnp, and a pnp that was ended (kill,
    an editor's stop button) left this process playing its games for good; now its next game's progress finds
    no reader and it ends. It also ends with pnp as every worker does (end_with_parent): with --jobs 2, that
    progress failing stopped the run, whose workers were killed, one half way through sending its games, and the
    pool's shutdown waited for the rest of them for good (pnp killed left this process behind, never ending).
    It starts with Ctrl-C held (ctrl_c_held), and lets it in once it is raised as api.Interrupted, which it
    ends on without a word."""
    try:
        _PLAYER["pid"] = os.getpid()
        _lead_own_group()
        hold_continue()
        _tell_ctrl_c()  # (for good: the process ends below)
        _let_ctrl_c_in()
        _continued_as_pnp_ends()
        end_with_parent(group=True)
        if "write" in _CRASHES:  # (inherited by the workers it starts)
            faulthandler.enable(_CRASHES["write"], all_threads=False)
        receiving.close()
        # the rules' memory shared by this process and the run's workers: a worker took all of it (N GB in all),
        # and what the rules hold here (their module's top, __init__) each worker copies as it writes it (or
        # touches a Python object in it), which no limit of address space sees
        _cap_memory(RULES_MEMORY // (pool_shape(options)[0] + 1))
        _guard_rules_process()  # (for the process's life: a thread of the rules may raise as the games are sent)
        played = _played(project, game, options, lambda n: _send(sending, ("progress", n)),
                         lambda: _send(sending, ("loaded", None)))
        _send(sending, ("played", played))
    except api.Interrupted:  # Ctrl-C reached pnp's process too, which says it
        pass
    except BaseException as e:  # a DataError said by pnp; anything else is pnp's own fault, said as such there
        e = said_apart(e, project.rel(game.folder / RULES_FILE))
        try:
            _send(sending, ("raised", e))
        except Exception:  # noqa: BLE001 - an exception that cannot be sent is said by its name and words
            _send(sending, ("raised", RuntimeError(f"{type(e).__name__}: {e}")))
    finally:
        _hold_ctrl_c()  # (a Ctrl-C now would be a traceback: the process ends anyway)
        for stream in (sys.stdout, sys.stderr):  # what the rules printed
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(0)
