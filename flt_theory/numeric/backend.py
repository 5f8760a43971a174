r"""Torch backend of the expression evaluator, and device / dtype resolution.

:data:`TORCH` is the namespace of torch functions that :func:`flt_theory.symbolic.evaluate.evaluate`
uses to turn a parsed sympy expression (a target :math:`g`, an activation :math:`\sigma` or its
derivative :math:`\sigma'`) into a tensor program; every numeric object of this package evaluates
its formulas through it, so the symbolic layer and the simulation cannot drift apart.

The Heaviside step is :math:`H(x) = \mathbb 1[x > 0] + \tfrac12 \mathbb 1[x = 0]`, sympy's convention
:math:`H(0) = 1/2` (it is what ``sympy.diff(relu(z), z)`` produces).

Threads (one place decides them)
--------------------------------
The numeric layer runs two kinds of CPU work that alternate and never overlap: torch's intra-op
threads (GEMMs, elementwise passes) and the Gaussian sampler, whose serial ``torch.randn`` calls
(one per seed and block, see :mod:`.data`) run on a pool of :func:`sampler_workers` Python threads.
:func:`configure_threads` sets the intra-op count; the sampler uses the same count, never more
than the cores this process may run on, so at no time are more threads runnable than
:func:`configure_threads` allows. Resolution order: the ``threads`` argument, then the environment
variable ``FLT_THREADS``, else torch's own choice is left alone (``OMP_NUM_THREADS`` if set when torch
loaded, else the number of cores; this is what :mod:`flt_theory.runner.executors` sets per pool
worker). On a machine shared with other processes ask for fewer threads than cores: an OpenMP team
whose thread shares a core with another process waits for it at every barrier.
"""

from __future__ import annotations

import os
from typing import TypedDict

import torch

from ..errors import DivergenceError, InvalidParameterError, InvalidParameterTypeError
from ..symbolic.evaluate import Backend

__all__ = [
    "TensorOptions",
    "THREADS_ENV",
    "TORCH",
    "NonFiniteError",
    "available_cores",
    "check_finite",
    "configure_threads",
    "resolve_device",
    "resolve_dtype",
    "sampler_workers",
    "to_numpy",
]

#: Environment variable read by :func:`configure_threads` when no ``threads`` argument is given.
THREADS_ENV = "FLT_THREADS"


def _heaviside(x: torch.Tensor) -> torch.Tensor:
    r""":math:`H(x)` with :math:`H(0) = 1/2` (module docstring) and 0 at NaN, what ``torch.heaviside(x, 0.5)`` gives,
    as :math:`(\operatorname{sign}(x) + 1)/2` (exact: the values are 0, 1/2, 1) with NaN set to 0: four vectorised
    passes take about half the time of ``torch.heaviside``, whose CPU kernel is scalar."""
    return torch.sign(x).add_(1).mul_(0.5).masked_fill_(torch.isnan(x), 0.0)


#: The torch functions by the names :func:`flt_theory.symbolic.evaluate.evaluate` asks for (module docstring).
TORCH = Backend(
    "torch",
    {
        "exp": torch.exp,
        "sin": torch.sin,
        "cos": torch.cos,
        "tanh": torch.tanh,
        "erf": torch.erf,
        "abs": torch.abs,
        "sign": torch.sign,
        "relu": torch.relu,
        "sigmoid": torch.sigmoid,
        "heaviside": _heaviside,
    },
)


_DTYPES = {"float32": torch.float32, "float64": torch.float64}


class NonFiniteError(DivergenceError, FloatingPointError):
    """A simulation produced NaN or infinite values (training diverged, or the target overflowed);
    a :class:`~flt_theory.errors.DivergenceError`."""


class TensorOptions(TypedDict):
    """The keywords ``device=``, ``dtype=`` that every tensor of a run is made with (``torch.zeros(..., **opts)``)."""

    device: torch.device
    dtype: torch.dtype


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the OS has one).

    >>> available_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def configure_threads(threads: int | None = None) -> int:
    """Decide torch's intra-op CPU thread count (module docstring) and return it.

    ``threads`` if given, else ``$FLT_THREADS`` if set, else torch's current count is kept; capped at
    :func:`available_cores`. Calls ``torch.set_num_threads`` only when the count changes.

    >>> configure_threads(1)
    1
    """
    if threads is None:
        text = os.environ.get(THREADS_ENV, "").strip()
        if not text:
            return min(torch.get_num_threads(), available_cores())
        try:
            threads = int(text)
        except ValueError:
            raise InvalidParameterError(
                f"The environment variable {THREADS_ENV} must be an int >= 1. Got {text!r} instead."
            ) from None
        source = f"environment variable {THREADS_ENV}"
    else:
        source = "'threads' parameter"
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise InvalidParameterError(f"The {source} must be an int >= 1. Got {threads!r} instead.")
    threads = min(threads, available_cores())
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads


def sampler_workers() -> int:
    """Threads drawing Gaussian blocks on the CPU: torch's intra-op count, at most the available
    cores (the sampling and the GEMM phases alternate, so the two never run at once).

    >>> 1 <= sampler_workers() <= available_cores()
    True
    """
    return max(1, min(torch.get_num_threads(), available_cores()))


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """The torch device for ``device``: ``"auto"`` is CUDA when available, else the CPU.

    >>> resolve_device("cpu")
    device(type='cpu')
    """
    if isinstance(device, torch.device):
        resolved = device
    elif isinstance(device, str):
        if device == "auto":
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        try:
            resolved = torch.device(device)
        except RuntimeError:
            raise InvalidParameterError(
                f"The 'device' parameter must be 'auto', 'cpu', 'cuda' or 'cuda:<index>'. Got {device!r} instead."
            ) from None
    else:
        raise InvalidParameterTypeError(
            f"The 'device' parameter must be a str or a torch.device. Got {device!r} of type "
            f"{type(device).__name__} instead."
        )
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise InvalidParameterError(f"The 'device' parameter is {str(resolved)!r} but CUDA is not available here.")
    if resolved.type not in ("cpu", "cuda"):
        raise InvalidParameterError(
            f"The 'device' parameter must be a CPU or CUDA device. Got {str(resolved)!r} instead."
        )
    return resolved


def resolve_dtype(dtype: str | torch.dtype = "float32") -> torch.dtype:
    """``torch.float32`` (default) or ``torch.float64``, from a name or a torch dtype.

    >>> resolve_dtype("float64")
    torch.float64
    """
    if dtype in _DTYPES.values():
        return dtype  # type: ignore[return-value]
    if isinstance(dtype, str) and dtype in _DTYPES:
        return _DTYPES[dtype]
    raise InvalidParameterError(f"The 'dtype' parameter must be 'float32' or 'float64'. Got {dtype!r} instead.")


def check_finite(tensor: torch.Tensor, what: str, hint: str = "") -> torch.Tensor:
    """Return ``tensor`` unchanged, or raise :class:`NonFiniteError` naming ``what`` if any entry
    is NaN or infinite.

    >>> check_finite(torch.tensor([float("nan")]), "the loss")
    Traceback (most recent call last):
    ...
    flt_theory.numeric.backend.NonFiniteError: the loss contains NaN or infinite values
    """
    if not bool(torch.isfinite(tensor).all()):
        raise NonFiniteError(f"{what} contains NaN or infinite values" + (f"; {hint}" if hint else ""))
    return tensor


def to_numpy(tensor: torch.Tensor):
    """A tensor (any device, any dtype) as a float64 numpy array, for the comparator layer.

    >>> to_numpy(torch.tensor([1.0, 2.0])).dtype
    dtype('float64')
    """
    return tensor.detach().to("cpu", torch.float64).numpy()
