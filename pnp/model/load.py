"""Safe YAML loading that keeps the file:line:col of every value and refuses object tags and alias bombs."""

from collections.abc import Mapping

import yaml

from ..report import Mark

try:  # the C loader is ~5x faster and keeps marks just the same
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

# Plain data only: no tag may build a Python object.
_ALLOWED_TAGS = {
    "tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "timestamp", "map", "seq")
}
_MERGE = "tag:yaml.org,2002:merge"
MAX_EXPANDED_NODES = 1_000_000


class LoadError(Exception):
    def __init__(self, message, mark):
        super().__init__(message)
        self.message, self.mark = message, mark


class Record(Mapping):
    """A YAML mapping: read-only, remembers where each key and value was written."""

    __slots__ = ("_data", "_marks", "_key_marks", "mark")

    def __init__(self, data=None, marks=None, key_marks=None, mark=None):
        self._data = dict(data or {})
        self._marks = dict(marks or {})
        self._key_marks = dict(key_marks or {})
        self.mark = mark

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __getattr__(self, name):
        # card.name in Python and in Jinja templates; fields win over nothing else (slots are real attributes)
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self):
        return f"Record({self._data!r})"

    def mark_of(self, key):
        """Where the value of `key` was written (or the mapping itself when the key is absent)."""
        return self._marks.get(key) or self.mark

    def key_mark(self, key):
        return self._key_marks.get(key) or self.mark

    def with_values(self, extra, mark=None):
        """A copy with more (computed) fields; computed fields point at `mark`."""
        data = {**self._data, **extra}
        marks = {**{k: mark or self.mark for k in extra}, **self._marks}
        return Record(data, marks, self._key_marks, self.mark)


class MarkedList(list):
    """A YAML sequence that remembers where each item was written."""

    __slots__ = ("marks", "mark")

    def mark_of(self, index):
        return self.marks[index] if index < len(self.marks) else self.mark


def _mark(file, m):
    return Mark(file, m.line + 1, m.column + 1)


def _check_size(root, file):
    """Refuse alias bombs (billion laughs) and recursive aliases before anything walks the tree."""
    sizes, active = {}, set()

    def size(node):
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise LoadError("recursive YAML alias: a value contains itself", _mark(file, node.start_mark))
        active.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            for child in node.value:
                total += size(child)
        elif isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                total += size(k) + size(v)
        active.discard(key)
        if total > MAX_EXPANDED_NODES:
            raise LoadError(
                f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} values (an alias bomb?); "
                "refusing to load",
                _mark(file, node.start_mark),
            )
        sizes[key] = total
        return total

    size(root)


class _Builder:
    def __init__(self, loader, file):
        self.loader, self.file, self.done = loader, file, {}

    def build(self, node):
        if id(node) in self.done:  # an alias: share the value, never copy it
            return self.done[id(node)]
        if node.tag not in _ALLOWED_TAGS and node.tag != _MERGE:
            raise LoadError(
                f"YAML tag '{node.tag}' is not allowed: pnp data is plain text, numbers, lists and mappings",
                _mark(self.file, node.start_mark),
            )
        if isinstance(node, yaml.ScalarNode):
            value = self.loader.construct_object(node, deep=True)
        elif isinstance(node, yaml.SequenceNode):
            value = MarkedList()
            value.mark = _mark(self.file, node.start_mark)
            value.marks = [_mark(self.file, n.start_mark) for n in node.value]
            self.done[id(node)] = value
            value.extend(self.build(n) for n in node.value)
        else:
            value = self.mapping(node)
        self.done[id(node)] = value
        return value

    def mapping(self, node):
        data, marks, key_marks = {}, {}, {}
        merged = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                merged.append(value_node)
                continue
            key = self.build(key_node)
            if isinstance(key, (Record, list)):
                raise LoadError("a mapping key must be plain text or a number", _mark(self.file, key_node.start_mark))
            if key in data:
                raise LoadError(
                    f"duplicate key '{key}' (first at line {key_marks[key].line})",
                    _mark(self.file, key_node.start_mark),
                )
            key_marks[key] = _mark(self.file, key_node.start_mark)
            marks[key] = _mark(self.file, value_node.start_mark)
            data[key] = self.build(value_node)
        for value_node in merged:  # '<<: *base' fills in keys the mapping does not set itself
            sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for source in sources:
                base = self.build(source)
                if not isinstance(base, Record):
                    raise LoadError("'<<' merges a mapping (or a list of them)", _mark(self.file, source.start_mark))
                for k in base:
                    if k not in data:
                        data[k], marks[k], key_marks[k] = base[k], base.mark_of(k), base.key_mark(k)
        return Record(data, marks, key_marks, _mark(self.file, node.start_mark))


def load_text(text, file):
    """Parse YAML text; `file` is the name used in marks. Raises LoadError with a mark."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        _check_size(root, file)
        return _Builder(loader, file).build(root)
    except yaml.MarkedYAMLError as e:
        m = e.problem_mark or e.context_mark
        problem = " ".join(p for p in (e.context, e.problem) if p)
        raise LoadError(f"malformed YAML: {problem}", _mark(file, m) if m else Mark(file)) from None
    except yaml.YAMLError as e:
        raise LoadError(f"malformed YAML: {e}", Mark(file)) from None
    except RecursionError:
        raise LoadError("YAML nested too deeply", Mark(file)) from None
    finally:
        loader.dispose()


def load_file(path, shown_as):
    """Load a YAML file; raises LoadError (a missing or unreadable file included)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LoadError("file not found", Mark(shown_as)) from None
    except UnicodeDecodeError as e:
        raise LoadError(f"not UTF-8 text ({e.reason} at byte {e.start})", Mark(shown_as)) from None
    except OSError as e:
        raise LoadError(f"cannot read: {e.strerror}", Mark(shown_as)) from None
    return load_text(text, shown_as)
