"""Tabletop Simulator's table: the one rule from millimetres to its units and each object's footprint, stable
GUIDs, and a deterministic packer that lays a game out as a group sits down at it (boards in the centre, the
supply beside them, a place for each seat with that player's own pieces)."""

import hashlib
import math
from dataclasses import dataclass
from typing import Any

# The scale rule. One Tabletop Simulator unit is about an inch (its knowledge base, "Custom Tile": thickness
# "in in-game units (about an inch)"), so positions are in inches: UNIT_MM. An object's size is its scale times
# its size at scale 1, measured by the community on saves of known physical games (a poker card at scale 1 is
# 2.5 x 3.5 in; a custom tile with Stretch off is 1.31 units deep at scale 1, its width from the image's aspect):
# the depth of each kind at scale 1, in units. Dice and bags are as wide as they are deep.
UNIT_MM = 25.4
DEPTH_AT_1 = {"card": 3.5, "tile": 1.31, "die": 1.0, "bag": 2.0}
# A card is drawn on Tabletop Simulator's one card shape, 2.5 in wide at scale 1 whatever its image (which is
# stretched to it): a card of another shape is scaled across apart (scaleX), or a square card showed as a
# poker card, its picture squeezed, and a tarot card 3.4 in wide instead of 2.8
CARD_WIDTH_AT_1 = 2.5
GAP = 0.6  # units between neighbouring objects
BLOCK_GAP = 2.0  # units between the centre, the supply and the seats
# Where Tabletop Simulator's custom d6 reads each face (its Modding/Dice Templates, shown on its knowledge base's
# Custom Dice page): a square image of 3 x 3 cells, the top row unused, faces 2 4 5 in the middle row and 1 3 6 in
# the bottom one, 1 and 6 upside down: face number -> (column, row, turn in degrees). A grid of the faces in order
# (3 x 2) was stretched onto that template, so the die showed cut and misplaced faces. The templates of the other
# dice are not published, so those dice are left plain, their faces named in their description.
D6_TEMPLATE = {1: (0, 2, 180), 2: (0, 1, 0), 3: (1, 2, 0), 4: (1, 1, 0), 5: (2, 1, 0), 6: (2, 2, 180)}


def kind_of(name: str) -> str:
    """Which size rule a saved object's Name follows."""
    if name in ("Card", "CardCustom", "DeckCustom", "Deck"):
        return "card"
    if name.startswith("Die_") or name == "Custom_Dice":
        return "die"
    if name in ("Bag", "Infinite_Bag"):
        return "bag"
    return "tile"  # Custom_Tile, Custom_PDF


def scale_for(kind: str, depth_mm: float) -> float:
    """The uniform scale that makes an object of `kind` `depth_mm` deep (its height as printed)."""
    return round(depth_mm / UNIT_MM / DEPTH_AT_1[kind], 4)


def card_scale_x(width_mm: float) -> float:
    """The scale across (scaleX) that makes a card `width_mm` wide on the table (CARD_WIDTH_AT_1)."""
    return round(width_mm / UNIT_MM / CARD_WIDTH_AT_1, 4)


def footprint(kind: str, scale: float, aspect: float = 1.0) -> tuple[float, float]:
    """(width, depth) in units on the table of an object at `scale` whose image is `aspect` (w / h)."""
    depth = DEPTH_AT_1[kind] * scale
    return depth * (aspect if kind in ("card", "tile") else 1.0), depth


class Guids:
    """Six-hex GUIDs from stable names (the same game gives the same GUIDs), each unique in the save."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, name: str) -> str:
        salt = 0
        while True:
            guid = hashlib.sha256(f"{name}#{salt}".encode()).hexdigest()[:6]
            if guid not in self.used:
                self.used.add(guid)
                return guid
            salt += 1


@dataclass
class Placed:
    """An object to put on the table: its footprint and where it goes (filled in by `pack`)."""

    state: dict[str, Any]  # the saved object, without its Transform
    size: tuple[float, float]  # (width, depth) in units
    place: str  # "centre", "supply" or "seat"
    seat: int = 0
    flip: bool = False  # face down (a deck)
    x: float = 0.0
    z: float = 0.0
    facing_north: bool = False  # turned to face a seat across the table
    scale: float = 1.0
    scale_x: float | None = None  # across, when not `scale` (a card of another shape than the table's own)
    # the scale of what it holds, when not its own: a bag's tokens come out at their printed size (at the bag's,
    # a 9 mm counter drawn from its bag was 33 mm across)
    inner_scale: float | None = None


def _shelves(pieces: list[Placed], width: float) -> tuple[float, float, list[tuple[Placed, float, float]]]:
    """Pieces in rows of at most `width` (wider ones alone on their row): (width, depth, [(piece, x, z)])
    with x, z the centre measured from the block's top-left corner, z growing towards the table's south."""
    rows: list[list[Placed]] = []
    row: list[Placed] = []
    used = 0.0
    for p in pieces:
        if row and used + GAP + p.size[0] > width:
            rows.append(row)
            row, used = [], 0.0
        used += (GAP if row else 0.0) + p.size[0]
        row.append(p)
    if row:
        rows.append(row)
    out, z, widest = [], 0.0, 0.0
    for row in rows:
        x, depth = 0.0, max(p.size[1] for p in row)
        for p in row:
            out.append((p, x + p.size[0] / 2, z + depth / 2))
            x += p.size[0] + GAP
        widest = max(widest, x - GAP)
        z += depth + GAP
    return widest, max(z - GAP, 0.0), out


def _put(block: list[tuple[Placed, float, float]], left: float, top: float) -> None:
    """Pieces of a block placed with the block's top-left corner at (left, top) (top is the north edge)."""
    for p, x, z in block:
        p.x, p.z = round(left + x, 3), round(top - z, 3)


def _widest(pieces: list[Placed], width: float) -> float:
    return max([width] + [p.size[0] for p in pieces])


def pack(pieces: list[Placed], seats: int) -> None:
    """Place every piece: the centre's boards in rows, the supply (decks, bags, dice, rulebook) in rows to their
    east as deep as the centre, and the seats' own pieces in a row per seat, half the seats south of the table
    (facing north) and the rest north of it (turned to face south). Nothing overlaps."""
    centre = [p for p in pieces if p.place == "centre"]
    supply = [p for p in pieces if p.place == "supply"]
    area = sum(p.size[0] * p.size[1] for p in centre)
    cw, cd, cblock = _shelves(centre, _widest(centre, math.sqrt(area) * 1.5))
    supply_area = sum((p.size[0] + GAP) * (p.size[1] + GAP) for p in supply)
    rows_as_deep = supply_area / cd if cd else math.sqrt(supply_area) * 1.5  # beside the boards, or alone
    sw, sd, sblock = _shelves(supply, _widest(supply, rows_as_deep))
    middle = cw + (BLOCK_GAP if cw and sw else 0.0) + sw
    half = max(cd, sd) / 2
    _put(cblock, -middle / 2, half)
    _put(sblock, middle / 2 - sw, half)
    _seats(pieces, seats, half)


def _seats(pieces: list[Placed], seats: int, half: float) -> None:
    """Each seat's pieces in a row: the first half of the seats south of the middle band, the rest north."""
    rows: dict[int, list[Placed]] = {}
    for p in pieces:
        if p.place == "seat":
            rows.setdefault(p.seat, []).append(p)
    south = math.ceil(seats / 2)
    _seat_row([rows[s] for s in sorted(rows) if s < south], -half - BLOCK_GAP, north=False)
    _seat_row([rows[s] for s in sorted(rows) if s >= south], half + BLOCK_GAP, north=True)


def _seat_row(seat_rows: list[list[Placed]], edge: float, north: bool) -> None:
    """The seats along one side of the table, side by side and centred; `edge` is the side facing the centre."""
    blocks = [_shelves(row, sum(p.size[0] + GAP for p in row)) for row in seat_rows]
    total = sum(w for w, _, _ in blocks) + BLOCK_GAP * 2 * max(len(blocks) - 1, 0)
    left = -total / 2
    for w, d, block in blocks:
        if north:  # the seat across the table: its row mirrored, so its mat is nearest the table's centre
            _put([(p, w - x, d - z) for p, x, z in block], left, edge + d)
            for p, _, _ in block:
                p.facing_north = True
        else:
            _put(block, left, edge)
        left += w + BLOCK_GAP * 2


def transform(p: Placed) -> dict:
    """The saved object's Transform: its place on the table, turned to its seat, face down when a deck."""
    return {"posX": p.x, "posY": 1.0, "posZ": p.z, "rotX": 0.0, "rotY": 0.0 if p.facing_north else 180.0,
            "rotZ": 180.0 if p.flip else 0.0, "scaleX": p.scale if p.scale_x is None else p.scale_x, "scaleY": p.scale, "scaleZ": p.scale}
