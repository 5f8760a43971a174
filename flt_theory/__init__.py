"""flt_theory: derive, simulate and check feature-learning-theory laws of two-layer networks.

Layers (imports point downward only): :mod:`flt_theory.symbolic` (sympy) predicts,
:mod:`flt_theory.numeric` (torch) simulates, :mod:`flt_theory.compare` (numpy/scipy) gives
verdicts, :mod:`flt_theory.systems` wires them, one folder per system (found by discovery), :mod:`flt_theory.cli` is
the ``flt`` command.
"""

from .errors import FLTError, InvalidParameterError, InvalidParameterTypeError, InvalidTargetError, UnsupportedError

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


#: Names of :mod:`flt_theory.symbolic` offered here.
_SYMBOLIC_API = (
    "Hypothesis",
    "Law",
    "Source",
    "Subspace",
    "Target",
    "conditional_variance",
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
)

#: Names of :mod:`flt_theory.systems` offered here.
_SYSTEMS_API = ("Claim", "Measurement", "Option", "SimulateCommand", "System")

#: Names loaded on first use, name -> "module:attribute": ``import flt_theory`` (hence ``flt --version``) imports
#: no sympy, numpy, torch or pandas.
_LAZY = {
    **{name: f"{__name__}.symbolic:{name}" for name in _SYMBOLIC_API},
    **{name: f"{__name__}.systems:{name}" for name in _SYSTEMS_API},
    "check": f"{__name__}.checking.check:check",
    "check_system": f"{__name__}.testing:check_system",
    "verify": f"{__name__}.systems.giant_step.verify:verify",
    "verify_law": f"{__name__}.laws_check.verify:verify_law",
    "measure_mass": f"{__name__}.systems.giant_step.simulate:measure_mass",
    "giant_step_laws": f"{__name__}.systems.giant_step.laws:giant_step_laws",
}


def __getattr__(name: str):
    """The names of :data:`_LAZY`, and ``sweep`` (which first discovers the systems, so that their experiments are
    known by name), imported when first used."""
    if name == "sweep":
        from .runner import sweep
        from .systems import discover

        discover()
        return sweep
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name].split(":")
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "FLTError",
    "InvalidParameterError",
    "InvalidParameterTypeError",
    "InvalidTargetError",
    "UnsupportedError",
    *_SYMBOLIC_API,
    *_SYSTEMS_API,
    "check",
    "check_system",
    "giant_step_laws",
    "measure_mass",
    "simulate",
    "sweep",
    "verify",
    "verify_law",
    "__version__",
]
