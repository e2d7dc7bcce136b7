"""Which icon names exist: a game's aliases, its own icons/ folder, then layouts/shared/icons/."""

import errno
import os
import re
import stat
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from ..errors import DataError
from ..options import did_you_mean
from ..project import (MAX_LINK_HOPS, WRITTEN_RECORD_PREFIX, WRITTEN_RECORDS, Project, alike_pair, hidden_part, windows_renames,
                       not_regular, present, read_project_file)
from ..report import Mark, Suggest, character_named, named, type_name
from .load import Record
from .schema import ICON_IN_TEXT
from .shapes import CheckerShape


# a row `pnp icons add` writes in an icons folder's ATTRIBUTION.md (iconset.attribution_line): the icon's name and
# its file, named alike, then the set it came from
ADDED_ROW = re.compile(r"\| ([a-z0-9-]+) \| \1\.svg \| game-icons\.net \(")


class IconIndex:
    def __init__(self, project: Project, folders: Iterable[Path]) -> None:
        self.project = project
        self.folders = list(folders)
        self.aliases: dict[str, str] = {}
        # aliases game.yaml writes whose error was said there (None: its whole `icons:`): a text or field naming
        # one is not said again as an unknown icon (53 errors across the data of dino-ranch for `icons: ' '`)
        self.refused: frozenset[str] | None = frozenset()
        self.problems: list[DataError] = []  # DataErrors of icon files that point outside the project or nowhere
        self.used: set[Path] = set()  # the files of the icons asked for: what a build of the game depends on
        self._files: dict[str, Path] = {}
        self._found: dict[str, Path | None] = {}  # name -> path(): every card's text asks for the same few names
        self._names: list[str] | None = None  # names(), once asked for
        self._resolved: dict[str, str] = {}  # an alias -> the name its chain ends at (_resolve)
        # the icon name of each file found (a link's, not its target's: round-star.svg linking to t.svg is the
        # icon 'round-star', and a problem of the file was said as icon 't's, a name the game gives nowhere)
        self._named: dict[Path, str] = {}
        # the folders icon links' chains ended in, as the links wrote them, each where it really lies, and those
        # checked inside the project (_in_folder)
        self._real_folders: dict[str, Path] = {}
        self._passed: set[str] = set()
        self._shown_folders: dict[str, str] = {}  # an icon folder -> its path as messages say it (_shown)
        self._inside: dict[Path, Path] = {}  # each folder found inside the project -> where it really is
        for folder in reversed(self.folders):  # earlier folders win
            if not folder.is_dir():
                continue
            try:
                real_folder = project.inside(folder, what="icon folder", built=False)
            except DataError as e:
                self.problems.append(e)
                continue
            self._inside[folder] = real_folder
            entries = _svg_entries(folder)
            beside = {entry.name: entry for entry in entries}
            self._refuse_alike(folder, entries)
            for entry in entries:
                # a file that is no link lies where its folder really is; only links are followed one by one
                # (resolving each of the 167 shared icons took a tenth of a validation)
                stem = icon_name(entry.name[:-4] if entry.name.lower() != ".svg" else entry.name)  # (as Path.stem)
                if not entry.is_symlink() and not windows_renames(entry.name):  # (con.svg: refused by _linked)
                    file = self._files[stem] = real_folder / entry.name  # (made once: a Path is slow to make)
                    self._named[file] = stem
                    if not entry.is_file(follow_symlinks=False):  # (told by the listing alone: no stat)
                        self._special(folder / entry.name)
                    continue
                try:
                    real, ordinary = self._linked(folder, real_folder, beside, entry.name)
                except DataError as e:  # kept without its traceback: 19,000 links out of the project kept the
                    e.__context__ = None  # frames of each (and of the OSError it followed), 60 MB, the collector's work
                    self.problems.append(e.with_traceback(None))
                    continue
                if not ordinary and not real.exists():  # said at the link: its target's name was said as the icon's, at no file
                    shown = project.rel(folder / entry.name)
                    self.problems.append(DataError(f"icon file {named(shown)} is a symbolic link to no file "
                                                   f"({named(project.rel(real))})", Mark(shown)))
                    continue
                self._files[stem] = real
                self._named[real] = stem
                if not ordinary:
                    self._special(folder / entry.name)

    def _refuse_alike(self, folder: Path, entries: list[os.DirEntry[str]]) -> None:
        """A problem at the second of two icon files of `folder` whose names differ only in case or in how their
        accents are stored: one file on a disk that does not tell them apart, where a copy of the game on a Mac
        drew either (exit 0 here, with no word)."""
        if pair := alike_pair(sorted(entry.name for entry in entries)):
            first, second = (self.project.rel(folder / name) for name in pair)
            self.problems.append(DataError(
                f"icon files {named(first)} and {named(second)} differ only in case or in how their accents are "
                "stored: one file on a disk that does not tell such names apart (macOS, Windows, a USB stick), "
                "where the game draws whichever was copied there last: rename one", Mark(second)))

    def _linked(self, folder: Path, real_folder: Path, beside: dict[str, os.DirEntry[str]],
                name: str) -> tuple[Path, bool]:
        """The file the icon link `name` of `folder` (checked inside the project, really at `real_folder`) leads to,
        checked as Project.inside checks it, and whether it is known an ordinary file. Its links are followed one
        by one first (a link's text, read): one ending at an ordinary icon file of the same folder (l.svg ->
        t.svg, or through other links beside it) lies where that file does, already known inside the project, so
        only the rest are resolved: a folder of 19,000 links to one icon resolved each link from the project's
        root (20 s of a 4 s validation); one ending at an ordinary file of another folder lies in that folder,
        resolved once (_in_folder). A chain of more links than the system follows (MAX_LINK_HOPS) is
        refused before it is resolved: one of 3,000 links, each resolved through all the ones after it, ran past
        a minute, and would draw nothing (open() refuses it)."""
        if windows_renames(name):  # (a link named con.svg: Windows opens its console, whatever the link says)
            return self.project.inside(folder / name, what="icon file", built=False), False
        here, at = os.fspath(folder), name  # the folder the chain is in, and its name there
        for _hop in range(MAX_LINK_HOPS + 1):
            if here == os.fspath(folder) and (end := beside.get(at)) is not None and not end.is_symlink() and \
                    not windows_renames(at):  # (a name such as con.svg: refused by Project.inside, below)
                if end.is_file(follow_symlinks=False):  # (told by the listing alone: an icon, no link, not hidden)
                    return real_folder / at, True
                break
            try:
                target = os.readlink(os.path.join(here, at))
            except OSError as e:  # no link (its end), or gone: resolved below, unless it is an ordinary file
                if e.errno == errno.EINVAL and _ordinary(os.path.join(here, at)) and \
                        (real := self._in_folder(here, at, folder / name)) is not None:
                    return real, True
                break
            except ValueError:  # a name no file has: resolved below
                break
            here, at = os.path.split(os.path.join(here, target))
            if at in ("", ".", ".."):  # (a folder's name: resolved below)
                break
        else:
            shown = self.project.rel(folder / name)
            raise DataError(f"icon file {named(shown)} is a symbolic link loop or a chain of more than "
                            f"{MAX_LINK_HOPS} links (no more are followed)", Mark(shown))
        return self.project.inside(folder / name, what="icon file", built=False), False

    def _in_folder(self, here: str, at: str, link: Path) -> Path | None:
        """Where the ordinary file `at` (no link) of the folder `here`, as the chain of the icon link `link` wrote
        it, really lies: in `here` resolved, once per folder, when the file's own name can be refused by nothing
        but its folder (not hidden, no record pnp writes); else None, to be resolved whole. Checked as
        Project.inside checks it, once per folder that passes: a folder of 19,000 links to art/t.svg resolved
        each link (4.6 s), and 19,000 to one file outside the project each too."""
        if hidden_part([at]) or windows_renames(at) or at in WRITTEN_RECORDS or at.startswith(WRITTEN_RECORD_PREFIX):
            return None
        real_folder = self._real_folders.get(here)
        if real_folder is None:
            try:
                real_folder = self._real_folders[here] = Path(here).resolve()
            except (OSError, RuntimeError):  # (gone since, or a loop: resolved whole, and said so)
                return None
        real = real_folder / at
        if here not in self._passed:  # (a name of its own refused by nothing, its folder's refusal is its own)
            shown = self._shown(link)
            self.project.check_resolved(real, link, Mark(shown), what="icon file", shown=shown)
            self._passed.add(here)
        return real

    def _shown(self, link: Path) -> str:
        """The icon file `link` as a message names it (Project.rel), its folder's part worked out once: 19,000
        links to a folder out of the project each had their path made relative twice for their message."""
        folder = os.fspath(link.parent)
        shown_folder = self._shown_folders.get(folder)
        if shown_folder is None:
            shown_folder = self._shown_folders[folder] = self.project.rel(link.parent)
        return link.name if shown_folder == "." else f"{shown_folder}/{link.name}"

    def _special(self, path: Path) -> None:
        """A problem naming the icon file at `path` when it is (or links to) a named pipe, a socket, a device or
        a folder: said whether or not a card draws it, since an alias of its name (star: round-star) or an icon
        of the game's asked for otherwise passed it over without a word and drew another file in its place."""
        try:
            kind = not_regular(os.stat(path).st_mode)
        except OSError:  # gone since it was listed: said where it is read, if it is
            return
        if kind is not None:
            shown = self.project.rel(path)
            self.problems.append(DataError(f"icon file {named(shown)} is {kind}, not an ordinary file (pnp reads only "
                                           "ordinary files)", Mark(shown)))

    def check_credits(self, chk: CheckerShape) -> None:
        """A warning at each row `pnp icons add` wrote in the game's own icons/ATTRIBUTION.md whose icon file is
        not in that folder: an `icons add` killed between writing the credits and the icon (the credits go first,
        so that no icon is ever left uncredited) left a row for an icon that is not there, and validate said ok.
        Only an ordinary file, no link, of the folder already checked inside the project is read; one that is
        not, or is too large or not UTF-8, is `icons add`'s to refuse."""
        from .load import MAX_FILE_BYTES

        folder = self.folders[0]
        if (real := self._inside.get(folder)) is None:  # (none, or outside the project: said, and never read)
            return
        credits = real / "ATTRIBUTION.md"
        try:
            if not stat.S_ISREG(os.lstat(credits).st_mode):
                return
            raw = read_project_file(credits, MAX_FILE_BYTES, None)
            text = raw.decode("utf-8")
        except (OSError, ValueError, DataError):  # (LoadError is a DataError; a decode error a ValueError)
            return
        shown = self.project.rel(folder / "ATTRIBUTION.md")
        for number, line in enumerate(text.splitlines(), 1):
            row = ADDED_ROW.match(line)
            if row is not None and not present(real / f"{row[1]}.svg"):
                chk.report.warning(f"credits the icon {named(row[1])}, but {named(row[1] + '.svg')} is not in this folder "
                         "(an `icons add` stopped before writing it?): add it again with `pnp icons add`, or "
                         "remove the row", Mark(shown, number, 1))

    def set_aliases(self, aliases: Record, chk: CheckerShape, refused: frozenset[str] | None = frozenset()) -> None:
        """game.yaml's `icons:` (name -> icon); an alias naming nothing, or itself through others, is reported, and
        one not named by text, which text cannot name as `:name:` (`0x20:` ended validate as a bug in pnp).
        `refused`: the aliases written but refused (said), None when the whole `icons:` was."""
        for alias in [alias for alias in aliases if not isinstance(alias, (str, bool))]:  # (a true/false: Map.check)
            chk.error(f"an icon alias's name is text, and this one is {type_name(alias)}: quote it "
                      f"('{aliases.key_quoted(alias)}')", aliases.key_mark(alias))
        aliases = aliases.holding({alias: icon for alias, icon in aliases.items() if isinstance(alias, str)})
        self.aliases = {icon_name(alias): icon_name(str(icon)) for alias, icon in aliases.items()}
        self._found, self._names, self._resolved = {}, None, {}
        for problem in self.problems:
            chk.report.add(problem)
        for alias in aliases:
            if self._resolve(alias) not in self._files:
                chk.error(f"icon alias {named(alias)} points to unknown icon {named(aliases[alias])}"
                          f"{did_you_mean(aliases[alias], self.names())}", aliases.mark_of(alias))
        # (an alias naming a missing icon is still said where used, as the goldens icon-alias-* keep)
        self.refused = None if refused is None else frozenset(icon_name(name) for name in refused)

    def said(self, name: str) -> bool:
        """Whether `name` may be an alias game.yaml writes whose error was said there."""
        return self.refused is None or icon_name(name) in self.refused

    def _resolve(self, name: str) -> str:
        """Follow aliases to an icon name; an alias to itself (d12: d12) names the file, and a circle of
        aliases stops where it comes round (the file of that name, if any, else an unknown icon). Each name's end
        is kept, for every name on the way: a chain of 20,000 aliases (a0: a1, a1: a2...) was followed from each
        of its names, at each check and each suggestion (minutes)."""
        name = icon_name(name)
        path: list[str] = []
        on_path: dict[str, int] = {}
        while name in self.aliases and name not in self._resolved and name not in on_path:
            on_path[name] = len(path)
            path.append(name)
            name = self.aliases[name]
        if name in self._resolved:
            end = self._resolved[name]
        elif name in on_path:  # come round: each name of the circle stops at itself, one before it at the circle
            for member in path[on_path[name]:]:
                self._resolved[member] = member
            del path[on_path[name]:]
            end = name
        else:
            end = name
        for passed in path:
            self._resolved[passed] = end
        return end

    def path(self, name: str) -> Path | None:
        """The SVG file for an icon name or alias, or None."""
        if name in self._found:
            path = self._found[name]
        else:
            path = self._files.get(self._resolve(name))
            if len(self._found) < 4096:  # (a file of made-up names keeps no more)
                self._found[name] = path
        if path is not None:
            self.used.add(path)
        return path

    def icon_of(self, path: Path) -> str:
        """The icon name a file the index found is known by (its own name's stem, or its link's)."""
        return self._named.get(path, path.stem)

    def exists(self, name: str) -> bool:
        return self.path(name) is not None

    def known(self, name: str) -> bool:
        """Whether a name draws an icon, without counting its file as used (see unread_marker)."""
        return self._files.get(self._resolve(name)) is not None

    def unread_marker(self, name: str, suggest: Suggest = did_you_mean) -> str | None:
        """Why ':name:' in a text, which rich text reads as no icon (schema.icon_markers_unread), is an icon's name
        that prints as typed: the name of an icon (':my_star:' of my_star.svg, or an alias) or, but for its case,
        of one (':Star:'), or a word written with a letter from beyond a to z (':stаr:' with a Cyrillic 'а', alike
        on screen); None when it names none (a time, '10:30:45', is no icon). Such a text printed ':my_star:' or
        ':stаr:' where the icon was meant, with exit 0. `suggest` says an icon it may have meant."""
        marker = named(f":{name}:")
        if self.known(name):
            return (f"{marker} prints as typed, not the icon {named(name)}: a text names an icon by lowercase "
                    "letters, digits and hyphens only; give it such a name in game.yaml's `icons:` (an alias, "
                    f"'{_text_name(name)}: {name}') and write that")
        lower = name.lower()
        if lower != name and ICON_IN_TEXT.fullmatch(f":{lower}:") and self.known(lower):
            return f"{marker} prints as typed, not the icon '{lower}': an icon's name is lowercase; write ':{lower}:'"
        foreign = _foreign_letters(name)
        if foreign:  # (each named here: the suggestion's own naming of the letters is left out)
            return (f"unknown icon {marker}: its {', '.join(foreign)} {'is' if len(foreign) == 1 else 'are'} no "
                    "character of an icon's name (lowercase a to z, digits and hyphens), however alike on screen; "
                    f"the text prints {marker} as typed{suggest(name, self.names(), letters=False)}")
        return None

    def names(self) -> list[str]:
        """The names that draw an icon, as a message suggests them: an alias of an icon that is not there is
        none ('unknown icon 'attack' (did you mean 'attack'?)' when the alias attack named a missing file)."""
        if self._names is None:
            self._names = sorted(name for name in set(self._files) | set(self.aliases)
                                 if self._resolve(name) in self._files)
        return self._names


# what a word holds beside letters and digits: a combining mark ('sta\u0301r', its accent typed apart from its
# letter) and an invisible format character (a soft hyphen, a zero-width joiner)
_IN_WORDS = frozenset({"Mn", "Mc", "Me", "Cf"})


def _foreign_letters(name: str) -> list[str]:
    """The characters beyond ASCII of a name written as a word ('stаr', its 'а' Cyrillic; 'co\u00adin', a soft
    hyphen in it; 'sta\u0301r'), each as its code and Unicode name; none when it holds none, or holds other characters than a
    word's (':+1:' or ':→:' are no icon's name misspelt, and print as typed)."""
    if name.isascii() or not any(c.isalpha() for c in name) or \
            not all(c.isalnum() or c in "-_" or unicodedata.category(c) in _IN_WORDS for c in name):
        return []  # (a time in other digits, '١٠:٣٠:٤٥', names no icon: its colons print)
    return [character_named(c) for c in dict.fromkeys(name) if not c.isascii()]


def _ordinary(path: str) -> bool:
    """Whether `path`, no link, is an ordinary file (not a folder, a pipe, a device or gone)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _text_name(name: str) -> str:
    """A name a text can write for the icon `name` (lowercase letters, digits and hyphens), to suggest."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "icon"


def icon_name(name: str) -> str:
    """An icon's name in the one Unicode form it is known by (NFC): a Mac names the file café.svg with 'e' and
    an accent, which no name typed in game.yaml matched ("unknown icon 'café' (did you mean 'café'?)")."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def _svg_entries(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of a folder whose names end in .svg, in any case (a file saved as STAR.SVG, and so drawn by
    every SVG viewer, was not among the icons: 'unknown icon' beside it), by name (as
    sorted(folder.glob("*.svg")), from the directory's listing alone: a load lists the icon folders, 168
    icons). A hidden one is none (pnp reads no hidden file as part of a game): .star.svg was drawn as the icon
    '.star' but, as any hidden file, never digested (edited, the build said its kit was up to date), and the lock
    file an editor links while star.svg is edited (Emacs' .#star.svg, a link to no file) refused the game."""
    try:
        with os.scandir(folder) as entries:
            return sorted((e for e in entries if e.name[-4:].lower() == ".svg" and not hidden_part([e.name])),
                          key=lambda e: e.name)
    except OSError:  # gone or unreadable since it was found a folder: no icons of its own
        return []
