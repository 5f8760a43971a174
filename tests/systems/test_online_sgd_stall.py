"""The stall of spherical online SGD (:mod:`flt_theory.systems.online_sgd.stall`): bad input, and the step-size
hypotheses the online-SGD laws build from it (the derivation itself: ``derivations/derive_online_sgd_stall.py``)."""

from __future__ import annotations

import pytest
import sympy as sp

from flt_theory.errors import InvalidParameterError
from flt_theory.systems.online_sgd.laws import ETA_TILDE, D, label_transform_law, recovery_law, step_hypothesis
from flt_theory.systems.online_sgd.stall import admissible, drift_terms, largest_admissible_step, stall_overlap


@pytest.mark.parametrize("call,option", [
    (lambda: drift_terms("tanh"), "link"),
    (lambda: drift_terms("He2(z)", "relu"), "student"),
    (lambda: drift_terms("He2(z)", loss="hinge"), "loss"),
    (lambda: stall_overlap("He2(z)", -0.1), "eta_tilde"),
    (lambda: stall_overlap("He2(z)", 0.1, overlap=1.5), "overlap"),
    (lambda: largest_admissible_step("He2(z)", "-He2(z)"), "link"),
])
def test_bad_input_names_the_option(call, option):
    with pytest.raises(InvalidParameterError, match=f"'{option}'"):
        call()


def test_admissibility_flips_at_the_bound():
    bound = float(largest_admissible_step("He2(z)"))
    assert admissible("He2(z)", bound * 0.99) and not admissible("He2(z)", bound * 1.01)
    assert stall_overlap("He2(z)", 1.2) == 0.0  # no positive drift at all: stuck at the equator


def test_laws_carry_the_derived_step_bound():
    assert step_hypothesis("He2(z)").condition == (ETA_TILDE < sp.Rational(3, 8))
    assert step_hypothesis("z").condition == (ETA_TILDE < 3)
    assert step_hypothesis("He3(z)").condition == (ETA_TILDE / sp.sqrt(D) < sp.Rational(1, 41))
    assert step_hypothesis("He4(z)", transform=True).condition == (ETA_TILDE < 3 * sp.sqrt(638) / 1883)
    for law in (recovery_law("He2(z)"), label_transform_law("He4(z)")):
        step = law.hypotheses[0]
        assert "derived from the drift" in step.text and "stall" in step.text
        assert step.holds({"eta_tilde": 0.02, "d": 512}) and not step.holds({"eta_tilde": 1.0, "d": 512})
        assert "η̃ ≤ 1" not in law.hypotheses_reading


def test_the_label_transform_default_step_is_admissible():
    """flt simulate --label-transform: the default step is half the derived bound for He4 (0.0201 < 0.0402), where
    the plain default 0.2 stalls the overlap at 0.17; a link without a transform keeps its plain default."""
    from flt_theory.systems.online_sgd.simulate import theory_eta_tilde, transformed_eta_tilde

    bound = float(3 * sp.sqrt(638) / 1883)
    assert transformed_eta_tilde("He4(z)", 2) == pytest.approx(bound / 2) and theory_eta_tilde(2) > bound
