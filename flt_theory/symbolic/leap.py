r"""Leap index, information exponent and leap complexity of a target.

* **Leap index** (Dandi et al. 2023, arXiv 2305.18270): :math:`\ell = \min\{j \ge 1 : C_j \ne 0\}` with
  :math:`C_j = \mathbb E[f^*\,\mathrm{He}_j]` the order-:math:`j` Hermite tensor; for a separable
  target this is :math:`\min\{j \ge 1 : \mu^*_{k,j} \ne 0 \text{ for some } k\}`. Since
  :math:`(C_j)_{k_1..k_j} = \alpha!\,\hat f(\alpha)`, :math:`C_j \ne 0` iff some :math:`|\alpha| = j`
  is in the Hermite support.
* **Information exponent** (Ben Arous, Gheissari, Jagannath 2021) of a single-index target: the
  first :math:`j \ge 1` with :math:`\mu_j \ne 0`; ``None`` for :math:`r > 1`.
* **Leap complexity** (Abbe, Boix-Adserà, Misiakiewicz 2023, arXiv 2302.11055): with
  :math:`S = \{\alpha \ne 0 : \hat f(\alpha) \ne 0\}`,

  .. math:: \mathrm{Leap}(f) = \min_{\text{orderings } (\alpha^1..\alpha^m) \text{ of } S}\;
            \max_i \sum_{k \notin \cup_{i' < i} \mathrm{supp}\,\alpha^{i'}} \alpha^i_k .

  Exact algorithm: Leap :math:`\le L` iff the greedy closure "add any :math:`\alpha` whose degree on
  untouched coordinates is :math:`\le L`" touches every coordinate of :math:`\cup_\alpha\mathrm{supp}\,\alpha`.
  Proof: adding a term only enlarges the touched set, which only lowers every other term's cost,
  so any feasible ordering's touched sets are reached by the closure, and the closure itself is an
  ordering of cost :math:`\le L` (terms inside the touched set cost 0). Trying
  :math:`L = 1, 2, \dots` gives the minimum in :math:`O(\deg \cdot |S|^2 \cdot r)` — polynomial,
  fast for any support size (thousands of terms in well under a second), no search over orderings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..errors import UnsupportedError
from .expansion import expand_target
from .hermite import HermiteExpansion

if TYPE_CHECKING:
    from .target import Target

__all__ = ["leap_index", "information_exponent", "leap_complexity", "leap_complexity_of_support"]


def leap_index(target: Target, degree: int | None = None) -> int:
    """Leap index :math:`\\ell` of ``target`` (``degree``: Hermite truncation for non-polynomials).

    >>> from flt_theory.symbolic.target import Target
    >>> leap_index(Target.from_links(["He2(z)", "He3(z)"]))
    2
    """
    expansion = expand_target(target, degree)
    return _first_order(expansion)


def information_exponent(target: Target, degree: int | None = None) -> int | None:
    """Information exponent of a single-index target (``None`` when ``target.rank > 1``).

    >>> from flt_theory.symbolic.target import Target
    >>> information_exponent(Target.parse("He3(z)"))
    3
    """
    if target.rank > 1:
        return None
    return _first_order(expand_target(target, degree))


def leap_complexity(target: Target, degree: int | None = None) -> int:
    """Leap complexity of ``target`` (Abbe, Boix-Adserà, Misiakiewicz 2023) in w*-coordinates.

    >>> from flt_theory.symbolic.target import Target
    >>> leap_complexity(Target.parse("z1 + z1*z2 + z1*z2*z3"))
    1
    >>> leap_complexity(Target.parse("z1 + z1*z2*z3"))
    2
    """
    return leap_complexity_of_support(expand_target(target, degree).coefficients)


def leap_complexity_of_support(support: Iterable[tuple[int, ...]]) -> int:
    """Leap complexity of a set of multi-indices (the zero multi-index is ignored); 0 if empty."""
    terms = [a for a in support if any(a)]
    if not terms:
        return 0
    needed = {k for a in terms for k, ak in enumerate(a) if ak}
    for bound in range(1, max(sum(a) for a in terms) + 1):
        if _closure(terms, bound) >= needed:
            return bound
    raise AssertionError("unreachable: bound = max degree always closes")  # pragma: no cover


def _closure(terms: list[tuple[int, ...]], bound: int) -> set[int]:
    touched: set[int] = set()
    remaining = list(terms)
    progress = True
    while progress and remaining:
        progress = False
        rest = []
        for a in remaining:
            if sum(ak for k, ak in enumerate(a) if k not in touched) <= bound:
                touched.update(k for k, ak in enumerate(a) if ak)
                progress = True
            else:
                rest.append(a)
        remaining = rest
    return touched


def _first_order(expansion: HermiteExpansion) -> int:
    orders = [sum(a) for a in expansion.coefficients if sum(a) >= 1]
    if not orders:
        where = f" up to Hermite degree {expansion.truncation_degree}" if expansion.truncation_degree else ""
        raise UnsupportedError(f"the target has no non-constant Hermite component{where}: its leap index is infinite")
    return min(orders)
