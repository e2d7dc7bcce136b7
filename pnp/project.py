"""Finds the game project (cards/, layouts/, fonts/, output/) and the games in it, and keeps every file a
game names inside the project folder."""

import os
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path

from .errors import DataError, UsageError
from .report import Mark


BUILTIN_FONTS = Path(__file__).resolve().parent / "fonts"  # pnp's own: Source Sans Pro and Averia Serif GWF


@dataclass(frozen=True)
class Project:
    root: Path

    @property
    def cards(self):
        return self.root / "cards"

    @property
    def layouts(self):
        return self.root / "layouts"

    @property
    def own_fonts(self):
        return self.root / "fonts"

    @property
    def fonts(self):
        """The project's fonts/ when it has a fonts.yaml, else the fonts that come with pnp, so a game
        needs no font files of its own."""
        own = self.own_fonts / "fonts.yaml"
        return self.own_fonts if own.exists() or own.is_symlink() else BUILTIN_FONTS

    @property
    def shared_layouts(self):
        return self.layouts / "shared"

    def games(self):
        """Game ids: folders of cards/ holding a game.yaml, sorted."""
        if not self.cards.is_dir():
            return []
        return sorted(p.name for p in self.cards.iterdir() if (p / "game.yaml").is_file())

    def select(self, names):
        """The games to work on: all when none are named; unknown names are a usage error."""
        games = self.games()
        if not names:
            if not games:
                raise UsageError(f"no games found: expected cards/<game>/game.yaml under {self.root}")
            return games
        unknown = [n for n in names if n not in games]
        if unknown:
            hints = []
            for n in unknown:
                close = get_close_matches(n, games, n=1)
                hints.append(f"'{n}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
            raise UsageError(
                f"unknown game {', '.join(hints)}; games here: {', '.join(games) or 'none'}"
            )
        return list(dict.fromkeys(names))

    def rel(self, path):
        """A path as shown in messages: relative to the project root when inside it."""
        path = Path(path)
        try:
            return path.absolute().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def inside(self, path, mark=None, what="file", shown=None):
        """`path` after following every symbolic link, if that is inside the project; otherwise a DataError
        naming it (as `shown`, the name the game wrote). A game someone sent you must not make pnp read, or
        embed in a PDF, any other file of yours."""
        path = Path(path)
        shown = shown or self.rel(path)
        try:
            real = path.resolve()
        except (OSError, RuntimeError):  # Python 3.11 raises RuntimeError on a symbolic link loop
            raise DataError(f"{what} '{shown}' is a symbolic link loop", mark or Mark(self.rel(path))) from None
        if not real.is_relative_to(self.root):
            raise DataError(f"{what} '{shown}' is outside the project folder (pnp reads only files inside it, "
                            "following links)", mark or Mark(self.rel(path)))
        return real


def write_file(path, data):
    """Write bytes to `path` atomically: a temporary file beside it (named for this process, so two writers
    never share one), then renamed over it; a reader never sees half a file. OSError when it cannot."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def find(root=None):
    """The project at --root, or the current directory."""
    base = Path(root) if root else Path.cwd()
    if not base.is_dir():
        raise UsageError(f"--root {base}: not a folder")
    return Project(base.resolve())
