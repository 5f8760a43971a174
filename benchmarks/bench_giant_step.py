"""Benchmark of one giant step: the projected sampler against the dense one and both rooflines.

Run (from the repository root, one command; about a minute on 2 CPU cores)::

    python benchmarks/bench_giant_step.py [--quick | --full] [--threads T] [--device cpu|cuda]

``--threads`` (or ``$FLT_THREADS``) sets torch's CPU threads and the sampler's workers through
:func:`flt_theory.numeric.backend.configure_threads`; the count used is printed. Every table is
measured twice in the same run: on the machine as it is ("quiet", with its load average printed),
and with a concurrent CPU load (one busy Python process started by the benchmark, i.e. on "the other
core" of a 2-core machine). Times are the best of a few round-robin repeats (the least noisy estimate
on a shared machine).

What is printed, per shape (seeds, d, p, n), all measured in this run:

* ``dense``: one giant step of :func:`~flt_theory.systems.giant_step.engine.gradient_step` on the n x d
  inputs (sampling included); ``dense roof``: the dense roofline, the same GEMMs (P = X W^T,
  G += M^T X, chunk-shaped buffers) plus drawing the same n x d Gaussians;
* ``projected``: one step of the projected sampler (basis QR, n x k draws with k = p + r, the step,
  the p x d noise and L Z (I - QQ^T)); ``proj roof``: its own roofline, the GEMMs it cannot avoid
  (U [WQ; W*Q]^T, M^T U, M^T M, each on chunk buffers), the n x k + p x d draws and the p^2 d GEMM;
* goals, PASS/MISS: at p <= d/8 the projected step at least 0.5 d/(p + r) times faster than the dense
  one; the projected step at >= 0.7 of its own roofline; peak memory of the projected run flat in n
  (peak RSS at n = 2^22 within 10% + 16 MiB of n = 2^16, in a subprocess); and each path's GEMM
  throughput as a fraction of the device's own GEMM peak (a large square matmul, measured here).

The exactness of the projected sampler (same law as the dense one) is tested in
``tests/numeric/test_numeric_projected.py``; this file only times it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import torch

from flt_theory.numeric import Student, Teacher, gaussian_chunks, seeded_normal, teacher_directions
from flt_theory.numeric.backend import available_cores, configure_threads, resolve_device
from flt_theory.numeric.data import default_chunk_size
from flt_theory.symbolic.target import Target
from flt_theory.systems.giant_step.engine import giant_steps, gradient_step, projected_gradient_step, projection_basis

TARGET = Target.from_links(["z + He2(z)"])
R = TARGET.rank

SHAPES = {  # (seeds, d, p, n); the last row has p > d/8 (no speed goal, printed for the crossover)
    "quick": [(2, 512, 32, 2**14), (2, 1024, 32, 2**14), (2, 512, 256, 2**13)],
    "default": [(2, 512, 32, 2**16), (2, 1024, 32, 2**16), (2, 1024, 128, 2**15), (2, 512, 256, 2**15)],
    "full": [(4, 512, 32, 2**17), (4, 1024, 32, 2**17), (4, 2048, 64, 2**16), (4, 1024, 128, 2**16),
             (4, 512, 256, 2**16)],
}


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def best_times(fns, device: torch.device, repeats: int = 5) -> list[float]:
    """Best wall time of each function, measured round-robin (load changes hit all alike)."""
    times = [[] for _ in fns]
    for rep in range(repeats + 1):
        for fn, ts in zip(fns, times, strict=True):
            _sync(device)
            start = time.perf_counter()
            fn()
            _sync(device)
            if rep:  # the first round is a warm-up
                ts.append(time.perf_counter() - start)
    return [min(ts) for ts in times]


def gemm_peak(device: torch.device) -> float:
    """FLOP/s of a large square float32 matmul on ``device`` (its own GEMM peak)."""
    size = 4096 if device.type == "cuda" else 2048
    a = torch.randn(size, size, device=device)
    b = torch.randn(size, size, device=device)
    (t,) = best_times([lambda: a @ b], device, repeats=3)
    return 2 * size**3 / t


def shape_row(seeds: int, d: int, p: int, n: int, device: torch.device) -> dict[str, float]:
    """Times of the four contenders at one shape, and their GEMM FLOPs."""
    student = Student.init(seeds, p, d, "relu", device=device)
    teacher = Teacher(TARGET, teacher_directions(seeds, d, R, device=device))
    k = min(d, p + R)
    eta = float(p)
    chunk_d, chunk_k = default_chunk_size(seeds, d, p, device), default_chunk_size(seeds, k, p, device)

    def dense():
        chunks = gaussian_chunks(seeds, n, d, "step0", chunk_size=chunk_d, reuse_buffer=True, device=device)
        gradient_step(student, teacher, chunks, eta)

    def projected():
        q = projection_basis(student.weights, teacher.w_star)
        noise = seeded_normal(seeds, (p, d), "step0/noise", device=device)
        u = gaussian_chunks(seeds, n, k, "step0/u", chunk_size=chunk_k, reuse_buffer=True, device=device)
        projected_gradient_step(student, teacher, u, eta, basis=q, noise=noise)

    x = torch.randn(seeds, chunk_d, d, device=device)
    m = torch.randn(seeds, chunk_d, p, device=device)
    pre = torch.empty(seeds, chunk_d, p, device=device)
    grad = torch.zeros(seeds, p, d, device=device)

    def dense_roof():
        for _ in range(max(1, n // chunk_d)):
            torch.matmul(x, student.weights.transpose(1, 2), out=pre)
            grad.baddbmm_(m.transpose(1, 2), x)
        for _ in gaussian_chunks(seeds, n, d, "step0", chunk_size=chunk_d, reuse_buffer=True, device=device):
            pass

    u = torch.randn(seeds, chunk_k, k, device=device)
    coords = torch.randn(seeds, k, p + R, device=device)
    mk = torch.randn(seeds, chunk_k, p, device=device)
    pre_k = torch.empty(seeds, chunk_k, p + R, device=device)
    grad_k = torch.zeros(seeds, p, k, device=device)
    gram = torch.zeros(seeds, p, p, device=device)
    factor, perp = torch.randn(seeds, p, p, device=device), torch.randn(seeds, p, d, device=device)

    def projected_roof():
        for _ in range(max(1, n // chunk_k)):
            torch.matmul(u, coords, out=pre_k)
            grad_k.baddbmm_(mk.transpose(1, 2), u)
            gram.baddbmm_(mk.transpose(1, 2), mk)
        for _ in gaussian_chunks(seeds, n, k, "step0/u", chunk_size=chunk_k, reuse_buffer=True, device=device):
            pass
        seeded_normal(seeds, (p, d), "step0/noise", device=device)
        torch.bmm(factor, perp)

    t = best_times([dense, dense_roof, projected, projected_roof], device)
    return {
        "dense": t[0], "dense_roof": t[1], "projected": t[2], "projected_roof": t[3],
        "dense_flops": 4.0 * seeds * n * d * p,
        "projected_flops": 2.0 * seeds * n * (k * (p + R) + 2 * k * p + p * p) + 2.0 * seeds * p * p * d,
    }


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def table(shapes, device: torch.device, peak: float, label: str) -> list[bool]:
    print(f"  [{label}] load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"  {'seeds':>5} {'d':>5} {'p':>4} {'n':>7} | {'dense':>8} {'dense roof':>10} {'projected':>9} "
          f"{'proj roof':>9} |"
          f" {'speed-up':>8} {'goal':>6} {'proj/roof':>9} {'dense/roof':>10} | GEMM % of peak (dense, proj)")
    results = []
    for seeds, d, p, n in shapes:
        row = shape_row(seeds, d, p, n, device)
        speedup = row["dense"] / row["projected"]
        goal = 0.5 * d / (p + R)
        at_roof = row["projected_roof"] / row["projected"]
        marks = ""
        if 8 * p <= d:
            marks = f"speed-up {verdict(speedup >= goal)}, roofline {verdict(at_roof >= 0.7)}"
            results += [speedup >= goal, at_roof >= 0.7]
        else:
            marks = f"(p > d/8: no speed goal) roofline {verdict(at_roof >= 0.7)}"
            results.append(at_roof >= 0.7)
        print(
            f"  {seeds:>5} {d:>5} {p:>4} {n:>7} | {row['dense']:8.4f} {row['dense_roof']:10.4f} {row['projected']:9.4f}"
            f" {row['projected_roof']:9.4f} | {speedup:7.1f}x {goal:5.1f}x {at_roof:9.2f}"
            f" {row['dense_roof'] / row['dense']:10.2f} |"
            f" {100 * row['dense_flops'] / row['dense'] / peak:5.1f}%"
            f" {100 * row['projected_flops'] / row['projected'] / peak:5.1f}%  {marks}"
        )
    return results


def _memory_kib(field: str) -> int:
    """``VmRSS`` (now) or ``VmHWM`` (peak) of this process in KiB, from /proc (Linux)."""
    with open("/proc/self/status") as status:
        return int(next(line for line in status if line.startswith(field + ":")).split()[1])


def rss_child(n: int, d: int, p: int, device: str) -> None:
    before = _memory_kib("VmRSS")
    giant_steps(TARGET, d=d, p=p, n=n, steps=1, eta=float(p), seeds=1, ridge=None, device=device, method="projected")
    print(f"{before} {_memory_kib('VmHWM')}")


def memory_flat(d: int, p: int, device: torch.device) -> bool:
    peaks = {}
    for n in (2**16, 2**22):
        out = subprocess.run(
            [sys.executable, __file__, "--rss-child", str(n), str(d), str(p), "--device", str(device)],
            check=True, capture_output=True, text=True,
        ).stdout.split()
        peaks[n] = int(out[1]) / 1024
    ok = peaks[2**22] <= 1.1 * peaks[2**16] + 16
    print(
        f"  peak RSS of a projected run (d={d}, p={p}, subprocess): n=2^16 {peaks[2**16]:.0f} MiB, "
        f"n=2^22 {peaks[2**22]:.0f} MiB => memory flat in n: {verdict(ok)}"
    )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small sizes, seconds")
    mode.add_argument("--full", action="store_true", help="larger sizes (minutes on 2 cores)")
    mode.add_argument("--rss-child", nargs=3, type=int, metavar=("N", "D", "P"), help=argparse.SUPPRESS)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch CPU threads (default: $FLT_THREADS or torch's)")
    parser.add_argument("--no-load", action="store_true", help="skip the run under a concurrent CPU load")
    args = parser.parse_args()
    threads = configure_threads(args.threads)
    if args.rss_child:
        return rss_child(*args.rss_child, args.device)
    shapes = SHAPES["quick" if args.quick else "full" if args.full else "default"]
    device = resolve_device(args.device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"{available_cores()} CPU cores"
    peak = gemm_peak(device)
    print(
        f"torch {torch.__version__}, device {device} ({name}), {threads} torch thread(s) and {threads} sampler "
        "worker(s); "
        f"GEMM peak {peak / 1e9:.0f} GFLOP/s (float32)"
    )
    start = time.perf_counter()
    print("one giant step, seconds (best of 5); speed-up = dense / projected, goal 0.5 d/(p + r) at p <= d/8:")
    results = table(shapes, device, peak, "quiet")
    if not args.no_load:
        load = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            time.sleep(0.5)
            results += table(shapes, device, peak, "with one busy CPU process alongside")
        finally:
            load.kill()
            load.wait()
    results.append(memory_flat(512, 32, device))
    print(f"goals: {sum(results)} PASS, {len(results) - sum(results)} MISS; total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
