r"""The signal-noise system: one declaration of its experiments, claims, figures and ``flt simulate``.

Signal-noise data :math:`x = [y\mu, \xi]` and the two-layer CNN with fixed second layer and
:math:`\sigma = \mathrm{ReLU}^q`, trained by full-batch GD on the logistic loss (Cao, Chen, Belkin, Gu
2022, arXiv 2202.06526; Kou, Chen, Chen, Gu 2023, arXiv 2303.04145; Han, Huang, Zhou, Niu, Chen, Yan,
Takeda, Suzuki 2025, arXiv 2505.18909). Laws: :mod:`.laws`; exact reduced dynamics and per-seed rows:
:mod:`.model`; the stored frame read back into arrays: :mod:`.readouts`; figures: :mod:`.figures`;
``flt simulate signal-noise``: :mod:`.simulate`.

Every claim is ONE stored measurement and ONE comparison ``compare(frame, law)`` called with the claim's
law and with the wrong law of its negative control; the comparison reads its prediction from the law:

==============================  =====================================================  =================================
claim                           law (prediction read)                                   negative control
==============================  =====================================================  =================================
``relu-boundary-slope``         Kou et al. 2023, ``law.exponent("n") = -1/4``           Cao et al.'s ReLU³ exponent -1/3
``relu-boundary-d``             Kou et al. 2023, ``law.exponent("d") = -1/4``           Cao et al.'s d-independence: 0
``relu3-boundary-d``            Cao et al. 2022, ``law.exponent("d") = 0`` (inside)      ReLU's (nd)^(-1/4): -1/4
``relu3-boundary-slope``        finding: the CI of the slope in (-1/q, -1/(q+1))        the literal slope -1/q
``relu-growth-slopes``          ``law.numbers(eta, mu, m, tau, ...)``: γ and ρ̄ slopes   γ slope without (1 - 2τ)
``relu3-growth-exponent``       ``law.exponent("A") = q - 1`` on :math:`A`               the same recursion on γ alone
``label-noise-rise``            ``test error >= law value`` (τ/2, in its regime)        no rise: test error <= τ/2
==============================  =====================================================  =================================

Conventions of the measurements. :math:`\sigma_\xi = 1`; the initialisation :math:`\sigma_0 = s_0/\sqrt d` keeps
:math:`\langle w^0, \xi\rangle \sim s_0` at every :math:`d`; the step :math:`\eta = c\,nm/(\sigma_\xi^2 d)` keeps the
per-step growth of :math:`\bar\rho` (:math:`\eta\sigma_\xi^2 d/(2nm)`) fixed. A boundary is found per seed by
bisection in :math:`\log\|\mu\|` of the final test error (after GD reached :math:`L_S \le \varepsilon`) against a
fixed level, on one draw per seed (common random numbers), then fitted as a power law with a seed
bootstrap (:func:`flt_theory.compare.check_power_law`).

Inside the hypotheses. The ReLU³ boundary claims run INSIDE Cao et al.'s Condition 4.2 (:data:`CUBIC_INSIDE`):
:math:`d = Km^4n^4` (:math:`K \ge 16`), :math:`\sigma_0\sqrt d = 1/(2m^2n)` in the window (4), and every run is the
gradient flow of the same reduced dynamics (``dynamics="flow"``, :mod:`flt_theory.numeric.signal_noise_flow`), the
limit :math:`\eta \to 0` of every admissible step, read as inside the step bound (3). GD inside the bound would need
:math:`\tau` GD steps per run (:math:`2.25\cdot10^5` at :math:`n = 16`, :math:`m = 10`); the flow takes a few thousand
RHS evaluations. The ReLU boundary claims (Kou et al.) run INSIDE Condition 4.1 at ``paper`` (:data:`RELU_INSIDE`):
every run is the same gradient flow for ReLU, integrated by switch-aware projected Euler steps of :math:`h = nm/16` in
:math:`\tau` (``dynamics="flow-projected"``, :func:`flt_theory.numeric.signal_noise_flow.projected_flow`: the adaptive
integrator crawls through ReLU's activation switches, and a wrong-class noise coefficient slides on its switch
surface), about 640 steps per run where GD at the bound takes :math:`38\,nm`. The initialisation sits at the same
fraction :math:`f = 1/18` of its bound at every point, :math:`\sigma_0\sqrt d = f\sqrt{n/d}`
(:data:`RELU_INIT_FRACTION`): the boundary's constant :math:`X^*` falls slowly as :math:`f` grows (from 1.15 as
:math:`f \to 0` to 0.94 at :math:`f = 1/18`), and a fixed :math:`\sigma_0\sqrt d` walks the ladder towards the edge of
the window. Measured at :math:`n = 16`, :math:`d = 10^6` (8 seeds, near the boundary,
:math:`\sigma_0\sqrt d = 10^{-3}`): its final test errors are within :math:`3\cdot10^{-5}` on average (0.0016 at most)
of GD AT the bound, where GD at the outside step :math:`nm/d` is :math:`+0.024` off. Both ReLU boundary claims are
decided in the limit at ``paper`` (:func:`~flt_theory.compare.check_limit_power_law`, :data:`RELU_LIMIT_RUNGS`, 32
seeds, 14 halvings): in :math:`n = 16..256` at :math:`d = 10^6` the effective exponents read -0.257, -0.233, -0.259,
-0.256 and the limit -0.254 :math:`[-0.288, -0.233]`; in :math:`d = 10^4..10^9` at :math:`n = 32`, -0.2512, -0.2507,
-0.2498, -0.2500, -0.2500 and the limit -0.24999 :math:`[-0.25017, -0.24981]` (:data:`LIMIT_READINGS`); about 2.5 min
together with ``--jobs 2``. At ``small`` they still run GD at :math:`\eta = nm/d`, :math:`nm` times the encoded step
bound (``RELU_EXTRAPOLATION``), 16 times cheaper, and keep one fit within a tolerance; the default test run measures
every claim at ``small``.

Tolerances, and why. At ``small`` (GD outside the step bound, four and three rungs) the ReLU slope in :math:`n` is
compared with tolerance 0.02 (the local slope between doublings of :math:`n`, 16 → 128 at :math:`d = 10^5`, moved by
at most 0.02) and the slope in :math:`d` with 0.05; at ``paper`` neither has a tolerance. The ReLU³ exponent in
:math:`d` gets 0.05 (the :math:`\tilde\Omega` of Cao et al. hides log factors; measured −0.025 outside Condition 4.2
with GD, −0.0005 :math:`[-0.0013, 0.0003]` inside, :math:`n = 8`, :math:`d = (16..1600)m^4n^4`, 16 seeds). The
finding's comparison has no tolerance: the whole 95% interval, widened by what the bisection's resolution can move the
fit (:func:`~flt_theory.compare.fit_resolution_bound`), must lie inside the open interval :math:`(-1/q, -1/(q+1))`,
and the literal :math:`-1/q` is tested with that slack alone; every tolerance above is likewise widened by it.
Growth slopes: the 95% interval of measured/derived must lie
within 2% of 1 (the early phase stops when an output reaches 0.05, where :math:`\ell'` is 2.5% below
:math:`1/2`). Growth exponents: within 0.1.

Out of regime. The label-noise law is a ``Piecewise`` value defined only in the regime where the rise
happens (:func:`.laws.label_noise_rise`); the measurement also runs points outside it, which the
comparison reports as OUT OF REGIME in its message and ``details["out_of_regime"]`` — neither passed nor
failed — and it fails when no point is in the regime.

Sizes: ``small`` runs the whole system in about 30 s on one core (default pytest run) (the ReLU³ slope there
on its GD measurement outside Condition 4.2, ``CUBIC_SMALL_NOTE``; the ReLU boundaries on GD outside the step bound,
``RELU_EXTRAPOLATION``); ``paper`` uses more seeds, larger :math:`n` and :math:`d = 10^6` (``pytest -m slow``). The ReLU
ladder in :math:`n` stops at 256 at ``paper`` (1.2 decades): :math:`n = 512` would add about 25 CPU-minutes (the
flow's steps are fixed, a step costs :math:`O(mn^2)`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp

from ...compare import (
    check_at_least,
    check_at_most,
    check_limit_power_law,
    check_limit_power_law_2d,
    check_ordering,
    check_power_law,
    check_power_law_2d,
    effective_exponents,
    fit_power_law,
    fit_resolution_bound,
    grid_rungs,
)
from ...compare.result import CheckResult, all_of, fmt, fmt_ci, make_result
from ...numeric.signal_noise import activation_power
from ...symbolic.law import Law
from ..declaration import Claim, Figure, Measurement, System
from ..frames import local_slope_ladder, per_seed
from . import laws
from .experiments import _eta_scale_to_eta, boundary, error_curve, growth, label_noise
from .figures import draw_boundary, draw_collapse, draw_growth, draw_label_noise, draw_tail
from .readouts import bisection_resolution, boundary_table, error_curves, growth_prediction
from .simulate import SIMULATE

__all__ = ["CUBIC_INSIDE", "RELU_INIT_FRACTION", "SIZES", "SYSTEM", "boundary", "cubic_inside_point", "error_curve",
           "growth", "label_noise", "per_seed", "relu_inside_point"]

NAME = "signal-noise"

#: Sizes per scale.
SIZES: dict[str, dict[str, Any]] = {
    "small": dict(relu_ns=(16, 32, 64, 128), relu_d=10**5, relu_seeds=8, grid=12, relu_n=32,
                  relu_ds=(10**4, 10**5, 10**6), relu_inside=False,
                  cubic_gd_ns=(16, 32, 64, 128, 256), cubic_gd_d=10**5, cubic_gd_iterations=10,
                  cubic_width=10, cubic_ns=(), cubic_n=4, cubic_d_factors=(16, 1600), cubic_seeds=4,
                  cubic_iterations=6, cubic_snr_high=2.0, cubic_gd_seeds=8, cubic_n_seeds=4,
                  growth_seeds=6, label_seeds=10, iterations=8,
                  curve_ns=(16, 64), curve_ds=(10**4, 10**6), curve_seeds=8, curve_n_test=10_000,
                  collapse_ns=(16, 64), collapse_ds=(10**4, 10**6)),
    "paper": dict(relu_ns=(16, 32, 64, 128, 256), relu_d=10**6, relu_seeds=32, grid=16, relu_n=32,
                  relu_ds=(10**4, 10**5, 10**6, 10**7, 10**8, 10**9), relu_inside=True,
                  cubic_gd_ns=(), cubic_gd_d=0, cubic_gd_iterations=10, cubic_width=10,
                  cubic_ns=(4, 8, 16, 40, 80, 128), cubic_n=8, cubic_d_factors=(16, 160, 1600), cubic_seeds=16,
                  cubic_n_seeds=32, cubic_iterations=8,
                  cubic_snr_high=1.2, cubic_gd_seeds=16, growth_seeds=16, label_seeds=32, iterations=14,
                  curve_ns=(16, 32, 64, 128), curve_ds=(10**4, 10**5, 10**6), curve_seeds=12, curve_n_test=100_000,
                  collapse_ns=(8, 16, 32, 64, 128), collapse_ds=(10**4, 10**5, 10**6, 10**7)),
}
SCALES = tuple(SIZES)

#: The ReLU and ReLU³ boundary set-ups (level of the final test error, bracket in SNR, s0, c of η = c n m / d).
RELU_BOUNDARY = dict(activation="relu", level=0.1, snr_low=3e-3, snr_high=0.2, sigma0_sqrt_d=3e-3, eta_scale=1.0,
                     max_steps=2000, grid_low=4e-3, grid_high=0.08)
#: The ReLU boundary INSIDE Kou et al. 2023's Condition 4.1 (``paper``): every run is the gradient flow
#: (``dynamics="flow-projected"``: the step-size bound read as eta -> 0+, :data:`.laws.FLOW_READING`), integrated by
#: projected Euler steps of eta = n m/(16 d), i.e. h = n m/16 in the natural time tau = eta t d, switch-aware
#: (:func:`flt_theory.numeric.signal_noise_flow.projected_flow`): about 640 steps per run (the stop is at tau ~ 38 n m),
#: 4000 at most. At n = 16, d = 1e6, sigma0 sqrt(d) = 1e-3, 8 seeds near the boundary its final test errors agree with
#: GD AT the bound (eta = 1/d, 6000 steps) within 3e-5 on average (0.0016 at most), where GD at eta = n m/d (the small
#: scale's step) is +0.024 off (``RELU_PROJECTED_STEP``; where the two can part: the flow module's docstring).
#: The initialisation is not part of it: a fixed fraction of its bound at every point (:data:`RELU_INIT_FRACTION`,
#: :func:`relu_inside_point`, which builds the points); the bracket reaches down to SNR = 1e-3 (the boundary at
#: n = 32, d = 1e9 is 2.4e-3).
RELU_PROJECTED_STEP = 1 / 16
RELU_INSIDE = {**{k: v for k, v in RELU_BOUNDARY.items() if k != "sigma0_sqrt_d"}, "dynamics": "flow-projected",
               "eta_scale": RELU_PROJECTED_STEP, "max_steps": 4000, "snr_low": 1e-3}
#: The ReLU boundary ladders at ``paper`` put the initialisation at this fraction f of Kou et al.'s bound sigma0 <=
#: sqrt(n)/(sigma_p d) at every point: sigma0 sqrt(d) = f sqrt(n/d) (:func:`relu_inside_point`), the margin of 18 the
#: former fixed sigma0 sqrt(d) = 1e-4 had at its largest d = 1e7. Why a fraction and not a fixed sigma0 sqrt(d): the
#: boundary's constant X* = n ||mu*||^4/(sigma_p^4 d) depends on f, slowly (measured at n = 32, 32 seeds: X* falls
#: from a finite 1.15 as f -> 0 to 0.94 at f = 1/18, locally like log(1/f) for f >~ 1e-3), and at a fixed sigma0
#: sqrt(d) the fraction grows like sqrt(d) along the ladder in d (and falls like 1/sqrt(n) along the one in n), so the
#: ladder walks towards the edge of the window and the effective exponents carry the drift of X*(f)
#: (:data:`LIMIT_READINGS`): a ladder at a fixed sigma0 sqrt(d) leaves the hypotheses as d -> infinity, one at a fixed
#: f does not.
RELU_INIT_FRACTION = 1 / 18
#: The ReLU^3 boundary INSIDE Cao et al. 2022's Condition 4.2 at every point (:func:`cubic_inside_point`): gradient
#: flow (the step-size bound (3) read as eta -> 0+, :data:`.laws.FLOW_READING`), d = K m^4 n^4 with K >= 16 (bound (1))
#: and sigma0 sqrt(d) = 1/(2 m^2 n), the geometric middle of the window (4) [n/sqrt(d), 1/(m^2 n)] at K = 16 (SNR < 1
#: over the bracket, so min((sigma_p sqrt d)^-1, ||mu||^-1) = (sigma_p sqrt d)^-1 at the bracket's middle). The flow
#: runs to L_S <= eps (max_time in natural time is a safety bound, never reached); rtol 1e-4 changes the test errors
#: by < 1e-4 against 1e-6. ``max_steps`` only sizes the cost estimate (about the RHS evaluations of one run at n <= 16;
#: they grow like n m).
CUBIC_INSIDE = dict(activation="relu(z)**3", level=0.25, snr_low=0.1, snr_high=1.2, eta_scale=0.0, dynamics="flow",
                    max_time=1e12, rtol=1e-4, max_steps=5000, n_test=4000)
#: d = CUBIC_D_FACTOR m^4 n^4 at the points of the ladder in n.
CUBIC_D_FACTOR = 16
#: The ReLU^3 slope at ``small`` (default run), OUTSIDE Condition 4.2: GD at eta = 0.3 n m/d, sigma0 sqrt(d) = 0.01,
#: d = 1e5 (``cubic_gd_ns``), where the finding was first measured; the inside ladder (n = 4..128, flow, 32 seeds)
#: costs about 65 to 90 CPU-minutes (measured: n = 4..40 in 919 s on one core, n = 80 and 128 in 2223 s on two) and
#: runs at ``paper``.
CUBIC_BOUNDARY_GD = dict(activation="relu(z)**3", level=0.25, snr_low=0.1, snr_high=0.8, sigma0_sqrt_d=0.01,
                         eta_scale=0.3, max_steps=3000)
#: The ReLU test-error curve over Kou et al.'s X = n ||mu||^4/(sigma_xi^4 d): 16 values X = 0.05 * 2^(k/2), k = 0..15
#: (0.05..9.05), errors by the radial estimator (errors of 1e-5 resolved with 3e4 test rows; ``small`` reads 1e4 rows,
#: ``paper`` 1e5: at 1e4 the calibration still catches every exponent mutant of relu-collapse and relu-exponential-tail
#: down to ±1/4 in 20/20 seed sets, with 0/20 false rejections, at a third of the cost), sigma0 sqrt(d) = 3e-4
#: (at 3e-3 the initialisation is comparable with the memorised noise rho-bar sqrt(n/d) at d = 1e6 and X* drifts
#: by a factor 1.4 between d = 1e4 and 1e6; at 3e-4 that drift is gone). A fixed sigma0 sqrt(d) still tilts the
#: collapse a little: the level sets' X* fall slowly as the initialisation's fraction of its bound,
#: sigma0 sqrt(d)/sqrt(n/d), grows (:data:`RELU_INIT_FRACTION`). Measured at small (8 seeds): the exponent of d reads
#: -0.2531 [-0.2547, -0.2515] at level 0.3 (-0.2530 to -0.2533 at every level, each excluding -1/4), and with the
#: initialisation at the fraction 1/18 at every (n, d) -0.2507 [-0.2520, -0.2494] (-0.2504 to -0.2508; one fit on the
#: earlier paper grid n = 16..128 x d = 1e4..1e6: -0.2507; the limits on today's paper grid: -0.2501 to -0.2502). So
#: relu-collapse measures its own curves with the initialisation at that fraction (:func:`_collapse_curve`), and
#: relu-exponential-tail keeps the fixed 3e-4 (``curve_*`` sizes): at the fraction its calibration lost one seed set
#: (its prefactor-corrected local power 1.046 [0.996, 1.090] against >= 1, seeds 96-103), which took the whole run to
#: 2/20.
ERROR_CURVE = dict(activation="relu", sigma0_sqrt_d=3e-4, eta_scale=1.0, eps=0.05, max_steps=2000, x_low=0.05,
                   x_high=0.05 * 2**7.5, grid=16)
#: Error levels whose level sets X*(level) the collapse compares across (n, d).
COLLAPSE_LEVELS = (0.3, 0.2, 0.1, 0.03, 0.01)
#: Values of n and of d from which the collapse is decided in the limit (``paper``: n = 8..128, d = 1e4..1e7); on a
#: smaller grid (``small``: 2 x 2) one joint fit, without a tolerance. Calibrated at ``paper`` too (``flt calibrate
#: signal-noise/relu-collapse --scale paper``, 20 disjoint sets of 12 seeds, 2026-12-07): 0/20 false rejections at the
#: level 0.05 of the claim alone, and each of the 12 exponent mutants (n or d moved by 1/4, 1/2, 1) rejected in at
#: least 18/20.
COLLAPSE_LIMIT_RUNGS = 4
#: The level whose effective exponents the claim's ladder records (the middle one of :data:`COLLAPSE_LEVELS`).
COLLAPSE_LADDER_LEVEL = 0.1
#: The label-noise set-up: ReLU, n = 64, tau = 0.2, n SNR^2 = 2 at d/n = 2 (in regime), 8 and 32 (out of regime), and
#: at ``paper`` scale also n SNR^2 = 4 at d/n = 2 (out of regime: the final error falls back below tau/2).
LABEL_NOISE_POINTS = {"small": ((2, 2.0), (8, 2.0), (32, 2.0)), "paper": ((2, 2.0), (8, 2.0), (32, 2.0), (2, 4.0))}
LABEL_NOISE_REGIME = dict(max_d_over_n=2, max_n_snr2=2)

GROWTH_TOLERANCE = 0.02
EXPONENT_TOLERANCE = 0.1

#: The ReLU^3 growth point inside Cao et al.'s Condition 4.2 (n = 40, m = 10): d = 1e11 >= m^4 n^4 = 2.56e10,
#: sigma0 sqrt(d) = 2e-4 in the window [n/sqrt(d), 1/(m^2 n)] = [1.26e-4, 2.5e-4], eta = 0.8/d <= min(1/d, 1/||mu||^2).
#: Float64 resolves the exponent there: over 400 steps A grows by ~1e-4 relative while the rounding of Delta A is ~1e-9
#: relative; measured exponents 2.0000 (law) and 0.0000 (literal) on every seed.
#: Why ``relu3-growth-exponent`` has no size ladder (its ``no_ladder``; issue 36): its ladder would be the range of A
#: along a run, not a size, and inside Condition 4.2 none is affordable. The numbers behind it: at the point below A
#: moves by 4e-5 (seed 0, A_0 = 4.4e-5) to 9e-5 (seed 1, A_0 = 9.0e-5) relative in the 400 steps, Delta A/A^2 = 0.0024
#: per step, so A grows x31.6 (1.5 decades) only after (1 - 1/31.6)/(0.0024 A_0) = 4.5e6..9e6 steps (the per-step
#: trajectory of the model cannot hold them; about 60 CPU-hours), and the growth frame holds the whole-run fitted
#: slopes, not A along the run. Measured along one run OUTSIDE Condition 4.2 (n = 40, d = 1e5, m = 10, SNR = 0.5,
#: sigma0 sqrt(d) = 0.01, eta_scale = 0.3, 4 seeds, up to the early phase's end: 0.86..1.97 decades of A), the local
#: exponent of Delta A on A between A-levels is 2.0000 at every rung (1.996 at the last, where l' leaves -1/2), while
#: that of Delta gamma on gamma (the literal statement, 2) rises as 2 gamma/(A_0 + gamma): 1.13, 1.51, 1.73, 1.86, 1.92,
#: 1.95 (seed 3; the formula gives the same to the third decimal). Along the run the literal recursion is therefore NOT
#: excluded once gamma >> A_0: the finding is about the START of the early phase (gamma <~ A_0), which sets the escape
#: time 1/(c A_0) that the literal recursion from gamma_0 = 0 never reaches.
RELU3_GROWTH_NO_LADDER = (
    "a statement about the start of one run, not a rate in a size: its ladder would be the range of A along the run, "
    "and inside Condition 4.2 (d = 1e11) A moves by about 1e-4 relative over the early phase (1.5 decades of A would "
    "take 4.5e6 to 9e6 steps). Along a run outside the condition (d = 1e5, up to 2 decades of A) Delta A on A reads "
    "2.000 at every rung while Delta gamma on gamma rises as 2 gamma/(A_0 + gamma) (1.13 to 1.95): the literal "
    "recursion holds once gamma >> A_0; the finding is that the start (gamma <~ A_0) follows A, not gamma")
CUBIC_GROWTH_INSIDE = dict(snr=0.2, d=10**11, sigma0_sqrt_d=2e-4, eta_scale=0.002)

#: Why the ReLU^3 slope has no point inside Condition 4.2 at ``small``.
CUBIC_SMALL_NOTE = (
    "Inside Condition 4.2 at paper scale only (gradient flow, n = 4, 8, 16, 40, 80, 128, d = 16 m^4 n^4, sigma0 "
    "sqrt(d) = 1/(2 m^2 n), 32 seeds: about 65 to 90 CPU-minutes, the flow's cost growing like n^1.3). The small scale "
    "reruns the same comparison on the GD measurement outside (d = 1e5 < m^4 n^4, sigma0 sqrt(d) = 0.01 above the "
    "window, eta = 0.3 n m/d above 1/d), where the finding was first seen; a two-point inside ladder (n = 4, 8) cannot "
    "resolve the slope (95% interval about +-0.12)."
)
#: Why the ReLU boundary claims have no point inside their source's hypotheses, what inside would need and its cost.
RELU_EXTRAPOLATION = (
    "Inside Kou et al. 2023's Condition 4.1 at paper scale only (gradient flow by switch-aware projected Euler steps, "
    "read as eta -> 0+; n = 16..256 at d = 1e6, n = 32 at d = 1e4..1e9, 32 seeds; about 2.5 min on 2 cores). At "
    "small every point runs GD at eta = n m/(sigma_p^2 d), n m = 160..1280 times the encoded step bound "
    "(eta <= 1/(sigma_p^2 d)); the dimension d >= n^2, the initialisation and n SNR^2 <= 1 hold. An audit of this "
    "project measured the effect of the larger step on 30 paired draws: +0.0073 +- 0.0008 in the test error."
)
LABEL_NOISE_EXTRAPOLATION = (
    "Every point lies outside the encoded hypotheses of Han et al. 2025: d/n = 2, 8, 32 at n = 64 against d >= n^2 "
    "(d/n >= 64), and eta = 0.3 min(n m/d, m/||mu||^2) is 10^2..10^3 times 1/d. The measured rise to tau/2 (d/n <= 2) "
    "is therefore not a check of the theorem; at d/n = 32, the closest to the hypotheses, no rise is measured. Inside "
    "(n = 64, d >= 4096, eta <= 1/d) needs about 100x the current <= 20000 steps per run (2e6 steps: hours on 2 CPU "
    "cores)."
)


# ----------------------------------------------------------------------------------------------
# the values the laws' hypotheses read at a measurement point (:mod:`.laws`, module docstring there)


def _source_symbols(p: Mapping[str, Any], *, eta: float, mu: float) -> dict[str, float]:
    r"""The sources' symbols at a normalised point: :math:`n, d, m` (``width``), :math:`\sigma_p = \sigma_\xi = 1`,
    :math:`\sigma_0 = s_0/\sqrt d` (``sigma0_sqrt_d``), the step :math:`\eta` and the signal norm :math:`\|\mu\|`."""
    n, d = p["n"], p["d"]
    return {"n": n, "d": d, "m": p["width"], "sigma_xi": 1.0, "sigma0": p["sigma0_sqrt_d"] / math.sqrt(d), "eta": eta,
            "mu": mu}


def boundary_hypothesis_values(p: Mapping[str, Any]) -> dict[str, float]:
    r"""``signal-noise/boundary``: :math:`\eta = c\,nm/d` and :math:`\|\mu\|` at the geometric middle of the
    bisection bracket, :math:`\sqrt{\mathrm{snr\_low}\cdot\mathrm{snr\_high}}\,\sqrt d` (where the boundary is sought).
    A gradient-flow point (``dynamics="flow"`` or ``"flow-projected"``) reads :math:`\eta = 0`: the flow is the limit
    :math:`\eta \to 0^+` of every admissible step (:mod:`flt_theory.numeric.signal_noise_flow`), so it satisfies every
    step-size bound.

    >>> v = boundary_hypothesis_values({**RELU_BOUNDARY, "n": 16, "d": 10**5, "width": 10})
    >>> round(v["eta"] * 10**5, 6), round(v["sigma0"] * math.sqrt(10**5), 6)
    (160.0, 0.003)
    >>> inside = {**relu_inside_point(16, 10**6), "width": 10}
    >>> boundary_hypothesis_values(cubic_inside_point(16, 10))["eta"], boundary_hypothesis_values(inside)["eta"]
    (0.0, 0.0)
    """
    n, d, m = p["n"], p["d"], p["width"]
    mu = math.sqrt(p["snr_low"] * p["snr_high"] * d)
    eta = 0.0 if p.get("dynamics", "gd") != "gd" else _eta_scale_to_eta(p["eta_scale"], n, m, d)
    return _source_symbols(p, eta=eta, mu=mu)


def error_curve_hypothesis_values(p: Mapping[str, Any]) -> dict[str, float]:
    r"""``signal-noise/error-curve``: :math:`\eta = c\,nm/d` and :math:`\|\mu\| = (X d/n)^{1/4}` at the geometric
    middle of the grid of :math:`X = n\|\mu\|^4/d`."""
    n, d, m = p["n"], p["d"], p["width"]
    return _source_symbols(p, eta=_eta_scale_to_eta(p["eta_scale"], n, m, d),
                           mu=(math.sqrt(p["x_low"] * p["x_high"]) * d / n) ** 0.25)


def growth_hypothesis_values(p: Mapping[str, Any]) -> dict[str, float]:
    r"""``signal-noise/growth``: :math:`\eta = c\,nm/d`, :math:`\|\mu\| = \mathrm{SNR}\sqrt d`, and the power
    :math:`q` of the activation (1 for ReLU)."""
    n, d, m = p["n"], p["d"], p["width"]
    return {**_source_symbols(p, eta=_eta_scale_to_eta(p["eta_scale"], n, m, d), mu=p["snr"] * math.sqrt(d)),
            "q": activation_power(p["activation"])}


def label_noise_hypothesis_values(p: Mapping[str, Any]) -> dict[str, float]:
    r"""``signal-noise/label-noise``: :math:`\|\mu\| = \sqrt{n\mathrm{SNR}^2 d/n}`,
    :math:`\eta = c\min(nm/d, m/\|\mu\|^2)` (as the experiment sets them)."""
    n, d, m = p["n"], p["d"], p["width"]
    mu = math.sqrt(p["n_snr2"] / n * d)
    return _source_symbols(p, eta=p["eta_scale"] * min(n * m / d, m / mu**2), mu=mu)


# ----------------------------------------------------------------------------------------------
# comparisons: each reads its prediction from the law it is given


#: What the limit decision (:func:`~flt_theory.compare.check_limit_power_law`) reads on the boundary measurements,
#: where it decides and where they keep their one fit (measured with the registered experiments unless said;
#: family level 0.05/85).
LIMIT_READINGS = (
    "relu-boundary-slope and relu-boundary-d are decided in the limit at paper (RELU_LIMIT_RUNGS; 32 seeds, 14 "
    "halvings of the bracket: the bisection's resolution +-0.00016 in log SNR*), with the initialisation at the "
    "fraction f = 1/18 of its bound at every point (RELU_INIT_FRACTION). relu-boundary-slope (n = 16..256, d = 1e6): "
    "effective exponents -0.2568 [-0.2845, -0.2280], -0.2330 [-0.2571, -0.2095], -0.2593 [-0.2754, -0.2434], -0.2556 "
    "[-0.2711, -0.2401], limit -0.2536 [-0.2884, -0.2331] (no correction): -1/4 passes (p = 0.46), the control -1/3 "
    "is rejected (p = 5.8e-6). relu-boundary-d (d = 1e4..1e9, n = 32): effective exponents -0.2512, -0.2507, "
    "-0.2498, -0.2500, -0.2500 (the last [-0.2502, -0.2498]), limit -0.24999 [-0.25017, -0.24981]: -1/4 passes (p = "
    "1), the control 0 is rejected (p = 2e-104). Why the fraction: the boundary's constant X* = n "
    "||mu*||^4/(sigma_p^4 d) falls slowly as f grows (32 seeds, n = 32: X* = 1.15 at f -> 0, 0.94 at f = 1/18), and "
    "a fixed sigma0 sqrt(d) moves f like sqrt(d/n). At the former fixed sigma0 sqrt(d) = 1e-4 (d = 1e4..1e7, 32 "
    "seeds, 10 halvings) the effective exponents in d read -0.2576, -0.2562, -0.2554, every one below -1/4 (the last "
    "[-0.2580, -0.2528]); the limit -0.2552 [-0.2580, -0.2525] excluded -1/4 at p = 1.5e-9 and the offsets times ln "
    "d were flat (-0.079, -0.078, -0.081): a log factor, X* falling locally like log(1/f) = log(1/sigma0 sqrt(d)) - "
    "log(d/n)/2; the next rung (d = 1e8, f = 1/5.7) read -0.2592. At sigma0 sqrt(d) = 1e-5 (d = 1e4..1e9) they read "
    "-0.2515, -0.2535, -0.2550, -0.2564, -0.2561, moving away from -1/4 as f grew from 1.8e-4 to 1/18; at 1e-7 (f <= "
    "5.6e-4) -0.2508, -0.2501, -0.2498, -0.2504, -0.2512, limit -0.2504 [-0.2514, -0.2494]; at f = 1/18 at every "
    "point, flat at -0.2500 from d = 1e6 on. The one fit within 0.05 had passed the fixed-sigma0 ladder (-0.2565 "
    "[-0.2577, -0.2552]) on its tolerance. Along n at a fixed sigma0 sqrt(d) = 1e-4 (16 seeds, 10 halvings) the "
    "limit read -0.245 [-0.297, -0.201] and did not reject -1/3 at the family level (p = 7e-4); 32 and 64 seeds "
    "rejected it only just (p = 5.5e-4 and 5.2e-4 against 5.9e-4; the limit [-0.303, -0.209] at 64): the bisection's "
    "resolution (+-0.0021) kept it wide, and f falls like 1/sqrt(n) there; at f = 1/18 with 14 halvings p = 5.8e-6. "
    "The rung 32 -> 64 reads above -1/4 at every setting (-0.217 to -0.233). The small GD ladders (outside the step "
    "bound; four values of n, three of d) keep one fit: the one in n holds -1/3 in the limit (p = 0.01), the one in "
    "d reads limit -0.280 [-0.298, -0.262] at sigma0 sqrt(d) = 3e-3 (f from 0.053 at d = 1e4 to 0.53 at 1e6). "
    "relu3-boundary-slope (the finding, a statement about its ladder): paper (n = 4..128, 1.5 decades, flow, 32 "
    "seeds; the bisection's resolution +-0.0049 in log SNR* counted) effective exponents -0.345 [-0.433, -0.264], "
    "-0.225 [-0.305, -0.134], -0.296 [-0.322, -0.271], -0.287 [-0.319, -0.255], -0.308 [-0.348, -0.267], limit -0.296 "
    "[-0.364, -0.232]: it holds the literal -1/3 (p = 0.60) and -1/4 (p = 0.26), so decided in the limit the finding "
    "is INCONCLUSIVE (without the resolution the limit read [-0.338, -0.257]; on n = 4..40, [-0.431, -0.130]); "
    "n SNR*^3 grows x1.10 (40 -> 80) then x1.04 (80 -> 128). "
    "relu3-boundary-d (decided in the limit at paper, CUBIC_D_LIMIT_RUNGS): the bisected SNR* is quantised (6 "
    "halvings at small, 8 at paper), so a seed's crossings at every d fall in one bracket and the seeds' effective "
    "exponents agree to about 1e-7 (small); with the bisection's resolution (+-0.0049 in log SNR* at paper) the paper "
    "ladder (d = 6.6e8..6.6e10, n = 8, 16 seeds) reads effective exponents -0.00054 [-0.0060, 0.0049], -0.00046 "
    "[-0.0055, 0.0043], limit -0.00048 [-0.0095, 0.0087]: 0 passes and -1/4 is rejected; the small ladder (two "
    "rungs) identifies no limit and keeps its one fit within 0.05."
)


#: The fewest values of :math:`d` on which ``relu3-boundary-d`` is decided in the limit (two effective exponents;
#: :func:`compare_boundary_slope`): the paper ladder (three) is, the small one (two: no limit is identified) keeps the
#: one fit within its tolerance.
CUBIC_D_LIMIT_RUNGS = 3
#: The fewest rungs on which a ReLU boundary ladder is decided in the limit (:func:`compare_boundary_slope`): the paper
#: ladders (five values of n, six of d, inside Condition 4.1) are; the small ones (four and three, GD outside the step
#: bound, where the limit of the ladder is not the theorem's) keep the one fit within their tolerance.
RELU_LIMIT_RUNGS = 5


def compare_boundary_slope(frame: pd.DataFrame, law: Law, *, variable: str, tolerance: float,
                           limit_rungs: int | None = None) -> CheckResult:
    r"""Exponent of :math:`\mathrm{SNR}^* \propto x^b` in ``variable``, from a power-law fit over the seeds.

    A power-law law: PASSES iff ``law.exponent(variable)`` lies in the exponent's 95% interval widened by
    ``tolerance`` and by what the bisection's resolution can move the fit
    (:func:`~flt_theory.compare.fit_resolution_bound`). An interval law (``law.value`` a sympy ``Interval``, the
    finding): PASSES iff the whole 95% interval, so widened, lies inside it (demonstrated).

    Every effective exponent shown carries the bisection's resolution (:func:`.readouts.bisection_resolution`).
    With ``limit_rungs``, a ladder of that many values of ``variable`` or more is decided in the limit instead
    (:func:`~flt_theory.compare.check_limit_power_law`, no tolerance), the bisection's resolution
    (:func:`.readouts.bisection_resolution`) widening every interval by what it can carry; a shorter ladder (two
    rungs identify no limit) keeps the one fit within ``tolerance`` plus what the resolution can move it, and
    its effective exponents carry the resolution too.
    Seeds whose crossings fall in one bracket agree exactly, so without it the intervals would have zero width.

    The interval law (the ReLU^3 finding) is a statement about its finite ladder, one fit; its effective exponents
    and the extrapolated limit (:func:`~flt_theory.compare.check_limit_power_law`) are shown with it (``details``),
    not decided: in the limit that finding is not established (:data:`LIMIT_READINGS`). The boundary claims with a
    law are decided in the limit at paper (``relu3-boundary-d``: :data:`CUBIC_D_LIMIT_RUNGS`; the ReLU ones:
    :data:`RELU_LIMIT_RUNGS`); what the limit reads on every ladder: :data:`LIMIT_READINGS`."""
    xs, y, dropped = boundary_table(frame, variable)
    note = f", {dropped} seed(s) without a bracketed boundary dropped" if dropped else ""
    q = int(frame["activation"].map(activation_power).iloc[0])
    what = f"SNR* of ReLU^{q} against {variable} = {int(xs[0]):g}..{int(xs[-1]):g}{note}"
    if len(y) < 2:
        return make_result(name=what, passed=False, predicted=str(law.value), measured=math.nan,
                           ci=(math.nan, math.nan), n_seeds=len(y), summary="fewer than 2 seeds bracketed the boundary")
    resolution = bisection_resolution(frame, variable)
    slack = fit_resolution_bound(xs, resolution)  # what the bisection's resolution can move the one fit by
    if isinstance(law.value, sp.Interval):
        low, high = float(law.value.inf), float(law.value.sup)
        fit = fit_power_law(xs, y)
        ci = (fit.ci[0] - slack, fit.ci[1] + slack)
        inside = (low < ci[0]) and (ci[1] < high)
        shown = check_limit_power_law(xs, y, (low + high) / 2, variable=variable,  # the limit, shown only
                                      resolution=resolution).details
        return make_result(name=f"{what}: exponent strictly inside ({fmt(low)}, {fmt(high)})", passed=inside,
                           predicted=(low, high), measured=fit.exponent, ci=ci, n_seeds=len(y),
                           summary=f"exponent {fmt(fit.exponent)} {fmt_ci(ci)} (the bisection's resolution: "
                                   f"± {fmt(slack)}) vs ({fmt(low)}, {fmt(high)}) [demonstrated]",
                           details={"prefactor": fit.prefactor, "xs": xs.tolist(), "effective": shown["effective"],
                                    "limit": shown["limit"], "resolution": slack})
    exponent = predicted_exponent(law, variable)
    if limit_rungs is not None and len(xs) >= limit_rungs:
        return check_limit_power_law(xs, y, exponent, variable=variable, resolution=resolution,
                                     name=f"{what}: exponent {fmt(exponent)} in the limit (the bisection's "
                                          f"resolution ±{fmt(float(resolution.max()))} in log SNR*)")
    rule = "" if limit_rungs is None else f": {len(xs)} rungs, fewer than the {limit_rungs} decided in the limit"
    result = check_power_law(xs, y, exponent, tolerance=tolerance + slack,
                             name=f"{what}: exponent {fmt(exponent)} (tolerance {tolerance:g} + the bisection's "
                                  f"resolution {fmt(slack)}{rule})")
    result.details["effective"] = effective_exponents(xs, y, resolution=resolution)
    return result


def predicted_exponent(law: Law, variable: str) -> float:
    r"""The exponent of ``variable`` a boundary law predicts: ``law.exponent(variable)`` for a power law of
    :math:`\mathrm{SNR}^*`, the value itself for a law ABOUT the slope (a number, e.g. :func:`.laws.literal_slope`).

    >>> predicted_exponent(laws.kou_boundary(), "n"), round(predicted_exponent(laws.literal_slope(3), "n"), 6)
    (-0.25, -0.333333)
    """
    value = sp.sympify(law.value)
    if value.is_number:
        return float(value)
    return float(law.exponent(variable))


def boundary_slope_ladder(frame: pd.DataFrame, *, variable: str = "n", literal: float | None = None,
                          predicted: float | None = None) -> list[dict[str, Any]]:
    r"""Local slopes of :math:`\log\mathrm{SNR}^*` between consecutive values :math:`x_k < x_{k+1}` of ``variable``
    (:func:`~flt_theory.systems.frames.local_slope_ladder` of :func:`.readouts.boundary_table`): per seed
    :math:`\log(y_{k+1}/y_k)/\log(x_{k+1}/x_k)`, their mean and 95% interval at :math:`\sqrt{x_kx_{k+1}}`, widened by
    the bisection's resolution (:func:`.readouts.bisection_resolution`); ``literal`` (the literal statement's slope, a
    finding) or ``predicted`` (the law's slope) in every rung."""
    xs, y, _ = boundary_table(frame, variable)
    return local_slope_ladder(xs, y, name=variable, predicted=predicted, literal=literal,
                              resolution=bisection_resolution(frame, variable))


def level_crossing(xs: np.ndarray, errors: np.ndarray, level: float) -> np.ndarray:
    r"""Per seed, the :math:`X` where the test-error curve first falls to ``level``: linear interpolation of
    :math:`\log X` in :math:`\log\mathrm{err}` between the grid points around the crossing; NaN when the curve
    does not cross inside the grid.

    >>> xs = np.array([1.0, 2.0, 4.0]); errors = np.array([[0.4, 0.1, 0.025]])
    >>> round(float(level_crossing(xs, errors, 0.05)[0]), 6)
    2.828427
    """
    out = np.full(len(errors), math.nan)
    for s, err in enumerate(errors):
        below = np.flatnonzero(err <= level)
        if len(below) == 0 or below[0] == 0 or err[below[0]] <= 0:
            continue
        k = below[0]
        out[s] = math.exp(np.interp(math.log(level), [math.log(err[k]), math.log(err[k - 1])],
                                    [math.log(xs[k]), math.log(xs[k - 1])]))
    return out


def collapse_boundaries(curves: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]],
                        level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    r"""``(ns, ds, snr, dropped)`` at one error ``level`` from the test-error ``curves`` of
    :func:`.readouts.error_curves`: per seed (rows) and point (columns, sizes ``ns``, ``ds``),
    :math:`\mathrm{SNR}^* = (X^*/(nd))^{1/4}` with :math:`X^*` the level set of the seed's curve
    (:func:`level_crossing`); seeds whose curve does not cross at some point are left out (``dropped`` of them)."""
    points = sorted(curves)
    ns, ds = (np.array([p[i] for p in points], dtype=float) for i in (0, 1))
    snr = np.stack([(level_crossing(*curves[p], level) / (p[0] * p[1])) ** 0.25 for p in points], axis=1)
    keep = np.isfinite(snr).all(axis=1)
    return ns, ds, snr[keep], int((~keep).sum())


def compare_collapse(frame: pd.DataFrame, law: Law, *, levels: tuple[float, ...] = COLLAPSE_LEVELS) -> CheckResult:
    r"""Data collapse of the whole ReLU test-error curve: at every ``level`` the boundaries :math:`\mathrm{SNR}^*`
    of :func:`collapse_boundaries` must scale as :math:`n^{a}d^{b}` with the law's exponents ``(law.exponent("n"),
    law.exponent("d"))`` (Kou et al.: :math:`(-1/4, -1/4)`, i.e. :math:`X^*` constant — the curve is a function of
    :math:`X` alone). PASSES iff every level passes (the p-value is Bonferroni's over the levels).

    With at least :data:`COLLAPSE_LIMIT_RUNGS` values of :math:`n` and of :math:`d` (``paper``), each level is decided
    in the limit, no tolerance: the exponent of :math:`n` on the ladder in :math:`n` of the boundaries' means over
    :math:`d`, and that of :math:`d` on the means over :math:`n`
    (:func:`~flt_theory.compare.check_limit_power_law_2d`): the curve's finite-:math:`n` corrections (the level sets
    move with :math:`n` at fixed :math:`X`, most at :math:`n = 8`) are corrections to scaling of the ladder in
    :math:`n`. On a smaller grid (``small``, 2 x 2): one joint fit (:func:`~flt_theory.compare.check_power_law_2d`),
    no tolerance. Either needs the initialisation at a fixed fraction of its bound (:func:`_collapse_curve`): a fixed
    :math:`\sigma_0\sqrt d` tilts the level sets by about 0.003 in the exponent of :math:`d`, which the seeds
    resolve."""
    curves = error_curves(frame)
    predicted = (float(law.exponent("n")), float(law.exponent("d")))
    law_text = f"SNR* ∝ n^{fmt(predicted[0])} d^{fmt(predicted[1])}"
    parts = []
    for level in levels:
        ns, ds, snr, dropped = collapse_boundaries(curves, level)
        note = f" ({dropped} seed(s) not crossing)" if dropped else ""
        if len(set(ns)) >= COLLAPSE_LIMIT_RUNGS and len(set(ds)) >= COLLAPSE_LIMIT_RUNGS:
            parts.append(check_limit_power_law_2d(ns, ds, snr, predicted, labels=("n", "d"),
                                                  name=f"level {level:g}: {law_text} in the limit{note}"))
        else:
            parts.append(check_power_law_2d(ns, ds, snr, predicted, labels=("exponent of n", "exponent of d"),
                                            name=f"level {level:g}: {law_text} (one fit: fewer than "
                                                 f"{COLLAPSE_LIMIT_RUNGS} values of n or d){note}"))
    where = ", ".join(f"({n}, {d:.0e})" for n, d in sorted(curves))
    return all_of(f"ReLU test error at levels {', '.join(f'{v:g}' for v in levels)} over (n, d) = {where}", predicted,
                  parts)


def collapse_ladder(frame: pd.DataFrame, law: Law, level: float = COLLAPSE_LADDER_LEVEL) -> list[dict[str, Any]]:
    """The effective exponents at ``level`` that :func:`compare_collapse` extrapolates at ``paper``
    (:func:`~flt_theory.compare.grid_rungs`): ``{"n": ...}`` against ``law.exponent("n")``, then ``{"d": ...}``
    against ``law.exponent("d")``, each at the geometric middle of its two sizes."""
    ns, ds, snr, _ = collapse_boundaries(error_curves(frame), level)
    return grid_rungs(ns, ds, snr, (float(law.exponent("n")), float(law.exponent("d"))), labels=("n", "d"))


def tail_powers(xs: np.ndarray, errors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Per seed, the local power :math:`\beta` of :math:`-\log\mathrm{err}` (raw) and of
    :math:`L(X) = -\log\mathrm{err} - \tfrac12\log X` (corrected) on the two windows :math:`[X_1, X_2]`,
    :math:`[X_2, X_3]` ending at the grid's last point, :math:`X_1 \approx X_3/4`, :math:`X_2 \approx X_3/2`: if
    :math:`L = a + bX^\beta` and :math:`X_2 = 2X_1`, :math:`X_3 = 4X_1`, the mean rates of :math:`L` on the windows
    satisfy :math:`r_2/r_1 = 2^{\beta-1}` whatever :math:`a, b`. NaN where an error is 0.

    >>> xs = np.array([1.0, 2.0, 4.0, 8.0]); errors = np.exp(-(3 + 0.5 * xs) - 0.5 * np.log(xs))[None, :]
    >>> raw, corrected = tail_powers(xs, errors)
    >>> bool(raw[0] < 1), round(float(corrected[0]), 10)
    (True, 1.0)
    """
    last = len(xs) - 1
    i1, i2 = (int(np.argmin(abs(np.log(xs) - math.log(xs[last] / f)))) for f in (4, 2))
    points = [i1, i2, last]
    out = []
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = -np.log(errors[:, points])
        for lval in (raw, raw - 0.5 * np.log(xs[points])):
            r1 = (lval[:, 1] - lval[:, 0]) / (xs[i2] - xs[i1])
            r2 = (lval[:, 2] - lval[:, 1]) / (xs[last] - xs[i2])
            beta = 1 + np.log2(r2 / r1)
            out.append(np.where(np.isfinite(beta), beta, math.nan))
    return out[0], out[1]


def compare_tail(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""The form of the ReLU test-error tail, read as ``law.exponent("X")`` = :math:`\beta` in
    :math:`-\log\mathrm{err} \approx X^\beta/C`: the local power of the raw :math:`-\log\mathrm{err}` must lie
    below :math:`\beta` and that of :math:`L = -\log\mathrm{err} - \frac12\log X` above it (:func:`tail_powers`,
    averaged over the :math:`(n, d)` points per seed; each 95% interval on its side: demonstrated).

    Why a bracket (:func:`.laws.kou_tail`): :math:`\mathrm{err} = KX^{-1/2}e^{-X/C}(1 - c/X + \dots)`,
    :math:`c > 0` (the Gaussian tail :math:`\Phi(-t) = \varphi(t)/t\,(1 - t^{-2} + \dots)`), so the raw rate
    :math:`1/C + 1/(2X) + O(X^{-2})` falls with :math:`X` (local power below 1) and the corrected rate
    :math:`1/C - c/X^2` rises (above 1); both converge to 1. Measured (8 seeds): on windows ending at
    :math:`X = 6.4, 9.05, 12.8, 25.6` the raw power is 0.84, 0.87, 0.90, 0.96 and the corrected 1.18, 1.11, 1.07,
    1.04. The windows end at :math:`X = 9.05`, where both sides clear 1 by about 0.12 against a 95% half-width of
    about 0.03 (ending at 12.8, one of five seed sets had the corrected interval touch 1: the bracket narrows
    faster than the Monte Carlo error of errors near :math:`10^{-5}`). No tolerance; the wrong law's 1/2 and
    the mutants at ±0.25 fall outside the bracket."""
    curves = error_curves(frame)
    raw, corrected = (np.stack([tail_powers(*curves[p])[k] for p in sorted(curves)], axis=1) for k in (0, 1))
    keep = np.isfinite(raw).all(axis=1) & np.isfinite(corrected).all(axis=1)
    exponent = float(law.exponent("X"))
    xs = next(iter(curves.values()))[0]
    parts = [check_at_most(raw[keep].mean(axis=1), exponent, mode="demonstrated",
                           name=f"local power of -log err ≤ {fmt(exponent)}"),
             check_at_least(corrected[keep].mean(axis=1), exponent, mode="demonstrated",
                            name=f"local power of -log err - ½ log X ≥ {fmt(exponent)}")]
    dropped = int((~keep).sum())
    note = f" ({dropped} seed(s) with a zero error dropped)" if dropped else ""
    return all_of(f"-log err ∝ X^{fmt(exponent)} on X = {xs[-1] / 4:.3g}..{xs[-1]:.3g}, bracketed by the raw and "
                  f"prefactor-corrected local powers{note}", exponent, parts)


def compare_growth_slopes(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""ReLU early phase: measured/predicted for the slopes of :math:`\max\gamma` and :math:`\bar\rho`, with
    the predictions ``law.numbers(...)`` at each row's :math:`\eta, \|\mu\|, m, \tau, \sigma_\xi, d, n`; PASSES iff
    neither interval excludes the band of ``GROWTH_TOLERANCE`` around 1 (``consistent``: the law is the null
    hypothesis, so its p-value enters the family-wise level of ``flt check``; the wrong law's ratio ≈ 0.6 is
    excluded by far)."""
    rows = frame.sort_values("seed")
    predicted = np.array([growth_prediction(law, row) for _, row in rows.iterrows()])  # (seeds, 2)
    parts = []
    for k, (column, label) in enumerate((("gamma_slope", "max γ"), ("rho_slope", "ρ̄"))):
        ratio = rows[column].to_numpy(float) / predicted[:, k]
        for check, bound in ((check_at_least, 1 - GROWTH_TOLERANCE), (check_at_most, 1 + GROWTH_TOLERANCE)):
            parts.append(check(ratio, bound, mode="consistent", bounds=(0, math.inf),
                               name=f"slope of {label}: measured/law {'≥' if check is check_at_least else '≤'} "
                                    f"{bound:g}"))
    tau = float(rows["label_noise"].iloc[0])
    return all_of(f"ReLU growth slopes (τ = {tau:g}) within {GROWTH_TOLERANCE:.0%}", law.text(), parts)


def compare_growth_exponent(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""Tensor-power growth: log-log slope of the increment on the variable of the law (``A`` — the signal
    overlap — or ``gamma`` — the literal reading), against ``law.exponent(variable)`` within
    ``EXPONENT_TOLERANCE`` (95% interval inside, demonstrated)."""
    names = {s.name for s in sp.sympify(law.value).free_symbols}
    variable = next(v for v in ("A", "gamma") if v in names)
    column = {"A": "signal_exponent", "gamma": "gamma_exponent"}[variable]
    exponent = float(law.exponent(variable))
    values = frame.sort_values("seed")[column].to_numpy(float)
    label = "A = j⟨w, μ⟩" if variable == "A" else "γ"
    parts = [check_at_least(values, exponent - EXPONENT_TOLERANCE, mode="demonstrated",
                            name=f"exponent of Δ{label} ≥ {exponent - EXPONENT_TOLERANCE:g}"),
             check_at_most(values, exponent + EXPONENT_TOLERANCE, mode="demonstrated",
                           name=f"exponent of Δ{label} ≤ {exponent + EXPONENT_TOLERANCE:g}")]
    return all_of(f"ΔX ∝ X^{fmt(exponent)} for X = {label}", exponent, parts)


def compare_label_noise(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""Label noise, at every measured point where the law's value (``laws.value_in_regime``) is defined: the test
    error rises in stage II (final > early-stopped minimum, demonstrated) and the final test error satisfies
    ``law.relation`` (``geq``/``leq``) with the law's value (consistent reading, error-rate interval on the logit
    scale). Points where the value is undefined are reported as OUT OF REGIME (not checked); no point in
    the regime is a FAIL."""
    points = frame[["n", "d", "n_snr2", "label_noise"]].drop_duplicates().sort_values(["n_snr2", "d"]).to_numpy()
    parts: list[CheckResult] = []
    outside: list[dict[str, Any]] = []  # JSON-ready, as the result's details
    for n, d, n_snr2, tau in points:
        where = dict(n=int(n), d=int(d), n_snr2=float(n_snr2))
        final = per_seed(frame, "final_error", **where)
        snr = sp.sqrt(sp.nsimplify(n_snr2) / int(n))  # exact: n SNR^2 is compared with the regime's bound
        bound = laws.value_in_regime(law, tau=float(tau), d=int(d), n=int(n), snr=snr)
        label = f"d/n = {int(d) // int(n)}, n SNR² = {n_snr2:g}"
        if not math.isfinite(bound):
            est = check_at_least(final, 0.0, bounds=(0, 1))
            outside.append({"point": label, "final_error": est.measured, "ci": est.ci,
                            "min_error": float(per_seed(frame, "min_error", **where).mean())})
            continue
        parts.append(check_ordering([final, per_seed(frame, "min_error", **where)],
                                    name=f"{label}: stage II raises the test error above its early-stopped minimum"))
        check = check_at_least if law.relation == "geq" else check_at_most
        sign = "≥" if law.relation == "geq" else "≤"
        parts.append(check(final, bound, bounds=(0, 1), name=f"{label}: final test error {sign} {bound:g}"))
    note = "; ".join(f"{o['point']}: final error {fmt(o['final_error'])} {fmt_ci(o['ci'])}" for o in outside)
    name = "label-noise two-stage curve" + (f" [OUT OF REGIME, not checked: {note}]" if outside else "")
    if not parts:
        return make_result(name=name, passed=False, predicted=str(law.value), measured=math.nan,
                           ci=(math.nan, math.nan), n_seeds=0, summary="no measured point lies in the law's regime",
                           details={"out_of_regime": outside})
    result = all_of(name, law.text(), parts)
    result.details["out_of_regime"] = outside
    return result


# ----------------------------------------------------------------------------------------------
# measurements


def _points(scale_fn) -> dict[str, list[dict]]:
    return {scale: scale_fn(SIZES[scale]) for scale in SCALES}


def _seeds(key: str) -> dict[str, int]:
    return {scale: SIZES[scale][key] for scale in SCALES}


def relu_inside_point(n: int, d: int) -> dict[str, Any]:
    r"""The ReLU boundary point inside Condition 4.1 at ``(n, d)`` (:data:`RELU_INSIDE`): the initialisation at the
    fraction :data:`RELU_INIT_FRACTION` of its bound, :math:`\sigma_0\sqrt d = f\sqrt{n/d}`.

    >>> p = relu_inside_point(32, 10**6)
    >>> round(p["sigma0_sqrt_d"] / math.sqrt(32 / 10**6), 12) == round(RELU_INIT_FRACTION, 12), p["dynamics"]
    (True, 'flow-projected')
    """
    return {**RELU_INSIDE, "n": n, "d": d, "sigma0_sqrt_d": RELU_INIT_FRACTION * math.sqrt(n / d)}


def _relu_point(sizes: dict[str, Any], n: int, d: int) -> dict[str, Any]:
    """The ReLU boundary point of a scale: inside Condition 4.1 (:func:`relu_inside_point`) or GD outside it."""
    return relu_inside_point(n, d) if sizes["relu_inside"] else {**RELU_BOUNDARY, "n": n, "d": d}


def _relu_boundary() -> Measurement:
    return Measurement(experiment="signal-noise/boundary", seeds=_seeds("relu_seeds"), points=_points(lambda s: [
        {**_relu_point(s, n, s["relu_d"]), "iterations": s["iterations"], "grid": s["grid"]}
        for n in s["relu_ns"]]), hypothesis_values=boundary_hypothesis_values)


def _relu_boundary_d() -> Measurement:
    return Measurement(experiment="signal-noise/boundary", seeds=_seeds("relu_seeds"), points=_points(lambda s: [
        {**_relu_point(s, s["relu_n"], d), "iterations": s["iterations"]} for d in s["relu_ds"]]),
        hypothesis_values=boundary_hypothesis_values)


def cubic_inside_point(n: int, width: int, d_factor: int = CUBIC_D_FACTOR) -> dict[str, Any]:
    r"""The ReLU^3 boundary point inside Condition 4.2 at ``n`` (:data:`CUBIC_INSIDE`): :math:`d = K m^4 n^4`,
    :math:`\sigma_0\sqrt d = 1/(2m^2n)`.

    >>> p = cubic_inside_point(16, 10)
    >>> p["d"], p["sigma0_sqrt_d"], p["dynamics"]
    (10485760000, 0.0003125, 'flow')
    """
    return {**CUBIC_INSIDE, "n": n, "width": width, "d": d_factor * width**4 * n**4,
            "sigma0_sqrt_d": 0.5 / (width**2 * n)}


def _cubic_seeds_key(variable: str, sizes: dict[str, Any]) -> str:
    """The :data:`SIZES` key of the seed count of the ReLU³ boundary measurement along ``variable``."""
    if variable != "n":
        return "cubic_seeds"
    return "cubic_gd_seeds" if sizes["cubic_gd_ns"] else "cubic_n_seeds"


def _cubic_boundary(variable: str) -> Measurement:
    def points(s):
        if variable == "n" and s["cubic_gd_ns"]:
            # 10 halvings (the shared `iterations` = 8 leaves +-0.0041 in log SNR* on this bracket, which moves the one
            # fit by up to 0.0035, and the finding's interval is read with it: fit_resolution_bound)
            return [{**CUBIC_BOUNDARY_GD, "n": n, "d": s["cubic_gd_d"], "iterations": s["cubic_gd_iterations"]}
                    for n in s["cubic_gd_ns"]]
        if variable == "n":
            grid = [cubic_inside_point(n, s["cubic_width"]) for n in s["cubic_ns"]]
        else:
            grid = [cubic_inside_point(s["cubic_n"], s["cubic_width"], k) for k in s["cubic_d_factors"]]
        # at n = 4 a seed's boundary can sit above 1.2 (SNR* = 1.48 for seed 47, the others 0.52-0.55): the small
        # bracket reaches 2 so that no seed set returns a NaN crossing
        return [{**p, "iterations": s["cubic_iterations"], "snr_high": s["cubic_snr_high"]} for p in grid]

    # the GD slope measurement (small scale, outside Condition 4.2) keeps 8 seeds: with the 4 of the inside flow
    # points its control (-1/3) was not rejected at the catalogue's level alpha/K; the inside flow slope in n (paper)
    # has 32: at 16 its control (-1/3) was not rejected at 0.05/79 (p = 7.4e-4; -0.284 [-0.309, -0.257])
    seeds = {scale: SIZES[scale][_cubic_seeds_key(variable, SIZES[scale])] for scale in SCALES}
    return Measurement(experiment="signal-noise/boundary", seeds=seeds, points=_points(points),
                       hypothesis_values=boundary_hypothesis_values)


def _error_curve() -> Measurement:
    r"""The ReLU test-error curves of relu-exponential-tail: :data:`ERROR_CURVE` at a fixed
    :math:`\sigma_0\sqrt d`, over the ``curve_*`` sizes."""
    return Measurement(experiment="signal-noise/error-curve", seeds=_seeds("curve_seeds"), points=_points(lambda s: [
        {**ERROR_CURVE, "n": n, "d": d, "n_test": s["curve_n_test"]}
        for n in s["curve_ns"] for d in s["curve_ds"]]), hypothesis_values=error_curve_hypothesis_values)


def _collapse_curve() -> Measurement:
    r"""The curves of relu-collapse: :data:`ERROR_CURVE` with the initialisation at the fraction
    :data:`RELU_INIT_FRACTION` of its bound at every point, :math:`\sigma_0\sqrt d = f\sqrt{n/d}`, over the
    ``collapse_*`` sizes (the seeds and test rows of ``curve_*``)."""
    return Measurement(experiment="signal-noise/error-curve", seeds=_seeds("curve_seeds"), points=_points(lambda s: [
        {**ERROR_CURVE, "n": n, "d": d, "n_test": s["curve_n_test"],
         "sigma0_sqrt_d": RELU_INIT_FRACTION * math.sqrt(n / d)}
        for n in s["collapse_ns"] for d in s["collapse_ds"]]), hypothesis_values=error_curve_hypothesis_values)


def _growth(activation: str, **params: Any) -> Measurement:
    point = {"activation": activation, "n": 40, "d": 10**5, "width": 10, "snr": 0.05, **params}
    return Measurement(experiment="signal-noise/growth", seeds=_seeds("growth_seeds"),
                       points={scale: [point] for scale in SCALES}, hypothesis_values=growth_hypothesis_values)


def _label_noise() -> Measurement:
    return Measurement(experiment="signal-noise/label-noise", seeds=_seeds("label_seeds"), points={scale: [
        {"n": 64, "d": ratio * 64, "n_snr2": n_snr2, "label_noise": 0.2} for ratio, n_snr2 in LABEL_NOISE_POINTS[scale]]
        for scale in SCALES}, hypothesis_values=label_noise_hypothesis_values)


def _label_noise_law() -> Law:
    return laws.label_noise_rise(**LABEL_NOISE_REGIME)


def _relu_boundary_claim(name: str, variable: str, measurement: Measurement, tolerance: float, words: str) -> Claim:
    """A ReLU boundary claim (Kou et al. 2023's slope in ``variable``; Cao et al.'s ReLU^3 law as the control)."""
    return Claim(name=name, words=words, law=laws.kou_boundary, wrong_law=functools.partial(laws.cao_boundary, 3),
                 measurement=measurement, extrapolation_note=RELU_EXTRAPOLATION,
                 ladder=functools.partial(boundary_slope_ladder, variable=variable,
                                          predicted=predicted_exponent(laws.kou_boundary(), variable)),
                 compare=functools.partial(compare_boundary_slope, variable=variable, tolerance=tolerance,
                                           limit_rungs=RELU_LIMIT_RUNGS))


def _claims() -> list[Claim]:
    return [
        _relu_boundary_claim("relu-boundary-slope", "n", _relu_boundary(), 0.02,
                             "ReLU (Kou et al. 2023): the benign/harmful boundary SNR* ∝ n^(-1/4) (n ||mu||^4 ~ "
                             "sigma_xi^4 d); inside Condition 4.1 at paper scale (gradient flow, n = 16..256, "
                             "d = 1e6, the initialisation at a fixed fraction of its bound), decided there in the "
                             "limit"),
        _relu_boundary_claim("relu-boundary-d", "d", _relu_boundary_d(), 0.05,
                             "ReLU (Kou et al. 2023): at fixed n the boundary SNR* ∝ d^(-1/4); with the slope in n, "
                             "the boundary depends on n ||mu||^4/(sigma_xi^4 d) alone (the data collapse of the "
                             "boundary); inside Condition 4.1 at paper scale (gradient flow, d = 1e4..1e9, n = 32, the "
                             "initialisation at a fixed fraction of its bound), decided there in the limit"),
        Claim(name="relu-collapse",
              words=("ReLU (derived here from Kou et al. 2023's bounds): the whole test-error curve is a function of "
                     "n ||mu||^4/(sigma_xi^4 d) alone: its level sets at errors 0.3..0.01 have SNR* ∝ (n d)^(-1/4) "
                     "across n and d"),
              law=laws.kou_collapse, wrong_law=laws.snr2_collapse,
              measurement=_collapse_curve(), compare=compare_collapse,
              ladder=lambda frame: collapse_ladder(frame, laws.kou_collapse())),
        Claim(name="relu-exponential-tail",
              law=laws.kou_tail, wrong_law=laws.subexponential_tail, measurement=_error_curve(), compare=compare_tail,
              words=("ReLU (derived here; Kou et al. 2023 bound it): the test error's tail is exponential in X = n "
                     "||mu||^4/(sigma_xi^4 d), err = X^(-1/2) exp(-X/C)(1 + O(1/X)): the local power of -log err in X "
                     "is bracketed around 1 by the raw (below) and prefactor-corrected (above) estimates")),
        Claim(name="relu3-boundary-d",
              words=("ReLU^3 (Cao et al. 2022), inside Condition 4.2 (gradient flow, d = 16..1600 m^4 n^4, sigma0 in "
                     "the window): at fixed n the boundary SNR* does not depend on d"),
              law=functools.partial(laws.cao_boundary, 3), wrong_law=laws.kou_boundary,
              measurement=_cubic_boundary("d"),
              compare=functools.partial(compare_boundary_slope, variable="d", tolerance=0.05,
                                        limit_rungs=CUBIC_D_LIMIT_RUNGS)),
        Claim(name="relu3-boundary-slope",
              words=("finding about a finite ladder (Cao et al. 2022 read literally): over n = 4..128 (1.5 decades) "
                     "the ReLU^3 boundary slope in log n, one fit, lies strictly between -1/3 and -1/4, not at the "
                     "literal -1/3 - INSIDE Condition 4.2 at paper scale (gradient flow, d = 16 m^4 n^4, sigma0 in "
                     "the window) and outside it at small (GD, n = 16..256, d = 1e5); in the limit of large n the "
                     "literal -1/3 is NOT excluded (effective exponents, extrapolated: shown, not decided)"),
              law=functools.partial(laws.relu_q_slope_finding, 3), wrong_law=functools.partial(laws.literal_slope, 3),
              measurement=_cubic_boundary("n"), extrapolation_note=CUBIC_SMALL_NOTE,
              ladder=functools.partial(boundary_slope_ladder, variable="n", literal=-1 / 3),
              compare=functools.partial(compare_boundary_slope, variable="n", tolerance=0.0)),
        Claim(name="relu-growth-slopes",
              words=("ReLU early phase: gamma grows by eta ||mu||^2 (1 - 2 tau)/(4m) and rho-bar by eta sigma_xi^2 "
                     "(d-1)/(2nm) per step (2%)"),
              law=laws.growth_slopes,
              wrong_law=lambda: laws.growth_slopes().replace(
                  value=(laws.signal_slope().subs(laws.SYMBOLS["tau"], 0), laws.noise_slope()),
                  words="the gamma slope without the label-noise factor (1 - 2 tau)"),
              measurement=_growth("relu", sigma0_sqrt_d=1e-3, eta_scale=0.002, label_noise=0.2, max_steps=80),
              compare=compare_growth_slopes),
        Claim(name="relu3-growth-exponent",
              words=("finding, inside Cao et al. 2022's Condition 4.2 (d = 1e11, sigma0, eta in their bounds): "
                     "at the start of the ReLU^3 early phase (gamma <~ A_0), Delta A ∝ A^2 for the overlap "
                     "A = j<w, mu>, not for gamma alone (the literal gamma recursion, which holds once gamma >> A_0)"),
              no_ladder=RELU3_GROWTH_NO_LADDER, law=functools.partial(laws.growth_exponent, 3),
              wrong_law=functools.partial(laws.literal_gamma_recursion, 3),
              measurement=_growth("relu(z)**3", **CUBIC_GROWTH_INSIDE),
              compare=compare_growth_exponent),
        Claim(name="label-noise-rise",
              words="ReLU, label noise 0.2 (Han et al. 2025): after memorising the flipped labels the test error "
                    "rises to >= tau/2 (in regime d/n <= 2, n SNR^2 <= 2; other points reported out of regime)",
              law=_label_noise_law,
              wrong_law=lambda: _label_noise_law().replace(relation="leq",
                                                           words="no rise: the final test error stays <= tau/2"),
              measurement=_label_noise(), compare=compare_label_noise, extrapolation_note=LABEL_NOISE_EXTRAPOLATION),
    ]


#: The figures' captions, by claim.
FIGURE_CAPTIONS = {
    "relu-boundary-slope": ("final test error over (n, SNR), measured boundary SNR* (mean, 95% CI over seeds), law "
                            "and wrong law"),
    "relu-boundary-d": ("ReLU boundary SNR* against d at n = 32 (mean, 95% CI over seeds), law d^(-1/4) and wrong law "
                        "(flat)"),
    "relu-collapse": ("ReLU test error against X = n||μ||⁴/(σ_ξ⁴d) for every (n, d) (collapse) and against n SNR² (no "
                      "collapse)"),
    "relu-exponential-tail": ("ReLU test-error tail: -log err with and without the ½ log X prefactor against X; law "
                              "(straight) and wrong law (√X)"),
    "relu3-boundary-d": ("ReLU³ boundary SNR* against d = (16..1600) m⁴n⁴ inside Condition 4.2 (gradient flow; mean, "
                         "95% CI over seeds), law (flat) and wrong law (d^(-1/4))"),
    "relu3-boundary-slope": ("ReLU³ boundary SNR* against n (mean, 95% CI over seeds): the finding's wedge and the "
                             "literal n^(-1/3)"),
    "relu-growth-slopes": ("max γ and ρ̄ over the early phase (mean, 95% CI over seeds) with the derived slopes and the "
                           "wrong one"),
    "label-noise-rise": ("test error and fraction of flipped samples fitted along GD, per point (mean over seeds), τ/2 "
                         "marked"),
}


def _figures() -> list[Figure]:
    boundary = {variable: functools.partial(draw_boundary, variable=variable) for variable in ("n", "d")}
    # name, claim, draw, size in inches ({}: the default)
    table: list[tuple[str, str, Callable[..., None], dict[str, float]]] = [
        ("phase-diagram", "relu-boundary-slope", boundary["n"], dict(width=7.2, height=5.0)),
        ("boundary-in-d", "relu-boundary-d", boundary["d"], {}),
        ("collapse", "relu-collapse", draw_collapse, dict(width=9.0, height=4.2)),
        ("tail", "relu-exponential-tail", draw_tail, dict(width=7.2, height=4.8)),
        ("boundary-in-d", "relu3-boundary-d", boundary["d"], {}),
        ("boundary-in-n", "relu3-boundary-slope", boundary["n"], {}),
        ("trajectories", "relu-growth-slopes", draw_growth, dict(width=8.0, height=4.0)),
        ("two-stage", "label-noise-rise", draw_label_noise, dict(width=8.0, height=4.4)),
    ]
    return [Figure(name=name, claim=claim, caption=FIGURE_CAPTIONS[claim], draw=draw, **dims)
            for name, claim, draw, dims in table]


def _all_laws() -> list[Law]:
    return [laws.kou_boundary(), laws.kou_collapse(), laws.kou_tail(), laws.cao_boundary(3),
            laws.relu_q_slope_finding(3), laws.literal_slope(3), laws.growth_slopes(), laws.growth_exponent(3),
            laws.literal_gamma_recursion(3), _label_noise_law()]


SYSTEM = System(
    name=NAME,
    title="Signal-noise data and the two-layer CNN: benign vs harmful overfitting",
    summary=("x = [y mu, xi], xi ~ N(0, sigma_xi^2 (I - e1 e1^T)); a two-layer CNN f = F(+1) - F(-1) with ReLU^q "
             "filters and a fixed second layer, trained by full-batch GD on the logistic loss, simulated exactly in "
             "the n + 2m coordinates (gamma, rho) at any d. Laws: the benign/harmful boundary (ReLU: n ||mu||^4 ~ "
             "sigma_xi^4 d; ReLU^q: n SNR^q ~ 1, up to log factors), the early growth of the signal and noise "
             "coefficients, and the two-stage rise of the test error under label noise."),
    sources=(laws.CAO_2022, laws.KOU_2023, laws.HAN_2025),
    laws=_all_laws,
    claims=_claims(),
    experiments=("signal-noise/boundary", "signal-noise/error-curve", "signal-noise/growth",
                 "signal-noise/label-noise"),
    figures=_figures(),
    simulate=SIMULATE,
)
