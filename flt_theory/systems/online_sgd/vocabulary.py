"""The names of the online-SGD system, declared once (:mod:`flt_theory.systems.vocabulary`).

One name per quantity: ``steps_to_weak_recovery`` (what ``flt simulate online-sgd`` records) is what
``online-sgd/recovery`` stores as ``steps`` (a stored key is never renamed): ``--law`` takes the public name, and
``steps`` stays accepted; likewise ``iterations_to_weak_recovery`` (gradient steps, recorded with ``--batch`` or
``--passes`` above 1) is stored as ``iterations``. ``--eta-tilde`` is the parameter ``eta_tilde`` (``--lr`` stays
accepted); ``--label-transform`` sets the parameter ``transform``."""

from __future__ import annotations

from ..vocabulary import Observable, Observables, Vocabulary, from_fields
from .declaration import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_RECOVERY = ("online-sgd/recovery",)

VOCABULARY = Vocabulary(
    observables=Observables(
        *from_fields(RECORD_FIELDS, {"steps_to_weak_recovery": _RECOVERY, "iterations_to_weak_recovery": _RECOVERY,
                                     "final_overlap": _RECOVERY, "censored": (*_RECOVERY, "online-sgd/multi-index")},
                     keys={"steps_to_weak_recovery": "steps", "iterations_to_weak_recovery": "iterations"}),
        Observable("time_{i}", "samples until the i-th teacher direction is learned (overlap >= threshold) by the "
                   "multi-index network (the step limit where censored)", "samples",
                   experiments=("online-sgd/multi-index",)),
    ),
    options={"lr": "eta_tilde"},
    controls={"run_to_end": "continue every run to --max-steps (final_overlap is then the overlap after max-steps); "
                            "the experiment stops at recovery"},
)
