r"""The time an online-SGD measurement takes, predicted from its parameters: one model for the experiment's declared
cost (:data:`.recovery_experiment.COST`, read by ``flt check --plan`` and by ``flt verify --system``'s plan, budget
and ladder extension) and for ``flt verify TARGET --algorithm online-sgd``'s budget (:func:`.verify.estimated_seconds`).

The model. A run steps its :math:`S` seeds together (:func:`.model.online_sgd`, batched over seeds) until the slowest
seed reaches overlap 1/2 or ``max_steps``, so it takes

.. math::

    t = S\,c_0 + N\,\bigl(a + a_\lambda[\lambda > 0] + S\,(b + c_P\,w)\bigr),
    \qquad N = \min\bigl(\texttt{max\_steps},\ q_k\,\bar N\bigr),

:math:`w` the work of one gradient step beyond one sample and one pass (:func:`.model.batch_step_work`: :math:`n_b`
with one pass, :math:`n_b(n_b + 2)` with two or more), :math:`\bar N` the predicted mean number of gradient steps to
overlap 1/2 (:func:`mean_iterations`) and :math:`q_k` the slowest of the run's seeds in units of that mean
(:data:`SLOWEST`). The step does not depend on :math:`d` (the reduced coordinates; the earlier declared cost had a
term :math:`N S d` and took :math:`N` = ``max_steps``: a ``flt verify --system online-sgd`` run of z over d = 256 …
2048 took 25 times its plan).

Measured (CPU time of one torch thread, :func:`.simulate.run_rows` with ``stop_at_recovery=False``, 4000 to 20000
steps, 2026-12-07, AMD EPYC, a second job on the other core): per step :math:`a` = 22 to 26 µs at :math:`S = 1`, 44 µs
with smoothing; per seed and step :math:`b` = 0.13 µs (z and He3 at d = 64 and 1024: no dependence on :math:`d`);
per sample of a one-pass batch 0.047 to 0.055 µs per seed (:math:`n_b` = 16, 64, 1024); per unit of
:math:`n_b(n_b + 2)` with two or more passes 0.009 to 0.015 µs per seed (:math:`n_b` = 8, 32; 2 and 4 passes); per
seed and run :math:`c_0` = 0.12 ms (runs of 2 steps, 16 and 128 seeds). The constants below are those, in
operations at :data:`~flt_theory.runner.cost.OPS_PER_SECOND` (one per ns); the experiment's calibration factor
(:func:`~flt_theory.runner.cost.calibration_factor`, fitted by ``benchmarks/bench_cost_plan.py``) scales them to the
machine.

The slowest seed, :math:`q_k` (:data:`SLOWEST`, :data:`SLOWEST_AVERAGED`): the largest gradient steps over the mean
predicted by :func:`mean_iterations`, read on the catalogue's small-scale measurements (every point of
``online-sgd/recovery`` in the store of ``flt check online-sgd --scale small``) and on runs without a cap: with one
sample per step, :math:`k = 1` 0.61 to 0.75 (64 seeds); :math:`k = 2` 1.4 to 1.8 (64 seeds); He3 36, 15, 7.5 at
d = 32, 64, 128 (256 seeds, :math:`\tilde\eta = 0.05`, :math:`a = 2`; the second slowest 28, 3.9, 4.8) and He4 15,
9.4, 11 at d = 32, 64, 128 (64 seeds, :math:`\tilde\eta = 0.05`, :math:`a = 2`; its median 1.1 to 0.6 of the
mean): from :math:`k = 3` on the slowest seed is the far end of a heavy tail and no factor predicts it within 2
times. With the step averaged (a batch, repeated passes or the smoothed loss) the tail is lighter: :math:`k = 2`
1.2 to 2.6 with batches up to 32 and 4.2 to 5.4 past the saturation batch (128 seeds); :math:`k = 3` 1.8 to 3.6
with batches (128 and 256 seeds); smoothed :math:`k` = 3, 4 2.8 to 4.9 (128 seeds). He4 on the label transform
(rate of :math:`k = 2`, one sample per step) reads 5.2 to 8.1 (32 seeds): its drift is not He2's, and the model
is 3 times short there. A censored seed makes a run's steps ``max_steps``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...errors import FLTError
from ...runner.cost import Cost, check_cost
from .model import batch_step_work
from .simulate import predicted_time, rate_exponent

__all__ = ["PER_RUN_SEED", "PER_SEED_STEP", "PER_SMOOTHED_STEP", "PER_STEP", "PER_WORK", "SLOWEST", "SLOWEST_AVERAGED",
           "WORK", "WORK_SIZES", "declared_run_steps", "mean_iterations", "run_operations", "slowest_iterations"]

#: Operations (ns at :data:`~flt_theory.runner.cost.OPS_PER_SECOND`) per gradient step of the whole batch of seeds,
#: and extra with smoothing (module docstring).
PER_STEP, PER_SMOOTHED_STEP = 2.5e4, 2.0e4
#: Operations per seed and gradient step with one sample and one pass.
PER_SEED_STEP = 130.0
#: Operations per seed, gradient step and unit of :func:`.model.batch_step_work`: one pass (per sample), two or more
#: passes (per unit of :math:`n_b(n_b + 2)`).
PER_WORK = {1: 50.0, 2: 12.0}
#: Operations per seed and run (its generator, its row).
PER_RUN_SEED = 1.2e5
#: The slowest seed's gradient steps over the predicted mean (:func:`mean_iterations`) with one sample and one pass per
#: step, by the exponent of the rate (that of 3 from 3 on), and at an exponent of 3 or more with a batch, repeated
#: passes or the smoothed loss (module docstring).
SLOWEST, SLOWEST_AVERAGED = {1: 0.75, 2: 2.0, 3: 10.0}, 3.5

#: The module docstring's :math:`t` as a cost polynomial (:class:`~flt_theory.runner.cost.Cost`) in the run's
#: ``seeds``, its gradient steps ``run_steps`` and the sizes of :data:`WORK_SIZES`.
WORK = (f"{PER_RUN_SEED:g}*seeds + {PER_STEP:g}*run_steps + {PER_SMOOTHED_STEP:g}*run_steps*smoothed + "
        f"{PER_SEED_STEP:g}*run_steps*seeds + {PER_WORK[1]:g}*run_steps*seeds*one_pass_work + "
        f"{PER_WORK[2]:g}*run_steps*seeds*repeated_work")


def _passes(params: Mapping[str, object]) -> int:
    try:
        return int(params.get("passes", 1))  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return 1  # not a size: the option's own check refuses it


#: ``Cost.derived`` entries of :data:`WORK` other than ``run_steps``: 1 with smoothing (else 0), the step's work
#: beyond one sample (:func:`.model.batch_step_work`) with one pass and with two or more (0 otherwise).
WORK_SIZES = {
    "smoothed": lambda p: 1.0 if p.get("smoothing") else 0.0,
    "one_pass_work": lambda p: float(batch_step_work(p)) if _passes(p) <= 1 else 0.0,
    "repeated_work": lambda p: float(batch_step_work(p)) if _passes(p) > 1 else 0.0,
}
#: :data:`WORK` with explicit gradient steps (:func:`run_operations`).
_EXPLICIT = Cost(memory="0", work=WORK, derived=WORK_SIZES)


def mean_iterations(k: int, d: float, *, eta_tilde: float, overlap0: float = 1.0, batch: int = 1, passes: int = 1,
                    smoothing: float = 0.0) -> float:
    r"""The predicted mean gradient steps to overlap 1/2 at :math:`d` for a rate of exponent ``k``:
    :math:`P\,T_k(d)/(\tilde\eta\,n_b\,k\,k!\,\max(a, 1)^{k-2})`, :math:`T_k` the law's time in samples
    (:func:`.simulate.predicted_time`), :math:`k\,k!\,m^{k-1}` the population drift of :math:`\mathrm{He}_k` (the
    escape integral of :func:`.laws.recovery_law`'s derivation; an order of magnitude for other links), :math:`a` =
    ``overlap0`` the start :math:`m_0 = a/\sqrt d`.

    >>> mean_iterations(1, 64, eta_tilde=0.5), mean_iterations(1, 64, eta_tilde=0.5, batch=8)
    (128.0, 16.0)
    """
    drift = k * math.factorial(k) * max(overlap0, 1.0) ** max(k - 2, 0)
    return predicted_time(k, d, smoothing) * passes / (eta_tilde * batch * drift)


def slowest_iterations(k: int, mean: float, *, averaged: bool = False) -> float:
    """The slowest seed's gradient steps: the predicted ``mean`` times :data:`SLOWEST` of the exponent ``k``, or
    :data:`SLOWEST_AVERAGED` at ``k`` >= 3 where the step is ``averaged`` (a batch, repeated passes or the smoothed
    loss: a lighter tail).

    >>> slowest_iterations(1, 100.0), slowest_iterations(4, 100.0), slowest_iterations(4, 100.0, averaged=True)
    (75.0, 1000.0, 350.0)
    """
    return (SLOWEST_AVERAGED if averaged and k >= 3 else SLOWEST[min(max(k, 1), 3)]) * mean


def run_operations(steps: float, seeds: int, *, batch: int = 1, passes: int = 1, smoothing: float = 0.0) -> float:
    r"""The operations of a run of ``steps`` gradient steps over ``seeds`` seeds: :data:`WORK` (before the
    experiment's calibration factor).

    >>> run_operations(1000, 64)
    41000000.0
    """
    params = {"run_steps": steps, "seeds": seeds, "batch": batch, "passes": passes, "smoothing": smoothing}
    return check_cost(_EXPLICIT, params, what="", max_bytes=math.inf, max_seconds=math.inf).operations


def declared_run_steps(params: Mapping[str, object]) -> float:
    r"""The gradient steps a run of the experiment takes (the ``Cost.derived`` entry ``run_steps`` of
    :data:`.recovery_experiment.COST`): ``max_steps``, or the slowest seed's predicted steps
    (:func:`slowest_iterations` of :func:`mean_iterations`) where fewer; ``max_steps`` where the parameters do not
    determine a prediction (a link whose rate's exponent is not computed: the run itself refuses bad parameters)."""
    cap = float(params["max_steps"])  # type: ignore[arg-type]  # normalised: required, an int
    try:
        passes, transform = _passes(params), bool(params.get("transform", 0))
        rate = rate_exponent(str(params["target"]), transform=transform, passes=passes)
        mean = mean_iterations(rate, float(params["d"]), eta_tilde=float(params["eta_tilde"]),  # type: ignore[arg-type]
                               overlap0=float(params.get("overlap0", 1.0)),  # type: ignore[arg-type]
                               batch=int(params.get("batch", 1)), passes=passes,  # type: ignore[call-overload]
                               smoothing=float(params.get("smoothing", 0.0)))  # type: ignore[arg-type]
    except (FLTError, KeyError, TypeError, ValueError, OverflowError, ZeroDivisionError):
        return cap
    batch = int(params.get("batch", 1))  # type: ignore[call-overload]
    averaged = bool(params.get("smoothing")) or passes > 1 or batch > 1
    return min(cap, slowest_iterations(rate, mean, averaged=averaged))
