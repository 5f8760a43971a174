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
relu, tanh, sigmoid, erf, exp, sin, cos, abs, sign. ``He(k, z)`` / ``Hek(z)`` is the probabilists'
Hermite polynomial He_k (E[He_j He_k] = j! δ_jk). Exponents must be numeric constants of absolute
value at most :data:`MAX_EXPONENT`; Hermite degrees at most :data:`MAX_HERMITE_DEGREE`; every exact
numeric constant sympy builds along the way (``2**64``, ``1e300``, ``(2**64)**64``) at most
:data:`MAX_CONSTANT_BITS` bits, and constants must be real (``(-1)**(1/2)`` is refused), so parsing
is fast whatever the input. Anything else raises :class:`~flt_theory.errors.InvalidTargetError`
quoting the offending token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from ..errors import InvalidTargetError
from .functions import relu, sigmoid

__all__ = ["parse_expression", "variable", "MAX_EXPONENT", "MAX_HERMITE_DEGREE", "MAX_LENGTH", "MAX_CONSTANT_BITS"]

MAX_LENGTH = 4000
MAX_DEPTH = 60
MAX_EXPONENT = 64
MAX_HERMITE_DEGREE = 64
MAX_VARIABLES = 64
#: Largest size (bits of numerator or denominator) of an exact numeric constant in a parsed expression.
MAX_CONSTANT_BITS = 2048
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
}

_TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>\*\*|[-+*/(),^]))"
)


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
                f"unexpected character {bad!r} at position {pos} in {text!r}; allowed are numbers, "
                "variables z/z1..zr, + - * / ** ( ) , and the functions " + ", ".join(sorted(FUNCTIONS))
                + ", He(k, z), Hek(z)"
            )
        kind = m.lastgroup
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
            raise InvalidTargetError(f"expected {text!r} but found {shown!r} at position {tok.pos} in {self.text!r}")

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
        return value

    # -- grammar -------------------------------------------------------------------------
    def parse(self) -> sp.Expr:
        expr = self.expr()
        tok = self.peek()
        if tok.kind != "end":
            raise InvalidTargetError(f"unexpected token {tok.text!r} at position {tok.pos} in {self.text!r}")
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
                if rhs.is_zero:
                    raise InvalidTargetError(f"division by zero at position {op.pos} in {self.text!r}")
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
            if not exponent.is_number or not exponent.is_real:
                raise InvalidTargetError(
                    f"exponent {str(exponent)!r} at position {tok.pos} must be a numeric constant"
                )
            if abs(float(exponent)) > MAX_EXPONENT:
                raise InvalidTargetError(
                    f"exponent {exponent} at position {tok.pos} exceeds the limit |exponent| <= {MAX_EXPONENT}"
                )
            if base.is_zero and exponent.is_negative:
                raise InvalidTargetError(f"0 raised to a negative power at position {tok.pos}")
            value = self.checked(base**exponent, tok.pos)
            if value.is_number and value.is_extended_real is not True:
                raise InvalidTargetError(
                    f"the power at position {tok.pos} gives the non-real constant {value}; targets are real"
                )
            return value
        return base

    def atom(self) -> sp.Expr:
        tok = self.take()
        if tok.kind == "number":
            if len(tok.text) > 40:
                raise InvalidTargetError(f"number literal {tok.text[:20]!r}... is too long")
            _, _, decimal_exponent = tok.text.lower().partition("e")
            if decimal_exponent and abs(int(decimal_exponent)) > _MAX_LITERAL_EXPONENT:
                raise InvalidTargetError(
                    f"number literal {tok.text!r} at position {tok.pos} is out of range "
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
        raise InvalidTargetError(f"unexpected token {shown!r} at position {tok.pos} in {self.text!r}")

    def name(self, tok: _Token) -> sp.Expr:
        name = tok.text
        if name == "pi":
            return sp.pi
        if name in FUNCTIONS:
            self.expect("(")
            arg = self.expr()
            self.expect(")")
            return self.checked(FUNCTIONS[name](arg), tok.pos)
        m = re.fullmatch(r"He(\d*)", name)
        if m:
            return self.hermite(tok, m.group(1))
        m = re.fullmatch(r"z(\d*)", name)
        if m:
            return self.variable(tok, m.group(1))
        raise InvalidTargetError(
            f"unknown name {name!r} at position {tok.pos} in {self.text!r}; allowed are variables "
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
                f"variable {tok.text!r} at position {tok.pos}: indices run from z1 to z{MAX_VARIABLES}"
            )
        if self.single_variable is not None:
            raise InvalidTargetError(
                f"unknown variable {tok.text!r} at position {tok.pos}: this expression is in "
                f"{self.single_variable!r} only"
            )
        return variable(k)

    def hermite(self, tok: _Token, digits: str) -> sp.Expr:
        self.expect("(")
        if digits == "":
            deg_tok = self.take()
            if deg_tok.kind != "number" or not deg_tok.text.isdigit():
                raise InvalidTargetError(
                    f"He(k, z) needs a non-negative integer degree k; found {deg_tok.text!r} at "
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
        return self.checked(sp.hermite_prob(degree, arg), tok.pos)


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
        raise InvalidTargetError(f"expression of {len(text)} characters exceeds the limit of {MAX_LENGTH}")
    if text.strip() == "":
        raise InvalidTargetError("empty expression")
    return _Parser(text, single_variable).parse()
