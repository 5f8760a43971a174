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

Ladder (``test_boundary_ladder``): the local exponent of :math:`\mathrm{SNR}^*(n)` between adjacent :math:`n`,
per seed (small scale, 6 seeds): −0.502 [−0.512, −0.493] at :math:`\sqrt{16\cdot 32} \approx 22.6` and −0.500
[−0.506, −0.493] at :math:`\sqrt{32\cdot 64} \approx 45.3`: the law's −1/2 at both rungs (the paper scale adds
:math:`n = 128`, a third rung).
"""

import sympy as sp

from flt_theory.systems import assert_claim, get_claim, measure
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


def test_boundary_ladder():
    """The boundary's local exponent between adjacent n, each rung inside its interval, against the law's -1/2."""
    claim = get_claim("attention/boundary")
    rungs = claim.ladder(measure(claim, "small"))
    print([(round(r["size"]["n"], 1), round(r["estimate"], 3), [round(c, 3) for c in r["ci"]]) for r in rungs])
    assert len(rungs) >= 2 and all(r["ci"][0] <= r["estimate"] <= r["ci"][1] for r in rungs)
    assert all(r["predicted"] == -0.5 for r in rungs)
