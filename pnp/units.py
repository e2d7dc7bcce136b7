"""Lengths: "63mm", "0.5in", "10pt" or a bare number (millimetres) -> points. The only unit parser."""

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import ItemRefused
from .report import described, did_you_mean, shown

MM = 72 / 25.4
_UNITS = {"mm": MM, "cm": 10 * MM, "in": 72.0, "pt": 1.0}
# matched against the stripped text: `\s*(unit)?\s*$` tried every split of a long run of spaces (20,000 took 14 s)
# ASCII digits only (\d, as float(), also reads Arabic-Indic and fullwidth digits); an exponent as a computed
# number prints (`{{ 0.00001 }}` is '1e-05')
_LENGTH = re.compile(r"(-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*(mm|cm|in|pt)?")

# The number nearest 0 that a float holds with all its digits (2.2250738585072014e-308), and Excel's smallest: a
# number written closer to 0 (but 0) is held with fewer digits than written, or as 0 (1.0e-400 was read as 0.0 and
# printed so, exit 0; 1.23456e-320 printed 1.2346e-320), and a spreadsheet holds it as 0
SMALLEST_NUMBER = sys.float_info.min


def too_close_to_zero(value: object, written: str | None = None) -> bool:
    """Whether `value`, a float (read from the text `written`, where known), was written other than 0 but is closer
    to 0 than SMALLEST_NUMBER (or was read as 0: 1.0e-400). A number where text is read is read as written, and
    is none of these. A digit other than 0 is one in any script float() reads ('١e-400', Arabic-Indic, was read
    as 0.0 where '1e-400' was refused)."""
    if not isinstance(value, float) or not abs(value) < SMALLEST_NUMBER:
        return False
    return value != 0 or written is not None and any(c.isdecimal() and int(c) != 0
                                                     for c in re.split("[eE]", written, maxsplit=1)[0])


def closer_to_zero(number: str) -> str:
    """The refusal of a number too_close_to_zero, quoted as `number`."""
    return (f"{number} is closer to 0 than the smallest number pnp (or a spreadsheet) holds with its digits, "
            f"{SMALLEST_NUMBER:.5g}: write 0, or the number in a larger unit")


@dataclass(frozen=True)
class NamedSize:
    """A card or tile size a layout can name: its millimetres (portrait), the nominal inch trim print services
    cut it to (None when they make no such product), and what it is. Which product each service prints it as is
    the export catalogue's to say (export/services.product_for), not this table's: a hand-kept list here
    named no product for five sizes the exports print as one."""

    w: float
    h: float
    inches: tuple[float, float] | None
    doc: str


# The one table of named sizes: layouts, imposition and the reference read it (the print services' products
# are export/catalogue.yaml's, matched to a size by its millimetres).
NAMED_SIZES = {
    "poker": NamedSize(63, 88, (2.5, 3.5), "standard playing and game cards"),
    "bridge": NamedSize(57, 89, (2.25, 3.5), "narrow playing cards"),
    "mini": NamedSize(44, 63, (1.75, 2.5), "half a poker card"),
    "mini-american": NamedSize(41, 63, (1.625, 2.5), "mini American board-game cards"),
    "mini-euro": NamedSize(44, 68, None, "mini European board-game cards"),
    "tarot": NamedSize(70, 120, (2.75, 4.75), "large cards"),
    "square": NamedSize(70, 70, (2.75, 2.75), "square cards"),
    "square-2.5in": NamedSize(63.5, 63.5, (2.5, 2.5), "small square cards (2.5 in)"),
    "square-3.5in": NamedSize(88.9, 88.9, (3.5, 3.5), "large square cards (3.5 in)"),
    "business": NamedSize(50.8, 88.9, (2, 3.5), "business cards (2 x 3.5 in)"),
    "skat": NamedSize(59, 91, None, "skat and other European playing cards"),
    "jumbo": NamedSize(88.9, 127, (3.5, 5), "jumbo cards (3.5 x 5 in)"),
    "domino": NamedSize(44.45, 88.9, (1.75, 3.5), "domino cards (1.75 x 3.5 in)"),
    "hex-2in": NamedSize(58.66, 50.8, None, "hex tile, 2 in from flat side to flat side (flat-topped)"),
    "hex-3in": NamedSize(87.99, 76.2, None, "hex tile, 3 in from flat side to flat side (flat-topped)"),
}
CARD_SIZES = {name: (s.w, s.h) for name, s in NAMED_SIZES.items()}  # name -> (width, height) mm

PAPER_SIZES = {"a4": (210, 297), "letter": (215.9, 279.4)}


def paper_points(name: str) -> tuple[float, float]:
    """A paper's (width, height) in points."""
    w, h = PAPER_SIZES[name]
    return (w * MM, h * MM)


def every_paper(first: str) -> list[str]:
    """Every paper pnp prints on, `first` (the build's own) first: what validate sets a game on, so that no
    paper's build refuses what validate passed."""
    return [first] + [name for name in PAPER_SIZES if name != first]


def on_other_paper(name: str, what: str) -> str:
    """How a problem found only on another paper than the build's is said: after its message."""
    return f" (on {name} paper: a {what} prints on every paper pnp offers)"


# points a size may pass its room by and fit: rounding in a sum of lengths, not a token 0.0001 mm too wide
FIT_SLACK = 1e-6


def fits(size: tuple[float, float], room: tuple[float, float]) -> bool:
    """Whether something of `size` (width, height, points) fits `room`, upright: the one test of what fits the
    paper, which the checks, the advice they give and the drawing all ask, so that they never disagree (the
    token packer refused as a bug a token 0.000001 mm past its room that the check had passed; a tuck box's
    advice, `holds: 80`, was refused when followed, the advice and the check each allowing their own slack)."""
    return size[0] <= room[0] + FIT_SLACK and size[1] <= room[1] + FIT_SLACK


@dataclass(frozen=True)
class TooSmall:
    """A paper too small for something printed on it: its size, the room on it (upright: inside the margins,
    clear of the footer) and what a message about it adds (on_other_paper's words, when it is not the build's)."""

    paper: tuple[float, float]
    room: tuple[float, float]
    on_paper: str


def room_on(paper: tuple[float, float], margin: float, footer: float = 0.0) -> tuple[float, float]:
    """The width and height a page of this size leaves inside `margin` all round and `footer` at the bottom."""
    return paper[0] - 2 * margin, paper[1] - margin - footer


def paper_too_small(first: str, size: tuple[float, float], margin: float, footer: float = 0.0,
                    turn: bool = False) -> TooSmall | None:
    """The first paper of every_paper(first) whose room (room_on) cannot hold something of `size` (width, height,
    points; `turn`: or turned a quarter), None when every paper can. Tokens, dice and tuck boxes ask this one
    test (each had one of its own), so that no paper's build refuses what validate passed."""
    for name in every_paper(first):
        paper = paper_points(name)
        pages = (paper, (paper[1], paper[0])) if turn else (paper,)
        if not any(fits(size, room_on(page, margin, footer)) for page in pages):
            return TooSmall(paper, room_on(paper, margin, footer),
                            "" if name == first else on_other_paper(name, "kit"))
    return None


def length(value: object, default_unit: str = "mm") -> float:
    """Return points for a length; raise ValueError with a readable message otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"expected a length like '3mm', got {described(value)}")
    if isinstance(value, (int, float)):
        if too_close_to_zero(value, written := getattr(value, "text", None)):  # (a size's side: [63, 4.9e-324])
            raise ValueError(closer_to_zero(repr(value) if written is None else shown(written)))
        try:
            return _finite(float(value) * _UNITS[default_unit], value)
        except OverflowError:
            raise ValueError(f"{shown(value)} is too large for a length") from None  # (cut short: 400 digits were
            # copied whole)
    m = _LENGTH.fullmatch(text := str(value).strip())
    if not m:
        raise ValueError(f"expected a length like '3mm', '0.5in' or '10pt', got {described(value)}")
    if too_close_to_zero(number := float(m.group(1)), m.group(1)):  # ('1.0e-400mm' was read as 0, '4.9e-324mm'
        # as a length no float holds with its digits, where a number was refused)
        raise ValueError(closer_to_zero(shown(text)))
    return _finite(number * _UNITS[m.group(2) or default_unit], text)


def _finite(points: float, written: object) -> float:
    """A length in points that a float holds: 1e308 mm is 2.8e308 points, an infinity no check compares sensibly
    (a layout's `size: [1e308, 1e308]` was refused by a message that could not say it: a bug in pnp)."""
    if points != points:
        raise ValueError(f"expected a length like '3mm', got {shown(written)}")
    if points in (float("inf"), float("-inf")):
        raise ValueError(f"{shown(written)} is too large for a length")
    return points + 0.0  # -0.0 is 0: a box written `w: -0.0` passed 'at least 0' and was said '-0.0 x 10.0 mm'


def size(value: object) -> tuple[float, float]:
    """A component size: a named card size or [w, h] -> (w_pt, h_pt)."""
    if isinstance(value, str):
        key = value.strip().lower()
        if key in CARD_SIZES:
            w, h = CARD_SIZES[key]
            return w * MM, h * MM
        sides = key.split("x")  # not a pattern: `(.+?)\s*x` is quadratic in a run of spaces
        if len(sides) > 2:  # (cut at its first x, '63 x 88 x 3' was refused as a length ' 88 x 3')
            raise ValueError(f"expected one width and one height, 'w x h', got {described(value)}")
        if len(sides) == 2 and sides[0].strip() and sides[1].strip():
            return length(sides[0]), length(sides[1])
        hint = did_you_mean(key, CARD_SIZES)
        raise ValueError(f"unknown size {described(value)}{hint}: use a named size ({', '.join(CARD_SIZES)}) or [w, h]")
    if isinstance(value, (list, tuple)) and len(value) == 2:
        lengths: list[float] = []
        for index, side in enumerate(value):
            try:
                lengths.append(length(side))
            except ValueError as e:  # said at the side's own place where its list has one
                raise ItemRefused(str(e), index) from None
        return lengths[0], lengths[1]
    raise ValueError(f"expected a size name or [width, height], got {described(value)}")


def to_mm(points: float) -> float:
    return round(points / MM, 2) + 0.0  # + 0.0: a length rounded to nothing is 0, not -0.0 (manifests said it)


IMPOSITIONS = ("duplex", "gutterfold")
MARK_STYLES = ("lines", "corners", "none")  # crop marks: see impose.sheet.Grid.crop_marks


@dataclass(frozen=True)
class PrintOptions:
    """How a kit is printed: the paper and bleed, and what a home printer may need besides. It lives here,
    beside the paper sizes, so a build can tell whether its output is up to date without loading ReportLab."""

    paper: str = "a4"
    bleed: float = 0.0  # points of art printed past each card's trim
    ink_saver: bool = False  # large floods of colour left white, their outline printed (draw/ink.py)
    imposition: str = "duplex"  # or "gutterfold": fronts and backs side by side, folded together
    duplex_offset: tuple[float, float] = (0.0, 0.0)  # points: where the back's cross showed on the calibration sheet
    marks: str = "lines"  # crop marks: cut lines continued into the margins, "corners" of each item, or "none"
    draft: bool = False  # cards with errors drawn, marked with their messages: never a print-ready kit

    def __post_init__(self) -> None:
        # lengths kept to the 0.01 mm the file names and the manifest say: --bleed 0.254 printed other bytes
        # under the names of --bleed 0.25 (--force replaced that kit) or took its kit for up to date
        object.__setattr__(self, "bleed", to_mm(self.bleed) * MM)
        x, y = self.duplex_offset
        object.__setattr__(self, "duplex_offset", (to_mm(x) * MM, to_mm(y) * MM))

    @property
    def paper_size(self) -> tuple[float, float]:
        return paper_points(self.paper)

    def named_parts(self, with_paper: bool = True) -> list[str]:
        """How the options are written in file names: a part for each recorded option that differs from the
        home kit's (A4, no bleed, ...), in the manifest's order, so no two builds with different options share
        a file name. The paper is left out where the name says it already (<game>-<paper>.pdf)."""
        home = PrintOptions().record()
        return [_NAMED[key](value) for key, value in self.record().items()
                if value != home[key] and (with_paper or key != "paper")]

    @property
    def variant(self) -> str:
        """What the file names say besides the paper, so a variant never overwrites the standard kit."""
        return "".join(f"-{part}" for part in self.named_parts(with_paper=False))

    @property
    def suffix(self) -> str:
        """What a file name that does not say the paper (manifest.json, <game>-boards-fullsize.pdf) says: every
        option that is not the home kit's, the paper too (manifest-letter.json)."""
        return "".join(f"-{part}" for part in self.named_parts())

    def record(self) -> dict[str, Any]:
        """The options as the manifest states them (millimetres)."""
        return {"paper": self.paper, "bleed_mm": to_mm(self.bleed), "ink_saver": self.ink_saver,
                "imposition": self.imposition, "duplex_offset_mm": [to_mm(v) for v in self.duplex_offset],
                "marks": self.marks, "draft": self.draft}


def _mm_text(mm: float) -> str:
    return f"{mm + 0.0:g}"  # + 0.0: -0.0 is written 0


_NAMED: dict[str, Callable[[Any], str]] = {  # each recorded print option -> its part of a file name (see PrintOptions.named_parts)
    "paper": str,
    "bleed_mm": lambda mm: f"bleed{_mm_text(mm)}mm",
    "ink_saver": lambda on: "inksaver",
    "imposition": str,
    "duplex_offset_mm": lambda xy: f"offset{_mm_text(xy[0])}_{_mm_text(xy[1])}mm",
    "marks": lambda style: {"corners": "cornermarks", "none": "nomarks"}[style],
    "draft": lambda on: "draft",
}
