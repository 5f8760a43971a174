r"""The contrastive system: one declaration of its experiment, claims, figures and ``flt simulate``.

Single- and multi-modal contrastive learning (InfoNCE, ReLU embeddings, patch-wise similarity) on two-patch
signal-noise data (Huang, Han, Chen, Cao, Xu, Suzuki 2024, arXiv 2411.02837). Laws: :mod:`.laws`; data,
network, training and probe: :mod:`.model`; reading the stored frame: :mod:`.readouts`; figures: :mod:`.figures`;
``flt simulate``: :mod:`.simulate`.

Every claim is ONE stored measurement (the experiment ``contrastive/train`` at one point, over seeds) and ONE comparison
:func:`~flt_theory.systems.levels.compare_level` called with the claim's law and with its wrong law; it reads the
prediction from the law: ``law.relation`` (``approx``: the whole 95% interval of the mean within ``± tolerance`` of
``law.number()``; ``geq`` / ``leq``: the whole interval on the claimed side of ``law.number()``).

==============================================  =================================  =================================
claim                                           law                                negative control
==============================================  =================================  =================================
``single-modal-memorises-noise``                single: Γ_T ≈ 0 (± 0.05)           the multi-modal outcome Γ_T ≥ 0.1
``multi-modal-learns-signal``                   multi, C_μ = 8: Γ_T ≥ 0.1          the single-modal outcome Γ_T ≈ 0
``probe-single-modal``                          single: probe error ≈ 1/2 (± 0.1)  the multi-modal outcome ≈ 0
``probe-multi-modal``                           multi: probe error ≈ 0 (± 0.05)    the single-modal outcome ≈ 1/2
``multi-modal-memorises-noise-at-convergence``  [finding] multi: Ξ_end ≥ 1         the slide's literal ⟨w, ξ_i⟩ ≈ 0
``multi-modal-needs-large-c-mu``                [finding] C_μ = 2 > 1: Γ_T ≈ 0     the literal "C_μ > 1 ⇒ Γ_T ≥ C'"
==============================================  =================================  =================================

Regime. Every point has :math:`n\,\mathrm{SNR}^2 = 1` (:math:`n = 32`, :math:`d = 500`, so
:math:`\|\mu\| = 3.95`, SNR = 0.18) and equal noise levels in the two modalities; :math:`T` is the first step at
which the noise overlap reaches :math:`C = 1` (:mod:`.laws`). The multi-modal claims hold at
:math:`C_\mu = 8` (rate ratio :math:`C_\mu n\mathrm{SNR}^2/4 = 2`); at :math:`C_\mu = 2` (ratio 1/2) the
multi-modal network memorises the noise first, like the single-modal one.

Sizes: ``small`` (8 seeds, 300 steps, :math:`n = 32`, :math:`d = 1024 = n^2`) takes about 20 s on one core;
``paper`` uses 16 seeds, :math:`n = 64`, :math:`d = 4096 = n^2` (same :math:`n\,\mathrm{SNR}^2`): every point is
inside the high-dimension hypothesis :math:`d \ge n^2` (:mod:`.laws`). The two findings are measured along a
ladder of :math:`n` at :math:`d = \max(500, n^2)` (:data:`SIZES` ``ladders``; ``small``: 8, 16, 32 for both;
``paper``: 4, 8, 16, 32, 80, 128 for the noise at convergence, 1.505 decades, and 5, 8, 16, 32, 80, 128, 160 for
:math:`C_\mu = 2`, 1.505 decades), checked at every rung, and their ladders (:func:`ladder`) say whether the deviation
from the literal statement shrinks as :math:`n` grows (it does not: ``derivations/derive_contrastive.py``). The
rungs are bounded below by where the claims can be read. Measured with ``flt simulate`` at the
paper width and steps: at :math:`n = 4` the :math:`C_\mu = 2` network is still in the crossover (:math:`\Gamma_T =
0.084 \pm 0.010`, 16 seeds: above the ± 0.05 of "≈ 0", below the literal 0.1; :math:`n = 5`: 0.050 ± 0.006), and
at :math:`n = 2` the noise is not memorised (:math:`\Xi_\mathrm{end} \approx 0.007`, 4 seeds). The linear probe
holds the fresh samples of one seed at a time (:func:`.model.probe_errors`): the declared memory of the rung
:math:`n = 160`, :math:`d = 25600` is 2.2 GB (it was 17 GB when the probe held the whole batch's samples, above
half of a 23 GB machine, and the :math:`C_\mu = 2` ladder stopped at 1.4 decades). The odd rung :math:`n = 5` has
classes 3 : 2.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ...compare.result import CheckResult, all_of
from ...runner import experiment
from ...runner.cost import Cost
from ...symbolic.law import Law
from ..declaration import DEVICE_OPTION, Claim, Figure, Measurement, Option, RecordField, SimulateCommand, System
from ..frames import ladder_by
from ..levels import compare_level
from . import laws, model
from .figures import draw_levels
from .readouts import rows_by_n
from .simulate import simulate_document

__all__ = ["SIZES", "SYSTEM", "compare_rungs", "hypothesis_values", "ladder", "simulate_document"]

NAME = "contrastive"

#: Sizes per scale (n·SNR² fixed at 1). ``ladders``: the rungs of :math:`n` of each finding (``noise``:
#: ``multi-modal-memorises-noise-at-convergence``; ``signal``: ``multi-modal-needs-large-c-mu``), module docstring.
SIZES: dict[str, dict[str, Any]] = {
    "small": dict(n=32, d=1024, width=16, steps=300, seeds=8, ladders={"noise": (8, 16, 32), "signal": (8, 16, 32)}),
    "paper": dict(n=64, d=4096, width=32, steps=400, seeds=16,
                  ladders={"noise": (4, 8, 16, 32, 80, 128), "signal": (5, 8, 16, 32, 80, 128, 160)}),
}
#: The smallest dimension of a ladder rung: d = max(LADDER_MIN_D, n^2) (inside d >= n^2, and never a tiny d).
LADDER_MIN_D = 500

#: Tolerances of the ``approx`` readings: "≈ 0" of an overlap is ≤ 5% of the memorisation level C = 1; a probe
#: error "≈ 0" is ≤ 0.05 and "≈ 1/2" is within 0.1 of chance.
SIGNAL_TOLERANCE, ERROR_ZERO_TOLERANCE, ERROR_HALF_TOLERANCE, NOISE_TOLERANCE = 0.05, 0.05, 0.1, 0.1


#: The fields of a record of ``flt simulate contrastive --json`` (listed by its ``--help``).
RECORD_FIELDS = (
    RecordField("mode", "single-modal (augmentation) or multi-modal", "label"),
    RecordField("n", "training pairs", "count"),
    RecordField("d", "patch dimension", "count"),
    RecordField("width", "embedding width m", "count"),
    RecordField("n_snr2", "n SNR^2", "1"),
    RecordField("snr", "SNR = ||mu|| / (sigma_xi sqrt d)", "1"),
    RecordField("mu_norm", "signal norm ||mu||", "units of x"),
    RecordField("c_mu", "C_mu = ||mu~|| / ||mu|| of the second modality", "1"),
    RecordField("seed", "the run's seed", "index"),
    RecordField("step_T", "first step T at which the noise overlap reaches 1 (NaN: never)", "steps"),
    RecordField("signal_T", "signal overlap max_r |<w_r, mu>| at step T (NaN: T never reached)", "units of w x"),
    RecordField("noise_T", "noise overlap mean_i max_r <w_r, xi_i> at step T (NaN: T never reached)", "units of w x"),
    RecordField("error_T", "linear-probe test error at step T (NaN: T never reached)", "fraction"),
    RecordField("signal_end", "signal overlap after all steps", "units of w x"),
    RecordField("noise_end", "noise overlap after all steps", "units of w x"),
    RecordField("loss_end", "InfoNCE loss after all steps", "nats"),
    RecordField("error_end", "linear-probe test error after all steps", "fraction"),
)


@experiment("contrastive/train", batched=True, params=model.PARAMS,
            cost=Cost(memory="16*seeds*n*d + 16*seeds*width*d + 16*n_test*d + 16*n_probe*d + 8*seeds*n*n",
                      work="1e6*steps + steps*seeds*n*width*d + steps*seeds*n*n*width + seeds*n_test*width*d"
                           " + seeds*n_probe*width*d"))
def train(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Overlaps and probe error at the stop :math:`T` and at the end of InfoNCE training (:mod:`.model`)."""
    return model.contrastive_rows(**{k: params[k] for k in model.PARAMS}, seeds=seeds)


def compare_rungs(frame: pd.DataFrame, law: Law, *, column: str, tolerance: float) -> CheckResult:
    """:func:`~flt_theory.systems.levels.compare_level` at every measured :math:`n` (every rung of a ladder)."""
    parts = [all_of(f"n = {n}", law.text(), [compare_level(rows, law, column=column, tolerance=tolerance)])
             for n, rows in rows_by_n(frame)]
    return all_of(f"{column} at every n", law.text(), parts)


def ladder(frame: pd.DataFrame, *, column: str, literal: float) -> list[dict[str, Any]]:
    r"""Per measured :math:`n`: the mean of ``column`` over seeds with its 95% interval
    (:func:`~flt_theory.systems.frames.ladder_by`), and the ``literal`` statement's value (a rung of a
    :func:`~flt_theory.compare.ladder_trend`)."""
    return ladder_by(frame, "n", column, size=lambda n: {"n": n, "d": _ladder_d(int(n))}, literal=literal)


def hypothesis_values(point: Mapping[str, Any]) -> dict[str, Any]:
    r"""The symbols of :mod:`.laws`' hypotheses at a normalised point of ``contrastive/train``: :math:`n, d`,
    :math:`C_\mu`, :math:`\mathrm{SNR} = \sqrt{n\mathrm{SNR}^2/n}`, width :math:`m`, initialisation
    :math:`\sigma_0 = s_0/\sqrt d` and the step scale :math:`c_\eta` (:mod:`.model`).

    >>> hypothesis_values({"n": 32, "d": 1024, "n_snr2": 1.0, "c_mu": 8.0, "width": 16, "init": 1e-3,
    ...                    "eta_scale": 0.125})["sigma0"]
    3.125e-05
    """
    return {"n": point["n"], "d": point["d"], "C_mu": point["c_mu"], "SNR": (point["n_snr2"] / point["n"]) ** 0.5,
            "m": point["width"], "sigma0": point["init"] / point["d"] ** 0.5, "c_eta": point["eta_scale"]}


def _ladder_d(n: int) -> int:
    return max(LADDER_MIN_D, n * n)


def _point(mode: str, c_mu: float, s: dict[str, Any], n: int, d: int) -> dict[str, Any]:
    return {"mode": mode, "n": n, "d": d, "width": s["width"], "n_snr2": 1.0, "c_mu": c_mu, "steps": s["steps"]}


def _measurement(mode: str, c_mu: float, *, rungs: str | None = None) -> Measurement:
    r"""One point per scale, or the ladder ``rungs`` of :data:`SIZES` (``"noise"``, ``"signal"``) of :math:`n` at
    :math:`d = \max(500, n^2)`."""
    points = {scale: ([_point(mode, c_mu, s, n, _ladder_d(n)) for n in s["ladders"][rungs]] if rungs
                      else [_point(mode, c_mu, s, s["n"], s["d"])]) for scale, s in SIZES.items()}
    return Measurement(experiment="contrastive/train", points=points,
                       seeds={scale: s["seeds"] for scale, s in SIZES.items()}, hypothesis_values=hypothesis_values)


def _claims() -> list[Claim]:
    signal = functools.partial(compare_level, column="signal_T", tolerance=SIGNAL_TOLERANCE)
    single, multi = functools.partial(laws.signal_at_stop, "single"), functools.partial(laws.signal_at_stop, "multi")
    probe = laws.probe_error
    return [
        Claim(name="single-modal-memorises-noise",
              words="single-modal, n·SNR² = 1: when the noise overlap reaches C = 1 the signal overlap is ≈ 0",
              law=single,
              wrong_law=lambda: multi().replace(words="single-modal learns the signal like multi-modal (Γ_T ≥ 0.1)"),
              measurement=_measurement("single", 8.0), compare=signal),
        Claim(name="multi-modal-learns-signal",
              words="multi-modal, C_μ = 8, n·SNR² = 1: the signal overlap is ≥ 0.1 when the noise reaches C = 1",
              law=multi,
              wrong_law=lambda: single().replace(words="multi-modal memorises the noise like single-modal (Γ_T ≈ 0)"),
              measurement=_measurement("multi", 8.0), compare=signal),
        Claim(name="probe-single-modal", words="single-modal: the downstream linear probe is at chance (error ≈ 1/2)",
              law=functools.partial(probe, "single"),
              wrong_law=lambda: probe("multi").replace(words="single-modal probe error ≈ 0 (the multi-modal outcome)"),
              measurement=_measurement("single", 8.0),
              compare=functools.partial(compare_level, column="error_T", tolerance=ERROR_HALF_TOLERANCE)),
        Claim(name="probe-multi-modal", words="multi-modal, C_μ = 8: the downstream linear probe's error is ≈ 0",
              law=functools.partial(probe, "multi"),
              wrong_law=lambda: probe("single").replace(
                  words="multi-modal probe error ≈ 1/2 (the single-modal outcome)"),
              measurement=_measurement("multi", 8.0),
              compare=functools.partial(compare_level, column="error_T", tolerance=ERROR_ZERO_TOLERANCE)),
        Claim(name="multi-modal-memorises-noise-at-convergence",
              words="[finding] multi-modal, C_μ = 8: at the end of training ⟨w_r, ξ_i⟩ ≥ 1 — the noise is memorised "
                    "too (at every n of a ladder, d = max(500, n²) inside d ≥ n²)",
              law=laws.noise_at_end, wrong_law=functools.partial(laws.noise_at_end, literal=True),
              measurement=_measurement("multi", 8.0, rungs="noise"),
              compare=functools.partial(compare_rungs, column="noise_end", tolerance=NOISE_TOLERANCE),
              ladder=functools.partial(ladder, column="noise_end", literal=0.0)),
        Claim(name="multi-modal-needs-large-c-mu",
              words="[finding] multi-modal with C_μ = 2 > 1 at n·SNR² = 1 still memorises the noise first (Γ_T ≈ 0) "
                    "(at every n of a ladder, d = max(500, n²) inside d ≥ n²)",
              law=lambda: laws.signal_at_stop("multi", status="finding", c_mu=2.0),
              wrong_law=lambda: multi().replace(
                  words="C_μ = 2 > 1 suffices: Γ_T ≥ C' = 0.1 (the statement read literally)"),
              measurement=_measurement("multi", 2.0, rungs="signal"),
              compare=functools.partial(compare_rungs, column="signal_T", tolerance=SIGNAL_TOLERANCE),
              ladder=functools.partial(ladder, column="signal_T", literal=0.1)),
    ]


def _figures() -> list[Figure]:
    out = []
    for claim, column, tol, label, log in (
            ("single-modal-memorises-noise", "signal_T", SIGNAL_TOLERANCE, "signal overlap Γ_T at the stop", True),
            ("multi-modal-learns-signal", "signal_T", SIGNAL_TOLERANCE, "signal overlap Γ_T at the stop", True),
            ("multi-modal-needs-large-c-mu", "signal_T", SIGNAL_TOLERANCE, "signal overlap Γ_T at the stop", True),
            ("probe-single-modal", "error_T", ERROR_HALF_TOLERANCE, "linear-probe test error at the stop", False),
            ("probe-multi-modal", "error_T", ERROR_ZERO_TOLERANCE, "linear-probe test error at the stop", False),
            ("multi-modal-memorises-noise-at-convergence", "noise_end", NOISE_TOLERANCE,
             "noise overlap Ξ at the end of training", False)):
        out.append(Figure(name="levels", claim=claim,
                          caption=f"{label}: one point per seed, mean with 95% CI; shaded: the region of the law "
                                  "(orange) and of the wrong law (grey)",
                          draw=functools.partial(draw_levels, column=column, tolerance=tol, label=label, log=log)))
    return out


SYSTEM = System(
    name=NAME,
    title="Single- vs multi-modal contrastive learning on signal-noise data",
    summary=("x = [y mu, xi], x~ = [y mu~, xi~], ||mu~|| = C_mu ||mu||; ReLU embeddings sigma(W x^(p)), patch-wise "
             "similarity, InfoNCE with temperature tau, full-batch GD. Single-modal (positive = augmentation xi + eps) "
             "memorises the noise; multi-modal (positive = the other modality) learns the signal when C_mu n SNR^2 is "
             "large enough; downstream linear probe on the pooled embedding. Findings: multi-modal memorises the noise "
             "too at convergence; C_mu > 1 alone is not enough."),
    sources=(laws.HUANG,),
    laws=laws.contrastive_laws,
    claims=_claims(),
    experiments=("contrastive/train",),
    figures=_figures(),
    simulate=SimulateCommand(
        fields=RECORD_FIELDS,
        experiment="contrastive/train",
        help=("InfoNCE training of ReLU embeddings on two-patch signal-noise data, single-modal (augmentation) and/or "
              "multi-modal (paired second modality with ||mu~|| = C_mu ||mu||) (Huang et al. 2024, arXiv 2411.02837). "
              "Per seed: the signal overlap max_r |<w_r, mu>| and noise overlap mean_i max_r <w_r, xi_i> at the step T "
              "where the noise overlap first reaches 1 and at the end, and the test error of a linear probe."),
        options=(
            Option(name="mode", kind="choice", choices=("single", "multi", "both"), default="both", help="Setting(s)."),
            *(Option.of(model.PARAMS[name]) for name in ("n", "d", "width", "n_snr2", "c_mu", "steps")),
            Option(name="seeds", kind="int", default=4, minimum=1, help="Independent runs (seeds 0..S-1)."),
            DEVICE_OPTION,
        ),
        run=simulate_document,
    ),
)
