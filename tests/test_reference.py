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


def test_the_readmes_command_line_names_every_command_and_option():
    """The README's list of commands named neither `pnp icons` nor serve's --allow-host, build's --draft,
    --marks, --only, --component, --sample and --seed, export's --force or three options of changes."""
    import re

    import click

    from pnp.cli import cli

    listed = (REPO / "README.md").read_text(encoding="utf-8").split("## Command line", 1)[1].split("```")[1]
    said: dict[str, set[str]] = {}
    for block in re.split(r"\n(?=pnp )", listed.strip()):
        name = re.match(r"pnp (?:\[--root DIR\] )?(\S+)", block)
        assert name is not None, block
        words = block.split()
        command = name[1] + (f" {words[words.index(name[1]) + 1]}" if isinstance(cli.commands.get(name[1]), click.Group) else "")
        said[command] = set(re.findall(r"--[a-z][a-z-]*", block)) - {"--root"}
    for name, command in cli.commands.items():
        subcommands = command.commands.items() if isinstance(command, click.Group) else [("", command)]
        for sub, leaf in subcommands:
            full = f"{name} {sub}".strip()
            options = {o for p in leaf.params if isinstance(p, click.Option) for o in p.opts if o.startswith("--")}
            assert full in said, f"the README's command line does not list `pnp {full}`"
            assert said[full] == options - {"--help"}, (full, said[full] ^ (options - {"--help"}))


def test_named_sizes_name_the_product_each_service_exports_them_as():
    """The table said business, domino, square, square-3.5in and mini-american cards had no print-service
    product, while `pnp export --format tgc` printed them as its Business, Domino, Euro Square and Square Decks."""
    from pnp.export.services import SERVICES, product_for
    from pnp.reference import _sizes_table
    from pnp.units import MM, NAMED_SIZES

    rows = {line.split("|")[1].strip(" `"): line.split("|")[4] for line in _sizes_table().splitlines()
            if line.startswith("| `")}
    for name, size in NAMED_SIZES.items():
        for service in SERVICES:
            product = product_for(service, (size.w * MM, size.h * MM))
            assert (product is not None) == (f"{service}: " in rows[name]), (name, service)
            assert product is None or f"{service}: {product.name}" in rows[name], (name, service)


def test_the_ink_savers_help_says_what_it_prints():
    """--ink-saver's help said floods print "as light tints": draw/ink.py leaves them white, outline only
    (a tint lays ink on every pixel), as the README says."""
    from click.testing import CliRunner

    from pnp.cli import cli

    shown = " ".join(CliRunner().invoke(cli, ["build", "--help"]).output.split())
    assert "tint" not in shown and "outline on white paper" in shown


def test_a_boards_back_says_where_a_tiled_board_prints_it() -> None:
    """The shared `back:` text said every back is on the following page, mirrored for duplex; a tiled board's
    back is tiled after its front's tiles, upright."""
    from pnp.products.board import Board
    doc = Board.component_keys["back"].doc
    assert "tiled" in doc and "duplex" in doc
