"""The names of the good-sets system, declared once (:mod:`flt_theory.systems.vocabulary`). ``--lr`` sets the
learning rate that ``good-sets/early-phase`` records as ``lr`` (its parameter is the ratio ``lr_ratio``)."""

from __future__ import annotations

from ..vocabulary import Observables, Vocabulary, from_fields, recorded_by
from .declaration import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_EARLY = ("good-sets/early-phase",)


_early = recorded_by(*_EARLY, unit="neurons")


VOCABULARY = Vocabulary(
    observables=Observables(
        *from_fields(RECORD_FIELDS, {"sure": ("good-sets/initial-counts",), "pot": ("good-sets/initial-counts",),
                                     "net_accuracy": ("good-sets/trained",),
                                     "linear_accuracy": ("good-sets/trained",),
                                     "step": (), "net_sure_entries": (), "net_sure_exits": ()}),
        _early("sure_initial", "size of S_sure at initialisation, summed over features"),
        _early("sure_final", "size of S_sure after the early phase, summed over features"),
        _early("exit_sure_lost", "exits from S_sure that leave S_pot or flip the sign of w*_j (the feature is lost)"),
        _early("exit_sure_second", "exits from S_sure because a second feature grew large"),
        _early("exit_sure_demoted", "exits from S_sure that stay in S_pot (demoted)"),
        _early("enter_sure_from_outside", "entries into S_sure from outside S_pot"),
        _early("outside_pot", "pairs (i, j) in S_sure but not in S_pot, summed over steps t = 0..T (violations of "
               "S_sure in S_pot)"),
        _early("outside_sure", "pairs (i, j) in S_pot but not in S_sure, summed over steps t = 0..T"),
        _early("good_pairs", "sure neurons whose lucky coordinate is their feature (good pairs)"),
        _early("good_slope", "mean late-phase slope of the lucky coordinate over the good pairs", "1"),
        _early("lr", "the learning rate of the run, lr_ratio * sigma_1", "1"),
        _early("alignment", "mean |cos(w_i^T, M_j)| over the pairs i in S_sure^T (0 for an empty set)", "1"),
        _early("sign_agreement", "fraction of features whose good neurons' total weight has the sign of w*_j",
               "fraction"),
    ),
)
