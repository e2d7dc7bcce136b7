"""The one way pnp makes a ReportLab canvas: deterministic (`invariant`), so the same drawing gives the same
bytes on every run, and starting in the font the drawing sets first."""

from collections.abc import Callable
from typing import BinaryIO

from reportlab.pdfgen.canvas import Canvas


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
    if title is not None:
        canvas.setTitle(title)
    return canvas
