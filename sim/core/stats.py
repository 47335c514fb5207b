"""Intervals for rates and paired differences. Every rate we report carries n and a 95% interval."""
import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes, n, z=Z95):
    """Wilson score interval for a binomial proportion; works on scalars and arrays."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # the bounds lie in [0, 1] mathematically; clip the float rounding (no "-0.00%")
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
