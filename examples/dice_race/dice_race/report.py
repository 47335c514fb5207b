"""The Dice Race report: the shared first screen (seats, and bots at a mixed table), then how
long games run. Everything else comes from the shared page builder."""
from sim.report import first_screen as FS
from sim.report.bots import bot_line
from sim.report.render import first_screen, pct_ci, ranked_table, run_policies


def render(page, r, plt):
    sc = FS.seats_and_bots_screen(r)
    seat_rows = sc.family("seats").table
    mixed = r.seats["policy"].nunique() > 1
    ranked = sc.family("bots").table if mixed else seat_rows
    labels = [str(v) for v in ranked["policy"]] if mixed else \
        [f"Seat {int(v) + 1}" for v in ranked["seat"]]
    counts = sorted(r.games["players"].unique().tolist())
    changed = r.meta.get("rules_changed") or {}
    first_screen(
        page, f"Dice Race balance report: {r.label}",
        [f"{', '.join(map(str, counts))} players; rules: "
         f"{', '.join(f'{k}={v}' for k, v in changed.items()) or 'the defaults'}; master seed "
         f"{r.meta.get('master_seed', 'see experiment.json')}. "
         + FS.decided_line(r.games, r.seats)],
        bot_line("dice-race", run_policies(r)), ranked_table(ranked, labels),
        "Bots" if mixed else "Seats", FS.seat_advantage_lines(seat_rows, r.games, r.seats), sc)
    page.h(2, "Seats")
    page.table(seat_rows.assign(seat=seat_rows["seat"] + 1, win_share=pct_ci(seat_rows, "share"))[
        ["players", "seat", "n", "win_share", "parity", "p_screen"]], "dice_race_seats",
        {"parity": FS.pct, "p_screen": FS.fmt_p}, raw=seat_rows)
    page.h(2, "Game length")
    fig, ax = plt.subplots(figsize=(7, 3))
    turns = r.games["turns"]
    ax.hist(turns, bins=range(int(turns.min()), int(turns.max()) + 2), color="#6a8caf")
    ax.set_xlabel("turns")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    page.figure(fig, "dice_race_length")
    return f"Dice Race report: {r.label}"
