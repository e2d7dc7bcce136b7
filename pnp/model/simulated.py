"""The shape of output/<game>/simulation.json as `pnp simulate` writes it, checked part by part: the design report
shows the parts of that shape and warns of the others, the rulebook refuses a file with any other (it printed a
first seat winning '700% (95% interval -300-1200%)' of '-5 games' from a file the report warned of, exit 0)."""

from collections.abc import Callable
from typing import Any

from ..report import shortened

MAX_SEATS, MAX_AGENTS, MAX_REASONS, MAX_TABLES = 64, 16, 40, 20
MAX_ITEMS = 200  # items of one table shown; a file holding more is said to
MAX_TEXT = 200  # characters of a text of the file (a name, an agent): `pnp simulate` writes none longer


class Capped(str):
    """A problem that is no fault of the file: a mapping holds more entries than are shown."""


class Many:
    """A list of at most `cap` values of one shape (a seat per entry: one bad entry spoils the list)."""

    def __init__(self, shape: Any, cap: int) -> None:
        self.shape, self.cap = shape, cap


class Each:
    """A mapping from names to values of one shape; an entry of another shape is dropped alone, and entries
    past `cap` are not shown."""

    def __init__(self, shape: Any, cap: int) -> None:
        self.shape, self.cap = shape, cap


class Where:
    """A value of `shape` whose parts also agree with one another (`agree` of the cleaned value)."""

    def __init__(self, shape: Any, agree: Callable[[Any], bool]) -> None:
        self.shape, self.agree = shape, agree


def _number(v: Any) -> bool:
    # compared, never converted: JSON writes an integer of any length, and math.isfinite of a 400-digit one
    # raised OverflowError (the report and the build stopped as a bug in pnp); NaN and infinities compare false
    return isinstance(v, (int, float)) and not isinstance(v, bool) and -1e12 <= v <= 1e12


def _rate(v: Any) -> bool:
    return v is None or (_number(v) and 0 <= v <= 1)


def _gap(v: Any) -> bool:
    return v is None or (_number(v) and -1 <= v <= 1)


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 10**12


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**63


def _text(v: Any) -> bool:
    return isinstance(v, str) and len(v) <= MAX_TEXT


def _interval(w: dict) -> bool:
    """A rate inside its interval, or no rate at all when no game measured it (as stats.wilson writes them):
    '0% (90-100%)' was charted as the file said, and `rate: null` of 40 games stopped the balance rules."""
    if w["n"] == 0 or w["rate"] is None:
        return w["n"] == 0 and w["rate"] is None and w["low"] is None and w["high"] is None
    return w["low"] is not None and w["high"] is not None and w["low"] <= w["rate"] <= w["high"]


RATE = Where({"rate": _rate, "low": _rate, "high": _rate, "n": _count}, _interval)
# a game's length in turns or decisions: none below 0, the median and mean between the shortest and longest
# ('median 5 (10–1)', a mean of -3 were charted as the file said)
SPREAD = Where({"mean": _number, "min": _number, "median": _number, "max": _number},
               lambda s: 0 <= s["min"] <= min(s["median"], s["mean"]) and max(s["median"], s["mean"]) <= s["max"])
END = {"count": _count, "share": _rate}
# an event's `when_taken`: the seats that took the item and had the event, which balance rules read as
# item.when_taken.EVENT (dropped by this shape, it read as 0 in the report: a rule simulate said held was
# charted as failing)
EVENT = {"count": _count, "rate": _rate, "when_taken": _count}
ITEM = Where({"name": _text, "seats": _count, "events": Each(EVENT, MAX_REASONS),
              "win_taken": RATE, "win_not_taken": RATE, "gap": _gap},
             # an event counted in more seats than the item was in play has no rate (its interval was a
             # square root of a negative number, and the report stopped with a traceback); its takers with
             # the event are among both its seats with the event and its takers
             lambda item: all(e["when_taken"] <= min(e["count"], item["win_taken"]["n"]) and e["count"] <= item["seats"]
                              for e in item["events"].values()))
SHAPE = {
    "game": _text, "seed": _whole, "players": _count, "agents": Many(_text, MAX_AGENTS), "games": _count,
    "games_per_seating": _count, "seat_win_rate": Many(RATE, MAX_SEATS), "agent_win_rate": Each(RATE, MAX_AGENTS),
    "matchup": Each(Each(RATE, MAX_AGENTS), MAX_AGENTS),
    "length": {"turns": SPREAD, "decisions": Many(SPREAD, MAX_SEATS)},
    "end_reasons": Each(END, MAX_REASONS), "end_reasons_among": Each(Each(END, MAX_REASONS), MAX_AGENTS),
    "end_reasons_known": Many(_text, MAX_REASONS), "tracked": Each(_text, MAX_TABLES),
    "items": Each(Each(ITEM, MAX_ITEMS), MAX_TABLES),
}
BAD = object()  # what a value of the wrong shape cleans to
# top-level parts that must agree with the parts read before them (`summary`, cleaned so far): a game ends one
# way at most once (a count past the games made a share past 1, whose interval was the square root of a negative
# number: the report stopped with a traceback)
AGREE: dict[str, Callable[[Any, dict], bool]] = {
    "end_reasons": lambda ends, summary: all(e["count"] <= summary.get("games", 0) for e in ends.values()),
    # the agents rated, matched and ending games are among those that played (a 'ghost' at 90% was charted)
    "agent_win_rate": lambda rates, summary: _among_agents(rates, summary),
    "matchup": lambda rows, summary: _among_agents(rows, summary) and all(
        _among_agents(row, summary) for row in rows.values()),
    "end_reasons_among": lambda among, summary: all(
        _among_agents(names.split(","), summary) for names in among),
}


def _among_agents(names: Any, summary: dict) -> bool:
    """Whether every name is one of the file's agents (when it has a readable list of them)."""
    return "agents" not in summary or set(names) <= set(summary["agents"])


def clean(value: Any, shape: Any, where: str, problems: list, capped: bool = True) -> Any:
    """`value` kept as far as it has `shape` (BAD when it has not); what was dropped is noted in `problems`
    by its place in the file (items.dinosaurs.rex). `capped`: a mapping keeps only its first entries (Each)."""
    if isinstance(shape, dict):
        return _clean_record(value, shape, where, problems, capped)
    if isinstance(shape, Many):
        if not isinstance(value, list) or len(value) > shape.cap:
            return BAD
        kept = [clean(v, shape.shape, where, problems, capped) for v in value]
        return BAD if any(v is BAD for v in kept) else kept
    if isinstance(shape, Each):
        return _clean_each(value, shape, where, problems, capped)
    if isinstance(shape, Where):
        kept = clean(value, shape.shape, where, problems, capped)
        return kept if kept is BAD or shape.agree(kept) else BAD
    return value if shape(value) else BAD


def _clean_record(value: Any, shape: dict, where: str, problems: list, capped: bool) -> Any:
    """A record: every key of `shape` there and of its shape (others are dropped), else BAD."""
    if not isinstance(value, dict) or not all(k in value for k in shape):
        return BAD
    kept = {k: clean(value[k], s, f"{where}.{k}", problems, capped) for k, s in shape.items()}
    return BAD if any(v is BAD for v in kept.values()) else kept


def _clean_each(value: Any, shape: Each, where: str, problems: list, capped: bool) -> Any:
    if not isinstance(value, dict):
        return BAD
    kept = {}
    if len(value) > shape.cap:
        problems.append(Capped(f"{where} has {len(value):,} entries, only the first {shape.cap} are shown"))
    for k, v in list(value.items())[:shape.cap] if capped else value.items():
        # a name is a text as short as the file's other texts: a table named by 100,000 letters took 47 s to
        # lay out and then failed in ReportLab, too tall for a page
        v = clean(v, shape.shape, f"{where}.{shortened(k, 40)}", problems, capped) if _text(k) else BAD
        if v is BAD:
            problems.append(f"{where}.{shortened(k, 40)}")
        else:
            kept[k] = v
    return kept


def cleaned(value: dict, problems: list, capped: bool = True) -> dict[str, Any]:
    """The parts of a parsed simulation.json of the shape `pnp simulate` writes; the others are noted in
    `problems` by their place in the file (items.dinosaurs.rex), as are mappings holding more entries than
    are shown (as Capped). `capped`: a mapping keeps (and is checked for) only the entries shown."""
    summary: dict[str, Any] = {}
    for key, shape in SHAPE.items():
        if key in value:
            kept = clean(value[key], shape, key, problems, capped)
            if kept is BAD or not AGREE.get(key, lambda *_: True)(kept, summary):
                problems.append(key)
            else:
                summary[key] = kept
    return summary


def unlike(value: dict) -> list[str]:
    """The parts of a parsed simulation.json that are not of the shape `pnp simulate` writes, whatever their
    number; a mapping holding more entries than the report shows is not among them, but every entry is
    checked (the rulebook reads them all: a 41st way to end of '700%' of '-5' games was printed, exit 0).
    `dead` is pnp's own reading of `items` (dead_items), so it must be that reading: a received file's list of
    29 cards that 'never work' was printed in the rulebook beside items saying each of them worked, exit 0."""
    problems: list[str] = []
    summary = cleaned(value, problems, capped=False)
    if "dead" in value and not _dead_as_read(value["dead"], dead_items({"items": summary.get("items", {})})):
        problems.append("dead")
    return [p for p in problems if not isinstance(p, Capped)]


def of_another_game(value: dict, game_id: str) -> str:
    """What to say of a simulation.json of another game than `game_id` (a folder copied under another name):
    its figures were charted and printed as this game's; "" when it is this game's or does not say."""
    other = value.get("game")
    if not isinstance(other, str) or other == game_id:
        return ""
    return f"a simulation of the game '{shortened(other, 40)}', not of '{game_id}'"


def _dead_as_read(given: Any, read: dict) -> bool:
    """Whether a file's `dead` lists the items dead_items reads from its `items`, in any order (the file lists
    them in the order the run met them, its `items` are written sorted)."""
    if not (isinstance(given, dict) and given.keys() == read.keys()):
        return False
    for table, labels in given.items():
        if not (isinstance(labels, dict) and labels.keys() == read[table].keys()):
            return False
        for label, ids in labels.items():
            if not (isinstance(ids, list) and all(isinstance(i, str) for i in ids)
                    and sorted(ids) == sorted(read[table][label])):
                return False
    return True


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
