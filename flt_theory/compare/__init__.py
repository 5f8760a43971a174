"""Comparators: measurements over seeds in, verdicts with uncertainty out (numpy + scipy only).

Every measurement carries its seeds as the leading axis, shape ``(seeds, ...)``; every interval is
a seeded bootstrap over seeds, calibrated for few seeds (:mod:`.bootstrap`); every
``check_*`` returns a :class:`CheckResult` and has an ``assert_*`` twin for pytest. Which side of
the interval decides each verdict is stated in :mod:`.result` and in each check's docstring.

==========================  ==================================================================
module                      object
==========================  ==================================================================
:mod:`.result`              :class:`CheckResult`, :func:`assert_check`, :func:`assert_fails`
:mod:`.bootstrap`           seeded bootstrap over seeds, :func:`mean_ci`
:mod:`.power_law`           :math:`y \\approx C x^b` (and :math:`C x_1^{b_1} x_2^{b_2}`)
:mod:`.transition`          threshold and sharpening of a phase transition
:mod:`.subspace`            learned / not-learned subspaces from masses
:mod:`.inequality`          one-sided bounds and orderings of regimes
==========================  ==================================================================
"""

from .bootstrap import MIN_BOOTSTRAP_SEEDS, Estimate, bootstrap_groups, bootstrap_statistic, mean_ci
from .inequality import (
    assert_at_least,
    assert_at_most,
    assert_ordering,
    check_at_least,
    check_at_most,
    check_ordering,
)
from .power_law import (
    PowerLawFit,
    assert_power_law,
    assert_power_law_2d,
    check_power_law,
    check_power_law_2d,
    fit_power_law,
    fit_power_law_2d,
)
from .result import CheckResult, assert_check, assert_fails, make_assert
from .subspace import assert_not_learned, assert_subspace_learned, check_not_learned, check_subspace_learned
from .transition import NoCrossingError, assert_transition, check_transition, crossing_point, curves_crossing

__all__ = [
    "MIN_BOOTSTRAP_SEEDS",
    "CheckResult",
    "Estimate",
    "NoCrossingError",
    "PowerLawFit",
    "assert_at_least",
    "assert_at_most",
    "assert_check",
    "assert_fails",
    "assert_not_learned",
    "assert_ordering",
    "assert_power_law",
    "assert_power_law_2d",
    "assert_subspace_learned",
    "assert_transition",
    "bootstrap_groups",
    "bootstrap_statistic",
    "check_at_least",
    "check_at_most",
    "check_not_learned",
    "check_ordering",
    "check_power_law",
    "check_power_law_2d",
    "check_subspace_learned",
    "check_transition",
    "crossing_point",
    "curves_crossing",
    "fit_power_law",
    "fit_power_law_2d",
    "make_assert",
    "mean_ci",
]
