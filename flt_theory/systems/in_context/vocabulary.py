"""The names of the in-context system, declared once (:mod:`flt_theory.systems.vocabulary`). ``--part`` (and the
records' ``part``) says which experiment a record comes from: ``concepts`` (``in-context/concepts``) or ``features``
(``in-context/features``)."""

from __future__ import annotations

from ..vocabulary import Observables, Vocabulary, from_fields
from .declaration import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_CONCEPTS = ("in-context/concepts",)
_FEATURES = ("in-context/features",)

VOCABULARY = Vocabulary(
    observables=Observables(*from_fields(RECORD_FIELDS, {
        **{name: _CONCEPTS for name in ("d_aa_q", "d_aa_k", "d_bb_q", "d_bb_k", "concept_ratio", "d_oc", "d_od",
                                        "output_both", "error_id", "error_ood")},
        "risk_new": _FEATURES, "risk_train": _FEATURES})),
    controls={"part": "which experiment runs: concepts (in-context/concepts) or features (in-context/features)"},
)
