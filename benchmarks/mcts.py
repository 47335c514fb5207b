"""Open-loop MCTS speed (policies/mcts.py), per game. Run: python -m benchmarks.mcts

For each stepping game it searches positions reached by its rollout bot's own play in every
seat (one thread, the bot's own call), so that both sides of the rollout ratio below see the
positions that bot's games bring; First Ascent, which asks its bots from inside the rules, gets
positions captured in games (first_ascent_positions). Per game and bot:
- iterations per second per thread, with rollouts of DEPTH actions;
- the cost of a rollout action inside the search, measured as the time at depth DEPTH minus
  the time at depth 0, per rollout action, against the cost per action of the rollout bot's
  own play in the game's kernel, on one thread, measured in the same run (issue 22 asks that
  figures be ratios against a reference from the same run).
Writes the section "MCTS speed" of results/BENCHMARKS.md and prints it.
Compare only within one run: absolute figures on a shared machine vary by 2x.
"""
import argparse
import time

import numpy as np

from benchmarks import replace_section
from sim.core.bot_exceptions import raising_bot_exceptions

DEPTH = 40
HEADING = "## MCTS speed (issue 20)"


def game_parts(game):
    """What the benchmark needs of a game: its search module (legal, step, mover), the bot's
    context for a position (context(st, t, legal, n, stream, params)), its parameter width,
    its action count, its packed rules, a new 4-player game from a seed, and the scratch its
    step takes."""
    from sim.core.game import get_game
    rules = get_game(game).build_rules(4)
    if game == "all-in-ascent":
        from sim.games.all_in_ascent import engine, search, state
        from sim.games.all_in_ascent.memory import SEARCH_WORK_SIZE, WORK_SIZE
        from sim.games.all_in_ascent.policy_api import MAX_POLICY_PARAMS, PolicyContext

        def new_game(seed):
            st = np.zeros(state.STATE_SIZE, np.int64)
            engine.setup(st, rules.tables, seed, np.array([0, 1, 2, 3], np.int64), 4)
            return st

        def context(st, t, legal, n, stream, params):
            return PolicyContext(st, np.int64(search.mover(st)), legal, np.int64(n), t, stream,
                                 params, np.zeros(WORK_SIZE, np.int64))
        return (search, context, MAX_POLICY_PARAMS, state.N_ACTIONS, rules.tables,
                new_game, np.zeros(SEARCH_WORK_SIZE, np.int64))
    if game == "ascension":
        # a bot sees its view (the search samples a state from it, view.sample_state)
        from sim.games.ascension import engine as asc, search as asc_search, state as asc_state
        from sim.games.ascension.policy_api import MAX_POLICY_PARAMS as ASC_PARAMS
        from sim.games.ascension.policy_api import WORK_SIZE, PolicyContext as AscContext
        from sim.games.ascension.view import WHOLE, build_view

        def new_board(seed):
            st = np.zeros(asc_state.STATE_SIZE, np.int64)
            asc.setup(st, rules.config, np.int64(seed))
            return st

        def asc_context(st, t, legal, n, stream, params):
            seat = asc_search.mover(st)
            view = np.empty_like(st)
            build_view(st, t, seat, True, view, True, WHOLE)
            return AscContext(view, np.int64(seat), st[asc_state.G_PHASE], legal, np.int64(n),
                              t, stream, params, np.zeros(WORK_SIZE, np.int64))
        return (asc_search, asc_context, ASC_PARAMS, asc_state.N_ACTIONS, rules.config,
                new_board, np.empty(0, np.int64))
    from dice_race import engine as race, search as race_search, state as race_state

    def new_race(seed):
        st = np.zeros(race_state.STATE_SIZE, np.int64)
        race.setup(st, rules.config, np.int64(seed), np.int64(4))
        return st

    def race_context(st, t, legal, n, stream, params):
        return race.PolicyContext(st, np.int64(race_search.mover(st)), legal, np.int64(n), t,
                                  stream, params)
    return (race_search, race_context, race.MAX_POLICY_PARAMS, race_state.N_ACTIONS,
            rules.config, new_race, np.empty(0, np.int64))


def positions(game, seed, count, actions_between, bot="random"):
    """Positions of 4-player games after play by `bot` in every seat (a random number of
    actions, fewer than actions_between), each with a choice to make: (state, rules) pairs."""
    from sim.core.policies import get_policy
    search, context, max_params, n_actions, tables, new_game, work = game_parts(game)
    draws = np.random.default_rng(seed)
    legal = np.empty(n_actions, np.int64)
    chooser = None
    if bot != "random":
        registered = get_policy(game, bot)
        params = np.zeros(max_params)
        params[:len(registered.default_params)] = registered.default_params
        chooser = registered.function
    out = []
    while len(out) < count:
        st = new_game(int(draws.integers(1 << 31)))
        for _ in range(int(draws.integers(actions_between))):
            if search.mover(st) < 0:
                break
            n = search.legal(st, tables, legal)
            if chooser is None:
                action = legal[draws.integers(n)]
            else:
                stream = np.array([draws.integers(1 << 62)], np.uint64)
                action = chooser(context(st, tables, legal, n, stream, params))
            search.step(st, tables, action, work)
        if search.mover(st) >= 0 and search.legal(st, tables, legal) > 1:
            out.append((st, tables))
    return out


def first_ascent_positions(count):
    """First Ascent asks its bots from inside the rules, so its positions are captured in
    games (sim/games/first_ascent/positions.py): seat 0's turn, at decision 50 to 250 (a
    game that ends before its target gives none)."""
    from sim.games.first_ascent.positions import capture_position
    draws = np.random.default_rng(7)
    out = []
    while len(out) < count:
        target, seed = int(draws.integers(50, 250)), int(draws.integers(1 << 31))
        try:
            out.append(capture_position(target, seed=seed))
        except ValueError:
            continue
    return out


def first_ascent_search_seconds(bot, places, iterations, depth):
    from sim.core.policies import get_policy
    from sim.games.first_ascent.policy_api import MAX_POLICY_PARAMS, PolicyContext
    from sim.games.first_ascent.state import D_TURN
    registered = get_policy("first-ascent", bot)
    params = np.zeros(MAX_POLICY_PARAMS)
    params[:len(registered.default_params)] = registered.default_params
    params[0], params[1] = iterations, depth
    total = 0.0
    for k, p in enumerate(places):
        ctx = PolicyContext(p.state.copy(), p.tables, np.int64(0), np.int64(D_TURN), p.legal,
                            np.int64(p.n_legal), np.array([k + 1], np.uint64), params, p.work)
        start = time.perf_counter()
        answer = registered.function(ctx)
        total += time.perf_counter() - start
        if answer < 0:
            raise RuntimeError(f"{bot}: the search failed on position {k}")
    return total


# Games whose engine asks its bots from inside the rules cannot be stepped to a position:
# each brings its own (positions(count), search_seconds(bot, places, iterations, depth)).
CALLBACK_GAMES = {"first-ascent": (first_ascent_positions, first_ascent_search_seconds)}


def bench_positions(game, rollout_bot, count):
    if game in CALLBACK_GAMES:
        return CALLBACK_GAMES[game][0](count)
    return positions(game, 7, count, ACTIONS_BETWEEN.get(game, 30), rollout_bot)


def search_seconds(game, bot, places, iterations, depth):
    from sim.core.policies import get_policy
    if game in CALLBACK_GAMES:
        return CALLBACK_GAMES[game][1](bot, places, iterations, depth)
    registered = get_policy(game, bot)
    search, context, max_params, n_actions, _, _, _ = game_parts(game)
    params = np.zeros(max_params)
    params[:len(registered.default_params)] = registered.default_params
    params[0], params[1] = iterations, depth
    legal = np.empty(n_actions, np.int64)
    total = 0.0
    for k, (st, t) in enumerate(places):
        n = search.legal(st, t, legal)
        ctx = context(st, t, legal, n, np.array([k + 1], np.uint64), params)
        start = time.perf_counter()
        registered.function(ctx)
        total += time.perf_counter() - start
    return total


def kernel_ns_per_action(game, bot, games):
    """The rollout bot's own play in the game's kernel, one thread: ns per action."""
    from sim.core.game import get_game
    spec = get_game(game)
    rules = spec.build_rules(4)
    spec.api.play(rules, 4, 1, [bot] * 4, "random" if spec.has_characters else None,
                  threads=1)
    played = spec.api.play(rules, games, 1, [bot] * 4,
                           "random" if spec.has_characters else None, threads=1)
    actions = played.games["actions"].sum() if "actions" in played.games else \
        played.games["decisions"].sum()
    return played.seconds / actions * 1e9


ACTIONS_BETWEEN = {"all-in-ascent": 400, "ascension": 300}   # random actions before a position
CASES = (  # game, MCTS bot, its rollout bot, iterations, positions, kernel games
    ("all-in-ascent", "mcts", "random", 2000, 30, 2000),
    ("all-in-ascent", "mcts-greedy", "greedy", 1000, 20, 1000),
    ("all-in-ascent", "mcts-tuned", "tuned", 300, 20, 1000),
    ("ascension", "mcts", "random", 1000, 30, 300),
    ("ascension", "mcts-hybrid", "hybrid", 100, 20, 200),
    ("first-ascent", "mcts", "random", 200, 20, 2000),
    ("first-ascent", "mcts-tuned", "tuned", 100, 20, 1000),
    ("dice-race", "mcts", "random", 2000, 30, 20000),
)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--game", choices=sorted({case[0] for case in CASES}),
                        help="one game only (prints, never writes)")
    args = parser.parse_args(argv)
    rows = []
    for game, bot, rollout_bot, iterations, n_positions, kernel_games in CASES:
        if args.game and game != args.game:
            continue
        # the search holds its rollout bot by address: an exception there would be dropped
        # and the search go on (sim/core/bot_exceptions.py), so a figure could time a broken
        # search
        with raising_bot_exceptions([bot, rollout_bot]):
            places = bench_positions(game, rollout_bot, n_positions)
            search_seconds(game, bot, places[:1], 2, 2)                # compile
            deep = search_seconds(game, bot, places, iterations, DEPTH)
            shallow = search_seconds(game, bot, places, iterations, 0)
        rollout_ns = (deep - shallow) / (len(places) * iterations * DEPTH) * 1e9
        own_ns = kernel_ns_per_action(game, rollout_bot, kernel_games)
        rows.append((game, bot, rollout_bot, iterations, len(places),
                     len(places) * iterations / deep, rollout_ns, own_ns))
    lines = [HEADING, "", "Command: `python -m benchmarks.mcts` (one thread; positions from the "
             "rollout bot's own play, 4 players, fewer than 400 actions in (Ascension 300); "
             f"rollouts of {DEPTH} actions). The rollout ratio is the cost of an "
             "action inside the search's rollouts (time at depth 40 minus time at depth 0, "
             "per rollout action) over the rollout bot's own cost per action in the game's "
             "kernel, both measured in this run.", "",
             "| game | bot | rollout bot | iterations x positions | iterations/s per thread "
             "| ns per rollout action | bot's own ns per action | ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for game, bot, rollout_bot, iterations, n, rate, rollout_ns, own_ns in rows:
        lines.append(f"| {game} | {bot} | {rollout_bot} | {iterations} x {n} | {rate:,.0f} "
                     f"| {rollout_ns:,.0f} | {own_ns:,.0f} | {rollout_ns / own_ns:.2f}x |")
    lines += ["", "First Ascent asks its bots from inside the rules, so its search replays the "
              "round from the engine's checkpoint in each iteration, and a rollout action is an "
              "asked decision (the kernel's figure divides by every decision, also those with "
              "one legal code, which the engine takes without asking, so the ratio errs "
              "against the search); its positions are seat 0's turns at decision 50-250 of "
              "games played by a fixed walk through the legal codes "
              "(sim/games/first_ascent/positions.py), not by the rollout bot.", "",
              "Dice Race's games end within a few rollout actions (a bank at 30 wins), so its "
              "per-rollout-action figure divides by actions that were never played: read its "
              "iterations/s only. Compare within the table: absolute figures on this shared "
              "machine vary by up to 2x from run to run."]
    text = "\n".join(lines)
    print(text)
    if not args.no_write and not args.game:
        replace_section(HEADING, text)


if __name__ == "__main__":
    main()
