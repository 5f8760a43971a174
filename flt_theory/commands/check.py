r"""``flt check`` and ``flt calibrate``: run the claims with their negative controls, and calibrate their checks.

Exit codes follow the ``flt`` contract: 0 success (``check``: every claim passed), 1 a claim failed or errored, 2 bad
input (an unknown claim path, a bad store or option). ``--json`` prints exactly one JSON document on stdout and no
progress; otherwise ``flt check`` shows its progress on stderr: bars where stdout and stderr are terminals, else
(``flt check | cat``, a log, CI) one plain line per measurement when it starts and when it ends
(:func:`flt_theory.checking.check.progress_mode`). Each command reads its options into one request
(:class:`CheckRequest`, :class:`CalibrateRequest`) and runs it with :mod:`flt_theory.checking`.

>>> from click.testing import CliRunner
>>> result = CliRunner().invoke(check_command, ["giant-step/nope"])
>>> result.exit_code, "not a registered claim key" in result.output
(2, True)
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from .._files import CALIBRATION_RECORD, CHECK_REPORT, LATEX, VERDICT_RECORD, Output, replacing
from ..errors import FLTError, InvalidParameterError
from .base import SCALES, InputError, check_output_paths, force_option, latex_option, write_failure
from .running import backend_options, failure, scheduler_of

if TYPE_CHECKING:  # pragma: no cover
    from ..systems.declaration import Claim

__all__ = ["NO_REPORT_STORE", "CalibrateRequest", "CheckRequest", "calibrate_command", "check_command",
           "no_report_store"]


@dataclasses.dataclass(frozen=True)
class CheckRequest:
    """The options of ``flt check`` (their help: ``flt check --help``)."""

    paths: tuple[str, ...]
    scale: str
    seed_base: int
    report_dir: str
    no_report: bool
    store: str | None
    fresh: bool
    alpha: float
    list_only: bool
    plan_only: bool
    jobs: int
    scheduler: str | None
    dask: str | None
    latex_file: str | None
    record_file: str | None
    restamp_from: str | None
    verify_record: bool
    sample: int | None
    as_json: bool
    force: bool


@dataclasses.dataclass(frozen=True)
class CalibrateRequest:
    """The options of ``flt calibrate`` (their help: ``flt calibrate --help``)."""

    paths: tuple[str, ...]
    repeats: int
    scale: str
    alpha: float
    store: str
    jobs: int
    scheduler: str | None
    dask: str | None
    record: str | None
    restamp_from: str | None
    as_json: bool
    force: bool


#: The file ``flt check --no-report`` stores its measurements in without ``--store``, in flt's cache folder
#: (:func:`no_report_store`).
NO_REPORT_STORE = "check-measurements.sqlite"


def no_report_store() -> str | None:
    """Where ``flt check --no-report`` keeps its measurements without ``--store``, so that a rerun reuses them:
    :data:`NO_REPORT_STORE` in the folder of flt's cache (that of :func:`.declared.cache_path`: ``$FLT_CACHE_DIR``,
    else ``$XDG_CACHE_HOME/flt_theory``, else ``~/.cache/flt_theory``), created if needed; None (an in-memory store,
    said on stderr) where there is no such folder or it cannot be created."""
    from .declared import cache_path

    where = cache_path()
    if where is None:
        return None
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return os.path.join(where.parent, NO_REPORT_STORE)


def restamp_option(text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--restamp-from BEFORE`` option (a verdict record written by the code the stale entries ran on)."""
    return click.option("--restamp-from", "restamp_from", type=click.Path(dir_okay=False, exists=True), default=None,
                        metavar="BEFORE", help=text)


@click.command("check", short_help="Run the claims with their negative controls; write a report.")
@click.argument("paths", nargs=-1)
@click.option("--scale", type=click.Choice(SCALES), default="small", show_default=True,
              help="small: seconds per claim; paper: the sizes of the source.")
@click.option("--seed-base", type=click.IntRange(0, 2**62), default=0, show_default=True,
              help="Run every claim on seeds K..K+S-1 instead of 0..S-1.")
@click.option("--report", "report_dir", default="report", show_default=True, metavar="DIR",
              help="Folder for report.md, report.html, results.json and figures/.")
@click.option("--no-report", is_flag=True, help="Print the table only; write no report folder (the measurements "
                                                 "are still stored: --store).")
@click.option("--store", default=None, metavar="FILE",
              help="SQLite file of the measurements, reused by later runs [default: DIR/measurements.sqlite; with "
                   f"--no-report, {NO_REPORT_STORE} in flt's cache folder: $FLT_CACHE_DIR, else "
                   "$XDG_CACHE_HOME/flt_theory, else ~/.cache/flt_theory].")
@click.option("--fresh", is_flag=True, help="Recompute the measurements even when the store holds them.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Family-wise false-rejection rate of the whole run (Bonferroni over the claims' p-values).")
@click.option("--list", "list_only", is_flag=True, help="List the selected claims (default: all) and exit.")
@click.option("--plan", "plan_only", is_flag=True,
              help="Print each selected claim's points, seeds, estimated worker-seconds (a recorded wall time times "
                   "the workers its run kept busy, else the declared cost; column basis) and memory, and the total, "
                   "run nothing, and exit.")
@backend_options
@latex_option("Also write the verdicts")
@click.option("--record", "record_file", type=click.Path(), default=None, metavar="FILE",
              help="Merge each claim's verdict (estimate, CI, wall time, hardware, commit) into this JSON record, "
                   "deciding at the level of the whole catalogue; CLAIMS.md reads "
                   "flt_theory/report/verdict_record.json.")
@restamp_option("Run nothing: carry the stale verdicts of --record (default: the package's) over a change of code "
                 "whose small-scale verdict there reproduces exactly the one in BEFORE (a verdict record written by "
                 "the code they ran on), and re-decide verdicts decided among another number of claims where no "
                 "p-value lies between the two levels.")
@click.option("--verify-record", "verify_record", is_flag=True,
              help="Run only the check of --record (default: the package's): re-run at the small scale a sample of "
                   "the verdicts carried over by --restamp-from (of the claims PATHS select) and compare them with "
                   "the small-scale verdicts the carry-over relied on; exit code 1 on a mismatch.")
@click.option("--sample", type=click.IntRange(min=1), default=None, metavar="K",
              help="With --verify-record: how many carried entries to re-run, drawn at random (default 3).")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
@force_option
@click.pass_context
def check_command(ctx: click.Context, **options: Any) -> None:
    """Run claims (default: every claim of every system) and their negative controls.

    PATHS are claim keys (giant-step/norm-law), systems (giant-step), Python files or folders of
    derivation files (derive_*.py). A Python file is YOUR code and is imported, the way pytest
    imports a test file: it selects its CLAIMS (claim keys or flt_theory.Claim objects) and its
    SYSTEM. Each claim is measured once (stored in --store; a second run reuses it) and compared
    with its law and with the wrong law of its negative control. Exit code 0 only when every claim
    passes: its law's check passes AND the wrong law fails on the same measurement.
    """
    ctx.exit(run_check_request(CheckRequest(**options)))


def run_check_request(request: CheckRequest) -> int:
    """What ``flt check`` does with its options; returns the exit code (bad input raises a click exception)."""
    if request.sample is not None and not request.verify_record:
        raise InputError("--sample", "only with --verify-record")
    if request.verify_record:
        if request.restamp_from is not None:
            raise InputError("--verify-record", "give it without --restamp-from (run the carry-over first)")
        from ..checking.verify_record import run_verify_record

        try:
            return run_verify_record(list(request.paths), record=request.record_file, sample=request.sample or 3,
                                     as_json=request.as_json)
        except FLTError as exc:
            raise failure(exc) from exc
    if request.restamp_from is not None:
        if request.paths:
            raise InputError("PATHS", "--restamp-from carries every stale entry over: give no PATHS")
        if request.record_file is not None:  # the carry-over writes the record back
            check_output_paths([Output("--record", request.record_file, VERDICT_RECORD)], store=None,
                               force=request.force)
        from ..checking.carry_over import run_carry_over

        try:
            return run_carry_over(request.restamp_from, record=request.record_file, as_json=request.as_json)
        except FLTError as exc:
            raise failure(exc) from exc
    store = request.store
    if store is None and not request.no_report:
        store = os.path.join(request.report_dir, "measurements.sqlite")
    elif store is None and not (request.plan_only or request.list_only):
        store = no_report_store()
        if store is None:
            click.echo("flt check --no-report: no cache folder for the measurements (set FLT_CACHE_DIR or give "
                       "--store FILE); they are kept in memory and a rerun recomputes them", err=True)
    outputs = [Output(option, path, kind) for option, path, kind in (
        ("--latex", request.latex_file, LATEX), ("--record", request.record_file, VERDICT_RECORD),
        ("--report", None if request.no_report else request.report_dir, CHECK_REPORT)) if path is not None]
    if not (request.plan_only or request.list_only):  # before anything is imported or runs: nothing is overwritten
        check_output_paths(outputs, store=store, force=request.force)
    scheduler = scheduler_of(request.scheduler, request.dask)
    from ..checking.check import resolve_claims, run_check
    from ..report.markdown import prepare_report_dir

    try:
        claims = resolve_claims(list(request.paths))
    except FLTError as exc:
        raise InputError("PATHS", str(exc)) from exc
    if request.plan_only:
        _print_plan(claims, request.scale, request.as_json)
        return 0
    if request.list_only:
        rows = [{"claim": c.key, "words": c.words, "experiment": c.measurement.experiment} for c in claims]
        if request.as_json:
            click.echo(json.dumps(rows))
        else:
            for row in rows:
                click.echo(f"{row['claim']}  {row['words']}")
        return 0
    if not request.no_report:
        try:
            prepare_report_dir(request.report_dir)
        except FLTError as exc:
            raise click.UsageError(str(exc)) from exc
    record_output = next((o for o in outputs if o.option == "--record"), None)
    try:
        with contextlib.ExitStack() as stack:
            record = None if record_output is None else stack.enter_context(replacing(record_output,
                                                                                      force=request.force))
            return run_check(list(request.paths), request.scale, None if request.no_report else request.report_dir,
                             store=store, seed_base=request.seed_base, fresh=request.fresh, alpha=request.alpha,
                             jobs=request.jobs, scheduler=scheduler, as_json=request.as_json,
                             latex=request.latex_file, record=record)
    except FLTError as exc:
        raise failure(exc) from exc
    except OSError as exc:  # an output could not be written (a full disk): the old file is kept
        raise write_failure(exc) from exc


def _print_plan(claims: Sequence[Claim], scale: str, as_json: bool) -> None:
    """``flt check --plan``: the cost of each claim and the total, as JSON or a table (nothing runs): in
    worker-seconds, the wall time the package's verdict record measured for the same points, seeds and code times the
    workers that run kept busy where the record holds one, else the declared cost
    (:func:`~flt_theory.systems.declaration.plan`; the column ``basis`` says which); the total's row also gives the
    declared total, the one ``flt check`` refuses a run by."""
    from ..checking.scale_record import load_verdicts, recorded_seconds
    from ..systems.declaration import plan

    try:
        document = plan(list(claims), scale, recorded=recorded_seconds(load_verdicts(), claims, scale))
    except FLTError as exc:
        raise failure(exc) from exc
    if as_json:
        click.echo(json.dumps(document))
        return
    total = document["total"]  # the declared total is what a run's refusal reads
    rows = document["claims"] + [{"claim": "total", **total,
                                  "basis": f"(declared costs: {total['declared_seconds']:.3g} s)"}]
    width = max(len(r["claim"]) for r in rows)
    click.echo(f"{'claim'.ljust(width)}  points  seeds  seconds (est.)  memory (est.)  basis")
    for r in rows:
        click.echo(f"{r['claim'].ljust(width)}  {r['points']:>6}  {r['seeds']:>5}  {r['seconds']:>14.3g}  "
                   f"{r['memory_bytes'] / 1e6:>10.3g} MB  {r['basis']}".rstrip())


@click.command("calibrate", short_help="False rejections, mutation panel and power of each claim's check.")
@click.argument("paths", nargs=-1)
@click.option("--repeats", type=click.IntRange(min=1), default=20, show_default=True, help="Disjoint seed sets per "
                                                                                           "claim.")
@click.option("--scale", type=click.Choice(SCALES), default="small", show_default=True)
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Family-wise level the claims are decided at, as in flt check.")
@click.option("--store", default="flt_calibration.sqlite", show_default=True, metavar="FILE",
              help="SQLite file of the measurements (a killed calibration resumes from it).")
@backend_options
@click.option("--record", type=click.Path(), default=None, metavar="FILE",
              help="Merge the results into this JSON record (the report's and CLAIMS.md's power table reads "
                   "flt_theory/report/calibration_small.json, and below it flt_theory/report/calibration_paper.json "
                   "for the claims calibrated with --scale paper); claims are then decided at the level of the whole "
                   "catalogue.")
@restamp_option("Run nothing: re-stamp the stale entries of --record (default: the package's small-scale record) "
                 "whose small-scale verdict in the verdict record of now (flt check --record, default the package's) "
                 "reproduces exactly the one in BEFORE, a verdict record written by the calibrated code (a paper "
                 "record's entries too, as paper verdicts are carried).")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
@force_option
@click.pass_context
def calibrate_command(ctx: click.Context, **options: Any) -> None:
    """Run each claim (default: all) on REPEATS disjoint seed sets; report its false rejections (with an
    exact binomial interval), the fraction of its law's mutants (exponents ±0.25/±0.5/±1, bounds ×0.8/×1.25,
    subspaces rotated 30° or a neighbour) rejected, and its power: the smallest mutation caught in ≥ 90%
    of the repeats. PATHS select claims as in flt check."""
    ctx.exit(run_calibrate_request(CalibrateRequest(**options)))


def run_calibrate_request(request: CalibrateRequest) -> int:
    """What ``flt calibrate`` does with its options; returns the exit code (bad input raises a click exception)."""
    output = None if request.record is None else Output("--record", request.record, CALIBRATION_RECORD)
    if output is not None:  # before anything is imported or runs: nothing is overwritten
        check_output_paths([output], store=None if request.restamp_from is not None else request.store,
                           force=request.force)
    from ..checking.calibrate import run_calibrate, run_restamp

    try:
        if request.restamp_from is not None:
            if request.paths:
                raise InvalidParameterError("--restamp-from re-stamps every stale entry: give no PATHS")
            return run_restamp(request.restamp_from, record=request.record, as_json=request.as_json)
        with contextlib.ExitStack() as stack:
            record = None if output is None else stack.enter_context(replacing(output, force=request.force))
            return run_calibrate(list(request.paths), repeats=request.repeats, scale=request.scale,
                                 alpha=request.alpha, store=request.store, jobs=request.jobs,
                                 scheduler=scheduler_of(request.scheduler, request.dask), as_json=request.as_json,
                                 record=record)
    except FLTError as exc:
        raise failure(exc) from exc
    except OSError as exc:  # the record could not be written (a full disk): the old file is kept
        raise write_failure(exc) from exc
