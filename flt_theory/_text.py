"""Plain-text and JSON presentation helpers shared by the CLI and the systems' ``flt simulate`` commands.

Numbers as short text, subspaces as ``span{w1 + w2}``, aligned tables, and JSON-ready values (no NaN:
``None``). Nothing here computes; it only formats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import sympy as sp

from .symbolic.subspace import Subspace

__all__ = ["as_float", "basis", "json_ready", "number_text", "subspace_text", "table"]


def as_float(value: Any) -> float:
    """A JSON-ready float (``-0.0`` becomes ``0.0``)."""
    number = float(value)
    return 0.0 if number == 0 else number


def basis(subspace: Subspace) -> list[list[float]]:
    return [[as_float(x) for x in row] for row in subspace.to_json()]


def number_text(value: Any) -> str:
    """``1`` for an integral value, else a short decimal.

    >>> number_text(2.0), number_text(1.5), number_text(sp.Integer(57))
    ('2', '1.5', '57')
    """
    if isinstance(value, sp.Basic) and value.is_Integer:
        return str(value)
    number = float(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else f"{number:.10g}"


def subspace_text(subspace: Subspace) -> str:
    """Plain-text span of a subspace (vectors unnormalised when exact).

    >>> subspace_text(Subspace.span([[1, 1, 0], [0, 0, 2]], 3))
    'span{w1 + w2, w3}'
    >>> subspace_text(Subspace.zero(2)), subspace_text(Subspace.span([[0.0, -1.0, 0.0]], 3))
    ('{0}', 'span{w2}')
    """
    if subspace.dim == 0:
        return "{0}"
    if subspace.dim == subspace.ambient:  # all of V*, however the basis came out
        return "span{" + ", ".join(f"w{k}" for k in range(1, subspace.ambient + 1)) + "}"
    parts = []
    for row in subspace.rows():
        if subspace.is_exact:
            scale = next(e for e in row if not e.is_zero)
            coeffs: Sequence[Any] = [sp.nsimplify(e / scale) for e in row]
        else:  # unit vector, sign fixed so that its first nonzero entry is positive
            coeffs = [float(e) if abs(float(e)) > 1e-12 else 0.0 for e in row]
            sign = math.copysign(1.0, next(c for c in coeffs if c != 0))
            coeffs = [sign * c + 0.0 for c in coeffs]
        terms = []
        for k, c in enumerate(coeffs, start=1):
            if c == 0:
                continue
            if c == 1:
                terms.append(f"w{k}")
            elif c == -1:
                terms.append(f"-w{k}")
            else:
                shown = f"{c:.4g}" if isinstance(c, float) else str(c)
                terms.append(f"({shown})*w{k}" if isinstance(c, sp.Add) else f"{shown}*w{k}")
        parts.append(" + ".join(terms).replace("+ -", "- "))
    return "span{" + ", ".join(parts) + "}"


def json_ready(value: Any) -> Any:
    """``value`` with every non-finite float replaced by ``None`` (JSON has no NaN) and ``-0.0`` by ``0.0``.

    >>> json_ready({"a": [1.0, float("nan")], "b": -0.0, "c": "x"})
    {'a': [1.0, None], 'b': 0.0, 'c': 'x'}
    """
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    if isinstance(value, float):
        return as_float(value) if math.isfinite(value) else None
    return value


def table(rows: Sequence[Sequence[str]], indent: str = "") -> str:
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)
