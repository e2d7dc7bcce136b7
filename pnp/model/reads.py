"""What a computation read of a game's data, field by field, and what an edit changed: the dependency map that
lets the preview check again only what an edit reaches.

A read is a key:
- (table, index, field): one field of one item (`index` its place in its table);
- (table, index, MARK): where that item or one of its fields was written (a message's file:line);
- (table, index, None): anything of that item (its fields listed, the whole item compared);
- (table, MEMBERS, None): which items the table holds, in which order, by which ids (`data.T`, `ref.T`);
- (table, None, None): anything in the table (the glossary's terms, found by a name in any item);
- ((FILE, path), None, None): a file other than the data (a layout file, by its project-relative path);
- ((FILE, path), 0, SIZE): the size of the layout written in that file (what a rulebook's picture of it uses);
- ALL: anything at all (what the recorder cannot attribute).
Items read by templates are Tracked records, which note their own reads; `data` and `ref` note the tables'
membership; whatever reaches the data another way notes what it may reach. An edit's Changes are keys of the
same shapes, found by comparing a table's items before and after it (see Changes.between)."""

import threading
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, ValuesView
from typing import Any

from .load import MarkedList, Record
from .shapes import CheckerShape
from ..report import Mark

ALL = "*"  # read something that may hold any table's items
MEMBERS = -1  # the index of a table's membership read
MARK = "#mark"  # the field of an item's place in its file
FILE = "#file"  # the first part of a file's "table" name: (FILE, project-relative path)
SIZE = "#size"  # the field of a layout file's size
_MARK_SLOT = Record.__dict__["mark"]  # Record's own slot, which Tracked hides behind a property
_local = threading.local()  # the recordings in progress in this thread, innermost last
# A read (module docstring): (table, index, field), or ALL; the field may be any key the data uses.
Read = tuple[Any, Any, Any] | str


class recording:
    """`with recording() as reads:` collects the keys read inside it; an outer recording sees what an inner
    one saw."""

    def __enter__(self) -> set[Read]:
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        self.reads: set = set()
        stack.append(self.reads)
        return self.reads

    def __exit__(self, *exc: object) -> None:
        stack = _local.stack
        stack.pop()
        if stack:
            stack[-1].update(self.reads)


class _Refused(set[Read]):
    """The reads of a refusing_reads block: none may be made (each is refused with `message`)."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def add(self, key: Read) -> None:
        raise ValueError(self.message)

    def update(self, *keys: Iterable[Read]) -> None:
        raise ValueError(self.message)


class refusing_reads:
    """`with refusing_reads(message):` any read of the data inside it (a table, the components, the glossary)
    fails with ValueError(message): for work whose reads no one could note, done before the data is whole."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __enter__(self) -> None:
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(_Refused(self.message))

    def __exit__(self, *exc: object) -> None:
        _local.stack.pop()


def note(key: Read) -> None:
    """Note one read in the innermost recording (none: nobody asks)."""
    stack = getattr(_local, "stack", None)
    if stack:
        stack[-1].add(key)


def note_all(keys: Iterable[Read]) -> None:
    """Note reads made earlier (a result taken from a cache is read again, as far as its readers know)."""
    stack = getattr(_local, "stack", None)
    if stack:
        stack[-1].update(keys)


def note_files(paths: Iterable[str]) -> None:
    """These files (layouts, by project-relative path) were read."""
    stack = getattr(_local, "stack", None)
    if stack:
        stack[-1].update(((FILE, path), None, None) for path in paths)


def note_table(name: object) -> None:
    """A table's list of items (or its ids) was looked up."""
    note((name, MEMBERS, None))


class Tracked(Record):
    """An item of a table as the game's templates and checks read it: each read notes (table, index, field).
    `at` is (table, index); a copy with more fields (derived ones) is the same item."""

    __slots__ = ("_at",)
    _at: tuple[str, int]

    @classmethod
    def of(cls, record: Record, at: tuple[str, int]) -> "Tracked":
        """The item `record` at `at`, sharing its dicts (no copy)."""
        item = cls.__new__(cls)
        item._data, item._marks, item._key_marks, item._at = record._data, record._marks, record._key_marks, at
        item._written = getattr(record, "_written", None)
        _MARK_SLOT.__set__(item, _MARK_SLOT.__get__(record, Record))
        return item

    @property
    def mark(self) -> Mark | None:
        note((*self._at, MARK))
        return _MARK_SLOT.__get__(self, Record)

    @mark.setter
    def mark(self, value: Mark | None) -> None:
        _MARK_SLOT.__set__(self, value)

    def __getitem__(self, key: Any) -> Any:
        note((*self._at, key))
        return self._data[key]

    def get(self, key: Any, default: Any = None) -> Any:
        note((*self._at, key))
        return self._data.get(key, default)

    def __contains__(self, key: object) -> bool:
        note((*self._at, key))
        return key in self._data

    def __iter__(self) -> Iterator[Any]:
        note((*self._at, None))
        return iter(self._data)

    def __len__(self) -> int:
        note((*self._at, None))
        return len(self._data)

    def size_unread(self) -> int:
        """len() noting no read: how templates size what they hold (template._length_unread), pnp's own
        bookkeeping, which no printed value depends on."""
        return len(self._data)

    def __repr__(self) -> str:  # every field, printed (`item.keys` shows its item so)
        note((*self._at, None))
        return Record.__repr__(self)

    def keys(self) -> KeysView[Any]:  # (the views read every field, as iterating and printing do)
        note((*self._at, None))
        return Record.keys(self)

    def values(self) -> ValuesView[Any]:
        note((*self._at, None))
        return Record.values(self)

    def items(self) -> ItemsView[Any, Any]:
        note((*self._at, None))
        return Record.items(self)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # a slot not set yet (copying), Python's own protocols
            raise AttributeError(name)
        note((*self._at, name))
        return Record.__getattr__(self, name)

    def mark_of(self, key: Any) -> Mark | None:
        note((*self._at, MARK))
        return Record.mark_of(self, key)

    def key_mark(self, key: Any) -> Mark | None:
        note((*self._at, MARK))
        return Record.key_mark(self, key)

    def with_values(self, extra: Mapping[Any, Any], mark: Mark | None = None) -> "Tracked":
        """A copy with more fields, as Record's: its place is copied, not read (a derived value does not
        depend on the line its item starts at)."""
        own = _MARK_SLOT.__get__(self, Record)
        marks = {**{k: mark or own for k in extra}, **self._marks}
        return Tracked.of(Record._made({**self._data, **extra}, marks, self._key_marks, own,
                                       getattr(self, "_written", None)), self._at)

    def merged_over(self, base: Record) -> "Tracked":
        return Tracked.of(Record.merged_over(self, base), self._at)


def track(tables: dict[str, MarkedList]) -> None:
    """Make every item of `tables` (name -> items, in place) a Tracked record at its place."""
    for name, items in tables.items():
        for index, item in enumerate(items):
            if isinstance(item, Record) and getattr(item, "_at", None) != (name, index):
                items[index] = Tracked.of(item, (name, index))


class Tables(Mapping[str, Any]):
    """The game's tables (`data`: name -> items, or `ref`: name -> id -> item) as templates see them: looking
    one up notes its membership. The names themselves are game.yaml's, so listing them reads no data."""

    __slots__ = ("_tables",)
    keys_named = "table"  # (what a template's message calls a name missing here: template._keys_named)

    def __init__(self, tables: dict[str, Any]) -> None:
        self._tables = tables  # the game's own dict: filled in place as tables load and fields are derived

    def __getitem__(self, name: str) -> Any:
        note_table(name)
        return self._tables[name]

    def get(self, name: str, default: Any = None) -> Any:
        note_table(name)
        return self._tables.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._tables

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def __repr__(self) -> str:
        return repr(self._tables)

    # views as a dict's print (Mapping's printed "ItemsView({...})"), of the tables as they are now: the game's
    # dict is filled in place as fields are derived
    def keys(self) -> KeysView[str]:
        return dict(self._tables).keys()

    def values(self) -> ValuesView[Any]:
        return {name: self[name] for name in self._tables}.values()

    def items(self) -> ItemsView[str, Any]:
        return {name: self[name] for name in self._tables}.items()

    def as_now(self) -> "Tables":
        """The tables as they are now, which later changes of the game's dict do not reach (each table is
        replaced, never changed in place, as fields are derived)."""
        return Tables(dict(self._tables))


class Reaching(Sequence[Any]):
    """A list whose entries reach the data in ways no item notes (the components: which items a filter kept;
    the glossary's entries): any use of it notes `reads()`, what it may depend on."""

    __slots__ = ("_items", "_reads")

    def __init__(self, items: Sequence[Any], reads: Callable[[], Iterable[Read]]) -> None:
        self._items, self._reads = items, reads

    def __getitem__(self, index: Any) -> Any:
        note_all(self._reads())
        return self._items[index]

    def __iter__(self) -> Iterator[Any]:
        note_all(self._reads())
        return iter(self._items)

    def __len__(self) -> int:
        note_all(self._reads())
        return len(self._items)

    def size_unread(self) -> int:
        """len() noting no read (see Tracked.size_unread)."""
        return len(self._items)

    def __repr__(self) -> str:
        return repr(self._items)


def reading(function: Callable[..., Any], reads: Callable[[], Iterable[Read]]) -> Callable[..., Any]:
    """`function` (the glossary's `keyword`), noting `reads()` when called."""

    def called(*args: Any, **kwargs: Any) -> Any:
        note_all(reads())
        return function(*args, **kwargs)

    called.__name__ = getattr(function, "__name__", "called")
    called.__doc__ = getattr(function, "__doc__", None)
    return called


def same(a: Any, b: Any) -> bool:
    """Whether two values read the same: equal, of the same types (1, 1.0 and True print differently) and,
    for mappings and lists from the files, written at the same places. Floats by their text: -0.0 equals 0.0
    but prints otherwise, and NaN reads the same as NaN though it equals nothing."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)
    if isinstance(a, Record):
        return _same_record(a, b)
    if isinstance(a, (list, tuple)):
        if isinstance(a, MarkedList) and (a.marks != b.marks or a.mark != b.mark or
                                          (a.written or {}) != (b.written or {})):
            return False
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return _same_items(a, b)
    return a == b


def _same_items(a: Mapping[Any, Any], b: Mapping[Any, Any]) -> bool:
    """Whether two mappings read the same: key by key in their order, keys as values are (a mapping printed
    writes its keys in order, and `{1: 'a'}` and `{True: 'a'}` are equal but print otherwise: the preview kept a
    face printing the first after an edit made it the second)."""
    return len(a) == len(b) and all(same(ka, kb) and same(va, vb)
                                    for (ka, va), (kb, vb) in zip(a.items(), b.items()))


def _same_places(a: Record, b: Record) -> bool:
    """Whether two records were written at the same places (their own and their keys' and values')."""
    return a._marks == b._marks and a._key_marks == b._key_marks and \
        _MARK_SLOT.__get__(a, Record) == _MARK_SLOT.__get__(b, Record)


def _same_record(a: Record, b: Record) -> bool:
    # and its numbers written alike: `kind: 1.50` after `kind: 1.5` is the same number, which a text prints and a
    # message quotes as written (the preview kept the check of the first and said '1.5')
    return _same_places(a, b) and a.written_of_all() == b.written_of_all() and _same_items(a._data, b._data)


class Changes:
    """What an edit changed, as read keys (module docstring); `everything` when it cannot be told."""

    def __init__(self, everything: bool = False) -> None:
        self.everything = everything
        self.tables: set = set()  # tables with any change
        self.members: set = set()  # tables whose items were added, removed, moved or renamed
        self.items: set = set()  # (table, index) with any change
        self.whole: set = set()  # (table, index) added or removed
        self.fields: set = set()  # (table, index, field) changed, MARK for the item's places

    def add(self, table: str, index: int, field: object) -> None:
        """One change: a field of an item, an item whole (field None) or a table's membership (MEMBERS)."""
        self.tables.add(table)
        if index == MEMBERS:
            self.members.add(table)
        elif field is None:
            self.whole.add((table, index))
            self.items.add((table, index))
        else:
            self.fields.add((table, index, field))
            self.items.add((table, index))

    def add_file(self, path: str) -> None:
        """A file other than the data changed (note_files)."""
        self.tables.add((FILE, path))

    def add_size(self, path: str) -> None:
        """The size of the layout written in a file changed (LayoutSet.size)."""
        self.add((FILE, path), 0, SIZE)  # type: ignore[arg-type]  # a file's "table" is (FILE, path)

    def between(self, before: dict[str, Any], after: dict[str, Any]) -> "Changes":
        """Note the differences of two states of the tables (name -> items)."""
        for name in set(before) | set(after):
            old, new = before.get(name), after.get(name)
            if old is None or new is None:
                self.add(name, MEMBERS, None)
                for index in range(len(old if new is None else new)):  # type: ignore[arg-type]  # one is there
                    self.add(name, index, None)
                continue
            self._table(name, old, new)
        return self

    def _table(self, name: str, old: list, new: list) -> None:
        """Note the differences of one table's items, place by place."""
        if len(old) != len(new) or [_id(x) for x in old] != [_id(x) for x in new]:
            self.add(name, MEMBERS, None)
        for index in range(max(len(old), len(new))):
            a = old[index] if index < len(old) else None
            b = new[index] if index < len(new) else None
            if isinstance(a, Record) and isinstance(b, Record):
                self._item(name, index, a, b)
            elif a is None or b is None or not same(a, b):
                self.add(name, index, None)

    def _item(self, name: str, index: int, a: Record, b: Record) -> None:
        """Note the fields of an item that differ, and MARK when it was written elsewhere."""
        if a._data is b._data and a._marks is b._marks:
            return
        if not _same_places(a, b):
            self.add(name, index, MARK)
        for key in set(a._data) | set(b._data):
            if key not in a._data or key not in b._data or not same(a._data[key], b._data[key]):
                self.add(name, index, key)

    def reach(self, reads: Iterable[Read]) -> bool:
        """Whether any of these reads sees a change."""
        if self.everything:
            return True
        if not self.tables:
            return False
        if isinstance(reads, (set, frozenset)) and not self.whole and \
                len(self.tables) + len(self.members) + len(self.items) + len(self.fields) < len(reads):
            return self._reached_in(reads)
        return self._reached_by(reads)

    def _reached_by(self, reads: Iterable[Read]) -> bool:
        """reach(), each read looked up in the changes."""
        for key in reads:
            if key == ALL:
                return True
            table, index, field = key  # type: ignore[str-unpack]  # ALL, the one text key, is out
            if table not in self.tables:
                continue
            if index is None or (index == MEMBERS and table in self.members):
                return True
            if field is None:
                if (table, index) in self.items:
                    return True
            elif (table, index, field) in self.fields or (table, index) in self.whole:
                return True
        return False

    def _reached_in(self, reads: set | frozenset) -> bool:
        """reach() of a set of reads, for an edit that added or removed no item: each change looked up in it
        (an edit changes a few fields; a printable reads hundreds)."""
        return ALL in reads or any((table, None, None) in reads for table in self.tables) or \
            any((table, MEMBERS, None) in reads for table in self.members) or \
            any((*at, None) in reads for at in self.items) or any(key in reads for key in self.fields)


def _id(item: object) -> object:
    """An item's id, as `ref` finds it (None for what is no record)."""
    return item._data.get("id") if isinstance(item, Record) else None


class FieldCache:
    """Results kept from one check of a game to the next, each with the keys it read: a result whose reads
    no change reaches is taken again instead of computed. `start` begins a check (with what changed since
    the last one that finished); results not asked for in a check are forgotten when it finishes."""

    def __init__(self) -> None:
        self.entries: dict = {}  # key -> (reads, value, the keys asked inside its computation)
        self.tables: dict | None = None  # the tables as the last finished check left them (before derived fields)
        self.changes = Changes(everything=True)
        self.inputs: object = None  # what everything depends on besides the tables (game.yaml, macros)
        self.computed: list = []  # the keys the current check computed (the others it took from here)
        self.reused = 0
        self.started = 0  # checks started, to tell whether one ran that a reader of `changes` did not see
        self.checks = KeptChecks()  # the items' field checks (tables.check_tables)
        self._asked: set = set()
        self._inside: list[set] = []  # the keys asked inside each computation under way, innermost last
        self._open = False  # a check started and not finished: what it kept may be half done
        # the keys computed in this check: asked again in it (the preview's first step, then its second),
        # their value stands whatever the edit changed
        self._fresh: set = set()

    def start(self, inputs: object, tables: dict[str, MarkedList]) -> None:
        """A new check whose tables (name -> items, before derived fields) are `tables`."""
        if self._open or self.tables is None or not same(inputs, self.inputs):
            self.entries, self.changes = {}, Changes(everything=True)
        else:
            self.changes = Changes().between(self.tables, tables)
        self.inputs, self.tables, self._open = inputs, {n: list(items) for n, items in tables.items()}, True
        self.started += 1
        self._asked, self.computed, self.reused, self._inside = set(), [], 0, []
        self._fresh = set()

    def finish(self) -> None:
        """The check is over: what it did not ask for (a deleted item's results) is forgotten."""
        self.entries = {key: self.entries[key] for key in self._asked if key in self.entries}
        self._open = False

    def abandon(self) -> None:
        """The check stopped half way (a newer edit waits): it counts as finished, keeping what it computed
        or took again, and what it did not ask for while no change it saw reaches it (the next check's changes
        are counted from this one's tables)."""
        self.entries = {key: entry for key, entry in self.entries.items()
                        if key in self._asked or not self.changes.reach(entry[0])}
        self._inside, self._open = [], False

    def value(self, key: object, compute: Callable[[], Any]) -> Any:
        """compute()'s value, taken from the last check when nothing it read changed; its reads are noted
        in any recording around. The results compute() asked for inside are kept as long as it is."""
        self._asked.add(key)
        if self._inside:
            self._inside[-1].add(key)
        entry = self.entries.get(key)
        if entry is not None and (key in self._fresh or not self.changes.reach(entry[0])):
            self.reused += 1
            note_all(entry[0])
            self._asked.update(entry[2])
            if self._inside:
                self._inside[-1].update(entry[2])
            return entry[1]
        self.entries.pop(key, None)  # a computation that fails keeps nothing
        self._inside.append(set())
        try:
            with recording() as reads:
                value = compute()
        finally:
            inner = self._inside.pop()
        if self._inside:
            self._inside[-1].update(inner)
        self.computed.append(key)
        self._fresh.add(key)
        self.entries[key] = (frozenset(reads), value, frozenset(inner))
        return value

    def previous(self, key: object) -> tuple[bool, Any]:
        """(found, value) of `key` in the last check, whatever it read."""
        entry = self.entries.get(key)
        return (False, None) if entry is None else (True, entry[1])


# A question an item's check asks the game (CheckerShape's method and its arguments), e.g. ("ids", "cards")
Question = tuple[Any, ...]


class KeptChecks:
    """Each item's field check from the last load, taken again while the item is the same (as read, at the
    same places), its table's fields and the enums are the same, and every question the check asked the game
    (a table's ids, an icon, the timings, a glossary term) has the same answer. Each question is answered
    once per load (an id filled in by a default asks the table's ids again)."""

    def __init__(self) -> None:
        # table -> (its spec, the enums) when last checked
        self.specs: dict[str, tuple[Any, Any]] = {}
        # (table, index) -> (item as read, [(question, answer)], problems, item with defaults)
        self.items: dict[tuple[str, int], tuple[Record, tuple[tuple[Question, Any], ...], Any, Record]] = {}
        self.answers: dict[Question, Any] = {}  # this load's answers
        self.reused = 0
        self._chk: CheckerShape | None = None
        self._asked: set[tuple[str, int]] = set()
        self._stale: set[str] = set()  # tables whose fields or enums changed: no check of theirs is kept
        # (question, id of a kept answer) -> (that answer, whether this load answers alike): _answered_alike
        self._alike: dict[tuple[Question, int], tuple[Any, bool]] = {}

    def start(self, tables: Record, enums: Any, chk: CheckerShape) -> None:
        """A load whose tables (game.yaml's `tables:`) and enums are these begins; `chk` answers its questions."""
        specs = {name: (spec, enums) for name, spec in tables.items()}
        self._stale = {name for name, spec in specs.items()
                       if name not in self.specs or not same(self.specs[name], spec)}
        self.specs, self.answers, self._chk, self._asked, self.reused = specs, {}, chk, set(), 0
        self._alike = {}

    def finish(self) -> None:
        """What this load did not check (a deleted item) is forgotten."""
        self.items = {at: self.items[at] for at in self._asked if at in self.items}
        self._chk, self._alike = None, {}

    def checker(self) -> CheckerShape:
        assert self._chk is not None, "KeptChecks.start begins a load"
        return self._chk

    def answer(self, question: Question) -> Any:
        """The game's answer to a question (CheckerShape's method and arguments), asked once per load."""
        if question not in self.answers:
            self.answers[question] = getattr(self.checker(), question[0])(*question[1:])
        return self.answers[question]

    def forget(self, name: str, index: int) -> None:
        """The check of the item at `index` of table `name` is not to be taken again."""
        self.items.pop((name, index), None)

    def _answered_alike(self, question: Question, answer: Any) -> bool:
        """Whether the game answers `question` as it did when a kept check asked it: compared once per load
        and answer (the last load's one answer, a table's ids, is held by each of its items' checks)."""
        key = (question, id(answer))
        known = self._alike.get(key)
        if known is None:  # (the answer is held with the result: its id is not reused while compared)
            known = self._alike[key] = (answer, same(self.answer(question), answer))
        return known[1]

    def check(self, name: str, index: int, item: Record,
              run: Callable[[CheckerShape], tuple[Any, Record]]) -> tuple[Any, Record]:
        """(problems, item with defaults) of the item at `index` of table `name`: kept, or run(asking) now."""
        at = (name, index)
        self._asked.add(at)
        entry = self.items.get(at)
        if entry is not None and name not in self._stale and (entry[0] is item or same(entry[0], item)) and \
                all(self._answered_alike(question, answer) for question, answer in entry[1]):
            self.reused += 1
            return entry[2], entry[3]
        asking = _Asking(self)
        problems, filled = run(asking)
        if asking.unkept:
            self.items.pop(at, None)
        else:
            self.items[at] = (item, tuple(asking.asked.items()), problems, filled)
        return problems, filled


class _Asking:
    """The CheckerShape one item's check sees: the load's answers (KeptChecks.answer), each question noted."""

    def __init__(self, kept: KeptChecks) -> None:
        self.kept, self.report = kept, kept.checker().report
        self.asked: dict[Question, Any] = {}
        self.unkept = False

    def _ask(self, *question: Any) -> Any:
        answer = self.asked[question] = self.kept.answer(question)
        return answer

    def ids(self, table: str) -> list[Any] | None:
        return self._ask("ids", table)

    def icon_exists(self, name: str) -> bool:
        return self._ask("icon_exists", name)

    def icon_names(self) -> list[str]:
        return self._ask("icon_names")

    def timings(self) -> list[str] | None:
        return self._ask("timings")

    def unknown_terms(self, text: str) -> list[tuple[str, str]]:
        return self._ask("unknown_terms", text)

    def suggest(self, word: object, choices: Iterable[object], *, letters: bool = True) -> str:
        return self.kept.checker().suggest(word, choices, letters=letters)

    def error(self, message: str, mark: Mark | None) -> None:
        """(Field checks yield their problems; one said here is said, and the check is not kept.)"""
        self.unkept = True
        self.kept.checker().error(message, mark)
