r"""``flt simulate one-step-ba``: random features vs one large step (Ba et al. 2022, arXiv 2205.01445).

Records, per :math:`\tilde\eta` and seed: ``risk`` (the network's test risk after one step of size
:math:`\eta = \tilde\eta\sqrt N` and a ridge readout; :math:`\tilde\eta = 0` is random features),
``linear_risk`` (tuned linear ridge), ``spike_alignment`` (:math:`|\langle u_1, \beta^*\rangle|`), and the
predictions of :mod:`.laws`: ``p_gt1_norm2`` :math:`= \|P_{>1}f^*\|^2` and ``predicted_alignment``. The document
adds, per :math:`\tilde\eta`, the mean risk with its 95% CI over seeds and whether it is below
:math:`\|P_{>1}f^*\|^2` (the whole CI below: ``"below"``; the whole CI above: ``"above"``; else ``"undecided"``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._text import json_ready, table
from ...compare import mean_ci
from ...errors import DivergenceError, FLTError, InvalidParameterError
from ..declaration import RecordField, check_finite_records
from .laws import NOISE, PSI, p_gt1_norm2, spike_alignment_law
from .model import PARAMS, one_step_ba

__all__ = ["parse_ridge", "simulate_document", "simulate_table"]


def parse_ridge(text: str | float) -> float | str:
    """``"auto"`` or a number > 0 (the ``--ridge`` option, as declared in :data:`.model.PARAMS`).

    >>> parse_ridge("auto"), parse_ridge("0.5")
    ('auto', 0.5)
    """
    try:
        return PARAMS["ridge"](text)
    except FLTError as exc:
        raise InvalidParameterError(f"--ridge: {exc}") from None


def simulate_document(
    *, target: str = "tanh", activation: str = "tanh", d: int = 128, psi: float = 4.0,
    eta_tilde: Sequence[float] = (0.0, 1.0, 2.0, 4.0), ridge: str | float = "auto", seeds: int = 4, noise: float = 0.0,
    n_test: int = 8192, device: str = "auto",
) -> dict[str, Any]:
    """The JSON document of the command (module docstring).

    >>> doc = simulate_document(d=16, psi=2, eta_tilde=(0, 1), seeds=2, n_test=512, device="cpu")
    >>> sorted(doc["records"][0])[:6]
    ['d', 'eta_tilde', 'linear_risk', 'n', 'p_gt1_norm2', 'predicted_alignment']
    """
    ridge = parse_ridge(ridge)
    try:
        bound = float(p_gt1_norm2(target))
    except FLTError as exc:
        raise InvalidParameterError(f"--target: {exc}") from exc
    try:
        predicted = float(spike_alignment_law(target, activation).subs({PSI: psi, NOISE: noise}))
    except FLTError as exc:
        raise InvalidParameterError(f"--activation: {exc}") from exc
    except TypeError:
        predicted = None
    if predicted is not None and not math.isfinite(predicted):  # a prediction, not an observable: null, not an error
        predicted = None
    if seeds < 1:
        raise InvalidParameterError(f"--seeds: must be an int >= 1. Got {seeds} instead.")
    try:
        res = one_step_ba(target, d=d, psi=psi, eta_tilde=tuple(eta_tilde), seeds=seeds, activation=activation,
                          ridge=ridge, noise=noise, n_test=n_test, device=device)
    except DivergenceError:  # NaN or inf in the step: ``flt simulate`` names the options given, the most extreme first
        raise
    except FLTError as exc:
        text = str(exc)
        option = PARAMS.option_named(text, "device" if "'device'" in text else "one-step")
        raise InvalidParameterError(f"--{option}: {text}") from exc
    cfg = res.config
    risk, lin, align = (np.asarray(t.cpu(), float) for t in (res.risk, res.linear_risk, res.spike_alignment))
    records = [{"d": cfg.d, "width": cfg.width, "n": cfg.n, "psi": psi, "eta_tilde": float(e), "seed": s,
                "risk": risk[s, i], "linear_risk": lin[s], "spike_alignment": align[s], "p_gt1_norm2": bound,
                "predicted_alignment": predicted, "ridge": float(res.ridge[s, i])}
               for i, e in enumerate(cfg.eta_tilde) for s in range(seeds)]
    summary = []
    for i, e in enumerate(cfg.eta_tilde):
        entry: dict[str, float | str | list[float] | None] = {
            "eta_tilde": float(e), "risk": float(risk[:, i].mean()), "risk_ci": None, "vs_p_gt1": "undecided"}
        if seeds >= 2:
            est = mean_ci(risk[:, i])
            entry["risk_ci"] = list(est.ci)
            entry["vs_p_gt1"] = "below" if est.high < bound else ("above" if est.low > bound else "undecided")
        summary.append(entry)
    config = {"target": target, "activation": activation, "d": cfg.d, "width": cfg.width, "n": cfg.n, "psi": psi,
              "eta_tilde": list(cfg.eta_tilde), "ridge": ridge, "seeds": seeds, "noise": noise, "n_test": n_test,
              "step": "W1 = W0 - eta sqrt(N) grad, eta = eta_tilde sqrt(N)"}
    # NaN or inf in a record is an error (before json_ready turns it into null)
    return json_ready(check_finite_records({"system": "one-step-ba", "config": config, "records": records,
                                            "summary": summary, "p_gt1_norm2": bound,
                                            "predicted_alignment": predicted}))


def simulate_table(document: dict[str, Any]) -> str:
    """The text form of :func:`simulate_document`'s result."""
    cfg = document["config"]
    rows = [["eta_tilde", "risk", "95% CI", "vs ||P>1 f*||^2"]]
    for s in document["summary"]:
        ci = "-" if s["risk_ci"] is None else f"[{s['risk_ci'][0]:.4g}, {s['risk_ci'][1]:.4g}]"
        rows.append([f"{s['eta_tilde']:g}", f"{s['risk']:.4g}", ci, s["vs_p_gt1"]])
    recs = document["records"]
    lin = np.mean([r["linear_risk"] for r in recs if r["eta_tilde"] == recs[0]["eta_tilde"]])
    align = np.mean([r["spike_alignment"] for r in recs if r["eta_tilde"] == recs[0]["eta_tilde"]])
    pred = document["predicted_alignment"]
    head = [
        ("target", f"f* = {cfg['target']}(<x, beta*>), student {cfg['activation']}, d = N = {cfg['d']}, n = {cfg['n']} "
                   f"(psi = {cfg['psi']:g}), ridge {cfg['ridge']}, {cfg['seeds']} seeds"),
        ("||P>1 f*||^2", f"{document['p_gt1_norm2']:.6g}"),
        ("linear ridge", f"{lin:.4g}"),
        ("alignment", f"{align:.4f} (predicted {'-' if pred is None else f'{pred:.4f}'})"),
    ]
    return table(head) + "\n\n" + table(rows)


#: The fields of a record of ``flt simulate one-step-ba`` (one record per step size and seed), shown by its ``--help``.
RECORD_FIELDS = (
    RecordField("d", "input dimension", "count"),
    RecordField("width", "N: neurons of the first layer (N = d)", "count"),
    RecordField("n", "samples of the step and of the readout, ceil(psi d)", "count"),
    RecordField("psi", "sample ratio n/d", "1"),
    RecordField("eta_tilde", "step size in units of sqrt(N): eta = eta_tilde sqrt(N); 0 is random features", "1"),
    RecordField("seed", "the run's seed", "index"),
    RecordField("risk", "test risk of the network after one step and the ridge readout", "squared units of y"),
    RecordField("linear_risk", "test risk of the tuned linear ridge on (x, 1)", "squared units of y"),
    RecordField("spike_alignment", "|<u_1, beta*>|: top left singular vector of the update vs the teacher", "1"),
    RecordField("p_gt1_norm2", "||P_>1 f*||^2: the risk of the best linear predictor, predicted", "squared units of y"),
    RecordField("predicted_alignment", "the spike alignment the law predicts (null where it does not apply)", "1"),
    RecordField("ridge", "the readout's ridge lambda (tuned per seed with --ridge auto)", "1"),
)
