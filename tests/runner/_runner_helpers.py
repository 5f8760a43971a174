"""Tiny deterministic experiments for the runner tests (importable by subprocesses and workers:
``tests/runner`` is on their ``sys.path``).

``FLT_TEST_SLEEP`` (seconds, default 0) makes each point sleep, so that a test can kill a sweep
mid-run; it is not a parameter, so it does not change the points' identity or values.
"""

import math
import os
import time

from flt_theory.runner import experiment

HERE = os.path.dirname(os.path.abspath(__file__))


@experiment("test/poly", defaults={"k": 2}, types={"x": float, "k": int})
def poly(params, seed):
    """y = x**k + seed and a seed-dependent sine (exactly reproducible)."""
    time.sleep(float(os.environ.get("FLT_TEST_SLEEP", "0")))
    x = params["x"]
    return {"y": x ** params["k"] + seed, "s": math.sin(1.7 * x + 0.3 * seed)}


@experiment("test/fails-at-3", types={"x": float})
def fails_at_3(params, seed):
    """Raises at x = 3."""
    if params["x"] == 3:
        raise RuntimeError("boom at x = 3")
    return {"y": params["x"]}


@experiment("test/bad-return")
def bad_return(params, seed):
    """Returns a string value."""
    return {"y": "not a number"}


SWEEP_SCRIPT = """
import sys
sys.path.insert(0, {here!r})
import _runner_helpers
from flt_theory.runner import sweep
df = sweep("test/poly", grid={{"x": [float(i) for i in range({n})], "k": [2, 3]}}, seeds=range({seeds}),
           store={store!r}, jobs={jobs}, progress=False)
print(len(df), df.attrs["computed"], df.attrs["reused"])
"""


@experiment("test/threads", types={"x": float})
def threads(params, seed):
    """The OpenMP/MKL thread settings of the process that ran the point (what torch reads when it loads)."""
    return {
        "omp": float(os.environ.get("OMP_NUM_THREADS", "nan")),
        "mkl": float(os.environ.get("MKL_NUM_THREADS", "nan")),
    }
