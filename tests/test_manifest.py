"""The manifest as one typed record (pnp/kit/manifest.py): a part not as pnp writes it is a clean refusal
naming the file for `pnp changes`, and makes `pnp build` build again rather than trust it."""

import json

import pytest

from conftest import make_project, run


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("manifest") / "proj")
    assert run(root, "build").exit_code == 0
    return root


@pytest.mark.parametrize("part, value", [("files", "x"), ("files", [{"path": "a.pdf", "sha256": "0", "pages": "9"}]),
                                         ("warnings", [{"message": "m", "file": "f", "line": "1", "col": None}]),
                                         ("inputs", []), ("components", "abc")])
def test_a_part_not_as_pnp_writes_it_is_refused_naming_the_file(built, part, value):
    path = built / "output/mini/manifest.json"
    written = path.read_text(encoding="utf-8")
    try:
        path.write_text(json.dumps({**json.loads(written), part: value}), encoding="utf-8")
        result = run(built, "changes", "mini")
        assert result.exit_code == 2
        assert f"output/mini/manifest.json: not a pnp manifest: its {part} are not as pnp writes them" in result.output
        rebuilt = run(built, "build")
        assert rebuilt.exit_code == 0 and "up to date" not in rebuilt.output
        assert path.read_text(encoding="utf-8") == written  # built again: the same bytes as before
    finally:
        path.write_text(written, encoding="utf-8")
