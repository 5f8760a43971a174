"""flt_theory: derive, simulate and check feature-learning-theory laws of two-layer networks.

Layers (imports point downward only): :mod:`flt_theory.symbolic` (sympy) predicts,
:mod:`flt_theory.numeric` (torch) simulates, :mod:`flt_theory.compare` (numpy/scipy) gives
verdicts, :mod:`flt_theory.systems` wires them, one folder per system (found by discovery), :mod:`flt_theory.cli` is
the ``flt`` command.
"""

from .errors import FLTError, InvalidParameterError, InvalidParameterTypeError, InvalidTargetError, UnsupportedError
from .symbolic import (
    Hypothesis,
    Law,
    Source,
    Subspace,
    Target,
    conditional_variance,
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


def simulate(system: str, **options):
    """The Python twin of ``flt simulate SYSTEM``: the same JSON-ready document ``{"system", "records", ...}``.

    ``options`` are the subcommand's options by their Python names (``flt simulate SYSTEM --help``).
    """
    from .systems import get_system

    spec = get_system(system).simulate
    if spec is None:
        raise InvalidParameterError(f"system {system!r} declares no simulate command")
    return {k: v for k, v in spec.run(**options).items() if not k.startswith("_")}


#: Names of :mod:`flt_theory.systems` offered here (loaded on first use).
_SYSTEMS_API = ("Claim", "Measurement", "Option", "SimulateCommand", "System")


def __getattr__(name: str):
    """``sweep``, ``check`` and the systems' names load the runner and systems (pandas, torch) only
    when first used."""
    if name == "sweep":
        from .runner import sweep
        from .systems import discover

        discover()  # the systems' experiments become known by name
        return sweep
    if name == "check":
        from .report import check

        return check
    if name in _SYSTEMS_API:
        from . import systems

        return getattr(systems, name)
    if name == "verify":
        from .systems.giant_step.verify import verify

        return verify
    if name == "measure_mass":
        from .systems.giant_step.simulate import measure_mass

        return measure_mass
    if name == "simulate":
        return simulate
    if name == "giant_step_laws":
        from .systems.giant_step.laws import giant_step_laws

        return giant_step_laws
    raise AttributeError(f"module 'flt_theory' has no attribute {name!r}")

__all__ = [
    "FLTError",
    "InvalidParameterError",
    "InvalidParameterTypeError",
    "InvalidTargetError",
    "Hypothesis",
    "Law",
    "Source",
    "Claim",
    "Measurement",
    "Option",
    "SimulateCommand",
    "System",
    "verify",
    "measure_mass",
    "simulate",
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
