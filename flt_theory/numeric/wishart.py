r"""The Bartlett decomposition of a standard Gaussian matrix: a Wishart matrix drawn at a cost free of the dimension.

For :math:`Z \in \mathbb R^{\dim \times k}` with i.i.d. :math:`\mathcal N(0, 1)` entries, :math:`Z = QR` where
the Haar frame :math:`Q` (:math:`\dim \times \min(\dim, k)`, orthonormal columns) is independent of the Bartlett
factor :math:`R` (:math:`\min(\dim, k) \times k`, upper trapezoidal) with

.. math::
    R_{ii} = \sqrt{\chi^2_{\dim - i}} \quad (i = 0, 1, \dots), \qquad R_{ij} \sim \mathcal N(0, 1) \ (i < j),

all independent, so that :math:`Z^\top Z = R^\top R \sim \mathrm{Wishart}_k(\dim, I)` (Bartlett 1933; Kshirsagar
1959, "Bartlett decomposition and Wishart distribution", Ann. Math. Statist. 30; Anderson 2003, *An Introduction to
Multivariate Statistical Analysis*, 3rd ed., Sec. 7.2).
:func:`bartlett_factor` draws :math:`R` at cost :math:`O(k^2)` whatever :math:`\dim`; :func:`haar_frame`
draws :math:`Q` (QR of a Gaussian matrix with the signs fixed so the triangular factor's diagonal is positive,
which makes :math:`Q` Haar; Mezzadri 2007, "How to generate random matrices from the classical compact groups",
arXiv math-ph/0609050). The :math:`\chi^2` variates come from
:func:`standard_gamma` (Marsaglia and Tsang 2000, ACM TOMS 26(3)), which draws on a given generator — torch's
own gamma sampler takes none. Everything is float64 on the CPU, on the generator passed in.
"""

from __future__ import annotations

import torch

__all__ = ["bartlett_factor", "haar_frame", "standard_gamma"]


def standard_gamma(shape: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    r"""Gamma(``shape``, 1) variates (float64, CPU), one per entry of ``shape``, by Marsaglia and Tsang (2000):
    vectorised rejection rounds on ``gen``; shapes below 1 use :math:`G_a = G_{a+1} U^{1/a}`.

    >>> g = standard_gamma(torch.full((20_000,), 3.0, dtype=torch.float64), torch.Generator().manual_seed(0))
    >>> abs(float(g.mean()) - 3.0) < 0.05
    True
    """
    boost = shape < 1
    a = torch.where(boost, shape + 1, shape)
    dd = a - 1.0 / 3.0
    c = 1.0 / torch.sqrt(9.0 * dd)
    out = torch.empty_like(a)
    pending = torch.ones_like(a, dtype=torch.bool)
    while bool(pending.any()):
        idx = pending.nonzero().squeeze(-1)
        x = torch.randn(idx.numel(), generator=gen, dtype=torch.float64)
        u = torch.rand(idx.numel(), generator=gen, dtype=torch.float64)
        v = (1 + c[idx] * x) ** 3
        ok = (v > 0) & (torch.log(u) < 0.5 * x**2 + dd[idx] - dd[idx] * v + dd[idx] * torch.log(v.clamp_min(1e-300)))
        out[idx[ok]] = dd[idx[ok]] * v[ok]
        pending[idx[ok]] = False
    if bool(boost.any()):
        u = torch.rand(int(boost.sum()), generator=gen, dtype=torch.float64)
        out[boost] = out[boost] * u ** (1.0 / shape[boost])
    return out


def bartlett_factor(dim: int, k: int, gen: torch.Generator) -> torch.Tensor:
    r"""Bartlett factor :math:`R` (``min(dim, k) × k``, float64), :math:`R^\top R \sim \mathrm{Wishart}_k(\dim, I)`:
    :math:`R_{ii} = \sqrt{\chi^2_{\dim - i}}` (``i`` from 0), :math:`\mathcal N(0,1)` above the diagonal.

    >>> r = bartlett_factor(10**9, 3, torch.Generator().manual_seed(0))
    >>> r.shape, bool((torch.diagonal(r) > 0).all()), bool((r.tril(-1) == 0).all())
    (torch.Size([3, 3]), True, True)
    """
    rows = min(dim, k)
    r = torch.randn(rows, k, generator=gen, dtype=torch.float64).triu_(1)
    df = dim - torch.arange(rows, dtype=torch.float64)
    r[torch.arange(rows), torch.arange(rows)] = torch.sqrt(2.0 * standard_gamma(df / 2.0, gen))
    return r


def haar_frame(dim: int, k: int, gen: torch.Generator) -> torch.Tensor:
    r"""Haar-distributed orthonormal frame :math:`Q` (``dim × k``, float64, :math:`k \le \dim`): QR of a
    standard Gaussian matrix, columns signed so the triangular factor's diagonal is positive.

    >>> q = haar_frame(6, 3, torch.Generator().manual_seed(0))
    >>> bool(torch.allclose(q.T @ q, torch.eye(3, dtype=torch.float64)))
    True
    """
    q, r = torch.linalg.qr(torch.randn(dim, k, generator=gen, dtype=torch.float64))
    return q * torch.sign(torch.diagonal(r))
