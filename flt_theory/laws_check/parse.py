r"""The laws of ``flt verify --system SYSTEM --law LAW``, read from the user's text: ``OBS ~ EXPR`` (a power law up
to a constant), ``OBS = EXPR``, ``OBS <= EXPR``, ``OBS >= EXPR`` (the value itself, constant included) and the
level-set law ``PARAM* ~ EXPR`` with ``--where "OBS = LEVEL"``.

``OBS`` is an output of one of the system's runner experiments, ``EXPR`` a product of powers of that experiment's
numeric parameters, of their natural logs and of positive constants, read by a restricted grammar of products,
quotients, numeric powers, ``sqrt`` and ``log`` (``_PowerLawParser``: no ``eval``, no ``sympify`` of user text). The
law says

.. math:: \mathbb E[\mathrm{OBS}] = C \prod_i x_i^{b_i} \prod_i (\log x_i)^{p_i}

for some constant :math:`C > 0`: the exponents :math:`b_i` (``ObservableLaw.exponents``) are the powers of the
parameters themselves, the log powers :math:`p_i` (``ObservableLaw.log_powers``, empty for a pure power law)
those of their logs — the form of most sample-complexity laws of the field, :math:`n \asymp d \log d` (e.g. the
information exponent 2 of Ben Arous, Gheissari and Jagannath 2021, arXiv 2003.10409: :math:`n \asymp d \log d`
samples of online SGD). ``log`` (alias ``ln``) is the natural log and applies to one parameter's name
(``log(d)``) or to a constant over 1 (``log(2)``, folded into :math:`C`); ``log(d+1)``, ``log(log(d))``, ``log(-d)``,
``log(2*d)`` are refused. A law with a log factor is evaluated only where its parameter is over 1
(:meth:`ObservableLaw.check_point`). Each parsed law carries its **mutation panel** (:meth:`ObservableLaw.wrong_laws`):
each exponent of EXPR moved by ± 1/2 and ± 1 (:data:`MUTATIONS`), each varied parameter EXPR lacks given exponent
± 1/2, the log powers unchanged; the goal mutants are the ± 1/2 ones (:data:`WRONG_SHIFT`, the calibration's goal
mutants). Its **log mutants** (:meth:`ObservableLaw.log_mutants`) move the log power of each varied parameter by ± 1
(:data:`LOG_SHIFT`; reported controls: a missing log is not a pass). How a law is checked:
:mod:`flt_theory.laws_check.verify`.

Every number of the text (a literal of EXPR, of an exponent, the LEVEL of ``--where``) is bounded by its decimal order
of magnitude, read from its digits before it is built (:func:`check_magnitude`): ``1e99999999`` is refused at once,
not computed as an exact fraction; a constant factor that is infinite in floating point (``1e308*1e308``) is refused.

>>> law = parse_observable_law("rho_max ~ (d/n)**(1/2)", ["n", "d", "width"])
>>> law.observable, law.exponents, law.log_powers
('rho_max', {'d': 0.5, 'n': -0.5}, {})
>>> law = parse_observable_law("steps ~ d*log(d)**2", ["d", "n"])
>>> law.exponents, law.log_powers, law.value_at({"d": math.e})
({'d': 1.0}, {'d': 2.0}, 2.718281828459045)
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..errors import InvalidParameterError

__all__ = ["LOG_SHIFT", "MAX_DECIMAL_ORDER", "MUTATIONS", "RELATIONS", "WRONG_SHIFT", "LevelSetLaw", "ObservableLaw",
           "check_magnitude", "decimal_order", "is_level_set", "parse_any", "parse_level_set_law",
           "parse_observable_law", "parse_relation_law", "relation_of"]

#: How far each goal mutant moves one exponent, as the calibration's goal mutants do (exponent ± 1/2).
WRONG_SHIFT = 0.5
#: The shifts of an exponent of EXPR in the mutation panel (each up and down).
MUTATIONS = (WRONG_SHIFT, 1.0)
#: How far each log mutant moves the log power of one varied parameter (:meth:`ObservableLaw.log_mutants`).
LOG_SHIFT = 1
#: The relations a law may state: ``~`` (a power law up to a constant, fitted) and ``=``, ``<=``, ``>=`` (the
#: value itself at every grid point, constant included, no fit).
RELATIONS = ("~", "=", "<=", ">=")

#: Longest law text read (a bound on the parser's work).
MAX_LAW_LENGTH = 400
#: Largest absolute value of an exponent in a law (as in the target grammar).
MAX_EXPONENT = 64
#: Largest decimal order of magnitude of a number of a law's text (a literal of EXPR or of an exponent, the LEVEL of
#: ``--where``): :math:`10^{-308} \le |x| < 10^{309}`, and at most the largest float. The order is read from the
#: digits and the exponent field *before* the number is built, so ``1e99999999`` costs nothing (an exact ``Fraction``
#: of it would compute :math:`10^{99999999}`, minutes).
MAX_DECIMAL_ORDER = 308
_DECIMAL = re.compile(r"(?P<sign>[+-]?)(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?")
_TOKEN = re.compile(r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
                    r"|(?P<op>\*\*|[-+*/()]))")


class _PowerLawParser:
    r"""A recursive-descent reader of a product of powers (no ``eval``, no ``sympify``)::

        product  := power (('*' | '/') power)*
        power    := atom ('**' exponent)?
        atom     := NUMBER | 'pi' | NAME | 'sqrt' '(' product ')' | LOG '(' argument ')' | '(' product ')'
        LOG      := 'log' | 'ln'                 (the natural log)
        argument := NAME | NUMBER | 'pi'         (a parameter, or a constant over 1: folded into the coefficient)
        exponent := ('+' | '-') exponent | NUMBER | '(' constant ')'
        constant := a sum, difference, product or quotient of NUMBERs (e.g. ``(1/2)``, ``(-1/3)``)

    Its value is the monomial ``(coefficient, {factor: power})`` whose factors are a parameter's name or
    ``log(NAME)`` (:func:`_log_factor`); powers are exact fractions where the text is, each at most
    :data:`MAX_EXPONENT` in absolute value (the parameters' and their logs' alike).
    """

    def __init__(self, text: str, parameters: Sequence[str]):
        self.text, self.parameters, position = text, set(parameters), 0
        self.tokens: list[tuple[str, str, int]] = []
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                if text[position:].strip() == "":
                    break
                raise InvalidParameterError(f"--law: cannot read {text!r} at position {position}: "
                                            f"{text[position:position + 12]!r}")
            kind = match.lastgroup
            assert kind is not None  # a match that moved on matched one of the named groups
            self.tokens.append((kind, match.group(kind), match.start(kind)))
            position = match.end()
        self.tokens.append(("end", "", len(text)))
        self.index = 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[min(self.index, len(self.tokens) - 1)]  # past the end (``log(`` took it): the end

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
        for factor, power in value[1].items():  # a product may add bounded powers beyond the bound (d**64*d**64)
            if abs(power) > MAX_EXPONENT:
                raise InvalidParameterError(f"--law: cannot read {self.text!r}: the power of {factor} is {power}, "
                                            f"an absolute value over {MAX_EXPONENT}")
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
            if not _is_finite(b) or abs(b) > MAX_EXPONENT:
                raise self.error(token, f"an exponent that is not finite or of absolute value over {MAX_EXPONENT}")
            if coefficient <= 0 and b != int(b):
                raise self.error(self.peek(), "a non-integer power of a non-positive constant")
            try:  # in floats: an exact big-integer power of a constant would be unbounded work
                coefficient = float(coefficient) ** float(b)
            except (OverflowError, ZeroDivisionError):
                raise self.error(token, "a constant out of the floating-point range") from None
            exponents = {k: v * b for k, v in exponents.items()}
            if any(abs(v) > MAX_EXPONENT for v in exponents.values()):
                raise self.error(token, f"an exponent that is not finite or of absolute value over {MAX_EXPONENT}")
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
            if value in _LOGS and (value not in self.parameters or self.peek()[1] == "("):
                return self.log(token)
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

    def log(self, function: tuple[str, str, int]):
        """``log(NAME)``, the factor ``log(NAME)`` to the power 1; ``log(c)`` of a constant c > 1 folded into the
        coefficient; anything else refused at the argument's position, saying why."""
        if self.peek()[1] != "(":
            raise self.error(self.peek(), f"{function[1]} takes its argument in parentheses, as in {function[1]}(d)")
        self.take("(")
        kind, value, _ = argument = self.take()
        closed = self.peek()[1] == ")"
        if kind == "name" and value in self.parameters and closed:
            self.take(")")
            return Fraction(1), {_log_factor(value): Fraction(1)}
        if (kind == "number" or value == "pi") and closed:
            constant = math.pi if value == "pi" else _exact(value)
            if not constant > 1:
                raise self.error(argument, f"the log of a constant at most 1 is not positive ({function[1]}({value}) "
                                           f"<= 0); a law's constant factor must be positive")
            self.take(")")
            return math.log(constant), {}
        if kind in ("name", "number") and self.peek()[0] == "end":
            self.take(")")  # refused: "expected ')' at the end"
        if value in _LOGS or value in _FUNCTIONS or value == "sqrt":
            why = f"a {function[1]} of {value}(...)"
        elif value in ("+", "-"):
            why = f"a {function[1]} of a signed argument"
        elif kind == "name" and value not in self.parameters:
            names = ", ".join(sorted(self.parameters))
            why = f"a {function[1]} of the unknown name {value!r} (the parameters: {names})"
        elif kind in ("name", "number") or value == "(":
            why = f"a {function[1]} of an expression"
        else:
            why = f"a {function[1]} of nothing"
        raise self.error(argument, f"{why} is refused: {function[1]}(...) takes one parameter's name, as in "
                                   f"{function[1]}(d), or a constant over 1 (write log(d**2) as 2*log(d))")

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


def _is_finite(value: Any) -> bool:
    """Whether a number of the exponent grammar is finite (inf - inf is NaN; a huge exact fraction is no float)."""
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


#: Functions of the target grammar: named in the error when a law applies one to a parameter.
_FUNCTIONS = {"relu", "tanh", "sigmoid", "erf", "exp", "sin", "cos", "abs", "sign"}
#: The names of the natural log in a law (``log(d)``, ``ln(d)``).
_LOGS = ("log", "ln")


def _log_factor(name: str) -> str:
    """The key of the factor :math:`\\log x` of parameter ``name`` in a parsed monomial (its text, ``log(d)``: no
    parameter's name has parentheses)."""
    return f"log({name})"


def decimal_order(text: str) -> int | None:
    """The decimal order of magnitude of the decimal literal ``text`` (``n`` where :math:`10^n \\le |x| < 10^{n+1}`),
    read from its digits and exponent field without building the number; None for zero.

    >>> decimal_order("1e99999999"), decimal_order("0.0025"), decimal_order("-31.5"), decimal_order("0e99999999")
    (99999999, -3, 1, None)
    """
    match = _DECIMAL.fullmatch(text.strip())
    if match is None or not (match.group("int") or match.group("frac")):
        raise ValueError(f"{text!r} is not a decimal number")
    integer, fraction = match.group("int").lstrip("0"), match.group("frac") or ""
    exponent = int(match.group("exp") or 0)  # at most a few hundred digits: the text is bounded
    if integer:
        return exponent + len(integer) - 1
    significant = fraction.lstrip("0")
    return exponent - (len(fraction) - len(significant)) - 1 if significant else None


def check_magnitude(text: str, what: str) -> None:
    """Refuse the decimal literal ``text`` when its order of magnitude is beyond :data:`MAX_DECIMAL_ORDER` either
    way, before it is built (``what`` names where it was read, for the message)."""
    order = decimal_order(text)
    if order is not None and abs(order) > MAX_DECIMAL_ORDER:
        raise _out_of_range(text, what)


def _out_of_range(text: str, what: str) -> InvalidParameterError:
    return InvalidParameterError(f"{what}: the number {_shown(text)} is out of range: a number's magnitude must lie "
                                 f"between 1e-{MAX_DECIMAL_ORDER} and the largest float, {sys.float_info.max:.3g}.")


def _shown(text: str, width: int = 24) -> str:
    """``text`` quoted, cut to ``width`` characters with its length when longer."""
    return repr(text) if len(text) <= width else f"{text[:width - 3]!r}... ({len(text)} characters)"


def _exact(text: str, what: str = "--law") -> Fraction | float:
    """A number as an exact fraction where it is a plain decimal of reasonable size, else a float; its magnitude is
    bounded (:func:`check_magnitude`) before it is built."""
    check_magnitude(text, what)
    number = Fraction(text)
    if abs(number.numerator) > 10**18 or number.denominator > 10**18:
        if abs(number) > sys.float_info.max:
            raise _out_of_range(text, what)
        return float(number)
    return number


@dataclasses.dataclass(frozen=True)
class ObservableLaw:
    r"""``OBS ~ EXPR`` parsed: the observable's name, the expression (sympy, in positive symbols named as the
    parameters), the exponent of each parameter it contains, its constant factor, the relation (``~``: up to a
    constant; ``=``, ``<=``, ``>=``: the value itself, constant included) and the power of each parameter's natural
    log it contains (``log_powers``; empty for a pure power law): EXPR is
    :math:`C \prod_i x_i^{b_i} \prod_i (\log x_i)^{p_i}` (:meth:`value_at`)."""

    text: str
    observable: str
    expression: Any
    exponents: dict[str, float]
    coefficient: float = 1.0
    relation: str = "~"
    log_powers: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def lhs(self) -> str:
        """The left side as written (``OBS``, or ``PARAM*`` for a level-set law)."""
        return self.observable

    def check_point(self, point: Mapping[str, Any], option: str = "--law") -> None:
        r"""Refuse a ``point`` where EXPR cannot be evaluated, naming ``option`` (``--over`` for a grid the user
        gave), the parameter and its value: every parameter of EXPR must be given a finite positive number, and one
        with a log factor a number over 1 (:math:`\log x \le 0` at :math:`x \le 1`: the law's value would be zero,
        negative or infinite there).

        >>> parse_observable_law("n ~ d*log(d)", ["d"]).check_point({"d": 1})  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        flt_theory.errors.InvalidParameterError: --law: the law 'n ~ d*log(d)' has the factor log(d), so d must be
        over 1 (log(d) > 0) at every point; got d=1.
        """
        _check_point(self.text, self.exponents, self.log_powers, point, option)

    def value_at(self, point: Mapping[str, Any], exponents: Mapping[str, float] | None = None,
                 log_powers: Mapping[str, float] | None = None) -> float:
        r"""EXPR at ``point``: :math:`C \prod_i x_i^{b_i} \prod_i (\log x_i)^{p_i}` with the law's constant
        :math:`C` and, unless given, its exponents :math:`b` and log powers :math:`p` (a mutant's, given); refused
        where it cannot be evaluated (:meth:`check_point`); ``inf`` beyond the floating-point range.

        >>> law = parse_relation_law("t <= 2*d/log(d)", ["d"])
        >>> round(law.value_at({"d": math.e**2}), 6), round(law.value_at({"d": math.e**2}, log_powers={}), 6)
        (7.389056, 14.778112)
        """
        exponents = self.exponents if exponents is None else exponents
        log_powers = self.log_powers if log_powers is None else log_powers
        _check_point(self.text, exponents, log_powers, point, "--law")
        try:
            return float(self.coefficient * math.prod(float(point[k]) ** b for k, b in exponents.items() if b != 0)
                         * math.prod(math.log(float(point[k])) ** q for k, q in log_powers.items() if q != 0))
        except OverflowError:
            return math.inf

    def mutant_text(self, exponents: Mapping[str, float], log_powers: Mapping[str, float] | None = None) -> str:
        """The law with ``exponents`` (and ``log_powers``; unless given, its own) in place of its own (the same left
        side, relation and constant): ``d**(3/2) * log(d)**(2)``, read back by the parser."""
        log_powers = self.log_powers if log_powers is None else log_powers
        factors = [f"{k}**({_fraction(b)})" for k, b in sorted(exponents.items()) if b != 0]
        factors += [_log_factor(k) + ("" if q == 1 else f"**({_fraction(q)})") for k, q in sorted(log_powers.items())
                    if q != 0]
        if self.relation != "~" and self.coefficient != 1:
            factors.insert(0, f"{self.coefficient:.4g}")
        return f"{self.lhs} {self.relation} {' * '.join(factors) or '1'}"

    def latex(self, exponents: Mapping[str, float] | None = None,
              log_powers: Mapping[str, float] | None = None) -> str:
        r"""The law (or, given ``exponents``/``log_powers``, its mutant) in LaTeX: ``n \sim d \log d``, negative
        powers as a fraction, the constant shown for a relation.

        >>> parse_relation_law("t <= 0.5*d**(1/2)/log(d)**2", ["d"]).latex()
        '\\mathrm{t} \\le \\frac{0.5 d^{1/2}}{\\log^{2} d}'
        """
        import sympy as sp

        exponents = self.exponents if exponents is None else exponents
        log_powers = self.log_powers if log_powers is None else log_powers
        upper: list[str] = []
        lower: list[str] = []
        for name, b in sorted(exponents.items()):  # the powers first, then the logs: d \log n, not \log n d
            if b != 0:
                (upper if b > 0 else lower).append(sp.latex(sp.Symbol(name))
                                                   + ("" if abs(b) == 1 else f"^{{{_fraction(abs(b))}}}"))
        for name, q in sorted(log_powers.items()):
            symbol, power = sp.latex(sp.Symbol(name)), abs(q)
            if q != 0:
                (upper if q > 0 else lower).append(
                    rf"\log {symbol}" if power == 1 else rf"\log^{{{_fraction(power)}}} {symbol}"
                    if float(power).is_integer() else rf"(\log {symbol})^{{{_fraction(power)}}}")
        if self.relation != "~" and self.coefficient != 1:
            upper.insert(0, _latex_number(self.coefficient))
        top = " ".join(upper) or "1"
        rhs = rf"\frac{{{top}}}{{{' '.join(lower)}}}" if lower else top
        return f"{self._lhs_latex()} {_RELATION_LATEX[self.relation]} {rhs}"

    def _lhs_latex(self) -> str:
        return r"\mathrm{" + self.observable.replace("_", r"\_") + "}"

    def wrong_laws(self, varied: Sequence[str]) -> list[tuple[str, dict[str, float], bool]]:
        """The mutation panel of the law on a grid varying ``varied``: ``(label, exponents, goal)`` for each
        exponent of EXPR moved by :data:`MUTATIONS` (± 1/2 and ± 1) and each varied parameter EXPR lacks given
        exponent ± 1/2, the log powers unchanged; the goal mutants (``goal``), those the law must be told apart
        from, are the ± 1/2 ones (:data:`WRONG_SHIFT`, the calibration's goal mutants). A rejection of the ± 1/2
        mutant of an exponent implies that of its ± 1 mutant whenever the law itself is inside the interval (an
        interval containing the law and excluding law ± 1/2 excludes law ± 1), so the ± 1 ones are reported, not
        required."""
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

    def log_mutants(self, varied: Sequence[str]) -> list[tuple[str, dict[str, float], dict[str, float], bool]]:
        r"""The log controls of the law on a grid varying ``varied``: ``(label, exponents, log_powers, goal)`` for
        the log power of each varied parameter moved by :data:`LOG_SHIFT` up and down (``d*log(d)`` against ``d``
        and ``d*log(d)**2``), the exponents the law's own; ``goal`` is False: reported controls (a missing log is
        not a pass), not required — over a grid of one or two decades :math:`\log\log x` varies little, so a log
        power is far harder to resolve than an exponent.

        >>> [(label, logs) for label, _, logs, _ in parse_observable_law("n ~ d*log(d)", ["d"]).log_mutants(["d"])]
        [('log power of d + 1', {'d': 2.0}), ('log power of d - 1', {})]
        """
        base = {k: self.exponents.get(k, 0.0) for k in varied}
        panel = []
        for k in varied:
            for sign in (+1, -1):
                power = self.log_powers.get(k, 0.0) + sign * LOG_SHIFT
                logs = {**{o: q for o, q in self.log_powers.items() if o != k}, **({k: power} if power else {})}
                panel.append((f"log power of {k} {'+' if sign > 0 else '-'} {LOG_SHIFT}", dict(base),
                               dict(sorted(logs.items())), False))
        return panel


def _check_point(text: str, exponents: Mapping[str, float], log_powers: Mapping[str, float], point: Mapping[str, Any],
                 option: str) -> None:
    """Refuse ``point`` where the law ``text`` with ``exponents`` and ``log_powers`` cannot be evaluated
    (:meth:`ObservableLaw.check_point`)."""
    names = {k for k, b in exponents.items() if b != 0} | {k for k, q in log_powers.items() if q != 0}
    for name in sorted(names):
        if name not in point:
            raise InvalidParameterError(f"{option}: the law {text!r} needs a value of {name}; the point gives "
                                        f"{', '.join(sorted(point)) or 'none'}.")
        value = point[name]
        number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
        if log_powers.get(name, 0) != 0 and not number > 1:  # NaN too
            raise InvalidParameterError(f"{option}: the law {text!r} has the factor {_log_factor(name)}, so {name} "
                                        f"must be over 1 (log({name}) > 0) at every point; got {name}={value!r}.")
        if not (math.isfinite(number) and number > 0):
            raise InvalidParameterError(f"{option}: the law {text!r} needs a finite positive {name}; got "
                                        f"{name}={value!r}.")


#: The LaTeX of each relation of :data:`RELATIONS`.
_RELATION_LATEX = {"~": r"\sim", "=": "=", "<=": r"\le", ">=": r"\ge"}


def _fraction(value: float) -> Fraction:
    """A power as the fraction it was written as (exponents are read exactly, stored as floats)."""
    return Fraction(value).limit_denominator(64)


def _latex_number(value: float) -> str:
    r"""A constant to 4 significant digits in LaTeX (``1.5 \times 10^{-7}``)."""
    mantissa, _, exponent = f"{value:.4g}".partition("e")
    return mantissa if not exponent else rf"{mantissa} \times 10^{{{int(exponent)}}}"


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


def _monomial(rhs: str, parameters: Sequence[str]) -> tuple[Any, dict[str, float], float, dict[str, float]]:
    """EXPR read by ``_PowerLawParser``: the sympy expression (positive symbols; ``log`` of them), each parameter's
    exponent, the constant factor and each parameter's log power."""
    import sympy as sp

    try:
        coefficient, factors = _PowerLawParser(rhs, parameters).parse()
    except (OverflowError, ZeroDivisionError) as exc:
        raise InvalidParameterError(f"--law: cannot read {rhs!r}: {exc}") from None
    try:
        value = float(coefficient)
    except OverflowError:  # an exact product of literals beyond the float range
        value = math.inf
    if math.isinf(value):  # 1e308*1e308: a law checked against inf would be no law
        raise InvalidParameterError(f"--law: the constant factor of {rhs!r} is infinite in floating point (beyond "
                                    f"{sys.float_info.max:.3g}); write the law with a finite constant.")
    if not value > 0:
        raise InvalidParameterError(f"--law: {rhs!r} must be positive (a law OBS ~ C * EXPR with C > 0).")
    logs = {name: factors.pop(_log_factor(name)) for name in parameters if _log_factor(name) in factors}
    symbols = {name: sp.Symbol(name, positive=True) for name in {*factors, *logs}}
    expression = sp.Mul(*(symbols[k] ** sp.nsimplify(v) for k, v in sorted(factors.items())),
                        *(sp.log(symbols[k]) ** sp.nsimplify(v) for k, v in sorted(logs.items())))
    return (expression, {k: float(v) for k, v in sorted(factors.items())}, value,
            {k: float(v) for k, v in sorted(logs.items())})


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
    expression, exponents, coefficient, log_powers = _monomial(rhs, parameters)
    return ObservableLaw(text=f"{lhs} ~ {rhs}", observable=lhs, expression=expression, exponents=exponents,
                         coefficient=coefficient, log_powers=log_powers)


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

    def _lhs_latex(self) -> str:
        import sympy as sp

        return sp.latex(sp.Symbol(self.parameter)) + "^{*}"


_WHERE = re.compile(r"\s*(?P<obs>[A-Za-z_][A-Za-z_0-9]*)\s*=\s*(?P<level>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*")


def is_level_set(text: Any) -> bool:
    """Whether ``text`` is a level-set law ``PARAM* ~ EXPR`` (its left side ends with ``*``).

    >>> is_level_set("eta* ~ d**(-1/2)"), is_level_set("norm_growth ~ d")
    (True, False)
    """
    return isinstance(text, str) and text.count("~") == 1 and text.split("~")[0].strip().endswith("*")


def parse_level_set_law(text: str, where: str | None, parameters: Sequence[str]) -> LevelSetLaw:
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
    if where_match:
        check_magnitude(where_match.group("level"), "--where")
    level = float(where_match.group("level")) if where_match else math.nan
    if where_match is None or not (math.isfinite(level) and level > 0):
        raise InvalidParameterError(f"--where: expected 'OBS = LEVEL' (an output of the experiment, '=', a positive "
                                    f"number). Got {where!r}.")
    expression, exponents, coefficient, log_powers = _monomial(rhs, parameters)
    if parameter in exponents or parameter in log_powers:
        raise InvalidParameterError(f"--law: the solved parameter {parameter!r} also appears in the expression "
                                    f"{rhs!r}; EXPR may use only the other parameters.")
    return LevelSetLaw(text=f"{parameter}* ~ {rhs}", observable=where_match.group("obs"), expression=expression,
                       exponents=exponents, coefficient=coefficient, log_powers=log_powers, parameter=parameter,
                       level=level)


def parse_any(law: str, where: str | None, numeric: Sequence[str]) -> ObservableLaw:
    """The law in whichever form it is written: level-set (with ``where``), power law or relation."""
    if is_level_set(law):
        return parse_level_set_law(law, where, numeric)
    if relation_of(law) in ("=", "<=", ">="):
        return parse_relation_law(law, numeric)
    return parse_observable_law(law, numeric)
