r"""Laws of spherical online SGD with mini-batches and with repeated data (sympy only).

Sources. Arnaboldi, Dandi, Krzakala, Loureiro, Pesce, Stephan 2024, "Online learning and information exponents: on
the importance of batch size, and time/complexity tradeoffs", arXiv 2406.02157 (ICML 2024): batches of
:math:`n_b` fresh samples, mean gradient, :math:`\gamma \propto n_b\,d^{-\max(1,\ell/2)}`; Theorem 1 (plain
projected SGD, square loss) needs :math:`\gamma \lesssim 1`, so the iterations stop falling past
:math:`n_b \asymp d^{\ell/2}`; Theorem 2 (correlation loss) allows :math:`\gamma` up to
:math:`\min(n_b d^{-\max(1, \ell/2)}, \sqrt{n_b/d})` and keeps :math:`T \asymp d^{\ell-1}/n_b` up to
:math:`n_b \asymp d^{\ell-1}`. Arnaboldi, Dandi, Krzakala, Pesce, Stephan 2024, "Repetita iuvant: data repetition
allows SGD to learn high-dimensional multi-index functions", arXiv 2405.15459: a second look at each sample (their
theorem: an extragradient step :math:`\rho = \rho_0/d`, :math:`\gamma = \gamma_0/d`) makes the time that of the
generative exponent :math:`k^*`: :math:`O(d)` at :math:`k^* = 1`, :math:`O(d\log^2 d)` at :math:`k^* = 2`.

The algorithm simulated (:mod:`.model`) is the SPHERICAL gradient with a retraction, not the Euclidean gradient of
Theorem 1, and the batch laws here are derived for it (this project's derivation; ``derivations/
derive_online_sgd_batch.py`` checks each step):

1. **Iterations below saturation.** With :math:`x = m\sqrt d` and :math:`\eta = \tilde\eta\,n_b\,d^{-\max(1,k/2)}`,
   one step of the reduced chain moves :math:`x` by a drift of order :math:`\tilde\eta\,n_b\,d^{-\max(k-1, 1)}`
   (the population gradient) minus the retraction's contraction :math:`\tfrac12\eta^2 (d/n_b)\mathbb E[c^2] x` —
   of the SAME order, since the batch mean divides the gradient's variance by :math:`n_b` — plus a martingale
   increment of variance :math:`\eta^2 d\,\mathbb E[c^2 z_1^2]/n_b`, again :math:`\propto n_b d^{-\max(k-1,1)}`.
   In the time :math:`t = T\,n_b\,d^{-\max(k-1, 1)}` the chain is therefore the same diffusion for every
   :math:`n_b`: the iterations are the one-pass samples divided by :math:`n_b`, :math:`T \asymp
   d\log d/n_b` at :math:`k = 2`, :math:`d^{k-1}/n_b` at :math:`k \ge 3`, and the total samples :math:`T n_b` do
   not change. The argument needs the step in :math:`t` to vanish, :math:`n_b \ll d^{\max(k-1, 1)}`, and the move
   of one step to be small: with :math:`\|g\| \approx (d\,\mathbb E[c^2]/n_b)^{1/2}`,
   :math:`\eta\|g\| \approx \tilde\eta\,(n_b\,\mathbb E[c^2]\,d^{-\max(k-1,1)})^{1/2} \ll 1` at :math:`k \ge 2`:
   the saturation batch :math:`d^{\max(k-1,1)}` of Theorem 2, for either loss. (At :math:`k = 1` the drift of
   :math:`m` per step is :math:`\propto n_b/d`, of :math:`x` :math:`\propto n_b d^{-1/2}`.) Past the wall
   :math:`d^{k/2}` the step :math:`\eta = \tilde\eta\,d^{\mu - k/2}` itself grows, and :math:`\eta\,\phi'(m)
   \ll 1` fails once :math:`m \gtrsim d^{-(\mu - k/2)/(k-2)}`: the last steps of the run are large, but the
   escape from :math:`d^{-1/2}`, where the expansion holds, takes the time that the law counts.
2. **Past Theorem 1's wall.** Between :math:`d^{k/2}` and :math:`d^{k-1}` (:math:`k \ge 3`) step 1 still holds
   for the correlation loss (Theorem 2) and, by the same argument, for the square loss with the spherical gradient
   (its retraction has no term :math:`\gamma\langle g, w\rangle`, the random weight decay that makes Theorem 1's
   :math:`\gamma` stop at order one; the paper's appendix: spherical SGD "behaves like Correlation Loss SGD" — not
   measured here: the square loss's :math:`\mathbb E[c^2]` is 32 times larger for :math:`\mathrm{He}_3`).
   Correlation loss, :math:`\mathrm{He}_3`, :math:`n_b = d^{7/4}`: :math:`T \asymp d^{2 - 7/4} = d^{1/4}`, where
   saturating at the wall as Theorem 1's square loss does would give :math:`d^{k/2-1} = d^{1/2}`.
3. **Saturation.** Past :math:`n_b \asymp d^{\max(k-1,1)}` one step is a power-iteration step:
   :math:`w' \approx -g/\|g\|` with :math:`g` = population gradient :math:`+` noise of norm
   :math:`(d\,\mathbb E[c^2]/n_b)^{1/2}`. For :math:`\mathrm{He}_2` (:math:`\phi'(m) = 4m`, :math:`\mathbb E[c^2]
   = 8` at :math:`m = 0`) :math:`m' \approx 4m/(16m^2 + 8d/n_b)^{1/2}`: at :math:`n_b = d^{\mu}`,
   :math:`\mu > 1`, each step multiplies :math:`m` by about :math:`\sqrt2\,d^{(\mu-1)/2}`, so the overlap goes
   from :math:`d^{-1/2}` to 1/2 in about :math:`1/(\mu - 1)` iterations whatever :math:`d`: :math:`T \asymp 1`,
   and the total samples :math:`T n_b \asymp n_b` grow past the one-pass :math:`d\log d`.
4. **Two passes on each sample** (:math:`n_b = 1`, :math:`\eta = \tilde\eta/d`, correlation loss). After the
   first step the pre-activation of the same sample is :math:`u' \approx u + \tilde\eta\,y\,\sigma'(u)` (the
   step moves :math:`w` by :math:`\eta y\sigma'(u)\,x` and :math:`\|x\|^2 \approx d`), so the second gradient
   reads the label through :math:`y\,\sigma'(u + \tilde\eta y\sigma'(u))`: a nonlinear transform of :math:`y`,
   whose first non-zero correlation with :math:`\mathrm{He}_j(z_1)` sets the exponent — the generative exponent
   :math:`k^*` of Damian, Pillaud-Vivien, Lee, Bruna 2024 (arXiv 2403.05529) when the transform is rich enough.
   The samples to weak recovery then follow the one-pass law of :math:`k^*`: :math:`d` at :math:`k^* = 1`,
   :math:`d \log d` at :math:`k^* = 2` (with :math:`\gamma = \gamma_0/d`; the theorem's extra log comes with its
   :math:`\gamma_0/(d\log d)`). :math:`\mathrm{He}_2` has :math:`k^* = 2`: a second pass cannot beat
   :math:`d\log d`.
"""

from __future__ import annotations

import sympy as sp

from ...errors import InvalidParameterError
from ...symbolic.hermite import gaussian_moment
from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source
from ...symbolic.target import parse_link
from .laws import HYPOTHESES, OVERLAP0, D, link_exponent, step_hypothesis, time_value
from .stall import ETA_TILDE

__all__ = ["ADKLPS", "ADKPS", "BATCH", "batch_iterations_law", "fixed_batch_iterations_law",
           "iterations_without_batch_gain_law", "repeated_samples_law", "saturated_iterations_law", "saturation_power",
           "second_pass_equator_drift"]

ADKLPS = Source(authors="Arnaboldi, Dandi, Krzakala, Loureiro, Pesce, Stephan", year=2024,
                title="Online learning and information exponents: on the importance of batch size, and "
                      "time/complexity tradeoffs", arxiv="2406.02157")
ADKPS = Source(authors="Arnaboldi, Dandi, Krzakala, Pesce, Stephan", year=2024,
               title="Repetita iuvant: data repetition allows SGD to learn high-dimensional multi-index functions",
               arxiv="2405.15459")

#: :math:`n_b`, the fresh samples of one gradient step (a point's ``batch``).
BATCH = sp.Symbol("batch", positive=True)

_READING = ("constants 1: m0√d in [1/4, 4], d ≥ 32, n_b compared with d^μ as written; '≍' read as the exponent of "
            "the mean over seeds in d, decided in the limit d → ∞ from the effective exponents along the ladder")


def saturation_power(k: int) -> int:
    r"""The power of the saturation batch :math:`d^{\max(k-1,1)}` (module docstring, step 1; Theorem 2 of
    Arnaboldi et al. 2024a).

    >>> saturation_power(2), saturation_power(3)
    (1, 2)
    """
    return max(k - 1, 1)


def _iterations(**fields) -> Law:
    r"""A law of the iterations (gradient steps) to weak recovery."""
    return Law(lhs=r"T_{\mathrm{wr}}", relation="asymp", **fields)


def _batch_condition(k: int, mu: sp.Rational) -> str:
    return rf"n_b = d^{{{sp.latex(mu)}}},\ \eta = \tilde\eta\, n_b\, d^{{-{sp.latex(sp.Max(1, sp.Rational(k, 2)))}}}"


def _mu_hypothesis(low: sp.Expr | None, high: sp.Expr | None, text: str, where: str) -> Hypothesis:
    """``low <= batch <= high`` (either side optional; ``low`` strict) as a hypothesis."""
    parts = [c for c in ((BATCH > low) if low is not None else None, (BATCH <= high) if high is not None else None)
             if c is not None]
    return Hypothesis(text=text, condition=sp.And(*parts), where=where)


def _scaling_hypothesis(mu: sp.Rational) -> Hypothesis:
    r"""The point's batch is the law's :math:`n_b = d^{\mu}` (a rounded one: :math:`|\log n_b/\log d - \mu| \le
    0.02`): the law is about that scaling, not about any batch below (or above) saturation."""
    return Hypothesis(text=f"batch n_b = d^({mu}) (read as |log n_b / log d − {mu}| ≤ 0.02)",
                      condition=sp.Abs(sp.log(BATCH) / sp.log(D) - mu) <= sp.Rational(1, 50),
                      latex=rf"n_b = d^{{{sp.latex(mu)}}}", where="the law's batch scaling")


def batch_iterations_law(link: str, mu: sp.Rational, *, loss: str = "correlation") -> Law:
    r"""Below saturation (module docstring, step 1): :math:`T \asymp \mathrm{time}_k(d)/n_b` iterations at
    :math:`n_b = d^{\mu}`, :math:`\mu < \max(k-1, 1)` — the one-pass samples, unchanged, spread over
    :math:`n_b`-sample steps.

    >>> batch_iterations_law("He2(z)", sp.Rational(1, 2)).value
    sqrt(d)*log(d)
    >>> batch_iterations_law("He3(z)", sp.Rational(7, 4)).value
    d**(1/4)
    """
    k = link_exponent(link)
    value = sp.powsimp(time_value(k) / D**mu)
    hypotheses = [_mu_hypothesis(None, D ** saturation_power(k),
                                 f"batch below saturation, n_b ≤ d^{saturation_power(k)} (read with constant 1)",
                                 "Theorem 2 (n_b = O(d^(ℓ−1))); this project's derivation, step 1"),
                  _scaling_hypothesis(mu), HYPOTHESES["start"], HYPOTHESES["high dimension"]]
    if k >= 3:
        hypotheses.append(Hypothesis(
            text="the deterministic escape from m0 = a/√d needs a > 3η̃ (correlation loss, He3: the retraction's "
                 "fixed point x_c = 3η̃)", condition=OVERLAP0 > 3 * ETA_TILDE,
            where="this project's derivation (the drift 18η̃x² − 54η̃²x of x = m√d)"))
    else:
        hypotheses.append(step_hypothesis(link))
    wall = k >= 3 and mu > sp.Rational(k, 2)
    return _iterations(
        name=f"batch iterations k={k}, n_b = d^({mu})", value=value,
        conditions=(_batch_condition(k, mu), r"m_0 \asymp d^{-1/2}", f"k = {k}", rf"\text{{{loss} loss}}"),
        source=ADKLPS, status="theorem",
        regime=f"g = σ = {link}, spherical online SGD, fresh batches of n_b = d^({mu}) samples, mean gradient",
        words=(f"with batches of n_b = d^({mu}) fresh samples and η ∝ n_b, the iterations to overlap 1/2 are the "
               f"one-pass samples over n_b: T ≍ {value}" + (" — past Theorem 1's wall n_b = d^(ℓ/2), which the "
                                                            "spherical gradient does not have" if wall else "")),
        # (the words are kept as recorded: with the correlation loss the claim checks Theorem 2; step 2 above)
        hypotheses=tuple(hypotheses), hypotheses_reading=_READING)


def iterations_without_batch_gain_law(link: str, mu: sp.Rational) -> Law:
    r"""The control of :func:`batch_iterations_law`: the batch does not shorten the run, :math:`T \asymp
    \mathrm{time}_k(d)` iterations (Ben Arous et al. 2021's samples, one per step).

    >>> iterations_without_batch_gain_law("He2(z)", sp.Rational(1, 2)).value
    d*log(d)
    """
    k = link_exponent(link)
    return batch_iterations_law(link, mu).replace(
        name="no gain from the batch", value=time_value(k),
        words=f"batches do not shorten the run: T ≍ {time_value(k)} iterations, as with one sample per step")


def saturated_iterations_law(link: str, mu: sp.Rational) -> Law:
    r"""Past saturation (module docstring, step 3): :math:`T \asymp 1` iterations at :math:`n_b = d^{\mu}`,
    :math:`\mu > \max(k-1, 1)`; the total samples :math:`T n_b \asymp n_b` exceed the one-pass time.

    >>> saturated_iterations_law("He2(z)", sp.Rational(5, 4)).value
    1
    """
    k = link_exponent(link)
    return _iterations(
        name=f"saturated batch iterations k={k}, n_b = d^({mu})", value=sp.Integer(1),
        conditions=(_batch_condition(k, mu), r"m_0 \asymp d^{-1/2}", f"k = {k}"), source=ADKLPS, status="derived",
        regime=f"g = σ = {link}, spherical online SGD, fresh batches of n_b = d^({mu}) samples, mean gradient",
        words=(f"past the saturation batch d^{saturation_power(k)}, batches of n_b = d^({mu}) reach overlap 1/2 in a "
               f"bounded number of iterations (about 1/(μ − 1) power-iteration steps): T ≍ 1, so the total samples "
               f"T n_b ≍ d^({mu}) exceed the one-pass {time_value(k)}"),
        hypotheses=(_mu_hypothesis(D ** saturation_power(k), None,
                                   f"batch past saturation, n_b > d^{saturation_power(k)} (read with constant 1; at "
                                   "n_b = d the growth per step is a constant and T ≍ log d)",
                                   "Theorem 2's range n_b = O(d^(ℓ−1)); this project's derivation, step 3"),
                    _scaling_hypothesis(mu), HYPOTHESES["start"], HYPOTHESES["high dimension"]),
        hypotheses_reading=_READING)


def repeated_samples_law(link: str, k_star: int, *, passes: int = 2) -> Law:
    r"""Two (or more) passes on each sample (module docstring, step 4): the samples to weak recovery follow the
    one-pass law of the generative exponent ``k_star``, with :math:`\eta = \tilde\eta/d`.

    >>> repeated_samples_law("He2(z)", 2).value
    d*log(d)
    """
    k = link_exponent(link)
    return Law(lhs=r"n_{\mathrm{wr}}", relation="asymp", name=f"repeated-data weak recovery time k*={k_star}",
               value=time_value(k_star),
               conditions=(rf"{passes}\ \text{{steps per sample}}", r"\eta = \tilde\eta/d", r"m_0 \asymp d^{-1/2}",
                           f"k = {k}", f"k^* = {k_star}"),
               source=ADKPS, status="conjecture",
               regime=(f"g = σ = {link}, spherical online SGD, {passes} gradient steps on each fresh sample (the "
                       "theorem is for an extragradient step; two sequential steps only numerically there)"),
               words=(f"with {passes} gradient steps on each sample the samples to overlap 1/2 follow the generative "
                      f"exponent k* = {k_star}: n ≍ {time_value(k_star)} (one pass: {time_value(k)})"),
               hypotheses=(HYPOTHESES["start"], HYPOTHESES["high dimension"]), hypotheses_reading=_READING)


def fixed_batch_iterations_law(link: str, batch: int) -> Law:
    r"""Step 1 of the module docstring at a FIXED batch :math:`n_b` = ``batch`` (:math:`\mu = 0`), below
    saturation: :math:`T \asymp \mathrm{time}_k(d)/n_b` iterations with :math:`\eta = \tilde\eta\,n_b\,
    d^{-\max(1,k/2)}` — the one-pass samples, the same power of :math:`d`, over :math:`n_b` (the law ``flt verify
    TARGET --algorithm online-sgd --batch B`` checks).

    >>> fixed_batch_iterations_law("He2(z)", 8).value
    d*log(d)/8
    """
    k = link_exponent(link)
    value = time_value(k) / batch
    power = saturation_power(k)
    step = rf"\eta = \tilde\eta\, {batch}\, d^{{-{sp.latex(sp.Max(1, sp.Rational(k, 2)))}}}"
    hypotheses = [_mu_hypothesis(None, D**power, f"batch below saturation, n_b = {batch} ≪ d^{power} (read as "
                                                 f"n_b < d^{power} at every d)",
                                 "Theorem 2 (n_b = O(d^(ℓ−1))); this project's derivation, step 1"),
                  HYPOTHESES["start"], HYPOTHESES["high dimension"]]
    return _iterations(
        name=f"batch iterations k={k}, n_b = {batch}", value=value,
        conditions=(rf"n_b = {batch}", step, r"m_0 \asymp d^{-1/2}", f"k = {k}"), source=ADKLPS, status="theorem",
        regime=f"g = σ = {link}, spherical online SGD, fresh batches of n_b = {batch} samples, mean gradient",
        words=(f"with batches of n_b = {batch} fresh samples and η = η̃·{batch}·d^(−{sp.Max(1, sp.Rational(k, 2))}), "
               f"the iterations to overlap 1/2 are the one-pass samples over n_b: T ≍ {value} (the total samples "
               f"{time_value(k)} do not change; information exponent k = {k}, below the saturation batch "
               f"d^{power})"),
        hypotheses=tuple(hypotheses), hypotheses_reading=_READING)


def _gaussian_mean(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    r""":math:`\mathbb E` over ``var`` :math:`\sim \mathcal N(0, 1)` of a polynomial in it, by its moments."""
    poly = sp.Poly(sp.expand(expr), var)
    return sp.expand(sum(coef * gaussian_moment(j) for (j,), coef in poly.terms()))


def second_pass_equator_drift(link: str, eta_tilde: sp.Expr | float | None = None) -> sp.Expr:
    r"""The drift at the equator that a second pass on each sample adds (module docstring, step 4; ``derivations/
    derive_online_sgd_batch.py``), in the limit :math:`d \to \infty` at :math:`\eta = \tilde\eta/d`:
    :math:`\phi(0) = \mathbb E_z[z\,g(z)\,F(\tilde\eta\,g(z))]` with :math:`F(s) = \mathbb E_u\,\sigma'(u +
    s\,\sigma'(u))`, :math:`\sigma = g`, so that :math:`d\,\mathbb E[\Delta m]/\tilde\eta \to \phi(0)` at
    :math:`m = 0` (one pass: :math:`\mathbb E[z\,g] = 0` for :math:`k \ge 2`). Exact Gaussian moments, for a
    polynomial link (refused otherwise); ``eta_tilde`` a number, or None for the symbol :data:`ETA_TILDE`.

    >>> second_pass_equator_drift("He3(z)")
    17496*eta_tilde**2
    >>> second_pass_equator_drift("He2(z)", 0.003)
    0
    """
    z, u, s = sp.Symbol("z", real=True), sp.Symbol("u", real=True), sp.Symbol("s", real=True)
    g = sp.expand(parse_link(link))
    if not g.is_polynomial(z):
        raise InvalidParameterError(f"The 'target' parameter {link!r}: the second pass's drift is derived for a "
                                    "polynomial link only.")
    sigma_prime = sp.diff(g, z)
    f = _gaussian_mean(sigma_prime.subs(z, u + s * sigma_prime.subs(z, u)), u)
    step = ETA_TILDE if eta_tilde is None else sp.sympify(eta_tilde)
    return _gaussian_mean(z * g * f.subs(s, step * g), z)
