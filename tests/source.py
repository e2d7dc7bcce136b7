"""pnp's own source, parsed once per test process: the tests that scan it for a second definition or a call
made elsewhere (test_options_once, test_registries) each parsed all of pnp/ (2 MB of Python, 1.5-3 s a
parse), several times a run."""

import ast
import functools
import gc
from pathlib import Path

PNP = Path(__file__).resolve().parent.parent / "pnp"


@functools.cache
def modules() -> tuple[str, ...]:
    """Each module of pnp/, by its path from the repository ('pnp/draw/canvas.py')."""
    return tuple(p.relative_to(PNP.parent).as_posix() for p in sorted(PNP.rglob("*.py")))


@functools.cache
def nodes() -> tuple[tuple[str, ast.AST], ...]:
    """(module path, node) for every node of every module of pnp/, made with the cyclic garbage collector paused:
    the 350,000 nodes, made at once and kept for the process's life, set off collection after collection of all
    the process holds as they were made (7 s of CPU, where parsing and walking take 2)."""
    gc.disable()
    try:
        return tuple((path, node) for path in modules()
                     for node in ast.walk(ast.parse((PNP.parent / path).read_text(encoding="utf-8"))))
    finally:
        gc.enable()


@functools.cache
def of(kind: type) -> tuple[tuple[str, ast.AST], ...]:
    """(module path, node) for the nodes of pnp/ of one kind (ast.Call, ast.ClassDef, ...): each test filters
    the few thousand of its kind, not all 300,000 nodes."""
    return tuple((path, node) for path, node in nodes() if isinstance(node, kind))


def forget() -> None:
    """Let go of pnp's parsed source (a test module using it calls this as it ends): its 370,000 nodes are
    900,000 objects the cyclic garbage collector walked at each of its full passes for the rest of the process,
    0.5 s each, where parsing it again, should a later module ask, takes 1 s."""
    nodes.cache_clear()
    of.cache_clear()
