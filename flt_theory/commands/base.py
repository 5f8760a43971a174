r"""What every ``flt`` command shares: one-line input errors, parameter types, the output and target options.

Imports click only (sympy and the symbolic layer are imported inside the functions that need them), so the
``flt`` group can load it without paying for sympy. Exit-code contract (:mod:`flt_theory.cli`): an
:class:`InputError` is one line ``flt: error: PARAM: message`` on stderr with exit code 2.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import click

from ..errors import FLTError

if TYPE_CHECKING:  # pragma: no cover
    from .._files import Output
    from ..symbolic import HermiteExpansion, Target

__all__ = [
    "CONVENTION",
    "SCALES",
    "Bounded",
    "InputError",
    "blame",
    "check_output_paths",
    "describe_target",
    "emit_json",
    "force_option",
    "hermite_latex",
    "load_target",
    "number_text",
    "one_line",
    "output_format",
    "output_options",
    "range_text",
    "target_options",
    "write_failure",
]

#: The Hermite convention, as the commands print it.
CONVENTION = "probabilists' He_j, E[He_j He_k] = j! delta_jk"
#: The scales a claim is declared at (:data:`flt_theory.systems.declaration.SCALES`, restated here so that the options
#: of ``flt check`` and ``flt calibrate`` are parsed before the systems are imported; tests/test_cli.py keeps the two
#: equal).
SCALES = ("small", "paper")


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


def number_text(value: float) -> str:
    """``2`` for an integral value, else a short decimal: what :func:`flt_theory._text.number_text` writes for a
    float, without importing sympy (an option's bound or value in an error message).

    >>> number_text(2.0), number_text(1.5), number_text(1e20)
    ('2', '1.5', '1e+20')
    """
    number = float(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else f"{number:.10g}"


def range_text(minimum: float | None, maximum: float | None) -> str:
    """`` in [a, b]``, `` >= a``, `` <= b`` or nothing.

    >>> range_text(1, 2.5), range_text(0, None), range_text(None, None)
    (' in [1, 2.5]', ' >= 0', '')
    """
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
            finite = math.isfinite(number)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an integer beyond any float (4000 digits)
            number, finite = math.nan, False
        if not finite or (self.minimum is not None and number < self.minimum) or (
                self.maximum is not None and number > self.maximum):
            self.fail(f"expected a finite {'integer' if self.kind is int else 'real number'}"
                      f"{range_text(self.minimum, self.maximum)}; got {value!r}", param, ctx)
        return number


def force_option(func: Callable) -> Callable:
    """The ``--force`` flag of a command that writes files (:func:`check_output_paths`)."""
    return click.option("--force", is_flag=True,
                        help="Overwrite an existing output (--latex, --record, --report) that is not an earlier output "
                             "of the same kind; never a measurement store (any SQLite database).")(func)


def latex_option(what: str) -> Callable[[Callable], Callable]:
    """The ``--latex FILE`` option of a command that writes ``what`` as a booktabs table."""
    return click.option("--latex", "latex_file", type=click.Path(), default=None, metavar="FILE",
                        help=f"{what} as a booktabs table to FILE: it compiles alone (pdflatex FILE) and can be "
                             "\\input into a paper whose preamble loads amsmath, amssymb, booktabs and longtable.")


def check_output_paths(outputs: Sequence[Output], *, store: str | os.PathLike[str] | None,
                       force: bool) -> None:
    """Refuse, before any work, output paths that must not be written (:func:`flt_theory._files.check_outputs`: the
    store in use, a folder for a file, an existing file that is not an earlier output of its kind without
    ``--force``), as an input error naming the option and the path."""
    from .._files import check_outputs

    try:
        check_outputs(outputs, store=store, force=force)
    except FLTError as exc:
        raise InputError(None, str(exc)) from exc


def write_failure(exc: OSError) -> click.ClickException:
    """An output that could not be written while the command ran (a full disk, a folder removed) as one line with
    exit code 1 (the writes are atomic: the file there before is kept)."""
    where = f" {exc.filename!r}" if exc.filename else ""
    return click.ClickException(f"cannot write{where}: {exc.strerror or one_line(str(exc))}; the file there before, if "
                                "any, is unchanged")


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
