"""A rulebook laid out with Platypus: Markdown (markdown-it tokens) to flowables, a title page, a table of
contents whose page numbers settle, page numbers, tables, tip boxes, inline icons and pictures of real
components. What the book says comes from products.rulebook; this module only sets it in type."""

import functools
import io
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_block.html_block import html_block
from markdown_it.rules_block.reference import reference
from markdown_it.rules_block.table import escapedSplit, table
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline import emphasis
from markdown_it.rules_inline.image import image
from markdown_it.token import Token
from reportlab.lib import colors
from reportlab.lib.colors import Color
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Flowable, Frame, KeepTogether, Spacer, Table, TableStyle
from reportlab.platypus.doctemplate import ActionFlowable

from ..errors import DataError
from ..model.glossary import TERM_IN_TEXT
from ..options import CONTROL_CHARACTER, blank, control_problem, entity_number, shown_number
from ..report import Mark, named, shortened
from ..template import as_typed
from ..units import MM
from . import text as rtext
from .text import ICON_SCALE
from .canvas import Canvas, new_canvas
from .flowables import Heading, LaidOut, Picture, RichText, Rule, layout_only
from .fonts import FontSet, unmapped_message

MARGIN = 18 * MM
INK = "#222222"
ACCENT = "#2f5d50"
TIP = colors.HexColor("#eef3ea")
RULE_COLOUR = "#9a9a9a"  # a thematic break's line (---)
COMPONENT_PICTURE_WIDTH = 48 * MM  # a card or token shown in the rules
_CELL_PADDING = 12  # points: a table cell's padding, left and right (ReportLab's 6 each)
MIN_PICTURE_WIDTH = 1 * MM  # a picture narrower is not seen (and 0 would scale its drawing to nothing)
# of a page's text height, what a picture may not take: room for its caption (up to three lines) below it, so
# that the two fit on a page (a 1 x 2000 mm card shown at card width was taller than any page: validate said
# ok, the build failed). A picture drawn to fit a page (DinoSpan's tree) keeps its size.
CAPTION_ROOM = 16 * MM
# headings, paragraphs, quotes, lists, items, tables, rows, cells, rules: the shipped rulebooks have 640-750 (about 40 a
# page), a 240-page campaign book about 7,400; 15,000 quotes, the costliest blocks to set, took 3.5 s of CPU more than
# their game's own to validate and 5.6 s more to build (362 pages), 15,000 table cells 2 s and 4 s (when headings
# were not capped apart, 20,000 headings took 13 s and 290 MB to set)
MAX_BLOCKS = 15_000
# a heading is set twice more (its line of the contents, in each of the two passes that find its page): 6,000
# headings took 10 s of CPU to build where 6,000 paragraphs took 4; the shipped rulebooks have 23-38
MAX_HEADINGS = 500
# the widest page number a footer is measured with: four digits, past any rulebook the caps allow (its
# 1,000,000 characters set about 290 pages, and a kit's pages are held to 500 and half a page per face). It
# was MAX_BLOCKS's: raised to 15,000, a title that fits beside four digits was refused for a fifth
WIDEST_PAGE_NUMBER = "9999"
_WORD_BREAK = re.compile(r"[ \t\r\n]+")  # where rich text may break a line (see rtext.layout, rtext._TOKEN)
TOC_SIZES, TOC_INDENTS = {1: 10.5, 2: 9.5}, {1: 0.0, 2: 5 * MM}  # the contents' lines of each heading level
TOC_PAGE_COLUMN = 14 * MM  # the contents' column of page numbers
# A list item's label column: at least this wide (a level deeper, this much further in), and as wide as the
# list's widest label ("12." is wider than the 4 mm "9." fits in) and the gap before the item's text
LIST_INDENT, LIST_GAP, LIST_LABEL_SIZE = 6 * MM, 2 * MM, 10.0
# A list item's text is at least this wide: nine lists numbered from 999999999 nested in one another, in a
# monospaced font, put the innermost one's text at "-12 mm"
LIST_TEXT_LEAST = 30 * MM
FOOTER_SIZE = 8  # points: the page footer's type
# the smallest type a rulebook sets itself (its footer; a picture's caption and the closing note are 8.5): a
# game's `min_text_size` is the floor of what its components print from layouts, not of these
LEAST_SIZE = FOOTER_SIZE
BULLET = "•"  # a bulleted list item's label
FACTS_SEPARATOR = " · "  # between the title page's players, ages and time
# A table splits between rows with at least this many body rows on each side (its header repeated on the
# next page); one of fewer than TABLE_WHOLE_ROWS body rows moves whole: split, it would be all fragments, and
# the gap it leaves when it moves is small
TABLE_SPLIT_ROWS, TABLE_WHOLE_ROWS = 2, 6
# characters of one paragraph, heading or table cell (the shipped rulebooks' longest is 900), and of them read
# inside brackets, counted once per '[' open around each (theirs, about 100): see _reading_cost
MAX_INLINE_CHARS, MAX_OPEN_BRACKETS = 20_000, 200_000
# and of them read inside brackets in the whole book: a rulebook of 1,000,000 characters of paragraphs each just
# under MAX_OPEN_BRACKETS took 11 s to validate; the shipped rulebooks read about 1,000 in all, a 240-page one
# of real text (terms and links in every paragraph) about 60,000
MAX_BOOK_OPEN_BRACKETS = 1_000_000
MAX_TABLE_ROWS = 1000  # ReportLab splits a table across pages in time growing with the square of its rows
# table rows, list items and tips in the whole book together, the costliest blocks to set (1.1-1.8 ms each to
# build, a paragraph about 0.6): seven tables of 990 rows of one column (13,860 of the 15,000 blocks) took 11.3 s
# to build, 7,000 list items 13.3 s, 7,000 tips 12.6 s. The shipped rulebooks hold 56-118 (a quarter of their
# blocks; a 240-page campaign book's 7,400 blocks about 1,900)
MAX_COSTLY_BLOCKS = 3500
_COSTLY_BLOCKS = ("tr_open", "list_item_open", "blockquote_open")
# pictures (`![...](...)`) in the whole book: each is looked up, measured, checked and drawn apart, about 0.4 ms
# of a build, and a reference (`![][r]`) is six characters: 150,000 of them, a template of 944 bytes, took 19 s to
# validate and 48 s to build. The shipped rulebooks show 6-18; 2,000 add about a second
MAX_PICTURES = 2000
# pieces of text the Markdown reads in the whole book (words between markup, each '*' and '**', term, link, code
# span, entity, picture): the book walks each about a dozen times. '*a* ' written 125,000 times (its 1,000,000
# characters, 495,000 pieces) took 18.6 s and 290 MB to build where as many characters of words took 5.6 s; the
# shipped rulebooks read about one piece per 35 characters (1,000,000 characters of them, about 30,000)
MAX_INLINE_PIECES = 100_000

Entry = tuple[int, str, int]  # a heading the contents list: (level, text, page)
Image = tuple[str, str, str]  # a picture the Markdown shows: (src, caption, title)
# src, title -> (draw(canvas), natural size, whether it is a component): see products.rulebook
PictureSource = Callable[[str, str], tuple[Callable[[Canvas], None], tuple[float, float], bool]]


@dataclass
class BookContent:
    """Everything a rulebook says: its Markdown and the words of its title page and credits."""

    title: str
    markdown: str
    subtitle: str = ""
    facts: str = ""  # players, ages, time
    credits: list[tuple[str, object]] = field(default_factory=list)  # (role, who)
    note: str = ""  # a line at the foot of the title page
    fonts_line: str = ""
    icons_line: str = ""
    marks: dict[str, Mark | None] = field(default_factory=dict)  # where title, subtitle, facts, credits are written
    # each paragraph's words by the key writing them (facts: players, ages, time; credits: each role and name):
    # a character no font has, or a word too wide for the page, is said at the key holding it (both were said at
    # `players:` for the facts, at `credits:` for a credit)
    sources: dict[str, list[tuple[str, Mark | None]]] = field(default_factory=dict)

    def mark_of(self, what: str, printed: str) -> Mark | None:
        """Where game.yaml writes the words of the title page's paragraph `what` that hold `printed` (a
        character no font has, a word too wide), else where the paragraph is said to be written."""
        found = next((mark for text, mark in self.sources.get(what, ()) if printed and printed in text), None)
        return found or self.marks.get(what)


def _too_many_blocks(tokens: "Parsed") -> "BookError | None":
    """The error for Markdown of more than MAX_BLOCKS blocks or MAX_HEADINGS headings, at the line of the one
    past the limit; None when there are not so many."""
    # a rule (---) is a block of its own, with no closing token: 29,000 of them took 14 s to set
    opened = [t for t in tokens if _opens_a_block(t)]
    headings = [t for t in opened if t.type == "heading_open"]
    costly = [t for t in opened if t.type in _COSTLY_BLOCKS]
    # said as counted: a one-column table of 3,001 rows was refused as more than 6,000 'table cells', its rows
    # (and its head and body) counted without a word
    for counted, limit, what in ((_block_lines(opened, tokens), MAX_BLOCKS,
                                  "blocks (headings, paragraphs, quotes, lists and each of their items, tables and "
                                  "each of their rows and cells, rules (---), link targets ('[name]: src'))"),
                                 (_block_lines(headings), MAX_HEADINGS, "headings (the contents list each)"),
                                 (_block_lines(costly), MAX_COSTLY_BLOCKS,
                                  "table rows, list items and tips (`>`) together")):
        if len(counted) > limit:
            first_too_many = counted[limit]
            return BookError(f"the rulebook holds more than {limit:,} {what}; split it",
                             line=first_too_many + 1 if first_too_many >= 0 else None)
    return _too_many_pictures(tokens) or _too_many_pieces(tokens)


def _too_many_pieces(tokens: list[Token]) -> "BookError | None":
    """The error for Markdown read as more than MAX_INLINE_PIECES pieces of text, at the line of the paragraph
    (heading, cell) past the limit; None when there are not so many."""
    read = 0
    for block in tokens:
        if block.type == "inline":
            read += _pieces_within(block.children or [])
            if read > MAX_INLINE_PIECES:
                return BookError(f"the rulebook is read as more than {MAX_INLINE_PIECES:,} pieces of text (words "
                                 "between markup, each '*', term, link, picture...), more than a rulebook of "
                                 "1,000,000 characters of words holds: split it, or write less markup",
                                 line=block.map[0] + 1 if block.map else None)
    return None


def _too_many_pictures(tokens: list[Token]) -> "BookError | None":
    """The error for Markdown showing more than MAX_PICTURES pictures, at the line of the one past the limit
    (a picture in another's caption counted too); None when there are not so many."""
    shown = 0
    for block in tokens:
        if block.type != "inline":
            continue
        pictures = _pictures_within(block.children or [])
        if shown + pictures > MAX_PICTURES:
            past = MAX_PICTURES - shown  # the paragraph's picture (0-based) past the limit, as it is typed
            starts = [m.start() for m in _PICTURE_START.finditer(block.content)]
            line = block.map[0] + 1 if block.map else None
            if line is not None and past < len(starts):
                line += block.content.count("\n", 0, starts[past])
            return BookError(f"the rulebook shows more than {MAX_PICTURES:,} pictures; each is drawn apart, and "
                             "so many would take minutes to build: split it, or print them as a sheet of cards",
                             line=line)
        shown += pictures
    return None


def _pictures_within(children: list[Token]) -> int:
    """How many pictures inline tokens show, those in a picture's caption (or a link's text) counted too."""
    return _pieces_within(children, "image")


def _unread_past_the_pieces(state: StateCore) -> None:
    """The blocks after the one whose pieces of text pass MAX_INLINE_PIECES read as none: the book refuses it
    (_too_many_pieces), and each of the book's walks over them (its pictures, icons, words) took seconds more."""
    read = 0
    for block in state.tokens:
        if block.type != "inline":
            continue
        if read > MAX_INLINE_PIECES:
            block.children = []
        else:
            read += _pieces_within(block.children or [])


def _pieces_within(children: list[Token], kind: str | None = None) -> int:
    """How many inline tokens (of type `kind`, or all) `children` hold, those in a picture's caption too."""
    count = 0
    stack = [children]
    while stack:
        for child in stack.pop():
            count += kind is None or child.type == kind
            if child.children:
                stack.append(child.children)
    return count


def _block_lines(opened: list[Token], parsed: "Parsed | None" = None) -> list[int]:
    """The lines (0-based, -1 for none) the blocks `opened` begin at, and those of `parsed`'s link targets
    (`[name]: src`, which are blocks to Markdown too), in the order they are typed."""
    lines: list[int] = []
    for token in opened:  # a table cell has no line of its own: the nearest block's before it (its table's body)
        lines.append(token.map[0] if token.map else lines[-1] if lines else -1)
    return sorted(lines + list(parsed.targets_at if parsed is not None else ()))


_NESTING = MarkdownIt("commonmark").options["maxNesting"]  # where markdown-it stops reading blocks


def _too_deep(tokens: list[Token]) -> "BookError | None":
    """The error for blocks nested as deep as markdown-it reads (lists in lists, quotes in quotes), at the line
    of the first so deep; None when none is. Past its limit it leaves out what is inside without a word: a
    list 40 deep printed 9 of its items, a quote 20 deep nothing."""
    deep = next((t for t in tokens if t.level >= _NESTING - 1 and t.map and t.type != "inline"), None)
    if deep is None or deep.map is None:  # (it has a map: the test above)
        return None
    # said as the writer counts: the lists and quotes around it (markdown-it's level counts a list twice, the list
    # and its item: a list in lists 10 deep was said to be nested 19 levels deep, past 18)
    lists, quotes = _lists_and_quotes_around(tokens, deep)
    return BookError(f"lists and quotes nested {lists + quotes} deep ({lists} list{'s' * (lists != 1)}, {quotes} "
                     f"quote{'s' * (quotes != 1)}): Markdown reads {_NESTING - 2} levels of blocks, a list taking "
                     "two (the list, its item) and a quote one, and would leave out what is inside; nest them less",
                     line=deep.map[0] + 1)


def _lists_and_quotes_around(tokens: list[Token], deep: Token) -> tuple[int, int]:
    """How many lists and quotes are open at `deep` (one of `tokens`), itself among them."""
    open_ = {"bullet_list": 0, "ordered_list": 0, "blockquote": 0}
    for t in tokens:
        kind = t.type.rsplit("_", 1)[0]
        if kind in open_:
            open_[kind] += t.nesting
        if t is deep:
            break
    return open_["bullet_list"] + open_["ordered_list"], open_["blockquote"]


@dataclass
class _Story:
    """Where the Markdown walk is: its tokens, the position, open lists and the flowables so far."""

    tokens: list[Token]
    registry: list[Entry]
    i: int = 0
    # per open list: [the delimiter after its numbers ('.' or ')'; '' for bullets), next number, the width of its
    # label column (its widest label and the gap)]
    lists: list[list[Any]] = field(default_factory=list)
    flow: list[Flowable] = field(default_factory=list)


def _items(tokens: list[Token], opened: int) -> int:
    """How many items the list opened at tokens[opened] holds (not those of lists inside it)."""
    depth, count = 0, 0
    for t in tokens[opened:]:
        depth += t.nesting if t.type.endswith(("list_open", "list_close")) else 0
        if depth == 0:
            break
        count += depth == 1 and t.type == "list_item_open"
    return count


class BookError(DataError):
    """The rulebook cannot be set: a block too large for a page, a picture that cannot be drawn. `line` is
    the line of the rendered Markdown where the block starts, when known."""

    def __init__(self, message: str, mark: Mark | None = None, line: int | None = None, printed: str = "") -> None:
        super().__init__(message, mark)
        self.line = line
        self.printed = printed  # the words at fault, as printed: the block's line holding them is said


class Parsed(list[Token]):
    """A Markdown text's block tokens, and the lines (1-based) of its link reference definitions (`[name]: src`),
    which print nothing: their targets are no text to look for icons or terms in (`[pic]: component:deck:back`
    was refused as the unknown icon ':deck:')."""

    definitions: frozenset[int] = frozenset()
    targets_at: tuple[int, ...] = ()  # the lines (0-based) each link target's definition begins at, once each
    icons: "tuple[tuple[str, int, range], ...] | None" = None  # icons_drawn, once read


def parse(markdown: str) -> Parsed:
    """The Markdown's block tokens, parsed the one way the build and validation both read them. Every link
    and picture is kept as written: markdown-it drops a `file:`, `javascript:` or `vbscript:` one (it guards
    HTML against scripts), and the rulebook then printed its markup as text with exit 0; the book refuses a
    picture it cannot show at its line instead, and draws no link."""
    # (struck text is read to be refused: see _refuse_struck)
    markdown_parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # an escape or entity ('\\:', '&colon;') stays a token of its own, printed as typed (see _inline)
    markdown_parser.disable("text_join")
    markdown_parser.validateLink = _any_link  # type: ignore[method-assign]
    markdown_parser.normalizeLink = _as_typed  # type: ignore[method-assign]
    markdown_parser.inline.ruler.before("link", "term", _term)
    markdown_parser.inline.ruler.at("image", _image_counted)
    markdown_parser.block.ruler.before("table", "past_the_blocks", _past_the_blocks)
    markdown_parser.block.ruler.at("table", _table_within_blocks, {"alt": ["paragraph", "reference"]})
    markdown_parser.block.ruler.at("reference", _reference_counted)
    markdown_parser.block.ruler.at("html_block", _html_block_not_a_break, {"alt": ["paragraph", "reference", "blockquote"]})
    markdown_parser.inline.ruler.before("emphasis", "underscores_as_typed", _underscores_as_typed)
    markdown_parser.inline.ruler.before("emphasis", "stars_placed", _stars_placed)
    markdown_parser.inline.ruler2.after("balance_pairs", "stars_unclosed", _stars_unclosed)
    markdown_parser.core.ruler.before("inline", "too_long", _unread_if_too_long)
    markdown_parser.core.ruler.after("inline", "pieces_counted", _unread_past_the_pieces)
    markdown_parser.core.ruler.push("addresses_as_typed", _addresses_as_typed)
    markdown_parser.core.ruler.push("emphasis_once", _emphasis_once)
    env: dict[str, Any] = {}
    tokens = markdown_parser.parse(markdown, env)
    references = env.get("references") or {}
    parsed = Parsed(_with_unused_references(tokens, references))
    parsed.definitions = frozenset(line + 1 for ref in references.values() if ref.get("map")
                                   for line in range(ref["map"][0], ref["map"][1]))
    parsed.targets_at = tuple(env.get(_TARGETS_READ, ()))
    return parsed


_BLOCKS_READ = "pnp: blocks read"  # the parse's env: [tokens looked at, blocks among them] (_past_the_blocks)


def _opens_a_block(token: Token) -> bool:
    """Whether `token` is one of the blocks the rulebook counts (see _too_many_blocks): a rule (---) is one of
    its own, with no closing token."""
    return token.nesting == 1 or token.type == "hr"


def _past_the_blocks(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Once the Markdown holds more than MAX_BLOCKS blocks, the lines left read as none: the book refuses it at
    the one past the limit (_too_many_blocks), which is read. markdown-it read on: a list of 37,000 items, a
    table of 74,000 rows (150,000 characters, what a rulebook could render then) took 10 s to be refused."""
    if silent:
        return False
    counted = state.env.setdefault(_BLOCKS_READ, [0, 0])
    looked_at, blocks = counted
    blocks += sum(1 for token in state.tokens[looked_at:] if _opens_a_block(token))
    counted[:] = [len(state.tokens), blocks]
    if _blocks_read(state) <= MAX_BLOCKS:
        return False
    state.line = end
    return True


def _blocks_read(state: StateBlock) -> int:
    """The blocks read so far (see _past_the_blocks), and the link targets' definitions, which make no token."""
    return int(state.env.get(_BLOCKS_READ, [0, 0])[1]) + len(state.env.get(_TARGETS_READ, ()))


_TARGETS_READ = "pnp: link targets read"  # the parse's env: the line each '[name]: src' read begins at


def _reference_counted(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """markdown-it's link target (`[name]: src`), its line noted: a block that makes no token, so it was not
    counted against MAX_BLOCKS, and 80,000 of them (a rulebook of 950,000 characters) took 13 s to refuse."""
    if not reference(state, start, end, silent):
        return False
    if not silent:
        state.env.setdefault(_TARGETS_READ, []).append(start)
    return True


def _table_within_blocks(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """markdown-it's table, read no more rows deep than cross MAX_BLOCKS: it reads a table's rows in one go, and
    each row is two blocks or more, a row and a cell (a longer one is refused all the same, at the same line:
    see _past_the_blocks, which counted the blocks before it)."""
    left = MAX_BLOCKS + 1 - _blocks_read(state)
    return table(state, start, min(end, start + 3 + max(left, 0) // 2), silent)


def _html_block_not_a_break(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """An HTML block, as Markdown reads one, unless its first line is a line break tag alone (see _BREAK_TAG):
    the book reads `<br>` as text, so such a line begins a paragraph, as it goes on one ('<br>' alone after a blank
    line was refused as a block of HTML whose text would be left out)."""
    line = state.src[state.bMarks[start] + state.tShift[start]:state.eMarks[start]]
    return _BREAK_TAG.fullmatch(line.strip()) is None and html_block(state, start, end, silent)


def _unread_if_too_long(state: StateCore) -> None:
    """Leave unread the text of a paragraph, heading or table cell Markdown would take seconds to read (see
    _reading_cost), noting why for the book to refuse it at its line (see _refuse_left_as_typed)."""
    spanned = 0  # read inside brackets so far, in the book's text before the token
    for token in state.tokens:
        if token.type == "inline":
            cost = _reading_cost(token.content)
            spanned += 0 if cost else _bracket_span(token.content)
            if not cost and spanned > MAX_BOOK_OPEN_BRACKETS and "[" in token.content:
                cost = (f"whose '[' stay open over {spanned:,} characters with those before it in the rulebook "
                        f"(each until its ']'; at most {MAX_BOOK_OPEN_BRACKETS:,} in all): Markdown reads them "
                        "slowly; close them, or write '\\[' for a '[' of text")
            if cost:
                token.meta["too_long"] = cost
                token.content = ""


def _addresses_as_typed(state: StateCore) -> None:
    """Make the text of an address written `<https://...>` (Markdown links it, printing it as written) a token
    printed as typed, as an escape's is (see _inline): ':star:' in one drew the icon, '[[X]]' a bold term."""
    for token in state.tokens:
        inside = False
        for child in token.children or [] if token.type == "inline" else []:
            if child.markup == "autolink":  # the link_open and link_close around the address
                inside = child.type == "link_open"
            elif inside and child.type == "text":
                child.type = "text_special"


# an emphasis token's kind: its opening and closing token types
_EMPHASIS = {"strong_open": "strong", "strong_close": "strong", "em_open": "em", "em_close": "em"}


def _emphasis_once(state: StateCore) -> None:
    """Leave out bold or italic opened inside bold or italic of the same kind: Markdown prints '**a **b** c**'
    all in bold and '*a *b* c*' all in italic (emphasis nested in its kind is still that emphasis), where pnp
    markup's '**' and '*' turn it on and off, so the inner word printed in the regular face with exit 0."""
    for token in state.tokens:
        if token.type == "inline" and token.children:
            token.children = _outer_emphasis(token.children)


def _outer_emphasis(children: list[Token]) -> list[Token]:
    """Inline tokens without the emphasis nested in its own kind (see _emphasis_once), a picture's caption's
    too."""
    depth = {"strong": 0, "em": 0}
    kept: list[Token] = []
    for child in children:
        kind = _EMPHASIS.get(child.type)
        if kind is not None:
            closing = child.type.endswith("_close")
            depth[kind] -= closing
            nested = depth[kind] > 0
            depth[kind] += not closing
            if nested:
                continue
        elif child.type == "image" and child.children:
            child.children = _outer_emphasis(child.children)
        kept.append(child)
    return kept


_BRACKET = re.compile(r"\\[\s\S]|[\[\]]")  # (an escape, read past: '\[' is text, no bracket to Markdown)


def _reading_cost(text: str) -> str:
    """Why markdown-it would take seconds to read the inline text `text` ("" when it would not): it is longer
    than MAX_INLINE_CHARS, or its '[' stay open over more than MAX_OPEN_BRACKETS characters in all. markdown-it
    reads from each '[' to its ']' (to the end of the text when none closes it), so one line of 70,000 '[['
    took 20 s, and 14 paragraphs of 625 '[' among emphasis, 10,000 characters each, 10 s."""
    if len(text) > MAX_INLINE_CHARS:
        return f"of {len(text):,} characters: the rulebook reads at most {MAX_INLINE_CHARS:,} in one; split it"
    spanned = _bracket_span(text)
    if spanned > MAX_OPEN_BRACKETS:
        return (f"whose '[' stay open over {spanned:,} characters in all (each until its ']'; at most "
                f"{MAX_OPEN_BRACKETS:,}): Markdown reads them slowly; close them, or write '\\[' for a '[' of text")
    return ""


def _bracket_span(text: str) -> int:
    """The characters Markdown reads inside brackets in `text`, each once per '[' open around it."""
    depth, last, spanned = 0, 0, 0  # brackets open, where the last one is, the characters read inside brackets
    for bracket in _BRACKET.finditer(text):
        if bracket.group()[0] == "\\":  # (700 '\[', as `| as_typed` writes 700 '[', were refused as open)
            continue
        spanned += depth * (bracket.start() - last)
        depth, last = max(depth + (1 if bracket.group() == "[" else -1), 0), bracket.start()
    return spanned + depth * (len(text) - last)


def _term(state: StateInline, silent: bool) -> bool:
    """A glossary term `[[Name]]` as one token holding its name as written: Markdown read a '*' in the name
    'Fast*Strike' as emphasis (the paragraph printed '**' as typed) and a table's cell printed 'Fast\\*Strike'."""
    found = TERM_IN_TEXT.match(state.src, state.pos)
    if found is None or silent:
        # (silent: Markdown is looking for a link's closing ']', and a token opening with '[' inside a link's
        # words is to it a link in a link, which ends the link: '[[[Roar]]](http://x)' printed its markup)
        return False
    if not silent:
        state.push("term", "", 0).content = found.group(1)
    state.pos = found.end()
    return True


_PICTURES_READ = "pnp: pictures read"  # the parse's env: how many pictures it has read (_image_counted)


def _image_counted(state: StateInline, silent: bool) -> bool:
    """markdown-it's picture, read only up to one past MAX_PICTURES (to be refused at its line: see
    _too_many_pictures); from a '![' after it its paragraph's rest is text, read no further (the book is refused).
    Reading 150,000 pictures took markdown-it 6 s of the 19; '![][r]' read as '![' and a link took longer still."""
    shown = state.env.get(_PICTURES_READ, 0)
    if shown > MAX_PICTURES:
        if not state.src.startswith("![", state.pos):
            return False
        if not silent:
            state.pending += state.src[state.pos:state.posMax]
        state.pos = state.posMax
        return True
    found = image(state, silent)
    if found and not silent:  # (counted after those in its caption, which image() has read and counted)
        state.env[_PICTURES_READ] = state.env.get(_PICTURES_READ, 0) + 1
    return found


_UNDERSCORES = re.compile(r"_+")


def _underscores_as_typed(state: StateInline, silent: bool) -> bool:
    """A run of '_' as text, never emphasis: the book reads bold and italic as a card does, from stars alone, so
    a value prints the same in both (a card named '_Li_' printed '_Li_' on the card and an italic 'Li' where the
    rulebook's template printed its name, and `| as_typed`, which cards read, left it so)."""
    found = _UNDERSCORES.match(state.src, state.pos)
    if found is None:
        return False
    if not silent:
        state.pending += found.group()
    state.pos = found.end()
    return True


_STAR_AT = "pnp: star at"  # a '*' token's meta: where in its inline's text it is typed (_stars_placed)
_UNCLOSED = "pnp: unclosed"  # a '*' token's meta: it opens or closes bold or italic that nothing matches


def _stars_placed(state: StateInline, silent: bool) -> bool:
    """A run of '*' read by Markdown's emphasis rule, each of its tokens knowing where it is typed: one that
    nothing matches is refused at its own line (_stars_unclosed, _refuse_unclosed_star)."""
    start, first = state.pos, len(state.tokens)
    if not emphasis.tokenize(state, silent):
        return False
    for n, token in enumerate(state.tokens[first:]):
        token.meta = {**(token.meta or {}), _STAR_AT: start + n}
    return True


def _stars_unclosed(state: StateInline) -> None:
    """Mark each '*' that could open or close bold or italic and that nothing matches: Markdown prints it as
    typed ('Some **bold never closed.' printed its stars, exit 0), where the same text on a card is refused as
    bold that nothing closes. A star that can do neither ('2 * 3') is text in both. Kept apart from the text
    around it (text_special, which prints as typed: see _inline), its mark is kept when the text is joined."""
    for delimiters in [state.delimiters, *(m["delimiters"] for m in state.tokens_meta if m and "delimiters" in m)]:
        matched = {d.end for d in delimiters if d.end >= 0}
        for n, d in enumerate(delimiters):
            if d.marker == 0x2A and d.end < 0 and n not in matched and (d.open or d.close):
                token = state.tokens[d.token]
                token.type, token.meta = "text_special", {**(token.meta or {}), _UNCLOSED: d.open}


def _refuse_unclosed_star(inline: Token | None) -> None:
    """Refuse a '*' that nothing matches (see _stars_unclosed) at the line it is typed on."""
    star = next((c for c in _with_captions(inline) if c.meta and _UNCLOSED in c.meta), None)
    if inline is None or star is None:
        return
    at = star.meta.get(_STAR_AT, 0)
    opens = "opens" if star.meta[_UNCLOSED] else "closes"
    raise BookError(f"a '*' {opens} bold or italic that nothing {'closes' if opens == 'opens' else 'opens'}: "
                    "Markdown prints it as typed; pair it, or write '\\*' for a star",
                    line=inline.map[0] + 1 + inline.content.count("\n", 0, at) if inline.map else None)


def _with_unused_references(tokens: list[Token], references: dict[str, Any]) -> list[Token]:
    """The tokens, with a `reference` block at the line of each `[name]: text` line no picture or link uses:
    Markdown takes such a line for a link's target and prints nothing of it ('[Optional]: Shuffle' was left
    out of the rulebook without a word); the book refuses it as a block it does not print. A `[^1]: note` line
    is a footnote's text to its writer, which the rulebook has none of: refused even where a `[^1]` uses it, as
    Markdown printed that as a link's text '^1' and left the note out with exit 0."""
    used = _targets(tokens)
    unused = sorted((ref["map"][0], label, ref["href"]) for label, ref in references.items()
                    if ref.get("map") and (ref["href"] not in used or label.startswith("^")))
    if not unused:
        return tokens
    # merged in one pass, each before the first top-level block starting below it (the blocks' lines rise): one
    # search of the tokens and one insert per line was quadratic, and 5,900 paragraphs then 11,000 such lines
    # took over 60 s to read
    merged: list[Token] = []
    placed = 0  # of `unused`
    for token in tokens:
        while placed < len(unused) and token.level == 0 and token.map and token.map[0] > unused[placed][0]:
            merged.append(_reference(*unused[placed]))
            placed += 1
        merged.append(token)
    return merged + [_reference(*reference) for reference in unused[placed:]]


def _reference(line: int, label: str, href: str) -> Token:
    """The block of a `[label]: href` line at `line` (0-based) that nothing uses (see _with_unused_references)."""
    return Token("reference", "", 0, map=[line, line + 1], content=f"[{label}]: {href}")


def _targets(tokens: list[Token]) -> set[str]:
    """The sources of the pictures and the targets of the links the Markdown's text holds."""
    return {str(c.attrGet("src") or c.attrGet("href") or "") for t in tokens if t.type == "inline"
            for c in t.children or [] if c.type in ("image", "link_open")}


def _any_link(url: str) -> bool:
    return True


def _as_typed(url: str) -> str:
    """A picture's source or a link's target as typed, not made a web address: markdown-it percent-encodes
    what is not ASCII, so `![x](component:déck)` was refused as 'd%C3%A9ck', and at its paragraph's first line
    (the encoded source is nowhere in the text). The book draws no link, so no target need be an address."""
    return url


def images(tokens: list[Token]) -> list[tuple[str, int | None]]:
    """(src, rendered line) of every picture the Markdown shows, inline or reference-style
    (`![x][r]` with `[r]: src`), as the build draws them."""
    out: list[tuple[str, int | None]] = []
    for t in tokens:
        if t.type == "inline":
            out += [(src, _picture_line(t, src, k)) for k, (src, _, _) in enumerate(_inline(t.children)[1])]
    return out


def _picture_line(inline: Token | None, src: str, k: int) -> int | None:
    """The rendered line of the `k`-th picture of the inline token: where its source is typed, or for one
    named by reference (`![x][r]`, its source on the `[r]:` line), where its `![` is (said at the paragraph's
    first line, whichever line it was on)."""
    if inline is not None and src not in inline.content:
        starts = [m.start() for m in _PICTURE_START.finditer(inline.content)]
        if k < len(starts) and inline.map:
            return inline.map[0] + 1 + inline.content.count("\n", 0, starts[k])
    return _line_of(inline, src)


_PICTURE_START = re.compile(r"(?<!\\)!\[")


def icons_drawn(tokens: list[Token]) -> list[tuple[str, int, range]]:
    """(name, rendered line, the lines of its block) of every icon the Markdown's text draws, read from the markup
    the book sets (a paragraph's, heading's, table cell's and tip's, and its pictures' captions): never a code
    span's, an escape's or a link's target. A line's text looked at as typed took 'box](:x:) here', which is no
    link, for one's target, and its unknown icon printed nothing with exit 0."""
    if isinstance(tokens, Parsed) and tokens.icons is not None:  # (read once a parse: the check asks for every
        return list(tokens.icons)  # icon's line, the report for their names; 14,000 paragraphs' took 0.7 s each)
    out: list[tuple[str, int, range]] = []
    for t in tokens:
        if t.type == "inline" and t.map:
            text, pictures = _inline(t.children)
            block = range(t.map[0] + 1, t.map[1] + 1)
            for markup in [text, *(caption for _, caption, _ in pictures)]:
                out += [(run.text, _line_of(t, f":{run.text}:") or block.start, block)
                        for run in rtext.parse(markup) if run.kind == "icon"]
    if isinstance(tokens, Parsed):
        tokens.icons = tuple(out)
    return out


def terms_drawn(tokens: list[Token]) -> list[tuple[str, int, range]]:
    """(name, rendered line, the lines of its block) of every glossary term the Markdown's text prints, its
    pictures' captions' too, as the book reads them (see icons_drawn: '[[Nope]]' after a ']' and '(' that make no
    link printed in bold, though no glossary defined it, with exit 0)."""
    out: list[tuple[str, int, range]] = []
    for t in tokens:
        if t.type == "inline" and t.map:
            block = range(t.map[0] + 1, t.map[1] + 1)
            out += [(c.content, _line_of(t, f"[[{c.content}]]") or block.start, block)
                    for c in _with_captions(t) if c.type == "term"]
    return out


def _block_end(tokens: list[Token], i: int) -> int:
    """The index after the block that starts at token i (its closing token at the same level)."""
    start = tokens[i]
    if start.nesting != 1:
        return i + 1
    return next((j + 1 for j in range(i + 1, len(tokens))
                 if tokens[j].level == start.level and tokens[j].nesting == -1), len(tokens))


# Markdown's blocks the rulebook has no way to print, and what they are to the writer
_UNPRINTED = {"code_block": "text indented four spaces or more (a code block, to Markdown)",
              "fence": "a fenced code block (```)", "html_block": "a block of HTML",
              "reference": "a line '[name]: text' (the target of a link, to Markdown)"}


def _unprinted(st: "_Story") -> int:
    """The next token after the one at st.i, which no handler prints: a block holding text (a code block, HTML)
    is refused at its line, where it was left out of the rulebook without a word (an indented paragraph in a
    Jinja loop among them)."""
    _refuse_unprinted(st.tokens[st.i])
    return st.i + 1


# A note left for the writers, which Markdown leaves unprinted and pnp refuses as all HTML: said as what it is (it
# was told to write its text as a paragraph, or as text with '&lt;')
_HTML_COMMENT = ("an HTML comment (<!-- -->) is not read in a rulebook, as no HTML is: write a note to yourself as a "
                 "template comment, {# ... #}, which prints nothing")


def _refuse_unprinted(token: Token) -> None:
    """Refuse a token holding text that is not printed (a tip prints only its paragraphs, the story only the
    blocks it has handlers for)."""
    if token.nesting == 0 and token.content.strip() and token.type != "inline":
        if token.type == "html_block" and token.content.lstrip().startswith("<!--"):
            raise DataError(_HTML_COMMENT)
        kind = _UNPRINTED.get(token.type, f"a Markdown block ({token.type})")
        if token.type == "reference" and token.content.startswith("[^"):
            kind = "a footnote's text '[^name]: text' (the rulebook has no footnotes; Markdown reads a link's target)"
        raise DataError(f"{kind} is not printed in a rulebook: its text would be left out; write it as a "
                        "paragraph, a list or a table")


# the blocks that print without a list item's label when they begin the item, and what they are to the writer
_UNLABELLED = {"table_open": "a table", "blockquote_open": "a tip", "heading_open": "a heading", "hr": "a rule (---)",
               "bullet_list_open": "a list", "ordered_list_open": "a numbered list"}

def _refuse_heading_in_item(token: Token) -> None:
    """Refuse a heading inside a list item (after the item's first paragraph; one first is refused as printing
    without the item's label): it printed at the page's margin, apart from its item, and the contents listed
    it as a section of the rules."""
    if token.type == "heading_open":
        raise BookError("a heading inside a list item would print at the page's margin and in the contents, "
                        "apart from the item: end the list before it (a line not indented, after a blank line)",
                        line=_line(token))


# the blocks a tip prints only the text of, each line a paragraph, and what they are to the writer
_UNSTRUCTURED = {"bullet_list_open": "a list", "ordered_list_open": "a numbered list", "table_open": "a table",
                 "heading_open": "a heading", "blockquote_open": "a tip"}


def _refuse_unstructured(token: Token) -> None:
    """Refuse a block inside a tip that the tip would print as plain paragraphs (a table's cells one under
    another, a list without its bullets or numbers, a heading as body text), at its line: printed so, exit 0."""
    kind = _UNSTRUCTURED.get(token.type)
    if kind is not None:
        raise BookError(f"{kind} in a tip would print as plain paragraphs: a tip (`>`) prints only paragraphs; "
                        "put it outside the tip", line=_line(token))


def _blank(markup: str) -> bool:
    """Whether pnp markup prints nothing: no word, no icon (spaces, soft hyphens, emphasis markers and characters
    that print nothing only: a tip, table or heading of '&#xFEFF;' printed as an empty box, exit 0)."""
    return not any(run.kind == "icon" or run.kind == "text" and not blank(run.text) for run in rtext.parse(markup))


def _markdown_text(text: str) -> str:
    """A text token of the Markdown as pnp markup: its stars and backslashes escaped (Markdown has read its
    emphasis; a heading ending in '\\' escaped the star of the contents' '**...**' around it: it printed '*'),
    its :icons: and [[Terms]] kept."""
    return text.replace("\\", "\\\\").replace("*", "\\*")


def literal(text: str) -> str:
    """`text` as pnp markup printing it as it is, icons' and glossary terms' markers too: a game's title
    ':star: Wars' drew an icon on the title page (and an unknown one nothing) beside a footer printing it as
    typed, and `:star:` in a code span an icon."""
    return as_typed(text)


# inline tokens that print as fixed pnp markup (a link prints its words alone: see _refuse_empty_link)
_MARKUP_OF = {"strong_open": "**", "strong_close": "**", "em_open": "*", "em_close": "*", "softbreak": " ",
              "hardbreak": "\n", "link_open": "", "link_close": ""}


# the line breaks an entity may write ('&#10;', '&NewLine;'): in Markdown (as in HTML) a space between words, where
# the book broke the line there (a line break is two spaces or a backslash at the end of a line)
_ENTITY_BREAK = re.compile(r"[\n\r]")


def _entity_text(token: Token) -> str:
    """What an inline token prints: an entity's line break as a space (see _ENTITY_BREAK), any other as it is."""
    return _ENTITY_BREAK.sub(" ", token.content) if token.type == "text_special" else token.content


# the one HTML the book reads: a line break, as `| as_typed` writes one (template.BREAK), or as typed
_BREAK_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)


def _is_break(token: Token) -> bool:
    """Whether an inline token is a line break tag (`<br>`, `<br/>`): see _BREAK_TAG."""
    return token.type == "html_inline" and _BREAK_TAG.fullmatch(token.content) is not None


def _inline(children: list[Token] | None, breaks: str = "\n") -> tuple[str, list[Image]]:
    """markdown-it inline tokens -> pnp markup, plus any images found; a line break tag as `breaks` (a space where the
    book sets one line)."""
    out: list[str] = []
    images: list[Image] = []
    for t in children or []:
        if _is_break(t):
            out.append(breaks)
        elif t.type == "text":
            out.append(_markdown_text(t.content))
        elif t.type in ("code_inline", "text_special"):  # as typed: a star in `code` made the rest italic,
            out.append(literal(_entity_text(t)))  # `:star:` drew an icon, '&colon;zzz&colon;' an unknown one
        elif t.type in _MARKUP_OF:
            marker = _MARKUP_OF[t.type]
            # markers that meet (a picture taken out from between them, '*![a](x)* and more', or a link's words
            # begun in emphasis, '*a*[*b*](x)') read as another one: '**' turned the rest bold. A soft hyphen, which
            # prints nothing, keeps them apart
            if marker[:1] == "*" and next((piece for piece in reversed(out) if piece), "") in ("*", "**"):
                out.append(rtext.SOFT_HYPHEN)
            out.append(marker)
        elif t.type == "term":  # its name as written, read by rich text (see _term)
            out.append(f"[[{t.content}]]")
        elif t.type == "image":  # its caption read as any text is: a code span's ':star:' drew the icon
            images.append((str(t.attrGet("src") or ""), _inline(t.children)[0], str(t.attrGet("title") or "")))
        else:
            out.append(t.content)
    text = re.sub(r"[ ]{2,}", " ", "".join(out)).strip()
    return text, images


_PARAGRAPH_READ, _PARTS_READ = "pnp: paragraph read", "pnp: words and pictures"  # an inline token's meta keys


def _paragraph_read(inline: Token) -> tuple[str, list[Image], bool]:
    """A paragraph's markup, its pictures and whether it prints nothing (see _blank), once none of them is left
    as typed (refused at its line otherwise). Read once per parse, kept in the token's meta: the check sets the
    story on each paper and the build sets it thrice (its headings, a pass finding their pages, the drawing), and
    14,000 short paragraphs read afresh each time spent a third of an 11.5 s build. Only the token's own text
    counts, so any story of these tokens may take it."""
    read = inline.meta.get(_PARAGRAPH_READ)
    if read is None:
        text, images = _inline(inline.children)
        # (its pictures' captions too: a footnote in one printed as typed)
        _refuse_left_as_typed(" ".join([text, *(caption for _, caption, _ in images)]), inline)
        _refuse_picture_in_caption(inline)
        read = inline.meta[_PARAGRAPH_READ] = (text, images, _blank(text))
    return read


def _words_and_pictures(children: list[Token] | None) -> list[str | list[Image]]:
    """A paragraph's runs of words (pnp markup) and its pictures in the order written, the pictures that no words
    part side by side: the words before a picture printed after it ('As shown: ![x](...)' printed the picture,
    then 'As shown:'). Bold or italic open across a picture is closed before it and opened again after."""
    parts: list[str | list[Image]] = []
    words: list[Token] = []
    carried = ""
    for t in children or []:
        if t.type != "image":
            words.append(t)
            continue
        text = _inline(words)[0]
        if not _blank(text):  # (markers alone, '*' before a picture, go on to the words after it)
            markup = carried + text
            carried = rtext.open_at_end(markup)
            parts.append(markup + carried[::-1])
            words = []
        image = _inline([t])[1]
        if parts and isinstance(parts[-1], list):
            parts[-1].extend(image)
        else:
            parts.append(image)
    text = _inline(words)[0]
    if text and (not _blank(text) or not parts):
        parts.append(carried + text)
    return parts


# A picture or a footnote Markdown did not read, left in the text as it was typed: `![x][r]` with no `[r]:`
# line, `![x](` never closed, `[^1]` (commonmark has no footnotes). Printed as typed, exit 0, where refused.
# Found in the runs of text between brackets that close (and line breaks or spaces), each read once: a regular
# expression seeking a ']' from every '![' took minutes for a line of 70,000 '![' (each one scanned the rest).
_PICTURE_RUN, _FOOTNOTE_RUN = re.compile(r"[^\]\n]*(?:\][\[(])?"), re.compile(r"[^\]\s]*\]?")
_NOT_SPACE = re.compile(r"\S*")


def _left_as_typed(text: str) -> str | None:
    """The first picture or footnote left as typed in `text` (see _PICTURE_RUN), to the end of its word."""
    found: list[tuple[int, int]] = []  # (where one starts, where its brackets end)
    pictures, footnotes = "![" in text, "[^" in text  # (most texts hold neither: not walked, run by run)
    for run in _PICTURE_RUN.finditer(text) if pictures else ():  # a run closed by '](' or '][' holding '![' is a picture's
        at = text.find("![", run.start(), run.end())
        if run.group().endswith(("](", "][")) and at >= 0:
            found.append((at, run.end()))
            break
    for run in _FOOTNOTE_RUN.finditer(text) if footnotes else ():  # a run closed by ']' holding '[^' and a character after it
        at = text.find("[^", run.start(), run.end() - 2)
        if run.group().endswith("]") and at >= 0:
            found.append((at, run.end()))
            break
    if not found:
        return None
    start, end = min(found)
    rest = _NOT_SPACE.match(text, end)
    return text[start:end] + (rest.group() if rest else "")


def _with_captions(inline: Token | None) -> list[Token]:
    """The inline token `inline`'s children, and those of its pictures' captions after them: a caption is text
    the book prints as well (HTML or '~~' in one printed as typed, or without its tildes, with exit 0)."""
    children = (inline.children if inline is not None else None) or []
    return children + [c for image in children if image.type == "image" for c in image.children or []]


def _refuse_blank_paragraph(inline: Token, text: str, images: list[Image]) -> None:
    """Refuse a paragraph that prints nothing, `text` its words and `images` its pictures, at its line: one of
    only line break tags (`<br>`, see _BREAK_TAG) or of characters that print nothing ('&nbsp;', a soft hyphen)
    printed no line, not even a blank one, 3,000 of them with exit 0 (a `<br>` before words or between them
    breaks the line, as written)."""
    if images or not _blank(text):
        return
    if any(_is_break(c) for c in inline.children or []):
        raise BookError("a paragraph of only line breaks prints nothing: write its words, or leave out its "
                        "'<br>' (a blank line parts paragraphs)", line=_line(inline))
    raise BookError("a paragraph of only characters that print nothing ('&nbsp;', a soft hyphen) prints nothing, "
                    "not even a blank line: write its words, or leave it out", line=_line(inline))


def _refuse_html(inline: Token | None) -> None:
    """Refuse HTML in the text of the inline token `inline` (`<b>bold</b>`, `<sup>`) at its line: the rulebook
    reads no HTML (a block of it is refused too), and it was printed as typed with exit 0."""
    html = next((c for c in _with_captions(inline) if c.type == "html_inline" and not _is_break(c)), None)
    if html is not None:
        raise BookError(_HTML_COMMENT if html.content.startswith("<!--") else
                        f"'{html.content}' would be printed as typed: the rulebook reads no HTML; write it as "
                        "text ('&lt;' prints '<')",
                        line=_line_of(inline, html.content))


# a table's delimiter row ('|---|:--:|') in text: Markdown read no table there (the row above has another number of
# cells, or none), and its rows were printed as typed, pipes and dashes, exit 0
_DELIMITER_ROW = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?)?[ \t]*$", re.MULTILINE)


def _refuse_picture_in_caption(inline: Token) -> None:
    """Refuse a picture inside another's caption (`![a ![b](src)](src)`), at its line: the caption prints its
    words only, and the inner picture was left out without a word (and its source never checked)."""
    for picture in (c for c in inline.children or [] if c.type == "image"):
        inner = next((c for c in picture.children or [] if c.type == "image"), None)
        if inner is not None:
            raise BookError(f"picture '{inner.attrGet('src')}' in the caption of picture '{picture.attrGet('src')}' "
                            "would be left out: a caption prints only words; put it in a paragraph of its own",
                            line=_line(inline))


def _refuse_left_as_typed(text: str, inline: Token | None = None) -> None:
    """Refuse a picture, footnote, table or HTML left as typed in `text`, the markup of the inline token
    `inline`, at the rendered line where it is typed (in a paragraph of several lines, not the paragraph's
    first)."""
    too_long = inline.meta.get("too_long") if inline is not None and inline.meta else None
    if inline is not None and too_long:
        raise BookError(f"a paragraph (or heading, or table cell) {too_long}", line=_line(inline))
    row = _DELIMITER_ROW.search(inline.content) if inline is not None else None
    if row is not None:
        raise BookError(f"'{shortened(row.group().strip(), 40)}' would be printed as typed, with the lines around "
                        "it: a table's header row and the row of dashes under it need as many cells; Markdown read "
                        "no table here", line=_line_of(inline, row.group()))
    typed = _left_as_typed(text)
    if typed is not None:
        what = "a footnote (the rulebook has none)" if typed.startswith("[^") else \
            "a picture whose reference has no `[name]: src` line, or whose brackets do not close"
        raise BookError(f"'{shortened(typed, 60)}' would be printed as typed: {what}", line=_line_of(inline, typed))
    _refuse_html(inline)
    _refuse_control_entity(inline)
    _refuse_struck(inline)
    _refuse_unclosed_star(inline)
    _refuse_empty_link(inline)


def _refuse_control_entity(inline: Token | None) -> None:
    """Refuse an entity writing a control character ('&#12;', '&#x202E;', '&rlm;') at its line: the rendered
    rulebook's lines are refused one (rulebook.py), but Markdown reads entities after, so it printed nothing
    (or a box) with exit 0."""
    for token in _with_captions(inline):
        if token.type != "text_special":
            continue
        code = entity_number(token.markup)
        # Markdown reads a number that is no character it prints (a control character below U+0020 but
        # three, a surrogate, past U+10FFFF) as U+FFFD, and the message named that, which was never typed
        typed = chr(code) if code is not None and code <= 0x10FFFF else token.content
        if CONTROL_CHARACTER.search(typed):
            raise BookError(str(control_problem(typed, f"'{token.markup}'")), line=_line_of(inline, token.markup))
        if token.content == "\ufffd" and code is not None and code != 0xFFFD:
            raise BookError(f"'{token.markup}' is no character Markdown prints (it would print U+FFFD, the mark "
                            "of a character that could not be read): write the character itself, or leave it out",
                            line=_line_of(inline, token.markup))


def _refuse_struck(inline: Token | None) -> None:
    """Refuse struck text (`~~old rule~~`) at its line: the rulebook prints no strikethrough, and its tildes
    were printed as typed, exit 0."""
    struck = next((c for c in _with_captions(inline) if c.type == "s_open"), None)
    if struck is not None:
        raise BookError("'~~' around text would be printed as typed: the rulebook prints no struck text; leave "
                        "the text out, or write '\\~~' for tildes", line=_line_of(inline, "~~"))


def _refuse_empty_link(inline: Token | None) -> None:
    """Refuse a link with no words (`[](http://x)`, `[ ](x)`) at its line: the rulebook prints a link's words,
    not its target, so it printed nothing, with exit 0."""
    children = (inline.children if inline is not None else None) or []
    for k, opened in enumerate(children):
        if opened.type != "link_open":
            continue
        closed = next((j for j in range(k + 1, len(children)) if children[j].type == "link_close"), len(children))
        if not any(c.type == "image" or not blank(c.content)
                   for c in children[k + 1:closed]):
            href = str(opened.attrGet("href") or "")
            raise BookError(f"a link with no words, to '{shortened(href, 40)}', would print nothing: the rulebook "
                            "prints a link's words, not its target; write its words between the brackets",
                            line=_line_of(inline, href) if href else _line_of(inline, "["))


def _line_of(inline: Token | None, typed: str) -> int | None:
    """The rendered line where `typed` is in the source text of the inline token `inline` (its block's
    first line when it is not found as it is); None when the token has no line."""
    if inline is None or not inline.map:
        return None
    at = inline.content.find(typed)
    return inline.map[0] + 1 + (inline.content.count("\n", 0, at) if at > 0 else 0)


def _text_only(children: list[Token] | None, where: str, inline: Token | None = None, breaks: str = "\n") -> str:
    """The markup of inline tokens where the book draws no picture (a heading, a table's cell, a tip): a
    picture there is refused, where it was left out without a word (and never checked)."""
    text, images = _inline(children, breaks)
    _refuse_left_as_typed(text, inline)
    if images:
        raise BookError(f"picture '{images[0][0]}' in {where}: the rulebook draws pictures only in paragraphs "
                        "and list items; put it in a paragraph of its own", line=_line_of(inline, images[0][0]))
    return text


class _Together(KeepTogether):
    """KeepTogether outside a DocTemplate: ReportLab's split asks the template for the next frame, and there
    is none here; every page's frame is the same, so the next one is this one. What is taller than a page is
    then given up as its parts, the first on a fresh page."""

    def _doctemplateAttr(self, name: str) -> object:
        if name == "_peekNextFrame":
            return lambda: self._frame
        return super()._doctemplateAttr(name)


class _Indented(Flowable):
    """A block set `indent` points in from the frame's left (a table or tip in a list item, in the item's
    column), split as the block splits, each part indented alike."""

    def __init__(self, block: Flowable, indent: float) -> None:
        super().__init__()
        self._block, self._indent = block, indent

    def _inner(self) -> Flowable:
        if hasattr(self, "_frame"):  # (a KeepTogether asks its frame for the next one when it splits)
            self._block._frame = self._frame
        return self._block

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        width, height = self._inner().wrapOn(self.canv, availWidth - self._indent, availHeight)
        self.width, self.height = width + self._indent, height
        return self.width, self.height

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        parts = self._inner().splitOn(self.canv, availWidth - self._indent, availHeight)
        return [p if isinstance(p, ActionFlowable) else _Indented(p, self._indent) for p in parts]

    def draw(self) -> None:
        self._block.drawOn(self.canv, self._indent, 0)

    def getSpaceBefore(self) -> float:
        return float(self._block.getSpaceBefore())

    def getSpaceAfter(self) -> float:
        return float(self._block.getSpaceAfter())


class _WithStartOf(_Together):
    """Headings (or introducing paragraphs) kept with the start of the block that follows them, not all of
    it: when the whole does not fit, the block is split so that its first part (two lines of a paragraph, a
    table's header and two rows) stays with them on this page; only when even that does not fit do they all
    move to the next page."""

    def __init__(self, leading: list[Flowable], block: Flowable) -> None:
        super().__init__(leading + [block])
        self._leading, self._block = leading, block

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        self.wrap(availWidth, availHeight)
        if self._H > availHeight:
            # as the frame adds them: the first one's space before is already out of availHeight
            room = (availHeight + self._leading[0].getSpaceBefore() - self._block.getSpaceBefore() - sum(
                f.wrapOn(self.canv, availWidth, availHeight)[1] + f.getSpaceBefore() + f.getSpaceAfter()
                for f in self._leading))
            parts = self._block.splitOn(self.canv, availWidth, room) if room > 0 else []
            if len(parts) >= 2 and parts[0].wrapOn(self.canv, availWidth, room)[1] <= room:
                return self._leading + parts
        return super().split(availWidth, availHeight)


def _heading_parts(flow: list[Flowable]) -> Iterator["Heading"]:
    """The headings of `flow`, a heading kept with its next block too, in order: what the contents list."""
    return (part for f in flow for part in getattr(f, "_content", [f]) if isinstance(part, Heading))


def _listed_headings(flow: list[Flowable]) -> list[Entry]:
    """(level, text, page 0) of each heading of `flow` (_heading_parts), as the contents are set before pages
    are known."""
    return [(part.level, part.markup, 0) for part in _heading_parts(flow)]


def _line(token: Token) -> int | None:
    """The rendered line where a block token starts, None when markdown-it gives it none."""
    return token.map[0] + 1 if token.map else None


def _set_line(flowable: Flowable, line: int | None) -> None:
    """Note the rendered Markdown line a flowable (and what it keeps together) was made from."""
    flowable.pnp_line = line
    for part in getattr(flowable, "_content", ()):
        _set_line(part, line)


class _Table(Table):
    """A Platypus Table that draws nothing on a layout-only pass: it holds no headings, so such a pass needs
    only its size, and its rules and shading are most of a rulebook's drawing."""

    def draw(self) -> None:
        if not layout_only(self.canv):
            super().draw()

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        parts = super().split(availWidth, availHeight)
        if self._rowSplitRange is not None:  # ReportLab drops the range on the part that runs on: it keeps ours
            for part in parts[1:]:
                if isinstance(part, _Table):
                    part._rowSplitRange = _split_range(len(part._cellvalues), part.repeatRows)
        return parts


def _refuse_blank_table(rows: list[list[RichText]]) -> None:
    """Refuse a table with no words in any cell ('| |' over '|-|'): it printed as empty boxes, exit 0."""
    if all(_blank(cell.markup) for row in rows for cell in row):
        raise BookError("a table with no words in any cell would print as empty boxes: write its words")


# a table cell's alignment as markdown-it writes it from the delimiter row: every cell was set on the left, so a
# column of numbers written '---:' printed ragged
_CELL_ALIGN = {"text-align:right": "right", "text-align:center": "center"}


def _cell_align(opened: Token) -> str:
    """How the cell opened by `opened` (a th_open or td_open, before its text) is aligned: its column's row of
    dashes says it (':-:' centre, '-:' right, else left)."""
    return _CELL_ALIGN.get(str(opened.attrGet("style") or ""), "left")


def _split_range(rows: int, header_rows: int) -> tuple[int, int]:
    """Where a table may split (ReportLab's rowSplitRange): between rows, at least TABLE_SPLIT_ROWS body rows
    on each side of the split besides the repeated header; a table too short for that does not split at all."""
    if rows - header_rows < 2 * TABLE_SPLIT_ROWS:
        return rows, rows
    return header_rows + TABLE_SPLIT_ROWS, rows - TABLE_SPLIT_ROWS


def _table(rows: list[list[Any]], commands: Sequence[tuple[Any, ...]], fonts: FontSet, **kw: Any) -> "_Table":
    """A Platypus Table whose cell font is ours: Table sets its default (Helvetica) even for flowable cells,
    which would put an unembedded base-14 font into the PDF."""
    table = _Table(rows, **kw)
    table.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), fonts.name("Body"), 9)] + list(commands)))
    return table


class Book:
    """Builds the flowables of one rulebook; `draw(canvas)` lays them out page by page.
    `picture(src)` gives (draw(canvas), natural size, is a component) for an image's source, or raises
    DataError; `draw_icon(canvas, name, x, y, w, h, colour)` draws an inline icon."""

    def __init__(self, content: BookContent, fonts: FontSet, paper: tuple[float, float], picture: PictureSource,
                 draw_icon: rtext.DrawIcon, tokens: list[Token] | None = None) -> None:
        """`tokens`: the Markdown already parsed (see parse), when the caller has it."""
        self.content, self.fonts, self.paper = content, fonts, paper
        if tokens is not None:
            self._tokens = tokens
        self.markdown, self._picture, self._draw_icon = content.markdown, picture, draw_icon
        self._fitted: set[tuple[str, str, str, float, float]] = set()  # texts _within_page found to fit
        self._layouts: LaidOut = {}  # text laid out once for every pass (a line break depends only on text and width)
        self.story_pages = 0  # the pages the story takes, once problems() set it (see pages_foreseen)
        self.front_pages = 2  # those the title page, the contents and the credits add to it (see _front_pages)
        self.title_refused: list[BookError] = []  # why the title page cannot be set, once problems() tried it

    # -- text helpers --------------------------------------------------------
    def _icon(self, canvas: Canvas, name: str, x: float, y: float, w: float, h: float, col: Color | None) -> None:
        if not layout_only(canvas):
            self._draw_icon(canvas, name, x, y, w, h, col)

    def para(self, markup: str, column: float | None = None, own: str = "", **kw: Any) -> RichText:
        """A paragraph set in `column` points (the page's text width by default); `own` is words pnp puts in it
        itself (the title page's ' · '), whose characters are checked against the font elsewhere."""
        return RichText(markup, **self._within_page(markup, self._style(kw), column, own))

    def heading(self, markup: str, level: int, registry: list[Entry], **kw: Any) -> Heading:
        if level <= 2:  # as the table of contents lists it, in its column
            listed, style = rtext.throughout(markup, "**") if level == 1 else markup, self._style(dict(size=TOC_SIZES[level], indent=TOC_INDENTS[level]))
            column = self.paper[0] - 2 * MARGIN - TOC_PAGE_COLUMN
            self._unsplit_within_page(listed, self._within_page(listed, style, column), column)
        return Heading(markup, level, registry, **self._within_page(markup, self._style(dict(family="Display",
                                                                                             **kw))))

    def _within_page(self, markup: str, style: dict[str, Any], column: float | None = None,
                     own: str = "") -> dict[str, Any]:
        """A text's style, once no word of it is wider than its column (the page's text, a list item's, a tip's:
        such a word ran past it, off the page, in a rulebook built with exit 0) and its font has every
        character it prints but those of `own`, pnp's own words in it (said at fonts.yaml, with the footers'
        own words: the title page's '·' was said there and again at game.yaml's `players:`, 'leave it out')."""
        family, size = style.get("family", "Body"), style.get("size", 10.0)
        page = self.paper[0] - 2 * MARGIN
        width = (page if column is None else column) - style.get("indent", 0.0)
        fitted = (markup, own, family, size, width)
        if fitted in self._fitted:  # (found so by an earlier story of this book: see _paragraph_read)
            return style
        missing = rtext.unmapped(markup.replace(own, " ") if own else markup, self.fonts, family)
        if missing is not None:
            raise BookError(unmapped_message(missing, family, self.fonts.styles_lacking(missing, family)), printed=missing)
        # a word as rtext breaks lines: between spaces and at line breaks only (str.split() also split at a
        # no-break space, so a paragraph of words joined by them was never measured and ran off the page)
        longest = max(_WORD_BREAK.split(markup), key=len, default="")
        # a word shorter than its characters at the font's widest (or an icon's width) always fits: not measured.
        # (Assumed 2 em, but Source Sans's three-em dash is 2.2: 24 of them ran past the page's text, exit 0)
        widest = max(self.fonts.widest_em(family), ICON_SCALE)
        if len(longest) * size * widest > width:
            _, overflow = rtext.layout(rtext.parse(markup), self.fonts, family, size, width)
            if overflow:  # the word as printed: a heading's, listed in the contents as '**...**', was quoted so;
                # an icon as typed (':name:'): quoted as its bare name, the word was in no line of the Markdown,
                # so a table row's was said at the table's first line
                longest = "".join(f":{run.text}:" if run.kind == "icon" else run.text
                                  for run in rtext.parse(longest))
                where = "the page's text" if column is None else "its column"
                past = "off the page" if column is None else "past it"
                raise BookError(f"a word wider than {where} ({width / MM:.0f} mm) would run {past}: "
                                f"'{longest[:40]}{'…' if len(longest) > 40 else ''}' ({len(longest):,} characters): "
                                "break it with spaces" + (" (a no-break space does not break a line)"
                                                          if any(c.isspace() for c in longest) else "")
                                + (", or put it in a paragraph of its own" if width < page else ""),
                                printed=longest)
        self._fitted.add(fitted)
        return style

    def _unsplit_within_page(self, markup: str, style: dict[str, Any], column: float) -> None:
        """Refuse a text that is never split (a row of the table of contents) taller than a page's text: the
        build stopped at it, after validation had said ok."""
        size = style.get("size", 10.0)
        lines, _ = rtext.layout(rtext.parse(markup), self.fonts, style.get("family", "Body"), size,
                                column - style.get("indent", 0.0))
        height, page = len(lines) * size * style.get("leading", 1.35), self.paper[1] - 2 * MARGIN - 4 * MM
        if height > page:
            raise BookError(f"a heading of {len(lines):,} lines in the table of contents would be taller than a page "
                            f"({height / MM:,.0f} mm; the page's text is {page / MM:.0f} mm): shorten it")

    def _style(self, kw: dict[str, Any]) -> dict[str, Any]:
        style = dict(fonts=self.fonts, draw_icon=self._icon, color=INK, layouts=self._layouts)
        style.update(kw)
        return style

    # -- markdown -> flowables -------------------------------------------------
    def story(self, registry: list[Entry], problems: list[DataError] | None = None) -> list[Flowable]:
        """The Markdown as flowables: each block token handled by the method named after it. The tokens are
        parsed once; each layout pass makes its own flowables from them. A block that cannot be set raises
        BookError with its rendered line, or, when `problems` is a list, is left out and its error added."""
        tokens = self.__dict__.get("_tokens")
        if tokens is None:
            tokens = self._tokens = parse(self.markdown)
        error: DataError | None = _too_many_blocks(tokens) or _too_deep(tokens)
        if error is not None:
            if problems is None:
                raise error
            problems.append(error)
            return []
        state = _Story(tokens, registry)
        while state.i < len(tokens):
            token = tokens[state.i]
            handler = getattr(self, "_md_" + token.type, None) or _unprinted
            placed = len(state.flow)
            try:
                if state.lists:
                    _refuse_heading_in_item(token)
                state.i = handler(state) if handler else state.i + 1
                for flowable in state.flow[placed:]:  # where a block too large for a page is reported
                    _set_line(flowable, _line(token))
            except DataError as e:
                error = e if e.mark or getattr(e, "line", None) else \
                    BookError(e.message, line=self._line_in_block(token, getattr(e, "printed", "")))
                if problems is None:
                    raise error from None
                problems.append(error)
                state.i = _block_end(tokens, state.i)
        return _keep_headings_with_next(state.flow)

    @functools.cached_property
    def _markdown_lines(self) -> list[str]:
        """The rendered Markdown's lines, split once (a table's every row looks its line up)."""
        return self.markdown.split("\n")

    def _line_in_block(self, block: Token, printed: str) -> int | None:
        """The rendered line of the block opened by `block` that holds `printed` (a word too wide, a character
        no font has), its first when none does: a word on a paragraph's fifth line was said at its first."""
        if not block.map:
            return None
        lines = self._markdown_lines
        first, end = block.map
        return next((n + 1 for n in range(first, min(end, len(lines))) if printed and printed in lines[n]),
                    first + 1)

    def problems(self) -> list[DataError]:
        """Every block of the Markdown that cannot be set (a picture that cannot be drawn, a table wider
        than the page), as BookErrors: what the build would stop at, found without drawing."""
        problems: list[DataError] = []
        flow = self.story([], problems)
        if not flow and not problems:  # (a template writing nothing, or blank lines alone, printed a book of its
            # title page, contents and credits, with exit 0)
            problems.append(BookError("the rulebook prints no rules: its rendered Markdown is blank (a template "
                                      "writing nothing?); write its rules"))
        elif not problems and all(isinstance(block, Rule) for block in flow):  # (`---` alone printed that book with
            # a line across its page, exit 0)
            problems.append(BookError("the rulebook prints no rules: its rendered Markdown holds nothing but lines "
                                      "across the page (---, ***, ___); write its rules"))
        try:  # the credits go on from the story's last page (what they cannot set is said by credit_problems)
            credits = self.credits([])
        except DataError:
            credits = [self.heading("Credits", 1, [])]
        found = problems + self._unplaced(flow, credits)
        self.title_refused = []  # (said at game.yaml's lines, not the Markdown's)
        self.front_pages = self._front_pages(flow + credits, self.title_refused)
        return found

    def _front_pages(self, flow: list[Flowable], title_refused: list[BookError]) -> int:
        """The pages of the title page and of the contents listing the headings of `flow` (see pages_foreseen),
        set as the build sets them; one for a title page that cannot be set, why kept in `title_refused` (said
        at game.yaml's line)."""
        try:
            title = self._pages_of(self.title_page())
        except BookError as refused:
            title_refused.append(refused)
            title = 1
        return title + self._pages_of(self.toc(_listed_headings(flow)))

    def _pages_of(self, flow: list[Flowable], refused: Callable[[BookError, Flowable], None] | None = None) -> int:
        """The pages `flow` takes, set as the build sets them on pages of a canvas that draws nothing costly. A
        block no page can hold raises its BookError, or, given `refused`, is handed to it with its error and
        left out, the others still set (the page it was tried on counted, as the build counts it)."""
        canvas = self._layout_canvas()
        flow, pages = list(flow), 0
        while flow:
            pages += 1
            try:
                _fill(self._frame(), flow, canvas)
            except BookError as e:
                if refused is None:
                    raise
                refused(e, flow.pop(0))
        return pages

    def _layout_canvas(self) -> Canvas:
        """A canvas of the book's paper that sizes everything and draws nothing costly (see layout_only)."""
        canvas = new_canvas(io.BytesIO(), self.fonts.name("Body"), self.paper)
        canvas.pnp_layout_only = True
        return canvas

    def _unplaced(self, flow: list[Flowable], tail: list[Flowable]) -> list[DataError]:
        """The blocks of `flow` no page can hold (a table row, a tip or a picture taller than a page's text),
        found as the build finds them, by setting them (see _pages_of): validate said ok of a table row the build
        then refused. Each is left out once said, the others still set. The pages counted (story_pages) are
        those of `flow` and of `tail` (the credits) set after it, as the build sets them."""
        found: list[DataError] = []
        credited = {id(part) for f in tail for part in [f, *getattr(f, "_content", ())]}

        def refused(error: BookError, block: Flowable) -> None:
            if id(block) not in credited:  # (what the credits cannot set is said by credit_problems)
                found.append(error)

        self.story_pages = self._pages_of([*flow, *tail], refused)
        return found

    def pages_foreseen(self) -> int:
        """The pages the book prints, as problems() set its story, its title page, contents and credits (a
        3,000-picture book passed validation and the build refused it for printing too many pages; a book of 300
        headings and 300 credited roles was foreseen at 26 pages and printed 45)."""
        return self.front_pages + self.story_pages

    def _frame(self) -> Frame:
        """A page's frame for the text."""
        pw, ph = self.paper
        return Frame(MARGIN, MARGIN, pw - 2 * MARGIN, ph - 2 * MARGIN - 4 * MM, leftPadding=0, rightPadding=0,
                     topPadding=0, bottomPadding=0, showBoundary=0)

    def _md_heading_open(self, st: _Story) -> int:
        level = min(int(st.tokens[st.i].tag[1]), 3)
        text = _text_only(st.tokens[st.i + 1].children, "a heading", st.tokens[st.i + 1], breaks=" ")
        if _blank(text):  # a '#' alone, or a '---' under nothing but spaces
            raise BookError("a heading with no text would print as a blank line (in the contents too, with a page "
                            "number): write its text, or leave out the '#'")
        st.flow.append(self.heading(text, level, st.registry, size={1: 20, 2: 14, 3: 11.5}[level], leading=1.2,
                                    color=ACCENT if level < 3 else INK, space_before={1: 14, 2: 10, 3: 6}[level],
                                    space_after=4))
        return st.i + 3

    def _md_paragraph_open(self, st: _Story) -> int:
        text, images, blank = _paragraph_read(st.tokens[st.i + 1])
        first_in_item = bool(st.lists) and st.tokens[st.i - 1].type == "list_item_open"
        if first_in_item and not images and blank:  # (pictures too beside the item's label: an item
            label = "number" if st.lists[-1][0] else "bullet"  # that began with one printed no number)
            raise BookError(f"a list item whose first line has no words would print its {label} beside nothing: "
                            "write its words, or leave out its line", line=_line(st.tokens[st.i]))
        if blank and not images:
            _refuse_blank_paragraph(st.tokens[st.i + 1], text, images)
        if st.lists:
            column = self.paper[0] - 2 * MARGIN - st.lists[-1][2]
            st.flow.append(self._list_item(self._in_order(st.tokens[st.i + 1], column, 2.5), st.lists, st.tokens,
                                           st.i))
            return st.i + 3
        st.flow.extend(self._in_order(st.tokens[st.i + 1], None, 5))
        return st.i + 3

    def _in_order(self, inline: Token, column: float | None, space_after: float) -> list[Flowable]:
        """A paragraph's words and pictures in the order written (see _words_and_pictures), in `column` points."""
        blocks: list[Flowable] = []
        seen = 0  # the pictures before, counted to find each one's line
        parts = inline.meta.get(_PARTS_READ)
        if parts is None:  # (read once for every story: see _paragraph_read)
            parts = inline.meta[_PARTS_READ] = _words_and_pictures(inline.children)
        for part in parts:
            if isinstance(part, str):
                blocks.append(self.para(part, column, indent=0, space_after=space_after))
            else:
                blocks.append(self.pictures(part, inline, column, first=seen))
                seen += len(part)
        return blocks

    def _md_list_item_open(self, st: _Story) -> int:
        """Refuse an item that begins with a block printed without its label (a table, a tip, a heading): the
        numbered steps '1. > tip' and '2. text' printed as a tip and '2. text'."""
        first = st.tokens[st.i + 1] if st.i + 1 < len(st.tokens) else None
        if first is not None and first.type == "list_item_close":  # '- ' or '1.' alone on its line
            number = st.lists and st.lists[-1][0]
            raise BookError(f"an empty list item would be left out{', and the list numbered past it' if number else ''}"
                            ": write its words, or leave out its line", line=_line(st.tokens[st.i]))
        kind = _UNLABELLED.get(first.type) if first is not None else None
        if first is not None and kind is not None:
            label = "number" if st.lists and st.lists[-1][0] else "bullet"
            raise BookError(f"{kind} first in a list item would print without the item's {label}: begin the item "
                            "with a line of text", line=_line(first))
        return st.i + 1

    def _md_bullet_list_open(self, st: _Story) -> int:
        t = st.tokens[st.i]
        # markdown-it writes `start` only when it is not 1: a list from 0 was numbered from 1 (`or 1`)
        given = t.attrGet("start")
        ordered, start = t.type.startswith("ordered"), 1 if given is None else int(given)
        if not ordered and rtext.unmapped(BULLET, self.fonts, "Body") is not None:  # (pnp's character, not the writer's:
            # it was refused as a character to 'leave out', at a list line that holds none)
            raise BookError(f"the font of family 'Body' has no '{BULLET}' (U+{ord(BULLET):04X}), which pnp prints as "
                            "each item's bullet: it would print as a blank box; number the list ('1.'), or use a font "
                            "file that has it in fonts.yaml")
        # numbered as written: '1)' printed '1.'
        delimiter = (t.markup or ".") if ordered else ""
        labels = [f"{n}{delimiter}" for n in range(start, start + _items(st.tokens, st.i))] if ordered else [BULLET]
        widths = {label: stringWidth(label, self.fonts.name("Body"), LIST_LABEL_SIZE) for label in labels}
        widest = max(widths, key=widths.__getitem__)
        indent = st.lists[-1][2] if st.lists else 0.0  # a list inside another starts past its label column
        column = indent + max(LIST_INDENT, widths[widest] + LIST_GAP)
        page = self.paper[0] - 2 * MARGIN
        if page - column < LIST_TEXT_LEAST:
            raise BookError(f"this list's items would begin {column / MM:.0f} mm into the page's text, which is "
                            f"{page / MM:.0f} mm wide (past the labels of the {len(st.lists)} lists it is in and its "
                            f"own widest, '{widest}'), leaving them less than {LIST_TEXT_LEAST / MM:g} mm: nest it "
                            "less" + (", or number it from a smaller number" if ordered else ""))
        st.lists.append([delimiter, start, column])
        return st.i + 1

    _md_ordered_list_open = _md_bullet_list_open

    def _md_bullet_list_close(self, st: _Story) -> int:
        st.lists.pop()
        if not st.lists:
            st.flow.append(Spacer(1, 3))
        return st.i + 1

    _md_ordered_list_close = _md_bullet_list_close

    def _md_list_item_close(self, st: _Story) -> int:
        if st.lists:
            st.lists[-1][1] += 1
        return st.i + 1

    def _md_table_open(self, st: _Story) -> int:
        end = next(j for j in range(st.i, len(st.tokens)) if st.tokens[j].type == "table_close")
        st.flow.append(self._in_item(st, self.table(st.tokens[st.i:end], self._item_indent(st))))
        return end + 1

    def _item_indent(self, st: _Story) -> float:
        """How far from the page's margin the blocks of the list item being read are set (0 outside lists)."""
        return float(st.lists[-1][2]) if st.lists else 0.0

    def _in_item(self, st: _Story, block: Flowable) -> Flowable:
        """A table or tip as the list item holding it sets it, in the item's column: it printed at the page's
        margin, apart from the step it belongs to."""
        indent = self._item_indent(st)
        return _Indented(block, indent) if indent else block

    def _md_blockquote_open(self, st: _Story) -> int:
        end, depth = st.i, 0
        for j in range(st.i, len(st.tokens)):
            depth += {"blockquote_open": 1, "blockquote_close": -1}.get(st.tokens[j].type, 0)
            if depth == 0:
                end = j
                break
        st.flow.append(self._in_item(st, self.tip(st.tokens[st.i + 1:end], self._item_indent(st))))
        return end + 1

    def _md_hr(self, st: _Story) -> int:
        """Markdown's thematic break as a thin rule across the text's column (a list item's, in one): it printed
        only a gap."""
        st.flow.append(self._in_item(st, Rule(RULE_COLOUR)))
        return st.i + 1

    def _list_item(self, item: list[Flowable], stack: list[list[Any]], tokens: list[Token], i: int) -> "_Table":
        """The blocks of a list item's paragraph beside its label (its number or bullet, on its first)."""
        delimiter, number, column = stack[-1]
        first = tokens[i - 1].type == "list_item_open"
        bullet = (f"{number}{delimiter}" if delimiter else BULLET) if first else ""
        label = self.para(bullet, space_after=0, align="right", color=ACCENT, size=LIST_LABEL_SIZE)
        table = _table([[label, item]], colWidths=[column, None], fonts=self.fonts, commands=[("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                   ("RIGHTPADDING", (0, 0), (0, 0), LIST_GAP), ("RIGHTPADDING", (1, 0), (1, 0), 0),
                                   ("TOPPADDING", (0, 0), (-1, -1), 0), ("BOTTOMPADDING", (0, 0), (-1, -1), 1)])
        return table

    def table(self, tokens: list[Token], indent: float = 0.0) -> Flowable:
        """A Markdown table, its columns fitted to the page's text less `indent` (a list item's)."""
        rows: list[list[RichText]] = []
        row: list[RichText] | None = None
        header_rows = header_cells = 0
        in_head = False
        for k, t in enumerate(tokens):
            if t.type == "thead_open":
                in_head = True
            elif t.type == "thead_close":
                in_head = False
                header_cells = len(rows[0]) if rows else 0
            elif t.type == "tr_open":
                row = []
                self._refuse_cells_left_out(t, header_cells)
            elif t.type == "tr_close":
                assert row is not None  # a row closes after it opens
                rows.append(row)
                header_rows += in_head
            elif t.type == "inline" and row is not None:
                text = _text_only(t.children, "a table", t)
                row.append(self.para(rtext.throughout(text, "**") if in_head else text, size=9, space_after=0,
                                     leading=1.25, align=_cell_align(tokens[k - 1])))
        _refuse_blank_table(rows)
        if len(rows) > MAX_TABLE_ROWS:  # 20,000 rows took minutes; 1,000 are about a second, 30 pages
            raise BookError(f"a table of {len(rows):,} rows is longer than a rulebook prints (at most "
                            f"{MAX_TABLE_ROWS:,}): split it, or print it as cards or an aid")
        table = _table(rows, repeatRows=header_rows, rowSplitRange=_split_range(len(rows), header_rows), hAlign="LEFT",
                       colWidths=self._column_widths(rows, indent), fonts=self.fonts, spaceBefore=3, spaceAfter=6, commands=[
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.Color(0.7, 0.7, 0.7)),
            ("BACKGROUND", (0, 0), (-1, header_rows - 1), colors.HexColor("#dfe8e2")) if header_rows else
            ("BACKGROUND", (0, 0), (0, 0), colors.white),
            ("TOPPADDING", (0, 0), (-1, -1), 3), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ])
        return _Together([table]) if len(rows) - header_rows < TABLE_WHOLE_ROWS else table

    def _refuse_cells_left_out(self, row: Token, header_cells: int) -> None:
        """Refuse a table's body row of more cells than its header's, at its line: Markdown leaves out the
        cells past the header's, and they were missing from the rulebook without a word. Its cells are counted
        as markdown-it splits them."""
        if not header_cells or not row.map:
            return
        lines = self._markdown_lines
        cells = escapedSplit(lines[row.map[0]].strip()) if row.map[0] < len(lines) else []
        if cells and cells[0] == "":  # (the pipes at its ends are no cells)
            cells.pop(0)
        if cells and cells[-1] == "":
            cells.pop()
        if len(cells) > header_cells:
            raise BookError(f"a table row of {len(cells)} cells under a header of {header_cells}: Markdown leaves "
                            f"out the cells past the header's ('{shortened(cells[header_cells].strip(), 40)}'); "
                            "add their columns to the header, or join the cells", line=row.map[0] + 1)

    def _column_widths(self, rows: list[list[RichText]], indent: float = 0.0, padding: float = 12) -> list[float]:
        """Narrow columns keep their natural width; the rest of the text width goes to the wide ones, in
        proportion to their natural widths. A column left narrower than its longest word is then widened to
        it, taking the room from the columns that have some to spare. A table whose longest words cannot sit
        side by side on the page is refused (BookError)."""
        avail = self.paper[0] - 2 * MARGIN - indent
        ncols = max(len(r) for r in rows)
        natural, least = self._column_needs(rows, ncols, padding)
        if sum(least) > avail:
            raise BookError(f"a table of {ncols} columns needs at least {sum(least) / MM:.0f} mm (its longest "
                            f"words side by side); {'the list item' if indent else 'the page'}'s text is {avail / MM:.0f} mm wide: split the "
                            f"table or shorten its words")
        if sum(natural) <= avail:
            return natural
        fair = avail / ncols
        spare = avail - sum(w for w in natural if w <= fair)
        total_wide = sum(w for w in natural if w > fair)
        widths = [w if w <= fair else spare * w / total_wide for w in natural]
        short = sum(max(lo - w, 0.0) for w, lo in zip(widths, least))
        slack = sum(max(w - lo, 0.0) for w, lo in zip(widths, least))  # at least `short`: the words fit
        return [lo if w <= lo else w - short * (w - lo) / slack for w, lo in zip(widths, least)]

    def _column_needs(self, rows: list[list[RichText]], ncols: int, padding: float) -> tuple[list[float], list[float]]:
        """Each column's width with its text unwrapped, and with one word a line (its longest word)."""
        natural, least = [padding] * ncols, [padding] * ncols
        for r in rows:
            for k, cell in enumerate(r):
                runs = rtext.parse(cell.markup)
                for width, widths in ((1e6, natural), (0, least)):
                    lines, _ = rtext.layout(runs, self.fonts, cell.family, cell.size, width)
                    widths[k] = max(widths[k], max(line.width for line in lines) + padding)
        return natural, least

    def tip(self, tokens: list[Token], indent: float = 0.0) -> "_Together":
        """A tip's box of its paragraphs, as wide as the page's text less `indent` (a list item's)."""
        inner: list[Flowable] = []
        paragraphs: list[tuple[Token, str]] = []
        for t in tokens:
            _refuse_unprinted(t)  # a tip prints its paragraphs, and its rules (---)
            _refuse_unstructured(t)
            if t.type == "inline":
                text = _text_only(t.children, "a tip", t)
                paragraphs.append((t, text))
                inner.append(self.para(text, self.paper[0] - 2 * MARGIN - indent - 8 * MM, size=9.5, space_after=3))
            elif t.type == "hr":
                inner.append(Rule(RULE_COLOUR, space=3.0))
        if all(not isinstance(para, RichText) or _blank(para.markup) for para in inner):  # a '>' alone
            raise BookError("a tip (`>`) with no words would print as an empty box: write its words, or leave out "
                            "its '>'")
        for paragraph, text in paragraphs:  # (a tip of words, and a paragraph of it that prints nothing)
            _refuse_blank_paragraph(paragraph, text, [])
        box = _table([[inner]], hAlign="LEFT", fonts=self.fonts, commands=[("BACKGROUND", (0, 0), (-1, -1), TIP),
                                 ("LINEBEFORE", (0, 0), (0, -1), 2, colors.HexColor(ACCENT)),
                                 ("LEFTPADDING", (0, 0), (-1, -1), 4 * MM), ("RIGHTPADDING", (0, 0), (-1, -1), 4 * MM),
                                 ("TOPPADDING", (0, 0), (-1, -1), 3 * MM), ("BOTTOMPADDING", (0, 0), (-1, -1), 2 * MM)])
        return _Together([Spacer(1, 2), box, Spacer(1, 6)])

    def pictures(self, images: list[Image], inline: Token | None = None, column: float | None = None,
                 first: int = 0) -> Flowable:
        """The pictures of a paragraph side by side, in `column` points (a list item's; the page's text by
        default), each in an equal share of it; one that cannot be drawn is refused at the line of its source in
        the paragraph `inline` (a picture on a paragraph's third line was said at its first)."""
        avail = self.paper[0] - 2 * MARGIN if column is None else column
        least = len(images) * (MIN_PICTURE_WIDTH + _CELL_PADDING)
        if len(images) > 1 and least > avail:  # each cell would be given less than nothing: ReportLab fails
            # with a traceback (in a list item too, whose text is narrower than the page's)
            where = "the page's text" if column is None else "the list item's text"
            raise BookError(f"{len(images):,} pictures side by side need at least {least / MM:.0f} mm; {where} "
                            f"is {avail / MM:.0f} mm wide: put them in paragraphs of their own")
        # the width each caption is set in, as the row of cells shares it out (equally, less their padding)
        share = avail if len(images) == 1 else avail / len(images) - _CELL_PADDING
        cells = [self._picture_at(inline, src, caption, title, share, first + k)
                 for k, (src, caption, title) in enumerate(images)]
        if len(cells) == 1:
            return cells[0]
        table = _table([cells], fonts=self.fonts, commands=[("VALIGN", (0, 0), (-1, -1), "BOTTOM")])
        return table

    def _picture_at(self, inline: Token | None, src: str, caption: str, title: str, column: float,
                    k: int = 0) -> Picture:
        try:
            return self.picture(src, caption, title, column)
        except DataError as e:
            if e.mark or getattr(e, "line", None):  # said at its own place (a pictured component's layout)
                raise
            raise BookError(e.message, line=_picture_line(inline, src, k)) from None

    def picture(self, src: str, caption: str, title: str, column: float | None = None) -> Picture:
        """A picture and its caption, set in `column` points (the page's text by default): a caption's word wider
        than the cell of pictures side by side ran over its neighbours, and off the page, with exit 0."""
        draw, size, is_component = self._picture(src, title.strip())
        # a component is shown at card size; a diagram (layout:) at its own size, up to the text width
        width = COMPONENT_PICTURE_WIDTH if is_component else min(size[0], self.paper[0] - 2 * MARGIN)
        if title.strip():
            width = _length(title.strip(), src)
        tallest = self.paper[1] - 2 * MARGIN - 4 * MM - CAPTION_ROOM  # (the pages' frame: see pdf)
        width = min(width, tallest * size[0] / size[1])
        cap = self.para(rtext.throughout(caption, "*"), column, size=8.5, align="center",
                        space_after=0) if caption else None
        return Picture(draw, size, width, caption, cap, enlarged=bool(title.strip()))

    # -- pages ------------------------------------------------------------------
    def title_page(self) -> list[Flowable]:
        """The title, subtitle, facts and credits as game.yaml writes them (the footer prints the title so: a
        star in it made the title page's rest italic), then the edition's note."""
        c = self.content
        self._footer_fits()
        flow = [Spacer(1, 40 * MM),
                self._written("title", literal(c.title), family="Display", size=34, leading=1.1, align="center",
                              color=ACCENT, space_after=6)]
        if c.subtitle:
            flow.append(self._written("subtitle", f"*{literal(c.subtitle)}*", size=14, align="center", space_after=10))
        flow.append(self._written("facts", literal(c.facts), size=12, align="center", space_after=18,
                                  own=FACTS_SEPARATOR))
        for role, who in c.credits:
            flow.append(self._written("credits", f"**{literal(role)}:** {literal(str(who))}", size=10, align="center", space_after=3))
        flow.append(Spacer(1, 12 * MM))
        flow.append(self.para(c.note, size=8.5, align="center", color="#666666"))
        return flow

    def _written(self, what: str, markup: str, **kw: Any) -> RichText:
        """A paragraph of the title page, refused (a word wider than the page) where game.yaml writes it."""
        try:
            return self.para(markup, **kw)
        except BookError as e:
            raise BookError(e.message, e.mark or self.content.mark_of(what, e.printed)) from None

    def toc(self, entries: list[Entry]) -> list[Flowable]:
        flow = [self.para("Contents", family="Display", size=20, color=ACCENT, space_after=8)]
        lines = self.__dict__.get("_heading_lines", {})  # a row too tall for a page is told at its heading
        for level, text, page in entries:
            if level > 2:
                continue
            row = _table([[self.para(rtext.throughout(text, "**") if level == 1 else text, size=TOC_SIZES[level],
                                    space_after=0, indent=TOC_INDENTS[level]),
                          self.para(str(page), size=10, align="right", space_after=0)]],
                        colWidths=[None, TOC_PAGE_COLUMN], fonts=self.fonts, commands=[("LEFTPADDING", (0, 0), (-1, -1), 0), ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                                     ("TOPPADDING", (0, 0), (-1, -1), 1.5 if level == 1 else 0.5),
                                     ("BOTTOMPADDING", (0, 0), (-1, -1), 0.5)])
            row.pnp_line = lines.get((level, text))
            flow.append(row)
        return flow

    def credits(self, registry: list[Entry]) -> list[Flowable]:
        c = self.content
        flow = [self.heading("Credits", 1, registry, size=20, color=ACCENT, space_before=14, space_after=4)]
        for role, who in c.credits:
            flow.append(self.para(f"**{literal(role)}:** {literal(str(who))}", space_after=3))
        flow.append(self.para(c.fonts_line, space_after=3))
        if c.icons_line:
            flow.append(self.para(c.icons_line, space_after=3))
        return _keep_headings_with_next(flow)

    def draw(self, canvas: Canvas) -> int:
        """Lay the rulebook out until the table of contents' page numbers settle; returns the page count.
        The contents' own layout depends only on which headings it lists (a page number always fits its
        column), so one layout-only pass that lists the book's headings finds their pages, unless a heading
        is made or dropped by the pass itself; the loop covers that."""
        registry: list[Entry] = []  # (what the first pass's headings are set in: that pass sets the story read here)
        body: list[Flowable] | None = self.story(registry) + self.credits(registry)
        entries = self._headings(body or [])
        for _ in range(4):
            self._layout_pass(canvas, entries, registry, dry=True, body=body)
            body = None
            settled = [e[:2] for e in registry] == [e[:2] for e in entries]
            entries = registry
            if settled:
                break
            registry = []
        registry = []
        pages = self._layout_pass(canvas, entries, registry, dry=False)
        return pages

    def _headings(self, body: list[Flowable]) -> list[Entry]:
        """(level, text, page) of every heading the book will list, the story and credits `body` as set before any
        layout (pages unknown). (That body is then the first pass's: 14,000 paragraphs set once more for their
        headings alone took a seventh of the build.)"""
        entries: list[Entry] = []
        self._heading_lines: dict[tuple[int, str], int | None] = {}
        for part in _heading_parts(body):
            entries.append((part.level, part.markup, 0))
            self._heading_lines.setdefault((part.level, part.markup), getattr(part, "pnp_line", None))
        return entries

    def _layout_pass(self, canvas: Canvas, entries: list[Entry], registry: list[Entry], dry: bool,
                     body: list[Flowable] | None = None) -> int:
        """Set the book on pages of `canvas` (of a canvas drawing nothing costly when `dry`), its contents listing
        `entries`; its headings are noted in `registry` with their pages. `body`: the story and credits, set anew
        when None (a pass consumes them), their headings noting in `registry`."""
        target = canvas
        if dry:  # a pass that finds the headings' pages: everything is sized, nothing costly is drawn
            target = self._layout_canvas()
        first_page = target.getPageNumber()
        if body is None:
            body = self.story(registry) + self.credits(registry)
        parts = [self.title_page(), self.toc(entries or [(1, "…", 0)]), body]
        page = 0
        for part in parts:
            flow = list(part)
            while flow:
                page += 1
                _fill(self._frame(), flow, target)
                if page > 1:
                    self._furniture(target, page)
                target.showPage()
        if first_page != 1:
            registry[:] = [(lv, tx, pg - first_page + 1) for lv, tx, pg in registry]
        return page

    def _footer_fits(self) -> None:
        """Refuse, at game.yaml's title, a title whose page footer (`title · page`) is wider than the page's
        text: it ran off both sides of every page. (Its characters are checked as every sheet's footer's.)"""
        widest = stringWidth(f"{self._footer_title} · {WIDEST_PAGE_NUMBER}", self.fonts.name("Body"), FOOTER_SIZE)
        avail = self.paper[0] - 2 * MARGIN
        if widest > avail:
            raise BookError(f"the game's title is too long for the rulebook's page footer: "
                            f"{widest / MM:.0f} mm at {FOOTER_SIZE:g} pt with its page number, and the page's text "
                            f"is {avail / MM:.0f} mm wide; shorten it", self.content.marks.get("title"))

    @property
    def _footer_title(self) -> str:
        """The title as the page footer prints it: without soft hyphens, which rich text never prints either."""
        return self.content.title.replace(rtext.SOFT_HYPHEN, "")

    def _furniture(self, canvas: Canvas, page: int) -> None:
        pw, _ = self.paper
        canvas.saveState()
        canvas.setFont(self.fonts.name("Body"), FOOTER_SIZE)
        canvas.setFillColor(colors.Color(0.4, 0.4, 0.4))
        canvas.drawCentredString(pw / 2, 10 * MM, f"{self._footer_title} · {page}")
        canvas.restoreState()


def _introduces(flowable: Flowable) -> bool:
    """A heading, a paragraph that introduces what follows (it ends with ':'), or a run-in heading (a
    paragraph all in bold, such as '**The Rival's turn.**'): none of them may end a page."""
    if isinstance(flowable, Heading):
        return True
    if type(flowable) is not RichText:
        return False
    markup = flowable.markup.strip()
    return markup.endswith(":") or (markup.startswith("**") and markup.endswith("**") and
                                    markup.count("**") == 2)


def _keep_headings_with_next(flow: list[Flowable]) -> list[Flowable]:
    """A heading or an introducing paragraph never ends a page: it travels with the block that follows it
    (and a run of them with the first block after them)."""
    out: list[Flowable] = []
    pending: list[Flowable] = []
    for f in flow:
        if _introduces(f):
            pending.append(f)
            continue
        if pending:
            # one level of keeping together: nested ones misjudge the space left on the page
            out.append(_Together(pending + f._content) if isinstance(f, KeepTogether) else _WithStartOf(pending, f))
            out[-1].pnp_line = getattr(f, "pnp_line", None)
            pending = []
        else:
            out.append(f)
    return out + pending


def _fill(frame: Frame, flow: list[Flowable], canvas: Canvas) -> None:
    """Add flowables to the frame, splitting the one that does not fit; stops when the frame is full."""
    placed = 0
    while flow:
        head = flow[0]
        if isinstance(head, ActionFlowable):  # a frame or page break from KeepTogether: start a new page
            del flow[0]
            if placed:
                return
            continue
        try:
            if frame.add(head, canvas, trySplit=0):
                del flow[0]
                placed += 1
                continue
        except DataError as e:  # a block that cannot be set (a word wider than the page), said at its line
            raise BookError(e.message, e.mark, line=getattr(head, "pnp_line", None)) from None
        parts = frame.split(head, canvas)
        if parts and not (len(parts) == 1 and parts[0] is head):
            flow[0:1] = parts
            if isinstance(parts[0], ActionFlowable):
                continue
            if frame.add(flow[0], canvas, trySplit=0):
                del flow[0]
                placed += 1
                continue
        if placed == 0:  # nothing fits on an empty page: never loop forever
            raise BookError("a block of the rulebook (a table row, tip, picture or list item) is too large for a page",
                            line=getattr(head, "pnp_line", None))
        return


def _length(text: str, src: str) -> float:
    """A picture's width, from its title: a length of at least MIN_PICTURE_WIDTH (wider is drawn at most at
    its column's width: see Picture)."""
    from ..units import length

    try:
        width = length(text)
    except ValueError as e:
        raise BookError(f"picture {named(src)}: its width {e}") from None
    if not width >= MIN_PICTURE_WIDTH:  # also nan
        raise BookError(f"picture {named(src)}: a width of {shown_number(width / MM)} mm; at least "
                        f"{MIN_PICTURE_WIDTH / MM:g} mm")  # (not to_mm's 2 decimals: '0.999mm' read 'of 1 mm')
    return width
