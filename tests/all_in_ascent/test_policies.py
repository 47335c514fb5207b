"""Every registered policy: legal actions only, never a write to the game, its own stream only;
`tuned` loads its stored vectors; `ascent tune` and `ascent ladder` run end to end."""
import json

import numpy as np
import pytest
from numba import njit

from sim.core.policies import compiled_value, get_policy, policy_names
from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.batch import run_games
from sim.games.all_in_ascent.data import CHARACTER_KEYS
from sim.games.all_in_ascent.engine import legal_actions
from sim.games.all_in_ascent.game import Game
from sim.games.all_in_ascent.memory import WORK_SIZE
from sim.games.all_in_ascent.policy_api import (
    MAX_POLICY_PARAMS, POLICY_SIGNATURE, PolicyContext)
from sim.games.all_in_ascent.rules import default_rules

GAME = "all-in-ascent"
from policies.all_in_ascent.lookahead import LOOKAHEAD_DEFAULTS, N_BUDGET


def lookahead_params(k, m, depth, margin=0.0):
    return {"lookahead": [k, m, depth, margin] + list(LOOKAHEAD_DEFAULTS[N_BUDGET:])}


# Small budgets keep the look-ahead cheap here; its logic is the same at any budget.
CHEAP = lookahead_params(2.0, 1.0, 12.0)
# The searches that cost milliseconds a decision (the MCTS bots at their own 200 iterations)
# answer every tenth state: still every game of the sample, so every character and 1-4 players
EVERY_TENTH = {"lookahead", "mcts", "mcts-greedy"}


@njit(cache=True)
def check_policy(fn, states, t, params, stream_seed):
    """Ask `fn` on every state; return (number of illegal answers, number of states it wrote).
    `fn` is the bot by address (compiled_value), as the kernel holds it: one compile of this
    harness serves every bot, and no bot is linked into it and optimised again here."""
    legal = np.empty(S.N_ACTIONS, np.int64)
    stream = np.empty(1, np.uint64)
    work = np.zeros(WORK_SIZE, np.int64)
    illegal = 0
    wrote = 0
    for i in range(states.shape[0]):
        st = states[i].copy()
        n = legal_actions(st, t, legal)
        stream[0] = np.uint64(stream_seed + i)
        a = fn(PolicyContext(st, np.int64(st[S.G_CURRENT]), legal, np.int64(n), t, stream,
                             params, work))
        ok = False
        for j in range(n):
            if legal[j] == a:
                ok = True
        if not ok:
            illegal += 1
        for k in range(S.SCRATCH):      # the scratch block is working memory, not state
            if st[k] != states[i, k]:
                wrote += 1
                break
    return illegal, wrote


@pytest.fixture(scope="module")
def random_states():
    """About 3,000 states from random play: every character, 1-4 players, odd corners."""
    rng = np.random.default_rng(5)
    states = []
    for k in range(12):
        n = 1 + k % 4
        chars = list(rng.permutation(CHARACTER_KEYS)[:n])
        game = Game(100 + k, chars, record=False)
        for code in game._policy_actions("random", None, 400):
            states.append(game.state.copy())
            game.step(code)
    return np.array(states)


# A bot called by address that raises does not raise here: numba's wrapper reports the
# exception as unraisable and answers 0 (END_TURN, nearly always legal). pytest turns that
# report into this warning, which the test makes an error.
@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("name", policy_names(GAME))
def test_every_policy_answers_legally_and_never_writes_the_game(name, random_states):
    policy = get_policy(GAME, name)
    params = np.zeros(MAX_POLICY_PARAMS)
    vec = CHEAP.get(name, policy.default_params)
    params[:len(vec)] = vec
    sample = random_states[::10] if name in EVERY_TENTH else random_states
    assert len(sample) >= 300
    fn = compiled_value(policy.function, POLICY_SIGNATURE)
    illegal, wrote = check_policy(fn, sample, default_rules().tables, params, 1)
    assert (illegal, wrote) == (0, 0)


@pytest.mark.parametrize("name", ["designers-heuristic", "planner", "tuned"])
def test_whole_games_under_each_policy_end_without_a_policy_error(name):
    r = run_games(60, 3, 4, [name, "random", name, "greedy"])
    assert set(r.final[:, S.G_END_REASON].tolist()) <= {1, 2}


def test_a_policy_seed_never_changes_the_dice_of_a_fixed_action_sequence():
    """The game's dice depend on its seed and the actions only: a fixed action sequence gives
    the same game whether or not policies with various seeds drew and rolled out in between."""
    chars = ["ironLung", "routeReader", "technician"]
    codes = Game(9, chars)._policy_actions("random", None, 100_000)
    plain = Game(9, chars)
    for code in codes:
        plain.step(code)
    busy = Game(9, chars)
    for i, code in enumerate(codes):
        if i % 25 == 0:
            busy.suggest("lookahead", params=CHEAP, policy_seed=i)
            busy.suggest("random", policy_seed=i + 1)
        busy.step(code)
    assert len(codes) > 100 and plain.is_over
    assert busy.transcript.to_jsonl() == plain.transcript.to_jsonl()


def test_lookahead_never_sees_the_real_future_dice():
    game = Game(5, ["technician", "sprinter", "ironLung", "freeSolo"])
    game.play("planner", max_actions=40)
    params = lookahead_params(4.0, 2.0, 40.0)
    decisions = set()
    for policy_seed in (1, 2, 3):
        first = game.suggest("lookahead", params=params, policy_seed=policy_seed)
        decisions.add(first)
        for rng_state in (1, 123456789, 4_000_000_000):
            game.state[S.G_RNG] = rng_state
            assert game.suggest("lookahead", params=params, policy_seed=policy_seed) == first


def test_tuned_reads_its_stored_vectors():
    from policies.all_in_ascent.planner import N_PLANNER_KNOBS, PLANNER_KNOBS
    from policies.all_in_ascent.tuned import TUNED_PATH, load_tuned, tuned_vector
    stored = json.loads(TUNED_PATH.read_text())["characters"]
    assert stored, "no tuned vectors are stored"
    vectors = load_tuned()
    params = get_policy(GAME, "tuned").default_params
    for key, entry in stored.items():
        c = CHARACTER_KEYS.index(key)
        expected = [entry["knobs"][k] for k in PLANNER_KNOBS]
        assert vectors[key] == expected
        assert list(params[c * N_PLANNER_KNOBS:(c + 1) * N_PLANNER_KNOBS]) == expected
        assert entry["command"].startswith("ascent tune --character " + key)
    assert np.array_equal(tuned_vector(vectors), params)


def test_tuned_rejects_a_malformed_file(tmp_path):
    from policies.all_in_ascent.tuned import load_tuned
    bad = tmp_path / "tuned.json"
    bad.write_text(json.dumps({"characters": {"wizard": {"knobs": {}}}}))
    with pytest.raises(ValueError, match="characters.wizard: unknown character"):
        load_tuned(bad)
    bad.write_text(json.dumps({"characters": {"sprinter": {"knobs": {"train_value": 1}}}}))
    with pytest.raises(ValueError, match="characters.sprinter.knobs: needs exactly"):
        load_tuned(bad)
    with pytest.raises(ValueError, match="cannot read the tuned knobs"):
        load_tuned(tmp_path / "missing.json")      # never silently the planner's defaults


def test_tune_runs_end_to_end_with_a_tiny_budget(tmp_path, monkeypatch, capsys):
    from sim.cli import main
    monkeypatch.chdir(tmp_path)
    assert main(["tune", "--character", "sprinter", "--players", "2", "--budget", "2",
                 "--games", "16", "--validation-games", "16", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out.split("\nstored")[0])
    assert result["validation"]["games"] == 16
    assert set(result["knobs"]) >= {"milestone_threshold", "train_value"}
    # CMA-ES asks whole generations of at least 4: the record says what was made
    assert result["budget"] == 2 and result["evaluations"] == 4
    # without --out the record and its finished evaluations go to a file named by the
    # settings, so that the same command resumes (an interrupted tuning kept nothing)
    # (and a hash of the code and data files, which the parts are kept for)
    record, = (p for p in (tmp_path / "results/tune").glob(
        "all-in-ascent-sprinter-p2-b2-g16-v16-s1-*.json") if not p.name.endswith(".parts.json"))
    assert json.loads(record.read_text()) == result
    parts = json.loads(record.with_name(record.name + ".parts.json").read_text())
    assert len(parts["evaluations"]) >= result["evaluations"]


def test_an_interrupted_tuning_resumes_without_playing_a_finished_evaluation(
        tmp_path, monkeypatch, capsys):
    """`ascent tune --out` keeps each finished evaluation in OUT.parts.json: an interrupted
    tuning lost its whole search (a review found it). CMA-ES is seeded, so the same command asks
    the same candidates and plays only those not yet finished, with the same record."""
    from policies.all_in_ascent import tuning
    from sim.cli import main
    out = tmp_path / "sprinter.json"
    args = ["tune", "--character", "sprinter", "--players", "2", "--budget", "8", "--games",
            "12", "--validation-games", "12", "--quiet", "--out", str(out)]
    real = tuning.character_wins
    played = []

    def stop_after(n):
        def wins(*a, **k):
            if len(a[3]) == 12:         # an evaluation (the compile's throw-away game: 1)
                if len(played) == n:
                    raise KeyboardInterrupt
                played.append(a[1])
            return real(*a, **k)
        return wins
    monkeypatch.setattr(tuning, "character_wins", stop_after(5))
    assert main(args) == 130 and not out.exists()
    saved = json.loads((tmp_path / "sprinter.json.parts.json").read_text())["evaluations"]
    assert len(saved) == 5
    played.clear()
    monkeypatch.setattr(tuning, "character_wins", stop_after(10**6))
    assert main(args) == 0
    resumed = json.loads(out.read_text())
    assert len(played) == resumed["evaluations"] + 2 - 5      # the rest, and the validation
    whole = tmp_path / "whole.json"
    assert main(args[:-1] + [str(whole)]) == 0
    assert {k: v for k, v in json.loads(whole.read_text()).items() if k != "date"} == \
        {k: v for k, v in resumed.items() if k != "date"}
    # other settings are refused, not mixed in
    capsys.readouterr()
    assert main(args[:8] + ["13"] + args[9:]) == 2
    assert "other games" in capsys.readouterr().err
    # and --out replaces only a tuning record
    spec = tmp_path / "spec.toml"
    spec.write_text("x = 1\n")
    assert main(args[:-1] + [str(spec)]) == 2 and spec.read_text() == "x = 1\n"
    assert "a file that is not a tuning record" in capsys.readouterr().err


def test_tune_compiles_with_the_compile_line_first(tune_compile):
    """`ascent tune` compiles as `ascent simulate` does (sim/core/compiling.py): the line with
    the tuning's bots, the kernel with `random` first, then one tuning game through the entry
    the tuning's games go through, before the first candidate is played."""
    from policies.all_in_ascent import tuning
    events = tune_compile("all-in-ascent", "sprinter", tuning, "play_fixed_games",
                          lambda a: list(a[3]))
    # two players: the tuned seat and one planner (the designers-heuristic opponent sits from
    # three players on)
    assert events[:6] == [("all-in-ascent", ["planner", "tuned"], True, 1),
                          "kernel", ["random", "random"], "bots", ["tuned", "planner"],
                          "compiled"]
    assert events[6:] and all(e in (["tuned", "planner"], ["planner", "tuned"])
                              for e in events[6:])


def test_a_pairing_where_one_side_wins_every_game_has_a_real_interval():
    """A normal interval on d = [A won] - [B won] gave +100.00 [+100.00, +100.00] where A won
    all 20,000 games and -99.98 [-100.01, -99.95] (below -100) where B won all but 2: the
    ladder now takes Tango's paired score interval, inside [-1, 1] and of nonzero width."""
    from sim.games.all_in_ascent.ladder import pairing_difference
    d, lo, hi, p = pairing_difference(20_000, 0, 20_000)
    assert d == 1.0 and hi == 1.0 and 0.999 < lo < 1.0 and p < 1e-300
    d, lo, hi, p = pairing_difference(2, 19_998, 20_000)
    assert -1.0 <= lo < d < hi < -0.999
    d, lo, hi, p = pairing_difference(300, 310, 1_000)       # a near tie: not significant
    assert lo < 0 < hi and p > 0.5
    d, lo, hi, p = pairing_difference(0, 0, 1_000)           # no game decided
    assert d == 0 and lo < 0 < hi and p == 1.0


def test_ladder_runs_end_to_end(tmp_path):
    from sim.cli import main
    out = tmp_path / "LADDER.md"
    assert main(["ladder", "--players", "2", "--games", "40", "--policies",
                 "random,designers-heuristic", "--out", str(out), "--quiet"]) == 0
    text = out.read_text()
    assert "| random | designers-heuristic |" in text
    assert "ascent ladder" in text
    # each policy's parity is its wins per seat: random leaves games to the round cap, which
    # every seat loses (the page said "Parity is 50.00%" for every policy)
    import re
    parity = re.search(r"Parity, a seat's wins over all its games .*: random ([\d.]+)%, "
                       r"designers-heuristic ([\d.]+)%\.", text)
    assert parity and float(parity.group(1)) < 50.0 and "Parity is" not in text


def test_a_ladder_compiles_its_bots_with_the_compile_line_first(tmp_path, monkeypatch):
    """`ascent ladder` compiles as `ascent simulate` does (sim/core/compiling.py): a line with
    the bots and the seconds, the kernel with `random` first, then a throw-away game through
    the games' own entry for every bot, seated two at a time here."""
    from sim.cli import main
    from sim.core import compiling
    from sim.games.all_in_ascent import protocol
    calls, seated = [], []
    real_play = protocol.play

    def recording_play(rules, n, seed, seats, *a, **k):
        seated.append(list(seats))
        return real_play(rules, n, seed, seats, *a, **k)

    def recording_compile_first(game, names, play_one, quiet=False, play_kernel=None,
                                threads=None):
        calls.append((game.name, list(names), quiet, threads))
        play_kernel()
        play_one()
        return 0.0

    monkeypatch.setattr(protocol, "play", recording_play)
    monkeypatch.setattr(compiling, "compile_first", recording_compile_first)
    assert main(["ladder", "--players", "2", "--games", "4", "--policies",
                 "random,designers-heuristic,greedy", "--threads", "1", "--out",
                 str(tmp_path / "LADDER.md"), "--quiet"]) == 0
    assert calls == [("all-in-ascent", ["random", "designers-heuristic", "greedy"], True, 1)]
    assert seated == [["random", "random"], ["random", "designers-heuristic"],
                      ["greedy", "greedy"]]


def test_an_interrupted_ladder_keeps_its_finished_pairings(tmp_path, monkeypatch):
    from sim.cli import main
    from sim.games.all_in_ascent import ladder
    out = tmp_path / "LADDER.md"
    args = ["ladder", "--players", "2", "--games", "30", "--policies",
            "random,designers-heuristic,greedy", "--out", str(out), "--quiet"]
    real_self_play = ladder.self_play

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(ladder, "self_play", interrupted)
    assert main(args) == 130                              # after all three pairings
    parts = json.loads((tmp_path / "LADDER.md.parts.json").read_text())["parts"]
    assert sorted(parts) == ["pairing designers-heuristic greedy",
                             "pairing random designers-heuristic", "pairing random greedy"]
    played = []
    monkeypatch.setattr(ladder, "self_play", real_self_play)
    monkeypatch.setattr(ladder, "play_pairing", lambda *a, **k: played.append(a))
    assert main(args) == 0 and played == []                # nothing played twice
    whole = tmp_path / "whole.md"
    monkeypatch.undo()
    assert main(args[:-3] + ["--out", str(whole), "--quiet"]) == 0
    table = [line for line in out.read_text().splitlines() if line.startswith("| ")]
    assert table == [line for line in whole.read_text().splitlines() if line.startswith("| ")]
    # other settings are refused, not mixed in
    assert main(args[:4] + ["31"] + args[5:]) == 2


def test_a_ladder_without_out_keeps_its_pairings_where_the_same_command_finds_them(
        tmp_path, monkeypatch, capsys):
    """Without --out a ladder kept nothing: interrupted, it had to play every pairing again.
    Its table and parts now go to a file named by its settings, which the same command
    resumes from; the table is still printed."""
    from sim.cli import main
    from sim.games.all_in_ascent import ladder
    monkeypatch.chdir(tmp_path)
    args = ["ladder", "--players", "2", "--games", "30", "--policies",
            "random,designers-heuristic,greedy"]
    real_self_play = ladder.self_play

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(ladder, "self_play", interrupted)
    assert main(args) == 130                              # after all three pairings
    folder = tmp_path / "results/ladder"
    parts_file, = folder.glob("all-in-ascent-p2-g30-s1-*.md.parts.json")
    assert f"finished pairings to {parts_file.relative_to(tmp_path)}" in capsys.readouterr().err
    table = parts_file.with_name(parts_file.name[:-len(".parts.json")])
    assert len(json.loads(parts_file.read_text())["parts"]) == 3 and not table.exists()
    played = []
    monkeypatch.setattr(ladder, "self_play", real_self_play)
    real_play_pairing = ladder.play_pairing
    monkeypatch.setattr(ladder, "play_pairing", lambda *a, **k: played.append(a))
    assert main(args + ["--quiet"]) == 0 and played == []     # nothing played twice
    printed = capsys.readouterr().out
    assert "| random | designers-heuristic |" in printed and printed.strip() == \
        table.read_text().strip()
    # other rules (or bots, code, data files) get a file of their own, not a refusal to run
    monkeypatch.setattr(ladder, "play_pairing", real_play_pairing)
    assert main(args + ["--quiet", "--preset", "v0.5.0"]) == 0
    assert len(list(folder.glob("*.md"))) == 2


def test_a_ladder_does_not_reuse_the_pairings_of_other_bots_or_share_its_file(
        tmp_path, monkeypatch, capsys):
    """Pairings saved before `ascent tune --store` rewrote tuned.json (or before an engine
    fix) were reused, and the ladder printed the old bots' verdict. And two ladders into one
    --out both played every pairing, the later one dropping the other's from the file."""
    import sim
    from sim.cli import main
    from sim.core.output import folder_lock
    out = tmp_path / "LADDER.md"
    args = ["ladder", "--players", "2", "--games", "6", "--policies", "random,greedy",
            "--out", str(out), "--quiet"]
    assert main(args) == 0
    capsys.readouterr()
    real_data_key = sim.package_data_key
    monkeypatch.setattr(sim, "package_data_key", lambda *a, **k: "retuned")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "other data files" in err and "\n" not in err.strip()
    monkeypatch.setattr(sim, "package_data_key", real_data_key)
    assert main(args) == 0
    # keyed on the code that plays the game, as a run folder: an edit elsewhere (a report)
    # keeps the finished pairings, an engine or bot edit does not
    monkeypatch.setattr(sim, "code_key", lambda: "a report edited")
    assert main(args) == 0
    monkeypatch.setattr(sim, "play_code_key", lambda game: "an engine fix")
    assert main(args) == 2 and "other code" in capsys.readouterr().err
    monkeypatch.undo()
    with folder_lock(out):
        assert main(args) == 2
    assert "another ascent run is writing" in capsys.readouterr().err
    (tmp_path / ".LADDER.md.tmp-99999").write_text("half a table")    # a killed write's
    assert main(args) == 0 and not list(tmp_path.glob(".LADDER.md.tmp-*"))


def _gaps_from_r52(st, t, seat, rid, gaps):
    """stat_gaps worked out from the engine's R52 at each call (requirements_after_dice with no
    die, then each effect's applied modifier times a die's mean), as the planner did before the
    rules packed R52 with no die: the expected requirement less the stats without this round's
    redistribution shift, at least 0; the total leaves out the largest gaps the character need
    not meet (R53)."""
    from sim.games.all_in_ascent.engine import (
        pbase, requirements_after_dice, stats_needed)
    from sim.games.all_in_ascent.probability import attempt_effective_stats
    b = pbase(seat)
    c = st[b + S.P_CHARACTER]
    trace = S.new_trace()
    requirements_after_dice(t, c, st[b + S.P_GEAR], rid, trace[:0], np.int64(0), trace)
    expected = trace[S.T_REQ:S.T_REQ + S.N_STATS].astype(float)
    for i in range(trace[S.T_N_EFFECTS]):
        expected[trace[S.T_EFFECT_STAT + i]] += 3.5 * trace[S.T_EFFECT_MOD + i]
    stats = np.array(attempt_effective_stats(st, t, seat, rid, True)) - \
        st[b + S.P_REDIST:b + S.P_REDIST + S.N_STATS]
    gaps[:] = np.maximum(0.0, expected - stats)
    return float(np.sort(gaps)[:stats_needed(t, c)].sum())


@pytest.mark.parametrize("knobs", [(), ('gear."Trick Foot Manual".value=-3',
                                      'gear."Confidence Building".value=40',
                                      "characters.sprinter.passive.xp_percent=200")])
def test_the_planners_shortcuts_give_the_answers_of_the_full_computation(knobs, random_states):
    # R54: the planner's climb is the best expected XP per time unit, the earliest among
    # equals. It skips the success probability of a climb that cannot win even if sure to
    # succeed, and it works out the target milestone's gaps once; both must change nothing.
    # With a floor (the worth of training), the climbs that could not reach it even if sure to
    # succeed are not scored: the answer is the full one where it reaches the floor, and
    # otherwise every climb scores below the floor. The rules' attempt limits (R47, R54) skip
    # climbs first; knobs that move them must not change an answer either.
    from policies.all_in_ascent.helpers import expected_attempt_xp
    from policies.all_in_ascent.planner import (
        best_climb_by_xp_rate, stat_gaps, target_tier)
    from sim.games.all_in_ascent.engine import action_route, effective_time, pbase
    from sim.games.all_in_ascent.rules import build_rules
    t = build_rules(knobs=list(knobs)).tables
    legal = np.empty(S.N_ACTIONS, np.int64)
    stream = np.zeros(1, np.uint64)
    climbs_compared = skipped_somewhere = 0
    reached = {True: 0, False: 0}       # climbs legal: the answer with a floor reached it or not
    for st in random_states[::3]:
        n = legal_actions(st, t, legal)
        seat = np.int64(st[S.G_CURRENT])
        ctx = PolicyContext(st, seat, legal, np.int64(n), t, stream,
                            np.zeros(MAX_POLICY_PARAMS), np.zeros(WORK_SIZE, np.int64))
        want, want_score, scored = -1, 0.0, 0
        for a in legal[:n]:
            if S.CLIMB <= a < S.MILESTONE:
                rid = action_route(st, a)
                score = expected_attempt_xp(st, t, seat, rid, False, ctx.work)[1] / \
                    effective_time(st, t, seat, rid)
                scored += 1
                if score > want_score:
                    want, want_score = int(a), score
        got, got_score = best_climb_by_xp_rate(ctx, 0.0)
        assert (got, got_score) == (want, want_score)
        climbs_compared += scored
        skipped_somewhere += scored > 1
        for floor in (1.0, 5.0, 20.0, 50.0):
            got, got_score = best_climb_by_xp_rate(ctx, floor)
            if got_score >= floor:
                assert (got, got_score) == (want, want_score)
            else:
                assert want_score < floor
            if scored:
                reached[got_score >= floor] += 1
        gaps = np.empty(S.N_STATS)
        tier = target_tier(st, t, seat, gaps)
        done = st[pbase(seat) + S.P_DONE]
        for k in range(S.N_TIERS):          # the gaps read R52 with no die as it is packed
            rid = st[S.G_MILESTONES + k]
            packed, by_hand = np.empty(S.N_STATS), np.empty(S.N_STATS)
            assert stat_gaps(st, t, seat, rid, packed) == _gaps_from_r52(st, t, seat, rid, by_hand)
            assert np.array_equal(packed, by_hand)
        totals = {k: stat_gaps(st, t, seat, st[S.G_MILESTONES + k], np.empty(S.N_STATS))
                  for k in range(S.N_TIERS) if not (done >> k) & 1}
        assert tier == (min(totals, key=lambda k: (totals[k], k)) if totals else -1)
        if tier >= 0:
            again = np.empty(S.N_STATS)
            stat_gaps(st, t, seat, st[S.G_MILESTONES + tier], again)
            assert np.array_equal(gaps, again)
    assert climbs_compared > 1000 and skipped_somewhere > 100
    assert reached[True] > 100 and reached[False] > 100, reached


def test_the_planners_climb_skip_reads_the_movers_own_attempt_limits(random_states):
    # R47, R54: the planner's skip reads the attempt limits of the deciding player's character
    # (engine.attempt_limits, one row per character). With every other character's row made
    # useless (ceiling 0), the answers stay the full ones; with the mover's own row at 0, every
    # climb is skipped.
    from policies.all_in_ascent.helpers import expected_attempt_xp
    from policies.all_in_ascent.planner import best_climb_by_xp_rate
    from sim.games.all_in_ascent.engine import action_route, effective_time, pbase
    from sim.games.all_in_ascent.rules import (
        F_ROUTE_TIME_FLOOR, F_ROUTE_XP_CEILING, PARAM_N_ROUTES)
    t = default_rules().tables
    n_routes = t[PARAM_N_ROUTES]
    legal = np.empty(S.N_ACTIONS, np.int64)
    stream = np.zeros(1, np.uint64)
    checked = {True: 0, False: 0}
    for st in random_states[::5]:
        n = legal_actions(st, t, legal)
        seat = np.int64(st[S.G_CURRENT])
        c = st[pbase(seat) + S.P_CHARACTER]
        climbs = [a for a in legal[:n] if S.CLIMB <= a < S.MILESTONE]
        if not climbs:
            continue
        want, want_score = -1, 0.0
        work = np.zeros(WORK_SIZE, np.int64)
        for a in climbs:
            rid = action_route(st, a)
            score = expected_attempt_xp(st, t, seat, rid, False, work)[1] / \
                effective_time(st, t, seat, rid)
            if score > want_score:
                want, want_score = int(a), score
        for own_row in (False, True):
            zeroed = t.copy()
            for other in range(len(CHARACTER_KEYS)):
                if (other == c) == own_row:
                    rows = slice(other * n_routes, (other + 1) * n_routes)
                    zeroed[t[F_ROUTE_XP_CEILING]:][rows] = 0
                    zeroed[t[F_ROUTE_TIME_FLOOR]:][rows] = 1
            ctx = PolicyContext(st, seat, legal, np.int64(n), zeroed, stream,
                                np.zeros(MAX_POLICY_PARAMS), work)
            got = best_climb_by_xp_rate(ctx, 0.0)
            assert got == ((-1, 0.0) if own_row else (want, want_score))
            checked[own_row] += want >= 0
    assert checked[True] > 50 and checked[False] > 50, checked


@pytest.mark.parametrize("train_value", [0.0, 5.0, 20.0, 60.0])
def test_the_planner_trains_or_climbs_as_scoring_every_climb_would(train_value, random_states):
    # Steps 5-6 of the planner, read against every climb scored (floor 0): it trains only where
    # training is worth more than the best climb and a training helps (best_training); a climb
    # it picks is the best climb. This covers the path where the floor skipped climbs, no
    # training helped, and the skipped climbs had to count after all.
    from policies.all_in_ascent.planner import (
        PLANNER_DEFAULTS, TRAIN_VALUE, best_climb_by_xp_rate, best_training,
        training_toward_a_climb)
    planner = get_policy(GAME, "planner").function       # plan() with the knobs in ctx.params
    t = default_rules().tables
    p = np.array(PLANNER_DEFAULTS)
    p[TRAIN_VALUE] = train_value
    legal = np.empty(S.N_ACTIONS, np.int64)
    stream = np.zeros(1, np.uint64)
    trained = climbed_after_no_gap = 0
    for st in random_states[::2]:
        n = legal_actions(st, t, legal)
        ctx = PolicyContext(st, np.int64(st[S.G_CURRENT]), legal, np.int64(n), t, stream, p,
                            np.zeros(WORK_SIZE, np.int64))
        chosen = planner(ctx)
        can_train = any(S.TRAIN <= a < S.CLIMB for a in legal[:n])
        best_climb, best_score = best_climb_by_xp_rate(ctx, 0.0)
        training = best_training(ctx) if can_train else -1
        if S.TRAIN <= chosen < S.CLIMB:
            by_value = train_value > best_score and chosen == training
            # step 7: no climb at all, so toward the one the sure-routes guarantee forbids
            toward = best_climb < 0 and not (train_value > best_score and training >= 0) \
                and chosen == training_toward_a_climb(ctx)
            assert by_value or toward
            trained += by_value
        elif S.CLIMB <= chosen < S.MILESTONE:
            assert chosen == best_climb
            assert not (can_train and train_value > best_score and training >= 0)
            climbed_after_no_gap += can_train and train_value > best_score
    assert trained > 0 or train_value == 0.0
    if train_value >= 20.0:             # from there, these states take the path above
        assert climbed_after_no_gap > 0


def test_a_stat_that_passes_at_every_roll_gains_nothing_from_more(random_states):  # R52
    """probability.sure_stats, which the planner's training choice skips by: more of a stat it
    names leaves every milestone's odds as they are, and the stats it leaves out include some
    whose rise does move them (so the check can tell the two apart)."""
    from sim.games.all_in_ascent.engine import pbase
    from sim.games.all_in_ascent.probability import climb_success_probability, sure_stats
    t = default_rules().tables
    named = moved = 0
    for st in random_states[::15]:
        seat = int(st[S.G_CURRENT])
        for tier in range(S.N_TIERS):
            rid = st[S.G_MILESTONES + tier]
            sure = sure_stats(st, t, seat, rid, True)
            now = climb_success_probability(st, t, seat, rid, True)
            for s in range(S.N_STATS):
                trial = st.copy()
                trial[pbase(seat) + S.P_TRAINING + s] += 4
                after = climb_success_probability(trial, t, seat, rid, True)
                if (sure >> s) & 1:
                    assert after == now
                    named += 1
                else:
                    moved += after != now
    assert named > 20 and moved > 20, (named, moved)


@pytest.mark.parametrize("edit", ["drop a_wins", "a_wins 99", "self-play text"])
def test_a_damaged_saved_pairing_is_refused_in_one_line(tmp_path, capsys, edit):
    """A parts file with the right settings but an entry not as the ladder writes it gave a
    traceback (a field missing, a self-play entry not (games, wins)), or a win rate of 2475%."""
    from sim.cli import main
    out = tmp_path / "LADDER.md"
    args = ["ladder", "--players", "2", "--games", "4", "--policies", "random,greedy",
            "--out", str(out), "--quiet"]
    assert main(args) == 0
    parts_file = tmp_path / "LADDER.md.parts.json"
    saved = json.loads(parts_file.read_text())
    pairing = saved["parts"]["pairing random greedy"]
    if edit == "drop a_wins":
        del pairing["a_wins"]
    elif edit == "a_wins 99":
        pairing["a_wins"] = 99
    else:
        saved["parts"]["self-play random"]["technician"] = "x"
    parts_file.write_text(json.dumps(saved))
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not as a ladder writes it" in err and str(parts_file) in err


def test_a_ladder_out_that_cannot_be_made_names_the_option(monkeypatch, capsys):
    """A folder whose permission bits allow writing may still refuse a new folder (/proc, as
    root, passes the check before any game): the lock's error names --out, in one line."""
    from sim.cli import main
    monkeypatch.setattr("sim.cli.os.access", lambda *args: True)     # as root would answer
    assert main(["ladder", "--players", "2", "--games", "2", "--policies", "random,greedy",
                 "--out", "/proc/ascent-no-such-folder/LADDER.md", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ascent: error: --out: /proc/ascent-no-such-folder: cannot write") and \
        "\n" not in err, err
