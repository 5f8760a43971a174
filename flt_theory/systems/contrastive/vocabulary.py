"""The names of the contrastive system, declared once (:mod:`flt_theory.systems.vocabulary`): the observables of
``contrastive/train`` are the fields of ``flt simulate contrastive``'s records."""

from __future__ import annotations

from ..vocabulary import Observables, Vocabulary, from_fields
from .declaration import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_TRAIN = ("contrastive/train",)

VOCABULARY = Vocabulary(
    observables=Observables(*from_fields(RECORD_FIELDS, {
        name: _TRAIN for name in ("snr", "mu_norm", "step_T", "signal_T", "noise_T", "error_T", "signal_end",
                                  "noise_end", "loss_end", "error_end")})),
)
