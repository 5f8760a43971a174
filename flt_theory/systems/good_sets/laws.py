r"""Good property sets of the sparse-coding system: exact laws at initialisation and during training.

Source: the good-property-set argument of Allen-Zhu & Li 2020 (arXiv 2005.10190), as presented in an FLT seminar.
Setting and notation as in :mod:`.model`: :math:`x = Mz + \xi`, :math:`M`
orthonormal, :math:`\|z\|_0 = s`, :math:`y = \operatorname{sign}\langle w^*, z\rangle`, :math:`m` neurons
:math:`w_i^{(0)} \sim \mathcal N(0, \sigma_1^2 I_d)`, :math:`C_{ij} = \langle w_i, M_j\rangle`, :math:`L = \log d`
(natural log), :math:`g \sim \mathcal N(0, 1)`, :math:`\operatorname{P}(|g| \ge a) = \operatorname{erfc}(a/\sqrt2)`.

Initial set sizes (derivation). Row :math:`i` of :math:`C^{(0)} = W^{(0)} M^\top` is
:math:`M w_i^{(0)} \sim \mathcal N(0, \sigma_1^2 M M^\top) = \mathcal N(0, \sigma_1^2 I_d)`: because :math:`M` is
orthonormal the :math:`md` coordinates :math:`C_{ij}^{(0)}` are **iid** :math:`\mathcal N(0, \sigma_1^2)`, and at
:math:`t = 0` the scale is :math:`\sigma_3^{(0)} = \sigma_1` exactly, so :math:`C_{ij}/\sigma_3 = g_{ij}` iid standard.
The three conditions of :math:`i \in S_{j,\text{sure}}^0` concern independent variables:
:math:`|g_{ij}| \ge \sqrt{(c_1+c_2)L}`; :math:`|g_{ij'}| < \sqrt{(c_1-c_2)L}` for the :math:`d-1` other
:math:`j'`, independent of :math:`g_{ij}` and of each other; and
:math:`\operatorname{sign} g_{ij} = \operatorname{sign} w^*_j`, which has probability :math:`\tfrac12` independently of
:math:`|g_{ij}|` because :math:`g_{ij}` is symmetric (:math:`|g|` and :math:`\operatorname{sign} g` are independent) and
:math:`w^*` is fixed before the initialisation. Hence, exactly,

.. math::

    p_\text{sure} = \tfrac12\, \operatorname{P}\big(|g| \ge \sqrt{(c_1+c_2)L}\big)\,
    \operatorname{P}\big(|g| < \sqrt{(c_1-c_2)L}\big)^{d-1}, \qquad
    \mathbb E|S_{j,\text{sure}}^0| = m\, p_\text{sure},

and :math:`p_\text{pot} = \operatorname{P}(|g| \ge \sqrt{(c_1-c_2)L})`,
:math:`\mathbb E|S_{j,\text{pot}}^0| = m\,p_\text{pot}`. Neurons are independent, so
:math:`|S_{j,\text{sure}}^0| \sim \mathrm{Bin}(m, p_\text{sure})`. A neuron is in at most one
:math:`S_{j,\text{sure}}^0` (the other coordinates of a sure neuron are below the pot level, which is below the sure
level when :math:`c_2 \ge 0`), so the total :math:`\sum_j |S_{j,\text{sure}}^0|` over :math:`k` independent seeds is
exactly :math:`\mathrm{Bin}(km,\ d\,p_\text{sure})`, and
:math:`\sum_j|S_{j,\text{pot}}^0| \sim \mathrm{Bin}(kmd, p_\text{pot})` (the :math:`kmd` coordinates are iid): a
measured count is compared with the law through the exact Clopper–Pearson interval of a binomial proportion
(:func:`flt_theory.systems.good_sets.clopper_pearson`).

Structural laws. :math:`S_{j,\text{sure}}^t \subseteq S_{j,\text{pot}}^t` at every :math:`t` (the sure level
:math:`(c_1+c_2)` is above the pot level :math:`(c_1-c_2)`); neurons enter the sure set from the pot set;
no neuron ever exits the highest set (the seminar's principle).

Growth of good neurons (derived here). While :math:`f \approx 0` the logistic derivative is
:math:`\tfrac12`, and a neuron that fires exactly on the samples with :math:`z_j \ne 0` gets
:math:`\Delta\langle w_i, M_j\rangle\operatorname{sign}w^*_j = \tfrac\eta2\,\mathbb E[y z_j \operatorname{sign}
w^*_j\,\mathbb 1(z_j\ne0)] = \tfrac\eta2\,\tfrac sd\,\rho_s` per step, where, for balanced :math:`|w^*_j| =
1` and odd :math:`s`, :math:`y` is the majority vote of the :math:`s` active signed features and :math:`z_j` changes it
iff the other :math:`s-1` votes tie: :math:`\rho_s = \binom{s-1}{(s-1)/2} 2^{1-s}`. The growth is linear in :math:`t`
(the symmetric ReLU has slope 1 above threshold), at the rate

.. math:: r^* = \frac{\eta\, s\, \rho_s}{2d}.

Linear model. :math:`\langle Mw^*, x\rangle = \langle w^*, z\rangle + \langle w^*, \xi\rangle` with
:math:`\langle w^*, z\rangle = 2B - s`, :math:`B \sim \mathrm{Bin}(s, \tfrac12)`, and
:math:`\langle w^*,\xi\rangle \sim \mathcal N(0, \sigma_0^2 d)`, so its accuracy is exactly
:math:`\sum_{k=0}^s \binom sk 2^{-s}\,\Phi\big(|2k - s|/(\sigma_0\sqrt d)\big)`.

Hypotheses and statuses (what could be established). The full text of Allen-Zhu & Li 2020 was not available to
us: we could read its abstract (a two-layer ReLU network trained by GD on sparse coding data, "d sufficiently
large", results with high probability) and the good-set construction as presented in a seminar, which states the
entry and no-exit principles as the *goals* of the analysis. We could not verify the number of a theorem or
lemma proving them, nor the paper's exact width, sparsity and step-size conditions; no such condition is
encoded. Hence: the inclusion :math:`S_\text{sure} \subseteq S_\text{pot}` follows from the definitions
(``derived``, exact); the entry and no-exit principles and "the net beats the linear model" are ``conjecture``
(stated without a proof we could cite); the set sizes, the growth rate and the linear accuracy are ``derived``
here.

Besides the conditions the derivations here use, each read at every measured point (:data:`SIZE_HYPOTHESES`:
:math:`c_2 \ge 0` and :math:`c_1 > c_2`, for the set sizes and the inclusion; :data:`EARLY_PHASE` and
:data:`ODD_SPARSITY` for the growth rate: the run stays in the phase :math:`f \approx 0`, estimated generously as
:math:`m(\sigma_1\sqrt{s + \sigma_0^2 d} + s\,T r^*) \le 1`, and :math:`s` is odd; the law's own
:math:`\sigma_0\sqrt d \gtrsim 1` for "the net beats the linear model"),
the one hypothesis encoded is the asymptotic one every such statement carries, "d sufficiently large", read
through the sets' own definition (:data:`LARGE_D`): a neuron's other coordinates must lie below the pot level
with high probability, i.e. the expected number of the :math:`d-1` other coordinates of a random neuron at or
above :math:`\sqrt{(c_1-c_2)\log d}\,\sigma` is small, :math:`(d-1)\,p_\text{pot}(d) \le 0.05` ("w.h.p." read as
95%). With :math:`c_1 - c_2 = 2` (the constants used here) :math:`(d-1)p_\text{pot} \approx 1/\sqrt{\pi\log d}`
decays only logarithmically: 0.26 at :math:`d = 32`, 0.20 at :math:`d = 1024`, and 0.05 only at
:math:`\log d \approx 126`, :math:`d \approx 7\cdot 10^{54}`. No simulated point is inside, for any affordable
:math:`d`; with :math:`c_1 - c_2 > 2` the same quantity decays like :math:`d^{1-(c_1-c_2)/2}`.
"""

from __future__ import annotations

import numbers

import sympy as sp

from ...errors import InvalidParameterError, InvalidParameterTypeError
from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source

__all__ = [
    "EARLY_PHASE",
    "GOOD_SET_SYMBOLS",
    "LARGE_D",
    "LARGE_D_READING",
    "LEVELS_ORDERED",
    "ODD_SPARSITY",
    "POT_LEVEL",
    "SIZE_HYPOTHESES",
    "SOURCE",
    "expected_pot_size",
    "expected_size",
    "expected_sure_size",
    "gaussian_tail",
    "good_set_laws",
    "growth_rate",
    "linear_accuracy",
    "pot_probability",
    "sure_probability",
    "tie_probability",
]

SOURCE = Source(authors="Allen-Zhu, Li", year=2020, arxiv="2005.10190",
                title="Feature purification: how adversarial training performs robust deep learning")

#: Named objects the set laws compare with (their LaTeX is what the laws print).
SETS = {
    "sure": sp.Symbol(r"S_{j,\mathrm{sure}}^{t}"),
    "pot": sp.Symbol(r"S_{j,\mathrm{pot}}^{t}"),
    "linear": sp.Symbol(r"\Pr[\operatorname{sign}\langle M w^*, x\rangle = y]"),
}

#: Symbols of the good-set laws.
GOOD_SET_SYMBOLS = {name: sp.Symbol(name, positive=True) for name in ("m", "d", "c_1", "c_2", "s", "eta", "sigma_0")}
SETS["sure0"] = sp.Symbol(r"S_{j,\mathrm{sure}}^{0}")

#: "d sufficiently large", read through the sets' definition (module docstring).
LARGE_D = Hypothesis(
    text="d sufficiently large: a neuron's other d - 1 coordinates lie below the pot level w.h.p., (d - 1) p_pot(d) <= "
         "0.05",
    condition=(GOOD_SET_SYMBOLS["d"] - 1) * sp.erfc(sp.sqrt((GOOD_SET_SYMBOLS["c_1"] - GOOD_SET_SYMBOLS["c_2"])
                                                          * sp.log(GOOD_SET_SYMBOLS["d"]) / 2)) <= sp.Rational(1, 20),
    where="Allen-Zhu & Li 2020 (arXiv 2005.10190): results for d sufficiently large, w.h.p. (theorem number not "
          "verified)")
LARGE_D_READING = ("'w.h.p. for d sufficiently large' read as: the expected number of a neuron's other coordinates at "
                   "the "
                   "pot level is <= 0.05 (95%); constants c_1, c_2 as used; width, sparsity and step-size conditions "
                   "of "
                   "the paper could not be verified and are not encoded")
_EXACT = "derived here exactly (module docstring): holds at every d, m; no asymptotic condition"

_c1, _c2 = sp.Symbol("c_1", real=True), sp.Symbol("c_2", real=True)
_SIZES_WHERE = "derived here, flt_theory.systems.good_sets.laws module docstring, initial set sizes"
#: The sure level is at or above the pot level: a neuron is sure for at most one feature (module docstring).
LEVELS_ORDERED = Hypothesis(
    text="c_2 >= 0: the sure level sqrt((c_1 + c_2) log d) is at or above the pot level sqrt((c_1 - c_2) log d)",
    condition=_c2 >= 0, where=_SIZES_WHERE + " (a neuron is in at most one S_sure) and structural laws")
#: The pot level is a positive level (module docstring).
POT_LEVEL = Hypothesis(text="c_1 > c_2: the pot level sqrt((c_1 - c_2) log d) is positive", condition=_c1 > _c2,
                       where=_SIZES_WHERE)
#: What the exact set-size law uses (module docstring): the ordering of the levels makes the total of the sure sets a
#: binomial over km neurons.
SIZE_HYPOTHESES = (LEVELS_ORDERED, POT_LEVEL)
SIZES_READING = ("exact conditions on the set constants (no asymptotics): c_2 >= 0 makes the sure sets of one neuron "
                 "disjoint, so the total is Bin(km, d p_sure) exactly; c_1 > c_2 makes the pot level positive")

_GROWTH_WHERE = "derived here, flt_theory.systems.good_sets.laws module docstring, growth of good neurons"
_gm, _gd, _gs, _s0, _s1, _geta, _T, _rho = sp.symbols("m d s sigma_0 sigma_1 eta T rho_s", positive=True)
#: The early phase f ≈ 0 of the growth law, as a condition on the run: the output if EVERY neuron, at its initial
#: scale sigma_1 ||x||, had grown at the early-phase rate r* on each of the s active features for T steps, at most 1
#: (f << 1 read with constant 1). A generous estimate of |f|: an early-phase run at d = 32, m = 256, T = 150 measured a
#: mean |f| of 0.005 at its last step, where the estimate is 0.56.
EARLY_PHASE = Hypothesis(
    text="early phase f ≈ 0 over the run: m (sigma_1 sqrt(s + sigma_0^2 d) + s T r*) <= 1, r* = eta s rho_s/(2d) "
         "(every neuron grown at the early-phase rate on every active feature; constant 1)",
    condition=_gm * (_s1 * sp.sqrt(_gs + _s0**2 * _gd) + _gs * _T * _geta * _gs * _rho / (2 * _gd)) <= 1,
    where=_GROWTH_WHERE + " (the logistic derivative is 1/2 while f ≈ 0)")
#: rho_s counts the ties of the other s - 1 votes: s odd (module docstring).
ODD_SPARSITY = Hypothesis(text="s odd (with |w*_j| = 1, y is the majority vote of the s active features)",
                          condition=sp.Eq(sp.Mod(_gs, 2), 1), where=_GROWTH_WHERE + " (the tie probability rho_s)")
GROWTH_READING = ("the early phase f ≈ 0 read as a run whose output, estimated generously, stays <= 1 (constant 1: "
                  "f << 1); s odd read exactly; the source states no rate")

_NOISE = Hypothesis(text="non-negligible input noise: sigma_0 sqrt(d) >~ 1, read sigma_0 sqrt(d) >= 1 (constant 1)",
                    condition=_s0 * sp.sqrt(_gd) >= 1,
                    where="Allen-Zhu & Li 2020 as presented (linear models are not expressive enough for "
                          "non-negligible noise); the law's condition sigma_0 sqrt(d) >~ 1")


#: The quantity of the no-exit principle: exits from the highest set between consecutive steps.
EXITS_LHS = r"\#\{i \in S_{j,\mathrm{sure}}^{t} \setminus S_{j,\mathrm{sure}}^{t+1}\}"


def _number_or_symbol(value, name: str, caller: str, *, integer: bool = False, minimum=None, strict: bool = False):
    """``value`` as a sympy object; numbers are range-checked, symbols pass through."""
    if isinstance(value, sp.Basic) and not value.is_number:
        return value
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, sp.Basic)):
        raise InvalidParameterTypeError(
            f"The {name!r} parameter of {caller} must be a {'int' if integer else 'real number'} or a sympy "
            f"symbol. Got {value!r} of type {type(value).__name__} instead."
        )
    number = sp.nsimplify(value) if not isinstance(value, sp.Basic) else value
    if integer and not number.is_integer:
        raise InvalidParameterTypeError(f"The {name!r} parameter of {caller} must be an int. Got {value!r} instead.")
    if minimum is not None and (number < minimum or (strict and number == minimum)):
        relation = ">" if strict else ">="
        raise InvalidParameterError(f"The {name!r} parameter of {caller} must be {relation} {minimum}. Got {value!r} "
                                    "instead.")
    return number


def _constants(c1, c2, caller: str):
    c1 = _number_or_symbol(c1, "c1", caller, minimum=0, strict=True)
    c2 = _number_or_symbol(c2, "c2", caller, minimum=0)
    if (c1 - c2).is_number and not (c1 - c2) > 0:
        raise InvalidParameterError(f"The 'c1' parameter of {caller} must be > c2 = {c2}. Got {c1} instead.")
    return c1, c2


def gaussian_tail(a) -> sp.Expr:
    r""":math:`\operatorname{P}(|g| \ge a) = \operatorname{erfc}(a/\sqrt 2)` for :math:`g \sim \mathcal N(0,1)`,
    :math:`a \ge 0`.

    >>> gaussian_tail(0), float(gaussian_tail(1.959963984540054)).__round__(6)
    (1, 0.05)
    """
    a = sp.sympify(a)
    return sp.erfc(a / sp.sqrt(2))


def sure_probability(d, c1, c2) -> sp.Expr:
    r""":math:`p_\text{sure} = \tfrac12 \operatorname{P}(|g| \ge \sqrt{(c_1+c_2)\log d})\,
    \operatorname{P}(|g| < \sqrt{(c_1-c_2)\log d})^{d-1}`.

    >>> p = sure_probability(32, 2.5, 0.5)
    >>> round(float(p), 8)
    0.00048478
    >>> d, c1, c2 = (GOOD_SET_SYMBOLS[k] for k in ("d", "c_1", "c_2"))
    >>> sure_probability(d, c1, c2)
    erf(sqrt(2)*sqrt((c_1 - c_2)*log(d))/2)**(d - 1)*erfc(sqrt(2)*sqrt(c_1 + c_2)*sqrt(log(d))/2)/2
    """
    caller = "sure_probability"
    d = _number_or_symbol(d, "d", caller, integer=True, minimum=2)
    c1, c2 = _constants(c1, c2, caller)
    log_d = sp.log(d)
    inside = sp.erf(sp.sqrt((c1 - c2) * log_d) / sp.sqrt(2))  # P(|g| < a) = erf(a / sqrt 2)
    return sp.Rational(1, 2) * gaussian_tail(sp.sqrt((c1 + c2) * log_d)) * inside ** (d - 1)


def pot_probability(d, c1, c2) -> sp.Expr:
    r""":math:`p_\text{pot} = \operatorname{P}(|g| \ge \sqrt{(c_1-c_2)\log d})`.

    >>> round(float(pot_probability(32, 2.5, 0.5)), 6)
    0.008469
    """
    caller = "pot_probability"
    d = _number_or_symbol(d, "d", caller, integer=True, minimum=2)
    c1, c2 = _constants(c1, c2, caller)
    return gaussian_tail(sp.sqrt((c1 - c2) * sp.log(d)))


def expected_size(which: str, m, d, c1, c2) -> sp.Expr:
    r""":math:`\mathbb E|S_{j,w}^0| = m\,p_w` (for each :math:`j`) for the set :math:`w` = ``which``: ``"sure"``
    (:func:`sure_probability`) or ``"pot"`` (:func:`pot_probability`).

    >>> round(float(expected_size("sure", 256, 32, 2.5, 0.5)), 5)
    0.1241
    >>> round(float(expected_size("pot", 256, 32, 2.5, 0.5)), 4)
    2.1681
    """
    probabilities = {"sure": sure_probability, "pot": pot_probability}
    if which not in probabilities:
        raise InvalidParameterError(f"The 'which' parameter of expected_size must be 'sure' or 'pot'. Got {which!r} "
                                    "instead.")
    m = _number_or_symbol(m, "m", f"expected_{which}_size", integer=True, minimum=1)
    return m * probabilities[which](d, c1, c2)


def expected_sure_size(m, d, c1, c2) -> sp.Expr:
    r""":math:`\mathbb E|S_{j,\text{sure}}^0| = m\,p_\text{sure}` (for each :math:`j`; :func:`expected_size`)."""
    return expected_size("sure", m, d, c1, c2)


def expected_pot_size(m, d, c1, c2) -> sp.Expr:
    r""":math:`\mathbb E|S_{j,\text{pot}}^0| = m\,p_\text{pot}` (for each :math:`j`; :func:`expected_size`)."""
    return expected_size("pot", m, d, c1, c2)


def tie_probability(s: int) -> sp.Rational:
    r""":math:`\rho_s = \mathbb E[y z_j \operatorname{sign} w^*_j \mid z_j \ne 0] = \binom{s-1}{(s-1)/2}2^{1-s}` (odd
    :math:`s`, balanced :math:`|w^*_j| = 1`): the probability that the other :math:`s-1` votes tie.

    >>> [tie_probability(s) for s in (1, 3, 5, 9)]
    [1, 1/2, 3/8, 35/128]
    """
    if isinstance(s, bool) or not isinstance(s, numbers.Integral):
        raise InvalidParameterTypeError(f"The 's' parameter of tie_probability must be an int. Got {s!r} instead.")
    if s < 1 or s % 2 == 0:
        raise InvalidParameterError(f"The 's' parameter of tie_probability must be an odd int >= 1. Got {s} instead.")
    return sp.binomial(s - 1, (s - 1) // 2) / sp.Integer(2) ** (s - 1)


def growth_rate(eta, s: int, d) -> sp.Expr:
    r"""Rate of :math:`\langle w_i^{(t)}, M_j\rangle \operatorname{sign} w^*_j` per GD step for a good neuron while
    :math:`f \approx 0`: :math:`r^* = \eta\, s\, \rho_s / (2d)`.

    >>> growth_rate(sp.Symbol("eta"), 3, 32)
    3*eta/128
    """
    caller = "growth_rate"
    eta = _number_or_symbol(eta, "eta", caller, minimum=0, strict=True)
    d = _number_or_symbol(d, "d", caller, integer=True, minimum=1)
    if not isinstance(d, sp.Symbol) and s > d:
        raise InvalidParameterError(f"The 's' parameter of {caller} must be <= d = {d}. Got {s} instead.")
    return eta * s * tie_probability(s) / (2 * d)


def linear_accuracy(s: int, d, sigma0) -> sp.Expr:
    r"""Exact accuracy of :math:`\operatorname{sign}\langle M w^*, x\rangle`:
    :math:`\sum_k \binom sk 2^{-s}\,\Phi(|2k-s|/(\sigma_0\sqrt d))` (1 when :math:`\sigma_0 = 0`).

    >>> round(float(linear_accuracy(3, 32, 0.15)), 4), linear_accuracy(3, 32, 0)
    (0.9105, 1)
    """
    caller = "linear_accuracy"
    tie_probability(s)  # validates s
    d = _number_or_symbol(d, "d", caller, integer=True, minimum=1)
    sigma0 = _number_or_symbol(sigma0, "sigma0", caller, minimum=0)
    if sigma0 == 0:
        return sp.Integer(1)
    total = sp.Integer(0)
    for k in range(s + 1):
        margin = abs(2 * k - s) / (sigma0 * sp.sqrt(d))
        total += sp.binomial(s, k) / sp.Integer(2) ** s * (1 + sp.erf(margin / sp.sqrt(2))) / 2
    return total


def good_set_laws(
    m: int = 256, d: int = 32, c1: float = 2.5, c2: float = 0.5, s: int = 3, eta=None, sigma0=None
) -> list[Law]:
    r"""The laws of the sparse-coding system as :class:`~flt_theory.symbolic.law.Law` objects.

    Numbers fill the expressions where given (``eta``/``sigma0`` stay symbolic when ``None``).

    >>> laws = {law.name: law for law in good_set_laws()}
    >>> sorted(laws)[:3]
    ['entry from the lower set', 'good-set growth', 'inclusion']
    >>> [round(x, 3) for x in laws["initial set sizes"].numbers(m=256, d=32)]
    [0.124, 2.168]

    The initial sizes keep :math:`m` and :math:`d` symbolic (the comparison substitutes the measured ones: a law
    built for one width must not be compared with counts at another).
    """
    sym = GOOD_SET_SYMBOLS
    eta = sym["eta"] if eta is None else eta
    sigma0 = sym["sigma_0"] if sigma0 is None else sigma0
    p_sure = sure_probability(sym["d"], sym["c_1"], sym["c_2"])
    p_pot = pot_probability(sym["d"], sym["c_1"], sym["c_2"])
    values = {sym["m"]: m, sym["d"]: d, sym["c_1"]: sp.nsimplify(c1), sym["c_2"]: sp.nsimplify(c2)}
    given = (rf"m = {m}", rf"d = {d}", rf"c_1 = {sp.latex(sp.nsimplify(c1))}", rf"c_2 = {sp.latex(sp.nsimplify(c2))}")
    rate = growth_rate(eta, s, d)
    sure_total = sp.Tuple(sym["m"] * p_sure,
                          sym["m"] * p_pot).subs({sym["c_1"]: values[sym["c_1"]], sym["c_2"]: values[sym["c_2"]]})
    return [
        Law(name="initial set sizes", lhs=r"(\mathbb{E}|S_{j,\mathrm{sure}}^{0}|,\ \mathbb{E}|S_{j,\mathrm{pot}}^{0}|)",
            relation="eq", value=tuple(sure_total),
            conditions=(r"w_i^{(0)} \sim \mathcal{N}(0, \sigma_1^2 I_d)", r"M M^\top = I", *given[2:]),
            status="derived",
            source=SOURCE, hypotheses=SIZE_HYPOTHESES, hypotheses_reading=SIZES_READING,
            words=f"E|S_sure^0| = m/2·P(|g| ≥ √((c1+c2) log d))·P(|g| < √((c1−c2) log d))^(d−1), "
                                 f"E|S_pot^0| = m·P(|g| ≥ √((c1−c2) log d)) at c1 = {c1:g}, c2 = {c2:g}"),
        Law(name="inclusion", lhs=r"S_{j,\mathrm{sure}}^{t}", relation="in", value=SETS["pot"],
            conditions=(r"c_2 \geq 0", r"\forall t, j"), source=SOURCE, status="derived",
            hypotheses=(LEVELS_ORDERED,),
            hypotheses_reading="follows from the definitions of the sets whenever c_2 >= 0 (read exactly): exact at "
                               "every size and step",
            words="S_sure^t ⊆ S_pot^t at every step (by definition: the sure level is above the pot level)"),
        Law(name="entry from the lower set", lhs=r"|S_{\mathrm{sure}}^{T}| / \max(1, |S_{\mathrm{sure}}^{0}|)",
            relation="geq",
            value=2,
            conditions=(r"S_{j,\mathrm{sure}}^{t+1} \setminus S_{j,\mathrm{sure}}^{t} \subseteq S_{j,\mathrm{pot}}^{t}",
                                 r"\eta\,\|\nabla_{w_i}\| \ll \sigma_3^{(t)}"), source=SOURCE, status="conjecture",
            hypotheses=(LARGE_D,), hypotheses_reading=LARGE_D_READING,
            words="neurons enter S_sure (it grows ≥ 2×) and every entry comes from S_pot (at a finite step: all but "
                  "≤ 1 in 1000)"),
        Law(name="no exit from the highest set", lhs=EXITS_LHS,
            relation="eq", value=0, conditions=(r"\forall t", "small step size"), source=SOURCE, status="conjecture",
            hypotheses=(LARGE_D,), hypotheses_reading=LARGE_D_READING,
            words="no neuron ever exits S_sure (the literal principle)"),
        Law(name="good-set growth", lhs=r"\Delta_t \langle w_i^{(t)}, M_j\rangle \operatorname{sign} w^*_j",
            relation="eq", value=rate, conditions=(r"f \approx 0", r"i \in S_{j,\mathrm{sure}}",
                                    rf"\rho_s = \binom{{s-1}}{{(s-1)/2}} 2^{{1-s}} = {sp.latex(tie_probability(s))}",
                                    rf"s = {s}", rf"d = {d}"),
            status="derived", source=SOURCE, hypotheses=(EARLY_PHASE, ODD_SPARSITY),
            hypotheses_reading="derived here for the early phase f ≈ 0 (σ1 = 0.01/(m√d)); " + GROWTH_READING,
            words="good neurons' coordinate grows at r* = η s ρ_s/(2d) per step while f ≈ 0"),
        Law(name="linear accuracy", lhs=r"\Pr[\operatorname{sign}\langle M w^*, x\rangle = y]", relation="eq",
            value=linear_accuracy(s, d, sigma0), conditions=(rf"s = {s}", rf"d = {d}", r"|w^*_j| = 1"),
            status="derived",
            source=SOURCE, hypotheses_reading=_EXACT,
            words="accuracy of the linear model sign<Mw*, x> (exact Gaussian law)"),
        Law(name="net beats linear", lhs=r"\Pr[\operatorname{sign} f(x) = y]", relation="geq", value=SETS["linear"],
            conditions=(r"\sigma_0 \sqrt{d} \gtrsim 1", "after training"), source=SOURCE, status="conjecture",
            hypotheses=(_NOISE,),
            hypotheses_reading=("stated as the motivation of the network (linear models are not expressive enough for "
                                "non-negligible noise), without a proof or a size condition we could cite; its one "
                                "condition, the law's sigma_0 sqrt(d) >~ 1, read with constant 1"),
            words="the trained net is more accurate than the linear model sign<Mw*, x>"),
    ]
