"""The limit decision (flt_theory.compare.limit): effective exponents, the extrapolation's coverage and its power.

The coverage test draws synthetic ladders y = C x^a (1 + b x^-omega) * noise with known a over 240 draws of
(a, b, omega, noise) and measures how often the limit's 95% set covers a, how often the wrong exponents a +- 1/2 are
excluded, and how often a law that lacks the data's log factor is failed outright. Measured (seed 0 of this file,
8 seeds per rung, 6 rungs over 1.5 decades; Akaike support 6): coverage 0.996, wrong exponents excluded 1.000,
missing log failed outright 0.850 and passed 0/240 (its log mutant, the truth, is the control: when the missing-log law
is not failed the claim is inconclusive). With the support 2 of the first design: 0.992, 1.000, 0.883, 0/240.
"""

from __future__ import annotations

import numpy as np
import pytest

from flt_theory.compare import check_limit_power_law, decide_claim, effective_exponents, fit_limit
from flt_theory.compare.verdict import PASS
from flt_theory.errors import InvalidParameterError

LADDER = 32.0 * 2.0 ** np.arange(6)  # 32 .. 1024: 1.5 decades, 6 rungs
DRAWS = 240


def _draw(rng: np.random.Generator, log_power: int = 0) -> tuple[float, np.ndarray]:
    a, b, omega, sigma = rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(0.5, 2), rng.uniform(0.01, 0.1)
    noise = np.exp(sigma * rng.standard_normal((8, len(LADDER))))
    return a, 3 * LADDER**a * np.log(LADDER) ** log_power * (1 + b * LADDER**-omega) * noise


def test_coverage_and_power_of_the_extrapolation() -> None:
    rng = np.random.default_rng(0)
    covered = wrong_excluded = log_failed = log_passed = 0
    for i in range(DRAWS):
        a, y = _draw(rng)
        fit = fit_limit(LADDER, y, law_exponent=a, n_resamples=1000, rng=i)
        covered += fit.p_value(0.0) >= 0.05
        wrong_excluded += fit.p_value(0.5) < 0.05 and fit.p_value(-0.5) < 0.05
        a, y = _draw(rng, log_power=1)
        missing = check_limit_power_law(LADDER, y, a, n_resamples=1000, rng=i)
        truth = check_limit_power_law(LADDER, y, a, log_power=1, n_resamples=1000, rng=i)
        log_failed += not missing.passed
        log_passed += decide_claim(missing, truth).outcome == PASS  # the law without the log, its log mutant as control
    assert covered / DRAWS >= 0.92, covered / DRAWS
    assert wrong_excluded / DRAWS >= 0.95, wrong_excluded / DRAWS
    assert (DRAWS - log_passed) / DRAWS >= 0.95, log_passed
    assert log_failed / DRAWS >= 0.8, log_failed / DRAWS  # failed outright, not only undecided


def test_effective_exponents_are_local_slopes_with_paired_intervals() -> None:
    x = np.array([10.0, 100.0, 1000.0])
    exact = effective_exponents(x, np.ones((4, 1)) * x**2)
    assert [r["estimate"] for r in exact] == pytest.approx([2.0, 2.0])
    assert [(r["from"], r["to"]) for r in exact] == [(10.0, 100.0), (100.0, 1000.0)]
    # a common factor per seed (paired seeds) cancels in every local slope: the interval has zero width
    per_seed = np.exp(np.random.default_rng(0).standard_normal((8, 1)))
    paired = effective_exponents(x, per_seed * x**2)
    assert all(r["ci"][1] - r["ci"][0] < 1e-9 for r in paired)
    logged = effective_exponents(x, np.ones((4, 1)) * x * np.log(x), log_power=1)
    assert [r["estimate"] for r in logged] == pytest.approx([1.0, 1.0])


def test_a_converging_correction_passes_and_a_persisting_deviation_fails() -> None:
    rng = np.random.default_rng(0)  # one example (the coverage is measured above)
    x = 16.0 * 2.0 ** np.arange(7)
    noise = np.exp(0.02 * rng.standard_normal((16, len(x))))
    converging = x**-0.5 * (1 + 3 * x**-1.0) * noise  # effective exponents -0.66 .. -0.5: converge to the law
    assert check_limit_power_law(x, converging, -0.5).passed
    assert not check_limit_power_law(x, converging, -1.0).passed  # negative control
    drifting = x**-0.5 * np.log(x) ** -0.5 * noise  # the deviation decays like 1/log x: a log the law lacks
    result = check_limit_power_law(x, drifting, -0.5)
    assert not result.passed, result.message
    assert check_limit_power_law(x, drifting, -0.5, log_power=-0.5).passed


def test_two_rungs_identify_no_limit_so_the_claim_is_inconclusive() -> None:
    x = np.array([100.0, 200.0])
    y = x * np.exp(0.01 * np.random.default_rng(0).standard_normal((8, 2)))
    law, wrong = check_limit_power_law(x, y, 1.0), check_limit_power_law(x, y, 1.5)
    assert law.passed and wrong.passed and law.ci == (-np.inf, np.inf)
    assert decide_claim(law, wrong).outcome == "inconclusive"
    assert len(law.details["effective"]) == 1


def test_same_seed_same_numbers_and_clear_errors() -> None:
    x = np.array([8.0, 16.0, 32.0, 64.0])
    y = x * np.exp(0.05 * np.random.default_rng(0).standard_normal((8, 4)))
    assert check_limit_power_law(x, y, 1.0, rng=5).to_dict() == check_limit_power_law(x, y, 1.0, rng=5).to_dict()
    with pytest.raises(InvalidParameterError, match="strictly increasing"):
        check_limit_power_law(x[::-1], y, 1.0)
    with pytest.raises(InvalidParameterError, match="positive"):
        check_limit_power_law(x, -y, 1.0)
    with pytest.raises(InvalidParameterError, match="log"):
        check_limit_power_law(np.array([0.5, 2.0, 4.0]), y[:, :3], 1.0, log_power=1)


def test_a_power_law_check_shows_its_effective_exponents_without_deciding_on_them() -> None:
    from flt_theory.compare import check_power_law

    x = np.array([4.0, 1.0, 2.0, 8.0])  # any order: the effective exponents follow increasing sizes
    y = x**1.5 * np.exp(0.05 * np.random.default_rng(0).standard_normal((8, 4)))
    result = check_power_law(x, y, 1.5)
    order = np.argsort(x)
    assert result.details["effective"] == effective_exponents(x[order], y[:, order])
    assert [e["from"] for e in result.details["effective"]] == [1.0, 2.0, 4.0]
    assert check_power_law(np.array([1.0, 1.0, 2.0]), y[:, :3], 1.5).details["effective"] is None  # repeated sizes


def test_a_failure_the_largest_sizes_do_not_confirm_is_unsettled() -> None:
    """The attention boundary of flt verify (mu_norm* ~ n^(-1/2) at test loss 0.35, n = 2..128, 8 seeds): effective
    exponents -0.4866, -0.4970, -0.4974, -0.5006 [-0.5055, -0.4951]; the first-order extrapolation gave
    -0.4978 [-0.4994, -0.4972], yet the last rung holds -1/2: unsettled (inconclusive), not failed. A last rung that
    excludes the law too is a settled failure."""
    from flt_theory.compare import CheckResult
    from flt_theory.compare.limit import unsettled_failure

    rungs = [{"from": 2.0, "to": 4.0, "estimate": -0.4866, "ci": [-0.4889, -0.4842]},
             {"from": 64.0, "to": 128.0, "estimate": -0.5006, "ci": [-0.5055, -0.4951]}]
    details = {"effective": rungs, "limit": {"estimate": -0.4978, "ci": [-0.4994, -0.4972], "model": "x^-3"},
               "p_largest": 0.8}  # the law's p-value at the last rung alone (it holds -1/2)
    failed = CheckResult("boundary", False, -0.5, -0.4978, (-0.4994, -0.4972), 8, "m", details)
    assert "larger sizes would settle it" in unsettled_failure(failed)
    persisting = {**details, "effective": [*rungs[:1], {**rungs[1], "ci": [-0.499, -0.497]}], "p_largest": 1e-4}
    assert unsettled_failure(CheckResult("boundary", False, -0.5, -0.4978, (-0.4994, -0.4972), 8, "m",
                                         persisting)) == ""
    assert unsettled_failure(CheckResult("boundary", True, -0.5, -0.5, (-0.51, -0.49), 8, "m", details)) == ""


def test_precise_data_with_a_large_correction_keep_the_true_law() -> None:
    """The exact correction shape, not its first order: a true law with 1 + x^(-1/2) from x = 32 at 0.1% noise (the
    first-order fit rejected it in 8/10 ladders) passes; its wrong exponent fails."""
    x = np.array([32.0, 64, 128, 256, 512])
    for seed in range(5):
        y = x * (1 + x**-0.5) * np.exp(1e-3 * np.random.default_rng(seed).standard_normal((8, 5)))
        assert check_limit_power_law(x, y, 1.0).passed
        assert not check_limit_power_law(x, y, 1.1).passed


def test_a_log_law_allows_the_constant_beside_its_log_and_a_law_without_one_does_not() -> None:
    """y = x (log x + c): the effective exponents of y/log x approach 1 like 1/log^2 x, slower than any power; the
    law x log x allows the correction 1 + B/log x and passes, while the law x (no log) still fails on the same data
    (a ratio growing like log x is no vanishing correction)."""
    x = 64.0 * 2.0 ** np.arange(5)
    noise = np.exp(0.02 * np.random.default_rng(0).standard_normal((32, len(x))))
    for c in (2.0, 5.0, 10.0):
        y = x * (np.log(x) + c) * noise
        with_log = check_limit_power_law(x, y, 1.0, log_power=1, variable="d")
        assert with_log.passed, with_log.message
        assert any(s["model"] == "correction 1/log d" for s in with_log.details["limit"]["shapes"])
    assert not check_limit_power_law(x, x * np.log(x) ** 2 * noise, 1.0, log_power=1).passed  # a log too many
    no_log = fit_limit(x, x * np.log(x) * noise, law_exponent=1.0)
    assert all("log" not in shape[0] for shape in no_log.shapes)


def test_an_unsettled_failure_or_rejection_is_inconclusive_in_every_verdict() -> None:
    """A comparison the extrapolation fails while its largest rungs hold the law (details p_largest) is INCONCLUSIVE,
    not FAIL; as a wrong law it is not rejected, neither by flt check's claim decision nor by flt calibrate's count."""
    from flt_theory.checking.check import rejects
    from flt_theory.compare import CheckResult
    from flt_theory.compare.verdict import INCONCLUSIVE, decide

    rungs = [{"from": 64.0, "to": 128.0, "estimate": 1.1, "ci": [0.9, 1.3]}]
    limit = {"estimate": 1.2, "ci": [1.1, 1.3], "model": "no correction", "confidence": 0.95}
    unsettled = CheckResult("rate", False, 1.0, 1.2, (1.1, 1.3), 16, "rate: FAIL",
                            {"p_value": 1e-6, "p_largest": 0.3, "limit": limit, "effective": rungs})
    settled = CheckResult("rate", False, 1.0, 1.2, (1.1, 1.3), 16, "rate: FAIL",
                          {"p_value": 1e-6, "p_largest": 1e-8, "limit": limit, "effective": rungs})
    law = CheckResult("rate", True, 1.2, 1.2, (1.1, 1.3), 16, "rate: PASS", {"p_value": 0.5})
    assert decide(unsettled, 0.001).outcome == INCONCLUSIVE and decide(unsettled, 0.001).unsettled
    assert decide(settled, 0.001).outcome == "fail"
    assert decide_claim(law, unsettled, 0.001).outcome == INCONCLUSIVE
    assert decide_claim(law, settled, 0.001).outcome == PASS
    assert not rejects(unsettled.to_dict(), 0.001) and rejects(settled.to_dict(), 0.001)


def test_a_conjunction_is_unsettled_only_where_every_part_that_fails_it_is() -> None:
    """A law decided in the limit on two ladders (``all_of`` of two limit checks, e.g. giant-step's norm law) keeps the
    rule of each: failed only by an unsettled part, it is INCONCLUSIVE (and as a wrong law not rejected); one settled
    failing part fails it. At a level the parts are read at their Bonferroni share: a part at p = 3e-4 fails a
    conjunction of two at 1e-3 (the share is 5e-4) and is read at that share."""
    from flt_theory.checking.check import rejects
    from flt_theory.compare import CheckResult
    from flt_theory.compare.result import all_of
    from flt_theory.compare.verdict import INCONCLUSIVE, decide

    rungs = [{"from": 64.0, "to": 128.0, "estimate": 1.1, "ci": [0.9, 1.3]}]
    limit = {"estimate": 1.2, "ci": [1.1, 1.3], "model": "no correction", "confidence": 0.95}

    def part(p_value: float, p_largest: float) -> CheckResult:
        return CheckResult("rate", p_value >= 0.05, 1.0, 1.2, (1.1, 1.3), 16, "rate",
                           {"p_value": p_value, "p_largest": p_largest, "limit": limit, "effective": rungs})

    holding = part(0.5, 0.9)
    unsettled = all_of("law", "law", [holding, part(1e-6, 0.3)])
    settled = all_of("law", "law", [holding, part(1e-6, 1e-8)])
    both = all_of("law", "law", [part(1e-6, 0.3), part(1e-7, 1e-8)])
    assert decide(unsettled, 1e-3).outcome == INCONCLUSIVE and "larger sizes" in decide(unsettled, 1e-3).reason
    assert decide(settled, 1e-3).outcome == "fail" and decide(both, 1e-3).outcome == "fail"
    assert not rejects(unsettled.to_dict(), 1e-3) and rejects(settled.to_dict(), 1e-3)
    assert decide(unsettled).outcome == INCONCLUSIVE and decide(settled).outcome == "fail"  # at the parts' own level
    at_share = all_of("law", "law", [holding, part(3e-4, 7e-4)])  # p_largest above 5e-4: unsettled at the share
    assert decide(at_share, 1e-3).outcome == INCONCLUSIVE
    below_share = all_of("law", "law", [holding, part(3e-4, 4e-4)])  # its largest rungs fail at the share too
    assert decide(below_share, 1e-3).outcome == "fail"
    # a part failing at 0.05 but holding at its share (7e-4 >= 5e-4) does not fail the conjunction: the settled
    # failure of that part leaves the conjunction unsettled, where reading the parts' own flags would fail it
    assert decide(all_of("law", "law", [part(3e-4, 7e-4), part(7e-4, 1e-9)]), 1e-3).outcome == INCONCLUSIVE


def test_the_largest_rungs_p_value_reads_the_last_effective_exponent() -> None:
    """p_largest is the law's p-value at the last effective exponent alone: near 1 where that exponent sits on the
    law, tiny where it is far, whatever the extrapolation says."""
    x = 32.0 * 2.0 ** np.arange(5)
    noise = np.exp(0.02 * np.random.default_rng(3).standard_normal((16, len(x))))
    y = x * (1 + 4 * x**-0.5) * noise  # effective exponents climb towards 1
    on_law, off_law = check_limit_power_law(x, y, 1.0), check_limit_power_law(x, y, 1.5)
    last = on_law.details["effective"][-1]
    assert last["ci"][0] <= 1.0 <= last["ci"][1] or on_law.details["p_largest"] < 0.05
    assert off_law.details["p_largest"] < 1e-6 and not off_law.passed


def _bisected(y: np.ndarray, low: float, high: float, halvings: int) -> tuple[np.ndarray, float]:
    """``y`` as a bisection in log y over [low, high] returns it after ``halvings`` halvings (the midpoint of the last
    bracket), and the half-width of that bracket in log y."""
    width = (np.log(high) - np.log(low)) / 2**halvings
    cells = np.floor((np.log(y) - np.log(low)) / width)
    return np.exp(np.log(low) + (cells + 0.5) * width), width / 2


def test_a_bisection_resolution_widens_the_intervals_by_what_it_can_carry() -> None:
    """Seeds whose crossings fall in one bracket agree exactly, so without their resolution the intervals have zero
    width and a true law fails whenever a correction moves the crossings across a bracket's edge (here 20 of 50
    ladders, measured); with it the true law passes on every ladder and the wrong exponent -1/4 is rejected on every
    one."""
    x = np.array([1e3, 1e4, 1e5, 1e6])
    failed = failed_with_resolution = wrong_passed = 0
    for draw in range(50):
        rng = np.random.default_rng(draw)
        crossings = rng.uniform(0.3, 0.8) * (1 + rng.uniform(-1, 1) * x**-0.5) * np.exp(
            1e-3 * rng.standard_normal((16, len(x))))
        y, rho = _bisected(crossings, 0.1, 2.0, 6)
        failed += not check_limit_power_law(x, y, 0.0).passed
        failed_with_resolution += not check_limit_power_law(x, y, 0.0, resolution=[rho] * len(x)).passed
        wrong_passed += check_limit_power_law(x, y, -0.25, resolution=[rho] * len(x)).passed
        for rung in effective_exponents(x, y, resolution=[rho] * len(x)):  # each covers the crossings' own
            low, high = rung["ci"]
            i = int(np.flatnonzero(x == rung["from"])[0])
            truth = np.log(crossings[:, i + 1].mean() / crossings[:, i].mean()) / np.log(x[i + 1] / x[i])
            assert low - 1e-12 <= truth <= high + 1e-12, (draw, rung, truth)
    assert failed >= 10 and failed_with_resolution == 0 and wrong_passed == 0, (failed, failed_with_resolution,
                                                                                 wrong_passed)


def test_a_rungs_resolution_enters_its_two_exponents_with_opposite_signs() -> None:
    """The bound follows each rung: precise data (0.01% noise) off by 99% of rho_j at rung j (a different rho per rung,
    every pattern of signs) keep the true law, in both directions of a limit, the largest rungs' p-value included;
    with a quarter of the resolution the largest rungs reject it (the extrapolation's over-dispersion factor widens
    its own interval for a zigzag no correction fits)."""
    x = np.array([10.0, 100.0, 1000.0, 10000.0])
    rho = np.array([0.02, 0.001, 0.04, 0.003])
    noise = np.exp(1e-4 * np.random.default_rng(0).standard_normal((16, len(x))))
    for signs in np.array(np.meshgrid(*[[-1.0, 1.0]] * len(x))).reshape(len(x), -1).T:
        y = 2.0 * x**-0.5 * np.exp(0.99 * signs * rho) * noise
        result = check_limit_power_law(x, y, -0.5, resolution=rho)
        assert result.passed and result.details["p_largest"] >= 0.05, (signs, result.message)
        toward_zero = check_limit_power_law(1 / x[::-1], y[:, ::-1], 0.5, toward="zero", resolution=rho[::-1])
        assert toward_zero.passed, (signs, toward_zero.message)
    y = 2.0 * x**-0.5 * np.exp(0.99 * np.array([1.0, -1.0, 1.0, -1.0]) * rho) * noise
    assert check_limit_power_law(x, y, -0.5, resolution=rho / 4).details["p_largest"] < 1e-6


def test_a_resolution_needs_one_nonnegative_value_per_rung() -> None:
    x, y = np.array([1.0, 2.0, 4.0]), np.ones((4, 3))
    with pytest.raises(InvalidParameterError, match="'resolution'.*one value per rung"):
        check_limit_power_law(x, y, 0.0, resolution=[0.1, 0.1])
    with pytest.raises(InvalidParameterError, match="resolution"):
        check_limit_power_law(x, y, 0.0, resolution=[0.1, -0.1, 0.1])


def test_grid_ladders_average_over_the_other_size_with_seeds_paired() -> None:
    from flt_theory.compare import grid_ladders

    a, b = (v.ravel() for v in np.meshgrid([2.0, 4.0, 8.0], [10.0, 1000.0], indexing="ij"))
    per_seed = np.array([[1.0], [3.0]])  # seed 1 is three times seed 0 at every point
    (xa, ya), (xb, yb) = grid_ladders(a[::-1], b[::-1], per_seed * (a**2 / b)[::-1])  # column order is free
    assert xa.tolist() == [2.0, 4.0, 8.0] and xb.tolist() == [10.0, 1000.0]
    assert ya[0] == pytest.approx([4 * 0.0505, 16 * 0.0505, 64 * 0.0505])
    assert yb[1] == pytest.approx(3 * np.array([84 / 3 / 10, 84 / 3 / 1000]))
    assert effective_exponents(xa, ya)[0]["estimate"] == pytest.approx(2.0)
    with pytest.raises(InvalidParameterError, match=r"lacks the points \(n, d\) = \(8, 1000\)"):
        grid_ladders(a[:-1], b[:-1], per_seed * (a**2 / b)[:-1], labels=("n", "d"))
    with pytest.raises(InvalidParameterError, match="twice"):
        grid_ladders(np.append(a, 2.0), np.append(b, 10.0), np.ones((2, 7)))
    with pytest.raises(InvalidParameterError, match="one \\(x1, x2\\) per column"):
        grid_ladders(a, b, np.ones((2, 5)))


def test_limit_2d_decides_each_exponent_on_its_own_ladder() -> None:
    from flt_theory.compare import check_limit_power_law_2d

    n, d = (v.ravel() for v in np.meshgrid([16.0, 32, 64, 128, 256], [1e4, 1e5, 1e6, 1e7, 1e8], indexing="ij"))
    noise = np.exp(0.005 * np.random.default_rng(3).standard_normal((12, n.size)))
    y = n**-0.25 * d**-0.25 * (1 + 0.5 / n) * noise
    law = check_limit_power_law_2d(n, d, y, (-0.25, -0.25), labels=("n", "d"))
    assert law.passed, law.message
    assert [part["name"] for part in law.details["parts"]] == ["exponent of n (mean over d), n → ∞",
                                                              "exponent of d (mean over n), d → ∞"]
    assert len(law.details["parts"][0]["details"]["effective"]) == 4
    wrong_d = check_limit_power_law_2d(n, d, y, (-0.25, 0.0), labels=("n", "d"))  # the d part alone is wrong
    assert not wrong_d.passed and [p["passed"] for p in wrong_d.details["parts"]] == [True, False]
    # Bonferroni over the two parts
    assert wrong_d.details["p_value"] == pytest.approx(min(1.0, 2 * wrong_d.details["parts"][1]["details"]["p_value"]))
    # a limit toward zero in one size: in u = 1/n, y ∝ u^(1/4) as u → 0
    small = check_limit_power_law_2d(1 / n, d, y, (0.25, -0.25), labels=("u", "d"), toward=("zero", "infinity"),
                                     limits=("u → 0", "d → ∞"))
    assert small.passed and small.details["parts"][0]["name"] == "exponent of u (mean over d), u → 0"


@pytest.mark.parametrize("option", ["predicted_exponents", "labels", "toward", "limits"])
def test_limit_2d_refuses_anything_but_a_pair(option) -> None:
    from flt_theory.compare import check_limit_power_law_2d

    n, d = (v.ravel() for v in np.meshgrid([16.0, 32, 64], [1e4, 1e5, 1e6], indexing="ij"))
    kwargs = {"predicted_exponents": (-0.25, -0.25), "labels": ("n", "d"), option: ("x",)}
    exponents = kwargs.pop("predicted_exponents")
    with pytest.raises(InvalidParameterError, match=f"'{option}' parameter of check_limit_power_law_2d"):
        check_limit_power_law_2d(n, d, np.ones((4, 9)), exponents, **kwargs)


def test_a_slow_correction_on_a_precise_ladder_keeps_the_true_law_at_the_catalogue_level() -> None:
    """The limit at the catalogue's per-claim level 0.05/85 on ladders like the g = z online-SGD claims' at paper
    (6 rungs, 128 seeds, 1% noise, a correction x^(-1/2) of the size the start m0 = 1/sqrt(d) gives): a calibrated
    decision rejects the true exponent in about 0.06 of 100 ladders, so at most 1, and still rejects a ± 1/4. With the
    Akaike support 2 of the first design: 4 of 100 (the x^(-1/2) shape, which puts the limit at the law, left the
    union with a residual 2 to 9 above the best; what the paper calibration of recovery-time-k1 and
    batch-iterations-k1 met, 1 of 20 seed sets each). With 6: 0, and ± 1/4 rejected in all 100."""
    x = 256.0 * 2.0 ** np.arange(6)
    rng = np.random.default_rng(1)
    rejected = wrong_kept = 0
    level = 0.05 / 85
    for i in range(100):
        y = 3 * x * (1 - 1.8 * x**-0.5) * np.exp(0.01 * rng.standard_normal((128, len(x))))
        fit = fit_limit(x, y, law_exponent=1.0, rng=i)
        rejected += fit.p_value() < level
        wrong_kept += fit.p_value(0.25) >= level or fit.p_value(-0.25) >= level
    assert rejected <= 1, rejected
    assert wrong_kept <= 5, wrong_kept
