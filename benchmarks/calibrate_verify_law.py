"""Calibration of ``flt verify --system`` (``python benchmarks/calibrate_verify_law.py [--repeats 20] [--only
SYSTEM]``).

A registered law restated through ``--law`` is checked on ``--repeats`` disjoint seed sets (seed bases 0, S, 2S,
...): the goal is at most 1 false rejection in 20 (a ``fail`` of the true law) for each of three cheap systems, as
the catalogue's calibration asks of the registered claims; an ``inconclusive`` (a goal mutant not rejected) is
counted apart, and so is each goal mutant's rejection rate. Nothing is written: every run uses an in-memory store.

Measured 2026-11-27 on the shared development machine (2 cores, load average 14): false rejections in 20 —
virtual-covariance ``residual_l1 ~ gamma**2`` 0 (goal mutants 40/40 rejected, 29 s), good-sets ``pot ~ m`` 0
(40/40, 45 s), lazy-rich ``rel_change ~ width**(-1/2)`` 1 (40/40, 189 s): within the goal; giant-step
``norm_growth ~ d`` (d = 64..512, n = 64, 8 seeds) 3 (40/40, 91 s) and ``norm_growth ~ d/n`` (the norm-law claim's
grid, 16 seeds) 3, 2 inconclusive (78/80, 264 s): over the goal, not yet explained (finite-size drift of the
exponent, or the seed bootstrap's coverage at 8-16 seeds; the registered claim uses 64).
"""

from __future__ import annotations

import argparse
import os
import time

#: (system, the restated law, over, fix, seeds): giant-step/norm-law, virtual-covariance/residual-order-summed,
#: good-sets/initial-sizes, lazy-rich/relative-change-ntk.
CASES = [
    ("giant-step", "norm_growth ~ d", {"d": [64, 128, 256, 512]}, {"n": 64}, 8),
    ("giant-step", "norm_growth ~ d/n", {"d": [128, 256, 512, 1024], "n": [8, 16, 32, 64]}, {}, 16),
    ("virtual-covariance", "residual_l1 ~ gamma**2", {"gamma": [0.001, 0.01, 0.1]}, {}, 4),
    ("good-sets", "pot ~ m", {"m": [4096, 16384]}, {}, 4),
    ("lazy-rich", "rel_change ~ width**(-1/2)", {"width": [32, 64, 128, 256]}, {}, 4),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--only", action="append", default=None, help="a system to run (repeatable)")
    parser.add_argument("--law", action="append", default=None, help="only this restated law (repeatable)")
    args = parser.parse_args()
    from flt_theory.laws_check.verify import verify_law

    for system, law, over, fix, seeds in CASES:
        if (args.only and system not in args.only) or (args.law and law not in args.law):
            continue
        start, verdicts, goal_rejected, goal_total = time.perf_counter(), [], 0, 0
        for k in range(args.repeats):
            result = verify_law(system, law, over=over, fix=fix, seeds=seeds, seed_base=k * seeds)
            verdicts.append(result["verdict"])
            goal = [c for c in result["controls"] if c["goal"]]
            goal_rejected += sum(c["rejected"] for c in goal)
            goal_total += len(goal)
        fails, undecided = verdicts.count("fail"), verdicts.count("inconclusive")
        print(f"{system}: {law!r} on {args.repeats} disjoint seed sets of {seeds}: {fails} false rejection(s) "
              f"({'PASS' if fails <= max(1, args.repeats // 20) else 'OVER GOAL'}), {undecided} inconclusive, goal "
              f"mutants rejected {goal_rejected}/{goal_total}; {time.perf_counter() - start:.0f} s, load "
              f"{os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
