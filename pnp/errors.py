"""Every exception pnp raises for a user's mistake, and the one it says for its own bugs. None of them knows the
command line: cli shows them."""
import errno
import hashlib
import os
import re
import traceback
from collections.abc import Callable
from pathlib import Path

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


class ItemRefused(ValueError):
    """A list's value refused for one of its items, `index` saying which: the refusal is said at that item's own
    place (a layout's size `[63, x]` written an item a line was said at the list's first line, where 63 is)."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


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


def _check_digits(name: str, random: str) -> str:
    """The last 4 of a temporary's 12 hex digits: a digest of the rest of its name (see temporary_name)."""
    return hashlib.sha256(f"{name}\0{random}".encode("utf-8", "surrogateescape")).hexdigest()[:4]


def temporary_name(name: str, random: str) -> str:
    """The name of pnp's temporary for the file `name` (TEMPORARY_NAME), `random` its 8 random hex digits, the
    4 that follow their check: what tells pnp's own from a user's file named alike (is_temporary)."""
    return f".{name}.pnp-{random}{_check_digits(name, random)}.tmp"


def scratch_name(prefix: str, random: str) -> str:
    """The name of a scratch folder of pnp's (project.locked_scratch): `prefix`, `random` (4 hex digits) and their
    4 check digits, so that the clean-up of killed runs' folders tells them from a user's named alike."""
    return f"{prefix}{random}{_check_digits(prefix, random)}"


def is_scratch(prefix: str, entry: str) -> bool:
    """Whether `entry` is a name scratch_name gives with `prefix`: `pnp new` removed a designer's own folder
    `.pnp-new-mynotes1/` in the project (any 8 letters or digits), and `changes --since` one `pnp-since-...` of the
    system's temporary folder, a user's files and all, once a minute old."""
    random = entry[len(prefix):len(prefix) + 4]
    return entry.startswith(prefix) and len(entry) == len(prefix) + 8 and entry == scratch_name(prefix, random)


def temporary_of(entry: str) -> str | None:
    """The name of the file whose temporary (temporary_name) the file name `entry` is; None when `entry` is none
    pnp gave, which no clean-up may remove: TEMPORARY_NAME alone took a designer's own
    `.notes.pnp-aaaaaaaaaaaa.tmp` in cards/ (removed by the next `convert` beside it), in an icons folder or in an
    output folder for a killed pnp's, and deleted it. A name alike whose check digits do not match is one pnp
    never made (1 in 65,536 matches by chance)."""
    if not TEMPORARY_NAME.fullmatch(entry):
        return None
    digits, name = entry[-len("000000000000.tmp"):-len(".tmp")], entry[1:-len(".pnp-000000000000.tmp")]
    return name if digits[8:] == _check_digits(name, digits[:8]) else None


def is_temporary(entry: str) -> bool:
    """Whether the file name `entry` is one pnp gave a temporary (temporary_of), which a clean-up may remove."""
    return temporary_of(entry) is not None


class ReadFault(OSError):
    """A file pnp reads (project.open_file: one it wrote and reads back, a cache's entry) could not be opened: a
    command's write into its folder that failed this way is said as the read it is (cannot_write)."""


def cannot_write(folder: str, error: OSError, shown: Callable[[str], str] = str) -> OutputError:
    """The refusal of a write into `folder` that failed, at the path at fault (write_failure), as every refusal at
    a file is said (`PATH: error: cannot write: WHY`; it was `Error: cannot write to PATH: WHY`, in no form an
    editor or a script reads). A file it could not read (ReadFault) is said so, `cannot read: WHY`: an export
    whose own file, read back, was swapped for a link or failed on the disk was said 'cannot write: Input/output
    error'."""
    at_fault, why = write_failure(folder, error, shown)
    if isinstance(error, ReadFault):
        return OutputError(f"cannot read: {why_not_read(error)}", Mark(at_fault))
    return write_refused(at_fault, why)


def write_failure(folder: str, error: OSError, shown: Callable[[str], str] = str) -> tuple[str, str]:
    """(path at fault, why) of a write into `folder` that failed: the file in the way when renaming the finished
    file onto its name failed (a folder there) or when removing it did, else the folder the user chose; never a
    temporary name. `shown` gives a path as messages show it."""
    named = error.filename2 if error.filename2 is not None else error.filename
    at_fault = folder
    # (a file in a temporary folder, an export's work folder, is gone with it: said at the folder)
    if isinstance(named, (str, bytes)) and not any(TEMPORARY_NAME.fullmatch(part)
                                                   for part in Path(os.fsdecode(named)).parts):
        at_fault = shown(os.fsdecode(named))
    return at_fault, why_not_written(error)


def why_not_written(error: OSError) -> str:
    """Why a write failed, in pnp's words (WRITE_FAILURES) where it has some, else the system's."""
    return WRITE_FAILURES.get(error.errno or 0, error.strerror or str(error))


def why_not_read(error: OSError) -> str:
    """Why a read failed: the system's words, but for too many files open (EMFILE, ENFILE), which is no fault of
    the file named and was said 'Too many open files' alone, saying nothing of the limit or what to do."""
    return (WRITE_FAILURES[error.errno] if error.errno in (errno.EMFILE, errno.ENFILE)
            else error.strerror or str(error))


def in_the_way(what: str, whose: str) -> str:
    """The refusal to replace `what` (a file pnp did not write, and how that is known) standing where a command
    writes `whose` ("the kit's", "the report's"): one wording for every output a user's own file may be in."""
    return f"{what} is in {whose} way: move it away, or choose another --out"


def write_refused(path: str, why: str) -> OutputError:
    """The refusal to write `path` (as messages show it) for the reason `why`: `PATH: error: cannot write: WHY`."""
    return OutputError(f"cannot write: {why}", Mark(path))


# why a write failed, in pnp's words: the system's ("No such file or directory", "Not a directory") name no path and
# say nothing of what to do (errno numbers, as the system gives them)
WRITE_FAILURES = {errno.ENOENT: "a folder it is to be written in is not there",
                  errno.ENOTDIR: "a folder it is to be written in is a file",
                  errno.EISDIR: "a folder is in its place",
                  errno.EEXIST: "something that is no ordinary file (a link, a pipe) is in its place; pnp "
                                "replaces only files: move it away",
                  errno.EACCES: "pnp is not allowed to write there",
                  errno.EPERM: "pnp is not allowed to write there",
                  errno.EROFS: "it is on a disk that cannot be written (read-only)",
                  errno.ENOSPC: "the disk is full",
                  errno.EDQUOT: "the disk space allowed to you is used up",
                  errno.EFBIG: "the file is larger than its file system holds",
                  errno.ENAMETOOLONG: "its name is longer than its file system allows",
                  # (no fault of the file: the limit of the files a process may hold open, `ulimit -n`, was met)
                  errno.EMFILE: "pnp may hold no more files open at once: the system's limit of open files is "
                                "too low (raise it, as with `ulimit -n 1024`, and run pnp again)",
                  errno.ENFILE: "the system holds as many files open as it can: close some programs and run pnp "
                                "again",
                  # (a folder's lock that is a link, opened without following it, was "Too many levels of symbolic links")
                  errno.ELOOP: "a symbolic link is in its place (pnp never writes through one), or links on its way lead in a loop"}


class ExprError(PnpError):
    """A template or expression failed; `line` is the line inside the template when known."""

    code = "template"

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def failed_at(mark: Mark | None, error: Exception) -> Mark | None:
    """Where a template or expression written at `mark` failed: on its file's line of the template's line the
    failure names (a `|` text's third line is three lines below its key), else at `mark`. The one way every
    layer (a layout's element, a component's filter, a derived field, a constraint) says the line in the text."""
    return said_in_text(mark, getattr(error, "line", None))


def said_in_text(mark: Mark | None, line: object) -> Mark | None:
    """The mark of line `line` (from 1) of a template or expression written at `mark` (Mark.in_text), else
    `mark` (no line known)."""
    return mark.in_text(line) if mark is not None and isinstance(line, int) and line > 0 else mark


class LimitError(ExprError):
    """A template or layout asked for more than pnp allows (size, count, depth or time)."""

    code = "limit"


class BudgetSpent(PnpError):
    """A game's template time or memory, or its drawing budget, ran out: with a mark, this is where (to be
    said); without, that was reported where the work was and the rest of the game's work is skipped without
    another message."""

    code = "budget"


class Unforeseen(PnpError):
    """An error pnp did not foresee (a bug in pnp, met by some input), said as one line at the input it was
    working on rather than as a traceback: the guarantee that no input ends in a traceback holds even where a
    check is missing, and the user still learns which file to look at."""

    code = "internal"


# the attribute an unforeseen exception carries the place of the input being worked on when it was raised
_BLAMED = "_pnp_blamed"


def blame(error: BaseException, mark: Mark | None) -> None:
    """Note on an unforeseen `error` that it escaped work on the input at `mark`, unless work nested inside
    that noted its own (the innermost input is the one at fault: a layout element inside its card). pnp's own
    errors are left alone: they say their place themselves. The note is an attribute, which a worker
    process's error keeps when it is sent to the parent."""
    if mark is None or isinstance(error, PnpError) or blamed(error) is not None:
        return
    try:
        setattr(error, _BLAMED, mark)
    except AttributeError:  # an exception class with __slots__: said without a place
        pass


def blamed(error: BaseException) -> Mark | None:
    """The place `blame` noted on `error`, if any."""
    return getattr(error, _BLAMED, None)


def unforeseen(error: Exception, doing: str) -> Unforeseen:
    """The one line said for an unforeseen `error` raised while `doing` (e.g. "g: build failed"), at the place
    `blame` noted. With PNP_TRACEBACK=1 in the environment the traceback is printed too, for a bug report."""
    if os.environ.get("PNP_TRACEBACK"):
        traceback.print_exception(error)
    try:
        said = str(error)[:1000].strip().splitlines()
    except Exception:  # noqa: BLE001 - an exception whose own text fails: its name is said alone
        said = []
    detail = type(error).__name__ + (f": {said[0][:200]}" if said else "")
    return Unforeseen(f"{doing}: pnp met something here it does not handle ({detail}). This is a bug in pnp: "
                      "please report it with this file (PNP_TRACEBACK=1 shows where in pnp)",
                      blamed(error))
