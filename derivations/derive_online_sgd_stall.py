r"""Online SGD: the retraction's second-order drift stalls the overlap below 1/2 at a step of order one.

Setting (:mod:`flt_theory.systems.online_sgd.model`; Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409): the
reduced chain :math:`m' = (m + h(mu - z_1))/\sqrt{1 + h^2(z_1^2 + z_2^2 - u^2 + q)}`, :math:`h = \eta c`,
:math:`q \sim \chi^2_{d-2}`, :math:`\eta = \tilde\eta\,d^{-\max(1, k/2)}`.

Step 1 — the limiting drift (:mod:`flt_theory.systems.online_sgd.stall`). At :math:`\eta = \varepsilon/d`,
:math:`d\,\mathbb E[m' - m] \to \varepsilon F_1(m) - \tfrac12\varepsilon^2 m F_2(m)`, :math:`F_1 = \mathbb E[c(mu -
z_1)]`, :math:`F_2 = \mathbb E[c^2]`: the population drift and the retraction's contraction, the latter of the
same order as the former at :math:`k \le 2` (:math:`\varepsilon = \tilde\eta`). Checked below exactly for
:math:`\mathrm{He}_2`, :math:`d\,\mathbb E[dm] = m[4\tilde\eta(1 - m^2) - \tilde\eta^2(4 + 16m^2)]`, and against
the one-step mean of the exact chain by quadrature at :math:`d = 10^{10}` (the first-order drift alone is off
by more than 10%: the negative control). The limit needs :math:`|c| \ll \sqrt d/\varepsilon` on the samples that
carry :math:`F_2`; the transformed He4 label (degree 8, :math:`|c| \approx 10^4` at :math:`|z_1| \approx 5`)
reaches it slowly — at :math:`m = 0.4`, :math:`\tilde\eta = 0.2` the exact mean is :math:`-0.075` at
:math:`d = 10^6`, :math:`-0.086` at :math:`10^7` and :math:`-0.0898` at :math:`10^{10}` (limit :math:`-0.0898`):
at smaller :math:`d` its rare huge labels throw :math:`w` far off instead of contracting it by their mean.

Step 2 — the stall. The drift vanishes at :math:`m_*^2 = (1 - \tilde\eta)/(1 + 4\tilde\eta)` for
:math:`\mathrm{He}_2`: overlap 1/2 is reached iff :math:`\tilde\eta < 3/8`; for :math:`g = z` iff
:math:`\tilde\eta < 3`; for :math:`\mathrm{He}_3` (:math:`\varepsilon = \tilde\eta/\sqrt d`) iff
:math:`\tilde\eta/\sqrt d < 1/41`; for :math:`\mathrm{He}_4` with the label transform of Damian, Pillaud-Vivien,
Lee, Bruna 2024 (arXiv 2403.05529; student :math:`\mathrm{He}_2`) iff :math:`\tilde\eta < 3\sqrt{638}/1883
\approx 0.0402`, with the stall :math:`m_* \approx 0.166` at :math:`\tilde\eta = 0.2`. Simulated: :math:`\mathrm{He}_2`
at :math:`\tilde\eta = 1/2`, :math:`d = 1024`, hovers at :math:`m_* = 1/\sqrt 6 \approx 0.408`.

Measured (the finding behind this module, 32 seeds, runs capped at :math:`100\,d\ln d` resp. :math:`200\,d\ln d`):
the transformed He4 at :math:`\tilde\eta = 0.2` has :math:`T/(d\ln d) = 6.2` at :math:`d = 512` and 14.1 at
:math:`d = 2048` (2/32 censored) — the stall's escape time growing with :math:`d` — and at :math:`\tilde\eta =
0.02` :math:`T/(d\ln d)` = 37.8, 37.3, 39.6, 39.1 at :math:`d = 64, 128, 256, 512` (0 censored), and 39.3,
39.4, 39.4, 38.3, 40.1, 39.6 at :math:`d = 128 \dots 4096` (128 seeds, 0 censored): the claim
``time-transform-k4`` now runs at 0.02. :math:`\mathrm{He}_2` at :math:`\tilde\eta = 1` (inside the old reading
:math:`\tilde\eta \le 1`, outside the derived :math:`3/8`): 55/64 runs censored at :math:`d = 256`.

Step 3 — hypotheses. Each plain and label-transformed claim carries the derived bound as its step-size hypothesis
(:func:`flt_theory.systems.online_sgd.laws.step_hypothesis`); every measured point is inside, and the old step of
``time-transform-k4`` (0.2) is outside (negative control). The smoothed claims keep the theorem's reading: their
effective step at fixed overlap vanishes as :math:`d \to \infty`, and the exact finite-:math:`d` drift
(quadrature of the smoothed chain, :mod:`flt_theory.systems.online_sgd.smoothing`) has no zero below 1/2 at any of
their points — while :math:`\mathrm{He}_4` at :math:`\tilde\eta = 0.05`, :math:`d = 256` stalls (the control).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
import torch
from scipy.stats import chi2

from flt_theory.symbolic.hypothesis import classify_points
from flt_theory.systems import get_claim
from flt_theory.systems.online_sgd.laws import polynomial_coefficients, transformed_link
from flt_theory.systems.online_sgd.model import PolynomialLink, online_sgd, reduced_step
from flt_theory.systems.online_sgd.simulate import step_and_radius
from flt_theory.systems.online_sgd.smoothing import SmoothedLoss
from flt_theory.systems.online_sgd.stall import (
    ETA_TILDE,
    OVERLAP,
    drift_terms,
    largest_admissible_step,
    limiting_drift,
    stall_equation,
    stall_overlap,
)

m, eta = OVERLAP, ETA_TILDE
HE4_T = transformed_link("He4(z)")

#: The claims whose step-size hypothesis this derivation states (their verdicts run in derive_online_sgd.py; listed
#: here so that ``flt check derivations/derive_online_sgd_stall.py`` checks them).
CLAIMS = ["online-sgd/recovery-time-k1", "online-sgd/recovery-time-k2", "online-sgd/recovery-time-k3",
          "online-sgd/time-transform-k4"]


def _one_step_mean(link: str | sp.Expr, student: str, eta_step: float, d: int, overlaps, smoothing: float = 0.0,
                   k: int = 0, nodes: int = 60, q_nodes: int = 1) -> np.ndarray:
    r""":math:`d\,\mathbb E[m' - m]` of the exact reduced step, by Gauss–Hermite quadrature in :math:`(z_1, z_2)`
    and :math:`q` at ``q_nodes`` equal-probability quantiles of :math:`\chi^2_{d-2}` (1: its mean)."""
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    qs = np.array([d - 2.0]) if q_nodes == 1 else chi2.ppf((np.arange(q_nodes) + 0.5) / q_nodes, d - 2)
    z1, z2, q = np.meshgrid(z, z, qs, indexing="ij")
    weight = np.einsum("i,j,k->ijk", w, w, np.full(len(qs), 1 / len(qs)))
    z1, z2, root_q, weight = (torch.tensor(a.reshape(-1), dtype=torch.float64)
                              for a in (z1, z2, np.sqrt(q), weight))
    target, sigma = (PolynomialLink(polynomial_coefficients(g) or (0.0,)) for g in (link, student))
    smoothed = None
    if smoothing:
        eta_step, lam = step_and_radius(k, d, eta_step, smoothing)
        smoothed = SmoothedLoss(sigma.coefficients, lam=lam, d=d, loss="correlation")
    out = []
    for m0 in overlaps:
        mm = torch.full_like(z1, float(m0))
        m1, _ = reduced_step(mm, torch.sqrt(1 - mm * mm), z1, z2, root_q, target(z1), eta_step, "correlation",
                             sigma, smoothed)
        out.append(float((weight * (m1 - mm)).sum()) * d)
    return np.array(out)


def test_he2_drift_and_stall_exactly():
    """He2: F1 = 4m(1 − m²), F2 = 8 + 32m², the drift and the stall of the finding, the bound 3/8 (step 2)."""
    assert drift_terms("He2(z)") == (sp.expand(4 * m * (1 - m**2)), 8 + 32 * m**2)
    expected = m * (4 * eta * (1 - m**2) - eta**2 * (4 + 16 * m**2))
    assert sp.expand(limiting_drift("He2(z)") - expected) == 0
    assert sp.simplify(stall_equation("He2(z)").rhs - (1 - eta) / (1 + 4 * eta)) == 0
    assert largest_admissible_step("He2(z)") == sp.Rational(3, 8)
    assert stall_overlap("He2(z)", 0.2) is None
    # negative control: η̃ = 1/2 stalls below 1/2, at m*² = (1/2)/3
    assert stall_overlap("He2(z)", 0.5) == pytest.approx(1 / math.sqrt(6), abs=1e-12)
    # negative control: the first-order (population) drift alone never stalls
    first = drift_terms("He2(z)")[0]
    assert [r for r in sp.real_roots(sp.Poly(first, m)) if 0 < r < sp.Rational(1, 2)] == []


def test_other_links():
    """g = z: η̃ < 3; He3 at ε = η̃/√d: 1/41, with a barrier then a stall above it; He2 on the square loss: 1/6."""
    assert largest_admissible_step("z") == 3
    assert sp.expand(limiting_drift("z") - (eta * (1 - m**2) - eta**2 * m / 2)) == 0
    assert largest_admissible_step("He3(z)") == sp.Rational(1, 41)
    stall = stall_overlap("He3(z)", 0.03)
    assert stall_overlap("He3(z)", 0.02) is None and stall is not None and 0 < stall < 0.5
    assert largest_admissible_step("He2(z)", loss="square") == sp.Rational(1, 6)


def test_he4_label_transform_stall():
    """The transformed He4 (student He2): bound 3√638/1883 ≈ 0.0402; stall m* ≈ 0.166 at η̃ = 0.2, none at 0.02."""
    bound = largest_admissible_step(HE4_T, "He2(z)")
    assert sp.simplify(bound - 3 * sp.sqrt(638) / 1883) == 0 and float(bound) == pytest.approx(0.04024, abs=1e-5)
    stall = stall_overlap(HE4_T, 0.2, student="He2(z)")
    assert stall == pytest.approx(0.166, abs=0.005)
    formula = stall_equation(HE4_T, "He2(z)").rhs.subs(eta, sp.Rational(1, 5))
    assert float(sp.sqrt(formula)) == pytest.approx(stall, rel=1e-9)
    assert stall_overlap(HE4_T, 0.02, student="He2(z)") is None
    # negative control: the untransformed He4 at the same ε has no first-order drift at order one to speak of
    assert stall_overlap("He4(z)", 0.02) == 0.0


@pytest.mark.parametrize("link,student,step", [("He2(z)", "He2(z)", 0.5), (HE4_T, "He2(z)", 0.2)])
def test_limiting_drift_is_the_exact_chains(link, student, step):
    """The one-step mean of the exact reduced chain at d = 10¹⁰ equals the limiting drift to 10⁻³; the first-order
    drift εF₁ alone misses it by more than 10% (step 1). (The transformed label's heavy tail makes the approach
    slow: at m = 0.4 the exact mean is −0.075 at d = 10⁶, −0.086 at 10⁷, −0.0898 at 10¹⁰, against −0.0898.)"""
    overlaps = (0.1, 0.25, 0.4)
    d = 10**10
    measured = _one_step_mean(link, student, step / d, d, overlaps)
    drift = sp.lambdify(m, limiting_drift(link, student).subs(eta, step))
    first = sp.lambdify(m, step * drift_terms(link, student)[0])
    for x, value in zip(overlaps, measured, strict=True):
        assert value == pytest.approx(drift(x), rel=1e-3)
        assert abs(value - first(x)) > 0.1 * abs(first(x))


def test_he2_hovers_at_the_stall():
    """He2 at η̃ = 1/2, d = 1024, 16 seeds run for 16 d samples: the overlap of the second half averages
    1/√6 ≈ 0.408 (within 0.03), far from the first-order prediction (the drift 4m(1 − m²) carries m to 1)."""
    d = 1024
    res = online_sgd(PolynomialLink((-1.0, 0.0, 1.0)), d, eta=0.5 / d, seeds=16, max_steps=16 * d,
                     stop_at_recovery=False, trace_every=64, device="cpu")
    assert res.trace is not None
    late = res.trace[res.trace.shape[0] // 2:].abs()
    assert float(late.mean()) == pytest.approx(1 / math.sqrt(6), abs=0.03)
    assert float(late.mean()) < 0.45


def _claims_points(name: str, scale: str):
    claim = get_claim(name)
    return claim.the_law.hypotheses, claim.measurement.points[scale]


@pytest.mark.parametrize("name", ["online-sgd/recovery-time-k1", "online-sgd/recovery-time-k2",
                                  "online-sgd/recovery-time-k3", "online-sgd/time-transform-k4"])
def test_claims_inside_their_derived_step_bound(name):
    """Every point of the plain and transformed claims satisfies its derived step bound (step 3); the old step of
    time-transform-k4 (η̃ = 0.2), and η̃ = 1/2 for He2, do not (negative controls)."""
    for scale in ("small", "paper"):
        hypotheses, points = _claims_points(name, scale)
        assert any("stall" in h.text for h in hypotheses)
        assert classify_points(hypotheses, points) == "all"
    hypotheses, points = _claims_points(name, "small")
    if name.endswith("transform-k4"):
        assert classify_points(hypotheses, [p | {"eta_tilde": 0.2} for p in points]) == "none"
    if name.endswith("k2"):
        assert classify_points(hypotheses, [p | {"eta_tilde": 0.5} for p in points]) == "none"


def test_smoothed_claims_have_no_stall_at_their_points():
    """The smoothed claims (He3, η̃ = 0.05; He4, η̃ = 0.01; λ = d^(1/4)): the exact one-step mean of the smoothed
    chain is positive on [0.02, 1/2] at every d of their ladders; He4 at η̃ = 0.05, d = 256 changes sign below 1/2
    (the control: the retraction stalls the smoothed chain too when the step is large)."""
    overlaps = np.linspace(0.02, 0.5, 13)
    for k, step, ds in ((3, 0.05, (32, 64, 128, 256, 512, 1024)), (4, 0.01, (32, 64, 128, 256, 512))):
        for d in ds:
            drift = _one_step_mean(f"He{k}(z)", f"He{k}(z)", step, d, overlaps, smoothing=1.0, k=k, nodes=40,
                                   q_nodes=16)
            assert np.all(drift > 0), (k, d, drift)
    control = _one_step_mean("He4(z)", "He4(z)", 0.05, 256, overlaps, smoothing=1.0, k=4, nodes=40, q_nodes=16)
    assert control[-1] < 0 < control[0]


def test_the_shipped_step_bounds_are_the_derived_ones():
    """The table the claims read (laws.DERIVED_STALLS, so that importing the system costs no sympy solve) equals the
    bound and the stall equation derived here, link by link; a wrong entry (3/8 for g = z) is told apart."""
    from flt_theory.systems.online_sgd.laws import DERIVED_STALLS, _link, label_transform, transformed_link

    for (link, transform), (bound, stall) in DERIVED_STALLS.items():
        chain, student = ((transformed_link(link), f"He{label_transform(link)[1]}(z)") if transform
                          else (_link(link), None))
        assert sp.simplify(largest_admissible_step(chain, student) - bound) == 0, (link, transform, bound)
        equation = stall_equation(chain, student)
        assert f"{equation.lhs} = {equation.rhs}" == stall, (link, transform, stall)
    assert sp.simplify(largest_admissible_step("z") - sp.Rational(3, 8)) != 0  # the comparison has power
