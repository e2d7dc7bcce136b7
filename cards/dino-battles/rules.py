"""Biomechanic Dino Battles, playable by `pnp simulate` (the rulebook's rules, read from the cards' data).

What the simulation decides for the players, so that a move is one clear choice (the rulebook leaves these to
the player; each is the obvious best or a fair default, noted here so the figures can be read for what they
are):
- costs paid from the hand, and extra cards discarded to [[Overcharge]], use the combat card the player holds
  most of (among those attached, for an Overcharge); an Overcharge is offered only for the ATK that just beats
  an opposing active Dinosaur's EVA or DEF (more buys nothing the attacker can see); an attack's "any" is paid with
  Attack cards first, then Defend, then Evade (dodging and blocking need the last two);
- purging purges Status cards only (Wound first); healing goes to the most damaged Dinosaur; a free swap
  brings forward the benched Dinosaur with the most HP left, a pull the opponent's most damaged one, and a
  knocked-out Dinosaur is replaced by the benched one with the most HP left;
- only combat cards are attached (a Strategy or Item attached to be played later is not simulated), and
  Items are used in their owner's turn, or in reply to an attack for the guarding ones;
- the 10 Strategy and Item kinds and the 6 species of a game are drawn at random from the pool;
- a guarding Item's bonus counts for whichever reply the defender makes (the data does not say EVA or DEF);
- Strategies and Items played in a turn go to the discard pile at clean-up (see the rulebook's designer notes:
  a Command Uplink discarded at once was drawn again by its own +1 Draw from a thin deck, a turn without end);
- the [[Stalemate]] clock counts any damage, Poison's too, as a Dinosaur hurt;
- a Dinosaur knocked out by Poison is nobody's trophy; a game still going after TURN_LIMIT turns ends as if
  the Wound pile had run out (reason "turn limit"), which the rulebook does not need (no human plays 150
  turns) but a pair of passive bots might.
The rules decisions for the kit's wording (Paralyze at the start of a turn, the end the moment the last Wound
leaves the pile and Wounds counted in deck, hand and discard, Poison on discarding, Status piles not for sale,
combat cards free, empty piles giving nothing, Spiked on defending) are followed as written.
"""

from random import Random

from pnp.simulate.api import GameRules, Tracked

COMBAT = ("attack", "evade", "defend")
STATUS = ("wound", "poison", "paralyze")
COMBAT_AND_STATUS = frozenset(COMBAT + STATUS)
TURN_LIMIT = 150
ANY_ORDER = ("attack", "defend", "evade")  # what pays an attack's "any" first


class Dino:
    __slots__ = ("species", "damage", "attached")

    def __init__(self, species, damage=0, attached=None):
        self.species, self.damage, self.attached = species, damage, attached if attached is not None else []

    def copy(self):
        return Dino(self.species, self.damage, self.attached[:])

    @property
    def left(self):
        return self.species.hp - self.damage


class Player:
    __slots__ = ("deck", "hand", "discard", "played", "active", "bench", "trophies", "events")

    def __init__(self):
        self.deck, self.hand, self.discard, self.active, self.bench, self.trophies = [], [], [], None, [], []
        self.played = []  # Strategies and Items played this turn: discarded at clean-up
        self.events = {"taken": set(), "played": set(), "effective": set(), "hit": set(), "was_hit": set(),
                       "outmatched": set(), "knocked_out": set(), "knocked_out_enemy": set()}

    def copy(self):
        """A copy for look-ahead: what happens in an imagined future is never reported, so the copy records
        its events in a scratch record of its own instead of copying the real one (the costliest part)."""
        p = Player.__new__(Player)
        p.deck, p.hand, p.discard, p.played = self.deck[:], self.hand[:], self.discard[:], self.played[:]
        p.active = self.active.copy() if self.active else None
        p.bench = [d.copy() for d in self.bench]
        p.trophies = self.trophies[:]
        p.events = _ScratchEvents()
        return p

    def dinos(self):
        return ([self.active] if self.active else []) + self.bench

    def wounds(self):
        """Wounds owned: deck, hand and discard (Status cards are never attached)."""
        return self.deck.count("wound") + self.hand.count("wound") + self.discard.count("wound")


class State:
    __slots__ = ("players", "current", "turn", "supply", "kinds", "species", "dino_deck", "offering", "wounds_left",
                 "left", "pending", "winner_by_ko", "reason", "bought_dino", "assisted", "hurt")

    def copy(self):
        s = State.__new__(State)
        s.players = [p.copy() for p in self.players]
        s.current, s.turn, s.kinds, s.species = self.current, self.turn, self.kinds, self.species
        s.supply, s.dino_deck, s.offering = dict(self.supply), list(self.dino_deck), list(self.offering)
        s.wounds_left, s.left, s.winner_by_ko = self.wounds_left, dict(self.left), self.winner_by_ko
        s.pending = dict(self.pending) if self.pending else None
        s.reason, s.bought_dino, s.assisted = self.reason, self.bought_dino, set(self.assisted)
        s.hurt = self.hurt
        return s


class Rules(GameRules):
    ITEMS = {"dinosaurs": "species", "strategies": "strategy", "items": "item"}
    END_REASONS = ("knockouts", "wound pile", "turn limit")

    def __init__(self, game):
        super().__init__(game)
        r = game.rules
        self.hand_size, self.bench_size, self.offering_size = r.hand_size, r.bench_size, r.offering_size
        self.to_win, self.per_counter = r.knockouts_to_win, r.damage_per_counter
        self.dinos = game.ref.dinosaurs
        self.cards = {**game.ref.strategies, **game.ref.items}
        self.table_of = {**{k: "strategies" for k in game.ref.strategies}, **{k: "items" for k in game.ref.items}}
        self.immune = {d.id: set(d.keywords) for d in game.tables.dinosaurs}
        self.stacks = r.stacks_per_game
        self.assists = {d.id: d.get("assist") for d in game.tables.dinosaurs}
        # per Item: (power index, power) of the powers used in its owner's turn, and of the guarding ones
        self.own_turn_powers = {c: [(k, pw) for k, pw in enumerate(self.cards[c].powers) if not pw.effects.guard_up]
                                for c in game.ref.items}
        self.guard_powers = {c: [(k, pw) for k, pw in enumerate(self.cards[c].powers) if pw.effects.guard_up]
                             for c in game.ref.items}
        self.species_per_game = r.species_per_game
        self.card_cost = {k: c.cost for k, c in self.cards.items()}
        self.dino_cost = {k: d.cost for k, d in self.dinos.items()}

    # --- setup -------------------------------------------------------------------------------------------
    def setup(self, players, rng):
        row = next(p for p in self.game.tables.players if p.players == players)
        s = State()
        s.players = [Player() for _ in range(players)]
        starter = [b.id for b in self.game.tables.basics for _ in range(b.starter)]
        for p in s.players:
            p.deck = list(starter)
            rng.shuffle(p.deck)
            self._draw(p, self.hand_size, rng)
        kinds = sorted(rng.sample(sorted(self.cards), self.stacks))
        s.kinds = tuple(kinds)
        s.supply = {**{c: row.combat_cards for c in COMBAT}, **{k: self.cards[k].copies for k in kinds}}
        s.left = {"poison": 20, "paralyze": 20}
        s.wounds_left = row.wound_pile
        s.species = tuple(sorted(rng.sample(sorted(self.dinos), self.species_per_game)))
        s.dino_deck = [d for d in s.species for _ in range(row.dino_copies)]
        rng.shuffle(s.dino_deck)
        s.offering = [s.dino_deck.pop() for _ in range(min(self.offering_size, len(s.dino_deck)))]
        s.current, s.turn, s.pending, s.winner_by_ko, s.reason = 0, 1, None, None, ""
        s.bought_dino, s.assisted = False, set()
        s.hurt = False  # whether a Dinosaur took damage this round ([[Stalemate]])
        self._start_turn(s)
        return s

    def _draw(self, p, n, rng):
        deck = p.deck
        if len(deck) >= n:  # the usual case, at once: the cards popped one by one from the deck's end
            p.hand.extend(deck[:-n - 1:-1])
            del deck[-n:]
            return
        for _ in range(n):
            if not p.deck:
                if not p.discard:
                    return
                p.deck, p.discard = p.discard, []
                rng.shuffle(p.deck)
            p.hand.append(p.deck.pop())

    def _start_turn(self, s):
        p = s.players[s.current]
        paralysed = 0 if p.active and "immune-paralyze" in self.immune[p.active.species.id] else p.hand.count("paralyze")
        s.pending = None
        s.assisted = set()
        s.bought_dino = False
        s.left["_strategy"], s.left["_attach"] = 1, 1
        s.left["_combat"], s.left["_buy"] = max(0, 1 - paralysed), 1

    # --- the engine's questions ----------------------------------------------------------------------------
    def to_act(self, s):
        return s.pending["target"] if s.pending else s.current

    def is_over(self, s):
        return bool(s.reason)

    def turn(self, s):
        return s.turn

    def end_reason(self, s):
        return s.reason

    def scores(self, s):
        if s.reason == "knockouts":
            return [1 if i == s.winner_by_ko else 0 for i in range(len(s.players))]
        # fewest Wounds, then more trophies
        return [-p.wounds() + 0.01 * len(p.trophies) for p in s.players]

    def clone(self, s):
        return s.copy()

    def determinise(self, s, player, rng):
        s = s.copy()
        # sorting on random keys: a fair shuffle, several times faster than random.shuffle (search calls this
        # for every iteration)
        key = lambda _: rng.random()  # noqa: E731
        for i, p in enumerate(s.players):
            if i != player:
                hidden = sorted(p.hand + p.deck, key=key)
                p.hand, p.deck = hidden[:len(p.hand)], hidden[len(p.hand):]
            else:
                p.deck.sort(key=key)
        s.dino_deck.sort(key=key)
        return s

    def heuristic(self, s, player):
        if s.pending:
            # an attack waiting for its reply is judged by the reply the defender likes best (judged as it
            # stood, it was only the attacker's spent cards, and one-step players never attacked)
            target = s.pending["target"]
            after = [self.apply(s.copy(), reply, Random(0)) for reply in self._replies(s)]
            return self.heuristic(max(after, key=lambda a: self.heuristic(a, target)), player)
        if s.reason == "knockouts":
            return 10.0 if s.winner_by_ko == player else -10.0
        me = s.players[player]
        value = 0.0
        for i, p in enumerate(s.players):
            sign = 1 if i == player else -1 / (len(s.players) - 1)
            # cards under the active Dinosaur fight now, those under the bench later (all alike, players
            # spread them over the bench and rarely had an attack paid for)
            attached = (0.08 * len(p.active.attached) if p.active else 0) + 0.03 * sum(len(d.attached) for d in p.bench)
            value += sign * (1.5 * len(p.trophies) + 0.3 * len(p.dinos()) - 0.15 * p.wounds()
                             + sum(d.left / d.species.hp for d in p.dinos()) * 0.5 + attached)
        return value + 0.02 * len(me.deck + me.hand + me.discard)

    def tracked(self, s):
        available = {("dinosaurs", d) for d in s.species} | {(self.table_of[k], k) for k in s.kinds}
        return Tracked(available, [p.events for p in s.players])

    def describe(self, move):
        return " ".join(str(m) for m in move)

    # --- moves ----------------------------------------------------------------------------------------------
    def legal_moves(self, s):
        # the hot path of every simulation (a random game asks it some 270 times): combat cards are counted once
        # and the moves that depend only on counts (attach, retreat, attack targets) come from small caches
        if s.pending:
            return self._replies(s)
        p, left = s.players[s.current], s.left
        hand = p.hand
        in_hand = (hand.count("attack"), hand.count("evade"), hand.count("defend"))
        moves = [("end",)]
        cards = sorted(set(hand).difference(COMBAT_AND_STATUS)) if len(hand) > sum(in_hand) else ()
        if cards and left["_strategy"] > 0:
            moves += [("strategy", c) for c in cards if c not in self.own_turn_powers]
        active, bench = p.active, p.bench
        if left["_attach"] > 0:
            moves += _attach_moves(in_hand, len(bench) + (1 if active else 0))
        if active and left["_combat"] > 0:
            attached = active.attached
            on_active = (attached.count("attack"), attached.count("evade"), attached.count("defend"))
            for i, attack in enumerate(active.species.attacks):
                if _payable_counts(attack.cost, on_active):
                    moves += _attack_moves(i, len(s.players), s.current)
                    moves += self._overcharges(s, i, active.species.atk, sum(on_active) - len(attack.cost))
            if on_active[1] + in_hand[1] >= active.species.retreat and bench:
                moves += _RETREATS[len(bench)]
        for b, d in enumerate(bench):
            assist = self.assists[d.species.id]
            if assist is not None and b not in s.assisted and _payable(assist.cost, d.attached):
                moves.append(("assist", b))
        for c in cards:  # an Item is not a combat card: paying for it leaves the same combat cards
            for k, power in self.own_turn_powers.get(c, ()):
                if _payable_counts(power.cost, in_hand):
                    moves.append(("item", c, k))
        if left["_buy"] > 0:
            money, supply = sum(in_hand), s.supply
            moves += [_BUY[c] for c in COMBAT if supply[c] > 0]
            cost = self.card_cost
            moves += [_BUY[k] for k in s.kinds if supply[k] > 0 and cost[k] <= money]
            if len(bench) + (1 if active else 0) < 1 + self.bench_size:
                cost = self.dino_cost
                moves += [("dino", d) for d in sorted(set(s.offering)) if cost[d] <= money]
        return moves

    def _targets(self, s):
        return [i for i in range(len(s.players)) if i != s.current]

    def _replies(self, s):
        target = s.players[s.pending["target"]]
        moves = [("pass",)]
        dino = target.active
        if "evade" in dino.attached:
            moves.append(("evade",))
        if "defend" in dino.attached:
            moves.append(("defend",))
        if not s.pending.get("guarded"):
            in_hand = None
            for c in sorted(set(target.hand).intersection(self.guard_powers)):
                in_hand = in_hand or _counts(target.hand)
                for k, power in self.guard_powers[c]:
                    if _payable_counts(power.cost, in_hand):
                        moves.append(("guard", c, k))
        return moves

    def apply(self, s, move, rng):
        kind = move[0]
        p = s.players[s.current]
        if kind == "end":
            self._end_turn(s, p, rng)
        elif kind == "strategy":
            s.left["_strategy"] -= 1
            self._play_strategy(s, p, move[1], rng)
        elif kind == "attach":
            s.left["_attach"] -= 1
            p.hand.remove(move[1])
            p.dinos()[move[2]].attached.append(move[1])
        elif kind == "attack":
            s.left["_combat"] -= 1
            self._attack(s, p, move[1], move[2], rng, *move[3:])
        elif kind == "retreat":
            s.left["_combat"] -= 1
            self._retreat(p, move[1])
        elif kind == "assist":
            self._assist(s, p, move[1], rng)
        elif kind == "item":
            self._use_item(s, p, move[1], move[2], rng)
        elif kind in ("buy", "dino"):
            self._buy(s, p, kind, move[1])
        else:
            self._reply(s, move, rng)
        return s

    # --- a turn's actions -----------------------------------------------------------------------------------
    def _play_strategy(self, s, p, card_id, rng):
        card = self.cards[card_id]
        p.hand.remove(card_id)
        p.played.append(card_id)
        p.events["played"].add(("strategies", card_id))
        if self._effects(s, p, card.bonuses, card.effects, rng):
            p.events["effective"].add(("strategies", card_id))

    def _effects(self, s, p, bonuses, effects, rng):
        """Apply a card's bonuses and effects; whether it did anything."""
        did = False
        if bonuses.draw:
            before = len(p.hand)
            self._draw(p, bonuses.draw, rng)
            did |= len(p.hand) > before
        for name in ("strategy", "attach", "combat", "buy"):
            if bonuses[name]:
                s.left["_" + name] += bonuses[name]
                did = True
        if bonuses.hp:
            did |= self._heal(p, bonuses.hp)
        if effects.purge:
            did |= self._purge(p, effects.purge)
        if effects.swap and p.bench:
            self._swap(p, max(range(len(p.bench)), key=lambda b: p.bench[b].left))
            did = True
        if effects.pull:
            did |= self._pull(s)
        if effects.give_poison or effects.give_paralyze or effects.give_wound:
            victim = s.players[self._targets(s)[0]]
            for status, n in (("poison", effects.give_poison), ("paralyze", effects.give_paralyze),
                              ("wound", effects.give_wound)):
                for _ in range(n):
                    self._give(s, victim, status)
            did = True
        for _ in range(effects.self_wound):
            self._give(s, p, "wound")
        return did

    def _heal(self, p, hp):
        hurt = [d for d in p.dinos() if d.damage > 0]
        if not hurt:
            return False
        d = max(hurt, key=lambda d: d.damage)
        d.damage = max(0, d.damage - hp)
        return True

    def _purge(self, p, n):
        did = False
        for status in STATUS:
            while n and status in p.hand:
                p.hand.remove(status)
                n -= 1
                did = True
        return did

    def _swap(self, p, b):
        p.active, p.bench[b] = p.bench[b], p.active

    def _pull(self, s):
        victim = s.players[self._targets(s)[0]]
        if not victim.bench or not victim.active:
            return False
        b = max(range(len(victim.bench)), key=lambda b: victim.bench[b].damage)
        self._swap(victim, b)
        return True

    def _give(self, s, victim, status):
        """`victim` takes a status card into their discard pile (none when its pile is empty); the game ends the
        moment the last Wound leaves the Wound pile (RULES-DECISIONS: End)."""
        if status == "wound":
            if s.wounds_left == 0:
                return
            s.wounds_left -= 1
            if victim is not None:  # None: purged by the Stalemate clock
                victim.discard.append(status)
            if s.wounds_left == 0:
                self._end_on_wounds(s, "wound pile")
            return
        if s.left[status] == 0:
            return
        s.left[status] -= 1
        victim.discard.append(status)

    def _end_on_wounds(self, s, reason):
        if not s.reason:
            s.reason = reason

    def _retreat(self, p, b):
        cost = p.active.species.retreat
        for _ in range(cost):
            if "evade" in p.active.attached:
                p.active.attached.remove("evade")
            else:
                p.hand.remove("evade")
            p.discard.append("evade")
        self._swap(p, b)

    def _assist(self, s, p, b, rng):
        d = p.bench[b]
        power = d.species.assist
        _pay(power.cost, d.attached, p.discard)
        s.assisted.add(b)
        key = ("dinosaurs", d.species.id)
        p.events["played"].add(key)
        if self._effects(s, p, power.bonuses, power.effects, rng):
            p.events["effective"].add(key)

    def _use_item(self, s, p, card_id, k, rng):
        power = self.cards[card_id].powers[k]
        p.hand.remove(card_id)
        _pay_from_hand(power.cost, p)
        p.played.append(card_id)
        key = ("items", card_id)
        p.events["played"].add(key)
        if power.get("atk"):
            target = self._targets(s)[0]
            self._strike(s, s.current, target, {"atk": power.atk, "damage": power.effects.damage,
                                                "status": None, "effects": power.effects, "source": key}, rng)
        elif self._effects(s, p, power.bonuses, power.effects, rng):
            p.events["effective"].add(key)

    def _buy(self, s, p, kind, what):
        s.left["_buy"] -= 1
        if kind == "dino":
            _pay_from_hand(["any"] * self.dinos[what].cost, p)
            s.offering.remove(what)
            dino = Dino(self.dinos[what])
            if p.active is None:
                p.active = dino
            else:
                p.bench.append(dino)
            s.bought_dino = True
            p.events["taken"].add(("dinosaurs", what))
            return
        cost = self.cards[what].cost if what in self.cards else 0
        _pay_from_hand(["any"] * cost, p)
        s.supply[what] -= 1
        p.discard.append(what)
        if what in self.cards:
            p.events["taken"].add((self.table_of[what], what))

    def _end_turn(self, s, p, rng):
        p.discard.extend(p.played)
        p.played = []
        poisoned = p.hand.count("poison")
        p.discard.extend(p.hand)
        p.hand = []
        if poisoned and p.active and "immune-poison" not in self.immune[p.active.species.id]:
            self._hurt(s, None, s.current, p.active, 5 * poisoned)
        self._draw(p, self.hand_size, rng)
        if s.bought_dino:
            while len(s.offering) < self.offering_size and s.dino_deck:
                s.offering.insert(0, s.dino_deck.pop())
        if s.reason:
            return
        s.current = (s.current + 1) % len(s.players)
        s.turn += 1
        if s.turn > TURN_LIMIT:
            self._end_on_wounds(s, "turn limit")
            return
        if s.current == 0:  # a new round: the Stalemate clock, then the offering moves along
            if not s.hurt and not s.dino_deck:
                self._give(s, None, "wound")
                if s.reason:
                    return
            s.hurt = False
            if s.offering:
                s.offering.pop()
            if s.dino_deck:
                s.offering.insert(0, s.dino_deck.pop())
        self._start_turn(s)

    # --- combat ---------------------------------------------------------------------------------------------
    def _overcharges(self, s, i, atk, spare):
        """Attack `i` with +N ATK for N of the `spare` attached cards ([[Overcharge]]), for each N that just
        beats an opposing active Dinosaur's EVA or DEF."""
        moves = []
        for t in self._targets(s) if spare else ():
            dino = s.players[t].active
            if dino is not None:
                moves += [("attack", i, t, f"+{n}") for n in sorted({dino.species.eva + 1 - atk,
                                                                   dino.species["def"] + 1 - atk}) if 0 < n <= spare]
        return moves

    def _attack(self, s, p, i, target, rng, overcharge="+0"):
        attack = p.active.species.attacks[i]
        attached = p.active.attached
        _pay_attack(attack.cost, attached, p.discard)
        boost = int(overcharge)
        for _ in range(boost):
            counts = _counts(attached)
            c = COMBAT[counts.index(max(counts))]
            attached.remove(c)
            p.discard.append(c)
        key = ("dinosaurs", p.active.species.id)
        p.events["played"].add(key)
        self._strike(s, s.current, target, {"atk": p.active.species.atk + boost, "damage": attack.damage,
                                            "status": attack.get("status"), "effects": None, "source": key}, rng)

    def _strike(self, s, attacker, target, hit, rng):
        """An attack (a Dinosaur's or an Item's) on `target`: the defender replies, unless it has no Dinosaur."""
        victim = s.players[target]
        if victim.active is None:
            for _ in range(hit["damage"] // self.per_counter):
                self._give(s, victim, "wound")
            if hit["damage"]:
                s.players[attacker].events["effective"].add(hit["source"])
            return
        s.pending = {**hit, "attacker": attacker, "target": target, "guard": 0, "guarded": None}

    def _reply(self, s, move, rng):
        pend = s.pending
        victim = s.players[pend["target"]]
        dino = victim.active
        if move[0] == "guard":
            power = self.cards[move[1]].powers[move[2]]
            victim.hand.remove(move[1])
            _pay_from_hand(power.cost, victim)
            victim.discard.append(move[1])
            victim.events["played"].add(("items", move[1]))
            pend["guard"] += power.effects.guard_up
            pend["guarded"] = (move[1], power)
            return
        s.pending = None
        attacker = s.players[pend["attacker"]]
        guard_item = pend["guarded"]
        stopped = False
        if move[0] == "evade":
            dino.attached.remove("evade")
            stopped = dino.species.eva + pend["guard"] >= pend["atk"]
        elif move[0] == "defend":
            dino.attached.remove("defend")
            stopped = dino.species["def"] + pend["guard"] >= pend["atk"]  # `def` is a Python keyword
            if "spiked" in self.immune[dino.species.id]:
                self._give(s, attacker, "wound")
                victim.events["effective"].add(("dinosaurs", dino.species.id))
        if pend["atk"] > max(dino.species.eva, dino.species["def"]) + pend["guard"]:
            # for the balance rules: an attack neither card could stop; a species no attack outmatches can
            # only be hurt when its owner lacks the right card
            victim.events["outmatched"].add(("dinosaurs", dino.species.id))
        if guard_item and stopped:
            victim.events["effective"].add(("items", guard_item[0]))
            if guard_item[1].effects.give_wound and move[0] == "defend":
                self._give(s, attacker, "wound")
        if stopped or s.reason:
            return
        attacker.events["effective"].add(pend["source"])
        if pend["source"][0] == "dinosaurs":
            attacker.events["hit"].add(pend["source"])
        victim.events["was_hit"].add(("dinosaurs", dino.species.id))
        status = pend["status"]
        effects = pend["effects"]
        if status and f"immune-{status}" not in self.immune[dino.species.id]:
            self._give(s, victim, status)
        if effects is not None:
            for status, n in (("poison", effects.give_poison), ("paralyze", effects.give_paralyze)):
                if f"immune-{status}" not in self.immune[dino.species.id]:
                    for _ in range(n):
                        self._give(s, victim, status)
        self._hurt(s, pend["attacker"], pend["target"], dino, pend["damage"])

    def _hurt(self, s, attacker, target, dino, damage):
        """Damage on a Dinosaur; at its HP it is knocked out (a trophy for `attacker`, None for Poison)."""
        dino.damage += damage
        s.hurt = s.hurt or damage > 0
        if dino.damage < dino.species.hp:
            return
        victim = s.players[target]
        victim.discard.extend(dino.attached)
        victim.events["knocked_out"].add(("dinosaurs", dino.species.id))
        if victim.active is dino:
            victim.active = None
            if victim.bench:
                b = max(range(len(victim.bench)), key=lambda b: victim.bench[b].left)
                victim.active = victim.bench.pop(b)
        else:
            victim.bench.remove(dino)
        if attacker is None:
            return
        winner = s.players[attacker]
        winner.trophies.append(dino.species.id)
        if winner.active is not None:
            winner.events["knocked_out_enemy"].add(("dinosaurs", winner.active.species.id))
        if len(winner.trophies) >= self.to_win and not s.reason:
            s.reason, s.winner_by_ko = "knockouts", attacker


# --- paying costs -----------------------------------------------------------------------------------------------
class _ScratchEvents(dict):
    """The event record of a look-ahead copy: takes every event and keeps none."""

    def __missing__(self, name):
        return _DISCARDED


class _Discarded:
    def add(self, key):
        pass


_DISCARDED = _Discarded()


def _counts(cards):
    """(Attack, Evade, Defend) among `cards`."""
    return cards.count("attack"), cards.count("evade"), cards.count("defend")


_NEEDS = {}  # cost -> (Attack, Evade, Defend, any) it asks for; costs are the data's tuples, few and reused


def _payable_counts(cost, have):
    """Whether combat cards counted (Attack, Evade, Defend) `have` can pay `cost` (attack/evade/defend/any)."""
    need = _NEEDS.get(cost)
    if need is None:
        need = _NEEDS[cost] = (cost.count("attack"), cost.count("evade"), cost.count("defend"), cost.count("any"))
    a, e, d = have
    return a >= need[0] and e >= need[1] and d >= need[2] and a + e + d - need[0] - need[1] - need[2] >= need[3]


class _Made(dict):
    """A cache of moves made once by `make(key)`."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value


_BUY = _Made(lambda what: ("buy", what))
_RETREATS = _Made(lambda n: [("retreat", b) for b in range(n)])
_ATTACH, _ATTACKS = {}, {}


def _attach_moves(in_hand, slots):
    """Attaching each combat card held to each of `slots` Dinosaurs (cached by which cards are held)."""
    key = (in_hand[0] > 0, in_hand[1] > 0, in_hand[2] > 0, slots)
    moves = _ATTACH.get(key)
    if moves is None:
        held = [c for c, n in zip(COMBAT, in_hand) if n]
        moves = _ATTACH[key] = [("attach", c, slot) for slot in range(slots) for c in held]
    return moves


def _attack_moves(i, players, current):
    """Attack `i` on each opponent (cached)."""
    key = (i, players, current)
    moves = _ATTACKS.get(key)
    if moves is None:
        moves = _ATTACKS[key] = [("attack", i, t) for t in range(players) if t != current]
    return moves


def _payable(cost, cards):
    """Whether `cards` (combat cards among them) can pay `cost`."""
    return _payable_counts(cost, _counts(cards))


def _pay_attack(cost, attached, discard):
    _pay(cost, attached, discard, ANY_ORDER)


def _pay(cost, cards, discard, order=ANY_ORDER):
    for c in sorted(cost, key=lambda c: c == "any"):
        if c == "any":
            c = next(x for x in order if x in cards)
        cards.remove(c)
        discard.append(c)


def _pay_from_hand(cost, p):
    """Pay from the hand; an "any" with the combat card the player holds most of (ties: Attack, Evade, Defend)."""
    hand, discard = p.hand, p.discard
    for c in sorted(cost, key=_ANY_LAST):
        if c == "any":
            counts = (hand.count("attack"), hand.count("evade"), hand.count("defend"))
            c = COMBAT[counts.index(max(counts))]  # the first of the most held, as max() picks
        hand.remove(c)
        discard.append(c)


def _ANY_LAST(c):
    return c == "any"
