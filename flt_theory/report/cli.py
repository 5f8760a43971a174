r"""Click commands ``flt check`` and ``flt sweep`` (attached to the ``flt`` group in :mod:`flt_theory.cli`).

Exit codes follow the ``flt`` contract: 0 success (``check``: every claim passed), 1 a claim failed
or errored, 2 bad input (an unknown claim path, an unknown experiment, a bad store or option).
``--json`` prints exactly one JSON document on stdout and no progress; otherwise ``flt check`` shows its progress
on stderr: bars where stdout and stderr are terminals, else (``flt check | cat``, a log, CI) one plain line per
measurement when it starts and when it ends (:func:`flt_theory.report.check.progress_mode`).

>>> from click.testing import CliRunner
>>> result = CliRunner().invoke(check_command, ["giant-step/nope"])
>>> result.exit_code, "not a registered claim key" in result.output
(2, True)
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from ..errors import FLTError, InvalidParameterError

#: The scales of :data:`flt_theory.systems.declaration.SCALES` (repeated here so that loading the ``flt`` command
#: does not import the systems, and with them torch; a test checks that the two agree).
SCALES = ("small", "paper")

__all__ = ["calibrate_command", "check_command", "parse_param", "sweep_command"]


class _InputError(click.UsageError):
    """Bad input (exit code 2), printed as one line naming the parameter."""

    def __init__(self, param: str, message: str):
        super().__init__(f"{param}: {message}")


def _fail(exc: FLTError) -> click.ClickException:
    """Bad input (a store that is not ours, an unknown name, a bad option) exits 2; a failure while
    running (an experiment raised, a full disk, an unreachable cluster) exits 1."""
    from ..runner.errors import BackendError, DivergedPointError, ExperimentError, StoreWriteError

    if isinstance(exc, DivergedPointError):  # the user's parameters: exit 2, one line
        return click.UsageError(" ".join(str(exc).split("Worker traceback:")[0].split()))
    if isinstance(exc, (BackendError, ExperimentError, StoreWriteError)):
        return click.ClickException(" ".join(str(exc).split("Worker traceback:")[0].split()))
    return click.UsageError(str(exc))


def _scheduler(scheduler: str | None, dask: str | None) -> str | None:
    if scheduler and dask:
        raise click.UsageError("--scheduler and --dask are mutually exclusive; give one of them")
    return "local" if dask == "local" else scheduler


def _backend_options(func):
    func = click.option("--dask", type=click.Choice(["local"]), default=None,
                        help="Start a local Dask cluster (loopback, no dashboard) and run on it.")(func)
    func = click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                        help="Run on an existing Dask cluster (its scheduler address).")(func)
    func = click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
                        help="Worker processes (1: in this process); Dask workers with --dask local.")(func)
    return func


def _restamp_option(text: str):
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
@click.option("--no-report", is_flag=True, help="Print the table only; write no report folder.")
@click.option("--store", default=None, metavar="FILE",
              help="SQLite file of the measurements, reused by later runs [default: DIR/measurements.sqlite; "
                   "none with --no-report].")
@click.option("--fresh", is_flag=True, help="Recompute the measurements even when the store holds them.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Family-wise false-rejection rate of the whole run (Bonferroni over the claims' p-values).")
@click.option("--list", "list_only", is_flag=True, help="List the selected claims (default: all) and exit.")
@click.option("--plan", "plan_only", is_flag=True,
              help="Print each selected claim's points, seeds, estimated seconds and memory (from the declared costs) "
                   "and the total, run nothing, and exit.")
@_backend_options
@click.option("--latex", "latex_file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Also write the verdict table as booktabs LaTeX to FILE: it compiles alone (pdflatex FILE) and can "
                   "be \\input into a paper whose preamble loads amsmath, amssymb, booktabs and longtable.")
@click.option("--record", "record_file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Merge each claim's verdict (estimate, CI, wall time, hardware, commit) into this JSON record, "
                   "deciding at the level of the whole catalogue; CLAIMS.md reads "
                   "flt_theory/report/verdict_record.json.")
@_restamp_option("Run nothing: carry the stale verdicts of --record (default: the package's) over a change of code "
                 "whose small-scale verdict there reproduces exactly the one in BEFORE (a verdict record written by "
                 "the code they ran on), and re-decide verdicts decided among another number of claims where no "
                 "p-value lies between the two levels.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
@click.pass_context
def check_command(
    ctx: click.Context,
    paths: tuple[str, ...],
    scale: str,
    seed_base: int,
    report_dir: str,
    no_report: bool,
    store: str | None,
    fresh: bool,
    alpha: float,
    list_only: bool,
    jobs: int,
    scheduler: str | None,
    dask: str | None,
    latex_file: str | None,
    as_json: bool,
    plan_only: bool = False,
    record_file: str | None = None,
    restamp_from: str | None = None,
) -> None:
    """Run claims (default: every claim of every system) and their negative controls.

    PATHS are claim keys (giant-step/norm-law), systems (giant-step), Python files or folders of
    derivation files (derive_*.py). A Python file is YOUR code and is imported, the way pytest
    imports a test file: it selects its CLAIMS (claim keys or flt_theory.Claim objects) and its
    SYSTEM. Each claim is measured once (stored in --store; a second run reuses it) and compared
    with its law and with the wrong law of its negative control. Exit code 0 only when every claim
    passes: its law's check passes AND the wrong law fails on the same measurement.
    """
    from .check import resolve_claims, run_check

    if restamp_from is not None:
        from .carry_over import run_carry_over

        if paths:
            raise _InputError("PATHS", "--restamp-from carries every stale entry over: give no PATHS")
        try:
            ctx.exit(run_carry_over(restamp_from, record=record_file, as_json=as_json))
        except FLTError as exc:
            raise _fail(exc) from exc
    try:
        claims = resolve_claims(list(paths))
    except FLTError as exc:
        raise _InputError("PATHS", str(exc)) from exc
    if plan_only:
        _print_plan(claims, scale, as_json)
        return
    if list_only:
        rows = [{"claim": c.key, "words": c.words, "experiment": c.measurement.experiment} for c in claims]
        if as_json:
            click.echo(json.dumps(rows))
        else:
            for row in rows:
                click.echo(f"{row['claim']}  {row['words']}")
        return
    if not no_report:
        from .markdown import prepare_report_dir

        try:
            prepare_report_dir(report_dir)
        except FLTError as exc:
            raise click.UsageError(str(exc)) from exc
    if store is None and not no_report:
        store = os.path.join(report_dir, "measurements.sqlite")
    try:
        code = run_check(list(paths), scale, None if no_report else report_dir, store=store, seed_base=seed_base,
                         fresh=fresh, alpha=alpha, jobs=jobs, scheduler=_scheduler(scheduler, dask), as_json=as_json,
                         latex=latex_file, record=record_file)
    except FLTError as exc:
        raise _fail(exc) from exc
    ctx.exit(code)


def _print_plan(claims, scale: str, as_json: bool) -> None:
    """``flt check --plan``: the declared cost of each claim and the total, as JSON or a table (nothing runs)."""
    from ..systems.declaration import plan

    try:
        document = plan(claims, scale)
    except FLTError as exc:
        raise _fail(exc) from exc
    if as_json:
        click.echo(json.dumps(document))
        return
    rows = document["claims"] + [{"claim": "total", **document["total"]}]
    width = max(len(r["claim"]) for r in rows)
    click.echo(f"{'claim'.ljust(width)}  points  seeds  seconds (est.)  memory (est.)")
    for r in rows:
        click.echo(f"{r['claim'].ljust(width)}  {r['points']:>6}  {r['seeds']:>5}  {r['seconds']:>14.3g}  "
                   f"{r['memory_bytes'] / 1e6:>10.3g} MB")


@click.command("calibrate", short_help="False rejections, mutation panel and power of each claim's check.")
@click.argument("paths", nargs=-1)
@click.option("--repeats", type=click.IntRange(min=1), default=20, show_default=True, help="Disjoint seed sets per "
                                                                                           "claim.")
@click.option("--scale", type=click.Choice(SCALES), default="small", show_default=True)
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Family-wise level the claims are decided at, as in flt check.")
@click.option("--store", default="flt_calibration.sqlite", show_default=True, metavar="FILE",
              help="SQLite file of the measurements (a killed calibration resumes from it).")
@_backend_options
@click.option("--record", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Merge the results into this JSON record (the report's and CLAIMS.md's power table reads "
                   "flt_theory/report/calibration_small.json); claims are then decided at the level of the whole "
                   "catalogue.")
@_restamp_option("Run nothing: re-stamp the stale entries of --record (default: the package's record) whose "
                 "small-scale verdict in the verdict record of now (flt check --record, default the package's) "
                 "reproduces exactly the one in BEFORE, a verdict record written by the calibrated code.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
@click.pass_context
def calibrate_command(ctx: click.Context, paths: tuple[str, ...], repeats: int, scale: str, alpha: float, store: str,
                      jobs: int, scheduler: str | None, dask: str | None, record: str | None, restamp_from: str | None,
                      as_json: bool) -> None:
    """Run each claim (default: all) on REPEATS disjoint seed sets; report its false rejections (with an
    exact binomial interval), the fraction of its law's mutants (exponents ±0.25/±0.5/±1, bounds ×0.8/×1.25,
    subspaces rotated 30° or a neighbour) rejected, and its power: the smallest mutation caught in ≥ 90%
    of the repeats. PATHS select claims as in flt check."""
    from .calibrate import run_calibrate, run_restamp

    try:
        if restamp_from is not None:
            if paths:
                raise InvalidParameterError("--restamp-from re-stamps every stale entry: give no PATHS")
            ctx.exit(run_restamp(restamp_from, record=record, as_json=as_json))
        code = run_calibrate(list(paths), repeats=repeats, scale=scale, alpha=alpha, store=store, jobs=jobs,
                             scheduler=_scheduler(scheduler, dask), as_json=as_json, record=record)
    except FLTError as exc:
        raise _fail(exc) from exc
    ctx.exit(code)


def parse_param(text: str) -> tuple[str, list[Any]]:
    """``NAME=V1,V2,...`` (or ``NAME=[json list]``) into a name and values; numbers become int/float.

    >>> parse_param("kappa=0.5,1,1.5"), parse_param("target=z + He2(z)"), parse_param('eta=["theory", 64]')
    (('kappa', [0.5, 1, 1.5]), ('target', ['z + He2(z)']), ('eta', ['theory', 64]))
    """
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise _InputError("--param", f"expected NAME=V1,V2,... Got {text!r} instead.")
    raw = raw.strip()
    if raw.startswith("["):
        try:
            values = json.loads(raw)
        except ValueError as exc:
            raise _InputError("--param", f"{name}: not a JSON list: {exc}") from None
        if not isinstance(values, list):
            raise _InputError("--param", f"{name}: expected a JSON list. Got {raw!r}.")
        return name, values

    def scalar(item: str) -> Any:
        item = item.strip()
        for kind in (int, float):
            try:
                return kind(item)
            except ValueError:
                pass
        return item

    return name, [scalar(v) for v in _split_top_level(raw)]


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside parentheses (``He(3, z1),z2`` is two values).

    >>> _split_top_level("He(3, z1),z + He2(z)"), _split_top_level("1,2")
    (['He(3, z1)', 'z + He2(z)'], ['1', '2'])
    """
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


@click.command("sweep", short_help="Run a registered experiment on a grid × seeds (resumable).")
@click.argument("experiment", required=False)
@click.option("--param", "-p", "params", multiple=True, metavar="NAME=V1,V2",
              help="A grid axis (repeat for several); values split on commas, or a JSON list.")
@click.option("--seeds", type=click.IntRange(min=1), default=1, show_default=True, help="Seeds 0..N-1 per point.")
@click.option("--store", default="flt_results.sqlite", show_default=True, metavar="FILE",
              help="SQLite results store; re-running computes only the missing points.")
@_backend_options
@click.option("--list", "list_only", is_flag=True, help="List the registered experiments and exit.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
def sweep_command(experiment: str | None, params: tuple[str, ...], seeds: int, store: str, jobs: int,
                  scheduler: str | None, dask: str | None, list_only: bool, as_json: bool) -> None:
    """Run EXPERIMENT on the grid of --param axes × --seeds; results go to --store.

    Example: flt sweep giant-step/one-step-mass -p "target=z + He2(z)" -p d=64,128 -p kappa=0.5,1,1.5 --seeds 4
    """
    from ..runner import registered_experiments, sweep
    from ..systems import discover

    try:
        discover()  # the systems' experiments become known by name
    except FLTError as exc:
        raise _fail(exc) from exc
    if list_only:
        exps = registered_experiments()
        if as_json:
            click.echo(json.dumps([{"name": e.name, "description": e.description, "defaults": e.defaults,
                                    "parameters": list(e.types) if e.types else None} for e in exps]))
        else:
            for e in exps:
                click.echo(f"{e.name}  {e.description}" + (f"  parameters: {', '.join(e.types)}" if e.types else ""))
        return
    if experiment is None:
        raise click.UsageError("missing argument EXPERIMENT (or --list)")
    grid = dict(parse_param(p) for p in params)
    try:
        frame = sweep(experiment, grid, seeds=seeds, store=store, jobs=jobs, scheduler=_scheduler(scheduler, dask),
                      progress=False if as_json else None)
    except FLTError as exc:
        raise _fail(exc) from exc
    if as_json:
        click.echo(json.dumps({"experiment": experiment, "store": store, "computed": frame.attrs["computed"],
                               "reused": frame.attrs["reused"], "stale": frame.attrs["stale"],
                               "rows": json.loads(frame.to_json(orient="records"))}))
    else:
        click.echo(frame.to_string(index=False))
        stale = f" ({frame.attrs['stale']} of them stale rows of other code, replaced)" if frame.attrs["stale"] else ""
        click.echo(
            f"{frame.attrs['computed']} points computed{stale}, {frame.attrs['reused']} reused from {store}", err=True
        )
    sys.stdout.flush()
