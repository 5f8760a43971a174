r"""A predicted law as one object: its value (sympy), its LaTeX (rendered from that value), its
status, its source and its regime.

A :class:`Law` is what the rest of flt_theory exchanges. A system's claim compares a measurement
with a law, and its negative control compares the SAME measurement with a deliberately wrong law —
another :class:`Law`, usually made by :meth:`Law.replace` from the right one. Comparisons read their
prediction from the law (:meth:`Law.exponent`, :meth:`Law.number`, :meth:`Law.numbers`,
:attr:`Law.value` for subspaces), never from a second, hand-typed copy, so editing a law edits its
check.

One source of truth: ``lhs`` is LaTeX of the measured quantity (a name, not a formula to
evaluate); the right-hand side is :attr:`Law.value` — a sympy expression, a number, a tuple of
them, a :class:`~flt_theory.symbolic.subspace.Subspace` or a tuple of subspaces — and its LaTeX is
rendered from that value by :meth:`Law.rhs_latex`.

Sources are :class:`Source` objects (authors, year, title, arXiv id); there is no default source, so
a law is never silently credited to a paper. A finding of this project cites :data:`THIS_PROJECT`.

>>> d, n = sp.symbols("d n", positive=True)
>>> law = Law(name="norm", lhs=r"\|w\|^2 - 1", relation="asymp", value=d / n, status="derived", source=THIS_PROJECT)
>>> law.latex(), law.exponent("n")
('\\|w\\|^2 - 1 \\asymp \\frac{d}{n}', -1)
>>> law.replace(value=d / n**2).exponent("n")
-2
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, cast

import sympy as sp

from ..errors import InvalidParameterError, InvalidParameterTypeError
from .hypothesis import Hypothesis
from .subspace import Subspace

__all__ = ["DIGITS", "Law", "Mutation", "Source", "STATUSES", "SYMBOLS", "THIS_PROJECT", "laws_latex_document",
           "number_latex", "precision_note", "rounded", "significant_digits"]

#: The symbols shared by the giant-step laws (dimension, samples per step, width, step size).
SYMBOLS = {name: sp.Symbol(name, positive=True) for name in ("d", "n", "p", "eta")}

_RELATIONS = {"asymp": r"\asymp", "approx": r"\approx", "eq": "=", "geq": r"\geq", "leq": r"\leq",
              "in": r"\subseteq", "to": r"\to", "subset": r"\subset"}
_RELATION_TEXT = {"asymp": "≍", "approx": "≈", "eq": "=", "geq": "≥", "leq": "≤", "in": "⊆", "to": "→", "subset": "⊂"}

#: ``theorem`` (proved in the source), ``conjecture`` (stated in the source without proof),
#: ``derived`` (derived here from a source's setting, with the derivation in a docstring),
#: ``finding`` (a result of this project that corrects or narrows a stated one).
STATUSES = ("theorem", "conjecture", "derived", "finding")


@dataclass(frozen=True, kw_only=True)
class Source:
    """A citable source: authors, year, title and arXiv id (any of the last two may be empty).

    >>> Source(authors="Dandi, Krzakala, Loureiro, Pesce, Stephan", year=2023, arxiv="2305.18270").cite()
    'Dandi, Krzakala, Loureiro, Pesce, Stephan 2023, arXiv 2305.18270'
    """

    authors: str
    year: int
    title: str = ""
    arxiv: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.authors, str) or not self.authors.strip():
            raise InvalidParameterError(f"The 'authors' of a Source must be a non-empty str. Got {self.authors!r} "
                                        "instead.")

    def cite(self, quotes: tuple[str, str] = ('"', '"')) -> str:
        """``Authors Year, "Title", arXiv id`` with the empty parts left out; ``quotes`` open and close the title
        (a LaTeX document passes its two-backtick opening and two-apostrophe closing quotes).

        >>> print(Source(authors="Ba et al.", year=2022, title="High-dimensional asymptotics").cite(("``", "''")))
        Ba et al. 2022, ``High-dimensional asymptotics''
        """
        parts = [f"{self.authors} {self.year}"]
        if self.title:
            parts.append(f"{quotes[0]}{self.title}{quotes[1]}")
        if self.arxiv:
            parts.append(f"arXiv {self.arxiv}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"authors": self.authors, "year": self.year, "title": self.title, "arxiv": self.arxiv,
                "cite": self.cite()}

    def __str__(self) -> str:
        return self.cite()


#: The source of the findings and derivations of this project.
THIS_PROJECT = Source(authors="flt_theory", year=2026, title="finding of this project (derivation in its docstring)")

LawValue = Any  # sympy expression / number, Subspace, or a tuple of them


def _sympify_value(value: Any) -> Any:
    if isinstance(value, Subspace):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(_sympify_value(v) for v in value)
    if isinstance(value, (sp.Basic, bool)):
        return value
    if isinstance(value, (int, float)):
        return sp.nsimplify(value) if isinstance(value, int) else sp.Float(value)
    raise InvalidParameterTypeError(
        f"The 'value' of a Law must be a sympy expression, a number, a Subspace or a tuple of them. Got {value!r} "
        f"of type {type(value).__name__} instead."
    )


#: Significant digits a law's LaTeX and text show of a floating-point number (a value computed numerically, e.g. a
#: Gauss-Hermite quadrature of a non-polynomial activation), unless :func:`significant_digits` says otherwise; exact
#: numbers (rationals, roots, :math:`\pi`) are shown exactly.
DIGITS = 4
_DIGITS: ContextVar[int] = ContextVar("flt_theory_law_digits", default=DIGITS)


@contextmanager
def significant_digits(digits: int) -> Iterator[None]:
    """Within the block, laws built and printed show their floating-point numbers to ``digits`` significant digits
    (1 to 15; :data:`DIGITS` outside any block). Printing only: no value changes.

    >>> with significant_digits(2):
    ...     rounded(sp.Float(0.605705509602159) * SYMBOLS["p"])
    0.61*p
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 15:
        raise InvalidParameterError(f"The 'digits' parameter of significant_digits must be an int in [1, 15]. Got "
                                    f"{digits!r} instead.")
    token = _DIGITS.set(digits)
    try:
        yield
    finally:
        _DIGITS.reset(token)


def rounded(expr: Any) -> Any:
    """``expr`` (a sympy value; anything else unchanged) with each float rounded to the significant digits in force
    (:func:`significant_digits`), for display."""
    if not isinstance(expr, sp.Basic):
        return expr
    digits = _DIGITS.get()
    return expr.xreplace({f: sp.Float(f, digits) for f in expr.atoms(sp.Float)})


def number_latex(value: Any) -> str:
    """LaTeX of a constant shown in a law's conditions: an exact value in its simplest exact form
    (``sympy.nsimplify``), a float rounded as :func:`rounded` does."""
    value = sp.nsimplify(value) if not isinstance(value, sp.Float) else value
    return cast(str, sp.latex(rounded(value)))


def _latex_number(expr: sp.Basic, names: Mapping[str, str] | None = None) -> str:
    """LaTeX of a sympy value, floats rounded (:func:`rounded`), symbols renamed by ``names``."""
    if isinstance(expr, sp.Basic):
        expr = rounded(expr)
        mapping = {s: names[s.name] for s in expr.free_symbols if names and s.name in names}
        return cast(str, sp.latex(expr, symbol_names=mapping) if mapping else sp.latex(expr))
    return cast(str, sp.latex(expr))


def _value_latex(value: Any, names: Mapping[str, str] | None = None) -> str:
    if isinstance(value, Subspace):
        return value.latex()
    if isinstance(value, tuple):
        return r",\ ".join(_value_latex(v, names) for v in value)
    return _latex_number(value, names)


def _value_text(value: Any) -> str:
    if isinstance(value, Subspace):
        rows = "; ".join("(" + ", ".join(f"{x:.4g}" for x in row) + ")" for row in value.to_json())
        return f"span{{{rows}}}" if value.dim else "{0}"
    if isinstance(value, tuple):
        return ", ".join(_value_text(v) for v in value)
    if isinstance(value, sp.Basic):
        return cast(str, sp.sstr(rounded(value)))
    return str(value)


@dataclass(frozen=True, kw_only=True)
class Law:
    r"""A predicted law ``lhs relation value``.

    Attributes
    ----------
    name
        Short identifier, e.g. ``"one-step threshold"``.
    lhs
        LaTeX of the measured quantity.
    relation
        One of ``asymp, approx, eq, geq, leq, in, to, subset``.
    value
        The prediction (module docstring); its LaTeX is rendered from it.
    conditions
        LaTeX conditions under which the law holds.
    status
        One of :data:`STATUSES`.
    source
        A :class:`Source` (required: no default).
    words
        The law in one line of plain text (tables, JSON); empty: ``lhs relation value`` as text.
    regime
        Plain-text regime of validity (sizes, scalings) where it is narrower than the conditions.
    symbol_latex
        LaTeX of symbols of :attr:`value` whose names are plain identifiers (``{"w0": r"\langle w_i^0,
        w^*_k\rangle"}``).
    hypotheses
        The source's hypotheses as checkable conditions (:class:`~flt_theory.symbolic.hypothesis.Hypothesis`):
        a measurement counts as a check of a theorem only at points where all of them hold.
    hypotheses_reading
        How the hypotheses' asymptotic notation is read, stated once (e.g. "constants 1, polylog factors
        dropped"); with no hypotheses, why there are none (e.g. "the source states no condition beyond its
        setting"). Required when :attr:`hypotheses` is given.
    constants
        Values of the named constants of :attr:`value` that its LaTeX shows (e.g. :math:`c_\sigma` of the overlap
        law, written in its conditions): symbol name -> a number or sympy expression, or a tuple of them for a
        constant indexed by the teacher direction :math:`k = 1, 2, \dots` (entry :math:`k-1`). Substituting them in
        the machine form (``to_dict()["expression"]``) leaves only the law's ``variables`` (sizes, the measured
        inputs), so a program reading ``--json`` evaluates the law to the number the LaTeX shows.
    """

    name: str
    lhs: str
    relation: str
    value: LawValue
    source: Source
    status: str = "theorem"
    conditions: Sequence[str] = ()
    words: str = ""
    regime: str = ""
    symbol_latex: Mapping[str, str] = field(default_factory=dict)
    hypotheses: Sequence[Hypothesis] = ()
    hypotheses_reading: str = ""
    constants: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.relation not in _RELATIONS:
            raise InvalidParameterError(
                f"The 'relation' parameter of Law must be one of {sorted(_RELATIONS)}. Got {self.relation!r} instead."
            )
        if self.status not in STATUSES:
            raise InvalidParameterError(
                f"The 'status' parameter of Law must be one of {list(STATUSES)}. Got {self.status!r} instead."
            )
        if not isinstance(self.source, Source):
            raise InvalidParameterTypeError(
                f"The 'source' parameter of Law must be a Source (authors, year, title, arxiv). Got {self.source!r} "
                "instead."
            )
        object.__setattr__(self, "value", _sympify_value(self.value))
        object.__setattr__(self, "conditions", tuple(self.conditions))
        object.__setattr__(self, "hypotheses", tuple(self.hypotheses))
        bad = [h for h in self.hypotheses if not isinstance(h, Hypothesis)]
        if bad:
            raise InvalidParameterTypeError(
                f"The 'hypotheses' of law {self.name!r} must be Hypothesis objects. Got {bad[0]!r} instead."
            )
        constants = {name: _sympify_value(v) for name, v in dict(self.constants).items()}
        names = {s.name for s in self._expression_symbols()}
        unknown = sorted(set(constants) - names)
        if unknown:
            raise InvalidParameterError(
                f"law {self.name!r}: constants {unknown} are not symbols of its value {_value_text(self.value)}"
            )
        object.__setattr__(self, "constants", constants)
        if self.hypotheses and not self.hypotheses_reading.strip():
            raise InvalidParameterError(
                f"law {self.name!r} has hypotheses but no 'hypotheses_reading' (how constants and log factors are read)"
            )

    # -- rendering ----------------------------------------------------------------------------

    def rhs_latex(self) -> str:
        """LaTeX of :attr:`value` (floats rounded to :data:`DIGITS` significant digits, or as
        :func:`significant_digits` says)."""
        return _value_latex(self.value, self.symbol_latex)

    def latex(self) -> str:
        r"""The law as display LaTeX, conditions in parentheses.

        >>> Law(name="t", lhs="n^*", relation="asymp", value=SYMBOLS["d"] ** 2, conditions=(r"\ell = 2",),
        ...     source=THIS_PROJECT).latex()
        'n^* \\asymp d^{2} \\quad (\\ell = 2)'
        """
        body = f"{self.lhs} {_RELATIONS[self.relation]} {self.rhs_latex()}"
        return body + (r" \quad (" + r",\ ".join(self.conditions) + ")" if self.conditions else "")

    def _repr_latex_(self) -> str:
        return f"$${self.latex()}$$"

    def text(self) -> str:
        """The law in plain text: :attr:`words` if given, else the relation with the value as text."""
        return self.words or f"{self.name} {_RELATION_TEXT[self.relation]} {_value_text(self.value)}"

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "latex": self.latex(),
            "text": self.text(),
            "status": self.status,
            "source": self.source.to_dict(),
            "regime": self.regime,
            "value": _value_text(self.value),
            "expression": None if isinstance(self.value, (tuple, Subspace)) else str(self.value),
            "exponents": self._exponents(),
            "hypotheses": [h.to_dict() for h in self.hypotheses],
            "hypotheses_reading": self.hypotheses_reading,
            "constants": {name: [str(v) for v in value] if isinstance(value, tuple) else str(value)
                          for name, value in sorted(self.constants.items())},
            "variables": sorted(s.name for s in self._expression_symbols() if s.name not in self.constants),
        }

    def _expression_symbols(self) -> set[sp.Symbol]:
        """Free symbols of a scalar :attr:`value` (none for a subspace or a tuple)."""
        if isinstance(self.value, (tuple, Subspace)) or not isinstance(self.value, sp.Basic):
            return set()
        return set(self.value.free_symbols)

    def evaluate_constants(self, direction: int = 1) -> sp.Expr:
        r"""The value with :attr:`constants` substituted (an indexed constant at teacher direction ``direction``,
        1-based): what the LaTeX shows, as an expression in the law's variables.

        >>> c, x = sp.symbols("c x")
        >>> Law(name="t", lhs="y", relation="approx", value=c * x, source=THIS_PROJECT,
        ...     constants={"c": (2, 3)}).evaluate_constants(direction=2)
        3*x
        """
        value = self._expression()
        subs = {}
        for s in value.free_symbols:
            if s.name in self.constants:
                given = self.constants[s.name]
                if isinstance(given, tuple):
                    if not 1 <= direction <= len(given):
                        raise InvalidParameterError(
                            f"law {self.name!r}: direction must be in 1..{len(given)} for constant {s.name!r}; got "
                            f"{direction}")
                    given = given[direction - 1]
                subs[s] = given
        return value.xreplace(subs)

    def _exponents(self) -> dict[str, str]:
        """Exponents of a power-law value in each of its symbols (empty when it is not one)."""
        if isinstance(self.value, (tuple, Subspace)):
            return {}
        expr = sp.sympify(self.value)
        if not _scalar_expression(expr):
            return {}
        out = {}
        for x in sorted(expr.free_symbols, key=lambda s: s.name):
            slope = sp.simplify(x * sp.diff(expr, x) / expr) if expr != 0 else sp.Integer(0)
            if slope.free_symbols:
                return {}
            out[x.name] = str(slope)
        return out

    # -- predictions read by the comparisons ---------------------------------------------------

    def replace(self, **changes: Any) -> "Law":
        """A copy with ``changes`` (e.g. a wrong value for a negative control)."""
        return dataclasses.replace(self, **changes)

    def exponent(self, symbol: str | sp.Symbol) -> float:
        r"""The exponent :math:`\partial \log v/\partial \log x` of a power-law :attr:`value` in ``symbol``.

        Raises :class:`InvalidParameterError` when the value is not a power law in that symbol.
        """
        value = self._expression()
        x = _symbol(value, symbol)
        if x is None:
            return 0.0
        slope = sp.simplify(x * sp.diff(value, x) / value)
        if slope.free_symbols:
            raise InvalidParameterError(f"law {self.name!r}: {self.rhs_latex()} is not a power law in {symbol}")
        number = float(slope)
        return int(number) if number.is_integer() else number

    def number(self, **substitutions: float) -> float:
        """The value as a float after substituting ``substitutions`` (symbols by name)."""
        value = self._expression()
        subs = {s: substitutions[s.name] for s in value.free_symbols if s.name in substitutions}
        out = value.subs(subs)
        if out.free_symbols:
            raise InvalidParameterError(
                f"law {self.name!r}: its value {self.rhs_latex()} still depends on "
                f"{sorted(s.name for s in out.free_symbols)}; give them as keywords"
            )
        result = float(out)
        if not math.isfinite(result):
            raise InvalidParameterError(f"law {self.name!r}: its value is not finite ({result}) at {substitutions}")
        return result

    def numbers(self, **substitutions: float) -> tuple[float, ...]:
        """A tuple :attr:`value` as floats (each entry as in :meth:`number`)."""
        if not isinstance(self.value, tuple):
            return (self.number(**substitutions),)
        return tuple(self.replace(value=v).number(**substitutions) for v in self.value)

    def subspaces(self) -> tuple[Subspace, ...]:
        """A subspace :attr:`value` (or a tuple of them) as a tuple."""
        values = self.value if isinstance(self.value, tuple) else (self.value,)
        if not all(isinstance(v, Subspace) for v in values):
            raise InvalidParameterError(f"law {self.name!r} predicts {self.rhs_latex()}, not subspaces")
        return values

    def mutant(self) -> "Law | None":
        r"""A deliberately wrong copy of the law for mutation tests: a one-sided bound on a number (``geq`` /
        ``leq``) has its side flipped (moving a bound away from the data is no error); a power law gets every
        exponent of its first symbol raised by one (a threshold :math:`d^\ell` becomes :math:`d^{\ell+1}`), a number
        is doubled (0 becomes 1), each entry of a tuple likewise, a subspace of :math:`V^*` is replaced by its
        orthogonal complement (by all of :math:`V^*` when it is :math:`\{0\}` or :math:`V^*` itself, by :math:`\{0\}`
        then). None for a law whose value is a named object (a set, a direction): its comparison dispatches on it,
        and its negative control already names the alternative."""
        def one(value: Any) -> Any:
            if isinstance(value, Subspace):
                if value.dim == 0:
                    return Subspace.full(value.ambient)
                return value.complement() if value.dim < value.ambient else Subspace.zero(value.ambient)
            if isinstance(value, tuple):
                return tuple(one(v) for v in value)
            if not _scalar_expression(value):
                return None
            expr = sp.sympify(value)
            if not isinstance(expr, sp.Expr):  # an interval, a set: a named object
                return None
            if expr.free_symbols:
                if any(isinstance(a, sp.Symbol) and not a.is_positive for a in expr.free_symbols):
                    return None
                first = sorted(expr.free_symbols, key=lambda x: x.name)[0]
                return expr * first
            return sp.Integer(1) if expr == 0 else 2 * expr

        flip = {"geq": "leq", "leq": "geq"}
        scalar = not isinstance(self.value, (tuple, Subspace)) and _scalar_expression(sp.sympify(self.value))
        if self.relation in flip and scalar and not sp.sympify(self.value).free_symbols:
            return self.replace(relation=flip[self.relation], name=f"mutant of {self.name}", words="mutant of: "
                                                                                                   f"{self.text()}")
        value = one(self.value)
        if value is None or (isinstance(value, tuple) and any(v is None for v in value)):
            return None
        return self.replace(value=value, name=f"mutant of {self.name}", words=f"mutant of: {self.text()}")

    def mutation_panel(self) -> list["Mutation"]:
        r"""Mutants of the law for calibration (``flt calibrate``): wrong laws of graded size, each
        compared with the same measurement as the law to measure the power of its check.

        * a power law: every exponent of every symbol :math:`\pm 0.25, \pm 0.5, \pm 1` (a threshold
          :math:`n^* \asymp d^{\ell}` is an exponent of :math:`d`: these are the threshold mutants), including
          the size symbols :data:`SYMBOLS` the law omits (its exponent 0 there is a prediction too: "the boundary
          does not depend on :math:`d`");
        * a number: scaled by 0.8 and 1.25, and by 0.5 and 2 (0 is moved by +0.5 and +1); a one-sided
          bound only in the direction that makes it false (a lower bound raised by ×1.25, ×2, an upper
          bound lowered by ×0.8, ×0.5 — the other direction is a weaker, still true, law), and its side
          flipped;
        * a tuple of numbers (bounds; entries may hold the size symbols d, n, p, eta): all entries scaled likewise;
        * subspaces of :math:`V^*`: every basis vector rotated by 30° towards the complement, and a neighbour
          (one direction of the complement added, or the last direction dropped);
        * a named object (a set, a direction): no mutant (its comparison dispatches on it).
        """
        out: list[Mutation] = []

        def add(kind: str, size: float, label: str, **changes: Any) -> None:
            law = self.replace(name=f"{self.name} [{label}]", words=f"mutant {label} of: {self.text()}", **changes)
            out.append(Mutation(kind=kind, size=size, label=label, law=law))

        value = self.value
        if isinstance(value, Subspace) or (
            isinstance(value, tuple) and value and all(isinstance(v, Subspace) for v in value)
        ):
            spaces = value if isinstance(value, tuple) else (value,)
            wrap = (lambda vs: tuple(vs)) if isinstance(value, tuple) else (lambda vs: vs[0])
            rotated = [_rotate(u, math.pi / 6) for u in spaces]
            if all(r is not None for r in rotated):
                add("subspace rotation", 30.0, "rotated 30°", value=wrap(rotated))
            for name, change in (("one direction added", _add_direction), ("one direction dropped", _drop_direction)):
                moved = [change(u) for u in spaces]
                if all(m is not None for m in moved) and any(m != u for m, u in zip(moved, spaces)):
                    add("subspace neighbour", 1.0, name, value=wrap(moved))
            return out
        # a lower bound is only made false by raising it, an upper bound by lowering it
        factors = {"geq": (1.25, 2.0), "leq": (0.8, 0.5)}.get(self.relation, (0.8, 1.25, 0.5, 2.0))
        if isinstance(value, tuple):
            # entries may depend on the measurement's sizes (d, n, p, eta: read by the comparison), not on other symbols
            # (Theorem 3's (c, s) holds a flag s beside its bound; a growth law's step size and norms are its own)
            if all(_scalar_expression(v) and {x.name for x in v.free_symbols} <= set(SYMBOLS) for v in value):
                for factor in factors:
                    add("bound scale", abs(math.log(factor)), f"×{factor:g}",
                        value=tuple(v * sp.nsimplify(factor) for v in value))
            return out
        if isinstance(value, sp.Basic) and isinstance(value, sp.Symbol) and not value.is_positive:
            return out  # a named object
        expr = sp.sympify(value)
        if not _scalar_expression(expr):  # an interval, a set, a matrix expression: a named object
            return out
        if expr.free_symbols and self._exponents():  # a power law in every symbol
            if not all(x.is_positive for x in expr.free_symbols):
                return out
            # the size symbols the law omits too: exponent 0 is a prediction ("independent of d"); a comparison
            # that does not read a symbol leaves its mutants inert, and calibration drops them
            named = {x.name for x in expr.free_symbols}
            symbols = sorted(
                [*expr.free_symbols, *(x for name, x in SYMBOLS.items() if name not in named)], key=lambda y: y.name
            )
            for x in symbols:
                for delta in (-1.0, -0.5, -0.25, 0.25, 0.5, 1.0):
                    add(f"exponent of {x.name}", abs(delta), f"{x.name} exponent {delta:+g}",
                        value=expr * x ** sp.nsimplify(delta))
            return out
        if expr == 0:
            for shift in (0.5, 1.0):
                add("value shift", shift, f"+{shift:g}", value=sp.nsimplify(shift))
        else:
            for factor in factors:
                add("value scale", abs(math.log(factor)), f"×{factor:g}", value=expr * sp.nsimplify(factor))
        if self.relation in ("geq", "leq"):
            add("bound side", 1.0, "side flipped", relation="leq" if self.relation == "geq" else "geq")
        return out

    def _expression(self) -> sp.Expr:
        if isinstance(self.value, (tuple, Subspace)):
            raise InvalidParameterError(f"law {self.name!r} predicts {self.rhs_latex()}, not one number or expression")
        return sp.sympify(self.value)


def _scalar_expression(value: Any) -> bool:
    """A commutative scalar sympy expression (not a set, an interval or a matrix expression)."""
    return isinstance(value, sp.Expr) and not isinstance(value, sp.MatrixExpr) and bool(value.is_commutative)


@dataclass(frozen=True, kw_only=True)
class Mutation:
    """A mutant of a law: its kind (``"exponent of d"``, ``"subspace rotation"``, ...), its size within
    the kind (the power of a check is the smallest size it rejects), a label, and the mutated law."""

    kind: str
    size: float
    label: str
    law: Law


def _rotate(u: Subspace, angle: float) -> Subspace | None:
    """``u`` with every orthonormal basis vector turned by ``angle`` towards the complement (None if
    ``u`` is {0} or everything)."""
    if u.dim == 0 or u.dim == u.ambient:
        return None
    basis, comp = u.numpy(), u.complement().numpy()
    rows = [math.cos(angle) * b + math.sin(angle) * comp[i % len(comp)] for i, b in enumerate(basis)]
    return Subspace.span([[float(x) for x in r] for r in rows], u.ambient)


def _add_direction(u: Subspace) -> Subspace | None:
    if u.dim == u.ambient:
        return None
    comp = u.complement().numpy()
    return Subspace.span([[float(x) for x in r] for r in [*u.numpy(), comp[0]]], u.ambient)


def _drop_direction(u: Subspace) -> Subspace | None:
    if u.dim == 0:
        return None
    rows = u.numpy()[:-1]
    return Subspace.span([[float(x) for x in r] for r in rows], u.ambient) if len(rows) else Subspace.zero(u.ambient)


def _symbol(expr: sp.Expr, name: str | sp.Symbol) -> sp.Symbol | None:
    name = name.name if isinstance(name, sp.Symbol) else name
    return next((s for s in expr.free_symbols if s.name == name), None)


# LaTeX's opening and closing double quotes (a straight ``"`` prints as a closing quote on both sides).
_LATEX_QUOTES = ("``", "''")

_TEXT_ESCAPES = {"\\": r"\textbackslash{}", "_": r"\_", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "{": r"\{",
                 "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_text(text: str) -> str:
    """Escape LaTeX's special characters in running text (law names, sources).

    >>> print(_latex_text("staircase U_1 (50% & more)"))
    staircase U\\_1 (50\\% \\& more)
    """
    return "".join(_TEXT_ESCAPES.get(ch, ch) for ch in text)


def laws_latex_document(target: Any, laws: Sequence[Law], title: str | None = None, *, expanded: bool = False) -> str:
    r"""A standalone LaTeX document listing ``laws`` for ``target`` (one numbered item each). The target is written
    as its text was, each :math:`\mathrm{He}_k` kept (:func:`~flt_theory.symbolic.display.written_latex`), or with
    ``expanded`` (or a target not given as one text) as the expanded expression (:meth:`Target.latex`); a sentence
    says how many significant digits its decimal numbers have (:func:`significant_digits`)."""
    from .display import written_latex

    shown = None if expanded else written_latex(target)
    lines = [
        r"\documentclass{article}",
        r"\usepackage{amsmath,amssymb}",
        r"\begin{document}",
        r"\section*{" + _latex_text(title or "Predicted laws") + "}",
        r"Target: $f^*(z) = " + (shown or target.latex()) + r"$, with $z_k = \langle x, w^*_k\rangle$; "
        r"Hermite convention: probabilists' $\mathrm{He}_j$, $\mathbb{E}[\mathrm{He}_j\mathrm{He}_k] = "
        r"j!\,\delta_{jk}$. " + _latex_text(precision_note()) + ".",
        r"\begin{enumerate}",
    ]
    for law in laws:
        lines.append(rf"\item \textbf{{{_latex_text(law.name)}}} ({law.status}; "
                     rf"{_latex_text(law.source.cite(_LATEX_QUOTES))}): \[ {law.latex()} \]")
    lines += [r"\end{enumerate}", r"\end{document}", ""]
    return "\n".join(lines)


def precision_note() -> str:
    """How a law's numbers are shown, in words (the significant digits in force: :func:`significant_digits`).

    >>> precision_note().endswith("a numerical value (e.g. a Gauss-Hermite quadrature) rounded to 4 significant digits")
    True
    """
    return ("Numbers are exact (rationals, roots, pi) where derived exactly; a decimal number is a numerical value "
            f"(e.g. a Gauss-Hermite quadrature) rounded to {_DIGITS.get()} significant digits")
