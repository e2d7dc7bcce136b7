"""The one vocabulary of what a designer writes (bottom layer): the one colour rule, and the Option base that
every layout parameter, data field type, game.yaml key and component key is made of (its conversion, unit, default, doc and reference row)."""

import copy
import decimal
import functools
import math
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any, Self, TypeVar, cast

from . import units
from .units import SMALLEST_NUMBER, closer_to_zero, too_close_to_zero  # noqa: F401  (one vocabulary)
from .report import QUOTE_LIMIT, closest, described, did_you_mean, named, plain, plain_type, quoted_as_written, shortened, shown, spelt, type_name, typed_value  # noqa: F401  (one vocabulary)

# --- colours ----------------------------------------------------------------------------------------------------

COLOUR_UNIT = "`#rrggbb`, `#rgb`, a colour name, or `none`"  # a colour option's unit in the reference
COLOUR_RULE = ("Every colour, in a layout or in the data (a colour set's field), is written the same way: `'#rrggbb'` "
               "or `'#rgb'` (hexadecimal, any case), or a CSS colour name such as `white` or `darkgreen` (any case); "
               "`none`, `transparent` or nothing means no colour (a colour set's colours cannot be none, nor a text's, a "
               "label's or an icon's `color`).")
# all control characters but tab and line breaks, and the bidirectional controls (marks, embeddings, overrides,
# isolates): pnp lays text out left to right and prints them as nothing, while a program showing the same text
# (a TTS description, a spreadsheet) reorders it by them, so a card could read one way and print another. They are
# Unicode's Bidi_Control characters, the Arabic letter mark (U+061C) among them: it was written into an export
CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# characters that print no mark of their own: the soft hyphen (a marker pnp never prints), the zero-width spaces
# and joiners (U+200B-U+200D, U+2060, U+FEFF) and the other formatting characters, and the few letters and marks
# made to be invisible (the combining grapheme joiner, the Hangul fillers, variation selectors)
_NOTHING = (r"\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
            r"\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0")
_PRINTS_NOTHING = re.compile(rf"[\s{_NOTHING}]*")
PRINTS_NOTHING = re.compile(f"[{_NOTHING}]")  # one of them: a character an editor shows as nothing


def blank(text: str) -> bool:
    """Whether `text` prints no word: empty, spaces, or characters that print nothing (_PRINTS_NOTHING). The one
    rule for a title, a label, a name or a link's words that must print something: a name of zero-width spaces
    passed the check of `strip()` and printed nothing, with exit 0."""
    return _PRINTS_NOTHING.fullmatch(text) is not None


@functools.lru_cache(maxsize=256)
def control_problem(text: str, what: str = "the text") -> str | None:
    """What is wrong with `text` (`what` names it) when it holds a CONTROL_CHARACTER, else None: the one rule
    for every text pnp prints or writes into an export (a Tabletop Simulator name, a file name, a manifest).
    Kept for the texts met last: one text printed on every card an alias repeats it on was searched anew on
    each (a text of 950,000 characters on 5,000 cards: most of a build's 50 s before its first word)."""
    control = CONTROL_CHARACTER.search(text)
    if control is None:
        return None
    return (f"{what} holds the control character U+{ord(control.group()):04X}, which prints nothing (an escape "
            "written by mistake?)")


# (a character's number, read here with the colours' hex: an entity's `&#x1B;`)
_NUMBERED_ENTITY = re.compile(r"&#([0-9]{1,7}|[xX][0-9a-fA-F]{1,6});")


def entity_number(markup: str) -> int | None:
    """The character number an HTML entity written `&#7;` or `&#x1B;` gives (whether or not it is one a text
    may hold), None for any other markup."""
    written = _NUMBERED_ENTITY.fullmatch(markup)
    if written is None:
        return None
    return int(written[1][1:], 16) if written[1][:1] in "xX" else int(written[1])


_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
NO_COLOUR = ("", "none", "transparent")
_Value = TypeVar("_Value")


class ColourError(ValueError):
    """A value that is not a colour; its message is for the designer."""


@functools.cache
def _css_names() -> Mapping[str, str]:
    from PIL import ImageColor  # the CSS colour names, as Pillow keeps them

    # Pillow replaces a name's '#rrggbb' by its (r, g, b) once anything in the process has used the name
    # (Image.new("RGB", size, "red")): read either, or that name would be an unknown colour from then on
    names = {}
    for name, value in ImageColor.colormap.items():
        if isinstance(value, tuple) and len(value) >= 3:
            value = "#%02x%02x%02x" % value[:3]
        if isinstance(value, str) and value.startswith("#"):
            names[name] = value
    return names


def parse_colour(value: object) -> str | None:
    """The one colour rule: '#rrggbb', '#rgb', a CSS colour name (any case), or none/transparent/empty/nothing
    -> '#rrggbb' in lowercase, or None for no colour; anything else is a ColourError."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ColourError(f"a colour is text like '#1e6b52' or a colour name, got {described(value)}")
    return _parse_colour(value)


@functools.lru_cache(maxsize=4096)
def _parse_colour(value: str) -> str | None:
    text = value.strip().lower()
    if text in NO_COLOUR:
        return None
    match = _HEX.fullmatch(text)
    if match:
        digits = match.group(1)
        return "#" + (digits if len(digits) == 6 else "".join(d * 2 for d in digits))
    if text in _css_names():
        return _css_names()[text]
    raise ColourError(f"unknown colour {shown(value)}: use '#rrggbb', '#rgb' or a colour name such as 'white'"
                      f"{did_you_mean(text, _css_names())}")


def rgb(value: object) -> tuple[float, float, float] | None:
    """A colour as red, green and blue from 0 to 1 (None for no colour), by the one colour rule."""
    hex_ = parse_colour(value)
    if hex_ is None:
        return None
    return int(hex_[1:3], 16) / 255, int(hex_[3:5], 16) / 255, int(hex_[5:7], 16) / 255


# --- options: the types of what a designer writes -------------------------------------------------------------
# The unit rule, stated once: every length is in millimetres unless a unit is written ('3', '3mm', '0.5in', '10pt',
# '1cm'); font sizes are in points; angles in degrees, clockwise.

REQUIRED = object()  # the default of a parameter that must be given
NUMBER_LIMIT = 1_000_000  # the largest magnitude of a number whose parameter sets no range of its own
MIN_DASH_CYCLE = 0.1  # mm: a dash and its gap shorter than this print as a solid line, and rasterise slowly
MAX_DASHES = 16  # lengths in one dash pattern
LENGTH_LIMIT = 2000  # mm: every length's own limit


class Option:
    """One option a designer writes (a layout parameter, a component's key, a data field's type): `convert` turns a
    written value (after templating) into what pnp uses, or raises ValueError with a message for the designer. It
    is required unless it has a default, unless `required` says otherwise."""

    kind = "value"
    unit = ""
    templated = True  # string values may be Jinja templates, rendered per item
    REFERENCE_HEADER = ("parameter", "type", "default", "meaning")  # the columns of reference_row

    def __init__(self, default: object = REQUIRED, doc: str = "", required: bool | None = None) -> None:
        self.default, self.doc = default, doc
        self.required = default is REQUIRED if required is None else required

    def convert(self, value: object) -> object:
        return value

    def as_read(self, value: Any, written: str | None) -> Any:
        """The value this option reads from a file where YAML read a number from `written`, a text that prints
        otherwise (`1.10` read as 1.1, `1_000` as 1000: model.load's Record.written_of); None where it did not.
        An option of text reads the text as written (as_written), any other the number."""
        return value

    def optional(self) -> Self:
        """The same option, not required (where whether it is needed is decided elsewhere)."""
        optional = copy.copy(self)
        optional.required = False
        return optional

    def typed_problem(self, value: object) -> str | None:
        """What is wrong with a value typed in the data, where YAML's own types count (text is not a number,
        as it is when a template writes it): a message, or None."""
        return None

    def given_default(self) -> object:
        """The default, or None when there is none."""
        return None if self.default is REQUIRED else self.default

    def default_text(self) -> str:
        """The default as the reference shows it."""
        if self.required:
            return "required"
        if self.default is None or self.default is REQUIRED:
            return "none"
        if self.default == "":
            return "empty"
        if isinstance(self.default, str) and self.default.startswith("="):
            return self.default[1:]  # a default described in words, e.g. '=the layout's width'
        return f"`{self.default}`" if not isinstance(self.default, bool) else f"`{str(self.default).lower()}`"

    def initial(self) -> object:
        """The default value converted (None when there is none, or it is described in words)."""
        if self.default is REQUIRED or self.default is None:
            return None
        if isinstance(self.default, str) and self.default.startswith("="):
            return None
        return self.convert(self.default)

    def limits(self) -> list[str]:
        """Its range as the reference says it (a length's own 2000 mm is said once, in Units)."""
        minimum, maximum = getattr(self, "minimum", None), getattr(self, "maximum", None)
        # (as messages write numbers: a track's start read "at least -1e+06, at most 1e+06")
        return ([f"at least {shown_number(minimum)}"] if minimum is not None else []) + \
            ([f"at most {shown_number(maximum)}"] if maximum not in (None, LENGTH_LIMIT) else [])

    def reference_row(self, name: str) -> tuple[str, str, str, str]:
        """(name, type, default, meaning): its row in the reference's tables of options."""
        limits = self.limits()
        return (f"`{name}`", self.kind + (f" ({self.unit})" if self.unit else ""), self.default_text(),
                self.doc + (f" ({', '.join(limits)})" if limits else ""))


def _finite(number: _Value, what: str, written: str | None = None) -> _Value:
    """`number`, refused when it is not finite or is too_close_to_zero; quoted as `written` (the text it was read
    from), or as its file writes it (quoted_as_written), where known: `4.9e-324` was quoted '4.94066e-324'."""
    if isinstance(number, float) and not math.isfinite(number):
        raise ValueError(f"expected {what}, got {shown(number)}")
    written = getattr(number, "text", None) if written is None else written
    if too_close_to_zero(number, written):
        raise ValueError(closer_to_zero(shown_number(cast(float, number)) if written is None else _cut_number(written)))
    return number


# a number written as text (a template's result): plain ASCII decimals, as a computed number prints them. float()
# alone also read '1_0' as 10 and Arabic-Indic or fullwidth digits ('١' as 1)
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _number(value: object, what: str) -> float:
    if isinstance(value, bool):
        raise ValueError(f"expected {what}, got {shown(value)}")
    if isinstance(value, (list, Mapping)):  # (`count: {a: b}` was said "got {'a': 'b'}", in Python's spelling,
        # not saying it was a mapping)
        raise ValueError(f"expected {what}, got {described(value)}")
    if isinstance(value, int) and abs(value) > sys.float_info.max:  # (float() of a whole number of 309 digits
        # or more raised OverflowError: 'a bug in pnp', at no line)
        raise ValueError(f"expected {what}, got {shown_number(value)}, past the largest number pnp works with")
    if isinstance(value, (int, float)):
        return float(_finite(value, what))
    if not _NUMBER_TEXT.fullmatch(text := str(value).strip()):
        raise ValueError(f"expected {what}, got {shown(value)}")
    return _finite(float(text), what, text)


def _as_typed_number(value: object) -> str | None:
    """A number as the file writes it, when `value` is a number (a number quoted as written, report's
    quoted_as_written, says its text), else None."""
    return shown_number(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _typed_or(value: object, number: float) -> float:
    """`value` where it is the number itself (so a message quotes it as its file writes it), else `number`."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else number


def converted(option: "Option", value: object, written: str | None) -> object:
    """option.convert(value); its refusal of a number its file writes otherwise than it prints (`written`, as
    load.Record.written_of gives it) quotes the number as written (`size: 1_000.50` was said as 1000.5 pt)."""
    if too_close_to_zero(value, written):  # (`bleed: 1.0e-400`, read as 0: no refusal of convert's would see it)
        raise ValueError(written_closer_to_zero(cast(str, written)))
    try:
        return option.convert(value)
    except ValueError:
        quoted = quoted_as_written(value, written)
        if quoted is not value:
            option.convert(quoted)  # the same refusal, its message quoting the number as written
        raise


class Length(Option):
    """A length (mm unless a unit is written)."""

    kind = "length"
    unit = "mm"

    def __init__(self, default: object = REQUIRED, doc: str = "", minimum: float | None = None,
                 maximum: float | None = LENGTH_LIMIT) -> None:
        super().__init__(default, doc)
        self.minimum, self.maximum = minimum, maximum

    def convert(self, value: object) -> float:
        if isinstance(value, str) and not value.strip():
            raise ValueError("expected a length like '3mm', got nothing")
        points = units.length(_finite(value, "a length"))
        if not math.isfinite(points):  # a finite number of inches or points past a float's range
            raise ValueError(f"{shown(value)} is too large for a length")
        mm = points / units.MM
        said = _as_typed_number(value) or f"{units.to_mm(points):g}"
        if self.minimum is not None and mm < self.minimum:
            raise ValueError(f"{said} mm is too small (at least {self.minimum:g} mm)")
        if self.maximum is not None and abs(mm) > self.maximum:
            raise ValueError(f"{said} mm is too large (at most {self.maximum:g} mm)")
        return points


class FontSize(Option):
    """A font size in points."""

    kind = "font size"
    unit = "pt"

    def convert(self, value: object) -> object:
        if isinstance(value, str) and value.strip().endswith("pt"):  # '9pt' says the unit it already has
            value = value.strip()[:-2]
        size = _number(value, "a font size in points")
        if not 0.5 <= size <= 500:
            raise ValueError(out_of_range(_typed_or(value, size), 0.5, 500, "pt"))
        return size


class Number(Option):
    """A number; in a layout, without a range of its own it is still at most NUMBER_LIMIT either way, so that no
    absurd value (1e308) reaches the arithmetic of drawing."""

    kind = "number"
    data_types = (int, float)

    def typed_problem(self, value: object) -> str | None:
        what = f"a {self.kind}"
        if isinstance(value, bool) or not isinstance(value, self.data_types):
            return f"expected {what}, got {typed_value(value)}"
        try:
            _finite(value, what)  # (quoted as its file writes it, where known)
        except ValueError as e:
            return str(e)
        low, high = self.minimum, self.maximum
        if low is not None and value < low or high is not None and value > high:
            return out_of_range(value, low, high)
        return None

    def __init__(self, default: object = REQUIRED, doc: str = "", minimum: float | None = None,
                 maximum: float | None = None, unit: str = "") -> None:
        super().__init__(default, doc)
        self.minimum, self.maximum, self.unit = minimum, maximum, unit

    def convert(self, value: object) -> float:
        number = _number(value, "a number")
        low = -NUMBER_LIMIT if self.minimum is None else self.minimum
        high = NUMBER_LIMIT if self.maximum is None else self.maximum
        if not low <= number <= high:
            raise ValueError(out_of_range(_typed_or(value, number), low, high))
        return number


class Angle(Number):
    """An angle in degrees, clockwise; any number of whole turns is the same angle."""

    kind = "angle"

    def __init__(self, default: object = REQUIRED, doc: str = "") -> None:
        super().__init__(default, doc, unit="degrees")

    def convert(self, value: object) -> float:
        return super().convert(value) % 360


def out_of_range(value: float, low: float | None, high: float | None, unit: str = "") -> str:
    """The one wording of a value outside its range, in a layout or in the data (either end may be open)."""
    unit = f" {unit}" if unit else ""
    ends = " to ".join("…" if end is None else shown_number(end) for end in (low, high))
    return f"{shown_number(value)}{unit} is out of range (expected {ends}{unit})"


def shown_number(number: float) -> str:
    """A number as a designer wrote it: 1,000,000 rather than 1e+06 (and 1e+308 as that, not 309 digits), with
    the digits that tell it from a limit it is compared with (5.9999999 is not '6'); a whole number of the data
    too long to quote is cut short, with its length (4,290 digits made a message of about 2,000 characters)."""
    if plain_type(number) is not type(number):  # a number of the data quoted as its file writes it
        return _cut_number(str(number))
    if isinstance(number, int):  # a whole number typed in the data, however large, exactly
        return _cut_number(f"{number:,}")
    if not math.isfinite(number):  # worked out past the largest float: said as the word, never int() of it
        return f"{number:g}"
    if number == int(number) and abs(number) < 1e15:
        return f"{int(number):,}"
    short = f"{number:g}"  # (6 digits: 5.9999999 read "6 is out of range (expected 6 to 72)")
    return short if float(short) == number else f"{number:.15g}"  # (15: no float noise, 2.5400000000000005)


def hundredths_down(number: float) -> str:
    """A size worked out (a face's room, a font size made from a cell), as a message says it: to hundredths, rounded
    down on its decimal digits, never up to a limit it is said to be under (0.29 stays 0.29, 5.999 is 5.99)."""
    rounded = decimal.Decimal(repr(number)).quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_FLOOR)
    return f"{rounded.normalize():f}"


def written_closer_to_zero(written: str) -> str:
    """The refusal of a number its file writes as `written` that is too_close_to_zero."""
    return closer_to_zero(_cut_number(written))


def _cut_number(text: str) -> str:
    """A number's text as a message quotes it: whole when short, else its first digits and how many it has
    (cut as other long values are: it quotes, it does not copy)."""
    if len(text) <= QUOTE_LIMIT:
        return text
    digits = sum(ch.isdigit() for ch in text)
    return f"{shortened(text, QUOTE_LIMIT)} ({digits:,} digits)"


class Int(Number):
    """A whole number."""

    kind = "whole number"
    data_types = (int,)  # type: ignore[assignment]  # a whole number's narrower data type

    def convert(self, value: object) -> float:
        number = super().convert(value)
        if number != int(number):
            raise ValueError(f"expected a whole number, got {shown(value)}")
        return int(number)


class Bool(Option):
    """true or false."""

    kind = "true/false"

    def typed_problem(self, value: object) -> str | None:
        return None if isinstance(value, bool) else f"expected true or false, got {described(value)}"

    def convert(self, value: object) -> object:
        if isinstance(value, bool):
            return value
        if isinstance(value, (list, Mapping)):  # (`bleed: {a: b}` was said "got {'a': 'b'}", Python's spelling)
            raise ValueError(f"expected true or false, got {described(value)}")
        text = str(value).strip().lower()
        if text in ("true", "yes", "1"):
            return True
        if text in ("false", "no", "0", ""):
            return False
        raise ValueError(f"expected true or false, got {shown(value)}")


def as_written(value: object, written: str | None) -> object:
    """A number as the file writes it, where that prints otherwise than the number (Option.as_read): what an
    option of text reads (a layout's `text: 1.10` printed 1.1, game.yaml's `version: 1_000` 1000, exit 0)."""
    return written if written is not None and type(value) in (int, float) else value


class Text(Option):
    """Plain text (in the data, a number is an error: quote it)."""

    kind = "text"

    def as_read(self, value: Any, written: str | None) -> Any:
        return as_written(value, written)

    def typed_problem(self, value: object) -> str | None:
        return None if isinstance(value, str) else f"expected text, got {typed_value(value)}"

    def convert(self, value: object) -> object:
        if isinstance(value, (Mapping, list)):
            raise ValueError(f"expected text, got a {'mapping' if isinstance(value, Mapping) else 'list'}")
        if type(value) in (int, float):  # a number prints as typed: where YAML's reading prints otherwise
            return str(value)  # (`2.50`, `0x1F`), as_read gave the text written instead
        if value is not None and not isinstance(value, str):  # YAML's reading printed, not what was typed:
            # `yes` printed True, `2026-01-01` as Python writes a date
            raise ValueError(f"YAML reads this as {type_name(value)} ({shown(value)}), not as the text typed: quote "
                             "it to keep it as typed")
        text = "" if value is None else value
        problem = control_problem(text)
        if problem:  # a template ('\x00') makes one: it prints nothing, or a box
            raise ValueError(problem)
        return text


class Note(Text):
    """A note for people reading the file: never printed, so whatever YAML reads it as is kept as its text."""

    def convert(self, value: object) -> object:
        return super().convert(value if value is None or isinstance(value, (str, Mapping, list)) else str(value))


class Name(Text):
    """A fixed name (no template)."""

    kind = "name"
    templated = False


class Choice(Option):
    kind = "one of"

    def __init__(self, choices: Iterable[str], default: object = REQUIRED, doc: str = "") -> None:
        super().__init__(default, doc)
        self.choices = tuple(choices)

    @property
    def unit(self) -> str:  # type: ignore[override]  # the choices are the unit, read when asked
        return ", ".join(f"`{c}`" for c in self.choices)

    def convert(self, value: object) -> object:
        if value is None:  # (`align: ~` was said "'None' is not one of ...", Python's spelling of YAML's null)
            raise ValueError(f"expected one of {', '.join(self.choices)}, got nothing")
        if isinstance(value, (list, Mapping)):  # (`direction: [right]` was said "'['right']' is not one of", the
            # list in Python's spelling, with a suggestion of what it holds; a layout's mapping is a Record, a
            # Mapping but no dict: `valign: {top: 1}` was still said "'{'top': 1}' is not one of")
            raise ValueError(f"expected one of {', '.join(self.choices)}, got {type_name(value)}")
        text = spelt(value).strip()  # (`align: true` was said 'True', Python's spelling)
        if text not in self.choices:
            raise ValueError(f"{named(text)} is not one of {', '.join(self.choices)}{did_you_mean(text, self.choices)}")
        return text


class Colour(Option):
    """A colour by the one colour rule (options.parse_colour); kept as written, drawn by draw.colour."""

    kind = "colour"
    unit = COLOUR_UNIT

    def convert(self, value: object) -> object:
        parse_colour(value)  # a ColourError is a ValueError, with the designer's message
        return value


class Ink(Colour):
    """The colour of what must be seen to mean anything, a text's or an icon's: no colour refused (`color: none`
    printed them black, where none means unpainted for a fill or an outline)."""

    unit = "`#rrggbb`, `#rgb` or a colour name"

    def convert(self, value: object) -> object:
        if parse_colour(value) is None:
            raise ValueError(f"{shown(value)} is no colour, and a text, a label or an icon needs one to be seen: give "
                             "its colour, or leave the element out with `when:`")
        return value


class Lengths(Option):
    """A list of lengths, written as a list or as text separated by spaces: [1, 0.5] or '1mm 0.5mm'."""

    kind = "lengths"
    unit = "mm"

    def __init__(self, count: int | None = None, default: object = REQUIRED, doc: str = "") -> None:
        super().__init__(default, doc)
        self.count = count

    def convert(self, value: object) -> tuple[float, ...]:
        if isinstance(value, str) and value.lstrip().startswith("["):  # (a template printing a list, `{{ [1, 2]
            # }}`, was said to give the length '[1,')
            raise ValueError(f"lengths given as text are separated by spaces, as '1 0.5', not written as a list: "
                             f"got {shown(value)} (a template prints a list's lengths so with `| join(' ')`)")
        parts = value.split() if isinstance(value, str) else value
        if not isinstance(parts, list) or (self.count and len(parts) != self.count):
            shape = f"{self.count} lengths like [1, 2]" if self.count else "a list of lengths like [1, 0.5]"
            raise ValueError(f"expected {shape}, got {described(value)}")  # (a mapping was quoted in Python's
            # spelling, "got {'a': 'b'}", not said to be one)
        length = Length(maximum=LENGTH_LIMIT)
        return tuple(length.convert(p) for p in parts)


class Dash(Lengths):
    """Dash and gap lengths that a printer can draw: none negative, the cycle at least MIN_DASH_CYCLE."""

    def convert(self, value: object) -> tuple:
        lengths: tuple[float, ...] = super().convert(value)
        if len(lengths) > MAX_DASHES:
            raise ValueError(f"a dash pattern of {len(lengths)} lengths; at most {MAX_DASHES}")
        if any(d < 0 for d in lengths):
            raise ValueError(f"dash and gap lengths cannot be negative, got {shown(value)}")
        if not lengths:  # (drawn solid: the setting did nothing)
            raise ValueError("no dash or gap lengths: the line would be solid; leave out `dash`, or give lengths "
                             "like [1, 0.5]")
        if sum(lengths) / units.MM < MIN_DASH_CYCLE:
            # (one under a hundredth was said to add up to 0 mm: [0.001, 0.001])
            total = units.to_mm(sum(lengths))
            said = f"{total:g}" if total or not sum(lengths) else "under 0.01"
            raise ValueError(f"a dash and its gap add up to {said} mm; at least "
                             f"{MIN_DASH_CYCLE:g} mm "
                             f"(for a solid line, leave out `dash`)")
        if len(lengths) % 2 == 0 and not any(lengths[::2]):  # [0, 1]: dashes of no length, all gap
            raise ValueError(f"every dash of {shown(value)} is 0 mm long: the outline would print nothing (its "
                             "lengths are dash, gap, dash, gap...)")
        return lengths


class Expression(Option):
    """A Jinja expression, evaluated (not rendered) per item: `when`, `repeat`, `item`, `faces`."""

    kind = "expression"
    templated = False

    def convert(self, value: object) -> object:
        if isinstance(value, (Mapping, list)) or value is None:
            raise ValueError(f"expected an expression, got {described(value)}")
        return value


class Condition(Expression):
    """An expression that is true or false per item (`when`): written as an expression, or true or false. A
    number written there was taken as true unless 0 (`when: 0.5` drew the element), as no condition is."""

    def typed_problem(self, value: object) -> str | None:
        # (game.yaml's `expr` and `filter` were refused as "expected text" where a layout's `when` took true)
        return None if isinstance(value, (str, bool)) else \
            f"expected an expression (e.g. `card.cost > 2`), or true or false, got {described(value)}"

    def convert(self, value: object) -> object:
        problem = self.typed_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


class _Shaped(Option):
    """A value that must have one container shape; what is inside is checked by whoever reads it."""

    templated = False
    shape = object
    expected = ""

    def convert(self, value: object) -> object:
        if not isinstance(value, self.shape):
            raise ValueError(f"expected {self.expected}, got {described(value)}")
        return value


class Elements(_Shaped):
    """A list of elements (inside a group)."""

    kind = "elements"
    shape = list
    expected = "a list of elements"


class Variables(_Shaped):
    """A mapping of names to values (a `use`'s `with` renders the templates in them per item; a layout's vars
    refuse templates)."""

    kind = "mapping"
    shape = Mapping
    expected = "a mapping of name: value"


class Anything(Option):
    """Any value, checked by the component kind that reads it."""

    kind = "value"
    templated = False
