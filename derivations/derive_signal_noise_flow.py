r"""Gradient flow of the signal-noise CNN: why it is the :math:`\eta \to 0` limit of every admissible GD step, and
what that says about the step-size hypothesis of Cao, Chen, Belkin, Gu 2022 (arXiv 2202.06526, Condition 4.2(3)).

Setting (:mod:`flt_theory.numeric.signal_noise`): the two-layer CNN on signal-noise data is simulated exactly in
the coefficients :math:`(\gamma, \rho)`; one GD step is
:math:`(\gamma, \rho) \mapsto (\gamma, \rho) + \eta\,F(\gamma, \rho)` with :math:`F` the GD increment divided by
:math:`\eta` (it does not depend on :math:`\eta`).

Claim 1 (derivation). In the natural time :math:`\tau = \eta t\sigma_\xi^2 d`, GD with :math:`\eta = c/(\sigma_\xi^2 d)`
is the explicit Euler scheme, with step :math:`h = c` in :math:`\tau`, of the ODE
:math:`d(\gamma, \rho)/d\tau = F/(\sigma_\xi^2 d)` — the gradient flow (GF) of the training loss projected on
:math:`(\gamma, \rho)`. :math:`F` is locally Lipschitz for :math:`q \ge 2` (:math:`\sigma' = q\,\mathrm{ReLU}^{q-1}`,
:math:`\ell'` smooth), so on a bounded :math:`\tau`-interval the Euler iterates converge to the flow with global
error :math:`\le C(T)\,h`: every admissible step (Condition 4.2(3), :math:`\eta \le 1/(\sigma_\xi^2 d)`, i.e.
:math:`h \le 1`) lies within :math:`O(h)` of ONE trajectory, and the first time :math:`L_S \le \varepsilon` with it (the
stopping rule: :math:`L_S` is non-increasing along the flow and crosses :math:`\varepsilon` transversally). Below: the
order is read off the exact Euler solution of :math:`x' = \lambda x`
(:math:`(1 + h\lambda)^{T/h} = e^{\lambda T}(1 - \lambda^2 T h/2 + O(h^2))`), then measured on the CNN (the gap halves
when :math:`\eta` halves).

Claim 2 (reading of the hypothesis). Condition 4.2(3) bounds :math:`\eta` from above only; the theorem's conclusions
hold for every :math:`\eta` below the bound, hence (by Claim 1, the limit of quantities that hold at every
admissible :math:`\eta` up to :math:`O(\eta)`) for the flow. A GF run is therefore read as satisfying (3), as
:math:`\eta \to 0^+` (``eta = 0`` in the hypothesis values of a ``dynamics="flow"`` point;
:data:`flt_theory.systems.signal_noise.laws.FLOW_READING`). It does not relax (1) or (4): a flow point is inside
Condition 4.2 only where :math:`d \ge m^4 n^4` and :math:`\sigma_0` lies in the window (4) as well.

Claim 3 (ReLU: the switch-aware projected flow, :func:`flt_theory.numeric.signal_noise_flow.projected_flow`). For
:math:`q = 1` the field jumps on :math:`b_{j,r,i} = 0`; a wrong-class coefficient (:math:`j = -\tilde y_i`) is pulled
towards it at rate :math:`p` while the cross terms move it at rate :math:`\delta`. Where :math:`0 < \delta < p` the
flow slides on :math:`b = 0` (Filippov): :math:`\dot\rho = -\delta`. Since
:math:`\partial b_{j,r,i}/\partial\rho_{j,r,i} = G_{ii}/G_{ii} = 1` exactly, the projected step
:math:`\rho \leftarrow \rho + \max(-hp, -\max(b, 0))` reaches the surface in one step and then moves :math:`\rho` by
exactly :math:`-h\delta` per step, the sliding rate, with :math:`b` within one step's drift :math:`h\delta` of 0 —
whatever :math:`h`; unprojected Euler (GD at step :math:`h`) overshoots by up to :math:`hp`. Checked below on the scalar
model, then on the CNN (``tests/systems/test_signal_noise_flow.py``: the one-step identity; at :math:`n = 16`,
:math:`d = 10^6`, 8 seeds the final test errors at :math:`h = nm/16` are within :math:`3\cdot10^{-5}` on average of GD
at the bound, GD at :math:`h = nm` is :math:`+0.024` off). This is the reading under which the Kou et al. boundary
claims (``CLAIMS`` below) run inside Condition 4.1 at paper scale.

Cost (measured, ReLU³, :math:`m = 10`, :math:`n = 16`, :math:`d = m^4 n^4 = 6.6\cdot10^8`,
:math:`\sigma_0\sqrt d = 1/(m^2 n)`, one seed, harmful side :math:`\mathrm{SNR} = 0.3`): the flow stops at
:math:`\tau = 2.25\cdot10^5` — as many GD steps at the bound — after 3812 right-hand-side evaluations (RK45, rtol
:math:`10^{-6}`; about 8 s on a loaded core).
"""

import math

import sympy as sp

from flt_theory.numeric.signal_noise import SignalNoiseConfig, draw
from flt_theory.numeric.signal_noise_flow import gd_flow_gap
from flt_theory.symbolic.hypothesis import point_inside
from flt_theory.systems.signal_noise import laws

D = 2000
#: The claim this derivation underwrites: its points run the flow (``flt check derivations/`` runs it).
CLAIMS = ["signal-noise/relu3-boundary-d", "signal-noise/relu-boundary-slope", "signal-noise/relu-boundary-d"]


def test_euler_is_first_order():
    h, lam, T = sp.symbols("h lambda T", positive=True)
    euler = sp.exp(T / h * sp.log(1 + h * lam))  # (1 + h lambda)^(T/h)
    relative = sp.series(euler / sp.exp(lam * T), h, 0, 2).removeO()
    assert sp.simplify(relative - (1 - lam**2 * T * h / 2)) == 0  # the gap is linear in the step


def test_gd_gap_to_the_flow_is_first_order_in_eta():
    dr = draw([0, 1], n=8, d=D, width=3, n_test=500, device="cpu")
    cfg = SignalNoiseConfig(q=3, mu_norm=30.0, sigma0=0.3 / math.sqrt(D), eps=0.05, max_steps=10**5)
    gaps = [gd_flow_gap(dr, cfg, c / D)["state"] for c in (1.0, 0.5)]
    order = (gaps[0] / gaps[1]).log2()
    print("order per seed", order.tolist())
    assert ((order - 1).abs() < 0.15).all()


def test_a_flow_point_satisfies_the_step_size_hypothesis_only():
    step = laws.cao_hypotheses(3)[1]
    outside_d = {"n": 16, "m": 10, "d": 10**5, "sigma_xi": 1.0, "mu": 0.4 * 10**2.5, "sigma0": 0.01 / 10**2.5,
                 "eta": 0.0}
    assert step.holds(outside_d) and not point_inside(laws.cao_hypotheses(3), outside_d)  # flow fixes (3), not (1), (4)
    assert "eta -> 0+" in step.text


def test_the_projected_step_slides_at_the_filippov_rate():
    h, p, delta, b = sp.symbols("h p delta b", positive=True)
    rho_b = sp.Symbol("rho")  # the own coefficient; b = b0 + rho + (cross terms), d b / d rho = 1
    own = sp.Function("G")
    assert sp.diff(rho_b * own(1, 1) / own(1, 1), rho_b) == 1

    def projected(b_now):  # one step: own move bounded by the surface, then the cross drift
        return b_now + sp.Max(-h * p, -sp.Max(b_now, 0)) + h * delta, sp.Max(-h * p, -sp.Max(b_now, 0))

    def euler(b_now):  # GD at step h: the full own move while active
        return b_now + sp.Piecewise((-h * p, b_now > 0), (0, True)) + h * delta

    # hp > b: one step reaches 0
    values = {h: 1, p: sp.Rational(1, 2), delta: sp.Rational(1, 20), b: sp.Rational(3, 10)}
    state = b.subs(values)
    moves = []
    for _ in range(4):
        state, move = (x.subs(values) for x in projected(state))
        moves.append(move)
    assert state == values[delta] and moves[1:] == [-values[delta]] * 3  # on the surface, rho falls at the drift rate
    overshoot = euler(b).subs(values)
    assert overshoot < 0 and -overshoot > values[h] * values[delta]  # GD at step h lands below, by ~ h p - b
