"""pnp simulate's speed on Dino Battles, measured; asserts nothing (speed is never a test's pass or fail).

Run: python3 benchmarks/bench_simulate.py [--games 1000] [--mcts-games 20] [--jobs 2]
  1. random agents: games per second of the whole run (the games across --jobs processes; loading excluded);
  2. the search agent at its default budget against random: seconds per game, and the time 1,000 such games
     would take on --jobs processes.
Goals (issue 24): 200 random games a second on 2 cores; 1,000 MCTS games in at most 2 minutes.
On a shared machine the wall time says more about the neighbours than about pnp: with --jobs 1 the processor
time of the games is measured too, and what two free cores would make of it is printed beside.
"""

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pnp.check import load  # noqa: E402
from pnp.project import find  # noqa: E402
from pnp.report import Report  # noqa: E402
from pnp.simulate.api import load_rules  # noqa: E402
from pnp.simulate.run import Options, run  # noqa: E402


def timed(rules, options: Options) -> tuple:
    """(wall seconds, processor seconds of this process: the games' own when --jobs is 1)."""
    start, cpu = time.perf_counter(), time.process_time()
    results = run(rules, options)
    assert not any(r.failure for r in results), [r.failure for r in results if r.failure][:1]
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--mcts-games", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    project = find(str(REPO))
    rules = load_rules(project, load(project, "dino-battles", Report(project.root)))
    seconds, cpu = timed(rules, Options(games=args.games, jobs=args.jobs, seed=1))
    print(f"random: {args.games} games in {seconds:.1f} s on {args.jobs} jobs = {args.games / seconds:.0f} games/s "
          "(goal 200)" + (f"; {cpu / args.games * 1000:.2f} ms of processor a game = {2 * args.games / cpu:.0f} "
                          "games/s on 2 free cores" if args.jobs == 1 else ""))
    games = 2 * args.mcts_games  # both seatings
    seconds, cpu = timed(rules, Options(games=args.mcts_games, agents=("mcts", "random"), jobs=args.jobs, seed=1))
    print(f"mcts vs random: {games} games in {seconds:.1f} s on {args.jobs} jobs = {seconds / games:.2f} s a game; "
          f"1,000 games would take {1000 * seconds / games / 60:.1f} min (goal 2)"
          + (f"; {cpu / games:.3f} s of processor a game = {1000 * cpu / games / 2 / 60:.1f} min for 1,000 on 2 free "
             "cores" if args.jobs == 1 else ""))


if __name__ == "__main__":
    main()
