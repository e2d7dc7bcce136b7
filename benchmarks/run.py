"""pnp's speed and memory, measured; asserts nothing (speed is never a test's pass or fail).

Run: python3 benchmarks/run.py [--runs 5]. Prints one table, with this machine's core count:
  1. a synthetic 1000-card deck through pnp's whole pipeline (load, validate, fit, draw, impose, write) against
     its raw ReportLab twin doing the same drawing, timed in turns in this process;
  2. every shipped kit built cold (`pnp build --force`, --jobs = the cores) as a multiple of the raw deck;
  3. a rebuild with nothing changed against the cold build, and which games one changed card rebuilds;
  4. `pnp validate` of 10,000 cards, and the peak memory of `pnp build` of them;
     `pnp report` of them (every field charted, every constraint's margin);
  5. `pnp export` of Diamonds and Dinosaurs as 300 dpi PNGs, in A4-page equivalents of pixels per second.
Figures are medians of --runs runs; ratios are taken between figures measured in this one run.
"""

import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from bench_deck import bench_raw, make_project  # noqa: E402

GOALS = {"deck": 1.3, "kits": 4.0, "noop": 0.10, "validate": 1.0, "memory": 150, "export": 8.0}
A4_AT_300 = 2480 * 3508  # pixels of an A4 page at 300 dpi
PNP = [sys.executable, "-c", "from pnp.cli import main; main()"]


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def pnp(*args, cwd=REPO, check=True):
    result = subprocess.run(PNP + list(args), cwd=cwd, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise SystemExit(f"pnp {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
    return result


def timed_pnp(*args, cwd=REPO):
    t0 = time.perf_counter()
    result = pnp(*args, cwd=cwd)
    return time.perf_counter() - t0, result


def deck_pipeline(root, out):
    """What `pnp build` does to one game, in this process: load, validate, fit, draw, impose, write."""
    from pnp.kit import build_game
    from pnp.project import find
    from pnp.units import PrintOptions

    outcome = build_game(find(root), "bench", PrintOptions(), out, force=True)
    assert outcome.status == "built", outcome.diagnostics


def raw_deck(n, fonts, out):
    bench_raw(n, fonts, out)


def measure_deck(tmp, runs):
    from pnp.draw.fonts import load_fonts
    from pnp.project import find

    root = tmp / "deck"
    make_project(root, 1000)
    fonts = load_fonts(find(root))
    deck_pipeline(root, tmp / "deck-out")  # warm: fonts registered and icons parsed, for both sides alike
    raw_deck(1000, fonts, tmp / "raw.pdf")
    pnp_times, raw_times = [], []
    for _ in range(runs):  # in turns, so a drift of the machine's speed touches both alike
        t0 = time.perf_counter()
        deck_pipeline(root, tmp / "deck-out")
        t1 = time.perf_counter()
        raw_deck(1000, fonts, tmp / "raw.pdf")
        t2 = time.perf_counter()
        pnp_times.append(t1 - t0)
        raw_times.append(t2 - t1)
    ratios = [p / r for p, r in zip(pnp_times, raw_times)]
    return statistics.median(pnp_times), statistics.median(raw_times), statistics.median(ratios)


def copy_project(dest):
    for rel in ("cards", "layouts"):
        shutil.copytree(REPO / rel, dest / rel)
    return dest


def measure_kits(tmp, runs):
    project = copy_project(tmp / "kits")
    out = tmp / "kits-out"
    pnp("build", "--force", "--out", str(out), cwd=project)  # warm: what a designer's machine has kept
    cold = statistics.median(timed_pnp("build", "--force", "--out", str(out), cwd=project)[0] for _ in range(runs))
    noop = statistics.median(timed_pnp("build", "--out", str(out), cwd=project)[0] for _ in range(runs))
    games = sorted(p.parent.name for p in (project / "cards").glob("*/game.yaml"))
    # one changed card: a DinoSpan dinosaur's fact gets one more word
    deck = project / "cards/dinospan/dinosaurs-jurassic.yaml"
    text = deck.read_text(encoding="utf-8")
    deck.write_text(text.replace('fact: "', 'fact: "Indeed, ', 1), encoding="utf-8")
    _, result = timed_pnp("build", "--out", str(out), cwd=project)
    rebuilt = re.findall(r"^(\S+): \d+ files", result.stdout, re.M)
    return cold, noop, games, rebuilt


VALIDATE_IN_PROCESS = """
import statistics, sys, time
from pnp.check import validate
from pnp.project import find
from pnp.report import Report
project = find(sys.argv[1])
validate(project, "bench", Report())  # warm: fonts registered, icons parsed, templates compiled
times = []
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    validate(project, "bench", Report())
    times.append(time.perf_counter() - t0)
print(statistics.median(times))
"""


def measure_scale(tmp, runs):
    """Validation of 10,000 cards timed inside a fresh process (after its imports and one warm-up: the
    work of validating, not of starting Python), the whole `pnp validate` command, and the peak memory of
    building them."""
    root = tmp / "big"
    make_project(root, 10_000)
    in_process = float(subprocess.run([sys.executable, "-c", VALIDATE_IN_PROCESS, str(root), str(runs)],
                                      cwd=REPO, capture_output=True, text=True, check=True).stdout)
    command = statistics.median(timed_pnp("validate", cwd=root)[0] for _ in range(runs))
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
             "stderr=subprocess.DEVNULL, check=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    peak = subprocess.run([sys.executable, "-c", probe, *PNP, "build", "--force", "--jobs", "1", "--out",
                           str(tmp / "big-out")], cwd=root, capture_output=True, text=True, check=True)
    report_root = report_project(tmp / "big-report", 10_000)
    report = statistics.median(timed_pnp("report", cwd=report_root)[0] for _ in range(runs))
    return in_process, command, int(peak.stdout) / 1024, report


REPORT_GAME = """title: Report bench
players: 2
ages: 8+
time: 1 minute
credits: {design: bench}
enums: {era: [early, middle, late], kind: [beast, plant, rock, river]}
tables:
  cards:
    fields: {id: {type: id}, name: {type: str}, era: {type: enum, enum: era}, kind: {type: enum, enum: kind},
             cost: {type: int}, power: {type: int}, weight: {type: number}, rare: {type: bool}}
    derived: {value: "item.power - item.cost"}
constraints:
  - {expr: "data.cards | length <= 20000"}
  - {each: cards, expr: "item.cost <= 12"}
  - {each: cards, expr: "(item.power - item.cost) | abs <= 6"}
report:
  - {kind: scatter, table: cards, x: cost, y: power, by: era}
  - {kind: counts, table: cards, x: kind, by: era}
  - {kind: histogram, table: cards, x: weight, by: era}
  - {kind: histogram, table: cards, x: value}
"""


def report_project(root, n):
    """A game of one table of n rows with numbers, enums, a yes/no, a derived field, three constraints (two
    checked on each row) and four views: what `pnp report` charts, at scale."""
    import random

    rng = random.Random(1)
    (root / "cards" / "bench").mkdir(parents=True)
    (root / "cards" / "bench" / "game.yaml").write_text(REPORT_GAME)
    rows = []
    for i in range(n):
        cost = rng.randint(1, 10)
        rows.append(f"- {{id: c{i}, name: Card {i}, era: {rng.choice(['early', 'middle', 'late'])}, "
                    f"kind: {rng.choice(['beast', 'plant', 'rock'])}, cost: {cost}, "
                    f"power: {cost + rng.randint(-3, 3)}, weight: {rng.gauss(50, 12):.2f}, "
                    f"rare: {'true' if rng.random() < 0.1 else 'false'}}}")
    (root / "cards" / "bench" / "cards.yaml").write_text("\n".join(rows) + "\n")
    return root


def measure_export(tmp, runs):
    """`pnp export diamonds-and-dinosaurs --format png` (300 dpi, every face and back): A4-page equivalents
    of pixels written per second of the whole command."""
    project = copy_project(tmp / "export")
    out = tmp / "export-out"
    pnp("export", "diamonds-and-dinosaurs", "--format", "png", "--out", str(out), cwd=project)  # warm
    seconds = statistics.median(timed_pnp("export", "diamonds-and-dinosaurs", "--format", "png", "--force", "--out",
                                          str(out), cwd=project)[0] for _ in range(runs))
    from PIL import Image

    pixels = 0
    for path in (out / "diamonds-and-dinosaurs" / "png").rglob("*.png"):
        with Image.open(path) as image:
            pixels += image.width * image.height
    return pixels / A4_AT_300, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs per figure; the median is printed")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="let every pnp command compile pnp's modules again, as it does where "
                             "PYTHONDONTWRITEBYTECODE is set (by default the commands keep their bytecode, in a "
                             "folder of this run, as an installed pnp does)")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    tmp = Path(tempfile.mkdtemp(prefix="pnp-bench-"))
    if not args.no_bytecode:  # the commands below inherit this
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(tmp / "bytecode")
    try:
        deck, raw, ratio = measure_deck(tmp, args.runs)
        cold, noop, games, rebuilt = measure_kits(tmp, args.runs)
        validate_s, validate_cmd, peak, report_s = measure_scale(tmp, args.runs)
        pages, export_s = measure_export(tmp, args.runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def verdict(ok):
        return "met" if ok else "NOT met"

    bytecode = "compiled again by every command" if args.no_bytecode else "bytecode kept, as installed"
    print(f"pnp benchmarks — {datetime.date.today()}, {cores} cores, Python {platform.python_version()}, "
          f"medians of {args.runs} runs, pnp's modules {bytecode}")
    rows = [
        ("1. 1000-card deck, whole pipeline / raw ReportLab", f"{deck:.2f} s / {raw:.2f} s = {ratio:.2f}x",
         f"<= {GOALS['deck']}x", verdict(ratio <= GOALS["deck"])),
        (f"2. {len(games)} shipped kits cold / raw deck", f"{cold:.2f} s = {cold / raw:.2f}x",
         f"<= {GOALS['kits']:g}x", verdict(cold / raw <= GOALS["kits"])),
        ("3. no-op rebuild / cold build", f"{noop:.2f} s = {100 * noop / cold:.1f}%",
         f"<= {100 * GOALS['noop']:.0f}%", verdict(noop / cold <= GOALS["noop"])),
        ("   one DinoSpan card changed: rebuilt", ", ".join(rebuilt) or "nothing", "dinospan only",
         verdict(rebuilt == ["dinospan"])),
        ("4. validate 10,000 cards (fresh process)", f"{validate_s:.2f} s", f"< {GOALS['validate']:g} s",
         verdict(validate_s < GOALS["validate"])),
        ("   `pnp validate` of them, whole command", f"{validate_cmd:.2f} s", "", ""),
        ("   peak memory, `pnp build` of them", f"{peak:.0f} MB", f"< {GOALS['memory']} MB",
         verdict(peak < GOALS["memory"])),
        ("   `pnp report` of them, whole command", f"{report_s:.2f} s", "a few s", ""),
        ("5. export png at 300 dpi, A4 pages / s", f"{pages / export_s:.1f} ({pages:.0f} in {export_s:.2f} s)",
         f">= {GOALS['export']:g}", verdict(pages / export_s >= GOALS["export"])),
    ]
    width = max(len(r[0]) for r in rows)
    for name, figure, goal, ok in rows:
        print(f"{name:<{width}}  {figure:<26} {goal:<14} {ok}")


if __name__ == "__main__":
    main()
