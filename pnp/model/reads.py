"""Which of a game's tables a template read: while a printable is resolved, every table looked up through the
context's `data` or `ref` is noted by name, and whatever reaches the data another way (the components'
items, the glossary) is noted as ALL. The preview keeps a printable's primitives for as long as the tables it
read are unchanged, so an edit to one card re-resolves that card and what reads its table, not the game."""

import threading
from collections.abc import Mapping, Sequence

ALL = "*"  # read something that may hold any table's items
_local = threading.local()  # the recordings in progress in this thread, innermost last


class recording:
    """`with recording() as tables:` collects the names of the tables read inside it (ALL for any); an outer
    recording sees what an inner one saw."""

    def __enter__(self) -> set:
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        self.tables = set()
        stack.append(self.tables)
        return self.tables

    def __exit__(self, *exc: object) -> None:
        stack = _local.stack
        stack.pop()
        if stack:
            stack[-1].update(self.tables)


def note(table: str) -> None:
    stack = getattr(_local, "stack", None)
    if stack:
        stack[-1].add(table)


class Tables(Mapping):
    """The game's tables (`data`: name -> items, or `ref`: name -> id -> item) as templates see them: looking
    one up notes its name. The names themselves are game.yaml's, so listing them reads no data."""

    __slots__ = ("_tables",)

    def __init__(self, tables: dict) -> None:
        self._tables = tables  # the game's own dict: filled in place as tables load and fields are derived

    def __getitem__(self, name: object) -> object:
        note(name)
        return self._tables[name]

    def get(self, name: object, default: object = None) -> object:
        note(name)
        return self._tables.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._tables

    def __iter__(self):
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def __repr__(self) -> str:
        return repr(self._tables)


class Everything(Sequence):
    """A list whose entries may hold any table's items (the components, the glossary's entries): reading any
    use notes ALL."""

    __slots__ = ("_items",)

    def __init__(self, items: list) -> None:
        self._items = items

    def __getitem__(self, index: object) -> object:
        note(ALL)
        return self._items[index]

    def __iter__(self):
        note(ALL)
        return iter(self._items)

    def __len__(self) -> int:
        note(ALL)  # how many glossary entries there are depends on the tables
        return len(self._items)

    def __repr__(self) -> str:
        return repr(self._items)


def reading_all(function: object) -> object:
    """`function` (the glossary's `keyword`), noting ALL when called."""

    def called(*args: object, **kwargs: object) -> object:
        note(ALL)
        return function(*args, **kwargs)

    called.__name__ = getattr(function, "__name__", "called")
    called.__doc__ = getattr(function, "__doc__", None)
    return called
