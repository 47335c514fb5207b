import numpy as np

from sim.core.stats import wilson_interval


def test_wilson_interval_known_values_and_bounds():
    lo, hi = wilson_interval(50, 100)
    assert abs(lo - 0.4038) < 1e-4 and abs(hi - 0.5962) < 1e-4
    lo, hi = wilson_interval(0, 20000)
    assert lo == 0.0 and 0 < hi < 0.0003
    lo, hi = wilson_interval(np.array([0, 10]), np.array([10, 10]))
    assert lo[0] == 0.0 and abs(hi[1] - 1.0) < 1e-12
