"""A sweep killed with SIGKILL mid-run and restarted loses no point, duplicates none, and ends
with the same table as an uninterrupted run."""

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from _runner_helpers import HERE, SWEEP_SCRIPT

from flt_theory.runner import load_results, sweep

N, SEEDS = 8, 3  # 8 x-values × k in {2, 3} × 3 seeds = 48 points


def _rows(path) -> int:
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            return conn.execute("SELECT COUNT(*) FROM flt_results").fetchone()[0]
    except sqlite3.Error:
        return 0


def _command(store, jobs=1):
    return [sys.executable, "-c", SWEEP_SCRIPT.format(here=HERE, n=N, seeds=SEEDS, store=str(store), jobs=jobs)]


def _children(pid: int) -> set[int]:
    """Pids whose parent is ``pid`` (Linux /proc; empty elsewhere)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")
@pytest.mark.parametrize("jobs", [1, 2], ids=["in-process", "process-pool"])
def test_sigkill_mid_sweep_then_restart(tmp_path, jobs):
    store = tmp_path / "results.sqlite"
    env = {**os.environ, "FLT_TEST_SLEEP": "0.04", "CI": "true"}
    log = tmp_path / "stderr.txt"
    with (
        open(log, "wb") as err,
        subprocess.Popen(_command(store, jobs), env=env, stdout=subprocess.DEVNULL, stderr=err) as proc,
    ):
        deadline = time.monotonic() + 60
        while _rows(store) < 10 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        workers = _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, log.read_text()
    if jobs > 1 and Path("/proc").is_dir():  # orphaned pool workers notice and exit
        assert workers
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers)
    killed_at = _rows(store)
    assert 10 <= killed_at < 2 * N * SEEDS
    before = load_results(store)

    done = subprocess.run(
        _command(store), env={**env, "FLT_TEST_SLEEP": "0"}, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    total, computed, reused = map(int, done.stdout.split())
    assert (total, reused, computed) == (2 * N * SEEDS, killed_at, 2 * N * SEEDS - killed_at)

    after = load_results(store, provenance=True)
    assert len(after) == 2 * N * SEEDS and after.id.is_unique
    # the rows completed before the kill are unchanged
    merged = before.merge(after[before.columns], how="left", indicator=True)
    assert (merged["_merge"] == "both").all()
    uninterrupted = sweep(
        "test/poly", {"x": [float(i) for i in range(N)], "k": [2, 3]}, seeds=range(SEEDS), progress=False
    )
    columns = ["x", "k", "seed", "y", "s"]
    pd.testing.assert_frame_equal(
        after[columns].sort_values(columns[:3]).reset_index(drop=True),
        uninterrupted[columns].sort_values(columns[:3]).reset_index(drop=True),
    )
