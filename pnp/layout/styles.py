"""Named text styles: layouts/<game>/text-styles.yaml and layouts/shared/text-styles.yaml, used by `style: name`,
so a layout says what a text is (a title, a rule) rather than its five settings again."""

from ..errors import DataError, LoadError
from ..model.load import Record, load_file
from ..options import did_you_mean
from ..report import Mark, named, shown as quoted, spelt, type_name
from ..template import is_template
from .elements.base import TEXT_STYLE
from ..project import Project, spelt_otherwise
from pathlib import Path

STYLE_KEYS = {**TEXT_STYLE}
OWN_KEYS = ("extends", "doc")
MAX_EXTENDS = 50  # styles built on styles, this deep at most (resolved by recursion: 3,000 was a traceback)


def _name_refused(name: object, written: str | None = None) -> str | None:
    """Why a style cannot be named `name`, None when it can: a layout's `style:` names text, so a style `1:` was
    unusable, and listing the styles beside one named by text (for an unknown style's message) ended as a bug in
    pnp, said at game.yaml; an empty name was listed as nothing ('styles: , title'). `written` is the name as its
    file writes it, where that prints otherwise (`yes:` was said 'true')."""
    if not isinstance(name, str):
        return f"a style's name is text, and this one is {type_name(name)}: quote it ('{written or spelt(name)}')"
    if not name.strip():
        return "a style's name is empty: name it"
    return None


STYLES_FILE = "text-styles"  # the name of the styles' file (.yaml) in a game's layouts and in the shared ones


class StyleSet:
    """The styles a game's layouts may use: its own first, then the shared ones. `problems` lists what is
    wrong in the files, as (message, mark)."""

    def __init__(self, project: Project, game_id: str) -> None:
        self.project = project
        self.problems: list[tuple[str, Mark | None]] = []
        self.raw: dict[str, Record] = {}  # style name -> its settings as written
        self.where: dict[str, Mark | None] = {}  # style name -> where it is written
        self.refused: set[str] = set()  # names of styles whose settings are refused (no mapping): said there
        # whether a styles file could not be read at all (malformed, nested too deep): its refusal is said at the
        # file, and every style a layout names was 'unknown ...; styles: none (declare them in text-styles.yaml)'
        self.unread = False
        for folder in (project.shared_layouts, project.layouts / game_id):  # the game's own win
            self._read(folder / f"{STYLES_FILE}.yaml")
        self.styles: dict[str, Record] = {}
        self.depth: dict[str, int] = {}  # style name -> how many styles deep it extends
        for name in self.raw:
            self._resolve(name, ())

    def _read(self, path: Path) -> None:
        if not path.exists() and not path.is_symlink():
            if spelt := spelt_otherwise(path.parent, path.name):  # (left unread, the shared styles printed)
                self.problems.append((f"text styles are read from {path.name}, spelt so: rename {quoted(spelt)} "
                                      f"to {path.name}", Mark(self.project.rel(path.parent / spelt))))
            return
        shown = self.project.rel(path)
        try:
            data = load_file(self.project.inside(path, Mark(shown), "styles file"), shown, self.project.root)
        except (LoadError, DataError) as e:
            self.problems.append((e.message, e.mark))
            self.unread = True
            return
        if data is None:
            return
        if not isinstance(data, Record):
            self.problems.append(("text-styles.yaml is a mapping of style name -> settings", Mark(shown, 1, 1)))
            return
        for name, spec in data.items():
            refused = _name_refused(name, data.key_written(name))
            if refused:
                self.problems.append((refused, data.key_mark(name)))
                continue
            if not isinstance(spec, Record):
                self.problems.append((f"style '{name}' is a mapping of text settings", data.mark_of(name)))
                self.refused.add(name)
                continue
            self._check_settings(spec)
            self.raw[name], self.where[name] = spec, data.mark_of(name)

    def _check_settings(self, spec: Record) -> None:
        """Note the keys of a style's settings it cannot have, and the values its keys cannot take."""
        for key in spec:
            if key not in STYLE_KEYS and key not in OWN_KEYS:
                allowed = list(STYLE_KEYS) + list(OWN_KEYS)
                self.problems.append((f"a text style does not take {named(spec.key_quoted(key))}{did_you_mean(key, allowed)}; it "
                                      f"sets {', '.join(allowed)}", spec.key_mark(key)))
            elif key in STYLE_KEYS and not is_template(spec[key]):
                try:
                    STYLE_KEYS[key].convert(spec[key])
                except ValueError as e:
                    self.problems.append((f"{key}: {e}", spec.mark_of(key)))

    def _resolve(self, name: str, stack: tuple[str, ...]) -> Record:
        """A style with the styles it extends folded in (theirs first)."""
        if name in self.styles:
            return self.styles[name]
        spec = self.raw[name]
        parent = spec.get("extends")
        merged = Record({k: v for k, v in spec.items() if k in STYLE_KEYS}, spec._marks, spec._key_marks, spec.mark)
        if parent is not None:
            if not isinstance(parent, str):
                self.problems.append((f"extends names one style, got {type_name(parent)}", spec.mark_of("extends")))
            elif len(stack) + self.depth.get(parent, 0) >= MAX_EXTENDS:  # a parent resolved before counts its own
                self.problems.append((f"styles extend each other more than {MAX_EXTENDS} deep", spec.mark_of("extends")))
            elif parent in stack or parent == name:
                self.problems.append((f"styles extend each other in a circle: {' -> '.join(stack + (name, parent))}",
                                      spec.mark_of("extends")))
            elif parent not in self.raw:
                self.problems.append((f"style {named(name)} extends unknown style {named(parent)}"
                                      f"{did_you_mean(parent, self.raw)}", spec.mark_of("extends")))
            else:
                merged = merged.merged_over(self._resolve(parent, stack + (name,)))
                self.depth[name] = self.depth.get(parent, 0) + 1
        self.styles[name] = merged
        return merged

    def get(self, name: str) -> Record | None:
        return self.styles.get(name)

    def names(self) -> list[str]:
        return sorted(self.styles)
