r"""The spherically smoothed per-sample loss of one neuron, in closed form (torch only).

Source: Damian, Nichani, Ge, Lee 2023, "Smoothing the landscape boosts the signal for SGD: optimal sample
complexity for learning single index models", arXiv 2305.10633. Their smoothing operator, for :math:`w` on the
sphere :math:`S^{d-1}` and :math:`\lambda > 0`,

.. math:: L_\lambda(w) = \mathbb E_{z \sim \mathrm{Unif}(S^{d-1} \cap w^\perp)}
   \Big[L\Big(\frac{w + \lambda z}{\|w + \lambda z\|}\Big)\Big],

applied to the per-sample loss :math:`L(w; x, y) = \ell(\langle w, x\rangle, y)` (online SGD on the smoothed loss
takes one fresh sample per step and the exact average over :math:`z`).

Closed form (derived here). Since :math:`z \perp w` is a unit vector, :math:`\|w + \lambda z\| = \sqrt{1 +
\lambda^2}`; write :math:`\tau = (1 + \lambda^2)^{-1/2}`, :math:`u = \langle w, x\rangle` and
:math:`\rho^2 = \|x\|^2 - u^2` (the squared norm of the part of :math:`x` orthogonal to :math:`w`). Then
:math:`\langle z, x\rangle = \rho\,\zeta` with :math:`\zeta` one coordinate of a uniform unit vector of
:math:`\mathbb R^{d-1}`, whose even moments are

.. math:: \mu_{2i} = \mathbb E\,\zeta^{2i} = \frac{(2i-1)!!}{(d-1)(d+1)\cdots(d+2i-3)}

(odd ones vanish). For a polynomial :math:`p`, Taylor's formula at :math:`\tau u` gives the smoothed value

.. math:: S_\lambda[p](u, \rho^2) = \mathbb E_\zeta\, p\big(\tau(u + \lambda\rho\zeta)\big)
   = \sum_{i \ge 0} b_i\, p^{(2i)}(\tau u)\, \rho^{2i}, \qquad b_i = \frac{(\tau\lambda)^{2i}\mu_{2i}}{(2i)!},

a function of :math:`u` and :math:`\|x\|` only. Its spherical gradient in :math:`w` is therefore again a scalar
times :math:`x - u\,w`, the scalar being the derivative in :math:`u` at fixed :math:`\|x\|`
(:math:`\partial_u \rho^2 = -2u`):

.. math:: \partial_u S_\lambda[p] = \sum_{i \ge 0} b_i \big[\tau\, p^{(2i+1)}(\tau u)\,\rho^{2i}
   - 2i\, u\, p^{(2i)}(\tau u)\,\rho^{2i-2}\big].

So the smoothed online SGD is the plain one of :mod:`.model` with the coefficient :math:`c = -y\,\partial_u
S_\lambda[\sigma]` (correlation loss) or :math:`c = \tfrac12\partial_u S_\lambda[\sigma^2] - y\,\partial_u
S_\lambda[\sigma]` (square loss), which needs :math:`\|x\|^2 = z_1^2 + z_2^2 + q` besides :math:`u`: the reduced
coordinates still close, with the same three draws per step. Checked against the definition (uniform :math:`z`
drawn in :math:`\mathbb R^d`) by Monte Carlo, and the whole reduced chain against :func:`smoothed_loss_by_quadrature`
differentiated by autograd in :math:`d` dimensions (``tests/systems/test_online_sgd_model.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ...errors import InvalidParameterError

__all__ = ["SmoothedLoss", "sphere_moments", "smoothed_loss_by_quadrature", "smoothing_nodes"]


def sphere_moments(d: int, degree: int) -> tuple[float, ...]:
    r""":math:`\mu_0, \mu_2, \dots` up to :math:`\mu_{2\lfloor \mathrm{degree}/2\rfloor}` of one coordinate of a
    uniform unit vector of :math:`\mathbb R^{d-1}` (module docstring).

    >>> [round(m, 12) for m in sphere_moments(4, 4)]   # at d = 4: uniform on [-1, 1]
    [1.0, 0.333333333333, 0.2]
    """
    out, value = [1.0], 1.0
    for i in range(1, degree // 2 + 1):
        value *= (2 * i - 1) / (d - 1 + 2 * (i - 1))
        out.append(value)
    return tuple(out)


def _derivatives(coefficients: tuple[float, ...]) -> list[tuple[float, ...]]:
    """Coefficients of :math:`p, p', p'', \\dots, p^{(n)}` (n = degree)."""
    out = [tuple(float(a) for a in coefficients)]
    while len(out[-1]) > 1:
        out.append(tuple(j * a for j, a in enumerate(out[-1]))[1:])
    return out


def _square(coefficients: tuple[float, ...]) -> tuple[float, ...]:
    out = [0.0] * (2 * len(coefficients) - 1)
    for i, a in enumerate(coefficients):
        for j, b in enumerate(coefficients):
            out[i + j] += a * b
    return tuple(out)


def _smoothed_table(coefficients: tuple[float, ...], lam: float, d: int) -> list[list[float]]:
    r""":math:`S_\lambda[p]` as a polynomial in :math:`(u, \rho^2)`: ``table[i][l]`` is the coefficient of
    :math:`\rho^{2i} u^l`, i.e. :math:`b_i\, p^{(2i)}_l \tau^l` with :math:`p^{(j)}_l` the coefficients of
    :math:`p^{(j)}`."""
    tau = 1 / math.sqrt(1 + lam * lam)
    ders = _derivatives(coefficients)
    mu = sphere_moments(d, len(ders) - 1)
    return [[(tau * lam) ** (2 * i) * mu[i] / math.factorial(2 * i) * a * tau**l for l, a in enumerate(ders[2 * i])]
            for i in range(len(mu))]


def _u_derivative(table: list[list[float]]) -> list[list[float]]:
    r""":math:`\partial_u V - 2u\,\partial_{\rho^2} V` of ``V`` given as :func:`_smoothed_table` (the derivative in
    :math:`u` at fixed :math:`\|x\|^2 = u^2 + \rho^2`)."""
    width = max(len(row) for row in table) + 1
    out = [[0.0] * width for _ in table]
    for i, row in enumerate(table):
        for l, a in enumerate(row):
            if l:
                out[i][l - 1] += l * a
            if i:
                out[i - 1][l + 1] -= 2 * i * a
    out = [_trim(row) for row in out]
    while len(out) > 1 and out[-1] == [0.0]:
        out.pop()
    return out


def _trim(row: list[float]) -> list[float]:
    while len(row) > 1 and row[-1] == 0:
        row = row[:-1]
    return row


def _evaluate(table: list[list[float]], u: torch.Tensor, rho2: torch.Tensor) -> torch.Tensor:
    """Horner in :math:`\rho^2` over Horner in :math:`u`."""
    out = torch.zeros_like(u)
    for row in reversed(table):
        inner = torch.full_like(u, row[-1])
        for a in reversed(row[:-1]):
            inner = inner.mul_(u).add_(a)
        out = out.mul_(rho2).add_(inner)
    return out


@dataclass(frozen=True)
class SmoothedLoss:
    r"""The per-sample smoothed loss of a polynomial student (coefficients :math:`a_0, a_1, \dots` of
    :math:`\sigma`) at smoothing radius ``lam`` in dimension ``d``: :meth:`value` is
    :math:`S_\lambda[\sigma]`, :meth:`coefficient` the scalar :math:`c` of its spherical gradient
    :math:`c\,(x - u w)` (module docstring). Both are precomputed as polynomials in :math:`(u, \rho^2)`, so a call
    costs a few tensor operations.

    >>> sm = SmoothedLoss((0.0, 1.0), lam=1.0, d=10, loss="correlation")   # sigma(z) = z: c = -y tau
    >>> t = lambda v: torch.tensor([v], dtype=torch.float64)
    >>> round(float(sm.coefficient(t(0.3), t(9.0), t(2.0))), 12)
    -1.414213562373
    """

    coefficients: tuple[float, ...]
    lam: float
    d: int
    loss: str = "correlation"
    # the tables of S_lambda[sigma], of its u-derivative and of the square loss's extra term (None for the correlation
    # loss), set by __post_init__
    _value: list[list[float]] = field(init=False, repr=False, compare=False)
    _slope: list[list[float]] = field(init=False, repr=False, compare=False)
    _square_slope: list[list[float]] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.loss not in ("correlation", "square"):
            raise InvalidParameterError(f"The 'loss' parameter of SmoothedLoss must be 'correlation' or 'square'. "
                                        f"Got {self.loss!r} instead.")
        if not (math.isfinite(self.lam) and self.lam > 0):
            raise InvalidParameterError(f"The 'smoothing' radius must be a finite number > 0. Got {self.lam!r} "
                                        "instead.")
        value = _smoothed_table(tuple(self.coefficients), self.lam, self.d)
        square = (_u_derivative(_smoothed_table(_square(tuple(self.coefficients)), self.lam, self.d))
                  if self.loss == "square" else None)
        object.__setattr__(self, "_value", value)
        object.__setattr__(self, "_slope", _u_derivative(value))
        object.__setattr__(self, "_square_slope", square)

    def value(self, u: torch.Tensor, rho2: torch.Tensor) -> torch.Tensor:
        r""":math:`S_\lambda[\sigma](u, \rho^2)`, elementwise."""
        return _evaluate(self._value, u, rho2)

    def coefficient(self, u: torch.Tensor, rho2: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        r"""The scalar :math:`c` of the spherical gradient of the smoothed per-sample loss, elementwise."""
        c = -y * _evaluate(self._slope, u, rho2)
        if self._square_slope is not None:
            c = c + 0.5 * _evaluate(self._square_slope, u, rho2)
        return c


def smoothing_nodes(d: int, n: int, *, device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    r"""Gauss nodes and weights (summing to 1) of the law of :math:`\zeta`, density
    :math:`\propto (1 - \zeta^2)^{(d-4)/2}` on :math:`[-1, 1]`, by Golub–Welsch: exact for polynomials of degree
    :math:`< 2n`. The symmetric Jacobi weight :math:`(1 - t^2)^a` has the monic recurrence coefficients
    :math:`\beta_j = j(j + 2a)/((2j + 2a - 1)(2j + 2a + 1))` (Legendre at :math:`a = 0`). Needs :math:`d \ge 4`.

    >>> t, w = smoothing_nodes(4, 3)
    >>> round(float((w * t**2).sum()), 12)   # mu_2 at d = 4: 1/3
    0.333333333333
    """
    if d < 4:
        raise InvalidParameterError(f"The 'd' parameter of smoothing_nodes must be an int >= 4. Got {d!r} instead.")
    a = (d - 4) / 2
    j = torch.arange(1, n, dtype=torch.float64)
    beta = j * (j + 2 * a) / ((2 * j + 2 * a - 1) * (2 * j + 2 * a + 1))
    jacobi = torch.diag(beta.sqrt(), 1) + torch.diag(beta.sqrt(), -1)
    nodes, vectors = torch.linalg.eigh(jacobi)
    return nodes.to(device), (vectors[0] ** 2).to(device)


def smoothed_loss_by_quadrature(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, student, lam: float,
                                loss: str, nodes: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    r"""The smoothed per-sample loss by its definition, differentiable in :math:`w` (any norm: :math:`w/\|w\|` is
    used, so the autograd gradient at :math:`\|w\| = 1` is the spherical one): the average over the Gauss nodes
    :math:`\zeta_j` (:func:`smoothing_nodes`) of :math:`\ell(\tau(\hat u + \lambda\hat\rho\,\zeta_j), y)`,
    :math:`\hat u = \langle w, x\rangle/\|w\|`, :math:`\hat\rho = (\|x\|^2 - \hat u^2)^{1/2}`. ``w``, ``x``
    ``(seeds, d)``, ``y`` ``(seeds,)``; returns ``(seeds,)``. The literal counterpart of :class:`SmoothedLoss`.
    """
    zeta, weight = nodes
    u = (w * x).sum(-1) / w.norm(dim=-1)
    rho = ((x * x).sum(-1) - u * u).sqrt()
    tau = 1 / math.sqrt(1 + lam * lam)
    v = tau * (u[:, None] + lam * rho[:, None] * zeta)
    out = student(v)
    per_node = -y[:, None] * out if loss == "correlation" else 0.5 * (out - y[:, None]) ** 2
    return (per_node * weight).sum(-1)
