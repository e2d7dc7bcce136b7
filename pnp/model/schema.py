"""Field types of the rules model, each checking its own values. A table's fields in game.yaml are made of
them, and so is the shape of game.yaml itself (see game.GAME_FILE)."""

import functools
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Self

import regex

from ..errors import LimitError
from .. import options
from ..options import REQUIRED, blank, described, did_you_mean, out_of_range, type_name, typed_value
from ..template import game_time
from ..report import Mark, WrittenTrueFalse, named, plain_type, quoted_as_written, spelt
from .load import MarkedList, Record, shown
from .shapes import CheckerShape

PATTERN_SECONDS = 0.5  # a field's pattern matching one value: a sane one takes microseconds
# A pattern's size before it is compiled: the engine writes each {m,n} repeat out m or n times, so `a{10000000}`
# took 16 s and 2.7 GB to compile (`a{4294967294}` was killed by the system), and 100,000 alternatives 46 s;
# a pattern of this size compiles in about 0.1 s.
PATTERN_MAX_CHARS = 10_000
PATTERN_MAX_WRITTEN = 100_000
_REPEAT_COUNTS = re.compile(r"\{(\d*)(?:,(\d*))?\}")
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")  # (\Z: "$" also matches before a final line break)
# an id names files (a component's folder and each item's images in an export): one of 300 characters passed
# validation and the export failed on a file name too long for the file system, naming no file or line
ID_MAX = 100
ICON_IN_TEXT = re.compile(r":([a-z0-9][a-z0-9-]*):")
# an icon as rich text reads it (draw.text's tokens, scanned left to right): a `[[Term]]`'s name and the character
# after a backslash are no icon's colons, so '10\\:30:45' (as documented) and '[[Hour:one:]]' print as typed
_ICON_TOKEN = re.compile(r"\[\[[^\[\]\n]{1,60}\]\]|\\[\\*:\[]|" + ICON_IN_TEXT.pattern)


def colon_hint(name: str) -> str:
    """What an unknown icon's message adds when its name is a number: the colons were a time's or a ratio's
    ('At 10:30:45' named the icon ':30:'), and how to write one that prints as a colon."""
    return " (a colon written \\: prints as a colon: 10\\:30:45)" if name.isascii() and name.isdigit() else ""


def icons_in(markup: str) -> list[str]:
    """The names of the icons rich text `markup` draws, in order, as often as written."""
    return [found.group(1) for found in _ICON_TOKEN.finditer(markup) if found.group(1)] if ":" in markup else []


@functools.lru_cache(maxsize=64)
def icons_named(markup: str) -> tuple[tuple[str, ...], bool]:
    """The names of the icons rich text `markup` draws, once each, in order, and whether it names a term
    ([[Term]]). Kept for the texts met last: one text is checked on every item an alias repeats it in (a text
    of 50,000 icons on 5,000 cards had each looked for 250 million times, minutes before a word, and the
    whole text read again on each card), and each name is looked for once."""
    return tuple(dict.fromkeys(icons_in(markup))), "[[" in markup


# a name between colons, as a designer may write an icon's (':my_star:', ':Star:', ':café:'), read as _ICON_TOKEN
# reads text: a term's name and an escaped character are none
_ICON_LIKE_TOKEN = re.compile(r"\[\[[^\[\]\n]{1,60}\]\]|\\[\\*:\[]|:([^\s:\\\[\]*]{1,60}):")


def icon_markers_unread(markup: str) -> list[str]:
    """The names written between colons in `markup` that rich text reads as no icon, printing them as typed
    (an icon's name in text is of lowercase letters, digits and hyphens): once each, in order."""
    if ":" not in markup:
        return []
    return list(dict.fromkeys(name for found in _ICON_LIKE_TOKEN.finditer(markup)
                              if (name := found.group(1)) and not ICON_IN_TEXT.fullmatch(f":{name}:")))


INVALID = object()  # what `clean` gives for a value that failed its check


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_finite(value: object) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


def _outside(value: float, lo: float | None, hi: float | None) -> bool:
    return lo is not None and value < lo or hi is not None and value > hi


class SpecError(Exception):
    """A field's spec in game.yaml is itself wrong; `at`: where the option at fault is written, when it is known
    (a spec written a key a line was said at its first line: 'required: maybe' four lines below)."""

    def __init__(self, message: str, at: Mark | None = None) -> None:
        super().__init__(message)
        self.at = at


class SaidError(SpecError):
    """A field's spec that cannot be made for a fault said already elsewhere: the field is left unchecked, and
    nothing more is said."""


class Enums(dict[str, Any]):
    """game.yaml's enums as loaded, knowing the names written there but refused (their error said): `refused`
    None when the whole `enums:` was refused."""

    def __init__(self, kept: Mapping[str, Any], refused: frozenset[str] | None = frozenset()) -> None:
        super().__init__(kept)
        self.refused = refused

    def was_refused(self, name: object) -> bool:
        """Whether `name` may be an enum written in game.yaml whose error was said."""
        return self.refused is None or (isinstance(name, str) and name in self.refused)


def _at(spec: object, key: str) -> Mark | None:
    """Where `spec` writes the value of its option `key`, or None (a spec written in code, or no such key)."""
    return spec.mark_of(key) if isinstance(spec, Record) and key in spec else None


class Field(options.Option):
    """A field type as game.yaml's `fields:` writes it (a spec mapping); every field takes these options. Its
    values are checked as typed data: `check` yields (message, mark) for each problem."""

    templated = False
    value_option: type[options.Option] = options.Anything  # the option type whose typed reading checks each value
    REFERENCE_HEADER = ("key", "type", "required", "meaning")

    #: option -> what it means; the reference lists them (each type adds its own)
    OPTIONS = {"type": "the field type", "required": "true if every item must give it (default: true unless "
               "there is a default)", "default": "the value used when an item leaves the field out",
               "doc": "what the field means, for people reading game.yaml"}
    name = ""

    def quoted(self, value: Any, written: str | None) -> Any:
        """`value` as `check` takes it, where its file writes it as `written` (see quoted_as_written)."""
        return quoted_as_written(value, written)

    def __init__(self, spec: Mapping[str, Any], enums: Mapping[str, Any]) -> None:
        super().__init__(spec.get("default", REQUIRED), spec.get("doc", ""), spec.get("required"))
        self.spec = spec
        if not isinstance(self.required, bool):
            raise SpecError(f"'required' is true or false, got {typed_value(self.required)}", _at(spec, "required"))
        if self.required and "default" in spec:  # (an item can never leave the field out: the default was dead,
            # accepted without a word, and a designer counting on it filling items in was left to wonder)
            raise SpecError("'required: true' with a 'default': no item may leave the field out, so the default is "
                            "never used; drop one of the two", _at(spec, "required"))
        self.default = self.given_default()  # what the code reading a left-out value counts on: None if none
        self.typed = self.value_option(minimum=self._number_option("min"), maximum=self._number_option("max")) \
            if issubclass(self.value_option, options.Number) else self.value_option()
        low, high = self.spec.get("min"), self.spec.get("max")
        if isinstance(low, (int, float)) and isinstance(high, (int, float)) and low > high:  # (every item was
            # refused, at its own line; true/false are refused as numbers above)
            raise SpecError(f"'min' ({shown(low)}) is more than 'max' ({shown(high)}): no value could be given",
                            _at(spec, "min"))  # (shown, not :g, which overflowed at a 400-digit whole number)

    @classmethod
    def key(cls, default: object = REQUIRED, doc: str = "", minimum: float | None = None,
            maximum: float | None = None) -> Self:
        """A key declared in code (a component kind's) in the notation of the options (default, doc, range):
        the field built directly rather than written as a spec mapping. Required unless it has a default, and
        None as the default means none."""
        written = {"min": minimum, "max": maximum, "default": None if default is REQUIRED else default}
        return cls({"doc": doc, "required": default is REQUIRED, **{k: v for k, v in written.items() if v is not None}},
                   {})

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        """(message, mark) for each problem of `value`."""
        problem = self.typed.typed_problem(value)
        if problem:
            yield problem, mark

    def reference_kind(self) -> str:
        """The type as the reference's tables of game.yaml keys say it."""
        return self.name

    def reference_row(self, name: str) -> tuple[str, str, str, str]:
        if self.required:
            required = "yes"
        else:
            required = f"no (default `{self.default}`)" if self.default not in (None, {}, []) else "no"
        return f"`{name}`", self.reference_kind(), required, self.doc

    def fill(self, value: Any) -> Any:
        """The value with defaults filled in, for nested records (plain values come back unchanged)."""
        return value

    def clean(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Any:
        """The value if it passes its check, else INVALID (lists and records drop only their bad parts)."""
        return INVALID if next(iter(self.check(value, mark, ctx)), None) else value

    def read(self, record: Record, key: Any) -> Any:
        """This field's value of `record[key]`, a number as written where it reads text (Option.as_read)."""
        return self.as_read(record[key], record.written_of(key))

    def refs(self) -> Iterator[tuple[str, Mark | None]]:
        """(table name, where it is named) for every table this field refers to."""
        return iter(())

    def gave_up(self) -> bool:
        """Whether a check of this field stopped short and later values are checked less (a pattern that took
        too long): what it said of those values holds only for this load, in this order."""
        return False

    def patterned(self) -> bool:
        """Whether a check of this field may give up (gave_up): it checks a pattern, or holds a field that does."""
        return False

    def _number_option(self, key: str) -> Any:
        value = self.spec.get(key)
        if value is not None and not _is_number(value):
            raise SpecError(f"'{key}' is a number, got {typed_value(value)}", _at(self.spec, key))
        if not _is_finite(value):  # (.nan let every value through, compared false; .inf was a traceback)
            raise SpecError(f"'{key}' is a finite number, got {shown(value)}: leave it out for no bound",
                            _at(self.spec, key))
        if key in ("min", "max") and issubclass(self.value_option, options.Int) and value is not None \
                and value != int(value):  # (`min: 1.5` on an int field was taken, and read as 2)
            raise SpecError(f"'{key}' of a whole-number field is a whole number, got {shown(value)}",
                            _at(self.spec, key))
        return value


# What the regex engine's commonest complaints mean, in words a designer reads (its own, "unbalanced parenthesis
# at position 19", ended the message); one it words otherwise is said by where it stopped reading
_REGEX_PROBLEMS = {"unbalanced parenthesis": "a ')' closes no '('", "missing )": "a '(' is never closed",
                   "nothing to repeat": "a repeat (*, + or ?) follows nothing it could repeat",
                   "multiple repeat": "a repeat (*, + or ?) follows another", "unterminated character set":
                   "a '[' is never closed by ']'", "min repeat greater than max repeat": "a {m,n} has m above n",
                   "bad escape (end of pattern)": "it ends in a lone backslash"}


def _regex_problem(error: Any, pattern: str) -> str:
    """What is wrong with a pattern the engine refused, and where: said in pnp's words, with the pattern up to
    that character."""
    at = error.pos if isinstance(getattr(error, "pos", None), int) else None
    where = "" if at is None else " (at its end)" if at >= len(pattern) else \
        f" (at character {at + 1:,}: {shown(pattern[max(0, at - 30):at + 1])})"
    return _REGEX_PROBLEMS.get(getattr(error, "msg", ""), "the regular expression engine cannot read it") + where


def pattern_size_problem(pattern: str) -> str | None:
    """Why `pattern` is too large to compile in a moment, None when it is not: its length, or how many
    characters and classes the engine writes out for it, each once for every repeat count around it."""
    if len(pattern) > PATTERN_MAX_CHARS:
        return f"{len(pattern):,} characters, more than {PATTERN_MAX_CHARS:,}"
    if _written_out(pattern) > PATTERN_MAX_WRITTEN:
        return f"its repeat counts write out more than {PATTERN_MAX_WRITTEN:,} characters"
    return None


def _written_out(pattern: str) -> int:
    """How many atoms (characters, escapes, classes) compiling `pattern` writes out, counted until past
    PATTERN_MAX_WRITTEN: a `{m,n}` repeats the atom or group before it max(m, n) times (`*`, `+` and `?` write
    it once). A `{` that is no repeat count is a character, as the engine reads it."""
    groups, last, i = [0], 0, 0  # the atoms of each open group so far; the atoms a repeat count would repeat
    while i < len(pattern) and groups[0] <= PATTERN_MAX_WRITTEN:
        c, counts = pattern[i], _REPEAT_COUNTS.match(pattern, i)
        if c == "(":
            groups.append(0)
            last, i = 0, i + 1
        elif c == ")" and len(groups) > 1:
            last = groups.pop()
            groups[-1] += last
            i += 1
        elif counts is not None and (counts[1] or counts[2]):
            times = max(int(counts[1] or 0), int(counts[2] or 0))
            groups[-1] += last * (times - 1) if times else -last
            last, i = last * times, counts.end()
        else:
            i = _atom_end(pattern, i)
            groups[-1] += 1
            last = 1
        if len(groups) > 1 and groups[-1] > PATTERN_MAX_WRITTEN:  # (a group alone already past it)
            return groups[-1]
    return groups[0] if len(groups) == 1 else sum(groups)


def _atom_end(pattern: str, i: int) -> int:
    """Where the atom at `i` ends: an escape's two characters, a class to its closing bracket, or one."""
    if pattern[i] == "\\":
        return i + 2
    if pattern[i] != "[":
        return i + 1
    j = i + 1 + (pattern[i + 1:i + 2] == "^")
    j += pattern[j:j + 1] == "]"  # (a ']' first in a class is one of its characters)
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


class Str(Field):
    """Plain text (a number written in the data is an error: quote it)."""

    name = "str"
    value_option = options.Text
    OPTIONS = {**Field.OPTIONS, "max_len": "the most characters allowed",
               "pattern": "a regular expression the whole text must match (at most 10,000 characters, its "
                          "`{m,n}` repeats writing out at most 100,000)"}

    def __init__(self, spec: Mapping[str, Any], enums: Mapping[str, Any]) -> None:
        super().__init__(spec, enums)
        self.max_len = self._number_option("max_len")
        if self.max_len is not None and self.max_len < 0:  # (every item was refused, at its own line)
            raise SpecError(f"'max_len' is {shown(self.max_len)}: a text is at least 0 characters long",
                            _at(spec, "max_len"))
        if self.max_len is not None and not isinstance(self.max_len, int):  # (said "at most 1.5 allowed")
            raise SpecError(f"'max_len' is a count of characters, a whole number, got {shown(self.max_len)}",
                            _at(spec, "max_len"))
        pattern = spec.get("pattern")
        if pattern is not None and not isinstance(pattern, str):  # (said in Python's words: "unhashable type:
            # 'MarkedList'", "first argument must be a string or compiled pattern")
            raise SpecError(f"'pattern' is a regular expression, written as text, got {typed_value(pattern)}",
                            _at(spec, "pattern"))
        too_large = pattern_size_problem(pattern) if isinstance(pattern, str) else None
        if too_large:
            raise SpecError(f"'pattern' is too large to compile ({too_large}): write it shorter, without large "
                            "repeat counts", _at(spec, "pattern"))
        try:  # the `regex` engine (Python's own syntax, VERSION0) because it can stop a match after a timeout
            self.pattern = regex.compile(pattern, regex.VERSION0) if pattern is not None else None
            self.pattern_text = pattern
        except regex.error as e:
            raise SpecError(f"'pattern' is not a regular expression: {_regex_problem(e, pattern or '')}",
                            _at(spec, "pattern")) from None
        except (TypeError, ValueError) as e:
            raise SpecError(f"'pattern' is not a regular expression: {e}", _at(spec, "pattern")) from None
        except (MemoryError, RecursionError) as e:  # (said as 'a bug in pnp' at the game, no line)
            raise SpecError("'pattern' is too large to compile (" + ("pnp ran out of memory compiling it: repeat "
                            "counts such as {100000} are written out" if isinstance(e, MemoryError) else
                            "groups inside one another too deeply") + ")", _at(spec, "pattern")) from None

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        problem = self.typed.typed_problem(value)
        if problem:
            yield problem, mark
            return
        if self.max_len is not None and len(value) > self.max_len:
            yield f"text is {len(value):,} characters long, at most {self.max_len:,} allowed", mark
        if self.pattern is not None:
            limit = PATTERN_SECONDS
            try:  # stopped by its own timeout in any thread (the preview checks in a worker, where no
                # processor-time signal can), the time spent from the game's budget as a template's is
                with game_time() as seconds:
                    limit = min(PATTERN_SECONDS, seconds)
                    matched = self.pattern.fullmatch(value, timeout=limit)
            except (TimeoutError, LimitError):  # a pattern that backtracks without end: said once, there
                self.pattern = None
                yield f"matching the pattern {self.pattern_text} took longer than {limit:.2g} s; pnp stops " \
                      f"there ({shown(value)}; write the pattern so that each character can match only one way)", mark
                return
            if not matched:
                yield f"{shown(value)} does not match the pattern {self.pattern_text}", mark

    def gave_up(self) -> bool:
        return self.pattern is None and self.pattern_text is not None

    def patterned(self) -> bool:
        return self.pattern_text is not None


class RichText(Str):
    """Rich text: **bold**, *italic*, :icon: names and [[Term]] glossary terms, which must exist; `\\*` prints a star
    and `\\\\` a backslash."""

    name = "text"

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        yield from super().check(value, mark, ctx)
        if isinstance(value, str):
            icons, terms = icons_named(value)
            for icon in icons:
                if not ctx.icon_exists(icon):
                    hint = ctx.suggest(icon, ctx.icon_names()) + colon_hint(icon)
                    yield f"unknown icon {named(f':{icon}:')}{hint}", mark
            if terms:
                for _, message in ctx.unknown_terms(value):
                    yield message, mark


class Id(Str):
    """An identifier: lowercase letters, digits and hyphens, at most 100 characters (it names files); unique
    within its table."""

    name = "id"

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        yield from super().check(value, mark, ctx)
        if isinstance(value, str) and not ID_PATTERN.match(value):
            yield f"id {shown(value, 40)} must be lowercase letters, digits and hyphens", mark
        elif isinstance(value, str) and len(value) > ID_MAX:
            yield (f"id {shown(value, 40)} is {len(value):,} characters long, at most {ID_MAX}: an id names the "
                   "files exports write"), mark


class WholeNumber(Field):
    """A whole number."""

    name = "int"
    OPTIONS = {**Field.OPTIONS, "min": "the smallest value allowed", "max": "the largest value allowed"}
    value_option: type[options.Option] = options.Int

    def quoted(self, value: Any, written: str | None) -> Any:
        # (a true/false spelt otherwise as written, as an enum's: `cost: yes` was said 'got true/false true')
        return WrittenTrueFalse(value, written) if isinstance(value, bool) and written is not None and \
            written.lower() not in ("true", "false") else super().quoted(value, written)

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        if isinstance(value, WrittenTrueFalse):
            yield (f"expected a {getattr(self.typed, 'kind', 'number')}, got {shown(value.text)}, which YAML reads "
                   "as true/false (as it reads yes, no, on and off)"), mark
            return
        yield from super().check(value, mark, ctx)


class Decimal(WholeNumber):
    """A number, whole or decimal."""

    name = "number"
    value_option = options.Number


class TrueFalse(Field):
    """true or false."""

    name = "bool"
    value_option = options.Bool


def repeated_value(values: Iterable[Any]) -> tuple[int, str] | None:
    """The index of the first of `values` (an enum's) that repeats one before it, and what a message says of the
    two ("'red' twice");
    None where none does. A text repeats another written in another Unicode form (a composed 'é' and 'e' with a
    combining accent: they print as one, and data typed one way matched one of them alone), a number one equal to
    it (1 and 1.0); [red, red] was taken, and a list of the values printed it twice."""
    seen: dict[object, tuple[int, Any]] = {}
    for index, value in enumerate(values):
        key = unicodedata.normalize("NFC", value) if isinstance(value, str) else (isinstance(value, bool), value)
        try:
            at, first = seen.setdefault(key, (index, value))
        except TypeError:  # (a list or a mapping among them: refused as not a value, where the values are read)
            continue
        if at != index:
            if shown(first) == shown(value):
                return index, f"{shown(value)} twice"
            return index, (f"{shown(first)} and {shown(value)}, one number written two ways" if first == value
                           else f"{shown(first)} and {shown(value)}, one text in two Unicode forms (they print "
                           "alike, and data typed one way matches one of them alone)")
    return None


# the most values a message lists by name (an enum's, the turn's timings); past it, it counts them: all 20,000 of a
# game's were written into the message of each of 60,000 items
MOST_LISTED = 12


class Enum(Field):
    """One of a list of values: given here with `values`, or named with `enum` from game.yaml's enums."""

    name = "enum"
    OPTIONS = {**Field.OPTIONS, "values": "the allowed values, listed here",
               "enum": "the name of a list in game.yaml's `enums`"}

    def __init__(self, spec: Mapping[str, Any], enums: Mapping[str, Any]) -> None:
        super().__init__(spec, enums)
        self._enums = enums
        if "values" in spec:
            values = spec["values"]
            if not isinstance(values, list):
                raise SpecError(f"'values' is a list, got {type_name(values)}", _at(spec, "values"))
            self.values, self.label = list(values), "these values"
        elif isinstance(spec.get("enum"), str) and spec["enum"] in enums:
            self.values, self.label = list(enums[spec["enum"]]), spec["enum"]
        elif isinstance(enums, Enums) and enums.was_refused(spec.get("enum")):
            # written, but its list refused (said at game.yaml's enums): "enum 'suit' is not among game.yaml's
            # enums (none)" was said again at every field naming it, of an enum the designer had written
            raise SaidError(f"enum {named(spec['enum'])} was refused", _at(spec, "enum"))
        elif "enum" in spec:
            raise SpecError(f"enum {named(spec['enum'])} is not among game.yaml's enums ({_listed(enums)})"
                            f"{did_you_mean(spec['enum'], enums)}", _at(spec, "enum"))
        else:
            raise SpecError("an enum field needs 'values' (a list) or 'enum' (the name of one of game.yaml's "
                            "enums)")
        # the values as game.yaml writes them, for a message to list (`[1.50, 1_0]` were listed '1.5, 10')
        self.as_written = _as_written(spec["values"] if "values" in spec else enums[spec["enum"]])
        if not self.values:  # (every item was refused at its own line, "is not one of " and nothing after)
            raise SpecError(f"{'the enum ' + repr(self.label) if self.label != 'these values' else 'values'} has no "
                            "values: no item could give one", _at(spec, "values"))
        self._check_values()
        # looked up by each value checked: a scan of the list was the values times the items (an enum of 50,000
        # values named by 100,000 items, a list aliased on every card, took minutes)
        self._members = frozenset((type(v), v) for v in self.values)
        self._twins: dict[str, tuple[int, Any]] = {}
        for index, v in enumerate(self.as_written):
            self._twins.setdefault(str(v), (index, v))
        self._by_text: dict[Callable[[Any], Iterable[str]], dict[str, Any]] = {}

    def first_of(self, text: str, texts_of: Callable[[Any], Iterable[str]]) -> Any:
        """The first of the values one of whose `texts_of` is `text`, or None; each value's texts made once."""
        index = self._by_text.get(texts_of)
        if index is None:
            index = self._by_text[texts_of] = {}
            for v in self.values:
                for written in texts_of(v):
                    index.setdefault(written, v)
        return index.get(text)

    def _is_member(self, value: Any) -> bool:
        """Whether `value` is one of the values, of the same type: Python's == takes yes for 1 and 1.0 for 1."""
        try:
            return (plain_type(value), value) in self._members
        except TypeError:  # a list or a mapping given: no value of an enum
            return False

    def _twin(self, *texts: str) -> Any:
        """The first of the values as written that prints as one of `texts`, or None."""
        found = [self._twins[t] for t in texts if t in self._twins]
        return min(found, key=lambda pair: pair[0])[1] if found else None

    def _check_values(self) -> None:
        """SpecError where a value is not one a cell can hold (a mapping among them was a traceback writing the
        table's workbook, .nan a workbook Excel cannot open), or values listed here repeat one (repeated_value:
        game.yaml's enums are checked as they are read)."""
        written = self.spec["values"] if "values" in self.spec else self._enums[self.label]
        for i, odd in ((i, v) for i, v in enumerate(self.values) if not isinstance(v, (str, int, float)) or not _is_finite(v)):
            # said at the value (an enum of game.yaml's `enums:` was said at each field naming it, never at it)
            raise SpecError(f"the values of an enum are text, finite numbers or true/false, and {self.label} hold "
                            f"{shown(odd) if isinstance(odd, float) else 'one that is ' + type_name(odd)}",
                            _item_mark(written, i, _at(self.spec, "values")))
        repeated = repeated_value(self.values) if self.label == "these values" else None
        if repeated:
            raise SpecError(f"values lists {repeated[1]}: write each once", _at(self.spec, "values"))

    def quoted(self, value: Any, written: str | None) -> Any:
        # (a true/false as written too: a value is compared with the enum's, and the message quotes it)
        return WrittenTrueFalse(value, written) if isinstance(value, bool) and written is not None \
            else super().quoted(value, written)

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        said = value.text if isinstance(value, WrittenTrueFalse) else shown(value)  # (`kind: yes` was said 'True')
        value = value.value if isinstance(value, WrittenTrueFalse) else value
        # one of the values as it is written (an enum of 1 took a `yes`, and the card printed 'True')
        if self._is_member(value):
            return
        if isinstance(value, (list, Mapping)):  # (`team: {a: b}` was said "{'a': 'b'} is not one of red, blue", in
            # Python's spelling, not said to be a mapping, and `team: [red]` "['red'] is not one of ... (did you
            # mean 'red'?)", as if the list had been typed as text)
            one = f"one of {', '.join(str(v) for v in self.as_written)}" if len(self.values) <= MOST_LISTED \
                else f"one of the field's {len(self.values):,} values"
            yield f"expected {one}, got {described(value)}", mark
            return
        # (a number quoted as written compared as its plain number's text; no other value is remade from itself:
        # an enum field given as null, `half:` with nothing after it, was a bug in pnp, NoneType() taking no value)
        plain = plain_type(value)(value) if isinstance(value, (int, float)) else value
        if (twin := self._twin(str(value), repr(plain))) is not None:
            # (2 where the values are the texts "2", "3"...: it was said not to be one, "did you mean '2'?")
            # (the enum named, or 'the value' of one listed here: it was said "and the these values 1 is")
            whose = f"the {self.label}" if self.label != "these values" else "the value"
            yield (f"{said} is {type_name(value)}, and {whose} {shown(twin)} is {type_name(twin)}: "
                   "write it as the enum's values are written (quoted, or not)"), mark
            return
        if len(self.values) > MOST_LISTED and self.label != "these values":  # a long list reads better by name
            yield f"{said} is not a known {self.label} (see enums.{self.label} in game.yaml)" \
                  f"{ctx.suggest(value, self.as_written)}", mark
            return
        if len(self.values) > MOST_LISTED:  # (all 20,000 of an aliased list were written into each item's message)
            yield f"{said} is not one of the field's {len(self.values):,} values{ctx.suggest(value, self.as_written)}", \
                mark
            return
        listed = ", ".join(str(v) for v in self.as_written)
        # (quoted as any value is: a number as written, not as text ('1.50'), a list as a list, a long text cut)
        yield f"{said} is not one of {listed}{ctx.suggest(value, self.as_written)}", mark


class Ref(Field):
    """The id of an item in another table (or this one)."""

    name = "ref"
    OPTIONS = {**Field.OPTIONS, "table": "the table whose ids are allowed"}

    def __init__(self, spec: Mapping[str, Any], enums: Mapping[str, Any]) -> None:
        super().__init__(spec, enums)
        table = spec.get("table")
        if "table" in spec and not isinstance(table, str):  # (said at the field's line, as if no table were
            # given: 'table: .inf' read "a ref field needs 'table: <table name>'")
            raise SpecError(f"'table' is the name of a table, got {typed_value(table)}", _at(spec, "table"))
        if not isinstance(table, str):
            raise SpecError("a ref field needs 'table: <table name>'")
        self.table = table

    def refs(self) -> Iterator[tuple[str, Mark | None]]:
        yield self.table, getattr(self.spec, "mark_of", lambda k: None)("table")

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        ids = ctx.ids(self.table)
        if ids is None:
            return  # the missing table is reported once, where it is declared
        if value in ids:
            return
        if isinstance(value, (int, float)) and not isinstance(value, bool) and str(value) in ids:
            # (the number 3 where the id is the text '3': "'3' is not an id in table 'cards' (did you mean '3'?)")
            yield (f"expected the id of an item of table {named(self.table)}, which is text, got {typed_value(value)}: "
                   f"quote it ({named(str(value))})"), mark
        elif isinstance(value, bool) or not isinstance(value, (str, int, float)):  # (a mapping was said as Python
            # writes one: "'{'a': 1}'"; true was taken for the id 1)
            yield (f"expected the id of an item of table {named(self.table)}, got "
                   f"{typed_value(value) if isinstance(value, bool) else type_name(value)}"), mark
        elif isinstance(value, str) and _number_in(value) in ids:
            # (the text '1' where the id is the number 1: "'1' is not an id in table 't' (did you mean '1'?)")
            yield (f"expected the id of an item of table {named(self.table)}, which is a number, got "
                   f"{typed_value(value)}: write it without quotes"), mark
        else:
            yield f"{named(value)} is not an id in table {named(self.table)}{ctx.suggest(value, ids)}", mark


def _number_in(text: str) -> int | float | None:
    """The number a text writes (' 12 ' is 12), or None when it writes none: a ref's text matched against a table
    whose ids are numbers."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return None


class Icon(Field):
    """The name of an icon: a file in layouts/<game>/icons or layouts/shared/icons, or an alias."""

    name = "icon"

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):  # (a mapping was said as Python
            # writes one: "unknown icon '{'a': 1}'")
            yield f"expected the name of an icon, got {typed_value(value) if isinstance(value, bool) else type_name(value)}", mark
        elif not isinstance(value, str) or not ctx.icon_exists(value):
            yield f"unknown icon {named(value)}{ctx.suggest(value, ctx.icon_names())}", mark


class Timing(Field):
    """When something happens: a phase or step of the game's turn structure, or another timing word, as
    game.yaml's `timings` lists them (a card naming a phase the turn does not have is an error at its line)."""

    name = "timing"

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        timings = ctx.timings()
        if timings == []:  # game.yaml's timings is wrong, and said so once there
            return
        if timings is None:
            yield "a timing field needs game.yaml's `timings` (the phases of the turn)", mark
        elif not isinstance(value, (str, int, float)) or isinstance(value, bool):  # (a mapping was said as Python
            # writes one: "'{'a': 1}' is not a timing")
            yield f"expected a timing of the turn ({_listed_timings(timings)}), got {type_name(value)}", mark
        elif value not in timings:
            yield f"{named(value)} is not a timing of the turn ({_listed_timings(timings)})" \
                  f"{ctx.suggest(value, timings)}", mark


def _listed_timings(timings: list[str]) -> str:
    """The timings as a message names them: listed, or counted when there are many (all 20,000 of a game's were
    written into the message of each of 60,000 items)."""
    if len(timings) > MOST_LISTED:
        return f"one of the {len(timings):,} of game.yaml's timings"
    return ", ".join(map(str, timings))


class List(Field):
    """A list of values, each checked as the field type `of` says."""

    name = "list"
    OPTIONS = {**Field.OPTIONS, "of": "the field type of each item (default: str)",
               "min_items": "the fewest items allowed", "max_items": "the most items allowed"}

    def __init__(self, spec: Mapping[str, Any], enums: Mapping[str, Any]) -> None:
        super().__init__(spec, enums)
        self.item = make_field(spec.get("of", {"type": "str"}), enums)
        self.min_items, self.max_items = self._count_option("min_items"), self._count_option("max_items")
        if self.min_items is not None and self.max_items is not None and self.min_items > self.max_items:
            raise SpecError(f"'min_items' ({self.min_items:,}) is more than 'max_items' ({self.max_items:,}): no "
                            "list could be given", _at(spec, "min_items"))

    def _count_option(self, key: str) -> int | None:
        """A count of items the spec gives as `key`: a whole number, 0 or more (1.5 and -1 were taken, and every
        list refused as '0 items, expected 0 to -1'), or None."""
        value = self._number_option(key)
        if value is not None and (not isinstance(value, int) or value < 0):
            raise SpecError(f"'{key}' is a count of items, a whole number 0 or more, got {shown(value)}",
                            _at(self.spec, key))
        return value

    def refs(self) -> Iterator[tuple[str, Mark | None]]:
        return self.item.refs()

    def gave_up(self) -> bool:
        return self.item.gave_up()

    def patterned(self) -> bool:
        return self.item.patterned()

    def reference_kind(self) -> str:
        return f"list of {self.item.name}" if isinstance(self.spec.get("of"), Mapping) else self.name

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        if not isinstance(value, list):
            yield f"expected a list, got {type_name(value)}", mark
            return
        lo, hi = self.min_items, self.max_items
        if lo is not None and len(value) < lo or hi is not None and len(value) > hi:
            yield f"{len(value):,} items, expected {lo or 0:,} to {'any number' if hi is None else f'{hi:,}'}", mark
        for i, item in enumerate(value):
            written = value.written.get(i) if isinstance(value, MarkedList) and value.written else None
            yield from self.item.check(self.item.quoted(item, written), _item_mark(value, i, mark), ctx)

    def fill(self, value: Any) -> Any:
        if not isinstance(value, MarkedList):
            return value
        return MarkedList((self.item.fill(v) for v in value), value.marks, value.mark)

    def clean(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Any:
        if not isinstance(value, list):
            return INVALID
        written = value.written if isinstance(value, MarkedList) and value.written else {}
        kept = [(self.item.clean(v, _item_mark(value, i, mark), ctx), _item_mark(value, i, mark), written.get(i))
                for i, v in enumerate(value)]
        kept = [(v, m, w) for v, m, w in kept if v is not INVALID]
        # (each number's text kept, for a message to quote as written: game.yaml's enums' values were listed so)
        return MarkedList([v for v, _, _ in kept], [m for _, m, _ in kept], getattr(value, "mark", mark),
                          {n: w for n, (_, _, w) in enumerate(kept) if w is not None})


def _as_written(values: list[Any]) -> list[Any]:
    """A list's values, each number as its file writes it (see quoted_as_written)."""
    written = values.written if isinstance(values, MarkedList) and values.written else {}
    return [quoted_as_written(v, written.get(i)) for i, v in enumerate(values)]


def _item_mark(value: object, index: int, default: Mark | None) -> Mark | None:
    return value.mark_of(index) if isinstance(value, MarkedList) else default


def _key_as_written(record: Record, key: Any) -> str:
    """A mapping's key as its file writes it, for a message (`yes:` was said 'true')."""
    return record.key_written(key) or spelt(key)


class Map(Field):
    """A mapping, e.g. a cost {plants: 2, mammals: 1}: keys from `keys` (any text when it is left out),
    each value checked as `values` says."""

    name = "map"
    OPTIONS = {**Field.OPTIONS, "keys": "the allowed keys: a list, or the name of an enum (any key if left out)",
               "values": "the field type of each value (default: int)",
               "min_total": "the smallest sum of the values", "max_total": "the largest sum of the values"}

    def __init__(self, spec: Mapping[str, Any], enums: Mapping[str, Any]) -> None:
        super().__init__(spec, enums)
        try:
            self.keys = None if spec.get("keys") is None else self._keys(spec["keys"], enums)
        except SpecError as e:  # (said at the keys, which _keys is not given the spec of)
            raise SpecError(str(e), e.at or _at(spec, "keys")) from None
        self.value = make_field(spec.get("values", {"type": "int"}), enums)
        self.min_total, self.max_total = self._number_option("min_total"), self._number_option("max_total")
        if self.min_total is not None and self.max_total is not None and self.min_total > self.max_total:
            # (every item was refused at its own line: 'total 3 is out of range (expected 5 to 2)')
            raise SpecError(f"'min_total' ({shown(self.min_total)}) is more than 'max_total' ({shown(self.max_total)}): no map "
                            "could be given", _at(spec, "min_total"))
        self._check_totals(spec)

    def _check_totals(self, spec: Mapping[str, Any]) -> None:
        """SpecError where a bound of the values' sum cannot be kept as written: the values are not numbers (a
        map of lists with `max_total: 3` summed none of them and validated ok, a map of texts was said to total
        0), or they are whole numbers and the bound is not (`min_total: 3.5` read as 4)."""
        for key in ("min_total", "max_total"):
            bound = spec.get(key)
            if bound is None:
                continue
            if not isinstance(self.value, WholeNumber):
                raise SpecError(f"'{key}' bounds the sum of the values, and this map's values are not numbers "
                                f"(values: {self.value.reference_kind()}): give them the type int or number, or "
                                f"leave '{key}' out", _at(spec, key))
            if issubclass(self.value.value_option, options.Int) and bound != int(bound):
                raise SpecError(f"'{key}' of a map of whole numbers is a whole number, got {shown(bound)}",
                                _at(spec, key))

    @staticmethod
    def _keys(keys: object, enums: Mapping[str, Any]) -> "Enum":
        """The enum of a map's allowed `keys` (a list, or an enum's name); SpecError naming `keys` where the list
        is not one (its problems were said as an enum's 'values', an option the map has too, for its values:
        "'values' is a list, got a mapping" for keys: {a: 1})."""
        if not isinstance(keys, (str, list)):
            raise SpecError(f"'keys' is a list of the allowed keys, or the name of an enum, got {type_name(keys)}")
        if isinstance(keys, list) and not keys:
            raise SpecError("'keys' lists no key: no item could give one (leave it out for any key)")
        odd = next((k for k in keys if isinstance(k, bool) or not isinstance(k, (str, int, float))
                    or not _is_finite(k)), None) if isinstance(keys, list) else None
        if odd is not None:  # (as a map of any key refuses its key: a key true printed 'True=3')
            raise SpecError(f"'keys' lists {shown(odd) if isinstance(odd, float) else 'one that is ' + type_name(odd)}"
                            ": a map's keys are text or numbers; quote it (YAML reads yes, no, on and off as "
                            "true/false)")
        if isinstance(keys, list) and (repeated := repeated_value(keys)):
            raise SpecError(f"'keys' lists {repeated[1]}: write each once")
        return Enum({"type": "enum", **({"enum": keys} if isinstance(keys, str) else {"values": keys})}, enums)

    def refs(self) -> Iterator[tuple[str, Mark | None]]:
        return self.value.refs()

    def gave_up(self) -> bool:
        return self.value.gave_up()

    def patterned(self) -> bool:
        return self.value.patterned()

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        if not isinstance(value, Record):
            yield f"expected a mapping, got {type_name(value)}", mark
            return
        for k, v in value.items():
            yield from self._key_problems(value, k, ctx)
            yield from self.value.check(self.value.quoted(v, value.written_of(k)), value.mark_of(k), ctx)
        if self.min_total is not None or self.max_total is not None:
            total = sum(v for v in value.values() if _is_number(v))
            if _outside(total, self.min_total, self.max_total):
                yield f"total {out_of_range(total, self.min_total, self.max_total)}", mark

    def _key_problems(self, value: Record, k: Any, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        """The problems of the mapping `value`'s key `k`, each said at the key, the key quoted as written."""
        if self.keys is not None:
            # (a key as written: `0x10:` was said 16, `True:` 'true')
            yield from self.keys.check(self.keys.quoted(k, value.key_written(k)), value.key_mark(k), ctx)
        elif isinstance(k, bool) or not isinstance(k, (str, int, float)) or not _is_finite(k):
            # (YAML reads a key yes or no as true or false: a card listing its votes printed 'True=3')
            # (a key .inf printed 'inf', as no value prints: a number field refuses it)
            kind = "not a number (NaN)" if k != k else "not a finite number" if isinstance(k, float) \
                else type_name(k)
            yield (f"key {shown(_key_as_written(value, k))} is {kind}: a map's keys are text or numbers; quote it (YAML "
                   "reads yes, no, on and off as true/false, and 2024-01-02 as a date)"), value.key_mark(k)
        elif isinstance(k, str) and not k.strip():  # a credit ': Ada' printed with no role, exit 0
            yield f"key {shown(k)} is blank: it would print nothing; write its words", value.key_mark(k)

    def clean(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Any:
        if not isinstance(value, Record):
            return INVALID
        kept = {}
        for k, v in value.items():
            if self.keys is not None and self.keys.clean(k, mark, ctx) is INVALID:
                continue
            v = self.value.clean(self.value.as_read(v, value.written_of(k)), value.mark_of(k), ctx)
            if v is not INVALID:
                kept[k] = v
        return value.holding(kept)


class Nested(Field):
    """A mapping with fields of its own (`fields`, written like a table's)."""

    name = "record"
    OPTIONS = {**Field.OPTIONS, "fields": "the record's own fields, each a field type"}

    def __init__(self, spec: Mapping[str, Any], enums: Mapping[str, Any]) -> None:
        super().__init__(spec, enums)
        self.schema = Schema(spec.get("fields", {}), enums)
        if self.schema.problems:
            raise SpecError(*self.schema.problems[0])

    def refs(self) -> Iterator[tuple[str, Mark | None]]:
        return self.schema.refs()

    def gave_up(self) -> bool:
        return self.schema.gave_up()

    def patterned(self) -> bool:
        return bool(self.schema.patterned_fields)

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        if not isinstance(value, Record):
            yield f"expected a mapping, got {type_name(value)}", mark
            return
        yield from self.schema.check(value, ctx)

    def fill(self, value: Any) -> Any:
        return self.schema.with_defaults(value) if isinstance(value, Record) else value

    def clean(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Any:
        return self.schema.clean(value, ctx) if isinstance(value, Record) else INVALID


class Scalar(Field):
    """Text or a number, as written ('players: 2-5' or 'players: 4'). Used for game.yaml's own keys."""

    name = "scalar"

    def reference_kind(self) -> str:
        return "text or number"

    def as_read(self, value: Any, written: str | None) -> Any:
        # as written: game.yaml's `version: 1.10` printed 1.1 (the text is what prints, and a number here is one
        # only to its writer)
        return options.as_written(value, written)

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            yield f"expected text or a number, got {type_name(value)}", mark
        elif isinstance(value, str) and blank(value):  # (as spaces, a soft hyphen or a zero-width space)
            # a blank title, player count or credit printed nothing where its words go ('players · ages 8+'),
            # with exit 0
            yield "blank: it would print nothing; write its words" + ("" if self.required else ", or leave it out"), mark


MAX_PLAYERS = 999  # (a count past it is a slip of the keyboard, not a party game)


class PlayerCount(Scalar):
    """How many play, as a box says it: a whole number (4), a range (2-5, or 2–5 with an en dash) or an open
    one (3+), each from 1 player. Used for game.yaml's `players`, which the rulebook's title page prints and
    the Tabletop Simulator table seats."""

    name = "players"
    _FORM = re.compile(r"\s*(\d{1,6})\s*(?:([-–])\s*(\d{1,6})|(\+))?\s*\Z")

    def reference_kind(self) -> str:
        return "players: 4, 2-5 or 3+"

    def as_read(self, value: Any, written: str | None) -> Any:
        return value  # a count, which the Tabletop Simulator table seats: the number

    def check(self, value: Any, mark: Mark | None, ctx: CheckerShape) -> Iterator[tuple[str, Mark | None]]:
        problems = list(super().check(value, mark, ctx))
        if problems:
            yield from problems
            return
        # (a whole number as Python prints it, not as written: `players: +4` is 4 players)
        found = self._FORM.match(str(int(value)) if isinstance(value, int) else value) \
            if not isinstance(value, float) else None
        if found is None:  # ('two to four', '2.5': the title page printed "2.5 players", exit 0)
            yield (f"{shown(str(value))} is not a player count: write a whole number (4), a range (2-5) or an open "
                   "range (3+)"), mark
            return
        least, most = int(found.group(1)), int(found.group(3) or found.group(1))
        if least < 1:  # ('players: 0' printed "0 players" on the title page)
            yield f"'{value}': a game is played by at least 1 player", mark
        elif most < least:
            yield f"'{value}': the range runs backwards; write the fewest first ({most}-{least})", mark
        elif most > MAX_PLAYERS:
            yield f"'{value}': at most {MAX_PLAYERS} players", mark


def player_range(value: object) -> tuple[int, int | None] | None:
    """(fewest, most or None for an open range like 3+) of a `players` value PlayerCount accepts, else None."""
    found = PlayerCount._FORM.match(str(value)) if not isinstance(value, (float, bool)) else None
    if found is None:
        return None
    least = int(found.group(1))
    return least, (None if found.group(4) else int(found.group(3) or least))


class ConditionValue(Field):
    """A Jinja expression that is true or false, or true or false written as such (`when`'s rule: options.Condition).
    Used for game.yaml's `expr` and `filter`."""

    name = "condition"
    value_option = options.Condition

    def as_read(self, value: Any, written: str | None) -> Any:
        # true or false as the expression it is: what reads it takes text (a constraint's message quotes it)
        return ("true" if value else "false") if isinstance(value, bool) else value

    def reference_kind(self) -> str:
        return "expression, or true or false"


class AnyValue(Field):
    """Any value (checked by the code that reads it)."""

    name = "any"

    def reference_kind(self) -> str:
        return "see its meaning"


TYPES = {cls.name: cls for cls in (Str, RichText, Id, WholeNumber, Decimal, TrueFalse, Enum, Ref, Icon, Timing, List, Map, Nested)}
_INTERNAL = {cls.name: cls for cls in (Scalar, PlayerCount, ConditionValue, AnyValue)}


def make_field(spec: object, enums: Mapping[str, Any]) -> Field:
    """The field a spec describes (a field built in code is itself)."""
    if isinstance(spec, Field):
        return spec
    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(spec, Mapping):
        raise SpecError(f"a field spec is a type name or a mapping with 'type', got {type_name(spec)}")
    kind = spec.get("type", "str")
    if not isinstance(kind, str):
        raise SpecError(f"a field type is a name such as int or text, got {type_name(kind)}", _at(spec, "type"))
    if kind not in TYPES and kind not in _INTERNAL:
        raise SpecError(f"unknown field type {named(kind)}{did_you_mean(kind, TYPES)}; types: {', '.join(TYPES)}",
                        _at(spec, "type"))
    cls = TYPES.get(kind) or _INTERNAL[kind]
    unknown = [k for k in spec if k not in cls.OPTIONS]
    if unknown:
        raise SpecError(f"'{kind}' field does not take {', '.join(map(repr, unknown))}"
                        f"{did_you_mean(unknown[0], cls.OPTIONS)}",
                        spec.key_mark(unknown[0]) if isinstance(spec, Record) else None)
    return cls(spec, enums)


def _marked(value: Any, mark: Mark | None) -> Any:
    """A default mapping as a Record (so a left-out record still gets its own fields' defaults)."""
    return Record(dict(value), mark=mark) if isinstance(value, Mapping) and not isinstance(value, Record) else value


def _named(name: str, message: str) -> str:
    """A field's problem with the field's name in front (once, for nested records)."""
    return message if message.startswith(f"{name}") else f"{name}: {message}"


# Stands for the checked field's own mark in Schema.check's field checks, which only hand it on with a problem
_AT_FIELD = Mark("<the field's place>")


MAX_LISTED = 12  # names a message lists: 1,000 enums were each listed in every field's message naming none


def _listed(names: Iterable[object]) -> str:
    """The first MAX_LISTED of `names`, the rest counted ('none' for none)."""
    every = [str(name) for name in names]
    more = f" and {len(every) - MAX_LISTED:,} more" if len(every) > MAX_LISTED else ""
    return ", ".join(every[:MAX_LISTED]) + more or "none"


class Schema:
    """The fields of one record type (a table's items, or a mapping in game.yaml)."""

    def __init__(self, fields: object, enums: Mapping[str, Any], word: str = "field") -> None:
        self.fields, self.word = {}, word
        self._fills: tuple[str, ...] | None = None
        self.problems = []  # (message, mark) for bad specs
        if not isinstance(fields, Mapping):
            self.problems.append((f"fields are a mapping of name: type, got {type_name(fields)}",
                                  getattr(fields, "mark", None)))
            fields = {}
        for name, spec in fields.items():
            try:
                self.fields[name] = make_field(spec, enums)
            except SpecError as e:
                mark = e.at or (fields.mark_of(name) if isinstance(fields, Record) else None)
                if not isinstance(e, SaidError):
                    self.problems.append((f"field '{name}': {e}", mark))
                # keep the name known, so every record using it does not repeat the problem
                self.fields[name] = AnyValue({"required": False}, enums)
        # the fields whose check may give up: asked after every item's check (tables._check_items)
        self.patterned_fields = [field for field in self.fields.values() if field.patterned()]

    def refs(self) -> Iterator[tuple[str, Mark | None]]:
        for field in self.fields.values():
            yield from field.refs()

    def gave_up(self) -> bool:
        return any(field.gave_up() for field in self.patterned_fields)

    def _filling(self) -> tuple[str, ...]:
        """The fields whose values get defaults of their own (lists, nested records: their fill), in order;
        with_defaults reads only those of each record."""
        if self._fills is None:
            self._fills = tuple(n for n, f in self.fields.items() if type(f).fill is not Field.fill)
        return self._fills

    def check(self, record: Record, ctx: CheckerShape, computed: Iterable[str] = ()) -> Iterator[tuple[str, Mark | None]]:
        """Problems of one record; `computed` names derived fields, which a record may also type in."""
        for key in record:
            if key not in self.fields and key not in computed:
                yield (f"unknown {self.word} {shown(record.key_quoted(key))}{ctx.suggest(key, self.fields)}",
                       record.key_mark(key))
        for name, field in self.fields.items():
            if name in record:  # the field's Mark is made only for a problem found (model/load.py: places)
                # (a number as its file writes it, which the messages quote: see quoted_as_written)
                for message, mark in field.check(field.quoted(record[name], record.written_of(name)), _AT_FIELD,
                                                 ctx):
                    yield _named(name, message), record.mark_of(name) if mark is _AT_FIELD else mark
            elif field.required:
                yield f"missing required {self.word} '{name}'", record.mark

    def clean(self, record: Record, ctx: CheckerShape) -> Any:
        """The record without its unknown or bad keys; INVALID when a required one is missing or bad."""
        kept = {}
        for name, field in self.fields.items():
            if name in record:
                value = field.clean(field.read(record, name), record.mark_of(name), ctx)
                if value is not INVALID:
                    kept[name] = value
                    continue
            if field.required:
                return INVALID
            if field.default is not None:  # what the code reading it may count on
                kept[name] = field.default
        return Record(kept, record._marks, record._key_marks, record.mark)

    def with_defaults(self, record: Any) -> Any:
        """The record with every optional field present (its default, or None), nested records included."""
        values = {n: f.fill(_marked(f.default, record.mark)) if isinstance(f, Nested) else f.default
                  for n, f in self.fields.items() if n not in record and not f.required}
        for n in self._filling():
            if n in record:
                filled = self.fields[n].fill(record[n])
                if filled is not record[n]:
                    values[n] = filled
        if not values:
            return record
        return record.with_values(values)
