"""``flt sweep``: run a registered experiment on a grid of parameters × seeds, resumable through its store.

Exit codes follow the ``flt`` contract: 0 success, 1 a failure while running, 2 bad input (an unknown experiment, a
bad ``--param``, a store that is not ours). The options are read into one :class:`SweepRequest`.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

import click

from ..errors import FLTError
from .base import InputError
from .running import backend_options, failure, scheduler_of

__all__ = ["SweepRequest", "experiment_observables", "parse_param", "sweep_command"]


@dataclasses.dataclass(frozen=True)
class SweepRequest:
    """The options of ``flt sweep`` (their help: ``flt sweep --help``)."""

    experiment: str | None
    params: tuple[str, ...]
    seeds: int
    store: str
    jobs: int
    scheduler: str | None
    dask: str | None
    list_only: bool
    as_json: bool


def parse_param(text: str) -> tuple[str, list[Any]]:
    """``NAME=V1,V2,...`` (or ``NAME=[json list]``) into a name and values; numbers become int/float.

    >>> parse_param("kappa=0.5,1,1.5"), parse_param("target=z + He2(z)"), parse_param('eta=["theory", 64]')
    (('kappa', [0.5, 1, 1.5]), ('target', ['z + He2(z)']), ('eta', ['theory', 64]))
    """
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise InputError("--param", f"expected NAME=V1,V2,... Got {text!r} instead.")
    raw = raw.strip()
    if raw.startswith("["):
        try:
            values = json.loads(raw)
        except ValueError as exc:
            raise InputError("--param", f"{name}: not a JSON list: {exc}") from None
        if not isinstance(values, list):
            raise InputError("--param", f"{name}: expected a JSON list. Got {raw!r}.")
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
@backend_options
@click.option("--list", "list_only", is_flag=True,
              help="List the registered experiments with their parameters and observables, and exit.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
def sweep_command(**options: Any) -> None:
    """Run EXPERIMENT on the grid of --param axes × --seeds; results go to --store.

    Example: flt sweep giant-step/one-step-mass -p "target=z + He2(z)" -p d=64,128 -p kappa=0.5,1,1.5 --seeds 4
    """
    run_sweep_request(SweepRequest(**options))


def experiment_observables() -> dict[str, list[Any]]:
    """The declared observables of every experiment of the discovered systems (their vocabularies,
    :mod:`flt_theory.systems.vocabulary`), by experiment name."""
    from ..systems import discover
    from ..systems.vocabulary import vocabulary_of

    out: dict[str, list[Any]] = {}
    for system in discover().values():
        for observable in vocabulary_of(system).observables.values():
            for name in observable.experiments:
                out.setdefault(name, []).append(observable)
    return out


def run_sweep_request(request: SweepRequest) -> None:
    """What ``flt sweep`` does with its options (bad input raises a click exception)."""
    grid: dict[str, list[Any]] = {}
    scheduler = scheduler_of(request.scheduler, request.dask)
    if not request.list_only:  # what is read from the options alone, before anything is imported
        if request.experiment is None:
            raise click.UsageError("missing argument EXPERIMENT (or --list)")
        grid = dict(parse_param(p) for p in request.params)
    from ..runner import registered_experiments, sweep
    from ..systems import discover

    try:
        discover()  # the systems' experiments become known by name
    except FLTError as exc:
        raise failure(exc) from exc
    if request.list_only:
        exps = registered_experiments()
        observed = experiment_observables()
        if request.as_json:
            click.echo(json.dumps([{"name": e.name, "description": e.description, "defaults": e.defaults,
                                    "parameters": list(e.types) if e.types else None,
                                    "observables": [o.to_dict() for o in observed.get(e.name, [])]} for e in exps]))
        else:
            for e in exps:
                click.echo(f"{e.name}  {e.description}" + (f"  parameters: {', '.join(e.types)}" if e.types else ""))
                if observed.get(e.name):
                    click.echo(f"    observables: {', '.join(f'{o.name} [{o.unit}]' for o in observed[e.name])}")
            click.echo("(the meaning of each observable: flt observables SYSTEM)")
        return
    assert request.experiment is not None  # refused above
    store = request.store
    try:
        frame = sweep(request.experiment, grid, seeds=request.seeds, store=store, jobs=request.jobs,
                      scheduler=scheduler,
                      progress=False if request.as_json else None)
    except FLTError as exc:
        raise failure(exc) from exc
    if request.as_json:
        click.echo(json.dumps({"experiment": request.experiment, "store": store, "computed": frame.attrs["computed"],
                               "reused": frame.attrs["reused"], "stale": frame.attrs["stale"],
                               "rows": json.loads(frame.to_json(orient="records"))}))
    else:
        click.echo(frame.to_string(index=False))
        stale = f" ({frame.attrs['stale']} of them stale rows of other code, replaced)" if frame.attrs["stale"] else ""
        click.echo(
            f"{frame.attrs['computed']} points computed{stale}, {frame.attrs['reused']} reused from {store}", err=True
        )
    sys.stdout.flush()
