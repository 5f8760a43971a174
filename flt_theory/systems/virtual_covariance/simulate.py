r"""``flt simulate virtual-covariance``: Theorem 2's residual per layer and step, or Theorem 3's violation counts.

Residual mode (default): for every seed, layer :math:`l` and :math:`\gamma`, ``residual`` is
:math:`\|(W_l^+)^\top W_l^+ - W_l^\top W_l - [\widetilde{\mathrm{cov}}(H_l^+) - \widetilde{\mathrm{cov}}(H_l)]\|_F`
(:func:`.model.gram_residuals`), with ``cov`` summed or averaged over the batch; the document adds, per layer,
the fitted log-log slope in :math:`\gamma` (95% CI over seeds) next to the order the laws derive for that reading.
Theorem 3 mode (``theorem3=True``): ``nets`` random nets with :math:`\|h_0\| =` ``h_norm``, one record of
element counts (:func:`.model.violation_counts` at :math:`L^2`, :math:`L` from :func:`.laws.lipschitz_constant`;
differences within float64 rounding of :math:`\Delta\sigma` count as equalities),
plus the counts for the corrected bound :math:`L^2\|h\|^2` with weak sign agreement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._text import json_ready, table
from ...compare import fit_power_law
from ...errors import FLTError, InvalidParameterError
from ...numeric.backend import to_numpy
from ..declaration import RecordField, check_finite_records
from .laws import lipschitz_constant, residual_order
from .model import PARAMS, batch_backprop, check_widths, gram_residuals, theorem3_elements, violation_counts

__all__ = ["simulate_document", "simulate_table", "MAX_NETS"]

#: Largest number of random nets of one Theorem 3 run.
MAX_NETS = 100_000


def _blame(option: str, exc: Exception) -> InvalidParameterError:
    return InvalidParameterError(f"{option}: {exc}")


def simulate_document(
    *, theorem3: bool = False, activation: str = "tanh", widths: Sequence[int] = (10, 12, 12, 3), batch: int = 1,
    cov: str = "summed", gammas: Sequence[float] = (1e-3, 1e-2, 1e-1), seeds: int = 4, h_norm: float = 1.0,
    nets: int = 200, device: str = "auto",
) -> dict[str, Any]:
    """The JSON document of the command (module docstring).

    >>> doc = simulate_document(widths=(3, 4, 2), gammas=(0.01, 0.1), seeds=2, device="cpu")
    >>> sorted(doc["records"][0]), doc["slopes"][0]["predicted_order"]
    (['gamma', 'layer', 'residual', 'seed'], 2)
    >>> simulate_document(theorem3=True, activation="relu", nets=20, device="cpu")["records"][0]["weak_violations"]
    0
    """
    try:
        widths = check_widths(list(widths), "simulate")
    except FLTError as exc:
        raise _blame("--widths", exc) from exc
    if theorem3:
        return _theorem3(activation, widths, h_norm, nets, device)
    if not gammas:
        raise InvalidParameterError("--gammas: give at least one step size.")
    PARAMS.check_flags(dict(cov=cov, batch=batch, gamma=gammas), "simulate_document", flags={"gamma": "gammas"})
    if seeds < 1:
        raise InvalidParameterError(f"--seeds: must be an int >= 1. Got {seeds} instead.")
    try:
        bp = batch_backprop(list(range(seeds)), widths=widths, activation=activation, batch=batch, device=device)
    except FLTError as exc:
        raise _blame("--activation" if "activation" in str(exc) else "--device", exc) from exc
    res = to_numpy(gram_residuals(bp, list(gammas), cov))  # (seeds, layers, gammas)
    records = [{"seed": s, "layer": layer, "gamma": float(g), "residual": float(res[s, layer, i])}
               for s in range(seeds) for layer in range(res.shape[1]) for i, g in enumerate(gammas)]
    order = residual_order(cov) if (cov == "summed" or batch > 1) else residual_order("summed")
    slopes = []
    for layer in range(res.shape[1]):
        entry: dict[str, Any] = {"layer": layer, "predicted_order": order, "slope": None, "slope_ci": None}
        y = res[:, layer, :]
        if len(set(gammas)) >= 2 and seeds >= 2 and np.all(y > 0):
            fit = fit_power_law(np.asarray(gammas, float), y)
            entry.update(slope=fit.exponent, slope_ci=list(fit.cis[0]))
        slopes.append(entry)
    config = {"activation": activation, "widths": list(widths), "batch": batch, "cov": cov, "gammas": list(gammas),
              "seeds": seeds, "pairing": "W_l with its input h_l", "loss": "batch mean of 1/2 ||h_L - y||^2"}
    # NaN or inf in a record is an error (before json_ready turns it into null)
    return json_ready(check_finite_records({"system": "virtual-covariance", "mode": "residual", "config": config,
                                            "records": records, "slopes": slopes}))


def _theorem3(activation: str, widths: tuple[int, ...], h_norm: float, nets: int, device: str) -> dict[str, Any]:
    if not (1 <= nets <= MAX_NETS):
        raise InvalidParameterError(f"--nets: must be an int in [1, {MAX_NETS}]. Got {nets} instead.")
    PARAMS.check_flags(dict(h_norm=h_norm), "simulate_document")
    try:
        lip = float(lipschitz_constant(activation))
    except FLTError as exc:
        raise _blame("--activation", exc) from exc
    try:
        dsigma, dh, floor = theorem3_elements(list(range(nets)), widths=widths, activation=activation, h_norm=h_norm,
                                              with_floor=True, device=device)
    except FLTError as exc:
        raise _blame("--widths" if "widths" in str(exc) else "--device", exc) from exc
    literal = violation_counts(dsigma, dh, lip**2, floor=floor)
    corrected = violation_counts(dsigma, dh, lip**2 * h_norm**2, floor=floor)
    record = {key: (v if key.startswith("max_ratio") else int(v)) for key, v in literal.items()}
    record.update(nets=nets, h_norm=h_norm, lipschitz=lip, bound=lip**2,
                  corrected_bound=lip**2 * h_norm**2, corrected_weak_violations=int(corrected["weak_violations"]))
    config = {"activation": activation, "widths": list(widths), "h_norm": h_norm, "nets": nets, "layer": 1,
              "zero_units": 1}
    return json_ready(check_finite_records({"system": "virtual-covariance", "mode": "theorem3", "config": config,
                                            "records": [record]}))


def simulate_table(document: dict[str, Any]) -> str:
    """The text form of :func:`simulate_document`'s result."""
    cfg = document["config"]
    if document["mode"] == "theorem3":
        rec = document["records"][0]
        rows = [["elements", "strict", "weak", "sign strict", "sign weak", "max ratio", "L^2", "weak at L^2 R^2"],
                [str(rec["elements"]), str(rec["strict_violations"]), str(rec["weak_violations"]),
                 str(rec["sign_strict_violations"]), str(rec["sign_weak_violations"]), f"{rec['max_ratio']:.6g}",
                 f"{rec['bound']:.4g}", str(rec["corrected_weak_violations"])]]
        head = (f"Theorem 3 on {cfg['nets']} random nets {cfg['widths']}, activation {cfg['activation']}, "
                f"||h_0|| = {cfg['h_norm']:g} (violations of |dsigma| < L^2 |dh| and sgn dsigma = sgn dh, per element)")
        return head + "\n" + table(rows)
    rows = [["seed", "layer", "gamma", "residual"]]
    rows += [[str(r["seed"]), str(r["layer"]), f"{r['gamma']:.3g}",
              f"{r['residual']:.6g}"] for r in document["records"]]
    slope_rows = [["layer", "slope in gamma", "95% CI", "predicted"]]
    for s in document["slopes"]:
        ci = "-" if s["slope_ci"] is None else f"[{s['slope_ci'][0]:.4f}, {s['slope_ci'][1]:.4f}]"
        slope_rows.append([str(s["layer"]), "-" if s["slope"] is None else f"{s['slope']:.4f}", ci,
                           str(s["predicted_order"])])
    head = (f"Theorem 2 residual, widths {cfg['widths']}, {cfg['activation']}, batch {cfg['batch']}, cov~ {cfg['cov']} "
            f"({cfg['pairing']})")
    return "\n".join([head, table(rows), "", table(slope_rows)])


#: The fields of a record of ``flt simulate virtual-covariance``, shown by its ``--help``: one record per seed, layer
#: and gamma (residual mode, Theorem 2), or one record of element counts (``--theorem3``, Theorem 3).
RECORD_FIELDS = (
    RecordField("seed", "residual mode: the run's seed", "index"),
    RecordField("layer", "residual mode: layer l of the network", "index"),
    RecordField("gamma", "residual mode: step size gamma of the update", "1"),
    RecordField("residual", "residual mode: ||W_l+^T W_l+ - W_l^T W_l - [cov(H_l+) - cov(H_l)]||_F (Theorem 2)",
                "squared units of W"),
    RecordField("nets", "theorem-3 mode: random nets drawn", "count"),
    RecordField("h_norm", "theorem-3 mode: ||h_0|| of the input", "1"),
    RecordField("lipschitz", "theorem-3 mode: Lipschitz constant L of the activation", "1"),
    RecordField("bound", "theorem-3 mode: L^2, the literal constant of |d sigma| <= bound |d h|", "1"),
    RecordField("corrected_bound", "theorem-3 mode: L^2 ||h||^2, the corrected constant", "1"),
    RecordField("elements", "theorem-3 mode: elements (d sigma, d h) compared", "count"),
    RecordField("strict_violations", "theorem-3 mode: elements where |d sigma| < bound |d h| fails", "count"),
    RecordField("weak_violations", "theorem-3 mode: elements where |d sigma| <= bound |d h| fails", "count"),
    RecordField("corrected_weak_violations", "theorem-3 mode: weak violations of the corrected bound", "count"),
    RecordField("sign_strict_violations", "theorem-3 mode: elements where sgn d sigma != sgn d h", "count"),
    RecordField("sign_weak_violations", "theorem-3 mode: elements where d sigma and d h have opposite signs", "count"),
    RecordField("max_ratio", "theorem-3 mode: max |d sigma| / |d h| over d h != 0", "1"),
    RecordField("max_ratio_low", "theorem-3 mode: max_ratio with d sigma lowered by its rounding floor", "1"),
    RecordField("max_ratio_high", "theorem-3 mode: max_ratio with d sigma raised by its rounding floor", "1"),
)
