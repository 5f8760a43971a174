r"""Single- and multi-modal contrastive learning on signal-noise data, batched over seeds (torch only).

Model (Huang, Han, Chen, Cao, Xu, Suzuki 2024, "On the comparison between multi-modal and single-modal
contrastive learning", arXiv 2411.02837)
------------------------------------------------------------------------------------------------------
Two modalities share the label :math:`y = \pm 1`:
:math:`x = [x^{(1)}, x^{(2)}] = [y\mu, \xi]` and :math:`\tilde x = [y\tilde\mu, \tilde\xi]`, with
:math:`\mu = \|\mu\| e_1`, :math:`\tilde\mu = C_\mu\|\mu\| e_1` and noise
:math:`\xi, \tilde\xi \sim \mathcal N(0, \sigma_\xi^2(I_d - e_1e_1^\top))` (orthogonal to the signal, as in
the signal-noise data of Cao et al. 2022 and of :mod:`flt_theory.numeric.signal_noise`), so that
:math:`\mathrm{SNR} = \|\mu\|/(\sigma_\xi\sqrt d)` (:func:`flt_theory.numeric.signal_noise.snr`).
The embedding of a patch is :math:`h(x^{(p)}) = \sigma(Wx^{(p)}) \in \mathbb R^m`, :math:`\sigma = \mathrm{ReLU}`,
and :math:`\tilde h` uses :math:`\tilde W`. The patch-wise similarity and the InfoNCE loss with temperature
:math:`\tau` are

.. math::
    \mathrm{Sim}(x, x') = \langle h(x^{(1)}), h'(x'^{(1)})\rangle + \langle h(x^{(2)}), h'(x'^{(2)})\rangle, \qquad
    L = \frac1n\sum_{i=1}^n -\log\frac{e^{S_{ii}/\tau}}{\sum_{j=1}^n e^{S_{ij}/\tau}},

with :math:`S_{ij} = \mathrm{Sim}(x_i, \hat x_j)` (single-modal: the positive of :math:`x_i` is its
augmentation :math:`\hat x_i = [y_i\mu, \xi_i + \epsilon_i]`, :math:`\epsilon_i \sim \mathcal N(0,
\sigma_\epsilon^2(I - e_1e_1^\top))` drawn once, both views embedded by :math:`W`; the negatives are the
other samples' augmentations) or :math:`S_{ij} = \mathrm{Sim}(x_i, \tilde x_j)` (multi-modal: the
positive is the paired :math:`\tilde x_i` embedded by :math:`\tilde W`, both :math:`W` and
:math:`\tilde W` trained). Full-batch GD from :math:`W^0, \tilde W^0 \sim \mathcal N(0, \sigma_0^2)`,
:math:`\sigma_0 = s_0/\sqrt d` (so :math:`\langle w_r^0, \xi\rangle \sim s_0`), step
:math:`\eta = c_\eta\, n\tau/(\sigma_\xi^2 d)` (the per-step growth rate of a memorised noise overlap,
:math:`\approx 2\eta\sigma_\xi^2 d/(n\tau)`, is then :math:`2c_\eta` whatever the sizes). Labels are
exactly balanced (the first :math:`\lceil n/2\rceil` samples have :math:`y = +1`).

Measured (first modality, the one both settings share)
------------------------------------------------------
* signal :math:`\Gamma_t = \max_r |\langle w_r^t, \mu\rangle|`; noise
  :math:`\Xi_t = \frac1n\sum_i \max_r \langle w_r^t, \xi_i\rangle`;
* the *stop* :math:`T` of each seed: the first step with :math:`\Xi_t \ge C` (``level``): the noise is
  memorised at the level :math:`C` of the theorem, and :math:`\Gamma_T` says whether the signal was
  learned by then (``signal_T``, ``noise_T``, ``step_T``);
* the downstream linear probe at :math:`T`: the pooled embedding
  :math:`\mathrm{Emb}(x) = \sigma(Wx^{(1)}) + \sigma(Wx^{(2)})` of ``n_probe`` fresh labelled samples,
  standardised, a ridge fit of :math:`y` (ridge ``ridge * n_probe``, with intercept), and its test
  error on ``n_test`` fresh samples (``error_T``);
* the same at the end of training, after ``steps`` steps (``signal_end``, ``noise_end``, ``loss_end``,
  ``error_end``).

Seeds, devices, cost
--------------------
Seeds are the leading dimension of every tensor; each random object of seed ``s`` comes from its own
stream (:func:`flt_theory.numeric.data.seeded_normal`: ``"contrastive/noise"``, ``"contrastive/init"``, …),
so a seed's row does not depend on the batch. A GD step costs :math:`O(nmd)` per seed (autograd through
the batched similarity matrix); there is a Python loop over steps only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..._validation import check_real
from ...errors import InvalidParameterError
from ...numeric.backend import TensorOptions, resolve_device, resolve_dtype, to_numpy
from ...numeric.data import as_seeds, seeded_normal
from ...numeric.signal_noise import snr
from ...runner.params import Param, Params

__all__ = ["MODES", "PARAMS", "ContrastiveData", "contrastive_rows", "draw", "probe_error", "probe_errors", "train"]

#: The two settings: positives from augmentation (``single``) or from the other modality (``multi``).
MODES = ("single", "multi")

#: The parameters of a run, declared once: the runner's ``contrastive/train`` (converters and defaults),
#: ``flt simulate contrastive`` (options and bounds) and :func:`draw`, :func:`train`, :func:`probe_error` (validation).
PARAMS = Params(
    Param("mode", "choice", choices=MODES, help="single-modal (augmentation) or multi-modal."),
    Param("n", "int", minimum=2, default=32, unit="count", help="Training pairs n (two classes)."),
    Param("d", "int", minimum=2, default=500, unit="count", help="Patch dimension d."),
    Param("width", "int", minimum=1, default=16, unit="count", help="Embedding width m."),
    Param("n_snr2", "float", minimum=0, exclusive_minimum=True, maximum=1e4, default=1.0,
          help="n SNR^2 (sets ||mu|| = sqrt(d n SNR^2 / n)); at most 1e4, far past the sources' n SNR^2 = Theta(1) "
               "(1e30 gave NaN)."),
    Param("c_mu", "float", minimum=0, exclusive_minimum=True, default=8.0,
          help="C_mu = ||mu~|| / ||mu|| of the second modality."),
    Param("steps", "int", minimum=1, default=300, unit="steps", help="GD steps."),
    Param("sigma_eps", "float", minimum=0, default=0.3, help="Augmentation noise scale."),
    Param("init", "float", minimum=0, exclusive_minimum=True, default=1e-3, help="Initialisation scale (x 1/sqrt d)."),
    Param("tau", "float", minimum=0, exclusive_minimum=True, default=1.0, help="InfoNCE temperature."),
    Param("eta_scale", "float", minimum=0, exclusive_minimum=True, default=0.125,
          help="Step size in units of n tau / (sigma_xi^2 d)."),
    Param("level", "float", minimum=0, exclusive_minimum=True, default=1.0,
          help="Noise overlap that defines the stop T."),
    Param("n_probe", "int", minimum=2, default=400, unit="count", help="Samples that fit the linear probe."),
    Param("n_test", "int", minimum=1, default=2000, unit="count", help="Samples that test the linear probe."),
)


@dataclass(eq=False)
class ContrastiveData:
    r"""The random objects of a batch of seeds (shapes ``(seeds, ...)``).

    Attributes: ``y`` (n,) labels; ``xi``, ``xi_tilde``, ``eps`` (S, n, d) noise of the two modalities
    and the augmentation (orthogonal to :math:`e_1`); ``w0``, ``w0_tilde`` (S, m, d) initialisations;
    ``mu_norm``, ``mu_tilde_norm`` the signal norms; ``seeds``; the sizes ``n``, ``d``, ``width`` and ``sigma_xi``.
    """

    seeds: tuple[int, ...]
    n: int
    d: int
    width: int
    sigma_xi: float
    y: torch.Tensor
    xi: torch.Tensor
    xi_tilde: torch.Tensor
    eps: torch.Tensor
    w0: torch.Tensor
    w0_tilde: torch.Tensor
    mu_norm: float
    mu_tilde_norm: float


def _project(x: torch.Tensor) -> torch.Tensor:
    """Zero the :math:`e_1` coordinate (the signal direction)."""
    x[..., 0] = 0.0
    return x


def draw(seeds: int | Sequence[int], *, n: int, d: int, width: int, n_snr2: float, c_mu: float,
         sigma_xi: float = 1.0, sigma_eps: float = 0.3, init: float = 1e-3, device: str | torch.device = "auto",
         dtype: str | torch.dtype = "float64") -> ContrastiveData:
    r"""Draw the data and initialisations of a batch of seeds; :math:`\|\mu\| = \sigma_\xi\sqrt{d\,n\mathrm{SNR}^2/n}`.

    >>> data = draw([0, 3], n=6, d=40, width=4, n_snr2=1.0, c_mu=2.0, device="cpu")
    >>> data.xi.shape, float(data.xi[..., 0].abs().max()), data.y.tolist()
    (torch.Size([2, 6, 40]), 0.0, [1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    >>> bool((draw([3], n=6, d=40, width=4, n_snr2=1.0, c_mu=2.0, device="cpu").xi[0] == data.xi[1]).all())
    True
    """
    seeds = as_seeds(seeds)
    where = "contrastive draw"
    checked = PARAMS.check(dict(n=n, d=d, width=width, n_snr2=n_snr2, c_mu=c_mu, sigma_eps=sigma_eps, init=init),
                           caller=where)
    n, d, m, n_snr2, c_mu, sigma_eps, init = (checked[k]
                                              for k in ("n", "d", "width", "n_snr2", "c_mu", "sigma_eps", "init"))
    sigma_xi = check_real(sigma_xi, "sigma_xi", minimum=0.0, strict_minimum=True, caller=where)
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    opts = TensorOptions(device=dev, dtype=dt)
    mu_norm = sigma_xi * math.sqrt(d * n_snr2 / n)
    s0 = init / math.sqrt(d)
    return ContrastiveData(
        seeds=seeds, n=n, d=d, width=m, sigma_xi=sigma_xi,
        y=torch.cat([torch.ones(n - n // 2), -torch.ones(n // 2)]).to(**opts),
        xi=_project(sigma_xi * seeded_normal(seeds, (n, d), "contrastive/noise", **opts)),
        xi_tilde=_project(sigma_xi * seeded_normal(seeds, (n, d), "contrastive/noise-tilde", **opts)),
        eps=_project(sigma_eps * seeded_normal(seeds, (n, d), "contrastive/augmentation", **opts)),
        w0=s0 * seeded_normal(seeds, (m, d), "contrastive/init", **opts),
        w0_tilde=s0 * seeded_normal(seeds, (m, d), "contrastive/init-tilde", **opts),
        mu_norm=mu_norm, mu_tilde_norm=c_mu * mu_norm,
    )


def _similarity(mode: str, data: ContrastiveData, w: torch.Tensor, w_tilde: torch.Tensor) -> torch.Tensor:
    """:math:`S_{ij}`, shape (S, n, n)."""
    y = data.y[None, :, None]
    h1 = torch.relu(y * data.mu_norm * w[..., 0][:, None, :])  # (S, n, m): <w_r, y mu> = y ||mu|| w_r1
    h2 = torch.relu(data.xi @ w.transpose(1, 2))
    if mode == "single":
        g1, g2 = h1, torch.relu((data.xi + data.eps) @ w.transpose(1, 2))
    else:
        g1 = torch.relu(y * data.mu_tilde_norm * w_tilde[..., 0][:, None, :])
        g2 = torch.relu(data.xi_tilde @ w_tilde.transpose(1, 2))
    return h1 @ g1.transpose(1, 2) + h2 @ g2.transpose(1, 2)


def _overlaps(data: ContrastiveData, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    r""":math:`(\Gamma, \Xi)` per seed."""
    signal = (data.mu_norm * w[..., 0]).abs().amax(-1)
    noise = torch.relu(data.xi @ w.transpose(1, 2)).amax(-1).mean(-1)
    return signal, noise


def train(mode: str, data: ContrastiveData, *, tau: float = 1.0, eta_scale: float = 0.125, steps: int = 300,
          level: float = 1.0) -> dict[str, torch.Tensor]:
    r"""Full-batch GD on the InfoNCE loss (module docstring); returns per seed ``signal_T``, ``noise_T``,
    ``step_T`` (NaN where the noise never reached ``level``), ``w_T`` (S, m, d), ``signal_end``, ``noise_end``,
    ``loss_end``, ``w_end``.

    >>> data = draw(2, n=8, d=60, width=4, n_snr2=1.0, c_mu=4.0, device="cpu")
    >>> out = train("single", data, steps=60)
    >>> bool((out["loss_end"] < math.log(8)).all()), bool((out["noise_T"] >= 1.0).all())
    (True, True)
    """
    checked = PARAMS.check(dict(mode=mode, tau=tau, eta_scale=eta_scale, steps=steps, level=level),
                           caller="contrastive train")
    mode, tau, eta_scale, steps, level = (checked[k] for k in ("mode", "tau", "eta_scale", "steps", "level"))
    n, S = data.n, len(data.seeds)
    eta = eta_scale * n * tau / (data.sigma_xi**2 * data.d)
    w = data.w0.clone().requires_grad_(True)
    w_tilde = data.w0_tilde.clone().requires_grad_(mode == "multi")
    params = [w, w_tilde] if mode == "multi" else [w]
    target = torch.arange(n, device=w.device).repeat(S)
    nan = torch.full((S,), math.nan, dtype=w.dtype, device=w.device)
    out = {"signal_T": nan.clone(), "noise_T": nan.clone(), "step_T": nan.clone(), "w_T": data.w0.clone()}
    for t in range(steps + 1):
        with torch.no_grad():
            signal, noise = _overlaps(data, w)
            hit = (noise >= level) & out["step_T"].isnan()
            if bool(hit.any()):
                out["signal_T"][hit], out["noise_T"][hit] = signal[hit], noise[hit]
                out["step_T"][hit] = float(t)
                out["w_T"][hit] = w.detach()[hit]
        logits = _similarity(mode, data, w, w_tilde) / tau
        losses = torch.nn.functional.cross_entropy(logits.reshape(S * n, n), target, reduction="none").reshape(S, n)
        if t == steps:
            break
        grads = torch.autograd.grad(losses.sum() / n, params)
        with torch.no_grad():
            for p, g in zip(params, grads, strict=True):
                p -= eta * g
    out.update(signal_end=signal, noise_end=noise, loss_end=losses.detach().mean(-1), w_end=w.detach())
    return out


def probe_error(data: ContrastiveData, w: torch.Tensor, *, n_probe: int = 400, n_test: int = 2000,
                ridge: float = 1e-3, stream: str = "contrastive/probe") -> torch.Tensor:
    r"""Test error of a ridge linear probe on the pooled embedding :math:`\sigma(W y\mu) + \sigma(W\xi)`
    of fresh samples (module docstring), per seed, shape (S,).

    >>> data = draw(2, n=8, d=60, width=4, n_snr2=1.0, c_mu=4.0, device="cpu")
    >>> w = data.w0.clone(); w[..., 0] = 1.0  # every neuron reads the signal
    >>> probe_error(data, w).tolist()
    [0.0, 0.0]
    """
    return probe_errors(data, [w], n_probe=n_probe, n_test=n_test, ridge=ridge, stream=stream)[0]


def probe_errors(data: ContrastiveData, weights: Sequence[torch.Tensor], *, n_probe: int = 400, n_test: int = 2000,
                 ridge: float = 1e-3, stream: str = "contrastive/probe") -> list[torch.Tensor]:
    r""":func:`probe_error` of each of ``weights`` (all on one device and dtype), on the same fresh samples,
    drawn once per seed. One seed at a time: the samples of a seed come from its own streams (module docstring),
    so a seed's error is the same in any batch, and the probe holds :math:`(n_\mathrm{probe} + n_\mathrm{test})\,d`
    numbers of one seed, not of the whole batch (the memory of a wide rung: 16 seeds at :math:`d = 25600` would
    hold 16 GB of probe samples at once)."""
    n_probe, n_test = (PARAMS[k].check(v, "probe_error") for k, v in (("n_probe", n_probe), ("n_test", n_test)))
    ridge = check_real(ridge, "ridge", minimum=0.0, caller="probe_error")
    if not weights:
        return []
    for w in weights:
        if w.ndim != 3 or w.shape[0] != len(data.seeds) or w.shape[-1] != data.d:
            raise InvalidParameterError(
                f"The weights of probe_error must be one weight matrix per seed of the data, of shape "
                f"({len(data.seeds)}, m, {data.d}). Got shape {tuple(w.shape)} instead.")
    opts = TensorOptions(device=weights[0].device, dtype=weights[0].dtype)
    k = n_probe + n_test
    errors: list[list[torch.Tensor]] = [[] for _ in weights]
    for row, seed in enumerate(data.seeds):
        y = torch.where(seeded_normal((seed,), (k,), stream + "/labels", **opts) >= 0, 1.0, -1.0).to(**opts)
        z = _project(data.sigma_xi * seeded_normal((seed,), (k, data.d), stream + "/noise", **opts))
        for out, w in zip(errors, weights, strict=True):
            out.append(_ridge_probe_error(y, z, w[row:row + 1], data.mu_norm, n_probe, ridge, opts))
        del z
    return [torch.cat(out) for out in errors]


def _ridge_probe_error(y: torch.Tensor, z: torch.Tensor, w: torch.Tensor, mu_norm: float, n_probe: int, ridge: float,
                       opts: TensorOptions) -> torch.Tensor:
    r"""The test error of the ridge probe (module docstring) of the embedding by ``w`` (S, m, d) of the samples with
    labels ``y`` (S, k) and noise ``z`` (S, k, d), the first ``n_probe`` fitting it, the rest testing it; shape (S,)."""
    feats = torch.relu(y[..., None] * mu_norm * w[..., 0][:, None, :]) + torch.relu(z @ w.transpose(1, 2))
    fit, test = feats[:, :n_probe], feats[:, n_probe:]
    mean, sd = fit.mean(1, keepdim=True), fit.std(1, keepdim=True).clamp_min(1e-300)
    ones = torch.ones(*fit.shape[:2], 1, **opts)
    x = torch.cat([(fit - mean) / sd, ones], -1)
    x_test = torch.cat([(test - mean) / sd, torch.ones(*test.shape[:2], 1, **opts)], -1)
    gram = x.transpose(1, 2) @ x + ridge * n_probe * torch.eye(x.shape[-1], **opts)
    beta = torch.linalg.solve(gram, x.transpose(1, 2) @ y[:, :n_probe, None])
    return ((x_test @ beta)[..., 0] * y[:, n_probe:] <= 0).to(w.dtype).mean(-1)


def contrastive_rows(*, mode: str, n: int, d: int, width: int, n_snr2: float, c_mu: float, sigma_eps: float = 0.3,
                     init: float = 1e-3, tau: float = 1.0, eta_scale: float = 0.125, steps: int = 300,
                     level: float = 1.0, n_probe: int = 400, n_test: int = 2000, ridge: float = 1e-3,
                     seeds: Sequence[int], device: str | torch.device = "auto") -> list[dict[str, float]]:
    r"""One row per seed: the stop :math:`T` (``signal_T``, ``noise_T``, ``step_T``, ``error_T``), the end
    (``signal_end``, ``noise_end``, ``loss_end``, ``error_end``) and the sizes (``mu_norm``, ``snr``).

    >>> rows = contrastive_rows(mode="multi", n=8, d=60, width=4, n_snr2=1.0, c_mu=4.0, steps=40, n_probe=50,
    ...                         n_test=50, seeds=[0, 1], device="cpu")
    >>> sorted(rows[0])[:4], round(rows[0]["snr"] ** 2 * 8, 6)
    (['error_T', 'error_end', 'loss_end', 'mu_norm'], 1.0)
    """
    data = draw(list(seeds), n=n, d=d, width=width, n_snr2=n_snr2, c_mu=c_mu, sigma_eps=sigma_eps, init=init,
                device=device)
    out = train(mode, data, tau=tau, eta_scale=eta_scale, steps=steps, level=level)
    error_t, out["error_end"] = probe_errors(data, [out["w_T"], out["w_end"]], n_probe=n_probe, n_test=n_test,
                                             ridge=ridge)
    out["error_T"] = torch.where(out["step_T"].isnan(), out["step_T"], error_t)  # NaN where the stop was not reached
    keys = ("signal_T", "noise_T", "step_T", "error_T", "signal_end", "noise_end", "loss_end", "error_end")
    values = {k: to_numpy(out[k]) for k in keys}
    ratio = snr(data.mu_norm, data.sigma_xi, d)
    return [{**{k: float(values[k][s]) for k in keys}, "mu_norm": data.mu_norm, "snr": ratio}
            for s in range(len(data.seeds))]
