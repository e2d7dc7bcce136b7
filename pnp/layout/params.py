"""Parameter types of layout elements and layout files: each converts and checks one value, and says its
unit, default and meaning for the reference.

The unit rule, stated once: every length is in millimetres unless a unit is written ('3', '3mm', '0.5in',
'10pt', '1cm'); font sizes are in points; angles in degrees, clockwise."""

import math
from collections.abc import Mapping

from .. import units
from ..draw.colour import ColourError, colour
from ..errors import LoadError
from ..model.load import Record, shown

REQUIRED = object()  # the default of a parameter that must be given


class Param:
    """One parameter: `convert` turns a written value (after templating) into what the element uses, or
    raises ValueError with a message for the designer."""

    kind = "value"
    unit = ""
    templated = True  # string values may be Jinja templates, rendered per item

    def __init__(self, default=REQUIRED, doc=""):
        self.default, self.doc = default, doc

    @property
    def required(self):
        return self.default is REQUIRED

    def convert(self, value):
        return value

    def default_text(self):
        """The default as the reference shows it."""
        if self.default is REQUIRED:
            return "required"
        if self.default is None:
            return "none"
        if self.default == "":
            return "empty"
        if isinstance(self.default, str) and self.default.startswith("="):
            return self.default[1:]  # a default described in words, e.g. '=the layout's width'
        return f"`{self.default}`" if not isinstance(self.default, bool) else f"`{str(self.default).lower()}`"

    def initial(self):
        """The default value converted (None when there is none, or it is described in words)."""
        if self.default is REQUIRED or self.default is None:
            return None
        if isinstance(self.default, str) and self.default.startswith("="):
            return None
        return self.convert(self.default)


def _finite(number, what):
    if isinstance(number, float) and not math.isfinite(number):
        raise ValueError(f"expected {what}, got {number!r}")
    return number


def _number(value, what):
    if isinstance(value, bool):
        raise ValueError(f"expected {what}, got {shown(value)}")
    if isinstance(value, (int, float)):
        return _finite(float(value), what)
    try:
        return _finite(float(str(value).strip()), what)
    except ValueError:
        raise ValueError(f"expected {what}, got {shown(value)}") from None


class Length(Param):
    """A length (mm unless a unit is written)."""

    kind = "length"
    unit = "mm"

    def __init__(self, default=REQUIRED, doc="", minimum=None, maximum=2000):
        super().__init__(default, doc)
        self.minimum, self.maximum = minimum, maximum

    def convert(self, value):
        if isinstance(value, str) and not value.strip():
            raise ValueError("expected a length like '3mm', got nothing")
        points = _finite(units.length(value), "a length")
        mm = points / units.MM
        if self.minimum is not None and mm < self.minimum:
            raise ValueError(f"{units.to_mm(points):g} mm is too small (at least {self.minimum:g} mm)")
        if self.maximum is not None and abs(mm) > self.maximum:
            raise ValueError(f"{units.to_mm(points):g} mm is too large (at most {self.maximum:g} mm)")
        return points


class FontSize(Param):
    """A font size in points."""

    kind = "font size"
    unit = "pt"

    def convert(self, value):
        if isinstance(value, str) and value.strip().endswith("pt"):  # '9pt' says the unit it already has
            value = value.strip()[:-2]
        size = _number(value, "a font size in points")
        if not 0.5 <= size <= 500:
            raise ValueError(f"a font size of {size:g} pt is outside 0.5 to 500 pt")
        return size


class Number(Param):
    kind = "number"

    def __init__(self, default=REQUIRED, doc="", minimum=None, maximum=None, unit=""):
        super().__init__(default, doc)
        self.minimum, self.maximum, self.unit = minimum, maximum, unit

    def convert(self, value):
        number = _number(value, "a number")
        if self.minimum is not None and number < self.minimum or self.maximum is not None and number > self.maximum:
            raise ValueError(f"{_fmt(number)} is outside {_fmt(self.minimum)} to {_fmt(self.maximum)}")
        return number


def _fmt(number):
    """A number as a designer wrote it: 1,000,000 rather than 1e+06."""
    if number is None:
        return "…"
    return f"{int(number):,}" if number == int(number) else f"{number:g}"


class Int(Number):
    kind = "whole number"

    def convert(self, value):
        number = super().convert(value)
        if number != int(number):
            raise ValueError(f"expected a whole number, got {shown(value)}")
        return int(number)


class Bool(Param):
    kind = "true/false"

    def convert(self, value):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "1"):
            return True
        if text in ("false", "no", "0", ""):
            return False
        raise ValueError(f"expected true or false, got {shown(value)}")


class Text(Param):
    kind = "text"

    def convert(self, value):
        if isinstance(value, (Mapping, list)):
            raise ValueError(f"expected text, got a {'mapping' if isinstance(value, Mapping) else 'list'}")
        return "" if value is None else str(value)


class Name(Text):
    """A fixed name (no template)."""

    kind = "name"
    templated = False


class Choice(Param):
    kind = "one of"

    def __init__(self, choices, default=REQUIRED, doc=""):
        super().__init__(default, doc)
        self.choices = tuple(choices)

    @property
    def unit(self):
        return ", ".join(f"`{c}`" for c in self.choices)

    def convert(self, value):
        text = str(value).strip()
        if text not in self.choices:
            from ..model.schema import did_you_mean

            raise ValueError(f"'{text}' is not one of {', '.join(self.choices)}{did_you_mean(text, self.choices)}")
        return text


class Colour(Param):
    kind = "colour"
    unit = "`#rrggbb`, `#rgb`, a colour name, or `none`"

    def convert(self, value):
        try:
            colour(value)
        except ColourError as e:
            raise ValueError(str(e)) from None
        return value


class Lengths(Param):
    """A list of lengths, written as a list or as text separated by spaces: [1, 0.5] or '1mm 0.5mm'."""

    kind = "lengths"
    unit = "mm"

    def __init__(self, count=None, default=REQUIRED, doc=""):
        super().__init__(default, doc)
        self.count = count

    def convert(self, value):
        parts = value.split() if isinstance(value, str) else value
        if not isinstance(parts, list) or (self.count and len(parts) != self.count):
            shape = f"{self.count} lengths like [1, 2]" if self.count else "a list of lengths like [1, 0.5]"
            raise ValueError(f"expected {shape}, got {shown(value)}")
        return tuple(Length(maximum=2000).convert(p) for p in parts)


class Points(Param):
    """A list of [x, y] points, written as a list or given by a template as text: '[[0, 0], [10, 5]]'."""

    kind = "points"
    unit = "mm"

    def convert(self, value):
        if isinstance(value, str):  # a template's text: read as data with the same safe loader
            from ..model.load import load_text

            try:
                value = load_text(value, "points")
            except LoadError as e:
                raise ValueError(f"the points are not a list of [x, y]: {e.message}") from None
        if not isinstance(value, list) or len(value) < 2:
            raise ValueError("expected a list of at least two [x, y] points")
        out = []
        for p in value:
            if not isinstance(p, list) or len(p) != 2:
                raise ValueError(f"each point is [x, y], got {shown(p)}")
            out.append((units.length(p[0]), units.length(p[1])))
        return tuple(out)


class Expression(Param):
    """A Jinja expression, evaluated (not rendered) per item: `when`, `repeat`, `item`, `faces`."""

    kind = "expression"
    templated = False

    def convert(self, value):
        if isinstance(value, (Mapping, list)) or value is None:
            raise ValueError(f"expected an expression, got {_what(value)}")
        return value


class _Shaped(Param):
    """A value that must have one container shape; what is inside is checked by whoever reads it."""

    templated = False
    shape = object
    expected = ""

    def convert(self, value):
        if not isinstance(value, self.shape):
            raise ValueError(f"expected {self.expected}, got {_what(value)}")
        return value


class Elements(_Shaped):
    """A list of elements (inside a group)."""

    kind = "elements"
    shape = list
    expected = "a list of elements"


class Variables(_Shaped):
    """A mapping of names to values (templates in them are rendered per item)."""

    kind = "mapping"
    shape = Mapping
    expected = "a mapping of name: value"


class Anything(Param):
    """Any value, checked by the component kind that reads it."""

    kind = "value"
    templated = False


def _what(value):
    return "a mapping" if isinstance(value, Record) else "a list" if isinstance(value, list) else repr(value)
