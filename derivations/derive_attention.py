r"""Single-head softmax attention on signal-noise tokens: benign vs harmful overfitting and its boundary.

Claim (Jiang, Huang, Zhang, Suzuki, Nie 2024, arXiv 2409.19345, Theorems 4.1-4.2). Tokens
:math:`x^{(1)} = y\mu`, :math:`x^{(2..L)}` Gaussian noise; GD to :math:`L_S \le \varepsilon`. Benign (test loss
:math:`\to 0`, attention on the signal token, value along :math:`\mu`) when :math:`n\,\mathrm{SNR}^2` is large,
harmful (test loss :math:`\Theta(1)`) when it is small.

Derivation of the boundary (see :mod:`flt_theory.systems.attention.laws`). Near-uniform attention: the
value's signal margin grows by :math:`\propto\|\mu\|^2` per step and each sample's noise margin by
:math:`\propto (L-1)\sigma_\xi^2 d/n`; GD stops when the training margin reaches :math:`\log(1/\varepsilon)`,
so the signal margin a test sample sees is :math:`\log(1/\varepsilon)\,r/(1 + r)`,
:math:`r = n\,\mathrm{SNR}^2/(L-1)`. For :math:`d \gg n` the test loss is a function of :math:`n\,\mathrm{SNR}^2`
alone; its level set is :math:`\mathrm{SNR}^* \propto n^{-1/2}`. Negative control: :math:`n^{-1/4}`.
Sign-GD (Li et al. 2025, arXiv 2410.04870): at a point where GD is benign its value memorises the noise and
the test loss stays :math:`\Theta(1)`; control: GD's benign outcome.
"""

import sympy as sp

from flt_theory.systems import assert_claim
from flt_theory.systems.attention.laws import N, boundary_law, regime_law

CLAIMS = ["attention/benign", "attention/harmful", "attention/boundary", "attention/sign-gd-memorises-noise"]


def test_prediction():
    r = sp.Symbol("r", positive=True)
    margin = sp.log(20) * r / (1 + r)  # eps = 0.05
    loss = sp.log(1 + sp.exp(-margin))
    assert sp.limit(loss, r, 0) == sp.log(2) and sp.limit(loss, r, sp.oo) == sp.log(sp.Rational(21, 20))
    snr, c = sp.symbols("SNR c", positive=True)
    star = sp.solve(sp.Eq(N * snr**2, c), snr)[0]
    assert sp.simplify(star / N ** sp.Rational(-1, 2)).free_symbols == {c}
    assert boundary_law().exponent("n") == -0.5
    assert regime_law("benign").number() == 0 and regime_law("harmful").relation == "geq"


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)
