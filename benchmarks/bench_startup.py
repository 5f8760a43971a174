"""Start-up time of the ``flt`` command (``python benchmarks/bench_startup.py [--repeats N]``).

Prints, all measured in this run as subprocess wall times (the median of ``--repeats`` runs, default 7, the
commands taken in turn so that a change of the machine's load falls on all of them alike, after one unmeasured
warm-up run of each):

* ``python -c pass`` (the interpreter alone) and ``python -c "import sympy"``;
* ``flt --version`` and ``flt --help``, against the goal: at most 1.5 x ``python -c pass`` + 0.1 s (they import
  neither sympy nor numpy, torch, scipy, pandas, matplotlib: ``tests/test_cli.py`` checks it);
* ``flt leap "z1 + He2(z2)" --json`` (a symbolic command: it imports sympy, not numpy, torch, scipy, pandas,
  matplotlib: ``tests/test_cli.py`` checks it), against the goal: at most 1.5 x ``import sympy``;
* a bad option or argument of ``flt simulate``, ``flt verify``, ``flt check`` and ``flt sweep`` (each exits 2 with one
  line), against the goal: at most 2 x ``flt --version`` (``flt simulate attention --n 1e9`` once took 28 s under
  load, torch imported to refuse it). Options are parsed and checked before torch or sympy is imported
  (``tests/test_cli.py`` checks which modules each refusal imports); ``flt simulate SYSTEM`` reads its options from the
  declarations the first run kept (:mod:`flt_theory.commands.declared`), here in a temporary ``FLT_CACHE_DIR`` that
  the warm-up round fills, as the first ``flt simulate`` run after an install or an edit does.

``flt`` is the console script beside this interpreter (``python -m flt_theory.cli`` where there is none). The load
average is printed before and after: the machine may be shared, so quote the load with the numbers.

Bytecode: every command runs with its compiled modules cached, as they are for an installed package (pip writes
them; an editable install writes them on the first import), in a temporary ``PYTHONPYCACHEPREFIX`` that the warm-up
round fills, whatever ``PYTHONDONTWRITEBYTECODE`` says; ``--as-is`` runs them in this environment unchanged (with
``PYTHONDONTWRITEBYTECODE=1`` flt_theory's own modules are then compiled on every start, while sympy's and click's
bytecode, written when they were installed, is read: that measures the compiler, not the start-up).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
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


def cached_bytecode_env(prefix: str) -> dict[str, str]:
    """This environment with compiled modules written to and read from ``prefix`` (``PYTHONDONTWRITEBYTECODE``
    dropped)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": prefix}


def bad_options(folder: str) -> dict[str, list[str]]:
    """A bad option or argument of ``flt simulate``, ``verify``, ``check`` and ``sweep`` (each exits 2); ``folder``
    holds the file one of them names."""
    flt = flt_command()
    store = os.path.join(folder, "s.sqlite")
    Path(store).write_bytes(b"SQLite format 3\x00")
    return {
        "flt simulate attention --n 1e9": [*flt, "simulate", "attention", "--n", "1e9"],
        "flt simulate giant-step z1 --d x": [*flt, "simulate", "giant-step", "z1", "--d", "x"],
        "flt verify --law .. --over d=.. --fix d=64": [*flt, "verify", "--system", "giant-step", "--law",
                                                       "norm_growth ~ d", "--over", "d=64,128", "--fix", "d=64"],
        "flt verify z1 --budget 0": [*flt, "verify", "z1", "--budget", "0"],
        "flt check --alpha 2": [*flt, "check", "--alpha", "2"],
        "flt check CLAIM --store S --latex S": [*flt, "check", "giant-step/rank-one-update", "--store", store,
                                                "--latex", store],
        "flt sweep giant-step/spike --seeds 0": [*flt, "sweep", "giant-step/spike", "--seeds", "0"],
    }


def wall_time(command: list[str], env: dict[str, str] | None = None, code: int = 0) -> float:
    """Seconds of one run of ``command`` (it must exit with ``code``) in ``env`` (this environment where ``None``)."""
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != code:
        raise SystemExit(f"{' '.join(command)}: exit code {done.returncode}, expected {code}")
    return seconds


def medians(table: dict[str, list[str]], repeats: int, env: dict[str, str] | None = None,
            codes: dict[str, int] | None = None) -> dict[str, float]:
    """The median wall time of each command over ``repeats`` rounds (one warm-up round first, not counted);
    ``codes``: the exit code a command must give (default 0)."""
    times: dict[str, list[float]] = {name: [] for name in table}
    for round_ in range(repeats + 1):
        for name, command in table.items():
            seconds = wall_time(command, env, (codes or {}).get(name, 0))
            if round_:
                times[name].append(seconds)
    return {name: statistics.median(values) for name, values in times.items()}


def verdict(measured: float, goal: float) -> str:
    return (
        f"{measured:.3f} s vs goal {goal:.3f} s: ratio {measured / goal:.2f} ({'PASS' if measured <= goal else 'MISS'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="measured runs of each command (median; >= 5)")
    parser.add_argument("--as-is", action="store_true",
                        help="run the commands in this environment unchanged (no bytecode cache of their own)")
    args = parser.parse_args()
    if args.repeats < 5:
        parser.error(f"--repeats: expected an integer >= 5; got {args.repeats}")
    table = commands()
    load_before = os.getloadavg()
    print(f"flt start-up benchmark: {args.repeats} runs each (median), {os.cpu_count()} CPUs, "
          f"load average {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f} (1/5/15 min)")
    print(f"flt = {' '.join(flt_command())}")
    with tempfile.TemporaryDirectory(prefix="flt-bench-pycache-") as prefix, \
            tempfile.TemporaryDirectory(prefix="flt-bench-files-") as folder:
        if args.as_is:
            print(f"environment as is (PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r})")
        else:
            print("bytecode cached (written in the warm-up round, as an install does)")
        env = dict(os.environ) if args.as_is else cached_bytecode_env(prefix)
        env["FLT_CACHE_DIR"] = os.path.join(folder, "cache")  # the kept simulate options: filled by the warm-up round
        bad = bad_options(folder)
        table.update(bad)
        times = medians(table, args.repeats, env, codes=dict.fromkeys(bad, 2))
    for name, seconds in times.items():
        print(f"  {name:<42} {seconds:.3f} s")
    bare, sympy_import = times["python -c pass"], times["python -c 'import sympy'"]
    startup_goal = 1.5 * bare + 0.1
    print("goals (measured in this run):")
    print(f"  flt --version <= 1.5 x pass + 0.1 s: {verdict(times['flt --version'], startup_goal)}")
    print(f"  flt --help    <= 1.5 x pass + 0.1 s: {verdict(times['flt --help'], startup_goal)}")
    print("  flt leap      <= 1.5 x import sympy: "
          f"{verdict(times[next(k for k in times if 'leap' in k)], 1.5 * sympy_import)}")
    version = times["flt --version"]
    print("  a bad option  <= 2 x flt --version (ratio = bad-option time / flt --version time):")
    for name in bad:
        print(f"    {name:<42} {verdict(times[name], 2 * version)}; "
              f"ratio to flt --version {times[name] / version:.2f}")
    worst = max(times[name] / version for name in bad)
    print(f"  worst ratio {worst:.2f} ({'PASS' if worst <= 2 else 'MISS'} against the goal 2)")
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f}")


if __name__ == "__main__":
    main()
