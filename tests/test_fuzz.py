"""Property: whatever is done to a game's YAML, `pnp validate` reports problems as messages, never a
traceback, and finishes in seconds. Hypothesis mutates the files of a shipped game and of the test game
(lines deleted, duplicated or moved, characters changed, values swapped for other types) and validates.

PNP_FUZZ_EXAMPLES sets how many cases run (40 by default, derandomized so CI is repeatable: still the largest test
of the suite, about 10 s, most of it typesetting the shipped game's rulebook on two papers per case; 100 took
27 s of a fresh clone's 294 s, near the suite's 5 minutes: set it higher to look further);
PNP_FUZZ_RANDOM=1 draws new cases each run, to go looking for new failures; PNP_FUZZ_GAME picks the
shipped game whose files are mutated."""

import os
import shutil
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, make_project, share_repo_assets
from pnp.check import validate
from pnp.kit import render_game
from pnp.errors import PnpError
from pnp.project import find
from pnp.report import Report

EXAMPLES = int(os.environ.get("PNP_FUZZ_EXAMPLES", "40"))
HANG = 20.0  # seconds: a validation this long is a hang, whatever the machine (real ones take well under 1 s)
GAME = os.environ.get("PNP_FUZZ_GAME", "diamonds-and-dinosaurs")  # the smallest shipped game validates fastest
SWAPS = ["[1, 2]", "{a: 1}", "null", "99999999999999999999999", "-1", "0", "'{{ 1 / 0 }}'", "''", "yes",
         ".nan", "'{% for a in range(99999) %}{% for b in range(99) %}{% endfor %}{% endfor %}'",
         "'{{ card.__class__ }}'", "*nothing", "!!python/name:os.system", "'x'", "[[[[[]]]]]", "3.5",
         # (a length past the largest float, and a whole number past one: run 56 found each a bug at several keys)
         "1e308", "[1e308, 1e308]", "1" + "0" * 400]
CHARS = list(":{}[]-,\"'!&*#%|>\n\t 0a.{{}}")


@pytest.fixture(scope="module")
def targets(tmp_path_factory):
    """(project root, game id, file) for every YAML file of the two games, in throw-away copies."""
    mini = make_project(tmp_path_factory.mktemp("fuzz") / "mini")
    shipped = tmp_path_factory.mktemp("fuzz") / "shipped"
    for part in ("cards", "layouts"):
        shutil.copytree(REPO / part / GAME, shipped / part / GAME)
    share_repo_assets(shipped)
    found = []
    for root, game in ((mini, "mini"), (shipped, GAME)):
        for folder in (root / "cards" / game, root / "layouts" / game):
            found += [(root, game, path) for path in sorted(folder.glob("*.yaml"))]
    return found


def _lines(text):
    return text.splitlines(keepends=True) or [""]


@st.composite
def mutated(draw, text):
    """The text with one to three random edits."""
    lines = _lines(text)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        how = draw(st.sampled_from(["delete", "duplicate", "move", "char", "swap", "swap"]))
        if how == "delete" and len(lines) > 1:
            del lines[i]
        elif how == "duplicate":
            lines.insert(i, lines[i])
        elif how == "move":
            lines.insert(draw(st.integers(0, len(lines))), lines.pop(i))
        elif how == "char" and lines[i]:
            j = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:j] + draw(st.sampled_from(CHARS)) + lines[i][j + draw(st.integers(0, 1)):]
        elif ": " in lines[i]:  # a value of another type
            key = lines[i].split(": ", 1)[0]
            lines[i] = f"{key}: {draw(st.sampled_from(SWAPS))}\n"
    return "".join(lines)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("PNP_FUZZ_RANDOM"),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_mutated_yaml_gives_messages_never_a_traceback_or_a_hang(targets, data):
    root, game, path = data.draw(st.sampled_from(targets), label="file")
    original = path.read_text(encoding="utf-8")
    path.write_text(data.draw(mutated(original), label="mutated"), encoding="utf-8")
    try:
        report = Report(root)
        start = time.monotonic()
        try:
            checked, studio = validate(find(root), game, report)
        except PnpError:
            studio = None  # a problem pnp describes (a font file it cannot read): a message, as promised
        assert time.monotonic() - start < HANG
        for diagnostic in report.diagnostics:  # every message names the file it is about
            assert diagnostic.mark is not None and diagnostic.mark.file, str(diagnostic)
        if game == "mini" and studio is not None and not report.errors:
            render_game(checked, studio, root / "output" / game).discard()  # what validates also builds
    finally:
        path.write_text(original, encoding="utf-8")


# -- template expressions -----------------------------------------------------------------------------------
# Hypothesis builds expressions from the operators, filters, methods and built-ins a template may use, over
# values from tiny to the limits, and renders each: a value or an ExprError with a message, never another
# exception or a hang. PNP_FUZZ_TEMPLATE_EXAMPLES sets how many (150 by default, derandomized).

TEMPLATE_EXAMPLES = int(os.environ.get("PNP_FUZZ_TEMPLATE_EXAMPLES", "150"))
ATOMS = ["0", "1", "3", "-2", "2.5", "1000", "10**6", "10**9", "'x'", "''", "'ab cd'", "'%s%s'", "'{0}{0}'",
         "'\\t'", "'\\n'", "'x' * 999999", "[1, 2]", "['a', 'b']", "[]", "{'a': 'x' * 999999}", "range(100000)",
         "card.name", "card.tags", "none", "true"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "~", "==", "<", "and", "or", "in"]
FILTERS = ["join", "join(A)", "replace(A, A)", "center(A)", "indent(A)", "wordwrap(A)", "sum", "sum(start=A)",
           "sort", "unique", "list", "tojson", "length", "reverse", "first", "last", "batch(A)", "slice(A)",
           "map('string')", "map('center', A)", "format(A, A)", "truncate(A)", "string", "upper", "title", "trim",
           "min", "max", "int", "float", "round(A)", "abs", "default(A)", "e", "urlencode", "wordcount",
           "striptags", "pprint", "items", "select", "split(A)", "percent(A)", "count(A, A)", "dictsort"]
METHODS = ["join(A)", "replace(A, A)", "center(A)", "format(A, A)", "split(A)", "expandtabs(A)", "ljust(A)",
           "zfill(A)", "count(A)", "translate(A)", "strip()", "startswith(A)", "index(A)", "get(A)"]
CALLS = ["sum(A, A)", "max(A)", "min(A, A)", "sorted(A)", "round(A, A)", "range(A)", "range(A, A, A)",
         "dict(a=A)", "len(A)", "abs(A)"]


def _filled(shape, parts):
    for part in parts:
        shape = shape.replace("A", part, 1)
    return shape


@st.composite
def _applied(draw, inner):
    """One operator, filter, method, call, list or repetition over smaller expressions."""
    how = draw(st.sampled_from(["operator", "filter", "method", "call", "list", "repeat"]))
    a, b = draw(inner), draw(inner)
    if how == "operator":
        return f"({a} {draw(st.sampled_from(OPERATORS))} {b})"
    if how == "list":
        return f"[{a}, {b}]"
    if how == "repeat":
        return f"([{a}] * {b})"
    shape = draw(st.sampled_from({"filter": FILTERS, "method": METHODS, "call": CALLS}[how]))
    filled = _filled(shape, [draw(inner) for _ in range(shape.count("A"))])
    return {"filter": f"({a} | {filled})", "method": f"({a}).{filled}", "call": filled}[how]


EXPRESSIONS = st.recursive(st.sampled_from(ATOMS), _applied, max_leaves=6)


@settings(max_examples=TEMPLATE_EXAMPLES, deadline=None, derandomize=not os.environ.get("PNP_FUZZ_RANDOM"),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(expression=EXPRESSIONS)
def test_template_expressions_give_a_value_or_a_message_never_a_traceback_or_a_hang(expression):
    from pnp import template
    from pnp.errors import ExprError

    context = {"card": {"name": "Lion", "tags": ["big", "cat"]}}
    start = time.monotonic()
    try:
        text = template.render("{{ " + expression + " }}", context)
        assert len(text) <= template.MAX_STRING
    except ExprError as e:
        assert e.message
    assert time.monotonic() - start < HANG


# -- icons ----------------------------------------------------------------------------------------------------
# What a hostile or broken SVG may hold: references out of the project or to other files, entities, sizes and
# transforms no drawing can have, repetition and depth bombs, scripts; spliced into a shipped icon anywhere.
ICON_EXAMPLES = int(os.environ.get("PNP_FUZZ_ICON_EXAMPLES", "120"))
SVG_PIECES = [
    '<image xlink:href="../../../etc/passwd" width="9" height="9"/>', '<image href="file:///etc/hostname"/>',
    '<image href="data:image/png;base64,JVBERi0="/>', '<use href="#p"/>', '<use href="other.svg#p"/>',
    '<g id="p">' + '<use href="#p"/>' * 3 + "</g>", "<g>" * 400 + "</g>" * 400, ' width="nan"', ' height="1e308"',
    ' viewBox="0 0 0 0"', ' transform="scale(1e308)"', ' transform="rotate(inf)"', ' stroke-dasharray="0 0"',
    '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>', "&b;",
    '<script>alert(1)</script>', '<text x="1e308">x</text>', '<circle r="-5"/>', '<path d="M 0 0 L nan nan"/>',
    '<style>@import url(http://127.0.0.1/x.css);</style>', "\x00", "<", ">", '"', "</svg>", "<svg>",
]


@st.composite
def mutated_svg(draw, text):
    """The icon's text with one to three pieces spliced in, or characters cut out."""
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:i] + draw(st.sampled_from(SVG_PIECES)) + text[i:]
        else:
            text = text[:i] + text[i + draw(st.integers(1, 40)):]
    return text


@settings(max_examples=ICON_EXAMPLES, deadline=None, derandomize=not os.environ.get("PNP_FUZZ_RANDOM"),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_icons_give_a_message_or_a_drawing_never_a_traceback_or_a_hang(tmp_path, data):
    from reportlab.lib.colors import black
    from reportlab.pdfgen.canvas import Canvas

    from pnp.draw.icons import draw_icon, unreadable

    source = data.draw(st.sampled_from(sorted((REPO / "layouts/shared/icons").glob("*.svg"))[:20]), label="icon")
    path = tmp_path / f"fuzzed-{source.name}"
    path.write_bytes(data.draw(mutated_svg(source.read_text(encoding="utf-8")), label="svg").encode("utf-8"))
    start = time.monotonic()
    problem = unreadable(path)
    if problem is None:  # what validation lets through must draw
        draw_icon(Canvas(str(tmp_path / "icon.pdf")), path, 0, 0, 20, 20, black)
    else:
        message, line, column = problem
        assert message and line >= 0 and column >= 0
    assert time.monotonic() - start < HANG
