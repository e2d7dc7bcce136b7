"""How the manifest records each printed face: a row of its item, side, copies and the two fingerprints the
studio takes as it draws (what the face shows, and the data it is made from)."""

from typing import TYPE_CHECKING, Any

from ..products import KINDS

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
    return " ".join([printable.side, *(str(value) for _, value in printable.extra)])


def manifest_faces(studio: "Studio", component: "Component") -> list[list[Any]]:
    """The manifest's record of a component's faces: a row (see FACE_FIELDS) per face."""
    faces = [[item_key(p.item, p.index), side_key(p), p.copies, *studio.fingerprint(p)] for p in studio.of(component)]
    text = KINDS[component.kind].text_digest(component, studio)
    if text is not None:
        faces.append([TEXT, TEXT, 1, text, text])
    return faces
