r"""One giant step, leap index 2: the threshold :math:`n \asymp d^2`, and a student that cannot learn.

Claim (Dandi, Krzakala, Loureiro, Pesce, Stephan 2023, arXiv 2305.18270, Theorems 1 and 3). Target :math:`f^* =
\mathrm{He}_2(z_1)`
(:math:`\ell = 2`), ReLU student, :math:`\eta = p\sqrt d`, :math:`n = d^\kappa`: learning for
:math:`\kappa \ge 2`, none for :math:`\kappa < 2`.

Derivation. :math:`\langle w_i^1, w^*\rangle \approx \frac{\eta a_i}{p} c_\sigma \mu^*_2
\langle w_i^0, w^*\rangle` with :math:`c_\sigma = \mu_2(\sigma)/1! = 1/\sqrt{2\pi}` for ReLU and
:math:`\langle w_i^0, w^*\rangle \sim d^{-1/2}`, so :math:`\eta = p\sqrt d` makes it :math:`\Theta(1)`;
the noise is :math:`d\eta^2/(np^2) = d^{2-\kappa}`. Hence the excess mass on :math:`V^*` scales as
:math:`d^{\min(0,\kappa-2)}`: slope :math:`\kappa - 2` in :math:`\log d` below the threshold, 0 above.
Measured at :math:`\kappa \in \{1, 1.5, 2\}` over :math:`d \in \{64,128,256\}`.

Student with :math:`c_\sigma = 0` (derived prediction). For :math:`\sigma = \tanh` (odd),
:math:`\mu_2(\tanh) = 0`; and :math:`C_j(f^*) = 0` for every :math:`j \ne 2`, so every order of the
population update vanishes along :math:`V^*`: nothing is learned at any :math:`\kappa`.

Negative controls: threshold :math:`\kappa^* = 1` (predicts slope 0 at :math:`\kappa = 1, 1.5`); "the
tanh student learns".
"""

from flt_theory.symbolic import Target, leap_index, one_step_subspace, student_coefficient
from flt_theory.symbolic.hermite import hermite_coefficients
from flt_theory.systems import assert_claim

CLAIMS = ["giant-step/leap2-threshold", "giant-step/vanishing-student-coefficient"]


def test_prediction():
    target = Target.from_links(["He2(z)"])
    assert leap_index(target) == 2
    assert one_step_subspace(target, 1.5).dim == 0
    assert one_step_subspace(target, 2).dim == 1
    assert one_step_subspace(target, 2, activation="tanh").dim == 0
    assert student_coefficient("tanh", 2) == 0
    assert all(abs(v) < 1e-12 for v in hermite_coefficients("tanh", 6).values[0::2])  # tanh is odd


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)
