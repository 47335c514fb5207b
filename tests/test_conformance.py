"""One conformance suite for every registered game (sim/core/game.py): what shared code relies
on, checked the same way for each, the example game included. A new game passes these or does
not plug in.

Small runs of each game's cheapest bot (`random`) keep the suite fast; every game's default bot
is also played, since that is what `ascent simulate` runs when none is named."""
import numpy as np
import pandas as pd
import pytest

from sim.core.game import GAMES_COLUMNS, SEATS_COLUMNS, GameError, game_names, get_game
from sim.core.policies import policy_names

GAMES = game_names()


def rules_for(game, players):
    return game.build_rules(players)


def small_players(game):
    return 3 if 3 in game.players else min(game.players)


def test_the_built_in_games_and_the_example_are_registered():
    assert {"all-in-ascent", "ascension", "first-ascent"} <= set(GAMES)
    assert "dice-race" in GAMES, \
        "install the example game: pip install -e examples/dice_race (README's test command)"


@pytest.mark.parametrize("name", GAMES)
def test_spec_is_complete(name):
    game = get_game(name)
    assert game.name == name and game.title and game.players_rule
    assert game.default_policy in policy_names(name)
    assert "random" in policy_names(name)
    assert game.api.catalogue().strip()
    if game.has_characters:
        keys = game.character_keys()
        assert len(keys) >= max(game.players) and len(set(keys)) == len(keys)


@pytest.mark.parametrize("name", GAMES)
def test_a_game_with_a_search_bot_declares_what_it_searches_with(name):
    # issue 20: the search's view of a game (what it deals again, how it values a position) is
    # declared in the game's spec, and the bots with a budget search with that module
    from sim.core.policies import registered_policy
    game = get_game(name)
    budgeted = [p for p in policy_names(name)
                if registered_policy(name, p).budget_param is not None]
    if not game.search_module:
        assert not budgeted, f"{name}: search bots {budgeted} but no search_module in game.toml"
        return
    search = game.search
    assert callable(search.hide_future) and callable(search.evaluate)
    assert search.evaluate.__doc__        # what a position is worth, in words
    shared = [hasattr(search, f) for f in ("legal", "step", "mover")]
    assert all(shared) or not any(shared)     # the shared MCTS's three, or a game's own driver
    assert budgeted, f"{name}: a search module but no bot with a budget"
    # each search bot's module holds the declared module (it searches with what the spec names)
    import sys
    for bot in budgeted:
        function = registered_policy(name, bot).function
        module = sys.modules[getattr(function, "py_func", function).__module__]
        assert any(value is search for value in vars(module).values()), (name, bot)


@pytest.mark.parametrize("name", GAMES)
def test_record_tables_have_the_shared_columns_and_one_row_per_game_and_seat(name):
    game = get_game(name)
    players = small_players(game)
    played = game.api.play(rules_for(game, players), 12, 5, ["random"] * players, "random")
    assert set(GAMES_COLUMNS) <= set(played.games.columns)
    assert set(SEATS_COLUMNS) <= set(played.seats.columns)
    assert len(played.games) == 12 and len(played.seats) == 12 * players
    assert played.games["game"].tolist() == list(range(12))
    assert (played.games["players"] == players).all()
    # every game has 0 winners, 1, or (where a game allows shared wins) several; never more
    # than its seats; a game with one winner names its seat
    won = played.seats.groupby("game")["won"].sum()
    assert won.between(0, players).all()
    if "winner_seat" in played.games.columns:
        winners = played.games.set_index("game")["winner_seat"]
        assert winners.between(-1, players - 1).all()
        assert ((won > 0) == (winners >= 0)).all()
    for column in ("game", "seat"):
        assert played.seats[column].dtype.kind in "iu"


@pytest.mark.parametrize("name", GAMES)
def test_one_and_two_threads_and_any_chunking_play_the_same_games(name):
    """Principle 2: thread count and chunking never change a game, nor a column's type (a
    game 0 played alone is how `ascent simulate` compiles, and it keeps that game)."""
    game = get_game(name)
    players = small_players(game)
    rules = rules_for(game, players)
    seats = ["random"] * players
    whole = game.api.play(rules, 10, 77, seats, "random", threads=1)
    two = game.api.play(rules, 10, 77, seats, "random", threads=2)
    parts = [game.api.play(rules, n, 77, seats, "random", first_index=first, threads=2)
             for first, n in ((0, 1), (1, 2), (3, 7))]
    pd.testing.assert_frame_equal(whole.games, two.games)
    pd.testing.assert_frame_equal(whole.seats, two.seats)
    joined = parts[0].followed_by(parts[1]).followed_by(parts[2])
    # as tables written to a run's file, types included: a run's file is typed by its first
    # chunk, which on a cold run joins the compiling game 0 to the games after it
    for mine, theirs in zip(whole.arrow(), joined.arrow()):
        assert mine.schema == theirs.schema and mine.equals(theirs)


@pytest.mark.parametrize("name", GAMES)
def test_a_bots_context_type_survives_the_numba_cache(name):
    """numba's cache pickles a bot's signature, and with it the context namedtuple, by module
    and class name. A class not found under its own name in its module (say
    `PolicyContext = namedtuple("DiceRaceContext", ...)`) comes back from the cache as a copy,
    and every run after the first finds no compiled bot for its context. The signatures are
    read as declared, so the test compiles no bot (the other tests compile those they play)."""
    import sys

    from sim.core.policies import declared_signatures
    for policy in policy_names(name):
        for signature in declared_signatures(name, policy):
            for argument in signature:
                cls = getattr(argument, "instance_class", None)
                if cls is None:
                    continue
                module = sys.modules[cls.__module__]
                assert getattr(module, cls.__qualname__, None) is cls, \
                    f"{policy}: {cls.__module__} has no {cls.__qualname__} for its context class"


@pytest.mark.parametrize("name", GAMES)
def test_the_single_game_api_plays_the_kernels_games(name):
    """Principle 1: the kernel and the single-game API run the same rule code, so a game from
    a batch, replayed from its seed, seats and characters, ends the same way."""
    game = get_game(name)
    players = small_players(game)
    rules = rules_for(game, players)
    seats = [game.default_policy] + ["random"] * (players - 1)
    played = game.api.play(rules, 6, 21, seats, "random", rotate=game.rotate_seats)
    for row in played.games.itertuples():
        table = played.seats[played.seats["game"] == row.game].sort_values("seat")
        # a game that seats its characters outside the rules needs them named; one whose rules
        # draw them (First Ascent's F22) draws them again from the same seed
        characters = table["character"].astype(str).tolist() if game.replay_needs_characters \
            else "random"
        single = game.api.new_game(rules, row.seed, characters)
        single.play(table["policy"].astype(str).tolist())
        assert str(single.end_reason) == str(row.end_reason), row.game
        assert single.won_seats() == table["seat"][table["won"]].tolist(), row.game


def _seating(game, players):
    """The first `players` character keys, in order, that may sit at one table (the game's
    optional seating_error hook: First Ascent's two characters of a board never meet)."""
    problem = getattr(game.api, "seating_error", lambda keys: None)
    chosen = []
    for key in game.character_keys():
        if len(chosen) < players and not problem(chosen + [key]):
            chosen.append(key)
    return chosen


def _characters(game):
    return _seating(game, small_players(game)) if game.has_characters else "random"


@pytest.mark.parametrize("name", GAMES)
def test_random_play_through_the_api_keeps_the_shared_invariants(name):
    """OpenSpiel's basic test: random legal actions from the API, checking after every action
    that a running game offers a legal action, that an illegal code is refused with a reason
    and leaves the state untouched, and that a finished game offers and accepts nothing."""
    import random

    from sim.core.single_game import IllegalActionError
    game = get_game(name)
    players = small_players(game)
    rules = rules_for(game, players)
    if not hasattr(game.api.new_game(rules, 1, _characters(game)), "step"):
        # asked here, not at collection, where it would compile the game's setup in every
        # test worker
        pytest.skip(f"{name}: its single-game API plays whole games only (its engine asks "
                    f"its bots from inside the rules)")
    chooser = random.Random(name)
    for seed in (1, 2):
        single = game.api.new_game(rules, seed, _characters(game))
        actions = 0
        while not single.is_over:
            legal = single.legal_codes()
            assert legal, f"seed {seed}: no legal action after {actions} actions"
            if actions % 25 == 0:
                illegal = next(code for code in range(-1, 10_000) if code not in legal)
                before = single.state.copy()
                with pytest.raises(IllegalActionError) as refused:
                    single.step(illegal)
                assert len(str(refused.value)) > 15, str(refused.value)
                assert np.array_equal(single.state, before), "a refused action changed the state"
            single.step(chooser.choice(legal))
            actions += 1
            assert actions < 200_000, "the game did not end"
        assert single.end_reason
        assert all(0 <= seat < players for seat in single.won_seats())
        assert single.legal_codes() == [], single.legal_codes()
        with pytest.raises(IllegalActionError):
            single.step(0)


@pytest.mark.parametrize("name", GAMES)
def test_the_default_bot_plays_and_a_mixed_seating_rotates(name):
    game = get_game(name)
    players = min(game.players) if min(game.players) > 1 else 2
    seats = [game.default_policy] + ["random"] * (players - 1)
    rotate = game.rotate_seats
    played = game.api.play(rules_for(game, players), 4, 3, seats, "random", rotate=rotate)
    first_seat = played.seats[played.seats["seat"] == 0]["policy"].astype(str).tolist()
    assert first_seat[0] == game.default_policy
    if rotate:
        assert first_seat[1] != game.default_policy    # game 1 shifts every bot by one seat


@pytest.mark.parametrize("name", GAMES)
def test_bad_input_is_refused_with_one_line_naming_it(name):
    game = get_game(name)
    players = small_players(game)
    with pytest.raises(GameError, match="unknown policy 'no-such-bot'"):
        game.seat_policies("no-such-bot", None, players)
    with pytest.raises(GameError, match="--players"):
        game.check_players(max(game.players) + 1)
    with pytest.raises(GameError) as bad_rule:
        game.build_rules(players, rules={"no_such_rule": "1"})
    assert "no_such_rule" in str(bad_rule.value) and "\n" not in str(bad_rule.value)
    with pytest.raises(GameError, match="preset"):
        game.build_rules(players, preset="v99")
    if game.has_characters:
        with pytest.raises(GameError, match="distinct"):
            keys = game.character_keys()
            game.check_characters([keys[0]] * players, players)


@pytest.mark.parametrize("name", GAMES)
def test_simulate_writes_a_folder_the_report_reads(name, tmp_path, capsys):
    """`ascent simulate` then `ascent report`, through the protocol only."""
    from sim.cli import main
    game = get_game(name)
    players = small_players(game)
    out = tmp_path / "run"
    assert main(["simulate", "--game", name, "--players", str(players), "--games", "40",
                 "--seed", "2", "--policy", "random", "--out", str(out), "--quiet"]) == 0
    meta = __import__("json").loads((out / "manifest.json").read_text())
    assert meta["game"] == name and meta["record_schema_version"] == game.record_schema_version
    assert main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert game.title in page and "Bots:" in page
    assert main(["replay", "--game", name, "--players", str(players), "--seed", "4",
                 "--policy", "random"]
                + (["--characters", ",".join(_seating(game, players))]
                   if game.replay_needs_characters else [])) == 0
    assert capsys.readouterr().out.strip()


def test_no_game_is_named_in_shared_code():
    """Issue 19's acceptance: shared code asks the GameSpec, never `if game == ...`."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent / "sim"
    shared = [root / "cli.py", *(root / "experiment").rglob("*.py"),
              *(root / "report").rglob("*.py"), *(root / "core").rglob("*.py")]
    found = [f"{path.name}: {line.strip()}" for path in shared
             for line in path.read_text().splitlines()
             if re.search(r"game\s*[!=]=\s*[\"']", line)]
    assert not found, found


def test_a_registered_game_outside_the_project_is_in_the_numba_cache_key():
    """Its kernels are compiled against the core's functions: an edit to either must not run
    a stale cached kernel."""
    import sim
    names = {p.name for p in sim.plugin_key_files()}
    assert {"engine.py", "policies.py"} <= names


def test_presets_declared_in_the_spec_are_the_engines():
    from sim.games.all_in_ascent.rules import PRESETS
    assert get_game("all-in-ascent").presets == tuple(PRESETS)


def test_kernel_seed_rotation_helper_matches_every_games_rotation():
    from sim.core.batch import seat_rotation
    names, slots, chars = seat_rotation(["a", "b", "a"], 4, 1, True, 4, np.array([5, 6, 7]))
    assert names == ["a", "b"]
    assert slots[0, :3].tolist() == [0, 0, 1] and slots[0, 3] == -1    # game 1: shifted once
    assert chars[0, :3].tolist() == [7, 5, 6]


def test_a_plugin_that_cannot_load_is_named_and_left_out(monkeypatch, capsys):
    """A plug-in whose package is gone (metadata left behind) must not take every game down;
    asking for it by name says why it is missing."""
    import sim.core.game as G
    from importlib.metadata import EntryPoint
    gone = EntryPoint("gone-game", "no_such_package_xyz:GAME", G.ENTRY_POINT_GROUP)
    monkeypatch.setattr(G, "_entry_points", lambda: [gone, *_real_entry_points()])
    monkeypatch.setattr(G, "_GAMES", {})
    monkeypatch.setattr(G, "_BROKEN", {})
    assert "all-in-ascent" in G.game_names() and "gone-game" not in G.game_names()
    assert "gone-game" in capsys.readouterr().err
    with pytest.raises(GameError, match="no_such_package_xyz"):
        G.get_game("gone-game")


def _real_entry_points():
    from importlib.metadata import entry_points
    from sim.core.game import ENTRY_POINT_GROUP
    return list(entry_points(group=ENTRY_POINT_GROUP))


def test_a_command_a_game_does_not_have_says_so(capsys):
    from sim.cli import main
    assert main(["ladder", "--game", "ascension", "--games", "10"]) == 2
    assert "Ascension has no ladder yet" in capsys.readouterr().err
    assert main(["tune", "--game", "dice-race", "--character", "x", "--budget", "1"]) == 2
    assert "Dice Race has no tuning yet" in capsys.readouterr().err


def _declare(tmp_path, monkeypatch, name, text):
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "game.toml").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    import sys
    sys.modules.pop(name, None)      # an earlier case's package of the same name
    importlib.invalidate_caches()
    from sim.core.game import GameSpec
    return lambda: GameSpec.declared_in(name)


GOOD_DECLARATION = '''name = "tiny"
title = "Tiny"
players = [2]
players_rule = "T1"
rules_source = "RULES.md"
adapter = "tiny_adapter"
policy_modules = ["tiny_policies"]
default_policy = "random"
summary_columns = [["end_reason"], ["seat", "won"]]
'''


def test_a_game_declaration_is_read_from_its_game_toml(tmp_path, monkeypatch):
    spec = _declare(tmp_path, monkeypatch, "tiny_ok", GOOD_DECLARATION)()
    assert spec.name == "tiny" and spec.players == (2,) and spec.rotate_seats is True
    assert spec.summary_columns == (("end_reason",), ("seat", "won"))
    assert spec.summary_tables == "pandas"         # the default: a summary reads DataFrames
    hash(spec)      # frozen: arrays became tuples


@pytest.mark.parametrize("change, needle", [
    ('colour = "red"\n', "tiny_bad/game.toml: unknown key 'colour'; allowed: name, title"),
    ('rotate_seats = "yes"\n', "tiny_bad/game.toml: rotate_seats must be a TOML boolean"),
    ('summary_tables = "polars"\n',
     "tiny_bad/game.toml: summary_tables must be one of 'pandas', 'arrow', got 'polars'"),
    ("players = 2\n", None),     # a repeated key is a TOML error, named with the file
])
def test_a_wrong_game_declaration_names_the_file_and_the_key(tmp_path, monkeypatch, change,
                                                             needle):
    text = GOOD_DECLARATION + change
    with pytest.raises(GameError) as error:
        _declare(tmp_path, monkeypatch, "tiny_bad", text)()
    assert str(error.value).startswith("tiny_bad/game.toml: ")
    if needle:
        assert needle in str(error.value)
    assert "\n" not in str(error.value)


def test_a_spec_built_in_code_is_checked_too():
    from dataclasses import replace
    with pytest.raises(GameError, match="summary_tables must be one of 'pandas', 'arrow', got "
                                        "'Pandas'"):
        replace(get_game("ascension"), summary_tables="Pandas")


def test_a_game_declaration_missing_a_field_says_which(tmp_path, monkeypatch):
    text = GOOD_DECLARATION.replace('default_policy = "random"\n', "")
    with pytest.raises(GameError, match="tiny_gap/game.toml: default_policy is missing "
                                        r"\(a TOML string\)"):
        _declare(tmp_path, monkeypatch, "tiny_gap", text)()


def test_every_registered_game_is_declared_in_its_game_toml():
    import importlib
    for name in GAMES:
        spec = get_game(name)
        package = spec.adapter.rsplit(".", 1)[0]
        assert importlib.import_module(package).GAME == spec


@pytest.mark.parametrize("name", GAMES)
def test_a_run_compiles_only_the_bots_it_plays(name):
    """Issue 22: asking for one bot compiles that bot, not every bot of the game (a fresh
    process, so that no other test has asked for the rest)."""
    import json
    import subprocess
    import sys
    script = f"""
import json
from sim.core.policies import _REGISTRY, get_policy, policy_names
names = policy_names({name!r})
get_policy({name!r}, "random")
print(json.dumps({{n: len(_REGISTRY[({name!r}, n)].function.signatures) for n in names}}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    compiled = json.loads(out.strip().splitlines()[-1])
    assert compiled.pop("random") == 1
    assert compiled and not any(compiled.values()), compiled
