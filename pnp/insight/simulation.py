"""The design report's Simulation section: output/<game>/simulation.json, what `pnp simulate` measured, read
defensively (size cap, shape check part by part) and said as blocks for draw.charts: win rate per seat, the
agents' matchups, game length, how games end, each tracked table's take rates and win gaps, dead items and
the balance rules with their margins."""

import json
import math
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import DataError
from ..model.simulated import cleaned
from ..products.rulebook import OfAnotherGame, read_simulation_file
from ..report import Mark, counted, shell_word, shortened

if TYPE_CHECKING:
    from ..model.game import Game
    from ..project import Project
    from ..simulate.balance import Outcome

MAX_ITEMS_SHOWN = 300  # items of all tables shown: 20 tables of 200 items and 40 events took minutes to chart
MAX_MATRIX = 8  # agents in the matchup matrix: more columns would not fit the page
CHART_ROWS = 40  # rows of one interval chart: a drawing never splits across pages
MAX_WALKED = 10_000  # entries (files, folders) of cards/<game>/ looked at to tell whether the data changed after the run
SHOWN_PROBLEMS = 5
# balance rules the table lists (a row took about 1.4 ms to set: 5,000 rules took 7 s); past it, those that fail
# first, the rest counted in one row
MAX_RULE_ROWS = 200


@dataclass
class Simulated:
    """What the report knows of a game's last simulation."""

    shown: str  # the file, as the report names it
    game: str = ""  # the game's id (its folder's name), as the report names it (fit_names)
    file: str = ""  # the file as messages name it: `shown` is as the report's fonts print it (fit_names)
    names: Callable[[str], str] = str  # a name (a path, a place) as the report's fonts print it (fit_names)
    summary: dict | None = None  # the parts that have the shape `pnp simulate` writes (None: no file, or unread)
    made: float = 0.0  # when it was written (its modification time)
    changed: str = ""  # a file of the game's data changed after the run, else ""
    problems: list = field(default_factory=list)  # what could not be read, for the warning
    text: str = ""  # the file's text, where a message finds the line of what it quotes (line_of)

    def line_of(self, character: str) -> Mark:
        """The file's line and column where `character` is first written, as itself or as a JSON escape
        (json.dump writes every character past ASCII as one); the file alone when it is not there."""
        escape = json.dumps(character)[1:-1].lower()  # ('\\ud83d\\ude00' for a character past U+FFFF)
        for number, line in enumerate(self.text.split("\n"), 1):
            at = line.find(character)
            at = line.lower().find(escape) if at < 0 else at
            if at >= 0:
                return Mark(self.file or self.shown, number, at + 1)
        return Mark(self.file or self.shown)


def read_simulation(project: "Project", game_id: str) -> Simulated:
    """output/<game>/simulation.json, as far as it has the shape `pnp simulate` writes. A file that is too
    large, not JSON or of another shape is never an error: its problems are noted and its good parts kept."""
    found = Simulated(project.rel(project.simulation(game_id)), game_id)
    try:
        read = read_simulation_file(project, game_id)
    except OfAnotherGame as e:
        found.problems.append(e.message + "; run `pnp simulate` on it")
        return found
    except DataError as e:
        found.problems.append(e.message)
        return found
    if read is None:
        return found
    value, found.text, found.made = read.value, read.text, read.made
    found.summary = cleaned(value, found.problems)
    _cap_items(found)
    found.changed = _changed_since(project, game_id, found.made)
    return found


def _cap_items(found: Simulated) -> None:
    """Note the items past the first MAX_ITEMS_SHOWN of all tables together: the section charts only those
    (charted_items), so its charts are bounded whatever the file holds; the balance rules read them all."""
    assert found.summary is not None  # read_simulation has begun it
    tables = found.summary.get("items") or {}
    shown = charted_items(tables)
    for table, items in tables.items():
        if len(items) > len(shown.get(table, ())):
            found.problems.append(f"items.{shortened(table, 40)}: {len(items) - len(shown.get(table, ())):,} of its "
                                  f"{len(items):,} items are not charted (the report charts at most "
                                  f"{MAX_ITEMS_SHOWN} items in all)")


def charted_items(tables: dict) -> dict:
    """The tables' first MAX_ITEMS_SHOWN items together, table by table in the file's order."""
    shown, room = {}, MAX_ITEMS_SHOWN
    for table, items in tables.items():
        if room > 0:
            shown[table] = dict(list(items.items())[:room])
            room -= len(shown[table])
    return shown


def _changed_since(project: "Project", game_id: str, made: float) -> str:
    """The newest file of cards/<game>/ changed after `made` (the run's data is no longer the game's), or "".
    Walked by a loop, not os.walk, which recurses a call per folder: a game folder someone sent with folders
    1,500 deep made `pnp report` 'a bug in pnp' (RecursionError). Its first MAX_WALKED entries, folders too (a
    tree of empty folders is as long to walk as one of files), hidden ones and links to folders not followed."""
    newest, seen, folders = (made, ""), 0, [str(project.cards / game_id)]
    while folders:
        try:
            with os.scandir(folders.pop()) as entries:
                listed = sorted((e for e in entries if not e.name.startswith(".")), key=lambda e: e.name)
        except OSError:  # unreadable, or a path past the system's length limit
            continue
        below = []
        for entry in listed:
            seen += 1
            if seen > MAX_WALKED:
                return newest[1]
            if entry.is_dir(follow_symlinks=False):
                below += [entry.path] if entry.name != "__pycache__" else []
                continue
            try:
                when = entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            if when > newest[0]:
                newest = (when, project.rel(entry.path))
        folders.extend(reversed(below))  # the first by name next, as os.walk walks
    return newest[1]


def warnings(found: Simulated) -> list:
    """What the report warns of the file: the parts it could not read, and data changed since the run."""
    out = []
    if found.problems:
        parts = found.problems[:SHOWN_PROBLEMS]
        more = len(found.problems) - len(parts)
        out.append(("not read, the design report shows no simulation from it: " if found.summary is None else
                    "parts are not what `pnp simulate` writes and are not shown: ")
                   + "; ".join(parts) + (f"; and {more} more" if more > 0 else ""))
    if found.changed:
        out.append(f"{found.changed} changed after this simulation was made ({_when(found.made)}): its figures "
                   f"may not be the game's now; run `pnp simulate` again")
    return out


def _when(stamp: float) -> str:
    """A file's modification time as a date, or as seconds when no date writes it: a file system may hold a time
    past the year 9999 (tmpfs, a tar's pax header), and the report ended as a bug in pnp."""
    try:
        return datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    except (ValueError, OverflowError, OSError):
        return f"{stamp:,.0f} s from 1970, no date"


# -- the section's blocks --------------------------------------------------------------------------------------

def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.0%}"


def _ci(w: dict) -> str:
    """A rate with its interval: 40% (29–53%)."""
    if w["rate"] is None:
        return "-"
    if w["low"] is None or w["high"] is None:
        return f"{w['rate']:.0%}"
    return f"{w['rate']:.0%} ({100 * w['low']:.0f}–{w['high']:.0%})"


def _point(w: dict) -> tuple | None:
    """(value, low, high) of a rate for an interval chart; None when nothing was measured."""
    if w["rate"] is None:
        return None
    low, high = (w["low"], w["high"]) if w["low"] is not None and w["high"] is not None else (w["rate"],) * 2
    return w["rate"], low, high


RATE_PANEL = {"min": 0, "max": 1, "ticks": [0, 0.25, 0.5, 0.75, 1], "format": "%"}


def _chunks(block: dict) -> list:
    """An interval chart of many rows as several of at most CHART_ROWS (a drawing does not split across pages)."""
    rows = block["rows"]
    if len(rows) <= CHART_ROWS:
        return [block]
    return [{**block, "rows": rows[i:i + CHART_ROWS], "title": block["title"] + (" (continued)" if i else "")}
            for i in range(0, len(rows), CHART_ROWS)]


def made_line(s: dict, found: Simulated) -> str:
    """When the run was made, and with what: games, players, agents, seed (what the file says of them)."""
    said = [f"{s['games']:,} games" + (f" ({s['games_per_seating']:,} per seating)" if "games_per_seating" in s
                                         and s["games_per_seating"] != s["games"] else "")
            if "games" in s else "",
            f"{s['players']} players" if "players" in s else "",
            f"agents {', '.join(s['agents'])}" if s.get("agents") else "",
            f"seed {s['seed']}" if "seed" in s else ""]
    what = ", ".join(x for x in said if x)  # (none of them in a file of other parts: it printed '(...): .')
    return (f"Made {_when(found.made)} by `pnp simulate` ({found.shown})" + (f": {what}" if what else "")
            + ". Every rate has its 95% confidence interval (Wilson's).")


def seat_blocks(s: dict) -> list:
    seats = s.get("seat_win_rate")
    if not seats:
        return []
    even = 1 / len(seats)
    panel = {**RATE_PANEL, "title": "win rate", "reference": even}
    rows = [{"label": f"seat {i + 1}", "values": [_point(w)], "note": f"{_ci(w)} of {w['n']:,} games"}
            for i, w in enumerate(seats)]
    return _chunks({"kind": "intervals", "title": "Win rate per seat", "panels": [panel], "rows": rows,
                    "text": f"The dashed line is an even share ({even:.0%}); a diamond marks a seat whose interval "
                            f"leaves it out."})


def agent_blocks(s: dict) -> list:
    rates = s.get("agent_win_rate") or {}
    if len(rates) < 2:
        agents = ", ".join(rates) or ", ".join(s.get("agents") or []) or "one"
        return [{"kind": "p", "text": f"One agent played ({agents}): `--agents random,greedy,mcts` plays several "
                                      "against one another, for their win rates and matchups."}]
    panel = {**RATE_PANEL, "title": "win rate", "reference": 1 / max(2, s.get("players", 2))}
    blocks = _chunks({"kind": "intervals", "title": "Win rate per agent", "panels": [panel],
                      "text": "Skill should beat luck: a stronger agent should win more than an even share "
                              "(dashed).",
                      "rows": [{"label": a, "values": [_point(w)], "note": f"{_ci(w)} of {w['n']:,} seats"}
                               for a, w in rates.items()]})
    return blocks + matchup_blocks(s.get("matchup") or {})


def matchup_blocks(matchup: dict) -> list:
    """The matrix of how often each agent beat each other (its first MAX_MATRIX agents)."""
    names = sorted(set(matchup) | {b for row in matchup.values() for b in row})[:MAX_MATRIX]
    if not names:
        return []
    pairs = [[matchup[a][b] if a != b and b in matchup.get(a, {}) else None for b in names] for a in names]
    return [{"kind": "grid", "title": "Matchups: how often the row's agent beat the column's",
             "text": "In the games where both sat, a tie counting half; shaded by the rate.",
             "rows": names, "cols": names, "row_name": "agent", "col_name": "against", "top": 1, "wide": True,
             "cells": [[w and w["rate"] for w in row] for row in pairs],
             "texts": [[_ci(w).replace(" (", "\n(") if w else "" for w in row] for row in pairs]}]


def _nice_top(top: float) -> tuple:
    """A round end for a count axis and its ticks (about four steps)."""
    step: float = 1
    while top / step > 5:
        step *= 2 if str(step)[0] in "15" else 2.5
    step = int(step)
    end = max(step, math.ceil(top / step) * step)
    return end, list(range(0, end + 1, step))


def length_blocks(s: dict) -> list:
    length = s.get("length")
    if not length:
        return []
    spreads = [("turns", length["turns"])] + [(f"decisions, seat {i + 1}", d)
                                              for i, d in enumerate(length["decisions"])]
    end, ticks = _nice_top(max(d["max"] for _, d in spreads) or 1)
    rows = [{"label": name, "values": [(d["median"], d["min"], d["max"])],
             "note": f"mean {d['mean']:.1f}, median {d['median']:g} ({d['min']:g}–{d['max']:g})"}
            for name, d in spreads]
    return _chunks({"kind": "intervals", "title": "Game length", "rows": rows,
                    "panels": [{"title": "turns / decisions", "min": 0, "max": end, "ticks": ticks, "format": "n"}],
                    "text": "Each game's length: the dot is the median game, the line runs from the shortest to "
                            "the longest."})


def end_blocks(s: dict) -> list:
    ends = s.get("end_reasons")
    if not ends:
        return []
    known = [r for r in s.get("end_reasons_known", []) if r not in ends] + list(ends)
    groups = [("", ends)]
    among = s.get("end_reasons_among") or {}
    if len(among) > 1:
        groups += [(f" ({agents})", e) for agents, e in among.items()]
    rows = []
    for suffix, found in groups:
        games = sum(e["count"] for e in found.values())
        for reason in known:
            count = found.get(reason, {}).get("count", 0)
            w = _wilson(count, games)
            rows.append({"label": reason + suffix, "values": [_point(w)], "note": f"{_ci(w)}: {count:,} of {games:,}"})
    text = "Share of the games ending each way" + (", in all games and then among each set of agents seated"
                                                    if len(groups) > 1 else "") + "."
    return _chunks({"kind": "intervals", "title": "How games end", "text": text, "rows": rows,
                    "panels": [{**RATE_PANEL, "title": "share of games"}]})


def _wilson(successes: float, n: int) -> dict:
    from ..simulate.stats import wilson

    return wilson(successes, n)


def gap_interval(item: dict) -> tuple | None:
    """(gap, low, high): the taken-minus-not win rate with its 95% interval from the two rates' Wilson
    intervals (Newcombe's hybrid score method); None when a side had no seats."""
    a, b = item["win_taken"], item["win_not_taken"]
    if None in (a["rate"], a["low"], a["high"], b["rate"], b["low"], b["high"]):
        return None
    gap = a["rate"] - b["rate"]
    low = gap - math.hypot(a["rate"] - a["low"], b["high"] - b["rate"])
    high = gap + math.hypot(a["high"] - a["rate"], b["rate"] - b["low"])
    return gap, max(-1.0, low), min(1.0, high)


def _taken(item: dict) -> dict:
    taken = item["events"].get("taken")
    return _wilson(taken["count"], item["seats"]) if taken else {"rate": None, "low": None, "high": None, "n": 0}


def _signed(v: tuple | None) -> str:
    return "-" if v is None else f"{v[0]:+.0%} ({100 * v[1]:+.0f} to {v[2]:+.0%})"


def item_blocks(s: dict) -> list:
    """Per tracked table: take rate and win gap charted, the figures in a table, each event's rate, dead items."""
    blocks: list[dict[str, Any]] = []
    for table, items in charted_items(s.get("items") or {}).items():
        blocks.append({"kind": "h2", "text": f"{table}: the {len(items)} in play" if len(items) > 1 else
                       f"{table}: {len(items)} in play"})
        order = sorted(items, key=lambda i: (gap_interval(items[i]) is None, -(items[i]["gap"] or 0),
                                             items[i]["name"]))
        rows = [{"label": items[i]["name"], "values": [_point(_taken(items[i])), gap_interval(items[i])],
                 "note": f"taken {_pct(_taken(items[i])['rate'])}, gap {_signed(gap_interval(items[i]))}"}
                for i in order]
        blocks += _chunks({
            "kind": "intervals", "title": f"{table}: how often taken, and how their takers fared", "rows": rows,
            "text": "Left: the share of seats (with the item in play) whose player took it. Right: the win rate "
                    "of those who took it minus that of those who did not; a diamond marks a gap whose interval "
                    "leaves out 0.",
            "panels": [{**RATE_PANEL, "title": "taken"},
                       {"title": "win rate, taken minus not", "min": -1, "max": 1, "ticks": [-1, -0.5, 0, 0.5, 1],
                        "format": "+%", "reference": 0}]})
        blocks.append({"kind": "rows", "title": f"{table}: the figures",
                       "header": ["", "in play", "taken", "win rate if taken", "if not", "gap (95% interval)"],
                       "widths": [42, 14, 26, 28, 28, 32],
                       "rows": [[items[i]["name"], f"{items[i]['seats']:,}", _ci(_taken(items[i])),
                                 _ci(items[i]["win_taken"]), _ci(items[i]["win_not_taken"]),
                                 _signed(gap_interval(items[i]))] for i in order]})
        blocks += _event_blocks(table, items, order) + _dead_blocks(s, table, items)
    return blocks


def _event_blocks(table: str, items: dict, order: list) -> list:
    events = sorted({e for i in order for e, n in items[i]["events"].items() if n["count"]} - {"taken"})
    if not events:
        return []
    cells = [[items[i]["events"][e]["rate"] if e in items[i]["events"] else None for e in events] for i in order]
    return [{"kind": "grid", "title": f"{table}: what else happened to them",
             "text": "The share of seats, with the item in play, in which each event the rules report happened "
                     "(events that never happened are left out).",
             "rows": [items[i]["name"] for i in order], "cols": [e.replace("_", " ") for e in events],
             "row_name": table, "col_name": "event",
             "cells": cells, "texts": [[_pct(c) for c in row] for row in cells], "top": 1, "wide": True}]


def _dead_blocks(s: dict, table: str, items: dict) -> list:
    from ..simulate.stats import dead_items

    found = dead_items({"items": {table: items}}).get(table, {})
    if not found:
        return [{"kind": "p", "text": "No dead items: each was taken, and each that can be effective was."}]
    return [{"kind": "finding", "text": f"{label.capitalize()}: " + ", ".join(items[i]["name"] for i in ids) + "."}
            for label, ids in found.items()]


def _figure(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _balance_rows(outcomes: "list[Outcome]", names: Callable[[str], str]) -> list[list[str]]:
    """The balance table's rows: each rule with its value, limit, margin and whether it holds, at most
    MAX_RULE_ROWS of them (those failing first), the rest counted in one row."""
    rows = []
    listed = outcomes if len(outcomes) <= MAX_RULE_ROWS else \
        sorted(outcomes, key=lambda o: o.holds)[:MAX_RULE_ROWS]  # (stable: in file order, those failing first)
    for o in listed:
        said = o.expr + (f" ({names(str(o.mark))})" if o.mark else "") + (f"; each {o.row}" if o.row and not o.failing else "") \
            + (f"; at fault: {', '.join(o.failing[:8])}" + (" ..." if len(o.failing) > 8 else "") if o.failing else "")
        if o.margin is None:
            rows.append([said, "", "", "", "holds" if o.holds else "FAILS"])
        else:
            rows.append([said, _figure(o.value), f"{o.op} {_figure(o.limit)}", _figure(o.margin),
                         "holds" if o.holds else "FAILS"])
    failing = sum(not o.holds for o in outcomes)
    if len(outcomes) > len(listed):
        unlisted_failing = failing - sum(not o.holds for o in listed)
        rows.append([f"{counted(len(outcomes) - len(listed), 'more rule')}, not listed", "", "", "",
                     f"{unlisted_failing:,} FAIL" if unlisted_failing else "hold"])
    return rows


def balance_blocks(game: "Game", s: dict, names: Callable[[str], str] = str) -> list:
    """game.yaml's balance rules checked on the file's figures, as `pnp simulate` checks them: each with its
    line, the value measured, its limit and margin, holds or FAILS and the items at fault."""
    from ..simulate.balance import check_balance
    from ..template import budget

    rules = game.meta.get("balance") or []
    blocks = [{"kind": "h2", "text": "Balance rules"}]
    if not rules:
        return blocks + [{"kind": "p", "text": "game.yaml has no `balance:` rules to check on these figures."}]
    try:
        with budget():
            outcomes = check_balance(game, s)
    except (KeyError, TypeError, AttributeError, IndexError) as e:  # a part the rules read was not in the file
        return blocks + [{"kind": "finding", "text": f"Not checked: the simulation lacks a part they read "
                                                     f"({type(e).__name__}: {shortened(str(e), 40)})."}]
    failing = sum(not o.holds for o in outcomes)
    return blocks + [{"kind": "p", "text": f"{len(outcomes) - failing} of {len(outcomes)} hold on these figures"
                                           + (f"; {failing} fail." if failing else ".")},
                     {"kind": "table", "header": ["rule", "value", "limit", "margin", ""],
                      "rows": _balance_rows(outcomes, names)}]


def simulation_blocks(game: "Game", found: Simulated) -> list:
    """The report's Simulation section: how to make one when there is none, what could not be read, then
    every chart the file's good parts allow."""
    blocks = [{"kind": "h1", "text": "Simulation"}]
    if found.summary is None and not found.problems:
        return blocks + [{"kind": "p", "text": f"No simulation yet: `pnp simulate {shell_word(found.game)}` plays the game "
                                               f"with its cards/{found.game}/rules.py and writes {found.shown}, "
                                               "which this section charts."}]
    blocks += [{"kind": "finding", "text": f"Warning: {found.shown}: {w}"} for w in warnings(found)]
    s = found.summary
    if s is None:
        return blocks
    blocks.append({"kind": "p", "text": made_line(s, found)})
    if s.get("items") or s.get("seat_win_rate"):
        blocks += balance_blocks(game, s, found.names)
    return blocks + seat_blocks(s) + agent_blocks(s) + length_blocks(s) + end_blocks(s) + item_blocks(s)
