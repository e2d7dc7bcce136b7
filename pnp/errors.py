"""Every exception pnp raises for a user's mistake. None of them knows the command line: cli shows them."""
import os
import re
from collections.abc import Callable

from .report import Mark


class PnpError(Exception):
    """A problem shown to the user as one line; `mark` (file:line:col) says where, when it is known."""

    exit_code = 1
    code = "error"  # what kind of problem, for a program reading `--json` (Diagnostic.code)

    def __init__(self, message: str, mark: Mark | None = None) -> None:
        super().__init__(message)
        self.message, self.mark = message, mark

    def __str__(self) -> str:
        return f"{self.mark}: {self.message}" if self.mark else self.message


class UsageError(PnpError):
    """The command itself is wrong: an unknown game, a bad option, no project."""

    exit_code = 2
    code = "usage"


class DataError(PnpError):
    """A problem in one of the game's files: its data, layouts, templates, fonts or images."""

    code = "data"


class LoadError(DataError):
    """A file cannot be read as pnp data (missing, not UTF-8, malformed or hostile YAML)."""

    code = "load"


class LayoutError(DataError):
    """A layout is wrong; `problems` holds every (message, mark) found when there are several."""

    code = "layout"

    def __init__(self, message: str, mark: Mark | None = None, problems: list[tuple[str, Mark | None]] | None = None) -> None:
        super().__init__(message, mark)
        self.problems = problems or [(message, mark)]


class OutputError(PnpError):
    """An output file or folder cannot be written: a read-only folder, a file in the way, a full disk."""

    code = "output"


# what project.temporary_beside names: pnp's own mark in it, since an --out folder may hold other programs' files
TEMPORARY_NAME = re.compile(r"\..+\.pnp-[0-9a-f]{12}\.tmp", re.S)


def cannot_write(folder: object, error: OSError, shown: Callable[[str], str] = str) -> str:
    """The words for a write into `folder` that failed: the file in the way when renaming the finished file
    onto its name failed (a folder there) or when removing it did, else the folder the user chose; never a
    temporary name. `shown` gives a path as messages show it."""
    named = error.filename2 if error.filename2 is not None else error.filename
    at_fault = folder
    if isinstance(named, (str, bytes)) and not TEMPORARY_NAME.fullmatch(os.path.basename(os.fsdecode(named))):
        at_fault = shown(os.fsdecode(named))
    return f"cannot write to {at_fault}: {error.strerror or error}"


class ExprError(PnpError):
    """A template or expression failed; `line` is the line inside the template when known."""

    code = "template"

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class LimitError(ExprError):
    """A template or layout asked for more than pnp allows (size, count, depth or time)."""

    code = "limit"


class BudgetSpent(PnpError):
    """A game's template time or memory, or its drawing budget, ran out: with a mark, this is where (to be
    said); without, that was reported where the work was and the rest of the game's work is skipped without
    another message."""

    code = "budget"
