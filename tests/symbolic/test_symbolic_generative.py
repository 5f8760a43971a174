"""Generative exponent k* = min{k : E[He_k(z) | y] != 0} of single-index links (Damian, Pillaud-Vivien, Lee, Bruna
2024, arXiv 2403.05529): exact values, refusals with their reason, bad input, and the JSON of `flt leap`.

The step links are checked independently of the module: their breakpoints are located by scanning the link
numerically and bisecting, and E[He_j(z) 1{y = c}] is integrated by mpmath quadrature on each level set."""

from __future__ import annotations

import json
import time

import mpmath
import numpy as np
import pytest
import sympy as sp
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.errors import InvalidParameterTypeError, InvalidTargetError
from flt_theory.symbolic.functions import relu
from flt_theory.symbolic.generative import (
    MAX_PIECES,
    GenerativeExponent,
    generative_exponent,
    generative_exponent_result,
)
from flt_theory.symbolic.parser import variable
from flt_theory.symbolic.target import Target

#: odd, two-valued, breaks at 0 and +-sqrt(2 log 2): E[z sigma] = 0 and every even k vanishes, E[He_3 sigma] != 0
K3 = "sign(z)*sign(exp(z**2/2) - 2)"
#: even, -1 exactly on a < |z| < 2a with a^2 = (2/3) log 2, so a phi(a) = 2a phi(2a): E[He_2 1{y=-1}] = 0
K4 = "sign(exp(3*z**2/2) - 2)*sign(exp(3*z**2/8) - 2)"

EXACT_TABLE = [
    ("He3(z)", 1),
    ("He2(z)", 2),
    ("He4(z) + He2(z)", 2),
    ("relu(z)", 1),
    ("abs(z)", 2),
    ("relu(z) - z/2", 2),  # = |z|/2
    ("sign(z)", 1),
    ("sign(z**2 - 1)", 2),
    (K3, 3),
    (K4, 4),
    ("z**2*relu(z)", 1),
    ("tanh(z)", 1),  # strictly monotone
    ("tanh(z)**2", 2),  # even, monotone on (0, oo)
    ("exp(-z**2)", 2),
    ("abs(tanh(z))", 2),
    ("sign(exp(z) - 2)", 1),
    ("relu(exp(z) - 2)", 1),
    ("relu(abs(z) - 1)", 2),  # flat piece (-1, 1), symmetric
    ("abs(z**2 - 1)", 2),  # continuous part only, certified by interval arithmetic
    ("abs(z) + z/4", 1),
    ("abs(z**3 - 2*z) + z**2/3", 2),
    ("relu(z - 1) - relu(-z - 1)", 1),
    ("sign(He6(z))", 2),  # breakpoints CRootOf, Lindemann-Weierstrass
    ("sign(He5(z))", 1),
    ("abs(z - pi) + z/10", 1),
    ("sign(z)*sign(z**2 - 1.3862943611198906)", 1),  # K3 with a decimal breakpoint: algebraic, so k* <= 2
]


@pytest.mark.parametrize("text, k", EXACT_TABLE)
def test_exact_generative_exponents(text, k):
    start = time.perf_counter()
    result = generative_exponent_result(Target.parse(text))
    elapsed = time.perf_counter() - start
    assert (result.value, result.method) == (k, "exact"), result
    assert result.reason
    assert generative_exponent(Target.parse(text)) == k
    assert elapsed < 2.0, f"{text}: {elapsed:.2f} s"


# ---------------------------------------------------------------------------------------------------------
# independent check of the step links: breakpoints by scanning, moments by quadrature


def _hermite(j: int, t):
    values = [mpmath.mpf(1), t]
    for n in range(1, j):
        values.append(t * values[n] - n * values[n - 1])
    return values[j]


def _level_set_moments(text: str, orders: int, dps: int = 40) -> list[float]:
    """max_c |E[He_j(z) 1{y = c}]| for j = 1..orders, for a link that is constant between breakpoints."""
    z = variable(1)
    expr = Target.parse(text).expr
    modules = [{"relu": lambda t: max(t, 0), "sign": mpmath.sign}, "mpmath"]
    f = sp.lambdify(z, expr, modules=modules)
    fast = sp.lambdify(z, expr, modules=[{"relu": lambda t: np.maximum(t, 0)}, "numpy"])
    with mpmath.workdps(dps):
        grid = np.linspace(-9, 9, 36001)
        values = np.asarray(fast(grid), dtype=float) * np.ones_like(grid)
        breaks = []
        for i in np.nonzero(np.diff(values) != 0)[0]:
            lo, hi = mpmath.mpf(grid[i]), mpmath.mpf(grid[i + 1])
            f_lo = f(lo)
            for _ in range(4 * dps):  # bisection to ~10^-(dps) relative
                mid = (lo + hi) / 2
                if f(mid) == f_lo:
                    lo = mid
                else:
                    hi = mid
            breaks.append((lo + hi) / 2)
        ends = [-mpmath.inf, *breaks, mpmath.inf]
        phi = lambda t: mpmath.exp(-t * t / 2) / mpmath.sqrt(2 * mpmath.pi)  # noqa: E731
        levels: dict = {}
        for a, b in zip(ends, ends[1:]):
            middle = (a + b) / 2 if mpmath.isfinite(a + b) else (b - 1 if a == -mpmath.inf else a + 1)
            if not mpmath.isfinite(middle):
                middle = mpmath.mpf(0)
            levels.setdefault(float(f(middle)), []).append((a, b))
        out = []
        for j in range(1, orders + 1):
            moments = [sum(mpmath.quad(lambda t: _hermite(j, t) * phi(t), [a, b]) for a, b in pieces)  # noqa: B023 (called within this iteration)
                       for pieces in levels.values()]
            out.append(float(max(abs(m) for m in moments)))
    return out


@pytest.mark.parametrize("text, k", [("sign(z)", 1), ("sign(z**2 - 1)", 2), (K3, 3), (K4, 4),
                                     ("sign(exp(z) - 2)", 1), ("sign(z**3 - z)", 1), ("sign(He6(z))", 2)])
def test_step_links_agree_with_quadrature(text, k):
    """E[He_j(z) 1{y = c}] is 0 (to 1e-25) for j < k* on every level set and clearly non-zero at j = k*."""
    moments = _level_set_moments(text, k)
    assert all(m < 1e-25 for m in moments[: k - 1]), moments
    assert moments[k - 1] > 1e-3, moments
    assert generative_exponent_result(Target.parse(text)).value == k


def test_decimal_breakpoint_moves_the_exponent_to_one():
    """Written with a 17-digit decimal, 2 log 2 becomes algebraic: k* = 1 exactly (Lindemann-Weierstrass), and the
    first moment is tiny but not zero, as the quadrature shows."""
    text = "sign(z)*sign(z**2 - 1.3862943611198906)"
    first = _level_set_moments(text, 1, dps=50)[0]
    assert 1e-24 < first < 1e-15
    assert generative_exponent_result(Target.parse(text)).value == 1


def test_constructions_in_closed_form():
    """The module docstring's closed forms: sqrt(2 pi) E[He_3 1{y=-1}] = -2 log 2 for K3 and
    sqrt(2 pi) E[He_4 1{y=-1}] = -6 a^3 exp(-a^2/2), a^2 = (2/3) log 2, for K4."""
    with mpmath.workdps(30):
        p = mpmath.sqrt(2 * mpmath.log(2))
        g = lambda j, a, b: mpmath.quad(lambda t: _hermite(j, t) * mpmath.exp(-t * t / 2), [a, b])  # noqa: E731
        k3 = g(3, -mpmath.inf, -p) + g(3, 0, p)
        assert abs(k3 + 2 * mpmath.log(2)) < 1e-20
        a = mpmath.sqrt(2 * mpmath.log(2) / 3)
        k4 = g(4, -2 * a, -a) + g(4, a, 2 * a)
        assert abs(k4 + 6 * a**3 * mpmath.exp(-a * a / 2)) < 1e-20
        assert abs(g(2, -2 * a, -a) + g(2, a, 2 * a)) < 1e-20


# ---------------------------------------------------------------------------------------------------------
# refusals, constants, bounds, bad input


@pytest.mark.parametrize("text, words", [
    ("sin(z)", "level sets"),
    ("tanh(z) + z**2", "level sets"),
    ("sign(sin(z))", "finite set"),
    ("sign(He40(z))", "degree 40"),
    ("relu(1/z)", "denominator"),
    ("sign(z)*exp(-z**2)", "non-polynomial pieces"),
])
def test_refused_links_say_why(text, words):
    start = time.perf_counter()
    result = generative_exponent_result(Target.parse(text))
    assert result.value is None and result.method == "refused", result
    assert words in result.reason
    assert time.perf_counter() - start < 2.0


def test_too_many_pieces_is_refused_quickly():
    text = " + ".join(f"relu(z - {i}/7)" for i in range(MAX_PIECES + 6))
    start = time.perf_counter()
    result = generative_exponent_result(text)
    assert result.value is None and result.method == "refused"
    assert f"more than {MAX_PIECES} pieces" in result.reason
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize("text", ["3", "sign(z)**2", "sigmoid(z) + sigmoid(-z)", "relu(z) - relu(-z) - z"])
def test_constant_links_have_no_exponent(text):
    result = generative_exponent_result(text)
    assert result.value is None and result.method == "exact"
    assert "no information" in result.reason


def test_multi_index_targets_are_refused():
    result = generative_exponent_result(Target.parse("z1 + He2(z2)"))
    assert result.value is None and result.method == "refused" and "rank 2" in result.reason
    assert generative_exponent(Target.parse("z1*z2")) is None


def test_numeric_method_is_stated():
    """Irrational coefficients with critical points: the preimage count is numeric, and the result says so."""
    result = generative_exponent_result("abs(sqrt(2)*z**2 - 1) + z/10")
    assert result.value == 1 and result.method == "numeric (40 digits)"
    assert "numerically" in result.reason


def test_bad_input():
    with pytest.raises(InvalidParameterTypeError):
        generative_exponent_result(42)
    with pytest.raises(InvalidParameterTypeError):
        generative_exponent(sp.Symbol("z"))
    with pytest.raises(InvalidTargetError):
        generative_exponent_result("relu(")
    with pytest.raises(InvalidTargetError):
        generative_exponent_result("__import__('os')")


def test_result_object():
    result = generative_exponent_result("relu(z) - z/2")
    assert isinstance(result, GenerativeExponent)
    assert result.as_dict() == {"value": 2, "method": "exact", "reason": result.reason}
    assert generative_exponent(Target.from_links(["relu"])) == 1  # a Target built from a link
    assert generative_exponent(Target.from_expression(relu(variable(1)) - variable(1) / 2)) == 2


def test_precision_is_restored():
    before = (mpmath.mp.dps, mpmath.iv.dps)
    generative_exponent_result(K4)
    assert (mpmath.mp.dps, mpmath.iv.dps) == before


# ---------------------------------------------------------------------------------------------------------
# flt leap


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


def _leap_json(runner: CliRunner, text: str) -> dict:
    result = runner.invoke(cli, ["leap", text, "--json"])
    assert result.exit_code == 0, (result.stdout, result.exception)
    return json.loads(result.stdout)


@pytest.mark.parametrize("text, k, method", [("relu(z) - z/2", 2, "exact"), ("He4(z)", 2, "exact"),
                                             (K3, 3, "exact"), ("sign(exp(z) - 2)", 1, "exact"),
                                             ("sin(z)", None, "refused"), ("z1 + He2(z2)", None, "refused")])
def test_flt_leap_json_generative_exponent(runner, text, k, method):
    document = _leap_json(runner, text)
    assert document["generative_exponent"] == k
    assert document["generative_exponent_method"] == method
    assert isinstance(document["generative_exponent_reason"], str) and document["generative_exponent_reason"]


def test_flt_leap_text_and_latex(runner):
    text = runner.invoke(cli, ["leap", "relu(z) - z/2"]).stdout
    assert "generative exponent" in text and "2 (exact" in text
    latex = runner.invoke(cli, ["leap", "relu(z) - z/2", "--latex"]).stdout
    assert r"k^*_{\mathrm{gen}} = 2" in latex
    refused = runner.invoke(cli, ["leap", "sin(z)"]).stdout
    assert "none (refused" in refused
