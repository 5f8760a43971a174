r"""The dictionary system: dictionary-learning inputs, feature emergence, advantage over fixed features.

Source: Shi, Wei, Liang 2022 (ICLR; arXiv 2206.01717). Simulator: :func:`.model.train_dictionary`
(data, network, two-stage training and fixed features are described there). Laws (as
:class:`~flt_theory.symbolic.law.Law` objects, :func:`dictionary_laws`) and their exact constants are
derived here with sympy:

* :math:`\gamma` for the label rule used (:math:`y = +1` iff the number :math:`c` of active relevant patterns
  is even, :math:`c` uniform on :math:`\{1..k\}`, the active ones a uniform :math:`c`-subset of :math:`A`):
  :math:`\mathbb E[\phi_i\mid c] = c/k` for :math:`i \in A`, so
  :math:`\gamma = \operatorname{Cov}(y, \phi_i) = \operatorname{Cov}(y, c)/k = \frac1k\sum_{c=1}^k \frac1k\, y(c)\, c`
  (:math:`\mathbb E y = 0`) :math:`= \frac{1}{k^2}\cdot\frac k2 = \frac{1}{2k}` (the :math:`k/2` pairs
  :math:`(2j-1, 2j)` each contribute :math:`2j - (2j-1) = 1`). Without input structure (:math:`\phi` uniform),
  the parity of :math:`c \sim \mathrm{Bin}(k, \tfrac12)` is uncorrelated with every product of fewer than :math:`k`
  coordinates, in particular :math:`\gamma = 0`: no first-order signal for gradient descent, and the SQ
  lower bound of the source applies.
* emergence: after the feature step every neuron is :math:`\eta_1 a_i(\gamma\sqrt k\, v + \text{noise})`, so its
  cosine with :math:`\pm v = \pm\sum_{i\in A}M_i/\sqrt k` is
  :math:`\approx (1 + \mathbb E\|x\|^2/(n\gamma^2 k))^{-1/2} \approx 0.97` at the small sizes (noise of
  :math:`\mathbb E_n[yx]`: :math:`\sqrt{\mathbb E\|x\|^2/n}`).

Measurement (``dictionary/run``, one stored row per seed): a structured and an unstructured run, each with
its fixed-feature model of the same width. Each comparison reads its prediction from the law it is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...compare import check_at_least, check_at_most, check_majority
from ...compare.result import CheckResult, all_of
from ...numeric.backend import to_numpy
from ...runner import experiment
from ...runner.cost import Cost
from ...symbolic.law import Law
from ..declaration import DEVICE_OPTION, Claim, Measurement, Option, RecordField, SimulateCommand, System
from .laws import DIRECTIONS, SOURCE, dictionary_gamma, dictionary_laws
from .model import L2, PARAMS as P, DictionaryResult, train_dictionary
from .readouts import values

__all__ = ["SIZES", "SYSTEM", "hypothesis_values", "wrong_direction_fraction"]

NAME = "dictionary"
SIZES: dict[str, dict[str, Any]] = {
    "small": dict(seeds=6, advantage_seeds=16, D=64, k=4, p0=0.25, width=128, n=4096, n_test=4096, feature_lr=40.0,
                  iterations=150),
    "paper": dict(seeds=12, advantage_seeds=24, D=128, k=4, p0=0.25, width=256, n=8192, n_test=8192, feature_lr=56.0,
                  iterations=300),
}
SCALES = tuple(SIZES)


def wrong_direction_fraction(res: DictionaryResult, threshold: float = 0.9) -> np.ndarray:
    r"""Cluster fraction around :math:`\pm\sum_{i\in B}M_i` for :math:`B` the first :math:`k` *irrelevant* patterns
    (what the wrong emergence law predicts), per seed."""
    k = res.config.k
    irrelevant = (~res.relevant).to(res.M.dtype)
    first = irrelevant * (irrelevant.cumsum(-1) <= k)
    u = (res.M * first[..., None]).sum(-2)
    u = u / u.norm(dim=-1, keepdim=True)
    cos = (res.weights @ u[..., None]).squeeze(-1).abs() / res.weights.norm(dim=-1)
    return to_numpy((cos > threshold).to(cos.dtype).mean(-1))


@experiment("dictionary/run",
            cost=Cost(memory="8*seeds*n*D + 8*seeds*n_test*D + 8*seeds*n*width + 8*seeds*n_test*width "
                             "+ 8*seeds*width*D",
                      work="1e6*iterations + seeds*n*width*D + iterations*seeds*n*width + seeds*n_test*width*D"),
            batched=True, params=P, version=1)  # 1: a second-layer solve per seed
def run(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    """Train the network and the fixed-feature model; γ̂, cluster fractions, test errors per seed."""
    res = train_dictionary(seeds, D=params["D"], k=params["k"], p0=params["p0"], width=params["width"], n=params["n"],
                           n_test=params["n_test"], structured=bool(params["structured"]),
                           feature_lr=params["feature_lr"],
                           l2=params["l2"], solver_iterations=params["iterations"], device="auto")
    frac = to_numpy(res.cluster_fraction())  # (T+1, S)
    wrong = wrong_direction_fraction(res)
    return [{"gamma_hat": float(g), "cluster_initial": float(frac[0, s]), "cluster_relevant": float(frac[-1, s]),
             "cluster_irrelevant": float(wrong[s]), "test_error": float(e), "fixed_error": float(f)}
            for s, (g, e, f) in enumerate(zip(to_numpy(res.gamma_hat), to_numpy(res.test_error),
                                              to_numpy(res.fixed_test_error), strict=True))]


def compare_gamma(frame: pd.DataFrame, law: Law) -> CheckResult:
    """Training-set γ̂ (mean over A) against γ = ``law.number()`` (consistent both ways)."""
    gamma = law.number()
    measured = values(frame, "gamma_hat")
    return all_of(f"γ = {gamma:g} (training-set covariance, mean over A)", gamma, [
        check_at_least(measured, gamma, name=f"γ̂ ≥ {gamma:g}"),
        check_at_most(measured, gamma, name=f"γ̂ ≤ {gamma:g}")])


#: Stored cluster fraction for each direction an emergence law may name.
_CLUSTER = {DIRECTIONS["relevant"]: "cluster_relevant", DIRECTIONS["irrelevant"]: "cluster_irrelevant"}


def compare_emergence(frame: pd.DataFrame, law: Law) -> CheckResult:
    """Cluster fraction (|cos| > 0.9) at the law's direction: ≤ 0.05 at t = 0 and ≥ 0.8 after training
    (demonstrated)."""
    start = check_at_most(values(frame, "cluster_initial"), 0.05, mode="demonstrated", bounds=(0, 1),
                          name="cluster fraction at t = 0 ≤ 0.05")
    end = check_at_least(values(frame, _CLUSTER[law.value]), 0.8, mode="demonstrated", bounds=(0, 1),
                         name=f"fraction with |cos| > 0.9 at {law.rhs_latex()} ≥ 0.8")
    return all_of("feature emergence", "0 → most neurons", [start, end])


def compare_advantage(frame: pd.DataFrame, law: Law) -> CheckResult:
    """``leq``: on most seeds (:func:`~flt_theory.compare.check_majority`) the network's error is ≤ 0.1 AND ≥ 0.2 below
    fixed features; ``geq``: on most seeds fixed features are at least as accurate. Shi et al.'s advantage holds with
    high probability over the draw: on 5 of 320 calibration seeds the network's error is above 0.1 (up to 0.28;
    on seed 137 no neuron clustered), and one such seed moved a 6-seed mean across the bound."""
    net, fixed = values(frame, "test_error"), values(frame, "fixed_error")
    if law.relation == "leq":
        holds, statement = (net <= 0.1) & (fixed - net >= 0.2), "network error ≤ 0.1 and ≥ 0.2 below fixed features"
    else:
        holds, statement = fixed - net <= 0.0, "fixed features at least as accurate"
    return all_of("network vs fixed features at equal width", law.text(),
                  [check_majority(holds, name="most seeds", statement=statement)])


def compare_no_structure(frame: pd.DataFrame, law: Law) -> CheckResult:
    """φ uniform. ``geq`` (error ≥ ``law.number()`` − o(1)): network error ≥ 0.45, no better than fixed features
    − 0.05, no emergence; ``leq`` (the advantage kept): error ≤ the structured error + 0.1."""
    net, fixed = values(frame, "test_error", 0), values(frame, "fixed_error", 0)
    if law.relation == "leq":
        structured = float(values(frame, "test_error", 1).mean())
        return check_at_most(net, structured + 0.1, mode="demonstrated", bounds=(0, 1),
                             name="φ uniform: network error ≤ its structured error + 0.1 (advantage kept)")
    level = law.number() - 0.05
    return all_of("φ uniform: the network is at chance, like fixed features", f"err ≥ {law.number():g} − o(1)", [
        check_at_least(net, level, mode="demonstrated", bounds=(0, 1), name=f"network test error ≥ {level:g}"),
        check_at_least(fixed - net, -0.05, mode="demonstrated", bounds=(-1, 1),
                       name="network no better than fixed features − 0.05"),
        check_at_most(values(frame, "cluster_relevant", 0), 0.05, mode="demonstrated", bounds=(0, 1),
                      name="no emergence (cluster fraction ≤ 0.05)"),
    ])


#: delta of Theorem 1 as read (the claims are read on most seeds, i.e. with probability well above 0.9).
DELTA = 0.1
#: Why the theorem claims are extrapolations (laws module docstring).
THEOREM1_NOTE = ("no point inside Theorem 1: k >= log^2(D m/(delta gamma)) fails (k = 4 vs ≈ 160 at D = 64); with "
                 "p_0 = k^2/D = 0.25 and m = D it first holds near k ≈ 1900, D ≈ 1.4e7, m ≈ 1.4e7: a first layer of "
                 "≈ 2e14 weights, far beyond any machine here; the verdict is an extrapolation to k = 4")
SQ_NOTE = ("no point inside the SQ lower bound: a GD run makes 2m·D first-layer queries (8192 at D = 64), far above "
           "(1/2) C(D, 4)^(1/3) (43 at D = 64); at fixed k = 4 no D puts it inside (queries ∝ D^2 vs bound ∝ D^(4/3)); "
           "it binds only for k growing with D. The verdict is an extrapolation of the SQ statement")


def hypothesis_values(point: Mapping[str, Any]) -> dict[str, float]:
    """Symbols of the hypotheses at a ``dictionary/run`` point: k, D, m (half the width), p_0, gamma_A (gamma of a
    relevant pattern, its value with input structure), delta, n, the query count of one feature step (2m·D) and
    ``structured`` (1: input structure, 0: phi uniform)."""
    k, D, width = point["k"], point["D"], point["width"]
    return {"k": k, "D": D, "m": width // 2, "p_0": point["p0"], "gamma_A": float(dictionary_gamma(k)), "delta": DELTA,
            "n": point["n"], "queries": width * D, "structured": int(point["structured"])}


def _laws() -> dict[str, Law]:
    return {law.name: law for law in dictionary_laws(SIZES["small"]["k"])}


def _measurement(*structured: int, seeds: str = "seeds") -> Measurement:
    keys = ("D", "k", "p0", "width", "n", "n_test", "feature_lr", "iterations")
    return Measurement(experiment="dictionary/run", seeds={k: SIZES[k][seeds] for k in SCALES},
                       points={scale: [{"structured": s, **{k: SIZES[scale][k] for k in keys}} for s in structured]
                               for scale in SCALES}, hypothesis_values=hypothesis_values)


def _claims() -> list[Claim]:
    return [
        Claim(name="gamma", words="the label rule has γ = 1/(2k) > 0 with input structure",
              law=lambda: _laws()["gamma"],
              wrong_law=lambda: _laws()["gamma"].replace(value=dictionary_gamma(SIZES["small"]["k"], structured=False),
                                                        words="γ = 0 (its value without structure)"),
              measurement=_measurement(1), compare=compare_gamma),
        Claim(name="emergence",
              words="neurons cluster at ±Σ_{i∈A} M_i: the fraction with cosine > 0.9 grows from 0 to most neurons",
              law=lambda: _laws()["feature emergence"],
              wrong_law=lambda: _laws()["feature emergence"].replace(
                  value=DIRECTIONS["irrelevant"],
                  words="the neurons cluster at ±Σ_{i∈B} M_i for k irrelevant patterns B"),
              measurement=_measurement(1), compare=compare_emergence, extrapolation_note=THEOREM1_NOTE),
        Claim(name="advantage",
              words=("at equal width the network's error is ≤ 0.1 and ≥ 0.2 below random fixed features "
                     "(same second-layer norm penalty)"),
              law=lambda: _laws()["advantage over fixed features"],
              wrong_law=lambda: _laws()["advantage over fixed features"].replace(
                  relation="geq", words="fixed features are at least as accurate"),
              measurement=_measurement(1, seeds="advantage_seeds"), compare=compare_advantage,
              extrapolation_note=THEOREM1_NOTE),
        Claim(name="no-structure",
              words="with φ uniform (γ = 0) the network is at chance, no better than fixed features, and no feature "
                    "emerges",
              law=lambda: _laws()["no input structure"],
              wrong_law=lambda: _laws()["no input structure"].replace(
                  relation="leq", words="the network keeps its structured-data accuracy"),
              measurement=_measurement(0, 1), compare=compare_no_structure, extrapolation_note=SQ_NOTE),
    ]


#: The fields of a record of ``flt simulate dictionary`` (one record per feature step and seed; the last step of a seed
#: adds the errors and gamma_hat), shown by its ``--help``.
RECORD_FIELDS = (
    RecordField("seed", "the run's seed", "index"),
    RecordField("step", "feature step t (0: initialisation)", "index"),
    RecordField("cluster_fraction", "fraction of neurons whose |cos| with ±Σ_{i∈A} M_i exceeds 0.9", "fraction"),
    RecordField("mean_cosine", "mean over neurons of that |cos|", "1"),
    RecordField("test_error", "last step: test classification error of the network", "fraction"),
    RecordField("fixed_features_error",
                "last step: test classification error of fixed features of the same width", "fraction"),
    RecordField("gamma_hat", "last step: the measured gamma = Cov(y, phi_i), i in A (the law: 1/(2k))", "1"),
)


def simulate_document(*, D: int = 64, k: int = 4, p0: float = 0.25, width: int = 128, n: int = 4096, n_test: int = 4096,
                      feature_lr: float = 40.0, iterations: int = 150, structured: bool = True, seeds: int = 2,
                      device: str = "auto") -> dict[str, Any]:
    """Per feature step and seed: the fraction of neurons whose |cos| with ±Σ_{i∈A} M_i exceeds 0.9 and its mean
    |cos|; per seed at the end: test error of the network and of fixed features of the same width, and γ̂."""
    res = train_dictionary(seeds, D=D, k=k, p0=p0, width=width, n=n, n_test=n_test, structured=structured,
                           feature_lr=feature_lr, l2=L2, solver_iterations=iterations, device=device)
    cos = to_numpy(res.cosines)  # (T+1, S, 2m)
    net, fixed, gamma = to_numpy(res.test_error), to_numpy(res.fixed_test_error), to_numpy(res.gamma_hat)
    records = []
    for s in range(cos.shape[1]):
        for t in range(cos.shape[0]):
            record = {"seed": s, "step": t, "cluster_fraction": float((cos[t, s] > 0.9).mean()),
                      "mean_cosine": float(cos[t, s].mean())}
            if t == cos.shape[0] - 1:
                record.update(test_error=float(net[s]), fixed_features_error=float(fixed[s]), gamma_hat=float(gamma[s]))
            records.append(record)
    return {"system": NAME, "records": records,
            "config": {"D": D, "k": k, "p0": p0, "width": width, "n": n, "n_test": n_test, "feature_lr": feature_lr,
                       "iterations": iterations, "structured": structured, "seeds": seeds}}


SYSTEM = System(
    name=NAME,
    title="Dictionary-learning inputs: feature emergence and advantage over fixed features",
    summary=("x = M phi with orthonormal patterns M_i and phi in {0,1}^D; the label depends on the count of active "
             "relevant patterns A. A two-layer network with truncated ReLU, hinge loss + L2, GD: its neurons cluster "
             "at ±Σ_{i∈A} M_i and it beats fixed features of the same width; without input structure it cannot."),
    sources=(SOURCE,),
    laws=lambda: list(_laws().values()),
    claims=_claims(),
    experiments=("dictionary/run",),
    simulate=SimulateCommand(
        experiment="dictionary/run",
        help=("Dictionary-learning inputs (Shi, Wei, Liang 2022): emergence cosine per feature step, and the test "
              "error of the network against fixed features of the same width."),
        options=(
            *(Option.of(P[name]) for name in ("D", "k", "p0", "width", "n", "n_test", "feature_lr", "iterations")),
            Option(name="unstructured", kind="flag", dest="unstructured", help="phi uniform (no input structure)."),
            Option(name="seeds", kind="int", default=2, minimum=1, maximum=1000, help="Independent runs."),
            DEVICE_OPTION,
        ),
        run=lambda unstructured=False, **options: simulate_document(structured=not unstructured, **options),
        fields=RECORD_FIELDS,
    ),
)
