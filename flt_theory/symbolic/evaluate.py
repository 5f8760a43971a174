"""Evaluate a parsed sympy expression on arrays of any backend (numpy here, torch in ``numeric``).

One tree walker serves every backend, so the symbolic target and the simulated teacher are the
same object: the numeric layer passes a namespace of torch functions, this module supplies the
numpy one. Only the node types the restricted grammar (:mod:`.parser`) can produce are handled;
anything else raises :class:`~flt_theory.errors.UnsupportedError`.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import sympy as sp

from ..errors import BudgetExceededError, FLTError, InvalidTargetError, UnsupportedError
from .constants import enclose
from .functions import relu, sigmoid

__all__ = ["Backend", "NUMPY", "evaluate"]


@dataclass(frozen=True)
class Backend:
    """The elementary functions an array library provides, by name."""

    name: str
    functions: Mapping[str, Callable[[Any], Any]]


def _call(module: str, name: str, *args: Any) -> Any:
    """``module.name(*args)``, the module imported on the first call (``sys.modules`` after that)."""
    return getattr(importlib.import_module(module), name)(*args)


def _imported(module: str, name: str) -> Callable[[Any], Any]:
    """``module.name`` (``numpy.exp``, ``scipy.special.erf``), imported on first call: a symbolic command on an exact
    target never pays numpy's import (0.1 s), and none pays scipy's (1-2 s)."""

    def call(x: Any) -> Any:
        return _call(module, name, x)

    call.__name__ = name
    return call


NUMPY = Backend(
    "numpy",
    {
        "exp": _imported("numpy", "exp"),
        "sin": _imported("numpy", "sin"),
        "cos": _imported("numpy", "cos"),
        "tanh": _imported("numpy", "tanh"),
        "erf": _imported("scipy.special", "erf"),
        "abs": _imported("numpy", "abs"),
        "sign": _imported("numpy", "sign"),
        "relu": lambda x: _call("numpy", "maximum", x, 0.0),
        "sigmoid": _imported("scipy.special", "expit"),
        "heaviside": lambda x: _call("numpy", "heaviside", x, 0.5),
    },
)

_FUNCTION_NAMES = {
    sp.exp: "exp",
    sp.sin: "sin",
    sp.cos: "cos",
    sp.tanh: "tanh",
    sp.erf: "erf",
    sp.Abs: "abs",
    sp.sign: "sign",
    relu: "relu",
    sigmoid: "sigmoid",
    sp.Heaviside: "heaviside",
}


def evaluate(expr: sp.Expr, variables: Sequence[sp.Symbol], values: Sequence[Any], backend: Backend = NUMPY) -> Any:
    """Evaluate ``expr`` with ``variables[k]`` bound to the array ``values[k]``.

    Powers with non-negative integer exponents use repeated multiplication (exact for Hermite
    polynomials); constants become Python floats so that the backend's dtype is kept.

    >>> import sympy as sp, numpy as np
    >>> z = sp.Symbol("z")
    >>> evaluate(z**2 - 1, [z], [np.array([0.0, 2.0])])
    array([-1.,  3.])
    """
    env = dict(zip(variables, values))
    cache: dict[sp.Basic, Any] = {}
    expr = sp.sympify(expr)
    powers = _integer_powers(expr)
    chains: dict[sp.Basic, dict[int, Any]] = {}

    def power(base: sp.Basic, b: Any, k: int) -> Any:
        """``b**k`` as :func:`_integer_power` computes it, the powers of one base taken from one chain of products."""
        if base not in chains:
            chains[base] = _power_chain(b, powers[base])
        return chains[base][k]

    def walk(node: sp.Basic) -> Any:
        if node in cache:
            return cache[node]
        if node.is_Symbol:
            if node not in env:
                raise UnsupportedError(f"no value given for variable {node}")
            out = env[node]
        elif not node.free_symbols:
            out = constant_float(node)
        elif node.is_Add:
            out = None
            for arg in node.args:
                term = walk(arg)
                out = term if out is None else out + term
        elif node.is_Mul:
            out = None
            for arg in node.args:
                factor = walk(arg)
                out = factor if out is None else out * factor
        elif node.is_Pow:
            base, exponent = node.args
            b = walk(base)
            if exponent.is_Integer and 0 <= int(exponent) <= 64:
                out = power(base, b, int(exponent))
            elif exponent.is_Integer and -64 <= int(exponent) < 0:
                out = 1.0 / power(base, b, -int(exponent))
            else:
                out = b ** float(exponent)
        elif node.func in _FUNCTION_NAMES:
            out = backend.functions[_FUNCTION_NAMES[node.func]](walk(node.args[0]))
        else:
            raise UnsupportedError(f"cannot evaluate {node.func.__name__} nodes numerically (in {str(expr)[:60]})")
        cache[node] = out
        return out

    result = walk(expr)
    if isinstance(result, float) and values:
        result = result + 0.0 * values[0]  # broadcast a constant to the sample shape
    return result


def constant_float(node: sp.Expr) -> float:
    """A real constant of a target as a Python float (through the certified enclosure of
    :mod:`.constants`, so ``cos(2)`` works and a constant beyond the float range is refused).

    >>> constant_float(sp.cos(2))
    -0.4161468365471424
    """
    if node.is_Integer or node.is_Float or node.is_Rational:
        try:
            value = float(node)
        except OverflowError:
            value = math.inf
    else:
        try:
            iv = enclose(node)
        except FLTError as exc:
            raise InvalidTargetError(f"cannot evaluate the constant {node}: {exc}") from None
        value = float((iv.lo + iv.hi) / 2)
    if not math.isfinite(value):
        raise BudgetExceededError(f"the constant {str(node)[:60]} is beyond the floating-point range (about 1.8e308)")
    return value


def _integer_power(base: Any, k: int) -> Any:
    """``base**k`` by ``k - 1`` multiplications from the left, ``((base*base)*base)...``: exact for integers."""
    if k == 0:
        return base * 0.0 + 1.0
    out = base
    for _ in range(k - 1):
        out = out * base
    return out


def _integer_powers(expr: sp.Basic) -> dict[sp.Basic, set[int]]:
    """The exponents ``|k| <= 64`` of the integer powers ``base**k`` of each non-constant base in ``expr``."""
    out: dict[sp.Basic, set[int]] = {}
    seen: set[sp.Basic] = set()
    stack = [expr]
    while stack:  # each distinct node once: a shared subexpression is not walked again
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.is_Pow and node.exp.is_Integer and abs(int(node.exp)) <= 64 and node.base.free_symbols:
            out.setdefault(node.base, set()).add(abs(int(node.exp)))
        stack.extend(node.args)
    return out


def _power_chain(base: Any, exponents: set[int]) -> dict[int, Any]:
    r"""``{k: base**k}`` for ``k`` in ``exponents``, each exactly :func:`_integer_power`'s value (the same products in
    the same order) from one chain :math:`b^{j+1} = b^j \cdot b`: a Hermite polynomial :math:`\mathrm{He}_{64}(u)` of
    an array costs 63 products, not the 1,000 of its 32 powers one by one."""
    out = {k: _integer_power(base, 0) for k in exponents if k == 0}
    top = max(exponents, default=0)
    current = base
    for k in range(1, top + 1):
        if k > 1:
            current = current * base
        if k in exponents:
            out[k] = current
    return out
