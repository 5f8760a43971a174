r"""Built-in experiments (registered when :mod:`flt_theory.runner` first looks a name up).

``giant-step/one-step-mass``: one giant step of the giant-step system (seed ``004``; module
:mod:`flt_theory.systems.giant_step`) for ONE seed. Parameters: ``target`` (a function of
``z1 … zr``, or of ``z`` for a single index, in the grammar of :class:`~flt_theory.symbolic.Target`),
``d``, ``kappa`` (:math:`n = \lceil d^\kappa\rceil`, :func:`~flt_theory.systems.giant_step.samples_for`),
``p`` (32), ``activation`` (``"relu"``), ``eta`` (``"theory"`` :math:`= p\,d^{(\ell-1)/2}` or a
number), ``dtype`` (``"float32"``). Results: the mass on :math:`V^*`,
:math:`m = \frac1p\sum_i\|P_{V^*}w_i\|^2/\|w_i\|^2`, and the excess mass
:math:`(m - r/d)/(1 - r/d)` — the order parameter of
:func:`~flt_theory.systems.giant_step.excess_mass_curves`, whose seed ``s`` it reproduces.

>>> from flt_theory.runner import sweep
>>> df = sweep("giant-step/one-step-mass", grid={"target": "z + He2(z)", "d": 32, "kappa": [1.0]}, seeds=2, progress=False)
>>> df[["d", "kappa", "seed"]].to_dict("list"), bool((df.excess_mass < 1).all())
({'d': [32, 32], 'kappa': [1.0, 1.0], 'seed': [0, 1]}, True)
"""

from __future__ import annotations

import functools
from typing import Any

from ..numeric import giant_steps, subspace_mass
from ..symbolic import Target, leap_index
from ..systems.giant_step import samples_for
from .registry import experiment, finite_float, strict_int

__all__ = ["one_step_mass"]


def _eta(value: Any) -> float | str:
    """``"theory"`` or a finite positive number."""
    if isinstance(value, str) and value.strip() == "theory":
        return "theory"
    number = finite_float(value)
    if number <= 0:
        raise ValueError(f"{value!r} is not > 0")
    return number


@functools.lru_cache(maxsize=64)
def _target_and_leap(text: str):
    target = Target.parse(text)
    return target, leap_index(target)


@experiment(
    "giant-step/one-step-mass",
    defaults={"p": 32, "activation": "relu", "eta": "theory", "dtype": "float32"},
    types={"target": str, "d": strict_int, "kappa": finite_float, "p": strict_int, "activation": str, "eta": _eta, "dtype": str},
)
def one_step_mass(params: dict[str, Any], seed: int) -> dict[str, float]:
    """Mass on V* and excess mass after one giant step (giant-step system, one seed)."""
    target, ell = _target_and_leap(params["target"])
    d = params["d"]
    res = giant_steps(
        target, d=d, p=params["p"], n=samples_for(d, params["kappa"]), steps=1, eta=params["eta"], leap_index=ell,
        activation=params["activation"], seeds=[seed], ridge=None, device="auto", dtype=params["dtype"],
    )
    mass = float(subspace_mass(res.weights[1], res.w_star)[0])
    base = target.rank / d
    return {"mass_V": mass, "excess_mass": (mass - base) / (1 - base)}
