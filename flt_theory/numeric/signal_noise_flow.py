r"""Gradient flow of the signal-noise CNN: the :math:`\eta \to 0` limit of every admissible GD step, integrated adaptively.

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
(:func:`_flow_rates`).

Why GF is the limit of every admissible step (derivation, :mod:`derivations.derive_signal_noise_flow`). GD is the
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
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import torch

from .._validation import check_real
from .backend import NonFiniteError
from .signal_noise import (
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

__all__ = ["FlowRun", "gd_flow_gap", "gradient_flow", "natural_time"]


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
class FlowRun:
    r"""The outcome of :func:`gradient_flow` for a batch of seeds (the fields of
    :class:`~flt_theory.numeric.signal_noise.SignalNoiseRun`, with time in place of steps).

    Attributes
    ----------
    draw, config
        What was run (``config.eta`` unused).
    mu_norm : Tensor, shape (seeds,)
    gamma : Tensor, shape (seeds, 2m)
    rho : Tensor, shape (seeds, 2m, n)
    f : Tensor, shape (seeds, n)
    time : Tensor, shape (seeds,)
        Natural time :math:`\tau` of the stop (first :math:`L_S \le \varepsilon`, else ``max_time``).
    train_loss, test_error : Tensor, shape (seeds,)
    evaluations : int
        Right-hand-side evaluations of the integrator (all seeds at once).
    """

    draw: SignalNoiseDraw
    config: SignalNoiseConfig
    mu_norm: torch.Tensor
    gamma: torch.Tensor
    rho: torch.Tensor
    f: torch.Tensor
    time: torch.Tensor
    train_loss: torch.Tensor
    test_error: torch.Tensor
    evaluations: int


class _CachedSign(SignalNoiseDraw):
    """The draw with its neuron signs computed once (the RHS reads them at every evaluation)."""

    def __init__(self, dr: SignalNoiseDraw) -> None:
        super().__init__(**{f.name: getattr(dr, f.name) for f in dataclasses.fields(dr)})
        object.__setattr__(self, "_sign", SignalNoiseDraw.sign.fget(dr))

    @property
    def sign(self) -> torch.Tensor:
        return self._sign


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
    dr: SignalNoiseDraw,
    cfg: SignalNoiseConfig,
    *,
    max_time: float,
    mu_norm: torch.Tensor | None = None,
    rtol: float = 1e-6,
    atol: float = 1e-12,
    method: str = "RK45",
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
    to = dict(device=dr.y.device, dtype=dr.y.dtype)

    def unpack(y: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        t = torch.as_tensor(y, **to)
        return t[:split].reshape(seeds, m2), t[split:].reshape(seeds, m2, n)

    rate_cfg = _rate_config(dr, cfg)
    fast = _CachedSign(dr)

    def rhs(_t: float, y: np.ndarray) -> np.ndarray:
        dg, drho = _flow_rates(fast, rate_cfg, geo, *unpack(y))
        return torch.cat([dg.flatten(), drho.flatten()]).cpu().numpy()

    losses = _Losses(unpack, fast, cfg, geo)
    log_eps = math.log(cfg.eps) if cfg.eps > 0 else -math.inf

    def event(s: int, terminal: bool):
        def crossing(t: float, y: np.ndarray) -> float:
            loss = losses(t, y)
            return float(np.log(loss.max() if terminal else loss[s]) - log_eps)
        crossing.terminal, crossing.direction = terminal, -1
        return crossing

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
                   time=torch.as_tensor(times, **to), train_loss=_loss(dr, f),
                   test_error=_test_error(dr, cfg, geo, gamma_all, rho_all, a), evaluations=int(sol.nfev))


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
    return SignalNoiseDraw(**{key: (val[s:s + 1] if isinstance(val, torch.Tensor) else val)
                              for key, val in batched.items()} | {"seeds": dr.seeds[s:s + 1]})
