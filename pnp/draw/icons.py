"""SVG icons drawn with svglib, stored once per PDF as a form XObject per colour. What a form draws (its
operators) is worked out once for an icon file and colour, kept on disk between runs, and written into every
PDF that uses it; only an icon whose drawing names a resource of its PDF is drawn again for each."""

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
import base64
import functools
import hashlib
import io
from copy import deepcopy
import logging
import math
import re
from importlib.metadata import version
from pathlib import Path

import reportlab
from reportlab.graphics import renderPDF
from reportlab.graphics import shapes
from reportlab.graphics.shapes import Drawing, Group, Shape
from reportlab.lib.colors import Color
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.canvas import Canvas

from ..cache import DiskCache, module_sources
from ..errors import BudgetSpent, DataError, LimitError
from ..project import read_project_file
from ..report import Mark, character_named, named as quoted_name
from ..template import ended_game, metered
from .canvas import new_canvas

if TYPE_CHECKING:
    from PIL import Image

# operators that name a resource of the PDF they are written into (a graphics state, a font, an image):
# a form using one is drawn again in every PDF rather than copied
_USES_RESOURCE = re.compile(r"(^|\s)(gs|Tf|Do|sh|scn|SCN|cs|CS)(\s|$)")
_NOT_FINITE = re.compile(r"(^|\s)-?(nan|inf)(\s|$)")
# a line width below zero: SVG viewers ignore a negative stroke-width (drawing the width the shape inherits),
# svglib writes it into the PDF as it is, and PDF viewers draw it each their own way
_NEGATIVE_WIDTH = re.compile(r"(^|\s)-(\d*\.)?\d+ w(\s|$)")
# parsing the SVGs and drawing them was a tenth of building a game; a run that finds every icon here does not
# even load svglib
Problem = tuple[str, int, int]  # (message, line, column) of an icon file that cannot be drawn
FormMade = tuple[float, float, list[str] | None]  # (width, height, its operators unless it needs resources)
# an icon's form, paints and verdict, kept by its content: made by svglib, Pillow (its embedded pictures) and lxml,
# and worded and checked here, in model/images.py (its embedded pictures' checks) and report.py (names quoted), on
# draw/canvas.py's canvas: a verdict kept by the bytes of this file alone said an old message once images.py was reworded
FORMS = DiskCache("icons", reportlab.Version, lambda: version("svglib"), lambda: version("pillow"),
                  lambda: version("lxml"), module_sources(__name__, "pnp.model.images", "pnp.report", "pnp.draw.canvas"))
_forms: dict[tuple[bytes, str], FormMade] = {}  # (file content's digest, colour) -> (width, height, operators or None): this process's
# svglib logs what it skips (a circular <use>) to standard error, with no file or line: validation says
# what is wrong with an icon, where
logging.getLogger("svglib").addHandler(logging.NullHandler())
_drawings: dict[bytes, Any] = {}  # file content's digest -> svglib's drawing of it: this process's
# svglib takes about half a millisecond per element and a second per MB of path data: an icon is a glyph
MAX_ICON_BYTES = 1024 * 1024
MAX_ICON_ELEMENTS = 2_000  # counting each <use> as the elements it repeats
MAX_CHAIN = 300  # elements within elements, and <use> of <use>, deeper than this are refused
MAX_NESTED = 250  # elements within elements as written: svglib's parser (libxml) reads at most 256
# An embedded picture is decoded and embedded again at each <use> of it (about a second per 30 million pixels):
# it counts as one element per this many of its pixels, so an icon draws at most 4 million pixels in all
PIXELS_PER_ELEMENT = 2_000
# A path's or polyline's numbers are read and drawn one by one: 80,000 in one <path d> (a 1 MB icon) took 4 s to
# check and as long again to draw, 10 of them about as long as an element; the largest shipped icon has 1,515
NUMBERS_PER_ELEMENT = 10
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
MAX_ICON_SIZE = 100_000.0  # width and height, in points (1.4 m)
MIN_ICON_SIZE = 1e-6  # ...and at least this: fitting a smaller one to its box scales it past any number a PDF holds
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


def _href(node: Any) -> str:
    """What an element refers to, as browsers read it: its `href` where it has one (SVG 2's, which browsers take
    over xlink:href when an element has both), else its xlink:href. svglib reads xlink:href first: a <use> of
    xlink:href="#red" href="#blue" printed red where browsers draw blue (_paint_as_browsers gives svglib this)."""
    found = node.get("href")
    given = (node.get(_XLINK_HREF) or "") if found is None else found
    # ...read as a URL is: without the spaces and control characters around it, nor the tabs and line breaks in
    # it (svglib took href=" #a" for a file named ' ' in the folder pnp ran in, and drew that file; "#a " for no
    # element, and drew nothing where browsers draw #a)
    given = _URL_TABS.sub("", given.strip(_URL_SPACES))
    return "#" + _decoded(given[1:]) if given.startswith("#") else given


def _decoded(fragment: str) -> str:
    """An element's id as browsers find it from a URL's fragment (#id, url(#id)): its percent-escapes decoded, as
    UTF-8. svglib looked for the id as written: a <use href="#%61">, a fill or a clip of url(#%61), which browsers
    draw by the element of id 'a', printed nothing, unfilled or unclipped (exit 0)."""
    from urllib.parse import unquote

    # (an escape of a character no XML holds, %00, names no element an XML file can hold: written as the character
    # that stands for one that cannot be read, it names none either, where lxml refused the decoded NUL as
    # "All strings must be XML compatible", said at the icon's first line)
    return _NOT_IN_XML.sub("\ufffd", unquote(fragment)) if "%" in fragment else fragment


_NOT_IN_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _references_as_browsers(attributes: Any) -> None:
    """Each url(#id) of an element's `attributes`, its styles cascaded, written as svglib reads it: unquoted, with
    no spaces inside its brackets, its id _decoded, where the id can be written so. svglib read no clip from
    clip-path="url('#c')" nor url( #c ), and printed the shape unclipped where browsers clip it (exit 0)."""
    for name, value in attributes.items():
        if "url(" in value:
            attributes[name] = _LOCAL_URL.sub(_reference_decoded, value)


_LOCAL_URL = re.compile(r"""url\(\s*(['"]?)#([^'")]*)\1\s*\)""")


def _reference_decoded(found: re.Match[str]) -> str:
    """A url(#id) found by _LOCAL_URL as svglib reads it, where its id, _decoded, can be written unquoted."""
    target = _decoded(found.group(2))
    return found.group(0) if re.search(r"""['"()\\\s]""", target) else f"url(#{target})"


_URL_SPACES = "".join(map(chr, range(0x21)))  # what a URL's parser strips from its ends: C0 controls and space
_URL_TABS = re.compile("[\t\n\r]")  # ...and removes from anywhere in it
_URL = re.compile(r"""url\(\s*['"]?([^'")]*)""", re.IGNORECASE)  # what a paint's url(...) refers to
# elements whose effect svglib leaves out without a word (it draws a masked, filtered or pattern-filled shape
# as if plain, and no marker or foreign content at all): an icon holding one would print otherwise than it is seen
_NOT_DRAWN = {"mask": "a mask", "filter": "a filter", "pattern": "a pattern", "marker": "a marker",
              "foreignObject": "foreign content"}
# SVG's animation elements (SMIL's, and SVG 2's <discard>, which Chrome plays)
_ANIMATIONS = ("animate", "animateMotion", "animateTransform", "set", "discard")
# element -> why an icon may not hold it
_REFUSED_ELEMENTS = {"text": "holds text (<text>), which an icon may not: it would be drawn in a font pnp does not "
                             "embed; put the words in the layout",
                     **{name: f"holds {what} (<{name}>), which svglib does not draw: the icon would print otherwise "
                              "than it is seen; flatten it into plain shapes" for name, what in _NOT_DRAWN.items()},
                     # (a <set attributeName="display" to="none"/> hides its shape from the start, in a browser, for
                     # good: svglib, which plays no animation, printed it)
                     **{name: f"holds an animation (<{name}>), which a browser plays from the icon's start and svglib "
                              "does not: the icon would print otherwise than it is seen; leave it out"
                        for name in _ANIMATIONS}}
_EMBEDDED = re.compile(r"^data:image/(jpe?g|png);base64")  # the embedded pictures svglib decodes (its pattern)


def read_icon(path: Path, beneath: Path | None = None) -> bytes:
    """The icon file's bytes: an ordinary file of at most MAX_ICON_BYTES, else DataError naming it. `beneath`: the
    project's folder, in which the icon index found `path` (Project.inside): opened as it was checked
    (open_project_file), so that a folder of it swapped for a link since leads nowhere, not outside. The file is
    named from the project's folder, as every message names it: named whole, `pnp serve` said a shared icon too
    large for each face drawing it at '/home/.../layouts/shared/icons/x.svg', a path its page links nowhere."""
    named = str(path)
    if beneath is not None and path.is_relative_to(beneath):
        named = path.relative_to(beneath).as_posix()
    return read_project_file(path, MAX_ICON_BYTES, Mark(named), beneath=beneath)


def _drawing(svg: bytes, digest: bytes) -> Drawing:
    """The parsed SVG, once per file content (`digest`): an icon edited while pnp serve runs is read again.
    svglib is given the bytes, not the file: with no file to start from it resolves no reference to any
    other (validation refuses an icon that makes one)."""
    drawing = _drawings.get(digest)
    if drawing is None:
        from svglib.svglib import SvgRenderer, load_svg_file

        with metered("svglib"):
            root = load_svg_file(io.BytesIO(svg))
            if root is None:
                raise ValueError("svglib cannot read it")
            _paint_as_browsers(root)
            renderer = SvgRenderer("", font_map=_no_system_fonts())
            _gradients_stretched_as_browsers(renderer)
            drawing = renderer.render(root)
            _refuse_clip_shapes_cancelling(renderer, root)
        for side in (drawing.width, drawing.height):
            if not side:
                raise ValueError("its drawing has no size (no width, height or viewBox)")
            if not math.isfinite(side) or not MIN_ICON_SIZE <= side <= MAX_ICON_SIZE:
                raise ValueError(f"its drawing's width and height, as its size and viewBox make them (one side by "
                                 f"the other's proportions), must be between {MIN_ICON_SIZE:g} and {MAX_ICON_SIZE:g} "
                                 f"pt, not {side:g}")  # (a size the file gives is said as typed: _refuse_sizes_unprintable)
        _undash_zero_patterns(drawing)
        _drawings[digest] = drawing
    return drawing


_IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
# a gradient's geometry in svglib's reading of it (numbers, a percentage as its fraction), and its defaults
_GEOMETRY = {True: (("cx", 0.5), ("cy", 0.5), ("r", 0.5)), False: (("x1", 0.0), ("y1", 0.0), ("x2", 1.0), ("y2", 0.0))}


def _gradients_stretched_as_browsers(renderer: Any) -> None:
    """Have `renderer` (svglib's) fill a shape by a gradient in the shape's bounding box units (the default) as
    browsers do: drawn in the unit square, stretched onto the box. Across a box that is not square svglib drew a
    radial gradient's circle of the box's mean side where browsers draw an ellipse (an oval badge printed a round
    glow, its ends in the outer colour), and a diagonal linear gradient's bands across its direction where
    browsers draw them along the box's other diagonal."""
    from svglib.svglib import LinearGradientShape, RadialGradientShape

    made = renderer._apply_gradient_fill

    def stretched(item: Any, gradient: Any) -> Any:
        filled = made(item, gradient)
        drawn = getattr(filled, "contents", None)
        if not drawn or not isinstance(shape := drawn[0], (LinearGradientShape, RadialGradientShape)):
            return filled
        radial = isinstance(shape, RadialGradientShape)
        left, bottom, right, top = shape.getBounds()
        if right - left > 0 and top - bottom > 0 and right - left != top - bottom \
                and gradient.get("gradientUnits", "objectBoundingBox") == "objectBoundingBox":
            box = (right - left, 0.0, 0.0, top - bottom, left, bottom)  # the unit square onto the box
            geometry = tuple(float(gradient.get(key, default)) for key, default in _GEOMETRY[radial])
        elif radial:  # (drawn by pnp all the same: see _stretched_gradient for a radius of nothing)
            box, geometry = _IDENTITY, (shape._cx, shape._cy, shape._r)
        else:
            return filled
        drawn[0] = _stretched_gradient()(shape, box, geometry)
        return filled
    renderer._apply_gradient_fill = stretched


@functools.cache
def _stretched_gradient() -> type:
    """A gradient as svglib's shape (LinearGradientShape, RadialGradientShape) would draw it, clipped to its
    shape, but in the space `box` maps onto the shape's own: its `geometry` (x1, y1, x2, y2, or cx, cy, r) is in
    that space. A radial one of a radius the PDF writes as 0 (under a millionth) is its last stop's colour:
    browsers pad that colour all round a circle of nothing, and PDF viewers painted the first's. (Made once
    svglib is loaded: ReportLab draws directly only what is its DirectDraw.)"""
    from reportlab.graphics.shapes import DirectDraw
    from reportlab.lib.rl_accel import fp_str
    from svglib.svglib import _shape_to_pdf_path

    class Stretched(DirectDraw):
        def __init__(self, shape: Any, box: tuple[float, ...], geometry: tuple[float, ...]) -> None:
            self.shape, self.box, self.geometry = shape, box, geometry

        def getBounds(self) -> Any:  # noqa: N802 - ReportLab's name
            return self.shape.getBounds()

        def drawDirectly(self, renderer: Any) -> None:  # noqa: N802 - ReportLab's name
            canvas, shape = renderer._canvas, self.shape
            canvas.saveState()
            if path := _shape_to_pdf_path(canvas, shape._clip_shape):
                if len(self.geometry) == 3 and not float(fp_str(self.geometry[2])):
                    canvas.setFillColor(shape._rl_colors[-1])
                    canvas.drawPath(path, fill=1, stroke=0)
                else:
                    canvas.clipPath(path, fill=1, stroke=0)
                    canvas.transform(*self.box)
                    paint = canvas.radialGradient if len(self.geometry) == 3 else canvas.linearGradient
                    paint(*self.geometry, shape._rl_colors, shape._positions, shape._extend)
            canvas.restoreState()
    return Stretched


_PAINTS = ("fill", "stroke", "color")  # the properties whose colour decides what an icon's shape paints
_OPACITIES = ("fill-opacity", "stroke-opacity", "stop-opacity")
_IMPORTANT = re.compile(r"\s*!\s*important\s*$", re.IGNORECASE)


class IconProblem(ValueError):
    """What an icon holds that pnp cannot draw as a browser does, at its line of the file."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line or 1


def _referring_as_browsers(root: Any) -> None:
    """Give each element of the parsed icon `root` that refers to another (href or xlink:href) what browsers
    follow (_href) as its xlink:href, the one svglib reads first, and no href (which svglib reads, as written,
    where the xlink:href is empty)."""
    for node in root.iter():
        if node.get("href") is not None or node.get(_XLINK_HREF) is not None:
            node.set(_XLINK_HREF, _href(node))
            node.attrib.pop("href", None)


def _paint_as_browsers(root: Any) -> None:
    """Set the parsed icon `root` (lxml) so that svglib paints what a browser does. Its style sheets and style
    attributes are cascaded into each element's attributes as CSS does (property names in any case, !important
    first), not as svglib does (its style sheets' !important and capitalised names were dropped, and a
    display:none !important drawn). svglib takes `currentColor` from the parent's color, not the shape's own (a
    shape of color="transparent" printed solid), falls back on the property's default where no color is given
    (a stroke="currentColor" printed nothing where browsers stroke black), paints nothing for a colour it
    cannot read where a browser ignores it and inherits (color="none" printed nothing), and reads an opacity
    of 10% or -1 as 1."""
    from svglib.svglib import CSSMatcher, NodeTracker, Svg2RlgAttributeConverter, node_name

    _referring_as_browsers(root)
    _leave_out_what_browsers_do_not_draw(root)
    _gradients_inherited(root)
    converter = Svg2RlgAttributeConverter()
    _refuse_sizes_unprintable(root, converter)
    _sized_as_browsers(root)
    sheet = CSSMatcher()
    top = NodeTracker.from_xml_root(root)
    servers = {element.get("id") for element in root.iter("{*}linearGradient", "{*}radialGradient")}
    for wrapped in top.iter_subtree():
        if node_name(style := wrapped.etree_element) == "style":
            line = style.sourceline or 1
            if _style_applies(style, line):
                _add_rules(sheet, _sheet_text(style), line)
            style.text = ""  # (cascaded here: svglib refused a sheet of a rule it cannot read)
            for child in style:
                child.tail = ""
    for wrapped in top.iter_subtree():
        attributes = wrapped.etree_element.attrib
        # (a rule of a pseudo-element, ::before, styles no element of the drawing)
        _cascade(wrapped.etree_element, [match[3][1] for match in sheet.match(wrapped) if match[2] is None])
        _references_as_browsers(attributes)
        _refuse_context_paint(wrapped.etree_element)
        _refuse_colours_clamped(wrapped.etree_element, converter)
        _browser_paints(attributes, converter, servers)
        _refuse_gradient_strokes(wrapped.etree_element)
        _gradient_as_browsers(wrapped.etree_element)
        _stop_colour_as_browsers(wrapped.etree_element, converter)
        _dashes_as_browsers(attributes)
        for name in _OPACITIES:
            _clamp_opacity(attributes, name)
        _refuse_drawn_otherwise(wrapped.etree_element, converter)
        _shape_as_browsers(wrapped.etree_element, converter)
    _leave_out_hidden_uses(root)
    _gradients_inherited(root, stops=True)
    _gradients_of_no_length_as_browsers(root)
    _clips_where_svglib_finds_them(root)
    if root.get("display") == "none":  # (its styles cascaded: the keyword in lower case)
        raise IconProblem("its <svg> is display: none, which browsers draw as nothing and svglib drew: leave the "
                          "display out", root.sourceline)
    for name in ("color", "fill"):  # (their initial values, which svglib leaves unset: a polyline was not filled)
        if not root.get(name):
            root.set(name, "black")
    _refuse_clips_of_nothing(root)
    _refuse_clips_unfollowed(root)


def _refuse_sizes_unprintable(root: Any, converter: Any) -> None:
    """IconProblem at the <svg> for a width or height it gives (or, giving none, its viewBox gives) that no icon
    can be drawn at, quoted as the file writes it: the drawing's size svglib made of it was quoted (5e-324mm was
    said 'not 1.4822e-323', 1e400 'not inf'), and 1e-400, a number too small for a float, read as 0, was said
    to be no width, height or viewBox at all."""
    box = root.get("viewBox", "").replace(",", " ").split()
    for at, side in ((2, "width"), (3, "height")):
        typed, said = root.get(side, "").strip(), f"its {side}"
        if not typed and len(box) == 4:
            typed, said = box[at], f"its viewBox's {side} (it gives no {side})"
        if not typed or typed.endswith("%"):
            continue
        try:
            length = converter.convertLength(typed) if root.get(side) else float(typed)
        except ValueError:
            continue  # (what svglib cannot read as a length: said by _check_lengths)
        number = _LENGTH.fullmatch(typed)
        written_zero = number is not None and not re.search("[1-9]", number[1].lower().partition("e")[0])
        if not isinstance(length, float) or length < 0 or written_zero:
            continue  # (said as a size below zero, or as no size)
        if not MIN_ICON_SIZE <= length <= MAX_ICON_SIZE:  # (and nan: 1e-400 is read as 0, 1e400 as inf)
            raise IconProblem(f"{said} is {quoted_name(typed)}, and an icon is drawn between {MIN_ICON_SIZE:g} and "
                              f"{MAX_ICON_SIZE:g} pt wide and high: give the size of the drawing", root.sourceline)


def _sized_as_browsers(root: Any) -> None:
    """Size the <svg> of a viewBox as a browser sizes a picture of it: a width or height given as a percentage is
    left out (it is of a box the picture is not drawn in), and a side not given is the other by the viewBox's
    proportions. svglib took a percentage of the viewBox's side, and a side not given as the viewBox's own: an
    icon of width="64" and viewBox="0 0 512 512" was a drawing 64 x 512, and printed at an eighth of its size."""
    box = _NUMBER.findall(root.get("viewBox") or "")
    if len(box) != 4 or not float(box[2]) > 0 or not float(box[3]) > 0:
        return  # (no viewBox, or one _refuse_drawn_otherwise refuses)
    for side in ("width", "height"):
        if root.get(side, "").strip().endswith("%"):
            del root.attrib[side]
    ratio = float(box[3]) / float(box[2])  # height per width
    for given, missing, factor in (("width", "height", ratio), ("height", "width", 1 / ratio)):
        length = _LENGTH.fullmatch(root.get(given, "")) if root.get(missing) is None else None
        if length is not None and math.isfinite(other := float(length[1]) * factor):
            root.set(missing, f"{other!r}{length[2]}")


_LENGTH = re.compile(r"\s*(" + _NUMBER.pattern + r")\s*([a-zA-Z]*)\s*")  # a number and its unit, as svglib reads one


def _browser_paints(attributes: Any, converter: Any, servers: set[str | None]) -> None:
    """An element's fill, stroke and color `attributes` as a browser reads them: in lower case, `currentColor`
    as the element's own color where it gives one, one that is no colour left out (it is inherited), a url(#id)
    paint as its fallback where the icon has no gradient `id` among `servers` (_paint_server)."""
    for name in _PAINTS:
        value = _paint_server(attributes.get(name, "").strip(), servers)
        value = value if value.startswith("url(") else value.lower()
        if value == "currentcolor" and name != "color":
            attributes[name] = "currentColor"
        elif value and _paint_readable(converter, value, name):
            attributes[name] = value
        elif name in attributes:
            del attributes[name]  # a browser ignores it: the element inherits the property
    own = attributes.get("color")
    for name in ("fill", "stroke"):
        if own and attributes.get(name) == "currentColor":
            attributes[name] = own


def _refuse_context_paint(element: Any) -> None:
    """IconProblem at an element, its styles cascaded, painted context-fill or context-stroke (the paint of the
    <use> or marker that draws it): svglib cannot read it, and a shape so painted printed black where browsers
    paint the user's colour, or nothing where no <use> or marker draws it."""
    for name in ("fill", "stroke"):
        if element.get(name, "").strip().lower() in ("context-fill", "context-stroke"):
            raise IconProblem(f"it paints a {name} with {element.get(name).strip()}, which svglib does not read (it "
                              "printed black where browsers paint what draws the shape, or nothing): give the "
                              "colour itself", element.sourceline)


def _refuse_gradient_strokes(element: Any) -> None:
    """IconProblem at an element, its paints read as browsers read them (_browser_paints), whose stroke is a
    gradient of the icon: svglib fills with a gradient but strokes with none, and the shape printed unstroked
    where browsers stroke it (exit 0)."""
    if element.get("stroke", "").startswith("url("):
        raise IconProblem(f"it strokes a shape with a gradient ({element.get('stroke')}), which svglib does not draw "
                          "(it printed no stroke where browsers draw one): give the stroke a colour",
                          element.sourceline)


# what a gradient takes from the gradient its href names where it gives none itself, by the kinds it takes it from
_TEMPLATED = {"linearGradient": ("x1", "y1", "x2", "y2"), "radialGradient": ("cx", "cy", "r", "fx", "fy", "fr"),
              "": ("gradientUnits", "gradientTransform", "spreadMethod")}


def _gradients_inherited(root: Any, stops: bool = False) -> None:
    """Give each gradient of the parsed icon `root` (its references _href'd) what browsers take from the gradients
    its href names, one after another, where it gives none itself: the attributes of _TEMPLATED, or with `stops`
    (once its stops' styles are cascaded) the stops of the first that has any. svglib took its own defaults, and
    followed one href only: a gradient whose direction or units its template gives printed otherwise than
    browsers draw it, one whose template's template gives its stops printed nothing (exit 0)."""
    gradients = {element.get("id"): element for element in root.iter(f"{{{_SVG}}}linearGradient",
                                                                       f"{{{_SVG}}}radialGradient")}
    for gradient in gradients.values():
        seen, template = {id(gradient)}, gradients.get(gradient.get(_XLINK_HREF, "").removeprefix("#") or None)
        while template is not None and id(template) not in seen:
            seen.add(id(template))
            if stops:
                if _stops_of(gradient):
                    break
                for stop in _stops_of(template):
                    gradient.append(copy := deepcopy(stop))
                    copy.attrib.pop("id", None)
            else:
                kind = template.tag.rpartition("}")[2]
                for name in _TEMPLATED[""] + (_TEMPLATED[kind] if kind == gradient.tag.rpartition("}")[2] else ()):
                    if gradient.get(name) is None and template.get(name) is not None:
                        gradient.set(name, template.get(name))
            template = gradients.get(template.get(_XLINK_HREF, "").removeprefix("#") or None)


def _gradients_of_no_length_as_browsers(root: Any) -> None:
    """Give each gradient of the parsed icon `root` whose vector has no length (a linear one of its ends at one
    point, a radial one of radius 0) its last stop alone: browsers paint it all in that stop's colour, and svglib
    drew the gradient from its first stop's."""
    for gradient in root.iter(f"{{{_SVG}}}linearGradient", f"{{{_SVG}}}radialGradient"):
        if gradient.tag.endswith("radialGradient"):
            empty = _fraction(gradient.get("r"), 0.5) == 0
        else:
            ends = [_fraction(gradient.get(name), 1.0 if name == "x2" else 0.0) for name in ("x1", "y1", "x2", "y2")]
            empty = ends[:2] == ends[2:]
            if empty:  # (a vector of some length, along which its one colour is padded: ReportLab drew none)
                gradient.set("x2", repr(ends[0] + 1))
        for stop in _stops_of(gradient)[:-1] if empty else ():
            gradient.remove(stop)


def _stops_of(gradient: Any) -> list[Any]:
    """A gradient element's own stops."""
    return list(gradient.iterchildren(f"{{{_SVG}}}stop", "stop"))


def _stops_as_browsers(gradient: Any) -> None:
    """Write each stop offset of a `gradient` as browsers read it: a number or a percentage (else 0), within 0
    and 1, and no less than the offset before it. svglib gave ReportLab the offsets as written: one below a stop
    before it printed the gradient reversed, one past 0 or 1 its colours faded (exit 0)."""
    least = 0.0
    for stop in _stops_of(gradient):
        least = max(least, min(1.0, _fraction(stop.get("offset"), 0.0)))
        stop.set("offset", repr(least))


def _gradient_as_browsers(element: Any) -> None:
    """Set a gradient element as svglib draws it as browsers do (_gradient_element_as_browsers); IconProblem at a
    shape filled by a gradient at a fill-opacity below 1, which svglib paints opaque (it printed where browsers
    see through it)."""
    name = element.tag.rpartition("}")[2] if isinstance(element.tag, str) else ""
    if name in ("linearGradient", "radialGradient"):
        _gradient_element_as_browsers(element, name)
    opacity = _opacity(_inherited(element, "fill-opacity"))
    if _inherited(element, "fill").startswith("url(") and opacity is not None and opacity < 1:
        raise IconProblem("it fills a shape with a gradient at a fill-opacity below 1, which svglib paints opaque: "
                          "give the fill-opacity 1, or give the gradient's stops the colours seen", element.sourceline)


# a gradient's coordinates, which a percentage gives of the box its gradientUnits name
_GRADIENT_COORDINATES = ("x1", "y1", "x2", "y2", "cx", "cy", "r", "fx", "fy", "fr")


def _gradient_element_as_browsers(element: Any, name: str) -> None:
    """Set a gradient element `name` as svglib draws it as browsers do, else IconProblem at its line: a
    spreadMethod or gradientUnits browsers do not read is the initial one (svglib read any spread but pad as none,
    and left the shape bare past the gradient's ends; units but objectBoundingBox as userSpaceOnUse), its stops
    _stops_as_browsers; refused: a reflected or repeated gradient, a gradientTransform, a focal point other than
    the centre, which svglib leaves out, and a percentage of userSpaceOnUse, which it reads as that many units
    (the gradient printed otherwise than it is seen, exit 0)."""
    spread = element.get("spreadMethod")
    if spread in ("reflect", "repeat") or element.get("gradientTransform", "").strip():
        what = (f"a spreadMethod of {spread}" if spread in ("reflect", "repeat") else "a gradientTransform")
        raise IconProblem(f"its gradient has {what}, which svglib does not follow (the gradient printed "
                          "otherwise than it is seen): flatten the gradient into one without it", element.sourceline)
    if spread is not None:
        element.set("spreadMethod", "pad")  # (the initial value, as browsers read any other)
    if element.get("gradientUnits", "userSpaceOnUse") != "userSpaceOnUse":
        element.set("gradientUnits", "objectBoundingBox")  # (likewise)
    elif element.get("gradientUnits") and (percent := next((f"{coordinate}={element.get(coordinate).strip()!r}" for coordinate in _GRADIENT_COORDINATES
                          if element.get(coordinate, "").strip().endswith("%")), None)):
        raise IconProblem(f"its gradient of gradientUnits userSpaceOnUse gives {percent[:40]}, a percentage, which "
                          "svglib reads as that many units (the gradient printed otherwise than it is seen): give "
                          "the coordinate in units", element.sourceline)
    _stops_as_browsers(element)
    for focal, centre in (("fx", "cx"), ("fy", "cy")):
        at = _fraction(element.get(centre), 0.5)  # (a centre and a focal point of no number: svglib's default)
        if name == "radialGradient" and _fraction(element.get(focal), at) != at:
            raise IconProblem(f"its radial gradient has a focal point ({focal}) other than its centre, which svglib "
                              "does not follow (the gradient printed otherwise than it is seen): leave fx and fy "
                              "out", element.sourceline)


def _fraction(value: str | None, default: float) -> float:
    """A gradient's coordinate as svglib reads it: a number, a percentage as its fraction, else `default`."""
    text = (value or "").strip()
    number = _NUMBER.fullmatch(text.removesuffix("%"))
    return default if number is None else float(number.group()) / (100 if text.endswith("%") else 1)


def _inherited(element: Any, name: str) -> str:
    """The value of the inherited property `name` of an element, its and its ancestors' styles cascaded: the
    nearest one given, other than inherit; blank where none is."""
    for node in (element, *element.iterancestors()):
        if (value := node.get(name, "").strip()) not in ("", "inherit"):
            return value
    return ""


def _stop_colour_as_browsers(element: Any, converter: Any) -> None:
    """Set a gradient stop's stop-color as browsers read it: currentColor the colour it names, the stop's color or
    the nearest its ancestors give (black where none does), and one that is no colour black, the initial value
    (svglib failed on each in its or Python's words, "'str' object has no attribute 'clone'", said at the file's
    first line). Its ancestors' styles are cascaded before it, and set so: an `inherit` of stop-color or
    stop-opacity (properties not inherited otherwise) is its parent's value, or the initial one where the parent
    gives none (svglib read either as its default: a stop inheriting blue printed black, exit 0)."""
    parent = element.getparent()
    for name, initial in (("stop-color", "black"), ("stop-opacity", "1")):
        if element.get(name, "").strip().lower() == "inherit":
            element.set(name, initial if parent is None else parent.get(name, initial))
    colour = element.get("stop-color", "").strip().lower()
    if colour and colour != "currentcolor" and not _paint_readable(converter, colour, "color"):
        element.set("stop-color", "black")
    if colour != "currentcolor":
        return
    for holder in (element, *element.iterancestors()):
        if holder.get("color", "inherit") != "inherit":
            element.set("stop-color", holder.get("color"))
            return
    element.set("stop-color", "black")


_PAINT_URL = re.compile(r"""url\(\s*(['"]?)#([^'")]*)\1\s*\)\s*(.*)""", re.DOTALL)


def _paint_server(value: str, servers: set[str | None]) -> str:
    """A paint `value` as browsers read a url(#id) paint with or without a fallback colour after it: the url
    alone when the icon has a gradient of that id (in `servers`), else the fallback, or none where it gives
    none (svglib painted nothing where the gradient was missing, and a browser paints the fallback)."""
    found = _PAINT_URL.fullmatch(value)
    if found is None:
        return value
    _, target, fallback = found.groups()
    return f"url(#{target})" if target in servers else fallback.strip() or "none"


# properties whose CSS form is not their attribute's (units, commas, path()): svglib would read them as attributes
_CSS_SYNTAX = ("transform", "d")
# the SVG elements whose display: contents draws their content (CSS Display 3); on any other it is display: none
_CONTENTS_SHOWN = frozenset({"g", "use", "tspan"})
# CSS's keywords for a property's initial or cascaded value, which svglib reads as no value (inherit it reads)
_CSS_WIDE = frozenset({"initial", "unset", "revert", "revert-layer"})
_KEYWORDS = ("display", "visibility", "fill-rule", "clip-rule", "stroke-linecap", "stroke-linejoin")


def _sheet_text(style: Any) -> str:
    """A <style> element's style sheet as browsers read it: its child text, around any element, comment or
    processing instruction it holds (lxml's text of it stops at the first: the rules after one were left out)."""
    return (style.text or "") + "".join(child.tail or "" for child in style)


def _style_applies(style: Any, line: int) -> bool:
    """Whether a <style> element's sheet is one a browser applies when it prints: of CSS (its type), for the
    media of its media attribute (_printed)."""
    kind = style.get("type", "").strip().lower()
    return kind in ("", "text/css") and _printed(style.get("media", ""), line)


# The media pnp prints on, as CSS names them: what a browser applies when it prints (in the light colour scheme)
_PRINTED_MEDIA = frozenset({"print", "all"})
_MEDIA_FEATURES = {"(prefers-color-scheme:light)": True, "(prefers-color-scheme:dark)": False}
# @-rules whose styles a browser applies on a condition pnp does not weigh (support, a cascade layer, a container)
_CONDITIONAL_RULES = frozenset({"supports", "layer", "container", "scope", "document", "-moz-document",
                                "starting-style"})


def _printed(queries: str, line: int) -> bool:
    """Whether a media query list (of an @media rule or a style element's media attribute) holds for a printed
    page: a browser applies a sheet for print or all (none said is all) and leaves out one for screen; a
    condition on the screen or page (its width, a pointer...) IconProblem at `line`, as pnp cannot weigh it as
    the viewer would."""
    if not queries.strip():
        return True
    return any(_query_holds(query, line) for query in queries.lower().split(","))


def _query_holds(query: str, line: int) -> bool:
    """Whether one media query ([not|only] type [and (feature)]..., or (feature) [and (feature)]...) holds for
    print (_printed)."""
    parts = re.split(r"\s+and\s+", query.strip())
    first = parts[0].split(maxsplit=1)
    negated = first[:1] == ["not"]
    if first[:1] in (["not"], ["only"]):
        parts[0] = first[1] if len(first) > 1 else ""
    if re.fullmatch(r"[a-z-]+", parts[0]):  # a media type (else the query is of features alone)
        if parts[0] not in _PRINTED_MEDIA:
            return negated
        parts = parts[1:]
    for feature in parts:
        said = _MEDIA_FEATURES.get(re.sub(r"\s+", "", feature))
        if said is None:
            raise IconProblem(f"its style sheet's media query {quoted_name(query.strip())} asks what pnp cannot say of a "
                              "printed page (it prints as media 'print', in the light colour scheme): give "
                              "the styles it prints by outside the @media rule", line)
        if not said:
            return negated
    return not negated


def _add_rules(sheet: Any, text: str, line: int) -> None:
    """Add the rules of the style sheet `text` (starting at the file's `line`) to `sheet` (svglib's CSSMatcher)
    as its add_styles does, but leaving out a rule whose selector is not CSS svglib reads, as browsers leave out
    one they do not, and reading an @media rule's rules as a browser that prints (_printed). IconProblem at an
    @-rule whose styles a browser applies on a condition pnp does not weigh (_CONDITIONAL_RULES)."""
    import tinycss2  # type: ignore[import-untyped]

    pending = [iter(tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True))]
    namespaces: dict[str | None, str] = {}  # prefix (None: the default) -> namespace, as @namespace rules declare
    while pending:  # (@media rules within @media rules, as deep as they come, without recursion)
        rule = next(pending[-1], None)
        if rule is None:
            pending.pop()
            continue
        at = line + rule.source_line - 1
        if rule.type == "at-rule" and rule.content is not None and rule.lower_at_keyword == "media":
            if _printed(tinycss2.serialize(rule.prelude), at):
                pending.append(iter(tinycss2.parse_rule_list(rule.content, skip_comments=True,
                                                             skip_whitespace=True)))
        elif rule.type == "at-rule" and rule.lower_at_keyword == "namespace":
            namespaces.update(_namespace_declared(rule.prelude))
        elif rule.type == "at-rule":
            _refuse_at_rule(rule, at)
        elif rule.type == "qualified-rule" and rule.prelude:
            _add_rule(sheet, rule, namespaces, at)


def _refuse_at_rule(rule: Any, at: int) -> None:
    """IconProblem at the file's line `at` for an @-rule (other than @media and @namespace) whose styles a browser
    applies and pnp does not: an @import (its url(...) form is refused before), or one of _CONDITIONAL_RULES.
    Any other (@font-face, @page...) styles no shape."""
    import tinycss2

    if rule.lower_at_keyword == "import":
        raise IconProblem(f"its style sheet imports {tinycss2.serialize(rule.prelude).strip()[:80]}, outside the "
                          "icon; an icon may refer only to its own elements: give the styles in the icon", at)
    if rule.content is not None and rule.lower_at_keyword in _CONDITIONAL_RULES:
        raise IconProblem(f"its style sheet holds an @{rule.lower_at_keyword} rule, whose styles a browser "
                          "applies on a condition pnp does not weigh: give them outside it", at)


def _namespace_declared(prelude: list[Any]) -> dict[str | None, str]:
    """{prefix or None (the default): namespace} of an @namespace rule's `prelude` (tinycss2's tokens), or {} for
    one that is no declaration."""
    tokens = [token for token in prelude if token.type not in ("whitespace", "comment")]
    prefix = tokens.pop(0).value if len(tokens) == 2 and tokens[0].type == "ident" else None
    if len(tokens) != 1:
        return {}
    token = tokens[0]
    if token.type in ("url", "string"):
        return {prefix: token.value}
    if token.type == "function" and token.lower_name == "url":
        strings = [argument.value for argument in token.arguments if argument.type == "string"]
        return {prefix: strings[0]} if len(strings) == 1 else {}
    return {}


def _add_rule(sheet: Any, rule: Any, namespaces: dict[str | None, str], at: int) -> None:
    """Add one qualified rule of a style sheet to `sheet` (_add_rules), its selectors' namespace prefixes and
    default namespace those its sheet declared (`namespaces`: svg|rect matched no element, and rect after a
    default namespace of another language matched SVG's). IconProblem at the file's line `at` for a selector
    cssselect2 cannot compile into Python (nested or chained some 50 deep: it failed in Python's words)."""
    import cssselect2  # type: ignore[import-untyped]
    import tinycss2

    try:
        selectors = cssselect2.compile_selector_list(rule.prelude, namespaces)
    except (cssselect2.SelectorError, AttributeError, StopIteration):
        # a selector browsers drop as invalid: cssselect2 fails on some (an An+B cut short, ':nth-child(n+)' or
        # '(+)') in Python's words, where it should say SelectorError: the icon was refused in them, at line 1
        return
    except (RecursionError, SyntaxError):  # (Python's limits on the code cssselect2 makes of a selector)
        try:
            shown = f" {quoted_name(tinycss2.serialize(rule.prelude).strip())}"
        except RecursionError:  # (tinycss2 writes it back by recursion too)
            shown = ""
        raise IconProblem(f"its style sheet's selector{shown} is nested or chained deeper than pnp can follow: "
                          "write it plainer", at) from None
    declared = dict(_declarations(rule.content))
    for selector in selectors:
        sheet.add_selector(selector, (tinycss2.serialize(rule.prelude), declared))


def _cascade(element: Any, rules: list[dict[str, str]]) -> None:
    """Write into the `element`'s attributes what CSS gives it from the style sheet `rules` that match it (least
    specific first) and its style attribute, each declaration by its name in lower case, !important ones last;
    marked so that svglib does not cascade them again its own way. IconProblem at a property whose CSS form
    svglib does not read, or a CSS variable (_refuse_unread_css)."""
    attributes = element.attrib
    declared = [(name, value) for rule in rules for name, value in rule.items()]
    declared += _declarations(attributes.get("style", ""))
    _refuse_unread_css(element, declared)
    for important in (False, True):
        _set_declared(attributes, [(name, value) for name, value in declared
                                   if bool(_IMPORTANT.search(value)) is important])
    for name in _KEYWORDS:  # (CSS keywords are read in any case; svglib read display="None" as shown)
        if name in attributes:
            attributes[name] = attributes[name].strip().lower()
    if attributes.get("display") == "contents" and element.tag.rpartition("}")[2] not in _CONTENTS_SHOWN:
        attributes["display"] = "none"  # (as CSS computes it for other SVG elements: svglib drew them)
    attributes.pop("style", None)  # (svglib reads display from it again, !important and all)
    attributes["__rules_applied"] = "1"


def _refuse_unread_css(element: Any, declared: list[tuple[str, str]]) -> None:
    """IconProblem at an element given, in CSS (`declared`), a value by a CSS variable or a property whose CSS
    form svglib does not read (_CSS_SYNTAX)."""
    if variable := next((name for name, value in declared if "var(" in value.lower()), None):
        raise IconProblem(f"it gives {variable} by a CSS variable (var()), which svglib does not read (it painted "
                          "black where browsers paint the variable's value): give the value itself",
                          element.sourceline)
    if keyword := next(((name, value) for name, value in declared
                        if _IMPORTANT.sub("", value).strip().lower() in _CSS_WIDE), None):
        raise IconProblem(f"it gives {keyword[0]} as '{keyword[1]}', which svglib does not read (a stroke: initial "
                          "printed its parent's stroke, where browsers print none): give the value itself",
                          element.sourceline)
    if css_only := next((name for name, _ in declared if name in _CSS_SYNTAX), None):
        raise IconProblem(f"it gives {css_only} in a style, whose form there svglib does not read: give it as the "
                          f"element's {css_only} attribute", element.sourceline)


def _set_declared(attributes: Any, declared: list[tuple[str, str]]) -> None:
    """Set each (name, value) declared as an attribute, !important left out of its value."""
    for name, value in declared:
        if name and not name.startswith("-"):
            try:
                attributes[name] = _IMPORTANT.sub("", value).strip()
            except ValueError:  # (a name lxml cannot hold as an attribute: no property svglib reads)
                pass


def _declarations(content: str | list[Any]) -> list[tuple[str, str]]:
    """(name in lower case, value) of each declaration of a style attribute or a rule's `content` (tinycss2's
    tokens), as CSS reads them: escapes read, comments left out, a `;` in a string kept, an !important one's
    value ending ' !important' (split at each `;`, 'fill:/**/none' and 'f\\69ll: none' were not read as none)."""
    import tinycss2

    found = []
    for item in tinycss2.parse_declaration_list(content, skip_comments=True, skip_whitespace=True):
        if item.type == "declaration":
            value = tinycss2.serialize([token for token in item.value if token.type != "comment"]).strip()
            found.append((item.lower_name, value + (" !important" if item.important else "")))
    return found


def _opacity(value: str) -> float | None:
    """An opacity as browsers read it, before clamping: a number, or a percentage as its fraction; None for
    one that is no finite number (browsers ignore it: the element inherits its parent's)."""
    value = value.strip()
    number = _NUMBER.fullmatch(value.removesuffix("%"))
    if number is None or not math.isfinite(float(number.group())):
        return None
    return float(number.group()) / (100 if value.endswith("%") else 1)


def _dashes_as_browsers(attributes: Any) -> None:
    """Leave out a stroke-dasharray holding a negative length, which browsers ignore (the element inherits its
    parent's: a solid stroke, most often), and svglib wrote into the PDF (the icon was refused at line 1 as
    holding a number too large to write)."""
    if any(float(number) < 0 for number in _NUMBER.findall(attributes.get("stroke-dasharray", ""))):
        del attributes["stroke-dasharray"]


def _clamp_opacity(attributes: Any, name: str) -> None:
    """An opacity attribute written as svglib can read it: its fraction clamped to 0..1; one that is no number
    (blank too: svglib's reading failed in Python's words) is removed (the element inherits it, as in
    browsers)."""
    if name not in attributes:
        return
    fraction = _opacity(attributes[name])
    if fraction is None:
        del attributes[name]
        return
    attributes[name] = repr(min(1.0, max(0.0, fraction)))


def _refuse_drawn_otherwise(element: Any, converter: Any) -> None:
    """IconProblem at an element, its styles cascaded, that svglib draws otherwise than browsers: a gradient's
    stop that is see-through (svglib paints every stop opaque), a viewBox of no width or height (browsers draw
    nothing, svglib drew the shapes) or of a negative one (browsers ignore it, svglib drew nothing), a
    vector-effect, a transform about another origin than 0 0, an effect it does not follow
    (_refuse_effects_unfollowed)."""
    from svglib.svglib import node_name

    if node_name(element) == "stop":
        colour = element.get("stop-color", "").strip()
        alpha = getattr(converter.convertColor(colour.lower()) if _paint_readable(converter, colour.lower(), "color") else
                        None, "alpha", 1)
        if float(element.get("stop-opacity", "1")) < 1 or alpha < 1:
            raise IconProblem("it holds a see-through gradient stop (a stop-opacity or stop-color alpha below 1), "
                              "which svglib paints opaque: give the stop an opaque colour", element.sourceline)
    if element.get("vector-effect", "none").strip().lower() != "none":
        raise IconProblem("it holds a vector-effect, which svglib does not follow (a non-scaling stroke printed "
                          "scaled with the icon): leave it out", element.sourceline)
    if element.get("transform", "").strip() and not _origin_at_zero(element):
        raise IconProblem("it turns or scales a shape about another point than the drawing's origin (a "
                          "transform-origin or transform-box), which svglib does not follow (it printed elsewhere): "
                          "give the transform about 0 0, as rotate(angle, x, y) does", element.sourceline)
    _refuse_effects_unfollowed(element)
    box = element.get("viewBox", "").replace(",", " ").split()
    if len(box) == 4 and all(_NUMBER.fullmatch(n) for n in box) and min(float(box[2]), float(box[3])) <= 0:
        raise IconProblem(f"it holds a viewBox of width {box[2][:20]} and height {box[3][:20]}, which browsers "
                          "draw as nothing or ignore: give it the width and height of the drawing",
                          element.sourceline)


def _refuse_effects_unfollowed(element: Any) -> None:
    """IconProblem at an element, its styles cascaded, painted with an effect svglib does not follow: an opacity
    below 1 however its style wrote it, a CSS effect (_effect_unfollowed), a paint-order painting the stroke
    first."""
    if (opacity := _opacity(element.get("opacity", ""))) is not None and opacity < 1:
        raise IconProblem(f"it holds an opacity of {element.get('opacity', '')[:20]}, which svglib does not draw (it "
                          "printed a shape of opacity 0 solid): leave the shape out, or give fill-opacity and "
                          "stroke-opacity", element.sourceline)
    if unfollowed := _effect_unfollowed(element):
        raise IconProblem(f"it gives {unfollowed}, an effect svglib does not draw (the shape printed whole, as if "
                          "it were not there): flatten the effect into plain shapes, or leave it out",
                          element.sourceline)
    painted = [word for word in element.get("paint-order", "").lower().split() if word in ("fill", "stroke")]
    if painted[:1] == ["stroke"]:  # (the order of those it names, then the others: fill, stroke)
        raise IconProblem("it paints its stroke before its fill (paint-order), which svglib does not follow (the "
                          "stroke printed over the fill): leave paint-order out", element.sourceline)


# CSS effects (as attributes or in a style) -> the values of each svglib draws as browsers do: a filter or mask
# by a reference (the <filter> and <mask> elements are refused by name), a clip by a reference to a <clipPath>
_EFFECTS: dict[str, re.Pattern[str]] = {
    **{name: re.compile(r"none|url\(.*\)", re.IGNORECASE | re.DOTALL) for name in ("filter", "clip-path", "mask")},
    **{name: re.compile(r"none", re.IGNORECASE) for name in ("mask-image", "backdrop-filter")},
    "mix-blend-mode": re.compile(r"normal", re.IGNORECASE)}


def _effect_unfollowed(element: Any) -> str | None:
    """'name: value' of an element's CSS effect that svglib leaves out without a word (a filter function such
    as opacity(0), a clip-path of a basic shape such as inset(), a mask image, a blend mode), or None."""
    for name, drawn in _EFFECTS.items():
        value = element.get(name, "").strip()
        if value and value.lower() != "inherit" and not drawn.fullmatch(value):
            return f"{name}: {value if len(value) <= 40 else value[:40] + '...'}"
    return None


_ZERO_ORIGIN = re.compile(r"(?:[-+]?0*\.?0*(?:px)?|left|top)", re.IGNORECASE)


def _origin_at_zero(element: Any) -> bool:
    """Whether an element's transform is about the drawing's origin (0 0) as svglib applies it: its
    transform-origin, if any, is 0 0 (or left top) of the view box, the default transform-box."""
    box = element.get("transform-box", "view-box").strip().lower()
    return box == "view-box" and all(_ZERO_ORIGIN.fullmatch(word) for word in element.get("transform-origin", "").split())


_SVG = "http://www.w3.org/2000/svg"


def _leave_out_hidden_uses(root: Any) -> None:
    """Take out of the parsed icon, its styles cascaded, each <use> of display none, which browsers do not draw
    and svglib drew (given by a style sheet, a style attribute or in capitals)."""
    for use in list(root.iter("{*}use", "use")):
        parent = use.getparent()
        if use.get("display") == "none" and parent is not None:
            parent.remove(use)


def _leave_out_what_browsers_do_not_draw(root: Any) -> None:
    """Take out of the parsed icon the elements a browser does not draw and svglib did: elements of another
    namespace than SVG's (in an SVG file). (A <use> of display none: _leave_out_hidden_uses, its styles
    cascaded.)"""
    from lxml import etree

    if etree.QName(root).namespace != _SVG:
        return
    for element in list(root.iter(etree.Element)):
        foreign = etree.QName(element).namespace != _SVG
        if foreign:
            parent = element.getparent()
            if parent is not None:
                parent.remove(element)


# lengths svglib reads a percentage of as that many units (it resolves x, y, width and height alone)
_NOT_PERCENT = ("r", "rx", "ry", "stroke-width", "stroke-dasharray", "stroke-dashoffset")


# the lengths svglib reads of each element (and of every element its stroke's, inherited), as a number and a
# unit (px, pt, mm, em...)
_LENGTHS: dict[str, tuple[str, ...]] = {"rect": ("x", "y", "width", "height", "rx", "ry"), "circle": ("cx", "cy", "r"),
            "ellipse": ("cx", "cy", "rx", "ry"), "line": ("x1", "y1", "x2", "y2"), "image": ("x", "y", "width", "height"),
            "use": ("x", "y", "width", "height"), "svg": ("width", "height")}
_STROKE_LENGTHS = ("stroke-width", "stroke-dashoffset")


def _shape_as_browsers(element: Any, converter: Any) -> None:
    """Set an element's shape as a browser draws it: a polyline's or polygon's points as browsers read them
    (_points_read), of an odd count of numbers without the last (svglib drew none of it), an ellipse's or rect's radii (_radii_as_browsers), a rect or ellipse of no
    width or height, or a shape or group under a transform of no area (_flattens), not drawn. IconProblem at a
    length given as a percentage svglib reads as units, or one svglib cannot read (_check_lengths)."""
    from svglib.svglib import node_name

    name = node_name(element)
    if name in ("polyline", "polygon"):
        numbers = _points_read(element.get("points", ""))
        element.set("points", " ".join(numbers[:len(numbers) - len(numbers) % 2]))
    if name in ("ellipse", "rect"):
        _radii_as_browsers(element, name)
    if name == "image":
        _picture_fitted(element)
    if name == "path" and element.get("d"):
        from svglib.utils import normalise_svg_path

        problem = _path_grammar_problem(element.get("d")) or _path_problem(normalise_svg_path(element.get("d")))
        if problem is not None:
            raise IconProblem(f"its path data (d) cannot be read ({problem})", element.sourceline)
    if percent := next((length for length in _NOT_PERCENT if element.get(length, "").strip().endswith("%")), None):
        raise IconProblem(f"it gives {percent} as a percentage, which svglib reads as that many units: give it in "
                          "the drawing's units", element.sourceline)
    _check_lengths(element, converter)
    if _draws_nothing(element, name, converter):
        element.set("display", "none")


# the numbers each command of path data takes (a command repeated takes as many again: svglib splits them)
_PATH_ARITY = {"m": 2, "l": 2, "t": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "a": 7, "z": 0}


_PATH_WSP = "[ \t\r\n\f]*"
_PATH_COMMAND = re.compile(f"{_PATH_WSP}([MmZzLlHhVvCcSsQqTtAa]){_PATH_WSP}")
_PATH_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_PATH_FLAG = re.compile("[01]")
_PATH_SEPARATOR = re.compile(f"{_PATH_WSP},?{_PATH_WSP}")


def _points_read(points: str) -> list[str]:
    """The numbers of a polyline's or polygon's points as browsers read them: up to the first that departs from
    SVG's grammar (browsers draw the points before it; svglib failed on 'a' in its own words, said at line 1)."""
    numbers: list[str] = []
    at = len(points) - len(points.lstrip(" \t\r\n\f"))
    while (number := _PATH_NUMBER.match(points, at)) is not None:
        numbers.append(number.group())
        separator = _PATH_SEPARATOR.match(points, number.end())
        at = separator.end() if separator is not None else number.end()
    return numbers


def _path_grammar_problem(data: str) -> str | None:
    """Where path data departs from SVG's grammar of it, or None: browsers draw a path up to its first error and
    none of it after, where svglib read past it in its own way (a stray letter skipped, 'M1 2 x3 4' drawn as a
    line; data starting with a number failing with an empty KeyError; a lone '-' said in Python's words)."""
    data = data.rstrip(" \t\r\n\f")
    at = len(data) - len(data.lstrip(" \t\r\n\f"))
    first = True
    while at < len(data):
        found = _PATH_COMMAND.match(data, at)
        if found is None or (first and found.group(1) not in "Mm"):
            return _path_error(data, at, "a moveto (M)" if first else "a command letter")
        command, at, first = found.group(1), found.end(), False
        if command in "Zz":
            continue
        end = _path_arguments(data, at, command)
        if end < 0:
            return _path_error(data, -end - 1, f"a number of its '{command}'")
        at = end
    return None


def _path_arguments(data: str, at: int, command: str) -> int:
    """Where a command's numbers end (one set of them at least, and every set that follows), or -1 - the place
    where one of them was wanted and is not."""
    sets = 0
    while True:
        after = _PATH_SEPARATOR.match(data, at)
        start = after.end() if sets and after is not None else at
        end = _path_numbers(data, start, command)
        if end < 0:
            if sets and "," not in data[at:start]:  # (a comma after the last number must be followed by one)
                return at
            return end
        at, sets = end, sets + 1


def _path_numbers(data: str, at: int, command: str) -> int:
    """Where one set of a command's numbers ends (its arc's flags single digits 0 or 1), or -1 - the place where
    one of them was wanted and is not."""
    for index in range(_PATH_ARITY[command.lower()]):
        if index:
            separator = _PATH_SEPARATOR.match(data, at)
            at = separator.end() if separator is not None else at
        number = (_PATH_FLAG if command in "Aa" and index in (3, 4) else _PATH_NUMBER).match(data, at)
        if number is None:
            return -1 - at
        at = number.end()
    return at


def _path_error(data: str, at: int, wanted: str) -> str:
    """What path data that departs from the grammar at `at` says: the place (past white space), what is there
    (a character not plain to see named) and what was wanted."""
    at += len(data[at:]) - len(data[at:].lstrip(" \t\r\n\f"))
    if at == len(data):
        return f"it ends where {wanted} should stand"
    odd = data[at] if not data[at].isascii() or not data[at].isprintable() else ""
    there = quoted_name(data[at:at + 12]) + (f" (its first character {character_named(odd)})" if odd else "")
    return f"at character {at + 1}, {there} stands where {wanted} should, and browsers draw nothing from there"


def _path_problem(commands: list[Any]) -> str | None:
    """Why path data, as svglib splits it ([command, numbers, ...]), is not what its drawing can follow, or None:
    a command short of its numbers ('L 5', 'C 1 1 2 2', '1.2.3 4' read as three numbers) or a first command that
    is no moveto. svglib failed on each as it drew the path, in its own words, said at the file's first line."""
    for at in range(0, len(commands) - 1, 2):
        command, numbers = commands[at], commands[at + 1]
        if at == 0 and command not in ("M", "m"):
            return f"it starts with '{command}', not a moveto (M)"
        if len(numbers) != _PATH_ARITY.get(command.lower(), len(numbers)):
            return f"its '{command}' is given {len(numbers)} number{'s' * (len(numbers) != 1)}, not " \
                   f"{_PATH_ARITY[command.lower()]}"
    return None


def _draws_nothing(element: Any, name: str | None, converter: Any) -> bool:
    """Whether a browser draws nothing of an element (`name`) though svglib drew it: a rect or ellipse of no
    size, stroke and all (svglib stroked it), or a shape or group under a transform of no area (_flattens:
    ReportLab divided by zero inverting it, and the icon was refused as unreadable)."""
    if element.getparent() is not None and _flattens(element.get("transform", ""), converter):
        return True
    return any(converter.convertLength(element.get(size, "").strip() or "0") == 0 for size in _SIZES_DRAWN.get(name or "", ()))


def _flattens(transform: str, converter: Any) -> bool:
    """Whether a transform attribute flattens what it moves to no area (a scale of 0, a matrix of determinant 0),
    which browsers do not draw; False for one svglib cannot read (its own error says it)."""
    if not transform.strip():
        return False
    try:
        steps = converter.convertTransform(transform)
    except (ValueError, TypeError, IndexError, AttributeError):
        return False
    area = 1.0
    for name, values in steps:
        if name == "scale":
            area *= values * values if isinstance(values, float) else values[0] * values[1]
        elif name == "matrix" and isinstance(values, tuple) and len(values) == 6:  # (another is refused: _refused)
            area *= values[0] * values[3] - values[1] * values[2]
    return area == 0


_SIZES_DRAWN: dict[str, tuple[str, ...]] = {"rect": ("width", "height"), "ellipse": ("rx", "ry")}  # a size of 0 (or none) draws no shape


# units of the viewer's window (vw, vh, vmin, vmax and their small, large and dynamic forms, vi, vb), which
# svglib reads as 0 (a rect 100vw wide, the whole icon in a browser, printed nothing)
_VIEWPORT_UNIT = re.compile(r"\d\s*[sld]?v(?:w|h|i|b|min|max)$", re.IGNORECASE)


def _check_lengths(element: Any, converter: Any) -> None:
    """IconProblem at an element giving one of _LENGTHS as what svglib cannot read as a length (calc(), a space
    before its unit, two numbers; it failed on it in its own words, said at the file's first line) or reads
    otherwise than browsers (a unit of the viewer's window)."""
    from svglib.svglib import node_name

    for name in (*_LENGTHS.get(node_name(element) or "", ()), *_STROKE_LENGTHS):
        value = element.get(name, "").strip()
        if not value or value.endswith("%") or value.lower() == "inherit":  # (percentages: said above)
            continue
        try:
            length = converter.convertLength(value)
        except ValueError:
            length = None
        if not isinstance(length, float) or _VIEWPORT_UNIT.search(value):
            raise IconProblem(f"it gives {name} as {quoted_name(value)}, which svglib cannot read as a length: give a number "
                              "and a unit (px, pt, mm, cm, in, em)", element.sourceline)


def _radii_as_browsers(element: Any, name: str) -> None:
    """Set an ellipse's or rect's rx and ry as SVG 2 reads them: one not given, or 'auto', is the other (an ellipse
    given one radius is round; svglib refused 'auto' at the file's first line); a rect either of whose radii is
    zero has square corners (svglib gave it the other: a rect of rx 10 and ry 0 printed rounded)."""
    radii = {radius: (element.get(radius) or "").strip() for radius in ("rx", "ry")}
    for radius, other in (("rx", "ry"), ("ry", "rx")):
        if radii[radius] in ("", "auto"):
            if radii[other] in ("", "auto"):
                element.attrib.pop(radius, None)
            else:
                element.set(radius, radii[other])
    zero = any((number := _NUMBER.match(element.get(radius, ""))) is not None and float(number.group()) == 0
               for radius in ("rx", "ry"))
    if name == "rect" and zero:
        element.set("rx", "0")
        element.set("ry", "0")


def _picture_fitted(element: Any) -> None:
    """Set an embedded picture's box to where a browser draws it (svglib stretched it to its box): fitted to it
    aspect kept (preserveAspectRatio's meet, the default) at its align. IconProblem at a picture to be cropped
    to its box (slice)."""
    from PIL import Image

    box = [element.get(name, "0" if name in "xy" else "").strip().removesuffix("px") for name in ("x", "y", "width", "height")]
    embedded = _EMBEDDED.match(_href(element).strip())
    if embedded is None or not all(_NUMBER.fullmatch(n) for n in box):
        return
    x, y, width, height = (float(n) for n in box)
    with Image.open(io.BytesIO(base64.decodebytes(_href(element)
                                                  .strip()[embedded.end() + 1:].encode("ascii")))) as picture:
        pixels_wide, pixels_high = picture.size
    align, _, fit = element.get("preserveAspectRatio", "xMidYMid meet").strip().partition(" ")
    scale = min(width / pixels_wide, height / pixels_high) if width > 0 and height > 0 else 0
    if align == "none" or not scale or math.isclose(width / height, pixels_wide / pixels_high, rel_tol=1e-3):
        return
    if fit.strip() == "slice":
        raise IconProblem("it holds a picture cropped to its box (preserveAspectRatio slice), which svglib "
                          "stretches to the box: crop the picture itself", element.sourceline)
    shown_width, shown_height = pixels_wide * scale, pixels_high * scale
    spare = {"Min": 0.0, "Mid": 0.5, "Max": 1.0}
    element.set("x", repr(x + (width - shown_width) * spare.get(align[1:4], 0.5)))
    element.set("y", repr(y + (height - shown_height) * spare.get(align[5:8], 0.5)))
    element.set("width", repr(shown_width))
    element.set("height", repr(shown_height))


def _refuse_clips_of_nothing(root: Any) -> None:
    """IconProblem at a clip path holding no shape it draws (none at all, or each display:none): browsers show
    nothing of what it clips, svglib drew it all unclipped."""
    from lxml import etree

    for clip in root.iter("{http://www.w3.org/2000/svg}clipPath", "clipPath"):
        shapes_drawn = [node for node in clip.iter(etree.Element) if node is not clip and node.get("display") != "none"]
        if not shapes_drawn:
            raise IconProblem("it holds a clip path of no shape it draws, which browsers draw as clipping away all "
                              "it clips and svglib as no clip: leave out the clip and what it clips", clip.sourceline)


def _refuse_clips_unfollowed(root: Any) -> None:
    """IconProblem at a clip, its styles cascaded, that svglib leaves out, or draws otherwise than browsers, without a
    word: a clip of the whole <svg>, a <clipPath> turned or moved (its transform), holding a <g> (or another element
    browsers leave out of it) or itself clipped (a clip-path of its own, or of a shape in it), or a shape in a
    clip path made invisible (visibility), which browsers leave
    out of the clip and svglib kept. Each printed more of the shapes it clips than a browser shows."""
    from lxml import etree

    if _clips(root):
        raise IconProblem("it clips its whole <svg> (a clip-path on it), which svglib leaves out (the icon printed "
                          "unclipped): give the clip-path to a <g> around its shapes", root.sourceline)
    for clip in root.iter(f"{{{_SVG}}}clipPath", "clipPath"):
        if clip.get("transform", "").strip():
            raise IconProblem("it holds a clip path turned or moved by a transform of its own, which svglib leaves "
                              "out (the shapes were clipped elsewhere than browsers clip them): give the transform "
                              "to the clip path's shapes", clip.sourceline)
        if (kept := next((child for child in clip.iterchildren(etree.Element)
                          if etree.QName(child).localname not in _CLIP_CONTENT), None)) is not None:
            raise IconProblem(f"it holds a <{etree.QName(kept).localname}> in a clip path, which browsers leave out of "
                              "the clip (a clip path is made of shapes and <use> alone) and svglib kept (it printed "
                              "what the clip hides): put the shapes in the clip path themselves", kept.sourceline)
        if (unused := _clip_child_unused(root, clip)) is not None:
            raise IconProblem(unused[0], unused[1])
        for node in clip.iter(etree.Element):
            if _clips(node):
                raise IconProblem("it holds a clip path clipped in turn (a clip-path on it or on a shape in it), "
                                  "which svglib leaves out (it printed more than browsers show): flatten the two "
                                  "clips into one shape", node.sourceline)
            if node is not clip and node.get("display") != "none" and _visibility(node) in ("hidden", "collapse"):
                raise IconProblem("it holds a clip path shape made invisible (visibility), which browsers leave out "
                                  "of the clip and svglib kept (it printed what the shape let through): leave the "
                                  "shape out", node.sourceline)


# what a <clipPath> holds and browsers read (SVG's content model of it: its shapes, text, <use>, and what draws
# nothing); a <g> or any other element in it is left out of the clip by browsers, and was clipped to by svglib
_CLIP_CONTENT = frozenset({"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "use", "title",
                           "desc", "metadata", "style", "script", *_ANIMATIONS})


def _clip_child_unused(root: Any, clip: Any) -> tuple[str, int | None] | None:
    """Why a shape of the clip path `clip` is clipped to otherwise by svglib than by browsers, and its line: a
    <polyline> (its area, as a browser fills it), which svglib leaves out of the clip, or a <use> of what is no
    shape (a <g>), which browsers leave out and svglib clipped to. None when each is read alike."""
    from lxml import etree

    ids = None
    for child in clip.iterchildren(f"{{{_SVG}}}polyline", "polyline", f"{{{_SVG}}}use", "use"):
        if etree.QName(child).localname == "polyline":
            return ("it holds a <polyline> in a clip path, which browsers clip to (its area) and svglib leaves out of "
                    "the clip (it printed what the clip hides): write it as a <polygon>", child.sourceline)
        ids = {node.get("id"): node for node in root.iter(etree.Element)} if ids is None else ids
        target = ids.get(_href(child)[1:]) if _href(child).startswith("#") else None
        if target is not None and etree.QName(target).localname not in _CLIP_FILLED - {"use"} | {"line", "polyline"}:
            return (f"it holds a <use> of a <{etree.QName(target).localname}> in a clip path, which browsers leave "
                    "out of the clip (a clip path's <use> names a shape) and svglib clipped to: name the shapes "
                    "themselves", child.sourceline)
    return None


def _refuse_clip_shapes_cancelling(renderer: Any, root: Any) -> None:
    """IconProblem at a clip path's shape that svglib's clip draws otherwise than browsers: svglib joins a clip
    path's shapes into one outline, filled by the first's clip-rule, where browsers take the union of their
    areas. Two shapes that overlap, drawn in opposite directions or either by the even-odd rule, cancelled each
    other where they overlap (a rect and a circle: the overlap printed clipped away), and a shape of another
    clip-rule than the first's was filled by the first's (its holes filled). (`renderer`: svglib's, that drew
    `root`: its shapes are made as it made them.)"""
    from lxml import etree
    from svglib.svglib import NodeTracker

    for clip in root.iter(f"{{{_SVG}}}clipPath", "clipPath"):
        children = [child for child in clip.iterchildren(etree.Element)
                    if child.tag.rpartition("}")[2] in _CLIP_FILLED and child.get("display") != "none"]
        if len(children) < 2:
            continue
        wrappers = {w.etree_element: w for w in NodeTracker.from_xml_root(clip).iter_subtree()}
        outlines = [(child, _clip_outline(renderer, child.tag.rpartition("}")[2], wrappers[child]))
                    for child in children]
        for at, (child, outline) in enumerate(outlines):
            if any(_cancelling(outline, other) for _, other in outlines[:at]):
                raise IconProblem("it holds a clip path of shapes that overlap, drawn in opposite directions or by "
                                  "the even-odd clip-rule, or of two clip-rules: svglib joins them into one outline, "
                                  "where they cancel each other (it clipped away what browsers show): join them into "
                                  "one path", child.sourceline)


_Box = tuple[float, float, float, float]
_Outline = tuple[str, list[tuple[_Box, bool]]]  # a clip's shape as svglib joins it (_clip_outline)


def _cancelling(outline: _Outline, other: _Outline) -> bool:
    """Whether two shapes of a clip path, joined into one outline by svglib, clip otherwise than their union (as
    browsers clip): of two clip-rules, or with outlines that overlap (their boxes) drawn in opposite directions or
    even-odd. Every outline of a shape counts, not its first alone: a path's second outline drawn against a rect
    it lies in is a hole in svglib's joined outline where browsers fill the rect."""
    (rule, parts), (other_rule, other_parts) = outline, other
    if rule != other_rule:
        return True
    return any(_overlap(box, other_box) and (rule == "evenodd" or turn != other_turn)
               for box, turn in parts for other_box, other_turn in other_parts)


def _overlap(box: _Box, other: _Box) -> bool:
    """Whether two boxes (x0, y0, x1, y1) share some area."""
    return box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]


# what of a clip path svglib clips to (the shapes it joins into one outline)
_CLIP_FILLED = frozenset({"path", "rect", "circle", "ellipse", "polygon", "use"})


def _clip_outline(renderer: Any, name: str, node: Any) -> "_Outline":
    """A clip path's shape `node` (svglib's) as svglib clips to it: its clip-rule, and the box around its outlines
    that turn clockwise and that around those that turn the other way (at most two boxes: a path of thousands of
    outlines compared outline by outline with another's was millions of comparisons)."""
    rule = "evenodd" if (node.etree_element.get("clip-rule") or "").strip().lower() == "evenodd" else "nonzero"
    item = renderer.renderUse(node) if name == "use" else renderer.shape_converter.convertShape(name, node)
    boxes: dict[bool, _Box] = {}
    for shape, transform in _solid_shapes(item, (1, 0, 0, 1, 0, 0)):
        path = renderer.shape_converter.shapeToPath(shape, transform)
        for points in _outlines(path.operators, path.points) if path is not None else ():
            box, turn = _outline_part(points)
            if turn is None:  # an outline of no area (a line) adds nothing to the outline's winding
                continue
            held = boxes.get(turn, box)
            boxes[turn] = (min(box[0], held[0]), min(box[1], held[1]), max(box[2], held[2]), max(box[3], held[3]))
    return rule, [(box, turn) for turn, box in boxes.items()]


def _outline_part(points: list[float]) -> tuple[_Box, bool | None]:
    """The box around one outline's points (x, y, x, y, ...) and whether it turns clockwise (its signed area;
    None for an outline of no area)."""
    xs, ys = points[0::2], points[1::2]
    area = sum(x0 * y1 - x1 * y0 for x0, y0, x1, y1 in zip(xs, ys, [*xs[1:], xs[0]], [*ys[1:], ys[0]]))
    return (min(xs), min(ys), max(xs), max(ys)), area > 0 if area else None


def _outlines(operators: list[int], points: list[float]) -> Iterator[list[float]]:
    """A path's points, outline by outline (each begun by a moveTo), by its operators (ReportLab's: 0 moveTo,
    1 lineTo, 2 curveTo of 3 points, 3 closePath of none)."""
    outline: list[float] = []
    at = 0
    for op in operators:
        if op == 0 and outline:
            yield outline
            outline = []
        count = 2 * (1, 1, 3, 0)[op]
        outline += points[at:at + count]
        at += count
    if outline:
        yield outline


def _solid_shapes(item: Any, transform: tuple[float, ...]) -> Iterator[tuple[Any, tuple[float, ...]]]:
    """The solid shapes svglib made of a clip path's shape (a group's, under their transforms)."""
    from reportlab.graphics.shapes import Group, SolidShape, mmult

    if isinstance(item, Group):
        inner = mmult(transform, item.transform)
        for content in item.contents:
            yield from _solid_shapes(content, inner)
    elif isinstance(item, SolidShape):
        yield item, transform


# the elements svglib finds, outside a <defs>, only once it has drawn them: what refers to one written after it
# found nothing (a shape clipped by a clip path written after it printed unclipped, one filled by a gradient
# written after it printed unfilled, where browsers clip or fill it)
_FOUND_ONCE_DRAWN = ("clipPath", "linearGradient", "radialGradient")


def _clips_where_svglib_finds_them(root: Any) -> None:
    """Set the parsed icon, its styles cascaded, so that svglib clips and fills what browsers clip and fill: each
    clip path and gradient is put in a <defs> where it is (_FOUND_ONCE_DRAWN); it leaves out the clip-path of an <a> and draws a <switch>'s after its
    content (unclipped), so each is given to a <g> around it, with its transform (in whose space it clips)."""
    from lxml import etree

    for clip in list(root.iter(*(f"{{{_SVG}}}{name}" for name in _FOUND_ONCE_DRAWN), *_FOUND_ONCE_DRAWN)):
        parent = clip.getparent()
        if parent is not None and not any(etree.QName(up).localname == "defs" for up in clip.iterancestors()):
            defs = etree.Element(f"{{{_SVG}}}defs", {"__rules_applied": "1"})
            parent.replace(clip, defs)
            defs.append(clip)
    for element in list(root.iter(f"{{{_SVG}}}a", "a", f"{{{_SVG}}}switch", "switch")):
        parent = element.getparent()
        if parent is not None and _clips(element):
            wrapper = etree.Element(f"{{{_SVG}}}g", {"__rules_applied": "1"})
            for name in ("transform", "clip-path"):
                if (value := element.attrib.pop(name, None)) is not None:
                    wrapper.set(name, value)
            parent.replace(element, wrapper)
            wrapper.append(element)


def _clips(element: Any) -> bool:
    """Whether an element, its styles cascaded, is given a clip-path (one that is not none)."""
    return element.get("clip-path", "").strip().lower() not in ("", "none", "inherit")


def _visibility(element: Any) -> str:
    """An element's visibility, its styles cascaded, as it inherits it from the nearest that gives one."""
    for node in (element, *element.iterancestors()):
        if (value := node.get("visibility", "").strip().lower()) not in ("", "inherit"):
            return value
    return "visible"


# a colour function of three or four numbers (a percentage, a hue in degrees): what a browser reads, clamping
# each number to its range (rgb(300, 0, 0) is red, an alpha of 2 is 1)
_COLOUR_FUNCTION = re.compile(r"\s*(?:rgba?|hsla?)\(\s*((?:" + _NUMBER.pattern + r")(?:%|deg)?(?:\s*[,/]\s*|\s+|"
                              r"\s*(?=\))))+\)\s*", re.IGNORECASE)


def _refuse_colours_clamped(element: Any, converter: Any) -> None:
    """IconProblem at an element, its styles cascaded, whose fill, stroke, color or stop-color is a colour function
    of numbers svglib cannot read (rgb(300, 0, 0), an alpha of 2, a hue of 120deg): browsers paint it, clamping
    each number to its range, and the shape printed black or unpainted (the colour taken for one browsers ignore)."""
    for name in (*_PAINTS, "stop-color"):
        value = element.get(name, "").strip()
        numbers = _NUMBER.findall(value)
        if len(numbers) not in (3, 4) or _COLOUR_FUNCTION.fullmatch(value) is None \
                or _paint_readable(converter, value.lower(), name):
            continue
        if not all(math.isfinite(float(number)) for number in numbers):
            continue  # (1e999: no number to a browser either, which ignores the colour)
        raise IconProblem(f"it gives {name} as {quoted_name(value)}, which browsers paint (a number past its range "
                          "clamped to it, a hue in degrees) and svglib cannot read (the shape printed black or "
                          "unpainted): give the colour as #rrggbb", element.sourceline)


def _paint_readable(converter: Any, value: str, name: str) -> bool:
    """Whether svglib reads the colour `value` (in lower case) of the property `name` as a browser does: a
    colour, `none` or a url(...) paint (not for `color`), or `inherit`."""
    if value == "inherit":
        return True
    if name != "color" and (value == "none" or value.startswith("url(")):
        return True
    try:
        return value != "currentcolor" and converter.convertColor(value) is not None
    except (ValueError, TypeError, AttributeError, KeyError, IndexError):  # ReportLab's colour parser on odd text
        return False


def _undash_zero_patterns(node: Any) -> None:
    """Stroke solid each shape whose stroke-dasharray sums to zero, as SVG says: svglib wrote such a pattern into
    the PDF, where it is an error (and was counted as endless dashes, refusing the icon)."""
    if isinstance(node, Group):
        for child in node.contents:
            _undash_zero_patterns(child)
        return
    pattern = getattr(node, "strokeDashArray", None)
    if pattern:
        lengths = pattern[1] if isinstance(pattern[-1], (list, tuple)) else pattern  # (as _dashes reads it)
        if not any(float(n) for n in lengths):
            node.strokeDashArray = None


def _no_system_fonts() -> object:
    """svglib's font map, without its search for a font it does not know: that opens the TrueType file an
    icon's font-family names (any path) and runs fc-match. Icons draw no text (validation refuses it)."""
    from svglib.fonts import DEFAULT_FONT_NAME, FontMap

    class StandardFontsOnly(FontMap):
        def find_font(self, font_name: str, weight: str = "normal", style: str = "normal") -> tuple[str, bool]:
            return DEFAULT_FONT_NAME, False

    return StandardFontsOnly()


def _recolour(node: Shape, colour: Color) -> None:
    if isinstance(node, Group):
        for child in node.contents:
            _recolour(child, colour)
    elif isinstance(node, Shape):
        if getattr(node, "fillColor", None) is not None:
            node.fillColor = colour
        if getattr(node, "strokeColor", None) is not None:
            node.strokeColor = colour


def _tinted(svg: bytes, digest: bytes, colour: Color) -> Drawing:
    """The icon's drawing with every filled or stroked shape in `colour`. The one parsed drawing is recoloured
    in place (each form is drawn right after, and every use recolours it whole first): a copy per colour
    cost more than the drawing itself."""
    drawing = _drawing(svg, digest)
    for child in drawing.contents:
        _recolour(child, colour)
    return drawing


def draw_icon(canvas: Canvas, path: Path, x: float, y: float, w: float, h: float, colour: Color,
              shown: str | None = None, beneath: Path | None = None) -> int:
    """Draw the icon at `path` fitted (aspect kept, centred) in the box (x, y, w, h) in `colour`; the number
    of fills and strokes its drawing paints (what rendering it costs: the PDF holds it once, a rasteriser
    paints it at every use). A refusal names the icon as `shown` (the name it is known by: a link's, as
    validation says it), or else by its file's stem. `beneath`: the project's folder (read_icon)."""
    forms = canvas.__dict__.setdefault("_pnp_icon_forms", {})
    hexval = colour.hexval() if hasattr(colour, "hexval") else str(colour)
    form = forms.get((path, hexval))
    if form is None:
        form = forms[(path, hexval)] = _define_form(canvas, path, hexval, colour, shown or path.stem, beneath)
    name, width, height, paints = form
    scale = min(w / width, h / height)
    # what saveState, transform, doForm and restoreState write, without their bookkeeping: an icon changes
    # none of the state the canvas tracks, and a card may show a dozen of them
    canvas.addLiteral("q")
    canvas.addLiteral("%s cm" % fp_str(scale, 0, 0, scale, x + (w - width * scale) / 2, y + (h - height * scale) / 2))
    canvas.doForm(name)
    canvas.addLiteral("Q")
    return paints


def _define_form(canvas: Canvas, path: Path, hexval: str, colour: Color, shown: str,
                 beneath: Path | None) -> tuple[str, float, float, int]:
    """The icon in this colour as a form of the canvas, named by its content and colour (the same bytes come
    out wherever the project lies, and two files of one name in different folders, one reached through a
    link, are two forms; two files of the same bytes are one); (name, width, height, paints). The file is read
    for each PDF, so what is drawn is always its content now; the drawing is worked out once per content, and
    only for an icon validation accepts (DataError otherwise)."""
    svg = read_icon(path, beneath)
    digest = hashlib.sha256(svg).digest()
    name = "icon" + hashlib.sha1(digest + hexval.encode()).hexdigest()[:12]
    defined = canvas.__dict__.setdefault("_pnp_icon_named", {})
    if name in defined:
        return defined[name]
    found = _forms.get((digest, hexval))
    if found is None and (why := unreadable_svg(svg, digest)) is not None:  # (the bytes drawn: read once)
        # validation refuses it; the preview draws the faces of a game with errors, and drawing this one
        # (250 uses of an embedded picture) took 26 s and 2.5 GB there
        raise DataError(f"icon '{shown}': {why[0]}", None)
    if found is None:
        found = _forms[(digest, hexval)] = FORMS.value(
            digest + hexval.encode(), lambda: _worked_out(svg, digest, colour, canvas._initialFontName), _is_form)
    width, height, operators = found
    canvas.beginForm(name, 0, 0, width, height)
    if operators is not None:
        for op in operators:
            canvas.addLiteral(op)
    else:
        _render(canvas, svg, digest, colour)
    canvas.endForm()
    defined[name] = name, width, height, _paints_of(svg, digest)
    return defined[name]


def _painting(operators: list[str]) -> int:
    """The fills and strokes (and forms and pictures) `operators` paint."""
    return sum(token in _PAINTING for op in operators for token in op.split())


# A dashed stroke is painted dash by dash: a circle of 4 pt dashed every millionth of a point (25 million
# dashes) took a PDF reader (poppler: pdftoppm, many viewers and printer drivers) over two minutes to render,
# where a layout's own dashes are held to options.MIN_DASH_CYCLE. An icon's dashes count as its paints, and an
# icon painting more than this is refused
MAX_ICON_DASHES = 20_000


def _dashes(node: Any) -> float:
    """The dashes the strokes of a drawing (svglib's shapes and groups) paint: each stroked shape's outline (as
    long as its points' polygon, or its bounds' perimeter, at least; both in its own units) over its dash
    pattern's length, times the dashes of one pattern. The pattern is measured along the outline in the same units, so no transform changes it."""
    if isinstance(node, Group):
        return sum(_dashes(child) for child in node.contents)
    pattern = getattr(node, "strokeDashArray", None)
    if not pattern or getattr(node, "strokeColor", None) is None or not getattr(node, "strokeWidth", 1):
        return 0
    lengths = pattern[1] if isinstance(pattern[-1], (list, tuple)) else pattern  # ReportLab's (phase, [...]) too
    repeated = 1 + len(lengths) % 2  # an odd list is repeated, as PDF does
    cycle = sum(abs(float(n)) for n in lengths) * repeated
    x0, y0, x1, y1 = node.getBounds()
    outline = max(2 * ((x1 - x0) + (y1 - y0)), _polygon_length(getattr(node, "points", None) or []))
    # each cycle paints a dash per pair of its lengths: one of 30,000 lengths of 0.0001 units (a cycle of 3 units,
    # 15,000 dashes), counted as one dash, took a PDF reader 2 to 8 s to render the one card drawing it
    dashes_per_cycle = max(1, len(lengths) * repeated // 2)
    return math.inf if cycle <= 0 or not math.isfinite(cycle) else outline / cycle * dashes_per_cycle


def _polygon_length(points: list[float]) -> float:
    """The length of the polygon through the points [x0, y0, x1, y1, ...] (a curve is no longer than the one
    through its control points)."""
    return sum(math.hypot(points[i + 2] - points[i], points[i + 3] - points[i + 1]) for i in range(0, len(points) - 3, 2))


_paints: dict[bytes, int] = {}  # file content's digest -> the fills and strokes its drawing paints: this process's


def icon_paints(path: Path, beneath: Path | None = None) -> int:
    """The fills and strokes drawing the icon at `path` paints, as draw_icon counts them (what each use costs a
    rasteriser), worked out once per file content without a page to draw on; 0 for an icon that cannot be
    drawn (validation refuses it). `beneath`: the project's folder (read_icon)."""
    try:
        svg = read_icon(path, beneath)
    except DataError:  # (a pipe, a file too large: said where the game's icon files are checked)
        return 0
    digest = hashlib.sha256(svg).digest()
    if digest not in _paints and unreadable_svg(svg, digest) is not None:
        return 0
    return _paints_of(svg, digest)


def _paints_of(svg: bytes, digest: bytes) -> int:
    """What the drawing of an icon validation accepts paints (_painted), worked out once per file content."""
    found = _paints.get(digest)
    if found is None:
        found = _paints[digest] = FORMS.value(b"paints\0" + digest, lambda: _painted(svg, digest),
                                              lambda value: type(value) is int)
    return found


def _painted(svg: bytes, digest: bytes) -> int:
    """icon_paints' work: the icon drawn once into a scratch PDF, its painting operators counted."""
    from reportlab.lib import colors

    default_font = shapes.STATE_DEFAULTS["fontName"]
    try:
        drawing, operators = _operators(svg, digest, colors.black, "Helvetica")
    finally:
        shapes.STATE_DEFAULTS["fontName"] = default_font
    return _painting(operators) + int(_dashes(drawing))


# PDF operators that paint (fill, stroke, shade, draw a form or picture): a rasteriser's work per use of an icon
_PAINTING = frozenset({"f", "F", "f*", "B", "B*", "b", "b*", "S", "s", "sh", "Do"})


def unreadable(path: Path, beneath: Path | None = None) -> Problem | None:
    """Why the icon file cannot be drawn, as (message, line, column), or None; found once per file content
    (kept with the drawings), so a build that has checked its icons before reads the answer. LimitError
    when the game's time runs out while reading it (template.ended_game), BudgetSpent once it has. `beneath`:
    the project's folder (read_icon)."""
    try:
        svg = read_icon(path, beneath)
    except DataError as e:
        return e.message, 0, 0
    return unreadable_svg(svg, hashlib.sha256(svg).digest())


def unreadable_svg(svg: bytes, digest: bytes) -> Problem | None:
    """unreadable of an icon file's bytes `svg` (of sha256 `digest`): a file read to be drawn is checked from the
    bytes drawn (read again to be checked, a file saved over between the two readings was drawn unchecked)."""
    if digest in _over_time:
        return _over_time[digest]
    if digest in _checked:
        return _checked[digest]
    try:
        problem = _checked[digest] = FORMS.value(b"check\0" + digest, lambda: _why_unreadable(svg, digest),
                                                 _is_problem)
        return problem
    except LimitError as e:  # not kept on disk: the answer of a game whose time was spent elsewhere
        if ended_game(e):  # the file was not at fault: the game's time ran out on it, said by the caller
            raise
        # kept for this process: the preview and a draft draw every face after the check, and each face
        # using the icon spent its 2 s on it again (a style sheet svglib cannot finish: minutes of CPU)
        _over_time[digest] = f"the SVG file cannot be drawn: {e.message}", 1, 1
        return _over_time[digest]


_over_time: dict[bytes, Problem] = {}  # icon content's digest -> its problem: svglib ran out of time on it
# icon content's digest -> what is wrong with it, or None: this process's, as each file is checked where validation
# reads the game's icons, again where a form is drawn and where its paints are counted (with the disk cache off,
# DinoSpan drew its 50 icons 270 times over, each under the tracing of `metered`)
_checked: dict[bytes, Problem | None] = {}


def _why_unreadable(svg: bytes, digest: bytes) -> Problem | None:
    outside = _other_format(svg) or _syntax_problem(svg) or _outside_reference(svg)
    if outside is not None:
        return outside
    try:
        problem = _drawing_problem(svg, digest)
    except (LimitError, BudgetSpent):  # no answer about the file: never kept as one
        raise
    except IconProblem as e:
        return f"the SVG file cannot be drawn: {e}", e.line, 1
    except MemoryError:  # the machine's or a limit's, not the file's: said for this run, never kept on disk as the
        # file's verdict (caught below, "cannot be drawn: MemoryError" was kept, and every later run refused the icon)
        raise LimitError("pnp ran out of memory drawing it: the machine has too little free memory, or a limit is "
                         "set on pnp's", 1) from None
    except Exception as e:  # noqa: BLE001 - svglib's and ReportLab's errors on what they cannot draw, ours too
        problem = str(e).splitlines()[-1] if str(e) else type(e).__name__
    return None if problem is None else (f"the SVG file cannot be drawn: {problem}", 1, 1)


# what an icon file that is no SVG text begins as, and what it is then: a file saved compressed (an .svgz renamed,
# or an editor's "compressed SVG" named .svg) or a picture renamed .svg was said in the XML parser's words, "not
# well-formed (invalid token)" at line 1, as if a character of the SVG were wrong
_OTHER_FORMATS = (
    (b"\x1f\x8b", "a compressed SVG file (gzip, as an .svgz file is), which pnp does not read: save it as plain "
                  "SVG (gunzip it, or choose plain, uncompressed SVG in your editor)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG picture, not SVG text: draw it with `type: image`, or save it as SVG"),
    (b"\xff\xd8\xff", "a JPEG picture, not SVG text: draw it with `type: image`, or save it as SVG"),
    (b"%PDF", "a PDF document, not SVG text: save it as SVG"),
)


def _other_format(svg: bytes) -> Problem | None:
    """(message, 0, 0) of an icon file in a format other than SVG text (_OTHER_FORMATS), said of the whole file,
    or None."""
    return next(((what, 0, 0) for begins, what in _OTHER_FORMATS if svg.startswith(begins)), None)


_ENTITY_REFERENCE = re.compile(rb"&([^\s&;<>\"']{1,200});")


def _undeclared_entity(svg: bytes, log: Any) -> Problem | None:
    """(message, line, column) of the first entity the icon refers to and declares nowhere in it, or None. An icon
    whose document type names a file of declarations (an external DTD, which no parser here reads) is let refer to
    entities it does not declare: the parsers read such an entity as nothing, so `fill="&none;"` or `rx="&r;"` was
    drawn without its paint or its radius, and said nothing. libxml warns of each, at the line."""
    from lxml import etree

    for entry in log:
        if entry.type != etree.ErrorTypes.WAR_UNDECLARED_ENTITY:
            continue
        lines = svg.splitlines()
        line = lines[entry.line - 1] if 0 < entry.line <= len(lines) else b""
        # the reference ending where libxml stopped (its column is past it), else the line's first
        found = [m for m in _ENTITY_REFERENCE.finditer(line) if m.end() <= max(entry.column, 1)] or \
            list(_ENTITY_REFERENCE.finditer(line))[:1]
        name = quoted_name(found[-1][0].decode("utf-8", "replace")) if found else "it names"
        column = found[-1].start() + 1 if found else 1
        return (f"it refers to the entity {name}, which it declares nowhere (its document type names a file "
                "of declarations, which pnp does not read): svglib reads it as nothing, and draws without what it "
                "stands for (a colour, a size, a text): write the value itself in the icon", entry.line or 1, column)
    return None


def _document_problem(root: Any) -> Problem | None:
    """(message, line, column) of what the parsed icon (lxml) `root` is as a document, or None: an element other
    than SVG's <svg> first (a web page holding an <svg> was said to hold "a nested <svg> box", a <g> to have no
    size, and an <svg> of another namespace, which no viewer draws, was printed), or a style sheet it names by
    <?xml-stylesheet?> (a browser applies it; svglib left it out)."""
    from lxml import etree

    if (kind := etree.QName(root)).localname != "svg" or kind.namespace not in (None, _SVG):
        return (f"its first element is <{kind.localname}>{_namespace_said(kind.namespace)}, not an SVG drawing's "
                f"<svg>: an icon is an SVG file (save the drawing alone, as SVG)", root.sourceline or 1, 1)
    for instruction in root.itersiblings(etree.ProcessingInstruction, preceding=True):
        if instruction.target == "xml-stylesheet":
            return _outside(instruction.get("href") or instruction.text or "", instruction.sourceline or 1)
    return None


def _namespace_said(namespace: str | None) -> str:
    """' of the namespace NAMESPACE' for an element of a namespace other than SVG's, as a message says it."""
    return "" if namespace in (None, _SVG) else f" of the namespace {quoted_name(namespace or '')}"


class _NestedTooDeep(Exception):
    """Stops reading an icon at the element nested past MAX_NESTED."""


# how deep brackets may nest in an icon's text (its attributes' values, its style sheets): tinycss2 reads and writes
# them back by recursion, and a style of 5,000 nested brackets raised RecursionError, said as a bug in pnp
MAX_BRACKETS = 100
_BRACKET = re.compile(r"[()\[\]{}]")


class _BracketsTooDeep(Exception):
    """Stops reading an icon at the text whose brackets nest past MAX_BRACKETS: `at`, the index in it of the
    bracket past them; `where`, its (line, column) in the file, once the reader has said it."""

    def __init__(self, at: int) -> None:
        super().__init__(at)
        self.at, self.where = at, (1, 1)


def _brackets_within(text: str, depth: int) -> int:
    """How deep brackets are open at the end of `text`, read from `depth` open at its start (a closing one with
    none open counts nothing); _BracketsTooDeep past MAX_BRACKETS."""
    for bracket in _BRACKET.finditer(text):
        depth = depth + 1 if bracket.group() in "([{" else max(depth - 1, 0)
        if depth > MAX_BRACKETS:
            raise _BracketsTooDeep(bracket.start())
    return depth


class _AttributeDefault(Exception):
    """Stops reading an icon at a default value its document type gives an attribute (<!ATTLIST>)."""

    def __init__(self, element: str, attribute: str) -> None:
        super().__init__(element, attribute)
        self.element, self.attribute = element, attribute


def _syntax_problem(svg: bytes) -> Problem | None:
    """(message, line, column) of an icon file that is not well-formed XML or nests elements deeper than
    MAX_NESTED, or None: read with the standard library's expat, which says where (svglib only logs a syntax
    error, and its parser, libxml, refuses deep nesting in its own words)."""
    from xml.parsers import expat

    parser = expat.ParserCreate()
    depth = [0]

    brackets = [0]  # how deep the brackets of the text read since the last tag are open

    def start(name: str, attributes: dict[str, str]) -> None:
        depth[0] += 1
        brackets[0] = 0
        if depth[0] > MAX_NESTED:
            raise _NestedTooDeep
        try:
            for value in attributes.values():
                _brackets_within(value, 0)
        except _BracketsTooDeep as e:  # (at its element's tag, as a problem of an attribute is said: the reader is
            # past the tag by the time the error reaches the caller)
            e.where = (parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
            raise

    def end(name: str) -> None:
        depth[0] -= 1
        brackets[0] = 0

    def text(data: str) -> None:  # (a style sheet may come in several pieces)
        try:
            brackets[0] = _brackets_within(data, brackets[0])
        except _BracketsTooDeep as e:  # (at the bracket: the text's start, and the lines and columns before it)
            before = data[:e.at]
            e.where = (parser.CurrentLineNumber + before.count("\n"),
                       (parser.CurrentColumnNumber if "\n" not in before else 0) + len(before.rpartition("\n")[2]) + 1)
            raise

    def attribute_list(element: str, attribute: str, kind: str, default: str | None, required: int) -> None:
        # (a value, or #FIXED one: #IMPLIED and #REQUIRED give none). A namespace's declaration is not one: an
        # older exporter's `<!ATTLIST svg xmlns:xlink CDATA #FIXED "...">` prints its xlink:href as it is seen
        if default is not None and attribute != "xmlns" and not attribute.startswith("xmlns:"):
            raise _AttributeDefault(element, attribute)

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler = text
    parser.AttlistDeclHandler = attribute_list
    try:
        parser.Parse(svg, True)
    except expat.ExpatError as e:
        return f"not a well-formed SVG file ({expat.errors.messages[e.code]})", e.lineno, e.offset + 1
    except (ValueError, LookupError):  # expat's of an encoding it cannot read (UTF-7, Shift_JIS...), said in its
        # XML declaration, or Python's of one it has never heard of (encoding="x-bogus": 'This is a bug in pnp')
        return ("its XML declaration names an encoding pnp does not read (save it as UTF-8)",
                parser.CurrentLineNumber or 1, 1)
    except _NestedTooDeep:
        return (f"its elements are nested more than {MAX_NESTED} deep (an icon needs a few levels of groups)",
                parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
    except _BracketsTooDeep as e:
        return (f"it nests brackets ((, [ or {{) more than {MAX_BRACKETS} deep in a style, a value or a style "
                "sheet, which pnp does not follow (CSS's reader recursed past Python's limit on one of 5,000): "
                "write it plainer", *e.where)
    except _AttributeDefault as e:
        # expat (Firefox's reader) puts such a default on every element it names; libxml as svglib reads the icon
        # does not: <!ATTLIST ellipse fill CDATA "none"> left ellipses unpainted where seen and printed them, exit 0
        return (f"its document type gives the attribute {quoted_name(e.attribute)} of {quoted_name(e.element)} elements "
                "a default value (<!ATTLIST>), which some viewers put in and svglib leaves out: write the attribute "
                "on the elements themselves", parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
    return None


def _unparsed(e: Any) -> Problem:
    """(message, line, column) of an icon libxml cannot read (an lxml XMLSyntaxError) that expat could."""
    from lxml import etree

    column = e.position[1] if isinstance(e.position, tuple) and e.position[1] else 1
    if e.code == etree.ErrorTypes.ERR_RESOURCE_LIMIT:  # (libxml said "Maximum entity amplification factor
        # exceeded, see xmlCtxtSetMaxAmplification.", at line 3 column 1 of an entity used at column 89)
        return ("its document type's entities put in where they are used make far more text than the file "
                "holds (entities built of entities, many times over): write the text itself in the icon",
                e.lineno or 1, column)
    return f"not an SVG file svglib can read ({e.msg})", e.lineno or 1, column


def _outside_reference(svg: bytes) -> Problem | None:
    """(message, line, column) of what an icon must not hold, or None: a reference to anything but its own
    elements (another file, anywhere, or a URL, a style sheet by <?xml-stylesheet?>: an icon is one
    self-contained file), an entity of its document type in its elements' text, an embedded picture
    that is not really a PNG or JPEG (svglib would let Pillow guess, and Pillow hands PostScript to
    Ghostscript), or more than MAX_ICON_ELEMENTS elements once every <use> is counted as what it repeats and
    every embedded picture as one element per PIXELS_PER_ELEMENT of its pixels and every path or polyline
    as one per NUMBERS_PER_ELEMENT of its numbers."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True)
    try:
        root = etree.fromstring(svg, parser)
    except etree.XMLSyntaxError as e:  # what the standard library's parser let pass (nesting too deep)
        return _unparsed(e)
    if (problem := _document_problem(root) or _undeclared_entity(svg, parser.error_log)) is not None:
        return problem
    # (counted first as written, a count _element_count only adds to: each element's checks below took 65 us, and
    # an icon of 20,000 elements was checked whole before it was refused for them, 200 such icons 25 s unmetered)
    if sum(1 + len(node.attrib) for node in root.iter(etree.Element)) > MAX_ICON_ELEMENTS:
        return _too_many_elements()
    weights: dict[Any, int] = {}  # element -> the elements its numbers or its embedded picture's pixels count as
    for node in root.iter(etree.Element):
        problem = _element_problem(node, weights)
        if problem is not None:
            return problem
    for entity in root.iter(etree.Entity):  # (an attribute's entities are put in by libxml, svglib's parser too)
        where = entity.sourceline or entity.getparent().sourceline or 1
        return (f"it holds the entity {entity.text[:40]} declared in its document type, whose text svglib leaves "
                "out where browsers put it in (shapes or styles): write the text itself in the icon", where, 1)
    if (twice := _id_given_twice(root)) is not None:
        return twice
    return _too_many_elements() if _element_count(root, weights) > MAX_ICON_ELEMENTS else None


def _too_many_elements() -> Problem:
    """The refusal of an icon of more than MAX_ICON_ELEMENTS elements and attributes, as _element_count counts."""
    return (f"it has more than {MAX_ICON_ELEMENTS:,} elements and attributes (each <use> counted as what it "
            f"repeats, each embedded picture as one per {PIXELS_PER_ELEMENT:,} pixels, each path or polyline as "
            f"one per {NUMBERS_PER_ELEMENT} numbers), or elements nested more than {MAX_CHAIN} deep", 1, 1)


_FRAGMENT = re.compile(r"""url\(\s*['"]?#([^'")]*)|^\s*#(.*\S)""", re.IGNORECASE)  # the id a url(#id) or href names


def _id_given_twice(root: Any) -> Problem | None:
    """(message, line, column) of an id the icon gives to two elements and refers to (by url(#id) or href), or
    None: browsers take the first element of that id, svglib the last it has drawn (a <use> printed another
    shape, a paint a gradient where browsers found none)."""
    from lxml import etree

    first: dict[str, Any] = {}
    twice: dict[str, Any] = {}
    named: set[str] = set()
    for node in root.iter(etree.Element):
        if (given := node.get("id")) is not None:
            if given in first:
                twice.setdefault(given, node)
            first.setdefault(given, node)
        texts = [*node.attrib.values(), _sheet_text(node)] if etree.QName(node).localname == "style" else node.attrib.values()
        # (a url(#) names no id: its two groups are empty, and next() without a default raised StopIteration)
        named.update(_decoded(next((name for name in found if name), "")) for text in texts
                     for found in _FRAGMENT.findall(text))
    for given, node in twice.items():
        if given in named:
            return (f"it gives the id {quoted_name(given)} to two elements (lines {first[given].sourceline} and {node.sourceline}) "
                    "and refers to it: browsers take the first, svglib another: give each element its own id",
                    node.sourceline or 1, 1)
    return None


def _element_problem(node: Any, weights: dict[Any, int]) -> Problem | None:
    """(message, line, column) of what the icon's element `node` must not hold (text, a reference outside the
    icon, an embedded picture that cannot be drawn), or None; what its numbers and pixels weigh goes in
    `weights`."""
    from lxml import etree

    if shape := node.get("d") or node.get("points"):
        weights[node] = sum(1 for _ in _NUMBER.finditer(shape)) // NUMBERS_PER_ELEMENT
        if weights[node] > MAX_ICON_ELEMENTS:  # (refused whatever its numbers: each checked took 0.4 s per MB)
            return _too_many_elements()
    if (refused := _refused(node)) is not None:
        return refused, node.sourceline or 1, 1
    where = node.sourceline or 1
    if (target := _url_outside(node)) is not None:
        return _outside(target, where)
    href = _href(node).strip()
    if href.startswith("#") and etree.QName(node).localname == "image":
        # browsers load a picture file there (#id names the icon's own file, which an icon seen as a picture does
        # not load: nothing), never one element of it; svglib drew the element (#id) in the picture's box, or for
        # an id of none ended on its own error ('stat: path should be string'), said at the icon's first line
        return ("holds an <image> of one of its own elements (href=\"#...\"), which svglib draws in the picture's "
                "box and browsers do not: embed a PNG or JPEG picture there, or <use> the element", where, 1)
    if not href or href.startswith("#"):
        return None
    embedded = _EMBEDDED.match(href)
    if embedded is None:
        return _outside(href, where)
    problem, pixels = _embedded_problem(href[embedded.end() + 1:])
    if problem:
        return f"its embedded picture {problem}", where, 1
    weights[node] = weights.get(node, 0) + pixels // PIXELS_PER_ELEMENT
    return None


def _sizes_a_symbol(use: Any) -> bool:
    """Whether the <use> `use` gives a width or height (other than auto) and refers to a <symbol>: SVG viewers size
    the symbol's box by it, where svglib draws the symbol as a plain group."""
    from lxml import etree

    if all(use.get(side, "auto").strip().lower() == "auto" for side in ("width", "height")):
        return False
    href = _href(use)
    if not href.startswith("#"):
        return False
    target = next(iter(use.getroottree().xpath("//*[@id=$id]", id=href[1:])), None)
    return target is not None and etree.QName(target).localname == "symbol"


def _refused(node: Any) -> str | None:
    """Why an icon may not hold the element `node` (_REFUSED_ELEMENTS, a size below zero), or None. svglib also
    reads a clip whose shapes are fractions of the clipped shape's bounds (clipPathUnits="objectBoundingBox") as
    user units: the shape was clipped to a speck and printed as nothing."""
    from lxml import etree

    name = etree.QName(node).localname
    if name == "clipPath" and node.get("clipPathUnits", "").strip() == "objectBoundingBox":
        return ("holds a clip in units of the shape it clips (clipPathUnits=\"objectBoundingBox\"), which svglib "
                "does not follow: the icon would print otherwise than it is seen; give the clip in user units")
    if (negative := _negative_size(node)) is not None:
        return (f"holds a <{name}> of {negative[0]} {negative[1]}, which SVG viewers draw as nothing and svglib "
                "drew as a shape: leave it out, or give its size")
    if (attribute := _attribute_problem(node)) is not None:
        return attribute
    if (condition := next((key for key in _CONDITIONS if node.get(key) is not None), None)) is not None:
        return (f"holds a <{name}> drawn on a condition ({condition}), which an SVG viewer tests against its reader's "
                "language and abilities, and svglib against the machine pnp runs on (its LANG): the icon would "
                "print otherwise than it is seen, and otherwise on another machine; leave the condition out")
    if name == "svg" and node.getparent() is None and node.get("transform", "").strip():
        return ("turns, moves or scales its whole <svg> (a transform on it), which browsers and Inkscape apply (SVG 2) "
                "and svglib leaves out (the icon printed as if untransformed): draw the shapes where they are seen")
    return _box_problem(node, name) or _REFUSED_ELEMENTS.get(name)


def _box_problem(node: Any, name: str) -> str | None:
    """Why `node`, an element called `name`, makes a box of its own inside the icon, which SVG viewers fit and clip
    its shapes to and svglib does not (a nested <svg>, a <symbol> of a viewBox, a <use> sizing a <symbol>), or
    None."""
    if name == "use" and _sizes_a_symbol(node):
        return ("holds a <use> of a <symbol> given a width or height, which SVG viewers make the symbol's box (its "
                "shapes clipped to it, its percentages read of it) and svglib leaves out: leave out the <use>'s width "
                "and height, or flatten the symbol into plain shapes")
    if name == "svg" and node.getparent() is not None or name == "symbol" and node.get("viewBox") is not None:
        return (f"holds a nested <{name}> box, which svglib does not fit and clip as SVG viewers do (its shapes "
                "printed at another size, or outside the box): flatten it into plain shapes")
    return None


# the counts of numbers each step of a transform list takes (SVG's grammar of transform, gradientTransform and
# patternTransform): a list of another count is an error, which browsers ignore whole, and svglib drew in part
# (a 'rotate(1 2) translate(5 5)' moved) or failed on in Python's words ('matrix(1 2 3)': tuple index out of range)
_TRANSFORM_COUNTS = {"matrix": (6,), "translate": (1, 2), "scale": (1, 2), "rotate": (1, 3), "skewX": (1,),
                     "skewY": (1,)}  # (spelt as SVG spells them: a 'Rotate' is no step)
_TRANSFORM_STEP = re.compile(r"([A-Za-z]+)[ \t\r\n\f]*\(([^()]*)\)")


def _attribute_problem(node: Any) -> str | None:
    """Why an attribute of `node` is drawn otherwise than browsers draw it: a number no PDF can draw or browsers
    do not read (_number_problem), a transform list browsers ignore (_transform_problem); or None."""
    if (number := _number_problem(node)) is not None:
        return f"the SVG file cannot be drawn: it gives {number[0]} as '{number[1]}', {number[2]}"
    return _transform_problem(node)


def _transform_problem(node: Any) -> str | None:
    """Why a transform list of `node` is one browsers ignore (a step unknown, or given another count of numbers
    than it takes), or None. An unknown step's name is said by named (a file's text may hold control
    characters)."""
    from lxml import etree

    for name, value in node.attrib.items():
        attribute = etree.QName(name).localname
        if attribute.lower() not in ("transform", "gradienttransform", "patterntransform"):
            continue
        for step in _TRANSFORM_STEP.finditer(value):
            counts = _TRANSFORM_COUNTS.get(step.group(1))
            given = len(_NUMBER.findall(step.group(2)))
            if counts is None or given not in counts:
                takes = " or ".join(map(str, counts)) if counts else ""
                why = (f"{step.group(1)} takes {takes} number{'s' * (takes != '1')}, not {given}" if counts
                       else f"{quoted_name(step.group(1))} is no step of a transform")
                return (f"gives {attribute} as {quoted_name(value.strip())}, which browsers ignore whole ({why}) "
                        "and svglib drew in part, or not at all: write it as SVG spells it")
    return None


# SVG's conditional processing: an element, or the child a <switch> picks, drawn only for readers of a language
# or viewers of some abilities. svglib picks by the locale of the machine it runs on (LC_ALL, LANG...), and draws
# the element outside a <switch> whatever it says: the same icon printed other shapes, and other bytes, in French
_CONDITIONS = ("systemLanguage", "requiredExtensions", "requiredFeatures")
_SIZES = ("width", "height", "r", "rx", "ry")  # an element's sizes, never below zero in SVG
# The properties and attributes svglib reads as numbers: one of nan, inf or past any drawing's size (1e400 is inf
# to Python) was found only in the PDF drawn from the whole icon, and refused at the file's first line
_NUMERIC = frozenset({*_SIZES, "x", "y", "cx", "cy", "x1", "y1", "x2", "y2", "fx", "fy", "fr", "d", "points",
                      "transform", "gradienttransform", "patterntransform", "viewbox", "offset", "stroke-width",
                      "stroke-dashoffset", "stroke-dasharray", "stroke-miterlimit", "opacity", "fill-opacity",
                      "stroke-opacity", "stop-opacity", "font-size"})
# a number of an icon's geometry past this is no drawing's (MAX_ICON_SIZE is 1e5): a PDF cannot hold its products
MAX_ICON_NUMBER = 1e15
# what Python's float reads as a number and SVG and CSS do not: a digit other than 0-9 (a full-width '２', an
# Arabic-Indic '٢') or a '_' between digits (a stroke-width of '1_000' printed a square of black; browsers draw 1)
_NOT_SVG_NUMBER = re.compile(r"(?![0-9])\d|\d_\d")
_NUMBER_OR_WORD = re.compile(r"(?<![\w.])[-+]?(?:nan|inf(?:inity)?)(?!\w)|" + _NUMBER.pattern, re.IGNORECASE)


def _number_problem(node: Any) -> tuple[str, str, str] | None:
    """(name, value, why) of an attribute or style declaration of _NUMERIC that holds a number no PDF can draw
    (nan, an infinity, past MAX_ICON_NUMBER) or one browsers do not read as a number though svglib, reading it
    with Python's float, does (_NOT_SVG_NUMBER), or None. The outermost <svg>'s size is checked as the drawing's
    (pnp.draw.icons._drawing)."""
    from lxml import etree

    given = [(etree.QName(name).localname, value) for name, value in node.attrib.items()]
    given += _declarations(node.get("style", "")) if node.get("style") else []
    for name, value in given:
        if name.lower() not in _NUMERIC:
            continue
        if _NOT_SVG_NUMBER.search(value):
            return name, value.strip()[:40], ("which browsers do not read as a number (digits 0-9, no '_'), though "
                                              "svglib does: the icon would print otherwise than it is seen")
        drawings_size = node.getparent() is None and name in ("width", "height", "viewBox")
        if not drawings_size and any(not abs(float(found.group())) <= MAX_ICON_NUMBER for found in _NUMBER_OR_WORD.finditer(value)):
            return name, value.strip()[:40], f"a number no PDF can draw (nan, an infinity, or past " \
                                             f"{MAX_ICON_NUMBER:.0e})"
    return None


def _negative_size(node: Any) -> tuple[str, str] | None:
    """(name, value) of a size the element gives below zero (a rect of width -5, a circle of r -3), or None."""
    for name in _SIZES:
        value = node.get(name, "").strip()
        number = _NUMBER.match(value)
        if number is not None and float(number.group()) < 0:
            return name, value[:20]
    return None


_NAMESPACE_RULE = re.compile(r"@namespace\b[^;{}]*;?", re.IGNORECASE)


def _url_outside(node: Any) -> str | None:
    """What a paint, clip or mask given as url(...) refers to, when that is not one of the icon's own elements
    (svglib reads them from attributes, style and <style> alike, and fails on a file's URL)."""
    from lxml import etree

    values = list(node.attrib.values())
    if etree.QName(node).localname == "style":  # (its sheet's text, read only there: every element comes here)
        # (a style sheet's @namespace names a namespace by a URL no browser fetches: an SVG's own, most often)
        values.append(_NAMESPACE_RULE.sub("", _sheet_text(node)))
    for value in values:
        for target in _URL.findall(value):
            if not target.strip().startswith("#"):
                return str(target.strip())
    return None


def _outside(target: str, where: int) -> Problem:
    """What a reference outside the icon is told: a picture embedded in a data URL svglib does not decode
    (another type, or its type in capitals or with parameters, which browsers read) is told as the embedded
    picture it is, not as a reference outside the icon."""
    if target.strip()[:5].lower() == "data:":
        return (f"embeds {quoted_name(target.strip())}, which svglib does not draw: it draws only a picture written "
                "'data:image/png;base64,' or 'data:image/jpeg;base64,' (so spelt, in lowercase, with nothing "
                "between): write it so, or leave it out", where, 1)
    return (f"refers to {quoted_name(target)} outside the icon; an icon may refer only to its own elements "
            "(#id) and embed PNG or JPEG pictures", where, 1)


def _embedded_problem(payload: str) -> tuple[str | None, int]:
    """(why a base64 picture inside an icon cannot be drawn, or None; its pixels)."""
    import binascii

    from PIL import Image, UnidentifiedImageError

    from ..model.images import (CUT_SHORT, DAMAGED, MAX_IMAGE_PIXELS, animation_problem, drawn_as_is,
                                 png_data_cut, structure_problem, unread_kind)

    picture = b""
    try:
        picture = base64.decodebytes(payload.encode("ascii"))
        if problem := structure_problem(picture):
            return f"cannot be used: {problem}", 0
        with Image.open(io.BytesIO(picture), formats=("PNG", "JPEG")) as image:
            width, height = image.size
            if animated := animation_problem(image):
                return f"is {animated}", 0
            as_is = drawn_as_is(image)
            if width * height <= MAX_ICON_ELEMENTS * PIXELS_PER_ELEMENT:  # (a larger one is refused by its count)
                # decoded now, as svglib decodes it to draw it: damaged data failed there, in Pillow's words at
                # the icon's first line
                image.load()
            see_through = width * height <= MAX_IMAGE_PIXELS and _see_through_pixels(image)
    except (UnidentifiedImageError, binascii.Error, UnicodeEncodeError):  # (a JPEG or PNG said as what it is)
        kind = unread_kind(io.BytesIO(picture))
        return (f"cannot be used: {kind}" if kind else "is not a PNG or JPEG image"), 0
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError):
        if png_data_cut(picture):
            return f"cannot be used: {CUT_SHORT}", 0
        return f"cannot be read: {DAMAGED}", 0
    if width * height > MAX_IMAGE_PIXELS:
        return f"has more than {MAX_IMAGE_PIXELS:,} pixels", 0
    if png_data_cut(picture):  # (its chunks whole: svglib decoded it only to draw it, and failed in Pillow's words)
        return f"cannot be used: {CUT_SHORT}", 0
    if not as_is:  # a picture of the game's own is redrawn (pnp.draw.pictures); svglib hands this one as it is
        return ("would print otherwise than it is seen (16-bit greys clipped to white, a transparent colour "
                "printed, an EXIF orientation not turned, a JPEG ReportLab misreads: arithmetic-coded, or a header it walks otherwise, "
                "colours of a profile other than sRGB): embed it as an upright 8-bit sRGB PNG or baseline JPEG"), 0
    if see_through:
        return ("has see-through pixels, which svglib prints solid (the colour under them, often black): embed it "
                "with no transparency, or print it as the game's own picture (an image element)"), 0
    return None, width * height


def _see_through_pixels(image: "Image.Image") -> bool:
    """Whether an embedded picture has a pixel less than opaque (an alpha channel's, a palette's transparent
    entries): svglib hands ReportLab the picture with no mask, and each such pixel printed in its colour."""
    if not image.has_transparency_data:
        return False
    low = image.convert("RGBA").getchannel("A").getextrema()[0]
    return isinstance(low, int | float) and low < 255


def _element_count(root: Any, weights: dict[Any, int]) -> int:
    """The elements svglib would draw and their attributes, each <use> counted as the elements it stands for
    (a chain of uses of uses can stand for millions) and each element of `weights` as that many more; stops
    counting once past MAX_ICON_ELEMENTS, and a chain deeper than MAX_CHAIN counts as past it."""
    from lxml import etree

    by_id = {node.get("id"): node for node in root.iter(etree.Element) if node.get("id")}
    # element -> elements it stands for (1 while it is being counted: a <use> of an ancestor). Keyed by the
    # element itself, which keeps lxml's proxy of it alive: an id() could be reused by another proxy
    counts: dict[Any, int] = {}

    def count(node: Any, depth: int) -> int:
        if node in counts:
            return counts[node]
        if depth > MAX_CHAIN:
            return MAX_ICON_ELEMENTS + 1
        counts[node] = 1
        total = 1 + len(node.attrib) + weights.get(node, 0)  # svglib's work grows with the square of attributes
        href = _href(node)
        targets = [by_id[href[1:]]] if href.startswith("#") and href[1:] in by_id else []
        for child in [*node.iterchildren(etree.Element), *targets]:
            total += count(child, depth + 1)
            if total > MAX_ICON_ELEMENTS:
                break
        counts[node] = total
        return total

    return count(root, 0)


def _is_form(value: object) -> bool:
    """Whether a value read from FORMS is a FormMade, as _worked_out gives."""
    if not isinstance(value, tuple) or len(value) != 3 or not all(isinstance(n, float) for n in value[:2]):
        return False
    operators = value[2]
    return operators is None or isinstance(operators, list) and all(isinstance(op, str) for op in operators)


def _is_problem(value: object) -> bool:
    """Whether a value read from FORMS is what _why_unreadable gives: None or a Problem."""
    return value is None or (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], str)
                             and all(type(n) is int for n in value[1:]))


def _worked_out(svg: bytes, digest: bytes, colour: Color, font_name: str) -> FormMade:
    """The icon drawn once into a scratch PDF's form, and the operators that drew it. The scratch PDF starts
    in the font the real ones do, as a different one would be selected again by an operator of its own."""
    drawing, operators = _operators(svg, digest, colour, font_name)
    clean = not any(_USES_RESOURCE.search(op) for op in operators)
    return float(drawing.width), float(drawing.height), list(operators) if clean else None


def _operators(svg: bytes, digest: bytes, colour: Color, font_name: str,
               written: io.BytesIO | None = None) -> tuple[Drawing, list[str]]:
    """(the drawing, the operators that draw it into a form of a scratch PDF in `font_name`); with `written`,
    the scratch PDF is written there whole and uncompressed, the resources the form uses (a gradient's
    shading) included."""
    drawing = _drawing(svg, digest)
    scratch = new_canvas(written if written is not None else io.BytesIO(), font_name,
                         compression=0 if written is not None else None)
    scratch.beginForm("icon", 0, 0, drawing.width, drawing.height)
    start = len(scratch._code)
    _render(scratch, svg, digest, colour)
    operators = scratch._code[start:]
    scratch.endForm()
    if written is not None:
        scratch.showPage()
        scratch.save()
    return drawing, operators


def _drawing_problem(svg: bytes, digest: bytes) -> str | None:
    """Why the icon's drawing cannot be written into a PDF, or None: it is drawn once (in the game's time) and
    its scratch PDF written whole, as a build would (a coordinate of 1e308 fails there, in the content or in a resource such
    as a gradient's shading, and one of nan would be written as a word no PDF reader knows)."""
    from reportlab.lib import colors

    dashes = _dashes(_drawing(svg, digest))
    if dashes > MAX_ICON_DASHES:  # (svglib's own errors, and ours on the drawing's size)
        return (f"its dashed lines paint more than {MAX_ICON_DASHES:,} dashes (make the dashes and gaps of its "
                "stroke-dasharray longer)")
    default_font = shapes.STATE_DEFAULTS["fontName"]
    written = io.BytesIO()
    try:
        # in the game's time too: embedded pictures are decoded and packed here, as in each PDF that draws them
        with metered("drawing the icon"):
            _, operators = _operators(svg, digest, colors.black, "Helvetica", written)
        pdf = written.getvalue().decode("latin-1")
    except (ValueError, OverflowError, ZeroDivisionError):  # ReportLab writing a number it cannot
        pdf = "nan"
    except LimitError:
        # stopped midway, ReportLab leaves its marks on the drawing's nodes (the canvas it drew on): the
        # drawing is parsed again when next used, never drawn from that state
        _drawings.pop(digest, None)
        raise
    finally:
        shapes.STATE_DEFAULTS["fontName"] = default_font
    if _NOT_FINITE.search(pdf):
        return "it holds a coordinate or size that is not a number or too large to write in a PDF"
    if _NEGATIVE_WIDTH.search(pdf):
        return ("it holds a negative stroke-width, which SVG viewers ignore and PDF viewers each draw their own "
                "way: leave it out, or give the width it should print at")
    # what _painted would draw it again to count (the same drawing, colour and font): kept as _paints_of keeps
    # it, on disk too, so that a later build drawing from the cache needs no svglib to count it
    if digest not in _paints:
        _paints[digest] = _painting(operators) + int(dashes)
        FORMS.store(b"paints\0" + digest, _paints[digest])
    return None


def _render(canvas: Canvas, svg: bytes, digest: bytes, colour: Color) -> None:
    # renderPDF starts every drawing by selecting its default font (Helvetica), which would put an
    # unembedded base-14 font in the PDF; icons draw no text, so point the default at the canvas's own font.
    shapes.STATE_DEFAULTS["fontName"] = canvas._initialFontName
    renderPDF.draw(_tinted(svg, digest, colour), canvas, 0, 0, showBoundary=False)
