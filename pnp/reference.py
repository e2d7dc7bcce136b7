"""The reference of everything a designer writes, generated from the classes that define it: the unit rule,
game.yaml, field types, component kinds, layout files, text styles, elements and what templates see.
`pnp reference` prints it; docs/reference.md is its output, kept current by a test. It sits beside the
command line at the top: it reads every layer and nothing imports it but cli."""

import inspect
from collections.abc import Mapping

from . import template
from .draw.fonts import FAMILY_FIELDS, MAX_FAMILIES, MAX_FONT_BYTES, MAX_FONTS_READ
from .layout.elements import ELEMENTS
from .layout.elements.base import COMMON, ROTATE, TEXT_STYLE
from .layout.layouts import LAYOUT_PARAMS
from .layout.budget import (BASE_PAGES, BASE_PIXELS, BASE_STEPS, CHARACTERS_PER_STEP, DASHES_PER_STEP, ICON_PAINTS,
                            PAGES_PER_FACE, PIXELS_PER_FACE, POINTS_PER_STEP, STEPS_PER_FACE, TEXT_CHARACTERS_PER_STEP,
                            TEXT_STEPS)
from .layout.resolve import CONTEXT as LAYOUT_CONTEXT, MAX_PRIMS, MAX_REPEAT
from .layout.styles import MAX_EXTENDS, OWN_KEYS
from .model.components import COMPONENT_FIELDS, ITEM_FIELDS, MAX_COUNT, MAX_GAME_COUNT
from .model.balance import BALANCE_FIELDS
from .simulate.api import api_reference
from .model.constraints import CONSTRAINT_FIELDS
from .model.views import VIEW_FIELDS
from .model.game import CONTEXT as GAME_CONTEXT, GAME_FILE
from .model.schema import Field, TYPES, make_field
from .model.tables import TABLE_FIELDS
from .options import COLOUR_RULE, Option
from .products import KINDS
from .export.services import SERVICES, product_for
from .units import MM, NAMED_SIZES

INTRO = """# pnp reference

Everything a designer writes for pnp, generated from pnp's own code (`pnp reference` prints it), so it is
always the truth for this version. A game is `cards/<game>/game.yaml` plus one YAML file per table, and
`layouts/<game>/`: one layout file per printed face, optional `text-styles.yaml` and `macros.j2`, and
`rulebook.md.j2`.

## Units

Every length is in **millimetres** unless a unit is written: `3`, `'3mm'`, `'0.5in'`, `'1cm'` and `'10pt'`
are all lengths. **Font sizes are in points.** Angles are in degrees, clockwise. Positions are measured from
the trim's top-left corner, x to the right and y down. No length is over 2000 mm.

Every string value in a layout may be a Jinja template (`"{{ card.name }}"`), rendered for each item and then
read as its parameter's type; a template that gives nothing means the parameter's default.
"""


def _doc(obj: object) -> str:
    doc = inspect.getdoc(obj)
    return " ".join(doc.split()) if doc else ""


def _row(*cells: object) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def _option_table(options: Mapping[str, object]) -> str:
    """The one table of options, whatever they are: layout parameters, or game.yaml keys given as field specs
    (each made into its field type). Each option says its own row and the table's columns."""
    made = [(name, option if isinstance(option, Option) else make_field(option, {})) for name, option in options.items()]
    header = made[0][1].REFERENCE_HEADER
    return "\n".join([_row(*header), _row(*["---"] * len(header))] + [_row(*o.reference_row(n)) for n, o in made])


def _game_file() -> str:
    out = ["## game.yaml", "", "The game's metadata, rules model and manifest. Its own shape is checked like the "
           "data: a wrong key or value is an error with its line.", "", _option_table(GAME_FILE), "",
           "### Tables", "", "Each entry of `tables:` names a table and says where its items are and what they hold.",
           "", _option_table(TABLE_FIELDS), "", "### Constraints", "",
           "Rules the data must keep. The expression sees the whole game (see Templates); with `each` it is "
           "checked once per item.", "", _option_table(CONSTRAINT_FIELDS), "", "### Report views", "",
           "`pnp report` charts every table's fields and lists each constraint's margin; each entry of `report:` "
           "adds one chart of the designer's choosing. Its table and fields must exist (derived fields count), "
           "and a field charted as a number must hold numbers.", "", _option_table(VIEW_FIELDS), "",
           "### Balance rules", "",
           "Rules over what `pnp simulate` measures by playing the game with its cards/<game>/rules.py; validate "
           "checks their syntax, pnp simulate their truth. An expression sees the game (as constraints do) and "
           "`sim`: `sim.games`, `sim.seat_win_rate[i]`, `sim.agent_win_rate.AGENT`, `sim.matchup.A.B` (how often "
           "A did better than B), `sim.end_share.REASON`, `sim.end_share_among['a,b'].REASON` (in the games "
           "seating exactly those agents), `sim.turns` (mean); with `each: TABLE` (a table rules.py tracks in "
           "ITEMS, else the rule fails) also `item`: "
           "`item.id`, `item.name`, `item.seats`, each event's rate by its name (`item.taken`, `item.played`, "
           "`item.effective`, a game's own; `item.when_taken.EVENT` among the seats that took it), "
           "`item.win_taken`, `item.win_not_taken`, `item.gap` (their difference).", "",
           "Every rate is measured with its 95% interval (`x.low`, `x.high`, and `x.n` games or seats; the gap's by "
           "Newcombe's method) and a rule is judged on it, so it fails only when the evidence says so: `x >= a` "
           "fails only when the whole interval is below a (x.high < a), `x <= a` only when it is above (x.low > "
           "a); `<` and `>` alike. `==`, `!=` and arithmetic use the estimate; a rate with nothing measured (n 0) "
           "holds every ordering. Write a rule as what must hold (`x >= a`, not `not x < a`). A failing rule's "
           "message shows the value, its interval, the limit and the margin from the interval's end.", "",
           _option_table(BALANCE_FIELDS), "",
           "### Rules for pnp simulate", "", *api_reference(), "",
           "### Components", "",
           f"What is in the box, in order. Every component takes these keys (a component prints at most "
           f"{MAX_COUNT:,} items, and a game {MAX_GAME_COUNT:,} in all, copies counted):", "", _option_table(COMPONENT_FIELDS), "",
           "Components whose kind prints one face per item take these too:", "", _option_table(ITEM_FIELDS), "",
           "Each kind's own keys are listed under Component kinds."]
    return "\n".join(out)


def _field_types() -> str:
    out = ["## Field types", "", "The type of each field of a table (`fields:` in game.yaml), with the options "
           "it takes besides those every field takes:", "",
           _row("option", "meaning"), _row("---", "---")]
    out += [_row(f"`{k}`", v) for k, v in Field.OPTIONS.items()]
    for name, cls in TYPES.items():
        own = {k: v for k, v in cls.OPTIONS.items() if k not in Field.OPTIONS}
        out += ["", f"### `{name}`", "", _doc(cls)]
        if own:
            out += ["", _row("option", "meaning"), _row("---", "---")] + [_row(f"`{k}`", v) for k, v in own.items()]
    return "\n".join(out)


def _kinds() -> str:
    out = ["## Component kinds", "", "`kind:` of a component, in the order the all-in-one PDF prints them. Each "
           "kind's PDF is `<game>-<part>-<paper>.pdf`."]
    for name, kind in KINDS.items():
        out += ["", f"### `{name}`", "", _doc(type(kind)), "", f"PDF part: `{kind.file_part}`."]
        own = {k: v for k, v in kind.component_keys.items() if k not in ITEM_FIELDS}
        if set(ITEM_FIELDS) <= set(kind.component_keys):
            out += ["", "Takes `items`, `filter` and `quantity`."]
        if own:
            out += ["", "Its own keys in game.yaml:", "", _option_table(own)]
        if kind.layout_options:
            out += ["", "Its layouts also take:", "", _option_table(kind.layout_options)]
        for part, title, _ in kind.extra_files():
            out += ["", f"Also writes `<game>-{part}.pdf`: {title}."]
    return "\n".join(out)


def _sizes_table() -> str:
    rows = ["### Named sizes", "", "`size:` may name one of these (width x height, portrait; a layout turns one "
            "by giving `[h, w]`). Decks and aids are imposed as many to a sheet as fit, cards turned a quarter when "
            "that fits more.", "", "| name | mm | inches | print services | what |", "| --- | --- | --- | --- | --- |"]
    for name, s in NAMED_SIZES.items():
        inches = f"{s.inches[0]:g} x {s.inches[1]:g}" if s.inches else ""
        services = ", ".join(f"{k}: {product.name}" for k in SERVICES  # as the exports match it: one truth
                             if (product := product_for(k, (s.w * MM, s.h * MM))) is not None)
        rows.append(f"| `{name}` | {s.w:g} x {s.h:g} | {inches} | {services} | {s.doc} |")
    return "\n".join(rows)


def _layouts() -> str:
    return "\n".join([
        "## Layout files", "", "A layout is `layouts/<game>/NAME.yaml` (or `layouts/shared/NAME.yaml`): one printed "
        "face, of a named size (below) or `[w, h]`.", "", _option_table(LAYOUT_PARAMS), "", _sizes_table(), "",
        "## Text styles", "", "`layouts/<game>/text-styles.yaml` (and `layouts/shared/text-styles.yaml`, which a game's own "
        "styles override) names text styles: `title: {font: Display, size: 12, color: '#222'}`. A text element "
        f"uses one with `style: title`; its own settings win. A style may set {', '.join(f'`{k}`' for k in TEXT_STYLE)}, "
        f"and {' and '.join(f'`{k}`' for k in OWN_KEYS)} (`extends: other` builds on another style, {MAX_EXTENDS} deep at most)."])


def _fonts() -> str:
    return "\n".join([
        "## Fonts", "", "pnp embeds its own fonts (Source Sans Pro as `Body`, Averia Serif GWF as `Display`). A "
        "project with a `fonts/fonts.yaml` (spelt so: a `Fonts.yaml` or `fonts.yml` is refused) uses its fonts instead: under `families:`, each family is the name text "
        "styles give as `font:` (`Body` and `Display` at least, which the shipped layouts use) and says:", "",
        _option_table(FAMILY_FIELDS), "", "```yaml", "families:", "  Body:", "    name: Source Sans Pro",
        "    regular: SourceSansPro/SourceSansPro-Regular.ttf", "    bold: SourceSansPro/SourceSansPro-Bold.ttf",
        "    license: SourceSansPro/OFL.txt", "```", "",
        f"Font files are TrueType (.ttf), inside the project, at most {MAX_FONT_BYTES // 2**20} MB each; at most "
        f"{MAX_FAMILIES} families, and {MAX_FONTS_READ // 2**20} MB of font files in all (a file counted for each "
        "family and style naming it). A variable font prints its default instance alone, a font collection (.ttc) "
        "its first font: one named as a style that face is not (a bold whose weight is under 600, an italic that is "
        "upright) is refused."])


def _elements() -> str:
    out = ["## Elements", "", "Each entry of a layout's `elements:` has a `type`. Every element takes these:", "",
           _option_table(COMMON), "", f"A repeated element makes 0 to {MAX_REPEAT:,} copies, and one layout draws "
           f"at most {MAX_PRIMS:,} shapes for an item. A game's drawing, in one command, has a budget of "
           f"{BASE_STEPS:,} steps and {STEPS_PER_FACE:,} more per face it prints, each face's own (what a face "
           f"spends past them, and the rulebook, spend the {BASE_STEPS:,}) (a step: an element or copy "
           f"resolved (a grid's, track's or hexgrid's cell too), a shape made or painted and {POINTS_PER_STEP} "
           f"corners of its outline, each fill or stroke of an icon past its first {ICON_PAINTS}, "
           f"{CHARACTERS_PER_STEP} characters of text made, {TEXT_STEPS} per text painted and one per "
           f"{TEXT_CHARACTERS_PER_STEP} of its characters or each change of font, icon or line break in it, "
           f"{DASHES_PER_STEP} dashes of a dashed outline; a distinct "
           "face's painting is counted when the game is checked, as often as the build paints it (a board twice: "
           "on its sheets and at full size), so validate, build, export and the preview agree); past it, the game stops "
           "with one message at the element that spent it (inside a `use`, the used layout's element, and the use "
           f"that draws it). Its pictures may have {BASE_PIXELS:,} pixels decoded, "
           f"resampled and embedded, and {PIXELS_PER_FACE:,} more per face (each picture is decoded once); past it, "
           "one message where the picture that crossed it was asked for. A build's kit has at most "
           f"{BASE_PAGES:,} pages and {PAGES_PER_FACE:g} more per face printed (copies counted); validate foresees a "
           "board's tiles and pages, so too many copies of one are refused at its `copies` before a page is drawn. "
           "Elements that can "
           "turn also take:", "", _option_table(ROTATE),
           "", "A parameter an element does not take, or that does not apply to how it is written, is an error."]
    for name, element in ELEMENTS.items():
        turns = " It can turn (`rotate`)." if element.rotates else ""
        out += ["", f"### `{name}`", "", _doc(type(element)) + turns, "", _option_table(element.params)]
    return "\n".join(out)


def _templates() -> str:
    filters = [_row(f"`{name}`", _doc(f)) for name, f in template.OWN_FILTERS.items()]
    out = ["## Templates", "", "Templates are Jinja, in a sandbox: they read the game and cannot change it or "
           "reach Python. Every template and expression sees:", "", _row("name", "what"), _row("---", "---")]
    out += [_row(f"`{k}`", v) for k, v in GAME_CONTEXT.items()]
    out += ["", "A layout's templates also see:", "", _row("name", "what"), _row("---", "---")]
    out += [_row(f"`{k}`", v) for k, v in LAYOUT_CONTEXT.items()]
    out += ["", "Besides Jinja's own filters, pnp adds:", "", _row("filter", "what"), _row("---", "---")] + filters
    out += ["", "and the functions `max`, `min`, `abs`, `round`, `sorted`, `len`, `sum` and `range`. Jinja's "
            "`random` filter is refused, since the same data must print the same bytes on every build. Jinja's test "
            "`sameas` (one object in memory) is refused on a text or number, which are never reliably one: compare "
            "with `==`. `batch` and `slice` take a count of at least 1, `wordwrap` a width of at least 1, `truncate` "
            "a length at least its end's, `int` a base from 2 to 36 (or 0), `dictsort` a `by` of `key` or `value`, `round` a "
            "`method` of `common`, `ceil` or `floor`; `map`, `selectattr`, `rejectattr` and `groupby` a field's name, "
            "never none (a variable holding the name, left out); a number a filter, `range`, `round` or a text "
            "method counts with (`truncate`'s length, `center`'s width) is a whole number: `truncate(1 / 3)` is "
            "refused at its line; so is a number or none given a filter of items (`5 | join`). A value that "
            "is none (an optional field left out) is refused where it would become the word 'None': printed by `{{ }}`, "
            "joined with `~` or `join`, given to a %-format, `.format()` or a text filter (`upper`, `string`...), and so "
            "inside a list or a mapping a template makes and writes so (`{{ [card.friend] }}`; `tojson` writes none "
            "as null, `pprint` as None, and an item printed whole, its fields left out as None): print `x or ''`, or draw the element only `when: x`. The filters that write HTML (`e`, `escape`, "
            "`forceescape`, `urlize`, `xmlattr`) are for the rulebook, whose Markdown reads it; elsewhere (a card's "
            "text, a message) their `&amp;` would print as written, and they are refused, as `{% autoescape %}` is. "
            "Jinja's `int` and `float` read a value that is no number (words, a list) as 0; pnp refuses it unless a "
            "default is given (`cost | int(0)`). `round`, the function and the filter, rounds halves away from zero, "
            "on the decimal written: `2.5 | round` is 3.0, `round(0.125, 2)` is 0.13 and `2.675 | round(2)` is 2.68 "
            "(Python's own rounds halves to even, and 2.675 down); the filter's `ceil` and `floor` work on the "
            "decimal written too. Formats round as `round` does: `'%.2f' | format(2.675)`, `'%.2f' % 0.125` and "
            "`'{:.2f}'.format(2.675)` print 2.68, 0.13 and 2.68 (%f, %e, %g and their `.format` kinds alike). A "
            "number worked out by a template prints with at most "
            f"{template.PRINTED_DIGITS} significant digits, without the noise of binary fractions: `{{{{ 0.1 + 0.2 }}}}` "
            "prints 0.3 and `{{ 2 / 3 }}` 0.666666666667, and so by `string`, `join`, `%s` and `'{}'.format`, "
            "and inside a list, a mapping, its `items()` or an item printed whole (`{{ [0.1 + 0.2] }}`, `tojson`, "
            "`pprint`; keys that would print alike print in full); "
            "whole numbers, and numbers as written in the game's files, print as they are. `tojson` writes an item "
            "as a mapping. A filter or a method given values it does not take says how it is written (`x | lookup(mapping)`, `'a'.count()`). "
            "Values of no order (`[1, 'a'] | sort`, `1 < 'a'`, `0 < x < 'a'`, `max`), `in` of none, a number, or text "
            "asked for no text (`'x' in card.friend`, `1 in card.name`), text summed, a filter's or a text method's "
            "value of another kind (`trim(5)`, `truncate(end=5)`, `'abc'.count(5)`), and a format that does not fit "
            "its values (`'a' | format(5)`, `'{:q}'.format(1)`) are refused at their line, saying which values; "
            "`urlencode` takes text, a mapping or a list of (key, value) pairs. "
            "A text compared with an item's field of enum values (`==`, `!=`, `in` a list written out, in a layout, "
            "a layout a `use` draws for an item, a macro given an item (and a macro it gives it to), a derived "
            "field, a component's `filter` or a constraint; the item by its name, a name set to it "
            "(`{% set c = card %}`, `{% for c in [card] %}`, a `{% call(c) %}` block given it by `caller(card)`, or by `caller(x)` in a macro of macros.j2 given the item as `x`, its field by `caller(x.kind)`) or "
            "to its field (`{% set k = card.kind %}`), or an item of a table, `ref.cards.lion` or `data.cards[0]`) must be one of "
            "its values: `card.kind == 'Beast'` where kind's values are beast and bird is refused at its line, "
            "since it is false for every card; so must one a table's field is picked by (`data.cards | "
            "selectattr('kind', 'eq', 'Beast')`, `ref.cards.values() | ...`, `rejectattr`, `select` or `reject` "
            "after `map(attribute='kind')`, `in` that map).", "",
            "Of Python's own methods, templates may call only these, each cheap and bounded (any other, "
            "`'x'.encode()` or `[1].copy()`, is refused at its line; a game's fields win over them: "
            "`card.items` is the field `items` when the card has one):", "", _row("on", "methods"),
            _row("---", "---")]
    out += [_row(kind.name, ", ".join(f"`{name}`" for name in sorted(kind.offered)) or "none")
            for kind in template.METHOD_KINDS]
    out += ["",
            "Limits, so that no mistake hangs a build: a text or list of at most "
            f"{template.MAX_STRING:,} characters or items (a list's lists counted as often as it holds them), lists "
            f"and mappings (their views and groups too) built inside one another at most {template.MAX_BUILT_DEPTH} "
            "deep, and namespaces so when printed, a "
            f"`range` of at most {template.MAX_ITEMS:,} numbers, a number written of at most about 1,200 digits "
            "(none computed past the largest float: no `inf` or `nan`), "
            f"macros nested at most {template.MAX_CALL_DEPTH} deep, {template.SECONDS_PER_EVALUATION:g} s for one "
            f"template, and {template.SECONDS_PER_GAME:g} s and {template.MAX_MEMORY_GROWTH >> 20:,} MB for all of a "
            "game's templates in one validation and build (when they run out, the game stops there with one "
            f"message); a template's source of at most {template.MAX_SOURCE:,} characters and "
            f"{template.MAX_TOKENS:,} names, operators and tags, nested at most {template.MAX_NESTING} deep."]
    return "\n".join(out)


def reference() -> str:
    """The whole reference as Markdown."""
    return "\n\n".join([INTRO.strip(), "## Colours", COLOUR_RULE, _game_file(), _field_types(), _kinds(), _layouts(), _fonts(), _elements(),
                        _templates()]) + "\n"
