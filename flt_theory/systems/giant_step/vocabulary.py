"""The names of the giant-step system, declared once (:mod:`flt_theory.systems.vocabulary`).

``flt simulate giant-step`` takes the target as its argument or as ``--target`` (the parameter's name, as every
other system spells it), or as ``--links``, which sets the same parameter."""

from __future__ import annotations

from ..vocabulary import Observable, Observables, Vocabulary, from_fields
from .declaration import RECORD_FIELDS

__all__ = ["VOCABULARY"]

VOCABULARY = Vocabulary(
    observables=Observables(
        *from_fields(RECORD_FIELDS, {"mass_V": ("giant-step/one-step-mass",),
                                     "test_error": ("giant-step/second-layer",),
                                     "step": (), "mass_V_ci": (), "mass_V_random": (), "mass_dirs": (),
                                     "mass_staircase": ()}),
        Observable("excess_mass", "(mass_V - r/d) / (1 - r/d): mass_V above that of a random direction, as a fraction "
                   "of what is left", "1", experiments=("giant-step/one-step-mass",)),
        Observable("norm_growth", "||w_i^1||^2 - 1 after one giant step, mean over neurons", "1",
                   experiments=("giant-step/norm-growth",)),
        Observable("sv_ratio{k}", "s_k / s_(k+1): gap after the k-th singular value of the update W^1 - W^0", "1",
                   experiments=("giant-step/spike",)),
        Observable("top{k}_{a}{b}", "entry (a, b) of the projector of the top-k right singular subspace of the update "
                   "onto the teacher directions (mean over seeds of c_a . c_b)", "1",
                   experiments=("giant-step/spike",)),
        Observable("m{t}_{a}{b}", "entry (a, b) of the second moment of the first-layer weights after giant step t "
                   "along the teacher directions, mean over neurons", "1", experiments=("giant-step/staircase",)),
    ),
    options={"links": "target"},
)
