r"""Figures of the online-SGD claims, drawn from the claim's stored measurement (no re-simulation).

:func:`draw_times`: the mean time to weak recovery (divided by the law's non-power factor, e.g. :math:`\log d`;
plus the next-order term :math:`B\,d^{k/2}` where the claim's comparison adds it, :mod:`.readouts`) against :math:`d`
on log–log axes, one point per seed and the mean with its 95% interval per :math:`d`, beside the
slopes of the law (Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409) and of the wrong law of the control,
both drawn through the geometric centre of the means. :func:`draw_plateau`: the plateau of the multi-index claims
(Abbe, Boix-Adserà, Misiakiewicz 2023, arXiv 2302.11055) against :math:`\log d` with the fitted :math:`A + B\log d`.
Object API on the ``Figure`` the report hands over.
"""

from __future__ import annotations

from typing import TypedDict

import numpy as np

from ...compare import mean_ci
from .laws import split_law
from .leap_claims import plateau_slopes, plateau_times
from .readouts import recovery_times

__all__ = ["PATHS", "draw_plateau", "draw_smoothing_paths", "draw_times", "smoothing_paths"]


def _seed_points(ax, sizes: np.ndarray, table: np.ndarray) -> list[float]:
    """One grey point per seed and the mean with its 95% interval at each size (``table`` is ``(seeds, sizes)``);
    returns the means."""
    means = []
    for size, y in zip(sizes, table.T):
        y = y[np.isfinite(y)]
        est = mean_ci(y)
        ax.scatter(np.full(len(y), size), y, s=6, alpha=0.25, color="grey")
        ax.errorbar([size], [est.value], yerr=[[est.value - est.ci[0]], [est.ci[1] - est.value]], fmt="o",
                    color="k", capsize=3)
        means.append(est.value)
    return means


def draw_times(fig, frame, law, wrong_law, check, control, *, escape: bool = False) -> None:
    """Log–log time to weak recovery against d with the predicted slopes (module docstring); with ``escape``, the
    times plus the next-order term B d^(k/2) that the comparison adds (:func:`.readouts.recovery_times`), the raw means
    beside them (open circles)."""
    exponent, rest = split_law(law)
    wrong_exponent, _ = split_law(wrong_law)
    ax = fig.add_subplot(1, 1, 1)
    ds_arr, table = recovery_times(frame, rest, escape)
    means = _seed_points(ax, ds_arr, table)
    if escape:
        raw = np.nanmean(recovery_times(frame, rest)[1], axis=0)
        ax.plot(ds_arr, raw, "o", mfc="none", color="tab:red", label="mean time without the d^(k/2) term")
    centre = np.exp(np.mean(np.log(means)))
    grid = np.geomspace(ds_arr.min(), ds_arr.max(), 50)
    middle = np.exp(np.mean(np.log(ds_arr)))
    for slope, label, style in ((exponent, f"law: slope {exponent:g}", "-"),
                                (wrong_exponent, f"wrong law: slope {wrong_exponent:g}", "--")):
        ax.plot(grid, centre * (grid / middle) ** slope, style, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ds_arr, [f"{d:g}" for d in ds_arr])
    ax.set_xticks([], minor=True)
    ax.set_xlabel("d")
    ax.set_ylabel("samples to overlap 1/2" + (" + B d^(k/2)" if escape else "")
                  + ("" if rest.value == 1 else f" / {rest.value}"))
    slope = np.polyfit(np.log(ds_arr), np.log(means), 1)[0]
    ax.set_title(f"{law.name}: slope of the log mean {slope:.3g}", fontsize=10)
    ax.legend(fontsize=8)


class _Paths(TypedDict):
    """The setting of :data:`PATHS`."""

    target: str
    d: int
    seeds: int
    steps_per_d2: int
    every: int
    eta_tilde: float


#: The runs of :func:`draw_smoothing_paths`: He3, d = 64, 8 seeds, 4 d² samples, the overlap every 16 samples.
PATHS = _Paths(target="He3(z)", d=64, seeds=8, steps_per_d2=4, every=16, eta_tilde=0.05)


def smoothing_paths(target: str = PATHS["target"], d: int = PATHS["d"], seeds: int = PATHS["seeds"],
                    steps: int | None = None, every: int = PATHS["every"], eta_tilde: float = PATHS["eta_tilde"],
                    device: str = "cpu") -> dict[str, np.ndarray]:
    r"""Overlap paths of plain and smoothed (:math:`\lambda = d^{1/4}`, Damian, Nichani, Ge, Lee 2023, arXiv
    2305.10633) online SGD from the same start: ``{"samples": (points,), "plain": (points, seeds),
    "smoothed": (points, seeds)}``, step sizes of :func:`.simulate.step_and_radius`.

    >>> paths = smoothing_paths(d=16, seeds=2, steps=64, every=16)
    >>> paths["samples"].tolist(), paths["plain"].shape
    ([16, 32, 48, 64], (4, 2))
    """
    from ...errors import InvalidParameterError
    from .laws import link_exponent, polynomial_coefficients
    from .model import PolynomialLink, online_sgd
    from .simulate import step_and_radius

    coefficients = polynomial_coefficients(target)
    if coefficients is None:
        raise InvalidParameterError(f"The 'target' parameter of smoothing_paths must be a polynomial link. Got "
                                    f"{target!r} instead.")
    k, link = link_exponent(target), PolynomialLink(coefficients)
    steps = steps or PATHS["steps_per_d2"] * d * d
    out = {"samples": np.arange(every, steps + 1, every)}
    for name, smoothing in (("plain", 0.0), ("smoothed", 1.0)):
        eta, lam = step_and_radius(k, d, eta_tilde, smoothing)
        res = online_sgd(link, d, eta=eta, seeds=seeds, max_steps=steps, stop_at_recovery=False, smoothing=lam,
                         trace_every=every, device=device)
        assert res.trace is not None  # trace_every > 0
        out[name] = res.trace.cpu().numpy()
    return out


def draw_smoothing_paths(fig, frame, law, wrong_law, check, control) -> None:
    """Overlap against samples, plain and smoothed online SGD on He3 at d = 64 (:func:`smoothing_paths`; a fresh
    small simulation, not the claim's frame), with the two predicted scales d^(3/2) and d²."""
    paths, d = smoothing_paths(), PATHS["d"]
    ax = fig.add_subplot(1, 1, 1)
    for name, color in (("plain", "tab:grey"), ("smoothed", "tab:blue")):
        ax.plot(paths["samples"], paths[name], color=color, alpha=0.35, lw=0.8)
        ax.plot(paths["samples"], np.median(paths[name], axis=1), color=color, lw=2.2,
                label=f"{name}: median of {paths[name].shape[1]} seeds")
    ax.axhline(0.5, color="k", ls=":", lw=1, label="weak recovery (overlap 1/2)")
    for value, text in ((d**1.5, "d^(3/2)"), (d**2.0, "d²")):
        ax.axvline(value, color="tab:orange", ls="--", lw=1)
        ax.text(value, 0.02, f" {text}", color="tab:orange", fontsize=8, transform=ax.get_xaxis_transform())
    ax.set_xscale("log")
    ax.set_ylim(-0.3, 1.0)
    ax.set_xlabel("samples (one per step)")
    ax.set_ylabel("overlap <w, w*>")
    ax.set_title(f"He3, d = {d}: online SGD with and without smoothing (λ = d^(1/4))", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")


def draw_plateau(fig, frame, law, wrong_law, check, control) -> None:
    """The plateau (mean-field time from the first stage to the last, :func:`.leap_claims.plateau_times`) against d
    on a log axis: one point per seed, the mean with its 95% interval, and the line A + B log d of the mean slope
    (:func:`.leap_claims.plateau_slopes`) through the mean of the means."""
    ds, table = plateau_times(frame)
    ax = fig.add_subplot(1, 1, 1)
    means = _seed_points(ax, ds, table)
    slope = float(np.nanmean(plateau_slopes(frame)))
    grid = np.geomspace(ds.min(), ds.max(), 50)
    centre = np.log(ds).mean()
    ax.plot(grid, np.mean(means) + slope * (np.log(grid) - centre), "-", label=f"A + B log d, B = {slope:.3g}")
    ax.axhline(np.mean(means), ls="--", color="tab:orange", label="no growth (B = 0)")
    ax.set_xscale("log")
    ax.set_xticks(ds, [f"{d:g}" for d in ds])
    ax.set_xticks([], minor=True)
    ax.set_xlabel("d")
    ax.set_ylabel("plateau (mean-field time t = η̃ n / d)")
    ax.set_title(f"{law.regime}: plateau against log d", fontsize=8)
    ax.legend(fontsize=8)
