r"""``flt simulate signal-noise`` and its Python twin :func:`simulate_document`.

For every ``n`` of ``--n`` and every :math:`\|\mu\|` of ``--mu-norm`` (the grid), full-batch GD on the
two-layer CNN (exact reduced dynamics, :func:`.model.run_records`) until the mean training loss is
:math:`\le` ``eps`` or ``max_steps``; one record per seed with ``n, d, width, q, mu_norm, snr, eta,
label_noise, seed, steps, train_loss, test_error, gamma_max, rho_max, flipped_fitted`` (and the run's
``sigma_xi, sigma0, eps, project``) and, with ``trajectory``, ``"trajectory"``: per-step records
``{step, train_loss, test_error, gamma_max, rho_max, flipped_fitted}`` (every ``record_every`` steps and
at the stop).

Defaults: :math:`\sigma_0 = 0.01/(\sigma_\xi\sqrt d)` (so :math:`\langle w^0,\xi\rangle \sim 0.01`) and
``eta="theory"`` :math:`= 0.3\min(nm/(\sigma_\xi^2 d),\ m/\|\mu\|^2)` per grid point (a stable step: the
per-step growth of :math:`\bar\rho` and of :math:`\gamma` stays below 0.15 in units of the output).
Bad input raises an :class:`~flt_theory.errors.FLTError` whose message starts with the option
(``--label-noise: ...``); the CLI prints it as one line and exits 2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..._text import table
from ...errors import FLTError, InvalidParameterError
from ...numeric.signal_noise import record_cells
from ...runner.cost import Cost
from ..cnn_fields import CNN_RECORD_FIELDS
from ..declaration import DEVICE_OPTION, Option, RecordField, SimulateCommand
from .model import PARAMS

__all__ = ["MAX_WORK", "SIMULATE", "simulate_document", "simulate_table", "theory_eta"]

#: Largest ``seeds * max_steps * width * n^2`` (multiply-adds of the reduced dynamics) per grid point.
MAX_WORK = 2e13


#: The fields of a record of ``flt simulate signal-noise --json`` (listed by its ``--help``).
RECORD_FIELDS = CNN_RECORD_FIELDS + (
    RecordField("label_noise", "fraction tau of training labels flipped", "fraction"),
    RecordField("flipped_fitted", "fraction of the flipped training labels the network fits (sign of its output)",
                "fraction"),
    RecordField("project", "whether the exact reduced (projected) dynamics was used", "bool"),
)


def theory_eta(n: int, d: int, width: int, mu_norm: float, sigma_xi: float = 1.0) -> float:
    r"""The default step :math:`0.3\min(nm/(\sigma_\xi^2 d),\ m/\|\mu\|^2)`.

    >>> theory_eta(100, 10**4, 20, 5.0)
    0.06
    """
    return 0.3 * min(n * width / (sigma_xi**2 * d), width / mu_norm**2)


def _blame(option: str, exc: Exception | str) -> InvalidParameterError:
    return InvalidParameterError(f"--{option}: {exc}")


def _validate(*, activation: str, n: Sequence[int], d: int, width: int, mu_norm: Sequence[float], sigma_xi: float,
              sigma0: float | None, eps: float, max_steps: int, label_noise: float, seeds: int, n_test: int,
              record_every: int) -> int:
    """The power ``q`` of ``activation``, after the declared ranges (:data:`.model.PARAMS`, refusals naming the
    option) and the joint conditions: ``d > n``, ``label_noise < 0.5``, the flips half per class, the work bound."""
    from ...numeric.signal_noise import activation_power

    try:
        q = activation_power(activation)
    except FLTError as exc:
        raise _blame("activation",
                     f"expected 'relu' or 'relu(z)**q' with an integer 1 <= q <= 8; got {activation!r}") from exc
    PARAMS.check_flags({"n": list(n), "d": d, "width": width, "mu_norm": list(mu_norm), "sigma_xi": sigma_xi,
                        "sigma0": sigma0, "eps": eps, "max_steps": max_steps, "label_noise": label_noise,
                        "seeds": seeds, "n_test": n_test, "record_every": record_every}, "simulate_document")
    if not label_noise < 0.5:
        raise InvalidParameterError(f"--label-noise: expected a fraction in [0, 0.5); got {label_noise}")
    if not all(x < d for x in n):
        raise InvalidParameterError(f"--d: expected d > n (the noise patches must be linearly independent); "
                                    f"got d = {d}, n = {max(n)}")
    for size in n:
        flips = round(label_noise * size)
        if flips - flips // 2 > size - size // 2 or flips // 2 > size // 2:
            raise InvalidParameterError(f"--label-noise: round({label_noise} * {size}) flips do not fit half per class")
        work = seeds * max(max_steps, 1) * width * size**2
        if work > MAX_WORK:
            raise InvalidParameterError(
                f"--max-steps: seeds*max_steps*width*n^2 = {work:.3g} at n = {size} exceeds {MAX_WORK:.0e}; use fewer "
                "--max-steps, --seeds, a smaller --width or --n")
    return q


def simulate_document(*, activation: str = "relu", n: Sequence[int], d: int, width: int = 20,
                      mu_norm: Sequence[float], sigma_xi: float = 1.0, sigma0: float | None = None,
                      eta: float | str = "theory", eps: float = 0.01, max_steps: int = 5000, label_noise: float = 0.0,
                      seeds: int = 3, trajectory: bool = False, n_test: int = 10_000, record_every: int = 1,
                      project: bool = True, device: str = "auto") -> dict[str, Any]:
    """What ``flt simulate signal-noise`` prints with ``--json`` (module docstring).

    >>> doc = simulate_document(n=[20], d=10**6, width=4, mu_norm=[100.0], max_steps=200, eps=0.05, seeds=2,
    ...                         n_test=500, device="cpu")
    >>> doc["system"], [r["seed"] for r in doc["records"]], doc["records"][0]["q"], doc["records"][0]["test_error"]
    ('signal-noise', [0, 1], 1, 0.0)
    >>> simulate_document(n=[20], d=10, mu_norm=[1.0])  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: --d: expected d > n (the noise patches must be linearly independent);
    got d = 10, n = 20
    """
    from ...numeric.backend import NonFiniteError, resolve_device
    from ...numeric.signal_noise import run_records

    n, mu_norm = tuple(int(x) for x in n), tuple(float(x) for x in mu_norm)
    q = _validate(activation=activation, n=n, d=d, width=width, mu_norm=mu_norm, sigma_xi=sigma_xi, sigma0=sigma0,
                  eps=eps, max_steps=max_steps, label_noise=label_noise, seeds=seeds, n_test=n_test,
                  record_every=record_every)
    if eta != "theory" and not (isinstance(eta, (int, float)) and math.isfinite(eta) and eta > 0):
        raise InvalidParameterError(f"--eta: expected a finite real > 0 or 'theory'; got {eta!r}")
    try:
        resolved = str(resolve_device(device))
    except FLTError as exc:
        raise _blame("device", exc) from exc
    s0 = sigma0 if sigma0 is not None else 0.01 / (sigma_xi * math.sqrt(d))
    records = []
    for size in n:
        for mu in mu_norm:
            step = theory_eta(size, d, width, mu, sigma_xi) if eta == "theory" else float(eta)
            try:
                records += run_records(activation=activation, n=size, d=d, width=width, mu_norm=mu, sigma_xi=sigma_xi,
                                       sigma0=s0, eta=step, eps=eps, max_steps=max_steps, label_noise=label_noise,
                                       seeds=seeds, n_test=n_test, project=project, trajectory=trajectory,
                                       record_every=record_every, device=resolved)
            except NonFiniteError as exc:
                raise InvalidParameterError(f"--eta: the GD diverged at n = {size}, ||mu|| = {mu:g}, eta = {step:g} "
                                            f"({exc}); use a smaller --eta") from exc
    config = {"activation": activation, "q": q, "n": list(n), "d": d, "width": width, "mu_norm": list(mu_norm),
              "sigma_xi": sigma_xi, "sigma0": s0, "eta": eta, "eps": eps, "max_steps": max_steps,
              "label_noise": label_noise, "seeds": seeds, "n_test": n_test, "project": project, "device": resolved}
    return {"system": "signal-noise", "records": records, "config": config}


def simulate_table(document: dict[str, Any]) -> str:
    """One aligned row per record (the trajectory, if any, is left to ``--json``)."""
    keys = ["n", "mu_norm", "snr", "seed", "eta", "steps", "train_loss", "test_error", "gamma_max", "rho_max",
            "flipped_fitted"]
    cfg = document["config"]
    head = (f"signal-noise: ReLU^{cfg['q']} CNN, d = {cfg['d']}, m = {cfg['width']}, sigma_xi = {cfg['sigma_xi']:g}, "
            f"sigma0 = {cfg['sigma0']:.3g}, label noise = {cfg['label_noise']:g}, stop at loss <= {cfg['eps']:g} "
            f"or {cfg['max_steps']} steps")
    return head + "\n" + table([keys] + record_cells(document["records"], keys))


SIMULATE = SimulateCommand(
    fields=RECORD_FIELDS,
    cost=Cost(memory="8*seeds*width*n*n + 32*seeds*n_test*width + 64*seeds*max_steps*width",
              work="1e6*max_steps + max_steps*seeds*width*n*n + seeds*n_test*width"),
    help=("Full-batch GD on the two-layer CNN of signal-noise data x = [y mu, xi] (Cao, Chen, Belkin, Gu 2022, "
          "arXiv 2202.06526; Kou, Chen, Chen, Gu 2023, arXiv 2303.04145), simulated exactly in the (gamma, rho) "
          "coordinates at any d, for every n and ||mu|| of the grid. One record per seed: steps, train loss, test "
          "error (exact in distribution, against the true label), max gamma (signal learning), max rho (noise "
          "memorisation), fraction of flipped labels fitted; --trajectory adds the per-step records."),
    options=(
        Option(name="activation", default="relu", help="'relu' or 'relu(z)**q' (q = 1..8), the filters' activation."),
        Option.of(PARAMS["n"], grid=True, required=True,
                  help="Training samples, comma-separated for a grid: 32,64,128."),
        Option.of(PARAMS["d"], required=True, help="Dimension d (> n; any size, the cost does not depend on it)."),
        Option.of(PARAMS["width"], default=20),
        Option.of(PARAMS["mu_norm"], grid=True, required=True,
                  help="Signal norm(s) ||mu||, comma-separated for a grid."),
        Option.of(PARAMS["sigma_xi"]),
        Option.of(PARAMS["sigma0"]),
        Option(name="eta", kind="eta", default="theory",
               help="GD step: a number > 0, or 'theory' = 0.3 min(n m/(sigma_xi^2 d), m/||mu||^2)."),
        Option.of(PARAMS["eps"], default=0.01),
        Option.of(PARAMS["max_steps"], default=5000),
        Option.of(PARAMS["label_noise"], default=0.0),
        Option.of(PARAMS["seeds"]),
        Option(name="trajectory", kind="flag", help="Add the per-step records under 'trajectory'."),
        Option.of(PARAMS["record_every"], default=1, help="With --trajectory: record every that many steps."),
        Option.of(PARAMS["n_test"], default=10_000),
        DEVICE_OPTION,
    ),
    run=simulate_document,
    table=simulate_table,
)
