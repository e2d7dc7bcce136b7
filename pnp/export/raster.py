"""Faces PDF pages -> PNG files with pypdfium2 (the PDF's own drawing, no second renderer), in parallel
processes: rendering is quick, PNG encoding is what takes the time."""

import multiprocessing
from dataclasses import dataclass

from PIL import Image

MAX_PIXELS = 40_000_000  # in one image: rendering takes ~10 bytes a pixel at its peak, so ~400 MB (a 530 mm
# square board at 300 dpi); a larger image is planned at a lower resolution (formats.within_cap)
PNG_LEVEL = 3  # zlib level, measured on a poker card: 6 takes 35% longer to encode for files 9% smaller; 1 is no
# faster than 3 and 3% larger


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


def render(document, shot):
    """The image of one shot from the open faces PDF (an RGB PIL image of exactly its size)."""
    tw, th = shot.trim_px
    if (tw + shot.bleed_px[0] + shot.bleed_px[2]) * (th + shot.bleed_px[1] + shot.bleed_px[3]) > MAX_PIXELS:
        raise ValueError(f"{shot.path}: more than {MAX_PIXELS:,} pixels (formats plan every image within it)")
    page = document[shot.page]
    scale = max(tw / shot.trim_pt[0], th / shot.trim_pt[1])
    # rev_byteorder: pdfium writes RGB rather than its native BGR, which Pillow would otherwise reorder
    image = page.render(scale=scale, fill_color=(255, 255, 255, 255), rev_byteorder=True).to_pil().convert("RGB")
    page.close()
    # the page is trim + art bleed; scale it so the trim is exactly trim_px (a fraction of a pixel's stretch)
    art = shot.art_bleed_pt
    art_px = (round(art * tw / shot.trim_pt[0]), round(art * th / shot.trim_pt[1]))
    size = (tw + 2 * art_px[0], th + 2 * art_px[1])
    if image.size != size:
        image = _to_size(image, size)
    return _with_bleed(image, art_px, shot.bleed_px)


def _to_size(image, size):
    """The rendering brought to `size`: rendered at the larger of the two scales, it is at most a few pixels
    too large, which are cropped evenly from both sides (resampling a whole card for that would blur it and
    cost more than rendering it); anything else is resampled."""
    dw, dh = image.width - size[0], image.height - size[1]
    if 0 <= dw <= max(3, size[0] // 100) and 0 <= dh <= max(3, size[1] // 100):
        return image.crop((dw // 2, dh // 2, dw // 2 + size[0], dh // 2 + size[1]))
    return image.resize(size, Image.LANCZOS)


def _with_bleed(image, art_px, want):
    """Crop or extend the art around the trim to `want` (left, top, right, bottom) pixels; where the art stops
    short, its outermost pixels are repeated outwards (the usual way to make bleed for a print shop)."""
    ax, ay = art_px
    w, h = image.size
    tw, th = w - 2 * ax, h - 2 * ay
    left, top, right, bottom = want
    take = (ax - min(ax, left), ay - min(ay, top), ax + tw + min(ax, right), ay + th + min(ay, bottom))
    art = image.crop(take)
    pad = (max(left - ax, 0), max(top - ay, 0), max(right - ax, 0), max(bottom - ay, 0))
    if not any(pad):
        return art
    out = Image.new("RGB", (art.width + pad[0] + pad[2], art.height + pad[1] + pad[3]))
    out.paste(art, (pad[0], pad[1]))
    aw, ah = art.size
    if pad[0]:
        out.paste(art.crop((0, 0, 1, ah)).resize((pad[0], ah)), (0, pad[1]))
    if pad[2]:
        out.paste(art.crop((aw - 1, 0, aw, ah)).resize((pad[2], ah)), (pad[0] + aw, pad[1]))
    row_top, row_bottom = out.crop((0, pad[1], out.width, pad[1] + 1)), out.crop(
        (0, pad[1] + ah - 1, out.width, pad[1] + ah))
    if pad[1]:
        out.paste(row_top.resize((out.width, pad[1])), (0, 0))
    if pad[3]:
        out.paste(row_bottom.resize((out.width, pad[3])), (0, pad[1] + ah))
    return out


def save(image, path, dpi):
    image.save(path, "PNG", dpi=(dpi, dpi), compress_level=PNG_LEVEL)


def _work(args):
    pdf_path, shots = args
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(pdf_path))
    try:
        for shot in shots:
            save(render(document, shot), shot.path, shot.dpi)
    finally:
        document.close()
    return len(shots)


def write_all(pdf_path, shots, jobs=1, on_done=None, on_start=None):
    """Render and save every shot; `on_start()` once the work begins, `on_done(n)` after each batch. Work is
    split in page order across `jobs` processes; the files are the same whatever the split."""
    on_done = on_done or (lambda n: None)
    on_start = on_start or (lambda: None)
    batches = [(pdf_path, shots[i:i + 8]) for i in range(0, len(shots), 8)]
    if jobs <= 1 or len(batches) <= 1:
        on_start()
        for batch in batches:
            on_done(_work(batch))
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(jobs) as pool:
        on_start()  # only now may a progress bar start its thread: the workers are forked already
        for n in pool.imap(_work, batches):
            on_done(n)


def run_tasks(tasks: list, folder: object, jobs: int = 1, on_done: object = None) -> None:
    """Run each task(folder) (a format's files made after the images, such as Ghostscript conversions), `jobs` at
    a time, calling `on_done(1)` as each ends. Threads, not processes: each task's work is a program of its own,
    and a progress bar's thread is running by now (forking under it could hang)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    on_done = on_done or (lambda n: None)
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for done in as_completed([pool.submit(task, folder) for task in tasks]):
            done.result()
            on_done(1)
