"""The names of the attention system, declared once (:mod:`flt_theory.systems.vocabulary`): the observables of
``attention/train`` are the fields of ``flt simulate attention``'s records."""

from __future__ import annotations

from ..vocabulary import Observables, Vocabulary, from_fields
from .declaration import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_TRAIN = ("attention/train",)

VOCABULARY = Vocabulary(
    observables=Observables(*from_fields(RECORD_FIELDS, {
        "snr": _TRAIN, "steps": _TRAIN, "train_loss": _TRAIN, "test_loss": _TRAIN, "test_error": _TRAIN,
        "attention_signal": _TRAIN, "value_signal": _TRAIN, "value_noise": _TRAIN, "score_signal": _TRAIN,
        "score_noise": _TRAIN,
        "n_snr2": (),  # n * snr^2, derived in the records
    })),
)
