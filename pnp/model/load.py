"""Safe YAML loading that keeps the file:line:col of every value and refuses object tags, alias bombs,
deep nesting, huge numbers and huge files."""

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol

import yaml

from ..errors import LoadError
from ..options import plain, shown  # noqa: F401  (the model's callers import them from here)
from ..project import open_project_file, read_project_file
from ..report import Mark

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
_STR, _INT = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int"
# YAML 1.1 reads a bare '<<' (outside a key) and '=' as these tags, which build nothing: they are text
_TEXT_ALIKE = {_MERGE, "tag:yaml.org,2002:value"}
# Read as numbers or dates by PyYAML's constructor, whose time grows with the length (base 60 squarely)
_NUMBER_TAGS = {_INT, "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp"}
# The first characters of plain scalars the loader's resolver may read as something else than text (numbers,
# yes/no, null, dates, '<<', '='): any other plain scalar is text, as its resolver would find after trying
# none of its patterns. Without that table (a resolver with patterns for any character) every one is resolved
_TYPED_STARTS: frozenset[str] | None = frozenset(_Loader.yaml_implicit_resolvers) \
    if None not in _Loader.yaml_implicit_resolvers and not _Loader.yaml_path_resolvers else None
MAX_NUMBER_DIGITS = 4300  # Python's own cap on reading a decimal int; pnp holds every notation to it
_HUGE = 10**MAX_NUMBER_DIGITS
_MERGE_KEY = object()  # stands for '<<' while a mapping is built
MAX_EXPANDED_VALUES = 1_000_000  # values after aliases are expanded: refuses a "billion laughs"
# ... and of all a game's data files together (game.yaml, its rules and tables; see values_allowance): each is
# checked item by item, so validating takes time in proportion. 10,000 cards of four fields count 260,000 and
# validate in about 2 s; a game of 55,000 such cards (several files, each under the cap above) took over 8 s
MAX_GAME_VALUES = 400_000
_ALLOWANCE: ContextVar[list[int] | None] = ContextVar("pnp_game_values_left", default=None)


@contextmanager
def values_allowance() -> Iterator[None]:
    """Data files loaded inside share MAX_GAME_VALUES values: the one passing it is refused at the line where
    it does (its own cap, MAX_EXPANDED_VALUES, still holds)."""
    token = _ALLOWANCE.set([MAX_GAME_VALUES])
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
MAX_DEPTH = 100  # nesting of lists and mappings (the parser itself would crash far deeper)
# libyaml reads up to a line ahead of the values it has handed over and stops at its own depth cap (1000
# in PyYAML 6.0.4); so much of that line is read again to find where pnp's cap was passed first
_MAX_RESCAN_CHARS = 100_000
MAX_FILE_BYTES = 20 * 1024 * 1024


class Record(Mapping[Any, Any]):
    """A YAML mapping: read-only, remembers where each key and value was written. Keys are text or numbers,
    values whatever the data holds (game-defined)."""

    __slots__ = ("_data", "_marks", "_key_marks", "mark")

    def __init__(self, data: Mapping[Any, Any] | None = None, marks: Mapping[Any, Mark | None] | None = None,
                 key_marks: Mapping[Any, Mark | None] | None = None, mark: Mark | None = None) -> None:
        self._data: dict[Any, Any]
        self._marks: dict[Any, Mark | None]
        self._key_marks: dict[Any, Mark | None]
        self.mark: Mark | None
        self._data = dict(data or {})
        self._marks = dict(marks or {})
        self._key_marks = dict(key_marks or {})
        self.mark = mark

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

    def __repr__(self) -> str:
        return f"Record({self._data!r})"

    @classmethod
    def _made(cls, data: dict[Any, Any], marks: dict[Any, Mark | None], key_marks: dict[Any, Mark | None],
              mark: Mark | None) -> "Record":
        """A Record owning the dicts given (the loader's fresh ones): no copies."""
        record = cls.__new__(cls)
        record._data, record._marks, record._key_marks, record.mark = data, marks, key_marks, mark
        return record

    def mark_of(self, key: Any) -> Mark | None:
        """Where the value of `key` was written (or the mapping itself when the key is absent)."""
        return self._marks.get(key) or self.mark

    def key_mark(self, key: Any) -> Mark | None:
        return self._key_marks.get(key) or self.mark

    def with_values(self, extra: Mapping[Any, Any], mark: Mark | None = None) -> "Record":
        """A copy with more (computed) fields; computed fields point at `mark`."""
        data = {**self._data, **extra}
        marks = {**{k: mark or self.mark for k in extra}, **self._marks}
        return Record(data, marks, self._key_marks, self.mark)

    def merged_over(self, base: "Record") -> "Record":
        """This mapping's keys over `base`'s, each keeping the mark of the file it came from."""
        return Record({**base._data, **self._data}, {**base._marks, **self._marks},
                      {**base._key_marks, **self._key_marks}, self.mark)


class MarkedList(list[Any]):
    """A YAML sequence that remembers where each item was written."""

    __slots__ = ("marks", "mark")

    def __init__(self, items: Iterable[Any] = (), marks: Iterable[Mark | None] | None = None,
                 mark: Mark | None = None) -> None:
        super().__init__(items)
        self.marks: list[Mark | None] = list(marks or [])
        self.mark = mark

    def mark_of(self, index: int) -> Mark | None:
        return self.marks[index] if index < len(self.marks) else self.mark




class _ParserMark(Protocol):
    """A position as PyYAML's parsers give it (the pure-Python and the C parser have a class each)."""

    line: int
    column: int
    index: int


def _mark(file: str, m: _ParserMark | None) -> Mark:
    """The mark of a parser's 0-based position (the file itself when the parser gives none)."""
    return Mark(file, m.line + 1, m.column + 1) if m else Mark(file)


def _too_long(mark: Mark) -> LoadError:
    return LoadError(f"a number of more than {MAX_NUMBER_DIGITS:,} digits cannot be read", mark)


class _Collection:
    """A list or mapping being built from parser events."""

    __slots__ = ("is_map", "flow", "mark", "anchor", "size", "items", "marks", "data", "key_marks", "key",
                 "key_mark", "merges")

    def __init__(self, is_map: bool, mark: Mark, anchor: str | None, flow: bool = False) -> None:
        self.is_map, self.flow, self.mark, self.anchor, self.size = is_map, flow, mark, anchor, 1
        self.items: list[Any] = []
        # a mapping's marks by key, a list's by index
        self.marks: Any = {} if is_map else []
        self.data: dict[Any, Any] = {}
        self.key_marks: dict[Any, Mark | None] = {}
        self.key: Any = None
        self.key_mark: Mark | None = None
        self.merges: list[tuple[Any, Mark]] = []


class _Builder:
    """Turns the parser's event stream into Records and MarkedLists without recursion, so no nesting can
    overflow a stack; counts every value an alias expands to."""

    def __init__(self, loader: yaml.SafeLoader | yaml.CSafeLoader, file: str, text: str = "") -> None:
        self.loader, self.file, self.text = loader, file, text
        # name -> (value, expanded size); value None while it is still being built
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.stack: list[_Collection] = []
        self.expanded, self.documents = 0, 0
        self.limit, self.too_many = values_left(MAX_EXPANDED_VALUES)
        self.root: Any = None
        self.tags: dict[tuple[str, tuple[bool, bool]], str] = {}  # (scalar, implicit) -> tag

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

    def scalar(self, event: yaml.ScalarEvent) -> None:
        start = event.start_mark
        assert start is not None  # (the parser marks every event)
        mark = Mark(self.file, start.line + 1, start.column + 1)
        tag = event.tag
        if tag is None:
            implicit = event.implicit  # (plain, quoted): an untagged quoted scalar is text
            tag = _STR if _TYPED_STARTS is not None and (not implicit[0] or event.value[:1] not in _TYPED_STARTS) \
                else self.resolved(event.value, implicit)
            if tag in _TEXT_ALIKE:
                if tag == _MERGE and self.stack and self.stack[-1].is_map and self.stack[-1].key is None:
                    self.add(_MERGE_KEY, 1, mark)
                    return
                tag = _STR
        elif tag == "!":
            tag = _STR
        if tag not in _ALLOWED_TAGS:
            self.allowed(tag, mark)
        value = event.value if tag == _STR else self.construct(tag, event, mark)
        if event.anchor is not None:
            self.anchor(event.anchor, value, 1)
        self.add(value, 1, mark)

    def resolved(self, value: str, implicit: tuple[bool, bool]) -> str:
        """The tag of an untagged scalar; the same keys and words recur on every card, so each is resolved
        by PyYAML's patterns once per file."""
        key = (value, implicit)
        tag = self.tags.get(key)
        if tag is None:
            tag = self.loader.resolve(yaml.ScalarNode, value, implicit)
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
            raise _too_long(mark)  # before PyYAML reads it: a long base-60 number takes it minutes
        # the stubs type a node's marks as the pure-Python parser's; the C parser's serve the same
        node = yaml.ScalarNode(tag, text, event.start_mark, event.end_mark, event.style)  # type: ignore[arg-type]
        try:
            value = self.loader.construct_object(node, deep=True)
        except (ValueError, OverflowError):  # a date that is no date (2001-13-01), a base-60 float past range
            raise LoadError(f"{shown(text)} is written as a number or date but is not one; quote it to keep it as "
                            "text", mark) from None
        except yaml.YAMLError as e:
            raise LoadError(f"malformed value: {getattr(e, 'problem', e)}", mark) from None
        if type(value) is int and not -_HUGE < value < _HUGE:
            raise _too_long(mark)  # hex, binary and base 60 write many digits in few characters
        return value

    def alias(self, event: yaml.AliasEvent) -> None:
        mark = _mark(self.file, event.start_mark)
        if event.anchor not in self.anchors:
            raise LoadError(f"alias '*{event.anchor}' names no anchor '&{event.anchor}' above it", mark)
        value, size = self.anchors[event.anchor]
        if value is None:
            raise LoadError("recursive YAML alias: a value contains itself", mark)
        self.add(value, size, mark)

    def start(self, event: yaml.CollectionStartEvent) -> None:
        mark = _mark(self.file, event.start_mark)
        tag = event.tag or ("tag:yaml.org,2002:map" if isinstance(event, yaml.MappingStartEvent)
                            else "tag:yaml.org,2002:seq")
        self.allowed(tag, mark)
        if len(self.stack) >= MAX_DEPTH:
            raise LoadError(f"lists and mappings nested more than {MAX_DEPTH} deep", mark)
        if event.anchor is not None:
            self.anchors[event.anchor] = (None, 0)
        self.stack.append(_Collection(isinstance(event, yaml.MappingStartEvent), mark, event.anchor,
                                      bool(event.flow_style)))

    def end(self, event: yaml.CollectionEndEvent) -> None:
        done = self.stack.pop()
        value: Record | MarkedList
        if done.is_map:
            value = Record._made(done.data, done.marks, done.key_marks, done.mark)
            for base, base_mark in done.merges:  # '<<: *base' fills in keys the mapping does not set itself
                self.merge(value, base, base_mark)
        else:
            value = MarkedList(done.items, done.marks, done.mark)
        self.anchor(done.anchor, value, done.size)
        self.add(value, done.size, done.mark)

    def anchor(self, name: str | None, value: Any, size: int) -> None:
        if name is not None:
            self.anchors[name] = (value, size)

    def allowed(self, tag: str, mark: Mark) -> None:
        if tag not in _ALLOWED_TAGS:
            raise LoadError(f"YAML tag '{tag}' is not allowed: pnp data is plain text, numbers, lists and "
                            "mappings", mark)

    def add(self, value: Any, size: int, mark: Mark) -> None:
        self.expanded += size
        if self.expanded > self.limit:
            raise LoadError(f"YAML data expands to {self.too_many}, each counted in every list and mapping "
                            "around it and aliases as what they repeat (an alias bomb, or far more data than a "
                            "game needs?); refusing to load", mark)
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

    def key(self, parent: _Collection, key: Any, mark: Mark) -> None:
        if type(key) is not str and isinstance(key, (Record, list)):  # (Record's check is an ABC's: slow)
            raise LoadError("a mapping key must be plain text or a number", mark)
        if key in parent.data:
            first = parent.key_marks[key]
            assert first is not None  # a key's mark is set with the key
            raise LoadError(f"duplicate key '{key}' (first at line {first.line})", mark)
        parent.key, parent.key_mark = key, mark

    def value(self, parent: _Collection, value: Any, mark: Mark) -> None:
        key, parent.key = parent.key, None
        if key is _MERGE_KEY:
            parent.merges.append((value, mark))
            return
        parent.data[key], parent.marks[key], parent.key_marks[key] = value, mark, parent.key_mark

    @staticmethod
    def merge(record: Record, base: Any, mark: Mark) -> None:
        bases: list[Any] = base if isinstance(base, list) else [base]
        for one in bases:
            if not isinstance(one, Record):
                raise LoadError("'<<' merges a mapping (or a list of them)", mark)
            for k in one:
                if k not in record._data:
                    record._data[k], record._marks[k], record._key_marks[k] = one[k], one.mark_of(k), one.key_mark(k)


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
    return _counted_load(text, file)[0]


def _counted_load(text: str, file: str) -> tuple[Any, int]:
    """load_text's (value, how many values it holds, aliases expanded): what keeping it costs."""
    if len(text) > MAX_FILE_BYTES:
        raise LoadError(f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB", Mark(file))
    if unseen := _UNSEEN_LINE_BREAK.search(text):
        raise LoadError(f"character {_character(ord(unseen.group()))} is not allowed in YAML text: YAML reads it as "
                        "the end of a line, which an editor does not show (every line after it would be "
                        "numbered wrong); use a plain line break or a space", _position_mark(file, text, unseen.start()))
    loader = _Loader(text)
    try:
        builder = _Builder(loader, file, text)
        return builder.build(), builder.expanded
    except yaml.MarkedYAMLError as e:
        m = e.problem_mark or e.context_mark
        problem = " ".join(p for p in (e.context, e.problem) if p)
        raise LoadError(f"malformed YAML: {problem}", _mark(file, m)) from None
    except yaml.reader.ReaderError as e:  # a character YAML does not allow (NUL, another control character)
        raise LoadError(f"malformed YAML: character {_character(e.character)} is not allowed in YAML text",
                        _position_mark(file, text, e.position)) from None
    except yaml.YAMLError as e:
        raise LoadError(f"malformed YAML: {e}", Mark(file)) from None
    finally:
        loader.dispose()


# YAML 1.1, which PyYAML reads, ends a line at NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR too: one of them in a
# comment ended it there (the rest was read as data), and every mark after it named a line the editor does not
_UNSEEN_LINE_BREAK = re.compile("[\x85\u2028\u2029]")


def _character(code: object) -> str:
    return f"U+{code:04X}" if isinstance(code, int) else repr(code)


def _position_mark(file: str, text: str, position: int) -> Mark:
    """The line and column of the character at `position` in `text`."""
    position = min(max(position, 0), len(text))
    return Mark(file, text.count("\n", 0, position) + 1, position - text.rfind("\n", 0, position))


def check_file(path: Path, shown_as: str) -> None:
    """LoadError unless `path` is an ordinary readable file of at most MAX_FILE_BYTES (every data file, YAML
    or not)."""
    open_project_file(path, MAX_FILE_BYTES, Mark(shown_as)).close()


def load_file(path: Path, shown_as: str) -> Any:
    """Load a YAML file; raises LoadError (a missing or unreadable file included)."""
    try:
        text = read_project_file(path, MAX_FILE_BYTES, Mark(shown_as)).decode("utf-8")
    except UnicodeDecodeError as e:
        raise LoadError(f"not UTF-8 text ({e.reason} at byte {e.start})", Mark(shown_as)) from None
    except OSError as e:
        raise LoadError(f"cannot read: {e.strerror}", Mark(shown_as)) from None
    return load_text(text, shown_as)


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
        value, size = _counted_load(_decoded(raw, shown_as), shown_as)
        spend_values(size)
        with self._lock:
            self.parsed += 1
            if size <= self.MAX_VALUES and len(raw) <= self.MAX_BYTES and key not in self._kept:
                self._kept[key] = (size, len(raw), value)
                self._size, self._bytes = self._size + size, self._bytes + len(raw)
                while self._size > self.MAX_VALUES or self._bytes > self.MAX_BYTES:
                    _, (dropped, dropped_bytes, _) = self._kept.popitem(last=False)
                    self._size, self._bytes = self._size - dropped, self._bytes - dropped_bytes
        return value


PARSED = ParsedFiles()  # one per process: the table files of every game it loads


def _decoded(raw: bytes, shown_as: str) -> str:
    """A data file's bytes as text; LoadError when they are not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LoadError(f"not UTF-8 text ({e.reason} at byte {e.start})", Mark(shown_as)) from None


def load_data_file(path: Path, shown_as: str) -> Any:
    """load_file for a game's data files (game.yaml, its rules and tables), through PARSED: the same bytes are
    parsed once per process."""
    try:
        raw = read_project_file(path, MAX_FILE_BYTES, Mark(shown_as))
    except OSError as e:
        raise LoadError(f"cannot read: {e.strerror}", Mark(shown_as)) from None
    return PARSED.load(raw, shown_as)
