"""Benchmark of the symbolic layer (``python benchmarks/bench_symbolic.py``).

Prints, all measured in this run:

(a) ``staircase(f, 3)`` plus ``regime_table`` over the five regimes (kappa_n, kappa_p) in
    {(1,0), (1,1), (2,0), (2,1), (2,2)} of the five-direction example
    f* = z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3 + He2(z2)*He2(z3) — best of 3, each repeat
    with sympy's caches cleared (what a fresh process pays, imports excluded), against the 2 s
    goal: PASS / MISS and the ratio time / goal;
(b) the same for everything ``flt tour`` computes (staircases (a)-(d) as well), and the wall time
    of ``python -m flt_theory.cli tour`` in a subprocess (interpreter and imports included);
(c) the exact leap-complexity algorithm (:func:`flt_theory.symbolic.leap_complexity_of_support`)
    on random supports of up to 8000 multi-indices in 12 variables (seeded, reproducible);
(d) with ``--issue23``: each hostile input of issue 23 (the auditor's slow ones and the overflows) through
    ``python -m flt_theory.cli`` in a fresh process — exit code, CPU and wall seconds (interpreter and imports
    included, about 0.5 s), the first words of the one-line error — against the goal of a refusal within 10 s;
(e) with ``--budgets``: the largest inputs of several families the work budgets of
    :mod:`flt_theory.symbolic.budget` accept (and the first they refuse), CPU seconds of the command alone
    (imports excluded), against the goal of about 2 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
import sympy

from flt_theory.symbolic import Target, leap_complexity_of_support, monomial_to_hermite, regime_table, staircase
from flt_theory.systems.giant_step.commands import TOUR_REGIMES, TOUR_STAIRCASES, TOUR_TARGET

GOAL_S = 2.0


def clear_caches() -> None:
    sympy.core.cache.clear_cache()
    monomial_to_hermite.cache_clear()


def best_time(fn: Callable[[], object], repeats: int, cold: bool = True) -> float:
    times = []
    for _ in range(repeats):
        if cold:
            clear_caches()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def five_direction() -> None:
    f = Target.parse(TOUR_TARGET)
    staircase(f, 3)
    regime_table(f, TOUR_REGIMES)


def whole_tour() -> None:
    for _, links, text in TOUR_STAIRCASES:
        staircase(Target.from_links(list(links)) if links is not None else Target.parse(text), 3)
    five_direction()


def random_support(size: int, rank: int, rng: np.random.Generator, min_active: int = 1) -> list[tuple[int, ...]]:
    """``size`` distinct multi-indices in ``rank`` variables with ``min_active``-4 active coordinates of degree 1-3."""
    support: set[tuple[int, ...]] = set()
    while len(support) < size:
        alpha = np.zeros(rank, dtype=int)
        active = rng.choice(rank, size=rng.integers(min_active, 5), replace=False)
        alpha[active] = rng.integers(1, 4, size=len(active))
        support.add(tuple(int(a) for a in alpha))
    return sorted(support)


SUM8 = "+".join(f"z{k}" for k in range(1, 9))
#: Issue 23: (arguments, what happened before) — the auditor's inputs, then the overflow and blame items.
ISSUE23 = [
    (["staircase", "He16(He16(z1))"], "> 86 s CPU, 1.1 GB"),
    (["laws", "He16(He16(z1))"], "> 134 s"),
    (["limits", f"({SUM8})**8", "--kappa-n", "8", "--kappa-p", "8"], "> 90 s"),
    (["laws", "((z+1)**16)**16"], "24 s"),
    (["hermite", "tanh", "--degree", "200"], "internal error (OverflowError)"),
    (["staircase", "z1", "--d", "16", "--n", "64", "--eta", "1e308"], "internal error (OverflowError)"),
    (["staircase", "z1", "--d", "16", "--n", "64", "--activation", "1e300*z"], "internal error (OverflowError)"),
    (["hermite", "1e300*z"], "exit 0, E[sigma^2] = 1e600"),
    (["verify", "1e300*z"], "internal error (OverflowError)"),
    (["verify", "z1", "--activation", "1e300*z", "--steps", "1"], "internal error (OverflowError)"),
    (["limits", "z1 + He2(z2)", "--kappa-n", "100", "--kappa-p", "1"], "blamed TARGET"),
    (["limits", "1e300*z", "--kappa-n", "1", "--kappa-p", "1", "--json"], "internal error (inf in JSON)"),
    (["staircase", "z1", "--d", "16", "--n", "64", "--eta", "nan"], "blamed --activation"),
    (["leap", "z1 + " * 790 + "open(z1)"], "error quoting the input whole"),
]

#: Families of growing inputs for the budget calibration: (label, command, target pattern in k, extra arguments, ks).
BUDGET_FAMILIES = [
    ("leap (z1+..+z4)^k", "leap", "(z1+z2+z3+z4)**{k}", [], [16, 20, 22, 24]),
    ("leap (z1+..+z8)^k", "leap", f"({SUM8})**{{k}}", [], [6, 8, 9, 10]),
    ("staircase z1 + z1 z2 + (z1+..+z4)^k", "staircase", "z1 + z1*z2 + (z1+z2+z3+z4)**{k}", [], [10, 14, 18, 22]),
    ("staircase rank 6", "staircase", "z1 + z1*z2 + (z3 - 2*z4 + z5)*(z1+z2+z3+z4+z5+z6)**{k}", [], [4, 7, 9, 10]),
    ("limits z1 + z2 + (z1+..+z4)^k", "limits", "z1 + z2 + (z1+z2+z3+z4)**{k}", ["--kappa-n", "1", "--kappa-p", "3"],
     [10, 14, 18, 20]),
    ("limits rank 6", "limits", "z1 + 2*z2 + (z1-z2+z3+z4+z5+z6)**{k}", ["--kappa-n", "1", "--kappa-p", "3"],
     [6, 8, 10, 12]),
    ("laws z1 + z1 z2 + (z1+2z2+z3+z4)^k", "laws", "z1 + z1*z2 + (z1+2*z2+z3+z4)**{k}", [], [8, 12, 16]),
    ("laws He_k(He_k(z)/100)", "laws", "He{k}(He{k}(z)/100)", [], [8, 10, 12]),
    ("staircase sqrt(2) z1 + ... (exact irrational)", "staircase", "sqrt(2)*z1 + z1*z2 + (z1+z2+z3)**{k}", [],
     [4, 6, 8]),
    ("limits sqrt(2) z1 + ... (exact irrational)", "limits", "sqrt(2)*z1 + z2 + (z1+z2+z3)**{k}",
     ["--kappa-n", "1", "--kappa-p", "3"], [4, 6, 8]),
]


def run_cli(args: list[str], timeout: float = 120.0) -> tuple[object, float, float, str]:
    """``(exit code or 'timeout', CPU s, wall s, last line of stderr)`` of ``python -m flt_theory.cli ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "flt_theory.cli", *args], capture_output=True, text=True,
                              timeout=timeout, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        code, err = done.returncode, (done.stderr.strip().splitlines() or [""])[-1]
    except subprocess.TimeoutExpired:
        code, err = "timeout", ""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return code, cpu, time.perf_counter() - start, err


def command_cpu(args: list[str], timeout: float = 120.0) -> tuple[object, float, str]:
    """``(exit code, CPU s of the command alone, last line of stderr)``: imports excluded, in a fresh process."""
    code = ("import resource, sys\nfrom flt_theory.cli import main\nr = resource.getrusage(resource.RUSAGE_SELF)\n"
            "try:\n    rc = main(sys.argv[1:])\nfinally:\n    s = resource.getrusage(resource.RUSAGE_SELF)\n"
            "    sys.stderr.write('\\n@cpu %.3f\\n' % (s.ru_utime + s.ru_stime - r.ru_utime - r.ru_stime))\n"
            "sys.exit(rc)\n")
    try:
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                              cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    except subprocess.TimeoutExpired:
        return "timeout", timeout, ""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    cpu = next((float(line.split()[1]) for line in lines if line.startswith("@cpu")), float("nan"))
    err = next((line for line in reversed(lines) if not line.startswith("@cpu")), "")
    return done.returncode, cpu, err


def issue23() -> None:
    print("(d) issue 23: hostile inputs through `python -m flt_theory.cli` (fresh process, imports included)")
    for args, before in ISSUE23:
        code, cpu, wall, err = run_cli(args)
        shown = " ".join(a if len(a) < 40 else a[:37] + "..." for a in args)
        verdict = "PASS" if code in (0, 2) and wall <= 10 else "MISS"
        print(f"    exit {code}  {cpu:6.2f} s CPU  {wall:6.2f} s wall  {verdict}  flt {shown}   [before: {before}]")
        if err:
            print(f"        {err[:150]}")


def budgets() -> None:
    print(f"(e) work budgets: largest accepted input of each family, CPU s of the command (goal about {GOAL_S:.0f} s)")
    for label, command, pattern, extra, ks in BUDGET_FAMILIES:
        for k in ks:
            code, cpu, err = command_cpu([command, pattern.format(k=k), *extra])
            note = "" if code == 0 else f"  {err[:110]}"
            print(f"    {label:45s} k = {k:3d}: exit {code}, {cpu:5.2f} s{note}", flush=True)
            if code != 0:
                break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--issue23", action="store_true", help="only (d): the hostile inputs of issue 23")
    parser.add_argument("--budgets", action="store_true", help="only (e): the calibration of the work budgets")
    args = parser.parse_args()
    if args.issue23 or args.budgets:
        if args.issue23:
            issue23()
        if args.budgets:
            budgets()
        return

    print(f"python {sys.version.split()[0]}, sympy {sympy.__version__}")
    t = best_time(five_direction, args.repeats)
    verdict = "PASS" if t <= GOAL_S else "MISS"
    print(
        f"(a) staircase(f, 3) + regime_table (5 regimes), five-direction example: {t:.3f} s "
        f"(best of {args.repeats}, cold sympy cache) -> {t / GOAL_S:.2f} x the {GOAL_S:.0f} s goal: {verdict}"
    )
    t_warm = best_time(five_direction, args.repeats, cold=False)
    print(f"    same with warm sympy cache: {t_warm:.3f} s")

    t_tour = best_time(whole_tour, args.repeats)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "flt_theory.cli", "tour"], check=True, capture_output=True)
    t_cli = time.perf_counter() - start
    print(
        f"(b) everything `flt tour` computes: {t_tour:.3f} s; `python -m flt_theory.cli tour` wall time: {t_cli:.2f} s"
    )

    rng = np.random.default_rng(0)
    print("(c) exact leap complexity (greedy closure), random supports in 12 variables (seed 0):")
    for min_active, label in ((1, "1-4 active coordinates"), (3, "3-4 active coordinates, no low leaps")):
        for size in (500, 2000, 8000):
            support = random_support(size, 12, rng, min_active)
            value = leap_complexity_of_support(support)
            t_leap = best_time(lambda s=support: leap_complexity_of_support(s), args.repeats, cold=False)
            print(f"    {label:38s} |S| = {size:5d}: Leap = {value}, {t_leap * 1e3:8.1f} ms (best of {args.repeats})")


if __name__ == "__main__":
    main()
