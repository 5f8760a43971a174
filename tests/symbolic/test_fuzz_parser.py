"""Fuzzing the restricted grammar: every string returns a result or the project's error, quickly.

Two generators: random text (any unicode, and text over the grammar's own alphabet), and
grammar-aware expressions (nested calls, Hermite compositions, powers, constants under
transcendental functions, huge literals) in the style of the fuzz campaign of issue 17. Each case
runs :meth:`Target.parse` and, when that succeeds, the leap index (a Hermite expansion: exact,
closed form or quadrature) under a per-case hypothesis deadline. A failure is any exception that is
not an :class:`~flt_theory.errors.FLTError`, or a case slower than the deadline. The default run
draws about 800 cases (the grammar-aware ones, each expanded, are the costly ones: 300; random text 500: with the
grammar-aware ones they run the same lines of the package and meet the same kinds of error as 2,000 random texts did,
measured with a line tracer); ``python -m pytest -m slow tests/symbolic/test_fuzz_parser.py`` draws 20,000 of both
kinds.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from flt_theory.errors import FLTError
from flt_theory.symbolic.leap import leap_index
from flt_theory.symbolic.target import Target

# the budget of flt_theory.symbolic.budget is about 2 s per input on a quiet core; the deadline allows 5x that for a
# shared, loaded machine (the failures it exists to catch, an unbounded expansion or a hang, take minutes)
DEADLINE_MS = 10_000
FUNCTIONS = ["relu", "tanh", "sigmoid", "erf", "exp", "sin", "cos", "abs", "sign", "sqrt"]
ALPHABET = "z123456789 0.eE+-*/()^,pi" + "".join(FUNCTIONS) + "He\u0661\u00b2\u2212"

numbers = st.one_of(
    st.integers(0, 10**45).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: repr(abs(x))),
    st.sampled_from(["1e300", "1e-300", "1e1000", "9" * 40, "0", "0.5", "pi", "2**64", "(sin(1)**2+cos(1)**2-1)"]),
)
variables = st.sampled_from(["z", "z1", "z2", "z3", "z60", "z0", "z65"])
atoms = st.one_of(numbers, variables)


def _extend(children):
    return st.one_of(
        st.tuples(st.sampled_from(FUNCTIONS), children).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.integers(0, 70), children).map(lambda t: f"He{t[0]}({t[1]})"),
        st.tuples(children, st.sampled_from(["+", "-", "*", "/"]), children).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
        st.tuples(children, st.sampled_from(["2", "3", "64", "-1", "-64", "0.5", "1/3", "65", "pi"])).map(
            lambda t: f"({t[0]})**{t[1]}"
        ),
    )


expressions = st.recursive(atoms, _extend, max_leaves=12)
random_text = st.one_of(st.text(max_size=60), st.text(alphabet=ALPHABET, max_size=60))


def _result_or_project_error(text: str, expand: bool) -> None:
    start = time.perf_counter()
    try:
        target = Target.parse(text)
        if expand:
            leap_index(target, degree=4)
    except FLTError as exc:
        assert "\n" not in str(exc), "errors are one line"
    assert time.perf_counter() - start < DEADLINE_MS / 1000


_common = dict(deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@settings(max_examples=500, **_common)
@given(random_text)
def test_random_text_gives_a_result_or_the_projects_error(text):
    _result_or_project_error(text, expand=False)


@settings(max_examples=300, **_common)
@given(expressions)
@example(text="He13((relu(z3)*He13(z3)))")  # took 7 s (sympy's multinomial expansion of a degree-182 polynomial)
@example(text="He11((sin(z3)*He11(z3)))")  # took 32 s (an exact exponential polynomial of 3572 terms)
@example(text="((relu(z2)+tanh(3)))**64")  # ran for minutes (sympy.simplify of a 65-term coefficient in tanh(3))
def test_grammar_aware_expressions_give_a_result_or_the_projects_error(text):
    _result_or_project_error(text, expand=True)


@pytest.mark.slow
@settings(max_examples=20_000, **_common)
@given(st.one_of(random_text, expressions))
def test_fuzz_parser_many_cases(text):
    _result_or_project_error(text, expand=True)
