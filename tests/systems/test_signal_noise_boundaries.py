"""Signal-noise phase boundaries: per-seed bisection of ||mu||*, then a power-law fit over seeds.

Each check reads its exponent from the law object (:mod:`flt_theory.systems.signal_noise.laws`) and the
SAME measurement is compared with a wrong law, which must fail.
"""

import math

import numpy as np
import pytest

from flt_theory.compare import check_limit_power_law, check_power_law
from flt_theory.numeric.signal_noise import SignalNoiseConfig, draw
from flt_theory.runner.sweep import sweep
from flt_theory.systems.signal_noise import laws
from flt_theory.systems.signal_noise.declaration import relu_inside_point
from flt_theory.systems.signal_noise.model import boundary_mu_norm
from flt_theory.systems.signal_noise.readouts import bisection_resolution, boundary_table


def _snr_star(q, n, d, seeds, *, eta_scale, s0, level, low, high, max_steps, iterations=8, m=10):
    dr = draw(seeds, n=n, d=d, width=m, n_test=4000, device="cpu")
    cfg = SignalNoiseConfig(q=q, mu_norm=1.0, sigma0=s0 / math.sqrt(d), eta=eta_scale * n * m / d, eps=0.05,
                            max_steps=max_steps)
    star = boundary_mu_norm(dr, cfg, level=level, low=low * math.sqrt(d), high=high * math.sqrt(d),
                            iterations=iterations)
    return star.numpy() / math.sqrt(d)


@pytest.mark.slow  # the same measurement runs in the default suite as the claim signal-noise/relu-boundary-slope
def test_relu_boundary_slope_is_minus_one_quarter():
    # Kou et al. 2023: n ||mu||^4 ~ sigma_xi^4 d, SNR* ~ n^(-1/4). Measured (d = 1e5, n = 16..256, 8 seeds):
    # slope -0.244 [-0.254, -0.234]; tolerance 0.02 = the largest drift of the local slope between doublings of n.
    ns = np.array([16, 32, 64, 128])
    y = np.stack([_snr_star(1, n, 10**5, 6, eta_scale=1.0, s0=3e-3, level=0.1, low=3e-3, high=0.2, max_steps=2000)
                  for n in ns], axis=1)
    law, wrong = laws.kou_boundary(), laws.cao_boundary(3)  # control: the other activation's boundary
    assert check_power_law(ns, y, law.exponent("n"), tolerance=0.02).passed
    assert not check_power_law(ns, y, wrong.exponent("n"), tolerance=0.02).passed
    collapse = ns * (y * math.sqrt(10**5)) ** 4 / 10**5  # n ||mu*||^4 / (sigma_xi^4 d): constant
    assert collapse.mean(0).max() / collapse.mean(0).min() < 1.3


@pytest.mark.slow
def test_relu_q_boundary_is_independent_of_d():
    # Cao et al. 2022: n SNR*^q = const, no d at fixed n, here OUTSIDE Condition 4.2 (GD, d < m^4 n^4; the claim
    # signal-noise/relu3-boundary-d measures inside). Measured (q = 3, n = 32, d = 1e4..1e6, 8 seeds):
    # exponent of SNR* in d -0.025; tolerance 0.05 (log factors of the tilde-Omega); control: ReLU's (nd)^(-1/4).
    ds = np.array([10**4, 10**5, 10**6])
    y = np.stack([_snr_star(3, 32, d, 8, eta_scale=0.3, s0=0.01, level=0.25, low=0.05, high=1.5, max_steps=3000)
                  for d in ds], axis=1)
    assert check_power_law(ds, y, laws.cao_boundary(3).exponent("d"), tolerance=0.05).passed
    assert not check_power_law(ds, y, laws.kou_boundary().exponent("d"), tolerance=0.05).passed


@pytest.mark.slow
def test_relu_q_boundary_slope_in_n_is_shallower_than_minus_one_over_q():
    # Outside Cao et al.'s Condition 4.2 (GD, d = 1e5, sigma0 sqrt(d) = 0.01; laws.relu_q_slope_finding, kept on
    # record; the claim signal-noise/relu3-boundary-slope measures inside, by gradient flow).
    # At n = 16..256, d = 1e5, m = 10, the ReLU^3 boundary slope is -0.293 [-0.310, -0.275]: the literal
    # -1/q of Cao et al. 2022 is excluded at these sizes (n SNR*^3 grows ~ n^0.12, the log factor of tilde-Omega),
    # and so is -1/(q+1); the slope lies strictly between them.
    ns = np.array([16, 32, 64, 128, 256])
    y = np.stack([_snr_star(3, n, 10**5, 6, eta_scale=0.3, s0=0.01, level=0.25, low=0.05, high=1.0, max_steps=3000,
                            iterations=10) for n in ns], axis=1)
    q = 3
    literal = check_power_law(ns, y, laws.cao_boundary(q).exponent("n"))
    assert not literal.passed
    low, high = literal.ci
    assert -1 / q < low and high < -1 / (q + 1)


def test_the_boundary_comparisons_count_the_bisections_resolution():
    """A finding's one fit is demonstrated inside its interval only with the bisection's resolution counted
    (:func:`flt_theory.compare.fit_resolution_bound`): the same seeds pass at 10 halvings and fail at 3, whose
    bracket can move the fit past -1/4; a law's effective exponents carry it too."""
    import pandas as pd

    from flt_theory.compare import fit_resolution_bound
    from flt_theory.systems.signal_noise.declaration import compare_boundary_slope

    ns = np.array([16.0, 32, 64, 128, 256])
    rng = np.random.default_rng(0)
    y = 0.5 * ns**-0.27 * np.exp(0.002 * rng.standard_normal((8, len(ns))))

    def frame(halvings):
        return pd.DataFrame([{"n": int(n), "seed": s, "snr_star": y[s, k], "snr_low": 0.1, "snr_high": 0.8,
                              "iterations": halvings, "activation": "relu(z)**3"}
                             for k, n in enumerate(ns) for s in range(len(y))])

    finding = laws.relu_q_slope_finding(3)
    fine, coarse = (compare_boundary_slope(frame(h), finding, variable="n", tolerance=0.0) for h in (10, 3))
    assert fine.passed and not coarse.passed, (fine.message, coarse.message)
    slack = fit_resolution_bound(ns, [np.log(8) / 2**4] * len(ns))
    assert coarse.ci[1] == pytest.approx(fine.ci[1] - fit_resolution_bound(ns, [np.log(8) / 2**11] * len(ns)) + slack)
    law = compare_boundary_slope(frame(3), laws.kou_boundary(), variable="n", tolerance=0.02)
    low, high = law.details["effective"][0]["ci"]
    assert high - low > 2 * 2 * np.log(8) / 2**4 / np.log(2)  # at least the resolution's (rho_1 + rho_2)/log 2


@pytest.mark.slow
def test_relu_boundary_in_d_needs_the_initialisation_at_a_fixed_fraction_of_its_bound():
    """Why the paper ladder of ``relu-boundary-d`` puts sigma0 sqrt(d) = f sqrt(n/d) (RELU_INIT_FRACTION): inside
    Condition 4.1 (flow, n = 32, 16 seeds, 10 halvings) a FIXED sigma0 sqrt(d) = 1e-4 moves f like sqrt(d) and its
    effective exponents stay below -1/4 (measured -0.2584, -0.2564, -0.2552; the limit excludes -1/4 at p = 5.5e-5),
    while at the fixed fraction the same ladder's limit holds -1/4 and rejects Cao et al.'s 0 (LIMIT_READINGS)."""
    def ladder(sigma0_sqrt_d):
        points = [{**relu_inside_point(32, d), "iterations": 10,
                   **({"sigma0_sqrt_d": sigma0_sqrt_d} if sigma0_sqrt_d else {})} for d in (10**4, 10**5, 10**6, 10**7)]
        frame = sweep("signal-noise/boundary", points=points, seeds=16)
        xs, y, _ = boundary_table(frame, "d")
        return lambda exponent: check_limit_power_law(xs, y, exponent, variable="d",
                                                      resolution=bisection_resolution(frame, "d"))

    level = 0.05 / 85
    fixed, fraction = ladder(1e-4), ladder(None)
    assert fixed(-0.25).details["p_value"] < level
    assert fraction(-0.25).passed and fraction(0.0).details["p_value"] < level
