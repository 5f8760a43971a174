"""Symbolic layer (sympy only): targets, Hermite expansions, exponents, subspaces, projections, laws.

The names of ``__all__`` are loaded on first use (a module ``__getattr__``): a command that needs a few of them
(``flt leap`` needs the parser, the target, the expansion and the exponents) imports only their modules, not the
laws or the projections, and no numpy: the modules import numpy inside the functions that compute with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: The module of this package that defines each public name.
_HOMES = {
    "expansion": ("expand_target",),
    "hermite": ("HermiteCoefficients", "HermiteExpansion", "hermite_coefficients", "hermite_expansion",
                "hermite_tensor", "monomial_to_hermite", "unfold"),
    "hypothesis": ("Hypothesis", "classify_points"),
    "law": ("SYMBOLS", "THIS_PROJECT", "Law", "Source", "laws_latex_document"),
    "leap": ("information_exponent", "leap_complexity", "leap_complexity_of_support", "leap_index"),
    "one_step": ("one_step_subspace", "student_coefficient"),
    "parser": ("parse_expression", "variable"),
    "projections": ("ProjectionResult", "RegimeRow", "conditional_variance", "format_hermite", "learned_subspace",
                    "project", "random_feature_error", "regime_table"),
    "staircase": ("conditional_mean_gradient", "staircase", "staircase_step"),
    "staircase_sizes": ("StepSize", "staircase_sizes"),
    "subspace": ("Subspace",),
    "target": ("Target", "parse_link"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

# ``staircase`` and ``staircase_sizes`` name a module and its function: bound now, so that the package attribute is
# the function (importing a module later binds the module to its name only on the module's first import).
from .staircase import staircase  # noqa: E402
from .staircase_sizes import staircase_sizes  # noqa: E402

if TYPE_CHECKING:  # the same names, for type checkers and for the code fingerprint (it reads import statements)
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

def __getattr__(name: str) -> Any:
    """A public name (imported from its module on first use), or a submodule by its name."""
    if name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
        globals()[name] = value
        return value
    if not name.startswith("_"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
