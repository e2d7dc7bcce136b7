"""Rulebooks: layouts/<game>/rulebook.md.j2 (Jinja, then Markdown), with pictures of real components and
diagrams drawn by the same renderer, a title page and credits naming every font and icon used."""

import hashlib
import json
import math
import re
from bisect import bisect_right
import os
import weakref
from dataclasses import dataclass, replace
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any, NoReturn

from ..draw.book import FACTS_SEPARATOR, Book, BookContent, BookError, Parsed, icons_drawn, images, literal, parse, terms_drawn
from ..errors import DataError, ExprError, LimitError, blame
from ..model.load import MAX_FILE_BYTES, Record
from ..model.reads import MEMBERS, Read, note_all, recording
from ..model import simulated
from ..model.icons import icon_name
from ..model.schema import colon_hint, icon_markers_unread, icons_in
from ..options import CONTROL_CHARACTER, PRINTS_NOTHING, control_problem
from ..project import Project, read_project_file, utf8_text
from ..report import MAX_ALIKE, Mark, Suggestions, bounded_suggestions, named, pasted, shell_word, shortened
from ..template import render
from ..units import every_paper, on_other_paper, paper_points
from .base import Kind, Printable
from ..model.components import Component
from ..model.glossary import TERM_IN_TEXT
from .base import Reporter, Studio
from reportlab.pdfgen.canvas import Canvas

MAX_SIMULATION_BYTES = 8 * 1024 * 1024
# The rulebook's Markdown, after Jinja: the shipped books are 15,000-38,000 characters (17-20 pages), about 3,500 a
# page; a campaign book of real text (headings, tables, lists, terms, pictures) of 900,000 characters set in 239 pages
# and took 3 s of CPU more than its game's own to validate, 5 s more to build, 175 MB at the most: linear, about 1.3 s
# and 2 s a 100 pages. Hostile text is held by the book's own caps (MAX_BLOCKS, MAX_INLINE_CHARS, the brackets read)
MAX_RULEBOOK_CHARS = 1_000_000
# roles the credits name (a game names a few: the title page and the last pages print each): 3,000 took 12 s to
# validate and 14 s to build
MAX_CREDITS = 100
# characters of each of game.yaml's words the title page and the credits print (a subtitle, the players, ages and
# time, a credit's role and name), as a font's name there is held to fontsloader's MAX_CREDIT: they are set on
# both papers, twice, and a credit of 1.6 MB took 9 s to validate, refused as 'the kit prints too many pages'
MAX_TITLE_PAGE_CHARS = 1000
NOTE = ("A print-and-play edition made with pnp. Rules and card text written for this edition; see Credits "
        "at the end.")


class Rulebook(Kind):
    """The rules: layouts/<game>/rulebook.md.j2, a Jinja template of Markdown that sees the whole game, so
    every number it prints comes from the data. Pictures: `![caption](component:ID[/ITEM])` shows a real
    component (`component:ID/ITEM:back` its back), `![caption](layout:NAME[/TABLE/ITEM])` a diagram layout;
    a width in the title, as in
    `![caption](layout:tree "120mm")`, sets its size."""

    name = "rulebook"
    file_part = "rulebook"
    order = 0
    exports_faces = False  # a book, not a set of faces: Tabletop Simulator's export puts the whole PDF on the table
    component_keys = {}
    sides = ()

    def printables(self, component: Component, studio: Studio) -> list[Printable]:
        """The diagrams the rulebook draws (`layout:` pictures); its component pictures are printables of
        those components already."""
        out: list[Printable] = []
        seen: set[str] = set()
        for src, line in images(_tokens(studio)):
            if src.startswith("layout:") and src not in seen:
                seen.add(src)
                mark = book_mark(studio, line)
                try:
                    name, item = _diagram(studio, src, mark)
                except DataError:  # said by the book's check at its line: the other pictures are still drawn (a
                    continue  # bad one made every later-checked good one 'not among the rulebook's pictures')
                out.append(Printable(component, "picture", len(out), item, name, mark=mark))
        return out

    def check(self, component: Component, studio: Studio, report: Reporter) -> None:
        text = markdown(studio)  # raises DataError with the template's line
        # checked again only when the Markdown (or the template its lines are told by) is new, or what its
        # pictures read changed: an edit the rulebook reads but does not print costs its rendering alone
        key = ("rulebook text", component.id, _digest(text), _digest(studio.cache["rulebook-source"]))
        for message, mark in studio.kept(key, partial(_text_problems, studio, text)):
            report.error(message, mark)

    def draw(self, canvas: Canvas, component: Component, studio: Studio) -> int:
        book = Book(content(studio), studio.fonts, studio.paper, lambda src, width: _drawer(studio, src),
                    studio.painter(canvas).icon, _tokens(studio))
        try:
            return book.draw(canvas)
        except BookError as e:  # the rendered Markdown's line, told as the template's
            place, printed = (e.mark, "") if e.mark else book_place(studio, e.line)
            raise BookError(e.message + printed, place) from None
        except Exception as e:
            blame(e, book_place(studio, None)[0])  # (the rulebook's template, when nothing inside said where)
            raise

    def pages(self, component: Component, studio: Studio, paper: tuple[float, float]) -> int:
        """The pages its check set the book in on `paper` (0 when it has not: the build counts them as drawn)."""
        return int(studio.cache.get("rulebook-pages", {}).get(paper, 0))

    def size_mm(self, component: Component, studio: Studio) -> list[float]:
        return [round(v / (72 / 25.4), 2) for v in studio.paper]

    def text_digest(self, component: Component, studio: Studio) -> str:
        return hashlib.sha256(markdown(studio).encode("utf-8", "surrogatepass")).hexdigest()[:16]  # (see _digest)


def _digest(text: str) -> bytes:
    """The text's digest, a lone surrogate in it too (a template's "\\ud83e", refused at its line once digested:
    it made the digest fail, said as a bug in pnp)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


# what a link or picture points at, inside `](...)` (with parentheses inside it, as in a wiki's 'a_(b)'), a run of
# backticks (a code span's start, when a run as long follows), a backslash escape ('\:') and an address Markdown
# links as written (`<urn:isbn:0451450523>`, its scheme of 2-32 characters, as CommonMark's autolinks): a code span
# and those print as typed, no icon or glossary term, so `component:deck:back` names none. Last, a glossary term,
# kept whole: the book reads its name as written, escapes and all (see book._term), where blanking its escapes
# told '[[{{ "Fast*Strike" | as_typed }}]]' twice, once as '[[Fast  Strike]]' and once as the book reads it
_AS_TYPED = re.compile(r"(?<=\]\()(?:[^()\n]|\([^()\n]*\))*(?=\))|`+|\\[!-/:-@\[-`{-~]"
                       r"|<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\x00-\x20]*>|" + TERM_IN_TEXT.pattern)
_BACKTICKS = re.compile(r"`+")


def _blanked(source: str) -> str:
    """`source` with what prints as typed (see _AS_TYPED) made spaces, its line breaks kept. A code span is
    closed by the next run of as many backticks, found in the runs listed by length: a regular expression
    seeking each run's closing one took 3 s for a line of runs of 1, 2, 3 ... 540 backticks."""
    runs: dict[int, list[int]] = {}  # length -> where the runs of that length start, in order
    for run in _BACKTICKS.finditer(source):
        runs.setdefault(len(run.group()), []).append(run.start())
    pieces: list[str] = []
    done = 0  # where the text not yet copied to pieces starts
    found = _AS_TYPED.search(source)
    while found:
        start, end = found.span()
        if source.startswith("[[", start):  # a term, kept as written
            found = _AS_TYPED.search(source, end)
            continue
        if source[start] == "`":
            starts = runs.get(end - start, [])
            at = bisect_right(starts, start)
            # a whole run opens a span (not the rest of a run an escape began), closed by the next run as long
            if not (at and starts[at - 1] == start and at < len(starts)):
                found = _AS_TYPED.search(source, end)
                continue
            end = starts[at] + (end - start)
        pieces += [source[done:start], re.sub(r"[^\n]", " ", source[start:end])]
        done = end
        found = _AS_TYPED.search(source, max(end, start + 1))  # (past an empty target, as in '![]()')
    return "".join(pieces) + source[done:]


def _shown_lines(text: str, tokens: Parsed) -> list[str]:
    """The rendered rulebook's lines with what prints as typed blanked out (see _blanked), a paragraph's lines
    together (a code span over a line break, '`the\n:x: code`', was read as naming the icon ':x:'), and the
    lines of link reference definitions, which print nothing, left empty."""
    lines = text.split("\n")
    shown = [_blanked(line) for line in lines]
    for token in tokens:  # (only a paragraph's or a setext heading's text goes on over a line break)
        if token.type == "inline" and token.map and token.map[1] - token.map[0] > 1:
            first, end = token.map
            shown[first:end] = _blanked("\n".join(lines[first:end])).split("\n")
    return ["" if n in tokens.definitions else line for n, line in enumerate(shown, 1)]


def _text_problems(studio: Studio, text: str) -> tuple[tuple[str, Mark | None], ...]:
    """What is wrong with the rulebook's rendered Markdown `text`: unknown icons and glossary terms, and the
    blocks the build could not set (pictures, tables), made as the build makes them, short of drawing."""
    said: list[tuple[str, Mark | None]] = []
    lines = text.split("\n")
    shown_lines = _shown_lines(text, _tokens(studio))
    suggest = bounded_suggestions()  # (one for the whole book: each line's own took a minute for thousands of lines)
    told: set[tuple[str, int]] = set()  # (name, line) of the unknown icons said
    for n, (line, shown) in enumerate(zip(lines, shown_lines), 1):  # lines as Markdown and the line index count them
        control = control_problem(line, f"the rendered rulebook line {n}")
        if control:  # as in any text a game prints (see options.Text)
            found = CONTROL_CHARACTER.search(line)
            mark, printed = book_place(studio, n, found.start() if found else None)
            said.append((control + printed, mark))
        else:
            said += _unseen_start(studio, line, n)
        unknown = list(dict.fromkeys(name for name in icons_in(shown) if not studio.icons.exists(name)))
        said += _unknown_icons(studio, unknown, n, shown, suggest)
        said += _unread_icons(studio, shown, n, suggest)
        told.update((name, n) for name in unknown)
        if "[[" in shown:
            said += _unknown_terms(studio, _terms_closed(shown, lines[n:]), n, suggest, told)
    for name, n, block in icons_drawn(_tokens(studio)):  # those the text draws that its lines did not show
        if not any((name, line) in told for line in block) and not studio.icons.exists(name):
            said += _unknown_icons(studio, [name], n, lines[n - 1], suggest)
            told.add((name, n))
    for name, n, block in terms_drawn(_tokens(studio)):  # and the terms it prints so
        if not any((f"[[{name}]]", line) in told for line in block):
            said += _unknown_terms(studio, f"[[{name}]]", n, suggest, told)
    return tuple(dict.fromkeys(said + _set_problems(studio, text)))


# a character that prints nothing (a byte order mark, where two files saved with one were joined; a zero-width space)
# at a line's start, before its Markdown: '\ufeff# Scoring' was read as words and printed '# Scoring', exit 0
_UNSEEN_START = re.compile(rf"[ \t]*({PRINTS_NOTHING.pattern})")


def _unseen_start(studio: Studio, line: str, n: int) -> list[tuple[str, Mark | None]]:
    """The error of the rendered line `n` (`line`) when it begins with a character an editor shows as nothing."""
    found = _UNSEEN_START.match(line)
    if found is None:
        return []
    mark, printed = book_place(studio, n, found.start(1))
    return [(f"the rendered rulebook line {n} begins with the character U+{ord(found.group(1)):04X}, which an editor "
             "shows as nothing: Markdown reads the line after it as words (a heading, list item, quote or table row "
             f"prints as typed); delete it{printed}", mark)]


def _unread_icons(studio: Studio, shown: str, n: int, suggest: Suggestions) -> list[tuple[str, Mark | None]]:
    """The errors of the icons' names the rendered line `n` (`shown`) prints as typed (':my_star:')."""
    said: list[tuple[str, Mark | None]] = []
    for name in icon_markers_unread(shown):
        unread = studio.icons.unread_marker(name, suggest)
        if unread is not None:
            mark, printed = book_place(studio, n)
            said.append((f"{unread}, in the rendered rulebook line {n}{printed}", mark))
    return said


def _unknown_terms(studio: Studio, text: str, n: int, suggest: Suggestions,
                   told: set[tuple[str, int]]) -> list[tuple[str, Mark | None]]:
    """The errors of the glossary terms in `text`, of the rendered line `n`, that the glossary does not define,
    each noted in `told` as ('[[name]]', n)."""
    note_all(studio.game.glossary_reads())  # a term is found by any item of the glossary's tables
    unknown = studio.game.glossary.unknown(text, suggest)
    if not unknown:
        return []
    mark, printed = book_place(studio, n)
    told.update((f"[[{term}]]", n) for term, _ in unknown)
    return [(f"{message}, in the rendered rulebook line {n}{printed}", mark) for _, message in unknown]


def _unknown_icons(studio: Studio, names: list[str], n: int, shown: str,
                   suggest: Suggestions) -> list[tuple[str, Mark | None]]:
    """The errors of the unknown icons `names` on the rendered line `n` (`shown`, its text): a suggestion is
    sought for those the report will show (20,000 names took 8 s)."""
    said: list[tuple[str, Mark | None]] = []
    for number, name in enumerate(names):
        hint = (suggest(name, studio.icons.names()) if number < MAX_ALIKE else "") + colon_hint(name)
        mark, printed = book_place(studio, n, shown.find(f":{name}:"))
        said.append((f"unknown icon {named(f':{name}:')} in the rendered rulebook line {n}{printed}{hint}", mark))
    return said


def _terms_closed(shown: str, after: list[str]) -> str:
    """A line's text, with the lines after it that close a `[[Term` it leaves open joined on as Markdown joins
    a paragraph's lines (by a space): '[[Not' and 'Defined]]' printed the term 'Not Defined' in bold, and
    no line held it to check. A term is 60 characters at most, so a few lines are enough."""
    joined = shown
    for line in after[:30]:
        if joined.rfind("[[") <= joined.rfind("]]") or not line.strip():
            break
        joined += " " + line.strip()
    return joined


def _set_problems(studio: Studio, text: str) -> list[tuple[str, Mark | None]]:
    """What the book of the rendered Markdown `text` cannot set, on every paper pnp prints on, the build's own
    first: a table row that fit A4 but not Letter passed validate, and `build --paper letter` refused it. A
    problem found only on another paper is said with that paper."""
    if CONTROL_CHARACTER.search(text):  # (said at its line: _text_problems) the book is not set: Markdown sets a
        return []  # NUL as U+FFFD, and that was said again, a character the designer never wrote
    credits = studio.game.meta.get("credits")
    if isinstance(credits, Record) and len(credits) > MAX_CREDITS:  # (the book is not set: the build would not be)
        return [(f"credits: {len(credits):,} roles, and the rulebook credits at most {MAX_CREDITS:,} (on its title "
                 "page and its last pages): join them", studio.game.meta.mark_of("credits"))]
    too_long = _title_page_too_long(studio.game.meta)
    if too_long:  # (nor is it then)
        return too_long
    said: list[tuple[str, Mark | None]] = []
    content = _title_content(studio, text)
    papers = every_paper(studio.options.paper)
    on_built: set[Mark | None] = set()  # the places of the problems found on the build's paper
    pages: dict[tuple[float, float], int] = {}
    drawer = _drawn_once(studio)
    for paper in papers:
        book = Book(content, studio.fonts, paper_points(paper), drawer,
                    lambda *icon: None, _tokens(studio))
        problems = _book_problems(studio, book)
        pages[paper_points(paper)] = book.pages_foreseen()
        for problem in problems:
            if paper == papers[0]:
                on_built.add(problem[1])
                said.append(problem)
            elif problem[1] not in on_built:  # found only there: said with the paper
                said.append((problem[0] + on_other_paper(paper, "rulebook"), problem[1]))
    studio.cache["rulebook-pages"] = pages  # (a check's result kept brings it back with it: see Studio.kept)
    return said


def _title_page_too_long(meta: Record) -> list[tuple[str, Mark | None]]:
    """The words of game.yaml the title page and the credits print that are longer than MAX_TITLE_PAGE_CHARS, each
    at its line: a subtitle, the players, ages and time, a credit's role (at its key) and name. (The title is held
    to the footer's one line.)"""
    written: list[tuple[str, object, Mark | None]] = [(key, meta.get(key), meta.mark_of(key))
                                                      for key in ("subtitle", "players", "ages", "time")]
    credits = meta.get("credits")
    for role, who in credits.items() if isinstance(credits, Record) else ():
        said = shortened(str(role), 40)
        written += [(f"credits: the role '{said}'", role, credits.key_mark(role)),
                    (f"credits: the name for '{said}'", who, credits.mark_of(role))]
    return [(f"{what} is {len(str(text)):,} characters long, and the rulebook prints at most "
             f"{MAX_TITLE_PAGE_CHARS:,} (on its title page or in its credits); shorten it", mark)
            for what, text, mark in written if text is not None and len(str(text)) > MAX_TITLE_PAGE_CHARS]


def _book_problems(studio: Studio, book: Book) -> list[tuple[str, Mark | None]]:
    """What the book cannot set on its paper: its title page (said at game.yaml's lines) and its blocks."""
    found = book.problems()
    said: list[tuple[str, Mark | None]] = [(refused.message, refused.mark) for refused in book.title_refused]
    for e in found:
        for message, mark in getattr(e, "problems", None) or [(e.message, e.mark)]:
            # a problem of another file (a pictured component's layout) is said at its own place
            place, printed = (mark, "") if mark else book_place(studio, getattr(e, "line", None))
            said.append((message + printed, place))
    return said


def template_path(studio: Studio) -> Path:
    return studio.game.layout_folder / "rulebook.md.j2"


def book_mark(studio: Studio, rendered_line: int | None, column: int | None = None) -> Mark:
    """Where in the rulebook template a line of the rendered Markdown (at `column`, 0-based, when known)
    comes from: the template line that wrote it (see _LineIndex)."""
    return book_place(studio, rendered_line, column)[0]


# said after a message whose text the template does not write literally at its line: the fault may be in
# what that line prints (a card's text, a macro of macros.j2), not in the line itself
PRINTED = " (in text the template prints at that line: a value, a macro's or a block's)"


def book_place(studio: Studio, rendered_line: int | None, column: int | None = None) -> tuple[Mark, str]:
    """book_mark, and PRINTED when the template line prints the text rather than writes it ("" else)."""
    shown = studio.project.rel(template_path(studio))
    if not rendered_line:
        return Mark(shown), ""
    rendered = markdown(studio)  # traces the template's lines too
    index = studio.cache.get("rulebook-lines")
    if index is None or index.rendered is not rendered:
        index = studio.cache["rulebook-lines"] = _LineIndex(rendered, studio.cache["rulebook-origins"])
    line, literal = index.place(rendered_line, column)
    return (Mark(shown, line, 1) if line else Mark(shown)), "" if literal else PRINTED


class _LineIndex:
    """The template line of any place in the rendered rulebook, from the pieces its rendering traced (see
    template.render's `origins`): the line of the `{{ }}` that printed a value, and for text the template
    writes literally, its own line (a piece's later lines are the template's next ones). Exact by
    construction, however often a line repeats, loops run or whitespace control joins lines; text a
    `{% filter %}` or `{% call %}` block yields is told at that block's line."""

    def __init__(self, rendered: str, origins: list[tuple[int, int, bool]]) -> None:
        self.rendered = rendered
        self.starts = [0] + [found.end() for found in re.finditer("\n", rendered)]  # where each line starts
        self.offsets = [offset for offset, _, _ in origins]
        self.origins = origins

    def place(self, line: int, column: int | None = None) -> tuple[int, bool]:
        """The template line of rendered line `line` (1-based) at `column`, by default its first character
        that is not a space (0 when the template wrote nothing), and whether that line writes it literally."""
        if not self.origins:
            return 0, True
        line = min(max(line, 1), len(self.starts))
        start = self.starts[line - 1]
        text = self.rendered[start:self.starts[line] - 1] if line < len(self.starts) else self.rendered[start:]
        if column is None:
            column = len(text) - len(text.lstrip()) if text.strip() else 0
        at = min(start + max(column, 0), len(self.rendered) - 1)
        offset, written, literal = self.origins[max(bisect_right(self.offsets, at) - 1, 0)]
        if not literal:
            return written, False
        return written + bisect_right(self.starts, at) - bisect_right(self.starts, offset), True


def icons_shown(studio: Studio) -> list[str]:
    """The icons the rendered rulebook's text draws, once it is rendered (none before): never those of a code
    span, an escape or a link's target, which print as typed (the credits named an icon only `:star:` in code
    wrote, which nothing drew; nor one after a ']' that is no link's, 'box](:star:)', which the book drew)."""
    text = studio.cache.get("rulebook")
    if not text:
        return []
    cached = studio.cache.get("rulebook-icons")
    if cached is None:
        cached = studio.cache["rulebook-icons"] = [name for name, _, _ in icons_drawn(_tokens(studio))]
    return list(cached)


def _tokens(studio: Studio) -> Parsed:
    """The rulebook's Markdown parsed once per build, as the book parses it (and once for the same text in
    a row: the preview's refreshes render it again after an edit it reads, most often to the same text)."""
    global _LAST_PARSED
    cached = studio.cache.get("rulebook-tokens")
    if cached is None:
        text = markdown(studio)
        last = _LAST_PARSED
        cached = last[1] if last is not None and last[0] == text else parse(text)
        studio.cache["rulebook-tokens"] = cached
        _LAST_PARSED = (text, cached)
    return cached


_LAST_PARSED: tuple[str, Parsed] | None = None  # (Markdown, its tokens), which nothing changes once parsed


def markdown(studio: Studio) -> str:
    """The rulebook's Markdown after Jinja, rendered once per build; DataError with the template's line."""
    cached = studio.cache.get("rulebook")
    if cached is None:
        path = template_path(studio)
        shown = studio.project.rel(path)
        if not path.exists() and not path.is_symlink():
            raise DataError("rulebook template not found", Mark(shown))
        try:
            real = studio.project.inside(path, Mark(shown), "rulebook template")
            # its lines end as Markdown and the line index count them: Jinja keeps a lone \r (an old Mac's line
            # end), which Markdown reads as a line's end and the index did not (every message said line 1)
            # (a byte-order mark an editor saved before it made the first line no heading: "# Rules" was printed)
            raw = read_project_file(real, MAX_FILE_BYTES, Mark(shown), beneath=studio.project.root)
            source = re.sub(r"\r\n?", "\n", utf8_text(raw, shown, encoding="utf-8-sig"))
        except OSError as e:
            raise DataError(f"cannot read: {getattr(e, 'strerror', None) or e}", Mark(shown)) from None
        # read only by a template that names it: a received game's stale or foreign simulation.json stopped the
        # build of a rulebook that prints no figure
        measured = simulation(studio) if _NAMES_SIMULATION.search(source) else None
        origins: list[tuple[int, int, bool]] = []
        try:
            cached = _rendered(studio, source, measured, origins)
        except ExprError as e:
            at = Mark(shown, e.line or 0, 1 if e.line else 0)
            if measured is not None and _renders(studio, source):  # the figures read are at fault, not the template
                raise DataError(f"not as `pnp simulate` writes it: the rulebook template ({at}) failed on it: "
                                f"{e.message}; run `pnp simulate` again",
                                Mark(studio.project.rel(studio.project.simulation(studio.game.id)))) from None
            raise DataError(f"rulebook template: {e.message}", at) from None
        studio.cache["rulebook"], studio.cache["rulebook-source"] = cached, source
        studio.cache["rulebook-origins"] = origins
    return cached


_NAMES_SIMULATION = re.compile(r"\bsimulation\b")  # the template's name for what `pnp simulate` measured


def _rendered(studio: Studio, source: str, measured: dict[str, Any] | None,
              origins: list[tuple[int, int, bool]] | None = None) -> str:
    """The rulebook's Markdown; with `origins`, the template line of each piece of it (see template.render)."""
    return render(source, {**studio.context(), "simulation": measured}, MAX_RULEBOOK_CHARS,
                  "the rulebook is longer than {max_chars:,} characters once its template is rendered "
                  "(a page holds about 3,500; a 250-page rulebook about 900,000)", origins, markup=True)


def _renders(studio: Studio, source: str) -> bool:
    """Whether the rulebook renders without a simulation's figures: when it does, a failure with them is the
    fault of simulation.json (a file in output/ a game folder someone sent may carry, of any shape), which the
    message then names instead of a line of the template that reads it."""
    try:
        _rendered(studio, source, None)
    except ExprError:
        return False
    return True


class NotAsWritten(DataError):
    """simulation.json is not the JSON `pnp simulate` writes: not JSON, numbers it never writes, no object."""


class OfAnotherGame(DataError):
    """simulation.json is another game's (a folder copied under another name); marked at the line naming it."""


@dataclass
class SimulationFile:
    """output/<game>/simulation.json as read: its object, its text and when it was written."""

    value: dict[str, Any]
    text: str  # where a message finds the line of a part it names
    made: float  # its modification time


def read_simulation_file(project: Project, game_id: str) -> SimulationFile | None:
    """output/<game>/simulation.json parsed as `pnp simulate` writes it (the one reader of it: the rulebook's
    figures and the report's section), None when no run wrote one. DataError at the file when it cannot be read,
    NotAsWritten when it is not such JSON or holds no object; OfAnotherGame when it is another game's. The message says what is
    wrong; each reader says what to do."""
    path = project.simulation(game_id)
    shown = project.rel(path)
    # only a file that is not there is "no run": a folder or a named pipe there is refused as the report warns of
    # it (is_file() took either for no simulation, and the rulebook printed that no run was made, with exit 0)
    if not (path.exists() or path.is_symlink()):
        return None
    try:
        real = project.inside(path, Mark(shown), "simulation results", built=True)
        made = os.stat(real).st_mtime
        data = read_project_file(real, MAX_SIMULATION_BYTES, Mark(shown), "simulation results",
                                 beneath=project.root)
    except OSError as e:
        raise DataError(f"cannot read: {e.strerror or e}", Mark(shown)) from None
    text = data.decode(json.detect_encoding(data), "replace")
    try:
        value = simulation_json(data)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        why, mark = _not_json(e, shown)
        raise NotAsWritten(f"not the JSON `pnp simulate` writes: {why}", mark) from None
    if not isinstance(value, dict):
        raise NotAsWritten("not the JSON `pnp simulate` writes (no object at the top)", Mark(shown))
    other = simulated.of_another_game(value, game_id)
    if other:  # (the rulebook printed its figures as this game's)
        raise OfAnotherGame(other, _part_mark(shown, text, "game"))
    return SimulationFile(value, text, made)


def simulation(studio: Studio) -> dict[str, Any] | None:
    """output/<game>/simulation.json, parsed, for the template's `simulation` (None when no run wrote one), so a
    rulebook prints measured figures without running any rules code. DataError at the file when unreadable."""
    try:
        found = read_simulation_file(studio.project, studio.game.id)
    except OfAnotherGame as e:
        raise DataError(f"{e.message}: run {pasted(f'`pnp simulate {shell_word(studio.game.id)}`')}", e.mark) from None
    except NotAsWritten as e:
        raise DataError(f"{e.message}; run it again", e.mark) from None
    if found is None:
        return None
    unlike = simulated.unlike(found.value)
    if unlike:  # the report leaves such parts out with a warning; the rulebook would print them as figures
        more = f" and {len(unlike) - 1:,} more" if len(unlike) > 1 else ""
        raise DataError(f"not as `pnp simulate` writes it: '{unlike[0]}'{more} (a rate outside 0-1 or its interval, "
                        "a count below 0, parts that disagree) would be printed in the rulebook; run `pnp simulate` again",
                        _part_mark(studio.project.rel(studio.project.simulation(studio.game.id)), found.text, unlike[0]))
    return found.value


def _part_mark(shown: str, text: str, part: str) -> Mark:
    """The file's line and column where the part at `part` (items.dinosaurs.rex) is named as a key, the file
    alone when it is not found so."""
    key = re.compile(re.escape(json.dumps(part.rsplit(".", 1)[-1])) + r"\s*:")
    for number, line in enumerate(text.split("\n"), 1):
        found = key.search(line)
        if found:
            return Mark(shown, number, found.start() + 1)
    return Mark(shown)


def simulation_json(data: bytes) -> Any:
    """simulation.json's bytes parsed as `pnp simulate` writes them: finite numbers only. Python's JSON reads
    NaN, Infinity and 1e999 too, and the rulebook printed 'Win rate nan' from such a file with exit 0 (the
    report dropped those values); ValueError for them, as for any JSON that is not valid."""
    return json.loads(data, parse_constant=_not_finite, parse_float=_finite)


class _NotFinite(ValueError):
    """A number simulation_json refuses (its message names it: pnp's own words)."""


def _not_json(error: ValueError | RecursionError, shown: str) -> tuple[str, Mark]:
    """What simulation_json's `error` says of the file `shown`, in pnp's words, and where: Python's exception's
    name alone was printed ('(JSONDecodeError)', '(RecursionError)'), at no line."""
    if isinstance(error, json.JSONDecodeError):
        return "not JSON text from here on", Mark(shown, error.lineno, error.colno)
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8 text", Mark(shown)
    if isinstance(error, RecursionError):
        return "nested too deeply", Mark(shown)
    if isinstance(error, _NotFinite):
        return str(error), Mark(shown)
    return "a number of more than 4,300 digits", Mark(shown)  # (Python's parser's only other refusal)


def _not_finite(name: str) -> float:
    raise _NotFinite(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _NotFinite(f"{text[:20]} is too large for a number")
    # 0.0 for -0.0 (a file edited by hand): '%.0f' printed its win rate's interval as '-0-12%' in the rulebook
    return number + 0.0


def _refuse_blank_part(src: str, slash: str, part: str, what: str, mark: Mark | None = None) -> None:
    """Refuse a picture's source whose '/' names nothing after it (`component:deck/`, as a template writes
    `component:deck/{{ c.id }}` of a blank id): it showed the first item (or the bare layout), with exit 0."""
    if slash and not part:
        raise DataError(f"picture '{src}': no {what} after its '/' (a blank value in the template?); name one, "
                        "or leave the '/' out", mark)


def _diagram(studio: Studio, src: str, mark: Mark | None = None) -> tuple[str, Record | None]:
    """'layout:NAME[/TABLE/ITEM]' -> (layout name, item); DataError at `mark` for an item that is not there."""
    name, slash, rest = src[len("layout:"):].partition("/")
    _refuse_blank_part(src, slash, rest, "table", mark)
    table, _, item_id = rest.partition("/")
    item = None
    if table:
        tables = studio.context()["ref"]
        if table not in tables:  # (said as no item in it: 'no item 'lion' in table 'card'', of no such table)
            raise DataError(f"picture '{src}': no table {named(table)}{_suggested(studio, table, tables)}", mark)
        if not item_id:  # (said as no item '' in the table: the same as any item it lacks)
            raise DataError(f"picture '{src}': table {named(table)} and no item id after it (a blank value in the "
                            f"template?); name one, as in 'layout:{name}/{table}/ITEM', or leave out the table", mark)
        item = tables[table].get(item_id)
        if item is None:
            raise DataError(f"picture '{src}': no item {named(item_id)} in table {named(table)}"
                            f"{_suggested(studio, item_id, tables[table])}", mark)
    return name, item


# each studio's suggestions for its pictures' unknown names: the work of the whole book's bounded (not in
# studio.cache, whose entries a drawing's remembered result carries to other processes, where the names' ids
# that Suggestions keys by mean other names)
_PICTURE_SUGGESTIONS: "weakref.WeakKeyDictionary[Studio, Suggestions]" = weakref.WeakKeyDictionary()


def _suggested(studio: Studio, word: str, names: Iterable[object]) -> str:
    """A name close to `word` among `names` (a table, the tables, the components' ids: the same object for
    each picture) a picture may have meant, as every unknown name is said. The names are made a tuple once per
    object: a new one for each picture was held by the suggestions' memory of what each word was told, and
    2,000 pictures naming missing rows of a 10,000-row table held 2,000 copies of its ids (300 MB)."""
    kept = _PICTURE_NAMES.setdefault(studio, {})
    found = kept.get(id(names))
    if found is None or found[0] is not names:
        found = kept[id(names)] = (names, tuple(names))
    return _PICTURE_SUGGESTIONS.setdefault(studio, Suggestions())(word, found[1])


def _component_ids(studio: Studio) -> tuple[object, ...]:
    """The components' ids, as a tuple made once per list of components (see _suggested)."""
    components = studio.game.components
    kept = _PICTURE_NAMES.setdefault(studio, {})
    found = kept.get(id(components))
    if found is None or found[0] is not components:
        found = kept[id(components)] = (components, tuple(c.id for c in components))
    return found[1]


# each studio's names a picture's unknown name is compared with, as a tuple: id of the object (a table, the
# tables, the components) -> (it, kept so that its id names no other; its names)
_PICTURE_NAMES: "weakref.WeakKeyDictionary[Studio, dict[int, tuple[Iterable[object], tuple[object, ...]]]]" = \
    weakref.WeakKeyDictionary()


def picture(studio: Studio, src: str) -> tuple[Printable, bool]:
    """The printable a rulebook picture shows, and whether it is a component (shown at card size):
    'component:ID[/ITEM][:back]' (that component's front for the item, or its back) or
    'layout:NAME[/TABLE/ITEM]' (a diagram). DataError with a clear message otherwise."""
    if src.startswith("layout:"):
        return _diagram_printable(studio, src), False
    if not src.startswith("component:"):
        raise DataError(f"picture '{src}': use component:<id>[/<item id>] or layout:<name>[/<table>/<item id>]")
    path, back = (src[:-len(":back")], True) if src.endswith(":back") else (src, False)
    cid, slash, item_id = path[len("component:"):].partition("/")
    _refuse_blank_part(src, slash, item_id, "item id")
    component = studio.game.component(cid)
    if component is None:
        raise DataError(f"picture '{src}': no component {named(cid)}"
                        f"{_suggested(studio, cid, _component_ids(studio))}")
    faces = _faces(studio, component, item_id, back)
    if not faces:
        what = "back" if back else "item"
        raise DataError(f"picture '{src}': component {named(cid)} has no {what}"
                        + (f" {named(item_id)}{_suggested(studio, item_id, _item_ids(studio, component, back))}"
                           if item_id else "")
                        if item_id or back else _nothing_to_show(src, component))
    return faces[0], True


def _nothing_to_show(src: str, component: Component) -> str:
    """Why a picture of a component that has no face to show is refused: a tuck box (or the rulebook) does print,
    drawn by its kind and not from a layout, and was said to print nothing."""
    if component.spec.get("layout") is None:
        return (f"picture '{src}': component {named(component.id)} (a {component.kind}) is drawn from no layout, "
                "so the rulebook cannot show it: show what it holds, or draw a diagram with layout:NAME")
    return f"picture '{src}': component {named(component.id)} prints nothing to show"


def _faces(studio: Studio, component: Component, item_id: str, back: bool) -> list[Printable]:
    """The component's fronts (or backs), of the item `item_id` when one is named."""
    sides = ("back",) if back else ("front", "face")
    printed = studio.of(component)
    if not item_id:
        return [p for p in printed if p.side in sides]
    kept = _BY_ID.setdefault(studio, {}).get((component.id, back))
    if kept is None or kept[0] is not printed:
        found, reads = _by_id(printed, sides)
        kept = _BY_ID[studio][(component.id, back)] = (printed, found, reads, tuple(found))
    note_all(kept[2])
    return kept[1].get(item_id, [])


def _item_ids(studio: Studio, component: Component, back: bool) -> tuple[object, ...]:
    """The ids of the items the component prints (its backs with `back`), in order, among which a picture naming
    none of them is offered a suggestion: one tuple per index (_faces made it), not the faces walked again for
    each such picture (9,000 pictures naming no item of a 300-card deck walked 2.7 million faces, 10 s to
    validate), and the same tuple each time, which Suggestions knows again."""
    return _BY_ID[studio][(component.id, back)][3]


# A picture's item found by its id among its component's faces, indexed once per list of them (held, so that
# its id names no other): scanned for each picture, 4,000 pictures of a 4,000-card deck read 16 million ids,
# 40 s to validate. (component id, back) -> (the faces, id -> the faces of that item, the reads to note, the ids)
_BY_ID: "weakref.WeakKeyDictionary[Studio, dict[tuple[str, bool], tuple[list[Printable], dict[object, list[Printable]], list[Read], tuple[object, ...]]]]" = \
    weakref.WeakKeyDictionary()


def _by_id(printed: list[Printable], sides: tuple[str, ...]) -> tuple[dict[object, list[Printable]], list[Read]]:
    """{item id: the faces of `sides` of that item, in order} and what finding one by its id reads: which items
    each table holds by which ids (its membership), the same as each item's id read one by one."""
    found: dict[object, list[Printable]] = {}
    with recording() as reads:
        for p in printed:
            if p.side in sides and p.item is not None:
                found.setdefault(p.item.get("id"), []).append(p)
    tables = dict.fromkeys(read[0] for read in reads if isinstance(read, tuple) and read[2] == "id")
    return found, [(table, MEMBERS, None) for table in tables]


def _diagram_printable(studio: Studio, src: str) -> Printable:
    name, item = _diagram(studio, src)
    p = _pictures(studio).get((name, id(item)))
    if p is not None and p.item is item:
        studio.layouts.get(name, p.mark)  # a layout that cannot be read says so here
        return p
    raise DataError(f"picture '{src}' is not among the rulebook's pictures")


# The rulebook's diagrams by (layout, identity of the item drawn), indexed once per lists of the components'
# faces (held, so that their items' ids name no others): each diagram scanned every face of every component,
# and 4,000 diagrams beside a 4,000-card deck compared 48 million faces
_DIAGRAMS: "weakref.WeakKeyDictionary[Studio, tuple[list[list[Printable]], dict[tuple[str, int], Printable]]]" = \
    weakref.WeakKeyDictionary()


def _pictures(studio: Studio) -> dict[tuple[str, int], Printable]:
    """{(layout, id of its item): the first picture printable drawing it} over every component's faces."""
    lists = [studio.of(component) for component in studio.game.components]  # (each noting what it read)
    kept = _DIAGRAMS.get(studio)
    if kept is None or len(kept[0]) != len(lists) or any(a is not b for a, b in zip(kept[0], lists)):
        index: dict[tuple[str, int], Printable] = {}
        for printed in lists:
            for p in printed:
                if p.side == "picture":
                    index.setdefault((p.layout, id(p.item)), p)
        kept = _DIAGRAMS[studio] = (lists, index)
    return kept[1]


def _drawn_once(studio: Studio) -> Callable[[str, str], tuple[Callable[[Canvas], None], tuple[float, float], bool]]:
    """_drawer for the books of every paper the rulebook is checked on: a picture is the same on each (its
    drawing, its size, and a picture that cannot be drawn its error), worked out for the first and given to
    the next (each paper's book worked them all out again: a ninth of validating a small game)."""
    made: dict[str, tuple[Callable[[Canvas], None], tuple[float, float], bool] | DataError] = {}

    def drawer(src: str, title: str) -> tuple[Callable[[Canvas], None], tuple[float, float], bool]:
        if src not in made:
            try:
                made[src] = _drawer(studio, src)
            except DataError as e:
                made[src] = e
        found = made[src]
        if isinstance(found, DataError):
            raise found
        return found

    return drawer


def _drawer(studio: Studio, src: str) -> tuple[Callable[[Canvas], None], tuple[float, float], bool]:
    printable, is_component = picture(studio, src)
    size = studio.layouts.size(printable.layout, printable.mark)  # (the check reads the size alone)

    def draw(canvas: Canvas) -> None:  # stored once, as a form every picture of it shows: its painting is
        # charged once, and a card of 5,000 shapes pictured 400 times, painted each time, built in 20 s
        studio.draw(canvas, studio.painter(canvas), printable, 0, 0, shared=True, clip=0)

    return draw, size, is_component


def content(studio: Studio) -> BookContent:
    """What the title page and credits say, from game.yaml, the fonts and the icons really printed."""
    return replace(_title_content(studio, markdown(studio)), icons_line=_icons_line(studio))


def _title_content(studio: Studio, text: str) -> BookContent:
    """What the book says but the icons' credit (which resolves every printable to find them): its Markdown
    `text`, the title page's and the credits' words."""
    meta = studio.game.meta
    players = str(meta.get("players")).strip()
    players += " player" if players == "1" else " players"  # (a solo game's title page said "1 players")
    # (a value of 0 is printed too, as written: '-0.0' and '0' are false, and `time: 0` or a subtitle of 0.0 was
    # left out, exit 0)
    facts = FACTS_SEPARATOR.join(str(x) for x in (players, f"ages {meta.get('ages')}", meta.get("time"))
                                 if x is not None)
    credits = [(_first_upper(str(role).replace("_", " ")), who) for role, who in (meta.get("credits") or {}).items()]
    fonts = ", ".join(credit for credit, _ in _font_credits(studio))
    return BookContent(
        title=studio.game.title, markdown=text, subtitle=_written(meta.get("subtitle")), facts=facts,
        credits=credits, note=NOTE, fonts_line=f"**Fonts:** {fonts}.",
        marks={what: meta.mark_of(key) for what, key in (("title", "title"), ("subtitle", "subtitle"),
                                                         ("facts", "players"), ("credits", "credits"))},
        sources={"facts": [(str(meta.get(key)), meta.mark_of(key)) for key in ("players", "ages", "time")],
                 "credits": _credit_sources(meta)})


def _written(value: object) -> str:
    """A text of game.yaml as written, "" when it is not there."""
    return "" if value is None else str(value)


def _credit_sources(meta: Record) -> list[tuple[str, Mark | None]]:
    """Each credit's role and name as written, each at its own line (see BookContent.sources)."""
    credits = meta.get("credits")
    return [(str(text), mark) for role, who in (credits.items() if isinstance(credits, Record) else ())
            for text, mark in ((role, credits.key_mark(role)), (who, credits.mark_of(role)))]


def _first_upper(role: str) -> str:
    """A credit's role as written, its first letter made a capital: str.capitalize() also lowered the rest,
    and the role 'AI_art' printed 'Ai art', '3D_models' '3d models'."""
    return role[:1].upper() + role[1:]


def _font_credits(studio: Studio) -> list[tuple[str, Mark | None]]:
    """(the markup crediting a font family, its line in fonts.yaml), as the credits print them: its name and
    licence folder as they are (a star in a name made the rest bold, and ':star:' printed an icon)."""
    return [(_font_credit(name, licence, granted), studio.fonts.credit_marks.get(family))
            for family, (name, licence, granted) in studio.fonts.licences.items()]


def _font_credit(name: str, licence: str, granted: str) -> str:
    """A family's credit: the licence its file grants with the file's folder, else the file, else that none is
    given (never a licence the font was not said to have)."""
    if granted:
        return f"{literal(name)} ({literal(licence.split('/')[0])}, {granted})"
    return f"{literal(name)} ({'licence: ' + literal(licence) if licence else 'no licence file given'})"


def _no_picture(src: str, width: str) -> NoReturn:
    """The picture source of a book that sets credit lines alone, which hold none."""
    raise DataError(f"no picture is drawn in a credit line ({src})")


def _role_problems(credits: Record) -> list[tuple[str, Mark | None]]:
    """The credits' roles that would not print as written, each at its key: one of underscores alone (they print
    as spaces), and one YAML read as a number, which prints as Python writes it (`1.10:` printed "1.1", `1_000:`
    "1000"): it is refused until quoted, said as written (Record.key_quoted: `0x10:` was said 'the role 16')."""
    said = [(f"credits: the role '{role}' prints as no words (its '_' print as spaces): write its words",
             credits.key_mark(role)) for role in credits
            if str(role).strip() and not str(role).replace("_", " ").strip()]
    return said + [(f"credits: the role {credits.key_quoted(role)} is read as a number, which prints as {role} "
                    f"whatever digits it was written with: quote it ('{credits.key_quoted(role)}': ...) to print it "
                    "as written", credits.key_mark(role))
                   for role in credits if isinstance(role, (int, float)) and not isinstance(role, bool)]


def credit_problems(studio: Studio) -> list[tuple[str, Mark | None]]:
    """What the rulebook's credits cannot set, on every paper pnp prints on: a font's credit (a character
    its font lacks, a word wider than the page) at its family's line of fonts.yaml, the icons' (a long icon
    file name) at game.yaml's `icons:`. The build refused them at the rulebook's template after validate said
    ok. Asked once every printable is checked: the icons credited are those they print."""
    meta = studio.game.meta
    credits = meta.get("credits")
    blank = _role_problems(credits) if isinstance(credits, Record) else []
    lines = [(f"{credit},", mark) for credit, mark in _font_credits(studio)]
    # (a family's name, where fonts.yaml gives it, by the line of its credit: what the name alone cannot set is
    # said at the name, not at the family's first key)
    names = {n: (literal(name), studio.fonts.name_marks[family])
             for n, (family, (name, _, _)) in enumerate(studio.fonts.licences.items()) if family in studio.fonts.name_marks}
    try:
        icons = _icons_line(studio)
    except LimitError:
        raise
    except (DataError, ExprError):  # a printable that cannot be resolved: said where it is checked
        icons = ""
    if icons:
        lines.append((icons, meta.mark_of("icons") if "icons" in meta else meta.mark))
    said: dict[int, tuple[str, Mark | None]] = {}  # line -> its problem, on the build's paper if it has one there
    papers = every_paper(studio.options.paper)
    for paper in papers:
        book = Book(BookContent(title="", markdown=""), studio.fonts, paper_points(paper), _no_picture,
                    lambda *icon: None, [])
        for n, (markup, mark) in enumerate(lines):
            try:
                book.para(markup, space_after=3)
            except BookError as e:
                on_other = "" if paper == papers[0] else on_other_paper(paper, "rulebook")
                said.setdefault(n, (e.message + " (the rulebook's credits print it)" + on_other,
                                    _name_at_fault(book, names.get(n)) or mark))
    return blank + list(said.values())


def _name_at_fault(book: Book, name: tuple[str, Mark | None] | None) -> Mark | None:
    """Where a font family's credit line that cannot be set gives the family's `name` (its markup, its mark),
    when the name alone cannot be set either; else None."""
    if name is None:
        return None
    try:
        book.para(name[0], space_after=3)
    except BookError:
        return name[1]
    return None


def _icons_line(studio: Studio) -> str:
    """Credit for the icons printed: the files in the shared icons folder are game-icons.net's; any other (a
    game's own icons/ folder, looked up first, or a file a link there leads to) the designer's. Told by where
    the file drawn lies, not by its name: a link to a file of the designer's named like a shared icon was
    credited to game-icons.net."""
    shared_folder = studio.game.project.shared_layouts.joinpath("icons").resolve()
    used = studio.icons_used()
    # its file names as they are: 'my*odd*.svg' printed 'myodd' in italics, ':y:' drew an icon (or nothing)
    # (in the form its name is known by: a Mac's 'e' and an accent is one letter)
    shared = sorted({literal(icon_name(path.stem)) for path in used if path.parent == shared_folder})
    own = sorted({literal(icon_name(path.stem)) for path in used if path.parent != shared_folder})
    parts = []
    if shared:
        parts.append("from game-icons.net by Lorc, Delapouite and the other game-icons.net contributors, licensed "
                     "under CC BY 3.0 (creativecommons.org/licenses/by/3.0). Icons used in this game: "
                     f"{', '.join(shared)}.")
    if own:
        parts.append(f"This game's own: {', '.join(own)}.")
    return "**Icons:** " + " ".join(parts) if parts else ""
