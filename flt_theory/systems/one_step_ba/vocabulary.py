"""The names of the one-step-ba system, declared once (:mod:`flt_theory.systems.vocabulary`).

The records' ``ridge`` is the readout's ridge :math:`\\lambda` that ``one-step-ba/risk`` stores as ``ridge_lambda``
(the number used: the one given, or the one tuned per seed with ``--ridge auto``); the records' ``width`` and ``n``
are derived from ``d`` and ``psi`` (:math:`N = d`, :math:`n = \\lceil \\psi d\\rceil`)."""

from __future__ import annotations

from ..vocabulary import Observable, Observables, Vocabulary, from_fields
from .simulate import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_RISK = ("one-step-ba/risk",)

VOCABULARY = Vocabulary(
    observables=Observables(
        *from_fields(RECORD_FIELDS, {"risk": _RISK, "linear_risk": _RISK, "spike_alignment": _RISK,
                                     "width": (), "n": (), "p_gt1_norm2": (), "predicted_alignment": ()}),
        Observable("ridge_lambda", "the readout's ridge lambda (tuned per seed with ridge 'auto')", "1",
                   experiments=_RISK),
        Observable("update_norm", "||W^1 - W^0||_F / ||W^0||_F: the relative size of the step", "1",
                   experiments=_RISK),
    ),
    record_fields={"ridge": "ridge_lambda"},
)
