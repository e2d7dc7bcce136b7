"""Every refusal of the rulebook names the template line that wrote the text at fault, however Jinja made the
Markdown: lines repeated word for word, loops, macros, expressions over several lines, whitespace control,
template lines that write several Markdown lines. Each case is a small rulebook with one fault; `<<` ends a
line where the fault is expected (removed before the rulebook is written)."""

import re

import pytest

from conftest import make_project, run
from pnp.products.rulebook import PRINTED, _blanked

FILLER = "Draw a card.\n\nDraw a card.\n\n- Take one.\n- Take one.\n\n"
# a list 40 deep: markdown-it reads 18 levels of blocks, so the error is at the 10th item (two levels each)
DEEP = "".join("  " * depth + "- deeper" + " <<" * (depth == 9) + "\n" for depth in range(40))

CASES = {
    "icon": "# Rules\n\nSome text.\n\nUse :nosuch: here. <<\n",
    "icon-among-repeated-lines": f"# Rules\n\n{FILLER * 3}Use :nosuch: here. <<\n\n{FILLER * 3}",
    "icon-on-a-repeated-line": f"# Rules\n\n{FILLER}Pay :nosuch:. <<\n\n{FILLER}Pay :nosuch:. <<\n\n{FILLER}",
    "icon-after-a-loop": "# Rules\n\n{% for i in range(5) %}\nDraw a card.\n\n{% endfor %}\nDraw a card.\n\n"
                         "Use :nosuch: here. <<\n",
    "icon-in-a-loop": "# Rules\n\n{% for c in data.cards %}\n- {{ c.name }} pays :nosuch: <<\n{% endfor %}\n"
                      "Draw a card.\n",
    "icon-in-a-loop-on-one-line": "# Rules\n\n{% for c in data.cards %}- {{ c.name }} :nosuch: <<\n{% endfor %}\n"
                                  "Draw a card.\n",
    "icon-in-a-value": "# Rules\n\n{% set cost = ':nosuch:' %}\nDraw a card.\n\nPay {{ cost }}. <<p\n\nDraw a card.\n",
    "icon-in-a-macro-of-macros-j2": "# Rules\n\nDraw a card.\n\n{{ macros.pay(2) }} <<p\n\nDraw a card.\n",
    "icon-in-a-macro-argument": "# Rules\n\nDraw a card.\n\n{{ macros.bold(':nosuch:') }} <<p\n\nDraw a card.\n",
    "icon-in-an-own-macro": "{% macro pay(n) %}Pay {{ n }} :nosuch:.{% endmacro %}\n# Rules\n\nDraw a card.\n\n"
                            "{{ pay(2) }} <<p\n\nDraw a card.\n",
    "icon-after-a-multi-line-expression": "# Rules\n\n{{ 'Draw'\n   ~ ' a card.' }}\n\nDraw a card.\n\n"
                                          "Use :nosuch: here. <<\n",
    "icon-in-a-multi-line-expression": "# Rules\n\nDraw a card.\n\n{{\n  'Use :nosuch: here' ~ <<p\n  '.' }}\n\n"
                                       "Draw a card.\n",
    "icon-after-whitespace-control": "# Rules\n\n{%- if true -%}\n\n\nDraw a card.\n\n{%- endif %}\n\n"
                                     "{%- set x = 1 -%}\n\n\nUse :nosuch: here. <<\n",
    "icon-after-comments": "{#- a comment\n    of two lines -#}\n{#- another -#}\n# Rules\n\nDraw a card.\n\n"
                           "Use :nosuch: here. <<\n",
    "icon-after-a-value-of-several-lines": "# Rules\n\n{{ 'Draw a card.\\n\\nDraw a card.\\n\\n- Take one.' }}\n\n"
                                           "Use :nosuch: here. <<\n",
    "icon-in-a-value-of-several-lines": "# Rules\n\nDraw a card.\n\n{{ 'Draw a card.\\n\\nPay :nosuch:.' }} <<p\n\n"
                                        "Draw a card.\n",
    "icon-after-a-set-block": "# Rules\n\n{% set text %}\nDraw a card.\n\nDraw a card.\n{% endset %}\n{{ text }}\n\n"
                              "Use :nosuch: here. <<\n",
    "icon-in-the-second-line-of-a-paragraph": f"# Rules\n\n{FILLER}Draw a card\nand use :nosuch: here. <<\n",
    "icon-on-a-repeated-line-after-a-loop": "{% for i in range(3) %}\nDraw a card.\n{% endfor %}\n"
                                            f"{FILLER}Pay :nosuch:. <<\n\n{FILLER}Pay :nosuch:. <<\n",
    "picture-after-a-false-if": "# Rules\n\n{% if false %}\n![A thing](component:nosuch)\n\nDraw a card.\n"
                                "{% endif %}\nDraw a card.\n\n![A thing](component:nosuch) <<\n",
    "footnote-after-a-loop": "{% for i in range(3) %}\nDraw a card.[^1] <<\n{% endfor %}\n"
                             f"{FILLER}Draw a card.[^1] <<\n",
    "word-too-long-after-whitespace-control": f"# Rules\n\n{{%- if true -%}}\n\n{FILLER}{{%- endif -%}}\n\n"
                                              f"- one\n  - {'W' * 90} <<\n\n{FILLER}- one\n  - {'W' * 90} <<\n",
    "icon-in-a-filter-block": "# Rules\n\n{% filter lower %} <<p\nDraw a card.\n\nUse :NOSUCH: here.\n"
                              "{% endfilter %}\nDraw a card.\n",
    "icon-in-a-call-block": "# Rules\n\nDraw a card.\n\n{% call macros.tip() %}Use :nosuch: here.{% endcall %} <<p\n"
                            "\nDraw a card.\n",
    "icon-in-a-recursive-loop": "# Rules\n\n{% for n in [1, 2] recursive %} <<p\n- {{ n }} :nosuch:\n"
                                "{% endfor %}\nDraw a card.\n",
    "picture": f"# Rules\n\n{FILLER * 2}![A thing](component:nosuch) <<\n\n{FILLER}",
    "picture-in-a-loop": "# Rules\n\n{% for i in range(2) %}\nDraw a card.\n\n{% endfor %}\n"
                         "![A thing](component:nosuch) <<\n\nDraw a card.\n",
    "footnote": f"# Rules\n\n{FILLER}Draw a card.[^1] <<\n\n{FILLER}",
    # its text on a line of its own: Markdown reads a link's target there, printed '^1' and left the note out
    "footnote-with-its-text": f"# Rules\n\n{FILLER}Draw a card.[^1]\n\n[^1]: Optional. <<\n\n{FILLER}",
    "footnote-in-the-second-line-of-a-paragraph": f"# Rules\n\n{FILLER}Draw a card\nor two.[^1] <<\n\n{FILLER}",
    "word-too-long": f"# Rules\n\n{FILLER * 2}- one\n  - {'W' * 90} <<\n\n{FILLER}",
    "list-40-deep": f"# Rules\n\n{FILLER * 4}{DEEP}",
    "list-40-deep-after-a-loop": "# Rules\n\n{% for i in range(9) %}\n- deeper\n\n{% endfor %}\n" + DEEP,
}
MACROS = ("{% macro pay(n) %}Pay {{ n }} :nosuch:.{% endmacro %}\n{% macro bold(t) %}**{{ t }}**{% endmacro %}\n"
          "{% macro tip() %}> {{ caller() }}{% endmacro %}\n")


def _case(source: str) -> tuple[str, list[tuple[int, bool]]]:
    """The rulebook of a case and the lines its faults are expected at, each with whether the message says
    the text is printed there."""
    lines = source.split("\n")
    expected = [(n, text.endswith("p")) for n, text in enumerate(lines, 1) if re.search(r" <<p?$", text)]
    return "\n".join(re.sub(r" <<p?$", "", text) for text in lines), expected


@pytest.mark.parametrize("case", sorted(CASES))
def test_rulebook_fault_is_said_at_its_template_line(case, tmp_path):
    rulebook, expected = _case(CASES[case])
    root = make_project(tmp_path / "proj", {"layouts/mini/rulebook.md.j2": rulebook,
                                            "layouts/mini/macros.j2": MACROS})
    result = run(root, "validate")
    said = sorted({(int(m[1]), PRINTED in m[2])
                   for m in re.finditer(r"layouts/mini/rulebook\.md\.j2:(\d+):\d+: error: (.*)", result.stderr)})
    assert "Traceback" not in result.output
    assert said == expected, result.stderr


@pytest.mark.parametrize("line_end", ["\r", "\r\n"])
@pytest.mark.parametrize("case", ["icon-after-a-loop", "picture", "footnote-in-the-second-line-of-a-paragraph"])
def test_rulebook_fault_is_said_at_its_line_whatever_the_line_ends(case, line_end, tmp_path):
    """Markdown reads a lone \\r (an old Mac's line end) as a line's end; the line index did not, so every
    message of such a rulebook said line 1."""
    rulebook, expected = _case(CASES[case])
    root = make_project(tmp_path / "proj", {"layouts/mini/rulebook.md.j2": rulebook.replace("\n", line_end)})
    result = run(root, "validate")
    said = sorted({(int(m[1]), PRINTED in m[2])
                   for m in re.finditer(r"layouts/mini/rulebook\.md\.j2:(\d+):\d+: error: (.*)", result.stderr)})
    assert said == expected, result.stderr


def test_code_spans_and_escapes_name_no_icon_or_term(tmp_path):
    """A code span, an escape and an entity print as typed (`:nosuch:`, '\\:nosuch:' are no icons, `[[Nope]]` no
    glossary term): validation refused what the build printed as typed; an unknown icon in the text beside
    them is still said."""
    root = tmp_path / "g"
    make_project(root, {"layouts/mini/rulebook.md.j2": "# Rules\n\nType `:nosuch:` or ``a `[[Nope]]` b`` or "
                                                       "\\:nosuch: or &colon;a&colon;, not :nosuch2:.\n"})
    result = run(root, "validate")
    assert result.exit_code == 1
    assert [line for line in result.stderr.splitlines() if ": error: " in line] == [
        "layouts/mini/rulebook.md.j2:3:1: error: unknown icon ':nosuch2:' in the rendered rulebook line 3"]


def test_link_targets_and_reference_definitions_name_no_icon(tmp_path):
    """What a link or picture points at prints nothing, wherever it is written: a reference definition's target
    (`[pic]: component:deck:back`, on its own line) and a target holding parentheses ('a_(b:c:d)') were refused
    as unknown icons, as was a code span going on over a line break; an unknown icon beside them is still said."""
    root = tmp_path / "g"
    make_project(root, {"layouts/mini/rulebook.md.j2": "# Rules\n\n![The back][pic]\n\nSee [the wiki]"
                                                       "(http://x.org/a_(b:nosuch:c)), not :nosuch2:.\n\n"
                                                       "Type `the code\n:nosuch4: here` as it is.\n\n"
                                                       "[pic]: component:deck:back\n  \"40mm\"\n"})
    result = run(root, "validate")
    assert [line for line in result.stderr.splitlines() if ": error: " in line] == [
        "layouts/mini/rulebook.md.j2:5:1: error: unknown icon ':nosuch2:' in the rendered rulebook line 5"]


def test_code_spans_are_found_in_a_line_of_many_backtick_runs():
    """Runs of 1, 2, 3 ... 540 backticks open no code span (none is closed by a run as long): a regular
    expression seeking each one's closing run took 4 s on the line; a span's closing run is still found."""
    ladder = " ".join("`" * k + "a" for k in range(1, 540))
    assert _blanked(ladder) == ladder
    assert _blanked("``:x:`` \\:z: :y:") == " " * 10 + "z: :y:"
    assert _blanked("![]() and [a]() :y:") == "![]() and [a]() :y:"  # (an empty target: it looped for ever)


def test_credit_roles_keep_their_capitals(tmp_path):
    """A credit's role prints as written, its first letter a capital: str.capitalize() lowered the rest, and
    'AI_art' printed 'Ai art' on the title page and the credits, exit 0."""
    from pypdf import PdfReader

    root = tmp_path / "proj"
    make_project(root, case={"replace": {"cards/mini/game.yaml": [["credits:", "credits:\n  AI_art: A Painter\n  "
                                                                                "3D_models: B Sculptor"]]}})
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    pdf = next((root / "output" / "mini").glob("mini-rulebook-*.pdf"))
    text = " ".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert text.count("AI art: A Painter") == 2 and text.count("3D models: B Sculptor") == 2


def test_a_byte_order_mark_before_the_rulebook_is_not_printed(tmp_path):
    """A rulebook template saved with a byte-order mark (as some editors do) made its first line no heading:
    '# Rules' was printed as text, missing from the contents, exit 0."""
    from pnp.check import validate_game
    from pnp.draw.book import parse
    from pnp.products.rulebook import markdown
    from pnp.project import Project
    from pnp.report import Report

    root = make_project(tmp_path / "proj")
    template = root / "layouts/mini/rulebook.md.j2"
    template.write_bytes(b"\xef\xbb\xbf# Rules\n\nDraw a card.\n")
    report = Report(root)
    _, studio = validate_game(Project(root), "mini", report)
    assert not report.errors
    assert [t.type for t in parse(markdown(studio))[:3]] == ["heading_open", "inline", "heading_close"]


def test_the_credits_name_no_icon_the_rulebook_writes_only_in_code(tmp_path):
    """The credits name the icons really drawn: one the rulebook writes only as typed (in a code span, after a
    backslash) and nothing else draws was named 'used in this game', exit 0."""
    from pypdf import PdfReader

    root = tmp_path / "proj"
    make_project(root, case={"replace": {
        "cards/mini/cards.yaml": [["Roars :star: loudly.", "Roars loudly."]],
        "layouts/mini/card.yaml": [["when: card.strong", "when: false"]],
        "layouts/mini/rulebook.md.j2": [[":star:", "`:star:` (or \\:star:)"]]}})
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    pdf = next((root / "output" / "mini").glob("mini-rulebook-*.pdf"))
    text = " ".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert ":star: (or :star:)" in text and "round-star" not in text


def test_a_lone_surrogate_a_template_prints_is_refused_at_its_line_and_said_in_json(tmp_path, monkeypatch):
    """A Jinja string's escape '\\ud83e' (half of a character written in two) put a lone surrogate into the
    rendered rulebook: digesting it failed, said as a bug in pnp; and `validate --json` failed to print a message
    quoting one (a glossary term's) in Python's UTF-8 mode (the C and POSIX locales), which writes standard output
    with surrogateescape."""
    import io
    import json
    import sys

    from pnp.cli import cli

    root = make_project(tmp_path / "proj", {"layouts/mini/rulebook.md.j2": '# Rules\n\nA {{ "\\ud83e" }} b.\n\n'
                                            '[[A{{ "\\udc00" }}]]\n'})
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    assert result.output.startswith("layouts/mini/rulebook.md.j2:3:1: error: character U+D83E"), result.output
    written = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(written, encoding="utf-8", errors="surrogateescape"))
    with pytest.raises(SystemExit):
        cli.main(["--root", str(root), "validate", "--json", "mini"])
    sys.stdout.flush()
    said = json.loads(written.getvalue())
    assert (3, "charac") in {(d["line"], d["message"][:6]) for d in said["diagnostics"]}
    assert any(d["message"].startswith("'[[A\udc00]]' is used") for d in said["diagnostics"])


def test_the_credits_name_an_icon_drawn_after_a_bracket_of_no_link(tmp_path):
    """'box](:star:)' with no '[' before it is no link: the book drew the icon, and the credits, which looked at
    the line as typed and took it for a link's target, left it out of the icons 'used in this game'."""
    from pnp.check import validate_game
    from pnp.products.rulebook import content
    from pnp.project import Project
    from pnp.report import Report

    root = tmp_path / "proj"
    make_project(root, case={"replace": {
        "cards/mini/cards.yaml": [["Roars :star: loudly.", "Roars loudly."]],
        "layouts/mini/card.yaml": [["when: card.strong", "when: false"]],
        "layouts/mini/rulebook.md.j2": [[":star:", "box](:star:)"]]}})
    report = Report(root)
    _, studio = validate_game(Project(root), "mini", report)
    assert not report.errors
    assert "Icons used in this game: round-star." in content(studio).icons_line


def test_the_title_page_of_a_solo_game_says_1_player(tmp_path):
    """players: 1 printed "1 players · ages 8+" on the title page; `time: 0` and `subtitle: -0.0` (false, as
    numbers) were left out of it, exit 0: they print as written."""
    from pnp.check import validate_game
    from pnp.products.rulebook import content
    from pnp.project import Project
    from pnp.report import Report

    root = tmp_path / "proj"
    make_project(root, case={"replace": {"cards/mini/game.yaml": [["players: 2-3", "players: 1\nsubtitle: -0.0"],
                                                                   ["time: 10 minutes", "time: 0"]]}})
    report = Report(root)
    _, studio = validate_game(Project(root), "mini", report)
    assert not report.errors
    assert content(studio).facts == "1 player · ages 8+ · 0" and content(studio).subtitle == "-0.0"
