r"""Derivation as a test: the student coefficient of ReLU at a leap-2 target, :math:`c_\sigma = 1/\sqrt{2\pi}`.

Claim (Dandi, Krzakala, Loureiro, Pesce, Stephan 2023, arXiv 2305.18270). One giant step on a target of
leap index :math:`\ell` moves each neuron by an overlap proportional to the student coefficient
:math:`c_\sigma = \mu_\ell(\sigma)/(\ell-1)!`, with :math:`\mu_j(\sigma) = \mathbb E[\sigma(z)\,\mathrm{He}_j(z)]`,
:math:`z \sim N(0, 1)` (probabilists' Hermite polynomials,
:math:`\mathbb E[\mathrm{He}_j \mathrm{He}_k] = j!\,\delta_{jk}`).

Derivation (by hand). For :math:`\sigma = \mathrm{ReLU}` and :math:`\ell = 2`, :math:`\mathrm{He}_2(z) = z^2 - 1` and
:math:`\mu_2 = \int_0^\infty (z^3 - z)\,\varphi(z)\,dz = 2\varphi(0) - \varphi(0) = \varphi(0) = 1/\sqrt{2\pi}`,
using :math:`\int_0^\infty z\varphi = \varphi(0)` and :math:`\int_0^\infty z^3\varphi = 2\varphi(0)`; so
:math:`c_\sigma = \mu_2/1! = 1/\sqrt{2\pi} \approx 0.3989`.

The tests: sympy's exact integral and the library's exact Hermite coefficient agree with it; a seeded Monte Carlo
estimate over 8 seeds has a 95% CI that contains it; the wrong value :math:`\mu_1(\mathrm{ReLU}) = 1/2` (the
coefficient of a leap-1 target) is rejected by the same comparison on the same measurement.
"""

import numpy as np
import sympy as sp

from flt_theory.compare import assert_fails, check_at_least, check_at_most
from flt_theory.compare.result import all_of
from flt_theory.symbolic import hermite_coefficients, student_coefficient

DERIVED = 1 / sp.sqrt(2 * sp.pi)


def test_derivation_is_exact():
    z = sp.Symbol("z", real=True)
    phi = sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi)
    assert sp.simplify(sp.integrate((z**3 - z) * phi, (z, 0, sp.oo)) - DERIVED) == 0
    assert sp.simplify(hermite_coefficients("relu", 2).exact[2] - DERIVED) == 0
    assert sp.simplify(student_coefficient("relu", 2) - DERIVED) == 0


def equals(measured: np.ndarray, value: float):
    """The law E[X] = value: the 95% CI over seeds contains it (both one-sided checks consistent)."""
    return all_of(f"E = {value:.4f}", value, [check_at_least(measured, value), check_at_most(measured, value)])


def test_measured_by_monte_carlo():
    seeds = range(8)
    z = np.stack([np.random.default_rng(seed).standard_normal(200_000) for seed in seeds])  # (seeds, samples)
    measured = (np.maximum(z, 0.0) * (z**2 - 1)).mean(axis=1)  # one estimate of mu_2(relu) per seed
    result, control = equals(measured, float(DERIVED)), equals(measured, 0.5)  # control: mu_1(relu) = 1/2
    print(f"mean over seeds {measured.mean():.5f}\nlaw      {result.message}\ncontrol  {control.message}")
    assert result.passed, result.message
    assert_fails(control)  # the wrong value must be rejected by the same comparison
