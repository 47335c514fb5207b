"""Helpers every game's record builder (sim/games/<game>/records.py) shares: the columns every
games table starts with (sim/core/game.py GAMES_COLUMNS), and the per-seat table built one
seat at a time."""
import numpy as np
import pandas as pd


def column(records, index):
    """One field of every game's record, as int64 (records are int32 to save memory)."""
    return records[:, index].astype(np.int64)


def game_numbers(first_index, n):
    """The run's index of each of n games starting at first_index."""
    return np.arange(first_index, first_index + n, dtype=np.int64)


def rows_of(records, rows):
    """records[rows], as a view when every row is taken: a copy of a whole chunk's records per
    seat was the largest allocation of a chunk (58 MB at 50,000 All-In Ascent games)."""
    return records if rows.all() else records[rows]


def games_columns(first_index, seeds, players):
    """The first columns of every games table; a game adds its own after them (end_reason
    among them, where it reads best)."""
    return {"game": game_numbers(first_index, len(seeds)), "seed": seeds.astype(np.int64),
            "players": players}


def seats_table(first_index, players, seat_columns, categories):
    """The per-seat table: one row per (game, seat) for every seat a game has, sorted by game
    then seat.

    `players` (n,) is each game's player count; `seat_columns(seat, rows)` returns the game's
    columns for that seat in the games where `rows` is true, after the shared `game` and
    `seat`; `categories` {column: categories} fixes categorical columns after the seats are
    joined, so that dtypes never depend on which games a chunk holds."""
    games = game_numbers(first_index, len(players))
    frames = []
    for seat in range(int(players.max(initial=0))):
        rows = players > seat
        frames.append(pd.DataFrame({"game": games[rows],
                                    "seat": np.full(rows.sum(), seat, np.int8),
                                    **seat_columns(seat, rows)}))
    out = pd.concat(frames, ignore_index=True).sort_values(["game", "seat"], kind="stable")
    for name, allowed in categories.items():
        out[name] = pd.Categorical(out[name], categories=list(allowed))
    return out.reset_index(drop=True)
