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
