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

The network acts patch-wise,
:math:`f_p(W, x^{(p)}) = \frac{1}{\sqrt m}\sum_{r=1}^m \sigma(\langle w_r, x^{(p)}\rangle)w_r`, with
:math:`\sigma(z) = z^2` (the smallest power whose :math:`\mathbb E\,\sigma'` depends on the data, see below), trained at
one diffusion time :math:`t` (:math:`\alpha = e^{-t}`, :math:`\beta = \sqrt{1 - e^{-2t}}`) on the denoising
score-matching loss with the expectation over the noise :math:`\varepsilon \sim \mathcal N(0, I_d)` taken in closed
form:

.. math::
    L(W) = \frac{1}{2n}\sum_{i,p}\mathbb E_\varepsilon
    \big\|f_p(W, \alpha x_i^{(p)} + \beta\varepsilon) - \varepsilon\big\|^2 - d.

Closed form. With :math:`a_r = \alpha\langle w_r, x\rangle`, :math:`G = WW^\top` and :math:`u = a + \beta W\varepsilon`
(Gaussian, covariance :math:`\beta^2G`): Stein's lemma gives

.. math::
    \mathbb E\langle f, \varepsilon\rangle = \frac{\beta}{\sqrt m}\sum_r G_{rr}\mathbb E\sigma'(u_r)
    = \frac{2\beta}{\sqrt m}\sum_r G_{rr}a_r,

and Isserlis' theorem with means

.. math::
    \mathbb E[u_r^2u_s^2] = (a_r^2 + \beta^2G_{rr})(a_s^2 + \beta^2G_{ss}) + 2\beta^4G_{rs}^2 + 4\beta^2a_ra_sG_{rs},

so :math:`\mathbb E\|f\|^2 = \frac1m\sum_{r,s}G_{rs}\mathbb E[u_r^2u_s^2]`. The loss is exact (no Monte-Carlo over
:math:`\varepsilon`); full-batch GD runs on it for ``steps`` steps from :math:`W^0 \sim \mathcal N(0, \sigma_0^2)`, with
the gradient in closed form (:func:`dsm_gradient`; equal to autograd's to rounding) and in the reduced
coordinates of :func:`dsm_descent` (exact: the iterates stay in the span of :math:`W^0` and the patches): 5 to 8
times fewer CPU seconds than autograd on its graph of :math:`(P, m, m)` tensors (1200 steps, 6 seeds, :math:`d = 500`,
:math:`n = 16, 64`, one thread: 0.9 and 1.2 s against 4.6 and 9.0 s), the same weights to :math:`10^{-14}`.

Observables per seed: the balance ratio

.. math::
    R = \frac{\frac1m\sum_r\frac12(|\langle w_r, \mu_{+1}\rangle| + |\langle w_r, \mu_{-1}\rangle|)}
    {\frac{1}{mn}\sum_{r,i}|\langle w_r, \xi_i\rangle|}

and the stationarity :math:`\|\nabla L(W^T)\|_F/\|W^T\|_F`. Seeds: seed ``s`` draws its data and
initialisation from its own CPU ``torch.Generator``, so its numbers do not depend on the batch.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ...numeric.backend import NonFiniteError, resolve_device, resolve_dtype
from ...numeric.data import as_seeds
from ...numeric.seeds import stream_generator
from ...numeric.signal_noise import run_records as classification_records, snr
from ...runner.params import Param, Params

__all__ = ["PARAMS", "DiffusionConfig", "classification_rows", "diffusion_rows", "dsm_descent", "dsm_gradient",
           "dsm_loss", "snr"]


#: The parameters of a point, declared once: the runner's ``diffusion/features`` (converters and defaults),
#: ``flt simulate diffusion`` (options and bounds) and :class:`DiffusionConfig` (validation) read them.
PARAMS = Params(
    Param("n", "int", minimum=2, unit="count", help="Training samples."),
    Param("d", "int", minimum=3, unit="count", help="Dimension."),
    Param("mu_norm", "float", minimum=0, exclusive_minimum=True, maximum=1e100, unit="units of x",
          help="Signal norm ||mu|| (SNR = ||mu||)."),
    Param("width", "int", minimum=1, default=8, unit="count", help="Denoiser width m."),
    Param("time", "float", minimum=0, exclusive_minimum=True, default=0.5, help="Diffusion time t (alpha = e^-t)."),
    Param("sigma0", "float", minimum=0, exclusive_minimum=True, default=0.01, help="Denoiser initialisation scale."),
    Param("eta", "float", minimum=0, exclusive_minimum=True, default=0.1, help="Denoiser step size."),
    Param("steps", "int", minimum=1, default=2000, unit="steps", help="Denoiser GD steps."),
    Param("q", "int", minimum=1, maximum=8, default=2, help="Power of the classification CNN's ReLU^q."),
    Param("denoiser", "int", minimum=0, maximum=1, default=1, help="1: train the denoiser too; 0: the CNN only."),
    Param("sigma_xi", "float", minimum=0, exclusive_minimum=True, nullable=True,
          help="Noise scale (None: 1/sqrt(d), patches of norm about one)."),
)


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
    sigma0: float = 0.01
    eta: float = 0.1
    steps: int = 2000
    sigma_xi: float | None = None

    def __post_init__(self) -> None:
        PARAMS.validate(self)
        if self.sigma_xi is None:
            object.__setattr__(self, "sigma_xi", 1.0 / math.sqrt(self.d))


def _coefficients(time: float) -> tuple[float, float]:
    r""":math:`(\alpha, \beta) = (e^{-t}, \sqrt{1 - e^{-2t}})` at diffusion time :math:`t`."""
    return math.exp(-time), math.sqrt(1 - math.exp(-2 * time))


def _projections(w: torch.Tensor, patches: torch.Tensor, alpha: float) -> tuple[torch.Tensor, torch.Tensor]:
    r""":math:`A = \alpha XW^\top` (S, P, m) and :math:`G = WW^\top` (S, m, m): all the loss reads of the weights."""
    return alpha * patches @ w.transpose(1, 2), w @ w.transpose(1, 2)


def _second(a: torch.Tensor, g: torch.Tensor, beta: float) -> tuple[torch.Tensor, torch.Tensor]:
    r""":math:`g = \operatorname{diag}G` (S, m) and :math:`S = \mathbb E u^2 = A^{\circ2} + \beta^2\mathbf 1g^\top`
    (S, P, m)."""
    gd = torch.diagonal(g, dim1=-2, dim2=-1)
    return gd, a**2 + beta**2 * gd[:, None, :]


def dsm_loss(w: torch.Tensor, patches: torch.Tensor, time: float) -> torch.Tensor:
    r"""Closed-form DSM loss per seed (module docstring), minus its constant :math:`d`.

    ``w``: (S, m, d); ``patches``: (S, 2n, d) (both patches of every sample). Returns (S,).

    >>> w = torch.zeros(1, 2, 3, dtype=torch.float64)
    >>> dsm_loss(w, torch.ones(1, 4, 3, dtype=torch.float64), 0.5).tolist()
    [0.0]
    """
    m = w.shape[1]
    alpha, beta = _coefficients(time)
    a, g = _projections(w, patches, alpha)
    gd, second = _second(a, g, beta)
    gg = g[:, None]
    moment = (second[..., :, None] * second[..., None, :] + 2 * beta**4 * gg**2
              + 4 * beta**2 * a[..., :, None] * a[..., None, :] * gg)
    norm2 = (gg * moment).sum((-1, -2)) / m
    cross = 2 * beta / math.sqrt(m) * (gd[:, None, :] * a).sum(-1)
    return (norm2 - 2 * cross).mean(-1)  # (1/2n) sum over the 2n patches


def dsm_gradient(w: torch.Tensor, patches: torch.Tensor, time: float) -> torch.Tensor:
    r"""Gradient of :func:`dsm_loss` with respect to ``w``, in closed form (no autograd); (S, m, d).

    Derivation. Per seed, with :math:`P` patches (rows of :math:`X`), :math:`A = \alpha XW^\top` (:math:`P\times m`),
    :math:`G = WW^\top`, :math:`g = \operatorname{diag}G`, :math:`S = A^{\circ2} + \beta^2\mathbf 1g^\top` and
    :math:`c = 1/(Pm)`, the loss of :func:`dsm_loss` is the sum of four terms,

    .. math::
        L = c\sum_p s_p^\top Gs_p + 4\beta^2c\sum_p a_p^\top(G\circ G)a_p + \frac{2\beta^4}{m}\sum_{r,s}G_{rs}^3
            - \frac{4\beta}{\sqrt m\,P}\sum_{p,r}g_ra_{pr}

    (:math:`s_p, a_p` the rows of :math:`S, A`). Its partial derivatives, :math:`G` and :math:`g` taken as independent:
    :math:`\bar S = 2cSG`,
    :math:`\bar g = \beta^2\mathbf 1^\top\bar S - \frac{4\beta}{\sqrt m\,P}\mathbf 1^\top A`,

    .. math::
        \Gamma = cS^\top S + 8\beta^2c\,G\circ(A^\top A) + \frac{6\beta^4}{m}G\circ G + \operatorname{diag}(\bar g),
        \qquad
        \bar A = 2A\circ\bar S + 8\beta^2c\,A(G\circ G) - \frac{4\beta}{\sqrt m\,P}\mathbf 1g^\top;

    :math:`\Gamma` is symmetric and :math:`G = WW^\top`, :math:`A = \alpha XW^\top` give

    .. math:: \nabla_W L = 2\Gamma W + \alpha\bar A^\top X.

    Checked against :func:`torch.autograd.grad` of :func:`dsm_loss` on random float64 inputs (relative
    difference below :math:`10^{-12}`, ``tests/systems/test_diffusion_system.py``).

    >>> gen = torch.Generator().manual_seed(0)
    >>> w = torch.randn(2, 3, 5, generator=gen, dtype=torch.float64, requires_grad=True)
    >>> x = torch.randn(2, 4, 5, generator=gen, dtype=torch.float64)
    >>> (auto,) = torch.autograd.grad(dsm_loss(w, x, 0.5).sum(), w)
    >>> bool(torch.allclose(dsm_gradient(w.detach(), x, 0.5), auto, rtol=1e-12, atol=0))
    True
    """
    alpha, beta = _coefficients(time)
    gamma, a_bar = _partials(*_projections(w, patches, alpha), beta)
    return 2 * gamma @ w + alpha * a_bar.transpose(1, 2) @ patches


def _partials(a: torch.Tensor, g: torch.Tensor, beta: float) -> tuple[torch.Tensor, torch.Tensor]:
    r""":math:`(\Gamma, \bar A)` of :func:`dsm_gradient` from :math:`A` (S, P, m) and :math:`G` (S, m, m)."""
    n_patches, m = a.shape[1], g.shape[-1]
    c, drive = 1.0 / (n_patches * m), 4 * beta / (math.sqrt(m) * n_patches)
    gd, second = _second(a, g, beta)
    g2 = g * g
    second_bar = 2 * c * second @ g
    g_bar = beta**2 * second_bar.sum(1) - drive * a.sum(1)  # (S, m)
    gamma = (c * second.transpose(1, 2) @ second + 8 * beta**2 * c * g * (a.transpose(1, 2) @ a)
             + 6 * beta**4 / m * g2 + torch.diag_embed(g_bar))
    a_bar = 2 * a * second_bar + 8 * beta**2 * c * a @ g2 - drive * gd[:, None, :]
    return gamma, a_bar


def dsm_descent(w: torch.Tensor, patches: torch.Tensor, time: float, *, eta: float, steps: int) -> torch.Tensor:
    r"""``steps`` steps of full-batch GD on :func:`dsm_loss` from ``w`` (S, m, d); returns the last weights (S, m, d).

    Reduced coordinates. :func:`dsm_gradient` is :math:`(2\Gamma C + \alpha[0\ \bar A^\top])B` whenever
    :math:`W = CB` with :math:`B = [W^0; X]` (the initial weights stacked on the :math:`P` patches,
    :math:`(m + P)\times d`), so every GD iterate stays in the row span of :math:`B` and its coordinates follow exactly

    .. math::
        C^{t+1} = C^t - \eta\big(2\Gamma^tC^t + \alpha[0\ (\bar A^t)^\top]\big),\qquad C^0 = [I_m\ 0],

    with :math:`\Gamma^t, \bar A^t` read from :math:`A^t = \alpha K_{XB}(C^t)^\top` and
    :math:`G^t = C^tK(C^t)^\top`, :math:`K = BB^\top`: a step costs :math:`O(m(m + P)^2)` instead of
    :math:`O(mPd)`. Used when :math:`m + P < d`; otherwise the steps run on :math:`W` itself. Checked against the
    step-by-step update :math:`W \leftarrow W - \eta\nabla L(W)` (``tests/systems/test_diffusion_system.py``).

    >>> gen = torch.Generator().manual_seed(0)
    >>> w = 0.1 * torch.randn(1, 2, 30, generator=gen, dtype=torch.float64)
    >>> x = torch.ones(1, 4, 30, dtype=torch.float64) / 30
    >>> plain = w - 0.1 * dsm_gradient(w, x, 0.5)
    >>> bool(torch.allclose(dsm_descent(w, x, 0.5, eta=0.1, steps=1), plain, rtol=1e-12, atol=0))
    True
    """
    m = w.shape[1]
    if m + patches.shape[1] >= patches.shape[-1]:
        for _ in range(steps):
            w = w - eta * dsm_gradient(w, patches, time)
        return w
    alpha, beta = _coefficients(time)
    basis = torch.cat([w, patches], dim=1)  # B, (S, m + P, d)
    kernel = basis @ basis.transpose(1, 2)  # K, (S, m + P, m + P)
    coords = torch.zeros_like(kernel[:, :m])  # C, (S, m, m + P)
    coords[:, :, :m] = torch.eye(m, dtype=w.dtype, device=w.device)
    for _ in range(steps):
        kc = kernel @ coords.transpose(1, 2)  # K C^T: both A and G read it
        gamma, a_bar = _partials(alpha * kc[:, m:], coords @ kc, beta)
        step = 2 * gamma @ coords
        step[:, :, m:] += alpha * a_bar.transpose(1, 2)
        coords = coords - eta * step
    return coords @ basis


def _snr_fields(n: int, mu_norm: float, sigma_xi: float, d: int) -> dict[str, float]:
    r"""``snr`` (:func:`flt_theory.numeric.signal_noise.snr`) and ``n_snr2`` (:math:`n\,\mathrm{SNR}^2`) of a point."""
    value = snr(mu_norm, sigma_xi, d)
    return {"n_snr2": n * value**2, "snr": value}


def _draw(seed: int, cfg: DiffusionConfig) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""Seed ``seed``'s exactly balanced labels ``(n,)``, noise patches :math:`\sigma_\xi\xi` ``(n, d)`` (orthogonal to
    :math:`e_1, e_2`) and initial weights :math:`W^0` ``(m, d)``, float64 on the CPU, each from its own stream
    (:func:`~flt_theory.numeric.seeds.stream_generator`): a seed's numbers never depend on the batch."""
    stream = functools.partial(stream_generator, seed, "diffusion")
    n, d = cfg.n, cfg.d
    base = torch.cat([torch.ones(n - n // 2), -torch.ones(n // 2)]).double()
    xi = torch.randn(n, d, generator=stream("noise"), dtype=torch.float64)
    xi[:, :2] = 0.0
    init = cfg.sigma0 * torch.randn(cfg.width, d, generator=stream("init"), dtype=torch.float64)
    assert cfg.sigma_xi is not None  # set by DiffusionConfig.__post_init__
    return base[torch.randperm(n, generator=stream("labels"))], cfg.sigma_xi * xi, init


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
    mu_norm = PARAMS["mu_norm"].check(mu_norm, "diffusion_rows")
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    n, d = cfg.n, cfg.d
    y, xi, w = (torch.stack(t).to(device=dev, dtype=dt) for t in zip(*(_draw(s, cfg) for s in seeds), strict=True))
    signal = torch.zeros_like(xi)
    signal[..., 0] = mu_norm * (y > 0)
    signal[..., 1] = mu_norm * (y < 0)
    patches = torch.cat([signal, xi], dim=1)
    w = dsm_descent(w, patches, cfg.time, eta=cfg.eta, steps=cfg.steps)
    if not bool(torch.isfinite(w).all()):
        raise NonFiniteError("the DSM gradient descent diverged (NaN or infinite weights); lower 'eta'")
    with torch.no_grad():
        sig = 0.5 * (w[..., 0].abs() + w[..., 1].abs()).mean(-1) * mu_norm
        noi = (w @ xi.transpose(1, 2)).abs().mean((-1, -2))
        grad_rel = dsm_gradient(w, patches, cfg.time).flatten(1).norm(dim=-1) / w.flatten(1).norm(dim=-1)
        loss = dsm_loss(w, patches, cfg.time)
    cols = {"ratio": sig / noi, "signal": sig, "noise": noi, "grad_rel": grad_rel, "loss": loss}
    cols = {k: v.cpu().double().tolist() for k, v in cols.items()}
    assert cfg.sigma_xi is not None  # set by DiffusionConfig.__post_init__
    return [{**{k: cols[k][j] for k in cols}, **_snr_fields(n, mu_norm, cfg.sigma_xi, d)} for j in range(len(seeds))]


def classification_rows(seeds: Sequence[int], *, n: int, d: int, mu_norm: float, q: int = 2, width: int = 8,
                        sigma0: float = 0.05, eta: float = 20.0, eps: float = 0.05, max_steps: int = 3000,
                        device: str | torch.device = "auto") -> list[dict[str, float]]:
    r"""The classification CNN of :mod:`flt_theory.numeric.signal_noise` (ReLU^q, logistic loss, GD to
    :math:`L_S \le \varepsilon`, exact reduced dynamics) on the same sizes with :math:`\sigma_\xi = 1/\sqrt d`:
    per seed ``gamma_max`` (signal learning), ``rho_max`` (noise memorisation), their signal fraction
    ``signal_fraction`` :math:`= \gamma/(\gamma + \rho)`, ``test_error_cls``, and ``snr``, ``n_snr2`` as
    :func:`diffusion_rows`.

    >>> rows = classification_rows([0], n=16, d=500, mu_norm=1.5, device="cpu")
    >>> rows[0]["signal_fraction"] > 0.9
    True
    """
    sigma_xi = 1.0 / math.sqrt(d)
    recs = classification_records(activation=q, n=n, d=d, width=width, mu_norm=mu_norm, sigma_xi=sigma_xi,
                                  sigma0=sigma0, eta=eta, eps=eps, max_steps=max_steps, seeds=list(seeds), n_test=2000,
                                  device=device)
    out = []
    for rec in recs:
        g, r = max(rec["gamma_max"], 0.0), max(rec["rho_max"], 0.0)
        out.append({"gamma_max": g, "rho_max": r, "signal_fraction": g / (g + r) if g + r > 0 else 0.5,
                    "test_error_cls": rec["test_error"], **_snr_fields(n, mu_norm, sigma_xi, d)})
    return out
