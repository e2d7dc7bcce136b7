"""SVG icons drawn with svglib, stored once per PDF as a form XObject per colour. What a form draws (its
operators) is worked out once for an icon file and colour, kept on disk between runs, and written into every
PDF that uses it; only an icon whose drawing names a resource of its PDF is drawn again for each."""

import functools
import hashlib
import io
import re
from importlib.metadata import version
from pathlib import Path

import reportlab
from reportlab.graphics import renderPDF
from reportlab.graphics import shapes
from reportlab.graphics.shapes import Group, Shape
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.canvas import Canvas

from ..cache import DiskCache

# operators that name a resource of the PDF they are written into (a graphics state, a font, an image):
# a form using one is drawn again in every PDF rather than copied
_USES_RESOURCE = re.compile(r"(^|\s)(gs|Tf|Do|sh|scn|SCN|cs|CS)(\s|$)")
# parsing the SVGs and drawing them was a tenth of building a game; a run that finds every icon here does not
# even load svglib
FORMS = DiskCache("icons", reportlab.Version, lambda: version("svglib"), Path(__file__).read_bytes())
_forms = {}  # (file content's digest, colour) -> (width, height, operators or None): this process's


@functools.lru_cache(maxsize=None)
def _drawing(path, digest):
    """The parsed SVG, once per file content (`digest`): an icon edited while pnp serve runs is read again."""
    from svglib.svglib import svg2rlg

    drawing = svg2rlg(str(path))
    if drawing is None:
        raise ValueError("svglib cannot read it")
    if not drawing.width or not drawing.height:
        raise ValueError("its drawing has no size (no width, height or viewBox)")
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


def _tinted(path, digest, colour):
    """The icon's drawing with every filled or stroked shape in `colour`. The one parsed drawing is recoloured
    in place (each form is drawn right after, and every use recolours it whole first): a copy per colour
    cost more than the drawing itself."""
    drawing = _drawing(path, digest)
    for child in drawing.contents:
        _recolour(child, colour)
    return drawing


def draw_icon(canvas, path, x, y, w, h, colour):
    """Draw the icon at `path` fitted (aspect kept, centred) in the box (x, y, w, h) in `colour`."""
    forms = canvas.__dict__.setdefault("_pnp_icon_forms", {})
    hexval = colour.hexval() if hasattr(colour, "hexval") else str(colour)
    key = (path.stem, hexval)  # no folder: same bytes anywhere
    form = forms.get(key)
    if form is None:
        form = forms[key] = _define_form(canvas, "icon" + hashlib.sha1(repr(key).encode()).hexdigest()[:12],
                                         path, hexval, colour)
    name, width, height = form
    scale = min(w / width, h / height)
    # what saveState, transform, doForm and restoreState write, without their bookkeeping: an icon changes
    # none of the state the canvas tracks, and a card may show a dozen of them
    canvas.addLiteral("q")
    canvas.addLiteral("%s cm" % fp_str(scale, 0, 0, scale, x + (w - width * scale) / 2, y + (h - height * scale) / 2))
    canvas.doForm(name)
    canvas.addLiteral("Q")


def _define_form(canvas, name, path, hexval, colour):
    """The icon in this colour as the canvas's form `name`; (name, width, height). The file is read for
    each PDF, so what is drawn is always its content now; the drawing is worked out once per content."""
    digest = hashlib.sha256(path.read_bytes()).digest()
    found = _forms.get((digest, hexval))
    if found is None:
        found = _forms[(digest, hexval)] = tuple(FORMS.value(
            digest + hexval.encode(), lambda: _worked_out(path, digest, colour, canvas._initialFontName)))
    width, height, operators = found
    canvas.beginForm(name, 0, 0, width, height)
    if operators is not None:
        for op in operators:
            canvas.addLiteral(op)
    else:
        _render(canvas, path, digest, colour)
    canvas.endForm()
    return name, width, height


def unreadable(path):
    """Why the icon file cannot be drawn, as (message, line, column), or None; found once per file content
    (kept with the drawings), so a build that has checked its icons before reads the answer."""
    svg = path.read_bytes()
    digest = hashlib.sha256(svg).digest()
    return FORMS.value(b"check\0" + digest, lambda: _why_unreadable(path, svg, digest))


def _why_unreadable(path, svg, digest):
    from xml.etree import ElementTree

    try:
        ElementTree.fromstring(svg)  # for the line of a syntax error, which svglib only logs
    except ElementTree.ParseError as e:
        line, column = e.position
        return f"not a well-formed SVG file ({str(e).split(':')[0]})", line, column + 1
    try:
        _drawing(path, digest)
    except Exception as e:  # svglib's own errors on SVG it cannot draw, and ours for a drawing of no size
        return f"the SVG file cannot be drawn: {e}", 1, 1
    return None


def _worked_out(path, digest, colour, font_name):
    """The icon drawn once into a scratch PDF's form, and the operators that drew it. The scratch PDF starts
    in the font the real ones do, as a different one would be selected again by an operator of its own."""
    drawing = _drawing(path, digest)
    scratch = Canvas(io.BytesIO(), initialFontName=font_name)
    scratch.beginForm("icon", 0, 0, drawing.width, drawing.height)
    start = len(scratch._code)
    _render(scratch, path, digest, colour)
    operators = scratch._code[start:]
    scratch.endForm()
    clean = not any(_USES_RESOURCE.search(op) for op in operators)
    return float(drawing.width), float(drawing.height), list(operators) if clean else None


def _render(canvas, path, digest, colour):
    # renderPDF starts every drawing by selecting its default font (Helvetica), which would put an
    # unembedded base-14 font in the PDF; icons draw no text, so point the default at the canvas's own font.
    shapes.STATE_DEFAULTS["fontName"] = canvas._initialFontName
    renderPDF.draw(_tinted(path, digest, colour), canvas, 0, 0, showBoundary=False)
