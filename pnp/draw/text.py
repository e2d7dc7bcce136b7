"""Rich text for cards and rulebooks: **bold**, *italic*, :icon: inline, [[Term]] (a glossary term, in bold),
wrapping, shrink-to-fit."""

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from reportlab.lib.colors import Color
from reportlab.pdfbase.pdfmetrics import getAscent, stringWidth
from .fonts import FontSet
from reportlab.pdfgen.canvas import Canvas

# A tab or carriage return is a space between words, as in Markdown and HTML: in a run of text ReportLab drew each
# as the font's missing-character box, on a card or in the rulebook, with exit 0
# A soft hyphen (U+00AD) is a marker, never printed: text is never hyphenated, and the fonts drew it as a hyphen
# in the middle of a line ('extra-ordinary'), with exit 0
SOFT_HYPHEN = "\u00ad"
_TOKEN = re.compile(r"(\[\[[^\[\]\n]{1,60}\]\]|\\\\|\\[*:\[]|\*\*|\*|:[a-z0-9][a-z0-9-]*:|\n|[ \t\r]+|\u00ad+)")
_SPACES = re.compile(r"([ \t\r]+)")
# where a line may break at a space: the spaces above and a line break (a no-break space, U+00A0, or an em space
# is no break, though Python's isspace says it is a space)
BREAKING_SPACES = frozenset(" \t\r\n")
ICON_SCALE = 1.15  # an inline icon is a little larger than the text's cap height so it reads at small sizes


class Run(NamedTuple):  # a tuple: made by the thousand while parsing, it must be cheap to make
    kind: str  # "text" | "icon" | "space" | "br"
    text: str = ""
    bold: bool = False
    italic: bool = False


Item = tuple[float, Run, str]  # (x from the line's start, the run, its registered font name)
Box = list[Run] | Literal["br"] | None  # unbreakable runs, a line break, or a space
DrawIcon = Callable[[Canvas, str, float, float, float, float, Color | None], None]  # (canvas, name, x, y, w, h, colour)


@functools.lru_cache(maxsize=4096)
def left_open(markup: str) -> str | None:
    """The marker ('**' or '*') of markup that opens bold or italic nothing after it closes, None when every one
    is closed: such a star prints nothing and turns the rest of the text bold or italic ('Costs 2*3 food'
    printed 'Costs 23 food', '3 food' in italic, with exit 0)."""
    bold = italic = False
    for piece in _TOKEN.findall(markup):
        if piece == "**":
            bold = not bold
        elif piece == "*":
            italic = not italic
    return "**" if bold else "*" if italic else None


def open_at_end(markup: str) -> str:
    """The markers ('**', '*') open at the end of `markup`, in the order they were opened: '' when none is."""
    order: list[str] = []
    for piece in _TOKEN.findall(markup):
        if piece in ("**", "*"):
            if piece in order:
                order.remove(piece)
            else:
                order.append(piece)
    return "".join(order)


def throughout(markup: str, marker: Literal["**", "*"]) -> str:
    """`markup` in bold (`marker` '**') or italic ('*') from end to end, its own markers of that style left out:
    wrapped as it was, a bold word in a bold line (a heading's in the contents, a table header's) turned bold off
    and printed in the regular face. Its escapes ('\\*') are pieces of their own, so they are kept."""
    kept = "".join(piece for piece in _TOKEN.split(markup) if piece != marker)
    return f"{marker}{kept}{marker}"


def star_between_spaces(markup: str) -> str | None:
    """The first star with a space or the text's edge on both sides, None when there is none: its marker ('**'
    or '*'), or the run of markers it is one of ('****'); it still opens or closes bold or italic, so a closed
    pair printed neither star ('2 * 3 * 4' printed '2  3  4', the 3 in italic, with exit 0) and ' **** ' printed
    nothing, where Markdown (as the rulebook reads it) prints such stars."""
    runs: list[list[int]] = []  # [start, end] of each run of adjacent markers
    for found in _TOKEN.finditer(markup) if "*" in markup else ():
        if found.group() in ("*", "**"):
            if runs and runs[-1][1] == found.start():
                runs[-1][1] = found.end()
            else:
                runs.append([found.start(), found.end()])
    for start, end in runs:
        if markup[start - 1: start].strip() == "" and markup[end: end + 1].strip() == "":
            return markup[start:end]
    return None


@functools.lru_cache(maxsize=4096)
def parse(markup: str) -> tuple[Run, ...]:
    """Markup -> runs. Unknown markers are kept as text; '\\*' is a literal star, '\\\\' a backslash (so that
    a text ending in one, set in markup such as '**...**', does not escape the star after it), '\\:' a colon
    and '\\[' a bracket that start no icon or glossary term (see book.literal)."""
    runs: list[Run] = []
    bold, italic = False, False
    for n, piece in enumerate(_TOKEN.split(markup)):
        if not piece:
            continue
        if n % 2 == 0:  # text between markers, whatever it looks like (':Rules:', '::', '[[]]' are words)
            runs.append(Run("text", piece, bold, italic))
        elif piece == "**":
            bold = not bold
        elif piece == "*":
            italic = not italic
        elif piece in ("\\*", "\\:", "\\[", "\\\\"):  # an escape prints the character it escapes
            runs.append(Run("text", piece[1], bold, italic))
        elif piece == "\n":
            runs.append(Run("br"))
        elif piece[0] == SOFT_HYPHEN:
            continue
        elif piece[0] in " \t\r":
            runs.append(Run("space", " ", bold, italic))
        elif piece.startswith(":") and piece.endswith(":") and len(piece) > 2:
            runs.append(Run("icon", piece[1:-1], bold, italic))
        elif piece.startswith("[[") and piece.endswith("]]"):
            runs.extend(_term_runs(piece[2:-2], italic))
        else:
            runs.append(Run("text", piece, bold, italic))
    return tuple(runs)


def glyph_runs(markup: str) -> int:
    """How many strings setting `markup` takes at the least: one, and one more at each change of font (bold,
    italic, a glossary term), each inline icon and each line break: what the drawing budget charges a text
    (layout.budget.steps_of), whatever its width wraps it into."""
    if _PLAIN.match(markup):
        return 1
    runs, last = 0, None
    for run in parse(markup):
        if run.kind == "space":
            continue
        look = (run.kind, run.bold, run.italic)
        if look != last or run.kind != "text":
            runs += 1
        last = look
    return max(runs, 1)


def _term_runs(term: str, italic: bool) -> list[Run]:
    """A glossary term's words in bold, breakable between them like any words."""
    return [Run("space", " ", True, italic) if word[0] in " \t\r" else Run("text", word, True, italic)
            for word in _SPACES.split(term.replace(SOFT_HYPHEN, "").strip()) if word]


def cut_to_width(text: str, font: str, size: float, width: float, least: int = 0) -> str:
    """`text` as it fits `width` points in `font` at `size`: whole when it does, else the longest beginning of
    it that fits followed by an ellipsis, two characters or more shorter than the text (the ellipsis takes the
    place of one) and at least `least` long (`least` when none fits); a text of `least` + 1 characters or fewer
    as it is. The cut is found by halving (a title of thousands of words is measured a dozen times, not once
    a character)."""
    if len(text) <= least + 1 or stringWidth(text, font, size) <= width:
        return text
    lo, hi = least, len(text) - 2  # the longest fitting beginning's length is in lo..hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if stringWidth(text[:mid] + "…", font, size) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "…"


@functools.lru_cache(maxsize=4096)
def unmapped(markup: str, fonts: FontSet, family: str) -> str | None:
    """The first character the markup prints that its font (the family's style of its run) has no glyph
    for, None when there is none: such a character printed as a blank box, or nothing. Icons are drawn, not
    set in the font."""
    if fonts.maps_all(markup, family):  # (every run's characters are the markup's, in one of these styles)
        return None
    for run in parse(markup):
        if run.kind == "text":
            missing = fonts.unmapped(run.text, family, run.bold, run.italic)
            if missing is not None:
                return missing
    return None


@functools.lru_cache(maxsize=65536)
def _width1(text: str, font: str) -> float:
    return stringWidth(text, font, 1.0)


@dataclass
class Line:
    items: list[Item]
    width: float


@dataclass
class Fitted:
    size: float
    leading: float
    lines: list[Line]
    overflow: bool  # True when the text does not fit even at `size`

    @property
    def height(self) -> float:
        """How tall the lines are: the leading between them, the last one only as tall as the type."""
        return len(self.lines) * self.leading - (self.leading - self.size)


# Characters of the scripts written without spaces between words (Chinese, Japanese; Korean's syllables too, as
# browsers break them): a line may break before or after any of them. Broken only at spaces, a sentence of them was
# one word: refused as too long for a card's box ("0 of its 40 fit") or wider than the rulebook's page, however
# many lines the box had room for
_WIDE = re.compile("[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf"
                   "\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\U00020000-\U0003fffd]")
# ... but never at the start of a line (closing marks, small kana, the prolonged sound mark) nor at the end of one
# (opening marks), as those scripts are set (kinsoku), nor beside a character that joins its neighbours (no-break
# spaces, the word joiner)
_NO_LINE_START = frozenset("、。，．・：；？！ー）」』】〕〉》〗〙〛｝］〟ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ々〻゛゜ゝゞヽヾ"
                           "‐゠–〜～…‥,.:;?!)]}\u00a0\u202f\u2060")
_NO_LINE_END = frozenset("（「『【〔〈《〖〘〚｛［〝([{\u00a0\u202f\u2060")


def _pieces(text: str) -> list[str]:
    """`text` cut where a line may break without a space: before or after a character of _WIDE, unless the
    character after it may not start a line or the one before it may not end one."""
    pieces, start = [], 0
    wide = [_WIDE.match(character) is not None for character in text]  # each character matched once, not twice
    for k in range(1, len(text)):
        if (wide[k - 1] or wide[k]) and text[k] not in _NO_LINE_START and text[k - 1] not in _NO_LINE_END:
            pieces.append(text[start:k])
            start = k
    pieces.append(text[start:])
    return pieces


def wide_breaks(text: str) -> list[int]:
    """Where a line of `text` may break without a space (see _pieces): the lengths of the beginnings ending there."""
    if not _WIDE.search(text):
        return []
    found, at = [], 0
    for piece in _pieces(text)[:-1]:
        at += len(piece)
        found.append(at)
    return found


def _boxes(runs: Sequence[Run]) -> list[Box]:
    """Group runs into unbreakable boxes separated by spaces (or by nothing, where a script written without
    spaces may break: see _WIDE); a 'br' is its own box."""
    boxes: list[Box] = []
    current: list[Run] = []
    for run in runs:
        if run.kind == "text" and _WIDE.search(run.text):
            for k, piece in enumerate(_pieces(run.text)):
                if k and current:
                    boxes.append(current)
                    current = []
                current.append(run._replace(text=piece))
        elif run.kind == "space":
            if current:
                boxes.append(current)
                current = []
            boxes.append(None)
        elif run.kind == "br":
            if current:
                boxes.append(current)
                current = []
            boxes.append("br")
        else:
            current.append(run)
    if current:
        boxes.append(current)
    return boxes


def _space_before(items: list[Item], first: tuple[Run, str, float], size: float, regular_space: float) -> float:
    """How wide the space is between the line's `items` and the box whose first run (run, font, width) is `first`.
    A space between two runs of one font is drawn as that font's space (draw_lines joins them: see _stretches);
    one between fonts or beside an icon is only a gap, the family's regular space. Measured as the regular face's
    whatever the face, a bold face's wider space set a line of bold words past its box's right edge (2 mm on a
    card), exit 0."""
    run, font, _ = first
    if items and items[-1][1].kind == "text" and run.kind == "text" and items[-1][2] == font:
        return _width1(" ", font) * size
    return regular_space


def layout(runs: Sequence[Run], fonts: FontSet, family: str, size: float, width: float) -> tuple[list[Line], bool]:
    """Break runs into lines at `size` within `width`. Returns (lines, overflow)."""
    icon_width = size * ICON_SCALE
    regular_space = _width1(" ", fonts.name(family)) * size
    lines: list[Line] = []
    items: list[Item] = []
    x, overflow, pending_space = 0.0, False, False
    for box in _boxes(runs):
        if box is None:
            pending_space = bool(items)
            continue
        if box == "br":
            lines.append(Line(items, x))
            items, x, pending_space = [], 0.0, False
            continue
        measured: list[tuple[Run, str, float]] = []  # (run, font, width) of each run in the box, measured once
        for r in box:
            font = fonts.name(family, r.bold, r.italic)
            measured.append((r, font, icon_width if r.kind == "icon" else _width1(r.text, font) * size))
        w = sum(m[2] for m in measured)
        start = x + (_space_before(items, measured[0], size, regular_space) if pending_space else 0.0)
        if items and start + w > width + 0.01:
            lines.append(Line(items, x))
            items, x, start = [], 0.0, 0.0
        if w > width + 0.01:
            overflow = True
        for r, font, run_width in measured:
            items.append((start, r, font))
            start += run_width
        x, pending_space = start, False
    if items or not lines:
        lines.append(Line(items, x))
    return lines, overflow


# no markup at all (no [[Term]] either): one font, breaks only at spaces. To the text's very end (\Z): '$' also matched
# before a last line break, and a card text written as a YAML block (`text: |`, which ends in one) was set as one run
# with its line break, which the font drew as its missing-character box after the text, exit 0
_PLAIN = re.compile(r"[^*:\\\n[\t\r\u00ad]*\Z")


def _one_line(markup: str, fonts: FontSet, family: str, width: float, height: float, size: float,
              leading: float) -> Fitted | None:
    """Plain text that fits on one line at `size`, laid out as `layout` would lay it out (the words joined by
    single spaces in one run, which draw_lines would merge anyway); None when that is not the case. Titles and
    names, one per card, are nearly all like this."""
    if not _PLAIN.match(markup):
        return None
    text = " ".join(word for word in markup.split(" ") if word)
    font = fonts.name(family)
    line_width = _width1(text, font) * size
    if line_width > width + 0.01 or size > height + 0.01:
        return None
    return Fitted(size, size * leading, [Line([(0.0, Run("text", text), font)] if text else [], line_width)], False)


def valign_offset(valign: str | None, box_height: float, used: float) -> float:
    """How far below the box's top lines `used` tall start, aligned top, middle or bottom (never above it)."""
    below: dict[str | None, float] = {"middle": (box_height - used) / 2, "bottom": box_height - used}
    return max(below.get(valign, 0.0), 0.0)


def fit(markup: str, fonts: FontSet, family: str, width: float, height: float, max_size: float,
        min_size: float | None = None, leading: float = 1.2, max_lines: int = 0) -> Fitted:
    """The largest size between min and max (0.25 pt steps) at which the text fits the box
    (and, when max_lines is set, takes no more lines than that)."""
    quick = _one_line(markup, fonts, family, width, height, max_size, leading)
    if quick is not None:
        return quick
    runs = parse(markup)
    min_size = max_size if min_size is None else min_size

    def attempt(size: float) -> Fitted:
        lines, overflow = layout(runs, fonts, family, size, width)
        too_tall = len(lines) * size * leading - (size * leading - size) > height + 0.01
        too_tall = too_tall or bool(max_lines and len(lines) > max_lines)
        return Fitted(size, size * leading, lines, overflow or too_tall)

    best = attempt(max_size)
    if not best.overflow or min_size >= max_size:
        return best
    lo, hi = 0, int((max_size - min_size) / 0.25)  # steps down from max
    smallest = attempt(min_size)
    if smallest.overflow:
        return smallest
    result = smallest
    while lo + 1 < hi:  # invariant: max - lo*0.25 overflows, max - hi*0.25 fits
        mid = (lo + hi) // 2
        trial = attempt(max_size - mid * 0.25)
        if trial.overflow:
            lo = mid
        else:
            hi, result = mid, trial
    return result


def draw_lines(canvas: Canvas, fitted: Fitted, x: float, top: float, width: float, align: str, colour: Color,
               fonts: FontSet, family: str, draw_icon: DrawIcon) -> float:
    """Draw fitted lines with the first line's cap at `top`, as one PDF text object (icons after it);
    returns the height used."""
    size, leading = fitted.size, fitted.leading
    ascent = getAscent(fonts.name(family)) / 1000 * size
    baseline = top - ascent
    text = canvas.beginText()
    text.setFillColor(colour)
    current_font: str | None = None
    icons: list[tuple[str, float, float, float]] = []
    for line in fitted.lines:
        dx = (width - line.width) / 2 if align == "center" else width - line.width if align == "right" else 0.0
        for start, font, piece in _stretches(line.items, size):
            if font is None:  # an icon, drawn after the text
                icons.append((piece, x + dx + start, baseline - size * 0.22, size * ICON_SCALE))
                continue
            if font != current_font:
                text.setFont(font, size)
                current_font = font
            text.setTextOrigin(x + dx + start, baseline)
            text.textOut(piece)
        baseline -= leading
    if current_font is not None:
        canvas.drawText(text)
    for name, ix, iy, s in icons:
        draw_icon(canvas, name, ix, iy, s, s, colour)
    return len(fitted.lines) * leading


def _stretches(items: list[Item], size: float) -> Iterator[tuple[float, str | None, str]]:
    """A line's runs as (x, font, text) stretches, one per run of words in one font (joined by the spaces
    between them), and (x, None, icon name) for each icon: a PDF text operator per stretch, not per word."""
    pieces: list[str] = []
    start, expected_x = 0.0, 0.0  # start: set with the first piece, before any stretch is yielded
    run_font: str | None = None
    for ix, run, font in items:
        if run.kind == "icon":
            if pieces:
                yield start, run_font, "".join(pieces)
            pieces, run_font = [], None
            yield ix, None, run.text
            continue
        if font == run_font and pieces:
            if ix - expected_x > 0.01:
                pieces.append(" ")
            pieces.append(run.text)
        else:
            if pieces:
                yield start, run_font, "".join(pieces)
            pieces, start, run_font = [run.text], ix, font
        expected_x = ix + _width1(run.text, font) * size
    if pieces:
        yield start, run_font, "".join(pieces)
