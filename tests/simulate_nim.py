"""A tiny game for the simulate tests: Nim played with the mini game's cards (take a card's power from the
pile; who takes the last counter wins). Skill matters: taking pile mod 5 wins from any other position."""

from pnp.simulate.api import GameRules, Tracked


class Rules(GameRules):
    ITEMS = {"cards": "card"}
    END_REASONS = ("last counter",)

    def setup(self, players, rng):
        pile = int(self.game.rules.get("pile", 15)) if self.game.rules else 15
        return {"pile": pile + rng.randrange(3), "player": 0, "players": players, "turn": 1, "winner": None,
                "played": [set() for _ in range(players)], "won_with": [set() for _ in range(players)]}

    def to_act(self, state):
        return state["player"]

    def legal_moves(self, state):
        return [("play", card.id) for card in self.game.tables.cards if card.power <= state["pile"]]

    def apply(self, state, move, rng):
        card = self.game.ref.cards[move[1]]
        state["pile"] -= card.power
        state["played"][state["player"]].add(("cards", card.id))
        if state["pile"] == 0:
            state["winner"] = state["player"]
            state["won_with"][state["player"]].add(("cards", card.id))
        state["player"] = (state["player"] + 1) % state["players"]
        state["turn"] += 1
        return state

    def is_over(self, state):
        return state["winner"] is not None

    def scores(self, state):
        return [1 if p == state["winner"] else 0 for p in range(state["players"])]

    def end_reason(self, state):
        return "last counter"

    def turn(self, state):
        return state["turn"]

    def heuristic(self, state, player):
        # the player to move wins when the pile is not a multiple of 5
        good = state["pile"] % 5 != 0
        return 1.0 if good == (state["player"] == player) else -1.0

    def tracked(self, state):
        cards = {("cards", c.id) for c in self.game.tables.cards}
        return Tracked(cards, [{"taken": p, "played": p, "effective": w}
                               for p, w in zip(state["played"], state["won_with"])])
