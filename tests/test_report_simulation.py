"""pnp report's Simulation section: output/<game>/simulation.json charted, read back from the PDF; a missing
file says how to make one; a damaged one is a warning naming it, never a crash."""

import json
import math
import os

import pytest
from pypdf import PdfReader

from conftest import make_project, run
from pnp.products.rulebook import simulation_json

GAME = """title: Sim Report
players: 2
ages: 8+
time: 5 minutes
credits: {design: Test Designer}
tables:
  cards:
    fields:
      id: {type: id}
      name: {type: str}
      power: {type: int}
balance:
  - expr: "sim.seat_win_rate[0] >= 0.4 and sim.seat_win_rate[0] <= 0.65"
  - {each: cards, expr: "item.effective >= 0.15"}
"""
CARDS = """- {id: c0, name: Lion Card, power: 3}
- {id: c1, name: Mouse Card, power: 1}
- {id: c2, name: Ghost Card, power: 2}
"""
MADE = 1_700_000_000  # 2023-11-14 22:13 UTC
BEFORE = MADE - 3600


def rate(p, low, high, n):
    return {"rate": p, "low": low, "high": high, "n": n}


def item(name, taken, effective, win_taken, win_not, gap, seats=40):
    return {"name": name, "seats": seats, "gap": gap, "win_taken": win_taken, "win_not_taken": win_not,
            "events": {"taken": {"count": taken, "rate": taken / seats, "when_taken": min(taken, win_taken["n"])},
                       "effective": {"count": effective, "rate": effective / seats,
                                     "when_taken": min(effective, win_taken["n"])}}}


SIMULATION = {
    "game": "sr", "seed": 7, "players": 2, "agents": ["random", "greedy"], "games": 40, "games_per_seating": 20,
    "seat_win_rate": [rate(0.6, 0.4466, 0.7347, 40), rate(0.4, 0.2653, 0.5534, 40)],
    "agent_win_rate": {"greedy": rate(0.85, 0.7089, 0.9294, 40), "random": rate(0.15, 0.0706, 0.2911, 40)},
    "matchup": {"greedy": {"random": rate(0.85, 0.7089, 0.9294, 40)},
                "random": {"greedy": rate(0.15, 0.0706, 0.2911, 40)}},
    "length": {"turns": {"mean": 6.5, "min": 3, "median": 6.0, "max": 11},
               "decisions": [{"mean": 3.5, "min": 2, "median": 3.0, "max": 6},
                             {"mean": 3.0, "min": 1, "median": 3.0, "max": 5}]},
    "end_reasons": {"last counter": {"count": 40, "share": 1.0}},
    "end_reasons_known": ["last counter", "surrender"],
    "tracked": {"cards": "card"},
    "items": {"cards": {
        # win rates 70% (50-85%) taken, 50% (40-60%) not: gap +20%, -2% to +38% by Newcombe's method
        "c0": item("Lion Card", 20, 12, rate(0.7, 0.5, 0.85, 20), rate(0.5, 0.4, 0.6, 20), 0.2),
        "c1": item("Mouse Card", 30, 2, rate(0.5, 0.33, 0.67, 30), rate(0.5, 0.24, 0.76, 10), 0.0),
        "c2": item("Ghost Card", 0, 0, rate(None, None, None, 0), rate(0.5, 0.35, 0.65, 40), None)}},
}


def project(tmp_path, simulation=SIMULATION, game=GAME, cards=CARDS):
    root = make_project(tmp_path / "proj", {"cards/sr/game.yaml": game, "cards/sr/cards.yaml": cards})
    for path in (root / "cards" / "sr").iterdir():
        os.utime(path, (BEFORE, BEFORE))
    if simulation is not None:
        write_simulation(root, json.dumps(simulation).encode())
    return root


def write_simulation(root, data: bytes):
    path = root / "output" / "sr" / "simulation.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, (MADE, MADE))
    return path


def report(root, code=0):
    result = run(root, "report", "sr")
    assert result.exit_code == code, result.output
    pdf = root / "output" / "sr" / "sr-report.pdf"
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(pdf).pages)
    return result.output, text[text.index("Simulation"):text.index("Tables")], pdf


def test_the_section_charts_the_file(tmp_path):
    output, text, _ = report(project(tmp_path))
    assert "warning" not in output
    assert "Made 2023-11-14 22:13 UTC by `pnp simulate` (output/sr/simulation.json): 40 games (20 per seating), " \
           "2 players, agents random, greedy, seed 7" in text
    assert "60% (45–73%) of 40 games" in text and "40% (27–55%) of 40 games" in text  # seats
    assert "85% (71–93%) of 40 seats" in text  # greedy
    assert "mean 6.5, median 6 (3–11)" in text
    assert "surrender" in text and "0% (0–9%): 0 of 40" in text  # a known end that never happened
    assert "Lion Card 40 50% (35–65%) 70% (50–85%) 50% (40–60%) +20% (-2 to +38%)" in text  # the items' table
    assert "Never taken: Ghost Card." in text
    # the balance rules, checked on the file's figures, with their line, value, limit and margin
    assert "1 of 2 hold on these figures; 1 fail." in text
    # judged on the 95% interval: the margin runs from the interval's end nearest the limit
    assert "sim.seat_win_rate[0] <= 0.65 (cards/sr/game.yaml:13:11) 0.6 <= 0.65 0.2034 holds" in text
    assert "item.effective >= 0.15 (cards/sr/game.yaml:14:25); at fault: Ghost Card 0 >= 0.15 -0.06238 FAILS" in text


def test_balance_rules_past_the_tables_cap_are_counted_in_one_row_those_failing_listed_first(tmp_path, monkeypatch):
    """A table of 5,000 balance rules took 7 s to set: the report lists MAX_RULE_ROWS (here 1), failing first."""
    from pnp.insight import simulation

    monkeypatch.setattr(simulation, "MAX_RULE_ROWS", 1)
    _, text, _ = report(project(tmp_path))
    assert "1 of 2 hold on these figures; 1 fail." in text
    assert "item.effective >= 0.15" in text and "sim.seat_win_rate[0] <= 0.65" not in text  # the failing one
    assert "1 more rule, not listed hold" in text


def test_text_stays_inside_the_page_margins_and_is_6_points_or_more(tmp_path):
    many = {**SIMULATION, "end_reasons": {f"a very long way for a game to end, number {i}": {"count": 1, "share": 0.025}
                                          for i in range(40)}}
    # a bars view whose long names are turned: the first one ran left into the page margin
    game = GAME + "report:\n  - {kind: bars, table: cards, x: power}\n"
    cards = "".join(f"- {{id: x{i}, name: WWW MMM WWW MMM WWW MMM {i}, power: {i}}}\n" for i in range(12)) + CARDS
    _, _, pdf = report(project(tmp_path, many, game, cards))
    found = []
    for page in PdfReader(pdf).pages:
        def visit(text, cm, tm, font, size):
            if text.strip():
                m = [tm[0] * cm[0] + tm[1] * cm[2], tm[0] * cm[1] + tm[1] * cm[3],
                     tm[4] * cm[0] + tm[5] * cm[2] + cm[4]]
                found.append((text.strip(), size * math.hypot(m[0], m[1]), m[2]))
        page.extract_text(visitor_text=visit)
    mm = 72 / 25.4
    assert min(size for _, size, _ in found) >= 6
    assert [t for t, _, x in found if not 20 * mm - 1 <= x <= 190 * mm] == []


def test_without_a_file_the_report_says_how_to_make_one(tmp_path):
    output, text, _ = report(project(tmp_path, None))
    assert "warning" not in output
    assert text.strip() == "Simulation No simulation yet: `pnp simulate sr` plays the game with its " \
                           "cards/sr/rules.py and writes output/sr/simulation.json, which this section charts."


BIG = 8 * 1024 * 1024 + 1


@pytest.mark.parametrize("data, said", [
    (b"{not json", "not the JSON `pnp simulate` writes: not JSON text from here on"),
    (b'{"games": NaN}', "not the JSON `pnp simulate` writes: NaN is not a number JSON allows"),
    (b'{"games": 1e999}', "not the JSON `pnp simulate` writes: 1e999 is too large for a number"),
    (b"[" * 100_000, "not the JSON `pnp simulate` writes: nested too deeply"),
    (b'{"seed": ' + b"9" * 5_000 + b"}", "not the JSON `pnp simulate` writes: a number of more than 4,300 digits"),
    (b'{"game": "\xff"}', "not the JSON `pnp simulate` writes: not UTF-8 text"),
    (b"[1, 2]", "no object at the top"),
    (b" " * BIG, "is larger than 8 MB"),
    ("folder", "is a folder, not an ordinary file"),
    ("link", "is outside the project folder"),
])
def test_a_damaged_file_is_not_read(tmp_path, data, said):
    from pnp.insight.simulation import read_simulation, warnings
    from pnp.project import Project

    root = project(tmp_path, None)
    path = root / "output" / "sr" / "simulation.json"
    path.parent.mkdir(parents=True)
    if data == "folder":
        path.mkdir()
    elif data == "link":
        (tmp_path / "elsewhere.json").write_text(json.dumps(SIMULATION))
        path.symlink_to(tmp_path / "elsewhere.json")
    else:
        path.write_bytes(data)
    found = read_simulation(Project(root.resolve()), "sr")
    assert found.summary is None and found.shown == "output/sr/simulation.json"
    assert said in warnings(found)[0]


def test_a_damaged_file_is_a_warning_naming_it(tmp_path):
    root = project(tmp_path, None)
    write_simulation(root, b'{"games": 3, "items": {')
    output, text, _ = report(root)
    assert "output/sr/simulation.json: warning: not read, the design report shows no simulation from it: not the " \
           "JSON `pnp simulate` writes: not JSON text from here on" in output
    assert text.startswith("Simulation Warning: output/sr/simulation.json: not read") and "Made" not in text


def test_a_part_of_the_wrong_shape_is_left_out_and_the_rest_shown(tmp_path):
    damaged = {**SIMULATION, "seat_win_rate": "half each", "seed": 10**30,
               "items": {"cards": {**SIMULATION["items"]["cards"], "c1": {"name": "Mouse Card", "seats": -1}}}}
    output, text, _ = report(project(tmp_path, damaged))
    assert "output/sr/simulation.json: warning: parts are not what `pnp simulate` writes and are not shown: " \
           "seed; seat_win_rate; items.cards.c1" in output
    assert "of 40 games" not in text and "seed" not in text.split("Warning")[0]
    assert "Lion Card 40 50% (35–65%)" in text and "Mouse Card 40" not in text
    # the balance rules read the seats' win rates, which are gone: said, not a crash
    assert "Not checked: the simulation lacks a part they read (KeyError: 'seat_win_rate')" in text


def test_an_item_taken_in_more_seats_than_it_was_in_play_is_left_out(tmp_path):
    """Its rate had an interval with a square root of a negative number: the report stopped with a traceback."""
    cards = SIMULATION["items"]["cards"]
    mouse = {**cards["c1"], "events": {**cards["c1"]["events"], "taken": {"count": 50, "rate": 1.0, "when_taken": 0}}}
    damaged = {**SIMULATION, "items": {"cards": {**cards, "c1": mouse}}}
    output, text, _ = report(project(tmp_path, damaged))
    assert "output/sr/simulation.json: warning: parts are not what `pnp simulate` writes and are not shown: " \
           "items.cards.c1" in output
    assert "Lion Card 40 50% (35–65%)" in text and "Mouse Card" not in text


def test_parts_that_disagree_with_one_another_are_left_out(tmp_path):
    """A game ending one way more often than the games played made a share past 1 that the balance rules took
    the interval of (a square root of a negative number: a traceback); a rate outside its own interval, or none
    for 40 games, was charted as the file said."""
    from pnp.insight.simulation import read_simulation, warnings
    from pnp.project import Project

    cards = SIMULATION["items"]["cards"]
    damaged = {**SIMULATION, "end_reasons": {"last counter": {"count": 41, "share": 1.0}},
               "agent_win_rate": {"greedy": rate(0.0, 0.9, 1.0, 40), "random": rate(None, None, None, 40)},
               "items": {"cards": {**cards, "c0": {**cards["c0"], "win_taken": rate(0.7, 0.75, 0.85, 20)}}}}
    root = project(tmp_path, damaged)
    found = read_simulation(Project(root.resolve()), "sr")
    assert "end_reasons" not in found.summary and found.summary["agent_win_rate"] == {}
    assert list(found.summary["items"]["cards"]) == ["c1", "c2"]
    assert warnings(found)[0].endswith("agent_win_rate.greedy; agent_win_rate.random; end_reasons; items.cards.c0")
    output, text, _ = report(root)
    assert "How games end" not in text and "Lion Card" not in text and "Mouse Card" in text


def test_agents_that_did_not_play_are_left_out(tmp_path):
    """An agent 'ghost' winning 90%, absent from the file's agents, was charted as the file said (in the matchups
    too)."""
    from pnp.insight.simulation import read_simulation, warnings
    from pnp.project import Project

    ghost = {**SIMULATION, "agent_win_rate": {**SIMULATION["agent_win_rate"], "ghost": rate(0.9, 0.8, 0.95, 10)},
             "matchup": {**SIMULATION["matchup"], "random": {"ghost": rate(0.1, 0.05, 0.2, 10)}},
             "end_reasons_among": {"ghost,random": {"last counter": {"count": 4, "share": 1.0}}}}
    root = project(tmp_path, ghost)
    found = read_simulation(Project(root.resolve()), "sr")
    assert {"agent_win_rate", "matchup", "end_reasons_among"}.isdisjoint(found.summary)
    assert warnings(found)[0].endswith("agent_win_rate; matchup; end_reasons_among")
    found = read_simulation(Project(project(tmp_path / "good", SIMULATION).resolve()), "sr")
    assert {"agent_win_rate", "matchup"} <= set(found.summary) and not found.problems


def test_a_simulation_of_another_game_is_not_read(tmp_path):
    """A simulation.json of another game (an output folder copied under another name) was charted as this
    game's."""
    from pnp.insight.simulation import read_simulation, warnings
    from pnp.project import Project

    found = read_simulation(Project(project(tmp_path, {**SIMULATION, "game": "other"}).resolve()), "sr")
    assert found.summary is None
    assert warnings(found) == ["not read, the design report shows no simulation from it: a simulation of the game "
                               "'other', not of 'sr'; run `pnp simulate` on it"]


def test_a_name_longer_than_the_files_texts_is_left_out(tmp_path):
    """A table named by 100,000 letters took 47 s to lay out, then failed in ReportLab (a cell taller than a page)."""
    from pnp.insight.simulation import read_simulation, warnings
    from pnp.project import Project

    long_names = {**SIMULATION, "items": {"T" * 100_000: SIMULATION["items"]["cards"], **SIMULATION["items"]},
                  "end_reasons": {"R" * 201: {"count": 1, "share": 1.0}, "x" * 200: {"count": 1, "share": 1.0}}}
    found = read_simulation(Project(project(tmp_path, long_names).resolve()), "sr")
    assert list(found.summary["items"]) == ["cards"] and list(found.summary["end_reasons"]) == ["x" * 200]
    assert f"end_reasons.{'R' * 39}…; items.{'T' * 39}…" in warnings(found)[0]


def test_data_changed_since_the_run_is_warned_of(tmp_path):
    root = project(tmp_path)
    cards = root / "cards" / "sr" / "cards.yaml"
    os.utime(cards, (MADE + 60, MADE + 60))
    output, text, _ = report(root)
    assert "output/sr/simulation.json: warning: cards/sr/cards.yaml changed after this simulation was made " \
           "(2023-11-14 22:13 UTC)" in output
    assert "cards/sr/cards.yaml changed after this simulation was made" in text


@pytest.mark.parametrize("name, shown", [
    ("notes-\U0001f600.txt", "notes-\\U0001f600.txt"),  # an emoji: the fonts lack it
    (b"notes-\xff.txt", "notes-\\udcff.txt"),  # a byte no encoding reads (a surrogate to Python)
    ("a\u200db\u0301.txt", "a\\u200db\\u0301.txt"),  # a zero-width joiner, a combining mark
])
def test_a_file_named_in_characters_the_fonts_lack_is_printed_escaped_with_a_warning(tmp_path, name, shown):
    """A file of the game changed since the run, named so, was blamed on pnp's own fonts.yaml and no report was
    written: a name is printed as its escapes, and warned of at the file."""
    root = project(tmp_path)
    path = os.path.join(os.fsencode(root / "cards" / "sr"), name if isinstance(name, bytes) else name.encode())
    open(path, "wb").close()
    os.utime(path, (MADE + 60, MADE + 60))
    output, text, _ = report(root)
    assert "fonts/fonts.yaml" not in output
    assert f"warning: the design report prints this name as 'cards/sr/{shown}'" in output
    assert f"cards/sr/{shown} changed after this simulation was made" in text


OWN = {**SIMULATION, "game": "\u01f0"}


@pytest.mark.parametrize("simulation, code, said", [
    (None, 0, "cards/\u01f0: warning: the design report prints this name as 'output/\\u01f0/simulation.json'"),
    (SIMULATION, 0, "not of '\u01f0'"),  # another game's: its warning quotes the id
    (OWN, 0, "cards/\u01f0: warning"),  # its balance rules, each with its place: cards/ǰ/game.yaml:12:5
    ({**OWN, "end_reasons": {"\u738b": {"count": 40, "share": 1.0}}, "end_reasons_known": ["\u738b"]}, 1,
     "output/\u01f0/simulation.json:"),  # a character the fonts lack is said at the file's own name
])
def test_a_game_folder_named_in_characters_the_fonts_lack_is_printed_escaped(tmp_path, simulation, code, said):
    """A game folder named 'ǰ' (no id `pnp new` makes, but a folder someone sent): the report's hint to simulate
    it, its warning that simulation.json is another game's ('not of 'ǰ''), or the place of a balance rule
    (cards/ǰ/game.yaml:12:5) was refused at pnp/fonts/fonts.yaml:4:5, a file of pnp's, not the project's."""
    files = {"cards/\u01f0/game.yaml": GAME, "cards/\u01f0/cards.yaml": CARDS}
    if simulation is not None:
        files["output/\u01f0/simulation.json"] = json.dumps(simulation)
    root = make_project(tmp_path / "proj", files)
    result = run(root, "report", "\u01f0")
    assert result.exit_code == code and "fonts/fonts.yaml" not in result.output, result.output
    assert said in result.output


def test_same_bytes_and_the_preview_serves_it(tmp_path):
    from starlette.testclient import TestClient

    from pnp.project import Project
    from pnp.serve.app import create_app

    root = project(tmp_path)
    _, _, pdf = report(root)
    first = pdf.read_bytes()
    pdf.unlink()
    assert report(root)[2].read_bytes() == first
    with TestClient(create_app(Project(root.resolve()), ["sr"]), base_url="http://127.0.0.1:8000") as client:
        served = client.get("/g/sr/report.pdf")
        assert served.status_code == 200 and served.content == first


def test_what_pnp_simulate_writes_is_read_whole(tmp_path):
    """The real writer's file, not a hand-made one: every part has the shape the report reads."""
    from pathlib import Path

    from pnp.insight.simulation import read_simulation
    from pnp.project import Project

    root = tmp_path / "p"
    make_project(root)
    (root / "cards/mini/rules.py").write_text((Path(__file__).parent / "simulate_nim.py").read_text())
    simulated = run(root, "simulate", "mini", "--games", "10", "--agents", "random,greedy", "--jobs", "1")
    assert simulated.exit_code == 0, simulated.output
    found = read_simulation(Project(root.resolve()), "mini")
    assert found.problems == [] and found.changed == ""
    assert {"seat_win_rate", "matchup", "length", "end_reasons", "items"} <= set(found.summary)
    result = run(root, "report", "mini")
    assert result.exit_code == 0 and "warning" not in result.output, result.output


def test_many_events_and_items_are_charted_within_bounds(tmp_path, monkeypatch):
    """20 events gave a grid of columns narrower than their padding (a traceback); 4,000 items took minutes."""
    import pnp.insight.simulation

    monkeypatch.setattr(pnp.insight.simulation, "MAX_ITEMS_SHOWN", 2)
    lion = item("Lion Card", 20, 12, rate(0.7, 0.5, 0.85, 20), rate(0.5, 0.4, 0.6, 20), 0.2)
    lion["events"].update({f"event{i:02}": {"count": 1, "rate": 0.025, "when_taken": 0} for i in range(20)})
    simulation = {**SIMULATION, "items": {"cards": {**SIMULATION["items"]["cards"], "c0": lion}}}
    output, text, _ = report(project(tmp_path, simulation))
    assert "items.cards: 1 of its 3 items are not charted (the report charts at most 2 items in all)" in output
    assert "event 10 Lion Card 30%" in text and "cards \\ event event11" in text and "event19" in text
    assert "cards: the 2 in play" in text


def test_a_game_length_whose_figures_disagree_is_left_out(tmp_path):
    """'median 5 (10–1)' and a mean of -3 turns were charted as the file said, with no warning."""
    from pnp.insight.simulation import read_simulation, warnings
    from pnp.project import Project

    length = SIMULATION["length"]
    # (an integer of 400 digits, which JSON writes as readily as 4, was an OverflowError: a bug in pnp)
    for turns in ({"mean": 50, "min": 10, "median": 5, "max": 1}, {"mean": -3, "min": -7, "median": 1, "max": 4},
                  {"mean": 10**400, "min": 1, "median": 2, "max": 10**400}):
        root = project(tmp_path / str(turns["min"]), {**SIMULATION, "length": {**length, "turns": turns}})
        found = read_simulation(Project(root.resolve()), "sr")
        assert "length" not in found.summary and warnings(found)[0].endswith("are not shown: length")


@pytest.mark.parametrize("number, said", [
    ("NaN", ": error: not the JSON `pnp simulate` writes: NaN is not a number JSON allows"),
    ("-Infinity", ": error: not the JSON `pnp simulate` writes: -Infinity is not a number JSON allows"),
    ("1e999", ": error: not the JSON `pnp simulate` writes: 1e999 is too large for a number"),
    ("nan", ":1:7: error: not the JSON `pnp simulate` writes: not JSON text from here on"),  # (where it stops)
])
def test_the_rulebook_reads_no_number_pnp_simulate_never_writes(tmp_path, number, said):
    """Python's JSON reads NaN, Infinity and 1e999 (infinite): the rulebook printed 'Win rate nan' with exit 0,
    where the report leaves such values out. Said in pnp's words (Python's exception's name alone was printed,
    '(ValueError)', '(JSONDecodeError)' at no line)."""
    root = make_project(tmp_path / "g", {"output/mini/simulation.json": f'{{"a": {number}}}',
                                         "layouts/mini/rulebook.md.j2": "# Rules\n\nWin rate {{ simulation.a }}.\n"})
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "output/mini/simulation.json" + said in result.stderr, result.stderr


def test_a_negative_zero_is_read_as_zero():
    """A -0.0 in the file (edited by hand) printed '-0%' in the rulebook through '%.0f'."""
    read = simulation_json(b'{"low": -0.0, "rates": [-0.0, 0.5]}')
    assert [math.copysign(1, x) for x in (read["low"], *read["rates"])] == [1, 1, 1]


def test_a_name_the_fonts_lack_is_an_error_at_its_line_in_the_file(tmp_path):
    """An end reason named in characters the report's font lacks printed as blanks with exit 0: it is an error at
    the file's line, found whether the file writes the character or its JSON escape (as `pnp simulate` does)."""
    named = {**SIMULATION, "end_reasons": {"王手": {"count": 40, "share": 1.0}}, "end_reasons_known": ["王手"]}
    root = project(tmp_path, None)
    text = json.dumps(named, indent=1).replace("\\u738b", "王")  # the first as itself, the second escaped
    write_simulation(root, text.encode())
    result = run(root, "report", "sr")
    lines = text.splitlines()
    line = next(n for n, ln in enumerate(lines, 1) if "王" in ln)
    escape = "\\u624b"
    escaped = next(n for n, ln in enumerate(lines, 1) if escape in ln)
    assert result.exit_code == 1
    assert f"output/sr/simulation.json:{line}:{lines[line - 1].index('王') + 1}: error: character U+738B ('王')" \
           in result.output
    assert f"output/sr/simulation.json:{escaped}:{lines[escaped - 1].index(escape) + 1}: error: character " \
           "U+624B ('手')" in result.output


@pytest.mark.parametrize("kind", ["folder", "named pipe"])
def test_the_rulebook_refuses_a_simulation_file_that_is_no_ordinary_file(tmp_path, kind):
    """A folder or a named pipe named simulation.json was "no run" to the rulebook (it printed that no simulation
    was made, exit 0) while the report warned it could not read it: the rulebook refuses it at the file."""
    root = make_project(tmp_path / "g", {"layouts/mini/rulebook.md.j2": "# Rules\n\n{{ simulation or 'no run' }}.\n"})
    path = root / "output" / "mini" / "simulation.json"
    path.parent.mkdir(parents=True)
    path.mkdir() if kind == "folder" else os.mkfifo(path)
    result = run(root, "validate")
    assert result.exit_code == 1
    assert f"output/mini/simulation.json: error: simulation results is a {kind}, not an ordinary file" in result.stderr


def test_the_rulebook_reads_no_entry_past_those_the_report_shows_unchecked(tmp_path):
    """Only the first 40 ways to end were checked (the report shows no more), but the rulebook reads them all:
    a 41st of '700%' of '-5' games was printed with exit 0."""
    ends = {f"r{i}": {"count": 1, "share": 0.1} for i in range(40)} | {"doom": {"count": -5, "share": 7}}
    text = json.dumps({"game": "mini", "games": 10, "end_reasons": ends})
    root = make_project(tmp_path / "g", {"output/mini/simulation.json": text, "layouts/mini/rulebook.md.j2":
                        "# Rules\n\n{% for name, e in simulation.end_reasons.items() %}{{ e.share }} {% endfor %}\n"})
    result = run(root, "validate")
    assert result.exit_code == 1
    column = text.index('"doom"') + 1
    assert f"output/mini/simulation.json:1:{column}: error: not as `pnp simulate` writes it: " \
           "'end_reasons.doom'" in result.stderr


@pytest.mark.parametrize("stamp", [1e15, -1e15])
def test_a_file_time_no_date_writes_is_said_in_seconds(stamp):
    """tmpfs keeps a modification time past the year 9999 (a tar's pax header sets one): the report said it as
    a bug in pnp."""
    from pnp.insight.simulation import Simulated, made_line, warnings

    found = Simulated("output/sr/simulation.json", made=stamp, changed="cards/sr/cards.yaml")
    assert made_line({}, found).startswith(f"Made {stamp:,.0f} s from 1970, no date by `pnp simulate` "
                                           "(output/sr/simulation.json). Every rate")  # (no ': .' of nothing said)
    assert f"changed after this simulation was made ({stamp:,.0f} s from 1970, no date)" in warnings(found)[0]


def test_folders_nested_deeper_than_pythons_recursion_are_walked_for_changes(tmp_path):
    """A game folder someone sent with folders past Python's recursion limit (1,500 deep was 'a bug in pnp'
    from os.walk): its newest file is still found. Said under a lowered limit, so the tree stays shallow."""
    import sys

    from pnp.insight.simulation import read_simulation
    from pnp.project import Project

    root = project(tmp_path)
    deep = root / "cards" / "sr" / "/".join(["d"] * 300)
    deep.mkdir(parents=True)
    (deep / "late.yaml").write_text("")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(250)
    try:
        found = read_simulation(Project(root.resolve()), "sr")
    finally:
        sys.setrecursionlimit(limit)
    assert found.changed == f"cards/sr/{'d/' * 300}late.yaml"


@pytest.mark.parametrize("when_taken, kept", [(12, True), (13, False), (-1, False), ("12", False)])
def test_an_events_takers_reach_the_balance_rules_the_report_checks(when_taken, kept):
    """The shape check dropped `when_taken`: item.when_taken.EVENT read 0 in the report, and a rule `pnp simulate`
    said held was charted as failing. It is kept when it is a count among the event's seats and the takers."""
    from pnp.model.simulated import cleaned
    from pnp.simulate.stats import item_view
    lion = SIMULATION["items"]["cards"]["c0"]
    lion = {**lion, "events": {**lion["events"], "effective": {"count": 12, "rate": 0.3, "when_taken": when_taken}}}
    problems: list = []
    s = cleaned({**SIMULATION, "items": {"cards": {"c0": lion}}}, problems)
    # (an event of another shape is dropped alone; one counting more takers than the item's, with its item)
    assert ("effective" in s["items"]["cards"].get("c0", {}).get("events", {})) == kept and (problems == []) == kept
    if kept:
        assert item_view("c0", s["items"]["cards"]["c0"])["when_taken"]["effective"] == 12 / 20
