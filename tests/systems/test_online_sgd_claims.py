"""The online-SGD comparison on synthetic measurements: it reads the exponent from the law it is given, divides the
law's log factor out, and refuses censored runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import sympy as sp

from flt_theory.errors import InvalidParameterError
from flt_theory.systems import get_claim
from flt_theory.systems.online_sgd.laws import escape_correction, recovery_law, split_law
from flt_theory.systems.online_sgd.recovery_claims import FIT_TOLERANCE, LIMIT_SIZES, compare_time, time_ladder

#: The ladder and spread of a limit-decided claim's synthetic times (the paper ladders double d, 128 seeds).
LADDER = np.array([64, 128, 256, 512, 1024])


def _frame(ds, times, censored=0, noise=0.3, seeds=32, **columns):
    rng = np.random.default_rng(0)
    rows = [{"d": d, "seed": s, "steps": t * rng.lognormal(0, noise), "censored": float(s < censored), **columns}
            for d, t in zip(ds, times) for s in range(seeds)]
    return pd.DataFrame(rows)


def _rejected(control) -> bool:
    """Rejected as flt check reads a negative control at the catalogue's level: settled, not only extrapolated."""
    from flt_theory.checking.check import rejects

    return rejects(control.to_dict(), 0.05 / 80)


def _limit_frame(times):
    return _frame(LADDER, times(LADDER.astype(float)), noise=0.1, seeds=64)


def test_split_law():
    d = sp.Symbol("d", positive=True)
    assert split_law(recovery_law("He3(z)"))[0] == 2 and split_law(recovery_law("He3(z)"))[1].value == 1
    assert split_law(recovery_law("He2(z)").replace(value=d**2 * sp.log(d)))[0] == 2


def test_exponent_read_from_the_law():
    """k = 3: on its small ladder (3 sizes) decided by one fit within its tolerance (FIT_TOLERANCE), saying so; on
    LIMIT_SIZES sizes or more (its paper ladder) in the limit; and k = 1, decided in the limit."""
    ds = np.array([32, 64, 128])
    claim = get_claim("online-sgd/recovery-time-k3")
    fit = {"fit_tolerance": FIT_TOLERANCE["k3"]}
    frame = _frame(ds, 5.0 * ds**2.0)
    short = compare_time(frame, claim.the_law, **fit)
    assert short.passed and "one fit: 3 sizes of d" in short.message and not short.details.get("limit")
    assert not compare_time(frame, claim.the_wrong_law, **fit).passed
    assert not compare_time(_frame(ds, 5.0 * ds**2.5), claim.the_law, **fit).passed
    assert len(LADDER) >= LIMIT_SIZES
    frame = _limit_frame(lambda d: 5.0 * d**2.0)
    limit = compare_time(frame, claim.the_law, **fit)
    assert limit.passed and "one fit" not in limit.message and limit.details["limit"]
    assert len(limit.details["effective"]) == len(LADDER) - 1
    assert _rejected(compare_time(frame, claim.the_wrong_law, **fit))
    assert not compare_time(_limit_frame(lambda d: 5.0 * d**2.5), claim.the_law, **fit).passed
    rungs = time_ladder(frame, claim.the_law)
    assert len(rungs) == len(LADDER) - 1 and all(r["predicted"] == 2 for r in rungs)
    k1 = get_claim("online-sgd/recovery-time-k1")
    frame = _limit_frame(lambda d: 5.0 * d * (1 + 3 / np.sqrt(d)))  # a d^(-1/2) correction: no tolerance needed
    assert k1.evaluate(frame).passed and _rejected(k1.evaluate(frame, k1.the_wrong_law))
    assert [round(r["from"]) for r in k1.evaluate(frame).details["effective"]] == [64, 128, 256, 512]
    assert not k1.evaluate(_limit_frame(lambda d: 5.0 * d**1.5)).passed


def test_log_factor_divided_out():
    claim = get_claim("online-sgd/recovery-time-k2")
    assert claim.evaluate(_limit_frame(lambda d: 3.0 * d * np.log(d))).passed
    assert not claim.evaluate(_limit_frame(lambda d: 3.0 * d**1.5 * np.log(d))).passed
    assert not claim.evaluate(_limit_frame(lambda d: 3.0 * d * np.log(d) ** 3)).passed  # a log the law lacks


def test_censoring_beyond_the_bound_fails_both_comparisons():
    ds = np.array([32, 64, 128])
    claim = get_claim("online-sgd/recovery-time-k3")
    frame = _frame(ds, 5.0 * ds**2.0, censored=2)  # 2 of 32 seeds > MAX_CENSORED_FRACTION
    fit = {"fit_tolerance": FIT_TOLERANCE["k3"]}
    result = compare_time(frame, claim.the_law, **fit)
    assert not result.passed and "censored" in result.message
    assert not compare_time(frame, claim.the_wrong_law, **fit).passed
    assert compare_time(_frame(ds, 5.0 * ds**2.0, censored=1), claim.the_law, **fit).passed  # 1/32: restricted mean
    assert not compare_time(frame, claim.the_law).passed  # the limit decision refuses it too


def test_smoothing_and_transform_claims_read_their_laws():
    """time-smoothed-k3 reads d^(3/2) (control d²); time-transform-k4 reads d log d with the log divided out
    (control d³), from their laws."""
    smoothed = get_claim("online-sgd/time-smoothed-k3")
    frame = _limit_frame(lambda d: 2.0 * d**1.5)
    assert smoothed.evaluate(frame).passed and not smoothed.evaluate(frame, smoothed.the_wrong_law).passed
    assert not smoothed.evaluate(_limit_frame(lambda d: 2.0 * d**2.0)).passed
    transform = get_claim("online-sgd/time-transform-k4")
    frame = _limit_frame(lambda d: 20.0 * d * np.log(d))
    assert transform.evaluate(frame).passed and _rejected(transform.evaluate(frame, transform.the_wrong_law))
    assert not transform.evaluate(_limit_frame(lambda d: 20.0 * d**1.5)).passed


def test_smoothed_k4_claim_reads_d2_with_its_log_and_its_step_hypothesis():
    """time-smoothed-k4 reads d² (control d³), here in the limit (a 5-size ladder; its 3-size small one by one fit
    within its tolerance, FIT_TOLERANCE); the
    deterministic escape's d²(ln d + 8) of even k passes, d^2.5 fails; the retraction hypothesis holds at the
    claim's η̃ = 0.01 and not at the η̃ = 0.05 where the escape is left to the noise."""
    claim = get_claim("online-sgd/time-smoothed-k4")
    frame = _limit_frame(lambda d: 0.05 * d**2.0 * (np.log(d) + 8))
    assert claim.evaluate(frame).passed and not claim.evaluate(frame, claim.the_wrong_law).passed
    assert not claim.evaluate(_limit_frame(lambda d: 0.05 * d**2.5)).passed
    (retraction,) = [h for h in claim.the_law.hypotheses if "retraction" in h.text]
    assert retraction.holds({"eta_tilde": 0.01}) and not retraction.holds({"eta_tilde": 0.05})
    assert not any("retraction" in h.text for h in get_claim("online-sgd/time-smoothed-k3").the_law.hypotheses)


def test_escape_correction_closed_form_and_its_domain():
    """He3: B = (2 − artanh(1/2))/(18 η̃) (the deterministic flow dm/dt = 18 η m²(1 − m²) from m to 1/2); no pure
    d^(k/2) term for k < 3 or where the remainder of the integrand is not integrable at 0 (He4, He3 + He4)."""
    assert escape_correction("He3(z)", 0.05) == pytest.approx((2 - math.atanh(0.5)) / 0.9, rel=1e-12)
    assert escape_correction("He3(z)", 0.1) == pytest.approx(escape_correction("He3(z)", 0.05) / 2, rel=1e-12)
    for link in ("He2(z)", "He4(z)", "He3(z) + He4(z)"):
        with pytest.raises(InvalidParameterError, match="target"):
            escape_correction(link, 0.05)


def test_escape_term_removes_the_predicted_drift_only():
    """Times τ d² − B d^(3/2) (the expansion of the k = 3 mean time): the plain fit is biased by the d^(3/2) term and
    rejects d² at this spread, the claim's comparison (the term added back) passes d² and rejects d^(3/2); pure
    d^(3/2) data stay d^(3/2) after the correction (the control's law passes there)."""
    ds = np.array([32, 64, 128])
    claim = get_claim("online-sgd/recovery-time-k3")
    eta = 0.05
    b = escape_correction("He3(z)", eta)
    frame = _frame(ds, 0.7 * ds**2.0 - b * ds**1.5, target="He3(z)", eta_tilde=eta)
    assert not compare_time(frame, claim.the_law, fit_tolerance=FIT_TOLERANCE["k3"]).passed
    assert claim.evaluate(frame).passed and not claim.evaluate(frame, claim.the_wrong_law).passed
    pure = _frame(ds, 3.0 * ds**1.5, target="He3(z)", eta_tilde=eta)
    assert claim.evaluate(pure, claim.the_wrong_law).passed and not claim.evaluate(pure).passed


def _deterministic_escape_time(link_coefficients: dict[int, float], d: float, a: float, eta_tilde: float) -> float:
    """η⁻¹ ∫ ds / (Φ'(s)(1 − s²)) from a/√d to 1/2, η = η̃ d^(-3/2), with Φ'(m) = Σ c_j² m^(j−1)/(j−1)! and c_j =
    E[g He_j] by Gauss–Hermite quadrature in numpy (independent of the symbolic path of escape_correction)."""
    from math import factorial

    from numpy.polynomial import hermite_e
    from scipy.integrate import quad

    nodes, weights = hermite_e.hermegauss(60)
    weights = weights / weights.sum()
    g = sum(c * hermite_e.hermeval(nodes, [0] * j + [1]) for j, c in link_coefficients.items())
    cj = [float((weights * g * hermite_e.hermeval(nodes, [0] * j + [1])).sum()) for j in range(12)]

    def drift(s):
        return sum(cj[j] ** 2 * s ** (j - 1) / factorial(j - 1) for j in range(1, 12)) * (1 - s * s)

    integral = quad(lambda s: 1 / drift(s), a / math.sqrt(d), 0.5, limit=200, epsabs=0, epsrel=1e-11)[0]
    return integral * d**1.5 / eta_tilde


@pytest.mark.parametrize("link,coefficients", [("He3(z)", {3: 1.0}), ("He3(z) + He8(z)", {3: 1.0, 8: 1.0})])
def test_escape_correction_matches_the_deterministic_flow(link, coefficients):
    """Independent of how escape_correction is computed: the deterministic escape from a/√d is τ d² − B d^(3/2) +
    O(d), τ = 1/(18 a η̃), so (T + B d^(3/2) − τ d²)/d settles to a constant as d grows; a B that misses a term of
    the link (He8's) leaves a d^(1/2) drift."""
    a, eta_tilde = 2.0, 0.05
    tau = 1 / (18 * a * eta_tilde)

    def residual(b, d):
        return (_deterministic_escape_time(coefficients, d, a, eta_tilde) + b * d**1.5 - tau * d * d) / d

    b = escape_correction(link, eta_tilde)
    near, far = residual(b, 1e6), residual(b, 1e8)
    assert far == pytest.approx(near, rel=0.02)
    if link != "He3(z)":
        b_he3 = escape_correction("He3(z)", eta_tilde)
        assert abs(residual(b_he3, 1e8) - residual(b_he3, 1e6)) > 10 * abs(far - near)


def test_time_limit_of_two_rungs_shows_its_one_effective_exponent_and_identifies_no_limit():
    """Two values of d give one effective exponent (what flt verify shows for a ladder cut to two rungs) and no
    limit: the law and its wrong law both pass, so a claim there is inconclusive, never decided."""
    from flt_theory.systems.online_sgd.recovery_claims import time_limit

    claim = get_claim("online-sgd/recovery-time-k1")
    frame = _frame(np.array([64, 128]), 5.0 * np.array([64.0, 128.0]), noise=0.1)
    result = time_limit(frame, claim.the_law)
    assert len(result.details["effective"]) == 1 and result.details["limit"]["model"] == "not identified"
    assert result.passed and time_limit(frame, claim.the_wrong_law).passed
