r"""Deep networks, their virtual updates, Gram shifts and the VCL update (torch only).

Source: Cha & Lee, "Feature Learning as a Virtual Covariance Learning" (Korea University), developed in
Cha, Beaglehole, Radhakrishnan, Lee 2026, "The Weight Gram Matrix Captures Sequential Feature Linearization
in Deep Networks", arXiv 2605.06258.

Network. Widths :math:`(d_0, \dots, d_L)`, :math:`h_{l+1} = \sigma(W_l h_l)` at every layer (output included),
:math:`W_l \in \mathbb R^{d_{l+1}\times d_l}` with entries :math:`\mathcal N(0, s^2/d_l)` (stream ``"W{l}"``),
:math:`h_0 = x`. A batch of :math:`B` inputs is the rows of :math:`H_0` (shape ``(seeds, B, d_0)``); the loss is
the batch mean :math:`L = \frac{1}{2B}\sum_k \|h_{L,k} - y_k\|^2`. Back-propagation in closed form:
:math:`D_{l+1} = \partial L/\partial Z_{l+1}` (rows: samples), :math:`\nabla_{W_l}L = D_{l+1}^\top H_l`,
:math:`\nabla_{H_l}L = D_{l+1} W_l`.

Pairing (what the laws use). :math:`W_l` pairs with its *input* :math:`h_l`: both
:math:`W_l^\top W_l` and :math:`h_l h_l^\top` are :math:`d_l\times d_l`. Virtual update
:math:`H_l^+ = H_l - \gamma\nabla_{H_l}L` with the gradient of the same batch loss :math:`L` that updates
:math:`W_l^+ = W_l - \gamma\nabla_{W_l}L`. Virtual covariance of a batch: ``"summed"``
:math:`\widetilde{\mathrm{cov}}(H) = H^\top H = \sum_k h_k h_k^\top` (the slide's :math:`h h^\top` with the
batch as columns of :math:`h`), or ``"mean"`` :math:`\frac1B H^\top H`.

VCL update (the poster's orthogonal Procrustes step). Target Gram
:math:`M = W^\top W + \widetilde{\mathrm{cov}}(H^+) - \widetilde{\mathrm{cov}}(H)`; with :math:`k = \min(d_{l+1}, d_l)`
keep the top :math:`k` eigenpairs of :math:`M` (negative eigenvalues clipped to 0),
:math:`B = \operatorname{diag}(\sqrt{\lambda})V^\top` (:math:`k\times d_l`), then
:math:`W^+ = \arg\min_{U^\top U = I}\|U B - W\|_F\cdot B = P Q^\top B` from the SVD
:math:`W B^\top = P\Sigma Q^\top`. Then :math:`W^{+\top}W^+ = M` exactly when :math:`M \succeq 0` has rank
:math:`\le d_{l+1}`, and :math:`W^+ = W` when :math:`M = W^\top W`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..._validation import check_int, check_real
from ...errors import InvalidParameterError, InvalidParameterTypeError
from ...numeric.activation import Activation, as_activation
from ...numeric.backend import TensorOptions, check_finite, resolve_device, resolve_dtype
from ...numeric.data import as_seeds, seeded_normal
from ...runner.params import Param, Params

__all__ = [
    "COV_READINGS",
    "PARAMS",
    "Backprop",
    "backprop",
    "batch_backprop",
    "check_widths",
    "forward",
    "gram_residuals",
    "init_weights",
    "residual_rows",
    "theorem3_elements",
    "theorem3_rows",
    "training_rows",
    "train",
    "violation_counts",
    "vcl_update",
]


#: Readings of the virtual covariance of a batch.
COV_READINGS = ("summed", "mean")

#: The parameters of the three experiments, declared once: the runner's ``virtual-covariance/*`` (converters and
#: defaults), ``flt simulate virtual-covariance`` (options and bounds) and the functions below (validation) read them.
#: The layer widths are checked by :func:`check_widths` (a list; the runner stores them as the text ``"10,12,3"``).
PARAMS = Params(
    Param("activation", "str", help="Activation sigma, a 1-D function of z."),
    Param("batch", "int", minimum=1, maximum=1 << 16, unit="count", help="Batch size B."),
    Param("cov", "choice", choices=COV_READINGS, default="summed",
          help="Virtual covariance of a batch: summed H H' or mean H H'/B."),
    Param("gamma", "float", minimum=0, exclusive_minimum=True, help="Step size gamma."),
    Param("h_norm", "float", minimum=0, exclusive_minimum=True, help="||h_0|| of the Theorem 3 nets."),
    Param("zero_units", "int", minimum=0, default=1, unit="count",
          help="Hidden units of the Theorem 3 nets set to zero (<= d_1)."),
    Param("steps", "int", minimum=0, maximum=100_000, unit="steps", help="GD or VCL steps."),
    Param("n", "int", minimum=1, unit="count", help="Training samples."),
)


def check_widths(widths: Sequence[int], caller: str) -> tuple[int, ...]:
    """Validate layer widths ``(d_0, …, d_L)``, at least two entries, each an int >= 1.

    >>> check_widths([10, 12, 3], "demo")
    (10, 12, 3)
    """
    if isinstance(widths, (str, bytes)) or not isinstance(widths, Sequence) or len(widths) < 2:
        raise InvalidParameterTypeError(
            f"The 'widths' parameter of {caller} must be a sequence of at least 2 ints (d_0, ..., d_L). "
            f"Got {widths!r} instead."
        )
    return tuple(check_int(w, "widths", minimum=1, maximum=4096, caller=caller) for w in widths)


def _cov(cov: str, caller: str) -> str:
    return PARAMS["cov"].check(cov, caller)


def init_weights(
    seeds: int | Sequence[int],
    widths: Sequence[int],
    *,
    scale: float = 1.0,
    stream: str = "W",
    device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float64",
) -> list[torch.Tensor]:
    r"""Weights :math:`W_l`, shape ``(seeds, d_{l+1}, d_l)``, entries :math:`\mathcal N(0, s^2/d_l)`.

    >>> [tuple(w.shape) for w in init_weights(2, [4, 5, 3], device="cpu")]
    [(2, 5, 4), (2, 3, 5)]
    """
    widths = check_widths(widths, "init_weights")
    scale = check_real(scale, "scale", minimum=0.0, strict_minimum=True, caller="init_weights")
    seeds = as_seeds(seeds)
    return [
        seeded_normal(seeds, (widths[layer + 1], widths[layer]), f"{stream}{layer}", device=device, dtype=dtype)
        * (scale / math.sqrt(widths[layer]))
        for layer in range(len(widths) - 1)
    ]


def forward(weights: Sequence[torch.Tensor], x: torch.Tensor, act: Activation) -> tuple[list[torch.Tensor],
                                                                                        list[torch.Tensor]]:
    r"""Hidden states :math:`H_0 = x, \dots, H_L` (each ``(seeds, B, d_l)``) and pre-activations
    :math:`Z_1, \dots, Z_L`."""
    hs, zs = [x], []
    for w in weights:
        zs.append(hs[-1] @ w.transpose(-1, -2))
        hs.append(act(zs[-1]))
    return hs, zs


@dataclass(frozen=True, eq=False)
class Backprop:
    r"""One forward/backward pass: ``hs[l]`` :math:`= H_l`, ``zs[l]`` :math:`= Z_{l+1}`,
    ``deltas[l]`` :math:`= D_{l+1} = \partial L/\partial Z_{l+1}`, ``grad_w[l]`` :math:`= \nabla_{W_l}L`,
    ``grad_h[l]`` :math:`= \nabla_{H_l}L`, ``loss`` shape ``(seeds,)``."""

    weights: list[torch.Tensor]
    hs: list[torch.Tensor]
    zs: list[torch.Tensor]
    deltas: list[torch.Tensor]
    grad_w: list[torch.Tensor]
    grad_h: list[torch.Tensor]
    loss: torch.Tensor


def backprop(weights: Sequence[torch.Tensor], x: torch.Tensor, y: torch.Tensor, act: Activation) -> Backprop:
    r"""Closed-form gradients of :math:`L = \frac1{2B}\sum_k\|h_{L,k} - y_k\|^2` (module docstring).

    >>> act = as_activation("tanh")
    >>> ws = init_weights(1, [3, 4, 2], device="cpu")
    >>> x, y = torch.randn(1, 5, 3, dtype=torch.float64), torch.randn(1, 5, 2, dtype=torch.float64)
    >>> bp = backprop(ws, x, y, act)
    >>> w = ws[0].clone().requires_grad_(True)
    >>> out = torch.tanh(torch.tanh(x @ w.transpose(-1, -2)) @ ws[1].transpose(-1, -2))
    >>> ((out - y) ** 2).sum().div(2 * 5).backward()
    >>> bool(torch.allclose(w.grad, bp.grad_w[0]))
    True
    """
    weights = list(weights)
    hs, zs = forward(weights, x, act)
    batch = x.shape[-2]
    delta = (hs[-1] - y) * act.grad(zs[-1]) / batch
    deltas: list[torch.Tensor] = [delta]
    grad_h: list[torch.Tensor] = []
    for layer in range(len(weights) - 1, -1, -1):
        g = deltas[0] @ weights[layer]
        grad_h.insert(0, g)
        if layer > 0:
            deltas.insert(0, g * act.grad(zs[layer - 1]))
    grad_w = [deltas[layer].transpose(-1, -2) @ hs[layer] for layer in range(len(weights))]
    loss = ((hs[-1] - y) ** 2).sum((-1, -2)) / (2 * batch)
    return Backprop(weights, hs, zs, deltas, grad_w, grad_h, loss)


def gram_residuals(bp: Backprop, gammas: Sequence[float], cov: str = "summed") -> torch.Tensor:
    r""":math:`\|(W_l^+)^\top W_l^+ - W_l^\top W_l - [\widetilde{\mathrm{cov}}(H_l^+) -
    \widetilde{\mathrm{cov}}(H_l)]\|_F` for every layer and every :math:`\gamma`, shape ``(seeds, layers,
    len(gammas))``, computed from the definitions (no expansion).

    >>> act = as_activation("tanh")
    >>> ws = init_weights(2, [3, 4, 2], device="cpu")
    >>> x, y = torch.randn(2, 1, 3, dtype=torch.float64), torch.randn(2, 1, 2, dtype=torch.float64)
    >>> r = gram_residuals(backprop(ws, x, y, act), [1e-2, 1e-1])
    >>> r.shape, bool(((r[..., 1] / r[..., 0] - 100).abs() < 1e-6).all())   # exactly quadratic
    (torch.Size([2, 2, 2]), True)
    """
    cov = _cov(cov, "gram_residuals")
    ref = bp.weights[0]
    gam = torch.as_tensor([float(g) for g in gammas], dtype=ref.dtype, device=ref.device).view(1, -1, 1, 1)
    out = []
    # hs also holds the output h_L, which no weight takes as input: zip stops at the last weight
    for w, h, gw, gh in zip(bp.weights, bp.hs, bp.grad_w, bp.grad_h, strict=False):
        scale = 1.0 if cov == "summed" else 1.0 / h.shape[-2]
        wp = w.unsqueeze(1) - gam * gw.unsqueeze(1)
        hp = h.unsqueeze(1) - gam * gh.unsqueeze(1)
        gram_shift = wp.transpose(-1, -2) @ wp - (w.transpose(-1, -2) @ w).unsqueeze(1)
        cov_shift = scale * (hp.transpose(-1, -2) @ hp - (h.transpose(-1, -2) @ h).unsqueeze(1))
        out.append((gram_shift - cov_shift).flatten(-2).norm(dim=-1))
    return torch.stack(out, dim=1)


def vcl_update(w: torch.Tensor, h: torch.Tensor, grad_h: torch.Tensor, gamma: float,
               cov: str = "summed") -> torch.Tensor:
    r"""The VCL (orthogonal Procrustes) update of one layer (module docstring), shape of ``w``.

    >>> w = init_weights(1, [3, 4], device="cpu")[0]
    >>> h = torch.randn(1, 6, 3, dtype=torch.float64)
    >>> torch.allclose(vcl_update(w, h, torch.zeros_like(h), 0.1), w)   # no virtual shift: W unchanged
    True
    """
    cov = _cov(cov, "vcl_update")
    scale = 1.0 if cov == "summed" else 1.0 / h.shape[-2]
    hp = h - gamma * grad_h
    target = w.transpose(-1, -2) @ w + scale * (hp.transpose(-1, -2) @ hp - h.transpose(-1, -2) @ h)
    target = (target + target.transpose(-1, -2)) / 2
    k = min(w.shape[-2], w.shape[-1])
    evals, evecs = torch.linalg.eigh(target)
    root = (evals[..., -k:].clamp_min(0).sqrt().unsqueeze(-1)) * evecs[..., :, -k:].transpose(-1, -2)  # (S, k, n)
    p, _, qh = torch.linalg.svd(w @ root.transpose(-1, -2), full_matrices=False)
    return p @ qh @ root


def train(
    seeds: int | Sequence[int],
    *,
    widths: Sequence[int] = (10, 12, 12, 3),
    activation: str | Activation = "tanh",
    method: str = "gd",
    gamma: float = 0.5,
    steps: int = 50,
    n: int = 64,
    cov: str = "summed",
    device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float64",
) -> torch.Tensor:
    r"""Full-batch training curve, shape ``(seeds, steps + 1)``, of GD or VCL on a teacher-student task.

    Task: :math:`n` inputs :math:`x \sim \mathcal N(0, I_{d_0})` (stream ``"task-x"``), labels from a teacher
    network of the same widths and activation with weights of scale 2 (streams ``"T{l}"``); student weights
    from streams ``"W{l}"``. ``method="gd"``: :math:`W_l \leftarrow W_l - \gamma\nabla_{W_l}L`;
    ``"vcl"``: every layer by :func:`vcl_update` from the same backward pass.

    >>> curve = train(2, widths=(4, 5, 2), steps=3, n=8, device="cpu", method="vcl")
    >>> curve.shape
    torch.Size([2, 4])
    """
    widths = check_widths(widths, "train")
    if method not in ("gd", "vcl"):
        raise InvalidParameterError(f"The 'method' parameter of train must be 'gd' or 'vcl'. Got {method!r} instead.")
    gamma, steps, n = PARAMS.check(dict(gamma=gamma, steps=steps, n=n), caller="train").values()
    cov = _cov(cov, "train")
    act = as_activation(activation)
    seeds = as_seeds(seeds)
    opts = TensorOptions(device=resolve_device(device), dtype=resolve_dtype(dtype))
    x = seeded_normal(seeds, (n, widths[0]), "task-x", **opts)
    y = forward(init_weights(seeds, widths, scale=2.0, stream="T", **opts), x, act)[0][-1]
    weights = init_weights(seeds, widths, **opts)
    losses = []
    for _ in range(steps + 1):
        bp = backprop(weights, x, y, act)
        losses.append(bp.loss)
        if method == "gd":
            weights = [w - gamma * g for w, g in zip(weights, bp.grad_w, strict=True)]
        else:
            weights = [vcl_update(w, h, g, gamma, cov) for w, h, g in zip(weights, bp.hs, bp.grad_h, strict=False)]
    return check_finite(torch.stack(losses, dim=-1), "the training loss", "lower gamma")


def theorem3_elements(
    seeds: int | Sequence[int],
    *,
    widths: Sequence[int] = (10, 12, 12, 3),
    activation: str | Activation = "tanh",
    h_norm: float = 1.0,
    zero_units: int = 1,
    gamma_range: tuple[float, float] = (1e-2, 1.0),
    with_floor: bool = False,
    device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float64",
) -> tuple[torch.Tensor, ...]:
    r"""The two sides of Theorem 3 at the first hidden layer of one random net per seed.

    Per seed: weights from streams ``"W{l}"``, one input :math:`h_0` (stream ``"x"``) rescaled to
    :math:`\|h_0\| =` ``h_norm``, a target :math:`y \sim \mathcal N(0, I)` (stream ``"y"``), a step
    :math:`\gamma` log-uniform in ``gamma_range`` (stream ``"gamma"``). The outgoing weights of the first
    ``zero_units`` units of :math:`h_1` are set to 0, so :math:`\nabla_{h_1}L` vanishes there exactly (the
    zero-gradient case). Returns :math:`\Delta\sigma = \sigma(W_0^+h_0) - \sigma(W_0h_0)` and
    :math:`\Delta h = h_1^+ - h_1 = -\gamma\nabla_{h_1}L`, each ``(seeds, d_1)``; with ``with_floor`` also the
    rounding floor of :math:`\Delta\sigma` (64 ulps of what its computation subtracts:
    :math:`64\epsilon[(|W||h| + |W^+||h|)_i\max(|\sigma'(z_i)|, |\sigma'(z^+_i)|) + |\sigma(z_i)| + |\sigma(z^+_i)|]`),
    below which a difference of :math:`\Delta\sigma` from :math:`c|\Delta h|` or from 0 is not resolved.

    >>> ds, dh = theorem3_elements(3, activation="relu", device="cpu")
    >>> ds.shape, bool((dh[:, 0] == 0).all())
    (torch.Size([3, 12]), True)
    """
    widths = check_widths(widths, "theorem3_elements")
    if len(widths) < 3:
        raise InvalidParameterError(
            f"The 'widths' parameter of theorem3_elements needs a hidden layer (at least 3 widths). Got {widths!r} "
            "instead."
        )
    h_norm, zero_units = PARAMS.check(dict(h_norm=h_norm, zero_units=zero_units), caller="theorem3_elements").values()
    zero_units = check_int(zero_units, "zero_units", minimum=0, maximum=widths[1], caller="theorem3_elements")
    act = as_activation(activation)
    seeds = as_seeds(seeds)
    opts = TensorOptions(device=resolve_device(device), dtype=resolve_dtype(dtype))
    weights = init_weights(seeds, widths, **opts)
    weights[1][:, :, :zero_units] = 0.0
    x = seeded_normal(seeds, (1, widths[0]), "x", **opts)
    x = x * (h_norm / x.norm(dim=-1, keepdim=True))
    y = seeded_normal(seeds, (1, widths[-1]), "y", **opts)
    lo, hi = (math.log(check_real(g, "gamma_range", minimum=0.0, strict_minimum=True,
                                  caller="theorem3_elements")) for g in gamma_range)
    u = torch.special.ndtr(seeded_normal(seeds, (1, 1), "gamma", **opts))  # uniform(0, 1)
    gamma = torch.exp(lo + (hi - lo) * u)
    bp = backprop(weights, x, y, act)
    w_plus = weights[0] - gamma * bp.grad_w[0]
    z_plus = x @ w_plus.transpose(-1, -2)
    dsigma = act(z_plus) - bp.hs[1]
    dh = -gamma * bp.grad_h[1]
    if not with_floor:
        return dsigma[:, 0, :], dh[:, 0, :]
    eps = torch.finfo(x.dtype).eps
    sums = x.abs() @ (weights[0].abs() + w_plus.abs()).transpose(-1, -2)
    slope = torch.maximum(act.grad(bp.zs[0]).abs(), act.grad(z_plus).abs())
    floor = 64 * eps * (sums * slope + bp.hs[1].abs() + act(z_plus).abs())
    return dsigma[:, 0, :], dh[:, 0, :], floor[:, 0, :]


def violation_counts(
    dsigma: torch.Tensor, dh: torch.Tensor, bound: float, *, floor: torch.Tensor | None = None, rel_slack: float = 1e-9
) -> dict[str, float]:
    r"""Counts of Theorem 3 violations among the elements of ``dsigma``/``dh`` (same shape).

    ``bound`` is the constant in :math:`|\Delta\sigma| \,\square\, \text{bound}\cdot|\Delta h|`
    (:math:`L^2`, or :math:`L^2\|h\|^2` for the corrected form). Rounding: a pair within a relative
    ``rel_slack`` of equality, or within the rounding ``floor`` of ``dsigma`` (:func:`theorem3_elements`), counts as
    equal (``<`` fails, ``<=`` holds); signs of values below ``rel_slack`` times the largest ``|dh|`` of their seed
    (or below their floor) count as 0.

    Returns ``elements``, ``strict_violations`` (not ``<``), ``weak_violations`` (not ``<=``),
    ``sign_strict_violations`` (:math:`\mathrm{sgn}\,\Delta\sigma \ne \mathrm{sgn}\,\Delta h`),
    ``sign_weak_violations`` (opposite signs) and ``max_ratio`` (:math:`\max |\Delta\sigma|/|\Delta h|` over
    :math:`\Delta h \neq 0`).

    >>> violation_counts(torch.tensor([[0.5, 0.0, 1.0]]), torch.tensor([[1.0, 0.0, 1.0]]), 1.0)["strict_violations"]
    2.0
    """
    lhs, rhs = dsigma.abs(), bound * dh.abs()
    rounding = torch.zeros_like(lhs) if floor is None else floor
    tol = rel_slack * rhs + rounding
    zero = rel_slack * dh.abs().amax(dim=-1, keepdim=True)

    def sgn(t: torch.Tensor, below: torch.Tensor) -> torch.Tensor:
        return torch.where(t.abs() <= below, torch.zeros_like(t), torch.sign(t))

    nonzero = dh.abs() > zero
    safe = torch.where(nonzero, dh.abs(), torch.ones_like(lhs))

    def worst(values: torch.Tensor) -> float:
        return float(torch.where(nonzero, values / safe, torch.zeros_like(values)).max())

    return {
        "elements": float(dh.numel()),
        "strict_violations": float((lhs >= rhs - tol).sum()),
        "weak_violations": float((lhs > rhs + tol).sum()),
        "sign_strict_violations": float((sgn(dsigma, torch.maximum(zero, rounding)) != sgn(dh, zero)).sum()),
        "sign_weak_violations": float((sgn(dsigma, torch.maximum(zero, rounding)) * sgn(dh, zero) < 0).sum()),
        "max_ratio": worst(lhs),
        "max_ratio_low": worst((lhs - rounding).clamp_min(0)),
        "max_ratio_high": worst(lhs + rounding),
    }


# ----------------------------------------------------------------------------------------------
# per-seed rows (what the runner stores: one dict of floats per seed)


def batch_backprop(
    seeds: Sequence[int], *, widths: Sequence[int], activation: str | Activation, batch: int,
    device: str | torch.device = "auto", dtype: str | torch.dtype = "float64",
) -> Backprop:
    r"""One backward pass of a random net per seed on a batch of ``batch`` Gaussian inputs (stream ``"x"``)
    with Gaussian targets (stream ``"y"``), weights of scale 1 (streams ``"W{l}"``)."""
    widths = check_widths(widths, "batch_backprop")
    batch = PARAMS["batch"].check(batch, "batch_backprop")
    opts = TensorOptions(device=resolve_device(device), dtype=resolve_dtype(dtype))
    seeds = as_seeds(list(seeds))
    x = seeded_normal(seeds, (batch, widths[0]), "x", **opts)
    y = seeded_normal(seeds, (batch, widths[-1]), "y", **opts)
    return backprop(init_weights(seeds, widths, **opts), x, y, as_activation(activation))


def residual_rows(
    seeds: Sequence[int], *, widths: Sequence[int], activation: str | Activation, batch: int, cov: str, gamma: float,
    device: str | torch.device = "auto", dtype: str | torch.dtype = "float64",
) -> list[dict[str, float]]:
    r"""Per seed and layer ``l``: ``residual_l{l}`` (:func:`gram_residuals` at ``gamma``) and its least-squares
    coordinates on the two candidate second-order terms,
    :math:`R \approx c_W\,\gamma^2(\nabla_W L)^\top\nabla_W L + c_H\,\gamma^2(\nabla_H L)(\nabla_H L)^\top`
    (``c_weight_l{l}``, ``c_virtual_l{l}``), with the relative misfit ``misfit_l{l}``
    :math:`= \|R - \text{fit}\|_F/\|R\|_F`. Any law of that form is then checked from the stored numbers alone.
    ``rounding_l{l}`` is :math:`\epsilon(\|W^\top W\|_F + \|H^\top H\|_F)/\|R\|_F`, the float64 resolution of
    that comparison. ``degenerate_l{l}`` is 1 when every gradient of the layer vanishes (e.g. all ReLU outputs dead):
    then :math:`R = 0` identically and carries no order and no coefficient.

    >>> rows = residual_rows([0, 1], widths=(3, 4, 2), activation="tanh", batch=2, cov="summed", gamma=0.1,
    ...                      device="cpu")
    >>> round(rows[0]["c_weight_l0"], 9), round(rows[0]["c_virtual_l0"], 9), rows[0]["misfit_l0"] < 1e-12
    (1.0, -1.0, True)
    """
    gamma = PARAMS["gamma"].check(gamma, "residual_rows")
    cov = _cov(cov, "residual_rows")
    bp = batch_backprop(seeds, widths=widths, activation=activation, batch=batch, device=device, dtype=dtype)
    rows: list[dict[str, float]] = [{} for _ in seeds]
    for layer, (w, h, gw, gh) in enumerate(zip(bp.weights, bp.hs, bp.grad_w, bp.grad_h, strict=False)):
        scale = 1.0 if cov == "summed" else 1.0 / h.shape[-2]
        wp, hp = w - gamma * gw, h - gamma * gh
        res = ((wp.transpose(-1, -2) @ wp - w.transpose(-1, -2) @ w)
               - scale * (hp.transpose(-1, -2) @ hp - h.transpose(-1, -2) @ h))
        basis = torch.stack([gamma**2 * gw.transpose(-1, -2) @ gw, gamma**2 * gh.transpose(-1, -2) @ gh],
                            dim=1).flatten(-2)
        gram = basis @ basis.transpose(-1, -2)  # (S, 2, 2)
        rhs = basis @ res.flatten(-2).unsqueeze(-1)
        coef = (torch.linalg.pinv(gram) @ rhs).squeeze(-1)  # (S, 2); pinv: a vanishing gradient gives 0, not NaN
        fit = (coef.unsqueeze(-1) * basis).sum(1)
        norm = res.flatten(-2).norm(dim=-1)
        misfit = (res.flatten(-2) - fit).norm(dim=-1) / torch.where(norm > 0, norm, torch.ones_like(norm))
        eps = torch.finfo(res.dtype).eps
        grams = (w.transpose(-1, -2) @ w).flatten(-2).norm(dim=-1) + (h.transpose(-1, -2) @ h).flatten(-2).norm(dim=-1)
        rounding = eps * grams / torch.where(norm > 0, norm, torch.ones_like(norm))
        degenerate = basis.flatten(1).abs().amax(-1) == 0  # every gradient of the layer vanishes: R = 0 identically
        for s in range(len(rows)):
            rows[s].update({f"residual_l{layer}": float(norm[s]), f"c_weight_l{layer}": float(coef[s, 0]),
                            f"c_virtual_l{layer}": float(coef[s, 1]), f"misfit_l{layer}": float(misfit[s]),
                            f"degenerate_l{layer}": float(degenerate[s]), f"rounding_l{layer}": float(rounding[s])})
    return rows


def theorem3_rows(
    seeds: Sequence[int], *, widths: Sequence[int], activation: str | Activation, h_norm: float, bound: float,
    zero_units: int = 1, device: str | torch.device = "auto", dtype: str | torch.dtype = "float64",
) -> list[dict[str, float]]:
    r"""One random net per seed (:func:`theorem3_elements`); per seed the counts of :func:`violation_counts` at
    ``bound`` (the literal :math:`L^2`, for display) and what any bound can be checked from:
    ``max_ratio_low`` / ``max_ratio_high`` (the largest ratio with the rounding floor taken off / added: a weak
    bound :math:`c` is violated beyond rounding iff ``max_ratio_low > c``, a strict one may fail iff
    ``max_ratio_high >= c``) and ``zero_dh`` (elements with :math:`\Delta h_i = 0`, where no strict bound holds).

    >>> rows = theorem3_rows([0], widths=(4, 6, 2), activation="relu", h_norm=1.0, bound=1.0, device="cpu")
    >>> rows[0]["zero_dh"] >= 1, rows[0]["weak_violations"]
    (True, 0.0)
    """
    dsigma, dh, floor = theorem3_elements(seeds, widths=widths, activation=activation, h_norm=h_norm,
                                          zero_units=zero_units, with_floor=True, device=device, dtype=dtype)
    rows = []
    for s in range(dsigma.shape[0]):
        row = violation_counts(dsigma[s : s + 1], dh[s : s + 1], bound, floor=floor[s : s + 1])
        row["zero_dh"] = float((dh[s].abs() <= 1e-9 * dh[s].abs().max()).sum())
        rows.append(row)
    return rows


def training_rows(
    seeds: Sequence[int], *, widths: Sequence[int], activation: str | Activation, gamma: float, steps: int, n: int,
    device: str | torch.device = "auto", dtype: str | torch.dtype = "float64",
) -> list[dict[str, float]]:
    r"""Per seed: ``loss_0`` and the loss after ``steps`` steps of GD (``loss_gd``) and of VCL (``loss_vcl``,
    summed reading) from the same initialisation on the same task (:func:`train`)."""
    run = functools.partial(train, list(seeds), widths=widths, activation=activation, gamma=gamma, steps=steps, n=n,
                            device=device, dtype=dtype)
    gd, vcl = run(method="gd"), run(method="vcl")
    return [{"loss_0": float(gd[s, 0]), "loss_gd": float(gd[s, -1]),
             "loss_vcl": float(vcl[s, -1])} for s in range(gd.shape[0])]
