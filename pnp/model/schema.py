"""Field types of a card schema, each checking its own values; specs come from game.yaml."""

import re
from difflib import get_close_matches

from .load import MarkedList, Record

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
ICON_IN_TEXT = re.compile(r":([a-z0-9][a-z0-9-]*):")


def did_you_mean(word, choices):
    close = get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _type_name(value):
    return {bool: "true/false", int: "a whole number", float: "a number", str: "text",
            Record: "a mapping", MarkedList: "a list", type(None): "nothing"}.get(type(value), type(value).__name__)


class SpecError(Exception):
    """A schema in game.yaml is itself wrong."""


class Field:
    """One field of a record. `check(value, mark, ctx)` yields (message, mark) for each problem."""

    #: the spec keys each field type understands (anything else in game.yaml is reported)
    KEYS = {"type", "required", "default", "doc"}

    def __init__(self, spec, enums):
        self.spec = spec
        self.required = spec.get("required", "default" not in spec)
        self.default = spec.get("default")
        self.doc = spec.get("doc", "")

    def check(self, value, mark, ctx):
        return iter(())

    def fill(self, value):
        """The value with defaults filled in, for nested records (plain values come back unchanged)."""
        return value


class Str(Field):
    KEYS = Field.KEYS | {"max_len", "pattern"}

    def check(self, value, mark, ctx):
        if not isinstance(value, str):
            yield f"expected text, got {_type_name(value)} {value!r}", mark
            return
        limit = self.spec.get("max_len")
        if limit and len(value) > limit:
            yield f"text is {len(value)} characters long, at most {limit} allowed", mark
        pattern = self.spec.get("pattern")
        if pattern and not re.fullmatch(pattern, value):
            yield f"'{value}' does not match the pattern {pattern}", mark


class Text(Str):
    """Rich text: **bold**, *italic*, :icon: — icon names must exist."""

    def check(self, value, mark, ctx):
        yield from super().check(value, mark, ctx)
        if isinstance(value, str):
            for name in ICON_IN_TEXT.findall(value):
                if not ctx.icon_exists(name):
                    yield f"unknown icon ':{name}:'{did_you_mean(name, ctx.icon_names())}", mark


class Id(Str):
    def check(self, value, mark, ctx):
        yield from super().check(value, mark, ctx)
        if isinstance(value, str) and not ID_PATTERN.match(value):
            yield f"id '{value}' must be lowercase letters, digits and hyphens", mark


class Int(Field):
    KEYS = Field.KEYS | {"min", "max"}
    types = (int,)
    what = "a whole number"

    def check(self, value, mark, ctx):
        if isinstance(value, bool) or not isinstance(value, self.types):
            yield f"expected {self.what}, got {_type_name(value)} {value!r}", mark
            return
        lo, hi = self.spec.get("min"), self.spec.get("max")
        if lo is not None and value < lo or hi is not None and value > hi:
            yield f"{value} is out of range (expected {lo if lo is not None else '…'} to {hi if hi is not None else '…'})", mark


class Number(Int):
    types = (int, float)
    what = "a number"


class Bool(Field):
    def check(self, value, mark, ctx):
        if not isinstance(value, bool):
            yield f"expected true or false, got {value!r}", mark


class Enum(Field):
    KEYS = Field.KEYS | {"values", "enum"}

    def __init__(self, spec, enums):
        super().__init__(spec, enums)
        if "values" in spec:
            self.values = list(spec["values"])
            self.label = "these values"
        elif spec.get("enum") in enums:
            self.values = list(enums[spec["enum"]])
            self.label = spec["enum"]
        else:
            raise SpecError(f"enum field needs 'values' or 'enum' naming one of: {', '.join(enums) or 'none defined'}")

    def check(self, value, mark, ctx):
        if value not in self.values:
            if len(self.values) > 12 and self.label != "these values":  # a long list reads better by name
                shown = f"a known {self.label} (see enums.{self.label} in game.yaml)"
                yield f"'{value}' is not {shown}{did_you_mean(value, self.values)}", mark
                return
            shown = ", ".join(str(v) for v in self.values)
            yield f"'{value}' is not one of {shown}{did_you_mean(value, self.values)}", mark


class Ref(Field):
    """The id of an item in another table (or this one)."""

    KEYS = Field.KEYS | {"table"}

    def check(self, value, mark, ctx):
        table = self.spec.get("table")
        ids = ctx.ids(table)
        if ids is None:
            return  # the missing table is reported once, where it is declared
        if value not in ids:
            yield f"'{value}' is not an id in table '{table}'{did_you_mean(value, ids)}", mark


class Icon(Field):
    def check(self, value, mark, ctx):
        if not isinstance(value, str) or not ctx.icon_exists(value):
            yield f"unknown icon '{value}'{did_you_mean(value, ctx.icon_names())}", mark


class List(Field):
    KEYS = Field.KEYS | {"of", "min_items", "max_items"}

    def __init__(self, spec, enums):
        super().__init__(spec, enums)
        self.item = make_field(spec.get("of", {"type": "str"}), enums)

    def check(self, value, mark, ctx):
        if not isinstance(value, list):
            yield f"expected a list, got {_type_name(value)}", mark
            return
        lo, hi = self.spec.get("min_items"), self.spec.get("max_items")
        if lo is not None and len(value) < lo or hi is not None and len(value) > hi:
            yield f"{len(value)} items, expected {lo or 0} to {hi if hi is not None else 'any number'}", mark
        for i, item in enumerate(value):
            yield from self.item.check(item, value.mark_of(i) if isinstance(value, MarkedList) else mark, ctx)

    def fill(self, value):
        if not isinstance(value, MarkedList):
            return value
        filled = MarkedList(self.item.fill(v) for v in value)
        filled.marks, filled.mark = value.marks, value.mark
        return filled


class Map(Field):
    """A mapping from enum keys to values, e.g. a cost {plants: 2, mammals: 1}."""

    KEYS = Field.KEYS | {"keys", "values", "min_total", "max_total"}

    def __init__(self, spec, enums):
        super().__init__(spec, enums)
        self.keys = Enum({"type": "enum", **({"enum": spec["keys"]} if isinstance(spec.get("keys"), str)
                                            else {"values": spec.get("keys", [])})}, enums)
        self.value = make_field(spec.get("values", {"type": "int"}), enums)

    def check(self, value, mark, ctx):
        if not isinstance(value, Record):
            yield f"expected a mapping, got {_type_name(value)}", mark
            return
        for k, v in value.items():
            yield from self.keys.check(k, value.key_mark(k), ctx)
            yield from self.value.check(v, value.mark_of(k), ctx)
        numbers = [v for v in value.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        total = sum(numbers)
        lo, hi = self.spec.get("min_total"), self.spec.get("max_total")
        if lo is not None and total < lo or hi is not None and total > hi:
            yield f"total {total} is out of range (expected {lo if lo is not None else '…'} to {hi if hi is not None else '…'})", mark


class Nested(Field):
    """A mapping with its own fields."""

    KEYS = Field.KEYS | {"fields"}

    def __init__(self, spec, enums):
        super().__init__(spec, enums)
        self.schema = Schema(spec.get("fields", {}), enums)

    def check(self, value, mark, ctx):
        if not isinstance(value, Record):
            yield f"expected a mapping, got {_type_name(value)}", mark
            return
        yield from self.schema.check(value, ctx)

    def fill(self, value):
        return self.schema.with_defaults(value) if isinstance(value, Record) else value


TYPES = {"str": Str, "text": Text, "id": Id, "int": Int, "number": Number, "bool": Bool, "enum": Enum,
         "ref": Ref, "icon": Icon, "list": List, "map": Map, "record": Nested}


def make_field(spec, enums):
    if isinstance(spec, str):
        spec = Record({"type": spec})
    if not isinstance(spec, Record):
        raise SpecError(f"a field spec is a type name or a mapping with 'type', got {spec!r}")
    kind = spec.get("type", "str")
    if kind not in TYPES:
        raise SpecError(f"unknown field type '{kind}'{did_you_mean(kind, TYPES)}; types: {', '.join(TYPES)}")
    cls = TYPES[kind]
    unknown = [k for k in spec if k not in cls.KEYS]
    if unknown:
        raise SpecError(f"'{kind}' field does not take {', '.join(map(repr, unknown))}{did_you_mean(unknown[0], cls.KEYS)}")
    return cls(spec, enums)


class Schema:
    """The fields of one card type."""

    def __init__(self, fields, enums):
        self.fields = {}
        self.problems = []  # (message, mark) for bad specs
        for name, spec in (fields or {}).items():
            try:
                self.fields[name] = make_field(spec, enums)
            except SpecError as e:
                mark = fields.mark_of(name) if isinstance(fields, Record) else None
                self.problems.append((f"field '{name}': {e}", mark))
                # keep the name known, so every record using it does not repeat the problem
                self.fields[name] = Field(Record({"required": False}), enums)

    def check(self, record, ctx, computed=()):
        """Problems of one record; `computed` names derived fields, which a record may also type in."""
        for key in record:
            if key not in self.fields and key not in computed:
                yield f"unknown field '{key}'{did_you_mean(key, self.fields)}", record.key_mark(key)
        for name, field in self.fields.items():
            if name in record:
                yield from field.check(record[name], record.mark_of(name), ctx)
            elif field.required:
                yield f"missing required field '{name}'", record.mark

    def with_defaults(self, record):
        """The record with every optional field present (its default, or None), nested records included."""
        values = {n: f.default for n, f in self.fields.items() if n not in record and not f.required}
        for n, f in self.fields.items():
            if n in record:
                filled = f.fill(record[n])
                if filled is not record[n]:
                    values[n] = filled
        if not values:
            return record
        data = {**record._data, **values}
        marks = {**{k: record.mark for k in values}, **record._marks}
        return Record(data, marks, record._key_marks, record.mark)
