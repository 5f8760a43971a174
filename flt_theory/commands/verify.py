r"""``flt verify``: check predictions by simulation — a target's giant-step predictions, or any system's law.

Two forms, one command:

* ``flt verify TARGET`` derives every giant-step prediction for a target (Dandi et al. 2023, arXiv 2305.18270) and
  checks each by simulation with its wrong law (:func:`flt_theory.systems.giant_step.verify.verify`; a target with a
  nonzero mean is centred first, :mod:`flt_theory.symbolic.centring`);
  ``flt verify TARGET --algorithm online-sgd`` derives a single-index link's information exponent and checks the
  weak-recovery time of online SGD it predicts (Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409) in the limit
  of large d against the exponents ± 1 (:func:`flt_theory.systems.online_sgd.verify.verify_target`;
  ``--max-steps-factor`` and ``--eta-tilde`` set its step limit and step size; ``--batch B`` checks the iterations
  with batches of B fresh samples, time(d)/B (Arnaboldi et al. 2024, arXiv 2406.02157), ``--passes P`` the samples
  with P gradient steps per batch, the rate of the generative exponent (Arnaboldi et al. 2024, arXiv 2405.15459));
* ``flt verify --system SYSTEM --law "OBS ~ EXPR" [--over NAME=V1,V2,...]... [--fix NAME=VALUE]...`` checks a
  researcher's own power law for an observable of any system, with its mutation panel (each exponent ± 1/2 and
  ± 1, a varied symbol EXPR lacks at ± 1/2) on the same measurement, on a grid designed from ``--budget`` and the
  experiment's cost model when ``--over`` is not given (:func:`flt_theory.laws_check.verify.verify_law`);
  ``OBS = EXPR``, ``OBS <= EXPR``, ``OBS >= EXPR`` check the value itself (constant included) without a fit;
* ``flt verify --system SYSTEM --law "PARAM* ~ EXPR" --where "OBS = LEVEL" ...`` checks a level-set law: PARAM is
  solved at every grid point for where the seed-mean of OBS crosses LEVEL (one crossing per seed group), and the
  crossings' power law is checked the same way.

Exit code 0 when everything checked passes, 1 otherwise (a fail or an inconclusive), 2 on bad input. The options are
read into one :class:`VerifyRequest`.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any

import click

from .._files import LATEX, LAW_REPORT, Output
from ..errors import FLTError
from .base import Bounded, InputError, check_output_paths, emit_json, force_option, latex_option, write_failure

__all__ = ["ALGORITHMS", "VerifyRequest", "parse_assignment", "verify_command"]

#: Values of ``--algorithm`` (the training algorithm whose predictions ``flt verify TARGET`` checks).
ALGORITHMS = ("giant-step", "online-sgd")


#: The longest text value ``--fix`` takes (a target, a link, a parametrisation, a dynamics).
MAX_TEXT_VALUE = 200


def parse_assignment(text: str, *, many: bool, texts: bool = False) -> tuple[str, Any]:
    """``NAME=V1,V2,...`` (``many``) or ``NAME=VALUE``: the name and the number(s) (ints stay ints). With ``texts``
    (``--fix``), a single value that is not a number is kept as text — a target, a link, a choice — for the
    parameter's own declaration to validate (the experiment's converter: a target is parsed by the restricted
    grammar, never evaluated).

    >>> parse_assignment("n=16,32,64", many=True), parse_assignment("d=1e4", many=False)
    (('n', [16, 32, 64]), ('d', 10000.0))
    >>> parse_assignment("target=He2(z1, z2)", many=False, texts=True)
    ('target', 'He2(z1, z2)')
    >>> parse_assignment("param= ntk", many=False, texts=True)
    ('param', 'ntk')
    """
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise ValueError(f"expected NAME={'V1,V2,...' if many else 'VALUE'}; got {text!r}")
    if texts and not many and not _is_number(values.strip()):
        value = values.strip()
        if not value or len(value) > MAX_TEXT_VALUE:
            raise ValueError(f"{name}: expected a number or a text of 1 to {MAX_TEXT_VALUE} characters; got "
                             f"{len(value)} characters")
        return name, value
    numbers = []
    for item in values.split(","):
        item = item.strip()
        digits = item.lstrip("+-")
        try:  # an integer of over 309 digits is out of range: not built
            number = (float("inf") if len(digits.lstrip("0")) > 309 else int(item)) if digits.isdigit() else float(item)
        except ValueError:
            raise ValueError(f"{name}: {item[:24]!r}{'...' if len(item) > 24 else ''} is not a number") from None
        if not abs(number) <= sys.float_info.max:  # inf, nan, 1e400, a 4,000-digit int: refused before float() of it
            raise ValueError(f"{name}: {item[:24]!r}{f'... ({len(item)} characters)' if len(item) > 24 else ''} is "
                             f"not a finite number within the floating-point range (|x| <= {sys.float_info.max:.3g})")
        numbers.append(number)
    if not many and len(numbers) != 1:
        raise ValueError(f"{name}: expected one value; got {values!r}")
    return name, numbers if many else numbers[0]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _assignments(option: str, texts: tuple[str, ...], *, many: bool) -> dict[str, Any]:
    result = {}
    for text in texts:
        try:
            name, value = parse_assignment(text, many=many, texts=option == "--fix")
        except ValueError as exc:
            raise InputError(option, str(exc)) from None
        if name in result:
            raise InputError(option, f"{name} is given twice")
        result[name] = value
    return result


@dataclasses.dataclass(frozen=True)
class VerifyRequest:
    """The options of ``flt verify`` (their help: ``flt verify --help``): TARGET's predictions, or with ``system`` and
    ``law`` a system's law (:meth:`for_system_law` says which)."""

    target: str | None
    system: str | None
    law: str | None
    where: str | None
    groups: int | None
    over: tuple[str, ...]
    fix: tuple[str, ...]
    alpha: float
    algorithm: str
    activation: str
    steps: int
    scale: str
    budget: float
    seeds: int | None
    max_steps_factor: float | None
    eta_tilde: float | None
    batch: int | None
    passes: int | None
    latex_file: str | None
    as_json: bool
    report_dir: str | None
    tolerance: float
    store: str | None
    jobs: int
    force: bool

    @property
    def for_system_law(self) -> bool:
        """Whether the request names a system's law (``--system`` or ``--law``) rather than TARGET's predictions."""
        return self.system is not None or self.law is not None


@click.command("verify", short_help="Check predictions by simulation: a target's giant-step laws, or a system's law.")
@click.argument("target", required=False)
@click.option("--system", default=None, metavar="SYSTEM",
              help="Check a law of this system (with --law) instead of TARGET.")
@click.option("--law", default=None, metavar="'OBS ~ EXPR'",
              help="With --system: an observable's power law in the system's parameters, e.g. "
                   "'rel_change ~ width**(-1/2)'; or 'OBS = EXPR', 'OBS <= EXPR', 'OBS >= EXPR' (the value itself, "
                   "no fit).")
@click.option("--where", default=None, metavar="'OBS = LEVEL'",
              help="With a level-set law 'PARAM* ~ EXPR': solve PARAM where the seed-mean of OBS crosses LEVEL, e.g. "
                   "--law 'eta* ~ (n*p**2/d)**(1/2)' --where 'norm_growth = 1'.")
@click.option("--groups", type=click.IntRange(2, 256), default=None, metavar="G",
              help="With --where: disjoint seed groups, one crossing each (default: one per seed).")
@click.option("--over", multiple=True, metavar="NAME=V1,V2,...",
              help="With --system: a parameter's values on the grid (repeatable; default: each parameter of EXPR over "
                   "the widest range around its declared value that --budget and the experiment's cost allow).")
@click.option("--fix", multiple=True, metavar="NAME=VALUE",
              help="With --system: hold a parameter at VALUE (repeatable). A text value (a link, a branch) "
                   "selects the claim that declares it: the parameters not given are held at that claim's point "
                   "and bounded by its hypotheses (the plan names it).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="With --system: family-wise level of the law and its mutants (one joint interval at 1 - alpha).")
@click.option("--algorithm", type=click.Choice(ALGORITHMS), default="giant-step", show_default=True,
              help="With TARGET: the training algorithm whose predictions are checked: one or a few giant steps, or "
                   "online SGD of one neuron on a single-index link (TARGET in z).")
@click.option("--activation", default="relu", show_default=True,
              help="With TARGET: student activation, a 1-D function of z.")
@click.option("--steps", type=click.IntRange(1, 4), default=2, show_default=True,
              help="With TARGET: staircase steps T.")
@click.option("--scale", type=click.Choice(["small", "paper"]), default="small", show_default=True)
@click.option("--budget", type=Bounded(float, 1, 86400), default=120.0, show_default=True, metavar="SECONDS",
              help="Time budget; with TARGET, predictions whose sizes would exceed it are 'inconclusive' with the "
                   "budget they need; with --system, a plan over it is refused before it runs, and an inconclusive "
                   "one-parameter ladder is extended toward larger sizes while the rest of it allows.")
@click.option("--seeds", type=click.IntRange(2, 256), default=None, metavar="S",
              help="Seeds per measurement (default: the scale's with TARGET, 8 with --system); an inconclusive verdict "
                   "says how many would decide it.")
@click.option("--max-steps-factor", type=Bounded(float, 0, 1000), default=None, metavar="F",
              help="With TARGET --algorithm online-sgd: multiply the ladder's max_steps at every d by F (default 1). "
                   "A d with censored runs is never fitted: its censored seeds are rerun with max_steps x4, at most "
                   "twice, within --budget; a d still censored is dropped and named.")
@click.option("--eta-tilde", type=Bounded(float, 0, 1), default=None, metavar="ETA",
              help="With TARGET --algorithm online-sgd: the step size eta = ETA * d^-max(1, k/2) (default: 0.5, 0.2, "
                   "0.05 for information exponent k = 1, 2, >= 3). Lower it when runs stall below overlap 1/2.")
@click.option("--batch", type=Bounded(int, 1, None), default=None, metavar="B",
              help="With TARGET --algorithm online-sgd: B fresh samples per gradient step (their mean gradient), eta = "
                   "ETA * B * d^-max(1, k/2); checks the iterations, time(d)/B, below the saturation batch "
                   "d^max(k-1, 1) (default 1: one sample per step).")
@click.option("--passes", type=Bounded(int, 1, 16), default=None, metavar="P",
              help="With TARGET --algorithm online-sgd: P gradient steps on each batch before a fresh one (data "
                   "repetition), eta = ETA * B / d (default ETA 0.003 from P = 2); checks the samples against the "
                   "rate of the generative exponent k* (d at k* = 1, d log d at k* = 2; polynomial links). Default 1.")
@latex_option("With TARGET: also write the verdicts")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
@click.option("--report", "report_dir", type=click.Path(), default=None, metavar="DIR",
              help="With --system: write DIR/report.md, DIR/fit.png (the fit figure) and DIR/result.json; the "
                   "measurements go to DIR/measurements.sqlite unless --store is given.")
@click.option("--tolerance", type=click.FloatRange(0, 0.25, max_open=True), default=0.0, show_default=True,
              metavar="T", help="With --system: widen each exponent's interval by T (a stated slack, below 1/4).")
@click.option("--store", default=None, metavar="FILE",
              help="With --system: SQLite results store; a second run on the same grid reuses its measurements "
                   "(default: DIR/measurements.sqlite with --report, else none).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --system: worker processes for the grid's points (1: in this process). --budget stays in "
                   "CPU seconds: the work of the plan, whatever the workers.")
@force_option
@click.pass_context
def verify_command(ctx: click.Context, **options: Any) -> None:
    """Check predictions by simulation, each against a deliberately wrong law on the same measurement.

    flt verify TARGET: derive every giant-step prediction for TARGET (one-step threshold kappa* = leap index, or
    no learning when the student coefficient vanishes; the one-step subspace; the staircase U_1..U_T), simulate at
    sizes chosen from the theory, and compare each prediction AND a wrong law. A TARGET with a nonzero mean is
    predicted and simulated centred, f* - E f* (the one-step theory's labels), and the output says so. Each
    prediction lists the sizes it simulated and each measured value its bound; progress goes to stderr.

    flt verify --system SYSTEM --law "OBS ~ EXPR": fit the exponents of every parameter varied on the grid jointly
    (seed bootstrap) and compare them with EXPR's; the mutants move each exponent by 1/2 and 1. Without --over the
    grid is designed from --budget (the plan is printed first, on stderr); 'OBS <= EXPR' (or =, >=) checks the
    value itself at every point, without a fit.

    flt verify --system SYSTEM --law "PARAM* ~ EXPR" --where "OBS = LEVEL": at every grid point solve PARAM where
    the seed-mean of OBS crosses LEVEL (bracket by doubling, bisection in log PARAM to 2%), one crossing per seed
    group, and check the crossings' power law the same way.

    Verdicts: pass (law passes, wrong laws rejected), fail, inconclusive (with the reason and the seeds or size
    that would resolve it). Exit 0 when every prediction passes, 1 otherwise, 2 on bad input.

    flt verify TARGET --algorithm online-sgd: TARGET is a link g(z); its information exponent k gives the samples
    online SGD needs to reach overlap 1/2 (d, d log d, d^(k-1) for k = 1, 2, >= 3), measured on a ladder of d and
    decided in the limit of large d (effective exponents between rungs, corrections to scaling allowed) against the
    exponents +-1 and, for d log d, the law without its log. Runs stopped by max_steps are never fitted: their d is
    rerun with a raised max_steps within --budget, or dropped and named (--max-steps-factor); runs that stall below
    overlap 1/2 name the step size (--eta-tilde). --batch B checks the iterations with B fresh samples per step
    (time(d)/B), --passes P the samples with P steps per batch (the rate of the generative exponent)."""
    request = VerifyRequest(**options)
    if request.algorithm != "giant-step" and request.for_system_law:
        raise InputError("--algorithm", "applies to TARGET only (a --system law names its own experiment)")
    for option, value in (("--max-steps-factor", request.max_steps_factor), ("--eta-tilde", request.eta_tilde),
                          ("--batch", request.batch), ("--passes", request.passes)):
        if value is not None and request.algorithm != "online-sgd":
            raise InputError(option, "applies to TARGET --algorithm online-sgd only")
    if request.for_system_law:
        ctx.exit(_verify_system_law(request))
    if request.target is None:
        raise InputError("TARGET", "give a TARGET, or --system SYSTEM --law 'OBS ~ EXPR'")
    for option, given in (("--over", request.over), ("--fix", request.fix), ("--where", request.where),
                          ("--groups", request.groups), ("--report", request.report_dir), ("--store", request.store),
                          ("--tolerance", request.tolerance),
                          ("--jobs", ctx.get_parameter_source("jobs") is not click.core.ParameterSource.DEFAULT)):
        if given:
            raise InputError(option, "applies to --system SYSTEM --law 'OBS ~ EXPR' only")
    if request.algorithm == "online-sgd":
        ctx.exit(_verify_online_sgd(ctx, request.target, request))
    ctx.exit(_verify_giant_step(request.target, request))


def _verify_giant_step(target: str, request: VerifyRequest) -> int:
    """``flt verify TARGET`` (module docstring): the verdicts on stdout (with ``--json`` exactly one JSON document:
    per prediction its bounds and the sizes it simulated), a progress line per prediction on stderr (before and after
    its simulation, with the elapsed seconds; also when stderr is not a terminal), the LaTeX table in
    ``--latex FILE``; returns the exit code."""
    if request.latex_file is not None:  # before anything is imported or runs: nothing is overwritten
        check_output_paths([Output("--latex", request.latex_file, LATEX)], store=None, force=request.force)
    from .._display import latex_document
    from .._files import atomic_write_text
    from .._text import json_ready
    from ..systems.giant_step.verify import verify, verify_latex_table, verify_text

    try:
        document = verify(target, activation=request.activation, steps=request.steps, scale=request.scale,
                          budget=request.budget, seeds=request.seeds,
                          progress=lambda line: click.echo(line, err=True))  # on stderr, terminal or not
    except FLTError as exc:
        message = str(exc)
        raise InputError(None if message.startswith(("TARGET", "--")) else "TARGET", message) from exc
    if request.latex_file is not None:
        try:
            atomic_write_text(request.latex_file, latex_document(verify_latex_table(document)))
        except OSError as exc:  # a full disk: the old file is kept
            raise write_failure(exc) from exc
    if request.as_json:
        emit_json(json_ready(document))
    else:
        click.echo(verify_text(document))
    return 0 if document["passed"] else 1


def _verify_online_sgd(ctx: click.Context, target: str, request: VerifyRequest) -> int:
    """``flt verify TARGET --algorithm online-sgd`` (module docstring); returns the exit code."""
    for option in ("activation", "steps"):
        if ctx.get_parameter_source(option) is not click.core.ParameterSource.DEFAULT:
            raise InputError(f"--{option}", "applies to the giant-step predictions only (online SGD trains the link "
                                            "itself, one step per sample)")
    if request.latex_file is not None:
        raise InputError("--latex", "is written for the giant-step predictions only")
    from .._text import json_ready
    from ..systems.online_sgd.verify import verify_target, verify_text as online_sgd_text

    try:
        document = verify_target(target, scale=request.scale, seeds=request.seeds, budget=request.budget,
                                 max_steps_factor=1.0 if request.max_steps_factor is None else request.max_steps_factor,
                                 eta_tilde=request.eta_tilde, batch=1 if request.batch is None else request.batch,
                                 passes=1 if request.passes is None else request.passes)
    except FLTError as exc:
        message = str(exc)
        raise InputError(None if message.startswith(("TARGET", "--")) else "TARGET", message) from exc
    if request.as_json:
        emit_json(json_ready(dict(document)))
    else:
        click.echo(online_sgd_text(document))
    return 0 if document["passed"] else 1


def _verify_system_law(request: VerifyRequest) -> int:
    """``flt verify --system SYSTEM --law LAW`` (module docstring): the plan on stderr before the run, the result
    (or one JSON document) on stdout, the report in ``--report DIR``; returns the exit code."""
    if request.target is not None:
        raise InputError("TARGET", "give either TARGET or --system SYSTEM --law 'OBS ~ EXPR', not both")
    if request.system is None or request.law is None:
        raise InputError("--system" if request.system is None else "--law", "--system and --law go together")
    if request.latex_file is not None:
        raise InputError("--latex", "is written for TARGET's predictions only")
    over = _assignments("--over", request.over, many=True)
    fix = _assignments("--fix", request.fix, many=False)
    both = [name for name in over if name in fix]
    if both:
        name = both[0]
        raise InputError("--fix", f"{name} is given both by --over ({name}={','.join(map(str, over[name]))}) and by "
                                  f"--fix ({name}={fix[name]}); vary it with --over or hold it with --fix, not both")
    store = request.store
    if request.report_dir is not None:  # before anything is imported or runs: nothing is overwritten
        store = os.path.join(request.report_dir, "measurements.sqlite") if store is None else store
        check_output_paths([Output("--report", request.report_dir, LAW_REPORT)], store=store, force=request.force)
        from .._files import mark_report_folder

        try:
            mark_report_folder(request.report_dir, LAW_REPORT)
        except OSError as exc:
            raise InputError("--report", f"cannot create the folder {request.report_dir!r}: {exc.strerror}") from None
    from .._text import json_ready
    from ..laws_check.design import plan_text
    from ..laws_check.verify import verify_law
    from ..report.law_figure import write_law_report

    try:
        result = verify_law(request.system, request.law, where=request.where, groups=request.groups,
                            over=over, fix=fix, seeds=request.seeds or 8,
                            alpha=request.alpha, budget=request.budget, store=store, tolerance=request.tolerance,
                            jobs=request.jobs,
                            on_plan=lambda plan: click.echo(plan_text(plan), err=True))
    except FLTError as exc:
        message = str(exc)
        raise InputError(None if message.startswith("--") else "--system", message) from exc
    if request.report_dir is not None:
        try:
            click.echo(f"report: {write_law_report(result, request.report_dir)}", err=True)
        except OSError as exc:  # a full disk: the files already there are kept
            raise write_failure(exc) from exc
    if request.as_json:
        emit_json(json_ready(dict(result)))
    else:
        click.echo(str(result))
    return 0 if result.passed else 1
