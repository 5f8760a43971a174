r"""The attention system: single-head softmax attention with average pooling on signal-noise tokens.

Jiang, Huang, Zhang, Suzuki, Nie 2024 (arXiv 2409.19345); sign-GD: Li et al. 2025 (arXiv 2410.04870).
Laws: :mod:`.laws`; training and observables: :mod:`.model`; reading the stored frame: :mod:`.readouts`;
figures: :mod:`.figures`; ``flt simulate``: :mod:`.simulate`.

One experiment, ``attention/train`` (one network per seed at a point :math:`(n, \|\mu\|)`, GD or sign-GD
until :math:`L_S \le \varepsilon`), serves every claim. The scan over :math:`n \times \|\mu\|` is stored once;
the benign and harmful claims read its two corner points, the boundary claim its whole grid.

Regime (stated, not hidden). :math:`\sigma_\xi = 1/\sqrt d` (tokens of norm about one), :math:`L = 3`,
:math:`d = 10^5 \gg n` (the reduced coordinates of :mod:`.model` make :math:`d` free), :math:`\eta = 20`,
:math:`\varepsilon = 0.05`. At :math:`d \approx 10n` the test-noise term is not negligible and the
measured boundary flattens towards :math:`n^{-1/4}`; at small :math:`n` (:math:`\le 8`) the discrete GD
steps flatten it too (slope about :math:`-0.3` between :math:`n = 8` and :math:`16`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp

from ...compare import (
    check_at_least,
    check_at_most,
    check_every_at_most,
    check_limit_power_law,
    check_power_law,
    effective_exponents,
    fit_resolution_bound,
)
from ...compare.result import CheckResult, all_of, fmt
from ...symbolic.law import Law
from ..declaration import DEVICE_OPTION, Claim, Figure, Measurement, Option, RecordField, SimulateCommand, System
from ..frames import local_slope_ladder
from . import model
from .experiment import train_attention
from .figures import draw_boundary, draw_regimes
from .laws import JIANG, KOU, LI, attention_laws, boundary_law, regime_law
from .readouts import LEVEL, at_point, crossing_resolution, crossings
from .simulate import simulate_document

__all__ = ["SIZES", "SYSTEM", "boundary_ladder", "hypothesis_values", "train_attention"]

NAME = "attention"
#: The declared parameters (:data:`.model.PARAMS`): the experiment's converters and defaults, the options' bounds.
P = model.PARAMS
MUS = tuple(round(float(m), 3) for m in np.geomspace(0.05, 1.0, 8))
#: The boundary's grid at ``paper``: the scan's :data:`MUS` refined fourfold in :math:`\log\|\mu\|` (ratio 1.11
#: between neighbours) up to 0.425, below which every crossing of the level lies (:func:`compare_boundary`); every
#: fourth value is a value of :data:`MUS`, so the scan's rows are reused.
FINE_MUS = tuple(sorted({*(m for m in (round(float(v), 3) for v in np.geomspace(0.05, 1.0, 4 * len(MUS) - 3))
                           if m <= MUS[5]), *MUS}))
#: The fewest values of :math:`n` on which the boundary is decided in the limit (:func:`compare_boundary`): the paper
#: ladder (four, on the fine grid :data:`FINE_MUS`) is; the small one (three, on the scan's coarse grid) keeps the
#: one fit within :data:`BOUNDARY_TOLERANCE`.
BOUNDARY_LIMIT_RUNGS = 4
#: The one fit's tolerance on the boundary's exponent (finite-size curvature of the level set).
BOUNDARY_TOLERANCE = 0.1

SIZES: dict[str, dict[str, Any]] = {
    "small": dict(ns=(16, 32, 64), mus=MUS, seeds=6, sign_seeds=12),
    "paper": dict(ns=(16, 32, 64, 128), mus=MUS, seeds=12, sign_seeds=24),
}
BASE = dict(d=100_000, tokens=3, eta=20.0, eps=0.05, max_steps=3000)
SIGN_GD = dict(optimizer="sign-gd", eta=0.01)


#: The fields of a record of ``flt simulate attention --json`` (listed by its ``--help``).
RECORD_FIELDS = (
    RecordField("n", "training samples", "count"),
    RecordField("d", "dimension", "count"),
    RecordField("tokens", "tokens per sample L", "count"),
    RecordField("mu_norm", "signal norm ||mu||", "units of x"),
    RecordField("snr", "SNR = ||mu|| / (sigma_xi sqrt d)", "1"),
    RecordField("n_snr2", "n SNR^2", "1"),
    RecordField("optimizer", "gd or sign-gd", "label"),
    RecordField("seed", "the run's seed", "index"),
    RecordField("steps", "GD steps taken until the training loss <= eps (or the step limit)", "steps"),
    RecordField("train_loss", "training logistic loss at the end", "nats"),
    RecordField("test_loss", "logistic loss on fresh test samples", "nats"),
    RecordField("test_error", "0-1 error on fresh test samples", "fraction"),
    RecordField("attention_signal", "mean attention weight on the signal token (uniform attention: 1/L)", "fraction"),
    RecordField("value_signal", "<v, mu>/||mu||: the value's signal alignment", "units of a unit direction"),
    RecordField("value_noise", "mean |<v, xi>|/||xi|| over the noise tokens", "units of a unit direction"),
    RecordField("score_signal", "mean |<W_Q x, W_K mu>| over test queries", "logit"),
    RecordField("score_noise", "mean |<W_Q x, W_K xi>| over test queries and noise tokens", "logit"),
)


# ----------------------------------------------------------------------------------------------
# comparisons: each reads its prediction from the law it is given


def compare_regime(frame: pd.DataFrame, law: Law, *, n: int, mu: float) -> CheckResult:
    r"""At the point :math:`(n, \|\mu\|)`, the regime predicted by ``law``: relation ``to`` (benign,
    :math:`L_D \to` ``law.number()``): test loss ≤ that + 0.1, attention on the signal token above uniform
    :math:`1/L` (demonstrated), value noise/signal alignment ≤ 0.1; relation ``geq`` (harmful,
    :math:`L_D \ge` ``law.number()``, demonstrated; ``leq`` reads the bound the other way): noise/signal alignment
    ≥ 1/2 and attention on the signal token not above uniform (≤ 1/L + 0.01). Both: every seed reached
    :math:`L_S \le \varepsilon`."""
    rows = at_point(frame, n, mu)
    level, tokens = law.number(), int(rows["tokens"].iloc[0])
    loss, attn = rows["test_loss"].to_numpy(float), rows["attention_signal"].to_numpy(float)
    share = rows["value_noise"].to_numpy(float) / np.abs(rows["value_signal"].to_numpy(float)).clip(1e-12)
    # per seed: the mean of losses stopped at ε sits at ε (read as a mean, its interval crossed ε on 1 of 20 seed sets)
    fitted = check_every_at_most(rows["train_loss"].to_numpy(float), float(rows["eps"].iloc[0]),
                                 name="training loss ≤ ε on every seed (interpolation)")
    if law.relation == "to":
        parts = [fitted, check_at_least(loss, level - 0.1, name=f"test loss ≥ {level:g} − 0.1"),
                 check_at_most(loss, level + 0.1, mode="demonstrated", name=f"test loss ≤ {level:g} + 0.1"),
                 check_at_least(attn, 1 / tokens, mode="demonstrated",
                                name=f"attention on the signal token > 1/L = {1 / tokens:.3g}"),
                 check_at_most(share, 0.1, mode="demonstrated", name="value: noise alignment ≤ 0.1 × signal alignment")]
    else:
        bound = (check_at_least(loss, level, mode="demonstrated", name=f"test loss ≥ {level:g} (Θ(1))")
                 if law.relation == "geq"
                 else check_at_most(loss, level, mode="demonstrated", name=f"test loss ≤ {level:g}"))
        parts = [fitted, bound,
                 check_at_least(share, 0.5, mode="demonstrated",
                                name="value: noise alignment ≥ 1/2 × signal alignment"),
                 check_at_most(attn, 1 / tokens + 0.01, mode="demonstrated",
                               name="attention on the signal token ≤ 1/L + 0.01")]
    return all_of(f"{law.name} at n = {n}, ‖μ‖ = {mu:g} (n·SNR² = {n * mu**2:g})", law.latex(), parts)


def compare_boundary(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""Exponent of :math:`\|\mu\|^*` in :math:`n` (per seed, seeds paired across :math:`n`; at
    :math:`\sigma_\xi\sqrt d = 1`, :math:`\mathrm{SNR} = \|\mu\|`) against ``law.exponent("n")``.

    On :data:`BOUNDARY_LIMIT_RUNGS` values of :math:`n` or more (``paper``) it is decided in the limit
    (:func:`~flt_theory.compare.check_limit_power_law`, no tolerance), on the fine grid :data:`FINE_MUS`; on fewer
    (``small``, the scan's coarse grid) by one power-law fit within :data:`BOUNDARY_TOLERANCE`. Both count what the
    crossings' linear interpolation can leave (:func:`.readouts.crossing_resolution`, a resolution in
    :math:`\log\|\mu\|^*`: the one fit's slack grows by :func:`~flt_theory.compare.fit_resolution_bound`, the limit's
    intervals by what it can carry). Why the grid matters: on the scan's grid (ratio 1.53) the interpolation moves the
    effective exponents by about 0.005, depending on where each :math:`n`'s crossing falls in its cell (resolution
    0.012 to 0.016 at small), and counted, it leaves the limit of four rungs wide (the paper ladder on that grid:
    limit -0.484 [-0.625, -0.344]). Measured at paper (12 seeds) at :math:`d = 10^7`, where the seeds agree to 0.1%:
    -0.5029, -0.4971, -0.4934 on the coarse grid without the resolution (limit -0.488, excluding -1/2 at p = 1e-12)
    against -0.4958, -0.5001, -0.4994 on a grid four times finer (limit -0.5001 [-0.5010, -0.4992]); at the registered
    :math:`d = 10^5` the fine grid reads -0.4979, -0.5010, -0.4992 (resolution 0.0004 to 0.0008)."""
    ns, star = crossings(frame)
    ok = np.isfinite(star).all(axis=1)
    xs, resolution = ns.astype(float), crossing_resolution(frame)
    exponent = float(law.exponent("n"))
    name = f"test-loss level set L_D = {LEVEL:.3f}: SNR* ∝ n^{exponent:g}"
    if len(ns) >= BOUNDARY_LIMIT_RUNGS:
        return check_limit_power_law(xs, star[ok], exponent, variable="n", resolution=resolution,
                                     name=f"{name} in the limit (the interpolation's resolution "
                                          f"±{fmt(float(resolution.max()))} in log SNR*)")
    slack = fit_resolution_bound(xs, resolution)
    result = check_power_law(xs, star[ok], exponent, tolerance=BOUNDARY_TOLERANCE + slack,
                             name=f"{name} (tolerance {BOUNDARY_TOLERANCE:g} + the interpolation's resolution "
                                  f"{fmt(slack)})")
    result.details["effective"] = effective_exponents(xs, star[ok], resolution=resolution)
    return result


def boundary_ladder(frame: pd.DataFrame) -> list[dict[str, Any]]:
    r"""Rungs between adjacent :math:`n`: the local exponent of the boundary :math:`\|\mu\|^*(n)` (:func:`crossings`),
    per seed :math:`\log(\|\mu\|^*_{k+1}/\|\mu\|^*_k)/\log(n_{k+1}/n_k)`, mean and 95% interval over the seeds
    whose scan straddles the level at both :math:`n` (:func:`~flt_theory.systems.frames.local_slope_ladder`),
    widened by the interpolation's resolution (:func:`.readouts.crossing_resolution`), at
    :math:`\sqrt{n_kn_{k+1}}`; ``predicted`` the law's :math:`-1/2` (:func:`.laws.boundary_law`). The
    discrete GD steps flatten the boundary at small :math:`n` (module docstring): a law that holds better as
    :math:`n` grows has rungs that approach :math:`-1/2`."""
    ns, star = crossings(frame)
    return local_slope_ladder(ns, star, name="n", predicted=float(boundary_law().exponent("n")),
                              resolution=crossing_resolution(frame))


# ----------------------------------------------------------------------------------------------
# claims


def hypothesis_values(point: Mapping[str, Any]) -> dict[str, Any]:
    r"""The symbols of :mod:`.laws`' hypotheses at a normalised point of ``attention/train``: :math:`n, d`,
    :math:`\mathrm{SNR} = \|\mu\|/(\sigma_\xi\sqrt d) = \|\mu\|` (:math:`\sigma_\xi = 1/\sqrt d`), tokens
    :math:`L`, step :math:`\eta` and initialisation :math:`\sigma_0`.

    >>> hypothesis_values({"n": 64, "mu_norm": 1.0, **BASE, "sigma0": 0.01})["SNR"]
    1.0
    """
    return {"n": point["n"], "d": point["d"], "SNR": point["mu_norm"], "L": point["tokens"], "eta": point["eta"],
            "sigma0": point["sigma0"]}


def _scan(scale_key: str = "small") -> list[dict]:
    s = SIZES[scale_key]
    return [{"n": n, "mu_norm": mu, **BASE} for n in s["ns"] for mu in s["mus"]]


SCAN = Measurement(experiment="attention/train", points={k: _scan(k) for k in SIZES},
                   seeds={k: SIZES[k]["seeds"] for k in SIZES}, hypothesis_values=hypothesis_values)
#: The boundary's measurement: the scan at ``small``; at ``paper`` the scan refined to :data:`FINE_MUS`.
BOUNDARY_SCAN = Measurement(
    experiment="attention/train", seeds=SCAN.seeds, hypothesis_values=hypothesis_values,
    points={"small": _scan("small"),
            "paper": [{"n": n, "mu_norm": mu, **BASE} for n in SIZES["paper"]["ns"] for mu in FINE_MUS]})
BENIGN_POINT, HARMFUL_POINT = (64, MUS[-1]), (16, MUS[0])


def _claims() -> list[Claim]:
    sign_points = {k: [{"n": BENIGN_POINT[0], "mu_norm": BENIGN_POINT[1], **BASE, **SIGN_GD}] for k in SIZES}
    return [
        Claim(name="benign",
              words="n·SNR² = 64: training loss ≤ ε, test loss ≈ 0, attention on the signal token, value along μ",
              law=functools.partial(regime_law, "benign"), wrong_law=functools.partial(regime_law, "harmful"),
              measurement=SCAN, compare=functools.partial(compare_regime, n=BENIGN_POINT[0], mu=BENIGN_POINT[1])),
        Claim(name="harmful",
              words="n·SNR² = 0.04: training loss ≤ ε, test loss Θ(1), value on the noise, attention not on the signal",
              law=functools.partial(regime_law, "harmful"), wrong_law=functools.partial(regime_law, "benign"),
              measurement=SCAN, compare=functools.partial(compare_regime, n=HARMFUL_POINT[0], mu=HARMFUL_POINT[1])),
        Claim(name="boundary",
              words="the benign/harmful boundary (test loss = ½ log 2) is SNR* ∝ n^(-1/2), i.e. n·SNR*² = const",
              law=boundary_law, wrong_law=functools.partial(boundary_law, sp.Rational(-1, 4)),
              measurement=BOUNDARY_SCAN, compare=compare_boundary, ladder=boundary_ladder),
        Claim(name="sign-gd-memorises-noise",
              words="sign-GD at n·SNR² = 64 (benign for GD): training loss ≤ ε, value memorises noise, test loss Θ(1)",
              law=functools.partial(regime_law, "sign-gd"), wrong_law=functools.partial(regime_law, "benign"),
              measurement=Measurement(experiment="attention/train", points=sign_points,
                                      seeds={k: SIZES[k]["sign_seeds"] for k in SIZES},
                                      hypothesis_values=hypothesis_values),
              compare=functools.partial(compare_regime, n=BENIGN_POINT[0], mu=BENIGN_POINT[1])),
    ]


# ----------------------------------------------------------------------------------------------
# flt simulate attention


SYSTEM = System(
    name=NAME,
    title="Single-head softmax attention on signal-noise tokens: benign vs harmful overfitting",
    summary=("Tokens x1 = y mu, x2..xL Gaussian noise; f(X) = (1/L) sum_l softmax(x_l W_Q W_K^T X^T) X W_V w_o trained "
             "by GD (or sign-GD) on the logistic loss until L_S <= eps. Benign (test loss ~ 0, attention on the signal "
             "token, value along mu) when n SNR^2 is large, harmful (test loss Theta(1), value on the noise) when "
             "small; the boundary SNR* ~ n^(-1/2); sign-GD memorises the noise where GD is benign."),
    sources=(JIANG, LI, KOU),
    laws=attention_laws,
    claims=_claims(),
    experiments=("attention/train",),
    figures=(Figure(name="boundary", claim="boundary", caption="test loss against n·SNR² per n; SNR*(n) with both laws",
                    draw=draw_boundary, width=10.0, height=4.2),
             Figure(name="regimes", claim="benign",
                    caption="test loss, attention on the signal token and value alignment across n·SNR²",
                    draw=draw_regimes)),
    simulate=SimulateCommand(
        help=("Train single-head softmax attention (average pooling, token 1 = y mu, tokens 2..L noise of norm ~1) by "
              "GD or sign-GD until the training loss <= eps, for every n and ||mu|| (Jiang et al. 2024, arXiv "
              "2409.19345). Records per seed: train/test loss, test error, attention on the signal token, value "
              "alignments."),
        fields=RECORD_FIELDS,
        experiment="attention/train",
        options=(
            Option.of(P["n"], grid=True, help="Training samples, comma-separated."),
            Option.of(P["mu_norm"], grid=True, help="Signal norms ||mu|| (SNR = ||mu|| since sigma_xi sqrt(d) = 1)."),
            *(Option.of(P[name]) for name in ("d", "tokens", "eta", "eps", "max_steps", "optimizer")),
            Option(name="seeds", kind="int", default=4, minimum=1, help="Seeds 0..S-1."),
            DEVICE_OPTION,
        ),
        run=simulate_document,
    ),
)
