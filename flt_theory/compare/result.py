"""Verdicts: :class:`CheckResult` and the assertions that turn it into a pytest failure.

Every ``check_*`` of :mod:`flt_theory.compare` returns a :class:`CheckResult`; its ``assert_*``
twin (built by :func:`make_assert`) raises ``AssertionError`` with the one-line message instead.
Two kinds of claims are checked, and they read the confidence interval (CI) on opposite sides:

* **Equalities and laws that may be tight** (power-law exponents, transition thresholds,
  ``check_at_least``/``check_at_most`` in their default ``mode="consistent"``): the theory is the
  null hypothesis and FAILS only when the data exclude it, i.e. when the prediction lies outside
  the CI (widened by the caller's tolerance). Negative controls show such a check has power.
* **Verdicts with a margin chosen by the caller** (subspace learned / not learned, orderings,
  ``mode="demonstrated"``): the data must demonstrate the claim, i.e. the whole CI must lie on the
  claimed side; a noisy experiment then FAILS rather than passes.

Comparisons allow a floating-point slack of ``1e-9 * max(1, |bound|)`` so that noise-free data
meet their own exact prediction.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ParamSpec

import numpy as np

__all__ = [
    "CheckResult",
    "all_of",
    "assert_check",
    "assert_fails",
    "make_assert",
    "make_result",
    "fmt",
    "fmt_ci",
    "within",
    "FLOAT_SLACK",
]

#: Floating-point slack of every comparison with a bound, times ``max(1, |value|)`` (:func:`within`).
FLOAT_SLACK = 1e-9
P = ParamSpec("P")


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one check, with the numbers behind it.

    Attributes
    ----------
    name : str
        What was checked (e.g. ``"norm law in d"``).
    passed : bool
        The verdict; also the truth value of the result.
    predicted : float or tuple of float or str
        The prediction (an exponent, a pair of exponents, a threshold, ``"strictly decreasing"``).
    measured : float or tuple of float
        The point estimate(s) the verdict is about.
    ci : tuple of float, or tuple of such pairs
        Confidence interval ``(low, high)`` of ``measured`` (one pair per entry when it is a tuple).
    n_seeds : int
        Seeds behind the estimate (the smallest count when several groups entered).
    message : str
        One human line, e.g. ``"power law: exponent 1.02 [0.95, 1.09] vs predicted 1: PASS"``.
    details : dict
        Further numbers (fit prefactor, per-d crossings, ...); not compared by ``==``.

    Examples
    --------
    >>> r = CheckResult("demo", True, 1.0, 1.02, (0.95, 1.09), 8, "demo: 1.02 vs 1: PASS")
    >>> bool(r), r.to_dict()["ci"]
    (True, [0.95, 1.09])
    """

    name: str
    passed: bool
    predicted: float | tuple[float, ...] | str
    measured: float | tuple[float, ...]
    ci: tuple[float, float] | tuple[tuple[float, float], ...]
    n_seeds: int
    message: str
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    def __bool__(self) -> bool:
        return bool(self.passed)

    def entries(self) -> tuple[tuple[str, float, tuple[float, float]], ...]:
        """Every estimate with its own interval, one ``(label, value, (low, high))`` per entry of ``measured``.

        A single-valued result gives one entry labelled by ``name``; a multi-valued one gives one
        per value, labelled ``"<name>: <label>"`` with ``details["labels"]`` where present (else
        the index). A ``measured`` and a ``ci`` that do not pair up raise ``ValueError``.

        >>> r = CheckResult("exponents", True, (1.0, -1.0), (1.02, -0.98), ((0.9, 1.1), (-1.1, -0.9)), 8, "m",
        ...                 {"labels": ["b_d", "b_n"]})
        >>> r.entries()
        (('exponents: b_d', 1.02, (0.9, 1.1)), ('exponents: b_n', -0.98, (-1.1, -0.9)))
        """
        values = np.atleast_1d(np.asarray(self.measured, dtype=float)).ravel()
        cis = np.asarray(self.ci, dtype=float).reshape(-1, 2)
        if len(values) != len(cis):
            raise ValueError(
                f"CheckResult {self.name!r} must have one (low, high) pair per measured value. Got "
                f"{len(values)} values and ci {self.ci!r} instead."
            )
        if not isinstance(self.measured, tuple):
            return ((self.name, float(values[0]), (float(cis[0, 0]), float(cis[0, 1]))),)
        labels = self.details.get("labels")
        if not isinstance(labels, (list, tuple)) or len(labels) != len(values):
            labels = [f"[{i}]" for i in range(len(values))]
        return tuple(
            (f"{self.name}: {label}", float(v), (float(lo), float(hi)))
            for label, v, (lo, hi) in zip(labels, values, cis)
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as JSON-safe builtins (non-finite floats become ``"inf"``, ``"nan"``).

        >>> r = CheckResult("x", False, 2.0, float("inf"), (1.0, float("inf")), 4, "x: FAIL")
        >>> r.to_dict()["measured"], r.to_dict()["passed"]
        ('inf', False)
        """
        return {f.name: _json_safe(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return _json_safe(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        return value if math.isfinite(value) else str(value)
    if value is None or isinstance(value, str):
        return value
    return str(value)


def assert_check(result: CheckResult) -> CheckResult:
    """Return ``result`` if it passed; raise ``AssertionError(result.message)`` otherwise.

    >>> r = CheckResult("law", False, 1.0, 2.0, (1.9, 2.1), 8, "law: 2 [1.9, 2.1] vs 1: FAIL")
    >>> assert_check(r)
    Traceback (most recent call last):
    ...
    AssertionError: law: 2 [1.9, 2.1] vs 1: FAIL
    """
    if not result.passed:
        raise AssertionError(result.message)
    return result


def assert_fails(result: CheckResult) -> CheckResult:
    """Return ``result`` if it FAILED, as a negative control must; raise ``AssertionError`` if it passed.

    A negative control (a deliberately wrong law) that passes shows that the check has no power.

    >>> r = CheckResult("wrong law", False, 1.0, 2.0, (1.9, 2.1), 8, "wrong law: FAIL")
    >>> assert_fails(r).passed
    False
    """
    if result.passed:
        raise AssertionError(f"negative control passed but must fail: {result.message}")
    return result


def make_assert(check: Callable[P, CheckResult]) -> Callable[P, CheckResult]:
    """Return the pytest twin ``assert_<x>`` of ``check_<x>``: same arguments, raises on FAIL.

    >>> def check_positive(x: float) -> CheckResult:
    ...     return make_result(name="positive", passed=x > 0, predicted="> 0", measured=x,
    ...                        ci=(x, x), n_seeds=1, summary=f"x = {x}")
    >>> assert_positive = make_assert(check_positive)
    >>> assert_positive.__name__, assert_positive(1.0).passed
    ('assert_positive', True)
    >>> assert_positive(-1.0)
    Traceback (most recent call last):
    ...
    AssertionError: positive: x = -1.0: FAIL
    """

    def assert_(*args: P.args, **kwargs: P.kwargs) -> CheckResult:
        return assert_check(check(*args, **kwargs))

    stem = check.__name__.removeprefix("check_")
    assert_.__name__ = assert_.__qualname__ = f"assert_{stem}"
    assert_.__module__ = check.__module__
    assert_.__doc__ = (
        f"Run :func:`{check.__name__}` and raise ``AssertionError`` with its message unless it passes.\n\n"
        f"Takes the same arguments as :func:`{check.__name__}` and returns its (passing) CheckResult."
    )
    assert_.__wrapped__ = check  # type: ignore[attr-defined]  # inspect.signature shows check's
    return assert_


def make_result(
    *,
    name: str,
    passed: bool,
    predicted: float | tuple[float, ...] | str,
    measured: float | tuple[float, ...],
    ci: tuple[float, float] | tuple[tuple[float, float], ...],
    n_seeds: int,
    summary: str,
    details: dict[str, Any] | None = None,
) -> CheckResult:
    """Build a :class:`CheckResult` whose message is ``"<name>: <summary>: PASS|FAIL"``.

    >>> make_result(name="n", passed=True, predicted=1.0, measured=1.0, ci=(0.9, 1.1), n_seeds=3,
    ...             summary="s").message
    'n: s: PASS'
    """
    return CheckResult(
        name=name,
        passed=bool(passed),
        predicted=predicted,
        measured=measured,
        ci=ci,
        n_seeds=int(n_seeds),
        message=f"{name}: {summary}: {'PASS' if passed else 'FAIL'}",
        details=details or {},
    )


def fmt(value: float | tuple[float, ...] | str) -> str:
    """Format a number (4 significant digits) or a tuple of numbers for a message.

    >>> fmt(1.02345), fmt((1.0, -0.5)), fmt("strictly decreasing")
    ('1.023', '(1, -0.5)', 'strictly decreasing')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        return "(" + ", ".join(fmt(v) for v in value) + ")"
    return f"{float(value):.4g}"


def fmt_ci(ci: tuple[float, float]) -> str:
    """Format a confidence interval as ``[low, high]``.

    >>> fmt_ci((0.95123, 1.09))
    '[0.9512, 1.09]'
    """
    return f"[{fmt(ci[0])}, {fmt(ci[1])}]"


def within(value: float, low: float, high: float, tolerance: float = 0.0) -> bool:
    """Whether ``low - tolerance <= value <= high + tolerance`` up to :data:`FLOAT_SLACK`.

    >>> within(1.5, 1.5000000000000002, 1.6), within(1.0, 1.4, 1.6, tolerance=0.3)
    (True, False)
    """
    slack = tolerance + FLOAT_SLACK * max(1.0, abs(value))
    return bool(low - slack <= value <= high + slack)


def all_of(name: str, predicted: Any, results: "list[CheckResult]") -> CheckResult:
    r"""Conjunction of several checks on one claim: PASSES iff every part passes.

    Every entry of every part keeps its own estimate and interval (:meth:`CheckResult.entries`):
    ``measured`` and ``ci`` are the parts' entries in order, one ``(low, high)`` pair per value,
    and ``details["labels"]`` names them (the part's name, with the entry's label for a
    multi-valued part). The failing parts are named in the message; every part is kept whole in
    ``details["parts"]``. Where every part reports ``details["p_value"]`` the conjunction reports
    the Bonferroni combination :math:`\min\{1, k \min_j p_j\}` over its :math:`k` parts (valid
    under any dependence between them; :mod:`.family`).

    >>> a = CheckResult("slope", True, 1.0, 1.02, (0.95, 1.09), 8, "slope: PASS", {"p_value": 0.6})
    >>> b = CheckResult("gaps", False, "decreasing", (0.3, 0.9), ((0.2, 0.4), (0.85, 0.99)), 8, "gaps: FAIL",
    ...                 {"p_value": 0.01, "labels": ["1-2", "2-3"]})
    >>> both = all_of("claim", "law", [a, b])
    >>> both.passed, both.measured, both.ci
    (False, (1.02, 0.3, 0.9), ((0.95, 1.09), (0.2, 0.4), (0.85, 0.99)))
    >>> both.details["labels"], both.details["p_value"], both.message
    (['slope', 'gaps: 1-2', 'gaps: 2-3'], 0.02, 'claim: FAIL — gaps: FAIL')
    """
    passed = all(r.passed for r in results)
    failing = [r.message for r in results if not r.passed]
    message = f"{name}: " + (f"all {len(results)} parts PASS" if passed else "FAIL — " + " | ".join(failing))
    entries = [entry for r in results for entry in r.entries()]
    details: dict[str, Any] = {"parts": [r.to_dict() for r in results], "labels": [label for label, _, _ in entries]}
    p_values = [p for p in (r.details.get("p_value") for r in results) if isinstance(p, numbers.Real)]
    if results and len(p_values) == len(results):  # every part reports one
        details["p_value"] = min(1.0, len(results) * float(min(p_values)))
    if isinstance(predicted, numbers.Real) and not isinstance(predicted, bool):
        predicted = float(predicted)
    return CheckResult(
        name,
        passed,
        predicted if isinstance(predicted, (str, float, tuple)) else str(predicted),
        tuple(value for _, value, _ in entries),
        tuple(ci for _, _, ci in entries),
        min(r.n_seeds for r in results),
        message,
        details,
    )
