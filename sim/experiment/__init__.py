"""Experiments: TOML specs (spec.py), chunked resumable runs on joblib or Dask (runner.py), and
paired comparisons between variants that play the same games (paired.py)."""
