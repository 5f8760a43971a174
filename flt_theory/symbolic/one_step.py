r"""The subspace one giant gradient step learns (Dandi et al. 2023, arXiv 2305.18270, Theorems 1–3).

Derivation. At the symmetric initialisation :math:`\hat f \equiv 0`, so one full-batch step on
the square loss moves neuron :math:`i` by
:math:`\Delta w_i = \frac{\eta a_i}{p}\,\frac1n\sum_\mu f^*(x_\mu)\,\sigma'(\langle w_i, x_\mu\rangle)\,x_\mu`.
Its population part is :math:`\frac{\eta a_i}{p}\,\mathbb E[f^*\sigma'(\langle w_i,x\rangle)x]`.
Gaussian integration by parts gives
:math:`\mathbb E[f^*\sigma'(w\cdot x)x] = \mathbb E[\nabla f^*\,\sigma'(w\cdot x)] + w\,\mathbb E[f^*\sigma''(w\cdot
x)]`; the second term is parallel to :math:`w` (no new direction). Expanding
:math:`\sigma'(w\cdot x) = \sum_m \frac{\mu_{m+1}(\sigma)}{m!}\mathrm{He}_m(w\cdot x)` (unit :math:`w`) and using
:math:`\mathbb E[\partial_k f^*\,\mathrm{He}_m(w\cdot x)] = C_{m+1}[k, u^{\otimes m}]`, :math:`u = (\langle w,
w^*_k\rangle)_k`,

.. math:: \langle w_i^1, w^*_k\rangle \approx \frac{\eta a_i}{p}\sum_{j\ge1} c_{\sigma,j}\,
          C_j\big[k,\,u_i^{\otimes(j-1)}\big], \qquad c_{\sigma,j} = \frac{\mu_j(\sigma)}{(j-1)!}.

With :math:`u_i \sim d^{-1/2}`, order :math:`j` contributes :math:`\frac{\eta}{p} d^{-(j-1)/2}`, while
the sample noise adds :math:`\|w^1_i\|^2 \asymp 1 + d\eta^2/(np^2)`. With :math:`n \asymp d^\kappa`
the largest step that keeps the norm bounded is :math:`\eta = p\,d^{(\kappa-1)/2}`, and then order
:math:`j` contributes :math:`d^{(\kappa-j)/2}`: an :math:`\Omega(1)` overlap for every
:math:`j \le \lfloor\kappa\rfloor`, a vanishing one for :math:`j > \kappa`. The learned subspace is therefore

.. math:: U_{\text{one step}}(\kappa) = \sum_{1 \le j \le \lfloor\kappa\rfloor,\ c_{\sigma,j}\neq0}
          \operatorname{range}(C_j),

:math:`C_j` unfolded as an :math:`r \times r^{j-1}` matrix (its range is spanned by
:math:`C_j[\cdot, u^{\otimes(j-1)}]` over generic :math:`u`). Checks against the seed: :math:`\kappa<\ell`
gives :math:`\{0\}` (Theorem 1); :math:`\ell = 1` gives :math:`\mathrm{range}(C_1) = \mathrm{span}(v^*)`,
:math:`v^* = \sum_k \mu^*_{k,1}w^*_k` (Theorem 2); :math:`\ell>1,\ \kappa=\ell` gives
:math:`\mathrm{range}(C_\ell) = \mathrm{span}\{w^*_k : \mu^*_{k,\ell}\neq0\}` for separable targets
(Theorem 3, :math:`C_\ell` diagonal); the five-direction example's :math:`n\asymp d^2` row learns
:math:`\mathrm{span}(w^*_1, w^*_2)`. A student with :math:`c_{\sigma,\ell} = 0` (odd :math:`\sigma`, even
:math:`\ell`) learns nothing at order :math:`\ell` — pass ``activation`` to apply that rule; without it
every :math:`c_{\sigma,j}` is assumed nonzero (a generic activation).

Caveat (documented, not hidden): for :math:`j < \lfloor\kappa\rfloor` the overlap grows like
:math:`d^{(\kappa-j)/2}` and dominates the normalised overlap; "learned" here means an
:math:`\Omega(1)` absolute overlap, the sense of the seed's :math:`n\asymp d^2` row.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import sympy as sp

from .._validation import check_int, check_real
from ..errors import InvalidParameterError
from .budget import check_radical_span, check_rank
from .expansion import expand_target
from .hermite import hermite_coefficients
from .subspace import Subspace

if TYPE_CHECKING:
    from .target import Target

__all__ = ["MAX_KAPPA", "check_kappa", "one_step_subspace", "student_coefficient", "theory_step_size_exponent"]

#: Largest sample exponent :math:`\kappa` (:math:`n \asymp d^\kappa`) the one-step rule takes.
MAX_KAPPA = 64


def student_coefficient(activation: str | sp.Expr, order: int) -> sp.Expr:
    r""":math:`c_{\sigma,j} = \mu_j(\sigma)/(j-1)!` (exact where :func:`.hermite.hermite_coefficients` is).

    >>> student_coefficient("relu(z)", 2)
    sqrt(2)/(2*sqrt(pi))
    >>> student_coefficient("tanh(z)", 2)
    0
    """
    order = check_int(order, "order", minimum=1, caller="student_coefficient")
    coeffs = hermite_coefficients(activation, order)
    exact = coeffs.exact[order]
    if exact is not None:
        return exact / math.factorial(order - 1)
    value = coeffs.values[order] / math.factorial(order - 1)
    return sp.Integer(0) if abs(value) <= max(1e-10, 10 * coeffs.error(order)) else sp.Float(value)


def check_kappa(kappa: float, name: str = "kappa") -> float:
    """``kappa`` as a float after checking it is a sample exponent the one-step rule takes: finite, in
    ``[0, MAX_KAPPA]`` (:class:`~flt_theory.errors.InvalidParameterError` naming ``name`` otherwise)."""
    kappa = check_real(kappa, name, minimum=0.0, caller="one_step_subspace")
    if kappa > MAX_KAPPA:
        raise InvalidParameterError(
            f"{name} = {kappa:g} exceeds {MAX_KAPPA}, the largest sample exponent of the one-step rule "
            f"(n ~ d^{name}: one step learns the Hermite orders j <= {name})"
        )
    return kappa


def one_step_subspace(
    target: Target, kappa: float, activation: str | sp.Expr | None = None, degree: int | None = None
) -> Subspace:
    """Subspace learned by one giant step with :math:`n \\asymp d^\\kappa` (see module docstring).

    The range of the unfolded :math:`C_j` is spanned by its distinct columns :math:`C_j[\\cdot, \\beta]`, one per
    multi-index :math:`\\beta` of order :math:`j-1`, entry :math:`k` equal to :math:`(\\beta+e_k)!\\,\\hat
    f(\\beta+e_k)`; only :math:`\\beta = \\alpha - e_k` for :math:`\\alpha` in the Hermite support give a nonzero
    column, so the work is the support size times :math:`r`, whatever :math:`\\kappa` (no :math:`r^j` tensor is built).

    >>> from flt_theory.symbolic.target import Target
    >>> f = Target.parse("z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3 + He2(z2)*He2(z3)")
    >>> one_step_subspace(f, 1).latex(), one_step_subspace(f, 2).latex()
    ('\\\\mathrm{span}\\\\{w^*_{1}\\\\}', '\\\\mathrm{span}\\\\{w^*_{1}, w^*_{2}\\\\}')
    """
    kappa = check_kappa(kappa)
    check_rank(target.rank, f"the one-step subspace of a rank-{target.rank} target")
    expansion = expand_target(target, degree)
    r = target.rank
    top = min(int(math.floor(kappa + 1e-12)), expansion.degree())
    orders = [j for j in range(1, top + 1) if activation is None or not student_coefficient(activation, j).is_zero]
    columns: dict[tuple[int, ...], list[sp.Expr]] = {}
    for alpha, c in expansion.coefficients.items():
        if sum(alpha) not in orders:
            continue
        weight = c * math.prod(math.factorial(a) for a in alpha)
        for k in range(r):
            if alpha[k]:
                beta = alpha[:k] + (alpha[k] - 1,) + alpha[k + 1:]
                columns.setdefault(beta, [sp.Integer(0)] * r)[k] = weight
    vectors = [v for v in columns.values() if any(not sp.sympify(x).is_zero for x in v)]
    if not vectors:
        return Subspace.zero(r)
    if all(sp.sympify(x).is_Rational for v in vectors for x in v):
        from fractions import Fraction

        from .staircase import rational_span

        return rational_span([[Fraction(int(x.p), int(x.q)) for x in v] for v in vectors], r)
    if not any(sp.sympify(x).has(sp.Float) for v in vectors for x in v):
        check_radical_span(r, f"the one-step subspace of a rank-{r} target with exact irrational coefficients")
    return Subspace.span(vectors, r)


def theory_step_size_exponent(leap: int) -> float:
    """Exponent :math:`(\\ell-1)/2` of the theory step size :math:`\\eta = p\\,d^{(\\ell-1)/2}`."""
    return (leap - 1) / 2
