r"""The lazy-rich experiment: the weight displacements of a width-:math:`N` network after ``steps`` GD steps
(:func:`.model.training_rows`), in a module of its own so that its stored rows (fingerprinted by the source of the
experiment and what it imports: :mod:`flt_theory.runner.fingerprint`) do not change when a claim's comparison or
sizes do (:mod:`.declaration`)."""

from __future__ import annotations

from typing import Any

from ...runner import experiment
from ...runner.cost import Cost
from . import model

__all__ = ["train"]


@experiment("lazy-rich/train", cost=Cost(memory="8*seeds*width*d + 8*seeds*n*d + 8*seeds*n*width",
                                         work="1e6*steps + steps*seeds*n*width*d"),
            batched=True, params=model.PARAMS)
def train(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Weight displacement (raw, relative, per neuron) and train loss after ``steps`` GD steps."""
    return model.training_rows(seeds, **params)
