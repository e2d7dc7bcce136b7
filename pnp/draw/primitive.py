"""What drawing reads of a layout primitive (pnp.layout.prims.Prim, which the layout layer above makes)."""

from typing import Any, Protocol


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
    mark: Any
    thumbnail: bool
    source: object
