"""Die nets: face polygons (in units of one edge length) and which outer edges carry glue tabs."""

import math


def _reflect(point, a, b):
    """Reflect a point across the line through a and b."""
    (px, py), (ax, ay), (bx, by) = point, a, b
    dx, dy = bx - ax, by - ay
    t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
    fx, fy = ax + t * dx, ay + t * dy
    return (2 * fx - px, 2 * fy - py)


def _pentagon():
    r = 1 / (2 * math.sin(math.pi / 5))  # circumradius for edge 1
    return [(r * math.cos(math.radians(90 + 72 * k)), r * math.sin(math.radians(90 + 72 * k))) for k in range(5)]


def _edges(poly):
    return [(poly[k], poly[(k + 1) % len(poly)]) for k in range(len(poly))]


def d12():
    """The classic dodecahedron net: two 'flowers' of six pentagons joined at one edge.
    The second flower is the first turned half a turn about the midpoint of the joining edge."""
    centre = _pentagon()
    flower = [centre] + [[_reflect(p, a, b) for p in centre] for a, b in _edges(centre)]
    petal = flower[1]
    # the petal edge farthest from the centre face joins the second flower
    cx = sum(p[0] for p in centre) / 5
    cy = sum(p[1] for p in centre) / 5
    a, b = max(_edges(petal), key=lambda e: math.hypot((e[0][0] + e[1][0]) / 2 - cx, (e[0][1] + e[1][1]) / 2 - cy))
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    second = [[(2 * mx - x, 2 * my - y) for x, y in face] for face in flower]
    return _normalise(flower + second)


def d6():
    """A cube as the Latin-cross net: a column of four squares with one square on each side of the second."""
    cells = [(1, 0), (0, 1), (1, 1), (2, 1), (1, 2), (1, 3)]
    faces = [[(x, -y), (x + 1, -y), (x + 1, -y - 1), (x, -y - 1)] for x, y in cells]
    return _normalise(faces)


def _normalise(faces):
    xs = [x for f in faces for x, _ in f]
    ys = [y for f in faces for _, y in f]
    x0, y0 = min(xs), min(ys)
    return [[(x - x0, y - y0) for x, y in f] for f in faces]


def bounds(faces):
    xs = [x for f in faces for x, _ in f]
    ys = [y for f in faces for _, y in f]
    return max(xs) - min(xs), max(ys) - min(ys)


def outer_edges(faces):
    """Edges used by one face only, in order around the outline."""
    def key(p):
        return (round(p[0], 6), round(p[1], 6))

    count = {}
    for f in faces:
        for a, b in _edges(f):
            k = frozenset((key(a), key(b)))
            count[k] = count.get(k, 0) + 1
    outer = [(a, b, _centroid(f)) for f in faces for a, b in _edges(f)
             if count[frozenset((key(a), key(b)))] == 1]
    # chain them into the outline so alternating tabs really alternate
    by_start = {}
    for e in outer:  # faces may run either way round after reflection: index both ends
        by_start.setdefault(key(e[0]), []).append(e)
        by_start.setdefault(key(e[1]), []).append((e[1], e[0], e[2]))
    chain, current, used = [], outer[0], set()
    for _ in range(len(outer)):
        chain.append(current)
        used.add(frozenset((key(current[0]), key(current[1]))))
        options = [e for e in by_start.get(key(current[1]), [])
                   if frozenset((key(e[0]), key(e[1]))) not in used]
        if not options:
            break
        current = options[0]
    return chain if len(chain) == len(outer) else outer


def _centroid(face):
    return sum(x for x, _ in face) / len(face), sum(y for _, y in face) / len(face)


def tab(a, b, centre, depth=0.22, inset=0.25):
    """A trapezoid glue tab on edge a-b, on the side away from its face's centre."""
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    nx, ny = dy / length, -dx / length
    if (centre[0] - ax) * nx + (centre[1] - ay) * ny > 0:
        nx, ny = -nx, -ny
    return [a, (ax + dx * inset + nx * depth, ay + dy * inset + ny * depth),
            (bx - dx * inset + nx * depth, by - dy * inset + ny * depth), b]


def tabbed_edges(faces):
    """Glue tabs on every other outer edge: each pair of edges that meet when folded gets one tab."""
    return [e for k, e in enumerate(outer_edges(faces)) if k % 2 == 0]
