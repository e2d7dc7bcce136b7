"""pnp export: every face a game prints, rasterised from the same drawing as its PDFs (pypdfium2): PNG files,
print-service templates (The Game Crafter, MakePlayingCards) and Tabletop Simulator sheets with a saved object.

faces.py draws each face alone; raster.py turns pages into images; formats.py says what each format writes
and checks; run.py puts it together and replaces the export folder at once."""

from .run import FORMATS, Exported, export_game

__all__ = ["FORMATS", "Exported", "export_game"]
