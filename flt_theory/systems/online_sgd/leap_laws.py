r"""Laws of online SGD on multi-index targets: the leap and the order of the learned directions (sympy only).

Source: Abbe, Boix-Adserà, Misiakiewicz 2023, "SGD learning on neural networks: leap complexity and
saddle-to-saddle dynamics", arXiv 2302.11055. A two-layer network in mean-field scaling trained by online SGD with
step :math:`\eta \asymp 1/d` learns a target of leap complexity :math:`L` (:func:`~flt_theory.symbolic.leap.
leap_complexity`) in :math:`n = \tilde\Theta(d^{\max(L-1, 1)})` samples, through saddle-to-saddle plateaus, one per
leap. Time normalisation: mean-field time :math:`t = \eta\,n = \tilde\eta\,n/d` (:mod:`.multi_index`).

* A **leap-1** step (each new direction enters a monomial together with directions already learned, linearly)
  feels a drift of order 1 as soon as the previous directions are learned: it takes :math:`t = O(1)`, independent
  of :math:`d` (:math:`n \asymp d`).
* A **leap-2** step (two new directions :math:`e_i, e_j` entering together, e.g. :math:`z_1 z_2 z_3` once
  :math:`z_1` is learned): the mean-field drift of the components :math:`(w_i, w_j)` is linear in them,
  :math:`\dot w_i \propto w_j`, :math:`\dot w_j \propto w_i` (Stein's lemma: :math:`\mathbb E[z_1 z_2 z_3\,\sigma'(u)
  z_2] = w_1 w_3\,\mathbb E\sigma^{(3)}(u) + \dots`), so they grow like :math:`e^{\lambda t}` from their start
  :math:`\asymp d^{-1/2}`: the plateau lasts :math:`t \approx \frac{1}{2\lambda}\log d + O(1)` (:math:`n \asymp
  d\log d`, the :math:`\tilde\Theta(d^{\max(L-1,1)})` of the paper at :math:`L = 2`, log included).

So in mean-field time the plateau of a leap-2 step grows like :math:`\log d` and a leap-1 step's does not:
read as a power of :math:`\log d`, :math:`t_{\mathrm{plateau}} \asymp (\log d)^{\beta}` with :math:`\beta = 1`
(leap 2) or :math:`\beta = 0` (leap 1) — the laws of :func:`plateau_law`. The **order** of learning is the leap
ordering (:func:`learning_stages`): the greedy closure of the leap complexity, adding at each stage the directions
of the monomials that need the fewest new coordinates; for a target whose every leap is 1 it is the staircase
:math:`U_1 \subset U_2 \subset \dots` of :func:`flt_theory.symbolic.staircase.staircase`.

Hypotheses (:data:`HYPOTHESES`): the paper's step size :math:`\eta = \tilde\eta/d` with :math:`\tilde\eta` small
(read as :math:`\tilde\eta \le 1/4`: the mean-field times measured at :math:`\tilde\eta = 1/2` are 1.5× those at
1/4, outside the limit), the start :math:`w_j \sim \mathcal N(0, I_d/d)`, :math:`d \ge 32`.
"""

from __future__ import annotations

import sympy as sp

from ...errors import InvalidParameterError
from ...symbolic.expansion import expand_target
from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source
from ...symbolic.leap import leap_complexity
from ...symbolic.target import Target
from .laws import ETA_TILDE, D

__all__ = ["ABM", "HYPOTHESES", "INIT_SCALE", "learning_stages", "order_law", "plateau_law", "stage_leaps"]

ABM = Source(authors="Abbe, Boix-Adserà, Misiakiewicz", year=2023,
             title="SGD learning on neural networks: leap complexity and saddle-to-saddle dynamics",
             arxiv="2302.11055")
#: :math:`\sqrt d\,\mathrm{std}(w_{jk})` at the start.
INIT_SCALE = sp.Symbol("init_scale", positive=True)

HYPOTHESES: dict[str, Hypothesis] = {
    "step size": Hypothesis(
        text="step size η = η̃/d, η̃ small (read as η̃ ≤ 1/4)", condition=ETA_TILDE <= sp.Rational(1, 4),
        latex=r"\tilde\eta \le 1/4", where="mean-field step size η ≍ 1/d of the saddle-to-saddle theorem of arXiv "
                                            "2302.11055 (the dimension-free dynamics is its η̃ → 0 limit)"),
    "start": Hypothesis(
        text="first-layer start w_j ~ N(0, I_d/d) (read as init_scale = 1)", condition=sp.Eq(INIT_SCALE, 1),
        latex=r"w_j^0 \sim \mathcal N(0, I_d/d)", where="random start of arXiv 2302.11055 (overlaps ≍ d^(−1/2))"),
    "high dimension": Hypothesis(text="d → ∞ (read as d ≥ 32)", condition=D >= 32,
                                 where="asymptotic setting of the theorem (d → ∞)"),
}
_READING = ("constants: η̃ ≤ 1/4, w_j^0 ~ N(0, I_d/d), d ≥ 32; '≍' read as the exponent of the seed-mean plateau "
            "time in log d, within a finite-size tolerance")


def _parsed(target: str | Target) -> Target:
    return target if isinstance(target, Target) else Target.parse(target)


def learning_stages(target: str | Target) -> tuple[tuple[int, ...], ...]:
    r"""The directions (0-based) learned at each stage, in order: the greedy leap closure over the Hermite support
    :math:`S` (module docstring) — at each stage the monomials :math:`\alpha \in S` whose degree on the not yet
    learned coordinates, :math:`\sum_{k \text{ new}} \alpha_k`, is the least (and positive) bring their new
    coordinates together.

    >>> learning_stages("z1 + z1*z2 + z1*z2*z3"), learning_stages("z1 + z1*z2*z3")
    (((0,), (1,), (2,)), ((0,), (1, 2)))
    """
    support = expand_target(_parsed(target)).support()
    learned: set[int] = set()
    stages: list[tuple[int, ...]] = []
    while True:
        costs = {alpha: sum(a for k, a in enumerate(alpha) if k not in learned) for alpha in support}
        pending = [c for c in costs.values() if c > 0]
        if not pending:
            return tuple(stages)
        least = min(pending)
        new = sorted({k for alpha, c in costs.items() if c == least
                      for k, a in enumerate(alpha) if a and k not in learned})
        stages.append(tuple(new))
        learned.update(new)


def stage_leaps(target: str | Target) -> tuple[int, ...]:
    r"""The leap of each stage of :func:`learning_stages` (the least new degree); its maximum is the leap
    complexity of :func:`~flt_theory.symbolic.leap.leap_complexity` (checked).

    >>> stage_leaps("z1 + z1*z2 + z1*z2*z3"), stage_leaps("z1 + z1*z2*z3")
    ((1, 1, 1), (1, 2))
    """
    parsed = _parsed(target)
    support = expand_target(parsed).support()
    learned: set[int] = set()
    leaps = []
    for stage in learning_stages(parsed):
        leaps.append(min(s for s in (sum(a for k, a in enumerate(alpha) if k not in learned) for alpha in support)
                         if s > 0))
        learned.update(stage)
    if max(leaps) != leap_complexity(parsed):
        raise AssertionError(f"stage leaps {leaps} disagree with the leap complexity {leap_complexity(parsed)}")
    return tuple(leaps)


def _log_d_power(beta: int) -> sp.Expr:
    return sp.log(D) ** beta


def plateau_law(target: str | Target) -> Law:
    r"""The plateau of ``target``: the mean-field time from learning the first stage of :func:`learning_stages` to
    learning every direction, :math:`t \asymp \log d` if a later stage has leap 2, :math:`t \asymp 1` if every later
    stage has leap 1 (module docstring).

    >>> plateau_law("z1 + z1*z2*z3").value, plateau_law("z1 + z1*z2 + z1*z2*z3").value
    (log(d), 1)
    """
    leaps = stage_leaps(target)
    leap = max(leaps[1:], default=1)
    if leap > 2:
        raise InvalidParameterError(f"plateau_law covers stages of leap 1 or 2; {target!r} has a stage of leap {leap}")
    value = _log_d_power(leap - 1)
    return Law(lhs=r"t_{\mathrm{plateau}}", relation="asymp", name=f"plateau time, leap {leap}", value=value,
               conditions=(r"t = \tilde\eta\, n / d", r"\eta = \tilde\eta / d", f"leap {leap}"),
               source=ABM, regime=f"f* = {_parsed(target).expr}, two-layer mean-field network, online SGD",
               words=(f"after the first stage, the rest (largest leap {leap}) takes mean-field time t ≍ {value} "
                      f"(n ≍ d·{value} samples)"),
               hypotheses=tuple(HYPOTHESES.values()), hypotheses_reading=_READING)


def order_law(target: str | Target, stages: tuple[tuple[int, ...], ...] | None = None) -> Law:
    r"""The directions are learned stage by stage in the order of :func:`learning_stages` (or the given
    ``stages``: a wrong order for a negative control). The law's value is the stages as a sympy tuple of
    1-based direction indices.

    >>> order_law("z1 + z1*z2*z3").value
    ((1,), (2, 3))
    """
    stages = learning_stages(target) if stages is None else stages
    value = sp.Tuple(*(sp.Tuple(*(k + 1 for k in stage)) for stage in stages))
    text = " < ".join("{" + ", ".join(f"e{k + 1}" for k in stage) + "}" for stage in stages)
    return Law(lhs=r"\text{order}", relation="eq", name="learned order", value=value,
               conditions=(r"\eta = \tilde\eta / d",), source=ABM,
               regime=f"f* = {_parsed(target).expr}, two-layer mean-field network, online SGD",
               words=f"the directions are learned in the order {text} (the leap closure of the symbolic layer)",
               hypotheses=tuple(HYPOTHESES.values()), hypotheses_reading=_READING)
