"""How the manifest records each printed face: a row of its item, side, copies and the two fingerprints the
studio takes as it draws (what the face shows, and the data it is made from)."""

import hashlib
import json
from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:
    from ..model.load import Record
    from ..model.components import Component
    from ..printables import Studio
    from ..products.base import Printable

TEXT = "text"  # the face key of what a component prints besides its faces (a rulebook's text)
FACE_FIELDS = ["item", "side", "copies", "look", "data"]  # a face's row in the manifest (rows keep it small)


MAX_NAME = 200  # characters of a name a manifest gives: an id is a few dozen


def plain_name(text: str) -> bool:
    """Whether `text` can name an item, a side or a component in a manifest as it is: printable (a control
    character would reach the terminal as it is: escape sequences, a line of its own), at most MAX_NAME
    characters, and not '#' then anything (what names an item by its number)."""
    return 0 < len(text) <= MAX_NAME and text.isprintable() and not text.startswith("#")


def item_key(item: "Record | None", index: int) -> str:
    """How a face's item is named in the manifest: its id, else its number among the component's items (#3).
    An id that is no plain_name (an id field of type str allows any text) is named by its number too: the id
    '#2' was taken for the second item's number, so `pnp changes` compared one item's face with the other's
    and said nothing changed; an id holding a tab made pnp refuse the manifest it had written."""
    item_id = item.get("id") if item is not None else None
    return str(item_id) if item_id is not None and plain_name(str(item_id)) else f"#{index + 1}"


def side_key(printable: "Printable") -> str:
    """How a face's side is named in the manifest: the side, then each of its variables' values (a die's
    'face 6', 'face egg')."""
    return " ".join([printable.side, *(_value_word(value) for _, value in printable.extra)])


def _value_word(value: object) -> str:
    """A side's variable's value as its name says it: a number, or a text that is a plain_name, reads as no
    number and begins with no '"', as it is; any other text quoted and escaped (JSON), cut to a digest when long. A die's
    faces 1 and '1' were both 'face 1' (one face's fingerprint hid the other's), and a face 'a<tab>b' made
    `pnp changes` refuse the manifest pnp had written."""
    text = str(value)
    if not isinstance(value, str) or (plain_name(text) and not _reads_as_number(text) and text[0] != '"'):
        return text
    quoted = json.dumps(value)  # printable ASCII, and quoted: never a number's text, never another's word
    if len(quoted) > MAX_NAME // 4:
        quoted = f'"{hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]}..."'
    return quoted


def _reads_as_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def manifest_faces(studio: "Studio", component: "Component") -> list[list[Any]]:
    """The manifest's record of a component's faces: a row (see FACE_FIELDS) per face."""
    from ..products import KINDS  # (here: `pnp changes` says a build is missing without importing every product)

    faces = [[item_key(p.item, p.index), side_key(p), p.copies, *studio.fingerprint(p)] for p in studio.of(component)]
    text = KINDS[component.kind].text_digest(component, studio)
    if text is not None:
        faces.append([TEXT, TEXT, 1, text, text])
    return faces
