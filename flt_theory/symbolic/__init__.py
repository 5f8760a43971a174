"""Symbolic layer (sympy only): targets, Hermite expansions, exponents, subspaces, projections, laws."""

from .expansion import expand_target
from .hermite import (
    HermiteCoefficients,
    HermiteExpansion,
    hermite_coefficients,
    hermite_expansion,
    hermite_tensor,
    monomial_to_hermite,
    unfold,
)
from .hypothesis import Hypothesis, classify_points
from .law import SYMBOLS, THIS_PROJECT, Law, Source, laws_latex_document
from .leap import information_exponent, leap_complexity, leap_complexity_of_support, leap_index
from .one_step import one_step_subspace, student_coefficient
from .parser import parse_expression, variable
from .projections import (
    ProjectionResult,
    RegimeRow,
    conditional_variance,
    format_hermite,
    learned_subspace,
    project,
    random_feature_error,
    regime_table,
)
from .staircase import conditional_mean_gradient, staircase, staircase_step
from .staircase_sizes import StepSize, staircase_sizes
from .subspace import Subspace
from .target import Target, parse_link

__all__ = [
    "HermiteCoefficients",
    "HermiteExpansion",
    "Hypothesis",
    "Law",
    "ProjectionResult",
    "RegimeRow",
    "SYMBOLS",
    "Source",
    "THIS_PROJECT",
    "Subspace",
    "Target",
    "classify_points",
    "conditional_mean_gradient",
    "conditional_variance",
    "expand_target",
    "format_hermite",
    "hermite_coefficients",
    "hermite_expansion",
    "hermite_tensor",
    "information_exponent",
    "laws_latex_document",
    "leap_complexity",
    "leap_complexity_of_support",
    "leap_index",
    "learned_subspace",
    "monomial_to_hermite",
    "one_step_subspace",
    "parse_expression",
    "parse_link",
    "project",
    "random_feature_error",
    "regime_table",
    "staircase",
    "staircase_sizes",
    "staircase_step",
    "StepSize",
    "student_coefficient",
    "unfold",
    "variable",
]
