"""Fixtures: a throw-away game project in tmp_path, built from tests/data/base plus per-test changes."""

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from PIL import Image

from pnp.cli import cli

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite tests/data/bad/*.errors from the current output (review the diff!)")


def make_project(root, changes=None, images=None):
    """Copy the base mini game to `root`, share the repo's fonts and icons, apply file changes."""
    shutil.copytree(DATA / "base", root, dirs_exist_ok=True)
    (root / "fonts").symlink_to(REPO / "fonts", target_is_directory=True)
    (root / "layouts" / "shared").symlink_to(REPO / "layouts" / "shared", target_is_directory=True)
    for rel, content in (changes or {}).items():
        path = root / rel
        if content is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
    for rel, (w, h) in (images or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (w, h), "#888888").save(path)
    return root


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "proj")


def run(root, *args):
    """Run the CLI in-process; returns click's Result (exit_code, stdout, stderr)."""
    return CliRunner().invoke(cli, ["--root", str(root), *args], catch_exceptions=False)


def load_case(path):
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    return spec.get("files") or {}, {k: tuple(v) for k, v in (spec.get("images") or {}).items()}
