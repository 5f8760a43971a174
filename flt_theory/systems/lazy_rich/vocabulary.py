"""The names of the lazy-rich system, declared once (:mod:`flt_theory.systems.vocabulary`): the observables of
``lazy-rich/train`` and the fields of ``flt simulate lazy-rich``'s records."""

from __future__ import annotations

from ..vocabulary import Observable, Observables, Vocabulary, from_fields
from .simulate import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_TRAIN = ("lazy-rich/train",)

VOCABULARY = Vocabulary(
    observables=Observables(
        *from_fields(RECORD_FIELDS, {name: _TRAIN for name in ("abs_change", "rel_change", "per_neuron_change",
                                                               "train_loss")}),
        Observable("initial_loss", "L(0): half the mean squared training error at initialisation", "squared units of y",
                   experiments=_TRAIN),
    ),
)
