"""The glossary: a game's keywords, statuses and timing words, each with its one rules text. Card text, aids and
the rulebook print a rule from here (`keyword('Paralyze').text`), and `[[Term]]` in any text names a term, so a
rule is said once and a term used but never defined is an error at its line."""

import re
import unicodedata
from collections.abc import Mapping

from ..errors import failed_at
from ..template import ExprError, evaluate
from .load import MarkedList, Record
from .shapes import CheckerShape, GameShape
from ..options import blank, control_problem, did_you_mean
from ..report import Mark, Suggest, named, printable, shortened, shown

# one character of a term's name as written: a backslash escape ('\*', as `| as_typed` writes a '*') is one, so a
# name of 60 characters or fewer is one escaped (a 58-character name with 10 stars was refused as past 60); a
# backslash before a bracket, or none, is one alone (each character read one way only: no backtracking)
_TERM_CHARACTER = r"(?:\\[^\[\]\n]|\\(?=[\[\]])|[^\[\]\n\\])"
TERM_IN_TEXT = re.compile(r"\[\[(" + _TERM_CHARACTER + r"{1,60})\]\]")
# `[[ ]]` around what no term can be named (nothing, or past 60 characters): printed as typed, brackets and all,
# where a term was meant ('[[' and a 61-character name passed validation without a word)
NOT_A_TERM = re.compile(r"\[\[(" + _TERM_CHARACTER + r"{61,}|)\]\]")
# a `[[...]]` as rich text reads it (draw.text's tokens, scanned left to right): the character after a backslash is
# no term's bracket, so '\[[Nope]]' prints '[[Nope]]' as typed (as documented, and as the rulebook reads it),
# though validate refused it as the undefined term 'Nope'; a line break is read in it, to say so (rich text prints
# '[[Not\nDefined]]' as typed, brackets and all, where the rulebook's Markdown joins the lines into one term's name)
_TERM_READ = re.compile(r"\\[\\*:\[]|\[\[((?:\\[^\[\]]|\\(?=[\[\]])|[^\[\]\\])*)\]\]")
TERM_FIELDS = ("name", "text")  # what every glossary table's items must have; `timing` is optional


# what a name may hold that prints nothing: a soft hyphen (unless its line breaks there) and the zero-width spaces
# and joiners
_UNSEEN = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")


def _key(name: str) -> str:
    """A term's name as defining it and naming it both look it up: whatever its case, its spaces (around it, and
    a run or a tab between its words, which print as one space), what in it prints nothing and the Unicode form its
    accents were typed in (a term defined as ' Roar', as 'Ro<U+00AD>ar' or 'Fierce<tab>beast', or as 'café' with
    'e' and an accent as a Mac saves it, was a second term beside 'Roar', 'Fierce beast' and 'café', printed alike
    in the glossary, where [[ Roar]] and [[café]] each named the other one)."""
    return " ".join(unicodedata.normalize("NFC", _UNSEEN.sub("", name)).split()).casefold()


class Glossary:
    """The terms of the glossary tables, found by name or id whatever the case."""

    def __init__(self, tables: tuple[str, ...] = ()) -> None:
        self.tables = tables
        self.entries: list[Record] = []  # in the order game.yaml names the tables, then their files
        self._by_key: dict[str, Record] = {}
        self._field_of: dict[str, str] = {}  # which field of its entry gave each key: "name" or "id"
        self._names: tuple[str, ...] = ()  # the entries' names, as names() last made them
        # what unknown() said of the texts met last, by the text, the terms it was checked against and the
        # suggester: an alias repeats one text on many items (a text of 50,000 terms on 5,000 cards was read anew on
        # each, minutes before a word)
        self._unknown: dict[tuple[str, int, Suggest], list[tuple[str, str]]] = {}

    def add(self, entry: Record) -> tuple[Record, str, str] | None:
        """Take a term; when it is defined twice, (the entry already holding its name or id, the field of that
        entry holding it, the field of `entry` that names it again): a name 'base-camp' beside the id base-camp
        was said to be defined at the other term's name, 'Base Camp', a line that does not hold it."""
        keys = {_key(entry[k]): k for k in ("id", "name") if isinstance(entry.get(k), str)}
        clash = next(((self._by_key[key], self._field_of[key], field) for key, field in keys.items()
                      if key in self._by_key), None)
        if clash is not None:
            return clash
        self.entries.append(entry)
        self._by_key.update(dict.fromkeys(keys, entry))
        self._field_of.update(keys)
        return None

    def find(self, term: str) -> Record | None:
        return self._by_key.get(_key(str(term)))

    def names(self) -> tuple[str, ...]:
        """The terms' names, made once (a suggestion for each of 6,000 unknown terms made them anew: 40 s)."""
        if len(self._names) != len(self.entries):
            self._names = tuple(e["name"] for e in self.entries)
        return self._names

    def unknown(self, text: str, suggest: Suggest = did_you_mean
                ) -> list[tuple[str, str]]:
        """(term, message) for each `[[Term]]` in text that the glossary does not define, and each `[[...]]`
        holding what no term can be named (it would print as typed), once each; `suggest` says a name it may have
        meant."""
        key = (text, len(self.entries), suggest)
        said = self._unknown.get(key)
        if said is None:
            if len(self._unknown) >= 64:
                self._unknown.clear()
            said = self._unknown[key] = list(dict.fromkeys(self._unknown_in(text, suggest)))
        return said

    def _unknown_in(self, text: str, suggest: Suggest) -> list[tuple[str, str]]:
        read = [found[1] for found in _TERM_READ.finditer(text) if found[1] is not None] if "[[" in text else []
        return [(term, f"'[[{printable(term)}]]' {self._not_defined(term, suggest)}") for term in read
                if TERM_IN_TEXT.fullmatch(f"[[{term}]]") and self.find(term) is None] + [
            (found, f"'[[{printable(shortened(found, 40))}]]' would be printed as typed: a term's name is 1 to 60 characters")
            for found in read if NOT_A_TERM.fullmatch(f"[[{found}]]")] + [
            (found, f"{named(f'[[{found}]]')} would be printed as typed, brackets and all: a term's name is written "
                    "on one line") for found in read if "\n" in found
            and TERM_IN_TEXT.fullmatch(f"[[{found.replace(chr(10), ' ')}]]")]

    def _not_defined(self, term: str, suggest: Suggest = did_you_mean) -> str:
        if not self.tables:
            return "is used, but game.yaml declares no glossary"
        return f"is not a term of the glossary ({', '.join(self.tables)}){suggest(term, self.names())}"

    def keyword(self, *given: object, **by_name: object) -> Record:
        """The entry of a term, for templates: `keyword('Paralyze').text` prints its one rules text. Given anything
        but one name, it says so in the template's words (it was Python's: 'Glossary.keyword() takes 2 positional
        arguments but 3 were given', and keyword(none) 'keyword('None')')."""
        values = [*given, *by_name.values()]  # (`term=` names it as well)
        unknown = sorted(set(by_name) - {"term"})
        if unknown:
            raise ValueError(f"keyword takes one term's name, as keyword('Paralyze'), and no {named(unknown[0])}")
        if len(values) != 1:
            raise ValueError(f"keyword takes one term's name, as keyword('Paralyze'); given {len(values)} values")
        term = values[0]
        if not isinstance(term, str):
            raise ValueError(f"keyword takes a term's name, as keyword('Paralyze'), not {shown(term)}")
        entry = self.find(term)
        if entry is None:
            raise ValueError(f"keyword({named(term)}): {named(term)} {self._not_defined(term)}")
        return entry


def load_glossary(game: GameShape, meta: Record, chk: CheckerShape) -> Glossary:
    """game.yaml's `glossary:` (a table, or a list of tables, whose items each have a name and a text) as a
    Glossary: the tables must exist and have those fields, and no term may be defined twice."""
    declared = meta.get("glossary")
    if declared is None:
        return Glossary()
    names = [declared] if isinstance(declared, str) else declared
    mark = meta.mark_of("glossary")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        chk.error("glossary is a table's name, or a list of table names", mark)
        return Glossary()
    glossary = Glossary(tuple(dict.fromkeys(n for n in names if n in game.tables)))
    for i, name in enumerate(names):
        if name in names[:i]:  # (each of its terms was said to be defined already, at its own line)
            chk.error(f"glossary names table {named(name)} twice: name each table once", mark)
            continue
        if name not in game.tables:
            chk.error(f"glossary: table '{name}' is not declared under tables:{did_you_mean(name, game.tables)}",
                      mark)
            continue
        kind = _term_fields_type(name, meta["tables"][name].get("fields"), mark, chk)
        if kind is not None:
            _add_terms(glossary, game.tables[name], chk, kind in _TEXT_TYPES)
    return glossary


def _term_fields_type(name: str, fields: object, mark: Mark | None, chk: CheckerShape) -> object:
    """The type glossary table `name` declares its terms' names of, or None (said) where its `fields` do not
    declare a name and a text, or declare the name of a type whose values are never text (its terms were left
    out of the glossary, and each [[7]] said to be no term of it)."""
    missing = [f for f in TERM_FIELDS if not isinstance(fields, Mapping) or f not in fields]
    if missing or not isinstance(fields, Mapping):
        chk.error(f"glossary: table '{name}' needs the field{'s' if len(missing) > 1 else ''} "
                  f"{' and '.join(missing)} (each term's name and its one rules text)", mark)
        return None
    kind = _name_type(fields["name"])
    said = _text_type_said(name, fields, mark, chk)  # a rules text of a number or a list printed as one ('[1]')
    if kind in _NEVER_TEXT:
        chk.error(f"glossary: table '{name}' declares its field 'name' as {shown(kind)}, and a term's name is "
                  "text, as [[Term]] names it: declare it {type: str}",
                  fields.mark_of("name") if isinstance(fields, Record) else mark)
        return None
    return None if said else kind


def _text_type_said(name: str, fields: Mapping[str, object], mark: Mark | None, chk: CheckerShape) -> bool:
    """Whether glossary table `name` declares its field `text` of a type whose values are never text (said):
    a term's one rules text is printed as rich text, and a number, a list or a mapping printed so as written."""
    kind = _name_type(fields["text"])
    if kind not in _NEVER_TEXT:
        return False
    chk.error(f"glossary: table '{name}' declares its field 'text' as {shown(kind)}, and a term's rules text is "
              "text, printed by cards, aids and the rulebook: declare it {type: text}",
              fields.mark_of("text") if isinstance(fields, Record) else mark)
    return True


_TEXT_TYPES = ("str", "text", "id", "icon", "timing")  # a field's types whose schema refuses any value but text
_NEVER_TEXT = ("int", "number", "bool", "list", "map", "record")  # those whose values are never text


def _name_type(spec: object) -> object:
    """The type a table's spec of its `name` field declares (str when it says none)."""
    return spec if isinstance(spec, str) else spec.get("type", "str") if isinstance(spec, Mapping) else None


def _add_terms(glossary: Glossary, items: MarkedList, chk: CheckerShape, text_typed: bool) -> None:
    for item in items:
        lacking = [f for f in TERM_FIELDS if item.get(f) is None]  # (left out of a field declared optional:
        if lacking:  # the term was lost unsaid, or its text failed where a template asked for it)
            chk.error("a glossary term has a name (which [[Term]] names it by) and its one rules text: "
                      f"{_shown_id(item)}has no {' and no '.join(lacking)}", item.mark)
            continue
        if not isinstance(item.get("name"), str):
            if not text_typed and "name" in item:  # (an enum's number: its table's schema takes it)
                chk.error(f"glossary term {shown(item['name'])} is no text: [[Term]] names a term by its text; "
                          "quote it, here and among its field's values", item.mark_of("name"))
            continue  # (else its table's schema reports it)
        if not TERM_IN_TEXT.fullmatch(f"[[{item['name']}]]") or len(item["name"]) > 60 or blank(item["name"]):
            chk.error(f"glossary term {item['name']!r} cannot be named in text as [[Term]]: a term's name is 1 to "
                      "60 characters, not only spaces, without [, ] or a line break", item.mark_of("name"))
            continue
        clash = glossary.add(item)
        if clash is not None:
            other, held_in, field = clash
            chk.error(f"glossary term {named(item[field])} is already defined at {other.mark_of(held_in)}"
                      f"{'' if held_in == 'name' else ' (as the id of ' + named(other.get('name')) + ')'}",
                      item.mark_of(field))


def _shown_id(item: Record) -> str:
    """'term <id> ' for a term with an id, else nothing: what names a term that has no name."""
    return f"term {shown(item['id'])} " if item.get("id") is not None else "this term "


def load_timings(game: GameShape, meta: Record, chk: CheckerShape) -> list[str] | None:
    """game.yaml's `timings:` (the turn structure's phases and other timing words): a list, or an expression
    over the data such as `data.turn | map(attribute='title') | list`, so the turn table stays the one source."""
    declared = meta.get("timings")
    if declared is None:
        return None
    mark = meta.mark_of("timings")
    timings = declared
    if isinstance(declared, str):
        if game.broken:  # computed from tables one of which did not load (its error said): every card's timing
            # was refused against the rest ("'Combat' is not a timing of the turn (Any time)", turn.yaml over
            # the game's values), errors at lines that had none
            return []
        try:
            timings = evaluate(declared, game.context())
        except ExprError as e:
            chk.error(f"timings: {e.message}", failed_at(mark, e))
            return []
    if not isinstance(timings, list) or not timings or not all(isinstance(t, str) for t in timings):
        chk.error("timings is a list of names (at least one), or an expression giving one", mark)
        return []  # reported here once; timing fields are not checked against it
    for timing in timings:  # (a list written in game.yaml was checked as it was read; one computed was not)
        problem = control_problem(timing, f"the timing {named(timing)}")
        if problem:  # a message lists the timings: raw, '\x02' and '\x03' forged the marks of a part pasted
            chk.error(f"timings: {problem}", mark)
            return []
    return list(timings)
