r"""Laws of virtual covariance learning (sympy only).

Source: Cha & Lee, "Feature Learning as a Virtual Covariance Learning" (Korea University; Theorems 2 and 3 and
the VCL update are numbered as there), developed in Cha, Beaglehole, Radhakrishnan, Lee 2026, "The Weight Gram
Matrix Captures Sequential Feature Linearization in Deep Networks", arXiv 2605.06258.

Setting. :math:`h_{l+1} = \sigma(W_l h_l)`; a batch is the columns of :math:`H \in \mathbb R^{n\times B}`
(:math:`n = d_l`), :math:`Z = W H`, :math:`W \in \mathbb R^{m\times n}`, and :math:`\Delta = \partial L/\partial Z`
(:math:`m\times B`). The chain rule gives :math:`\nabla_W L = \Delta H^\top` and :math:`\nabla_H L = W^\top\Delta`,
whatever the loss. Actual update :math:`W^+ = W - \gamma\Delta H^\top`, virtual update
:math:`H^+ = H - \gamma W^\top\Delta` — the gradient of the SAME loss :math:`L` (a batch mean or sum).

**Pairing.** :math:`W_l` pairs with its input :math:`h_l`: :math:`W_l^\top W_l` and :math:`h_l h_l^\top` are
both :math:`d_l\times d_l` (the output :math:`h_{l+1}` has the wrong size unless :math:`d_{l+1} = d_l`).

**Theorem 2, exactly** (:func:`residual_expansion`, expanded by sympy's matrix algebra for symbolic
:math:`m, n, B`). With :math:`\widetilde{\mathrm{cov}}(H) = H H^\top = \sum_k h_k h_k^\top` (summed),

.. math:: (W^+)^\top W^+ - W^\top W - [\widetilde{\mathrm{cov}}(H^+) - \widetilde{\mathrm{cov}}(H)]
          = \gamma^2\big(H\Delta^\top\Delta H^\top - W^\top\Delta\Delta^\top W\big)
          = \gamma^2\big((\nabla_W L)^\top\nabla_W L - (\nabla_H L)(\nabla_H L)^\top\big)

with no term of order :math:`\gamma^3` or higher: the first-order terms
:math:`-\gamma(H\Delta^\top W + W^\top\Delta H^\top)` cancel identically, so the residual's log-log slope in
:math:`\gamma` is exactly 2 (``"summed"``). With the batch *average* :math:`\frac1B H H^\top` (``"mean"``) the
first-order terms no longer cancel: the residual is
:math:`-\gamma(1 - \tfrac1B)(H\Delta^\top W + W^\top\Delta H^\top) + O(\gamma^2)`, slope 1 for :math:`B \ge 2`.
(The averaged reading is first-order correct only if each :math:`h_k` is moved by the gradient of its own loss
:math:`\ell_k` while :math:`W` follows the mean loss — a different virtual update than the stated one.)

**Theorem 3** as stated: :math:`\sigma` increasing and :math:`L`-Lipschitz, :math:`\|h_{l-1}\| = 1` ⇒ elementwise
:math:`|\sigma(W^+h_{l-1}) - \sigma(Wh_{l-1})| < L^2|h_l^+ - h_l|` and
:math:`\mathrm{sgn}(\sigma(W^+h_{l-1}) - \sigma(Wh_{l-1})) = \mathrm{sgn}(h_l^+ - h_l)`. For one sample,
:math:`W^+h = z - \gamma\|h\|^2\delta` with :math:`z = Wh`, :math:`\delta = \sigma'(z)\odot g`,
:math:`g = \nabla_{h_l}L`, and :math:`h_l^+ - h_l = -\gamma g`; by the mean value theorem
:math:`\sigma(W^+h)_i - \sigma(Wh)_i = -\gamma\|h\|^2\sigma'(\xi_i)\sigma'(z_i)g_i`, hence

.. math:: |\sigma(W^+h) - \sigma(Wh)|_i \le L^2\|h\|^2\,|h^+_l - h_l|_i, \qquad
          (\sigma(W^+h) - \sigma(Wh))_i\,(h^+_l - h_l)_i \ge 0,

the strongest form that holds for every :math:`h` (:func:`theorem3_laws`). The literal form fails: the strict
inequality whenever :math:`g_i = 0` (both sides 0) and, for ReLU, on every unit active before and after the step
(:math:`\sigma'(\xi)\sigma'(z) = 1`: equality); the sign equality on dead ReLU units
(:math:`\sigma'(z_i) = 0` but :math:`g_i \ne 0`); and for :math:`\|h\| > 1` the bound :math:`L^2` itself
(ReLU: ratio exactly :math:`\|h\|^2`).

**Hypotheses** (as stated on Cha & Lee's poster; the arXiv version 2605.06258 presents the same identity as its
Feature Learning Equation, and its theorem numbers were not checked here). Theorem 2 states no condition beyond one
GD step of size :math:`\gamma > 0` on a differentiable loss (:data:`GD_STEP`); its "order :math:`\gamma^2`" is read as
:math:`\gamma \to 0`, and the identity above holds at every :math:`\gamma`. Theorem 3 assumes :math:`\sigma` increasing
(:data:`INCREASING`, read as :math:`\inf\sigma' \ge 0`, computed exactly by :func:`derivative_bounds`),
:math:`L`-Lipschitz (:math:`L = \sup\sigma'`, finite whenever :func:`lipschitz_constant` returns) and
:math:`\|h_{l-1}\| = 1` (:data:`UNIT_INPUT`). The findings on Theorem 3 at :math:`\|h\| = 1` are inside these
hypotheses; the :math:`\|h\| \ne 1` finding is outside them by design (it extends the theorem, it does not correct it).
The laws derived here carry the conditions their derivations use: the exact residual the summed covariance
(:data:`SUMMED_COVARIANCE`); the VCL law that and a first-order step, :math:`\gamma \le 1` (:data:`FIRST_ORDER_STEP`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TypedDict

import sympy as sp
from sympy.calculus.util import maximum, minimum

from ...errors import UnsupportedError
from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import THIS_PROJECT, Law, Source
from ...symbolic.target import parse_link

__all__ = [
    "CHA_LEE",
    "FIRST_ORDER_STEP",
    "GAMMA",
    "GD_STEP",
    "H_NORM",
    "INCREASING",
    "SUMMED_COVARIANCE",
    "UNIT_INPUT",
    "derivative_bounds",
    "lipschitz_constant",
    "residual_expansion",
    "residual_laws",
    "residual_order",
    "theorem3_laws",
    "vcl_laws",
]

CHA_LEE = Source(
    authors="Cha, Beaglehole, Radhakrishnan, Lee", year=2026,
    title="The Weight Gram Matrix Captures Sequential Feature Linearization in Deep Networks "
    "(after Cha & Lee, Feature Learning as a Virtual Covariance Learning)",
    arxiv="2605.06258",
)

GAMMA = sp.Symbol("gamma", positive=True)
#: :math:`\|h_{l-1}\|`.
H_NORM = sp.Symbol("R", positive=True)
_M, _N, _B = sp.symbols("m n B", integer=True, positive=True)
_Z = sp.Symbol("z", real=True)
_SLOPE_MIN = sp.Symbol("sigma_prime_inf", real=True)

#: Theorem 2's only hypothesis: one GD step of size gamma > 0 (module docstring).
GD_STEP = Hypothesis(text="one GD step of size gamma > 0 on a differentiable loss (no other condition)",
                     condition=sp.Symbol("gamma_step", real=True) > 0, where="Theorem 2")
#: Theorem 3's hypotheses: sigma increasing, and a unit-norm input of the layer.
INCREASING = Hypothesis(text="sigma increasing (inf sigma' >= 0; L-Lipschitz with L = sup sigma')",
                        condition=_SLOPE_MIN >= 0, where="Theorem 3")
UNIT_INPUT = Hypothesis(text="unit-norm input of the layer, ||h_{l-1}|| = 1", condition=sp.Eq(H_NORM, 1),
                        where="Theorem 3")
THEOREM2_READING = ("Theorem 2 states no condition beyond one GD step: 'order gamma^2' is read as gamma -> 0 and every "
                    "gamma > 0 is inside; the residual is an exact polynomial in gamma")
THEOREM3_READING = ("exact conditions, no asymptotics: ||h|| = 1 exactly, inf sigma' >= 0 computed by sympy; the "
                    "Lipschitz constant is sup sigma', so that hypothesis holds whenever L is finite")
EXACT_READING = ("derived here as an exact identity (sympy matrix algebra): it holds at every size and step; its one "
                 "condition, read exactly, is the summed virtual covariance")
_SUMMED = sp.Symbol("cov_summed", nonnegative=True)
#: What the exact residual (:func:`residual_expansion`) uses: the summed virtual covariance H H^T (with the batch mean
#: the first-order terms do not cancel). Read at a point as ``cov_summed`` (1: ``cov = "summed"``, 0: ``"mean"``).
SUMMED_COVARIANCE = Hypothesis(
    text="the summed virtual covariance cov~(H) = H H^T (cov = summed: the first-order terms cancel)",
    condition=sp.Eq(_SUMMED, 1), latex=r"\widetilde{\mathrm{cov}}(H) = H H^\top",
    where="derived here, flt_theory.systems.virtual_covariance.laws module docstring, Theorem 2 exactly")
#: The first-order argument of :func:`vcl_laws` reads the loss decrease of one step to first order in gamma: gamma -> 0,
#: read as gamma <= 1 (constant 1).
FIRST_ORDER_STEP = Hypothesis(
    text="first order in the step: gamma -> 0, read gamma <= 1 (constant 1)", condition=GAMMA <= 1,
    where="derived here, flt_theory.systems.virtual_covariance.laws.vcl_laws (first-order loss decrease "
          "gamma ||E_VCL||^2 <= gamma ||grad_W L||^2)")
VCL_READING = ("derived here (first-order argument in vcl_laws' docstring): its conditions, the summed virtual "
               "covariance (exact: the VCL target Gram is GD's to first order only then, Theorem 2) and a step of "
               "first order, gamma -> 0 read as gamma <= 1 (constant 1); the source states no condition for it")


class _HypothesesKeywords(TypedDict):
    """The ``hypotheses`` and ``hypotheses_reading`` keywords of :class:`~flt_theory.symbolic.law.Law`, together."""

    hypotheses: tuple[Hypothesis, ...]
    hypotheses_reading: str


def _matrices():
    W = sp.MatrixSymbol("W", _M, _N)
    H = sp.MatrixSymbol("H", _N, _B)
    D = sp.MatrixSymbol("Delta", _M, _B)
    return W, H, D


@lru_cache(maxsize=None)
def residual_expansion(cov: str = "summed") -> dict[int, sp.MatrixExpr]:
    r"""Gram shift minus virtual-covariance shift, by powers of :math:`\gamma` (module docstring).

    Returns ``{k: coefficient of gamma**k}`` with the zero coefficients left out; the matrices are
    ``W`` (:math:`m\times n`), ``H`` (:math:`n\times B`), ``Delta`` (:math:`m\times B`).

    >>> residual_expansion("summed")
    {2: H*Delta.T*Delta*H.T - W.T*Delta*Delta.T*W}
    >>> sorted(residual_expansion("mean"))
    [1, 2]
    """
    if cov not in ("summed", "mean"):
        raise UnsupportedError(f"The 'cov' parameter of residual_expansion must be 'summed' or 'mean'. Got {cov!r} "
                               "instead.")
    W, H, D = _matrices()
    w_plus = W - GAMMA * D * H.T
    h_plus = H - GAMMA * W.T * D
    scale = sp.Integer(1) if cov == "summed" else 1 / _B
    residual = (w_plus.T * w_plus - W.T * W - scale * (h_plus * h_plus.T - H * H.T)).expand()
    by_power: dict[int, list] = {}
    for term in sp.Add.make_args(residual) if not isinstance(residual, sp.MatAdd) else residual.args:
        coeff, mat = term.as_coeff_mmul()
        coeff = sp.sympify(coeff)
        scalars = [f for f in sp.Mul.make_args(mat) if not f.is_Matrix] if isinstance(mat, sp.MatMul) else []
        for f in scalars:
            coeff *= f
        matrix = sp.MatMul(*[f for f in mat.args if f.is_Matrix]).doit() if isinstance(mat, sp.MatMul) else mat
        power = sp.degree(coeff, GAMMA)
        by_power.setdefault(int(power), []).append((coeff / GAMMA**power) * matrix)
    out = {}
    for k, terms in sorted(by_power.items()):
        total = sp.MatAdd(*terms).doit()
        if not (total == sp.ZeroMatrix(*total.shape) or total == 0):
            out[k] = total
    return out


def residual_order(cov: str = "summed") -> int:
    r"""The lowest power of :math:`\gamma` in the residual: 2 (``"summed"``), 1 (``"mean"``, :math:`B \ge 2`).

    >>> residual_order("summed"), residual_order("mean")
    (2, 1)
    """
    return min(residual_expansion(cov))


def residual_laws() -> dict[str, Law]:
    r"""The residual's exact form and its order in :math:`\gamma`, per reading of :math:`\widetilde{\mathrm{cov}}`.

    >>> laws = residual_laws()
    >>> laws["residual order (summed)"].exponent("gamma"), laws["residual order (mean)"].exponent("gamma")
    (2, 1)
    >>> laws["residual order (summed)"].latex()
    '\\|R_l(\\gamma)\\|_F \\asymp \\gamma^{2} \\quad (\\widetilde{\\mathrm{cov}}(H) = H H^\\top \\text{ (summed)})'
    """
    summed, mean = residual_order("summed"), residual_order("mean")
    exact = GAMMA**summed * residual_expansion("summed")[summed]
    lhs = r"(W^+)^\top W^+ - W^\top W - [\widetilde{\mathrm{cov}}(H^+) - \widetilde{\mathrm{cov}}(H)]"
    return {
        "residual (summed)": Law(
            name="residual (summed)", lhs=lhs, relation="eq", value=exact,
            conditions=(r"\widetilde{\mathrm{cov}}(H) = H H^\top", r"\Delta = \partial L/\partial (WH)"),
            status="derived", source=CHA_LEE, hypotheses=(SUMMED_COVARIANCE,), hypotheses_reading=EXACT_READING,
            words="Theorem 2's residual is exactly γ²(HΔᵀΔHᵀ − WᵀΔΔᵀW) = γ²(∇_W Lᵀ∇_W L − ∇_H L ∇_H Lᵀ)",
        ),
        "residual order (summed)": Law(
            name="residual order (summed)", lhs=r"\|R_l(\gamma)\|_F", relation="asymp",
            value=GAMMA**summed,
            conditions=(r"\widetilde{\mathrm{cov}}(H) = H H^\top \text{ (summed)}",), source=CHA_LEE,
            hypotheses=(GD_STEP,), hypotheses_reading=THEOREM2_READING,
            words=f"summed virtual covariance: residual of Theorem 2 is O(γ^{summed}) (log-log slope {summed})",
        ),
        "residual order (mean)": Law(
            name="residual order (mean)", lhs=r"\|R_l(\gamma)\|_F", relation="asymp",
            value=GAMMA**mean,
            conditions=(r"\widetilde{\mathrm{cov}}(H) = \tfrac1B H H^\top \text{ (mean)}", r"B \geq 2"),
            status="finding", source=THIS_PROJECT, hypotheses=(GD_STEP,), hypotheses_reading=THEOREM2_READING,
            words=f"batch-averaged virtual covariance: residual only O(γ^{mean}) for B ≥ 2 — Theorem 2 needs the "
                  "summed reading",
        ),
    }


@lru_cache(maxsize=None)
def lipschitz_constant(activation: str | sp.Expr) -> sp.Expr:
    r""":math:`L = \sup_z \sigma'(z)` of an increasing activation (exact via sympy).

    Raises :class:`~flt_theory.errors.UnsupportedError` if :math:`\sigma` is not increasing or not Lipschitz.

    >>> lipschitz_constant("relu"), lipschitz_constant("erf")      # tanh: 1, sigmoid: 1/4 (a second each)
    (1, 2/sqrt(pi))
    """
    bottom, top = derivative_bounds(activation)
    sigma = parse_link(activation)
    if bottom.is_negative:
        raise UnsupportedError(f"σ = {sigma} is not increasing (inf σ' = {bottom}); Theorem 3 does not apply")
    if not top.is_finite:
        raise UnsupportedError(f"σ = {sigma} is not Lipschitz (sup σ' = {top}); Theorem 3 does not apply")
    return top


@lru_cache(maxsize=None)
def derivative_bounds(activation: str | sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    r""":math:`(\inf_z \sigma'(z), \sup_z \sigma'(z))`, exact via sympy (the quantities of Theorem 3's hypotheses).

    >>> derivative_bounds("relu"), derivative_bounds("tanh")
    ((0, 1), (0, 1))
    """
    sigma = parse_link(activation)
    deriv = sp.diff(sigma, _Z)
    pieces = []
    if deriv.has(sp.Heaviside):
        pieces = [(deriv.subs(sp.Heaviside(_Z), 1).replace(sp.Heaviside, lambda a: 1), sp.Interval(0, sp.oo)),
                  (deriv.subs(sp.Heaviside(_Z), 0).replace(sp.Heaviside, lambda a: 0), sp.Interval(-sp.oo, 0))]
    else:
        pieces = [(deriv, sp.S.Reals)]
    sup, inf = [], []
    for expr, domain in pieces:
        expr = _strip_relu(expr, domain)
        for form in (expr, expr.rewrite(sp.exp)):
            try:
                sup.append(sp.simplify(maximum(form, _Z, domain)))
                inf.append(sp.simplify(minimum(form, _Z, domain)))
                break
            except (NotImplementedError, ValueError):
                continue
        else:
            raise UnsupportedError(f"cannot find sup of σ'(z) = {deriv} symbolically; Theorem 3's L is unknown")
    return sp.Min(*inf), sp.Max(*sup)


def _strip_relu(expr: sp.Expr, domain: sp.Interval) -> sp.Expr:
    from ...symbolic.functions import relu

    positive = domain.inf >= 0
    return expr.replace(lambda e: isinstance(e, relu), lambda e: e.args[0] if positive else sp.Integer(0))


def theorem3_laws(activation: str | sp.Expr = "tanh") -> dict[str, Law]:
    r"""Theorem 3 literally (``"theorem 3 (literal)"``) and its strongest valid form (module docstring).

    Their ``value`` is the pair :math:`(c, s)`: every element satisfies :math:`|\Delta\sigma_i| \le c\,|\Delta h_i|`
    and :math:`\Delta\sigma_i\Delta h_i \ge 0` (:math:`s = 0`), or the strict :math:`<` and
    :math:`\mathrm{sgn}\,\Delta\sigma_i = \mathrm{sgn}\,\Delta h_i` (:math:`s = 1`); :math:`c = L^2` (literal) or
    :math:`L^2R^2`, :math:`R = \|h_{l-1}\|` (corrected). The ``"ratio bound …"`` laws are the constants alone.

    >>> laws = theorem3_laws("relu")
    >>> laws["theorem 3 (corrected)"].numbers(R=2), laws["theorem 3 (literal)"].numbers(R=2)
    ((4.0, 0.0), (1.0, 1.0))
    """
    lip = lipschitz_constant(activation)
    cond = rf"\sigma = {sp.latex(parse_link(activation))},\ L = {sp.latex(lip)}"
    pair = r"(c, s)"
    t3 = _HypothesesKeywords(hypotheses=(INCREASING, UNIT_INPUT), hypotheses_reading=THEOREM3_READING)
    return {
        "theorem 3 (literal)": Law(
            name="theorem 3 (literal)", lhs=pair, relation="eq", value=(lip**2, sp.Integer(1)),
            conditions=(cond, r"\|h_{l-1}\| = 1",
                        r"|\Delta\sigma_i| < c|\Delta h_i|,\ \mathrm{sgn}\,\Delta\sigma_i = \mathrm{sgn}\,\Delta "
                        r"h_i\ (s = 1)"),
            source=CHA_LEE, **t3,
            words="Theorem 3 as stated: |Δσ| < L²|Δh| and sgn Δσ = sgn Δh for every element (‖h‖ = 1)",
        ),
        "theorem 3 (corrected)": Law(
            name="theorem 3 (corrected)", lhs=pair, relation="eq", value=(lip**2 * H_NORM**2, sp.Integer(0)),
            conditions=(cond, r"R = \|h_{l-1}\| \text{ any}",
                        r"|\Delta\sigma_i| \le c|\Delta h_i|,\ \Delta\sigma_i\Delta h_i \ge 0\ (s = 0)"),
            status="finding", source=THIS_PROJECT, **t3,
            words="what holds: |Δσ| ≤ L²‖h‖²|Δh| and Δσ·Δh ≥ 0 (weak inequality, weak sign agreement, any ‖h‖)",
        ),
        "ratio bound (literal)": Law(
            name="ratio bound (literal)", lhs=r"\max_i |\Delta\sigma_i|/|\Delta h_i|", relation="leq", value=lip**2,
            conditions=(cond,), source=CHA_LEE, **t3, words=f"max |Δσ|/|Δh| ≤ L² = {lip**2}",
        ),
        "ratio bound (corrected)": Law(
            name="ratio bound (corrected)", lhs=r"\max_i |\Delta\sigma_i|/|\Delta h_i|", relation="leq",
            value=lip**2 * H_NORM**2, conditions=(cond, r"R = \|h_{l-1}\|"), status="finding", source=THIS_PROJECT,
            **t3,
            words=f"max |Δσ|/|Δh| ≤ L²‖h‖² (= {lip**2}·R²), with equality for ReLU on units active before and after",
        ),
    }


def vcl_laws() -> dict[str, Law]:
    r"""The VCL update's first-order law: it is the minimum-norm update with GD's Gram shift, so its
    first-order loss decrease :math:`\gamma\|E_{\rm VCL}\|^2` is at most GD's :math:`\gamma\|\nabla_W L\|^2`
    (:math:`E_{\rm VCL}` is the projection of :math:`-\nabla_W L` off :math:`\{E : W^\top E \text{ skew}\}`,
    so :math:`\langle -\nabla_W L, E_{\rm VCL}\rangle = \|E_{\rm VCL}\|^2`).

    >>> vcl_laws()["vcl vs gd"].number()
    1.0
    """
    return {
        "vcl vs gd": Law(
            name="vcl vs gd", lhs=r"L_{\rm VCL}(T)/L_{\rm GD}(T)", relation="geq", value=sp.Integer(1),
            conditions=(r"\text{same } \gamma,\ T \text{ steps}",), status="derived", source=THIS_PROJECT,
            hypotheses=(SUMMED_COVARIANCE, FIRST_ORDER_STEP), hypotheses_reading=VCL_READING,
            words="at equal γ the VCL (Procrustes) update descends, but no faster than GD: L_VCL(T) ≥ L_GD(T)",
        ),
    }
