"""The rules API: what a game's cards/<game>/rules.py defines so that pnp can play it, and the read-only view
of the validated data it is given."""

import ast
import codecs
import copy
import functools
import hashlib
import importlib.machinery
import importlib.util
import inspect
import io
import linecache
import math
import os
import random
import re
import reprlib
import sys
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from types import CodeType
from typing import Any, ClassVar, NamedTuple

from ..errors import DataError
from ..model.game import Game
from ..model.simulated import MAX_REASONS, MAX_TABLES, MAX_TEXT
from ..project import Project, read_project_file, utf8_text
from ..report import Mark, named


class Item(Mapping[str, Any]):
    """One row of a table (or a nested record), read-only: `item.name`, `item["name"]`; lists are tuples.
    The fields live in the instance's own __dict__, so `item.name` is a plain attribute read (rules read them
    by the million)."""

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.__dict__.update({k: frozen(v) for k, v in fields.items()})

    def __getattr__(self, name: str) -> Any:  # only called for a field that is not there
        raise AttributeError(f"the item has no field '{name}' (it has {', '.join(self.__dict__)})")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the game's data is read-only in rules")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("the game's data is read-only in rules")

    def __getitem__(self, key: str) -> Any:
        return self.__dict__[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dict__)

    def __len__(self) -> int:
        return len(self.__dict__)

    def __repr__(self) -> str:
        return f"Item({self.__dict__.get('id', '')!r})" if "id" in self.__dict__ else f"Item({self.__dict__!r})"

    def __reduce__(self) -> tuple[type["Item"], tuple[dict[str, Any]]]:
        return Item, (dict(self.__dict__),)

    def __deepcopy__(self, memo: dict[int, object]) -> "Item":
        return self  # read-only: a state holding items copies the reference


def frozen(value: Any) -> Any:
    """A value of the data as rules see it: mappings become Items, lists tuples; scalars as they are."""
    if isinstance(value, Mapping):
        return Item(value)
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    return value


@dataclass(frozen=True)
class GameData:
    """The validated game as rules.py sees it: `tables.NAME` is a tuple of Items, `ref.NAME[id]` one Item,
    `rules` is game.yaml's rules: mapping (an Item)."""

    id: str
    title: str
    rules: Item
    tables: Item
    ref: Item

    @classmethod
    def of(cls, game: Game) -> "GameData":
        tables = {name: frozen(list(items)) for name, items in game.tables.items()}
        # by id, the items whose id can be a key: a table's field named `id` may be of any type, and a map's
        # (an Item, unhashable) stopped every run of a game that validated, said as the rules failing to start
        ref = {name: {it["id"]: it for it in items if isinstance(it, Item) and "id" in it and _hashable(it["id"])}
               for name, items in tables.items()}
        return cls(game.id, game.title, frozen(game.meta.get("rules") or {}), Item(tables), Item(ref))


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


Move = Hashable  # a move: any hashable, printable value (a tuple such as ("buy", "ferro-rex") reads well in logs)


@dataclass
class Tracked:
    """What happened to the items of the tables a game tracks (its ITEMS), for the statistics.

    `available`: the (table, id) pairs in play this game (a species not dealt cannot be taken);
    `events[player][name]`: the (table, id) pairs to which event `name` happened for that player at least
    once. `taken`, `played` and `effective` are the names pnp reports dead items by (never taken, never
    effective); a game may add its own (say `knocked_out`)."""

    available: set[tuple[str, str]] = field(default_factory=set)
    events: list[dict[str, Iterable[tuple[str, str]]]] = field(default_factory=list)


class Stopped(BaseException):
    """Raised into the rules by pnp's own alarm (run._alarm: out of processor time, or waiting for good), or by its
    handler of Ctrl-C (Interrupted): never an error of the rules' to say as theirs, so each handler of whatever
    the rules raise lets it through."""


class Interrupted(Stopped, KeyboardInterrupt):
    """Ctrl-C, as pnp's handler of SIGINT raises it in a process playing the rules (run.ctrl_c_told): told apart
    from a KeyboardInterrupt the rules raise themselves, which is their failure, said at their line (taken for
    Ctrl-C, it ended the process playing them, and pnp said it ended without a word). A KeyboardInterrupt still,
    so it ends pnp as Ctrl-C does."""


class RulesFault(Exception):
    """The rules failed in a game: `message` says how, `line` where in rules.py, else `hook` the method whose
    value was wrong (said at the line that defines it: see hook_line)."""

    def __init__(self, message: str, line: int = 0, hook: str = "") -> None:
        super().__init__(message)
        self.message, self.line, self.hook = message, line, hook


class GameRules(ABC):
    """The contract of a rules.py: define `class Rules(GameRules)` with at least the abstract methods.

    Players are numbered 0..players-1 in seat order. Chance comes only from the `rng` pnp passes (a
    random.Random seeded per game), so a seed replays a game exactly. A state is whatever the rules like;
    pnp copies it with `clone` for look-ahead, so the default deep copy works for any plain state."""

    #: the tables whose items are tracked: {table: "what one is", ...}, e.g. {"dinosaurs": "species"}
    ITEMS: Mapping[str, str] = {}
    #: the ways a game may end, for the statistics: e.g. ("knockouts", "wound pile")
    END_REASONS: tuple[str, ...] = ()
    #: (path, path as messages show it) of the rules file, set when it is loaded (see rules_class)
    source: ClassVar[tuple[str, str]]

    def __init__(self, game: GameData) -> None:
        self.game = game

    @abstractmethod
    def setup(self, players: int, rng: Random) -> Any:
        """The state at the start of a game for this many players."""

    @abstractmethod
    def to_act(self, state: Any) -> int:
        """The player who decides next."""

    @abstractmethod
    def legal_moves(self, state: Any) -> list[Move]:
        """The moves open to the player to act (never empty while the game is not over)."""

    @abstractmethod
    def apply(self, state: Any, move: Move, rng: Random) -> Any:
        """The state after the move (the state given may be changed and returned)."""

    @abstractmethod
    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def scores(self, state: Any) -> list[float]:
        """Each player's score at the end; the highest score wins (a tie shares the win)."""

    def end_reason(self, state: Any) -> str:
        """How the game ended, one of END_REASONS."""
        return "end"

    def turn(self, state: Any) -> int:
        """The turn number (for error messages and game length); by default pnp counts decisions."""
        return -1

    def clone(self, state: Any) -> Any:
        """An independent copy of a state (override with a faster one for search agents)."""
        return copy.deepcopy(state)

    def determinise(self, state: Any, player: int, rng: Random) -> Any:
        """A copy of the state in which what `player` cannot see (hands, decks) is drawn at random among what
        it could be. The default: a perfect-information game, the state itself copied."""
        return self.clone(state)

    def heuristic(self, state: Any, player: int) -> float:
        """How good the state looks for `player` (greedy play); by default the score's lead."""
        scores = self.scores(state)
        return scores[player] - max((s for i, s in enumerate(scores) if i != player), default=0)

    def tracked(self, state: Any) -> Tracked:
        """What happened to the tracked items (see Tracked); by default nothing is tracked."""
        return Tracked()

    def describe(self, move: Move) -> str:
        """A move as the log prints it."""
        return " ".join(str(part) for part in move) if isinstance(move, tuple) else str(move)


RULES_FILE = "rules.py"


MAX_RULES_BYTES = 1 << 20  # of cards/<game>/rules.py (the shipped games' are 11 to 43 KB)


def load_rules(project: Project, game: Game) -> GameRules:
    """Import cards/<game>/rules.py and make its Rules for the game's data. Only `pnp simulate` and tests call
    this: the rules file is the only game code pnp ever runs."""
    return loaded_rules(project, game)[0]


def no_rules(project: Project, game: Game) -> DataError | None:
    """The refusal of a game that has no rules.py to play, or None: `pnp simulate` says it before anything else
    about the run (a game for 3-5 players without rules was first told to pick another --players, then, once
    it had, that it had no rules at all)."""
    path = game.folder / RULES_FILE
    if path.exists() or path.is_symlink():  # (a folder or a pipe there is refused as no ordinary file, as it is
        # read; a link to no file, or a loop of links, as such: it was said to be no rules.py, which the user sees)
        return None
    return DataError(f"no rules to play: write {RULES_FILE} beside game.yaml (see the README's `pnp simulate`)",
                     Mark(project.rel(path)))


def loaded_rules(project: Project, game: Game) -> tuple[GameRules, GameData, tuple[dict[str, str], list[str]]]:
    """load_rules()'s Rules, with the data they were made with (pnp's own copy: the Rules' `self.game` is theirs
    to set to anything) and what they declare (declared: read once, before the Rules are made)."""
    path = game.folder / RULES_FILE
    shown = project.rel(path)
    if (missing := no_rules(project, game)) is not None:
        raise missing
    real = project.inside(path, Mark(shown), "rules file", built=False)
    if not real.exists():  # (a link to no file, which no_rules lets pass: said as what it is)
        raise DataError(f"rules file {named(shown)} leads to no file ({named(project.rel(real))} is not there)",
                        Mark(shown))
    if (size := real.stat().st_size) > MAX_RULES_BYTES:  # before Python compiles it: 12 MB took 36 s and 4.6 GB
        raise DataError(f"the rules file is {size:,} bytes: pnp loads rules of at most {MAX_RULES_BYTES:,} (a "
                        "game's rules are a few hundred lines; keep data in the game's tables)", Mark(shown))
    rules = rules_class(RulesSource(str(real), shown, project.root), game.id)
    declares = declared(rules, set(game.tables))
    data = GameData.of(game)  # pnp's own work, not the rules': never said as theirs
    return rules_made(rules, data), data, declares


def rules_made(rules: type[GameRules], data: GameData) -> GameRules:
    """The rules' Rules made for the game's data (by pnp's process playing them, and again by each worker of
    --jobs N); DataError at the line of their __init__ that failed."""
    path, shown, _ = source_of(rules)
    seed_shared_random("making the rules")  # (in each worker as in the process that loaded them)
    try:
        return rules(data)
    except Stopped:  # pnp's alarm (said by the run), or Ctrl-C (Interrupted)
        raise
    except BaseException as e:  # a designer's __init__: its error is theirs, said at its line (exit() and their
        # own BaseException too, which was a traceback)
        raise DataError(f"the rules failed to start: {raised(e)}", code_mark(e, shown, path)) from None


# tables tracked, and ways to end (and event names), a run's simulation.json may hold: what `pnp report` and the
# rulebook read of it
MAX_TABLES_TRACKED, MAX_END_REASONS = MAX_TABLES, MAX_REASONS


def declared(rules: type[GameRules], tables: set[str]) -> tuple[dict[str, str], list[str]]:
    """The rules' ITEMS and END_REASONS as plain texts, the only copies the run keeps; DataError at the line
    assigning one that is not of the shape the statistics and the report read. Reading them is the designer's
    code too (a metaclass's property, a mapping's items()), and a str subclass of the rules module could not be
    sent back to pnp's process (both were 'a bug in pnp')."""
    path, shown, _ = source_of(rules)
    reading = "ITEMS"  # the attribute being read, named when reading it raises
    try:
        items = rules.ITEMS
        reading = "END_REASONS"
        ends = rules.END_REASONS
        reading = "ITEMS"
        problem = _attributes_problem(items, ends, tables)
        if problem is None:
            return {str.__str__(k): str.__str__(v) for k, v in items.items()}, [str.__str__(e) for e in ends]
    except Stopped:  # pnp's alarm (said by the run), or Ctrl-C (Interrupted)
        raise
    except BaseException as e:  # the designer's code: any error is theirs, said at its line
        raise DataError(f"class Rules: {reading} cannot be read: {raised(e)}", code_mark(e, shown, path)) from None
    name, message = problem
    raise DataError(f"class Rules: {name} {message}", Mark(shown, *_assigned_at(path, name)))


def _attributes_problem(items: Any, ends: Any, tables: set[str]) -> tuple[str, str] | None:
    """(attribute, what is wrong with it) when ITEMS or END_REASONS is not of the shape the statistics read
    (ITEMS = 5 or END_REASONS = None was a bug said by pnp after every game was played), else None."""
    if not (isinstance(items, Mapping) and len(items) <= MAX_TABLES_TRACKED
            and all(isinstance(k, str) and isinstance(v, str) and _one_line(v) for k, v in items.items())):
        return "ITEMS", (f"must map at most {MAX_TABLES_TRACKED} table names to what one item is (a line of text), "
                         f"e.g. {{\"cards\": \"card\"}}, not {said(items)}")
    unknown = sorted(set(items) - tables)
    if unknown:
        return "ITEMS", f"names {said(unknown[0])}, which is no table of game.yaml"
    if not (isinstance(ends, (tuple, list)) and len(ends) <= MAX_END_REASONS
            and all(isinstance(e, str) and _one_line(e) for e in ends)):
        return "END_REASONS", (f"must be a tuple of at most {MAX_END_REASONS} lines of text, e.g. "
                               f"(\"last counter\",), not {said(ends)}")
    return None


MAX_LINE = MAX_TEXT  # characters of a text the rules give: one line of the summary, the log or the report


def _one_line(text: str) -> bool:
    """Whether a text the rules give reads as one short line of printable text (see MAX_LINE)."""
    return len(text) <= MAX_LINE and text.isprintable()


def _assigned_at(path: str, name: str) -> tuple[int, int]:
    """(line, column) where the rules file assigns `name` in a class, else (1, 1): found in the text that was
    compiled (rules_class noted it), never in the file read again, which may have changed since, or been
    swapped for a link to a file outside the project."""
    noted = linecache.cache.get(path)
    if noted is None or len(noted) != 4:  # (not noted: not expected)
        return 1, 1
    try:
        tree = ast.parse("".join(noted[2]))
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # (compiled already: not expected)
        return 1, 1
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                targets = statement.targets if isinstance(statement, ast.Assign) else \
                    [statement.target] if isinstance(statement, ast.AnnAssign) else []
                if any(isinstance(target, ast.Name) and target.id == name for target in targets):
                    return statement.lineno, statement.col_offset + 1
    return 1, 1


class RulesSource(NamedTuple):
    """A rules file: its path (with no link in it: Project.inside's), as messages name it, and the project's
    folder it is opened beneath (open_beneath), by pnp's process and by each worker of --jobs N alike."""

    path: str
    shown: str
    beneath: Path | None


SOURCE = "_pnp_source"  # pnp's note, on class Rules, of its file (a RulesSource). Kept as `source`, it replaced
# a designer's own attribute of that name, and read through the class a metaclass of theirs answered it


def source_of(rules: type) -> RulesSource:
    """The rules file class `rules` came from, read as rules_class stored it."""
    found = inspect.getattr_static(rules, SOURCE, None)
    return found if isinstance(found, RulesSource) else RulesSource("", RULES_FILE, None)


def seed_shared_random(moment: str) -> None:
    """Python's shared `random` module seeded from `moment` (loading the rules, making them, a game's seed), as
    the rules' code begins there. Rules drawing from it (random.shuffle(deck)), not from the rng pnp passes,
    drew from a state seeded at pnp's start from the system's entropy: the same seed wrote another
    simulation.json at every run, and a failed game's replay line played another game. A text seed is
    digested (SHA-512), never hashed, so it seeds alike in every process and on every system. numpy's shared
    generator (np.random.shuffle: numpy is one of pnp's own libraries), once imported, is seeded alike."""
    seed = f"pnp simulate: {moment}"
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:  # (its random module is imported as it is first named: seeded from entropy then)
        numpy.random.seed(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:4], "big"))


def rules_class(source: RulesSource, game_id: str) -> type[GameRules]:
    """The Rules class of a rules file, imported once per process (worker processes call this too). Its text
    is read once, as every file of the project is (open_beneath: a folder or the file itself swapped for a link
    since it was checked leads nowhere), and noted for Python's tools (linecache: inspect and _assigned_at read
    the lines that ran, never the file again)."""
    path, shown, beneath = source
    name = f"pnp_rules_{game_id.replace('-', '_')}"
    module = sys.modules.get(name)
    if module is None or getattr(module, "__file__", None) != path:
        # the loader given: a rules.py that is a link to a file of the project named otherwise (rules.txt, the
        # game's game.yaml) has no loader by its path's ending, and was 'a bug in pnp' (AssertionError)
        spec = importlib.util.spec_from_file_location(name, path, loader=importlib.machinery.SourceFileLoader(name, path))
        assert spec is not None  # (given its loader: always)
        source_text = _rules_text(read_project_file(Path(path), MAX_RULES_BYTES, Mark(shown), "rules file",
                                                    beneath=beneath), shown)
        lines = io.StringIO(source_text, newline=None).readlines()  # (as linecache reads a file: str.splitlines
        # splits at more characters than Python ends a line at, a form feed one)
        linecache.cache[path] = (len(source_text), None, lines, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses and pickling look their module up by name
        seed_shared_random("loading the rules")
        try:
            # compiled from the bytes just read, never through the loader: Python's importer runs the bytecode
            # file beside a source (__pycache__/rules.cpython-3XX.pyc) whose time and size it matches, so a game
            # someone sent ran a .pyc it shipped, not the rules.py the user read; and it wrote one into cards/
            exec(_compiled(source_text, path, shown), module.__dict__)  # noqa: S102 - the rules
        except (Stopped, DataError):  # pnp's alarm (said by the run), Ctrl-C (Interrupted), or _compiled's
            sys.modules.pop(name, None)
            raise
        except BaseException as e:  # a designer's code: any error is theirs, said at its line (exit() too)
            sys.modules.pop(name, None)
            raise DataError(f"the rules failed to load: {raised(e)}{_beside(e, path)}", code_mark(e, shown, path)) \
                from None
    rules = getattr(module, "Rules", None)
    try:  # the designer's code too: a metaclass of theirs answers these (its __hash__, its __getattribute__),
        # and one that raised was 'a bug in pnp'
        if not (isinstance(rules, type) and issubclass(rules, GameRules)):
            raise DataError("rules.py must define `class Rules(GameRules)` (from pnp.simulate.api import GameRules)",
                            Mark(shown, _line_of_class(rules, path), 1))
        missing = sorted(getattr(rules, "__abstractmethods__", ()))
        if missing:
            raise DataError(f"class Rules lacks {', '.join(missing)}", Mark(shown, _line_of_class(rules, path), 1))
        type.__setattr__(rules, SOURCE, source)  # as stored: not through a metaclass of theirs
    except (Stopped, DataError):  # pnp's alarm (said by the run), Ctrl-C (Interrupted), or said above
        raise
    except BaseException as e:
        raise DataError(f"class Rules cannot be read: {raised(e)}", code_mark(e, shown, path)) from None
    return rules


def _line_of_class(rules: object, path: str) -> int:
    """The line of `class Rules` in the rules file at `path`, or 1 when it is no class of that file (imported, or
    no class at all): a class lacking hooks was said at line 1, the file's imports."""
    if not isinstance(rules, type) or getattr(sys.modules.get(rules.__module__), "__file__", None) != path:
        return 1
    return _class_line(rules) or 1


def _beside(error: BaseException, path: str) -> str:
    """Why a module the rules import is not found when it is a file beside rules.py (helpers.py), a designer
    splitting the rules in two: said as Python's 'No module named ...' alone, which the file there belies. The
    game's folder is never on Python's path (a random.py there would stand for Python's own)."""
    missing = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    first = missing.partition(".")[0] if isinstance(missing, str) else ""
    folder = os.path.dirname(path)  # (os.path's tests: a name too long for the system raised from Path's)
    if first and (os.path.isfile(os.path.join(folder, f"{first}.py")) or os.path.isdir(os.path.join(folder, first))):
        return (f" (pnp loads rules.py alone, never a module beside it such as {first!r}: "
                "put that code in rules.py)")
    return ""


def _compiled(source: str, path: str, shown: str) -> CodeType:
    """The rules' code; DataError at the file when Python runs out of memory compiling it (past the rules'
    memory, or a limit set on pnp: 1 MB of short lines takes 600 MB), which was said as the rules' MemoryError
    past their cap, as if running them had taken it; or out of depth (`x = 1+1+...` of 300,000 terms), which was
    said as the rules' RecursionError, in Python's words and at no line (Python gives none, and finding it
    would take reading the file again as deep)."""
    try:
        return compile(source, path, "exec", dont_inherit=True)
    except RecursionError:  # (Python says no line: "maximum recursion depth exceeded during compilation")
        raise DataError("the rules failed to load: an expression in them nests too deeply for Python to compile (a "
                        "chain of thousands of operators, calls or brackets?): write it in steps, keeping data in "
                        "the game's tables", Mark(shown)) from None
    except MemoryError:
        lines = source.count("\n") + 1
        raise DataError(f"the rules failed to load: Python ran out of memory compiling them ({lines:,} lines, "
                        f"{len(source):,} characters): write them shorter, keeping data in the game's tables",
                        Mark(shown)) from None


CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")  # a coding declaration (PEP 263)


def _rules_text(raw: bytes, shown: str) -> str:
    """rules.py as the UTF-8 text an editor shows, which is the text that runs: compiled as bytes, a coding
    declaration of another encoding (utf-7, unicode_escape) ran a line an editor showed inside a comment
    (`# note +AAo-import os` is two lines in UTF-7). LoadError at a byte that is not UTF-8 or such a declaration."""
    for number, line in enumerate(raw.split(b"\n", 2)[:2], 1):  # Python reads one on the first two lines only
        declared = CODING.match(line)
        if declared is not None and _codec_name(declared[1]) != "utf-8":
            raise DataError(f"rules.py declares the encoding {said(declared[1].decode('ascii', 'replace'))}: pnp "
                            "runs rules written in UTF-8 only, as an editor shows them (remove the declaration)",
                            Mark(shown, number, 1))
    text = utf8_text(raw, shown, encoding="utf-8-sig")
    if (at := text.find("\0")) >= 0:  # Python refuses it with no line: "rules.py: error:", which of 500 lines?
        before = re.split(r"\r\n|\r|\n", text[:at])  # lines as Python reads them
        raise DataError("rules.py holds a NUL character, which Python cannot compile (remove it)",
                        Mark(shown, len(before), len(before[-1]) + 1))
    return text


def _codec_name(name: bytes) -> str:
    try:
        return codecs.lookup(name.decode("ascii", "replace")).name
    except LookupError:
        return ""


MAX_RAISED_CHARS = 500  # of a designer's error message: a ValueError('x' * 10**7) was printed whole


def raised(error: BaseException) -> str:
    """'ValueError: its message', as a message may show an error the rules raised: cut short, and said even
    when the error's own __str__ fails (an error class of the designer's whose __str__ raised was a traceback)."""
    try:
        text = str(error)
    except Exception as e:  # noqa: BLE001 - the designer's __str__: whatever it raises, the error is still said
        text = f"(its message cannot be shown: its __str__ raised {type(e).__name__})"
    if len(text) > MAX_RAISED_CHARS:
        text = text[:MAX_RAISED_CHARS] + f"… ({len(text):,} characters)"
    if isinstance(error, MemoryError) and not text:  # (the allocation past the rules' cap: run._cap_memory)
        text = f"past the {memory_room >> 20:,} MB of memory the rules may take beyond pnp's" + memory_bound
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


RULES_MEMORY = 1 << 30  # bytes of address space the rules' processes (all of --jobs together) may take beyond pnp's
memory_room = RULES_MEMORY  # this process's share of it, as run._cap_memory set it (or found it left)
memory_bound = ""  # what set memory_room, as a MemoryError says it: "" for the whole of RULES_MEMORY
WORKER_MEMORY = 128 << 20  # the least share of RULES_MEMORY a worker of --jobs is given: rules needing tens of MB
# failed on a machine of 64 cores, whose default 64 workers had 16 MB each
MAX_WORKERS = RULES_MEMORY // WORKER_MEMORY - 1  # so the most workers a run plays in, whatever --jobs asks (the
# process that loads the rules has a share too)


class _Said(reprlib.Repr):
    """reprlib's short repr, also of a whole number too long for str() (Python refuses 4,300 digits)."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 256:
            return f"<a whole number of {math.floor(x.bit_length() * math.log10(2)) + 1:,} digits or so>"
        return super().repr_int(x, level)


_SAID = _Said()
_SAID.maxstring = _SAID.maxother = _SAID.maxlong = 80


def said(value: object) -> str:
    """A value the rules returned, as a message quotes it: cut short, whatever its size (a list of ten million
    moves or a string of 50 MB was printed whole) or its repr (a whole number of 5,000 digits cannot be one)."""
    text = _SAID.repr(value)
    return text if len(text) <= MAX_RAISED_CHARS else text[:MAX_RAISED_CHARS] + "…"


def code_mark(error: BaseException, shown: str, path: str) -> Mark:
    """Where in the rules file an exception was raised (its deepest frame there), else the file itself. A frame
    whose instruction has no line (None: the resident-memory watcher's MemoryError, raised at whatever
    instruction the rules were at, a loop's jump back) is said at its function's first line: as None the line
    made the sorting of pnp's messages fail, 'a bug in pnp'."""
    line, tb = 0, error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == str(path):
            line = tb.tb_lineno or tb.tb_frame.f_code.co_firstlineno
        tb = tb.tb_next
    if line == 0 and isinstance(error, SyntaxError) and error.lineno:
        line = error.lineno
    return Mark(shown, line, 1 if line else 0)


def hook_line(rules: type, hook: str) -> int:
    """The line of the rules file that defines method `hook` of the Rules class, else (a hook it inherits, or no
    hook) the line of `class Rules`, else 0: a value a hook returned that pnp cannot take was said at rules.py
    with no line, and a rules file defines many hooks."""
    path = source_of(rules).path
    member = inspect.getattr_static(rules, hook, None)
    code = getattr(getattr(member, "__func__", member), "__code__", None)  # (a staticmethod's function)
    if code is not None and code.co_filename == path:
        return int(code.co_firstlineno)
    return _class_line(rules)


@functools.cache
def _class_line(rules: type) -> int:
    try:
        return inspect.getsourcelines(rules)[1]
    except (OSError, TypeError, SyntaxError, ValueError):  # (a class made by type(), a file changed since)
        return 0


def all_items(tracked: Tracked) -> Iterator[tuple[str, str]]:
    """Every (table, id) the tracking mentions."""
    yield from tracked.available
    for events in tracked.events:
        for pairs in events.values():
            yield from pairs


#: A small but complete rules.py (Nim played with a game's cards), printed by the README and `pnp reference`;
#: tests play it, so the example a designer copies is one that runs.
EXAMPLE = """from pnp.simulate.api import GameRules, Tracked

class Rules(GameRules):
    ITEMS = {"cards": "card"}              # tables whose items the statistics follow
    END_REASONS = ("last counter",)

    def setup(self, players, rng):
        return {"pile": 15 + rng.randrange(3), "player": 0, "players": players, "winner": None,
                "played": [set() for _ in range(players)]}

    def to_act(self, state):
        return state["player"]

    def legal_moves(self, state):          # hashable moves; tuples read well in --log
        return [("play", c.id) for c in self.game.tables.cards if c.power <= state["pile"]]

    def apply(self, state, move, rng):
        state["pile"] -= self.game.ref.cards[move[1]].power
        state["played"][state["player"]].add(("cards", move[1]))
        if state["pile"] == 0:
            state["winner"] = state["player"]
        state["player"] = (state["player"] + 1) % state["players"]
        return state

    def is_over(self, state):
        return state["winner"] is not None

    def scores(self, state):               # the highest score wins; a tie shares the win
        return [int(p == state["winner"]) for p in range(state["players"])]

    def tracked(self, state):              # optional: what each player took/played/made effective
        cards = {("cards", c.id) for c in self.game.tables.cards}
        return Tracked(cards, [{"taken": p, "played": p} for p in state["played"]])
"""


def api_reference() -> list[str]:
    """The rules API as `pnp reference` prints it: GameRules' hooks with their docstrings, the data's Items,
    Tracked, the agents and the worked example (read from the code, so the two cannot drift apart)."""
    hooks = []
    for name, member in vars(GameRules).items():
        if callable(member) and not name.startswith("_"):
            required = "required" if name in GameRules.__abstractmethods__ else "optional"
            doc = " ".join((member.__doc__ or "").split())
            args = ", ".join(list(inspect.signature(member).parameters)[1:])
            hooks.append(f"| `{name}({args})` | {required} | {doc} |")
    return ["`cards/<game>/rules.py` defines `class Rules(GameRules)` (from pnp.simulate.api); only `pnp simulate` "
            "and tests import it. `self.game` is the validated game, read-only: `self.game.tables.TABLE` (a tuple of "
            "Items), `self.game.ref.TABLE[id]` (one Item), `self.game.rules` (game.yaml's rules:). An Item reads "
            "`item.field` or `item['field']`; its lists are tuples. Class attributes: `ITEMS` ({table: what one "
            "is}: the tables the statistics follow) and `END_REASONS` (the ways a game ends).", "",
            "| hook | | what it does |", "| --- | --- | --- |", *hooks, "",
            "`Tracked(available, events)`: `available` the (table, id) pairs in play, `events[player][name]` the "
            "pairs to which event `name` happened for that player (`taken`, `played`, `effective` name dead "
            "items; a game may add its own).", "",
            "Agents (`--agents`): `random`; `greedy` (one move of look-ahead on `heuristic`); `mcts` "
            "(information-set MCTS over `determinise`, 32 iterations a decision; `mcts-N` for N). Every seating "
            "of the agents is played `--games` times.", "",
            "A small but complete example (Nim played with the cards' powers):", "", "```python",
            EXAMPLE.rstrip("\n"), "```"]
