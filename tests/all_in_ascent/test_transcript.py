"""The play-by-play text says what the game played under its own rules, not the printed ones."""
from sim.games.all_in_ascent.game import Game
from sim.games.all_in_ascent.rules import build_rules


def _games_until(rules, wanted, seeds=range(1, 40)):
    """Transcripts of tuned games with every character, until `wanted(events)` holds."""
    for seed in seeds:
        game = Game(seed, ["routeReader", "ironLung", "sprinter", "technician"], rules=rules)
        game.play("tuned")
        if wanted(game.transcript.events):
            return game
    raise AssertionError("no game in the seeds tried shows what the test reads")


def _attempts(events):
    return [ev for ev in events if "attempt" in ev]


def test_beta_boost_line_shows_the_rules_amount():
    # R39, R49 under the knob characters.routeReader.passive.beta_boost
    rules = build_rules("v0.4.0", knobs=["characters.routeReader.passive.beta_boost=7"])
    game = _games_until(rules, lambda evs: any(ev["attempt"]["beta_boost"]
                                               for ev in _attempts(evs)))
    text = game.transcript.to_text()
    assert "[Beta Boost +7]" in text
    assert "[Beta Boost +3]" not in text
    rests = [ev for ev in game.transcript.events if ev["action"]["kind"] == "rest"]
    assert all(ev.get("beta_boost", False) == (ev["character"] == "routeReader") for ev in rests)


def _power_tap_attempts(events):
    return [ev["attempt"] for ev in _attempts(events)
            if ev["attempt"]["dice"]["after_power_tap"] != ev["attempt"]["dice"]["after_reroll"]]


def test_power_tap_line_names_the_dice_the_switch_keeps():
    # R51.2 under the switch power_tap_keeps=best: the highest dice are kept, and said so
    rules = build_rules("v0.4.0", switches={"power_tap_keeps": "best"})
    game = _games_until(rules, _power_tap_attempts)
    for a in _power_tap_attempts(game.transcript.events):
        before, kept = a["dice"]["after_reroll"], a["dice"]["after_power_tap"]
        assert sorted(kept) == sorted(before)[len(before) - len(kept):]
    text = game.transcript.to_text()
    assert "-> keep highest" in text and "-> keep lowest" not in text
    plain = _games_until(build_rules("v0.4.0"), _power_tap_attempts).transcript.to_text()
    assert "-> keep lowest" in plain and "-> keep highest" not in plain
