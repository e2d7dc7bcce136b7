"""Tabletop Simulator: a saved game that plays. Decks as sheets of card images with their real backs, boards,
aids and tokens as images at a size that reads on screen, dice, the rulebook as a PDF; and `<game>.json`, a
save that lays them out at their real size on a table (table.py), with `table-preview.png` drawn from it."""

import dataclasses
import functools
import io
import itertools
import json
import math
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..project import make_folders, new_file, opened_picture
from ..report import shortened
from ..units import MM
from .formats import INCH, Plan, _px, _shot
from .registry import ExportFormat, register
from .services import SERVICE_BLEED
from .table import D6_TEMPLATE, UNIT_MM, Guids, Placed, card_scale_x, footprint, pack, scale_for, transform

if TYPE_CHECKING:
    from PIL import Image

    from ..model.components import Component
    from ..printables import Studio
    from .faces import Face

Url = Callable[[str], str]  # how the save names a file of the export (its path under the export folder)
Px = tuple[int, int]  # (w, h) in pixels
# one sheet of a deck: (component, number, fronts, their backs, (cols, rows), card px)
Sheet = tuple["Component", int, list["Face"], list["Face | None"], tuple[int, int], Px]
Deck = dict[str, Any]  # a deck as its sheets are composed: component, custom (its CustomDeck), cards, card, back

TTS_MAX_PX, TTS_COLS, TTS_ROWS = 4096, 10, 7
PIECE_DPI = 150  # boards, aids and tokens; a small token gets more, so its short side has MIN_SHORT_PX
MIN_SHORT_PX = 256  # the least an image's short side has: a 9 mm tracker at 150 dpi would be 53 px, unreadable
DIE_FACE_PX = 256
PLAIN_BACK_COLOUR, PLAIN_BACK_EDGE = (58, 66, 80), (120, 130, 146)
RULEBOOK, PREVIEW = "rulebook.pdf", "table-preview.png"
DICE_TYPES = {4: 0, 6: 1, 8: 2, 10: 3, 12: 4, 20: 5}  # Custom_Dice's Type by number of faces
TILE_TYPES = {"square": 0, "hex": 1, "circle": 2, "rounded": 3, "none": 0}
# How thick a piece lies on the table, in mm: a board mounted on card, an aid on card stock, a token on card.
# Tabletop Simulator's Thickness is in the tile's own units, which its scale multiplies: a fixed 0.1 made a
# 300 mm deep board (scale 9) 23 mm thick and a 9 mm counter (scale 0.27) 0.7 mm
THICKNESS_MM = {"board": 2.0, "aid": 0.5, "tokens": 2.0}
MAX_SEATS = 12
# What Tabletop Simulator reads as markup in a name, a hover text or the notes (its knowledge base's BB Codes
# page: a hex colour, [-], [b] [i] [u] [s] [sub] [sup] and their ends; the NGUI labels it draws also read a
# two-digit alpha, [c] and [url=...]): the knowledge base offers no escape, so each such '[' is followed by an
# empty '[-]' (which ends no colour where none was set, and is not shown), and the text shows as typed
TTS_TAG = re.compile(r"\[(?=(?:-|/?(?:[bius]|c|sub|sup|url)|url=[^\]]*|[0-9a-f]{2}|[0-9a-f]{6}|[0-9a-f]{8})\])",
                     re.IGNORECASE)
SHOWN_AS_TYPED = ("Nickname", "Description")  # the object's fields Tabletop Simulator draws with its markup


@functools.lru_cache(maxsize=1024)  # an aliased text is one object on every card: read once, not once a card
def _markup_free(text: str) -> str:
    """Card text as plain words, read as the card prints it (draw.text.parse): a glossary term reads as its
    name, an icon as its name, no bold or italic marks, an escaped character as itself (a pattern of its own
    printed '10\\:30:45' as '10\\3045' and '2\\*3' as '2\\3'); at most MAX_HOVER characters of it."""
    from ..draw.text import parse  # (here: the format's module is imported to list the formats, drawing is not)

    # (a term's words are parse's runs too: taken out before it, '\\[[Nope]]', which prints '[[Nope]]', read '\\Nope')
    words = {"br": "\n", "space": " "}
    # only the text's start is read: markup never makes the words longer than it, and a text an alias repeats
    # on every card (950,000 characters on 500) was parsed whole for each, 11.7 s of CPU for a hover text
    source = str(text)[:MAX_HOVER + 1]
    return shortened("".join(words.get(run.kind, run.text) for run in parse(source)).strip(), MAX_HOVER)


@functools.lru_cache(maxsize=1024)  # a hover text on every copy of a card: made once, one object for every copy
def _literal(text: str) -> str:
    """`text` as Tabletop Simulator shows it as typed: each of its tags broken by an empty '[-]' ('[b]' printed
    as bold the rest of a card's hover text, '[10]' made it nearly transparent)."""
    return TTS_TAG.sub("[[-]", text)


def _description(face: "Face", studio: "Studio") -> str:
    """A card's text as Tabletop Simulator shows it on hover: the item's text fields, markup removed."""
    if face.item is None:
        return ""
    fields = (studio.game.meta.get("tables") or {}).get(face.component.spec.get("items"), {}).get("fields", {})
    texts = [face.item.get(name) for name, spec in fields.items() if (spec or {}).get("type") == "text"]
    return shortened("\n".join(_markup_free(t) for t in texts if isinstance(t, str) and t.strip()), MAX_HOVER)


def _named(face: "Face") -> str:
    """What a piece is called on the table: its name as the card prints it (a layout's text reads the name's
    markup: '**Sc**out :coin:' prints as 'Scout' and the coin, and was the card's name in Tabletop Simulator)."""
    return shortened(_markup_free(face.name[:MAX_NAME * 4]) or face.name, MAX_NAME)


# a piece's name on the table, at most: a name an alias repeats on every card (950,000 characters on 500) was
# written whole into each card's Nickname, a save of 475 MB made with 1 GB of memory
MAX_NAME = 200
# a piece's hover text, at most: what a layout's text box holds (a text field no layout prints is not checked
# against it, and Tabletop Simulator's save held every card's whole text)
MAX_HOVER = 20_000  # = layout.elements.text.MAX_TEXT (not imported: listing the formats draws nothing)
# The snap points the save holds in all, every copy of a piece carrying its own: 9,900 copies of a token with 400
# spaces marked `snap: true` made a save of 1.1 GB in 72 s and 11 GB of memory. A board of 100 x 100 spaces.
MAX_SNAP_POINTS = 10_000
# The hover text the save holds in all, as written (every copy of a piece carrying its own): 9,360 copies of cards
# whose unprinted text of 20,000 characters (an alias, 22 KB of YAML) was 6,600 '[b]' made a save of 380 MB in
# 17 s and 450 MB of memory. 10,000 cards of 1,000 characters each.
MAX_SAVE_TEXT = 10_000_000


def _hover(face: "Face", studio: "Studio") -> str:
    """What a piece says on hover: its rules text; an item without text fields lists its plain values; a
    piece without an item says what it is."""
    text = _description(face, studio)
    if text or face.item is None:
        return text or _markup_free(face.component.description or face.component.name)
    shown = itertools.islice(((key, value) for key, value in face.item.items()
                              if key not in ("id", "name") and isinstance(value, (str, int, float))
                              and not isinstance(value, bool) and str(value).strip()), 8)
    # each of the 8 shown read by itself (not every field of the item: 8 are shown): an aliased one is the same
    # text on every card, read once (_markup_free's cache)
    values = [f"{key.replace('_', ' ')}: {_markup_free(str(value))}" for key, value in shown]
    return shortened("\n".join(values), MAX_HOVER) or face.component.name


@dataclass
class TablePlan(Plan):
    """A plan that knows its export folder: the images composed after rendering are expected there too."""

    folder: Path = None  # type: ignore[assignment]  # always given: TablePlan(folder=...)
    snaps_left: int = MAX_SNAP_POINTS  # snap points the save may still hold
    text_left: int = MAX_SAVE_TEXT  # characters of hover text the save may still hold
    # each face's hover text and snap points, by its image: worked out once for all its copies
    tiles: dict[str, tuple[str, list[dict[str, Any]]]] = field(default_factory=dict)


@register
class TabletopSimulator(ExportFormat):
    """Tabletop Simulator: each deck as sheets of at most 10 x 7 cards and 4096 px a side (a back sheet only
    when the backs differ), boards, aids and tokens as images, dice; and a save that sets them on a table."""

    name = "tts"
    takes = ("base_url",)
    help = "Tabletop Simulator deck sheets and a saved object"
    writes = ("<deck>-<n>-faces.png sheets (at most 10 x 7 cards, 4096 px), boards, tokens, dice, the\n"
              "rulebook, <game>.json (copy it to Tabletop Simulator's Saves folder) and table-preview.png")

    def art_bleed(self, options: dict[str, Any]) -> float:
        """The faces drawn as for the print services, which pnp's Tabletop Simulator images have always been
        cut from (the same bytes for the same game)."""
        return max(options["bleed"], SERVICE_BLEED)

    def settings(self, options: dict[str, Any]) -> dict[str, Any]:
        """--base-url, and where the save names its images: under it, or (none given) where the export is
        written, by file:/// address: an export found up to date in a project moved or copied elsewhere kept a
        save naming the images where they were, which Tabletop Simulator could no longer load."""
        base_url = options.get("base_url")
        return {**super().settings(options), "base_url": base_url, "images_at": _urls(options["folder"], base_url)("")}

    def plan(self, faces: list["Face"], folder: Path, options: dict[str, Any], studio: "Studio") -> "TablePlan":
        """The sheets and piece images to render; the save, its preview and the rulebook when they exist."""
        plan = TablePlan(folder=folder)
        groups: dict[str, list[Face]] = {}
        for face in faces:
            groups.setdefault(face.component.id, []).append(face)
        decks = [g for g in groups.values() if g[0].kind == "deck" and not _several_sizes(g, plan)]
        others = [g for g in groups.values() if g[0].kind != "deck"]
        sheets = [sheet for faces_of in decks for sheet in _sheets(faces_of, folder, plan)]
        for faces_of in others:
            _pieces(faces_of, folder, plan)
        url = _urls(folder, options.get("base_url"))
        plan.finish = lambda out: _tts_finish(out, folder, url, sheets, others, studio, plan)
        return plan


def _several_sizes(faces_of: list["Face"], plan: Plan) -> bool:
    """Whether the deck of `faces_of` is of cards of several sizes, left out (said in `plan`): a card is drawn on
    its deck's sheets at one size."""
    from .faces import of_several_sizes

    refused = of_several_sizes([f for f in faces_of if f.side == "front"], "a Tabletop Simulator deck")
    if refused:
        plan.skipped.append(refused)
    return refused is not None


def _urls(folder: Path, base_url: str | None) -> Url:
    """How the save names a file of the export: its file:/// address, or under `base_url` once published."""
    if base_url:
        return lambda rel: f"{base_url.rstrip('/')}/{quote(Path(rel).as_posix())}"
    return lambda rel: (folder / rel).as_uri()


def _sheets(faces_of: list["Face"], folder: Path, plan: "TablePlan") -> Iterator[Sheet]:
    """One deck's sheets: (component, number, fronts, their backs, (cols, rows), card px) each; the card
    images they are made of are planned as shots."""
    fronts = [f for f in faces_of if f.side == "front"]
    backs = {f.index: f for f in faces_of if f.side == "back"}
    per_sheet = TTS_COLS * TTS_ROWS
    for n in range(0, len(fronts), per_sheet):
        chunk = fronts[n:n + per_sheet]
        cols = max(2, min(TTS_COLS, len(chunk)))
        rows = max(2, math.ceil(len(chunk) / cols))
        w_in, h_in = chunk[0].trim[0] / INCH, chunk[0].trim[1] / INCH
        k = min(300, TTS_MAX_PX / (cols * w_in), TTS_MAX_PX / (rows * h_in))  # pixels per inch
        # (a pixel at least: ten 2000 x 1 mm cards to a row were 0 px tall, and Pillow refused the image, "a bug in pnp")
        card = (max(1, math.floor(w_in * k)), max(1, math.floor(h_in * k)))
        chunk_backs = [backs.get(f.index) for f in chunk]
        for face in chunk + [b for b in chunk_backs if b is not None]:
            rel = Path("cards") / face.component.id / f"{face.stem}.png"
            plan.expect[str(folder / rel)] = card
            plan.shoot(_shot(face, folder, rel, card, (0, 0, 0, 0), k))  # (a deck's one back rendered once)
        yield chunk[0].component, n // per_sheet + 1, chunk, chunk_backs, (cols, rows), card


def piece_dpi(trim_pt: tuple) -> float:
    """Pixels per inch of a board, aid or token image: PIECE_DPI, more for a small piece so that its short side
    has MIN_SHORT_PX, and never more than TTS_MAX_PX on the long side."""
    short, long = min(trim_pt) / INCH, max(trim_pt) / INCH
    return min(max(PIECE_DPI, MIN_SHORT_PX / short), TTS_MAX_PX / long)


def _pieces(faces_of: list["Face"], folder: Path, plan: "TablePlan") -> None:
    """Boards, aids, tokens and die faces: one image per face (a die face DIE_FACE_PX square); faces drawn alike
    (500 tokens' one back) rendered once, then copied, as a deck's cards (_sheets)."""
    for face in faces_of:
        dpi = DIE_FACE_PX / (min(face.trim) / INCH) if face.kind == "die" else piece_dpi(face.trim)
        rel = Path(face.component.id) / f"{face.stem}.png"
        trim_px = (_px(face.trim[0], dpi), _px(face.trim[1], dpi))
        plan.expect[str(folder / rel)] = trim_px
        plan.shoot(_shot(face, folder, rel, trim_px, (0, 0, 0, 0), dpi))


def _seats(studio: "Studio") -> int:
    """How many sit at the table: the most the game's `players` allows (2-4 -> 4)."""
    counts = [int(n) for n in re.findall(r"\d+", str(studio.game.meta.get("players", "")))]
    return max(1, min(max(counts or [1]), MAX_SEATS))


def _tts_finish(out: Path, folder: Path, url: Url, sheets: list[Sheet], others: list[list["Face"]], studio: "Studio",
                plan: "TablePlan") -> None:
    """Compose the deck sheets and dice from the images, draw the rulebook, then lay the table out and write
    the save and its preview."""
    from .preview import render_preview

    guids, seats = Guids(), _seats(studio)
    placed = [_deck_piece(deck, studio, guids, plan) for deck in _compose_decks(out, url, sheets, plan).values()]
    for faces_of in others:
        placed.extend(_other_pieces(faces_of, out, url, studio, guids, seats, plan))
    placed.extend(_rulebook_piece(out, url, studio, guids))
    pack(placed, seats)
    objects = []
    for p in placed:
        objects.append(_with_transform(p.state, p))
    save = {"SaveName": studio.game.title, "GameMode": studio.game.title, "Date": "", "Table": "Table_Custom",
            "Sky": "", "Note": _literal(f"{studio.game.title}: made by pnp from the game's data"), "Rules": "",
            "ObjectStates": objects}
    # (never through a link put there since); written as it is encoded, never whole in memory (twice: text and bytes)
    with io.TextIOWrapper(new_file(out / f"{studio.game.id}.json"), encoding="utf-8", newline="\n") as file:
        json.dump(save, file, indent=2, ensure_ascii=False)
        file.write("\n")
    preview = render_preview(save, _local(out, folder, url))
    _saved(preview, out / PREVIEW)
    plan.expect[str(folder / PREVIEW)] = preview.size


def _local(out: Path, folder: Path, url: Url) -> Callable[[str], Path | None]:
    """The file under `out` a URL of the save names (None for anything else)."""
    prefix = url("x")[:-1]

    def resolve(address: str) -> Path | None:
        from urllib.parse import unquote

        if not address.startswith(prefix):
            return None
        path = out / unquote(address[len(prefix):])
        return path if path.is_file() else None
    return resolve


def _with_transform(state: dict[str, Any], p: Placed) -> dict[str, Any]:
    """The saved object with its Transform (the cards of a deck and a board's other states lie where it does)."""
    done = dict(state)
    done["Transform"] = transform(p)
    for key in SHOWN_AS_TYPED:
        if isinstance(done.get(key), str):
            done[key] = _literal(done[key])
    if "ContainedObjects" in done:
        inner = p if p.inner_scale is None else dataclasses.replace(p, scale=p.inner_scale, scale_x=None)
        done["ContainedObjects"] = [_with_transform(child, inner) for child in done["ContainedObjects"]]
    if "States" in done:
        done["States"] = {k: _with_transform(v, p) for k, v in done["States"].items()}
    return done


def _plain_back(out: Path, card: Px, plan: "TablePlan", folder_rel: str = "cards") -> str:
    """A plain back of `card` px for a deck with no back layout (not the sheet of faces: every card would
    show all its neighbours on its back)."""
    from PIL import Image, ImageDraw

    rel = f"{folder_rel}/plain-back-{card[0]}x{card[1]}.png"
    path = out / rel
    if not os.path.lexists(path):
        make_folders(path.parent)
        image = Image.new("RGB", card, PLAIN_BACK_COLOUR)
        edge = max(2, min(card) // 16)
        ImageDraw.Draw(image).rectangle((edge, edge, card[0] - 1 - edge, card[1] - 1 - edge),
                                        outline=PLAIN_BACK_EDGE, width=max(1, edge // 3))
        _saved(image, path)
        plan.expect[str(Path(plan.folder) / rel)] = card
    return rel


def _compose_decks(out: Path, url: Url, sheets: list[Sheet], plan: "TablePlan") -> dict[str, Deck]:
    """Each deck's sheets composed from its card images, with its back: the one back image when all backs
    are alike, a back sheet when they differ, a plain back when it has none. Returns the decks by component."""
    from PIL import Image

    by_component: dict[str, Deck] = {}
    deck_key = 0
    for component, number, fronts, backs, (cols, rows), card in sheets:
        deck_key += 1
        face_sheet = Image.new("RGB", (cols * card[0], rows * card[1]), "white")
        for i, face in enumerate(fronts):
            with opened_picture(out / "cards" / component.id / f"{face.stem}.png") as image:
                face_sheet.paste(image, ((i % cols) * card[0], (i // cols) * card[1]))
        faces_name = f"{component.id}-{number}-faces.png"
        _saved(face_sheet, out / faces_name)
        plan.expect[str(Path(plan.folder) / faces_name)] = face_sheet.size
        deck = by_component.setdefault(component.id, {"component": component, "custom": {}, "cards": [],
                                                      "card": card, "back": {}})
        back_name, unique = _deck_back(out, component, number, backs, (cols, rows), card, deck, plan)
        entry = {"FaceURL": url(faces_name), "BackURL": url(back_name), "NumWidth": cols, "NumHeight": rows,
                 "BackIsHidden": True, "UniqueBack": unique, "Type": 0}
        deck["custom"][str(deck_key)] = entry
        for i, face in enumerate(fronts):
            for _ in range(face.copies):
                deck["cards"].append((deck_key * 100 + i, face, str(deck_key)))
    return by_component


def _deck_back(out: Path, component: "Component", number: int, backs: list["Face | None"], grid: tuple[int, int],
               card: Px, deck: Deck, plan: "TablePlan") -> tuple[str, bool]:
    """A sheet's back and whether it is a sheet of backs: the one back image when all are alike (the same
    file for every sheet of the deck), a back sheet when they differ, a plain back when there is none."""
    from PIL import Image

    digests: dict[int, str] = {}  # by faces-PDF page: the backs of one page are one image, decoded once (each of
    # 1,000 cards' backs was decoded and hashed, 1,000 decodes of the one back)
    for b in backs:
        if b is not None and b.page not in digests:
            digests[b.page] = _digest(out / "cards" / component.id / f"{b.stem}.png")
    pages = {digests[b.page] if b else None for b in backs}
    if len(pages) == 1 and backs[0] is not None:
        return deck["back"].setdefault(next(iter(pages)), f"cards/{component.id}/{backs[0].stem}.png"), False
    if len(pages) == 1:
        return _plain_back(out, card, plan), False
    cols, rows = grid
    back_sheet = Image.new("RGB", (cols * card[0], rows * card[1]), "white")
    for i, back in enumerate(backs):
        rel = _plain_back(out, card, plan) if back is None else f"cards/{component.id}/{back.stem}.png"
        with opened_picture(out / rel) as image:
            back_sheet.paste(image, ((i % cols) * card[0], (i // cols) * card[1]))
    back_name = f"{component.id}-{number}-backs.png"
    _saved(back_sheet, out / back_name)
    plan.expect[str(Path(plan.folder) / back_name)] = back_sheet.size
    return back_name, True


def _digest(path: Path) -> str:
    """What an image shows, to tell alike backs (drawn per card, they are alike pixel for pixel)."""
    import hashlib


    with opened_picture(path) as image:
        return hashlib.sha256(image.tobytes()).hexdigest()


def _deck_piece(deck: Deck, studio: "Studio", guids: Guids, plan: "TablePlan") -> Placed:
    """A deck face down in the supply (a lone card when it holds one), every card named with its rules text
    on hover."""
    component = deck["component"]
    counted: dict[int, int] = {}
    cards = []
    # each face's name and hover text made once for all its copies: made for each, 9,900 copies of a card with
    # a text of 20,000 characters held 9,900 copies of that text (1.3 GB with the save's text)
    said: dict[str, tuple[str, str]] = {}
    for card_id, face, key in deck["cards"]:
        counted[card_id] = counted.get(card_id, 0) + 1
        if face.stem not in said:
            said[face.stem] = (_named(face), _hover(face, studio))
        name, hover = said[face.stem]
        cards.append({"GUID": guids.take(f"card/{component.id}/{card_id}/{counted[card_id]}"), "Name": "Card",
                      "Nickname": name, "Description": _within_text_budget(hover, face, plan), "CardID": card_id,
                      "Hands": True, "CustomDeck": {key: deck["custom"][key]}})
    first = deck["cards"][0][1]
    scale = scale_for("card", first.trim[1] / MM)
    size = footprint("card", scale, first.trim[0] / first.trim[1])
    across = card_scale_x(first.trim[0] / MM)
    if len(cards) == 1:
        return Placed(cards[0], size, "supply", flip=True, scale=scale, scale_x=across)
    state = {"GUID": guids.take(f"deck/{component.id}"), "Name": "DeckCustom",
             "Nickname": shortened(component.name, MAX_NAME),
             "Description": _markup_free(component.description), "Hands": False,
             "DeckIDs": [c["CardID"] for c in cards], "CustomDeck": deck["custom"], "ContainedObjects": cards}
    return Placed(state, size, "supply", flip=True, scale=scale, scale_x=across)


def _other_pieces(faces_of: list["Face"], out: Path, url: Url, studio: "Studio", guids: Guids, seats: int,
                  plan: "TablePlan") -> list[Placed]:
    """The pieces of a board, aid, token or die component."""
    kind = faces_of[0].kind
    if kind == "die":
        return _dice(faces_of, out, url, studio, guids, plan)
    fronts = [f for f in faces_of if f.side in ("front", "face")]
    backs = {f.index: f for f in faces_of if f.side == "back"}
    component = faces_of[0].component
    if kind == "tokens" and not (len(fronts) == seats and all(f.copies == 1 for f in fronts)):
        return [_bag(face, backs.get(face.index), url, studio, guids, plan) for face in fronts]
    sides = _sides(component, fronts, studio)
    pieces = [_flat_piece(group, copy, backs, url, studio, guids, plan) for group in sides
              for copy in range(max(1, group[0].copies))]
    return _seated(pieces, seats, "centre" if kind == "board" else "supply")


def _seated(pieces: list[Placed], seats: int, otherwise: str) -> list[Placed]:
    """A component with one piece for each seat gives each seat its own; else its pieces go `otherwise`."""
    per_seat = len(pieces) == seats and seats > 1
    for n, p in enumerate(pieces):
        p.place, p.seat = ("seat", n) if per_seat else (otherwise, 0)
    return pieces


def _flat_piece(group: list["Face"], copy: int, backs: dict[int, "Face"], url: Url, studio: "Studio",
                guids: Guids, plan: "TablePlan") -> Placed:
    """A board, aid or token as a tile; the other sides of its piece as its states, to flip to."""
    face = group[0]
    key = f"{face.component.id}/{face.index}/{copy}"
    states = [_tile(f, backs.get(f.index), url, studio, guids, f"{key}/{n}", plan) for n, f in enumerate(group)]
    state = states[0]
    if len(states) > 1:
        state["States"] = {str(n + 2): s for n, s in enumerate(states[1:])}
    scale = scale_for("tile", face.trim[1] / MM)
    return Placed(state, footprint("tile", scale, face.trim[0] / face.trim[1]), "centre", scale=scale)


def _sides(component: "Component", fronts: list["Face"], studio: "Studio") -> list[list["Face"]]:
    """The component's fronts grouped into physical pieces: a board's `piece` template gives the items that are
    sides of one piece (each alone otherwise)."""
    if not component.spec.get("piece"):
        return [[face] for face in fronts]
    from ..products.board import piece_of

    groups: dict[str, list[Face]] = {}
    for face in fronts:  # (validation made each piece, so none fails here)
        value = piece_of(component, face.item, studio) if face.item is not None else ""
        groups.setdefault(value, []).append(face)
    return list(groups.values())


def _tile(face: "Face", back: "Face | None", url: Url, studio: "Studio", guids: Guids, key: str,
          plan: "TablePlan") -> dict[str, Any]:
    """A custom tile of the face's own aspect (Stretch off), its back as the other side, its snap points."""
    rel = f"{face.component.id}/{face.stem}.png"
    if rel not in plan.tiles:
        plan.tiles[rel] = (_hover(face, studio), snap_points(face, studio))
    hover, points = plan.tiles[rel]
    thickness = THICKNESS_MM.get(face.kind, THICKNESS_MM["board"]) / UNIT_MM / scale_for("tile", face.trim[1] / MM)
    tile = {"Type": TILE_TYPES.get(face.shape, 0), "Thickness": round(thickness, 4),
            "Stackable": face.kind == "tokens", "Stretch": False}
    state = {"GUID": guids.take(key), "Name": "Custom_Tile", "Nickname": _named(face),
             "Description": _within_text_budget(hover, face, plan), "Locked": face.kind == "board",
             "CustomImage": {"ImageURL": url(rel),
                             "ImageSecondaryURL": url(f"{face.component.id}/{back.stem}.png") if back else "",
                             "ImageScalar": 1.0, "WidthScale": 0.0, "CustomTile": tile}}
    if points and len(points) > plan.snaps_left:
        if plan.snaps_left >= 0:  # said once, at the first piece left without its points
            plan.notes.append((f"{_named(face)}: its {len(points):,} snap points are left out of Tabletop "
                               f"Simulator's save, and those of the pieces after it: the save holds at most "
                               f"{MAX_SNAP_POINTS:,} (each copy of a piece carries its own)", face.printable.mark))
        plan.snaps_left = -1
    elif points:
        plan.snaps_left -= len(points)
        state["AttachedSnapPoints"] = points
    return state


def _within_text_budget(hover: str, face: "Face", plan: "TablePlan") -> str:
    """`hover` for one more piece of the save, or nothing once the save holds MAX_SAVE_TEXT characters of hover
    text (said once, at the first piece left without it)."""
    size = len(_literal(hover))  # as written (cached: _with_transform writes the same object)
    if size <= plan.text_left:
        plan.text_left -= size
        return hover
    if plan.text_left >= 0:
        plan.notes.append((f"{_named(face)}: its hover text is left out of Tabletop Simulator's save, and that of "
                           f"the pieces after it: the save holds at most {MAX_SAVE_TEXT:,} characters of it (each "
                           f"copy of a piece carrying its own)", face.printable.mark))
    plan.text_left = -1
    return ""


def snap_points(face: "Face", studio: "Studio") -> list[dict[str, Any]]:
    """The face's spaces (an element with `snap: true`, or a space that `holds` a token) as snap points, in the
    tile's own coordinates: its centre is 0, and it is 1.31 units deep (DEPTH_AT_1) before scaling. The tile
    lies turned half round (rotY 180) to read from the south, so image right is local -x and image down +z."""
    from .table import DEPTH_AT_1

    w, h = face.trim
    depth, width = DEPTH_AT_1["tile"], DEPTH_AT_1["tile"] * w / h
    points = []
    for prim in studio.printed(face.printable):
        if not prim.style.get("snap") or prim.thumbnail:
            continue
        u, v = (prim.x + prim.w / 2) / w, (prim.y + prim.h / 2) / h
        points.append({"Position": {"x": round(-(u - 0.5) * width, 4), "y": 0.1, "z": round((v - 0.5) * depth, 4)},
                       "Rotation": {"x": 0.0, "y": round(float(prim.rotate), 2), "z": 0.0}})
    return points


def _bag(face: "Face", back: "Face | None", url: Url, studio: "Studio", guids: Guids, plan: "TablePlan") -> Placed:
    """One bag per kind of token, named for it, holding every copy."""
    key = f"{face.component.id}/{face.index}"
    tokens = [_tile(face, back, url, studio, guids, f"{key}/{n}", plan) for n in range(max(1, face.copies))]
    state = {"GUID": guids.take(f"bag/{key}"), "Name": "Bag", "Nickname": _named(face),
             "Description": f"{len(tokens)} × {_named(face)}", "ContainedObjects": tokens}
    scale = 1.0
    return Placed(state, footprint("bag", scale), "supply", scale=scale,
                  inner_scale=scale_for("tile", face.trim[1] / MM))


def _dice(faces_of: list["Face"], out: Path, url: Url, studio: "Studio", guids: Guids,
          plan: "TablePlan") -> list[Placed]:
    """Each die: a standard die when its faces are the numbers 1 to n, else a custom d6 whose image holds its
    faces where Tabletop Simulator's template puts them (D6_TEMPLATE), or a plain die naming its faces."""
    from ..products.die import face_values  # (here: as _markup_free's imports)

    dice: dict[int, list[Face]] = {}
    for face in faces_of:
        dice.setdefault(face.index, []).append(face)
    pieces = []
    for index, die_faces in dice.items():
        first = die_faces[0]
        layout = studio.layouts.get(first.printable.layout)
        values = face_values(layout, studio.context(item=first.item))  # a value on two faces is drawn once
        die_faces = _slotted(die_faces, values)
        n = len(die_faces)
        edge = layout.options.get("edge") or 20 * MM
        scale = scale_for("die", edge / MM)
        if n not in DICE_TYPES:
            plan.notes.append((f"{first.component.name}: Tabletop Simulator has no die of {n} faces; left out",
                               first.printable.mark))
            continue
        # a custom die's texture made once for all its copies: made again for each, the second copy's was refused
        # as 'something that is no ordinary file' in the first's place, and 10,000 copies composed it 10,000 times
        texture = None
        if values != list(range(1, n + 1)) and n == len(D6_TEMPLATE):
            texture = url(_die_texture(out, first.component.id, index, die_faces, plan))
        elif values != list(range(1, n + 1)):
            plan.notes.append((f"{first.component.name}: a plain die of {n} faces in Tabletop Simulator, its faces "
                               f"named in its description: the layout of its custom d{n}'s picture is not "
                               f"published", first.printable.mark))
        # (cut as a piece's name is: a component's name of 19,000 characters on 5,000 copies made a save of 97 MB)
        nickname = shortened(first.component.name, MAX_NAME)
        # (held to the save's budget of hover text: 8 faces of 20,000 characters on 200 copies made a 32 MB save)
        faces_named = ", ".join(str(v) for v in values)
        for copy in range(max(1, first.copies)):
            key = f"{first.component.id}/{index}/{copy}"
            state: dict[str, Any] = {"GUID": guids.take(key), "Name": f"Die_{n}", "Nickname": nickname,
                                     "Description": _within_text_budget(faces_named, first, plan)}
            if texture is not None:
                state["Name"] = "Custom_Dice"
                state["CustomImage"] = {"ImageURL": texture, "ImageSecondaryURL": "", "ImageScalar": 1.0,
                                        "WidthScale": 0.0, "CustomDice": {"Type": DICE_TYPES[n]}}
            pieces.append(Placed(state, footprint("die", scale), "supply", scale=scale))
    return pieces


def _slotted(die_faces: list["Face"], values: list[Any]) -> list["Face"]:
    """A die's faces in the order of its template's slots: in face order (a value on two faces drawn once), or,
    when they are the numbers 1 to n in another order, each in its own number's slot: Tabletop Simulator reports
    the number of the slot on top (in face order, a die printed 6 5 4 3 2 1 showing 6 was reported as a 1)."""
    by_value = {dict(f.printable.extra).get("face"): f for f in die_faces}
    # whole numbers checked first: sorting faces of numbers and words ([1, 'two', 3, ...]) raised a TypeError
    numbers = all(type(v) is int for v in values) and sorted(values) == list(range(1, len(values) + 1))
    return [by_value[v] for v in (sorted(values) if numbers else values) if v in by_value]


def _saved(image: "Image.Image", path: Path) -> None:
    """`image` written as a new PNG file at `path` (new_file: never through a link put there since)."""
    with new_file(path) as file:
        image.save(file, "PNG", compress_level=6)


def _loaded(path: Path) -> "Image.Image":
    """The picture pnp wrote at `path`, read whole (opened_picture: not a link or a pipe swapped in since, nor another format)."""

    with opened_picture(path) as image:
        return image.copy()  # loaded, so that it outlives the file


def _die_texture(out: Path, cid: str, index: int, die_faces: list["Face"], plan: "TablePlan") -> str:
    """A d6's faces, in face order, on Tabletop Simulator's custom d6 template (D6_TEMPLATE)."""
    from PIL import Image

    images = [_loaded(out / cid / f"{f.stem}.png") for f in die_faces]
    cell = images[0].size
    sheet = Image.new("RGB", (3 * cell[0], 3 * cell[1]), "white")
    for number, image in enumerate(images, start=1):
        col, row, turn = D6_TEMPLATE[number]
        sheet.paste(image.resize(cell).rotate(turn), (col * cell[0], row * cell[1]))
    rel = f"{cid}-{index + 1}-die.png"
    _saved(sheet, out / rel)
    plan.expect[str(Path(plan.folder) / rel)] = sheet.size
    return rel


def _rulebook_piece(out: Path, url: Url, studio: "Studio", guids: Guids) -> list[Placed]:
    """The rulebook on the table as a PDF players page through, drawn as the build draws it."""
    from ..draw.canvas import new_canvas
    from ..products import KINDS

    books = [c for c in studio.game.components if c.kind == "rulebook"]
    if not books:
        return []
    canvas = new_canvas(str(out / RULEBOOK), studio.fonts.name("Body"), studio.paper,
                        title=f"{studio.game.title} — {books[0].name}")
    KINDS["rulebook"].draw(canvas, books[0], studio)
    canvas.save()
    scale = scale_for("tile", studio.paper[1] / MM)
    state = {"GUID": guids.take(f"rulebook/{books[0].id}"), "Name": "Custom_PDF",
             "Nickname": shortened(books[0].name, MAX_NAME),
             "Description": f"{studio.game.title}: the rules", "CustomPDF": {"PDFUrl": url(RULEBOOK), "PDFPassword": "",
                                                                            "PDFPage": 0, "PDFPageOffset": 0}}
    return [Placed(state, footprint("tile", scale, studio.paper[0] / studio.paper[1]), "supply", scale=scale)]
