r"""``flt simulate diffusion``: train the denoiser (GD on the closed-form DSM loss) and the ReLU² classification CNN
on two-patch signal-noise data with :math:`\sigma_\xi = 1/\sqrt d`, for every :math:`n` and :math:`\|\mu\|` of a grid
(Han, Huang, Cao, Zou 2025, arXiv 2412.01021). One record per :math:`(n, \|\mu\|, \text{seed})`: the fields of
:func:`.model.diffusion_rows` and :func:`.model.classification_rows`.
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidParameterError
from . import model

__all__ = ["simulate_document"]

P = model.PARAMS


def simulate_document(*, n: list[int], mu_norm: list[float], d: int = 500, width: int = 8, time: float = 0.5,
                      eta: float = 0.1, steps: int = 2000, seeds: int = 4, device: str = "auto") -> dict[str, Any]:
    """What ``flt simulate diffusion --json`` prints: one record per (n, ‖μ‖, seed)."""
    for name, values in (("n", n), ("mu_norm", mu_norm)):
        if not values:
            raise InvalidParameterError(f"--{name.replace('_', '-')}: give at least one value")
    P.check_flags({"n": n, "mu_norm": mu_norm, "d": d, "width": width, "time": time, "eta": eta, "steps": steps},
                  "simulate_document")  # the declared ranges (.model.PARAMS), before anything runs
    records = []
    for size in n:
        cfg = model.DiffusionConfig(n=size, d=d, width=width, time=time, eta=eta, steps=steps)
        for mu in mu_norm:
            rows = model.diffusion_rows(list(range(seeds)), mu, cfg, device=device)
            cls = model.classification_rows(list(range(seeds)), n=size, d=d, mu_norm=mu, device=device)
            for seed, (a, b) in enumerate(zip(rows, cls, strict=True)):
                records.append({"n": size, "d": d, "mu_norm": mu, "seed": seed, **a, **b})
    return {"system": "diffusion", "records": records}
