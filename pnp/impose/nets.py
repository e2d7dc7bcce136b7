"""Die nets: face polygons (in units of one edge length) and which outer edges carry glue tabs."""

import functools
import itertools
import math
from collections.abc import Sequence
from typing import TypeVar, cast

Point = tuple[float, float]
Face = list[Point]  # a net face's corners, in units of one edge length
OuterEdge = tuple[Point, Point, Point]  # (a, b, the centre of the face it bounds)
Vec = tuple[float, ...]  # a point or direction of the solid, in 3D
SolidFace = tuple[list[int], Vec]  # (vertex indices in cyclic order, outward normal)
Value = TypeVar("Value")


def _reflect(point: Point, a: Point, b: Point) -> Point:
    """Reflect a point across the line through a and b."""
    (px, py), (ax, ay), (bx, by) = point, a, b
    dx, dy = bx - ax, by - ay
    t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
    fx, fy = ax + t * dx, ay + t * dy
    return (2 * fx - px, 2 * fy - py)


def _pentagon() -> Face:
    r = 1 / (2 * math.sin(math.pi / 5))  # circumradius for edge 1
    return [(r * math.cos(math.radians(90 + 72 * k)), r * math.sin(math.radians(90 + 72 * k))) for k in range(5)]


def _edges(poly: Face) -> list[tuple[Point, Point]]:
    return [(poly[k], poly[(k + 1) % len(poly)]) for k in range(len(poly))]


def d12() -> list[Face]:
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


def d6() -> list[Face]:
    """A cube as the Latin-cross net: a column of four squares with one square on each side of the second."""
    cells = [(1, 0), (0, 1), (1, 1), (2, 1), (1, 2), (1, 3)]
    faces: list[Face] = [[(x, -y), (x + 1, -y), (x + 1, -y - 1), (x, -y - 1)] for x, y in cells]
    return _normalise(faces)


H = math.sqrt(3) / 2  # height of a triangle of edge 1


def _triangle(col: int, row: int, up: bool) -> Face:
    """Triangle `col` of strip `row` in a triangular lattice of edge 1 (pointing up or down)."""
    x, y = col * 0.5 + row * 0.5, row * H
    return [(x, y), (x + 1, y), (x + 0.5, y + H)] if up else [(x, y + H), (x + 0.5, y), (x + 1, y + H)]


def d4() -> list[Face]:
    """A tetrahedron: one big triangle cut into four."""
    return _normalise([_triangle(0, 0, True), _triangle(2, 0, True), _triangle(1, 0, False), _triangle(0, 1, True)])


def d8() -> list[Face]:
    """An octahedron: a strip of six triangles with one more above its second and one below its fifth."""
    strip = [_triangle(k, 0, k % 2 == 0) for k in range(6)]
    return _normalise(strip + [_triangle(0, 1, True), _triangle(3, -1, False)])


def d20() -> list[Face]:
    """An icosahedron: a strip of ten triangles with five more along its top and five along its bottom."""
    strip = [_triangle(k, 0, k % 2 == 0) for k in range(10)]
    top = [_triangle(2 * k, 1, True) for k in range(5)]
    bottom = [_triangle(2 * k + 1, -1, False) for k in range(5)]
    return _normalise(strip + top + bottom)


NETS = {"d4": d4, "d6": d6, "d8": d8, "d12": d12, "d20": d20}


def _normalise(faces: list[Face]) -> list[Face]:
    xs = [x for f in faces for x, _ in f]
    ys = [y for f in faces for _, y in f]
    x0, y0 = min(xs), min(ys)
    return [[(x - x0, y - y0) for x, y in f] for f in faces]


def bounds(faces: list[Face]) -> tuple[float, float]:
    xs = [x for f in faces for x, _ in f]
    ys = [y for f in faces for _, y in f]
    return max(xs) - min(xs), max(ys) - min(ys)


def printed_extent(faces: list[Face]) -> tuple[float, float, float, float]:
    """(left, bottom, right, top) of the net as printed, its glue tabs included (a tab stands out of the
    faces' outline by a fifth of an edge and more), in edges."""
    corners = [p for f in faces for p in f] + [p for a, b, centre in tabbed_edges(faces) for p in tab(a, b, centre)]
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _key(p: Point) -> Point:
    return (round(p[0], 6), round(p[1], 6))


def _edge(face: Face, k: int) -> frozenset[Point]:
    """The k-th edge of a net face as a key that is the same from either face sharing it."""
    return frozenset((_key(face[k]), _key(face[(k + 1) % len(face)])))


def outer_edges(faces: list[Face]) -> list[OuterEdge]:
    """Edges used by one face only, in order around the outline."""
    count: dict[frozenset[Point], int] = {}
    for f in faces:
        for a, b in _edges(f):
            k = frozenset((_key(a), _key(b)))
            count[k] = count.get(k, 0) + 1
    outer = [(a, b, _centroid(f)) for f in faces for a, b in _edges(f)
             if count[frozenset((_key(a), _key(b)))] == 1]
    # chain them into the outline so alternating tabs really alternate
    by_start: dict[Point, list[OuterEdge]] = {}
    for e in outer:  # faces may run either way round after reflection: index both ends
        by_start.setdefault(_key(e[0]), []).append(e)
        by_start.setdefault(_key(e[1]), []).append((e[1], e[0], e[2]))
    chain: list[OuterEdge] = []
    current, used = outer[0], set[frozenset[Point]]()
    for _ in range(len(outer)):
        chain.append(current)
        used.add(frozenset((_key(current[0]), _key(current[1]))))
        options = [e for e in by_start.get(_key(current[1]), [])
                   if frozenset((_key(e[0]), _key(e[1]))) not in used]
        if not options:
            break
        current = options[0]
    return chain if len(chain) == len(outer) else outer


def _centroid(face: Face) -> Point:
    return sum(x for x, _ in face) / len(face), sum(y for _, y in face) / len(face)


def tab(a: Point, b: Point, centre: Point, depth: float = 0.22, inset: float = 0.25) -> list[Point]:
    """A trapezoid glue tab on edge a-b, on the side away from its face's centre."""
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    nx, ny = dy / length, -dx / length
    if (centre[0] - ax) * nx + (centre[1] - ay) * ny > 0:
        nx, ny = -nx, -ny
    return [a, (ax + dx * inset + nx * depth, ay + dy * inset + ny * depth),
            (bx - dx * inset + nx * depth, by - dy * inset + ny * depth), b]


PHI = (1 + 5 ** 0.5) / 2
_SIGNS = (-1, 1)


def _cyclic(x: float, y: float, z: float) -> list[Vec]:
    """The three cyclic permutations of (x, y, z) with every choice of signs (duplicates removed)."""
    out: list[Vec] = []
    for a in _SIGNS:
        for b in _SIGNS:
            for c in _SIGNS:
                for p in ((a * x, b * y, c * z), (c * z, a * x, b * y), (b * y, c * z, a * x)):
                    if p not in out:
                        out.append(p)
    return out


def _vertices(faces: int) -> list[Vec]:
    """The vertices of the Platonic solid with this many faces."""
    cube: list[Vec] = [(x, y, z) for x in _SIGNS for y in _SIGNS for z in _SIGNS]
    vertices: dict[int, list[Vec]] = {
        4: [(1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)], 6: cube, 8: _cyclic(1, 0, 0),
        12: cube + _cyclic(0, 1 / PHI, PHI), 20: _cyclic(0, 1, PHI)}
    if faces not in vertices:
        raise ValueError(f"no die has {faces} faces")
    return vertices[faces]


def _sub(a: Vec, b: Sequence[float]) -> Vec:
    return tuple(x - y for x, y in zip(a, b))


def _cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a: Vec, b: Vec) -> float:
    return sum(x * y for x, y in zip(a, b))


@functools.lru_cache(maxsize=None)
def _solid(kind: int) -> tuple[list[Vec], list[SolidFace]]:
    """Vertices and faces (vertex indices in cyclic order, outward normal) of the Platonic solid with `kind`
    faces. A face is a plane through three vertices with every other vertex on the inner side of it."""
    verts = _vertices(kind)
    faces: list[SolidFace] = []
    seen: set[tuple[int, ...]] = set()
    for i, j, k in itertools.combinations(range(len(verts)), 3):
        n = _cross(_sub(verts[j], verts[i]), _sub(verts[k], verts[i]))
        if _dot(n, n) < 1e-12:
            continue
        if _dot(n, verts[i]) < 0:
            n = tuple(-c for c in n)
        top = _dot(n, verts[i])
        if any(_dot(n, v) > top + 1e-9 for v in verts):
            continue
        ring = tuple(sorted(m for m, v in enumerate(verts) if abs(_dot(n, v) - top) < 1e-9))
        if ring in seen:
            continue
        seen.add(ring)
        faces.append((_cyclic_order(verts, list(ring), n), n))
    if len(faces) != kind:  # pragma: no cover - a wrong vertex list
        raise ValueError(f"the solid has {len(faces)} faces, not {kind}")
    return verts, faces


def _cyclic_order(verts: list[Vec], ring: list[int], n: Vec) -> list[int]:
    """A face's vertices in order around its normal."""
    cx = [sum(verts[k][j] for k in ring) / len(ring) for j in range(3)]
    u = _sub(verts[ring[0]], cx)
    w = _cross(n, u)
    return sorted(ring, key=lambda k: math.atan2(_dot(_sub(verts[k], cx), w), _dot(_sub(verts[k], cx), u)))


def fold(faces: list[Face]) -> tuple[list[list[int]], list[int], list[SolidFace]]:
    """Fold a net onto its solid: for each net face, the solid's face it becomes and the solid's vertex at
    each of its corners. Returns (corner vertex ids per net face, solid face index per net face, solid faces)."""
    _, solid = _solid(len(faces))
    edge_faces: dict[frozenset[Point], list[tuple[int, int]]] = {}
    for f, face in enumerate(faces):
        for k in range(len(face)):
            edge_faces.setdefault(_edge(face, k), []).append((f, k))
    corners, which = {0: list(solid[0][0])}, {0: 0}
    queue = [0]
    while queue:  # walk the net outwards from face 0, across each fold line
        f = queue.pop(0)
        for k in range(len(faces[f])):
            for g, gk in edge_faces[_edge(faces[f], k)]:
                if g not in corners:
                    which[g], corners[g] = _across(faces, solid, corners, which, f, k, g, gk)
                    queue.append(g)
    if len(set(which.values())) != len(faces):  # two net faces landing on one face: not a net of this solid
        raise ValueError("the net does not fold into its solid")
    return [corners[f] for f in range(len(faces))], [which[f] for f in range(len(faces))], solid


def _across(faces: list[Face], solid: list[SolidFace], corners: dict[int, list[int]], which: dict[int, int],
            f: int, k: int, g: int, gk: int) -> tuple[int, list[int]]:
    """Net face g, folded across edge k of net face f (its own edge gk): the solid face it lands on and the
    solid vertex at each of its corners."""
    face = faces[f]
    va, vb = corners[f][k], corners[f][(k + 1) % len(face)]
    landed = next(i for i, (ring, _) in enumerate(solid) if i != which[f] and va in ring and vb in ring)
    ring = solid[landed][0]
    m = len(ring)
    # net face g has the shared edge as its corners gk -> gk+1 (matching b -> a or a -> b)
    start_v = va if _key(faces[g][gk]) == _key(face[k]) else vb
    other_v = vb if start_v == va else va
    pos = ring.index(start_v)
    step = 1 if ring[(pos + 1) % m] == other_v else -1
    ordered = [ring[(pos + step * j) % m] for j in range(m)]
    return landed, (ordered[-gk:] + ordered[:-gk] if gk else ordered)


def glue_pairs(faces: list[Face]) -> list[list[OuterEdge]]:
    """Outer edges grouped in the pairs that meet when the net is folded."""
    corners, _, _ = fold(faces)
    by_edge: dict[frozenset[int], list[OuterEdge]] = {}
    for a, b, centre in outer_edges(faces):
        f, k = _locate(faces, a, b)
        n = len(faces[f])
        by_edge.setdefault(frozenset((corners[f][k], corners[f][(k + 1) % n])), []).append((a, b, centre))
    return list(by_edge.values())


def _locate(faces: list[Face], a: Point, b: Point) -> tuple[int, int]:
    for f, face in enumerate(faces):
        for k in range(len(face)):
            p, q = face[k], face[(k + 1) % len(face)]
            if (math.dist(p, a) < 1e-6 and math.dist(q, b) < 1e-6) or (math.dist(p, b) < 1e-6 and math.dist(q, a) < 1e-6):
                return f, k
    raise ValueError("edge not in net")


def opposite_faces(faces: list[Face]) -> list[int | None]:
    """For each net face, the net face that ends up opposite it on the solid (None on a tetrahedron,
    where a face is opposite a corner)."""
    _, which, solid = fold(faces)
    normal_of = [solid[w][1] for w in which]
    def opposite(a: Vec, b: Vec) -> bool:
        return abs(_dot(a, b) + math.sqrt(_dot(a, a) * _dot(b, b))) < 1e-6

    return [next((g for g in range(len(faces)) if opposite(normal_of[f], normal_of[g])), None)
            for f in range(len(faces))]


def assign_values(faces: list[Face], values: Sequence[Value]) -> list[Value]:
    """Place values so that values[i] and values[-1 - i] sit on opposite faces (a d12 1..12 sums to 13);
    a d4's faces simply take the values in order."""
    opposites = opposite_faces(faces)
    if None in opposites:
        return list(values)
    opposite = cast(list[int], opposites)  # every face has one (not a tetrahedron)
    out: list[Value | None] = [None] * len(faces)
    i = 0
    for f in range(len(faces)):
        if out[f] is None:
            out[f], out[opposite[f]] = values[i], values[len(values) - 1 - i]
            i += 1
    return cast(list[Value], out)  # every face now holds a value


def tabbed_edges(faces: list[Face]) -> list[OuterEdge]:
    """One glue tab per pair of edges that meet when folded: on the first of the pair around the outline."""
    return [pair[0] for pair in glue_pairs(faces)]
