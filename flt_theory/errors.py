"""Exception hierarchy of flt_theory.

Every error the library raises on bad input derives from :class:`FLTError` and from the builtin
that fits (``ValueError`` for a bad value, ``TypeError`` for the wrong kind), so callers may catch
either. Messages name the parameter, the value received and what was expected.
"""

from __future__ import annotations

__all__ = [
    "FLTError",
    "InvalidTargetError",
    "InvalidParameterError",
    "InvalidParameterTypeError",
    "UnsupportedError",
]


class FLTError(Exception):
    """Base class of every error raised by flt_theory."""


class InvalidTargetError(FLTError, ValueError):
    """A target expression could not be parsed or is not a valid target function."""


class InvalidParameterError(FLTError, ValueError):
    """A parameter has the right type but an invalid value (e.g. a negative degree)."""


class InvalidParameterTypeError(FLTError, TypeError):
    """A parameter has the wrong type."""


class UnsupportedError(FLTError, NotImplementedError):
    """The request is well formed but outside what flt_theory can compute exactly or at all."""
