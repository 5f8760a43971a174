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
    "DivergenceError",
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


class DivergenceError(FLTError, ArithmeticError):
    """A run produced NaN or infinite values (training diverged, or the target overflowed); the
    message names the parameter to change (e.g. ``eta``) and its value."""


class BudgetExceededError(FLTError, ValueError):
    """The request is well formed but would exceed a work budget (degree, number of terms, size of a
    constant, precision). The message names the limit and the environment variable that raises it
    (see :mod:`flt_theory.symbolic.budget`)."""


class NotSquareIntegrableError(InvalidTargetError):
    """A function whose square-integrability under N(0, 1) could not be established, so no Hermite
    expansion is computed; the message says why (e.g. a pole, or growth like exp(q z^2) with q >= 1/4)."""
