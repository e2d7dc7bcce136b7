"""DinoSpan, playable by `pnp simulate`: a simplification of the rulebook, for 2 to 5 players.

Played as the rulebook says: 4 rounds of 4 turns; a turn is one action, publish a card from the hand (as a
new genus into the next free space of its hemisphere's row, paying its cost; or by evolution onto a lone
parent of the same order and family, or a Basal one of that order, returning one egg) or analyze a row
(resolve its visible abilities left to right); a published card resolves its ability; the Hype zone is
refilled after every action; the Footprint deck is Jurassic for rounds I-II and Cretaceous for III-IV (the
Archive is reshuffled into it when it runs out); each round's goal is scored on the 0/2/4/6/8/10 scale by the
gap to the lowest count (covered cards count), and the player at 0 becomes first player; final score =
visible PP + 1 per red egg, 3 per golden egg + goal rewards + 3 PP for a resource at 8-9 and 5 at 10.

Simplified (each the rulebook's choice made for the player, or a rule left out):
- the goals are one of the two Introductory Scenarios, drawn at random (no Key Species draw);
- starting hands are 2 random Triassic cards, published free one per row, in seat order;
- evolution is always a **low** overlay (the parent's PP and tag stay visible, only the new ability counts);
- abilities are always resolved, never skipped, so ecosystem effects never reach the other players;
- choices inside an ability are made by fixed rules: +1 bio goes to the lowest resource; a draw "from the
  Hype" takes the first matching card, else the `or_from` source; a reveal keeps the first `keep` cards and
  archives the rest; cards paid from the hand are the lowest-PP ones (of the order asked); eggs go on the
  first stacks with room; a repeatable (infinity) ability is used at most 3 times in a row;
- "x per ..." counts the visible (top) cards of a row, the whole Atlas, the hand, the Hype zone, the Archive or
  the cards just revealed/discarded; egg supplies are unlimited.

Tracked dinosaurs (table `dinosaurs`), per player: `taken` (into the hand), `played` (published),
`effective` (its ability did something when resolved).
"""

from pnp.simulate.api import GameRules, Tracked

RES = ("plants", "trees", "mammals")
ROWS = ("laurasia", "gondwana")
REPEAT_CAP = 3


class Player:
    __slots__ = ("hand", "rows", "res", "goals", "events")

    def copy(self):
        p = Player.__new__(Player)
        p.hand, p.res, p.goals = list(self.hand), dict(self.res), list(self.goals)
        p.rows = {r: [[list(st[0]), list(st[1])] for st in self.rows[r]] for r in ROWS}
        p.events = {k: set(v) for k, v in self.events.items()}
        return p


class State:
    __slots__ = ("players", "footprint", "hype", "archive", "goals", "round", "turn", "first", "acted",
                 "current", "over", "seen")

    def copy(self):
        s = State.__new__(State)
        s.players = [p.copy() for p in self.players]
        s.footprint, s.hype, s.archive = list(self.footprint), list(self.hype), list(self.archive)
        s.goals, s.round, s.turn, s.first = self.goals, self.round, self.turn, self.first
        s.acted, s.current, s.over, s.seen = self.acted, self.current, self.over, dict(self.seen)
        return s


class Rules(GameRules):
    ITEMS = {"dinosaurs": "species"}
    END_REASONS = ("four rounds",)

    def __init__(self, game):
        super().__init__(game)
        r = game.rules
        self.rounds, self.turns, self.spaces = r.rounds, r.turns_per_round, r.hemisphere_spaces
        self.cap, self.scale, self.hype_size = r.resource_max, r.goal_scale, r.hype_size
        self.red_pp, self.gold_pp, self.bonus = r.basic_egg_pp, r.golden_egg_pp, r.resource_bonus
        self.d = game.ref.dinosaurs
        self.era = {e: sorted(x.id for x in game.tables.dinosaurs if x.era == e)
                    for e in ("Triassic", "Jurassic", "Cretaceous")}
        self.abilities = {a.id: a.ability for a in game.tables.abilities}

    # --- setup ----------------------------------------------------------------------------------------------
    def setup(self, players, rng):
        s = State()
        scenario = rng.choice(self.game.tables.scenarios)
        s.goals = tuple(self.game.ref.goals[g] for g in scenario.goals)
        s.footprint = list(self.era["Jurassic"])
        rng.shuffle(s.footprint)
        s.archive, s.hype = [], []
        s.round, s.turn, s.first, s.acted, s.current, s.over, s.seen = 1, 1, 0, 0, 0, False, {}
        s.players = []
        for _ in range(players):
            p = Player()
            p.hand, p.res, p.goals = [], {r: 0 for r in RES}, []
            p.rows = {r: [] for r in ROWS}
            p.events = {"taken": set(), "played": set(), "effective": set()}
            s.players.append(p)
        triassic = list(self.era["Triassic"])
        rng.shuffle(triassic)
        self._refill(s, rng)
        for i, p in enumerate(s.players):
            for row in ROWS:
                card = triassic.pop()
                self._take(s, i, card)
                self._place(s, i, card, row, rng)
        return s

    def _take(self, s, i, card):
        s.players[i].hand.append(card)
        s.players[i].events["taken"].add(("dinosaurs", card))

    def _draw_footprint(self, s, rng):
        if not s.footprint:
            s.footprint, s.archive = s.archive, []
            rng.shuffle(s.footprint)
        return s.footprint.pop() if s.footprint else None

    def _refill(self, s, rng):
        while len(s.hype) < self.hype_size:
            card = self._draw_footprint(s, rng)
            if card is None:
                return
            s.hype.append(card)

    # --- the engine's questions -----------------------------------------------------------------------------
    def to_act(self, s):
        return s.current

    def is_over(self, s):
        return s.over

    def turn(self, s):
        return s.turn

    def end_reason(self, s):
        return "four rounds"

    def scores(self, s):
        return [self._score(p) for p in s.players]

    def _score(self, p):
        total = sum(p.goals)
        for row in ROWS:
            for cards, eggs in p.rows[row]:
                total += sum(self.d[c].pp for c in cards[-2:]) + eggs[0] * self.red_pp + eggs[1] * self.gold_pp
        for r in RES:
            total += self.bonus.max_pp if p.res[r] >= self.cap else (self.bonus.over_pp if p.res[r] > self.bonus.over else 0)
        return total

    def clone(self, s):
        return s.copy()

    def determinise(self, s, player, rng):
        s = s.copy()
        hidden = list(s.footprint)
        for i, p in enumerate(s.players):
            if i != player:
                hidden += p.hand
        rng.shuffle(hidden)
        for i, p in enumerate(s.players):
            if i != player:
                p.hand, hidden = hidden[:len(p.hand)], hidden[len(p.hand):]
        s.footprint = hidden
        return s

    def heuristic(self, s, player):
        mine = self._score(s.players[player]) + 0.5 * len(s.players[player].hand)
        mine += 0.3 * sum(s.players[player].res.values())
        return mine - max(self._score(p) for i, p in enumerate(s.players) if i != player)

    def tracked(self, s):
        available = {("dinosaurs", c) for c in self.d if self.d[c].era != "Triassic" or c in s.seen}
        return Tracked(available, [p.events for p in s.players])

    # --- moves ----------------------------------------------------------------------------------------------
    def legal_moves(self, s):
        p = s.players[s.current]
        moves = [("analyze", row) for row in ROWS if p.rows[row]]
        for card in sorted(set(p.hand)):
            row = self.d[card].hemisphere.lower()
            if len(p.rows[row]) < self.spaces and self._payable(p, card):
                moves.append(("publish", card))
            for slot, (cards, _) in enumerate(p.rows[row]):
                if len(cards) == 1 and self._parent(cards[0], card):
                    moves.append(("evolve", card, slot))
        return moves or [("pass",)]

    def _parent(self, parent, child):
        a, b = self.d[parent], self.d[child]
        return a.order == b.order and (a.family == b.family or a.family == "Basal") and parent != child

    def _payable(self, p, card):
        cost = self.d[card].cost
        return all(p.res[r] >= cost.get(r, 0) for r in RES) and len(p.hand) - 1 >= cost.get("dinosaurs", 0)

    def apply(self, s, move, rng):
        i = s.current
        p = s.players[i]
        if move[0] == "publish":
            cost = self.d[move[1]].cost
            for r in RES:
                p.res[r] -= cost.get(r, 0)
            p.hand.remove(move[1])
            self._pay_cards(s, p, cost.get("dinosaurs", 0), None)
            self._place(s, i, move[1], self.d[move[1]].hemisphere.lower(), rng, take=False)
        elif move[0] == "evolve":
            p.hand.remove(move[1])
            stack = p.rows[self.d[move[1]].hemisphere.lower()][move[2]]
            stack[0].append(move[1])
            eggs = stack[1]
            if eggs[0]:
                eggs[0] -= 1
            elif eggs[1]:
                eggs[1] -= 1
            p.events["played"].add(("dinosaurs", move[1]))
            self._resolve(s, i, move[1], rng)
        elif move[0] == "analyze":
            for cards, _ in list(p.rows[move[1]]):
                self._resolve(s, i, cards[-1], rng)
        self._refill(s, rng)
        self._next(s, rng)
        return s

    def _place(self, s, i, card, row, rng, take=True):
        p = s.players[i]
        if take:
            p.hand.remove(card)
        s.seen[card] = True
        p.rows[row].append([[card], [0, 0]])
        p.events["played"].add(("dinosaurs", card))
        self._resolve(s, i, card, rng)

    def _pay_cards(self, s, p, n, order):
        payable = sorted((c for c in p.hand if order is None or self.d[c].order == order),
                         key=lambda c: (self.d[c].pp, c))[:n]
        for c in payable:
            p.hand.remove(c)
            s.archive.append(c)
        return len(payable) == n

    def _next(self, s, rng):
        s.acted += 1
        players = len(s.players)
        if s.acted < self.turns * players:
            s.current = (s.current + 1) % players
            s.turn += 1
            return
        self._score_goal(s)
        s.round += 1
        s.acted = 0
        if s.round > self.rounds:
            s.over = True
            return
        if s.round == 3:
            s.footprint = list(self.era["Cretaceous"])
            rng.shuffle(s.footprint)
        s.current = s.first
        s.turn += 1

    def _score_goal(self, s):
        goal = s.goals[s.round - 1]
        category = self.game.ref.centres[goal.centre].category
        counts = [sum(1 for row in ROWS for cards, _ in p.rows[row] for c in cards if self.d[c][category] == goal.value)
                  for p in s.players]
        low = min(counts)
        for p, n in zip(s.players, counts):
            p.goals.append(self.scale[min(n - low, len(self.scale) - 1)])
        lowest = [i for i, n in enumerate(counts) if n == low]
        players = len(s.players)
        s.first = max(lowest, key=lambda i: (i - s.first) % players)

    # --- abilities ------------------------------------------------------------------------------------------
    def _resolve(self, s, i, card, rng):
        ability = self.abilities.get(card)
        if ability is None:
            return
        p = s.players[i]
        before = self._snapshot(p)
        ctx = {"revealed": [], "discarded": []}
        for _ in range(REPEAT_CAP if ability.repeat else 1):
            if not all(self._step(s, i, step, ctx, rng) for step in ability.steps):
                break
        if self._snapshot(p) != before:
            p.events["effective"].add(("dinosaurs", card))

    def _snapshot(self, p):
        return (tuple(p.res.values()), len(p.hand), tuple(tuple(e) for r in ROWS for _, e in p.rows[r]))

    def _count(self, s, p, spec, ctx):
        place = spec["in"]
        if place in ROWS:
            cards = [st[0][-1] for st in p.rows[place]]
        elif place == "atlas":
            cards = [st[0][-1] for r in ROWS for st in p.rows[r]]
        else:
            cards = {"hype": s.hype, "hand": p.hand, "archive": s.archive}.get(place) or ctx.get(place, [])
        order, tag, hemi = spec.get("order"), spec.get("tag"), spec.get("hemisphere")
        return sum(1 for c in cards if (not order or self.d[c].order == order) and (not tag or self.d[c].tag == tag)
                   and (not hemi or self.d[c].hemisphere == hemi))

    def _step(self, s, i, step, ctx, rng):
        """One step of an ability; False when it could not be paid (which ends a repeat)."""
        p = s.players[i]
        cond = step.get("if")
        if cond and not self._condition(s, p, cond, ctx):
            return True
        n = step.n * (self._count(s, p, step.per, ctx) if step.get("per") else 1)
        do = step["do"]
        if do == "gain":
            self._gain(s, i, step.what, n, rng)
        elif do == "draw":
            self._draw(s, i, step, n, rng)
        elif do == "reveal":
            shown = [c for c in (self._draw_footprint(s, rng) for _ in range(n)) if c]
            keep = step.get("keep") or 0
            for c in shown[:keep]:
                self._take(s, i, c)
            s.archive.extend(shown[keep:])
            ctx["revealed"] = shown
        elif do == "discard-hype":
            gone = [c for c in s.hype if not step.get("order") or self.d[c].order == step.order]
            s.hype = [c for c in s.hype if c not in gone]
            s.archive.extend(gone)
            ctx["discarded"] = gone
        elif do == "lay":
            self._lay(p, n)
        elif do == "upgrade":
            self._upgrade(p, n)
        elif do == "convert":
            if not self._pay(s, p, step.pay):
                return False
            self._gain(s, i, step.what, n, rng)
        return True

    def _condition(self, s, p, cond, ctx):
        if cond.all_orders:
            return all(self._count(s, p, {"in": cond["in"], "order": o}, ctx) for o in
                       ("Ornithischian", "Sauropod", "Theropod"))
        return self._count(s, p, cond, ctx) > 0

    def _pay(self, s, p, pay):
        if pay.get("what"):
            if p.res[pay.what] < pay.cards:
                return False
            p.res[pay.what] -= pay.cards
            return True
        if pay.egg:
            for _, eggs in (st for r in ROWS for st in p.rows[r]):
                if eggs[0]:
                    eggs[0] -= 1
                    return True
            return False
        pool = [c for c in p.hand if not pay.get("order") or self.d[c].order == pay.order]
        if pay.different_orders and len({self.d[c].order for c in pool}) < pay.cards:
            return False
        if len(pool) < pay.cards:
            return False
        return self._pay_cards(s, p, pay.cards, pay.get("order"))

    def _gain(self, s, i, what, n, rng):
        p = s.players[i]
        if what in RES:
            p.res[what] = min(self.cap, p.res[what] + n)
        elif what == "bio":
            for _ in range(n):
                low = min(RES, key=lambda r: p.res[r])
                p.res[low] = min(self.cap, p.res[low] + 1)
        elif what == "card":
            for _ in range(n):
                c = self._draw_footprint(s, rng)
                if c:
                    self._take(s, i, c)
        elif what == "egg":
            self._lay(p, n)

    def _draw(self, s, i, step, n, rng):
        for _ in range(n):
            source = step.get("from")
            card = self._take_from(s, source, step.get("order"), rng)
            if card is None and step.get("or_from"):
                card = self._take_from(s, step.or_from, step.get("order"), rng)
            if card is None:
                return
            self._take(s, i, card)

    def _take_from(self, s, source, order, rng):
        if source == "footprint":
            return self._draw_footprint(s, rng)
        pile = s.hype if source == "hype" else s.archive
        picks = [c for c in (pile if source != "archive-bottom" else pile[:1]) if not order or self.d[c].order == order]
        if source == "archive":
            picks = picks[-1:]
        if not picks:
            return None
        pile.remove(picks[0])
        return picks[0]

    def _lay(self, p, n):
        for cards, eggs in (st for r in ROWS for st in p.rows[r]):
            room = self.d[cards[-1]].eggs - eggs[0] - eggs[1]
            laid = max(0, min(room, n))
            eggs[0] += laid
            n -= laid

    def _upgrade(self, p, n):
        for _, eggs in (st for r in ROWS for st in p.rows[r]):
            up = min(eggs[0], n)
            eggs[0] -= up
            eggs[1] += up
            n -= up
