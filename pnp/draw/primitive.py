"""What drawing reads of a layout primitive (pnp.layout.prims.Prim, which the layout layer above makes)."""

from typing import Any, Protocol

from ..report import Mark


class Primitive(Protocol):
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
