r"""``flt simulate lazy-rich``: train a two-layer net of each width in one parameterisation; how far :math:`W` moves.

Records, per width and seed: ``abs_change`` :math:`\|W(T) - W(0)\|_F`, ``rel_change`` (relative to
:math:`\|W(0)\|_F`), ``per_neuron_change`` (mean over neurons of :math:`\|w_i(T) - w_i(0)\|`) and ``train_loss``
(:mod:`.model`). With two widths or more and two seeds or more the document adds, per reading, the fitted slope
in :math:`N` (95% CI over seeds) next to the exponent the laws derive (:func:`.laws.change_exponent`); the slope and
its CI are ``None`` where a change is 0 (no log-log fit: ``W`` did not move in floating point, e.g. ``lr = 1e-300``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._text import json_ready, table
from ...compare import fit_power_law
from ...errors import FLTError, InvalidParameterError
from ..declaration import RecordField, check_finite_records
from .laws import READINGS, change_exponent
from .model import PARAMS, training_rows

__all__ = ["simulate_document", "simulate_table"]


def simulate_document(
    *, param: str = "ntk", widths: Sequence[int] = (64, 256, 1024), steps: int = 200, seeds: int = 4,
    activation: str = "tanh", target: str = "tanh(2*z)", d: int = 16, n: int = 64, lr: float = 1.0,
    device: str = "auto",
) -> dict[str, Any]:
    """The JSON document of the command (module docstring).

    >>> doc = simulate_document(widths=(16, 64), steps=5, seeds=2, device="cpu")
    >>> sorted(doc["records"][0]), doc["slopes"]["rel_change"]["predicted"]
    (['abs_change', 'param', 'per_neuron_change', 'rel_change', 'seed', 'train_loss', 'width'], -0.5)
    """
    if not widths:
        raise InvalidParameterError("--widths: must list at least one width. Got [] instead.")
    if seeds < 1:
        raise InvalidParameterError(f"--seeds: must be an int >= 1. Got {seeds} instead.")
    PARAMS.check_flags(dict(param=param, width=widths, steps=steps, d=d, n=n, lr=lr), "simulate_document",
                       flags={"width": "widths"})  # the declared ranges (.model.PARAMS), before anything runs
    records = []
    for width in widths:
        try:
            rows = training_rows(list(range(seeds)), width=width, param=param, d=d, n=n, steps=steps, lr=lr,
                                 activation=activation, target=target, device=device)
        except FLTError as exc:
            raise InvalidParameterError(f"--{_option(str(exc))}: {exc}") from exc
        records += [{"param": param, "width": width, "seed": s, **{k: row[k] for k in
                     ("abs_change", "rel_change", "per_neuron_change", "train_loss")}} for s, row in enumerate(rows)]
    slopes: dict[str, Any] = {}
    if len(set(widths)) >= 2 and seeds >= 2:
        x = np.asarray(widths, float)
        for reading in READINGS:
            y = np.array([[r[reading] for r in records if r["width"] == w] for w in widths]).T  # (seeds, widths)
            slopes[reading] = {"slope": None, "slope_ci": None, "predicted": float(change_exponent(reading, param))}
            if np.all(y > 0):  # a change of 0 has no logarithm: the slope is undefined, not an error
                fit = fit_power_law(x, y)
                slopes[reading].update(slope=fit.exponent, slope_ci=list(fit.cis[0]))
    config = {"param": param, "widths": list(widths), "steps": steps, "seeds": seeds, "activation": activation,
              "target": target, "d": d, "n": n, "lr": lr,
              "learning_rate": "lr" if param == "ntk" else "lr * N"}
    # NaN or inf in a record is an error (before json_ready turns it into null)
    return json_ready(check_finite_records({"system": "lazy-rich", "config": config, "records": records,
                                            "slopes": slopes}))


def _option(message: str) -> str:
    """The option an error message is about: the declared parameter it names, else the first of activation, target,
    lr, device it mentions."""
    named = PARAMS.option_named(message)
    if named:
        return {"width": "widths"}.get(named, named)
    return next((o for o in ("activation", "target", "lr", "device") if o in message), "training")


def simulate_table(document: dict[str, Any]) -> str:
    """The text form of :func:`simulate_document`'s result."""
    cfg = document["config"]
    rows = [["width", "seed", "abs_change", "rel_change", "per_neuron", "train_loss"]]
    rows += [[str(r["width"]), str(r["seed"]), f"{r['abs_change']:.5g}", f"{r['rel_change']:.5g}",
              f"{r['per_neuron_change']:.5g}", f"{r['train_loss']:.4g}"] for r in document["records"]]
    lines = [f"{cfg['param']} parameterisation, {cfg['activation']}, {cfg['steps']} GD steps (learning rate "
             f"{cfg['learning_rate']}, lr = {cfg['lr']:g}), d = {cfg['d']}, n = {cfg['n']}", table(rows)]
    if document["slopes"]:
        srows = [["reading", "slope in N", "95% CI", "predicted"]]
        for reading, s in document["slopes"].items():
            fitted = s["slope"] is not None
            ci = f"[{s['slope_ci'][0]:.4f}, {s['slope_ci'][1]:.4f}]" if fitted else "-"
            srows.append([reading, f"{s['slope']:.4f}" if fitted else "-", ci, f"{s['predicted']:g}"])
        lines += ["", table(srows)]
    return "\n".join(lines)


#: The fields of a record of ``flt simulate lazy-rich`` (one record per width and seed), shown by its ``--help``.
RECORD_FIELDS = (
    RecordField("param", "parameterisation: ntk (output scale N^-1/2) or mf (mean field, N^-1)", "label"),
    RecordField("width", "N: neurons of the hidden layer", "count"),
    RecordField("seed", "the run's seed", "index"),
    RecordField("abs_change", "||W(T) - W(0)||_F: how far the first layer moved in T steps", "units of W"),
    RecordField("rel_change", "||W(T) - W(0)||_F / ||W(0)||_F", "1"),
    RecordField("per_neuron_change", "mean over neurons of ||w_i(T) - w_i(0)||", "units of W"),
    RecordField("train_loss", "L(T): half the mean squared training error after T steps", "squared units of y"),
)
