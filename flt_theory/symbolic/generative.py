r"""Generative exponent of a single-index target (Damian, Pillaud-Vivien, Lee, Bruna 2024, "Computational-
statistical gaps in Gaussian single-index models", arXiv 2403.05529).

Definition. For :math:`y = \sigma^*(z)`, :math:`z \sim \mathcal N(0, 1)`, the generative exponent is
:math:`k^* = \min\{k \ge 1 : \mathbb E[\mathrm{He}_k(z) \mid y] \not\equiv 0\}`, equivalently the smallest
information exponent of :math:`T(y)` over all label transformations :math:`T \in L^2(P_y)`: a learner that
may transform the labels (not only correlate with them) needs :math:`n \gtrsim d^{k^*/2}` samples, against
:math:`d^{\max(1, k-1)}` for online SGD at information exponent :math:`k`.

For a deterministic link the generative exponent is at most 2, and decided exactly by a symmetry:

* :math:`\sigma^*` not even (:math:`\sigma^*(-z) \ne \sigma^*(z)`): :math:`k^* = 1`. Proof: the conditional law
  of :math:`z` given :math:`y` is carried by the preimage :math:`\sigma^{*-1}(y)`; if
  :math:`\mathbb E[z \mid y] = 0` for almost every :math:`y`, the preimages are balanced around 0 for almost
  every :math:`y`, which for an analytic (in particular polynomial) link forces :math:`\sigma^*` to be even.
* :math:`\sigma^*` even and not constant: every :math:`T(\sigma^*(z))` is even, so its odd Hermite coefficients
  vanish and :math:`k^* \ge 2`; and :math:`\mathbb E[\mathrm{He}_2(z) \mid y] = \mathbb E[z^2 \mid y] - 1` is not
  a.s. zero, since :math:`z^2` is not independent of a non-constant even :math:`\sigma^*(z)` (it determines
  it). So :math:`k^* = 2`.
* :math:`\sigma^*` constant: the label carries no information; no exponent (``None``).

The evenness is decided exactly where sympy can simplify :math:`\sigma^*(z) - \sigma^*(-z)` to 0 (every
polynomial, and the grammar's even/odd functions); a link it cannot decide raises
:class:`~flt_theory.errors.UnsupportedError` rather than guessing. Hermite convention: probabilists'
:math:`\mathrm{He}_k`, :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = j!\,\delta_{jk}`.

>>> from flt_theory.symbolic.target import Target
>>> [generative_exponent(Target.parse(t)) for t in ("He3(z)", "He2(z)", "He4(z) + He2(z)", "z**2*relu(z)", "3")]
[1, 2, 2, 1, None]
"""

from __future__ import annotations

import sympy as sp

from ..errors import UnsupportedError
from .target import Target

__all__ = ["generative_exponent"]


def generative_exponent(target: Target) -> int | None:
    """The generative exponent of a single-index target (module docstring); ``None`` for a constant link
    and for a target of rank > 1 (defined for single-index targets only, like the information exponent)."""
    if target.rank != 1:
        return None
    (z,) = sorted(target.expr.free_symbols, key=lambda s: s.name) or [None]
    if z is None:
        return None
    link = target.expr
    if sp.simplify(link - link.subs(z, -z)) == 0:
        return 2
    difference = sp.simplify(link - link.subs(z, -z))
    if difference.is_zero is False or difference.free_symbols:
        return 1
    raise UnsupportedError(f"cannot decide whether {link} is even; its generative exponent is 1 or 2")
