"""Colours that tell players or categories apart, checked as players with colour-blindness see them: each
pair is compared under simulated deuteranopia, protanopia and tritanopia (colorspacious, in the CAM02-UCS
colour space) and flagged when the two look alike, unless every item carries a second cue (a pattern, an
emblem, a name) that the data declares."""

import itertools

from ..options import ColourError, rgb
from ..report import named
from .load import MarkedList, Record
from .shapes import CheckerShape, GameShape

COLOUR_SET_FIELDS = {
    "table": {"type": "str", "doc": "the table whose items the colours tell apart (players, terrains...)"},
    "field": {"type": "str", "default": "colour", "doc": "the field holding each item's colour (see Colours)"},
    "cue": {"type": "list", "of": "str", "default": [],
            "doc": "fields holding each item's second cue (a pattern, an emblem, an icon, a name) that its "
                   "pieces print besides the colour; with one, two colours may look alike"},
    "doc": {"type": "str", "required": False, "doc": "what the colours mean"},
}
# Colour-blindness the check simulates (colorspacious's names), and the words for it.
DEFICIENCIES = {"deuteranomaly": "deuteranopia (red-green, the most common)", "protanomaly": "protanopia (red-green)",
                "tritanomaly": "tritanopia (blue-yellow)"}
MIN_DIFFERENCE = 10  # CAM02-UCS delta E: below it two colours are hard to tell apart at the table


def check_colour_sets(game: GameShape, sets: MarkedList, chk: CheckerShape) -> None:
    for spec in sets:
        table = game.tables.get(spec["table"])
        if table is None:
            chk.error(f"colour set names no table '{spec['table']}'{chk.suggest(spec['table'], game.tables)}",
                      spec.mark_of("table"))
            continue
        items = [it for it in table if it.get(spec["field"]) is not None]
        if table and not items:  # a misspelt or empty field: every pair passed unchecked, silently
            fields = {key for item in table for key in item}
            chk.error(f"field {named(spec['field'])}: no item of {spec['table']} has it"
                      f"{chk.suggest(spec['field'], fields)}", spec.mark_of("field"))
            continue
        colours: dict[int, list[float]] = {}
        for item in items:
            try:
                colour = rgb(item[spec["field"]])
            except ColourError as e:
                chk.error(f"{spec['field']}: {e}", item.mark_of(spec["field"]))
                continue
            if colour is None:
                chk.error(f"{spec['field']}: a colour that tells {spec['table']} apart cannot be none",
                          item.mark_of(spec["field"]))
            else:
                colours[id(item)] = list(colour)
        _check_cues(spec, items, chk)
        if not spec["cue"]:
            _check_pairs(spec, [it for it in items if id(it) in colours], colours, chk)


def _check_cues(spec: Record, items: list[Record], chk: CheckerShape) -> None:
    """Each declared cue must exist on every item and differ from item to item. A cue no item has is said once,
    at the cue (`cue: ['']` or a misspelt field was said at every item, in the table's file)."""
    cues = spec["cue"]
    for index, cue in enumerate(cues):
        if items and all(item.get(cue) is None for item in items):
            fields = {key for item in items for key in item}
            chk.error(f"cue {named(cue)}: no item of {spec['table']} has it{chk.suggest(cue, fields)}",
                      cues.mark_of(index) if isinstance(cues, MarkedList) else spec.mark_of("cue"))
            continue
        seen: dict[str, object] = {}
        for item in items:
            value = item.get(cue)
            if value is None:
                chk.error(f"{spec['table']} are told apart by '{cue}' too, and this one has none", item.mark)
            elif repr(value) in seen:
                chk.error(f"{cue} '{value}' is also {seen[repr(value)]}'s: a second cue must differ from item to "
                          "item", item.mark_of(cue))
            else:
                seen[repr(value)] = item.get("id")


def _check_pairs(spec: Record, items: list[Record], colours: dict[int, list[float]], chk: CheckerShape) -> None:
    """Two colours that look alike under any simulated colour-blindness, with nothing else to tell them apart."""
    import colorspacious
    import numpy

    for deficiency, words in DEFICIENCIES.items():
        space = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
        seen = {id(it): numpy.clip(colorspacious.cspace_convert(colours[id(it)], space, "sRGB1"), 0, 1)
                for it in items}
        for a, b in itertools.combinations(items, 2):
            difference = float(colorspacious.deltaE(seen[id(a)], seen[id(b)], input_space="sRGB1"))
            if difference < MIN_DIFFERENCE:
                chk.error(f"{spec['table']} '{a.get('id')}' and '{b.get('id')}' look alike to players with {words} "
                          f"(colour difference {difference:.1f}, at least {MIN_DIFFERENCE} is needed): choose "
                          "colours further apart, or print a second cue on their pieces and name it in cue:",
                          b.mark_of(spec["field"]))
