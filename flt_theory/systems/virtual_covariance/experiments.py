r"""The virtual-covariance experiments (batched over seeds; one stored row per point and seed): Theorem 2's residual,
Theorem 3's random nets and the GD/VCL training, in a module of their own so that their stored rows (fingerprinted by
the source of each experiment and what it imports: :mod:`flt_theory.runner.fingerprint`) do not change when a
claim's comparison or sizes do (:mod:`.declaration`)."""

from __future__ import annotations

from typing import Any

from ...runner import experiment
from ...runner.cost import Cost
from ...runner.registry import strict_int
from . import model
from .laws import lipschitz_constant

__all__ = ["residual", "theorem3", "training"]

#: The declared parameters (:data:`.model.PARAMS`): the experiments' converters and defaults, the options' bounds.
P = model.PARAMS


def _widths(text: Any) -> str:
    parts = [strict_int(p) for p in str(text).split(",")]
    model.check_widths(parts, "virtual-covariance")
    return ",".join(str(p) for p in parts)


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(","))


#: Sizes the cost polynomials read from ``widths``: the widest layer and the number of layers.
_WIDTH_SIZES = {"width": lambda p: max(_ints(p["widths"])), "layers": lambda p: len(_ints(p["widths"]))}


@experiment("virtual-covariance/residual", cost=Cost(memory="8*seeds*batch*width*layers + 8*seeds*width*width*layers",
                                                     work="1e4*layers + seeds*batch*width*width*layers",
                 derived=_WIDTH_SIZES),
            batched=True, params=P.subset("activation", "batch", "cov", "gamma"), types={"widths": _widths})
def residual(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Theorem 2's residual per layer, with its coordinates on the two second-order terms."""
    return model.residual_rows(seeds, widths=_ints(params["widths"]), activation=params["activation"],
                               batch=params["batch"], cov=params["cov"], gamma=params["gamma"])


@experiment("virtual-covariance/theorem3",
            cost=Cost(memory="8*seeds*width*width*layers", work="1e4*layers*seeds + seeds*width*width*layers",
                      derived=_WIDTH_SIZES),
            batched=True, params=P.subset("activation", "h_norm", "zero_units"), defaults={"widths": "10,12,12,3"},
            types={"widths": _widths})
def theorem3(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""One random net per seed: Theorem 3's counts and maximal ratio at the first hidden layer."""
    bound = float(lipschitz_constant(params["activation"])) ** 2
    return model.theorem3_rows(seeds, widths=_ints(params["widths"]), activation=params["activation"],
                               h_norm=params["h_norm"], bound=bound, zero_units=params["zero_units"])


@experiment("virtual-covariance/training", cost=Cost(memory="8*seeds*n*width*layers + 8*seeds*width*width*layers",
                 work="1e6*steps + steps*seeds*n*width*width*layers", derived=_WIDTH_SIZES),
            batched=True, params=P.subset("activation", "gamma", "steps", "n"), types={"widths": _widths})
def training(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Loss after ``steps`` steps of GD and of VCL from the same start."""
    return model.training_rows(seeds, widths=_ints(params["widths"]), activation=params["activation"],
                               gamma=params["gamma"], steps=params["steps"], n=params["n"])
