"""The calibration of ``flt calibrate`` lives in :mod:`flt_theory.checking.calibrate`; this module keeps, for one
release, the names imported from here before the application layer (:mod:`flt_theory.checking`) existed, loaded on
first use (importing this module imports no application layer, system or torch)."""

from typing import Any

__all__: list[str] = []  # the moved names are no API of this module any more

#: Names that lived here, now in :mod:`flt_theory.checking.calibrate`.
_MOVED = ("is_inert", "mutant_result")


def __getattr__(name: str) -> Any:
    """``is_inert`` and ``mutant_result``, from :mod:`flt_theory.checking.calibrate`."""
    if name in _MOVED:
        from ..checking.calibrate import is_inert, mutant_result

        return {"is_inert": is_inert, "mutant_result": mutant_result}[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
