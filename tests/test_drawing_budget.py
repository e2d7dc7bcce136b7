"""The game's drawing budget: layouts that multiply their work stop with one message at the element that spent
it, in validation, build, export and the preview. The real limit is tested by the golden case
drawing-budget-text; here it is made small, so the painting can be made to pass it cheaply."""

import pytest

from conftest import make_project, run
from pnp import printables
from pnp.layout import budget
from pnp.project import Project
from pnp.serve.preview import Preview

SIX_REPEATS = "size: poker\nelements:\n" + "  - {type: rect, w: 1, h: 1, fill: red, repeat: 9999}\n" * 6
CARD = "layouts/mini/card.yaml"


@pytest.fixture
def spent(monkeypatch):
    """The steps each drawing budget made from now on spent, read after a command."""
    made = []
    original = budget.DrawingBudget.__init__

    def recorded(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(budget.DrawingBudget, "__init__", recorded)
    return made


def _errors(result):
    return [line for line in result.stderr.splitlines() if ": error: " in line or line.startswith("error:")]


def test_six_repeats_of_9999_stop_at_the_element_that_passes_the_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "BASE_STEPS", 20_010)
    monkeypatch.setattr(budget, "STEPS_PER_FACE", 0)
    root = make_project(tmp_path / "proj", {CARD: SIX_REPEATS})
    result = run(root, "validate")
    assert result.exit_code == 1
    errors = _errors(result)
    assert len(errors) == 1, errors
    # the first element spends 20,001 steps on its repeat and 9,999 copies, the second passes the limit
    assert errors[0].startswith(f"{CARD}:4:5: error: the game draws too much: past its 20,010 drawing steps")


def test_the_shipped_shape_of_a_game_spends_a_small_part_of_its_budget(tmp_path, spent):
    root = make_project(tmp_path / "proj")
    assert run(root, "build").exit_code == 0
    (used,) = spent
    assert 0 < used.spent < used.limit / 20  # the base mini game: a few hundred steps of 250,000 and more


def _where_commands_stop(root) -> dict[str, list[str]]:
    """Where validate, build, export and a fresh preview say the game draws too much: (file:line) each."""
    said = {}
    for command in (("validate",), ("build",), ("export", "--format", "png")):
        result = run(root, *command)
        said[command[0]] = [line.split(": error: ")[0].rsplit(":", 1)[0] for line in _errors(result)
                            if "the game draws too much" in line]
    state = Preview(Project(root.resolve()), "mini").refresh()
    said["preview"] = [p["where"]["at"].rsplit(":", 1)[0] for p in state["problems"]
                       if p["message"].startswith("the game draws too much")]
    return said


def test_painting_is_paid_for_by_the_check_so_every_command_stops_at_the_same_element(tmp_path, monkeypatch, spent):
    """What painting costs is paid for where the game is checked, once per distinct drawing: validate, build,
    export and the preview stop at the same element, with one message, and the build writes no kit."""
    root = make_project(tmp_path / "proj", {CARD: "size: poker\nelements:\n"
                                            "  - {type: rect, w: 1, h: 1, fill: red, repeat: 300}\n"})
    assert run(root, "validate").exit_code == 0
    monkeypatch.setattr(budget, "BASE_STEPS", spent[-1].spent - 1)  # one step short
    monkeypatch.setattr(budget, "STEPS_PER_FACE", 0)
    said = _where_commands_stop(root)
    assert len(said["validate"]) == 1 and all(where == said["validate"] for where in said.values()), said
    assert not list((root / "output").rglob("*.pdf"))


def edit(root, rel: str, old: str, new: str) -> None:
    text = (root / rel).read_text()
    assert old in text, old
    (root / rel).write_text(text.replace(old, new, 1))


def _seen(preview: Preview) -> tuple:
    """What a preview's page says: its status and its problems' messages and places."""
    return preview.state["status"], [(p["message"], p["where"]) for p in preview.state["problems"]]


def test_a_running_preview_gives_the_verdict_a_fresh_one_and_the_build_give(tmp_path, monkeypatch, spent):
    """A running preview keeps the faces it drew and does not paint them again: each refresh pays for their
    painting all the same, so a game just past its drawing budget is refused there as it is by a fresh
    preview and the build, at the same element, after each edit (a data edit, shown in two steps, and a
    layout edit), and is fine again when the edit is undone. (Painted only where drawn, the running preview
    said 'ok' where the others refused the game.)"""
    cards, longer = "cards/mini/cards.yaml", "Roars :star: loudly, and long, and long, and long, and long."
    root = make_project(tmp_path / "proj", {CARD: "size: poker\nelements:\n"
                                            "  - {type: rect, w: 1, h: 1, fill: red, repeat: 40}\n"
                                            "  - {type: text, x: 5, y: 20, w: 53, h: 20, text: '{{ card.text }}'}\n"})
    edits = [(cards, "Roars :star: loudly.", longer), (cards, longer, "Roars :star: loudly."),
             (CARD, "repeat: 40}", "repeat: 42}")]
    edit(root, *edits[0])
    assert run(root, "validate").exit_code == 0
    monkeypatch.setattr(budget, "BASE_STEPS", spent[-1].spent - 1)  # the longer text just past the limit
    monkeypatch.setattr(budget, "STEPS_PER_FACE", 0)
    edit(root, *edits[1])
    preview = Preview(Project(root.resolve()), "mini")
    preview.refresh()
    assert preview.state["status"] == "ok", preview.state["problems"]
    for n, (rel, old, new) in enumerate(edits):
        edit(root, rel, old, new)
        preview.refresh()
        fresh = Preview(Project(root.resolve()), "mini")
        fresh.refresh()
        assert _seen(preview) == _seen(fresh), (rel, new)
        built = [line.split(": error: ")[0] for line in _errors(run(root, "build")) if "draws too much" in line]
        if n == 1:  # undone: fine again
            assert preview.state["status"] == "ok" and not built
            continue
        (said,) = [where for message, where in _seen(preview)[1] if message.startswith("the game draws too much")]
        assert built == [said["at"]], (rel, new)


def test_an_icon_of_many_shapes_drawn_many_times_spends_each_shape_it_paints(tmp_path):
    # an icon's PDF form is written once, but every use is painted again where it is rendered: 5,000 uses of an
    # icon of 640 shapes took 15 s and 1.9 GB to export as PNG, and a Tabletop Simulator export hung
    icon = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
            + '<rect width="1" height="1"/>' * 300 + "</svg>\n")
    root = make_project(tmp_path / "proj", {
        CARD: "size: poker\nelements:\n  - {type: icons, icon: star, count: 1000, size: 0.05, gap: 0}\n",
        "layouts/shared/icons/round-star.svg": icon})
    result = run(root, "validate")  # paid for where the game is checked, as every command checks it
    assert result.exit_code == 1
    errors = _errors(result)
    assert len(errors) == 1, errors  # at the element that spent the last step
    assert errors[0].startswith(f"{CARD}:3:5: error: the game draws too much")


def test_a_deck_too_large_to_keep_resolved_is_paid_for_once(tmp_path, monkeypatch, spent):
    """A build resolves again, to draw it, a printable it let go from memory (a deck of more than
    RESOLVED_KEPT faces; here 2 are kept): that costs the game nothing more, so validate and build agree, just
    within the limit and one step short of it. (5,200 cards spent 294,414 steps in validate, 444,214 to build.)"""
    monkeypatch.setattr(printables, "RESOLVED_KEPT", 2)
    root = make_project(tmp_path / "proj")
    assert run(root, "validate").exit_code == 0
    monkeypatch.setattr(budget, "BASE_STEPS", spent[-1].spent)
    monkeypatch.setattr(budget, "STEPS_PER_FACE", 0)
    assert run(root, "build").exit_code == 0 and spent[-1].spent == budget.BASE_STEPS
    monkeypatch.setattr(budget, "BASE_STEPS", spent[-1].spent - 1)
    said = [[line.split(": error: ")[0] for line in _errors(run(root, *command)) if "draws too much" in line]
            for command in (("validate",), ("build", "--force"))]  # (the kit just built is up to date)
    assert len(said[0]) == 1 and said[0] == said[1], said


def test_the_rulebooks_icon_credit_resolves_no_face_again(tmp_path, monkeypatch):
    """The credit of the icons printed is of the faces the check resolved, noted then: it resolved every face
    once more when more than RESOLVED_KEPT were checked (here 2 are kept; a 10,000-card deck resolved twice)."""
    monkeypatch.setattr(printables, "RESOLVED_KEPT", 2)
    resolved = []
    original = printables.Studio._resolved_now

    def noted(self, printable, problems):
        resolved.append(printable.key)
        return original(self, printable, problems)

    monkeypatch.setattr(printables.Studio, "_resolved_now", noted)
    root = make_project(tmp_path / "proj")
    assert run(root, "validate").exit_code == 0
    assert len(resolved) > 2 and len(resolved) == len(set(resolved)), len(resolved)


@pytest.mark.parametrize("foreseen", [True, False])
def test_copies_of_a_board_tiled_over_many_sheets_stop_at_the_kits_page_allowance(tmp_path, monkeypatch, spent,
                                                                                  foreseen):
    # each copy of the 400 x 300 mm board is tiled over four A4 sheets and printed once more full size: copies
    # cost no drawing steps, but pages do; 10,000 copies ran for minutes. Validation foresees the pages (Kind.pages)
    # and refuses before one is drawn; a kind that cannot foresee its pages is stopped as they are drawn, in
    # the same words at the same line.
    monkeypatch.setattr(budget, "BASE_PAGES", 30)
    if not foreseen:
        from pnp.products.board import Board
        monkeypatch.setattr(Board, "pages", lambda self, component, studio, paper: 0)
    game = "cards/mini/game.yaml"
    root = make_project(tmp_path / "proj", case={"replace": {game: [["    layout: board\n",
                                                                    "    layout: board\n    copies: 12\n"]]}})
    result = run(root, "build", "mini")
    assert result.exit_code == 1
    lines = (root / game).read_text().splitlines()
    errors = _errors(result)
    assert errors[0].startswith(f"{game}:{lines.index('    copies: 12') + 1}:"), errors
    assert "the kit prints too many pages: past its 40 " in errors[0], errors
    assert ("previous output left intact" in errors[0]) is not foreseen  # (drawing had begun)
    assert max(b.pages for b in spent) == (0 if foreseen else 41)
    assert not (root / "output" / "mini" / "mini-a4.pdf").exists()


def test_a_small_game_uses_a_small_part_of_its_page_allowance(tmp_path, spent):
    root = make_project(tmp_path / "proj")
    assert run(root, "build", "mini").exit_code == 0
    assert spent and all(b.pages <= budget.BASE_PAGES // 20 for b in spent)


def test_a_budget_spent_making_a_used_layout_is_said_at_its_element_drawn_by_the_printed_layouts_use(
        tmp_path, monkeypatch):
    """Run out while a `use` inside a `use` makes its shapes, the budget is said at the element that spent it,
    in the layout drawn, with the printed layout's own `use` (painting them: the golden case drawing-budget-in-use)."""
    monkeypatch.setattr(budget, "BASE_STEPS", 1_000)
    monkeypatch.setattr(budget, "STEPS_PER_FACE", 0)
    root = make_project(tmp_path / "proj", {
        "layouts/mini/heavy.yaml": "size: [40, 30]\nelements:\n  - {type: rect, w: 1, h: 1, fill: red, repeat: 2000}\n",
        "layouts/mini/middle.yaml": "size: [40, 30]\nelements:\n  - {type: use, layout: heavy}\n",
        "layouts/mini/board.yaml": "size: [400mm, 300mm]\nelements:\n  - {type: use, layout: middle, w: 400}\n"})
    result = run(root, "validate")
    assert result.exit_code == 1
    (error,) = _errors(result)
    assert error.startswith("layouts/mini/heavy.yaml:3:5: error: the game draws too much: past its 1,000 "), error
    assert error.endswith(" (drawn by the use at layouts/mini/board.yaml:3:5)"), error


def test_a_rulebook_past_the_kits_page_allowance_is_refused_by_validate_as_by_the_build(tmp_path, monkeypatch):
    # the rulebook's pages were not foreseen: a book of 3,000 pictures passed validate, and the build refused it
    # for printing too many pages (here the allowance is made small, and 40 pictures pass it)
    monkeypatch.setattr(budget, "BASE_PAGES", 10)
    pictures = "".join("![The lion](component:deck/lion)\n\n" for _ in range(40))
    root = make_project(tmp_path / "proj", {"layouts/mini/rulebook.md.j2": f"# Rules\n\n{pictures}"})
    said = [[line for line in _errors(run(root, *command)) if "too many pages" in line]
            for command in (("validate",), ("build",))]
    assert len(said[0]) == 1 and said[0][0].startswith("cards/mini/game.yaml:"), said
    assert [line.split(" (")[0] for line in said[0]] == [line.split(" (")[0] for line in said[1]], said


def test_a_board_pays_for_each_glyph_run_of_its_texts_each_time_it_is_painted(tmp_path, spent):
    """A text is charged per string it is set in (each change of font one more), and a board is painted twice
    (on its tiles or sheets, and at full size): 100 texts with two changes of font more than plain ones of the
    same length spend 100 x 2 x 2 steps more. (Charged a step a label, painted once, 40,000 hex labels on a
    board built in 44 s.)"""
    said = []
    for text in ("xxaaxx xbbx cc", "**aa** *bb* cc"):
        root = make_project(tmp_path / text.replace("*", "s").replace(" ", "_"), {
            "layouts/mini/board.yaml": "size: [400mm, 300mm]\nelements:\n"
                                       f"  - {{type: text, x: '{{{{ i % 5 * 60 }}}}', y: '{{{{ i // 5 * 12 }}}}', "
                                       f"w: 50, h: 10, size: 8, text: '{text}', repeat: 100}}\n"})
        assert run(root, "validate").exit_code == 0
        said.append(spent[-1].spent)
    assert said[1] - said[0] == 100 * 2 * 2


@pytest.mark.parametrize("cells", [
    "{type: hexgrid, cols: 100, rows: 100, radius: 0.2mm, fill: '{{ \"red\" if n % 2 else \"blue\" }}'}",
    "{type: grid, cols: 100, rows: 100, cell_w: 0.3mm, cell_h: 0.3mm, label: '{{ n }}'}",
    "{type: track, x1: 0, x2: 60mm, count: 10000, cell: 0.005mm}",
])
def test_cells_are_paid_for_as_they_are_made(tmp_path, monkeypatch, spent, cells):
    # 10,000 cells of one element, made all before being paid for, overspent the budget by all of them (a
    # board of several such grids took seconds to be refused): paid for cell by cell, it stops at the one
    monkeypatch.setattr(budget, "BASE_STEPS", 2_000)
    monkeypatch.setattr(budget, "STEPS_PER_FACE", 0)
    root = make_project(tmp_path / "proj", {CARD: f"size: poker\nelements:\n  - {cells}\n"})
    result = run(root, "validate")
    assert _errors(result)[0].startswith(f"{CARD}:3:5: error: the game draws too much: past its 2,000 drawing")
    (used,) = spent
    assert 2_000 < used.spent < 2_000 + 20


def test_points_a_template_gives_are_read_within_the_templates_time(tmp_path, monkeypatch):
    # points given as a template's text are read as YAML, about a second a megabyte: a megabyte of them on
    # each card ran for many seconds, outside any limit; now the read is the template's work, stopped in time
    from pnp import template

    monkeypatch.setattr(template, "SECONDS_PER_EVALUATION", 0.05)
    points = "{{ '[' ~ ('[1,2],' * 60000) ~ '[1,2]]' }}"
    root = make_project(tmp_path / "proj", {CARD: f"size: poker\nelements:\n  - {{type: polygon, points: \"{points}\"}}\n"})
    result = run(root, "validate")
    errors = _errors(result)
    # (with no compiled template kept on disk, the first card may spend its 0.05 s compiling: "out of time")
    assert errors and all(line.startswith(f"{CARD}:3:29: error: points: ") for line in errors), errors
    assert any("the points its template gave took longer than" in line for line in errors), errors


def test_each_template_a_layout_evaluates_is_paid_for(tmp_path, spent):
    # a templated colour on each of 110,000 grid cells or repeated copies was priced as the shape it made, two
    # steps, but costs about 40 microseconds: 4.4 s of work passed inside the budget before the shape cap
    said = []
    for fill in ("red", "{{ 'red' if i % 2 else 'blue' }}"):
        root = make_project(tmp_path / f"proj{len(said)}",
                            {CARD: f"size: poker\nelements:\n  - {{type: rect, w: 1, h: 1, fill: \"{fill}\", "
                                   "repeat: 100}\n"})
        assert run(root, "validate").exit_code == 0
        said.append(spent[-1].spent)
    assert said[1] - said[0] == 4 * 100 * budget.TEMPLATE_STEPS  # on each of the 4 cards


def test_a_face_spends_its_own_allowance_not_the_other_faces(tmp_path, monkeypatch):
    # each face's steps are its own: one face past them spends the game's base, not the allowance of faces that
    # spend little (4,980 elements in a chain on each of 4,980 fronts spent their backs' allowance: 27.6 s)
    monkeypatch.setattr(budget, "BASE_STEPS", 1_000)
    heavy = "size: poker\nelements:\n  - {type: rect, w: 1, h: 1, fill: red, repeat: 700}\n"
    root = make_project(tmp_path / "proj", {"layouts/mini/back.yaml": heavy})
    errors = _errors(run(root, "validate"))
    assert [e.split(": error: ")[0] for e in errors if "draws too much" in e] == ["layouts/mini/back.yaml:3:5"], errors
    assert "besides each face's own 500" in errors[0]


def test_a_broken_layout_is_said_once_not_again_for_each_item_printing_it(tmp_path, monkeypatch):
    # its problems are said at the first item; each later one is marked with the first few (4,980 bad elements
    # said again for each of 1,000 cards took 4.5 s, and would have kept 50 million marks for 10,000)
    from pnp import check
    monkeypatch.setattr(check, "MARKS_PER_ITEM", 2)
    told = []
    original = check.Checks.error
    monkeypatch.setattr(check.Checks, "error", lambda self, *args, **kwargs: told.append(args) or original(self, *args, **kwargs))
    card = "size: poker\nelements:\n" + "  - {type: rect, w: 1, h: 1, nonsense: 1}\n" * 5
    root = make_project(tmp_path / "proj", {CARD: card})
    errors = [e for e in _errors(run(root, "validate")) if "nonsense" in e]
    assert len(errors) == 5, errors
    lines = [mark.line for _, mark in told]
    assert lines.count(7) < lines.count(3), lines  # the first said for each item, the last once (per check)
