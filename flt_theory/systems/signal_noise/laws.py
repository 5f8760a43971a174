r"""Laws of the signal-noise system: benign vs harmful overfitting of a two-layer CNN, growth of the
signal and noise coefficients, and label noise (sympy only).

Setting and notation (:mod:`.model`): :math:`x = [y\mu, \xi]`, :math:`\xi \perp \mu`,
:math:`\mathrm{SNR} = \|\mu\|/(\sigma_\xi\sqrt d)`, :math:`f = F_{+1} - F_{-1}`,
:math:`F_j = \frac1m\sum_r[\sigma(\langle w_{j,r}, y\mu\rangle) + \sigma(\langle w_{j,r},\xi\rangle)]`,
:math:`\sigma = \mathrm{ReLU}^q`, logistic loss, full-batch GD with step :math:`\eta` from
:math:`\mathcal N(0,\sigma_0^2)`, and :math:`w^t_{j,r} = w^0_{j,r} + j\gamma^t_{j,r}\mu/\|\mu\|^2 +
\sum_i\rho^t_{j,r,i}\xi_i/\|\xi_i\|^2`.

Sources: Cao, Chen, Belkin, Gu 2022 (arXiv 2202.06526) for :math:`q > 2`; Kou, Chen, Chen, Gu 2023
(arXiv 2303.04145) for ReLU; Han, Huang, Zhou, Niu, Chen, Yan, Takeda, Suzuki 2025 (arXiv 2505.18909)
for label noise. The growth laws are derived here from the GD update (:func:`signal_increment`).

Hypotheses of the theorems, and how they were established
---------------------------------------------------------
The stored full texts reachable here held only the abstracts and introductions of the three papers, not
their condition lists; the conditions below are therefore written from the papers as recalled, each
cross-checked where a check was possible, and marked where it was not. Symbols: ``sigma_xi`` is the
papers' :math:`\sigma_p`, ``sigma0`` the initialisation scale :math:`\sigma_0`, ``m`` the width, ``mu`` the
norm :math:`\|\mu\|`. Reading (every law below): hidden constants 1, polylog factors dropped, so a
condition that is only a polylog (``m, n = \tilde\Omega(1)``) holds at every point and is not encoded.

* Cao et al. 2022, Condition 4.2 (Theorems 4.3, 4.4), for :math:`q > 2` (:func:`cao_hypotheses`):
  (1) :math:`d = \tilde\Omega(m^{2\vee 4/(q-2)} n^{4\vee(2q-2)/(q-2)})` — :math:`m^4 n^4` at :math:`q = 3`;
  (3) :math:`\eta \le \tilde O(\min\{\|\mu\|^{-2}, \sigma_p^{-2}d^{-1}\})`;
  (4) :math:`\tilde O(nd^{-1/2})\min\{(\sigma_p\sqrt d)^{-1}, \|\mu\|^{-1}\} \le \sigma_0 \le
  \tilde O(m^{-2/(q-2)}n^{-[1/(q-2)]\vee 1})\min\{(\sigma_p\sqrt d)^{-1}, \|\mu\|^{-1}\}`.
  Check: at :math:`q = 3` the window (4) is non-empty iff :math:`\sqrt d \ge m^2n^2`, i.e. exactly (1) — the two
  recalled items agree with each other, which a mis-recalled exponent would break.
  Step size (3) and gradient flow: GD at :math:`\eta = c/(\sigma_p^2 d)` is the Euler scheme, with step :math:`c` in
  the natural time :math:`\tau = \eta t\sigma_p^2 d`, of one gradient flow (GF); every admissible :math:`\eta`
  lies within :math:`O(c)` of it (:mod:`flt_theory.numeric.signal_noise_flow`, measured first order), so a GF run
  (``dynamics="flow"``) is read as :math:`\eta \to 0^+` and satisfies (3) (:data:`FLOW_READING`).
* Kou et al. 2023, Condition 4.1 (Theorem 4.2) (:func:`kou_hypotheses`): :math:`d \ge \tilde\Omega(n^2)`;
  :math:`\sigma_0 \le (\max\{\sigma_p d/\sqrt n, \|\mu\|\})^{-1}`; :math:`\|\mu\|^2 \ge \sigma_p^2` (up to
  :math:`\log(n/\delta)`); :math:`n\,\mathrm{SNR}^2 = o(1)` (Theorem 4.2), read as :math:`\le 1`. NOT verified: the
  exact form of the step-size bound. Encoded is :math:`\eta \le \min\{\|\mu\|^{-2}, \sigma_p^{-2}d^{-1}\}` (the form
  of Cao et al.'s (3)); the form recalled for Kou et al. (:math:`\eta \le \min\{n/(\sigma_p^2 d),
  n^2m/(\sigma_p^2d^{3/2})\}`) is weaker at every size measured here, so "inside" is read on the stricter one.
* Han et al. 2025, Theorems 4.2 and 4.4: ReLU and :math:`n\,\mathrm{SNR}^2 = \Theta(1)` (read as
  :math:`1/4 \le n\,\mathrm{SNR}^2 \le 4`). Their condition list was NOT retrieved; encoded in its place are
  Kou et al.'s dimension and step-size conditions (:math:`d \ge n^2`, :math:`\eta \le \sigma_p^{-2}d^{-1}`), on
  whose ReLU analysis theirs builds — an assumption of this project, marked as such in each hypothesis
  (:func:`han_hypotheses`).
"""

from __future__ import annotations

import math

import sympy as sp

from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import THIS_PROJECT, Law, Source

__all__ = [
    "CAO_2022",
    "GROWTH_HYPOTHESES",
    "HAN_2025",
    "KOU_2023",
    "SYMBOLS",
    "cao_boundary",
    "cao_hypotheses",
    "growth_exponent",
    "han_hypotheses",
    "kou_collapse",
    "kou_hypotheses",
    "kou_boundary",
    "kou_collapse_variable",
    "kou_tail",
    "snr2_collapse",
    "subexponential_tail",
    "growth_slopes",
    "label_noise_rise",
    "literal_gamma_recursion",
    "logistic_slope_at_zero",
    "noise_increment",
    "noise_slope",
    "literal_slope",
    "relu_q_slope_finding",
    "signal_increment",
    "signal_slope",
    "signal_noise_laws",
    "value_in_regime",
]

CAO_2022 = Source(
    authors="Cao, Chen, Belkin, Gu", year=2022, title="Benign overfitting in two-layer convolutional neural networks",
    arxiv="2202.06526",
)
KOU_2023 = Source(
    authors="Kou, Chen, Chen, Gu", year=2023,
    title="Benign overfitting in two-layer ReLU convolutional neural networks", arxiv="2303.04145",
)
HAN_2025 = Source(
    authors="Han, Huang, Zhou, Niu, Chen, Yan, Takeda, Suzuki", year=2025,
    title="On the role of label noise in the feature learning process", arxiv="2505.18909",
)

#: Symbols of the system: samples, dimension, width m, power q, signal norm, noise scale, step, label noise.
SYMBOLS = {
    name: sp.Symbol(name, positive=True)
    for name in ("n", "d", "m", "q", "mu", "sigma_xi", "eta", "tau", "snr", "A", "xi2")
}
_n, _d, _m, _q, _mu, _sx, _eta, _tau, _snr, _A, _xi2 = (SYMBOLS[k] for k in SYMBOLS)
#: The initialisation scale sigma_0, read only by the hypotheses.
_s0 = SYMBOLS["sigma0"] = sp.Symbol("sigma0", positive=True)

#: How a step-size hypothesis reads a gradient-flow run (``dynamics="flow"``,
#: :mod:`flt_theory.numeric.signal_noise_flow`).
FLOW_READING = ("; a gradient-flow run is read as eta -> 0+ (eta = 0): the flow is the limit of GD at every admissible "
                "step, within O(eta sigma_p^2 d) of each, so it satisfies the bound")

#: How every hypothesis of this module is read (module docstring).
READING = ("constants 1, polylog factors dropped (a condition that is only a polylog, e.g. m, n = Omega~(1), "
           "holds at every point and is not encoded)")


def cao_hypotheses(q: int) -> tuple[Hypothesis, ...]:
    r"""Cao et al. 2022, Condition 4.2 for :math:`\mathrm{ReLU}^q`, :math:`q > 2` (module docstring): dimension,
    step size and the initialisation window; ``()`` for :math:`q \le 2`, where the theorem does not speak.

    >>> [h.where for h in cao_hypotheses(3)]
    ['Cao et al. 2022, Condition 4.2(1)', 'Cao et al. 2022, Condition 4.2(3)', 'Cao et al. 2022, Condition 4.2(4)']
    >>> dim = cao_hypotheses(3)[0]
    >>> dim.holds({"d": 10**5, "m": 10, "n": 16}), dim.holds({"d": 10**13, "m": 10, "n": 16})
    (False, True)
    """
    if q <= 2:
        return ()
    qq = sp.Integer(q)
    m_power, n_power = sp.Max(2, 4 / (qq - 2)), sp.Max(4, (2 * qq - 2) / (qq - 2))
    dim = _m**m_power * _n**n_power
    scale = sp.Min(1 / (_sx * sp.sqrt(_d)), 1 / _mu)
    upper = _m ** (-2 / (qq - 2)) * _n ** (-sp.Max(1 / (qq - 2), 1)) * scale
    where = "Cao et al. 2022, Condition 4.2"
    return (
        Hypothesis(text=f"dimension d >= m^{sp.sstr(m_power)} n^{sp.sstr(n_power)}", condition=_d >= dim,
                   where=f"{where}(1)"),
        Hypothesis(text="step size eta <= min(||mu||^-2, sigma_p^-2 d^-1)" + FLOW_READING,
                   condition=sp.And(_eta <= 1 / _mu**2, _eta <= 1 / (_sx**2 * _d)), where=f"{where}(3)"),
        Hypothesis(text="initialisation window n d^(-1/2) min(..) <= sigma0 <= m^(-2/(q-2)) n^(-max(1/(q-2), 1)) "
                        "min(..), min(..) = min((sigma_p sqrt(d))^-1, ||mu||^-1)",
                   condition=sp.And(_s0 >= _n / sp.sqrt(_d) * scale, _s0 <= upper), where=f"{where}(4)"),
    )


def _relu_step_and_dimension(where: str) -> tuple[Hypothesis, ...]:
    return (
        Hypothesis(text="dimension d >= n^2", condition=_d >= _n**2, where=where),
        Hypothesis(text="step size eta <= min(||mu||^-2, sigma_p^-2 d^-1) (the stricter form, module docstring)"
                        + FLOW_READING,
                   condition=sp.And(_eta <= 1 / _mu**2, _eta <= 1 / (_sx**2 * _d)), where=where),
    )


def kou_hypotheses() -> tuple[Hypothesis, ...]:
    r"""Kou et al. 2023, Condition 4.1 and the regime of Theorem 4.2 (module docstring).

    >>> len(kou_hypotheses()), kou_hypotheses()[0].holds({"d": 10**4, "n": 128})
    (5, False)
    """
    where = "Kou et al. 2023, Condition 4.1"
    return (
        *_relu_step_and_dimension(where),
        Hypothesis(text="small initialisation sigma0 <= 1/max(sigma_p d/sqrt(n), ||mu||)",
                   condition=sp.And(_s0 <= sp.sqrt(_n) / (_sx * _d), _s0 <= 1 / _mu), where=where),
        Hypothesis(text="signal norm ||mu||^2 >= sigma_p^2 (up to log(n/delta))", condition=_mu**2 >= _sx**2,
                   where=where),
        Hypothesis(text="n SNR^2 = o(1), read as n ||mu||^2/(sigma_p^2 d) <= 1", condition=_n * _mu**2 <= _sx**2 * _d,
                   where="Kou et al. 2023, Theorem 4.2"),
    )


def han_hypotheses() -> tuple[Hypothesis, ...]:
    r"""Han et al. 2025, Theorems 4.2 and 4.4: :math:`n\,\mathrm{SNR}^2 = \Theta(1)` (read as within a factor 4 of
    1), with Kou et al.'s dimension and step-size conditions in place of Han et al.'s own list, which was not
    retrieved (module docstring).

    >>> [h.holds({"n": 64, "d": 128, "mu": 2.0, "sigma_xi": 1.0, "eta": 0.5}) for h in han_hypotheses()]
    [True, False, False]
    """
    assumed = "Han et al. 2025, Condition 4.1 (not retrieved: Kou et al. 2023 Condition 4.1 assumed)"
    snr2 = _n * _mu**2 / (_sx**2 * _d)
    return (
        Hypothesis(text="n SNR^2 = Theta(1), read as 1/4 <= n SNR^2 <= 4", condition=sp.And(snr2 >= sp.Rational(1, 4),
                   snr2 <= 4), where="Han et al. 2025, Theorems 4.2 and 4.4"),
        *_relu_step_and_dimension(assumed),
    )


def logistic_slope_at_zero() -> sp.Expr:
    r""":math:`\ell'(0)` for :math:`\ell(z) = \log(1 + e^{-z})`: every output is :math:`\approx 0` in the
    early phase (small initialisation), so every sample weighs :math:`-\ell'(0) = 1/2`.

    >>> logistic_slope_at_zero()
    -1/2
    """
    z = sp.Symbol("z", real=True)
    return sp.diff(sp.log(1 + sp.exp(-z)), z).subs(z, 0)


def signal_increment(q: int | sp.Expr = _q) -> sp.Expr:
    r"""Early-phase increment of the signal overlap :math:`A = j\langle w_{j,r}, \mu\rangle` of a neuron
    with :math:`A > 0`, as a function of :math:`A` (symbol ``A``).

    Derivation. GD gives
    :math:`\Delta\gamma_{j,r} =
    -\frac{\eta\|\mu\|^2}{nm}\sum_i \ell'_i\tilde y_i y_i\sigma'(y_i\langle w_{j,r},\mu\rangle)`.
    With :math:`\xi \perp \mu`, :math:`\langle w_{j,r},\mu\rangle = \langle w^0_{j,r},\mu\rangle + j\gamma_{j,r}`, so
    :math:`\Delta A = \Delta\gamma`. For :math:`A > 0` only the samples with :math:`y_i = j` activate the
    neuron (:math:`\sigma'(y_i\langle w,\mu\rangle) = \sigma'(A)`); there are :math:`n/2` of them (balanced
    labels), of which a fraction :math:`\tau` carries a flipped label (:math:`\tilde y_i y_i = -1`). With
    :math:`\ell'_i = \ell'(0) = -1/2` and :math:`\sigma'(A) = qA^{q-1}`,

    .. math:: \Delta A = \frac{q\,\eta\|\mu\|^2 (1 - 2\tau)}{4m}\,A^{q-1}.

    For :math:`q = 1` this is the constant slope of :func:`signal_slope`; for :math:`q > 2` the tensor-power
    recursion :math:`A^{t+1} = A^t + \eta' (A^t)^{q-1}`. NOTE: the recursion holds for the overlap
    :math:`A = j\langle w^0,\mu\rangle + \gamma`, not for :math:`\gamma` alone (:math:`\gamma^0 = 0`, and for
    :math:`\gamma \ll |\langle w^0, \mu\rangle|` the increment of :math:`\gamma` does not depend on :math:`\gamma`).

    >>> signal_increment(3)
    3*A**2*eta*mu**2*(1 - 2*tau)/(4*m)
    """
    return sp.simplify(
        -_eta * _mu**2 / (_n * _m) * logistic_slope_at_zero() * (_n / 2) * q * _A ** (q - 1)
    ) * (1 - 2 * _tau)


def noise_increment(q: int | sp.Expr = _q) -> sp.Expr:
    r"""Early-phase increment of the noise overlap :math:`B = \langle w_{j,r}, \xi_i\rangle` of a neuron
    with :math:`j = \tilde y_i` and :math:`B > 0`, in terms of ``A`` :math:`\equiv B` and ``xi2`` :math:`= \|\xi_i\|^2`.

    Derivation. :math:`\Delta\rho_{j,r,i} = -\frac{\eta\|\xi_i\|^2}{nm}\ell'_i\tilde y_i j\,\sigma'(B)`, and
    :math:`\Delta B = \Delta\rho_{j,r,i} + O(\rho/\sqrt d)` (the other samples enter through
    :math:`\langle\xi_k,\xi_i\rangle/\|\xi_k\|^2 = O(d^{-1/2})`). With :math:`j\tilde y_i = 1` and :math:`\ell' = -1/2`:

    .. math:: \Delta B = \frac{q\,\eta\|\xi_i\|^2}{2nm}\,B^{q-1},\qquad \|\xi_i\|^2 \approx \sigma_\xi^2 (d - 1).

    >>> noise_increment(1)
    eta*xi2/(2*m*n)
    """
    return sp.factor(-_eta * _xi2 / (_n * _m) * logistic_slope_at_zero() * q * _A ** (q - 1))


def signal_slope() -> sp.Expr:
    r"""ReLU: the early-phase slope of :math:`\gamma_{j,r}` per step, the same for every neuron,
    :math:`\eta\|\mu\|^2(1-2\tau)/(4m)` (:func:`signal_increment` at :math:`q = 1`; a neuron with
    :math:`A < 0` is active on the other class and its :math:`\gamma` grows at the same rate while
    :math:`A` crosses zero).

    >>> signal_slope()
    eta*mu**2*(1 - 2*tau)/(4*m)
    """
    return signal_increment(1)


def noise_slope() -> sp.Expr:
    r"""ReLU: the early-phase slope of :math:`\bar\rho_{j,r,i}` (:math:`j = \tilde y_i`, neuron active on
    :math:`\xi_i`), :math:`\eta\|\xi_i\|^2/(2nm)` with :math:`\|\xi_i\|^2 = \sigma_\xi^2(d-1)` on average.

    >>> noise_slope()
    eta*sigma_xi**2*(d - 1)/(2*m*n)
    """
    return noise_increment(1).subs(_xi2, _sx**2 * (_d - 1))


#: The early-phase signal increment, one quantity for the law (a function of A) and its literal control (of gamma):
#: A = j<w^0, mu> + gamma, so the increments of A and gamma are equal.
_GROWTH_LHS = r"\gamma^{t+1} - \gamma^{t} = A^{t+1} - A^{t}"


def growth_exponent(q: int) -> Law:
    r"""The tensor-power growth law :math:`\Delta A \propto A^{q-1}` (derived in :func:`signal_increment`).

    A finding of this project: the recursion holds for the overlap :math:`A`, not for :math:`\gamma` alone,
    which is its literal reading (:func:`literal_gamma_recursion`, the negative control).

    >>> growth_exponent(3).exponent("A")
    2
    """
    return Law(
        name=f"growth exponent q={q}",
        lhs=_GROWTH_LHS,
        relation="asymp",
        value=signal_increment(q).subs(_tau, 0),
        source=THIS_PROJECT,
        status="finding",
        conditions=(rf"q = {q}", r"\text{early phase}", r"A = j\langle w_{j,r}, \mu\rangle > 0"),
        words=f"early phase: the signal overlap grows as A_(t+1) - A_t = eta' A_t^{q - 1} (tensor power, q = {q})",
        regime="before any training output leaves O(sigma0); the literal recursion for gamma alone fails (gamma_0 = 0)",
        hypotheses=cao_hypotheses(q), hypotheses_reading=READING,
    )


def cao_boundary(q: int) -> Law:
    r"""Cao et al. 2022, ReLU^q, :math:`q > 2`: benign when :math:`n\,\mathrm{SNR}^q = \tilde\Omega(1)`,
    harmful when :math:`n^{-1}\mathrm{SNR}^{-q} = \tilde\Omega(1)`, so the boundary is
    :math:`\mathrm{SNR}^* \asymp n^{-1/q}`, i.e. :math:`\log\mathrm{SNR}^* = -\frac1q\log n + c`, with no
    dependence on :math:`d` at fixed :math:`n` (up to the logarithmic factors of :math:`\tilde\Omega`).

    Where it comes from: the signal overlap and the best noise overlap of a sample grow by the tensor
    power recursions of :func:`signal_increment` and :func:`noise_increment`, from
    :math:`A^0 \sim \sigma_0\|\mu\|` and :math:`B^0 \sim \sigma_0\sigma_\xi\sqrt d`; a recursion
    :math:`x^{t+1} = x^t + c\,x^{q-1}` escapes at :math:`t \approx 1/((q-2)c\,x_0^{q-2})`, so the signal
    wins the race iff :math:`\|\mu\|^2\|\mu\|^{q-2} \gtrsim \sigma_\xi^2 d\,(\sigma_\xi\sqrt d)^{q-2}/n`,
    i.e. :math:`n\,\mathrm{SNR}^q \gtrsim 1`.

    >>> law = cao_boundary(3)
    >>> round(law.exponent("n"), 6), law.exponent("d")
    (-0.333333, 0.0)
    """
    return Law(
        name=f"ReLU^{q} boundary",
        lhs=r"\mathrm{SNR}^{*}",
        relation="asymp",
        value=_n ** sp.Rational(-1, q),
        source=CAO_2022,
        status="theorem",
        conditions=(rf"\sigma = \mathrm{{ReLU}}^{{{q}}}", r"d \gg n", r"\text{small } \sigma_0"),
        words=f"ReLU^{q}: benign iff n SNR^{q} >~ 1, boundary log SNR* = -(1/{q}) log n + c, independent of d "
              "(Cao et al. 2022, Theorems 4.3 and 4.4)",
        hypotheses=cao_hypotheses(q),
        hypotheses_reading=READING if q > 2 else "q <= 2 lies outside the theorem (q > 2): no hypotheses apply",
    )


def kou_boundary() -> Law:
    r"""Kou et al. 2023, ReLU: benign (test error :math:`\le \exp(-n\|\mu\|^4/(C\sigma_\xi^4 d))`) when
    :math:`n\|\mu\|^4 \ge C\sigma_\xi^4 d`, harmful (:math:`\ge 0.1`) when :math:`n\|\mu\|^4 \le C'\sigma_\xi^4 d`,
    in the regime :math:`n\,\mathrm{SNR}^2 = o(1)`. The boundary
    :math:`\|\mu\|^{*4} \asymp \sigma_\xi^4 d/n`, i.e. :math:`\mathrm{SNR}^* \asymp (nd)^{-1/4}`: slope
    :math:`-1/4` in :math:`\log n`.

    Where it comes from (:func:`signal_slope`, :func:`noise_slope`): both coefficients grow linearly,
    :math:`\gamma/\bar\rho \approx n\|\mu\|^2/(2\sigma_\xi^2 d)`; on a fresh test point the memorised noise
    contributes :math:`\approx \bar\rho\sqrt{n}/\sqrt d` and the signal :math:`\gamma`, so the test margin
    over its spread is :math:`\propto \sqrt{n}\|\mu\|^2/(\sigma_\xi^2\sqrt d)`.

    >>> kou_boundary().exponent("n"), kou_boundary().exponent("d")
    (-0.25, -0.25)
    """
    return Law(
        name="ReLU boundary",
        lhs=r"\mathrm{SNR}^{*}",
        relation="asymp",
        value=(_n * _d) ** sp.Rational(-1, 4),
        source=KOU_2023,
        status="theorem",
        conditions=(r"\sigma = \mathrm{ReLU}", r"n\,\mathrm{SNR}^2 = o(1)", r"\text{small } \sigma_0"),
        words="ReLU: benign iff n ||mu||^4 >~ sigma_xi^4 d; boundary SNR* ~ (n d)^(-1/4), slope -1/4 in log n "
              "(Kou et al. 2023, Theorem 4.2)",
        hypotheses=kou_hypotheses(), hypotheses_reading=READING + "; o(1) read as <= 1",
    )


def kou_collapse() -> Law:
    r"""The whole ReLU test-error curve as a function of :math:`X = n\|\mu\|^4/(\sigma_\xi^4 d)` alone — derived in
    this project from Kou et al. 2023's Theorem 4.2, which proves only the two bounds (benign :math:`\le e^{-X/C}` for
    :math:`X \ge C_1`, harmful :math:`\ge 0.1` for :math:`X \le C_3`), not the collapse of the curve between and
    beyond them; its level sets are :math:`\mathrm{SNR}^* \asymp (nd)^{-1/4}` (:func:`kou_boundary`'s value).

    >>> kou_collapse().status, kou_collapse().exponent("n")
    ('derived', -0.25)
    """
    return kou_boundary().replace(
        name="ReLU test-error collapse", status="derived",
        words="ReLU: the test error is a function of X = n ||mu||^4/(sigma_xi^4 d) alone (derived here from the bounds "
              "of Kou et al. 2023, Theorem 4.2): every level set has SNR* ~ (n d)^(-1/4)",
    )


def kou_collapse_variable() -> sp.Expr:
    r"""The variable the ReLU test error depends on alone (Kou et al. 2023): :math:`n\|\mu\|^4/(\sigma_\xi^4 d)`.

    >>> kou_collapse_variable()
    mu**4*n/(d*sigma_xi**4)
    """
    return _n * _mu**4 / (_sx**4 * _d)


#: Kou et al.'s collapse variable :math:`X = n\|\mu\|^4/(\sigma_\xi^4 d)` as one symbol, and the tail's constant.
_X, _C = sp.Symbol("X", positive=True), sp.Symbol("C", positive=True)
_TAIL_LHS = r"-\log\mathrm{err} - \tfrac{1}{2}\log X"


def kou_tail() -> Law:
    r"""The exponential tail of the ReLU test error in :math:`X = n\|\mu\|^4/(\sigma_\xi^4 d)` (Kou et al. 2023,
    Theorem 4.2, proves the bound :math:`\mathrm{err} \le \exp(-X/C)` when :math:`X \ge C`, not this form: status
    ``derived``), with its polynomial prefactor derived here:
    :math:`\mathrm{err} = K X^{-1/2} e^{-X/C}(1 + O(1/X))`, so :math:`L(X) = -\log\mathrm{err} - \tfrac12\log X
    = X/C + O(1)` grows like :math:`X^1`.

    Derivation. After training, a fresh test point with :math:`y = +1` is misclassified iff the noise output
    :math:`N = \frac1m\sum_r[\sigma(\langle w_{+1,r},\xi\rangle) - \sigma(\langle w_{-1,r},\xi\rangle)]` is below
    :math:`-S`, :math:`S \approx \gamma` the signal margin. :math:`(\langle w_a, \xi\rangle)_a` is Gaussian with
    covariance :math:`\sigma_\xi^2 G`, :math:`G` the Gram matrix of the filters, whose scale is
    :math:`\bar\rho^2 n/(\sigma_\xi^2 d)`; both coefficients grow linearly with
    :math:`\gamma/\bar\rho \approx n\|\mu\|^2/(2\sigma_\xi^2 d)` (:func:`kou_boundary`), so the margin over the
    spread is :math:`t \propto \sqrt X`. :math:`N` is piecewise linear in the Gaussian vector, so the event
    :math:`\{N \le -S\}` is bounded by a piecewise-linear surface which, at its most likely point :math:`z^*` (the
    set of active filters fixed), is generically one hyperplane at Mahalanobis distance :math:`t' \propto t`; hence
    :math:`P = \Phi(-t')(1 + O(t'^{-2}))` with :math:`t'^2 = 2X/C`, and the Gaussian tail
    :math:`\Phi(-t) = \varphi(t)/t\,(1 + O(t^{-2}))` gives the prefactor :math:`X^{-1/2}` and the relative
    correction :math:`O(1/X)` (with :math:`\Phi(-t) = \varphi(t)/t\,(1 - t^{-2} + \dots)`: a factor
    :math:`1 - c/X`, :math:`c > 0`). Hence the local power of :math:`-\log\mathrm{err}` in :math:`X` is below 1 (the
    :math:`\frac12\log X`) and that of :math:`L` above 1 (the :math:`-c/X`), both converging to 1. Measured (ReLU,
    :math:`n = 16, 64`, :math:`d = 10^4, 10^6`, 8 seeds, windows ending at :math:`X = 6.4, 12.8, 25.6`): raw 0.84,
    0.90, 0.96; corrected 1.18, 1.07, 1.04. The wrong law
    :func:`subexponential_tail` predicts 1/2.

    >>> kou_tail().exponent("X"), subexponential_tail().exponent("X")
    (1, 0.5)
    """
    return Law(
        name="ReLU test-error tail",
        lhs=_TAIL_LHS,
        relation="asymp",
        value=_X / _C,
        source=KOU_2023,
        status="derived",
        conditions=(r"\sigma = \mathrm{ReLU}", r"X = n\|\mu\|^4/(\sigma_\xi^4 d) \gg 1", r"\text{small } \sigma_0"),
        hypotheses=kou_hypotheses(), hypotheses_reading=READING + "; o(1) read as <= 1",
        words=("ReLU: the test error decays exponentially in X = n ||mu||^4/(sigma_xi^4 d), err = X^(-1/2) exp(-X/C) "
               "(1 + O(1/X))"),
    )


def subexponential_tail() -> Law:
    r"""A deliberately wrong tail (the negative control of :func:`kou_tail`): the error decays exponentially in the
    margin-to-spread ratio :math:`\sqrt X` instead of its square, :math:`L(X) \asymp \sqrt X`.

    >>> subexponential_tail().exponent("X")
    0.5
    """
    return kou_tail().replace(
        name="sub-exponential tail", value=sp.sqrt(_X) / _C, source=THIS_PROJECT, status="conjecture",
        words=("wrong law: the test error decays like exp(-c sqrt(X)), exponentially in the margin-to-spread ratio "
               "sqrt(X)"),
    )


def snr2_collapse() -> Law:
    r"""A deliberately wrong collapse variable (the negative control of the ReLU data collapse): the test error
    as a function of :math:`n\,\mathrm{SNR}^2` alone — Cao et al.'s :math:`n\,\mathrm{SNR}^q` read at :math:`q = 2`,
    outside their theorem (:math:`q > 2`) — so every level set has :math:`\mathrm{SNR}^* \propto n^{-1/2}`,
    independent of :math:`d`.

    >>> snr2_collapse().exponent("n"), snr2_collapse().exponent("d")
    (-0.5, 0.0)
    """
    return cao_boundary(2).replace(
        name="collapse on n SNR^2", status="conjecture", conditions=(r"\sigma = \mathrm{ReLU}",), hypotheses=(),
        words="wrong law: the ReLU test error is a function of n SNR^2 alone (SNR* ~ n^(-1/2) at every level, no d)",
    )


def label_noise_rise(max_d_over_n: int | sp.Expr | None = None, max_n_snr2: int | sp.Expr | None = None) -> Law:
    r"""Han et al. 2025, ReLU, :math:`n\,\mathrm{SNR}^2 = \Theta(1)`, label noise :math:`\tau`: stage I fits the
    clean samples and not the flipped ones, with a small (early-stopped) test error; stage II memorises the
    flipped samples and the test error rises to at least :math:`\tau/2`.

    With ``max_d_over_n`` and ``max_n_snr2`` the value is restricted to the regime this project finds the
    rise in (``Piecewise``: the law predicts nothing — ``nan`` — outside it): ReLU, :math:`n = 64`,
    :math:`\tau = 0.2`, :math:`m = 10`, :math:`n\,\mathrm{SNR}^2 = 2` gives a final test error
    :math:`\approx 0.14 > \tau/2` at :math:`d/n = 2`, :math:`\approx 0.07` at :math:`d/n = 4` (a rise that stays
    below :math:`\tau/2`), :math:`\approx 0.03` at :math:`d/n = 8` and none at :math:`d/n = 32`; at
    :math:`d/n = 2` the final error falls below :math:`\tau/2` again for :math:`n\,\mathrm{SNR}^2 = 4`.

    >>> label_noise_rise().number(tau=0.2)
    0.1
    >>> law = label_noise_rise(2, 2)
    >>> law.number(tau=0.2, d=128, n=64, snr=0.17), value_in_regime(law, tau=0.2, d=512, n=64, snr=0.1)
    (0.1, nan)
    """
    value = _tau / 2
    regime = ""
    if max_d_over_n is not None or max_n_snr2 is not None:
        condition = sp.true
        if max_d_over_n is not None:
            condition = condition & (_d / _n <= max_d_over_n)
        if max_n_snr2 is not None:
            condition = condition & (_n * _snr**2 <= max_n_snr2)
        value = sp.Piecewise((value, condition))
        regime = (f"measured: the rise to tau/2 happens only for d/n <= {max_d_over_n} and n SNR^2 <= {max_n_snr2} "
                  "(n = 64, tau = 0.2, m = 10); elsewhere the claim is out of its regime")
    return Law(
        name="label-noise rise",
        lhs=r"L^{0-1}_{\mathcal D}(W^{(t^*)})",
        relation="geq",
        value=value,
        source=HAN_2025,
        status="theorem",
        conditions=(r"\sigma = \mathrm{ReLU}", r"n\,\mathrm{SNR}^2 = \Theta(1)"),
        words="label noise tau: after memorising the flipped samples the test error is >= tau/2 "
              "(Han et al. 2025, Theorem 4.4)",
        regime=regime,
        hypotheses=han_hypotheses(), hypotheses_reading=READING + "; Theta(1) read as within a factor 4 of 1",
    )


def value_in_regime(law: Law, **values: float) -> float:
    """The law's value at ``values`` (symbols by name), ``nan`` where a ``Piecewise`` value leaves it undefined
    (out of the law's regime).

    >>> value_in_regime(label_noise_rise(2, 2), tau=0.2, d=128, n=64, snr=0.25)
    nan
    """
    expr = sp.sympify(law.value)
    out = expr.subs({s: values[s.name] for s in expr.free_symbols if s.name in values})
    return math.nan if out is sp.nan else law.replace(value=out).number()


#: The quantity of the ReLU^q slope finding and of its literal control: the 95% interval of the boundary's slope
#: in log n.
_SLOPE_LHS = r"\mathrm{CI}_{95\%}\left(\partial\log\mathrm{SNR}^{*}/\partial\log n\right)"


def relu_q_slope_finding(q: int) -> Law:
    r"""Finding of this project: the ReLU^q boundary slope :math:`\partial\log\mathrm{SNR}^*/\partial\log n`
    (:math:`q = 3`, :math:`m = 10`) lies strictly between :math:`-1/q` (Cao et al. 2022, :func:`cao_boundary`, read
    literally: :func:`literal_slope`) and :math:`-1/(q+1)` — its 95% interval is inside the open interval — and it
    holds INSIDE Cao et al.'s Condition 4.2.

    Inside (gradient flow, read as inside the step bound (3): :data:`FLOW_READING`; :math:`d = 16m^4n^4`;
    :math:`\sigma_0\sqrt d = 1/(2m^2n)` in the window (4); level 0.25; 32 seeds; :math:`n = 4, 8, 16, 40, 80, 128`):
    slope :math:`-0.286\ [-0.302, -0.270]`; local slopes :math:`-0.345, -0.225, -0.296, -0.287, -0.308` (the
    last :math:`[-0.348, -0.267]`, 80→128; intervals widened by the bisection's resolution).
    So :math:`n\,\mathrm{SNR}^{*3}` grows over the 1.5 decades (0.85 → 1.32, more
    slowly at the top): the literal :math:`n\,\mathrm{SNR}^q \asymp 1` fails at these sizes, which the theorem's
    :math:`\tilde\Omega` (polylog factors) allows — a statement about the constants-1 reading, not a contradiction of
    the theorem; extrapolated, the limit :math:`-0.296\ [-0.364, -0.232]` (the bisection's resolution counted)
    excludes neither :math:`-1/3` nor :math:`-1/4`.

    First measured OUTSIDE Condition 4.2 (GD at :math:`\eta = 0.3\,nm/d`, :math:`\sigma_0\sqrt d = 0.01`,
    :math:`d = 10^5`, :math:`n = 16..256`; the claim's ``small`` scale): :math:`-0.29`, local slopes :math:`-0.306,
    -0.290, -0.281, -0.302` at :math:`n \approx 23, 45, 91, 181` (8 seeds). The inside re-measurement says the
    deviation was not an effect of the violated hypotheses.

    >>> law = relu_q_slope_finding(3)
    >>> law.value, law.latex().split(r"\subseteq")[1].strip()  # doctest: +NORMALIZE_WHITESPACE
    (Interval.open(-1/3, -1/4), '\\left(- \\frac{1}{3}, - \\frac{1}{4}\\right) \\quad
    (\\sigma = \\mathrm{ReLU}^{3},\\ \\text{Condition 4.2 (gradient flow)})')
    """
    return Law(
        name=f"ReLU^{q} boundary slope (finding)",
        lhs=_SLOPE_LHS,
        relation="in",
        value=sp.Interval.open(sp.Rational(-1, q), sp.Rational(-1, q + 1)),
        source=THIS_PROJECT,
        status="finding",
        conditions=(rf"\sigma = \mathrm{{ReLU}}^{{{q}}}", r"\text{Condition 4.2 (gradient flow)}"),
        words=f"ReLU^{q}: the boundary slope in log n lies strictly between -1/{q} and -1/{q + 1} "
              "(n SNR*^q grows with n: a log factor hidden in tilde-Omega), inside Cao et al. 2022's Condition 4.2",
        regime="inside: n = 4..128, d = 16 m^4 n^4, sigma0 sqrt(d) = 1/(2 m^2 n), gradient flow (paper); outside: "
               "n = 16..256, d = 1e5, GD (small)",
        hypotheses=cao_hypotheses(q), hypotheses_reading=READING,
    )


def literal_slope(q: int) -> Law:
    r"""The literal statement the finding :func:`relu_q_slope_finding` corrects, on the same quantity: the 95%
    interval of the boundary's slope in :math:`\log n` contains Cao et al. 2022's :math:`-1/q` (Theorems 4.3, 4.4:
    :math:`n\,\mathrm{SNR}^q \asymp 1` at the boundary, so :math:`\|\mu\|^* \propto n^{-1/q}\sigma_p\sqrt d`), tested
    with no slack but the bisection's resolution (:func:`~flt_theory.compare.fit_resolution_bound`).

    >>> literal_slope(3).value, literal_slope(3).lhs == relu_q_slope_finding(3).lhs
    (-1/3, True)
    """
    return relu_q_slope_finding(q).replace(
        name=f"ReLU^{q} boundary slope -1/{q} (literal)", relation="approx", value=sp.Rational(-1, q), source=CAO_2022,
        status="theorem", regime="",
        words=f"literal statement: the ReLU^{q} boundary slope in log n is -1/{q} "
              "(Cao et al. 2022, Theorems 4.3 and 4.4)",
    )


_GROWTH_WHERE = "derived here, flt_theory.systems.signal_noise.laws: signal_increment and noise_increment (docstrings)"
#: What the derivation of the ReLU growth slopes uses (:func:`signal_increment`, :func:`noise_increment`).
GROWTH_HYPOTHESES = (
    Hypothesis(text="ReLU: q = 1 (sigma'(A) = 1 on an active neuron: a constant slope)", condition=sp.Eq(_q, 1),
               where=_GROWTH_WHERE + " at q = 1"),
    Hypothesis(text="the other samples' cross terms, n O(d^(-1/2)) in all, are small: d >= n^2 (constant 1)",
               condition=_d >= _n**2, where=_GROWTH_WHERE + ": Delta B = Delta rho + O(rho/sqrt(d)) per other sample"),
    Hypothesis(text="the early phase starts at |f| <= 0.05: initial outputs sigma0 (sigma_xi sqrt(d) + ||mu||) <= 0.05",
               condition=_s0 * (_sx * sp.sqrt(_d) + _mu) <= sp.Rational(1, 20),
               where=_GROWTH_WHERE + ": every sample weighs -l'(0) = 1/2 (small initialisation)"),
)


def growth_slopes() -> Law:
    r"""ReLU, early phase: the per-step slopes of :math:`\max_{j,r}\gamma_{j,r}` and of :math:`\bar\rho_{j,r,i}`
    (:func:`signal_slope`, :func:`noise_slope`), with the :math:`(1 - 2\tau)` factor of label noise on the
    signal (flipped samples pull :math:`\gamma` the other way; the noise coefficient of a flipped sample
    grows for the neurons of its observed label at the same rate).

    >>> growth_slopes().numbers(eta=1.0, mu=2.0, m=4, tau=0.25, sigma_xi=1.0, d=101, n=10)
    (0.125, 1.25)
    """
    return Law(
        name="ReLU growth slopes",
        lhs=r"\left(\gamma^{t+1} - \gamma^{t},\ \bar\rho_{i}^{t+1} - \bar\rho_{i}^{t}\right)",
        relation="approx",
        value=(signal_slope(), noise_slope()),
        source=KOU_2023,
        status="derived",
        conditions=(r"\sigma = \mathrm{ReLU}", r"\text{early phase: } |f(x_i)| \leq 0.05"),
        words=("ReLU early phase: gamma grows by eta ||mu||^2 (1 - 2 tau)/(4m), rho-bar by eta sigma_xi^2 (d-1)/(2nm) "
               "per step"),
        hypotheses=GROWTH_HYPOTHESES,
        hypotheses_reading=("derived here from the GD update with -l'(0) = 1/2: the conditions the derivation uses, "
                            "ReLU exactly, d >= n^2 with constant 1, and an initialisation whose outputs start inside "
                            "the early phase |f(x_i)| <= 0.05 (bounded generously by sigma0 times the patch norms), "
                            "which the measurement then enforces step by step; no source hypotheses apply"),
    )


def literal_gamma_recursion(q: int) -> Law:
    r"""The literal reading of the tensor-power recursion, on :math:`\gamma` alone:
    :math:`\gamma^{t+1} - \gamma^t \asymp (\gamma^t)^{q-1}` — false in the early phase (:math:`\gamma^0 = 0` and
    :math:`\Delta\gamma = \Delta A` depends on :math:`A = j\langle w^0,\mu\rangle + \gamma`, not on :math:`\gamma`).

    >>> literal_gamma_recursion(3).exponent("gamma")
    2
    """
    gamma = sp.Symbol("gamma", positive=True)
    law = growth_exponent(q)
    return law.replace(
        name=f"literal recursion on gamma, q={q}",
        value=sp.sympify(law.value).subs(_A, gamma), source=CAO_2022, status="derived",
        conditions=(rf"q = {q}", r"\text{early phase}"), regime="",
        words=f"literal tensor-power recursion on gamma alone: gamma_(t+1) - gamma_t ~ gamma_t^{q - 1}",
    )


def signal_noise_laws(q: int = 3) -> list[Law]:
    """Every law of the system for ReLU^q (``q > 2``) and ReLU.

    >>> [law.name for law in signal_noise_laws(3)]
    ['ReLU^3 boundary', 'ReLU boundary', 'growth exponent q=3', 'label-noise rise']
    """
    return [cao_boundary(q), kou_boundary(), growth_exponent(q), label_noise_rise()]
