"""Each concept of pnp.options (and the message helpers of pnp.report) exists once: scanning pnp/ for a second
definition fails here."""

import ast

import pytest

import source
from conftest import counted_calls
from pnp.options import ColourError, described, did_you_mean, parse_colour, rgb


@pytest.fixture(scope="module", autouse=True)
def _source_let_go_of_at_the_end():
    """pnp's parsed source is kept only while this module's tests run (see source.forget)."""
    yield
    source.forget()


OPTION_CLASSES = {"Option", "Text", "Int", "Number", "Bool", "Anything"}
HELPERS = {"shown", "described", "type_name", "closest", "did_you_mean", "plain", "parse_colour"}


def _nodes(*kinds: type) -> list[tuple[str, ast.AST]]:
    """(module path, node) for every node of pnp/ of these kinds."""
    return [found for kind in kinds for found in source.of(kind)]


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _defined(names: set[str]) -> list[tuple[str, str]]:
    return [(path, node.name) for path, node in _nodes(ast.ClassDef, ast.FunctionDef) if node.name in names]


def test_each_message_helper_is_defined_only_in_options() -> None:
    defined = _defined(HELPERS)
    assert {path for path, _ in defined} == {"pnp/report.py", "pnp/options.py"}, defined
    assert {name for path, name in defined if path == "pnp/report.py"} == HELPERS - {"parse_colour"}


def test_each_option_type_is_defined_only_in_options() -> None:
    """Layout parameters and data field types share these (the data's field types read values with them)."""
    defined = [(path, node.name) for path, node in _nodes(ast.ClassDef) if node.name in OPTION_CLASSES
               and "Element" not in {getattr(base, "id", "") for base in node.bases}]  # the `text` element is no option
    assert {path for path, _ in defined} == {"pnp/options.py"}, defined
    assert "required" not in {node.attr for path, node in _nodes(ast.Attribute) if path != "pnp/options.py"
                              and isinstance(node.ctx, ast.Store)}  # the rule 'required unless it has a default'


def test_suggestions_and_colour_hex_are_computed_only_in_options() -> None:
    suggesting = [(path, node.lineno) for path, node in _nodes(ast.Call) if path != "pnp/report.py"
                  and _called(node) == "get_close_matches"]
    assert suggesting == []
    # (a workbook's _xHHHH_ escapes and its part names' %HH escapes are character codes, not colours:
    # pnp/model/spreadsheet.py and pnp/model/workbook_parts.py read those)
    hex_reads = [(path, getattr(node, "lineno", 0)) for path, node in _nodes(ast.Call, ast.Constant)
                 if path not in ("pnp/options.py", "pnp/model/spreadsheet.py", "pnp/model/workbook_parts.py")
                 and (isinstance(node, ast.Call) and _called(node) == "int" and len(node.args) == 2
                 and isinstance(node.args[1], ast.Constant) and node.args[1].value == 16
                 or isinstance(node, ast.Constant) and isinstance(node.value, str) and "0-9a-fA-F" in node.value)]
    assert hex_reads == []


@pytest.mark.parametrize("written, expected", [
    ("#1E6B52", "#1e6b52"), ("#abc", "#aabbcc"), (" White ", "#ffffff"), ("darkseagreen", "#8fbc8f"),
    ("none", None), ("transparent", None), ("", None), (None, None)])
def test_one_colour_rule(written: object, expected: str | None) -> None:
    assert parse_colour(written) == expected


def test_colour_mistakes_say_what_was_written() -> None:
    with pytest.raises(ColourError, match=r"unknown colour 'gren'.*\(did you mean 'green'\?\)"):
        parse_colour("gren")
    with pytest.raises(ColourError, match=r"got a list \[1, 2\]"):
        parse_colour([1, 2])
    assert rgb("#ff0000") == (1.0, 0.0, 0.0)


def test_messages_quote_and_suggest_the_same_way() -> None:
    assert described({"a": 1}) == "a mapping"
    assert described("x" * 100).endswith("…") and len(described("x" * 100)) == 60
    assert did_you_mean("Jurasic", ["Triassic", "Jurassic"]) == " (did you mean 'Jurassic'?)"
    assert did_you_mean("zzz", ["Triassic"]) == ""
    # a name other in case alone is suggested (difflib found nothing of 'a' for 'A', or of 'COIN' for 'coin')
    assert did_you_mean("a", ["A", "2", "K"]) == " (did you mean 'A'?)"
    assert did_you_mean("COIN", ["coins", "coin"]) == " (did you mean 'coin'?)"
    assert did_you_mean("Jurassic" * 100, ["Jurassic" * 100]) == ""  # a huge word is no typo: not compared


def test_component_keys_are_options_not_spec_mappings() -> None:
    """A kind declares everything it accepts one way: its game.yaml keys are Option objects, as its layout
    options are, never spec mappings such as {"type": "str", "doc": ...}."""
    from pnp.options import Option
    from pnp.products import KINDS

    as_specs = [(name, key) for name, kind in KINDS.items() for key, option in kind.component_keys.items()
                if not isinstance(option, Option)]
    assert as_specs == []
    spec_mappings = [(path, node.lineno) for path, node in _nodes(ast.Dict) if path.startswith("pnp/products/")
                     and any(isinstance(key, ast.Constant) and key.value == "type" for key in node.keys)]
    assert spec_mappings == []


def test_out_of_range_is_said_one_way_in_layouts_and_data() -> None:
    from pnp.options import Int

    whole = Int(minimum=1, maximum=3)
    with pytest.raises(ValueError) as raised:
        whole.convert("5")  # as a layout writes it
    assert str(raised.value) == whole.typed_problem(5) == "5 is out of range (expected 1 to 3)"  # as the data does
    assert Int(minimum=1).typed_problem(0) == "0 is out of range (expected 1 to …)"


def test_a_colour_name_pillow_has_used_is_still_a_colour(monkeypatch):
    # Pillow keeps a name's (r, g, b) in place of its '#rrggbb' once it has used it (Image.new(..., "red")): when
    # pnp first read the names after that, 'red' was an unknown colour for the rest of the process
    from PIL import Image, ImageColor
    from pnp import options
    monkeypatch.setattr(ImageColor, "colormap", dict(ImageColor.colormap))
    options._css_names.cache_clear()
    options._parse_colour.cache_clear()
    Image.new("RGB", (1, 1), "red")
    try:
        assert options.parse_colour("red") == "#ff0000"
    finally:
        options._css_names.cache_clear()
        options._parse_colour.cache_clear()


def test_a_printed_text_repeated_on_many_cards_is_searched_for_control_characters_once(monkeypatch):
    # an alias prints one long text on every card: searched anew on each (950,000 characters on 5,000 cards:
    # most of a build's 50 s)
    from pnp import options
    searched = counted_calls(monkeypatch, options, "CONTROL_CHARACTER", "search")
    options.control_problem.cache_clear()
    text = "a long text, the same on every card " * 100
    assert [options.Text().convert(text) for _ in range(50)] == [text] * 50
    assert searched == [text]
    assert options.control_problem("a\x07b") is not None and options.control_problem("a\x07b") is not None
