"""Diamonds and Dinosaurs, playable by `pnp simulate` (the rulebook's rules, numbers read from game.yaml and
the cards' data).

A turn is a chain of decisions: play a card from the hand onto a free grid cell sharing a side with the map
(step 1); discard clubs at dinosaurs, one at a time, then `fight done` (step 2; skipped when no club in hand
can beat a dinosaur on the map); the dinosaurs next to the explorer bite, dice rolled by the rules (step 3);
`roll` the d12 (at least once), then `step X Y` onto a reachable neighbour or `stop`, and after a step
`roll` again or `stop` (steps 4-7); then the hand is refilled (step 8) and the next seat plays.

What the simulation decides for the players (the rulebook leaves none of it open, but a bot needs it said):
- seat 0 starts (the rulebook's opening roll only chooses who sits first; the seat figures measure it);
- the map is a grid of (x, y) cells, the Base Camp at (0, 0); "next to" is the eight cells around;
- a card reaches the map at the moment it is played, so a diamond or a dinosaur appears on it at once, and
  a diamond dropped by an explorer at 0 health joins any diamonds already there;
- the game ends after the turn in which a draw empties the deck; with no card in hand, step 1 is skipped.

Tracked cards (table `cards`), per player: `taken` (dealt or drawn into the hand), `played` (put on the map
or discarded as a club), `effective` (its own diamond collected from it, a heart that healed, a club that
defeated a dinosaur, a lair whose dinosaur bit someone else than its player), `bit` (its dinosaur bit this
player).
"""

from pnp.simulate.api import GameRules, Tracked

NEIGHBOURS = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)
SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIE = 12


class State:
    __slots__ = ("map", "owner", "dinos", "gems", "at", "health", "held", "hands", "deck", "discard",
                 "current", "turn", "phase", "roll", "rewarded", "last_draw", "winner", "events")

    def copy(self):
        s = State.__new__(State)
        s.map, s.owner, s.dinos, s.gems = dict(self.map), dict(self.owner), set(self.dinos), dict(self.gems)
        s.at, s.health, s.held = list(self.at), list(self.health), list(self.held)
        s.hands, s.deck, s.discard = [list(h) for h in self.hands], list(self.deck), list(self.discard)
        s.current, s.turn, s.phase, s.roll = self.current, self.turn, self.phase, self.roll
        s.rewarded, s.last_draw, s.winner = set(self.rewarded), self.last_draw, self.winner
        s.events = [{k: set(v) for k, v in e.items()} for e in self.events]
        return s


class Rules(GameRules):
    ITEMS = {"cards": "card"}
    END_REASONS = ("diamonds", "deck out")

    def __init__(self, game):
        super().__init__(game)
        r = game.rules
        self.to_win, self.max_health, self.hand_size = r.diamonds_to_win, r.max_health, r.hand_size
        self.cards = game.ref.cards
        self.camp = next(c.id for c in game.tables.cards if c.base_camp)

    # --- setup -------------------------------------------------------------------------------------------
    def setup(self, players, rng):
        s = State()
        s.map, s.owner, s.dinos, s.gems = {(0, 0): self.camp}, {}, set(), {}
        s.at, s.health, s.held = [(0, 0)] * players, [self.max_health] * players, [0] * players
        s.deck = sorted(c.id for c in self.game.tables.cards if c.id != self.camp)
        rng.shuffle(s.deck)
        s.discard, s.hands = [], [[] for _ in range(players)]
        s.events = [{"taken": set(), "played": set(), "effective": set(), "bit": set()} for _ in range(players)]
        s.last_draw, s.winner, s.turn = False, None, 1
        for p in range(players):
            self._draw(s, p)
        s.last_draw = False
        self._start_turn(s, 0, rng)
        return s

    def _draw(self, s, p):
        while len(s.hands[p]) < self.hand_size and s.deck:
            card = s.deck.pop()
            s.hands[p].append(card)
            s.events[p]["taken"].add(("cards", card))
            if not s.deck:
                s.last_draw = True

    def _start_turn(self, s, p, rng):
        s.current, s.roll, s.rewarded = p, None, set()
        s.phase = "play"
        if not s.hands[p]:
            self._after_play(s, rng)

    # --- the engine's questions ----------------------------------------------------------------------------
    def to_act(self, s):
        return s.current

    def is_over(self, s):
        return s.phase == "over"

    def turn(self, s):
        return s.turn

    def end_reason(self, s):
        return "diamonds" if s.winner is not None else "deck out"

    def scores(self, s):
        # most diamonds, then most health; a player who reached the target holds the most diamonds
        return [10 * d + h for d, h in zip(s.held, s.health)]

    def clone(self, s):
        return s.copy()

    def determinise(self, s, player, rng):
        s = s.copy()
        hidden = list(s.deck)
        for p, hand in enumerate(s.hands):
            if p != player:
                hidden += hand
        rng.shuffle(hidden)
        for p, hand in enumerate(s.hands):
            if p != player:
                s.hands[p], hidden = hidden[:len(hand)], hidden[len(hand):]
        s.deck = hidden
        return s

    def heuristic(self, s, player):
        mine = 10 * s.held[player] + s.health[player] + 3 * self._gems_near(s, s.at[player])
        others = max(10 * d + h for p, (d, h) in enumerate(zip(s.held, s.health)) if p != player)
        return mine - others

    def _gems_near(self, s, at):
        return sum(1 for dx, dy in NEIGHBOURS if s.gems.get((at[0] + dx, at[1] + dy)))

    def tracked(self, s):
        return Tracked({("cards", c.id) for c in self.game.tables.cards if c.id != self.camp}, s.events)

    # --- moves ----------------------------------------------------------------------------------------------
    def legal_moves(self, s):
        p = s.current
        if s.phase == "play":
            cells = self._free_cells(s)
            return [("play", c, x, y) for c in sorted(set(s.hands[p]), key=self._order) for x, y in cells]
        if s.phase == "fight":
            return [("fight done",)] + self._club_moves(s)
        if s.phase == "first roll":
            return [("roll",)]
        if s.phase == "rolled":
            return [("stop",)] + [("step", x, y) for x, y in self._reachable(s)]
        return [("roll",), ("stop",)]  # after a step

    def _order(self, card_id):
        return (self.cards[card_id].suit, self.cards[card_id].roll, card_id)

    def _free_cells(self, s):
        return sorted({(x + dx, y + dy) for x, y in s.map for dx, dy in SIDES} - s.map.keys())

    def _club_moves(self, s):
        clubs = sorted({c for c in s.hands[s.current] if self.cards[c].suit == "clubs"}, key=self._order)
        return [("club", c, x, y) for c in clubs for x, y in sorted(s.dinos)
                if self.cards[c].weapon >= self.cards[s.map[x, y]].roll]

    def _reachable(self, s):
        x, y = s.at[s.current]
        out = []
        for dx, dy in NEIGHBOURS:
            cell = (x + dx, y + dy)
            if cell in s.map and cell not in s.dinos and self.cards[s.map[cell]].roll <= s.roll:
                out.append(cell)
        return sorted(out)

    def apply(self, s, move, rng):
        kind = move[0]
        if kind == "play":
            self._play(s, move[1], (move[2], move[3]), rng)
        elif kind == "club":
            self._club(s, move[1], (move[2], move[3]), rng)
        elif kind == "fight done":
            self._bites(s, rng)
        elif kind == "roll":
            self._roll(s, rng)
        elif kind == "step":
            self._land(s, (move[1], move[2]))
        else:
            self._end_turn(s, rng)
        return s

    # --- a turn's steps ---------------------------------------------------------------------------------------
    def _play(self, s, card_id, cell, rng):
        p = s.current
        s.hands[p].remove(card_id)
        s.map[cell] = card_id
        s.owner[cell] = p
        s.events[p]["played"].add(("cards", card_id))
        suit = self.cards[card_id].suit
        if suit == "diamonds":
            s.gems[cell] = s.gems.get(cell, 0) + 1
        elif suit == "spades":
            s.dinos.add(cell)
        self._after_play(s, rng)

    def _after_play(self, s, rng):
        """Step 2 when a club in hand can beat a dinosaur on the map; else straight to the bites."""
        if self._club_moves(s):
            s.phase = "fight"
        else:
            self._bites(s, rng)

    def _club(self, s, club, cell, rng):
        p = s.current
        s.hands[p].remove(club)
        s.discard.append(club)
        s.dinos.discard(cell)
        s.gems[cell] = s.gems.get(cell, 0) + 1
        s.events[p]["played"].add(("cards", club))
        s.events[p]["effective"].add(("cards", club))
        if not self._club_moves(s):
            self._bites(s, rng)

    def _bites(self, s, rng):
        p = s.current
        at = s.at[p]
        if at != (0, 0):
            for dx, dy in NEIGHBOURS:
                cell = (at[0] + dx, at[1] + dy)
                if cell in s.dinos and rng.randint(1, DIE) <= self.cards[s.map[cell]].roll:
                    lair = ("cards", s.map[cell])
                    s.events[p]["bit"].add(lair)
                    if s.owner.get(cell, p) != p:
                        s.events[s.owner[cell]]["effective"].add(lair)
                    s.health[p] -= 1
                    if s.health[p] == 0:
                        self._knocked_down(s, p)
                        break
        s.phase = "first roll"

    def _knocked_down(self, s, p):
        if s.held[p]:
            s.held[p] -= 1
            s.gems[s.at[p]] = s.gems.get(s.at[p], 0) + 1
        s.at[p] = (0, 0)
        s.health[p] = self.max_health

    def _roll(self, s, rng):
        s.roll = rng.randint(1, DIE)
        if s.roll == 1:
            self._assault(s)
        s.phase = "rolled" if self._reachable(s) else "moved"
        if s.phase == "moved":
            self._end_turn(s, rng)  # a roll that takes you nowhere ends the move

    def _assault(self, s):
        occupied = set(s.at)
        for cell, card in s.map.items():
            if (self.cards[card].suit == "spades" and card != self.camp and cell not in s.dinos
                    and not s.gems.get(cell) and cell not in occupied):
                s.dinos.add(cell)

    def _land(self, s, cell):
        p = s.current
        s.at[p] = cell
        s.phase = "moved"
        if cell in s.rewarded:
            return
        card = ("cards", s.map[cell])
        if s.gems.get(cell):
            s.rewarded.add(cell)
            s.gems[cell] -= 1
            s.held[p] += 1
            if self.cards[s.map[cell]].suit == "diamonds":  # a dropped or a lair's diamond is not the card's doing
                s.events[p]["effective"].add(card)
            if s.held[p] >= self.to_win:
                s.winner, s.phase = p, "over"
        elif self.cards[s.map[cell]].suit == "hearts" and s.health[p] < self.max_health:
            s.rewarded.add(cell)
            s.health[p] += 1
            s.events[p]["effective"].add(card)

    def _end_turn(self, s, rng):
        self._draw(s, s.current)
        if s.last_draw:
            s.phase = "over"
            return
        s.turn += 1
        self._start_turn(s, (s.current + 1) % len(s.hands), rng)
