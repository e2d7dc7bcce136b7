"""Print services' files (The Game Crafter, MakePlayingCards, DriveThruCards): each deck printed as the service's
product that fits it (catalogue.yaml), at its own size, every front followed by its back; a deck no product fits
is refused with its layout's size, never stretched."""

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..project import make_folders, new_file
from ..report import Mark, named
from ..units import MM, length
from .formats import INCH, BleedPx, Plan, Px, _shot
from .registry import ExportFormat, register

if TYPE_CHECKING:
    from ..printables import Studio
    from ..model.components import Component
    from .faces import Face

# a deck a service prints: its component, the product, and (front, back or None) per card in card order
Deck = tuple["Component", "Product", list[tuple["Face", "Face | None"]]]

CATALOGUE_FILE = Path(__file__).with_name("catalogue.yaml")


@dataclass(frozen=True)
class Product:
    """One card product of a service: its trim in points and, for image services, its template in pixels."""

    name: str
    trim: tuple[float, ...]  # (w, h) points
    template_px: tuple[int, ...] | None  # (w, h) pixels at the service's dpi, trim and bleed; None: trim + bleed_in
    url: str


def _catalogue() -> tuple[float, dict[str, dict[str, Any]]]:
    """The tolerance (points) and, per service id, its title, dpi, bleed_in and products."""
    data = yaml.safe_load(CATALOGUE_FILE.read_text(encoding="utf-8"))
    services = {}
    for service_id, spec in data.items():
        if not isinstance(spec, dict):
            continue
        products = [Product(p["name"], tuple(length(v) for v in p["trim"]),
                            tuple(p["template_px"]) if p.get("template_px") else None, p["url"])
                    for p in spec["products"]]
        services[service_id] = {**spec, "products": products}
    return data["tolerance_mm"] * MM, services


TOLERANCE, SERVICES = _catalogue()
SERVICE_BLEED = max(spec["bleed_in"] for spec in SERVICES.values()) * INCH  # points of art the services take


def product_for(service: str, trim: tuple[float, ...]) -> Product | None:
    """The service's product whose trim is nearest `trim` (points), within TOLERANCE in each dimension."""
    fits = [(max(abs(trim[0] - p.trim[0]), abs(trim[1] - p.trim[1])), n, p)
            for n, p in enumerate(SERVICES[service]["products"])]
    fits = [f for f in fits if f[0] <= TOLERANCE]
    return min(fits)[2] if fits else None


def _mm(points: tuple[float, ...]) -> str:
    return f"{points[0] / MM:.4g} x {points[1] / MM:.4g} mm"


def cut_off(product: tuple[float, ...], trim: tuple[float, ...]) -> str | None:
    """How far a product's cut falls from a deck's trim (points) on each side, to 0.01 mm; None when nearer:
    a size written in millimetres and a product's in inches differ by float noise alone (63.5 x 88.9 mm cards
    were said 'printed as Poker Deck (63.5 x 88.9 mm) ...: the cut is 5e-15 mm and 5e-15 mm from the trim')."""
    off = [abs(a - b) / 2 / MM for a, b in zip(product, trim)]
    return None if max(off) < 0.005 else f"{off[0]:.2f} mm and {off[1]:.2f} mm"


def _inked(face: "Face | None") -> "tuple[str, Mark] | None":
    """A deck PDF's page as its ink refusal names it: the face it prints, said at its layout's line in game.yaml
    (None for a plain white back, or a face whose layout is asked for nowhere)."""
    mark = face.printable.mark if face is not None else None
    if face is None or mark is None:
        return None
    printable = face.printable
    return f"{printable.component.id}{printable.which} {printable.side}, laid out by layout {named(printable.layout)},", mark


def _decks(service: str, faces: list["Face"], studio: "Studio", plan: Plan) -> list[Deck]:
    """Each deck a service can print: (component, its product, [(front, back or None), ...] in card order).
    A deck of no product's size is refused (left out, a warning at its layout's size); one printed a fraction of
    a millimetre off its own size is noted; a deck without backs gets plain ones, noted at its layout; a deck of
    cards of several sizes is left out."""
    decks: dict[str, list[Face]] = {}
    for face in faces:
        if face.kind == "deck":
            decks.setdefault(face.component.id, []).append(face)
    return [deck for cards in decks.values() if (deck := _deck(service, cards, studio, plan)) is not None]


def _deck(service: str, cards: list["Face"], studio: "Studio", plan: Plan) -> Deck | None:
    """One deck as the service prints it (see _decks), or None when it is left out (said in `plan`)."""
    from .faces import of_several_sizes  # (here: the formats are listed without importing the drawing)

    if refused := of_several_sizes([f for f in cards if f.side == "front"], f"each of {_owner(service)} products"):
        plan.skipped.append(refused)
        return None
    spec = SERVICES[service]
    component, layout = cards[0].component, studio.layouts.get(cards[0].printable.layout)
    product = product_for(service, cards[0].trim)
    if product is None:
        names = ", ".join(f"{p.name} {_mm(p.trim)}" for p in spec["products"])
        plan.skipped.append((f"{component.name} refused: {_mm(cards[0].trim)} cards are none of {_owner(service)} "
                             f"card products ({names}); pnp does not stretch cards to another size",
                             layout.spec.mark_of("size")))
        return None
    if off := cut_off(product.trim, cards[0].trim):
        plan.notes.append((f"{component.name}: {_mm(cards[0].trim)} cards printed as {_owner(service)} "
                           f"{product.name} ({_mm(product.trim)}) at their own size, not stretched: the cut is "
                           f"{off} from the layout's trim", layout.spec.mark_of("size")))
    backs = {f.index: f for f in cards if f.side == "back"}
    pairs = [(f, backs.get(f.index)) for f in cards if f.side == "front"]
    if any(back is None for _, back in pairs):
        plan.notes.append((f"{component.name}: layout '{cards[0].printable.layout}' has no back layout: each card "
                           f"gets a plain white back, as {spec['title']} prints a back for every front",
                           layout.spec.mark_of("size")))
    return component, product, pairs


def _template(service: str, product: Product, trim: tuple[float, ...]) -> tuple[Px, BleedPx]:
    """(trim px, bleed px (left, top, right, bottom)) of a card of `trim` points on the product's template: the
    card at its own size, centred; the template's rest is bleed."""
    spec = SERVICES[service]
    dpi = spec["dpi"]
    trim_px = (round(trim[0] / INCH * dpi), round(trim[1] / INCH * dpi))
    template = product.template_px or tuple(round((t / INCH + 2 * spec["bleed_in"]) * dpi) for t in product.trim)
    extra = (template[0] - trim_px[0], template[1] - trim_px[1])
    return trim_px, (extra[0] // 2, extra[1] // 2, extra[0] - extra[0] // 2, extra[1] - extra[1] // 2)


def _owner(service: str) -> str:
    """The service's title as an owner: The Game Crafter's, MakePlayingCards'."""
    title = SERVICES[service]["title"]
    return f"{title}'" if title.endswith("s") else f"{title}'s"


class ServiceFormat(ExportFormat):
    """A print service's format: each face drawn with the art its product's template takes."""

    def art_bleed(self, options: dict[str, Any]) -> float:
        """The most bleed any print service takes (or --bleed, when more)."""
        return max(options["bleed"], SERVICE_BLEED)


class ImageService(ServiceFormat):
    """A service that takes one image per card face (tgc, mpc): each card's front and back at the template size
    of the product that fits the deck; `name` is the service's id in catalogue.yaml."""

    @property  # a class attribute in the other formats; worked out from the catalogue here
    def help(self) -> str:  # type: ignore[override]
        """The phrase for --format's help, with the service's title."""
        return f"card fronts and backs at the template size of {_owner(self.name)} product that fits the deck"

    @property
    def writes(self) -> str:  # type: ignore[override]
        """What `pnp export --help` says it writes, with the template of the service's first product."""
        first = SERVICES[self.name]["products"][0]
        return (f"<component>/...png, front and back, at the template size of {_owner(self.name)}\n"
                f"product that fits the deck ({first.name} {first.template_px[0]} x {first.template_px[1]} px)")

    def plan(self, faces: list["Face"], folder: Path, options: dict, studio: "Studio") -> Plan:
        """Each card's front and back at the template size of the product that fits its deck; a deck without
        backs gets plain white ones, written when the plan finishes."""
        service = self.name
        plan, dpi = Plan(), SERVICES[service]["dpi"]
        plain: list[tuple[Path, tuple[int, int]]] = []  # (path, size): plain backs, written when the plan finishes
        for component, product, pairs in _decks(service, faces, studio, plan):
            trim_px, bleed_px = _template(service, product, pairs[0][0].trim)
            size = (trim_px[0] + bleed_px[0] + bleed_px[2], trim_px[1] + bleed_px[1] + bleed_px[3])
            for front, back in pairs:
                for face in (front, back):
                    if face is None:
                        continue
                    plan.expect[str(folder / component.id / f"{face.stem}.png")] = size
                    # (drawn alike, a deck's one back: encoded once, then copied)
                    plan.shoot(_shot(face, folder, Path(component.id) / f"{face.stem}.png", trim_px, bleed_px, dpi))
                if back is None:
                    back_path = folder / component.id / f"{front.stem.removesuffix('-front')}-back.png"
                    plan.expect[str(back_path)] = size
                    plain.append((back_path.relative_to(folder), size))
        plan.finish = lambda out: _plain_backs(out, plain, dpi)
        return plan


@register
class GameCrafter(ImageService):
    name = "tgc"


@register
class MakePlayingCards(ImageService):
    name = "mpc"


def _plain_backs(out: Path, plain: list[tuple[Path, tuple[int, int]]], dpi: int) -> None:
    from PIL import Image

    for rel, size in plain:
        make_folders((out / rel).parent)
        with new_file(out / rel) as file:
            Image.new("RGB", size, "white").save(file, "PNG", dpi=(dpi, dpi))


@register
class DriveThruCards(ServiceFormat):
    """DriveThruCards: a PDF/X-1a per deck, each card's front then its back on pages of the product's trim plus
    1/8 in bleed, composed from the same drawing as the kit (text and line art kept as vectors), converted to
    CMYK by pnp (black text in black ink only, within 240% total ink) and made PDF/X-1a by Ghostscript."""

    name = "drivethru"
    help = "a CMYK PDF/X-1a per deck for DriveThruCards"
    writes = ("<deck>.pdf: front then back of each card on the product's trim plus 1/8 in bleed;\n"
              "text and lines stay vectors, colours in CMYK by pnp (black in black ink only, at most\n"
              "240% ink), made PDF/X-1a by Ghostscript")

    def settings(self, options: dict[str, Any]) -> dict[str, Any]:
        """The Ghostscript and CMYK profile that make the files (drivethru.tools)."""
        from .drivethru import tools

        return {**super().settings(options), **tools()}

    def plan(self, faces: list["Face"], folder: Path, options: dict, studio: "Studio") -> Plan:
        """A task per deck that composes its PDF/X-1a; each PDF's page count and ink checked."""
        from .drivethru import INK_LIMIT, DeckJob

        plan = Plan()
        bleed = SERVICES["drivethru"]["bleed_in"] * INCH
        for component, product, pairs in _decks("drivethru", faces, studio, plan):
            pages = [(face.page if face is not None else None) for pair in pairs for face in pair]
            name = f"{component.id}.pdf"
            plan.tasks.append(DeckJob(name, f"{studio.game.title}: {component.name}", pages, product.trim, bleed,
                                      pairs[0][0].art_bleed))
            plan.pdfs[str(folder / name)] = len(pages)
            plan.ink[str(folder / name)] = INK_LIMIT * 100
            plan.ink_faces[str(folder / name)] = [_inked(face) for pair in pairs for face in pair]
        return plan
