r"""``flt hermite`` and ``flt leap``: the symbolic commands that take no system (sympy; loaded on first use).

Hermite convention: probabilists' :math:`\mathrm{He}_j`, :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] =
j!\,\delta_{jk}`.

>>> from click.testing import CliRunner
>>> print(CliRunner().invoke(leap_command, ["He3(z)", "--json"]).output, end="")  # doctest: +ELLIPSIS
{
  "leap_index": 3,
  "information_exponent": 3,
  "leap_complexity": 3,
  "rank": 1,
  "generative_exponent": 1,
...
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

import click

from .base import (
    CONVENTION,
    blame,
    describe_target,
    emit_json,
    load_target,
    output_format,
    output_options,
    target_options,
)

__all__ = ["hermite_command", "leap_command"]


@contextlib.contextmanager
def quiet_floating_point() -> Iterator[None]:
    """No floating-point warning (overflow, invalid value) of the numerics run inside reaches the output: what
    ``numpy.errstate(all="ignore")`` gives, without importing numpy first. numpy is loaded only by the quadrature
    of a non-polynomial function, inside the block (where an error state set before its import would not reach),
    and that quadrature reports its accuracy and refuses non-finite values itself."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@click.command("hermite", short_help="Hermite coefficients mu_0..mu_K of a 1-D function.")
@click.argument("expr")
@click.option("--degree", type=click.IntRange(0, 200), default=6, show_default=True, help="Largest j.")
@output_options
def hermite_command(expr: str, degree: int, as_json: bool, as_latex: bool) -> None:
    """Hermite coefficients mu_j = E[sigma(z) He_j(z)], j = 0..K, of a 1-D function sigma(z).

    EXPR is a function of z ("relu(z)**2", "tanh(z)") or a bare name ("relu"). Exact for
    polynomials and relu/abs/sign pieces, else Gauss-Hermite quadrature with a reported accuracy.
    """
    fmt = output_format(as_json, as_latex)
    import sympy as sp  # the options are read: now the symbolic layer

    from .._text import as_float, table
    from ..symbolic import hermite_coefficients, parse_link

    with blame("EXPR"), quiet_floating_point():
        sigma = parse_link(expr)
        coeffs = hermite_coefficients(sigma, degree, variable=sp.Symbol("z", real=True))
    values = [as_float(v) for v in coeffs.values]
    # a numeric value is shown as ~0 only when it is below its OWN stated error (errors grow with j)
    noise = [max(10 * float(e), 1e-12) for e in coeffs.errors]
    if fmt == "json":
        emit_json(
            {
                "expression": str(sigma),
                "coefficients": values,
                "exact": [None if e is None else str(e) for e in coeffs.exact],
                "method": coeffs.method,
                "accuracy": as_float(coeffs.accuracy),
                "errors": [as_float(e) for e in coeffs.errors],
            }
        )
    elif fmt == "latex":
        lines = [rf"\sigma(z) &= {sp.latex(sigma)}"]
        for j, (value, exact) in enumerate(zip(values, coeffs.exact, strict=True)):
            if exact is not None:
                lines.append(rf"\mu_{{{j}}} &= {sp.latex(exact)}")
            else:
                lines.append(rf"\mu_{{{j}}} &\approx {0 if abs(value) <= noise[j] else f'{value:.10g}'}")
        click.echo(f"% mu_j = E[sigma(z) He_j(z)], {CONVENTION}; method: {coeffs.method}")
        click.echo("\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}")
    else:
        method = "exact" if coeffs.method == "exact" else f"{coeffs.method}, accuracy {coeffs.accuracy:.1e}"
        click.echo(f"sigma(z) = {sigma}")
        click.echo(f"mu_j = E[sigma(z) He_j(z)], z ~ N(0,1), {CONVENTION}; method: {method}")
        numeric = coeffs.method != "exact"
        rows = [("j", "mu_j", "exact") + (("error bound",) if numeric else ())]
        for j, (v, e) in enumerate(zip(values, coeffs.exact, strict=True)):
            shown = "~0" if e is None and abs(v) <= noise[j] else f"{v:.10g}"
            error = (f"{float(coeffs.errors[j]):.1e}",) if numeric else ()
            rows.append((str(j), shown, "-" if e is None else str(e)) + error)
        click.echo(table(rows))


@click.command("leap", short_help="Leap index, information exponent, leap complexity.")
@target_options
@output_options
def leap_command(target: str | None, links: str | None, truncation: int | None, as_json: bool, as_latex: bool) -> None:
    """Leap index, information exponent (r = 1 only) and leap complexity of TARGET."""
    fmt = output_format(as_json, as_latex)
    from .._text import table  # the options are read: now the symbolic layer
    from ..symbolic import information_exponent, leap_complexity, leap_index
    from ..symbolic.generative import generative_exponent_result

    f = load_target(target, links)
    with blame("TARGET"), quiet_floating_point():
        text, latex, note = describe_target(f, truncation)
        ell = leap_index(f, truncation)
        k_star = information_exponent(f, truncation)
        leap = leap_complexity(f, truncation)
        gen = generative_exponent_result(f)  # value, method ("exact", "numeric (40 digits)", "refused"), reason
    generative = gen.value
    if fmt == "json":
        emit_json({"leap_index": ell, "information_exponent": k_star, "leap_complexity": leap, "rank": f.rank,
                    "generative_exponent": generative, "generative_exponent_method": gen.method,
                    "generative_exponent_reason": gen.reason})
    elif fmt == "latex":
        parts = [f"f^*(x) = {latex}", rf"\ell = {ell}"]
        if k_star is not None:
            parts.append(f"k^* = {k_star}")
        if generative is not None:
            shown = "" if gen.method == "exact" else rf"\ (\text{{{gen.method}}})"
            parts.append(rf"k^*_{{\mathrm{{gen}}}} = {generative}{shown}")
        parts.append(rf"\mathrm{{Leap}}(f^*) = {leap}")
        click.echo(r", \qquad ".join(parts))
    else:
        rows = [
            ("target", f"f*(z) = {text}   (rank r = {f.rank}{note})"),
            ("leap index", str(ell)),
            (
                "information exponent",
                "none (defined for single-index targets, r = 1)" if k_star is None else str(k_star),
            ),
            ("leap complexity", str(leap)),
            ("generative exponent", f"none ({gen.method}: {gen.reason})" if generative is None
             else f"{generative} ({gen.method}; Damian et al. 2024: a learner that may transform the labels): "
                  f"{gen.reason}"),
        ]
        click.echo(table(rows))
