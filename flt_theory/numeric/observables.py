r"""Observables of the first layer that the giant-step laws talk about (Dandi et al. 2023, arXiv 2305.18270).

Every function takes weights of shape ``(..., seeds, p, d)`` — one :math:`W` ``(seeds, p, d)``, or the
whole trajectory ``(T+1, seeds, p, d)`` of a giant-step run (``GiantStepResult.weights``,
:mod:`flt_theory.systems.giant_step.engine`) — and broadcasts over the leading dims.

Subspaces :math:`U \subseteq V^* = \operatorname{span}\{w^*_k\}` are given in *w*-coordinates*: an
``(m, r)`` array whose rows :math:`b_j` span :math:`U` through :math:`u_j = \sum_k b_{jk} w^*_k`
(as the symbolic layer's staircase and one-step subspaces are; a
:class:`~flt_theory.symbolic.subspace.Subspace` is accepted as is). Rows are orthonormalised here (QR),
so any full-row-rank basis works; a 1-D array is one direction, ``None`` means :math:`V^*`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from .._validation import check_int
from ..errors import InvalidParameterError

__all__ = [
    "complement_basis",
    "least_direction_mass",
    "norm_growth",
    "overlaps",
    "principal_angles",
    "random_mass_baseline",
    "subspace_mass",
    "top_direction_overlap",
    "update_singular_values",
]


def _check(weights: torch.Tensor, w_star: torch.Tensor) -> None:
    if (
        weights.ndim < 3
        or w_star.ndim != 3
        or weights.shape[-3] != w_star.shape[0]
        or weights.shape[-1] != w_star.shape[-1]
    ):
        raise InvalidParameterError(
            f"weights must have shape (..., seeds, p, d) and w_star (seeds, r, d) with matching seeds and d. "
            f"Got {tuple(weights.shape)=} and {tuple(w_star.shape)=} instead."
        )


def _orthonormal_rows(basis: Any, r: int) -> np.ndarray:
    """Orthonormal ``(m, r)`` rows spanning the rows of ``basis`` (``None``: the identity)."""
    if basis is None:
        return np.eye(r)
    if isinstance(basis, torch.Tensor):
        basis = basis.detach().cpu().numpy()
    elif callable(getattr(basis, "numpy", None)):  # a symbolic Subspace
        basis = basis.numpy()
    try:
        b = np.asarray(basis, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"The 'basis' parameter must be a numeric (m, r={r}) array. Got {basis!r} instead."
        ) from None
    b = b.reshape(1, -1) if b.ndim == 1 else b
    if b.ndim != 2 or b.shape[1] != r or not np.isfinite(b).all():
        raise InvalidParameterError(
            f"The 'basis' parameter must be a finite (m, r={r}) array. Got shape {b.shape} instead."
        )
    if b.shape[0] == 0:
        return b
    q, upper = np.linalg.qr(b.T)
    diag = np.abs(np.diag(upper))
    if diag.min() <= 1e-10 * max(1.0, diag.max()):
        raise InvalidParameterError(
            f"The 'basis' parameter must have linearly independent rows. Got {b.tolist()} instead."
        )
    return q.T


def _lift(basis: Any, w_star: torch.Tensor) -> torch.Tensor:
    """Orthonormal basis of U in R^d, ``(seeds, m, d)``."""
    b = torch.as_tensor(_orthonormal_rows(basis, w_star.shape[1]), dtype=w_star.dtype, device=w_star.device)
    return b @ w_star


def overlaps(weights: torch.Tensor, w_star: torch.Tensor) -> torch.Tensor:
    r"""Normalised overlaps :math:`\langle w_i, w^*_k\rangle / \lVert w_i\rVert`, ``(..., seeds, p, r)``.

    >>> overlaps(torch.tensor([[[3.0, 4.0]]]), torch.eye(2)[None])
    tensor([[[0.6000, 0.8000]]])
    """
    _check(weights, w_star)
    return (weights @ w_star.transpose(-1, -2)) / torch.linalg.vector_norm(weights, dim=-1, keepdim=True)


def subspace_mass(
    weights: torch.Tensor, w_star: torch.Tensor, basis: Any = None, *, per_neuron: bool = False
) -> torch.Tensor:
    r"""Mass :math:`\lVert P_U w_i\rVert^2 / \lVert w_i\rVert^2` on :math:`U` (module docstring),
    averaged over neurons: ``(..., seeds)``; per neuron ``(..., seeds, p)`` if ``per_neuron``.

    A random unit vector has expected mass :math:`\dim U / d` (:func:`random_mass_baseline`).

    >>> w_star = torch.eye(3)[None, :2]            # w*_1 = e1, w*_2 = e2 in R^3
    >>> W = torch.tensor([[[2.0, 0.0, 0.0], [1.0, 1.0, 0.0]]])
    >>> subspace_mass(W, w_star, [[1.0, 0.0]], per_neuron=True)
    tensor([[1.0000, 0.5000]])
    """
    _check(weights, w_star)
    u = _lift(basis, w_star)
    mass = (weights @ u.transpose(-1, -2)).square().sum(-1) / weights.square().sum(-1)
    return mass if per_neuron else mass.mean(-1)


def least_direction_mass(weights: torch.Tensor, w_star: torch.Tensor, basis: Any) -> torch.Tensor:
    r"""Mass of the least-learned unit direction of :math:`U`, ``(..., seeds)``.

    :math:`\lambda_{\min}(M)` with :math:`M = \frac1p \sum_i P_U \hat w_i \hat w_i^\top P_U`
    restricted to :math:`U` (:math:`\hat w_i = w_i/\|w_i\|`): the smallest mass
    :math:`\frac1p\sum_i \langle \hat w_i, u\rangle^2` over unit :math:`u \in U`. A claim "every
    direction of :math:`U` is learned" needs this, not :func:`subspace_mass`, which one strongly
    learned direction can carry alone. Random level: about :math:`1/d`.

    >>> w_star = torch.eye(3)[None, :2]
    >>> W = torch.tensor([[[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]])
    >>> least_direction_mass(W, w_star, [[1.0, 0.0], [0.0, 1.0]])
    tensor([0.])
    """
    _check(weights, w_star)
    u = _lift(basis, w_star)
    coords = (weights @ u.transpose(-1, -2)) / torch.linalg.vector_norm(weights, dim=-1, keepdim=True)
    second_moment = coords.transpose(-1, -2) @ coords / weights.shape[-2]
    return torch.linalg.eigvalsh(second_moment)[..., 0]


def complement_basis(basis: Any, r: int) -> np.ndarray:
    r"""Orthonormal rows spanning :math:`V^* \ominus U` in w*-coordinates, ``(r - m, r)``.

    >>> c = complement_basis([[1.0, 1.0]], 2)
    >>> c.shape, bool(abs(c @ [1.0, 1.0]).max() < 1e-12)
    ((1, 2), True)
    """
    r = check_int(r, "r", minimum=1, caller="complement_basis")
    b = _orthonormal_rows(basis, r)
    if b.shape[0] == 0:
        return np.eye(r)
    q, _ = np.linalg.qr(b.T, mode="complete")
    return q[:, b.shape[0] :].T


def update_singular_values(weights: torch.Tensor, weights0: torch.Tensor) -> torch.Tensor:
    r"""Singular values of :math:`W^t - W^0`, descending, ``(..., seeds, min(p, d))``; for
    :math:`\ell = 1` one outlier separates from the bulk.

    >>> update_singular_values(torch.tensor([[[3.0, 0.0], [0.0, 1.0]]]), torch.zeros(1, 2, 2))
    tensor([[3., 1.]])
    """
    return torch.linalg.svdvals(weights - weights0)


def principal_angles(
    weights: torch.Tensor, weights0: torch.Tensor, w_star: torch.Tensor, basis: Any = None, m: int | None = None
) -> torch.Tensor:
    r"""Principal angles (radians, ascending) between the top-``m`` right singular subspace of
    :math:`W^t - W^0` and :math:`U`; ``m`` defaults to :math:`\dim U`. Shape ``(..., seeds, min(m, dim U))``.

    Cosines are the singular values of :math:`V_m^\top U` (both orthonormal), the standard definition.

    >>> w_star = torch.eye(3)[None, :2]                   # w*_1 = e1, w*_2 = e2
    >>> update = torch.tensor([[[1.0, 1.0, 0.0]]])         # one neuron moved along e1 + e2
    >>> principal_angles(update, torch.zeros(1, 1, 3), w_star, [[1.0, 0.0]])  # 45 degrees from w*_1
    tensor([[0.7854]])
    """
    _check(weights, w_star)
    u = _lift(basis, w_star)
    m = (
        u.shape[-2]
        if m is None
        else check_int(m, "m", minimum=1, maximum=min(weights.shape[-2:]), caller="principal_angles")
    )
    _, _, vh = torch.linalg.svd(weights - weights0, full_matrices=False)
    cosines = torch.linalg.svdvals(vh[..., :m, :] @ u.transpose(-1, -2))
    return torch.arccos(cosines.clamp(0.0, 1.0)).flip(-1)


def top_direction_overlap(
    weights: torch.Tensor, weights0: torch.Tensor, w_star: torch.Tensor, direction: Any
) -> torch.Tensor:
    r""":math:`|\langle v_1, v^*\rangle|` for :math:`v_1` the top right singular vector of
    :math:`W^t - W^0` and :math:`v^* = \sum_k c_k w^*_k / \lVert c\rVert` (``direction`` = :math:`c`,
    length :math:`r`, e.g. :math:`\mu^*_{\cdot,1}`); ``(..., seeds)``.

    >>> w_star = torch.eye(3)[None, :2]
    >>> update = torch.tensor([[[2.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]])  # rank one, along w*_1
    >>> top_direction_overlap(update, torch.zeros(1, 2, 3), w_star, [1.0, 0.0])
    tensor([1.])
    """
    _check(weights, w_star)
    v_star = _lift(direction, w_star)
    if v_star.shape[-2] != 1:
        raise InvalidParameterError(
            f"The 'direction' parameter must be one vector of length r. Got {v_star.shape[-2]} rows."
        )
    _, _, vh = torch.linalg.svd(weights - weights0, full_matrices=False)
    return (vh[..., 0, :] * v_star[:, 0, :]).sum(-1).abs()


def norm_growth(weights: torch.Tensor) -> torch.Tensor:
    r""":math:`\lVert w_i\rVert^2 - 1`, ``(..., seeds, p)`` (theory: :math:`\asymp d\eta^2/(np^2)` after one step).

    >>> norm_growth(torch.tensor([[[3.0, 4.0]]]))
    tensor([[24.]])
    """
    return weights.square().sum(-1) - 1.0


def random_mass_baseline(dim: int, d: int) -> float:
    r"""Expected mass of a uniformly random unit vector on a ``dim``-dimensional subspace of
    :math:`\mathbb R^d`: :math:`\dim / d`.

    >>> random_mass_baseline(2, 64)
    0.03125
    """
    dim = check_int(dim, "dim", minimum=0, caller="random_mass_baseline")
    d = check_int(d, "d", minimum=max(1, dim), caller="random_mass_baseline")
    return dim / d
