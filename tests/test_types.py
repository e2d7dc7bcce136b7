"""The engine's types and lint: mypy (configured in pyproject.toml, strict on fully annotated modules) and ruff
must both be clean. Both are in the `test` extra, so CI runs them; a machine without them skips, saying so."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (pip install '.[test]' installs it)")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_mypy_finds_no_error() -> None:
    done = _run("mypy")  # files, strictness and cache come from [tool.mypy]
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_finds_nothing_to_fix() -> None:
    done = _run("ruff", "check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_wheel_holds_every_file_under_pnp() -> None:
    """A file pnp reads at run time (a font, a scaffold's file, the preview's script) that pyproject's package-data
    does not name is left out of a wheel: pnp installed with pip then failed where it ran from the tree. Each file
    tracked under pnp/ is one setuptools puts in the wheel: a module of a package (with packages.find's
    namespaces, every folder of identifiers is one) or a match of a package-data pattern."""
    import tomllib

    try:
        listed = subprocess.run(["git", "ls-files", "-z", "pnp"], cwd=ROOT, capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: its tracked files cannot be listed")
    tracked = {Path(name) for name in listed.stdout.decode().split("\0") if name}
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert setuptools["packages"]["find"].get("namespaces", True), "a folder without __init__.py is no package"
    assert set(setuptools["package-data"]) == {"pnp"}, "patterns of another package are read from its folder"
    matched = {path.relative_to(ROOT) for pattern in setuptools["package-data"]["pnp"]
               for path in (ROOT / "pnp").glob(pattern) if path.is_file()}
    modules = {path for path in tracked if path.suffix == ".py" and all(part.isidentifier() for part in path.parts[:-1])}
    assert tracked - matched - modules == set(), "add these to [tool.setuptools.package-data] in pyproject.toml"
