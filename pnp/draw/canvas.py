"""The one way pnp makes a ReportLab canvas: deterministic (`invariant`), so the same drawing gives the same
bytes on every run, and starting in the font the drawing sets first."""

import contextlib
import os
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen.canvas import Canvas

from .. import PDF_CREATOR
from ..project import open_to_write

# the file a canvas of this thread is saving into (FormCanvas.save), which _StreamedPDFFile writes to
_saving_into = threading.local()


class _StreamedPDFFile(pdfdoc.PDFFile):
    """ReportLab's collector of a PDF's bytes, which, while FormCanvas.save saves into a file, writes each part
    straight to that file instead of holding them all and joining them: ReportLab held every object formatted,
    then their join, beside the objects themselves, three copies of every picture's stream (a deck of 60
    full-art cards of 9 MB pictures peaked at 2.3 GB while saving its PDF). The same bytes in the same order:
    ReportLab's offsets count the bytes added, whoever keeps them. Elsewhere (getpdfdata) it is ReportLab's own."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        target = getattr(_saving_into, "file", None)
        self.streamed = target is not None
        if target is not None:
            added: list[bytes] = self.strings
            for part in added:  # (the header, added by ReportLab's own __init__)
                target.write(part)
            self.strings: list[bytes] = []
            self.write = target.write

    def format(self, document: Any) -> bytes:
        return b"" if self.streamed else super().format(document)


pdfdoc.PDFFile = _StreamedPDFFile  # (the name ReportLab's PDFDocument.format makes its collector by)


class FormCanvas(Canvas):
    """A canvas whose forms list every resource they draw with. ReportLab lists only a form's fonts and
    forms: a gradient's shading (`sh`) or an opacity's graphics state (`gs`) inside one (an icon, a card
    back drawn once) named a resource no PDF reader found, and the gradient or opacity was not drawn."""

    def endForm(self, **extra_attributes: object) -> None:  # noqa: N802 - ReportLab's name
        from reportlab.pdfbase.pdfdoc import PDFResourceDictionary

        resources = PDFResourceDictionary()
        resources.basicFonts()
        resources.allProcs()
        if self._formsinuse:
            resources.XObject = self._doc.xobjDict(self._formsinuse)
        if graphics_states := self._extgstate.getState():
            resources.ExtGState = graphics_states
        resources.setShading(self._shadingUsed)
        resources.setColorSpace(self._colorsUsed)
        super().endForm(**{"Resources": resources, **extra_attributes})

    def save(self) -> None:
        """Save the PDF as ReportLab's save does, each of its parts written to the file as it is made
        (_StreamedPDFFile)."""
        if len(self._code):
            self.showPage()
        target = self._filename
        opened = open_to_write(os.fspath(target)) if isinstance(target, (str, os.PathLike)) else contextlib.nullcontext(target)
        with opened as file:
            _saving_into.file = file
            try:
                self._doc.SaveToFile(file, self)
            finally:
                _saving_into.file = None


class CountedCanvas(FormCanvas):
    """A canvas that calls `on_page` before each page it finishes: a budget may stop a drawing there."""

    def __init__(self, *args: object, on_page: Callable[[], None], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.on_page = on_page

    def showPage(self) -> None:  # noqa: N802 - ReportLab's name
        self.on_page()
        super().showPage()


def new_canvas(target: str | BinaryIO, font_name: str, page_size: tuple[float, float] | None = None,
               compression: int | None = None, on_page: Callable[[], None] | None = None,
               title: str | None = None) -> FormCanvas:
    """A canvas writing to `target` (a file name or a binary stream) on pages of `page_size` points
    (ReportLab's default when None), its first font `font_name` (so no other is selected by an operator of its
    own), streams compressed or not (`compression`: 1, 0, or None for ReportLab's default); `on_page` is
    called before each page is finished; `title` is the document's (a viewer shows it, 'untitled' without one)."""
    options = dict(pagesize=page_size, invariant=1, pageCompression=compression, initialFontName=font_name)
    canvas = FormCanvas(target, **options) if on_page is None else CountedCanvas(target, on_page=on_page, **options)
    # pnp's mark on every PDF it draws (a kit's canvas adds its version): an export's proof or rulebook named
    # ReportLab's "anonymous" as its creator and author, and "unspecified" as its subject, in a viewer's properties
    canvas.setCreator(PDF_CREATOR)
    canvas.setAuthor(PDF_CREATOR)
    canvas.setSubject("")
    if title is not None:
        canvas.setTitle(title)
    return canvas
