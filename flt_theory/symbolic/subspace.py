r"""Subspaces of the teacher space :math:`V^* = \mathrm{span}\{w^*_1,\dots,w^*_r\}` in w*-coordinates.

A :class:`Subspace` of :math:`\mathbb R^r` is stored as an orthonormal basis (rows), exact
(sympy entries such as :math:`1/\sqrt 2`) whenever its spanning vectors are exact, otherwise
floating point with a rank tolerance. It is the object the one-step rule
(:mod:`.one_step`), the staircase (:mod:`.staircase`) and the projections (:mod:`.projections`)
exchange, and what the simulator lifts to :math:`\mathbb R^d` through :math:`W^*`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence, cast

import sympy as sp

if TYPE_CHECKING:  # numpy is imported where it is used: a symbolic command on an exact target never loads it
    import numpy as np

__all__ = ["Subspace", "FLOAT_RANK_TOL"]

#: Relative singular-value threshold used for rank decisions on floating-point spanning sets.
FLOAT_RANK_TOL = 1e-9


@dataclass(frozen=True)
class Subspace:
    """A subspace of :math:`\\mathbb R^r` with an orthonormal basis ``basis`` (``dim × r`` sympy Matrix).

    >>> u = Subspace.span([[1, 1]], ambient=2)
    >>> u.dim, u.basis.tolist()
    (1, [[sqrt(2)/2, sqrt(2)/2]])
    >>> u.complement().basis.tolist()
    [[sqrt(2)/2, -sqrt(2)/2]]
    """

    basis: sp.Matrix
    ambient: int

    @classmethod
    def zero(cls, ambient: int) -> "Subspace":
        """The trivial subspace :math:`\\{0\\}` of :math:`\\mathbb R^{ambient}`."""
        return cls(sp.zeros(0, ambient), ambient)

    @classmethod
    def full(cls, ambient: int) -> "Subspace":
        """All of :math:`\\mathbb R^{ambient}` (the teacher space :math:`V^*`)."""
        return cls(sp.eye(ambient), ambient)

    @classmethod
    def span(cls, vectors: Iterable[Sequence[sp.Expr | float]], ambient: int) -> "Subspace":
        """The span of ``vectors`` (each of length ``ambient``), orthonormalised."""
        rows = [sp.Matrix(1, ambient, list(v)) for v in vectors]
        rows = [r for r in rows if any(not sp.sympify(e).is_zero for e in r)]
        if not rows:
            return cls.zero(ambient)
        matrix = sp.Matrix.vstack(*rows)
        if any(e.has(sp.Float) or isinstance(e, sp.Float) for e in matrix):
            return cls(_float_orthonormal_rows(matrix), ambient)
        return cls(_exact_orthonormal_rows(matrix), ambient)

    @property
    def dim(self) -> int:
        return cast(int, self.basis.rows)

    @property
    def is_exact(self) -> bool:
        return not any(isinstance(e, sp.Float) or e.has(sp.Float) for e in self.basis)

    def __add__(self, other: "Subspace") -> "Subspace":
        """The sum :math:`U + W` (``⊕`` of the staircase when the parts are orthogonal)."""
        return Subspace.span(self.rows() + other.rows(), self.ambient)

    def rows(self) -> list[list[sp.Expr]]:
        return [list(self.basis.row(i)) for i in range(self.dim)]

    def complement(self) -> "Subspace":
        r"""The orthogonal complement :math:`U^\perp` in :math:`\mathbb R^r` (e.g. :math:`V^* \ominus U`)."""
        import numpy as np

        if self.dim == 0:
            return Subspace.full(self.ambient)
        if not self.is_exact:
            _, s, vt = np.linalg.svd(self.numpy(), full_matrices=True)
            rest = vt[self.dim :]
            return Subspace(sp.Matrix(rest.tolist()) if len(rest) else sp.zeros(0, self.ambient), self.ambient)
        null = self.basis.nullspace(simplify=True)
        return Subspace.span([list(v) for v in null], self.ambient)

    def contains(self, other: "Subspace") -> bool:
        """Whether ``other`` ⊆ ``self``."""
        return (self + other).dim == self.dim

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Subspace) or other.ambient != self.ambient:
            return NotImplemented
        return self.dim == other.dim and self.contains(other)

    def __hash__(self) -> int:  # subspaces compare by span, not by basis
        return hash((self.ambient, self.dim))

    def numpy(self) -> np.ndarray:
        """The orthonormal basis as a float array of shape ``(dim, r)``."""
        import numpy as np

        return np.array(self.basis.evalf().tolist(), dtype=float).reshape(self.dim, self.ambient)

    def new_directions(self, previous: "Subspace") -> np.ndarray:
        r"""Orthonormal rows (float, :math:`w^*`-coordinates) of :math:`U \ominus U'`: the part of this subspace
        orthogonal to ``previous`` (e.g. what a staircase step adds); ``(0, r)`` when nothing is new.

        >>> Subspace.span([[1, 0], [0, 1]], 2).new_directions(Subspace.span([[1, 0]], 2)).round(6).tolist()
        [[0.0, 1.0]]
        """
        import numpy as np

        b = self.numpy()
        if previous.dim == 0 or len(b) == 0:
            return b
        p = previous.numpy()
        _, s, vt = np.linalg.svd(b - b @ p.T @ p, full_matrices=False)
        return vt[s > 1e-9]

    def to_json(self) -> list[list[float]]:
        return cast(list[list[float]], self.numpy().tolist())

    def latex(self, names: Sequence[str] | None = None) -> str:
        r"""E.g. ``\mathrm{span}\{w^*_1 + w^*_2\}`` (vectors shown unnormalised when exact)."""
        names = names or [f"w^*_{{{k + 1}}}" for k in range(self.ambient)]
        if self.dim == 0:
            return r"\{0\}"
        parts = []
        for row in self.rows():
            scale = next(e for e in row if not e.is_zero)
            coeffs = [sp.nsimplify(e / scale) if self.is_exact else _rounded(float(e / scale)) for e in row]
            parts.append(sp.latex(sum((c * sp.Symbol(n) for c, n in zip(coeffs, names)), sp.Integer(0))))
        return r"\mathrm{span}\{" + ", ".join(parts) + r"\}"

    def _repr_latex_(self) -> str:
        r"""Rich display (IPython): the span and its dimension.

        >>> Subspace.span([[1, 1]], ambient=2)._repr_latex_()
        '$$\\mathrm{span}\\{w^*_{1} + w^*_{2}\\} \\qquad (\\dim = 1 \\text{ in } \\mathbb{R}^{2})$$'
        """
        return f"$${self.latex()} \\qquad (\\dim = {self.dim} \\text{{ in }} \\mathbb{{R}}^{{{self.ambient}}})$$"


def _rounded(value: float) -> sp.Expr:
    """4 significant digits, and an integer shown as one (``1``, not ``1.0``, next to ``1.211``).

    >>> _rounded(1.0), _rounded(1.2114), _rounded(-2.0000000000001)
    (1, 1.211, -2)
    """
    if abs(value - round(value)) < 1e-9 * max(1.0, abs(value)):
        return sp.Integer(round(value))
    return sp.Float(f"{value:.4g}", 4)


def _exact_orthonormal_rows(matrix: sp.Matrix) -> sp.Matrix:
    rref, pivots = matrix.rref(simplify=True)
    independent = [rref.row(i).T for i in range(len(pivots))]
    ortho = sp.GramSchmidt(independent, orthonormal=True)
    return sp.Matrix.vstack(*[sp.simplify(v.T) for v in ortho]) if ortho else sp.zeros(0, matrix.cols)


def _float_orthonormal_rows(matrix: sp.Matrix) -> sp.Matrix:
    import numpy as np

    a = np.array(matrix.evalf().tolist(), dtype=float)
    _, s, vt = np.linalg.svd(a, full_matrices=False)
    rank = int(np.sum(s > FLOAT_RANK_TOL * max(s.max(initial=0.0), 1.0)))
    return sp.Matrix(vt[:rank].tolist()) if rank else sp.zeros(0, matrix.cols)
