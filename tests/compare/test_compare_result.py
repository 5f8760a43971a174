"""CheckResult, the assertions, and the layer contract of flt_theory.compare."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

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
    assert len(checks) == 8
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
