"""The planner's route search (policies/first_ascent/planner.py, route_value) against a plain
recursive reading of its docstring, on real positions and several knob vectors. The search runs
over an explicit stack in the work memory; this checks it finds the very values the recursion
does, bit for bit, so the planner's decisions do not depend on how the search is written."""
import numpy as np
import pytest

from policies.first_ascent.planner import (
    DEFAULT_PARAMS, begin_worths, destination_value, hex_worth)
from sim.games.first_ascent import engine as E
from sim.games.first_ascent.data import N_HEX, T_B_NEIGH
from sim.games.first_ascent.memory import WORK_SIZE
from sim.games.first_ascent.positions import capture_position
from sim.games.first_ascent.state import G_SIDE, S_ROUTE_MASK, S_ROUTE_N, SEAT_FIELDS, TILE

KNOBS = {"defaults": {}, "deep and wide": {10: 5.0, 11: 3.0}, "narrow": {10: 2.0, 11: 1.0},
         "heavy future": {0: 1.2, 11: 2.0}, "to the route's end": {10: 7.0},
         "no branch": {11: 0.0}}


def reference_destination_value(st, t, seat, h, params, res):
    """destination_value written as the recursion the docstrings describe."""
    known = {}

    def worth(x):
        if x not in known:
            known[x] = float(hex_worth(st, t, seat, x, params, res, np.zeros(7, np.int64))) \
                if st[TILE + x] > 0 else -1e9
        return known[x]

    def route_value(at, visited, depth):
        if depth <= 0:
            return 0.0
        moves = int(t[T_B_NEIGH + N_HEX * st[G_SIDE] + at]) & ~visited & ~1
        best, taken = 0.0, 0
        for _ in range(int(params[11])):
            pick, pick_w = -1, -1e8
            for x in range(N_HEX):
                if (moves & ~taken) >> x & 1 and worth(x) > pick_w:
                    pick, pick_w = x, worth(x)
            if pick < 0:
                break
            taken |= 1 << pick
            best = max(best, pick_w + params[0] * route_value(pick, visited | 1 << pick,
                                                              depth - 1))
        return best

    base = seat * SEAT_FIELDS
    depth = min(8 - int(st[S_ROUTE_N + base]) - 1, int(params[10]))
    return worth(h) + params[0] * route_value(h, int(st[S_ROUTE_MASK + base]) | 1 << h, depth)


@pytest.fixture(scope="module")
def positions():
    out = []
    for seed in (3, 5, 8, 13):
        for target in (40, 140, 240):
            try:
                out.append(capture_position(target, seed=seed))
            except ValueError:              # the game ended before that decision
                pass
    return out


@pytest.mark.parametrize("knobs", KNOBS)
def test_the_route_search_finds_the_values_of_the_recursion(knobs, positions):
    params = np.asarray(DEFAULT_PARAMS, np.float64)
    for k, v in KNOBS[knobs].items():
        params[k] = v
    compared = deep = 0
    for st, t, _, _, _ in positions:
        res = np.zeros(E.RES_SIZE, np.int64)
        E.payment_resources(st, t, 0, res)
        work = np.zeros(WORK_SIZE, np.int64)
        begin_worths(st, 0, work)
        w = np.zeros(N_HEX, np.float64)
        dest = int(E.legal_destinations(st, t, 0))
        for h in range(1, N_HEX):
            if dest >> h & 1:
                got = destination_value(st, t, 0, w, h, params, res, work)
                assert got == reference_destination_value(st, t, 0, h, params, res)
                compared += 1
                deep += min(8 - int(st[S_ROUTE_N]) - 1, int(params[10])) >= 3
    assert len(positions) >= 8 and compared >= 20, (len(positions), compared)
    assert deep >= 10 or params[10] < 3
