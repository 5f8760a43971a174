"""The generic figure's reading of a CheckResult: labels, units, slack, the wrong law in the plotted unit."""

import numpy as np
import pytest

from flt_theory.compare import check_at_least, check_at_most, check_not_learned, check_ordering, check_subspace_learned
from flt_theory.compare.result import CheckResult, all_of
from flt_theory.report.figures import (
    _panel,
    carries_information,
    comparisons,
    control_rows,
    new_figure,
    plain_text,
    wrong_law_drawn,
)

RNG = np.random.default_rng(0)


def test_parts_keep_their_labels_and_intervals():
    errors = [2.0 + 0.02 * RNG.standard_normal(8), 1.0 + 0.02 * RNG.standard_normal(8)]
    parts = [check_at_least(e, b, name=f"T = {t}: error ≥ {b:g}") for t, (e, b) in enumerate(zip(errors, (1.9, 0.9)))]
    parts.append(check_ordering(errors, name="error decreases with T"))
    rows = comparisons(all_of("second layer", (1.9, 0.9), parts))
    assert [r.label for r in rows] == ["T = 0: error ≥ 1.9", "T = 1: error ≥ 0.9", "error decreases with T: gap 0-1"]
    assert all(r.low <= r.measured <= r.high for r in rows)
    assert [r.quantity for r in rows[:2]] == ["error (dimensionless)"] * 2
    assert all(r.quantity and "value" != r.quantity for r in rows)


def test_two_sided_checks_share_a_panel_and_the_slack_is_drawn():
    ratio = 1.02 + 0.05 * RNG.standard_normal(6)
    both = all_of("rate", 1.0, [check_at_least(ratio, 1.0, rel_tol=0.1, name="slope / law rate ≥ 0.9"),
                                check_at_most(ratio, 1.0, rel_tol=0.1, name="slope / law rate ≤ 1.1")])
    ((row, _),) = control_rows(both, None)
    assert row.relation == "in" and row.allowed() == pytest.approx((0.9, 1.1))
    assert row.label == "slope / law rate = 1 ± 0.1"


@pytest.mark.parametrize("seed", range(5))
def test_a_pass_never_sits_in_the_excluded_band(seed):
    """Demonstrated bounds: a passing CI lies wholly in the allowed region drawn (bound moved by the slack)."""
    rng = np.random.default_rng(seed)
    values = 1.0 + 0.05 * rng.standard_normal(8)
    for result in (check_at_least(values, 1.05, tolerance=0.1, mode="demonstrated", name="x ≥ 1.05"),
                   check_at_most(values, 0.95, tolerance=0.1, mode="demonstrated", name="x ≤ 0.95")):
        (row,) = comparisons(result)
        low, high = row.allowed()
        if result.passed:
            assert low <= row.low and row.high <= high
        else:
            assert not (low <= row.low and row.high <= high)


def test_wrong_law_in_the_plotted_unit_mass_and_random_level():
    """Check: mass / random level ≤ 8; control: mass ≥ 0.1. The control's threshold is drawn at 0.1 d."""
    d = 256
    mass = (1.3 + 0.1 * RNG.standard_normal(8)) / d
    law = check_not_learned(mass, 1 / d, max_ratio=8.0, name="mass at random level")
    wrong = check_subspace_learned(mass, np.zeros_like(mass), 1.0, min_mass=0.1, name="mass ≥ 0.1")
    ((row, bad),) = control_rows(law, wrong)
    assert row.quantity.startswith("mass / its random level")
    assert bad.line == pytest.approx(0.1 * d)
    assert wrong_law_drawn(law, wrong)


def test_wrong_law_over_a_rescaled_quantity():
    """A slope divided by the law's rate: the wrong law's rate shows at (wrong / law) in the law's unit."""
    slope = 2e-6 * (1 + 0.02 * RNG.standard_normal(6))
    law_rate, wrong_rate = 2e-6, 4e-6

    def compare(rate):
        ratio = slope / rate
        return all_of(f"rate {rate}", rate, [check_at_least(ratio, 1.0, rel_tol=0.1, name="slope / law rate ≥ 0.9"),
                                              check_at_most(ratio, 1.0, rel_tol=0.1, name="slope / law rate ≤ 1.1")])

    ((row, bad),) = control_rows(compare(law_rate), compare(wrong_rate))
    assert (bad.line, bad.upper) == pytest.approx((wrong_rate / law_rate, wrong_rate / law_rate))


def test_wrong_law_of_another_subspace_shows_its_own_estimate():
    on, off = 0.88 + 0.01 * RNG.standard_normal(8), 0.2 + 0.01 * RNG.standard_normal(8)
    law = check_subspace_learned(on, off * 0.05, 1.0, min_mass=0.8, name="overlap with span{w1 + 2 w2} ≥ 0.8")
    wrong = check_subspace_learned(off, on * 0.05, 1.0, min_mass=0.8, name="overlap with span{w1} ≥ 0.8")
    ((row, bad),) = control_rows(law, wrong)
    assert bad.point is not None and bad.point.measured == pytest.approx(off.mean(), rel=1e-6)


def test_panel_axes_name_the_quantity_and_the_part():
    result = check_at_least(0.3 + 0.01 * RNG.standard_normal(8), 0.1, mode="demonstrated", bounds=(0, 1),
                            name="network test error ≥ 0.1")
    fig = new_figure(3, 3)
    ax = fig.subplots()
    ((row, bad),) = control_rows(result, None)
    _panel(ax, row, bad)
    assert ax.get_ylabel().replace("\n", " ") == "network test error (fraction, 0 to 1)"
    assert ax.get_title() == "network test error ≥ 0.1"
    labels = {h.get_label() for h in ax.get_legend_handles_labels()[0]}
    assert "excluded: the whole CI must avoid it" in labels


def test_exact_checks_carry_nothing_beyond_the_table():
    zero = CheckResult("violations", True, "0 on every seed", 0.0, (0.0, 0.0), 8, "m", {"per_seed": [0] * 8})
    assert not carries_information(zero)
    assert carries_information(CheckResult("x", True, 1.0, 1.0, (0.9, 1.1), 8, "m", {"tolerance": 0.1}))


def test_plain_text_of_every_registered_law_has_no_latex():
    from flt_theory.systems import registry

    for claim in registry.registered_claims():
        for law in (claim.the_law, claim.the_wrong_law):
            text = plain_text(law.latex())
            assert "\\" not in text and "\\frac" not in text and "^{" not in text and "_{" not in text, text
