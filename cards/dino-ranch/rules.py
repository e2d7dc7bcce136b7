"""Dino Ranch, playable by `pnp simulate`: a simplified game for 2 to 4 players, numbers read from rules.yaml and
the tables (species, research, contracts, action mats, ranches).

A decision is one of: keep one of the two Private Contracts dealt (set-up); in Assign Ranchers, place ranchers
on an action space, the move naming what the space gives (a species, a Research card of the row or "draw", a
Public Contract), or use a Research card's Assign Ranchers ability; keep one of three Research cards drawn;
fulfil a Private Contract after a Public one, or not. Everything else is played by the rules below for everyone.

What is simplified (the rulebook's designer notes say the same):
- **No solo game**: the Rival Rancher is not played; 2 to 4 players (mats' 1-2 side for 2, 3-4 side for 3-4).
- **The ranch is counted, not drawn.** A ranch is its land, plain and resource spaces (a ranch side dealt at
  random) and its enclosures as sizes: the permanent one ({ranch.enclosure_spaces} spaces), and pens built
  from barriers, n + PEN_EXTRA barriers enclosing n land spaces. In Arrange Ranch barriers are placed by
  a fixed plan: patch a pen that lost a barrier, then build one pen per species short of room, sized for its
  dinosaurs and their newborns (2 make 1); a barrier left over waits in the holding area. Pens stay as built;
  Rearrange and Mobile Barriers take them all up and build afresh. Herds are housed by their worth (points,
  then numbers); one that finds no room escapes. Dinosaurs stand on plain land first, then cover plant, meat
  and supply spaces in that order.
- **Fixed choices**: feeding goes best dinosaur first and goes on while anything can be paid; a herbivore
  escape takes a barrier from the pen with most room to spare (a carnivore's penalty, when no barrier can be
  taken), a carnivore escape discards another escaping dinosaur, else the least valuable one; "a resource of
  your choice" is the one you hold least of; a Free Range "Wound" keeps the dinosaur; two actions of one space
  are both done when they can be; a contract takes regular dinosaurs first, the Plesiosaurus for a missing
  one, and the least valuable unique for "any unique".
- **Abilities**: Dino Food Additives is discarded when the dinosaurs it saves are worth at least its points; the
  Tyrannosaurus eats a 1-point dinosaur when meat is short; Breeding Center breeds whenever it can pay; the
  Gallimimus spares the costliest other dinosaur; neighbours are counted, not placed: Triceratops scores 1 per
  other dinosaur up to TRICERATOPS_MAX, Iguanodon gives 1 plant and 1 meat, the Dimetrodon always stands by
  the water, the Parasaurolophus on a plant space, the Moschops adds a space to the permanent enclosure.
- Ranchers a Spinosaurus or Dracorex clears go to Medical Leave.
- Ties on points go to the player earliest in turn order from the First Player Marker's holder, as printed.

Tracked: Research cards (`taken` when gained, `effective` when its ability did something or its end-game points
scored), contracts (`taken`: a Public one fulfilled, a Private one kept; `effective`: fulfilled).
"""

from collections import Counter

from pnp.simulate.api import GameRules, Tracked

RES = ("plants", "meat", "supplies")
# A pen of n land spaces, a row along mountains, water or the permanent fence, takes n + PEN_EXTRA barriers: one
# space tucked into a corner takes two (the rulebook's example), and a larger pen fewer per space.
PEN_EXTRA = 1
TRICERATOPS_MAX = 4  # a space has four sides
HEURISTIC_SCALE = 0.25  # points to the agents' squashed value: a 4-point lead is worth about 0.73


def _used(pl, card):
    """A research card's ability used: the card tilts for the round and counts as effective for its play stats."""
    pl.tilted.add(card)
    pl.events["effective"].add(("research", card))


class Player:
    __slots__ = ("res", "hand", "lead", "medical", "holding", "medical_dinos", "barriers", "ranch", "uniques",
                 "pens", "cards", "tilted", "public", "private", "private_done", "land", "plain", "income",
                 "penalties", "rearrange", "done", "events")

    def copy(self):
        c = Player.__new__(Player)
        c.res, c.hand, c.lead, c.medical = self.res[:], self.hand, self.lead, self.medical
        c.holding, c.medical_dinos, c.barriers = self.holding[:], self.medical_dinos[:], self.barriers
        c.ranch, c.uniques, c.pens, c.cards = dict(self.ranch), self.uniques[:], self.pens[:], self.cards[:]
        c.tilted, c.public, c.private = set(self.tilted), self.public[:], self.private[:]
        c.private_done, c.land, c.plain, c.income = self.private_done[:], self.land, self.plain, self.income
        c.penalties, c.rearrange, c.done = set(self.penalties), self.rearrange, self.done
        c.events = {"taken": set(), "effective": set()}  # a look-ahead's imagined events are never reported
        return c


class State:
    __slots__ = ("players", "round", "phase", "current", "first", "occ", "research", "row", "discard", "drawn",
                 "public_deck", "public_row", "private_deck", "supply", "barrier_supply", "turn", "placed_by")

    def copy(self):
        s = State.__new__(State)
        s.players = [p.copy() for p in self.players]
        s.round, s.phase, s.current, s.first, s.turn = self.round, self.phase, self.current, self.first, self.turn
        s.occ = [dict(o) for o in self.occ]
        s.research, s.row, s.discard, s.drawn = self.research[:], self.row[:], self.discard[:], self.drawn[:]
        s.public_deck, s.public_row, s.private_deck = self.public_deck[:], self.public_row[:], self.private_deck[:]
        s.supply, s.barrier_supply, s.placed_by = dict(self.supply), self.barrier_supply, self.placed_by
        return s


class Rules(GameRules):
    ITEMS = {"research": "Research card", "contracts": "contract"}
    END_REASONS = ("six rounds",)

    def __init__(self, game):
        super().__init__(game)
        r = game.rules
        self.r = r
        self.species = {s.id: s for s in game.tables.species if s.regular}
        self.cards = game.ref.research
        self.contracts = game.ref.contracts
        self.track_max = r.resources.track_max
        self.lead_strength = r.lead_counts_as
        self.want = {c.id: (Counter(w for w in c.wants if w in self.species),
                            sum(1 for w in c.wants if w not in self.species)) for c in game.tables.contracts}
        self.land_unique = {c.id for c in game.tables.research if c.type == "genetic" and c.habitat == "land"}

    # --- set-up -----------------------------------------------------------------------------------------------
    def setup(self, players, rng):
        if not 2 <= players <= 4:
            raise ValueError(f"the simulation plays 2 to 4 players (no solo Rival), not {players}")
        self.spaces = self._spaces_for(players)  # a run plays one number of players
        s = State()
        s.players = [self._new_player(seat, rng) for seat in range(players)]
        s.research = sorted(self.cards)
        rng.shuffle(s.research)
        s.row, s.discard, s.drawn = [], [], []
        s.public_deck = sorted(c for c, k in self.contracts.items() if k.kind == "public")
        s.private_deck = sorted(c for c, k in self.contracts.items() if k.kind == "private")
        rng.shuffle(s.public_deck)
        rng.shuffle(s.private_deck)
        s.public_row = [s.public_deck.pop() for _ in range(players + self.r.contracts.row_extra)]
        for p in s.players:
            p.private = [s.private_deck.pop() for _ in range(self.r.contracts.private_dealt)]
        s.supply = {k: sp.count for k, sp in self.species.items()}
        s.barrier_supply = self.r.barriers
        s.occ = [{} for _ in self.spaces]
        s.round, s.first, s.current, s.phase, s.turn, s.placed_by = 1, 0, 0, "keep private", 1, None
        self._deal_research_row(s, rng)
        return s

    def _spaces_for(self, players):
        """(name such as "B2", space) of the Action Mats' side for this many players, A1 first."""
        side = "1-2" if players <= 2 else "3-4"
        return [(m.letter + str(i + 1), sp) for m in self.game.tables.action_mats
                for sd in m.sides if sd.players == side for i, sp in enumerate(sd.spaces)]

    def _new_player(self, seat, rng):
        p = Player()
        ranch = rng.choice(self.game.tables.ranches).sides[rng.randrange(2)]
        cells = " ".join(ranch.rows).split()
        p.land = sum(1 for c in cells if c not in "^~")
        p.plain = cells.count(".")
        p.income = tuple(cells.count(code) for code in "PMS")
        p.res = [0, 0, 0]
        for bonus in self.r.resources.starting_bonus:
            if bonus.seat == seat + 1:
                p.res[RES.index(bonus.resource)] += bonus.amount
        p.hand, p.lead, p.medical = self.r.start_ranchers, True, 0
        p.holding, p.medical_dinos, p.barriers, p.ranch, p.uniques, p.pens = [], [], 0, {}, [], []
        p.cards, p.tilted, p.public, p.private, p.private_done = [], set(), [], [], []
        p.penalties, p.rearrange, p.done = set(), False, False
        p.events = {"taken": set(), "effective": set()}
        return p

    # --- the engine's questions -------------------------------------------------------------------------------
    def to_act(self, s):
        return s.current

    def is_over(self, s):
        return s.phase == "over"

    def turn(self, s):
        return s.turn

    def end_reason(self, s):
        return "six rounds"

    def clone(self, s):
        return s.copy()

    def scores(self, s):
        order = [(s.first + k) % len(s.players) for k in range(len(s.players))]
        return [self.points(s, p) + (len(order) - order.index(p)) / 100 for p in range(len(s.players))]

    def points(self, s, p):
        pl = s.players[p]
        total = sum(self.contracts[c].vp for c in pl.public + pl.private_done)
        total += sum(self.species[k].vp * n for k, n in pl.ranch.items())
        for card in pl.cards:
            total += self.cards[card].vp or 0
        return total + self._end_card_points(s, p, record=False)

    def _end_card_points(self, s, p, record):
        pl, total = s.players[p], 0
        if "carnivore-dna-log" in pl.cards:
            total += self._most(s, p, "carnivore", "carnivore-dna-log", record)
        if "herbivore-hemo-log" in pl.cards:
            total += self._most(s, p, "herbivore", "herbivore-hemo-log", record)
        if "maximum-habitat" in pl.cards:
            total += self._effect(pl, "maximum-habitat", self._dinos_in_ranch(pl) // 2, record)
        if "triceratops" in pl.uniques:
            total += self._effect(pl, "triceratops", min(TRICERATOPS_MAX, self._dinos_in_ranch(pl) - 1), record)
        return total

    def _most(self, s, p, diet, card, record):
        counts = [self._diet_count(pl, diet) for pl in s.players]
        if counts[p] == 0 or counts[p] < max(counts):
            return 0
        return self._effect(s.players[p], card, 4 if counts.count(counts[p]) == 1 else 2, record)

    def _diet_count(self, pl, diet):
        return (sum(n for k, n in pl.ranch.items() if self.species[k].diet == diet)
                + sum(1 for u in pl.uniques if self.cards[u].diet == diet))

    @staticmethod
    def _effect(pl, card, value, record):
        if record and value > 0:
            pl.events["effective"].add(("research", card))
        return value

    @staticmethod
    def _dinos_in_ranch(pl):
        return sum(pl.ranch.values()) + len(pl.uniques)

    def heuristic(self, s, player):
        values = [self._worth(s, p) for p in range(len(s.players))]
        return HEURISTIC_SCALE * (values[player] - max(v for i, v in enumerate(values) if i != player))

    def _worth(self, s, p):
        """Points now, and a little for what makes points later: resources, barriers, dinosaurs on the way, and
        the share of a Private Contract's dinosaurs already in the ranch."""
        pl = s.players[p]
        value = self.points(s, p) + 0.2 * sum(pl.res) + 0.3 * pl.barriers
        value += sum(self.species[d].vp if d in self.species else 1 for d in pl.holding + pl.medical_dinos)
        for c in pl.private:
            counts, _ = self.want[c]
            have = sum(min(n, pl.ranch.get(k, 0)) for k, n in counts.items())
            value += 0.5 * self.contracts[c].vp * have / max(1, sum(counts.values()))
        return value

    def determinise(self, s, player, rng):
        s = s.copy()
        hidden = s.private_deck + [c for i, pl in enumerate(s.players) if i != player for c in pl.private]
        rng.shuffle(hidden)
        for i, pl in enumerate(s.players):
            if i != player:
                pl.private, hidden = hidden[:len(pl.private)], hidden[len(pl.private):]
        s.private_deck = hidden
        rng.shuffle(s.public_deck)
        rng.shuffle(s.research)
        return s

    def tracked(self, s):
        available = {("research", c) for c in self.cards} | {("contracts", c) for c in self.contracts}
        return Tracked(available, [p.events for p in s.players])

    def describe(self, move):
        kind = move[0]
        if kind == "place":
            _, space, regs, lead, option = move
            who = " + ".join(filter(None, (f"{regs} rancher{'s' if regs > 1 else ''}" if regs else "",
                                           "lead" if lead else "")))
            return f"place {who} on {self.spaces[space][0]}" + (f": {option}" if option else "")
        if kind in ("biometrics", "clear"):
            return f"{kind} {self.spaces[move[1]][0]}" + (f": {move[2]}" if len(move) > 2 and move[2] else "")
        if kind == "adreno":
            return f"adreno {self.spaces[move[1]][0]} to {self.spaces[move[2]][0]}" + (f": {move[3]}" if move[3] else "")
        return " ".join(str(m) for m in move)

    # --- legal moves ------------------------------------------------------------------------------------------
    def legal_moves(self, s):
        pl = s.players[s.current]
        if s.phase == "keep private":
            return [("keep private", c) for c in pl.private]
        if s.phase == "keep":
            return [("keep", c) for c in s.drawn]
        if s.phase == "private":
            return [("private", c) for c in pl.private if self._can_fulfil(pl, c)] + [("no private",)]
        if pl.hand or pl.lead:
            placements = self._placements(s, s.current)
            return placements + self._abilities(s, s.current) + ([] if placements else [("pass",)])
        return self._after_placing(s, s.current) + [("done",)]

    def _placements(self, s, p):
        pl, moves = s.players[p], []
        for i, (_, space) in enumerate(self.spaces):
            occ = s.occ[i]
            if p in occ:
                continue
            need = max((r + self.lead_strength * ld for r, ld in occ.values()), default=0) + 1
            ways = []
            if pl.hand >= need:
                ways.append((need, False))
            if pl.lead and pl.hand >= max(0, need - self.lead_strength):
                ways.append((max(0, need - self.lead_strength), True))
            if ways and self._can_pay(pl, space.cost, self._converter(pl)):
                for option in self._options(s, p, space):
                    moves.extend(("place", i, r, ld, option) for r, ld in ways)
        if self._ready(pl, "deinocheirus"):
            moves.append(("deinocheirus",))
        return moves

    def _options(self, s, p, space):
        """What the space lets this player choose ("" when nothing), or [] when no action of it can be done."""
        pl, options, plain = s.players[p], [], False
        for action in space.actions:
            do = action.do
            if do in ("free-range", "market"):
                options += [k for k in action.species if s.supply[k] > 0]
            elif do == "research":
                options += s.row + (["draw"] if s.research or s.discard else [])
            elif do == "contract":
                options += [c for c in s.public_row if self._can_fulfil(pl, c)]
            else:
                plain = plain or self._doable(s, pl, do)
        return options or ([""] if plain else [])

    @staticmethod
    def _doable(s, pl, do):
        if do == "barriers":
            return s.barrier_supply > 0
        if do == "rearrange":
            return bool(pl.pens)
        if do == "move-dino":
            return bool(pl.holding)
        return True  # resources, first-player

    def _ready(self, pl, card):
        """The card's ability can be used: held (a Genetic card's dinosaur in the ranch) and not tilted."""
        return card not in pl.tilted and card in (pl.uniques if self.cards[card].type == "genetic" else pl.cards)

    def _abilities(self, s, p):
        """Assign Ranchers abilities used on your turn besides placing (tilted: once a round)."""
        pl = s.players[p]
        moves = [("clear", i, card) for card in ("spinosaurus", "dracorex") if self._ready(pl, card)
                 for i, occ in enumerate(s.occ) if occ and p not in occ]
        if self._ready(pl, "dilophosaurus") and any(p in o for o in s.occ):
            moves.append(("dilophosaurus",))
        return moves + self._paid_abilities(s, pl)

    def _paid_abilities(self, s, pl):
        moves = []
        if self._ready(pl, "egg-incubator") and self._can_pay(pl, {"supplies": 2}):
            moves += [("incubate", k) for k in self.species if s.supply[k] > 0]
        if self._ready(pl, "pterodactyl") and pl.holding and self._can_pay(pl, {"supplies": 1}):
            moves.append(("pterodactyl",))
        return moves

    def _after_placing(self, s, p):
        """Rancher Biometrics and Adreno-Injectors, once all ranchers are placed."""
        pl, moves = s.players[p], []
        empty = [i for i, o in enumerate(s.occ) if not o]
        if self._ready(pl, "rancher-biometrics") and pl.medical:
            moves += [("biometrics", i, o) for i in empty for o in self._space_options(s, p, i)]
        if self._ready(pl, "adreno-injectors") and self._can_pay(pl, {"meat": 1}):
            mine = [i for i, o in enumerate(s.occ) if p in o]
            moves += [("adreno", a, b, o) for a in mine[:1] for b in empty for o in self._space_options(s, p, b)]
        return moves

    def _space_options(self, s, p, i):
        space = self.spaces[i][1]
        return self._options(s, p, space) if self._can_pay(s.players[p], space.cost, self._converter(s.players[p])) \
            else []

    # --- resources --------------------------------------------------------------------------------------------
    @staticmethod
    def _converter(pl):
        return "resource-converter" in pl.cards and "resource-converter" not in pl.tilted

    def _can_pay(self, pl, cost, converter=False):
        short = sum(max(0, n - pl.res[RES.index(r)]) for r, n in cost.items())
        if not short:
            return True
        if not converter or short > 2:
            return False
        spare = [pl.res[i] - cost.get(r, 0) for i, r in enumerate(RES)]
        return any(v >= short for v in spare)

    def _pay(self, pl, cost):
        """Pay a cost, the Resource Converter covering a shortfall of up to 2 from another resource."""
        short = 0
        for r, n in cost.items():
            i = RES.index(r)
            paid = min(n, pl.res[i])
            pl.res[i] -= paid
            short += n - paid
        if short:
            i = max(range(3), key=lambda k: pl.res[k])
            pl.res[i] -= short
            _used(pl, "resource-converter")

    def _gain(self, pl, i, n):
        pl.res[i] = min(self.track_max, pl.res[i] + n)

    def _gain_choice(self, pl, n):
        for _ in range(n):
            self._gain(pl, min(range(3), key=lambda k: pl.res[k]), 1)

    # --- moves ------------------------------------------------------------------------------------------------
    def apply(self, s, move, rng):
        kind, p = move[0], s.current
        pl = s.players[p]
        if kind == "keep private":
            other = [c for c in pl.private if c != move[1]]
            pl.private = [move[1]]
            pl.events["taken"].add(("contracts", move[1]))
            s.private_deck[:0] = other
            if p + 1 < len(s.players):
                s.current = p + 1
            else:
                rng.shuffle(s.private_deck)
                self._start_round(s, rng)
            return s
        handler = getattr(self, "_do_" + kind.replace(" ", "_").replace("-", "_"))
        if handler(s, p, move, rng):  # True: the player's turn is over
            self._next_turn(s, rng)
        return s

    def _do_place(self, s, p, move, rng):
        _, i, regs, lead, option = move
        pl = s.players[p]
        pl.hand -= regs
        pl.lead = pl.lead and not lead
        s.occ[i][p] = (regs, lead)
        return self._take_space(s, p, i, option, rng)

    def _take_space(self, s, p, i, option, rng):
        """Pay the space and do its actions; False when a follow-up decision of the same player comes."""
        pl, space = s.players[p], self.spaces[i][1]
        self._pay(pl, space.cost)
        s.placed_by = i
        more = False
        for action in space.actions:
            more = self._act(s, p, action, option, rng) or more
        return not more

    def _act(self, s, p, action, option, rng):
        pl, do = s.players[p], action.do
        if do in ("free-range", "market") and option in action.species:
            self._gain_dino(s, pl, option)
            if do == "free-range":
                self._roll(s, p, option, rng)
        elif do == "research" and option:
            return self._research(s, p, option, rng)
        elif do == "contract" and option:
            return self._fulfil_public(s, p, option)
        elif do == "resources":
            for r, n in action.gain.items():
                self._gain(pl, RES.index(r), n)
        elif do == "barriers":
            got = min(action.amount, s.barrier_supply)
            s.barrier_supply -= got
            pl.barriers += got
        elif do == "first-player":
            self._take_first(s, p)
        elif do == "rearrange":
            pl.rearrange = True
        elif do == "move-dino" and pl.holding:
            self._to_ranch(pl, pl.holding.pop(self._best_held(pl)))
        return False

    def _gain_dino(self, s, pl, kind):
        if s.supply[kind] > 0:
            s.supply[kind] -= 1
            pl.holding.append(kind)

    def _roll(self, s, p, kind, rng):
        face = rng.choice(self.r.die.faces)
        pl = s.players[p]
        if face == "egg":
            self._gain_dino(s, pl, kind)
        elif face == "wound":
            regs, lead = s.occ[s.placed_by].pop(p)
            pl.medical += regs + lead
            if kind in pl.holding:
                pl.holding.remove(kind)
                pl.medical_dinos.append(kind)

    def _best_held(self, pl):
        return max(range(len(pl.holding)), key=lambda k: self._dino_vp(pl.holding[k]))

    def _dino_vp(self, d):
        return self.species[d].vp if d in self.species else self.cards[d].vp or 0

    def _to_ranch(self, pl, d):
        if d in self.species:
            pl.ranch[d] = pl.ranch.get(d, 0) + 1
        else:
            pl.uniques.append(d)

    def _take_first(self, s, p):
        holder = s.first
        if holder != p and "ankylosaurus" in s.players[holder].uniques:
            taker, owner = s.players[p], s.players[holder]
            for _ in range(2):
                i = max(range(3), key=lambda k: taker.res[k])
                if taker.res[i]:
                    taker.res[i] -= 1
                    self._gain(owner, i, 1)
                    owner.events["effective"].add(("research", "ankylosaurus"))
        s.first = p

    # research
    def _research(self, s, p, option, rng):
        if option != "draw":
            s.row.remove(option)
            self._gain_card(s, p, option)
            return False
        s.drawn = [self._draw_research(s, rng) for _ in range(self.r.research.draw_choose)]
        s.drawn = [c for c in s.drawn if c]
        s.phase = "keep"
        return True

    def _draw_research(self, s, rng):
        if not s.research and s.discard:
            s.research, s.discard = s.discard, []
            rng.shuffle(s.research)
        return s.research.pop() if s.research else None

    def _gain_card(self, s, p, card):
        pl = s.players[p]
        pl.cards.append(card)
        pl.events["taken"].add(("research", card))
        if self.cards[card].type == "genetic":
            pl.holding.append(card)
        if "laboratory-upgrade" in pl.cards and card != "laboratory-upgrade":
            self._gain_choice(pl, 1)
            pl.events["effective"].add(("research", "laboratory-upgrade"))

    def _do_keep(self, s, p, move, rng):
        s.drawn.remove(move[1])
        s.row.extend(s.drawn)
        s.drawn = []
        s.phase = "assign"
        self._gain_card(s, p, move[1])
        return True

    # contracts
    def _can_fulfil(self, pl, c):
        counts, uniques = self.want[c]
        short = sum(max(0, n - pl.ranch.get(k, 0)) for k, n in counts.items())
        wild = 1 if "plesiosaurus" in pl.uniques else 0
        return short <= wild and uniques <= len(pl.uniques) - short

    def _pay_contract(self, s, pl, c):
        counts, uniques = self.want[c]
        for k, n in counts.items():
            have = pl.ranch.get(k, 0)
            for _ in range(min(n, have)):
                self._remove(s, pl, k)
            if n > have:
                self._lose_unique(s, pl, "plesiosaurus")
                pl.events["effective"].add(("research", "plesiosaurus"))
        for _ in range(uniques):
            self._lose_unique(s, pl, min(pl.uniques, key=lambda u: (u == "plesiosaurus", self.cards[u].vp, u)))

    def _lose_unique(self, s, pl, u):
        pl.uniques.remove(u)
        pl.cards.remove(u)
        s.discard.append(u)

    def _fulfil_public(self, s, p, c):
        pl = s.players[p]
        self._pay_contract(s, pl, c)
        s.public_row.remove(c)
        pl.public.append(c)
        pl.events["taken"].add(("contracts", c))
        pl.events["effective"].add(("contracts", c))
        if any(self._can_fulfil(pl, k) for k in pl.private):
            s.phase = "private"
            return True
        return False

    def _do_private(self, s, p, move, rng):
        pl = s.players[p]
        self._pay_contract(s, pl, move[1])
        pl.private.remove(move[1])
        pl.private_done.append(move[1])
        pl.events["effective"].add(("contracts", move[1]))
        s.phase = "assign"
        return True

    def _do_no_private(self, s, p, move, rng):
        s.phase = "assign"
        return True

    # abilities in Assign Ranchers
    def _do_clear(self, s, p, move, rng):
        _, i, card = move
        for q, (regs, lead) in s.occ[i].items():
            s.players[q].medical += regs + lead
        s.occ[i] = {}
        _used(s.players[p], card)  # effective: the space is free again, for you too
        return False

    def _do_dilophosaurus(self, s, p, move, rng):
        """Your ranchers on action spaces go to Medical Leave, and you gain 1 resource of your choice for each."""
        pl, sent = s.players[p], 0
        for occ in s.occ:
            if p in occ:
                regs, lead = occ.pop(p)
                sent += regs + lead
        pl.medical += sent
        self._gain_choice(pl, sent)
        _used(pl, "dilophosaurus")
        return False

    def _do_incubate(self, s, p, move, rng):
        pl = s.players[p]
        self._pay(pl, {"supplies": 2})
        self._gain_dino(s, pl, move[1])
        _used(pl, "egg-incubator")
        return False

    def _do_pterodactyl(self, s, p, move, rng):
        pl = s.players[p]
        self._pay(pl, {"supplies": 1})
        self._to_ranch(pl, pl.holding.pop(self._best_held(pl)))
        _used(pl, "pterodactyl")
        return False

    def _do_deinocheirus(self, s, p, move, rng):
        pl = s.players[p]
        if pl.hand:
            pl.hand -= 1
        else:
            pl.lead = False
        _used(pl, "deinocheirus")
        self._collect(s, p)
        return True

    def _do_biometrics(self, s, p, move, rng):
        _, i, option = move
        pl = s.players[p]
        pl.medical -= 1
        _used(pl, "rancher-biometrics")
        s.occ[i][p] = (1, False)
        return self._take_space(s, p, i, option, rng)

    def _do_adreno(self, s, p, move, rng):
        _, a, b, option = move
        pl = s.players[p]
        self._pay(pl, {"meat": 1})
        regs, lead = s.occ[a].pop(p)
        moved = (1, False) if regs else (0, True)
        if regs > 1 or (regs and lead):
            s.occ[a][p] = (regs - 1, lead)
        s.occ[b][p] = moved
        _used(pl, "adreno-injectors")
        return self._take_space(s, p, b, option, rng)

    def _do_pass(self, s, p, move, rng):
        pl = s.players[p]
        pl.hand, pl.lead = 0, False
        return True

    def _do_done(self, s, p, move, rng):
        s.players[p].done = True
        return True

    # --- the round ----------------------------------------------------------------------------------------------
    def _wants_turn(self, s, p):
        pl = s.players[p]
        return bool(pl.hand or pl.lead or (not pl.done and self._after_placing(s, p)))

    def _next_turn(self, s, rng):
        if s.phase in ("keep", "private"):
            return
        n = len(s.players)
        s.turn += 1
        for k in range(1, n + 1):
            q = (s.current + k) % n
            if self._wants_turn(s, q):
                s.current = q
                return
        self._end_round(s, rng)

    def _start_round(self, s, rng):
        if s.round == self.r.event_round:
            for pl in s.players:
                if s.private_deck:
                    pl.private.append(s.private_deck.pop())
                    pl.events["taken"].add(("contracts", pl.private[-1]))
        ranchers = self.r.start_ranchers + (s.round >= self.r.event_round)
        for p, pl in enumerate(s.players):
            pl.hand, pl.lead, pl.done, pl.rearrange = ranchers, True, False, False
            self._collect(s, p)
            if "university-sponsor" in pl.cards and s.first == p:
                self._gain_choice(pl, 2)
                pl.events["effective"].add(("research", "university-sponsor"))
        s.occ = [{} for _ in self.spaces]
        s.phase, s.current = "assign", s.first

    def _collect(self, s, p):
        pl = s.players[p]
        covered = max(0, sum(pl.ranch.values()) + sum(1 for u in pl.uniques if u in self.land_unique) - pl.plain)
        for i in range(3):
            lost = min(covered, pl.income[i])
            covered -= lost
            self._gain(pl, i, pl.income[i] - lost)
        bonus = {"parasaurolophus": (2, 0, 0), "iguanodon": (1, 1, 0)}
        for u in pl.uniques:
            if u in bonus:
                for i, n in enumerate(bonus[u]):
                    self._gain(pl, i, n)
                pl.events["effective"].add(("research", u))
            elif u == "dimetrodon":
                self._gain_choice(pl, 1)
                pl.events["effective"].add(("research", u))

    def _end_round(self, s, rng):
        for p in range(len(s.players)):
            self._retrieve(s, p)
            self._arrange(s, p)
            self._feed(s, p)
            self._breed(s, p)
        self._refresh(s, rng)
        if s.round == self.r.rounds:
            for p in range(len(s.players)):
                self._end_card_points(s, p, record=True)
            s.phase = "over"
            return
        s.round += 1
        self._start_round(s, rng)

    def _retrieve(self, s, p):
        pl = s.players[p]
        if "diplodocus" in pl.uniques and pl.medical:
            self._gain_choice(pl, pl.medical)
            pl.events["effective"].add(("research", "diplodocus"))
        pl.medical = 0
        pl.holding += pl.medical_dinos
        pl.medical_dinos = []
        pl.penalties = set()

    # arrange
    def _arrange(self, s, p):
        pl = s.players[p]
        if pl.pens and (pl.rearrange or "mobile-barriers" in pl.cards):
            pl.barriers += self._pen_barriers(pl)
            pl.pens = []
            if not pl.rearrange:
                pl.events["effective"].add(("research", "mobile-barriers"))
        for d in pl.holding:
            self._to_ranch(pl, d)
        pl.holding = []
        self._patch(pl)
        self._build(pl)
        pens, unhoused = self._house(pl)
        if "moschops" in pl.uniques and sum(n for _, _, n in pens) >= sum(self._capacities(pl)):
            pl.events["effective"].add(("research", "moschops"))  # its space held a dinosaur none else could
        escaping = [k for k, n in unhoused.items() for _ in range(n)]
        self._escape(s, pl, escaping)

    @staticmethod
    def _patch(pl):
        """A pen that lost barriers to escapes is mended first. Pens are (spaces, barriers missing)."""
        for k, (size, missing) in enumerate(pl.pens):
            fix = min(missing, pl.barriers)
            pl.pens[k] = (size, missing - fix)
            pl.barriers -= fix

    def _capacities(self, pl):
        moschops = 1 if "moschops" in pl.uniques else 0
        return [self.r.ranch.enclosure_spaces + moschops] + [size - missing for size, missing in pl.pens]

    def _free_land(self, pl):
        return pl.land - sum(self._capacities(pl)) - sum(1 for u in pl.uniques if u in self.land_unique)

    def _build(self, pl):
        """Build pens for the species short of room, for their dinosaurs and newborns, while barriers last."""
        while pl.barriers > PEN_EXTRA and self._free_land(pl) > 0:
            pens, unhoused = self._house(pl)
            short = {k: n + (pl.ranch[k] // 2) for k, n in unhoused.items() if n}
            if not short:
                room = {k: pl.ranch[k] // 2 - sum(c - n for c, sp, n in pens if sp == k) for k in pl.ranch}
                room = {k: v for k, v in room.items() if v > 0 and pl.ranch[k] >= 2}
                if not room or any(sp is None for _, sp, _ in pens):
                    return
                short = room
            k = max(short, key=lambda sp: (self.species[sp].vp, short[sp], sp))
            size = min(short[k], pl.barriers - PEN_EXTRA, self._free_land(pl))
            pl.pens.append((size, 0))
            pl.barriers -= size + PEN_EXTRA

    def _house(self, pl):
        """Pens as (capacity, species or None, dinosaurs) and the dinosaurs that find no room: the herd worth most
        points is housed first (on a tie the larger, as it breeds more)."""
        free = sorted(self._capacities(pl))
        pens, unhoused = [], {}
        for k in sorted(pl.ranch, key=lambda sp: (-self.species[sp].vp * pl.ranch[sp], -pl.ranch[sp], sp)):
            left = pl.ranch[k]
            while left and free:
                fits = [c for c in free if c >= left]
                cap = fits[0] if fits else free[-1]
                free.remove(cap)
                pens.append((cap, k, min(cap, left)))
                left -= min(cap, left)
            if left:
                unhoused[k] = left
        return pens + [(c, None, 0) for c in free if c], unhoused

    # escapes
    def _escape(self, s, pl, escaping):
        """Dinosaurs leave (regular species ids, or unique card ids); then each kind's penalty, once a round."""
        if not escaping:
            return
        escaping = sorted(escaping, key=self._dino_vp)
        if "security-force" in pl.cards and "security-force" not in pl.tilted:
            saved = escaping.pop()
            pl.holding.append(saved)  # waits in the holding area for the next Arrange Ranch
            self._remove(s, pl, saved, keep_card=True)
            _used(pl, "security-force")
        for d in escaping:
            self._remove(s, pl, d)
        if "enclosure-upgrades" in pl.cards:
            if escaping:
                pl.events["effective"].add(("research", "enclosure-upgrades"))
            return
        diets = {self._diet(d) for d in escaping}
        if "herbivore" in diets or ("omnivore" in diets and self._pen_barriers(pl)):
            self._herbivore_penalty(s, pl)
        if "carnivore" in diets or ("omnivore" in diets and not self._pen_barriers(pl)):
            self._carnivore_penalty(s, pl, len(escaping) > 1)

    @staticmethod
    def _pen_barriers(pl):
        return sum(size + PEN_EXTRA - missing for size, missing in pl.pens)

    def _diet(self, d):
        return self.species[d].diet if d in self.species else self.cards[d].diet

    def _remove(self, s, pl, d, keep_card=False):
        if d in self.species:
            if pl.ranch.get(d):
                pl.ranch[d] -= 1
                if not pl.ranch[d]:
                    del pl.ranch[d]
            if not keep_card:
                s.supply[d] += 1
        elif d in pl.uniques:
            pl.uniques.remove(d)
            if not keep_card:
                pl.cards.remove(d)
                s.discard.append(d)

    def _herbivore_penalty(self, s, pl):
        if "herbivore" in pl.penalties or not self._pen_barriers(pl):
            return
        pl.penalties.add("herbivore")
        s.barrier_supply += 1
        k = max(range(len(pl.pens)), key=lambda i: pl.pens[i][0] - pl.pens[i][1])
        size, missing = pl.pens[k]
        pl.pens[k] = (size, missing + 1)
        if missing + 1 == size + PEN_EXTRA:
            del pl.pens[k]  # its last barrier gone

    def _carnivore_penalty(self, s, pl, another_escaping):
        """Discard another dinosaur: one escaping anyway when there is one (so nothing more is lost)."""
        if "carnivore" in pl.penalties:
            return
        pl.penalties.add("carnivore")
        if another_escaping:
            return
        if pl.ranch:
            self._remove(s, pl, min(pl.ranch, key=lambda k: (self.species[k].vp, k)))
        elif pl.uniques:
            self._remove(s, pl, min(pl.uniques, key=lambda u: (self.cards[u].vp, u)))

    # feeding
    def _appetite(self, d):
        sp = self.species.get(d) or self.cards[d]
        return sp.diet, sp.food

    def _feed(self, s, p):
        pl = s.players[p]
        dinos = [k for k, n in pl.ranch.items() for _ in range(n)] + pl.uniques
        if not dinos:
            return
        if "tyrannosaurus-rex" in pl.uniques:
            self._rex(s, pl, dinos)
        free = set()
        if "gallimimus" in pl.uniques and len(dinos) > 1:
            others = [d for d in dinos if d != "gallimimus"]
            free.add(max(others, key=lambda d: (self._appetite(d)[1], d)))
            pl.events["effective"].add(("research", "gallimimus"))
        unfed, paid = self._pay_food(pl, dinos, free)
        if unfed and "dino-food-additives" in pl.cards and sum(map(self._dino_vp, unfed)) >= \
                self.cards["dino-food-additives"].vp:
            pl.res = [r + n for r, n in zip(pl.res, paid)]  # nothing is paid: the card feeds them all
            pl.cards.remove("dino-food-additives")
            s.discard.append("dino-food-additives")
            pl.events["effective"].add(("research", "dino-food-additives"))
            unfed = []
        self._super_food(pl, [d for d in dinos if d not in unfed])
        self._escape(s, pl, unfed)

    def _rex(self, s, pl, dinos):
        meat = sum(self._appetite(d)[1] for d in dinos if self._appetite(d)[0] == "carnivore")
        cheap = [k for k in pl.ranch if self.species[k].vp == 1]
        if meat > pl.res[1] and cheap:
            self._remove(s, pl, min(cheap))
            dinos.remove(min(cheap))
            dinos.remove("tyrannosaurus-rex")
            self._gain(pl, 2, 1)
            pl.events["effective"].add(("research", "tyrannosaurus-rex"))

    def _pay_food(self, pl, dinos, free):
        """Feed best first and go on while anything can be paid; (the unfed, what was paid of each resource)."""
        unfed, paid = [], [0, 0, 0]
        for d in sorted(dinos, key=lambda d: (-self._dino_vp(d), d)):
            if d in free:
                free.discard(d)
                continue
            diet, food = self._appetite(d)
            options = {"herbivore": (0,), "carnivore": (1,), "omnivore": (0, 1)}[diet]
            i = max(options, key=lambda k: pl.res[k])
            if pl.res[i] >= food:
                pl.res[i] -= food
                paid[i] += food
            elif self._converter(pl) and self._can_pay(pl, {RES[i]: food}, True):
                before = pl.res[:]
                self._pay(pl, {RES[i]: food})
                paid = [a + b - c for a, b, c in zip(paid, before, pl.res)]
            else:
                unfed.append(d)
        return unfed, paid

    def _super_food(self, pl, fed):
        if "super-food-research" not in pl.cards:
            return
        kinds = len(set(fed))
        if kinds >= 3:
            self._gain(pl, 2, 1 if kinds == 3 else 2)
            pl.events["effective"].add(("research", "super-food-research"))

    # breeding
    def _breed(self, s, p):
        pl = s.players[p]
        pens, _ = self._house(pl)
        newborns = Counter()
        for _, k, n in pens:
            if k:
                newborns[k] += n // 2
        if "breeding-center" in pl.cards:
            for k, n in sorted(pl.ranch.items()):
                if n == 1 and self._can_pay(pl, {"supplies": 1}):
                    self._pay(pl, {"supplies": 1})
                    newborns[k] += 1
                    pl.events["effective"].add(("research", "breeding-center"))
        self._place_newborns(s, pl, pens, newborns)

    def _place_newborns(self, s, pl, pens, newborns):
        """Newborns go to room beside their species, then into an empty pen; the others escape."""
        room = {k: sum(c - n for c, sp, n in pens if sp == k) for k in newborns}
        spare = sorted((c for c, sp, _ in pens if sp is None), reverse=True)
        escaping = []
        for k in sorted(newborns, key=lambda sp: (-self.species[sp].vp, sp)):
            for _ in range(min(newborns[k], s.supply[k])):
                if not room[k] and spare:
                    room[k] += spare.pop(0)
                if room[k]:
                    room[k] -= 1
                    s.supply[k] -= 1
                    pl.ranch[k] = pl.ranch.get(k, 0) + 1
                else:
                    escaping.append(k)
        self._escape_newborns(s, pl, escaping)

    def _escape_newborns(self, s, pl, escaping):
        """A newborn with no room escapes: it never entered the ranch, so only the penalty applies."""
        for k in escaping:
            pl.ranch[k] = pl.ranch.get(k, 0) + 1
            s.supply[k] -= 1
        self._escape(s, pl, escaping)

    def _refresh(self, s, rng):
        while len(s.public_row) < len(s.players) + self.r.contracts.row_extra and s.public_deck:
            s.public_row.append(s.public_deck.pop())
        s.discard += s.row
        s.row = []
        self._deal_research_row(s, rng)
        for pl in s.players:
            pl.tilted = set()

    def _deal_research_row(self, s, rng):
        for _ in range(self.r.research.row):
            card = self._draw_research(s, rng)
            if card:
                s.row.append(card)
