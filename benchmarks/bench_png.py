"""PNG encoding of exported faces, bytes against time: Pillow's encoder at each zlib level (it chooses a filter
for every row) against pnp's (raster.png_bytes: every row filtered "Up", zlib level 1). The faces are a game's
png export at 300 dpi, read back; each encoder's CPU time is the best of `runs` passes over all of them.
`PYTHONPATH=$PWD python benchmarks/bench_png.py [game] [runs]`. Speed is measured here, never in a test."""

import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from pnp.export.raster import png_bytes


def faces(game: str) -> list:
    """The game's faces as exported (decoded pixels, in memory)."""
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "PNP_CACHE_DIR": tempfile.mkdtemp(prefix="pnp-bench-")}
        subprocess.run([sys.executable, "-m", "pnp", "export", game, "--format", "png", "--out", out, "--force"],
                       check=True, env=env, capture_output=True)
        images = []
        for path in sorted(Path(out).rglob("*.png")):
            with Image.open(path) as image:
                images.append(image.convert("RGB"))
        return images


def pillow(level: int):
    def encode(image: Image.Image) -> bytes:
        out = io.BytesIO()
        image.save(out, "PNG", dpi=(300, 300), compress_level=level)
        return out.getvalue()

    return encode


def measure(encode, images: list, runs: int) -> tuple:
    """(best CPU seconds for all images, bytes of all images, same bytes on every pass)."""
    best, outputs = float("inf"), set()
    for _ in range(runs):
        start = time.process_time()
        encoded = [encode(image) for image in images]
        best = min(best, time.process_time() - start)
        outputs.add(hash(tuple(encoded)))
    return best, sum(len(b) for b in encoded), len(outputs) == 1


def main(game: str = "diamonds-and-dinosaurs", runs: int = 3) -> None:
    images = faces(game)
    pixels = sum(i.width * i.height for i in images)
    print(f"{game}: {len(images)} faces, {pixels / (2480 * 3508):.1f} A4 pages of pixels at 300 dpi")
    encoders = [(f"Pillow, compress_level {n}", pillow(n)) for n in (1, 3, 6, 9)]
    encoders.append(("pnp: Up filter, zlib level 1", lambda image: png_bytes(np.asarray(image), 300)))
    print(f"{'encoder':32} {'ms a face':>10} {'A4 pages/s':>11} {'MB':>7} deterministic")
    for name, encode in encoders:
        seconds, size, same = measure(encode, images, runs)
        print(f"{name:32} {seconds / len(images) * 1000:10.1f} {pixels / (2480 * 3508) / seconds:11.1f} "
              f"{size / 1e6:7.2f} {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main(*(sys.argv[1:2] or ["diamonds-and-dinosaurs"]), *[int(a) for a in sys.argv[2:3]])
