r"""Signal-noise data and the two-layer CNN: benign vs harmful overfitting, growth laws, label noise.

Setting (:mod:`flt_theory.systems.signal_noise.model`). :math:`x = [y\mu, \xi]`, :math:`\xi \sim
\mathcal N(0, \sigma_\xi^2(I - e_1e_1^\top))`, :math:`\mathrm{SNR} = \|\mu\|/(\sigma_\xi\sqrt d)`,
:math:`f = F_{+1} - F_{-1}`, :math:`F_j = \frac1m\sum_r[\sigma(\langle w_{j,r}, y\mu\rangle) + \sigma(\langle w_{j,r},
\xi\rangle)]`, :math:`\sigma = \mathrm{ReLU}^q`, logistic loss, full-batch GD from :math:`\mathcal N(0, \sigma_0^2)`,
:math:`w_{j,r} = w^0_{j,r} + j\gamma_{j,r}\mu/\|\mu\|^2 + \sum_i\rho_{j,r,i}\xi_i/\|\xi_i\|^2`; simulated exactly in
:math:`(\gamma, \rho)` at any :math:`d`.

Early phase (every output :math:`\approx 0`, so :math:`-\ell'_i = 1/2`). The GD update of :math:`\gamma` is
:math:`\Delta\gamma_{j,r} = \frac{\eta\|\mu\|^2}{nm}\sum_i(-\ell'_i)\tilde y_iy_i\sigma'(y_i\langle w_{j,r},\mu\rangle)`. For
:math:`A = j\langle w_{j,r},\mu\rangle > 0` only the :math:`n/2` samples with :math:`y_i = j` activate the neuron, a fraction
:math:`\tau` of them flipped (:math:`\tilde y_iy_i = -1`), so

.. math:: \Delta A = \Delta\gamma = \frac{q\,\eta\|\mu\|^2(1-2\tau)}{4m}A^{q-1},\qquad
          \Delta\bar\rho_{j,r,i} = \frac{q\,\eta\|\xi_i\|^2}{2nm}B^{q-1},\ \|\xi_i\|^2 \approx \sigma_\xi^2(d-1).

Claim ``relu-growth-slopes`` (q = 1): :math:`\max\gamma` grows by :math:`\eta\|\mu\|^2(1-2\tau)/(4m)` and
:math:`\bar\rho` by :math:`\eta\sigma_\xi^2(d-1)/(2nm)` per step, measured within 2%. Control: the
:math:`\gamma` slope without the :math:`(1-2\tau)` factor.

Claim ``relu3-growth-exponent`` (q = 3, a finding): :math:`\Delta A \propto A^{q-1}` holds for the overlap
:math:`A = j\langle w^0,\mu\rangle + \gamma`; its literal reading on :math:`\gamma` alone (the control) fails —
:math:`\gamma^0 = 0` and :math:`\Delta\gamma` depends on :math:`A`, not on :math:`\gamma` (fitted exponent ≈ 0).

Boundaries. Both coefficients race: a recursion :math:`x^{t+1} = x^t + c\,x^{q-1}` from :math:`x^0` escapes at
:math:`t \approx 1/((q-2)c\,x_0^{q-2})`; with :math:`A^0 \sim \sigma_0\|\mu\|`, :math:`B^0 \sim \sigma_0\sigma_\xi\sqrt d` the
signal wins iff :math:`n\,\mathrm{SNR}^q \gtrsim 1` (Cao, Chen, Belkin, Gu 2022, arXiv 2202.06526): the boundary
:math:`\mathrm{SNR}^* \asymp n^{-1/q}`, independent of :math:`d`. For ReLU both grow linearly, :math:`\gamma/\bar\rho
\approx n\|\mu\|^2/(2\sigma_\xi^2d)`, and the test margin over its spread is :math:`\propto \sqrt n\|\mu\|^2/(\sigma_\xi^2\sqrt
d)`: benign iff :math:`n\|\mu\|^4 \gtrsim \sigma_\xi^4 d` (Kou, Chen, Chen, Gu 2023, arXiv 2303.04145),
:math:`\mathrm{SNR}^* \asymp (nd)^{-1/4}`.

Claim ``relu-boundary-slope``: the ReLU boundary has slope :math:`-1/4` in :math:`\log n` (control: the ReLU³
exponent :math:`-1/3`). Claim ``relu3-boundary-d``: the ReLU³ boundary does not depend on :math:`d` over
:math:`10^4..10^6` (control: ReLU's :math:`d^{-1/4}`). Claim ``relu3-boundary-slope`` (a finding): the ReLU³
slope in :math:`\log n` lies strictly between :math:`-1/3` and :math:`-1/4` — :math:`n\,\mathrm{SNR}^{*3}` grows like
:math:`n^{0.12}`, the log factor hidden in :math:`\tilde\Omega`; control: the literal :math:`-1/3`.

Claim ``label-noise-rise`` (Han, Huang, Zhou, Niu, Chen, Yan, Takeda, Suzuki 2025, arXiv 2505.18909):
ReLU, :math:`\tau = 0.2`, :math:`n = 64`: stage I reaches a small early-stopped test error, stage II memorises
the flipped samples and the test error rises to :math:`\ge \tau/2` — measured only in the regime
:math:`d/n \le 2`, :math:`n\,\mathrm{SNR}^2 \le 2`; at :math:`d/n = 8, 32` and at :math:`n\,\mathrm{SNR}^2 = 4` the
comparison reports the point as out of regime. Control: no rise (final error :math:`\le \tau/2`).
"""

import sympy as sp

from flt_theory.systems import assert_claim
from flt_theory.systems.signal_noise import laws

CLAIMS = [
    "signal-noise/relu-boundary-slope",
    "signal-noise/relu-boundary-d",
    "signal-noise/relu3-boundary-d",
    "signal-noise/relu3-boundary-slope",
    "signal-noise/relu-growth-slopes",
    "signal-noise/relu3-growth-exponent",
    "signal-noise/label-noise-rise",
]

S = laws.SYMBOLS


def test_prediction():
    # early-phase increments from the GD update with -l'(0) = 1/2
    assert laws.logistic_slope_at_zero() == sp.Rational(-1, 2)
    assert sp.simplify(laws.signal_increment(3) - 3 * S["eta"] * S["mu"] ** 2 * (1 - 2 * S["tau"]) * S["A"] ** 2 / (4 * S["m"])) == 0
    slopes = laws.growth_slopes()
    assert slopes.value[0] == S["eta"] * S["mu"] ** 2 * (1 - 2 * S["tau"]) / (4 * S["m"])
    assert sp.simplify(slopes.value[1] - S["eta"] * S["sigma_xi"] ** 2 * (S["d"] - 1) / (2 * S["n"] * S["m"])) == 0
    # exponents of the boundaries and of the growth recursion, read from the laws
    assert laws.kou_boundary().exponent("n") == laws.kou_boundary().exponent("d") == -0.25
    assert abs(laws.cao_boundary(3).exponent("n") + 1 / 3) < 1e-12 and laws.cao_boundary(3).exponent("d") == 0
    assert laws.growth_exponent(3).exponent("A") == 2 and laws.literal_gamma_recursion(3).exponent("gamma") == 2
    assert laws.relu_q_slope_finding(3).value == sp.Interval.open(sp.Rational(-1, 3), sp.Rational(-1, 4))
    # label noise: tau/2 in the regime, undefined outside it
    law = laws.label_noise_rise(2, 2)
    assert law.number(tau=0.2, d=128, n=64, snr=sp.sqrt(sp.Rational(2, 64))) == 0.1
    assert laws.value_in_regime(law, tau=0.2, d=512, n=64, snr=sp.sqrt(sp.Rational(2, 64))) != 0.1
    assert [x.status for x in (laws.relu_q_slope_finding(3), laws.growth_exponent(3))] == ["finding", "finding"]


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)
