"""The TTF fonts (the project's fonts/fonts.yaml, else pnp's own), registered once per process; every PDF embeds
them."""

import copy
import hashlib
import io
import math
import os
import struct
import sys
import threading
import unicodedata
import weakref

from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reportlab.pdfbase import pdfmetrics, ttfonts
from reportlab.pdfbase.ttfonts import TTFont, TTFontFace

from ..errors import DataError, LoadError
from ..options import blank
from ..model.load import MAX_FILE_BYTES, Record, load_bytes
from ..project import (BUILTIN_FONTS, file_status, named_alike, open_project_file, present, read_project_file,
                       spelt_otherwise)
from ..report import Mark, escaped, named, shown as quoted
from ..project import Project
from pathlib import Path

if TYPE_CHECKING:
    from PIL import ImageFont

STYLES = ("regular", "bold", "italic", "bold_italic")
# What each family of fonts.yaml's `families:` may say (printed by `pnp reference`).
FAMILY_FIELDS = {
    "regular": {"type": "str", "doc": "the TTF file of the upright face, relative to fonts.yaml"},
    "bold": {"type": "str", "required": False, "doc": "the bold face's TTF file (default: the regular one)"},
    "italic": {"type": "str", "required": False, "doc": "the italic face's TTF file (default: the regular one)"},
    "bold_italic": {"type": "str", "required": False,
                    "doc": "the bold italic face's TTF file (default: the regular one)"},
    "name": {"type": "str", "required": False,
             "doc": "the font's own name, as the rulebook's credits print it, at most 100 characters, not blank (default: the "
                    "family's name)"},
    "license": {"type": "str", "required": False,
                "doc": "its licence file (fonts you embed in a PDF you share must allow it: SIL OFL fonts do; a "
                       "font whose OS/2 fsType forbids embedding a subset of it is refused)"},
}
FAMILY_KEYS = set(FAMILY_FIELDS)
MAX_FONT_BYTES = 64 * 1024 * 1024  # the largest TTF fonts (whole CJK sets) are about 20 MB
# Each font file is read and parsed whole (ReportLab keeps every registered font whole), once however many styles
# name it (_registered_alike): 3,000 families of one font hung validation. A game's layouts use a few families;
# all its font files together are read up to this many bytes...
MAX_FAMILIES = 32
MAX_FONTS_READ = 4 * MAX_FONT_BYTES
# ...and hold up to this many glyphs: each glyph is checked (measured, subset, its outline's points counted), at
# about 0.12 ms a glyph, and 128 font files of DejaVu Sans's 5,900 glyphs took validation 94 s and 535 MB. As many
# as one font can hold (a whole CJK set), or two styles of a CJK font of 28,000; pnp's own 8 files hold 15,000
MAX_FONT_GLYPHS = 65_536
# The code points one character map of a font may map: a font has at most 65,535 glyphs, the largest (whole CJK
# sets) map about 70,000 code points; all 1,114,112 of Unicode's took ReportLab 3 s and 600 MB
MAX_CMAP_CODES = 200_000
# Subsetting a font copies the glyphs asked for and every glyph their composite glyphs are made of, walked anew for
# each subset of 255 characters (ReportLab's makeSubset, about 6 microseconds a glyph). A real font's composites
# are an accent over a letter, so checking every character walks about as many glyphs as it maps (70,000 in the
# largest); a 1.4 MB font whose 65,534 glyphs are each made of the next walked 65,534 glyphs per subset, and
# validation ran for minutes. The glyphs and component records all its subsets walk, at most this many
MAX_SUBSET_WALK = 300_000
# A font collection (.ttc) lists where each of its fonts begins: ReportLab reads every entry of the list, one by one,
# though it uses the first; a collection listing 15 million (a 60 MB file) ran for over a minute. The largest (whole
# CJK sets in every weight) hold a few dozen
MAX_COLLECTION_FONTS = 256
# The points of a glyph's outline, its composite glyphs' parts counted as often as they are placed: FreeType
# (which poppler, pdftoppm and many PDF readers use) holds an outline of at most 65,535 points (32,767 before
# version 2.13) and draws nothing of a larger one: an 'é' made of 42 copies of a glyph of 42 copies of 'o' printed
# no text, with exit 0 (pnp's PNG export too). Real fonts' most complex glyphs (CJK, hand-drawn) have thousands
MAX_GLYPH_POINTS = 32_767
# Composite glyphs made of composite glyphs, one inside another: a real font's are an accent over a letter, two or
# three deep (FreeType, which many PDF readers draw with, stops at a few dozen); _check_outlines counts a glyph's
# points by recursion, and a font whose 1,940 glyphs were each made of the next was 'a bug in pnp' (RecursionError)
MAX_COMPONENT_DEPTH = 32
# The points of the outlines of all the glyphs the font files map, each glyph once (a composite's parts counted as
# often as placed): FreeType loads each mapped glyph's outline to measure how far it reaches (_check_glyph_reach),
# about 65 ns a point. Each glyph may have MAX_GLYPH_POINTS, and a font may hold 65,535 glyphs: an 18 MB font
# whose glyphs each had 32,000 points (a few hundred bytes each, its points' flags repeated) took validation
# 218 s. Real fonts' average glyph has about 35 points (DejaVu Sans: 5,900 glyphs, 194,000 points), a CJK one's a
# hundred or two: 8 million is MAX_FONT_GLYPHS of 120 points, and about half a second's measuring
MAX_FONT_POINTS = 8_000_000
# A font's widest glyph, in its ems: real text fonts' are up to about 2.5 (a three-em dash is 3). pnp measures
# words, list labels and titles by these advances; a font whose bullet was 65 em wide put a list's text at
# "-59 mm", and one whose letters were 60 em wide said every text 'too long' at the game's lines, not the font's
MAX_ADVANCE_EM = 8.0
# A font's ascender (how far above its baseline it reaches), in its ems: pnp sets a text's first baseline this
# far below its box's top. Real fonts' are 0.6 to 1.1; one of 30 em (or -30) printed every card's text off its
# card with exit 0, one of 0 above its box
ASCENT_EM = (0.25, 3.0)
# How far each of a font's ASCII letters and digits reaches, from its lowest to its highest point, in its ems:
# real fonts' are about 0.5 (an 'x') to 1.3. A font is drawn at its size by its units per em, which one field of its head table
# says: one whose letters were drawn 1/16 of an em tall printed every text at a sixteenth of its size (10 pt as
# 0.6 pt, below pnp's 6 pt floor), exit 0; one whose letters were 11 em tall printed over the whole card
LETTER_HEIGHT_EM = (0.2, MAX_ADVANCE_EM)
# The letters and digits measured together of a font mapping no ASCII one (a CJK font maps tens of thousands)
LETTERS_MEASURED = 64
# How far any glyph's outline reaches from where it is set (above or below its baseline, before its start or past
# its advance), in its ems: real fonts' reach at most about 1.6 (DejaVu, Liberation, Noto, Source Sans, a math
# font's radical). pnp fits a text by its advances and its ascender, not its outlines: an 'é' drawn 20 em above
# its line (one composite glyph's offset) printed above the page, over the cards above it, with exit 0
GLYPH_REACH_EM = 4.0
SUBSETS_KEPT = 32  # of each registered font, its last subsets' bytes (an edit draws the same glyphs again)
# fonts.yaml path -> (its bytes' digest, FontSet, the font files' statuses): kept while none of them changes
_LOADED: dict[Path, tuple[str, "FontSet", tuple[tuple[Path, tuple[int, ...]], ...]]] = {}


@dataclass(frozen=True)
class ReadFace:
    """What reading a font file told of it, kept while the file is unchanged: its PostScript name, its content's
    digest and, of a file of several faces, the face it prints (printed_face; None for a font of one face)."""

    postscript: bytes
    digest: str
    printed: "PrintedFace | None"


# font file (its path and status) -> what was read of it when it was registered: one cache of the file (a second
# on the same key, of the face printed, was kept apart and could be missed or stale beside it)
_FACES: dict[tuple[Path, tuple[int, ...]], ReadFace] = {}


class FontSet:
    """Family name (e.g. 'Body', 'Display') -> the registered ReportLab font name of each style."""

    def __init__(self, families: dict[str, dict[str, str]], licences: dict[str, tuple[str, str, str]]) -> None:
        self.families = families  # {family: {style: registered name}}
        self.licences = licences  # {family: (name, licence file, the licence it grants as credited: _granted)}
        self.credit_marks: dict[str, Mark | None] = {}  # family -> its line in fonts.yaml (the credits print it)
        self.name_marks: dict[str, Mark | None] = {}  # family -> where fonts.yaml gives its name, if it does
        self.files: dict[str, tuple[str, Mark | None]] = {}  # registered name -> (its file as said, its line)
        # registered name -> the first character a text set in it printed whose glyph has no outline (blank_codes)
        self.blank_printed: dict[str, str] = {}
        # (family, bold, italic) -> name: asked for every run of text laid out or drawn
        self._names: dict[tuple[str, bool, bool], str] = {}
        self._widest: dict[str, float] = {}  # family -> widest_em
        self._mapped_by_all: dict[str, frozenset[str]] = {}  # family -> the characters each of its styles maps
        self._printed: dict[bytes, str] = {}  # PostScript name -> the digest of the first font file of that name

    def printed_name(self, postscript: bytes, digest: str) -> bytes:
        """The name a font file's PDF fonts print: its PostScript name, but for a second file of the same name
        and other content, that name and its content's digest (the fonts' parts in a PDF are named after it, so
        two of one name collided). Of this fonts.yaml alone, in its order: a build prints the same names alone
        or after other games."""
        first = self._printed.setdefault(postscript, digest)
        return postscript if first == digest else postscript + b"-" + digest[:8].encode()

    def name(self, family: str, bold: bool = False, italic: bool = False) -> str:
        found = self._names.get((family, bold, italic))
        if found is None:
            styles = self.families.get(family) or self.families[next(iter(self.families))]
            key = "bold_italic" if bold and italic else "bold" if bold else "italic" if italic else "regular"
            found = self._names[(family, bold, italic)] = styles[key]
        return found

    def has(self, family: str) -> bool:
        return family in self.families

    def unmapped(self, text: str, family: str, bold: bool = False, italic: bool = False) -> str | None:
        """The first character of `text` the family's style has no glyph for (ReportLab would print the font's
        blank box, or nothing), None when it maps them all. A control character is not (options.CONTROL_CHARACTER
        refuses it where a text is read), but for a tab and a line break, which texts may hold: ReportLab draws
        those as the box too (a title's tab in the pages' footers); rich text (draw.text) never gives it them,
        it breaks lines and spaces words at them."""
        registered = self.name(family, bold, italic)
        mapped = mapped_codes(registered)
        if (blank := blank_codes(registered)) and registered not in self.blank_printed:
            if (drawn_blank := next((ch for ch in text if ord(ch) in blank), None)) is not None:
                self.blank_printed[registered] = drawn_blank  # said at the font's line (blank_problems)
        return next((ch for ch in text if ord(ch) not in mapped
                     and (ch in "\t\n\r" or unicodedata.category(ch) != "Cc")), None)

    def blank_problems(self) -> list[tuple[str, Mark | None]]:
        """(message, fonts.yaml's line) for each font file a printed text found without an outline for a
        character it maps (a glyph table zeroed or emptied): its text would print blank. Once per line of
        fonts.yaml, however many styles name the file there."""
        said: dict[Mark | None, str] = {}
        for registered, ch in self.blank_printed.items():
            file, mark = self.files.get(registered, (registered, None))
            glyph, printed = (("of no width", "on the character after it") if ord(ch) in _narrow_codes(registered)
                              else ("with no outline", "as nothing"))
            said.setdefault(mark, f"font file {named(file)} maps character U+{ord(ch):04X} ('{ch}') to a glyph {glyph}: "
                                  f"the game prints it, and it would print {printed}; use a font file that draws it")
        return [(message, mark) for mark, message in said.items()]

    def styles_lacking(self, ch: str, family: str) -> str:
        """The styles of the family without a glyph for `ch` ('bold', 'bold and bold italic'), said when its
        regular style has one; '' when the regular lacks it too (the family lacks it)."""
        if self.unmapped(ch, family) is not None:
            return ""
        lacking = [name for name, bold, italic in (("bold", True, False), ("italic", False, True),
                                                   ("bold italic", True, True))
                   if self.unmapped(ch, family, bold, italic) is not None]
        return " and ".join(lacking)

    def maps_all(self, text: str, family: str) -> bool:
        """Whether every character of `text` has a glyph with an outline in each style of the family: one set
        test, so that a text whose characters all do (nearly every text) needs no run-by-run look (unmapped);
        False says only that some style may lack one (or draw it blank: unmapped then notes it)."""
        chars = self._mapped_by_all.get(family)
        if chars is None:
            codes = frozenset.intersection(*(_drawn_codes(self.name(family, bold, italic))
                                             for bold in (False, True) for italic in (False, True)))
            chars = self._mapped_by_all[family] = frozenset(map(chr, codes))
        return chars.issuperset(text)

    def widest_em(self, family: str) -> float:
        """The widest advance of any character in any style of the family, in ems: a word of n characters
        prints at most n times this many ems wide (at most MAX_ADVANCE_EM: _check_metrics)."""
        found = self._widest.get(family)
        if found is None:  # (asked for each paragraph the rulebook sets: 70,000 times for 14,000 of them)
            found = self._widest[family] = max(widest_em(self.name(family, bold, italic))
                                               for bold in (False, True) for italic in (False, True))
        return found


_WIDEST: dict[str, float] = {}  # registered font name -> its widest character's advance, in ems


def widest_em(registered: str) -> float:
    """A registered font's widest character's advance in ems, read once per registered font (as mapped_codes)."""
    found = _WIDEST.get(registered)
    if found is None:
        widths = getattr(getattr(pdfmetrics.getFont(registered), "face", None), "charWidths", None)
        found = _WIDEST[registered] = max(widths.values(), default=0) / 1000 if widths else MAX_ADVANCE_EM
    return found


_MAPPED: dict[str, frozenset[int]] = {}  # registered font name -> the code points its character map maps


def mapped_codes(registered: str) -> frozenset[int]:
    """The code points a registered font maps to a glyph pnp can set as typed (not unsettable): read once per
    registered font (its name holds its file's path and status, so a changed file is a new name). A code point
    mapped to glyph 0 is not: that is the font's missing-character box (.notdef), which a character map names for
    the characters a range of it skips (DejaVu Sans ExtraLight maps 73 so), and such a character printed as a box
    with exit 0."""
    found = _MAPPED.get(registered)
    if found is None:
        font = pdfmetrics.getFont(registered)
        glyphs = getattr(getattr(font, "face", None), "charToGlyph", None)
        found = _MAPPED[registered] = frozenset(code for code, glyph in glyphs.items()
                                                if glyph and not unsettable(chr(code))) - _marks_beside(font.face) \
            if glyphs else frozenset(range(32, 256))
    return found


MARKS = ("Mn", "Me")  # Unicode's combining marks set over the character before them (nonspacing, enclosing)


def _marks_beside(face: TTFontFace) -> frozenset[int]:
    """The combining marks (MARKS, but those that print nothing, such as a variation selector) whose glyph reaches
    right of the point it is set at. pnp places no mark (it sets each glyph where the previous one's advance ends,
    as ReportLab does): a font such as DejaVu Sans draws its marks wholly left of that point, over the letter
    before, while one that leaves them to be positioned by the text's shaper (pnp's own Source Sans Pro) draws
    them across it, and 'Cafe' with U+0301 printed its accent between the 'e' and the next word, exit 0."""
    positions, data = face.glyphPos, face._ttf_data
    glyphs = face.get_table_pos("glyf")[0]
    beside = set()
    for code, glyph in face.charToGlyph.items():
        if unicodedata.category(chr(code)) not in MARKS or blank(chr(code)) or glyph + 1 >= len(positions):
            continue
        start, end = positions[glyph], positions[glyph + 1]
        # a glyph's header: its number of contours, then its box (xMin, yMin, xMax, yMax); one of no data prints nothing
        if end - start >= 10 and struct.unpack_from(">h", data, glyphs + start + 6)[0] > 0:
            beside.add(code)
    return frozenset(beside)


# Unicode's bidirectional classes of the letters of right-to-left scripts (Hebrew's R; Arabic's, Syriac's and
# Thaana's AL)
_RIGHT_TO_LEFT = ("R", "AL")
_VIRAMA = 9  # the canonical combining class of a virama (Devanagari's U+094D): a shaper joins the consonants around it
# The blocks of the scripts written with no space between words whose lines break where a dictionary of the
# language says a word ends (Unicode's line-breaking class SA): Thai, Lao, Myanmar, Khmer, Tai Le, New Tai Lue,
# Khmer's symbols, Tai Tham, Myanmar's extensions, Tai Viet and Ahom. pnp has no such dictionary: a sentence of
# them was one word ("0 of its 60 fit" in a card's box that held two lines of it, "break it with spaces" in the
# rulebook), and their marks, which a shaper stacks (a Lao tone mark over a vowel above), printed over each other
# with exit 0
_DICTIONARY_BROKEN = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x1950, 0x19FF), (0x1A20, 0x1AAF),
                      (0xA9E0, 0xA9FF), (0xAA60, 0xAADF), (0x11700, 0x1174F))


def _dictionary_broken(ch: str) -> bool:
    """Whether `ch` is a letter or mark of a script whose lines break where a dictionary says (_DICTIONARY_BROKEN);
    its digits and punctuation break as any others do."""
    code = ord(ch)
    return any(low <= code <= high for low, high in _DICTIONARY_BROKEN) and unicodedata.category(ch)[0] in "LM"


def unsettable(ch: str) -> bool:
    """Whether pnp cannot print the character as it is read, though a font has its glyph: pnp sets text as ReportLab
    does, one glyph per character, left to right, with no reordering and no shaping. A letter of a right-to-left
    script printed its words backwards (Hebrew's 'שלום' read 'םולש', Arabic's letters unjoined), a spacing vowel
    sign of an Indic script (a spacing mark, which a shaper moves before its consonant or joins to it) and a virama
    in the order typed, as no reader of the script writes them; the PDF's text read back reversed too, exit 0. A
    letter of a script written without spaces between words, such as Thai, breaks into lines only by a dictionary
    of its language, which pnp does not have (_DICTIONARY_BROKEN)."""
    return (unicodedata.bidirectional(ch) in _RIGHT_TO_LEFT or unicodedata.category(ch) == "Mc"
            or unicodedata.combining(ch) == _VIRAMA or _dictionary_broken(ch))


_BLANK: dict[str, frozenset[int]] = {}  # registered font name -> the code points blank_codes found
# Characters whose glyph is rightly empty though they are no space, control or mark (fillers of Hangul, the blank
# Braille cell, the object replacement character)
_BLANK_BY_DESIGN = frozenset((0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0xFFFC))


_MAY_BE_BLANK = frozenset(("Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Me"))


def _drawn_codes(registered: str) -> frozenset[int]:
    """The code points a registered font maps to a glyph that has an outline (or may rightly have none)."""
    return mapped_codes(registered) - blank_codes(registered)


def blank_codes(registered: str) -> frozenset[int]:
    """The code points a registered TrueType font maps to a glyph with no outline (no data in its glyph
    table, or none of its contours) though they print something (not a space, a control or format character,
    nor a mark that may be empty such as a variation selector), or to a glyph of no width though they take
    room (_narrow_codes): read once per registered font, as mapped_codes."""
    found = _BLANK.get(registered)
    if found is None:
        face = getattr(pdfmetrics.getFont(registered), "face", None)
        found = _BLANK[registered] = (_outline_less(face) | _narrow_codes(registered) if face is not None
                                      else frozenset())
    return found


# Characters that always take room: letters, digits and spaces (a mark is set over the character before it,
# and a symbol or punctuation may be drawn over its neighbours by design: a fraction slash, an undertie)
_TAKE_ROOM = ("L", "N", "Zs")


def _narrow_codes(registered: str) -> frozenset[int]:
    """The letters, digits and spaces a registered TrueType font gives no advance: each printed on the next (a
    text set in a font whose advances were all zero printed as a blot, exit 0)."""
    found = _NARROW.get(registered)
    if found is None:
        widths = getattr(getattr(pdfmetrics.getFont(registered), "face", None), "charWidths", None) or {}
        found = _NARROW[registered] = frozenset(code for code, width in widths.items()
                                                if width <= 0 and unicodedata.category(chr(code)).startswith(_TAKE_ROOM))
    return found


_NARROW: dict[str, frozenset[int]] = {}  # registered font name -> the code points _narrow_codes found


def _outline_less(face: TTFontFace) -> frozenset[int]:
    positions, data = face.glyphPos, face._ttf_data
    glyphs = face.get_table_pos("glyf")[0]
    blank = set()
    for code, glyph in face.charToGlyph.items():
        if code in _BLANK_BY_DESIGN or unicodedata.category(chr(code)) in _MAY_BE_BLANK or glyph + 1 >= len(positions):
            continue
        start, end = positions[glyph], positions[glyph + 1]
        if end <= start or data[glyphs + start:glyphs + start + 2] in (b"\0\0", b"\0"):  # no data, or 0 contours
            blank.add(code)
    return frozenset(blank)


def unmapped_message(ch: str, family: str, style: str = "") -> str:
    """What is said of a character a text prints in a font that has no glyph for it, or that pnp cannot set as
    typed (unsettable: said so whatever the font, since no font would print it as read). `style` names the styles
    lacking it when the regular has it (FontSet.styles_lacking): a bold-only miss was said 'not in the font family
    'Body'', which the designer's regular Body font plainly has."""
    shown = ch if ch.isprintable() else escaped(ch)  # (a tab as '\t')
    if _dictionary_broken(ch):
        return (f"character U+{ord(ch):04X} ('{shown}') is of a script written without spaces between words (such "
                "as Thai, Lao, Khmer or Myanmar), whose lines break where a dictionary of the language says a word "
                "ends: pnp has none, nor does it stack the script's marks as a shaper does, so its text would not "
                "print as it is read; write the text in a script that separates its words with spaces")
    if unsettable(ch):
        how = ("is of a right-to-left script: pnp sets text left to right, one glyph per character, so its words "
               "would print backwards" if unicodedata.bidirectional(ch) in _RIGHT_TO_LEFT else
               "is a sign a script places or joins by shaping its text, which pnp does not do (it sets one glyph "
               "per character, left to right): it would print in the order typed, not as the script is read")
        return f"character U+{ord(ch):04X} ('{shown}') {how}; write the text in a left-to-right script"
    if unicodedata.category(ch) in MARKS:  # (shown alone, a mark sits on the quote before it: not shown)
        return (f"character U+{ord(ch):04X}, a combining mark, is not drawn over the letter before it by the font "
                f"family {named(family)} (pnp places no mark: it sets each glyph where the font draws it), so it would "
                "print beside that letter, or as a blank box; write the letter and its mark as one character ('é', "
                "not 'e' and U+0301), or set the text in a family whose font draws its marks over the letter before")
    if style:
        return (f"character U+{ord(ch):04X} ('{shown}') is not in the {style} style of the font family {named(family)} "
                "(its regular style has it): it would print as a blank box there; leave it out of the text in that "
                "style, or give the family a font file for that style that has it")
    return (f"character U+{ord(ch):04X} ('{shown}') is not in the font family {named(family)}: it would print as a blank "
            "box; leave it out, or set the text in a family of fonts.yaml whose font has it")


def load_fonts(project: Project) -> "FontSet":
    """Read fonts/fonts.yaml and register each font file (once per process while it and the files are
    unchanged).
    Raises DataError with the file and line of whatever is wrong."""
    _check_not_spelt_otherwise(project)
    path = project.fonts / "fonts.yaml"
    shown = project.rel(path)
    real = _inside(project, path, Mark(shown), "fonts file")
    if not real.exists():
        raise DataError("pnp needs fonts/fonts.yaml listing the TTF fonts to embed (see README)", Mark(shown))
    raw = read_project_file(real, MAX_FILE_BYTES, Mark(shown), beneath=_beneath(project))
    digest = hashlib.sha1(raw).hexdigest()
    cached = _LOADED.get(path)
    if cached and cached[0] == digest and all(_status(file) == status for file, status in cached[2]):
        return cached[1]
    try:
        spec = load_bytes(raw, shown)  # (the bytes digested: a second read could be of another file)
    except LoadError as e:
        raise DataError(e.message, e.mark) from None
    families = _families(spec, shown)
    fonts, read = FontSet({}, {}), FontsRead()
    files: list[tuple[Path, tuple[int, ...]]] = []  # each font file read, with its status then
    for family, styles in families.items():
        if not isinstance(family, str):  # (a layout's font: names a family by its text)
            raise DataError(f"font family name must be text, got {quoted(families.key_quoted(family))} (quote it)", families.key_mark(family))
        fonts.families[family] = _register(project, path, family, styles, families.mark_of(family), read, files, fonts)
        licence = _credit(family, styles, "license")
        fonts.licences[family] = (_credit(family, styles, "name"), licence,
                                  _granted(project, path, licence, styles.mark_of("license"), files))
        fonts.credit_marks[family] = families.mark_of(family)
        if "name" in styles:
            fonts.name_marks[family] = styles.mark_of("name")
    _LOADED[path] = (digest, fonts, tuple(files))
    return fonts


def _families(spec: object, shown: str) -> Record:
    """fonts.yaml's `families:`, DataError at its line when it is not a mapping of at most MAX_FAMILIES, or the
    file holds another key (a key misspelt was read as nothing)."""
    # a key misspelt (`x: 1`) and a `families:` written but empty or not a mapping are said as such, at their own
    # line: all three were said the generic "needs 'families:'" at the file's start
    if isinstance(spec, Record) and (other := next((key for key in spec if key != "families"), None)) is not None:
        raise DataError(f"fonts.yaml does not take {named(spec.key_quoted(other))}; it takes families", spec.key_mark(other))
    families = spec.get("families") if isinstance(spec, Record) else None
    if isinstance(spec, Record) and "families" in spec and not (isinstance(families, Record) and families):
        said = "names no family" if isinstance(families, Record) else f"expected a mapping, got {quoted(families)}"
        raise DataError(f"fonts.yaml families: {said}; each family names its regular/bold/italic/bold_italic "
                        "font files", spec.mark_of("families"))
    if not isinstance(families, Record):
        raise DataError("fonts.yaml needs 'families:', each with regular/bold/italic/bold_italic font files",
                        getattr(spec, "mark", None) or Mark(shown, 1, 1))
    if len(families) > MAX_FAMILIES:
        raise DataError(f"fonts.yaml names {len(families):,} families; pnp takes at most {MAX_FAMILIES}",
                        families.mark_of(list(families)[MAX_FAMILIES]))
    return families


def _check_not_spelt_otherwise(project: Project) -> None:
    """DataError at a project's fonts/Fonts.yaml or fonts.yml where it has no fonts.yaml (left unread, the game
    printed in pnp's own fonts)."""
    if project.fonts == BUILTIN_FONTS and (spelt := spelt_otherwise(project.own_fonts, "fonts.yaml")):
        raise DataError(f"a project's fonts are read from fonts/fonts.yaml, spelt so: rename {quoted(spelt)} "
                        "to fonts.yaml (pnp's own fonts would print the game)", Mark(project.rel(project.own_fonts / spelt)))


MAX_CREDIT = 100  # characters of a font's name or licence file: the rulebook's credits print them on one line


def _credit(family: str, styles: Record, key: str) -> str:
    """A family's `name` (default: the family's) or `license` (a file kept inside the project by _granted,
    default none), as the rulebook's credits print it; DataError at its line when it is not a short line of text (a control
    character in it is refused when fonts.yaml is read, as in any text: options.control_problem)."""
    value = styles.get(key, family if key == "name" else "")
    where = styles.mark_of(key)
    if not isinstance(value, str):
        raise DataError(f"font family {named(family)}: {key} must be text", where)
    if len(value) > MAX_CREDIT:
        raise DataError(f"font family {named(family)}: {key} of {len(value):,} characters; at most {MAX_CREDIT}", where)
    if key == "name" and blank(value):  # (the credits printed "Fonts: (no licence file given)", the name blank)
        raise DataError(f"font family {quoted(family)}: its name prints no word (the rulebook's credits print it); "
                        "give the font's name", where)
    return value


OFL = "SIL Open Font License"


def _granted(project: Project, path: Path, licence: str, mark: Mark | None,
             files: list[tuple[Path, tuple[int, ...]]]) -> str:
    """The licence a family's licence file grants, as the credits name it: the SIL Open Font License when the
    file says so in its opening lines, '' for any other (the credits then name the file) or none. The credits
    named the OFL whatever the file held, and for a family with no licence at all. The file is kept inside the
    project, and noted among `files` with its status, so that an edited licence is read again."""
    if not licence:
        return ""
    real = _inside(project, path.parent / licence, mark, "licence file", shown=licence)
    files.append((real, _status(real)))
    with open_project_file(real, MAX_FILE_BYTES, mark, "licence file", shown=licence, beneath=_beneath(project)) as f:
        opening = f.read(4096).decode("utf-8", "replace")
    return OFL if OFL.casefold() in " ".join(opening.split()).casefold() else ""


def _beneath(project: Project) -> Path | None:
    """The folder a file _inside found is opened beneath (open_project_file): the project's, as it was checked
    there, so that a folder of it swapped for a link since leads nowhere; none for pnp's own fonts."""
    return None if project.fonts == BUILTIN_FONTS else project.root


def _inside(project: Project, path: Path, mark: Mark | None, what: str, shown: str | None = None) -> Path:
    """A file of the project's fonts (kept inside the project), or of pnp's own."""
    if project.fonts == BUILTIN_FONTS:
        real = path.resolve()
        if not real.is_relative_to(BUILTIN_FONTS):
            raise DataError(f"{what} {named(str(path) if shown is None else shown)} is not among pnp's fonts", mark)
        return real
    real = project.inside(path, mark, what, shown=shown, built=False)
    if not present(real):  # (with the file named alike that is there: a font or licence named on a Mac)
        typed = path.name if shown is None else shown
        up = len(Path(typed).parts) - 1  # the folder `typed` is written from
        folder = path.parents[up] if 0 <= up < len(path.parents) else path.parent
        raise DataError(f"{what} {named(typed)} not found{project.meant(folder, typed)}", mark)
    if (alike := named_alike(path.parent, path.name)) is not None:  # (a copy on a Mac embedded either)
        raise DataError(f"{what} {named(path.name if shown is None else shown)} has {named(alike)} beside it, a name "
                        "that differs only in case or in how its accents are stored: one file on a disk that does not "
                        "tell such names apart (macOS, Windows, a USB stick), where the game uses whichever was "
                        "copied there last: rename one", mark)
    return real


# The first four bytes of a TrueType font (Windows', Apple's) and of a collection of them (.ttc), which ReportLab
# embeds, and of the font files it cannot read, as their users know them: each was refused in ReportLab's words
# ("Not a recognized TrueType font: version=0x774F4632")
_TRUETYPE_KINDS = (b"\0\1\0\0", b"true", b"ttcf")
_OTHER_FONT_KINDS = {b"wOFF": "a WOFF web font", b"wOF2": "a WOFF2 web font",
                     b"OTTO": "an OpenType font of PostScript outlines (CFF)", b"typ1": "a PostScript font"}


def _check_font_kind(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when the file is not a TrueType font or collection (_TRUETYPE_KINDS), saying what it is; nor is
    a collection whose first font (the one printed) is not a TrueType font: ReportLab said only "Not a recognized
    TrueType font: version=0x00000000"."""
    begins = font[:4]
    if begins == b"ttcf":
        first = int.from_bytes(font[12:16], "big")
        begins = font[first:first + 4]
        if begins in _TRUETYPE_KINDS and begins != b"ttcf" or first + 4 > len(font):
            return  # (a first font past the file's end: a file cut short, which _check_tables_within says)
        kind = _OTHER_FONT_KINDS.get(begins, "no font pnp knows (it does not begin as a TrueType font does)")
        raise DataError(f"{what} cannot be loaded: a font collection whose first font (the one pnp prints) is "
                        f"{kind}, where pnp embeds TrueType fonts (.ttf) and collections of them (.ttc)", mark)
    if begins in _TRUETYPE_KINDS:
        return
    kind = _OTHER_FONT_KINDS.get(begins, "no font file pnp knows (it does not begin as a TrueType font does)")
    raise DataError(f"{what} cannot be loaded: {kind}, where pnp embeds TrueType fonts (.ttf) and collections of "
                    "them (.ttc); name the family's .ttf files", mark)


def _check_tables_within(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when the font's (of a collection's first font's) table directory, or a table it lists, lies past
    the file's end: ReportLab read past it and said only "unpack requires a buffer of 2 bytes"."""
    try:
        beyond = next((tag for _, tag, table, length in _directory(font) if table + length > len(font)), None)
    except struct.error:
        beyond = b"directory"
    if beyond is not None:
        which = "table directory" if beyond == b"directory" else f"{beyond.decode()} table" \
            if all(0x20 <= c < 0x7F for c in beyond) else "table directory, or a table it lists,"
        raise DataError(f"{what} cannot be loaded: its {which} lies past the file's end ({len(font):,} bytes): a file "
                        "cut short or damaged?", mark)


# The bytes of the tables of fixed size ReportLab reads fields of (OpenType's sizes; OS/2's of its version 0, maxp's
# of its version 0.5): one cut short was read on into the table after it, its fields made of that table's bytes
_FIXED_TABLE_BYTES = {b"head": 54, b"hhea": 36, b"maxp": 6, b"post": 32, b"OS/2": 78}


def _check_fixed_tables_whole(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when a table of the font's (of a collection's first font's) of _FIXED_TABLE_BYTES is shorter: a
    head table of 20 bytes was refused as "tables do not agree (IndexError: list index out of range)"."""
    try:
        short = next(((tag, length) for _, tag, _, length in _directory(font)
                      if length < _FIXED_TABLE_BYTES.get(tag, 0)), None)
    except struct.error:  # the directory cut short: _check_tables_within said so
        return
    if short is not None:
        raise DataError(f"{what} cannot be loaded: its {short[0].decode()} table holds {short[1]:,} bytes, where "
                        f"one holds {_FIXED_TABLE_BYTES[short[0]]}: a file cut short or damaged?", mark)


def _check_outlines_table(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when the font (of a collection, its first) has no glyf table, a TrueType font's outlines: ReportLab
    read it without and failed subsetting it, said in Python's words ("KeyError: 'glyf'")."""
    try:
        if next(_tables(font, b"glyf"), None) is not None:
            return
    except struct.error:  # the directory cut short: _check_tables_within said so
        return
    kind = "an OpenType font of PostScript outlines (a CFF table), which pnp does not embed" \
        if next(_tables(font, b"CFF "), None) is not None else "a damaged file?"
    raise DataError(f"{what} cannot be loaded: it has no glyf table, where a TrueType font holds its outlines: {kind}",
                    mark)


def _check_metrics_and_locations_within(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when the font's hmtx table (each glyph's advance) or loca table (where each glyph's outline
    begins) is shorter than its glyph count (maxp) and its count of advances (hhea) say: ReportLab reads on past
    the table, into the tables after it, and a font whose hmtx was cut short printed its letters at the widths
    another table's bytes made, exit 0 (or past the file's end: "unpack requires a buffer of 2 bytes"). A table
    missing or cut short before these counts is left to ReportLab, which says so."""
    try:
        tables = {tag: (table, length) for _, tag, table, length in _directory(font)}
        glyphs = struct.unpack_from(">H", font, tables[b"maxp"][0] + 4)[0]
        advances = struct.unpack_from(">H", font, tables[b"hhea"][0] + 34)[0]
        long_locations = struct.unpack_from(">h", font, tables[b"head"][0] + 50)[0] == 1
        needed = {b"hmtx": 4 * advances + 2 * max(glyphs - advances, 0),
                  b"loca": (glyphs + 1) * (4 if long_locations else 2)}
        short = next(((tag, tables[tag][1], size) for tag, size in needed.items() if tables[tag][1] < size), None)
    except (KeyError, struct.error):
        return
    if short is not None:
        tag, length, size = short
        raise DataError(f"{what} cannot be loaded: its {tag.decode()} table holds {length:,} bytes where its "
                        f"{glyphs:,} glyphs (its maxp table) and {advances:,} advances (its hhea table) need "
                        f"{size:,}: a file cut short or damaged?", mark)


def _check_character_maps(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when a character map of the font spans more code points than Unicode has: ReportLab walks
    each code point of each range one by one, so one range of 4 billion, or a range repeated, ran without end
    (a font whose directory or maps are cut short is left to ReportLab, which says so). Each map is checked on
    its own: ReportLab reads the last one it can use, so one map cut short hides none after it."""
    for subtable in _character_maps(font):
        try:
            walked = _codes_walked(font, subtable)
        except struct.error:  # cut short before its ranges: ReportLab stops there too, having walked none
            continue
        if walked > MAX_CMAP_CODES:
            raise DataError(f"{what} cannot be loaded: its character map (cmap) spans {walked:,} code points and ranges; "
                            f"pnp reads at most {MAX_CMAP_CODES:,} (the largest fonts map about 70,000)", mark)


# What a font's licence says of embedding it (its OS/2 table's fsType), as the OpenType specification words it.
# pnp embeds a subset of each font in every PDF it writes: ReportLab embedded a font whose licence forbids that
# as any other, and the game's PDFs, sent to a print shop or shared, broke it without a word
_FORBIDDEN_EMBEDDINGS = ((lambda fs_type: fs_type & 0xF == 0x2, "embedding it (Restricted License embedding)"),
                         (lambda fs_type: fs_type & 0x100, "embedding a subset of it (No subsetting)"),
                         (lambda fs_type: fs_type & 0x200, "embedding its outlines (Bitmap embedding only)"))


def _check_licence_allows_subsets(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when the font's fsType says its licence forbids embedding a subset of its outlines in a PDF."""
    fs_type = _fs_type(font)
    for forbids, which in _FORBIDDEN_EMBEDDINGS:
        if fs_type is not None and forbids(fs_type):
            raise DataError(f"{what} cannot be embedded in a PDF: its licence forbids {which}, as its OS/2 "
                            f"table's fsType (0x{fs_type:04X}) says; use a font whose licence allows it (an "
                            "OFL font does)", mark)


# What OpenType allows of a font's units per em (its head table's unitsPerEm), by which every measure of it is
# divided: a font of 0 was refused as "cannot be loaded: division by zero", one of 1 as a glyph 2,200 em wide
UNITS_PER_EM = range(16, 16_385)


def _check_units_per_em(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when the font's (of a collection's first font's) units per em are past UNITS_PER_EM; a head
    table cut short is left to ReportLab, which says so."""
    try:
        units = [int(struct.unpack_from(">H", font, table + 18)[0]) for table in _tables(font, b"head")]
    except struct.error:
        return
    if units and units[0] not in UNITS_PER_EM:
        raise DataError(f"{what} cannot be loaded: its head table gives {units[0]:,} units per em, where a font "
                        f"has {UNITS_PER_EM.start} to {UNITS_PER_EM.stop - 1:,} (every measure of it is divided by "
                        "them): a damaged file?", mark)


def _fs_type(font: bytes) -> int | None:
    """The fsType of the font's (of a collection's first font's) OS/2 table; None when it has none, or the
    table is cut short (ReportLab fails there)."""
    try:
        for table in _tables(font, b"OS/2"):
            return int(struct.unpack_from(">H", font, table + 8)[0])
    except struct.error:
        return None
    return None


def _tables(font: bytes, wanted: bytes) -> Iterator[int]:
    """Where each table tagged `wanted` begins, of those the font's (of a collection's first font's) directory
    lists; struct.error when the directory is cut short."""
    for _, tag, table, _ in _directory(font):
        if tag == wanted:
            yield table


def _directory(font: bytes) -> Iterator[tuple[int, bytes, int, int]]:
    """(where its entry is, its tag, where it begins, its length) of each table the font's (of a collection's
    first font's) directory lists; struct.error when the directory is cut short."""
    directory = struct.unpack_from(">I", font, 12)[0] if font[:4] == b"ttcf" else 0
    for n in range(struct.unpack_from(">H", font, directory + 4)[0]):
        entry = directory + 12 + 16 * n
        tag, _, table, length = struct.unpack_from(">4sIII", font, entry)
        yield entry, tag, table, length


# A TrueType font's hinting: its programs (fpgm, prep), the values they read (cvt), and each glyph's own
# instructions, which FreeType runs to fit outlines to a screen's pixels; what pnp prints needs none (PDF readers
# such as pdfium draw without them). FreeType runs a million instructions of a program before it stops it: a font
# whose every glyph called a program of nearly that many took pnp's checks 28 ms a glyph, and validation a minute
_HINTING_TABLES = frozenset((b"fpgm", b"prep", b"cvt "))
_MAXP_INSTRUCTION_BYTES = 26  # where the maxp table says its largest glyph's instructions' size


def _measured(raw: bytes) -> "ImageFont.FreeTypeFont":
    """The font opened by FreeType at _MEASURED_SIZE without its hinting, as pdfium (pnp's PNG export, and
    Chrome's PDF viewer) draws it: its hinting tables renamed out of its directory and its glyphs' instructions
    said to be of no size, so FreeType runs none of its programs. OSError or ValueError when FreeType cannot read
    it."""
    from PIL import ImageFont

    unhinted = bytearray(raw)
    try:
        for entry, tag, table, length in _directory(raw):
            if tag in _HINTING_TABLES:
                unhinted[entry:entry + 4] = tag.upper().replace(b" ", b"_")  # (an unknown table's tag)
            elif tag == b"maxp" and length >= _MAXP_INSTRUCTION_BYTES + 2 and table + length <= len(raw):
                struct.pack_into(">H", unhinted, table + _MAXP_INSTRUCTION_BYTES, 0)
    except struct.error:  # the directory cut short: FreeType says what it makes of it
        pass
    return ImageFont.truetype(io.BytesIO(bytes(unhinted)), size=_MEASURED_SIZE, layout_engine=ImageFont.Layout.BASIC)


# The character maps ReportLab may choose whose codes are no Unicode code points, though it reads them as such
# (platform, encoding -> what they are): a font mapping only Mac Roman codes printed 'Ë' as 'À', 'Ê' as a space
_NOT_UNICODE_MAPS = {(1, 0): "Mac Roman", (1, 1): "Mac Japanese", (3, 2): "Shift JIS", (3, 3): "PRC", (3, 4): "Big5",
                     (3, 5): "Wansung", (3, 6): "Johab"}


def _check_map_is_unicode(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when the character map ReportLab reads of the font (of its cmap's records, the last of platform 3
    or of platform 0 but 0/5, else the last of platform 1 encoding 0, as its extractInfo chooses) maps codes of
    another encoding than Unicode."""
    chosen: tuple[int, int] | None = None
    records = list(_map_records(font))
    for platform, encoding in records:
        if platform in (0, 3) and (platform, encoding) != (0, 5) or (platform, encoding) == (1, 1):
            chosen = platform, encoding
        elif (platform, encoding) == (1, 0) and (chosen is None or chosen == (1, 0)):
            chosen = platform, encoding
    if chosen is None and _has_cmap(font):  # (ReportLab refused it in its words: "could not find a suitable cmap
        # encoding"; a font of no cmap table is said where ReportLab looks it up)
        found = ", ".join(f"{platform}/{encoding}" for platform, encoding in sorted(set(records))[:8]) or "none"
        raise DataError(f"{what} cannot be used: its character map (cmap) holds no map of characters' codes ReportLab "
                        f"reads (platform 3 or 0, or the Mac's 1/0; it holds {found}, and 0/5 maps only variation "
                        "sequences): use a font with a Unicode character map", mark)
    if chosen in _NOT_UNICODE_MAPS:
        raise DataError(f"{what} cannot be used: its character map is of {_NOT_UNICODE_MAPS[chosen]} codes (cmap "
                        f"platform {chosen[0]}, encoding {chosen[1]}), which ReportLab reads as Unicode: characters "
                        "past ASCII would print as others; use a font with a Unicode character map", mark)


def _has_cmap(font: bytes) -> bool:
    """Whether the font's (of a collection's first font's) directory lists a cmap table."""
    try:
        return next(_tables(font, b"cmap"), None) is not None
    except struct.error:  # the directory cut short: ReportLab says so
        return False


def _cmap_tables(font: bytes) -> Iterator[tuple[int, int, int]]:
    """(where it begins, its version, its count of maps) of each cmap table the font's (of a collection's first
    font's) directory lists; struct.error when the directory is cut short."""
    for table in _tables(font, b"cmap"):
        yield (table, *struct.unpack_from(">HH", font, table))


def _map_records(font: bytes) -> Iterator[tuple[int, int]]:
    """The (platform, encoding) of each character map the font's cmap lists, as ReportLab's extractInfo reads
    the list."""
    try:
        for table, version, count in _cmap_tables(font):
            for record in range(count if count or not version else version):
                yield struct.unpack_from(">HH", font, table + 4 + 8 * record)
    except struct.error:  # the directory or the list of maps cut short: ReportLab fails there too
        return


def _character_maps(font: bytes) -> Iterator[int]:
    """Where each character map of the font's cmap table begins."""
    try:
        for table, version, count in _cmap_tables(font):
            for record in range(max(version, count)):  # ReportLab reads the two swapped too
                yield table + struct.unpack_from(">I", font, table + 4 + 8 * record + 4)[0]
    except struct.error:  # the directory or the list of maps cut short: ReportLab fails there too
        return


def _codes_walked(font: bytes, at: int) -> int:
    """How many code points (and ranges of them) ReportLab's reading of the character map at `at` steps through."""
    fmt = struct.unpack_from(">H", font, at)[0]
    if fmt in (12, 13):
        # the groups inside the file: ReportLab walks each of them before it fails on the next. Each counts as a
        # step of its own, mapping a code point or none (5 million groups mapping none took 13 s), and once
        # there are more than any font has, those after are not read (60 groups of all Unicode's code points
        # after 200,001 of none were not counted, and took ReportLab 48 s and 3 GB)
        groups = min(struct.unpack_from(">I", font, at + 12)[0], max(0, (len(font) - at - 16) // 12))
        if groups > MAX_CMAP_CODES:
            return groups
        return groups + sum(max(end - start + 1, 0) for start, end, _ in
                            (struct.unpack_from(">III", font, at + 16 + 12 * g) for g in range(groups)))
    if fmt == 4:
        segments = struct.unpack_from(">H", font, at + 6)[0] // 2
        ends = struct.unpack_from(f">{segments}H", font, at + 14)
        starts = struct.unpack_from(f">{segments}H", font, at + 16 + 2 * segments)
        return sum(max(end - start + 1, 0) for start, end in zip(starts, ends))
    if fmt == 2:
        keys = struct.unpack_from(">256H", font, at + 6)
        entries = [struct.unpack_from(">H", font, at + 518 + 8 * k + 2)[0] for k in range(max(keys) + 1)]
        return sum(entries[k] for k in keys if k)
    if fmt in (6, 10):  # one entry of the file per code point, up to its count (or the file's end)
        listed, first = ((struct.unpack_from(">H", font, at + 8)[0], at + 10) if fmt == 6 else
                         (struct.unpack_from(">I", font, at + 16)[0], at + 20))
        # (a format 10 map of 8 million entries in a 16 MB font took ReportLab 20 s and 1.4 GB)
        return int(min(listed, max(0, (len(font) - first) // 2)))
    return 0  # format 0 reads at most 65,535 entries (its length is 16 bits)


def _check_metrics(face: TTFontFace, what: str, mark: Mark | None) -> None:
    """DataError when the font's glyphs are wider than MAX_ADVANCE_EM, or its ascender outside ASCENT_EM (the
    measures are ReportLab's, in thousandths of an em: its units per em are 16 or 16,384 alike)."""
    widest = max(face.charWidths.items(), key=lambda item: item[1], default=None)
    if widest is not None and widest[1] > MAX_ADVANCE_EM * 1000:
        code = widest[0]
        raise DataError(f"{what} cannot be used: its character U+{code:04X} ({_shown_character(code)}) is "
                        f"{widest[1] / 1000:,.1f} em wide (its head table's units per em and its hmtx table's "
                        f"advances); pnp takes fonts whose glyphs are at most {MAX_ADVANCE_EM:g} em wide (real "
                        "fonts' widest are about 3)", mark)
    low, high = ASCENT_EM
    if not low * 1000 <= face.ascent <= high * 1000:
        raise DataError(f"{what} cannot be used: its ascender (OS/2 sTypoAscender, or the head table's yMax) is "
                        f"{face.ascent / 1000:,.2f} em; pnp places a text's first line by it and takes "
                        f"{low:g} to {high:g} em (real fonts' are about 0.7 to 1.1)", mark)


def _check_code_points(face: TTFontFace, what: str, mark: Mark | None) -> None:
    """DataError when the font's character map maps a code point past Unicode's last (U+10FFFF): no text holds
    one, and pnp's checks of a font's characters read each mapped one as a character."""
    beyond = max(face.charToGlyph, default=0)
    if beyond > sys.maxunicode:
        raise DataError(f"{what} cannot be used: its character map (cmap) maps code point 0x{beyond:X}, past "
                        "Unicode's last (U+10FFFF); use a font whose character map is sound", mark)


# The characters ReportLab refuses in a font's PostScript name (besides those past ASCII): PostScript's delimiters
_POSTSCRIPT_DELIMITERS = frozenset("[](){}<>/%")
# The longest PostScript name OpenType allows: a PDF writes the name as its fonts' name, after a subset's tag of 7
# (pnp may add 9 of its digest), and PDF's names are at most 127 bytes: a font named by 30,000 characters was
# embedded so, and readers said "name token is longer than what the specification says it can be"
MAX_POSTSCRIPT_NAME = 63
_NAME_IDS = ((6, "PostScript name"), (4, "full name"), (1, "family name"))  # ReportLab's choice of the name, in order


def _read_name(font: bytes) -> tuple[int, str] | None:
    """(its name ID, the name) that ReportLab names the font (of a collection, its first font) by, read as it reads
    it: the first of each of _NAME_IDS written for Windows in US English (UTF-16BE) or for the Mac in Roman, the
    first of those IDs present; (0, '') when it has none of them; None when its name table is not one ReportLab reads
    (it says why)."""
    try:
        table = next(_tables(font, b"name"))
        form, records, strings = struct.unpack_from(">HHH", font, table)
        if form != 0:
            return None
        names: dict[int, str] = {}
        for n in range(records):
            platform, encoding, language, name_id, length, offset = struct.unpack_from(">6H", font, table + 6 + 12 * n)
            codec = "utf_16_be" if (platform, encoding, language) == (3, 1, 0x409) else \
                "mac_roman" if (platform, encoding, language) == (1, 0, 0) else None
            if codec is None or name_id in names or name_id not in dict(_NAME_IDS):
                continue
            if codec == "utf_16_be" and length % 2:
                return None  # (ReportLab refuses it)
            raw = font[table + strings + offset:table + strings + offset + length]
            try:
                names[name_id] = raw.decode(codec)
            except UnicodeDecodeError:
                names[name_id] = raw.decode("latin1")
            if len(names) == len(_NAME_IDS):
                break
    except (StopIteration, struct.error):
        return None
    return next(((name_id, names[name_id]) for name_id, _ in _NAME_IDS if names.get(name_id)), (0, ""))


def _check_name_records_within(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when the font's name table lists more names than the file holds (ReportLab read past its end,
    and the font was refused in Python's words: "unpack requires a buffer of 2 bytes")."""
    try:
        table = next(_tables(font, b"name"), None)
        records = struct.unpack_from(">H", font, table + 2)[0] if table is not None else 0
    except struct.error:  # the directory, or the table, cut short: ReportLab says so
        return
    if table is not None and table + 6 + 12 * records > len(font):
        raise DataError(f"{what} cannot be loaded: its name table lists {records:,} names, past the file's end "
                        f"({len(font):,} bytes): a file cut short or damaged?", mark)


def _check_name_characters(font: bytes, what: str, mark: Mark | None) -> None:
    """DataError when the name ReportLab gives the font (_read_name) holds a character a PDF cannot name a font by:
    a control character (ReportLab wrote it as an escape PDF readers cannot read, a line break as '#a': the PDF's
    font dictionaries broken, exit 0), one past ASCII or one of PostScript's delimiters (ReportLab refused the
    font in its own words, naming the name's UTF-8 bytes and the character's code: "psName=b'Ev(il)' contains
    invalid character 40"). A space is no fault: ReportLab writes it as '-'."""
    _check_name_records_within(font, what, mark)
    read = _read_name(font)
    if read is None:
        return
    name_id, name = read
    if not name_id:  # ReportLab then falls into a setting its own version lacks, and said so in Python's words
        raise DataError(f"{what} cannot be used: its name table holds no PostScript name, full name or family name "
                        "(IDs 6, 4, 1), which a PDF names a font by; use a font that names itself", mark)
    if len(name) > MAX_POSTSCRIPT_NAME:
        raise DataError(f"{what} cannot be used: its {dict(_NAME_IDS)[name_id]} (its name table's ID {name_id}) is "
                        f"{len(name):,} characters long, which a PDF names a font by; OpenType's PostScript names "
                        f"are at most {MAX_POSTSCRIPT_NAME}: use a font that names itself so", mark)
    bad = next((ch for ch in name if ch != " " and (ord(ch) < 0x21 or ord(ch) > 0x7E or ch in _POSTSCRIPT_DELIMITERS)),
               None)
    if bad is None:
        return
    code = ord(bad)
    said = f"the control character 0x{code:02X}" if code < 0x21 or 0x7F <= code < 0xA0 else \
        f"the character '{bad}'" if code <= 0x7E else f"the character U+{code:04X} ('{bad}')"
    raise DataError(f"{what} cannot be used: its {dict(_NAME_IDS)[name_id]} (its name table's ID {name_id}) holds "
                    f"{said}, which a PDF cannot name a font by; use a font whose name is "
                    "printable ASCII without ( ) < > [ ] { } / %", mark)


def _check_letter_heights(measured: "ImageFont.FreeTypeFont", face: TTFontFace, what: str, mark: Mark | None) -> None:
    """DataError when one of the font's ASCII letters and digits (of a font mapping none, its first letters and
    digits together) reaches, from its lowest to its highest point, outside LETTER_HEIGHT_EM, as FreeType (which
    many PDF readers draw fonts with) measures their outlines, composite glyphs and their scales too; or when
    FreeType cannot read the font. A glyph with no outline is not measured (blank_problems says it, if printed)."""
    drawn = sorted(set(face.charToGlyph) - _outline_less(face) - {code for code, glyph in face.charToGlyph.items()
                                                                   if not glyph})
    letters = [code for code in drawn if unicodedata.category(chr(code))[0] in "LN"]
    ascii_letters = [chr(code) for code in letters if code < 0x80]
    texts = ascii_letters or ["".join(map(chr, letters[:LETTERS_MEASURED]))] if letters else []
    try:
        heights = [(text, measured.getbbox(text)) for text in texts]
    except (OSError, ValueError) as e:
        raise _unread_by_freetype(what, e, mark) from None
    low, high = LETTER_HEIGHT_EM
    for text, (_, top, _, bottom) in heights:
        height = (bottom - top) / _MEASURED_SIZE
        if not low <= height <= high:
            shown = f"its character '{text}'" if len(text) == 1 else "its letters and digits"
            raise DataError(f"{what} cannot be used: {shown} is drawn {height:,.2f} em tall (its glyph's points and "
                            f"its head table's units per em); pnp takes fonts whose letters are {low:g} to {high:g} "
                            "em tall (real fonts' are about 0.5 to 1.3): it would print every text at another size "
                            "than the layouts say", mark)


def _check_glyph_reach(measured: "ImageFont.FreeTypeFont", digest: bytes, face: TTFontFace, what: str,
                       mark: Mark | None) -> None:
    """DataError when a glyph of a character the font maps reaches farther than GLYPH_REACH_EM from where it is
    set, as FreeType measures its outline (composite glyphs' offsets and scales too): above or below its
    baseline, before its start or past its advance. Each glyph once (about 20 microseconds: 0.6 s for a CJK
    font of 28,000), once per file content (`digest`) in a process."""
    if digest in _REACH_CHECKED:
        return
    blank = _outline_less(face)
    first_code = {glyph: code for code, glyph in sorted(face.charToGlyph.items(), reverse=True)
                  if glyph and code not in blank}
    for code in sorted(first_code.values()):
        try:
            left, top, right, bottom = measured.getbbox(chr(code), anchor="ls")  # (from its origin on its baseline)
        except (OSError, ValueError) as e:  # a glyph FreeType cannot load (its outline or its instructions cut short)
            raise DataError(f"{what} cannot be used: FreeType, which many PDF readers draw fonts with, cannot read "
                            f"its character U+{code:04X} ({_shown_character(code)}) ({type(e).__name__}: {e})",
                            mark) from None
        if left >= right or top >= bottom:
            continue  # no outline: blank_problems says it, if printed
        advance = face.charWidths.get(code, 0) * _MEASURED_SIZE / 1000
        reach, where = max((-top, "above its baseline"), (bottom, "below its baseline"),
                           (-left, "before where it is set"), (right - advance, "past its width"))
        if reach > GLYPH_REACH_EM * _MEASURED_SIZE:
            raise DataError(f"{what} cannot be used: its character U+{code:04X} ({_shown_character(code)}) is drawn "
                            f"{reach / _MEASURED_SIZE:,.2f} em {where} (its glyph's points or its parts' offsets); "
                            f"pnp takes fonts whose glyphs reach at most {GLYPH_REACH_EM:g} em from where they are set "
                            "(real fonts' about 1.5): it would print that character off its text's box, over other "
                            "texts or off the card", mark)
    _REACH_CHECKED.add(digest)


def _unread_by_freetype(what: str, error: Exception, mark: Mark | None) -> DataError:
    return DataError(f"{what} cannot be used: FreeType, which many PDF readers draw fonts with, cannot read it "
                     f"({type(error).__name__}: {error})", mark)


_REACH_CHECKED: set[bytes] = set()  # digests of the font files whose glyphs' reach was checked in this process
_MEASURED_SIZE = 1000  # pixels an em, as fonts are measured (thousandths of an em, as ReportLab's measures)


def _shown_character(code: int) -> str:
    """A character as a message quotes it: itself, but for one that prints nothing or moves the text."""
    return f"'{chr(code)}'" if chr(code).isprintable() else "unprintable"


def _check_embeddable(font: TTFont, digest: bytes, what: str, mark: Mark | None) -> None:
    """DataError unless every character the font maps can be embedded: each is subset as a PDF's save does,
    255 at a time (a font whose tables disagree, a glyph numbered past its glyph count, was registered and
    failed only in the middle of a build's save, with a traceback). About 25 microseconds a glyph (0.7 s for
    a CJK font of 28,000), so once per file content (`digest`) in a process: a family's four styles are most
    often one file."""
    if digest in _EMBEDDABLE:
        return
    codes = sorted(font.face.charToGlyph)
    try:
        if _subsets_walk(font.face, codes) > MAX_SUBSET_WALK:
            raise DataError(f"{what} cannot be embedded in a PDF: subsetting its characters walks more than "
                            f"{MAX_SUBSET_WALK:,} glyphs and parts of composite glyphs (each subset walks a "
                            "composite's parts again: an accented letter has a few)", mark)
        for start in range(0, len(codes), 255):
            font.face.makeSubset([0, *codes[start:start + 255]])
    except DataError:
        raise
    except Exception as e:  # noqa: BLE001 - ReportLab's subsetter meeting any broken table: say which
        raise DataError(f"{what} cannot be embedded in a PDF: its tables do not agree "
                        f"({type(e).__name__}: {e})", mark) from None
    _EMBEDDABLE.add(digest)


_EMBEDDABLE: set[bytes] = set()  # digests of the font files found embeddable in this process


def _subsets_walk(face: TTFontFace, codes: list[int]) -> int:
    """The glyphs and component records ReportLab's makeSubset walks to subset `codes`, 255 at a time, as
    _check_embeddable does: counted as it walks them, and no further than past MAX_SUBSET_WALK. Errors of a
    table cut short or a glyph past the font's count are ReportLab's too: left for makeSubset to meet."""
    data, positions, glyphs = face._ttf_data, face.glyphPos, face.get_table_pos("glyf")[0]
    walked = 0
    for start in range(0, len(codes), 255):
        order = [0, *dict.fromkeys(face.charToGlyph[code] for code in codes[start:start + 255])]
        found = set(order)
        for glyph in order:  # (grows while it is walked: the components of components)
            walked += 1
            if walked > MAX_SUBSET_WALK:
                return walked
            at = glyphs + positions[glyph]
            if positions[glyph + 1] == positions[glyph] or struct.unpack_from(">h", data, at)[0] >= 0:
                continue  # an empty or simple glyph
            at, flags = at + 10, _MORE_COMPONENTS
            while flags & _MORE_COMPONENTS and walked <= MAX_SUBSET_WALK:
                flags, component = struct.unpack_from(">HH", data, at)
                walked += 1
                if component not in found:
                    found.add(component)
                    order.append(component)
                at += 4 + _COMPONENT_ARGUMENTS[flags & 1] + _component_scale(flags)
    return walked


def _check_outlines(face: TTFontFace, what: str, mark: Mark | None) -> int:
    """The points of the outlines of the glyphs the font maps, each glyph once (as _check_glyph_reach loads
    them); DataError when a character the font maps has a glyph of more than MAX_GLYPH_POINTS points, its
    composite glyphs' parts counted as often as they are placed (a glyph made of itself, through others, has no
    end). _check_embeddable walked every composite already, so each record read here is one ReportLab read too."""
    data, positions, glyphs = face._ttf_data, face.glyphPos, face.get_table_pos("glyf")[0]
    points: dict[int, float] = {}  # glyph -> its outline's points (math.inf while it is being counted: a loop)

    def counted(glyph: int, depth: int = 0) -> float:
        if glyph in points:
            return points[glyph]
        if depth > MAX_COMPONENT_DEPTH:
            raise DataError(f"{what} cannot be used: its composite glyphs are made of composite glyphs more than "
                            f"{MAX_COMPONENT_DEPTH} deep, one inside another (a real font's are an accent over a "
                            "letter, two or three deep)", mark)
        points[glyph] = math.inf
        at = glyphs + positions[glyph]
        contours = struct.unpack_from(">h", data, at)[0] if positions[glyph + 1] > positions[glyph] else 0
        if contours >= 0:  # an empty or simple glyph: its last contour's last point, numbered from 0
            total: float = struct.unpack_from(">H", data, at + 10 + 2 * (contours - 1))[0] + 1 if contours else 0
        else:
            total, at, flags = 0, at + 10, _MORE_COMPONENTS
            while flags & _MORE_COMPONENTS and total <= MAX_GLYPH_POINTS:
                flags, component = struct.unpack_from(">HH", data, at)
                # (each part placed counts as a point too: FreeType loads it anew wherever it is placed, and a
                # 300 KB font whose glyph placed 200 parts of 200 parts of 200 empty glyphs, no point at all, took
                # validation 31 s and 430 MB, FreeType loading 8 million parts; 1,000 of each ran for hours)
                total += 1 + (counted(component, depth + 1) if component < len(positions) - 1 else 0)
                at += 4 + _COMPONENT_ARGUMENTS[flags & 1] + _component_scale(flags)
        points[glyph] = total
        return total

    mapped: dict[int, float] = {}  # glyph -> its points, of each glyph a character maps
    for code, glyph in sorted(face.charToGlyph.items()):
        try:
            if glyph < len(positions) - 1 and (mapped.setdefault(glyph, counted(glyph))) > MAX_GLYPH_POINTS:
                raise DataError(f"{what} cannot be used: its character U+{code:04X} ({_shown_character(code)}) is "
                                f"drawn with more than {MAX_GLYPH_POINTS:,} points (its composite glyph's parts and "
                                "their points, counted as often as placed); many PDF readers draw nothing of such a glyph (a real "
                                "font's most complex have thousands)", mark)
        except struct.error:  # a table cut short: the subsetting check met it first
            break
    return int(sum(mapped.values()))


_MORE_COMPONENTS = 1 << 5
_COMPONENT_ARGUMENTS = (2, 4)  # a component's two offsets as bytes or as words (its flags' first bit)


def _component_scale(flags: int) -> int:
    """The bytes of a component's scale, as its flags say (a scale, an x and y scale, or a 2 x 2 matrix)."""
    return 2 if flags & 1 << 3 else 4 if flags & 1 << 6 else 8 if flags & 1 << 7 else 0


def _status(path: Path) -> tuple[int, ...]:
    """A font file's file_status (none when it cannot be read: reading it says why)."""
    try:
        return file_status(os.stat(path))
    except OSError:
        return ()


def _no_regular(family: str, styles: object) -> str:
    """The refusal of a family without a regular font file: with what it got when it is no mapping of its styles
    (`Body: 1` was said as if a mapping lacking one)."""
    got = "" if isinstance(styles, Record) else f" (a mapping of its styles' files, got {quoted(styles)})"
    return f"font family {named(family)} needs at least a 'regular' font file{got}"


def _register(project: Project, path: Path, family: str, styles: object, mark: Mark | None,
              read: "FontsRead", files: list[tuple[Path, tuple[int, ...]]], fonts: FontSet) -> dict[str, str]:
    """The registered names of a family's four styles; `read` counts the font files read so far,
    `files` gathers each font file with its status, `fonts.files` each registered name's file and line."""
    if not isinstance(styles, Record) or "regular" not in styles:
        raise DataError(_no_regular(family, styles), mark)
    for key in styles:
        if key not in FAMILY_KEYS:
            raise DataError(f"font family {named(family)} does not take {named(styles.key_quoted(key))}; it takes {', '.join(sorted(FAMILY_KEYS))}",
                            styles.key_mark(key))
    names: dict[str, str] = {}
    for style in STYLES:
        key = style if style in styles else "regular"
        file, where = styles[key], styles.mark_of(key)
        if not isinstance(file, str) or blank(file):  # (an empty one was 'a folder': the folder of fonts.yaml)
            raise DataError(f"font file for {named(family)} {style} must be a file name", where)
        real = _inside(project, path.parent / file, where, "font file", shown=file)
        # the file's own path and status in the name: two projects in one process never share a registration,
        # and a font file replaced while `pnp serve` runs is read again (ReportLab keeps what it registered)
        status = _status(real)
        files.append((real, status))
        what = f"font {family} {style} ({file})"
        font = None
        if (real, status) not in _FACES:
            font = _read_font(real, status, file, where, what, read, _beneath(project))
        seen = _FACES[(real, status)]
        postscript, digest = seen.postscript, seen.digest
        if key == style:  # (a style not given is set in the regular file, as documented)
            _check_printed_face(seen.printed, style, what, where)
        printed = fonts.printed_name(postscript, digest)
        reg = f"{family}-{style}-{hashlib.sha1(f'{real}{status}'.encode()).hexdigest()[:6]}"
        reg += "" if printed == postscript else f"-{digest[:8]}"
        if reg not in pdfmetrics.getRegisteredFontNames():
            font = font or _registered_alike(printed, digest) or _read_font(real, status, file, where, what, read, _beneath(project))
            font.fontName = reg
            _register_face(font, printed, digest)
        names[style] = reg
        fonts.files[reg] = (file, where)
    return names


@dataclass
class FontsRead:
    """The bytes and glyphs of the font files one fonts.yaml's families name, read so far."""

    bytes: int = 0
    glyphs: int = 0
    points: int = 0  # of the glyphs' outlines they map (MAX_FONT_POINTS)


def _read_font(real: Path, status: tuple[int, ...], file: str, where: Mark | None, what: str,
               read: FontsRead, beneath: Path | None) -> TTFont:
    """The font file parsed and checked (its PostScript name and content digest noted in _FACES, under its path
    and `status`); `read` counts the font files read so far, which hold at most MAX_FONTS_READ bytes and
    MAX_FONT_GLYPHS glyphs (counted before the file is parsed). `beneath`: the folder it is opened beneath."""
    raw = read_project_file(real, MAX_FONT_BYTES, where, "font file", shown=file, beneath=beneath)
    read.bytes += len(raw)
    read.glyphs += _glyph_count(raw)
    if read.bytes > MAX_FONTS_READ:
        raise DataError(f"the font files fonts.yaml names add up to more than {MAX_FONTS_READ >> 20} MB, "
                        "each file counted once however many styles name it", where)
    if read.glyphs > MAX_FONT_GLYPHS:
        raise DataError(f"the font files fonts.yaml names hold more than {MAX_FONT_GLYPHS:,} glyphs together, each "
                        "file counted once however many styles name it (pnp checks every glyph of each): name fewer "
                        "font files (a style not given is set in its family's regular file)", where)
    if raw[:4] == b"ttcf" and int.from_bytes(raw[8:12], "big") == 0:  # (ReportLab: "bad subfontIndex 0 not in [0,-1]")
        raise DataError(f"{what} cannot be loaded: a font collection listing no fonts", where)
    if raw[:4] == b"ttcf" and (fonts := int.from_bytes(raw[8:12], "big")) > MAX_COLLECTION_FONTS:
        raise DataError(f"{what} cannot be loaded: a font collection listing {fonts:,} fonts; pnp reads at most "
                        f"{MAX_COLLECTION_FONTS} (the largest hold a few dozen)", where)
    _check_font_kind(raw, what, where)
    _check_tables_within(raw, what, where)
    _check_fixed_tables_whole(raw, what, where)
    _check_metrics_and_locations_within(raw, what, where)
    _check_outlines_table(raw, what, where)
    _check_character_maps(raw, what, where)
    _check_map_is_unicode(raw, what, where)
    _check_licence_allows_subsets(raw, what, where)
    _check_units_per_em(raw, what, where)
    _check_name_characters(raw, what, where)
    data = io.BytesIO(raw)
    data.name = file  # what ReportLab calls the font in its messages: the file as fonts.yaml says it
    try:
        font = TTFont(what, data)
    except KeyError as e:  # ReportLab looks a table up by its tag: a font without it said only "'post'"
        tag = e.args[0] if e.args else None
        missing = f"it has no {tag} table, which a TrueType font holds" if isinstance(tag, str) and len(tag) == 4 \
            else f"KeyError: {e}"
        raise DataError(f"{what} cannot be loaded: {missing}", where) from None
    except Exception as e:  # noqa: BLE001 - a font parser meeting any broken file: say which, no traceback
        raise DataError(f"{what} cannot be loaded: {e}", where) from None
    _check_code_points(font.face, what, where)
    _check_metrics(font.face, what, where)
    digest = hashlib.sha256(raw).digest()
    _check_embeddable(font, digest, what, where)
    read.points += _check_outlines(font.face, what, where)
    if read.points > MAX_FONT_POINTS:
        raise DataError(f"the font files fonts.yaml names draw the characters they map with more than "
                        f"{MAX_FONT_POINTS:,} points of outlines together, each glyph and file counted once (pnp "
                        "measures every glyph; real fonts' glyphs have tens of points each): name a font file "
                        "whose glyphs are drawn with fewer points, or fewer font files", where)
    try:  # (opened once for both checks: it copies the font, up to 64 MB, and FreeType parses it)
        measured = _measured(raw)
    except (OSError, ValueError) as e:
        raise _unread_by_freetype(what, e, where) from None
    _check_letter_heights(measured, font.face, what, where)  # (a glyph table missing or cut short: said above)
    _check_glyph_reach(measured, digest, font.face, what, where)
    font.face.makeSubset = _KeptSubsets(font.face.makeSubset)  # (after the check's whole subset)
    _FACES[(real, status)] = ReadFace(font.face.name, digest.hex(), printed_face(raw))
    return font


# A file of several faces prints one: a variable font (one of an fvar table), which holds every weight of a family
# or every width in one file, its default instance (ReportLab reads its outlines as they are and applies no
# variation), and a font collection (.ttc) of several fonts its first. Named as a family's bold (the same file as
# its regular, as a variable font's download invites), its bold text printed regular (exit 0), and so did a
# collection of a regular and a bold font. The face printed is told bold by its weight class, italic by its style
# bits, as any font's
BOLD_WEIGHT = 600  # SemiBold: OpenType's weight classes of bold faces (600 to 900)
_ITALIC_BIT = 1  # the OS/2 table's fsSelection and the head table's macStyle say a face is italic by this bit...
_MAC_ITALIC_BIT = 2  # ...(macStyle by this one)


@dataclass(frozen=True)
class PrintedFace:
    """The face a file of several faces prints (printed_face): what the file is, its weight class (OS/2
    usWeightClass) and whether it is italic."""

    file: str
    weight: int
    italic: bool

    def unlike(self, style: str) -> str | None:
        """Why this face cannot print the family's `style` (one of STYLES), or None."""
        bold, italic = style in ("bold", "bold_italic"), style in ("italic", "bold_italic")
        if (self.weight >= BOLD_WEIGHT) == bold and self.italic == italic:
            return None
        face = f"of weight {self.weight}{', italic' if self.italic else ''}"
        return (f"{self.file} alone, {face}, which is no {style.replace('_', ' ')} face; name a font file of that "
                "style (a variable font's download holds them, in static/)")


def _check_printed_face(face: PrintedFace | None, style: str, what: str, where: Mark | None) -> None:
    """DataError when a file of several faces is named as a style the face it prints is not (PrintedFace.unlike)."""
    if face is not None and (problem := face.unlike(style)):
        raise DataError(f"{what} cannot be used: {problem}", where)


def printed_face(font: bytes) -> PrintedFace | None:
    """The face a variable font or a collection of several fonts prints (its default instance, its first font),
    None for a font of one face or one whose tables are cut short (ReportLab says so)."""
    try:
        tags = {tag: table for _, tag, table, _ in _directory(font)}
        fonts = struct.unpack_from(">I", font, 8)[0] if font[:4] == b"ttcf" else 1
        weight, selection = struct.unpack_from(">H56xH", font, tags[b"OS/2"] + 4) if b"OS/2" in tags else (400, 0)
        mac_style = struct.unpack_from(">H", font, tags[b"head"] + 44)[0] if b"head" in tags else 0
    except struct.error:
        return None
    if fonts > 1:
        file = f"a font collection of {fonts} fonts, of which pnp prints the first"
    elif b"fvar" in tags:
        file = "a variable font (its fvar table), of which pnp prints the default instance"
    else:
        return None
    return PrintedFace(file, int(weight), bool(selection & _ITALIC_BIT or mac_style & _MAC_ITALIC_BIT))


def _glyph_count(font: bytes) -> int:
    """The glyphs the font's (of a collection's first font's) maxp table says it holds; 0 when it has none or it
    is cut short (ReportLab then fails to read it)."""
    try:
        return next((int(struct.unpack_from(">H", font, table + 4)[0]) for table in _tables(font, b"maxp")), 0)
    except struct.error:
        return 0


def _register_face(font: TTFont, printed: bytes, digest: str) -> None:
    """Register the font, its PDF name `printed`. ReportLab gives a font whose face (PostScript) name it met
    before the first font of that name (its glyphs, its widths): two files of one name, two games' or one
    file replaced while `pnp serve` runs, drew the second with the first's glyphs. So it is registered under a
    face name of its content and printed name, one font per content, and then given the name its PDFs print."""
    face = printed + b"." + digest.encode()
    font.face.name = face
    try:
        pdfmetrics.registerFont(font)
    finally:
        font.face.name = printed
    _REGISTERED_FACES.setdefault(face, font)


# face name registered (printed name and content digest) -> the font first registered with it: ReportLab gives
# every later name registered with that face name this font
_REGISTERED_FACES: dict[bytes, TTFont] = {}


def _registered_alike(printed: bytes, digest: str) -> TTFont | None:
    """A copy of the font registered with the face name of `printed` and `digest`, to register another name
    with (ReportLab gives that name the font registered first), or None when there is none. A family's styles,
    and families, naming one file were each read, parsed and checked again for nothing: 32 families naming
    DejaVu Sans took validation 26 s."""
    found = _REGISTERED_FACES.get(printed + b"." + digest.encode())
    if found is None:
        return None
    alike = copy.copy(found)
    alike.state = weakref.WeakKeyDictionary()  # (its own subsets in each PDF, were ReportLab ever to keep it)
    return alike


def _utf16_hex(code: int) -> str:
    """A character as the hexadecimal UTF-16BE a PDF's ToUnicode map gives it: a code point past U+FFFF as its
    pair of surrogates."""
    if code <= 0xFFFF:
        return f"{code:04X}"
    code -= 0x10000
    return f"{0xD800 + (code >> 10):04X}{0xDC00 + (code & 0x3FF):04X}"


def _to_unicode_cmap(fontname: str, subset: list[int]) -> str:
    """ReportLab's makeToUnicodeCMap (the map from each code of a font subset back to its character, which text is
    read back, copied and searched by), each character written in UTF-16BE as PDF says: ReportLab wrote a code
    point past U+FFFF as its bare digits (<1D538>), which readers cut to four: a rulebook's '𝔸𝔹' (U+1D538,
    U+1D539) read back as 'ᵓᵓ', exit 0. The same text for every other character, so the same bytes."""
    return "\n".join(["/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap", "/CIDSystemInfo",
                      f"<< /Registry ({fontname})", f"/Ordering ({fontname})", "/Supplement 0", ">> def",
                      f"/CMapName /{fontname} def", "/CMapType 2 def", "1 begincodespacerange",
                      f"<00> <{len(subset) - 1:02X}>", "endcodespacerange", f"{len(subset)} beginbfchar",
                      *(f"<{i:02X}> <{_utf16_hex(code)}>" for i, code in enumerate(subset)),
                      "endbfchar", "endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"])


ttfonts.makeToUnicodeCMap = _to_unicode_cmap  # (what TTFont.addObjects calls for each subset it writes)


class _KeptSubsets:
    """A font's makeSubset (ReportLab writes, in every PDF, each font's glyphs that PDF draws, in the order it
    drew them) that gives the bytes it made for the same glyphs in the same order again: a function of the
    font's data, which a registered font keeps (a font file replaced is registered anew), and of the glyphs.
    The preview draws an edited card into a PDF of its own: its fonts were subset alike at the last edit."""

    def __init__(self, make: Callable[[list[int]], bytes]) -> None:
        self.make = make
        self.kept: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self.made = 0  # subsets made (the others were kept)
        self._lock = threading.Lock()  # (a font is registered once per process, whichever thread draws)

    def __call__(self, subset: list[int]) -> bytes:
        key = tuple(subset)
        with self._lock:
            found = self.kept.get(key)
            if found is not None:
                self.kept.move_to_end(key)
                return found
        found = self.make(list(subset))
        with self._lock:
            self.kept[key] = found
            self.made += 1
            if len(self.kept) > SUBSETS_KEPT:
                self.kept.popitem(last=False)
        return found
