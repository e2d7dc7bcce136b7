"""Which saved files concern which game, and the watcher (watchfiles) that tells the preview. A game's inputs
are its cards/<game>/ and layouts/<game>/ folders (data, layouts, macros, rulebook, icons, images), the shared
layouts and icons, the project's fonts and the figures `pnp simulate` wrote (output/<game>/simulation.json,
which the rulebook prints); the rest of output/ (builds), hidden files and editors' scratch files are
ignored."""

import asyncio
import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from watchfiles import Change, DefaultFilter, awatch
from watchfiles._rust_notify import WatchfilesRustInternalError

from ..project import MAX_FOLDER_FILES, SIMULATION_FILE, file_status
from ..report import printable

if TYPE_CHECKING:
    from ..project import Project

SCRATCH_SUFFIXES = (".swp", ".swx", ".swo", ".tmp", ".part", ".crdownload", "~")
SCRATCH_NAMES = {"4913"}  # vim's test file


def watched_folders(project: "Project") -> list[Path]:
    """The folders to watch: those of cards/, layouts/, fonts/ and output/ (for simulation.json) that exist."""
    return [p for p in (project.cards, project.layouts, project.own_fonts, project.output) if p.is_dir()]


def games_of(project: "Project", path: str | Path, games: Iterable[str]) -> set[str]:
    """The games among `games` that a change to `path` concerns (empty for a file that is no input)."""
    try:
        parts = Path(path).absolute().relative_to(project.root).parts
    except ValueError:
        return set()
    if not parts or any(part.startswith(".") for part in parts):
        return set()
    name = parts[-1]
    if name.endswith(SCRATCH_SUFFIXES) or name in SCRATCH_NAMES or name.startswith("#"):
        return set()
    if parts[0] == "fonts" or parts[:2] == ("layouts", "shared") or parts in (("cards",), ("layouts",)):
        return set(games)
    if parts[0] == "output":  # only what simulate measured: builds write the rest
        return {parts[1]} & set(games) if parts[2:] == (SIMULATION_FILE,) else set()
    if parts[0] in ("cards", "layouts") and len(parts) >= 2:  # a game's folder itself too: renamed away or replaced
        return {parts[1]} & set(games)
    return set()


class InputFilter(DefaultFilter):
    """watchfiles' filter: only changes to a served game's inputs pass."""

    def __init__(self, project: "Project", games: Iterable[str]) -> None:
        super().__init__()
        self.project, self.games = project, games

    def __call__(self, change: Change, path: str) -> bool:
        return super().__call__(change, path) and bool(games_of(self.project, path, self.games))


FOLDERS_LOOKED_FOR_MS = 1000  # how often the watched folders are looked for again (see watch)
MAX_WATCHED_FOLDERS = 1024  # folders watched at most (a game has a few): the walk is made every second, in a
# thread (6,000 folders took 0.34 s, a third of the server's event loop)
MAX_TREE_ENTRIES = MAX_FOLDER_FILES + MAX_WATCHED_FOLDERS  # entries of one tree of inputs listed at most (see
# _folders_below)


def _folders_now(project: "Project", games: Iterable[str]) -> list[tuple[Path, int]]:
    """The folders to watch, each with its inode (one removed and made again is another folder to watch): cards/
    and layouts/ themselves (their entries are the games), every real folder of the served games' folders in
    them, of layouts/shared/ and of fonts/ with no hidden part, never through a link, then output/ with the
    served games' folders in it (where simulate writes), unless output/ is a link (its <game> folder was
    watched and listed every second wherever the link led). Each is watched alone, not its tree: watched whole, a
    link in a game's folder to / or /usr was followed, and the preview walked and watched every folder of the
    computer (15,000 inotify watches for /usr, taken from every program of the user). Only folders that are
    there count towards MAX_WATCHED_FOLDERS, the inputs' first: output/<game> of each of 1,100 games served was
    listed first, built or not, and took the whole cap; no game's input was watched, not a word said."""
    found: list[tuple[Path, int]] = []
    output = project.output
    watched = watched_folders(project)
    tops = [folder for folder in (project.cards, project.layouts) if folder in watched and not folder.is_symlink()]

    def walked() -> Iterator[Path]:
        yield from tops
        for top in _input_trees(project, games, tops, watched):
            yield from _folders_below(top)
        if output in watched and not output.is_symlink():  # (output/<game> is looked at through output/)
            yield from (output, *(output / game for game in games))

    for folder in walked():
        try:
            seen = os.lstat(folder)
        except OSError:  # gone since it was listed, or a game not built
            continue
        if stat.S_ISDIR(seen.st_mode):
            found.append((folder, seen.st_ino))
            if len(found) >= MAX_WATCHED_FOLDERS:
                break
    return found


InputsState = tuple[tuple[object, ...], ...]  # (path, *file_status) of each input
MAX_STATE_ENTRIES = 4 * MAX_TREE_ENTRIES  # entries inputs_state lists at most, all its folders together


def inputs_state(project: "Project", game: str) -> InputsState | None:
    """The game's inputs as the file system has them now: the path and file_status (inode, size, times...) of
    each regular file (through a link, the file it names) of the folders watched for it that is an input of
    it (games_of). Equal, no input of the game was saved, made, replaced or removed in between. None (not
    known) past MAX_STATE_ENTRIES entries listed: folders of more files than a game may hold."""
    found: list[tuple[object, ...]] = []
    listed = 0
    for folder, _ in _folders_now(project, [game]):
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    listed += 1
                    if listed > MAX_STATE_ENTRIES:
                        return None
                    if entry.is_dir(follow_symlinks=False) or not games_of(project, entry.path, [game]):
                        continue
                    with contextlib.suppress(OSError):  # (gone since it was listed: not there now)
                        seen = entry.stat()
                        if stat.S_ISREG(seen.st_mode):
                            found.append((entry.path, *file_status(seen)))
        except OSError:  # gone or unreadable since it was listed
            continue
    return tuple(sorted(found))


def _folders_below(top: Path) -> Iterator[Path]:
    """The real folders of the tree at `top`, top first, none hidden and none through a link, in os.walk's order;
    from the first MAX_TREE_ENTRIES entries of the tree listed, no more. os.walk listed every entry of the tree
    every second: 200,000 files in a game's folder kept the preview at 20% of a core, idle (a game refused as
    holding too many files, and one a million took a core). A tree holding more entries than that holds more
    files than a game may (MAX_FOLDER_FILES, said on the page) or more folders than are watched."""
    folders, listed = [top], 0
    while folders:
        folder = folders.pop()
        yield folder
        below = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    listed += 1
                    if listed > MAX_TREE_ENTRIES:
                        return
                    # (a folder whose name is not UTF-8 cannot be given to watchfiles: UnicodeEncodeError ended
                    # the watcher; a game's input there is refused by its name anyway)
                    if not entry.name.startswith(".") and _utf8(entry.name) and entry.is_dir(follow_symlinks=False):
                        below.append(Path(entry.path))
        except OSError:  # gone or unreadable since it was listed: nothing of it to watch
            continue
        folders.extend(sorted(below, reverse=True))  # the first by name next, as os.walk walks


def _utf8(name: str) -> bool:
    """Whether a file name read from the disk is UTF-8 text (not a byte kept as a lone surrogate by Python)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _say_if_capped(folders: list[tuple[Path, int]]) -> None:
    """A line in the terminal when the watched folders reach the cap: the rest were not watched and their edits
    not shown, with not a word."""
    if len(folders) >= MAX_WATCHED_FOLDERS:
        print(f"pnp serve: the games' inputs are in more than {MAX_WATCHED_FOLDERS:,} folders: only the first "
              f"{MAX_WATCHED_FOLDERS:,} are watched (an edit in another is shown at the next save in a watched "
              "one)", file=sys.stderr, flush=True)


def _input_trees(project: "Project", games: Iterable[str], tops: list[Path], watched: list[Path]) -> list[Path]:
    """The trees of folders walked for the served games' inputs, none a link: their own folders in cards/ and
    layouts/ (`tops`, as far as they are real folders), layouts/shared and fonts/. Not cards/ and layouts/ whole:
    another game's folders (cards/aaa/ of 1,100) spent the watcher's cap, and the served game's edits were never
    seen, its preview silently showing what validate no longer said."""
    shared = [project.layouts / "shared"] if project.layouts in tops else []
    fonts = [project.own_fonts] if project.own_fonts in watched else []
    return [tree for tree in (*(top / game for top in tops for game in games), *shared, *fonts)
            if not tree.is_symlink()]


async def watch(project: "Project", games: Iterable[str], on_change: Callable[[set[str]], None],
                stop_event: asyncio.Event | None = None) -> None:
    """Call `on_change(set of game ids)` for each batch of saved inputs, until `stop_event` is set. The folders
    watched are looked for again every second: a project's fonts/ made after the preview started (or a
    cards/ made anew) was never watched, and the preview showed the game as it was, where validate refused it."""
    games = list(games)
    found = InputFilter(project, games)
    folders = await asyncio.to_thread(_folders_now, project, games)
    _say_if_capped(folders)
    failures = _WatchFailures()
    while stop_event is None or not stop_event.is_set():
        now: list[tuple[Path, int]] | None = None  # the folders as the walk that ended the watch found them
        try:
            if folders:
                now = await _watched(project, games, folders, found, on_change, stop_event, failures)
            else:
                await asyncio.sleep(FOLDERS_LOOKED_FOR_MS / 1000)
        except OSError as e:
            await asyncio.sleep(FOLDERS_LOOKED_FOR_MS / 1000)
            failures.note(e, lambda: on_change(set(games)))
        if now is None:  # (the watch ended otherwise: stopped, failed, or no folder to watch)
            now = await asyncio.to_thread(_folders_now, project, games)
        if now != folders:  # a folder made, or made anew: what it holds is read afresh
            if len(folders) < MAX_WATCHED_FOLDERS:
                _say_if_capped(now)
            folders, made = now, _games_of_folders(project, games, folders, now)
            if made:
                on_change(made)


async def _watched(project: "Project", games: list[str], folders: list[tuple[Path, int]], found: InputFilter,
                   on_change: Callable[[set[str]], None], stop_event: asyncio.Event | None,
                   failures: "_WatchFailures") -> list[tuple[Path, int]] | None:
    """Watch `folders` until the folders to watch are others (given back) or the watch ends (None), calling
    `on_change` with the games each batch of changes concerns (a batch: the watch began, no failure in a row)."""
    try:
        async for changes in awatch(*(folder for folder, _ in folders), watch_filter=found, stop_event=stop_event,
                                    debounce=400, step=30, rust_timeout=FOLDERS_LOOKED_FOR_MS, yield_on_timeout=True,
                                    recursive=False):
            failures.count = 0
            concerned: set[str] = set()
            for _, path in changes:
                concerned |= games_of(project, path, games)
            if concerned:
                on_change(concerned)
            if (now := await asyncio.to_thread(_folders_now, project, games)) != folders:
                return now
    except (WatchfilesRustInternalError, ExceptionGroup) as e:
        # a change to a file or folder whose name is not UTF-8 (cards/<game>/ made with a byte \xff in its
        # name) ended the watch for good, in watchfiles' words ('ExceptionGroup: unhandled errors in a
        # TaskGroup'), and the page showed no edit again: a failure of the watch, begun again a second later
        rest = e.split(WatchfilesRustInternalError)[1] if isinstance(e, ExceptionGroup) else None
        if rest is not None:
            raise
        raise OSError(errno.EILSEQ, "a name there is not UTF-8 text") from e
    return None


class _WatchFailures:
    """Watches in a row that could not begin. A folder listed was gone (or not to be watched) when its watch
    began: a tree removed while it was walked (rm -rf of a folder of thousands). The watcher ended there,
    silently, and the page showed no edit again until the server was restarted. It is looked for again a second
    later; the games are re-checked once (their edits in between were not seen); a failure is said when the same
    one comes again (a folder there that cannot be watched: a removal in progress fails at another folder each
    time), and each only once."""

    def __init__(self) -> None:
        self.count, self.last, self.said = 0, "", set[str]()

    def note(self, error: OSError, recheck: Callable[[], None]) -> None:
        self.count += 1
        if self.count == 1:
            recheck()
        elif str(error) == self.last and self.last not in self.said:
            self.said.add(self.last)
            # (escaped: the error may name a folder of the game's, whose name may hold an escape sequence)
            print(printable(f"pnp serve: cannot watch the games' folders ({error.strerror or error}): an edit is "
                            "shown at the next save once they can be"), file=sys.stderr, flush=True)
        self.last = str(error)


def _games_of_folders(project: "Project", games: list[str], before: list[tuple[Path, int]],
                      now: list[tuple[Path, int]]) -> set[str]:
    """The games that watched folders made, made anew or removed concern: those whose inputs they hold, but for
    output/ or a game's folder in it made (a first build), only the games whose simulation.json it holds: a
    build's output is no input."""
    output, there = project.output, dict(now)
    concerned: set[str] = set()
    for folder in {folder for folder, _ in set(before) ^ set(now)}:
        if folder == output or folder.parent == output:
            covered = games if folder == output else [folder.name]
            concerned |= {g for g in covered if folder not in there or project.simulation(g).exists()}
        else:
            concerned |= games_of(project, folder, games)
    return concerned
