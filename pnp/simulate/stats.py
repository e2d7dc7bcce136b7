"""The statistics of a run: win rates per seat, per agent and per pairing with 95% Wilson intervals, game
length, how games end, and per tracked item how often it was taken or played and how its takers fared."""

import json
import math
import statistics
from collections import Counter, defaultdict
from typing import Any

Z = 1.959964  # the normal quantile of a two-sided 95% interval
DIGITS = 4  # floats in simulation.json are rounded so the file's bytes are the same on every machine


def wilson(successes: float, n: int) -> dict:
    """A rate with its 95% Wilson score interval (which stays inside 0-1 and is sane for few games)."""
    if n == 0:
        return {"rate": None, "low": None, "high": None, "n": 0}
    p = successes / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return {"rate": p, "low": max(0.0, centre - half), "high": min(1.0, centre + half), "n": n}


def summarise(results: list, meta: dict, names: dict) -> dict:
    """simulation.json's content from the games played (`names`: "table:id" -> the item's name)."""
    players = meta["players"]
    return {
        **meta,
        "games": len(results),
        "seat_win_rate": [wilson(sum(r.shares[s] for r in results), len(results)) for s in range(players)],
        "agent_win_rate": _agent_rates(results),
        "matchup": _matchups(results),
        "length": _length(results, players),
        "end_reasons": {reason: {"count": n, "share": n / len(results)}
                        for reason, n in sorted(Counter(r.end for r in results).items())},
        "end_reasons_among": _ends_among(results),
        "items": _items(results, names),
    }


def _ends_among(results: list) -> dict:
    """How games end, per set of agents seated ("greedy,mcts"): skilled players' games can end otherwise than
    games against a random player, and a balance rule may want only the former."""
    games: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        games[",".join(sorted(set(r.seating)))][r.end] += 1
    return {agents: {reason: {"count": n, "share": n / sum(ends.values())} for reason, n in sorted(ends.items())}
            for agents, ends in sorted(games.items())}


def _agent_rates(results: list) -> dict:
    wins: defaultdict[str, float] = defaultdict(float)
    seats: Counter[str] = Counter()
    for r in results:
        for agent, share in zip(r.seating, r.shares):
            wins[agent] += share
            seats[agent] += 1
    return {agent: wilson(wins[agent], seats[agent]) for agent in sorted(seats)}


def _matchups(results: list) -> dict:
    """matchup[a][b]: in games where agents a and b both sat, how often a did better than b (a tie counts
    half): the share of the win a's seats took against b's."""
    beat: defaultdict[tuple[str, str], float] = defaultdict(float)
    met: Counter[tuple[str, str]] = Counter()
    for r in results:
        share: defaultdict[str, float] = defaultdict(float)
        for agent, s in zip(r.seating, r.shares):
            share[agent] += s
        for a in share:
            for b in share:
                if a != b:
                    met[a, b] += 1
                    beat[a, b] += 1.0 if share[a] > share[b] else (0.5 if share[a] == share[b] else 0.0)
    out: defaultdict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for a, b in sorted(met):
        out[a][b] = wilson(beat[a, b], met[a, b])
    return dict(out)


def _spread(values: list) -> dict:
    return {"mean": statistics.fmean(values), "min": min(values), "median": statistics.median(values),
            "max": max(values)} if values else {}


def _length(results: list, players: int) -> dict:
    return {"turns": _spread([r.turns for r in results]),
            "decisions": [_spread([r.decisions[s] for r in results]) for s in range(players)]}


def _items(results: list, names: dict) -> dict:
    """Per table, per item in play in some game: each event's rate among the seats that could have had it,
    and the win rate of the seats that took it against those that did not."""
    seats: Counter[str] = Counter()
    wins_with: Counter[str] = Counter()
    wins_without: Counter[str] = Counter()
    n_with: Counter[str] = Counter()
    counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
    among_takers: defaultdict[str, Counter[str]] = defaultdict(Counter)  # events of the seats that took the item
    event_names = set()
    for r in results:
        for s, events in enumerate(r.events):
            taken = set(events.get("taken", ()))
            event_names.update(events)
            for key in r.available:
                seats[key] += 1
                if key in taken:
                    n_with[key] += 1
                    wins_with[key] += r.shares[s]
                else:
                    wins_without[key] += r.shares[s]
            for name, keys in events.items():
                for key in keys:
                    counts[key][name] += 1
                    if key in taken:
                        among_takers[key][name] += 1
    out: defaultdict[str, dict[str, Any]] = defaultdict(dict)
    for key in sorted(seats):
        table, item_id = key.split(":", 1)
        with_ = wilson(wins_with[key], n_with[key])
        without = wilson(wins_without[key], seats[key] - n_with[key])
        gap = with_["rate"] - without["rate"] if with_["n"] and without["n"] else None
        out[table][item_id] = {
            "name": names.get(key, item_id), "seats": seats[key],
            "events": {name: {"count": counts[key][name], "rate": counts[key][name] / seats[key],
                              "when_taken": among_takers[key][name]} for name in sorted(event_names)},
            "win_taken": with_, "win_not_taken": without, "gap": gap}
    return dict(out)


def dead_items(summary: dict) -> dict:
    """{table: {"never taken": [...], "never effective": [...]}}: items in play that no one ever took, or that
    were never effective (of the games that report those events)."""
    out = {}
    for table, items in summary["items"].items():
        found = {}
        for event, label in (("taken", "never taken"), ("effective", "never effective")):
            dead = [i for i, s in items.items() if event in s["events"] and s["events"][event]["count"] == 0]
            if dead:
                found[label] = dead
        if found:
            out[table] = found
    return out


def rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, DIGITS)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v) for v in value]
    return value


def to_json(summary: dict) -> bytes:
    """The summary as simulation.json's bytes: keys sorted, floats rounded, so a seed gives one file."""
    return (json.dumps(rounded({**summary, "dead": dead_items(summary)}), sort_keys=True, indent=1,
                       ensure_ascii=False) + "\n").encode("utf-8")


class Measured(float):
    """A figure measured by playing, as balance rules see it: the point estimate (in arithmetic, formats and
    messages) with its 95% interval as `.low` and `.high` and the games or seats behind it as `.n`.

    Ordered against a number (or another figure) it is judged on its interval, so a rule fails only when the
    evidence says so: `x >= a` is false only when all of x's interval is below a (x.high < a), `x <= a` only
    when all of it is above (x.low > a); `x > a` and `x < a` alike. `==` and `!=` compare the point estimate,
    and arithmetic gives plain numbers. A figure with no games behind it (n 0) has no estimate (nan) and the
    interval 0-1, so it holds every ordering: nothing was measured to say otherwise. Write a rule as what must
    hold (`x >= a`, not `not x < a`): a `not` turns the benefit of the doubt around."""

    low: float
    high: float
    n: int

    def __new__(cls, rate: Any, low: float, high: float, n: int) -> "Measured":
        value = super().__new__(cls, math.nan if rate is None else rate)
        if rate is None:  # nothing measured: the widest interval (a difference's is -1 to 1)
            low, high, n = -1.0 if low is not None and low < 0 else 0.0, 1.0, 0
        value.low, value.high, value.n = low, high, n
        return value

    def __ge__(self, other: Any) -> bool:
        return self.high >= _low(other)

    def __gt__(self, other: Any) -> bool:
        return self.high > _low(other)

    def __le__(self, other: Any) -> bool:
        return self.low <= _high(other)

    def __lt__(self, other: Any) -> bool:
        return self.low < _high(other)

    __hash__ = float.__hash__

    def __repr__(self) -> str:
        return f"{float(self):.3g} (95% interval {self.low:.3g}-{self.high:.3g}, n {self.n})"


def _low(value: Any) -> Any:
    return value.low if isinstance(value, Measured) else value


def _high(value: Any) -> Any:
    return value.high if isinstance(value, Measured) else value


def measured(w: dict) -> Measured:
    """A Wilson rate of the summary as balance rules see it."""
    return Measured(w["rate"], w["low"], w["high"], w["n"])


def difference(a: dict, b: dict) -> Measured:
    """a's rate less b's with the 95% interval of Newcombe's hybrid score method (built from the two Wilson
    intervals); no estimate when either side has no games."""
    if not (a["n"] and b["n"]):
        return Measured(None, -1.0, 1.0, 0)
    d = a["rate"] - b["rate"]
    low = d - math.sqrt((a["rate"] - a["low"]) ** 2 + (b["high"] - b["rate"]) ** 2)
    high = d + math.sqrt((a["high"] - a["rate"]) ** 2 + (b["rate"] - b["low"]) ** 2)
    return Measured(d, max(-1.0, low), min(1.0, high), min(a["n"], b["n"]))


def _shares(ends: dict, games: int) -> dict:
    return {reason: measured(wilson(e["count"], games)) for reason, e in ends.items()}


def expression_view(summary: dict) -> dict:
    """What balance rules read as `sim`: every rate a Measured (its estimate with its 95% interval)."""
    return {
        "games": summary["games"],
        "seat_win_rate": [measured(w) for w in summary["seat_win_rate"]],
        "agent_win_rate": {a: measured(w) for a, w in summary["agent_win_rate"].items()},
        "matchup": {a: {b: measured(w) for b, w in row.items()} for a, row in summary["matchup"].items()},
        "end_share": _shares(summary["end_reasons"], summary["games"]),
        "end_share_among": {agents: _shares(ends, sum(e["count"] for e in ends.values()))
                            for agents, ends in summary.get("end_reasons_among", {}).items()},
        "turns": summary["length"]["turns"].get("mean", 0),
    }


def item_view(item_id: str, stats: dict) -> dict:
    """What a balance rule with `each: TABLE` reads as `item`: id, name, seats, each event's rate by its name
    (among the seats it was in play for), `when_taken.EVENT` (among the seats that took it), win_taken,
    win_not_taken and gap (their difference), each a Measured."""
    events = stats["events"]
    return {"id": item_id, "name": stats["name"], "seats": stats["seats"],
            **{name: measured(wilson(e["count"], stats["seats"])) for name, e in events.items()},
            "when_taken": {name: measured(wilson(e.get("when_taken", 0), stats["win_taken"]["n"]))
                           for name, e in events.items()},
            "win_taken": measured(stats["win_taken"]), "win_not_taken": measured(stats["win_not_taken"]),
            "gap": difference(stats["win_taken"], stats["win_not_taken"])}
