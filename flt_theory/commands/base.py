r"""What every ``flt`` command shares: one-line input errors, parameter types, the output and target options.

Imports click only (sympy and the symbolic layer are imported inside the functions that need them), so the
``flt`` group can load it without paying for sympy. Exit-code contract (:mod:`flt_theory.cli`): an
:class:`InputError` is one line ``flt: error: PARAM: message`` on stderr with exit code 2.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import click

from ..errors import FLTError

if TYPE_CHECKING:  # pragma: no cover
    from ..symbolic import HermiteExpansion, Target

__all__ = [
    "CONVENTION",
    "Bounded",
    "InputError",
    "blame",
    "describe_target",
    "emit_json",
    "hermite_latex",
    "load_target",
    "one_line",
    "output_format",
    "output_options",
    "range_text",
    "target_options",
]

#: The Hermite convention, as the commands print it.
CONVENTION = "probabilists' He_j, E[He_j He_k] = j! delta_jk"


class InputError(click.UsageError):
    """Bad input attributed to one parameter, the one input error of every ``flt`` command; printed as ``flt: error:
    PARAM: message`` with exit code 2 (``param`` None: the message already names it, as the errors of the systems'
    simulate commands do). Unlike click's own usage errors it carries no pointer to ``--help``: it names what to
    change."""

    def __init__(self, param: str | None, message: str):
        super().__init__(message if param is None else f"{param}: {message}")


@contextlib.contextmanager
def blame(param: str) -> Iterator[None]:
    """Turn a library :class:`~flt_theory.errors.FLTError` into an input error naming ``param``."""
    try:
        yield
    except FLTError as exc:
        raise InputError(param, str(exc)) from exc


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) replaced by one space.

    >>> one_line("boom\\n  second line")
    'boom second line'
    """
    return " ".join(str(text).split())


def range_text(minimum: float | None, maximum: float | None) -> str:
    """`` in [a, b]``, `` >= a``, `` <= b`` or nothing.

    >>> range_text(1, 2.5), range_text(0, None), range_text(None, None)
    (' in [1, 2.5]', ' >= 0', '')
    """
    from .._text import number_text

    if minimum is not None and maximum is not None:
        return f" in [{number_text(minimum)}, {number_text(maximum)}]"
    if minimum is not None:
        return f" >= {number_text(minimum)}"
    return "" if maximum is None else f" <= {number_text(maximum)}"


class Bounded(click.ParamType):
    """A finite int or real within optional bounds (rejects nan and inf, unlike ``click.FloatRange``)."""

    def __init__(self, kind: type, minimum: float | None, maximum: float | None):
        self.kind, self.minimum, self.maximum = kind, minimum, maximum
        self.name = "INTEGER" if kind is int else "REAL"

    def convert(self, value: Any, param, ctx):
        try:
            number = self.kind(value) if not isinstance(value, bool) else math.nan
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number) or (self.minimum is not None and number < self.minimum) or (
                self.maximum is not None and number > self.maximum):
            self.fail(f"expected a finite {'integer' if self.kind is int else 'real number'}"
                      f"{range_text(self.minimum, self.maximum)}; got {value!r}", param, ctx)
        return number


def output_options(func: Callable) -> Callable:
    """The ``--json`` and ``--latex`` flags of a command."""
    func = click.option("--latex", "as_latex", is_flag=True, help="Print LaTeX instead of text.")(func)
    func = click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")(func)
    return func


def output_format(as_json: bool, as_latex: bool) -> str:
    """``"json"``, ``"latex"`` or ``"text"`` from the flags of :func:`output_options` (not both)."""
    if as_json and as_latex:
        raise click.UsageError("--json and --latex are mutually exclusive; give one of them")
    return "json" if as_json else "latex" if as_latex else "text"


def target_options(func: Callable) -> Callable:
    """The ``TARGET`` argument, ``--links`` and ``--degree`` of a command that takes a target."""
    func = click.option(
        "--degree",
        "truncation",
        type=click.IntRange(0, 40),
        default=None,
        help="Hermite truncation degree for non-polynomial targets (default 8); polynomials are exact.",
    )(func)
    func = click.option(
        "--links",
        "links",
        default=None,
        metavar="'S1; S2; ...'",
        help="Separable target sum_k S_k(z_k): semicolon-separated 1-D links in z (instead of TARGET).",
    )(func)
    func = click.argument("target", required=False)(func)
    return func


def load_target(target: str | None, links: str | None) -> Target:
    """The :class:`~flt_theory.symbolic.Target` given by ``TARGET`` or by ``--links`` (exactly one of them)."""
    from ..symbolic import Target

    if target is not None and links is not None:
        raise click.UsageError("give either TARGET or --links, not both")
    if links is not None:
        parts = [part.strip() for part in links.split(";")]
        if any(part == "" for part in parts):
            raise InputError("--links", f"empty link in {links!r}; separate 1-D links in z by ';'")
        with blame("--links"):
            return Target.from_links(parts, name="sum of links " + "; ".join(parts))
    if target is None:
        raise click.UsageError("missing argument TARGET (or give --links)")
    with blame("TARGET"):
        return Target.parse(target)


def hermite_latex(expansion: HermiteExpansion) -> str:
    r"""LaTeX of :math:`\sum_\alpha \hat g(\alpha)\mathrm{He}_\alpha(z)`, with :math:`z_k = \langle x, w^*_k\rangle`.

    >>> from flt_theory.symbolic import hermite_expansion, variable
    >>> z1, z2 = variable(1), variable(2)
    >>> hermite_latex(hermite_expansion(z1 - 2 * (z1**2 - 1) * z2, [z1, z2]))
    'z_{1} - 2 \\mathrm{He}_{2}(z_{1})\\, z_{2}'
    """
    import sympy as sp

    terms = []
    for alpha in sorted(expansion.coefficients, key=lambda a: (sum(a), tuple(-x for x in a))):
        coeff = sp.sympify(expansion.coefficients[alpha])
        if isinstance(coeff, sp.Float):
            coeff = sp.Float(coeff, 6)
        factors = [
            f"z_{{{k}}}" if a == 1 else rf"\mathrm{{He}}_{{{a}}}(z_{{{k}}})" for k, a in enumerate(alpha, start=1) if a
        ]
        body = r"\, ".join(factors)
        if not factors:
            terms.append(sp.latex(coeff))
        elif coeff == 1:
            terms.append(body)
        elif coeff == -1:
            terms.append("-" + body)
        elif isinstance(coeff, sp.Add):
            terms.append(rf"\left({sp.latex(coeff)}\right) {body}")
        else:
            terms.append(f"{sp.latex(coeff)} {body}")
    return " + ".join(terms).replace("+ -", "- ") if terms else "0"


def describe_target(target: Target, truncation: int | None) -> tuple[str, str, str]:
    """``(text, latex, note)`` of a target: the text as given, LaTeX in Hermite form for a polynomial."""
    from ..symbolic import expand_target

    text = target.name if target.name is not None else str(target.expr)
    if target.is_polynomial:
        return text, hermite_latex(expand_target(target)), ""
    degree = 8 if truncation is None else truncation
    return text, target.latex(), f"; non-polynomial: results use its Hermite truncation at degree {degree}"


def emit_json(document: Any) -> None:
    """Print ``document`` as the one JSON document of a ``--json`` run (no NaN: it is not JSON)."""
    import json

    click.echo(json.dumps(document, indent=2, allow_nan=False))
