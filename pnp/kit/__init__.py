"""The printed kit: validate -> draw -> output/<game>/: per-kind PDFs, the all-in-one PDF copied from them, each
kind's extra files and manifest.json, written atomically; a game already built from the same inputs is left as it
is. Also what is printed beside a kit: a proof of a selection (select.py) and a reprint of what changed
(changes.py).

run.py orders the work (up to date or not, one process per game with jobs), inputs.py says what a kit was
built from, manifest.py is the record of it, faces.py how the record names each printed face, render.py draws. Importing this package loads no ReportLab: drawing modules load when needed."""

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .run import Outcome, build_game, build_games, default_jobs

if TYPE_CHECKING:
    from ..model.game import Game
    from ..printables import Studio
    from ..project import Project
    from .render import GameBuild

__all__ = ["Outcome", "build_game", "build_games", "default_jobs", "render_game", "write_calibration"]


def render_game(game: "Game", studio: "Studio", folder: str | Path,
                on_step: Callable[[str], None] | None = None) -> "GameBuild":
    """Draw one validated game's files into `folder` under temporary names (see render.render_game)."""
    from .render import render_game as render

    return render(game, studio, folder, on_step)


def write_calibration(project: "Project", paper: str, folder: str | Path) -> Path:
    """The duplex calibration sheet for `paper`, written atomically into `folder`; returns its path. Its text is
    pnp's own, set in pnp's own fonts: set in the project's, a Body font without '+' or digits (a display face
    of capitals alone) printed the scales without their numbers, exit 0, and a broken fonts.yaml refused a
    sheet that prints nothing of the games."""
    from ..draw.calibrate import calibration_sheet
    from ..draw.fonts import load_fonts
    from ..errors import cannot_write
    from ..project import BUILTIN_FONTS, Project, calibration_name, output_lock, refuse_unmarked_pdf, write_file
    from ..units import PrintOptions

    folder = Path(folder)
    path = folder / calibration_name(paper)
    refuse_unmarked_pdf(path, "the calibration sheet", project.rel)  # before it is drawn (again where written)
    size = PrintOptions(paper).paper_size
    data = calibration_sheet(size, load_fonts(Project(BUILTIN_FONTS.parent)), f"pnp duplex calibration ({paper.upper()})")
    try:
        with output_lock(folder, project.rel(folder)):  # the folder's writers' lock: see remove_leftovers
            refuse_unmarked_pdf(path, "the calibration sheet", project.rel)  # (the user's own file of its name)
            write_file(path, data)
    except OSError as e:
        raise cannot_write(project.rel(folder), e, project.rel) from None
    return path
