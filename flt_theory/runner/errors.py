"""Errors of the experiment runner and of ``flt check``.

All derive from :class:`~flt_theory.errors.FLTError` and from the builtin that fits, so callers may
catch either. Every store error says which file, what went wrong, and that the results already in
the store were left as they were.
"""

from __future__ import annotations

from ..errors import FLTError

__all__ = [
    "BackendError",
    "CorruptStoreError",
    "ExperimentError",
    "ForeignStoreError",
    "StoreConflictError",
    "StoreError",
    "StoreWriteError",
    "UnknownClaimPathError",
    "UnknownExperimentError",
]


class StoreError(FLTError):
    """A results store could not be opened, read or written."""


class CorruptStoreError(StoreError, ValueError):
    """The file is not an SQLite database, or its pages are damaged."""


class ForeignStoreError(StoreError, ValueError):
    """The file is an SQLite database of another application (or of a newer flt_theory); it is left untouched."""


class StoreWriteError(StoreError, OSError):
    """A result could not be written (disk full, read-only file, I/O error); nothing was half-written."""


class StoreConflictError(StoreError, RuntimeError):
    """Rows a sweep had computed were replaced or deleted by another process while it ran (a process sweeping
    the same points with other code, or ``--fresh``); nothing stale is returned, and a rerun recomputes them."""


class UnknownExperimentError(FLTError, ValueError):
    """No experiment is registered under the requested name."""


class ExperimentError(FLTError, RuntimeError):
    """An experiment raised, or returned something other than a mapping of names to real numbers."""


class DivergedPointError(ExperimentError):
    """A point produced NaN or infinity (a diverged run): nothing of it is stored, and a rerun retries it.
    Its parameters are the user's to change (``flt sweep`` exits 2)."""


class BackendError(FLTError, RuntimeError):
    """The execution backend (process pool, Dask) is unavailable or could not be reached."""


class UnknownClaimPathError(FLTError, ValueError):
    """A path given to ``flt check`` is neither a claim key, a system, nor a derivation file."""
