"""Faces PDF pages -> PNG files with pypdfium2 (the PDF's own drawing, no second renderer), in parallel
processes: rendering is quick, PNG encoding is what takes the time."""

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from ..errors import OutputError
from ..project import ctrl_c_held_while_forking, new_file, open_file, usable_cores, worker_context

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from collections.abc import Callable
    from pathlib import Path

    import numpy as np
    import pypdfium2 as pdfium

MAX_PIXELS = 40_000_000  # in one image: rendering takes ~10 bytes a pixel at its peak, so ~400 MB (a 530 mm
# square board at 300 dpi); a larger image is planned at a lower resolution (formats.within_cap)
BYTES_PER_PIXEL = 10  # what rendering an image takes at its peak: pdfium's bitmap, the crop, the PNG strips, the
# compressed file (3 bytes a pixel of noise; measured: 139 MB in a worker for a 14.5-megapixel card of noise)
RENDER_MEMORY = 400_000_000  # the images being rendered by all the workers together, at most: one worker per core
# each rendering an image near MAX_PIXELS took 400 MB apiece (984 MB on two cores, 3 GB or more on eight); the
# batches are given to the workers as earlier ones end, within it (write_all). Beside it: pnp drawing the next
# faces (~160 MB while it draws pictures; the pictures its check kept are given up before the workers are
# forked, see _pool); 500 MB let three 1200-dpi poker cards (145 MB apiece) be rendered at once, 400 two (and
# one image near MAX_PIXELS, alone)
MAX_EXPORT_PIXELS = 2_000_000_000  # in every image of one export together: about a minute of rendering and encoding
# on one core, and room for about 1,900 poker-card faces at 300 dpi, what a large card game sends a print service
# (DinoSpan's 356 faces at 300 dpi are 370 million); beyond it an export is refused before any is drawn
# (run.within_work), a lower --dpi suggested: 356 faces at 1200 dpi ran for many minutes and wrote gigabytes
PNG_LEVEL = 1  # zlib level of the PNG files, with every row filtered "Up" (less its row above); see png_bytes
PNG_STRIP = 256  # rows filtered and compressed at a time: the memory a large image needs beyond its own pixels


@dataclass(frozen=True)
class Shot:
    """One image to make from a faces-PDF page: the trim scaled to `trim_px`, with `bleed_px` (left, top,
    right, bottom) of art around it. Art the layout does not provide that far is continued from its edge."""

    page: int
    path: str
    trim_px: tuple  # (w, h)
    bleed_px: tuple  # (left, top, right, bottom)
    art_bleed_pt: float  # art beyond the trim on the page
    trim_pt: tuple  # (w, h) of the trim on the page
    dpi: float  # written into the file


def render_pixels(document: "pdfium.PdfDocument", shot: Shot) -> "np.ndarray":
    """The pixels of one shot from the open faces PDF: rows x columns x RGB, exactly its size."""
    page = document[shot.page]
    try:
        return page_pixels(page, shot)
    finally:
        page.close()


def page_pixels(page: "pdfium.PdfPage", shot: Shot) -> "np.ndarray":
    """The pixels of one shot from its page, open (the preview reads the page's text too): rows x columns x RGB.
    pdfium renders into a packed buffer that Python owns, seen as an array without a copy; cropping it is a view,
    so the encoder reads pdfium's own pixels (a copy through Pillow cost more than the rendering at 300 dpi)."""
    tw, th = shot.trim_px
    if shot_pixels(shot) > MAX_PIXELS:
        raise ValueError(f"{shot.path}: more than {MAX_PIXELS:,} pixels (formats plan every image within it)")
    scale = max(tw / shot.trim_pt[0], th / shot.trim_pt[1])
    # an opaque fill gives pdfium's 3-byte format; rev_byteorder: RGB rather than pdfium's native BGR
    bitmap = page.render(scale=scale, fill_color=(255, 255, 255, 255), rev_byteorder=True)
    pixels = bitmap.to_numpy()  # its buffer is a ctypes array (new_native): the view outlives the bitmap
    bitmap.close()  # now, by the thread holding pdfium, not later by the garbage collector in any thread
    # the page is trim + art bleed; scale it so the trim is exactly trim_px (a fraction of a pixel's stretch)
    art = shot.art_bleed_pt
    art_px = (round(art * tw / shot.trim_pt[0]), round(art * th / shot.trim_pt[1]))
    size = (tw + 2 * art_px[0], th + 2 * art_px[1])
    if (pixels.shape[1], pixels.shape[0]) != size:
        pixels = _to_size(pixels, size)
    return _with_bleed(pixels, art_px, shot.bleed_px)


def _to_size(pixels: "np.ndarray", size: tuple) -> "np.ndarray":
    """The rendering brought to `size`: rendered at the larger of the two scales, it is at most a few pixels
    too large, which are cropped evenly from both sides (resampling a whole card for that would blur it and
    cost more than rendering it); anything else is resampled."""
    import numpy as np

    dw, dh = pixels.shape[1] - size[0], pixels.shape[0] - size[1]
    if 0 <= dw <= max(3, size[0] // 100) and 0 <= dh <= max(3, size[1] // 100):
        return pixels[dh // 2:dh // 2 + size[1], dw // 2:dw // 2 + size[0]]
    return np.asarray(Image.fromarray(pixels).resize(size, Image.Resampling.LANCZOS))


def _with_bleed(pixels: "np.ndarray", art_px: tuple, want: tuple) -> "np.ndarray":
    """Crop or extend the art around the trim to `want` (left, top, right, bottom) pixels; where the art stops
    short, its outermost pixels are repeated outwards (the usual way to make bleed for a print shop)."""
    import numpy as np

    ax, ay = art_px
    h, w = pixels.shape[:2]
    tw, th = w - 2 * ax, h - 2 * ay
    left, top, right, bottom = want
    rows = slice(ay - min(ay, top), ay + th + min(ay, bottom))
    art = pixels[rows, ax - min(ax, left):ax + tw + min(ax, right)]
    pad = ((max(top - ay, 0), max(bottom - ay, 0)), (max(left - ax, 0), max(right - ax, 0)), (0, 0))
    return np.pad(art, pad, mode="edge") if any(any(p) for p in pad) else art


def save(pixels: "np.ndarray", path: str, dpi: float) -> None:
    """The PNG file written piece by piece (png_pieces): joined first, a noisy picture's file was held four times
    over (the pieces, their join, the chunk, the file's join), 12 bytes a pixel beside the rendering's 3; two
    workers at 1200 dpi took 240 MB apiece (20 noisy full-art poker cards: 805 MB summed with -j 2)."""
    with new_file(path) as out:
        for piece in png_pieces(pixels, dpi):
            out.write(piece)


def png_bytes(pixels: "np.ndarray", dpi: float, up: bool = True) -> bytes:
    """RGB pixels (rows x columns x 3) as PNG bytes (png_pieces joined): the preview's small images."""
    return b"".join(png_pieces(pixels, dpi, up))


def png_pieces(pixels: "np.ndarray", dpi: float, up: bool = True) -> Iterator[bytes]:
    """RGB pixels (rows x columns x 3) as the pieces of a PNG file, the dpi in its pHYs chunk, every row with
    PNG's "Up" filter and zlib at PNG_LEVEL, the compressed strips held once (a chunk's length comes before its
    data) and never joined. Measured (benchmarks/bench_png.py) on Diamonds & Dinosaurs' faces at 300 dpi:
    Pillow's encoder takes 20 ms a face at compress_level 1 or 3 and 33 ms at 6, most of it choosing a filter for
    each row; this takes 9 ms for files 5% larger than level 3's (on a noisy photograph: 40% less time, for
    files no larger). The same pixels give the same bytes (one filter, one level, strips of fixed height).
    Without `up`, rows unfiltered: the preview's small images (a card in 257 x 360 px), whose rows are less
    alike, in 25% less time and files 25% smaller (DinoSpan's fronts)."""
    import struct
    import zlib

    import numpy as np

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    height, width = pixels.shape[:2]
    rows = np.asarray(pixels, dtype=np.uint8).reshape(height, width * 3)  # a view even of a cropped rendering
    deflate, idat = zlib.compressobj(PNG_LEVEL), []
    strip = np.empty((min(PNG_STRIP, height), width * 3 + 1), dtype=np.uint8)
    strip[:, 0] = 2 if up else 0  # the filter type "Up" (the row above the first is zeros), or "None"
    for top in range(0, height, PNG_STRIP):
        n = min(PNG_STRIP, height - top)
        if not up:
            strip[:n, 1:] = rows[top:top + n]
        else:
            if top:
                np.subtract(rows[top], rows[top - 1], out=strip[0, 1:])
            else:
                strip[0, 1:] = rows[0]
            np.subtract(rows[top + 1:top + n], rows[top:top + n - 1], out=strip[1:n, 1:])
        idat.append(deflate.compress(strip[:n]))  # type: ignore[arg-type]  # a C-contiguous array is a buffer (its stubs do not say so)
    idat.append(deflate.flush())
    per_metre = int(dpi / 0.0254 + 0.5)
    yield (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
           + chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)))
    # one IDAT chunk, as before (the same bytes): its length, then the strips, its CRC carried along them
    yield struct.pack(">I", sum(len(piece) for piece in idat)) + b"IDAT"
    crc = zlib.crc32(b"IDAT")
    for piece in idat:
        crc = zlib.crc32(piece, crc)
        yield piece
    yield struct.pack(">I", crc) + chunk(b"IEND", b"")


BATCH = 8  # shots one task renders: small enough to share a chunk's pages between the processes


def _work(args: tuple[str, list[Shot]]) -> int:
    """Render and save `shots` (their pages numbered within it) from the faces PDF at the path; how many."""
    pdf_path, shots = args
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(open_file(pdf_path), autoclose=True)
    try:
        for shot in shots:
            save(render_pixels(document, shot), shot.path, shot.dpi)
    finally:
        document.close()
    return len(shots)


def _load_libraries() -> None:
    """A worker's first act: end with the pnp that started it (project.end_with_parent), and load what rendering
    and encoding need while the first faces are still drawn."""
    from ..project import ctrl_c_left_to_parent, end_with_parent

    end_with_parent()
    ctrl_c_left_to_parent()  # (pnp drops the batches not begun and waits for the rest)
    import numpy  # noqa: F401
    import pypdfium2  # noqa: F401


def _batches(shots: dict[int, list[Shot]], chunk: tuple[Path, int, int]) -> list[tuple[str, list[Shot]]]:
    """The tasks of one faces PDF (path, first page, page count): its shots (`shots`: by page of all the faces)
    with their pages numbered within it, BATCH at a time."""
    from dataclasses import replace

    path, first, count = chunk
    mine = [replace(shot, page=page - first) for page in range(first, first + count) for shot in shots.get(page, ())]
    return [(str(path), mine[i:i + BATCH]) for i in range(0, len(mine), BATCH)]


def write_all(chunks: Iterable[tuple[Path, int, int]], shots: list[Shot], jobs: int = 1,
              on_done: Callable[[int], None] | None = None, on_start: Callable[[], None] | None = None) -> None:
    """Render and save every shot from the faces PDFs `chunks` yields, (path, first page, page count) each,
    drawn as they are asked for (faces.drawn_in_chunks); `on_start()` once the work begins, `on_done(n)` as
    shots are saved. `jobs` processes render a PDF's shots while the next PDF is drawn (drawing is Python
    holding the GIL, a thread could not share it), given batches only while the images they render take at most
    RENDER_MEMORY together; the files are the same whatever the split."""
    report = on_done or (lambda n: None)
    by_page: dict[int, list[Shot]] = {}
    for shot in shots:
        by_page.setdefault(shot.page, []).append(shot)
    # no more processes than cores (as `simulate`) or batches: -j 64 started 65 processes, 4.2 GB together, for
    # no gain past the cores
    jobs = min(jobs, usable_cores(), -(-len(shots) // BATCH))
    if jobs <= 1:
        (on_start or (lambda: None))()
        for chunk in chunks:
            for batch in _batches(by_page, chunk):
                report(_work(batch))
        return
    _write_in_processes(chunks, by_page, jobs, report, on_start or (lambda: None))


def _write_in_processes(chunks: Iterable[tuple[Path, int, int]], by_page: dict[int, list[Shot]], jobs: int,
                        report: Callable[[int], None], started: Callable[[], None]) -> None:
    """write_all's work given to `jobs` processes, each batch once the images given before leave it room."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    pool = _pool(jobs)
    try:  # (left on an error or Ctrl-C: the batches not begun are dropped, not rendered first)
        pending: deque[tuple[Future[int], int]] = deque()  # (result, the memory its rendering may take), in order
        held = 0  # the memory of the batches given to the workers and not yet done

        def done_oldest() -> None:
            nonlocal held
            result, peak = pending.popleft()
            report(result.result())
            held -= peak

        for chunk in chunks:
            for batch in _batches(by_page, chunk):
                peak = batch_memory(batch[1])
                while pending and held + peak > RENDER_MEMORY:  # (a batch is given alone, whatever it takes)
                    done_oldest()
                pending.append((pool.submit(_work, batch), peak))
                held += peak
                # only once the workers are forked (at the first batch) may a progress bar start its thread
                started()
                started = _nothing
            while pending and pending[0][0].done():
                done_oldest()
        started()
        while pending:
            done_oldest()
    except BrokenProcessPool:  # (seen at a result, or at the next submit when the pool broke before it)
        raise OutputError("a process rendering the images ended without a word (ended by the system: out "
                          "of memory?)") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _nothing() -> None:
    """What a progress bar's start is once it started."""


def _pool(jobs: int) -> "ProcessPoolExecutor":
    """The `jobs` processes that render the images: a ProcessPoolExecutor, not a multiprocessing Pool, whose
    result of a worker ended by the system (out of memory, a crash in the renderer) never came, and the export
    waited for good; here the worker's end is an error (BrokenProcessPool)."""
    from concurrent.futures import ProcessPoolExecutor

    from ..draw.pictures import forget_kept

    # the resampled pictures the check kept for the drawing (up to KEPT_BYTES) given up before the fork: forked
    # with them, each worker kept its copy of their pages for good once pnp let them go and kept others for its
    # next faces (a 1200-dpi export of noisy pictures peaked at 984 MB on two cores, the workers' ~385 MB each)
    forget_kept()
    with ctrl_c_held_while_forking():
        pool = ProcessPoolExecutor(jobs, mp_context=worker_context("fork"), initializer=_load_libraries)
        # forked now, before the first faces are drawn (a forking pool starts all its processes at its first
        # task), not at the first batch, when pnp held what drawing it used: a waiting worker's own memory 29 MB,
        # now 17
        pool.submit(_nothing)
    return pool


def batch_memory(shots: list[Shot]) -> int:
    """The most memory a worker takes rendering `shots` one after the other: its largest image's."""
    return max(shot_pixels(shot) for shot in shots) * BYTES_PER_PIXEL


def shot_pixels(shot: Shot) -> int:
    """The pixels of the image `shot` makes, bleed included."""
    (tw, th), (left, top, right, bottom) = shot.trim_px, shot.bleed_px
    return (tw + left + right) * (th + top + bottom)


def run_tasks(tasks: "list[Callable[[Path], None]]", folder: "Path", jobs: int = 1,
              on_done: "Callable[[int], None] | None" = None) -> None:
    """Run each task(folder) (a format's files made after the images, such as Ghostscript conversions), `jobs` at
    a time, calling `on_done(1)` as each ends. Threads, not processes: each task's work is a program of its own,
    and a progress bar's thread is running by now (forking under it could hang)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    on_done = on_done or (lambda n: None)
    # no more at a time than cores, as write_all's images: -j 64 ran a game's 25 decks' Ghostscripts at once on two
    # cores (720 MB together, a deck's pages held by each thread besides), for no gain past the cores
    jobs = min(jobs, usable_cores(), len(tasks))
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for done in as_completed([pool.submit(task, folder) for task in tasks]):
            done.result()
            on_done(1)
