r"""The in-context system: one declaration of its experiments, claims, figures and ``flt simulate``.

(a) Concepts and semantics: a two-layer softmax transformer with the slide's parameterisation, trained on
prompts sharing a concept (Bu, Huang, Han, Nitanda, Suzuki, Zhang, Wong 2024, arXiv 2411.02199). (b)
Nonparametric ICL: linear attention over a two-layer feature map, pretrained on :math:`K` tasks
:math:`\beta_i^\top f^\circ(x)` (Kim, Suzuki 2024, arXiv 2402.01258). Laws: :mod:`.laws`; models: :mod:`.model`;
reading the stored frame: :mod:`.readouts`; figures: :mod:`.figures`; ``flt simulate``: :mod:`.simulate`.

Every claim is ONE stored measurement and ONE comparison called with the claim's law and with its wrong law;
the comparison reads the prediction from the law (``law.relation`` and ``law.number()``, or
``law.number(K=..., k=...)`` for the risk curve).

===========================  ==================================================  =======================================
claim                        law                                                 negative control
===========================  ==================================================  =======================================
``attention-semantics``      concept/semantic change of W_Q, W_K ≈ 0 (± 0.25)    the concept is learned as much (≈ 1)
``output-concept-semantics`` min(|⟨Δw_O, c_k⟩|, |⟨Δw_O, d_k⟩|) ≥ 0.1              w_O learns only one of them (≈ 0)
``out-of-distribution``      error on recombined prompts ≈ 0 (± 0.05)            chance (≈ 1/2)
``unseen-task-risk``         R_new(K) ≈ max(0, 1 − K/k) (± 0.15) at each K        no decrease: R_new ≡ 3/4
===========================  ==================================================  =======================================

Regimes. (a) :math:`K = 3` concepts in :math:`D = 12`, :math:`L = 6` demonstrations, noise :math:`\sigma = 0.1`,
250 SGD steps of 64 fresh prompts (training error ≈ 1.5%). The concept entry of :math:`W_K` moves only through
the noise, that of :math:`W_Q` through the initial cross entry :math:`a_k^\top W_K^0 b_k` (:mod:`.laws`): the
ratio is ≈ 0.1, not exactly 0. (b) :math:`k = 4` features in :math:`d = 6`; the curve is checked at
:math:`K \in \{1, 2\}` (below :math:`k`) and :math:`K \in \{8, 16\}` (well above). At :math:`K = k` the risk of
a finite training run stays visibly above 0 (measured 0.29 at :math:`K = 4` after 600 Adam steps: the weakest
direction of :math:`\frac1K\sum_i\beta_i\beta_i^\top`, a Wishart matrix with :math:`K = k` degrees of freedom,
is learned last), so the law's kink is not a claim here.

Sizes: ``small`` runs the system in about 12 s on one core; ``paper`` uses more seeds, steps and points.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import pandas as pd
import sympy as sp

from ...compare.result import CheckResult, all_of
from ...errors import InvalidParameterError
from ...runner import experiment
from ...runner.cost import Cost
from ...symbolic.law import Law
from ..declaration import DEVICE_OPTION, Claim, Figure, Measurement, Option, RecordField, SimulateCommand, System
from ..frames import ladder_by
from ..levels import compare_level
from . import laws, model
from .figures import draw_concepts, draw_risk_curve
from .readouts import risk_curve
from .simulate import simulate_document

__all__ = ["SIZES", "SYSTEM", "compare_risk_curve", "feature_values", "risk_ladder", "simulate_document"]

NAME = "in-context"

#: Sizes per scale.
SIZES: dict[str, dict[str, Any]] = {
    "small": dict(concepts=3, dim=12, length=6, steps=250, batch=64, seeds=12,
                  tasks=(1, 2, 8, 16), k=4, d=6, width=32, feature_steps=400, feature_seeds=12),
    "paper": dict(concepts=4, dim=16, length=8, steps=500, batch=128, seeds=12,
                  tasks=(1, 2, 3, 8, 16, 32), k=4, d=6, width=64, feature_steps=1500, feature_seeds=12),
}

#: The declared parameters of (a) and (b) (:mod:`.model`): the experiments' converters and defaults, the options'
#: bounds.
C, F = model.CONCEPT_PARAMS, model.FEATURE_PARAMS

#: Tolerances: concept/semantic ratio "≈ 0" within 0.25 (measured ≈ 0.12, the W_Q cross-entry drift of .laws);
#: OOD error "≈ 0" within 0.05; the risk curve within 0.15 (the training floor: risk on the pretraining tasks ≈ 0.05).
RATIO_TOLERANCE, ERROR_TOLERANCE, RISK_TOLERANCE = 0.25, 0.05, 0.15


#: The declared costs of ``in-context/concepts`` (a), ``in-context/features`` (b) and ``flt simulate in-context``
#: (:class:`~flt_theory.runner.cost.Cost`: bytes and operations, expressions in a point's parameters).
CONCEPTS_COST = Cost(memory="8*seeds*batch*length*dim + 8*seeds*n_test*length*dim + 8*seeds*batch*length*width"
                            " + 8*seeds*n_test*length*width + 8*seeds*concepts*dim",
                     work="1e6*steps + steps*seeds*batch*length*width*dim + steps*seeds*batch*length*length*dim"
                          " + seeds*n_test*length*width*dim")
FEATURES_COST = Cost(memory="8*seeds*context*d + 8*seeds*n_test*d + 8*seeds*n_test*width + 8*seeds*width*d"
                            " + 8*seeds*tasks*d",
                     work="1e6*steps + steps*seeds*context*width*d + seeds*n_test*width*d")
SIMULATE_COST = Cost(memory="8*seeds*length*dim*1e4 + 8*seeds*tasks*3e5",
                     work="1e6*steps + 1e3*seeds*steps*length*length*dim + 1e6*feature_steps"
                          " + 6e4*seeds*feature_steps*tasks")


@experiment("in-context/concepts", cost=CONCEPTS_COST, batched=True, params=C)
def concepts(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Changes of :math:`W_Q, W_K, w_O` along the dictionary and test errors after training (:mod:`.model`)."""
    return model.concept_rows(**params, seeds=seeds)


def _features_guard(params: dict[str, Any], seeds: int) -> None:
    r"""Refuse an ``in-context/features`` point before anything runs where its joint condition fails: the ``k``
    relevant directions lie in :math:`\mathbb R^d`, so ``d >= k`` (what :func:`.model.features_rows` checks; declared
    here so that a sweep and the grids ``flt verify --law`` designs see it: :func:`~flt_theory.laws_check.design
    .refusal`)."""
    if params["d"] < params["k"]:
        raise InvalidParameterError(f"The 'd' parameter of experiment 'in-context/features' must be an int >= k = "
                                    f"{params['k']} (the k relevant directions lie in R^d). Got {params['d']} instead.")


@experiment("in-context/features", cost=FEATURES_COST, batched=True, params=F, guard=_features_guard)
def features(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Relative ICL risk on unseen and on pretraining tasks after pretraining on ``tasks`` tasks (:mod:`.model`)."""
    return model.features_rows(**params, seeds=seeds)


#: The fields of a record of ``flt simulate in-context --json`` (listed by its ``--help``).
RECORD_FIELDS = (
    RecordField("part", "concepts (Bu et al. 2024) or features (Kim, Suzuki 2024)", "label"),
    RecordField("seed", "the run's seed", "index"),
    RecordField("concepts", "(concepts) number of concepts K (null in features rows)", "count"),
    RecordField("dim", "(concepts) dimension D (null in features rows)", "count"),
    RecordField("length", "(concepts) demonstrations per prompt L (null in features rows)", "count"),
    RecordField("d_aa_q", "(concepts) mean_k |a_k^T (W_Q - W_Q^0) a_k|: query change along concepts", "1"),
    RecordField("d_aa_k", "(concepts) the same for W_K", "1"),
    RecordField("d_bb_q", "(concepts) mean_k |b_k^T (W_Q - W_Q^0) b_k|: query change along semantics", "1"),
    RecordField("d_bb_k", "(concepts) the same for W_K", "1"),
    RecordField("concept_ratio", "(concepts) (d_aa_q + d_aa_k) / (d_bb_q + d_bb_k)", "1"),
    RecordField("d_oc", "(concepts) mean_{r,k} |<w_O,r - w_O,r^0, c_k>|: output change along concept labels", "1"),
    RecordField("d_od", "(concepts) the same along semantic labels d_k", "1"),
    RecordField("output_both", "(concepts) min(d_oc, d_od)", "1"),
    RecordField("error_id", "(concepts) test error in distribution", "fraction"),
    RecordField("error_ood", "(concepts) test error out of distribution: recombined concept and semantics", "fraction"),
    RecordField("tasks", "(features) pretraining tasks K (null in concepts rows)", "count"),
    RecordField("risk_new", "(features) ICL risk on unseen tasks / E F_beta^2 (null in concepts rows)", "fraction"),
    RecordField("risk_train", "(features) the same on the pretraining tasks (null in concepts rows)", "fraction"),
)


def compare_risk_curve(frame: pd.DataFrame, law: Law, *, tolerance: float = RISK_TOLERANCE) -> CheckResult:
    r"""At every measured :math:`K`: the whole 95% interval of the mean risk within
    ``law.number(K=K, k=k) ± tolerance``."""
    k, curve = risk_curve(frame)
    parts = []
    for K, rows in curve:
        parts.append(compare_level(rows.assign(risk=rows["risk_new"]),
                                   law.replace(value=sp.Float(law.number(K=K, k=k))), column="risk",
                                   tolerance=tolerance))
    return all_of(f"unseen-task risk against K (k = {k})", law.text(), parts)


def risk_ladder(frame: pd.DataFrame) -> list[dict[str, Any]]:
    r"""Rungs over the number :math:`K` of pretraining tasks: the unseen-task risk per seed, mean and 95% interval
    (:func:`~flt_theory.systems.frames.ladder_by`); ``predicted`` the law's :math:`\max(0, 1 - K/k)`, which Kim and
    Suzuki's :math:`K \to \infty` statement sends to 0."""
    k, law = int(frame["k"].iloc[0]), laws.unseen_risk()
    return ladder_by(frame, "tasks", "risk_new", size=lambda K: {"K": K}, predicted=lambda K: law.number(K=K, k=k))


def concept_values(point: Mapping[str, Any]) -> dict[str, Any]:
    r"""The symbols of Bu et al.'s hypotheses (:data:`.laws.BU_HYPOTHESES`) at a normalised point of
    ``in-context/concepts``: concepts :math:`K`, dimension :math:`D`, token noise :math:`\sigma`, prompt length
    :math:`L`, width :math:`m`, step :math:`\eta`.

    >>> concept_values({"concepts": 3, "dim": 12, "length": 6, "sigma": 0.1, "width": 8, "lr": 1.0})["D"]
    12
    """
    return {"K": point["concepts"], "D": point["dim"], "sigma": point["sigma"], "L": point["length"],
            "m": point["width"], "eta": point["lr"]}


def feature_values(point: Mapping[str, Any]) -> dict[str, Any]:
    r"""The symbols of the finite-:math:`K` derivation's hypotheses (:data:`.laws.UNSEEN_HYPOTHESES`) at a normalised
    point of ``in-context/features``: pretraining tasks :math:`K`, features :math:`k`, dimension :math:`d`, width
    :math:`m` of the feature map, Adam steps :math:`T`.

    >>> feature_values({"tasks": 8, "k": 4, "d": 6, "width": 32, "steps": 400})["K"]
    8
    """
    return {"K": point["tasks"], "k": point["k"], "d": point["d"], "m": point["width"], "T": point["steps"]}


def _concept_measurement() -> Measurement:
    keys = ("concepts", "dim", "length", "steps", "batch")
    return Measurement(experiment="in-context/concepts",
                       points={scale: [{key: s[key] for key in keys}] for scale, s in SIZES.items()},
                       seeds={scale: s["seeds"] for scale, s in SIZES.items()}, hypothesis_values=concept_values)


def _claims() -> list[Claim]:
    return [
        Claim(name="attention-semantics",
              words="W_Q, W_K learn the semantics b_k, not the concept a_k: concept/semantic change ≈ 0",
              law=laws.concept_ratio,
              wrong_law=lambda: laws.concept_ratio(sp.Integer(1)).replace(
                  words="W_Q, W_K learn the concept as much as the semantics (ratio ≈ 1)"),
              measurement=_concept_measurement(),
              compare=functools.partial(compare_level, column="concept_ratio", tolerance=RATIO_TOLERANCE)),
        Claim(name="output-concept-semantics", words="w_O^y learns both the concept c_k and the semantics d_k",
              law=laws.output_learns_both, wrong_law=functools.partial(laws.output_learns_both, "approx"),
              measurement=_concept_measurement(),
              compare=functools.partial(compare_level, column="output_both", tolerance=0.05)),
        Claim(name="out-of-distribution",
              words="prompts recombining concept k with the semantics of k' ≠ k are answered",
              law=laws.ood_error,
              wrong_law=lambda: laws.ood_error(sp.Rational(1, 2)).replace(
                  words="recombined prompts are at chance (error ≈ 1/2)"),
              measurement=_concept_measurement(),
              compare=functools.partial(compare_level, column="error_ood", tolerance=ERROR_TOLERANCE)),
        Claim(name="unseen-task-risk",
              words="the ICL risk on unseen tasks decreases with the number K of pretraining tasks, ≈ max(0, 1 − K/k)",
              law=laws.unseen_risk,
              wrong_law=lambda: laws.unseen_risk(sp.Rational(3, 4)).replace(
                  words="no decrease: the unseen-task risk stays at its K = 1 value 3/4"),
              measurement=Measurement(experiment="in-context/features",
                                      points={scale: [{"tasks": K, "k": s["k"], "d": s["d"], "width": s["width"],
                                                       "steps": s["feature_steps"]} for K in s["tasks"]]
                                              for scale, s in SIZES.items()},
                                      seeds={scale: s["feature_seeds"] for scale, s in SIZES.items()},
                                      hypothesis_values=feature_values),
              compare=compare_risk_curve, ladder=risk_ladder),
    ]


def _figures() -> list[Figure]:
    out = [Figure(name="risk-curve", claim="unseen-task-risk",
                  caption="relative ICL risk on unseen tasks against the number of pretraining tasks K (log scale), "
                          "per seed and mean with 95% CI; law max(0, 1 − K/k) ± 0.15 and the no-decrease control",
                  draw=functools.partial(draw_risk_curve, tolerance=RISK_TOLERANCE))]
    for claim, column, tol, label in (("attention-semantics", "concept_ratio", RATIO_TOLERANCE,
                                       "concept / semantic change of W_Q, W_K"),
                                      ("out-of-distribution", "error_ood", ERROR_TOLERANCE,
                                       "test error on recombined prompts")):
        out.append(Figure(name="levels", claim=claim,
                          caption=f"{label}: one point per seed, mean with 95% CI; shaded: law (orange), "
                                  "wrong law (grey)",
                          draw=functools.partial(draw_concepts, column=column, tolerance=tol, label=label)))
    return out


SYSTEM = System(
    name=NAME,
    title="In-context learning: concepts and semantics; nonlinear features in context",
    summary=("(a) Prompts of L examples sharing a concept k, x = a_k + y b_k + xi, label vectors c_k + y d_k + xi'; a "
             "two-layer softmax transformer (W_Q, W_K on x, W_V picks the labels, W_O = (0, w_O^y)) trained with "
             "cross-entropy: attention learns the semantics not the concept, the output both, recombined prompts are "
             "answered (Bu et al. 2024). (b) Linear attention over a two-layer feature map pretrained on K tasks "
             "beta^T f(x): the ICL risk on unseen tasks decreases with K (Kim & Suzuki 2024)."),
    sources=(laws.BU, laws.KIM_SUZUKI),
    laws=laws.in_context_laws,
    claims=_claims(),
    experiments=("in-context/concepts", "in-context/features"),
    figures=_figures(),
    simulate=SimulateCommand(
        fields=RECORD_FIELDS,
        cost=SIMULATE_COST,
        help=("(a) Train the concept/semantics transformer of Bu et al. 2024 (arXiv 2411.02199) and report the changes "
              "of W_Q, W_K along concepts a_k and semantics b_k, of w_O along c_k and d_k, and the test errors in and "
              "out of distribution; (b) pretrain linear-attention ICL with a two-layer feature map on K tasks (Kim & "
              "Suzuki 2024, arXiv 2402.01258) and report the relative ICL risk on unseen and pretraining tasks."),
        options=(
            Option(name="part", kind="choice", choices=("concepts", "features", "both"), default="both",
                   help="Which model(s) to run."),
            Option.of(C["concepts"], default=3), Option.of(C["dim"], default=12), Option.of(C["length"], default=6),
            Option.of(C["steps"], default=250, help="(a) SGD steps (64 fresh prompts each)."),
            Option.of(F["tasks"], grid=True, default=(1, 2, 8),
                      help="(b) numbers of pretraining tasks, comma-separated."),
            Option.of(F["steps"], name="feature-steps", dest="feature_steps", default=400),
            Option(name="seeds", kind="int", default=3, minimum=1, help="Independent runs (seeds 0..S-1)."),
            DEVICE_OPTION,
        ),
        run=simulate_document,
    ),
)
