"""The game's drawing budget: layouts that multiply their work stop with one message at the element that spent
it, in validation, build, export and the preview. The real limit is tested by the golden case
drawing-budget-text; here it is made small, so the painting can be made to pass it cheaply."""

import pytest

from conftest import make_project, run
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
    monkeypatch.setattr(budget, "BASE_STEPS", 20_000)
    monkeypatch.setattr(budget, "STEPS_PER_FACE", 0)
    root = make_project(tmp_path / "proj", {CARD: SIX_REPEATS})
    result = run(root, "validate")
    assert result.exit_code == 1
    errors = _errors(result)
    assert len(errors) == 1, errors
    # the first element spends 20,000 steps on 9,999 copies, the second passes the limit
    assert errors[0].startswith(f"{CARD}:4:5: error: the game draws too much: past its 20,000 drawing steps")


def test_the_shipped_shape_of_a_game_spends_a_small_part_of_its_budget(tmp_path, spent):
    root = make_project(tmp_path / "proj")
    assert run(root, "build").exit_code == 0
    (used,) = spent
    assert 0 < used.spent < used.limit / 20  # the base mini game: a few hundred steps of 250,000 and more


def _limit_between_validating_and_painting(tmp_path, monkeypatch, spent):
    """A project whose validation fits the drawing budget and whose painting does not."""
    root = make_project(tmp_path / "proj", {CARD: "size: poker\nelements:\n"
                                            "  - {type: rect, w: 1, h: 1, fill: red, repeat: 300}\n"})
    assert run(root, "validate").exit_code == 0
    monkeypatch.setattr(budget, "BASE_STEPS", spent[-1].spent + 100)
    monkeypatch.setattr(budget, "STEPS_PER_FACE", 0)
    return root


def test_painting_past_the_budget_fails_the_build_at_the_element_and_writes_no_kit(tmp_path, monkeypatch, spent):
    root = _limit_between_validating_and_painting(tmp_path, monkeypatch, spent)
    result = run(root, "build")
    assert result.exit_code == 1
    errors = _errors(result)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{CARD}:3:5: error: mini: build failed: the game draws too much")
    assert errors[0].endswith("previous output left intact")
    assert not list((root / "output").rglob("*.pdf"))


def test_painting_past_the_budget_fails_the_export_at_the_element(tmp_path, monkeypatch, spent):
    root = _limit_between_validating_and_painting(tmp_path, monkeypatch, spent)
    result = run(root, "export", "--format", "png")
    assert result.exit_code == 1
    errors = _errors(result)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{CARD}:3:5: error: mini: export failed: the game draws too much")


def test_painting_past_the_budget_is_one_problem_on_the_preview(tmp_path, monkeypatch, spent):
    root = _limit_between_validating_and_painting(tmp_path, monkeypatch, spent)
    state = Preview(Project(root.resolve()), "mini").refresh()
    errors = [p for p in state["problems"] if p["severity"] == "error"]
    assert len(errors) == 1, errors
    assert errors[0]["message"].startswith("the game draws too much")
    assert errors[0]["where"]["file"] == CARD and errors[0]["where"]["line"] == 3


def test_an_icon_of_many_shapes_drawn_many_times_spends_each_shape_it_paints(tmp_path):
    # an icon's PDF form is written once, but every use is painted again where it is rendered: 5,000 uses of an
    # icon of 640 shapes took 15 s and 1.9 GB to export as PNG, and a Tabletop Simulator export hung
    icon = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
            + '<rect width="1" height="1"/>' * 300 + "</svg>\n")
    root = make_project(tmp_path / "proj", {
        CARD: "size: poker\nelements:\n  - {type: icons, icon: star, count: 1000, size: 0.05, gap: 0}\n",
        "layouts/shared/icons/round-star.svg": icon})
    result = run(root, "build")
    assert result.exit_code == 1
    errors = _errors(result)
    assert len(errors) == 1, errors  # at the element that spent the last step
    assert errors[0].startswith(f"{CARD}:3:5: error: mini: build failed: the game draws too much")
