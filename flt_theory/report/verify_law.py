r"""Your own scaling law for any system: ``flt verify --system SYSTEM --law "OBS ~ EXPR"``.

A researcher's conjecture about a simulated system is often one line — "the noise memorisation :math:`\rho_{\max}`
grows like :math:`\sqrt{d/n}`", "the NTK relative change is :math:`N^{-1/2}`". :func:`verify_law` checks such an
**observable law** against the system's own simulation, with nothing written per system:

1. **Parse** ``OBS ~ EXPR`` (:func:`parse_observable_law`): ``OBS`` is an output of one of the system's runner
   experiments, ``EXPR`` a product of powers of that experiment's numeric parameters and positive constants, read
   by a restricted grammar of products, quotients, numeric powers and ``sqrt`` (``_PowerLawParser``: no
   ``eval``, no ``sympify`` of user text). The law says :math:`\mathbb E[\mathrm{OBS}] = C \prod_i x_i^{b_i}` for
   some constant :math:`C > 0`.
2. **Design** the grid (:func:`design_grid`): the parameters given by ``over`` take those values (their full
   product). Without ``over`` every parameter of ``EXPR`` varies alone around a base point the system already
   declares (the first small-scale point of a claim measuring the same experiment; ``fix`` overriding it) — a
   *star* design, :math:`1 + 4k` points for :math:`k` parameters, enough to fit the :math:`k` exponents jointly —
   over the widest range that ``budget``, the experiment's calibrated cost model and the stated hypotheses of the
   system's claims on that experiment allow (:mod:`.law_design`), or over :data:`FACTORS` times the base without a
   budget. Points the experiment's declared cost refuses are dropped; the plan (points, seeds, estimated seconds,
   points outside the hypotheses) is passed to ``on_plan`` before anything runs, and refused when it exceeds
   ``budget``; a designed point whose simulation fails is dropped and reported.
3. **Fit** jointly, over the grid, :math:`\log \overline{\mathrm{OBS}} = a + \sum_i b_i \log x_i` for every varied
   parameter (:func:`~flt_theory.compare.power_law.check_power_law_nd`: seed bootstrap, Bonferroni over the
   exponents); a varied parameter absent from ``EXPR`` is predicted exponent 0.
4. **Decide** with the **mutation panel** of the same measurement (:meth:`ObservableLaw.wrong_laws`,
   :mod:`.law_verdict`): each exponent of EXPR moved by ± 1/2 and ± 1 (:data:`MUTATIONS`), each varied parameter
   EXPR lacks given exponent ± 1/2. The law *passes* when every predicted exponent lies in its interval AND every
   goal mutant (± 1/2, :data:`WRONG_SHIFT`) is rejected; it *fails* when the data exclude it; it is
   *inconclusive* when a goal mutant passes too, with the seeds or the wider range that would separate them. All
   are read from one joint interval at level ``alpha``, so the family-wise level covers the law and its mutants.
   ``OBS = EXPR``, ``OBS <= EXPR`` and ``OBS >= EXPR`` (:func:`parse_relation_law`: EXPR with its constant) are
   decided point by point without a fit (:func:`~flt_theory.report.law_verdict.decide_relation`).

A parameter of ``EXPR`` that the grid holds fixed cannot be tested; it is reported as such, never counted as
agreement.

**Level-set laws** ``PARAM* ~ EXPR`` with ``where="OBS = LEVEL"`` (``flt verify --law "eta* ~ (n*p**2/d)**(1/2)"
--where "norm_growth = 1" --over d=64,128,256,512 --fix n=64``: the norm law :math:`\|w^1\|^2 - 1 \asymp
d\eta^2/(np^2)` of Dandi et al. 2023, arXiv 2305.18270, reaches 1 at :math:`\eta^* \propto (np^2/d)^{1/2}`). PARAM is
a numeric parameter of the experiment absent from EXPR, ``over`` and ``fix``; at every grid point it is solved for
where the seed-mean of OBS crosses LEVEL (:mod:`.level_set`: doubling/halving from its declared value to a
bracket, bounded, refused with an error naming the point when the admissible range holds no crossing; bisection in
:math:`\log` PARAM to 2%; every evaluation a seeded, stored :func:`~flt_theory.runner.sweep` with the same seeds at
every value of a point). **The interval.** The seeds are split into ``groups`` disjoint groups (default: one per
seed) and each group's crossing is interpolated on the same evaluations, linearly in :math:`(\log \mathrm{PARAM},
\log \mathrm{OBS})`. The (groups, points) table of these crossings is fitted by
:func:`~flt_theory.compare.power_law.check_power_law_nd` exactly as a (seeds, points) table: its rows are
independent (disjoint seeds), each row holds one group's crossings at every point (correlated, like one seed's
observations: resampled whole), so its row bootstrap is the seed bootstrap it is calibrated for, and
:math:`\log` of the row mean is fitted. Bootstrap replicates of the crossing would NOT do as rows: they are not
independent and resampling them measures the Monte-Carlo error of the replicates (shrinking as
:math:`1/\sqrt B`), not the seeds'. What is estimated is the exponent of :math:`\mathbb E[\mathrm{PARAM}^*_g]`,
the crossing of a group's mean curve, which differs from the crossing of :math:`\mathbb E[\mathrm{OBS}]` by a
Jensen term that varies along the grid only as the relative spread of OBS does (the same caveat as the observable
form's mean over seeds; larger groups shrink it as 1/size, at the price of fewer rows). The mutation panel is
fitted on the same table. The JSON document, the fit figure and the report: :class:`LawVerification`,
:mod:`.law_figure`.

>>> law = parse_observable_law("rho_max ~ (d/n)**(1/2)", ["n", "d", "width"])
>>> law.observable, law.exponents
('rho_max', {'d': 0.5, 'n': -0.5})
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..errors import InvalidParameterError

__all__ = ["FACTORS", "MUTATIONS", "RELATIONS", "WRONG_SHIFT", "LawVerification", "LevelSetLaw", "ObservableLaw",
           "design_grid", "is_level_set", "parse_level_set_law", "parse_observable_law", "parse_relation_law",
           "plan_text", "relation_of", "verify_law"]

#: Multiples of a parameter's base value that a grid designed without ``over`` takes (a 16-fold range, 1.2 decades).
FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
#: How far each goal mutant moves one exponent, as the calibration's goal mutants do (exponent ± 1/2).
WRONG_SHIFT = 0.5
#: The shifts of an exponent of EXPR in the mutation panel (each up and down).
MUTATIONS = (WRONG_SHIFT, 1.0)
#: The relations a law may state: ``~`` (a power law up to a constant, fitted) and ``=``, ``<=``, ``>=`` (the
#: value itself at every grid point, constant included, no fit).
RELATIONS = ("~", "=", "<=", ">=")

#: Longest law text read (a bound on the parser's work).
MAX_LAW_LENGTH = 400
#: Largest absolute value of an exponent in a law (as in the target grammar).
MAX_EXPONENT = 64
_TOKEN = re.compile(r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
                    r"|(?P<op>\*\*|[-+*/()]))")


class _PowerLawParser:
    r"""A recursive-descent reader of a product of powers (no ``eval``, no ``sympify``)::

        product  := power (('*' | '/') power)*
        power    := atom ('**' exponent)?
        atom     := NUMBER | 'pi' | NAME | 'sqrt' '(' product ')' | '(' product ')'
        exponent := ('+' | '-') exponent | NUMBER | '(' constant ')'
        constant := a sum, difference, product or quotient of NUMBERs (e.g. ``(1/2)``, ``(-1/3)``)

    Its value is the monomial ``(coefficient, {name: exponent})``; exponents are exact fractions where the text is.
    """

    def __init__(self, text: str, parameters: Sequence[str]):
        self.text, self.parameters, self.tokens, position = text, set(parameters), [], 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                if text[position:].strip() == "":
                    break
                raise InvalidParameterError(f"--law: cannot read {text!r} at position {position}: "
                                            f"{text[position:position + 12]!r}")
            kind = match.lastgroup
            self.tokens.append((kind, match.group(kind), match.start(kind)))
            position = match.end()
        self.tokens.append(("end", "", len(text)))
        self.index = 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.index]

    def take(self, value: str | None = None) -> tuple[str, str, int]:
        token = self.tokens[self.index]
        if value is not None and token[1] != value:
            raise self.error(token, f"expected {value!r}")
        self.index += 1
        return token

    def error(self, token: tuple[str, str, int], why: str) -> InvalidParameterError:
        shown = repr(token[1]) if token[1] else "the end"
        return InvalidParameterError(f"--law: cannot read {self.text!r}: {why} at {shown} (position {token[2]})")

    def parse(self) -> tuple[Fraction | float, dict[str, Fraction | float]]:
        value = self.product()
        token = self.peek()
        if token[0] != "end":
            why = "a power law is a product of powers (no sums)" if token[1] in "+-" else "unexpected text"
            raise self.error(token, why)
        return value

    def product(self):
        coefficient, exponents = self.power()
        while self.peek()[1] in ("*", "/"):
            sign = 1 if self.take()[1] == "*" else -1
            c, e = self.power()
            coefficient = coefficient * c if sign > 0 else coefficient / c
            for name, b in e.items():
                exponents[name] = exponents.get(name, 0) + sign * b
        return coefficient, {k: v for k, v in exponents.items() if v != 0}

    def power(self):
        coefficient, exponents = self.atom()
        if self.peek()[1] == "**":
            self.take()
            token = self.peek()
            b = self.exponent()
            if abs(b) > MAX_EXPONENT:
                raise self.error(token, f"an exponent of absolute value over {MAX_EXPONENT}")
            if coefficient <= 0 and b != int(b):
                raise self.error(self.peek(), "a non-integer power of a non-positive constant")
            try:  # in floats: an exact big-integer power of a constant would be unbounded work
                coefficient = float(coefficient) ** float(b)
            except (OverflowError, ZeroDivisionError):
                raise self.error(token, "a constant out of the floating-point range") from None
            exponents = {k: v * b for k, v in exponents.items()}
            if any(abs(v) > MAX_EXPONENT for v in exponents.values()):
                raise self.error(token, f"an exponent of absolute value over {MAX_EXPONENT}")
        return coefficient, exponents

    def atom(self):
        kind, value, position = token = self.take()
        if kind == "number":
            return _exact(value), {}
        if kind == "name":
            if value == "pi":
                return math.pi, {}
            if value == "sqrt":
                self.take("(")
                coefficient, exponents = self.product()
                self.take(")")
                return coefficient ** 0.5, {k: v / 2 for k, v in exponents.items()}
            if value in self.parameters:
                return Fraction(1), {value: Fraction(1)}
            if value in _FUNCTIONS:
                raise self.error(token, f"{value}(...) of a parameter is not a power law")
            raise InvalidParameterError(f"--law: unknown name {value!r} in {self.text!r}; the parameters it may use "
                                        f"are {', '.join(sorted(self.parameters))}.")
        if value == "(":
            result = self.product()
            self.take(")")
            return result
        raise self.error(token, "expected a number, a parameter or '('")

    def exponent(self):
        kind, value, _ = token = self.peek()
        if value in ("+", "-"):
            self.take()
            return self.exponent() if value == "+" else -self.exponent()
        if kind == "number":
            self.take()
            return _exact(value)
        if value == "(":
            self.take()
            result = self.constant()
            self.take(")")
            return result
        raise self.error(token, "an exponent must be a number or a parenthesised constant such as (1/2)")

    def constant(self):
        total = self.constant_term()
        while self.peek()[1] in ("+", "-"):
            sign = self.take()[1]
            term = self.constant_term()
            total = total + term if sign == "+" else total - term
        return total

    def constant_term(self):
        value = self.exponent()
        while self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            other = self.exponent()
            if op == "/" and other == 0:
                raise self.error(self.peek(), "division by zero in an exponent")
            value = value * other if op == "*" else value / other
        return value


#: Functions of the target grammar: named in the error when a law applies one to a parameter.
_FUNCTIONS = {"relu", "tanh", "sigmoid", "erf", "exp", "log", "sin", "cos", "abs", "sign"}


def _exact(text: str) -> Fraction | float:
    """A number as an exact fraction where it is a plain decimal of reasonable size, else a float."""
    number = Fraction(text)
    if abs(number.numerator) > 10**18 or number.denominator > 10**18:
        return float(number)
    return number


@dataclasses.dataclass(frozen=True)
class ObservableLaw:
    """``OBS ~ EXPR`` parsed: the observable's name, the expression (sympy, in positive symbols named as the
    parameters), the exponent of each parameter it contains, its constant factor and the relation (``~``: up to a
    constant; ``=``, ``<=``, ``>=``: the value itself, constant included)."""

    text: str
    observable: str
    expression: Any
    exponents: dict[str, float]
    coefficient: float = 1.0
    relation: str = "~"

    @property
    def lhs(self) -> str:
        """The left side as written (``OBS``, or ``PARAM*`` for a level-set law)."""
        return self.observable

    def mutant_text(self, exponents: Mapping[str, float]) -> str:
        """The law with ``exponents`` in place of its own (the same left side, relation and constant)."""
        factors = [f"{k}**({Fraction(v).limit_denominator(64)})" for k, v in sorted(exponents.items()) if v != 0]
        if self.relation != "~" and self.coefficient != 1:
            factors.insert(0, f"{self.coefficient:.4g}")
        return f"{self.lhs} {self.relation} {' * '.join(factors) or '1'}"

    def wrong_laws(self, varied: Sequence[str]) -> list[tuple[str, dict[str, float], bool]]:
        """The mutation panel of the law on a grid varying ``varied``: ``(label, exponents, goal)`` for each
        exponent of EXPR moved by :data:`MUTATIONS` (± 1/2 and ± 1) and each varied parameter EXPR lacks given
        exponent ± 1/2; the goal mutants (``goal``), those the law must be told apart from, are the ± 1/2 ones
        (:data:`WRONG_SHIFT`, the calibration's goal mutants). A rejection of the ± 1/2 mutant of an exponent implies
        that of its ± 1 mutant whenever the law itself is inside the interval (an interval containing the law and
        excluding law ± 1/2 excludes law ± 1), so the ± 1 ones are reported, not required."""
        base = {k: self.exponents.get(k, 0.0) for k in varied}
        panel = []
        for k in varied:
            shifts = MUTATIONS if k in self.exponents else (WRONG_SHIFT,)
            for shift in shifts:
                for sign in (+1, -1):
                    what = f"exponent of {k} {'+' if sign > 0 else '-'} {shift:g}" if k in self.exponents else \
                        f"missing {k}**({'+' if sign > 0 else '-'}{Fraction(shift)})"
                    panel.append((what, {**base, k: base[k] + sign * shift}, shift == WRONG_SHIFT))
        return panel


def _split_law(text: str) -> tuple[str, str]:
    """The two sides of ``LHS ~ EXPR`` (each stripped), refusing what is not one law of bounded length."""
    if not isinstance(text, str) or text.count("~") != 1:
        raise InvalidParameterError("--law: expected one 'OBS ~ EXPR' (an observable, '~', an expression). Got "
                                    f"{text!r}.")
    if len(text) > MAX_LAW_LENGTH:
        raise InvalidParameterError(f"--law: longer than {MAX_LAW_LENGTH} characters.")
    lhs, rhs = (part.strip() for part in text.split("~"))
    if not rhs:
        raise InvalidParameterError("--law: the right side (the expression) is empty.")
    return lhs, rhs


def _monomial(rhs: str, parameters: Sequence[str]) -> tuple[Any, dict[str, float], float]:
    """EXPR read by ``_PowerLawParser``: the sympy monomial (positive symbols), each parameter's exponent and the
    constant factor."""
    import sympy as sp

    try:
        coefficient, exponents = _PowerLawParser(rhs, parameters).parse()
    except (OverflowError, ZeroDivisionError) as exc:
        raise InvalidParameterError(f"--law: cannot read {rhs!r}: {exc}") from None
    if not coefficient > 0:
        raise InvalidParameterError(f"--law: {rhs!r} must be positive (a law OBS ~ C * EXPR with C > 0).")
    symbols = {name: sp.Symbol(name, positive=True) for name in exponents}
    expression = sp.Mul(*(symbols[k] ** sp.nsimplify(v) for k, v in sorted(exponents.items())))
    return expression, {k: float(v) for k, v in sorted(exponents.items())}, float(coefficient)


def parse_observable_law(text: str, parameters: Sequence[str]) -> ObservableLaw:
    """Parse ``OBS ~ EXPR`` where EXPR is a power law in ``parameters`` (module docstring; grammar:
    ``_PowerLawParser``).

    >>> parse_observable_law("rel_change ~ width**(-1/2)", ["width", "steps"]).exponents
    {'width': -0.5}
    >>> parse_observable_law("x ~ exp(n)", ["n"])  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: --law: cannot read 'exp(n)': exp(...) of a parameter is not a power law
    at 'exp' (position 0)
    """
    lhs, rhs = _split_law(text)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", lhs):
        raise InvalidParameterError(f"--law: the left side must be an observable's name. Got {lhs!r}.")
    expression, exponents, coefficient = _monomial(rhs, parameters)
    return ObservableLaw(text=f"{lhs} ~ {rhs}", observable=lhs, expression=expression, exponents=exponents,
                         coefficient=coefficient)


def relation_of(text: Any) -> str | None:
    """The relation a law states (:data:`RELATIONS`): ``~`` when it holds one ``~``, else the one ``=``, ``<=`` or
    ``>=`` it holds; None otherwise.

    >>> relation_of("rho ~ d"), relation_of("test_error <= 0.1*n**(-1/2)"), relation_of("x = 2"), relation_of("x < 2")
    ('~', '<=', '=', None)
    """
    if not isinstance(text, str):
        return None
    if "~" in text:
        return "~"
    found = re.findall(r"<=|>=|==|=", text)
    return found[0] if len(found) == 1 and found[0] != "==" else None


def parse_relation_law(text: str, parameters: Sequence[str]) -> ObservableLaw:
    """Parse ``OBS = EXPR``, ``OBS <= EXPR`` or ``OBS >= EXPR`` (EXPR a product of powers with its constant: the
    value itself, not up to a constant).

    >>> law = parse_relation_law("test_error <= 0.5*n**(-1/2)", ["n", "d"])
    >>> law.relation, law.coefficient, law.exponents
    ('<=', 0.5, {'n': -0.5})
    """
    relation = relation_of(text)
    if relation not in ("=", "<=", ">="):
        raise InvalidParameterError(f"--law: expected 'OBS ~ EXPR', 'OBS = EXPR', 'OBS <= EXPR' or 'OBS >= EXPR'. "
                                    f"Got {text!r}.")
    law = parse_observable_law(text.replace(relation, "~", 1), parameters)
    return dataclasses.replace(law, text=law.text.replace(" ~ ", f" {relation} ", 1), relation=relation)


@dataclasses.dataclass(frozen=True)
class LevelSetLaw(ObservableLaw):
    """``PARAM* ~ EXPR`` with ``where="OBS = LEVEL"`` parsed: ``parameter`` is solved for where the seed-mean of
    ``observable`` crosses ``level``; ``exponents`` are EXPR's (the law of the crossing)."""

    parameter: str = ""
    level: float = 1.0

    @property
    def lhs(self) -> str:
        return f"{self.parameter}*"


_WHERE = re.compile(r"\s*(?P<obs>[A-Za-z_][A-Za-z_0-9]*)\s*=\s*(?P<level>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*")


def is_level_set(text: Any) -> bool:
    """Whether ``text`` is a level-set law ``PARAM* ~ EXPR`` (its left side ends with ``*``).

    >>> is_level_set("eta* ~ d**(-1/2)"), is_level_set("norm_growth ~ d")
    (True, False)
    """
    return isinstance(text, str) and text.count("~") == 1 and text.split("~")[0].strip().endswith("*")


def parse_level_set_law(text: str, where: str, parameters: Sequence[str]) -> LevelSetLaw:
    """Parse ``PARAM* ~ EXPR`` and ``where = "OBS = LEVEL"`` (module docstring, level-set laws): PARAM one of
    ``parameters`` not in EXPR, LEVEL a positive number.

    >>> law = parse_level_set_law("eta* ~ (n*p**2/d)**(1/2)", "norm_growth = 1", ["d", "n", "p", "eta"])
    >>> law.parameter, law.observable, law.level, law.exponents
    ('eta', 'norm_growth', 1.0, {'d': -0.5, 'n': 0.5, 'p': 1.0})
    >>> parse_level_set_law("eta* ~ d", "norm_growth > 1", ["d", "eta"])  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: --where: expected 'OBS = LEVEL' (an output of the experiment, '=', a
    positive number). Got 'norm_growth > 1'.
    """
    lhs, rhs = _split_law(text)
    match = re.fullmatch(r"([A-Za-z_][A-Za-z_0-9]*)\s*\*", lhs)
    if match is None:
        raise InvalidParameterError(f"--law: the left side of a level-set law must be 'PARAM*' (a parameter's name "
                                    f"and '*'). Got {lhs!r}.")
    parameter = match.group(1)
    if parameter not in parameters:
        raise InvalidParameterError(f"--law: {parameter!r} is not a numeric parameter of the experiment; its numeric "
                                    f"parameters are {', '.join(sorted(parameters))}.")
    where_match = _WHERE.fullmatch(where) if isinstance(where, str) else None
    level = float(where_match.group("level")) if where_match else math.nan
    if where_match is None or not (math.isfinite(level) and level > 0):
        raise InvalidParameterError(f"--where: expected 'OBS = LEVEL' (an output of the experiment, '=', a positive "
                                    f"number). Got {where!r}.")
    expression, exponents, coefficient = _monomial(rhs, parameters)
    if parameter in exponents:
        raise InvalidParameterError(f"--law: the solved parameter {parameter!r} also appears in the expression "
                                    f"{rhs!r}; EXPR may use only the other parameters.")
    return LevelSetLaw(text=f"{parameter}* ~ {rhs}", observable=where_match.group("obs"), expression=expression,
                       exponents=exponents, coefficient=coefficient, parameter=parameter, level=level)


def system_experiments(system: Any) -> list[Any]:
    """The runner experiments a system's claims measure, in declaration order (then those it only registers)."""
    from ..runner.registry import get_experiment

    names = list(dict.fromkeys([c.measurement.experiment for c in system.claims] + list(system.experiments)))
    return [get_experiment(name) for name in names]


def base_point(system: Any, experiment: Any) -> dict[str, Any]:
    """A point the system already declares for ``experiment``: the first small-scale point of its first claim
    measuring it, with the experiment's defaults."""
    for claim in system.claims:
        if claim.measurement.experiment == experiment.name and claim.measurement.points.get("small"):
            return experiment.normalize(dict(claim.measurement.points["small"][0]))
    return experiment.normalize({})


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def design_grid(experiment: Any, base: Mapping[str, Any], law: ObservableLaw, *,
                over: Mapping[str, Sequence[float]] | None = None, fix: Mapping[str, Any] | None = None,
                seeds: int = 8, budget: float | None = None, multiplier: float = 1.0,
                constraints: Sequence[Any] = ()) -> tuple[list[dict[str, Any]], list[str]]:
    """The grid's points and the names of the varied parameters (module docstring, step 2). Without ``over``
    and with a ``budget``, each parameter of EXPR spans the widest range the budget, the experiment's cost model
    and the hypotheses ``constraints`` allow (:func:`~flt_theory.report.law_design.budget_axes`; ``multiplier``
    evaluations per point); without a budget, :data:`FACTORS` times its base value. A value the experiment
    refuses (its converters' ranges) or whose declared cost is over the limits is dropped; a grid left with fewer
    than 2 values of a varied parameter is refused, naming it."""
    unknown = sorted((set(fix or {}) | set(over or {})) - set(base))
    if unknown:
        raise InvalidParameterError(f"--over/--fix: experiment {experiment.name!r} has no parameter "
                                    f"{', '.join(map(repr, unknown))}; its parameters are {sorted(base)}.")
    try:
        fixed = experiment.normalize({**base, **dict(fix or {})})
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"--fix: {exc}") from None
    if over:
        axes = {name: list(values) for name, values in over.items()}
    elif budget is not None:
        from .law_design import budget_axes

        names = [k for k in law.exponents if k not in (fix or {})]
        for name in names:
            if not _numeric(fixed[name]) or fixed[name] == 0:
                raise InvalidParameterError(f"--law: parameter {name!r} has the base value {fixed[name]!r}; give its "
                                            f"values with --over {name}=V1,V2,...")
        axes = budget_axes(experiment, fixed, names, seeds=seeds, budget=budget, multiplier=multiplier,
                           constraints=constraints)
    else:
        axes = {}
        for name in (k for k in law.exponents if k not in (fix or {})):  # what --fix holds stays fixed
            value = fixed[name]
            if not _numeric(value) or value == 0:
                raise InvalidParameterError(f"--law: parameter {name!r} has the base value {value!r}; give its values "
                                            f"with --over {name}=V1,V2,...")
            integer = isinstance(value, int)
            values = [round(value * f) if integer else value * f for f in FACTORS]
            axes[name] = list(dict.fromkeys(v for v in values if v != 0))
    kept: dict[str, list[Any]] = {}
    for name, values in axes.items():
        ok = []
        for value in values:
            if not _numeric(value) or value <= 0:
                raise InvalidParameterError(f"--over: {name}={value!r}: a power law needs positive values.")
            try:
                value = experiment.normalize({**fixed, name: value})[name]
            except InvalidParameterError:
                continue
            if value not in ok:  # 64 and 64.0 are one grid value
                ok.append(value)
        if len(ok) < 2:
            raise InvalidParameterError(f"--over: {name} needs at least 2 admissible values; of {values} the "
                                        f"experiment {experiment.name!r} accepts {ok}.")
        kept[name] = ok
    if not kept:
        raise InvalidParameterError("--law: no parameter of EXPR is varied (each is held by --fix, or EXPR has none): "
                                    "give one's values with --over NAME=V1,V2,...")
    if over:
        points = [{**fixed, **dict(zip(kept, combo))} for combo in itertools.product(*kept.values())]
    else:  # a star around the base point: each parameter varied alone
        points = list({repr(sorted(p.items())): p for p in (
            {**fixed, name: value} for name, values in kept.items() for value in values)}.values())
    affordable = []
    for point in points:
        try:
            experiment.check_budget(point, seeds)
        except InvalidParameterError:
            continue
        affordable.append(point)
    for name in kept:
        if len({p[name] for p in affordable}) < 2:
            raise InvalidParameterError(f"--over: {name} keeps fewer than 2 values once points over the size limits "
                                        f"are dropped (FLT_MAX_SIM_BYTES / FLT_MAX_SIM_SECONDS).")
    return affordable, list(kept)


class LawVerification(dict):
    """The JSON-ready result of :func:`verify_law` (a dict: ``system``, ``law``, ``form``, ``where``, ``grid``,
    ``predicted``, ``measured`` {symbol: {estimate, ci}}, ``controls`` [{law, verdict}], ``verdict``, ``reason``,
    ``seconds``, and the details), shown as text by ``str`` and as HTML in a notebook."""

    @property
    def passed(self) -> bool:
        return self["verdict"] == "pass"

    def __str__(self) -> str:
        lines = [f"{self['law']}  ({self['system']}, experiment {self['experiment']}; {self['points']} points x "
                 f"{self['seeds']} seeds)"]
        if "crossings" in self:
            name = f"{self['parameter']}*"
            lines[0] += f" where {self['where']}; {self['groups']} seed groups"
            for record in self["crossings"]:
                point = ", ".join(f"{k}={record[k]}" for k in self["varied"])
                lo, hi = record["group_ci"]
                lines.append(f"  {point}: {name} = {record[name]:.4g} (groups' mean {record['group_mean']:.4g} "
                             f"[{lo:.4g}, {hi:.4g}]; {len(record['evaluated'])} values evaluated)")
        for record in self["values"] if self["relation"] != "~" else []:
            point = ", ".join(f"{k}={record[k]}" for k in self["varied"])
            lo, hi = record["ci"]
            lines.append(f"  {point}: {self['observable']} = {record['estimate']:.4g} [{lo:.4g}, {hi:.4g}], "
                         f"law {record['law']:.4g}")
        for name, fit in self["measured"].items():
            lo, hi = fit["ci"]
            lines.append(f"  exponent of {name}: measured {fit['estimate']:.3g} [{lo:.3g}, {hi:.3g}], "
                         f"law {self['predicted'][name]:g}")
        if self["not_tested"]:
            lines.append(f"  not tested (held fixed by the grid): {', '.join(self['not_tested'])}")
        for point in self["dropped"]:
            lines.append("  dropped (the simulation failed): "
                         f"{', '.join(f'{k}={v}' for k, v in point.items() if k != 'error')}")
        if self["outside_hypotheses"]:
            lines.append(f"  {len(self['outside_hypotheses'])} point(s) outside the system's stated hypotheses")
        for control in self["controls"]:
            lines.append(f"  {'goal mutant' if control['goal'] else 'mutant'} {control['law']}: "
                         f"{'rejected' if control['rejected'] else 'NOT rejected'}")
        lines.append(f"{self['verdict'].upper()}: {self['reason']}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        return f"<pre>{escape(str(self))}</pre>"


class _NotRecorded(Exception):
    """The experiment does not record the observable (its columns are the message)."""


def _record(experiment: Any, points: Sequence[Mapping[str, Any]], keys: Sequence[str], observable: str,
            seed_list: list[int], store: Any, jobs: int, tally: dict[str, int] | None = None) -> Any:
    """``observable`` at every point and seed through :func:`~flt_theory.runner.sweep` (seeded, stored): an array
    (points, seeds), seeds in ``seed_list`` order; ``keys`` are the parameters that tell the points apart;
    ``tally`` counts the rows ``computed`` and ``reused`` from the store."""
    import numpy as np

    from ..runner import sweep

    frame = sweep(experiment.name, points=list(points), seeds=seed_list, store=store, jobs=jobs)
    if tally is not None:
        for key in ("computed", "reused"):
            tally[key] = tally.get(key, 0) + int(frame.attrs.get(key, 0))
    if observable not in frame.columns:
        raise _NotRecorded(", ".join(sorted(c for c in frame.columns if c not in points[0] and c != "experiment")))
    frame = frame.sort_values("seed", kind="stable")
    return np.array([[frame[np.logical_and.reduce([frame[k] == p[k] for k in keys]) & (frame["seed"] == s)]
                      [observable].iloc[0] for s in seed_list] for p in points], dtype=float)


def _measure_level_set(experiment: Any, parsed: LevelSetLaw, points: list[dict[str, Any]], varied: list[str],
                       seed_list: list[int], groups: int, confidence: float, store: Any,
                       jobs: int, tally: dict[str, int] | None = None) -> tuple[Any, list[dict[str, Any]]]:
    """The crossings of every grid point (:func:`~flt_theory.report.level_set.solve_crossings`): the (groups,
    points) table the fit reads, and one record per point (its coordinates, the seed-mean crossing, the groups'
    crossings with their mean and its interval at ``confidence`` (:func:`~flt_theory.compare.mean_ci`, on the log
    scale), the evaluated ``[value, seed-mean]`` pairs in increasing value)."""
    from ..compare import mean_ci
    from .level_set import solve_crossings

    name = parsed.parameter
    keys = [*varied, name]

    def at(i: int, value: float) -> dict[str, Any]:
        return experiment.normalize({**points[i], name: value})

    def admissible(i: int, value: float) -> bool:
        try:
            experiment.check_budget(at(i, value), len(seed_list))
        except InvalidParameterError:
            return False
        return True

    def evaluate(requests: list[tuple[int, float]]) -> Any:
        return _record(experiment, [at(i, v) for i, v in requests], keys, parsed.observable, seed_list, store, jobs,
                       tally)

    result = solve_crossings(evaluate, [points[i][name] for i in range(len(points))], parsed.level, groups=groups,
                             integer=isinstance(points[0][name], int), admissible=admissible,
                             labels=[", ".join(f"{k}={p[k]}" for k in varied) for p in points],
                             observable=parsed.observable, parameter=name)
    records = []
    for p, c, g, values, means in zip(points, result.crossing, result.groups.T, result.values, result.means):
        spread = mean_ci(g, confidence=confidence, bounds=(0.0, math.inf))
        records.append({**{k: p[k] for k in varied}, f"{name}*": float(c), "group_crossings": g.tolist(),
                        "group_mean": spread.value, "group_ci": [spread.low, spread.high],
                        "evaluated": [[float(v), float(m)] for v, m in zip(values, means)]})
    return result.groups, records


def _record_designed(experiment: Any, points: list[dict[str, Any]], varied: list[str], observable: str,
                     seed_list: list[int], store: Any, jobs: int, tally: dict[str, int]) -> tuple[Any, Any, list]:
    """:func:`_record` on a designed grid, point by point once the whole grid fails: ``(points kept, table (seeds,
    points kept), dropped points with the simulation's message)``; refused when a varied parameter keeps fewer than
    2 values."""
    import numpy as np

    from ..runner.errors import ExperimentError

    try:
        return points, _record(experiment, points, varied, observable, seed_list, store, jobs, tally).T, []
    except ExperimentError:
        pass
    kept, rows, dropped = [], [], []
    for point in points:
        try:
            rows.append(_record(experiment, [point], varied, observable, seed_list, store, jobs, tally)[0])
            kept.append(point)
        except ExperimentError as exc:
            message = str(exc).splitlines()[0]
            dropped.append({**{k: point[k] for k in varied}, "error": message.split(" failed: ", 1)[-1]})
    for name in varied:
        if len({p[name] for p in kept}) < 2:
            raise InvalidParameterError(f"--law: the simulation refused {name}'s designed values "
                                        f"({dropped[0]['error'] if dropped else ''}); give them with --over {name}=...")
    return kept, np.array(rows).T, dropped


def _refused(exc: Exception, over: Any) -> InvalidParameterError:
    """A grid value the declaration admits but the simulation refuses (an odd width, say), as a one-line error."""
    return InvalidParameterError(f"{'--over' if over else '--law'}: the simulation refused a point of the grid; "
                                 f"{str(exc).splitlines()[0]}")


def _parse_any(law: str, where: str | None, numeric: Sequence[str]) -> ObservableLaw:
    """The law in whichever form it is written: level-set (with ``where``), power law or relation."""
    if is_level_set(law):
        return parse_level_set_law(law, where, numeric)
    if relation_of(law) in ("=", "<=", ">="):
        return parse_relation_law(law, numeric)
    return parse_observable_law(law, numeric)


def _plan(experiment: Any, points: Sequence[Mapping[str, Any]], varied: Sequence[str], seeds: int,
          multiplier: float, constraints: Sequence[Any]) -> dict[str, Any]:
    """What a run will do: the experiment, grid, points, seeds, the estimated seconds (the experiment's calibrated
    cost, :meth:`~flt_theory.runner.registry.Experiment.estimate`) and the points outside the stated hypotheses."""
    from .law_design import outside_hypotheses

    estimates = [experiment.estimate(p, seeds) for p in points]
    outside = []
    for p in points:
        failed = outside_hypotheses(constraints, p)
        if failed:
            outside.append({**{k: p[k] for k in varied}, "failed": failed})
    return {"experiment": experiment.name, "grid": {k: sorted({p[k] for p in points}) for k in varied},
            "points": len(points), "seeds": seeds,
            "estimated_seconds": sum(e.seconds for e in estimates if e is not None) * multiplier,
            "hypotheses": sorted({key for key, _, _ in constraints}), "outside_hypotheses": outside}


def plan_text(plan: Mapping[str, Any]) -> str:
    """One line saying what a run will do (printed before it runs)."""
    grid = "; ".join(f"{k} = {', '.join(f'{v:g}' for v in values)}" for k, values in plan["grid"].items())
    inside = (f"; inside the hypotheses of {', '.join(plan['hypotheses'])}" if plan["hypotheses"] and not
              plan["outside_hypotheses"] else f"; {len(plan['outside_hypotheses'])} point(s) outside the stated "
              f"hypotheses" if plan["outside_hypotheses"] else "")
    return (f"plan: {plan['experiment']}, {plan['points']} points x {plan['seeds']} seeds, about "
            f"{plan['estimated_seconds']:.3g} s by its declared cost ({grid}){inside}")


def verify_law(
    system: str,
    law: str,
    *,
    where: str | None = None,
    over: Mapping[str, Sequence[float]] | None = None,
    fix: Mapping[str, Any] | None = None,
    seeds: int = 8,
    groups: int | None = None,
    seed_base: int = 0,
    alpha: float = 0.05,
    budget: float | None = None,
    store: Any = None,
    jobs: int = 1,
    on_plan: Any = None,
    tolerance: float = 0.0,
) -> LawVerification:
    """Check the observable law ``law`` (``"OBS ~ EXPR"``; or ``"OBS = EXPR"``, ``"OBS <= EXPR"``,
    ``"OBS >= EXPR"``), or the level-set law ``"PARAM* ~ EXPR"`` with ``where`` (``"OBS = LEVEL"``), on
    ``system``'s simulation (module docstring).

    ``over`` maps parameters to the values of the grid; ``fix`` sets other parameters; without ``over``, the grid
    is designed from ``budget`` (seconds; :mod:`.law_design`), or :data:`FACTORS` without one. ``seeds`` per point
    from ``seed_base``; the law and its mutation panel are decided at family-wise level ``alpha``
    (:mod:`.law_verdict`); a plan whose declared cost exceeds ``budget`` is refused. A level-set law splits the
    seeds into ``groups`` disjoint groups (default: one per seed), one crossing each. ``store``: the results store
    (a path; None: in memory), so that a second run on the same grid reuses the measurements. ``on_plan`` is
    called with the plan (:func:`plan_text`) before anything runs. ``tolerance`` widens each exponent's interval
    (exponent units, in [0, 1/4): a stated slack for a law that holds up to a small drift, never enough for a goal
    mutant at 1/2 to pass by it). Bad input raises an
    :class:`~flt_theory.errors.InvalidParameterError` naming the option before anything runs.
    """
    import time

    import numpy as np

    from ..runner.errors import ExperimentError
    from ..systems import get_system
    from .law_design import claim_hypotheses
    from .law_verdict import decide_power_law, decide_relation
    from .level_set import EVALUATIONS

    start = time.perf_counter()
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 2 <= seeds <= 4096:
        raise InvalidParameterError(f"--seeds: a power-law fit needs an int in [2, 4096] seeds. Got {seeds!r}.")
    if not 0 < alpha < 1:
        raise InvalidParameterError(f"--alpha: must be in (0, 1). Got {alpha!r}.")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < WRONG_SHIFT / 2:
        raise InvalidParameterError(f"--tolerance: exponent units in [0, {WRONG_SHIFT / 2:g}). Got {tolerance!r}.")
    if budget is not None and not (isinstance(budget, (int, float)) and budget > 0):
        raise InvalidParameterError(f"--budget: a positive number of seconds. Got {budget!r}.")
    level_set = is_level_set(law)
    if level_set and where is None:
        raise InvalidParameterError("--where: a level-set law 'PARAM* ~ EXPR' needs --where 'OBS = LEVEL'.")
    if not level_set and where is not None:
        raise InvalidParameterError("--where: applies to a level-set law 'PARAM* ~ EXPR' only (the left side of "
                                    f"--law is a parameter's name and '*'). Got --law {law!r}.")
    if groups is not None and (not level_set or isinstance(groups, bool) or not isinstance(groups, int)
                               or not 2 <= groups <= seeds):
        raise InvalidParameterError(f"--groups: a level-set law's seed groups, an int in [2, --seeds={seeds}]. "
                                    f"Got {groups!r}{'' if level_set else ' with an observable law'}.")
    spec = get_system(system)
    usable, reasons = [], []
    for experiment in system_experiments(spec):
        base = base_point(spec, experiment)
        unknown = sorted((set(over or {}) | set(fix or {})) - set(base))
        if unknown:
            reasons.append(f"{experiment.name} has no parameter {', '.join(map(repr, unknown))} (its parameters: "
                           f"{', '.join(sorted(base))})")
            continue
        numeric = [k for k, v in base.items() if _numeric(v)]
        try:
            parsed = _parse_any(law, where, numeric)
        except InvalidParameterError as exc:
            if str(exc).startswith("--where"):
                raise
            reasons.append(f"{experiment.name}: {str(exc).removeprefix('--law: ')}")
            continue
        for option, given in (("--over", over), ("--fix", fix)):
            if level_set and parsed.parameter in (given or {}):
                raise InvalidParameterError(f"{option}: {parsed.parameter} is the parameter the level-set law solves "
                                            f"for; it starts from its declared value {base[parsed.parameter]!r}.")
        usable.append((experiment, parsed, base))
    if not usable:
        option = "--law" if not over and not fix else "--law/--over/--fix"
        if len(reasons) == 1:
            raise InvalidParameterError(f"{option}: {reasons[0]}")
        raise InvalidParameterError(f"{option}: no experiment of system {system!r} can read {law!r}: "
                                    f"{'; '.join(reasons)}.")
    errors, seed_list, crossings, tally = [], list(range(seed_base, seed_base + seeds)), None, {}
    dropped: list[dict[str, Any]] = []
    if store is None:  # one in-memory store for the whole run: the probe's and the retries' rows are reused
        from ..runner.store import ResultStore

        store = ResultStore(":memory:")
    multiplier = EVALUATIONS if level_set else 1
    for experiment, parsed, base in usable:
        try:
            constraints = claim_hypotheses(spec, experiment, experiment.normalize({**base, **dict(fix or {})}))
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"--fix: {exc}") from None
        points, varied = design_grid(experiment, base, parsed, over=over, fix=fix, seeds=seeds, budget=budget,
                                     multiplier=multiplier, constraints=constraints)
        plan = _plan(experiment, points, varied, seeds, multiplier, constraints)
        seconds = plan["estimated_seconds"]
        if budget is not None and seconds > budget:
            raise InvalidParameterError(
                f"--budget: the plan of experiment {experiment.name!r} ({len(points)} points x "
                f"{seeds} seeds"
                f"{f' x about {EVALUATIONS} values of {parsed.parameter}' if level_set else ''}) "
                f"would take about {seconds:.3g} s by the experiment's declared cost, over "
                f"{budget:g} s; give --budget {math.ceil(seconds * 1.1)} or a smaller grid."
            )
        try:  # one point and one seed first: an experiment that does not record OBS costs no grid
            _record(experiment, points[:1], varied, parsed.observable, seed_list[:1], store, jobs, tally)
        except ExperimentError as exc:
            raise _refused(exc, over) from None
        except _NotRecorded as exc:
            errors.append(f"{experiment.name} records {exc}")
            continue
        if on_plan is not None:
            on_plan(plan)
        try:
            if level_set:
                table, crossings = _measure_level_set(experiment, parsed, points, varied, seed_list, groups or seeds,
                                                      1 - alpha, store, jobs, tally)
            elif over:
                table = _record(experiment, points, varied, parsed.observable, seed_list, store, jobs, tally).T
            else:  # a designed grid: a point the simulation refuses is dropped (and said), not the run
                points, table, dropped = _record_designed(experiment, points, varied, parsed.observable, seed_list,
                                                          store, jobs, tally)
        except ExperimentError as exc:
            raise _refused(exc, over) from None
        except _NotRecorded as exc:
            errors.append(f"{experiment.name} records {exc}")
            continue
        break
    else:
        raise InvalidParameterError(f"{'--where' if level_set else '--law'}: no experiment of system {system!r} "
                                    f"records {parsed.observable!r} ({'; '.join(errors)}).")
    predicted = {k: parsed.exponents.get(k, 0.0) for k in varied}
    if parsed.relation != "~":
        if not np.isfinite(table).all():
            raise InvalidParameterError(f"--law: {parsed.observable} is not finite at every point.")
        decided = decide_relation(parsed, points, table, varied, alpha)
    else:
        good = np.isfinite(table) & (table > 0)
        if not good.all():
            bad = [{k: points[j][k] for k in varied} for j in sorted(set(np.argwhere(~good)[:, 1]))]
            what = f"the crossing {parsed.parameter}*" if level_set else parsed.observable
            raise InvalidParameterError(f"{'--where' if level_set else '--law'}: {what} must be positive and finite at "
                                        f"every point to fit a power law; it is not at {bad[:3]}.")
        xs = {k: np.array([float(p[k]) for p in points]) for k in varied}
        decided = decide_power_law(parsed, xs, table, varied, 1 - alpha, tolerance)
    not_tested = sorted(set(parsed.exponents) - set(varied))
    reason = decided["reason"] + (f"; not tested (held fixed): {', '.join(not_tested)}" if not_tested else "")
    if dropped:
        reason += f"; {len(dropped)} designed point(s) dropped where the simulation failed ({dropped[0]['error']})"
    extra = {} if crossings is None else {"parameter": parsed.parameter, "level": parsed.level,
                                          "groups": len(table), "crossings": crossings}
    return LawVerification(
        system=system, law=parsed.text, form="level-set" if level_set else "observable",
        where=f"{parsed.observable} = {parsed.level:g}" if level_set else None,
        grid={k: sorted({p[k] for p in points}) for k in varied},
        predicted=predicted, measured=decided["measured"],
        controls=decided["controls"], verdict=decided["verdict"], reason=reason,
        seconds=time.perf_counter() - start,
        relation=parsed.relation, experiment=experiment.name, observable=parsed.observable, varied=varied,
        not_tested=not_tested, points=len(points), seeds=seeds, seed_base=seed_base, confidence=1 - alpha,
        tolerance=tolerance,
        estimated_seconds=seconds, hypotheses=plan["hypotheses"], outside_hypotheses=plan["outside_hypotheses"],
        point_list=[{k: p[k] for k in varied} for p in points], computed=tally.get("computed", 0),
        reused=tally.get("reused", 0), values=decided["values"], dropped=dropped, **extra)
