"""Every kind of bad input gives path:line:col messages, exit 1 and never a traceback.

Each case is tests/data/bad/<case>.yaml (files to change in the base mini game) beside
<case>.errors (the exact diagnostic lines expected). Refresh with --update-golden and review the diff.
A case that shows a time limit at work may lower it (`limits: {pnp.template.SECONDS_PER_EVALUATION: 0.25}`): the
limit is met by the same code, sooner (a case waiting out the 2 s limit was most of its 2.2 s).
Where a message quotes a library's own words (PyYAML's description of a syntax error), the golden line says
`<library's words>` there instead: pnp's part of the message is still compared exactly, but a library that
rewords its message in a new version cannot turn the suite red.
"""

import re

import pytest

from conftest import DATA, load_case, make_project, run

CASES = sorted(p.stem for p in (DATA / "bad").glob("*.yaml"))
LIBRARY_WORDS = "<library's words>"


def _pattern(expected: str) -> re.Pattern[str]:
    """A golden line as a pattern: exact, except that each `<library's words>` stands for any non-empty text."""
    return re.compile(".+".join(re.escape(part) for part in expected.split(LIBRARY_WORDS)) + r"\Z")


def _golden(lines: list[str], previous: list[str]) -> list[str]:
    """The golden lines for --update-golden: a previous line that still matches keeps its placeholders."""
    return [next((old for old in previous if LIBRARY_WORDS in old and _pattern(old).match(line)), line)
            for line in lines]


@pytest.mark.parametrize("case", CASES)
def test_bad_data_is_reported_with_file_and_line(case, tmp_path, request, monkeypatch):
    spec = load_case(DATA / "bad" / f"{case}.yaml")
    for limit, value in spec.get("limits", {}).items():
        monkeypatch.setattr(limit, value)
    root = make_project(tmp_path / "proj", case=spec)
    result = run(root, spec.get("command", "validate"))
    out = result.stderr
    assert "Traceback" not in result.output
    assert result.exit_code == 1, result.output
    lines = [ln for ln in out.splitlines() if ": error: " in ln or ": warning: " in ln or ln.startswith("error:")]
    golden = DATA / "bad" / f"{case}.errors"
    if request.config.getoption("--update-golden"):
        previous = golden.read_text(encoding="utf-8").splitlines() if golden.exists() else []
        golden.write_text("\n".join(_golden(lines, previous)) + "\n", encoding="utf-8")
    expected = golden.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(expected) and all(_pattern(e).match(ln) for e, ln in zip(expected, lines)), \
        "\n".join(["got:", *lines, "expected:", *expected])
    summary = "built 0 of 1 game: " if spec.get("command") == "build" else "validated 1 game: "
    assert out.splitlines()[-1].startswith(summary)
    for line in lines:  # every message points at a file, and a line within it where the data has one
        if line.startswith("error: "):  # a build's closing word on a game it could not build
            assert line.endswith(": not built (fix the errors above)"), line
            continue
        assert line.split(":", 1)[0].endswith((".yaml", ".j2", ".svg")), line


def test_valid_project_passes(project):
    result = run(project, "validate")
    assert result.exit_code == 0, result.output
    assert result.stderr.strip().endswith("validated 1 game: ok")


def test_unknown_game_is_a_usage_error(project):
    result = run(project, "validate", "mini-gmae")
    assert result.exit_code == 2
    assert "unknown game 'mini-gmae' (did you mean 'mini'?)" in result.output


def test_a_game_folder_named_on_a_mac_is_the_game_its_name_typed_here_names(tmp_path):
    """A game folder made on a Mac stores 'ü' as 'u' and an accent: 'pnp validate spiel-ü', typed here as one
    letter, was "unknown game 'spiel-ü' (did you mean 'spiel-ü'?)"."""
    root = make_project(tmp_path / "proj")
    for folder in ("cards", "layouts"):
        (root / folder / "mini").rename(root / folder / "spiel-u\u0308")
    result = run(root, "validate", "spiel-\u00fc")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("args", [["validate", "x\x1b[2Jy"], ["--x\x1b[2Jy", "list"], ["serve", "--x\x1b[2Jy"],
                                  ["simulate", "mini", "--agents", "x\x1b[2Jy"]])
def test_a_command_line_value_quoted_in_an_error_is_said_printably(project, args):
    """An unknown game, option or agent is quoted by the message: its escape sequence reached the terminal
    (cleared it, coloured or forged pnp's words)."""
    result = run(project, *args)
    assert result.exit_code == 2 and "x\\x1b[2Jy" in result.output and "\x1b" not in result.output


@pytest.mark.parametrize("args", [["validate", "x\ny"], ["simulate", "x\ny"], ["new", "x\ny"],
                                  ["serve", "--host", "x\ny", "--port", "0"]])
def test_a_value_typed_with_a_line_break_is_said_in_one_line(project, args):
    """An unknown game, a name `pnp new` refuses or a --host pnp serve cannot listen on was quoted as typed: its
    line break split the refusal in two lines, the second forged (a line of its own to an editor's problem
    matcher)."""
    result = run(project, *args)
    assert result.exit_code == 2 and "x\\ny" in result.output and result.output.strip().count("\n") == 0, \
        result.output


@pytest.mark.parametrize("host", ["localhost:80", "-", "\udcff", "ü" * 64])
def test_a_host_no_one_can_find_is_said_in_pnps_words(project, host):
    """`serve --host localhost:80` said the resolver's words: "cannot listen on localhost:80:8000: Name or service
    not known"; a byte not UTF-8 (typed in another encoding) or a label past 63 letters, which have no IDNA form,
    were pnp's internal error (TypeError)."""
    from pnp.report import shown

    result = run(project, "serve", "--host", host, "--port", "0")
    assert result.exit_code == 2 and f"--host {shown(host)}: this computer finds no such address" in result.output, \
        result.output


def test_bad_option_is_a_usage_error(project):
    result = run(project, "build", "--paper", "a5")
    assert result.exit_code == 2
    assert "'a5' is not one of 'a4', 'letter'" in result.output


def test_no_games_is_a_usage_error(tmp_path):
    result = run(tmp_path, "validate")
    assert result.exit_code == 2
    result = run(tmp_path / "mistyped", "validate")  # (said "not a folder", as if something else were there)
    assert result.exit_code == 2 and "mistyped: no such folder" in result.output


def test_list_shows_components_with_counts(project):
    result = run(project, "list")
    assert result.exit_code == 0
    assert "mini: Mini Game (2-3 players, 10 minutes)" in result.stdout
    assert "4 × Cards [deck]" in result.stdout


@pytest.mark.parametrize("box, said", [
    ("x: 2, y: 5, w: 56", "text reaches within 2.0 mm of the trim"),
    ("x: 0, y: 5, w: 58", "text reaches the trim"),  # starts at the trim line
    ("x: -1, y: 5, w: 59", "text runs 1.0 mm past the trim"),  # never "within -1.0 mm"
])
def test_text_inside_the_safe_area_is_a_warning_not_an_error(tmp_path, box, said):
    # a card whose id text is closer to the cut than the default 3 mm safe margin
    card = (DATA / "base/layouts/mini/card.yaml").read_text().replace("x: 5, y: 5, w: 53", box)
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    result = run(root, "validate")
    assert result.exit_code == 0
    assert re.search(rf"layouts/mini/card.yaml:4:5\d: warning: {said}, inside the 3 mm safe area", result.stderr)
    assert result.stderr.strip().endswith("validated 1 game: ok (1 warning)")


def test_a_turned_text_is_kept_from_the_cut_by_its_box_as_drawn(tmp_path):
    # the id turned a quarter round reaches 16.5 mm past the top and bottom; the text turned upright from a box
    # 10 mm past the left edge lies well inside: its unturned box was measured, saying the first safe and
    # warning of the second
    card = (DATA / "base/layouts/mini/card.yaml").read_text()
    card = card.replace("size: 12}", "size: 12, rotate: 90}").replace(
        "x: 5, y: 20, w: 53, h: 20,", "x: -10, y: 40, w: 80, h: 8, rotate: 270,")
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    result = run(root, "validate")
    assert result.exit_code == 0
    assert re.search(r"layouts/mini/card.yaml:4:5\d: warning: text runs 16.5 mm past the trim", result.stderr)
    assert "card.yaml:5:" not in result.stderr
    assert result.stderr.strip().endswith("validated 1 game: ok (1 warning)")


def test_text_is_kept_inside_a_shaped_cut(tmp_path):
    # only decks were checked: a word at the corner of a round, hexagonal or rounded token printed cut off, exit 0
    # with no word; each line is measured where it is inked, so a centred word in a full-width box is inside
    token = ("size: [20mm, 20mm]\nshape: {}\n{}elements:\n"
             "  - {{type: text, x: 1, y: 8, w: 18, h: 4, text: in, size: 8, align: center}}\n"
             "  - {{type: text, x: 0, y: 0, w: 8, h: 3, text: cut, size: 6}}\n")
    shapes = {"circle": 4.1, "hex": 4.5, "rounded": 2.1}  # how far (0, 0) lies outside each 20 mm cut
    # a die's face is drawn clipped to its face of the net: a d20's number in its box's corner printed on no face
    die = ("net: d20\nedge: 30mm\nsize: [26mm, 22mm]\nfaces: range(1, 21) | list\nelements:\n"
           "  - {type: text, x: 0, y: 9, w: 26, h: 4, text: '{{ face }}', size: 8, align: center}\n"
           "  - {type: text, x: 0, y: 0, w: 8, h: 4, text: '{{ face }}', size: 8}\n")
    root = make_project(tmp_path / "proj", {"layouts/mini/die.yaml": die, **{
        f"layouts/mini/tok-{shape}.yaml": token.format(shape, "radius: 5mm\n" if shape == "rounded" else "doc: no corners\n")
        for shape in shapes}})  # (a radius on a circle's or hexagon's cut is refused: it has no corners)
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("    layout: board\n", "    layout: board\n" + "".join(
        f"  - id: tok-{shape}\n    kind: tokens\n    layout: tok-{shape}\n" for shape in shapes)
        + "  - id: die\n    kind: die\n    layout: die\n", 1), encoding="utf-8")
    result = run(root, "validate")
    assert result.exit_code == 0, result.output
    warnings = [ln for ln in result.stderr.splitlines() if ": warning: " in ln]
    expected = [(f"tok-{shape}:6", f"{mm} mm past the cut line") for shape, mm in shapes.items()]
    expected.insert(0, ("die:7", "8.1 mm past the face's edge"))
    assert len(warnings) == len(expected) and all(
        re.fullmatch(rf"layouts/mini/{name.replace(':', '.yaml:')}:\d+: warning: text runs {past}, inside the 3 mm safe area", ln)
        for (name, past), ln in zip(expected, warnings)), warnings


def test_a_text_brought_near_the_cut_by_a_use_names_the_use(tmp_path):
    # the back's text is 5 mm inside its own trim; the card draws the back 3 mm to the left, bringing it within
    # 2 mm of the card's: the warning named only the back's line, where nothing is wrong
    card = "size: poker\nelements:\n  - {type: use, layout: back, x: -3, y: 0, item: card}\n"
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card})
    result = run(root, "validate")
    assert result.exit_code == 0
    assert re.search(r"layouts/mini/back.yaml:4:5\d: warning: text reaches within 2.0 mm of the trim, inside the "
                     r"3 mm safe area \(drawn by the use at layouts/mini/card.yaml:3:5\)", result.stderr)


def test_an_element_drawn_wholly_off_its_layout_is_a_warning(tmp_path):
    # an icon at y: 500 on a card, a text at 1000 mm on a board, a circle in a group placed below the card: each
    # printed nothing, with exit 0 and no word; a shape in the bleed, or on a die's face beyond the layout's
    # box (its face is larger), prints, and is not said
    card = ("size: poker\nelements:\n  - {type: rect, x: -3, y: -3, w: 69, h: 94, fill: '#eeeeee'}\n"
            "  - {type: icon, icon: star, x: 25, y: 500, w: 13, h: 13}\n"
            "  - {type: group, x: 0, y: 200, elements: [{type: circle, cx: 3, cy: 3, r: 2, fill: '#000000'}]}\n")
    board = ("size: [400mm, 300mm]\nelements:\n  - {type: rect, x: -2, y: 0, w: 1, h: 300, fill: '#ddeeff'}\n"
             "  - {type: text, x: 1000, y: 1000, w: 50, h: 10, text: far}\n")
    die = ("size: [20mm, 20mm]\nedge: 30mm\nfaces: range(1, 7) | list\nelements:\n"
           "  - {type: rect, x: 22, y: 0, w: 3, h: 3, fill: '#000000'}\n"
           "  - {type: rect, x: 27, y: 0, w: 3, h: 3, fill: '#000000'}\n")
    root = make_project(tmp_path / "proj", {"layouts/mini/card.yaml": card, "layouts/mini/board.yaml": board,
                                            "layouts/mini/die.yaml": die})
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text(encoding="utf-8") + "  - id: die\n    kind: die\n    layout: die\n",
                    encoding="utf-8")
    result = run(root, "validate")
    assert result.exit_code == 0, result.output
    warnings = [ln for ln in result.stderr.splitlines() if ": warning: " in ln]
    off = ": warning: {} this element draws lies wholly outside the {} mm layout and its bleed: it prints nothing"
    expected = [("card.yaml:4:24", off.format("an icon", "63 x 88")),
                ("card.yaml:5:44", off.format("a circle", "63 x 88")),
                ("board.yaml:4:56", off.format("a text", "400 x 300")), ("die.yaml:6:5", off.format("a rect", "20 x 20"))]
    assert sorted(warnings) == sorted(f"layouts/mini/{where}{said}; move it onto the layout"
                                      for where, said in expected), warnings
