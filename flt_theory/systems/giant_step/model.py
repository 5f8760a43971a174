r"""Measurements of the giant-step system, per seed (torch only).

The training algorithm itself is the system's engine :func:`~flt_theory.systems.giant_step.engine.giant_steps`
(Dandi, Krzakala, Loureiro, Pesce, Stephan 2023, arXiv 2305.18270): full-batch GD steps of the first layer
of :math:`\hat f(x) = \frac1p\sum_i a_i\sigma(\langle w_i, x\rangle)` on fresh samples, then a ridge
second layer. Each function here runs it for a list of seeds (the leading batch dimension; every
seed's numbers are drawn from its own generator, so a seed's result does not depend on the other
seeds of the batch) and returns one dict of floats per seed — the rows the runner stores.

What is stored is chosen so that every comparison of the system (a law and its wrong law) reads
its prediction off the same stored numbers:

* the :math:`r\times r` second moment of the normalised overlaps after step :math:`t`,
  :math:`M_t = \frac1p\sum_i c_i c_i^\top` with :math:`c_i = W^*\hat w_i`,
  :math:`\hat w_i = w_i/\|w_i\|` (keys ``m{t}_{a}{b}``): the mass on any :math:`U \subseteq V^*`
  with orthonormal basis rows :math:`B` is :math:`\operatorname{tr}(BM_tB^\top)`, and the mass of its
  least-learned direction is :math:`\lambda_{\min}(BM_tB^\top)` — any candidate staircase, right
  or wrong, is evaluated from :math:`M_t`;
* for the rank-one update, for each :math:`k = 1..K` (``directions``) the outlier ratio
  :math:`s_k/s_{k+1}` of :math:`W^1 - W^0` (keys ``sv_ratio{k}``) and the projector of its top-:math:`k`
  right singular subspace seen from :math:`V^*`, :math:`Q_k = \sum_{j\le k} c_jc_j^\top` with
  :math:`c_j = W^*v_j` (:math:`v_j` its :math:`j`-th right singular vector; keys ``top{k}_{a}{b}``): the mean
  squared projection of the top-:math:`k` subspace on any :math:`U \subseteq V^*` of dimension :math:`k`
  with basis rows :math:`B` is :math:`\operatorname{tr}(BQ_kB^\top)/k` — so a predicted spike subspace of
  any dimension, right or wrong, is evaluated from the same numbers.
"""

from __future__ import annotations

from typing import Sequence

import torch

from ...numeric import norm_growth, overlaps, subspace_mass
from ...numeric.backend import to_numpy
from ...runner.params import Param, Params
from ...symbolic import Target
from .engine import giant_steps

__all__ = ["PARAMS", "norm_growth_rows", "one_step_mass_rows", "second_layer_rows", "spike_rows",
           "staircase_rows"]


#: The parameters of the system's experiments, declared once: the runner's ``giant-step/...`` experiments
#: (converters; each takes its subset and defaults) and ``flt simulate giant-step`` (options and bounds) read them.
#: The joint conditions (``directions`` at most the target's rank, an even width for ``flt simulate``, the memory and
#: time of a point) stay with their experiments and command.
PARAMS = Params(
    Param("target", "str", help="Target f*(z1, ..., zr)."),
    Param("d", "int", minimum=1, unit="count", help="Input dimension d."),
    Param("kappa", "float", minimum=0, maximum=16, help="Sample exponent kappa, n = ceil(d^kappa) per step "
                                                        "(beyond 16, n exceeds any machine for d >= 16)."),
    Param("n", "int", minimum=1, unit="count", help="Fresh samples per giant step."),
    Param("p", "int", minimum=2, unit="count", help="Width p (even: symmetric initialisation)."),
    Param("activation", "str", default="relu", help="Student activation, a 1-D function of z."),
    Param("eta", minimum=0, exclusive_minimum=True, words=("theory",),  # theory: Dandi et al. 2023, arXiv 2305.18270
          help="Step size: a number > 0, or 'theory' = p d^((l-1)/2) with l the leap index."),
    Param("dtype", "choice", choices=("float32", "float64"), default="float32", help="Floating-point type."),
    Param("directions", "int", minimum=1, default=2, unit="count",
          help="Top singular directions of W^1 - W^0 recorded (at most the target's rank)."),
    Param("steps", "int", minimum=0, maximum=64, unit="steps", help="Number of giant steps T."),
    Param("ridge", "float", minimum=0, maximum=1e12, default=1e-4, help="Ridge lambda of the second layer."),
    Param("n_ridge", "int", minimum=1, default=16384, unit="count", help="Fresh samples that fit the second layer."),
    Param("n_test", "int", minimum=1, default=8192, unit="count", help="Fresh samples that test the second layer."),
)


def one_step_mass_rows(target: Target, *, d: int, n: int, p: int, eta: float | str, leap_index: int, activation: str,
                       dtype: str, seeds: Sequence[int]) -> list[dict[str, float]]:
    r"""Mass :math:`m = \frac1p\sum_i\|P_{V^*}w_i^1\|^2/\|w_i^1\|^2` on :math:`V^*` after one step
    and the excess mass :math:`(m - r/d)/(1 - r/d)`, per seed."""
    res = giant_steps(target, d=d, p=p, n=n, steps=1, eta=eta, leap_index=leap_index, activation=activation,
                      seeds=list(seeds), ridge=None, device="auto", dtype=dtype)
    mass = to_numpy(subspace_mass(res.weights[1], res.w_star))
    base = target.rank / d
    return [{"mass_V": float(m), "excess_mass": float((m - base) / (1 - base))} for m in mass]


def norm_growth_rows(target: Target, *, d: int, n: int, p: int, eta: float,
                     seeds: Sequence[int]) -> list[dict[str, float]]:
    r""":math:`\frac1p\sum_i(\|w_i^1\|^2 - 1)` after one step, per seed."""
    res = giant_steps(target, d=d, p=p, n=n, steps=1, eta=eta, seeds=list(seeds), ridge=None, device="auto")
    return [{"norm_growth": float(v)} for v in to_numpy(norm_growth(res.weights[1]).mean(-1))]


def _second_moments(weights: torch.Tensor, w_star: torch.Tensor) -> torch.Tensor:
    """:math:`M = \\frac1p\\sum_i c_ic_i^\\top`, ``(seeds, r, r)``."""
    c = overlaps(weights, w_star)
    return c.transpose(-1, -2) @ c / weights.shape[-2]


def _matrix_keys(prefix: str, matrix: torch.Tensor) -> list[dict[str, float]]:
    r = matrix.shape[-1]
    values = to_numpy(matrix)
    return [{f"{prefix}_{a}{b}": float(m[a, b]) for a in range(r) for b in range(r)} for m in values]


def staircase_rows(target: Target, *, d: int, n: int, p: int, eta: float, steps: int, activation: str = "relu",
                   seeds: Sequence[int]) -> list[dict[str, float]]:
    r"""The second moments :math:`M_t` (module docstring) after steps :math:`t = 0..T`, per seed."""
    res = giant_steps(target, d=d, p=p, n=n, steps=steps, eta=eta, seeds=list(seeds), ridge=None, activation=activation,
                      device="auto")
    rows: list[dict[str, float]] = [dict() for _ in seeds]
    for t in range(steps + 1):
        for row, values in zip(rows, _matrix_keys(f"m{t}", _second_moments(res.weights[t], res.w_star)), strict=True):
            row.update(values)
    return rows


def spike_rows(target: Target, *, d: int, n: int, p: int, directions: int,
               seeds: Sequence[int]) -> list[dict[str, float]]:
    r"""For :math:`k = 1..` ``directions``: the outlier ratio :math:`s_k/s_{k+1}` of :math:`W^1 - W^0` and the
    projector :math:`Q_k = \sum_{j\le k} c_jc_j^\top`, :math:`c_j = W^*v_j` (module docstring), after one step
    with the theory step size, per seed."""
    res = giant_steps(target, d=d, p=p, n=n, steps=1, eta="theory", seeds=list(seeds), ridge=None, device="auto")
    _, s, vh = torch.linalg.svd(res.weights[1] - res.weights[0], full_matrices=False)
    c = res.w_star @ vh[..., :directions, :].transpose(-1, -2)  # (seeds, r, directions): column j is c_j
    rows: list[dict[str, float]] = [dict() for _ in seeds]
    for k in range(1, directions + 1):
        top = c[..., :k] @ c[..., :k].transpose(-1, -2)
        for row, values, ratio in zip(rows, _matrix_keys(f"top{k}", top), to_numpy(s[..., k - 1] / s[..., k]),
                                      strict=True):
            row.update(values, **{f"sv_ratio{k}": float(ratio)})
    return rows


def second_layer_rows(target: Target, *, d: int, n: int, p: int, eta: float, steps: int, ridge: float, n_ridge: int,
                      n_test: int, activation: str = "relu", seeds: Sequence[int]) -> list[dict[str, float]]:
    r"""Test error of the ridge second layer after ``steps`` giant steps, per seed."""
    res = giant_steps(target, d=d, p=p, n=n, steps=steps, eta=eta, seeds=list(seeds), ridge=ridge, n_ridge=n_ridge,
                      n_test=n_test, activation=activation, device="auto")
    assert res.test_error is not None  # set whenever a ridge is given
    return [{"test_error": float(e)} for e in to_numpy(res.test_error)]
