"""The YAML loader: marks on every value, and refusal of anything that is not plain data."""

import re

import pytest

from conftest import make_project, run
from pnp.errors import LoadError
from pnp.model.load import MAX_TEXT_LINES_READ, Record, field_holding, load_text, shown


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


def test_an_alias_of_an_anchored_null_is_that_null_not_a_recursion():
    """`&none ~` names the value null; it was taken for an anchor whose collection is still being read."""
    data = load_text("a: &none ~\nb: *none\nc: &l [1]\nd: *l\n", "f.yaml")
    assert data["b"] is None and list(data["d"]) == [1]


def test_alias_bomb_is_refused_quickly():
    rows = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    rows += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    with pytest.raises(LoadError, match="alias bomb"):
        load_text("\n".join(rows), "bomb.yaml")


def test_an_enum_of_many_values_checks_an_item_without_reading_them_all():
    # each value was compared with every one of the enum's, and a wrong one's message listed them all: a list of
    # 20,000 values (an alias of game.yaml's) named by 60,000 items, a list aliased on every card, took minutes
    import time

    from pnp.model.schema import make_field

    field = make_field({"type": "enum", "values": [f"v{i}" for i in range(5_000)] + [1, True]}, {})

    class Checker:
        @staticmethod
        def suggest(word: object, choices: object) -> str:
            return ""

    start = time.perf_counter()
    problems = [p for _ in range(2_000) for v in ("v4999", 1, True) for p in field.check(v, None, Checker())]
    wrong = [message for v in ("w", 1.0, [1], "1") for message, _ in field.check(v, None, Checker())]
    assert problems == [] and time.perf_counter() - start < 1
    assert len(wrong) == 4 and all(len(message) < 200 for message in wrong) and "the value 1 is a whole number" in wrong[3]


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


@pytest.mark.parametrize("text, where", [
    ("- " + "[" * 3000, "1:102"),  # libyaml reads this line ahead and has a depth cap of its own
    ("a: 1\nb: 'x[[['\nc: " + "[" * 3000, "3:103"),  # brackets in quotes do not count
    ("- ééé: " + "{a: " * 3000, "1:400"),  # columns count characters
    ("- [\n" + "[\n" * 3000, "100:1"),
    ("".join(" " * i + "a:\n" for i in range(200)), "101:101"),
])
def test_nesting_is_refused_where_it_passes_pnps_limit(text, where):
    with pytest.raises(LoadError) as e:
        load_text(text, "f.yaml")
    assert e.value.message == "lists and mappings nested more than 100 deep"
    assert str(e.value.mark) == f"f.yaml:{where}"


@pytest.mark.parametrize("text", [
    "1" + ":2" * 2200,  # base 60: PyYAML's reading takes minutes when long
    "1" + ":2" * 2200 + ".5",
    "0x" + "f" * 3600,  # 4,335 decimal digits in 3,600 characters
    "0b" + "1" * 4200 + "1" * 10000,
    "-0x" + "f" * 3600,
    "1" * 4301 + ".5",
])
def test_numbers_of_too_many_digits_are_refused_in_any_notation(text):
    with pytest.raises(LoadError) as e:
        load_text(f"name: {text}", "f.yaml")
    assert e.value.message == "a number of more than 4,300 digits cannot be read"
    assert str(e.value.mark) == "f.yaml:1:7"


@pytest.mark.parametrize("text, refused", [
    ("1" + ":2" * 100_000, True), ("1" + ":59" * 100_000 + ".5", True), ("-1" + ":0" * 100_000, True),
    ("1" + ":2" * 100_000 + ":60", False), ("1" + ":2" * 100_000 + ":x", False), ("1" + ":2::3" * 100_000, False),
    ("1" + ":123" * 100_000, False)])
def test_a_long_base_60_number_is_resolved_without_its_repeated_parts(text, refused, monkeypatch):
    # PyYAML's base-60 patterns spend memory for each ':' they repeat over (10 million: 1.3 GB, 8-16 s): what
    # it is given holds at most three, read as the whole would be (a number refused as too long, or text)
    from pnp.model import load
    given: list[str] = []
    resolve = load._Loader.resolve
    monkeypatch.setattr(load._Loader, "resolve", lambda self, kind, value, implicit:
                        given.append(value) or resolve(self, kind, value, implicit))
    if refused:
        with pytest.raises(LoadError, match="a number of more than 4,300 digits"):
            load_text(f"name: {text}", "f.yaml")
    else:
        assert load_text(f"name: {text}", "f.yaml")["name"] == text
    assert max(value.count(":") for value in given) <= 3


@pytest.mark.parametrize("text", ["2001-13-01", "1" + ":59" * 200 + ".5"])
def test_a_number_or_date_that_cannot_be_read_names_its_cell(text):
    with pytest.raises(LoadError) as e:
        load_text(f"a: [x, {text}]", "f.yaml")
    assert e.value.message == f"{shown(text)} is written as a number, date or yes/no but is not one; quote it to keep " \
                              "it as text"
    assert str(e.value.mark) == "f.yaml:1:8"


def test_yaml_1_1_value_and_merge_words_are_text_outside_a_merge():
    data = load_text("a: =\nb: <<\nc: [<<, =]\nbase: &b {x: 1}\nd: {<<: *b, y: 2}\n", "f.yaml")
    assert (data["a"], data["b"], data["c"]) == ("=", "<<", ["<<", "="])
    assert dict(data["d"]) == {"x": 1, "y": 2}


def test_numbers_in_other_notations_still_read():
    data = load_text("a: 0x1F\nb: !!int 1:30\nc: 0b101\nd: 1.5e+3\ne: 2001-01-02\nf: 1_000\ng: !!int 010\n"
                     "h: '010'\ni: 0o10\nj: 010.5\n", "f.yaml")
    assert [data[k] for k in "abcdfghij"] == [31, 90, 5, 1500.0, 1000, 8, "010", "0o10", 10.5]
    assert str(data["e"]) == "2001-01-02"


@pytest.mark.parametrize("written, reading", [
    ("010", "the octal number 8"), ("-07", "the octal number -7"), ("0_10", "the octal number 8"),
    ("1:30", "the base-60 number 90"), ("190:20:30", "the base-60 number 685230"),
    ("1:30.5", "the base-60 number 90.5"), ("[x, 1:30]", "the base-60 number 90")])
def test_a_plain_number_yaml_11_reads_otherwise_is_refused_at_its_place(written, reading):
    # YAML 1.1 reads these otherwise than a designer means them (a count of 010 would be 8): refused, not changed
    with pytest.raises(LoadError) as caught:
        load_text(f"id: c1\ncount: {written}\n", "f.yaml")
    column = 8 + (written.index("1:") if written.startswith("[") else 0)
    assert str(caught.value) == (f"f.yaml:2:{column}: {shown(written.strip('[x, ]'))} is read by YAML as {reading}; "
                                 "write the number in decimal, or quote it to keep it as text")



def test_a_games_data_files_share_one_allowance_of_values(tmp_path, monkeypatch):
    # each file under its own cap, together far more than validating in a few seconds allows (55,000 cards over
    # several files took over 8 s): the file passing the game's allowance is refused at the line where it does,
    # whether parsed now or kept from an earlier load of the same bytes; the allowance is made small here
    from pnp.model import load
    monkeypatch.setattr(load, "MAX_GAME_VALUES", 2500)  # game.yaml counts 463, each file 1,301
    items = "".join(f"- {{id: c{i}, name: N, kind: beast, power: 4}}\n" for i in range(50))  # 26 values each
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": items,
                                            "cards/mini/more.yaml": items.replace("id: c", "id: d")},
                        case={"replace": {"cards/mini/game.yaml": [["  cards:\n", "  cards:\n    files: [cards.yaml, more.yaml]\n"]]}})
    for _ in range(2):  # the second run in this process finds both files' parses kept
        result = run(root, "validate")
        assert result.exit_code == 1
        said = [ln for ln in result.stderr.splitlines() if "values with the game's other data files" in ln]
        assert len(said) == 1 and re.match(r"cards/mini/more\.yaml:\d+:\d+: error: YAML data expands to more than "
                                           r"2,500 values with the game's other data files", said[0]), result.stderr


def _as_written(value: object) -> object:
    """A parsed value with where each part of it was written (every mark), for comparing two parses."""
    from pnp.model.load import MarkedList

    if isinstance(value, Record):
        return "map", str(value.mark), [(k, str(value.key_mark(k)), str(value.mark_of(k)), _as_written(value[k]))
                                        for k in value]
    if isinstance(value, MarkedList):
        return "list", str(value.mark), [str(m) for m in value.marks], [_as_written(v) for v in value]
    return type(value).__name__, value


CARDS = "# cards\n- id: a\n  power: 1\n  text: |\n    one\n\n- {id: b, power: 2}\n- id: c\n  tags: [x, y]\n"


@pytest.mark.parametrize("old, new, spliced", [
    ("power: 2", "power: 3", 1),  # an item's value, in a flow mapping
    ("    one", "    one two", 1),  # a block text's line
    ("power: 1", "power: [1, 2]", 1),
    ("tags: [x, y]", "tags: [x,\n    y]", 0),  # a line more: the items below it move
    ("# cards", "# decks", 0),  # above the first item
    ("  power: 1", "power: 1", 0),  # a line at the start of the line: a key of the file, not of the item
    ("  power: 1", "- power: 1", 0),  # an item more
    ("    one", "...", 0),  # a document's end
    ("  power: 1", "  power: &p 1", 0),  # an anchor another item's alias may read
    ("power: 1", "power: [1", 0),  # malformed: the whole file's parse says where
])
def test_an_edit_within_one_item_parses_that_item_alone(old, new, spliced):
    """ParsedFiles: a save that changes one item of a file's list, its lines as many, parses that item's lines
    alone and keeps the other items' parses; the result (values, marks, the values counted) or the refusal is
    the whole file's parse's."""
    from pnp.model.load import MAX_GAME_VALUES, ParsedFiles, _ALLOWANCE, values_allowance

    def loaded(parsed: ParsedFiles, text: str) -> tuple:
        with values_allowance():
            try:
                value = parsed.load(text.encode(), "cards.yaml")
            except LoadError as e:
                return None, str(e)
            return value, (_as_written(value), MAX_GAME_VALUES - _ALLOWANCE.get()[0])

    parsed = ParsedFiles()
    first, _ = loaded(parsed, CARDS)
    edited = CARDS.replace(old, new, 1)
    assert edited != CARDS
    value, seen = loaded(parsed, edited)
    assert parsed.spliced == spliced
    assert seen == loaded(ParsedFiles(), edited)[1]
    if spliced:
        assert sum(a is b for a, b in zip(value, first)) == len(first) - 1  # the other items' parses kept


def test_an_edit_is_not_spliced_into_a_file_with_anchors():
    """An alias in one item reads an anchor in another: a file with anchors is parsed whole at every edit."""
    from pnp.model.load import ParsedFiles, values_allowance

    text = "- id: a\n  power: &p 1\n- id: b\n  power: *p\n  name: B\n"
    parsed = ParsedFiles()
    with values_allowance():
        parsed.load(text.encode(), "cards.yaml")
        value = parsed.load(text.replace("name: B", "name: C").encode(), "cards.yaml")
    assert parsed.spliced == 0 and value[1]["name"] == "C" and value[1]["power"] == 1


def test_an_edit_is_spliced_only_into_a_parse_still_kept():
    """The bytes an edit is compared with are held while their parse is (ParsedFiles' bounds hold them too)."""
    from pnp.model.load import ParsedFiles

    parsed = ParsedFiles()
    parsed.MAX_BYTES = len(CARDS) + 50
    parsed.load(CARDS.encode(), "cards.yaml")
    parsed.load(b"- id: x\n  text: " + b"y" * len(CARDS) + b"\n", "other.yaml")  # the cards' parse let go
    assert "cards.yaml" not in parsed._last
    value = parsed.load(CARDS.replace("power: 2", "power: 3").encode(), "cards.yaml")
    assert parsed.spliced == 0 and value[1]["power"] == 3


def test_a_derived_field_reading_other_items_sees_the_fields_declared_before_it_on_every_item(tmp_path):
    """Derived item by item, a field reading another item's derived field found it on the items before alone:
    'how many cards are strong' was 0, 1, 1, 2 on four cards (the lion, strong itself, said 0) with exit 0."""
    from pnp.model.game import load_game
    from pnp.products import component_keys
    from pnp.project import Project
    from pnp.report import Report

    count = "data.cards | map(attribute='strong', default=false) | select | list | length"
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [['strong: "item.power >= 4"', f'strong: "item.power >= 4"\n      many: "{count}"']],
        "cards/mini/cards.yaml": [["power: 3", "power: 5"]]}})
    project = Project(root.resolve())
    report = Report(project.root)
    game = load_game(project, "mini", report, component_keys())
    assert not report.errors
    assert [(card["id"], card["many"]) for card in game.tables["cards"]] == \
        [("lion", 2), ("fern", 2), ("wolf", 2), ("moss", 2)]


def test_a_derived_field_holding_its_own_table_builds(tmp_path):
    """`everyone: data.cards` held the table that was then changed in place to hold the items carrying it: the
    table held itself, and the build ended in a RecursionError traceback writing an item out (validate said
    ok). Each derived field is given to a new list: the value keeps the items it was computed from."""
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [['strong: "item.power >= 4"',
                                  'strong: "item.power >= 4"\n      everyone: "data.cards"\n      all: "data"\n      ids: "ref"']]}})
    result = run(root, "build")
    assert result.exit_code == 0, result.output
    assert (root / "output" / "mini" / "mini-a4.pdf").exists()


def test_a_ref_fields_table_ids_are_gathered_once_per_check_not_per_item(tmp_path, monkeypatch):
    """Each item's ref check gathered its table's ids again and looked through them all: 5,000 cards naming one
    another took 8 s to load (10,000: 48 s to validate). Counted here: the ids of a 400-card table are gathered
    once per check of the game, however many items name it; an unknown id is still refused at its line."""
    from pnp.model import game as game_module

    made = []
    real = game_module.TableIds.__init__

    def counted(self, ids):
        made.append(1)
        real(self, ids)

    monkeypatch.setattr(game_module.TableIds, "__init__", counted)
    cards = "".join(f"- {{id: c{i}, name: C{i}, kind: beast, power: 1, friend: c{(i + 1) % 400}}}\n" for i in range(400))
    root = make_project(tmp_path / "proj", case={"files": {"cards/mini/cards.yaml": cards + "- {id: x, name: X, kind: beast, "
                                                                                     "power: 1, friend: c9999}\n"},
                                                  "replace": {"cards/mini/game.yaml": [["data.cards | length == 4", "true"]]}})
    result = run(root, "validate")
    assert "cards/mini/cards.yaml:401:" in result.output and "'c9999' is not an id in table 'cards'" in result.output, \
        result.output
    assert 1 <= len(made) <= 2, len(made)  # (the load's check, and the whole game's)


@pytest.mark.parametrize("written, accepted", [
    ("4", True), ("2-5", True), ("2 – 5", True), ("3+", True), (1, True), ("999", True),
    ("0", False), ("0-3", False), ("5-2", False), ("2.5", False), (2.5, False), ("two to four", False),
    ("-1", False), ("1000", False), ("2-1000", False), ("", False)])
def test_players_is_a_count_a_range_or_an_open_range_from_one(written, accepted):
    """game.yaml's `players` prints on the rulebook's title page ("0 players" passed) and seats the Tabletop
    Simulator table: each form said wrong is refused at its mark (the message with the file's line is the golden
    case players-not-a-count)."""
    from pnp.model.schema import PlayerCount
    from pnp.report import Mark

    mark = Mark("cards/g/game.yaml", 2, 10)
    problems = list(PlayerCount({}, {}).check(written, mark, None))
    assert (problems == []) is accepted
    assert all(where == mark for _, where in problems)


def test_the_enum_fields_of_a_table_are_read_from_its_schema_once(tmp_path, monkeypatch):
    """Each filter, derived field, constraint and layout asking for a table's enum fields made its Schema again."""
    from pnp.model import tables
    from pnp.model.game import load_game
    from pnp.products import component_keys
    from pnp.project import Project
    from pnp.report import Report

    project = Project(make_project(tmp_path / "proj").resolve())
    report = Report(project.root)
    game = load_game(project, "mini", report, component_keys())
    assert not report.errors

    def no_schema(*args, **kwargs):
        raise AssertionError("a Schema made again")

    monkeypatch.setattr(tables, "Schema", no_schema)
    assert tables.table_enums(game, "cards") == {"kind": ["beast", "plant"]}


def test_where_a_texts_lines_begin_is_read_within_a_bound():
    """Where the lines of texts written over several lines begin is kept for messages at a template's line
    (Mark.in_text): read for at most MAX_TEXT_LINES_READ of a file's lines, a `|` text's without reading (a 15 MB
    folded text of a line and a blank one took 40 s and 1.2 GB), the texts before the bound said at their line."""
    lines = MAX_TEXT_LINES_READ * 2
    text = "a: >\n  x\n\n  y\nb: |\n  p\n  q\nc: >\n" + "  z\n\n" * lines + "d: |\n  r\n  s\n"
    data = load_text(text, "f.yaml")
    assert [str(data.mark_of("a").in_text(n)) for n in (1, 2)] == ["f.yaml:2:1", "f.yaml:4:1"]
    assert str(data.mark_of("b").in_text(2)) == "f.yaml:7:1"
    assert len(data.mark_of("c").text_lines) <= MAX_TEXT_LINES_READ
    assert str(data.mark_of("c").in_text(3)) == "f.yaml:13:1"
    assert str(data.mark_of("d").in_text(2)) == f"f.yaml:{9 + 2 * lines + 2}:1"


class _Searched(str):
    """A printed text that counts the searches made in it."""

    searches = 0

    def __contains__(self, part: object) -> bool:
        type(self).searches += 1
        return super().__contains__(part)  # type: ignore[operator]


@pytest.mark.parametrize("printed, holding, searches", [
    ("word " * 1000, "text", 0),  # the field itself: compared, not searched
    ("Text: " + "word " * 1000, "text", 1),  # the field in a few more words
    ("word " * 3000, None, 0),  # the field is less than half of it: never searched
    ("word", None, 0),  # shorter than the field: never searched
])
def test_the_field_that_wrote_a_printed_text_is_found_without_searching_when_it_cannot_be_one(
        printed, holding, searches):
    # an alias prints one long text on every card: it was searched for in the card's printed text, its whole
    # length, on each (950,000 characters on 5,000 cards: 15 s of a validate before its refusals)
    _Searched.searches = 0
    item = Record({"name": "A name", "text": "word " * 1000, "note": "word " * 3000 + "!"})
    assert field_holding(item, _Searched(printed))[0] == holding
    assert _Searched.searches == searches


def test_derived_fields_copy_each_item_once_not_once_per_field(tmp_path, monkeypatch):
    """Each derived field was given to a new copy of every item, each copy holding the fields before it:
    10,000 derived fields of four cards took 30 s to validate (a quadratic). Counted here: 300 fields of
    plain values copy each item once; a field holding the table (`data.cards`) still copies every item, and
    what each field gives is on every item."""
    from pnp.model.game import load_game
    from pnp.products import component_keys
    from pnp.project import Project
    from pnp.report import Report

    from pnp.model.reads import Tracked

    copies = []
    for kind in (Record, Tracked):
        def counted(self, extra, mark=None, real=kind.with_values):
            copies.append(1)
            return real(self, extra, mark)

        monkeypatch.setattr(kind, "with_values", counted)
    fields = "".join(f'\n      d{i}: "item.power + {i}"' for i in range(300))
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [['strong: "item.power >= 4"', f'strong: "item.power >= 4"{fields}'
                                  '\n      everyone: "data.cards"\n      after: "item.d299 + 1"']]}})
    project = Project(root.resolve())
    report = Report(project.root)
    game = load_game(project, "mini", report, component_keys())
    assert not report.errors
    cards = game.tables["cards"]
    assert [(card["d299"], card["after"]) for card in cards] == [(card["power"] + 299, card["power"] + 300) for card in cards]
    assert "after" not in cards[0]["everyone"][0] and "d299" in cards[0]["everyone"][0]
    assert len(copies) <= 5 * len(cards), len(copies)  # (once, and for `everyone`, and elsewhere: not 300 times)
