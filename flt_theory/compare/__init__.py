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
:mod:`.count`               counts against a binomial law (exact Clopper–Pearson intervals), a majority of seeds
:mod:`.family`              p-values of checks, Holm's procedure, per-claim levels
:mod:`.ladder`              the trend of an estimate along growing sizes (finite-size or persisting)
:mod:`.limit`               a law about a limit: effective exponents along a ladder, extrapolated with corrections
                            to scaling (:func:`check_limit_power_law`)
:mod:`.straddle`            undecided verdicts: a failing interval that straddles its bound, and the seeds to decide it
:mod:`.verdict`             the one verdict decision: pass / fail / inconclusive of a comparison and of a claim,
                            at a level
==========================  ==================================================================

Bounded quantities (masses, error rates, fractions, ratios) get intervals inside their range:
``bounds=(low, high)`` in :func:`mean_ci`, :func:`check_at_least`, :func:`check_at_most`
(default: none assumed), inferred as (0, 1) by the subspace checks (a mass is in [0, 1] by
definition), exact in :func:`check_count`. Checks whose law is the null hypothesis report
``details["p_value"]`` so that a family of claims can be held at one level (:mod:`.family`).
"""

from .bootstrap import MIN_BOOTSTRAP_SEEDS, Estimate, bootstrap_groups, bootstrap_statistic, mean_ci
from .count import assert_count, assert_majority, binomial_p_value, check_count, check_majority, clopper_pearson
from .family import holm, holm_adjusted, p_value_by_inversion, per_claim_level
from .inequality import (
    assert_at_least,
    assert_at_most,
    assert_every_at_most,
    assert_ordering,
    check_at_least,
    check_at_most,
    check_every_at_most,
    check_ordering,
)
from .ladder import ladder_trend
from .limit import (
    LimitFit,
    as_rungs,
    assert_limit_power_law,
    assert_limit_power_law_2d,
    check_limit_power_law,
    check_limit_power_law_2d,
    effective_exponent_bounds,
    effective_exponents,
    fit_limit,
    grid_ladders,
    grid_rungs,
)
from .power_law import (
    PowerLawFit,
    assert_power_law,
    assert_power_law_2d,
    check_power_law,
    check_power_law_2d,
    fit_power_law,
    fit_power_law_2d,
    fit_resolution_bound,
)
from .result import CheckResult, all_of, assert_check, assert_fails, fmt, fmt_ci, make_assert
from .straddle import Side, seeds_to_decide, seeds_to_reject, straddling_sides
from .subspace import assert_not_learned, assert_subspace_learned, check_not_learned, check_subspace_learned
from .transition import NoCrossingError, assert_transition, check_transition, crossing_point, curves_crossing
from .verdict import ClaimDecision, Verdict, decide, decide_claim

__all__ = [
    "MIN_BOOTSTRAP_SEEDS",
    "CheckResult",
    "Estimate",
    "NoCrossingError",
    "PowerLawFit",
    "LimitFit",
    "assert_limit_power_law",
    "assert_limit_power_law_2d",
    "check_limit_power_law",
    "check_limit_power_law_2d",
    "effective_exponent_bounds",
    "as_rungs",
    "effective_exponents",
    "fit_resolution_bound",
    "fit_limit",
    "grid_ladders",
    "grid_rungs",
    "assert_at_least",
    "assert_at_most",
    "assert_every_at_most",
    "all_of",
    "assert_check",
    "assert_count",
    "assert_majority",
    "assert_fails",
    "assert_not_learned",
    "assert_ordering",
    "assert_power_law",
    "assert_power_law_2d",
    "assert_subspace_learned",
    "assert_transition",
    "binomial_p_value",
    "bootstrap_groups",
    "bootstrap_statistic",
    "check_at_least",
    "check_at_most",
    "check_count",
    "check_not_learned",
    "check_every_at_most",
    "check_ordering",
    "check_power_law",
    "check_power_law_2d",
    "check_subspace_learned",
    "check_transition",
    "check_majority",
    "clopper_pearson",
    "crossing_point",
    "curves_crossing",
    "fit_power_law",
    "fit_power_law_2d",
    "fmt",
    "fmt_ci",
    "holm",
    "ladder_trend",
    "ClaimDecision",
    "Side",
    "Verdict",
    "decide",
    "decide_claim",
    "seeds_to_decide",
    "seeds_to_reject",
    "straddling_sides",
    "holm_adjusted",
    "make_assert",
    "mean_ci",
    "p_value_by_inversion",
    "per_claim_level",
]
