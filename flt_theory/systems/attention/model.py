r"""Single-head softmax attention with average pooling on signal-noise tokens, trained by GD or sign-GD (torch only).

Model (Jiang, Huang, Zhang, Suzuki, Nie 2024, "Unveil benign overfitting for transformer in vision:
training dynamics, convergence, and generalization", arXiv 2409.19345)
------------------------------------------------------------------------------------------------
A sample is :math:`L` tokens :math:`X = (x^{(1)}, \dots, x^{(L)})^\top \in \mathbb R^{L\times d}` with
:math:`x^{(1)} = y\mu`, :math:`\mu = \|\mu\| e_1`, and noise tokens :math:`x^{(\ell)} = \xi_\ell \sim
\mathcal N(0, \sigma_\xi^2(I_d - e_1e_1^\top))`, :math:`\ell = 2..L` (noise orthogonal to the signal, the
convention of :mod:`flt_theory.numeric.signal_noise`); :math:`\mathrm{SNR} = \|\mu\|/(\sigma_\xi\sqrt d)`
(:func:`flt_theory.numeric.signal_noise.snr`). Training labels are exactly balanced. The network is

.. math::
    f(X) = \frac1L\sum_{\ell=1}^L \mathrm{softmax}\big(x^{(\ell)} W_Q W_K^\top X^\top\big)\, X W_V w_o,

with :math:`W_Q, W_K \in \mathbb R^{d\times d_h}`, :math:`W_V \in \mathbb R^{d\times d_v}` trained from
:math:`\mathcal N(0, \sigma_0^2)` and :math:`w_o \in \{\pm 1/\sqrt{d_v}\}^{d_v}` fixed (drawn once per seed).
Only :math:`v = W_V w_o` enters the output. Logistic loss :math:`L_S = \frac1n\sum_i\log(1 + e^{-y_i f(X_i)})`;
full-batch GD :math:`\theta \leftarrow \theta - \eta\nabla L_S` (or sign-GD,
:math:`\theta \leftarrow \theta - \eta\,\mathrm{sign}(\nabla L_S)`, Li et al. 2025, arXiv 2410.04870),
each run stopped at the first step with :math:`L_S \le \varepsilon` (or ``max_steps``).

Exact reduced coordinates (cost independent of :math:`d`). GD increments of :math:`W_Q, W_K, W_V` are
combinations of tokens, so every column stays in :math:`\mathcal S = \mathrm{span}(e_1, \text{init columns},
\xi_{i,\ell})`. The :math:`K = 2d_h + d_v + n(L-1)` Gaussian vectors (init columns off :math:`e_1`, noise
tokens) are drawn through their Bartlett factor :math:`R` (coordinates in a Haar frame :math:`Q` of
:math:`e_1^\perp`) by :func:`flt_theory.numeric.signal_noise.draw` (its ``2m`` init columns and ``n``
"samples" are our init columns and the :math:`n(L-1)` noise tokens), so a token is the vector
:math:`(y\|\mu\|, 0)` or :math:`(0, \sigma_\xi R_{:,k})` of :math:`\mathbb R^{1 + \min(d-1, K)}` and the training
is exact for any :math:`d` at cost :math:`O(S\,B\,nL\,K(2d_h + d_v))` per step. A fresh test token meets the
weights only through its projection on :math:`\mathcal S`, whose frame coordinates are exactly i.i.d.
:math:`\mathcal N(0, \sigma_\xi^2)` (the frame does not depend on the test draw), so the test set is drawn
in the same coordinates, exactly in distribution.

Observables (per run, on ``n_test`` fresh test samples of the seed): test loss and error; the mean
attention weight on the signal token :math:`\bar A_{\cdot 1}` (uniform attention gives :math:`1/L`);
the value's signal alignment :math:`\langle v, \mu\rangle/\|\mu\|` and its mean noise alignment
:math:`\frac{1}{n(L-1)}\sum_{i,\ell}|\langle v, \xi_{i,\ell}\rangle|/\|\xi_{i,\ell}\|` (both in units of a
unit direction, so they compare directly); the query-key score gap
:math:`\langle W_Q^\top x, W_K^\top\mu\rangle` against :math:`\langle W_Q^\top x, W_K^\top\xi\rangle`
averaged over test queries.

Seeds. Seed ``s`` draws its training tokens, test tokens and initialisation from its own CPU
``torch.Generator`` per stream, so a seed's numbers depend neither on the other seeds of the batch nor
on the device; the noise of a seed is the same for every :math:`\|\mu\|` of a grid (common random
numbers, so a per-seed scan in :math:`\|\mu\|` is smooth).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ...errors import InvalidParameterError
from ...numeric.backend import NonFiniteError, TensorOptions, resolve_device, resolve_dtype
from ...numeric.data import as_seeds
from ...numeric.seeds import stream_generator
from ...numeric.signal_noise import draw as signal_noise_draw, snr
from ...runner.params import Param, Params

__all__ = ["PARAMS", "AttentionConfig", "OBSERVABLES", "attention_rows", "snr"]

#: Per-run observables returned by :func:`attention_rows` (besides ``mu_norm`` and ``snr``).
OBSERVABLES = ("train_loss", "test_loss", "test_error", "attention_signal", "value_signal", "value_noise",
               "score_signal", "score_noise", "steps")

OPTIMIZERS = ("gd", "sign-gd")

#: The parameters of a run, declared once: the runner's ``attention/train`` (converters and defaults),
#: ``flt simulate attention`` (options and bounds) and :class:`AttentionConfig` (validation) read them.
PARAMS = Params(
    Param("n", "int", minimum=2, unit="count", help="Training samples."),
    Param("mu_norm", "float", minimum=0, exclusive_minimum=True, maximum=1e100, unit="units of x",
          help="Signal norm ||mu|| (SNR = ||mu|| since sigma_xi sqrt(d) = 1)."),
    Param("d", "int", minimum=2, default=100_000, unit="count", help="Dimension (free: exact reduced coordinates)."),
    Param("tokens", "int", minimum=2, default=3, unit="count", help="Tokens per sample L."),
    Param("d_h", "int", minimum=1, default=4, unit="count", help="Query/key width."),
    Param("d_v", "int", minimum=1, default=4, unit="count", help="Value width."),
    Param("sigma0", "float", minimum=0, exclusive_minimum=True, default=0.01, help="Initialisation scale."),
    Param("eta", "float", minimum=0, exclusive_minimum=True, default=20.0, help="Step size."),
    Param("eps", "float", minimum=0, default=0.05, unit="nats", help="Stop at training loss <= eps."),
    Param("max_steps", "int", minimum=0, default=3000, unit="steps", help="Step limit."),
    Param("optimizer", "choice", choices=OPTIMIZERS, default="gd", help="gd or sign-gd."),
    Param("n_test", "int", minimum=1, default=500, unit="count", help="Fresh test samples."),
    Param("sigma_xi", "float", minimum=0, exclusive_minimum=True, nullable=True,
          help="Noise scale (None: 1/sqrt(d), tokens of norm about one)."),
)


@dataclass(frozen=True, kw_only=True)
class AttentionConfig:
    r"""Sizes and training parameters of one run (keyword-only).

    >>> AttentionConfig(n=8, tokens=3, d=64).sigma_xi == 1 / 8
    True
    """

    n: int
    tokens: int = 3
    d: int
    d_h: int = 4
    d_v: int = 4
    sigma_xi: float | None = None
    sigma0: float = 0.01
    eta: float = 20.0
    eps: float = 0.05
    max_steps: int = 2000
    optimizer: str = "gd"
    n_test: int = 500

    def __post_init__(self) -> None:
        PARAMS.validate(self)
        if self.sigma_xi is None:
            object.__setattr__(self, "sigma_xi", 1.0 / math.sqrt(self.d))


def _generator(seed: int, stream: str) -> torch.Generator:
    return stream_generator(seed, "attention", stream)


def _labels(seed: int, stream: str, count: int) -> torch.Tensor:
    base = torch.cat([torch.ones(count - count // 2), -torch.ones(count // 2)]).double()
    return base[torch.randperm(count, generator=_generator(seed, stream))]


def _tokens(xi: torch.Tensor, y: torch.Tensor, mu: torch.Tensor, sigma_xi: float) -> torch.Tensor:
    """Samples ``(B, count, L, d)`` from standardised noise ``(S, count, L-1, d)``, labels ``(S, count)`` and
    ``mu`` ``(S, M)`` (B = S·M runs: every seed at every ‖μ‖)."""
    s, count, _, d = xi.shape
    m = mu.shape[1]
    signal = torch.zeros(s, m, count, 1, d, dtype=xi.dtype, device=xi.device)
    signal[..., 0, 0] = y[:, None, :] * mu[:, :, None]
    noise = (sigma_xi * xi)[:, None].expand(s, m, count, *xi.shape[2:])
    return torch.cat([signal, noise], dim=3).reshape(s * m, count, xi.shape[2] + 1, d)


def _forward(x: torch.Tensor, wq: torch.Tensor, wk: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Outputs ``(B, count)`` and attention ``(B, count, L, L)``."""
    scores = (x @ wq[:, None]) @ (x @ wk[:, None]).transpose(-1, -2)
    attn = torch.softmax(scores, dim=-1)
    values = (x @ v[:, None, :, None])[..., 0]  # (B, count, L)
    return (attn @ values[..., None])[..., 0].mean(-1), attn


def attention_rows(seeds: int | Sequence[int], mu_norms: Sequence[float], cfg: AttentionConfig, *,
                   device: str | torch.device = "auto", dtype: str | torch.dtype = "float64"
                   ) -> list[list[dict[str, float]]]:
    r"""Train one network per (seed, ‖μ‖) and measure the observables of the module docstring.

    Parameters
    ----------
    seeds
        Number of seeds or their values (the leading batch dimension).
    mu_norms
        Values of :math:`\|\mu\|` (> 0), every one run for every seed on the same noise draw.
    cfg
        Sizes and training parameters (:class:`AttentionConfig`).
    device, dtype
        Where to run (``"auto"``: CUDA when present) and the precision.

    Returns
    -------
    list of list of dict
        ``rows[s][k]``: the observables (:data:`OBSERVABLES`, ``mu_norm``, ``snr``) of seed ``s`` at ``mu_norms[k]``.

    Examples
    --------
    >>> cfg = AttentionConfig(n=8, d=64, max_steps=300)
    >>> rows = attention_rows([0, 1], [1.0], cfg, device="cpu")
    >>> [round(r[0]["train_loss"], 2) <= 0.05 for r in rows], rows[0][0]["test_error"] < 0.1
    ([True, True], True)
    >>> alone = attention_rows([1], [1.0], cfg, device="cpu")[0][0]  # a seed's numbers do not depend on the batch
    >>> all(abs(alone[k] - rows[1][0][k]) <= 1e-12 * (1 + abs(alone[k])) for k in alone)
    True
    """
    seeds = as_seeds(seeds)
    mus = [PARAMS["mu_norm"].check(m, "attention_rows") for m in mu_norms]
    if not mus:
        raise InvalidParameterError("The 'mu_norms' parameter of attention_rows must list at least one value. "
                                    "Got [] instead.")
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    to = TensorOptions(device=dev, dtype=dt)
    assert cfg.sigma_xi is not None  # filled in by AttentionConfig.__post_init__
    n, L, d, S, M = cfg.n, cfg.tokens, cfg.d, len(seeds), len(mus)
    m2 = 2 * cfg.d_h + cfg.d_v
    width = (m2 + 1) // 2
    gram = signal_noise_draw(list(seeds), n=n * (L - 1), d=d, width=width, n_test=1, device="cpu", dtype="float64")
    r = gram.bartlett  # (S, rows, 2*width + n(L-1)): frame coordinates of (init columns, noise tokens)
    rows = r.shape[1]
    e1 = gram.init_e1[:, :m2, None]  # e_1 coordinates of the init columns

    def embed(block: torch.Tensor) -> torch.Tensor:  # (S, rows, k) frame coords -> (S, k, 1 + rows), e_1 first
        return torch.cat([torch.zeros_like(block[:, :1]), block], dim=1).transpose(1, 2)

    xi = embed(r[:, :, 2 * width:]).reshape(S, n, L - 1, rows + 1).to(**to)
    y = torch.stack([_labels(s, "labels", n) for s in seeds]).to(**to)
    xi_test = torch.stack([torch.randn(cfg.n_test, L - 1, rows + 1, generator=_generator(s, "test"),
                                       dtype=torch.float64) for s in seeds])
    xi_test[..., 0] = 0.0
    xi_test = xi_test.to(**to)
    y_test = torch.stack([_labels(s, "test-labels", cfg.n_test) for s in seeds]).to(**to)
    w0 = cfg.sigma0 * torch.cat([e1, r[:, :, :m2].transpose(1, 2)], dim=-1).transpose(1, 2)  # (S, 1 + rows, m2)
    wq, wk, wv = w0[..., : cfg.d_h], w0[..., cfg.d_h : 2 * cfg.d_h], w0[..., 2 * cfg.d_h :]
    wo = torch.stack([(2 * torch.randint(0, 2, (cfg.d_v,), generator=_generator(s, "readout")) - 1).double()
                      / math.sqrt(cfg.d_v) for s in seeds])
    rep = lambda t: t.to(**to).repeat_interleave(M, dim=0)  # noqa: E731  (S, ...) -> (S*M, ...)
    wq, wk, wv, wo = rep(wq), rep(wk), rep(wv), rep(wo)
    mu = torch.tensor(mus, **to)[None, :].expand(S, M)
    x = _tokens(xi, y, mu, cfg.sigma_xi)
    x_test = _tokens(xi_test, y_test, mu, cfg.sigma_xi)
    yb, yb_test = rep(y), rep(y_test)
    active = torch.ones(S * M, dtype=torch.bool, device=dev)
    steps = torch.full((S * M,), cfg.max_steps, dtype=torch.long, device=dev)
    for t in range(cfg.max_steps + 1):
        params = [p.detach().requires_grad_(True) for p in (wq, wk, wv)]
        f, _ = _forward(x, params[0], params[1], (params[2] @ wo[..., None])[..., 0])
        losses = torch.nn.functional.softplus(-yb * f).mean(-1)
        done = active & (losses.detach() <= cfg.eps)
        steps = torch.where(done, t, steps)
        active = active & ~done
        if t == cfg.max_steps or not bool(active.any()):
            break
        grads = torch.autograd.grad(losses.sum(), params)
        keep = active.to(dt)[:, None, None]
        step = [g.sign() if cfg.optimizer == "sign-gd" else g for g in grads]
        wq, wk, wv = (p.detach() - cfg.eta * keep * g for p, g in zip(params, step, strict=True))
    wq, wk, wv = (p.detach() for p in (wq, wk, wv))
    if not bool(torch.isfinite(losses).all() & torch.isfinite(wv).all()):
        raise NonFiniteError("the attention GD diverged (NaN or infinite values); lower 'eta'")
    with torch.no_grad():
        v = (wv @ wo[..., None])[..., 0]  # (B, d)
        f_test, attn = _forward(x_test, wq, wk, v)
        margin = yb_test * f_test
        noise = x[:, :, 1:, :]
        unit_noise = noise / noise.norm(dim=-1, keepdim=True)
        q_test = x_test @ wq[:, None]  # (B, n_test, L, d_h)
        k_signal = (mu.reshape(-1)[:, None] * wk[:, 0, :])  # W_K^T mu, (B, d_h)
        k_noise = x_test[:, :, 1:, :] @ wk[:, None]  # (B, n_test, L-1, d_h)
        cols = {
            "train_loss": losses.detach(),
            "test_loss": torch.nn.functional.softplus(-margin).mean(-1),
            "test_error": (margin <= 0).to(dt).mean(-1),
            "attention_signal": attn[..., 0].mean((-1, -2)),
            "value_signal": v[:, 0],
            "value_noise": (unit_noise @ v[:, None, :, None])[..., 0].abs().mean((-1, -2)),
            "score_signal": (q_test @ k_signal[:, None, :, None])[..., 0].abs().mean((-1, -2)),
            "score_noise": (q_test @ k_noise.transpose(-1, -2)).abs().mean((-1, -2, -3)),
            "steps": steps.to(dt),
        }
    values = {key: val.detach().cpu().double().reshape(S, M).tolist() for key, val in cols.items()}
    return [[{"mu_norm": mus[k], "snr": snr(mus[k], cfg.sigma_xi, d), **{key: values[key][s][k] for key in OBSERVABLES}}
             for k in range(M)] for s in range(S)]
