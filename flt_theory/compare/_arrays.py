"""Array and option checks shared by the comparators, with one message shape for every bad input.

Messages follow :mod:`flt_theory._validation`: ``"The 'y' parameter of fit_power_law must be a
finite real array of shape (seeds, points). Got shape (3,) instead."``
"""

from __future__ import annotations

import numbers
from typing import Literal, TypeGuard, cast

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_int, check_real
from ..errors import InvalidParameterError, InvalidParameterTypeError

__all__ = [
    "Bounds",
    "Mode",
    "as_array",
    "check_bounds",
    "check_within", "check_confidence", "check_mode", "check_nonnegative", "check_options", "is_scalar"]

Mode = Literal["consistent", "demonstrated"]
#: The range ``(low, high)`` of a bounded quantity; either end may be infinite.
Bounds = tuple[float, float]


def _where(name: str, caller: str) -> str:
    return f"The {name!r} parameter of {caller}"


def as_array(
    value: ArrayLike,
    name: str,
    caller: str,
    *,
    shape: str,
    min_len: int = 1,
    positive: str | None = None,
    unit_interval: bool = False,
) -> np.ndarray:
    """Return ``value`` as a finite float array of the documented ``shape`` (e.g. ``"(seeds, points)"``).

    The number of axes is read off ``shape``; ``"(seeds, ...)"`` accepts any array with axes.
    ``min_len`` bounds the length of axis 0; ``positive`` (the reason, for the message) demands
    entries > 0; ``unit_interval`` demands entries in [0, 1] (masses).

    >>> as_array([[1, 2]], "y", "f", shape="(seeds, points)").dtype
    dtype('float64')
    """
    what = f"a finite real array of shape {shape}"
    try:
        raw = np.asarray(value)
    except ValueError:  # ragged nested sequences
        raw = np.asarray(None)
    if raw.dtype.kind not in "iuf":
        raise InvalidParameterTypeError(
            f"{_where(name, caller)} must be {what}. Got {type(value).__name__} of dtype {raw.dtype} instead."
        )
    array = raw.astype(float)
    ndim = sum(1 for axis in shape.strip("()").split(",") if axis.strip())
    if array.ndim < 1 if "..." in shape else array.ndim != ndim:
        raise InvalidParameterError(f"{_where(name, caller)} must be {what}. Got shape {array.shape} instead.")
    if ndim and array.shape[0] < min_len:
        axis = shape.strip("()").split(",")[0].strip()
        raise InvalidParameterError(
            f"{_where(name, caller)} must have at least {min_len} {axis} along axis 0 of {shape}. "
            f"Got shape {array.shape} instead."
        )
    for bad, expected in (
        (~np.isfinite(array), "finite"),
        (array <= 0 if positive else None, f"> 0 ({positive})"),
        ((array < 0) | (array > 1 + 1e-9) if unit_interval else None, "in [0, 1] (a mass)"),
    ):
        if bad is not None:
            _refuse_entries(array, bad, f"{_where(name, caller)} must be {expected} everywhere.")
    return array


def _refuse_entries(array: np.ndarray, bad: np.ndarray, must: str) -> None:
    """Raise ``InvalidParameterError`` (``must``, then the first bad entry and its index) if any of ``bad`` is set."""
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidParameterError(f"{must} Got {array[index]} at index {index} instead.")


def check_confidence(confidence: float, caller: str) -> float:
    """Return ``confidence`` after checking 0 < confidence < 1.

    >>> check_confidence(0.95, "f")
    0.95
    """
    value = check_real(confidence, "confidence", minimum=0, strict_minimum=True, maximum=1, caller=caller)
    if value == 1:
        raise InvalidParameterError(
            f"{_where('confidence', caller)} must be < 1 (a finite interval). Got {value} instead."
        )
    return value


def check_options(confidence: float, n_resamples: int, caller: str) -> tuple[float, int]:
    """Check the bootstrap options every comparator takes.

    >>> check_options(0.9, 100, "f")
    (0.9, 100)
    """
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1, caller=caller)
    return check_confidence(confidence, caller), n_resamples


def check_bounds(bounds: object, caller: str) -> Bounds | None:
    """Check a quantity's range: None, or a pair ``(low, high)`` of reals with ``low < high`` (ends may be infinite).

    >>> check_bounds((0, 1), "f"), check_bounds((0, float("inf")), "f"), check_bounds(None, "f")
    ((0.0, 1.0), (0.0, inf), None)
    >>> check_bounds((1, 0), "f")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: The 'bounds' parameter of f must be a pair (low, high) with low < high.
    Got (1.0, 0.0) instead.
    """
    if bounds is None:
        return None
    what = "must be a pair (low, high) of reals (either may be infinite) or None"
    if isinstance(bounds, (str, bytes)) or np.shape(cast(ArrayLike, bounds)) != (2,):
        raise InvalidParameterTypeError(f"{_where('bounds', caller)} {what}. Got {bounds!r} instead.")
    first, second = cast("tuple[object, object]", bounds)  # a pair: its shape is (2,)
    if not (_is_real(first) and _is_real(second)):
        raise InvalidParameterTypeError(f"{_where('bounds', caller)} {what}. Got {bounds!r} instead.")
    low, high = float(first), float(second)
    if not low < high:  # also catches NaN
        raise InvalidParameterError(
            f"{_where('bounds', caller)} must be a pair (low, high) with low < high. Got ({low}, {high}) instead."
        )
    return low, high


def _is_real(end: object) -> TypeGuard[numbers.Real]:
    """Whether ``end`` is a real number (a bool is not)."""
    return isinstance(end, numbers.Real) and not isinstance(end, bool)


def check_within(array: np.ndarray, bounds: Bounds | None, name: str, caller: str) -> np.ndarray:
    """Check that every entry of ``array`` lies in ``[low, high]`` (nothing to check without bounds).

    >>> check_within(np.array([0.2, 1.5]), (0.0, 1.0), "values", "f")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: The 'values' parameter of f must lie within bounds [0, 1] everywhere.
    Got 1.5 at index (1,) instead.
    """
    if bounds is not None:
        bad = (array < bounds[0]) | (array > bounds[1])
        within = f"[{bounds[0]:g}, {bounds[1]:g}]"
        _refuse_entries(array, bad, f"{_where(name, caller)} must lie within bounds {within} everywhere.")
    return array


def check_mode(mode: object, caller: str) -> Mode:
    """Check a one-sided check's ``mode`` ('consistent' or 'demonstrated').

    >>> check_mode("consistent", "f")
    'consistent'
    """
    if mode not in ("consistent", "demonstrated"):
        raise InvalidParameterError(
            f"{_where('mode', caller)} must be 'consistent' or 'demonstrated'. Got {mode!r} instead."
        )
    return mode


def check_nonnegative(value: float, name: str, caller: str) -> float:
    """Check a tolerance-like real >= 0.

    >>> check_nonnegative(0.1, "tolerance", "f")
    0.1
    """
    return check_real(value, name, minimum=0, caller=caller)


def is_scalar(value: object) -> bool:
    """Whether ``value`` is a real scalar (not an array of seeds).

    >>> is_scalar(0.5), is_scalar([0.5, 0.4])
    (True, False)
    """
    return isinstance(value, numbers.Real) or np.ndim(cast(ArrayLike, value)) == 0
