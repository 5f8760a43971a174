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
from ...numeric.signal_noise import record_cells
from ..cnn_fields import CNN_RECORD_FIELDS
from ..declaration import DEVICE_OPTION, Option, RecordField, SimulateCommand
from .model import PARAMS, sparsity_refusal

__all__ = ["MAX_WORK", "SIMULATE", "simulate_document", "simulate_table"]

#: Largest ``seeds * max_steps * width * n * (s or d)`` (multiply-adds of one pass) per run.
MAX_WORK = 5e12


def _check(option: str, ok: bool, message: str) -> None:
    if not ok:
        raise InvalidParameterError(f"--{option}: {message}")


def _validate(*, optimizer: str, activation: str, n: int, d: int, width: int, sparsity: int | None, mu_norm: float,
              sigma_xi: float, sigma0: float | None, feature_noise: float, eta: float | str, eps: float, max_steps: int,
              beta1: float, beta2: float, adam_eps: float, sam_radius: float, flip_prob: float, seeds: int,
              record_every: int, n_test: int) -> int:
    """The power ``q`` of ``activation``, after the declared ranges (:data:`.model.PARAMS`, refusals naming the
    option) and the joint conditions: ``d > n``, dense ``d <= 20000``, ``sparsity < d``, the open upper ends
    (:func:`.model.check_open_ends`), the work bound."""
    from ...numeric.signal_noise import activation_power
    from .model import MAX_DENSE_D, check_open_ends

    values = dict(optimizer=optimizer, n=n, d=d, width=width, sparsity=sparsity, mu_norm=mu_norm, sigma_xi=sigma_xi,
                  sigma0=sigma0, feature_noise=feature_noise, eps=eps, max_steps=max_steps, beta1=beta1, beta2=beta2,
                  adam_eps=adam_eps, sam_radius=sam_radius, flip_prob=flip_prob, seeds=seeds, record_every=record_every,
                  n_test=n_test, **({} if eta == "theory" else {"eta": eta}))
    PARAMS.check_flags(values, "simulate_document")
    check_open_ends(values, "simulate_document", flags=True)
    try:
        q = activation_power(activation)
    except FLTError as exc:
        raise InvalidParameterError(f"--activation: expected 'relu' or 'relu(z)**q' with an integer 1 <= q <= 8; "
                                    f"got {activation!r}") from exc
    _check("d", d > n, f"expected d > n; got d = {d}, n = {n}")
    _check("d", sparsity is not None or d <= MAX_DENSE_D,
           f"dense noise runs in R^d: expected d <= {MAX_DENSE_D} (or give --sparsity); got {d}")
    _check("sparsity", sparsity is None or sparsity <= d - 1, f"expected an integer in [1, d - 1]; got {sparsity}")
    refusal = None if sparsity is None else sparsity_refusal(sparsity, d)
    _check("sparsity", refusal is None, f"{refusal} (or a larger --d)")
    work = seeds * max(max_steps, 1) * width * n * (sparsity or d)
    _check("max-steps", work <= MAX_WORK, f"seeds*max_steps*width*n*(s or d) = {work:.3g} exceeds {MAX_WORK:.0e}; "
                                          "use fewer --max-steps, --seeds, a smaller --width, --n or --d")
    return q


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


def simulate_document(*, optimizer: str = "gd", activation: str = "relu", n: int = 20, d: int = 1000, width: int = 10,
                      sparsity: int | None = None, mu_norm: float = 2.0, sigma_xi: float = 1.0,
                      sigma0: float | None = None, feature_noise: float = 0.0, eta: float | str = "theory",
                      eps: float = 0.01, max_steps: int = 2000, beta1: float = 0.9, beta2: float = 0.999,
                      adam_eps: float = 1e-8, sam_radius: float = 0.05, flip_prob: float = 0.1, seeds: int = 3,
                      trajectory: bool = False, record_every: int = 10, n_test: int = 2000,
                      device: str = "auto") -> dict[str, Any]:
    """What ``flt simulate signal-noise-optimizers`` prints with ``--json`` (module docstring).

    >>> doc = simulate_document(optimizer="sign-gd", activation="relu(z)**3", n=20, d=10**6, width=4, sparsity=6,
    ...                         mu_norm=1.0, feature_noise=0.2, eta=0.01, max_steps=30, seeds=2, n_test=200,
    ...                         device="cpu")
    >>> first = doc["records"][0]
    >>> doc["system"], [r["seed"] for r in doc["records"]], first["optimizer"], first["sparsity"]
    ('signal-noise-optimizers', [0, 1], 'sign-gd', 6)
    >>> simulate_document(optimizer="sam", sam_radius=-1.0)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: --sam-radius: The 'sam_radius' parameter of simulate_document must be a
    finite real number > 0. Got -1.0 instead.
    """
    from ...numeric.backend import NonFiniteError, resolve_device
    from ...numeric.signal_noise import snr
    from .model import OptimizerConfig, final_columns, make_data, train

    q = _validate(optimizer=optimizer, activation=activation, n=n, d=d, width=width, sparsity=sparsity, mu_norm=mu_norm,
                  sigma_xi=sigma_xi, sigma0=sigma0, feature_noise=feature_noise, eta=eta, eps=eps, max_steps=max_steps,
                  beta1=beta1, beta2=beta2, adam_eps=adam_eps, sam_radius=sam_radius, flip_prob=flip_prob, seeds=seeds,
                  record_every=record_every, n_test=n_test)
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
        raise InvalidParameterError(f"--eta: the {optimizer} run diverged at eta = {eta:g} ({exc}); "
                                    "use a smaller --eta") from exc
    cols = final_columns(run)
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
    return head + "\n" + table([keys] + record_cells(document["records"], keys))


SIMULATE = SimulateCommand(
    fields=RECORD_FIELDS,
    experiment="optimizers/run",
    help=("Train the two-layer CNN of signal-noise data x = [y mu, xi] with GD, Adam, sign-GD, SAM or label-noise GD "
          "(Zou, Cao, Li, Gu 2023, arXiv 2108.11371; Chen et al. 2023, arXiv 2310.07269; Huang et al. 2025), on dense "
          "or sparse (--sparsity s) noise, in R^d (sparse noise: reduced exactly to the training supports, any d). One "
          "record per seed: optimizer and hyper-parameters, steps, training loss, test error, max gamma (signal), "
          "rho_bar and max rho (noise memorisation); --trajectory adds per-step records."),
    options=(
        Option.of(PARAMS["optimizer"], default="gd"),
        Option.of(PARAMS["activation"], default="relu"),
        Option.of(PARAMS["n"], default=20),
        Option.of(PARAMS["d"], default=1000),
        Option.of(PARAMS["width"], default=10),
        Option.of(PARAMS["sparsity"],
                  help="s nonzero noise coordinates (Zou et al.'s sparse model; default: dense noise). [count]"),
        Option.of(PARAMS["mu_norm"], default=2.0),
        Option.of(PARAMS["sigma_xi"]),
        Option.of(PARAMS["sigma0"]),
        Option.of(PARAMS["feature_noise"]),
        Option(name="eta", kind="eta", default="theory",
               help="Step: a number > 0, or 'theory' (GD family 0.3 min(n m/(sigma_xi^2 d), m/||mu||^2); Adam, "
                    "sign-GD 0.01)."),
        Option.of(PARAMS["eps"], default=0.01),
        Option.of(PARAMS["max_steps"], default=2000),
        *(Option.of(PARAMS[name]) for name in ("beta1", "beta2", "adam_eps", "sam_radius", "flip_prob", "seeds")),
        Option(name="trajectory", kind="flag", help="Add the per-step records under 'trajectory'."),
        Option.of(PARAMS["record_every"], default=10, help="With --trajectory: record every that many steps. [steps]"),
        Option.of(PARAMS["n_test"]),
        DEVICE_OPTION,
    ),
    run=simulate_document,
    table=simulate_table,
)
