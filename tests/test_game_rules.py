"""The shipped games' rules models catch what a designer gets wrong, with file:line:col.

Each test copies one shipped game into a throw-away project, makes one realistic mistake in its data
and checks the message `pnp validate` prints and where it points.
"""

import re
import shutil

import pytest

from conftest import REPO, run, share_repo_assets


def shipped(tmp_path, game):
    root = tmp_path / "proj"
    shutil.copytree(REPO / "cards" / game, root / "cards" / game)
    shutil.copytree(REPO / "layouts" / game, root / "layouts" / game)
    share_repo_assets(root)
    return root


def edit(root, rel, old, new, count=1):
    """Replace `old` by `new` in a data file; returns the 1-based line of the first change."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, count), encoding="utf-8")
    return line


def edit_match(root, rel, pattern, new, line_offset=0):
    """Replace the first match of a regex in a data file; returns the line of the match (+ offset)."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    m = re.search(pattern, text)
    assert m, f"{pattern!r} not in {rel}"
    path.write_text(text[: m.start()] + new + text[m.end():], encoding="utf-8")
    return text[: m.start()].count("\n") + 1 + line_offset


def line_of(root, rel, fragment):
    text = (root / rel).read_text(encoding="utf-8")
    return text[: text.index(fragment)].count("\n") + 1


def errors(root, game):
    result = run(root, "validate", game)
    assert "Traceback" not in result.output
    assert result.exit_code == 1, result.output
    return [ln for ln in result.stderr.splitlines() if ": error: " in ln]


def find(lines, where, fragment):
    hits = [ln for ln in lines if ln.startswith(where) and fragment in ln]
    assert hits, f"no error at {where} containing {fragment!r} in:\n" + "\n".join(lines)
    return hits[0]


# --- DinoSpan ---------------------------------------------------------------------------------------

def test_dinospan_wrong_era_count(tmp_path):
    root = shipped(tmp_path, "dinospan")
    block = "  era: Triassic\n"
    edit(root, "cards/dinospan/dinosaurs-triassic.yaml", block, "  era: Jurassic\n")
    lines = errors(root, "dinospan")
    find(lines, "cards/dinospan/dinosaurs-triassic.yaml:1:1:", "the Triassic deck needs 16 cards, the data has 15")
    find(lines, "cards/dinospan/game.yaml:", "component 'deck-triassic' says count 16 but the data gives 15")


def test_dinospan_hemisphere_contradicting_continent(tmp_path):
    root = shipped(tmp_path, "dinospan")
    line = edit_match(root, "cards/dinospan/dinosaurs-triassic.yaml", r"  continent: South America\n  hemisphere: Gondwana\n",
                      "  continent: South America\n  hemisphere: Laurasia\n", line_offset=1)
    lines = errors(root, "dinospan")
    find(lines, f"cards/dinospan/dinosaurs-triassic.yaml:{line}:15:", "South America, which is in Gondwana, not Laurasia")


def test_dinospan_family_without_a_basal_parent(tmp_path):
    root = shipped(tmp_path, "dinospan")
    # make every Basal theropod a coelophysoid: no theropod family has a Basal parent left
    for f in ("dinosaurs-triassic.yaml", "dinosaurs-jurassic.yaml", "dinosaurs-cretaceous.yaml"):
        path = root / "cards/dinospan" / f
        path.write_text(path.read_text().replace("  order: Theropod\n  family: Basal\n",
                                                 "  order: Theropod\n  family: Coelophysoidea\n"))
    lines = errors(root, "dinospan")
    line = line_of(root, "cards/dinospan/families.yaml", "- {id: Tyrannosauroidea")
    find(lines, f"cards/dinospan/families.yaml:{line}:", "family Tyrannosauroidea has no Basal Theropod to evolve from")


def test_dinospan_scenario_goals_out_of_order(tmp_path):
    root = shipped(tmp_path, "dinospan")
    old = "goals: [ground-plant-feeders, giants-of-the-new-world, giants-in-motion, complex-dentition]"
    line = edit(root, "cards/dinospan/scenarios.yaml", old,
                "goals: [giants-of-the-new-world, ground-plant-feeders, giants-in-motion, complex-dentition]")
    lines = errors(root, "dinospan")
    find(lines, f"cards/dinospan/scenarios.yaml:{line}:", "goals must be in descending order of share; the cards give 45, 47, 23, 19 %")


def test_dinospan_goal_share_typed_by_hand_must_agree(tmp_path):
    root = shipped(tmp_path, "dinospan")
    old = "name: Ground-Plant Feeders, value: ground,"
    line = edit(root, "cards/dinospan/goals.yaml", old, "name: Ground-Plant Feeders, share: 50, value: ground,")
    lines = errors(root, "dinospan")
    find(lines, f"cards/dinospan/goals.yaml:{line}:", "share is 50 here but the data gives 47")


def test_dinospan_ability_that_is_not_well_formed(tmp_path):
    root = shipped(tmp_path, "dinospan")
    line = edit_match(root, "cards/dinospan/abilities.yaml", r"\{do: reveal, from: footprint, n: 2, keep: 1\}",
                      "{do: reveal, from: footprint, n: 2, keep: 3}")
    lines = errors(root, "dinospan")
    assert any(f"abilities.yaml:{line}:" in ln and "3 is out of range" in ln or "reveal keeps 1 to 2 cards" in ln
               for ln in lines), lines


# --- EVO --------------------------------------------------------------------------------------------

def test_evo_gene_count_off_by_one(tmp_path):
    root = shipped(tmp_path, "evo")
    line = edit_match(root, "cards/evo/genes.yaml", r"- id: horn\n  name: Horn\n  count: 8\n",
                      "- id: horn\n  name: Horn\n  count: 9\n", line_offset=2)
    lines = errors(root, "evo")
    find(lines, f"cards/evo/genes.yaml:{line}:10:", "the box holds 8 Horn genes, the data has 9")
    find(lines, "cards/evo/game.yaml:", "component 'genes' says count 62 but the data gives 63")


def test_evo_event_with_an_unknown_phase(tmp_path):
    root = shipped(tmp_path, "evo")
    line = edit_match(root, "cards/evo/events.yaml", r"  phase: 3\n", "  phase: 7\n")
    lines = errors(root, "evo")
    find(lines, f"cards/evo/events.yaml:{line}:10:", "7 is not one of 1, 2, 3, 4, 5, 6, any, end, reaction")


@pytest.mark.parametrize("old, new, stars", [
    ('    - "P H M H P H M P"\n    - "P P H P P H P P"\n- id: a-large', '    - "P H M H P H M P"\n    - "B* P H P P H P P"\n- id: a-large', 3),
    ('    - ". B* B P B B* B ."', '    - ". B* B P B B B ."', 1),
])
def test_evo_map_side_with_too_many_or_too_few_starred_beaches(tmp_path, old, new, stars):
    root = shipped(tmp_path, "evo")
    edit(root, "cards/evo/map.yaml", old, new)
    lines = errors(root, "evo")
    line = line_of(root, "cards/evo/setups.yaml", "- {id: three-players")
    find(lines, f"cards/evo/setups.yaml:{line}:", f"a-small + b-small have {stars + 1} starred beaches for 3 players")


def test_evo_starred_beach_must_touch_the_sea(tmp_path):
    root = shipped(tmp_path, "evo")
    edit(root, "cards/evo/map.yaml", '    - "B P P H P P H B"', '    - "B P B* H P P H B"')
    edit(root, "cards/evo/map.yaml", '    - ". B* B P B B* B ."', '    - ". B* B P B B B ."')
    lines = errors(root, "evo")
    find(lines, "cards/evo/map.yaml:", "a-small: the starred beach in row 2, space 3 does not touch the sea")


def test_evo_broken_climate_cycle(tmp_path):
    root = shipped(tmp_path, "evo")
    edit(root, "cards/evo/rules.yaml", "cycle: [beach, plain, hill, mountain, hill, plain]",
         "cycle: [beach, plain, mountain, hill, hill, plain]")
    lines = errors(root, "evo")
    line = line_of(root, "cards/evo/rules.yaml", "cycle: [beach")
    find(lines, f"cards/evo/rules.yaml:{line}:", "climate chart: plain next to mountain breaks the chart")


def test_constraints_suggest_within_the_loads_bound_and_look_through_a_table_once(monkeypatch):
    """A constraint's misspelt `each:`/`where:` compared with every table's name, and its `field:` missing from
    the schema looked through every item of its table, for each constraint: 3,000 constraints among 300 tables
    of names sharing a long prefix took 38 s, 10,000 naming a field of 10,000 items 55 s. Suggestions now share
    the load's bound (report.Suggestions), and each table's items are looked through once."""
    from types import SimpleNamespace

    from pnp.model import constraints
    from pnp.model.components import held_fields
    from pnp.model.load import MarkedList, Record
    from pnp.report import Mark, Suggestions

    looked: list[str] = []
    monkeypatch.setattr(constraints, "held_fields", lambda game, table: looked.append(table) or held_fields(game, table))
    mark = Mark("cards/g/game.yaml", 1, 1)
    items = MarkedList([Record({"id": f"c{i}"}, mark=mark) for i in range(3)], mark=mark)
    schema = Record({"fields": Record({"id": {"type": "id"}}, mark=mark)}, mark=mark)
    game = SimpleNamespace(tables={"cards": items}, meta=Record({"tables": Record({"cards": schema}, mark=mark)}, mark=mark),
                           dirty=False, context=lambda **kw: {"data": {"cards": items}})
    rules = MarkedList([Record({"expr": "true", "each": "cardz"}, mark=mark),
                        *(Record({"expr": "true", "where": "cards", "field": f"nam{i}"}, mark=mark) for i in range(4))],
                       mark=mark)
    said: list[str] = []
    suggest = Suggestions(budget=1)  # room for one table's name: the rest are said without a suggestion
    chk = SimpleNamespace(error=lambda message, at: said.append(message), suggest=suggest)
    constraints.check_constraints(game, rules, chk)
    assert said[0] == "constraint 'each: cardz' names no table (did you mean 'cards'?)"
    assert said[1:] == [f"constraint 'field: nam{i}' names no field of cards" for i in range(4)]
    assert suggest.left == 0 and looked == ["cards"]


def test_a_loads_suggestions_are_bounded_where_no_checker_is_at_hand(monkeypatch):
    """A field's spec is made without a checker: each enum field naming an enum that is not there compared it
    with every enum's name and listed them all (2,000 such fields among 1,000 enums: 133 s, 400 kB said). Inside
    a load (report.suggestions_bounded) every suggestion shares its bound, and a message lists a few names."""
    from pnp import report
    from pnp.model.schema import MAX_LISTED, Schema

    compared: list[int] = []
    monkeypatch.setattr(report, "get_close_matches", lambda word, names, **kw: compared.append(len(names)) or [])
    report._closest.cache_clear()
    enums = {f"kind{i:04d}": ["x"] for i in range(1_000)}
    fields = {f"f{i}": {"type": "enum", "enum": f"kind{i:04d}z"} for i in range(60)}
    with report.suggestions_bounded():
        problems = Schema(fields, enums).problems
    assert len(problems) == 60 and sum(compared) <= report.MAX_COMPARED
    assert f"kind{MAX_LISTED - 1:04d} and {1_000 - MAX_LISTED:,} more)" in problems[0][0]


def test_suggestions_are_bounded_by_the_length_of_the_names_compared(monkeypatch):
    """difflib's time grows with the product of the lengths: 700 ids of 96 characters sharing a prefix, each
    naming a missing one, took 36 s within a bound counted in names. Long names now cost more of it."""
    from pnp import report

    compared: list[int] = []
    monkeypatch.setattr(report, "get_close_matches", lambda word, names, **kw: compared.append(len(names)) or [])
    report._closest.cache_clear()
    ids = [f"{'x' * 90}-{i:05d}" for i in range(500)]  # (700 of them now outnumber the budget)
    suggest = report.Suggestions()
    for i in range(500):
        suggest(f"{ids[i]}z", ids)
    assert 0 < sum(compared) <= report.MAX_COMPARED // 30
    short = report.Suggestions()
    short("cardz", ["card", "cards"])
    assert short.left == report.MAX_COMPARED - 2


def test_suggestions_count_what_comparing_costs_once_per_length_of_word(monkeypatch):
    """What comparing a word with the names costs was counted over every name for each unknown word, its budget
    spent or not: 2,000 rulebook pictures naming missing cards of a 10,000-card deck counted 20 million names
    (4 s of an 8 s validate). The same tuple of names is counted once per length of word, and names more
    numerous than what is left are not counted at all."""
    from pnp import report

    counted: list[int] = []
    original = report._comparing_cost
    monkeypatch.setattr(report, "_comparing_cost", lambda word, names: counted.append(len(names)) or original(word, names))
    ids = tuple(f"c{i}" for i in range(300))
    suggest = report.Suggestions(budget=1_000)
    said = [suggest(f"c{i}x", ids) for i in range(200)]
    assert said[0] == " (did you mean 'c0'?)", said[0]
    assert not said[-1] and len(counted) <= 3, counted  # (lengths 3, 4 and 5, then the budget spent)
    suggest.left = 100  # fewer than the names: said without a suggestion, nothing counted
    assert suggest("zzzz-long", ids) == "" and len(counted) <= 3


@pytest.mark.parametrize("block", ["budget", "convert"])
def test_suggestions_outside_a_load_are_bounded_too(monkeypatch, block):
    """A layout is checked outside load_game, and convert reads a table's fields without it: 2,000 elements each
    placed `below` a misspelt name sharing a long prefix with the others compared every name with every other
    (past 300 s). A game's budget (template.budget) and a conversion bound their suggestions as a load does."""
    from pnp import report, template
    from pnp.model import convert

    compared: list[int] = []
    monkeypatch.setattr(report, "get_close_matches", lambda word, names, **kw: compared.append(len(names)) or [])
    report._closest.cache_clear()
    names = [f"kind{i:04d}" for i in range(1_000)]

    def suggest_each(*_args: object) -> tuple[None, int]:
        for i in range(60):
            report.did_you_mean(f"kind{i:04d}z", names)
        return None, 0

    if block == "budget":
        with template.budget():
            suggest_each()
    else:
        monkeypatch.setattr(convert, "_converted", suggest_each)
        convert.convert(None, "x", "csv")  # type: ignore[arg-type]
    assert 0 < sum(compared) <= report.MAX_COMPARED


def test_a_rulebook_pictures_unknown_names_are_compared_with_one_tuple_of_the_names():
    """Each picture naming a missing row made the table's ids a new tuple, held by the suggestions' memory of
    what each word was told: 2,000 such pictures of a 10,000-row table held 2,000 copies (300 MB)."""
    from pnp.products import rulebook

    class Studio:  # (what _suggested asks of a studio: to be a key of its weak dictionaries)
        pass

    studio = Studio()
    table = {f"c{i}": i for i in range(50)}
    said = [rulebook._suggested(studio, f"c{i}x", table) for i in range(20)]  # type: ignore[arg-type]
    assert said[0] == " (did you mean 'c0'?)", said[0]
    held = {id(names) for names, _ in rulebook._PICTURE_SUGGESTIONS[studio].said.values()}  # type: ignore[index]
    assert len(held) == 1, len(held)


def test_lookup_names_a_tables_ids_once_for_its_suggestions(monkeypatch):
    """Each card of a 10,000-card deck looking up a missing id (`['cadr-' ~ ...] | lookup(ref.cards)`) made a
    list of every id as text for its did-you-mean (24 s), as did `ref.cards['cadr-' ~ ...]`, sorting them too
    (24 s); and names more numerous than the suggestions' budget
    has left were copied all the same. Each table's ids are made text once; names it cannot afford, never."""
    from collections.abc import Iterator

    from pnp import report, template

    class Id(str):  # (counts how often an id is made text)
        made = 0

        def __str__(self) -> str:
            Id.made += 1
            return str.__str__(self)

    monkeypatch.setattr(report, "get_close_matches", lambda word, names, **kw: [])
    report._closest.cache_clear()
    table = {Id(f"card-{i:04d}"): i for i in range(1_000)}
    with report.suggestions_bounded():
        for i in range(30):
            with pytest.raises(ValueError, match="no id 'cadr"):
                template._lookup_ids([f"cadr-{i:04d}"], table)
            said = template._missing_key(f"cadr-{i:04d}", table)  # (`ref.cards['cadr-...']`)
            assert said.startswith(f"no field 'cadr-{i:04d}'") and "card-0000, card-0001," in said, said
    assert Id.made <= 3 * len(table), Id.made

    class Names:  # (a Sized of names, counting how often it is read through)
        read = 0

        def __len__(self) -> int:
            return 100

        def __iter__(self) -> Iterator[str]:
            Names.read += 1
            return iter([f"n{i}" for i in range(100)])

    assert report.Suggestions(budget=10)("n1x", Names()) == "" and Names.read == 0


def test_missing_layouts_list_the_layout_folders_once(tmp_path, monkeypatch):
    """200 components naming missing layouts beside 2,000 layout files listed both layout folders for each
    'not found' (19 s, 400 MB), and the same layout was said twice, with its suggestion and without. The set
    lists them once, and says a missing layout alike each time."""
    from pathlib import Path

    from pnp import report
    from pnp.layout.layouts import LayoutError, LayoutSet
    from pnp.project import Project

    (tmp_path / "layouts" / "g").mkdir(parents=True)
    for i in range(20):
        (tmp_path / "layouts" / "g" / f"lay{i:02d}.yaml").write_text("size: poker\n")
    listed: list[Path] = []
    glob = Path.glob
    monkeypatch.setattr(Path, "glob", lambda self, pattern: listed.append(self) or glob(self, pattern))
    layouts = LayoutSet(Project(tmp_path.resolve()), "g", {})
    said = []
    with report.suggestions_bounded():
        for i in [*range(20), 0]:
            with pytest.raises(LayoutError) as refused:
                layouts.path(f"lya{i:02d}")
            said.append(refused.value.message)
    assert "(did you mean 'lay00'?)" in said[0] and said[-1] == said[0], said
    assert len(listed) <= 2, listed


def test_comparisons_with_an_enum_look_through_it_once(monkeypatch):
    """2,000 `when: card.kind == '...'` naming none of an enum of 10,000 values looked through the enum, and
    copied it for the suggestion, each (7.7 s, 244 MB). Its texts are made once per enum."""
    from pnp import report, template

    class Values(list):  # (counts how often it is read through)
        read = 0

        def __iter__(self):  # type: ignore[no-untyped-def]
            Values.read += 1
            return super().__iter__()

    monkeypatch.setattr(report, "get_close_matches", lambda word, names, **kw: [])
    report._closest.cache_clear()
    enums = {"kind": Values(f"v{i:03d}" for i in range(300))}
    Values.read = 0
    with report.suggestions_bounded():
        said = [template._mistakes_of("kind", f"w{i:03d}", enums) for i in range(30)]
    assert all(len(s) == 1 and "is none of them" in s[0][0] for s in said), said[0]
    assert template._mistakes_of("kind", "v001", enums) == []
    assert Values.read <= 2, Values.read
