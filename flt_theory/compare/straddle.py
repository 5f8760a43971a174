r"""Undecided verdicts: a failed check whose every failing interval straddles its bound.

The checks with a margin (:mod:`~.compare.subspace`, :func:`~.inequality.check_ordering`, ``mode="demonstrated"`` in
:mod:`.inequality`) FAIL unless the whole confidence interval lies on the claimed side. A failure can mean two
things: the interval lies wholly on the wrong side (the data exclude the law: **fail**), or it contains the bound
(the data cannot tell: **inconclusive**). :func:`straddling_sides` tells them apart from a
:class:`~.result.CheckResult`, also a conjunction (:func:`~.result.all_of`, read through ``details["parts"]``), and
:func:`seeds_to_decide` says how many seeds would decide an undecided one; the verdict itself is
:func:`flt_theory.compare.verdict.decide` (the one decision of every surface). An interval's half-width
:math:`w` shrinks like :math:`1/\sqrt{S}` over :math:`S` seeds, so the one that straddles a bound :math:`b` at
distance :math:`|\hat v - b|` from its estimate :math:`\hat v` excludes (or clears) it at about

.. math:: S^* = \lceil S\,(w/|\hat v - b|)^2\rceil

seeds (the observed spread held fixed; :math:`w` is the half-width on the bound's side, so an asymmetric
interval is read on the side that matters). At :math:`S^*` the expected half-width equals the gap, so about half of
fresh data sets decide; :math:`2S^*` decide most (≥ 75% of 40 in tests/compare/test_compare_straddle.py). An
estimate on the bound itself cannot be decided by seeds.

Checks whose law is the null hypothesis (``mode="consistent"``, power laws, transitions) fail only when the data
exclude the law: their failures are always decided.

>>> from flt_theory.compare import check_not_learned
>>> straddling = check_not_learned([0.028, 0.02, 0.031, 0.015, 0.024, 0.03], 0.01, max_ratio=3.0)
>>> straddling.message
'not learned: mass/baseline 2.467 [1.733, 3.18] vs <= 3: FAIL'
>>> [seeds_to_decide(side) for side in straddling_sides(straddling)]
[11]
>>> straddling_sides(check_not_learned([0.05, 0.06, 0.055, 0.052], 0.01, max_ratio=2.5))  # excluded: decided
()
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import InvalidParameterTypeError
from .result import CheckResult

__all__ = ["Side", "seeds_to_decide", "seeds_to_reject", "straddling_sides"]


@dataclasses.dataclass(frozen=True)
class Side:
    """One one-sided comparison inside a check: ``value`` (with ``ci``) claimed ``>= bound`` or ``<= bound``."""

    label: str
    value: float
    ci: tuple[float, float]
    bound: float
    at_least: bool
    n_seeds: int

    @property
    def satisfied(self) -> bool:
        """The whole interval on the claimed side."""
        return self.ci[0] >= self.bound if self.at_least else self.ci[1] <= self.bound

    @property
    def excluded(self) -> bool:
        """The whole interval on the wrong side."""
        return self.ci[1] < self.bound if self.at_least else self.ci[0] > self.bound

    @property
    def straddles(self) -> bool:
        return not self.satisfied and not self.excluded


def seeds_to_decide(side: Side) -> int | None:
    r""":math:`\lceil S\,(w/|\hat v - b|)^2\rceil` (module docstring), None when :math:`\hat v = b`.

    An estimate 3.09 [2.35, 3.98] over 8 seeds against ``<= 3`` is decided (against the law) once its lower end
    passes 3, about 8 (0.74/0.09)² seeds:

    >>> seeds_to_decide(Side("ratio", 3.09, (2.35, 3.98), 3.0, False, 8))
    541
    """
    gap = abs(side.value - side.bound)
    half = (side.value - side.ci[0]) if side.value > side.bound else (side.ci[1] - side.value)
    if gap <= 1e-12 * max(1.0, abs(side.bound)) or not math.isfinite(half):
        return None
    return max(side.n_seeds, math.ceil(side.n_seeds * (half / gap) ** 2))


def straddling_sides(result: CheckResult | Mapping[str, Any]) -> tuple[Side, ...]:
    """The failing intervals of a check that did not pass (or of its ``to_dict()``), when every one of them straddles
    its bound; empty when the check passed or its failure is decided (some failing interval excludes its bound, or a
    failing part has no interval to read). :func:`flt_theory.compare.verdict.decide` reads a non-empty answer as
    INCONCLUSIVE.

    >>> from flt_theory.compare import check_not_learned
    >>> [s.label for s in straddling_sides(check_not_learned([0.028, 0.02, 0.031, 0.015], 0.01, max_ratio=3.0))]
    ['not learned: mass/baseline']
    """
    if isinstance(result, CheckResult):
        result = result.to_dict()
    if not isinstance(result, Mapping):
        raise InvalidParameterTypeError(f"straddling_sides takes a CheckResult or its to_dict(). "
                                        f"Got {type(result).__name__} instead.")
    if result.get("passed"):
        return ()
    straddling: list[Side] = []
    for leaf in _leaves(result, failing_only=True):
        failing = [s for s in _sides(leaf) if not s.satisfied]
        if not failing or any(s.excluded for s in failing):
            return ()
        straddling += failing
    return tuple(straddling)


def seeds_to_reject(result: CheckResult | Mapping[str, Any]) -> int | None:
    r"""For a PASSING check whose law is the null hypothesis (a wrong law that was not rejected): about how many
    seeds would make one of its parts exclude its prediction, :func:`seeds_to_decide` on the nearer edge of the
    part's tolerance band (a power law's ``predicted ± tolerance``, a consistent bound ``± slack``), the fewest over
    the parts; None when every estimate lies inside its band (then seeds cannot reject it: a larger size can).

    >>> from flt_theory.compare import check_power_law
    >>> import numpy as np
    >>> ds = np.array([32.0, 64.0, 128.0])
    >>> y = ds ** -0.6 * np.exp(0.4 * np.random.default_rng(0).standard_normal((4, 3)))
    >>> control = check_power_law(ds, y, -1.0, tolerance=0.2)
    >>> control.passed, seeds_to_reject(control)
    (True, 70)
    """
    if isinstance(result, CheckResult):
        result = result.to_dict()
    needs = [seeds_to_decide(side) for leaf in _leaves(result) for side in _band_sides(leaf)]
    decided = [n for n in needs if n is not None]
    return min(decided) if decided else None


def _leaves(result: Mapping[str, Any], failing_only: bool = False) -> Iterator[Mapping[str, Any]]:
    """The leaf results under ``result`` (``failing_only``: descending only into parts that did not pass)."""
    parts = result.get("details", {}).get("parts")
    if not parts:
        yield result
        return
    for part in parts:
        if not (failing_only and part.get("passed")):
            yield from _leaves(part, failing_only)


def _band_sides(leaf: Mapping[str, Any]) -> list[Side]:
    """The side of a consistent leaf's tolerance band that its estimate lies beyond (none when inside)."""
    details = leaf.get("details", {})
    try:
        value, ci = _float(leaf["measured"]), _pair(leaf["ci"])
        if "tolerance" in details and not isinstance(leaf.get("predicted"), str):  # power law
            low = _float(leaf["predicted"]) - _float(details["tolerance"])
            high = _float(leaf["predicted"]) + _float(details["tolerance"])
        elif details.get("mode") == "consistent" and "bound" in details:
            edge = _float(details["bound"]) + (-1 if str(leaf.get("predicted", "")).startswith(">=") else 1) * _float(
                details.get("slack", 0.0))
            low, high = (edge, math.inf) if str(leaf.get("predicted", "")).startswith(">=") else (-math.inf, edge)
        else:
            return []
    except (KeyError, TypeError, ValueError, IndexError):
        return []
    seeds = int(leaf.get("n_seeds", 0))
    if value < low:
        return [Side(leaf.get("name", ""), value, ci, low, False, seeds)]
    if value > high:
        return [Side(leaf.get("name", ""), value, ci, high, True, seeds)]
    return []


def _float(value: Any) -> float:
    return float(value)  # to_dict() writes non-finite floats as "inf" / "nan", which float() reads back


def _pair(ci: Any) -> tuple[float, float]:
    return _float(ci[0]), _float(ci[1])


def _sides(leaf: Mapping[str, Any]) -> list[Side]:
    """The one-sided comparisons a failed leaf check made, read from its ``details`` (empty: not readable)."""
    details, name, seeds = leaf.get("details", {}), leaf.get("name", ""), int(leaf.get("n_seeds", 0))
    try:
        if "threshold" in details and "complement_ratio_ci" in details:  # check_subspace_learned
            return [Side(f"{name}: mass on U", _float(leaf["measured"]), _pair(leaf["ci"]),
                         _float(details["threshold"]), True, seeds),
                    Side(f"{name}: complement/baseline", _float(details["complement_ratio"]),
                         _pair(details["complement_ratio_ci"]), _float(details["max_ratio"]), False, seeds)]
        if "max_ratio" in details:  # check_not_learned
            return [Side(f"{name}: mass/baseline", _float(leaf["measured"]), _pair(leaf["ci"]),
                         _float(details["max_ratio"]), False, seeds)]
        if details.get("mode") == "demonstrated" and "bound" in details:  # check_at_least / check_at_most
            at_least = str(leaf.get("predicted", "")).startswith(">=")
            slack = _float(details.get("slack", 0.0))
            bound = _float(details["bound"]) + (-slack if at_least else slack)
            return [Side(name, _float(leaf["measured"]), _pair(leaf["ci"]), bound, at_least, seeds)]
        if details.get("mode") == "demonstrated" and "means" in details:  # check_ordering: every gap > 0
            labels = details.get("labels") or [str(i) for i in range(len(leaf["measured"]))]
            return [Side(f"{name}: {label}", _float(v), _pair(ci), 0.0, True, seeds)
                    for label, v, ci in zip(labels, leaf["measured"], leaf["ci"])]
    except (KeyError, TypeError, ValueError, IndexError):
        return []
    return []
