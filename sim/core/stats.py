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


def binomial_p_value(successes, n, p0):
    """Exact two-sided binomial test of a rate against p0 (scipy)."""
    from scipy.stats import binomtest
    return float(binomtest(int(successes), int(n), float(p0)).pvalue) if n > 0 else 1.0


def holm(p_values):
    """Holm-adjusted p-values (statsmodels), in the order given."""
    from statsmodels.stats.multitest import multipletests
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return p
    return multipletests(p, method="holm")[1]


def two_proportion_p_value(wins_a, n_a, wins_b, n_b):
    """Two-sided z test for two independent proportions (statsmodels)."""
    from statsmodels.stats.proportion import proportions_ztest
    if min(n_a, n_b) == 0:
        return 1.0
    if wins_a + wins_b in (0, n_a + n_b):
        return 1.0
    return float(proportions_ztest([wins_a, wins_b], [n_a, n_b])[1])
