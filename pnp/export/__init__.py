"""pnp export: every face a game prints, rasterised from the same drawing as its PDFs (pypdfium2): PNG files,
print-service templates (The Game Crafter, MakePlayingCards) and Tabletop Simulator sheets with a saved object.

faces.py draws each face alone; raster.py turns pages into images; registry.py holds the formats (a class
each, in formats.py, services.py, tts.py or a module of its own) and what each writes and checks; run.py puts
it together and replaces the export folder at once."""

from typing import Any

from .registry import ExportFormat, register, registered

__all__ = ["ExportFormat", "Exported", "export_game", "register", "registered"]


def __getattr__(name: str) -> Any:
    """export_game and Exported, from run.py when first asked for: importing the package (a format's module, to
    list the formats for `pnp export --help`) does not import the check and the drawing run.py needs."""
    if name in ("Exported", "export_game"):
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
