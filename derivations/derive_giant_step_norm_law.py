r"""The norm law of one giant step: :math:`\|w_i^1\|^2 - 1 \asymp d\eta^2/(np^2)`.

Derivation. :math:`w_i^1 = w_i^0 + \frac{\eta a_i}{p}\hat g_i` with
:math:`\hat g_i = \frac1n\sum_\mu f^*(x_\mu)\sigma'(\langle w_i^0, x_\mu\rangle)x_\mu` (symmetric
initialisation: :math:`\hat f \equiv 0`). Its fluctuation around the mean has covariance
:math:`\frac1n\mathrm{Cov}(f^*\sigma' x)`, of trace :math:`\approx \frac dn\mathbb E[f^{*2}\sigma'^2]`,
so :math:`\|w_i^1\|^2 - 1 = \frac{\eta^2}{p^2}\big(\frac dn K + O(1)\big) + O(\text{cross})`,
:math:`K = \mathbb E[f^{*2}\sigma'^2]`. At fixed :math:`\eta = p` and :math:`n \ll d` the noise term
dominates: exponents :math:`(1, -1)` in :math:`(d, n)`. The :math:`O(1)` signal part is a correction
:math:`1 + O(n/d)`: it vanishes like :math:`d^{-1}` along :math:`d` and like :math:`n^{+1}` along :math:`n`, so the law
in :math:`n` is one of :math:`n/d \to 0`. At ``paper`` (5 values of each) both exponents are decided in the limit
(effective exponents of the grid's means over the other size, extrapolated with corrections to scaling, no
tolerance: :func:`flt_theory.systems.giant_step.comparisons.compare_norm_law`); at ``small`` (4 of each) one joint fit
within ± 0.1, with its effective exponents shown. Measured at ``paper`` (768 seeds, d = 256..4096, n = 8..128):
effective exponents of d 0.994, 0.909, 1.056, 0.991 (limit 0.993 [0.848, 1.244]) and of n −1.003, −1.012, −1.013,
−0.979 (limit −0.994 [−1.155, −0.939]); the control's p = 2.2e-56. 768 seeds because :math:`y` is heavy-tailed at
small :math:`n`: with 96 the paper decision rejected the exponent-of-n mutants ±1/2 in only 7 and 9 of 20 seed sets
at the catalogue's level (now 20/20), the control in 18/20 (now 20/20).

Negative control: exponents :math:`(1, -2)`.
"""

from flt_theory.symbolic import SYMBOLS, Target
from flt_theory.systems import assert_claim
from flt_theory.systems.giant_step.laws import giant_step_laws

CLAIMS = ["giant-step/norm-law"]


def test_prediction():
    law = next(l for l in giant_step_laws(Target.from_links(["z + He2(z)"])) if l.name == "norm law")
    d, n, p, eta = (SYMBOLS[k] for k in ("d", "n", "p", "eta"))
    assert law.value == d * eta**2 / (n * p**2)
    assert [law.exponent(x) for x in ("d", "eta", "n", "p")] == [1, 2, -1, -2]


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)
