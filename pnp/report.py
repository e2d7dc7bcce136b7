"""Collects diagnostics (errors, warnings) with their file:line:col and owns the exit code; says how every message
quotes a value and suggests a name."""

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Protocol


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
    """A value as a message quotes it: the data as written (no class names), cut short when long."""
    return shortened(repr(plain(value)), limit)


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
    return {int: "a whole number", float: "a number", str: "text", type(None): "nothing"}.get(type(value), "a value")


def closest(word: object, choices: Iterable[object], count: int = 1, cutoff: float = 0.6) -> list[str]:
    """The names among `choices` closest to `word` (a typo's likely meaning), best first; none for a word longer
    than any name (comparing a megabyte of text with every name takes seconds, and suggests nothing)."""
    if len(str(word)) > MAX_SUGGESTED:
        return []
    return list(_closest(str(word), tuple(str(c) for c in choices), count, cutoff))


@functools.lru_cache(maxsize=1024)
def _closest(word: str, choices: tuple[str, ...], count: int, cutoff: float) -> tuple[str, ...]:
    """Worked out once per word and names: a hexgrid of 10,000 cells naming one unknown icon asked 10,000 times
    (16 s)."""
    return tuple(get_close_matches(word, choices, n=count, cutoff=cutoff))


def did_you_mean(word: object, choices: Iterable[object]) -> str:
    """' (did you mean 'x'?)' when one of `choices` is close to `word`, else nothing."""
    close = closest(word, choices)
    return f" (did you mean '{close[0]}'?)" if close else ""


@dataclass(frozen=True, order=True, slots=True)
class Mark:
    """Where a value came from: file, 1-based line and column."""

    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.col}"
        return self.file


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

    def __str__(self) -> str:
        where = f"{self.mark}: " if self.mark else ""
        return f"{where}{self.severity}: {self.message}"


class Raised(Protocol):
    """A raised problem as a report records it (pnp.errors.PnpError, which sits above this module)."""

    message: str
    mark: Mark | None


@dataclass
class Report:
    """Everything a command found; `exit_code` is 0 when there is no error, else 1."""

    root: Path = field(default_factory=Path.cwd)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def error(self, message: str, mark: Mark | None = None, item: tuple[str, int] | None = None, code: str = "") -> None:
        self.diagnostics.append(Diagnostic("error", message, mark, item=item, code=code))

    def warning(self, message: str, mark: Mark | None = None) -> None:
        self.diagnostics.append(Diagnostic("warning", message, mark))

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
        """Diagnostics in file order, then in the order they were found, without repeats."""
        seen: set[str] = set()
        out: list[Diagnostic] = []
        for d in sorted(self.diagnostics, key=lambda d: (d.mark is None, d.mark or Mark(""))):
            if str(d) not in seen:
                seen.add(str(d))
                out.append(d)
        return out

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
        """The last line: the errors and warnings as printed above it (each once, consequences not counted)."""
        shown = self.sorted()
        e = sum(d.severity == "error" and not d.consequence for d in shown) or len(self.errors)
        w = sum(d.severity == "warning" for d in shown)
        if not e:
            return f"{what}: ok" + (f" ({w} warning{'s' * (w != 1)})" if w else "")
        return f"{what}: {e} error{'s' * (e != 1)}" + (f", {w} warning{'s' * (w != 1)}" if w else "")


def _record(d: Diagnostic) -> dict:
    """One diagnostic as `--json` writes it."""
    mark = d.mark or Mark("")
    item = {"component": d.item[0], "index": d.item[1]} if d.item else None
    return {"severity": d.severity, "code": d.code, "message": d.message, "file": mark.file or None,
            "line": mark.line, "col": mark.col, "item": item, "consequence": d.consequence}
