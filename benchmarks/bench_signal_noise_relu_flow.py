"""Benchmark of the ReLU flow inside the step bound (``python benchmarks/bench_signal_noise_relu_flow.py [--n 16]``).

Prints, measured in this run on this machine, for one batch of ``--seeds`` ReLU trains at ``n``, ``m = 10``,
``d = 1e6``, :math:`\\sigma_0\\sqrt d = 10^{-3}`, SNR near the boundary (Kou et al. 2023, arXiv 2303.04145):

(a) GD AT the step bound :math:`\\eta = 1/(\\sigma_\\xi^2 d)` (inside Condition 4.1; about :math:`38\\,nm` steps);
(b) the switch-aware projected flow at :math:`h = nm/16` (:func:`flt_theory.numeric.signal_noise_flow.projected_flow`,
    the ``paper`` runs of ``signal-noise/relu-boundary-*``; about 640 steps at every ``n``);
(c) GD at :math:`\\eta = nm/d` (the ``small`` runs, outside the bound; about 40 steps);

with the wall times, the ratio (a)/(b) — goal: >= nm/40 (the steps saved) — and the mean and largest final
test-error gaps of (b) and (c) to (a) — goal: (b) within 0.002 on average where (c) is off by more than 0.01.
Measured 2026-11-27 at n = 16 (8 seeds, 2 shared cores at load ~13): (a) 37.6 s, (b) 4.9 s; gaps (b) -3e-5
(largest 0.0016), (c) +0.024. The machine is shared: quote the load average printed with the numbers.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import time

from _threads import parse_with_threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=16)
    parser.add_argument("--seeds", type=int, default=8)
    args = parse_with_threads(parser)
    from flt_theory.numeric.signal_noise import SignalNoiseConfig, draw, train
    from flt_theory.numeric.signal_noise_flow import projected_flow

    n, m, d = args.n, 10, 10**6
    snr = 0.0125 * (16 / n) ** 0.25  # near the boundary SNR* ~ 0.47 (n d)^(-1/4) measured inside
    dr = draw(list(range(args.seeds)), n=n, d=d, width=m, n_test=4000, device="cpu")
    cfg = SignalNoiseConfig(q=1, mu_norm=snr * math.sqrt(d), sigma0=1e-3 / math.sqrt(d), eta=1.0 / d, eps=0.05,
                            max_steps=10**7)
    runs = {
        "(a) GD at the bound": lambda: train(dr, cfg).test_error,
        "(b) projected flow, h = nm/16": lambda: (
            projected_flow(dr, dataclasses.replace(cfg, eta=n * m / (16 * d))).test_error
        ),
        "(c) GD at nm/d (outside)": lambda: train(dr, dataclasses.replace(cfg, eta=n * m / d)).test_error,
    }
    errors, seconds = {}, {}
    for name, run in runs.items():
        start = time.perf_counter()
        errors[name] = run()
        seconds[name] = time.perf_counter() - start
        print(f"{name}: {seconds[name]:.2f} s", flush=True)
    reference = errors["(a) GD at the bound"]
    names = list(runs)
    print(f"ratio (a)/(b): {seconds[names[0]] / seconds[names[1]]:.1f} (goal >= {n * m / 40:.0f})")
    for name in names[1:]:
        gap = errors[name] - reference
        print(f"{name}: test-error gap to (a) mean {float(gap.mean()):+.5f}, largest {float(gap.abs().max()):.4f}")
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
