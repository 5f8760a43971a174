"""The online-SGD multi-index claims: the laws derived from the symbolic layer (leap closure, plateau law), the
comparisons on synthetic measurements (each law passes its own data and its control fails), and the two-layer
simulation's seed contract and errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from flt_theory.errors import InvalidParameterError
from flt_theory.symbolic import Target, staircase
from flt_theory.systems import get_claim
from flt_theory.systems.online_sgd.leap_claims import (
    _wrong_plateau,
    compare_order,
    compare_plateau,
    compare_plateau_slope,
    plateau_slopes,
)
from flt_theory.systems.online_sgd.leap_laws import learning_stages, plateau_law, stage_leaps
from flt_theory.systems.online_sgd.multi_index import two_layer_online_sgd

LEAP1, LEAP2 = "z1 + z1*z2 + z1*z2*z3", "z1 + z1*z2*z3"


def test_learning_stages_agree_with_the_staircase_on_leap_one_targets():
    """On a leap-1 target the leap closure is the symbolic staircase U_1 ⊂ U_2 ⊂ U_3 (new direction per step)."""
    ladder = staircase(Target.parse(LEAP1), 3)
    assert [u.dim for u in ladder] == [1, 2, 3]
    stages = learning_stages(LEAP1)
    for t, u in enumerate(ladder):
        learned = [k for stage in stages[: t + 1] for k in stage]
        assert np.allclose(np.abs(u.numpy()).sum(0)[learned], 1) and u.dim == len(learned)
    assert learning_stages(LEAP1) == ((0,), (1,), (2,)) and stage_leaps(LEAP1) == (1, 1, 1)
    assert learning_stages(LEAP2) == ((0,), (1, 2)) and stage_leaps(LEAP2) == (1, 2)
    with pytest.raises(InvalidParameterError, match="leap 3"):
        plateau_law("z1 + z1*z2*z3*z4")


def _times(ds, plateau, rng, seeds=16, order=(1, 2, 3)):
    rows = []
    for d, t in zip(ds, plateau):
        for s in range(seeds):
            first = 0.7 * rng.lognormal(0, 0.1)
            late = first + t * rng.lognormal(0, 0.1)
            times = dict(zip(order, (first, (first + late) / 2, late)))
            rows.append({"target": LEAP1, "d": d, "seed": s, "censored": 0.0,
                         **{f"time_{i}": times[i] for i in (1, 2, 3)}})
    return pd.DataFrame(rows)


def test_plateau_comparison_reads_the_power_of_log_d():
    """A plateau 3 log d passes the leap-2 law and fails its control (constant); a constant plateau the reverse."""
    rng = np.random.default_rng(0)
    ds = np.array([32, 64, 128, 256])
    grows, flat = _times(ds, 3.0 * np.log(ds), rng), _times(ds, 10.0 + 0 * ds, rng)
    leap2_law, leap2_wrong = plateau_law(LEAP2), _wrong_plateau(LEAP2)  # its claim reads the slope instead
    leap1 = get_claim("online-sgd/leap-plateau-leap1")
    assert compare_plateau(grows, leap2_law).passed and not compare_plateau(grows, leap2_wrong).passed
    assert compare_plateau(flat, leap1.the_law).passed and not compare_plateau(flat, leap1.the_wrong_law).passed
    censored = grows.assign(censored=(grows["seed"] == 0).astype(float))
    result = compare_plateau(censored, leap2_law)
    assert not result.passed and "censored" in result.message


def test_plateau_slope_comparison_and_its_control():
    """The registered leap-2 claim reads the slope B of t = A + B log d: a plateau 4 + 2 log d shows B > 0 (the law
    passes, the control "does not grow" is rejected); a constant plateau the reverse; censored runs fail."""
    rng = np.random.default_rng(2)
    ds = np.array([32, 64, 128])
    claim = get_claim("online-sgd/leap-plateau-leap2")
    grows, flat = _times(ds, 4.0 + 2.0 * np.log(ds), rng, seeds=32), _times(ds, 12.0 + 0 * ds, rng, seeds=32)
    assert plateau_slopes(grows).shape == (32,) and abs(plateau_slopes(grows).mean() - 2.0) < 0.5
    assert claim.evaluate(grows).passed and not claim.evaluate(grows, claim.the_wrong_law).passed
    assert not compare_plateau_slope(flat, claim.the_law).passed
    assert compare_plateau_slope(flat, claim.the_wrong_law).passed
    censored = grows.assign(censored=(grows["seed"] == 0).astype(float))
    assert not compare_plateau_slope(censored, claim.the_law).passed


def test_order_comparison_and_its_control():
    rng = np.random.default_rng(1)
    claim = get_claim("online-sgd/learned-order")
    right = _times([64], [10.0], rng)
    assert compare_order(right, claim.the_law).passed and not compare_order(right, claim.the_wrong_law).passed
    wrong = _times([64], [10.0], rng, order=(1, 3, 2))  # e3 before e2
    assert not compare_order(wrong, claim.the_law).passed


def test_two_layer_seed_contract_and_errors():
    """A seed's run does not depend on the other seeds of the batch; bad parameters are named."""
    kwargs = dict(p=4, eta_tilde=0.25, max_steps=512, device="cpu")
    both = two_layer_online_sgd(LEAP2, 16, seeds=[0, 3], **kwargs)
    alone = two_layer_online_sgd(LEAP2, 16, seeds=[3], **kwargs)
    assert torch.equal(both.times[1], alone.times[0]) and torch.equal(both.final_mass[1], alone.final_mass[0])
    with pytest.raises(InvalidParameterError, match="'d'"):
        two_layer_online_sgd(LEAP2, 3, seeds=1, **kwargs)
    with pytest.raises(InvalidParameterError, match="'record_every'"):
        two_layer_online_sgd(LEAP2, 16, seeds=1, record_every=7, **kwargs)


def test_leap_one_target_learns_in_order_at_small_size():
    """A cheap run (d = 32, 8 seeds): every direction of the leap-1 target is learned, e1 first, and the masses
    end far above their random level 1/d."""
    res = two_layer_online_sgd(LEAP1, 32, p=8, eta_tilde=0.25, seeds=8, max_steps=60 * 32 * 4, device="cpu")
    assert not bool(res.censored.any())
    times = res.times.numpy()
    assert (times[:, 0] < times[:, 1]).mean() >= 0.75 and (times[:, 1] < times[:, 2]).mean() >= 0.75
    assert float(res.final_mass.min()) > 3 / 32
