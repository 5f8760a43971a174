r"""``flt simulate in-context``: (a) the concept/semantics transformer of Bu, Huang, Han, Nitanda, Suzuki, Zhang, Wong
2024 (arXiv 2411.02199) and (b) linear-attention ICL over a two-layer feature map pretrained on :math:`K` tasks (Kim,
Suzuki 2024, arXiv 2402.01258). One record per part, point and seed: the fields of :func:`.model.concept_rows` and
:func:`.model.features_rows`.
"""

from __future__ import annotations

from typing import Any

from ...errors import FLTError, InvalidParameterError
from . import model

__all__ = ["simulate_document"]


def simulate_document(*, part: str = "both", concepts: int = 3, dim: int = 12, length: int = 6, steps: int = 250,
                      tasks: tuple[int, ...] = (1, 2, 8), feature_steps: int = 400, seeds: int = 3,
                      device: str = "auto") -> dict[str, Any]:
    """What ``flt simulate in-context --json`` prints: one record per (part, point, seed).

    >>> doc = simulate_document(part="features", tasks=(1,), feature_steps=2, seeds=2, device="cpu")
    >>> doc["system"], [(r["part"], r["tasks"], r["seed"]) for r in doc["records"]]
    ('in-context', [('features', 1, 0), ('features', 1, 1)])
    >>> simulate_document(dim=4)
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: --dim: expected an integer >= 2 * concepts = 6; got 4
    """
    checks = [("part", part in ("concepts", "features", "both"), f"expected concepts, features or both; got {part!r}"),
              ("tasks", bool(tasks), "give at least one number of tasks"),
              ("seeds", seeds >= 1, f"expected an integer >= 1; got {seeds}")]
    for option, ok, message in checks:
        if not ok:
            raise InvalidParameterError(f"--{option}: {message}")
    model.CONCEPT_PARAMS.check_flags(dict(concepts=concepts, dim=dim, length=length, steps=steps), "simulate_document")
    model.FEATURE_PARAMS.check_flags(dict(tasks=tasks, steps=feature_steps), "simulate_document",
                                     flags={"steps": "feature-steps"})
    if dim < 2 * concepts:
        raise InvalidParameterError(f"--dim: expected an integer >= 2 * concepts = {2 * concepts}; got {dim}")
    records: list[dict[str, Any]] = []
    try:
        if part in ("concepts", "both"):
            rows = model.concept_rows(concepts=concepts, dim=dim, length=length, steps=steps, batch=64,
                                      seeds=list(range(seeds)), device=device)
            records += [{"part": "concepts", "concepts": concepts, "dim": dim, "length": length, "seed": s, **row}
                        for s, row in enumerate(rows)]
        if part in ("features", "both"):
            for K in tasks:
                rows = model.features_rows(tasks=int(K), steps=feature_steps, seeds=list(range(seeds)), device=device)
                records += [{"part": "features", "tasks": int(K), "seed": s, **row} for s, row in enumerate(rows)]
    except FLTError as exc:
        raise InvalidParameterError(f"--device: {exc}" if "device" in str(exc) else f"--{part}: {exc}") from exc
    return {"system": "in-context", "records": records}
