r"""The diffusion system: denoising score matching against classification on two-patch signal-noise data.

Han, Huang, Cao, Zou 2025 (arXiv 2412.01021). Laws: :mod:`.laws`; the denoiser and the classification CNN
(the signal-noise system's, reused): :mod:`.model`; reading the stored frame: :mod:`.readouts`; figures:
:mod:`.figures`; ``flt simulate``: :mod:`.simulate`.

One experiment, ``diffusion/features``, trains at each :math:`(n, \|\mu\|)` and per seed the ReLU²
classification CNN and, where its parameter ``denoiser`` is 1, the denoiser (GD on the closed-form DSM loss) on
data of the same sizes, and stores the CNN's signal fraction :math:`\gamma/(\gamma + \rho)` and the
denoiser's feature ratio :math:`R` and stationarity. Both claims read the same stored grid; the denoiser runs
only at the points the balanced law reads (:math:`\|\mu\| \le` :data:`BALANCED_MAX_MU`), where it costs most of
the measurement.

Regime (stated). :math:`\sigma_\xi = 1/\sqrt d`, :math:`d = 500`, :math:`\|\mu\| \le 1/2`: patches of norm
:math:`O(1)`, where the derivation of :mod:`.laws` holds. Outside it (:math:`\sigma_\xi = 1`,
:math:`\|\xi\|^2 = d`) the ratio bends below linear (slope about 0.5 in :math:`n\,\mathrm{SNR}^2` measured at
:math:`d = 1000`, :math:`n \in \{16, 64\}`); the claim is not made there.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...compare import check_at_least, check_at_most, check_power_law_2d
from ...compare.result import CheckResult, all_of
from ...errors import InvalidParameterError
from ...runner import experiment
from ...runner.cost import Cost
from ...symbolic.law import Law
from ..declaration import DEVICE_OPTION, Claim, Figure, Measurement, Option, RecordField, SimulateCommand, System
from ..frames import ladder_rung
from . import model
from .figures import draw_balanced
from .laws import CAO, HAN, THRESHOLDS_AT_ONE, balanced_law, diffusion_laws, dominant_law
from .readouts import BALANCED_MAX_MU, balanced_part, point_grid, point_rows, signal_noise_ratio
from .simulate import simulate_document

__all__ = ["BALANCED_MAX_MU", "SIZES", "SYSTEM", "balanced_ladder", "hypothesis_values"]

NAME = "diffusion"
#: The declared parameters (:data:`.model.PARAMS`): the experiment's converters and defaults, the options' bounds.
P = model.PARAMS
SIZES: dict[str, dict[str, Any]] = {
    "small": dict(ns=(16, 64), mus=(0.05, 0.15, 0.5), extra=((16, 0.6), (16, 1.5), (64, 1.0)), seeds=6, d=500,
                  steps=1200, eta=0.15),
    "paper": dict(ns=(16, 32, 64), mus=(0.05, 0.1, 0.2, 0.5), extra=((16, 0.6), (16, 1.5), (32, 1.0), (64, 1.0)),
                  seeds=12, d=2000, steps=3000, eta=0.1),
}


# work: per denoiser step some 30 small torch calls (4e5 operations' worth) and the reduced-coordinate products,
# O(m (m + 2n)^2) per seed (model.dsm_descent); the classification CNN, about 3e7 operations a seed
@experiment("diffusion/features",
            cost=Cost(memory="8*seeds*n*d + 8*seeds*width*d",
                      work="4e5*denoiser*steps + 2*denoiser*steps*seeds*width*n**2 + 3e7*seeds"),
            batched=True, params=P.without("sigma_xi"))
def features(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Classification CNN signal fraction and, with ``denoiser`` = 1, the denoiser's feature ratio and
    stationarity, at one :math:`(n, \|\mu\|)` (with ``denoiser`` = 0 the rows have no denoiser fields)."""
    cls = model.classification_rows(seeds, n=params["n"], d=params["d"], mu_norm=params["mu_norm"], q=params["q"])
    if not params["denoiser"]:
        return cls
    cfg = model.DiffusionConfig(n=params["n"], d=params["d"], width=params["width"], time=params["time"],
                                sigma0=params["sigma0"], eta=params["eta"], steps=params["steps"])
    dsm = model.diffusion_rows(seeds, params["mu_norm"], cfg)
    return [{**a, **b} for a, b in zip(dsm, cls, strict=True)]


#: The fields of a record of ``flt simulate diffusion --json`` (listed by its ``--help``).
RECORD_FIELDS = (
    RecordField("n", "training samples", "count"),
    RecordField("d", "dimension", "count"),
    RecordField("mu_norm", "signal norm ||mu||", "units of x"),
    RecordField("snr", "SNR = ||mu|| / (sigma_xi sqrt d), sigma_xi = 1/sqrt d", "1"),
    RecordField("n_snr2", "n SNR^2", "1"),
    RecordField("seed", "the run's seed", "index"),
    RecordField("ratio", "denoiser balance R = signal / noise", "1"),
    RecordField("signal", "mean over neurons of (|<w_r, mu_+1>| + |<w_r, mu_-1>|)/2", "units of w x"),
    RecordField("noise", "mean over neurons and samples of |<w_r, xi_i>|", "units of w x"),
    RecordField("grad_rel", "stationarity ||grad L(W_T)||_F / ||W_T||_F", "1"),
    RecordField("loss", "closed-form DSM loss at the end, minus its constant d", "squared units of x"),
    RecordField("gamma_max", "classification CNN: largest signal coefficient max_r gamma_r", "1"),
    RecordField("rho_max", "classification CNN: largest noise coefficient max_{r,i} rho_{r,i}", "1"),
    RecordField("signal_fraction", "classification CNN: gamma_max / (gamma_max + rho_max)", "fraction"),
    RecordField("test_error_cls", "classification CNN: test error", "fraction"),
)


def compare_balanced(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""Denoiser: stationarity (:math:`\|\nabla L\|/\|W\| \le 10^{-3}` at every point, demonstrated) and
    :math:`R \propto n^{a}\mathrm{SNR}^{b}` fitted jointly, :math:`(a, b)` = ``law.exponent("n")``,
    ``law.exponent("SNR")``, tolerance 0.15 (the :math:`O(\sqrt{n/d})` and :math:`O(\|\mu\|^2)` corrections
    of :mod:`.laws` bend the largest points by up to 20%)."""
    part = balanced_part(frame)
    a, b = float(law.exponent("n")), float(law.exponent("SNR"))
    ns, snrs, ratio = point_grid(part, "ratio")
    stationary = check_at_most(part["grad_rel"].to_numpy(float), 1e-3, mode="demonstrated",
                               name="stationary: ‖∇L‖/‖W‖ ≤ 1e-3")
    fit = check_power_law_2d(ns, snrs, ratio, (a, b), tolerance=0.15, name=f"R ∝ n^{a:g} SNR^{b:g}")
    return all_of(f"denoiser feature ratio ≍ {law.text()}", (a, b), [stationary, fit])


def balanced_ladder(frame: pd.DataFrame) -> list[dict[str, Any]]:
    r"""Rungs over :math:`n\,\mathrm{SNR}^2`, the size the law scales: at each point :math:`(n, \|\mu\|)` of the
    law's regime (:math:`\|\mu\| \le 1/2`), per seed :math:`R/(n\,\mathrm{SNR}^2)`, mean and 95% interval
    (:func:`~flt_theory.systems.frames.ladder_rung`); ``predicted`` the law's value over :math:`n\,\mathrm{SNR}^2`
    (1/2: the slope 1 and the derived constant). A law that holds along the ladder is a flat line at 1/2."""
    law, rungs = balanced_law(), []
    for (n, _), rows in balanced_part(frame).groupby(["n", "mu_norm"]):
        x, snr = float(rows["n_snr2"].iloc[0]), float(rows["snr"].iloc[0])
        rungs.append(ladder_rung({"n_snr2": x, "n": int(n)}, rows.sort_values("seed")["ratio"].to_numpy(float) / x,
                                 predicted=law.number(n=int(n), SNR=snr) / x))
    return sorted(rungs, key=lambda rung: rung["size"]["n_snr2"])


def compare_dominant(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""Classification CNN against ``law``: relation ``eq`` with ``law.numbers()`` = :math:`(\underline C, \bar C)`:
    the signal fraction :math:`\gamma/(\gamma+\rho)` is ≤ 0.1 at every point with :math:`n\,\mathrm{SNR}^2 \le
    \underline C` and ≥ 0.9 at every point with :math:`n\,\mathrm{SNR}^2 \ge \bar C`, read on the typical seed:
    the mean over seeds of its log-odds :math:`\log(\gamma/\rho)` is ≤ :math:`\log(1/9)`, resp. ≥ :math:`\log 9`
    (demonstrated). The dominant feature is learned with high probability, not on every draw: on 1 of 1080
    calibration runs the CNN at :math:`n\,\mathrm{SNR}^2 = 0.36` kept a signal fraction of 0.18 (the other 119
    seeds of that point: ≤ 0.09, typically 0.003); the mean *fraction* of its 6-seed set could not then be
    shown ≤ 0.1, while its log-odds — the scale on which seeds of one regime agree — could.
    The negative control is the same law with the thresholds read at :math:`n\,\mathrm{SNR}^2 = 1`
    (:data:`.laws.THRESHOLDS_AT_ONE`): it asks for the signal at :math:`1 \le n\,\mathrm{SNR}^2 < 2`, where the
    CNN learns the noise."""
    low, high = law.numbers()
    parts = []
    for _, _, rows in point_rows(frame):
        value, odds = float(rows["n_snr2"].iloc[0]), np.log(signal_noise_ratio(rows))
        if value <= low * (1 + 1e-9):  # n·SNR² is computed in floating point
            parts.append(check_at_most(odds, math.log(1 / 9), mode="demonstrated",
                                       name=f"n·SNR² = {value:.3g} ≤ C̲: noise learned, log(γ/ρ) ≤ log(1/9) "
                                            "(fraction ≤ 0.1)"))
        elif value >= high * (1 - 1e-9):
            parts.append(check_at_least(odds, math.log(9), mode="demonstrated",
                                        name=f"n·SNR² = {value:.3g} ≥ C̄: signal learned, log(γ/ρ) ≥ log 9 "
                                             "(fraction ≥ 0.9)"))
    if not parts:
        raise InvalidParameterError(f"no measured point outside ({low:g}, {high:g}): the grid does not test the law")
    return all_of("classification learns the dominant feature", (low, high), parts)


def hypothesis_values(point: Mapping[str, Any]) -> dict[str, Any]:
    r"""The symbols of the hypotheses at a normalised point of ``diffusion/features``: :math:`n, d`,
    :math:`\mathrm{SNR} = \|\mu\|` (:math:`\sigma_\xi = 1/\sqrt d`), the CNN's power :math:`q`, the denoiser's
    width :math:`m`, step :math:`\eta` and initialisation :math:`\sigma_0`, the patch norms :math:`\|\mu\|`
    (``mu_norm``) and :math:`\sigma_\xi\sqrt d` (``sigma_xi_sqrt_d``: 1 exactly, the experiment draws
    :math:`\sigma_\xi = 1/\sqrt d`; a point that gives ``sigma_xi`` is read with it).

    >>> v = hypothesis_values({"n": 16, "d": 500, "mu_norm": 0.5, "q": 2, "width": 8, "eta": 0.1, "sigma0": 0.01})
    >>> v["SNR"], v["sigma_xi_sqrt_d"]
    (0.5, 1.0)
    """
    sigma_xi = point.get("sigma_xi")
    return {"n": point["n"], "d": point["d"], "SNR": point["mu_norm"], "q": point["q"], "m": point["width"],
            "eta": point["eta"], "sigma0": point["sigma0"], "mu_norm": point["mu_norm"],
            "sigma_xi_sqrt_d": 1.0 if sigma_xi is None else sigma_xi * math.sqrt(point["d"])}


def _measurement() -> Measurement:
    def points(s: dict) -> list[dict]:
        grid = [(n, mu) for n in s["ns"] for mu in s["mus"]] + list(s["extra"])
        return [{"n": n, "d": s["d"], "mu_norm": mu, "steps": s["steps"], "eta": s["eta"],
                 "denoiser": int(mu <= BALANCED_MAX_MU)} for n, mu in grid]

    return Measurement(experiment="diffusion/features", points={k: points(v) for k, v in SIZES.items()},
                       seeds={k: v["seeds"] for k, v in SIZES.items()}, hypothesis_values=hypothesis_values)


def _claims() -> list[Claim]:
    grid = _measurement()
    return [
        Claim(name="balanced-features",
              words="the denoiser reaches a stationary point with |<w,μ>|/|<w,ξ>| ≍ n·SNR²/2 (slope 1 in n·SNR²)",
              law=balanced_law, wrong_law=functools.partial(balanced_law, 2), measurement=grid,
              compare=compare_balanced, ladder=balanced_ladder),
        Claim(name="classification-dominant",
              words="the ReLU² classification CNN learns the noise for n·SNR² ≤ 2 and the signal for n·SNR² ≥ 10",
              law=dominant_law, wrong_law=functools.partial(dominant_law, THRESHOLDS_AT_ONE), measurement=grid,
              compare=compare_dominant),
    ]


SYSTEM = System(
    name=NAME,
    title="Diffusion (denoising score matching) vs classification on two-patch signal-noise data",
    summary=("Patches x1 = mu_y (two orthogonal signals), x2 = xi; denoiser f_p(W, x) = (1/sqrt m) sum_r sigma(<w_r, "
             "x>) w_r with sigma(z) = z^2 trained by GD on the closed-form DSM loss at one diffusion time, against the "
             "ReLU^2 classification CNN of the signal-noise system. The denoiser balances features, |<w, mu>|/|<w, "
             "xi>| ~ n SNR^2 / 2; classification learns the signal or the noise, whichever dominates."),
    sources=(HAN, CAO),
    laws=diffusion_laws,
    claims=_claims(),
    experiments=("diffusion/features",),
    figures=(Figure(name="balanced-vs-dominant", claim="balanced-features",
                    caption="denoiser ratio and classification γ/ρ against n·SNR² with the law and the wrong law",
                    draw=draw_balanced, width=7.0, height=4.6),),
    simulate=SimulateCommand(
        fields=RECORD_FIELDS,
        experiment="diffusion/features",
        help=("Train the DSM denoiser (sigma = z^2, closed-form loss) and the ReLU^2 classification CNN on two-patch "
              "signal-noise data (sigma_xi = 1/sqrt d) for every n and ||mu|| (Han et al. 2025, arXiv 2412.01021). "
              "Records per seed: the denoiser's ratio |<w,mu>|/|<w,xi>|, its stationarity, and the CNN's gamma_max, "
              "rho_max and signal fraction."),
        options=(
            Option.of(P["n"], grid=True, help="Training samples, comma-separated."),
            Option.of(P["mu_norm"], grid=True, help="Signal norms ||mu|| (SNR = ||mu||)."),
            Option.of(P["d"], default=500),
            *(Option.of(P[name]) for name in ("width", "time", "eta", "steps")),
            Option(name="seeds", kind="int", default=4, minimum=1, help="Seeds 0..S-1."),
            DEVICE_OPTION,
        ),
        run=simulate_document,
    ),
)
