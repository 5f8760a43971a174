"""The grids ``flt verify --system SYSTEM --law`` designs lie inside the experiment's declared bounds (ranges, size
limits, joint conditions) and inside the stated hypotheses of the system's claims (issue 37): the designer drops a
value outside them, and refuses, naming the hypothesis, where no range is inside."""

from __future__ import annotations

import pytest

from flt_theory.errors import InvalidParameterError
from flt_theory.laws_check.design import (
    base_claim,
    base_point,
    claim_hypotheses,
    design_grid,
    grid_plan,
    is_numeric,
    plan_text,
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
    claim (0.2) passes it. Only a text value selects a claim: a number is a size or a step of the subject, and a
    claim that switches on a mode the user did not ask for (smoothing, a transform) is not taken. A number fixed
    outside the selected claim's hypotheses keeps them as the regime: a designed grid is refused naming the stall
    bound and the fixed point, and a grid given by --over is planned outside, point by point."""
    spec, exp = get_system("online-sgd"), get_experiment("online-sgd/recovery")
    assert base_claim(spec, exp)[::2] == ("online-sgd/recovery-time-k1", False)
    key, base, selected = base_claim(spec, exp, {"target": "He2(z)"})
    assert (key, base["eta_tilde"], base["batch"], selected) == ("online-sgd/recovery-time-k2", 0.2, 1, True)
    assert base_claim(spec, exp, {"target": "He2(z)", "eta_tilde": 0.5})[0] == "online-sgd/recovery-time-k2"
    # the first claim in declaration order: He3's plain claim, not a batch claim that happens to share d and max_steps
    key, base, _ = base_claim(spec, exp, {"target": "He3(z)"})
    assert (key, base["batch"]) == ("online-sgd/recovery-time-k3", 1)
    # a number alone selects nothing (eta_tilde = 0.05 is He3's, max_steps 10646 a He2 claim's): the first claim
    assert base_claim(spec, exp, {"eta_tilde": 0.05})[::2] == ("online-sgd/recovery-time-k1", False)
    # every He4 claim runs smoothed or transformed, a mode the first claim keeps off: none is taken, unless the
    # mode is the user's (--over smoothing=...)
    assert base_claim(spec, exp, {"target": "He4(z)"})[::2] == ("online-sgd/recovery-time-k1", False)
    assert base_claim(spec, exp, {"target": "He4(z)"}, {"smoothing"})[::2] == ("online-sgd/time-smoothed-k4", True)
    key, base, _ = base_claim(spec, exp, {"target": "He2(z)", "eta_tilde": 0.5})
    fixed = exp.normalize({**base, "eta_tilde": 0.5})
    constraints = claim_hypotheses(spec, exp, fixed, subject=key)
    assert key in [c[0] for c in constraints]
    assert key not in [c[0] for c in claim_hypotheses(spec, exp, fixed)]  # failing at the base: no constraint
    parsed = parse_any("steps_to_weak_recovery ~ d*log(d)", None, [k for k, v in base.items() if is_numeric(v)])
    with pytest.raises(InvalidParameterError, match=r"^--fix: the point the grid is designed around .*η̃ < 3/8"):
        design_grid(exp, fixed, parsed, seeds=SEEDS, budget=None, constraints=constraints)
    with pytest.raises(InvalidParameterError, match=r"^--fix: the point the grid is designed around .*η̃ < 3/8"):
        design_grid(exp, fixed, parsed, seeds=SEEDS, budget=60.0, constraints=constraints)
    plan = grid_plan(exp, [{**fixed, "d": d} for d in (128, 256)], ["d"], SEEDS, 1.0, constraints)
    assert [p["d"] for p in plan["outside_hypotheses"]] == [128, 256]
    assert "3/8" in plan["outside_hypotheses"][0]["failed"][0]


def test_a_selected_claim_outside_its_own_hypotheses_sets_no_bound():
    """A claim whose own small point lies outside its hypotheses (a cheap scale, as attention's first claim) bounds no
    grid it is the subject of: its constraints are those of the claims that hold at the base, as without a subject."""
    from flt_theory.laws_check.design import _holds_at_own_point

    spec, exp = get_system("attention"), get_experiment("attention/train")
    claim = next(c for c in spec.claims if c.measurement.experiment == exp.name)
    base = base_point(spec, exp)
    assert not _holds_at_own_point(claim, exp, tuple(claim.the_law.hypotheses))
    assert claim_hypotheses(spec, exp, base, subject=claim.key) == claim_hypotheses(spec, exp, base)


def test_a_number_fixed_outside_the_first_claims_hypotheses_is_named():
    """``--fix eta_tilde=5`` on online-sgd (above z's derived stall bound 3) selects no claim, and the first claim's
    hypotheses still bound the grid: the plan names its points outside; without a subject they constrained nothing."""
    spec, exp = get_system("online-sgd"), get_experiment("online-sgd/recovery")
    key, base, selected = base_claim(spec, exp)
    fixed = exp.normalize({**base, "eta_tilde": 5.0})
    constraints = claim_hypotheses(spec, exp, fixed, subject=key)
    plan = grid_plan(exp, [{**fixed, "d": d} for d in (64, 128)], ["d"], SEEDS, 1.0, constraints)
    assert (key, selected, len(plan["outside_hypotheses"])) == ("online-sgd/recovery-time-k1", False, 2)
    assert not claim_hypotheses(spec, exp, fixed)
    unmatched = plan_text({**plan, "base_claim": key, "unmatched": ["target=He2( z )"]})
    assert "no claim declares target=He2( z )" in unmatched
