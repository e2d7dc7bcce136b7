"""What every product builder shares for one game: layouts parsed once, fonts, icons, and page furniture."""

import hashlib

from reportlab.lib import colors

from ..draw.fonts import load_fonts
from ..draw.paint import Painter
from ..layout.resolve import Resolver
from ..layout.spec import LayoutSet
from ..template import render
from ..units import MM

FOOTER_GREY = colors.Color(0.45, 0.45, 0.45)
MARK_COLOUR = colors.black


class Studio:
    def __init__(self, game, paper, bleed):
        self.game, self.paper, self.bleed = game, paper, bleed
        self.layouts = LayoutSet(game.project, game.id)
        self.fonts = load_fonts(game.project.fonts)
        self._resolvers = {}
        self._resolved = {}  # (layout, item, extras) -> primitives: each PDF of a build draws the same items
        self.fit_cache = {}  # text fitting results, shared by every painter of the build
        self.rulebook_markdown = None

    def resolver(self, name):
        if name not in self._resolvers:
            self._resolvers[name] = Resolver(self.layouts.get(name), self.game.context(), self.resolver)
        return self._resolvers[name]

    def layout_name(self, component, key, item):
        """A component's layout name, which may be a template (e.g. one layout per token kind)."""
        value = component.spec.get(key)
        if value is None:
            return None
        return render(str(value), self.game.context(item=item, card=item))

    def painter(self, canvas):
        return Painter(canvas, self.fonts, self.game.icons, self.game.layout_folder, self.fit_cache)

    def resolve(self, layout_name, item, **extra):
        key = (layout_name, id(item), tuple(sorted(extra.items())))
        prims = self._resolved.get(key)
        if prims is None:
            prims = self._resolved[key] = self.resolver(layout_name).resolve(item, **extra)
        return prims

    def draw_item(self, canvas, layout_name, item, x, y, clip_bleed=None, **extra):
        """Draw one item with its trim box's bottom-left corner at (x, y), clipped to trim + bleed."""
        layout = self.layouts.get(layout_name)
        prims = self.resolve(layout_name, item, **extra)
        bleed = self.bleed if clip_bleed is None else clip_bleed
        canvas.saveState()
        path = canvas.beginPath()
        path.rect(x - bleed, y - bleed, layout.width + 2 * bleed, layout.height + 2 * bleed)
        canvas.clipPath(path, stroke=0, fill=0)
        self.painter(canvas).paint(prims, x, y, layout.height)
        canvas.restoreState()

    def draw_shared(self, canvas, layout_name, item, x, y, **extra):
        """Like draw_item, but identical results (a card back) are stored once as a form XObject."""
        layout = self.layouts.get(layout_name)
        prims = self.resolve(layout_name, item, **extra)
        forms = canvas.__dict__.setdefault("_pnp_forms", {})
        key = hashlib.sha1(repr((layout_name, self.bleed, prims)).encode()).hexdigest()[:16]
        name = forms.get(key)
        b = self.bleed
        if name is None:
            name = f"item{key}"
            canvas.beginForm(name, 0, 0, layout.width + 2 * b, layout.height + 2 * b)
            path = canvas.beginPath()
            path.rect(0, 0, layout.width + 2 * b, layout.height + 2 * b)
            canvas.clipPath(path, stroke=0, fill=0)
            self.painter(canvas).paint(prims, b, b, layout.height)
            canvas.endForm()
            forms[key] = name
        canvas.saveState()
        canvas.translate(x - b, y - b)
        canvas.doForm(name)
        canvas.restoreState()

    def footer(self, canvas, text):
        """A small grey line at the bottom of a page: which game, component and side it is."""
        canvas.saveState()
        canvas.setFillColor(FOOTER_GREY)
        canvas.setFont(self.fonts.name("Body"), 6.5)
        canvas.drawCentredString(self.paper[0] / 2, 3.6 * MM, text)
        canvas.restoreState()

    def marks(self, canvas, segments, width=0.25):
        canvas.saveState()
        canvas.setStrokeColor(MARK_COLOUR)
        canvas.setLineWidth(width)
        for (x1, y1), (x2, y2) in segments:
            canvas.line(x1, y1, x2, y2)
        canvas.restoreState()
