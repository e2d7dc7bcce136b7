"""Which icon names exist: a game's aliases, its own icons/ folder, then layouts/shared/icons/."""

from pathlib import Path


class IconIndex:
    def __init__(self, folders, aliases=None):
        self.folders = [Path(f) for f in folders]
        self.aliases = dict(aliases or {})
        self._files = {}
        for folder in reversed(self.folders):  # earlier folders win
            if folder.is_dir():
                for svg in folder.glob("*.svg"):
                    self._files[svg.stem] = svg

    def path(self, name):
        """The SVG file for an icon name or alias, or None."""
        seen = set()
        while name in self.aliases and name not in seen:
            seen.add(name)
            name = self.aliases[name]
        return self._files.get(name)

    def exists(self, name):
        return self.path(name) is not None

    def names(self):
        return sorted(set(self._files) | set(self.aliases))
