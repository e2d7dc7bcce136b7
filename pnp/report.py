"""Collects diagnostics (errors, warnings) with their file:line:col and owns the exit code; says how every message
quotes a value and suggests a name."""

import bisect
import contextlib
import contextvars
import dataclasses
import datetime
import functools
import math
import re
import shlex
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sized
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Protocol, cast


# The characters of Unicode that hide or reorder the text around them, as a character class's body: the
# bidirectional controls, zero-width and invisible ones, the line and paragraph separators (the preview's source
# pages show these marked, HIDES_TEXT; messages escape them with the control characters, _UNPRINTABLE)
_HIDING = (r"\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb"
           r"\U000e0000-\U000e007f")
HIDES_TEXT = re.compile(f"[{_HIDING}]")
# the control characters (a tab too, alike on screen to spaces) and those hiding text: a soft hyphen and the other
# invisible format characters (U+180E, U+2060-2064, the interlinear annotation marks U+FFF9-FFFB and the tags
# U+E0000-E007F, which spell out ASCII unseen) too: each hid what a name held from the message quoting it, or
# split its words as a terminal pleased
_UNPRINTABLE = re.compile(rf"[\x00-\x1f\x7f-\x9f{_HIDING}]")


def escaped(character: str) -> str:
    """A character as its escape, as Python writes it in a literal (`\\x1b`, `\\u202e`)."""
    return repr(character)[1:-1]


def printable(text: str) -> str:
    """A message line as it is printed: a control character that a game's text, a template or a file name
    put into it (an escape sequence, a newline, Unicode's line and paragraph separators, a right-to-left override)
    is written as its escape, `\\x1b`, so that what a received folder holds cannot act on the terminal reading
    pnp's output or forge a line (an icon file named with U+2028 made a line of its own to what reads lines as
    Unicode does, Python's splitlines and the editors' problem matchers)."""
    return _UNPRINTABLE.sub(lambda m: escaped(m[0]), text)


def shell_word(text: str) -> str:
    """`text` as one word of a shell command the user can paste: quoted by shlex, or when it holds a control
    character, as bash's $'...' with that character escaped (quoted by shlex, an escape sequence in --root
    reached the terminal raw in the hint `pnp new` prints). Every command a hint gives names its game and folders so:
    a game folder named 'g$(touch x)' made a failed game's replay line, pasted, run `touch x`."""
    if text.isprintable():
        return shlex.quote(text)
    return "$'" + "".join(map(_shell_escaped, text)) + "'"


def _shell_escaped(c: str) -> str:
    """One character inside bash's $'...'."""
    code = ord(c)
    if c in "\\'":
        return "\\" + c
    if c.isprintable():
        return c
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape): that byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shortened(text: str, limit: int) -> str:
    """Text as a message or a label quotes it: cut to `limit` characters, the last an ellipsis, when longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


# How every message quotes a value and suggests a name (pnp.options and the rest use these).
MAX_SUGGESTED = 200  # characters of a word that may be a typo of a name
QUOTE_LIMIT = 60  # characters of a value a message quotes: it quotes, it does not copy a whole file


def plain(value: object) -> Any:
    """Loaded data as plain dicts and lists (no marks), as YAML, JSON or a spreadsheet writes it (JSON-like)."""
    if isinstance(value, Mapping):
        return {k: plain(x) for k, x in value.items()}
    if isinstance(value, list):
        return [plain(x) for x in value]
    return value


def shown(value: object, limit: int = QUOTE_LIMIT) -> str:
    """A value as a message quotes it: the data as written (no class names), cut short when long; a value left
    empty (`size:`, `~`, `null`) is 'nothing' (it was said 'None', Python's word), and one inside a list or
    mapping is null, as YAML writes it."""
    return "nothing" if value is None else shortened(_flow(_as_written(value)), limit)


_PLAIN_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*(?: [A-Za-z0-9_.\-]+)*")
_YAML_WORDS = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"}


def _flow(value: object) -> str:
    """A list or mapping as YAML's flow style writes it ([fire, ice], {plant: 2}), not Python's (['fire', 'ice']):
    a word that reads back as the same text is bare, any other text quoted (and escaped) as a scalar is."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_item(k)}: {_item(x)}" for k, x in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_item(x) for x in value) + "]"
    return repr(value)


def _item(value: object) -> str:
    """One item of a list or mapping shown: a plain word bare, as the designer wrote it."""
    if type(value) is str and _PLAIN_WORD.fullmatch(value) and value.lower() not in _YAML_WORDS:
        return value
    return _flow(value)


def named(name: object) -> str:
    """A name a message quotes (a style, a table, an icon, a key): as typed, in single quotes, cut short when long
    (one of 5,000 characters was quoted whole, and the message cut at MAX_MESSAGE before what it says to do);
    unlike shown, a backslash or quote in it is not escaped, so `images\\lion.png` is said as typed. A control
    character in it is written as its escape (printable), as shown's are: a name a template made or a file's name
    could otherwise hold the marks of a part `pasted` (a control character, which a message never holds raw); so
    is a tab, which a message's own words never hold but a name may ('Mode\trate', a glossary term's, was
    suggested with its tab raw, alike on screen to spaces)."""
    return f"'{printable(shortened(name if isinstance(name, str) else spelt(name), QUOTE_LIMIT))}'"


class _Written(str):
    """A value quoted as its data file writes it, unquoted (a YAML date: 2001-12-14, not Python's
    datetime.date(2001, 12, 14))."""

    def __repr__(self) -> str:
        return str(self)


def _as_written(value: object) -> object:
    """plain(value), each date or time in it as its file writes it, and each true/false as YAML spells it."""
    if isinstance(value, Mapping):
        return {_as_written(k): _as_written(x) for k, x in value.items()}
    if isinstance(value, list):
        return [_as_written(x) for x in value]
    if isinstance(value, (bool, datetime.date, datetime.time)) or type(value) is float and not math.isfinite(value):
        return _Written(spelt(value))
    if value is None:
        return _Written("null")
    return value


def spelt(value: object) -> str:
    """A value as YAML writes it: true and false, .inf and .nan, a date as 2001-12-14; anything else as str()
    (`max_lines: true` was said 'got True', `size: .inf` 'got inf', Python's spellings, which YAML reads as text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value) and not isinstance(value, _AsWritten):
        return ".nan" if value != value else ".inf" if value > 0 else "-.inf"
    return value.isoformat() if isinstance(value, (datetime.date, datetime.time)) else str(value)


class _AsWritten:
    """A number quoted as its file writes it: `text`, whenever it is printed without a format of its own."""

    text = ""

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return self.text if not spec else super().__format__(spec)


class _WrittenInt(_AsWritten, int):
    """A whole number its file writes otherwise than Python prints it (`1_000`, `+4`), quoted as written."""


class _WrittenFloat(_AsWritten, float):
    """A number its file writes otherwise than Python prints it (`2.50`, `1e3`), quoted as written."""


class WrittenTrueFalse:
    """A true or false its file writes otherwise than Python prints it (`yes`, `off`), for a message to quote as
    written (a bool cannot be subclassed, as a number is by quoted_as_written): `kind: yes` was said 'True'."""

    def __init__(self, value: bool, text: str) -> None:
        self.value, self.text = value, text


def quoted_as_written(value: object, written: str | None) -> object:
    """`value` as a check sees it, where its file writes it as a number that prints otherwise (`written`, as
    load.Record.written_of gives it): the same number, which every message quotes as written (`players: 2.50`
    was said as '2.5', `power: 1_000` as 1000). The check alone sees it; the value read is the plain number."""
    if written is None or type(value) not in (int, float):
        return value
    number = _WrittenInt(value) if isinstance(value, int) else _WrittenFloat(cast(float, value))
    number.text = written
    return number


def key_as_written(key: object, written: str | None) -> object:
    """A mapping's key as a message quotes it: as its file writes it (`written`, load.Record.key_written) where
    that prints otherwise, else itself (`0x10:` was said 16, `1.50:` 1.5, as values are not)."""
    return key if written is None else _Written(written)


def plain_type(value: object) -> type:
    """The type of `value`, a number quoted as written (quoted_as_written) taken as the number it is."""
    kind = type(value)
    return int if kind is _WrittenInt else float if kind is _WrittenFloat else kind


def described(value: object) -> str:
    """A value as a message names it when its shape may be the problem: a mapping by its shape, a list by its
    shape and then quoted, anything else quoted."""
    if isinstance(value, Mapping):
        return "a mapping"
    return f"a list {shown(value)}" if isinstance(value, list) else shown(value)


def type_name(value: object) -> str:
    """How a value's type reads in a message."""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, datetime.date):
        return "a date" if type(value) is datetime.date else "a date and time"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # a record of pnp's: `components[0]`
        return f"a {type(value).__name__.lower()}"
    if isinstance(value, str):  # (a text of a kind of its own, tojson's or escape's Markup, was 'a value')
        return "text"
    return {int: "a whole number", float: "a number", str: "text", type(None): "nothing"}.get(plain_type(value),
                                                                                          "a value")


def typed_value(value: object) -> str:
    """A value as 'expected ..., got ...' names it: its kind, then the value quoted as written; a value left
    empty (`name:`, `~`, `null`) is 'nothing' alone (it was said 'nothing None', the second word Python's)."""
    return "nothing" if value is None else f"{type_name(value)} {shown(value)}"


def closest(word: object, choices: Iterable[object], count: int = 1, cutoff: float = 0.6) -> list[str]:
    """The names among `choices` closest to `word` (a typo's likely meaning), best first; none for a word longer
    than any name (comparing a megabyte of text with every name takes seconds, and suggests nothing)."""
    if len(str(word)) > MAX_SUGGESTED:
        return []
    return list(_closest(str(word), tuple(str(c) for c in choices), count, cutoff))


@functools.lru_cache(maxsize=1024)
def _closest(word: str, choices: tuple[str, ...], count: int, cutoff: float) -> tuple[str, ...]:
    """Worked out once per word and names: a hexgrid of 10,000 cells naming one unknown icon asked 10,000 times
    (16 s). A name that differs from `word` in case alone comes first: difflib compares case as any other
    letter, and 'a' (or 'COIN') was refused with no suggestion where the name was 'A' ('coin')."""
    folded = word.casefold()
    same = [c for c in choices if c.casefold() == folded and c != word]
    rest = [c for c in get_close_matches(word, choices, n=count, cutoff=cutoff) if c not in same]
    return tuple(sorted(same)[:count] + rest)[:count]


class Suggest(Protocol):
    """What says the name an unknown word may have meant: did_you_mean, or one text's bounded Suggestions."""

    def __call__(self, word: object, choices: Iterable[object], *, letters: bool = True) -> str: ...


_LOADS_SUGGESTIONS: contextvars.ContextVar["Suggestions | None"] = contextvars.ContextVar("suggestions", default=None)


@contextlib.contextmanager
def suggestions_bounded() -> Iterator[None]:
    """Every did_you_mean inside (a game's load) spends from one Suggestions: a check that could not be handed
    the load's (a field's spec, made without a checker) compared each of its words with every name, 2,000
    enum fields naming one of 1,000 enums that is not there for 133 s. A block inside another joins it."""
    token = _LOADS_SUGGESTIONS.set(Suggestions()) if _LOADS_SUGGESTIONS.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _LOADS_SUGGESTIONS.reset(token)


def bounded_suggestions() -> "Suggestions":
    """The Suggestions of the suggestions_bounded block this runs in, else a new one: a check that keeps its own
    (a load's, a layout check's, the rulebook's) spends from the block's one bound, not from a second beside it."""
    bound = _LOADS_SUGGESTIONS.get()
    return Suggestions() if bound is None else bound


def did_you_mean(word: object, choices: Iterable[object], *, letters: bool = True) -> str:
    """' (did you mean 'x'?)' when one of `choices` is close to `word`, else nothing; with `letters`, also the
    letters of another alphabet the word holds (look_alike_letters), unless the message names them itself.
    Inside suggestions_bounded, within its bound."""
    bound = _LOADS_SUGGESTIONS.get()
    return _suggested(word, choices, letters) if bound is None else bound(word, choices, letters=letters)


def _suggested(word: object, choices: Iterable[object], letters: bool) -> str:
    """did_you_mean's words, unbounded."""
    close = closest(word, choices)
    if close and not close[0].isascii() and close[0] != str(word) and \
            unicodedata.normalize("NFC", close[0]) == unicodedata.normalize("NFC", str(word)):
        # (said "did you mean 'café'?" of 'café', the two alike on the screen)
        return f" ({named(close[0])} is this text in another Unicode form, alike on screen: type one of them again)"
    return (f" (did you mean {named(close[0])}?)" if close else "") + (look_alike_letters(word) if letters else "")


def counted(count: int, what: str) -> str:
    """'1 card', '2 cards', '1,200 cards': a count said with its noun, for every message and heading alike (a deck
    of one card's proof was headed '1 cards')."""
    return f"{count:,} {what}{'s' * (count != 1)}"


def character_named(character: str) -> str:
    """A character as a message names one it cannot show as itself: its code and its Unicode name
    ('U+043E CYRILLIC SMALL LETTER O'), the code alone where it has no name."""
    return f"U+{ord(character):04X} {unicodedata.name(character, '')}".rstrip()


def look_alike_letters(word: object) -> str:
    """What a message adds of a name that mixes letters a to z with letters of another alphabet that may look
    like them ('cоld', its 'о' Cyrillic): each such letter by its code and Unicode name, since the name reads on
    screen as the one it was refused for not being ("'[[cоld]]' is not a term of the glossary" of a term Cold)."""
    text = str(word)
    if text.isascii() or len(text) > MAX_SUGGESTED or not any("a" <= c.lower() <= "z" for c in text):
        return ""
    odd = [c for c in dict.fromkeys(text) if c.isalpha() and not c.isascii()
           and not unicodedata.name(c, "LATIN").startswith("LATIN")]
    if not odd:  # (a Latin letter with its accent, 'café', is seen for what it is)
        return ""
    letters = ", ".join(character_named(c) for c in odd)
    return f" ({named(text)} holds {letters}, beside letters a to z: alike on screen, but another letter)"


# names compared with unknown words for suggestions in one text's check (under a second's work): a rulebook of
# 6,000 lines each naming another unknown icon took 15 s (170 icons), and 600 unknown terms of 3,000 took a minute
# (each counted 1 for a short id, but 10,000 ids alike but for their digits pass difflib's quick checks and cost
# 130 us each: 50,000 took 7.5 s)
MAX_COMPARED = 20_000


def _comparing_cost(word: str, names: Iterable[object]) -> int:
    """What comparing `word` with each of `names` costs, in names of up to 16 characters compared with a word
    of 16: difflib's time grows with the product of the lengths, and 700 ids of 96 characters sharing a prefix,
    each naming a missing one, took 36 s within the bound counted in names."""
    return sum(max(1, len(word) * len(str(name)) // 256) for name in names)


class Suggestions:
    """did_you_mean for the unknown words of one text, its work bounded: once MAX_COMPARED names have been
    compared, a word is said without a suggestion."""

    def __init__(self, budget: int = MAX_COMPARED) -> None:
        self.left = budget
        # (word, id of the names) -> (the names, kept so their id is not reused; what was said): a word is
        # said alike each time (a hexgrid's 10,000 cells naming one unknown icon said it twice, with and
        # without its suggestion, once the budget was spent)
        self.said: dict[tuple[str, int, bool], tuple[object, str]] = {}
        # (length of a word, id of the names) -> (the names, kept; comparing a word of that length with them):
        # what comparing costs was counted over every name for each unknown word, spent budget or not, and
        # 2,000 pictures naming missing cards of a 10,000-card deck counted 20 million names (4 s)
        self.costs: dict[tuple[int, int], tuple[object, int]] = {}

    def __call__(self, word: object, choices: Iterable[object], *, letters: bool = True) -> str:
        key = (str(word), id(choices), letters)
        known = self.said.get(key)
        if known is not None:
            return known[1]
        if isinstance(choices, Sized) and len(choices) > self.left:  # (without copying names it cannot afford)
            self.said[key] = (choices, "")
            return ""
        names = choices if isinstance(choices, (tuple, list)) else tuple(choices)
        cost = self._cost(str(word), names, kept=isinstance(choices, tuple))
        if cost > self.left:
            said = ""
        else:
            self.left -= cost
            said = _suggested(word, names, letters)
        self.said[key] = (choices, said)
        return said

    def _cost(self, word: str, names: "tuple[object, ...] | list[object]", kept: bool) -> int:
        """_comparing_cost of `word` and `names`, counted once per length of word for names the caller keeps
        (`kept`: a tuple, the same each time); more than is left without counting when the names outnumber it
        (each costs at least 1)."""
        if len(names) > self.left:
            return len(names)
        if not kept:
            return _comparing_cost(word, names)
        key = (len(word), id(names))
        found = self.costs.get(key)
        if found is None or found[0] is not names:
            found = self.costs[key] = (names, _comparing_cost(word, names))
        return found[1]


@dataclass(frozen=True, order=True, slots=True)
class Mark:
    """Where a value came from: file, 1-based line and column."""

    file: str
    line: int = 0
    col: int = 0
    # Where a text written over several lines of its file has its own lines begin, where they are not all on
    # `line`: (line of the text, line of the file) from 1, each later line of the text as many lines below as it
    # is after that one (a block scalar's `|` text begins the line below its key; folding joins lines, a blank
    # line parts them). Set by the loader; not part of the place (not compared, not printed)
    text_lines: tuple[tuple[int, int], ...] = field(default=(), compare=False, repr=False)

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.col}"
        return self.file

    def in_text(self, line: int) -> "Mark":
        """The mark of line `line` (from 1) of the text written here (a template's line of a mistake): on the
        file's line it was written at, whatever the style the text was written in."""
        found = bisect.bisect_right(self.text_lines, line, key=lambda at: at[0]) - 1
        if found < 0:
            return self
        text_line, file_line = self.text_lines[found]
        return Mark(self.file, file_line + line - text_line, 1)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found: an error stops the build, a warning does not."""

    severity: str  # "error" | "warning"
    message: str
    mark: Mark | None = None
    # A consequence ("g: not built") follows from the errors above it: printed, but not counted as one more.
    consequence: bool = False
    # The printed item it concerns, when it was found while checking one: (component id, item index). A draft
    # marks that item's faces with the message; the preview shows it beside that card.
    item: tuple[str, int] | None = None
    # What kind of problem: the raised error's code (errors.PnpError.code: load, data, layout, template, limit,
    # budget, output, usage), "print" for what would print wrong (check.Checks), "" when not said.
    code: str = ""
    # A line saying that more messages like those above it were found at its place than are said: how many
    # (-1: its element was not checked to the end). Not counted, as a consequence.
    untold: int = 0

    def __post_init__(self) -> None:
        said = bounded_message(self.message)
        if said is not self.message:  # (a frozen dataclass: its own field, set once as it is made)
            object.__setattr__(self, "message", said)

    def __str__(self) -> str:
        where = f"{self.mark}: " if self.mark else ""
        return printable(f"{where}{self.severity}: {self.message}")


# characters of one message: each quotes its values cut short (shown), and this is the net under any that does
# not (a spreadsheet's header of 130,000 characters was said whole as an unknown field, one line of 130 KB)
MAX_MESSAGE = 2_000
# characters of one word of a message (a run without a space): a value quoted whole, as a path of 4,000
# characters a game wrote, is cut in its middle, so that the words after it, which say what is wrong and what to
# do, are still said (they were cut off at MAX_MESSAGE, or the line ran to its limit), and its end, which names
# the file, is kept
MAX_WORD = 200
_WORD_KEPT = (120, 60)  # characters kept of the start and the end of a word cut short
_LONG_WORD = re.compile(rf"(?<!\S)\S{{{MAX_WORD + 1},}}")  # (from a word's start only: linear in the message)


# A part of a message the user pastes (a command, a path to give as an option) is marked so by `pasted`: the word
# cut leaves it whole (cut in its middle, `--since <path>` named no file), and the marks are taken out as the
# message is said. They are control characters: a game's text quoted in a message is escaped (shown, printable)
# before it gets there, and one left anywhere is printed as its escape, never raw.
_PASTED_OPEN, _PASTED_CLOSE = "\x02", "\x03"
_PASTED = re.compile(f"{_PASTED_OPEN}([^{_PASTED_OPEN}{_PASTED_CLOSE}]*){_PASTED_CLOSE}")


def pasted(text: str) -> str:
    """`text`, a part of a message the user is meant to paste (a shell_word, a command), marked to be said whole
    by bounded_message, however long (the message as a whole is still cut at MAX_MESSAGE)."""
    return f"{_PASTED_OPEN}{text}{_PASTED_CLOSE}"


def bounded_message(message: str) -> str:
    """A message as pnp says it: each word of at most MAX_WORD characters (a longer one is cut in its middle,
    saying how much was left out) but for a part marked as `pasted`, said whole, and at most MAX_MESSAGE
    characters, the rest counted."""
    if _PASTED_OPEN in message:
        parts = _PASTED.split(message)  # (text, pasted, text, ..., text)
        said = "".join(part if i % 2 else _LONG_WORD.sub(_word_cut_short, part) for i, part in enumerate(parts))
        length = sum(map(len, parts))
    elif len(message) <= MAX_WORD:
        return message
    else:
        said, length = _LONG_WORD.sub(_word_cut_short, message), len(message)
    if len(said) <= MAX_MESSAGE:
        return said
    return f"{said[:MAX_MESSAGE - 1]}… ({length:,} characters)"


def _word_cut_short(word: re.Match[str]) -> str:
    """One word longer than MAX_WORD, as bounded_message says it: its start and end, and how much is left out."""
    start, end = _WORD_KEPT
    text = word[0]
    return f"{text[:start]}…({len(text) - start - end:,} characters left out)…{text[-end:]}"


class Raised(Protocol):
    """A raised problem as a report records it (pnp.errors.PnpError, which sits above this module)."""

    message: str
    mark: Mark | None


# Messages of one shape said at one place (a hexgrid's 10,000 cells each naming another unknown icon): the
# first MAX_ALIKE are said, then one line says how many more there were.
MAX_ALIKE = 20
# lines of messages a command prints (Report.printed); one more says how many it left unsaid
MAX_PRINTED = 200
_QUOTED = re.compile(r"'[^']*'|\d[\d,.]*")


def shape_of(message: str) -> str:
    """A message with what it quotes and its numbers left out: messages of one shape say the same thing of
    different values."""
    return _QUOTED.sub("…", message)


@dataclass
class Report:
    """Everything a command found; `exit_code` is 0 when there is no error, else 1."""

    root: Path = field(default_factory=Path.cwd)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    alike: dict = field(default_factory=dict)  # (severity, mark, shape) -> messages of that shape found there
    untold: dict = field(default_factory=dict)  # that key, past MAX_ALIKE -> where its line is in diagnostics
    _crowded: set = field(default_factory=set, repr=False)  # the marks of those keys
    # sorted(), kept for the diagnostics it was worked out from (the list, its length, the lines replaced in it):
    # printed, summary and as_json each ask for it, and 19,000 messages took a second to sort and say each time
    _sorted: tuple = field(default=(), init=False, repr=False, compare=False)
    _replaced: int = field(default=0, init=False, repr=False, compare=False)

    def error(self, message: str, mark: Mark | None = None, item: tuple[str, int] | None = None, code: str = "") -> None:
        self._add(Diagnostic("error", message, mark, item=item, code=code))

    def warning(self, message: str, mark: Mark | None = None) -> None:
        self._add(Diagnostic("warning", message, mark))

    def _add(self, diagnostic: Diagnostic) -> None:
        """Keep a diagnostic, unless MAX_ALIKE of its shape were said at its place: then it is only counted."""
        key = (diagnostic.severity, diagnostic.mark, shape_of(diagnostic.message))
        said = self.alike[key] = self.alike.get(key, 0) + 1
        if said <= MAX_ALIKE:
            self.diagnostics.append(diagnostic)
            return
        if key not in self.untold:
            self.untold[key] = len(self.diagnostics)
            self.diagnostics.append(diagnostic)
        self._say_untold(key, said - MAX_ALIKE)

    def _say_untold(self, key: tuple, more: int) -> None:
        severity, mark, shape = key
        message = f"and {more:,} more like it ({shape})" if more >= 0 else \
            f"and more like it ({shape}); the rest of this element is not checked"
        self.diagnostics[self.untold[key]] = Diagnostic(severity, message, mark, consequence=True, untold=more)
        self._replaced += 1

    def enough_at(self, mark: Mark | None) -> bool:
        """Whether more messages of some shape were found at `mark` than are said: then the caller checks its
        element no further (the rest of a hexgrid's cells), and the line after its messages says so."""
        crowded = [key for key in self.untold if key[1] == mark] if mark in self._crowded_marks() else []
        for key in crowded:
            self._say_untold(key, -1)
        return bool(crowded)

    def _crowded_marks(self) -> set:
        if len(self._crowded) != len(self.untold):
            self._crowded = {mark for _, mark, _ in self.untold}
        return self._crowded

    def consequence(self, message: str) -> None:
        """An error that follows from those already reported (a game not built): shown, never counted."""
        self.diagnostics.append(Diagnostic("error", message, None, consequence=True))

    def add(self, error: Raised) -> None:
        """Record a raised PnpError (every problem it carries, for a LayoutError with several)."""
        for message, mark in getattr(error, "problems", None) or [(error.message, error.mark)]:
            self.error(message, mark, code=getattr(error, "code", ""))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0

    def sorted(self) -> list[Diagnostic]:
        """Diagnostics in file order, then in the order they were found, without repeats; after the first
        MAX_ALIKE of a shape at a place, a line saying how many more."""
        state = (id(self.diagnostics), len(self.diagnostics), self._replaced)
        if self._sorted and self._sorted[0] == state:
            return list(self._sorted[1])
        seen: set[str] = set()
        out: list[Diagnostic] = []
        for d in sorted(self.diagnostics, key=_place):
            if (said := str(d)) not in seen:
                seen.add(said)
                out.append(d)
        self._sorted = (state, tuple(out))
        return out

    def printed(self) -> list[str]:
        """The lines a command prints above its summary: the diagnostics in file order (sorted), the first
        MAX_PRINTED of them, a line counting those left unsaid, then each closing word on a game (a consequence
        at no place: 'g: not built'). A folder of 19,000 icon links out of the project printed 19,000 lines, each
        at its own file, past what anyone reads; the summary still counts every one, as --json lists them."""
        shown = self.sorted()
        closing = [d for d in shown if d.consequence and d.mark is None]
        found = [d for d in shown if not (d.consequence and d.mark is None)]
        lines = [str(d) for d in found[:MAX_PRINTED]]
        if len(found) > MAX_PRINTED:
            lines.append(_unsaid(found[MAX_PRINTED:]))
        return lines + [str(d) for d in closing]

    def as_json(self, what: str) -> dict:
        """The diagnostics as `--json` prints them: each once and in file order, as printed without --json, with
        its parts as fields (file relative to the project, 1-based line and column, 0 when not known), then the
        counts of the summary line."""
        shown = self.sorted()
        return {"what": what, "ok": not self.errors,
                "errors": sum(d.severity == "error" and not d.consequence for d in shown),
                "warnings": sum(d.severity == "warning" for d in shown),
                "diagnostics": [_record(d) for d in shown]}

    def summary(self, what: str) -> str:
        """The last line: the errors and warnings as printed above it (each once, consequences and the lines
        saying how many more were found not counted), then how many more."""
        shown = self.sorted()
        e = sum(d.severity == "error" and not d.consequence for d in shown) or len(self.errors)
        w = sum(d.severity == "warning" for d in shown)
        untold = " (and more like them, not shown)" if any(d.untold for d in shown) else ""
        if not e:
            return f"{what}: ok" + (f" ({w} warning{'s' * (w != 1)})" if w else "") + untold
        return f"{what}: {e} error{'s' * (e != 1)}" + (f", {w} warning{'s' * (w != 1)}" if w else "") + untold


def _place(d: Diagnostic) -> tuple[bool, str, int, int]:
    """Where a diagnostic is, as Report.sorted orders them: by its Mark's order (file, line, column), those at no
    place last; plain values, compared at a fraction of the cost of comparing Marks."""
    mark = d.mark
    return (True, "", 0, 0) if mark is None else (False, mark.file, mark.line, mark.col)


def _unsaid(left: list[Diagnostic]) -> str:
    """The line saying how many messages a command left unprinted past MAX_PRINTED, and of what severity."""
    counts = [(sum(d.severity == severity and not d.consequence for d in left), severity)
              for severity in ("error", "warning")]
    said = ", ".join(f"{n:,} {severity}{'s' * (n != 1)}" for n, severity in counts if n)
    return (f"... {len(left):,} more not shown{f' ({said})' if said else ''}: the first {MAX_PRINTED}, in file order, "
            "are above; fix those and run it again")


def _record(d: Diagnostic) -> dict:
    """One diagnostic as `--json` writes it: its texts printable as the line printed without --json says them
    (JSON escapes no character past U+001F, so a YAML tag's %E2%80%AE, U+202E, reached the editor reading it raw
    and reversed the message, where the plain line said `\\u202e`)."""
    mark = d.mark or Mark("")
    item = {"component": printable(d.item[0]), "index": d.item[1]} if d.item else None
    return {"severity": d.severity, "code": d.code, "message": printable(d.message),
            "file": printable(mark.file) or None, "line": mark.line, "col": mark.col, "item": item,
            "consequence": d.consequence}
