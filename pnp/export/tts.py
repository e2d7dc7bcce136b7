"""Tabletop Simulator: each deck as sheets of card images, boards, tokens and aids as images, and a saved
object that loads them from these files."""

import json
import math
import re
from pathlib import Path

from .formats import INCH, Plan, _px, _shot

TTS_MAX_PX, TTS_COLS, TTS_ROWS = 4096, 10, 7


def _markup_free(text):
    text = re.sub(r"\[\[([^\[\]\n]+)\]\]", r"\1", str(text))  # a glossary term reads as its name
    return re.sub(r":([a-z0-9-]+):", r"\1", text.replace("**", "").replace("*", "")).strip()


def _description(face, studio):
    """A card's text as Tabletop Simulator shows it on hover: the item's text fields, markup removed."""
    if face.item is None:
        return ""
    fields = (studio.game.meta.get("tables") or {}).get(face.component.spec.get("items"), {}).get("fields", {})
    texts = [face.item.get(name) for name, spec in fields.items() if (spec or {}).get("type") == "text"]
    return "\n".join(_markup_free(t) for t in texts if isinstance(t, str) and t.strip())


def tts(faces, folder, options, studio):
    """Tabletop Simulator: each deck as sheets of at most 10 x 7 cards and 4096 px a side (a back sheet when
    the backs differ), boards and tokens as images; and a saved object that loads them from these files."""
    plan = Plan()
    groups = {}
    for face in faces:
        groups.setdefault(face.component.id, []).append(face)
    decks = [g for g in groups.values() if g[0].kind == "deck"]
    others = [g for g in groups.values() if g[0].kind != "deck"]
    sheets = [sheet for faces_of in decks for sheet in _sheets(faces_of, folder, plan)]
    for faces_of in others:
        _pieces(faces_of, folder, plan)
    plan.finish = lambda out: _tts_finish(out, folder, sheets, others, studio, plan)
    return plan


def _sheets(faces_of, folder, plan):
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
        card = (math.floor(w_in * k), math.floor(h_in * k))
        chunk_backs = [backs.get(f.index) for f in chunk]
        for face in chunk + [b for b in chunk_backs if b is not None]:
            rel = Path("cards") / face.component.id / f"{face.stem}.png"
            plan.shots.append(_shot(face, folder, rel, card, (0, 0, 0, 0), k))
            plan.expect[str(folder / rel)] = card
        yield chunk[0].component, n // per_sheet + 1, chunk, chunk_backs, (cols, rows), card


def _pieces(faces_of, folder, plan):
    """Boards, tokens and aids: one image per face at up to 150 dpi (4096 px at most)."""
    for face in faces_of:
        if face.kind == "die":
            continue  # Tabletop Simulator's custom dice need its own die templates: not made yet
        dpi = min(150, TTS_MAX_PX / max(face.trim[0] / INCH, face.trim[1] / INCH))
        rel = Path(face.component.id) / f"{face.stem}.png"
        trim_px = (_px(face.trim[0], dpi), _px(face.trim[1], dpi))
        plan.shots.append(_shot(face, folder, rel, trim_px, (0, 0, 0, 0), dpi))
        plan.expect[str(folder / rel)] = trim_px


def _tts_finish(out, folder, sheets, others, studio, plan):
    """Compose the deck sheets from the card images, then write the saved object."""
    from PIL import Image

    objects, deck_key = [], 0
    by_component = {}
    for component, number, fronts, backs, (cols, rows), card in sheets:
        deck_key += 1
        face_sheet = Image.new("RGB", (cols * card[0], rows * card[1]), "white")
        unique_back = len({(b.page if b else None) for b in backs}) > 1
        back_sheet = Image.new("RGB", face_sheet.size, "white") if unique_back else None
        for i, face in enumerate(fronts):
            x, y = (i % cols) * card[0], (i // cols) * card[1]
            face_sheet.paste(Image.open(out / "cards" / component.id / f"{face.stem}.png"), (x, y))
            if back_sheet is not None and backs[i] is not None:
                back_sheet.paste(Image.open(out / "cards" / component.id / f"{backs[i].stem}.png"), (x, y))
        faces_name = f"{component.id}-{number}-faces.png"
        face_sheet.save(out / faces_name, "PNG", compress_level=6)
        plan.expect[str(folder / faces_name)] = face_sheet.size
        if back_sheet is not None:
            back_name = f"{component.id}-{number}-backs.png"
            back_sheet.save(out / back_name, "PNG", compress_level=6)
            plan.expect[str(folder / back_name)] = back_sheet.size
        elif backs and backs[0] is not None:
            back_name = f"cards/{component.id}/{backs[0].stem}.png"
        else:
            back_name = faces_name  # no back layout: the sheet's own first card stands for it
        entry = {"FaceURL": (folder / faces_name).as_uri(), "BackURL": (folder / back_name).as_uri(),
                 "NumWidth": cols, "NumHeight": rows, "BackIsHidden": True, "UniqueBack": back_sheet is not None,
                 "Type": 0}
        deck = by_component.setdefault(component.id, {"component": component, "custom": {}, "cards": []})
        deck["custom"][str(deck_key)] = entry
        for i, face in enumerate(fronts):
            for _ in range(face.copies):
                deck["cards"].append((deck_key * 100 + i, face, str(deck_key)))
    for n, deck in enumerate(by_component.values()):
        objects.append(_deck_object(deck, n, studio))
    for n, faces_of in enumerate(others):
        objects.extend(_other_objects(faces_of, folder, n))
    save = {"SaveName": studio.game.title, "GameMode": studio.game.title, "Date": "", "Table": "", "Sky": "",
            "Note": f"{studio.game.title}: made by pnp from the game's data", "ObjectStates": objects}
    (out / f"{studio.game.id}.json").write_text(json.dumps(save, indent=2, ensure_ascii=False) + "\n",
                                                encoding="utf-8")


def _transform(x, z=0.0, flip=False):
    return {"posX": x, "posY": 1.0, "posZ": z, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0 if flip else 0.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def _deck_object(deck, n, studio):
    cards = [{"Name": "Card", "Nickname": face.name, "Description": _description(face, studio), "CardID": card_id,
              "CustomDeck": {key: deck["custom"][key]}, "Transform": _transform(3.0 * n, flip=True)}
             for card_id, face, key in deck["cards"]]
    return {"Name": "DeckCustom", "Nickname": deck["component"].name, "Description": "",
            "Transform": _transform(3.0 * n, flip=True), "DeckIDs": [c["CardID"] for c in cards],
            "CustomDeck": deck["custom"], "ContainedObjects": cards}


TILE_TYPES = {"square": 0, "hex": 1, "circle": 2, "rounded": 3, "none": 0}


def _other_objects(faces_of, folder, n):
    out = []
    fronts = [f for f in faces_of if f.side in ("front", "face")]
    backs = {f.index: f for f in faces_of if f.side == "back"}
    for i, face in enumerate(fronts):
        if face.kind == "die":
            continue
        url = (folder / face.component.id / f"{face.stem}.png").as_uri()
        back = backs.get(face.index)
        back_url = (folder / face.component.id / f"{back.stem}.png").as_uri() if back else ""
        position = _transform(-8.0 - 6.0 * n, z=2.0 * i)
        if face.kind == "board":
            out.append({"Name": "Custom_Board", "Nickname": face.name, "Transform": position,
                        "CustomImage": {"ImageURL": url, "ImageSecondaryURL": back_url, "WidthScale": 0.0}})
        else:
            for _ in range(max(1, face.copies)):
                out.append({"Name": "Custom_Tile", "Nickname": face.name, "Transform": position,
                            "CustomImage": {"ImageURL": url, "ImageSecondaryURL": back_url, "WidthScale": 0.0,
                                            "CustomTile": {"Type": TILE_TYPES.get(face.shape, 0), "Thickness": 0.2,
                                                           "Stackable": True, "Stretch": True}}})
    return out
