r"""The online-SGD system: one declaration of its experiment, claims and ``flt simulate``.

Ben Arous, Gheissari, Jagannath 2021 (arXiv 2003.10409): spherical online SGD of one neuron
:math:`\sigma(\langle w, x\rangle)`, :math:`\sigma = g`, on fresh Gaussian samples of :math:`y = g(\langle w^*,
x\rangle)`
needs :math:`n \asymp d`, :math:`d\log d`, :math:`d^{k-1}` samples to reach overlap 1/2 for information exponent
:math:`k = 1`, :math:`2`, :math:`\ge 3`. Laws: :mod:`.laws` (the exponent from the symbolic layer, the step size
scaling :math:`\eta = \tilde\eta\,d^{-\max(1,k/2)}` and the regime as hypotheses); simulation: :mod:`.model` (exact
reduced dynamics, :math:`O(1)` per step in :math:`d`).

Claims (each ONE stored measurement of the weak-recovery time over a ladder of :math:`d`, compared with its law
and with the wrong law of its control by :func:`.recovery_claims.compare_time`):

* ``recovery-time-k1`` — :math:`g = z` (:math:`k = 1`): :math:`n \asymp d`; control :math:`d^{1/2}` (the
  :math:`d^{k/2}` rate).
* ``recovery-time-k2`` — :math:`g = \mathrm{He}_2` (:math:`k = 2`): :math:`n \asymp d\log d`; control
  :math:`d^2` (the rate of :math:`k = 3`).
* ``recovery-time-k3`` — :math:`g = \mathrm{He}_3` (:math:`k = 3`): :math:`n \asymp d^2`; control the CSQ rate
  :math:`d^{3/2}` of the smoothed loss (Damian, Nichani, Ge, Lee 2023, arXiv 2305.10633), which plain online SGD
  does not reach. The fit reads :math:`T + B\,d^{3/2}`: the mean time is :math:`\tau d^2 - B d^{3/2} + O(d)`
  with :math:`B` predicted (:func:`~.laws.escape_correction`; the deterministic end of the escape), the same for
  every law compared.
* ``time-smoothed-k3`` — online SGD on the smoothed loss of Damian, Nichani, Ge, Lee 2023 (arXiv 2305.10633;
  closed form and reduced dynamics in :mod:`.smoothing`), :math:`g = \mathrm{He}_3`, :math:`\lambda = d^{1/4}`,
  :math:`\eta = \tilde\eta\,\lambda^{2k-2}d^{-k/2}`: :math:`n \asymp d^{k/2} = d^{3/2}`; control the plain rate
  :math:`d^{k-1} = d^2`.
* ``time-smoothed-k4`` — the same on :math:`g = \mathrm{He}_4`: :math:`n \asymp d^{k/2} = d^2` (up to a
  :math:`\log d` that even :math:`k` carries, :func:`~.laws.smoothed_time_value`); control the plain rate
  :math:`d^3`. At :math:`\tilde\eta = 1/100` (hypothesis :math:`\tilde\eta \le 1/50`): the escape of even :math:`k`
  is driven by the smoothed loss's
  linear drift, and at the :math:`\tilde\eta = 0.05` of the k = 3 claim the retraction takes 0.77 of it — the
  fit then reads 2.46 [2.38, 2.55] at :math:`d = 64 \dots 512`, matching neither law
  (:data:`~.laws.RETRACTION_HYPOTHESIS`; ``derivations/derive_online_sgd.py``, step 4).
* ``time-transform-k4`` — :math:`y = \mathrm{He}_4(z)` (information exponent 4, generative exponent 2, Damian,
  Pillaud-Vivien, Lee, Bruna 2024, arXiv 2403.05529): the student :math:`\mathrm{He}_2` trained on the
  standardised :math:`T(y) = y^2` (:func:`~.laws.label_transform`) needs :math:`n \asymp d\log d`; control the
  rate :math:`d^3` of :math:`y` itself. At :math:`\tilde\eta = 1/50`, below the bound :math:`3\sqrt{638}/1883
  \approx 0.040` derived from the drift (:mod:`.stall`): at :math:`\tilde\eta = 0.2` the overlap stalls at
  :math:`m_* \approx 0.17` as :math:`d \to \infty`.

Mini-batch claims (Arnaboldi, Dandi, Krzakala, Loureiro, Pesce, Stephan 2024, arXiv 2406.02157;
:mod:`.batch_claims`, laws :mod:`.batch_laws`): batches of :math:`n_b = d^{\mu}` fresh samples with
:math:`\eta \propto n_b`, decided on the iterations in the limit: ``batch-iterations-k1``, ``-k2``, ``-k3``
(:math:`T` = the one-pass samples over :math:`n_b`; control: no gain), ``batch-saturation-k2`` (past
:math:`n_b = d`: :math:`T \asymp 1`; control: the gain goes on) and ``batch-past-wall-k3`` (correlation loss,
spherical gradient, :math:`n_b = d^{7/4}` past Theorem 1's wall :math:`d^{3/2}`: :math:`T \asymp d^{1/4}`; control:
saturation at the wall).

Step size: the plain and label-transformed claims carry a step-size hypothesis derived from the reduced chain's
drift (:func:`~.laws.step_hypothesis`, :mod:`.stall`): the retraction's second-order term
:math:`-\tfrac12\varepsilon^2 m\,\mathbb E[c^2]` stalls the overlap below 1/2 beyond a bound of order one
(:math:`\mathrm{He}_2`: :math:`\tilde\eta < 3/8`, stall :math:`m_*^2 = (1 - \tilde\eta)/(1 + 4\tilde\eta)`;
:math:`g = z`: :math:`\tilde\eta < 3`; :math:`\mathrm{He}_3`: :math:`\tilde\eta/\sqrt d < 1/41`).

Multi-index claims (Abbe, Boix-Adserà, Misiakiewicz 2023, arXiv 2302.11055; :mod:`.leap_claims`): a two-layer
network in mean-field scaling (:mod:`.multi_index`) on :math:`z_1 + z_1z_2 + z_1z_2z_3` (leap 1) and
:math:`z_1 + z_1z_2z_3` (leap 2), ``leap-plateau-leap1`` (:math:`\asymp 1`, control :math:`\log d`),
``leap-plateau-leap2`` (the
plateau grows, :math:`t = A + B\log d` with :math:`B > 0`; control: it does not grow) and ``learned-order``
(:math:`e_1 < e_2 < e_3`, the leap closure of the symbolic layer; control the reversed order).

Censoring: a seed that has not recovered after ``max_steps`` is censored and counts as ``max_steps``: the mean is
the restricted mean :math:`\mathbb E\min(T, T_{\max})`, accepted while at most
:data:`.recovery_claims.MAX_CENSORED_FRACTION` of
the runs at every :math:`d` are censored (else the comparison fails). :math:`T_{\max}` scales as the law's own
rate (:data:`SIZES`: 40 d, 40 d log d, 4 d²); a true exponent above the law's would censor more runs as d grows and
fail that bound. At k = 3 the cap 4 d² cuts the heavy tail of the runs whose overlap the noise pushed below 0 (the
odd link's drift vanishes there): about 1% of the runs, the mean's coefficient of variation from 1.5 to 0.7.

Power (``flt calibrate``, 20 seed sets): before the escape term (64 seeds, cap 10 d²) the k = 3 small scale
measured 2.2 ± 0.15, and the exponent ±0.5 mutants were rejected in 14/20 and 0/20 seed sets; with it, 256 seeds
and the cap 4 d², :math:`T + B d^{3/2}` fits 1.99 ± 0.03 (bootstrap over 1024 seeds) at :math:`d = 32, 64, 128`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from ...runner.cost import Cost
from ..declaration import DEVICE_OPTION, Figure, Option, RecordField, SimulateCommand, System
from .batch_claims import batch_claims
from .batch_laws import ADKLPS, ADKPS
from .figures import draw_plateau, draw_smoothing_paths, draw_times
from .laws import BAGJ, DNGL, DPVLB
from .leap_claims import leap_claims
from .leap_laws import ABM
from .model import PARAMS as P
from .recovery_claims import SIZES, claim_name, law_of, recovery_claims, uses_escape_term
from .recovery_experiment import COST
from .simulate import simulate_document, simulate_table

__all__ = ["RECORD_FIELDS", "SYSTEM"]

NAME = "online-sgd"


#: The fields of a record of ``flt simulate online-sgd --json`` (listed by its ``--help``).
RECORD_FIELDS = tuple(RecordField(name, meaning, unit) for name, meaning, unit in (
    ("d", "dimension", "count"),
    ("seed", "the run's seed", "index"),
    ("steps_to_weak_recovery", "samples used until the overlap first reaches 1/2 (|overlap| for an even link): "
                               "one per step, or --batch per batch; those of the step limit when censored",
     "samples"),
    ("iterations_to_weak_recovery", "gradient steps until the overlap first reaches 1/2; max_steps when censored "
                                    "(recorded with --batch or --passes above 1; the samples are then "
                                    "ceil(iterations/passes)·batch)", "steps"),
    ("final_overlap", "<w, w*> when the run stopped", "1"),
    ("censored", "true when the step limit ended the run before weak recovery", "bool"),
))


def _max_steps(params: Mapping[str, object]) -> float:
    """The gradient steps of ``flt simulate``'s cost polynomials: its ``max_steps`` (the worst case), 0 where it is not
    given (the default cap is refused on its own: :data:`.simulate.DEFAULT_CAP_LIMIT`)."""
    value = params.get("max_steps")
    return value if isinstance(value, (int, float)) else 0


SYSTEM = System(
    name=NAME,
    title="Online SGD: the information exponent sets the sample complexity (Ben Arous et al. 2021)",
    summary=("Spherical online SGD of one neuron σ(<w, x>), σ = g, on fresh Gaussian samples of y = g(<w*, x>), "
             "simulated exactly in reduced coordinates (overlap, and the rest of the sample through a χ²_{d−2} "
             "draw), so a step costs O(1) in d. The samples to weak recovery (overlap 1/2) scale as d, d log d and "
             "d^(k−1) for information exponent k = 1, 2, 3, with step size η = η̃ d^(−max(1, k/2)). "
             "On the smoothed loss of Damian et al. 2023 (λ = d^(1/4)) the k = 3 and k = 4 times drop to d^(3/2) "
             "and d² "
             "(at k = 4 with a step small enough that the retraction does not undo the linear escape), and training "
             "He2 on the label transform T(y) = y² of y = He4 (generative exponent 2, Damian et al. 2024) needs "
             "d log d instead of d³. A two-layer mean-field network (Abbe et al. 2023) learns z1 + z1·z2·z3 (leap 2) "
             "after a plateau ≍ log d in mean-field time, z1 + z1·z2 + z1·z2·z3 (leap 1) without one, in the order "
             "of the leap closure. With batches of n_b fresh samples and η ∝ n_b (Arnaboldi et al. 2024) the "
             "iterations are the one-pass samples over n_b up to the saturation batch d^max(k−1, 1), past which they "
             "stay bounded; with the correlation loss the gain goes on past the square loss's wall d^(k/2)."),
    sources=(BAGJ, DNGL, DPVLB, ABM, ADKLPS, ADKPS),
    laws=lambda: [law_of(key) for key in SIZES] + [claim.the_law for claim in leap_claims()]
    + [claim.the_law for claim in batch_claims()],
    claims=recovery_claims() + leap_claims() + batch_claims(),
    experiments=("online-sgd/recovery", "online-sgd/multi-index"),
    figures=tuple(Figure(name="times", claim=claim_name(key),
                         draw=functools.partial(draw_times, escape=uses_escape_term(key)),
                         caption="samples to overlap 1/2 against d (log-log; one point per seed, mean with 95% CI), "
                                 "with the slopes of the law and of the wrong law"
                                 + ("; each time plus the next-order term B d^(k/2) the comparison adds (red open "
                                    "circles: the means without it)" if uses_escape_term(key) else ""))
                  for key in SIZES)
    + tuple(Figure(name="plateau", claim=name, draw=draw_plateau,
                   caption="the plateau (mean-field time from learning z1 to learning every direction) against d, "
                           "log axis: one point per seed, mean with 95% CI, the fitted A + B log d and no growth")
            for name in ("leap-plateau-leap1", "leap-plateau-leap2"))
    + (Figure(name="paths", claim="time-smoothed-k3", draw=draw_smoothing_paths,
              caption="overlap against samples for plain and smoothed online SGD on He3 at d = 64 (8 seeds, thin "
                      "lines; median, thick), with the scales d^(3/2) and d² of the law and the wrong law"),),
    simulate=SimulateCommand(
        fields=RECORD_FIELDS,
        cost=Cost(memory=COST.memory, work=COST.work, derived={**COST.derived, "run_steps": _max_steps},
                  derived_from=COST.derived_from),
        help=("Spherical online SGD of one neuron on fresh Gaussian samples (Ben Arous, Gheissari, Jagannath 2021, "
              "arXiv 2003.10409), in exact reduced coordinates (cost per step independent of d): samples to weak "
              "recovery (overlap >= 1/2, |overlap| for an even link), censoring and final overlap per d and seed, "
              "with the predicted rate. --batch averages the gradient over fresh mini-batches (Arnaboldi et al. "
              "2024a, arXiv 2406.02157) and --passes takes several steps on each batch (Arnaboldi et al. 2024b, "
              "arXiv 2405.15459), still exactly in reduced coordinates."),
        options=(
            Option.of(P["target"], default="He3(z)"),
            Option.of(P["d"], grid=True, default=(32, 64, 128), help="Dimensions, comma-separated."),
            Option.of(P["loss"]),
            Option(name="lr", kind="eta", default="theory",
                   help="eta_tilde in eta = eta_tilde d^(-max(1, k/2)), or 'theory' (0.5, 0.2, 0.05 for "
                        "k = 1, 2, >= 3)."),
            Option.of(P["overlap0"]),
            Option.of(P["max_steps"], required=False,
                      help="Samples at most per run (default: 10 (d, d log d or d^(k-1)) / eta_tilde); with --batch "
                           "or --passes above 1, gradient steps (default: 10 passes T(d) / (eta_tilde batch), T(d) "
                           "the rate in samples, of the generative exponent with --passes >= 2)."),
            Option.of(P["seeds"]),
            Option(name="label-transform", kind="flag", dest="transform",
                   help="Train the student He_{k*} on the labels T(y) whose information exponent is the generative "
                        "exponent k* (Damian et al. 2024; polynomial target only; T = standardised lowest power "
                        "of y)."),
            Option.of(P["smoothing"], help=P["smoothing"].help + " The theorem's range is <= 1."),
            Option.of(P["batch"]),
            Option.of(P["passes"]),
            Option(name="run-to-end", kind="flag",
                   help="Continue every run to --max-steps (final_overlap = overlap after max-steps; default: stop "
                        "once every seed has recovered, final_overlap = overlap at recovery)."),
            DEVICE_OPTION,
        ),
        run=simulate_document,
        table=simulate_table,
    ),
)
