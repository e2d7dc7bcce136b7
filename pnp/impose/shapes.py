"""Outlines of cut shapes (a token's circle, hexagon or rounded square) as pure geometry, and the same
outline grown by a bleed: what a token is cut along, and how far its art runs past the cut."""

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Outline:
    """A closed shape in PDF points: a rectangle (with corner `radius`), an ellipse in the box, or a polygon."""

    kind: str  # "rect" | "ellipse" | "polygon"
    x: float
    y: float
    w: float
    h: float
    radius: float = 0.0
    points: tuple[tuple[float, float], ...] = ()

    def grown(self, by: float) -> "Outline":
        """The outline pushed out by `by` all round (the bleed beyond the cut)."""
        box = (self.x - by, self.y - by, self.w + 2 * by, self.h + 2 * by)
        if self.kind == "polygon":
            return hexagon(*box)
        return replace(self, x=box[0], y=box[1], w=box[2], h=box[3], radius=self.radius + by if self.radius else 0.0)


def hexagon(x: float, y: float, w: float, h: float) -> Outline:
    """The hexagon touching the box's four sides: corners left and right with flat top and bottom in a wide
    box, corners top and bottom in a tall one (regular when the box has a regular hexagon's proportions)."""
    cx, cy, a, b = x + w / 2, y + h / 2, w / 2, h / 2
    if w >= h:
        points = [(cx + a, cy), (cx + a / 2, cy + b), (cx - a / 2, cy + b), (cx - a, cy), (cx - a / 2, cy - b),
                  (cx + a / 2, cy - b)]
    else:
        points = [(cx, cy + b), (cx - a, cy + b / 2), (cx - a, cy - b / 2), (cx, cy - b), (cx + a, cy - b / 2),
                  (cx + a, cy + b / 2)]
    return Outline("polygon", x, y, w, h, points=tuple(points))


def cut_shape(shape: str, x: float, y: float, w: float, h: float, radius: float,
              rounded_default: float) -> Outline | None:
    """The outline a token of `shape` (square, rounded, circle, hex) is cut along; None for 'none'."""
    if shape == "none":
        return None
    if shape == "circle":
        return Outline("ellipse", x, y, w, h)
    if shape == "hex":
        return hexagon(x, y, w, h)
    if shape == "rounded":
        return Outline("rect", x, y, w, h, radius or min(rounded_default, w / 2, h / 2))  # (a 1 mm token's corners)
    return Outline("rect", x, y, w, h, radius)
