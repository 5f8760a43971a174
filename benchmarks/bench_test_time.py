"""Where the default test run's time goes (``python benchmarks/bench_test_time.py [PYTEST_ARGS...]``).

Runs the README's test command (``python -m pytest -q``, PYTEST_ARGS appended, e.g. ``-n 0`` or a path) once, with a
small timeline plugin loaded in every process (written to a temporary folder and named with ``-p``), and prints,
measured in this run:

* the wall time against the goal, 180 s on 2 cores (the default run under 3 minutes), with the load average before
  and after (the machine may be shared: quote the load with the numbers; runs of the same code vary by ±15 s);
* per process that ran tests (each ``pytest-xdist`` worker): when its collection ended, the time inside tests, the
  time from its last test to its exit, and its full collections of the cyclic garbage collector (count and seconds,
  from :data:`gc.callbacks`; ``conftest.py`` freezes what collection leaves alive so that they do not walk it again);
* the share of the time inside tests spent in the claims' small-scale measurements (the contract test that first
  measures each of them, ``tests/test_systems_contract.py::test_seeds_are_honoured_and_reproduced``), and the
  slowest tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_SECONDS = 180.0
#: The test that first measures each claim at small scale (the others reuse the session's stored rows).
MEASURING_TEST = "tests/test_systems_contract.py::test_seeds_are_honoured_and_reproduced"

PLUGIN = '''
import atexit, gc, json, os, time
_DIR, _NAME = os.environ["FLT_BENCH_TIMELINE_DIR"], os.environ.get("PYTEST_XDIST_WORKER", "main")
_EVENTS = {"start": time.time(), "tests": [], "gc_count": 0, "gc_seconds": 0.0}
_OPEN, _GC = {}, [0.0]


def _on_gc(phase, info):
    if info["generation"] == 2:
        if phase == "start":
            _GC[0] = time.perf_counter()
        else:
            _EVENTS["gc_count"] += 1
            _EVENTS["gc_seconds"] += time.perf_counter() - _GC[0]


gc.callbacks.append(_on_gc)


def pytest_collection_finish(session):
    _EVENTS["collected"] = time.time()


def pytest_runtest_logstart(nodeid, location):
    _OPEN[nodeid] = time.time()


def pytest_runtest_logfinish(nodeid, location):
    _EVENTS["tests"].append((nodeid, _OPEN.pop(nodeid, time.time()), time.time()))


@atexit.register
def _dump():
    _EVENTS["exit"] = time.time()
    with open(os.path.join(_DIR, _NAME + ".json"), "w", encoding="utf-8") as out:
        json.dump(_EVENTS, out)
'''


def command(pytest_args: list[str]) -> list[str]:
    """The test command run: the README's, with the timeline plugin and without pytest's cache folder (the run writes
    only into its temporary folder)."""
    return [sys.executable, "-m", "pytest", "-q", "-p", "flt_bench_timeline", "-p", "no:cacheprovider", *pytest_args]


def run(pytest_args: list[str], folder: Path) -> tuple[float, str, float]:
    """Run :func:`command` with the plugin: its wall time, its last line of output and when it began."""
    (folder / "flt_bench_timeline.py").write_text(PLUGIN, encoding="utf-8")
    env = {**os.environ, "FLT_BENCH_TIMELINE_DIR": str(folder),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))}
    began = time.time()
    done = subprocess.run(command(pytest_args), capture_output=True, text=True, env=env,
                          cwd=Path(__file__).resolve().parent.parent)
    wall = time.time() - began
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    return wall, last, began


def report(folder: Path, began: float, top: int) -> list[str]:
    """Lines: per process that ran tests, its timeline; the measurements' share; the ``top`` slowest tests."""
    processes = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}
    workers = {name: e for name, e in processes.items() if name != "main"} or processes  # -n 0: the main process
    lines = [f"  {'process':8}  {'collected':>9}  {'in tests':>9}  {'after last test':>15}  gc full collections"]
    durations: list[tuple[float, str]] = []
    for name, events in workers.items():
        tests = events["tests"]
        inside = sum(end - start for _, start, end in tests)
        last = max((end for _, _, end in tests), default=events["exit"])
        lines.append(f"  {name:8}  {events.get('collected', began) - began:>8.1f}s  {inside:>8.1f}s  "
                     f"{events['exit'] - last:>14.1f}s  {events['gc_count']} in {events['gc_seconds']:.1f} s")
        durations += [(end - start, nodeid) for nodeid, start, end in tests]
    total = sum(d for d, _ in durations)
    measuring = sum(d for d, nodeid in durations if nodeid.startswith(MEASURING_TEST))
    lines.append(f"  claims' small-scale measurements ({MEASURING_TEST}): {measuring:.1f} s of {total:.1f} s inside "
                 f"tests ({measuring / total:.2f})" if total else "  no test ran")
    lines.append(f"  slowest {top} tests:")
    lines += [f"    {d:6.2f} s  {nodeid}" for d, nodeid in sorted(durations, reverse=True)[:top]]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=10, help="How many of the slowest tests to list (default 10).")
    args, pytest_args = parser.parse_known_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="flt-bench-test-time-") as tmp:
        wall, last, began = run(pytest_args, Path(tmp))
        lines = report(Path(tmp), began, args.top)
    cores = os.cpu_count()
    # the goal is stated for 2 cores: elsewhere the wall time is shown, not judged against it
    verdict = ("PASS" if wall <= GOAL_SECONDS else "MISS") if cores == 2 else f"not judged on {cores} cores"
    print(f"default test run: {' '.join(['python', *command(pytest_args)[1:]])}"
          + f"  ({cores} cores, load {load:.2f} -> {os.getloadavg()[0]:.2f})")
    print(f"  wall {wall:.1f} s vs goal {GOAL_SECONDS:g} s on 2 cores: {verdict}   ({last})")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
