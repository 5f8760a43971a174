r"""``flt simulate attention``: train single-head softmax attention on signal-noise tokens by GD or sign-GD until the
training loss is at most :math:`\varepsilon`, for every :math:`n` and :math:`\|\mu\|` of a grid (Jiang, Huang, Zhang,
Suzuki, Nie 2024, arXiv 2409.19345; sign-GD: Li et al. 2025, arXiv 2410.04870). One record per
:math:`(n, \|\mu\|, \text{seed})`: the observables of :func:`.model.attention_rows` and :math:`n\,\mathrm{SNR}^2`.
"""

from __future__ import annotations

from typing import Any

from ...errors import FLTError, InvalidParameterError
from . import model

__all__ = ["simulate_document"]

P = model.PARAMS


def simulate_document(*, n: list[int], mu_norm: list[float], d: int = 100_000, tokens: int = 3, eta: float = 20.0,
                      eps: float = 0.05, max_steps: int = 3000, optimizer: str = "gd", seeds: int = 4,
                      device: str = "auto") -> dict[str, Any]:
    """What ``flt simulate attention --json`` prints: one record per (n, ‖μ‖, seed)."""
    for name, values in (("--n", n), ("--mu-norm", mu_norm)):
        if not values:
            raise InvalidParameterError(f"{name}: give at least one value")
    P.check_flags({"n": n, "mu_norm": mu_norm}, "simulate_document")  # the declared ranges, before anything runs
    records = []
    for size in n:
        try:
            cfg = model.AttentionConfig(n=size, d=d, tokens=tokens, eta=eta, eps=eps, max_steps=max_steps,
                                        optimizer=optimizer)
        except FLTError as exc:
            raise InvalidParameterError(f"--{P.option_named(str(exc), 'n')}: {exc}") from exc
        rows = model.attention_rows(seeds, mu_norm, cfg, device=device)
        for seed, per_mu in enumerate(rows):
            for row in per_mu:
                records.append({"n": size, "d": d, "tokens": tokens, "optimizer": optimizer, "seed": seed,
                                "n_snr2": size * row["snr"] ** 2, **row})
    return {"system": "attention", "records": records}
