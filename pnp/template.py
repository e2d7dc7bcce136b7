"""The one sandboxed Jinja environment, bounded in size, depth and time: every template and expression of a
game (constraints, derived fields, macros, layouts, the rulebook) is evaluated here and nowhere else."""

import _string  # type: ignore[import-not-found]  # (no stub) how str.format splits a field name
import ast
import collections
import contextlib
import contextvars
import dataclasses
import datetime
import decimal
import fractions
import functools
import gc
import inspect
import itertools
import math
import operator
import re
import reprlib
import resource
import signal
import string
import sys
import threading
import time
import types
from collections.abc import Callable, Set as AbstractSet, Generator, Hashable, ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, Sized, ValuesView
from pathlib import Path
from types import CodeType
from typing import Any, Literal, NoReturn, ParamSpec, TypeGuard, TypeVar, cast

import jinja2
import markupsafe
from jinja2 import StrictUndefined, TemplateError, TemplateRuntimeError, Undefined, nodes, pass_context, pass_environment
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.environment import Template, TemplateExpression, TemplateModule
from jinja2.filters import make_attrgetter
from jinja2.lexer import Token, TokenStream
from jinja2.parser import Parser
from jinja2.runtime import Context, LoopContext, Macro
from jinja2.exceptions import FilterArgumentError, SecurityError, TemplateSyntaxError, UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEscapeFormatter, SandboxedFormatter
from jinja2.utils import Cycler, Joiner, Namespace, missing

from .cache import DiskCache
from .errors import BudgetSpent, ExprError, LimitError
from .report import counted, did_you_mean, printable, shortened, shown, suggestions_bounded, type_name
from .options import closer_to_zero, too_close_to_zero

# What one template may build. Generous for any real card game, small enough that a mistake (or a hostile
# file) ends as a message in well under a second instead of a hang or a machine out of memory.
MAX_STRING = 1_000_000  # characters in one text, and in a template's whole output
MAX_ITEMS = 100_000  # items in a range or a list built by repetition
MAX_NUMBER_BITS = 4096  # about 1200 decimal digits
MAX_CALL_DEPTH = 100  # macros calling macros
MAX_SOURCE = 1_000_000  # characters in one template's source (a rulebook, a macros file)
MAX_TOKENS = 25_000  # words of one template's code (names, operators, tags...): what compiling costs (real: < 5,000)
MAX_NESTING = 50  # operators, brackets and blocks inside one another
MAX_BUILT_DEPTH = 100  # lists and mappings a template builds inside one another (as deep as a game's data may be)
MAX_WRAP_WORK = 200_000_000  # characters wordwrap may copy: its cost grows with text length x longest word / width
MAX_SCAN_WORK = 200_000_000  # characters x characters strip may compare (see _stripped_size)
MAX_PATTERN_WORK = 20_000_000  # steps a filter's regular expression may take in C, out of any limit's reach (~0.6 s)
SECONDS_PER_EVALUATION = 2.0
SECONDS_PER_GAME = 8.0  # all of a game's template work together, compiling included (see `budget`): the largest
# shipped game (DinoSpan) spends 2.6-3.3 s in a cold build (2.5 s of templates, 0.9 s of its 50 icons read and drawn
# once each: each was drawn again at each look before, 4.0-4.4 s with the disk cache off), and
# a processor shared with other work counts more (5 s stopped it in the test suite's build); 10 s let a hostile game
# run 10-11 s of CPU before stopping (seconds of processor time, so that a machine busy with other work does not
# stop a game)
MAX_MEMORY_GROWTH = 512 << 20  # bytes of memory a game's template work may add (see `budget`)
_clock = time.thread_time
_CHECK_EVERY = 256  # steps between two looks at the clock...
_CHECK_MEMORY_EVERY = 16 * _CHECK_EVERY  # ...and at the memory (a slower look), or as soon as...
_CHECK_BUILT = 1 << 20  # ...this many characters and items were built
_CALLS_PER_STEP = 16  # function calls of a library's work (see `metered`) that count as one step

# Internal class names that would otherwise leak into messages from Python's own errors.
_FRIENDLY = {"Record": "mapping", "Tracked": "mapping", "MarkedList": "list", "_Guarded": "list",
             "dict object": "mapping", "pnp.template.MissingMacros": "macros", "MissingMacros": "macros",
             "list object": "list", "str object": "text", "_Lazy": "a filter's result (`| list` makes it a list)",
             # what namespace(), cycler() and joiner() make, and a mapping's views (`| tojson` of them said "Object
             # of type _Namespace", "dict_items", and printing a cycler "<pnp.template._Cycler object>")
             "pnp.template._Namespace": "namespace", "pnp.template._Cycler": "cycler", "pnp.template._Joiner": "joiner",
             "_Namespace": "namespace", "_Cycler": "cycler", "_Joiner": "joiner",
             "dict_items": "a mapping's items() (`| list` makes a list)",
             "dict_keys": "a mapping's keys() (`| list` makes a list)",
             "dict_values": "a mapping's values() (`| list` makes a list)"}


class _Budget(threading.local):
    """The time and memory left to the game in progress on this thread (each thread evaluates on its own),
    and the bounds of the evaluation in progress."""

    games = 0  # budget() blocks open: the outermost one owns the game's budget
    owner: object | None = None  # the outermost open block's token (see `budget`)
    seconds_left: float | None = None  # the game's template time not yet spent; None outside a game
    memory_ceiling: int | None = None  # peak memory (bytes) the game, or an evaluation outside one, may reach
    # the LimitError that ended the game's budget: later work is skipped, not reported again
    stopped: LimitError | None = None
    started = 0.0  # when the outermost evaluation began
    deadline: float | None = None  # the outermost evaluation's end: the earlier of its own limit and the game's
    depth = 0  # nested render/evaluate calls: the outermost one owns the deadline
    charging = False  # inside `charged`: its time is counted by the outermost one
    evaluation = 0  # outermost evaluations begun: the one a namespace was made in (_Namespace)
    evaluated = 0  # outermost evaluations begun on this thread (see evaluations_made)
    call_depth = 0  # calls in progress inside templates (macros calling macros)
    doing: str | None = None  # the library whose work `metered` spends from the budget (svglib), None for a template
    steps = 0
    built = 0  # characters and items built since the last look at the clock and the memory

    def __init__(self) -> None:
        # source -> the error of the time limit it ran into: a template that ran out of time once is not run
        # again for the game's next item; the next game, or the next check of it (the preview), runs it anew
        self.too_slow: dict[str, ExprError] = {}
        # id -> (a container a template built, what _held counted of it, its depth) in the outermost evaluation in
        # progress: the container is kept, so its id names no other; templates cannot change one (no append).
        # What they hold of their own (items, characters of texts) is at most MAX_STRING (held_size): a loop's
        # values are not all kept alive
        self.held: dict[int, tuple[object, int, int]] = {}
        self.held_size = 0


_budget = _Budget()
_T = TypeVar("_T")
_P = ParamSpec("_P")
_R = TypeVar("_R")
_Node = TypeVar("_Node", bound=nodes.Node)


def _memory() -> int:
    """The process's resident memory now (Linux), else its peak so far: what a budget's ceiling is set from and
    checked against. Now, where it can be read: a long `pnp serve` freed what an earlier game used."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB, macOS bytes


_PAGE = resource.getpagesize()


def memory_now() -> int:
    """The process's resident memory now (Linux), else its peak so far."""
    return _memory()


def give_back_freed_memory() -> None:
    """Collect what cycles hold and hand the C allocator's free pages back to the system (glibc's malloc_trim;
    elsewhere nothing more): a picture-heavy game's drawing left 520 MB of freed buffers resident, and the
    all-in-one PDF's assembly, whose own memory came on top of them, took the build to 1.28 GB."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> "Callable[[int], int] | None":
    import ctypes  # (only where a build assembles: no command's start pays for it)

    try:
        return cast("Callable[[int], int]", ctypes.CDLL(None).malloc_trim)
    except (OSError, AttributeError):  # (not glibc: musl, macOS)
        return None


class _Timeout(LimitError):
    """One evaluation ran out of its own time (the same template would for the next item too)."""


def _stop(message: str) -> LimitError:
    """The error that ends the game's budget: said once, where the work was; later work raises BudgetSpent."""
    error = LimitError(message)
    if _budget.seconds_left is not None:
        _budget.stopped = error
    return error


def _over_game_time() -> str:
    """What is said where the game's time ran out: a library's work (`metered`) is not a template's."""
    if _budget.doing is not None:
        return (f"checking this game took longer than {SECONDS_PER_GAME:g} s of processing time in all; pnp stops "
                f"the game here, in {_budget.doing}")
    return (f"the game's templates took longer than {SECONDS_PER_GAME:g} s in all; pnp stops the game here "
            "(a loop that does far too much?)")


def tick(cost: int = 1) -> None:
    """One step of template work that built `cost` characters or items: every few hundred steps, or every
    million characters built, stop the work if it is over its time or memory."""
    budget_now = _budget
    budget_now.steps += 1
    budget_now.built += cost
    if budget_now.steps % _CHECK_EVERY and budget_now.built < _CHECK_BUILT:
        return
    _check_time(budget_now)
    if budget_now.built >= _CHECK_BUILT or budget_now.steps % _CHECK_MEMORY_EVERY == 0:
        budget_now.built = 0
        _check_memory(budget_now)


def _check_time(state: _Budget) -> None:
    now = _clock()
    if state.deadline is not None and now > state.deadline:
        if state.seconds_left is not None and now - state.started >= state.seconds_left:
            raise _stop(_over_game_time())
        raise _Timeout(f"took longer than {SECONDS_PER_EVALUATION:g} s; pnp stops a template there "
                       "(a loop that never ends, or loops nested too deep?)")


def _check_memory(state: _Budget) -> None:
    memory = _memory()
    if _memory_watchers:
        _memory_watchers[0](memory)
    if state.memory_ceiling is None:
        state.memory_ceiling = memory + MAX_MEMORY_GROWTH
    elif memory > state.memory_ceiling:
        raise _stop(f"the templates used more than {MAX_MEMORY_GROWTH >> 20:,} MB of memory; pnp stops there")


# who is told the process's memory at each look at it (at most one: `pnp build -j`'s worker, whose game must
# wait for room among the games the other workers hold, see kit.run.MemoryGate); it may wait, never raise
_memory_watchers: list[Callable[[int], None]] = []
_looks = [0]  # memory_checkpoint calls since its last look at the memory


def watch_memory(watcher: Callable[[int], None] | None) -> None:
    """Tell `watcher` the process's memory (bytes) at each look the budget takes at it, and at memory_checkpoint;
    None: tell no one."""
    _memory_watchers[:] = [] if watcher is None else [watcher]


def memory_checkpoint(coming: int = 0) -> None:
    """A step of work outside templates (drawing, decoding a picture): every _CHECK_EVERY steps, or before
    `coming` bytes are about to be needed, the watcher (if any) is told the memory now, plus `coming`."""
    if not _memory_watchers:
        return
    _looks[0] += 1
    if coming or _looks[0] >= _CHECK_EVERY:
        _looks[0] = 0
        _memory_watchers[0](_memory() + coming)


_collected_at = [0]  # the process's memory after budget's last full collection, or the least seen since


def _collected() -> int:
    """The process's memory now, what reference cycles hold collected first when it grew by more than an eighth
    of MAX_MEMORY_GROWTH since the last collection. A template stopped by an error leaves its values in a cycle
    (error, traceback, its frames): collected, an earlier game's 500 MB neither raise this game's ceiling (pnp
    serve reached 1.9 GB) nor count in it. A full pass over a preview's kept data costs ~0.1 s: not at every
    refresh that left little behind."""
    memory = _memory()
    _collected_at[0] = min(_collected_at[0], memory)  # (what was freed since counts as collected)
    if memory > _collected_at[0] + MAX_MEMORY_GROWTH // 8:
        gc.collect()
        memory = _collected_at[0] = _memory()
    return memory


@contextlib.contextmanager
def budget(seconds: float | None = None) -> Iterator[None]:
    """One budget of template time and memory for everything inside the block: one game's validation and
    build. A block inside another joins it (validating, then drawing, spends the same budget). Its did_you_mean
    spend from one bound too (suggestions_bounded), a layout's as well as the load's: 2,000 elements each placed
    `below` a misspelt name sharing a long prefix with the others compared every name with every other, past 300 s."""
    state = _budget
    # Each block changes the state only while the game it opened or joined is still the one in progress (its
    # owner): a block ended out of turn (a generator's, finalised by a collection inside a later game) would
    # otherwise count the blocks open below 0 or end the later game's budget, and every game after it joined a
    # budget that never ended, its time spent long ago (one CI run: 350 tests "took longer than 8 s in all").
    if state.games > 0:
        owner = state.owner
        state.games += 1
        try:
            yield
        finally:
            if state.owner is owner:
                state.games -= 1
        return
    saved = state.seconds_left, state.memory_ceiling, state.stopped, state.too_slow
    owner = state.owner = object()
    try:
        state.games, state.stopped, state.too_slow = 1, None, {}
        state.seconds_left = SECONDS_PER_GAME if seconds is None else seconds
        state.memory_ceiling = _collected() + MAX_MEMORY_GROWTH
        with suggestions_bounded():
            yield
    finally:
        if state.owner is owner:
            state.games, state.owner = 0, None
            state.seconds_left, state.memory_ceiling, state.stopped, state.too_slow = saved


class _Evaluation:
    """`with _EVALUATION:` around every render, evaluate and compile. The outermost one sets the deadline that
    every step inside it checks, and spends its time from the game's budget; once that budget is spent, no
    other work starts (BudgetSpent: the error was said where the work was)."""

    def __enter__(self) -> None:
        state = _budget
        if state.depth == 0:
            if state.stopped is not None:
                raise BudgetSpent(state.stopped.message)
            limit = SECONDS_PER_EVALUATION
            if state.seconds_left is not None:
                if state.seconds_left <= 0:
                    raise _stop(_over_game_time())
                limit = min(limit, state.seconds_left)
            state.started = _clock()
            state.deadline, state.call_depth = state.started + limit, 0
            state.evaluation = next(_EVALUATIONS)  # (counted across threads: the preview's may share a module)
            state.held.clear()
            state.held_size = 0
            state.evaluated += 1
        state.depth += 1

    def __exit__(self, *exc: object) -> Literal[False]:
        state = _budget
        state.depth -= 1
        if state.depth == 0:
            if state.seconds_left is not None and not state.charging:  # (a `charged` block counts its own)
                state.seconds_left -= _clock() - state.started
            else:
                state.memory_ceiling = None  # outside a game, each evaluation has its own
            state.deadline = None
            state.held.clear()
            state.held_size = 0
        return False


_EVALUATION = _Evaluation()


def _charged_for(look: Callable[_P, _R]) -> Callable[_P, _R]:
    """`look` (a function looking into a template for mistakes) with its time spent from the game's budget
    (charged): beneath a cache, only the looks it does not remember are charged."""
    @functools.wraps(look)
    def look_charged(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with charged():
            return look(*args, **kwargs)
    return look_charged


@contextlib.contextmanager
def charged() -> Iterator[None]:
    """The block's time spent from the game's budget, as an evaluation's, when it is not inside one (which
    counts it already), without stopping the block: pnp's own work for each item of a game's rule (200
    constraints over 5,000 items spent 3.6 s of processor time besides the budget's 7.5 s), and its looks into
    a template (_charged_for). The next evaluation stops where the time ran out, said at its own line (the
    callers of a look into a template have no line to say it at, nor a way to, and a look stopped would be
    taken as finding nothing, remembered so by their caches for the next game)."""
    state = _budget
    if state.depth > 0 or state.charging or state.seconds_left is None:
        yield
        return
    started, state.charging = _clock(), True
    try:
        yield
    finally:
        state.charging = False
        if state.seconds_left is not None:  # (the game's budget may end inside the block: its owner's block)
            state.seconds_left -= _clock() - started


_EVALUATIONS = itertools.count(1)


def evaluations_made() -> int:
    """How many templates and expressions this thread has evaluated (not those a plain look-up answered):
    what drawing prices a layout's templates by (layout.budget)."""
    return _budget.evaluated


@contextlib.contextmanager
def metered(who: str) -> Iterator[None]:
    """A library's work on a game's file (svglib reading an icon, a field's pattern matching a value) inside
    the game's budget, like a template's: each Python function call it makes is a step, so work that searches
    without end (a style sheet whose selectors try every ancestor in turn) stops with LimitError within
    SECONDS_PER_EVALUATION. On the main thread a timer of processor time also stops C code that looks at
    signals (the regular expression engine backtracking). Only this thread is traced, only while the block runs.
    A block inside another's joins it, said in the outer one's name: a second timer would end the first's."""
    if _budget.doing is not None:
        yield
        return
    doing, _budget.doing = _budget.doing, who
    over_time = f"{who} took longer than {SECONDS_PER_EVALUATION:g} s of processor time; pnp stops there"
    stopped_before = _budget.stopped
    try:
        with _counted_calls(), _EVALUATION, _processor_timer(_time_left(), over_time) as alarms:
            yield
    except Exception as error:
        # the limit, also where a library's clean-up failed while the limit unwound it (ReportLab deleting an
        # attribute the limit stopped it from setting) and hid it behind its own error, an AttributeError
        stopped = error if isinstance(error, _Timeout) else _limit_under(error)
        if stopped is None:
            raise
        if isinstance(stopped, _Timeout):
            raise LimitError(over_time) from None
        raise stopped from None
    else:
        if _budget.stopped is not None and _budget.stopped is not stopped_before:
            # the game's time ran out inside the library, which caught the limit as one of its own errors and
            # went on: said here, where the work was (the next template said it, at no file and line)
            raise _budget.stopped
        if alarms:  # so did the processor time's alarm (which comes first of the two is the machine's doing)
            raise _alarm_caught(over_time)
    finally:
        _budget.doing = doing


def _limit_under(error: BaseException) -> LimitError | None:
    """The LimitError that `error` was raised while handling (through its chain of contexts), if any."""
    seen: set[int] = set()
    cause = error.__context__
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, LimitError):
            return cause
        seen.add(id(cause))
        cause = cause.__context__
    return None


def ended_game(error: LimitError) -> bool:
    """Whether `error` is the one that spent the game's whole budget (said once, where it ran out), not a
    limit of the one piece of work that raised it."""
    return error is _budget.stopped


# files whose calls a metered block does not count: its own ending is calls to them (contextlib's __exit__, the
# generators of metered, _processor_timer and this block resumed, _Evaluation.__exit__), and a step counted there
# raised the limit before the ending's first line ran: the evaluation stayed open (every later one in the process
# ran past a deadline long gone: a preview stopped checking the game for good) and this trace stayed set; under
# load, one run of the suite in a few hundred
_UNCOUNTED_FILES = frozenset({__file__, contextlib.__file__})


@contextlib.contextmanager
def _counted_calls() -> Iterator[None]:
    """Every Python function call made in the block (by this thread) counted as template steps, so that a
    library's loop (a filter's, svglib's) stops within the evaluation's time like the template's own."""
    previous = sys.gettrace()
    calls = itertools.count()

    def on_call(frame: types.FrameType, event: str, arg: object) -> None:
        if frame.f_code.co_filename in _UNCOUNTED_FILES:
            return  # (the block's own ending: see _UNCOUNTED_FILES)
        if not next(calls) % _CALLS_PER_STEP:
            tick()
        # returns None: nothing inside the call is traced, only its start is counted

    sys.settrace(on_call)
    try:
        yield
    finally:
        sys.settrace(previous)


@contextlib.contextmanager
def game_time() -> Iterator[float]:
    """Library work that stops itself after a timeout it is given (the `regex` engine's): spent from the game's
    budget like a template's, so that many such calls together stop where the game's time runs out. Yields the
    seconds the work may take; LimitError when the game's time is already spent."""
    with _EVALUATION:
        yield max(0.0, _time_left())


def _time_left() -> float:
    """Seconds to the deadline of the evaluation in progress (inside `with _EVALUATION:`, which sets it)."""
    deadline = _budget.deadline
    assert deadline is not None, "outside an evaluation"
    return deadline - _clock()


def _alarm_caught(over_time: str) -> LimitError:
    """What a processor-time alarm said that the library it stopped caught as one of its own errors, going on:
    the game's time, where that is what ran out (as tick says it, the game stopped), else the work's own limit.
    With the alarm first, a library swallowing it passed the limit one run in four."""
    state = _budget
    if state.seconds_left is not None and _clock() - state.started >= state.seconds_left:
        return _stop(_over_game_time())
    return LimitError(over_time)


@contextlib.contextmanager
def _processor_timer(seconds: float, over_time: str) -> Iterator[list[LimitError]]:
    """LimitError(over_time) raised in the block once the process has spent `seconds` of processor time in it, on
    the main thread (where signals go); elsewhere nothing. Raised already in its final words, never as a
    _Timeout for the caller to name: the alarm may come while another error unwinds the block, in a context
    manager's __exit__ outside the code that would name it (CI once printed a bare "out of time"). It raises
    once, and never after the block: the kernel may deliver it late. Yields the errors it raised (one at most),
    for the caller to see one that the block caught and went on past."""
    raised: list[LimitError] = []
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield raised
        return
    inside = [True]

    def on_alarm(signum: int, frame: object) -> None:
        if inside[0]:
            inside[0] = False
            raised.append(LimitError(over_time))
            raise raised[0]

    previous = signal.signal(signal.SIGVTALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_VIRTUAL, max(seconds, 0.001))
        yield raised
    finally:
        inside[0] = False
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, handler_after_alarm(previous))


def handler_after_alarm(previous: Any) -> Any:
    """The signal handler to put back after an alarm's block: the one before it, or one that does nothing in
    place of the default action, which ends the process, for an alarm the kernel still delivers (a Python
    handler, not SIG_IGN, which the programs pnp runs would inherit)."""
    return _late_alarm if previous in (signal.SIG_DFL, None) else previous


def _late_alarm(signum: int, frame: object) -> None:
    """What an alarm delivered after its block ended does: nothing."""


# -- bounded operations: what an operation would build is computed from its inputs, before it is built ------

def _size(value: object) -> int | None:
    return len(value) if isinstance(value, (str, list, tuple, bytes)) else None


# the arguments that say how much a filter or a method builds ('x' | center(10**10), batch(10**9, 0),
# 'x'.zfill(10**10), (1).to_bytes(10**9): a gigabyte), checked before it builds. Only those: an argument that
# is a value (selectattr('cost', 'gt', 2000000), '%d' | format(2500000), [2000000].count(2000000)) may be any
# number.
_WIDTH_PARAMETERS = frozenset({"width", "linecount", "slices", "indent"})
_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})  # text methods whose number sets what they build


_COUNT_PARAMETERS = frozenset({"linecount", "slices"})  # of batch and slice: how many, at least 1
# the parameters of Jinja's filters that take a whole number (truncate's length and leeway, center's and
# wordwrap's width, round's precision, replace's count, urlize's trim_url_limit, and the counts above)
_WHOLE_PARAMETERS = frozenset({"length", "leeway", "width", "precision", "count", "trim_url_limit", "indent"}) \
    | _COUNT_PARAMETERS
# what the text methods offered take at each place (and by what name, if any): a whole number, text, text or
# texts (a tuple of them), one character; and whether none may be given there
_Taken = tuple[int, str | None, str, bool]
_METHOD_VALUES: dict[str, tuple[_Taken, ...]] = {
    **{name: ((0, "width", "whole", False), (1, "fillchar", "character", False)) for name in ("center", "ljust",
                                                                                              "rjust")},
    "zfill": ((0, "width", "whole", False),),
    **{name: ((0, None, "text", False), (1, None, "whole", True), (2, None, "whole", True))
       for name in ("count", "find", "index", "rfind", "rindex")},
    **{name: ((0, None, "texts", False), (1, None, "whole", True), (2, None, "whole", True))
       for name in ("startswith", "endswith")},
    **{name: ((0, "sep", "text", True), (1, "maxsplit", "whole", False)) for name in ("split", "rsplit")},
    **{name: ((0, None, "text", False),) for name in ("partition", "rpartition", "removeprefix", "removesuffix")},
    **{name: ((0, None, "text", True),) for name in ("strip", "lstrip", "rstrip")},
    "replace": ((0, None, "text", False), (1, None, "text", False), (2, "count", "whole", False)),
    "splitlines": ((0, "keepends", "whole", False),)}
# the parameters of Jinja's filters that take text (trim's chars, truncate's end, wordwrap's wrapstring, split's
# sep), and whether none may be given there
_TEXT_PARAMETERS = {"chars": True, "end": False, "wrapstring": True, "sep": True}
# the text methods' numbers that Python holds in a machine word (`'a'.replace('a', 'b', 2 ** 70)` said "a number
# too large to compute"), bounded as the replace filter's count is; a start or end past the text is read as its end
_METHOD_COUNTS = frozenset({"count", "maxsplit", "keepends"})
_WHOLE_OR_NONE = frozenset({"leeway", "count", "trim_url_limit", "indent"})  # (whole-number parameters none may be given)
_KIND_WORDS = {"whole": "a whole number", "text": "text", "texts": "text (or a list of texts)",
               "character": "one character", "indent": "a whole number or text"}
_ABSENT = object()  # (a value not given)


def _of_kind(value: object, kind: str) -> bool:
    if kind in ("whole", "indent"):  # (a float is refused by _refuse_fraction, saying how to round it)
        return isinstance(value, (int, float)) or kind == "indent" and isinstance(value, str)
    if kind == "texts" and isinstance(value, tuple):
        return all(isinstance(text, str) for text in value)
    return isinstance(value, str) and (kind != "character" or len(value) == 1)


def _refuse_kind(value: object, kind: str, none: bool, takes: str) -> None:
    """A value given where a filter or a text method takes a whole number, text or one character, refused in
    pnp's words unless it is one (or none, where `none`): Python said "strip arg must be None or str", "must be
    str, not int", "'str' object cannot be interpreted as an integer", Jinja's truncate "object of type 'int'
    has no len()". `takes`: what takes it, `{}` where what it takes goes ("the filter trim takes {} as its
    chars")."""
    if kind == "whole":
        _refuse_fraction(value, takes.format("a whole number"))
    if value is _ABSENT or value is None and none or _of_kind(value, kind):
        return
    raise LimitError(f"{takes.format(_KIND_WORDS[kind] + (' (or none)' if none else ''))}, not "
                     f"{_describe_value(value)}")


def _refuse_fraction(value: object, takes: str) -> None:
    """A float given where a whole number goes is refused at the template's line in pnp's words: Python said
    "'float' object cannot be interpreted as an integer" (`'ab' | center(0.3)`, `range(1 / 3)`), Jinja's
    truncate "expected length >= 3, got 0.30000000000000004", as the error of no line of the template."""
    if isinstance(value, float):
        raise LimitError(f"{takes}, not {_describe_value(value)}: round it first (`(a / b) | round`)")


def _check_count(value: object, name: str) -> None:
    """batch's and slice's count is a whole number of at least 1: Jinja's batch(0) made '[[], [0, 1, 2]]',
    batch(-2) and batch(2.5) one batch of all, slice(-1) nothing, printed with exit 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise LimitError(f"{name} takes a whole number of at least 1, not {_describe_value(value)}")


def _check_int(value: object, what: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_STRING:
        raise LimitError(f"{what} {_short(str(value))} is too large (at most {MAX_STRING:,})")


def _finite(value: _T) -> _T:
    """A template's computed value, refused when it is a float past what a number can hold (inf, or nan made
    from one): printed it read 'inf', and a literal such a number is refused already (_numbers_checked)."""
    if type(value) is float and not math.isfinite(number := cast(float, value)):
        raise LimitError("a number too large to compute (it comes out as infinity)" if math.isinf(number) else
                         "a result that is no number (nan: made from a number too large to compute, or "
                         "the text 'nan' read as one)")
    return value


def _check_result(value: _T) -> _T:
    bits = value.bit_length() if isinstance(value, int) else 0
    if bits > MAX_NUMBER_BITS:  # made from text: `'f' * 999999 | int(base=16)` (base 16 has no length limit in
        # Python) is 4 million bits, and one `//` of two such took 6 s in C
        raise LimitError(f"a template made a number of {bits:,} bits (at most {MAX_NUMBER_BITS:,}, about 1,200 "
                         "digits)")
    _finite(value)
    size = _held(cast(Any, value)) if _is_built(value) else _size(value)
    if size is not None:
        if size > MAX_STRING:
            length = len(cast(Any, value))
            raise LimitError(f"a template built a value of {length:,} items or characters (at most {MAX_STRING:,})"
                             if length > MAX_STRING else f"a template built a value holding more than "
                             f"{MAX_STRING:,} items and characters within one another (a list holding a list or a "
                             "long text many times?)")
        tick(size)
    return value


_BUILT = (list, tuple, dict)  # the containers a template makes (a game's data are Records and MarkedLists)


def _is_built(value: object) -> bool:
    """A container a template made, which _held looks inside: a list, tuple or dict, a view of a dict (`{1:
    x}.items()`), or a named tuple a filter makes (groupby's groups). Comparing, hashing and printing go inside
    each, in C: a view or a group made of two of the one before, forty times over, was counted as 2 items, and
    comparing two such never ended, nor did printing the view."""
    kind = type(value)
    return kind in _BUILT or kind in _DICT_VIEWS or isinstance(value, tuple)


def _held_items(container: Any) -> Sequence[Any]:
    """What a container a template made holds (_is_built): a dict's keys and values, a list's or a tuple's items;
    a view holds its dict (its one referent), sized once however many views of it are asked for
    (`big.items()` in a loop walked a million entries a turn)."""
    if type(container) is dict:
        return [*container.keys(), *container.values()]
    if type(container) in _DICT_VIEWS:
        return gc.get_referents(container)
    return cast(Sequence[Any], container)


def _is_held_data(item: object) -> bool:
    """A game's list or mapping, or a view of one, held in a template's container: counted as its length
    (comparing `[big.items()] * 1000` with another such compared 1,000 mappings of 20,000 entries, 7 s)."""
    kind = type(item)
    return kind not in _SHORT_TEXTS and not _is_built(item) and \
        isinstance(item, (list, tuple, Mapping, KeysView, ValuesView, ItemsView))


def _length_unread(item: Any) -> int:
    """The length of a game's list or mapping (or a view of one) a template's container holds, noted as no read
    of it: sizing is pnp's own bookkeeping, and a read of every item tied the rulebook's check to each of them
    (the preview checked it again at any edit). The data's tracked values say it by `size_unread`."""
    mapping = getattr(item, "_mapping", None)  # a view: its mapping's length
    target = item if mapping is None else mapping
    own = getattr(type(target), "size_unread", None)
    return int(own(target)) if own is not None else len(target)


def _held(value: list[Any] | tuple[Any, ...] | dict[Any, Any]) -> int:
    """The items a template's container holds, and the characters of its texts, those of the containers
    inside it counted as often as they are held (up to just past MAX_STRING). `[x, x]` is twice the size of x:
    forty such steps are short to write, and comparing or hashing the result (==, `in`, a mapping's key) never
    ends, in C code that no time limit stops; so does looking for a text in a million references to another
    text of a million characters (`t in [s] * 10**6` compared a terabyte). Bounded where each value is made,
    such work is too. Each container is looked at once (its count kept by id), so the look costs what the
    value takes in memory, not what it counts; within one evaluation, once at all (_Budget.held): a value
    built from one looked at already (`{% set ns.a = [ns.a] %}` in a loop) is looked at as deep as it is new
    (each step walked the whole nesting again: 600 steps took 3 s, past the time limit, which no step checked).
    Containers inside one another past MAX_BUILT_DEPTH are refused: printing, sorting or comparing such a value
    recurses in C, as deep as it is (100,000 levels took 9 s to fail, past any time limit)."""
    counts: dict[int, int] = {}
    depths: dict[int, int] = {}
    known = _budget.held if _budget.depth else {}  # (outside an evaluation nothing says when to forget)
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        container, inner_counted = stack.pop()
        if not inner_counted and (id(container) in counts  # (held twice by one container: looked at once)
                                  or _held_before(container, known, counts, depths)):
            continue
        items = _held_items(container)
        inner = [item for item in items if _is_built(item)]
        if not inner_counted:
            stack.append((container, True))
            stack.extend((item, False) for item in inner if id(item) not in counts)
            continue
        texts = sum(len(item) for item in items if type(item) in (str, bytes))  # (kept alive by it)
        counts[id(container)] = _held_count(items, inner, counts, texts)
        depths[id(container)] = 1 + max((depths.get(id(item), 0) for item in inner), default=0)
        _keep_held(container, (counts[id(container)], depths[id(container)]), len(items) + texts, known)
    return counts[id(value)]


def _held_count(items: Sequence[Any], inner: list[Any], counts: dict[int, int], texts: int) -> int:
    """What _held counts of a container of `items`, of `texts` characters of texts, those of them it built
    (`inner`) counted in `counts`."""
    data = sum(_length_unread(item) for item in items if _is_held_data(item))
    return min(len(items) + texts + data + sum(counts.get(id(item), 0) for item in inner), MAX_STRING + 1)


def _held_before(container: object, known: dict[int, tuple[object, int, int]], counts: dict[int, int],
              depths: dict[int, int]) -> bool:
    """Whether _held looked at `container` already in this evaluation: its count and depth put in theirs."""
    kept = known.get(id(container))
    if kept is None or kept[0] is not container:
        return False
    counts[id(container)], depths[id(container)] = kept[1], kept[2]
    return True


def _too_deep() -> NoReturn:
    """Refuse containers a template built inside one another past MAX_BUILT_DEPTH (_keep_held, _text_size)."""
    raise LimitError(f"a template built lists, mappings or namespaces more than {MAX_BUILT_DEPTH} deep inside one "
                     "another (a list made of the one before it, step by step in a loop?)")


def _keep_held(container: object, count_depth: tuple[int, int], own: int,
               known: dict[int, tuple[object, int, int]]) -> None:
    """A container _held looked at, of (count, depth) and `own` items and characters of texts of its own,
    refused past MAX_BUILT_DEPTH, else kept for the rest of the evaluation (in _Budget.held, which forgets all
    once the containers it keeps hold past MAX_STRING items and characters of their own: what keeping them
    alive costs. Counted by what each holds inside, a
    list of one big list made again each turn of a loop made it forget the big list every few turns, and
    look at it again: 2,000 turns ran to the time limit)."""
    count, depth = count_depth
    if depth > MAX_BUILT_DEPTH:
        _too_deep()
    if known is not _budget.held:
        return
    if _budget.held_size + own > MAX_STRING:
        known.clear()
        _budget.held_size = 0
    known[id(container)] = (container, count, depth)
    _budget.held_size += own


def _refuse_longer(size: int, what: str) -> int:
    if size > MAX_STRING:
        raise LimitError(f"{what} would be longer than {MAX_STRING:,} characters or items")
    return size


def _text_size(value: object, limit: int = MAX_STRING, printing: bool = True) -> int:
    """How long str(value) is, counted no further than just past `limit`: a list holding one long text a
    million times is 8 MB, its text a terabyte. An estimate that is never far under (escapes aside). A
    container inside itself (a namespace set to hold itself) prints as `...` there, as Python writes it: counted
    around again, it took seconds to reach the limit, six characters a turn. Containers a template made and
    namespaces inside one another past MAX_BUILT_DEPTH are refused (_too_deep): printing them recurses as deep as
    they are, and a namespace is changed after it is made, so only what it holds when printed says how deep it
    is (one made of the one before, 5,000 times over, ran Python out of stack quoting it)."""
    if isinstance(value, (str, bytes)):  # (bytes: what they hold, as bytes.join and bytes % build them)
        return len(value)
    total, stack, inside, built_depth = 0, [value], set(), 0
    while stack and total <= limit:
        item = stack.pop()
        if type(item) is _Leave:
            inside.discard(item.key)
            built_depth -= item.built
            continue
        if isinstance(item, (str, bytes)):
            total += len(item) + 2  # quoted inside a list
            continue
        if isinstance(item, int):
            total += item.bit_length() // 3 + 2
            continue
        if type(item) is range and printing:  # it printed as Python writes it, 'range(0, 3)', exit 0 (a derived
            # value kept is made a list: printed_size)
            raise LimitError(f"range({', '.join(map(str, _range_numbers(item)))}) is made as it is read, and "
                             "would print as Python writes it: `| list` prints its numbers as a list, "
                             "`| join(', ')` as text")
        if isinstance(item, StrictUndefined):  # `[card.nmae]` would print "[Undefined]": said as `card.nmae`
            item._fail_with_undefined_error()  # is (Jinja's `x if c` without else is lenient: it prints '')
        # (any other sequence too: `components` is a list of pnp's, whose records inside it are refused)
        if not (_is_mapping(item) or isinstance(item, (list, tuple, set, frozenset, Namespace, _VIEWS, Sequence))):
            _refuse_unprintable(item)
            total += 32  # a number, none, a macro: a short text
            continue
        if id(item) in inside:
            total += 5
            continue
        inside.add(id(item))
        leave = _Leave(item)
        built_depth += leave.built
        if built_depth > MAX_BUILT_DEPTH:
            _too_deep()
        stack.append(leave)
        total += _contents(item, stack)
    return total


def _range_numbers(numbers: range) -> tuple[int, ...]:
    """The numbers a range was written with, as few as say it (range(3), range(1, 3), range(0, 6, 2))."""
    if numbers.step != 1:
        return numbers.start, numbers.stop, numbers.step
    return (numbers.stop,) if numbers.start == 0 else (numbers.start, numbers.stop)


def printed_size(value: object, limit: int) -> int:
    """How many characters `value` prints as, counted no further than just past `limit` (a value kept beyond
    one template: a derived field's); LimitError for what cannot be printed (a function, a macro module)."""
    return _text_size(value, limit, printing=False)


def _refuse_unprintable(value: object) -> None:
    """A function or method printed without being called (`{{ card.items }}`) prints its memory address, which
    differs on every run: the same data would not build the same bytes."""
    if isinstance(value, (float, bool, type(None))):
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # a record of pnp's own (a component of `components`) printed whole wrote Python's words on a card,
        # exit 0: "Component(id='deck', name='Cards', kind='deck', spec=Record({...}), count=8, items=[...])"
        names = ", ".join(f"`.{f.name}`" for f in dataclasses.fields(value))
        raise LimitError(f"{type_name(value)} is printed whole, which pnp cannot write as text: "
                         f"print one of its fields ({names})")
    # a function is named without its object: `loop.changed` printed "<bound method ... of <LoopContext 1/1>>",
    # and a method of a whole table (data.cards.mark_of) every item of it, though no address showed
    if isinstance(value, _Lazy) or isinstance(value, Iterator) and type(value).__module__ == "builtins":  # a
        # filter's result read as it is made (map, select, reverse, batch: _Lazy, Python's iterators) was said to
        # lack a '()', which it does not (Jinja's own iterators, a loop, are said by their names below)
        raise LimitError("this is a list read one item at a time as it is made (what map, select, reverse, batch "
                         "and such give), which cannot be printed as it is: `| list` prints its items as a list, "
                         "`| join(', ')` as text")
    if callable(value) and not isinstance(value, Undefined):  # (`x if c` without else is an Undefined: '')
        shown = f"<{getattr(value, '__qualname__', type(value).__name__)}"
    else:
        shown = repr(value)
        if shown.startswith("<") and " at 0x" not in shown:  # an object with no literal form, by Python's
            # convention: `[macros]` printed '[<TemplateModule memory:7f9054e10f10>]', another address on every
            # run, and `self` or `loop` what Jinja calls them
            shown = f"<{type(value).__name__}"
        elif " at 0x" not in shown:
            return
    raise LimitError(f"{_short(_friendly(shown.split(' at 0x')[0]), 60)}> is a function or an object, not a value, and "
                     "cannot be printed (is a '()' missing after a name?)")


class _Leave:
    """On _text_size's stack, the end of a container's contents. It holds the container: one made as it is read
    (the pairs of a mapping's items()) was let go once read, and the next pair, made at its address, was taken
    for a container inside itself and counted as `...` (a view holding itself 40 times over was counted 2,614
    characters, and printing it never ended)."""

    __slots__ = ("key", "container", "built")

    def __init__(self, container: object) -> None:
        self.key, self.container = id(container), container
        self.built = _is_built(container)  # (counted in the depth bound: a namespace by its dict of names)


_VIEWS = (KeysView, ValuesView, ItemsView)  # (a dict's own views are registered as these)


def _contents(container: Any, stack: list[Any]) -> int:
    """Put a container's items on _text_size's stack; what it prints besides them."""
    if isinstance(container, Namespace):
        stack.append(object.__getattribute__(container, "_Namespace__attrs"))
        return 12
    if isinstance(container, _VIEWS):  # a view of a game's mapping prints the whole mapping, a dict's view its
        # items: each was printed by repr() to be refused, `[big.items()] * 100000` a 2 MB repr 100,000 times
        mapping = getattr(container, "_mapping", None)
        if mapping is not None:
            stack.append(mapping)
        else:
            stack.extend(container)
        return 16 + 2 * len(container)
    if _is_mapping(container):
        stack.extend(container.keys())
        stack.extend(container.values())
        return 2 + 4 * len(container)
    stack.extend(container)
    return 2 + 2 * len(container)


_SHORT_TEXTS = frozenset({str, int, float, bool, type(None)})  # str() of these is no longer than their value


def _as_text(value: object, what: str) -> str:
    """str(value), refused before it is made when it would be too long, or when it is none (_refuse_none); a
    float worked out as a template prints it (_number_printed: `(0.1 + 0.2) | replace('.', ',')` wrote
    0,30000000000000004)."""
    _refuse_none((value,), f"{what} is")
    if type(value) is str:
        return value
    if type(value) not in _SHORT_TEXTS:
        _refuse_longer(_text_size(value), what)
    return str(_number_printed(value))


def _refuse_none(values: Iterable[object], what: str) -> None:
    """A none turned into text, as `{{ x }}` refuses it (_printed): joined with `~`, by join, a text filter or
    a %-format, an optional field left out wrote the word 'None' into the text (`card.id ~ card.friend` printed
    'lionNone' on the cards without a friend, exit 0)."""
    if any(value is None for value in values):
        raise LimitError(f"{what} none, which would print as the word 'None' (an optional field left out?): "
                         "use `x or ''`, or draw the element only `when: x`")


# Widths and precisions, every pattern linear in the text (no two ways to match a character): a %-conversion's
# (an optional mapping key, parentheses nested twice at most and without '%'), and every number in a
# {field:spec}'s spec after its first ':' (more than its width when the spec holds other numbers: an upper bound)
_PERCENT_WIDTH = re.compile(r"%(?:\((?:[^()%]|\((?:[^()%]|\([^()%]*\))*\))*\))?[-#0 +]*"
                            r"(?:(\*|\d+)(?:\.(\*|\d+))?|\.(\*|\d+))")
_FIELD_SPEC = re.compile(r"\{[^{}:]*:([^{}]*)\}")
_SPEC_NUMBER = re.compile(r"\d+")  # a fill character may be "*": widths as arguments are refused apart


def _format_padding(fmt: str) -> int:
    """The characters the widths and precisions of a %-format or str.format string may add ('%999999999d'
    would be a gigabyte of spaces); each is refused above the limit, '*' always."""
    numbers = [n for groups in _PERCENT_WIDTH.findall(fmt) for n in groups if n]
    numbers += _SPEC_NUMBER.findall(" ".join(_FIELD_SPEC.findall(fmt)))
    if "*" in numbers:
        raise LimitError("'*' widths are not allowed in formats")
    widest = max(numbers, key=len, default="0")
    if int(widest) > MAX_STRING:  # the longest of the digit strings is the largest up to leading zeros
        raise LimitError(f"a format width of {widest} is too large (at most {MAX_STRING:,})")
    return sum(map(int, numbers))


def _format_size(fmt: str, values: list[Any], fields: int, repeated: bool) -> int:
    """An upper bound of a format's result: its text, its paddings, and its arguments' texts (each field once,
    or the longest in every field when fields may name an argument again)."""
    sizes = [_text_size(value) for value in values]
    filled = fields * max(sizes, default=0) if repeated else sum(sizes)
    return _refuse_longer(len(fmt) + _format_padding(fmt) + filled, "this format's text")


def _percent_size(fmt: str, args: Any) -> int:
    """`fmt % args`: a mapping's values may each fill any number of fields, a tuple's one field each."""
    if _is_mapping(args):
        conversions = _conversions(fmt) if "%(" in fmt else []
        # the values its fields name (all of them when a key is not read here): `'%(friend)s' % card` printed
        # 'None' where the optional field was left out
        named = list(args.values()) if conversions is None else [args[c[2]] for c in conversions
                                                                 if c[2] is not None and c[4] != "%" and c[2] in args]
        _refuse_none(named, "a %-format is given")
        return _format_size(fmt, list(args.values()), fmt.count("%"), repeated=True)
    values = list(args) if isinstance(args, tuple) else [args]
    _refuse_none(values, "a %-format is given")
    return _format_size(fmt, values, fmt.count("%"), repeated=False)


# a %-conversion: its mapping key (without parentheses), flags, width, precision, length modifier and type ('*'
# widths are refused before: _format_padding); or a '%' that begins none of those (a key holding parentheses,
# one not closed), which this does not read
_CONVERSION = re.compile(r"%(?:\(([^()]*)\)|(?!\())[-#0 +]*\d*(?:\.(\d+))?[hlL]?(.)|%", re.S)
Conversion = tuple[int, int, str | None, str | None, str]  # (start, end, mapping key, precision, type)


def _conversions(fmt: str) -> list[Conversion] | None:
    """The %-conversions of a format as Python reads them (each character looked at once, in C); None at the
    first one not read here. The last format's are kept: `%` and the format filter read them for the size
    (_percent_size) and then for the rounding (_percent_rounded), and parsed the format for each."""
    last = _LAST_CONVERSIONS[0]
    if last[0] is fmt:  # (the same text, held by the memo: no other can have its identity)
        return last[1]
    found: list[Conversion] = []
    for c in _CONVERSION.finditer(fmt):
        if c[3] is None:
            _LAST_CONVERSIONS[0] = (fmt, None)
            return None
        found.append((c.start(), c.end(), c[1], c[2], c[3]))
    tick(len(found))  # (work of the template's, as each value's rounding)
    _LAST_CONVERSIONS[0] = (fmt, found)
    return found


_LAST_CONVERSIONS: list[tuple[str, list[Conversion] | None]] = [("", [])]  # (a format, its _conversions): one


# a str.format field's spec: [[fill]align][sign][z][#][0][width][grouping][.precision][type]
_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?\d*[,_]?(?:\.(\d+))?([a-zA-Z%]?)", re.S)
_DECIMAL_TYPES = frozenset("eEfFgG%")  # the conversions that round a number to a precision (6 when none is given)


def _rounded_for(number: Any, kind: str, precision: int) -> Any:
    """`number` rounded half away from zero on the decimal written (as `round` rounds: see rounded), to the
    digits the conversion `kind` at `precision` writes, so that Python's formatting, which rounds halves to
    even on the binary value ('%.2f' % 2.675 wrote 2.67 where `2.675 | round(2)` printed 2.68), has no half
    left to round. Anything but a finite number is given back as it is."""
    exact = _exact_decimal(number)
    if exact is not None and not exact and isinstance(number, float):  # ('%.1f' % (0 * -1.5) wrote -0.0)
        return 0.0
    if exact is None or not exact or kind not in _DECIMAL_TYPES:
        return number
    if kind == "%":  # (the percentage written is the number times 100)
        exact = exact.scaleb(2)
    if kind in "fF%":
        places = precision
    else:  # significant digits: %e writes one before the point and `precision` after, %g `precision` (1 at least)
        places = (precision + 1 if kind in "eE" else max(precision, 1)) - 1 - exact.adjusted()
    exponent = exact.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= -places:  # no digit past those written: nothing to round
        return number
    with decimal.localcontext() as context:
        context.prec = len(exact.as_tuple().digits) + max(places, 0) + 2
        result = exact.quantize(decimal.Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP)
    if kind == "%":
        result = result.scaleb(-2)
    return int(result) if isinstance(number, int) else float(result) + 0.0  # (never -0.0, as round)


def _percent_rounded(fmt: str, args: Any) -> tuple[str, Any]:
    """`fmt % args` made to round as `round` does (see _rounded_for): each number a %f, %e or %g conversion
    writes, rounded first. Anything this does not read (a field missing, too few values) is left to `%` to
    refuse, as it is."""
    conversions = _decimal_conversions(fmt)
    given = None if conversions is None else _percent_given(fmt, args, conversions)
    if conversions is None or given is None:
        return fmt, args
    fmt, values = given
    return fmt, tuple(_number_printed(value) if c[4] == "s" else _rounded_for(value, c[4], int(c[3] or 6))
                      for value, c in zip(values, conversions))


def _decimal_conversions(fmt: str) -> list[Conversion] | None:
    """The conversions of a format that take a value, when one of them writes a decimal (%f, %e, %g) or a
    value as text (%s, which writes a float as _number_printed says)."""
    if not any(kind in fmt for kind in _TEXT_OR_DECIMAL_TYPES):
        return None
    conversions = [c for c in _conversions(fmt) or () if c[4] != "%"]
    return conversions if any(c[4] in _TEXT_OR_DECIMAL_TYPES for c in conversions) else None


_TEXT_OR_DECIMAL_TYPES = frozenset("eEfFgGs")  # the %-conversions _percent_rounded writes a number for


def _percent_given(fmt: str, args: Any, conversions: list[Conversion]) -> tuple[str, list[Any]] | None:
    """(the format, the value of each conversion in turn), as `%` gives them: a mapping's fields by their key
    (the format then written without its keys, so that `%(x).2f %(x).1f` rounds x for each), a tuple's values
    one by one, another value to the one conversion; None when `%` would refuse them."""
    keys = [c[2] for c in conversions]
    unkeyed = all(key is None for key in keys)
    if _is_mapping(args) and None not in keys:
        return (_unkeyed(fmt, conversions), [args[key] for key in keys]) if all(key in args for key in keys) \
            else None
    if isinstance(args, tuple):
        return (fmt, list(args)) if unkeyed and len(args) == len(conversions) else None
    return (fmt, [args]) if unkeyed and len(keys) == 1 and not _is_mapping(args) else None


def _unkeyed(fmt: str, conversions: list[Conversion]) -> str:
    """A format with each conversion's `%(key)` written `%`; a Markup format stays one (it escapes its values),
    its text cut as plain text (a Markup joined to text escapes that text)."""
    text, pieces, last = str(fmt), [], 0
    for start, _, key, _, _ in conversions:
        pieces += [text[last:start], "%"]
        last = start + len(key or "") + 3
    return type(fmt)("".join(pieces) + text[last:])


def _spec_rounded(value: Any, spec: str) -> Any:
    """A value a str.format field writes with `spec`, rounded as `round` does first (see _rounded_for): a
    spec without a type (or 'n') writes a float to `precision` significant digits, as 'g' does."""
    match = _SPEC.fullmatch(spec)
    if match is None or isinstance(value, bool):
        return value
    precision, kind = match[1], match[2]
    if kind in ("", "n"):  # (as 'g' writes a float; 'n' writes a whole number as 'd')
        if not kind and precision is None or not isinstance(value, float):
            return value
        kind = "g"
    return _rounded_for(value, kind, int(precision or 6))


# what a date's format ('{:%d %B %Y}'.format(d), its strftime) may write: its own fields, in the C locale's words;
# not %s (seconds since 1970 in the machine's time zone: its zone files read, other bytes on another machine), %c, %x,
# %X, %z, %Z, %E and %O, nor the C library's own extensions (widths, flags)
_DATE_CODES = frozenset("aAbBdHIjmMpSyYfuwUWGVg%")
_DATE_CODE = re.compile(r"%(.?)", re.S)


def _check_date_format(spec: str) -> None:
    """A date's format of the codes _DATE_CODES has, else refused in pnp's words."""
    for code in _DATE_CODE.findall(spec):
        if code not in _DATE_CODES:
            raise LimitError(f"the format of a date writes its own fields, as %Y-%m-%d %H:%M or %d %B %Y do, not "
                             f"{shown('%' + code)}, which reads the machine's time zone or locale, or is no field")


class _HalfAwayFields(string.Formatter):
    """str.format's fields round numbers as `round` does (see _rounded_for)."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        if isinstance(value, (datetime.date, datetime.time)):
            _check_date_format(format_spec)
        spec = _SPEC.fullmatch(format_spec)
        if spec is not None and spec[1] is None and not spec[2]:  # ('{}', '{:>6}', '{:,}' write a float as
            value = _numbers_rounded(value, as_text=True)  # repr does: as a template prints it, then; and a list's floats too:
            # '{}'.format([1 / 3]) wrote [0.3333333333333333])
        return super().format_field(_spec_rounded(value, format_spec), format_spec)

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        return super().convert_field(_number_printed(value) if conversion == "s" else value, conversion)


class _Formatter(_HalfAwayFields, SandboxedFormatter):
    """What a template's `'...'.format(...)` formats with: the sandbox's, rounding as `round` does."""


class _EscapeFormatter(_HalfAwayFields, SandboxedEscapeFormatter):
    """The same for a format string marked safe (its values escaped)."""


@contextlib.contextmanager
def _in_format_range(refused: Callable[[], str | None] = lambda: None) -> Iterator[None]:
    """Formatting a value its field cannot write raises OverflowError, whichever way it is out of range: said
    as what the fields take (a character code of -1 is no number too large). A format that does not fit its
    values otherwise is said as `refused` finds (_percent_refused, _braces_refused), in pnp's words: Python
    said "not all arguments converted during string formatting", "Unknown format code 'q' for object of type
    'int'", "tuple index out of range", "Single '{' encountered in format string"."""
    try:
        yield
    except OverflowError:
        raise ValueError("a number this format cannot write: %c and {:c} take a character code from 0 to "
                         "1,114,111, %f, %e and %g a number under 1.8e308") from None
    except (TypeError, ValueError, IndexError):
        message = refused()
        if message is None:
            raise
        raise ValueError(message) from None


_NUMBER_CONVERSIONS = frozenset("diouxXeEfFgGc")  # the %-conversions that write a number (%c a character's code)
# the conversions and spec types that write a whole number alone: a fraction given them was said as "cannot write a
# number (1.5) (it writes a number)" ('{:d}'.format(1.5), '%x' % 1.5)
_WHOLE_CONVERSIONS = frozenset("bdoxXc")


_PERCENT_TYPES = frozenset("diouxXeEfFgGcrsa")  # the %-conversions there are
_SPEC_TYPES = frozenset("bcdeEfFgGnosxX%")  # the types a {}-field's spec may end with


def _field_refused(fmt: str, field: str, kind: str, value: object) -> str:
    """A field of a format (`kind`: its conversion or spec type) that cannot write its value, said so."""
    shown = _short(repr(fmt), 60)
    if kind and kind not in (_PERCENT_TYPES if field[:1] == "%" else _SPEC_TYPES):
        return (f"the format {shown}: its field {field} writes no kind pnp knows ('{kind}': the kinds are "
                f"{'%s, %d, %f, %e, %g, %x...' if field[:1] == '%' else '{:d}, {:f}, {:e}, {:g}, {:x}, {:%}...'})")
    writes = " (it writes a whole number: round it first, `x | round | int`)" if kind in _WHOLE_CONVERSIONS and \
        isinstance(value, float) else " (it writes a number)" if kind in _NUMBER_CONVERSIONS else ""
    return f"the format {shown}: its field {field} cannot write {_describe_value(value)}{writes}"


def _percent_refused(fmt: str, args: Any) -> str | None:
    """Why `fmt % args` failed, in a designer's words: a % that begins no field, fields and values that do not
    pair, or the first field that cannot write its value; None when none of these is found."""
    shown, conversions = _short(repr(fmt), 60), _conversions(fmt)
    if conversions is None:
        return f"the format {shown} has a % that begins no field (%s, %d, %.2f...): a % printed is written %%"
    fields = [c for c in conversions if c[4] != "%"]
    values = _percent_values(shown, fields, args)
    if isinstance(values, str):
        return values
    for (start, end, key, _, kind), value in zip(fields, values):
        field = fmt[start:end]
        try:
            (field if key is None else "%" + field[len(key) + 3:]) % (value,)
        except (TypeError, ValueError):
            return _field_refused(fmt, field, kind, value)
    return None


def _percent_values(shown: str, fields: list[Conversion], args: Any) -> list[Any] | str:
    """The value of each field of a %-format in turn, or why they do not pair (_percent_refused)."""
    keyed = [c[2] for c in fields if c[2] is not None]
    if keyed and len(keyed) != len(fields):
        return f"the format {shown} names some of its values (%(name)s) and not others (%s): name all or none"
    if keyed and not _is_mapping(args):
        return f"the format {shown} names its values (%(name)s) and takes a mapping, not {_describe_value(args)}"
    if keyed:
        return [args[key] for key in keyed if key in args]
    if fields and _is_mapping(args):
        return f"the format {shown} takes its values in turn (%s), not by name: a field so given is written %(name)s"
    values = list(args) if isinstance(args, tuple) else [args]
    if len(values) != len(fields):
        return (f"the format {shown} has {counted(len(fields), 'field')} (%s, %d, %.2f...) and was given "
                f"{counted(len(values), 'value')}: one value for each field")
    return values


def _braces_refused(fmt: str, args: tuple[Any, ...], named: Mapping[str, Any]) -> str | None:
    """Why `fmt.format(*args, **named)` failed, in a designer's words: a brace that begins or ends no field,
    fields numbered and not, a field with no value, or the first field that cannot write its value; None when
    none of these is found."""
    shown = _short(repr(fmt), 60)
    fields = _brace_fields(shown, fmt)
    if isinstance(fields, str):
        return fields
    for at, (name, spec, conversion) in enumerate(fields):
        first, rest = _string.formatter_field_name_split(name)
        first = at if first == "" else first
        if isinstance(first, int) and first >= len(args):
            return f"the format {shown}: its field {{{name}}} has no value (it was given {counted(len(args), 'value')}" \
                   ", from {0})"
        if not (list(rest) or not isinstance(first, int) and first not in named):  # (by name or attribute: format
            refused = _brace_field_refused(fmt, name, spec, conversion,  # itself says what is missing)
                                           args[first] if isinstance(first, int) else named[first])
            if refused is not None:
                return refused
    return None


def _brace_fields(shown: str, fmt: str) -> list[tuple[str, str, str | None]] | str:
    """(name, spec, conversion) of each field of a {}-format, or why it has none to read (_braces_refused)."""
    try:
        fields = [(name, spec or "", conversion) for _, name, spec, conversion in _FORMATTER.parse(fmt)
                  if name is not None]
    except ValueError:
        return f"the format {shown} has a {{ or }} that begins or ends no field: one printed is written {{{{ or }}}}"
    unknown = next((conversion for _, _, conversion in fields if conversion not in (None, "r", "s", "a")), None)
    if unknown is not None:
        return f"the format {shown} converts a value by '!{unknown}', which is none of !s, !r and !a"
    numbered = {name != "" and name[:1].isdigit() for name, _, _ in fields if not name[:1].isalpha()}
    if len(numbered) > 1:
        return f"the format {shown} numbers some of its fields ({{0}}) and not others ({{}}): number all or none"
    return fields


def _brace_field_refused(fmt: str, name: str, spec: str, conversion: str | None, value: Any) -> str | None:
    """Why one {}-field of a format cannot write its value, or None when it can (_braces_refused)."""
    try:
        format(repr(value) if conversion == "r" else str(value) if conversion in ("s", "a") else value, spec)
    except (TypeError, ValueError):
        written = f"{{{name}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}"
        return _field_refused(fmt, written, spec[-1:] if spec[-1:].isalpha() or spec[-1:] == "%" else "", value)
    return None


def _too_many_bits(least_bits: int) -> LimitError | None:
    """The refusal of a whole number computed to have at least `least_bits` bits (as _check_result's), or None
    when it may be within MAX_NUMBER_BITS: the result is then made (at most twice as long) and checked."""
    if least_bits <= MAX_NUMBER_BITS:
        return None
    return LimitError(f"a template made a number of more than {MAX_NUMBER_BITS:,} bits (about 1,200 digits)")


def _multiply(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, int):
        if left and right and (refused := _too_many_bits(left.bit_length() + right.bit_length() - 1)):
            raise refused
        return _check_result(left * right)
    for seq, n in ((left, right), (right, left)):
        size = _size(seq)
        if size is not None and isinstance(n, int):
            if size * max(n, 0) > MAX_STRING:
                raise LimitError(f"repeating {_sized(seq, size)} {n:,} times is too large (at most {MAX_STRING:,})")
            if type(seq) in _MARKED_TEXTS and size and n > 0:  # a text of the data repeated prints as a card
                return _check_result(_composed([seq] * n, [str(seq)] * n))  # does ('R&amp;D' * 2 printed 'R&D')
            return _check_result(left * right)
    return left * right


def _sized(seq: object, size: int) -> str:
    """A text or list a message names by its size: a text's joined ids was said "484 items", 'x' "1 items"."""
    kind, unit = ("a text", "character") if isinstance(seq, str) else ("bytes", "byte") if isinstance(seq, bytes) \
        else ("a list", "item")
    return f"{kind} of {counted(size, unit)}"


def _power(left: Any, right: Any) -> Any:
    whole = isinstance(left, int) and isinstance(right, int)
    # |left| of n bits is at least 2**(n-1): left ** right has at least (n-1) * right + 1 bits
    if whole and abs(left) > 1 and right > 0 and (refused := _too_many_bits((left.bit_length() - 1) * right + 1)):
        raise refused
    result = left ** right
    if isinstance(result, complex):  # (-8) ** 0.5 printed '(1.7e-16+2.8j)'
        raise ValueError(f"{_describe_value(left)} to the power {shown(_number_rounded(right), 30)} has no real value")
    return _check_result(result) if whole else result


def _modulo(left: Any, right: Any) -> Any:
    if isinstance(left, (str, bytes)):  # bytes format as text does: `'%999999999d'.encode() % 1` built 1 GB
        _percent_size(left if isinstance(left, str) else left.decode("latin-1"), right)
        with _in_format_range(lambda: _percent_refused(left, right) if isinstance(left, str) else None):
            if isinstance(left, str):
                left, right = _percent_rounded(left, right)
            return _check_result(left % right)
    return left % right


def _add(left: Any, right: Any) -> Any:
    size_l, size_r = _size(left), _size(right)
    if size_l is not None and size_r is not None and size_l + size_r > MAX_STRING:
        raise LimitError(f"joining values of {size_l + size_r:,} characters or items (at most {MAX_STRING:,})")
    # (only a text of the data's, joined with text: Markup's own + escapes what it is given)
    marked = type(left) in _MARKED_TEXTS and type(right) in _MARKED_TEXTS | {str} or \
        type(right) in _MARKED_TEXTS and type(left) is str
    return _check_result(_composed((left, right), (left, right)) if marked else left + right)


# every arithmetic operator (each result checked to be finite: call_binop), those that can build too much sized first
_BINOPS = {"*": _multiply, "**": _power, "%": _modulo, "+": _add, "-": operator.sub, "/": operator.truediv,
           "//": operator.floordiv}


def _concat(values: list[Any]) -> str:
    """`a ~ b ~ c`: the texts joined, refused before they are made when they would be too long, or when one
    is none."""
    _refuse_none(values, "a text joined with ~ is")
    for value in values:
        if type(value) not in _SHORT_TEXTS:
            _refuse_longer(_text_size(value), "a text joined with ~")
    texts = [str(_number_printed(value)) for value in values]
    size = _refuse_longer(sum(map(len, texts)), "the text joined with ~")
    tick(size)
    return _composed(values, texts)


def _joined_output(pieces: Iterable[str]) -> str:
    """A block's output as one text (a macro's, `{% set x %}...{% endset %}`, `{% filter %}`): Jinja's
    concat, with the size refused before the text is made."""
    pieces = list(pieces)
    _refuse_longer(sum(map(len, pieces)), "a block's text")
    return _check_result("".join(pieces))


class _DataText(str):
    """A text of the game's data (a field of an item) read by the rulebook's template, which `{{ }}` prints as
    a card prints it (_card_text_markdown)."""

    __slots__ = ()


class _ComposedText(str):
    """A text the rulebook's template joined (`~`, `+`) from texts of the game's data and of its own: compared and
    looked up as the text it is, and printed by `{{ }}` with each text of the data in it as a card prints it
    (`{{ '(' ~ k.timing ~ ')' }}` printed a card's 'R&amp;D' as 'R&D', exit 0)."""

    printed: str  # (the text as `{{ }}` prints it)


def _composed(values: Sequence[object], texts: Sequence[str]) -> str:
    """The texts joined, a _ComposedText when a text of the game's data among them prints otherwise."""
    joined, printed = "".join(texts), None
    for n, value in enumerate(values):
        if type(value) in _MARKED_TEXTS and (shown := _markdown_printed(value, texts[n])) != texts[n]:
            printed = printed or list(texts)
            printed[n] = shown
    if printed is None:  # (as most are: plain text, kept so, which a loop joins again cheaply)
        return joined
    composed = _ComposedText(joined)
    composed.printed = "".join(printed)
    return composed


def _markdown_printed(value: object, text: str) -> str:
    """`text` (the value as text) as the rulebook prints it: a text of the game's data as a card prints it."""
    if type(value) is _DataText:
        return _card_text_markdown(value)
    return value.printed if type(value) is _ComposedText else text


def _data_text(container: object, value: object) -> object:
    """`value`, read from `container`, as a _DataText when it is a text of the game's data (not of a list, tuple or
    mapping the template made, _is_built, nor a character of its own text) read while the rulebook renders."""
    if type(value) is str and _MARKUP_READ.get() and not _is_built(container) and type(container) is not str:
        return _DataText(value)
    return value


# the text filters whose result is still the text they were given, changed (its case, its spaces, a part of it
# replaced or cut): a text of the game's data stays one, which the rulebook prints as a card prints it
# (`{{ card.text | trim }}` printed a card's 'R&amp;D' as 'R&D' and its '[a](b)' as a link, exit 0)
_DATA_TEXT_FILTERS = frozenset({"capitalize", "center", "indent", "lower", "replace", "string", "title", "trim",
                                "truncate", "upper", "wordwrap"})


def _data_text_kept(name: str, given: tuple[Any, ...], result: object) -> object:
    """A text filter's result as a _DataText when it was given one (_DATA_TEXT_FILTERS)."""
    if type(result) is str and name in _DATA_TEXT_FILTERS and given and type(given[0]) is _DataText:
        return _DataText(result)
    return result


_MARKED_TEXTS = frozenset({_DataText, _ComposedText})  # the texts `{{ }}` prints otherwise than as Markdown


# What Markdown reads in a text that card text prints as typed: entities ('&amp;'), code spans, HTML ('<br>' broke the
# line) and addresses in angle brackets, a link's or a picture's brackets, table cells and struck text. Only where
# Markdown would read it (an escape prints as typed inside a code span the template writes around a value). A card's
# own markup (stars, icons' colons, glossary terms' brackets, its escapes) is kept for the book to read as a card does.
_CARD_TEXT_UNREAD = re.compile(r"&(?=#?[0-9A-Za-z]{1,32};)|`|<(?=[A-Za-z/!?])|~|\||!(?=\[)|(?<=\])\(")
# a glossary term as written (model.glossary's TERM_IN_TEXT, not imported here: a lower layer), left whole: its name
# is looked up as written
_TERM_WRITTEN = re.compile(r"\[\[[^\[\]\n]{1,60}\]\]")
# what Markdown reads at a line's start: a heading, a quote, a list's item, a setext underline
_BLOCK_START = re.compile(r"[#>+=-]|[0-9]{1,9}[.)]")
# a card's escapes ('\*', '\:', '\[', a doubled backslash), or a backslash a card prints as typed ('\#', one ending
# the text), which Markdown read as an escape ('#'), or at a line's end as a line break, printing no backslash
_CARD_ESCAPE = re.compile(r"\\[*:\[\\]|\\")


def _data_text_got(method: object, result: object) -> object:
    """`card.get('text')` as `card.text` reads it (_data_text): it printed a card's 'R&amp;D' as 'R&D'."""
    owner = getattr(method, "__self__", None)
    if getattr(method, "__name__", None) == "get" and _is_mapping(owner):
        return _data_text(owner, result)
    return result


def _card_escape_markdown(found: re.Match[str]) -> str:
    """A card's escape as written, a backslash the card prints as typed escaped (see _CARD_ESCAPE)."""
    return found.group() if len(found.group()) == 2 else "\\\\"


def _card_text_unread(text: str) -> str:
    """Card text outside a glossary term's brackets with what only Markdown reads escaped (_CARD_TEXT_UNREAD)."""
    return _CARD_TEXT_UNREAD.sub(r"\\\g<0>", _CARD_ESCAPE.sub(_card_escape_markdown, text))


def _card_text_markdown(text: str) -> str:
    """A text of the game's data as the rulebook's Markdown printing it as a card prints it (_card_text_read); a
    short one remembered: a loop joining a field with `~` escaped it again at every turn (_composed)."""
    return _card_text_remembered(text) if len(text) <= 200 else _card_text_read(text)


@functools.lru_cache(maxsize=1024)
def _card_text_remembered(text: str) -> str:
    return _card_text_read(text)


def _card_text_read(text: str) -> str:
    """A text of the game's data as the rulebook's Markdown printing it as a card prints it: 'R&amp;D `x` <br>' in
    a glossary term's text printed on the player aid as typed, in the rulebook as 'R&D x' and a line break."""
    pieces, at = [], 0
    for term in _TERM_WRITTEN.finditer(text):
        pieces += [_card_text_unread(text[at:term.start()]), term.group()]
        at = term.end()
    escaped = "".join(pieces) + _card_text_unread(text[at:])
    start = _BLOCK_START.match(escaped)
    if start is not None:
        escaped = escaped[:start.end() - 1] + "\\" + escaped[start.end() - 1:]
    return _as_typed_break(escaped)


def _printed(value: object) -> object:
    """What `{{ ... }}` prints (Jinja's finalize): refused before it is turned into text when too long, and
    refused when it is none, which Python would print as the word 'None': an optional field left out
    (`{{ card.friend }}`) printed 'None' on the cards that have none, exit 0. A number is printed as
    _number_printed says."""
    if value is None:
        raise LimitError("the value printed is none, which would print as the word 'None' (an optional field "
                         "left out?): print `x or ''`, or draw the element only `when: x`")
    if type(value) not in _SHORT_TEXTS:
        _refuse_longer(_text_size(value), "the printed text")
    if type(value) in _MARKED_TEXTS:
        return _markdown_printed(value, cast(str, value))
    return _number_printed(value)


PRINTED_DIGITS = 12  # significant digits a float worked out by a template prints with at most


def _number_printed(value: object) -> object:
    """A float as it prints: a result of arithmetic at most PRINTED_DIGITS significant digits, without the noise
    of binary fractions (`0.1 + 0.2` printed 0.30000000000000004, `2 / 3` 0.6666666666666666). Such noise is
    what needs 16 or 17 digits to write; every decimal of at most 15 digits (a value as written in a table)
    is written back as it was, and whole numbers and text are left as they are. A list, tuple or mapping
    prints its floats so too (_numbers_rounded: `{{ [0.1 + 0.2] }}` printed [0.30000000000000004])."""
    rounded = _numbers_rounded(value, as_text=True)
    return repr(rounded) if type(value) is float and rounded is not value else rounded


def printed_number(number: int | float) -> str:
    """A number as a template prints it (see _number_printed): 0.1 + 0.2 as 0.3."""
    return str(_number_printed(number))


def _numbers_rounded(value: object, plain: bool = False, as_text: bool = False) -> object:
    """`value` with each float in it as a template prints it (_number_rounded), inside lists, tuples and
    mappings too (an item of a table prints as a dict does; each copied only when a float in it changes), for
    what writes a container as text: `{{ }}`, `~`, `| string`, `| tojson`, `| pprint`. Anything else is given
    back itself. Walked without recursion: a list a loop nested 900 deep printed, and must still. `plain`:
    every mapping made a dict, every list a list (for tojson, which writes no other kind: `{{ card | tojson }}`
    was refused, "Object of type mapping is not JSON serializable"). `as_text`: the value is being written as
    text, where a none in it is refused as a none printed alone is (_refuse_none_inside)."""
    if type(value) is float or _container(value) is None:  # (a float rounded, a date written, else itself)
        return _number_rounded(value)
    done: dict[int, object] = {}  # id of a container -> itself rounded
    entered: set[int] = set()
    stack: list[object] = [value]
    while stack:
        node = stack[-1]
        kind = _container(node)
        children = _parts(node, kind)
        if id(node) not in entered:  # first its containers, then itself
            entered.add(id(node))
            stack.extend(c for c in children if _container(c) is not None and id(c) not in entered)
            continue
        stack.pop()
        if id(node) not in done:
            _refuse_none_inside(node, children, as_text)
            rounded = [done.get(id(c), c) if _container(c) is not None else _number_rounded(c) for c in children]
            same = all(new is old for new, old in zip(rounded, children)) and not (plain and type(node) is not kind)
            done[id(node)] = node if same else _made(kind, rounded, node)
    return done[id(value)]


def _refuse_none_inside(container: object, parts: list[object], as_text: bool) -> None:
    """A list, tuple or mapping a template made, written as text (`as_text`) with a none among its `parts`
    (_parts), refused as a none written alone is (_printed, _refuse_none): `{{ [card.friend] }}` printed [None]
    in Python's words, on the cards without a friend, exit 0, where `{{ card.friend }}` is refused. The game's
    own data printed whole is printed as it is (`item | string`, the fields it left out as None: a filter
    searches all of an item's text so)."""
    made = _is_built(container)
    at = next((n for n, part in enumerate(parts) if part is None), None) if as_text and made else None
    if at is None:
        return
    if isinstance(container, (list, tuple)):
        raise LimitError(f"a list written as text holds none (its item [{at}]), which would print as the word "
                         "'None': leave the nones out (`| reject('none')`) or give each a value (`x or ''`)")
    paired = _container(container) in (dict, _ITEMS)  # (its parts: each key, then its value)
    where = f" (at '{_short(str(parts[at - 1]))}')" if paired and at % 2 else ""
    raise LimitError(f"a mapping written as text holds none{where}, which would print as the word 'None' (an "
                     "optional field left out?): print the fields meant (`x.name`), or see it whole with `| tojson`")


def as_printed(value: object) -> object:
    """A value worked out by a template with its floats as a template prints them (a message quoting it says 0.3,
    not 0.30000000000000004)."""
    return _numbers_rounded(value)


_NO_ENTRIES: dict[object, object] = {}
_KEYS, _VALUES, _ITEMS = type(_NO_ENTRIES.keys()), type(_NO_ENTRIES.values()), type(_NO_ENTRIES.items())  # a dict's
# views


def _parts(node: object, kind: type | None) -> list[object]:
    """The items of a list, tuple or a mapping's view, or a mapping's keys and values in turn
    (_numbers_rounded)."""
    if kind is dict:
        return [part for pair in cast(Mapping[object, object], node).items() for part in pair]
    if kind is _ITEMS:
        return [part for pair in cast(Iterable[tuple[object, object]], node) for part in pair]
    return list(cast(Iterable[object], node))


def _made(kind: type | None, parts: list[object], was: object) -> object:
    """A list, tuple, dict or a dict's view (`kind`, as printed: `dict_items([('a', 0.3)])`) of `parts`
    (_parts), made from the container `was`. Keys that the rounding makes one keep their own values:
    `{0.1 + 0.2: 'a', 0.3: 'b'}` printed {0.3: 'b'}, one entry of two."""
    if kind in (dict, _ITEMS, _KEYS):
        keys = parts[::2] if kind is not _KEYS else parts
        if len(set(keys)) < len(keys):  # (the keys as they were, in the same order)
            keys = _parts(was, kind)[::2] if kind is not _KEYS else _parts(was, kind)
        if kind is _KEYS:
            return dict.fromkeys(keys).keys()
        made = dict(zip(keys, parts[1::2]))
        return made if kind is dict else made.items()
    if kind is _VALUES:
        return dict(enumerate(parts)).values()
    return parts if kind is list else tuple(parts)


def _container(value: object) -> type | None:
    """list, tuple or dict: how a value prints its parts (a list of the game's, a table's item, as these do;
    groupby's groups, the named tuples templates meet, print as tuples and are ones: their none and
    0.30000000000000004 were printed as Python writes them), else None."""
    if isinstance(value, list) or (isinstance(value, Sequence) and not isinstance(value, (str, bytes, range, tuple))):
        return list  # (a list of the game's kept in a Sequence of its own: `glossary | tojson` said "Object of
    if isinstance(value, tuple):  # type Reaching is not JSON serializable")
        return tuple
    if type(value) in _DICT_VIEWS:  # (`dict(a=0.1 + 0.2).items()` printed dict_items([('a', 0.30000000000000004)]))
        return type(value)
    return dict if _is_mapping(value) else None


_DICT_VIEWS = frozenset({_KEYS, _VALUES, _ITEMS})


_DATES = (datetime.date, datetime.time, datetime.timedelta)


class _DateWritten(str):
    """A date of the data inside a list or mapping written as text, as it prints alone (2020-01-02): a list of
    them printed Python's "[datetime.date(2020, 1, 2)]", and `| tojson` said "Object of type date is not JSON
    serializable"."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def _number_rounded(value: object) -> object:
    """A float worked out by a template as the float of at most PRINTED_DIGITS significant digits it prints as
    (_number_printed); anything else, and a float that prints as it is, given back itself."""
    if not isinstance(value, float) or type(value) is not float or not math.isfinite(value):
        return _DateWritten(value) if isinstance(value, _DATES) else value
    if value == 0 and math.copysign(1.0, value) < 0:  # `0 * -1.5` printed '-0.0' (round never gives it)
        return 0.0
    mantissa = repr(value).split("e")[0].lstrip("-").replace(".", "").strip("0")
    if len(mantissa) <= _WRITTEN_DIGITS:
        return value
    return float(f"{value:.{PRINTED_DIGITS}g}")


_WRITTEN_DIGITS = 15  # a decimal of this many significant digits comes back from the float nearest it


def _sum(items: Iterable[Any], start: Any = 0) -> Any:
    """sum() in linear time: adding lists one by one copies the growing list every time (quadratic)."""
    if not isinstance(items, Iterable):  # (said in Python's words: "'NoneType' object is not iterable")
        raise TypeError(f"sum adds the items of a list, and was given {_describe_value(items)}")
    items = list(items)
    if isinstance(start, (str, bytes, bytearray)):  # (refused before any adding: the items, added one by one to
        # find the pair that did not add, were a million texts joined one at a time, 16 s with no time limit seen)
        raise TypeError("sum adds numbers, and was given text to start from: join texts with `| join`")
    if not isinstance(start, (list, tuple)):
        try:
            return sum(items, start)
        except TypeError:
            total = start
            for item in items:  # (the two values it could not add, found again: sum() adds in C)
                try:
                    total = total + item
                except TypeError:
                    raise TypeError(f"sum cannot add {_describe_value(item)} to {_describe_value(total)}: it adds "
                                    "numbers (a number written as text? `| int` or `| float` makes it one)") from None
            raise TypeError(f"sum adds numbers, and was given {_describe_value(start)} to start from") from None
    _refuse_longer(len(start) + sum(_size(x) or 0 for x in items), "this sum")
    joined = list(start)
    for item in items:
        if not isinstance(item, (list, tuple)):
            raise TypeError(f"can only add lists to a list, not {_describe_value(item)}")
        joined.extend(item)
    return joined if isinstance(start, list) else tuple(joined)


def _operands_refused(operator: str, left: object, right: object) -> str:
    """Why an operator refused its two values, in a designer's words: Python's named `pow()` and `__radd__`. A
    text beside a number is most often a filter's result: a filter binds before an operator, so
    `10 ** 3 | filesizeformat` raised 10 to the power of the text '3 Bytes'."""
    message = f"'{operator}' cannot work on {_describe_value(left)} and {_describe_value(right)}"
    if {type(left), type(right)} & {str} and {type(left), type(right)} & {int, float}:
        message += (f" (a filter applies before an operator: `a {operator} b | f` is `a {operator} (b | f)`; "
                    f"write `(a {operator} b) | f`, or join texts with ~)")
    return message


_ORDERINGS: dict[str, Callable[[Any, Any], Any]] = {"lt": operator.lt, "lteq": operator.le, "gt": operator.gt,
                                                    "gteq": operator.ge}
_ORDER_SIGNS = {"lt": "<", "lteq": "<=", "gt": ">", "gteq": ">="}


def _unordered(what: str, left: object, right: object) -> str:
    """Why two values could not be ordered, in a designer's words (Python said "'<' not supported between
    instances of 'str' and 'int'"): the one message of an operator, a test, a filter or a function that orders."""
    hint = "order items by a field of theirs: `x | sort(attribute='cost')`" if _is_mapping(left) or \
        _is_mapping(right) else "a number written as text? `| int` or `| float` makes it one"
    return (f"{what} cannot order {_describe_value(left)} and {_describe_value(right)}: numbers are ordered among "
            f"numbers and text among text ({hint})")


def _order(left: Any, op: str, right: Any) -> Any:
    """`left < right` (`op`: lt, lteq, gt, gteq), as a template's operator or test orders two values
    (_Compiler writes `a < b` as a call here): values of kinds that have no order refused in pnp's words."""
    try:
        return _ORDERINGS[op](left, right)
    except TypeError:  # (of two lists, the items that cannot be ordered: `[1, 'a'] < [1, 2]` said "a list and a list")
        raise TypeError(_unordered(f"'{_ORDER_SIGNS[op]}'", *_first_unorderable(left, right))) from None


def _contained(item: Any, op: str, container: Any) -> bool:
    """`item in container` (`op`: in, notin), as a template's operator or test asks it (_Compiler writes `a in b`
    as a call of _comparison): a container that holds nothing, or an item it cannot hold, refused in pnp's words
    (Python said "argument of type 'NoneType' is not iterable", "'in <string>' requires string as left operand,
    not int", "unhashable type: 'dict'")."""
    try:
        found = item in container
    except TypeError:
        if container is None or isinstance(container, (int, float)):
            hint = " (an optional field left out?)" if container is None else ""
            raise TypeError(f"`in` looks in a list, text or mapping, not in {_describe_value(container)}{hint}") \
                from None
        if isinstance(container, str):
            raise TypeError(f"`in` of text looks for text, not {_describe_value(item)} (`x | string in t`)") from None
        if _is_mapping(container) or isinstance(container, (set, frozenset)):
            raise TypeError(f"`in` of a mapping looks for one of its keys, which {_describe_value(item)} cannot "
                            "be (text, a number, true or false)") from None
        raise
    return found if op == "in" else not found


# the equalities a chain of comparisons may hold besides the operators that order and `in`, as Python applies them
_EQUALITY: dict[str, Callable[[Any, Any], Any]] = {"eq": operator.eq, "ne": operator.ne}


def _comparison(left: Any, op: str, right: Any) -> Any:
    """A comparison of two values that _Compiler writes as a call, alone or a link of a chain (_compared_chain):
    one that orders (_order), `in` (_contained), or an equality."""
    if op in _ORDERINGS:
        return _order(left, op, right)
    return _contained(left, op, right) if op in ("in", "notin") else _EQUALITY[op](left, right)


def _order_test(op: str, value: Any, other: Any) -> Any:
    """The tests that order (`x is lt(3)`, select('>', 2)), as the operators order (_order)."""
    return _order(value, op, other)


def _abs(number: Any) -> Any:
    """abs() and the filter abs, of a value that is no number said in pnp's words."""
    _refuse_no_number(number, "abs")
    return abs(number)


def _unorderable_pair(values: Iterable[Any]) -> tuple[Any, Any] | None:
    """Two of `values` that cannot be ordered against each other, or None: each value is compared with one value
    of each type seen before it (a list with one of every list it differs from in kind)."""
    seen: list[Any] = []
    for value in values:
        for other in seen:
            try:
                _ = other < value, value < other
            except TypeError:
                return _first_unorderable(other, value)
        if all(type(other) is not type(value) or isinstance(value, (list, tuple)) for other in seen):
            seen.append(value)
            if len(seen) > 64:  # (a list of many lists of kinds alike: the pair was not found; Python's words)
                return None
    return None


def _first_unorderable(left: Any, right: Any) -> tuple[Any, Any]:
    """Of two lists that cannot be ordered, the first two of their items at one place that cannot (lists are
    ordered item by item); of any other two values, themselves."""
    while isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        for a, b in zip(left, right):
            if a != b:
                try:
                    _ = a < b
                except TypeError:
                    left, right = a, b
                    break
                return left, right
        else:
            return left, right
    return left, right


def _ordered_by(name: str, arguments: Mapping[str, Any]) -> list[list[Any]]:
    """The values a filter that orders (_ORDERING_FILTERS, given its bound `arguments`) compares, one list per
    key: the items, a field of theirs (each of sort's attributes apart), a mapping's keys or values."""
    value = arguments.get("value", ())
    if name == "dictsort":
        at = 1 if arguments.get("by") == "value" else 0
        return [[pair[at] for pair in value.items()]] if _is_mapping(value) else []
    attribute = arguments.get("attribute")
    if attribute is None:
        return [list(value)]
    parts = str(attribute).split(",") if name == "sort" else [attribute]
    return [[make_attrgetter(ENV, part)(item) for item in value] for part in parts]


def _refuse_unhashable(signature: inspect.Signature, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """unique given items it cannot tell apart whole (Python's "unhashable type: 'list'", said where its lazy
    result was read): refused so, with how to compare them by a field."""
    try:
        arguments = signature.bind(*args, **kwargs).arguments
    except TypeError:
        return  # (the filter says how it is written)
    attribute, values = arguments.get("attribute"), arguments.get("value", ())
    if not isinstance(values, Sequence) or isinstance(values, str):  # (a list of pnp's too: `components`)
        return
    if attribute is not None:
        values = [make_attrgetter(ENV, attribute)(item) for item in values]
    whole = next((value for value in values if isinstance(value, (list, dict)) or _is_mapping(value)
                  or not isinstance(value, Hashable)), None)
    if whole is not None:
        raise TypeError(f"the filter unique cannot compare {_describe_value(whole)} whole: give it a field to "
                        "compare items by, `x | unique(attribute='name')`")


def _order_refusal(what: str, keys: list[list[Any]]) -> str | None:
    """`what` (a filter or function that orders) refusing two of the values it compares, or None when no two
    are found that cannot be ordered (it failed otherwise: its own words stand)."""
    for values in keys:
        pair = _unorderable_pair(values)
        if pair is not None:
            return _unordered(what, *pair)
    return None


def _check_round_digits(ndigits: object) -> None:
    _refuse_fraction(ndigits, "rounding takes a whole number of digits")
    if isinstance(ndigits, int) and abs(ndigits) > MAX_NUMBER_BITS:  # round(5, -10**8) computes 10**10**8
        raise LimitError(f"rounding to {ndigits} digits is too many (at most {MAX_NUMBER_BITS})")


# how each of Jinja's rounding methods rounds the decimal written: `common` halves away from zero
_ROUNDING = {"common": decimal.ROUND_HALF_UP, "ceil": decimal.ROUND_CEILING, "floor": decimal.ROUND_FLOOR}


def rounded(number: Any, ndigits: Any = None, method: str = "common") -> Any:
    """`number` rounded to `ndigits` decimal places as a designer reads it, on the decimal written: halves away
    from zero (Python's round() and Jinja's round filter round them to even: `2.5 | round` printed 2.0, `0.125 |
    round(2)` 0.12), and 2.675 to 2.68 (the float nearest 2.675 lies below it: round() gave 2.67). Jinja's
    ceil and floor multiplied by a power of ten in floats: `1.1 | round(1, 'ceil')` printed 1.2, `0.29 | round(2,
    'floor')` 0.28. The result has round()'s type: an int without digits or for an int, else a float (Jinja's
    ceil and floor: always a float), never -0.0 (`-0.4 | round` printed '-0.0')."""
    exact = _exact_decimal(number)
    if exact is None or method not in _ROUNDING or isinstance(ndigits, bool) \
            or not (ndigits is None or isinstance(ndigits, int)):
        return None  # (not a case this rounds: the caller's own rounding says what is wrong)
    places, exponent = ndigits or 0, exact.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= -places:  # nothing past the digit rounded to (a finite
        # decimal's exponent is a number)
        result = exact
    else:
        with decimal.localcontext() as context:  # enough digits for the result (its exponent is -places)
            context.prec = len(exact.as_tuple().digits) + 2
            result = exact.quantize(decimal.Decimal(1).scaleb(-places), rounding=_ROUNDING[method])
    if method == "common" and (ndigits is None or isinstance(number, int)):
        return int(result)
    return float(result) + 0.0  # (+ 0.0: a negative number rounded to zero is 0.0, not '-0.0')


def _exact_decimal(number: object) -> decimal.Decimal | None:
    """A finite number as the decimal written (a float's shortest repr: 2.675, not 2.67499999...), else None.
    float's own repr, not the value's: a subclass writes itself otherwise (a simulation's measured rate writes its
    interval too, and `'%.2f' | format(sim.seat_win_rate[0])` failed)."""
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return None
    if isinstance(number, float):
        return decimal.Decimal(float.__repr__(number)) if math.isfinite(number) else None
    return decimal.Decimal(int(number))


def _refuse_no_number(value: object, what: str) -> None:
    """A value that is no number given to round or abs (function or filter), refused in pnp's words: Python said
    "type NoneType doesn't define __round__ method" (`card.cost | round` of an optional cost left out), "bad operand
    type for abs(): 'str'"."""
    if isinstance(value, Undefined):  # (what is missing is said as itself)
        value._fail_with_undefined_error()
    if not isinstance(value, (int, float)):
        raise TypeError(f"{what} takes a number, not {_describe_value(value)}")


def _round(number: Any, ndigits: Any = None) -> Any:
    """round(), halves away from zero on the decimal written (see rounded)."""
    _refuse_no_number(number, "round")
    _check_round_digits(ndigits)
    result = rounded(number, ndigits)
    return round(number, ndigits) if result is None else result


def _round_filter(value: Any, precision: Any = 0, method: str = "common") -> Any:
    """Jinja's round filter, halves away from zero on the decimal written (see rounded), its digits bounded as
    round()'s: `[10 ** 100] * 300 | map('round', -999999)` computed 10 ** 999999 once per item in C, 17 s
    between two looks at the clock."""
    _refuse_no_number(value, "round")
    _check_round_digits(precision)
    result = rounded(value, precision, method) if precision is not None else None
    if result is None:
        return jinja2.filters.do_round(value, precision, method)  # type: ignore[arg-type]
    return result


_NO_DEFAULT: Any = object()  # (int and float given no default: Jinja's own is 0)


def _int_filter(value: Any, default: Any = _NO_DEFAULT, base: Any = 10) -> Any:
    """Jinja's int filter, a text of a number too large to read refused rather than read as the default:
    `'1' * 4400 | int` is past Python's 4,300 digits and its float is infinity, and it printed 0. A value that
    is no number at all, with no default given, is refused too: `card.cost | int` of a cost 'X' printed 0."""
    number = jinja2.filters.do_int(value, default, base)
    if number is default and isinstance(value, str):
        with contextlib.suppress(ValueError):
            _finite(float(value))
    return _or_refused("int", value, number, 0)


def _float_filter(value: Any, default: Any = _NO_DEFAULT) -> Any:
    """Jinja's float filter, a value that is no number refused when no default is given (it printed 0.0)."""
    number = jinja2.filters.do_float(value, default)
    if isinstance(value, str) and too_close_to_zero(number, value.strip()):  # ('1e-400' read as 0.0, as data may not)
        raise ValueError(closer_to_zero(f"float of {shown(value)}"))
    return _or_refused("float", value, number, 0.0)


def _or_refused(name: str, value: Any, number: Any, zero: float) -> Any:
    """What int or float made of `value`; where it could not read a number and no default was given: 0 for
    nothing and blank text, as Jinja has it, and for anything else (words, a list) a refusal saying how to
    name what it stands for."""
    if number is not _NO_DEFAULT:
        return number
    if value is None or (isinstance(value, str) and not value.strip()):
        return zero
    raise ValueError(f"{name} of {_describe_value(value)}, which is no number: it would print 0; give the "
                     f"number it stands for, e.g. `| {name}(0)`, or test it first")


def _format_filter(value: Any, *args: Any, **kwargs: Any) -> str:
    """Jinja's format filter (`fmt % values`), its numbers rounded as `round` rounds them (see _rounded_for)."""
    if args and kwargs:
        raise FilterArgumentError("format takes values or names=values, not both")
    fmt, values = _percent_rounded(str(value), kwargs or args)
    return fmt % values


def _filesizeformat(value: Any, binary: bool = False) -> str:
    """Jinja's filesizeformat, a size past what a number can hold refused: it multiplies the size by 1,000
    or 1,024 before it writes it, and 1e308 came out as 'inf YB'."""
    try:
        size = float(value)
    except (TypeError, ValueError):  # (Python's words named a float, which a designer never wrote)
        raise TypeError(f"filesizeformat takes a number of bytes, not {_describe_value(value)}") from None
    _finite(size * 1024)
    return jinja2.filters.do_filesizeformat(value, binary)


class _Guarded:
    """A loop's iterable that checks the time budget as it goes (wrapped round every `{% for %}`), and notes the
    evaluation the loop ran in: its `loop` object is read only there (see _Env.getattr)."""

    __slots__ = ("_items", "_made_in", "_names")  # (named with '_': the sandbox keeps them from templates)

    def __init__(self, items: Any, names: int = 0) -> None:  # what `{% for %}` loops over: a template's value,
        # and how many names the loop sets from each of its values (`for k, v in ...`: 2; 0 for one name)
        if not isinstance(items, Iterable):  # (Python's words: "'NoneType' object is not iterable", where an
            # optional field left out is looped over, `{% for t in card.tags %}`; "'int' object is not iterable")
            raise TypeError("a `for` (or a recursive loop's `loop(...)`) goes over a list, a mapping's keys or a "
                            f"range, not {_describe_value(items)}"
                            + (" (an optional field left out? `x or []` loops over nothing)" if items is None else ""))
        self._items: Any = items
        self._made_in = _budget.evaluation
        self._names = names

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[object]:
        for value in self._items:
            tick()
            if self._names:
                _check_unpacked(value, self._names)
            yield value


def _check_unpacked(value: object, names: int, what: str = "`for`") -> None:
    """A value a `for` of several names sets them from, refused in pnp's words when it is not that many values
    (Python's: "too many values to unpack (expected 2)" for `{% for k, v in card %}`, a mapping's keys; "cannot
    unpack non-iterable int object")."""
    if isinstance(value, Iterable) and not isinstance(value, Sized):
        return  # (a generator's values are counted as Python unpacks them)
    count = len(value) if isinstance(value, Sized) else None
    if count != names:
        raise TypeError(f"a {what} of {names} names is given {_describe_value(value)}"
                        + (f" of {counted(count, 'character' if isinstance(value, str) else 'value')}"
                           if count is not None else "")
                        + f", not {names} values"
                        + (" (a mapping's keys and values are `x.items()`)" if what == "`for`" else ""))


def _check_loop_here(loop: LoopContext) -> None:
    """A `for`'s loop object is read only by the evaluation it ran in (one kept in a namespace at the top of
    macros.j2 answered loop.changed(card.kind) from the card drawn before)."""
    _refuse_elsewhere(getattr(loop._iterable, "_made_in", _budget.evaluation), "loop", "read")


# the attribute a failure in making an item of a filter's lazy result holds the place of that filter in (_Lazy.at)
_MADE_AT = "_pnp_made_at"


def _code_place() -> tuple[dict[str, Any], int] | None:
    """(the globals of its code, its Python line) of the innermost template code running (a filter's caller),
    None when none is near."""
    frame: types.FrameType | None = sys._getframe(2)
    for _ in range(6):
        if frame is None:
            return None
        if frame.f_code.co_filename in _TEMPLATE_FILES or frame.f_code.co_filename == MACROS_FILE:
            return frame.f_globals, frame.f_lineno
        frame = frame.f_back
    return None


class _Lazy:
    """A filter's lazy result (map, select, batch...) that checks the budget at each item it gives, read only by
    the evaluation that made it: one made at the top of macros.j2 was used up by the first item that read it,
    and every later item printed nothing in its place (what an item prints hung on the items drawn before it).
    `at`: where the filter is in the template code, which a failure in making an item is said at (the filter
    that failed on a text in `select('odd')` was said at the `| list` that read it, a line below)."""

    __slots__ = ("_items", "_made_in", "_at")  # (named with '_': `.items` gave templates the iterator itself, unchecked)

    def __init__(self, items: Iterator[object]) -> None:
        self._items = items
        self._made_in = _budget.evaluation
        self._at = _code_place()

    def __iter__(self) -> "_Lazy":
        return self

    def __next__(self) -> object:
        _refuse_elsewhere(self._made_in, "filter's result (read once: `| list` keeps it)", "read")
        try:
            value = next(self._items)
        except StopIteration:
            raise
        except Exception as e:  # (the innermost lazy's place: the filter whose item failed)
            if self._at is not None and not hasattr(e, _MADE_AT):
                setattr(e, _MADE_AT, self._at)
            raise
        tick(_size(value) or 1)
        return value

    def __repr__(self) -> str:  # (printed, it is refused as a generator is: _refuse_unprintable)
        return f"<generator object at 0x{id(self):x}>"



def _bounded_range(*args: object) -> range:
    """range(stop), range(start, stop) or range(start, stop, step), each a whole number, refused in pnp's words
    otherwise: Python said "'NoneType' object cannot be interpreted as an integer" (`range(card.count)` of an
    optional field left out), "range() arg 3 must not be zero", "range expected at least 1 argument"."""
    if not 1 <= len(args) <= 3:
        raise LimitError(f"range takes 1 to 3 whole numbers (an end; or a start and an end, and a step), given "
                         f"{len(args)}")
    for given in args:
        _refuse_fraction(given, "range takes whole numbers")
        if isinstance(given, bool) or not isinstance(given, int):
            raise LimitError(f"range takes whole numbers, not {_describe_value(given)}")
    if len(args) == 3 and args[2] == 0:
        raise LimitError("range's step (its third number) is 0: it would never reach its end")
    numbers = range(*cast(tuple[int, ...], args))
    if len(numbers) > MAX_ITEMS:
        raise LimitError(f"range of {len(numbers):,} numbers is too long (at most {MAX_ITEMS:,})")
    return numbers


def _dict(*args: object, **kwargs: object) -> dict[Any, Any]:
    """dict(name=value...), dict(mapping) or dict(pairs), its wrong values refused in pnp's words: Python said
    "'int' object is not iterable" (`dict(1)`), "dictionary update sequence element #0 has length 3; 2 is
    required", "dict expected at most 1 argument, got 2"; and a text of two characters was taken as a pair
    (`dict(['ab'])` made {'a': 'b'}, exit 0)."""
    if len(args) > 1:
        raise LimitError(f"dict is written `dict(name=value...)`, `dict(mapping)` or `dict(pairs)`, and was given "
                         f"{len(args)} values")
    if args and not _is_mapping(args[0]):
        pairs = args[0]
        if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable) or _is_mapping(pairs):
            raise LimitError(f"dict makes a mapping of a mapping or of a list of [key, value] pairs, not of "
                             f"{_describe_value(pairs)}")
        pairs = list(pairs)
        for n, pair in enumerate(pairs):
            if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
                raise LimitError(f"dict makes a mapping of a list of [key, value] pairs, and its item [{n}] is "
                                 f"{_describe_value(pair)}" + (f" of {len(pair)} items" if isinstance(
                                     pair, Sequence) and not isinstance(pair, (str, bytes)) else ""))
        args = (pairs,)
    return dict(*args, **kwargs)


_dict.__qualname__ = "dict"  # (printed uncalled, `{{ dict }}`, it is named as written: _refuse_unprintable)


# -- what filters and text methods would build, from their arguments -----------------------------------------

def _replaced_size(text: str, old: Any, new: Any, count: object = None) -> int:
    old, new = str(old), str(new)
    found = text.count(old) if old else len(text) + 1
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    return len(text) + found * (len(new) - len(old))


def _joined_size(items: list[Any], separator: object) -> int:
    between = len(str(separator))
    return sum(_text_size(item) for item in items) + between * max(len(items) - 1, 0)


def _wrap_size(text: str, width: object, wrapstring: object) -> int:
    """wordwrap cuts a long word by copying what is left of it at every cut: refused when that is too much."""
    longest = max(map(len, text.split()), default=0)
    if isinstance(width, int) and width > 0 and len(text) * longest // width > MAX_WRAP_WORK:
        raise LimitError(f"wrapping this text at {width} would take too long (a word of {longest:,} characters)")
    return len(text) * (1 + len(str(wrapstring or "\n")))


def _filter_join(a: dict[str, Any]) -> int:
    a["value"] = items = list(a["value"])
    if a["attribute"] is not None:  # the fields joined, not the whole items: data.cards | join(attribute='name')
        field = make_attrgetter(a["eval_ctx"].environment, a["attribute"])
        items = [field(item) for item in items]
    _refuse_none([*items, a["d"]], "join is given")
    # what join is given to write: each item, a float as a template prints it (`[0.1 + 0.2] | join` wrote
    # 0.30000000000000004), the fields already read; and the separator (`xs | join(1 / 3)` wrote 0.3333333333333333)
    # (a text of the game's data as a card prints it, each item on its own: `{{ names | join(', ') }}` printed a
    # card's 'R&amp;D' as 'R&D'; the separator is the template's own Markdown)
    a["value"] = [_markdown_printed(item, item) if type(item) in _MARKED_TEXTS else _number_printed(item)
                  for item in items]
    a["attribute"] = None
    a["d"] = _number_printed(a["d"])
    return _joined_size(a["value"], a["d"])


def _filter_replace(a: dict[str, Any]) -> int:
    a["s"] = text = _as_text(a["s"], "the text to replace in")
    _refuse_none((a["old"], a["new"]), "replace is given")
    return _replaced_size(text, a["old"], a["new"], a["count"])


def _filter_indent(a: dict[str, Any]) -> int:
    a["s"] = text = _as_text(a["s"], "the text to indent")
    indent = a["width"] if isinstance(a["width"], str) else " " * a["width"]
    return len(text) + (text.count("\n") + 1) * len(indent)


def _filter_wordwrap(a: dict[str, Any]) -> int:
    a["s"] = text = _as_text(a["s"], "the text to wrap")
    return _wrap_size(text, a["width"], a["wrapstring"])


def _filter_format(a: dict[str, Any]) -> int:
    a["value"] = fmt = _as_text(a["value"], "the format")
    return _percent_size(fmt, a["kwargs"] or tuple(a["args"]))


def _filter_urlize(a: dict[str, Any]) -> int:
    """urlize looks for a run of closing punctuation at the end of each word with a regular expression that
    tries every place in the word (in C, which no time limit stops): a word of 20,000 ')' took 12 s, a word
    of n characters up to n x n steps. Refused when its words (escaped, as urlize sees them) would take too many."""
    a["value"] = text = _as_text(a["value"], "the text given to urlize")
    escaped = str(markupsafe.escape(text))
    work = sum(len(word) ** 2 for word in escaped.split())
    if work > MAX_PATTERN_WORK:
        longest = max(map(len, escaped.split()))
        raise LimitError(f"urlize would take too long on this text (a word of {longest:,} characters)")
    return len(escaped)


def _filter_case_keys(a: dict[str, Any]) -> int:
    """sort, unique, min, max and groupby ignore case by comparing a lower-case copy of each text, all made
    inside one C call: 450 texts of a million characters took 900 MB before any look at the memory. The
    texts they would copy, counted first."""
    a["value"] = items = list(a["value"])
    if a["case_sensitive"]:
        return 0
    attribute = a["attribute"]
    if attribute is not None:  # (sort's may name several fields: "suit,rank")
        fields = [field.strip() for field in attribute.split(",")] if isinstance(attribute, str) else [attribute]
        getters = [make_attrgetter(a["environment"], field) for field in fields]
        items = [getter(item) for item in items for getter in getters]
    return sum(len(item) for item in items if isinstance(item, str))


def _filter_tojson(a: dict[str, Any]) -> int:
    """tojson with an indent writes each item on a line of its own, indented once per container it is in:
    `[[1, 2, 3]] * 100 | tojson(indent=999999)` built 800 MB in C before its size was looked at."""
    text, indent = _text_size(a["value"]), a["indent"]
    width = len(indent) if isinstance(indent, str) else indent if isinstance(indent, int) else 0
    return text * (1 + max(width, 0) * _depth(a["value"])) if width else text


def _depth(value: object) -> int:
    """How many containers (lists, tuples, mappings) are inside one another in `value`, at the deepest."""
    deepest, stack = 0, [(value, 1)]
    seen: set[int] = set()
    while stack:
        item, depth = stack.pop()
        children = list(item.values()) if _is_mapping(item) else item if isinstance(item, (list, tuple)) else None
        if children is None or id(item) in seen:
            continue
        seen.add(id(item))
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


@pass_environment
def _sum_filter(environment: jinja2.Environment, iterable: Iterable[Any], attribute: str | int | None = None,
                start: Any = 0) -> Any:
    """Jinja's sum, in linear time (see _sum)."""
    if attribute is not None:
        iterable = map(make_attrgetter(environment, attribute), iterable)
    return _sum(iterable, start)


@pass_environment
def _truncate_filter(environment: jinja2.Environment, s: Any, length: int = 255, killwords: bool = False,
                     end: str = "...", leeway: int | None = None) -> str:
    """Jinja's truncate, of text or a number as printed: given a number or true it said Python's "object of type
    'float' has no len()"."""
    if not isinstance(s, (str, int, float)) or isinstance(s, bool):
        raise ValueError(f"truncate cuts text, and was given {_describe_value(s)}")
    text = s if isinstance(s, str) else printed_number(s)
    return jinja2.filters.do_truncate(environment, text, length, killwords, end, leeway)


# filter -> what it would build (characters or items), from its bound arguments, which it may replace (a
# generator read into a list, a value turned into text once)
_FILTER_SIZES = {"join": _filter_join, "replace": _filter_replace, "indent": _filter_indent, "urlize": _filter_urlize,
                 "wordwrap": _filter_wordwrap, "format": _filter_format, "tojson": _filter_tojson,
                 **dict.fromkeys(("sort", "unique", "min", "max", "groupby"), _filter_case_keys)}
# filters that turn their value into text first: it is refused before when it would be too long
_TEXT_FILTERS = frozenset({"capitalize", "center", "e", "escape", "forceescape", "lower", "pprint", "string",
                           "striptags", "title", "tojson", "trim", "truncate", "upper", "urlencode", "urlize",
                           "wordcount", "xmlattr"})


# Filters that write HTML (entities, tags, attributes): only the rulebook's Markdown reads it as such
_HTML_FILTERS = frozenset({"e", "escape", "forceescape", "urlize", "xmlattr"})
_MARKUP_READ = contextvars.ContextVar("pnp_markup_read", default=False)  # set while the rulebook is rendered


def _refuse_html_unread(name: str) -> None:
    """An HTML filter outside the rulebook: a card, a message or a report prints its entities and tags as they
    are (`{{ 'Salt & Pepper' | e }}` printed 'Salt &amp; Pepper' on the card, exit 0)."""
    if not _MARKUP_READ.get():
        raise LimitError(f"the filter {name} writes HTML ('&amp;' for '&', '&lt;' for '<'), which only the "
                         "rulebook reads as such; here it would print as written: leave it out")


_NONE_WRITTEN = frozenset({"pprint", "tojson"})  # text filters that write none as what it is ('None', 'null')


# the filters whose value is a list (or text, or a mapping: something of items), and those whose value is a mapping
_ITEMS_FILTERS = frozenset({"batch", "count", "count_by", "first", "groupby", "join", "last", "length", "list", "map",
                            "max", "min", "reject", "rejectattr", "reverse", "select", "selectattr", "slice", "sort",
                            "sum", "unique"})
_MAPPING_FILTERS = frozenset({"dictsort", "items", "xmlattr"})  # (xmlattr of text said "'str' object has no attribute 'items'")
# the filters that compare their values (their failures: _order_refusal, and unique's _unhashable_refusal)
_ORDERING_FILTERS = frozenset({"sort", "max", "min", "dictsort", "groupby", "unique"})


def _of_items(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """A global function of a list (len, sorted, sum, and max and min given one value) refusing a number or none
    in pnp's words, as a filter of items does (_refuse_no_items)."""
    @functools.wraps(function)  # (its signature says how it is written: _said_as_written)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1:
            _refuse_no_items(name, args[0], "the function")
            if isinstance(args[0], Iterator):  # (read once: what it orders is read again on failure)
                args = (list(args[0]),)
            if name in _ORDERING_FUNCTIONS - {"sorted"} and "default" not in kwargs and not args[0]:
                # (Python's words: "min() arg is an empty sequence")
                raise ValueError(f"the function {name} is given no items: give it the value to take then, `{name}(items, "
                                 "default=0)`")
        try:
            return function(*args, **kwargs)
        except TypeError:
            refusal = _order_refusal(f"the function {name}", [list(args[0] if len(args) == 1 else args)]) \
                if name in _ORDERING_FUNCTIONS and args and not kwargs else None
            if refusal is not None:
                raise TypeError(refusal) from None
            raise
    if name in _WRITTEN:  # (Python's own names its parameters `obj`, `iterable`, or none)
        checked.__signature__ = _WRITTEN[name]  # type: ignore[attr-defined]
    return checked


_ORDERING_FUNCTIONS = frozenset({"max", "min", "sorted"})
# how the functions of items are written, for _said_as_written: max(items) or max(a, b, ...), len(items)...
_ITEMS_PARAMETER = inspect.Parameter("items", inspect.Parameter.POSITIONAL_ONLY)
_WRITTEN = {"max": inspect.Signature([_ITEMS_PARAMETER,
                                      inspect.Parameter("values", inspect.Parameter.VAR_POSITIONAL)]),
            "len": inspect.Signature([_ITEMS_PARAMETER]),
            "sorted": inspect.Signature([_ITEMS_PARAMETER,
                                         inspect.Parameter("reverse", inspect.Parameter.KEYWORD_ONLY, default=False)])}
_WRITTEN["min"] = _WRITTEN["max"]


# the filters whose numbers take a range, or whose words a few choices, checked by _refuse_out_of_range
_BOUNDED_FILTERS = frozenset({"truncate", "wordwrap", "int", "dictsort", "round", "map", "selectattr", "rejectattr",
                              "groupby", "sort", "unique", "min", "max", "sum", "join", "count", "count_by"})
# a word that takes one of a few values: (filter, parameter) -> the values
_CHOICES = {("dictsort", "by"): ("key", "value"), ("round", "method"): ("common", "ceil", "floor")}
_FIELD_NAMED = frozenset({"map", "selectattr", "rejectattr", "groupby"})  # (those given a field's name to read)
# every filter that may be given the name of a field to read of each item (`a.b` reads b of a; sort's `a,b` two)
_READS_A_FIELD = _FIELD_NAMED | {"sort", "unique", "min", "max", "sum", "join", "count", "count_by"}


def _refuse_out_of_range(name: str, signature: inspect.Signature, args: tuple[Any, ...],
                         kwargs: Mapping[str, Any]) -> None:
    """A number given truncate, wordwrap or int out of the range it takes refused in pnp's words: Jinja said
    "expected length >= 3, got -1", "expected leeway >= 0", Python's textwrap "invalid width 0 (must be > 0)",
    and int's base of 100 was said as the text being no number ('10' | int(base=100) printed 10)."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return  # (the call says how the filter is written)
    bound.apply_defaults()
    given = bound.arguments
    if name == "truncate":
        end = given.get("end")
        least = {"length": len(end) if isinstance(end, str) else 0, "leeway": 0}
    else:
        least = {"width": 1} if name == "wordwrap" else {}
    for parameter, at_least in least.items():
        value = given.get(parameter)
        if isinstance(value, int) and value < at_least:
            raise LimitError(f"the filter {name} takes a {parameter} of at least {at_least}"
                             f"{' (the length of its end)' if parameter == 'length' else ''}, not {_describe_value(value)}")
    _refuse_unknown_choice(name, given)
    if name in _FIELD_NAMED:
        _refuse_no_field(name, given)
    if name in _READS_A_FIELD:
        _refuse_empty_field_name(name, given)
    base = given.get("base", 10)
    if name == "int" and not (type(base) is int and (base == 0 or 2 <= base <= 36)):
        raise LimitError(f"the filter int takes a base from 2 to 36 (or 0: as the text writes it), not "
                         f"{_describe_value(base)}")


def _refuse_unknown_choice(name: str, given: Mapping[str, Any]) -> None:
    """A filter's word outside its few choices (dictsort's `by`, round's `method`, sort's `reverse`) refused in
    pnp's words, as its numbers are (Jinja said 'You can only sort by either "key" or "value"', 'method must be
    common, ceil or floor', at no line)."""
    for (filter_name, parameter), choices in _CHOICES.items():
        value = given.get(parameter)
        if filter_name == name and value not in choices:
            raise LimitError(f"the filter {name} takes a {parameter} of " + ", ".join(f"'{c}'" for c in choices[:-1])
                             + f" or '{choices[-1]}', not {_describe_value(value)}")
    reverse = given.get("reverse", False)
    if name in ("sort", "dictsort") and not isinstance(reverse, int):  # (Python: "'NoneType' object cannot be
        # interpreted as an integer")
        raise LimitError(f"the filter {name} takes true or false as its reverse, not {_describe_value(reverse)}")


def _refuse_no_field(name: str, given: Mapping[str, Any]) -> None:
    """A filter that reads a field (_FIELD_NAMED) given none to read, or none as the field's name:
    `map(attribute=none)` gave the items themselves back, `selectattr(none)` and `groupby(none)` tested and
    grouped them whole, as if no field had been named (a variable holding the name, left out)."""
    args, kwargs = given.get("args", ()), given.get("kwargs", {})
    if name != "groupby" and not args and "attribute" not in kwargs:  # (Jinja: "map requires a filter argument")
        raise LimitError(f"the filter {name} takes " + ("a filter's name, `map('upper')`, or a field's, "
                         "`map(attribute='name')`" if name == "map" else f"the name of a field, `{name}('name')`"))
    field = given.get("attribute", _ABSENT) if name == "groupby" else \
        kwargs.get("attribute", _ABSENT) if name == "map" and not args else args[0] if name != "map" and args else _ABSENT
    if field is None:
        raise LimitError(f"the filter {name} takes the name of a field to read, not nothing (none)")


def _refuse_empty_field_name(name: str, given: Mapping[str, Any]) -> None:
    """A field's name given a filter (_READS_A_FIELD) with an empty part refused as such: `map(attribute='')`,
    'cost.' or 'a..b' (a dot reads a field of the field before it) said "text ('b') has no attribute ''", as if
    the item were at fault; sort's 'cost,' (a comma parts several fields) sorted by cost alone, without a word."""
    args, kwargs = given.get("args", ()), given.get("kwargs", {})
    field = (args[0] if args else _ABSENT) if name in ("selectattr", "rejectattr") else \
        (_ABSENT if args else kwargs.get("attribute", _ABSENT)) if name == "map" else given.get("attribute", _ABSENT)
    if not isinstance(field, str):
        return
    if field == "":
        raise LimitError(f"the filter {name} takes the name of a field to read, not an empty text ('')")
    for part in field.split(",") if name == "sort" else (field,):
        where = "is empty" if part == "" else "ends in a dot" if part.endswith(".") else \
            "starts with a dot" if part.startswith(".") else "has two dots in a row" if ".." in part else None
        if where is not None:
            of = "" if part == field else f" (of '{field}': a comma parts fields)"
            raise LimitError(f"the filter {name} is given the field name '{part}', which {where}{of}")


def _refuse_no_items(name: str, value: object, what: str = "the filter") -> None:
    """A number, true/false or none given to a filter of items is refused in pnp's words (Python said "'int'
    object is not iterable", "object of type 'float' has no len()", Jinja "argument must be iterable"); so is
    anything but a mapping given to dictsort or items ("'str' object has no attribute 'items'")."""
    if name in _MAPPING_FILTERS and not (_is_mapping(value) or isinstance(value, Undefined)):
        raise LimitError(f"{what} {name} takes a mapping, not {_describe_value(value)}")
    # (and what holds no items at all: a component, `components[0] | length`, said "object of type 'Component'
    # has no len()")
    if value is None or isinstance(value, (int, float)) or not isinstance(value, (Iterable, Undefined)):
        raise LimitError(f"{what} {name} takes a list (or text, a mapping), not {_describe_value(value)}")


def _refuse_unpaired(value: Any) -> Any:
    """urlencode's value: text, a number, a mapping, or a list of (key, value) pairs, which any other list is
    refused as not being (Jinja said "cannot unpack non-iterable float object"); a lazy result read once."""
    if isinstance(value, (str, int, float, type(None))) or _is_mapping(value) or not isinstance(value, Iterable):
        return value
    pairs = list(value)
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise LimitError("the filter urlencode takes text, a mapping or a list of (key, value) pairs, and was "
                             f"given a list holding {_describe_value(pair)}")
    return pairs


# the filters that apply another filter or a test named in their arguments, by the place of that name among them
# (after the value): map('upper'), select('odd'), selectattr('power', 'odd')
_NAMING_FILTERS = {"map": ("filter", 0), "select": ("test", 0), "reject": ("test", 0), "selectattr": ("test", 1),
                   "rejectattr": ("test", 1)}
INTERNAL_PREFIX = "_pnp_"  # pnp's own filters, which its compiler writes: a template may not name them


def _refuse_unknown_named(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """A filter or test that a map, select, reject, selectattr or rejectattr names and that does not exist,
    refused as the filter is given it: its result is lazy and Jinja looked the name up at its first item, so the
    mistake was said where the result was read (`| list` on the next line), and not at all with no item."""
    kind, place = _NAMING_FILTERS[name]
    if len(args) <= place or name == "map" and "attribute" in kwargs:
        return
    named, table = args[place], ENV.filters if kind == "filter" else ENV.tests
    try:
        known = named in table and not str(named).startswith(INTERNAL_PREFIX)
    except TypeError:  # (a list named, which no table holds)
        known = False
    if not known:
        raise TemplateRuntimeError(f"No {kind} named {named!r}.")  # (as Jinja's own: _unknown_name says it)


def _guard_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """A built-in filter with its number arguments, its value's text, what it builds and its lazy results
    kept within the limits."""
    skip = 1 if hasattr(function, "jinja_pass_arg") else 0  # the context Jinja passes first
    signature = inspect.signature(function)
    # a filter with an async variant (slice, list, first) is a wrapper taking the context its own function does
    # not: the signature (its function's) starts one argument later than what the filter is called with
    unlisted = 1 if skip and not hasattr(inspect.unwrap(function), "jinja_pass_arg") else 0
    sizer, text_filter, formats = _FILTER_SIZES.get(name), name in _TEXT_FILTERS, name == "format"
    quotes_none = (text_filter or name == "safe") and name not in _NONE_WRITTEN
    writes_html = name in _HTML_FILTERS
    of_items = name in _ITEMS_FILTERS | _MAPPING_FILTERS
    orders = name in _ORDERING_FILTERS
    widths = [(n + unlisted, parameter) for n, parameter in enumerate(signature.parameters)
              if parameter in _WIDTH_PARAMETERS | _WHOLE_PARAMETERS]
    texts = [(n + unlisted, parameter) for n, parameter in enumerate(signature.parameters)
             if parameter in _TEXT_PARAMETERS]

    def guarded(*args: Any, **kwargs: Any) -> Any:
        value_given = args[skip:skip + 1]  # (its value as given: replace's sizer turns it into plain text)
        if name in _NAMING_FILTERS:
            _refuse_unknown_named(name, args[skip + 1:], kwargs)
        if writes_html:
            _refuse_html_unread(name)
        if name == "urlencode" and len(args) > skip:
            args = (*args[:skip], _refuse_unpaired(args[skip]), *args[skip + 1:])
        if of_items and len(args) > skip:
            _refuse_no_items(name, args[skip])
            if orders and isinstance(args[skip], Iterator):  # (read once: what it orders is read again on failure)
                args = (*args[:skip], list(args[skip]), *args[skip + 1:])
        for n, parameter in widths:
            given = args[n] if n < len(args) else kwargs.get(parameter, _ABSENT)
            if parameter in _COUNT_PARAMETERS:
                _check_count(None if given is _ABSENT else given, name)
            _refuse_kind(given, "indent" if name in ("indent", "tojson") else "whole", parameter in _WHOLE_OR_NONE,
                         f"the filter {name} takes {{}} as its {parameter}")
            _refuse_fraction(given, f"the filter {name} takes a whole number as its {parameter}")
            _check_int(given, "the number")
        for n, parameter in texts:
            _refuse_kind(args[n] if n < len(args) else kwargs.get(parameter, _ABSENT), "text",
                         _TEXT_PARAMETERS[parameter], f"the filter {name} takes {{}} as its {parameter}")
        if text_filter and len(args) > skip and type(args[skip]) not in _SHORT_TEXTS:
            _refuse_longer(_text_size(args[skip]), f"the text given to {name}")
        if quotes_none and len(args) > skip:
            _refuse_none((args[skip],), f"the filter {name} is given")
            args = (*args[:skip], _number_printed(args[skip]), *args[skip + 1:])  # (a float as `{{ }}` prints it)
        elif text_filter and len(args) > skip:  # (tojson, pprint: the floats in what they write, so too)
            args = (*args[:skip], _numbers_rounded(args[skip], plain=name == "tojson"), *args[skip + 1:])
        if name == "unique":  # (before: its result is lazy, and fails where it is read)
            _refuse_unhashable(signature, args[unlisted:], kwargs)
        if name in _BOUNDED_FILTERS:
            _refuse_out_of_range(name, signature, args[unlisted:], kwargs)
        try:
            if sizer is not None:
                bound = signature.bind(*args[unlisted:], **kwargs)
                bound.apply_defaults()
                _refuse_longer(sizer(bound.arguments), f"what {name} builds")
                args, kwargs = (*args[:unlisted], *bound.args), bound.kwargs
            with _counted_calls(), _in_format_range(lambda: _percent_refused(str(args[0]), kwargs or args[1:])) \
                    if formats else contextlib.nullcontext():
                result = function(*args, **kwargs)  # (a filter's own loop in Python, urlize's, is template work too)
        except TypeError:
            _refuse_arguments(f"the filter {name}", f"x | {name}", signature, args[unlisted:], kwargs,
                              skip - unlisted + 1)
            if orders:
                bound = signature.bind(*args[unlisted:], **kwargs)
                refusal = _order_refusal(f"the filter {name}", _ordered_by(name, bound.arguments))
                if refusal is not None:
                    raise TypeError(refusal) from None
            raise
        if isinstance(result, Iterator):
            return _Lazy(result)
        return _check_result(_data_text_kept(name, value_given, result))

    for attr in ("jinja_pass_arg", "__name__", "__doc__"):
        if hasattr(function, attr):
            setattr(guarded, attr, getattr(function, attr))
    return guarded


def _refuse_arguments(what: str, written: str, signature: inspect.Signature, args: tuple[Any, ...],
                      kwargs: dict[str, Any], taken: int) -> None:
    """ValueError saying how a filter, a test or a function is written (`written`: `x | lookup`, `x is
    divisibleby`, `round`), when it was not given the values it takes: Python's own message named the function
    behind it and counted the filtered value and Jinja's context among the values (`x | lookup` said
    "_lookup_ids() missing 1 required positional argument", `| wordcount(2)` "takes 1 positional argument but 2
    were given", `joiner(1, 2)` "_Joiner.__init__() takes from 1 to 2 positional arguments"). `taken`: the
    arguments Jinja gives before those written in brackets (its context, the value filtered or tested)."""
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        pass
    else:
        return  # (the arguments fit: it failed inside, and says so itself)
    listed = []
    for parameter in list(signature.parameters.values())[taken:]:
        if parameter.kind is parameter.VAR_POSITIONAL:
            listed.append("...")
        elif parameter.kind is parameter.VAR_KEYWORD:
            listed.append("name=value...")
        elif parameter.default is parameter.empty:
            listed.append(parameter.name)
        elif type(parameter.default) in _SHORT_TEXTS:
            listed.append(f"{parameter.name}={parameter.default!r}")
        else:  # (a default only Python can write, `object()`, printed its address)
            listed.append(f"{parameter.name}=...")
    usage = f"{written}({', '.join(listed)})" if listed or not written.startswith("x ") else written
    given = max(len(args) - taken, 0)
    values = f"{given} value{'s' if given != 1 else ''}" + "".join(f" and {key}=" for key in kwargs)
    raise ValueError(f"{what} is written `{usage}`, and was given {values}")


def _said_as_written(what: str, written: str, function: Callable[..., Any], value: bool) -> Callable[..., Any]:
    """A test (`value`: it is given the value tested first) or a global function, its wrong values said as how it
    is written (_refuse_arguments) rather than in Python's words, which named pnp's function behind it."""
    signature = inspect.signature(function)
    taken = (1 if hasattr(function, "jinja_pass_arg") else 0) + (1 if value else 0)

    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TypeError:
            _refuse_arguments(what, written, signature, args, kwargs, taken)
            raise

    for attr in ("jinja_pass_arg", "__name__", "__doc__"):
        if hasattr(function, attr):
            setattr(checked, attr, getattr(function, attr))
    # named as written where it is printed uncalled: `{{ range }}` was refused as
    # "<_said_as_written.<locals>.checked>", pnp's own names (_refuse_unprintable)
    checked.__qualname__ = written
    return checked


def _stripped_size(text: str, chars: object = None) -> int:
    """strip looks for each character it may take off among `chars`: 300,000 of them on a text as long took 5 s
    in C, which no time limit stops. Refused when that work is too much."""
    if isinstance(chars, str) and len(text) * len(chars) > MAX_SCAN_WORK:
        raise LimitError(f"stripping any of {len(chars):,} characters from a text of {len(text):,} characters would "
                         "take too long")
    return len(text)


# text method -> what it would build, from the text and the call's arguments, refused before it builds; the other
# methods of METHOD_KINDS build at most a few times their text or a width given as a number (checked, _check_int)
_METHOD_SIZES: dict[str, Callable[..., int]] = {"join": lambda text, items, *_: _joined_size(list(items), text),
                                                "replace": _replaced_size, "strip": _stripped_size,
                                                "lstrip": _stripped_size, "rstrip": _stripped_size}


class _Kind:
    """Values of some of Python's built-in types, as a message names them, and the methods templates may call
    on them: every other attribute those types define is refused (Jinja's sandbox offers them all)."""

    __slots__ = ("name", "types", "offered", "defined")

    def __init__(self, name: str, types: tuple[type, ...], offered: frozenset[str]) -> None:
        self.name, self.types, self.offered = name, types, offered
        self.defined = frozenset(attribute for kind in types for attribute in dir(kind))  # (what is closed)

    def refusal(self, attribute: str) -> str:
        return (f"'{attribute}' of {self.name} is not allowed in a template; templates may call " +
                (f"these methods of {self.name}: {', '.join(sorted(self.offered))}" if self.offered else
                 f"no method of {self.name}"))


# The methods templates may call, each cheap and bounded (see docs/reference.md, Templates). Text: each builds
# at most three times its text (a case change: 'ß' is 'SS'), or a width checked (_check_int), or what
# _METHOD_SIZES sizes first; searching (count, find, index, split, partition, startswith...) takes time linear in
# the text. Lists: count and index compare items as `in` does. Mappings: a look-up or a view. Data a class adds
# of its own (a group's `grouper` from groupby, a game's fields) stay open; its own methods are closed as the
# type's are (see _Env.is_safe_attribute).
_TEXT_METHODS = frozenset({
    "capitalize", "center", "count", "endswith", "find", "format", "index", "isalnum", "isalpha", "isdecimal",
    "isdigit", "islower", "isnumeric", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip",
    "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit",
    "rstrip", "split", "splitlines", "startswith", "strip", "title", "upper", "zfill"})
METHOD_KINDS = (
    _Kind("text", (str,), _TEXT_METHODS),
    _Kind("a list", (list, tuple, range), frozenset({"count", "index"})),
    _Kind("a mapping", (dict, Mapping), frozenset({"get", "items", "keys", "values"})),
    _Kind("a number", (int, float), frozenset({"is_integer"})),
    _Kind("the keys, values or items of a mapping", (KeysView, ValuesView, ItemsView), frozenset()),
    _Kind("a set", (set, frozenset), frozenset()),
    _Kind("bytes", (bytes, bytearray), frozenset()),
    # A date of the data (YAML reads `2020-01-02` as one): its fields and how it is written, nothing that reads
    # the clock or the machine's time zone (today(), now(), astimezone(), timestamp(), strftime's %s): they printed
    # the day of the build (other bytes on each day) and read the system's zone files, outside the project
    _Kind("a date", (datetime.date, datetime.time, datetime.timedelta, datetime.tzinfo), frozenset({
        "year", "month", "day", "hour", "minute", "second", "microsecond", "days", "seconds", "microseconds",
        "isoformat", "weekday", "isoweekday"})),
)
_KIND_OF: dict[type, _Kind | None] = {}  # type -> its kind, found once


def _kind_of(value: object) -> _Kind | None:
    """The kind of `value` whose methods are closed, None for other values (a namespace, a loop, a macro)."""
    kind_type = type(value)
    if kind_type not in _KIND_OF:
        _KIND_OF[kind_type] = next((kind for kind in METHOD_KINDS if isinstance(value, kind.types)), None)
    return _KIND_OF[kind_type]


class _NotOffered(SecurityError):
    """A method of a built-in type that templates may not call: its message says which they may."""


class MissingMacros:
    """What templates see as `macros` when macros.j2 is not there or did not load: `macros.NAME` says so. It was
    none, so a typo in macros.j2 was said again at each derived field and constraint calling a macro, as "no field
    'NAME': the value is none here (is there no item for this template?)", and before its own error."""

    __slots__ = ("_why",)  # (a name templates cannot read)

    def __init__(self, why: str) -> None:
        self._why = why  # why there are no macros, said after "no macro 'NAME':"

    def __bool__(self) -> bool:
        return False


class _Undefined(StrictUndefined):
    """Undefined values whose messages say what was missing in the designer's terms."""

    __slots__ = ()

    @property
    def _undefined_message(self) -> str:
        if self._undefined_hint:
            return _hint_said(self._undefined_hint)
        name: object = self._undefined_name
        obj = self._undefined_obj
        if obj is missing:
            return f"'{name}' is not defined"
        if isinstance(obj, Mapping):
            return _missing_key(name, obj)
        if obj is None:
            return f"no field '{name}': the value is none here (is there no item for this template?)"
        if isinstance(obj, MissingMacros):
            return f"no macro '{name}': {obj._why}"
        if isinstance(obj, TemplateModule):  # (macros.j2's: `macros.badg(card)` said "a value has no attribute")
            names = sorted(n for n in vars(obj) if not n.startswith("_"))
            return f"macros.j2 has no macro '{name}'{did_you_mean(name, names)}; it has: {_listed(names) or 'none'}"
        name = _number_rounded(name)
        if isinstance(name, int) and isinstance(obj, (list, tuple, range, str)):  # (`data.cards[10]` said "a list
            # has no attribute '10'")
            return _past_the_end(obj, name)
        if not isinstance(name, str) and isinstance(obj, (list, tuple, range, str)):  # (`xs[card.slot]` of none
            # said "a list has no attribute 'None'")
            return f"{_describe_value(obj)} is read by whole numbers ([0], [1]...), not {_describe_value(name)}"
        return f"{_describe_value(obj)} has no attribute '{name}'"


def _hint_said(hint: str) -> str:
    """A hint Jinja gave an undefined value, in pnp's words where pnp knows it (`first`/`last`/`random` of an
    empty list said "No first item, sequence was empty.")."""
    said = re.fullmatch(r"No (first|last|random) item, sequence was empty\.", hint)
    return f"`{said[1]}` of an empty list: there is no item to take" if said else hint


def _missing_key(name: object, mapping: Mapping[Any, Any]) -> str:
    """Why `mapping.name` found nothing, with the fields (or ids, or tables: _keys_named) it has. A float worked
    out prints as a template prints it, as does each key listed; each is written in full where printed so they
    would read alike (`{0.1 + 0.2: 1}[0.3]`)."""
    kind = _keys_named(mapping)
    if type(name) is int and str(name) in mapping:  # (Jinja reads a field name of digits as a number: it was said as
        # "no field '1' (did you mean '1'?)")
        return (f"no {kind} numbered {name}: the {kind} '{name}' is a text, and a name of digits (`x[{name}]`, "
                f"`map(attribute='{name}')`) is read as a number: write `x['{name}']`, `map('attr', '{name}')`")
    texts = _keys_as_text(mapping)
    keys, listed = texts.rounded, texts.listed_rounded
    if str(_number_rounded(name)) in texts.rounded_set:
        keys, listed = texts.plain, texts.listed_plain
    else:
        name = _number_rounded(name)
    missed = f"no item with the id '{name}'" if kind == "id" else f"no {kind} '{name}'"
    return f"{missed}{did_you_mean(name, keys)}; the {kind}s here are: {listed or 'none'}"


def _listed(names: list[str]) -> str:
    """The first dozen names, as a message lists them."""
    return ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")


def _keys_named(mapping: Mapping[Any, Any]) -> str:
    """What a mapping's keys name, as a message says them: what the mapping says (`keys_named`: the game's
    tables, `data` and `ref`, say "table"), "id" for a mapping of items by their ids (`ref.cards`: its keys are
    no fields), else "field"."""
    named = getattr(type(mapping), "keys_named", None)
    if isinstance(named, str):
        return named
    first = next(iter(mapping.items()), None)
    if first is not None and _is_mapping(first[1]) and "id" in first[1] and first[1]["id"] == first[0]:
        return "id"
    return "field"


def _past_the_end(sequence: list[Any] | tuple[Any, ...] | range | str, index: int) -> str:
    """Why `sequence[index]` found nothing: it has fewer items (counted from 0, or from the end with -1)."""
    what, unit = ("the text", "character") if isinstance(sequence, str) else ("the list", "item")
    count, written = len(sequence), _short(str(index))  # (quoted, not copied: an index of 1,200 digits was)
    if not count:
        return f"[{written}]: {what} is empty"
    return (f"[{written}]: {what} has {count:,} {unit}{'s' if count != 1 else ''}, [0] to [{count - 1}] (or [-{count}] "
            "to [-1] from its end)")


def _describe_value(value: object) -> str:
    """A template's value as a message names it: its type, and a scalar quoted (short, as in the template)."""
    if value is None:
        return "nothing (none)"
    if isinstance(value, str) and type(value) is not str:  # (Markup's own repr was quoted: "Markup('10')")
        value = str.__str__(value)
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return f"{type_name(value)} ({shown(_number_rounded(value), 30)})"  # (a float as printed, not 0.30000000000000004)
    return "a list" if isinstance(value, tuple) else type_name(value)


def _short(text: str, n: int = 30) -> str:
    return shortened(text, n)


# type -> is it a Mapping: asked on every field a template reads, of a handful of types
_IS_MAPPING: dict[type, bool] = {}


def _is_mapping(value: object) -> TypeGuard[Mapping[Any, Any]]:
    found = _IS_MAPPING.get(type(value))
    if found is None:
        found = _IS_MAPPING[type(value)] = isinstance(value, Mapping)
    return found


_TOO_DEEP = f"more than {MAX_NESTING} operators, brackets or blocks inside one another"


class _TooBig(TemplateSyntaxError):
    """A template pnp will not compile: too long, too many parts, nested too deep, a number past what a float
    holds."""


class _Empty(_TooBig):
    """An expression of nothing (`when: ""`, a derived field of spaces): said in Jinja's words, "unexpected 'end of
    template'", it sent the designer looking for a template that ended too soon."""

_DEBUG_INFO = re.compile(r"^debug_info = '([\d=&]*)'", re.M)


def _check_source(source: str) -> None:
    if len(source) > MAX_SOURCE:
        raise _TooBig(f"the template is {len(source):,} characters long (at most {MAX_SOURCE:,})", 1)


def _parsed(parser: Parser, parse: Callable[[], _Node]) -> _Node:
    """`parse()`, with Jinja's recursive parser running out of stack said as too deep, at the line it reached."""
    try:
        return parse()
    except RecursionError:
        raise _TooBig(_TOO_DEEP, parser.stream.current.lineno) from None


def _counted(tokens: Iterable[Token]) -> Iterator[Token]:
    """A template's tokens, refused past MAX_TOKENS: parsing and compiling cost grows with them."""
    for count, token in enumerate(tokens, 1):
        if count > MAX_TOKENS:
            raise _TooBig(f"the template has more than {MAX_TOKENS:,} names, operators and tags (real ones have a "
                          "few thousand)", token.lineno)
        yield token


_BITS_PER_DIGIT = {"b": 1, "o": 3, "x": 4}  # after 0b, 0o, 0x (the prefix's two characters count too)


def _numbers_checked(tokens: Iterable[tuple[int, str, str]]) -> Iterator[tuple[int, str, str]]:
    """The lexer's raw tokens, a number written too large refused at its line: `1e400` is infinity, which
    Jinja's compiled code cannot write back (a NameError), and a 5,000-digit integer is past Python's own
    limit for reading one."""
    for lineno, kind, value in tokens:
        if kind in ("integer", "float"):
            digits = value.replace("_", "")
            # (a decimal's leading zeros count: Python's limit on reading one counts every digit, and 5,000
            # zeros were refused in its words, "Exceeds the limit (4300 digits) for integer string conversion")
            base_bits = _BITS_PER_DIGIT.get(digits[1:2].lower())
            too_large = not math.isfinite(float(digits)) if kind == "float" else \
                len(digits if base_bits is None else digits.lstrip("0")) * (base_bits or 10 / 3) > MAX_NUMBER_BITS
            if too_large:
                raise _TooBig(f"the number {_short(value)} is too large (at most about 1,200 digits)", lineno)
            if kind == "float" and too_close_to_zero(float(digits), digits):  # (1e-400 printed 0.0, as data may not)
                raise _TooBig(closer_to_zero(f"the number {_short(value)}"), lineno)
        yield lineno, kind, value


def _route_unpacking(node: nodes.Node) -> None:
    """A loop's values through _Guarded (with how many names the loop sets from each: `for k, v in ...`), and
    the value of a `{% set a, b = ... %}` through _checked_unpacking, so that what does not unpack is said in
    pnp's words."""
    if isinstance(node, nodes.For) and not (isinstance(node.iter, nodes.Filter) and node.iter.name == "_pnp_loop"):
        names = len(node.target.items) if isinstance(node.target, nodes.Tuple) else 0
        node.iter = nodes.Filter(node.iter, "_pnp_loop", [nodes.Const(names)], [], None, None, lineno=node.lineno)
    if isinstance(node, nodes.Assign) and isinstance(node.target, nodes.Tuple) and not (
            isinstance(node.node, nodes.Filter) and node.node.name == "_pnp_unpack"):
        node.node = nodes.Filter(node.node, "_pnp_unpack", [nodes.Const(len(node.target.items))], [], None, None,
                                 lineno=node.lineno)


def _checked_unpacking(value: Any, names: int) -> Any:
    """The value a `{% set a, b = ... %}` sets its names from, refused in pnp's words when it is not so many
    values (Python's: "cannot unpack non-iterable int object", "too many values to unpack (expected 2)")."""
    _check_unpacked(value, names, "`set`")
    return value


def _bounded_tree(tree: _Node) -> _Node:
    """Refuse a template nested too deep to compile (Jinja's compiler and Python's recurse on
    nesting: 250 chained `+` overflow them), then route its loops and its `~` through the guards. The walk
    is iterative: the tree may be thousands deep."""
    stack: list[tuple[nodes.Node, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise _TooBig(_TOO_DEEP, node.lineno or 1)
        _refuse_autoescape(node)
        _route_unpacking(node)
        for field, value in node.iter_fields():
            children = value if isinstance(value, list) else [value]
            for i, child in enumerate(children):
                guarded = _guarded(node, child)
                if guarded is not child:
                    child = children[i] = guarded
                    if children is not value:
                        setattr(node, field, child)
                if isinstance(child, nodes.Node):
                    stack.append((child, depth + 1))
    return tree


# the operands a template takes as true or false (`{% if %}`, `x if c else y`, `{% for x in xs if c %}`, not, and,
# or), by the node's field. Of `a and b` and `a or b` only `a`: the value of `b` is the operator's result, tested
# where that is (`{% for x in ys or xs | select('odd') %}` was refused, a loop over a filter's result being valid),
# and `{% for x in xs if xs | select(...) %}` looped over every item, the filter's result true with no item
_TRUTH_TESTED: dict[type, tuple[str, ...]] = {nodes.If: ("test",), nodes.CondExpr: ("test",), nodes.For: ("test",),
                                              nodes.Not: ("node",), nodes.And: ("left",), nodes.Or: ("left",)}


def _truth_tested(tree: _Node) -> _Node:
    """Each value a template takes as true or false routed through _truth: a filter's lazy result is true
    however many items it gives (`{% if data.cards | selectattr('kind', 'eq', 'dragon') %}` was true with no
    dragon, and printed what it guarded, exit 0). Jinja's own filters test such a result's truth (select does),
    so it is refused where the template tests it, not where it is made. (After _bounded_tree: as deep.)"""
    for node in [tree, *tree.find_all(tuple(_TRUTH_TESTED))]:
        for field in _TRUTH_TESTED.get(type(node), ()):
            value = getattr(node, field)
            if isinstance(value, nodes.Expr) and not (isinstance(value, nodes.Filter) and value.name == "_pnp_truth"):
                setattr(node, field, nodes.Filter(value, "_pnp_truth", [], [], None, None, lineno=value.lineno))
    return tree


def _truth(value: _T) -> _T:
    """A value a template takes as true or false (_truth_tested), refused when it is a filter's lazy result."""
    if type(value) is _Lazy:
        raise LimitError("a filter's result (map, select, reject...) is true even when it gives no item: test "
                         "`x | list` (an empty list is false) or `x | first is defined`")
    return value


def _refuse_autoescape(node: nodes.Node) -> None:
    """`{% autoescape true %}` refused: what it escapes prints as written on a card ('a &amp; b', exit 0); the
    rulebook, whose Markdown reads entities, escapes a text with `| e`."""
    if isinstance(node, nodes.EvalContextModifier) and any(k.key == "autoescape" for k in node.options):
        raise _TooBig("{% autoescape %} writes HTML ('&amp;' for '&'), which a card prints as written: leave "
                      "it out (the rulebook may escape a text with `| e`)", node.lineno or 1)


def _guarded(parent: nodes.Node, child: object) -> object:
    """A node of the tree as the guards see it: `a ~ b` through _concat, a list, tuple or mapping it writes
    through _check_result (see _held); any other node, or one its parent already guards, as it is."""
    if isinstance(parent, nodes.Filter) and parent.name in ("_pnp_built", "_pnp_concat"):
        return child
    if isinstance(child, (nodes.List, nodes.Dict)) or isinstance(child, nodes.Tuple) and child.ctx == "load":
        return nodes.Filter(child, "_pnp_built", [], [], None, None, lineno=child.lineno)
    if isinstance(child, nodes.Concat):
        return nodes.Filter(nodes.List(child.nodes, lineno=child.lineno), "_pnp_concat", [], [], None, None,
                            lineno=child.lineno)
    return child


# The Python file name a template rendered with its lines traced is compiled under (see render's `origins`)
TRACED_FILE = "<traced>"
# Blocks whose output Jinja gathers into a text rather than yielding it (a recursive loop's too): their
# pieces are told by the node that prints that text (a macro's call, `{{ x }}` after `{% set x %}`, the block
# itself), not one by one
_BUFFERED = (nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.AssignBlock)


def _traced_tree(node: nodes.Node) -> None:
    """Route every piece of text the template yields through _pnp_origin with the template line that writes
    it, and whether it is written literally (its later lines are then the template's next lines): Jinja's
    own debug information gives a literal piece the line of the node before it. Literal text is no longer
    folded into its neighbours, so each piece knows its own line."""
    for child in node.iter_child_nodes():
        if isinstance(child, _BUFFERED) or isinstance(child, nodes.For) and child.recursive:
            continue
        if isinstance(child, nodes.Output):
            child.nodes = [_origin_of(piece) for piece in child.nodes]
        _traced_tree(child)


def _origin_of(piece: nodes.Expr) -> nodes.Expr:
    literal = isinstance(piece, nodes.TemplateData)
    value = nodes.Const(piece.data, lineno=piece.lineno) if isinstance(piece, nodes.TemplateData) else piece
    return nodes.Filter(value, "_pnp_origin", [nodes.Const(piece.lineno), nodes.Const(literal)], [], None, None,
                        lineno=piece.lineno)


class _Origin(threading.local):
    """The template line of the piece of text about to be yielded, and whether it is literal text."""

    at: tuple[int, bool] | None = None


_ORIGIN = _Origin()


@pass_context  # (a filter given the context is never folded into a constant by Jinja's compiler)
def _pnp_origin(context: Context, value: Any, line: int, literal: bool) -> Any:
    _ORIGIN.at = (line, literal)
    return value


def _yield_line(pieces: Generator[str, None, None], template: Template) -> int:
    """The template line of the yield a generated template stands at (Jinja's debug information): for what
    a block that gathers its text yields (`{% filter %}`, `{% call %}`), the line of that block."""
    inner: Any = pieces  # (typed Generator has no gi_frame)
    frame = inner.gi_frame
    while getattr(inner, "gi_yieldfrom", None) is not None and hasattr(inner.gi_yieldfrom, "gi_frame"):
        inner = inner.gi_yieldfrom
        frame = inner.gi_frame
    return template.get_corresponding_lineno(frame.f_lineno) if frame is not None else 1


def _template_line_of_code(code: str, line: int | None) -> int:
    """The template line that generated Python line `line` came from (Jinja's debug_info maps them)."""
    found = _DEBUG_INFO.search(code)
    if found is None or not found.group(1) or line is None:
        return 1
    pairs = [tuple(map(int, pair.split("="))) for pair in found.group(1).split("&")]
    return max((template for template, python in pairs if python <= line), default=1)


_FORMATTER = string.Formatter()
_JINJA_CALL_KEYS = ("_loop_vars", "_block_vars")  # what Jinja passes along to every call, for macros


def _compared_chain(left: Any, *pairs: Callable[[Any], tuple[Any, Any]]) -> Any:
    """`a < b <= c`, a chain of comparisons (_Compiler writes it as a call here): each pair compared as `a < b`
    alone is (_comparison: values of no order said in pnp's words, where Python said "'<' not supported between
    instances of 'int' and 'str'"), each operand read once and none after the first pair that is false, as
    Python's chain. Each of `pairs` is a function of the template's code, at its operator's line, comparing the
    value before with its operand (_compared_pair): a pair that fails is said at its own line."""
    result: Any = True
    for pair in pairs:
        result, left = pair(left)
        if not result:
            return result
    return result


def _compared_pair(left: Any, op: str, right: Any) -> tuple[Any, Any]:
    """A pair of a chain of comparisons (_compared_chain) compared, and its right operand, the next pair's left."""
    return _comparison(left, op, right), right


_CALLED_COMPARISONS = frozenset({*_ORDERINGS, "in", "notin"})  # (those _Compiler writes as calls)
# the parts of an expression that may fail, each said at its own line (_Compiler.visit)
_LINED = (nodes.Getattr, nodes.Getitem, nodes.Call, nodes.Filter, nodes.Test, nodes.BinExpr, nodes.UnaryExpr,
          nodes.Compare)


# the node each binary operator of the language makes (_Parser)
_BINARY_NODES: dict[str, type[nodes.BinExpr]] = {
    "add": nodes.Add, "sub": nodes.Sub, "mul": nodes.Mul, "div": nodes.Div, "floordiv": nodes.FloorDiv,
    "mod": nodes.Mod, "pow": nodes.Pow}


class _Parser(Parser):
    """Jinja's parser, with an operator's node (`a + b`, `a < b`) at the line of the operator: Jinja gave the first
    operator of a run the line its left operand begins on (a comparison, the line after its last operand), so a
    failure of `card.power\n+ 'a'` was said a line above the `+` (_Compiler writes each node at its line)."""

    def _operators(self, operand: Callable[[], nodes.Expr], kinds: tuple[str, ...]) -> nodes.Expr:
        """A run of operators of one precedence, left to right, each node at its operator's line."""
        left = operand()
        while self.stream.current.type in kinds:
            token = next(self.stream)
            left = _BINARY_NODES[token.type](left, operand(), lineno=token.lineno)
        return left

    def parse_math1(self) -> nodes.Expr:
        return self._operators(self.parse_concat, ("add", "sub"))

    def parse_math2(self) -> nodes.Expr:
        return self._operators(self.parse_pow, ("mul", "div", "floordiv", "mod"))

    def parse_pow(self) -> nodes.Expr:
        return self._operators(self.parse_unary, ("pow",))

    def parse_filter(self, node: nodes.Expr | None, start_inline: bool = False) -> nodes.Expr | None:
        """Filters, pnp's own (which its compiler writes, INTERNAL_PREFIX) refused as unknown where written."""
        parsed = super().parse_filter(node, start_inline)
        found = parsed
        while isinstance(found, nodes.Filter) and found is not node:
            if found.name.startswith(INTERNAL_PREFIX):
                self.fail(f"No filter named {found.name!r}.", found.lineno)
            found = found.node
        return parsed

    def parse_compare(self) -> nodes.Expr:
        """A comparison (or a chain of them) at the line of its first operator."""
        expr = self.parse_math1()
        ops: list[nodes.Operand] = []
        line = None
        while True:
            token = self.stream.current
            if token.type in _OPERATORS:
                next(self.stream)
                op = token.type
            elif token.test("name:in"):
                next(self.stream)
                op = "in"
            elif token.test("name:not") and self.stream.look().test("name:in"):
                self.stream.skip(2)
                op = "notin"
            else:
                break
            line = line or token.lineno
            ops.append(nodes.Operand(op, self.parse_math1(), lineno=token.lineno))
        return nodes.Compare(expr, ops, lineno=line) if ops else expr


_SLICE_BOUNDS = ("start", "end", "step")


def _sliced(obj: Any, start: Any, stop: Any, step: Any) -> Any:
    """`x[a:b:c]`: its bounds whole numbers or left out, its step not 0, and only a text or a list cut, each
    refused in pnp's words (Python said "slice step cannot be zero", "slice indices must be integers or None or
    have an __index__ method" of `[:n / 2]`, "unhashable type: 'slice'" of a mapping, and a literal's `5[:1]`
    printed a SyntaxWarning with no file or line)."""
    for name, bound in zip(_SLICE_BOUNDS, (start, stop, step)):
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int)):
            raise TypeError(f"[a:b:c] takes whole numbers or nothing, and its {name} is "
                            f"{_describe_value(bound)}{': round it first (`(n / 2) | int`)' if isinstance(bound, float) else ''}")
    if step == 0:
        raise ValueError("[a:b:c] cannot step by 0: [::2] takes every other item, [::-1] turns it round")
    if not isinstance(obj, (str, list, tuple, range)) and not isinstance(obj, Undefined):
        kind = _FRIENDLY.get(type(obj).__name__, _describe_value(obj))
        raise TypeError(f"[a:b] cuts a text or a list, not {kind if kind.startswith(('a ', 'text', 'nothing')) else 'a ' + kind}")
    part = obj[start:stop:step]  # (a part of a text of the game's data is one: `{{ card.text[:40] }}` printed a
    # card's 'R&amp;D' in the rulebook as 'R&D', exit 0)
    return _DataText(part) if type(obj) is _DataText else part


class _Compiler(CodeGenerator):
    """Jinja's compiler, with comparisons that order or ask `in` written as calls of _comparison (`a < b`, `a in
    b`) or _compared_chain (`1 < x < 'a'`), which say two values of no order, or a container that cannot hold an
    item, in pnp's words; the tree keeps its Compare nodes, which comparisons() and the checks read."""

    def visit(self, node: nodes.Node, *args: Any, **kwargs: Any) -> Any:
        """A part of an expression written on a later line than the code before it is written on a Python line
        of its own, inside brackets of its own, with the template line it came from (Jinja's debug information):
        Jinja wrote a whole expression on one line, and a failure in one written over several lines (a `|` text's
        `and item.foo.bar()`) was said on its first line."""
        line = getattr(node, "lineno", None)
        if not isinstance(node, _LINED) or not line or line == self._last_line:
            return super().visit(node, *args, **kwargs)
        self.write("(")
        self.newline(node)
        found = super().visit(node, *args, **kwargs)
        self.write(")")
        return found

    @optimizeconst
    def visit_Getitem(self, node: nodes.Getitem, frame: Frame) -> None:
        """`x[a:b:c]` written as a call of _sliced, which says a bound or a value that cannot be cut in pnp's words
        (Jinja's own cut with Python's brackets, past the environment's getitem)."""
        if not isinstance(node.arg, nodes.Slice):
            super().visit_Getitem(node, frame)
            return
        self.write("environment.sliced(")
        self.visit(node.node, frame)
        for part in (node.arg.start, node.arg.stop, node.arg.step):
            self.write(", ")
            if part is None:
                self.write("None")
            else:
                self.visit(part, frame)
        self.write(")")

    @optimizeconst
    def visit_Compare(self, node: nodes.Compare, frame: Frame) -> None:
        if not any(operand.op in _CALLED_COMPARISONS for operand in node.ops):
            super().visit_Compare(node, frame)
            return
        if len(node.ops) == 1:  # (no function made for the operand, as a chain's: each is read once anyway)
            self.write("environment.comparison(")
            self.visit(node.expr, frame)
            self.write(f", {node.ops[0].op!r}, ")
            self.visit(node.ops[0].expr, frame)
            self.write(")")
            return
        self.write("environment.compared_chain(")
        self.visit(node.expr, frame)
        for operand in node.ops:
            self.write(", (lambda left: ")
            if operand.lineno and operand.lineno != self._last_line:  # (each pair at its operator's line)
                self.newline(operand)
            self.write(f"environment.compared_pair(left, {operand.op!r}, ")
            self.visit(operand.expr, frame)
            self.write("))")
        self.write(")")


def _no_other_file(name: Any) -> NoReturn:
    """The refusal of a template's include, import or extends of `name` (a text, a list, anything). Not Jinja's
    TemplateNotFound: `{% include 'part.md.j2' ignore missing %}` took that as a file missing and printed nothing
    in its place, exit 0, the part's rules left out of the rulebook though the file is there."""
    named = shown(name) if isinstance(name, str) else _describe_value(name)
    raise TemplateRuntimeError(f"{named}: a pnp template includes, imports and extends no other file (the macros "
                               "of macros.j2 are there already)")


class _Env(ImmutableSandboxedEnvironment):
    """Templates read the game; they cannot change it (no list.append) nor reach Python internals."""

    intercepted_binops = frozenset(_BINOPS)
    intercepted_unops = frozenset({"-", "+"})
    concat = staticmethod(_joined_output)  # a block's output joined, its size refused before
    code_generator_class = _Compiler
    compared_chain = staticmethod(_compared_chain)
    compared_pair = staticmethod(_compared_pair)
    comparison = staticmethod(_comparison)

    def handle_exception(self, source: str | None = None) -> NoReturn:
        """A failure raised as it is. Jinja's own rewrites its traceback into one of fake frames that hold
        one another in a cycle, and with them all the template had built (a refused value of millions of
        characters): every failing card kept its values until a collection (few run while a game is
        checked, see check.few_collections), 141 of them reached the memory budget and were stopped there,
        naming an unrelated card. Its line is found from the frames as they are (_template_line)."""
        error = sys.exc_info()[1]
        if isinstance(error, TemplateSyntaxError) and not error.translated:
            error.translated, error.source = True, source
        del error  # (this frame joins its traceback: holding the error there would be a cycle again)
        raise

    # What {% include %}, {% import %} and {% extends %} find: nothing. A template is one file of the game,
    # its macros come from macros.j2 already. Each of Jinja's three ways to a template is refused here, in
    # pnp's words: a loader saw only one name at a time, so `{% include [a, b] %}` or `{% include none %}`
    # were refused in Jinja's ("none of the templates given were found", "Tried to select from an empty list").
    def get_template(self, name: Any, parent: Any = None, globals: Any = None) -> NoReturn:
        _no_other_file(name)

    def select_template(self, names: Any, parent: Any = None, globals: Any = None) -> NoReturn:
        _no_other_file(names)

    def get_or_select_template(self, template_name_or_list: Any, parent: Any = None,
                               globals: Any = None) -> NoReturn:
        _no_other_file(template_name_or_list)

    def getattr(self, obj: Any, attribute: str) -> Any:
        # A mapping's fields win over its methods, so `card.items` or `goal.values` mean the data.
        tick()  # a step: sort, groupby, map... read an attribute of each item, out of any loop's sight
        if type(obj) is _Namespace and attribute[:1] != "_":  # a template's own values (the sandbox's answer,
            # without its dozens of type tests, each a Python call of Namespace's __getattribute__)
            try:
                value = getattr(obj, attribute)
            except AttributeError:
                return self.undefined(obj=obj, name=attribute)
            return self.wrap_str_format(value) or value
        if _is_mapping(obj) and attribute in obj:
            return _data_text(obj, obj[attribute])
        if type(obj) is LoopContext:  # (loop.changed remembers the value it was last given)
            _check_loop_here(obj)
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        tick()
        if type(argument) is slice:  # (a constant `x[a:b]` folded as the template compiles)
            return _sliced(obj, argument.start, argument.stop, argument.step)
        return _data_text(obj, super().getitem(obj, argument))

    sliced = staticmethod(_sliced)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        tick()
        try:
            return _finite(_BINOPS[operator](left, right))
        except TypeError:
            raise TypeError(_operands_refused(operator, left, right)) from None

    def call_unop(self, context: Context, operator: str, arg: Any) -> Any:
        """`-x`, `+x`: of a value that is no number, said in pnp's words (Python's "bad operand type for unary -:
        'str'")."""
        tick()
        try:
            return self.unop_table[operator](arg)
        except TypeError:
            raise TypeError(f"'{operator}' before a value takes a number, not {_describe_value(arg)}") from None

    def call(self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        tick()
        if type(__obj) is LoopContext:  # a recursive loop's next level: `loop(children)`, guarded as a `for`
            if len(args) != 1 or kwargs.keys() - set(_JINJA_CALL_KEYS):  # (Python's words: "LoopContext.__call__() missing 1 required positional
                # argument: 'iterable'", "... got an unexpected keyword argument 'caller'" for `{% call loop(x) %}`)
                raise TypeError("loop(...) in a recursive loop is given one value, what its next level goes over: "
                                "`loop(x.children)`")
            _check_loop_here(__obj)
            args = (_Guarded(args[0], getattr(__obj._iterable, "_names", 0)), *args[1:])
        if _kind_of(getattr(__obj, "__self__", None)) is not None:  # a method of a number, text, list, mapping
            _refuse_method_arguments(__obj, args, kwargs)
        if isinstance(getattr(__obj, "__self__", None), str):  # a text's method (one of _TEXT_METHODS)
            args = _text_method_checked(__obj, args, kwargs)
        if isinstance(__obj, Macro) and "caller" in kwargs:
            _check_caller_taken(__obj)
        if not args and type(getattr(__obj, "__self__", None)) is LoopContext and __obj.__name__ == "cycle":
            raise TypeError("loop.cycle() takes the values it goes round, at least one: loop.cycle('odd', 'even')")
        _budget.call_depth += 1
        try:
            if _budget.call_depth > MAX_CALL_DEPTH:
                if type(__obj) is LoopContext:  # (it was said as macros calling each other)
                    raise LimitError(f"a recursive loop goes more than {MAX_CALL_DEPTH} levels deep (do the "
                                     "values given to loop() lead back to one another?)")
                raise LimitError(f"macros call each other more than {MAX_CALL_DEPTH} deep "
                                 "(a macro that calls itself forever?)")
            result = _data_text_got(__obj, super().call(__context, __obj, *args, **kwargs))
            # (a macro's text, and a format's (_Env.getattr's `bounded`), were checked as they were joined)
            return result if type(__obj) is Macro else _check_result(result)
        except ValueError:
            _refuse_not_found(__obj, args)
            raise
        finally:
            _budget.call_depth -= 1

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """Of a value of a built-in type, only the methods offered (METHOD_KINDS); anything else as Jinja's
        sandbox says."""
        kind = _kind_of(obj)
        if kind is not None and (attr in kind.defined or callable(value)):  # (a subclass's own methods too:
            return attr in kind.offered  # a game's Record.with_values, Markup.unescape; groupby's `list` is data)
        return super().is_safe_attribute(obj, attr, value)

    def unsafe_undefined(self, obj: Any, attribute: str) -> Undefined:
        """A refused method, said with the methods that are offered instead."""
        kind = _kind_of(obj)
        if kind is None or attribute.startswith("_"):
            return super().unsafe_undefined(obj, attribute)
        return self.undefined(kind.refusal(attribute), obj=obj, name=attribute, exc=_NotOffered)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """A text's `format` method, bounded, its numbers rounded as `round` rounds them (_Formatter);
        `format_map` is not offered (refused by is_safe_attribute)."""
        fmt = value.__self__ if isinstance(value, (types.MethodType, types.BuiltinMethodType)) else None
        if getattr(value, "__name__", None) != "format" or not isinstance(fmt, str):
            return None
        formatter = _EscapeFormatter(self, escape=fmt.escape) if isinstance(fmt, markupsafe.Markup) else \
            _Formatter(self)
        _format_padding(fmt)  # '{:>999999999}'.format(1): refused before formatting
        with _in_format_range(lambda: _braces_refused(fmt, (), {})):  # ('{'.format(): a brace of no field)
            fields = list(_FORMATTER.parse(fmt))
        if any(spec and "{" in spec for _, _, spec, _ in fields):  # '{:{}}'.format(1, 10**9)
            raise LimitError("widths given as arguments ('{:{}}') are not allowed in formats")
        repeated = re.search(r"\{[\w\[.]", fmt) is not None  # '{0}{0}' fills fields with one argument
        # a '%' field writes its number times 100: '{:.2%}'.format(1e307) printed 'inf%'
        percent = any(spec and spec.endswith("%") for _, _, spec, _ in fields)

        def bounded(*args: Any, **kwargs: Any) -> str:
            values = list(args) + list(kwargs.values()) + self._fields_reached(fmt, args, kwargs)
            _refuse_none(values, "a format is given")
            _format_size(fmt, values, fmt.count("{"), repeated)
            for number in values if percent else ():
                if type(number) is float:
                    _finite(number * 100)
            with _in_format_range(lambda: _braces_refused(fmt, args, kwargs)):
                return type(fmt)(formatter.vformat(fmt, args, kwargs))  # (checked by call, which calls it)

        return bounded

    def _fields_reached(self, fmt: str, args: tuple[Any, ...], given: Mapping[str, Any]) -> list[Any]:
        """The values a format's fields reach through attributes and items ('{0.items}'), sized and checked
        as printed values are: they are formatted without passing through a template's printing."""
        reached: list[Any] = []
        for n, (_, name, _, _) in enumerate(_FORMATTER.parse(fmt)):
            if name and ("." in name or "[" in name):
                first, rest = _string.formatter_field_name_split(name)
                try:
                    found = args[n if first == "" else first] if isinstance(first, int) or first == "" else \
                        given[first]
                    for is_attribute, key in rest:
                        found = self.getattr(found, key) if is_attribute else self.getitem(found, key)
                except (LookupError, TypeError):
                    continue  # format itself says what is missing
                reached.append(found)
        return reached

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        """A template's tree; Jinja's parser recurses on nesting. Its time is spent from the game's budget also
        when pnp parses it to look into it (constant_condition, enum_mistakes...), not to run it: 20,000
        constraints were each parsed twice so outside it, 16 s past the game's 8 s."""
        parser = _Parser(self, source, name, filename)
        with charged():
            return _parsed(parser, parser.parse)

    def _tokenize(self, source: str, name: str | None, filename: str | None = None,
                  state: str | None = None) -> TokenStream:
        """A template's tokens, its source size and their number refused before they cost too much."""
        _check_source(source)
        lexer = self.lexer  # its tokens counted as the parser reads them (Jinja's own _tokenize, no extensions)
        tokens = lexer.wrap(_numbers_checked(lexer.tokeniter(self.preprocess(source, name, filename), name,
                                                             filename, state)), name, filename)
        return TokenStream(_counted(tokens), name, filename)

    def _generate(self, source: nodes.Template, name: str | None, filename: str | None,
                  defer_init: bool = False) -> str:
        """Python code for a tree, once it is known to be small and shallow enough, with its guards in."""
        tree = _truth_tested(_bounded_tree(source))
        if filename == TRACED_FILE:
            _traced_tree(tree)
        try:
            return super()._generate(tree, name, filename, defer_init=defer_init)
        except RecursionError:
            raise _TooBig(_TOO_DEEP, 1) from None

    def _compile(self, source: str, filename: str) -> CodeType:
        """Python's own limits on nesting (20 loops, 200 brackets) said at the template line they come from."""
        try:
            return super()._compile(source, filename)
        except (SyntaxError, RecursionError) as e:  # (MemoryError: see _compiled_code)
            raise _TooBig("too many loops, blocks or brackets inside one another to compile (Python allows 20 "
                          "loops)", _template_line_of_code(source, getattr(e, "lineno", None))) \
                from None


# how each method a template may call (METHOD_KINDS) is written, by kind (or a type of its own) and name: its parameters, `=` giving a
# default, those after `*` taken by name too; what a call gives it is bound to this before the call
# (_refuse_method_arguments), as Python said it ("count() takes at least 1 argument (0 given)", "_replaced_size()
# missing 1 required positional argument: 'new'", naming pnp's function behind replace)
_METHODS_WRITTEN: dict[str, dict[str, str]] = {
    "text": {**{name: "sub, start=0, end=..." for name in ("count", "find", "index", "rfind", "rindex")},
             **{name: "prefix, start=0, end=..." for name in ("startswith", "endswith")},
             **{name: "" for name in ("capitalize", "isalnum", "isalpha", "isdecimal", "isdigit", "islower",
                                      "isnumeric", "isspace", "istitle", "isupper", "lower", "title", "upper")},
             **{name: "width, fillchar=' '" for name in ("center", "ljust", "rjust")},
             **{name: "sep" for name in ("partition", "rpartition")},
             **{name: "chars=None" for name in ("strip", "lstrip", "rstrip")},
             **{name: "*, sep=None, maxsplit=-1" for name in ("split", "rsplit")},
             "join": "items", "removeprefix": "prefix", "removesuffix": "suffix", "zfill": "width",
             "replace": "old, new, count=-1", "splitlines": "*, keepends=False"},
    "a list": {"count": "value", "index": "value, start=0, end=..."},
    "range": {"count": "value", "index": "value"},  # (a list, whose index takes no start or end)
    "a mapping": {"get": "key, default=None", "items": "", "keys": "", "values": ""},
    "a number": {"is_integer": ""},
    # (a date and time's isoformat takes a separator and a precision, in Python's words when wrong: not offered)
    "a date": {name: "" for name in ("isoformat", "weekday", "isoweekday")}}


def _written_signature(written: str) -> inspect.Signature:
    """A method's signature from how _METHODS_WRITTEN writes it."""
    kind: inspect._ParameterKind = inspect.Parameter.POSITIONAL_ONLY
    parameters = []
    for word in written.split(", ") if written else ():
        if word == "*":
            kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
            continue
        name, has_default, default = word.partition("=")
        value = inspect.Parameter.empty if not has_default else ... if default == "..." else ast.literal_eval(default)
        parameters.append(inspect.Parameter(name, kind, default=value))
    return inspect.Signature(parameters)


_METHOD_SIGNATURES = {(kind, name): _written_signature(written)
                      for kind, methods in _METHODS_WRITTEN.items() for name, written in methods.items()}


def _refuse_not_found(method: Any, args: tuple[Any, ...]) -> None:
    """index or rindex of text or a list that finds nothing, said in pnp's words (Python's "substring not found",
    "5 is not in list"), when `method` is one of those (_Env.call; anything else is left to its own message)."""
    name = getattr(method, "__name__", "")
    kind = _kind_of(getattr(method, "__self__", None))
    if kind is not None and name in ("index", "rindex") and args:
        raise ValueError(f"the method {name} of {kind.name} does not find {_describe_value(args[0])} there (test "
                         f"`value in x` first{f', or use {name[:-5]}find, which gives -1' if kind.name == 'text' else ''})")


def _refuse_method_arguments(method: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """A method of a value of METHOD_KINDS given values it does not take (too few, too many, a name it has not)
    refused as how it is written (_refuse_arguments), before it is called (_Env.call)."""
    kind = _kind_of(method.__self__)
    name = getattr(method, "__name__", "")
    signature = _METHOD_SIGNATURES.get((type(method.__self__).__name__, name)) or \
        _METHOD_SIGNATURES.get((kind.name, name)) if kind is not None else None
    if kind is not None and signature is not None:
        given = {key: value for key, value in kwargs.items() if key not in _JINJA_CALL_KEYS}
        _refuse_arguments(f"the method {name} of {kind.name}", name, signature, args, given, 0)


def _text_method_checked(method: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[Any, ...]:
    """A text method's values checked before it is called (_Env.call), its arguments given back with a filter's
    lazy result read once, for the checks and the sizes."""
    name = getattr(method, "__name__", "")
    sizer = _METHOD_SIZES.get(name)
    if sizer is not None:
        args = tuple(list(arg) if isinstance(arg, Iterator) else arg for arg in args)
    _refuse_method_values(name, args, kwargs)
    if name in _WIDTH_METHODS:  # 'x'.ljust(10**10)
        for value in list(args) + list(kwargs.values()):
            _check_int(value, "the number")
    if sizer is not None:  # 'x'.join(...), .replace, .strip: refused before they build
        given = {k: v for k, v in kwargs.items() if k not in _JINJA_CALL_KEYS}
        _refuse_longer(sizer(method.__self__, *args, **given), f"what {name} builds")
    return args


def _refuse_method_values(method: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """A text method's values of a kind it does not take refused (_METHOD_VALUES, _refuse_kind); join's items
    that are no text too (Python's "sequence item 0: expected str instance, int found")."""
    for at, name, kind, none in _METHOD_VALUES.get(method, ()):
        given = args[at] if at < len(args) else kwargs.get(name, _ABSENT) if name else _ABSENT
        _refuse_kind(given, kind, none, f"{method} of text takes {{}} there")
        if name in _METHOD_COUNTS:
            _check_int(given, f"the {name} given to {method} of text,")
    if method == "join" and len(args) == 1:
        _refuse_no_items("join", args[0], "the method")
    if method == "join" and len(args) == 1 and isinstance(args[0], (list, tuple)):
        for item in args[0]:
            if not isinstance(item, str):
                raise LimitError(f"join of text joins texts, not {_describe_value(item)} (`| join` joins any "
                                 "values, printing each)")


def _check_caller_taken(macro: Macro) -> None:
    """A block given to a macro (`{% call %}`, or `caller=`) that the macro never prints is refused as such:
    Jinja said the macro 'was invoked with two values for the special caller argument. This is most likely a
    bug.', which read as a bug of pnp's."""
    if not (macro.caller or macro.catch_kwargs or "caller" in macro.arguments):
        raise LimitError(f"the macro {macro.name} is given a block by {{% call %}} (or `caller=`) but never prints "
                         "it: write caller() in the macro where the block goes, or call it with {{ }}")


# optimized=False: Jinja's constant folding writes a folded float into the compiled Python as its repr, so
# `'inf' | float` or `1e308 * 10` compiled to the name `inf` and failed with a NameError when run
ENV = _Env(undefined=_Undefined, autoescape=False, keep_trailing_newline=True, finalize=_printed,
           optimized=False)
def _of_some(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """The filter min or max, refusing no items in pnp's words (Jinja's: "No aggregated item, sequence was
    empty.", said as it was used)."""
    @functools.wraps(function)  # (its signature and how Jinja passes it the environment: _guard_filter reads them)
    def checked(*args: Any, **kwargs: Any) -> Any:
        result = function(*args, **kwargs)
        if isinstance(result, Undefined):
            raise ValueError(f"the filter {name} is given no items: test them first, `xs | {name} if xs else 0`")
        return result
    return checked


ENV.filters.update(min=_of_some("min", ENV.filters["min"]), max=_of_some("max", ENV.filters["max"]))
ENV.filters = {name: _guard_filter(name, f) for name, f in ENV.filters.items()}
ENV.filters["sum"] = _guard_filter("sum", _sum_filter)
ENV.filters["truncate"] = _guard_filter("truncate", _truncate_filter)
ENV.filters["round"] = _guard_filter("round", _round_filter)
ENV.filters["abs"] = _guard_filter("abs", _abs)
ENV.filters["filesizeformat"] = _guard_filter("filesizeformat", _filesizeformat)
ENV.filters["int"] = _guard_filter("int", _int_filter)
ENV.filters["float"] = _guard_filter("float", _float_filter)
ENV.filters["format"] = _guard_filter("format", _format_filter)


@pass_environment
def _attr_filter(environment: jinja2.Environment, obj: Any, name: str) -> Any:
    """`x | attr('name')` read as `x.name` is (a mapping's fields first): Jinja's own found no field of a
    mapping and said "no field 'cards' (did you mean 'cards'?)". A name that is no text is refused in pnp's
    words (Python said "attribute name must be string, not 'NoneType'")."""
    if not isinstance(name, str):
        raise LimitError(f"the filter attr takes the name of a field to read, not {_describe_value(name)}")
    return environment.getattr(obj, name)


ENV.filters["attr"] = _guard_filter("attr", _attr_filter)


def _same_as(value: Any, other: Any) -> bool:
    """Jinja's `sameas` test: whether two values are one object in memory. A text or number from the game's
    files is never the one a template writes (`card.kind is sameas 'beast'` was false on every beast, exit 0):
    refused for them, with == to write; none, true and false, and an item against an item, are as Jinja has it."""
    for one in (value, other):
        if isinstance(one, (str, int, float)) and not isinstance(one, bool):
            raise LimitError(f"`is sameas` asks whether two values are one object in memory, which texts and "
                             f"numbers never reliably are ({_describe_value(one)}): compare with == "
                             "(`card.kind == 'beast'`)")
    return value is other


ENV.tests["sameas"] = _same_as


def _in_test(value: Any, seq: Any) -> bool:
    """Jinja's test `in` (`x is in(y)`, select('in', y)), as the operator asks it (_contained)."""
    return _contained(value, "in", seq)


ENV.tests["in"] = _in_test


def _number_test(name: str, test: Callable[..., Any]) -> Callable[..., bool]:
    """Jinja's tests that take a value modulo a number (`odd`, `even`, `divisibleby`), given numbers only: on a
    text Python's `%` formats instead, so `'%0999999999d' is odd` built a text of a gigabyte, and `'x' is odd`
    said 'not all arguments converted during string formatting'."""
    signature = inspect.signature(test)

    def checked(value: Any, *args: Any, **kwargs: Any) -> bool:  # (`is divisibleby(num=3)` as Jinja's takes it)
        signature.bind(value, *args, **kwargs)  # (values it does not take: said as such, _said_as_written)
        for one in (value, *args, *kwargs.values()):
            if isinstance(one, Undefined):  # (a field an item lacks, `selectattr('nosuch', 'odd')`: said as it is,
                one._fail_with_undefined_error()  # not as "takes numbers, not a value")
            if isinstance(one, bool) or not isinstance(one, (int, float)):
                raise LimitError(f"`is {name}` takes numbers, not {_describe_value(one)}")
        return bool(test(value, *args, **kwargs))

    checked.__wrapped__ = test  # type: ignore[attr-defined]  # (its signature is the test's)
    return checked


for _name in ("odd", "even", "divisibleby"):
    ENV.tests[_name] = _number_test(_name, cast(Callable[..., Any], ENV.tests[_name]))
ENV.filters["_pnp_origin"] = _pnp_origin


def _percent(part: Any, whole: Any) -> int:
    """A whole-number percentage, halves away from zero as round's: matches | percent(data.cards | length)."""
    for value, what in ((part, "the part"), (whole, "the whole")):  # (else said in Python's words:
        # "unsupported operand type(s) for /: 'str' and 'list'")
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ValueError(f"percent takes numbers (part | percent(whole)), and {what} is {_describe_value(value)}")
    if not whole:
        return 0
    exact_part, exact_whole = _exact_decimal(part), _exact_decimal(whole)
    if exact_part is None or exact_whole is None:
        return int(part * 100 / whole + 0.5)  # (a value that is no number: Python's refusal)
    # in fractions, on the decimals written: in floats 0.285 | percent(1) was 28.499999999999996 and printed 28,
    # and -1 | percent(8) rounded its half up, to -12
    ratio = fractions.Fraction(exact_part) * 100 / fractions.Fraction(exact_whole)
    return _half_away(ratio)


def _half_away(ratio: fractions.Fraction) -> int:
    """A fraction as the nearest whole number, halves away from zero."""
    units, rest = divmod(abs(ratio), 1)
    return (1 if ratio >= 0 else -1) * (int(units) + (1 if rest * 2 >= 1 else 0))


def _field_of(item: Any, attribute: Any) -> Any:
    """An item's `attribute` as `map(attribute=...)` reads it: one the item lacks is an error naming the fields it
    has (read with `.get`, a misspelt field was none on every item: count('knd', 'beast') printed 0, exit 0)."""
    value = make_attrgetter(ENV, attribute)(item)
    if isinstance(value, Undefined):
        value._fail_with_undefined_error()
    return value


def _count(items: Iterable[Any], attribute: Any, value: Any) -> int:
    """How many items have `attribute` equal to `value`: data.cards | count('suit', 'red')."""
    return sum(1 for it in items if _field_of(it, attribute) == value)


def _count_by(items: Iterable[Any], attribute: str) -> dict[Any, int]:
    """A mapping of each value of `attribute` to how many items have it, in first-seen order:
    data.cards | count_by('suit') gives {'red': 10, 'blue': 8}; `.get('green', 0)` for a value none has."""
    counts: dict[Any, int] = {}
    for it in items:
        value = _field_of(it, attribute)
        counts[value] = counts.get(value, 0) + 1
    return counts


@dataclasses.dataclass(frozen=True)
class _KeysAsText:
    """A mapping's keys as messages about a key it lacks name them, made once per mapping (_keys_as_text)."""

    plain: tuple[str, ...]  # each key as text
    rounded: tuple[str, ...]  # each key as a template prints it (_number_rounded)
    rounded_set: frozenset[str]
    listed_plain: str  # the first dozen of `plain` in order, as _listed says them
    listed_rounded: str


# an object looked through for a message -> (the object, kept so that its id is not reused; its size; what was
# made of it): see _made_once
_Made = dict[int, tuple[Sized, int, _T]]


def _made_once(made: "_Made[_T]", of: Sized, make: Callable[[], _T], most: int) -> _T:
    """What `make` makes of `of`, made once while `of` is the same object of the same size, kept in `made` (at
    most `most` objects; a few tables or enums a game looks in, bounded all the same)."""
    found = made.get(id(of))
    if found is None or found[0] is not of or found[1] != len(of):
        if len(made) >= most:
            made.clear()
        found = made[id(of)] = (of, len(of), make())
    return found[2]


# mappings a key was missing from -> their keys as text
_KEYS_AS_TEXT: "_Made[_KeysAsText]" = {}


def _keys_as_text(mapping: Mapping[Any, Any]) -> _KeysAsText:
    """The keys of `mapping` as text, made once per mapping: each card of a 10,000-card deck naming a missing id
    (`ref.cards[...]`, `lookup`) made a list of the 10,000 (and sorted it) for its message (24 s), and the same
    tuple each time lets the suggestions' bound count its cost once."""
    def make() -> _KeysAsText:
        rounded = tuple(str(_number_rounded(k)) for k in mapping)
        plain = tuple(str(k) for k in mapping)
        return _KeysAsText(plain, rounded, frozenset(rounded), _listed(sorted(plain)), _listed(sorted(rounded)))
    return _made_once(_KEYS_AS_TEXT, mapping, make, 64)


def _lookup_ids(keys: Iterable[Any], mapping: Mapping[Any, Any]) -> list[Any]:
    """A list of ids as the items they name: scenario.goals | lookup(ref.goals)."""
    if isinstance(keys, str):  # (its letters were looked up one by one, and a missing one said "in the value
        # formatted", as if a format had failed)
        raise ValueError(f"lookup takes a list of ids, got text {_short(repr(keys))}: write [{_short(repr(keys))}]")
    # (a value or a table of no items was said in Python's words: "'NoneType' object is not iterable")
    if not isinstance(keys, Iterable):
        raise ValueError(f"lookup takes a list of ids, got {_describe_value(keys)}")
    if not _is_mapping(mapping):
        raise ValueError(f"lookup looks ids up in a mapping of id: item, as lookup(ref.cards), not "
                         f"{_describe_value(mapping)}")
    found = []
    for key in keys:
        if key not in mapping:
            named_id = "none" if key is None else _short(repr(_number_rounded(key)))
            raise ValueError(f"lookup: no id {named_id} among the {len(mapping):,} it looks in"
                             f"{did_you_mean(str(key), _keys_as_text(mapping).plain)}")
        found.append(mapping[key])
    return found


def _split(text: Any, sep: str | None = None) -> list[str]:
    """Text cut into a list at `sep` (at spaces when none is given)."""
    if not isinstance(text, (str, int, float)) or isinstance(text, bool):  # (a list was cut as Python prints
        # it: ['a', 'b'] | split(',') gave "['a'" and " 'b']", printed brackets, quotes and all)
        hint = " (a field left out? `(x or '') | split` cuts nothing into nothing)" if text is None else ""
        raise ValueError(f"split cuts text, and was given {_describe_value(text)}{hint}")
    return str(text).split(sep)


def as_typed(text: str) -> str:
    """`text` as pnp markup printing it as it is typed: its stars, backslashes and the markers of icons and
    glossary terms escaped."""
    return text.replace("\\", "\\\\").replace("*", "\\*").replace(":", "\\:").replace("[", "\\[")


# what Markdown may read in a text: any ASCII punctuation (entities, code spans, HTML and addresses, links, struck
# text, table cells, and at a line's start headings, lists, quotes, rules and fences), each escaped by a backslash
_MARKDOWN_READ = {code: "\\" + chr(code) for code in range(0x21, 0x7F) if not chr(code).isalnum()}
_LEADING_SPACE = re.compile(r"\A[ \t]+")


def _as_typed_markdown(text: str) -> str:
    """`text` as Markdown printing it as a card prints it as typed (see _as_typed_filter): every character
    Markdown reads escaped ('\\&', '\\#'; the book prints an escape's character as typed, see book._inline), a
    line break '<br>' (see BREAK), and leading spaces an entity (four began a code block)."""
    return _as_typed_break(text.translate(_MARKDOWN_READ))


def _as_typed_break(escaped: str) -> str:
    """Escaped text as Markdown keeping its line breaks and leading spaces (see _as_typed_markdown)."""
    escaped = _LEADING_SPACE.sub("&#32;", escaped)
    return ("&#32;" if escaped.startswith(("\n", "\r")) else "") + _LINE_BREAK.sub(BREAK, escaped)


# A line break of a value printed as typed, as the rulebook's Markdown writes it: the tag the book reads as a line
# break in text, and as a space in a heading or the contents. Never a line's end: '\\' and a line's end, the hard
# break of Markdown, ended a heading ('## {{ name | as_typed }}' printed 'Roars\\', then the rest as a paragraph)
# and a table's row (split in two), exit 0
BREAK = "<br>"
_LINE_BREAK = re.compile(r"\r\n?|\n")


def _as_typed_filter(text: Any) -> str:
    """Text printed as it is typed, not read as markup: its stars, backslashes and the markers of icons and
    glossary terms escaped ('{{ game.title | as_typed }}' prints a title '*a' or ':star:' as typed); in the
    rulebook whatever Markdown reads too, so a name 'R&amp;D `x`' prints there as on a card (its entity and code
    span were read: 'R&D x')."""
    if not isinstance(text, str):
        raise ValueError(f"as_typed escapes text, and was given {_describe_value(text)}")
    return _as_typed_markdown(text) if _MARKUP_READ.get() else as_typed(text)


OWN_FILTERS: dict[str, Callable[..., Any]] = {
    "percent": _percent, "count": _count, "count_by": _count_by, "lookup": _lookup_ids, "split": _split,
    "as_typed": _as_typed_filter}
ENV.filters.update({name: _guard_filter(name, function) for name, function in OWN_FILTERS.items()},
                   _pnp_loop=_Guarded, _pnp_unpack=_checked_unpacking, _pnp_concat=_concat, _pnp_built=_check_result, _pnp_truth=_truth)
ENV.globals.update(max=_of_items("max", max), min=_of_items("min", min), abs=_abs, round=_round,
                   sorted=_of_items("sorted", sorted), len=_of_items("len", len), sum=_of_items("sum", _sum),
                   range=_bounded_range, dict=_dict)
ENV.globals.pop("lipsum", None)  # lipsum(10**9) is a memory bomb, and no game needs filler text


def _refuse_elsewhere(made_in: int, what: str, done: str = "changed") -> None:
    if made_in != _budget.evaluation:
        raise ValueError(f"this {what} was made elsewhere (at the top of macros.j2, or in a derived field?) and "
                         f"cannot be {done} here: "
                         "what an item prints may not depend on the items printed before it; make it inside the "
                         "macro or template that uses it")


class _Namespace(Namespace):
    """namespace(): changed only by the evaluation that made it. One made at the top of macros.j2 is shared by
    every item's templates: a macro counting in it printed 1, 2, 3, 4 on four cards, numbers that hung on
    the order the cards were drawn in (the preview, or a build redrawing only the changed ones, printed others)."""

    def __init__(*args: Any, **kwargs: Any) -> None:
        given = args[1:]
        if len(given) > 1 or given and not _is_mapping(given[0]):  # (Python's words: "'int' object is not
            # iterable", "dict expected at most 1 argument, got 2")
            raise TypeError("namespace takes names and their values, `namespace(count=0)`, or one mapping, not "
                            + (f"{len(given)} values" if len(given) > 1 else _describe_value(given[0])))
        Namespace.__init__(*args, **kwargs)
        object.__setattr__(args[0], "_pnp_made_in", _budget.evaluation)

    def __setitem__(self, name: str, value: Any) -> None:
        _refuse_elsewhere(object.__getattribute__(self, "_pnp_made_in"), f"namespace (set .{_short(name)})")
        Namespace.__setitem__(self, name, value)

    def __repr__(self) -> str:
        """As Jinja's, its floats as a template prints them (`namespace(b=1/3)` printed 0.3333333333333333); one
        that holds namespaces is measured first, as printing measures a value (_text_size), where pnp quotes it
        (a repeat given one): one made of the one before 5,000 times over ran Python out of stack, one made of
        two of it 40 times over was written for ever."""
        if getattr(_REPR, "inside", False):
            return _namespace_written(self)
        _REPR.inside = True
        try:
            _refuse_longer(_text_size(self, MAX_STRING), "the namespace's text")
            return _namespace_written(self)
        finally:
            _REPR.inside = False


_REPR = threading.local()  # inside: a namespace is being written, measured already as the one outside it


@reprlib.recursive_repr("<Namespace {...}>")  # (one holding itself: its copy of rounded floats is another dict)
def _namespace_written(namespace: _Namespace) -> str:
    """A namespace as Jinja writes it, with its floats as a template prints them."""
    return f"<Namespace {_numbers_rounded(object.__getattribute__(namespace, '_Namespace__attrs'))!r}>"


class _Cycler(Cycler):
    """cycler(): moved on only by the evaluation that made it (as a namespace is changed)."""

    def __init__(self, *items: Any) -> None:
        if not items:  # (Jinja said "at least one item has to be provided")
            raise TypeError("cycler() takes the values it goes round, at least one: cycler('odd', 'even')")
        super().__init__(*items)
        self._pnp_made_in = _budget.evaluation

    def reset(self) -> None:
        _refuse_elsewhere(self._pnp_made_in, "cycler")
        super().reset()

    def next(self) -> Any:
        _refuse_elsewhere(self._pnp_made_in, "cycler")
        return super().next()

    __next__ = next


class _Joiner(Joiner):
    """joiner(): its first call says nothing and the others its separator, within the evaluation that made it."""

    def __init__(self, sep: str = ", ") -> None:
        super().__init__(sep)
        self._pnp_made_in = _budget.evaluation

    def __call__(self) -> str:
        _refuse_elsewhere(self._pnp_made_in, "joiner")
        return super().__call__()


ENV.globals.update(namespace=_Namespace, cycler=_Cycler, joiner=_Joiner)
# tests and pnp's own functions given values they do not take say how they are written (as filters do)
# the tests that order, values of no order said in pnp's words as the operators say them
_ORDER_TESTS: dict[str, Callable[..., Any]] = {
    name: functools.partial(_order_test, op) for op, names in (("lt", ("lt", "<", "lessthan")), ("lteq", ("le", "<=")),
                                                               ("gt", ("gt", ">", "greaterthan")), ("gteq", ("ge", ">=")))
    for name in names}
ENV.tests = {name: _said_as_written(f"the test {name}", f"x is {name}",
                                    _ORDER_TESTS.get(name, cast(Callable[..., Any], test)), True)
             for name, test in ENV.tests.items()}
for _name in ("round", "sum", "range", "namespace", "cycler", "joiner", "len", "sorted", "abs", "max", "min"):
    ENV.globals[_name] = _said_as_written(f"the function {_name}", _name, cast(Callable[..., Any], ENV.globals[_name]),
                                          False)


def _no_random(*args: Any, **kwargs: Any) -> NoReturn:
    raise ValueError("the random filter would print something different on every build (pnp builds the same "
                     "bytes from the same data); choose by a rule instead, e.g. items[loop.index0 % (items | "
                     "length)]")


ENV.filters["random"] = _no_random

# The globals every template sees, as one plain dict: Jinja's own (a ChainMap over the environment's) is copied
# into a new context at every render, and a ChainMap copies key by key in Python (a third of validating a game)
_GLOBALS = dict(ENV.globals)
FUNCTION_NAMES = frozenset(_GLOBALS)  # the functions every template sees (range, namespace, len...)
# names the template language reads as its own words, never as a variable: a value given one is never seen
LANGUAGE_WORDS = frozenset({"true", "false", "none", "True", "False", "None", "and", "or", "not", "in", "is", "if",
                            "else"})

# -- the public surface -------------------------------------------------------------------------------------

_TEMPLATE_FILES = ("<template>", "<unknown>", TRACED_FILE)
# the Python file name macros.j2's code is compiled under: a failure inside one of its macros, called from
# another template, is said at that template's line (the call) and at the macro's own line in macros.j2
MACROS_FILE = "<macros>"


def _template_line(error: BaseException, files: tuple[str, ...] = _TEMPLATE_FILES) -> int | None:
    """The template line a failure happened on, from Jinja's error or from the traceback: the deepest frame
    of code compiled from a template under one of `files`. Jinja maps a traceback's lines to its templates'
    only where it renders one (not in an expression, a module or a macro called from one): a frame it did
    not is mapped here, by its template's debug information. A failure in making an item of a filter's lazy
    result is said where the filter is, when the code reading it is the code that wrote it (_Lazy.at)."""
    line = getattr(error, "lineno", None)
    tb, code_globals = error.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in files:
            code_globals = tb.tb_frame.f_globals
            # (None at an instruction of no line, where pnp's processor-time alarm may raise: kept the line
            # before, as a template's line is what get_corresponding_lineno compares)
            line = line if tb.tb_lineno is None else _code_line(code_globals, tb.tb_lineno)
        tb = tb.tb_next
    made = getattr(error, _MADE_AT, None)
    return _code_line(*made) if made is not None and made[0] is code_globals else line


def _code_line(code_globals: dict[str, Any], line: int) -> int:
    """The template line of line `line` of template code whose globals are `code_globals`."""
    template = code_globals.get("__jinja_template__")  # (none in a frame Jinja rewrote)
    return line if template is None else template.get_corresponding_lineno(line)


def _deepest_file(error: BaseException, files: tuple[str, ...]) -> str | None:
    """Which of `files` the deepest frame of a failure's traceback compiled from one of them is of (None: none)."""
    found, tb = None, error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in files:
            found = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return found


def _describe(error: BaseException) -> str:
    """The error in a designer's words, a long value it quotes cut short (a 900,000-character text that is
    no number was quoted whole, once per card), and each control character a value put in it written as its
    escape (report.printable): the keys a mapping was listed by, raw, could hold the marks of a part of a message
    pasted (`{{ {'\\x02' ~ ... ~ '\\x03': 1}[card.id] }}`), and the words between them went uncut and the
    marks unprinted."""
    return printable(_QUOTED_LONG.sub(lambda m: m[1][:40] + "…" + m[1][-1], _unknown_name(error) or _described(error)))


_QUOTED_LONG = re.compile(r"""('[^'\n]{60}[^']*'|"[^"\n]{60}[^"]*")""")


# failures of Python's said in a few plain words, whatever Python said
_PLAIN_FAILURES: tuple[tuple[type[BaseException], str], ...] = (
    (RecursionError, "nested too deeply (a macro or loop that calls itself forever?)"),
    (MemoryError, "ran out of memory"), (ZeroDivisionError, "division by zero"),
    (OverflowError, "a number too large to compute"))


def _described(error: BaseException) -> str:
    if isinstance(error, (LimitError, _TooBig)):
        return error.message or ""  # (each has its message)
    if isinstance(error, TemplateSyntaxError):
        return f"template syntax error: {error.message}"
    if isinstance(error, UndefinedError):
        return _friendly(str(error.message))
    if isinstance(error, _NotOffered):
        return error.message or ""
    if isinstance(error, SecurityError):
        return "not allowed in a template (pnp templates cannot reach Python internals)"
    for kind, words in _PLAIN_FAILURES:
        if isinstance(error, kind):
            return words
    if type(error) is TypeError and (said := _type_error_said(str(error))) is not None:
        return said
    if type(error) is KeyError and error.args:  # ('%(nmae)s' % card said only "'nmae'")
        return f"no field or key {_short(repr(error.args[0]), 60)} in the value formatted"
    return _friendly(str(error) or type(error).__name__)


def _type_error_said(text: str) -> str | None:
    """A TypeError of Python's whose words pnp says its own way, or None."""
    if unhashable := _UNHASHABLE.fullmatch(text):  # (a mapping's key:
        # `{[1]: 2}`, `dict([[[1], 2]])` said Python's "unhashable type: 'list'")
        said = {"list": "a list", "dict": "a mapping", "set": "a set"}.get(unhashable[1], "that value")
        return f"a mapping's key is text, a number, true or false, not {said}"
    if text == "keywords must be strings":  # (`f(**{1: 2})`, Python's words)
        return "a mapping spread into a call's names (`**m`) has keys that are text: one here is not"
    if spread := _SPREAD.fullmatch(text):  # (`f(**[1])` said
        # "pnp.template._Env.call() argument after ** must be a mapping, not list": pnp's insides, Python's words)
        return (f"`{spread[1]}` before a value in a call spreads {'a mapping' if spread[1] == '**' else 'a list'}, "
                f"not {_PYTHON_TYPES.get(spread[2], 'that value')}")
    return None


_UNHASHABLE = re.compile(r"unhashable type: '(\w+)'")
_SPREAD = re.compile(r".*(?:argument|Value) after (\*\*?) must be (?:a mapping|an iterable), not (\w+)", re.S)
_PYTHON_TYPES = {"int": "a whole number", "float": "a number", "str": "text", "bool": "true/false", "list": "a list",
                 "dict": "a mapping", "tuple": "a list", "NoneType": "nothing (none)"}
_NO_SUCH_NAME = re.compile(r"No (filter|test) named (.*)\.", re.S)  # (Jinja's words, at compiling and in map/select)


def _unknown_name(error: BaseException) -> str | None:
    """A filter or test that does not exist (`x | uper`, `select('od')`), said with the name it may be a typo of
    (Jinja said only "No filter named 'uper'."), or None for any other failure."""
    match = _NO_SUCH_NAME.fullmatch(error.message or "") if isinstance(error, TemplateError) else None
    if match is None:
        return None
    kind, named = match[1], match[2]
    known = [name for name in (ENV.filters if kind == "filter" else ENV.tests) if not name.startswith("_")]
    word = named[1:-1] if len(named) > 1 and named[0] == named[-1] == "'" else named
    said = f"there is no {kind} named {'nothing (none)' if named == 'None' else _short(named, 60)}" \
        f"{did_you_mean(word, known)}"
    return f"template syntax error: {said}" if isinstance(error, TemplateSyntaxError) else said


def _friendly(message: str) -> str:
    for internal, word in _FRIENDLY.items():
        message = message.replace(f"'{internal}'", word).replace(internal, word)
    for pattern, words in _MACRO_CALLS:
        message = pattern.sub(words, message)
    return message


# a macro called with values it does not take, said in pnp's words, not Jinja's ("macro 'm' takes not more than
# 1 argument(s)", "No caller defined", "parameter 'x' was not provided")
_MACRO_CALLS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
                (re.compile(r"\Amacro '(\w+)' takes not more than (\d+) argument\(s\)\Z"),
                 lambda m: f"the macro {m[1]} takes at most {counted(int(m[2]), 'value')}, and was given more"),
                (re.compile(r"\Amacro '(\w+)' takes no keyword argument '(\w+)'\Z"),
                 r"the macro \1 has no parameter named '\2'"),
                (re.compile(r"\AParameter '(\w+)' was not provided\Z", re.I),
                 r"the macro's parameter '\1' was given no value (give it one, or a default: `\1=''`)"),
                (re.compile(r"\ANo caller defined\Z"),
                 "the macro calls caller(), which only a macro called by a {% call %} block has"))


# What evaluating a template may raise besides Jinja's own errors: a designer's mistake in an expression,
# or our limits. Anything else is a bug in pnp and should surface as one.
_EXPECTED = (TemplateError, LimitError, TypeError, ValueError, ArithmeticError, AttributeError,
             LookupError,  # KeyError, IndexError
             RuntimeError, MemoryError, AssertionError)  # Jinja asserts on truncate's arguments


def _failure(error: BaseException, files: tuple[str, ...] = _TEMPLATE_FILES) -> ExprError:
    """The ExprError for a failure in a template compiled under `files`, at its line there; one that
    happened inside a macro of macros.j2 called from it says the macro's line too."""
    message = _describe(error)
    # (where it failed in a macro: not where a {% call %} block of the template, called back by the macro's caller(),
    # failed, which was said as in the macro at the line of its caller())
    in_macro = _template_line(error, (MACROS_FILE,)) if files != (MACROS_FILE,) and \
        _deepest_file(error, (MACROS_FILE, *files)) == MACROS_FILE else None
    if in_macro is not None and not isinstance(error, TemplateSyntaxError):  # (a syntax error's line is its own)
        message += f" (in a macro of macros.j2, line {in_macro})"
    failure = ExprError(message, _template_line(error, files))
    _forget_frames(error)
    return failure


def _forget_frames(error: BaseException | None) -> None:
    """Drop the tracebacks of a failure and of those it happened during (its ExprError keeps it as its
    context): their frames hold all the template had built, and a validation keeps every error it reports."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        error.__traceback__ = None
        error = error.__cause__ or error.__context__


def compile_template(source: str) -> Template:
    """A compiled template (cached); ExprError with its line for a syntax error."""
    try:
        with _EVALUATION:  # compiling spends the game's time too
            return _compile_template(source)
    except TemplateError as e:
        raise _failure(e) from None


_TEMPLATES: dict[str, Template] = {}
_EXPRESSIONS: dict[str, TemplateExpression] = {}
# compiled templates and expressions kept in memory, each kind: the five shipped games use 560 and 249. A long
# `pnp serve` session compiles every edited text anew, so past this the oldest half is let go (the disk cache
# still has their code)
MAX_COMPILED_KEPT = 5_000


def _keep(kept: dict[str, _T], key: str, value: _T) -> _T:
    """`value` kept under `key` in a cache of compiled code bounded by MAX_COMPILED_KEPT."""
    if len(kept) >= MAX_COMPILED_KEPT:
        for old in list(itertools.islice(kept, len(kept) // 2)):  # (a dict keeps the order keys came in)
            del kept[old]
    kept[key] = value
    return value


def _compile_template(source: str, filename: str = "<template>") -> Template:
    """The template of `source`, its code compiled under `filename` (what its frames are known by)."""
    key = f"{filename}\0{source}"  # (a name holds no NUL: an inline text '<macros>\0S' once shared S's code)
    template = _TEMPLATES.get(key)
    if template is None:
        code = _compiled_code("template", key, source, lambda: ENV.compile(source, filename=filename))
        template = _keep(_TEMPLATES, key, ENV.template_class.from_code(ENV, code, _GLOBALS, None))
    return template


def _compile_expression(source: str) -> TemplateExpression:
    expression = _EXPRESSIONS.get(source)
    if expression is None:
        if not source.strip():
            raise _Empty("an empty expression; write one, such as item.cost > 2", 1)
        code = _compiled_code("expression", source, source, lambda: _expression_code(source))
        template = ENV.template_class.from_code(ENV, code, _GLOBALS, None)
        expression = _keep(_EXPRESSIONS, source, TemplateExpression(template, False))
    return expression


def _compiled_code(kind: str, key: str, source: str, compiled: Callable[[], CodeType]) -> CodeType:
    """The code of a template or expression (`kind`), from CODE_CACHE under `key` or `compiled()`; running out of memory
    while compiling it (the machine's, or a limit set on pnp) is said as the template's error, at the place
    that writes it: it was 'a bug in pnp' said at the game's component, or 'too many loops' where Python's own
    compile ran out."""
    try:
        return CODE_CACHE.value(f"{kind}\0{key}", compiled, _is_code)
    except MemoryError:
        raise _TooBig(f"pnp ran out of memory compiling this {kind} ({len(source):,} characters): the "
                      "machine has too little free memory, or a limit is set on pnp's", 1) from None


def _is_code(value: object) -> bool:
    """Whether a value read from CODE_CACHE is compiled code, as compiling gives."""
    return isinstance(value, CodeType)


def _expression_code(source: str) -> CodeType:
    """An expression compiled as Jinja's own compile_expression does (`result = EXPR`)."""
    parser = _Parser(ENV, source, state="variable")
    try:
        expr = _parsed(parser, parser.parse_expression)
    except TemplateSyntaxError as e:
        if is_template(source):  # braces written round an expression read as a mapping: Jinja's word was "expected
            # token ':', got '}'", which said nothing of the braces
            raise TemplateSyntaxError(f"an expression is written without braces (`{_unbraced(source)}`, not "
                                      "`{{ ... }}`): braces make a template, for text", e.lineno) from None
        raise
    if not parser.stream.eos:
        raise TemplateSyntaxError("chunk after expression", parser.stream.current.lineno, None, None)
    expr.set_environment(ENV)
    return ENV.compile(_result_of(expr))


def _unbraced(source: str) -> str:
    """An expression written as a template (`{{ card.n > 2 }}`) as it is written (`card.n > 2`), cut short."""
    inner = re.sub(r"^\s*\{[{%]-?\s*|\s*-?[}%]\}\s*$", "", source)
    return inner if len(inner) <= 40 else inner[:39] + "…"


def _result_of(expr: nodes.Expr) -> nodes.Template:
    """The template `result = EXPR` that Jinja compiles an expression as, its value refused there if it is (or holds)
    something undefined (_defined), at the line of the expression's last part: refused once the expression had
    returned, `card\n.nosuch` was said at the line its text begins on (the key's)."""
    value = nodes.Filter(expr, "_pnp_defined", [], [], None, None, lineno=expr.lineno)
    return nodes.Template([nodes.Assign(nodes.Name("result", "store"), value, lineno=1)], lineno=1)


# compiling is a fifth of building a game, and the same layouts are built again and again; the sandbox this
# module sets up is part of what compiled code depends on
CODE_CACHE = DiskCache("templates", jinja2.__version__, Path(__file__).read_bytes())


def compile_expression(source: object) -> TemplateExpression:
    """Check an expression's syntax once (cached); ExprError for a syntax error."""
    try:
        with _EVALUATION:
            return _compile_expression(str(source))
    except TemplateError as e:
        raise _failure(e) from None


def is_template(value: object) -> bool:
    """Whether `value` is text Jinja reads as a template: one holding a tag, an expression or a comment (a
    rulebook whose only Jinja was a `{# note #}` printed the note)."""
    return isinstance(value, str) and ("{{" in value or "{%" in value or "{#" in value)


_LOOKUP = re.compile(r"^\{\{\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\}\}$")
_LOOKUPS: dict[str, list[str] | None] = {}  # source -> its names when the template is one `{{ a.b.c }}`, else None
_UNSEEN: list[str] = []  # not looked at yet: compared by identity, never stored in _LOOKUPS


def _lookup(source: str, context: Mapping[str, Any]) -> str | None:
    """A template that is only `{{ card.name }}`, the commonest by far, read as Jinja would read it (a
    mapping's field) without making a Jinja context per item; None when Jinja must run it: a name not in
    `context`, a field that is not there, anything but text or a whole number at the end."""
    names = _LOOKUPS.get(source, _UNSEEN)
    if names is _UNSEEN:
        match = _LOOKUP.match(source)
        names = _LOOKUPS[source] = match.group(1).split(".") if match else None
    if names is None or names[0] not in context:
        return None
    value = context[names[0]]
    for name in names[1:]:  # a mapping's field, as _Env.getattr reads it first; anything else goes to Jinja
        if not _is_mapping(value) or name not in value:
            return None
        value = value[name]
    if type(value) not in (str, int):
        return None
    text = str(value)
    return text if len(text) <= MAX_STRING else None


def render(source: Any, context: Mapping[str, Any], max_chars: int = MAX_STRING,
           too_long: str = "the template's text is longer than {max_chars:,} characters",
           origins: list[tuple[int, int, bool]] | None = None, markup: bool = False) -> Any:
    """Render a string template; plain strings come back untouched (the fast path for most values). Text
    longer than `max_chars` stops it at the line writing past the limit, with `too_long` as the message.
    With `origins`, the template's lines are traced: it gets (offset in the text, template line, literal?)
    for each piece of the text, a literal piece's later lines being the template's next lines. `markup`: the
    text is Markdown, which reads HTML entities (the rulebook): only there may a template escape text."""
    if not is_template(source):
        if len(source) > max_chars:  # text alone is held to the limit too: a rulebook of 1.2 MB of plain Markdown
            # was set (in 7 s) where the same text with one `{{ }}` in it was refused
            raise ExprError(too_long.format(max_chars=max_chars), _line_in_text(source, source, max_chars))
        if origins is not None and source:
            origins.append((0, 1, True))
        return source
    quick = _lookup(source, context) if origins is None else None
    if quick is not None and len(quick) <= max_chars:
        return quick
    if source in _budget.too_slow:
        raise _budget.too_slow[source]
    crossing: list[int | None] = [None]  # the source line where the text went past max_chars (_generated)
    try:
        with _EVALUATION:
            template = _compile_template(source, "<template>" if origins is None else TRACED_FILE)
            read = _MARKUP_READ.set(markup)
            try:
                return _generated(template, context, source, (max_chars, too_long), origins, crossing)
            finally:
                _MARKUP_READ.reset(read)
    except _EXPECTED as e:
        failure = _remember(source, e)
        line = crossing[0]
        if line is not None and isinstance(e, LimitError) and failure.line is not None and line > failure.line:
            failure.line = line
        raise failure from None


def _generated(template: Any, context: Mapping[str, Any], source: str, limit: tuple[int, str],
               origins: list[tuple[int, int, bool]] | None, crossing: list[int | None]) -> str:
    """render's text, made piece by piece: `limit` (max_chars, too_long) stops it at the piece going past,
    noting in `crossing` the source line where it did when the piece is the source's own text; with
    `origins`, each piece's (offset, template line, literal?) is noted there."""
    max_chars, too_long = limit
    out: list[str] = []
    size = 0
    pieces = cast(Generator[str, None, None], template.generate(context))  # (typed as an Iterator: it is a generator)
    _ORIGIN.at = None
    for piece in pieces:
        if origins is not None and piece:
            origins.append((size, *(_ORIGIN.at or (_yield_line(pieces, template), False))))
            _ORIGIN.at = None
        size += len(piece)
        if size > max_chars:  # thrown in at the template's yield, so the error has the line writing it
            crossing[0] = _line_in_text(source, piece, len(piece) - (size - max_chars))
            pieces.throw(LimitError(too_long.format(max_chars=max_chars)))
        out.append(piece)
    return "".join(out)


def _line_in_text(source: str, piece: str, cut: int) -> int | None:
    """The line of `source` at which `piece` (a piece of a template's output) goes past `cut` characters, when
    the piece is the template's own text: Jinja writes a run of plain text as one piece, said at the line the
    run begins, which for 20,000 lines of plain text was far from where the limit was passed."""
    if piece is not source and "\r" in source:  # Jinja writes its text's line ends \n, whichever they were
        source = _LINE_END.sub("\n", source)
    if "\n" not in piece[:cut] and "\r" not in piece[:cut]:
        return None
    at = source.find(piece)
    if at < 0:
        return None
    # its lines counted as Jinja counts them: \n, \r\n and \r alone each end one
    return source.count("\n", 0, at + cut) + source.count("\r", 0, at + cut) - source.count("\r\n", 0, at + cut) + 1


_LINE_END = re.compile(r"\r\n?|\n")


def evaluate(source: object, context: Mapping[str, Any]) -> Any:
    """Evaluate a Jinja expression (no braces) to a Python value."""
    source = str(source)
    if source in _budget.too_slow:
        raise _budget.too_slow[source]
    try:
        with _EVALUATION:
            return _compile_expression(source)(**context)  # (its value checked as it ends: _result_of)
    except _EXPECTED as e:
        raise _remember(source, e) from None


def out_of_time(source: str) -> bool:
    """Whether evaluating `source` ran out of time in the game being checked: its own (it is not run again)
    or the game's (no template is): its error says nothing of the item it was asked of."""
    return source in _budget.too_slow or _budget.stopped is not None


def _defined(value: Any) -> Any:
    """An expression's value, refused if it is (or holds) something undefined: `game.rules.missing` must fail
    here, with its message, not later in code that only then tries to use it."""
    if isinstance(value, Undefined):
        value._fail_with_undefined_error()
    if type(value) is _Lazy:  # read by whoever needs it, as often (a derived field by every layout), not once
        return _check_result(list(value))
    if type(value) in (list, tuple):  # made by the expression (data's own lists and records hold no Undefined)
        for item in value:
            _defined(item)
    elif type(value) is dict:
        for item in value.values():
            _defined(item)
    return value


ENV.filters["_pnp_defined"] = _defined


def _remember(source: str, error: BaseException) -> ExprError:
    """The ExprError for a failure; a template stopped for taking too long would take as long for the next
    item, so it is not run again: later renders raise the same error at once."""
    failure = _failure(error)
    if isinstance(error, _Timeout):
        _budget.too_slow[source] = failure
    return failure


def module(source: str, context: dict[str, Any]) -> TemplateModule:
    """A template of macros (macros.j2) as a module whose macros other templates call."""
    try:
        with _EVALUATION:
            return _compile_template(source, MACROS_FILE).make_module(context)
    except _EXPECTED as e:
        raise _failure(e, (MACROS_FILE,)) from None


# -- the parts of a comparison (the design report's margins) ------------------------------------------------

_OPERATORS = {"eq": "==", "ne": "!=", "lt": "<", "lteq": "<=", "gt": ">", "gteq": ">="}
_COMPARISONS: "dict[str, list[Comparison] | None]" = {}  # source -> its comparisons, or None


class Side:
    """One side of a comparison, compiled on its own: `names` are the context's names it reads."""

    def __init__(self, node: nodes.Expr) -> None:
        self.names = frozenset(n.name for n in node.find_all(nodes.Name)) | (
            {node.name} if isinstance(node, nodes.Name) else set())
        self._expression = TemplateExpression(ENV.from_string(_result_of(node)), False)

    def value(self, context: Mapping[str, Any]) -> Any:
        """The side's value, bounded like any evaluation; ExprError when it fails."""
        try:
            with _EVALUATION:
                return self._expression(**context)  # (checked as it ends: _result_of)
        except _EXPECTED as e:
            raise _failure(e) from None


Comparison = tuple[Side, str, Side]  # (left side, operator, right side)


def comparisons(source: object) -> list[Comparison] | None:
    """The comparisons an expression is made of at its top: `A op B`, a chain `A <= B <= C` (two pairs), or
    several of those joined by `and`; each as (left Side, operator, right Side). None when the expression is
    anything else (an `or`, a test, a macro's output...) or cannot be parsed."""
    source = str(source)
    if source not in _COMPARISONS:
        # its sides compiled in the game's budget, as an expression evaluated is: the design report compiled
        # them outside it, 10,000 sides of 5,000 rules in 4.6 s after a check that stayed within it
        with _EVALUATION:
            _COMPARISONS[source] = _parse_comparisons(source)
    return _COMPARISONS[source]


def _parse_comparisons(source: str) -> list[Comparison] | None:
    """comparisons() of a source not yet read; LimitError where reading it ran out of memory (the machine's, or
    a limit set on pnp), as compiling an expression says it (_compiled_code): it was 'a bug in pnp' with no
    line, said for the design report's margins."""
    try:
        parser = _Parser(ENV, source, state="variable")
        tree = _bounded_tree(_parsed(parser, parser.parse_expression))
        if not parser.stream.eos:
            return None
        pairs: list[Comparison] = []
        for node in _conjuncts(tree):
            if not isinstance(node, nodes.Compare) or any(o.op not in _OPERATORS for o in node.ops):
                return None
            left = Side(node.expr)
            for operand in node.ops:
                right = Side(operand.expr)
                pairs.append((left, _OPERATORS[operand.op], right))
                left = right
    except TemplateError:
        return None
    except MemoryError:
        raise LimitError(f"pnp ran out of memory reading this expression ({len(source):,} characters): the "
                         "machine has too little free memory, or a limit is set on pnp's") from None
    return pairs


def _conjuncts(node: nodes.Node) -> list[nodes.Node]:
    """`a and b and c` -> a, b, c (the operands of top-level `and`s)."""
    if isinstance(node, nodes.And):
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


# What can tell two equal items apart by identity, which no read of theirs shows (layout/resolve.py shares an
# element's primitives between items reading equal values): the `sameas` test, `in` (a list finds the item
# itself without comparing it), the tests and filters that take such a test by name, and calls (a macro
# may do any of these out of sight)
_IDENTITY_TESTS = frozenset({"sameas", "in"})
_TEST_FILTERS = frozenset({"select", "reject", "selectattr", "rejectattr"})


_N = TypeVar("_N", bound=nodes.Node)
_FLAT: dict[int, tuple[nodes.Node, list[nodes.Node]]] = {}  # id(node) -> (node, the nodes inside it in order)


def _find_all(node: nodes.Node, kinds: type[_N] | tuple[type[_N], ...]) -> list[_N]:
    """The nodes of `kinds` inside `node`, in the order written, as Node.find_all finds them; each node's whole
    list read once (a walk of Jinja's recursive generators, ten of them for the static checks of one template,
    took seconds for a template of 3,000 {% set %} lines: each is a pass over a list now)."""
    key = id(node)
    kept = _FLAT.get(key)
    if kept is None or kept[0] is not node:
        inside: list[nodes.Node] = []
        stack = list(reversed(list(node.iter_child_nodes())))
        while stack:
            child = stack.pop()
            inside.append(child)
            stack.extend(reversed(list(child.iter_child_nodes())))
        if len(_FLAT) >= 512:
            _FLAT.clear()
        kept = _FLAT[key] = (node, inside)
    return [found for found in kept[1] if isinstance(found, kinds)]


@functools.lru_cache(maxsize=4096)
@_charged_for
def may_tell_identity(source: str, expression: bool = False, item: frozenset[str] = frozenset(),
                      methods: frozenset[str] = frozenset()) -> bool:
    """Whether a template (an expression with `expression`) may compare values by identity: uses `in`,
    `sameas`, a filter taking a test, or calls anything; or uses the value named by one of `item` itself
    rather than a field of it (`[card] == [x]` compares a list's entries by identity first; `card.keys`, one
    of its `methods`, holds the item); True when it does not parse."""
    try:
        tree = ENV.parse("{{ (" + source + ") }}" if expression else source)
    except (TemplateSyntaxError, MemoryError):  # (out of memory: it may, for all pnp knows)
        return True
    for node in _find_all(tree, (nodes.Test, nodes.Operand, nodes.Filter, nodes.Call)):
        if isinstance(node, nodes.Call) or isinstance(node, nodes.Test) and node.name in _IDENTITY_TESTS or \
                isinstance(node, nodes.Operand) and node.op in ("in", "notin") or \
                isinstance(node, nodes.Filter) and node.name in _TEST_FILTERS:
            return True
    return bool(item) and _uses_itself(tree, item, methods)


def _uses_itself(tree: nodes.Node, item: frozenset[str], methods: frozenset[str]) -> bool:
    """Whether a name of `item` is used other than to look up a field of it (`card.name`, `card['name']`)."""
    looked_into = {id(node.node) for node in _find_all(tree, (nodes.Getattr, nodes.Getitem))
                   if isinstance(node, (nodes.Getattr, nodes.Getitem))  # (find_all is typed as any node)
                   and not (isinstance(node, nodes.Getattr) and node.attr in methods)}
    return any(name.name in item and id(name) not in looked_into for name in _find_all(tree, nodes.Name))


# -- texts compared with a field of enum values (a typo there is false for every item, silently) ---------------

_EQUALITIES = frozenset({"eq", "ne", "in", "notin"})
# (whose field: None for the item, else the table as written, `data.cards` or `ref.cards`; the field; a text
# it is compared with; the line)
Compared = tuple[str | None, str, str, int]
TableEnums = Callable[[str], Mapping[str, Sequence[object]]]  # a table's name -> its fields of enum values
Field = tuple[str | None, str]  # (whose, field) of Compared: a field of the item, or of an item of a table


# (a macro of macros.j2, a place of caller()'s values, the place and name of the macro's parameter it gives there,
# and the field of that parameter it gives, or "" for the parameter itself)
CallerPlaces = frozenset[tuple[str, int, int, str, str]]


def enum_mistakes(source: object, expression: bool, item: frozenset[str], enums: Mapping[str, Sequence[object]],
                  tables: TableEnums | None = None, callers: CallerPlaces = frozenset()) -> list[tuple[str, int]]:
    """(message, template line) for each text a template (an expression with `expression`) compares a field of
    the item (named by one of `item`, or by a name set to it: `{% set c = card %}`) with by ==, != or `in` a
    written list, when the field's values are `enums[field]` and the text is none of them: `card.kind ==
    'Beast'` where kind is one of beast, bird was false for every card, and the element silently never drawn.
    With `tables`, so too a field of a table read whole and picked by it (`data.cards | selectattr('kind',
    'eq', 'Beast')`, `ref.cards.values() | ...`, `| map(attribute='kind')`) or of one of its items
    (`ref.cards.lion.kind`, `data.cards[0].kind`), against `tables(name)`. Nothing for the item (or `data`,
    `ref`) when the template gives that name another value (`{% for card in ... %}`), nor when it cannot be
    parsed (compiling says why). `callers`: what macros.j2's macros give caller() (macro_callers)."""
    found = []
    for whose, field, text, line in _texts_compared(str(source), expression, item, callers):
        if whose is None:
            found += _mistakes_of(field, text, enums, line=line)
        elif tables is not None:
            found += _mistakes_of(field, text, tables(_table_name(whose)), f"'{field}' of {whose}", line)
    return found


def _table_name(whose: str) -> str:
    """The table's name in `data.cards` or `ref.cards` (Compared's whose)."""
    return whose.split(".", 1)[1]


# enums' values compared with a text -> (those plain texts, those texts as a suggestion names them)
_ENUM_TEXTS: "_Made[tuple[frozenset[str], tuple[str, ...]]]" = {}


def _enum_texts(values: Sequence[object]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The texts among an enum's `values`, made once per enum: 2,000 `when: card.kind == '...'` naming none of an
    enum of 10,000 looked through it, and copied it for the suggestion, each (7.7 s)."""
    return _made_once(_ENUM_TEXTS, values, lambda: (frozenset(v for v in values if type(v) is str),
                                                    tuple(v for v in values if isinstance(v, str))), 256)


def _mistakes_of(field: str, text: str, enums: Mapping[str, Sequence[object]], whose: str = "",
                 line: int = 0) -> list[tuple[str, int]]:
    """[(message, line)] when `text` is none of the values `enums[field]` of a field of enum values, else []."""
    values = enums.get(field)
    if values is None:
        return []
    plain, texts = _enum_texts(values)
    if text in plain:
        return []
    listed = ", ".join(shown(v, 30) for v in values[:12]) + (f" and {len(values) - 12:,} more" if
                                                              len(values) > 12 else "")
    whose = whose or f"'{field}'"
    return [(f"{whose} is one of {listed}: {shown(text, 40)} is none of them, so this comparison "
             f"is the same for every item{did_you_mean(text, texts)}", line)]


def _texts_compared(source: str, expression: bool, item: frozenset[str],
                    callers: CallerPlaces = frozenset()) -> tuple[Compared, ...]:
    """The (whose, field, text, line) of each comparison of `enum_mistakes`'s kind in a template."""
    return _enum_walks(source, expression, item, callers)[0]


# (a macro of macros.j2, the place or name of an argument given to it, and whose that argument is: None for
# the item, else the table written whose item it is, `ref.cards` for `ref.cards.lion`)
MacroArgument = tuple[str, int | str, str | None]


def macro_items(source: str, expression: bool, item: frozenset[str],
                callers: CallerPlaces = frozenset()) -> frozenset[MacroArgument]:
    """The arguments a template (an expression with `expression`) gives its macros that are plainly the item
    (`macros.badge(card)`, `macros.badge(c=item)`, a name set to it) or an item of a table (`ref.cards.lion`):
    each macro's parameter there is that item too."""
    return _enum_walks(source, expression, item, callers)[1]


@functools.lru_cache(maxsize=4096)
@_charged_for
def _enum_walks(source: str, expression: bool, item: frozenset[str],
                callers: CallerPlaces = frozenset()) -> tuple[tuple[Compared, ...], frozenset[MacroArgument]]:
    """(_texts_compared, macro_items) of a template, from one parse of it (each parsed it on its own)."""
    tree = _parsed_or_none(source, expression)
    if tree is None:
        return (), frozenset()
    named = frozenset(name.name for name in _find_all(tree, nodes.Name) if name.ctx in ("store", "param"))
    # the item's names (none when the template gives one of them another value), with the names set to it
    aliases, fields = _aliases(tree, item, callers) if not named & item else (frozenset(), {})
    names = frozenset() if named & item else item | aliases
    compared = [c for c in (*_tests_compared(tree, names, fields), *_operators_compared(tree, names, fields),
                            *_tables_compared(tree))
                if _read_as_written(c[0], named)]
    given = frozenset(given for call in _find_all(tree, nodes.Call) if _is_macros_call(call)
                      for given in _given(call, names) if _read_as_written(given[2], named))
    return tuple(compared), given


def _parsed_or_none(source: str, expression: bool) -> nodes.Template | None:
    """A template's tree (an expression's, with `expression`), None for plain text or one that cannot be parsed
    (compiling it says why)."""
    if expression and not source.strip() or not expression and not is_template(source):
        return None
    try:
        return ENV.parse("{{ (" + source + ") }}" if expression else source)
    except (TemplateSyntaxError, LimitError):
        return None


# what a condition reading nothing of the game is true or false as written: `false`, `1 > 2`, `not true`, `x is
# defined` (a test of a function's result)
_TRUE_OR_FALSE = (nodes.Compare, nodes.Not, nodes.Test)
_WRITTEN_KINDS = ((nodes.List, "a list"), (nodes.Tuple, "a list"), (nodes.Dict, "a mapping"))


def _true_or_false(node: nodes.Node) -> bool:
    """Whether an expression's tree gives true or false whatever it reads: a test, a comparison, a `not`, the
    words themselves, or `and`, `or` and `if ... else` of them (nested at most as deep as a template's source)."""
    if isinstance(node, (nodes.And, nodes.Or)):
        return _true_or_false(node.left) and _true_or_false(node.right)
    if isinstance(node, nodes.CondExpr):
        return _true_or_false(node.expr1) and node.expr2 is not None and _true_or_false(node.expr2)
    return isinstance(node, _TRUE_OR_FALSE) or isinstance(node, nodes.Const) and isinstance(node.value, bool)


@functools.lru_cache(maxsize=4096)  # (asked of each filter, constraint and `when` at every check)
@_charged_for
def constant_condition(source: str) -> str | None:
    """Why an expression written as a condition (a `when`) cannot be one, None when it can: one that reads nothing
    of the game (no name but a function's: `range(0)`) is the same for every item, so it must be true or false
    as written; a text, a number, a list or none written there was taken as true unless empty or 0 (`'false'`
    drew the element, `'true' and 'false'` too)."""
    tree = _parsed_or_none(source, True)
    if tree is None or any(name.name not in FUNCTION_NAMES for name in _find_all(tree, nodes.Name)):
        return None
    value = cast(nodes.Output, tree.body[0]).nodes[0]
    if _true_or_false(value):
        return None
    if isinstance(value, nodes.Const):
        kind = "none" if value.value is None else f"the text {shown(value.value)}" if isinstance(value.value, str) \
            else f"{type_name(value.value)} {shown(value.value)}"
    else:
        kind = next((said for node, said in _WRITTEN_KINDS if isinstance(value, node)), "a value")
    return (f"{shown(source.strip())} reads nothing of the game, so it is the same for every item, and it is {kind}, "
            "not true or false (a text is taken as true unless empty, a number unless 0): write true or false, or a "
            "test of the item such as `card.cost > 2`")


def value_got(value: object) -> str:
    """A value an expression gave, as a message says it was got."""
    try:
        got = shown(as_printed(value))
    except LimitError:  # too long or deep to write (a namespace made of the one before, over and over)
        return f"a {type(value).__name__.strip('_').lower()}"
    if callable(value):  # (`card.items` quoted "<bound method Tracked.items of {...}>", pnp's own names)
        return "a function, not its result (is a '()' missing after its name?)"
    if " at 0x" in got:  # an object of no literal form (`cycler(1, 2)`) by its kind, not by its memory address:
        return f"a {type(value).__name__.strip('_').lower()}"  # another on every run ("<pnp.template._Cycler ...>")
    return got


# texts that read as true or false: as a condition's value, a text is true unless empty, so 'false' held, and
# a spreadsheet's 0 or N in a text field drew the element
_TRUTH_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n", "1", "0"})
# what a condition may give: none, true or false, or a value of the game (a text, a number, a list, a mapping,
# an item: true unless empty or 0); a function, a namespace, a cycler or a list read one by one were true
# whatever they held
_CONDITION_VALUES = (type(None), bool, int, float, str, Sequence, Mapping, KeysView, ValuesView, ItemsView,
                     AbstractSet)


def condition_holds(value: object) -> bool:
    """Whether a condition's value (a layout's `when`, a component's `filter`, a constraint's or a balance rule's
    `expr`) is true, as Jinja's `if` takes it; ExprError for a value whose truth is not what it says."""
    if isinstance(value, str) and value.strip().lower() in _TRUTH_WORDS:
        raise ExprError(f"the text {shown(value)} is taken as true, as any text but an empty one is: test what it "
                        f"says (`x == {shown(value.strip())}`), or make the field true/false (type bool)")
    if not isinstance(value, _CONDITION_VALUES):
        raise ExprError(f"expected a test (true or false) or a value of the game, got {value_got(value)}")
    return bool(value)


def _read_as_written(whose: str | None, named: frozenset[str]) -> bool:
    """Whether a table written (`ref.cards`) is the game's: the template does not give `ref` another value."""
    return whose is None or whose.split(".")[0] not in named


def _aliases(tree: nodes.Node, item: frozenset[str],
             callers: CallerPlaces = frozenset()) -> tuple[frozenset[str], dict[str, Field]]:
    """The names a template (or a macro) sets to the item and to nothing else (`{% set c = card %}`, `{% with c =
    card %}`, `{% for c in [card] %}`, the block's `{% call(c) m() %}` of a macro of the template printing
    `caller(card)`, or of a macro of macros.j2 by `callers`), with those it sets to one field of it and nothing
    else (`{% set k = card.kind %}`: k is the item's kind)."""
    stored: dict[str, int] = {}
    for name in _find_all(tree, nodes.Name):
        if name.ctx in ("store", "param"):
            stored[name.name] = stored.get(name.name, 0) + 1
    pairs = _names_set(tree, callers)
    given = collections.Counter(target for target, _ in pairs)  # the values each name is given
    left = dict(given)  # of them, those still to be read
    names, fields = set(item), dict[str, Field]()
    seen: dict[str, set[Field | None]] = {}  # each name's values so far: the item (None), a field, or neither
    # in the order written, each value read by the names known before it: one pass (a chain of 5,000 sets,
    # each naming the one before, must not be read again for each link)
    for target, value in pairs:
        seen.setdefault(target, set()).add(None if _is_item(value, names) else
                                           _item_field(value, names, fields) or ("", ""))
        left[target] -= 1
        if left[target] or len(seen[target]) != 1 or stored.get(target) != given[target]:
            continue  # (a name given another value too, or given it elsewhere, is none of them)
        (kind,) = seen[target]
        if kind is None:
            names.add(target)
        elif kind != ("", ""):
            fields[target] = kind
    return frozenset(names) - item, fields


def _names_set(tree: nodes.Node, callers: CallerPlaces = frozenset()) -> list[tuple[str, nodes.Node]]:
    """(name, the one value it is given) of each {% set %}, {% with %}, {% for %} over a list written of one
    value alike (`[card]`), and parameter of a {% call %} block given one value alike by each `caller(...)` of
    the template's macro it calls (a name given another value, or none known, is left out: _aliases sees it
    set more often than listed), in the order written (a block's names before those set inside it)."""
    macros = {macro.name: macro for macro in _find_all(tree, nodes.Macro)}
    return [(target.name, value) for node in _find_all(tree, (nodes.Assign, nodes.With, nodes.For, nodes.CallBlock))
            for target, value in _pairs_of(node, macros, callers) if isinstance(target, nodes.Name)]


def _pairs_of(node: nodes.Node, macros: Mapping[str, nodes.Macro],
              callers: CallerPlaces = frozenset()) -> list[tuple[nodes.Node, nodes.Node]]:
    """(target, value) of one node of _names_set's kinds."""
    if isinstance(node, nodes.Assign):
        return [(node.target, node.node)]
    if isinstance(node, nodes.With):
        return list(zip(node.targets, node.values))
    if isinstance(node, nodes.For):
        items = node.iter.items if isinstance(node.iter, (nodes.List, nodes.Tuple)) else []
        return [(node.target, items[0])] if items and all(one == items[0] for one in items) else []
    if not isinstance(node, nodes.CallBlock):
        return []
    return _block_pairs(node, macros) if not _is_macros_call(node.call) else _macros_block_pairs(node, callers)


def _block_pairs(block: nodes.CallBlock, macros: Mapping[str, nodes.Macro]) -> list[tuple[nodes.Node, nodes.Node]]:
    """(parameter, value) of a {% call %} block whose macro gives that parameter one value alike at every
    `caller(...)`."""
    macro = macros.get(block.call.node.name) if isinstance(block.call.node, nodes.Name) else None
    calls = [] if macro is None else [call for call in _find_all(macro, nodes.Call)
                                      if isinstance(call.node, nodes.Name) and call.node.name == "caller"]
    pairs: list[tuple[nodes.Node, nodes.Node]] = []
    for place, param in enumerate(block.args):
        given = [call.args[place] for call in calls if place < len(call.args)]
        if given and len(given) == len(calls) and all(one == given[0] for one in given) \
                and not _set_in(macro, given[0]):
            pairs.append((param, given[0]))
    return pairs


def _macros_block_pairs(block: nodes.CallBlock, callers: CallerPlaces) -> list[tuple[nodes.Node, nodes.Node]]:
    """(parameter, value) of a `{% call(x) macros.m(card) %}` block whose macro of macros.j2 gives caller() one of
    its own parameters at x's place (`callers`): x is the value the block's call gives that parameter."""
    name = block.call.node.attr if isinstance(block.call.node, nodes.Getattr) else None
    pairs: list[tuple[nodes.Node, nodes.Node]] = []
    for macro, place, at, param, field in sorted(callers):
        if macro != name or place >= len(block.args):
            continue
        value = block.call.args[at] if at < len(block.call.args) else \
            next((kw.value for kw in block.call.kwargs if kw.key == param), None)
        if value is not None:  # (`caller(c.kind)`: x is the block's call's value's field, `card.kind`)
            pairs.append((block.args[place], nodes.Getattr(value, field, "load", lineno=value.lineno) if field
                          else value))
    return pairs


@functools.lru_cache(maxsize=8)
@_charged_for
def macro_callers(source: str) -> CallerPlaces:
    """What each macro of macros.j2 gives `caller(...)` at a place, when it gives one of its own parameters there
    at every caller() it writes (and gives that parameter no other value): a template's `{% call(x)
    macros.m(card) %}` block's x is then the item the template gives it (_macros_block_pairs)."""
    macros = _macros_of(source)
    return frozenset(found for name in macros for found in _caller_places(macros, name))


def _caller_places(macros: Mapping[str, nodes.Macro], name: str) -> list[tuple[str, int, int, str, str]]:
    """macro_callers of one macro."""
    params = [arg.name for arg in macros[name].args]
    calls = [call for call in _find_all(macros[name], nodes.Call)
             if isinstance(call.node, nodes.Name) and call.node.name == "caller"]
    found = []
    for place in range(max((len(call.args) for call in calls), default=0)):
        given = [call.args[place] for call in calls if place < len(call.args)]
        one = _param_field(given[0])
        if len(given) == len(calls) and all(value == given[0] for value in given) and one is not None \
                and one[0] in params and _param_given(macros, (name, one[0], None)) is not None:
            found.append((name, place, params.index(one[0]), *one))
    return found


def _param_field(value: nodes.Node) -> tuple[str, str] | None:
    """(name, field) of what a macro gives caller(): a name (`c`, field ""), or a field of one (`c.kind`,
    `c['kind']`); None for anything else."""
    if isinstance(value, nodes.Name):
        return value.name, ""
    if isinstance(value, nodes.Getattr) and isinstance(value.node, nodes.Name):
        return value.node.name, value.attr
    if isinstance(value, nodes.Getitem) and isinstance(value.node, nodes.Name) and isinstance(value.arg, nodes.Const) \
            and isinstance(value.arg.value, str) and value.arg.value:
        return value.node.name, value.arg.value
    return None


def _set_in(macro: nodes.Macro | None, value: nodes.Node) -> bool:
    """Whether a macro gives a name its value holds another value (a parameter, a set): read in the macro, it is
    not the template's."""
    inner = {n.name for n in _find_all(macro, nodes.Name) if n.ctx in ("store", "param")} if macro else set()
    return isinstance(value, nodes.Name) and value.name in inner or any(
        n.name in inner for n in _find_all(value, nodes.Name))


def _is_macros_call(call: nodes.Call) -> bool:
    """Whether a call is of a macro of macros.j2, `macros.NAME(...)`."""
    callee = call.node
    return isinstance(callee, nodes.Getattr) and isinstance(callee.node, nodes.Name) and callee.node.name == "macros"


def _given(call: nodes.Call, item: frozenset[str]) -> list[MacroArgument]:
    """The arguments of a call, `NAME(...)` or `macros.NAME(...)`, that are plainly the item or an item of a
    table, with the macro's name."""
    callee = call.node
    name = callee.attr if isinstance(callee, nodes.Getattr) else callee.name if isinstance(callee, nodes.Name) else None
    if name is None:
        return []
    given: list[tuple[int | str, nodes.Expr]] = [*enumerate(call.args), *((kw.key, kw.value) for kw in call.kwargs)]
    return [(str(name), place, None if _is_item(arg, item) else whose) for place, arg in given
            if _is_item(arg, item) or (whose := _table_item(arg)) is not None]


def _is_item(node: nodes.Node, item: AbstractSet[str]) -> bool:
    return isinstance(node, nodes.Name) and node.name in item and node.ctx == "load"


ItemEnums = Callable[[frozenset[str]], Mapping[str, Sequence[object]]]  # the item's tables -> its fields of enums


def macro_enum_mistakes(source: str, given: Mapping[MacroArgument, frozenset[str]], item_enums: ItemEnums,
                        tables: TableEnums | None = None) -> list[tuple[str, int]]:
    """enum_mistakes of macros.j2's macros, each parameter that is given the item (macro_items) read as the
    item: `{% macro badge(c) %}{% if c.kind == 'Beast' %}` called as `macros.badge(card)`, and so a macro
    that macro gives its parameter to (`{{ tag(c) }}`); one given an item of a table (`ref.cards.lion`) against
    `tables(name)`. `given`: each argument with the tables whose items it is (the layouts' that give it); a
    parameter given the items of several tables is judged against item_enums of all of them (a macro shared by
    a deck of beasts and one of events compares a kind with both tables' values). (message, line in macros.j2),
    each once."""
    macros = _macros_of(source)
    found: dict[tuple[str, int], None] = {}
    for given_now, reached_tables in _reached(macros, given).items():
        macro, whose, param = macros[given_now[0]], given_now[2], frozenset({str(_param_given(macros, given_now))})
        aliases, fields = _aliases(macro, param)  # (and a name the macro sets to it, or to a field of it)
        names = param | aliases
        field_enums = item_enums(frozenset(reached_tables)) if whose is None else \
            tables(_table_name(whose)) if tables is not None else {}
        for _, field, text, line in (*_tests_compared(macro, names, fields), *_operators_compared(macro, names, fields)):
            for message, _ in _mistakes_of(field, text, field_enums, f"'{field}' of {whose}" if whose else ""):
                found[(message, line)] = None
    return list(found)


def _reached(macros: Mapping[str, nodes.Macro],
             given: Mapping[MacroArgument, frozenset[str]]) -> dict[MacroArgument, set[str]]:
    """Each macro parameter given the item or an item of a table (macro_enum_mistakes), directly or by a macro
    that gives its own parameter to it, with the tables whose items it is given."""
    reached: dict[MacroArgument, set[str]] = {}
    pending: list[tuple[MacroArgument, frozenset[str]]] = list(given.items())
    while pending:
        given_now, item_tables = pending.pop()
        param = _param_given(macros, given_now)
        known = reached.get(given_now)
        if param is None or known is not None and item_tables <= known:
            continue
        reached.setdefault(given_now, set()).update(item_tables)
        # the macros of the file it gives the parameter to, by their name (a call of another name is not one)
        pending += [((callee, at, given_now[2]), item_tables) for call in _find_all(macros[given_now[0]], nodes.Call)
                    if isinstance(call.node, nodes.Name) and call.node.name in macros
                    for callee, at, of in _given(call, frozenset({param})) if of is None]
    return reached


def _param_given(macros: Mapping[str, nodes.Macro], given: MacroArgument) -> str | None:
    """The name of the parameter of a macro of macros.j2 an argument is given to, when the macro does not give
    it another value; else None."""
    name, place, _ = given
    macro = macros.get(name)
    params = [arg.name for arg in macro.args] if macro is not None else []
    param = params[place] if isinstance(place, int) and place < len(params) else place
    if macro is None or param not in params:
        return None
    own = {id(arg) for arg in macro.args}
    stored = any(n.name == param and n.ctx in ("store", "param") and id(n) not in own for n in _find_all(macro, nodes.Name))
    return None if stored else str(param)


@functools.lru_cache(maxsize=8)
@_charged_for
def _macros_of(source: str) -> dict[str, nodes.Macro]:
    """macros.j2's macros by name (none when it cannot be parsed: loading it says why)."""
    try:
        tree = ENV.parse(source)
    except (TemplateSyntaxError, LimitError):
        return {}
    return {macro.name: macro for macro in _find_all(tree, nodes.Macro)}


def _tests_compared(tree: nodes.Node, item: frozenset[str], fields: Mapping[str, Field]) -> Iterator[Compared]:
    """Jinja's tests of equality: `card.kind is eq('Beast')`, `is in(['beast', 'Bird'])`."""
    for test in _find_all(tree, nodes.Test):
        op = _EQUALITY_TESTS.get(test.name)
        if op is not None and len(test.args) == 1 and not test.kwargs:
            yield from _compared(test.node, op, test.args[0], (item, fields))


def _operators_compared(tree: nodes.Node, item: frozenset[str], fields: Mapping[str, Field]) -> Iterator[Compared]:
    """==, != and `in`, each pair of a chain (`a == b == c`) on its own."""
    for compare in _find_all(tree, nodes.Compare):
        left = compare.expr
        for operand in compare.ops:
            if operand.op in _EQUALITIES:
                yield from _compared(left, operand.op, operand.expr, (item, fields))
            left = operand.expr


def _tables_compared(tree: nodes.Node) -> Iterator[Compared]:
    """A table's field tested by the filters that pick items by it: `data.cards | selectattr('kind', 'eq',
    'Beast')` (and rejectattr), `data.cards | map(attribute='kind') | select('eq', 'Beast')` (and reject), and
    `'Beast' in data.cards | map(attribute='kind') | list`."""
    for picked in _find_all(tree, nodes.Filter):
        yield from _picked(picked)
    for compare in _find_all(tree, nodes.Compare):
        left = compare.expr
        for operand in compare.ops:
            found = _table_field(operand.expr) if operand.op in ("in", "notin") else None
            if found is not None:
                yield from _table_compared(*found, "eq", left)
            left = operand.expr


def _picked(picked: nodes.Filter) -> list[Compared]:
    """What a filter picking items compares a table's field with: `data.cards | selectattr('kind', 'eq',
    'Beast')`, `data.cards | map(attribute='kind') | select('eq', 'Beast')`."""
    args = picked.args
    if picked.kwargs or picked.dyn_args or picked.dyn_kwargs:
        return []
    if picked.name in ("selectattr", "rejectattr") and len(args) == 3:
        table, field, (test, value) = _data_table(picked.node), _text_of(args[0]), args[1:]
    elif picked.name in ("select", "reject") and len(args) == 2:
        (table, field), (test, value) = _table_field(picked.node) or (None, None), args
    else:
        return []
    op = _EQUALITY_TESTS.get(_text_of(test) or "")
    return [] if table is None or field is None or op is None else _table_compared(table, field, op, value)


def _table_compared(table: str, field: str, op: str, value: nodes.Expr) -> list[Compared]:
    """The texts a table's field is compared with: the one written, or each of a list written out (`in`; `in`
    a text looks for a part of it, which is not looked at), each at its own line (_compared)."""
    if op == "in" and not isinstance(value, (nodes.List, nodes.Tuple)):
        return []
    texts = value.items if isinstance(value, (nodes.List, nodes.Tuple)) else [value]
    return [(table, field, text, node.lineno) for node in texts if (text := _text_of(node)) is not None]


def _text_of(node: nodes.Node | None) -> str | None:
    """The text a node writes out (`'Beast'`), else None."""
    return node.value if isinstance(node, nodes.Const) and type(node.value) is str else None


def _named_table(node: nodes.Node | None, name: str) -> str | None:
    """`name.cards` or `name['cards']` as written (`data.cards`), when `node` reads a table so, else None."""
    if isinstance(node, nodes.Getattr) and isinstance(node.node, nodes.Name) and node.node.name == name:
        return f"{name}.{node.attr}"
    if isinstance(node, nodes.Getitem) and isinstance(node.node, nodes.Name) and node.node.name == name:
        text = _text_of(node.arg)
        return None if text is None else f"{name}.{text}"
    return None


def _data_table(node: nodes.Node | None) -> str | None:
    """The table read whole, as written: `data.cards` (or `data['cards']`), or `ref.cards` of
    `ref.cards.values()`; else None."""
    if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Getattr) and node.node.attr == "values" \
            and not (node.args or node.kwargs or node.dyn_args or node.dyn_kwargs):
        return _named_table(node.node.node, "ref")
    return _named_table(node, "data")


def _table_item(node: nodes.Node | None) -> str | None:
    """The table written whose item a node is: `ref.cards.lion`, `ref.cards['lion']`, `data.cards[0]` and
    `data.cards | first` (or last) are items of `ref.cards` or `data.cards`; else None."""
    if isinstance(node, nodes.Getattr):
        return _named_table(node.node, "ref")
    if isinstance(node, nodes.Getitem):
        return _named_table(node.node, "ref") or (_named_table(node.node, "data") if not isinstance(
            node.arg, nodes.Slice) else None)
    if isinstance(node, nodes.Filter) and node.name in ("first", "last") and not (node.args or node.kwargs):
        whole = node.node  # (`ref.cards.values() | list | first`: the list of it is the table too)
        if isinstance(whole, nodes.Filter) and whole.name == "list" and not (whole.args or whole.kwargs):
            whole = whole.node
        return _data_table(whole)
    return None


def _table_field(node: nodes.Node | None) -> tuple[str, str] | None:
    """(table, field) of `data.cards | map(attribute='kind')`, as it is or made a list (`| list`), else None."""
    if isinstance(node, nodes.Filter) and node.name == "list" and not node.args:
        node = node.node
    if not isinstance(node, nodes.Filter) or node.name != "map" or node.args or len(node.kwargs) != 1:
        return None
    attribute = node.kwargs[0]
    table, field = _data_table(node.node), _text_of(attribute.value) if attribute.key == "attribute" else None
    return (table, field) if table is not None and field is not None else None


def expression_item_table(source: object) -> str | None:
    """The table whose item an expression is (`ref.cards['lion']`, `data.cards[0]`: cards), else None."""
    try:
        tree = ENV.parse("{{ (" + str(source) + ") }}")
    except (TemplateSyntaxError, LimitError):
        return None
    output = tree.body[0] if len(tree.body) == 1 else None
    value = output.nodes[0] if isinstance(output, nodes.Output) and len(output.nodes) == 1 else None
    whose = _table_item(value)
    return None if whose is None else _table_name(whose)


# Jinja's tests that compare as ==, != and `in` do
_EQUALITY_TESTS = {"eq": "eq", "equalto": "eq", "==": "eq", "ne": "ne", "!=": "ne", "in": "in"}


def _compared(left: nodes.Expr, op: str, right: nodes.Expr,
              named: tuple[frozenset[str], Mapping[str, Field]]) -> list[Compared]:
    """The (whose, field, text, line) compared by `left op right`: a field of the item (or of an item of a
    table) with a text, or a field `in` a list or tuple written out. The line is the text's own, which may be
    below its operator's (the comparison's line, _Parser)."""
    if op in ("in", "notin"):
        found = _item_field(left, *named)
        if found is None or not isinstance(right, (nodes.List, nodes.Tuple)):
            return []
        return [(*found, c.value, c.lineno) for c in right.items if isinstance(c, nodes.Const) and type(c.value) is str]
    for one, other in ((left, right), (right, left)):
        found = _item_field(one, *named)
        if found is not None and isinstance(other, nodes.Const) and type(other.value) is str:
            return [(*found, other.value, other.lineno)]
    return []


def _item_field(node: nodes.Node, item: AbstractSet[str], fields: Mapping[str, Field]) -> Field | None:
    """(whose, field) of `card.kind` or `card['kind']` when `card` is one of `item`'s names (whose: None), or of
    an item of a table (`ref.cards.lion.kind`: `ref.cards`), or of a name `fields` holds as set to one; else
    None."""
    if isinstance(node, nodes.Name) and node.ctx == "load":
        return fields.get(node.name)
    if isinstance(node, nodes.Getattr):
        field: str | None = str(node.attr)
    elif isinstance(node, nodes.Getitem):
        field = _text_of(node.arg)
    else:
        return None
    if field is None:
        return None
    if isinstance(node.node, nodes.Name) and node.node.name in item:
        return None, field
    whose = _table_item(node.node)
    return None if whose is None else (whose, field)
