"""Start-up time of the ``flt`` command (``python benchmarks/bench_startup.py [--repeats N]``).

Prints, all measured in this run as subprocess wall times (the median of ``--repeats`` runs, default 7, the
commands taken in turn so that a change of the machine's load falls on all of them alike, after one unmeasured
warm-up run of each):

* ``python -c pass`` (the interpreter alone) and ``python -c "import sympy"``;
* ``flt --version`` and ``flt --help``, against the goal: at most 1.5 x ``python -c pass`` + 0.1 s (they import
  neither sympy nor numpy, torch, scipy, pandas, matplotlib: ``tests/test_cli.py`` checks it);
* ``flt leap "z1 + He2(z2)" --json`` (a symbolic command: it imports sympy, not torch), against the goal: at most
  1.5 x ``import sympy``.

``flt`` is the console script beside this interpreter (``python -m flt_theory.cli`` where there is none). The load
average is printed before and after: the machine may be shared, so quote the load with the numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def flt_command() -> list[str]:
    """The ``flt`` console script of this interpreter, or ``python -m flt_theory.cli``."""
    script = Path(sys.executable).parent / "flt"
    return [str(script)] if script.exists() else [sys.executable, "-m", "flt_theory.cli"]


def commands() -> dict[str, list[str]]:
    flt = flt_command()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import sympy'": [sys.executable, "-c", "import sympy"],
        "flt --version": [*flt, "--version"],
        "flt --help": [*flt, "--help"],
        "flt leap 'z1 + He2(z2)' --json": [*flt, "leap", "z1 + He2(z2)", "--json"],
    }


def wall_time(command: list[str]) -> float:
    """Seconds of one run of ``command`` (it must exit 0)."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return time.perf_counter() - start


def medians(table: dict[str, list[str]], repeats: int) -> dict[str, float]:
    """The median wall time of each command over ``repeats`` rounds (one warm-up round first, not counted)."""
    times: dict[str, list[float]] = {name: [] for name in table}
    for round_ in range(repeats + 1):
        for name, command in table.items():
            seconds = wall_time(command)
            if round_:
                times[name].append(seconds)
    return {name: statistics.median(values) for name, values in times.items()}


def verdict(measured: float, goal: float) -> str:
    return f"{measured:.3f} s vs goal {goal:.3f} s: ratio {measured / goal:.2f} ({'PASS' if measured <= goal else 'MISS'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="measured runs of each command (median; >= 5)")
    args = parser.parse_args()
    if args.repeats < 5:
        parser.error(f"--repeats: expected an integer >= 5; got {args.repeats}")
    table = commands()
    load_before = os.getloadavg()
    print(f"flt start-up benchmark: {args.repeats} runs each (median), {os.cpu_count()} CPUs, "
          f"load average {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f} (1/5/15 min)")
    print(f"flt = {' '.join(flt_command())}")
    times = medians(table, args.repeats)
    for name, seconds in times.items():
        print(f"  {name:<34} {seconds:.3f} s")
    bare, sympy_import = times["python -c pass"], times["python -c 'import sympy'"]
    startup_goal = 1.5 * bare + 0.1
    print("goals (measured in this run):")
    print(f"  flt --version <= 1.5 x pass + 0.1 s: {verdict(times['flt --version'], startup_goal)}")
    print(f"  flt --help    <= 1.5 x pass + 0.1 s: {verdict(times['flt --help'], startup_goal)}")
    print(f"  flt leap      <= 1.5 x import sympy: {verdict(times[next(k for k in times if 'leap' in k)], 1.5 * sympy_import)}")
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f}")


if __name__ == "__main__":
    main()
