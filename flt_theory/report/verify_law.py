r"""Your own scaling law for any system: ``flt verify --system SYSTEM --law "OBS ~ EXPR"``.

A researcher's conjecture about a simulated system is often one line — "the noise memorisation :math:`\rho_{\max}`
grows like :math:`\sqrt{d/n}`", "the NTK relative change is :math:`N^{-1/2}`". :func:`verify_law` checks such an
**observable law** against the system's own simulation, with nothing written per system:

1. **Parse** ``OBS ~ EXPR`` (:func:`parse_observable_law`): ``OBS`` is an output of one of the system's runner
   experiments, ``EXPR`` a product of powers of that experiment's numeric parameters and positive constants, read
   by a restricted grammar of products, quotients, numeric powers and ``sqrt`` (:class:`_PowerLawParser`: no
   ``eval``, no ``sympify`` of user text). The law says :math:`\mathbb E[\mathrm{OBS}] = C \prod_i x_i^{b_i}` for
   some constant :math:`C > 0`.
2. **Design** the grid (:func:`design_grid`): the parameters given by ``over`` take those values (their full
   product); without ``over`` every parameter of ``EXPR`` varies over :data:`FACTORS` times its base value (a 16-fold
   range) one at a time, the others at the base (a *star* design: :math:`1 + 4k` points for :math:`k` parameters,
   enough to fit the :math:`k` exponents jointly), the base point being one the system already declares (the
   first small-scale point of a claim measuring the same experiment), ``fix`` overriding it. Points the experiment's declared cost refuses are dropped; the plan (points, seeds,
   estimated seconds) is refused before anything runs when it exceeds ``budget``.
3. **Fit** jointly, over the grid, :math:`\log \overline{\mathrm{OBS}} = a + \sum_i b_i \log x_i` for every varied
   parameter (:func:`~flt_theory.compare.power_law.check_power_law_nd`: seed bootstrap, Bonferroni over the
   exponents); a varied parameter absent from ``EXPR`` is predicted exponent 0.
4. **Decide** with the **wrong laws** of the same measurement: each varied exponent moved by :math:`\pm 1/2`
   (:data:`WRONG_SHIFT`). The law *passes* when every predicted exponent lies in its interval AND every wrong law
   is rejected; it *fails* when the data exclude it; it is *inconclusive* when a wrong law passes too, with the
   seed count that would separate them — the project's one decision, :func:`~flt_theory.compare.decide_claim`,
   applied to the law and each wrong law.

A parameter of ``EXPR`` that the grid holds fixed cannot be tested; it is reported as such, never counted as
agreement.

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

__all__ = ["FACTORS", "WRONG_SHIFT", "LawVerification", "ObservableLaw", "design_grid", "parse_observable_law",
           "verify_law"]

#: Multiples of a parameter's base value that a grid designed without ``over`` takes (a 16-fold range, 1.2 decades).
FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
#: How far each wrong law moves one exponent (the calibration's goal mutants: exponent ± 1/2).
WRONG_SHIFT = 0.5

#: Longest law text read (a bound on the parser's work).
MAX_LAW_LENGTH = 400
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
                raise InvalidParameterError(f"--law: cannot read {text!r} at position {position}: {text[position:position + 12]!r}")
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
            b = self.exponent()
            if coefficient <= 0 and b != int(b):
                raise self.error(self.peek(), "a non-integer power of a non-positive constant")
            coefficient = coefficient ** b
            exponents = {k: v * b for k, v in exponents.items()}
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
    parameters) and the exponent of each parameter it contains."""

    text: str
    observable: str
    expression: Any
    exponents: dict[str, float]

    def wrong_laws(self, varied: Sequence[str]) -> list[tuple[str, dict[str, float]]]:
        """The wrong laws of the measurement: each varied exponent moved by :data:`WRONG_SHIFT` up and down
        (labels such as ``"exponent of n - 1/2"``)."""
        base = {k: self.exponents.get(k, 0.0) for k in varied}
        return [(f"exponent of {k} {'+' if sign > 0 else '-'} {WRONG_SHIFT:g}", {**base, k: base[k] + sign * WRONG_SHIFT})
                for k in varied for sign in (+1, -1)]


def parse_observable_law(text: str, parameters: Sequence[str]) -> ObservableLaw:
    """Parse ``OBS ~ EXPR`` where EXPR is a power law in ``parameters`` (module docstring; grammar:
    :class:`_PowerLawParser`).

    >>> parse_observable_law("rel_change ~ width**(-1/2)", ["width", "steps"]).exponents
    {'width': -0.5}
    >>> parse_observable_law("x ~ exp(n)", ["n"])
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: --law: cannot read 'exp(n)': exp(...) of a parameter is not a power law at 'exp' (position 0)
    """
    import sympy as sp

    if not isinstance(text, str) or text.count("~") != 1:
        raise InvalidParameterError(f"--law: expected one 'OBS ~ EXPR' (an observable, '~', an expression). Got {text!r}.")
    if len(text) > MAX_LAW_LENGTH:
        raise InvalidParameterError(f"--law: longer than {MAX_LAW_LENGTH} characters.")
    lhs, rhs = (part.strip() for part in text.split("~"))
    if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", lhs):
        raise InvalidParameterError(f"--law: the left side must be an observable's name. Got {lhs!r}.")
    if not rhs:
        raise InvalidParameterError("--law: the right side (the expression) is empty.")
    try:
        coefficient, exponents = _PowerLawParser(rhs, parameters).parse()
    except (OverflowError, ZeroDivisionError) as exc:
        raise InvalidParameterError(f"--law: cannot read {rhs!r}: {exc}") from None
    if not coefficient > 0:
        raise InvalidParameterError(f"--law: {rhs!r} must be positive (a law OBS ~ C * EXPR with C > 0).")
    symbols = {name: sp.Symbol(name, positive=True) for name in exponents}
    expression = sp.Mul(*(symbols[k] ** sp.nsimplify(v) for k, v in sorted(exponents.items())))
    return ObservableLaw(text=f"{lhs} ~ {rhs}", observable=lhs, expression=expression,
                         exponents={k: float(v) for k, v in sorted(exponents.items())})


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
                seeds: int = 8) -> tuple[list[dict[str, Any]], list[str]]:
    """The grid's points and the names of the varied parameters (module docstring, step 2). A value the
    experiment refuses (its converters' ranges) or whose declared cost is over the limits is dropped; a grid
    left with fewer than 2 values of a varied parameter is refused, naming it."""
    fixed = {**base, **dict(fix or {})}
    unknown = sorted((set(fix or {}) | set(over or {})) - set(base))
    if unknown:
        raise InvalidParameterError(f"--over/--fix: experiment {experiment.name!r} has no parameter "
                                    f"{', '.join(map(repr, unknown))}; its parameters are {sorted(fixed)}.")
    if over:
        axes = {name: list(values) for name, values in over.items()}
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
            try:
                experiment.normalize({**fixed, name: value})
            except InvalidParameterError:
                continue
            if not _numeric(value) or value <= 0:
                raise InvalidParameterError(f"--over: {name}={value!r}: a power law needs positive values.")
            ok.append(value)
        if len(ok) < 2:
            raise InvalidParameterError(f"--over: {name} needs at least 2 admissible values; of {values} the experiment "
                                        f"{experiment.name!r} accepts {ok}.")
        kept[name] = ok
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
    """The JSON-ready result of :func:`verify_law` (a dict), shown as text by ``str`` and as HTML in a notebook."""

    @property
    def passed(self) -> bool:
        return self["outcome"] == "pass"

    def __str__(self) -> str:
        lines = [f"{self['law']}  ({self['system']}, experiment {self['experiment']}; {self['points']} points x "
                 f"{self['seeds']} seeds)"]
        for name in self["varied"]:
            lo, hi = self["ci"][name]
            lines.append(f"  exponent of {name}: measured {self['measured'][name]:.3g} [{lo:.3g}, {hi:.3g}], "
                         f"law {self['predicted'][name]:g}")
        if self["not_tested"]:
            lines.append(f"  not tested (held fixed by the grid): {', '.join(self['not_tested'])}")
        for wrong in self["wrong_laws"]:
            lines.append(f"  wrong law ({wrong['label']}): {'rejected' if wrong['rejected'] else 'NOT rejected'}")
        lines.append(f"{self['outcome'].upper()}: {self['reason']}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        return f"<pre>{escape(str(self))}</pre>"


def verify_law(
    system: str,
    law: str,
    *,
    over: Mapping[str, Sequence[float]] | None = None,
    fix: Mapping[str, Any] | None = None,
    seeds: int = 8,
    seed_base: int = 0,
    alpha: float = 0.05,
    budget: float | None = None,
    store: Any = None,
    jobs: int = 1,
) -> LawVerification:
    """Check the observable law ``law`` (``"OBS ~ EXPR"``) on ``system``'s simulation (module docstring).

    ``over`` maps parameters to the values of the grid; ``fix`` sets other parameters; ``seeds`` per point from
    ``seed_base``; the law is decided at ``alpha`` (its exponents' joint interval at confidence ``1 - alpha``);
    ``budget`` (seconds) refuses a plan whose declared cost is larger. Bad input raises an
    :class:`~flt_theory.errors.InvalidParameterError` naming the option before anything runs.
    """
    import numpy as np

    from ..compare.power_law import check_power_law_nd
    from ..compare.verdict import FAIL, INCONCLUSIVE, PASS, decide_claim
    from ..runner import sweep
    from ..systems import get_system

    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 2 <= seeds <= 4096:
        raise InvalidParameterError(f"--seeds: a power-law fit needs an int in [2, 4096] seeds. Got {seeds!r}.")
    if not 0 < alpha < 1:
        raise InvalidParameterError(f"--alpha: must be in (0, 1). Got {alpha!r}.")
    spec = get_system(system)
    usable, reasons = [], []
    for experiment in system_experiments(spec):
        base = base_point(spec, experiment)
        unknown = sorted((set(over or {}) | set(fix or {})) - set(base))
        if unknown:
            reasons.append(f"{experiment.name} has no parameter {', '.join(map(repr, unknown))} (its parameters: "
                           f"{', '.join(sorted(base))})")
            continue
        try:
            usable.append((experiment, parse_observable_law(law, [k for k, v in base.items() if _numeric(v)]), base))
        except InvalidParameterError as exc:
            reasons.append(f"{experiment.name}: {str(exc).removeprefix('--law: ')}")
    if not usable:
        option = "--law" if over is None and fix is None else "--law/--over/--fix"
        if len(reasons) == 1:
            raise InvalidParameterError(f"{option}: {reasons[0]}")
        raise InvalidParameterError(f"{option}: no experiment of system {system!r} can read {law!r}: {'; '.join(reasons)}.")
    errors = []
    for experiment, parsed, base in usable:
        points, varied = design_grid(experiment, base, parsed, over=over, fix=fix, seeds=seeds)
        estimate = [experiment.estimate(p, seeds) for p in points]
        seconds = sum(e.seconds for e in estimate if e is not None)
        if budget is not None and seconds > budget:
            raise InvalidParameterError(f"--budget: the plan ({len(points)} points x {seeds} seeds) would take about "
                                        f"{seconds:.3g} s by the experiment's declared cost, over {budget:g} s.")
        frame = sweep(experiment.name, points=points, seeds=list(range(seed_base, seed_base + seeds)), store=store,
                      jobs=jobs)
        if parsed.observable not in frame.columns:
            errors.append(f"{experiment.name} records {', '.join(sorted(c for c in frame.columns if c not in base))}")
            continue
        break
    else:
        raise InvalidParameterError(f"--law: no experiment of system {system!r} records {parsed.observable!r} "
                                    f"({'; '.join(errors)}).")
    frame = frame.sort_values("seed")
    table = np.array([[frame[np.logical_and.reduce([frame[k] == p[k] for k in varied]) & (frame["seed"] == s)]
                       [parsed.observable].iloc[0] for p in points] for s in sorted(frame["seed"].unique())], dtype=float)
    if not np.isfinite(table).all() or (table <= 0).any():
        bad = [points[j] for j in sorted(set(np.argwhere(~(table > 0))[:, 1]))]
        raise InvalidParameterError(f"--law: {parsed.observable} must be positive and finite at every point to fit a "
                                    f"power law; it is not at {[{k: p[k] for k in varied} for p in bad[:3]]}.")
    xs = {k: np.array([float(p[k]) for p in points]) for k in varied}
    predicted = {k: parsed.exponents.get(k, 0.0) for k in varied}
    confidence = 1 - alpha
    check = check_power_law_nd(xs, table, predicted, name=parsed.text, confidence=confidence)
    decisions = []
    for label, exponents in parsed.wrong_laws(varied):
        decisions.append((label, exponents, decide_claim(check, check_power_law_nd(xs, table, exponents, name=label,
                                                                                   confidence=confidence))))
    wrong = [{"label": label, "exponents": exponents, "rejected": decision.rejected}
             for label, exponents, decision in decisions]
    measured = dict(zip(varied, np.atleast_1d(check.measured).tolist()))
    cis = dict(zip(varied, [list(c) for c in (check.ci if len(varied) > 1 else [check.ci])]))
    not_tested = sorted(set(parsed.exponents) - set(varied))
    undecided = [d for _, _, d in decisions if d.outcome != PASS]
    if not undecided:
        outcome, reason = PASS, f"every exponent agrees and every wrong law (exponent ± {WRONG_SHIFT:g}) is rejected"
    elif any(d.outcome == FAIL for d in undecided):
        outcome, reason = FAIL, "the data exclude the law: " + check.message
    else:  # the one decision (compare.decide_claim): the law passes and a wrong law passes too
        outcome = INCONCLUSIVE
        reason = f"{len(undecided)} wrong law(s) agree with the data too; " + undecided[0].to_decide
    if not_tested:
        reason += f"; not tested (held fixed): {', '.join(not_tested)}"
    return LawVerification(
        system=system, experiment=experiment.name, law=parsed.text, observable=parsed.observable,
        predicted=predicted, varied=varied, not_tested=not_tested,
        grid={k: sorted({p[k] for p in points}) for k in varied}, points=len(points), seeds=seeds,
        seed_base=seed_base, measured=measured, ci=cis, confidence=confidence, wrong_laws=wrong, outcome=outcome,
        reason=reason, estimated_seconds=seconds)
