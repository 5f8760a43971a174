"""The names of the diffusion system, declared once (:mod:`flt_theory.systems.vocabulary`): the observables of
``diffusion/features`` are the fields of ``flt simulate diffusion``'s records."""

from __future__ import annotations

from ..vocabulary import Observables, Vocabulary, from_fields
from .declaration import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_FEATURES = ("diffusion/features",)

VOCABULARY = Vocabulary(
    observables=Observables(*from_fields(RECORD_FIELDS, {
        name: _FEATURES for name in ("snr", "n_snr2", "ratio", "signal", "noise", "grad_rel", "loss", "gamma_max",
                                     "rho_max", "signal_fraction", "test_error_cls")})),
)
