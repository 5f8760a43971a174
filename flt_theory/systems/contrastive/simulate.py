r"""``flt simulate contrastive``: InfoNCE training of ReLU embeddings on two-patch signal-noise data, single-modal
(augmentation) and/or multi-modal (a paired second modality with :math:`\|\tilde\mu\| = C_\mu\|\mu\|`) (Huang, Han,
Chen, Cao, Xu, Suzuki 2024, arXiv 2411.02837). One record per setting and seed: the fields of
:func:`.model.contrastive_rows`, with ``None`` (JSON ``null``, ``-`` in the table) for the values at the stop
:math:`T` where the noise overlap never reached 1 (NaN there is an error: the run diverged).
"""

from __future__ import annotations

import math
from typing import Any

from ...errors import FLTError, InvalidParameterError
from . import model

__all__ = ["simulate_document"]

#: The fields of a record taken at the stop :math:`T` (undefined, ``None``, where ``step_T`` is NaN: never reached).
AT_STOP = ("step_T", "signal_T", "noise_T", "error_T")


def _at_stop_undefined(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with the fields at the stop as ``None`` where the stop was never reached (``step_T`` NaN)."""
    if not math.isnan(row["step_T"]):
        return row
    return {k: None if k in AT_STOP else v for k, v in row.items()}


def simulate_document(*, mode: str = "both", n: int = 32, d: int = 500, width: int = 16, n_snr2: float = 1.0,
                      c_mu: float = 8.0, steps: int = 300, seeds: int = 4, device: str = "auto") -> dict[str, Any]:
    """What ``flt simulate contrastive --json`` prints: one record per setting and seed.

    >>> doc = simulate_document(mode="single", n=8, d=60, width=4, steps=20, seeds=2, device="cpu")
    >>> doc["system"], [(r["mode"], r["seed"]) for r in doc["records"]]
    ('contrastive', [('single', 0), ('single', 1)])
    >>> try:
    ...     simulate_document(n=1)
    ... except InvalidParameterError as exc:
    ...     print(exc)
    --n: The 'n' parameter of simulate_document must be an int >= 2. Got 1 instead.
    """
    if mode not in (*model.MODES, "both"):
        raise InvalidParameterError(f"--mode: expected single, multi or both; got {mode!r}")
    if seeds < 1:
        raise InvalidParameterError(f"--seeds: expected an integer >= 1; got {seeds}")
    model.PARAMS.check_flags(dict(n=n, d=d, width=width, n_snr2=n_snr2, c_mu=c_mu, steps=steps), "simulate_document")
    records = []
    for setting in (("single", "multi") if mode == "both" else (mode,)):
        try:
            rows = model.contrastive_rows(mode=setting, n=n, d=d, width=width, n_snr2=n_snr2, c_mu=c_mu, steps=steps,
                                          seeds=list(range(seeds)), device=device)
        except FLTError as exc:
            raise InvalidParameterError(f"--{'device' if 'device' in str(exc) else 'steps'}: {exc}") from exc
        records += [{"mode": setting, "n": n, "d": d, "width": width, "n_snr2": n_snr2, "c_mu": c_mu, "seed": s,
                     **_at_stop_undefined(row)} for s, row in enumerate(rows)]
    return {"system": "contrastive", "records": records}
