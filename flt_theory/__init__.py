"""flt_theory: derive, simulate and check feature-learning-theory laws of two-layer networks.

Layers (imports point downward only): :mod:`flt_theory.symbolic` (sympy) predicts,
:mod:`flt_theory.numeric` (torch) simulates, :mod:`flt_theory.compare` (numpy/scipy) gives
verdicts, :mod:`flt_theory.systems` wires them per system of CLAIMS.md, :mod:`flt_theory.cli` is
the ``flt`` command.
"""

from .errors import FLTError, InvalidParameterError, InvalidParameterTypeError, InvalidTargetError, UnsupportedError
from .symbolic import (
    Law,
    Subspace,
    Target,
    conditional_variance,
    giant_step_laws,
    hermite_coefficients,
    hermite_expansion,
    information_exponent,
    laws_latex_document,
    leap_complexity,
    leap_index,
    learned_subspace,
    one_step_subspace,
    project,
    random_feature_error,
    regime_table,
    staircase,
)

__version__ = "0.1.0"


def __getattr__(name: str):
    """``sweep`` and ``check`` load the runner (pandas, torch) only when first used."""
    if name == "sweep":
        from .runner import sweep

        return sweep
    if name == "check":
        from .report import check

        return check
    raise AttributeError(f"module 'flt_theory' has no attribute {name!r}")

__all__ = [
    "FLTError",
    "InvalidParameterError",
    "InvalidParameterTypeError",
    "InvalidTargetError",
    "Law",
    "Subspace",
    "Target",
    "UnsupportedError",
    "conditional_variance",
    "giant_step_laws",
    "hermite_coefficients",
    "hermite_expansion",
    "information_exponent",
    "laws_latex_document",
    "leap_complexity",
    "leap_index",
    "learned_subspace",
    "one_step_subspace",
    "project",
    "random_feature_error",
    "regime_table",
    "staircase",
    "check",
    "sweep",
    "__version__",
]
