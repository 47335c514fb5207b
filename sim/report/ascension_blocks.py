"""How many of the Ascension bots' blocks (A38) are their own doing.

    python -m sim.report.ascension_blocks --policy hybrid --games 1000 [--players 4]
        [--seed 1] [--rule NAME=VALUE ...]

A seat is blocked in its pawn phase when its pawn has no legal move (A38). In a turn, only
the seat's own moves come between its piece phase and its pawn phase (its piece move, and the
joker it may place), so a block in a turn whose pawn had a legal move when the turn began is
self-inflicted: the bot's own piece move took its last step away. Each game is played by the
kernel's bots (AscensionGame.bot_actions) and followed through the single-game API. The share
is given with its 95% interval, clustered by game (a game's blocks are not independent).
"""
import argparse
import sys

from sim.core.args import rule_changes
from sim.core.stats import clustered_rate_interval
from sim.games.ascension import state as S
from sim.games.ascension.game import AscensionGame
from sim.games.ascension.rules import build_rules


def game_blocks(seed, players, policy, rules):
    """(blocks, self-inflicted blocks) of one game with `policy` in every seat."""
    game = AscensionGame(seed, players, rules=rules)
    actions, _ = game.bot_actions([policy] * players)
    st = game.state
    blocks = own = 0
    turn, seat = game.turn_count, game.current
    blocks_then = int(st[S.S_BLOCKS + seat])
    had_a_step = None
    for code in actions:
        if had_a_step is None and int(st[S.G_PHASE]) == S.PHASE_ORIGIN:
            had_a_step = game.pawn(game.current) is not None and bool(game.pawn_moves())
        game.step(int(code))
        if game.turn_count != turn or game.is_over:
            blocked = int(st[S.S_BLOCKS + seat]) > blocks_then or not st[S.S_ACTIVE + seat]
            blocks += blocked
            own += blocked and bool(had_a_step)
            turn, seat = game.turn_count, game.current
            blocks_then = int(st[S.S_BLOCKS + seat])
            had_a_step = None
    return blocks, own


def self_block_share(policy, games, players=4, seed=1, switches=None):
    """(blocks, self-inflicted, share, lo, hi) over games seed .. seed + games - 1."""
    rules = build_rules(players, switches or {})
    counts = [game_blocks(seed + i, players, policy, rules) for i in range(games)]
    blocks = sum(b for b, _ in counts)
    own = sum(o for _, o in counts)
    share, lo, hi, _ = clustered_rate_interval([o for _, o in counts], [b for b, _ in counts])
    return blocks, own, share, lo, hi


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sim.report.ascension_blocks",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="hybrid")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games: at least 1, got {args.games}")
    try:
        switches, _ = rule_changes(args.rule, None, ValueError)
    except ValueError as exc:
        parser.error(str(exc))
    blocks, own, share, lo, hi = self_block_share(args.policy, args.games, args.players,
                                                  args.seed, switches)
    if blocks == 0:
        print(f"{args.policy}, {args.players} players, {args.games:,} games: no block")
        return 0
    print(f"{args.policy}, {args.players} players, {args.games:,} games (seeds {args.seed}.."
          f"{args.seed + args.games - 1}): {blocks:,} blocks, {own:,} of them self-inflicted "
          f"({100 * share:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}], clustered by game)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
