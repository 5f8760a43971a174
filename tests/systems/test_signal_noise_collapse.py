"""The ReLU collapse's measurement and decision (``relu-collapse``) on synthetic test-error curves: its own
initialisation at a fixed fraction of its bound, the limit branch on a full grid, the one fit on a 2 x 2 grid, and
its figure drawing every curve."""

import math

import numpy as np
import pandas as pd

from flt_theory.checking.check import decide
from flt_theory.systems.registry import registered_claims
from flt_theory.systems.signal_noise import declaration as D
from flt_theory.systems.signal_noise.laws import kou_collapse, snr2_collapse

GRID = 0.05 * 2.0 ** (np.arange(16) / 2)  # the experiment's X grid
LEVEL = 0.05 / 85  # the catalogue's family-wise level, at which claims are decided


def _holds(result) -> bool:
    return decide(result.to_dict(), LEVEL)


def _curves(ns, ds, seeds=12, tilt=0.0, noise=0.004, rng=0):
    """Rows of ``signal-noise/error-curve``: err = 0.35 exp(-X^1.2 / 2.5) at the effective X = X (n d)^tilt, each
    seed's curve shifted in X by a factor exp(noise Z) (a level set of err scales with it)."""
    gen = np.random.default_rng(rng)
    rows = []
    for n in ns:
        for d in ds:
            shift = np.exp(noise * gen.standard_normal(seeds))
            for seed in range(seeds):
                x_eff = GRID * shift[seed] * (n * d) ** tilt
                errs = 0.35 * np.exp(-(x_eff ** 1.2) / 2.5)
                rows.append({"n": n, "d": d, "seed": seed, **{f"x_{k}": x for k, x in enumerate(GRID)},
                             **{f"err_{k}": e for k, e in enumerate(errs)}})
    return pd.DataFrame(rows)


def test_collapse_measures_its_own_curves_with_the_initialisation_at_a_fixed_fraction():
    claims = {c.key: c for c in registered_claims()}
    collapse = claims["signal-noise/relu-collapse"].measurement
    tail = claims["signal-noise/relu-exponential-tail"].measurement
    for scale in ("small", "paper"):
        for point in collapse.points[scale]:
            fraction = point["sigma0_sqrt_d"] / math.sqrt(point["n"] / point["d"])
            assert math.isclose(fraction, D.RELU_INIT_FRACTION, rel_tol=1e-12)
        assert {p["sigma0_sqrt_d"] for p in tail.points[scale]} == {D.ERROR_CURVE["sigma0_sqrt_d"]}
    paper = collapse.points["paper"]
    assert len({p["n"] for p in paper}) >= D.COLLAPSE_LIMIT_RUNGS <= len({p["d"] for p in paper})


def test_collapse_is_decided_in_the_limit_on_a_full_grid_and_rejects_a_tilt():
    ns, ds = (8, 16, 32, 64, 128), (10**4, 10**5, 10**6, 10**7)
    exact = _curves(ns, ds)
    law = D.compare_collapse(exact, kou_collapse())
    assert _holds(law), law.message
    level = law.details["parts"][0]
    assert [p["name"] for p in level["details"]["parts"]] == ["exponent of n (mean over d), n → ∞",
                                                              "exponent of d (mean over n), d → ∞"]
    assert not _holds(D.compare_collapse(exact, snr2_collapse()))  # the control
    tilted = _curves(ns, ds, tilt=0.01)  # X* ∝ (n d)^-0.01: exponents -0.2525, off by 0.0025 in each size
    assert not _holds(D.compare_collapse(tilted, kou_collapse()))
    rungs = D.collapse_ladder(exact, kou_collapse())
    assert [list(r["size"]) for r in rungs] == [["n"]] * 4 + [["d"]] * 3
    assert all(abs(r["estimate"] + 0.25) < 0.01 for r in rungs)


def test_collapse_on_a_small_grid_is_one_fit_without_tolerance():
    exact = _curves((16, 64), (10**4, 10**6), seeds=8)
    result = D.compare_collapse(exact, kou_collapse())
    assert _holds(result) and "one fit" in result.details["parts"][0]["name"], result.message
    assert not _holds(D.compare_collapse(_curves((16, 64), (10**4, 10**6), seeds=8, tilt=0.01), kou_collapse()))


def test_collapse_figure_draws_every_curve():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from flt_theory.systems.signal_noise.figures import draw_collapse, draw_tail
    from flt_theory.systems.signal_noise.laws import kou_tail, subexponential_tail

    frame = _curves((8, 16, 32, 64, 128), (10**4, 10**5, 10**6, 10**7), seeds=3).assign(width=10)
    fig = Figure()
    draw_collapse(fig, frame, kou_collapse(), snr2_collapse(), None, None)
    left, right = fig.axes
    assert len(left.lines) == len(right.lines) == 20  # one per (n, d): the palette holds 6 colours
    fig = Figure()
    draw_tail(fig, frame, kou_tail(), subexponential_tail(), None, None)
    assert sum(1 for line in fig.axes[0].lines if line.get_linestyle() == "-" and len(line.get_xdata())) >= 20
