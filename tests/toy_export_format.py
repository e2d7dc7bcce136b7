"""A toy export format, whole in this one module: a list of the faces pnp exports, one line each. Registered
by the test that uses it (tests/test_registries.py), so that no other test sees it."""

from collections.abc import Callable, Iterator
from pathlib import Path

from pnp.export.formats import Plan
from pnp.export.registry import ExportFormat


class FaceList(ExportFormat):
    name = "toy"
    help = "a list of every exported face"
    writes = "faces.txt: a line per face: its component and file stem"

    def settings(self, options: dict) -> dict:
        return {**super().settings(options), "lines": "component stem"}

    def plan(self, faces: list, folder: Path, options: dict, studio: object) -> Plan:
        plan = Plan()
        lines = "".join(f"{face.component.id} {face.stem}\n" for face in faces)
        plan.finish = lambda out: (out / "faces.txt").write_text(lines, encoding="utf-8")
        return plan

    def preflight(self, plan: Plan, folder: Path, work: Path, shown_as: Callable[[str], str],
                  on_checked: Callable[[int], None] | None = None) -> Iterator[tuple[str, str]]:
        if not (work / "faces.txt").read_text(encoding="utf-8"):
            yield shown_as(str(folder / "faces.txt")), "no face listed"
