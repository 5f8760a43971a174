r"""Online SGD: the information exponent sets the samples to weak recovery (Ben Arous, Gheissari, Jagannath 2021,
arXiv 2003.10409).

Setting (model :mod:`flt_theory.systems.online_sgd.model`): :math:`y = g(\langle w^*, x\rangle)`,
:math:`x \sim \mathcal N(0, I_d)` fresh at every step, one neuron :math:`\sigma(\langle w, x\rangle)`, :math:`\sigma
= g`,
:math:`w` on the sphere, correlation loss :math:`-y\sigma(u)`; spherical SGD
:math:`w' = (w - \eta c\,(x - uw))/\|\cdot\|` with :math:`\nabla_w L = c\,x`.

Step 1 — exact reduction. With :math:`w = m w^* + s e` and :math:`x = z_1 w^* + z_2 e + r`,

.. math::

    m' = \frac{m + h(mu - z_1)}{\sqrt{(m + h(mu - z_1))^2 + (s + h(su - z_2))^2 + h^2 q}},
    \qquad u = m z_1 + s z_2,\ h = \eta c(u, g(z_1)),\ q = \|r\|^2 \sim \chi^2_{d-2},

and :math:`(z_1, z_2, q)` of the next step are independent of the past (a fresh isotropic sample, decomposed along
a basis that depends on the past only). So :math:`m_t` is a Markov chain with three draws per step whatever
:math:`d`: verified below symbolically (the norm identity) and in distribution against the literal
:math:`d`-dimensional SGD (``tests/systems/test_online_sgd_model.py``, a Kolmogorov–Smirnov test that also
rejects the reduction without :math:`r`).

Step 2 — the rate (:mod:`flt_theory.systems.online_sgd.laws`). The drift of :math:`m` is
:math:`\eta(1 - m^2)\phi'(m)` with :math:`\phi(m) = \sum_j c_j^2 m^j / j!` (for :math:`\mathrm{He}_3`:
:math:`\phi = 6m^3`, checked below by Gauss–Hermite quadrature of the one-step mean), the retraction contracts
:math:`m` by :math:`O(\eta^2 d)` per step, so :math:`\eta = \tilde\eta d^{-\max(1,k/2)}` and
:math:`T \asymp d, d\log d, d^{k-1}`.

Step 3 — measured (64 seeds, small scale; the claims' numbers):

* ``recovery-time-k1`` (:math:`g = z`, :math:`\tilde\eta = 0.5`, :math:`d = 64 \dots 1024`): exponent 1.06
  [1.05, 1.08] against 1; control :math:`\sqrt d` rejected.
* ``recovery-time-k2`` (:math:`g = \mathrm{He}_2`, :math:`\tilde\eta = 0.2`, :math:`d = 64 \dots 512`): exponent of
  time / log d 1.04 [0.96, 1.12] against 1 (local slopes 1.17, 1.08, 0.98: the constant beside
  :math:`\log d` fading); control :math:`d^2` rejected.
* ``recovery-time-k3`` (:math:`g = \mathrm{He}_3`, :math:`\tilde\eta = 0.05`, :math:`m_0 = 2/\sqrt d`,
  :math:`d = 32, 64, 128`, 256 seeds, runs capped at :math:`4d^2`): the mean time is :math:`\tau d^2 - B d^{3/2}
  + O(d)` with :math:`B = (2 - \operatorname{artanh}\frac12)/(18\tilde\eta)` (the deterministic end of the
  escape, :func:`~flt_theory.systems.online_sgd.laws.escape_correction`): the raw fit reads 2.1–2.2 (local slopes
  2.37 then 2.09), :math:`T + B d^{3/2}` 1.974 [1.897, 2.049] against 2; control — the CSQ rate :math:`d^{3/2}`
  that the smoothed loss of Damian et al. 2023 (arXiv 2305.10633) reaches — rejected.

Calibration (``flt calibrate``, 20 disjoint seed sets of 64, decided at the catalogue's family-wise level): no
false rejection for any of the three laws; k = 1 rejects every exponent mutant down to ±0.25 in 20/20; k = 2's
mutants (the law d log d scaled) are inert, its control carries the check; k = 3 rejects the exponent −1 mutant
in 20/20, +1 in 17/20, −0.5 in 14/20 and +0.5 in none before the :math:`B d^{3/2}` term was added (the raw
exponent is 2.2 ± 0.15 across seed sets of 64: the claim's ``power_note``).

Step 4 — smoothing (Damian, Nichani, Ge, Lee 2023, arXiv 2305.10633;
:mod:`flt_theory.systems.online_sgd.smoothing`). The per-sample smoothed loss
:math:`\mathbb E_{z \perp w}\,\ell(\langle (w + \lambda z)/\|w + \lambda z\|, x\rangle)` is, for a polynomial
student, a polynomial in :math:`u = \langle w, x\rangle` and :math:`\rho^2 = \|x\|^2 - u^2` (the moments
:math:`\mu_{2i}` of a coordinate of the uniform unit vector of :math:`\mathbb R^{d-1}`), so its spherical gradient is
again :math:`c\,(x - uw)` and the reduced chain closes with the same draws :math:`(z_1, z_2, q)`:
:math:`\|x\|^2 = z_1^2 + z_2^2 + q`. Averaged over the sample it is the polynomial
:func:`smoothed_population_loss` in :math:`m` (checked below by quadrature to :math:`10^{-9}`, and the chain's
one-step drift equals :math:`-(1 - m^2)L_\lambda'(m)`); for :math:`\mathrm{He}_4` the lowest slope is
:math:`\propto \tau^4\lambda^2 m/d` instead of :math:`\tau^4 m^3`. With :math:`\lambda = d^{1/4}` and
:math:`\eta = \tilde\eta\lambda^{2k-2}d^{-k/2}` the escape takes :math:`d^{k/2}` samples
(:func:`flt_theory.systems.online_sgd.laws.smoothed_time_value`). Measured (:math:`\tilde\eta = 0.05`,
:math:`m_0 = 1/\sqrt d`, seeds 0–31, small scale):

* ``time-smoothed-k3`` (:math:`d = 32, 64, 128`, 128 seeds): exponent 1.53 [1.46, 1.60] against 3/2; control
  :math:`d^2` (the plain rate) rejected. Local slopes of the mean, d = 32 → 256: 1.54, 1.46, 1.53.
* ``time-smoothed-k4`` (He4, law :math:`d^2`, plain rate :math:`d^3`). Even :math:`k` escapes differently: the
  lowest term of :math:`L_\lambda'` is linear in :math:`m` (above), so the overlap grows exponentially from
  :math:`d^{-1/2}` to :math:`\lambda/\sqrt d = d^{-1/4}`, over :math:`\tfrac14\ln d` e-folds: the deterministic
  escape time is :math:`d^2(a\ln d + b)` with :math:`b/a` from 8 at :math:`d \approx 100` to 2.5 at
  :math:`d \approx 10^6` (:func:`test_even_k_escape_carries_a_log`), whose local slope :math:`2 + 1/(\ln d + b/a)` is
  within 0.11 of 2 for :math:`d \ge 32`. And the retraction
  contracts :math:`m` by a share of that same linear drift that grows with :math:`\tilde\eta`
  (:func:`test_retraction_share_of_the_linear_drift`: 0.18 at :math:`\tilde\eta = 0.01`, 0.77 at 0.05,
  :math:`d = 256`). At :math:`\tilde\eta = 0.05` (the k = 3 claim's step) the escape is left to the noise: 128
  seeds at :math:`d = 64 \dots 512` fit 2.46 [2.38, 2.55], neither law, and the mean time is 3.1, 3.9, 5.1, 8.1
  times the deterministic one at :math:`d = 64, 128, 256, 512` (64 seeds). At :math:`\tilde\eta = 0.01` the ratio
  is 1.63, 1.46, 1.48, 1.32 (the retraction's share shrinking with :math:`d`) and the local slopes of the mean
  time 1.92, 2.10, 1.91: the registered claim runs there, with the hypothesis :math:`\tilde\eta \le 1/50`
  (:data:`~flt_theory.systems.online_sgd.laws.RETRACTION_HYPOTHESIS`). Read with care: the fitted exponents (1.94
  small, 1.97 paper) sit BELOW the deterministic escape's local slopes (2.08 to 2.11 at these d), because the ratio
  of the mean time to the deterministic one falls with d (the retraction's share shrinking); the two finite-size
  effects partly cancel, so the claim separates d² from d³ (its control), not d² from d² log d.

The reduced smoothed chain against the literal SGD that differentiates the definition by autograd
(``tests/systems/test_online_sgd_model.py``, :math:`d = 8`, :math:`\lambda = 1`, 800 seeds, 150 steps): KS p = 0.50
(He3, correlation) and 0.24 (He2, square); the literal run without the remainder and the unsmoothed chain are
rejected (p < 1e-39).

Step 5 — label transform (Damian, Pillaud-Vivien, Lee, Bruna 2024, arXiv 2403.05529). :math:`y = \mathrm{He}_4(z)`
has information exponent 4 but generative exponent 2 (:mod:`flt_theory.symbolic.generative`); the lowest power of
:math:`y` with a :math:`\mathrm{He}_2` component is :math:`y^2` (:func:`~flt_theory.systems.online_sgd.laws.
label_transform`, standardised), and the student :math:`\mathrm{He}_2` on :math:`T(y)` sees information exponent 2:
:math:`n \asymp d\log d`. ``time-transform-k4`` (:math:`\tilde\eta = 0.02`, below the bound
:math:`3\sqrt{638}/1883 \approx 0.040` derived from the drift in ``derive_online_sgd_stall.py``; at the earlier
:math:`\tilde\eta = 0.2` the overlap stalls at :math:`m_* \approx 0.17` as :math:`d \to \infty`): small scale
:math:`d = 64, \dots, 512`, 32 seeds, :math:`T/(d\ln d)` = 37.8, 37.3, 39.6, 39.1, exponent 1.025 [0.93, 1.13];
paper scale :math:`d = 128, \dots, 4096`, 128 seeds, :math:`T/(d \ln d)` = 39.3, 39.4, 39.4, 38.3, 40.1, 39.6,
exponent 1.002 [0.981, 1.025]; control :math:`d^3` rejected.
"""

import functools
import math

import numpy as np
import pytest
import sympy as sp
import torch

from flt_theory.systems import check_claim, get_claim
from flt_theory.systems.online_sgd.laws import (
    is_even,
    link_exponent,
    recovery_law,
    time_value,
)
from flt_theory.systems.online_sgd.model import PolynomialLink, reduced_step

CLAIMS = [
    "online-sgd/recovery-time-k1",
    "online-sgd/recovery-time-k2",
    "online-sgd/recovery-time-k3",
]


def test_reduction_keeps_the_norm():
    """Symbolically: (A² + B² + h² q)/‖w̃‖² = 1 and m'² + s'² = 1 for the reduced update (step 1)."""
    m, z1, z2, h, q = sp.symbols("m z1 z2 h q", real=True)
    s = sp.sqrt(1 - m**2)
    u = m * z1 + s * z2
    a, b = m + h * (m * u - z1), s + h * (s * u - z2)
    # the literal ‖w̃‖² = ‖w(1 + hu) − h x‖² with ‖w‖ = 1, <w, x> = u, ‖x‖² = z1² + z2² + q
    literal = (1 + h * u) ** 2 - 2 * h * (1 + h * u) * u + h**2 * (z1**2 + z2**2 + q)
    assert sp.simplify(sp.expand(a**2 + b**2 + h**2 * q - literal)) == 0


def test_drift_is_the_derivative_of_phi():
    """The one-step mean of m' − m at small η is η(1 − m²)φ'(m), φ = 6m³ for He3 (step 2), by quadrature."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(40)
    weights = weights / weights.sum()
    z1, z2 = (torch.tensor(a, dtype=torch.float64).reshape(-1) for a in np.meshgrid(nodes, nodes))
    w = torch.tensor(np.outer(weights, weights).reshape(-1))
    he3, eta, d = PolynomialLink((0.0, -3.0, 0.0, 1.0)), 1e-8, 3
    for m0 in (0.1, 0.3):
        m = torch.full_like(z1, m0)
        mean_q = torch.full_like(z1, math.sqrt(d - 2))  # the retraction's O(η² d) is below 1e-6 of the drift here
        m1, _ = reduced_step(m, torch.sqrt(1 - m * m), z1, z2, mean_q, he3(z1), eta, "correlation", he3)
        drift = float((w * (m1 - m)).sum()) / eta
        assert drift == pytest.approx((1 - m0**2) * 18 * m0**2, rel=1e-3)


def test_laws_read_from_the_symbolic_layer():
    d = sp.Symbol("d", positive=True)
    assert [link_exponent(g) for g in ("z", "He2(z)", "He3(z)", "He4(z)")] == [1, 2, 3, 4]
    assert time_value(2) == d * sp.log(d) and recovery_law("He4(z)").exponent("d") == 3
    assert is_even("He2(z)") and not is_even("He3(z)")


def test_claim(claim_key, scale):
    verdict = check_claim(get_claim(claim_key), scale)
    print(verdict.message)
    assert verdict.check.passed, verdict.message + " || " + verdict.check.message
    assert not verdict.control.passed, verdict.message + " || " + verdict.control.message


# --- Smoothing (Damian, Nichani, Ge, Lee 2023, arXiv 2305.10633) -------------------------------------------------

SMOOTHED_CLAIMS = ["online-sgd/time-smoothed-k3", "online-sgd/time-smoothed-k4"]
CLAIMS += SMOOTHED_CLAIMS


def smoothed_population_loss(k: int) -> sp.Expr:
    r"""The smoothed population correlation loss of :math:`g = \sigma = \mathrm{He}_k` as a polynomial in the overlap:
    :math:`\mathbb E_x[-g(\langle w^*, x\rangle)\,\sigma(\langle v, x\rangle)] = -k!\,\langle w^*, v\rangle^k` for a
    unit :math:`v` (Mehler), :math:`v = \tau(w + \lambda z)`, :math:`\langle w^*, v\rangle = \tau(m + \lambda s\zeta)`
    with :math:`\zeta` a coordinate of a uniform unit vector of :math:`\mathbb R^{d-1}`, so

    .. math:: L_\lambda(m) = -k!\,\tau^k \sum_{i} \binom{k}{2i} m^{k-2i} (\lambda s)^{2i}\mu_{2i},\qquad
       \mu_{2i} = \frac{(2i-1)!!}{(d-1)(d+1)\cdots(d+2i-3)}.

    Its lowest-order slope at the equator is the term :math:`i = \lfloor (k-1)/2 \rfloor`: for :math:`k = 4`,
    :math:`L_\lambda'(m) \approx -288\,\tau^4\lambda^2 m/(d-1)`, against :math:`-96\,\tau^4 m^3` of the unsmoothed
    term — the smoothing trades the factor :math:`m^2` for :math:`\lambda^2/d`, which is the gain of Damian et al.
    """
    m, lam, d = sp.symbols("m lambda d", positive=True)
    tau2, s2 = 1 / (1 + lam**2), 1 - m**2
    total = 0
    for i in range(k // 2 + 1):
        mu = sp.factorial2(2 * i - 1) / sp.prod([d - 1 + 2 * j for j in range(i)])
        total += sp.binomial(k, 2 * i) * m ** (k - 2 * i) * lam ** (2 * i) * s2**i * mu
    return -sp.factorial(k) * tau2 ** sp.Rational(k, 2) * total


def _smoothed_mean(m0: float, d: int, lam: float, fn) -> float:
    """E over one fresh sample in reduced coordinates (z1, z2 Gauss–Hermite, q ~ chi²_{d-2} Gauss–Laguerre) of
    fn(u, rho2, y, z1, z2, q)."""
    from scipy.special import roots_genlaguerre

    nodes, weights = np.polynomial.hermite_e.hermegauss(30)
    weights = weights / weights.sum()
    t, wq = roots_genlaguerre(6, (d - 2) / 2 - 1)
    wq = wq / wq.sum()
    z1, z2, q = (torch.tensor(a, dtype=torch.float64).reshape(-1) for a in np.meshgrid(nodes, nodes, 2 * t))
    w = torch.tensor(np.einsum("i,j,k->ijk", weights, weights, wq).transpose(1, 0, 2).reshape(-1))
    m = torch.full_like(z1, m0)
    s = torch.sqrt(1 - m * m)
    u = m * z1 + s * z2
    he4 = PolynomialLink((3.0, 0.0, -6.0, 0.0, 1.0))
    return float((w * fn(u, z1**2 + z2**2 + q - u**2, he4(z1), m, s, z1, z2, q.sqrt(), he4)).sum())


@pytest.mark.parametrize("m0", [0.05, 0.3])
def test_smoothed_population_loss_by_quadrature(m0):
    """The closed form per-sample smoothed loss (model's SmoothedLoss), averaged over the sample by quadrature, is
    the symbolic L_λ(m) for He4, and its one-step drift at small η is −(1 − m²) L_λ'(m)."""
    from flt_theory.systems.online_sgd.smoothing import SmoothedLoss

    d, lam, eta = 20, 1.5, 1e-9
    sm = SmoothedLoss((3.0, 0.0, -6.0, 0.0, 1.0), lam=lam, d=d)
    law = smoothed_population_loss(4)
    m, lam_s, d_s = sp.symbols("m lambda d", positive=True)
    at = {lam_s: lam, d_s: d, m: m0}
    value = _smoothed_mean(m0, d, lam, lambda u, rho2, y, *_: -y * sm.value(u, rho2))
    assert value == pytest.approx(float(law.subs(at)), rel=1e-9, abs=1e-12)

    def step(u, rho2, y, m, s, z1, z2, root_q, link):
        return (reduced_step(m, s, z1, z2, root_q, y, eta, "correlation", link, sm)[0] - m) / eta

    drift = _smoothed_mean(m0, d, lam, step)
    assert drift == pytest.approx(float((-(1 - m**2) * sp.diff(law, m)).subs(at)), rel=1e-5)
    # the unsmoothed drift differs: the check can fail
    assert drift != pytest.approx(float(((1 - m**2) * 96 * m**3).subs(at)), rel=0.1)


# --- Label transform (Damian, Pillaud-Vivien, Lee, Bruna 2024, arXiv 2403.05529) ----------------------------------


@functools.cache
def _he4_slope():
    """L_λ'(m) of He4 as a numeric function of (m, λ, d) (:func:`smoothed_population_loss`)."""
    m, lam, d = sp.symbols("m lambda d", positive=True)
    return sp.lambdify((m, lam, d), sp.diff(smoothed_population_loss(4), m))


def _he4_drift(eta_tilde: float, d: int):
    """(η, λ, smoothed loss, drift(m)) of He4 on the smoothed loss at λ = d^(1/4): drift = η(1 − m²)|L_λ'(m)|."""
    from flt_theory.systems.online_sgd.simulate import step_and_radius
    from flt_theory.systems.online_sgd.smoothing import SmoothedLoss

    eta, lam = step_and_radius(4, d, eta_tilde, 1.0)
    slope = _he4_slope()
    loss = SmoothedLoss((3.0, 0.0, -6.0, 0.0, 1.0), lam=lam, d=d)
    return eta, lam, loss, lambda x: eta * (1 - x * x) * -slope(x, lam, d)


@pytest.mark.parametrize("d", [64, 256])
def test_retraction_share_of_the_linear_drift(d):
    """He4, smoothed: at m = d^(-1/2) the one-step mean of m' − m (quadrature of the exact reduced step, the
    retraction included) is the drift minus a contraction whose share grows with η̃: below 0.3 at η̃ = 0.01 (the
    claim's step), below 1/2 at 0.02 (the hypothesis' bound), above 0.7 at η̃ = 0.05 (step 4)."""
    m0 = d**-0.5
    shares = []
    for eta_tilde in (0.01, 0.02, 0.05):
        eta, lam, sm, drift = _he4_drift(eta_tilde, d)

        def step(u, rho2, y, m, s, z1, z2, root_q, link, eta=eta, sm=sm):
            return reduced_step(m, s, z1, z2, root_q, y, eta, "correlation", link, sm)[0] - m

        shares.append(1 - _smoothed_mean(m0, d, lam, step) / drift(m0))
    assert 0.05 < shares[0] < 0.3 and shares[1] < 0.5 and shares[2] > 0.7


def test_even_k_escape_carries_a_log():
    """He4, smoothed: the deterministic escape time ∫ dm / drift(m) from d^(-1/2) to 1/2 is d²(a ln d + b): T/d²
    grows by a nearly constant a > 0 per e-fold of d (a log that odd k does not have; a pure d² would give a = 0),
    with b/a falling from about 8 at d ≈ 100 to 2.5 at d ≈ 10⁶, and its local slope stays within 0.11 of 2 (step 4)."""
    from scipy.integrate import quad

    def escape(d):
        drift = _he4_drift(0.01, d)[3]
        return quad(lambda x: 1 / drift(x), d**-0.5, 0.5, limit=200)[0] * 0.01 / d**2

    logs = np.log(2.0 ** np.array([12, 16, 20]))
    increments = np.diff([escape(int(np.exp(x))) for x in logs]) / np.diff(logs)
    assert np.all(increments > 0) and 0.9 < increments[1] / increments[0] < 1.3
    ds = 2 ** np.arange(5, 13)
    slopes = np.diff(np.log([escape(int(d)) * float(d) ** 2 for d in ds])) / np.log(2)
    assert np.all(np.abs(slopes - 2) < 0.11) and np.all(slopes > 2)


def test_label_transform_reaches_the_generative_exponent():
    """He4: information exponent 4, generative exponent 2 (symbolic layer); the transform T(y) = standardised y²
    has E[T(He4(z)) He2(z)] = 192/σ ≠ 0, so the student He2 sees information exponent 2, while y itself has no He2
    component (the control: without the transform the exponent stays 4)."""
    from flt_theory.symbolic.hermite import gaussian_moment
    from flt_theory.systems.online_sgd.laws import label_transform, transformed_link

    z = sp.Symbol("z", real=True)
    transform, k_star = label_transform("He4(z)")
    assert k_star == 2 and link_exponent("He4(z)") == 4
    h = transformed_link("He4(z)")
    mean = lambda p: sum(a * gaussian_moment(j) for (j,), a in sp.Poly(sp.expand(p), z).terms())  # noqa: E731
    he2, he4 = z**2 - 1, z**4 - 6 * z**2 + 3
    assert mean(h) == 0 and sp.simplify(mean(h * h) - 1) == 0
    assert sp.simplify(mean(h * he2) - 192 / sp.sqrt(mean(he4**4) - 24**2)) == 0
    assert mean(he4 * he2) == 0 and link_exponent(h) == 2


#: Run by test_claim like the others (about 30 s at the small scale under load: d = 128 … 512).
CLAIMS += ["online-sgd/time-transform-k4"]
