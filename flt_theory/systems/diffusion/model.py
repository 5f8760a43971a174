r"""Denoising score matching with a two-layer patch network on two-patch signal-noise data (torch only).

Model (Han, Huang, Cao, Zou 2025, "On the feature learning in diffusion models", arXiv 2412.01021)
------------------------------------------------------------------------------------------------
A sample is two patches :math:`x = (x^{(1)}, x^{(2)})` with :math:`x^{(1)} = \mu_y` (two orthogonal signals
:math:`\mu_{+1} = \|\mu\|e_1`, :math:`\mu_{-1} = \|\mu\|e_2`, the source's convention) and
:math:`x^{(2)} = \xi \sim \mathcal N(0, \sigma_\xi^2(I_d - e_1e_1^\top - e_2e_2^\top))`;
:math:`\mathrm{SNR} = \|\mu\|/(\sigma_\xi\sqrt d)` (:func:`flt_theory.numeric.signal_noise.snr`); the
``n`` training labels are exactly balanced. Why two signals and not :math:`y\mu`: the denoiser's
leading drive is the data MEAN (below), and :math:`\frac1n\sum_i y_i\mu = 0` for balanced labels, so with
:math:`x^{(1)} = y\mu` the signal would enter only at second order.

The network acts patch-wise, :math:`f_p(W, x^{(p)}) = \frac{1}{\sqrt m}\sum_{r=1}^m \sigma(\langle w_r, x^{(p)}\rangle)w_r`,
with :math:`\sigma(z) = z^2` (the smallest power whose :math:`\mathbb E\,\sigma'` depends on the data, see
below), trained at one diffusion time :math:`t` (:math:`\alpha = e^{-t}`, :math:`\beta = \sqrt{1 - e^{-2t}}`)
on the denoising score-matching loss with the expectation over the noise :math:`\varepsilon \sim \mathcal N(0, I_d)`
taken in closed form:

.. math::
    L(W) = \frac{1}{2n}\sum_{i,p}\mathbb E_\varepsilon\big\|f_p(W, \alpha x_i^{(p)} + \beta\varepsilon) - \varepsilon\big\|^2 - d.

Closed form. With :math:`a_r = \alpha\langle w_r, x\rangle`, :math:`G = WW^\top` and :math:`u = a + \beta W\varepsilon`
(Gaussian, covariance :math:`\beta^2G`): Stein's lemma gives
:math:`\mathbb E\langle f, \varepsilon\rangle = \frac{\beta}{\sqrt m}\sum_r G_{rr}\mathbb E\sigma'(u_r) = \frac{2\beta}{\sqrt m}\sum_r G_{rr}a_r`,
and Isserlis' theorem with means
:math:`\mathbb E[u_r^2u_s^2] = (a_r^2 + \beta^2G_{rr})(a_s^2 + \beta^2G_{ss}) + 2\beta^4G_{rs}^2 + 4\beta^2a_ra_sG_{rs}`, so
:math:`\mathbb E\|f\|^2 = \frac1m\sum_{r,s}G_{rs}\mathbb E[u_r^2u_s^2]`. The loss is exact (no Monte-Carlo over
:math:`\varepsilon`); full-batch GD runs on it by autograd for ``steps`` steps from :math:`W^0 \sim \mathcal N(0, \sigma_0^2)`.

Observables per seed: the balance ratio
:math:`R = \frac{\frac1m\sum_r\frac12(|\langle w_r, \mu_{+1}\rangle| + |\langle w_r, \mu_{-1}\rangle|)}{\frac{1}{mn}\sum_{r,i}|\langle w_r, \xi_i\rangle|}`
and the stationarity :math:`\|\nabla L(W^T)\|_F/\|W^T\|_F`. Seeds: seed ``s`` draws its data and
initialisation from its own CPU ``torch.Generator``, so its numbers do not depend on the batch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..._validation import check_int, check_real
from ...numeric.backend import NonFiniteError, resolve_device, resolve_dtype
from ...numeric.data import as_seeds
from ...numeric.seeds import stream_generator
from ...numeric.signal_noise import run_records as classification_records, snr

__all__ = ["DiffusionConfig", "classification_rows", "diffusion_rows", "dsm_loss", "snr"]


@dataclass(frozen=True, kw_only=True)
class DiffusionConfig:
    r"""Sizes and training parameters of the denoiser (keyword-only); ``sigma_xi`` defaults to
    :math:`1/\sqrt d` (noise patches of norm about one).

    >>> DiffusionConfig(n=8, d=100).sigma_xi
    0.1
    """

    n: int
    d: int
    width: int = 8
    time: float = 0.5
    sigma_xi: float | None = None
    sigma0: float = 0.01
    eta: float = 0.1
    steps: int = 2000

    def __post_init__(self) -> None:
        where = "DiffusionConfig"
        object.__setattr__(self, "n", check_int(self.n, "n", minimum=2, caller=where))
        object.__setattr__(self, "d", check_int(self.d, "d", minimum=3, caller=where))
        object.__setattr__(self, "width", check_int(self.width, "width", minimum=1, caller=where))
        object.__setattr__(self, "steps", check_int(self.steps, "steps", minimum=1, caller=where))
        if self.sigma_xi is None:
            object.__setattr__(self, "sigma_xi", 1.0 / math.sqrt(self.d))
        for name in ("time", "sigma_xi", "sigma0", "eta"):
            object.__setattr__(self, name, check_real(getattr(self, name), name, minimum=0.0, strict_minimum=True, caller=where))


def _generator(seed: int, stream: str) -> torch.Generator:
    return stream_generator(seed, "diffusion", stream)


def dsm_loss(w: torch.Tensor, patches: torch.Tensor, time: float) -> torch.Tensor:
    r"""Closed-form DSM loss per seed (module docstring), minus its constant :math:`d`.

    ``w``: (S, m, d); ``patches``: (S, 2n, d) (both patches of every sample). Returns (S,).

    >>> w = torch.zeros(1, 2, 3, dtype=torch.float64)
    >>> dsm_loss(w, torch.ones(1, 4, 3, dtype=torch.float64), 0.5).tolist()
    [0.0]
    """
    m = w.shape[1]
    alpha, beta = math.exp(-time), math.sqrt(1 - math.exp(-2 * time))
    a = alpha * patches @ w.transpose(1, 2)  # (S, P, m)
    g = w @ w.transpose(1, 2)  # (S, m, m)
    gd = torch.diagonal(g, dim1=-2, dim2=-1)  # (S, m)
    second = a**2 + beta**2 * gd[:, None, :]  # E u_r^2, (S, P, m)
    gg = g[:, None]
    moment = (second[..., :, None] * second[..., None, :] + 2 * beta**4 * gg**2
              + 4 * beta**2 * a[..., :, None] * a[..., None, :] * gg)
    norm2 = (gg * moment).sum((-1, -2)) / m
    cross = 2 * beta / math.sqrt(m) * (gd[:, None, :] * a).sum(-1)
    return (norm2 - 2 * cross).mean(-1)  # (1/2n) sum over the 2n patches


def diffusion_rows(seeds: int | Sequence[int], mu_norm: float, cfg: DiffusionConfig, *,
                   device: str | torch.device = "auto", dtype: str | torch.dtype = "float64") -> list[dict[str, float]]:
    r"""Train the denoiser by GD on the closed-form DSM loss; one dict per seed: ``ratio`` (:math:`R`),
    ``signal`` and ``noise`` (numerator and denominator of :math:`R`), ``grad_rel``
    (:math:`\|\nabla L\|/\|W\|`), ``loss``, ``n_snr2`` (:math:`n\,\mathrm{SNR}^2`).

    >>> rows = diffusion_rows([0, 1], 0.5, DiffusionConfig(n=16, d=200, steps=1500), device="cpu")
    >>> [round(r["n_snr2"], 2) for r in rows], all(r["grad_rel"] < 1e-3 for r in rows)
    ([4.0, 4.0], True)
    >>> 0.5 < rows[0]["ratio"] / (rows[0]["n_snr2"] / 2) < 2
    True
    """
    seeds = as_seeds(seeds)
    mu_norm = check_real(mu_norm, "mu_norm", minimum=0.0, strict_minimum=True, caller="diffusion_rows")
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    n, d, m = cfg.n, cfg.d, cfg.width
    labels, noise, init = [], [], []
    for s in seeds:  # one generator per seed and stream: a seed's numbers never depend on the batch
        base = torch.cat([torch.ones(n - n // 2), -torch.ones(n // 2)]).double()
        labels.append(base[torch.randperm(n, generator=_generator(s, "labels"))])
        xi = torch.randn(n, d, generator=_generator(s, "noise"), dtype=torch.float64)
        xi[:, :2] = 0.0
        noise.append(cfg.sigma_xi * xi)
        init.append(cfg.sigma0 * torch.randn(m, d, generator=_generator(s, "init"), dtype=torch.float64))
    y, xi, w = (torch.stack(t).to(device=dev, dtype=dt) for t in (labels, noise, init))
    signal = torch.zeros_like(xi)
    signal[..., 0] = mu_norm * (y > 0)
    signal[..., 1] = mu_norm * (y < 0)
    patches = torch.cat([signal, xi], dim=1)
    for _ in range(cfg.steps + 1):
        w = w.detach().requires_grad_(True)
        loss = dsm_loss(w, patches, cfg.time)
        (grad,) = torch.autograd.grad(loss.sum(), w)
        if _ == cfg.steps:
            break
        w = w.detach() - cfg.eta * grad
    w = w.detach()
    if not bool(torch.isfinite(w).all()):
        raise NonFiniteError("the DSM gradient descent diverged (NaN or infinite weights); lower 'eta'")
    with torch.no_grad():
        sig = 0.5 * (w[..., 0].abs() + w[..., 1].abs()).mean(-1) * mu_norm
        noi = (w @ xi.transpose(1, 2)).abs().mean((-1, -2))
        grad_rel = grad.flatten(1).norm(dim=-1) / w.flatten(1).norm(dim=-1)
    value = snr(mu_norm, cfg.sigma_xi, d)
    cols = {"ratio": sig / noi, "signal": sig, "noise": noi, "grad_rel": grad_rel, "loss": loss.detach()}
    cols = {k: v.cpu().double().tolist() for k, v in cols.items()}
    return [{**{k: cols[k][j] for k in cols}, "n_snr2": n * value**2, "snr": value} for j in range(len(seeds))]


def classification_rows(seeds: Sequence[int], *, n: int, d: int, mu_norm: float, q: int = 2, width: int = 8,
                        sigma0: float = 0.05, eta: float = 20.0, eps: float = 0.05, max_steps: int = 3000,
                        device: str | torch.device = "auto") -> list[dict[str, float]]:
    r"""The classification CNN of :mod:`flt_theory.numeric.signal_noise` (ReLU^q, logistic loss, GD to
    :math:`L_S \le \varepsilon`, exact reduced dynamics) on the same sizes with :math:`\sigma_\xi = 1/\sqrt d`:
    per seed ``gamma_max`` (signal learning), ``rho_max`` (noise memorisation), their signal fraction
    ``signal_fraction`` :math:`= \gamma/(\gamma + \rho)`, and ``test_error``.

    >>> rows = classification_rows([0], n=16, d=500, mu_norm=1.5, device="cpu")
    >>> rows[0]["signal_fraction"] > 0.9
    True
    """
    recs = classification_records(activation=q, n=n, d=d, width=width, mu_norm=mu_norm, sigma_xi=1 / math.sqrt(d),
                                  sigma0=sigma0, eta=eta, eps=eps, max_steps=max_steps, seeds=list(seeds), n_test=2000,
                                  device=device)
    out = []
    for rec in recs:
        g, r = max(rec["gamma_max"], 0.0), max(rec["rho_max"], 0.0)
        out.append({"gamma_max": g, "rho_max": r, "signal_fraction": g / (g + r) if g + r > 0 else 0.5,
                    "test_error_cls": rec["test_error"]})
    return out
