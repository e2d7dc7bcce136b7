"""Rulebooks are typeset like books: a heading or a line introducing what follows (it ends with ':') never
ends a page without it, and a table splits only between rows, its header repeated, never leaving one row
alone. Checked on the PDF pages a small book really prints, with the introducing line at every height."""

import functools
import io

import pytest
from pypdf import PdfReader
from reportlab.pdfgen.canvas import Canvas

from conftest import REPO, make_project, run
from pnp.draw.book import Book, BookContent
from pnp.draw.fonts import load_fonts
from pnp.project import find
from pnp.units import MM

PAPER = (210 * MM, 90 * MM)  # short pages, so every position of the page foot comes quickly
ROWS = 17


def _markdown(fillers: int) -> str:
    filler = "".join(f"Filler paragraph number {n} of the book.\n\n" for n in range(fillers))
    table = "| Head one | Head two |\n|---|---|\n" + "".join(f"| row{n:02d} | cell |\n" for n in range(ROWS))
    return f"# Rules\n\n{filler}Here is what follows:\n\n- alpha item\n- beta item\n\n{filler}{table}"


@functools.cache
def _fonts():
    return load_fonts(find(REPO))


def _pages(markdown: str, paper: tuple[float, float] = PAPER) -> list:
    fonts = _fonts()
    book = Book(BookContent(title="Test", markdown=markdown), fonts, paper, lambda src, width: None,
                lambda *args: None)
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=paper, invariant=1)
    book.draw(canvas)
    canvas.save()
    return [page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages]


@pytest.mark.parametrize("fillers", range(0, 8))
def test_introducing_lines_and_tables_are_kept_with_what_follows(fillers):
    pages = _pages(_markdown(fillers))
    intro = next(i for i, text in enumerate(pages) if "what follows:" in text)
    assert "alpha" in pages[intro], f"the line introducing the list ends page {intro + 1}"
    rows_per_page = [sum(f"row{n:02d}" in text for n in range(ROWS)) for text in pages]
    assert sum(rows_per_page) == ROWS
    for text, rows in zip(pages, rows_per_page):
        assert rows == 0 or rows >= 2, f"a table leaves {rows} row alone on a page: {rows_per_page}"
        assert rows == 0 or "Head one" in text, "a table's header is repeated on every page it runs onto"


@pytest.mark.parametrize("fillers", range(0, 8))
def test_a_paragraph_split_over_pages_leaves_two_lines_on_each(fillers):
    """No lone first line of a paragraph at a page's foot, no lone last line at the next page's head (the
    Battles credits ended with one line of icon names on a page of its own)."""
    words = " ".join(f"w{n:03d}" for n in range(150))  # about eight lines
    filler = "".join(f"Filler paragraph number {n} of the book.\n\n" for n in range(fillers))
    pages = _pages(f"# Rules\n\n{filler}{words}\n\nThe end.\n")
    lines = [sum(1 for line in text.splitlines() if "w0" in line or "w1" in line) for text in pages]
    assert sum(lines) >= 6
    assert all(n == 0 or n >= 2 for n in lines), f"the paragraph's lines per page: {lines}"


@pytest.mark.parametrize("natural", [(1 * MM, 2000 * MM), (400 * MM, 10 * MM)])
def test_a_picture_of_a_component_taller_than_a_page_is_shown_smaller_on_one_page(natural):
    """A 1 x 2000 mm card shown at card width was taller than any page: validate said ok, the build failed
    with "too large for a page"."""
    fonts = _fonts()
    book = Book(BookContent(title="Test", markdown="# Rules\n\n![A tall card](component:deck/x)\n\nAfter it.\n"),
                fonts, PAPER, lambda src, width: (lambda canvas: None, natural, True), lambda *args: None)
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=PAPER, invariant=1)
    book.draw(canvas)
    canvas.save()
    assert any("After it." in page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages)


@pytest.mark.parametrize("title, drawn_mm", [("40mm", 40), ("", 20), ("10mm", 10), ("1000mm", 174)])
def test_a_picture_is_drawn_at_the_width_its_title_writes(title, drawn_mm):
    """'![x](component:token "40mm")' of a 20 mm token printed it at 20 mm, exit 0: a width written is drawn,
    larger than the component too (up to the column: the page's text is 174 mm); with none, a component is
    shown at most at its own size."""
    book = Book(BookContent(title="Test", markdown=""), _fonts(), (210 * MM, 297 * MM),
                lambda src, width: (lambda canvas: None, (20 * MM, 20 * MM), True), lambda *args: None)
    picture = book.picture("component:token", "", title)
    picture.wrap(174 * MM, 250 * MM)
    assert picture.pic_h == pytest.approx(drawn_mm * MM)


def test_a_numbered_lists_label_column_holds_its_widest_label():
    """"10." and above were wider than the 4 mm a list's label column had: they ran left of the column, out of
    the page's text. Read back from the PDF: every label starts inside the text's margin and ends before its
    item's text, and all the items' text starts at one place."""
    import pdfplumber

    from pnp.draw.book import MARGIN

    markdown = "# Rules\n\n" + "".join(f"{n}. step {n}\n" for n in range(1, 13))
    book = Book(BookContent(title="Test", markdown=markdown), _fonts(), (210 * MM, 297 * MM), lambda src, width: None,
                lambda *args: None)
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(210 * MM, 297 * MM), invariant=1)
    book.draw(canvas)
    canvas.save()
    with pdfplumber.open(io.BytesIO(out.getvalue())) as pdf:
        words = [w for page in pdf.pages for w in page.extract_words()]
    labels = {w["text"]: w for w in words if w["text"][:-1].isdigit() and w["text"].endswith(".")}
    texts = [w for w in words if w["text"] == "step"]
    assert sorted(labels, key=lambda t: int(t[:-1])) == [f"{n}." for n in range(1, 13)] and len(texts) == 12
    assert len({round(w["x0"], 1) for w in texts}) == 1, "the items' text starts at one place"
    for text in texts:
        label = next(w for w in labels.values() if abs(w["top"] - text["top"]) < 1)
        assert label["x0"] >= MARGIN - 0.1, f"{label['text']} starts left of the text's margin"
        assert label["x1"] < text["x0"] - 1, f"{label['text']} runs into its item's text"


def test_a_star_in_inline_code_prints_as_a_star():
    """`*` in backticks was pnp markup: it printed nothing and made the rest of the paragraph italic."""
    text = " ".join(_pages("# Rules\n\nPress `*` to multiply, then `**` and *on*.\n")).replace("\n", " ")
    assert "Press * to multiply, then ** and on." in text


def _table_pages(body_rows: int, fillers: int) -> list[str]:
    """The pages of a book of filler paragraphs, then a heading, then a table of `body_rows` rows: on pages
    150 mm tall, the table (about 12 of its rows to a page) falls at every height of a page as fillers grow."""
    filler = "".join(f"Filler paragraph number {n} of the book.\n\n" for n in range(fillers))
    table = "| Head one | Head two |\n|---|---|\n" + "".join(f"| row{n:02d} | cell |\n" for n in range(body_rows))
    return _pages(f"# Rules\n\n{filler}## The table\n\n{table}\nThe end.\n", (210 * MM, 150 * MM))


@pytest.mark.parametrize("body_rows", [10, 5])
def test_a_table_at_a_page_foot_splits_between_rows_with_its_header_repeated(body_rows):
    """A 10-row table that did not fit in the rest of a page moved whole, leaving up to a quarter page blank
    (Dino Ranch's Action Mat table): it splits when its header and two rows fit, two rows at least going on;
    a table of fewer than six rows still moves whole. Its heading stays with its first rows."""
    splits = 0
    for fillers in range(6, 16):
        pages = _table_pages(body_rows, fillers)
        rows_per_page = [sum(f"row{n:02d}" in text for n in range(body_rows)) for text in pages]
        assert sum(rows_per_page) == body_rows
        printed = [(text, rows) for text, rows in zip(pages, rows_per_page) if rows]
        assert "The table" in printed[0][0], f"the table's heading is left without it ({fillers} fillers)"
        for text, rows in printed:
            assert rows >= 2 and "Head one" in text, f"{fillers} fillers, rows per page: {rows_per_page}"
        splits += len(printed) > 1
    assert splits if body_rows >= 6 else not splits, f"the {body_rows}-row table split {splits} times"


def test_a_heading_keeps_the_first_lines_of_its_paragraph_not_all_of_it():
    """A heading at a page's foot moved to the next page with all of the long paragraph after it, leaving the
    page above part blank: it now keeps that paragraph's first two lines at least, the rest going on."""
    words = " ".join(f"w{n:03d}" for n in range(150))  # about eight lines
    splits = 0
    for fillers in range(8):
        filler = "".join(f"Filler paragraph number {n} of the book.\n\n" for n in range(fillers))
        pages = _pages(f"# Rules\n\n{filler}## The heading\n\n{words}\n\nThe end.\n")
        lines = [sum(1 for line in text.splitlines() if "w0" in line or "w1" in line) for text in pages]
        at = max(i for i, text in enumerate(pages) if "The heading" in text)  # after the contents
        assert lines[at] >= 2, f"the heading ends page {at + 1} ({fillers} fillers): lines per page {lines}"
        splits += "Filler" in pages[at] and sum(1 for n in lines if n) > 1  # split where it fell, not moved
    assert splits


def test_a_numbered_list_from_0_is_numbered_from_0():
    """markdown-it writes a list's start only when it is not 1: a list from 0 was printed from 1."""
    text = " ".join(" ".join(_pages("# Rules\n\n0. zero\n1. one\n\nThen:\n\n7. seven\n")).split())
    assert "0. zero 1. one" in text and "7. seven" in text  # (a list from 7 was already right)


def test_a_backslash_before_a_star_prints_as_a_backslash():
    """A heading ending in '\\' escaped the star of the contents' '**...**' around it (the contents printed
    'Head *' and the rest bold), and `x\\` before *y* printed 'x*y*'."""
    text = " ".join(" ".join(_pages("# Head \\\\\n\nEnds `x\\`*y* and C:\\\\Games\\\\ here.\n")).split())
    assert text.count("Head \\") == 2 and "Head *" not in text  # in the contents and on its page
    assert "Ends x\\y and C:\\Games\\ here." in text


def test_the_title_page_prints_game_yaml_as_written():
    """A star in the title made the title page's rest italic (the footer printed it, as game.yaml writes it)."""
    fonts = _fonts()
    content = BookContent(title="Super*Star", markdown="# Rules\n", subtitle="C:\\\\", facts="2*3 players",
                          credits=[("Design", "A*B")])
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=PAPER, invariant=1)
    Book(content, fonts, (210 * MM, 297 * MM), lambda src, width: None, lambda *args: None).draw(canvas)
    canvas.save()
    text = PdfReader(io.BytesIO(out.getvalue())).pages[0].extract_text()
    assert [line.strip() for line in text.split("\n")[:4]] == ["Super*Star", "C:\\\\", "2*3 players", "Design: A*B"]


def _book_text_and_icons(content) -> tuple[str, list[str]]:
    """The words of the book `content` makes on A4, spaces made single, and the names of the icons it drew."""
    drawn: list[str] = []
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(210 * MM, 297 * MM), invariant=1)
    Book(content, _fonts(), (210 * MM, 297 * MM), lambda src, width: None,
         lambda canvas, name, *rest: drawn.append(name)).draw(canvas)
    canvas.save()
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages).split()), drawn


def test_icon_and_term_markers_print_as_typed_in_code_and_on_the_title_page():
    """`:star:` in a code span drew an icon (so did '\\:star:', and '&colon;zzz&colon;' an unknown one: nothing),
    and a title ':star: Wars [[X]]' an icon and a bold 'X' on the title page beside a footer printing it as
    typed; in text, :star: is still an icon."""
    text, drawn = _book_text_and_icons(BookContent(
        title="Mini :star: Wars [[X]]", credits=[("Design", "A :zzz: B")],
        markdown="# Rules\n\nType `:star: [[Y]]` or \\:star: or &colon;zzz&#58; for :star:.\n"))
    assert text.startswith("Mini :star: Wars [[X]]") and "Design: A :zzz: B" in text
    assert "Type :star: [[Y]] or :star: or :zzz: for ." in text
    assert drawn == ["star"]  # the one in text, in the one pass that draws


def test_a_list_item_that_begins_with_a_picture_is_numbered():
    """An item whose paragraph began with a picture printed the picture, then its text without the number:
    the steps read '2.', '4.'."""
    drawn = []

    def picture(src, title):
        return (lambda canvas: drawn.append(src)), (60 * MM, 20 * MM), True

    book = Book(BookContent(title="Test", markdown="# Rules\n\n1. ![a](component:x)\n2. Two.\n3. ![b](component:y) "
                                                  "Three.\n"), _fonts(), (210 * MM, 297 * MM), picture,
                lambda *args: None)
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(210 * MM, 297 * MM), invariant=1)
    book.draw(canvas)
    canvas.save()
    text = " ".join(PdfReader(io.BytesIO(out.getvalue())).pages[2].extract_text().split())
    assert drawn == ["component:x", "component:y"]
    assert text.startswith("Rules 1. a 2. Two. 3. b Three."), text


def test_a_tab_or_carriage_return_prints_as_a_space():
    """A tab between words (in the text, in a **bold** run, in a plain one-line text) printed as the font's
    missing-character box, with exit 0: it is a space between words, as Markdown reads it."""
    text = "".join(_pages("# Rules\n\nA\ttabbed\tword, **bold\ttab** and a CR\rhere.\n\n- one\tword\n"))
    assert "\t" not in text and "\r" not in text
    said = " ".join(text.split())
    assert "A tabbed word, bold tab and a CR here." in said and "one word" in said


def test_an_entity_writing_a_line_break_prints_a_space():
    """'&#10;' or '&NewLine;' between words broke the line there, with exit 0: Markdown (as HTML) reads the line
    break an entity writes as a space between words, as it does one typed."""
    text = "".join(_pages("# Rules\n\nAlpha&#10;beta&NewLine;gamma&#13;delta.\n"))
    assert "Alpha beta gamma delta." in text


def test_a_soft_hyphen_prints_nothing():
    """A soft hyphen (U+00AD) printed as a hyphen mid-line ('extra-ordinary'), in text, a glossary term, a
    heading and the page footer, with exit 0: pnp never hyphenates, so it prints nothing."""
    fonts = _fonts()
    content = BookContent(title="Dino\u00adsaur", markdown="# Head\u00ading\n\nAn extra\u00adordinary "
                          "[[Ter\u00adm]] and a plain one, un\u00adusual.\n")
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=PAPER, invariant=1)
    Book(content, fonts, (210 * MM, 297 * MM), lambda src, width: None, lambda *args: None).draw(canvas)
    canvas.save()
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages)
    assert "\u00ad" not in text and "-" not in text
    said = " ".join(text.split())
    assert "An extraordinary Term and a plain one, unusual." in said and said.count("Heading") == 2
    assert "Dinosaur · 3" in said


def test_a_soft_hyphen_is_not_printed_in_a_sheets_footer():
    """The footer of every sheet outside the rulebook (cards, tokens, boards, tuckboxes, dice) printed a title's
    or a component's soft hyphen as a hyphen, with exit 0."""
    from pnp.draw.sheet import footer

    out = io.BytesIO()
    canvas = Canvas(out, pagesize=PAPER, invariant=1)
    footer(canvas, _fonts(), PAPER, "Dino\u00adsaur · Dino\u00adcards · sheet 1 of 1")
    canvas.save()
    text = PdfReader(io.BytesIO(out.getvalue())).pages[0].extract_text()
    assert "Dinosaur · Dinocards · sheet 1 of 1" in text and "\u00ad" not in text


def test_a_glossary_term_prints_its_name_as_written():
    """Markdown read the '*' of a term named 'Fast*Strike' as emphasis: the paragraph printed '**' as typed and
    lost the term's bold, and a table's cell printed 'Fast\\*Strike'."""
    from pnp.draw.book import parse

    markdown = "# Rules\n\nUse [[Fast*Strike]] and **[[Fast*Strike]]**.\n\n| Term |\n|---|\n| [[Fast*Strike]] |\n"
    paragraph = parse(markdown)[4].children
    assert [t.type for t in paragraph][:3] == ["text", "term", "text"] and paragraph[1].content == "Fast*Strike"
    text = " ".join(" ".join(_pages(markdown)).split())
    assert "Use Fast*Strike and Fast*Strike." in text and text.count("Fast*Strike") == 3 and "\\" not in text


def test_pictures_left_as_typed_are_found_in_one_reading_of_the_text():
    """A picture or footnote Markdown left as typed is found as the regular expression it replaces found it,
    reading the text once: a line of 70,000 '![' (no ']') took minutes, each '![' scanning the rest."""
    from pnp.draw.book import _left_as_typed

    assert _left_as_typed("![" * 4000 + " x") is None
    assert _left_as_typed("[^" * 4000 + " x") is None
    assert _left_as_typed("a ![b [c] d] e ![f][g]h i") == "![f][g]h"
    assert _left_as_typed("![x](y z [^1]") == "![x](y"
    assert _left_as_typed("a [^] [^1]. b ![c]\n(d)") == "[^1]."
    assert _left_as_typed("see ![The deck][deck], then") == "![The deck][deck],"


def test_pages_foreseen_count_the_contents_title_page_and_credits():
    """Validation counts the pages the build prints against the kit's page limit: a book of 300 headings and 300
    credited roles was foreseen at 26 pages (the contents, title page and credits counted one page each) and
    printed 45, so validate said ok of a kit the build refused for its pages."""
    headings = "".join(f"# Heading {n}\n\nText.\n\n" for n in range(150))
    content = BookContent(title="Test", markdown=headings, credits=[(f"Role {n}", "Someone") for n in range(150)],
                          fonts_line="**Fonts:** none.", note="A note.")
    book = Book(content, _fonts(), PAPER, lambda src, width: None, lambda *args: None)
    assert not book.problems()
    foreseen = book.pages_foreseen()
    assert foreseen > 12
    assert foreseen == book.draw(Canvas(io.BytesIO(), pagesize=PAPER))


def test_an_address_in_angle_brackets_prints_as_typed_and_names_no_icon_or_term(tmp_path):
    """Markdown links an address written `<https://...>` and prints it as it is: ':star:' in one drew the icon,
    and validate refused `<urn:isbn:0451450523>` as naming the unknown icon ':isbn:' (and '[[Nope]]' in one as
    an undefined term)."""
    text, drawn = _book_text_and_icons(BookContent(title="Test", markdown="# Rules\n\nSee <https://example.com/a:star:b> "
                                                                   "or <urn:isbn:0451450523>, then :star:.\n"))
    assert "See https://example.com/a:star:b or urn:isbn:0451450523, then ." in text
    assert drawn == ["star"]  # the one in text
    root = make_project(tmp_path / "proj", {"layouts/mini/rulebook.md.j2": "# Rules\n\nSee <urn:isbn:0451450523> "
                                            "and <https://example.com/[[Nope]]>.\n"})
    result = run(root, "validate", "mini")
    assert result.exit_code == 0, result.output


def _printed(markdown: str) -> str:
    """The words a rulebook of `markdown` prints, spaces made single."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=PAPER, invariant=1)
    Book(BookContent(title="Test", markdown=markdown), _fonts(), PAPER, lambda src, width: None,
         lambda *args: None).draw(canvas)
    canvas.save()
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages).split())


@pytest.mark.parametrize("words", ["[[Roar]]", "a [[Roar]]", "[[Roar]] b"])
def test_a_link_whose_words_hold_a_term_prints_its_words(words):
    """Markdown took the glossary term that opens with '[' for a link inside the link's words, and so read no
    link: '[[[Roar]]](http://x)' printed '[Roar](http://x)', its markup, with exit 0."""
    printed = _printed(f"# Rules\n\nSee [{words}](http://x) now.\n")
    assert f"See {words.replace('[[', '').replace(']]', '')} now." in printed
    assert "http" not in printed


def _lefts(markdown: str) -> dict[str, float]:
    """Where each word a rulebook of `markdown` prints begins, from the page's left edge (the first time)."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=PAPER, invariant=1)
    Book(BookContent(title="Test", markdown=markdown), _fonts(), PAPER, lambda src, width: None,
         lambda *args: None).draw(canvas)
    canvas.save()
    lefts: dict[str, float] = {}
    for page in PdfReader(io.BytesIO(out.getvalue())).pages:
        page.extract_text(visitor_text=lambda text, cm, tm, *rest: lefts.setdefault(
            text.strip().split(" ")[0], tm[4] * cm[0] + cm[4]) if text.strip() else None)
    return lefts


def test_a_table_or_tip_inside_a_list_item_is_set_in_the_items_column():
    """A table or a tip after a list item's first paragraph printed at the page's margin, apart from the step
    it belongs to (a paragraph there was set in the item's column); a long table runs on over pages there."""
    rows = "".join(f"   | r{i} | v{i} |\n" for i in range(80))
    lefts = _lefts(f"# Rules\n\n1. Stepword\n\n   | Head | More |\n   |---|---|\n{rows}\n"
                   "   > Tipword here\n\n   Afterword\n\n2. Second\n\nMarginword\n\n| Mhead | x |\n|---|---|\n"
                   "| 1 | 2 |\n\n> Mtip\n")
    step, margin = lefts["Stepword"], lefts["Marginword"]
    assert margin < step - 10 and abs(lefts["Afterword"] - step) < 1
    padding = lefts["Mhead"] - margin  # a cell's text from its table's left, and a tip's from its box's
    assert all(abs(lefts[word] - step - padding) < 1 for word in ("Head", "r0", "r79"))
    assert abs(lefts["Tipword"] - step - (lefts["Mtip"] - margin)) < 1


def test_a_heading_inside_a_list_item_is_refused_at_its_line(tmp_path):
    """A heading after a list item's first paragraph printed at the page's margin, and the contents listed it
    as a section of the rules."""
    root = make_project(tmp_path / "proj", {"layouts/mini/rulebook.md.j2": "# Rules\n\n1. Step\n\n   ## Inside\n\n"
                                            "2. Next\n"})
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert result.output.startswith("layouts/mini/rulebook.md.j2:5:1: error: a heading inside a list item would "
                                    "print at the page's margin")


def _words(markdown: str) -> list[dict]:
    """pdfplumber's words of the book of `markdown` on A4 (text, x0, x1, top, fontname), pictures drawn as
    nothing, and the names of the icons it drew."""
    import pdfplumber

    drawn: list[str] = []
    book = Book(BookContent(title="Test", markdown=markdown), _fonts(), (210 * MM, 297 * MM),
                lambda src, width: ((lambda canvas: None), (60 * MM, 20 * MM), True),
                lambda canvas, name, *rest: drawn.append(name))
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(210 * MM, 297 * MM), invariant=1)
    book.draw(canvas)
    canvas.save()
    with pdfplumber.open(io.BytesIO(out.getvalue())) as pdf:
        words = [w for page in pdf.pages for w in page.extract_words(extra_attrs=["fontname"])]
    return words + [{"text": f"icon:{name}"} for name in drawn]


@functools.cache
def _marked_up_book() -> list[dict]:
    """One book of the markup read below: a caption, bold in a heading and a table header, aligned columns."""
    return _words("# Setup **now** here\n\n![Type `:star:` or \\:star: or &colon;zzz&colon; **Boldcap**](component:x)\n\n"
                  "1) Firststep\n2) Secondstep\n\n| Name | **Strong** | Mid |\n|:--|--:|:-:|\n| Lion | 4 | x |\n"
                  "| Fern | 12345 | yyyyyyyyyyyy |\n")


def test_a_captions_code_escape_and_entity_print_as_typed():
    """A picture's caption was its words joined with no regard to how Markdown read them: `:star:` in a code span
    drew the icon, and '&colon;zzz&colon;' an unknown one (nothing), with exit 0; its bold printed as italic."""
    words = _marked_up_book()
    caption = " ".join(w["text"] for w in words if w["text"] in (":star:", ":zzz:", "Type", "or", "Boldcap"))
    assert caption == "Type :star: or :star: or :zzz: Boldcap"
    assert not [w for w in words if w["text"].startswith("icon:")]
    assert next(w for w in words if w["text"] == "Boldcap")["fontname"].endswith("BoldIt")


def test_bold_words_stay_bold_in_the_contents_and_a_table_header():
    """The contents set a level-1 heading in bold by wrapping it in '**', as a table its header cells: a word in
    bold inside turned bold off, and printed in the regular face there."""
    words = _marked_up_book()
    assert [w["fontname"].endswith("Bold") for w in words if w["text"] in ("Setup", "now", "here")][:3] == [True] * 3
    assert next(w for w in words if w["text"] == "Strong")["fontname"].endswith("Bold")


def test_a_list_numbered_with_parentheses_prints_them():
    """A list numbered '1)', '2)' printed '1.', '2.'."""
    words = {w["text"]: w for w in _marked_up_book()}
    assert "1)" in words and "2)" in words and "1." not in words


def test_a_tables_columns_are_aligned_as_its_row_of_dashes_says():
    """Every table cell was set on the left whatever its column's row of dashes said ('--:' right, ':-:'
    centred): a column of numbers written right-aligned printed ragged."""
    words = {w["text"]: w for w in _marked_up_book()}
    assert abs(words["4"]["x1"] - words["12345"]["x1"]) < 0.5 and words["4"]["x0"] > words["12345"]["x0"] + 5
    middle = (words["yyyyyyyyyyyy"]["x0"] + words["yyyyyyyyyyyy"]["x1"]) / 2
    assert abs((words["x"]["x0"] + words["x"]["x1"]) / 2 - middle) < 0.5
    assert abs(words["Lion"]["x0"] - words["Fern"]["x0"]) < 0.5


def test_emphasis_markers_that_meet_keep_their_meaning():
    """A picture taken out of its paragraph's text left the stars around it side by side: '*![a](x)* and more'
    printed 'and more' in bold, as '*a*[*b*](x)' did the link's words and the rest."""
    fonts = {w["text"]: w["fontname"].split("-")[-1] for w in _words(
        "# Rules\n\n*![a](component:x)* and plainword more.\n\n*italicword*[*linkword*](http://x) plainafter.\n")}
    assert (fonts["plainword"], fonts["plainafter."]) == ("Regular", "Regular")
    assert fonts["italicwordlinkword"] == "It"  # (one word: nothing between them)


def test_emphasis_inside_emphasis_of_its_kind_keeps_it():
    """Markdown prints '**a **b** c**' all in bold and '*a *b* c*' all in italic; the inner markers turned pnp's
    bold or italic off, and the inner word printed in the regular face with exit 0."""
    fonts = {w["text"]: w["fontname"].split("-")[-1] for w in _words(
        "# Rules\n\n**Note: **boldinner** boldafter** plainword\n\n*See *italicinner* italicafter* plainend\n\n"
        "****fourstars****\n")}
    assert (fonts["boldinner"], fonts["boldafter"], fonts["plainword"]) == ("Bold", "Bold", "Regular")
    assert (fonts["italicinner"], fonts["italicafter"], fonts["plainend"]) == ("It", "It", "Regular")
    assert fonts["fourstars"] == "Bold"


def _horizontal_rules(markdown: str) -> list[float]:
    """The lengths of the horizontal lines a rulebook of `markdown` strokes, page by page in order."""
    from pypdf.generic import ContentStream
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=PAPER, invariant=1)
    Book(BookContent(title="Test", markdown=markdown), _fonts(), PAPER, lambda src, width: None,
         lambda *args: None).draw(canvas)
    canvas.save()
    reader = PdfReader(io.BytesIO(out.getvalue()))
    lengths = []
    for page in reader.pages:
        ops = ContentStream(page.get_contents(), reader).operations
        for k, (args, op) in enumerate(ops):
            if op == b"l" and k and ops[k - 1][1] == b"m" and float(ops[k - 1][0][1]) == float(args[1]):
                lengths.append(round(float(args[0]) - float(ops[k - 1][0][0]), 1))
    return lengths


def test_a_thematic_break_prints_a_rule_across_its_column():
    """Markdown's thematic break (`---`, `***`, `___` on a line) printed only a gap, at the page's text, in a
    list item and in a tip alike: it is a thin rule across the column it stands in."""
    lengths = _horizontal_rules("# Rules\n\nAbove\n\n---\n\nBelow\n\n1. Step\n\n   ***\n\n   More\n\n"
                                "> Tip\n>\n> ___\n>\n> more\n")
    text = PAPER[0] - 2 * 18 * MM
    assert len(lengths) == 3
    assert abs(lengths[0] - text) < 1  # across the page's text
    assert text - 40 < lengths[1] < text - 5 and text - 40 < lengths[2] < text - 5  # the item's, the tip's


def test_a_paragraphs_words_and_pictures_print_in_the_order_written():
    """A paragraph's pictures printed before all its words: 'As shown: ![x](...)' printed the picture, then 'As
    shown:', and words between two pictures after both. Pictures no words part stand side by side; italic open
    across a picture goes on after it."""
    def picture(src, title):
        return (lambda canvas: canvas.drawString(0, 0, f"PIC{src[-1]}")), (40 * MM, 20 * MM), True

    book = Book(BookContent(title="Test", markdown="# Rules\n\n*Shown ![a](component:x) ![b](component:y) then* "
                                                  "![c](component:z) last.\n\n1. Step ![d](component:w) after\n"),
                _fonts(), (210 * MM, 297 * MM), picture, lambda *args: None)
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(210 * MM, 297 * MM), invariant=1)
    book.draw(canvas)
    canvas.save()
    faces: dict[str, str] = {}
    page = PdfReader(io.BytesIO(out.getvalue())).pages[2]
    text = " ".join(page.extract_text(visitor_text=lambda t, cm, tm, font, size: faces.setdefault(
        t.strip(), str(font.get("/BaseFont")) if font else "") if t.strip() else None).split())
    assert text.startswith("Rules Shown PICx a PICy b then PICz c last. 1. Step PICw d after"), text
    assert faces["then"].endswith("-It") and not faces["last."].endswith("-It"), faces


def test_a_number_written_where_a_text_is_read_prints_as_written(tmp_path):
    """YAML reads `version: 1.10` as the number 1.1, and the rulebook printed 'Version 1.1' (a subtitle 2.50 as
    2.5, a credit 1_000 as 1000, an anchored number through its alias too; a card layout's `text: 1.10` 1.1),
    exit 0: game.yaml's texts, a component's name and a layout's text print the number as the file writes it. A
    table's field of numbers, and a layout's size, still read the number."""
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [["title: Mini Game\n", "title: Mini Game\nversion: &v 1.10\nsubtitle: 2.50\n"
                                                         "description: *v\n"],
                                 ["design: Test Designer", "design: 1_000"],
                                 ["name: Rulebook", "name: 0x1F"]],
        "layouts/mini/rulebook.md.j2": [["# How to play\n", "# How to play\n\nV{{ game.version }} {{ game.description }}"
                                                             " {{ components[0].name }} {{ data.cards[0].power }}\n"]],
        "cards/mini/cards.yaml": [["power: 4", "power: 4_0"]]}})
    (root / "cards/mini/game.yaml").write_text((root / "cards/mini/game.yaml").read_text()
                                                .replace("max: 5}", "max: 50}"))
    with (root / "layouts/mini/card.yaml").open("a") as card:  # a layout's text too, in a style or not
        card.write("  - {type: text, x: 5, y: 60, w: 53, h: 10, text: 1.10}\n"
                   "  - {type: text, x: 5, y: 70, w: 53, h: 10, text: 2_0, size: 9.0}\n"
                   "  - {type: text, x: 5, y: 50, w: 53, h: 10, text: 404}\n")  # (as typed: no quotes needed)
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    pages = PdfReader(root / "output/mini/mini-rulebook-a4.pdf").pages
    text = " ".join(" ".join(page.extract_text() for page in pages).split())
    assert "2.50" in text and "Design: 1_000" in text
    assert "V1.10 1.10 0x1F 40" in text
    card = PdfReader(root / "output/mini/mini-cards-a4.pdf").pages[0].extract_text().split()
    assert card.count("1.10") == card.count("2_0") == card.count("404") == 4, card


def test_unused_reference_lines_are_placed_among_the_blocks_in_one_pass():
    """Each `[name]: text` line nothing uses becomes a block of its own before the first block below it: found
    by a search of every token and an insert for each such line, 5,900 paragraphs then 11,000 of those lines
    took over 60 s to read (validate); each token's place is now read a bounded number of times."""
    from pnp.draw import book

    assert [t.type for t in book.parse("p\n\n[a]: x\n\nq\n\n[b]: y\n") if t.level == 0] == \
        ["paragraph_open", "paragraph_close", "reference", "paragraph_open", "paragraph_close", "reference"]
    reads = 0

    class Block:
        """A top-level block token that counts the reads of its lines."""
        type, level, children = "paragraph_open", 0, None

        def __init__(self, line):
            self.lines = [line, line + 1]

        @property
        def map(self):
            nonlocal reads
            reads += 1
            return self.lines

    tokens = [Block(2 * n) for n in range(2000)]
    references = {f"r{n}": {"map": [4000 + n, 4001 + n], "href": f"x{n}"} for n in range(2000)}
    merged = book._with_unused_references(tokens, references)
    assert [t.type for t in merged] == ["paragraph_open"] * 2000 + ["reference"] * 2000
    assert reads <= 3 * (2000 + 2000)


def test_underscores_print_as_typed_as_on_a_card():
    """Markdown read '_' as emphasis, which a card never does: a card named '_Li_' printed '_Li_' on the card
    and an italic 'Li' where the rulebook's template printed its name (`| as_typed` too). Only stars are bold or
    italic in the book, as on a card."""
    fonts = {w["text"]: w["fontname"].split("-")[-1] for w in _words(
        "# Rules\n\nThe _Li_ card, __Big__ and *italicword* or **boldword**.\n")}
    assert (fonts["_Li_"], fonts["__Big__"]) == ("Regular", "Regular")
    assert (fonts["italicword"], fonts["boldword"]) == ("It", "Bold")


def test_a_value_as_typed_prints_in_the_book_as_on_a_card():
    """`| as_typed` escaped only what a card reads: a card named 'R&amp;D `x`' printed so on the card and 'R&D x'
    in the rulebook (its entity and code span read), and a value at a line's start made a heading, a list, a
    quote or a rule of it. Whatever Markdown reads is escaped in the rulebook, a line break kept."""
    from pnp import template
    values = ["R&amp;D `x` a\\_b <b>c</b> <https://d.e> ~~f~~ [g](h) ![i](component:j) :star: [[K]] *l*",
              "# Head", "- item", "1. one", "2) two", "> quote", "| a | b |", "---", "===", "    indented",
              "&#42; &copy; x\\"]
    source = "".join(f"{{{{ values[{n}] | as_typed }}}}\n\nText {{{{ values[{n}] | as_typed }}}} end\n\n"
                     for n in range(len(values)))
    markdown = template.render(source, {"values": values}, markup=True)
    text, drawn = _book_text_and_icons(BookContent(title="T", markdown="# Rules\n\n" + markdown))
    expected = " ".join(f"{value.strip()} Text {value.strip()} end" for value in values)
    assert f"Rules {expected} Credits" in text and drawn == []
    pages = _pages("# Rules\n\n" + template.render("{{ v | as_typed }}\n", {"v": "one\ntwo"}, markup=True))
    assert "one\ntwo" in "\n".join(pages)  # (a line break, as on a card, not a space)


def test_a_text_of_the_data_prints_in_the_book_as_on_a_card():
    """A glossary term's text 'R&amp;D `x` <br>' printed on the player aid as typed and in the rulebook, where the
    template printed it (`{{ keyword(t).text }}`), as 'R&D x' and a line break, exit 0: a text of the data prints in
    the book as on a card, its stars, icons and terms read, what only Markdown reads escaped; a text the
    template makes is its Markdown."""
    from pnp import template
    from pnp.model.load import Record
    card = Record({"text": "R&amp;D `x` <br> a_b_ [g](h) | ~~f~~ **bold** :star:", "head": "# Head", "n": "1. one"})
    source = "# Rules\n\n{{ card.text }}\n\n{{ card['head'] }} {{ card.n }} {{ {'m': '&amp;'}['m'] }}\n"
    markdown = template.render(source, {"card": card}, markup=True)
    text, drawn = _book_text_and_icons(BookContent(title="T", markdown=markdown))
    assert "Rules R&amp;D `x` <br> a_b_ [g](h) | ~~f~~ bold # Head 1. one & Credits" in text and drawn == ["star"]
    assert template._card_text_markdown("[[Fast(er)]] (x) [y](z) a_b\nc") == "[[Fast(er)]] (x) [y]\\(z) a_b<br>c"
    card = Record({"text": "a \\# b \\* \\\\ c\\"})  # (backslashes a card prints as typed, and its escapes)
    markdown = template.render("# Rules\n\n{{ card.text }}\n**d**\n", {"card": card}, markup=True)
    assert "Rules a \\# b * \\ c\\ d Credits" in _book_text_and_icons(BookContent(title="T", markdown=markdown))[0]


def test_a_text_of_the_data_changed_by_a_filter_or_joined_prints_in_the_book_as_on_a_card():
    """`{{ card.text | trim }}`, `| replace`, `| upper`, `card.get('text')`, `| join`, `[:9]` and `'(' ~ card.text` printed
    a card's 'R&amp;D `x` [g](h)' in the rulebook as Markdown read it ('R&D x' and a link), exit 0: a text filter's
    result is still the data's text, and join and `~` print each text of the data so (the template's own text its
    Markdown)."""
    from pnp import template
    from pnp.model.load import Record
    text = "R&amp;D `x` [g](h) a|b"
    card = Record({"text": text})
    source = ("{{ card.text | trim }}\n{{ card.get('text') }}\n{{ card.text | replace('R', 'Q') }}\n"
              "{{ card.text | upper }}\n{{ [card, card] | join(' **|** ', attribute='text') }}\n"
              "{{ [card.text] | join }}\n{{ {'t': text}.get('t') | trim }}\n{{ card.text[:9] }}\n{{ card.text[0] }}\n"
              "{% set xs = [text] %}{{ xs[0] }}\n{{ ('*', text)[1] }}")
    printed = template._card_text_markdown
    assert template.render(source, {"card": card, "text": text}, markup=True).split("\n") == [
        printed(text), printed(text), printed(text.replace("R", "Q")), printed(text.upper()),
        f"{printed(text)} **|** {printed(text)}", printed(text), text, printed(text[:9]), printed(text[0]),
        text, text]  # (a list or a tuple the template made holds its own text, as its dict did)
    # joined with `~` or `+` to the template's own text: printed so, and compared as the text it is
    source = ("{% set t = '(' ~ card.text ~ ') **b**' %}{{ t }}\n{{ '(' + card.text + ') **b**' }}\n"
              "{{ t == '(' ~ text ~ ') **b**' }}\n{{ [t, '*c*'] | join(', ') }}\n{{ 1 ~ card.text }}\n"
              "{{ ('a&b' | e) + '<i>' }}\n{{ card.text * 2 }}\n{{ 2 * ('(' ~ card.text) }}")
    assert template.render(source, {"card": card, "text": text}, markup=True).split("\n") == [
        f"({printed(text)}) **b**", f"({printed(text)}) **b**", "True", f"({printed(text)}) **b**, *c*",
        f"1{printed(text)}", "a&amp;b&lt;i&gt;",  # (Markup's own + kept: it escapes what it is given)
        printed(text) * 2, f"({printed(text)}" * 2]  # (repeated, it printed 'R&D x' twice)


def test_a_value_as_typed_keeps_its_line_breaks_inside_a_heading_and_a_table_row():
    """`| as_typed` wrote a line break as Markdown's hard break, a backslash ending the line: in a heading it
    printed 'Roars\\' and the rest as a paragraph, and it split a table's row, with exit 0. A break is a space
    in a heading (and the contents) and a line break in a cell or paragraph, as on a card."""
    from pnp import template
    source = ("# Rules\n\n## {{ v | as_typed }} end\n\n| Name | Text |\n|---|---|\n| Lion | {{ v | as_typed }} |\n"
              "| Fern | {{ w | as_typed }} |\n\nSay {{ v | as_typed }}.\n")
    markdown = template.render(source, {"v": "Roars\nloudly", "w": "\n  two\r\nthree\n"}, markup=True)
    text = "\n".join(_pages(markdown))
    assert "\\" not in text and "Contents\nRules 4\n Roars loudly end 4\n" in text
    assert " ".join(text.split()).count("Rules Roars loudly end Name Text Lion Roars loudly Fern two three") == 1
    assert "Roars\nloudly\nFern" in text and "Say Roars\nloudly." in text  # (the breaks kept)


def test_escaped_brackets_are_text_not_brackets_left_open():
    """A paragraph of 700 '\\[' (as `| as_typed` writes a value of 700 '[') was refused as brackets left open,
    'write '\\[' for a '[' of text', though it was: Markdown reads an escape as text, quickly."""
    from pnp.draw.book import _reading_cost
    assert _reading_cost("\\[" * 700 + " word" * 600) == ""
    assert "stay open" in _reading_cost("\\\\[" * 700 + " word" * 600)  # (an escaped backslash, then a '[')


@pytest.mark.parametrize("blocks", [lambda n: "- a\n" * (n + 500), lambda n: "|a|\n|-|\n" + "a\n" * (n + 500),
                                    lambda n: "|a|\n|-|\n\n" * (n // 3), lambda n: "[a]: x\n" * (n + 500)])
def test_markdown_past_the_blocks_is_read_no_further(blocks, monkeypatch):
    """Markdown of more blocks than the rulebook holds is refused at the block past the limit, and the lines
    after it are read as none: markdown-it read on, and a list of 37,000 items, a table of 74,000 rows (150,000
    characters, what a rulebook may render) took 10 s to be refused; 80,000 link targets ('[a]: x', which make
    no token), 13 s."""
    from pnp.draw import book

    monkeypatch.setattr(book, "MAX_BLOCKS", 3000)  # (the mechanism, at a tenth of the cost of the book's own)
    tokens = book.parse(blocks(book.MAX_BLOCKS))
    refused = book._too_many_blocks(tokens)
    assert refused is not None and refused.line is not None
    assert "rows" in refused.message  # (a one-column table's 3,000 cells are past it: it counts their rows)
    assert refused.line <= book.MAX_BLOCKS + 3  # the block past the limit, as a full reading finds it
    assert len(tokens) < 3 * book.MAX_BLOCKS  # (each item read: five tokens a block)


def test_pictures_past_the_books_limit_are_refused_at_the_line_of_the_first_too_many(monkeypatch):
    """A picture named by reference is six characters ('![][r]'): 150,000 of them, a template of 944 bytes,
    took 19 s to validate and 48 s to build. The book reads one past MAX_PICTURES (one in another's caption
    counted) and refuses it at its line; the rest of its paragraph, and every later '![', is text, unread."""
    from pnp.draw import book

    monkeypatch.setattr(book, "MAX_PICTURES", 20)
    fits = "[r]: component:deck/a\n\n" + "\n\n".join(["![][r] ![a ![b](x)](y)"] * 6)  # 18 pictures
    assert book._too_many_blocks(book.parse(fits)) is None
    markdown = fits + "\n\n![][r] ![][r]\n![][r] ![][r]\n\n" + "![][r]" * 5000
    tokens = book.parse(markdown)
    refused = book._too_many_blocks(tokens)
    assert refused is not None and refused.line == 16  # the 21st picture: the paragraph's second line
    assert sum(book._pictures_within(t.children or []) for t in tokens if t.type == "inline") == 21


def test_pieces_of_text_past_the_books_limit_are_refused_at_their_paragraph_and_the_rest_unread(monkeypatch):
    """'*a* ' written 125,000 times (1,000,000 characters, 495,000 pieces of text) took 18.6 s to build where as
    many characters of words took 5.6 s: the book refuses the paragraph past MAX_INLINE_PIECES at its line, and
    reads the paragraphs after it as none."""
    from pnp.draw import book

    monkeypatch.setattr(book, "MAX_INLINE_PIECES", 100)
    words = "\n\n".join(["plain words " * 50] * 90)  # a piece a paragraph: 90
    assert book._too_many_blocks(book.parse(words)) is None
    tokens = book.parse("\n\n".join(["*a* " * 10] * 50))  # 39 pieces a paragraph: the third is past
    refused = book._too_many_blocks(tokens)
    assert refused is not None and refused.line == 5
    assert [len(t.children or []) for t in tokens if t.type == "inline"][2:5] == [39, 0, 0]


def test_costly_blocks_past_the_books_limit_are_refused_at_the_first_too_many(monkeypatch):
    """Seven tables of 990 one-column rows (13,860 blocks, under MAX_BLOCKS) took 11.3 s to build, 7,000 list
    items 13.3 s, 7,000 tips 12.6 s: the book holds MAX_COSTLY_BLOCKS of them together, a header's row counted."""
    from pnp.draw import book

    monkeypatch.setattr(book, "MAX_COSTLY_BLOCKS", 5)
    table = "| a |\n|---|\n| 1 |\n| 2 |"  # three rows
    assert book._too_many_blocks(book.parse(table + "\n\npara\n\npara")) is None
    refused = book._too_many_blocks(book.parse(table + "\n\n" + table))
    assert refused is not None and refused.line == 9 and "table rows" in refused.message
    refused = book._too_many_blocks(book.parse(table + "\n\n- a\n- b\n\n> tip"))
    assert refused is not None and refused.line == 9  # the tip: the sixth


def test_brackets_read_in_the_whole_book_are_held_to_its_allowance():
    """Paragraphs each with its '[' open over just under MAX_OPEN_BRACKETS characters, 1,000,000 characters of
    them, took 11 s to validate: the book reads at most MAX_BOOK_OPEN_BRACKETS in all, and refuses the paragraph
    past it at its line, unread; a book's closed terms and links are read (the shipped ones, about 1,000)."""
    from pnp.draw import book

    paragraph = "[ " * 100 + "word " * 300
    each = book._bracket_span(paragraph)
    assert each <= book.MAX_OPEN_BRACKETS and not book._reading_cost(paragraph)
    past = book.MAX_BOOK_OPEN_BRACKETS // each + 1  # the first paragraph past the allowance
    tokens = book.parse("\n\n".join([paragraph] * (past + 1) + ["A [[Term]] and [a link](x)."]))
    refused = [t.map[0] // 2 for t in tokens if t.type == "inline" and "too_long" in t.meta]
    assert refused == [past - 1, past, past + 1] and "in all" in tokens[3 * past - 2].meta["too_long"]


def test_a_paragraph_is_read_once_and_the_story_set_once_for_each_pass(monkeypatch):
    """The check's story on each paper and the build's passes take a paragraph's reading from its first (14,000
    short paragraphs read afresh in each of five stories spent a third of an 11.5 s build), and the build sets
    its story once for its headings and first pass together, not once more for the headings alone."""
    from pnp.draw import book as book_module

    read, stories = [], []
    monkeypatch.setattr(book_module, "_refuse_picture_in_caption", read.append)
    story = Book.story
    monkeypatch.setattr(Book, "story", lambda self, *a: stories.append(1) or story(self, *a))
    markdown = "# Rules\n\n" + "".join(f"Paragraph {n} :coin: **b**\n\n" for n in range(3))
    tokens = book_module.parse(markdown)
    for paper in (PAPER, (216 * MM, 279 * MM)):  # as the check sets it, on both papers
        Book(BookContent(title="Test", markdown=markdown), _fonts(), paper, lambda src, width: None,
             lambda *args: None, tokens).problems()
    Book(BookContent(title="Test", markdown=markdown), _fonts(), PAPER, lambda src, width: None,
         lambda *args: None, tokens).draw(Canvas(io.BytesIO(), pagesize=PAPER, invariant=1))
    assert len(read) == 3  # each paragraph once
    assert len(stories) == 2 + 2  # the check's two; the build's first pass (its headings too) and its drawing


def test_the_icons_a_parse_draws_are_read_once(monkeypatch):
    """The check asks for the icons drawn with their lines, the report for their names: read once a parse."""
    from pnp.draw import book as book_module

    tokens = book_module.parse("# Rules\n\nA :coin: here.\n\n- and :star: there\n")
    first = book_module.icons_drawn(tokens)
    monkeypatch.setattr(book_module, "_inline", lambda *a: pytest.fail("read again"))
    assert book_module.icons_drawn(tokens) == first == [("coin", 3, range(3, 4)), ("star", 5, range(5, 6))]


def test_a_character_only_the_bold_style_lacks_is_said_of_the_bold_style():
    # Body's bold font without 'Ā', its regular with it: `**Ā**` in the rulebook was said 'not in the font family
    # 'Body'', which the designer's regular Body plainly has
    from pnp.draw.fonts import FontSet, unmapped_message

    fonts = _fonts()
    mixed = FontSet({"Body": {**fonts.families["Body"], "bold": fonts.name("Display", bold=True)}}, {})
    assert (mixed.styles_lacking("Ā", "Body"), mixed.styles_lacking("A", "Body"), fonts.styles_lacking("😀", "Body")) \
        == ("bold", "", "")
    assert unmapped_message("Ā", "Body", "bold").startswith(
        "character U+0100 ('Ā') is not in the bold style of the font family 'Body' (its regular style has it)")
