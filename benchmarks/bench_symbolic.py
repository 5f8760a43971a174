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
    on random supports of up to 8000 multi-indices in 12 variables (seeded, reproducible).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
import sympy

from flt_theory.cli import TOUR_REGIMES, TOUR_STAIRCASES, TOUR_TARGET
from flt_theory.symbolic import Target, leap_complexity_of_support, monomial_to_hermite, regime_table, staircase

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs (default 3)")
    args = parser.parse_args()

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
