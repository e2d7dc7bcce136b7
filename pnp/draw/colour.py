"""Colours for ReportLab, read by the one colour rule of pnp.options (#rrggbb, #rgb, a CSS name, or none)."""

import functools

from reportlab.lib import colors

from ..options import ColourError, parse_colour

__all__ = ["ColourError", "colour"]


def colour(value: object) -> colors.Color | None:
    """A written colour -> a ReportLab Color, or None for none (ColourError when it is not a colour)."""
    hex_ = parse_colour(value)
    return None if hex_ is None else _color(hex_)


@functools.lru_cache(maxsize=4096)
def _color(hex_: str) -> colors.Color:
    return colors.HexColor(hex_)
