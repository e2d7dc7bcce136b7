"""pnp simulate: the runner, agents, statistics and balance rules on a tiny Nim game, bad rules modules, and
one Dino Battles game replayed move by move."""

import contextlib
import gc
import os
import sys
import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from pnp.check import load
from pnp.errors import ExprError
from pnp.cli import cli
from pnp.project import Project
from pnp.report import Report
from pnp.simulate.api import load_rules
from pnp.simulate.run import Options, play

from conftest import REPO, make_project

NIM = (Path(__file__).parent / "simulate_nim.py").read_text(encoding="utf-8")
DATA = Path(__file__).parent / "data" / "simulate"


def _nim(tmp_path, rules=NIM, balance=""):
    root = tmp_path / "p"
    make_project(root)
    (root / "cards/mini/rules.py").write_text(rules, encoding="utf-8")
    if balance:
        game = root / "cards/mini/game.yaml"
        game.write_text(game.read_text(encoding="utf-8") + balance, encoding="utf-8")
    return root


def _simulate(root, *args):
    return CliRunner().invoke(cli, ["--root", str(root), "simulate", "mini", *args], catch_exceptions=False)


def test_same_file_whatever_the_jobs_and_search_beats_random(tmp_path):
    root = _nim(tmp_path)
    one = _simulate(root, "--games", "20", "--agents", "random,mcts-30", "--seed", "5", "--jobs", "1",
                    "--out", str(tmp_path / "a"))
    two = _simulate(root, "--games", "20", "--agents", "random,mcts-30", "--seed", "5", "--jobs", "2",
                    "--out", str(tmp_path / "b"))
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    a = (tmp_path / "a/mini/simulation.json").read_bytes()
    assert a == (tmp_path / "b/mini/simulation.json").read_bytes()
    sim = json.loads(a)
    assert sim["games"] == 40 and [w["n"] for w in sim["seat_win_rate"]] == [40, 40]
    beats = sim["matchup"]["mcts-30"]["random"]
    assert beats["rate"] >= 0.8 and beats["low"] < beats["rate"] <= beats["high"]
    assert sim["end_reasons"] == {"last counter": {"count": 40, "share": 1.0}}
    assert sim["end_reasons_among"] == {"mcts-30,random": {"last counter": {"count": 40, "share": 1.0}}}
    assert set(sim["items"]["cards"]) == {"lion", "fern", "wolf", "moss"}
    assert "win rate by seat" in one.output and "mcts-30 against: random" in one.output


def test_greedy_plays_on_the_heuristic(tmp_path):
    result = _simulate(_nim(tmp_path), "--games", "15", "--agents", "greedy,random", "--out", str(tmp_path / "o"),
                       "--jobs", "1")
    sim = json.loads((tmp_path / "o/mini/simulation.json").read_bytes())
    assert result.exit_code == 0 and sim["agent_win_rate"]["greedy"]["rate"] >= 0.8


BROKEN = {
    "raises": ("        state[\"pile\"] -= card.power\n",
               "        state[\"pile\"] -= card.power\n        if state[\"turn\"] == 3:\n"
               "            raise ValueError(\"no such card\")\n",
               "game 0 (seed 0, seats random,random): turn 3: apply raised ValueError: no such card"),
    "no moves": ("        return [(\"play\", card.id) for card in self.game.tables.cards if card.power <= state[\"pile\"]]",
                 "        return []",
                 "legal_moves returned [] while the game is not over"),
    "never ends": ("        return state[\"winner\"] is not None", "        return False",
                   "legal_moves returned [] while the game is not over"),
    "bad scores": ("        return [1 if p == state[\"winner\"] else 0 for p in range(state[\"players\"])]",
                   "        return [1]", "scores returned [1], not one number per player"),
    "nan scores": ("        return [1 if p == state[\"winner\"] else 0 for p in range(state[\"players\"])]",
                   "        return [float(\"nan\")] * state[\"players\"]",  # no one won, said with exit 0
                   "scores returned [nan, nan], not one number per player"),
    "their own BaseException": ("        state[\"pile\"] -= card.power\n",  # a traceback that ended the run
                                "        raise GeneratorExit(\"gone\")\n",
                                "game 0 (seed 0, seats random,random): turn 1: apply raised GeneratorExit: gone"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_bad_rules_are_named_with_game_seed_and_turn(tmp_path, case):
    old, new, expected = BROKEN[case]
    assert old in NIM
    root = _nim(tmp_path, NIM.replace(old, new, 1))
    result = _simulate(root, "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "cards/mini/rules.py" in result.output and expected in result.output
    # with the --root it ran with: pasted elsewhere, the replay line said there was no game
    assert f"replay it with `pnp --root {root} simulate mini --seed 0 --games 1 --players 2 --agents random,random " \
           f"--log --out {tmp_path / 'o/replays/seed0-random-random'}`" in result.output, result.output


def test_raising_rules_point_at_their_line(tmp_path):
    rules = NIM.replace("    def is_over(self, state):\n", "    def is_over(self, state):\n        1 / 0\n", 1)
    line = rules.splitlines().index("        1 / 0") + 1
    result = _simulate(_nim(tmp_path, rules), "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert f"cards/mini/rules.py:{line}:1: error: game 0 (seed 0, seats random,random): turn 1: is_over raised " \
           "ZeroDivisionError" in result.output


def test_a_game_played_after_a_check_in_its_process_leaves_what_lived_before_it_out_of_its_collection(tmp_path):
    """What lived before a process's first game is frozen, so that the collection after each game (within the
    game's time limit) walks what the game made only. A validation in the same process (a test's, Windows's)
    unfreezes it all when it ends: the next game froze nothing then, and the collection over the whole heap of
    a test process ran past a 0.2 s limit, failing a game that had ended well."""
    import gc

    from pnp.check import few_collections

    root = _nim(tmp_path)
    project = Project(root)
    rules = load_rules(project, load(project, "mini", Report(root)))
    play(rules, Options(), 0, 1, ("random", "random"))
    with few_collections():  # (as a validation, or a build, in this process)
        pass
    assert gc.get_freeze_count() == 0
    play(rules, Options(), 1, 2, ("random", "random"))
    assert gc.get_freeze_count() > 0


def test_a_keyboard_interrupt_the_rules_raise_is_their_failure_said_at_their_line(tmp_path):
    """Rules raising KeyboardInterrupt themselves were taken for Ctrl-C: the process playing them ended and pnp
    said it ended without a word, naming no line. Only Ctrl-C itself (SIGINT, see run.ctrl_c_told) stops a run."""
    root = _nim(tmp_path, NIM.replace("        state[\"pile\"] -= card.power\n",
                                      "        raise KeyboardInterrupt(\"mine\")\n", 1))
    played = _simulate(root, "--games", "1", "--jobs", "1")
    assert played.exit_code == 1
    assert "cards/mini/rules.py:24:1: error: game 0 (seed 0, seats random,random): turn 1: apply raised " \
           "KeyboardInterrupt: mine" in played.output, played.output
    assert "without a word" not in played.output


def test_a_loop_in_the_rules_times_out_and_a_game_without_end_hits_the_cap(tmp_path):
    root = _nim(tmp_path, NIM.replace("        state[\"pile\"] -= card.power\n",
                                      "        while state[\"turn\"] == 2:\n            pass\n"
                                      "        state[\"pile\"] -= card.power\n", 1))
    project = Project(root)
    report = Report(root)
    rules = load_rules(project, load(project, "mini", report))
    looping = play(rules, Options(timeout=0.2), 0, 4, ("random", "random"))
    assert looping.failure == ("turn 2: the game took more than 0.2 s of processor time (a loop in the rules, or a search "
                               "budget too large for the game?)")
    endless = _nim(tmp_path / "e", NIM.replace("        return state[\"winner\"] is not None", "        return False")
                   .replace("if card.power <= state[\"pile\"]]", "]"))
    project = Project(endless)
    rules = load_rules(project, load(project, "mini", report))
    capped = play(rules, Options(move_cap=50), 0, 1, ("random", "random"))
    assert capped.failure == "turn 50: the game did not end within 50 moves (is_over never true?)"


def test_a_game_without_rules_is_told_so_first_whatever_its_players(tmp_path):
    """A game without rules.py, simulated with a --players it is not played by, was first told to pick another
    --players, and only once it had, that it had no rules at all: the rules come first."""
    root = make_project(tmp_path / "p")
    result = _simulate(root, "--players", "9", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1
    assert [line.split(": error: ")[0] for line in result.output.splitlines() if ": error: " in line] == \
        ["cards/mini/rules.py"], result.output
    assert "no rules to play" in result.output


def test_a_rules_py_that_is_a_folder_or_a_pipe_is_said_as_such(tmp_path):
    """A folder or a named pipe named rules.py was 'no rules to play: write rules.py', which is there."""
    root = _nim(tmp_path)
    rules = root / "cards/mini/rules.py"
    rules.unlink()
    rules.mkdir()
    said = _simulate(root, "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o")).output
    rules.rmdir()
    os.mkfifo(rules)
    said += _simulate(root, "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o")).output
    assert "no rules to play" not in said
    assert said.count("cards/mini/rules.py: error: rules file is a ") == 2, said


def test_a_rules_py_linked_into_the_output_folder_is_refused_unrun(tmp_path):
    """A rules.py linked to a file of output/ ran, where pictures, tables and fonts read from there are refused:
    what an earlier build (or an export someone sent, unpacked there) wrote is no game's code."""
    root = _nim(tmp_path)
    rules = root / "cards/mini/rules.py"
    planted = root / "output/rules.py"
    planted.parent.mkdir(exist_ok=True)
    planted.write_text(rules.read_text().replace("class Rules(", f"open({str(tmp_path / 'ran')!r}, 'w')\n\n\nclass Rules(", 1))
    rules.unlink()
    rules.symlink_to(planted)
    result = _simulate(root, "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "cards/mini/rules.py: error: rules file 'cards/mini/rules.py' lies in the " \
        "project's output folder" in result.output, result.output
    assert not (tmp_path / "ran").exists()


def test_a_rules_py_that_is_a_link_to_no_file_or_a_loop_is_said_as_such(tmp_path):
    """A rules.py linked to a file that is not there, or to itself, was said to be no rules at all ("no rules to
    play: write rules.py beside game.yaml"), where the user sees a rules.py."""
    root = _nim(tmp_path)
    rules = root / "cards/mini/rules.py"
    for target, said in (("missing.py", "rules file 'cards/mini/rules.py' leads to no file ('cards/mini/missing.py' "
                                        "is not there)"),
                         ("rules.py", "rules file 'cards/mini/rules.py' is a symbolic link loop")):
        rules.unlink()
        rules.symlink_to(target)
        result = _simulate(root, "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o"))
        assert result.exit_code == 1 and f"cards/mini/rules.py: error: {said}\n" in result.output, result.output


def test_a_rules_py_that_is_a_link_to_a_file_of_the_project_named_otherwise_plays_it(tmp_path):
    """A rules.py linked to rules.txt beside it (or to the game's game.yaml) was 'a bug in pnp' (AssertionError):
    Python finds no loader for a file by that name's ending. The rules are read from the file the link leads to,
    as pnp reads every file (with no link in its path)."""
    from pnp.simulate.api import GameRules, RulesSource, rules_class

    root = _nim(tmp_path)
    (root / "cards/mini/rules.py").rename(root / "cards/mini/rules.txt")
    source = RulesSource(str(root / "cards/mini/rules.txt"), "cards/mini/rules.py", root)
    assert issubclass(rules_class(source, "linked_txt"), GameRules)


def test_rules_that_do_not_load_are_errors_at_their_line(tmp_path):
    result = _simulate(_nim(tmp_path, "x = 1\n\nimport no_such_module_here\n"), "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "cards/mini/rules.py:3:1: error: the rules failed to load: ModuleNotFoundError" in result.output
    # a module of the designer's beside rules.py: said as Python's 'No module named', which the file belied
    root = _nim(tmp_path / "beside", "from helpers import X\n" + NIM)
    (root / "cards/mini/helpers.py").write_text("X = 1\n", encoding="utf-8")
    result = _simulate(root, "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "cards/mini/rules.py:1:1: error: the rules failed to load: ModuleNotFoundError" \
        in result.output and "never a module beside it such as 'helpers'" in result.output, result.output
    root = _nim(tmp_path / "2", "import random\n\nclass Rules:\n    pass\n")
    result = _simulate(root, "--out", str(tmp_path / "o"))
    assert "cards/mini/rules.py:3:1: error: rules.py must define `class Rules(GameRules)`" in result.output
    (root / "cards/mini/rules.py").write_text("from pnp.simulate.api import GameRules\n\n\nclass Rules(GameRules):\n"
                                              "    pass\n", encoding="utf-8")  # said at the class, not its imports
    result = _simulate(root, "--out", str(tmp_path / "o"))
    assert "cards/mini/rules.py:4:1: error: class Rules lacks apply, " in result.output, result.output
    (root / "cards/mini/rules.py").write_text("import random\nfrom pnp.simulate.api import GameRules as Rules\n",
                                              encoding="utf-8")  # (a class of another file: at no line of its)
    result = _simulate(root, "--out", str(tmp_path / "o"))
    assert "cards/mini/rules.py:1:1: error: class Rules lacks apply, " in result.output, result.output
    # too deep for Python's compiler, which says so at no line ("RecursionError ... during compilation")
    (root / "cards/mini/rules.py").write_text("x = " + "+".join(["1"] * 30_000) + "\n" + NIM, encoding="utf-8")
    result = _simulate(root, "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "cards/mini/rules.py: error: the rules failed to load: an expression in them " \
        "nests too deeply for Python to compile" in result.output, result.output



def test_rules_run_as_the_utf8_an_editor_shows_them(tmp_path):
    """A coding declaration made Python read rules.py in another encoding than an editor shows it: in UTF-7,
    `+AAo-` is a line break, so a line an editor shows as a comment ran. Refused at the declaration's line, as
    a byte that is not UTF-8 is at its own."""
    hidden = NIM + "\n# a note +AAo-raise SystemExit('ran a line shown as a comment')\n"
    result = _simulate(_nim(tmp_path, "#!/usr/bin/env python\n# -*- coding: utf-7 -*-\n" + hidden), "--games", "1")
    assert result.exit_code == 1 and "shown as a comment" not in result.output, result.output
    assert "cards/mini/rules.py:2:1: error: rules.py declares the encoding 'utf-7': pnp runs rules written in UTF-8 " \
           "only" in result.output, result.output
    root = _nim(tmp_path / "2", "# coding: latin-1\n" + NIM)
    (root / "cards/mini/rules.py").write_bytes(b"# coding: utf8\nx = '\xe9'\n" + NIM.encode())
    result = _simulate(root, "--games", "1", "--out", str(tmp_path / "o"))
    assert "cards/mini/rules.py:2:6: error: not UTF-8 text (byte 0xe9)" in result.output, result.output
    # a NUL, which Python refuses with no line (with old Mac line ends, lines as Python counts them)
    (root / "cards/mini/rules.py").write_bytes(b"x = 1\ry = '\0'\n" + NIM.encode())
    result = _simulate(root, "--games", "1", "--out", str(tmp_path / "o"))
    assert "cards/mini/rules.py:2:6: error: rules.py holds a NUL character" in result.output, result.output

@pytest.mark.parametrize("rules, said", [
    (NIM + "\n    def __init__(self, game):\n        raise ValueError('no deck')\n", "failed to start: ValueError: no deck"),
    ("import sys\nsys.exit(3)\n", "failed to load: SystemExit: 3"),  # exit 3 and not a word
    ("class Stop(BaseException):\n    pass\n\n\nraise Stop('here')\n", "failed to load: Stop: here"),  # a traceback
])
def test_rules_that_raise_as_they_start_are_errors_at_their_line(tmp_path, rules, said):
    result = _simulate(_nim(tmp_path, rules), "--games", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    line = rules.splitlines().index(next(r for r in rules.splitlines() if "raise" in r or "exit" in r)) + 1
    assert f"cards/mini/rules.py:{line}:1: error: the rules {said}" in result.output


BALANCE = """
balance:
  - expr: "sim.seat_win_rate[0] >= 0.99"
    message: "the first seat should always win, it won {{ '%.2f' | format(sim.seat_win_rate[0]) }}"
  - expr: "item.taken > 0.99"
    each: cards
  - expr: "sim.matchup['mcts-20'].random >= 0.5"
  - expr: "sim.matchup.mcts.random >= 0.5"
"""


def test_balance_rules_fail_with_line_value_margin_and_items(tmp_path):
    root = _nim(tmp_path, balance=BALANCE)
    result = _simulate(root, "--games", "12", "--agents", "mcts-20,random", "--out", str(tmp_path / "o"),
                       "--jobs", "1")
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if "error:" in line]
    assert lines[0].startswith("cards/mini/game.yaml:43:11: error: the first seat should always win, it won 0.")
    assert "(measured 0.5 [95% interval 0.314 to 0.686] >= 0.99, margin -0.304)" in lines[0]  # from the high end
    assert lines[1].startswith("cards/mini/game.yaml:45:11: error: balance rule not met: item.taken > 0.99")
    assert "; at fault: " in lines[1] and "Lion" in lines[1]
    assert lines[2] == ("cards/mini/game.yaml:48:11: error: balance rule failed to evaluate: no field 'mcts' (did you "
                        "mean 'mcts-20'?); the fields here are: mcts-20, random")
    assert len(lines) == 3
    assert "balance holds: sim.matchup['mcts-20'].random >= 0.5 (measured 1 [95% interval 0.8" in result.output
    assert "balance FAILS: sim.seat_win_rate[0] >= 0.99" in result.output


DRAFT = """from pnp.simulate.api import GameRules, Tracked


class Rules(GameRules):  # each player drafts one card in turn; the most powerful card wins
    ITEMS = {"cards": "card"}

    def setup(self, players, rng):
        return {"pool": sorted(c.id for c in self.game.tables.cards), "hands": [[] for _ in range(players)], "turn": 0}

    def to_act(self, state):
        return state["turn"] % len(state["hands"])

    def legal_moves(self, state):
        return [("take", c) for c in state["pool"]]

    def apply(self, state, move, rng):
        state["pool"].remove(move[1])
        state["hands"][self.to_act(state)].append(move[1])
        state["turn"] += 1
        return state

    def is_over(self, state):
        return state["turn"] == len(state["hands"])

    def scores(self, state):
        return [sum(self.game.ref.cards[c].power for c in hand) for hand in state["hands"]]

    def tracked(self, state):
        return Tracked({("cards", c.id) for c in self.game.tables.cards},
                       [{"taken": {("cards", c) for c in hand}} for hand in state["hands"]])
"""


def test_a_broken_pool_is_caught_with_the_cards_named(tmp_path):
    """Wolf (power 5 among 1-2) wins for whoever drafts it and Fern (1) loses: no formula over one card's
    numbers sees that, a few dozen games do, judged on the interval (seats of two balanced cards are spared)."""
    root = _nim(tmp_path, DRAFT, balance="balance:\n  - {each: cards, expr: 'item.gap >= -0.3 and item.gap <= 0.3'}\n")
    cards = root / "cards/mini/cards.yaml"
    cards.write_text(cards.read_text().replace("power: 4", "power: 2").replace("power: 3", "power: 5"))
    result = _simulate(root, "--games", "60", "--out", str(tmp_path / "o"), "--jobs", "1")
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert len(errors) == 1 and errors[0].startswith("cards/mini/game.yaml:42:25: error: balance rule not met: ")
    assert errors[0].endswith("; at fault: Fern, Wolf")
    assert "interval" in errors[0]
    fair = _nim(tmp_path / "fair", DRAFT, balance="balance:\n  - {each: cards, expr: 'item.gap >= -0.3 and item.gap <= 0.3'}\n")
    cards = fair / "cards/mini/cards.yaml"
    cards.write_text(re.sub(r"power: \d", "power: 3", cards.read_text()))  # every draw a tie
    assert _simulate(fair, "--games", "60", "--out", str(tmp_path / "o2"), "--jobs", "1").exit_code == 0


def test_balance_rules_are_checked_by_validate_without_playing(tmp_path):
    root = _nim(tmp_path, balance="balance:\n  - expr: \"sim.seat_win_rate[0] >=\"\n  - {expr: 'true', each: kards}\n")
    (root / "cards/mini/rules.py").write_text("raise SystemExit('rules ran')\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--root", str(root), "validate", "mini"])
    assert result.exit_code == 1
    assert "cards/mini/game.yaml:42:11: error: balance rule: " in result.output
    assert "cards/mini/game.yaml:43:26: error: balance rule 'each: kards' names no table (did you mean 'cards'?)" \
        in result.output


class _Rule(dict):
    def mark_of(self, key):
        return f"rule {self['expr']}"


@pytest.mark.parametrize("spent_before", [False, True])
def test_balance_rules_past_the_games_template_time_stop_at_the_rule_where_it_ran_out(spent_before):
    """The rule where the game's template time runs out fails there, at its line, whether its evaluation ran out
    (LimitError) or met the spent budget (BudgetSpent, where an earlier read passed over the stop); the rules
    after it are not checked (the next one's BudgetSpent escaped the command, without the file and line)."""
    from types import SimpleNamespace

    from pnp import template
    from pnp.simulate.balance import check_balance

    game = SimpleNamespace(meta={"balance": [_Rule(expr="1 > 0"), _Rule(expr="2 > 0"), _Rule(expr="3 > 0")]},
                           context=lambda **names: dict(names))
    summary = {"games": 1, "seat_win_rate": [], "agent_win_rate": {}, "matchup": {}, "end_reasons": {},
               "length": {"turns": {}}}
    with template.budget(0.0):  # spent at the first evaluation
        if spent_before:
            with pytest.raises(ExprError):
                template.evaluate("0", {})
        outcomes = check_balance(game, summary)
    assert [(o.mark, o.holds) for o in outcomes] == [("rule 1 > 0", False)]
    assert outcomes[0].message.startswith("balance rule failed to evaluate: the game's templates took longer than")


def test_validate_and_build_never_import_rules(tmp_path):
    root = _nim(tmp_path)
    marker = tmp_path / "imported"
    (root / "cards/mini/rules.py").write_text(f"open({str(marker)!r}, 'w').close()\n" + NIM, encoding="utf-8")
    for command in (["validate", "mini"], ["build", "mini", "--jobs", "1"]):
        result = CliRunner().invoke(cli, ["--root", str(root), *command])
        assert result.exit_code == 0, result.output
    assert not marker.exists()
    _simulate(root, "--games", "1", "--out", str(tmp_path / "o"))
    assert marker.exists()


def test_dino_battles_game_replays_move_by_move(tmp_path):
    result = CliRunner().invoke(cli, ["--root", str(REPO), "simulate", "dino-battles", "--games", "1", "--seed", "221",
                                      "--jobs", "1", "--log", "--out", str(tmp_path)], catch_exceptions=False)
    logged = [line for line in result.output.splitlines() if line.startswith("  turn ")]
    assert logged == (DATA / "dino-battles-seed-221.log").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("game, seed", [("diamonds-and-dinosaurs", 7), ("dinospan", 2), ("dino-ranch", 3)])
def test_other_games_replay_move_by_move(tmp_path, game, seed):
    result = CliRunner().invoke(cli, ["--root", str(REPO), "simulate", game, "--games", "1", "--seed", str(seed),
                                      "--agents", "random,random", "--jobs", "1", "--log", "--out", str(tmp_path)],
                                catch_exceptions=False)
    logged = [line for line in result.output.splitlines() if line.startswith("  turn ")]
    assert logged == (DATA / f"{game}-seed-{seed}.log").read_text(encoding="utf-8").splitlines()


def test_other_games_balance_rules_parse():
    """Their balance rules compile and name tables their rules track (validate does the same, but takes seconds
    on DinoSpan's 140 cards)."""
    import yaml
    from pnp.template import compile_expression, compile_template
    for game, tracked in (("diamonds-and-dinosaurs", {"cards"}), ("dinospan", {"dinosaurs"}),
                          ("dino-ranch", {"research"})):
        rules = yaml.safe_load((REPO / "cards" / game / "game.yaml").read_text(encoding="utf-8"))["balance"]
        assert rules
        for rule in rules:
            compile_expression(rule["expr"])
            compile_template(rule.get("message", ""))
            assert rule.get("each", next(iter(tracked))) in tracked


def test_the_rulebook_reads_the_simulation_file_or_says_there_is_none(tmp_path):
    from pnp.check import validate_game
    from pnp.products.rulebook import markdown

    root = make_project(tmp_path / "p")
    rulebook = root / "layouts/mini/rulebook.md.j2"
    rulebook.write_text(rulebook.read_text() + "\n{% if simulation %}Measured over {{ simulation.games }} games."
                        "{% else %}No simulation.{% endif %}\n")

    def text():
        project = Project(root)
        report = Report(root)
        _, studio = validate_game(project, "mini", report)  # validate renders the rulebook: errors are reported
        return "\n".join(str(e) for e in report.errors) if report.errors else markdown(studio)

    assert "No simulation." in text()
    sim = root / "output/mini/simulation.json"
    sim.parent.mkdir(parents=True)
    sim.write_text(json.dumps({"games": 40}))
    assert "Measured over 40 games." in text()
    sim.write_text("[" * 100_000)  # hostile: nested past the parser's depth
    assert "output/mini/simulation.json: error: not the JSON `pnp simulate` writes" in text()


def test_the_readme_example_is_the_reference_one_and_plays(tmp_path):
    from pnp.simulate.api import EXAMPLE
    assert f"```python\n{EXAMPLE}```" in (REPO / "README.md").read_text(encoding="utf-8")
    result = _simulate(_nim(tmp_path, EXAMPLE), "--games", "3", "--agents", "greedy,random", "--jobs", "1",
                       "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "o/mini/simulation.json").read_bytes())["games"] == 6


def test_an_agent_look_ahead_that_raises_names_the_hook_and_agent(tmp_path):
    rules = NIM.replace("    def heuristic(self, state, player):\n", "    def heuristic(self, state, player):\n"
                        "        raise KeyError('x')\n", 1)
    result = _simulate(_nim(tmp_path, rules), "--games", "1", "--agents", "greedy", "--jobs", "1",
                       "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "turn 1: heuristic (in the greedy agent's look-ahead) raised KeyError: 'x'" in result.output


@pytest.mark.parametrize("agents", ["mcts-\u0663", "mcts-03", "mcts-0", "mcts-100001"])
def test_an_mcts_agent_is_named_by_ascii_digits_one_way(tmp_path, agents):
    """'mcts-\u0663' (an Arabic-Indic three) and 'mcts-03' played as mcts-3, under other names in the results."""
    result = CliRunner().invoke(cli, ["--root", str(_nim(tmp_path)), "simulate", "mini", "--agents", agents])
    assert result.exit_code == 2 and f"--agents: unknown agent '{agents}'" in result.output, result.output
    assert "mcts-N for N iterations, 1 to 100,000" in result.output


@pytest.mark.parametrize("agents", [",", " , ,"])
def test_an_agents_list_naming_no_agent_is_a_usage_error(tmp_path, agents):
    result = CliRunner().invoke(cli, ["--root", str(_nim(tmp_path)), "simulate", "mini", "--agents", agents])
    assert result.exit_code == 2 and "--agents: name at least one agent" in result.output, result.output


@pytest.mark.parametrize("agents", ["random,", ",random", "random,,greedy", "random, ,greedy"])
def test_an_agents_list_with_an_empty_name_is_a_usage_error(tmp_path, agents):
    """`--agents random,` played random alone, as if the agent after the comma had never been typed."""
    result = CliRunner().invoke(cli, ["--root", str(_nim(tmp_path)), "simulate", "mini", "--agents", agents])
    assert result.exit_code == 2 and "--agents: an empty name in the list" in result.output, result.output
    assert not (tmp_path / "p/output/mini/simulation.json").exists()


def test_rules_whose_error_cannot_be_shown_or_is_huge_are_said_at_their_line_cut_short(tmp_path):
    """An error class whose __str__ raised was a traceback; a 10 MB message was printed whole."""
    rules = NIM + ("\nclass Unshown(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\n"
                   "\n\nclass Rules(Rules):\n    def __init__(self, game):\n        raise Unshown()\n")
    result = _simulate(_nim(tmp_path / "1", rules), "--games", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"rules.py:{len(rules.splitlines())}:1: error: the rules failed to start: Unshown: (its message cannot " \
           "be shown" in result.output, result.output
    rules = NIM + "\n    def __init__(self, game):\n        raise ValueError('x' * 10**6)\n"
    result = _simulate(_nim(tmp_path / "2", rules), "--games", "1", "--out", str(tmp_path / "o"))
    # its 500 characters kept are one word, cut in its middle as every message's word over report.MAX_WORD is
    said = next(ln for ln in result.output.splitlines() if "ValueError: " in ln)
    assert result.exit_code == 1 and "ValueError: " + "x" * 100 in said and "x" * 50 + "… (1,000,000 characters)" in said
    assert len(result.output) < 2000


def test_a_worker_the_rules_end_is_said_not_a_traceback(tmp_path):
    """os._exit in a worker (or the system killing it) broke the process pool: a traceback."""
    rules = NIM + "\n    def setup(self, players, rng):\n        import os\n        os._exit(0)\n"
    result = _simulate(_nim(tmp_path, rules), "--games", "4", "--jobs", "2", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "cards/mini/rules.py: error: a process playing the games ended without a word" in result.output, \
        result.output


@pytest.mark.parametrize("where", ["setup", "module"])
def test_rules_ending_their_process_with_jobs_1_are_said_not_exit_0(tmp_path, where):
    """os._exit(0) in the rules ended pnp with exit 0 and not a word: they now play in a process of their own."""
    ending = "\n    def setup(self, players, rng):\n        import os\n        os._exit(0)\n" if where == "setup" else \
        "\nimport os\nos._exit(0)\n"
    result = _simulate(_nim(tmp_path, NIM + ending), "--games", "2", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "cards/mini/rules.py: error: a process playing the games ended without a word" in result.output, \
        result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_threads_the_rules_leave_running_do_not_hold_the_run(tmp_path, jobs):
    """A thread the rules started (at import, in setup) kept pnp, and its worker processes, running for good."""
    rules = NIM.replace("    def setup(self, players, rng):\n",
                        "    def setup(self, players, rng):\n        threading.Thread(target=time.sleep, args=(3600,)).start()\n",
                        1) + "\nimport threading, time\nthreading.Thread(target=time.sleep, args=(3600,)).start()\n"
    result = _simulate(_nim(tmp_path, rules), "--games", "4", "--jobs", jobs, "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "o/mini/simulation.json").read_bytes())["games"] == 4


@pytest.mark.parametrize("seed", ["99999999999999999999999", "-1", "9223372036854775807"])
def test_a_seed_the_results_file_cannot_hold_is_refused(tmp_path, seed):
    """--seed 10**23 wrote a simulation.json whose seed the report refused as not what pnp simulate writes.
    A seed below 0 played another seed's deals (Python's Random takes -S as S): a run from -3 dealt three
    games twice, and -5 dealt 5's game under its own name."""
    result = _simulate(_nim(tmp_path), "--games", "2", "--seed", seed, "--out", str(tmp_path / "o"))
    assert result.exit_code == 2 and "--seed: the games are seeded S to S+1, which must lie between " \
        "0 and 9,223,372,036,854,775,807" in result.output, result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("in_the_way, said", [("output/mini", "output/mini: error: cannot write: "),
                                               ("output/mini/simulation.json/x",
                                                "output/mini/simulation.json: error: cannot write: ")])
def test_a_file_or_folder_in_the_way_of_the_results_is_named_as_the_project_names_it(tmp_path, in_the_way, said):
    """The refusal named the file by its absolute path, and output/mini (a file) as a temporary file inside it."""
    root = _nim(tmp_path)
    (root / in_the_way).parent.mkdir(parents=True, exist_ok=True)
    (root / in_the_way).write_text("mine", encoding="utf-8")
    result = _simulate(root, "--games", "2", "--jobs", "1")
    assert result.exit_code == 1 and any(line.startswith(said) for line in result.output.splitlines()), \
        result.output


RETURNED = {  # a hook returning a value pnp cannot take: said cut short, the hook named
    "huge turn number": ('        return state["turn"]', "        return 10**5000",
                         "turn returned <a whole number of 5,001 digits or so>, not a turn number"),
    "turn too large for the statistics": ('        return state["turn"]', "        return 10**400",
                                          "not a turn number (at most 9,007,199,254,740,992)"),
    "huge player": ('        return state["player"]', "        return -10**5000",
                    "to_act returned <a whole number of 5,001 digits or so>, not a player 0-1"),
    "end reason of 1 MB": ('        return "last counter"', '        return "x" * 1_000_000', "end_reason returned 'xxx"),
    "end reason forging a line": ('        return "last counter"', '        return "\\x1b[2J\\nsimulated mini: ok"',
                                  "end_reason returned '\\x1b[2J\\nsimulated mini: ok', not one line of printable "
                                  "text of at most 200 characters"),
    "a set of moves": ('        return [("play", card.id) for card in self.game.tables.cards if card.power <= state["pile"]]',
                       '        return {("play", card.id) for card in self.game.tables.cards if card.power <= state["pile"]}',
                       "}, not a list or a tuple of moves"),
    "a generator of moves": ('        return [("play", card.id) for card in self.game.tables.cards if card.power <= state["pile"]]',
                             '        return (("play", card.id) for card in self.game.tables.cards)',
                             ">, not a list or a tuple of moves"),
    "50 MB of moves": ('        return [("play", card.id) for card in self.game.tables.cards if card.power <= state["pile"]]',
                       '        return "m" * 50_000_000', "legal_moves returned 'mmm"),
}


def test_a_move_described_with_a_line_break_is_said_not_printed(tmp_path):
    """--log printed describe's text raw: a line break forged lines of the log, an escape acted on the terminal."""
    rules = NIM + "\n    def describe(self, move):\n        return 'take\\nsimulated mini: ok'\n"
    result = _simulate(_nim(tmp_path, rules), "--games", "1", "--jobs", "1", "--log", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "\nsimulated mini: ok" not in result.output
    assert "describe returned 'take\\nsimulated mini: ok', not one line of printable text" in result.output


@pytest.mark.parametrize("tracked, said", [
    ('{("cards", c.id) for c in self.game.tables.cards} | {("nosuch", "z")}', "the item ('nosuch', 'z'), which is"),
    ('{("cards", "ghost")}', "the item ('cards', 'ghost'), which is no item of a table of ITEMS"),
])
def test_items_tracked_outside_the_tables_of_items_are_said(tmp_path, tracked, said):
    """An item of no table was printed as 'nosuch never taken: z' with exit 0, and kept in simulation.json."""
    old = '        cards = {("cards", c.id) for c in self.game.tables.cards}\n'
    assert old in NIM
    result = _simulate(_nim(tmp_path, NIM.replace(old, f"        cards = {tracked}\n", 1)), "--games", "2",
                       "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and f"tracked returned {said}" in result.output, result.output
    assert not (tmp_path / "o").exists()


def test_an_event_named_with_a_megabyte_is_said_not_written(tmp_path):
    """The report refused the file simulate wrote (names of at most 200 characters)."""
    rules = NIM.replace('"effective": w}', '"effective": w, "e" * 1_000_000: p}', 1)
    result = _simulate(_nim(tmp_path, rules), "--games", "2", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "tracked (an event's name) returned 'eeee" in result.output
    assert len(result.output) < 3000 and not (tmp_path / "o").exists()


def test_two_events_whose_names_read_as_one_are_said_not_merged(tmp_path):
    """Events named 1 and "1" were written as one event "1": the items of one were lost, with exit 0."""
    rules = NIM.replace('"effective": w}', '"effective": w, 1: p, "1": w}', 1)
    assert rules != NIM
    result = _simulate(_nim(tmp_path, rules), "--games", "2", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "two of whose names read as one" in result.output, result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("value, said", [("'high'", "heuristic returned 'high', not a number"),
                                         ("float('nan')", "heuristic returned nan, not a number")])
def test_a_heuristic_that_is_no_number_is_said_as_the_heuristics(tmp_path, value, said):
    """'high' was said as a TypeError of pnp's comparing, naming no hook; NaN was judged the best position."""
    rules = NIM + f"\n    def heuristic(self, state, player):\n        return {value}\n"
    result = _simulate(_nim(tmp_path, rules), "--games", "1", "--jobs", "1", "--agents", "greedy",
                       "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and f"turn 1: {said}; replay it" in result.output, result.output


@pytest.mark.parametrize("case", sorted(RETURNED))
def test_a_hook_returning_a_value_too_large_to_show_is_said_cut_short(tmp_path, case):
    old, new, expected = RETURNED[case]
    assert old in NIM
    result = _simulate(_nim(tmp_path, NIM.replace(old, new, 1)), "--games", "1", "--jobs", "1",
                       "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and expected in result.output
    assert re.search(r"cards/mini/rules\.py:\d+:1: error: game 0 \(seed 0", result.output) and len(result.output) < 2000


@pytest.mark.parametrize("attribute, value, said", [
    ("ITEMS", "5", "ITEMS must map at most 20 table names to what one item is (a line of text), e.g. "
                   "{\"cards\": \"card\"}, not 5"),
    ("ITEMS", "{'nosuch': 'card'}", "ITEMS names 'nosuch', which is no table of game.yaml"),
    ("END_REASONS", "None", "END_REASONS must be a tuple of at most 40 lines of text, e.g. (\"last counter\",), "
                            "not None"),
])
def test_class_attributes_of_the_wrong_shape_are_said_at_their_line_before_playing(tmp_path, attribute, value, said):
    lines = NIM.splitlines(keepends=True)
    line = next(n for n, text in enumerate(lines, 1) if text.startswith(f"    {attribute} = "))
    lines[line - 1] = f"    {attribute} = {value}\n"
    result = _simulate(_nim(tmp_path, "".join(lines)), "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and f"cards/mini/rules.py:{line}:5: error: class Rules: {said}" in result.output
    assert not (tmp_path / "o/mini/simulation.json").exists()


def test_a_replay_line_never_replaces_the_runs_results(tmp_path):
    """A failed game's replay line, pasted once the rules were fixed, wrote its one game over the results of
    the whole run (output/mini/simulation.json): it writes them apart, where it says."""
    import shlex

    broken = NIM.replace("        state[\"pile\"] -= card.power\n",
                         "        state[\"pile\"] -= card.power\n        if state[\"turn\"] == 2:\n"
                         "            raise ValueError(\"no such card\")\n", 1)
    root = _nim(tmp_path, broken)
    failed = _simulate(root, "--games", "3", "--seed", "4", "--jobs", "1")
    replay = re.search(r"replay it with `(.*)`$", failed.output, re.M)
    assert failed.exit_code == 1 and replay, failed.output
    (root / "cards/mini/rules.py").write_text(NIM, encoding="utf-8")  # the rules fixed, the whole run played
    assert _simulate(root, "--games", "3", "--seed", "4", "--jobs", "1").exit_code == 0
    results = (root / "output/mini/simulation.json").read_bytes()
    replayed = CliRunner().invoke(cli, shlex.split(replay[1])[1:], catch_exceptions=False)
    apart = tmp_path / "p/output/replays/seed4-random-random/mini/simulation.json"
    assert replayed.exit_code == 0 and f"results in {apart.relative_to(root)}" in replayed.output, replayed.output
    assert (root / "output/mini/simulation.json").read_bytes() == results
    assert json.loads(apart.read_bytes())["games_per_seating"] == 1


def test_a_replay_of_a_replay_writes_beside_it_and_replays_keep_their_own_results(tmp_path, monkeypatch):
    """A replay's own failed game was replayed into replays/replays/ (a level deeper each time), and every replay
    wrote replays/<game>/simulation.json, each replacing the last one's: each is written in replays/, in a
    folder of the game it replays."""
    import shlex

    broken = NIM.replace("        state[\"pile\"] -= card.power\n",
                         "        state[\"pile\"] -= card.power\n        if state[\"turn\"] == 2:\n"
                         "            raise ValueError(\"no such card\")\n", 1)
    root = _nim(tmp_path, broken)
    monkeypatch.chdir(root)
    failed = _simulate(root, "--games", "2", "--seed", "4", "--jobs", "1")
    lines = re.findall(r"replay it with `(.*)`$", failed.output, re.M)
    assert failed.exit_code == 1 and len(lines) == 2, failed.output
    again = CliRunner().invoke(cli, shlex.split(lines[0])[1:], catch_exceptions=False)  # still broken
    assert again.exit_code == 1 and re.findall(r"replay it with `(.*)`$", again.output, re.M) == lines[:1], \
        again.output
    (root / "cards/mini/rules.py").write_text(NIM, encoding="utf-8")
    for line in lines:
        assert CliRunner().invoke(cli, shlex.split(line)[1:], catch_exceptions=False).exit_code == 0
    written = sorted(p.relative_to(root).as_posix() for p in root.glob("output/**/simulation.json"))
    assert written == ["output/replays/seed4-random-random/mini/simulation.json",
                       "output/replays/seed5-random-random/mini/simulation.json"]
    assert [json.loads((root / w).read_bytes())["seed"] for w in written] == [4, 5]


_META_HASH = "class M(type(GameRules)):\n    def __hash__(cls):\n        raise RuntimeError('no hash')\n\n\n"


@pytest.mark.parametrize("old, new, said", [
    # the rules' own self.game: with --jobs 2 pnp made each worker's Rules from it, 'a bug in pnp'
    ("class Rules(GameRules):\n", "class Rules(GameRules):\n    def __init__(self, game):\n        super().__init__(game)\n"
     "        self.game = None\n", "turn 0: setup raised AttributeError"),
    # a metaclass of theirs answering pnp's issubclass (abc hashes the class): a bug in pnp
    ("class Rules(GameRules):\n", _META_HASH + "class Rules(GameRules, metaclass=M):\n",
     "class Rules cannot be read: RuntimeError: no hash"),
])
def test_rules_classes_that_break_what_pnp_reads_of_them_are_said_as_theirs(tmp_path, old, new, said):
    result = _simulate(_nim(tmp_path, NIM.replace(old, new, 1)), "--games", "2", "--jobs", "2", "--out",
                       str(tmp_path / "o"))
    assert result.exit_code == 1 and "cards/mini/rules.py:" in result.output and said in result.output, result.output
    assert "bug in pnp" not in result.output


def test_a_rules_attribute_named_source_is_the_designers_own(tmp_path):
    """pnp noted the rules file on class Rules as `source`, over the designer's own attribute of that name: a
    game ending "the way self.source says" ended another way, written with exit 0."""
    rules = NIM.replace("class Rules(GameRules):\n", "class Rules(GameRules):\n    source = 'last counter'\n", 1)
    result = _simulate(_nim(tmp_path, rules.replace('return "last counter"', "return self.source", 1)), "--games",
                       "2", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "o/mini/simulation.json").read_bytes())["end_reasons"]["last counter"]["count"] == 2


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="Linux's /proc")
@pytest.mark.parametrize("jobs, signal_name", [("1", "SIGTERM"), ("2", "SIGKILL")])
def test_the_rules_process_ends_with_the_pnp_that_started_it(tmp_path, jobs, signal_name):
    """pnp ended (kill, an editor's stop button) left the process playing its rules running, its 100,000 games
    on: it held pnp's end of their pipe, so no game's progress ever found the pipe closed. With --jobs 2, pnp
    killed left it waiting for its workers' games, each a second long here: it played on for the 50 games of
    their chunks before it learnt that pnp had ended."""
    import signal
    import subprocess

    slow = "        import time\n        end = time.process_time() + 1\n        while time.process_time() < end:\n" \
        "            pass\n"
    root = _nim(tmp_path, NIM if jobs == "1" else NIM.replace("    def setup(self, players, rng):\n",
                                                               "    def setup(self, players, rng):\n" + slow, 1))
    pnp = subprocess.Popen([sys.executable, "-m", "pnp", "--root", str(root), "simulate", "mini", "--games", "100000",
                            "--jobs", jobs, "--out", str(tmp_path / "o")], env={**os.environ, "PYTHONPATH": str(REPO)},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children = Path(f"/proc/{pnp.pid}/task/{pnp.pid}/children")
    started: list[str] = []
    try:
        for _ in range(600):  # the rules' process, once the game is loaded
            if pnp.poll() is not None or (started := children.read_text().split()):
                break
            time.sleep(0.05)
        assert pnp.poll() is None and started, "the run ended before its rules' process was seen"
        time.sleep(0.5 * (jobs != "1"))  # (its workers started, each playing its first game)
        pnp.send_signal(getattr(signal, signal_name))
        pnp.wait(30)
        rules = Path(f"/proc/{started[0]}/stat")
        for _ in range(600):  # gone, or a zombie nobody reaps (its state, after its name in parentheses, 'Z')
            try:
                if rules.read_text().rsplit(")", 1)[-1].split()[0] == "Z":
                    break
            except FileNotFoundError:
                break
            time.sleep(0.05)
        else:
            os.kill(int(started[0]), signal.SIGKILL)
            raise AssertionError("the rules' process played on after pnp had ended")
    finally:
        pnp.kill()


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="Linux's /proc")
def test_ctrl_z_stops_the_rules_with_pnp_and_what_they_started_outside_their_group_ends_with_the_run(tmp_path):
    """Ctrl-Z (SIGTSTP to pnp's group) stopped pnp alone: the rules' process, in a session of its own, played on
    using the processor. A process the rules forked into a session of its own (a daemon's double fork) escaped
    the kill of their group, and outlived the run, holding pnp's output open."""
    import signal
    import subprocess

    escaped, rules = tmp_path / "escaped", []
    top = (f"import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
           f"        open({str(escaped)!r}, 'w').write(str(os.getpid()))\n        time.sleep(60)\n    os._exit(0)\n")
    slow = "        import time\n        end = time.process_time() + 0.005\n        while time.process_time() < end:\n" \
        "            pass\n"
    root = _nim(tmp_path, top + NIM.replace("    def setup(self, players, rng):\n",
                                            "    def setup(self, players, rng):\n" + slow, 1))
    pnp = subprocess.Popen([sys.executable, "-m", "pnp", "--root", str(root), "simulate", "mini", "--games",
                            "100000", "--jobs", "1", "--out", str(tmp_path / "o")],
                           env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, process_group=0)
    # (pnp in a group of its own, whose parent, this test, is in another of the same session, as a shell's job
    # is: the system discards a SIGTSTP sent to a process of an orphaned group, which no shell could continue,
    # and the test's own group is orphaned when pytest runs where no shell leads it, `setsid pytest` or a CI
    # runner: pnp stopping itself as the default does, by SIGTSTP, was not stopped, and the test failed there)

    def stopped(pids, stopped=True):  # whether each is (or is not) stopped within 10 s (a loaded machine took
        # more than the 2 s this waited first): its state, after its name in parentheses, 'T'
        for _ in range(500):
            if all((Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "T") == stopped
                   for pid in pids):
                return True
            time.sleep(0.02)
        return False

    try:
        children = Path(f"/proc/{pnp.pid}/task/{pnp.pid}/children")
        for _ in range(600):  # the rules' process (pnp's first child), once their module's top has run and pnp
            # handles SIGTSTP (the line SigCgt of its status, in hexadecimal, has its bit)
            caught = re.search(r"SigCgt:\s*([0-9a-f]+)", Path(f"/proc/{pnp.pid}/status").read_text())
            if pnp.poll() is not None or ((rules := children.read_text().split()[:1]) and escaped.exists() and
                                          caught and int(caught[1], 16) >> (signal.SIGTSTP - 1) & 1):
                break
            time.sleep(0.02)
        pnp.send_signal(signal.SIGTSTP)
        assert stopped([pnp.pid, *rules])
        pnp.send_signal(signal.SIGCONT)
        assert stopped(rules, False)  # (continued with pnp)
        pnp.send_signal(signal.SIGINT)
        assert pnp.wait(30) == 1, pnp.stderr.read()  # (Ctrl-C: "Aborted!")
        pid = int(escaped.read_text())
        assert not Path(f"/proc/{pid}").exists(), "a process the rules started outlived the run"
    finally:
        pnp.kill()
        if rules:  # (stopped, with pnp killed: nothing ends them)
            with contextlib.suppress(OSError):
                os.killpg(int(rules[0]), signal.SIGKILL)
        if escaped.exists() and Path(f"/proc/{escaped.read_text()}").exists():
            os.kill(int(escaped.read_text()), signal.SIGKILL)


def test_a_game_stopped_and_continued_meanwhile_is_not_said_to_have_waited():
    """A game stopped with pnp (Ctrl-Z) longer than the idle check used no processor time meanwhile: continued,
    it was said to have waited for good, and the run failed. The process playing it holds SIGCONT pending to
    tell; the look after that one judges again."""
    import signal
    import threading

    from pnp.simulate.run import _alarm, _Waiting, hold_continue

    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    alarm = _alarm(60, 10)
    alarm.inside, alarm.used = True, time.process_time()
    try:
        hold_continue()
        signal.pthread_kill(threading.get_ident(), signal.SIGCONT)
        alarm._check_playing(signal.SIGALRM, None)
        with pytest.raises(_Waiting):
            alarm._check_playing(signal.SIGALRM, None)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def test_a_player_count_the_game_is_not_played_by_is_refused_at_its_players(tmp_path):
    """A game for 2-3 (mini's game.yaml, line 2) simulated with 4 players: its figures were written as the
    game's, exit 0."""
    root = _nim(tmp_path)
    result = _simulate(root, "--players", "4", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and "cards/mini/game.yaml:2:10: error: --players 4: the game is played by 2-3 " \
        "players" in result.output, result.output
    assert not (tmp_path / "o").exists()


def test_a_failed_games_replay_line_plays_that_game(tmp_path):
    """The replay line names the failed game's seating (random,greedy,random); it replayed the first seating of
    those agents (random,random,greedy) with that seed: another game."""
    root = _nim(tmp_path)
    run = _simulate(root, "--games", "1", "--players", "3", "--agents", "random,greedy", "--seed", "0", "--log",
                    "--jobs", "1", "--out", str(tmp_path / "a"))
    game = run.output.split("game 1 (seed 1)\n")[1].split("game 2")[0]
    assert "P1 greedy" in game and "P2 random" in game  # the seating random,greedy,random
    replay = _simulate(root, "--seed", "1", "--games", "1", "--players", "3", "--agents", "random,greedy,random",
                       "--log", "--jobs", "1", "--out", str(tmp_path / "b"))
    assert replay.output.startswith(f"game 0 (seed 1)\n{game}")


UNMEASURED = {  # (the rules' change, the balance rule's table, why no item of it was measured)
    "untracked table": ("", "extras", "the rules do not track extras (their ITEMS: cards)"),
    "nothing in play": ("        cards = {(\"cards\", c.id) for c in self.game.tables.cards}\n",
                        "cards", "no item of cards was in play in any game"),
}


@pytest.mark.parametrize("case", sorted(UNMEASURED))
def test_a_balance_rule_measuring_no_item_fails_at_its_each(tmp_path, case):
    """`each: extras` where rules.py's ITEMS tracks only cards, or `each: cards` where no card was ever in play:
    no item was measured, and an impossible rule (item.gap > 5) 'held' with exit 0."""
    old, table, why = UNMEASURED[case]
    rule = f"  - {{each: {table}, expr: 'item.gap > 5'}}"
    rules = NIM.replace(old, "        cards = set()\n", 1) if old else NIM
    assert rules != NIM or not old
    root = _nim(tmp_path, rules, balance=f"balance:\n{rule}\n")
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "tables:\n", "tables:\n  extras:\n    fields:\n      id: {type: id}\n      name: {type: str}\n", 1),
        encoding="utf-8")
    (root / "cards/mini/extras.yaml").write_text("- {id: a, name: A}\n", encoding="utf-8")
    result = _simulate(root, "--games", "2", "--jobs", "1", "--out", str(tmp_path / "o"))
    line = game.read_text(encoding="utf-8").splitlines().index(rule) + 1
    assert result.exit_code == 1
    assert f"cards/mini/game.yaml:{line}:12: error: balance rule 'each: {table}': {why}, so the run measured none " \
           "of its items" in result.output


def test_a_runs_length_figures_from_counts_are_those_of_the_games_listed():
    """The run keeps how many games took each number of turns, not the games (a million games kept whole took
    about 4 GB): the mean, median (odd and even counts) and bounds are those of the values listed."""
    import statistics
    from collections import Counter
    from random import Random

    from pnp.simulate.stats import _spread

    rng = Random(7)
    for n in (1, 2, 3, 10, 11, 101):
        values = [rng.randrange(1, 40) for _ in range(n)]
        assert _spread(Counter(values)) == {"mean": statistics.fmean(values), "min": min(values),
                                            "median": statistics.median(values), "max": max(values)}
    assert _spread(Counter()) == {}


LINE_OF_HOOK = {  # a hook whose value pnp cannot take, said at the line defining that hook (it was rules.py alone)
    "to_act": ('        return state["player"]', "        return 7", "to_act returned 7"),
    "scores": ('        return [1 if p == state["winner"] else 0 for p in range(state["players"])]',
               "        return 'win'", "scores returned 'win'"),
    "end_reason": ('        return "last counter"', "        return 'a\\nb'", "end_reason returned 'a\\nb'"),
    "tracked": ('        cards = {("cards", c.id) for c in self.game.tables.cards}\n',
                '        cards = {("cards", "ghost")}\n', "tracked returned the item ('cards', 'ghost')"),
    "heuristic": ('        good = state["pile"] % 5 != 0\n', "        return 'high'\n", "heuristic returned 'high'"),
    "is_over": ('        return state["winner"] is not None', "        return False", "did not end within"),
}


@pytest.mark.parametrize("hook", sorted(LINE_OF_HOOK))
def test_a_hook_returning_a_bad_value_is_said_at_the_line_defining_it(tmp_path, hook):
    old, new, said = LINE_OF_HOOK[hook]
    rules = NIM.replace(old, new, 1).replace("if card.power <= state[\"pile\"]]", "]")  # (is_over: moves go on)
    line = rules.splitlines().index(f"    def {hook}(self, state{', player' * (hook == 'heuristic')}):") + 1
    agent = "random" if hook == "is_over" else "greedy"  # (random plays the 20,000 moves of a game that never
    # ends many times faster: greedy asks the heuristic of each move)
    result = _simulate(_nim(tmp_path, rules), "--games", "1", "--jobs", "1", "--agents", agent,
                       "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and f"cards/mini/rules.py:{line}:1: error: game 0 " in result.output, result.output
    assert said in result.output


def test_an_inherited_hook_returning_a_bad_value_is_said_at_the_class(tmp_path):
    """describe is GameRules' own here: the move it cannot print is said at `class Rules`."""
    rules = NIM.replace('return [("play", card.id)', 'return [("play\\n", card.id)', 1)
    line = rules.splitlines().index("class Rules(GameRules):") + 1
    result = _simulate(_nim(tmp_path, rules), "--games", "1", "--jobs", "1", "--log", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and f"cards/mini/rules.py:{line}:1: error: game 0 " in result.output, result.output
    assert "describe returned 'play\\n" in result.output


_TRACKED = 'return Tracked(cards, [{"taken": p, "played": p, "effective": w}'
_STR_SUBCLASS = "class S(str):\n    pass\n\n\nclass Rules(GameRules):\n"
SHAPES = {  # what the rules declare or track, of a shape the run or the report cannot hold: said at its line
    "events for more players than play": (
        ('for p, w in zip(state["played"], state["won_with"])])', 'for p, w in zip(state["played"], state["won_with"])] * 3)'),
        "tracked returned events for 6 players, not a list of one mapping per player (at most 2)", "def tracked"),
    "an endless iterable of items": ((_TRACKED, 'import itertools\n        ' + _TRACKED.replace("cards,", 'itertools.repeat(("cards", "lion")),')),
                                     "tracked returned more than 100,000 (table, id) pairs in a game", "def tracked"),
    "an item that is no pair": ((_TRACKED, _TRACKED.replace("cards,", '{"ab"},')), "tracked returned 'ab', not a (table, id) pair",
                                "def tracked"),
    "an event's items that are None": ((_TRACKED, _TRACKED.replace('"taken": p,', '"taken": None,')),
                                       "tracked returned None where the items go, not a set of (table, id) pairs",
                                       "def tracked"),
    "an event's items that are a text": ((_TRACKED, _TRACKED.replace('"taken": p,', '"taken": "cards",')),
                                         "tracked returned 'cards' where the items go", "def tracked"),
    "41 events": ((_TRACKED, _TRACKED.replace('"effective": w', '"effective": w, **{f"e{k}": p for k in range(38)}')),
                  "tracked returned the events {", "def tracked"),
    "41 ways to end": (('        return "last counter"', '        self.ended = getattr(self, "ended", 0) + 1\n'
                                                        '        return f"end {self.ended}"'),
                       None, None),
    "END_REASONS of 41": (('END_REASONS = ("last counter",)', 'END_REASONS = tuple(map(str, range(41)))'),
                          "class Rules: END_REASONS must be a tuple of at most 40 lines of text", "END_REASONS ="),
    "END_REASONS of a megabyte": (('END_REASONS = ("last counter",)', 'END_REASONS = ("x" * 1_000_000,)'),
                                  "class Rules: END_REASONS must be a tuple of at most 40 lines", "END_REASONS ="),
    "ITEMS whose items() raises": (("class Rules(GameRules):\n", "class D(dict):\n    def items(self):\n        raise ValueError('no')"
                                    "\n\n\nclass Rules(GameRules):\n"), "class Rules: ITEMS cannot be read: ValueError: no",
                                   "raise ValueError('no')"),
    "ITEMS of a str subclass": (("class Rules(GameRules):\n    ITEMS = {\"cards\": \"card\"}",
                                 _STR_SUBCLASS + "    ITEMS = {S(\"cards\"): S(\"card\")}"), None, None),
    "END_REASONS of a str subclass": (("class Rules(GameRules):\n    ITEMS = {\"cards\": \"card\"}\n    END_REASONS = (\"last counter\",)",
                                       _STR_SUBCLASS + "    ITEMS = {\"cards\": \"card\"}\n    END_REASONS = (S(\"last counter\"),)"),
                                      None, None),
}


@pytest.mark.parametrize("case", sorted(SHAPES))
def test_what_the_rules_declare_or_track_is_of_a_shape_the_run_and_the_report_hold(tmp_path, case):
    """Each was a bug in pnp (a str subclass could not be sent back from the rules' process; an IndexError; an
    unreadable ITEMS), 3 GB (an endless iterable), or a simulation.json the report refused, written with exit 0."""
    (old, new), said, at = SHAPES[case]
    assert old in NIM
    rules = NIM.replace(old, new, 1)
    if case == "ITEMS whose items() raises":
        rules = rules.replace('ITEMS = {"cards": "card"}', 'ITEMS = D(cards="card")')
    root = _nim(tmp_path, rules)
    games = "50" if case == "41 ways to end" else "3"  # (each fault is met in the first game; the run plays on)
    result = _simulate(root, "--games", games, "--jobs", "1", "--out", str(tmp_path / "o"))
    if said is None:  # taken as plain texts (a str subclass), or 41 ways to end in 50 games said at end_reason
        if case == "41 ways to end":
            line = rules.splitlines().index("    def end_reason(self, state):") + 1
            assert result.exit_code == 1 and f"rules.py:{line}:1: error: " in result.output, result.output
            assert "a way to end past the 40 a run may count" in result.output
        else:
            assert result.exit_code == 0, result.output
            assert "(table, id)" not in result.output
        return
    line = next(n for n, text in enumerate(rules.splitlines(), 1) if at in text)
    assert result.exit_code == 1 and f"cards/mini/rules.py:{line}:" in result.output and said in result.output, \
        result.output
    assert "bug in pnp" not in result.output and not (tmp_path / "o").exists()


def test_a_log_past_its_cap_is_cut_and_said(tmp_path, monkeypatch):
    """--log kept every move of every game until the run ended: 300 long games took 820 MB (the real cap is
    100,000 lines; the run's process is forked, so it sees the patched one)."""
    monkeypatch.setattr("pnp.simulate.stats.MAX_LOG_LINES", 10)
    whole = _simulate(_nim(tmp_path / "a"), "--games", "5", "--jobs", "1", "--log", "--out", str(tmp_path / "o"))
    moves = sum(1 for line in whole.output.splitlines() if line.startswith("  turn "))
    assert whole.exit_code == 0 and moves == 10, whole.output
    assert re.search(r"the log stops here: [1-9][\d,]* more lines are not kept", whole.output), whole.output


def test_progress_bars_show_a_name_as_written(monkeypatch):
    """A game folder named 'g{0}' was a format field of the simulate bar (a bug in pnp on a terminal), and
    '[link=...]' in a name or label was rich markup: a link in the terminal, the words between hidden."""
    import io

    from rich.console import Console

    from pnp import cli as cli_module

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    name = "g{0} [link=file:///etc]x[/link] [red]"
    bar = cli_module._simulation_bar(name, 3)
    assert bar.bars is not None
    shown = io.StringIO()
    bar.bars.live.console = Console(file=shown, force_terminal=True, width=200)
    with bar as advance:
        assert advance is not None
        advance(1)
        bar.bars.refresh()
    assert f"{name}: playing" in shown.getvalue() and "\x1b]8;" not in shown.getvalue()  # (no hyperlink)


def test_a_table_named_with_a_colon_is_written_as_that_table(tmp_path):
    """Items were kept as "table:id" and split at the first ':': a table named 'c:x' was written as a table 'c'
    holding an item 'x:lion', with exit 0."""
    root = _nim(tmp_path, NIM.replace('ITEMS = {"cards": "card"}', 'ITEMS = {"cards": "card", "c:x": "other"}')
                .replace('cards = {("cards", c.id) for c in self.game.tables.cards}',
                         'cards = {("cards", c.id) for c in self.game.tables.cards} | {("c:x", "lion")}'))
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "tables:\n", 'tables:\n  "c:x":\n    file: other.yaml\n    fields: {id: {type: id}, name: {type: str}}\n'),
        encoding="utf-8")
    (root / "cards/mini/other.yaml").write_text("- id: lion\n  name: Other Lion\n", encoding="utf-8")
    result = _simulate(root, "--games", "2", "--jobs", "1")
    assert result.exit_code == 0, result.output
    items = json.loads((root / "output/mini/simulation.json").read_text(encoding="utf-8"))["items"]
    assert sorted(items) == ["c:x", "cards"] and list(items["c:x"]) == ["lion"]
    assert items["c:x"]["lion"]["name"] == "Other Lion"


def test_agents_named_many_times_are_written_once_and_the_report_reads_them(tmp_path):
    """'random' 15,000 times was written so into simulation.json (and printed), whose reader refused the list
    (it reads at most 16 agents), as it did a run of 17 different agents."""
    from pnp.insight.simulation import read_simulation

    root = _nim(tmp_path)
    result = _simulate(root, "--games", "1", "--jobs", "1", "--agents", ",".join(["random"] * 40 + ["greedy"]))
    assert result.exit_code == 0, result.output
    assert "agents random, greedy, seed 0\n" in result.output
    found = read_simulation(Project(root.resolve()), "mini")
    assert found.problems == [] and found.summary["agents"] == ["random", "greedy"]
    many = _simulate(root, "--agents", ",".join(f"mcts-{n}" for n in range(1, 18)), "--players", "1")
    assert many.exit_code == 2 and "--agents: at most 16 different agents" in many.output


def test_a_run_stops_after_a_few_failed_games(tmp_path):
    """Rules whose setup fails for every seed played every game on (100 games of a setup looping until its
    120 s ran out: over three hours), though a run with a failed game writes no figures: it stops after the few
    it says, whatever the jobs."""
    rules = NIM.replace("        pile = int(", "        sum(range(1_000_000))\n        raise ValueError('no pile')\n"
                        "        pile = int(", 1)
    root = _nim(tmp_path, rules)
    said = []
    for jobs in ("1", "2"):
        result = _simulate(root, "--games", "300", "--jobs", jobs, "--out", str(tmp_path / "o"))
        assert result.exit_code == 1, result.output
        said.append(result.output)
    assert said[0] == said[1]
    assert said[0].count("setup raised ValueError: no pile") == 5
    assert "cards/mini/rules.py: error: the run stopped after 5 failed games, 5 of its 300 games played" in said[0]
    assert not (tmp_path / "o" / "mini" / "simulation.json").exists()


def test_rules_taking_too_much_memory_fail_at_their_line(tmp_path):
    """Rules keeping 3 GB a game took the machine's memory and ran past a minute: the rules' process may take
    1 GB beyond pnp's, and the allocation past it is a fault of the rules, said at its line."""
    rules = NIM.replace("        pile = int(", "        self.hog = b'x' * 3_000_000_000\n        pile = int(", 1)
    line = rules.splitlines().index("        self.hog = b'x' * 3_000_000_000") + 1
    result = _simulate(_nim(tmp_path, rules), "--games", "2", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1
    assert f"cards/mini/rules.py:{line}:1: error: game 0 (seed 0, seats random,random): turn 0: setup raised " \
           "MemoryError: past the 1,024 MB of memory the rules may take" in result.output, result.output


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_rules_raising_the_recursion_limit_past_its_bound_are_said_at_that_line(tmp_path, jobs):
    """Rules setting Python's recursion limit to 10**9 and recursing for good ran 45 s to the end of their
    memory, said as CPython's 'SystemError: error return without exception set': the processes playing the
    rules refuse a limit past 50,000 calls at the line setting it; one within it is kept."""
    rules = NIM.replace("        pile = int(", "        import sys\n        sys.setrecursionlimit(LIMIT)\n"
                        "        assert sys.getrecursionlimit() == LIMIT\n        pile = int(", 1)
    line = rules.splitlines().index("        sys.setrecursionlimit(LIMIT)") + 1
    refused = _simulate(_nim(tmp_path / "a", rules.replace("LIMIT", "10**9")), "--games", "2", "--jobs", jobs,
                        "--out", str(tmp_path / "o"))
    assert refused.exit_code == 1
    assert f"cards/mini/rules.py:{line}:1: error: game 0 (seed 0, seats random,random): turn 0: setup raised " \
           "ValueError: pnp plays the rules with a recursion limit of at most 50,000 calls, not 1,000,000,000" \
           in refused.output, refused.output
    kept = _simulate(_nim(tmp_path / "b", rules.replace("LIMIT", "20_000")), "--games", "2", "--jobs", jobs,
                     "--out", str(tmp_path / "o"))
    assert kept.exit_code == 0, kept.output


@pytest.mark.parametrize("call", ["signal.signal(signal.SIGALRM, signal.SIG_IGN)",
                                  "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})",
                                  "signal.setitimer(signal.ITIMER_REAL, 0)", "signal.alarm(0)",
                                  "signal.sigwait({signal.SIGUSR1})"])
def test_rules_taking_the_idle_checks_signal_are_said_at_that_line(tmp_path, call):
    """Rules that ignored, blocked or disarmed SIGALRM (the check that a game still plays) and then slept, or
    waited in signal.sigwait (which that signal does not end), played one game for good, past every bound: the
    rules' handling of it, and sigwait, are refused at their line."""
    rules = NIM.replace("        pile = int(", f"        import signal\n        {call}\n        pile = int(", 1)
    line = rules.splitlines().index(f"        {call}") + 1
    refused = _simulate(_nim(tmp_path, rules), "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert refused.exit_code == 1
    assert f"cards/mini/rules.py:{line}:1: error: game 0 (seed 0, seats random,random): turn 0: setup raised " \
           "ValueError: pnp's check that a game still plays uses SIGALRM" in refused.output, refused.output


def test_rules_lowering_the_recursion_limit_under_pnps_need_are_said_at_that_line(tmp_path):
    """Rules lowering Python's recursion limit to 75 (40 in __init__ in a command line's run) failed in pnp's own
    code between two of their calls (pickling a game's results), said as 'This is a bug in pnp' (RecursionError)
    at no line: a limit under 200 calls is refused at the line setting it."""
    rules = NIM.replace("        pile = int(", "        import sys\n        sys.setrecursionlimit(75)\n        pile = int(", 1)
    line = rules.splitlines().index("        sys.setrecursionlimit(75)") + 1
    refused = _simulate(_nim(tmp_path, rules), "--games", "2", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert refused.exit_code == 1
    assert f"cards/mini/rules.py:{line}:1: error: game 0 (seed 0, seats random,random): turn 0: setup raised " \
           "ValueError: pnp plays the rules with a recursion limit of at least 200 calls" in refused.output, \
           refused.output


def test_running_out_of_memory_compiling_the_rules_is_said_as_compiling(tmp_path, monkeypatch):
    """Python running out of memory compiling rules.py (1 MB of short lines takes 600 MB; less under a limit
    set on pnp) was said as the rules' allocation past their 1 GB, as if running them had taken it."""
    from pnp.simulate import api

    def short_of_memory(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(api, "compile", short_of_memory, raising=False)  # (the builtin the module calls)
    result = _simulate(_nim(tmp_path), "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1
    assert f"cards/mini/rules.py: error: the rules failed to load: Python ran out of memory compiling them " \
           f"({NIM.count(chr(10)) + 1:,} lines" in result.output, result.output


def test_a_rules_file_too_large_is_refused_before_it_is_compiled(tmp_path):
    """12 MB of rules took 36 s and 4.6 GB for Python to compile: refused by its size first."""
    rules = NIM + "\n" + "# padding\n" * 110_000
    result = _simulate(_nim(tmp_path, rules), "--games", "1", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1
    assert f"cards/mini/rules.py: error: the rules file is {len(rules.encode()):,} bytes: pnp loads rules of at " \
           "most 1,048,576" in result.output, result.output


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_stops_at_its_first_game_out_of_time(tmp_path, jobs):
    """Rules looping for good spent the 120 s a game may take on each of the five failed games a run stops
    after: ten minutes for a game that needs a second. The run stops at its first game out of time, whatever
    the jobs (the same game is said)."""
    from pnp.simulate import simulate

    root = _nim(tmp_path, NIM.replace("        pile = int(", "        while rng.random() < 2:\n            pass\n"
                                      "        pile = int(", 1))
    project, report = Project(root), Report(root)
    sim = simulate(project, "mini", Options(games=40, jobs=jobs, timeout=0.3), tmp_path / "o", report)
    said = [str(e) for e in report.errors]
    assert len(said) == 2 and "game 0 (seed 0, seats random,random): turn 0: the game took more than 0.3 s" in said[0]
    assert "the run stopped after a game that ran out of time, 1 of its 40 games played" in said[1], said
    assert sim.path is None and not (tmp_path / "o" / "simulation.json").exists()


@pytest.mark.skipif((os.cpu_count() or 1) < 2 or not Path("/proc/self/statm").exists(),
                    reason="one core (--jobs 2 plays in one worker), or no /proc to size the processes by")
@pytest.mark.parametrize("top, hog, said", [
    ("", "        hog = bytearray(700_000_000)", "setup raised MemoryError"),
    ("held = bytearray(400_000_000)", "", "the rules failed to load: MemoryError")])
def test_the_workers_of_jobs_share_the_rules_memory(tmp_path, top, hog, said):
    """With --jobs N each worker could take the rules' 1 GB: N GB in all, past the bound the README gives. They
    share it with the process that loads the rules: 700 MB a game fits one process's 1 GB
    (test_rules_taking_too_much_memory...), not a third of it, said at its line. What the rules hold from their
    top there is the workers' too, each copying it as it writes it beyond any limit of address space: rules
    holding 700 MB at their top took 2.1 GB with --jobs 2; now 400 MB is past that process's third."""
    import subprocess

    rules = top + "\n" + NIM.replace("        pile = int(", hog + "\n        pile = int(", 1)
    line = rules.splitlines().index(hog or top) + 1
    # run as a user runs it, in a pnp of its own: the rules' room is counted in address space, and a process
    # forked from a test worker's heap found room for 700 MB in its free space (a limit of RLIMIT_AS: see
    # simulate.run._cap_memory), as a `pnp simulate` holding little does not
    shared = subprocess.run([sys.executable, "-m", "pnp", "--root", str(_nim(tmp_path, rules)), "simulate", "mini",
                             "--games", "4", "--jobs", "2", "--out", str(tmp_path / "o")],
                            env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120)
    output = shared.stdout + shared.stderr
    assert shared.returncode == 1, output
    found = re.search(f"cards/mini/rules.py:{line}:1: error: (?:game 0 \\(seed 0, seats random,random\\): turn 0: )?"
                      f"{said}: past the ([0-9]+) MB of memory the rules may take beyond pnp's \\(this process's share "
                      "of the run's 1,024 MB\\)", output)
    assert found and int(found[1]) <= 1024 // 3, output


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="no /proc to size the processes by")
def test_many_cores_leave_each_worker_a_useful_share_of_the_rules_memory(tmp_path, monkeypatch):
    """On 64 cores the default 64 workers had 16 MB each of the rules' 1 GB: rules taking 100 MB a game, which
    run alone, failed. A run plays in 7 workers at most (128 MB each, as has the process that loaded the rules)."""
    rules = NIM.replace("        pile = int(", "        hog = bytes(100_000_000)\n        pile = int(", 1)
    from pnp import project as project_mod
    from pnp.simulate import run as run_mod

    monkeypatch.setattr(project_mod, "usable_cores", lambda: 64)  # (the cores the default --jobs takes)
    monkeypatch.setattr(run_mod, "usable_cores", lambda: 64)
    result = _simulate(_nim(tmp_path, rules), "--games", "16", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "o/mini/simulation.json").read_bytes())["games"] == 16


@pytest.mark.parametrize("wait", ["lock.acquire()", "time.sleep(3600)"])
def test_rules_waiting_for_good_fail_at_their_line(tmp_path, wait):
    """A game's timeout counts processor time, so rules waiting on a lock they hold, or sleeping, held the run
    (and pnp) for good: a game that uses no processor time for a while is said at the line that waits."""
    rules = NIM.replace("        pile = int(", f"        lock = threading.Lock()\n        lock.acquire()\n        {wait}\n"
                        "        pile = int(", 1) + "\nimport threading, time\n"
    line = [n for n, text in enumerate(rules.splitlines(), 1) if text == f"        {wait}"][-1]
    root = _nim(tmp_path, rules)
    project = Project(root)
    rules_loaded = load_rules(project, load(project, "mini", Report(root)))
    waiting = play(rules_loaded, Options(idle=0.3), 0, 0, ("random", "random"))
    assert waiting.failure == "turn 0: the game waited 0.3 s without playing (a lock, a sleep or input in the rules?)"
    assert waiting.line == line


@pytest.mark.parametrize("in_the_way, said", [("file", "error: cannot write: "),
                                               ("folder", "o/mini/simulation.json: error: cannot write: a folder is in"),
                                               ("lock link", "o/mini/.pnp.lock: error: cannot write: a symbolic link is"),
                                               ("lock folder", "o/mini/.pnp.lock: error: cannot write: a folder is in"),
                                               ("long name", "is 300 bytes long, past the"),
                                               ("user's file", "o/mini/simulation.json: error: a file pnp did not "
                                                               "write (no simulation.json of mini) is in the results'"),
                                               ("user's json", "o/mini/simulation.json: error: a file pnp did not "
                                                               "write (no simulation.json of mini) is in the results'"),
                                               ("link", "o/mini/simulation.json: error: a link is in the results'")])
def test_results_that_cannot_be_written_are_said_before_the_games_are_played(tmp_path, in_the_way, said):
    """A file where --out's folder goes (/dev/null), or a folder where simulation.json goes: the run played
    every game, then said it could write none of their figures. A folder name longer than the system allows
    was a traceback ("File name too long") where the folder in the way was looked for. A link or a folder in
    the place of the folder's lock (a game folder sent with its output/) was said after the games, at the
    folder (`output/mini: ... a symbolic link is in its place`, which it is not), in the system's words. A
    results file is known by the line naming its game as pnp writes it, not by parsing it (a received one of
    64 MB of `[],` took 4.7 s and 1.7 GB to parse): a JSON of the user's naming the game otherwise is kept."""
    root = _nim(tmp_path)
    out = tmp_path / ("n" * 300 if in_the_way == "long name" else "f") / "o"
    if in_the_way == "file":
        (tmp_path / "f").write_text("mine", encoding="utf-8")
    elif in_the_way == "folder":
        (out / "mini" / "simulation.json").mkdir(parents=True)
    elif in_the_way in ("user's file", "user's json", "link"):  # (--out ~/Desktop over the user's own file:
        (out / "mini").mkdir(parents=True)  # replaced, exit 0)
        mine = '{"game": "mini"}' if in_the_way == "user's json" else "mine"
        (tmp_path / "mine.json").write_text(mine, encoding="utf-8")
        if in_the_way == "link":
            (out / "mini" / "simulation.json").symlink_to(tmp_path / "mine.json")
        else:
            (out / "mini" / "simulation.json").write_text(mine, encoding="utf-8")
    elif in_the_way.startswith("lock"):
        (out / "mini").mkdir(parents=True)
        if in_the_way == "lock link":
            (out / "mini" / ".pnp.lock").symlink_to(tmp_path / "elsewhere")
        else:
            (out / "mini" / ".pnp.lock").mkdir()
    result = _simulate(root, "--games", "2", "--jobs", "1", "--out", str(out))
    assert result.exit_code == 1 and said in result.output, result.output
    assert "mini: 2 games" not in result.output, "the games were played"
    if in_the_way in ("user's file", "user's json", "link"):
        assert (out / "mini/simulation.json").read_text(encoding="utf-8") == (tmp_path / "mine.json").read_text(
            encoding="utf-8")  # kept, link and all
        assert (out / "mini/simulation.json").is_symlink() == (in_the_way == "link")


def test_rules_looping_inside_one_call_of_python_are_ended_at_their_timeout(tmp_path):
    """The timeout is a signal, which Python handles between two steps of the rules, never inside one call of
    its own: `-1 in itertools.count()` looped for good past it, and pnp simulate with it. The system ends the
    process playing the game a moment past its processor time, said as such, with no core file left."""
    from pnp.simulate import simulate

    rules = NIM.replace("        pile = int(", "        -1 in itertools.count()\n        pile = int(", 1) + \
        "\nimport itertools\n"
    root = _nim(tmp_path, rules)
    project, report = Project(root), Report(root)
    sim = simulate(project, "mini", Options(games=4, jobs=1, timeout=0.3), tmp_path / "o", report)
    said = [str(e) for e in report.errors]
    assert len(said) == 1 and said[0].startswith("cards/mini/rules.py: error: a game ran past its 0.3 s of "
                                                 "processor time inside one call"), said
    assert sim.path is None  # (ended by the system's limit, as said: never a timed assertion)
    assert not list(Path.cwd().glob("core*")) and not list(root.rglob("core*"))


def test_an_alarm_the_kernel_delivers_after_a_game_ended_does_nothing():
    """A game's processor-time and idle alarms may arrive late, after the game ended at about its timeout:
    once the handlers were put back as they were (the default action), such an alarm ended pnp."""
    import signal

    from pnp.simulate.run import _alarm

    with _alarm(5, 5):
        pass
    signal.raise_signal(signal.SIGVTALRM)
    signal.raise_signal(signal.SIGALRM)  # (the process is still here to run the next line)
    assert signal.getsignal(signal.SIGVTALRM) not in (signal.SIG_DFL, None)


def test_the_rules_played_are_rules_py_never_a_bytecode_file_beside_it(tmp_path, monkeypatch):
    """Python's importer runs __pycache__/rules.cpython-3XX.pyc in place of a rules.py whose time and size it
    matches: a game someone sent ran the .pyc it shipped, not the rules.py the user read, and pnp wrote such a
    file into cards/<game>/ (a folder it only reads). The rules are compiled from rules.py's own bytes."""
    import importlib._bootstrap_external as bootstrap

    root = _nim(tmp_path)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as a user's Python (the tests' environment sets it)
    result = _simulate(root, "--games", "2", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (root / "cards/mini").iterdir()) == ["cards.yaml", "game.yaml", "rules.py"]
    source = root / "cards/mini/rules.py"
    shipped = compile(NIM + "\nraise SystemExit('the shipped bytecode ran')\n", str(source), "exec")
    cached = Path(bootstrap.cache_from_source(str(source)))
    cached.parent.mkdir()
    cached.write_bytes(bootstrap._code_to_timestamp_pyc(shipped, int(source.stat().st_mtime), source.stat().st_size))
    for jobs in ("1", "2"):  # pnp's process for the run, and its workers
        result = _simulate(root, "--games", "2", "--jobs", jobs, "--out", str(tmp_path / "o"))
        assert result.exit_code == 0 and "shipped bytecode" not in result.output, result.output


def test_a_table_whose_id_field_is_a_map_is_played_not_blamed_on_the_rules(tmp_path):
    """A table's field named `id` may be of any type: a map's value stopped every run of a game that validated,
    said as the rules failing to start at rules.py. Its items are in `tables`, not in `ref` (no key)."""
    root = _nim(tmp_path)
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("constraints:", "  things:\n    file: things.yaml\n"
                    "    fields:\n      id: {type: map}\nconstraints:", 1), encoding="utf-8")
    (root / "cards/mini/things.yaml").write_text("- id: {a: 1}\n- id: {b: 2}\n", encoding="utf-8")
    result = _simulate(root, "--games", "2", "--jobs", "1", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0 and "error" not in result.output, result.output


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_log_lines_past_its_cap_are_counted_never_written(tmp_path, monkeypatch, jobs):
    """Every move of every game was described, sent back and dropped past the lines the run keeps: 300 long
    games took 129 s and 350 MB for the 100,000 lines printed (37 s and 45 MB without --log). Past the cap, a
    process counts the lines and calls no describe (one raising there fails no game); the count is exact."""
    describing = NIM + ("\n    described = 0\n\n    def describe(self, move):\n        type(self).described += 1\n"
                        "        if type(self).described > 10:\n            raise ValueError('described past the cap')\n"
                        "        return str(move)\n")
    root = _nim(tmp_path, NIM + "\n    def describe(self, move):\n        return str(move)\n")
    whole = _simulate(root, "--games", "6", "--jobs", jobs, "--log", "--out", str(tmp_path / "o"))
    moves = sum(1 for line in whole.output.splitlines() if line.startswith("  turn "))
    monkeypatch.setattr("pnp.simulate.stats.MAX_LOG_LINES", 10)
    (root / "cards/mini/rules.py").write_text(describing, encoding="utf-8")
    cut = _simulate(root, "--games", "6", "--jobs", jobs, "--log", "--out", str(tmp_path / "o"))
    assert cut.exit_code == 0 and "described past the cap" not in cut.output, cut.output
    assert f"the log stops here: {moves - 10:,} more lines are not kept" in cut.output, (moves, cut.output)


@pytest.mark.parametrize("stuck, said", [
    ("while True: pass\n", "took more than 0.3 s of processor time to load"),  # the module's top
    ("import time\ntime.sleep(60)\n", "waited 0.5 s without doing anything as they loaded"),
])
def test_rules_looping_or_waiting_as_they_load_are_stopped_at_their_line(tmp_path, stuck, said):
    """A game's loop is stopped at its timeout, but the rules' code that runs as they load (the module's top,
    ITEMS, __init__) held pnp for good."""
    from pnp.simulate import simulate

    rules = NIM.replace("class Rules(GameRules):", stuck + "\n\nclass Rules(GameRules):", 1)
    line = rules.splitlines().index(stuck.splitlines()[-1]) + 1
    root = _nim(tmp_path, rules)
    report = Report(root)
    sim = simulate(Project(root), "mini", Options(games=2, jobs=1, timeout=0.3, idle=0.5), tmp_path / "o", report)
    assert len(report.errors) == 1 and sim.path is None
    assert str(report.errors[0]).startswith(f"cards/mini/rules.py:{line}:1: error: the rules {said}"), report.errors


def test_a_replay_line_names_a_game_folder_of_shell_signs_as_one_word(tmp_path):
    """A game folder named 'mini$(touch x)' made a failed game's replay line that, pasted, ran `touch x`."""
    import shlex

    root = _nim(tmp_path, NIM.replace("        pile = int(", "        raise ValueError('no pile')\n        pile = int(", 1))
    name = "mini $(touch x);`y`"
    for folder in ("cards", "layouts"):
        (root / folder / "mini").rename(root / folder / name)
    result = CliRunner().invoke(cli, ["--root", str(root), "simulate", name, "--games", "1", "--jobs", "1",
                                      "--out", str(tmp_path / "o")], catch_exceptions=False)
    replay = re.search(r"replay it with `(.*)`$", result.output, re.M)
    assert result.exit_code == 1 and replay, result.output
    assert shlex.split(replay[1])[3:5] == ["simulate", name], replay[1]


def test_the_rules_hash_texts_the_same_way_in_every_run(tmp_path):
    """Python orders a set of texts by a hash it seeds anew in each process: rules offering the moves of
    `{card.id ...}` played other games from the same seed in each run (another simulation.json, and a failed
    game's replay line replayed another game). `pnp simulate` plays with the hash seed fixed, whatever the
    environment's."""
    import subprocess

    rules = NIM.replace("class Rules(GameRules):\n", "class Rules(GameRules):\n    def describe(self, move):\n"
                        "        return f\"hash {hash('lion')}\"\n\n", 1)
    env = {**os.environ, "PYTHONHASHSEED": "1", "PYTHONPATH": str(REPO)}
    command = ["--root", str(_nim(tmp_path, rules)), "simulate", "mini", "--games", "1", "--jobs", "1", "--log"]
    # as `python -m pnp`, and as `python -E -m pnp` (-E, and -I, have Python ignore PYTHONHASHSEED: each run
    # hashed anew), and as `python -E -c CODE` (whose code was not read from the command line: run as it was),
    # and as `python -E SCRIPT` of a script naming itself 'pnp' in sys.argv (run again as a file 'pnp'), at once
    script = tmp_path / "run-pnp.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(REPO)!r})\nsys.argv[0] = 'pnp'\n"
                      "from pnp.cli import main\nmain()\n", encoding="utf-8")
    runs = [[sys.executable, "-m", "pnp"], [sys.executable, "-E", "-m", "pnp"],
            [sys.executable, "-E", "-c", "from pnp.cli import main; main()"], [sys.executable, "-E", str(script)]]
    started = [subprocess.Popen([*program, *command, "--out", str(tmp_path / f"o{n}")], env=env, cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for n, program in enumerate(runs)]
    said = [process.communicate(timeout=60) for process in started]
    fixed = subprocess.run([sys.executable, "-c", "print(hash('lion'))"], env={**env, "PYTHONHASHSEED": "0"},
                           capture_output=True, text=True, check=True).stdout.strip()
    for process, (out, err), program in zip(started, said, runs):
        assert process.returncode == 0 and f"P0 random: hash {fixed}\n" in out, (program, out + err)


def test_the_command_is_run_again_where_no_process_can_be_replaced(tmp_path):
    """Where a process cannot be replaced by another (Windows), pnp simulate played with the hash seed of each
    run: it runs the command as a process of its own, with the seed fixed, and ends with its exit code."""
    import subprocess

    code = ("import os, sys, pnp.cli as c; c._COMMAND_LINE['on'] = True; os.name = 'nt'; c._with_fixed_hash_seed(); "
            "os.name = 'posix'; print(hash('lion')); sys.exit(3)")
    env = {**os.environ, "PYTHONHASHSEED": "1", "PYTHONPATH": str(REPO)}
    played = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    fixed = subprocess.run([sys.executable, "-c", "print(hash('lion'))"], env={**env, "PYTHONHASHSEED": "0"},
                           capture_output=True, text=True, check=True).stdout
    assert (played.returncode, played.stdout) == (3, fixed), played.stderr


def test_the_exit_code_of_the_command_run_again_is_pnps_own():
    """Where the command runs as a process of pnp's (Windows), a crash's or Ctrl-C's code (0xC0000005,
    0xC000013A: Windows' codes are unsigned) was an OverflowError traceback as pnp exited with it."""
    import subprocess

    from pnp.cli import _exit_code_of

    for code in (0, 1, 3, 0xC0000005, 0xC000013A, -9):
        said = subprocess.run([sys.executable, "-c", f"import os; os._exit({_exit_code_of(code)})"],
                              capture_output=True, text=True, timeout=60)
        assert said.stderr == "" and said.returncode == (code & 0xFF if code >= 0 else 128 - code), (code, said)


def test_the_code_of_python_c_is_read_as_python_reads_it():
    """Under -E or -I, `python -c CODE simulate` was played with the hash seed of each run: the code is read from
    the whole command line, wherever Python's options put it; so are a module's name and a program's file."""
    from pnp.cli import _program_run

    assert _program_run(["py", "-E", "-c", "main()", "simulate"]) == ["-c", "main()", "simulate"]
    assert _program_run(["py", "-Ecmain()", "simulate"]) == ["-c", "main()", "simulate"]
    assert _program_run(["py", "-W", "-c", "-I", "-c", "-c"]) == ["-c", "-c"]
    assert _program_run(["py", "-Wc", "-X", "dev", "--check-hash-based-pycs", "always", "-c", "x"]) == ["-c", "x"]
    assert _program_run(["py", "-E", "-m", "pnp", "-c"]) == ["-m", "pnp", "-c"]
    assert _program_run(["py", "-Impnp", "simulate"]) == ["-m", "pnp", "simulate"]
    assert _program_run(["py", "-E", "prog.py", "-c", "x"]) == ["prog.py", "-c", "x"]
    assert _program_run(["py", "-E", "--", "-prog.py", "x"]) == ["-prog.py", "x"]
    for standard_input in (["py"], ["py", "-E"], ["py", "-", "simulate"], ["py", "-E", "--", "-"], ["py", "-c"]):
        assert _program_run(standard_input) is None, standard_input


def test_a_program_read_from_standard_input_is_not_run_again(monkeypatch):
    """`python - simulate ...` with pnp's main() on standard input: run again with the hash seed fixed, it read
    nothing from standard input, played nothing and said nothing, with exit 0. It plays as it was run."""
    import pnp.cli as cli_module

    for read in (["py", "-", "simulate", "mini"], ["py"]):  # (sys.argv[0] '-' and '')
        monkeypatch.setattr(sys, "orig_argv", read)
        assert cli_module._command_line_again() is None
    monkeypatch.setattr(sys, "orig_argv", ["py", "/bin/pnp", "simulate", "mini"])
    assert cli_module._command_line_again() is not None


def test_rules_stuck_inside_one_call_of_python_as_they_load_are_said_as_loading(tmp_path, monkeypatch):
    """`x = 9**9**9` at the top of rules.py runs inside calls nothing interrupts: the system ends the process at
    the timeout, which was said as a game run past its time, to be seen with --log (no game had begun)."""
    from pnp.simulate import run, simulate

    monkeypatch.setattr(run, "HARD_STOP_GRACE", 0.0)  # (the system's limit, in whole seconds: one, not two)
    root = _nim(tmp_path, "import itertools\n\n-1 in itertools.count()\n" + NIM)
    project, report = Project(root), Report(root)
    # (half a second, not less: with 0.01 s, compiling rules.py on a loaded machine ran past it before the call
    # began, and pnp's own timer said so; the system's limit is one second either way)
    simulate(project, "mini", Options(games=1, jobs=1, timeout=0.5), tmp_path / "o", report)
    said = [str(e) for e in report.errors]
    assert len(said) == 1 and said[0].startswith("cards/mini/rules.py: error: the rules ran past 0.5 s of processor "
                                                 "time as they loaded, inside one call"), said


def test_a_stop_the_rules_finalizers_swallow_is_raised_again(tmp_path):
    """A game's stop raised inside the rules' __del__, run by the garbage collector, is swallowed by Python (it
    printed a traceback and went on): the next such __del__ sleeping held the game past its limits, and one
    looping held it for good. The stop is raised again until it is met, and the game is said as stopped."""
    slow = ("\n\nclass Slow:\n    left = 3\n\n    def __del__(self):\n        if Slow.left > 0:\n"
            "            Slow.left -= 1\n            time.sleep(1)\n")
    rules = NIM.replace("    def setup(self, players, rng):\n",
                        "    def setup(self, players, rng):\n        for _ in range(3):\n            cycle = Slow()\n"
                        "            cycle.me = cycle\n        del cycle\n        gc.collect()\n", 1)
    root = _nim(tmp_path, "import gc\nimport time\n" + rules + slow)
    project = Project(root)
    rules = load_rules(project, load(project, "mini", Report(root)))
    waiting = play(rules, Options(idle=0.2), 0, 1, ("random", "random"))
    assert re.fullmatch(r"turn \d+: the game waited 0.2 s without playing .*", waiting.failure), waiting.failure
    assert waiting.timed_out


@pytest.mark.parametrize("stuck, said", [
    ("while True:\n            pass", "took more than 0.1 s of processor time after the game, as its failure was said"),
    ("time.sleep(3600)", "waited 0.2 s without doing anything after the game, as its failure was said")])
@pytest.mark.parametrize("left", ["raised", "cycle", "message"])
def test_rules_code_stuck_after_a_game_fails_it_at_its_line(tmp_path, monkeypatch, stuck, said, left):
    """The rules' code that runs after a game, past its alarm, between games: a __del__ of an object the game
    left (in the frames of the exception that ended it, or in a reference cycle the collector frees later), or
    the __str__ of the error it raised, said as its failure. Looping or sleeping, it held the run and pnp for
    good. It runs under a game's bound, and the game fails at its line."""
    setup = {"raised": "        held = Held()\n        raise ValueError('no game')\n",
             "cycle": "        held = Held()\n        held.me = held\n        del held\n",
             "message": ""}[left]
    rules = NIM.replace("    def setup(self, players, rng):\n", "    def setup(self, players, rng):\n" + setup, 1)
    rules = rules.replace("    def apply(self, state, move, rng):\n", "    def apply(self, state, move, rng):\n"
                          "        raise Held()\n", 1) if left == "message" else rules
    method = "__str__" if left == "message" else "__del__"
    rules = "import time\n" + rules + f"\n\nclass Held(Exception):\n    def {method}(self):\n        {stuck}\n"
    line = rules.splitlines().index(f"        {stuck.splitlines()[0]}") + 1
    root = _nim(tmp_path, rules)
    project = Project(root)
    loaded = load_rules(project, load(project, "mini", Report(root)))
    gc.disable()  # (the cycle is collected after the game, not by a collection the game's allocations set off)
    try:
        result = play(loaded, Options(timeout=0.1, idle=0.2), 0, 1, ("random", "random"))
    finally:
        gc.enable()
    assert said in result.failure and result.line == line and result.timed_out, (result.failure, result.line)


THREAD = "(thread := threading.Thread(target=Held.__del__, args=(None,))).start() or thread.join()"


@pytest.mark.parametrize("made, where", [("Held()", "setup"), (THREAD, "setup"), (THREAD, "top")])
def test_an_error_the_rules_raise_where_python_ignores_it_fails_the_game(tmp_path, made, where):
    """An error raised in a __del__ is ignored by Python, which printed it as a traceback for each game, and the
    run was said ok with exit 0: it is the game's failure, at its line. So is one that ends a thread the rules
    started (a traceback for each game, the run said ok); and one raised as the rules load (said nowhere, or a
    traceback, the run said ok) fails the run."""
    rules = "import threading\n" + NIM
    if where == "setup":
        rules = rules.replace("    def setup(self, players, rng):\n", f"    def setup(self, players, rng):\n        {made}\n", 1)
    rules += "\n\nclass Held:\n    def __del__(self):\n        raise ValueError('not let go')\n"
    if where == "top":
        rules += f"\n\n{made}\n"
    result = _simulate(_nim(tmp_path, rules), "--games", "2", "--jobs", "1")
    line = rules.splitlines().index("        raise ValueError('not let go')") + 1
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    said = "game 0 (seed 0, seats random,random): turn 0: the rules raised ValueError: not let go where" \
        if where == "setup" else "the rules raised ValueError: not let go as they loaded, where"
    assert f"cards/mini/rules.py:{line}:1: error: {said} Python ignores it" in result.output, result.output


@pytest.mark.parametrize("error, between", [("ValueError", True), ("Odd", True), ("Odd", False)])
def test_an_error_the_rules_raise_between_two_games_fails_the_next(tmp_path, error, between):
    """A thread the rules started that raised between two games (after one's bound, before the next's) was a
    traceback in the terminal, the run said ok: where the rules play, such an error is kept, and the next game
    fails with it at its line. An error whose class overrides with_traceback (raising) was a traceback of
    Python's hook, in a game too: it is kept by Python's own method."""
    import threading

    from pnp.simulate.run import keep_ignored_between

    rules = NIM + (f"\n\nclass Odd(ValueError):\n    def with_traceback(self, tb):\n        raise TypeError\n\n\n"
                   f"def fail():\n    raise {error}('between games')\n")
    if not between:  # (raised by a thread of setup's, in the game)
        rules = "import threading\n" + rules.replace("    def setup(self, players, rng):\n", "    def setup(self, "
                                                      "players, rng):\n        (t := threading.Thread(target=fail))"
                                                      ".start() or t.join()\n", 1)
    project = Project(root := _nim(tmp_path, rules))
    loaded = load_rules(project, load(project, "mini", Report(root)))
    put_back = keep_ignored_between()
    try:
        if between:
            (thread := threading.Thread(target=sys.modules[type(loaded).__module__].fail)).start()
            thread.join()
        result = play(loaded, Options(), 0, 1, ("random", "random"))
    finally:
        put_back()
    line = rules.splitlines().index(f"    raise {error}('between games')") + 1
    assert f"raised {error}: between games where Python ignores it" in result.failure and result.line == line, \
        (result.failure, result.line)


@pytest.mark.parametrize("chunk", [True, False])
def test_an_error_the_rules_raise_after_their_last_game_is_said(tmp_path, monkeypatch, chunk):
    """An error Python ignored after a process's last game (a thread of the rules raising as the run ended) was
    kept for the next game's bound, and there was none: said nowhere, the run said ok. A worker's chunk gives it
    to its last game; the run's end says it at its line."""
    import threading

    from pnp.simulate import run as run_mod

    rules = NIM + "\n\ndef fail():\n    raise ValueError('after the game')\n"
    project = Project(root := _nim(tmp_path, rules))
    loaded = load_rules(project, load(project, "mini", Report(root)))
    line = rules.splitlines().index("    raise ValueError('after the game')") + 1
    put_back = run_mod.keep_ignored_between()
    try:
        if chunk:
            def then_raise(*args):  # (the thread raises after the game's bound, as the chunk ends)
                result = play(*args)
                (thread := threading.Thread(target=sys.modules[type(loaded).__module__].fail)).start()
                thread.join()
                return result

            monkeypatch.setattr(run_mod, "play", then_raise)
            monkeypatch.setitem(run_mod._WORKER, "rules", loaded)
            monkeypatch.setitem(run_mod._WORKER, "options", Options())
            result = run_mod._play_chunk([(0, 1, ("random", "random"))])[-1]
            said, at = result.failure, result.line
        else:
            play(loaded, Options(), 0, 1, ("random", "random"))
            (thread := threading.Thread(target=sys.modules[type(loaded).__module__].fail)).start()
            thread.join()
            said, mark = run_mod.ignored_after(loaded, "after the run's last game")
            at = mark.line
    finally:
        put_back()
    assert said.startswith("the rules raised ValueError: after the game after ") and at == line, (said, at)


def test_cycles_the_rules_keep_past_a_game_are_collected_once_let_go(tmp_path):
    """Each game's reference cycles are collected after it, without a pass over all of pnp's data: what the rules
    keep from one game to the next, in a cycle, is collected once they let it go (a collection leaving out
    what lived before each game left out for good what a game kept and the next let go)."""
    rules = NIM.replace("    def setup(self, players, rng):\n", "    def setup(self, players, rng):\n"
                        "        kept = getattr(self, 'kept', [])\n        if len(kept) > 2 and kept[-3]() is not None:\n"
                        "            raise ValueError('a cycle let go two games ago is alive')\n"
                        "        cycle = Cycle()\n        cycle.me = cycle\n        self.last = cycle\n"
                        "        self.kept = kept + [weakref.ref(cycle)]\n", 1)
    root = _nim(tmp_path, "import weakref\n" + rules + "\n\nclass Cycle:\n    pass\n")
    result = _simulate(root, "--games", "6", "--jobs", "1")
    assert result.exit_code == 0, result.output


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the rules play in pnp's own process where none is forked")
def test_a_fork_of_the_rules_that_comes_back_into_pnp_ends_there(tmp_path):
    """Rules forking without ending the child (os.fork() in setup, no os._exit) held a run of --jobs 2 for good:
    the fork of a worker took a chunk of games from the pool's queue and never gave it back. A fork of the rules
    that comes back into pnp's code (a game's end, the rules' loading) ends there, without a word."""
    import signal

    rules = NIM.replace("    def setup(self, players, rng):\n", "    def setup(self, players, rng):\n"
                        "        if not getattr(type(self), 'forked', False):\n            type(self).forked = True\n"
                        "            os.fork()\n", 1)

    def held(signum, frame):
        raise AssertionError("the run was held")

    before = signal.signal(signal.SIGALRM, held)
    signal.alarm(20)
    try:
        result = _simulate(_nim(tmp_path, "import os\n" + rules), "--games", "4", "--jobs", "2",
                           "--out", str(tmp_path / "o"))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
    assert result.exit_code == 0, result.output


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the rules play in pnp's own process where none is forked")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_rules_crashing_their_process_in_c_code_are_said_at_the_line_that_called_it(tmp_path, jobs):
    """Rules calling C code that crashed (ctypes reading address 0: SIGSEGV) were said to have ended their process
    without a word, at no line (and with PYTHONFAULTHANDLER set, with a traceback of pnp's frames): the process
    playing them has Python's faulthandler report its crash to pnp, which says the rules' line in it."""
    rules = NIM.replace("    def setup(self, players, rng):\n", "    def setup(self, players, rng):\n"
                        "        if rng.random() < 0.5:  # (game 1's seed, not game 0's: one crash)\n"
                        "            ctypes.string_at(0)\n", 1)
    rules = "import ctypes\n" + rules
    line = rules.splitlines().index("            ctypes.string_at(0)") + 1
    result = _simulate(_nim(tmp_path, rules), "--games", "2", "--jobs", jobs, "--out", str(tmp_path / "o"))
    assert result.exit_code == 1 and f"cards/mini/rules.py:{line}:1: error: a process playing the games crashed (" \
        in result.output, result.output
    assert ("in a call the rules make at this line (into C code: ctypes, a library's?); run with --jobs 1" in
            result.output) == (jobs == "2"), result.output  # (a worker's crash, said by the process it ended in)


def test_rules_ending_their_process_while_a_fork_of_it_lives_on_are_said_at_once(tmp_path):
    """A process the rules forked holds the pipe pnp hears the games on: once the rules ended their own
    (os._exit), pnp waited for a word until that fork ended (for good, when it never did)."""
    late = tmp_path / "late"
    rules = "import os, time\n" + NIM.replace(
        "    def apply(self, state, move, rng):\n", "    def apply(self, state, move, rng):\n        if os.fork() == 0:\n"
        f"            time.sleep(3)\n            open({str(late)!r}, 'w').close()\n            os._exit(0)\n"
        "        os._exit(3)\n", 1)
    result = _simulate(_nim(tmp_path, rules), "--games", "1", "--jobs", "1")
    assert not late.exists(), "pnp waited for the fork of the rules' process to end"
    assert result.exit_code == 1 and "a process playing the games ended without a word" in result.output, result.output


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="Linux's /proc")
def test_the_chunks_of_a_run_of_two_processes_are_given_to_the_pool_in_game_order_a_few_ahead():
    """The first chunks are played first: given to the pool last to first (as run 44f's first fix of the race
    below did), a run stopped by its first game waited for every other game to be played, each up to its
    timeout, before that game's result came (0.4 s -> 3.2 s for 40 games looping). And a few past the one the
    run waits for: given all at once, the workers played on past a game of a minute, and the run kept every
    chunk they played until it came (5 MB a second, past 1 GB in a run of a million games)."""
    from concurrent.futures import Future

    from pnp.simulate.run import _in_order

    given = []

    class Pool:
        def submit(self, fn, chunk):
            given.append(chunk)
            future = Future()
            future.set_result(chunk)
            return future

    chunks = [[1, 2], [3, 4], [5], [6], [7]]
    games = _in_order(Pool(), chunks, 1)
    assert next(games) == chunks[0] and given == chunks[:3]  # (the one waited for, one ahead, and the next)
    assert list(games) == chunks[1:] and given == chunks


def test_a_run_of_two_processes_stopped_by_its_failed_games_leaves_no_traceback(tmp_path, monkeypatch):
    """A --jobs 2 run stopped at its fifth failed game kills its workers as Ctrl-C does: the chunks not played,
    cancelled by pool.map in the run's thread, were failed again by the pool's thread, which found the workers
    killed, and its traceback (InvalidStateError) was printed under the run's errors about one run in four (in
    the process playing the rules, which ends at once; here, where nothing ends it, every time). Ctrl-C to a
    --jobs 2 run printed the same traceback one time in two, by the same race."""
    import threading
    from concurrent.futures.process import _ExecutorManagerThread

    from pnp.simulate.run import run

    root = _nim(tmp_path, NIM.replace("    def setup(self, players, rng):\n",
                                      "    def setup(self, players, rng):\n        raise ValueError('no')\n", 1))
    rules = load_rules(Project(root), load(Project(root), "mini", Report(root)))
    raised: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda hooked: raised.append(hooked.exc_value))
    games = run(rules, Options(games=2000, jobs=2))
    failed = [next(games) for _ in range(5)]
    games.close()  # (as the run stops: see _played)
    for thread in threading.enumerate():
        if isinstance(thread, _ExecutorManagerThread):
            thread.join(10)
    assert all(result.failure for result in failed) and raised == []


# __init__ run again in each worker of --jobs 2 (its first run, in the process that loaded the rules, went well)
AGAIN = ("class Rules(GameRules):\n    made = 0\n\n    def __init__(self, game):\n        super().__init__(game)\n"
         "        type(self).made += 1\n        if type(self).made > 1:\n            {}\n")


@pytest.mark.parametrize("again, said", [("raise ValueError('second')", "the rules failed to start: ValueError: second"),
                                         ("while True: pass", "the rules took more than 0.05 s of processor time to load")])
def test_rules_failing_or_looping_as_a_worker_makes_them_are_said_at_their_line(tmp_path, again, said):
    """A worker of --jobs N makes the rules again, unbounded and unwatched: an error there was a traceback ('Exception
    in initializer') and 'a process ended without a word ... run with --jobs 1', which played well; a loop or a wait
    held the run, and pnp, for good."""
    from pnp.errors import DataError
    from pnp.simulate.run import run

    root = _nim(tmp_path, NIM.replace("class Rules(GameRules):\n", AGAIN.format(again), 1))
    rules = load_rules(Project(root), load(Project(root), "mini", Report(root)))
    with pytest.raises(DataError) as refused:
        list(run(rules, Options(games=4, jobs=2, timeout=0.05)))
    assert str(refused.value.mark) == "cards/mini/rules.py:14:1" and refused.value.message.startswith(said)


def test_ctrl_c_reaching_a_process_playing_the_rules_as_it_starts_is_no_traceback(tmp_path, monkeypatch, capfd, request):
    """A process pnp starts to play the rules took a Ctrl-C that reached it as it started, before it could take it
    as pnp's stop, as a traceback ('Process pnp-rules: Traceback ... KeyboardInterrupt' from end_with_parent; a
    worker of --jobs 2, 'Exception in initializer: Traceback ... Interrupted'). Each starts with Ctrl-C held: the
    process playing the rules lets it in once it stops on it without a word, a worker never (the process that
    started it kills it), and here, where Ctrl-C reaches that one process alone, plays on."""
    import signal

    from pnp.errors import DataError
    from pnp.simulate import run as run_module

    started = run_module.end_with_parent
    monkeypatch.setattr(run_module, "end_with_parent",
                        lambda **group: (os.kill(os.getpid(), signal.SIGINT), started(**group)))
    # as in pnp's own process, Ctrl-C is Python's KeyboardInterrupt, which pnp takes over: set here, not assumed of
    # the test's process (one CI run played on through the Ctrl-C; pnp takes it over only from Python's own)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))
    root = _nim(tmp_path)
    project = Project(root)
    game = load(project, "mini", Report(root))
    with pytest.raises(DataError, match="without a word"):  # (Ctrl-C reached pnp too, which says it: not here)
        run_module.run_apart(project, game, Options(games=1))
    assert "Traceback" not in capfd.readouterr().err
    assert len(list(run_module.run(load_rules(project, game), Options(games=4, jobs=2)))) == 4
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="no /proc to size the processes by")
def test_a_memory_error_says_the_room_a_limit_the_process_started_under_leaves(monkeypatch):
    """A worker of --jobs 2 is forked from the process that made the rules: rules whose __init__ took 600 MB left
    it 424 MB under the limit it inherited, lower than its share, and its MemoryError said 'past the 1,024 MB'."""
    import resource

    from pnp.simulate import api, run as run_mod

    size = int(Path("/proc/self/statm").read_bytes().split()[0]) * resource.getpagesize()
    monkeypatch.setattr(resource, "getrlimit", lambda which: (size + (300 << 20), resource.RLIM_INFINITY))
    monkeypatch.setattr(resource, "setrlimit", lambda *a: pytest.fail("the lower limit inherited is kept"))
    monkeypatch.setattr(api, "memory_room", api.memory_room)
    monkeypatch.setattr(api, "memory_bound", getattr(api, "memory_bound", ""), raising=False)
    monkeypatch.setattr(run_mod, "watch_resident", lambda cap: None)  # (this test process's memory is its own)
    run_mod._cap_memory(api.RULES_MEMORY // 2)
    said = api.raised(MemoryError())
    assert re.fullmatch(r"MemoryError: past the (299|300) MB of memory the rules may take beyond pnp's \(what the "
                        r"memory limit this process started under leaves them\)", said), said


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="no /proc to size the processes by")
def test_memory_held_past_the_rules_share_raises_memory_error_whatever_the_heap():
    """The rules' share was a limit of address space only, which counts what a process maps anew: forked from a
    heap holding much free space, the rules filled it unseen (700 MB in a 341 MB share). Memory held (resident)
    past the share now raises MemoryError in the main thread, where the rules play."""
    from pnp.simulate import run as run_mod

    pid = os.fork()  # (a process of its own, as the rules' is: the exception is raised in its main thread)
    if pid == 0:
        code = 1
        try:
            resident = int(Path("/proc/self/statm").read_bytes().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            run_mod.watch_resident([resident + (16 << 20)])
            held = []
            for _ in range(150):  # (150 MB at most: the watcher looks every 100 ms)
                held.append(b"\1" * (1 << 20))
                time.sleep(0.002)
        except MemoryError:
            code = 0
        finally:
            os._exit(code)
    assert os.waitpid(pid, 0)[1] == 0


def test_the_watchers_memory_error_waits_while_a_message_to_pnp_is_written():
    """Raised inside Connection.send, the watcher's MemoryError left half a message in the pipe, which pnp read
    as the start of the next one. While the process writes one (_send holds _SENDING), the watcher waits."""
    from pnp.simulate import run as run_mod

    pid = os.fork()  # (a process of its own, as above)
    if pid == 0:
        code = 1
        try:
            with run_mod._SENDING:  # over the cap from the start: raised only once the message is written
                run_mod.watch_resident([0])
                deadline = time.monotonic() + 3 * run_mod.RESIDENT_POLL
                while time.monotonic() < deadline:
                    time.sleep(0.002)
            code = 2
            deadline = time.monotonic() + 30 * run_mod.RESIDENT_POLL
            while time.monotonic() < deadline:
                time.sleep(0.002)
        except MemoryError:
            code = 0 if code == 2 else 3
        finally:
            os._exit(code)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0  # (3: raised while sending; 2: never raised)


def test_memory_error_reaching_pnps_code_where_the_rules_play_is_theirs_not_a_bug_in_pnp(monkeypatch):
    """Rules that caught the watcher's MemoryError (`except Exception`) and kept the memory had it raised again
    1 s later wherever their process was: in pnp's sending of a game's progress, said 'This is a bug in pnp'. A
    MemoryError that stops the process playing the rules is the rules' refusal at their file; anything else
    goes to pnp as it is."""
    from pnp.errors import DataError
    from pnp.simulate import api, run as run_mod

    monkeypatch.setattr(api, "memory_room", 341 << 20)
    monkeypatch.setattr(api, "memory_bound", " (this process's share of the run's 1,024 MB)")
    said = run_mod.said_apart(MemoryError(), "cards/mini/rules.py")
    assert isinstance(said, DataError) and said.mark is not None and said.mark.file == "cards/mini/rules.py"
    assert "more than the 341 MB of memory they may take beyond pnp's (this process's share" in said.message
    # pnp's own call to the system failing in the rules' process (rules lowering RLIMIT_NOFILE: no pipe for the
    # pool) was said 'pnp: cannot write its output: Too many open files', at no file; rules setting sys.excepthook
    # to None made the pool's thread 'RuntimeError: sys.excepthook is None', 'This is a bug in pnp'
    for error in (OSError(24, "Too many open files"), RuntimeError("sys.excepthook is None")):
        said = run_mod.said_apart(error, "cards/mini/rules.py")
        assert isinstance(said, DataError) and said.mark is not None and said.mark.file == "cards/mini/rules.py"
        assert str(error) in said.message
    other = ValueError("x")
    assert run_mod.said_apart(other, "cards/mini/rules.py") is other


def test_an_error_raised_at_an_instruction_of_no_line_is_said_at_its_functions_line():
    """The watcher's MemoryError, raised at whatever instruction the rules were at, had a traceback whose line
    was None (a loop's jump back): the failure's message was sorted by it, and the run said 'a bug in pnp'."""
    import types

    from pnp.simulate.api import code_mark

    def rules():
        for i in range(3):
            try:
                yield i
            except Exception:
                pass

    frame = rules().gi_frame
    lineless = next(start for start, _, line in frame.f_code.co_lines() if line is None)
    error = MemoryError()
    error.__traceback__ = types.TracebackType(None, frame, lineless, -1)
    assert error.__traceback__.tb_lineno is None  # (as CPython 3.11 makes it)
    assert code_mark(error, "cards/mini/rules.py", __file__).line == frame.f_code.co_firstlineno


def test_a_runs_games_are_scheduled_as_it_reaches_them():
    """A run of a million games listed every one up front: 180 MB held from its start (README: a million games
    take no more memory than a hundred). They are made as the run reaches them, the same games in the same order."""
    import tracemalloc

    from pnp.simulate.run import games_in, schedule

    small = Options(games=3, agents=("random", "greedy"), seed=7)
    assert list(schedule(small)) == [(0, 7, ("random", "greedy")), (1, 8, ("random", "greedy")),
                                     (2, 9, ("random", "greedy")), (3, 10, ("greedy", "random")),
                                     (4, 11, ("greedy", "random")), (5, 12, ("greedy", "random"))]
    assert games_in(small) == 6
    tracemalloc.start()
    try:
        first = next(iter(schedule(Options(games=1_000_000, agents=("random", "greedy")))))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert first == (0, 0, ("random", "greedy")) and peak < 1 << 20, peak


def test_the_rules_file_is_read_beneath_the_project_and_its_lines_found_in_the_text_that_ran(tmp_path):
    """rules.py was checked inside the project, then read again by its path with every link followed: by each
    worker of --jobs N started afresh (spawned, as on macOS and Windows), and for the line of a bad ITEMS. A
    rules.py swapped since for a link out of the project was then run by the workers, and the line said was
    the other file's."""
    from pnp.errors import DataError
    from pnp.simulate.api import RulesSource, declared, rules_class

    root = _nim(tmp_path, NIM.replace('    ITEMS = {"cards": "card"}\n', '    ITEMS = 5\n', 1))
    rules = root / "cards/mini/rules.py"
    project = Project(root)
    source = RulesSource(str(rules), "cards/mini/rules.py", project.root)
    loaded = rules_class(source, "beneath_line")
    outside = tmp_path / "outside.py"
    outside.write_text("\n" * 40 + NIM.replace('    ITEMS = {"cards": "card"}\n', '    ITEMS = 5\n', 1).replace(
        "class Rules(", f"open({str(tmp_path / 'ran')!r}, 'w')\n\n\nclass Rules(", 1), encoding="utf-8")
    rules.unlink()
    rules.symlink_to(outside)
    with pytest.raises(DataError) as said:
        declared(loaded, {"cards"})
    assert str(said.value).startswith("cards/mini/rules.py:8:5: class Rules: ITEMS must map"), said.value
    with pytest.raises(DataError) as said:  # as a worker started afresh loads them
        rules_class(source, "beneath_worker")
    assert str(said.value).startswith("cards/mini/rules.py: rules file cannot be read"), said.value
    assert not (tmp_path / "ran").exists()


def test_rules_drawing_from_a_shared_random_generator_play_the_same_games_in_every_run(tmp_path):
    """Rules that draw from Python's shared `random` (random.shuffle(deck), not the rng pnp passes) as they
    load, as they are made and in a game, or from numpy's (one of pnp's libraries), drew from a state seeded
    from the system's entropy as pnp started: the same --seed wrote another simulation.json at each run, and a
    failed game's replay line played another game. (pnp's process is told apart here by seeding the test's own
    generators apart: the rules' process is its fork.)"""
    import random

    import numpy

    rules = "import random\nimport numpy\n" + NIM.replace(
        "class Rules(GameRules):\n", "TOP = random.randrange(2)\n\n\nclass Rules(GameRules):\n    def __init__(self, "
        "game):\n        super().__init__(game)\n        self.extra = random.randrange(2)\n\n", 1).replace(
        '"pile": pile + rng.randrange(3)', '"pile": pile + random.randrange(5) + int(numpy.random.randint(5)) + '
        'self.extra + TOP', 1)
    root = _nim(tmp_path, rules)
    written = []
    for entropy in (1, 2):
        random.seed(entropy)
        numpy.random.seed(entropy)
        assert _simulate(root, "--games", "4", "--seed", "4", "--jobs", "1").exit_code == 0
        written.append((root / "output/mini/simulation.json").read_bytes())
    assert written[0] == written[1]


def _group_members(group):
    """The ids of the living processes of process group `group` (zombies, ended but not yet reaped, are none)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # (ended meanwhile)
            continue
        if fields[0] != "Z" and int(fields[2]) == group:
            members.append(int(stat.parent.name))
    return members


@pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/self/stat").exists(), reason="needs fork and /proc")
def test_no_process_the_rules_started_outlives_the_run_ended_or_stopped_by_ctrl_c(tmp_path):
    """A process the rules forked, sleeping, outlived pnp, holding its standard output open (`pnp simulate ... |
    tail` waited for it). The process playing the rules leads a group of its own, ended whole when the run ends
    or Ctrl-C stops it; Ctrl-C, which the terminal sends to pnp's group alone, is passed on to the rules (their
    own `finally` runs)."""
    from pnp.simulate import run as run_module

    forked, waiting, stopped = tmp_path / "forked", tmp_path / "waiting", tmp_path / "stopped"
    rules = "import os, time\n" + NIM.replace(
        "    def setup(self, players, rng):\n", "    def setup(self, players, rng):\n"
        "        if not hasattr(self, 'fork'):\n            self.fork = os.fork()\n            if self.fork == 0:\n"
        f"                open({str(forked)!r} + '.new', 'w').write(f'{{os.getpid()}} {{os.getpgrp()}}')\n"
        f"                os.replace({str(forked)!r} + '.new', {str(forked)!r})\n"
        "                time.sleep(60)\n                os._exit(0)\n"
        # (the run goes on once the child said who it is: on a loaded machine the run ended first, and killed it)
        f"            while not os.path.exists({str(forked)!r}):\n                time.sleep(0.001)\n"
        "        elif os.environ.get('PNP_TEST_WAIT'):\n            try:\n"
        f"                open({str(waiting)!r}, 'w').close()\n                time.sleep(60)\n"
        f"            finally:\n                open({str(stopped)!r}, 'w').close()\n", 1)
    root = _nim(tmp_path, rules)
    project = Project(root)
    game = load(project, "mini", Report(root))

    def gone():
        pid, group = map(int, forked.read_text().split())
        for _ in range(100):  # (a killed process ends a moment after the signal is sent)
            if not _group_members(group):
                break
            time.sleep(0.01)
        assert group != os.getpgrp() and not _group_members(group), "a process of the rules' group lives on"

    played = run_module.run_apart(project, game, Options(games=2))
    assert played.tally.games == 2
    gone()

    def ctrl_c(n):
        for _ in range(1000):  # until the next game sleeps
            if waiting.exists():
                break
            time.sleep(0.01)
        raise KeyboardInterrupt  # (as Ctrl-C reaching pnp's process alone, as it waits for the game)

    forked.unlink()
    os.environ["PNP_TEST_WAIT"] = "1"
    try:
        with pytest.raises(KeyboardInterrupt):
            run_module.run_apart(project, game, Options(games=3), ctrl_c)
    finally:
        del os.environ["PNP_TEST_WAIT"]
    assert stopped.exists(), "Ctrl-C was not passed on to the rules"
    gone()


@pytest.mark.skipif(not hasattr(os, "waitid"), reason="needs waitid to tell a stopped process")
def test_rules_that_stop_their_process_are_said_and_the_run_ends(tmp_path):
    """Rules sending their process SIGSTOP held pnp for good, with --jobs 1 (the process playing them) and 2 (a
    worker): a stopped process handles no alarm and never ends. Now the run ends, saying so at rules.py."""
    root = _nim(tmp_path, "import os, signal\n" + NIM.replace(
        "    def setup(self, players, rng):\n",
        "    def setup(self, players, rng):\n        os.kill(os.getpid(), signal.SIGSTOP)\n", 1))
    for jobs in ("1", "2"):
        result = _simulate(root, "--games", "2", "--jobs", jobs, "--out", str(tmp_path / "o"))
        assert result.exit_code == 1 and "cards/mini/rules.py: error: the process playing the games was stopped" \
            in result.output, result.output


def test_results_a_full_disk_refuses_are_said_in_pnps_words_at_the_file(tmp_path, monkeypatch):
    """A write of simulation.json failing once the games were played said the system's words ("No space left
    on device"), where every other write refused says pnp's ("the disk is full")."""
    import errno

    import pnp.simulate as simulate_mod

    root = make_project(tmp_path / "p")

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(simulate_mod, "write_file", full)
    monkeypatch.setattr(simulate_mod, "to_json", lambda summary: b"{}")
    report = Report(root)
    assert simulate_mod._written(Project(root), root / "output" / "mini", "mini", {}, report) is None
    assert [str(d) for d in report.errors] == ["output/mini/simulation.json: error: cannot write: the disk is full"]


def test_a_file_of_the_users_saved_while_the_games_played_is_kept(tmp_path):
    """simulation.json was looked at before the games only: a file of the user's saved at it while a run
    played (minutes, for a large one) was replaced by the results, exit 0."""
    import pnp.simulate as simulate_mod

    root = make_project(tmp_path / "p")
    (root / "output" / "mini").mkdir(parents=True)
    (root / "output" / "mini" / "simulation.json").write_text("my notes", encoding="utf-8")
    report = Report(root)
    assert simulate_mod._written(Project(root), root / "output" / "mini", "mini", {}, report) is None
    assert [str(d) for d in report.errors] == ["output/mini/simulation.json: error: a file pnp did not write (no "
                                               "simulation.json of mini) is in the results' way: move it away, "
                                               "or choose another --out"]
    assert (root / "output" / "mini" / "simulation.json").read_text(encoding="utf-8") == "my notes"


def test_a_lock_made_a_link_once_the_games_were_played_is_named_not_its_folder(tmp_path):
    """A link put in the place of the folder's lock while the games played: said at the folder, `output/mini:
    cannot write: a symbolic link is in its place`, which it is not (the lock, hidden, is)."""
    import pnp.simulate as simulate_mod

    root = make_project(tmp_path / "p")
    (root / "output" / "mini").mkdir(parents=True)
    (root / "output" / "mini" / ".pnp.lock").symlink_to(tmp_path / "elsewhere")
    report = Report(root)
    assert simulate_mod._written(Project(root), root / "output" / "mini", "mini", {}, report) is None
    assert [str(d) for d in report.errors] == ["output/mini/.pnp.lock: error: cannot write: a symbolic link is in "
                                               "its place (pnp never writes through one), or links on its way lead "
                                               "in a loop"]
    assert not (tmp_path / "elsewhere").exists()


def test_what_cpython_prints_of_a_fault_of_its_own_is_not_printed_where_the_rules_play(capfd, monkeypatch):
    """Rules whose `bytearray(b"a") * n` went past their memory printed CPython 3.11's 'SystemError: deallocated
    bytearray object has exported buffers', with no file or line, before pnp's MemoryError at their line: the
    processes playing the rules print no exception that C code prints as it goes (no traceback, raised by no
    line); one the rules print through the hook themselves is printed."""
    from pnp.simulate.run import unprinted_c_faults

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # (set back after the test)
    unprinted_c_faults()
    sys.excepthook(SystemError, SystemError("a fault of C's"), None)
    with pytest.raises(MemoryError):
        bytearray(b"a") * 2**50  # (1 PB: no system gives it)
    assert capfd.readouterr().err == ""
    try:
        raise ValueError("the rules' own")
    except ValueError as e:
        sys.excepthook(ValueError, e, e.__traceback__)
    assert "the rules' own" in capfd.readouterr().err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's PR_SET_PDEATHSIG")
def test_rules_stopped_with_a_pnp_that_is_killed_end_with_it():
    """pnp killed (SIGKILL) while stopped by Ctrl-Z with the rules' processes left them stopped for good: their
    watch of pnp was stopped with them. The system continues the rules' process as pnp ends, and it ends its
    group. Here a fork plays pnp, its own fork the rules' process (as _play_apart starts), stopped."""
    import signal

    from pnp.project import end_with_parent
    from pnp.simulate.run import _continued_as_pnp_ends

    said, told = os.pipe()
    pnp = os.fork()
    if pnp == 0:  # (pnp, until it is killed)
        try:
            rules = os.fork()
            if rules == 0:
                os.setsid()
                _continued_as_pnp_ends()
                end_with_parent(group=True)
                os.kill(os.getpid(), signal.SIGSTOP)
                time.sleep(30)
            else:
                os.write(told, str(rules).encode() + b"\n")
                time.sleep(30)
        finally:
            os._exit(0)
    os.close(told)
    rules = int(os.read(said, 100))
    os.close(said)
    stat = Path(f"/proc/{rules}/stat")

    def state():  # (after its name in parentheses; None once gone)
        with contextlib.suppress(FileNotFoundError):
            return stat.read_text().rsplit(")", 1)[-1].split()[0]
        return None

    try:
        for _ in range(200):
            if state() == "T":
                break
            time.sleep(0.01)
        assert state() == "T"
        os.kill(pnp, signal.SIGKILL)
        os.waitpid(pnp, 0)
        for _ in range(300):
            if state() in ("Z", None):
                break
            time.sleep(0.01)
        assert state() in ("Z", None), "the rules' process was left stopped"
    finally:
        with contextlib.suppress(OSError):
            os.kill(pnp, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.killpg(rules, signal.SIGKILL)


def test_a_failing_rules_interval_below_zero_reads_with_its_signs():
    """A gap's interval runs below 0: '[95% interval -1--0.307]' read as garbled signs; its ends joined by 'to'."""
    from pnp.simulate.balance import Outcome, figures
    from pnp.simulate.stats import Measured

    outcome = Outcome("item.gap >= -0.25", None, False, Measured(-1.0, -1.0, -0.307, 4), ">=", -0.25, -0.057)
    assert "[95% interval -1 to -0.307]" in figures(outcome)


def test_an_item_named_past_what_the_results_reader_takes_is_written_cut_short():
    # a card named in 283 characters (its schema allowing them) was written whole: the report dropped the item as
    # not what `pnp simulate` writes, and the rulebook refused the file
    from types import SimpleNamespace
    from pnp.model.simulated import MAX_TEXT, cleaned
    from pnp.simulate.run import item_names
    game = SimpleNamespace(tables={"cards": [{"id": "long", "name": "very " * 60}, {"id": "short"}]})
    names = item_names(game, ["cards"])  # type: ignore[arg-type]
    assert len(names["cards", "long"]) == MAX_TEXT and names["cards", "long"].startswith("very very")
    assert names["cards", "short"] == "short"
    problems: list = []
    cleaned({"tracked": {"cards": names["cards", "long"]}}, problems)
    assert problems == []


_UNTAKEN = {"name": "A", "seats": 2, "events": {"taken": {"count": 0, "rate": 0.0, "when_taken": 0}}, "gap": None,
            "win_taken": {"rate": None, "low": None, "high": None, "n": 0},
            "win_not_taken": {"rate": 0.5, "low": 0.1, "high": 0.9, "n": 2}}


@pytest.mark.parametrize("dead, read", [
    ({"cards": {"never taken": ["b", "a"]}}, True),  # pnp's own: in the order the run met them
    ({"cards": {"never taken": ["a"]}, "other": {"never effective": ["x"] * 29}}, False),  # '29 never work', exit 0
    ({"cards": {"never taken": "ab"}}, False),
    ({}, False),
    (5, False),
])
def test_a_files_dead_items_that_are_not_its_items_reading_are_refused_by_the_rulebook(dead, read):
    from pnp.model.simulated import unlike
    value = {"items": {"cards": {"a": _UNTAKEN, "b": {**_UNTAKEN, "name": "B"}}}, "dead": dead}
    assert unlike(value) == ([] if read else ["dead"])


def test_the_help_of_jobs_says_the_most_workers_a_run_plays_in():
    """--jobs' help said 8 at most; a run plays in MAX_WORKERS (7), the loading process holding a share too."""
    from pnp.cli import cli
    from pnp.simulate.api import MAX_WORKERS, WORKER_MEMORY

    shown = " ".join(CliRunner().invoke(cli, ["simulate", "--help"]).output.split())
    assert f"{MAX_WORKERS} at most" in shown and f"{WORKER_MEMORY >> 20} MB each at least" in shown
