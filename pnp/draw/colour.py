"""Colours as designers write them: '#rrggbb', '#rgb', a CSS colour name, or none."""

import functools
import re

from reportlab.lib import colors
from reportlab.lib.colors import Color

_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_NAMES = {name.lower(): c for name, c in colors.getAllNamedColors().items()}


class ColourError(ValueError):
    pass


def colour(value: object) -> Color | None:
    """'#rrggbb', '#rgb', a CSS colour name, or none/transparent -> a ReportLab Color, or None for none."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ColourError(f"a colour is text like '#1e6b52' or a colour name, got {_shown(value)}")
    return _parse(value)


def _shown(value: object) -> str:
    return "a list" if isinstance(value, list) else "a mapping" if hasattr(value, "keys") else repr(value)


@functools.lru_cache(maxsize=4096)
def _parse(value: str) -> Color | None:
    s = value.strip()
    if s.lower() in ("", "none", "transparent"):
        return None
    m = _HEX.fullmatch(s)
    if m:
        digits = m.group(1)
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        return colors.HexColor("#" + digits)
    if s.lower() in _NAMES:
        return _NAMES[s.lower()]
    raise ColourError(f"unknown colour {value!r}: use '#rrggbb', '#rgb' or a colour name such as 'white'")
