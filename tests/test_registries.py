"""Extension points that are registries: an export format is one module (its class, registered once), the CLI
offers exactly the registered formats, a component kind says whether export writes its faces, and the atomic
writer and the deterministic canvas each exist once in pnp/."""

import ast
import json
import os
import subprocess
import sys

import pytest

import source
from conftest import REPO, make_project, run

from toy_export_format import FaceList


@pytest.fixture(scope="module", autouse=True)
def _source_let_go_of_at_the_end():
    """pnp's parsed source is kept only while this module's tests run (see source.forget)."""
    yield
    source.forget()


@pytest.fixture
def toy_format(monkeypatch):
    from pnp.export.registry import registered

    monkeypatch.setitem(registered(), FaceList.name, FaceList())


def test_a_format_in_one_module_is_offered_by_the_cli_and_runs(tmp_path, toy_format):
    root = make_project(tmp_path / "proj")
    shown = " ".join(run(root, "export", "--help").output.split())  # as read, whatever the terminal's width
    assert "[png|proof|tgc|mpc|drivethru|tts|toy]" in shown and "toy: a list of every exported face" in shown
    assert "faces.txt: a line per face" in shown

    result = run(root, "export", "--format", "toy")
    assert result.exit_code == 0, result.output
    folder = root / "output/mini/export/toy"
    lines = (folder / "faces.txt").read_text(encoding="utf-8").splitlines()
    assert "deck 001-lion-front" in lines and "deck 001-lion-back" in lines
    assert not any(line.startswith("rulebook ") for line in lines)  # a rulebook says it exports no faces
    recorded = json.loads((folder / "export.json").read_text(encoding="utf-8"))
    assert (recorded["format"], recorded["lines"]) == ("toy", "component stem")
    assert "up to date" in run(root, "export", "--format", "toy").output


def test_an_unregistered_format_is_refused_with_the_registered_ones(tmp_path):
    result = run(make_project(tmp_path / "proj"), "export", "--format", "toy")
    assert result.exit_code == 2 and "'png', 'proof', 'tgc', 'mpc', 'drivethru', 'tts'" in result.output


@pytest.mark.parametrize("exports_faces", [True, False])
def test_a_new_component_kind_is_exported_unless_it_says_it_has_no_faces(tmp_path, monkeypatch, toy_format,
                                                                         exports_faces):
    from pnp import products
    from pnp.products.base import Kind

    class Toy(Kind):  # no class name: Kind's own registry is left alone; the test's KINDS entry is undone
        file_part = "toys"
        order = 9

    toy = Toy()
    toy.name, toy.exports_faces = "toy", exports_faces
    monkeypatch.setitem(products.KINDS, "toy", toy)
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/game.yaml": [
        ["  - id: board\n", "  - id: meeple\n    name: Meeple\n    kind: toy\n    items: cards\n    count: 4\n    layout: card\n"
                            "  - id: board\n"]]}})
    result = run(root, "export", "--format", "toy")
    assert result.exit_code == 0, result.output
    lines = (root / "output/mini/export/toy/faces.txt").read_text(encoding="utf-8").splitlines()
    assert ("meeple 001-lion-front" in lines) is exports_faces


def _calls() -> list[tuple[str, str, int]]:
    """(module, what, line) of each call in pnp/ that renames a file or makes a ReportLab canvas."""
    found = []
    for path, node in source.of(ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        on_os = isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "os"
        if name in ("replace", "rename") and (on_os or (len(node.args) == 1 and not node.keywords)):
            found.append((path, "rename", node.lineno))  # os.replace(a, b), Path.replace(b); not str.replace(a, b)
        elif name.endswith("Canvas"):  # ReportLab's, or a subclass of it (canvas.FormCanvas)
            found.append((path, "canvas", node.lineno))
    return found


def test_files_are_renamed_into_place_and_canvases_made_in_one_place_each():
    home = {"rename": "pnp/project.py", "canvas": "pnp/draw/canvas.py"}
    calls = _calls()
    assert [f"{path}:{line}: {what}" for path, what, line in calls if path != home[what]] == []
    assert {what for path, what, _ in calls if path == "pnp/project.py"} == {"rename"}
    assert {what for path, what, _ in calls if path == "pnp/draw/canvas.py"} == {"canvas"}


@pytest.fixture
def toy_element(monkeypatch):
    """The toy element offered to layouts, as the package offers the elements of its modules (its class
    registered itself in Element.registry when toy_element was imported)."""
    from pnp.layout.elements import ELEMENTS
    from pnp.layout.elements.base import Element
    from toy_element import Dot

    monkeypatch.setitem(ELEMENTS, Dot.type, Element.registry[Dot.type])


def test_an_element_in_one_module_is_checked_drawn_and_in_the_reference(tmp_path, toy_element):
    import pdfplumber

    card = "  - {type: toydot, x: 31.5, y: 70, d: 8, fill: '#aa0000'}\n"
    base = (REPO / "tests/data/base/layouts/mini/card.yaml").read_text(encoding="utf-8")
    root = make_project(tmp_path / "ok", {"layouts/mini/card.yaml": base + card})
    built = run(root, "build")
    assert built.exit_code == 0, built.output
    with pdfplumber.open(root / "output/mini/mini-cards-a4.pdf") as pdf:
        fills = [tuple(round(v, 3) for v in c["non_stroking_color"]) for c in pdf.pages[0].curves]
        assert fills.count((0.667, 0, 0)) == 4, fills  # the dot on each of the four fronts

    bad = make_project(tmp_path / "bad", {"layouts/mini/card.yaml": base + card.replace("d: 8", "d: 0.1")})
    refused = run(bad, "validate")
    assert refused.exit_code == 1 and "layouts/mini/card.yaml:7:39: error: d: 0.1 mm is too small" in refused.output
    reference = run(root, "reference").output
    assert "toydot" in reference and "diameter" in reference


def test_export_help_lists_the_formats_without_importing_the_drawing(tmp_path):
    """`pnp export --help` imported the whole engine (the check, the component kinds, the drawing) to list the
    formats: 11.7 s under load, where `pnp --help` took 2.4 s. It imports the formats' modules alone."""
    script = ("import sys; from pnp.cli import main; sys.argv = ['pnp', 'export', '--help']\ntry:\n    main()\n"
              "except SystemExit:\n    pass\nprint(*sorted(m for m in sys.modules if m.startswith('pnp.')))")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    *shown, imported = done.stdout.splitlines()
    assert "tts: Tabletop Simulator" in " ".join(" ".join(shown).split()), shown
    engine = ("pnp.check", "pnp.draw", "pnp.products", "pnp.layout", "pnp.kit", "pnp.export.run", "pnp.export.faces")
    assert [name for name in imported.split() if name.startswith(engine)] == []


def test_a_format_s_preflight_is_said_at_the_file_it_names(tmp_path, toy_format, monkeypatch):
    # it was printed `error: output/.../faces.txt: no face listed`, the file not where every refusal puts it
    planned = FaceList.plan

    def empty(self, *args):
        plan = planned(self, *args)
        plan.finish = lambda out: (out / "faces.txt").write_text("", encoding="utf-8")
        return plan

    monkeypatch.setattr(FaceList, "plan", empty)
    result = run(make_project(tmp_path / "proj"), "export", "--format", "toy")
    assert result.exit_code == 1 and "output/mini/export/toy/faces.txt: error: no face listed" in result.output


def test_a_note_a_format_makes_as_it_composes_its_files_is_said(tmp_path, toy_format, monkeypatch):
    # the notes a format's finish made (Tabletop Simulator's snap points left out of its save, a die it has no
    # shape for) were never said: the plan's notes were reported before it ran
    planned = FaceList.plan

    def noting(self, *args):
        plan = planned(self, *args)
        written = plan.finish
        plan.finish = lambda out: (written(out), plan.notes.append(("a note made as it composed", None)))
        return plan

    monkeypatch.setattr(FaceList, "plan", noting)
    result = run(make_project(tmp_path / "proj"), "export", "--format", "toy")
    assert result.exit_code == 0 and "warning: a note made as it composed" in result.output, result.output
