"""The names of the dictionary system, declared once (:mod:`flt_theory.systems.vocabulary`).

``flt simulate dictionary`` records ``fixed_features_error``; ``dictionary/run`` stores the same number as
``fixed_error`` (a stored key is never renamed): the public name is the record's, ``fixed_error`` stays accepted.
``--unstructured`` is the negation of the parameter ``structured``."""

from __future__ import annotations

from ..vocabulary import Observable, Observables, Vocabulary, from_fields
from .declaration import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_RUN = ("dictionary/run",)

VOCABULARY = Vocabulary(
    observables=Observables(
        *from_fields(RECORD_FIELDS, {"test_error": _RUN, "fixed_features_error": _RUN, "gamma_hat": _RUN,
                                     "step": (), "cluster_fraction": (), "mean_cosine": ()},
                     keys={"fixed_features_error": "fixed_error"}),
        Observable("cluster_initial", "cluster_fraction at initialisation (step 0)", "fraction", experiments=_RUN),
        Observable("cluster_relevant", "cluster_fraction after the last feature step", "fraction", experiments=_RUN),
        Observable("cluster_irrelevant", "fraction of neurons whose |cos| with the sum of k irrelevant dictionary "
                   "directions exceeds 0.9, after the last step (the control direction)", "fraction",
                   experiments=_RUN),
    ),
    options={"unstructured": "structured"},
)
