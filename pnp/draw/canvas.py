"""The one way pnp makes a ReportLab canvas: deterministic (`invariant`), so the same drawing gives the same
bytes on every run, and starting in the font the drawing sets first."""

from typing import BinaryIO

from reportlab.pdfgen.canvas import Canvas


def new_canvas(target: str | BinaryIO, font_name: str, page_size: tuple[float, float] | None = None,
               compression: int | None = None) -> Canvas:
    """A canvas writing to `target` (a file name or a binary stream) on pages of `page_size` points
    (ReportLab's default when None), its first font `font_name` (so no other is selected by an operator of its
    own), streams compressed or not (`compression`: 1, 0, or None for ReportLab's default)."""
    return Canvas(target, pagesize=page_size, invariant=1, pageCompression=compression, initialFontName=font_name)
