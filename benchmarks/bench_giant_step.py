"""Benchmark of the giant-step simulator (``python benchmarks/bench_giant_step.py [--quick | --full]``).

Prints, all measured in this run:

(a) one giant step (Gaussian sampling included) against plain batched matmuls of the same shapes and
    FLOP count (:math:`4\\,S n d p`: ``P = X W^T`` and ``G += M^T X``) — % of the GEMM roofline (goal >= 70%);
(b) peak RSS of a subprocess running one giant step with n = 10^7 samples at d = 512 (goal < 2 GB);
(c) speed-up over a naive per-seed autograd loop (``loss.backward()`` per seed on the materialised
    batch) that produces the same W^1 (goal >= 3x).

Default sizes run in well under two minutes on 2 CPU cores; ``--quick`` is smaller, ``--full`` uses
the issue's sizes. Times are the best of a few repeats (the minimum is the least noisy estimate on a
shared machine). Runs on CUDA unchanged (``--device cuda``).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

import torch

from flt_theory.numeric import Student, Teacher, gaussian_chunks, giant_steps, gradient_step, teacher_directions
from flt_theory.numeric.backend import resolve_device
from flt_theory.numeric.data import default_chunk_size
from flt_theory.symbolic.target import Target

TARGET = Target.from_links(["z + He2(z)"])

SIZES = {  # (a): seeds, d, p, n | (b): n, d, p | (c): list of (seeds, d, p, n)
    "quick": dict(roof=(2, 256, 256, 2**14), rss=(10**6, 512, 8), naive=[(16, 64, 64, 1024), (2, 256, 256, 2**14)]),
    "default": dict(roof=(2, 512, 256, 2**16), rss=(10**7, 512, 8), naive=[(16, 64, 64, 1024), (4, 256, 256, 2**14)]),
    "full": dict(roof=(4, 512, 512, 2**18), rss=(10**7, 512, 256), naive=[(32, 64, 64, 1024), (8, 256, 256, 2**16)]),
}


def best_times(*fns, repeats: int = 7) -> list[float]:
    """Best wall time of each function, measured round-robin (so that load changes hit all alike)."""
    times = [[] for _ in fns]
    for rep in range(repeats + 1):
        for fn, ts in zip(fns, times):
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            start = time.perf_counter()
            fn()
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            if rep:  # the first round is a warm-up
                ts.append(time.perf_counter() - start)
    return [min(ts) for ts in times]


def setup(seeds: int, d: int, p: int, device: torch.device) -> tuple[Student, Teacher]:
    return (
        Student.init(seeds, p, d, "relu", device=device),
        Teacher(TARGET, teacher_directions(seeds, d, TARGET.rank, device=device)),
    )


def roofline(seeds: int, d: int, p: int, n: int, device: torch.device) -> None:
    student, teacher = setup(seeds, d, p, device)
    chunk = default_chunk_size(seeds, d, p, device)
    flops = 4 * seeds * n * d * p

    def data():
        return gaussian_chunks(seeds, n, d, "step0", chunk_size=chunk, reuse_buffer=True, device=device)

    def step():
        gradient_step(student, teacher, data(), float(p))

    def sampling():
        for _ in data():
            pass

    x = torch.randn(seeds, chunk, d, device=device)
    m = torch.randn(seeds, chunk, p, device=device)
    pre = torch.empty(seeds, chunk, p, device=device)
    grad = torch.zeros(seeds, p, d, device=device)

    def gemm():
        for _ in range(n // chunk):
            torch.matmul(x, student.weights.transpose(1, 2), out=pre)
            grad.baddbmm_(m.transpose(1, 2), x)

    t_step, t_gemm, t_rng = best_times(step, gemm, sampling)
    print(f"(a) one giant step, seeds={seeds} d={d} p={p} n={n} (chunks of {chunk}) on {device}:")
    print(f"    giant step (sampling included) {t_step:8.3f} s  {flops / t_step / 1e9:7.1f} GFLOP/s")
    print(f"    plain matmuls, same FLOPs      {t_gemm:8.3f} s  {flops / t_gemm / 1e9:7.1f} GFLOP/s")
    print(f"    of which Gaussian sampling     {t_rng:8.3f} s")
    print(f"    => {t_gemm / t_step:.0%} of the GEMM roofline (goal >= 70%)")


def _memory_kib(field: str) -> int:
    """``VmRSS`` (now) or ``VmHWM`` (peak) of this process in KiB, from /proc (Linux); elsewhere
    ``ru_maxrss`` (on Linux that one would include the parent's peak from before ``exec``)."""
    try:
        with open("/proc/self/status") as status:
            return int(next(line for line in status if line.startswith(field + ":")).split()[1])
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // (1 if sys.platform != "darwin" else 1024)


def rss_child(n: int, d: int, p: int) -> None:
    before = _memory_kib("VmRSS")
    start = time.perf_counter()
    giant_steps(TARGET, d=d, p=p, n=n, steps=1, eta=float(p), seeds=1, ridge=None, device="auto")
    print(f"{before} {_memory_kib('VmHWM')} {time.perf_counter() - start}")


def peak_rss(n: int, d: int, p: int) -> None:
    out = subprocess.run(
        [sys.executable, __file__, "--rss-child", str(n), str(d), str(p)], check=True, capture_output=True, text=True
    ).stdout.split()
    before, peak, elapsed = int(out[0]) / 1024, int(out[1]) / 1024, float(out[2])
    print(
        f"(b) one giant step with n={n:.0e} samples, d={d}, p={p} (subprocess, {elapsed:.1f} s; X alone would be "
        f"{n * d * 4 / 2**30:.1f} GiB):"
    )
    verdict = "met" if peak * 2**20 < 2e9 else "MISSED"
    print(f"    peak RSS of the process {peak:7.0f} MiB (after imports {before:.0f} MiB) => goal < 2 GB: {verdict}")


def naive_step(student: Student, teacher: Teacher, seeds: int, n: int, eta: float) -> torch.Tensor:
    """Per-seed loop, whole batch materialised, gradient by autograd: the straightforward way."""
    out = []
    for s in range(seeds):
        x = torch.cat(
            list(gaussian_chunks([s], n, student.weights.shape[-1], "step0", device=student.weights.device)), 1
        )[0]
        w = student.weights[s].clone().requires_grad_()
        y = Teacher(teacher.target, teacher.w_star[s : s + 1])(x[None])[0]
        f_hat = student.activation(x @ w.T) @ student.a[s] / student.p
        loss = 0.5 * ((y - f_hat) ** 2).mean()
        loss.backward()
        out.append((w - eta * w.grad).detach())
    return torch.stack(out)


def versus_naive(seeds: int, d: int, p: int, n: int, device: torch.device) -> None:
    student, teacher = setup(seeds, d, p, device)
    eta = float(p)
    batched = gradient_step(student, teacher, gaussian_chunks(seeds, n, d, "step0", device=device), eta)[0]
    naive = naive_step(student, teacher, seeds, n, eta)
    error = float((batched - naive).abs().max() / naive.abs().max())
    t_batched, t_naive = best_times(
        lambda: gradient_step(
            student, teacher, gaussian_chunks(seeds, n, d, "step0", reuse_buffer=True, device=device), eta
        ),
        lambda: naive_step(student, teacher, seeds, n, eta),
        repeats=5,
    )
    print(
        f"    seeds={seeds:2d} d={d} p={p} n={n}: batched {t_batched:7.3f} s, naive {t_naive:7.3f} s => "
        f"{t_naive / t_batched:4.1f}x (max rel. difference of W^1 {error:.1e})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    mode.add_argument("--full", action="store_true", help="the issue's sizes (minutes on 2 cores)")
    mode.add_argument("--rss-child", nargs=3, type=int, metavar=("N", "D", "P"), help=argparse.SUPPRESS)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.rss_child:
        return rss_child(*args.rss_child)
    sizes = SIZES["quick" if args.quick else "full" if args.full else "default"]
    device = resolve_device(args.device)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads on {os.cpu_count()} cores (load average {load}), device {device}"
    )
    start = time.perf_counter()
    roofline(*sizes["roof"], device)
    peak_rss(*sizes["rss"])
    print("(c) batched closed form vs naive per-seed autograd loop (goal >= 3x):")
    for case in sizes["naive"]:
        versus_naive(*case, device)
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
