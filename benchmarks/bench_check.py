"""Benchmark of ``flt check`` on a store (``python benchmarks/bench_check.py [--systems giant-step,...] [--threads
T]``).

Prints, measured in this run on this machine, per system and for the whole selection:

(a) the first ``flt check`` on a fresh SQLite store (every measurement computed);
(b) a second ``flt check`` on the same store (every measurement read back; the verdicts must be the same) —
    goal: at least 10× faster than (a), and ≤ 3 s for the giant-step system;
(c) the giant-step system's first run — goal: ≤ 20 s on 2 quiet cores (issue "fast flt check").

Thread count: ``--threads`` (default 1, via ``FLT_THREADS``; with two threads on a shared 2-core machine
torch can run several times slower when the other core is busy). State the machine load when you quote it.
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
    parser.add_argument("--systems", default="giant-step", help="comma-separated systems (default giant-step); 'all' "
                                                                "for every one")
    args = parse_with_threads(parser)
    from flt_theory.checking import check
    from flt_theory.systems import systems

    names = [s.name for s in systems()] if args.systems == "all" else args.systems.split(",")
    print(f"flt check benchmark: {args.threads} torch thread(s), load average {os.getloadavg()[0]:.2f}, systems "
          f"{names}")
    print(f"{'system':28s} {'first (s)':>10s} {'second (s)':>11s} {'ratio':>7s}  goal  same verdicts")
    total_first = total_second = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            store = Path(tmp) / f"{name}.sqlite"
            start = time.perf_counter()
            first = check([name], store=store)
            t1 = time.perf_counter() - start
            start = time.perf_counter()
            second = check([name], store=store)
            t2 = time.perf_counter() - start
            same = first[["claim", "verdict", "check", "control"]].equals(
                second[["claim", "verdict", "check", "control"]]
            )
            ratio = t1 / t2
            goal = "PASS" if ratio >= 10 else "MISS"
            print(f"{name:28s} {t1:10.1f} {t2:11.2f} {ratio:7.1f}  {goal}  {same}")
            if name == "giant-step":
                print(f"  giant-step first run {t1:.1f} s vs goal 20 s: {'PASS' if t1 <= 20 else 'MISS'}; "
                      f"second {t2:.2f} s vs goal 3 s: {'PASS' if t2 <= 3 else 'MISS'}")
            total_first, total_second = total_first + t1, total_second + t2
    print(f"{'all selected':28s} {total_first:10.1f} {total_second:11.2f} {total_first / total_second:7.1f}")


if __name__ == "__main__":
    main()
