"""Numeric layer (torch only): data, teacher, student, activations, seed streams and observables.

Seeds are the leading batch dimension of every tensor; see :mod:`.data` for the seed contract. Training algorithms
that belong to one system live in that system's folder (the giant-step engine:
:mod:`flt_theory.systems.giant_step.engine`).
"""

from .activation import Activation, as_activation
from .backend import TORCH, NonFiniteError, check_finite, resolve_device, resolve_dtype
from .data import BLOCK_ROWS, as_seeds, gaussian_chunks, seeded_normal, teacher_directions
from .observables import (
    complement_basis,
    least_direction_mass,
    norm_growth,
    overlaps,
    principal_angles,
    random_mass_baseline,
    subspace_mass,
    top_direction_overlap,
    update_singular_values,
)
from .seeds import fold_in, stream_generator
from .student import Student
from .teacher import Teacher

__all__ = [
    "BLOCK_ROWS",
    "TORCH",
    "Activation",
    "NonFiniteError",
    "Student",
    "Teacher",
    "as_activation",
    "as_seeds",
    "check_finite",
    "complement_basis",
    "fold_in",
    "least_direction_mass",
    "gaussian_chunks",
    "norm_growth",
    "overlaps",
    "principal_angles",
    "random_mass_baseline",
    "resolve_device",
    "resolve_dtype",
    "seeded_normal",
    "stream_generator",
    "subspace_mass",
    "teacher_directions",
    "top_direction_overlap",
    "update_singular_values",
]
