"""The games we ship validate and build, and what the manifest says matches their data."""

import json
from pathlib import Path

import pytest

from conftest import REPO, run
from pdfread import fonts, read
from pnp.model.game import load_game
from pnp.project import find
from pnp.report import Report

GAMES = find(REPO).games()


def test_the_pilot_game_is_shipped():
    assert "diamonds-and-dinosaurs" in GAMES


@pytest.mark.parametrize("game", GAMES)
def test_shipped_game_validates(game):
    result = run(REPO, "validate", game)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    result = run(REPO, "build", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("game", GAMES)
def test_manifest_counts_equal_the_data(built, game):
    manifest = json.loads((built / game / "manifest.json").read_text())
    data = load_game(find(REPO), game, Report())
    assert manifest["game"] == game and manifest["paper"] == "a4"
    by_id = {c["id"]: c for c in manifest["components"]}
    for component in data.components:
        entry = by_id[component.id]
        assert entry["kind"] == component.kind
        if component.spec.get("items"):
            table = data.tables[component.spec["items"]]
            per_item = component.spec.get("quantity")
            expected = sum(it.get(per_item, 1) if per_item else 1 for it in table) * component.spec.get("copies", 1)
            assert entry["count"] == expected
        if component.spec.get("count") is not None:
            assert entry["count"] == component.spec["count"]
    for f in manifest["files"]:
        path = built / game / f["path"]
        assert len(read(path).pages) == f["pages"]
        assert all(fonts(read(path)).values()), f["path"]


def test_diamonds_and_dinosaurs_box(built):
    manifest = json.loads((built / "diamonds-and-dinosaurs" / "manifest.json").read_text())
    counts = {c["id"]: c["count"] for c in manifest["components"]}
    assert counts["deck"] == 52 and counts["tokens"] == 46 and counts["d12"] == 1
