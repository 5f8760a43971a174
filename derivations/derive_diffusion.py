r"""Diffusion (denoising score matching) learns balanced features; classification learns the dominant one.

Claim (Han, Huang, Cao, Zou 2025, arXiv 2412.01021, Theorems 3.1-3.2). On two-patch data
:math:`x = (\mu_y, \xi)` the denoiser :math:`f_p(W, x) = \frac{1}{\sqrt m}\sum_r\sigma(\langle w_r, x\rangle)w_r`
trained by DSM reaches a stationary point with :math:`|\langle w_r, \mu\rangle|/|\langle w_r, \xi_i\rangle| =
\Theta(n\,\mathrm{SNR}^2)`, while the classification CNN learns the signal when :math:`n\,\mathrm{SNR}^2 \ge \bar C`
and the noise when :math:`\le \underline C`.

Derivation (see :mod:`flt_theory.systems.diffusion.laws`). With :math:`\sigma(z) = z^2`, Stein's lemma gives
:math:`\mathbb E_\varepsilon\langle f, \varepsilon\rangle
= \frac{2\alpha\beta}{\sqrt m}\sum_r\|w_r\|^2\langle w_r, x\rangle`:
the leading drive is the mean patch :math:`\bar x`, whose signal part :math:`\frac14(\mu_{+1} + \mu_{-1})` collects
all samples while each noise patch enters with weight :math:`\frac{1}{2n}`; so
:math:`R \approx (\|\mu\|^2/4)/(\sigma_\xi^2 d/(2n)) = n\,\mathrm{SNR}^2/2`: exponents :math:`(1, 2)` in
:math:`(n, \mathrm{SNR})`. Control: :math:`(n\,\mathrm{SNR}^2)^2`. For classification the control is the
balanced law itself (slope 1), which the winner-take-all CNN violates.

Ladder (``test_balanced_ladder``, small scale, 6 seeds): :math:`R/(n\,\mathrm{SNR}^2)` at each point of the law's
regime against the law's 1/2: 0.507 [0.480, 0.534], 0.493 [0.466, 0.518], 0.496 [0.475, 0.518], 0.483 [0.457, 0.509],
0.480 [0.460, 0.501], 0.375 [0.364, 0.388] at :math:`n\,\mathrm{SNR}^2` = 0.04, 0.16, 0.36, 1.44, 4, 16
(:math:`n` = 16, 64, 16, 64, 16, 64). The law holds to 5% up to :math:`n\,\mathrm{SNR}^2 = 4`; at 16
(:math:`n = 64`, :math:`\|\mu\| = 1/2`) the :math:`O(\|\mu\|^2)` and :math:`O(\sqrt{n/d})` corrections of
:mod:`flt_theory.systems.diffusion.laws` lower it by 25%. Trend of the deviation from 1/2: −0.056 per decade
[−0.065, −0.047] (:func:`flt_theory.compare.ladder_trend`): it grows with :math:`n\,\mathrm{SNR}^2` — the law is
one of small patches (:math:`d \to \infty`, :math:`\|\mu\| \to 0`), not a large-:math:`n\,\mathrm{SNR}^2` limit.
"""

import math

import sympy as sp
import torch

from flt_theory.compare import ladder_trend
from flt_theory.systems import assert_claim, get_claim, measure
from flt_theory.systems.diffusion.laws import balanced_law
from flt_theory.systems.diffusion.model import dsm_loss

CLAIMS = ["diffusion/balanced-features", "diffusion/classification-dominant"]


def test_prediction():
    n, snr, mu, sigma, d = sp.symbols("n SNR mu sigma d", positive=True)
    ratio = (mu**2 / 4) / (sigma**2 * d / (2 * n))
    assert sp.simplify(ratio.subs(mu, snr * sigma * sp.sqrt(d)) - balanced_law().value) == 0
    assert (balanced_law().exponent("n"), balanced_law().exponent("SNR")) == (1, 2)


def test_closed_form_against_monte_carlo():
    """The closed-form DSM loss equals a Monte-Carlo average over the noise (4 standard errors)."""
    gen = torch.Generator().manual_seed(0)
    w = 0.5 * torch.randn(1, 3, 5, generator=gen, dtype=torch.float64)
    x = torch.randn(1, 2, 5, generator=gen, dtype=torch.float64)
    t = 0.5
    alpha, beta = math.exp(-t), math.sqrt(1 - math.exp(-2 * t))
    eps = torch.randn(200_000, 2, 5, generator=gen, dtype=torch.float64)
    u = (alpha * x[0] + beta * eps) @ w[0].T  # (K, 2, m)
    f = (u**2) @ w[0] / math.sqrt(3)
    samples = ((f - eps) ** 2).sum(-1).mean(-1) - 5
    closed = float(dsm_loss(w, x, t)[0])
    assert abs(float(samples.mean()) - closed) < 4 * float(samples.std()) / math.sqrt(len(samples))


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)


def test_balanced_ladder():
    """R/(n SNR^2) at each point of the law's regime, against the law's 1/2 (module docstring: the trend)."""
    claim = get_claim("diffusion/balanced-features")
    rungs = claim.ladder(measure(claim, "small"))
    trend = ladder_trend(rungs, size="n_snr2", literal=0.5)
    print([(r["size"]["n_snr2"], r["size"]["n"], round(r["estimate"], 3), [round(c, 3) for c in r["ci"]])
           for r in rungs], {k: trend[k] for k in ("slope_per_decade", "slope_ci", "shrinking", "persisting")})
    assert len(rungs) >= 2 and all(r["ci"][0] <= r["estimate"] <= r["ci"][1] for r in rungs)
    assert all(r["predicted"] == 0.5 for r in rungs)
