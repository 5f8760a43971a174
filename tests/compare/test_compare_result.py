"""CheckResult, the assertions, and the layer contract of flt_theory.compare."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import flt_theory.compare as compare
from flt_theory.compare import CheckResult, assert_check, assert_fails, make_assert

PASSING = CheckResult("law", True, 1.0, 1.02, (0.95, 1.09), 8, "law: 1.02 [0.95, 1.09] vs predicted 1: PASS")
FAILING = CheckResult("law", False, 1.0, 2.0, (1.9, 2.1), 8, "law: 2 [1.9, 2.1] vs predicted 1: FAIL")


def test_truth_value_is_the_verdict():
    assert PASSING and not FAILING


def test_assert_check_returns_passing_and_raises_with_message():
    assert assert_check(PASSING) is PASSING
    with pytest.raises(AssertionError, match=r"law: 2 \[1.9, 2.1\] vs predicted 1: FAIL"):
        assert_check(FAILING)


def test_assert_fails_is_the_negative_control():
    assert assert_fails(FAILING) is FAILING
    with pytest.raises(AssertionError, match="negative control passed but must fail: law: 1.02"):
        assert_fails(PASSING)


def test_to_dict_is_strict_json():
    import numpy as np

    details = {"arr": np.arange(3.0), "nan": float("nan"), "nested": {1: (2, None)}}
    measured = (np.float64(1.0), float("inf"))
    result = CheckResult("x", np.bool_(True), (1, -1), measured, ((0.9, 1.1), (-np.inf, 0)), 4, "x", details)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["passed"] is True and data["measured"] == [1.0, "inf"] and data["ci"][1] == ["-inf", 0.0]
    assert data["details"] == {"arr": [0.0, 1.0, 2.0], "nan": "nan", "nested": {"1": [2, None]}}


def test_result_is_frozen():
    with pytest.raises(AttributeError):
        PASSING.passed = False  # type: ignore[misc]


def test_every_check_has_an_assert_twin_with_its_signature():
    checks = [n for n in compare.__all__ if n.startswith("check_")]
    assert len(checks) == 13  # check_every_at_most, check_majority, check_limit_power_law(_2d) added with their twins
    for check_name in checks:
        check = getattr(compare, check_name)
        twin = getattr(compare, "assert_" + check_name.removeprefix("check_"))
        assert twin.__name__ == "assert_" + check_name.removeprefix("check_")
        assert inspect.signature(twin) == inspect.signature(check)
        assert twin.__module__ == check.__module__


def test_make_assert_passes_arguments_through():
    seen = {}

    def check_demo(a: int, *, b: int = 0) -> CheckResult:
        seen.update(a=a, b=b)
        return PASSING if a + b > 0 else FAILING

    assert_demo = make_assert(check_demo)
    assert assert_demo(1, b=2) is PASSING and seen == {"a": 1, "b": 2}
    with pytest.raises(AssertionError, match="FAIL"):
        assert_demo(0)


def test_compare_layer_imports_neither_sympy_nor_torch():
    """STYLE.md: compare knows numpy and scipy only (checked on the source, as importing
    flt_theory itself loads the symbolic layer)."""
    allowed = {"numpy", "scipy", "__future__", "collections", "dataclasses", "math", "numbers", "typing"}
    for path in Path(compare.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert roots <= allowed, f"{path.name} imports {roots - allowed}"


def test_all_of_keeps_every_part_own_estimate_and_interval():
    """Issue 10: a multi-valued part was shown as its mean with the CI of its first value
    (`0.8159 [0.9058, 0.9931]`). Now every entry keeps its own pair, aligned in to_dict()."""
    from flt_theory.compare import all_of, check_ordering

    rng = np.random.default_rng(0)
    gaps = check_ordering([m + 0.01 * rng.standard_normal(8) for m in (0.95, 0.3, 0.2)], name="order")
    single = CheckResult("bound", True, 1.0, 0.9, (0.85, 0.95), 8, "bound: PASS", {"p_value": 0.3})
    claim = all_of("claim", 2, [single, gaps])
    assert claim.measured == (0.9, *gaps.measured) and claim.ci == ((0.85, 0.95), *gaps.ci)
    assert claim.details["labels"] == ["bound", "order: gap 0-1", "order: gap 1-2"] and claim.predicted == 2.0
    assert "p_value" not in claim.details  # the demonstrated ordering has no p-value
    data = json.loads(json.dumps(claim.to_dict()))
    assert len(data["measured"]) == len(data["ci"]) == 3
    for value, (low, high) in zip(data["measured"], data["ci"]):
        assert low <= value <= high
    nested = all_of("outer", "x", [claim, single])
    assert nested.details["labels"][:2] == ["claim: bound", "claim: order: gap 0-1"] and len(nested.measured) == 4


def test_all_of_combines_p_values_by_bonferroni():
    from flt_theory.compare import all_of

    parts = [
        CheckResult(f"p{i}", True, 1.0, 1.0, (0.9, 1.1), 8, "m", {"p_value": p}) for i, p in enumerate([0.2, 0.04])
    ]
    assert all_of("c", 1.0, parts).details["p_value"] == pytest.approx(0.08)


def test_entries_reject_a_measured_and_ci_that_do_not_pair_up():
    bad = CheckResult("bad", True, 1.0, (1.0, 2.0), (0.9, 1.1), 8, "m")
    with pytest.raises(ValueError, match="one \\(low, high\\) pair per measured value"):
        bad.entries()


def test_message_is_a_plain_string_attribute_and_numbers_use_fmt():
    assert isinstance(PASSING.message, str) and not callable(PASSING.message)
    assert compare.fmt(0.0978107713317362) == "0.09781" and compare.fmt_ci((-0.0040001, 0.0321)) == "[-0.004, 0.0321]"


def _every_check(seed: int) -> list[CheckResult]:
    rng = np.random.default_rng(seed)
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    d, n = (a.ravel() for a in np.meshgrid([64.0, 128.0, 256.0], [1e3, 4e3, 1.6e4]))
    kappas = np.linspace(0.5, 3.5, 31)
    curves = {
        d: 1 / (1 + np.exp(-np.sqrt(d) / 2 * (kappas - 2))) + 0.03 * rng.standard_normal((6, 31)) for d in (64, 256)
    }
    small = rng.beta(0.5, 49.5, (3, 4)).mean(axis=1)
    return [
        compare.check_power_law(x, 2 * x**1.5 * np.exp(0.1 * rng.standard_normal((6, 5))), 1.5, n_resamples=300),
        compare.check_power_law_2d(d, n, np.exp(0.1 * rng.standard_normal((6, 9))) * d / n, (1, -1), n_resamples=300),
        compare.check_transition(kappas, curves, 2.0, n_resamples=300),
        compare.check_at_least(small, 0.01, bounds=(0, 1)),
        compare.check_at_most(rng.beta(2, 20, 6), 0.1, bounds=(0, 1), n_resamples=300),
        compare.check_ordering([rng.normal(m, 0.05, 5) for m in (1.0, 0.5)], n_resamples=300),
        compare.check_subspace_learned(rng.beta(90, 10, 4), small, 0.01, min_mass=0.5),
        compare.check_not_learned(small, 0.01, max_ratio=3),
        compare.check_count(int(rng.integers(0, 20)), 40, 0.25),
    ]  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_no_check_shows_an_estimate_outside_its_interval(seed):
    results = _every_check(seed)
    assert {r.name for r in results} >= {"power law", "transition", "count"}
    for result in results:
        for label, value, (low, high) in result.entries():
            assert low <= value <= high, (label, value, low, high)
