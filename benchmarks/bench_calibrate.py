"""Benchmark of ``flt calibrate`` (``python benchmarks/bench_calibrate.py [--system giant-step] [--repeats 20] [--jobs
2]``).

Prints, measured in this run on this machine:

(a) ``flt calibrate SYSTEM --repeats R`` on a fresh store with ``--jobs 1`` (one process) — stopped after
    ``--serial-repeats`` repeats (default 2) and scaled to R, so the serial baseline does not double the run;
(b) the same with ``--jobs J`` worker processes (default 2: the two cores of the development machine), all R
    repeats — goal for the giant-step system at R = 20 on 2 cores: ≤ 15 minutes;
(c) a second run of (b) on the same store (a resumed or repeated calibration reads every measurement back) —
    goal: ≥ 10× faster than (b), the same false-rejection counts;

and the ratios (a)/(b) and (b)/(c). Measured 2026-11-26 (2 cores, load ~1): (a) 2.9 min, (b) 2.2 min with one
shared pool for the whole calibration (12.8 min when every measurement run spawned its own pool), (c) 14 s
(ratio 9.4: a resumed run still evaluates every comparison and mutant). Later that day, with the seeds the
calibration asked for (norm law 64, leap-1 32, leap-2 48) and the omitted-exponent mutants: (a) 5.9 min, (b) 4.9 min
(PASS), (c) 27.5 s, ratio 10.7 (PASS), load 0.7–1.1. Thread count per process: ``--threads`` (default 1). The machine is
shared: quote the load average printed with the numbers.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _threads import parse_with_threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="giant-step")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--serial-repeats", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    args = parse_with_threads(parser)
    from flt_theory.checking.calibrate import calibrate

    print(f"flt calibrate benchmark: {args.system}, {args.repeats} repeats, {args.threads} torch thread(s) per "
          f"process, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        calibrate([args.system], repeats=args.serial_repeats, store=Path(tmp) / "serial.sqlite", jobs=1)
        serial = (time.perf_counter() - start) * args.repeats / args.serial_repeats
        print(f"(a) jobs 1: {serial / 60:6.1f} min for {args.repeats} repeats (scaled from {args.serial_repeats})")
        store = Path(tmp) / "parallel.sqlite"
        start = time.perf_counter()
        first = calibrate([args.system], repeats=args.repeats, store=store, jobs=args.jobs)
        parallel = time.perf_counter() - start
        goal = "PASS" if parallel <= 15 * 60 else "MISS"
        print(f"(b) jobs {args.jobs}: {parallel / 60:6.1f} min  (goal ≤ 15 min for giant-step at 20 repeats: {goal}); "
              f"(a)/(b) = {serial / parallel:.2f}")
        start = time.perf_counter()
        second = calibrate([args.system], repeats=args.repeats, store=store, jobs=args.jobs)
        again = time.perf_counter() - start
        same = [e["false_rejections"] for e in first["claims"]] == [e["false_rejections"] for e in second["claims"]]
        print(f"(c) same store again: {again:6.1f} s; (b)/(c) = {parallel / again:.1f} (goal ≥ 10: "
              f"{'PASS' if parallel / again >= 10 else 'MISS'}); same false rejections: {same}")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
