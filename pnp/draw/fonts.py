"""The TTF fonts (the project's fonts/fonts.yaml, else pnp's own), registered once per process; every PDF embeds
them."""

import hashlib
import io

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from ..errors import DataError, LoadError
from ..model.load import MAX_FILE_BYTES, Record, load_file
from ..project import BUILTIN_FONTS, read_project_file
from ..report import Mark

STYLES = ("regular", "bold", "italic", "bold_italic")
# What each family of fonts.yaml's `families:` may say (printed by `pnp reference`).
FAMILY_FIELDS = {
    "regular": {"type": "str", "doc": "the TTF file of the upright face, relative to fonts.yaml"},
    "bold": {"type": "str", "required": False, "doc": "the bold face's TTF file (default: the regular one)"},
    "italic": {"type": "str", "required": False, "doc": "the italic face's TTF file (default: the regular one)"},
    "bold_italic": {"type": "str", "required": False,
                    "doc": "the bold italic face's TTF file (default: the regular one)"},
    "name": {"type": "str", "required": False,
             "doc": "the font's own name, as the rulebook's credits print it (default: the family's name)"},
    "license": {"type": "str", "required": False,
                "doc": "its licence file (fonts you embed in a PDF you share must allow it: SIL OFL fonts do)"},
}
FAMILY_KEYS = set(FAMILY_FIELDS)
MAX_FONT_BYTES = 64 * 1024 * 1024  # the largest TTF fonts (whole CJK sets) are about 20 MB
_LOADED = {}  # fonts.yaml path -> (its bytes' digest, FontSet)


class FontSet:
    """Family name (e.g. 'Body', 'Display') -> the registered ReportLab font name of each style."""

    def __init__(self, families, licences):
        self.families = families  # {family: {style: registered name}}
        self.licences = licences  # {family: (name, licence file)}
        self._names = {}  # (family, bold, italic) -> name: asked for every run of text laid out or drawn

    def name(self, family, bold=False, italic=False):
        found = self._names.get((family, bold, italic))
        if found is None:
            styles = self.families.get(family) or self.families[next(iter(self.families))]
            key = "bold_italic" if bold and italic else "bold" if bold else "italic" if italic else "regular"
            found = self._names[(family, bold, italic)] = styles[key]
        return found

    def has(self, family):
        return family in self.families


def load_fonts(project):
    """Read fonts/fonts.yaml and register each font file (once per process while the file is unchanged).
    Raises DataError with the file and line of whatever is wrong."""
    path = project.fonts / "fonts.yaml"
    shown = project.rel(path)
    real = _inside(project, path, Mark(shown), "fonts file")
    if not real.exists():
        raise DataError("pnp needs fonts/fonts.yaml listing the TTF fonts to embed (see README)", Mark(shown))
    raw = read_project_file(real, MAX_FILE_BYTES, Mark(shown))
    digest = hashlib.sha1(raw).hexdigest()
    cached = _LOADED.get(path)
    if cached and cached[0] == digest:
        return cached[1]
    try:
        spec = load_file(path, shown)
    except LoadError as e:
        raise DataError(e.message, e.mark) from None
    families = spec.get("families") if isinstance(spec, Record) else None
    if not isinstance(families, Record) or not families:
        raise DataError("fonts.yaml needs 'families:', each with regular/bold/italic/bold_italic font files",
                        getattr(spec, "mark", None) or Mark(shown, 1, 1))
    fonts = FontSet({}, {})
    for family, styles in families.items():
        fonts.families[family] = _register(project, path, family, styles, families.mark_of(family))
        fonts.licences[family] = (styles.get("name", family), styles.get("license", ""))
    _LOADED[path] = (digest, fonts)
    return fonts


def _inside(project, path, mark, what, shown=None):
    """A file of the project's fonts (kept inside the project), or of pnp's own."""
    if project.fonts == BUILTIN_FONTS:
        real = path.resolve()
        if not real.is_relative_to(BUILTIN_FONTS):
            raise DataError(f"{what} '{shown or path}' is not among pnp's fonts", mark)
        return real
    return project.inside(path, mark, what, shown=shown)


def _register(project, path, family, styles, mark):
    if not isinstance(styles, Record) or "regular" not in styles:
        raise DataError(f"font family '{family}' needs at least a 'regular' font file", mark)
    for key in styles:
        if key not in FAMILY_KEYS:
            raise DataError(f"font family '{family}' does not take '{key}'; it takes {', '.join(sorted(FAMILY_KEYS))}",
                            styles.key_mark(key))
    names = {}
    for style in STYLES:
        key = style if style in styles else "regular"
        file, where = styles[key], styles.mark_of(key)
        if not isinstance(file, str):
            raise DataError(f"font file for '{family}' {style} must be a file name", where)
        real = _inside(project, path.parent / file, where, "font file", shown=file)
        # the file's own path in the name: two projects in one process never share a registration
        reg = f"{family}-{style}-{hashlib.sha1(str(real).encode()).hexdigest()[:6]}"
        if reg not in pdfmetrics.getRegisteredFontNames():
            data = io.BytesIO(read_project_file(real, MAX_FONT_BYTES, where, "font file", shown=file))
            data.name = str(real)  # what ReportLab calls the font in its messages
            try:
                pdfmetrics.registerFont(TTFont(reg, data))
            except Exception as e:  # noqa: BLE001 - a font parser meeting any broken file: say which, no traceback
                raise DataError(f"font {family} {style} ({file}) cannot be loaded: {e}", where) from None
        names[style] = reg
    return names
