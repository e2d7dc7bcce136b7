"""SVG icons drawn with svglib: parsed once per process, stored once per PDF as a form XObject per colour.
A form's drawing operators are worked out once per process and written into every PDF that uses it."""

import functools
import hashlib
import re

from reportlab.graphics import renderPDF
from reportlab.graphics import shapes
from reportlab.graphics.shapes import Group, Shape
from reportlab.lib.rl_accel import fp_str
from svglib.svglib import svg2rlg

# operators that name a resource of the PDF they are written into (a graphics state, a font, an image):
# a form using one is drawn again in every PDF rather than copied
_USES_RESOURCE = re.compile(r"(^|\s)(gs|Tf|Do|sh|scn|SCN|cs|CS)(\s|$)")
_operators = {}  # (file, colour) -> the form's operators, when they name no resource


@functools.lru_cache(maxsize=None)
def _drawing(path):
    drawing = svg2rlg(str(path))
    if drawing is None or not drawing.width:
        raise ValueError(f"{path}: not a drawable SVG")
    return drawing


def _recolour(node, colour):
    if isinstance(node, Group):
        for child in node.contents:
            _recolour(child, colour)
    elif isinstance(node, Shape):
        if getattr(node, "fillColor", None) is not None:
            node.fillColor = colour
        if getattr(node, "strokeColor", None) is not None:
            node.strokeColor = colour


def _tinted(path, colour):
    """The icon's drawing with every filled or stroked shape in `colour`. The one parsed drawing is recoloured
    in place (each form is drawn right after, and every use recolours it whole first): a copy per colour
    cost more than the drawing itself."""
    drawing = _drawing(path)
    for child in drawing.contents:
        _recolour(child, colour)
    return drawing


def draw_icon(canvas, path, x, y, w, h, colour):
    """Draw the icon at `path` fitted (aspect kept, centred) in the box (x, y, w, h) in `colour`."""
    forms = canvas.__dict__.setdefault("_pnp_icon_forms", {})
    key = (path.stem, colour.hexval() if hasattr(colour, "hexval") else str(colour))  # no folder: same bytes anywhere
    drawing = _drawing(path)
    name = forms.get(key)
    if name is None:
        name = forms[key] = "icon" + hashlib.sha1(repr(key).encode()).hexdigest()[:12]
        _define_form(canvas, name, path, colour, drawing, (path, key[1]))
    scale = min(w / drawing.width, h / drawing.height)
    # what saveState, transform, doForm and restoreState write, without their bookkeeping: an icon changes
    # none of the state the canvas tracks, and a card may show a dozen of them
    canvas.addLiteral("q")
    canvas.addLiteral("%s cm" % fp_str(scale, 0, 0, scale, x + (w - drawing.width * scale) / 2,
                                       y + (h - drawing.height * scale) / 2))
    canvas.doForm(name)
    canvas.addLiteral("Q")


def _define_form(canvas, name, path, colour, drawing, key):
    canvas.beginForm(name, 0, 0, drawing.width, drawing.height)
    operators = _operators.get(key)
    if operators is not None:
        for op in operators:
            canvas.addLiteral(op)
    else:
        start = len(canvas._code)
        # renderPDF starts every drawing by selecting its default font (Helvetica), which would put an
        # unembedded base-14 font in the PDF; icons draw no text, so point the default at our own font.
        shapes.STATE_DEFAULTS["fontName"] = canvas._initialFontName
        renderPDF.draw(_tinted(path, colour), canvas, 0, 0, showBoundary=False)
        written = canvas._code[start:]
        if not any(_USES_RESOURCE.search(op) for op in written):
            _operators[key] = list(written)
    canvas.endForm()
