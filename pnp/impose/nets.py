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


PHI = (1 + 5 ** 0.5) / 2


def _solid(kind):
    """Vertices and faces (vertex indices, in cyclic order) of the cube or the regular dodecahedron."""
    if kind == 6:
        verts = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
        normals = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    else:
        verts = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
        for a in (-1, 1):
            for b in (-1, 1):
                verts += [(0, a / PHI, b * PHI), (a / PHI, b * PHI, 0), (a * PHI, 0, b / PHI)]
        # face centres: the cyclic permutations of (0, ±φ, ±1)
        normals = [(0, a * PHI, b) for a in (-1, 1) for b in (-1, 1)]
        normals += [(b, 0, a * PHI) for a in (-1, 1) for b in (-1, 1)]
        normals += [(a * PHI, b, 0) for a in (-1, 1) for b in (-1, 1)]
    faces = []
    for n in normals:
        dots = [sum(c * d for c, d in zip(v, n)) for v in verts]
        top = max(dots)
        ring = [k for k, d in enumerate(dots) if abs(d - top) < 1e-9]
        # order the ring around the face normal
        cx = [sum(verts[k][j] for k in ring) / len(ring) for j in range(3)]
        u = [verts[ring[0]][j] - cx[j] for j in range(3)]
        w = [n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]]
        ring.sort(key=lambda k: math.atan2(sum((verts[k][j] - cx[j]) * w[j] for j in range(3)),
                                           sum((verts[k][j] - cx[j]) * u[j] for j in range(3))))
        faces.append((ring, n))
    return verts, faces


def fold(faces):
    """Fold a net onto its solid: for each net face, the solid's face it becomes and the solid's vertex at
    each of its corners. Returns (corner vertex ids per net face, solid face index per net face, solid faces)."""
    _, solid = _solid(len(faces))

    def key(p):
        return (round(p[0], 6), round(p[1], 6))

    edge_faces = {}
    for f, face in enumerate(faces):
        for k in range(len(face)):
            edge_faces.setdefault(frozenset((key(face[k]), key(face[(k + 1) % len(face)]))), []).append((f, k))
    corners, which = {0: list(solid[0][0])}, {0: 0}
    queue = [0]
    while queue:
        f = queue.pop(0)
        face = faces[f]
        for k in range(len(face)):
            for g, gk in edge_faces[frozenset((key(face[k]), key(face[(k + 1) % len(face)])))]:
                if g in corners:
                    continue
                va, vb = corners[f][k], corners[f][(k + 1) % len(face)]
                # the solid's other face on edge (va, vb)
                G = next(i for i, (ring, _) in enumerate(solid) if i != which[f] and va in ring and vb in ring)
                ring = solid[G][0]
                m = len(ring)
                # net face g has the shared edge as its corners gk -> gk+1 (matching b -> a or a -> b)
                ga = key(faces[g][gk])
                start_v = va if ga == key(face[k]) else vb
                other_v = vb if start_v == va else va
                pos = ring.index(start_v)
                step = 1 if ring[(pos + 1) % m] == other_v else -1
                corners[g] = [ring[(pos + step * j) % m] for j in range(m)]
                corners[g] = corners[g][-gk:] + corners[g][:-gk] if gk else corners[g]
                which[g] = G
                queue.append(g)
    if len(set(which.values())) != len(faces):  # two net faces landing on one face: not a net of this solid
        raise ValueError("the net does not fold into its solid")
    return [corners[f] for f in range(len(faces))], [which[f] for f in range(len(faces))], solid


def glue_pairs(faces):
    """Outer edges grouped in the pairs that meet when the net is folded."""
    corners, _, _ = fold(faces)
    by_edge = {}
    for a, b, centre in outer_edges(faces):
        f, k = _locate(faces, a, b)
        n = len(faces[f])
        by_edge.setdefault(frozenset((corners[f][k], corners[f][(k + 1) % n])), []).append((a, b, centre))
    return list(by_edge.values())


def _locate(faces, a, b):
    for f, face in enumerate(faces):
        for k in range(len(face)):
            p, q = face[k], face[(k + 1) % len(face)]
            if (math.dist(p, a) < 1e-6 and math.dist(q, b) < 1e-6) or (math.dist(p, b) < 1e-6 and math.dist(q, a) < 1e-6):
                return f, k
    raise ValueError("edge not in net")


def opposite_faces(faces):
    """For each net face, the net face that ends up opposite it on the solid."""
    _, which, solid = fold(faces)
    normal_of = [solid[w][1] for w in which]
    return [next(g for g in range(len(faces)) if all(abs(x + y) < 1e-9 for x, y in zip(normal_of[f], normal_of[g])))
            for f in range(len(faces))]


def assign_values(faces, values):
    """Place values so that values[i] and values[-1 - i] sit on opposite faces (a d12 1..12 sums to 13)."""
    opposite = opposite_faces(faces)
    out, i = [None] * len(faces), 0
    for f in range(len(faces)):
        if out[f] is None:
            out[f], out[opposite[f]] = values[i], values[len(values) - 1 - i]
            i += 1
    return out


def tabbed_edges(faces):
    """One glue tab per pair of edges that meet when folded: on the first of the pair around the outline."""
    return [pair[0] for pair in glue_pairs(faces)]
