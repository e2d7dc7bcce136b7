"""pnp export: every face a game prints, rasterised from the same drawing as its PDFs (pypdfium2): PNG files,
print-service templates (The Game Crafter, MakePlayingCards) and Tabletop Simulator sheets with a saved object.

faces.py draws each face alone; raster.py turns pages into images; registry.py holds the formats (a class
each, in formats.py, services.py, tts.py or a module of its own) and what each writes and checks; run.py puts
it together and replaces the export folder at once."""

from .registry import ExportFormat, register, registered
from .run import Exported, export_game

__all__ = ["ExportFormat", "Exported", "export_game", "register", "registered"]
