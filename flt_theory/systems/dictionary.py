r"""System 4 of CLAIMS.md: dictionary-learning inputs, feature emergence, advantage over fixed features.

Source: seed ``001`` (Shi, Wei, Liang, ICLR 2022). Simulator: :func:`flt_theory.numeric.train_dictionary`
(data, network, two-stage training and fixed features are described there). Laws (as
:class:`~flt_theory.symbolic.laws.Law` objects, :func:`dictionary_laws`) and their exact constants are
derived here with sympy:

* :math:`\gamma` for the label rule used (:math:`y = +1` iff the number :math:`c` of active relevant patterns
  is even, :math:`c` uniform on :math:`\{1..k\}`, the active ones a uniform :math:`c`-subset of :math:`A`):
  :math:`\mathbb E[\phi_i\mid c] = c/k` for :math:`i \in A`, so
  :math:`\gamma = \operatorname{Cov}(y, \phi_i) = \operatorname{Cov}(y, c)/k = \frac1k\sum_{c=1}^k \frac1k\, y(c)\, c`
  (:math:`\mathbb E y = 0`) :math:`= \frac{1}{k^2}\cdot\frac k2 = \frac{1}{2k}` (the :math:`k/2` pairs
  :math:`(2j-1, 2j)` each contribute :math:`2j - (2j-1) = 1`). Without input structure (:math:`\phi` uniform),
  the parity of :math:`c \sim \mathrm{Bin}(k, \tfrac12)` is uncorrelated with every product of fewer than :math:`k`
  coordinates, in particular :math:`\gamma = 0`: no first-order signal for gradient descent, and the SQ
  lower bound of the seed applies.
* emergence: after the feature step every neuron is :math:`\eta_1 a_i(\gamma\sqrt k\, v + \text{noise})`, so its
  cosine with :math:`\pm v = \pm\sum_{i\in A}M_i/\sqrt k` is
  :math:`\approx (1 + \mathbb E\|x\|^2/(n\gamma^2 k))^{-1/2} \approx 0.97` at the small sizes (noise of
  :math:`\mathbb E_n[yx]`: :math:`\sqrt{\mathbb E\|x\|^2/n}`).

Measurements (cached per scale): one structured and one unstructured run, each with its fixed-feature
model of the same width.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

from ..compare import check_at_least, check_at_most
from ..numeric.backend import to_numpy as _np
from ..compare.result import CheckResult, all_of as _all_of
from ..errors import InvalidParameterError
from ..numeric.dictionary import DictionaryResult, train_dictionary
from ..symbolic.laws import Law
from .claims import Claim, check_scale, register

__all__ = ["SIZES", "SYSTEM", "dictionary_gamma", "dictionary_laws", "dictionary_run", "wrong_direction_fraction"]

SYSTEM = "dictionary"
SOURCE = "Shi, Wei, Liang, ICLR 2022 (seed 001)"


@dataclass(frozen=True)
class _Sizes:
    seeds: int
    D: int
    k: int
    p0: float
    width: int
    n: int
    n_test: int
    feature_lr: float
    iterations: int


SIZES = {
    "small": _Sizes(6, 64, 4, 0.25, 128, 4096, 4096, 40.0, 150),
    "paper": _Sizes(12, 128, 4, 0.25, 256, 8192, 8192, 56.0, 300),
}
L2 = 1e-4


def dictionary_gamma(k: int, structured: bool = True) -> sp.Rational:
    r""":math:`\gamma = \mathbb E[y\phi_i] - \mathbb E[y]\mathbb E[\phi_i]` for :math:`i \in A` under the module's label rule,
    computed from its definition (a sum over the count :math:`c`): :math:`1/(2k)` with input structure, 0 without.

    >>> dictionary_gamma(4), dictionary_gamma(6), dictionary_gamma(4, structured=False)
    (1/8, 1/12, 0)
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 2 or k % 2:
        raise InvalidParameterError(f"The 'k' parameter of dictionary_gamma must be an even int >= 2. Got {k!r} instead.")
    counts = range(0, k + 1)
    if structured:
        prob = {c: sp.Rational(1, k) if c >= 1 else sp.Integer(0) for c in counts}
    else:
        prob = {c: sp.binomial(k, c) / sp.Integer(2) ** k for c in counts}
    label = {c: 1 if c % 2 == 0 else -1 for c in counts}
    e_y = sum(prob[c] * label[c] for c in counts)
    e_phi = sum(prob[c] * sp.Rational(c, k) for c in counts)
    e_y_phi = sum(prob[c] * label[c] * sp.Rational(c, k) for c in counts)
    return sp.nsimplify(e_y_phi - e_y * e_phi)


def dictionary_laws(k: int = 4) -> list[Law]:
    r"""The laws of the dictionary system for ``k`` relevant patterns.

    >>> [law.name for law in dictionary_laws()]
    ['gamma', 'feature emergence', 'advantage over fixed features', 'no input structure']
    >>> print(dictionary_laws()[0].latex())
    \gamma = \frac{1}{8} \quad (k = 4,\ c \sim \mathrm{Unif}\{1..k\},\ y = (-1)^{c})
    """
    gamma = dictionary_gamma(k)
    cond = (rf"k = {k}", r"c \sim \mathrm{Unif}\{1..k\}", r"y = (-1)^{c}")
    return [
        Law("gamma", r"\gamma", "eq", sp.latex(gamma), gamma, {}, cond, "derived", SOURCE),
        Law("feature emergence", r"\#\{i : |\cos(w_i, \sum_{j\in A} M_j)| > 0.9\}/2m", "to", "1", sp.Integer(1), {},
            (r"\gamma > 0", r"n \gg \mathbb{E}\|x\|^2/(\gamma^2 k)"), "theorem", SOURCE),
        Law("advantage over fixed features", r"\mathrm{err}(\text{network})", "eq",
            r"o(\mathrm{err}(\text{fixed features, same width, } \|\theta\| \le B))", None, {},
            (r"\gamma > 0", r"\Psi \text{ data independent}"), "theorem", SOURCE),
        Law("no input structure", r"\mathrm{err}(\text{network})", "geq", r"\tfrac12 - o(1)", sp.Rational(1, 2), {},
            (r"\phi \sim \mathrm{Unif}\{0,1\}^D", r"\gamma = 0"), "theorem", SOURCE),
    ]


@lru_cache(maxsize=8)
def dictionary_run(scale: str, structured: bool = True) -> DictionaryResult:
    """The structured (or unstructured) run at ``scale``, network and fixed features."""
    s = SIZES[check_scale(scale)]
    return train_dictionary(s.seeds, D=s.D, k=s.k, p0=s.p0, width=s.width, n=s.n, n_test=s.n_test, structured=structured,
                            feature_lr=s.feature_lr, l2=L2, solver_iterations=s.iterations, device="auto")


def wrong_direction_fraction(res: DictionaryResult, threshold: float = 0.9) -> np.ndarray:
    r"""Cluster fraction around :math:`\pm\sum_{i\in B}M_i` for :math:`B` the first :math:`k` *irrelevant* patterns
    (the negative control of emergence), per seed."""
    k = res.config.k
    irrelevant = (~res.relevant).to(res.M.dtype)
    first = irrelevant * (irrelevant.cumsum(-1) <= k)
    u = (res.M * first[..., None]).sum(-2)
    u = u / u.norm(dim=-1, keepdim=True)
    cos = (res.weights @ u[..., None]).squeeze(-1).abs() / res.weights.norm(dim=-1)
    return _np((cos > threshold).to(cos.dtype).mean(-1))






def _gamma(scale: str, structured_law: bool) -> CheckResult:
    res = dictionary_run(scale, True)
    law = float(dictionary_gamma(res.config.k, structured_law))
    measured = _np(res.gamma_hat)
    return _all_of(f"γ = {law:g} (training-set covariance, mean over A)", law, [
        check_at_least(measured, law, name=f"γ̂ ≥ {law:g}"), check_at_most(measured, law, name=f"γ̂ ≤ {law:g}"),
    ])


def _emergence(scale: str, wrong: bool) -> CheckResult:
    res = dictionary_run(scale, True)
    frac = _np(res.cluster_fraction())  # (T+1, S)
    start = check_at_most(frac[0], 0.05, mode="demonstrated", name="cluster fraction at t = 0 ≤ 0.05")
    if wrong:
        end = check_at_least(wrong_direction_fraction(res), 0.8, mode="demonstrated",
                             name="fraction with |cos| > 0.9 to ±Σ_{i∈B} M_i (B irrelevant) ≥ 0.8")
    else:
        end = check_at_least(frac[-1], 0.8, mode="demonstrated", name="fraction with |cos(w_i, Σ_A M_i)| > 0.9 ≥ 0.8")
    return _all_of("feature emergence" + (" (wrong cluster)" if wrong else ""), "0 → most neurons", [start, end])


def _advantage(scale: str, net_better: bool) -> CheckResult:
    res = dictionary_run(scale, True)
    net, fixed = _np(res.test_error), _np(res.fixed_test_error)
    if net_better:
        parts = [check_at_most(net, 0.1, mode="demonstrated", name="network test error ≤ 0.1"),
                 check_at_least(fixed - net, 0.2, mode="demonstrated", name="fixed − network error ≥ 0.2")]
    else:
        parts = [check_at_most(fixed - net, 0.0, mode="demonstrated", name="fixed features at least as accurate")]
    return _all_of(f"network vs fixed features, width {res.config.width}", "network ≪ fixed" if net_better else "fixed ≤ network", parts)


def _no_structure(scale: str, advantage_kept: bool) -> CheckResult:
    res = dictionary_run(scale, False)
    net, fixed = _np(res.test_error), _np(res.fixed_test_error)
    frac = _np(res.cluster_fraction())[-1]
    if advantage_kept:
        structured = _np(dictionary_run(scale, True).test_error)
        return check_at_most(net, float(structured.mean()) + 0.1, mode="demonstrated",
                             name="φ uniform: network error ≤ its structured error + 0.1 (advantage kept)")
    return _all_of("φ uniform: the network is at chance, like fixed features", "err ≥ 1/2 − o(1)", [
        check_at_least(net, 0.45, mode="demonstrated", name="network test error ≥ 0.45"),
        check_at_least(fixed - net, -0.05, mode="demonstrated", name="network no better than fixed features − 0.05"),
        check_at_most(frac, 0.05, mode="demonstrated", name="no emergence (cluster fraction ≤ 0.05)"),
    ])


def _register_all() -> None:
    laws = {law.name: law for law in dictionary_laws(SIZES["small"].k)}
    register(Claim(
        SYSTEM, "gamma", laws["gamma"], "the label rule has γ = 1/(2k) > 0 with input structure",
        lambda scale: _gamma(scale, True), lambda scale: _gamma(scale, False), "γ = 0 (its value without structure)",
    ))
    register(Claim(
        SYSTEM, "emergence", laws["feature emergence"],
        "neurons cluster at ±Σ_{i∈A} M_i: the fraction with cosine > 0.9 grows from 0 to most neurons",
        lambda scale: _emergence(scale, False), lambda scale: _emergence(scale, True),
        "the neurons cluster at ±Σ_{i∈B} M_i for k irrelevant patterns B",
    ))
    register(Claim(
        SYSTEM, "advantage", laws["advantage over fixed features"],
        "at equal width the network's error is ≤ 0.1 and ≥ 0.2 below random fixed features (same second-layer norm penalty)",
        lambda scale: _advantage(scale, True), lambda scale: _advantage(scale, False), "fixed features are at least as accurate",
    ))
    register(Claim(
        SYSTEM, "no-structure", laws["no input structure"],
        "with φ uniform (γ = 0) the network is at chance, no better than fixed features, and no feature emerges",
        lambda scale: _no_structure(scale, False), lambda scale: _no_structure(scale, True),
        "the network keeps its structured-data accuracy",
    ))


_register_all()
