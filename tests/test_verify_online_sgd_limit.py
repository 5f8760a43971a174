"""``flt verify TARGET --algorithm online-sgd`` decided in the limit of large d: censored runs are never fitted (no
nan, no fail on capped values), the advice names options the command has, the effective exponents are in the JSON,
and a wrong law is rejected (negative control). Small ladders and few seeds: seconds in all."""

from __future__ import annotations

import json
import math
import re

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.commands.verify import verify_command
from flt_theory.compare.limit import check_limit_power_law
from flt_theory.compare.verdict import FAIL, decide_claim
from flt_theory.errors import InvalidParameterError
from flt_theory.systems.online_sgd.laws import recovery_law
from flt_theory.systems.online_sgd.verify import (
    compare_limit,
    dropped_message,
    estimated_seconds,
    law_powers,
    measure_ladder,
    sizes_for,
    verify_target,
    wrong_laws,
)

#: The options ``flt verify`` has.
OPTIONS = {opt for param in verify_command.params for opt in param.opts}

pytestmark = pytest.mark.xdist_group("verify_online_sgd_limit")  # one worker verifies each module fixture once


def _no_nan(document) -> dict:
    """The document through strict JSON (a nan or inf raises)."""
    return json.loads(json.dumps(document, allow_nan=False))


def _advised(message: str) -> set[str]:
    return set(re.findall(r"--[a-z][a-z-]*", message))


@pytest.fixture(scope="module")
def k1():
    """z (k = 1) at 8 seeds: every rung uncensored."""
    return verify_target("z", seeds=8, budget=60)


@pytest.fixture(scope="module")
def forced():
    """z with max_steps × 0.001: every rung censored even after the automatic raises."""
    return verify_target("z", seeds=8, budget=60, max_steps_factor=0.001)


def test_censored_rungs_are_dropped_and_named_never_nan_or_fail(forced):
    (p,) = _no_nan(forced)["predictions"]
    assert p["verdict"] == "inconclusive" and p["measured"] is None and p["limit"] is None
    sizes = p["sizes"]
    assert sizes["max_steps_factor"] == 0.001 and len(sizes["max_steps"]) == len(sizes["ds"]) == 5
    assert sizes["fitted"] == [d for d, n in zip(sizes["ds"], sizes["censored"]) if n == 0]
    assert len(sizes["fitted"]) < 3 and len(p["dropped"]) == 5 - len(sizes["fitted"])
    for d, message in zip([d for d in sizes["ds"] if d not in sizes["fitted"]], p["dropped"]):
        assert message.startswith(f"d = {d}: ") and " runs censored" in message and "--max-steps-factor" in message
    assert "the limit needs at least 3" in p["message"]
    assert "dropped" in forced.text() and "nan" not in forced.text()


def test_the_raise_within_the_budget_and_the_advice_when_the_budget_blocks_it():
    sizes = {**sizes_for(1), "seeds": 8, "max_steps": lambda d: max(1, math.ceil(0.001 * 40 * d))}
    doc = verify_target("z", seeds=8, budget=estimated_seconds(1, sizes) * 1.01, max_steps_factor=0.001)
    (p,) = _no_nan(doc)["predictions"]
    assert p["verdict"] == "inconclusive" and p["sizes"]["max_steps"] == [3, 6, 11, 21, 41]  # not raised
    assert all("--budget" in message and "--max-steps-factor" in message for message in p["dropped"])


def test_every_option_the_advice_names_exists(forced):
    (p,) = forced["predictions"]
    advised = _advised(p["message"]) | {a for m in p["dropped"] for a in _advised(m)}
    assert advised and advised <= OPTIONS, advised - OPTIONS
    stalled = {"d": 512, "max_steps": 40960, "raised": 1, "stalled": True, "blocked": None, "censored": 8, "seeds": 8,
               "overlap": 0.17}
    message = dropped_message(stalled, 1.0, 0.9, 0.375)
    assert "eta_tilde = 0.9" in message and "--eta-tilde" in message and _advised(message) <= OPTIONS
    help_text = CliRunner().invoke(cli, ["verify", "--help"]).output
    assert "--max-steps-factor" in help_text and "--eta-tilde" in help_text


def test_a_stall_is_a_step_size_violation_and_a_short_cap_is_not():
    """He2 at eta_tilde = 0.9 (above the admissible 3/8) stalls near overlap 0.15 at d = 512; at 0.2 with a cap far
    below the predicted time the runs are only censored (the negative control of the stall test)."""
    stall = {"ds": (512,), "seeds": 8, "eta_tilde": 0.9, "overlap0": 1.0, "max_steps": lambda d: 8 * d}
    _, (rung,), _ = measure_ladder("He2(z)", stall, budget=60)
    assert rung["raised"] >= 1 and rung["censored"] >= 4 and rung["stalled"] and rung["overlap"] < 0.4
    short = {**stall, "eta_tilde": 0.2, "max_steps": lambda d: d // 50}
    _, (rung,), _ = measure_ladder("He2(z)", short, budget=60)
    assert rung["censored"] == 8 and not rung["stalled"]


def test_effective_exponents_and_the_limit_are_in_the_json(k1):
    (p,) = _no_nan(k1)["predictions"]
    assert [(r["from"], r["to"]) for r in p["effective"]] == [(64, 128), (128, 256), (256, 512), (512, 1024)]
    assert all(r["ci"][0] <= r["estimate"] <= r["ci"][1] for r in p["effective"])
    assert set(p["limit"]) >= {"estimate", "ci", "model"} and p["measured"] == p["limit"]["estimate"]
    assert p["sizes"]["censored"] == [0] * 5 and p["sizes"]["fitted"] == p["sizes"]["ds"] and p["dropped"] == []
    for key in ("name", "latex", "predicted", "predicted_exponent", "measured", "ci", "verdict", "control",
                "wrong_law", "controls", "message", "seconds"):  # the keys of before, kept
        assert key in p
    assert "effective exponent" in k1.text() and "limit [95% CI]" in k1.text()


def test_the_wrong_laws_are_rejected_and_a_wrong_law_fails_as_the_law(k1):
    """Negative control: on the same measurement, the exponent 2 taken as the law fails."""
    (p,) = k1["predictions"]
    assert k1.passed and [c["control"] for c in p["controls"]] == ["rejected", "rejected"]
    frame, rungs, _ = measure_ladder("z", {**sizes_for(1), "seeds": 8}, budget=60)
    law = recovery_law("z")
    right, (low, high) = compare_limit(frame, law), (compare_limit(frame, w) for w in wrong_laws(law))
    assert right.passed and not low.passed and not high.passed
    assert decide_claim(high, right).outcome == FAIL


def test_k2_compares_the_law_without_its_log_and_censored_frames_are_refused():
    law = recovery_law("He2(z)")
    assert law_powers(law) == (1.0, 1.0)
    assert [law_powers(w) for w in wrong_laws(law)] == [(0.0, 1.0), (2.0, 1.0), (1.0, 0.0)]
    frame, _, _ = measure_ladder("z", {**sizes_for(1), "ds": (64, 128, 256), "seeds": 4,
                                       "max_steps": lambda d: d // 4}, budget=0)  # no raise
    with pytest.raises(InvalidParameterError, match="uncensored"):
        compare_limit(frame, recovery_law("z"))


def test_a_fail_outside_the_step_size_regime_is_inconclusive():
    """The law's step-size hypothesis: a FAIL at an eta_tilde whose limiting drift stalls is not a falsification."""
    import numpy as np

    from flt_theory.systems.online_sgd.verify import _entry

    x = np.array([64.0, 128, 256, 512])
    y = x**2 * np.exp(0.01 * np.random.default_rng(0).standard_normal((16, 4)))
    law = recovery_law("z")
    check, controls = check_limit_power_law(x, y, 1.0), [check_limit_power_law(x, y, a) for a in (0.0, 2.0)]
    step = {"eta_tilde": 0.5, "largest_admissible": 1 / 45, "admissible": False}
    measured = {"sizes": {}, "dropped": [], "escape_term": False, "step_size": step}
    entry = _entry(law, wrong_laws(law), 0.0, measured, check, controls)
    assert entry["verdict"] == "inconclusive" and "--eta-tilde below 0.0222" in entry["message"]
    entry = _entry(law, wrong_laws(law), 0.0, {**measured, "step_size": {**step, "admissible": True}}, check, controls)
    assert entry["verdict"] == "fail"


def test_the_command_takes_the_options_and_refuses_them_elsewhere():
    runner = CliRunner()
    result = runner.invoke(cli, ["verify", "z", "--algorithm", "online-sgd", "--seeds", "8", "--max-steps-factor",
                                 "0.001", "--eta-tilde", "0.4", "--json"])
    assert result.exit_code == 1, result.output
    document = json.loads(result.output, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert document["eta_tilde"] == 0.4 and document["predictions"][0]["sizes"]["max_steps_factor"] == 0.001
    for extra, option in ((["--max-steps-factor", "2"], "--max-steps-factor"), (["--eta-tilde", "0.1"], "--eta-tilde")):
        result = runner.invoke(cli, ["verify", "z", *extra])
        assert result.exit_code == 2 and option in result.output and "online-sgd" in result.output, result.output
    for extra, option in ((["--max-steps-factor", "0"], "--max-steps-factor"), (["--eta-tilde", "0"], "--eta-tilde"),
                          (["--eta-tilde", "nan"], "--eta-tilde"),
                          (["--max-steps-factor", "1e9"], "--max-steps-factor")):
        result = runner.invoke(cli, ["verify", "z", "--algorithm", "online-sgd", *extra])
        assert result.exit_code == 2 and option in result.output, result.output


def test_a_law_about_another_link_runs_at_that_links_declared_step():
    """``flt verify --system online-sgd --fix target=He2(z) --law "steps ~ d*log(d)"`` ran He2 at the first claim's
    step (eta_tilde = 0.5, z's, above He2's derived stall bound 3/8) and FAILED the true law: the runs slow down as d
    grows (effective exponents 0.91, 1.18, 2.04 over d = 128 … 1024). It now runs at the He2 claim's point (0.2):
    not a FAIL. Negative control: the same ladder with eta_tilde fixed at 0.5 still fails, and says that its points
    lie outside the He2 claim's derived step bound."""
    from flt_theory.laws_check.verify import verify_law

    fix = {"target": "He2(z)", "max_steps": 100000}
    held = verify_law("online-sgd", "steps ~ d*log(d)", over={"d": [128, 256, 512, 1024]}, fix=fix, seeds=16,
                      budget=None)
    assert held["base_claim"] == "online-sgd/recovery-time-k2" and held["verdict"] != FAIL
    assert not held["outside_hypotheses"]
    outside = verify_law("online-sgd", "steps ~ d*log(d)", over={"d": [128, 256, 512, 1024]},
                         fix={**fix, "eta_tilde": 0.5}, seeds=16, budget=None)
    assert outside["verdict"] == FAIL and len(outside["outside_hypotheses"]) == 4
    assert "recovery-time-k2" in outside["reason"] and "η̃ < 3/8" in outside["reason"]
    assert "outside the theorem's regime" in outside["reason"]


def test_a_ladder_inside_the_hypotheses_is_not_extended_out_of_them(monkeypatch):
    """An inconclusive ladder is extended within the budget, but not out of the stated hypotheses: a next rung outside
    them (here forced: the He2 claim's step bound broken) stops the extension, naming the hypothesis."""
    from flt_theory.laws_check import verify as law_verify

    def outside(experiment, points, name, parsed):
        top = max(points, key=lambda p: p[name])
        return experiment.normalize({**top, name: 2 * top[name], "eta_tilde": 0.5})

    monkeypatch.setattr(law_verify, "_next_rung", outside)
    result = law_verify.verify_law("online-sgd", "steps ~ d*log(d)", over={"d": [128, 256, 512, 1024]},
                                   fix={"target": "He2(z)", "max_steps": 100000}, seeds=16, budget=600.0)
    assert result["verdict"] == "inconclusive" and not result["outside_hypotheses"]
    assert result["extended"][-1]["stopped"].startswith("the stated hypotheses (online-sgd/recovery-time-k2")
    assert "not extended further: the stated hypotheses" in result["reason"]
