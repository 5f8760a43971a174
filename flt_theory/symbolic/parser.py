r"""Restricted grammar for user-supplied target and activation expressions.

User text is never passed to ``eval``, ``sympify`` or ``parse_expr``: a tokenizer and a
recursive-descent parser build the sympy tree node by node from this grammar::

    expr   := term (('+' | '-') term)*
    term   := unary (('*' | '/') unary)*
    unary  := ('+' | '-') unary | power
    power  := atom ('**' unary)?                      (right associative)
    atom   := NUMBER | VARIABLE | 'pi' | CALL | '(' expr ')'
    CALL   := FUNC '(' expr ')' | 'He' '(' INT ',' expr ')' | 'He' INT '(' expr ')'

``VARIABLE`` is ``z`` (single-index shorthand for ``z1``) or ``z1 … zr``; ``FUNC`` is one of
relu, tanh, sigmoid, erf, exp, sin, cos, abs, sign, sqrt. ``He(k, z)`` / ``Hek(z)`` is the
probabilists' Hermite polynomial He_k (E[He_j He_k] = j! δ_jk). Digits are ASCII only.

Bounded work, whatever the input:

* exponents are numeric constants of absolute value at most :data:`MAX_EXPONENT`, Hermite degrees
  at most :data:`MAX_HERMITE_DEGREE`, and the total polynomial degree of every node — predicted
  *before* a power or a Hermite composition such as ``He64(He64(z))`` (degree 4096) is built — at
  most the budget ``FLT_MAX_DEGREE`` (:mod:`.budget`), so nesting cannot bypass the exponent limit;
* every exact rational constant is at most :data:`MAX_CONSTANT_BITS` bits;
* a function or power of a constant is first enclosed in certified interval arithmetic
  (:mod:`.constants`): constants must be real (``(-1)**(1/2)`` is refused), a divisor must be
  certainly nonzero (``z/(sin(1)**2+cos(1)**2-1)`` is refused, naming the divisor), and a constant
  built from a large or inexact argument (``sin(exp(40))``) is folded to a 30-digit Float, or refused
  when that accuracy is out of the precision budget (``sin(exp(1e12))``); small exact constants
  (``cos(2)``, ``sqrt(2)``, ``pi``) stay exact;
* a non-integer power of a non-constant base needs a base certified non-negative
  (``abs(z)**0.5``, not ``z**0.5``), so targets stay real;
* a ``tanh`` whose argument holds ``relu`` or ``sigmoid`` is built only when sympy's test of whether it is real
  (an expansion of the argument's real and imaginary parts) is within ``FLT_MAX_WORK``
  (:func:`.budget.predict_realness`): ``exp(tanh(z4*(5 + z4*relu(571.207 - z3))**59))`` is refused at once.

Anything else raises :class:`~flt_theory.errors.InvalidTargetError` (or
:class:`~flt_theory.errors.BudgetExceededError` for a budget) quoting the offending token.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import sympy as sp

from ..errors import FLTError, InvalidTargetError
from .budget import check_degree, check_realness, limit
from .constants import EnclosureMemo, Interval, enclose, fold
from .functions import relu, sigmoid
from .integrability import value_range

__all__ = ["parse_expression", "variable", "MAX_EXPONENT", "MAX_HERMITE_DEGREE", "MAX_LENGTH", "MAX_CONSTANT_BITS"]

MAX_LENGTH = 4000
MAX_DEPTH = 60
#: Largest absolute value of a numeric exponent in a target.
MAX_EXPONENT = 64
#: Largest degree k of a Hermite polynomial ``He(k, z)`` / ``Hek(z)`` in a target.
MAX_HERMITE_DEGREE = 64
MAX_VARIABLES = 64
#: Largest size (bits of numerator or denominator) of an exact numeric constant in a parsed expression.
MAX_CONSTANT_BITS = 2048
#: Longest error message the parser raises (the middle of a longer one is elided).
MAX_MESSAGE = 400
#: Largest decimal exponent of a number literal (``1e1000``); larger ones are refused before being built.
_MAX_LITERAL_EXPONENT = 1000

FUNCTIONS = {
    "relu": relu,
    "tanh": sp.tanh,
    "sigmoid": sigmoid,
    "erf": sp.erf,
    "exp": sp.exp,
    "sin": sp.sin,
    "cos": sp.cos,
    "abs": sp.Abs,
    "sign": sp.sign,
    "sqrt": sp.sqrt,
}
#: Largest magnitude of a constant argument of a transcendental function kept exact (larger ones are folded).
_EXACT_ARGUMENT = 2**32

_TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>\*\*|[-+*/(),^]))",
    re.ASCII,
)


#: Characters of the input an error message quotes around the offending position (inputs run to MAX_LENGTH).
EXCERPT = 40


def excerpt(text: str, pos: int | None = None, width: int = EXCERPT) -> str:
    """``repr`` of at most ``width`` characters of ``text`` around ``pos``, with ``...`` where it was cut and the
    length of the whole: error messages quote a bounded excerpt, never a 4,000-character input whole.

    >>> excerpt("z1 + He2(z2)")
    "'z1 + He2(z2)'"
    >>> excerpt("z + " * 1000 + "open(z)", 4003, width=12)
    "...' z + open(z)' (4007 characters)"
    """
    if len(text) <= width:
        return repr(text)
    pos = 0 if pos is None else max(0, min(pos, len(text)))
    start = max(0, min(pos - width // 2, len(text) - width))
    end = start + width
    return (
        ("..." if start else "")
        + repr(text[start:end])
        + ("..." if end < len(text) else "")
        + f" ({len(text)} characters)"
    )


def _short(value: object, width: int = 60) -> str:
    """``str(value)`` cut to ``width`` characters."""
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def variable(k: int) -> sp.Symbol:
    """The coordinate ``z_k = <w*_k, x>`` (1-based), a real sympy symbol named ``z{k}``."""
    return sp.Symbol(f"z{k}", real=True)


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    pos: int


def _tokenize(text: str) -> list[_Token]:
    tokens, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            bad = text[pos:].lstrip()[:1]
            raise InvalidTargetError(
                f"unexpected character {bad!r} at position {pos} in {excerpt(text, pos)}; allowed are numbers, "
                "variables z/z1..zr, + - * / ** ( ) , and the functions " + ", ".join(sorted(FUNCTIONS))
                + ", He(k, z), Hek(z)"
            )
        kind = m.lastgroup
        assert kind is not None  # a nonempty match is one of the named alternatives of _TOKEN
        tokens.append(_Token(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    tokens.append(_Token("end", "", len(text)))
    return tokens


class _Parser:
    def __init__(self, text: str, single_variable: str | None):
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.depth = 0
        self.single_variable = single_variable
        self.checked_nodes: set[sp.Basic] = set()
        self.enclosures: EnclosureMemo = {}  # memo of constants.enclose
        self.degrees: dict[sp.Basic, int] = {}
        self.realness = 0.0  # predicted work of sympy's tests of whether each tanh is real (budget.check_realness)

    # -- helpers -------------------------------------------------------------------------
    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.take()
        if tok.text != text:
            shown = tok.text or "end of input"
            raise InvalidTargetError(f"expected {text!r} but found {shown[:20]!r} at position {tok.pos} in "
                                     f"{excerpt(self.text, tok.pos)}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise InvalidTargetError(f"expression nested deeper than {MAX_DEPTH} levels: {self.text[:60]!r}...")

    def checked(self, value: sp.Expr, pos: int) -> sp.Expr:
        """``value`` after checking that it holds no exact constant of more than MAX_CONSTANT_BITS bits.

        Every operand was checked when it was built, so only new nodes are walked; as each operation
        combines constants of at most that size with exponents of at most MAX_EXPONENT, nothing
        expensive is ever computed."""
        stack = [value]
        while stack:
            node = stack.pop()
            if node in self.checked_nodes:
                continue
            self.checked_nodes.add(node)
            if node.is_Rational:
                if max(abs(node.p).bit_length(), node.q.bit_length()) > MAX_CONSTANT_BITS:
                    raise InvalidTargetError(
                        f"numeric constant built at position {pos} ({self.text[pos:pos + 20]!r}...) exceeds "
                        f"{MAX_CONSTANT_BITS} bits"
                    )
            else:
                stack.extend(node.args)
        check_degree(self.degree(value), f"the expression at position {pos} ({self.text[pos:pos + 20]!r}...)")
        if not value.free_symbols and not value.is_Rational and not value.is_Float:
            iv = self.enclosure(value, pos)
            if iv.contains_zero() and not iv.exact_zero:  # undecidable zero: fold before sympy tries to decide it
                value = fold(iv, str(value))
                self.enclosures[(value, limit("precision"))] = iv
        return value

    def degree(self, node: sp.Basic) -> int:
        """Cost degree of ``node``: its polynomial degree, counting a function node as its argument's
        degree and a power of any exponent e as ceil(|e|) times the base's (memoised on the DAG)."""
        if node in self.degrees:
            return self.degrees[node]
        if not node.free_symbols:
            out = 0
        elif node.is_Symbol:
            out = 1
        elif node.is_Add or node.func is sp.Max:
            out = max(self.degree(a) for a in node.args)
        elif node.is_Mul:
            out = sum(self.degree(a) for a in node.args)
        elif node.is_Pow:
            out = self.degree(node.base) * max(1, math.ceil(abs(float(node.exp)))) if node.exp.is_Number else 10**9
        else:
            out = max((self.degree(a) for a in node.args), default=0)
        self.degrees[node] = out
        return out

    def enclosure(self, value: sp.Expr, pos: int) -> Interval:
        try:
            return enclose(value, self.enclosures)
        except FLTError as exc:
            raise type(exc)(f"constant at position {pos} in {excerpt(self.text, pos)}: {exc}") from None

    def constant_call(self, build: Callable[..., sp.Expr], args: list[sp.Expr], pos: int) -> sp.Expr:
        """``build(*args)`` for constant ``args``: certified first (real, finite, within budget), kept
        exact when its arguments are exact and small, else folded to a Float (module docstring)."""
        for a in args:
            self.enclosure(a, pos)
        unevaluated = build(*args, evaluate=False)
        iv = self.enclosure(unevaluated, pos)
        sign_decided = build not in (relu, sp.Abs, sp.sign) or all(
            self.enclosure(a, pos).exact_zero or not self.enclosure(a, pos).contains_zero() for a in args
        )
        small = sign_decided and all(
            not a.has(sp.Float) and self.enclosure(a, pos).magnitude() <= _EXACT_ARGUMENT
            and (not a.is_Rational or max(abs(a.p).bit_length(), a.q.bit_length()) <= 64)
            for a in args
        )
        value = build(*args) if small else fold(iv, str(unevaluated))
        self.enclosures[(value, limit("precision"))] = iv
        return value

    # -- grammar -------------------------------------------------------------------------
    def parse(self) -> sp.Expr:
        expr = self.expr()
        tok = self.peek()
        if tok.kind != "end":
            raise InvalidTargetError(f"unexpected token {tok.text[:20]!r} at position {tok.pos} in "
                                     f"{excerpt(self.text, tok.pos)}")
        return expr

    def expr(self) -> sp.Expr:
        self.enter()
        value = self.term()
        while self.peek().text in ("+", "-"):
            op_tok = self.take()
            op, op_pos = op_tok.text, op_tok.pos
            rhs = self.term()
            value = self.checked(value + rhs if op == "+" else value - rhs, op_pos)
        self.depth -= 1
        return value

    def term(self) -> sp.Expr:
        value = self.unary()
        while self.peek().text in ("*", "/"):
            op = self.take()
            rhs = self.unary()
            if op.text == "/":
                if not rhs.free_symbols:
                    iv = self.enclosure(rhs, op.pos)
                    if iv.contains_zero():
                        zero = "zero" if iv.exact_zero else "zero or too close to zero to decide"
                        raise InvalidTargetError(
                            f"division by {zero} at position {op.pos} in {excerpt(self.text, op.pos)}: the divisor "
                            f"{_short(rhs)} (|value| <= {mpmath.nstr(iv.magnitude(), 3)})"
                        )
                elif rhs.is_zero:
                    raise InvalidTargetError(f"division by zero at position {op.pos} in {excerpt(self.text, op.pos)}")
                value = self.checked(value / rhs, op.pos)
            else:
                value = self.checked(value * rhs, op.pos)
        return value

    def unary(self) -> sp.Expr:
        if self.peek().text in ("+", "-"):
            self.enter()
            op = self.take()
            value = self.unary()
            self.depth -= 1
            return self.checked(-value, op.pos) if op.text == "-" else value
        return self.power()

    def power(self) -> sp.Expr:
        base = self.atom()
        tok = self.peek()
        if tok.text == "^":
            raise InvalidTargetError(f"'^' at position {tok.pos} is not a power here; write '**'")
        if tok.text == "**":
            self.take()
            self.enter()
            exponent = self.unary()
            self.depth -= 1
            if exponent.free_symbols:
                raise InvalidTargetError(
                    f"exponent {_short(exponent)!r} at position {tok.pos} must be a numeric constant"
                )
            iv = self.enclosure(exponent, tok.pos)
            if iv.magnitude() > MAX_EXPONENT:
                raise InvalidTargetError(
                    f"exponent {_short(exponent)} at position {tok.pos} exceeds the limit |exponent| <= {MAX_EXPONENT}"
                )
            if not exponent.is_Rational:
                exponent = fold(iv, str(exponent))
            if base.is_Rational and exponent.is_Integer:  # exact, size predicted first
                bits = max(abs(base.p).bit_length(), base.q.bit_length()) * abs(int(exponent))
                if bits > MAX_CONSTANT_BITS:
                    raise InvalidTargetError(
                        f"the power '**{exponent}' at position {tok.pos} builds a constant of about {bits} bits, "
                        f"beyond {MAX_CONSTANT_BITS} bits"
                    )
                if base.is_zero and exponent.is_negative:
                    raise InvalidTargetError(f"0 raised to a negative power at position {tok.pos}")
                return self.checked(base**exponent, tok.pos)
            if not base.free_symbols:
                return self.checked(self.constant_call(sp.Pow, [base, exponent], tok.pos), tok.pos)
            if not exponent.is_Integer:
                lo, _ = value_range(base, base.free_symbols)
                if lo < 0:
                    raise InvalidTargetError(
                        f"the power at position {tok.pos} raises {_short(base)}, which takes negative values, to the "
                        f"non-integer exponent {exponent}: not real; write abs(...)**{exponent} or "
                        f"relu(...)**{exponent}"
                    )
            check_degree(
                self.degree(base) * max(1, math.ceil(abs(float(exponent)))),
                f"the power at position {tok.pos} ({self.text[tok.pos:tok.pos + 20]!r}...)",
            )
            return self.checked(base**exponent, tok.pos)
        return base

    def atom(self) -> sp.Expr:
        tok = self.take()
        if tok.kind == "number":
            if not re.fullmatch(r"[0-9.eE+-]+", tok.text):  # ASCII digits only
                raise InvalidTargetError(f"number literal {tok.text[:20]!r} at position {tok.pos} is not ASCII")
            if len(tok.text) > 40:
                raise InvalidTargetError(f"number literal {tok.text[:20]!r}... is too long")
            _, _, decimal_exponent = tok.text.lower().partition("e")
            if decimal_exponent and abs(int(decimal_exponent)) > _MAX_LITERAL_EXPONENT:
                raise InvalidTargetError(
                    f"number literal {tok.text[:20]!r} at position {tok.pos} is out of range "
                    f"(decimal exponent beyond ±{_MAX_LITERAL_EXPONENT})"
                )
            return self.checked(sp.Rational(tok.text), tok.pos)
        if tok.text == "(":
            value = self.expr()
            self.expect(")")
            return value
        if tok.kind == "name":
            return self.name(tok)
        shown = tok.text or "end of input"
        raise InvalidTargetError(f"unexpected token {shown[:20]!r} at position {tok.pos} in "
                                 f"{excerpt(self.text, tok.pos)}")

    def name(self, tok: _Token) -> sp.Expr:
        name = tok.text
        if name == "pi":
            return sp.pi
        if name in FUNCTIONS:
            self.expect("(")
            arg = self.expr()
            self.expect(")")
            if not arg.free_symbols:
                return self.checked(self.constant_call(FUNCTIONS[name], [arg], tok.pos), tok.pos)
            if name == "tanh":  # sympy's test of whether it is real expands arg in the parts of relu, sigmoid
                self.realness = check_realness(arg, f"tanh at position {tok.pos}", self.realness)
            if name == "sqrt":
                if value_range(arg, arg.free_symbols)[0] < 0:
                    raise InvalidTargetError(
                        f"sqrt at position {tok.pos}: its argument {_short(arg)} takes negative values; write "
                        "sqrt(abs(...))"
                    )
            return self.checked(FUNCTIONS[name](arg), tok.pos)
        m = re.fullmatch(r"He(\d*)", name)
        if m:
            return self.hermite(tok, m.group(1))
        m = re.fullmatch(r"z(\d*)", name)
        if m:
            return self.variable(tok, m.group(1))
        raise InvalidTargetError(
            f"unknown name {name[:20]!r} at position {tok.pos} in {excerpt(self.text, tok.pos)}; allowed are variables "
            "z/z1..zr, pi, the functions " + ", ".join(sorted(FUNCTIONS)) + ", He(k, z) and Hek(z)"
        )

    def variable(self, tok: _Token, digits: str) -> sp.Symbol:
        if digits == "":
            if self.single_variable is None:
                return variable(1)
            return sp.Symbol(self.single_variable, real=True)
        k = int(digits)
        if not 1 <= k <= MAX_VARIABLES or digits.startswith("0"):
            raise InvalidTargetError(
                f"variable {tok.text[:20]!r} at position {tok.pos}: indices run from z1 to z{MAX_VARIABLES}"
            )
        if self.single_variable is not None:
            raise InvalidTargetError(
                f"unknown variable {tok.text[:20]!r} at position {tok.pos}: this expression is in "
                f"{self.single_variable!r} only"
            )
        return variable(k)

    def hermite(self, tok: _Token, digits: str) -> sp.Expr:
        self.expect("(")
        if digits == "":
            deg_tok = self.take()
            if deg_tok.kind != "number" or not re.fullmatch(r"[0-9]+", deg_tok.text):
                raise InvalidTargetError(
                    f"He(k, z) needs a non-negative integer degree k; found {deg_tok.text[:20]!r} at "
                    f"position {deg_tok.pos}"
                )
            digits = deg_tok.text
            self.expect(",")
        degree = int(digits)
        if degree > MAX_HERMITE_DEGREE:
            raise InvalidTargetError(
                f"Hermite degree {degree} at position {tok.pos} exceeds the limit {MAX_HERMITE_DEGREE}"
            )
        arg = self.expr()
        self.expect(")")
        check_degree(degree * self.degree(arg), f"the Hermite composition He{degree}(...) at position {tok.pos}")
        if not arg.free_symbols and not arg.is_Rational and not arg.is_Float:
            arg = fold(self.enclosure(arg, tok.pos), str(arg))  # no exact polynomial in a transcendental constant
        value = sp.hermite_prob(degree, arg)
        if not arg.free_symbols:
            self.enclosure(value, tok.pos)
        return self.checked(value, tok.pos)


def parse_expression(text: str, *, single_variable: str | None = None) -> sp.Expr:
    """Parse ``text`` with the restricted grammar of this module into a sympy expression.

    Parameters
    ----------
    text
        The expression, e.g. ``"z1 + He2(z2) + relu(z1)**2"``.
    single_variable
        If given (e.g. ``"z"``), the expression must be in that one variable (used for 1-D
        activations and link functions); otherwise variables are ``z`` (= ``z1``) or ``z1 … zr``.

    Raises
    ------
    InvalidTargetError
        On anything outside the grammar, quoting the offending token.

    Examples
    --------
    >>> parse_expression("z1 + He2(z2)")
    z1 + z2**2 - 1
    >>> parse_expression("open(z)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidTargetError: unknown name 'open' at position 0 in 'open(z)'; ...
    """
    if not isinstance(text, str):
        raise InvalidTargetError(f"an expression must be given as a string; got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise InvalidTargetError(
            f"expression of {len(text)} characters exceeds the limit of {MAX_LENGTH}: {text[:EXCERPT]!r}..."
        )
    if text.strip() == "":
        raise InvalidTargetError("empty expression")
    try:
        return _Parser(text, single_variable).parse()
    except FLTError as exc:
        message = str(exc)
        if len(message) <= MAX_MESSAGE:
            raise
        raise type(exc)(message[: MAX_MESSAGE // 2 - 3] + " ... " + message[-(MAX_MESSAGE // 2 - 2):]) from None
