"""Layout files: size, bleed, safe area, vars and elements, with `extends:` resolved and every key checked."""

from dataclasses import dataclass, field

from .. import units
from ..model.load import LoadError, MarkedList, Record, load_file
from ..model.schema import did_you_mean
from ..report import Mark

COMMON = {"type", "when", "repeat", "as", "step", "rotate", "doc", "name"}
STROKE = {"fill", "stroke", "stroke_width", "dash", "opacity"}
ELEMENT_KEYS = {
    "rect": {"x", "y", "w", "h", "radius", "bleed"} | STROKE,
    "line": {"x1", "y1", "x2", "y2", "stroke", "stroke_width", "dash"},
    "circle": {"cx", "cy", "r"} | STROKE,
    "polygon": {"points"} | STROKE,
    "hex": {"cx", "cy", "r", "orientation"} | STROKE,
    "text": {"x", "y", "w", "h", "text", "font", "size", "min_size", "leading", "align", "valign", "color",
             "max_lines"},
    "icon": {"icon", "x", "y", "w", "h", "color"},
    "image": {"src", "x", "y", "w", "h", "min_dpi"},
    "grid": {"x", "y", "cols", "rows", "cell_w", "cell_h", "label", "label_size", "font", "color", "shape"} | STROKE,
    "track": {"x", "y", "w", "h", "x1", "y1", "x2", "y2", "count", "start", "cell", "label", "label_size",
              "font", "color", "shape"} | STROKE,
    "icons": {"icon", "count", "x", "y", "size", "gap", "direction", "color"},
    "group": {"x", "y", "elements"},
    "use": {"layout", "item", "x", "y", "w", "with"},
}
LAYOUT_KEYS = {"extends", "size", "bleed", "safe", "radius", "vars", "elements", "net", "faces", "edge",
               "shape", "doc"}


class LayoutError(Exception):
    def __init__(self, message, mark=None):
        super().__init__(message)
        self.message, self.mark = message, mark


@dataclass
class Layout:
    name: str
    file: str
    width: float  # points
    height: float
    bleed: float  # points of art beyond the trim line the layout provides
    safe: float
    radius: float
    vars: dict
    elements: list
    spec: Record
    chain: list = field(default_factory=list)  # files, child first

    @property
    def size_mm(self):
        return [units.to_mm(self.width), units.to_mm(self.height)]


def check_elements(elements, problems):
    """Check element types and keys once, before anything is drawn."""
    for i, el in enumerate(elements or []):
        mark = elements.mark_of(i) if isinstance(elements, MarkedList) else None
        if not isinstance(el, Record):
            problems.append(("an element is a mapping with 'type'", mark))
            continue
        kind = el.get("type")
        if kind not in ELEMENT_KEYS:
            problems.append((f"unknown element type '{kind}'{did_you_mean(kind, ELEMENT_KEYS)}; "
                             f"types: {', '.join(ELEMENT_KEYS)}", el.mark_of("type")))
            continue
        allowed = ELEMENT_KEYS[kind] | COMMON
        for key in el:
            if key not in allowed:
                problems.append((f"'{kind}' element does not take '{key}'{did_you_mean(key, allowed)}",
                                 el.key_mark(key)))
        if kind == "group":
            check_elements(el.get("elements"), problems)


class LayoutSet:
    """Finds and parses layouts once per build: layouts/<game>/NAME.yaml, then layouts/shared/NAME.yaml."""

    def __init__(self, project, game_id):
        self.project, self.game_id = project, game_id
        self.folders = [project.layouts / game_id, project.shared_layouts]
        self._cache = {}

    def path(self, name):
        for folder in self.folders:
            candidate = folder / f"{name}.yaml"
            if candidate.is_file():
                return candidate
        return None

    def get(self, name, _stack=()):
        if name in self._cache:
            return self._cache[name]
        if name in _stack:
            raise LayoutError(f"layout 'extends' cycle: {' -> '.join(_stack + (name,))}")
        path = self.path(name)
        if path is None:
            where = " or ".join(self.project.rel(f / f"{name}.yaml") for f in self.folders)
            raise LayoutError(f"layout '{name}' not found (looked for {where})")
        shown = self.project.rel(path)
        try:
            spec = load_file(path, shown)
        except LoadError as e:
            raise LayoutError(e.message, e.mark) from None
        if not isinstance(spec, Record):
            raise LayoutError("a layout is a mapping with size and elements", Mark(shown, 1, 1))
        problems = []
        for key in spec:
            if key not in LAYOUT_KEYS:
                problems.append((f"unknown layout key '{key}'{did_you_mean(key, LAYOUT_KEYS)}", spec.key_mark(key)))
        check_elements(spec.get("elements"), problems)
        if "size" in spec:
            try:
                units.size(spec["size"])
            except ValueError as e:
                problems.append((str(e), spec.mark_of("size")))
        if problems:
            error = LayoutError(problems[0][0], problems[0][1])
            error.all = problems
            raise error
        parent = None
        if spec.get("extends"):
            parent = self.get(spec["extends"], _stack + (name,))

        def pick(key, convert, default):
            if key in spec:
                try:
                    return convert(spec[key])
                except ValueError as e:
                    raise LayoutError(str(e), spec.mark_of(key)) from None
            return getattr(parent, key) if parent else default

        if "size" in spec:
            try:
                width, height = units.size(spec["size"])
            except ValueError as e:
                raise LayoutError(str(e), spec.mark_of("size")) from None
        elif parent:
            width, height = parent.width, parent.height
        else:
            raise LayoutError("layout needs a 'size' (poker, bridge, mini, tarot, square or [w, h])",
                              Mark(shown, 1, 1))
        merged = Record({**(parent.spec._data if parent else {}), **spec._data},
                        {**(parent.spec._marks if parent else {}), **spec._marks},
                        {**(parent.spec._key_marks if parent else {}), **spec._key_marks}, spec.mark)
        layout = Layout(
            name=name, file=shown, width=width, height=height,
            bleed=pick("bleed", units.length, units.length("3mm")),
            safe=pick("safe", units.length, units.length("3mm")),
            radius=pick("radius", units.length, 0.0),
            vars={**(parent.vars if parent else {}), **dict(spec.get("vars") or {})},
            elements=(parent.elements if parent else []) + list(spec.get("elements") or []),
            spec=merged,
            chain=[shown] + (parent.chain if parent else []),
        )
        self._cache[name] = layout
        return layout
