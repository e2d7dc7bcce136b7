"""validate -> draw -> output/<game>/: per-kind PDFs, the all-in-one PDF, each kind's extra files and
manifest.json, written atomically."""

import hashlib
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from . import __version__, units
from .check import validate_game
from .products import KINDS
from .template import budget

__all__ = ["GameBuild", "validate", "render_game", "steps", "manifest", "write_outputs"]


@dataclass
class GameBuild:
    game: object
    studio: object
    files: dict = field(default_factory=dict)  # name -> bytes
    pages: dict = field(default_factory=dict)  # name -> page count
    placements: dict = field(default_factory=dict)  # component id -> {file, pages, all_pages}
    all_name: str = ""


def validate(project, game_id, report, options=None):
    """Validate one game within its time budget; returns (game, studio) as check.validate_game does."""
    with budget():
        return validate_game(project, game_id, report, options)


def _canvas(buf, studio, what):
    c = Canvas(buf, pagesize=studio.paper, invariant=1, pageCompression=1,
               initialFontName=studio.fonts.name("Body"))
    c.setTitle(f"{studio.game.title} — {what}")
    credits = studio.game.meta.get("credits") or {}
    c.setAuthor(str(credits.get("design", "")) or "pnp")
    c.setCreator(f"pnp {__version__}")
    c.setSubject("Print-and-play kit")
    return c


def _by_kind(game):
    """Components grouped by kind, kinds in print order."""
    groups = {}
    for component in game.components:
        groups.setdefault(component.kind, []).append(component)
    return [(KINDS[name], groups[name]) for name in KINDS if name in groups]


def steps(game):
    """How many drawing steps render_game reports: each component into its kind's PDF and into the
    all-in-one PDF, plus each extra file."""
    extra = sum(len(kind.extra_files()) for kind, _ in _by_kind(game))
    return 2 * len(game.components) + extra


def render_game(game, studio, on_step=None):
    """Draw every PDF of one game into memory; `on_step(label)` after each step. Nothing touches the
    output folder here."""
    on_step = on_step or (lambda label: None)
    result = GameBuild(game, studio)
    slug, paper_name = game.id, studio.options.paper + studio.options.variant
    everything = io.BytesIO()
    all_canvas = _canvas(everything, studio, "everything")
    with budget():
        for kind, components in _by_kind(game):
            name = f"{slug}-{kind.file_part}-{paper_name}.pdf"
            buf = io.BytesIO()
            canvas = _canvas(buf, studio, kind.file_part)
            page = 1
            for component in components:
                all_first = all_canvas.getPageNumber()
                n = kind.draw(canvas, component, studio)
                on_step(f"{component.name} ({kind.file_part} PDF)")
                n_all = kind.draw(all_canvas, component, studio)
                on_step(f"{component.name} (all-in-one PDF)")
                result.placements[component.id] = {"file": name, "pages": [page, page + n - 1],
                                                    "all_pages": [all_first, all_first + n_all - 1]}
                page += n
            canvas.save()
            result.files[name], result.pages[name] = buf.getvalue(), page - 1
            for part, title, draw in kind.extra_files():
                extra = f"{slug}-{part}{studio.options.variant}.pdf"
                buf = io.BytesIO()
                canvas = _canvas(buf, studio, title)
                result.pages[extra] = sum(draw(canvas, c, studio) for c in components)
                canvas.save()
                result.files[extra] = buf.getvalue()
                on_step(title)
    all_canvas.save()
    result.all_name = f"{slug}-{paper_name}.pdf"
    result.files[result.all_name] = everything.getvalue()
    result.pages[result.all_name] = all_canvas.getPageNumber() - 1
    return result


def manifest(result):
    game, studio = result.game, result.studio
    options = studio.options
    components = []
    for c in game.components:
        entry = {"id": c.id, "name": c.name, "kind": c.kind, "count": c.count,
                 "size_mm": KINDS[c.kind].size_mm(c, studio)}
        place = result.placements.get(c.id, {})
        entry.update(file=place.get("file"), pages=place.get("pages"),
                     all_in_one={"file": result.all_name, "pages": place.get("all_pages")})
        components.append(entry)
    files = [{"path": name, "sha256": hashlib.sha256(data).hexdigest(), "pages": result.pages[name]}
             for name, data in sorted(result.files.items())]
    return {"game": game.id, "title": game.title, "paper": options.paper, "bleed_mm": units.to_mm(studio.bleed),
            "ink_saver": options.ink_saver, "imposition": options.imposition,
            "duplex_offset_mm": [units.to_mm(v) for v in options.duplex_offset],
            "pnp": __version__, "components": components, "files": files}


def manifest_name(options):
    """manifest.json for the standard kit; a variant (ink saver, gutter fold) has its own beside it."""
    return f"manifest{options.variant}.json"


def write_outputs(result, folder):
    """Write every file to a temporary name first, then rename: a failed build leaves old files intact."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data = dict(result.files)
    data[manifest_name(result.studio.options)] = \
        (json.dumps(manifest(result), indent=2, ensure_ascii=False) + "\n").encode()
    temps = []
    try:
        for name, blob in data.items():
            tmp = folder / f".{name}.tmp"
            with open(tmp, "wb") as f:
                f.write(blob)
                f.flush()
                os.fsync(f.fileno())
            temps.append((tmp, folder / name))
        for tmp, final in temps:
            os.replace(tmp, final)
    finally:
        for tmp, _ in temps:
            if tmp.exists():
                tmp.unlink()
    return [folder / name for name in data]


def write_calibration(project, paper, folder):
    """The duplex calibration sheet for `paper`, written atomically into `folder`; returns its path."""
    from .draw.calibrate import calibration_sheet
    from .draw.fonts import load_fonts
    from .printables import PrintOptions

    size = PrintOptions(paper).paper_size
    data = calibration_sheet(size, load_fonts(project), f"pnp duplex calibration ({paper.upper()})")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"calibrate-{paper}.pdf"
    tmp = folder / f".{path.name}.tmp"
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path
