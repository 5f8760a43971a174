r"""Feature emergence from input structure, and the advantage over fixed features (dictionary learning).

Setting (Shi, Wei, Liang 2022, arXiv 2206.01717; simulator
:func:`flt_theory.systems.dictionary.model.train_dictionary`). :math:`x = M\phi \in \mathbb R^{64}`, :math:`M` with
orthonormal columns :math:`M_1..M_{64}`; :math:`k = 4` relevant patterns :math:`A`; with input structure the irrelevant
:math:`\phi_i` are iid Bernoulli(0.25), the relevant count :math:`c` is uniform on :math:`\{1,2,3,4\}` (a uniform
:math:`c`-subset of :math:`A` is active); label :math:`y = +1` iff :math:`c` is even. Network
:math:`g(x) = \sum_{i\le 128} a_i\sigma(\langle w_i,x\rangle + b_i)`, :math:`\sigma(z) = \min(1,\max(0,z))`, symmetric
Gaussian initialisation (:math:`g \equiv 0`), hinge loss + L2, trained in the two stages of the source: one GD step on
:math:`W` with :math:`\eta_1 = 40` and weight decay :math:`1/\eta_1` (which forgets :math:`W^{(0)}`), then the second
layer to optimum (convex; Huberised hinge, :math:`\lambda = 10^{-4}`). Fixed features: the same width, random directions
with the learned norms, the same second-layer problem.

Claim 1 (``dictionary/gamma``). For this label rule :math:`\gamma = \operatorname{Cov}(y, \phi_i) = 1/(2k) = 1/8`
for :math:`i \in A` (derivation in :mod:`flt_theory.systems.dictionary`: :math:`\mathbb E[\phi_i\mid c] = c/k` and
each pair of counts :math:`(2j-1, 2j)` contributes :math:`+1`); without structure, 0. Measured on the training
set. Control: :math:`\gamma = 0`.

Claim 2 (``dictionary/emergence``). Derivation: at initialisation :math:`b_i \in (0,1)` for most neurons and
:math:`\langle w_i, x\rangle \approx 0`, so :math:`\sigma' = 1` and the first gradient is
:math:`-a_i\mathbb E_n[yx] = -a_i M\mathbb E_n[y\phi] = -a_i(\gamma\sum_{i\in A}M_i + \text{noise})`, the noise of norm
:math:`\approx\sqrt{\mathbb E\|x\|^2/n} \approx 0.07` against :math:`\gamma\sqrt k = 0.25`: after the step every such
neuron has :math:`|\cos(w_i, \sum_A M_i)| \approx 0.97`. Measured: the fraction above 0.9 goes from 0 to
about 0.96 (the rest are the neurons with :math:`b_i \notin (0,1)`, which get no gradient). Control: the
same fraction around :math:`\pm\sum_{i\in B}M_i` for :math:`k` irrelevant patterns :math:`B` is ≈ 0.

Claim 3 (``dictionary/advantage``). With the learned neurons :math:`\sigma(c_i\, c/\sqrt k\cdot\ldots + b_i)` are
piecewise-linear functions of the count with breakpoints spread by :math:`(a_i, b_i)`, enough to represent
the parity of :math:`c`: test error ≈ 1% versus ≈ 43% for random features of the same width and the same
norm penalty (they only pick up the linear correlation :math:`\gamma`, and not even all of it).

Claim 4 (``dictionary/no-structure``). With :math:`\phi` uniform, :math:`\gamma = 0` and the parity of
:math:`c \sim \mathrm{Bin}(4, \tfrac12)` is uncorrelated with every product of fewer than four coordinates: the
feature step has no signal, no neuron emerges, the network is at chance (≈ 0.5), like the fixed
features — the advantage needs the input structure. Control: "the network keeps its structured accuracy".
"""

import sympy as sp

from flt_theory.systems import assert_claim, get_claim, measure
from flt_theory.systems.dictionary import laws as system

CLAIMS = ["dictionary/gamma", "dictionary/emergence", "dictionary/advantage", "dictionary/no-structure"]


def test_prediction_gamma_and_balance():
    assert system.dictionary_gamma(4) == sp.Rational(1, 8)
    assert all(system.dictionary_gamma(k) == sp.Rational(1, 2 * k) for k in (2, 4, 6, 8, 10))
    assert all(system.dictionary_gamma(k, structured=False) == 0 for k in (2, 4, 6))
    # balanced classes in both cases: P(c even) = 1/2
    k = 4
    assert sum(sp.Rational(1, k) for c in range(1, k + 1) if c % 2 == 0) == sp.Rational(1, 2)
    assert sum(sp.binomial(k, c) for c in range(0, k + 1, 2)) / sp.Integer(2) ** k == sp.Rational(1, 2)


def test_laws_have_latex():
    for law in system.dictionary_laws():
        assert law.latex().strip() and law.source.arxiv == "2206.01717"


def test_claim(claim_key, scale):
    print(assert_claim(claim_key, scale).message)


def test_observables():
    """The numbers behind the claims (the same stored measurement as the claims; printed for the report)."""
    frame = measure(get_claim("dictionary/no-structure"), "small")
    print(frame[["structured", "seed", "gamma_hat", "cluster_initial", "cluster_relevant", "test_error", "fixed_error"]]
          .to_string(index=False))
    structured = frame[frame["structured"] == 1]
    assert structured["cluster_relevant"].mean() > structured["cluster_initial"].mean()
