"""The calibration of ``flt calibrate`` lives in :mod:`flt_theory.checking.calibrate`; this module keeps, for one
release, the names imported from here before the application layer (:mod:`flt_theory.checking`) existed."""

from ..checking.calibrate import is_inert, mutant_result

__all__ = ["is_inert", "mutant_result"]
