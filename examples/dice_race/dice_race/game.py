"""One Dice Race game, step by step, on the same rule functions as the kernel (engine.py)."""
import json

import numpy as np

from dice_race import state as S
from dice_race.engine import (MAX_POLICY_PARAMS, PolicyContext, apply_action, legal_actions,
                              seed_streams, setup)
from sim.core.single_game import IllegalActionError, SingleGame

__all__ = ["DiceRaceGame", "IllegalActionError"]


class DiceRaceGame(SingleGame):
    layout = S      # is_over, winner, end_reason and current_seat read these offsets

    def __init__(self, seed, rules):
        self.rules = rules
        self.seed = int(seed)
        self.state = np.zeros(S.STATE_SIZE, np.int64)
        setup(self.state, rules.config, np.int64(self.seed), np.int64(rules.players))
        self.events = [self._event("start")]

    def _event(self, what, action=None):
        st = self.state
        return {"event": what, "seat": int(st[S.G_CURRENT]), "action": action,
                "roll": int(st[S.G_LAST_ROLL]), "turn_total": int(st[S.G_TURN_TOTAL]),
                "scores": [int(st[S.S_SCORE + k]) for k in range(self.rules.players)]}

    def legal_actions(self):
        legal = np.zeros(S.N_ACTIONS, np.int64)
        return [int(a) for a in legal[:legal_actions(self.state, legal)]]

    legal_codes = legal_actions     # its actions are their codes: 0 roll, 1 bank

    def step(self, action):
        if action not in self.legal_actions():
            raise IllegalActionError(f"action {action!r} is not legal now; legal: "
                                     f"{self.legal_actions()} (0 roll, 1 bank)")
        seat = int(self.state[S.G_CURRENT])
        apply_action(self.state, self.rules.config, np.int64(action))
        event = self._event("roll" if action == S.ROLL else "bank", action)
        event["seat"] = seat
        self.events.append(event)

    def play(self, seat_policies):
        """Play to the end with one registered bot per seat, each on its own stream."""
        from sim.core.policies import get_policy
        bots = [get_policy("dice-race", name) for name in seat_policies]
        streams = np.zeros((S.MAX_PLAYERS, 1), np.uint64)
        seed_streams(streams, np.int64(self.seed))
        legal = np.zeros(S.N_ACTIONS, np.int64)
        while not self.state[S.G_OVER]:
            seat = int(self.state[S.G_CURRENT])
            bot = bots[seat]
            params = np.zeros(MAX_POLICY_PARAMS, np.float64)
            params[:len(bot.default_params)] = bot.default_params
            n = legal_actions(self.state, legal)
            action = bot.function(PolicyContext(self.state, np.int64(seat), legal, np.int64(n),
                                                self.rules.config, streams[seat], params))
            self.step(int(action))
        return self

    def jsonl(self):
        return "".join(json.dumps(e) + "\n" for e in self.events)

    def text(self):
        lines = []
        for e in self.events[1:]:
            verb = "rolls on" if e["event"] == "roll" else "banks"
            lines.append(f"seat {e['seat'] + 1} {verb}: roll {e['roll']}, turn total "
                         f"{e['turn_total']}, scores {e['scores']}")
        result = "no winner (D6)" if self.winner is None else f"seat {self.winner + 1} wins"
        return "\n".join(lines + [result]) + "\n"
