"""DriveThruCards export of dinospan and evo, timed end to end (validation, drawing, composing, Ghostscript, ink
preflight): `PYTHONPATH=$PWD python benchmarks/bench_drivethru.py [runs]`. The machine is shared: run it paired
with the version to compare (alternating), and read the spread, not one figure."""

import os
import subprocess
import sys
import tempfile
import time


def main(runs: int = 1) -> None:
    env = {**os.environ, "PNP_CACHE_DIR": tempfile.mkdtemp(prefix="pnp-bench-")}
    for run in range(runs):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pnp", "export", "dinospan", "evo", "--format", "drivethru",
                            "--out", out, "--force"], check=True, env=env, capture_output=True)
            print(f"run {run + 1}: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
