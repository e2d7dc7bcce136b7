"""track: numbered spaces along a line, or clockwise around a rectangle."""

from ...errors import LayoutError
from ... import units
from .. import params as P
from .base import Element
from .cells import CELL, PER_CELL, check_cells, draw_cells


class Track(Element):
    """`count` spaces of size `cell`: evenly along the line (x1, y1) to (x2, y2) when x1 is given, else
    clockwise around the edge of the box (x, y, w, h) from its top-left corner. Each space's templates see
    `n` (its number, from `start`), `i` (from 0) and `last`."""

    type = "track"
    params = {
        "x1": P.Length(None, "start of the line (from the trim's left)"), "y1": P.Length(0, "start of the line"),
        "x2": P.Length(0, "end of the line"), "y2": P.Length(0, "end of the line"),
        "x": P.Length(0, "left edge of the box the track runs around"), "y": P.Length(0, "top edge of the box"),
        "w": P.Length("=the layout's width", "width of the box", minimum=0),
        "h": P.Length("=the layout's height", "height of the box", minimum=0),
        "count": P.Int(10, "how many spaces", minimum=0, maximum=10_000),
        "start": P.Int(0, "the number of the first space", minimum=-1_000_000, maximum=1_000_000),
        "cell": P.Length("10mm", "width and height of each space", minimum=0),
        **CELL,
    }

    LINE, BOX = ("x1", "y1", "x2", "y2"), ("x", "y", "w", "h")

    def check(self, spec):
        yield from check_cells(self.type, spec)
        form, other = (self.LINE, self.BOX) if "x1" in spec else (self.BOX, self.LINE)
        for key in other:
            if key in spec:
                yield (f"'{key}' does not apply: a track runs along a line (x1, y1, x2, y2) or around a box "
                       f"(x, y, w, h), and this one {'has x1' if form is self.LINE else 'has no x1'}",
                       spec.key_mark(key))

    def resolve(self, el, ctx, ox, oy, out, resolver):
        v = el.values(ctx, later=PER_CELL)
        count, cell = v["count"], v["cell"]
        if v["x1"] is not None:
            x1, y1, x2, y2 = ox + v["x1"], oy + v["y1"], ox + v["x2"], oy + v["y2"]
            steps = max(count - 1, 1)
            centres = [(x1 + (x2 - x1) * k / steps, y1 + (y2 - y1) * k / steps) for k in range(count)]
        else:
            lay = resolver.layout
            w = lay.width if v["w"] is None else v["w"]
            h = lay.height if v["h"] is None else v["h"]
            centres = around(ox + v["x"] + cell / 2, oy + v["y"] + cell / 2, w - cell, h - cell, count)
            if centres is None:
                raise LayoutError(f"track: {count} spaces of {units.to_mm(cell)} mm do not fit around "
                                  f"{units.to_mm(w)} x {units.to_mm(h)} mm", el.mark)
        cells = [(cx - cell / 2, cy - cell / 2, cell, cell, {"n": v["start"] + k, "i": k, "last": k == count - 1})
                 for k, (cx, cy) in enumerate(centres)]
        draw_cells(el, ctx, cells, out)


def around(x, y, w, h, count):
    """`count` points evenly spaced clockwise around a rectangle's perimeter, from its top-left corner."""
    if count <= 0:
        return []
    step = 2 * (w + h) / count
    if step <= 0:
        return None
    points = []
    for k in range(count):
        d = k * step
        if d < w:
            points.append((x + d, y))
        elif d < w + h:
            points.append((x + w, y + d - w))
        elif d < 2 * w + h:
            points.append((x + w - (d - w - h), y + h))
        else:
            points.append((x, y + h - (d - 2 * w - h)))
    return points
