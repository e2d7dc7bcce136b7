"""The designer's inner loop (issue 27), measured; asserts nothing. On a copy of DinoSpan with its preview open
(serve.preview.Preview, in process, as `pnp serve` refreshes it after a save):
  1. one card's data edited (a dinosaur's PP): until the page has its new state and that card's image (the
     refresh's first step; an engine that refreshes in one step: its whole refresh), and (data_edit_whole) until
     the whole refresh is done (the whole game checked, every face drawn, the final state);
  2. the dinosaur card's layout edited (a colour): every front resolved and drawn again;
  3. `validate` of 10,000 cards (benchmarks/bench_deck.py's deck), in process after a warm-up, its data file
     parsed each time (the parse a later check of the same bytes would reuse is forgotten first).
Each figure is the median of --runs, as processor time (the machine may be shared: CPU time of this process,
which does not count time spent waiting for a core) and wall time. Run it on two engines in turns for a
paired comparison: PYTHONPATH=<engine> python benchmarks/bench_inner_loop.py (it imports pnp from sys.path).
"""

import argparse
import inspect
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

GOALS = {"data_edit": 0.080, "data_edit_whole": None, "layout_edit": 0.600, "validate_10000": 0.5}  # s, issue 27


def timed(fn) -> tuple:
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def dinospan_copy(root: Path) -> Path:
    for rel in ("cards/dinospan", "layouts/dinospan", "layouts/shared"):
        shutil.copytree(REPO / rel, root / rel)
    (root / "pyproject.toml").write_text("")
    return root


def preview_edits(tmp: Path, runs: int) -> dict:
    from pnp.project import find
    from pnp.serve.preview import Preview

    root = dinospan_copy(tmp / "dinospan")
    preview = Preview(find(root), "dinospan")
    preview.refresh()  # the page opened: every face drawn once
    data = root / "cards/dinospan/dinosaurs-jurassic.yaml"
    layout = root / "layouts/dinospan/dino-card.yaml"
    text, card = data.read_text(), layout.read_text()
    assert "pp: 3" in text and 'fill: "{{ paper }}"' in card
    out = {"data_edit": [], "data_edit_whole": [], "layout_edit": []}
    values = [4, 5, 6, 2, 1, 0]  # a value not seen before at each edit (up to 6 runs): new bytes to parse, a new
    # image to draw, as a designer's edit is (alternating two values let the parse and the image be reused)
    two_steps = "on_first" in inspect.signature(preview.refresh).parameters
    for n in range(runs):
        value = values[n % len(values)]
        data.write_text(text.replace("pp: 3", f"pp: {value}", 1))
        cpu, wall, first = time.process_time(), time.perf_counter(), []

        def on_first(state: dict, value: int = value) -> None:  # the state and the card's image are the page's
            first.append((time.process_time() - cpu, time.perf_counter() - wall))
            edited = [c for c in state["cards"].values() if c["fields"].get("id") == "allosaurus-fragilis"]
            assert edited and all(c["fields"]["pp"] == value and c["faces"][0]["image"] for c in edited)

        if two_steps:
            preview.refresh(on_first)
        else:
            preview.refresh()
        whole = (time.process_time() - cpu, time.perf_counter() - wall)
        out["data_edit"].append(first[0] if first else whole)
        out["data_edit_whole"].append(whole)
        assert preview.state["status"] == "ok", preview.state["problems"]
        assert len(first) == two_steps, "the edited card was not shown first"
    for n in range(runs):
        layout.write_text(card.replace('fill: "{{ paper }}"', f'fill: "#fffff{n % 10}"', 1))
        out["layout_edit"].append(timed(preview.refresh))
        assert preview.state["status"] == "ok", preview.state["problems"]
    return out


def validation(tmp: Path, runs: int) -> dict:
    from bench_deck import make_project

    from pnp.check import validate
    from pnp.project import find
    from pnp.report import Report

    root = tmp / "deck"
    make_project(root, 10_000)
    project = find(root)

    from pnp.model import load

    def once():
        if hasattr(load, "PARSED"):  # a full validation parses its files, as `pnp validate` in a new process
            load.PARSED.__init__()
        report = Report(project.root)
        validate(project, "bench", report)
        assert not report.errors, report.errors[:3]

    once()  # warm-up: templates compiled, the icon drawings cached
    return {"validate_10000": [timed(once) for _ in range(runs)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the medians as JSON (for paired runs)")
    parser.add_argument("--preview-only", action="store_true", help="the two edits only, not the 10,000 cards")
    parser.add_argument("--validate-only", action="store_true", help="the 10,000 cards only, not the two edits")
    args = parser.parse_args()
    import pnp  # from PYTHONPATH, before bench_deck puts this repository first on sys.path

    with tempfile.TemporaryDirectory(prefix="pnp-bench-inner-") as tmp:
        figures = preview_edits(Path(tmp), args.runs) if not args.validate_only else {}
        if not args.preview_only:
            figures.update(validation(Path(tmp), args.runs))
    medians = {name: {"cpu": statistics.median(c for c, _ in times), "wall": statistics.median(w for _, w in times)}
               for name, times in figures.items()}
    if args.json:
        print(json.dumps(medians))
        return
    print(f"engine: {Path(pnp.__file__).parent.parent}, {args.runs} runs, medians")
    print(f"{'figure':<16} {'CPU s':>8} {'wall s':>8} {'goal s':>8}")
    for name, m in medians.items():
        goal = f"{GOALS[name]:>8.3f}" if GOALS[name] is not None else f"{'-':>8}"
        print(f"{name:<16} {m['cpu']:>8.3f} {m['wall']:>8.3f} {goal}")


if __name__ == "__main__":
    main()
