"""Outlines of cut shapes (a token's circle, hexagon or rounded square) as pure geometry, and the same
outline grown by a bleed: what a token is cut along, and how far its art runs past the cut."""

import math
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


def inside_by(outline: Outline, x: float, y: float) -> float:
    """How far the point lies inside the outline (its distance to the line, negative outside): a rectangle's
    and a circle's exactly, a convex polygon's by its sides' lines, an ellipse's to a hundredth of a point."""
    cx, cy = outline.x + outline.w / 2, outline.y + outline.h / 2
    dx, dy = abs(x - cx), abs(y - cy)
    if outline.kind == "rect":  # (the rounded box's distance: its straight sides, or its corner's circle)
        r = min(outline.radius, outline.w / 2, outline.h / 2)
        qx, qy = dx - (outline.w / 2 - r), dy - (outline.h / 2 - r)
        return r - math.hypot(max(qx, 0.0), max(qy, 0.0)) - min(max(qx, qy), 0.0)
    if outline.kind == "ellipse":
        return _inside_ellipse(outline.w / 2, outline.h / 2, dx, dy)
    points = outline.points
    sides = [(points[i], points[(i + 1) % len(points)]) for i in range(len(points))]
    return min(_side_distance(a, b, (cx, cy), (x, y)) for a, b in sides)


def _side_distance(a: tuple[float, float], b: tuple[float, float], centre: tuple[float, float],
                   p: tuple[float, float]) -> float:
    """The point's distance from the side's line, positive on the centre's side."""
    ex, ey = b[0] - a[0], b[1] - a[1]
    length = math.hypot(ex, ey) or 1.0
    side = ((p[0] - a[0]) * ey - (p[1] - a[1]) * ex) / length
    return side if ((centre[0] - a[0]) * ey - (centre[1] - a[1]) * ex) > 0 else -side


def _inside_ellipse(a: float, b: float, px: float, py: float) -> float:
    """The distance of (px, py) >= 0 (a quarter by symmetry) to the ellipse of half-axes a, b, positive inside:
    its nearest point found by a few steps along the ellipse's evolute (the iteration converges quadratically)."""
    if a <= 0 or b <= 0:
        return -math.hypot(px, py)
    if abs(a - b) < 1e-9:
        return a - math.hypot(px, py)
    tx = ty = math.sqrt(0.5)
    for _ in range(4):
        ex, ey = (a * a - b * b) * tx ** 3 / a, (b * b - a * a) * ty ** 3 / b
        rx, ry = a * tx - ex, b * ty - ey
        qx, qy = px - ex, py - ey
        r, q = math.hypot(rx, ry), math.hypot(qx, qy) or 1e-12
        tx = min(1.0, max(0.0, (qx * r / q + ex) / a))
        ty = min(1.0, max(0.0, (qy * r / q + ey) / b))
        norm = math.hypot(tx, ty) or 1.0
        tx, ty = tx / norm, ty / norm
    distance = math.hypot(px - a * tx, py - b * ty)
    return distance if (px / a) ** 2 + (py / b) ** 2 <= 1 else -distance
