"""What one staircase search of the Ascension bots costs. Run: python -m benchmarks.staircase

Records, in `--games` four-player `stair-builder` games (master seeds 1..games), the deciding
seat's view before every origin decision and every pawn decision, then times on them, in one
numba loop each (one thread, best of --repeats, each position --per-state times in a row):
- the origin decision's search (staircase.plan_costs, wanted: the pawn only) and the plan it
  leaves (extract_plan);
- the pawn decision's search (staircase.candidate_costs on the legal destinations, and the
  pawn's square when it may stay) and the costs it reads;
- the view's board copied into the work memory, which every search starts with (the
  reference measured in the same run: absolute figures on a shared machine vary by 2x).
Prints a markdown table; writes nothing. The positions depend only on --games and the bots'
decisions, so to compare two commits run it in each checkout (a commit without
candidate_costs times the pawn decision's search with plan_costs, as it was before).
"""
import argparse
import time

import numpy as np
from numba import njit

from policies.ascension import staircase as SC
from policies.ascension.board import copy_board
from sim.games.ascension import state as S
from sim.games.ascension.game import AscensionGame
from sim.games.ascension.policy_api import WORK_SIZE
from sim.games.ascension.rules import default_rules
from sim.games.ascension.view import V_TOP_H

HAS_CANDIDATE_COSTS = hasattr(SC, "candidate_costs")


class RecordingGame(AscensionGame):
    """An Ascension game that keeps, before each origin and pawn decision, the deciding seat's
    view, the squares whose cost the pawn decision reads (its legal destinations; none at an
    origin decision) and whether it may stay."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.positions = []

    def step(self, action):
        phase = int(self.state[S.G_PHASE])
        if phase in (S.PHASE_ORIGIN, S.PHASE_PAWN):
            legal = self.legal_codes()
            stay = phase == S.PHASE_PAWN and legal[-1] == S.STAY
            squares = [c for c in legal if c != S.STAY] if phase == S.PHASE_PAWN else []
            self.positions.append((self.view(self.current), self.current, squares, stay))
        super().step(action)


def recorded_positions(seeds):
    """[(view, seat, squares, stay)] of every origin and pawn decision of the four-player
    `stair-builder` games dealt from `seeds` (RecordingGame), in order of play."""
    rows = []
    for seed in seeds:
        game = RecordingGame(seed, 4)
        game.play(["stair-builder"] * 4)
        rows += game.positions
    return rows


def positions(games):
    """(views, seats, wanted squares, their counts, stay flags), origin decisions first."""
    rows = recorded_positions(range(1, games + 1))
    rows.sort(key=lambda row: len(row[2]) > 0)
    views = np.array([r[0] for r in rows])
    wanted = np.zeros((len(rows), S.N_ACTIONS), np.int64)
    for i, r in enumerate(rows):
        wanted[i, :len(r[2])] = r[2]
    return (views, np.array([r[1] for r in rows], np.int64), wanted,
            np.array([len(r[2]) for r in rows], np.int64), np.array([r[3] for r in rows]))


@njit(cache=True)
def copy_only(views, lo, hi, per_state, work):
    for i in range(lo, hi):
        for _ in range(per_state):
            copy_board(views[i], work)
    return work[0]


@njit(cache=True)
def origin_searches(views, seats, lo, hi, per_state, t, work):
    total = 0
    for i in range(lo, hi):
        v = views[i]
        for _ in range(per_state):
            copy_board(v, work)
            d = SC.plan_costs(work, t, seats[i], work, v[V_TOP_H:V_TOP_H + S.N_SQUARES],
                              v[:1], 0)
            if d < SC.INF:
                total += SC.extract_plan(work, t, seats[i], work)
    return total


def _pawn_searches(with_candidates):
    @njit(cache=True)
    def pawn_searches(views, seats, wanted, n_wanted, stays, lo, hi, per_state, t, work):
        total = 0
        for i in range(lo, hi):
            v = views[i]
            for _ in range(per_state):
                copy_board(v, work)
                if with_candidates:
                    SC.candidate_costs(work, t, seats[i], work,
                                       v[V_TOP_H:V_TOP_H + S.N_SQUARES], wanted[i], n_wanted[i],
                                       stays[i])
                else:
                    SC.plan_costs(work, t, seats[i], work, v[V_TOP_H:V_TOP_H + S.N_SQUARES],
                                  wanted[i], n_wanted[i])
                for k in range(n_wanted[i]):
                    total += SC.cost_at(work, work, wanted[i, k]) & 1
        return total
    return pawn_searches


pawn_searches = _pawn_searches(HAS_CANDIDATE_COSTS)


def best_seconds(fn, args, repeats):
    fn(*args)                                                  # compile, warm the caches
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--per-state", type=int, default=4)
    args = parser.parse_args(argv)
    views, seats, wanted, n_wanted, stays = positions(args.games)
    first_pawn = int(np.argmax(n_wanted > 0))
    n = len(seats)
    t = default_rules(4).config
    work = np.zeros(WORK_SIZE, np.int64)
    k = args.per_state
    rows = [
        ("origin decision: plan_costs and extract_plan", first_pawn,
         best_seconds(origin_searches, (views, seats, 0, first_pawn, k, t, work), args.repeats)),
        ("pawn decision: " + ("candidate_costs" if HAS_CANDIDATE_COSTS else "plan_costs") +
         " and the costs read", n - first_pawn,
         best_seconds(pawn_searches, (views, seats, wanted, n_wanted, stays, first_pawn, n, k, t,
                                      work), args.repeats)),
        ("reference: the view's board copied (copy_board)", n,
         best_seconds(copy_only, (views, 0, n, k, work), args.repeats)),
    ]
    print(f"{n:,} positions from {args.games} four-player stair-builder games; one thread, "
          f"best of {args.repeats}, each position {k} times in a row")
    print()
    print("| part | positions | us per call |")
    print("|---|---|---|")
    for name, count, seconds in rows:
        print(f"| {name} | {count:,} | {seconds / (count * k) * 1e6:.2f} |")


if __name__ == "__main__":
    main()
