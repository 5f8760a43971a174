"""The width ladder of example (d) (``giant-step/staircase-d``): the claim is checked at every width and its ladder
reads :math:`d\\,\\lambda_{\\min}` of span(w2, w3) per width, on hand-built second moments (no simulation)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from flt_theory.systems.giant_step.comparisons import (
    compare_staircase,
    compare_staircase_at_every_width,
    plane_ladder,
    width_ladder,
)
from flt_theory.systems.giant_step.declaration import SYSTEM

D = 128
#: The law of giant-step/staircase-d (its system's declaration alone: no catalogue of every system is built).
LAW = next(c for c in SYSTEM.claims if c.name == "staircase-d").the_law


def _rows(p: int, plane: tuple[float, float], seeds: int = 4) -> list[dict]:
    """Second moments after steps 1 and 2 (w*-coordinates): w1 learned at step 1; at step 2 w1 and the plane's two
    directions carry ``plane`` (a diagonal moment: the least direction is the smaller entry)."""
    rows = []
    for seed in range(seeds):
        jitter = 1.0 + 0.01 * seed
        m1 = np.diag([0.5, 1 / D, 1 / D]) * jitter
        m2 = np.diag([0.4, plane[0], plane[1]]) * jitter
        row = {"d": D, "p": p, "seed": seed}
        for t, m in ((1, m1), (2, m2)):
            row.update({f"m{t}_{a}{b}": float(m[a, b]) for a in range(3) for b in range(3)})
        rows.append(row)
    return rows


def test_one_width_is_the_staircase_comparison_itself():
    frame = pd.DataFrame(_rows(64, (0.3, 0.5 / D)))
    assert compare_staircase_at_every_width(frame, LAW) == compare_staircase(frame, LAW)


def test_every_width_is_checked_and_a_failing_width_is_named():
    good = pd.DataFrame(_rows(16, (0.3, 0.5 / D)) + _rows(64, (0.3, 0.5 / D)))
    result = compare_staircase_at_every_width(good, LAW)
    assert result.passed and "all 2 parts PASS" in result.message
    bad = pd.DataFrame(_rows(16, (0.3, 0.5 / D)) + _rows(64, (1 / D, 0.5 / D)))  # nothing new learned at p = 64
    result = compare_staircase_at_every_width(bad, LAW)
    assert not result.passed and "p = 64: staircase: FAIL" in result.message and "p = 16" not in result.message


def test_width_ladder_reads_the_least_plane_direction_per_width():
    frame = pd.DataFrame(_rows(16, (0.3, 0.5 / D)) + _rows(256, (0.3, 2.0 / D)))
    rungs = width_ladder(frame)
    assert [r["size"] for r in rungs] == [{"p": 16}, {"p": 256}]
    expected = [0.5 * np.mean([1.0 + 0.01 * s for s in range(4)]), 2.0 * np.mean([1.0 + 0.01 * s for s in range(4)])]
    assert np.allclose([r["estimate"] for r in rungs], expected)
    assert all(r["ci"][0] <= r["estimate"] <= r["ci"][1] and r["predicted"] == 1.0 and r["literal"] == 10.0
               for r in rungs)
    # the same quantity as the d ladder of staircase-d-one-new-direction, read along p
    assert plane_ladder(frame[frame["p"] == 16])[0]["estimate"] == rungs[0]["estimate"]
