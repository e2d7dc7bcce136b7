"""Finds the game project (cards/, layouts/, fonts/, output/) and the games in it, and keeps every file a
game names inside the project folder."""

import contextlib
import functools
import errno
import gc
import multiprocessing
import multiprocessing.context
import os
import re
import secrets
import signal
import stat
import sys
import threading
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Callable, Iterator, Sequence

if TYPE_CHECKING:
    import pikepdf
    import PIL.Image

from . import PDF_CREATOR
from .errors import (TEMPORARY_NAME, DataError, LoadError, ReadFault, UsageError, in_the_way, is_scratch,
                     is_temporary, scratch_name, temporary_name, temporary_of, write_refused)
from .options import did_you_mean
from .units import PAPER_SIZES
from .report import QUOTE_LIMIT, Mark, named, printable, shortened, shown

try:
    import fcntl
except ImportError:  # not on a Unix: no lock, each write is still atomic
    fcntl = None  # type: ignore[assignment]  # checked before each use
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)  # open() refuses a symbolic link as the last part (where there is one)
# how pnp opens a folder it works within, never through a link as its last part; and how it makes a new file,
# never over anything already there (O_EXCL, which follows no link)
FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | NO_FOLLOW | getattr(os, "O_CLOEXEC", 0)
NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW | getattr(os, "O_CLOEXEC", 0)


BUILTIN_FONTS = Path(__file__).resolve().parent / "fonts"  # pnp's own: Source Sans Pro and Averia Serif GWF


@dataclass(frozen=True)
class Project:
    root: Path

    @property
    def cards(self) -> Path:
        return self.root / "cards"

    @property
    def layouts(self) -> Path:
        return self.root / "layouts"

    @property
    def own_fonts(self) -> Path:
        return self.root / "fonts"

    @property
    def fonts(self) -> Path:
        """The project's fonts/ when it has a fonts.yaml, else the fonts that come with pnp, so a game
        needs no font files of its own."""
        own = self.own_fonts / "fonts.yaml"
        return self.own_fonts if own.exists() or own.is_symlink() else BUILTIN_FONTS

    @property
    def output(self) -> Path:
        """output/: what pnp writes (builds, exports, simulation results)."""
        return self.root / "output"

    @property
    def shared_layouts(self) -> Path:
        return self.layouts / "shared"

    def simulation(self, game_id: str) -> Path:
        """output/<game>/simulation.json: what `pnp simulate` measured, which a rulebook and the report may print
        and the preview watches."""
        return self.output / game_id / SIMULATION_FILE

    def games(self) -> list[str]:
        """Game ids: folders of cards/ holding a game.yaml, sorted. Anything named game.yaml makes a game (a named
        pipe, a broken link): loading it says what is wrong, where the game was skipped without a word. A hidden
        folder (cards/.old) is none, as pnp reads no hidden file as part of a game: `pnp list` showed it as a game
        that every `pnp validate` and `pnp build` then refused, failing the project's other games' run with it.
        UsageError for a folder whose name pnp cannot print or name files after (see game_name_problem)."""
        if not self.cards.is_dir():
            return []
        # (cards/ a link out of the project: `pnp list` listed the folders there, and read whose held a game.yaml)
        self.inside(self.cards, None, "folder")
        folders = sorted(p for p in self.cards.iterdir() if p.is_dir() and not hidden_part([p.name]))
        names = [p.name for p in folders if os.path.lexists(p / "game.yaml")]
        for name in names:
            if problem := game_name_problem(name):
                raise UsageError(f"game folder cards/{shown(name)} {problem}: rename it")
        if pair := alike_pair(names):
            first, second = (shown(name) for name in pair)
            raise UsageError(f"game folders cards/{first} and cards/{second} differ only in case or in how their "
                             f"accents are stored: their outputs output/{first} and output/{second} (and "
                             f"layouts/{first}, layouts/{second}) are one folder on a disk that does not tell such "
                             "names apart (macOS, Windows, a USB stick), where one game's build overwrites the "
                             "other's: rename one")
        for folder in folders:
            if folder.name not in names and (spelt := spelt_otherwise(folder, "game.yaml")):
                raise UsageError(f"game folder cards/{shown(folder.name)} holds {shown(spelt)}, not game.yaml: rename "
                                 "it to game.yaml (pnp reads a game from that name, spelt so)")
        return names

    def select(self, names: Sequence[str] | None) -> list[str]:
        """The games to work on: all when none are named; unknown names are a usage error."""
        games = self.games()
        if not names:
            if not games:
                raise UsageError(f"no games found: expected cards/<game>/game.yaml under {self.root}")
            return games
        # a name as typed, in whichever Unicode form the keyboard wrote it, names the folder of that name in the
        # form its name is stored in: 'spiel-ü' typed on Linux (one letter) was "unknown game 'spiel-ü' (did you
        # mean 'spiel-ü'?)" for a folder made on a Mac ('u' and an accent)
        by_form = {unicodedata.normalize("NFC", game): game for game in games}
        named = [n if n in games else by_form.get(unicodedata.normalize("NFC", n), n) for n in names]
        unknown = [n for n in named if n not in games]
        self._refuse_hidden_games(unknown)
        if unknown:
            hints = []
            for n in unknown:
                hints.append(f"{shown(n)}{did_you_mean(n, games)}")  # (escaped: a name typed with a line break
                # forged a line of the refusal)
            raise UsageError(
                f"unknown game {', '.join(hints)}; games here: {', '.join(games) or 'none'}"
            )
        return list(dict.fromkeys(named))

    def _refuse_hidden_games(self, names: Sequence[str]) -> None:
        """UsageError for a name of `names` (of no game found) that is a hidden folder of cards/ holding a game.yaml:
        said to be hidden, which games() passes over, rather than an unknown game."""
        for n in names:
            if hidden_part([n]) and n not in (".", "..") and "/" not in n and os.path.lexists(self.cards / n / "game.yaml"):
                raise UsageError(f"game folder cards/{shown(n)} is hidden (its name starts with '.'): pnp reads no "
                                 "hidden folder as a game; rename it")

    def input_trees(self, game_id: str) -> list[Path]:
        """The folders whose every file is an input of the game (a build records them; shared icons are
        counted one by one there)."""
        return [self.cards / game_id, self.layouts / game_id, self.own_fonts, self.shared_layouts]

    def files_below(self, tree: Path) -> list[Path]:
        """Every entry under `tree` that is not a folder (files, links to files, special files), walked without
        following links to folders, as `tree.rglob("*")` does; a loop, not a recursion, since folders nested a
        thousand deep (a game folder someone sent) made rglob raise RecursionError. DataError past
        MAX_FOLDER_FILES."""
        files: list[Path] = []
        self._walk(tree, lambda path: files.append(Path(path)))
        return files

    def _walk(self, tree: Path, found: Callable[[str], object]) -> int:
        """files_below's walk: `found` is given each entry's path; returns how many there were. DataError when the
        tree itself leads out of the project or to a hidden folder (a game's layouts/ folder made a link to /
        was walked, 20,000 names of the computer's files listed, and refused as holding too many files)."""
        self.inside(tree, None, "folder")
        count, folders, shown = 0, [str(tree)], self.rel(tree)  # (shown only past the limit)
        while folders:
            try:
                with os.scandir(folders.pop()) as entries:
                    listed = list(entries)
            except OSError:  # unreadable, or a path past the system's length limit: no files of its own
                continue
            for entry in listed:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                elif not _is_folder(entry):
                    count = count_folder_file(count, shown)
                    found(entry.path)
        return count

    def folder_problems(self, game_id: str) -> list[DataError]:
        """What the game's input folders hold past MAX_FOLDER_FILES, as a build would refuse it: said by
        `validate` too, so that it never says ok to a game its build refuses."""
        problems = []
        for tree in self.input_trees(game_id):
            try:
                self._walk(tree, len)  # (counted only)
            except DataError as e:
                problems.append(e)
        return problems

    def meant(self, folder: Path, typed: str) -> str:
        """What to add to 'not found' for a file `typed` relative to `folder` (a folder of the project) when a
        file of the project is named alike: the same letters in another case or another Unicode form, or
        folders written with '\\' (a game made on a Mac or Windows, unpacked here, named 'Lion.PNG' for
        lion.png, 'café' in the form its file's name is not stored in, or images\\lion.png, and was told the
        file was not found, beside it), or a name closing in a space ('body.ttf ', which Windows reads as
        body.ttf, and a message shows least). "" otherwise: only folders inside the project, and none hidden, are
        looked in."""
        at, ways = folder, set[str]()
        for part in typed.replace("\\", "/").split("/"):
            if part in ("", ".", "..") or present(at / part):
                at = at / part
                continue
            found = self._part_meant(at, part)
            if found is None:
                return ""
            at, ways = at / found[0], ways | found[1]
        ways |= {"slash"} if "\\" in typed else set()
        if not ways or not self._listable(at):  # (the file found: inside the project, not hidden, no loop)
            return ""
        return f" (there is '{Path(os.path.relpath(at, folder)).as_posix()}': " + \
            "; ".join(_NAMED_OTHERWISE[way] for way in sorted(ways)) + ")"

    def _part_meant(self, at: Path, part: str) -> tuple[str, set[str]] | None:
        """The entry of the folder `at` that the name `part`, no entry of it, was written for (meant()), and how
        it was written otherwise (_NAMED_OTHERWISE's keys); None when there is none."""
        bare = part.strip() or part  # ('body.ttf ': Windows drops a name's closing space, and a message shows it least)
        spaced = {"space"} if bare != part else set()
        if spaced and bare not in (".", "..") and present(at / bare):
            return bare, spaced
        alike = _alike_in(at, bare) if self._listable(at) else None
        if alike is None:
            return None
        return alike, spaced | {"case" if unicodedata.normalize("NFC", bare) != unicodedata.normalize("NFC", alike)
                                else "form"}

    def _listable(self, folder: Path) -> bool:
        """Whether meant() may list the folder's names, or name the file: inside the project, not hidden, and not
        a loop of links."""
        try:
            real = folder.resolve()
        except (OSError, RuntimeError):  # (a loop of links: RuntimeError in Python 3.11)
            return False
        return real.is_relative_to(self.root) and not is_hidden(self, real)

    def rel(self, path: str | Path) -> str:
        """A path as shown in messages: relative to the project root when inside it."""
        path = Path(path)
        try:
            return path.absolute().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def inside(self, path: str | Path, mark: Mark | None = None, what: str = "file", shown: str | None = None,
               hidden: bool = False, built: bool = False) -> Path:
        """`path` after following every symbolic link, if that is inside the project; otherwise a DataError
        naming it (as `shown`, the name the game wrote). A game someone sent you must not make pnp read, or
        embed in a PDF, any other file of yours, nor a hidden one of the project (a name starting with '.',
        such as .env or .git) unless `hidden` (git's own files), nor one of its output/ unless `built`, said
        only where pnp reads what it wrote (a simulation's results, a file served or listed): a game's file
        read from an earlier build's is not the same input from the same game folder, and one build's output
        changed the next one's (a rulebook template linked to output/'s manifest printed it). Refused by
        default, so that every input a game names is checked alike."""
        path = Path(path)
        shown = self.rel(path) if shown is None else shown  # (a name written empty is quoted as written)
        self._refuse_renamed(path, mark, what, shown)
        real = self._resolved(path, mark, what, named(shown))
        self.check_resolved(real, path, mark, what, shown, hidden, built)
        return real

    def check_resolved(self, real: Path, path: Path, mark: Mark | None = None, what: str = "file",
                       shown: str | None = None, hidden: bool = False, built: bool = False) -> None:
        """inside()'s refusals of `path`, known to lead to `real` (every link followed) by a caller that found
        where it leads at less cost than a resolve of its own (IconIndex: 19,000 links into one folder)."""
        shown = self.rel(path) if shown is None else shown
        said = named(shown)  # (a path of 4,000 characters was quoted whole, and what it was refused for cut off)
        if not real.is_relative_to(self.root):
            raise DataError(f"{what} {said} is outside the project folder (pnp reads only files inside it, "
                            "following links)", mark or Mark(self.rel(path)))
        self._refuse_renamed_end(real, path, mark, what, said)
        if not hidden and is_hidden(self, real):
            # a game someone sent, unpacked into your project, could link to your .env and print it on its cards
            raise DataError(f"{what} {said} leads to a hidden file or folder ({named(self.rel(real))}): pnp reads "
                            "no hidden file of the project as part of a game", mark or Mark(self.rel(path)))
        if not built and (why := self._written_by_pnp(real)) is not None:
            raise DataError(f"{what} {said} lies in {why}: a game reads its files from its own folders, never an "
                            "earlier build's; copy it into the game's folder", mark or Mark(self.rel(path)))
        if (ending := folder_ending(shown)) and real.exists() and not real.is_dir():
            raise DataError(f"{what} {said} ends in '{ending}', which names a folder, but {shortened(self.rel(real), QUOTE_LIMIT)} is a "
                            f"file: write its name without the '{ending}'", mark or Mark(self.rel(path)))

    def _refuse_renamed(self, path: Path, mark: Mark | None, what: str, shown: str) -> None:
        """DataError when a part of `path` below the project's folder is a name Windows opens otherwise than
        it reads (windows_renames): 'art/con.png' or 'fonts/nul.ttf' opened the console or a port there, out of
        the project, and 'com1' opened at all on Linux may be a fifo that never answers. Refused on every system
        alike, so that a game checked on Linux is read the same on Windows."""
        try:
            parts = path.absolute().relative_to(self.root).parts
        except ValueError:  # (outside, as written: _resolved and check_resolved refuse it if it is there too)
            parts = ()
        if odd := next((part for part in parts if windows_renames(part)), None):
            raise DataError(f"{what} {named(shown)} holds {named(odd)}, which Windows reads as a device's name or "
                            "as another name (its closing dot or space dropped): name the file otherwise",
                            mark or Mark(self.rel(path)))

    def _refuse_renamed_end(self, real: Path, path: Path, mark: Mark | None, what: str, said: str) -> None:
        """DataError when the resolved path `real`, inside the project, holds a name Windows opens otherwise
        (windows_renames): a link to 'con.png' opens the console there, as _refuse_renamed says of a name as
        written."""
        if odd := next((part for part in real.relative_to(self.root).parts if windows_renames(part)), None):
            raise DataError(f"{what} {said} leads to {named(self.rel(real))}, whose {named(odd)} Windows reads as a "
                            "device's name or as another name (its closing dot or space dropped): name the file "
                            "otherwise", mark or Mark(self.rel(path)))

    def _resolved(self, path: Path, mark: Mark | None, what: str, said: str) -> Path:
        """`path` after following every symbolic link; DataError for a loop or a NUL character (see inside), naming
        it as `said` (quoted)."""
        if on_another_machine(path):  # (refused before resolve() looks at it: see _ANOTHER_MACHINE)
            raise DataError(f"{what} {said} names a file of another machine (a network share): pnp reads only files "
                            "inside the project; name it relative to its folder", mark or Mark(self.rel(path)))
        try:
            return path.resolve()
        except (OSError, RuntimeError):  # Python 3.11 raises RuntimeError on a symbolic link loop
            raise DataError(f"{what} {said} is a symbolic link loop", mark or Mark(self.rel(path))) from None
        except ValueError:  # a NUL character, which no file name holds
            raise DataError(f"{what} {said} cannot be a file's name: it holds a NUL character",
                            mark or Mark(self.rel(path))) from None

    def _written_by_pnp(self, real: Path) -> str | None:
        """Where the resolved path `real` lies in a folder pnp writes, said for inside()'s refusal; None elsewhere."""
        if real.is_relative_to(self.output):
            return f"the project's output folder ({named(self.rel(real))}), which pnp writes"
        if (written := self.written_folder(real)) is not None:
            return (f"a folder pnp wrote ({named(self.rel(real))}: {self.rel(written)} is pnp's record of what it made "
                    "there), as --out writes one")
        return None

    def written_folder(self, real: Path) -> Path | None:
        """The record pnp writes beside what it made (WRITTEN_RECORDS) found in a game's folder of an output
        holding the resolved path `real` (or `real` itself), outside the folders pnp reads (PROTECTED) and output/:
        `--out dist` inside the project is an output folder as output/ is, in this process or any later one (a
        rulebook template linked to dist/<game>/manifest.json printed the previous build's). None elsewhere. Only
        the folders between the project's folder and `real` are looked at, a few names each."""
        try:
            parts = real.relative_to(self.root).parts
        except ValueError:
            return None
        if len(parts) < 2 or parts[0] in PROTECTED:  # (pnp writes no record into the project's folder itself)
            return None
        if (real.name in WRITTEN_RECORDS or real.name.startswith(WRITTEN_RECORD_PREFIX)) and \
                self._a_games_output(real.parent):
            return real
        folder = self.root
        for part in parts[:-1]:
            folder = folder / part
            for name in WRITTEN_RECORDS:
                with contextlib.suppress(OSError, ValueError):
                    if stat.S_ISREG(os.lstat(folder / name).st_mode) and self._a_games_output(folder):
                        return folder / name
        return None

    def _a_games_output(self, folder: Path) -> bool:
        """Whether `folder` may be where pnp wrote a game's output: it, or the folder holding it, is named as a game
        of the project (<out>/<game>/, an export's <out>/<game>/<format>/), so that a folder of the project holding
        a manifest.json of another program's (a web page's) is none. The project's own folder is no <out>/<game>/
        (pnp writes no record there): a project named as its game (mini/, of cards/mini/) made every folder in it
        holding a manifest.json, such as art/, a game's output, and the pictures there were refused."""
        names = (folder.name,) if folder.parent == self.root else (folder.name, folder.parent.name)
        return any(name and (self.cards / name / "game.yaml").is_file() for name in names)



# files in one of a game's folders (cards/<game>/, layouts/<game>/, the shared layouts, the fonts): every build
# and every refresh of the preview lists and digests each (120,000 empty files took 20 s of CPU a build and the
# preview never came up); a game with a picture per card has a few hundred. As many as `--since` reads.
MAX_FOLDER_FILES = 20_000


def folder_ending(text: str) -> str:
    """How a path as typed ends if it can name only a folder ('/', '/.', '..': its last part is empty, '.' or
    '..'), else ''. Python's paths drop a trailing '/' (and a last '.'): `convert --out x.csv/` wrote a file
    x.csv, and `src: images/art.png/` drew art.png, where the user, and the system (open refuses 'file/'),
    meant a folder."""
    typed = text.replace(os.altsep or os.sep, os.sep)
    last = typed.split(os.sep)[-1]
    if last not in ("", ".", ".."):
        return ""
    return text[max(len(text) - len(last) - 1, 0):]


def is_hidden(project: Project, real: Path) -> bool:
    """Whether a resolved path inside the project lies in a hidden file or folder of it."""
    return hidden_part(real.relative_to(project.root).parts)


# how a file's name was written otherwise than the file is named (Project.meant)
_NAMED_OTHERWISE = {
    "case": "file names are told apart by case here",
    "form": "its name's accents are stored in another Unicode form than the game writes them, as a Mac stores "
            "them: type the file's name again",
    "slash": "folders are written with '/'",
    "space": "the name as written begins or ends in a space its file's name has not",
}


def name_key(name: str) -> str:
    """A file's name as a person, and a disk that ignores case and Unicode form (macOS, Windows, most USB sticks),
    reads it: one Unicode form (a Mac stores 'é' as 'e' and an accent), any case. Composed again after folding
    case, since folding 'ǰ' gives 'j' and a caron apart, which a disk takes for the 'ǰ' another name holds."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def alike_pair(names: Sequence[str]) -> tuple[str, str] | None:
    """The first two of `names` that read as one (name_key), in their order, or None: names a disk that ignores
    case or Unicode form (macOS, Windows, a USB stick) takes for one, which a folder of each of them shares."""
    seen: dict[str, str] = {}
    for name in names:
        if (key := name_key(name)) in seen:
            return seen[key], name
        seen[key] = name
    return None


def _entries_alike(folder: Path, name: str) -> tuple[str, ...]:
    """The entries of `folder` (among its first MAX_FOLDER_FILES) whose names read as `name` (name_key)."""
    try:
        info = os.stat(folder)
    except (OSError, ValueError):
        return ()
    return _names_by_key(str(folder), (info.st_dev, info.st_ino, info.st_mtime_ns)).get(name_key(name), ())


def _alike_in(folder: Path, name: str) -> str | None:
    """The one entry of `folder` whose name reads as `name` (_entries_alike); None when there is none, or more
    than one."""
    found = _entries_alike(folder, name)
    return found[0] if len(found) == 1 else None


def named_alike(folder: Path, name: str) -> str | None:
    """An entry of `folder` whose name is not `name` but reads as it (_entries_alike): one folder with it on a
    disk that ignores case or Unicode form (macOS, Windows, a USB stick); None when there is none."""
    return next((other for other in _entries_alike(folder, name) if other != name), None)


@functools.lru_cache(maxsize=16)
def _names_by_key(folder: str, status: tuple[int, ...]) -> dict[str, tuple[str, ...]]:
    """The names of a folder's entries by name_key, listed once per version of the folder (`status`): 3,000
    cards naming pictures not in a folder of 19,000 listed it 3,000 times (3 s)."""
    names: dict[str, list[str]] = {}
    try:
        with os.scandir(folder) as entries:
            for _, entry in zip(range(MAX_FOLDER_FILES), entries):
                names.setdefault(name_key(entry.name), []).append(entry.name)
    except (OSError, ValueError):
        return {}
    return {key: tuple(alike) for key, alike in names.items()}


def hidden_part(parts: Sequence[str]) -> bool:
    """Whether a path, as its parts, holds a hidden file or folder (a name starting with '.': .env, .git, an
    editor's or a tool's own, and '..'): what pnp neither reads as part of a game nor serves."""
    # (a name begun by a character macOS's HFS+ ignores, '\u200c.env', is its .env there)
    return any(part.translate(IGNORED_BY_HFS).startswith(".") for part in parts)


def _is_folder(entry: "os.DirEntry[str]") -> bool:
    """Whether an entry is a link to a folder (skipped, as rglob skips it); a broken or looping link is not."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def count_folder_file(count: int, folder: str) -> int:
    """`count` + 1, the files listed so far in `folder` (as shown); DataError naming the folder past
    MAX_FOLDER_FILES, before any more is listed or read."""
    if count >= MAX_FOLDER_FILES:
        raise DataError(f"holds more than {MAX_FOLDER_FILES:,} files: pnp lists and reads every file of a game's "
                        "folders at each build; move what the game does not use out of it", Mark(folder))
    return count + 1


# names a game's folders cannot take, since pnp reads the folder of that name otherwise: why, for the message
SIMULATION_FILE = "simulation.json"  # what `pnp simulate` writes into output/<game>/, which a rulebook may print
# what pnp writes beside what it made, in each game's folder of an output (output/<game>/, --out DIR/<game>/): a
# kit's manifest (manifest.json; manifest-<options>.json as a file's own name), an export's, a simulation's results.
# A folder holding one is pnp's output, whose files no game reads (Project.written_folder)
# links followed from one name to its file, as Linux does (40, SYMLOOP_MAX): open() refuses a longer chain
MAX_LINK_HOPS = 40
WRITTEN_RECORDS = ("manifest.json", "export.json", SIMULATION_FILE)
WRITTEN_RECORD_PREFIX = "manifest-"
WINDOWS_FORBIDDEN = '<>:"\\|?*'  # what Windows refuses in a file's name ('/' no name holds anywhere)
WINDOWS_DEVICE_NAMES = ("con", "prn", "aux", "nul", *(f"{port}{n}" for port in ("com", "lpt") for n in range(10)))
# Windows' devices as a file's name opens them: the names above, the console's two and the ports written with a
# raised digit
WINDOWS_DEVICES = frozenset([*WINDOWS_DEVICE_NAMES, "conin$", "conout$",
                             *(f"{port}{n}" for port in ("com", "lpt") for n in "\u00b9\u00b2\u00b3")])
# characters a disk of macOS (HFS+) ignores in a name, so that '.g\u200cit' names its .git and '\u200c.env' its .env
IGNORED_BY_HFS = dict.fromkeys([*range(0x200C, 0x2010), *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF])


def windows_renames(part: str) -> bool:
    """Whether Windows opens a path's part `part` as other than its name says: a device's name, with or without an
    extension or a closing dot or space ('nul', 'COM1.yaml', 'con .png'), or a name ending in a dot or a space
    (read as the name without them). '.' and '..' are none."""
    if part in (".", ".."):
        return False
    return part.split(".")[0].rstrip(" ").casefold() in WINDOWS_DEVICES or part.endswith((".", " "))


def calibration_name(paper: str) -> str:
    """The name of the calibration sheet `pnp calibrate` writes for `paper` into output/, beside every game's
    folder of output (so no game may be named so: see RESERVED_GAME_NAMES)."""
    return f"calibrate-{paper}.pdf"


RESERVED_GAME_NAMES = {"shared": "layouts/shared holds the layouts and icons every game of the project shares",
                       # a folder of such a name cannot be made or checked out on Windows (it is a device there)
                       **{name: "Windows names a device so: the game's folders could not be made or checked out "
                          "there" for name in WINDOWS_DEVICE_NAMES},
                       **{calibration_name(paper): "output/ holds the calibration sheet `pnp calibrate` writes "
                          "under that name, beside every game's folder of output" for paper in PAPER_SIZES}}
MAX_GAME_NAME_BYTES = 100  # a game's name begins every output file's name, which a file system holds to 255 bytes


def game_name_problem(name: str) -> str | None:
    """Why a game's folder name cannot be a game's name, or None. Every message and output file names the game
    by it: a control character there (an escape sequence, a newline) would act on the terminal reading pnp's
    output or forge lines of it, and a long name makes output file names longer than a file system allows."""
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in name):
        return "holds a control character (pnp names its output and its messages after a game's folder)"
    if len(name.encode("utf-8", "surrogateescape")) > MAX_GAME_NAME_BYTES:
        return f"is longer than {MAX_GAME_NAME_BYTES} bytes (pnp names its output files after a game's folder)"
    # a name Windows cannot hold (a folder there cannot be made, nor a kit of the game unpacked or the project
    # checked out): Windows drops a closing dot or space (`evo.` is `evo` there), and refuses these characters
    if name.endswith((".", " ")):
        return (f"ends in {'a dot' if name.endswith('.') else 'a space'}, which Windows drops from a name (its folders "
                "could not be made there, nor a kit of it unpacked)")
    if forbidden := sorted(set(name) & set(WINDOWS_FORBIDDEN)):
        return (f"holds {' '.join(forbidden)}, which Windows refuses in a name (its folders could not be made "
                "there, nor a kit of it unpacked)")
    # in any case, as a Mac's or Windows' disk reads a name (and a device's name with any extension, as Windows
    # does, spaces before it dropped): only `pnp new` refused them, and a game folder cards/shared made by hand had
    # layouts/shared, every game's shared layouts, for its own
    key = name.casefold()
    stem = key.partition(".")[0].rstrip(" ")
    if (why := RESERVED_GAME_NAMES.get(stem if stem in WINDOWS_DEVICE_NAMES else key)) is not None:
        return f"is a name pnp reserves ({why})"
    return None


def repository(root: Path) -> tuple[Path, Path] | None:
    """(.git, work tree) of the git repository the folder `root` is in: the nearest .git at or above it, as git
    finds it; None outside any. A folder someone sent may hold the project in a subfolder of its repository."""
    for folder in (root, *root.parents):
        dotgit = folder / ".git"
        if dotgit.is_symlink() or dotgit.exists():
            return dotgit, folder
    return None


# How a path that names a file of another machine starts: two slashes of either kind. A game's name joined to
# its folder gives one when written so (`src: //host/share/x.png`, `\\host\share\x.png`); on Windows that is
# a network share, which a mere look at it (an lstat, a resolve) connects to, handing the host the user's
# credentials. Refused on every system alike, so a game made here is told before it is sent.
_ANOTHER_MACHINE = ("//", "\\\\", "/\\", "\\/")


def on_another_machine(path: str | Path) -> bool:
    """Whether `path` names a file of another machine (a network share): looked at without touching the disk."""
    return str(path)[:2] in _ANOTHER_MACHINE


def present(path: Path) -> bool:
    """Whether a file, folder or link (even a broken one) stands at `path`. A name that no file system can hold
    (a part longer than 255 bytes, a NUL) names nothing: Path.exists() raised OSError on it, a traceback where
    the game's own name was at fault. A name of another machine's (on_another_machine) names nothing either,
    and is never looked at."""
    if on_another_machine(path):
        return False
    try:
        os.lstat(path)
    except (OSError, ValueError):
        return False
    return True


def file_status(stat: os.stat_result) -> tuple[int, ...]:
    """What tells a file's version apart without reading it: its mode, device, inode, size and modification
    and change times (a file rewritten with its old size and time put back still has a new change time)."""
    return stat.st_mode, stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


def not_regular(mode: int) -> str | None:
    """What a file of this mode is when it is not an ordinary file, else None."""
    if stat.S_ISREG(mode):
        return None
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))
    return next((name for test, name in kinds if test(mode)), "a special file")


def special_file(path: str | os.PathLike[str] | bytes) -> str | None:
    """What `path` (as typed: a link is followed) names when it is there but is neither an ordinary file nor a
    folder (a named pipe, a device, a socket, or a link to one), else None: nothing there, a name no file can
    have (too long, a NUL), or one that cannot be looked at (the command then says why where it reads it). The
    one test of a path given on the command line for a file no command reads or writes into."""
    try:
        kind = not_regular(os.stat(path).st_mode)
    except (OSError, ValueError, TypeError):
        return None
    return None if kind == "a folder" else kind


def _size_text(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MB" if limit >= 1024 * 1024 else f"{limit:,} bytes"


class NotRegularFile(OSError):
    """A path that is no ordinary file: `kind` says what it is (a named pipe, a device, a folder, ...)."""

    def __init__(self, kind: str, path: object) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not an ordinary file", str(path))
        self.kind = kind


def open_regular(path: Path, follow: bool = True) -> int:
    """A descriptor for reading `path`, an ordinary file; NotRegularFile when it is a named pipe (which would
    block the command for good), a device (which could be endless, or act when opened) or a folder, and
    OSError (ELOOP) when it is a symbolic link and not `follow`. The kind is told before opening and again
    on what was opened (the path may have changed between), which never blocks (O_NONBLOCK)."""
    mode = os.stat(path, follow_symlinks=follow).st_mode
    if stat.S_ISLNK(mode):
        raise OSError(errno.ELOOP, "a symbolic link", str(path))
    kind = not_regular(mode)
    if kind is not None:
        raise NotRegularFile(kind, path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | (0 if follow else NO_FOLLOW))
    return _regular_blocking(fd, path)


def open_file(path: str | Path) -> BinaryIO:
    """`path` opened for reading, once, as open_regular(follow=False) opens it: an ordinary file, never through a
    link, never a pipe held open. Every file pnp looks at and then reads by name (a cache entry, a simulation's
    results, a file it wrote in its own temporary folder and reads back): a file pnp wrote (a picture, a PDF)
    was opened again by name, and a link or a named pipe swapped in for it meanwhile (the folder is in the
    project, writable by whoever can write there) had a picture outside the project pasted into an export, or
    the export blocked for good."""
    try:
        fd = open_regular(Path(path), follow=False)
    except OSError as e:  # (said as a read where a command's failed write is said: errors.cannot_write)
        raise ReadFault(e.errno, e.strerror, e.filename) from None
    return os.fdopen(fd, "rb")


def new_file(path: str | Path) -> BinaryIO:
    """A new file at `path`, opened for writing; FileExistsError when anything is there, a link above all (O_EXCL
    never follows one): an export writes its files by name into its own fresh temporary folder, and a link put
    there while it ran (the folder is in the project) had the picture written through it, outside the project.
    Below a temporary folder of pnp's (TEMPORARY_NAME: an export's work folder), its folders are opened one at a
    time from it without following a link (new_file_beneath): a component's folder of the export swapped for a
    link had every picture of it made outside the project."""
    if os.open not in os.supports_dir_fd:
        return open(path, "xb")
    return os.fdopen(_opened_at(Path(path), NEW_FILE_FLAGS), "wb")


def make_folders(folder: Path) -> None:
    """The folder `folder` and those above it made where missing (mkdir -p); below a temporary folder of pnp's,
    made one at a time from it without following a link (as new_file writes there): a folder swapped for a link
    had the folders of an export's components made outside the project."""
    below = _below_temporary(folder / "-")
    if below is None:
        folder.mkdir(parents=True, exist_ok=True)
        return
    _beneath(*below, make=True, flags=None)  # (the name "-" is never opened: every folder above it is made)


def _opened_at(path: Path, flags: int) -> int:
    """`path` opened with `flags` (made 0o666 when they say so) where pnp writes: in an output folder whose lock
    this process holds, in the folder it locked (_HELD_FOLDERS), whatever its path names now; below a temporary
    folder of pnp's, through no link below it (_beneath); elsewhere by its path. The output folder swapped for a
    link while a build wrote had its PDFs made in the folder the link leads to, outside the project."""
    held = _HELD_FOLDERS.get(os.path.abspath(path.parent))
    if held is not None:
        try:
            return os.open(path.name, flags, 0o666, dir_fd=held)
        except OSError as e:
            raise OSError(e.errno, e.strerror, os.fspath(path)) from None
    below = _below_temporary(path)
    if below is not None:
        fd = _beneath(*below, make=False, flags=flags)
        assert fd is not None
        return fd
    return os.open(path, flags, 0o666)


def _below_temporary(path: Path) -> tuple[Path, Path] | None:
    """(the innermost temporary folder of pnp's above `path`, `path` relative to it); None when there is none,
    or where the system opens nothing relative to a folder's descriptor (Windows)."""
    parts = path.parts
    temporary = [n for n, part in enumerate(parts[:-1]) if TEMPORARY_NAME.fullmatch(part)]
    if not temporary or os.open not in os.supports_dir_fd:
        return None
    return Path(*parts[:temporary[-1] + 1]), Path(*parts[temporary[-1] + 1:])


def new_file_beneath(root: Path, rel: Path, make: bool = True) -> BinaryIO:
    """A new file at `root`/`rel` (new_file), its folders below `root` made where missing, each made and opened
    one at a time from `root` without following any link (as open_beneath reads): a folder of pnp's own scratch
    (in the project, writable by whoever can write there) whose subfolder was swapped for a link had the files
    written into it made outside the project. OSError (ELOOP, ENOTDIR, EEXIST) at a link or a file in the way;
    FileNotFoundError at a folder missing, unless `make`."""
    if os.open not in os.supports_dir_fd:  # (Windows: by path)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        return new_file(root / rel)
    fd = _beneath(root, rel, make, NEW_FILE_FLAGS)
    assert fd is not None
    return os.fdopen(fd, "wb")


def _beneath(root: Path, rel: Path, make: bool, flags: int | None) -> int | None:
    """new_file_beneath's walk from `root` to `rel`'s folder (each made first when `make`), then `rel` opened there
    with `flags` (its descriptor; made 0o666 when they say so); None, opening nothing, when `flags` is None."""
    *folders, name = rel.parts
    try:
        held = _HELD_FOLDERS.get(os.path.abspath(root.parent))  # (the temporary folder in a locked output folder)
        folder = os.open(root, FOLDER_FLAGS) if held is None else os.open(root.name, FOLDER_FLAGS, dir_fd=held)
        try:
            for part in folders:
                if make:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, dir_fd=folder)
                inner = os.open(part, FOLDER_FLAGS, dir_fd=folder)
                os.close(folder)
                folder = inner
            return None if flags is None else os.open(name, flags, 0o666, dir_fd=folder)
        finally:
            os.close(folder)
    except OSError as e:  # (at the whole path, as open() says it: FileExistsError and the like kept)
        raise OSError(e.errno, e.strerror, os.fspath(root / rel)) from None


def open_to_write(path: str | Path) -> BinaryIO:
    """`path` opened to be written from its start, made when missing, as an ordinary file only: OSError (ELOOP)
    at a link, NotRegularFile at a named pipe or a device. A temporary pnp made (temporary_beside) is opened again
    by name to be written, and a link swapped in for it meanwhile (its folder is in the project) had the kit
    written through it, outside the project; a named pipe held the command (O_NONBLOCK: ENXIO at once); and
    OSError (EEXIST) at a file that has another name too (a hard link), which is another's file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | NO_FOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = _regular_blocking(_opened_at(Path(path), flags), Path(path))  # (as new_file: through no link)
    try:
        if os.fstat(fd).st_nlink > 1:
            # a hard link to a file elsewhere (of the same user, on the same disk) swapped in for the temporary:
            # O_NOFOLLOW does not see one, and the file outside the project was emptied and written over
            raise OSError(errno.EEXIST, "a second name (hard link) of another file", str(path))
        os.ftruncate(fd, 0)  # (not O_TRUNC: a device swapped in would act on it before fstat tells what it is)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "wb")


def _regular_blocking(fd: int, path: Path) -> int:
    """`fd`, once what it opened is known to be an ordinary file, set to block again (it was opened without
    blocking, so that a pipe swapped in could not hold the open); closed and NotRegularFile otherwise."""
    try:
        kind = not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise NotRegularFile(kind, path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_beneath(root: Path, path: Path) -> int:
    """A descriptor for reading `path`, an ordinary file below the folder `root`, opened one folder at a time
    from `root` without following any link below it: a folder of the path swapped for a link after the path
    was checked (a race) then leads nowhere instead of outside, and a file swapped for a pipe is refused without
    blocking. OSError (NotRegularFile, ELOOP) otherwise; ValueError when `path` is not below `root`."""
    parts = path.relative_to(root).parts
    close_on_exec = getattr(os, "O_CLOEXEC", 0)
    if not parts:  # `root` itself (a font's `regular: ..` from fonts/): a folder, refused as any other is
        return _regular_blocking(os.open(root, os.O_RDONLY | os.O_NONBLOCK | close_on_exec), path)
    *folders, name = parts
    folder = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | close_on_exec)
    try:
        for part in folders:
            inner = os.open(part, FOLDER_FLAGS, dir_fd=folder)
            os.close(folder)
            folder = inner
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | NO_FOLLOW | getattr(os, "O_NOCTTY", 0) | close_on_exec,
                     dir_fd=folder)
    finally:
        os.close(folder)
    return _regular_blocking(fd, path)


def open_project_file(path: Path, limit: int, mark: Mark | None, what: str = "file",
                      shown: str | None = None, beneath: Path | None = None) -> BinaryIO:
    """`path` opened for reading in binary, once it is known to be an ordinary file (open_regular) of at most
    `limit` bytes; LoadError (at `mark`, naming the file as `shown`) otherwise. Every file a game gives pnp is
    opened here: a padded file would otherwise be read whole. Without `shown` the messages name only `what`,
    for a mark that already names the file. `beneath`: the project's folder, for a `path` that Project.inside
    found there (its links followed): opened as it was checked (open_beneath), so that a folder of it swapped
    for a link since (a race) leads nowhere, not to a file outside the project."""
    subject = what if shown is None else f"{what} {named(shown)}"  # (a name written empty is quoted: '')
    try:
        fd = open_regular(path) if beneath is None else open_beneath(beneath, path)
    except FileNotFoundError:
        raise LoadError(f"{subject} not found", mark) from None
    except NotRegularFile as e:
        raise LoadError(f"{subject} is {e.kind}, not an ordinary file (pnp reads only ordinary files)", mark) from None
    except OSError as e:
        raise LoadError(f"{subject} cannot be read: {e.strerror}", mark) from None
    if os.fstat(fd).st_size > limit:
        os.close(fd)
        raise LoadError(f"{subject} is larger than {_size_text(limit)}", mark)
    return os.fdopen(fd, "rb", closefd=True)


def read_project_file(path: Path, limit: int, mark: Mark | None, what: str = "file", shown: str | None = None,
                      beneath: Path | None = None) -> bytes:
    """The bytes of `path`, refused as open_project_file refuses (`beneath` too); never more than `limit` bytes
    are read (a file that grows while it is read is refused too)."""
    with open_project_file(path, limit, mark, what, shown, beneath) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        subject = what if shown is None else f"{what} {named(shown)}"
        raise LoadError(f"{subject} is larger than {_size_text(limit)}", mark)
    return data


def utf8_text(raw: bytes, shown: str, advice: str = "", encoding: str = "utf-8") -> str:
    """`raw` (a file's bytes) decoded as `encoding` (UTF-8, or "utf-8-sig" to drop a leading byte-order mark),
    else LoadError at the line and column of its first byte that is not UTF-8: a file saved in another
    encoding is found at the character an editor shows wrong, not at a byte count."""
    if wide := _wide_without_mark(raw):  # (UTF-8 too, its bytes of 0 refused as a control character U+0000)
        raise LoadError(f"{wide[0]} text, not UTF-8 ({wide[1]}, as {wide[0]} writes letters)"
                        f"{advice or ': save it as UTF-8'}", Mark(shown, 1, 1))
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError:
        pass
    # a byte-order mark of UTF-32 (its little-endian one begins as UTF-16's: a UTF-32 file was said to be UTF-16)
    # or of UTF-16 (Excel's "Unicode Text", Notepad's "Unicode"): said as what it is, not as the byte 0xff an
    # editor does not show
    if named := next(((name, size) for name, size, marks in _WIDE_MARKS
                      if raw.startswith(marks) and (size != "four" or _utf32_after_mark(raw))), None):
        raise LoadError(f"{named[0]} text, not UTF-8 (its first {named[1]} bytes say so)"
                        f"{advice or ': save it as UTF-8'}", Mark(shown, 1, 1))
    try:  # the same bytes as plain UTF-8 (a byte-order mark is UTF-8): the offset counted from the file's start
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        start = raw.rfind(b"\n", 0, e.start) + 1
        column = len(raw[start:e.start].decode("utf-8").removeprefix("\ufeff")) + 1
        mark = Mark(shown, raw.count(b"\n", 0, e.start) + 1, column)
        raise LoadError(f"not UTF-8 text (byte 0x{raw[e.start]:02x}){advice}", mark) from None
    raise AssertionError("unreachable: text that is UTF-8 decodes as it")  # pragma: no cover


# (name, size, byte-order marks), UTF-32's first: its little-endian mark begins as UTF-16's
_WIDE_MARKS = (("UTF-32", "four", (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")),
               ("UTF-16", "two", (b"\xff\xfe", b"\xfe\xff")))


def _utf32_after_mark(raw: bytes) -> bool:
    """Whether the bytes after `raw`'s UTF-32 byte-order mark begin as UTF-32 characters: FF FE 00 00 is also
    UTF-16's mark and the character U+0000, and a UTF-16 file that begins so was said to be UTF-32; its next
    characters, read four bytes at a time, are past the last character, U+10FFFF (a letter's two bytes are the
    high ones)."""
    start = raw[4:68]
    try:
        start[:len(start) - len(start) % 4].decode("utf-32-be" if raw.startswith(b"\x00") else "utf-32-le")
    except UnicodeDecodeError:
        return False
    return True


def _wide_without_mark(raw: bytes) -> tuple[str, str] | None:
    """(The encoding, which of its bytes are 0) where `raw` begins as UTF-32 or UTF-16 text without a byte-order
    mark does (a program's "Unicode" saved without one): of its first 64 bytes, those at one position of each
    character's 4 or 2 (the bytes of a letter, little- or big-endian) are none 0 and those at the others all 0.
    A CSV file so saved was refused at its first NUL, as a control character in a header of 'i\\x00d\\x00', where
    one with the mark was said to be UTF-16; one of UTF-32 was said to be UTF-16 after it."""
    for name, width, said in (("UTF-32", 4, "three bytes of every four of its start are 0"),
                              ("UTF-16", 2, "every other byte of its start is 0")):
        start = raw[:64]
        start = start[:len(start) - len(start) % width]
        if len(start) < 2 * width or 0 not in start:
            continue
        for low in range(width):
            if 0 not in start[low::width] and all(start[high::width].count(0) == len(start) // width
                                                   for high in range(width) if high != low):
                return name, said
    return None


def write_file(path: str | Path, data: bytes, durable: bool = True) -> None:
    """Write bytes to `path` atomically: a temporary file beside it (a name no other writer, process or
    thread, uses), then renamed over it; a reader never sees half a file. OSError when it cannot. `durable`:
    see written_beside."""
    with written_beside(path, durable) as tmp, open_to_write(tmp) as file:  # (not through a link swapped in)
        file.write(data)


# The mark of a PDF pnp writes alone in a folder, with no manifest to list it (a report, a calibration sheet):
# its Info's /Creator is PDF_CREATOR, or it and the version (ReportLab writes the Info near the end, uncompressed). Reports
# of earlier pnp versions carry ReportLab's '(unspecified)' creator beside pnp as the author instead.
PDF_MARKS = ((b"/Creator (" + PDF_CREATOR.encode() + b")",), (b"/Creator (" + PDF_CREATOR.encode() + b" ",),  # (a kit's
            (b"/Author (pnp)", b"/Creator (\\(unspecified\\))"))  # 'pnp VERSION'; not another tool's 'pnpx')
PDF_MARK_WINDOW = 64 * 1024  # the tail of the file read for the mark


def refuse_unmarked_pdf(path: Path, what: str, rel: Callable[[Path], str]) -> None:
    """UsageError at `path` when a regular file there holds no mark of pnp's in its last PDF_MARK_WINDOW
    bytes: the file a command writes alone (`what`: 'the report') would replace the user's own file of that
    name (`report --out ~/Desktop` replaced ~/Desktop/<game>/<game>-report.pdf holding the user's text, exit 0).
    What is no regular file there (a link, a pipe, a folder) is said when the command writes ('cannot write')."""
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return
    except OSError:  # none there
        return
    # one opening for every read, so the same file throughout; a file pnp cannot read is kept as the user's (a
    # rename replaces a file however unreadable)
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | NO_FOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            tail = _pdf_bytes(fd, -PDF_MARK_WINDOW, PDF_MARK_WINDOW)  # (read once, for every mark)
            if _marked(tail) or _marked(_pdf_info(fd, tail)):
                return
        finally:
            os.close(fd)
    raise UsageError(in_the_way("a file pnp did not write (no mark of pnp's in it)", f"{what}'s"), Mark(rel(path)))


def _marked(data: bytes) -> bool:
    return any(all(part in data for part in mark) for mark in PDF_MARKS)


# A trailer's Info and where its table of objects starts; the table's line of object N (one section from 0, as
# ReportLab writes it): 20 bytes each, the first 10 the object's offset
# (each matched once, at a place found by rfind: a tail of 5,000 '/Info' backtracking to its end was seconds)
_INFO = re.compile(rb"/Info (\d{1,9}) 0 R\b")
_STARTXREF = re.compile(rb"startxref\s{1,8}(\d{1,15})\s{1,8}%%EOF\s{0,8}\Z")
_XREF_HEAD = re.compile(rb"xref\r?\n0 (\d{1,9})\s?\r?\n")
PDF_INFO_WINDOW = 4096  # the bytes read at the Info object's offset


def _pdf_info(fd: int, tail: bytes) -> bytes:
    """The first PDF_INFO_WINDOW bytes of the Info object the trailer in the file's tail names, found through
    its table of objects; none when there is no such table. ReportLab writes the Info before the streams of
    the pages, so in a PDF of pnp's whose pages hold more than PDF_MARK_WINDOW bytes (a reprint of a
    300-page rulebook) the mark is not in the tail: the second `build --changed-since` refused pnp's own
    reprint as a file of the user's. `fd`: the file, opened; `tail`: its last PDF_MARK_WINDOW bytes; three more
    bounded reads."""
    info = _INFO.match(tail, max(0, tail.rfind(b"/Info ")))
    end = _STARTXREF.search(tail, max(0, tail.rfind(b"startxref")))
    if info is None or end is None:
        return b""
    number, table = int(info[1]), int(end[1])
    head = _pdf_bytes(fd, table, 64)
    section = _XREF_HEAD.match(head)
    if section is None or number >= int(section[1]):
        return b""
    line = _pdf_bytes(fd, table + section.end() + 20 * number, 20)
    if not line[:10].isdigit():
        return b""
    return _pdf_bytes(fd, int(line[:10]), PDF_INFO_WINDOW)


def _pdf_bytes(fd: int, start: int, size: int) -> bytes:
    """At most `size` bytes of the file open at `fd` from `start` (from the end, when negative); none when it
    cannot be read."""
    try:
        os.lseek(fd, max(0, os.fstat(fd).st_size + start) if start < 0 else start, os.SEEK_SET)
        data = b""
        while len(data) < size and (chunk := os.read(fd, size - len(data))):
            data += chunk  # (at most `size`, however the file grows meanwhile)
        return data
    except OSError:
        return b""


@contextlib.contextmanager
def written_beside(path: str | Path, durable: bool = True) -> Iterator[Path]:
    """A temporary file beside `path` to write into (see temporary_beside); put in place of `path` when the
    block ends without an error, removed whatever happens, so a failed write leaves the old file as it was
    and nothing else behind. Made durable first (see commit_files) unless `durable` is False: a cache's entry,
    checksummed and made again when damaged, needs no wait on the disk (a first build stored 1,600 entries,
    each waiting for its fsync)."""
    tmp = temporary_beside(Path(path))
    held = _held(tmp) if durable else None
    try:
        if durable:
            _remove_dead_writers(Path(path), tmp)
        yield tmp
        if durable:
            commit_files({tmp: Path(path)})
        else:
            move_into_place(tmp, Path(path))
    finally:
        tmp.unlink(missing_ok=True)
        if held is not None:
            os.close(held)


# a temporary no lock is held on yet is left alone this long after it was last written: its writer may have
# made it an instant ago (temporary_beside), and a writer by other means (a kit's PDF) holds none
_DEAD_AFTER = 60.0  # seconds


@contextlib.contextmanager
def locked_scratch(parent: Path, prefix: str) -> Iterator[Path]:
    """A folder of this pnp's own made in `parent` (named `prefix` and 8 hex digits, 4 random and their check:
    errors.scratch_name), locked (an flock on the folder) while this pnp lives and removed when done. The folders of that prefix that
    killed pnps left behind are removed first: a SIGKILL runs no clean-up, and each killed `pnp new` (in the
    project) or `pnp changes --since COMMIT` (in the system's temporary folder, a copy of the game at that
    commit) left its folder there for good. A folder of a live pnp (its lock held) is kept."""
    while True:
        scratch = parent / scratch_name(prefix, secrets.token_hex(2))
        try:
            os.mkdir(scratch, 0o700)  # (as tempfile.mkdtemp: private)
            break
        except FileExistsError:
            continue
    held = _lock_folder(scratch)
    try:
        _remove_dead_scratch(parent, prefix, scratch)
        yield scratch
    finally:
        remove_all(scratch)
        if held is not None:
            os.close(held)


def _lock_folder(folder: Path) -> int | None:
    """A descriptor of `folder` holding an exclusive lock on it until closed or this process ends, however it
    ends (None where the system has no flock or the lock cannot be taken)."""
    try:
        import fcntl
    except ImportError:  # (Windows: nothing is removed there, see _remove_dead_scratch)
        return None
    try:
        fd = os.open(folder, os.O_RDONLY | NO_FOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _remove_dead_scratch(parent: Path, prefix: str, mine: Path) -> None:
    """Remove the folders of `parent` named as locked_scratch names them with `prefix` (no link), untouched for
    _DEAD_AFTER and whose lock no live pnp holds: a killed pnp's. Another pnp at work keeps its own."""
    with contextlib.suppress(OSError), os.scandir(parent) as entries:
        dead = [entry.path for entry in entries
                if entry.name != mine.name and is_scratch(prefix, entry.name) and entry.is_dir(follow_symlinks=False)
                and time.time() - entry.stat(follow_symlinks=False).st_mtime >= _DEAD_AFTER]
    for path in dead:
        held = _lock_folder(Path(path))
        if held is not None:  # (no lock taken: a live pnp's, or a system without flock: kept)
            try:
                remove_all(path)
            finally:
                os.close(held)


def _held(tmp: Path) -> int | None:
    """A descriptor holding an exclusive lock on the temporary `tmp` as long as its writer lives: the system
    releases it when the process ends however it ends, which tells a killed writer's leftover from a live one's
    (None where the system has no flock)."""
    try:
        import fcntl
    except ImportError:  # (Windows: no leftover of a live writer can be removed there anyway: it is open)
        return None
    try:
        fd = os.open(tmp, os.O_RDONLY | NO_FOLLOW)
    except OSError:
        return None
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def _remove_dead_writers(path: Path, mine: Path) -> None:
    """Remove the temporaries of `path` (beside it, see temporary_beside) whose writers were killed: written
    outside any output folder's lock (convert beside its table, icons add, simulate --out), each killed run left
    its whole file behind, hidden, for good, and remove_leftovers never looks there. One whose lock is held, or
    written less than _DEAD_AFTER ago, is a live writer's. Outside an output folder (no LOCK_NAME in it) the
    temporaries of every file of the folder go, not those of `path` alone: a killed `convert --out
    cards/g/new.csv` left its temporary until a run wrote that very name again, often never. In an output folder,
    `path`'s alone: a build writes its PDFs' temporaries there holding no flock on them (see _DEAD_AFTER)."""
    try:
        import fcntl
    except ImportError:
        return
    every = not os.path.lexists(path.parent / LOCK_NAME)
    with contextlib.suppress(OSError), os.scandir(path.parent) as entries:
        for entry in entries:
            if (entry.name == mine.name or not (every or entry.name.startswith(f".{path.name}.pnp-"))
                    or not entry.is_file(follow_symlinks=False)):
                continue
            if not is_temporary(entry.name):  # (a user's file named alike is kept; an older pnp's is said)
                _say_unchecked(entry.path)
                continue
            with contextlib.suppress(OSError):
                if time.time() - entry.stat(follow_symlinks=False).st_mtime < _DEAD_AFTER:
                    continue
                fd = os.open(entry.path, os.O_RDONLY | NO_FOLLOW | getattr(os, "O_NONBLOCK", 0))
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # (BlockingIOError, an OSError: a live writer's)
                    os.unlink(entry.path)
                finally:
                    os.close(fd)


class ErrorHoldingFile:
    """A binary file for pikepdf to save into, whose write() never raises: qpdf, saving with a deterministic
    id, ended the whole process (std::terminate: no message, temporary files left) when a write failed (a full
    disk), whether straight to a plain file's descriptor or through a stream's write(). The first OSError is
    held, later writes are dropped, and `raise_held()` raises it once pikepdf has returned."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._held: OSError | None = None

    def write(self, data: bytes) -> int:
        if self._held is None:
            try:
                self._file.write(data)
            except OSError as e:
                self._held = e
        return len(data)

    def flush(self) -> None:
        if self._held is None:
            try:
                self._file.flush()
            except OSError as e:
                self._held = e

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def writable(self) -> bool:
        return True

    def raise_held(self) -> None:
        if self._held is not None:
            raise self._held


def commit_files(renames: dict[Path, Path], removed: Sequence[Path] = ()) -> None:
    """Put each written temporary file (key) in place of its final path (value): every one made durable
    first, then all renamed, so that after a crash no final name holds half a file. All or none: each old
    file is kept under a second name (a hard link) until every rename is done, and put back when one fails
    (a folder in the way of the third file had left the first two new, the rest old). The second names of
    several files are kept together in one temporary folder (see remove_leftovers), which stops holding them
    in one rename once all are done: a kill between two renames left the first files new, the rest old, and
    the next command's clean-up removed the old ones' second names. A file put where none was is recorded there
    too (_note_new), for the clean-up to take away with the old files put back. The files `removed` (of the same
    folder: a kit's PDFs its new kit no longer makes) go in the same step, kept aside as the old ones are: removed
    after it, a kill in between left them beside the new kit for good. OSError when it cannot; the caller
    removes what was not renamed."""

    _ready_to_rename(renames)
    finals = [*renames.values(), *removed]
    together = len(finals) > 1 and len({final.parent for final in finals}) == 1
    aside = _Aside.made(finals[0].parent) if together else None
    done: list[tuple[Path, Path | None]] = []  # (final path, its old file's second name, None if it had none)
    try:
        for tmp, final in renames.items():
            _rename_keeping_old(tmp, final, aside, done)
        if aside is not None:
            _remove_keeping_old(removed, aside, done)
            # all done: what the folder holds is no longer to be put back
            finished = temporary_beside(aside.path.parent / "done", folder=True)
            os.rename(aside.path, finished)
            aside.path = finished
    except OSError:
        for final, old in reversed(done):
            with contextlib.suppress(OSError):
                _old_put_back(old, final, aside) if old is not None else final.unlink(missing_ok=True)
        raise
    finally:
        for _, old in done:
            if old is not None and aside is None:
                old.unlink(missing_ok=True)
        if aside is not None:
            aside.close()
            remove_tree(aside.path)


@dataclass
class _Aside:
    """commit_files' folder of second names: its path, and a descriptor of the folder made there, through which
    every second name is made, written and put back. By its path, the folder (in an output folder, which anyone
    who can write there can change) swapped for a link to a folder outside while a kit was committed had the
    kit's old PDFs linked, and the records of its new ones written, outside the project."""

    path: Path
    fd: int | None  # (None where the system opens no file relative to a folder's descriptor: Windows)

    @staticmethod
    def made(parent: Path) -> "_Aside":
        path = temporary_beside(parent / _SET_ASIDE, folder=True)
        if os.open not in os.supports_dir_fd:
            return _Aside(path, None)
        return _Aside(path, os.open(path, FOLDER_FLAGS))

    def name(self, name: str) -> str:
        """How `name` in the folder is given with dir_fd=self.fd: alone, or its whole path without a descriptor."""
        return name if self.fd is not None else os.fspath(self.path / name)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


def _old_put_back(old: Path, final: Path, aside: "_Aside | None") -> None:
    """The old file's second name `old` renamed to `final` again (from the folder `aside` holds, when in it)."""
    if aside is not None and old.parent == aside.path:
        os.replace(aside.name(old.name), final, src_dir_fd=aside.fd)
    else:
        os.replace(old, final)


def _rename_keeping_old(tmp: Path, final: Path, aside: _Aside | None, done: list[tuple[Path, Path | None]]) -> None:
    """commit_files' rename of `tmp` to `final`, the old file there kept under a second name (in `aside`, when
    several are renamed together) and noted in `done`; a file put where none was is recorded in `aside`."""
    done.append((final, old := _kept_aside(final, aside)))
    if old is not None:  # a file replaced keeps its permissions: a private (0600) credits file or table
        with contextlib.suppress(OSError):  # rewritten by `icons add` or `convert --force` became 0644
            _same_permissions(tmp, old)
    if aside is not None:  # (after the permissions: a change of mode keeps size, time and file)
        _note_new(tmp, final, aside, _NEW if old is None else _REPLACED)
    move_into_place(tmp, final)


def _same_permissions(tmp: Path, old: Path) -> None:
    """Give the temporary `tmp` the permissions of the file at `old`, through a descriptor of what is at `tmp`
    (no link followed): by name, a link swapped in for the temporary had a file outside the project changed."""
    mode = stat.S_IMODE(os.stat(old, follow_symlinks=False).st_mode)
    fd = os.open(tmp, os.O_RDONLY | NO_FOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _remove_keeping_old(removed: Sequence[Path], aside: _Aside, done: list[tuple[Path, Path | None]]) -> None:
    """commit_files' removal of the files `removed`, each kept under a second name in `aside` and noted in `done`,
    to be put back as the old files replaced are."""
    for path in removed:
        if (old := _kept_aside(path, aside)) is not None:
            done.append((path, old))
            path.unlink()


def _ready_to_rename(renames: dict[Path, Path]) -> None:
    """Before commit_files renames anything: each final path checked (_refuse_no_file_in_place), each written
    file made durable."""
    for final in renames.values():
        _refuse_no_file_in_place(final)
    for tmp in renames:
        with open_file(tmp) as f:
            os.fsync(f.fileno())


def _refuse_no_file_in_place(final: Path) -> None:
    """OSError (EEXIST, at `final`) when what is at `final` is neither a file nor a folder: pnp replaces only the
    ordinary files it writes, and a link or a named pipe there is the user's (a link in output/ to a file of
    theirs, named as the report or the calibration sheet, was replaced by the file with exit 0). A folder there
    is said by the rename (EISDIR)."""
    try:
        mode = final.lstat().st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise OSError(errno.EEXIST, os.strerror(errno.EEXIST), str(final))


# what commit_files names the folder, inside its folder of second names, that records the files it puts where the
# folder held none (a name no file pnp writes has: each begins with a letter or digit, or is a temporary's)
_NEW = ".new"
# and the folder that records, for each file it replaces, the new file put in its place: the clean-up puts an old
# file back only over that one (see _put_back)
_REPLACED = ".replaced"


def _recorded(state: os.stat_result) -> bytes:
    """What _note_new records of a file: its size, time of change and file number, which a rename keeps. The file
    number is what no one who sent a game folder can know of a file made on the user's disk."""
    return f"{state.st_size} {state.st_mtime_ns} {state.st_ino}".encode("ascii")


def _is_recorded(path: Path, record: Path) -> bool:
    """Whether the ordinary file at `path` is the one `record` (a file _note_new wrote) describes."""
    with contextlib.suppress(OSError, ValueError, UnicodeDecodeError):
        with open_file(record) as file:  # (a link put there read nothing outside the project)
            text = file.read(128)
        state = os.stat(path, follow_symlinks=False)
        return stat.S_ISREG(state.st_mode) and text == _recorded(state)
    return False


def _note_new(tmp: Path, final: Path, aside: _Aside, records_name: str = _NEW) -> None:
    """Record in `aside` that the written `tmp` goes where no file was (`final`), by its size and time of change
    (a rename keeps both, and a file system without hard links keeps them too), so that _put_back removes it:
    a kill between two renames of a kit that had gained a kind of component left the old kit put back with the
    new kind's PDF beside it, which its manifest does not list, and every later build refused that PDF as the
    user's ("a file pnp did not write")."""
    text = _recorded(os.stat(tmp, follow_symlinks=False))
    if aside.fd is None:  # (Windows: by path)
        (aside.path / records_name).mkdir(exist_ok=True)
        with new_file(aside.path / records_name / final.name) as file:
            file.write(text)
        return
    with contextlib.suppress(FileExistsError):
        os.mkdir(records_name, dir_fd=aside.fd)
    # in the folder made, through no link put there since
    records = os.open(records_name, FOLDER_FLAGS, dir_fd=aside.fd)
    try:
        record = os.open(final.name, NEW_FILE_FLAGS, 0o666, dir_fd=records)
    finally:
        os.close(records)
    with os.fdopen(record, "wb") as file:
        file.write(text)


def _remove_new(folder: Path, records: Path) -> None:
    """Remove from `folder` each file _note_new recorded in `records` that is still as it was renamed there (its
    size, time of change and file number): one changed since, or put there by another, is kept. By size and time
    alone, a forged leftover in a game folder someone sent (`..previous.pnp-<hex>.tmp/.new/notes.txt`) removed
    the user's file of that size and time, and a `.new` that was a link had a folder outside the project read."""
    if not records.is_dir() or records.is_symlink():
        return
    with contextlib.suppress(OSError), os.scandir(records) as entries:
        for entry in entries:
            if _is_recorded(folder / entry.name, Path(entry.path)):
                with contextlib.suppress(OSError):
                    os.unlink(folder / entry.name)


def _kept_aside(final: Path, aside: _Aside | None = None) -> Path | None:
    """A second name for the file at `final` (None when there is no file there), to put it back by: a hard link,
    or, on a file system that has none (FAT and exFAT: a USB stick given as --out; many network shares), a copy
    of the file, so that `final` names the old file whole until the new one is put there. With the link alone, every
    build or calibration sheet written again over an older one failed there ("Operation not permitted"). In
    `aside`'s folder, through its descriptor; the link is of what is at `final`, never of what a link there
    leads to, and the copy reads and writes the files it opened (a link swapped in for either had a file outside
    the project copied into it, or written over)."""
    if not final.is_file() or final.is_symlink():
        return None
    if aside is not None:
        old, name, folder = aside.path / final.name, aside.name(final.name), aside.fd
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=folder)
    else:
        old = temporary_beside(final)
        old.unlink(missing_ok=True)
        name, folder = os.fspath(old), None
    try:
        os.link(final, name, dst_dir_fd=folder, follow_symlinks=False)
    except OSError:
        # copied, not renamed away: renamed, a kill before the new file came left no file at `final` (a table
        # `convert --force` rewrote, a credits file), its contents under a hidden name the next clean-up of an
        # output folder deleted. Copied whole beside first, so a kill mid-copy leaves no half file to put back
        copy = temporary_beside(final)
        try:
            _copied(final, copy)
            os.replace(copy, name, dst_dir_fd=folder)
        finally:
            copy.unlink(missing_ok=True)
    return old


def _copied(source: Path, copy: Path) -> None:
    """The file at `source` copied into the temporary `copy` (its bytes, permissions and times), each opened
    once as an ordinary file, through no link."""
    import shutil

    with open_file(source) as read, open_to_write(copy) as written:
        shutil.copyfileobj(read, written)
        state = os.fstat(read.fileno())
        written.flush()
        os.fchmod(written.fileno(), stat.S_IMODE(state.st_mode))
        os.utime(written.fileno(), ns=(state.st_atime_ns, state.st_mtime_ns))


@contextlib.contextmanager
def opened_picture(path: str | Path, formats: tuple[str, ...] = ("PNG",)) -> "Iterator[PIL.Image.Image]":
    """Pillow's image of a picture pnp wrote at `path` (an export's PNG), opened through open_file (not a link or
    a named pipe swapped in since) and decoded only as one of `formats`: what pnp writes, so that a file that is
    not what its name says is handed to no other decoder. Seven places wrote the two openings out again."""
    from PIL import Image

    with open_file(path) as file, Image.open(file, formats=formats) as image:
        yield image


@contextlib.contextmanager
def opened_pdf(path: str | Path) -> "Iterator[pikepdf.Pdf]":
    """pikepdf's Pdf of the file at `path`, the file opened by Python: pikepdf hands the path of a file it
    opens itself to qpdf as UTF-8 text, which a folder name the system allows but that is not UTF-8 cannot
    be (`build --out $'\\xff'` failed as a bug in pnp, TypeError)."""
    import pikepdf

    with open_file(path) as stream, pikepdf.open(stream) as pdf:
        yield pdf


def move_into_place(made: Path, target: Path) -> None:
    """Rename what was made whole (a file, or a folder staged beside its target) to `target`, in one step: a
    reader sees the old or the new, never a part. OSError when it cannot. In an output folder whose lock this
    process holds, the rename is made in the folder it locked (_HELD_FOLDERS), whatever its path names now: a
    build's folder swapped for a link to another folder while it wrote had every PDF and the manifest renamed
    into that other folder, outside the project, exit 0."""
    held = _HELD_FOLDERS.get(os.path.abspath(target.parent))
    if held is not None and made.parent == target.parent:
        try:
            os.replace(made.name, target.name, src_dir_fd=held, dst_dir_fd=held)
        except OSError as error:  # (said at the paths, not the names within the folder: 'mini-a4.pdf: error')
            raise OSError(error.errno, error.strerror, str(made), None, str(target)) from None
    else:
        os.replace(made, target)


def replace_folder(folder: Path, work: Path) -> None:
    """Put the folder `work` (written beside `folder`) where `folder` was: the old one is moved aside first and
    removed last, so the path always names a whole folder, the old or the new. OSError when it cannot."""

    mask = os.umask(0)
    os.umask(mask)
    with contextlib.suppress(OSError):  # (a file system without modes, FAT, may refuse it: the folder is kept)
        os.chmod(work, 0o777 & ~mask)  # a temporary folder is private; the new one is as any folder made here
    old = None
    if folder.exists():
        # a folder is moved into another only by one who may write into it (its '..' changes): a read-only export
        # folder was refused at the temporary set aside for it, .proof.pnp-<hex>.tmp/.previous, left empty beside
        # it; refused at the folder itself now, before anything is made
        if folder.is_dir() and not folder.is_symlink() and not os.access(folder, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(folder))
        old = temporary_beside(folder, folder=True) / _SET_ASIDE
        move_into_place(folder, old)
    move_into_place(work, folder)
    if old is not None:
        remove_tree(old.parent)


def temporary_beside(path: Path, folder: bool = False) -> Path:
    """A new empty file (or `folder`) in `path`'s folder (.<name>.pnp-<random>.tmp, TEMPORARY_NAME) that no other
    writer has: what pnp writes is made there and renamed over `path` when whole, so two commands at once never
    write into one file. It is made with the usual permissions (a renamed PDF is as readable as any file made
    here); in an output folder, only while its lock is held (output_lock removes those a killed pnp left)."""
    path = Path(path)
    while True:
        tmp = path.with_name(temporary_name(path.name, secrets.token_hex(4)))
        try:
            held = _HELD_FOLDERS.get(os.path.abspath(tmp.parent))  # (in the folder locked: see _opened_at)
            if folder:
                os.mkdir(tmp.name if held is not None else tmp, dir_fd=held)
            else:
                os.close(_opened_at(tmp, NEW_FILE_FLAGS))
            return tmp
        except FileExistsError:
            continue


# what replace_folder names the old folder it moves aside, inside a temporary folder of its own: a name none of
# a command's own files has (ids begin with a letter or digit), so a leftover holding it is known for one
_SET_ASIDE = ".previous"


def remove_killed_writes(folder: Path, written: Callable[[str], bool]) -> None:
    """Remove the temporary files (.NAME.pnp-<hex>.tmp) a command killed while it wrote left in `folder`, a
    folder of the designer's own (cards/, an icons folder, a --out), for the names NAME `written` says that
    command writes there: they stayed for good, hidden files beside the designer's data. Only those names, and
    only with the folder held (folder_held), so none is another's at work (remove_leftovers takes any pnp
    temporary, in output folders only pnp writes into)."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            name = temporary_of(entry.name)
            if name is not None and written(name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


Failed = Callable[[Callable[..., object], str, BaseException], None]  # remove_all's `failed`: as rmtree's onerror


def _ignored(function: Callable[..., object], path: str, error: BaseException) -> None:
    """remove_all's default `failed`: what cannot be removed is left (rmtree's ignore_errors)."""


def remove_all(path: str | Path, failed: Failed = _ignored) -> None:
    """Remove the folder `path` and all it holds, as shutil.rmtree does, but by a loop: rmtree recurses a call per
    folder (on Python before 3.13), and a game folder someone sent with a killed run's leftover, or a scratch
    folder, holding folders 1,500 deep made every build and `pnp new` 'a bug in pnp' (RecursionError). Every folder
    is opened from the one holding it without following a link (a folder swapped for a link has the link removed,
    never what it leads to), one descriptor a level, each level's name kept alone (a path is written out only for
    `failed`: a tree deeper than the system's path length holds no path). What cannot be removed is given to
    `failed` (the function, the path, the OSError) and left."""
    try:
        top = os.open(path, FOLDER_FLAGS)
    except OSError as e:
        failed(os.open, os.fspath(path), e)
        return
    opened: list[tuple[int, str, list[str]]] = []  # (descriptor, name, its folders left to remove) a level
    try:
        _open_level(top, os.fspath(path), opened, failed)
        while opened:
            fd, name, folders = opened[-1]
            if not folders:
                opened.pop()
                os.close(fd)
                if opened:
                    _attempt(functools.partial(os.rmdir, name, dir_fd=opened[-1][0]), opened, name, failed)
                continue
            below = folders.pop()
            try:
                _open_level(os.open(below, FOLDER_FLAGS, dir_fd=fd), below, opened, failed)
            except OSError as e:  # (no permission; or out of descriptors, a tree thousands deep: left)
                failed(os.open, _path_of(opened, below), e)
    finally:
        for fd, _, _ in opened:
            os.close(fd)
    _attempt(functools.partial(os.rmdir, path), [], os.fspath(path), failed)


def _path_of(opened: list[tuple[int, str, list[str]]], name: str) -> str:
    """The path of `name` in the last folder remove_all has open ("": of that folder)."""
    return os.path.join(*(level[1] for level in opened), *([name] if name else []))


def _open_level(fd: int, name: str, opened: list[tuple[int, str, list[str]]], failed: Failed) -> None:
    """remove_all's step into the folder `name` open at `fd`: its files and links removed, its folders noted."""
    folders: list[str] = []
    opened.append((fd, name, folders))
    try:
        with os.scandir(fd) as entries:
            listed = list(entries)
    except OSError as e:
        failed(os.scandir, _path_of(opened, ""), e)
        return
    for entry in listed:
        if entry.is_dir(follow_symlinks=False):
            folders.append(entry.name)
        else:
            _attempt(functools.partial(os.unlink, entry.name, dir_fd=fd), opened, entry.name, failed)


def _attempt(step: "functools.partial[None]", opened: list[tuple[int, str, list[str]]], name: str,
             failed: Failed) -> None:
    """Run remove_all's `step` on `name` (in the last folder open), an OSError given to `failed`."""
    try:
        step()
    except OSError as e:
        failed(step.func, _path_of(opened, name) if opened else name, e)


def remove_tree(path: Path) -> None:
    """Remove pnp's own temporary folder `path` (an old output set aside, a killed run's leftover) and all it
    holds, as far as it can. A folder in it without write permission (a designer's chmod of an export's
    component folder, a copy from a read-only medium) kept its files: each replaced export left a hidden copy
    of the old one, for good. Such a folder of the temporary is made writable (for its owner) and tried again;
    no link is followed (remove_all removes a link, never what it leads to)."""
    import stat as stat_

    def writable_again(function: object, failed: str, error: object) -> None:
        parent = os.path.dirname(failed)
        with contextlib.suppress(OSError):
            mode = os.lstat(parent).st_mode
            if stat_.S_ISDIR(mode) and os.path.commonpath([parent, path]) == os.fspath(path):
                os.chmod(parent, stat_.S_IMODE(mode) | stat_.S_IRWXU)
                if os.path.isdir(failed) and not os.path.islink(failed):
                    os.chmod(failed, stat_.S_IMODE(os.lstat(failed).st_mode) | stat_.S_IRWXU)
                    remove_all(failed)
                else:
                    os.unlink(failed)

    remove_all(path, writable_again)


def remove_leftovers(folder: Path) -> None:
    """Remove the temporary files and folders that a pnp killed while it wrote into `folder` left there (on
    SIGKILL or a power cut no clean-up runs): called with the folder's lock held, which every writer of
    temporaries there holds, so none is another's at work. They were never removed: each killed build left
    PDFs' worth of hidden files for good. A folder replace_folder had set aside when it was killed, before the
    new one took its place, is put back first."""

    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if not is_temporary(entry.name):  # (a user's file named alike is kept)
                _say_unchecked(entry.path)
                continue
            if entry.is_dir(follow_symlinks=False):
                _put_back(folder, entry.name)
                remove_tree(Path(entry.path))
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


_SAID_UNCHECKED: set[str] = set()  # the files _say_unchecked said in this command


def _say_unchecked(path: str) -> None:
    """Say, not remove, a file named as pnp's temporaries were before they carried check digits (TEMPORARY_NAME
    alone): a pnp of before that change killed while it wrote left one in an output folder (a set-aside kit or
    export, megabytes), which the clean-up of today's pnp keeps, as it keeps a user's file named alike; it lay
    there unsaid for good. Said at each command until the user removes it (or renames it, if it is theirs)."""
    name = os.path.basename(path)
    if TEMPORARY_NAME.fullmatch(name) and path not in _SAID_UNCHECKED:  # (once a command: each write looks)
        _SAID_UNCHECKED.add(path)
        try:
            shown_path = os.path.relpath(path)
        except ValueError:  # (Windows: on another drive)
            shown_path = path
        _say(printable(f"{shown_path}: note: kept: named as an older pnp named the temporary files a killed run "
                       "left, but without the check digits pnp's bear now, so it may be a file of yours; "
                       "remove it if it is not (pnp no longer removes it itself)"))


def _put_back(folder: Path, leftover: str) -> None:
    """Put back the folder that replace_folder set aside in the temporary folder `leftover` of `folder`, when
    nothing has taken its place: a kill between its two renames left no folder where the old one was, and the
    next command's clean-up removed the old one with the temporaries (the previous export lost)."""
    aside = folder / leftover / _SET_ASIDE
    original = folder / leftover[1:-len(".pnp-000000000000.tmp")]  # (TEMPORARY_NAME: .<name>.pnp-<12 hex>.tmp)
    with contextlib.suppress(OSError):
        if aside.is_dir() and not aside.is_symlink() and not os.path.lexists(original):
            os.rename(aside, original)
        elif original.name == _SET_ASIDE:  # commit_files' second names of the files it was renaming: each put
            # back, so the folder holds the previous files whole again (not the first few new, the rest old)
            with os.scandir(folder / leftover) as kept:
                for entry in kept:
                    if entry.is_file(follow_symlinks=False) and _replaced_by_pnp(folder / entry.name, entry,
                                                                                  folder / leftover / _REPLACED):
                        os.replace(entry.path, folder / entry.name)
            _remove_new(folder, folder / leftover / _NEW)  # (and those that were not there are taken away)


def _replaced_by_pnp(final: Path, kept: os.DirEntry[str], records: Path) -> bool:
    """Whether commit_files' second name `kept` may be put back at `final`: nothing is there (a file it removed),
    the old file is still there (the kill came before its rename), or the new file it recorded in `records` is.
    A leftover a game folder someone sent forged (its check digits are no secret) put its own files over any of
    the folder's, a user's own or a kit's, with the next command."""
    if not os.path.lexists(final):
        return True
    with contextlib.suppress(OSError):
        # (os.stat, not the entry's: Windows' scandir gives no file number)
        if os.path.samestat(os.stat(kept.path, follow_symlinks=False), os.stat(final, follow_symlinks=False)):
            return True
    return not records.is_symlink() and _is_recorded(final, records / kept.name)


PROTECTED = ("cards", "layouts", "fonts", ".git")  # what pnp reads: nothing it makes is written there


def output_path(project: "Project", given: str | Path | None, *parts: str, default: Path | None = None,
                protected: tuple[str, ...] = PROTECTED, replaced_whole: bool = False,
                out_names: str | None = "a folder") -> Path:
    """Where a command writes: `given` (the user's --out) or else `default` (output/ of the project), then
    `parts` (<game>/, ...). Inside the project pnp writes only into real folders: a component that is a
    symbolic link is refused (a game folder someone sent may hold `output -> ~`). Outside it, the --out the
    user gave is followed as the system does. Wherever it leads, it may not be in the project's `protected`
    folders, whose files pnp reads; a folder the command `replaced_whole` (an export's) may not be the project's
    folder or hold it either. Returns the path with '..' taken out, the one to write to; UsageError (which
    advises --out as naming `out_names`, "a file" for one; None: the command has no --out)."""
    base = Path(given).absolute() if given else Path(default or project.output)
    target = Path(os.path.normpath(base.joinpath(*parts)))  # '..' after a link is where the check looked
    shown = f"--out {given}" if given else project.rel(target)
    refused = functools.partial(_refused, shown, given is not None)
    try:
        followed = Path(os.path.normpath(base.resolve().joinpath(*parts)))  # a link outside that leads in
        for path in (target, followed):
            _no_link_inside(project, path, refused, out_names)
        real = target.resolve()
    except OSError as e:  # a name the system refuses to look up: said as what it is, not as a loop
        if e.errno != errno.ELOOP:
            raise refused(e.strerror or str(e)) from None
        raise refused("a loop of symbolic links") from None
    except RuntimeError:  # a loop of links
        raise refused("a loop of symbolic links") from None
    if (where := _in_protected(project, real, protected)) is not None:
        raise refused(f"{project.rel(real)} is in {where}, whose files pnp reads; pnp writes nothing there: "
                      "choose another folder")
    # an export puts a new folder in place of the old: one holding the project took its cards/ and layouts/ away
    if replaced_whole and project.root.is_relative_to(real):
        raise refused(f"{real} is or holds the project's folder ({project.root}), which the command would replace "
                      "whole; choose another folder")
    return target


def _in_protected(project: "Project", real: Path, protected: tuple[str, ...]) -> str | None:
    """Which of the project's `protected` folders the resolved path `real` is or is in, as a message says it; None
    when none. A folder named as one but for case or Unicode form (--out CARDS, Fonts/x.csv) is that folder on a
    disk that ignores them (macOS, Windows, a USB stick), where resolve() keeps the name as given: pnp wrote there.
    So is one ending in dots or spaces on Windows, which drops them (--out "cards.")."""
    top = real.relative_to(project.root).parts[:1] if real.is_relative_to(project.root) else ()
    for name in protected:
        folder = (project.root / name).resolve()
        if real == folder or real.is_relative_to(folder):
            return f"{name}/"
        if top and name_key(top[0].rstrip(". ")) == name_key(name):
            return (f"{printable(top[0])}/, one folder with {name}/ on a disk that does not tell such names apart "
                    "(macOS, Windows, a USB stick)")
    return None


def _refused(shown: str, option: bool, why: str) -> UsageError:
    """output_path's refusal of the place `shown`: said of the option (`Error: --out X: WHY`) when the user gave
    it, else at the path, as every refusal at a path is (`PATH: error: WHY`; it was `Error: PATH: WHY`)."""
    return UsageError(f"{shown}: {why}") if option else UsageError(why, Mark(shown))


def folders_on_the_way(project: "Project", target: Path, itself: bool = True, levels: int = 1,
                       makes_folders: bool = True) -> None:
    """OutputError if a folder `target` is in (or `target` itself, when `itself`: a folder the command makes) is
    there but is no folder (a file, a named pipe, ...): said before the command's work, where the write would
    have said it only at the end (`build --out afile/sub` drew every page first). So too a nearest folder there is
    that cannot be written (a read-only mount, /proc): where folders are to be made in it, tried by making a
    temporary folder and removing it, since permissions alone do not say it (root may write every folder the modes
    close, and /proc's); an existing target is asked with access(), which leaves it as it is; the folders not there
    yet are not made before the work. The command writes `levels` of names below `target` (a build its files, an
    export cards/<component>/<file>): the path must leave room for the longest of them (_path_fits). When not
    `itself`, `target` is written as a temporary beside it, renamed when whole (an export's folder, a converted
    table's file): its name must leave room for the temporary's (_names_fit). A command that `makes_folders` not
    (convert writes one file, into a folder that is there) names the first folder missing."""
    folder = target if itself else target.parent
    walked = Path(folder.anchor)
    nearest = walked
    missing: tuple[str, ...] = ()  # the folders not there yet, from the first
    parts = folder.relative_to(walked).parts
    for at, part in enumerate(parts):
        walked = walked / part
        try:
            mode = os.stat(walked).st_mode  # (a link is followed, as writing would)
        except (OSError, ValueError):  # nothing there yet (made when written), or unreadable: tried below
            if os.path.islink(walked):  # (a link to nothing: the folder could not be made in its place, at the end)
                raise write_refused(project.rel(target), f"{printable(project.rel(walked))} is a symbolic link to "
                                    f"{printable(os.readlink(walked))}, which is no folder") from None
            missing = parts[at:]
            break
        kind = not_regular(mode) or "a file"
        if kind != "a folder":
            raise write_refused(project.rel(target), f"{printable(project.rel(walked))} is {kind}, not a folder")
        nearest = walked
    if (limits := _name_and_path_limits(nearest)) is not None:  # (asked once: no such limit said on Windows)
        _path_fits(project, target, limits, levels)
        _names_fit(project, target, limits[0], missing, () if itself else (target.name,))
    if missing and not makes_folders:  # (the system's "No such file or directory" named the folder, not the file)
        raise write_refused(project.rel(target), f"there is no folder {printable(project.rel(nearest / missing[0]))}, "
                            "and pnp makes none for the file: make it first, or name a file in a folder that is there")
    if missing:  # (folders will be made there: one is tried; an existing folder is left as it is, not even its
        _writable(project, target, nearest)  # time changed, for a build that finds its game up to date)
    elif not os.access(nearest, os.W_OK):  # (a read-only mount says so here, to root too)
        raise write_refused(project.rel(target), f"{printable(project.rel(nearest))} cannot be written")


# what a temporary beside a path adds to its name (temporary_beside: ".", ".pnp-", 12 hex digits, ".tmp"): an
# export's work folder is made beside its folder, and what it writes is in there
TEMPORARY_EXTRA = 22


def _name_and_path_limits(folder: Path) -> tuple[int, int] | None:
    """The longest name and the longest path (in bytes) the file system of the existing `folder` allows; None
    where it says none (no pathconf: Windows)."""
    try:
        # (PC_PATH_MAX counts the path's closing NUL)
        return os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX") - 1
    except (OSError, ValueError, AttributeError):
        return None


def _path_fits(project: "Project", target: Path, limits: tuple[int, int], levels: int) -> None:
    """OutputError if `target`'s path leaves no room for `levels` of names below it, each as long as the file
    system allows (`limits`: its longest name and path; the names pnp writes are held to them): `build --out` a
    path of 4,060 bytes passed, drew every page, then said "File name too long" at a file's name; a path of 4,300
    did so before the target was checked."""
    longest_name, longest_path = limits
    length, room = len(os.fsencode(target)), TEMPORARY_EXTRA + levels * (1 + longest_name)
    if length + room > longest_path:
        # (the path named cut short: a line of 4 KB that says only where)
        raise write_refused(f"{project.rel(target)[:80]}...", f"its path is {length:,} bytes long, past the "
                            f"{max(0, longest_path - room):,} its system allows for a folder pnp writes in "
                            f"({longest_path:,} less {room:,} for the names pnp writes below it): choose a folder of "
                            "a shorter path")


def _names_fit(project: "Project", target: Path, longest: int, missing: tuple[str, ...],
               renamed: tuple[str, ...]) -> None:
    """OutputError if a folder to be made (the names `missing`) has a name longer than its file system allows
    (`longest` bytes; `build --out` a name of 300 letters drew every page, then said "File name too long"), or a
    name written first as a temporary (`renamed`) leaves no room for the temporary's (`convert --out` a name of
    250 letters was a traceback, "File name too long", where the temporary was made)."""
    for part, kind, extra in [*((part, "folder name", 0) for part in missing),
                              *((name, "name", TEMPORARY_EXTRA) for name in renamed)]:
        if len(os.fsencode(part)) + extra > longest:
            raise write_refused(project.rel(target), f"the {kind} {printable(part[:40])}... is {len(os.fsencode(part))} "
                                f"bytes long, past the {longest - extra} its file system allows" +
                                (f" for a file pnp writes first under a name {extra} bytes longer" if extra else ""))


def _writable(project: "Project", target: Path, folder: Path) -> None:
    """OutputError if nothing can be made in the existing `folder` (on the way to `target`)."""
    try:
        probe = temporary_beside(folder / "probe", folder=True)
        with contextlib.suppress(FileNotFoundError):  # (another pnp's _remove_probes may have removed it)
            probe.rmdir()
        _remove_probes(folder)
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise write_refused(project.rel(target), f"nothing can be made in {printable(project.rel(folder))} "
                            f"({reason})") from None


def _remove_probes(folder: Path) -> None:
    """Remove the empty probes (_writable) that pnps killed between making and removing one left in `folder`:
    no lock is held there (an export's game folder, the project's folder for calibrate), so none was ever
    removed. Only an empty folder can go (rmdir), and a live pnp's own rmdir of its probe takes it gone; and only
    one whose check digits are right (is_temporary): a user's empty `.probe.pnp-aaaaaaaaaaaa.tmp` went too."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith(".probe.pnp-") and is_temporary(entry.name):  # (a user's named alike: kept)
                with contextlib.suppress(OSError):
                    os.rmdir(entry.path)



def _no_link_inside(project: "Project", path: Path, refused: Callable[[str], UsageError],
                    out_names: str | None = "a folder") -> None:
    """UsageError if a folder of `path` inside the project (or the path itself) is a symbolic link; its advice
    names --out (as naming `out_names`) where the command has it (not None)."""
    if not path.is_relative_to(project.root):
        return
    walked = project.root
    for part in path.relative_to(project.root).parts:
        walked = walked / part
        if walked.is_symlink():
            raise refused(f"{project.rel(walked)} is a symbolic link (to {os.readlink(walked)}); pnp writes and reads "
                          "its output only in real folders inside the project: remove the link" +
                          (f", or give --out {out_names} outside the project" if out_names else ""))


LOCK_NAME = ".pnp.lock"  # an output folder's writers' lock (output_lock), which pnp makes and keeps there


@contextlib.contextmanager
def output_lock(folder: Path, shown: str = "", on_wait: Callable[[str], None] | None = None) -> Iterator[bool]:
    """Hold the lock of an output folder (an flock on its .pnp.lock) while a command writes there; yields
    whether it had to wait. A second command writing to the same folder waits until the first is done,
    saying so through `on_wait(message)` (standard error by default), so they never mix their files.
    A command that wrote nothing there (a refusal: an export refused for a file of the user's in its folder)
    leaves the folder as it found it: the lock file it made is removed, and so are the folders it made."""
    folder = Path(folder)
    waited = False
    while True:
        made = _folders_to_make(folder)
        folder.mkdir(parents=True, exist_ok=True)
        fd, created = _lock_file(folder)
        try:
            waited = _flock(fd, shown or str(folder), on_wait) or waited
            if _still_there(fd, folder / LOCK_NAME):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # the one it waited for removed it: lock the file now in its place (or a new one)
    unmade = False
    try:
        with _holding(folder, fd):
            remove_leftovers(folder)
            found = _entries(folder)
            yield waited
    finally:
        try:
            if created and _entries(folder) == found:  # wrote nothing here: as it found it
                with contextlib.suppress(OSError):  # (removed while still locked: see _still_there)
                    os.unlink(folder / LOCK_NAME)
                    unmade = True
        finally:
            os.close(fd)  # releases the lock; a file left stays (a third command locks the one a second waits on)
        for made_folder in reversed(made if unmade else []):
            try:
                made_folder.rmdir()  # (only an empty one: another pnp may have begun writing in it)
            except OSError:
                break


# the output folders whose lock this process holds, by path (absolute): each opened as the folder holding the
# lock file it locked, for move_into_place to rename into that folder, not whatever the path names later
_HELD_FOLDERS: dict[str, int] = {}


@contextlib.contextmanager
def _holding(folder: Path, lock: int) -> Iterator[None]:
    """Keep `folder` open in _HELD_FOLDERS while the block runs, once it is known to be the folder holding the
    lock file open as `lock`; OSError (at the folder) when its path names another folder already (a link put
    there since it was locked). Nothing where a folder cannot be opened (Windows)."""
    directory = getattr(os, "O_DIRECTORY", None)
    if directory is None or fcntl is None:
        yield
        return
    key = os.path.abspath(folder)
    opened = os.open(folder, os.O_RDONLY | directory | getattr(os, "O_CLOEXEC", 0))
    try:
        found, locked = os.stat(LOCK_NAME, dir_fd=opened, follow_symlinks=False), os.fstat(lock)
        if (found.st_dev, found.st_ino) != (locked.st_dev, locked.st_ino):
            raise OSError(errno.ELOOP, "the folder was replaced (by a link?) while pnp wrote in it", str(folder))
        previous = _HELD_FOLDERS.get(key)
        _HELD_FOLDERS[key] = opened
        try:
            yield
        finally:
            if previous is None:
                _HELD_FOLDERS.pop(key, None)
            else:
                _HELD_FOLDERS[key] = previous
    finally:
        os.close(opened)


def _folders_to_make(folder: Path) -> list[Path]:
    """The folders `folder.mkdir(parents=True)` makes, outermost first."""
    missing = []
    for path in (folder, *folder.parents):
        if os.path.lexists(path):
            break
        missing.append(path)
    return missing[::-1]


def _lock_file(folder: Path) -> tuple[int, bool]:
    """The open lock file of `folder`, and whether this call made it."""
    lock = folder / LOCK_NAME
    while True:
        try:
            try:
                return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL | NO_FOLLOW, 0o666), True
            except FileExistsError:
                return os.open(lock, os.O_RDWR | NO_FOLLOW), False
        except FileNotFoundError:  # removed between the two: make it
            if not os.path.isdir(folder):
                folder.mkdir(parents=True, exist_ok=True)
            continue
        except OSError as e:  # a folder or a link in its place: errors.cannot_write names the file in the way
            raise OSError(e.errno, e.strerror, str(folder), None, str(lock)) from None


def _flock(fd: int, shown: str, on_wait: Callable[[str], None] | None) -> bool:
    """Take the exclusive flock of `fd`, waiting (said through `on_wait`) while another holds it; whether it waited."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        (on_wait or _say)(f"{shown}: another pnp is writing here; waiting for it to finish")
        fcntl.flock(fd, fcntl.LOCK_EX)
        return True


def _still_there(fd: int, lock: Path) -> bool:
    """Whether the locked `fd` is still the file at `lock`: a command that wrote nothing removes the lock file it
    made before it lets go, and one that waited on that file must lock the one now there, as a third does."""
    try:
        named = os.stat(lock, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _entries(folder: Path) -> dict[str, int]:
    """The entries of `folder` (but its lock file), each with its inode: what a command wrote there changes it
    (pnp writes each file under a temporary name, then renames it into place)."""
    try:
        with os.scandir(folder) as entries:
            return {entry.name: entry.inode() for entry in entries if entry.name != LOCK_NAME}
    except OSError:
        return {"": -1}  # unknown: taken as written


@contextlib.contextmanager
def folder_held(folder: Path) -> Iterator[None]:
    """Hold an flock on a folder itself (no lock file: the folder may be the user's own, such as a game's
    icons/) while a command reads a file of it and writes it back; another pnp doing the same waits. Two
    `pnp icons add` at once each read ATTRIBUTION.md and wrote it back with its own rows only: icons were
    left without their credit."""
    if fcntl is None:  # not on a Unix: no lock, each write is still atomic
        yield
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))  # (confined by the caller)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def tidy(folder: Path) -> None:
    """Remove what a killed pnp left in `folder` (remove_leftovers) when no pnp is writing there now; never
    waits. For a command that finds the folder's output up to date, or whose worker processes were ended
    (Ctrl-C on `build -j 2` ended them before they could remove their temporary files)."""
    if fcntl is None:
        return
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | NO_FOLLOW)  # none: no pnp has written here
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        remove_leftovers(folder)
    except OSError:  # another pnp holds it (BlockingIOError): its temporaries are its own
        pass
    finally:
        os.close(fd)


def _say(message: str) -> None:
    print(f"pnp: {message}", file=sys.stderr, flush=True)


def program(name: str) -> str | None:
    """The absolute path of the installed program `name` (git, gs), found in the folders of PATH that are
    absolute; None when none holds it. A PATH with an empty or relative entry (PATH=":$PATH", "export
    PATH=$TOOLS:$PATH" with TOOLS unset) names the folder pnp runs in, often a game someone sent: an
    executable `git` at its top ran in place of git's (and Windows looks in that folder first, for any PATH)."""
    import shutil

    for folder in os.get_exec_path():
        found = shutil.which(name, path=folder) if os.path.isabs(folder) else None
        if found is not None and os.path.isabs(found):  # (not one Windows found in the current folder)
            return found
    return None


def find(root: str | Path | None = None) -> Project:
    """The project at --root, or the current directory."""
    base = Path(root) if root else Path.cwd()
    if not os.path.isdir(base):  # (os.path's: Path's raised on a name too long for the system, a traceback)
        there = "not a folder" if os.path.lexists(base) else "no such folder"  # (a --root mistyped)
        raise UsageError(f"--root {base}: {there}")
    return Project(base.resolve())


def usable_cores() -> int:
    """The cores this process may use (its CPU affinity, where the system says; else every core): the most
    worker processes or threads any command runs at once, whatever its -j (more only add their memory)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


# held while a worker puts output in place (finishing): a worker whose pnp ended finishes that first, then ends
_FINISHING = threading.Lock()
PARENT_LOOKED_AT_EVERY = 0.2  # seconds


def end_with_parent(group: bool = False) -> None:
    """End this worker process once the pnp that started it has ended (its parent is another): a worker does
    not end with it, and `pnp build -j 2` stopped by `kill`, `timeout` or an editor's stop button left its
    workers drawing the games, putting the kits in place afterwards and printing tracebacks when their results
    found no reader. Called first in every worker; a worker putting output in place (finishing) ends after it.
    With `group`, a process leading a process group of its own (the rules', see simulate.run) ends every
    process of its group with it: what the rules forked held pnp's standard output open, and `pnp simulate |
    tail` ended by `timeout` waited for that fork. Never the group of a process that leads none (pnp's own)."""
    parent = os.getppid()
    known = multiprocessing.parent_process()  # (the process that started this one, by multiprocessing)
    # Its handle (a pipe it holds open while it lives) says when it has ended where its id cannot: on Windows,
    # which never gives a process another parent, the id of one that ended stays its parent's (a worker watching
    # the id alone played on for good); and where the id just read is not that process's, either a fork server
    # started this one or pnp had already ended before the line above ran, the watch then keeping its
    # successor's id for good (a test of it failed on a loaded machine)
    started_by = known if known is not None and (os.name == "nt" or known.pid != parent) else None

    def watch() -> None:
        while os.getppid() == parent and (started_by is None or started_by.is_alive()):
            time.sleep(PARENT_LOOKED_AT_EVERY)
        with _FINISHING:
            if group and hasattr(os, "killpg") and os.getpgrp() == os.getpid():
                os.killpg(0, signal.SIGKILL)  # (this process among them)
            os._exit(1)

    threading.Thread(target=watch, name="pnp-ends-with-its-parent", daemon=True).start()


@contextlib.contextmanager
def finishing() -> Iterator[None]:
    """Hold off end_with_parent while files are put in place: a commit begun is finished, never left half done."""
    with _FINISHING:
        yield


_FROZEN_IN = [0]  # the process whose heap freeze_once froze, since nothing unfroze it (a forked process has not)


def freeze_once() -> None:
    """Freeze (gc.freeze) what lives in this process now, unless this process froze it already and nothing
    unfroze it since (thaw): a collection after each simulated game then walks what the game made only, where
    one over the whole heap took 60 ms a game. Asking Python instead (gc.get_freeze_count) walks the frozen
    objects: 14 ms a game."""
    if _FROZEN_IN[0] != os.getpid():
        gc.freeze()
        _FROZEN_IN[0] = os.getpid()


def thaw() -> None:
    """Unfreeze every frozen object (into the oldest generation, collected from there again), and say so to
    freeze_once: a freeze it made before is undone, and its next call freezes again."""
    gc.unfreeze()
    _FROZEN_IN[0] = 0


@contextlib.contextmanager
def ctrl_c_held_while_forking() -> Iterator[None]:
    """Ctrl-C held off (blocked: pending, not lost) in this thread while it forks worker processes, which start
    with it held until they ignore it (ctrl_c_left_to_parent). A terminal's Ctrl-C reaches every process of the
    group: each worker printed a traceback of its own (KeyboardInterrupt in an import or in its wait for work)
    beside pnp's 'Aborted!'. Where the system has no signal masks (Windows), nothing."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)  # (a Ctrl-C held meanwhile is raised now)


def ctrl_c_left_to_parent() -> None:
    """A worker's Ctrl-C ignored: the pnp that started it handles it (and ends or drains its workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # (held since the fork)


def worker_context(method: str | None = None) -> multiprocessing.context.BaseContext:
    """How pnp starts its worker processes: by `method` ('fork') where the system has it, else by the system's
    default. A process started afresh (spawned: Windows, macOS) is a new Python whose current folder, a
    received game's, comes first on its import path until pnp's own path is handed over: it imported
    `multiprocessing` from there, so a `multiprocessing.py` in the game folder ran. PYTHONSAFEPATH (Python's
    -P) keeps the folder off that path in every process pnp starts after this."""
    if method is not None and method in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context(method)
    os.environ["PYTHONSAFEPATH"] = "1"
    return multiprocessing.get_context()


# What a file pnp reads by its name (a game's game.yaml, a project's fonts/fonts.yaml) may be called by someone who
# meant it: a Mac's disk, blind to case, finds Game.yaml as game.yaml, and a .yml is YAML too; on Linux a game so
# named was left out of `pnp build` without a word, and a fonts/fonts.yml left the game printed in pnp's own fonts
_MOST_ENTRIES_LOOKED_AT = 1_000  # (a folder holding a game's few files, or images: not walked past this)


def spelt_otherwise(folder: Path, name: str) -> str | None:
    """The name of a file in `folder` that is `name` (a .yaml) spelt otherwise, in other letters' case or as .yml,
    or None; `name` itself is no other spelling (calibrate sets its sheet in pnp's own fonts beside a project's
    fonts.yaml, and was refused as if it were spelt otherwise)."""
    meant = {name, name.removesuffix(".yaml") + ".yml"}
    try:
        with os.scandir(folder) as entries:
            for n, entry in enumerate(entries):
                if n >= _MOST_ENTRIES_LOOKED_AT:
                    return None
                if entry.name != name and entry.name.lower() in meant:
                    return entry.name
    except OSError:
        return None
    return None
