r"""The ``flt`` command: derive, simulate and check feature-learning laws from a shell.

Commands (``flt COMMAND --help`` for details)::

    flt hermite EXPR [--degree K]                     Hermite coefficients mu_0..mu_K of a 1-D function
    flt leap TARGET                                   leap index, information exponent, leap complexity
    flt staircase TARGET [--steps T]                  learned subspaces U_1..U_T (n = O(d))
    flt limits TARGET --kappa-n A --kappa-p B         learned subspace and the learnable part P_{U,<=kappa} f*
    flt laws TARGET [--activation relu]               every predicted law of the giant-step system
    flt tour                                          the worked examples of Dandi et al. 2023
    flt simulate SYSTEM [OPTIONS]                     simulate a system, measure the observables of its laws
    flt check [PATHS]                                 run claims with their negative controls, write a report
    flt claims [--json | --markdown]                  the catalogue of claims
    flt sweep EXPERIMENT -p NAME=V1,V2                run a registered experiment on a grid (resumable)

``TARGET`` is a function of ``z1 .. zr`` in the restricted grammar of
:mod:`flt_theory.symbolic.parser` (e.g. ``"z1 + He2(z2) + He2(z1)*z2"``); ``--links "z + He2(z); z -
He2(z)"`` gives a separable target :math:`\sum_k \sigma^*_k(z_k)` instead. Hermite convention:
probabilists' :math:`\mathrm{He}_j`, :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = j!\,\delta_{jk}`.

Output is plain text by default; ``--json`` prints exactly one JSON document on stdout (a
contract: keys are only ever added), ``--latex`` prints LaTeX. Exit codes: 0 success, 2 bad input
(one line on stderr, ``flt: error: PARAM: message``), 1 internal error (one line; set
``FLT_DEBUG=1`` for the traceback), 130 interrupted.

>>> from click.testing import CliRunner
>>> print(CliRunner().invoke(cli, ["leap", "z1 + He2(z2)"]).output, end="")
target                f*(z) = z1 + He2(z2)   (rank r = 2)
leap index            1
information exponent  none (defined for single-index targets, r = 1)
leap complexity       2
generative exponent   none (refused: the target has rank 2: the generative exponent is defined for single-index targets (the multi-index analogue is not computed))
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import click
import numpy as np
import sympy as sp

from ._text import (
    as_float as _float,
    basis as _basis,
    json_ready as _json_ready,
    number_text as _number_text,
    subspace_text as _subspace_text,
    table as _table,
)
from .errors import FLTError
from .symbolic import (
    HermiteExpansion,
    Target,
    expand_target,
    format_hermite,
    hermite_coefficients,
    information_exponent,
    laws_latex_document,
    leap_complexity,
    leap_index,
    learned_subspace,
    parse_link,
    project,
    regime_table,
    staircase,
)
from .symbolic.generative import generative_exponent_result
from .symbolic.staircase_sizes import staircase_sizes
from .symbolic.target import MAX_POLYNOMIAL_TERMS, polynomial_degree_bound

__all__ = ["LAZY_COMMANDS", "TOUR_REGIMES", "TOUR_STAIRCASES", "TOUR_TARGET", "cli", "main"]

#: Worked staircase examples (a)-(d) of Dandi et al. 2023 (arXiv 2305.18270): (label, links or None, target text).
TOUR_STAIRCASES: tuple[tuple[str, tuple[str, ...] | None, str | None], ...] = (
    ("(a)", ("z + He2(z)", "z - He2(z)"), None),
    ("(b)", ("z + He2(z)", "z + He2(z)"), None),
    ("(c)", None, "z1 + z1*z2 + z1*z3"),
    ("(d)", None, "z1 + z1*z2 + He3(z1)*z3"),
)
#: The five-direction example of Dandi et al. 2023 and its five (kappa_n, kappa_p) regimes.
TOUR_TARGET = "z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3 + He2(z2)*He2(z3)"
TOUR_REGIMES: tuple[tuple[int, int], ...] = ((1, 0), (1, 1), (2, 0), (2, 1), (2, 2))

_CONVENTION = "probabilists' He_j, E[He_j He_k] = j! delta_jk"


# ----------------------------------------------------------------------------------------------
# errors: one line on stderr, exit 2 for bad input


class _InputError(click.UsageError):
    """Bad input attributed to one parameter; printed as ``flt: error: PARAM: message`` (``param`` None:
    the message already names it, as the errors of the systems' simulate commands do)."""

    def __init__(self, param: str | None, message: str):
        super().__init__(message if param is None else f"{param}: {message}")


@contextlib.contextmanager
def _blame(param: str) -> Iterator[None]:
    """Turn a library :class:`~flt_theory.errors.FLTError` into an input error naming ``param``."""
    try:
        yield
    except FLTError as exc:
        raise _InputError(param, str(exc)) from exc


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


#: Commands imported on first use: name -> (module, attribute, short help as ``flt --help`` lists it). Their imports
#: (the comparator, hence scipy: over a second) are paid only by the commands that run them, not by ``flt --version``
#: or the symbolic commands (tests/test_cli.py checks the stored short help against the command's own).
LAZY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "calibrate": ("flt_theory.report.cli", "calibrate_command",
                  "False rejections, mutation panel and power of each claim's check."),
    "check": ("flt_theory.report.cli", "check_command", "Run the claims with their negative controls; write a report."),
    "sweep": ("flt_theory.report.cli", "sweep_command", "Run a registered experiment on a grid × seeds (resumable)."),
}


class _FLTGroup(click.Group):
    """A group whose failures are one line on stderr, never a traceback (also under CliRunner), with the
    subcommands of :data:`LAZY_COMMANDS` imported when first named."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS and name not in self.commands:
            import importlib

            module, attribute, _ = LAZY_COMMANDS[name]
            self.add_command(getattr(importlib.import_module(module), attribute), name)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands section of ``--help``; a command not loaded yet shows its stored short help."""
        shown: dict[str, click.Command | str] = {}
        for name in self.list_commands(ctx):
            if name in LAZY_COMMANDS and name not in self.commands:
                shown[name] = LAZY_COMMANDS[name][2]
            elif (command := self.get_command(ctx, name)) is not None and not command.hidden:
                shown[name] = command
        if not shown:
            return
        limit = formatter.width - 6 - max(len(name) for name in shown)
        with formatter.section("Commands"):
            formatter.write_dl([(name, entry if isinstance(entry, str) else entry.get_short_help_str(limit))
                                for name, entry in shown.items()])

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
        except click.UsageError as exc:
            hint = "" if isinstance(exc, _InputError) or exc.ctx is None else f" (see '{exc.ctx.command_path} --help')"
            click.echo(f"flt: error: {_one_line(exc.format_message())}{hint}", err=True)
            code = exc.exit_code
        except click.ClickException as exc:
            click.echo(f"flt: error: {_one_line(exc.format_message())}", err=True)
            code = exc.exit_code
        except click.Abort:
            click.echo("flt: interrupted", err=True)
            code = 130
        except FLTError as exc:  # not attributed to a parameter by a command
            click.echo(f"flt: error: {_one_line(str(exc))}", err=True)
            code = 2
        except Exception as exc:  # a bug: still one line, traceback on request
            if os.environ.get("FLT_DEBUG"):
                raise
            click.echo(
                f"flt: internal error: {type(exc).__name__}: {_one_line(str(exc))[:300]} "
                "(set FLT_DEBUG=1 for the traceback and please report it)",
                err=True,
            )
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code


# ----------------------------------------------------------------------------------------------
# parameter types and shared options


class _NonNegativeReal(click.ParamType):
    """A finite real number >= 0 (rejects nan and inf, unlike ``click.FloatRange``)."""

    name = "REAL>=0"

    def convert(self, value: Any, param, ctx) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"expected a finite real number >= 0; got {value!r}", param, ctx)
        if not math.isfinite(number) or number < 0:
            self.fail(f"expected a finite real number >= 0; got {value!r}", param, ctx)
        return number


def _output_options(func: Callable) -> Callable:
    func = click.option("--latex", "as_latex", is_flag=True, help="Print LaTeX instead of text.")(func)
    func = click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")(func)
    return func


def _output_format(as_json: bool, as_latex: bool) -> str:
    if as_json and as_latex:
        raise click.UsageError("--json and --latex are mutually exclusive; give one of them")
    return "json" if as_json else "latex" if as_latex else "text"


def _target_options(func: Callable) -> Callable:
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


def _load_target(target: str | None, links: str | None) -> Target:
    """The :class:`Target` given by ``TARGET`` or by ``--links`` (exactly one of them)."""
    if target is not None and links is not None:
        raise click.UsageError("give either TARGET or --links, not both")
    if links is not None:
        parts = [part.strip() for part in links.split(";")]
        if any(part == "" for part in parts):
            raise _InputError("--links", f"empty link in {links!r}; separate 1-D links in z by ';'")
        with _blame("--links"):
            return Target.from_links(parts, name="sum of links " + "; ".join(parts))
    if target is None:
        raise click.UsageError("missing argument TARGET (or give --links)")
    with _blame("TARGET"):
        return Target.parse(target)


def _guard_size(target: Target) -> None:
    """Refuse polynomials too large to expand before :func:`staircase` tries (it has no guard of
    its own; :func:`~flt_theory.symbolic.hermite_expansion` uses the same bound)."""
    bound = polynomial_degree_bound(target.expr)
    if bound is not None and bound > 8 and math.comb(bound + target.rank, target.rank) > MAX_POLYNOMIAL_TERMS:
        raise _InputError(
            "TARGET",
            f"polynomial of degree up to {bound} in {target.rank} variables is too large to expand exactly "
            f"(more than {MAX_POLYNOMIAL_TERMS} monomials)",
        )


# ----------------------------------------------------------------------------------------------
# formatting


def _hermite_latex(expansion: HermiteExpansion) -> str:
    r"""LaTeX of :math:`\sum_\alpha \hat g(\alpha)\mathrm{He}_\alpha(z)`, with :math:`z_k = \langle x, w^*_k\rangle`.

    >>> from flt_theory.symbolic import hermite_expansion, variable
    >>> z1, z2 = variable(1), variable(2)
    >>> _hermite_latex(hermite_expansion(z1 - 2 * (z1**2 - 1) * z2, [z1, z2]))
    'z_{1} - 2 \\mathrm{He}_{2}(z_{1})\\, z_{2}'
    """
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


def _describe_target(target: Target, truncation: int | None) -> tuple[str, str, str]:
    """``(text, latex, note)`` of a target: the text as given, LaTeX in Hermite form for a polynomial."""
    text = target.name if target.name is not None else str(target.expr)
    if target.is_polynomial:
        return text, _hermite_latex(expand_target(target)), ""
    degree = 8 if truncation is None else truncation
    return text, target.latex(), f"; non-polynomial: results use its Hermite truncation at degree {degree}"


def _emit_json(document: Any) -> None:
    click.echo(json.dumps(document, indent=2, allow_nan=False))


# ----------------------------------------------------------------------------------------------
# commands


@click.group(cls=_FLTGroup, name="flt", invoke_without_command=True)
@click.version_option(package_name="flt-theory", prog_name="flt")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Derive feature-learning-theory laws of two-layer networks (derive, simulate, check).

    TARGET is a function of z1..zr, e.g. "z1 + He2(z2) + He2(z1)*z2" (He_k: probabilists'
    Hermite polynomials, E[He_j He_k] = j! delta_jk). Start with `flt tour`.
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@cli.command("hermite", short_help="Hermite coefficients mu_0..mu_K of a 1-D function.")
@click.argument("expr")
@click.option("--degree", type=click.IntRange(0, 200), default=6, show_default=True, help="Largest j.")
@_output_options
def hermite_command(expr: str, degree: int, as_json: bool, as_latex: bool) -> None:
    """Hermite coefficients mu_j = E[sigma(z) He_j(z)], j = 0..K, of a 1-D function sigma(z).

    EXPR is a function of z ("relu(z)**2", "tanh(z)") or a bare name ("relu"). Exact for
    polynomials and relu/abs/sign pieces, else Gauss-Hermite quadrature with a reported accuracy.
    """
    fmt = _output_format(as_json, as_latex)
    with _blame("EXPR"), np.errstate(all="ignore"):
        sigma = parse_link(expr)
        coeffs = hermite_coefficients(sigma, degree, variable=sp.Symbol("z", real=True))
    values = [_float(v) for v in coeffs.values]
    # a numeric value is shown as ~0 only when it is below its OWN stated error (errors grow with j)
    noise = [max(10 * float(e), 1e-12) for e in coeffs.errors]
    if fmt == "json":
        _emit_json(
            {
                "expression": str(sigma),
                "coefficients": values,
                "exact": [None if e is None else str(e) for e in coeffs.exact],
                "method": coeffs.method,
                "accuracy": _float(coeffs.accuracy),
                "errors": [_float(e) for e in coeffs.errors],
            }
        )
    elif fmt == "latex":
        lines = [rf"\sigma(z) &= {sp.latex(sigma)}"]
        for j, (value, exact) in enumerate(zip(values, coeffs.exact)):
            if exact is not None:
                lines.append(rf"\mu_{{{j}}} &= {sp.latex(exact)}")
            else:
                lines.append(rf"\mu_{{{j}}} &\approx {0 if abs(value) <= noise[j] else f'{value:.10g}'}")
        click.echo(f"% mu_j = E[sigma(z) He_j(z)], {_CONVENTION}; method: {coeffs.method}")
        click.echo("\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}")
    else:
        method = "exact" if coeffs.method == "exact" else f"{coeffs.method}, accuracy {coeffs.accuracy:.1e}"
        click.echo(f"sigma(z) = {sigma}")
        click.echo(f"mu_j = E[sigma(z) He_j(z)], z ~ N(0,1), {_CONVENTION}; method: {method}")
        numeric = coeffs.method != "exact"
        rows = [("j", "mu_j", "exact") + (("error bound",) if numeric else ())]
        for j, (v, e) in enumerate(zip(values, coeffs.exact)):
            shown = "~0" if e is None and abs(v) <= noise[j] else f"{v:.10g}"
            rows.append((str(j), shown, "-" if e is None else str(e)) + ((f"{float(coeffs.errors[j]):.1e}",) if numeric else ()))
        click.echo(_table(rows))


@cli.command("leap", short_help="Leap index, information exponent, leap complexity.")
@_target_options
@_output_options
def leap_command(target: str | None, links: str | None, truncation: int | None, as_json: bool, as_latex: bool) -> None:
    """Leap index, information exponent (r = 1 only) and leap complexity of TARGET."""
    fmt = _output_format(as_json, as_latex)
    f = _load_target(target, links)
    with _blame("TARGET"), np.errstate(all="ignore"):
        text, latex, note = _describe_target(f, truncation)
        ell = leap_index(f, truncation)
        k_star = information_exponent(f, truncation)
        leap = leap_complexity(f, truncation)
        gen = generative_exponent_result(f)  # value, method ("exact", "numeric (40 digits)", "refused"), reason
    generative = gen.value
    if fmt == "json":
        _emit_json({"leap_index": ell, "information_exponent": k_star, "leap_complexity": leap, "rank": f.rank,
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
        click.echo(_table(rows))


@cli.command("staircase", short_help="Subspaces U_1..U_T learned by T giant steps (n = O(d)), with their sizes.")
@_target_options
@click.option("--steps", type=click.IntRange(1, 64), default=3, show_default=True, help="Number of giant steps T.")
@click.option("--d", "dim", type=click.IntRange(2, None), default=None,
              help="Dimension: with --n, also print the predicted mass of each step's new directions.")
@click.option("--n", "samples", type=click.IntRange(1, None), default=None, help="Fresh samples per step (with --d).")
@click.option("--p", "width", type=click.IntRange(2, None), default=64, show_default=True, help="Student width (with --d).")
@click.option("--eta", type=click.FloatRange(min=0, min_open=True), default=None, help="Step size (with --d; default 4p, the staircase regime).")
@click.option("--activation", default="relu", show_default=True, help="Student activation (with --d), a function of z.")
@_output_options
def staircase_command(
    target: str | None, links: str | None, truncation: int | None, steps: int, dim: int | None, samples: int | None,
    width: int, eta: float | None, activation: str, as_json: bool, as_latex: bool
) -> None:
    """Staircase U_1 .. U_T of subspaces learned by T giant steps with n = O(d) (Dandi et al. 2023, arXiv 2305.18270, Conjecture 1).

    Bases are orthonormal, in w*-coordinates (component k along w*_k). With --d and --n, the predicted size of
    each step: the mass of its new directions after that step (population term + finite-sample fluctuation,
    derived from the one-step update; flt_theory.symbolic.staircase_sizes), in units of the random level 1/d,
    and whether it is resolvable ("learned at this size": least new direction >= 15/d).
    """
    fmt = _output_format(as_json, as_latex)
    f = _load_target(target, links)
    _guard_size(f)
    if (dim is None) != (samples is None):
        raise click.UsageError("--d and --n go together: give both to print the sizes, or neither")
    with _blame("TARGET"), np.errstate(all="ignore"):
        text, _, note = _describe_target(f, truncation)
        subspaces = staircase(f, steps, degree=truncation)
    sizes = None
    if dim is not None:
        if dim <= f.rank:
            raise click.BadParameter(f"must exceed the target's rank {f.rank}; got {dim}", param_hint="--d")
        for name, value in (("--d", dim), ("--n", samples), ("--p", width)):  # the sizes are floating point
            if value > 10**15:
                raise _InputError(name, f"expected an integer of at most 1e15; got {value}")
        if eta is not None and not math.isfinite(eta):
            raise _InputError("--eta", f"expected a finite real number > 0; got {eta!r}")
        step_size = eta if eta is not None else 4.0 * width
        try:
            with _blame("--activation"), np.errstate(all="ignore"):
                sizes = staircase_sizes(f, d=dim, n=samples, p=width, eta=step_size, steps=steps,
                                        activation=activation, degree=truncation)
            finite = all(math.isfinite(x) for s in sizes for x in (s.new_mass, s.new_least, s.fluctuation_mass))
        except (OverflowError, FloatingPointError, ZeroDivisionError):
            finite = False
        if not finite:
            raise _InputError("--eta" if eta is not None else "--activation",
                              f"the predicted sizes leave the floating-point range at eta = {step_size:g} with d = {dim}, "
                              f"n = {samples}, p = {width} and the activation {activation[:60]}; take a smaller step size "
                              "or rescale the activation or the target")
    if fmt == "json":
        document = {
            "rank": f.rank,
            "subspaces": [
                {"step": t, "dim": u.dim, "basis": _basis(u), "latex": u.latex()}
                for t, u in enumerate(subspaces, start=1)
            ],
        }
        if sizes is not None:
            document["sizes"] = [s.to_dict() for s in sizes]
        _emit_json(document)
    elif fmt == "latex":
        lines = [rf"U_{{{t}}} &= {u.latex()}" for t, u in enumerate(subspaces, start=1)]
        click.echo("\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}")
    else:
        click.echo(f"target f*(z) = {text}   (rank r = {f.rank}{note})")
        click.echo("staircase U_t after t giant steps, n = O(d); orthonormal bases in w*-coordinates")
        rows = [("t", "dim", "U_t", "basis")]
        for t, u in enumerate(subspaces, start=1):
            basis = ", ".join("[" + ", ".join(f"{x:.4g}" for x in row) + "]" for row in _basis(u)) or "-"
            rows.append((str(t), str(u.dim), _subspace_text(u), basis))
        click.echo(_table(rows))
        if sizes is not None:
            step_size = eta if eta is not None else 4.0 * width
            click.echo(f"\npredicted mass of each step's new directions after that step, d = {dim}, n = {samples}, "
                       f"p = {width}, eta = {step_size:g}, {activation} student (units of the random level 1/d; "
                       f"mean-field prediction, derivation in flt_theory.symbolic.staircase_sizes)")
            rows = [("t", "new dims", "new mass", "least new direction", "fluctuation only", "learned at this size")]
            for s in sizes:
                rows.append((str(s.step), str(s.new_dim), f"{s.new_mass * dim:.3g}", f"{s.ratio:.3g}",
                             f"{s.fluctuation_mass * dim:.3g}",
                             "- (nothing new)" if not s.new_dim else ("yes" if s.resolvable else "no (< 15x random)")))
            click.echo(_table(rows))


@cli.command("limits", short_help="Learned subspace and learnable part P_{U,<=kappa} f*.")
@_target_options
@click.option("--kappa-n", "kappa_n", type=_NonNegativeReal(), required=True, help="Sample exponent: n ~ d^kappa_n.")
@click.option("--kappa-p", "kappa_p", type=_NonNegativeReal(), required=True, help="Width exponent: p ~ d^kappa_p.")
@click.option(
    "--steps",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="T = 1: one giant step at kappa_n; T > 1: staircase U_T (needs --kappa-n 1).",
)
@_output_options
def limits_command(
    target: str | None,
    links: str | None,
    truncation: int | None,
    kappa_n: float,
    kappa_p: float,
    steps: int,
    as_json: bool,
    as_latex: bool,
) -> None:
    """Learned subspace U and learnable part P_{U,<=kappa} f*, kappa = min(kappa_n, kappa_p).

    The residual ||P_{U,>kappa} f*||^2 is the conjectured limiting error (Dandi et al. 2023, Conjecture 3).
    """
    fmt = _output_format(as_json, as_latex)
    if steps > 1 and kappa_n != 1:
        raise _InputError(
            "--kappa-n",
            f"--steps {steps} is the staircase regime n = O(d), which needs --kappa-n 1; got {_number_text(kappa_n)}",
        )
    f = _load_target(target, links)
    _guard_size(f)
    if steps == 1:
        from .symbolic.one_step import check_kappa

        with _blame("--kappa-n"):
            check_kappa(kappa_n, "kappa_n")
    with _blame("TARGET"), np.errstate(all="ignore"):
        text, _, note = _describe_target(f, truncation)
        subspace = learned_subspace(f, kappa_n, steps, degree=truncation)
        kappa = min(kappa_n, kappa_p)
        result = project(f, subspace, kappa, truncation)
    fitted = format_hermite(result.fitted_expansion)
    if fmt == "json":
        _emit_json(
            {
                "kappa_n": kappa_n,
                "kappa_p": kappa_p,
                "steps": steps,
                "rank": f.rank,
                "learned_dim": subspace.dim,
                "learned_basis": _basis(subspace),
                "learned_latex": subspace.latex(),
                "kappa": kappa,
                "fitted": fitted,
                "residual_norm2": _float(result.residual_norm2),
                "norm2": _float(result.norm2),
            }
        )
    elif fmt == "latex":
        lines = [
            rf"U &= {subspace.latex()}, \qquad \kappa = \min(\kappa_n, \kappa_p) = {_number_text(kappa)}",
            rf"P_{{U,\le\kappa}} f^* &= {_hermite_latex(result.fitted_expansion)}",
            (
                rf"\|P_{{U,>\kappa}} f^*\|_\gamma^2 &= {sp.latex(result.residual_norm2)}, \qquad "
                rf"\|f^*\|_\gamma^2 = {sp.latex(result.norm2)}"
            ),
        ]
        click.echo("\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}")
    else:
        rule = "one giant step" if steps == 1 else f"{steps} giant steps (staircase U_{steps})"
        rows = [
            ("target", f"f*(z) = {text}   (rank r = {f.rank}{note})"),
            ("regime", f"n ~ d^{_number_text(kappa_n)}, p ~ d^{_number_text(kappa_p)}, {rule}"),
            ("kappa", f"min(kappa_n, kappa_p) = {_number_text(kappa)}"),
            ("learned U", f"{_subspace_text(subspace)}   (dim {subspace.dim})"),
            ("fitted", f"P_{{U,<=kappa}} f* = {fitted}"),
            ("residual", f"||P_{{U,>kappa}} f*||^2 = {result.residual_norm2}   (of ||f*||^2 = {result.norm2})"),
        ]
        click.echo(_table(rows))


@cli.command("laws", short_help="Every predicted law of the giant-step system.")
@_target_options
@click.option("--activation", default="relu", show_default=True, help="Student activation, a 1-D function of z.")
@_output_options
def laws_command(
    target: str | None, links: str | None, truncation: int | None, activation: str, as_json: bool, as_latex: bool
) -> None:
    """Every predicted law of the giant-step system (Dandi et al. 2023, arXiv 2305.18270) for TARGET and a student activation."""
    fmt = _output_format(as_json, as_latex)
    f = _load_target(target, links)
    with _blame("--activation"):
        parse_link(activation)
    with _blame("TARGET"), np.errstate(all="ignore"):
        from .systems.giant_step.laws import giant_step_laws

        laws = giant_step_laws(f, activation, truncation)
    if fmt == "json":
        _emit_json([law.to_dict() for law in laws])
    elif fmt == "latex":
        click.echo(laws_latex_document(f, laws), nl=False)
    else:
        with np.errstate(all="ignore"):
            text, _, note = _describe_target(f, truncation)
        click.echo(f"giant-step laws for f*(z) = {text}   (rank r = {f.rank}{note}), student activation {activation}")
        click.echo(_table([("law", "status", "latex")] + [(law.name, law.status, law.latex()) for law in laws]))


@cli.command("tour", short_help="Worked examples of Dandi et al. 2023 (start here).")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
def tour_command(as_json: bool) -> None:
    """The worked examples of Dandi et al. 2023 (arXiv 2305.18270): staircases (a)-(d) and the five-regime table."""
    examples = []
    for label, links, text in TOUR_STAIRCASES:
        if links is not None:
            f = Target.from_links(list(links))
            text = " + ".join(re.sub(r"\bz\b", f"z{k}", link) for k, link in enumerate(links, start=1))
        else:
            f = Target.parse(text)
        examples.append((label, text, f, staircase(f, 3)))
    five = Target.parse(TOUR_TARGET)
    rows = regime_table(five, TOUR_REGIMES)
    # what the simulations establish where the conjecture's literal U_t does not hold (giant-step claims)
    caveats = {"(d)": ("simulated (a_i = +-1), step 2 adds ONE direction of span{w2, w3}, not the plane:\n"
                       "        U_1 = span{w1} < U_2 <= span{w1, w2, w3} "
                       "(finding giant-step/staircase-d-one-new-direction)")}
    if as_json:
        _emit_json(
            {
                "staircases": [
                    {
                        "example": label,
                        "target": text,
                        "subspaces": [{"step": t, "dim": u.dim, "basis": _basis(u)} for t, u in enumerate(us, start=1)],
                        **({"caveat": caveats[label]} if label in caveats else {}),
                    }
                    for label, text, _, us in examples
                ],
                "regimes": {
                    "target": TOUR_TARGET,
                    "norm2": _float(rows[0].projection.norm2),
                    "rows": [
                        {
                            "kappa_n": row.kappa_n,
                            "kappa_p": row.kappa_p,
                            "kappa": row.kappa,
                            "learned_dim": row.subspace.dim,
                            "learned_basis": _basis(row.subspace),
                            "fitted": format_hermite(row.projection.fitted_expansion),
                            "residual_norm2": _float(row.projection.residual_norm2),
                        }
                        for row in rows
                    ],
                },
            }
        )
        return
    click.echo("flt tour: the symbolic predictions of Dandi, Krzakala, Loureiro, Pesce, Stephan 2023 (arXiv 2305.18270)")
    click.echo(f"Hermite convention: {_CONVENTION}; w1..wr are the teacher directions w*_k.")
    click.echo("")
    click.echo("1. Staircase U_t learned by t giant steps with n = O(d) (Conjecture 1)")
    table = [("", "target f*(z)", "U_1", "U_2", "U_3")]
    for label, text, _, us in examples:
        table.append((label + ("*" if label in caveats else ""), text, *(_subspace_text(u) for u in us)))
    click.echo(_table(table, indent="   "))
    for label, caveat in caveats.items():
        click.echo(f"   {label}* U_t above is Conjecture 1's literal statement; {caveat}")
    click.echo("")
    click.echo("2. One giant step, n ~ d^kappa_n, p ~ d^kappa_p: learned subspace U, fitted P_{U,<=kappa} f*,")
    click.echo("   residual ||P_{U,>kappa} f*||^2 with kappa = min(kappa_n, kappa_p) (Conjecture 3)")
    click.echo(f"   f*(z) = {TOUR_TARGET},  ||f*||^2 = {rows[0].projection.norm2}")
    table = [("kappa_n", "kappa_p", "U", "fitted P_{U,<=kappa} f*", "residual")]
    for row in rows:
        table.append(
            (
                _number_text(row.kappa_n),
                _number_text(row.kappa_p),
                _subspace_text(row.subspace),
                format_hermite(row.projection.fitted_expansion),
                str(row.projection.residual_norm2),
            )
        )
    click.echo(_table(table, indent="   "))
    click.echo("")
    click.echo(
        "Next: flt leap TARGET, flt staircase TARGET, flt limits TARGET --kappa-n 2 --kappa-p 1, flt laws TARGET"
    )


# ----------------------------------------------------------------------------------------------
# flt simulate SYSTEM: one subcommand per discovered system, generated from its declaration (torch
# and the systems are imported only when a subcommand or its help is asked for)


class _NumberList(click.ParamType):
    """Comma-separated numbers (``32,64,128`` / ``0.5,1,1.5``) within optional bounds."""

    def __init__(self, kind: type, minimum: float | None, maximum: float | None):
        self.kind, self.minimum, self.maximum = kind, minimum, maximum
        self.name = "N[,N...]" if kind is int else "X[,X...]"

    def convert(self, value: Any, param, ctx) -> tuple:
        if isinstance(value, tuple):
            return value
        try:
            numbers = tuple(self.kind(part.strip()) for part in str(value).split(","))
        except ValueError:
            self.fail(f"expected comma-separated {'integers' if self.kind is int else 'real numbers'}, e.g. "
                      f"{'32,64' if self.kind is int else '0.5,1.5'}; got {value!r}", param, ctx)
        for number in numbers:
            if not math.isfinite(number) or (self.minimum is not None and number < self.minimum) or (
                    self.maximum is not None and number > self.maximum):
                self.fail(f"expected finite values{_range_text(self.minimum, self.maximum)}; got {value!r}", param, ctx)
        return numbers


class _Bounded(click.ParamType):
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
                      f"{_range_text(self.minimum, self.maximum)}; got {value!r}", param, ctx)
        return number


def _range_text(minimum: float | None, maximum: float | None) -> str:
    """`` in [a, b]``, `` >= a``, `` <= b`` or nothing."""
    if minimum is not None and maximum is not None:
        return f" in [{_number_text(minimum)}, {_number_text(maximum)}]"
    if minimum is not None:
        return f" >= {_number_text(minimum)}"
    return "" if maximum is None else f" <= {_number_text(maximum)}"


class _StepSize(click.ParamType):
    """``theory`` or a finite real number > 0."""

    name = "ETA|theory"

    def convert(self, value: Any, param, ctx) -> float | str:
        if value == "theory" or isinstance(value, float):
            return value
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number) or number <= 0:
            self.fail(f"expected a finite real number > 0 or 'theory'; got {value!r}", param, ctx)
        return number


#: The largest value of an integer option of ``flt simulate`` without a declared maximum (a 64-bit integer).
_MAX_INT = 2**63 - 1


def _overflow_error(ctx: click.Context, exc: Exception) -> _InputError:
    """An overflow (or an underflow to a zero divisor) inside a simulation as bad input: it names the options given
    on the command line, the most extreme value first (a value far from 1 in either direction is what overflows)."""
    given = []
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if ctx.get_parameter_source(param.name) != click.core.ParameterSource.COMMANDLINE or isinstance(value, (bool, str)):
            continue
        numbers = [abs(float(v)) for v in (value if isinstance(value, tuple) else (value,)) if isinstance(v, (int, float))]
        extreme = max((abs(math.log10(v)) if v > 0 else 0.0 for v in numbers), default=0.0)
        given.append((extreme, param.opts[0] if param.opts else param.name))
    names = ", ".join(name for _, name in sorted(given, reverse=True)) or "the options"
    return _InputError(names.split(", ")[0] if given else None,
                       f"the simulation overflowed with the values given ({names}): {_one_line(str(exc))[:200]}; "
                       "use values of a moderate size")


def _click_parameter(option) -> click.Parameter:
    """The click argument or option of a declared :class:`~flt_theory.systems.declaration.Option`."""
    int_maximum = _MAX_INT if option.maximum is None else option.maximum  # a count or size is a 64-bit integer
    types = {
        "int": _Bounded(int, option.minimum, int_maximum), "float": _Bounded(float, option.minimum, option.maximum),
        "ints": _NumberList(int, option.minimum, int_maximum), "floats": _NumberList(float, option.minimum, option.maximum),
        "eta": _StepSize(), "str": click.STRING, "choice": click.Choice(list(option.choices)),
    }
    if option.argument:
        return click.Argument([option.dest], required=option.required)
    flag = "--" + option.name
    if option.kind == "flag":
        return click.Option([flag, option.dest], is_flag=True, help=option.help)
    extra = {} if option.default is None else {"default": option.default, "show_default": True}  # click: None is a value
    return click.Option([flag, option.dest], type=types[option.kind], required=option.required, help=option.help, **extra)


def _simulate_command(system) -> click.Command:
    spec = system.simulate

    def callback(as_json: bool, **options: Any) -> None:
        try:
            spec.check_cost(options)  # the declared cost, before anything runs
            with warnings.catch_warnings(), np.errstate(all="ignore"):  # no warning lines before the result or error
                warnings.simplefilter("ignore", RuntimeWarning)
                document = spec.run(**options)
        except FLTError as exc:
            raise _InputError(None, str(exc)) from exc
        except (OverflowError, FloatingPointError, ZeroDivisionError) as exc:  # a value too large or too small
            raise _overflow_error(click.get_current_context(), exc) from exc
        except RuntimeError as exc:  # torch: "value cannot be converted to type float without overflow"
            if "overflow" not in str(exc):
                raise
            raise _overflow_error(click.get_current_context(), exc) from exc
        if as_json:
            _emit_json(_json_ready({k: v for k, v in document.items() if not k.startswith("_")}))
        else:
            click.echo(spec.table(document) if spec.table else _records_table(document["records"]))

    params = [_click_parameter(o) for o in spec.options]
    params.append(click.Option(["--json", "as_json"], is_flag=True, help="Print exactly one JSON document on stdout."))
    return click.Command(system.name, callback=callback, params=params, help=spec.help,
                         short_help=system.title, epilog=_fields_epilog(spec.fields))


def _fields_epilog(fields: Sequence) -> str | None:
    """The ``--help`` paragraph listing the JSON record fields of ``flt simulate SYSTEM`` (kept unwrapped)."""
    if not fields:
        return None
    width = max(len(f.name) for f in fields)
    lines = [f"  {f.name.ljust(width)}  {f.meaning} [{f.unit}]" for f in fields]
    return "\b\nJSON record fields (--json: one record per row of the table):\n" + "\n".join(lines)


def _records_table(records: Sequence[dict]) -> str:
    """Records as an aligned text table (one column per key, lists shortened)."""
    if not records:
        return "(no records)"
    keys = list(dict.fromkeys(k for r in records for k in r))

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, float):
            return f"{value:.4g}"
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(cell(v) for v in value[:4]) + (", ...]" if len(value) > 4 else "]")
        return str(value)

    return _table([keys] + [[cell(r.get(k)) for k in keys] for r in records])


class _SimulateGroup(_FLTGroup):
    """``flt simulate``: a subcommand per discovered system that declares one."""

    def _systems(self) -> dict:
        from .systems import discover

        return {name: s for name, s in discover().items() if s.simulate is not None}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._systems())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        system = self._systems().get(name)
        return None if system is None else _simulate_command(system)


@cli.group("simulate", cls=_SimulateGroup, invoke_without_command=True,
           short_help="Simulate a system and measure the observables of its laws.")
@click.pass_context
def simulate_group(ctx: click.Context) -> None:
    """Simulate a system (torch) and measure the observables of its laws: one subcommand per system,
    generated from its declaration. --json prints {"system", "records", ...}."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@cli.command("verify", short_help="Derive a target's giant-step predictions and check them by simulation.")
@click.argument("target")
@click.option("--activation", default="relu", show_default=True, help="Student activation, a 1-D function of z.")
@click.option("--steps", type=click.IntRange(1, 4), default=2, show_default=True, help="Staircase steps T.")
@click.option("--scale", type=click.Choice(["small", "paper"]), default="small", show_default=True)
@click.option("--budget", type=_Bounded(float, 1, 86400), default=120.0, show_default=True, metavar="SECONDS",
              help="Time budget; predictions whose sizes would exceed it are 'inconclusive' with the budget they need.")
@click.option("--seeds", type=click.IntRange(2, 256), default=None, metavar="S",
              help="Seeds per measurement (default: the scale's); an inconclusive prediction says how many would decide it.")
@click.option("--latex", "latex_file", type=click.Path(dir_okay=False, writable=True), default=None, metavar="FILE",
              help="Also write the verdicts as a booktabs table to FILE: it compiles alone (pdflatex FILE) and can be "
                   "\\input into a paper whose preamble loads amsmath, amssymb, booktabs and longtable.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
@click.pass_context
def verify_command(ctx: click.Context, target: str, activation: str, steps: int, scale: str, budget: float,
                   seeds: int | None, latex_file: str | None, as_json: bool) -> None:
    """Derive every giant-step prediction for TARGET (one-step threshold kappa* = leap index, or no learning
    when the student coefficient vanishes; the one-step subspace; the staircase U_1..U_T), simulate at sizes
    chosen from the theory, and compare each prediction AND a deliberately wrong law on the same measurement.
    Verdicts: pass (law passes, wrong law rejected), fail, inconclusive (with the reason and the size that
    would resolve it). Exit 0 when every prediction passes, 1 otherwise, 2 on bad input."""
    from .systems.giant_step.verify import verify

    try:
        if latex_file is not None:
            from .report.check import check_latex_path

            check_latex_path(latex_file)  # before anything runs
        document = verify(target, activation=activation, steps=steps, scale=scale, budget=budget, seeds=seeds)
    except FLTError as exc:
        message = str(exc)
        raise _InputError(None if message.startswith(("TARGET", "--")) else "TARGET", message) from exc
    if latex_file is not None:
        from ._display import latex_document
        from .systems.giant_step.verify import verify_latex_table

        with open(latex_file, "w", encoding="utf-8") as handle:
            handle.write(latex_document(verify_latex_table(document)))
    if as_json:
        _emit_json(_json_ready(document))
    else:
        from .systems.giant_step.verify import verify_text

        click.echo(verify_text(document))
    ctx.exit(0 if document["passed"] else 1)


@cli.command("claims", short_help="The catalogue of claims: laws, status, sources, negative controls.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print the catalogue as Markdown (CLAIMS.md).")
def claims_command(as_json: bool, as_markdown: bool) -> None:
    """Every claim of every system, from the registry: key, law (words and LaTeX), status, source,
    regime of validity and the wrong law of its negative control."""
    from .report.catalogue import catalogue, catalogue_markdown

    if as_json and as_markdown:
        raise click.UsageError("--json and --markdown are mutually exclusive; give one of them")
    if as_markdown:
        click.echo(catalogue_markdown(), nl=False)
        return
    entries = catalogue()
    if as_json:
        _emit_json(entries)
        return
    click.echo(_table([("claim", "status", "law (in words)")]
                     + [(e["key"], e["status"], e["words"]) for e in entries]))




def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``flt`` console script; returns the exit code when ``argv`` is given."""
    if argv is None:
        return cli.main(prog_name="flt")
    return cli.main(list(argv), prog_name="flt", standalone_mode=False)


if __name__ == "__main__":
    main()
