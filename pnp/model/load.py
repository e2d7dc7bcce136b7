"""Safe YAML loading that keeps the file:line:col of every value and refuses object tags, alias bombs,
deep nesting, huge numbers and huge files."""

import bisect
import datetime
import hashlib
import itertools
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol

import yaml

from ..errors import LoadError, blame, why_not_read
from ..options import CONTROL_CHARACTER, PRINTS_NOTHING, control_problem
from ..options import plain, shown  # noqa: F401  (the model's callers import them from here)
from ..project import open_project_file, read_project_file, utf8_text
from ..report import QUOTE_LIMIT, Mark, key_as_written, shortened, spelt

_Loader: type[yaml.SafeLoader] | type[yaml.CSafeLoader]
try:  # the C parser is several times faster and gives the same events and marks
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

# Plain data only: no tag may build a Python object.
_ALLOWED_TAGS = {
    "tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "timestamp", "map", "seq")
}
_MERGE = "tag:yaml.org,2002:merge"
# the tags of a list and a mapping, which may not tag a scalar: what each makes, and its empty one as written
_COLLECTION_TAGS = {"tag:yaml.org,2002:seq": ("a list", "[]"), "tag:yaml.org,2002:map": ("a mapping", "{}")}
_STR, _INT = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int"
_CONTROL = CONTROL_CHARACTER.search
# YAML 1.1 reads a bare '<<' (outside a key) and '=' as these tags, which build nothing: they are text
_TEXT_ALIKE = {_MERGE, "tag:yaml.org,2002:value"}
# Read as numbers or dates by PyYAML's constructor, whose time grows with the length (base 60 squarely)
_PLAIN_NUMBER_TAGS = {_INT, "tag:yaml.org,2002:float"}
_NUMBER_TAGS = _PLAIN_NUMBER_TAGS | {"tag:yaml.org,2002:timestamp"}
# The first characters of plain scalars the loader's resolver may read as something else than text (numbers,
# yes/no, null, dates, '<<', '='): any other plain scalar is text, as its resolver would find after trying
# none of its patterns. Without that table (a resolver with patterns for any character) every one is resolved
_TYPED_STARTS: frozenset[str] | None = frozenset(_Loader.yaml_implicit_resolvers) \
    if None not in _Loader.yaml_implicit_resolvers and not _Loader.yaml_path_resolvers else None
MAX_NUMBER_DIGITS = 4300  # Python's own cap on reading a decimal int; pnp holds every notation to it
_HUGE = 10**MAX_NUMBER_DIGITS
# Where the parts between the first and the last colon of a scalar are not all base-60 digits (0-59): a part
# empty, of three digits, of two from 60 up, or a character no digit
# (searched from the first colon to the last, both included)
_NOT_BASE_60 = re.compile(r"[^0-9:]|::|[0-9]{3}|:[6-9][0-9]").search


def resolver_input(value: str) -> str | None:
    """What PyYAML's resolver is given for the plain scalar `value`, with the same answer; None when that is
    text. Its base-60 patterns repeat a group once for each colon, which costs memory in proportion: a number
    of 10 million ':1' took 1.3 GB and 8-16 s to be refused as too long (a short one costs nothing). Its
    middle parts are checked here and left out: `1:2:...:59` reads as `1:59` does. No other pattern (a date, a
    time zone) holds more than three colons."""
    if len(value) <= MAX_NUMBER_DIGITS or value.count(":") < 4:
        return value
    first, last = value.index(":"), value.rindex(":")
    if _NOT_BASE_60(value, first, last + 1):
        return None
    return value[:first] + value[last:]
_MERGE_KEY = object()  # stands for '<<' while a mapping is built
MAX_EXPANDED_VALUES = 1_000_000  # values after aliases are expanded: refuses a "billion laughs"
# ... and of all a game's data files together (game.yaml, its rules and tables; see values_allowance): each is
# checked item by item, so validating takes time in proportion. 10,000 cards of four fields count 260,000 and
# validate in about 2 s, 10,000 rows of eight fields (the report benchmark's) 500,000 in under 4 s; a game of
# 55,000 cards of four fields (several files, each under the cap above) took over 8 s
MAX_GAME_VALUES = 600_000
# ... and the cells of all a game's spreadsheets, blank ones included (each is looked at, and holds no value:
# 40 tables reading one CSV of 1,000,000 blank cells took 40 s), as many as one sheet may hold
MAX_GAME_CELLS = 1_000_000
# ... and the characters of their text cells, each time one is read (a workbook's shared text counted for each cell
# reading it): 50 tables reading one sheet of 20 MB of text looked at a billion characters
MAX_GAME_SHEET_TEXT = 80 * 1024 * 1024
# [values, cells, characters of text cells] left
_ALLOWANCE: ContextVar[list[int] | None] = ContextVar("pnp_game_values_left", default=None)


@contextmanager
def values_allowance() -> Iterator[None]:
    """Data files loaded inside share MAX_GAME_VALUES values, MAX_GAME_CELLS spreadsheet cells and
    MAX_GAME_SHEET_TEXT characters of their text cells: the one passing any is refused at the line where it does
    (its own caps still hold)."""
    token = _ALLOWANCE.set([MAX_GAME_VALUES, MAX_GAME_CELLS, MAX_GAME_SHEET_TEXT])
    try:
        yield
    finally:
        _ALLOWANCE.reset(token)


def values_left(file_cap: int) -> tuple[int, str]:
    """(the most values the next data file may hold, how many that is in words): the file's own cap, or what
    is left of the game's allowance when that is less."""
    left = _ALLOWANCE.get()
    if left is None or left[0] >= file_cap:
        return file_cap, f"more than {file_cap:,} values"
    return max(left[0], 0), f"more than {MAX_GAME_VALUES:,} values with the game's other data files"


def spend_values(size: int) -> None:
    """Count a loaded data file's values against the game's allowance (when one is open)."""
    left = _ALLOWANCE.get()
    if left is not None:
        left[0] -= size


def spend_cells(cells: int) -> int | None:
    """Count a spreadsheet's `cells` (more of them read) against the game's allowance; the cells it has left
    (below 0: spent), or None when no allowance is open."""
    return _spend(1, cells)


def spend_sheet_text(chars: int) -> int | None:
    """Count the `chars` of a spreadsheet's text cells (more of them read) against the game's allowance; the
    characters it has left (below 0: spent), or None when no allowance is open."""
    return _spend(2, chars)


def _spend(kind: int, spent: int) -> int | None:
    """Count `spent` against the game's allowance of one `kind` (its place in _ALLOWANCE's list); what is left, or
    None when no allowance is open."""
    left = _ALLOWANCE.get()
    if left is None:
        return None
    left[kind] -= spent
    return left[kind]


MAX_DEPTH = 100  # nesting of lists and mappings (the parser itself would crash far deeper)
# libyaml reads up to a line ahead of the values it has handed over and stops at its own depth cap (1000
# in PyYAML 6.0.4); so much of that line is read again to find where pnp's cap was passed first
_MAX_RESCAN_CHARS = 100_000
MAX_FILE_BYTES = 20 * 1024 * 1024
# The lines of a file read to know where the lines of its texts written over several begin (Builder.text_place),
# other than `|` ones (whose lines are the file's): a 15 MB text of a blank line in two read in 40 s, 1.2 GB
MAX_TEXT_LINES_READ = 20_000
# Where the loader's values were written, kept as one int each (line << _LINE_SHIFT | column, both 1-based) and
# made a Mark, with the file of the mapping or list holding them, only when asked (mark_of, key_mark): a card file
# has about nine values a card, a Mark takes over a microsecond to make, and few values are ever pointed at
_LINE_SHIFT = 32
# a flag of the column's bits: the place of a `|` text, whose own lines are its file's from the line below (the
# place's Mark says so in its text_lines, made only when asked, as the Mark is)
_TEXT_BELOW = 1 << (_LINE_SHIFT - 1)
_COLUMNS = _TEXT_BELOW - 1
Place = Mark | int  # a Mark, or the loader's int of a place in the file of the Record or MarkedList holding it


def _place_line(place: Place) -> int:
    """The line (from 1) of a place."""
    return place >> _LINE_SHIFT if isinstance(place, int) else place.line


def place_mark(place: Place | None, holder: Mark | None) -> Mark | None:
    """The Mark of `place` in the file of `holder` (the mark of the mapping or list it is kept in)."""
    if isinstance(place, int):
        return _int_mark(holder.file if holder is not None else "", place)
    return place


def _int_mark(file: str, place: int) -> Mark:
    """The Mark of the loader's int of a place in `file`."""
    line = place >> _LINE_SHIFT
    return Mark(file, line, place & _COLUMNS, ((1, line + 1),) if place & _TEXT_BELOW else ())


class Record(Mapping[Any, Any]):
    """A YAML mapping: read-only, remembers where each key and value was written. Keys are text or numbers,
    values whatever the data holds (game-defined)."""

    __slots__ = ("_data", "_marks", "_key_marks", "mark", "_written", "_keys_written")

    def __init__(self, data: Mapping[Any, Any] | None = None, marks: Mapping[Any, Place | None] | None = None,
                 key_marks: Mapping[Any, Place | None] | None = None, mark: Mark | None = None,
                 written: Mapping[Any, str] | None = None) -> None:
        self._data: dict[Any, Any]
        self._marks: dict[Any, Place | None]
        self._key_marks: dict[Any, Place | None]
        self.mark: Mark | None
        self._data = dict(data or {})
        self._marks = dict(marks or {})
        self._key_marks = dict(key_marks or {})
        self.mark = mark
        self._written = dict(written) if written else None
        self._keys_written: dict[Any, str] | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    # Mapping would answer these through __getitem__ and an exception; read by the million, they go straight
    # to the dict
    def get(self, key: Any, default: Any = None) -> Any:
        return self._data.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getattr__(self, name: str) -> Any:
        # card.name in Python and in Jinja templates (slots are real attributes, so they are not shadowed)
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:  # as a mapping a template builds prints: `{{ card.cost }}` printed "Record({...})"
        return repr(self._data)

    # and its views as a dict's print: `{{ card.keys() }}` printed "KeysView({...})", every value with its key
    def keys(self) -> KeysView[Any]:
        return self._data.keys()

    def values(self) -> ValuesView[Any]:
        return self._data.values()

    def items(self) -> ItemsView[Any, Any]:
        return self._data.items()

    @classmethod
    def _made(cls, data: dict[Any, Any], marks: dict[Any, Place | None], key_marks: dict[Any, Place | None],
              mark: Mark | None, written: dict[Any, str] | None = None,
              keys_written: dict[Any, str] | None = None) -> "Record":
        """A Record owning the dicts given (the loader's fresh ones): no copies."""
        record = cls.__new__(cls)
        record._data, record._marks, record._key_marks, record.mark = data, marks, key_marks, mark
        record._written, record._keys_written = written, keys_written
        return record

    def key_written(self, key: Any) -> str | None:
        """The text `key` was written as, where YAML read it as a value that prints otherwise (`yes:` read as
        true, `1.0:` as 1.0), else None: for a message about the key to quote it as written."""
        written = getattr(self, "_keys_written", None)  # (a record made without the loader has none)
        return written.get(key) if written else None

    def key_quoted(self, key: Any) -> object:
        """`key` as a message quotes it: as its file writes it, where that prints otherwise (see key_written)."""
        return key_as_written(key, self.key_written(key))

    def written_of_all(self) -> Mapping[Any, str]:
        """Each key's number written otherwise than it prints (see written_of), not to be changed."""
        return getattr(self, "_written", None) or {}

    def written_of(self, key: Any) -> str | None:
        """The text a number under `key` was written as, where YAML read it as a number that prints otherwise
        (`1.10` read as 1.1, `1_000` as 1000): what a field of text or number prints (schema.Scalar)."""
        written = getattr(self, "_written", None)  # (a record made without the loader has none)
        return written.get(key) if written else None

    def mark_of(self, key: Any) -> Mark | None:
        """Where the value of `key` was written (or the mapping itself when the key is absent)."""
        return place_mark(self._marks.get(key), self.mark) or self.mark

    def key_mark(self, key: Any) -> Mark | None:
        return place_mark(self._key_marks.get(key), self.mark) or self.mark

    def wrote_key(self, key: Any) -> bool:
        """Whether the file wrote `key`, even where cleaning left its value out (refused as of the wrong type)."""
        return key in self._key_marks

    def holding(self, data: Mapping[Any, Any]) -> "Record":
        """A Record of `data`, this one's values cleaned (some left out), with its marks and its keys' written
        texts (a cleaned map's number key, `0x10:`, was said 16: see key_quoted)."""
        record = Record(data, self._marks, self._key_marks, self.mark)
        record._keys_written = getattr(self, "_keys_written", None)  # (never changed: shared)
        return record

    def with_values(self, extra: Mapping[Any, Any], mark: Mark | None = None) -> "Record":
        """A copy with more (computed) fields; computed fields point at `mark`."""
        data = {**self._data, **extra}
        marks = {**{k: mark or self.mark for k in extra}, **self._marks}
        return Record(data, marks, self._key_marks, self.mark, getattr(self, "_written", None))

    def add_computed(self, key: Any, value: Any, mark: Mark | None) -> None:
        """Add a computed field in place, pointing at `mark` (as with_values does): for the copies the derived
        fields are computed on alone (tables.derive), which nothing else holds yet."""
        self._data[key] = value
        self._marks.setdefault(key, mark or Record.__dict__["mark"].__get__(self, Record))  # (the slot: a
        # Tracked item's `mark` notes a read)

    def merged_over(self, base: "Record") -> "Record":
        """This mapping's keys over `base`'s, each keeping the mark of the file it came from."""
        # base's places are in its own file: made Marks (this mapping's own stay in its file, the copy's)
        return Record({**base._data, **self._data},
                      {**{k: place_mark(at, base.mark) for k, at in base._marks.items()}, **self._marks},
                      {**{k: place_mark(at, base.mark) for k, at in base._key_marks.items()}, **self._key_marks},
                      self.mark, {**(getattr(base, "_written", None) or {}), **(getattr(self, "_written", None) or {})})


def field_holding(item: object, text: str) -> tuple[str, Mark | None] | tuple[None, None]:
    """(field name, its mark) of the item's one text field that makes up most of `text` (the field a layout
    prints in that box), or (None, None): where a problem of a printed text is said, the data that wrote it."""
    if not isinstance(item, Record):
        return None, None
    holding = [name for name, value in item.items() if isinstance(value, str) and _holds(text, value)]
    if len(holding) != 1:
        return None, None
    return holding[0], item.mark_of(holding[0])


def _holds(text: str, value: str) -> bool:
    """Whether `value` makes up most of `text`. The cheap tests first, the search last: a text an alias
    repeats on every card (950,000 characters on 5,000 cards) was searched for on each, its whole length,
    for each refusal (15 s of a validate); equal texts, the usual case, are compared, never searched."""
    if len(value) < 8 or len(value) > len(text) or len(value) * 2 < len(text):
        return False
    return value == text if len(value) == len(text) else value in text


class MarkedList(list[Any]):
    """A YAML sequence that remembers where each item was written."""

    __slots__ = ("marks", "mark", "written")

    def __init__(self, items: Iterable[Any] = (), marks: Iterable[Place | None] | None = None,
                 mark: Mark | None = None, written: Mapping[int, str] | None = None) -> None:
        super().__init__(items)
        self.marks: list[Place | None] = list(marks or [])
        self.mark = mark
        self.written: dict[int, str] | None = dict(written) if written else None  # by index, as Record's

    def mark_of(self, index: int) -> Mark | None:
        return place_mark(self.marks[index], self.mark) if index < len(self.marks) else self.mark


class _ParserMark(Protocol):
    """A position as PyYAML's parsers give it (the pure-Python and the C parser have a class each)."""

    line: int
    column: int
    index: int


def _mark(file: str, m: _ParserMark | None, lines: int = 0) -> Mark:
    """The mark of a parser's 0-based position (the file itself when the parser gives none), `lines` below."""
    return Mark(file, m.line + 1 + lines, m.column + 1) if m else Mark(file)


def number_too_long(mark: Mark) -> LoadError:
    """The refusal of a number written in more than MAX_NUMBER_DIGITS characters (in a YAML file or a table's
    cell alike)."""
    return LoadError(f"a number of more than {MAX_NUMBER_DIGITS:,} digits cannot be read", mark)


# an escape of a double-quoted text, matched whole (so that an escaped backslash before an n is no line break)
_ESCAPE = re.compile(r"\\(x0[aAdD]|u000[aAdD]|U0000000[aAdD]|.)")
# ... and those that make a line break a template counts (a carriage return and a line feed together, one)
_BREAK_ESCAPES = frozenset(("n", "r", "x0a", "x0A", "x0d", "x0D", "u000a", "u000A", "u000d", "u000D", "U0000000a",
                            "U0000000A", "U0000000d", "U0000000D"))


def _escaped_breaks(line: str) -> int:
    """The line breaks a template counts in the escapes of one line of a double-quoted text."""
    breaks, return_ends = 0, -1  # (where the last escape ended, if it made a carriage return)
    for escape in _ESCAPE.finditer(line):
        code = escape.group(1)
        if code not in _BREAK_ESCAPES:
            return_ends = -1
            continue
        is_return = code[-1] in "rdD"
        breaks += is_return or escape.start() != return_ends
        return_ends = escape.end() if is_return else -1
    return breaks


def _flow_text_lines(style: str | None, lines: list[str], first: int) -> list[tuple[int, int]]:
    """(line of the text, line of the file) where each of the file's lines of a plain or quoted text begins: a
    line break between two of its lines is folded into a space, each blank line between them is a line break
    of the text (and a double-quoted text's escapes make more)."""
    double = style == '"'
    found, text_line, blanks = [], 1, 0
    for k, line in enumerate(lines):
        if k and not line.strip(" \t"):
            blanks += 1
            continue
        text_line += blanks
        found.append((text_line, first + k))
        blanks = 0
        if double and (escaped := _escaped_breaks(line)):
            text_line += escaped
            found.append((text_line, first + k))  # (a text's line begun by an escape, on this line of the file)
    return found


def _block_text_lines(folded: bool, lines: list[str], first: int, value: str) -> list[tuple[int, int]]:
    """(line of the text, line of the file) where each of the file's lines of a `|` or `>` text below its
    header begins, as PyYAML reads them: every line break of `|` is the text's; `>` folds a break between two
    lines that begin at the block's indentation into a space (blank lines between them each make one)."""
    begun = next((k for k, line in enumerate(lines) if line.strip(" ")), None)
    if begun is None:
        return []
    # the block's indentation: what of its first line's spaces its text's line leaves out (an indentation
    # indicator may keep some)
    at = 0
    for _ in range(begun):  # (the text's line of the first line written: as many below as blank lines above)
        at = value.find("\n", at) + 1 or len(value)
    ends = value.find("\n", at)
    first_shown = value[at:ends if ends >= 0 else len(value)]
    spaces = len(lines[begun]) - len(lines[begun].lstrip(" "))
    indent = next((i for i in range(spaces, -1, -1) if first_shown.startswith(lines[begun][i:])), spaces)
    found, text_line, blanks, plain_before = [(1, first)], 1, 0, False  # (its first line, blank or not)
    for k, line in enumerate(lines):
        if len(line) <= indent and not line.strip(" "):
            blanks += 1
            continue
        plain_now = line[indent:indent + 1] not in (" ", "\t")
        # (the break before a line: the text's, unless `>` folds it)
        text_line += blanks + (k > begun and not (folded and plain_before and plain_now))
        found.append((text_line, first + k))
        blanks, plain_before = 0, plain_now
    return found


def _compressed(found: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """`found` without the places that follow from the one before (as many lines below) or that begin on a
    line of the text already begun (folded into it)."""
    kept: list[tuple[int, int]] = []
    for text_line, file_line in found:
        if kept and (text_line == kept[-1][0] or file_line - kept[-1][1] == text_line - kept[-1][0]):
            continue
        kept.append((text_line, file_line))
    return tuple(kept)


# what an anchor names while its own list or mapping is still being read (an alias to it then is recursive);
# not None, which is the value of an anchored null (`a: &none ~`, then `b: *none`)
_UNFINISHED = object()


class _Collection:
    """A list or mapping being built from parser events."""

    __slots__ = ("is_map", "flow", "mark", "anchor", "size", "items", "marks", "data", "key_marks", "key",
                 "key_mark", "merges", "merge_key_mark", "written", "keys_written", "forms")

    def __init__(self, is_map: bool, mark: Mark, anchor: str | None, flow: bool = False) -> None:
        self.is_map, self.flow, self.mark, self.anchor, self.size = is_map, flow, mark, anchor, 1
        self.items: list[Any] = []
        # a mapping's marks by key, a list's by index
        self.marks: Any = {} if is_map else []
        self.data: dict[Any, Any] = {}
        self.key_marks: dict[Any, Place | None] = {}
        self.key: Any = None
        self.key_mark: Place | None = None
        self.merges: list[tuple[Any, Place]] = []
        self.merge_key_mark: Place | None = None  # (where its '<<' is, once one is read)
        self.written: dict[Any, str] | None = None  # key or index -> a number's text, where it prints otherwise
        self.keys_written: dict[Any, str] | None = None  # key -> its own text, where it prints otherwise (`true:`)
        self.forms: dict[str, str] | None = None  # a mapping's keys not ASCII by their NFC form (_Builder.key)


def _refuse_yaml11_only_number(text: str, value: object, mark: Mark) -> None:
    """Refuses a plain number that YAML 1.1 (PyYAML) reads otherwise than its writer surely meant: '010' as the
    octal 8, '1:30' as the base-60 90. Spelt prefixes (0x10, 0b11) and thousands (1_000) stay as they are."""
    digits = text.lstrip("+-")
    if ":" in digits:
        reading = "the base-60 number"
    elif type(value) is int and len(digits) > 1 and digits[0] == "0" and digits[1] in "01234567_":
        reading = "the octal number"
    else:
        return
    raise LoadError(f"{shown(text)} is read by YAML as {reading} {value}; write the number in decimal, or quote "
                    "it to keep it as text", mark)


def _written_otherwise(value: object, text: str) -> str | None:
    """`text`, where YAML read from it a number or true/false that prints otherwise (`1.10` as 1.1, `1_000` as 1000,
    `yes` as True), or that pnp says otherwise (`True`, said 'true'), else None."""
    return text if type(value) in (int, float, bool) and not str(value) == text == spelt(value) else None


def _key_written_otherwise(value: object, text: str) -> str | None:
    """`text`, where YAML read from it a mapping's key of a date or time that prints otherwise
    (`2001-12-14t21:59:43.10-05:00:` said as '2001-12-14T21:59:43.100000-05:00'), else None."""
    return text if isinstance(value, (datetime.date, datetime.time)) and value.isoformat() != text else None


class _Builder:
    """Turns the parser's event stream into Records and MarkedLists without recursion, so no nesting can
    overflow a stack; counts every value an alias expands to."""

    def __init__(self, loader: yaml.SafeLoader | yaml.CSafeLoader, file: str, text: str = "", lines: int = 0) -> None:
        self.loader, self.file, self.text = loader, file, text
        self.lines = lines  # the lines of the file above `text` (a stretch of it parsed alone: ParsedFiles)
        # name -> (value, expanded size); value None while it is still being built
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.stack: list[_Collection] = []
        self.expanded, self.documents = 0, 0
        self.limit, self.too_many = values_left(MAX_EXPANDED_VALUES)
        self.root: Any = None
        self.tags: dict[tuple[str, tuple[bool, bool]], str] = {}  # (scalar, implicit) -> tag
        self.key_written: str | None = None  # the text of the key being added, where it prints otherwise
        self.anchors_written: dict[str, str] = {}  # anchor -> the text of the number it names (add_written)
        self.line_cursor = (0, 0)  # (a line of `text`, from 0, and where it begins): where lines_of last began
        self.lines_left = MAX_TEXT_LINES_READ  # of the lines text_place reads

    def build(self) -> Any:
        get_event, handlers, scalar = self.loader.get_event, _HANDLERS, yaml.ScalarEvent
        event: Any = None  # dispatched by its type
        try:
            while True:
                event = get_event()
                kind = type(event)
                if kind is scalar:  # most events: dispatched without the table
                    self.scalar(event)
                    continue
                if event is None or kind is yaml.StreamEndEvent:
                    return self.root
                handler = handlers.get(kind)
                if handler is not None:
                    handler(self, event)
        except yaml.MarkedYAMLError as e:
            self.refuse_nesting_before(event, e.problem_mark)
            raise

    def refuse_nesting_before(self, last: yaml.Event | None, problem: yaml.Mark | None) -> None:
        """LoadError if the lists and mappings the parser read ahead of `last` (the last event handed over)
        nest past MAX_DEPTH before its error at `problem`: pnp's limit is the one a file meets, whatever
        limit the installed libyaml has. PyYAML's pure-Python scanner, which has no cap of its own, reads
        that stretch again; flow collections open at `last` are written in front so it starts inside them."""
        end = last.end_mark if last is not None else None
        if end is None or problem is None or not 0 <= problem.index - end.index < _MAX_RESCAN_CHARS:
            return
        open_flows = [c for c in self.stack if c.flow]
        prefix = "".join("{" if c.is_map else "[" for c in open_flows)
        depth = len(self.stack) - len(open_flows)  # block collections, which the stretch cannot close
        scanner = yaml.SafeLoader(prefix + self.text[end.index:problem.index + 1])
        try:
            while (token := scanner.get_token()) is not None:
                if isinstance(token, (yaml.FlowSequenceStartToken, yaml.FlowMappingStartToken)):
                    depth += 1
                elif isinstance(token, (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken)):
                    depth -= 1
                if depth > MAX_DEPTH:
                    at = token.start_mark
                    line, column = (end.line, end.column + at.column - len(prefix)) \
                        if at.line == 0 else (end.line + at.line, at.column)
                    raise LoadError(f"lists and mappings nested more than {MAX_DEPTH} deep",
                                    Mark(self.file, line + 1, column + 1))
        except yaml.YAMLError:
            return  # the stretch does not read on its own: libyaml's error stands

    def document(self, event: yaml.DocumentStartEvent) -> None:
        self.documents += 1
        if self.documents > 1:
            raise LoadError("a file holds one YAML document; found a second one ('---')",
                            _mark(self.file, event.start_mark))

    def mark(self, place: Place) -> Mark:
        """The Mark of a place in this file."""
        return _int_mark(self.file, place) if isinstance(place, int) else place

    def scalar(self, event: yaml.ScalarEvent) -> None:
        start = event.start_mark
        assert start is not None  # (the parser marks every event)
        place = (start.line + 1 + self.lines) << _LINE_SHIFT | (start.column + 1)
        tag = event.tag
        if tag is None:
            implicit = event.implicit  # (plain, quoted): an untagged quoted scalar is text
            tag = _STR if _TYPED_STARTS is not None and (not implicit[0] or event.value[:1] not in _TYPED_STARTS) \
                else self.resolved(event.value, implicit)
            if tag in _TEXT_ALIKE:
                if self.merge_key(tag, place):
                    return
                tag = _STR
        elif tag == "!":
            tag = _STR
        if tag not in _ALLOWED_TAGS:
            self.allowed(tag, self.mark(place))
        if tag in _COLLECTION_TAGS:  # (PyYAML's own words were said: "malformed value: expected a sequence node,
            # but found scalar")
            kind, empty = _COLLECTION_TAGS[tag]
            raise LoadError(f"YAML tag '!!{tag.rpartition(':')[2]}' makes {kind}, but what it tags is "
                            f"{'nothing' if not event.value else 'text ' + repr(shortened(event.value, QUOTE_LIMIT))}; "
                            f"write {kind} ({empty} for an empty one), or leave the tag out", self.mark(place))
        value, at = self.text_scalar(event, place) if tag == _STR else \
            (self.construct(tag, event, self.mark(place)), place)
        written = self.written_otherwise(value, event.value)
        if event.anchor is not None:
            self.anchor(event.anchor, value, 1, written)
        if written is None:
            self.add_one(value, at)
        else:
            self.add_written(value, at, written)

    def text_place(self, event: yaml.ScalarEvent, place: int) -> Place:
        """The place of a text written over several lines, with where its own lines begin (Mark.text_lines) where
        they are not all on its first line: a template's mistake is said at its line. A `|` text's lines are its
        file's from the line below; another's are read, MAX_TEXT_LINES_READ of the file's lines at most (a text
        past them is said by the lines before)."""
        start, end = event.start_mark, event.end_mark
        assert start is not None and end is not None
        first = start.line + 1 + self.lines
        if event.style == "|":
            return place | _TEXT_BELOW
        if self.lines_left <= 0:
            return place
        lines = list(itertools.islice(self.lines_of(start.line), min(end.line - start.line + 1, self.lines_left)))
        self.lines_left -= len(lines)
        if event.style == ">":
            found = _block_text_lines(True, lines[1:], first + 1, event.value)
        else:
            found = _flow_text_lines(event.style, [lines[0][start.column:], *lines[1:]], first) if lines else []
        text_lines = _compressed(found)
        if not text_lines or text_lines == ((1, first),):
            return place
        return Mark(self.file, place >> _LINE_SHIFT, place & _COLUMNS, text_lines)

    def lines_of(self, first: int) -> Iterator[str]:
        """The lines of `text` from line `first` (from 0) on, without their breaks: found from where the last
        call stopped (texts come in the file's order), so the file is gone through once however many it holds."""
        line, at = self.line_cursor if self.line_cursor[0] <= first else (0, 0)
        breaks = _LINE_BREAK.finditer(self.text, at)
        while line < first:
            found = next(breaks, None)
            if found is None:
                return
            line, at = line + 1, found.end()
        self.line_cursor = (line, at)
        while True:
            found = next(breaks, None)
            yield self.text[at:found.start() if found else len(self.text)]
            if found is None:
                return
            at = found.end()

    def written_otherwise(self, value: object, text: str) -> str | None:
        """`text`, where the scalar YAML read from it prints otherwise (see _written_otherwise; a mapping's key, see
        _key_written_otherwise too), else None."""
        written = _written_otherwise(value, text)
        if written is None and self.stack and self.stack[-1].is_map and self.stack[-1].key is None:
            return _key_written_otherwise(value, text)
        return written

    def merge_key(self, tag: str, place: int) -> bool:
        """Add a '<<' read as a mapping's key (the merge key) and say so; elsewhere it is text."""
        if tag == _MERGE and self.stack and self.stack[-1].is_map and self.stack[-1].key is None:
            self.add(_MERGE_KEY, 1, place)
            return True
        return False

    def add_written(self, value: object, place: Place, written: str) -> None:
        """add() of a number YAML read from text that prints otherwise (`1.10` as 1.1), its text kept beside it
        in the mapping or list that holds it (Record.written_of), for a field of text to print as written."""
        parent = self.stack[-1] if self.stack else None
        slot: Any = None
        if parent is not None:
            slot = (parent.key if parent.key is not _MERGE_KEY else None) if parent.is_map else len(parent.items)
        if parent is not None and parent.is_map and parent.key is None:  # a key that prints otherwise (`true:`)
            self.key_written = written  # (for key() to say it as written)
            try:
                self.add(value, 1, place)
            finally:
                self.key_written = None
            if parent.keys_written is None:
                parent.keys_written = {}
            parent.keys_written[value] = written
            return
        self.add(value, 1, place)
        if parent is not None and slot is not None:
            if parent.written is None:
                parent.written = {}
            parent.written[slot] = written

    def text_scalar(self, event: yaml.ScalarEvent, place: int) -> tuple[str, Place]:
        """A text scalar and its place, refused where it holds a control character that a YAML escape ("\\e",
        "\\u202e") made: any text of a game may be printed or written into an export (a Tabletop Simulator name, a
        file name). The place of one written over several lines says where its own lines begin (text_place)."""
        value = event.value
        if _CONTROL(value):
            raise LoadError(control_problem(value) or "", self.mark(place))
        start, end = event.start_mark, event.end_mark
        if start is not None and end is not None and end.line > start.line and \
                (event.style in ("|", ">") or "\n" in value):
            return value, self.text_place(event, place)
        return value, place

    def add_one(self, value: Any, place: Place) -> None:
        """add() of one scalar, with the commonest cases of key() and value() made here: a card file is
        mostly scalars, a text key then its value, and a call less for each counts."""
        stack = self.stack
        if not stack or self.expanded >= self.limit:  # the root, or past the limit: add() says so
            self.add(value, 1, place)
            return
        self.expanded += 1
        parent = stack[-1]
        parent.size += 1
        if not parent.is_map:
            parent.items.append(value)
            parent.marks.append(place)
        elif parent.key is None:
            if type(value) is str and value not in parent.data and value.isascii():
                parent.key, parent.key_mark = value, place
            else:
                self.key(parent, value, place)  # a key of another type, a duplicate, text not ASCII: checked there
        elif parent.key is _MERGE_KEY:
            self.value(parent, value, place)
        else:
            key, parent.key = parent.key, None
            parent.data[key], parent.marks[key], parent.key_marks[key] = value, place, parent.key_mark

    def resolved(self, value: str, implicit: tuple[bool, bool]) -> str:
        """The tag of an untagged scalar; the same keys and words recur on every card, so each is resolved
        by PyYAML's patterns once per file."""
        key = (value, implicit)
        tag = self.tags.get(key)
        if tag is None:
            resolvable = resolver_input(value)
            tag = _STR if resolvable is None else self.loader.resolve(yaml.ScalarNode, resolvable, implicit)
            if len(self.tags) < 4096:
                self.tags[key] = tag
        return tag

    def construct(self, tag: str, event: yaml.ScalarEvent, mark: Mark) -> object:
        """The scalar's value. Text and plain decimal numbers, nearly every value of a card file, are read
        here directly; PyYAML's constructor reads the rest (octal, hex, sexagesimal, floats, dates)."""
        text = event.value
        if tag == _STR:
            return text
        if tag == _INT and text.isdigit() and (text[0] != "0" or len(text) == 1) and len(text) < 19:
            return int(text)
        if tag in _NUMBER_TAGS and len(text) > MAX_NUMBER_DIGITS:
            raise number_too_long(mark)  # before PyYAML reads it: a long base-60 number takes it minutes
        # the stubs type a node's marks as the pure-Python parser's; the C parser's serve the same
        node = yaml.ScalarNode(tag, text, event.start_mark, event.end_mark, event.style)  # type: ignore[arg-type]
        try:
            value = self.loader.construct_object(node, deep=True)
        except yaml.YAMLError as e:
            raise LoadError(f"malformed value: {getattr(e, 'problem', e)}", mark) from None
        except Exception:  # a date that is no date (2001-13-01), a base-60 float past range; and text an explicit
            # tag calls a number, date or truth value that PyYAML's constructor cannot even start on (!!int "",
            # !!bool maybe, !!timestamp foo: IndexError, KeyError, AttributeError inside it)
            raise LoadError(f"{shown(text)} is written as a number, date or yes/no but is not one; quote it to keep "
                            "it as text", mark) from None
        if type(value) is int and not -_HUGE < value < _HUGE:
            raise number_too_long(mark)  # hex, binary and base 60 write many digits in few characters
        if event.tag is None and tag in _PLAIN_NUMBER_TAGS:
            _refuse_yaml11_only_number(text, value, mark)
        return value

    def alias(self, event: yaml.AliasEvent) -> None:
        mark = _mark(self.file, event.start_mark, self.lines)
        if event.anchor not in self.anchors:
            name = shortened(str(event.anchor), QUOTE_LIMIT)  # (a name of 5,000 characters was quoted whole, twice)
            raise LoadError(f"alias '*{name}' names no anchor '&{name}' above it", mark)
        value, size = self.anchors[event.anchor]
        if value is _UNFINISHED:
            raise LoadError("recursive YAML alias: a value contains itself", mark)
        written = self.anchors_written.get(event.anchor)
        if written is not None and type(value) in (int, float):
            self.add_written(value, mark, written)
            return
        if isinstance(value, Record) and self.stack and not self.stack[-1].is_map:
            # an item of a list repeated by its alias is an item of its own, said where the alias lies: a table's
            # item `- *scout` was said as a duplicate of itself, both at the anchor
            value = Record._made(dict(value._data), dict.fromkeys(value._data, mark),
                                 dict.fromkeys(value._data, mark), mark)
        self.add(value, size, mark)

    def start(self, event: yaml.CollectionStartEvent) -> None:
        mark = _mark(self.file, event.start_mark, self.lines)
        tag = event.tag or ("tag:yaml.org,2002:map" if isinstance(event, yaml.MappingStartEvent)
                            else "tag:yaml.org,2002:seq")
        self.allowed(tag, mark)
        if len(self.stack) >= MAX_DEPTH:
            raise LoadError(f"lists and mappings nested more than {MAX_DEPTH} deep", mark)
        if event.anchor is not None:
            self.anchors[event.anchor] = (_UNFINISHED, 0)
        self.stack.append(_Collection(isinstance(event, yaml.MappingStartEvent), mark, event.anchor,
                                      bool(event.flow_style)))

    def end(self, event: yaml.CollectionEndEvent) -> None:
        done = self.stack.pop()
        value: Record | MarkedList
        if done.is_map:
            value = Record._made(done.data, done.marks, done.key_marks, done.mark, done.written, done.keys_written)
            for base, base_mark in done.merges:  # '<<: *base' fills in keys the mapping does not set itself
                self.merge(value, base, base_mark)
        else:
            value = MarkedList(done.items, done.marks, done.mark, done.written)
        self.anchor(done.anchor, value, done.size)
        self.add(value, done.size, done.mark)

    def anchor(self, name: str | None, value: Any, size: int, written: str | None = None) -> None:
        """Name `value` (of `size` values; a number written as `written` where that prints otherwise)."""
        if name is not None:
            self.anchors[name] = (value, size)
            if written is None:
                self.anchors_written.pop(name, None)  # (a name anchored again names the new value)
            else:
                self.anchors_written[name] = written

    def allowed(self, tag: str, mark: Mark) -> None:
        if tag not in _ALLOWED_TAGS:
            raise LoadError(f"YAML tag '{shortened(tag, QUOTE_LIMIT)}' is not allowed: pnp data is plain text, numbers, lists and "
                            "mappings", mark)

    def add(self, value: Any, size: int, mark: Place) -> None:
        self.expanded += size
        if self.expanded > self.limit:
            raise LoadError(f"YAML data expands to {self.too_many}, each counted in every list and mapping "
                            "around it and aliases as what they repeat (an alias bomb, or far more data than a "
                            "game needs?); refusing to load", self.mark(mark))
        if not self.stack:
            self.root = value
            return
        parent = self.stack[-1]
        parent.size += size
        if not parent.is_map:
            parent.items.append(value)
            parent.marks.append(mark)
        elif parent.key is None:
            self.key(parent, value, mark)
        else:
            self.value(parent, value, mark)

    def key(self, parent: _Collection, key: Any, mark: Place) -> None:
        # a null key (`~:`, `null:`) too: None is what `parent.key` holds while a key is awaited, so the value
        # after it was taken for the next key and every key and value of the mapping after it swapped places
        if key is None or type(key) is not str and isinstance(key, (Record, list)):  # (Record's is an ABC's: slow)
            raise LoadError("a mapping key must be plain text or a number", self.mark(mark))
        if key in parent.data:
            raise LoadError(self.duplicate(parent, key), self.mark(mark))
        if type(key) is str and not key.isascii():
            self.refuse_alike(parent, key, mark)
        if key is _MERGE_KEY:  # a second '<<' of a mapping, which YAML readers take in either order (PyYAML
            # the last's keys over the first's, pnp the first's: `<<: *base` then `<<: {power: 2}` kept the base's)
            if parent.merge_key_mark is not None:
                raise LoadError(f"duplicate key '<<' (first at line {self.mark(parent.merge_key_mark).line}): merge "
                                "several mappings with one '<<: [*first, *second]', the first's keys over the "
                                "others'", self.mark(mark))
            parent.merge_key_mark = mark
        parent.key, parent.key_mark = key, mark

    def refuse_alike(self, parent: _Collection, key: str, mark: Place) -> None:
        """LoadError where text `key` (not ASCII) of mapping `parent` is one before it written in another Unicode
        form (a composed 'é' and 'e' with a combining accent): two fields, enums or keys of a record that print
        alike were taken as two, and data typed one way reached one of them alone."""
        forms = parent.forms if parent.forms is not None else {}
        parent.forms = forms
        before = forms.setdefault(unicodedata.normalize("NFC", key), key)
        if before != key:
            first = parent.key_marks.get(before)
            at = f" at line {self.mark(first).line}" if first is not None else ""
            raise LoadError(f"key {shown(key)} is {shown(before)}{at} written in another Unicode form "
                            "(they print alike, and pnp would read two keys): keep one, typed one way",
                            self.mark(mark))

    def duplicate(self, parent: _Collection, key: Any) -> str:
        """The message for `key`, read again in a mapping, each key quoted as written: YAML's `1` and `true` (or
        `1` and `1.0`) are two keys, which pnp reads as one number and cannot hold both (said as 'True')."""
        first = parent.key_marks[key]
        assert first is not None  # a key's mark is set with the key
        line = self.mark(first).line
        this = self.key_written if self.key_written is not None else str(key)
        before = next((str(k) if parent.keys_written is None or k not in parent.keys_written
                       else parent.keys_written[k] for k in parent.data if k == key), str(key))
        if this == before:
            return f"duplicate key {shown(this)} (first at line {line})"
        return (f"key {shown(this)} is read as the same key as {shown(before)} at line {line} (pnp takes true as 1, "
                "false as 0 and 1.0 as 1, and a mapping holds a key once): keep one, or quote them to make them text")

    def value(self, parent: _Collection, value: Any, mark: Place) -> None:
        key, parent.key = parent.key, None
        if key is _MERGE_KEY:
            parent.merges.append((value, mark))
            return
        parent.data[key], parent.marks[key], parent.key_marks[key] = value, mark, parent.key_mark

    @staticmethod
    def merge(record: Record, base: Any, mark: Place) -> None:
        bases: list[Any] = base if isinstance(base, list) else [base]
        for one in bases:
            if not isinstance(one, Record):
                raise LoadError("'<<' merges a mapping (or a list of them)", place_mark(mark, record.mark))
            for k in one:
                if k not in record._data:
                    record._data[k], record._marks[k], record._key_marks[k] = one[k], one.mark_of(k), one.key_mark(k)
                    if (written := one.written_of(k)) is not None:
                        record._written = {**(record._written or {}), k: written}
                    if (key_written := one.key_written(k)) is not None:  # (a merged `0x10:` was said 16)
                        record._keys_written = {**(record._keys_written or {}), k: key_written}


_HANDLERS: dict[type[yaml.Event], Callable[[Any, Any], None]] = {
    yaml.DocumentStartEvent: _Builder.document,
    yaml.ScalarEvent: _Builder.scalar,
    yaml.AliasEvent: _Builder.alias,
    yaml.SequenceStartEvent: _Builder.start,
    yaml.MappingStartEvent: _Builder.start,
    yaml.SequenceEndEvent: _Builder.end,
    yaml.MappingEndEvent: _Builder.end,
}


def load_text(text: str, file: str) -> Any:
    """Parse YAML text; `file` is the name used in marks. Raises LoadError with a mark."""
    return counted_load(text, file)[0]


def counted_load(text: str, file: str) -> tuple[Any, int]:
    """load_text's (value, how many values it holds, aliases expanded): what keeping it costs."""
    builder = _built(text, file)
    return builder.root, builder.expanded


def _built(text: str, file: str, lines: int = 0) -> "_Builder":
    """The builder that read `text` (its root, its count of values, its anchors); `lines`: the lines of the
    file above the text, parsed alone (ParsedFiles._spliced)."""
    if len(text) > MAX_FILE_BYTES:
        raise LoadError(f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB", Mark(file))
    if unseen := UNSEEN_LINE_BREAK.search(text):
        raise LoadError(f"character {_character(ord(unseen.group()))} is not allowed in YAML text: YAML reads it as "
                        "the end of a line, which an editor does not show (every line after it would be "
                        "numbered wrong); use a plain line break or a space", _position_mark(file, text, unseen.start()))
    loader = _Loader(text)
    builder = _Builder(loader, file, text, lines)
    try:
        _build(builder, text, file)
    except LoadError:
        # what was read counts, refused or not (a read is spent by its caller): one file read as 200 tables, past
        # the game's values or malformed at its end, was read again for each up to there (28 s, 31 s)
        spend_values(builder.expanded)
        raise
    finally:
        loader.dispose()
    return builder


def _build(builder: "_Builder", text: str, file: str) -> None:
    """builder.build(), its parser's errors made LoadError at their place in `text`."""
    try:
        builder.build()
    except yaml.MarkedYAMLError as e:
        m = e.problem_mark or e.context_mark
        if e.context_mark is not None and m is not None and not text[m.index:].strip():
            m = e.context_mark  # (a quote or bracket nothing closes was said at the file's last line, where the
            # parser ran out of text: said where it opens)
        problem = " ".join(p for p in (e.context, e.problem) if p)
        raise LoadError(*_malformed(text, file, m, problem)) from None
    except yaml.reader.ReaderError as e:  # a character YAML does not allow (NUL, another control character)
        raise LoadError(f"malformed YAML: character {_character(e.character)} is not allowed in YAML text",
                        _position_mark(file, text, e.position)) from None
    except yaml.YAMLError as e:
        raise LoadError(f"malformed YAML: {e}", Mark(file)) from None


def _malformed(text: str, file: str, m: _ParserMark | None, problem: str) -> tuple[str, Mark]:
    """The message and mark of a parser's error `problem` at `m`, in pnp's words where libyaml's name no cause."""
    said = _MALFORMED_AT.get(_character_at(text, m)) if m is not None else None
    if said is not None:  # (libyaml said "found character that cannot start any token" or "found unknown
        # escape character", not which)
        problem = said
    elif m is not None and (cut := _lone_return_before(text, m)):  # said at the carriage return
        return f"malformed YAML: {cut[0]}", _position_mark(file, text, cut[1])
    elif m is not None and (unseen := _unseen_before(text, m)):
        problem = f"{problem} ({unseen})"
    return f"malformed YAML: {problem}", _mark(file, m)


# what is wrong where a file is malformed at one of these characters, said in pnp's words: libyaml's named none
_MALFORMED_AT = {
    "\t": "a tab here, where YAML takes spaces only (it indents with spaces, never tabs)",
    "\\": "a backslash inside double quotes begins an escape (\\n, \\x41), and this is none: write '\\\\' for "
          "a backslash, put the text in single quotes, or write a path with '/' (images/lion.png)",
    "@": "'@' cannot begin a value YAML reads unquoted (YAML reserves it): put the text in quotes",
    "`": "'`' cannot begin a value YAML reads unquoted (YAML reserves it): put the text in quotes",
}


def _character_at(text: str, m: _ParserMark) -> str:
    """The character at a parser's line and column of `text` ("" past its line's end): its index is counted
    otherwise where the text begins with a byte order mark."""
    lines = _LINE_BREAK.split(text, maxsplit=m.line + 1)
    return lines[m.line][m.column:m.column + 1] if m.line < len(lines) else ""


_COMMENT = re.compile(r"(?:^|\s)#")


def _lone_return_before(text: str, m: _ParserMark) -> tuple[str, int] | None:
    """What went wrong where a parser's error is just after a line a carriage return alone ended, in a file whose
    other lines end in a line feed: YAML ends a line there (and a comment: the rest of it was read as data), an
    editor may show it as '^M' on one line, and the error was said in libyaml's words ("did not find expected '-'
    indicator", "could not find expected ':'") at the line after: (what, the carriage return's index), else None."""
    if "\n" not in text:  # (a file of an old Mac's line breaks throughout: its lines are as an editor shows them)
        return None
    breaks = list(itertools.islice(_LINE_BREAK.finditer(text), m.line))
    near = [k for k in range(max(0, len(breaks) - 3), len(breaks)) if breaks[k].group() == "\r"]
    if not near:
        return None
    k = near[-1]
    start = breaks[k - 1].end() if k else 0
    # (a '#' in quotes is taken for a comment too: the message still names the carriage return that cut the line)
    ended = "it ends the comment there, and YAML reads the rest of it as data" \
        if _COMMENT.search(text[start:breaks[k].start()]) else "YAML ends the line there"
    return (f"a carriage return alone (U+000D, not followed by a line feed) ends this line, where an editor may show "
            f"'^M': {ended}; delete it, or make it a plain line break", breaks[k].start())


def _unseen_before(text: str, m: _ParserMark) -> str:
    """What an editor does not show of the line a parser's error is on, up to its column: a character that
    prints nothing there (a byte order mark at a line's start, where two files saved with one were joined, is
    to YAML a character of the line, and its error "did not find expected '-' indicator" pointed at a '-'),
    else ""."""
    lines = _LINE_BREAK.split(text, maxsplit=m.line + 1)
    line = lines[m.line] if m.line < len(lines) else ""
    # (in its indentation, where it breaks the structure: in a value's words it is one of them; and not the
    # byte order mark a file may begin with, which YAML reads as none)
    start = 1 if m.line == 0 and line[:1] == "\ufeff" else 0
    indented = _INDENTATION.match(line, start)  # (never None: it matches nothing as well)
    found = PRINTS_NOTHING.search(line, start, min(indented.end() if indented else start, m.column + 1))
    if found is None:
        return ""
    return (f"column {found.start() + 1} holds the character {_character(ord(found.group()))}, which an editor "
            "shows as nothing: delete it")


_INDENTATION = re.compile(rf"(?:\s|{PRINTS_NOTHING.pattern})*")
_LINE_BREAK = re.compile("\r\n|\r|\n")  # (the line breaks YAML reads that an editor shows: see UNSEEN_LINE_BREAK)


# YAML 1.1, which PyYAML reads, ends a line at NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR too: one of them in a
# comment ended it there (the rest was read as data), and every mark after it named a line the editor does not
UNSEEN_LINE_BREAK = re.compile("[\x85\u2028\u2029]")


def _character(code: object) -> str:
    return f"U+{code:04X}" if isinstance(code, int) else repr(code)


def _position_mark(file: str, text: str, position: int) -> Mark:
    """The line and column of the character at `position` in `text`, its lines ended as YAML and editors end them:
    at \n, \r\n or \r alone (a file of an old Mac's line breaks had its every mark said on line 1)."""
    position = min(max(position, 0), len(text))
    line = text.count("\n", 0, position) + text.count("\r", 0, position) - text.count("\r\n", 0, position)
    return Mark(file, line + 1, position - max(text.rfind("\n", 0, position), text.rfind("\r", 0, position)))


def check_file(path: Path, shown_as: str, beneath: Path | None = None) -> None:
    """LoadError unless `path` is an ordinary readable file of at most MAX_FILE_BYTES (every data file, YAML
    or not). `beneath`, here and in load_file and load_data_file: the project's folder, for a `path` that
    Project.inside found there, opened as it was checked (open_project_file: a folder swapped for a link since
    leads nowhere, not outside)."""
    open_project_file(path, MAX_FILE_BYTES, Mark(shown_as), beneath=beneath).close()


def load_file(path: Path, shown_as: str, beneath: Path | None = None) -> Any:
    """Load a YAML file; raises LoadError (a missing or unreadable file included)."""
    try:
        raw = read_project_file(path, MAX_FILE_BYTES, Mark(shown_as), beneath=beneath)
    except OSError as e:
        raise LoadError(f"cannot read: {why_not_read(e)}", Mark(shown_as)) from None
    return load_bytes(raw, shown_as)


def load_bytes(raw: bytes, shown_as: str) -> Any:
    """A YAML file's bytes, already read (`raw`), parsed: a caller that digests a file parses the bytes it
    digested, never a second read of a file changed in between; raises LoadError as load_file does."""
    try:
        return load_text(utf8_text(raw, shown_as), shown_as)
    except Exception as e:
        blame(e, Mark(shown_as))
        raise


class ParsedFiles:
    """The data files read lately, by name and digest of their bytes: a save re-parses only the files that
    changed (the preview's refreshes, a command checking a game again in one process). What is kept is what
    load_text built, which nothing changes after loading (Records are read-only; tables are new lists of
    them), so one parse serves every load of the same bytes. Bounded by the values kept (MAX_VALUES) and by
    the bytes of the texts they were parsed from (MAX_BYTES)."""

    # values of all the parses kept, as the loader counts them (each in every list and mapping around it):
    # 10,000 cards of 4 fields count 260,000 and take about 20 MB; DinoSpan's tables 45,000. A file counting
    # more is parsed every time
    MAX_VALUES = 1_000_000
    # ... and a text-heavy file holds its text: 40 files of one 19 MB text each kept 800 MB (a preview refreshed
    # on every save of such a file, one process validating many games). DinoSpan's tables are 0.3 MB
    MAX_BYTES = 64 << 20

    def __init__(self) -> None:
        # (shown name, sha256 of the bytes) -> (values, bytes, parsed value), oldest first
        self._kept: OrderedDict[tuple[str, bytes], tuple[int, int, Any]] = OrderedDict()
        self._size, self._bytes, self._lock = 0, 0, threading.Lock()  # values and bytes kept
        self.parsed = self.reused = 0  # files parsed and loads served from here, since the process started
        self.spliced = 0  # of the files parsed, those whose one edited item alone was parsed (_spliced)
        # shown name -> (the key in _kept of the last parse of that file, its bytes): what an edit is spliced
        # into, while that parse is kept (so the bytes held are bounded as the texts kept are)
        self._last: dict[str, tuple[tuple[str, bytes], bytes]] = {}

    def load(self, raw: bytes, shown_as: str) -> Any:
        """The value of a data file's bytes `raw`, parsed now or kept from an earlier load of the same bytes;
        raises LoadError as load_text does (a refusal is not kept: it is said again, at its line)."""
        key = (shown_as, hashlib.sha256(raw).digest())
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                if found[0] <= values_left(MAX_EXPANDED_VALUES)[0]:
                    self.reused += 1
                    spend_values(found[0])
                    return found[2]
        # (a kept parse past what is left of the game's allowance is parsed again: refused at its line)
        with self._lock:
            last = self._last.get(shown_as)
            kept = self._kept.get(last[0]) if last is not None else None
        spliced = _spliced((last[1], kept[2], kept[0]), raw, shown_as) if last is not None and kept is not None \
            else None
        if spliced is not None and spliced[1] <= values_left(MAX_EXPANDED_VALUES)[0]:
            (value, size), spliceable = spliced, True
        else:
            value, size, spliceable = _plain_parse(raw, shown_as)
            spliced = None
        spend_values(size)
        with self._lock:
            self.parsed += 1
            self.spliced += spliced is not None
            self._keep(key, raw, value, size, spliceable)
        return value

    def _keep(self, key: tuple[str, bytes], raw: bytes, value: Any, size: int, spliceable: bool) -> None:
        """Keep a parse (under the lock), the oldest let go past the bounds; and, `spliceable`, as its file's
        last for an edit to be spliced into."""
        self._last.pop(key[0], None)
        if size <= self.MAX_VALUES and len(raw) <= self.MAX_BYTES and key not in self._kept:
            self._kept[key] = (size, len(raw), value)
            self._size, self._bytes = self._size + size, self._bytes + len(raw)
            while self._size > self.MAX_VALUES or self._bytes > self.MAX_BYTES:
                gone, (dropped, dropped_bytes, _) = self._kept.popitem(last=False)
                self._size, self._bytes = self._size - dropped, self._bytes - dropped_bytes
                if self._last.get(gone[0], (None,))[0] == gone:
                    del self._last[gone[0]]
        if spliceable and key in self._kept:
            self._last[key[0]] = (key, raw)


PARSED = ParsedFiles()  # one per process: the table files of every game it loads


def _plain_parse(raw: bytes, shown_as: str) -> tuple[Any, int, bool]:
    """(value, values, whether a later edit may be spliced into it) of a data file's bytes parsed whole: not
    with anchors, directives or line breaks other than \\n (_spliced)."""
    builder = _built(_decoded(raw, shown_as), shown_as)
    spliceable = not builder.anchors and _plain_lines(raw) and not raw.lstrip(b"\xef\xbb\xbf").startswith(b"%") \
        and b"\n%" not in raw
    return builder.root, builder.expanded, spliceable


def _plain_lines(raw: bytes) -> bool:
    """Whether text breaks its lines by \\n alone (YAML also breaks them at \\r, U+0085, U+2028 and U+2029)."""
    return not any(mark in raw for mark in (b"\r", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9"))


def _common_ends(old: bytes, new: bytes) -> tuple[int, int]:
    """(bytes the two begin with alike, bytes they end with alike after those), halving the stretch compared
    (slices are compared by memcmp: a few dozen comparisons for a file of tables)."""
    most = min(len(old), len(new))
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    lo, hi = 0, most - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:] == new[len(new) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return prefix, lo


def _spliced(last: tuple[bytes, Any, int], raw: bytes, shown_as: str) -> tuple[Any, int] | None:
    """(value, values) of new bytes of a file that differ from its last parse's (`last`) within one item of its
    top-level list, written as `- ...` from the line's start, its lines as many as they were: that item's lines
    parsed alone (marks set below the lines above it) and put in place of the old one, the other items as they
    were. None when the edit is not such (the file is parsed whole: its messages are a whole parse's).
    The item's text alone reads as it does in the file: the lines above end the item before it at a `- ` at
    the line's start, as they did; the edit's lines start with a space or a comment (no `---`, `...`, `- `
    or key there), and the file has no anchors (an alias in another item would read it) nor directives."""
    old, value, size = last
    if not isinstance(value, MarkedList) or not value or not _plain_lines(raw):
        return None
    starts = [_place_line(place) - 1 for place in value.marks if place is not None]  # each item's line, from 0
    if len(starts) != len(value):
        return None
    found = _edited_item(old, raw, starts)
    if found is None:
        return None
    k, begin, end = found
    before, after = old[begin:end], raw[begin:end + len(raw) - len(old)]
    if not before.startswith(b"- ") or not after.startswith(b"- ") or \
            any(line[:1] not in (b"", b" ", b"#") for line in after.split(b"\n")[1:]):
        return None
    was, now = _item_alone(before, shown_as, starts[k]), _item_alone(after, shown_as, starts[k])
    if was is None or now is None:
        return None
    items = MarkedList([*value[:k], now.root[0], *value[k + 1:]], [*value.marks[:k], now.root.marks[0],
                                                                     *value.marks[k + 1:]], value.mark)
    return items, size - was.expanded + now.expanded


def _edited_item(old: bytes, raw: bytes, starts: list[int]) -> tuple[int, int, int] | None:
    """(which item, the byte its lines begin at, the byte after them in `old`) of the one item of a list whose
    items begin at lines `starts` (from 0) that holds every difference of `raw` from `old`, its lines as many;
    None when there is no such item."""
    prefix, suffix = _common_ends(old, raw)
    old_end, new_end = len(old) - suffix, len(raw) - suffix
    if old.count(b"\n", prefix, old_end) != raw.count(b"\n", prefix, new_end):
        return None
    first, last_line = old.count(b"\n", 0, prefix), old.count(b"\n", 0, old_end)
    k = bisect.bisect_right(starts, first) - 1
    if k < 0 or k + 1 < len(starts) and last_line >= starts[k + 1]:
        return None
    lines = [0] + [m.end() for m in re.finditer(b"\n", old)]  # each line's first byte
    return k, lines[starts[k]], lines[starts[k + 1]] if k + 1 < len(starts) else len(old)


def _item_alone(text: bytes, shown_as: str, line: int) -> "_Builder | None":
    """The builder of one item's lines parsed alone, `line` lines below the file's start: None unless they read
    as a list of that one item, at the line's third column, without anchors."""
    try:
        built = _built(text.decode(), shown_as, line)
    except (LoadError, UnicodeDecodeError):  # the whole file's parse says where
        return None
    root = built.root
    first = root.mark_of(0) if isinstance(root, MarkedList) and len(root) == 1 and root.marks[0] is not None \
        else None
    if built.anchors or first is None or (first.line, first.col) != (line + 1, 3):
        return None
    return built


def _decoded(raw: bytes, shown_as: str) -> str:
    """A data file's bytes as text; LoadError at the first character that is not UTF-8."""
    return utf8_text(raw, shown_as)


def load_data_file(path: Path, shown_as: str, beneath: Path | None = None) -> Any:
    """load_file for a game's data files (game.yaml, its rules and tables), through PARSED: the same bytes are
    parsed once per process."""
    try:
        raw = read_project_file(path, MAX_FILE_BYTES, Mark(shown_as), beneath=beneath)
    except OSError as e:
        raise LoadError(f"cannot read: {why_not_read(e)}", Mark(shown_as)) from None
    try:
        return PARSED.load(raw, shown_as)
    except Exception as e:
        blame(e, Mark(shown_as))
        raise
