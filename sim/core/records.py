"""Helpers every game's record builder (sim/games/<game>/records.py) shares: the columns every
games table starts with (sim/core/game.py GAMES_COLUMNS), the per-seat table built one seat at a
time, and the categorical columns.

The tables are pyarrow Tables, built without pandas: `ascent simulate` streams them to parquet
as they are, and its warm start does not pay pandas' import (0.2 s of the 1 s issue 22 allows).
`Played.games` reads them as DataFrames for everything else. A categorical column is
dictionary-encoded with the code width pandas gives the same categories, so a table reads back
as it did when the builders made DataFrames.

pyarrow imports pandas, when it is installed, the first time it converts a numpy array or a
Python value (pyarrow.array, to_numpy): it checks whether the value is a pandas object. So
numpy goes in through pyarrow.Array.from_buffers and comes out through DLPack, which hand over
the memory in Arrow's layout and check nothing of the kind."""
import numpy as np


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


def code_width(n_categories):
    """The code type pandas keeps for that many categories (pandas.Categorical's codes)."""
    for dtype in (np.int8, np.int16, np.int32):
        if n_categories < np.iinfo(dtype).max:
            return dtype
    return np.int64


def arrow_array(values, present=None):
    """A 1-D numpy array of numbers or booleans in the machine's byte order (what the builders
    make) as a pyarrow Array; `present` (booleans, optional) marks the rows that hold a value,
    the others are missing."""
    import pyarrow as pa
    values = np.ascontiguousarray(values)
    if values.ndim != 1 or values.dtype.kind not in "biuf" or not values.dtype.isnative:
        raise ValueError(f"arrow_array: takes a 1-D array of numbers or booleans in native "
                         f"byte order, not {values.dtype} of shape {values.shape}")
    validity = None if present is None or present.all() else _bit_buffer(present)
    if values.dtype == np.bool_:
        return pa.Array.from_buffers(pa.bool_(), len(values), [validity, _bit_buffer(values)])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [validity, pa.py_buffer(values)])


def _bit_buffer(flags):
    """Booleans as an Arrow bitmap: eight to a byte, least significant bit first."""
    import pyarrow as pa
    return pa.py_buffer(np.packbits(flags, bitorder="little"))


def _bits(buffer, start, n):
    """n booleans of an Arrow bitmap, from bit `start` (the array's offset)."""
    if n == 0:
        return np.zeros(0, bool)
    bits = np.frombuffer(buffer, np.uint8)[start // 8:(start + n + 7) // 8]
    return np.unpackbits(bits, bitorder="little")[start % 8:start % 8 + n].view(bool)


def arrow_strings(texts):
    """A list of str as a pyarrow string Array."""
    import pyarrow as pa
    encoded = [t.encode() for t in texts]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def categorical(name, codes, categories):
    """A categorical column: each row's index into `categories`, -1 for a missing value (as
    pandas.Categorical.from_codes). A code past the categories is a bug in the builder, not a
    value to hide."""
    import pyarrow as pa
    categories = [str(c) for c in categories]
    codes = np.asarray(codes)
    if codes.size and (codes.max() >= len(categories) or codes.min() < -1):
        raise ValueError(f"records column {name!r}: codes {codes.min()}..{codes.max()} for "
                         f"{len(categories)} categories {categories}")
    present = codes >= 0
    indices = arrow_array(np.where(present, codes, 0).astype(code_width(len(categories))),
                          present)
    return pa.DictionaryArray.from_arrays(indices, arrow_strings(categories))


def codes_of(name, values, keys):
    """Each value's position in `keys` (the engine's numbers behind a categorical column's
    categories, such as its end reasons). A value that is no key raises."""
    keys = np.asarray(keys)
    values = np.asarray(values)
    order = np.argsort(keys, kind="stable")
    at = np.minimum(np.searchsorted(keys[order], values), len(keys) - 1)
    found = keys[order][at] == values
    if not found.all():
        raise ValueError(f"records column {name!r}: values {sorted(set(values[~found].tolist()))} "
                         f"are none of {keys.tolist()}")
    return order[at]


def table(columns, categories):
    """A pyarrow Table of `columns` {name: array}, in their order; the columns named in
    `categories` {name: categories} hold codes into them (`categorical`)."""
    import pyarrow as pa
    return pa.Table.from_arrays(
        [categorical(name, values, categories[name]) if name in categories
         else arrow_array(values) for name, values in columns.items()], names=list(columns))


def seats_table(first_index, players, seat_columns, categories):
    """The per-seat table: one row per (game, seat) for every seat a game has, sorted by game
    then seat.

    `players` (n,) is each game's player count; `seat_columns(seat, rows)` returns the game's
    columns for that seat in the games where `rows` is true, after the shared `game` and
    `seat`; `categories` {column: categories} names its categorical columns, whose values are
    codes into them, fixed by the rules and not by the games of a chunk."""
    games = game_numbers(first_index, len(players))
    parts = []
    for seat in range(int(players.max(initial=0))):
        rows = players > seat
        parts.append({"game": games[rows], "seat": np.full(rows.sum(), seat, np.int8),
                      **seat_columns(seat, rows)})
    joined = {name: np.concatenate([np.asarray(p[name]) for p in parts]) for name in parts[0]}
    # (game, seat) pairs are distinct, so any sort gives the one order
    order = np.lexsort((joined["seat"], joined["game"]))
    return table({name: values[order] for name, values in joined.items()}, categories)


def values(table, name):
    """A column of a pyarrow Table (numbers or booleans, no missing value) as a numpy array."""
    import pyarrow as pa
    column = table.column(name)
    if column.null_count:
        raise ValueError(f"records column {name!r}: {column.null_count} missing values")
    if pa.types.is_boolean(column.type):
        # DLPack hands over whole bytes only, and a cast would import pyarrow.compute (20 ms
        # of a warm start): the bit buffer is read as it is
        parts = [_bits(chunk.buffers()[1], chunk.offset, len(chunk)) for chunk in column.chunks]
    else:
        parts = [np.from_dlpack(chunk) for chunk in column.chunks if len(chunk)]
    return np.concatenate(parts) if parts else np.zeros(0, column.type.to_pandas_dtype())


def category_codes(table, name):
    """A categorical column of a pyarrow Table as (codes, categories); -1 for a missing value."""
    import pyarrow as pa
    joined = table.column(name).combine_chunks()       # one dictionary for all the chunks
    indices, n = joined.indices, len(joined)
    if n == 0:
        return np.zeros(0, np.int64), joined.dictionary.to_pylist()
    validity, data = indices.buffers()
    # the codes without their validity (DLPack refuses an array with missing values)
    codes = np.from_dlpack(pa.Array.from_buffers(indices.type, n, [None, data],
                                                 offset=indices.offset)).astype(np.int64)
    if indices.null_count:
        codes[~_bits(validity, indices.offset, n)] = -1
    return codes, joined.dictionary.to_pylist()


def category_rows(table, name):
    """(category, its rows as booleans) for each category of a categorical column that some row
    reads, in the categories' order (pandas' groupby(observed=True))."""
    codes, categories = category_codes(table, name)
    rows = [(category, codes == code) for code, category in enumerate(categories)]
    return [(category, read) for category, read in rows if read.any()]


def label_counts(table, name):
    """{category: how many rows read it} for every category of a categorical column."""
    codes, categories = category_codes(table, name)
    counts = np.bincount(codes[codes >= 0], minlength=len(categories))
    return dict(zip(categories, counts.tolist()))
