r"""``flt simulate signal-noise-optimizers`` and its Python twin :func:`simulate_document`.

One optimizer (``--optimizer gd | adam | sign-gd | sam | label-noise-gd``) on the signal-noise CNN
(:mod:`.model`), dense noise or, with ``--sparsity s``, Zou et al.'s sparse noise; one record per seed with
``optimizer`` and its hyper-parameters (``beta1, beta2, adam_eps`` for Adam, ``sam_radius`` for SAM,
``flip_prob`` for label-noise GD), ``n, d, width, q, sparsity, mu_norm, snr, sigma_xi, sigma0, feature_noise,
eta, seed, steps, train_loss, train_error, test_error, gamma_max, rho_bar, rho_max`` and, with ``trajectory``,
``"trajectory"``: ``{step, train_loss, test_error, gamma_max, rho_bar, rho_max}`` every ``record_every`` steps.

Defaults: :math:`\sigma_0 = 0.01/(\sigma_\xi\sqrt d)` and ``eta="theory"`` = :math:`0.3\min(nm/(\sigma_\xi^2 d),
m/\|\mu\|^2)` for the GD family; Adam and sign-GD take ``eta = 0.01`` by default (their step is per coordinate).
Bad input raises an :class:`~flt_theory.errors.FLTError` whose message starts with the option.
"""

from __future__ import annotations

import math
from typing import Any

from ..._text import table
from ...errors import FLTError, InvalidParameterError
from ..cnn_fields import CNN_RECORD_FIELDS
from ..declaration import DEVICE_OPTION, Option, RecordField, SimulateCommand

__all__ = ["MAX_WORK", "SIMULATE", "simulate_document", "simulate_table"]

#: Largest ``seeds * max_steps * width * n * (s or d)`` (multiply-adds of one pass) per run.
MAX_WORK = 5e12


def _check(option: str, ok: bool, message: str) -> None:
    if not ok:
        raise InvalidParameterError(f"--{option}: {message}")


def simulate_document(*, optimizer: str = "gd", activation: str = "relu", n: int = 20, d: int = 1000, width: int = 10,
                      sparsity: int | None = None, mu_norm: float = 2.0, sigma_xi: float = 1.0,
                      sigma0: float | None = None, feature_noise: float = 0.0, eta: float | str = "theory",
                      eps: float = 0.01, max_steps: int = 2000, beta1: float = 0.9, beta2: float = 0.999,
                      adam_eps: float = 1e-8, sam_radius: float = 0.05, flip_prob: float = 0.1, seeds: int = 3,
                      trajectory: bool = False, record_every: int = 10, n_test: int = 2000,
                      device: str = "auto") -> dict[str, Any]:
    """What ``flt simulate signal-noise-optimizers`` prints with ``--json`` (module docstring).

    >>> doc = simulate_document(optimizer="sign-gd", activation="relu(z)**3", n=20, d=10**6, width=4, sparsity=6,
    ...                         mu_norm=1.0, feature_noise=0.2, eta=0.01, max_steps=30, seeds=2, n_test=200, device="cpu")
    >>> doc["system"], [r["seed"] for r in doc["records"]], doc["records"][0]["optimizer"], doc["records"][0]["sparsity"]
    ('signal-noise-optimizers', [0, 1], 'sign-gd', 6)
    >>> simulate_document(optimizer="sam", sam_radius=-1.0)
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: --sam-radius: expected a finite real > 0; got -1.0
    """
    from ...numeric.backend import NonFiniteError, resolve_device
    from ...numeric.signal_noise import activation_power, snr
    from .model import OPTIMIZERS, OptimizerConfig, make_data, train

    _check("optimizer", optimizer in OPTIMIZERS, f"expected one of {', '.join(OPTIMIZERS)}; got {optimizer!r}")
    try:
        q = activation_power(activation)
    except FLTError as exc:
        raise InvalidParameterError(f"--activation: expected 'relu' or 'relu(z)**q' with an integer 1 <= q <= 8; "
                                    f"got {activation!r}") from exc
    finite = lambda x: isinstance(x, (int, float)) and math.isfinite(x)  # noqa: E731
    _check("n", n >= 2, f"expected an integer >= 2; got {n}")
    _check("d", d > n, f"expected d > n; got d = {d}, n = {n}")
    _check("d", sparsity is not None or d <= 20_000, f"dense noise runs in R^d: expected d <= 20000 (or give --sparsity); got {d}")
    _check("width", width >= 1, f"expected an integer >= 1; got {width}")
    _check("sparsity", sparsity is None or 1 <= sparsity <= d - 1, f"expected an integer in [1, d - 1]; got {sparsity}")
    for option, value in (("mu-norm", mu_norm), ("sigma-xi", sigma_xi)):
        _check(option, finite(value) and value > 0, f"expected a finite real > 0; got {value}")
    _check("sigma0", sigma0 is None or (finite(sigma0) and sigma0 > 0), f"expected a finite real > 0; got {sigma0}")
    _check("feature-noise", finite(feature_noise) and feature_noise >= 0, f"expected a finite real >= 0; got {feature_noise}")
    _check("eta", eta == "theory" or (finite(eta) and eta > 0), f"expected a finite real > 0 or 'theory'; got {eta!r}")
    _check("eps", finite(eps) and eps >= 0, f"expected a real >= 0; got {eps}")
    _check("max-steps", max_steps >= 0, f"expected an integer >= 0; got {max_steps}")
    _check("beta1", finite(beta1) and 0 <= beta1 < 1, f"expected a real in [0, 1); got {beta1}")
    _check("beta2", finite(beta2) and 0 <= beta2 < 1, f"expected a real in [0, 1); got {beta2}")
    _check("adam-eps", finite(adam_eps) and adam_eps >= 0, f"expected a real >= 0; got {adam_eps}")
    _check("sam-radius", finite(sam_radius) and sam_radius > 0, f"expected a finite real > 0; got {sam_radius}")
    _check("flip-prob", finite(flip_prob) and 0 <= flip_prob < 0.5, f"expected a probability in [0, 0.5); got {flip_prob}")
    _check("seeds", seeds >= 1, f"expected an integer >= 1; got {seeds}")
    _check("n-test", n_test >= 1, f"expected an integer >= 1; got {n_test}")
    _check("record-every", record_every >= 1, f"expected an integer >= 1; got {record_every}")
    work = seeds * max(max_steps, 1) * width * n * (sparsity or d)
    _check("max-steps", work <= MAX_WORK, f"seeds*max_steps*width*n*(s or d) = {work:.3g} exceeds {MAX_WORK:.0e}; "
                                          "use fewer --max-steps, --seeds, a smaller --width, --n or --d")
    try:
        resolved = str(resolve_device(device))
    except FLTError as exc:
        raise InvalidParameterError(f"--device: {exc}") from exc
    s0 = sigma0 if sigma0 is not None else 0.01 / (sigma_xi * math.sqrt(d))
    if eta == "theory":
        eta = 0.01 if optimizer in ("adam", "sign-gd") else 0.3 * min(n * width / (sigma_xi**2 * d), width / mu_norm**2)
    cfg = OptimizerConfig(optimizer=optimizer, eta=float(eta), max_steps=max_steps, eps=eps, beta1=beta1, beta2=beta2,
                          adam_eps=adam_eps, sam_radius=sam_radius, flip_prob=flip_prob)
    data = make_data(seeds, n=n, d=d, width=width, activation=q, sparsity=sparsity, mu_norm=mu_norm, sigma_xi=sigma_xi,
                     sigma0=s0, feature_noise=feature_noise, n_test=n_test, device=resolved)
    try:
        run = train(data, cfg, record_every=record_every if trajectory else 0)
    except NonFiniteError as exc:
        raise InvalidParameterError(f"--eta: the {optimizer} run diverged at eta = {eta:g} ({exc}); use a smaller --eta") from exc
    from .model import _rho_summaries

    rho_bar, rho_max = _rho_summaries(data, run.rho)
    cols = {"steps": run.steps, "train_loss": run.train_loss, "train_error": run.train_error, "test_error": run.test_error,
            "gamma_max": run.gamma.amax(-1), "rho_bar": rho_bar, "rho_max": rho_max}
    cols = {k: v.detach().cpu().tolist() for k, v in cols.items()}
    base = {"optimizer": optimizer, **cfg.hyper_parameters(), "n": n, "d": d, "width": width, "q": q,
            "sparsity": sparsity or 0, "mu_norm": mu_norm, "snr": snr(mu_norm, sigma_xi, d), "sigma_xi": sigma_xi,
            "sigma0": s0, "feature_noise": feature_noise, "eta": float(eta), "eps": eps}
    records = []
    for s, seed in enumerate(data.seeds):
        rec = {**base, "seed": seed, **{k: (int(v[s]) if k == "steps" else float(v[s])) for k, v in cols.items()}}
        if run.trajectory is not None:
            traj = {k: v.detach().cpu() for k, v in run.trajectory.items()}
            rec["trajectory"] = [{"step": int(traj["time"][i, s]), **{k: float(traj[k][i, s]) for k in
                                  ("train_loss", "test_error", "gamma_max", "rho_bar", "rho_max")}}
                                 for i in range(traj["time"].shape[0]) if int(traj["time"][i, s]) <= int(run.steps[s])]
        records.append(rec)
    return {"system": "signal-noise-optimizers", "records": records,
            "config": {**base, "seeds": seeds, "max_steps": max_steps, "n_test": n_test, "device": resolved}}


def simulate_table(document: dict[str, Any]) -> str:
    """One aligned row per record (the trajectory, if any, is left to ``--json``)."""
    keys = ["seed", "steps", "train_loss", "test_error", "gamma_max", "rho_bar", "rho_max"]
    cfg = document["config"]
    noise = f"sparse noise s = {cfg['sparsity']}" if cfg["sparsity"] else "dense noise"
    head = (f"signal-noise-optimizers: {cfg['optimizer']} on the ReLU^{cfg['q']} CNN, n = {cfg['n']}, d = {cfg['d']}, "
            f"m = {cfg['width']}, ||mu|| = {cfg['mu_norm']:g}, {noise}, eta = {cfg['eta']:.3g}")
    rows = [keys] + [[f"{r[k]:.4g}" if isinstance(r[k], float) else str(r[k]) for k in keys] for r in document["records"]]
    return head + "\n" + table(rows)


#: The fields of a record of ``flt simulate signal-noise-optimizers --json`` (listed by its ``--help``).
RECORD_FIELDS = CNN_RECORD_FIELDS + (
    RecordField("optimizer", "gd, adam, sign-gd, sam or label-noise-gd", "label"),
    RecordField("sparsity", "s nonzero noise coordinates (0: dense noise)", "count"),
    RecordField("feature_noise", "alpha of the feature noise -alpha y mu in the noise patch", "1"),
    RecordField("rho_bar", "mean over samples of max_r rho_{y_i,r,i}", "1"),
    RecordField("train_error", "0-1 training error at the stop", "fraction"),
    RecordField("beta1", "(adam) Adam's beta1", "1"),
    RecordField("beta2", "(adam) Adam's beta2", "1"),
    RecordField("adam_eps", "(adam) Adam's epsilon", "1"),
    RecordField("sam_radius", "(sam) SAM's radius tau", "units of w"),
    RecordField("flip_prob", "(label-noise-gd) per-step label flip probability", "fraction"),
)

SIMULATE = SimulateCommand(
    fields=RECORD_FIELDS,
    experiment="optimizers/run",
    help=("Train the two-layer CNN of signal-noise data x = [y mu, xi] with GD, Adam, sign-GD, SAM or label-noise GD "
          "(Zou, Cao, Li, Gu 2023, arXiv 2108.11371; Chen et al. 2023, arXiv 2310.07269; Huang et al. 2025), on dense "
          "or sparse (--sparsity s) noise, in R^d (sparse noise: reduced exactly to the training supports, any d). One "
          "record per seed: optimizer and hyper-parameters, steps, training loss, test error, max gamma (signal), "
          "rho_bar and max rho (noise memorisation); --trajectory adds per-step records."),
    options=(
        Option(name="optimizer", kind="choice", choices=("gd", "adam", "sign-gd", "sam", "label-noise-gd"), default="gd",
               help="Training algorithm."),
        Option(name="activation", default="relu", help="'relu' or 'relu(z)**q' (q = 1..8)."),
        Option(name="n", kind="int", default=20, help="Training samples."),
        Option(name="d", kind="int", default=1000, help="Dimension (dense noise: <= 20000)."),
        Option(name="width", kind="int", default=10, help="Filters per class m."),
        Option(name="sparsity", kind="int", default=None, help="s nonzero noise coordinates (Zou et al.'s sparse model)."),
        Option(name="mu-norm", kind="float", default=2.0, help="Signal norm ||mu||."),
        Option(name="sigma-xi", kind="float", default=1.0, help="Noise scale sigma_xi."),
        Option(name="sigma0", kind="float", default=None, help="Initialisation scale (default 0.01/(sigma_xi sqrt(d)))."),
        Option(name="feature-noise", kind="float", default=0.0, help="alpha of the feature noise -alpha y mu in the noise patch."),
        Option(name="eta", kind="eta", default="theory",
               help="Step: a number > 0, or 'theory' (GD family 0.3 min(n m/(sigma_xi^2 d), m/||mu||^2); Adam, sign-GD 0.01)."),
        Option(name="eps", kind="float", default=0.01, help="Stop once the clean training loss is <= eps (0: never)."),
        Option(name="max-steps", kind="int", default=2000, help="Step limit."),
        Option(name="beta1", kind="float", default=0.9, help="Adam's beta1."),
        Option(name="beta2", kind="float", default=0.999, help="Adam's beta2."),
        Option(name="adam-eps", kind="float", default=1e-8, help="Adam's epsilon."),
        Option(name="sam-radius", kind="float", default=0.05, help="SAM's radius tau."),
        Option(name="flip-prob", kind="float", default=0.1, help="Label-noise GD's per-step flip probability."),
        Option(name="seeds", kind="int", default=3, help="Independent runs (seeds 0..S-1)."),
        Option(name="trajectory", kind="flag", help="Add the per-step records under 'trajectory'."),
        Option(name="record-every", kind="int", default=10, help="With --trajectory: record every that many steps."),
        Option(name="n-test", kind="int", default=2000, help="Test draws per seed."),
        DEVICE_OPTION,
    ),
    run=simulate_document,
    table=simulate_table,
)
