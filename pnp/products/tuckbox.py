"""Tuck boxes: a box to cut, fold and glue for one deck, sized from its cards' size, how many it holds and
how thick they are; the deck's back on the front, the game's title and the deck's name on the back and on
both spines."""

import hashlib

from reportlab.pdfbase.pdfmetrics import stringWidth

from ..draw import sheet as paper
from ..draw import tuckbox as boxes
from ..draw.fonts import unmapped_message
from ..errors import DataError
from ..impose import tuckbox as nets
from ..impose.sheet import MARGIN, NET_FOOTER_ROOM
from ..options import NUMBER_LIMIT, blank, did_you_mean
from ..report import shortened
from ..units import MM, paper_too_small, to_mm
from .base import Kind
from ..model.components import Component, template_printed_as_written
from ..model.schema import Decimal, Str, WholeNumber
from .base import Printable, Reporter, Studio
from reportlab.pdfgen.canvas import Canvas

THICKNESS = 0.32  # mm: one card of ordinary 300 g/m² card stock, unsleeved
CLEARANCE = 1.0  # mm of play in width, height and depth, so the deck slides in and out
FOOTER_ROOM = NET_FOOTER_ROOM  # the net stays clear of the page's footer
CARD_KINDS = ("deck", "aid")
PANEL_PADDING = 8 * MM  # a panel's width less its words' room
TITLE = ("Display", False, 16, 7)  # (family, bold, size, smallest size) of the texts on the box
NAME = ("Body", True, 12, 6.5)
SMALL = ("Body", False, 8, 6)
SPINE = ("Body", True, 10, 6)
# The words across a panel: the title's baseline this far up it, the deck's name and the count this far below
# the title's; the count's descenders stay clear of the panel's foot. A box for cards 12 mm tall printed the
# name and the count below its back, off the box, with exit 0
WORDS_UP, WORDS_BELOW, WORDS_FOOT = 0.62, (10 * MM, 17 * MM), 2 * MM
WORDS_LEAST_HEIGHT = (WORDS_BELOW[-1] + WORDS_FOOT) / WORDS_UP


class TuckBox(Kind):
    """A box to keep a deck in, cut from one sheet: front, back, two sides as wide as the deck is thick,
    a lid and a bottom with tuck flaps, dust flaps, a glue tab, fold lines dashed and the cut line solid.
    It is sized from the deck's cards (`deck`): their layout's size plus `clearance`, and as deep as
    `holds` cards of `thickness` plus `clearance`. The front shows the deck's back (or `layout`); the back and
    both spines show the game's title and the deck's name. A net larger than the paper is printed on it
    turned, when it fits that way, else it is an error: put the deck in several boxes (`holds`, `copies`)."""

    name = "tuckbox"
    file_part = "tuckboxes"
    order = 6
    exports_faces = False  # a net to cut and fold round a deck, not a face anyone plays with
    component_keys = {
        "deck": Str.key(doc="the id of the component (a `deck` or an `aid`) whose cards the box holds"),
        "holds": WholeNumber.key(None, "how many cards one box holds (default: every card the deck prints); with "
                                       "`copies`, a deck too thick for one box goes into several", minimum=1,
                                 # (a number of 400 digits reached the box's arithmetic: a bug in pnp)
                                 maximum=NUMBER_LIMIT),
        "thickness": Decimal.key(None, f"the thickness of one card in mm (default {THICKNESS:g}: 300 g/m² card "
                                       "stock; about 0.5 with sleeves)", minimum=0.05, maximum=5),
        "clearance": Decimal.key(None, f"mm of play added to the box's width, height and depth (default "
                                       f"{CLEARANCE:g})", minimum=0, maximum=10),
        "label": Str.key(None, "the deck's name as the back and the spines print it, as written (not a template) "
                               "(default: the deck's `name`)"),
        "layout": Str.key(None, "a layout to show on the front instead of the deck's back (centred, cut to the "
                                "panel)"),
    }
    sides = (("front", "layout"),)

    def check(self, component: Component, studio: Studio, report: Reporter) -> None:
        try:
            box = Box.of(component, studio)
        except DataError as e:
            report.error(e.message, e.mark)
            return
        if box is None:  # the deck prints nothing: said where the deck is checked
            return
        _check_words(component, studio, box, report)
        w, h = box.net.size
        small = paper_too_small(studio.options.paper, (w, h), MARGIN, FOOTER_ROOM, turn=True)
        if small is not None:
            paper_size, on_paper = small.paper, small.on_paper
            (pw, ph), (lw, lh) = nets.room(paper_size, MARGIN, FOOTER_ROOM)
            most = _most_cards(box, paper_size)
            split = _split(box, most) if most else ""
            report.error(f"a tuck box for {box.count} cards is {to_mm(w):.0f} x {to_mm(h):.0f} mm flat, more than "
                         f"the paper holds ({to_mm(pw):.0f} x {to_mm(ph):.0f} mm, or {to_mm(lw):.0f} x "
                         f"{to_mm(lh):.0f} mm turned){split}{on_paper}",
                         component.spec.mark_of("holds" if "holds" in component.spec else "deck"))

    def draw(self, canvas: Canvas, component: Component, studio: Studio) -> int:
        box = Box.of(component, studio)
        if box is None:
            return 0
        placed = nets.placement(box.net.size, studio.paper, MARGIN, FOOTER_ROOM)
        if placed is None:
            raise DataError(f"component '{component.id}': its tuck box does not fit the paper",
                            component.spec.mark_of("deck"))
        page, origin = placed
        for _ in range(component.count):
            canvas.setPageSize(page)
            _draw_box(canvas, studio, component, box, origin)
            paper.footer(canvas, studio.fonts, page, f"{studio.page_title} · {component.name} · cut the solid line, "
                                                     "fold every dashed line, glue the grey tab inside the front")
            canvas.showPage()
        canvas.setPageSize(studio.paper)
        return component.count

    def pages(self, component: Component, studio: Studio, paper: tuple[float, float]) -> int:
        """A page per box printed (its copies), as draw prints them: 10,000 copies of a box passed validate
        and stopped the build at the kit's page allowance."""
        return component.count if Box.of(component, studio) is not None else 0

    def size_mm(self, component: Component, studio: Studio) -> list[float] | None:
        """The box's width, height and depth in mm: the cards' plus the clearance."""
        try:
            box = Box.of(component, studio)
        except DataError:
            return None
        return None if box is None else [round(to_mm(v), 2) for v in (box.net.width, box.net.height, box.net.depth)]

    def text_digest(self, component: Component, studio: Studio) -> str | None:
        """What the box shows besides its own faces: its size, its words and the deck's back."""
        box = Box.of(component, studio)
        if box is None:
            return None
        look = studio.fingerprint(box.front)[0] if box.front is not None else ""
        parts = (box.net.width, box.net.height, box.net.depth, studio.game.title, box.label, look)
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def _split(box: "Box", most: int) -> str:
    """How to box the deck's cards when one box of them is too large for the paper: counted from the cards the
    deck prints, not a `holds` past them (`holds: 100000` of a deck of 8 advised 878 boxes for its 8 cards)."""
    cards = min(box.count, box.deck.count)
    if cards <= most:
        return f"; the deck prints {box.deck.count} cards, which one box holds: give `holds: {cards}`"
    boxes_needed = -(-cards // most)
    return (f"; one box holds at most {most} of these cards: put them in {boxes_needed} boxes with "
            f"`holds: {-(-cards // boxes_needed)}` and `copies: {boxes_needed}`")


class Box:
    """What one tuck box component holds and shows: the deck, the card count, the net and the front's face."""

    def __init__(self, component: Component, deck: Component, card: tuple[float, float], count: int,
                 front: Printable | None) -> None:
        spec = component.spec
        self.deck, self.count, self.front = deck, count, front
        self.label = str(spec.get("label") or deck.name)
        self.thickness = float(spec.get("thickness", THICKNESS)) * MM
        self.clearance = float(spec.get("clearance", CLEARANCE)) * MM
        self.card = card
        self.net = nets.tuck_net(*nets.box_size(card, count, self.thickness, self.clearance))

    @classmethod
    def of(cls, component: Component, studio: Studio) -> "Box | None":
        """The box of a tuckbox component; None when its deck prints nothing; DataError with the game.yaml
        line when the deck is not a deck of this game or its cards are not all one size."""
        spec = component.spec
        deck = _deck(component, studio)
        faces = [p for p in studio.of(deck) if p.side in ("front", "back")]
        if not faces:
            return None
        size = _one_size(component, deck, faces, studio)
        own = [p for p in studio.of(component) if p.side == "front"]
        backs = [p for p in faces if p.side == "back"]
        front = own[0] if own else backs[0] if backs else None
        return cls(component, deck, size, spec.get("holds", deck.count), front)


def _check_words(component: Component, studio: Studio, box: "Box", report: Reporter) -> None:
    """The game's title and the deck's name as the box's back panel prints them: every character in its
    font, and the whole line within the panel at its smallest size (a longer one was left off the box with
    exit 0); said at the line that writes it (a label's own, else the deck's name)."""
    meta, spec = studio.game.meta, component.spec
    label_mark = spec.mark_of("label") if "label" in spec else box.deck.spec.mark_of("name") \
        if "name" in box.deck.spec else spec.mark
    _, _, back, height = box.net.panels["back"]
    if height < WORDS_LEAST_HEIGHT:
        report.error(f"a tuck box's back is as tall as its cards and the clearance, here {to_mm(height):.0f} mm; "
                     f"the title, the deck's name and its count need {to_mm(WORDS_LEAST_HEIGHT):.0f} mm: keep these "
                     "cards in a box of your own", component.spec.mark_of("deck"))
        return
    room = back - PANEL_PADDING
    if (templated := template_printed_as_written("label", spec.get("label"), "a tuck box's")) is not None:
        report.error(templated, label_mark)
    if blank(box.label):  # (as spaces, a soft hyphen or a zero-width space)
        report.error("label: blank: the box's back and spines would print no name; write its words, or leave it out "
                     "(the deck's name is printed)", label_mark)
    for (family, bold, _, smallest), text, mark in ((TITLE, studio.page_title, meta.mark_of("title")),
                                                    (NAME, box.label, label_mark)):
        missing = studio.fonts.unmapped(text, family, bold)
        if missing is not None:
            report.error(unmapped_message(missing, family, studio.fonts.styles_lacking(missing, family)) + " (on the tuck box)",
                         mark)
        width = stringWidth(text, studio.fonts.name(family, bold), smallest)
        if width > room:
            # (the back's width as it is: its room less the padding was said of small cards' boxes as "-4 mm")
            report.error(f"'{shortened(text, 40)}' is {to_mm(width):.0f} mm long at {smallest:g} pt, the smallest the "
                         f"tuck box prints it; its back is {to_mm(back):.0f} mm wide, {to_mm(PANEL_PADDING):g} mm of "
                         "it kept clear at its edges: shorten it", mark)


def _one_size(component: Component, deck: Component, faces: list[Printable], studio: Studio) -> tuple[float, float]:
    """The size of the deck's cards (points), all of one size; DataError at the box's `deck:` line otherwise.
    Their layouts' sizes alone are read (LayoutSet.size): a colour edit does not check the box again."""
    sizes = sorted({studio.layouts.size(p.layout, p.mark) for p in faces})  # (a layout not found: at its line)
    if len(sizes) > 1:
        shown = " and ".join(f"{to_mm(w):g} x {to_mm(h):g} mm" for w, h in sizes)
        raise DataError(f"the cards of '{deck.id}' are not all one size ({shown}): a tuck box holds cards of one "
                        "size; box each size in a deck of its own", component.spec.mark_of("deck"))
    return sizes[0]


def _deck(component: Component, studio: Studio) -> Component:
    """The component a tuck box holds the cards of; DataError at its `deck:` line when there is none."""
    spec = component.spec
    deck = studio.game.component(spec["deck"])
    if deck is None:
        known = [c.id for c in studio.game.components if c.kind in CARD_KINDS]
        raise DataError(f"component '{component.id}': no deck '{spec['deck']}' to box"
                        f"{did_you_mean(spec['deck'], known)}", spec.mark_of("deck"))
    if deck.kind not in CARD_KINDS:
        raise DataError(f"component '{component.id}': '{deck.id}' is a {deck.kind} component, not cards; a tuck box "
                        "holds a deck or an aid", spec.mark_of("deck"))
    return deck


def _most_cards(box: Box, paper_size: tuple[float, float]) -> int:
    """The most cards of this box's size and thickness that a box printed on this paper holds, found by halving:
    a box only grows with its cards (counted down one by one, `holds: 1000000000` never ended)."""
    def fits(count: int) -> bool:
        size = nets.tuck_net(*nets.box_size(box.card, count, box.thickness, box.clearance)).size
        return nets.placement(size, paper_size, MARGIN, FOOTER_ROOM) is not None

    most, too_many = 0, box.count  # (a box of box.count cards does not fit: why this is asked)
    while too_many - most > 1:
        middle = (most + too_many) // 2
        most, too_many = (middle, too_many) if fits(middle) else (most, middle)
    return most


def _draw_box(canvas: Canvas, studio: Studio, component: Component, box: Box, origin: tuple[float, float]) -> None:
    net = box.net
    canvas.saveState()
    canvas.translate(*origin)
    if box.front is not None:
        layout = studio.layouts.get(box.front.layout)
        x, y, w, h = net.panels["front"]
        with boxes.clipped_to(canvas, net.front_cut):  # the art stops at the thumb notch
            # painted once, as a form every copy of the box shows: its painting is charged once (600 boxes of
            # a front of 5,000 shapes, each painted afresh, validated in 2 s and built in 21 s)
            studio.draw(canvas, studio.painter(canvas), box.front, x + (w - layout.width) / 2,
                        y + (h - layout.height) / 2, shared=True, clip=max(w, h))
    else:
        _words(canvas, studio, box, net.panels["front"])
    _words(canvas, studio, box, net.panels["back"])
    for side in ("side", "side-2"):
        _spine(canvas, studio, box, net.panels[side])
    boxes.tuck_net(canvas, net)
    canvas.restoreState()


def _words(canvas: Canvas, studio: Studio, box: Box, panel: nets.Rect) -> None:
    """The game's title, the deck's name and how many cards, across a panel."""
    x, y, w, h = panel
    room, cx, up = w - PANEL_PADDING, x + w / 2, y + h * WORDS_UP
    fonts, title = studio.fonts, studio.page_title
    boxes.fitted_label(canvas, fonts, title, (cx, up), room, TITLE)
    boxes.fitted_label(canvas, fonts, box.label, (cx, up - WORDS_BELOW[0]), room, NAME)
    held = f"{box.count} card" + ("" if box.count == 1 else "s")  # (a box holding 1 printed "1 cards")
    boxes.fitted_label(canvas, fonts, held, (cx, up - WORDS_BELOW[1]), room, SMALL)


def _spine(canvas: Canvas, studio: Studio, box: Box, panel: nets.Rect) -> None:
    """The title and the deck's name up a side, as large as its width allows (nothing on a side too narrow
    for the smallest readable text)."""
    x, y, w, h = panel
    size = min(SPINE[2], (w - 2 * MM) / 0.9)
    if size < SPINE[3]:
        return
    style, centre, room = (SPINE[0], SPINE[1], size, SPINE[3]), (x + w / 2, y + h / 2), h - 8 * MM
    if not boxes.fitted_label(canvas, studio.fonts, f"{studio.game.title} · {box.label}", centre, room, style,
                              turned=True):
        boxes.fitted_label(canvas, studio.fonts, box.label, centre, room, style, turned=True)
