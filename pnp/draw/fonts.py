"""Registers the project's TTF fonts (fonts/fonts.yaml) once per process; every PDF embeds them."""

import functools

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from ..errors import BuildError
from ..model.load import LoadError, load_file

STYLES = ("regular", "bold", "italic", "bold_italic")


class FontSet:
    """Family name (e.g. 'Body', 'Display') -> the registered ReportLab font name of each style."""

    def __init__(self, families):
        self.families = families  # {family: {style: registered name}}
        self.licences = {}

    def name(self, family, bold=False, italic=False):
        styles = self.families.get(family) or self.families[next(iter(self.families))]
        key = "bold_italic" if bold and italic else "bold" if bold else "italic" if italic else "regular"
        return styles[key]

    def has(self, family):
        return family in self.families


@functools.lru_cache(maxsize=None)
def load_fonts(folder):
    """Read fonts.yaml in `folder` and register each font file (cached: parsed once per process)."""
    path = folder / "fonts.yaml"
    try:
        spec = load_file(path, str(path))
    except LoadError as e:
        raise BuildError(f"{e.mark}: {e.message} (pnp needs fonts/fonts.yaml listing TTF fonts)") from None
    families = {}
    for family, styles in (spec.get("families") or {}).items():
        names = {}
        for style in STYLES:
            file = styles.get(style) or styles.get("regular")
            reg = f"{family}-{style}"
            try:
                pdfmetrics.registerFont(TTFont(reg, str(folder / file)))
            except Exception as e:  # a bad or missing font file: say which, no traceback
                raise BuildError(f"{path}: font {family} {style} ({file}) cannot be loaded: {e}") from None
            names[style] = reg
        pdfmetrics.registerFontFamily(names["regular"], normal=names["regular"], bold=names["bold"],
                                      italic=names["italic"], boldItalic=names["bold_italic"])
        families[family] = names
    if not families:
        raise BuildError(f"{path}: no font families defined")
    fonts = FontSet(families)
    fonts.licences = {f: (s.get("name", f), s.get("license", "")) for f, s in spec["families"].items()}
    return fonts
