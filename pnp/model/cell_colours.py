"""Whether a workbook cell's text shows against its fill: a value typed in white on a white cell (or in any colour
on a fill of that colour) is read and printed on the cards, where the spreadsheet program shows nothing. pnp reads
it (a designer may colour a cell so on purpose, and its value is the cell's), and warns of it (_SheetRead), and of a
conditional format's rule colouring its cells' text so (it runs no rule's condition: _SheetRead._hides_by_condition).
An Excel table's style is not read (its rows' fills are the spreadsheet program's own, for a built-in style): a
cell of no fill of its own inside a table of a style (styled_tables) is taken to show, as a colour pnp cannot tell
is; one outside every table, or in a table of no style, is judged as in a sheet of none."""

import colorsys
import math
import re
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from ..options import rgb
from .workbook_parts import MAX_XML_PART_BYTES, local_name

# A text whose colour's contrast with its fill is under this ratio (WCAG 2's: 1 for one colour, 21 for black on
# white) hardly shows: white on white is 1, white on Excel's "White, Darker 5%" 1.12, yellow on white 1.07
UNSEEN_CONTRAST = 1.1

# Excel's theme colours by their number in a style (ECMA-376 Part 1, 18.8.3: 0 is the theme's lt1, 1 its dk1, then
# lt2, dk2, accent1-6, hlink, folHlink) and the names of the theme part's <clrScheme> elements holding them;
# the Office theme's own, where a workbook has no theme part to read
_THEME_ORDER = ("lt1", "dk1", "lt2", "dk2", "accent1", "accent2", "accent3", "accent4", "accent5", "accent6",
                "hlink", "folHlink")
_OFFICE_THEME = ("FFFFFF", "000000", "E7E6E6", "44546A", "4472C4", "ED7D31", "A5A5A5", "FFC000", "5B9BD5",
                 "70AD47", "0563C1", "954F72")
_TEXT_DEFAULT = "000000"  # a font of no colour, or "automatic" (Excel shows it black, on any fill)
_SHEET_BACKGROUND = "FFFFFF"  # a cell of no fill
_THEME_PART = "xl/theme/theme1.xml"  # where openpyxl's reader reads a workbook's theme (ARC_THEME), and Excel
# writes it: read where the workbook's relations put it (_theme_part), here where they name none


def _part_root(archive: Any, name: str) -> Any:
    """The root element of the XML part `name` of the workbook's zip `archive`, of its first MAX_XML_PART_BYTES
    and one more (a part past them, checked before, fails to parse); KeyError, ParseError, OSError as it fails."""
    from xml.etree.ElementTree import XMLParser

    with archive.open(name) as source:
        parser = XMLParser()
        parser.feed(source.read(MAX_XML_PART_BYTES + 1))
        return parser.close()


def theme_colours(archive: Any) -> tuple[str, ...]:
    """The 12 colours of the workbook's theme (in `archive`, its zip), by their number in a style; the Office
    theme's where the part is missing or a colour cannot be read from it."""
    from xml.etree.ElementTree import ParseError

    try:
        root = _part_root(archive, _theme_part(archive))
    except (KeyError, ParseError, OSError, ValueError):
        return _OFFICE_THEME
    found: dict[str, str] = {}
    for element in root.iter():
        name = local_name(element.tag)
        if name in _THEME_ORDER and name not in found:
            for colour in element:
                value = colour.get("lastClr") if local_name(colour.tag) == "sysClr" else colour.get("val")
                if value and _hex_colour(value):
                    found[name] = value.upper()
                break
    return tuple(found.get(name, default) for name, default in zip(_THEME_ORDER, _OFFICE_THEME))


def _theme_part(archive: Any) -> str:
    """The name of the workbook's theme part in `archive`, as Excel finds it: the target of the workbook part's
    relation of type theme (openpyxl reads xl/theme/theme1.xml alone, and the Office theme's colours were taken
    for those of a theme kept elsewhere); _THEME_PART where none is named. A name is looked up in the zip alone."""
    from xml.etree.ElementTree import ParseError

    from openpyxl.packaging.relationship import get_dependents, get_rels_path

    def related(part: str, kind: str) -> str | None:
        return next((relation.target for relation in get_dependents(archive, part)
                     if relation.TargetMode != "External" and (relation.Type or "").endswith(f"/{kind}")), None)
    try:
        workbook = related("_rels/.rels", "officeDocument")
        return (related(get_rels_path(workbook), "theme") if workbook else None) or _THEME_PART
    except (KeyError, ParseError, OSError, ValueError, TypeError):
        return _THEME_PART


# The tables of a sheet whose ranges are read (styled_tables): a sheet has a few; past these, every cell of the
# sheet is taken to be in one (a sheet's 10,000 table parts, each cell looked up in each, would take minutes)
MAX_TABLES = 64

_RELATION_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_TABLE_RANGE = re.compile(r"\$?([A-Z]{1,3})\$?([0-9]{1,7})(?::\$?([A-Z]{1,3})\$?([0-9]{1,7}))?")


def styled_tables(archive: Any, sheet_part: str, table_parts: Sequence[Any]) -> list[tuple[int, int, int, int]] | None:
    """(first row, first column, last row, last column) of each Excel table of the sheet whose part is
    `sheet_part` in `archive` (its zip) that has a style (its <tableStyleInfo> names one), which may fill its
    cells with colours pnp does not read; its `table_parts` are the sheet's <tablePart> elements, each naming a
    table's part by a relation of the sheet. None where they cannot all be read (a relation or a part missing,
    XML that cannot be parsed, a range not of cells, more than MAX_TABLES tables): the whole sheet is taken to be
    in one, as a sheet holding a table was before its tables' ranges were read."""
    from xml.etree.ElementTree import ParseError

    from openpyxl.packaging.relationship import get_dependents, get_rels_path

    ids = {part.get(_RELATION_ID) for part in table_parts}
    if len(ids) > MAX_TABLES:
        return None
    try:
        targets = {relation.Id: relation.target for relation in get_dependents(archive, get_rels_path(sheet_part))}
        ranges = []
        for table in sorted({targets[id] for id in ids}):
            root = _part_root(archive, table)
            style = next((part.get("name") for part in root if local_name(part.tag) == "tableStyleInfo"), None)
            found = _TABLE_RANGE.fullmatch(root.get("ref") or "")
            if found is None:
                return None
            if style:
                first = (int(found[2]), column_number(found[1]))
                ranges.append((*first, *((int(found[4]), column_number(found[3])) if found[3] else first)))
    except (KeyError, ParseError, OSError, ValueError, TypeError):
        return None
    return ranges


def column_number(letters: str) -> int:
    """The number of a column named by `letters` (A is 1, AA 27): a table's range here, a cell's name in
    spreadsheet."""
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - ord("A") + 1
    return number


def _hex_colour(text: str) -> bool:
    return len(text) == 6 and all(char in "0123456789abcdefABCDEF" for char in text)


def _rgb(colour: Any, theme: Sequence[str], indexed: Sequence[str], default: str | None) -> str | None:
    """The RRGGBB `colour` (an openpyxl Color, or None: `default`) shows as, its tint applied; None where it names
    none pnp can tell (a system colour of a fill, an index past the palette)."""
    if colour is None or colour.type == "auto":
        return default
    value = _untinted(colour, theme, indexed, default)
    if value is None or not _hex_colour(value):
        return None
    return _tinted(value, float(colour.tint or 0))


def _untinted(colour: Any, theme: Sequence[str], indexed: Sequence[str], default: str | None) -> str | None:
    """The colour `colour` names (_rgb), before its tint: its RRGGBB, its palette's or its theme's colour."""
    if colour.type == "rgb" and isinstance(colour.rgb, str):
        return colour.rgb[-6:]
    if colour.type == "indexed" and isinstance(colour.indexed, int):
        if 0 <= colour.indexed < len(indexed) and isinstance(indexed[colour.indexed], str):
            return indexed[colour.indexed][-6:]
        # (64, the system's foreground, window text: a font's default; 65, its background, the window's white)
        return default if colour.indexed == 64 else _SHEET_BACKGROUND if colour.indexed == 65 else None
    if colour.type == "theme" and isinstance(colour.theme, int) and 0 <= colour.theme < len(theme):
        return theme[colour.theme]
    return None


def _tinted(value: str, tint: float) -> str:
    """RRGGBB `value` lightened (tint > 0) or darkened (tint < 0) as ECMA-376 Part 1, 18.8.19 says: its HLS
    lightness moved toward white or black by the tint's share."""
    red, green, blue = _channels(value)
    hue, light, saturation = colorsys.rgb_to_hls(red, green, blue)
    tint = max(-1.0, min(1.0, tint))
    light = light * (1 + tint) if tint < 0 else light * (1 - tint) + tint
    return "".join(f"{round(part * 255):02X}" for part in colorsys.hls_to_rgb(hue, light, saturation))


def _channels(value: str) -> tuple[float, float, float]:
    """RRGGBB `value`'s red, green and blue from 0 to 1, by the one colour rule (options.rgb)."""
    channels = rgb(f"#{value}")
    assert channels is not None  # (a value of six hex digits, as _rgb gives: always a colour)
    return channels


def _luminance(value: str) -> float:
    """WCAG 2's relative luminance of RRGGBB `value`."""
    def linear(part: float) -> float:
        return part / 12.92 if part <= 0.04045 else ((part + 0.055) / 1.055) ** 2.4
    red, green, blue = (linear(part) for part in _channels(value))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


# The colours a number format may show a value in ([Red]0), by name, as Excel shows them; [ColorN] is the
# workbook's palette's colour N + 7 (its first 8 are the fixed ones)
_FORMAT_COLOURS = {"black": "000000", "blue": "0000FF", "cyan": "00FFFF", "green": "00FF00", "magenta": "FF00FF",
                   "red": "FF0000", "white": "FFFFFF", "yellow": "FFFF00"}


def format_colour(tag: str, indexed: Sequence[str]) -> str | None:
    """The RRGGBB of a number format's colour `tag` (its name or ColorN, without brackets, in any case), or None."""
    tag = tag.lower()
    if tag in _FORMAT_COLOURS:
        return _FORMAT_COLOURS[tag]
    number = tag.removeprefix("color")
    if number.isdigit() and 1 <= int(number) <= 56 and int(number) + 7 < len(indexed):
        value = indexed[int(number) + 7]
        return value[-6:] if isinstance(value, str) and _hex_colour(value[-6:]) else None
    return None


def run_colour(attributes: Mapping[str, str], theme: Sequence[str], indexed: Sequence[str]) -> str | None:
    """The RRGGBB a rich text run's <color> element of these `attributes` shows, or None where pnp cannot tell."""
    def number(name: str) -> int | None:
        value = attributes.get(name, "")
        return int(value) if value.isascii() and value.isdigit() and len(value) < 10 else None
    try:
        tint = float(attributes.get("tint") or 0)
    except ValueError:
        return None
    kind = next((name for name in ("rgb", "theme", "indexed", "auto") if name in attributes), None)
    colour = SimpleNamespace(type=kind, rgb=attributes.get("rgb"), theme=number("theme"),
                             indexed=number("indexed"), tint=tint if math.isfinite(tint) else 0)
    return _rgb(colour, theme, indexed, _TEXT_DEFAULT) if kind else None


def fills_nothing(fill: Any) -> bool:
    """Whether a cell's `fill` (openpyxl's) is none: the cell shows the sheet's background, or an Excel table's
    style's fill where it is in a table."""
    return getattr(fill, "tagname", "") == "patternFill" and getattr(fill, "patternType", None) in (None, "none")


def unseen(font: Any, fill: Any, theme: Sequence[str], indexed: Sequence[str],
           shown_in: str | None = None) -> str | None:
    """The colours ("white text on a white fill") of a cell of this `font` and `fill` (openpyxl's) whose text shows
    in a colour its fill hides (their contrast under UNSEEN_CONTRAST), or None: the font's colour, or `shown_in`
    (RRGGBB) where the cell's number format (or a rich text's run) colours the value; against a solid fill's colour
    (its automatic one is the system's foreground, black, as Excel shows it), every stop of a gradient fill, or the
    sheet's white where there is no fill. A patterned fill, or a colour pnp cannot tell, is taken to show it."""
    text = shown_in or _rgb(getattr(font, "color", None), theme, indexed, _TEXT_DEFAULT)
    behind = _behind(fill, theme, indexed)
    if text is None or not behind or None in behind:
        return None
    if max(_contrast(text, colour) for colour in behind if colour) >= UNSEEN_CONTRAST:
        return None
    colours = [_named(colour) for colour in behind if colour]
    if fills_nothing(fill):
        return f"{_named(text)} text on no fill (the sheet's white)"
    if getattr(fill, "tagname", "") == "gradientFill":
        return f"{_named(text)} text on a gradient fill of {' to '.join(colours)}"
    return f"{_named(text)} text on a {colours[0]} fill"


def _behind(fill: Any, theme: Sequence[str], indexed: Sequence[str]) -> list[str | None]:
    """The colours a cell's `fill` shows behind its text (RRGGBB, None where pnp cannot tell): the sheet's white
    for none, a solid fill's, each stop's of a gradient's (Excel blends them: text hidden by each is hidden by
    the fill); none for a patterned fill, or a gradient of no stops, taken to show any text."""
    if fills_nothing(fill):
        return [_SHEET_BACKGROUND]
    if getattr(fill, "tagname", "") == "gradientFill":
        return [_rgb(getattr(stop, "color", None), theme, indexed, None)
                for stop in getattr(fill, "stop", None) or ()]
    if getattr(fill, "tagname", "") == "patternFill" and fill.patternType == "solid":
        return [_rgb(fill.fgColor, theme, indexed, _TEXT_DEFAULT)]
    return []


def _contrast(text: str, behind: str) -> float:
    """WCAG 2's contrast ratio of RRGGBB `text` on RRGGBB `behind`: 1 for one colour, 21 for black on white."""
    lighter, darker = sorted((_luminance(text), _luminance(behind)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _named(value: str) -> str:
    """RRGGBB `value` as a message names it: white or black by name, any other colour by its #RRGGBB."""
    return {"FFFFFF": "white", "000000": "black"}.get(value.upper(), f"#{value.upper()}")
