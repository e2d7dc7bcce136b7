"""validate -> products -> output/<game>/: per-kind PDFs, the all-in-one PDF and manifest.json, atomically."""

import hashlib
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from . import __version__, units
from .check import check_layouts
from .layout.spec import LayoutError
from .model.game import load_game
from .products import board, die, rulebook, tokens
from .products.studio import Studio

# print order in the all-in-one PDF, with each kind's file name part
KIND_ORDER = ("rulebook", "deck", "tokens", "board", "aid", "die")
KIND_FILE = {"rulebook": "rulebook", "deck": "cards", "tokens": "tokens", "board": "boards", "aid": "aids",
             "die": "dice"}


@dataclass
class GameBuild:
    game: object
    studio: object
    files: dict = field(default_factory=dict)  # name -> bytes
    pages: dict = field(default_factory=dict)  # name -> page count
    placements: dict = field(default_factory=dict)  # component id -> {file, pages, all_pages}


def validate_game(project, game_id, report, paper="a4", bleed=0.0):
    """Load the data and check every layout; returns (game, studio) — studio None if the data is broken."""
    before = len(report.errors)
    game = load_game(project, game_id, report)
    if game.meta is None or len(report.errors) > before:
        return game, None
    studio = Studio(game, _paper(paper), bleed)
    try:
        check_layouts(studio, report)
    except LayoutError as e:
        report.error(e.message, e.mark)
    return game, studio


def _paper(name):
    w, h = units.PAPER_SIZES[name]
    return (w * units.MM, h * units.MM)


def _canvas(buf, studio, what):
    c = Canvas(buf, pagesize=studio.paper, invariant=1, pageCompression=1,
               initialFontName=studio.fonts.name("Body"))
    c.setTitle(f"{studio.game.title} — {what}")
    c.setAuthor(str(studio.game.meta.get("credits", {}).get("design", "")) or "pnp")
    c.setCreator(f"pnp {__version__}")
    c.setSubject("Print-and-play kit")
    return c


def _draw(canvas, studio, component, book):
    kind = component.kind
    if kind == "rulebook":
        return book.draw(canvas)
    if kind in ("deck", "aid", "board"):  # imposed as sheets when they fit the paper, tiled when not
        return board.draw_boards(canvas, studio, component)
    if kind == "tokens":
        return tokens.draw_tokens(canvas, studio, component)
    if kind == "die":
        return die.draw_dice(canvas, studio, component)
    raise ValueError(f"unknown kind {kind}")


def steps(game):
    """How many drawing steps render_game reports: each component into its kind's PDF and into the
    all-in-one PDF, plus the full-size boards file."""
    return 2 * len(game.components) + (1 if any(c.kind == "board" for c in game.components) else 0)


def render_game(game, studio, paper_name, on_step=None):
    """Draw every PDF of one game into memory; `on_step(label)` after each step. Nothing touches the
    output folder here."""
    on_step = on_step or (lambda label: None)
    result = GameBuild(game, studio)
    slug = game.id
    ordered = sorted(game.components, key=lambda c: KIND_ORDER.index(c.kind))
    book = rulebook.Rulebook(studio) if any(c.kind == "rulebook" for c in ordered) else None

    everything = io.BytesIO()
    all_canvas = _canvas(everything, studio, "everything")
    by_kind = {}
    for component in ordered:
        by_kind.setdefault(component.kind, []).append(component)
    for kind in KIND_ORDER:
        if kind not in by_kind:
            continue
        name = f"{slug}-{KIND_FILE[kind]}-{paper_name}.pdf"
        buf = io.BytesIO()
        canvas = _canvas(buf, studio, KIND_FILE[kind])
        page = 1
        for component in by_kind[kind]:
            all_first = all_canvas.getPageNumber()
            n = _draw(canvas, studio, component, book)
            on_step(f"{component.name} ({KIND_FILE[kind]} PDF)")
            n_all = _draw(all_canvas, studio, component, book)
            on_step(f"{component.name} (all-in-one PDF)")
            result.placements[component.id] = {"file": name, "pages": [page, page + n - 1],
                                                "all_pages": [all_first, all_first + n_all - 1]}
            page += n
        canvas.save()
        result.files[name] = buf.getvalue()
        result.pages[name] = page - 1
    all_canvas.save()
    all_name = f"{slug}-{paper_name}.pdf"
    result.files[all_name] = everything.getvalue()
    result.pages[all_name] = all_canvas.getPageNumber() - 1
    boards = [c for c in ordered if c.kind == "board"]
    if boards:
        name = f"{slug}-boards-fullsize.pdf"
        buf = io.BytesIO()
        canvas = _canvas(buf, studio, "boards at full size")
        n = sum(board.draw_full_size(canvas, studio, c) for c in boards)
        canvas.save()
        on_step("full-size boards")
        result.files[name] = buf.getvalue()
        result.pages[name] = n
    result.all_name = all_name
    return result


def manifest(result, paper_name):
    game, studio = result.game, result.studio
    components = []
    for c in game.components:
        entry = {"id": c.id, "name": c.name, "kind": c.kind, "count": c.count}
        if c.kind != "rulebook":
            layout = studio.layouts.get(studio.layout_name(c, "layout", (c.items or [None])[0]))
            entry["size_mm"] = layout.size_mm
        else:
            entry["size_mm"] = [units.to_mm(studio.paper[0]), units.to_mm(studio.paper[1])]
        place = result.placements.get(c.id, {})
        entry.update(file=place.get("file"), pages=place.get("pages"),
                     all_in_one={"file": result.all_name, "pages": place.get("all_pages")})
        components.append(entry)
    files = [{"path": name, "sha256": hashlib.sha256(data).hexdigest(), "pages": result.pages[name]}
             for name, data in sorted(result.files.items())]
    return {"game": game.id, "title": game.title, "paper": paper_name, "bleed_mm": units.to_mm(studio.bleed),
            "pnp": __version__, "components": components, "files": files}


def write_outputs(result, folder, paper_name):
    """Write every file to a temporary name first, then rename: a failed build leaves old files intact."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data = dict(result.files)
    data["manifest.json"] = (json.dumps(manifest(result, paper_name), indent=2, ensure_ascii=False) + "\n").encode()
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
