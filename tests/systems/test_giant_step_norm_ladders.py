"""The norm law's grid read as two ladders (``norm_ladders``) and its decision in the limit (``compare_norm_law``), on
synthetic grids y = C d^a n^b (1 + A n/d) with seed noise: no simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from flt_theory.errors import InvalidParameterError
from flt_theory.systems import get_claim
from flt_theory.systems.giant_step.comparisons import NORM_LIMIT_RUNGS, compare_norm_law, norm_ladders


def _grid(ds, ns, seeds=48, a=1.0, b=-1.0, correction=0.5, noise=0.05, rng=0):
    draw = np.random.default_rng(rng)
    rows = [{"d": d, "n": n, "seed": s, "norm_growth": d**a * n**b * (1 + correction * n / d)
             * float(np.exp(noise * draw.standard_normal()))} for d in ds for n in ns for s in range(seeds)]
    return pd.DataFrame(rows)


DS, NS = (256, 512, 1024, 2048, 4096), (8, 16, 32, 64, 128)


def test_each_ladder_is_the_mean_over_the_other_size_seed_by_seed():
    frame = _grid(DS, NS, noise=0.0, correction=0.0)
    (ds, y_d), (ns, y_n) = norm_ladders(frame)
    assert ds.tolist() == list(DS) and ns.tolist() == list(NS) and y_d.shape == (48, 5) and y_n.shape == (48, 5)
    assert np.allclose(y_d[0], np.array(DS) * np.mean(1 / np.array(NS)))  # exactly ∝ d
    assert np.allclose(y_n[0], np.mean(DS) / np.array(NS))  # exactly ∝ 1/n


def test_a_missing_point_is_refused_naming_it_and_a_seed_missing_somewhere_is_left_out():
    frame = _grid(DS, NS)
    with pytest.raises(InvalidParameterError, match=r"lacks the points \(d, n\) = \(256, 8\):"):
        norm_ladders(frame[~((frame.d == 256) & (frame.n == 8))])
    (_, y_d), _ = norm_ladders(frame[~((frame.d == 512) & (frame.n == 16) & (frame.seed == 3))])
    assert y_d.shape == (47, 5)
    # a whole value of d measured by no seed is refused too, not dropped from the grid in silence
    lost = frame.assign(norm_growth=np.where(frame.d == 256, np.nan, frame.norm_growth))
    with pytest.raises(InvalidParameterError, match=r"no seed measured at every point: \(d, n\) = \(256, 8\)"):
        norm_ladders(lost)


def test_the_law_passes_in_the_limit_and_wrong_exponents_fail():
    """A true law whose finite-size correction (1 + n/(2d)) tilts the one fit passes in the limit on a 5 x 5 grid; an
    exponent of n off by one, or of d off by a half, fails; a 4 x 4 grid keeps the one fit."""
    law = get_claim("giant-step/norm-law").the_law
    frame = _grid(DS, NS)
    assert len(DS) >= NORM_LIMIT_RUNGS and compare_norm_law(frame, law).passed
    assert "in the limit" in compare_norm_law(frame, law).message
    wrong_n = get_claim("giant-step/norm-law").the_wrong_law  # (1, -2)
    assert not compare_norm_law(frame, wrong_n).passed
    assert not compare_norm_law(_grid(DS, NS, a=1.5), law).passed
    assert "one fit" in compare_norm_law(_grid(DS[:4], NS[:4]), law).message
