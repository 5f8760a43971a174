"""Size ladders: the trend of a deviation along growing sizes (finite-size effect or persisting)."""

import pytest

from flt_theory.compare import ladder_trend
from flt_theory.errors import InvalidParameterError


def _rungs(values, width=0.01, name="n"):
    return [{"size": {name: s}, "estimate": x, "ci": [x - width, x + width]} for s, x in values]


def test_a_deviation_that_shrinks_per_decade_is_a_finite_size_effect():
    trend = ladder_trend(_rungs([(10, 0.3), (100, 0.2), (1000, 0.1)]), size="n", literal=0.0)
    assert trend["slope_per_decade"] == pytest.approx(-0.1)
    assert trend["shrinking"] and not trend["persisting"]
    assert trend["deviation_next_decade"] == pytest.approx(0.0, abs=1e-12)
    assert trend["decades"] == pytest.approx(2.0)


def test_a_flat_deviation_persists_and_a_negative_one_shrinks_upward():
    flat = ladder_trend(_rungs([(10, -0.04), (100, -0.04), (1000, -0.041)]), size="n", literal=0.0)
    assert flat["persisting"] and not flat["shrinking"]
    rising = ladder_trend(_rungs([(10, -0.3), (100, -0.2), (1000, -0.1)]), size="n", literal=0.0)
    assert rising["shrinking"]


def test_noisy_rungs_decide_nothing():
    trend = ladder_trend(_rungs([(10, 0.01), (100, -0.01), (1000, 0.0)], width=0.5), size="n", literal=0.0)
    assert not trend["shrinking"] and not trend["persisting"]
    lo, hi = trend["slope_ci"]
    assert lo < 0 < hi


def test_bad_ladders_are_refused():
    with pytest.raises(InvalidParameterError, match="3 distinct sizes"):
        ladder_trend(_rungs([(10, 0.1), (10, 0.2), (100, 0.1)]), size="n", literal=0.0)
    with pytest.raises(InvalidParameterError, match="needs size"):
        ladder_trend(_rungs([(10, 0.1), (100, 0.2), (1000, 0.1)]), size="d", literal=0.0)
    with pytest.raises(InvalidParameterError, match="finite estimate"):
        ladder_trend([{"size": {"n": 10}, "estimate": float("nan"), "ci": [0, 1]}] * 3, size="n", literal=0.0)
