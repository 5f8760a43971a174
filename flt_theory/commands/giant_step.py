r"""The giant-step system's own ``flt`` commands: ``staircase``, ``limits``, ``laws``, ``tour``.

Dandi, Krzakala, Loureiro, Pesce, Stephan 2023 (arXiv 2305.18270): the staircase :math:`U_1 \subseteq \dots \subseteq
U_T` learned by :math:`T` giant steps with :math:`n = O(d)` (Conjecture 1), the learned subspace and learnable part
:math:`P_{U,\le\kappa} f^*` at :math:`n \sim d^{\kappa_n}, p \sim d^{\kappa_p}` (Conjecture 3), every predicted law
of the system and the paper's worked examples (its end-to-end check, ``flt verify TARGET``, is the generic ``flt
verify`` of :mod:`flt_theory.commands.verify`, which also checks any system's law). Hermite convention: probabilists'
:math:`\mathrm{He}_j`, :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = j!\,\delta_{jk}`.

How ``flt`` finds them: the system declares them in its ``commands.py``
(:data:`flt_theory.systems.giant_step.commands.COMMANDS`, a literal table of command name -> attribute of this
module and short help, read by :func:`flt_theory.cli.system_commands` without importing anything), so ``flt --help``
lists them without importing sympy or torch, and ``flt staircase ...`` imports this module on first use. The click
code lives here, above the systems; the system's module imports nothing of it. The options of ``staircase``,
``limits`` and ``laws`` are read into one request each (:class:`StaircaseRequest`, :class:`LimitsRequest`,
:class:`LawsRequest`).

>>> from click.testing import CliRunner
>>> print(CliRunner().invoke(staircase_command, ["z1 + z1*z2", "--json"]).output, end="")  # doctest: +ELLIPSIS
{
  "rank": 2,
  "subspaces": [
    {
      "step": 1,
      "dim": 1,
...
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING, Any

import click

from .base import (
    CONVENTION,
    InputError,
    blame,
    describe_target,
    emit_json,
    hermite_latex,
    load_target,
    number_text,
    output_format,
    output_options,
    target_options,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..symbolic import Subspace, Target

__all__ = [
    "LawsRequest",
    "LimitsRequest",
    "StaircaseRequest",
    "laws_command",
    "limits_command",
    "staircase_command",
    "tour_command",
]


@dataclasses.dataclass(frozen=True)
class StaircaseRequest:
    """The options of ``flt staircase`` (their help: ``flt staircase --help``)."""

    target: str | None
    links: str | None
    truncation: int | None
    steps: int
    dim: int | None
    samples: int | None
    width: int
    eta: float | None
    activation: str
    as_json: bool
    as_latex: bool


@dataclasses.dataclass(frozen=True)
class LimitsRequest:
    """The options of ``flt limits`` (their help: ``flt limits --help``)."""

    target: str | None
    links: str | None
    truncation: int | None
    kappa_n: float
    kappa_p: float
    steps: int
    as_json: bool
    as_latex: bool


@dataclasses.dataclass(frozen=True)
class LawsRequest:
    """The options of ``flt laws`` (their help: ``flt laws --help``)."""

    target: str | None
    links: str | None
    truncation: int | None
    activation: str
    digits: int
    expanded: bool
    as_json: bool
    as_latex: bool


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


def _guard_size(target: Target) -> None:
    """Refuse polynomials too large to expand before :func:`staircase` tries (it has no guard of
    its own; :func:`~flt_theory.symbolic.hermite_expansion` uses the same bound)."""
    from ..symbolic.target import MAX_POLYNOMIAL_TERMS, polynomial_degree_bound

    bound = polynomial_degree_bound(target.expr)
    if bound is not None and bound > 8 and math.comb(bound + target.rank, target.rank) > MAX_POLYNOMIAL_TERMS:
        raise InputError(
            "TARGET",
            f"polynomial of degree up to {bound} in {target.rank} variables is too large to expand exactly "
            f"(more than {MAX_POLYNOMIAL_TERMS} monomials)",
        )


@click.command("staircase", short_help="Subspaces U_1..U_T learned by T giant steps (n = O(d)), with their sizes.")
@target_options
@click.option("--steps", type=click.IntRange(1, 64), default=3, show_default=True, help="Number of giant steps T.")
@click.option("--d", "dim", type=click.IntRange(2, None), default=None,
              help="Dimension: with --n, also print the predicted mass of each step's new directions.")
@click.option("--n", "samples", type=click.IntRange(1, None), default=None, help="Fresh samples per step (with --d).")
@click.option("--p", "width", type=click.IntRange(2, None), default=64, show_default=True,
              help="Student width (with --d).")
@click.option("--eta", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Step size (with --d; default 4p, the staircase regime).")
@click.option("--activation", default="relu", show_default=True, help="Student activation (with --d), a function of z.")
@output_options
def staircase_command(**options: Any) -> None:
    """Staircase U_1 .. U_T of subspaces learned by T giant steps with n = O(d) (Dandi et al. 2023, arXiv
    2305.18270, Conjecture 1).

    Bases are orthonormal, in w*-coordinates (component k along w*_k). With --d and --n, the predicted size of
    each step: the mass of its new directions after that step (population term + finite-sample fluctuation,
    derived from the one-step update; flt_theory.symbolic.staircase_sizes), in units of the random level 1/d,
    and whether it is resolvable ("learned at this size": least new direction >= 15/d).
    """
    _staircase(StaircaseRequest(**options))


def _staircase(request: StaircaseRequest) -> None:
    """``flt staircase`` with its options read into ``request``."""
    target, links, truncation, steps = request.target, request.links, request.truncation, request.steps
    dim, samples, width, eta = request.dim, request.samples, request.width, request.eta
    activation, as_json, as_latex = request.activation, request.as_json, request.as_latex
    fmt = output_format(as_json, as_latex)
    if (dim is None) != (samples is None):
        raise click.UsageError("--d and --n go together: give both to print the sizes, or neither")
    import numpy as np  # the options are read: now the symbolic layer

    from .._text import basis, subspace_text, table
    from ..symbolic import staircase
    from ..symbolic.staircase_sizes import staircase_sizes

    f = load_target(target, links)
    _guard_size(f)
    with blame("TARGET"), np.errstate(all="ignore"):
        text, _, note = describe_target(f, truncation)
        subspaces = staircase(f, steps, degree=truncation)
    sizes = None
    if dim is not None:
        assert samples is not None  # --d and --n go together (above)
        if dim <= f.rank:
            raise click.BadParameter(f"must exceed the target's rank {f.rank}; got {dim}", param_hint="--d")
        for name, value in (("--d", dim), ("--n", samples), ("--p", width)):  # the sizes are floating point
            if value > 10**15:
                raise InputError(name, f"expected an integer of at most 1e15; got {value}")
        if eta is not None and not math.isfinite(eta):
            raise InputError("--eta", f"expected a finite real number > 0; got {eta!r}")
        step_size = eta if eta is not None else 4.0 * width
        try:
            with blame("--activation"), np.errstate(all="ignore"):
                sizes = staircase_sizes(f, d=dim, n=samples, p=width, eta=step_size, steps=steps,
                                        activation=activation, degree=truncation)
            finite = all(math.isfinite(x) for s in sizes for x in (s.new_mass, s.new_least, s.fluctuation_mass))
        except (OverflowError, FloatingPointError, ZeroDivisionError):
            finite = False
        if not finite:
            raise InputError("--eta" if eta is not None else "--activation",
                             f"the predicted sizes leave the floating-point range at eta = {step_size:g} with "
                             f"d = {dim}, n = {samples}, p = {width} and the activation {activation[:60]}; take a "
                             "smaller step size or rescale the activation or the target")
    if fmt == "json":
        document = {
            "rank": f.rank,
            "subspaces": [
                {"step": t, "dim": u.dim, "basis": basis(u), "latex": u.latex()}
                for t, u in enumerate(subspaces, start=1)
            ],
        }
        if sizes is not None:
            document["sizes"] = [s.to_dict() for s in sizes]
        emit_json(document)
    elif fmt == "latex":
        lines = [rf"U_{{{t}}} &= {u.latex()}" for t, u in enumerate(subspaces, start=1)]
        click.echo("\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}")
    else:
        click.echo(f"target f*(z) = {text}   (rank r = {f.rank}{note})")
        click.echo("staircase U_t after t giant steps, n = O(d); orthonormal bases in w*-coordinates")
        rows: list[tuple[str, ...]] = [("t", "dim", "U_t", "basis")]
        for t, u in enumerate(subspaces, start=1):
            shown = ", ".join("[" + ", ".join(f"{x:.4g}" for x in row) + "]" for row in basis(u)) or "-"
            rows.append((str(t), str(u.dim), subspace_text(u), shown))
        click.echo(table(rows))
        if sizes is not None:
            assert dim is not None  # the sizes are computed with --d
            step_size = eta if eta is not None else 4.0 * width
            click.echo(f"\npredicted mass of each step's new directions after that step, d = {dim}, n = {samples}, "
                       f"p = {width}, eta = {step_size:g}, {activation} student (units of the random level 1/d; "
                       f"mean-field prediction, derivation in flt_theory.symbolic.staircase_sizes)")
            rows = [("t", "new dims", "new mass", "least new direction", "fluctuation only", "learned at this size")]
            for s in sizes:
                rows.append((str(s.step), str(s.new_dim), f"{s.new_mass * dim:.3g}", f"{s.ratio:.3g}",
                             f"{s.fluctuation_mass * dim:.3g}",
                             "- (nothing new)" if not s.new_dim else ("yes" if s.resolvable else "no (< 15x random)")))
            click.echo(table(rows))


@click.command("limits", short_help="Learned subspace and learnable part P_{U,<=kappa} f*.")
@target_options
@click.option("--kappa-n", "kappa_n", type=_NonNegativeReal(), required=True, help="Sample exponent: n ~ d^kappa_n.")
@click.option("--kappa-p", "kappa_p", type=_NonNegativeReal(), required=True, help="Width exponent: p ~ d^kappa_p.")
@click.option(
    "--steps",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="T = 1: one giant step at kappa_n; T > 1: staircase U_T (needs --kappa-n 1).",
)
@output_options
def limits_command(**options: Any) -> None:
    """Learned subspace U and learnable part P_{U,<=kappa} f*, kappa = min(kappa_n, kappa_p).

    The residual ||P_{U,>kappa} f*||^2 is the conjectured limiting error (Dandi et al. 2023, Conjecture 3).
    """
    _limits(LimitsRequest(**options))


def _limits(request: LimitsRequest) -> None:
    """``flt limits`` with its options read into ``request``."""
    target, links, truncation, kappa_n = request.target, request.links, request.truncation, request.kappa_n
    kappa_p, steps, as_json, as_latex = request.kappa_p, request.steps, request.as_json, request.as_latex
    fmt = output_format(as_json, as_latex)
    if steps > 1 and kappa_n != 1:
        raise InputError(
            "--kappa-n",
            f"--steps {steps} is the staircase regime n = O(d), which needs --kappa-n 1; got {number_text(kappa_n)}",
        )
    import numpy as np  # the options are read: now the symbolic layer
    import sympy as sp

    from .._text import as_float, basis, subspace_text, table
    from ..symbolic import format_hermite, learned_subspace, project
    from ..symbolic.one_step import check_kappa

    f = load_target(target, links)
    _guard_size(f)
    if steps == 1:
        with blame("--kappa-n"):
            check_kappa(kappa_n, "kappa_n")
    with blame("TARGET"), np.errstate(all="ignore"):
        text, _, note = describe_target(f, truncation)
        subspace = learned_subspace(f, kappa_n, steps, degree=truncation)
        kappa = min(kappa_n, kappa_p)
        result = project(f, subspace, kappa, truncation)
    fitted = format_hermite(result.fitted_expansion)
    if fmt == "json":
        emit_json(
            {
                "kappa_n": kappa_n,
                "kappa_p": kappa_p,
                "steps": steps,
                "rank": f.rank,
                "learned_dim": subspace.dim,
                "learned_basis": basis(subspace),
                "learned_latex": subspace.latex(),
                "kappa": kappa,
                "fitted": fitted,
                "residual_norm2": as_float(result.residual_norm2),
                "norm2": as_float(result.norm2),
            }
        )
    elif fmt == "latex":
        lines = [
            rf"U &= {subspace.latex()}, \qquad \kappa = \min(\kappa_n, \kappa_p) = {number_text(kappa)}",
            rf"P_{{U,\le\kappa}} f^* &= {hermite_latex(result.fitted_expansion)}",
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
            ("regime", f"n ~ d^{number_text(kappa_n)}, p ~ d^{number_text(kappa_p)}, {rule}"),
            ("kappa", f"min(kappa_n, kappa_p) = {number_text(kappa)}"),
            ("learned U", f"{subspace_text(subspace)}   (dim {subspace.dim})"),
            ("fitted", f"P_{{U,<=kappa}} f* = {fitted}"),
            ("residual", f"||P_{{U,>kappa}} f*||^2 = {result.residual_norm2}   (of ||f*||^2 = {result.norm2})"),
        ]
        click.echo(table(rows))


@click.command("laws", short_help="Every predicted law of the giant-step system.")
@target_options
@click.option("--activation", default="relu", show_default=True, help="Student activation, a 1-D function of z.")
@click.option("--digits", type=click.IntRange(1, 15), default=4, show_default=True,
              help="Significant digits of the numbers computed numerically (a quadrature); exact numbers stay exact.")
@click.option("--expanded", is_flag=True, help="With --latex: the target as an expanded polynomial, not with the "
                                                "He_k(...) it was written with.")
@output_options
def laws_command(**options: Any) -> None:
    """Every predicted law of the giant-step system (Dandi et al. 2023, arXiv 2305.18270) for TARGET and a student
    activation.

    Numbers are exact (rationals, roots, pi) where derived exactly; a decimal number is a numerical value (a
    Gauss-Hermite quadrature of a non-polynomial activation or link) to --digits significant digits, in the text and
    the LaTeX (--json keeps the constants at full precision). --latex writes the target as it was written, He_k kept.
    """
    _laws(LawsRequest(**options))


def _laws(request: LawsRequest) -> None:
    """``flt laws`` with its options read into ``request``."""
    target, links, truncation, activation = request.target, request.links, request.truncation, request.activation
    as_json, as_latex = request.as_json, request.as_latex
    fmt = output_format(as_json, as_latex)
    import numpy as np  # the options are read: now the symbolic layer

    from .._text import table
    from ..symbolic import laws_latex_document, parse_link
    from ..symbolic.law import precision_note, significant_digits
    from ..systems.giant_step.laws import giant_step_laws

    if request.expanded and fmt != "latex":
        raise InputError("--expanded", "applies to --latex only (the text and --json show the target as written)")
    f = load_target(target, links)
    with blame("--activation"):
        parse_link(activation)
    with significant_digits(request.digits):  # the laws' LaTeX is rendered as they are built, and printed here
        with blame("TARGET"), np.errstate(all="ignore"):
            laws = giant_step_laws(f, activation, truncation)
        if fmt == "json":
            emit_json([law.to_dict() for law in laws])
        elif fmt == "latex":
            click.echo(laws_latex_document(f, laws, expanded=request.expanded), nl=False)
        else:
            with np.errstate(all="ignore"):
                text, _, note = describe_target(f, truncation)
            click.echo(f"giant-step laws for f*(z) = {text}   (rank r = {f.rank}{note}), student activation "
                       f"{activation}")
            rows = [(law.name, law.status, law.latex()) for law in laws]
            if any(re.search(r"\d\.\d", latex) for _, _, latex in rows):  # said where a decimal number is shown
                click.echo(f"{precision_note()} (--digits)")
            click.echo(table([("law", "status", "latex"), *rows]))


@click.command("tour", short_help="Worked examples of Dandi et al. 2023 (start here).")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
def tour_command(as_json: bool) -> None:
    """The worked examples of Dandi et al. 2023 (arXiv 2305.18270): staircases (a)-(d) and the five-regime table."""
    from .._text import as_float, basis, number_text, subspace_text, table
    from ..symbolic import Target, format_hermite, regime_table, staircase
    from ..systems.giant_step.commands import TOUR_REGIMES, TOUR_STAIRCASES, TOUR_TARGET

    examples: list[tuple[str, str, Target, list[Subspace]]] = []
    for label, links, text in TOUR_STAIRCASES:
        if links is not None:
            f = Target.from_links(list(links))
            text = " + ".join(re.sub(r"\bz\b", f"z{k}", link) for k, link in enumerate(links, start=1))
        else:
            assert text is not None  # an example is given by its links or by its text
            f = Target.parse(text)
        examples.append((label, text, f, staircase(f, 3)))
    five = Target.parse(TOUR_TARGET)
    rows = regime_table(five, TOUR_REGIMES)
    # what the simulations establish where the conjecture's literal U_t does not hold (giant-step claims)
    caveats = {"(d)": ("simulated (a_i = +-1), step 2 adds ONE direction of span{w2, w3}, not the plane:\n"
                       "        U_1 = span{w1} < U_2 <= span{w1, w2, w3} "
                       "(finding giant-step/staircase-d-one-new-direction)")}
    if as_json:
        emit_json(
            {
                "staircases": [
                    {
                        "example": label,
                        "target": text,
                        "subspaces": [{"step": t, "dim": u.dim, "basis": basis(u)} for t, u in enumerate(us, start=1)],
                        **({"caveat": caveats[label]} if label in caveats else {}),
                    }
                    for label, text, _, us in examples
                ],
                "regimes": {
                    "target": TOUR_TARGET,
                    "norm2": as_float(rows[0].projection.norm2),
                    "rows": [
                        {
                            "kappa_n": row.kappa_n,
                            "kappa_p": row.kappa_p,
                            "kappa": row.kappa,
                            "learned_dim": row.subspace.dim,
                            "learned_basis": basis(row.subspace),
                            "fitted": format_hermite(row.projection.fitted_expansion),
                            "residual_norm2": as_float(row.projection.residual_norm2),
                        }
                        for row in rows
                    ],
                },
            }
        )
        return
    click.echo("flt tour: the symbolic predictions of Dandi, Krzakala, Loureiro, Pesce, Stephan 2023 "
               "(arXiv 2305.18270)")
    click.echo(f"Hermite convention: {CONVENTION}; w1..wr are the teacher directions w*_k.")
    click.echo("")
    click.echo("1. Staircase U_t learned by t giant steps with n = O(d) (Conjecture 1)")
    lines: list[tuple[str, ...]] = [("", "target f*(z)", "U_1", "U_2", "U_3")]
    for label, text, _, us in examples:
        lines.append((label + ("*" if label in caveats else ""), text, *(subspace_text(u) for u in us)))
    click.echo(table(lines, indent="   "))
    for label, caveat in caveats.items():
        click.echo(f"   {label}* U_t above is Conjecture 1's literal statement; {caveat}")
    click.echo("")
    click.echo("2. One giant step, n ~ d^kappa_n, p ~ d^kappa_p: learned subspace U, fitted P_{U,<=kappa} f*,")
    click.echo("   residual ||P_{U,>kappa} f*||^2 with kappa = min(kappa_n, kappa_p) (Conjecture 3)")
    click.echo(f"   f*(z) = {TOUR_TARGET},  ||f*||^2 = {rows[0].projection.norm2}")
    lines = [("kappa_n", "kappa_p", "U", "fitted P_{U,<=kappa} f*", "residual")]
    for row in rows:
        lines.append(
            (
                number_text(row.kappa_n),
                number_text(row.kappa_p),
                subspace_text(row.subspace),
                format_hermite(row.projection.fitted_expansion),
                str(row.projection.residual_norm2),
            )
        )
    click.echo(table(lines, indent="   "))
    click.echo("")
    click.echo(
        "Next: flt leap TARGET, flt staircase TARGET, flt limits TARGET --kappa-n 2 --kappa-p 1, flt laws TARGET"
    )
