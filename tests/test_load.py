"""The YAML loader: marks on every value, and refusal of anything that is not plain data."""

import pytest

from pnp.errors import LoadError
from pnp.model.load import Record, load_text


def test_values_keep_their_line_and_column():
    data = load_text("cards:\n  - id: a\n    power: 3\n", "f.yaml")
    card = data["cards"][0]
    assert str(card.mark_of("power")) == "f.yaml:3:12"
    assert str(data["cards"].mark_of(0)) == "f.yaml:2:5"
    assert card.power == 3


@pytest.mark.parametrize("text, message", [
    ("a: !!python/object/apply:os.system [ls]", "is not allowed"),
    ("a: !custom 3", "YAML tag '!custom' is not allowed"),
    ("a: 1\na: 2", "duplicate key 'a' (first at line 1)"),
    ("a: [1,", "malformed YAML"),
    ("a: &x\n  b: *x", "recursive YAML alias"),
])
def test_refused_with_a_mark(text, message):
    with pytest.raises(LoadError) as e:
        load_text(text, "f.yaml")
    assert message in e.value.message
    assert e.value.mark.file == "f.yaml" and e.value.mark.line >= 1


def test_aliases_and_merges_are_plain_data():
    data = load_text("base: &b {x: 1, y: 2}\nitem:\n  <<: *b\n  y: 5\n", "f.yaml")
    assert dict(data["item"]) == {"x": 1, "y": 5}


def test_alias_bomb_is_refused_quickly():
    rows = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    rows += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    with pytest.raises(LoadError, match="alias bomb"):
        load_text("\n".join(rows), "bomb.yaml")


def test_a_record_left_out_still_gets_its_fields_defaults():
    """`stats: {type: record, default: {}}` left out of an item: templates can still read stats.speed."""
    from pnp.model.schema import Schema

    schema = Schema({"id": {"type": "id"},
                     "stats": {"type": "record", "default": {}, "fields": {"speed": {"type": "int", "default": 1},
                                                                            "reach": {"type": "int", "required": False}}}},
                    {})
    filled = schema.with_defaults(Record({"id": "x"}))
    assert filled["stats"].speed == 1 and filled["stats"].get("reach") is None
    given = schema.with_defaults(Record({"id": "y", "stats": Record({"reach": 2})}))
    assert given["stats"].speed == 1 and given["stats"].reach == 2
