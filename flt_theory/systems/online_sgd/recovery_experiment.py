r"""The experiment of the online-SGD single-index claims: samples to weak recovery per seed
(:func:`.simulate.run_rows`), in a module of its own so that its stored rows (fingerprinted by the source of the
experiment and what it imports: :mod:`flt_theory.runner.fingerprint`) do not change when a claim's comparison or
ladder does (:mod:`.recovery_claims`)."""

from __future__ import annotations

from typing import Any

from ...runner import experiment
from ...runner.cost import Cost
from . import model, run_time
from .simulate import run_rows

__all__ = ["COST", "recovery"]

#: The declared parameters (:data:`.model.PARAMS`): the experiments' converters and defaults, the options' bounds.
P = model.PARAMS


#: The declared cost of a run (also ``flt simulate online-sgd``'s, which reads ``run_steps`` as its ``--max-steps``, the
#: worst case): the work of :mod:`.run_time` (:data:`~.run_time.WORK`) over the gradient steps the run is predicted to
#: take (:func:`~.run_time.declared_run_steps`); the sizes derived from ``batch`` and ``passes``
#: (:func:`.model.batch_block_bytes`, :func:`.model.batch_step_work`) name ``batch`` when a request is refused.
COST = Cost(memory="64*seeds*d + seeds*block_bytes", work=run_time.WORK,
            derived={"block_bytes": model.batch_block_bytes, "run_steps": run_time.declared_run_steps,
                     **run_time.WORK_SIZES},
            derived_from={"block_bytes": "batch", "run_steps": "max_steps", "smoothed": "smoothing",
                          "one_pass_work": "batch", "repeated_work": "batch"})


@experiment("online-sgd/recovery", cost=COST,
            batched=True, params=P.subset("target", "d", "eta_tilde", "overlap0", "loss", "max_steps", "smoothing",
                                          "transform", "batch", "passes"))
def recovery(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Samples and gradient steps to weak recovery (overlap 1/2), censoring flag and final overlap, per seed
    (:func:`.simulate.run_rows`; ``batch`` samples per step, ``passes`` steps per batch)."""
    return run_rows(seeds, target=params["target"], d=params["d"], eta_tilde=params["eta_tilde"],
                    overlap0=params["overlap0"], loss=params["loss"], max_steps=params["max_steps"],
                    smoothing=params["smoothing"], transform=bool(params["transform"]), batch=params["batch"],
                    passes=params["passes"])
