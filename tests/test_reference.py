"""docs/reference.md is what `pnp reference` prints: generated from the classes, so it cannot drift."""

from conftest import REPO, run
from pnp.layout.elements import ELEMENTS
from pnp.model.schema import TYPES
from pnp.products import KINDS


def test_reference_is_current():
    result = run(REPO, "reference")
    assert result.exit_code == 0
    written = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    assert result.stdout == written, "docs/reference.md is stale: run `pnp reference > docs/reference.md`"


def test_reference_covers_every_element_kind_and_field_type():
    text = run(REPO, "reference").stdout
    for name in [*ELEMENTS, *KINDS, *TYPES]:
        assert f"### `{name}`" in text, name
    for name, element in ELEMENTS.items():  # every parameter of every element, with its default
        for param in element.params:
            assert f"| `{param}` |" in text, (name, param)


def test_a_parameters_limits_are_written_as_designers_write_numbers():
    """A track's start read "(at least -1e+06, at most 1e+06)"."""
    from pnp.layout.elements import ELEMENTS

    row = ELEMENTS["track"].params["start"].reference_row("start")[3]
    assert row.endswith("(at least -1,000,000, at most 1,000,000)")


def test_reference_says_every_key_of_fonts_yaml():
    from pnp.draw.fonts import FAMILY_KEYS

    text = run(REPO, "reference").stdout
    fonts = text.split("## Fonts", 1)[1].split("\n## ", 1)[0]
    for key in FAMILY_KEYS:
        assert f"| `{key}` |" in fonts, key


def test_the_icon_in_text_pattern_is_defined_once():
    # one definition (model.schema.ICON_IN_TEXT) that every reader of ':icon:' in text imports
    sources = [p.read_text(encoding="utf-8") for p in (REPO / "pnp").rglob("*.py")]
    assert sum(s.count('re.compile(r":([a-z0-9][a-z0-9-]*):")') for s in sources) == 1
