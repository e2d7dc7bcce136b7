"""The Game and its Checker (model/game.py) as the steps that load a game see them: model/game.py imports
those steps, so they name these shapes, never the classes."""

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from ..project import Project
from ..report import Mark, Report
from .load import MarkedList, Record


class CheckerShape(Protocol):
    """What field checks ask about the game while it loads, and where they report."""

    report: Report

    def ids(self, table: str) -> list[Any] | None: ...

    def icon_exists(self, name: str) -> bool: ...

    def icon_names(self) -> list[str]: ...

    def timings(self) -> list[str] | None: ...

    def unknown_terms(self, text: str) -> list[tuple[str, str]]: ...

    def suggest(self, word: object, choices: Iterable[object], *, letters: bool = True) -> str:
        """' (did you mean 'x'?)' for an unknown word, within the load's one budget (report.Suggestions)."""
        ...

    def error(self, message: str, mark: Mark | None) -> None: ...


class GameShape(Protocol):
    """The game being loaded, as its loading steps read and fill it."""

    id: str
    project: Project
    meta: Record
    enums: dict[str, Any]
    tables: dict[str, MarkedList]
    broken: set[str]
    dirty: set[tuple[str, int]]
    enum_fields: dict[str, dict[str, list[object]]]

    @property
    def folder(self) -> Path: ...

    def context(self, **extra: Any) -> dict[str, Any]: ...

    def refresh(self, tables: Iterable[str] | None = None) -> None: ...

    def file(self, name: object, mark: Mark | None, what: str = "file") -> Path: ...
