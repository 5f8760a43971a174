"""Uniform parameter checks: one message shape for every public function.

Messages read like ``"The 'degree' parameter of hermite_coefficients must be an int >= 0. Got -3
instead."`` (after scikit-learn's declared parameter constraints).
"""

from __future__ import annotations

import math
import numbers
import os

from .errors import InvalidParameterError, InvalidParameterTypeError

__all__ = ["check_int", "check_real", "env_limit", "physical_memory"]


def _where(name: str, caller: str | None) -> str:
    return f"The {name!r} parameter" + (f" of {caller}" if caller else "")


def check_int(
    value: object,
    name: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    caller: str | None = None,
) -> int:
    """Return ``value`` as an ``int`` after checking its type and bounds.

    >>> check_int(3, "degree", minimum=0)
    3
    """
    bounds = _bounds_text(minimum, maximum)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterTypeError(
            f"{_where(name, caller)} must be an int{bounds}. Got {value!r} of type "
            f"{type(value).__name__} instead."
        )
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise InvalidParameterError(f"{_where(name, caller)} must be an int{bounds}. Got {value} instead.")
    return value


def check_real(
    value: object,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    strict_minimum: bool = False,
    caller: str | None = None,
) -> float:
    """Return ``value`` as a finite ``float`` after checking its type and bounds.

    >>> check_real(1.5, "kappa", minimum=0)
    1.5
    """
    bounds = _bounds_text(minimum, maximum, strict_minimum)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterTypeError(
            f"{_where(name, caller)} must be a real number{bounds}. Got {value!r} of type "
            f"{type(value).__name__} instead."
        )
    value = float(value)
    bad = not math.isfinite(value)
    if minimum is not None:
        bad = bad or (value <= minimum if strict_minimum else value < minimum)
    if maximum is not None:
        bad = bad or value > maximum
    if bad:
        raise InvalidParameterError(
            f"{_where(name, caller)} must be a finite real number{bounds}. Got {value} instead."
        )
    return value


def _bounds_text(minimum, maximum, strict_minimum: bool = False) -> str:
    parts = []
    if minimum is not None:
        parts.append(f"{'>' if strict_minimum else '>='} {minimum}")
    if maximum is not None:
        parts.append(f"<= {maximum}")
    return (" " + " and ".join(parts)) if parts else ""


def env_limit(name: str, default: float, memory: bool) -> float:
    """A positive limit read from the environment variable ``name`` (``default`` when unset): bytes with an optional
    binary suffix K, M, G or T when ``memory``, else seconds; anything else is refused naming the variable.

    >>> env_limit("FLT_DOCTEST_UNSET_LIMIT", 5.0, memory=False)
    5.0
    """
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    scale = 1.0
    if memory and text[-1:].upper() in ("K", "M", "G", "T"):
        scale, text = 1024.0 ** ("KMGT".index(text[-1].upper()) + 1), text[:-1]
    try:
        value = float(text) * scale
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InvalidParameterError(f"The environment variable {name} must be a positive number"
                                    f"{' of bytes (suffix K, M, G or T allowed)' if memory else ' of seconds'}. "
                                    f"Got {os.environ[name]!r} instead.")
    return value


def physical_memory() -> float:
    """Bytes of physical memory (8 GiB where the platform does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # not POSIX: assume a small machine
        return 8.0 * 2**30
