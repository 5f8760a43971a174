"""The cost plan against measured time (``python benchmarks/bench_cost_plan.py [PATHS...] [--threads T] [--write]``).

For each selected claim (default: every registered claim; PATHS as ``flt check``: claim keys or systems) prints
the time the declared costs estimate for its measurement at small scale (:mod:`flt_theory.runner.cost`, with the
calibration factors of ``flt_theory/runner/cost_factors.json``; ``flt check --plan`` prints it where the verdict
record holds no measurement of the same points and code, its ``declared_seconds`` everywhere), the wall
time and the CPU time of running that measurement through the runner (``Measurement.run``: a fresh in-memory
store, in this process, ``--threads`` torch threads, default 1), the ratio measured/estimate, and the totals. The
plan's seconds are CPU seconds of one thread: the ratios and the fit use the CPU time, which a busy shared machine
inflates far less than the wall time (both are printed). Claims that share a measurement
(same experiment, points and seeds) share one run, as ``flt check`` shares its stored rows; the total counts it
once.

``--write`` fits one calibration factor per experiment — its summed measured CPU seconds over its summed
uncalibrated estimate (declared work at 1e9 operations/s, the runner's per-row work included) — merges the
factors into ``cost_factors.json`` (experiments not selected keep theirs) and prints the table again with the
new factors. Estimates of the giant-step experiments come from their own guard
(:func:`flt_theory.systems.giant_step.engine.check_budget`), not from a declared ``Cost``: their factor is stored and
listed but the plan applies it only once :meth:`Experiment.estimate` reads :func:`calibration_factor` for them.

Measured times depend on the machine and its load: the load average is printed with the table; calibrate at a
quiet moment, on one thread.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import time
from typing import Any


def _plan_seconds(claim: Any) -> float:
    """The declared cost of the claim's small-scale measurement (:meth:`Measurement.plan`: no record, no limits)."""
    return float(claim.measurement.plan("small")["seconds"])


def _uses_declared_cost(experiment: str) -> bool:
    from flt_theory.runner.registry import get_experiment

    return get_experiment(experiment).cost is not None


def _measure(claims: list[Any]) -> list[dict[str, Any]]:
    """One row per measurement (claims sharing it listed together): experiment, estimate, measured seconds."""
    from flt_theory.runner.cost import calibration_factor

    groups: dict[tuple, list[Any]] = {}
    for claim in claims:
        groups.setdefault(claim.measurement.identity("small"), []).append(claim)
    rows = []
    for key, members in groups.items():
        experiment = key[0]
        estimate = _plan_seconds(members[0])
        factor = calibration_factor(experiment) if _uses_declared_cost(experiment) else 1.0
        start, cpu = time.perf_counter(), time.process_time()
        try:
            members[0].measurement.run("small", store=None)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports a broken measurement and goes on
            print(f"  FAILED {members[0].key}: {type(exc).__name__}: {exc}", flush=True)
            continue
        wall, measured = time.perf_counter() - start, time.process_time() - cpu
        rows.append({"claims": [c.key for c in members], "experiment": experiment, "estimate": estimate,
                     "raw": estimate / factor, "measured": measured, "wall": wall})
        print(f"  measured {', '.join(c.key for c in members)}: {measured:.2f} s CPU, {wall:.2f} s wall "
              f"(estimate {estimate:.3g} s)", flush=True)
    return rows


def _table(rows: list[dict[str, Any]], estimate: str) -> None:
    width = max(len(c) for r in rows for c in r["claims"])
    print(f"{'claim'.ljust(width)}  {'estimate (s)':>12}  {'CPU (s)':>9}  {'wall (s)':>9}  {'CPU/estimate':>12}")
    for r in rows:
        for i, claim in enumerate(r["claims"]):
            shared = "" if i == 0 else "  (shared run)"
            print(f"{claim.ljust(width)}  {r[estimate]:12.3g}  {r['measured']:9.3g}  {r['wall']:9.3g}  "
                  f"{r['measured'] / r[estimate]:12.3g}{shared}")
    total_est, total_meas = sum(r[estimate] for r in rows), sum(r["measured"] for r in rows)
    total_wall = sum(r["wall"] for r in rows)
    print(f"{'total'.ljust(width)}  {total_est:12.3g}  {total_meas:9.3g}  {total_wall:9.3g}  "
          f"{total_meas / total_est:12.3g}")
    ratios = sorted(((r["measured"] / r[estimate], r["claims"][0]) for r in rows))
    print(f"worst ratios: lowest {ratios[0][0]:.3g} ({ratios[0][1]}), highest {ratios[-1][0]:.3g} ({ratios[-1][1]})")


def _fit(rows: list[dict[str, Any]], threads: int, load: float) -> dict[str, dict[str, Any]]:
    """Per experiment: its factor (summed CPU seconds over summed uncalibrated estimate) and what it was fitted on."""
    sums: dict[str, list[float]] = {}
    for r in rows:
        measured, raw = sums.get(r["experiment"], [0.0, 0.0])
        sums[r["experiment"]] = [measured + r["measured"], raw + r["raw"]]
    today = datetime.date.today().isoformat()
    return {name: {"factor": float(f"{measured / raw:.3g}"), "cpu_seconds": round(measured, 3),
                   "declared_seconds": float(f"{raw:.4g}"), "date": today, "threads": threads,
                   "load_average": round(load, 2)}
            for name, (measured, raw) in sums.items() if raw > 0}


def _write(fits: dict[str, dict[str, Any]]) -> None:
    from flt_theory.runner.cost import FACTORS_FILE, calibration_factors

    try:
        document = json.loads(FACTORS_FILE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        document = {}
    measured = {**document.get("measured", {}), **{name: {k: v for k, v in fit.items() if k != "factor"}
                                                   for name, fit in fits.items()}}
    factors = {**document.get("factors", {}), **{name: fit["factor"] for name, fit in fits.items()}}
    document = {
        "description": ("Measured CPU seconds per declared second (declared work at 1e9 operations/s) of each "
                        "experiment's small-scale measurements, one thread, fitted by benchmarks/bench_cost_plan.py "
                        "--write; read by flt_theory.runner.cost.calibration_factor. 'measured': what each factor was "
                        "fitted on."),
        "factors": dict(sorted(factors.items())),
        "measured": dict(sorted(measured.items())),
    }
    FACTORS_FILE.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    calibration_factors.cache_clear()
    print(f"wrote {len(fits)} factor(s) into {FACTORS_FILE}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="claim keys or systems (default: every claim)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="fit and store the per-experiment calibration factors")
    args = parser.parse_args()
    os.environ["FLT_THREADS"] = str(args.threads)
    import torch

    torch.set_num_threads(args.threads)
    from flt_theory.checking.check import resolve_claims

    claims = resolve_claims(args.paths or None)
    load = os.getloadavg()[0]
    print(f"cost plan vs measured, scale small: {len(claims)} claim(s), {args.threads} torch thread(s), fresh "
          f"in-memory store per measurement, load average {load:.2f} at the start")
    rows = _measure(claims)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    _table(rows, "estimate")
    if args.write:
        _write(_fit(rows, args.threads, load))
        for r in rows:
            r["calibrated"] = _plan_seconds(next(c for c in claims if c.key == r["claims"][0]))
        print("with the new factors:")
        _table(rows, "calibrated")


if __name__ == "__main__":
    main()
