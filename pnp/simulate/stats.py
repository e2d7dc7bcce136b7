"""The statistics of a run: win rates per seat, per agent and per pairing with 95% Wilson intervals, game
length, how games end, and per tracked item how often it was taken or played and how its takers fared."""

import json
import math
from collections import Counter, defaultdict
from typing import Any

from ..model.simulated import dead_items

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


MAX_FAILURES_KEPT = 5  # failed games a run says each (with how to replay it); the others are counted
MAX_LOG_LINES = 100_000  # of --log kept for printing, all games together: 300 long games' logs kept took 820 MB


class Tally:
    """A run's games folded in as they are played, in game order, so a run keeps counts and not games: a
    million games kept whole took about 4 GB. The figures are those the games' list gave (the same sums in the
    same order, a median from each value's count)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.games = 0
        self.failures: list[Any] = []  # the first MAX_FAILURES_KEPT failed games (GameResult), whole
        self.failed = 0
        self.logs: list[tuple[int, int, list[str]]] = []  # (game index, seed, lines) of the games that kept a log
        self.log_lines = 0  # lines of self.logs
        self.log_lines_dropped = 0  # lines past MAX_LOG_LINES, counted, not kept
        self.seat_wins: list[float] = [0] * players
        self.ends: Counter[str] = Counter()
        self.ends_among: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.agent_wins: defaultdict[str, float] = defaultdict(float)
        self.agent_seats: Counter[str] = Counter()
        self.beat: defaultdict[tuple[str, str], float] = defaultdict(float)
        self.met: Counter[tuple[str, str]] = Counter()
        self.turns: Counter[int] = Counter()
        self.decisions: list[Counter[int]] = [Counter() for _ in range(players)]
        self.items = _ItemTally()

    def add(self, r: Any) -> None:
        """One game (a GameResult), the next in game order."""
        if r.log:
            room = MAX_LOG_LINES - self.log_lines
            if room > 0:
                self.logs.append((r.index, r.seed, r.log[:room]))
                self.log_lines += len(self.logs[-1][2])
            self.log_lines_dropped += max(0, len(r.log) - max(room, 0))
        self.log_lines_dropped += r.log_unwritten
        if r.failure:
            self.failed += 1
            if len(self.failures) < MAX_FAILURES_KEPT:
                self.failures.append(r)
            return
        self.games += 1
        for s in range(self.players):
            self.seat_wins[s] += r.shares[s]
            self.decisions[s][r.decisions[s]] += 1
        self.ends[r.end] += 1
        self.ends_among[",".join(sorted(set(r.seating)))][r.end] += 1
        self.turns[r.turns] += 1
        share: defaultdict[str, float] = defaultdict(float)
        for agent, s in zip(r.seating, r.shares):
            self.agent_wins[agent] += s
            self.agent_seats[agent] += 1
            share[agent] += s
        for a in share:
            for b in share:
                if a != b:
                    self.met[a, b] += 1
                    self.beat[a, b] += 1.0 if share[a] > share[b] else (0.5 if share[a] == share[b] else 0.0)
        self.items.add(r)

    def summary(self, meta: dict, names: dict) -> dict:
        """simulation.json's content (`names`: (table, id) -> the item's name); asked of a run none of whose
        games failed."""
        games = self.games
        return {
            **meta,
            "games": games,
            "seat_win_rate": [wilson(self.seat_wins[s], games) for s in range(self.players)],
            "agent_win_rate": {agent: wilson(self.agent_wins[agent], self.agent_seats[agent])
                               for agent in sorted(self.agent_seats)},
            "matchup": self._matchups(),
            "length": {"turns": _spread(self.turns),
                       "decisions": [_spread(self.decisions[s]) for s in range(self.players)]},
            "end_reasons": {reason: {"count": n, "share": n / games} for reason, n in sorted(self.ends.items())},
            "end_reasons_among": {agents: {reason: {"count": n, "share": n / sum(ends.values())}
                                           for reason, n in sorted(ends.items())}
                                  for agents, ends in sorted(self.ends_among.items())},
            "items": self.items.summary(names),
        }

    def _matchups(self) -> dict:
        """matchup[a][b]: in games where agents a and b both sat, how often a did better than b (a tie counts
        half): the share of the win a's seats took against b's."""
        out: defaultdict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        for a, b in sorted(self.met):
            out[a][b] = wilson(self.beat[a, b], self.met[a, b])
        return dict(out)


def _spread(counts: Counter[int]) -> dict:
    """Mean, min, median and max of values given as {value: how many times}: what `statistics` gives of the
    values listed, without listing them."""
    n = sum(counts.values())
    if not n:
        return {}
    ordered = sorted(counts)
    return {"mean": sum(v * c for v, c in counts.items()) / n, "min": ordered[0], "median": _median(ordered, counts, n),
            "max": ordered[-1]}


def _median(ordered: list[int], counts: Counter[int], n: int) -> float | int:
    """statistics.median of the values counted: the middle one, or the mean of the middle two."""
    wanted = [(n - 1) // 2, n // 2]  # positions of the middle value(s) among the values in order
    found: list[int] = []
    seen = 0
    for value in ordered:
        seen += counts[value]
        while len(found) < 2 and wanted[len(found)] < seen:
            found.append(value)
        if len(found) == 2:
            break
    return found[0] if n % 2 else (found[0] + found[1]) / 2


class _ItemTally:
    """Per tracked item, over the seats that could have had it: each event's count, and the wins of the seats
    that took it and of those that did not."""

    def __init__(self) -> None:
        self.seats: Counter[tuple[str, str]] = Counter()  # (table, id) -> ...
        self.wins_with: Counter[tuple[str, str]] = Counter()
        self.wins_without: Counter[tuple[str, str]] = Counter()
        self.n_with: Counter[tuple[str, str]] = Counter()
        self.counts: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        self.among_takers: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)  # events of the item's takers
        self.event_names: set[str] = set()

    def add(self, r: Any) -> None:
        for s, events in enumerate(r.events):
            taken = set(events.get("taken", ()))
            self.event_names.update(events)
            for key in r.available:
                self.seats[key] += 1
                if key in taken:
                    self.n_with[key] += 1
                    self.wins_with[key] += r.shares[s]
                else:
                    self.wins_without[key] += r.shares[s]
            for name, keys in events.items():
                for key in keys:
                    self.counts[key][name] += 1
                    if key in taken:
                        self.among_takers[key][name] += 1

    def summary(self, names: dict) -> dict:
        """Per table, per item in play in some game: each event's rate among the seats that could have had it,
        and the win rate of the seats that took it against those that did not."""
        out: defaultdict[str, dict[str, Any]] = defaultdict(dict)
        for key in sorted(self.seats):
            table, item_id = key
            with_ = wilson(self.wins_with[key], self.n_with[key])
            without = wilson(self.wins_without[key], self.seats[key] - self.n_with[key])
            gap = with_["rate"] - without["rate"] if with_["n"] and without["n"] else None
            seats = self.seats[key]
            out[table][item_id] = {
                "name": names.get(key, item_id), "seats": seats,
                "events": {name: {"count": self.counts[key][name], "rate": self.counts[key][name] / seats,
                                  "when_taken": self.among_takers[key][name]} for name in sorted(self.event_names)},
                "win_taken": with_, "win_not_taken": without, "gap": gap}
        return dict(out)


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
        return f"{float(self):.3g} (95% interval {self.low:.3g} to {self.high:.3g}, n {self.n})"


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
