"""Lengths: "63mm", "0.5in", "10pt" or a bare number (millimetres) -> points. The only unit parser."""

import re
from dataclasses import dataclass

MM = 72 / 25.4
_UNITS = {"mm": MM, "cm": 10 * MM, "in": 72.0, "pt": 1.0}
_LENGTH = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(mm|cm|in|pt)?\s*$")

# Named card sizes, width x height in millimetres (portrait).
CARD_SIZES = {
    "poker": (63, 88),
    "bridge": (57, 89),
    "mini": (44, 63),
    "tarot": (70, 120),
    "square": (70, 70),
}

PAPER_SIZES = {"a4": (210, 297), "letter": (215.9, 279.4)}


def _shown(value):
    """A value as a message quotes it (this module sits below the data model, so it only knows shapes)."""
    if hasattr(value, "keys"):
        return "a mapping"
    return repr(list(value)) if isinstance(value, list) else repr(value)


def length(value, default_unit="mm"):
    """Return points for a length; raise ValueError with a readable message otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"expected a length like '3mm', got {_shown(value)}")
    if isinstance(value, (int, float)):
        try:
            return float(value) * _UNITS[default_unit]
        except OverflowError:
            raise ValueError(f"{value} is too large for a length") from None
    m = _LENGTH.match(str(value))
    if not m:
        raise ValueError(f"expected a length like '3mm', '0.5in' or '10pt', got {_shown(value)}")
    return float(m.group(1)) * _UNITS[m.group(2) or default_unit]


def size(value):
    """A component size: a named card size or [w, h] -> (w_pt, h_pt)."""
    if isinstance(value, str):
        key = value.strip().lower()
        if key in CARD_SIZES:
            w, h = CARD_SIZES[key]
            return w * MM, h * MM
        m = re.match(r"^(.+?)\s*x\s*(.+)$", key)
        if m:
            return length(m.group(1)), length(m.group(2))
        raise ValueError(f"unknown size {_shown(value)}: use one of {', '.join(CARD_SIZES)} or [w, h]")
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return length(value[0]), length(value[1])
    raise ValueError(f"expected a size name or [width, height], got {_shown(value)}")


def to_mm(points):
    return round(points / MM, 2)


IMPOSITIONS = ("duplex", "gutterfold")
MARK_STYLES = ("lines", "corners", "none")  # crop marks: see impose.sheet.Grid.crop_marks


@dataclass(frozen=True)
class PrintOptions:
    """How a kit is printed: the paper and bleed, and what a home printer may need besides. It lives here,
    beside the paper sizes, so a build can tell whether its output is up to date without loading ReportLab."""

    paper: str = "a4"
    bleed: float = 0.0  # points of art printed past each card's trim
    ink_saver: bool = False  # large floods of colour printed as light tints with their outline
    imposition: str = "duplex"  # or "gutterfold": fronts and backs side by side, folded together
    duplex_offset: tuple = (0.0, 0.0)  # points: where the back's cross showed on the calibration sheet
    marks: str = "lines"  # crop marks: cut lines continued into the margins, "corners" of each item, or "none"

    @property
    def paper_size(self):
        w, h = PAPER_SIZES[self.paper]
        return (w * MM, h * MM)

    @property
    def variant(self):
        """What the file names say besides the paper, so a variant never overwrites the standard kit."""
        return "".join(f"-{part}" for part, on in (("inksaver", self.ink_saver),
                                                   ("gutterfold", self.imposition == "gutterfold"),
                                                   ("cornermarks", self.marks == "corners"),
                                                   ("nomarks", self.marks == "none")) if on)

    def record(self):
        """The options as the manifest states them (millimetres)."""
        return {"paper": self.paper, "bleed_mm": to_mm(self.bleed), "ink_saver": self.ink_saver,
                "imposition": self.imposition, "duplex_offset_mm": [to_mm(v) for v in self.duplex_offset],
                "marks": self.marks}
