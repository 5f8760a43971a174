r"""One large gradient step on the first layer, then ridge on the second (torch only).

Source: Ba, Erdogdu, Suzuki, Wang, Wu, Yang 2022, "High-dimensional asymptotics of feature learning:
how one gradient step improves the representation", arXiv 2205.01445.

Setting (their normalisation). Target :math:`f^*(x) = \sigma^*(\langle x, \beta^*\rangle)`, :math:`\|\beta^*\| = 1`,
:math:`x \sim \mathcal N(0, I_d)`, labels :math:`y = f^*(x) + \varepsilon`,
:math:`\varepsilon \sim \mathcal N(0, \sigma_\varepsilon^2)`. Student
:math:`f(x) = \frac{1}{\sqrt N} a^\top \sigma(W^\top x)`, :math:`W \in \mathbb R^{d\times N}`,
:math:`W_{ij} \sim \mathcal N(0, 1/d)`, :math:`a_i \sim \mathcal N(0, 1/N)`. One full-batch step on :math:`n` samples
(stream ``"step"``),

.. math::

    W^1 = W^0 - \eta\sqrt N\,\nabla_W \frac{1}{2n}\sum_{k=1}^n \big(f(x_k) - y_k\big)^2,
    \qquad \eta = \tilde\eta\sqrt N,

computed in closed form: :math:`\nabla_W = \frac1n X^\top\big[(r/\sqrt N) \odot \sigma'(XW)\big]\operatorname{diag}(a)`,
:math:`r = f(X) - y`. Per neuron the step is :math:`\tilde\eta\,(\sqrt N a_i)\,\frac1n\sum_k (y_k - f(x_k))\,
\sigma'(\langle w_i, x_k\rangle)\,x_k` with :math:`\sqrt N a_i \sim \mathcal N(0, 1)`: :math:`\tilde\eta = \Theta(1)`
moves every neuron by :math:`\Theta(1)` (the "large" step :math:`\eta = \Theta(\sqrt N)` of the paper).
Relation to the giant-step system (Dandi et al. 2023, arXiv 2305.18270; :math:`\hat f = \frac1p\sum_i a_i
\sigma(\langle w_i, x\rangle)`, :math:`a_i = \pm 1`, per-neuron step :math:`\eta_{\rm GS} a_i/p`):
:math:`\tilde\eta \leftrightarrow \eta_{\rm GS}/p`, so that system's leap-1 theory step :math:`\eta_{\rm GS} = p`
is :math:`\tilde\eta = 1` here.

Readout. Ridge on a fresh batch of :math:`n` samples (stream ``"ridge"``) with features
:math:`\phi(x) = \sigma(W^\top x)/\sqrt N`, the tutorial's objective
:math:`\frac1n\sum_k (\phi(x_k)^\top a - y_k)^2 + \frac{\lambda}{N}\|a\|^2`, i.e.
:math:`(\Phi^\top\Phi/n + \lambda/N\, I)\,a = \Phi^\top y/n`, solved through one eigendecomposition of
:math:`\Phi^\top\Phi/n` per seed for every :math:`\lambda` at once. ``ridge="auto"`` picks :math:`\lambda`
from :data:`RIDGE_GRID` by the squared error against :math:`f^*` on a fresh validation batch (stream
``"validation"``), per seed: the oracle-tuned ridge the paper's :math:`\inf_\lambda` refers to. The linear baseline is
the same ridge on the features :math:`(x, 1)` (penalty :math:`\lambda\|\theta\|^2`), always tuned on the validation
batch: it is the best linear predictor's finite-sample risk, whose limit is :math:`\|P_{>1} f^*\|^2`.

Risk. :math:`\mathcal R(\hat f) = \mathbb E_x(\hat f(x) - f^*(x))^2` (noise-free), estimated on
``n_test`` fresh points (stream ``"test"``), consumed in chunks.

Spike. The step is close to rank one,
:math:`\nabla_W \approx \frac{\mu_1(\sigma)}{\sqrt N}\big(\tfrac1n X^\top y\big)a^\top` plus a smaller bulk;
``spike_alignment`` is :math:`|\langle u_1, \beta^*\rangle|` with :math:`u_1` the top left singular vector of
:math:`\nabla_W` (the same for every :math:`\tilde\eta > 0`: it is the direction every step moves along; it is reported
at :math:`\tilde\eta = 0` too, as the direction the step would take).

Seeds are the leading dimension of every tensor; every draw comes from the seeded streams of
:mod:`flt_theory.numeric.data` (``"teacher"``, ``"init-W"``, ``"init-a"``, ``"step"``, ``"ridge"``,
``"validation"``, ``"test"``, and ``"noise-…"`` for the label noise).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ...errors import InvalidParameterTypeError
from ...numeric.activation import Activation, as_activation
from ...numeric.backend import TensorOptions, check_finite, resolve_device, resolve_dtype
from ...numeric.data import as_seeds, gaussian_chunks, seeded_normal, teacher_directions
from ...numeric.teacher import Teacher
from ...runner.params import Param, Params
from ...symbolic.target import Target

__all__ = ["PARAMS", "RIDGE_GRID", "OneStepConfig", "OneStepResult", "one_step_ba", "ridge_solutions",
           "risk_rows"]

#: Ridge penalties :math:`\lambda` tried by ``ridge="auto"`` (log-spaced, :math:`10^{-6}` to :math:`10^{2}`).
RIDGE_GRID = tuple(10.0 ** (k / 2) for k in range(-12, 5))


#: The parameters of the system, declared once: the runner's ``one-step-ba/risk`` (converters and defaults; the
#: experiment's own ``n_test``), ``flt simulate one-step-ba`` (options and bounds) and :func:`one_step_ba` read them.
PARAMS = Params(
    Param("target", "str", default="tanh", help="Target link sigma* (a 1-D function of z)."),
    Param("activation", "str", default="tanh", help="Student activation sigma."),
    Param("d", "int", minimum=2, maximum=8192, unit="count", help="Input dimension d = width N."),
    Param("psi", "float", minimum=0, exclusive_minimum=True, help="n/d for the step and for the ridge."),
    Param("eta_tilde", "float", minimum=0, maximum=1e6,
          help="Step size eta_tilde: eta = eta_tilde sqrt(N) (0 = random features)."),
    Param("ridge", minimum=0, exclusive_minimum=True, default="auto", words=("auto",),
          help="Ridge lambda > 0, or 'auto' (tuned on a fresh validation batch)."),
    Param("noise", "float", minimum=0, default=0.0, help="Label noise sigma_epsilon."),
    Param("n_test", "int", minimum=16, default=8192, unit="count", help="Fresh test points."),
    Param("n_validation", "int", minimum=16, default=2048, unit="count", help="Fresh points that choose lambda."),
    Param("width", "int", minimum=1, maximum=16384, default=None, nullable=True, unit="count",
          help="Width N of the first layer (default d)."),
)


@dataclass(frozen=True, kw_only=True)
class OneStepConfig:
    r"""What determines a :func:`one_step_ba` run besides the target and the seeds.

    ``width`` defaults to ``d`` (the paper's :math:`N = d`), ``n = ceil(psi * d)``.
    """

    d: int
    psi: float
    eta_tilde: tuple[float, ...]
    width: int
    activation: Activation
    ridge: float | str = "auto"
    noise: float = 0.0
    n_test: int = 8192
    n_validation: int = 2048

    @property
    def n(self) -> int:
        return max(1, math.ceil(self.psi * self.d))


@dataclass(frozen=True, kw_only=True)
class OneStepResult:
    r"""What :func:`one_step_ba` returns: per seed and step size the risk after one step and the ridge readout,
    the ridge used and the relative update; per seed the linear ridge's risk and the spike's alignment.

    Attributes
    ----------
    config
        The :class:`OneStepConfig`.
    risk
        Test risk of the network after one step, shape ``(seeds, len(eta_tilde))``
        (:math:`\tilde\eta = 0`: random features).
    linear_risk
        Test risk of the tuned linear ridge on :math:`(x, 1)`, shape ``(seeds,)``.
    spike_alignment
        :math:`|\langle u_1(\nabla_W), \beta^*\rangle|`, shape ``(seeds,)``.
    ridge
        The :math:`\lambda` used, shape ``(seeds, len(eta_tilde))``.
    update_norm
        :math:`\|W^1 - W^0\|_F / \|W^0\|_F`, shape ``(seeds, len(eta_tilde))``.
    """

    config: OneStepConfig
    risk: torch.Tensor
    linear_risk: torch.Tensor
    spike_alignment: torch.Tensor
    ridge: torch.Tensor
    update_norm: torch.Tensor


def _step_sizes(values: float | Sequence[float]) -> tuple[float, ...]:
    r"""The step sizes :math:`\tilde\eta` (one or a non-empty sequence), each checked through its declaration."""
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        values = (values,)
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) == 0:
        raise InvalidParameterTypeError(
            f"The 'eta_tilde' parameter of one_step_ba must be {PARAMS['eta_tilde'].describe()} or a non-empty "
            f"sequence of them. Got {values!r} instead."
        )
    return tuple(PARAMS["eta_tilde"].check(v, "one_step_ba") for v in values)


def ridge_solutions(gram: torch.Tensor, rhs: torch.Tensor, penalties: torch.Tensor) -> torch.Tensor:
    r"""Solutions of :math:`(K + c I)\,a = b` for every penalty :math:`c` at once.

    Parameters
    ----------
    gram : (seeds, m, m)
        Symmetric positive semi-definite :math:`K`.
    rhs : (seeds, m)
        :math:`b`.
    penalties : (L,)
        Positive :math:`c`.

    Returns
    -------
    (seeds, L, m)

    >>> K = torch.eye(2, dtype=torch.float64)[None] * 3
    >>> ridge_solutions(K, torch.ones(1, 2, dtype=torch.float64), torch.tensor([1.0], dtype=torch.float64))
    tensor([[[0.2500, 0.2500]]], dtype=torch.float64)
    """
    evals, evecs = torch.linalg.eigh(gram)
    proj = (evecs.transpose(-1, -2) @ rhs.unsqueeze(-1)).squeeze(-1)  # (S, m)
    scaled = proj[:, None, :] / (evals[:, None, :].clamp_min(0) + penalties[None, :, None])  # (S, L, m)
    return scaled @ evecs.transpose(-1, -2)


def one_step_ba(
    target: Target | str,
    *,
    d: int,
    psi: float,
    eta_tilde: float | Sequence[float] = (0.0, 1.0, 2.0, 4.0),
    seeds: int | Sequence[int] = 4,
    activation: str | Activation = "tanh",
    width: int | None = None,
    ridge: float | str = "auto",
    noise: float = 0.0,
    n_test: int = 8192,
    n_validation: int = 2048,
    device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float64",
) -> OneStepResult:
    r"""One step of size :math:`\eta = \tilde\eta\sqrt N` for every ``eta_tilde``, then ridge (module docstring).

    Parameters
    ----------
    target
        Single-index target :math:`\sigma^*` as a :class:`~flt_theory.symbolic.target.Target` of rank 1 or a
        link string in ``z`` (``"tanh"``, ``"z + He2(z)"``).
    d, psi
        Input dimension and :math:`\psi = n/d` (``n = ceil(psi d)`` samples for the step and for the ridge).
    eta_tilde
        Step sizes :math:`\tilde\eta \ge 0`; 0 is the random-features model.
    seeds
        Number of seeds or their values.
    activation
        Student :math:`\sigma`.
    width
        :math:`N`, default ``d``.
    ridge
        :math:`\lambda > 0`, or ``"auto"`` (module docstring).
    noise
        :math:`\sigma_\varepsilon \ge 0`.
    n_test, n_validation
        Fresh points for the risk and for choosing :math:`\lambda`.

    Returns
    -------
    OneStepResult

    Examples
    --------
    >>> res = one_step_ba("tanh", d=16, psi=2, eta_tilde=(0, 2), seeds=2, n_test=512, n_validation=256, device="cpu")
    >>> res.risk.shape, res.linear_risk.shape, bool((res.spike_alignment <= 1).all())
    (torch.Size([2, 2]), torch.Size([2]), True)
    """
    if isinstance(target, str):
        target = Target.from_links([target])
    if not isinstance(target, Target) or target.rank != 1:
        raise InvalidParameterTypeError(
            f"The 'target' parameter of one_step_ba must be a single-index Target (rank 1) or a link string. "
            f"Got {target!r} instead."
        )
    sizes = PARAMS.check(dict(d=d, psi=psi, width=width, ridge=ridge, noise=noise, n_test=n_test,
                              n_validation=n_validation), "one_step_ba")
    etas = _step_sizes(eta_tilde)
    act = as_activation(activation)
    d = sizes["d"]
    width = d if width is None else sizes["width"]
    cfg = OneStepConfig(eta_tilde=etas, activation=act, **{**sizes, "width": width})
    seeds = as_seeds(seeds)
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    S, N, n = len(seeds), width, cfg.n
    opts = TensorOptions(device=dev, dtype=dt)
    shared = _step_and_baseline(tuple(seeds), target, d, N, n, act, cfg.noise, cfg.n_validation, dev, dt)
    teacher, w0, grad, xr, yr, lin_coef = shared.teacher, shared.w0, shared.grad, shared.xr, shared.yr, shared.lin_coef

    eta = torch.tensor(etas, **opts)
    weights = w0.unsqueeze(1) - (eta * N).view(1, -1, 1, 1) * grad.unsqueeze(1)  # (S, E, d, N)
    update_norm = (weights - w0.unsqueeze(1)).flatten(-2).norm(dim=-1) / w0.flatten(-2).norm(dim=-1).unsqueeze(1)

    # readout: ridge on fresh samples, features sigma(W^T x)/sqrt(N)
    phi = act(xr.unsqueeze(1) @ weights) / math.sqrt(N)  # (S, E, n, N)
    gram = (phi.transpose(-1, -2) @ phi / n).flatten(0, 1)
    rhs = (phi.transpose(-1, -2) @ yr[:, None, :, None]).squeeze(-1).flatten(0, 1) / n
    E = len(etas)
    if cfg.ridge == "auto":
        grid = torch.tensor(RIDGE_GRID, **opts)
        sols = ridge_solutions(gram, rhs, grid / N).view(S, E, len(grid), N)
        val_err = torch.zeros(S, E, len(grid), **opts)
        for xv in gaussian_chunks(seeds, cfg.n_validation, d, "validation", chunk_size=1024, **opts):
            yv = teacher(xv)
            pv = act(xv.unsqueeze(1) @ weights) / math.sqrt(N)  # (S, E, m, N)
            pred = pv @ sols.transpose(-1, -2)  # (S, E, m, L)
            val_err += ((pred - yv[:, None, :, None]) ** 2).sum(-2)
        best = val_err.argmin(-1)  # (S, E)
        coef = torch.gather(sols, 2, best[..., None, None].expand(S, E, 1, N)).squeeze(2)
        lam = grid[best]
    else:
        assert not isinstance(cfg.ridge, str)  # "auto" is the one word PARAMS accepts for ridge
        pen = torch.tensor([cfg.ridge], **opts) / N
        coef = ridge_solutions(gram, rhs, pen).view(S, E, N)
        lam = torch.full((S, E), cfg.ridge, **opts)

    risk = torch.zeros(S, E, **opts)
    lin_risk = torch.zeros(S, **opts)
    for xt in gaussian_chunks(seeds, cfg.n_test, d, "test", chunk_size=1024, **opts):
        ft = teacher(xt)  # noise-free target
        pt = act(xt.unsqueeze(1) @ weights) / math.sqrt(N)
        risk += (((pt @ coef.unsqueeze(-1)).squeeze(-1) - ft.unsqueeze(1)) ** 2).sum(-1)
        fl = torch.cat([xt, torch.ones(S, xt.shape[1], 1, **opts)], dim=-1)
        lin_risk += (((fl @ lin_coef.unsqueeze(-1)).squeeze(-1) - ft) ** 2).sum(-1)
    risk = check_finite(risk / cfg.n_test, "the test risk", "a step size this large overflows the features")
    return OneStepResult(
        config=cfg, risk=risk, linear_risk=lin_risk / cfg.n_test, spike_alignment=shared.alignment.clone(), ridge=lam,
        update_norm=update_norm,
    )


@dataclass(frozen=True, kw_only=True)
class _Shared:
    r"""What a run computes before and besides the step size: the teacher, :math:`W^0`, the gradient
    :math:`\nabla_W` ``(S, d, N)``, the spike alignment ``(S,)``, the ridge batch ``xr`` ``(S, n, d)``, ``yr``
    ``(S, n)`` and the tuned linear baseline's coefficients ``lin_coef`` ``(S, d + 1)``."""

    teacher: Teacher
    w0: torch.Tensor
    grad: torch.Tensor
    alignment: torch.Tensor
    xr: torch.Tensor
    yr: torch.Tensor
    lin_coef: torch.Tensor


@functools.lru_cache(maxsize=1)
def _step_and_baseline(seeds: tuple[int, ...], target: Target, d: int, N: int, n: int, act: Activation, noise: float,
                       n_validation: int, dev: torch.device, dt: torch.dtype) -> _Shared:
    r"""The step-size-free part of :func:`one_step_ba` (:class:`_Shared`), kept for the next call: the runner calls
    one step size per point, and the points of a claim's step-size grid share everything here (the SVD of
    :math:`\nabla_W`, the linear ridge's eigendecomposition and its validation pass are a third of a point at
    :math:`d = 1024`). The same operations on the same draws: the numbers do not depend on the cache.
    Callers must not modify the tensors in place."""
    S, opts = len(seeds), TensorOptions(device=dev, dtype=dt)
    teacher = Teacher(target, teacher_directions(seeds, d, 1, **opts))
    beta = teacher.w_star[:, 0, :]  # (S, d)
    w0 = seeded_normal(seeds, (d, N), "init-W", **opts) / math.sqrt(d)
    a = seeded_normal(seeds, (N,), "init-a", **opts) / math.sqrt(N)

    def labels(x: torch.Tensor, stream: str) -> torch.Tensor:
        y = teacher(x)
        if noise:
            y = y + noise * seeded_normal(seeds, (x.shape[1],), f"noise-{stream}", **opts)
        return y

    # the step: closed-form gradient of (1/2n) sum (f - y)^2
    x = seeded_normal(seeds, (n, d), "step", **opts)
    y = labels(x, "step")
    pre = x @ w0
    resid = (act(pre) @ a.unsqueeze(-1)).squeeze(-1) / math.sqrt(N) - y  # (S, n)
    grad = x.transpose(-1, -2) @ (resid.unsqueeze(-1) * act.grad(pre)) * (a / (n * math.sqrt(N))).unsqueeze(-2)
    check_finite(grad, "the first-layer gradient")
    u1 = torch.linalg.svd(grad, full_matrices=False).U[..., :, 0]  # (S, d)
    alignment = (u1 * beta).sum(-1).abs()

    xr = seeded_normal(seeds, (n, d), "ridge", **opts)
    yr = labels(xr, "ridge")
    # linear baseline: tuned ridge on (x, 1)
    feats = torch.cat([xr, torch.ones(S, n, 1, **opts)], dim=-1)
    lin_grid = torch.tensor(RIDGE_GRID, **opts)
    lin_sols = ridge_solutions(feats.transpose(-1, -2) @ feats / n,
                               (feats.transpose(-1, -2) @ yr.unsqueeze(-1)).squeeze(-1) / n, lin_grid)
    lin_val = torch.zeros(S, len(lin_grid), **opts)
    for xv in gaussian_chunks(seeds, n_validation, d, "validation", chunk_size=1024, **opts):
        fv = torch.cat([xv, torch.ones(S, xv.shape[1], 1, **opts)], dim=-1)
        lin_val += ((fv @ lin_sols.transpose(-1, -2) - teacher(xv).unsqueeze(-1)) ** 2).sum(-2)
    lin_coef = torch.gather(lin_sols, 1, lin_val.argmin(-1)[:, None, None].expand(S, 1, d + 1)).squeeze(1)
    return _Shared(teacher=teacher, w0=w0, grad=grad, alignment=alignment, xr=xr, yr=yr, lin_coef=lin_coef)


def risk_rows(seeds: Sequence[int], target: Target | str, *, eta_tilde: float, **options) -> list[dict[str, float]]:
    r"""One step of size ``eta_tilde`` (:func:`one_step_ba`) as one dict of floats per seed: ``risk``,
    ``linear_risk``, ``spike_alignment``, ``update_norm``, ``ridge_lambda`` (the rows the runner stores).

    >>> row = risk_rows([0], "tanh", eta_tilde=1.0, d=16, psi=2, n_test=256, n_validation=128, device="cpu")[0]
    >>> sorted(row)
    ['linear_risk', 'ridge_lambda', 'risk', 'spike_alignment', 'update_norm']
    """
    res = one_step_ba(target, eta_tilde=(eta_tilde,), seeds=list(seeds), **options)
    return [
        {"risk": float(res.risk[s, 0]), "linear_risk": float(res.linear_risk[s]),
         "spike_alignment": float(res.spike_alignment[s]), "update_norm": float(res.update_norm[s, 0]),
         "ridge_lambda": float(res.ridge[s, 0])}
        for s in range(len(res.linear_risk))
    ]
