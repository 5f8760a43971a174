"""The five most expensive paper-scale claims of good-sets, signal-noise-optimizers, one-step-ba and giant-step:
time and peak memory of a stated fraction of one paper point, with the code at a git revision (default ``HEAD``)
and with the working tree, in the same run.

Run (from the repository root)::

    python benchmarks/bench_paper_claims.py [--before REV | --before DIR] [--repeats R] [--only NAME ...]

Each measurement is one fresh interpreter (``python -c``) with one torch thread (``FLT_THREADS=1``) that imports
``flt_theory`` from the tree under test: the working tree, or the "before" code — ``git archive REV`` unpacked in
a temporary folder, or a folder DIR holding a ``flt_theory`` package (e.g. a copy of the working tree with only the
change under test reverted, when other uncommitted changes must not count)
and runs the claim's experiment on the stated point through the runner's ``Experiment.run_seeds``. It prints the
wall and CPU seconds of that call, the process's peak resident memory (``getrusage``; it includes the ~0.3 GB of
the imports) and a hash of the rows: the rows of both trees must be identical (the speed-ups here do not change
a number). Before and after alternate (round robin, ``--repeats`` rounds, the best time kept): a shared machine's
load hits both alike, and the load average is printed with the table. The ratio before/after measured in the
same run is the number to read; the absolute seconds scale with the load.

The fractions (a full paper point takes minutes to hours on one loaded core): the per-step work of the
good-sets and optimizer points is constant, so a few steps give the per-step ratio; one-step-ba's speed-up comes
from the second and later points of a step-size grid (the step-size-free part is computed once per grid), so
it times two consecutive points of the grid in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: name -> (what the fraction is, experiment, list of points run one after the other in one process, seeds)
CASES = {
    "good-sets/no-exit": (
        "paper point d = 128 (m = 512, n = 4096, 16 seeds), 5 of its 800 steps",
        "good-sets/early-phase",
        [{"d": 128, "m": 512, "n": 4096, "steps": 5, "lr_ratio": 30.0}],
        16,
    ),
    "signal-noise-optimizers (Zou et al.'s shared GD point)": (
        "paper GD point (n = 200, d = 1e6, s = 20, m = 10), 16 of 64 seeds, 40 of 3000 steps",
        "optimizers/run",
        [
            {
                "n": 200,
                "d": 10**6,
                "width": 10,
                "activation": "relu(z)**3",
                "sparsity": 20,
                "mu_norm": 1.0,
                "sigma_xi": 0.3,
                "sigma0": 0.05,
                "feature_noise": 0.2,
                "eps": 0.05,
                "n_test": 2000,
                "optimizer": "gd",
                "eta": 5.0,
                "max_steps": 40,
                "samples": 2,
            }
        ],
        16,
    ),
    "one-step-ba/no-gain-small-psi": (
        "two consecutive points of the step-size grid (eta~ = 4, 8) at d = 512, psi = 2, n_test = 16384, 4 of 8 seeds",
        "one-step-ba/risk",
        [{"d": 512, "psi": 2.0, "eta_tilde": eta, "n_test": 16384} for eta in (4.0, 8.0)],
        4,
    ),
    "giant-step/leap2-threshold": (
        "d = 1024, kappa = 1.5 (n = 32768 of the paper's largest 5.9e6), 24 seeds",
        "giant-step/one-step-mass",
        [{"target": "He2(z)", "d": 1024, "kappa": 1.5, "p": 64, "activation": "relu"}],
        24,
    ),
    "giant-step/vanishing-student-coefficient": (
        "d = 1024, kappa = 1.5 (n = 32768 of the paper's 5.9e6), tanh student, 24 seeds",
        "giant-step/one-step-mass",
        [{"target": "He2(z)", "d": 1024, "kappa": 1.5, "p": 64, "activation": "tanh"}],
        24,
    ),
}

CHILD = r"""
import hashlib, json, resource, sys, time
import torch
from flt_theory.runner.registry import get_experiment
import flt_theory.systems  # registers the experiments
from flt_theory.systems.registry import get_system
name, points, seeds = json.loads(sys.argv[1])
exp = get_experiment(name)
start, cpu = time.perf_counter(), time.process_time()
rows = [exp.run_seeds(p, list(range(seeds))) for p in points]
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
digest = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:16]
print(json.dumps({"wall": wall, "cpu": cpu, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "rows": digest, "threads": torch.get_num_threads()}))
"""


def unpack(rev: str, into: Path) -> Path:
    """``flt_theory`` of ``rev`` (``git archive``), unpacked under ``into``; the folder to put on PYTHONPATH."""
    archive = subprocess.run(["git", "archive", rev, "flt_theory"], cwd=ROOT, check=True, capture_output=True).stdout
    path = into / "tree"
    path.mkdir()
    tar = path / "flt_theory.tar"
    tar.write_bytes(archive)
    with tarfile.open(tar) as t:
        t.extractall(path, filter="data")
    return path


def measure(tree: Path, experiment: str, points: list, seeds: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "FLT_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps([experiment, points, seeds])], env=env, cwd=tree,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="HEAD",
                        help="git revision of the 'before' code, or a folder holding a flt_theory package (default "
                             "HEAD)")
    parser.add_argument("--repeats", type=int, default=1, help="round-robin rounds, best time kept (default 1)")
    parser.add_argument("--only", nargs="*", default=None, help="case names (substrings) to run")
    args = parser.parse_args()
    cases = {k: v for k, v in CASES.items() if not args.only or any(o in k for o in args.only)}
    print(f"load average at start: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} "
          f"({os.cpu_count()} cores)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.before)
        before = folder if (folder / "flt_theory").is_dir() else unpack(args.before, Path(tmp))
        print(f"before: {before if before == folder else args.before}; after: the working tree {ROOT}", flush=True)
        trees = {"before": before, "after": ROOT}
        results = []
        for name, (fraction, experiment, points, seeds) in cases.items():
            best = {}
            for _ in range(args.repeats):
                for label, tree in trees.items():
                    run = measure(tree, experiment, points, seeds)
                    if label not in best or run["wall"] < best[label]["wall"]:
                        best[label] = run
            b, a = best["before"], best["after"]
            results.append((name, fraction, b, a))
            print(
                f"{name}\n  {fraction}\n  before {b['wall']:8.2f} s wall {b['cpu']:8.2f} s CPU  peak "
                f"{b['rss'] / 2**20:7.0f} MiB\n  after  {a['wall']:8.2f} s wall {a['cpu']:8.2f} s CPU  peak "
                f"{a['rss'] / 2**20:7.0f} MiB\n  ratio before/after: {b['wall'] / a['wall']:.2f} (wall), "
                f"{b['cpu'] / a['cpu']:.2f} (CPU); same rows: {'yes' if a['rows'] == b['rows'] else 'NO'}",
                flush=True,
            )
    print(f"load average at end: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    if any(a["rows"] != b["rows"] for _, _, b, a in results):
        sys.exit("the rows differ between the two trees")


if __name__ == "__main__":
    main()
