import numpy as np
import pytest

from sim.core.stats import (Z95, fisher_exact_p, mcnemar_exact_p, paired_proportion_difference,
                            wilson_interval)


def test_wilson_interval_known_values_and_bounds():
    lo, hi = wilson_interval(50, 100)
    assert abs(lo - 0.4038) < 1e-4 and abs(hi - 0.5962) < 1e-4
    lo, hi = wilson_interval(0, 20000)
    assert lo == 0.0 and 0 < hi < 0.0003
    lo, hi = wilson_interval(np.array([0, 10]), np.array([10, 10]))
    assert lo[0] == 0.0 and hi[1] == 1.0


def test_wilson_interval_shapes_and_empty_groups():
    lo, hi = wilson_interval(3, 10)
    assert np.ndim(lo) == 0 and np.ndim(hi) == 0 and lo < 0.3 < hi
    lo, hi = wilson_interval(np.array([[0, 1], [2, 0]]), np.array([[5, 5], [5, 0]]))
    assert lo.shape == (2, 2) and np.isnan(lo[1, 1]) and np.isnan(hi[1, 1])
    assert lo[0, 0] == 0.0 and hi[1, 0] < 1.0
    assert np.isnan(wilson_interval(0, 0)).all()


def test_tango_interval_matches_the_published_example():
    # Fagerland, Lydersen & Laake (2014 / "Statistical Analysis of Contingency Tables", ch. 8):
    # Cavo et al. (2012), 161 patients, 6 responded only before and 16 only after consolidation:
    # Tango's asymptotic score interval for the difference is -0.0621 (-0.1240 to -0.0054).
    d, lo, hi = paired_proportion_difference(base_only=16, variant_only=6, n=161)
    assert round(d, 4) == -0.0621 and round(lo, 4) == -0.1240 and round(hi, 4) == -0.0054
    d2, lo2, hi2 = paired_proportion_difference(base_only=6, variant_only=16, n=161)
    assert (d2, lo2, hi2) == pytest.approx((-d, -hi, -lo), abs=1e-12)


def test_tango_interval_edges_and_arrays():
    d, lo, hi = paired_proportion_difference([0, 0, 3, 0], [0, 5, 0, 0], [10, 5, 3, 0])
    assert d[0] == 0 and lo[0] < 0 < hi[0]
    assert d[1] == 1.0 and hi[1] == 1.0                          # every unit changed to a win
    assert lo[1] == pytest.approx((5 - Z95 ** 2) / (5 + Z95 ** 2))
    assert d[2] == -1.0 and lo[2] == -1.0                        # n = 3 < z^2: hi is above 0
    assert hi[2] == pytest.approx(-(3 - Z95 ** 2) / (3 + Z95 ** 2))
    assert np.isnan([d[3], lo[3], hi[3]]).all()                  # n = 0
    with pytest.raises(ValueError):
        paired_proportion_difference(3, 3, 5)


def test_tango_interval_is_the_set_where_the_score_statistic_is_below_z():
    # Tango (1998): the interval is {d : |T(d)| <= z}, T(d) = (x - y - n d) / sqrt(n (2 q + d (1-d))),
    # q = (sqrt(B^2 - 4 A C) - B) / (2 A), A = 2n, B = -x - y + (2n - x + y) d, C = -y d (1 - d),
    # x = variant only, y = baseline only. Brute force on a grid of d against the root finder.
    def score(x, y, n, d):
        b = -x - y + (2 * n - x + y) * d
        q = (np.sqrt(np.maximum(b * b + 8 * n * y * d * (1 - d), 0)) - b) / (4 * n)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (x - y - n * d) / np.sqrt(n * (2 * q + d * (1 - d)))
    grid = np.linspace(-1, 1, 400_001)[1:-1]
    for x, y, n in [(3, 2, 9), (20, 3, 23), (4, 0, 5), (0, 1, 50), (7, 1, 21), (60, 45, 300)]:
        inside = grid[np.abs(score(x, y, n, grid)) <= Z95]
        _, lo, hi = paired_proportion_difference(y, x, n)
        assert lo == pytest.approx(inside.min(), abs=1e-5) and hi == pytest.approx(inside.max(), abs=1e-5)


def test_mcnemar_exact_matches_statsmodels_and_the_published_value():
    from statsmodels.stats.contingency_tables import mcnemar
    # Cavo et al. (2012) again: McNemar exact conditional test P = 0.052479 (Fagerland et al.)
    assert mcnemar_exact_p(16, 6) == pytest.approx(0.052479, abs=5e-7)
    for b, c in [(0, 0), (0, 1), (1, 9), (5, 5), (40, 20), (3, 0), (250, 300)]:
        ref = mcnemar([[0, b], [c, 0]], exact=True).pvalue
        assert mcnemar_exact_p(b, c) == pytest.approx(ref, rel=1e-12, abs=1e-300)
    assert mcnemar_exact_p(0, 0) == 1.0
    assert mcnemar_exact_p(np.array([1, 0]), np.array([9, 0])).shape == (2,)


def test_fisher_exact_p_shapes_and_degenerate_tables():
    from scipy.stats import fisher_exact
    assert fisher_exact_p(1, 10, 5, 10) == pytest.approx(fisher_exact([[1, 9], [5, 5]]).pvalue)
    p = fisher_exact_p(np.array([0, 0, 3, 4]), np.array([0, 10, 3, 4]), np.array([2, 0, 5, 0]),
                       np.array([9, 10, 5, 4]))
    assert p.tolist() == [1.0, 1.0, 1.0, pytest.approx(fisher_exact([[4, 0], [0, 4]]).pvalue)]
    assert fisher_exact_p([], [], [], []).shape == (0,)
    with pytest.raises(ValueError):
        fisher_exact_p(5, 3, 0, 3)


def test_a_printed_interval_never_shows_a_nonzero_bound_as_zero():
    """0 of 100,000 printed [0.00%, 0.00%]: the upper bound, 0.0038%, rounded away."""
    from sim.core.stats import rate_line
    assert "[ 0.00%, 0.0038%]" in rate_line("no winner", 0, 100_000)
    assert "[ 2.15%, 11.18%]" in rate_line("x", 5, 100)
    assert "[99.9962%, 100.00%]" in rate_line("all", 100_000, 100_000)
    from sim.report.first_screen import pct_interval
    assert pct_interval(1.0, 0.99962, 1.0) == "100.000% [99.962, 100.000]"
