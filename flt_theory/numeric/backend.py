r"""Torch backend of the expression evaluator, and device / dtype resolution.

:data:`TORCH` is the namespace of torch functions that :func:`flt_theory.symbolic.evaluate.evaluate`
uses to turn a parsed sympy expression (a target :math:`g`, an activation :math:`\sigma` or its
derivative :math:`\sigma'`) into a tensor program; every numeric object of this package evaluates
its formulas through it, so the symbolic layer and the simulation cannot drift apart.

The Heaviside step is :math:`H(x) = \mathbb 1[x > 0] + \tfrac12 \mathbb 1[x = 0]`, sympy's convention
:math:`H(0) = 1/2` (it is what ``sympy.diff(relu(z), z)`` produces).
"""

from __future__ import annotations

import torch

from ..errors import FLTError, InvalidParameterError, InvalidParameterTypeError
from ..symbolic.evaluate import Backend

__all__ = ["to_numpy", "TORCH", "NonFiniteError", "check_finite", "resolve_device", "resolve_dtype"]

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
        "heaviside": lambda x: torch.sign(x).add_(1.0).mul_(0.5),  # (1 + sign x) / 2: H(0) = 1/2
    },
)

_DTYPES = {"float32": torch.float32, "float64": torch.float64}


class NonFiniteError(FLTError, FloatingPointError):
    """A simulation produced NaN or infinite values (training diverged, or the target overflowed)."""


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
