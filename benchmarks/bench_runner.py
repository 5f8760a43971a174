"""Benchmark of the experiment runner (``python benchmarks/bench_runner.py [--quick] [--dask]``).

Prints, all measured in this run:

(a) the runner's own cost per point in this process — grid expansion, hashing, the store lookup,
    the task, the SQLite write (one WAL transaction per point) and the final DataFrame — measured
    with a no-op experiment, against the compute time of a small giant-step point
    (``giant-step/one-step-mass``: d = 256, κ = 1.5, p = 32, the ``small`` scale's sizes) and of a
    tiny one (d = 64, κ = 1); goal: < 5 % of the small point;
(b) the same end to end: a sweep of real points into a fresh SQLite file against a bare loop over
    the same experiment calls (the difference is the overhead, plus noise);
(c) the per-point dispatch cost of a 2-process pool and (``--dask``) of a local Dask cluster,
    measured with the no-op experiment after start-up, and their start-up times.

Times are the best of a few repeats (the minimum is the least noisy estimate on a shared machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # workers import this module by name

from flt_theory.runner import experiment, sweep
from flt_theory.runner.executors import DaskBackend, PoolBackend, local_cluster_options
from flt_theory.runner.points import PointTask, run_point
from flt_theory.systems.giant_step.declaration import one_step_mass as _batched_one_step_mass


def one_step_mass(params, seed):
    """One seed of the batched giant-step experiment (what a per-seed loop would call)."""
    return _batched_one_step_mass(params, [seed])[0]


SMALL = {"target": "z + He2(z)", "d": 256, "kappa": 1.5, "p": 32}
TINY = {"target": "z + He2(z)", "d": 64, "kappa": 1.0, "p": 32}
DEFAULTS = {"activation": "relu", "eta": "theory", "dtype": "float32"}


@experiment("bench/noop", types={"i": int})
def noop(params, seed):
    """Returns a constant: what is left is the runner's own cost."""
    return {"y": 1.0}


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def compute_time(params: dict, seeds: int, repeats: int) -> float:
    """Seconds per point of the bare experiment function (no runner)."""
    full = {**params, **DEFAULTS}
    one_step_mass(full, 0)  # warm-up
    return best(lambda: [one_step_mass(full, s) for s in range(seeds)], repeats) / seeds


def runner_overhead(points: int, repeats: int, folder: Path) -> float:
    """Seconds per point of a whole in-process sweep of the no-op experiment into a new SQLite file."""
    counter = iter(range(10**9))

    def run() -> None:
        store = folder / f"noop-{next(counter)}.sqlite"
        sweep("bench/noop", {"i": list(range(points))}, store=store, progress=False)

    run()
    return best(run, repeats) / points


def end_to_end(params: dict, seeds: int, repeats: int, folder: Path) -> tuple[float, float]:
    """(sweep, bare loop) seconds per point for the same real points, measured round-robin."""
    full = {**params, **DEFAULTS}
    counter = iter(range(10**9))
    sweep_times, bare_times = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        sweep("giant-step/one-step-mass", {k: [v] for k, v in params.items()}, seeds=seeds,
              store=folder / f"real-{next(counter)}.sqlite", progress=False)
        sweep_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for s in range(seeds):
            one_step_mass(full, s)
        bare_times.append(time.perf_counter() - start)
    return min(sweep_times) / seeds, min(bare_times) / seeds


def dispatch(backend_factory, points: int) -> tuple[float, float]:
    """(start-up seconds, seconds per no-op point after a warm-up batch) of a backend."""
    start = time.perf_counter()
    backend = backend_factory()
    tasks = [
        PointTask((str(i),), "bench/noop", "bench_runner", {"i": i}, (0,), parent_pid=os.getpid())
        for i in range(points)
    ]
    try:
        list(backend.imap_unordered(run_point, tasks[: 2 * backend.workers]))  # workers up and importing
        startup = time.perf_counter() - start
        start = time.perf_counter()
        results = list(backend.imap_unordered(run_point, tasks))
        per_point = (time.perf_counter() - start) / points
    finally:
        backend.close()
    assert all(r["ok"] for r in results), results[:1]
    return startup, per_point


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer points and repeats")
    parser.add_argument("--dask", action="store_true", help="also measure a local Dask cluster (2 workers)")
    args = parser.parse_args()
    seeds, repeats, noops = (8, 3, 500) if args.quick else (16, 5, 2000)
    e2e_seeds = 16 if args.quick else 64

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small = compute_time(SMALL, seeds, repeats)
        tiny = compute_time(TINY, seeds, repeats)
        overhead = runner_overhead(noops, repeats, folder)
        sweep_pp, bare_pp = end_to_end(SMALL, e2e_seeds, repeats, folder)

        print("(a) runner overhead per point (in-process, SQLite file, WAL, one transaction per point)")
        print(f"    runner + store, no-op experiment  {overhead * 1e6:8.1f} us/point   ({noops} points)")
        print(f"    small point d=256 k=1.5 p=32      {small * 1e3:8.2f} ms/point   -> overhead "
              f"{100 * overhead / small:5.2f} %   (goal < 5 %: {'MET' if overhead / small < 0.05 else 'NOT MET'})")
        print(f"    tiny point  d=64  k=1.0 p=32      {tiny * 1e3:8.2f} ms/point   -> overhead "
              f"{100 * overhead / tiny:5.2f} %")
        print(f"(b) end to end, {e2e_seeds} small points, in-process sweep into a new SQLite file (its creation "
              "included) vs bare loop")
        print(f"    sweep {sweep_pp * 1e3:.2f} ms/point, bare {bare_pp * 1e3:.2f} ms/point "
              f"-> {100 * (sweep_pp - bare_pp) / bare_pp:+.2f} % (includes noise)")
        print("(c) dispatch to workers (no-op experiment, after start-up)")
        startup, per_point = dispatch(lambda: PoolBackend(2), noops)
        print(f"    process pool, 2 workers: start-up {startup:.2f} s, {per_point * 1e6:.0f} us/point "
              f"-> {100 * per_point / small:.2f} % of a small point")
        if args.dask:
            try:
                import distributed

                cluster = distributed.LocalCluster(**local_cluster_options(2))
            except ImportError:
                print("    dask: not installed (pip install 'dask[distributed]')")
            else:
                client = distributed.Client(cluster)
                try:
                    startup, per_point = dispatch(lambda: DaskBackend(client, 2), noops)
                    print(f"    dask LocalCluster, 2 workers: {per_point * 1e6:.0f} us/point "
                          f"-> {100 * per_point / small:.2f} % of a small point")
                finally:
                    client.close()
                    cluster.close()


if __name__ == "__main__":
    main()
