r"""Sizes of the staircase: how much mass each new direction carries after its step, at finite
:math:`(d, n, p, \eta)` — the companion of :mod:`.staircase`, which gives the spans only.

Setting (Dandi, Krzakala, Loureiro, Pesce, Stephan 2023, arXiv 2305.18270; :mod:`flt_theory.systems.giant_step.engine`).
Student :math:`\hat f(x) = \frac1p\sum_i a_i\sigma(\langle w_i, x\rangle)` with the symmetric initialisation
(:math:`w_i^0` uniform on the unit sphere, :math:`a_i = \pm1`, pairs with opposite :math:`a`, so :math:`\hat f^0 = 0`),
:math:`T` full-batch GD steps on the square loss with fresh :math:`n` samples each, second layer frozen:
:math:`w_i^{t+1} = w_i^t + \kappa\,a_i\,g_i^t`, :math:`\kappa = \eta/p`,
:math:`g_i^t = \frac1n\sum_\mu r^t(x_\mu)\sigma'(\langle w_i^t, x_\mu\rangle)x_\mu`, :math:`r^t = f^* - \hat f^t`.

Derivation (one step of the update, applied at every step). Split :math:`g_i^t` into its population part
:math:`\mathbb E[r^t\sigma'(\langle w_i^t, x\rangle)x]` and the sample fluctuation, whose covariance given the past
is :math:`\frac1n\mathbb E[(r^t)^2\sigma'(\cdot)^2]\,I_d` up to :math:`O(1/n)` rank-one terms (fresh samples).
Write a neuron in target coordinates: :math:`\langle w_i^t, x\rangle = m_a^t\cdot z + \rho_a^t\,\gamma_i`, where
:math:`z = W^*x \in \mathbb R^r`, :math:`\gamma_i` is the standard Gaussian coordinate of :math:`x` along the
neuron's own direction orthogonal to :math:`V^*`, and — the mean-field closure — :math:`m_a^t \in \mathbb R^r` and
:math:`\rho_a^t` depend only on the sign :math:`a` (at :math:`t = 0` the :math:`V^*` coordinates are
:math:`O(d^{-1/2})`, and every population update of a neuron of sign :math:`a` is the same vector). Then:

* :math:`V^*` part: :math:`m_a^{t+1} = m_a^t + \kappa a\,G_a^t`,
  :math:`G_a^t = \mathbb E[r^t(z)\,\sigma'(m_a^t\cdot z + \rho_a^t\gamma)\,z]` (population term);
* own orthogonal direction: :math:`\rho_a \to \rho_a + \kappa a\,H_a^t`,
  :math:`H_a^t = \mathbb E[r^t\sigma'(m_a^t\cdot z + \rho_a^t\gamma)\gamma]`;
* fluctuation, with :math:`s_a^2 = \mathbb E[(r^t)^2\sigma'(\cdot)^2]`: each of the :math:`d - r` other directions
  gains variance :math:`\kappa^2 s_a^2/n` (added to :math:`\rho_a^2`); the :math:`r` target coordinates gain the
  covariance :math:`\kappa^2\,\mathbb E[(r^t)^2\sigma'(\cdot)^2 zz^\top]/n` (added to :math:`V_a`, which starts at
  the initial :math:`I_r/d`) — anisotropic: for :math:`\mathrm{He}_3(z_1)` the noise along :math:`w^*_1` is about 6×
  that of a generic direction;
* linear response of a neuron's own offset :math:`\delta` in :math:`V^*` (its initial :math:`O(d^{-1/2})` overlap
  and the fluctuation gathered since; covariance :math:`V_a`): the push at :math:`m_a + \delta` is
  :math:`G_a + J_a\delta` with :math:`J_a = \mathbb E[r^t\sigma'(\cdot)\,\gamma\,zz^\top]/\rho_a^t` (Stein's lemma in
  :math:`\gamma`), so :math:`V_a \to (I + \kappa aJ_a)V_a(I + \kappa aJ_a)^\top` before the new noise is added. A
  leap-2 term amplifies a direction the population term never pushes: :math:`w^*_2` of
  :math:`z_1 + \mathrm{He}_2(z_2)` (:math:`d = 128`, :math:`n = 64d`, :math:`\eta = 4p`) carries 2.2× then 7.3× its
  random mass after steps 1, 2 (predicted 2.3×, 8.3×; without the response 1.0× and 1.3×) — a mass
  :math:`\Theta(1/d)` at every :math:`d`, not learned, but not at the random level either;
* the network seen by the residual, :math:`p \to \infty`:
  :math:`\hat f^t(z) = \frac12\sum_a a\,\mathbb E_\gamma[\sigma(m_a^t\cdot z + \rho_a^t\gamma)]`.

The second moment of the normalised overlaps (the quantity the simulation records,
:func:`flt_theory.systems.giant_step.model.staircase_rows`) is then

.. math:: M_t = \frac12\sum_{a=\pm1}\frac{m_a^t m_a^{t\top} + V_a^t}{|m_a^t|^2 + \mathrm{tr}\,V_a^t + (\rho_a^t)^2},

and the mass of a subspace :math:`S \subseteq V^*` is :math:`\mathrm{tr}(P_SM_tP_S)`, its least-learned direction
:math:`\lambda_{\min}(P_SM_tP_S)`; a random direction carries :math:`1/d`. Population term
(:math:`m_a m_a^\top`) and finite-sample fluctuation (:math:`V_a`, and :math:`\rho_a^2` in the denominator) are
reported separately. The expectations over :math:`(z, \gamma) \sim \mathcal N(0, I_{r+1})` are computed on a
fixed scrambled Sobol sample of :data:`QUADRATURE_POINTS` points (deterministic; relative error about
:math:`10^{-3}` for a ReLU student).

What it neglects (said, not hidden): the :math:`O(1/p)` self-interaction of a neuron with :math:`\hat f`, the
correlation of different neurons' fluctuations (shared samples), and the spread of :math:`m` within a sign beyond
its linear response (its mean square is kept in :math:`V_a`, its effect on the mean push is not); the initial
overlaps enter only through that linear response (the learning of leap-:math:`\ell \ge 2` directions under
:math:`\eta \propto d^{(\ell-1)/2}` is outside this closure, which predicts such a step learns nothing).

Accuracy, measured against the simulation (16 seeds, :math:`p = 64`, :math:`\eta = 4p` unless said; the tests in
``tests/symbolic/test_staircase_sizes.py``): a step-1 direction within 3% (z1 + z1·z2, d = 128, 256, 512,
n = 64d: +0.4%, +0.4%, 0.0%); a later step the population term drives is OVERestimated by 13–24% (z1 + z1·z2,
n = 64d, step 2: +19%, +19%, +18% at d = 128, 256, 512; n = 8d, d = 512: +24%; z1 + z1·z2 + z1·z2·z3 step 2: +20%;
tanh student, n = 16d: +13%); a direction at or below about twice its random level (fluctuation only) within a
factor 2.5 (z1 + z1·z2 + z1·z2·z3 step 3: 0.08× predicted, 0.19× measured); the mass of a direction no step
learns within a factor 1.6 (w*_2 of z1 + He2(z2): 2.3×/8.3× vs 2.2×/7.3×; w*_1 of He4(z1) + z2: 3.2×/5.3× vs
3.1×/3.4×; w*_2 of z1 + He3(z2): 1.1×/1.7× vs 1.5×/1.8×).

Resolvable. A new direction is called *learned at this size* when the predicted mass of its least-learned
direction is at least :data:`RESOLVABLE_FACTOR` times the random level :math:`1/d` (the simulation's check
demands 10×; the margin absorbs the closure's error).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import sympy as sp

from .._validation import check_int, check_real
from ..errors import InvalidParameterError
from .evaluate import evaluate
from .staircase import staircase
from .subspace import Subspace
from .target import parse_link

if TYPE_CHECKING:  # numpy is imported where it is used: a symbolic command on an exact target never loads it
    import numpy as np

    from .target import Target

__all__ = ["QUADRATURE_POINTS", "RESOLVABLE_FACTOR", "StepSize", "predicted_moments", "staircase_sizes"]

#: Size of the fixed Sobol sample of the Gaussian expectations.
QUADRATURE_POINTS = 2**16
#: A new direction is "learned at this size" when its predicted least-direction mass is ≥ this × 1/d.
RESOLVABLE_FACTOR = 15.0


@dataclasses.dataclass(frozen=True)
class StepSize:
    r"""The predicted sizes after one step of the staircase.

    Attributes
    ----------
    step : int
        :math:`t \ge 1`.
    subspace : Subspace
        :math:`U_t` (the staircase span).
    new_dim : int
        :math:`\dim(U_t \ominus U_{t-1})`.
    new_mass, new_least : float
        Predicted mass of :math:`U_t \ominus U_{t-1}` and of its least-learned direction.
    fluctuation_mass : float
        The part of ``new_least`` due to the finite-sample fluctuation and the initialisation alone (what a
        direction the population term never pushes would carry).
    random_level : float
        :math:`1/d`, the mass of a random direction.
    resolvable : bool
        ``new_least >= RESOLVABLE_FACTOR / d`` (only meaningful when ``new_dim > 0``).
    """

    step: int
    subspace: Subspace
    new_dim: int
    new_mass: float
    new_least: float
    fluctuation_mass: float
    random_level: float
    resolvable: bool

    @property
    def ratio(self) -> float:
        """``new_least`` in units of the random level."""
        return self.new_least / self.random_level

    def to_dict(self) -> dict[str, str | int | float | bool]:
        return {"step": self.step, "subspace": self.subspace.latex(), "new_dim": self.new_dim,
                "new_mass": self.new_mass, "new_least": self.new_least, "fluctuation_mass": self.fluctuation_mass,
                "random_level": self.random_level, "ratio": self.ratio, "resolvable": self.resolvable}


@functools.lru_cache(maxsize=8)
def _gaussian_sample(dim: int, points: int) -> np.ndarray:
    """A fixed scrambled Sobol sample of :math:`\\mathcal N(0, I_{dim})`, ``(points, dim)``, drawn once per shape
    (``flt verify`` asks for the sizes at several d); read-only."""
    import numpy as np
    from scipy.special import ndtri
    from scipy.stats import qmc

    u = qmc.Sobol(dim, scramble=True, seed=20230530).random(points)
    sample = ndtri(np.clip(u, 1e-12, 1 - 1e-12))
    sample.flags.writeable = False
    return cast("np.ndarray", sample)  # scipy is untyped


def _activation(activation: str | sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Symbol]:
    expr = parse_link(activation) if isinstance(activation, str) else sp.sympify(activation)
    (z,) = expr.free_symbols or {sp.Symbol("z", real=True)}
    return expr, sp.diff(expr, z), z


def staircase_sizes(target: Target, *, d: int, n: int, p: int, eta: float, steps: int = 2, activation: str = "relu",
                    degree: int | None = None) -> list[StepSize]:
    r"""Predicted mass of each staircase step's new directions after that step (module docstring).

    Parameters
    ----------
    target : Target
        :math:`f^*` (rank :math:`r`).
    d, n, p, eta
        Dimension, samples per step, width (enters only through :math:`\kappa = \eta/p`) and step size.
    steps
        :math:`T`.
    activation
        The student's :math:`\sigma` in the target grammar (a function of ``z``).
    degree
        Hermite truncation of a non-polynomial target for the spans (:func:`.staircase.staircase`).

    Examples
    --------
    >>> from flt_theory.symbolic.target import Target
    >>> sizes = staircase_sizes(Target.parse("z1 + z1*z2"), d=128, n=64 * 128, p=64, eta=512.0, steps=2)
    >>> [(s.step, s.new_dim, s.resolvable) for s in sizes]
    [(1, 1, True), (2, 1, True)]
    """
    import numpy as np

    d = check_int(d, "d", minimum=2, caller="staircase_sizes")
    n = check_int(n, "n", minimum=1, caller="staircase_sizes")
    p = check_int(p, "p", minimum=2, caller="staircase_sizes")
    eta = check_real(eta, "eta", minimum=0.0, strict_minimum=True, caller="staircase_sizes")
    steps = check_int(steps, "steps", minimum=1, maximum=16, caller="staircase_sizes")
    r = target.rank
    if r >= d:
        raise InvalidParameterError(f"staircase_sizes: d = {d} must exceed the target's rank {r}")
    ladder = staircase(target, steps, degree)
    sigma, dsigma, zsym = _activation(activation)
    out, previous = [], Subspace.zero(r)
    moments_per_step = _moments(target, sigma, dsigma, zsym, d=d, n=n, kappa=eta / p, steps=steps)
    for t, (u, (moments, fluctuation)) in enumerate(zip(ladder, moments_per_step), start=1):
        new = u.new_directions(previous)
        if len(new):
            projected = new @ moments @ new.T
            mass, least = float(np.trace(projected)), float(np.linalg.eigvalsh(projected)[0])
            noise = float(np.linalg.eigvalsh(new @ fluctuation @ new.T)[0])
        else:
            mass = least = 0.0
            noise = float(np.trace(fluctuation)) / r
        out.append(StepSize(step=t, subspace=u, new_dim=len(new), new_mass=mass, new_least=least,
                            fluctuation_mass=noise, random_level=1.0 / d,
                            resolvable=bool(len(new)) and least >= RESOLVABLE_FACTOR / d))
        previous = u
    return out


def predicted_moments(target: Target, *, d: int, n: int, p: int, eta: float, steps: int = 1,
                      activation: str = "relu") -> list[tuple[np.ndarray, np.ndarray]]:
    r"""Per step :math:`t = 1..T`: the predicted second moment :math:`M_t` of the normalised overlaps (``r × r``,
    module docstring) and its fluctuation part alone (the initialisation and the sample noise, anisotropic:
    :math:`V_a \mathrel{+}= \kappa^2\,\mathbb E[r^2\sigma'^2 zz^\top]/n`), both in :math:`w^*`-coordinates.

    >>> from flt_theory.symbolic.target import Target
    >>> (m1, f1), = predicted_moments(Target.parse("He3(z1) + z2"), d=128, n=1448, p=32, eta=32.0)
    >>> bool(f1[0, 0] > 1.5 * f1[1, 1])  # the sample noise along w*_1 is anisotropic: E[y^2 z1^2] >> E[y^2]
    True
    """
    d = check_int(d, "d", minimum=2, caller="predicted_moments")
    n = check_int(n, "n", minimum=1, caller="predicted_moments")
    p = check_int(p, "p", minimum=2, caller="predicted_moments")
    eta = check_real(eta, "eta", minimum=0.0, strict_minimum=True, caller="predicted_moments")
    steps = check_int(steps, "steps", minimum=1, maximum=16, caller="predicted_moments")
    sigma, dsigma, zsym = _activation(activation)
    return _moments(target, sigma, dsigma, zsym, d=d, n=n, kappa=eta / p, steps=steps)


def _moments(target: Target, sigma: sp.Expr, dsigma: sp.Expr, zsym: sp.Symbol, *, d: int, n: int, kappa: float,
             steps: int) -> list[tuple[np.ndarray, np.ndarray]]:
    import numpy as np

    r = target.rank
    sample = _gaussian_sample(r + 1, QUADRATURE_POINTS)
    z, gamma = sample[:, :r], sample[:, r]
    fstar = np.broadcast_to(np.asarray(evaluate(target.expr, target.variables, list(z.T)), dtype=float), gamma.shape)

    def act(expr: sp.Expr, pre: np.ndarray) -> np.ndarray:
        return np.broadcast_to(np.asarray(evaluate(expr, [zsym], [pre]), dtype=float), pre.shape)

    m = {a: np.zeros(r) for a in (1, -1)}
    rho2 = {a: 1.0 for a in (1, -1)}  # |w^0|^2 = 1, all but O(r/d) of it orthogonal to V*
    v = {a: np.eye(r) / d for a in (1, -1)}
    out = []
    for _ in range(steps):
        pre = {a: z @ m[a] + math.sqrt(rho2[a]) * gamma for a in (1, -1)}
        fhat = 0.5 * sum(a * act(sigma, pre[a]) for a in (1, -1))
        residual = fstar - fhat
        for a in (1, -1):
            slope = act(dsigma, pre[a])
            weight = residual**2 * slope**2
            g_vec = (residual * slope) @ z / len(gamma)
            h = float((residual * slope * gamma).mean())
            noise = kappa**2 * float(weight.mean()) / n
            response = np.eye(r) + kappa * a * _jacobian(residual * slope * gamma, z, math.sqrt(rho2[a]))
            m[a] = m[a] + kappa * a * g_vec
            rho2[a] = (math.sqrt(rho2[a]) + kappa * a * h) ** 2 + noise * (d - r)
            v[a] = response @ v[a] @ response.T + kappa**2 * (z.T * weight) @ z / len(gamma) / n
        norms = {a: m[a] @ m[a] + np.trace(v[a]) + rho2[a] for a in (1, -1)}
        out.append((0.5 * sum((np.outer(m[a], m[a]) + v[a]) / norms[a] for a in (1, -1)),
                    0.5 * sum(v[a] / norms[a] for a in (1, -1))))
    return out


def _jacobian(weighted: np.ndarray, z: np.ndarray, rho: float) -> np.ndarray:
    r"""Linear response of the population push to a neuron's own offset in :math:`V^*`:
    :math:`J = \partial_m\,\mathbb E[r\,\sigma'(m\cdot z + \rho\gamma)\,z]
    = \mathbb E[r\,\sigma'(\cdot)\,\gamma\,zz^\top]/\rho`
    (Stein's lemma in :math:`\gamma` replaces :math:`\sigma''`, which a ReLU lacks); ``weighted`` is
    :math:`r\,\sigma'(\cdot)\,\gamma` on the sample."""
    return cast("np.ndarray", (z.T * weighted) @ z / len(z) / rho)  # numpy types this product as Any


def sizes_table(sizes: Sequence[StepSize]) -> list[tuple[str, ...]]:
    """Rows for a text table: step, span, new dim, predicted masses in units of the random level."""
    rows: list[tuple[str, ...]] = [
        ("step", "U_t", "new dims", "new mass / (1/d)", "least new direction / (1/d)", "fluctuation only / (1/d)",
         "learned at this size")
    ]
    for s in sizes:
        rows.append((str(s.step), s.subspace.latex(), str(s.new_dim), f"{s.new_mass / s.random_level:.3g}",
                     f"{s.ratio:.3g}", f"{s.fluctuation_mass / s.random_level:.3g}",
                     "—" if not s.new_dim else ("yes" if s.resolvable else "no")))
    return rows
