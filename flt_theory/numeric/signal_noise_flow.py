r"""Gradient flow of the signal-noise CNN: the :math:`\eta \to 0` limit of every admissible GD step, integrated
adaptively.

Model and reduced coordinates: :mod:`flt_theory.numeric.signal_noise` (Cao, Chen, Belkin, Gu 2022, arXiv
2202.06526; Kou, Chen, Chen, Gu 2023, arXiv 2303.04145). One GD step moves the coefficients by

.. math::
    \Delta\gamma_{j,r} = \eta\,G_{j,r}(\gamma, \rho), \qquad \Delta\rho_{j,r,i} = \eta\,R_{j,r,i}(\gamma, \rho),

with :math:`G = -\frac{\|\mu\|^2}{nm}\sum_i\ell'_i\tilde y_iy_i\sigma'(\langle w_{j,r}, y_i\mu\rangle)` and
:math:`R = -\frac{\|\xi_i\|^2}{nm}\ell'_i\tilde y_i j\sigma'(\langle w_{j,r},\xi_i\rangle)` — the increments of
:func:`~flt_theory.numeric.signal_noise.train` divided by :math:`\eta`, reused here by import, so GD and the flow
cannot drift apart. The gradient flow (GF) is the ODE :math:`\dot\gamma = G`, :math:`\dot\rho = R` in the GD time
:math:`t = \eta\cdot\mathrm{steps}`; it is exactly the gradient flow :math:`\dot W = -\nabla L_S(W)` of the CNN
projected on :math:`(\gamma, \rho)` (the reduction is exact for every :math:`\eta`), so :math:`L_S` is
non-increasing along it.

Natural time. Integrated in :math:`\tau = t\,\sigma_\xi^2 d`: one GD step at Cao et al.'s step bound
:math:`\eta = 1/(\sigma_\xi^2 d)` (Condition 4.2(3); Kou et al.'s Condition 4.1 as encoded) advances :math:`\tau`
by exactly 1, so the rate per unit :math:`\tau` is the increment of one GD step at that bound
(``_flow_rates``).

Why GF is the limit of every admissible step (derivation, ``derivations/derive_signal_noise_flow.py``). GD is the
explicit Euler scheme of this ODE with step :math:`h = \eta\sigma_\xi^2 d \le 1` in :math:`\tau`. The right-hand
side is locally Lipschitz (:math:`\sigma'` is Lipschitz on bounded sets for :math:`q \ge 2`), so on a bounded
interval of :math:`\tau` the Euler iterates converge to the flow with global error :math:`O(h)`: every admissible
:math:`\eta` (:math:`h \le 1`) is within :math:`O(h)` of the same trajectory, and the stopping time and state
(first :math:`\tau` with :math:`L_S \le \varepsilon`) converge with it — first order, which the tests measure
(``tests/systems/test_signal_noise_flow.py``: the gap to the flow halves when :math:`\eta` halves). A statement
proved for every :math:`\eta` below the bound therefore holds for the flow, and a GF run is READ AS INSIDE the
step-size hypothesis (:math:`\eta \to 0^+`). For :math:`q = 1` :math:`\sigma'` jumps at 0; Euler still
converges where the active sets cross transversally, at a rate the tests do not claim.

Cost. The flow is slow in :math:`\tau`: per unit :math:`\tau` the noise coefficients change by at most
:math:`O(1/(nm))` relative and the signal ones by :math:`\mathrm{SNR}^2/(nm)`, so the adaptive
Runge-Kutta integrator (Dormand-Prince 5(4), :func:`scipy.integrate.solve_ivp`, ``method="RK45"``) takes steps
of many units of :math:`\tau` where GD inside the bound takes one per unit. The RHS is one
:math:`O(mn^2)` batched evaluation of all seeds, independent of :math:`d`, on the draw's device (the state crosses to
the CPU for the integrator at each evaluation). Measured (ReLU³, :math:`m = 10`, :math:`n = 16`,
:math:`d = m^4n^4 = 6.6\cdot10^8`, :math:`\sigma_0\sqrt d = 1/(m^2n)`, one seed, :math:`\mathrm{SNR} = 0.3`, harmful):
the run stops at :math:`\tau = 2.25\cdot10^5` — that many GD steps at the bound — after 3812 RHS evaluations
(rtol :math:`10^{-6}`; 8.5 s on one loaded CPU core; DOP853 4409, LSODA 4375); at :math:`\mathrm{SNR} = 0.8`
(benign) 812. The evaluations grow like :math:`nm` (15368 at :math:`n = 64`, :math:`\tau = 9.2\cdot10^6`): each
neuron-sample overlap's escape is resolved by about 24 evaluations. rtol :math:`10^{-4}` (the experiments') changes
the test errors by less than :math:`10^{-4}` against :math:`10^{-6}` at 1.9 times fewer evaluations.

Stopping. Every seed stops at its own first :math:`\tau` with :math:`L_S \le \varepsilon` (an event of the
integrator, located by root finding on the dense output; the state there is the event's state), or at
``max_time``. The seeds are integrated as one system (a seed's state does not depend on the others, but the
step sizes do: agreement between batches is to the tolerance ``rtol``, not bitwise).

ReLU: the switch-aware fixed-step flow (:func:`projected_flow`)
---------------------------------------------------------------
For :math:`q = 1`, :math:`\sigma' = \mathbb 1[z > 0]` jumps on the switch surfaces :math:`b_{j,r,i} = \langle w_{j,r},
\xi_i\rangle = 0` and the adaptive integrator above crawls through them (a ReLU run at :math:`n = 16`,
:math:`d = 10^5`, 2 seeds did not finish in 600 s). The right-hand side is constant in the activation pattern and
smooth between switches, and the only switches that recur are the coefficients driven TOWARDS their surface:
:math:`\dot\rho_{j,r,i} \propto \tilde y_i j\,\mathbb 1[b_{j,r,i} > 0]` is negative for the wrong-class neurons
:math:`j = -\tilde y_i`, so such a :math:`b` falls to 0 — and the cross terms
:math:`\sum_{k \ne i}\rho_{j,r,k}\langle\xi_k, \xi_i\rangle/\|\xi_k\|^2` (relative size :math:`\sqrt{n/d}`) push it
back up or further down. Where they push up, the flow SLIDES on :math:`b = 0` (Filippov 1988, "Differential
equations with discontinuous righthand sides", the convex combination of the two sides' fields): :math:`\rho_{j,r,i}`
falls exactly as fast as the cross terms raise :math:`b`. GD at a step inside the bound chatters within one increment
(:math:`\le 1/(2nm)` in :math:`\rho` at :math:`\eta = 1/(\sigma_\xi^2 d)`) of that surface; GD at a large step
overshoots it by up to one increment, :math:`c/2` at :math:`\eta = c\,nm/(\sigma_\xi^2 d)`.

The projected Euler step removes the overshoot. In :math:`b_{j,r,i} = b^0_{j,r,i} + \rho_{j,r,i} + \sum_{k \ne i}
\rho_{j,r,k}G_{ki}/G_{kk}` (``project=True``; with ``project=False`` a term in :math:`\gamma` is added) the coefficient
of a pre-activation's own :math:`\rho` is exactly 1, so one step of size :math:`\eta` is

.. math::
    \gamma \leftarrow \gamma + \Delta\gamma, \qquad
    \rho_{j,r,i} \leftarrow \rho_{j,r,i} + \max\big(\Delta\rho_{j,r,i},\ -\max(b_{j,r,i}, 0)\big),

with :math:`(\Delta\gamma, \Delta\rho)` GD's increment at :math:`\eta` (:func:`~flt_theory.numeric.signal_noise.train`'s
own arithmetic, imported): no coefficient's own move carries its pre-activation past its switch surface. The bound is
active only for moves towards the surface (:math:`\Delta\rho < 0`); a coefficient on the surface is moved by the
cross terms of one step and pulled back to it by the next (the sliding solution, up to one step's cross drift,
:math:`O(h\sqrt{n/d})` relative). Between switches it is explicit Euler (first order in :math:`h = \eta\sigma_\xi^2 d`);
as :math:`h \to 0` it converges to the Filippov flow, the limit of GD at every admissible step — the flow reading of
the step-size hypothesis. The signal coefficients need no projection here: without label noise
:math:`\dot\gamma_{j,r} \ge 0` on both sides of :math:`a_{j,r} = 0` (crossings are transversal).

Stopping: each seed at its first step with :math:`L_S \le \varepsilon`, the state taken on the last Euler segment
(linear in its fraction :math:`\theta`) at the :math:`\theta` where :math:`\log L_S` interpolated linearly crosses
:math:`\log\varepsilon`. Cost: :math:`\tau_{\rm stop}/h` steps of :func:`~flt_theory.numeric.signal_noise.train`'s cost;
at ReLU the stop is at :math:`\tau \approx 38\,nm` (:math:`n = 16`, :math:`d = 10^5`, :math:`m = 10`), so
:math:`h = nm/16` takes about 640 steps at every :math:`n` where GD at the bound takes :math:`38\,nm`. Measured
there (4 seeds, :math:`\sigma_0\sqrt d = 3\cdot10^{-3}`, :math:`\mathrm{SNR} = 0.03`, 4000 test rows): final test
errors 0.0444, 0.0403, 0.0496, 0.0447 at :math:`h = nm/16` (0.0446, 0.0400, 0.0496, 0.0449 at :math:`nm/64`) against
0.0446, 0.0403, 0.0496, 0.0449 of GD at the bound (:math:`h = 1`, 6000 steps) and 0.0555, 0.0626, 0.0796, 0.0625 of
GD at :math:`h = nm` (the step of the outside runs); at :math:`n = 64`, :math:`d = 10^6` within :math:`5\cdot10^{-4}`
of GD at the bound on every seed (GD at :math:`h = nm`: +0.009 to +0.025); at :math:`n = 16`, :math:`d = 10^6`,
:math:`\sigma_0\sqrt d = 10^{-3}`, :math:`\mathrm{SNR} = 0.0125`, 8 seeds: mean gap :math:`-3\cdot10^{-5}`, largest
0.0016 (GD at :math:`h = nm`: +0.024 on average; ``tests/systems/test_signal_noise_flow.py``, slow).

Where the flow and GD at the bound part. The flow is the :math:`\eta \to 0` limit; GD at the bound is one admissible
step, and ReLU's dynamics is not continuous in the state where a pre-activation starts within the perturbation of one
GD overshoot (:math:`\le 1/(2nm)` in a wrong-class :math:`\rho`, carried to the other pre-activations of its neuron by
cross terms of relative size :math:`d^{-1/2}`) of its switch surface: an own-class coefficient that the flow leaves
inactive can be switched on by GD's overshoot (an extra memorising neuron: a larger test error). At small :math:`d`
and :math:`\sigma_0` this happens on single seeds: :math:`n = 8`, :math:`m = 3`, :math:`d = 2000`, seed 3: 0.358 for
GD at :math:`h = 1, 1/2, 1/4` against 0.340 for the flow at :math:`h = nm/8 \dots nm/512`; :math:`n = 8`, :math:`m = 4`,
:math:`d = 10^5`: 2 seeds of 6 at +0.016, +0.019. Both are inside the step-size hypothesis; the claims run the flow.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np
import torch

from .._validation import check_real
from .backend import NonFiniteError
from .signal_noise import (
    ReducedState,
    SignalNoiseConfig,
    SignalNoiseDraw,
    _geometry,
    _increments,
    _inner,
    _loss,
    _mu_tensor,
    _outputs,
    _test_error,
    train,
)

__all__ = ["FlowRun", "gd_flow_gap", "gradient_flow", "natural_time", "projected_flow"]


def natural_time(eta: float, steps: float, sigma_xi: float, d: int) -> float:
    r"""The natural time :math:`\tau = \eta\,\mathrm{steps}\,\sigma_\xi^2 d` of ``steps`` GD steps of size ``eta``.

    >>> natural_time(1e-6, 500, 1.0, 10**6)
    500.0
    """
    return eta * steps * sigma_xi**2 * d


def _rate_config(dr: SignalNoiseDraw, cfg: SignalNoiseConfig) -> SignalNoiseConfig:
    """``cfg`` at the step bound :math:`\\eta = 1/(\\sigma_\\xi^2 d)`: its GD increment is the rate per unit τ."""
    return dataclasses.replace(cfg, eta=1.0 / (cfg.sigma_xi**2 * dr.d))


def _flow_rates(dr: SignalNoiseDraw, cfg: SignalNoiseConfig, geo, gamma: torch.Tensor,
               rho: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    r""":math:`(d\gamma/d\tau, d\rho/d\tau)` at the state ``(gamma (S, 2m), rho (S, 2m, n))``: the GD increment of
    ``cfg`` (whose ``eta`` must be :math:`1/(\sigma_\xi^2 d)`, :func:`_rate_config`). ``geo`` is the draw's geometry
    (private to :mod:`.signal_noise`)."""
    a, b = _inner(dr, geo, gamma, rho)
    return _increments(dr, cfg, geo, a, b, _outputs(dr, cfg.q, a, b))


@dataclass(frozen=True)
class FlowRun(ReducedState):
    r"""The outcome of :func:`gradient_flow` for a batch of seeds: the
    :class:`~flt_theory.numeric.signal_noise.ReducedState` at the stop (``config.eta`` unused) and, as
    :class:`~flt_theory.numeric.signal_noise.SignalNoiseRun` has them, with time in place of steps,

    Attributes
    ----------
    time : torch.Tensor, shape (seeds,)
        Natural time :math:`\tau` of the stop (first :math:`L_S \le \varepsilon`, else ``max_time``).
    train_loss, test_error : torch.Tensor, shape (seeds,)
    evaluations : int
        Right-hand-side evaluations of the integrator (all seeds at once).
    """

    time: torch.Tensor
    train_loss: torch.Tensor
    test_error: torch.Tensor
    evaluations: int


class _CachedSign(SignalNoiseDraw):
    """The draw with its neuron signs computed once (the RHS reads them at every evaluation)."""

    _sign: torch.Tensor

    def __init__(self, dr: SignalNoiseDraw) -> None:
        super().__init__(**{f.name: getattr(dr, f.name) for f in dataclasses.fields(dr)})
        object.__setattr__(self, "_sign", super().sign)  # the draw's own property, on the same fields

    @property
    def sign(self) -> torch.Tensor:
        return self._sign


class _Event(Protocol):
    """An event function of :func:`scipy.integrate.solve_ivp`: a root of ``event(t, y)`` ends the run where
    ``terminal``, crossings counted in ``direction``."""

    terminal: bool
    direction: int

    def __call__(self, t: float, y: np.ndarray) -> float: ...


class _Losses:
    """The per-seed training loss of a packed state, cached on the last ``(t, y)`` (the integrator asks every
    seed's event at the same state object in turn; the cache holds that object, so its identity is not reused)."""

    def __init__(self, unpack, dr: SignalNoiseDraw, cfg: SignalNoiseConfig, geo) -> None:
        self.unpack, self.dr, self.cfg, self.geo = unpack, dr, cfg, geo
        self.key: tuple[float, np.ndarray | None] = (math.nan, None)
        self.value = np.empty(0)

    def __call__(self, t: float, y: np.ndarray) -> np.ndarray:
        if not (self.key[1] is y and self.key[0] == t):
            gamma, rho = self.unpack(y)
            a, b = _inner(self.dr, self.geo, gamma, rho)
            self.value = _loss(self.dr, _outputs(self.dr, self.cfg.q, a, b)).cpu().numpy()
            self.key = (t, y)
        return self.value


def gradient_flow(
    dr: SignalNoiseDraw, cfg: SignalNoiseConfig, *, max_time: float, mu_norm: torch.Tensor | None = None,
    rtol: float = 1e-6, atol: float = 1e-12, method: str = "RK45",
) -> FlowRun:
    r"""Integrate the gradient flow of the reduced dynamics until :math:`L_S \le \varepsilon` (``cfg.eps``) or
    :math:`\tau =` ``max_time``, per seed.

    Parameters
    ----------
    dr, cfg
        The draw and the run's parameters (:func:`~flt_theory.numeric.signal_noise.draw`,
        :class:`~flt_theory.numeric.signal_noise.SignalNoiseConfig`); ``cfg.eta`` and ``cfg.max_steps`` are unused.
    max_time
        Largest natural time :math:`\tau = t\sigma_\xi^2 d` (:func:`natural_time` of the GD budget it replaces).
    mu_norm
        Per-seed :math:`\|\mu\|`, shape (seeds,), overriding ``cfg.mu_norm`` (bisections).
    rtol, atol, method
        Passed to :func:`scipy.integrate.solve_ivp` (an explicit method: the system is not stiff in :math:`\tau`).

    Returns
    -------
    FlowRun

    Raises
    ------
    NonFiniteError
        The integration produced non-finite values or failed.

    Examples
    --------
    >>> from flt_theory.numeric.signal_noise import draw
    >>> dr = draw(2, n=8, d=2000, width=3, n_test=1000, device="cpu")
    >>> cfg = SignalNoiseConfig(q=3, mu_norm=20.0, sigma0=0.3 / 2000**0.5, eps=0.05)
    >>> run = gradient_flow(dr, cfg, max_time=1e5)
    >>> bool((run.train_loss <= 0.05 + 1e-9).all()), bool((run.time < 1e5).all())
    (True, True)
    """
    from scipy.integrate import solve_ivp

    max_time = check_real(max_time, "max_time", minimum=0.0, strict_minimum=True, caller="gradient_flow")
    mu = _mu_tensor(dr, cfg, mu_norm)
    geo = _geometry(dr, cfg, mu)
    seeds, m2, n = len(dr.seeds), 2 * dr.width, dr.n
    split = seeds * m2
    device, dtype = dr.y.device, dr.y.dtype

    def unpack(y: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        t = torch.as_tensor(y, device=device, dtype=dtype)
        return t[:split].reshape(seeds, m2), t[split:].reshape(seeds, m2, n)

    rate_cfg = _rate_config(dr, cfg)
    fast = _CachedSign(dr)

    def rhs(_t: float, y: np.ndarray) -> np.ndarray:
        dg, drho = _flow_rates(fast, rate_cfg, geo, *unpack(y))
        return torch.cat([dg.flatten(), drho.flatten()]).cpu().numpy()

    losses = _Losses(unpack, fast, cfg, geo)
    log_eps = math.log(cfg.eps) if cfg.eps > 0 else -math.inf

    def event(s: int, terminal: bool) -> _Event:
        def crossing(t: float, y: np.ndarray) -> float:
            loss = losses(t, y)
            return float(np.log(loss.max() if terminal else loss[s]) - log_eps)
        marked = cast(_Event, crossing)  # solve_ivp reads the two attributes set here
        marked.terminal, marked.direction = terminal, -1
        return marked

    events = [event(s, False) for s in range(seeds)] + [event(-1, True)] if cfg.eps > 0 else None
    y0 = np.zeros(split + split * n)
    start = losses(0.0, y0)
    sol = solve_ivp(rhs, (0.0, max_time), y0, method=method, rtol=rtol, atol=atol, events=events)
    if sol.status < 0 or not np.isfinite(sol.y[:, -1]).all():
        raise NonFiniteError(f"the signal-noise gradient flow failed: {sol.message}")
    final = sol.y[:, -1].copy()
    times = np.full(seeds, sol.t[-1])
    gamma_all, rho_all = (x.clone() for x in unpack(final))
    for s in range(seeds):  # each seed's state at its own stop
        if cfg.eps > 0 and start[s] <= cfg.eps:
            times[s] = 0.0
            gamma_all[s], rho_all[s] = 0.0, 0.0
        elif events is not None and len(sol.t_events[s]):
            times[s] = sol.t_events[s][0]
            g, r = unpack(sol.y_events[s][0])
            gamma_all[s], rho_all[s] = g[s], r[s]
    a, b = _inner(dr, geo, gamma_all, rho_all)
    f = _outputs(dr, cfg.q, a, b)
    return FlowRun(draw=dr, config=cfg, mu_norm=mu, gamma=gamma_all, rho=rho_all, f=f,
                   time=torch.as_tensor(times, device=device, dtype=dtype), train_loss=_loss(dr, f),
                   test_error=_test_error(dr, cfg, geo, gamma_all, rho_all, a), evaluations=int(sol.nfev))


def projected_flow(dr: SignalNoiseDraw, cfg: SignalNoiseConfig, *, mu_norm: torch.Tensor | None = None) -> FlowRun:
    r"""The flow of the reduced dynamics by projected Euler steps of size ``cfg.eta`` (module docstring, ReLU), until
    :math:`L_S \le \varepsilon` (``cfg.eps``) or ``cfg.max_steps`` steps, per seed.

    One step is GD's increment at ``cfg.eta`` with every noise coefficient's own move stopped at its switch surface:
    :math:`\rho \leftarrow \rho + \max(\Delta\rho, -\max(b, 0))`. The stop is interpolated on the last step (module
    docstring); ``time`` is the natural time :math:`\tau` there.

    Parameters
    ----------
    dr, cfg
        The draw and the run's parameters; ``cfg.eta`` is the step (:math:`h = \eta\sigma_\xi^2 d` in :math:`\tau`),
        ``cfg.max_steps`` bounds the steps.
    mu_norm
        Per-seed :math:`\|\mu\|`, shape (seeds,), overriding ``cfg.mu_norm`` (bisections).

    Returns
    -------
    FlowRun
        ``evaluations``: the steps taken by the last seed to stop.

    Raises
    ------
    NonFiniteError
        The iteration produced non-finite values.

    Examples
    --------
    >>> from flt_theory.numeric.signal_noise import draw
    >>> dr = draw(2, n=16, d=10**5, width=10, n_test=1000, device="cpu")
    >>> cfg = SignalNoiseConfig(q=1, mu_norm=0.03 * 10**2.5, sigma0=3e-3 / 10**2.5, eta=10 / 10**5, eps=0.05,
    ...                         max_steps=4000)
    >>> run = projected_flow(dr, cfg)
    >>> [round(t / 160) for t in run.time.tolist()], bool((run.train_loss <= 0.05 + 1e-3).all())
    ([38, 40], True)
    """
    mu = _mu_tensor(dr, cfg, mu_norm)
    geo = _geometry(dr, cfg, mu)
    gamma, rho = torch.zeros_like(geo.a0), torch.zeros_like(geo.b0)
    seeds = len(dr.seeds)
    active = torch.ones(seeds, dtype=torch.bool, device=gamma.device)
    stop_gamma, stop_rho = gamma.clone(), rho.clone()
    stop_step = torch.full((seeds,), float(cfg.max_steps)).to(gamma)
    prev: tuple[torch.Tensor, torch.Tensor, torch.Tensor | None] = (gamma, rho, None)  # the state a step before
    log_eps = math.log(cfg.eps) if cfg.eps > 0 else -math.inf
    for t in range(cfg.max_steps + 1):
        a, b = _inner(dr, geo, gamma, rho)
        f = _outputs(dr, cfg.q, a, b)
        loss = _loss(dr, f)
        done = active & (loss <= cfg.eps) if cfg.eps > 0 else torch.zeros_like(active)
        if t == cfg.max_steps:
            done = active
        if bool(done.any()):
            if t > 0:
                assert prev[2] is not None  # the loss of the step before, set by every step
                theta = _crossing_fraction(prev[2], loss, log_eps)
            else:
                theta = torch.ones_like(loss)
            theta = torch.where(done & (loss > cfg.eps), 1.0, theta)  # stopped by max_steps: the last iterate
            stop_gamma = torch.where(done[:, None], prev[0] + theta[:, None] * (gamma - prev[0]), stop_gamma)
            stop_rho = torch.where(done[:, None, None], prev[1] + theta[:, None, None] * (rho - prev[1]), stop_rho)
            stop_step = torch.where(done, t - 1 + theta if t > 0 else torch.zeros_like(theta), stop_step)
            active = active & ~done
        if not bool(active.any()):
            break
        dg, drho = _increments(dr, cfg, geo, a, b, f)
        prev = (gamma, rho, loss)
        gamma, rho = gamma + dg, rho + torch.maximum(drho, -b.clamp_min(0.0))
    if not bool(torch.isfinite(stop_rho).all() & torch.isfinite(stop_gamma).all()):
        raise NonFiniteError("the signal-noise projected flow produced non-finite values; lower 'eta'")
    a, b = _inner(dr, geo, stop_gamma, stop_rho)
    f = _outputs(dr, cfg.q, a, b)
    time = stop_step * natural_time(cfg.eta, 1.0, cfg.sigma_xi, dr.d)
    return FlowRun(draw=dr, config=cfg, mu_norm=mu, gamma=stop_gamma, rho=stop_rho, f=f, time=time,
                   train_loss=_loss(dr, f), test_error=_test_error(dr, cfg, geo, stop_gamma, stop_rho, a),
                   evaluations=t)


def _crossing_fraction(before: torch.Tensor, after: torch.Tensor, log_eps: float) -> torch.Tensor:
    r"""Per seed, the fraction :math:`\theta \in [0, 1]` of a step where :math:`\log L` interpolated linearly from
    ``before`` to ``after`` reaches :math:`\log\varepsilon`."""
    lb, la = before.log(), after.log()
    theta = (lb - log_eps) / (lb - la)
    return torch.where(torch.isfinite(theta), theta, torch.ones_like(theta)).clamp(0.0, 1.0)


def gd_flow_gap(dr: SignalNoiseDraw, cfg: SignalNoiseConfig, eta: float, *, rtol: float = 1e-9,
                atol: float = 1e-14) -> dict[str, torch.Tensor]:
    r"""How far GD with step ``eta`` ends from the flow, per seed: ``state`` — the relative gap
    :math:`\|(\gamma,\rho)_{GD} - (\gamma,\rho)_{GF}(\tau_{GD})\| / \|(\gamma,\rho)_{GF}(\tau_{GD})\|` at GD's stopping
    time (the discretisation error alone); ``time`` — :math:`\tau_{GD} - \tau_{GF}` of the two stops; ``test_error``
    — the gap of the test errors at the two stops. GD runs to ``cfg.max_steps``, the flow to :math:`\tau_{GD} + 1`
    at most.

    >>> from flt_theory.numeric.signal_noise import draw
    >>> dr = draw(1, n=8, d=2000, width=3, n_test=500, device="cpu")
    >>> cfg = SignalNoiseConfig(q=3, mu_norm=30.0, sigma0=0.3 / 2000**0.5, eps=0.05, max_steps=10**4)
    >>> big, small = (gd_flow_gap(dr, cfg, c / 2000)["state"] for c in (1.0, 0.5))
    >>> 1.7 < float(big[0] / small[0]) < 2.3
    True
    """
    gd = train(dr, dataclasses.replace(cfg, eta=eta))
    taus = natural_time(eta, 1.0, cfg.sigma_xi, dr.d) * gd.steps.to(gd.gamma)
    stop = gradient_flow(dr, cfg, max_time=float(taus.max()) + 1.0, rtol=rtol, atol=atol)
    state = torch.empty_like(taus)
    for s, tau in enumerate(taus.tolist()):  # the flow at each seed's own GD stopping time
        one = _one_seed(dr, s)
        at = gradient_flow(one, dataclasses.replace(cfg, eps=0.0), max_time=tau, mu_norm=gd.mu_norm[s:s + 1],
                           rtol=rtol, atol=atol)
        ref = torch.cat([at.gamma[0].flatten(), at.rho[0].flatten()])
        state[s] = (torch.cat([gd.gamma[s].flatten(), gd.rho[s].flatten()]) - ref).norm() / ref.norm()
    return {"state": state, "time": taus - stop.time, "test_error": gd.test_error - stop.test_error}


def _one_seed(dr: SignalNoiseDraw, s: int) -> SignalNoiseDraw:
    """Seed ``s`` of a draw as a draw of its own."""
    batched = {f.name: getattr(dr, f.name) for f in dataclasses.fields(dr)}
    fields: dict[str, Any] = {key: (val[s:s + 1] if isinstance(val, torch.Tensor) else val)
                              for key, val in batched.items()} | {"seeds": dr.seeds[s:s + 1]}
    return SignalNoiseDraw(**fields)
