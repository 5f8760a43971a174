r"""The signal-noise system's measurements: boundaries, error curves, early growth and label noise, per seed.

The data model and the CNN (Cao, Chen, Belkin, Gu 2022, arXiv 2202.06526; Kou, Chen, Chen, Gu 2023, arXiv
2303.04145) live in the numeric layer, :mod:`flt_theory.numeric.signal_noise`, shared with the systems built on
the same data; this module runs them at the points of this system's experiments. Seeds are the leading
dimension; a seed's row never depends on which seeds share the batch.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import TypedDict

import torch

from ..._validation import check_int, check_real
from ...errors import InvalidParameterError
from ...numeric.signal_noise import (
    SignalNoiseConfig,
    SignalNoiseDraw,
    activation_power,
    draw,
    reduced_trajectory,
    run_records,
    train,
)
from ...numeric.signal_noise_flow import gradient_flow, projected_flow
from ...runner.params import Param, Params

__all__ = [
    "DYNAMICS",
    "PARAMS",
    "boundary_mu_norm",
    "final_test_error",
    "boundary_rows",
    "error_curve_rows",
    "growth_rows",
    "label_noise_rows",
    "log_grid",
    "measure_boundary",
    "measure_final",
    "measure_growth",
]


#: How a run trains: ``"gd"`` — full-batch GD with step ``cfg.eta`` for at most ``cfg.max_steps`` steps
#: (:func:`~flt_theory.numeric.signal_noise.train`); ``"flow"`` — its gradient flow, the limit of every step
#: :math:`\eta \to 0`, to :math:`L_S \le \varepsilon` or the natural time ``max_time``
#: (:func:`~flt_theory.numeric.signal_noise_flow.gradient_flow`, ``rtol``; smooth :math:`\sigma'`, :math:`q \ge 2`);
#: ``"flow-projected"`` — the same flow for ReLU by projected Euler steps of size ``cfg.eta`` (at most
#: ``cfg.max_steps``), switch-aware (:func:`~flt_theory.numeric.signal_noise_flow.projected_flow`).
DYNAMICS = ("gd", "flow", "flow-projected")


class _Dynamics(TypedDict):
    """How each run of a sweep trains: the keywords ``dynamics``, ``max_time``, ``rtol`` of :func:`final_test_error`."""

    dynamics: str
    max_time: float
    rtol: float

#: The parameters of the system, declared once: the runner's ``signal-noise/boundary``, ``error-curve``, ``growth``
#: and ``label-noise`` (converters; each experiment takes its subset and defaults) and ``flt simulate signal-noise``
#: (options and bounds) read them. Ranges a value must lie in whatever the others are; the joint conditions
#: (``d > n``, the dynamics and its step, the flips per class) stay with their commands.
PARAMS = Params(
    Param("activation", "str", help="'relu' or 'relu(z)**q' (q = 1..8), the filters' activation."),
    Param("n", "int", minimum=2, unit="count", help="Training samples (two classes)."),
    Param("d", "int", minimum=2, unit="count", help="Dimension d."),
    Param("width", "int", minimum=1, default=10, unit="count", help="Filters per class m."),
    Param("mu_norm", "float", minimum=0, exclusive_minimum=True, unit="units of x", help="Signal norm ||mu||."),
    Param("sigma_xi", "float", minimum=0, exclusive_minimum=True, default=1.0, unit="units of x",
          help="Noise scale sigma_xi; SNR = ||mu||/(sigma_xi sqrt(d))."),
    Param("sigma0", "float", minimum=0, exclusive_minimum=True, default=None, nullable=True,
          help="Initialisation scale (default 0.01/(sigma_xi sqrt(d)))."),
    Param("sigma0_sqrt_d", "float", minimum=0, exclusive_minimum=True, help="Initialisation scale times sqrt(d), s_0."),
    Param("eta_scale", "float", minimum=0, help="Step in units of nm/d (0: the gradient flow, no step)."),
    Param("eps", "float", minimum=0, help="Stop once the mean training loss is <= eps."),
    Param("max_steps", "int", minimum=0, unit="steps", help="Step limit."),
    Param("n_test", "int", minimum=1, unit="count", help="Test draws per seed for the test error."),
    Param("label_noise", "float", minimum=0, maximum=0.5, unit="fraction",
          help="Fraction tau in [0, 0.5) of training labels flipped (exactly round(tau n), half per class)."),
    Param("record_every", "int", minimum=1, unit="steps", help="Record every that many steps."),
    Param("seeds", "int", minimum=1, default=3, unit="count", help="Independent runs (seeds 0..S-1)."),
    Param("level", "float", minimum=0, exclusive_minimum=True, maximum=1, unit="fraction",
          help="Test error that defines the boundary SNR*."),
    Param("snr_low", "float", minimum=0, exclusive_minimum=True, help="Lower end of the SNR bisection bracket."),
    Param("snr_high", "float", minimum=0, exclusive_minimum=True, help="Upper end of the SNR bisection bracket."),
    Param("iterations", "int", minimum=0, default=8, unit="count", help="Bisection steps."),
    Param("grid", "int", minimum=0, unit="count", help="Points of the test-error grid (0: none)."),
    Param("grid_low", "float", minimum=0, default=0.0, help="Lower end of the phase-diagram SNR grid."),
    Param("grid_high", "float", minimum=0, default=0.0, help="Upper end of the phase-diagram SNR grid."),
    Param("dynamics", "choice", choices=DYNAMICS, default="gd",
          help="How a run trains (GD, its flow, projected flow)."),
    Param("max_time", "float", minimum=0, maximum=1e15, default=0.0, help="Natural time a gradient-flow run may run."),
    Param("rtol", "float", minimum=0, exclusive_minimum=True, default=1e-4,
          help="Relative tolerance of the flow's RK45."),
    Param("x_low", "float", minimum=0, exclusive_minimum=True,
          help="Lower end of the grid of X = n||mu||^4/(sigma_xi^4 d)."),
    Param("x_high", "float", minimum=0, exclusive_minimum=True, help="Upper end of the grid of X."),
    Param("snr", "float", minimum=0, exclusive_minimum=True, help="Signal-to-noise ratio ||mu||/(sigma_xi sqrt(d))."),
    Param("n_snr2", "float", minimum=0, exclusive_minimum=True, help="n SNR^2 (the label-noise point's SNR)."),
)


def final_test_error(dr: SignalNoiseDraw, cfg: SignalNoiseConfig, mu_norm: torch.Tensor, *, dynamics: str = "gd",
                     max_time: float = 0.0, rtol: float = 1e-4) -> torch.Tensor:
    r"""Per-seed test error at the stop of a run at :math:`\|\mu\|` = ``mu_norm`` (seeds,), trained by ``dynamics``
    (:data:`DYNAMICS`).

    >>> dr = draw(1, n=8, d=2000, width=3, n_test=500, device="cpu")
    >>> cfg = SignalNoiseConfig(q=3, mu_norm=1.0, sigma0=0.3 / 2000**0.5, eta=0.25 / 2000, eps=0.05, max_steps=10**4)
    >>> gd, flow = (final_test_error(dr, cfg, torch.tensor([20.0]), dynamics=k, max_time=1e6) for k in DYNAMICS[:2])
    >>> abs(float(gd[0] - flow[0])) < 0.01
    True
    """
    if dynamics == "gd":
        return train(dr, cfg, mu_norm=mu_norm).test_error
    if dynamics == "flow":
        return gradient_flow(dr, cfg, mu_norm=mu_norm, max_time=max_time, rtol=rtol).test_error
    if dynamics == "flow-projected":
        return projected_flow(dr, cfg, mu_norm=mu_norm).test_error
    raise InvalidParameterError(f"The 'dynamics' parameter must be one of {DYNAMICS}. Got {dynamics!r} instead.")


def boundary_mu_norm(
    dr: SignalNoiseDraw, cfg: SignalNoiseConfig, *, level: float = 0.1, low: float, high: float, iterations: int = 12,
    dynamics: str = "gd", max_time: float = 0.0, rtol: float = 1e-4,
) -> torch.Tensor:
    r"""Per-seed :math:`\|\mu\|^*` where the final test error crosses ``level``, by bisection in
    :math:`\log\|\mu\|` over ``[low, high]`` (all seeds bisected together, each with its own midpoint;
    the draw is shared by every :math:`\|\mu\|`, so each seed's curve is one realisation); each run trained by
    ``dynamics`` (:func:`final_test_error`).

    Returns
    -------
    Tensor, shape (seeds,)
        The geometric midpoint of the final bracket (relative width
        :math:`(\mathrm{high}/\mathrm{low})^{2^{-\mathrm{iterations}}}`); NaN for a seed whose error is not
        above ``level`` at ``low`` and below it at ``high``.

    Examples
    --------
    >>> dr = draw(2, n=16, d=4000, width=4, n_test=2000, device="cpu")
    >>> cfg = SignalNoiseConfig(q=1, mu_norm=1.0, sigma0=1e-3, eta=0.02, eps=0.05, max_steps=3000)
    >>> star = boundary_mu_norm(dr, cfg, low=1.0, high=40.0, iterations=6)
    >>> bool(torch.isfinite(star).all())
    True
    """
    level = check_real(level, "level", minimum=0.0, maximum=0.5, strict_minimum=True, caller="boundary_mu_norm")
    low = check_real(low, "low", minimum=0.0, strict_minimum=True, caller="boundary_mu_norm")
    high = check_real(high, "high", minimum=low, strict_minimum=True, caller="boundary_mu_norm")
    iterations = check_int(iterations, "iterations", minimum=1, caller="boundary_mu_norm")
    seeds = len(dr.seeds)
    lo = torch.full((seeds,), math.log(low)).to(dr.y)
    hi = torch.full((seeds,), math.log(high)).to(dr.y)
    error = functools.partial(final_test_error, dr, cfg, dynamics=dynamics, max_time=max_time, rtol=rtol)
    ok = (error(lo.exp()) > level) & (error(hi.exp()) <= level)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        above = error(mid.exp()) > level
        lo, hi = torch.where(above, mid, lo), torch.where(above, hi, mid)
    star = (0.5 * (lo + hi)).exp()
    return torch.where(ok, star, torch.full_like(star, math.nan))


# --------------------------------------------------------------------------------- per-seed measurements


def _config_and_draw(params: dict, seed: int) -> tuple[SignalNoiseDraw, SignalNoiseConfig]:
    """The draw of one seed and the config from a runner parameter dict (keys of :func:`run_records`)."""
    dr = draw(
        [seed], n=params["n"], d=params["d"], width=params.get("width", 10), label_noise=params.get("label_noise", 0.0),
        n_test=params.get("n_test", 10_000), device=params.get("device", "auto"), dtype=params.get("dtype", "float64"),
    )
    cfg = SignalNoiseConfig(
        q=activation_power(params.get("activation", "relu")), mu_norm=params.get("mu_norm", 1.0),
        sigma_xi=params.get("sigma_xi", 1.0), sigma0=params.get("sigma0", 0.01), eta=params.get("eta", 1.0),
        eps=params.get("eps", 0.01), max_steps=params.get("max_steps", 5000), project=params.get("project", True),
    )
    return dr, cfg


def measure_final(params: dict, seed: int) -> dict[str, float]:
    """Runner experiment body: the final observables of one seed (``steps, train_loss, test_error,
    gamma_max, rho_max, flipped_fitted, snr``)."""
    rec = run_records(seeds=[seed], trajectory=False, **params)[0]
    keys = ("steps", "train_loss", "test_error", "gamma_max", "rho_max", "flipped_fitted", "snr")
    return {key: float(rec[key]) for key in keys}


def measure_boundary(params: dict, seed: int, *, level: float, low: float, high: float,
                     iterations: int = 10) -> dict[str, float]:
    r"""Runner experiment body: the bisected :math:`\|\mu\|^*` of one seed where the final test error
    crosses ``level`` (``mu_star``, ``snr_star``; NaN when the bracket does not straddle ``level``)."""
    dr, cfg = _config_and_draw(params, seed)
    star = float(boundary_mu_norm(dr, cfg, level=level, low=low, high=high, iterations=iterations)[0])
    return {"mu_star": star, "snr_star": star / (cfg.sigma_xi * math.sqrt(dr.d))}


def _slope(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Least-squares slope of ``y`` on ``x`` along the last axis (batched)."""
    xc = x - x.mean(-1, keepdim=True)
    return (xc * (y - y.mean(-1, keepdim=True))).sum(-1) / (xc**2).sum(-1)


def measure_growth(params: dict, seed: int, *, output_cap: float = 0.05, max_steps: int = 400) -> dict[str, float]:
    r"""Runner experiment body: early-phase growth of one seed, over the steps before any training output
    leaves ``[-output_cap, output_cap]`` (so :math:`\ell' = -1/2` within 2.5%).

    Returns ``gamma_slope`` (least-squares slope of :math:`\max_{j,r}\gamma` per step), ``rho_slope`` (mean
    over samples of the slope of :math:`\max_r\rho_{\tilde y_i,r,i}`), ``signal_exponent`` and
    ``noise_exponent`` (log-log slopes of :math:`\Delta A` on :math:`A` for the neuron with the largest
    :math:`A = j\langle w,\mu\rangle`, and of :math:`\Delta B` on :math:`B` for the largest
    :math:`B = \langle w_{\tilde y_i, r}, \xi_i\rangle`), ``gamma_exponent`` (the same fit for
    :math:`\gamma` alone, the literal form of the recursion) and ``early_steps``.
    """
    dr, cfg = _config_and_draw(params, seed)
    traj = reduced_trajectory(dr, cfg, max_steps)
    fmax = traj["f"].abs().flatten(1).amax(-1)
    early = int((fmax <= output_cap).to(torch.long).cumprod(0).sum())  # steps 0 .. early-1 are early
    if early < 4:
        raise InvalidParameterError(
            f"The early phase of the signal-noise run lasts {early} steps (< 4): lower 'sigma0' or 'eta'."
        )
    t = torch.arange(early).to(dr.y)
    gamma, rho, a, b = (traj[k][:early, 0] for k in ("gamma", "rho", "a", "b"))
    out = {"early_steps": float(early), "gamma_slope": float(_slope(t, gamma.amax(-1)))}
    own = (dr.sign[:, None] == dr.y_obs[0][None, :])  # (2m, n): neuron j = ỹ_i
    rho_own = torch.where(own, rho, torch.full_like(rho, -math.inf)).amax(1)  # (T, n)
    out["rho_slope"] = float(_slope(t, rho_own.T).mean())
    A = dr.sign * a  # (T, 2m)
    top = int(A[0].argmax())
    b_own = torch.where(own, b, torch.full_like(b, -math.inf))
    flat = int(b_own[0].flatten().argmax())
    B = b.flatten(1)[:, flat]
    g_top = gamma[:, top]
    for name, series in (("signal_exponent", A[:, top]), ("noise_exponent", B), ("gamma_exponent", g_top)):
        inc = series[1:] - series[:-1]
        ok = (series[:-1] > 0) & (inc > 0)
        out[name] = float(_slope(series[:-1][ok].log(), inc[ok].log())) if int(ok.sum()) >= 3 else math.nan
    return out


# ------------------------------------------------------------------ batched rows of the runner experiments
#
# The runner stores one dict of floats per (point, seed). The functions below take the seeds as a batch
# (one draw per seed from its own generators, so a seed's row does not depend on the batch) and return
# those rows; :mod:`.declaration` registers them as experiments.


def boundary_rows(
    *, activation: str | int, n: int, d: int, width: int, sigma0: float, eta: float, eps: float, max_steps: int,
    n_test: int, level: float, snr_low: float, snr_high: float, iterations: int, grid: int = 0, grid_low: float = 0.0,
    grid_high: float = 0.0, sigma_xi: float = 1.0, dynamics: str = "gd", max_time: float = 0.0, rtol: float = 1e-4,
    seeds: Sequence[int], device: str | torch.device = "auto",
) -> list[dict[str, float]]:
    r"""Per seed: the bisected boundary :math:`\mathrm{SNR}^*` where the final test error crosses ``level``
    (``snr_star``, ``mu_star``; NaN when ``[snr_low, snr_high]`` does not straddle it) and, with
    ``grid = K > 0``, the final test error ``err_k`` at ``K`` log-spaced ``snr_k`` from ``grid_low`` to
    ``grid_high`` (default: the bisection's bracket) — the phase diagram, on the same draw. Every run is trained by
    ``dynamics`` (:data:`DYNAMICS`; with ``"flow"``, ``eta`` and ``max_steps`` are unused and ``max_time`` bounds the
    natural time).

    >>> rows = boundary_rows(activation="relu", n=16, d=4000, width=4, sigma0=1e-3, eta=0.02, eps=0.05,
    ...                      max_steps=3000, n_test=2000, level=0.1, snr_low=0.016, snr_high=0.63, iterations=5,
    ...                      grid=2, seeds=[0, 1], device="cpu")
    >>> sorted(rows[0]), all(r["err_0"] > 0.1 >= r["err_1"] for r in rows)
    (['err_0', 'err_1', 'mu_star', 'snr_0', 'snr_1', 'snr_star'], True)
    """
    dr = draw(list(seeds), n=n, d=d, width=width, n_test=n_test, device=device)
    cfg = SignalNoiseConfig(q=activation_power(activation), mu_norm=1.0, sigma_xi=sigma_xi, sigma0=sigma0, eta=eta,
                            eps=eps, max_steps=max_steps)
    scale = sigma_xi * math.sqrt(d)
    how = _Dynamics(dynamics=dynamics, max_time=max_time, rtol=rtol)
    star = boundary_mu_norm(dr, cfg, level=level, low=snr_low * scale, high=snr_high * scale, iterations=iterations,
                            **how)
    rows = [{"snr_star": float(s) / scale, "mu_star": float(s)} for s in star.cpu().tolist()]
    grid = check_int(grid, "grid", minimum=0, caller="boundary_rows")
    _add_error_grid(rows, dr, cfg, log_grid(grid_low or snr_low, grid_high or snr_high, grid), lambda snr: snr * scale,
                    "snr", **how)
    return rows


def log_grid(first: float, last: float, points: int) -> list[float]:
    r"""``points`` log-spaced values :math:`v_k = v_0 (v_{K-1}/v_0)^{k/(K-1)}` from ``first`` to ``last``.

    >>> [round(v, 6) for v in log_grid(1.0, 4.0, 3)]
    [1.0, 2.0, 4.0]
    """
    return [first * (last / first) ** (k / max(points - 1, 1)) for k in range(points)]


def _add_error_grid(rows: list[dict[str, float]], dr: SignalNoiseDraw, cfg: SignalNoiseConfig, values: Sequence[float],
                    mu_norm_of: Callable[[float], float], key: str, **how) -> None:
    """Train once per grid value (``mu_norm_of(value)`` for every seed of the draw; ``how``: the dynamics of
    :func:`final_test_error`) and add ``{key}_k`` and ``err_k`` (the final test error) to each seed's row."""
    for k, value in enumerate(values):
        mu = torch.full((len(dr.seeds),), mu_norm_of(value))
        errors = final_test_error(dr, cfg, mu, **how).cpu().tolist()
        for row, err in zip(rows, errors, strict=True):
            row[f"{key}_{k}"], row[f"err_{k}"] = value, float(err)


def error_curve_rows(
    *, activation: str | int, n: int, d: int, width: int, sigma0: float, eta: float, eps: float, max_steps: int,
    n_test: int, x_low: float, x_high: float, grid: int, sigma_xi: float = 1.0, test_estimator: str = "radial",
    seeds: Sequence[int], device: str | torch.device = "auto",
) -> list[dict[str, float]]:
    r"""Per seed, the final test error ``err_k`` at ``grid`` log-spaced values ``x_k`` of Kou et al.'s collapse
    variable :math:`X = n\|\mu\|^4/(\sigma_\xi^4 d)` from ``x_low`` to ``x_high``, i.e. at
    :math:`\|\mu\| = \sigma_\xi (X d/n)^{1/4}` — one draw per seed shared by every :math:`X` (common random
    numbers); the test error by the ``"radial"`` estimator by default (errors down to :math:`10^{-8}` resolved,
    module docstring).

    >>> rows = error_curve_rows(activation="relu", n=16, d=4000, width=4, sigma0=1e-5, eta=0.02, eps=0.05,
    ...                         max_steps=3000, n_test=2000, x_low=0.1, x_high=4.0, grid=2, seeds=[0, 1], device="cpu")
    >>> sorted(rows[0]), all(r["err_0"] > r["err_1"] for r in rows)
    (['err_0', 'err_1', 'x_0', 'x_1'], True)
    """
    grid = check_int(grid, "grid", minimum=2, caller="error_curve_rows")
    x_low = check_real(x_low, "x_low", minimum=0.0, strict_minimum=True, caller="error_curve_rows")
    x_high = check_real(x_high, "x_high", minimum=x_low, strict_minimum=True, caller="error_curve_rows")
    dr = draw(list(seeds), n=n, d=d, width=width, n_test=n_test, device=device)
    cfg = SignalNoiseConfig(q=activation_power(activation), mu_norm=1.0, sigma_xi=sigma_xi, sigma0=sigma0, eta=eta,
                            eps=eps, max_steps=max_steps, test_estimator=test_estimator)
    rows: list[dict[str, float]] = [{} for _ in dr.seeds]
    _add_error_grid(rows, dr, cfg, log_grid(x_low, x_high, grid), lambda x: sigma_xi * (x * d / n) ** 0.25, "x")
    return rows


def _masked_slope(x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Least-squares slope of ``y`` on ``x`` over the entries where ``mask`` holds, along the last axis."""
    w = mask.to(y)
    count = w.sum(-1).clamp_min(1)
    x0, y0 = torch.where(mask, x, 0.0), torch.where(mask, y, 0.0)
    xm, ym = (w * x0).sum(-1) / count, (w * y0).sum(-1) / count
    xc = torch.where(mask, x0 - xm[..., None], 0.0)
    slope = (xc * (y0 - ym[..., None])).sum(-1) / (xc**2).sum(-1)
    return torch.where(mask.sum(-1) >= 3, slope, torch.full_like(slope, math.nan))


def growth_rows(
    *, activation: str | int, n: int, d: int, width: int, mu_norm: float, sigma0: float, eta: float,
    label_noise: float = 0.0, sigma_xi: float = 1.0, max_steps: int = 400, output_cap: float = 0.05, samples: int = 16,
    seeds: Sequence[int], device: str | torch.device = "auto",
) -> list[dict[str, float]]:
    r"""Early-phase growth per seed (the batched form of :func:`measure_growth`): over the steps before any
    training output leaves ``[-output_cap, output_cap]`` (so :math:`\ell' = -1/2` within 2.5%),

    * ``gamma_slope``: least-squares slope of :math:`\max_{j,r}\gamma_{j,r}` per step;
    * ``rho_slope``: mean over samples of the slope of :math:`\max_r\rho_{\tilde y_i,r,i}` (:math:`\bar\rho`);
    * ``signal_exponent``, ``noise_exponent``: log-log slopes of :math:`\Delta A` on :math:`A` for the neuron
      with the largest :math:`A = j\langle w,\mu\rangle` at :math:`t = 0`, and of :math:`\Delta B` on
      :math:`B` for the largest :math:`B = \langle w_{\tilde y_i,r},\xi_i\rangle`;
    * ``gamma_exponent``: the same fit for :math:`\gamma` of that neuron alone (the literal recursion);
    * ``early_steps``; and the trajectory at ``samples`` equally spaced steps ``step_k``
      (``gamma_k`` = :math:`\max\gamma`, ``rho_k`` = mean over samples of :math:`\max_r\rho_{\tilde y_i,r,i}`).

    >>> rows = growth_rows(activation="relu", n=40, d=10**5, width=10, mu_norm=16.0, sigma0=3e-6, eta=8e-6,
    ...                    max_steps=100, samples=4, seeds=[0, 1], device="cpu")
    >>> slope_unit = 8e-6 * 16.0**2 / (4 * 10)  # eta mu^2/(4m)
    >>> rows[0]["early_steps"], round(rows[0]["gamma_slope"] / slope_unit, 2)
    (53.0, 0.99)
    """
    dr = draw(list(seeds), n=n, d=d, width=width, label_noise=label_noise, n_test=1, device=device)
    cfg = SignalNoiseConfig(q=activation_power(activation), mu_norm=mu_norm, sigma_xi=sigma_xi, sigma0=sigma0, eta=eta)
    traj = reduced_trajectory(dr, cfg, max_steps)  # (T, S, ...)
    steps = traj["f"].shape[0]
    fmax = traj["f"].abs().flatten(2).amax(-1)  # (T, S)
    early = (fmax <= output_cap).to(torch.long).cumprod(0).sum(0)  # (S,)
    t = torch.arange(steps).to(dr.y)
    mask = (t[None, :] < early[:, None])  # (S, T)
    gamma, rho, a, b = traj["gamma"], traj["rho"], traj["a"], traj["b"]
    out = {"early_steps": early.to(dr.y), "gamma_slope": _masked_slope(t.expand_as(mask), gamma.amax(-1).T, mask)}
    own = dr.sign[None, :, None] == dr.y_obs[:, None, :]  # (S, 2m, n): neuron j = ỹ_i
    rho_own = torch.where(own[None], rho, torch.full_like(rho, -math.inf)).amax(2)  # (T, S, n)
    out["rho_slope"] = _masked_slope(t.expand(dr.n, -1)[None], rho_own.permute(1, 2, 0), mask[:, None, :]).mean(-1)
    big_a = dr.sign * a  # (T, S, 2m)
    top = big_a[0].argmax(-1)  # (S,)
    pick = torch.arange(len(dr.seeds))
    b_own = torch.where(own[None], b, torch.full_like(b, -math.inf)).flatten(2)  # (T, S, 2m n)
    flat = b_own[0].argmax(-1)
    series = {"signal_exponent": big_a[:, pick, top].T, "noise_exponent": b.flatten(2)[:, pick, flat].T,
              "gamma_exponent": gamma[:, pick, top].T}  # (S, T)
    for name, x in series.items():
        inc = x[:, 1:] - x[:, :-1]
        ok = mask[:, :-1] & (x[:, :-1] > 0) & (inc > 0)
        out[name] = _masked_slope(x[:, :-1].clamp_min(1e-300).log(), inc.clamp_min(1e-300).log(), ok)
    samples = check_int(samples, "samples", minimum=2, caller="growth_rows")
    picks = [round(k * max_steps / (samples - 1)) for k in range(samples)]
    rho_mean = rho_own.clamp_min(0).mean(-1)  # (T, S)
    rows = []
    for s in range(len(dr.seeds)):
        row = {key: float(val[s]) for key, val in out.items()}
        for k, step in enumerate(picks):
            row[f"step_{k}"], row[f"gamma_{k}"] = float(step), float(gamma[step, s].amax())
            row[f"rho_{k}"] = float(rho_mean[step, s])
        rows.append(row)
    return rows


def label_noise_rows(
    *, n: int, d: int, width: int, mu_norm: float, sigma0: float, eta: float, label_noise: float, eps: float,
    max_steps: int, n_test: int, record_every: int = 10, samples: int = 24, sigma_xi: float = 1.0,
    seeds: Sequence[int], device: str | torch.device = "auto",
) -> list[dict[str, float]]:
    r"""ReLU with label noise, per seed: the test error at the stop (``final_error``, stage II), its
    minimum over the recorded steps (``min_error``, the early-stopped stage I), ``rise`` (their
    difference), the fraction of flipped samples fitted at the minimum and at the stop
    (``fitted_at_min``, ``fitted_final``), ``steps``, and the curve at ``samples`` recorded steps
    (``step_k``, ``error_k``, ``fitted_k``; evenly spaced in log step).

    >>> rows = label_noise_rows(n=32, d=64, width=5, mu_norm=2.0, sigma0=1e-3, eta=0.5, label_noise=0.25, eps=0.05,
    ...                         max_steps=3000, n_test=500, samples=4, seeds=[0], device="cpu")
    >>> rows[0]["fitted_final"], rows[0]["rise"] >= 0
    (1.0, True)
    """
    dr = draw(list(seeds), n=n, d=d, width=width, label_noise=label_noise, n_test=n_test, device=device)
    cfg = SignalNoiseConfig(q=1, mu_norm=mu_norm, sigma_xi=sigma_xi, sigma0=sigma0, eta=eta, eps=eps,
                            max_steps=max_steps)
    run = train(dr, cfg, record_every=check_int(record_every, "record_every", minimum=1, caller="label_noise_rows"))
    assert run.trajectory is not None  # record_every >= 1: the run is recorded
    traj = {k: v.cpu() for k, v in run.trajectory.items()}  # (records, S)
    samples = check_int(samples, "samples", minimum=2, caller="label_noise_rows")
    rows = []
    for s in range(len(dr.seeds)):
        stop = int(run.steps[s])
        steps_s = traj["step"][:, s]
        keep = (steps_s < stop) | (torch.arange(len(steps_s)) == int((steps_s == stop).nonzero()[0]))
        err, fit, st = traj["test_error"][keep, s], traj["flipped_fitted"][keep, s], steps_s[keep]
        at_min = int(err.argmin())
        row = {"final_error": float(run.test_error[s]), "min_error": float(err[at_min]),
               "rise": float(run.test_error[s] - err[at_min]), "fitted_at_min": float(fit[at_min]),
               "fitted_final": float(run.flipped_fitted[s]), "steps": float(stop)}
        grid = torch.logspace(0, math.log10(max(len(st) - 1, 1)), samples).round().long().clamp_max(len(st) - 1)
        grid[0] = 0
        for k, i in enumerate(grid.tolist()):
            row[f"step_{k}"], row[f"error_{k}"], row[f"fitted_{k}"] = float(st[i]), float(err[i]), float(fit[i])
        rows.append(row)
    return rows
