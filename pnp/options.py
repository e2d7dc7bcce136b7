"""The one vocabulary of what a designer writes (bottom layer): how a message quotes a value and suggests a
name, the one colour rule, and the Option base that every layout parameter, data field type, game.yaml key and
component key is made of (its conversion, unit, default, doc and reference row)."""

import functools
import re
from collections.abc import Iterable, Mapping
from difflib import get_close_matches

from .report import shortened

QUOTE_LIMIT = 60  # characters of a value a message quotes: it quotes, it does not copy a whole file


# --- quoting values and suggesting names, for every message ---------------------------------------------------

def plain(value: object) -> object:
    """Loaded data as plain dicts and lists (no marks), as YAML, JSON or a spreadsheet writes it."""
    if isinstance(value, Mapping):
        return {k: plain(x) for k, x in value.items()}
    if isinstance(value, list):
        return [plain(x) for x in value]
    return value


def shown(value: object, limit: int = QUOTE_LIMIT) -> str:
    """A value as a message quotes it: the data as written (no class names), cut short when long."""
    return shortened(repr(plain(value)), limit)


def described(value: object) -> str:
    """A value as a message names it when its shape may be the problem: a mapping by its shape, a list by its
    shape and then quoted, anything else quoted."""
    if isinstance(value, Mapping):
        return "a mapping"
    return f"a list {shown(value)}" if isinstance(value, list) else shown(value)


def type_name(value: object) -> str:
    """How a value's type reads in a message."""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return {int: "a whole number", float: "a number", str: "text", type(None): "nothing"}.get(type(value), "a value")


def closest(word: object, choices: Iterable[object], count: int = 1, cutoff: float = 0.6) -> list[str]:
    """The names among `choices` closest to `word` (a typo's likely meaning), best first."""
    return get_close_matches(str(word), [str(c) for c in choices], n=count, cutoff=cutoff)


def did_you_mean(word: object, choices: Iterable[object]) -> str:
    """' (did you mean 'x'?)' when one of `choices` is close to `word`, else nothing."""
    close = closest(word, choices)
    return f" (did you mean '{close[0]}'?)" if close else ""


# --- colours ----------------------------------------------------------------------------------------------------

COLOUR_UNIT = "`#rrggbb`, `#rgb`, a colour name, or `none`"  # a colour option's unit in the reference
COLOUR_RULE = ("Every colour, in a layout or in the data (a colour set's field), is written the same way: `'#rrggbb'` "
               "or `'#rgb'` (hexadecimal, any case), or a CSS colour name such as `white` or `darkgreen` (any case); "
               "`none`, `transparent` or nothing means no colour (a colour set's colours cannot be none).")
_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
NO_COLOUR = ("", "none", "transparent")


class ColourError(ValueError):
    """A value that is not a colour; its message is for the designer."""


@functools.cache
def _css_names() -> Mapping[str, str]:
    from PIL import ImageColor  # the CSS colour names, as Pillow keeps them

    return {name: hex_ for name, hex_ in ImageColor.colormap.items() if hex_.startswith("#")}


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
    return None if hex_ is None else tuple(int(hex_[i:i + 2], 16) / 255 for i in (1, 3, 5))
