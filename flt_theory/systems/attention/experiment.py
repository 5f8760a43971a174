r"""The attention experiment: single-head attention trained to :math:`L_S \le \varepsilon` (:mod:`.model`), in a
module of its own so that its stored rows (fingerprinted by the source of the experiment and what it imports:
:mod:`flt_theory.runner.fingerprint`) do not change when a claim's comparison or sizes do (:mod:`.declaration`)."""

from __future__ import annotations

from typing import Any

from ...runner import experiment
from ...runner.cost import Cost
from . import model

__all__ = ["train_attention"]

#: The declared parameters (:data:`.model.PARAMS`).
P = model.PARAMS


@experiment("attention/train",
            cost=Cost(memory="8*seeds*n*tokens*tokens + 8*seeds*n_test*tokens*tokens + 32*seeds*n*tokens*d_h"
                             " + 32*seeds*n*tokens*d_v + 32*seeds*n_test*tokens*d_h",
                      work="1e6*max_steps + max_steps*seeds*n*tokens*tokens*d_h + max_steps*seeds*n*tokens*d_v"
                           " + seeds*n_test*tokens*tokens*d_h"),
            batched=True, params=P.without("sigma_xi"))
def train_attention(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Train single-head attention to :math:`L_S \le \varepsilon`; test loss, attention and value alignments."""
    cfg = model.AttentionConfig(**{k: v for k, v in params.items() if k != "mu_norm"})
    rows = model.attention_rows(seeds, [params["mu_norm"]], cfg)
    return [{k: v for k, v in r[0].items() if k != "mu_norm"} for r in rows]
