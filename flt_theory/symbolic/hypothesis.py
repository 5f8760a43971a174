r"""A theorem's hypotheses as conditions the code can check.

A theorem is its statement AND its hypotheses: "benign overfitting iff :math:`n\,\mathrm{SNR}^q \gtrsim 1`" is
proved by Cao, Chen, Belkin, Gu 2022 (arXiv 2202.06526) only where their Condition 4.2 holds — among others
:math:`d \ge \tilde\Omega(m^4 n^4)` at :math:`q = 3`. A measurement outside such a condition is not a check
of the theorem, whatever it finds. A :class:`Hypothesis` is one such condition: a sympy relation over named
positive symbols (``d >= m**4 * n**4``), the words and the place in the source it comes from (``"Condition
4.2(1)"``). A :class:`~flt_theory.symbolic.law.Law` carries its source's hypotheses and ONE sentence saying how
their asymptotic notation is read (:attr:`Law.hypotheses_reading`, e.g. "constants 1, polylog factors
dropped"); every measurement point of a claim is then classified against them
(:func:`classify_points`): ``"all"`` / ``"some"`` / ``"none"`` of the points satisfy every hypothesis, or
``"not stated"`` when the law carries none.

Reading asymptotic conditions. Sources state their conditions up to unspecified constants and log
factors (:math:`\tilde\Omega`, :math:`\tilde O`); a check needs numbers. The reading is a choice, stated
once per law, and it is the weakest honest one: a point is "inside" when the condition holds with every
hidden constant set to 1 and polylog factors dropped, unless the law says otherwise. "Inside" therefore
means "inside as far as a reader with constants 1 can tell" — the theorem's own constants may be larger.

>>> d, n, m = sp.symbols("d n m", positive=True)
>>> h = Hypothesis(text="d at least m^4 n^4", condition=d >= m**4 * n**4, where="Condition 4.2(1)")
>>> h.holds({"d": 1e5, "n": 16, "m": 10}), h.holds({"d": 1e14, "n": 16, "m": 10})
(False, True)
>>> h.latex
'd \\geq m^{4} n^{4}'
>>> classify_points((h,), [{"d": 1e5, "n": 16, "m": 10}, {"d": 1e14, "n": 16, "m": 10}])
'some'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..errors import InvalidParameterError, InvalidParameterTypeError

__all__ = ["IN_HYPOTHESES", "Hypothesis", "classify_points", "failed_hypotheses", "point_inside"]

#: The classification of a set of measurement points against a law's hypotheses.
IN_HYPOTHESES = ("all", "some", "none", "not stated")


@dataclass(frozen=True, kw_only=True)
class Hypothesis:
    r"""One hypothesis of a source's theorem, as a checkable condition.

    Attributes
    ----------
    text
        The hypothesis in plain words (``"d at least m^4 n^4 (up to logs)"``).
    condition
        A sympy relation (``d >= m**4*n**4``) or a conjunction of relations over named symbols; the
        symbols are read from a measurement point by name (:meth:`holds`).
    where
        Where the source states it: theorem, lemma, condition or assumption number.
    latex
        LaTeX of the condition (rendered from :attr:`condition` when empty).
    """

    text: str
    condition: Any
    where: str
    latex: str = field(default="")

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise InvalidParameterError(f"The 'text' of a Hypothesis must be a non-empty str. Got {self.text!r} "
                                        "instead.")
        if not isinstance(self.where, str) or not self.where.strip():
            raise InvalidParameterError(
                f"The 'where' of hypothesis {self.text!r} must name its theorem, lemma or condition. Got "
                f"{self.where!r} instead."
            )
        if not isinstance(self.condition, (sp.core.relational.Relational, sp.logic.boolalg.BooleanFunction)):
            raise InvalidParameterTypeError(
                f"The 'condition' of hypothesis {self.text!r} must be a sympy relation (e.g. d >= n**2) or a "
                f"conjunction of them. Got {self.condition!r} of type {type(self.condition).__name__} instead."
            )
        if not self.latex:
            object.__setattr__(self, "latex", sp.latex(self.condition))

    @property
    def symbols(self) -> tuple[str, ...]:
        """The names of the symbols the condition reads, sorted."""
        return tuple(sorted(s.name for s in self.condition.free_symbols))

    def holds(self, values: Mapping[str, Any]) -> bool | None:
        """Whether the condition holds at ``values`` (symbol name -> number); None when a symbol is missing.

        Raises :class:`InvalidParameterError` when a value is not a finite real number.
        """
        subs = {}
        for s in self.condition.free_symbols:
            if s.name not in values or values[s.name] is None:
                return None
            value = values[s.name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
                raise InvalidParameterError(
                    f"hypothesis {self.text!r} reads {s.name!r}, which must be a finite real number. Got {value!r} "
                    "instead."
                )
            subs[s] = sp.Integer(value) if isinstance(value, int) else sp.Float(value, 30)
        out = self.condition.xreplace(subs)
        if out not in (sp.true, sp.false):
            out = sp.simplify(out)
        if out not in (sp.true, sp.false):
            raise InvalidParameterError(f"hypothesis {self.text!r} could not be decided at {dict(values)}: {out}")
        return bool(out)

    def to_dict(self) -> dict[str, str]:
        """``{"text", "latex", "condition", "where"}`` (condition: the sympy relation as a string)."""
        return {"text": self.text, "latex": self.latex, "condition": sp.sstr(self.condition), "where": self.where}


def failed_hypotheses(hypotheses: Sequence[Hypothesis], values: Mapping[str, Any]) -> list[Hypothesis]:
    """The hypotheses that fail at ``values``.

    Raises :class:`InvalidParameterError` when one cannot be read there (a symbol the point lacks): a
    hypothesis the measurement cannot be classified against is a defect of the declaration, not a pass.
    """
    out = []
    for h in hypotheses:
        holds = h.holds(values)
        if holds is None:
            missing = sorted(set(h.symbols) - {k for k, v in values.items() if v is not None})
            raise InvalidParameterError(
                f"hypothesis {h.text!r} ({h.where}) reads {missing}, which the measurement point {dict(values)} does "
                "not give"
            )
        if not holds:
            out.append(h)
    return out


def point_inside(hypotheses: Sequence[Hypothesis], values: Mapping[str, Any]) -> bool:
    """Whether every hypothesis holds at ``values`` (see :func:`failed_hypotheses`)."""
    return not failed_hypotheses(hypotheses, values)


def classify_points(hypotheses: Sequence[Hypothesis], points: Sequence[Mapping[str, Any]]) -> str:
    """``"all"``, ``"some"`` or ``"none"`` of ``points`` satisfy every hypothesis; ``"not stated"`` when
    there are no hypotheses (or no points)."""
    if not hypotheses or not points:
        return "not stated"
    inside = [point_inside(hypotheses, p) for p in points]
    return "all" if all(inside) else "some" if any(inside) else "none"
