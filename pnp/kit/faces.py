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


def item_key(item: "Record | None", index: int) -> str:
    """How a face's item is named in the manifest: its id, else its number among the component's items."""
    item_id = item.get("id") if item is not None else None
    return str(item_id) if item_id is not None else f"#{index + 1}"


def side_key(printable: "Printable") -> str:
    return " ".join([printable.side, *(str(value) for _, value in printable.extra)])


def manifest_faces(studio: "Studio", component: "Component") -> list[list[Any]]:
    """The manifest's record of a component's faces: a row (see FACE_FIELDS) per face."""
    faces = [[item_key(p.item, p.index), side_key(p), p.copies, *studio.fingerprint(p)] for p in studio.of(component)]
    text = KINDS[component.kind].text_digest(component, studio)
    if text is not None:
        faces.append([TEXT, TEXT, 1, text, text])
    return faces
