r"""Second layer after giant steps: the conditional-variance lower bound and the ordering of regimes.

Claim (Dandi et al. 2023, arXiv 2305.18270, Theorem for :math:`p = O(1)`). If the first layer learned only
:math:`U \subseteq V^*`, any bounded second layer has test error
:math:`\ge \mathbb E[\mathrm{Var}(f^*(x)\mid P_U x)] + o(1)`.

Derivation. :math:`\hat f(x) = \frac1p\sum_i a_i\sigma(\langle w_i, x\rangle)` with every
:math:`w_i \in U \oplus (V^*)^\perp`-directions that carry no information on :math:`f^*` beyond
:math:`P_U x`; the best such predictor is :math:`\mathbb E[f^*\mid P_U x]`, whose error is
:math:`\mathbb E[\mathrm{Var}(f^*\mid P_U x)] = \|P_{U,>0} f^*\|_\gamma^2` (the Hermite terms with
positive degree on :math:`U^\perp`, :func:`flt_theory.symbolic.conditional_variance`). For
:math:`f^* = z_1 + z_1 z_2` the staircase is :math:`\{0\} \subset \mathrm{span}(w_1) \subset V^*`
and the bounds after :math:`T = 0, 1, 2` steps are :math:`\|f^*\|^2 = 2`,
:math:`\|z_1 z_2\|^2 = 1` and :math:`0`: a smaller example with the same ordering as the seed's
five-regime table (which is reproduced symbolically in ``tests/symbolic``).

Measurement: ridge on fresh data after :math:`T` steps (:math:`d = 128`, :math:`p = 8`); each bound
holds (consistent with its CI) and the errors strictly decrease with :math:`T`. Negative control: the
wrong staircase :math:`U_2 = U_1`, whose bound 1 after two steps the measured error violates.
"""

from flt_theory.symbolic import Subspace, conditional_variance, staircase
from flt_theory.systems import assert_claim

CLAIMS = ["giant-step/second-layer-bounds"]
from flt_theory.systems.giant_step.declaration import SECOND_LAYER_TARGET, target


def test_prediction():
    f = target(SECOND_LAYER_TARGET)
    ladder = [Subspace.zero(2)] + staircase(f, 2)
    assert [conditional_variance(f, u) for u in ladder] == [2, 1, 0]


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)
