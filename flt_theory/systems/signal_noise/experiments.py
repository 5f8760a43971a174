r"""The signal-noise experiments (batched over seeds; one stored row per point and seed): the bisected boundary
:math:`\mathrm{SNR}^*`, the test-error curve, the early-phase growth and the label-noise curve, in a module of their
own so that their stored rows (fingerprinted by the source of each experiment and what it imports:
:mod:`flt_theory.runner.fingerprint`) do not change when a claim's comparison or sizes do (:mod:`.declaration`)."""

from __future__ import annotations

import math
from typing import Any

from ...errors import InvalidParameterError
from ...runner import experiment
from ...runner.cost import Cost
from . import model

__all__ = ["P", "boundary", "error_curve", "growth", "label_noise"]



def _eta_scale_to_eta(eta_scale: float, n: int, m: int, d: int) -> float:
    return eta_scale * n * m / d


def _flow_eta(p: dict[str, Any]) -> float:
    """The step a ``dynamics="flow"`` point stands for: none (``eta_scale`` must be 0); the run's config carries the
    step bound :math:`1/d` (unused by the flow)."""
    if p.get("eta_scale") != 0.0:
        raise InvalidParameterError(f"The 'eta_scale' parameter must be 0 with dynamics='flow' (the flow has no step). "
                                    f"Got {p.get('eta_scale')!r} instead.")
    return 1.0 / p["d"]


def _boundary_guard(params: dict[str, Any], seeds: int) -> None:
    """Refuse a ``signal-noise/boundary`` point whose dynamics and step do not go together, before anything runs:
    ``"gd"`` and ``"flow-projected"`` need a step ``0 < eta_scale`` (at most 1 for the projected flow, an integrator
    of the flow measured at 1/16); ``"flow"`` needs ``eta_scale = 0`` and ``max_time > 0``."""
    dynamics, scale = params.get("dynamics", "gd"), params["eta_scale"]
    where = f"experiment 'signal-noise/boundary' with dynamics={dynamics!r}"
    if dynamics == "flow":
        _flow_eta(params)
        if not params.get("max_time", 0.0) > 0:
            raise InvalidParameterError(f"The 'max_time' parameter of {where} must be > 0 (the natural time the flow "
                                        f"may run). Got {params.get('max_time', 0.0)!r} instead.")
    elif not 0 < scale <= (1.0 if dynamics == "flow-projected" else math.inf):
        bound = "0 < eta_scale <= 1" if dynamics == "flow-projected" else "eta_scale > 0"
        raise InvalidParameterError(
            f"The 'eta_scale' parameter of {where} must satisfy {bound}. Got {scale!r} instead.")


#: The declared parameters (:data:`.model.PARAMS`): each experiment's converters and defaults, the options' bounds
#: (``dynamics`` one of :data:`.model.DYNAMICS`; ``max_time`` in [0, 1e15], > 0 with ``dynamics="flow"``).
P = model.PARAMS


@experiment("signal-noise/boundary", guard=_boundary_guard,
            cost=Cost(memory="8*seeds*width*n*n + 8*seeds*n_test*width + 8*seeds*grid*n_test",
                      work="1e6*max_steps*iterations + max_steps*iterations*seeds*width*n*n + 1e6*max_steps*grid + "
                           "max_steps*grid*seeds*width*n*n + iterations*seeds*n_test*width + grid*seeds*n_test*width"),
            batched=True,
            params=P.subset("activation", "n", "d", "width", "sigma0_sqrt_d", "eta_scale", "eps", "max_steps", "n_test",
                            "level", "snr_low", "snr_high", "iterations", "grid", "grid_low", "grid_high", "dynamics",
                            "max_time", "rtol", eps=0.05, n_test=4000, grid=0))
def boundary(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Per-seed bisected :math:`\mathrm{SNR}^*` (final test error = ``level``), :math:`\sigma_0 = s_0/\sqrt d`,
    :math:`\eta = c\,nm/d`; with ``grid`` the test errors of the phase diagram (:func:`.model.boundary_rows`).
    With ``dynamics="flow"`` every run is the gradient flow (the limit :math:`\eta \to 0`) to :math:`L_S \le
    \varepsilon` or the natural time ``max_time``; ``eta_scale`` must then be 0 (no step) and ``max_steps`` only
    sizes the cost estimate (about the RHS evaluations of one run). With ``dynamics="flow-projected"`` (ReLU) every run
    is the same flow by projected Euler steps of :math:`\eta = c\,nm/d` (:data:`RELU_INSIDE`)."""
    _boundary_guard(params, len(seeds))
    p = dict(params)
    n, d, m = p.pop("n"), p.pop("d"), p.pop("width")
    eta_scale = p.pop("eta_scale")
    eta = _flow_eta(params) if p["dynamics"] == "flow" else _eta_scale_to_eta(eta_scale, n, m, d)
    sigma0 = p.pop("sigma0_sqrt_d") / math.sqrt(d)
    return model.boundary_rows(n=n, d=d, width=m, eta=eta, sigma0=sigma0, seeds=seeds, **p)


@experiment("signal-noise/error-curve",
            cost=Cost(memory="8*seeds*width*n*n + 8*seeds*n_test*width + 8*seeds*grid*n_test",
                      work="1e6*max_steps*grid + max_steps*grid*seeds*width*n*n + grid*seeds*n_test*width"),
            batched=True,
            params=P.subset("activation", "n", "d", "width", "sigma0_sqrt_d", "eta_scale", "eps", "max_steps", "n_test",
                            "x_low", "x_high", "grid", eps=0.05, max_steps=2000))
def error_curve(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Per seed, the final test error ``err_k`` at ``grid`` log-spaced :math:`X = n\|\mu\|^4/(\sigma_\xi^4 d)`
    (:func:`.model.error_curve_rows`), :math:`\sigma_0 = s_0/\sqrt d`, :math:`\eta = c\,nm/d`."""
    p = dict(params)
    n, d, m = p.pop("n"), p.pop("d"), p.pop("width")
    eta = _eta_scale_to_eta(p.pop("eta_scale"), n, m, d)
    sigma0 = p.pop("sigma0_sqrt_d") / math.sqrt(d)
    return model.error_curve_rows(n=n, d=d, width=m, eta=eta, sigma0=sigma0, seeds=seeds, **p)


@experiment("signal-noise/growth", cost=Cost(memory="8*seeds*width*n*n + 8*seeds*max_steps*width",
                                             work="1e6*max_steps + max_steps*seeds*width*n*n"),
            batched=True, params=P.subset("activation", "n", "d", "width", "snr", "sigma0_sqrt_d", "eta_scale",
                                          "label_noise", "max_steps", label_noise=0.0, max_steps=400))
def growth(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Early-phase slopes and growth exponents of :math:`\gamma`, :math:`\bar\rho`, :math:`A`, :math:`B`
    (:func:`.model.growth_rows`), with the run's ``eta``, ``mu_norm`` and ``sigma_xi`` (= 1) in every row."""
    n, d, m = params["n"], params["d"], params["width"]
    eta = _eta_scale_to_eta(params["eta_scale"], n, m, d)
    mu = params["snr"] * math.sqrt(d)
    rows = model.growth_rows(activation=params["activation"], n=n, d=d, width=m, mu_norm=mu,
                             sigma0=params["sigma0_sqrt_d"] / math.sqrt(d), eta=eta, label_noise=params["label_noise"],
                             max_steps=params["max_steps"], seeds=seeds)
    return [{**row, "eta": eta, "mu_norm": mu, "sigma_xi": 1.0} for row in rows]


@experiment("signal-noise/label-noise", cost=Cost(memory="8*seeds*width*n*n + 8*seeds*n_test*width + 8*seeds*max_steps",
                 work="1e6*max_steps + max_steps*seeds*width*n*n + max_steps*seeds*n_test*width"),
            batched=True,
            params=P.subset("n", "d", "n_snr2", "label_noise", "width", "eps", "max_steps", "n_test", "sigma0_sqrt_d",
                            "eta_scale", "record_every", eps=0.01, max_steps=20000, n_test=4000, sigma0_sqrt_d=0.01,
                            eta_scale=0.3, record_every=20))
def label_noise(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""ReLU with label noise at :math:`\mathrm{SNR} = \sqrt{n\mathrm{SNR}^2/n}`,
    :math:`\eta = c\min(nm/d, m/\|\mu\|^2)`: stage-I (minimum) and stage-II (final) test errors and the curve
    (:func:`.model.label_noise_rows`)."""
    n, d, m = params["n"], params["d"], params["width"]
    snr = math.sqrt(params["n_snr2"] / n)
    mu = snr * math.sqrt(d)
    eta = params["eta_scale"] * min(n * m / d, m / mu**2)
    rows = model.label_noise_rows(n=n, d=d, width=m, mu_norm=mu, sigma0=params["sigma0_sqrt_d"] / math.sqrt(d), eta=eta,
                                  label_noise=params["label_noise"], eps=params["eps"], max_steps=params["max_steps"],
                                  n_test=params["n_test"], record_every=params["record_every"], seeds=seeds)
    return [{**row, "snr": snr, "eta": eta} for row in rows]
