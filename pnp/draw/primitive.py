"""What drawing reads of a layout primitive (pnp.layout.prims.Prim, which the layout layer above makes)."""

from dataclasses import Field
from typing import Any, ClassVar, Protocol

from ..report import Mark


class Primitive(Protocol):
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # a dataclass: the ink saver copies it with replace()
    kind: str
    x: float
    y: float
    w: float
    h: float
    points: tuple[tuple[float, float], ...]
    style: dict[str, Any]
    text: str
    rotate: float
    mark: Mark | None
    thumbnail: bool
    source: Mark | None
    used: tuple[Mark | None, float] | None
