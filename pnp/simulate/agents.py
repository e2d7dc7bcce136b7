"""The players pnp seats at a game: uniform random, one-step look-ahead greedy, and determinised
information-set MCTS with a budget in iterations.

Our own small search rather than OpenSpiel's: OpenSpiel is a large C++ library whose games implement its own
interface, so every game would need a bridge from the rules API; the search below is a hundred lines over
that API, runs in any process pnp starts, and its budget is ours to set."""

import math
import numbers
import re
from random import Random
from typing import Any

from .api import GameRules, Move, RulesFault, said

AGENTS = ("random", "greedy", "mcts")
# per decision: beats random in every game and greedy in most (Dino Battles), and 1,000 games against random
# take about 3 minutes of processor time; more iterations buy little once the heuristic judges the leaves
MCTS_ITERATIONS = 32
# moves of random play after the tree before the heuristic judges the position: none by default, as random
# moves mostly add noise to a good heuristic and cost most of the time (40 moves made a game take a minute)
ROLLOUT_CAP = 0
EXPLORATION = 0.7


class Agent:
    """Chooses a move for the player to act; `rng` is the agent's own (seeded per game)."""

    name = "agent"

    def choose(self, rules: GameRules, state: Any, moves: list[Move], player: int, rng: Random) -> Move:
        raise NotImplementedError


class RandomAgent(Agent):
    name = "random"

    def choose(self, rules: GameRules, state: Any, moves: list[Move], player: int, rng: Random) -> Move:
        return moves[rng.randrange(len(moves))]


class GreedyAgent(Agent):
    """Plays the move after which the rules' heuristic (by default the score's lead) is best for it, judged on
    one determinisation of what it cannot see; ties are broken at random."""

    name = "greedy"

    def choose(self, rules: GameRules, state: Any, moves: list[Move], player: int, rng: Random) -> Move:
        if len(moves) == 1:
            return moves[0]
        seen = rules.determinise(state, player, rng)
        best, best_value = [], -math.inf
        for move in moves:
            after = rules.apply(rules.clone(seen), move, Random(rng.random()))
            value = value_of(rules, after, player)
            if value > best_value + 1e-12:
                best, best_value = [move], value
            elif abs(value - best_value) <= 1e-12:
                best.append(move)
        return best[rng.randrange(len(best))]


def value_of(rules: GameRules, state: Any, player: int) -> float:
    """A position's worth to `player` in [0, 1]: its share of the win when the game is over, else the
    heuristic squashed (a lead of 1 is worth about 0.73)."""
    if rules.is_over(state):
        return win_shares(rules.scores(state))[player]
    value = rules.heuristic(state, player)
    if not isinstance(value, (int, float, numbers.Real)) or value != value:  # 'high' was said as pnp's own
        # TypeError, not naming the heuristic; NaN was judged the best of positions
        raise RulesFault(f"heuristic returned {said(value)}, not a number", hook="heuristic")
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, value))))


def win_shares(scores: list[float]) -> list[float]:
    """Each player's share of the win: 1 for a sole winner, 1/k each for k tied at the top."""
    top = max(scores)
    winners = sum(1 for s in scores if s == top)
    return [1 / winners if s == top else 0.0 for s in scores]


class _Node:
    __slots__ = ("children", "visits", "reward", "seen")

    def __init__(self) -> None:
        self.children: dict[Move, _Node] = {}
        self.visits = 0
        self.reward = 0.0  # summed, for the player who chose the move leading here
        self.seen = 0  # how often this node's move was legal when its parent was visited (ISMCTS)


class MctsAgent(Agent):
    """Single-observer information-set MCTS: each iteration draws one determinisation of what the player
    cannot see, walks the tree by UCT among the moves legal in it, adds one node, plays at random for at most
    `rollout_cap` moves (none by default), judges the position reached (the heuristic, or the result when the
    game is over) and credits each node to the player who chose its move."""

    name = "mcts"

    def __init__(self, iterations: int = MCTS_ITERATIONS, rollout_cap: int = ROLLOUT_CAP) -> None:
        self.iterations, self.rollout_cap = iterations, rollout_cap

    def choose(self, rules: GameRules, state: Any, moves: list[Move], player: int, rng: Random) -> Move:
        if len(moves) == 1:
            return moves[0]
        root = _Node()
        for _ in range(self.iterations):
            self._iterate(rules, rules.determinise(state, player, rng), root, rng)
        return max(moves, key=lambda m: (root.children[m].visits if m in root.children else -1,
                                         root.children[m].reward if m in root.children else 0))

    def _iterate(self, rules: GameRules, state: Any, root: _Node, rng: Random) -> None:
        path: list[tuple[_Node, int]] = []  # (node, the player who chose its move)
        node = root
        while not rules.is_over(state):
            mover, legal = rules.to_act(state), rules.legal_moves(state)
            untried = [m for m in legal if m not in node.children]
            for m in legal:
                if m in node.children:
                    node.children[m].seen += 1
            if untried:
                move = untried[rng.randrange(len(untried))]
                child = node.children[move] = _Node()
                child.seen = 1
                state = rules.apply(state, move, rng)
                path.append((child, mover))
                break
            move = self._select(node, legal)
            node = node.children[move]
            state = rules.apply(state, move, rng)
            path.append((node, mover))
        state = self._rollout(rules, state, rng)
        values: dict[int, float] = {}  # player -> the position's worth to them
        for child, mover in path:
            if mover not in values:
                values[mover] = value_of(rules, state, mover)
            child.visits += 1
            child.reward += values[mover]

    @staticmethod
    def _select(node: _Node, legal: list[Move]) -> Move:
        best, best_score = None, -math.inf
        for move in legal:
            child = node.children[move]
            score = child.reward / child.visits + EXPLORATION * math.sqrt(math.log(max(child.seen, 1)) / child.visits)
            if score > best_score:
                best, best_score = move, score
        return best

    def _rollout(self, rules: GameRules, state: Any, rng: Random) -> Any:
        for _ in range(self.rollout_cap):
            if rules.is_over(state):
                break
            moves = rules.legal_moves(state)
            state = rules.apply(state, moves[rng.randrange(len(moves))], rng)
        return state


MCTS_N = re.compile(r"mcts-([1-9][0-9]*)")


def make_agent(name: str) -> Agent:
    """An agent by its name on the command line: random, greedy, mcts, or mcts-N for N iterations."""
    if name == "random":
        return RandomAgent()
    if name == "greedy":
        return GreedyAgent()
    if name == "mcts":
        return MctsAgent()
    iterations = MCTS_N.fullmatch(name)  # ASCII digits, one spelling each: 'mcts-٣' and 'mcts-03' were
    if iterations and int(iterations[1]) <= 100_000:  # taken as mcts-3, shown in the results under other names
        return MctsAgent(int(iterations[1]))
    raise ValueError(name)
