"""The grids ``flt verify --system SYSTEM --law`` designs lie inside the experiment's declared bounds (ranges, size
limits, joint conditions) and inside the stated hypotheses of the system's claims (issue 37): the designer drops a
value outside them, and refuses, naming the hypothesis, where no range is inside."""

from __future__ import annotations

import pytest

from flt_theory.errors import InvalidParameterError
from flt_theory.laws_check.design import (
    base_point,
    claim_hypotheses,
    design_grid,
    grid_plan,
    is_numeric,
    refusal,
    system_experiments,
)
from flt_theory.laws_check.parse import parse_any
from flt_theory.runner.registry import get_experiment
from flt_theory.systems.registry import get_system, systems

SEEDS = 8


def _design(system: str, experiment: str, law: str, budget: float | None, **kwargs):
    spec, exp = get_system(system), get_experiment(experiment)
    base = base_point(spec, exp)
    constraints = claim_hypotheses(spec, exp, base)
    parsed = parse_any(law, None, [k for k, v in base.items() if is_numeric(v)])
    points, varied = design_grid(exp, base, parsed, seeds=SEEDS, budget=budget, constraints=constraints, **kwargs)
    return exp, points, varied, constraints


@pytest.mark.parametrize("budget", [None, 30.0])
def test_in_context_risk_new_over_d_is_designed_with_d_at_least_k(budget):
    """``flt verify --system in-context --law "risk_new ~ d"`` designed d = 1 (d = 2, 3 without a budget) while the
    model needs d >= k = 4, and the run exited with an error at its probe."""
    exp, points, varied, constraints = _design("in-context", "in-context/features", "risk_new ~ d", budget)
    assert varied == ["d"] and len({p["d"] for p in points}) >= 3
    assert all(p["d"] >= p["k"] for p in points)
    assert all(refusal(exp, p, SEEDS, constraints) is None for p in points)
    assert "must be an int >= k = 4" in refusal(exp, {**points[0], "d": 3}, SEEDS)  # the joint condition, declared


@pytest.mark.parametrize("budget", [None, 0.5])
def test_giant_step_norm_growth_over_d_stays_inside_d_at_least_64(budget):
    """Without a budget the norm law's d was 32 .. 512, d = 32 outside its hypothesis d >= 64 (read of d → ∞)."""
    exp, points, varied, constraints = _design("giant-step", "giant-step/norm-growth", "norm_growth ~ d", budget,
                                               fix={"n": 64})
    assert [key for key, _, _ in constraints] == ["giant-step/norm-law"]
    assert min(p["d"] for p in points) >= 64 and len({p["d"] for p in points}) >= 3
    assert grid_plan(exp, points, varied, SEEDS, 1, constraints)["outside_hypotheses"] == []


@pytest.mark.parametrize("budget", [None, 60.0])
def test_a_hypothesis_that_pins_the_parameter_refuses_the_design_naming_it(budget):
    """virtual-covariance's Theorem 3 holds at ||h|| = 1 only: no range of h_norm is inside it, so no grid is designed
    (the old designer ran h_norm = 0.25 .. 4 or 0.1 .. 10, four of five points outside)."""
    with pytest.raises(InvalidParameterError, match=r"^--law: .*h_norm.*unit-norm input.*--over h_norm="):
        _design("virtual-covariance", "virtual-covariance/theorem3", "residual ~ h_norm", budget)


def test_values_given_by_over_are_kept_and_their_points_outside_named():
    """``--over`` is the user's deliberate grid: it may leave the hypotheses, and the plan says where."""
    exp, points, varied, constraints = _design("giant-step", "giant-step/norm-growth", "norm_growth ~ d", None,
                                               over={"d": [32, 64]}, fix={"n": 64})
    outside = grid_plan(exp, points, varied, SEEDS, 1, constraints)["outside_hypotheses"]
    assert [o["d"] for o in outside] == [32] and "d ≥ 64" in outside[0]["failed"][0]


@pytest.mark.slow
def test_every_designed_grid_of_every_system_is_inside_or_refused():
    """Contract over the catalogue (about 7 s): for each system, experiment and numeric parameter, the grid designed
    without a budget is either refused with an error naming --law, or every point is one :func:`refusal` admits."""
    for spec in systems():
        for exp in system_experiments(spec):
            base = base_point(spec, exp)
            constraints = claim_hypotheses(spec, exp, base)
            names = [k for k, v in base.items() if is_numeric(v)]
            for name in (k for k in names if base[k] != 0):
                try:
                    points, _ = design_grid(exp, base, parse_any(f"y ~ {name}", None, names), seeds=SEEDS,
                                            constraints=constraints)
                except InvalidParameterError as exc:
                    assert str(exc).startswith("--"), exc
                    continue
                assert all(refusal(exp, p, SEEDS, constraints) is None for p in points), (exp.name, name)


def test_a_fixed_subject_selects_its_claims_point_and_its_hypotheses():
    """``flt verify --system online-sgd --fix target=He2(z) --law "steps ~ d*log(d)"`` held the step at the first
    claim's (z, eta_tilde = 0.5, above He2's derived stall bound 3/8) and FAILED the true law; the point of the He2
    claim (0.2) passes it. A number fixed outside that claim's hypotheses keeps the claim as the regime: a designed
    grid is refused naming the stall bound, and a grid given by --over is planned outside, point by point."""
    from flt_theory.laws_check.design import base_claim

    spec, exp = get_system("online-sgd"), get_experiment("online-sgd/recovery")
    assert base_claim(spec, exp) == (base_claim(spec, exp)[0], base_point(spec, exp))
    key, base = base_claim(spec, exp, {"target": "He2(z)"})
    assert key == "online-sgd/recovery-time-k2" and base["eta_tilde"] == 0.2
    # a subject (a text value) counts before a number: eta_tilde = 0.5 agrees with the z claim only
    key, base = base_claim(spec, exp, {"target": "He2(z)", "eta_tilde": 0.5})
    assert key == "online-sgd/recovery-time-k2"
    fixed = exp.normalize({**base, "eta_tilde": 0.5})
    constraints = claim_hypotheses(spec, exp, fixed, subject=key)
    assert key in [c[0] for c in constraints]
    assert key not in [c[0] for c in claim_hypotheses(spec, exp, fixed)]  # failing at the base: no constraint
    parsed = parse_any("steps_to_weak_recovery ~ d*log(d)", None, [k for k, v in base.items() if is_numeric(v)])
    with pytest.raises(InvalidParameterError, match=r"recovery-time-k2: .*η̃ < 3/8"):
        design_grid(exp, fixed, parsed, seeds=SEEDS, budget=None, constraints=constraints)
    plan = grid_plan(exp, [{**fixed, "d": d} for d in (128, 256)], ["d"], SEEDS, 1.0, constraints)
    assert [p["d"] for p in plan["outside_hypotheses"]] == [128, 256]
    assert "3/8" in plan["outside_hypotheses"][0]["failed"][0]
