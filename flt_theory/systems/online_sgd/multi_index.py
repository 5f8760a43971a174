r"""Online SGD of a two-layer network in mean-field scaling on a multi-index target (torch only).

Source: Abbe, Boix-Adserà, Misiakiewicz 2023, "SGD learning on neural networks: leap complexity and
saddle-to-saddle dynamics", arXiv 2302.11055.

Setting. Target :math:`y = f^*(z)`, :math:`z = (x_1, \dots, x_r)` the first :math:`r` coordinates of
:math:`x \sim \mathcal N(0, I_d)` (teacher directions :math:`e_1 \dots e_r`), one fresh sample per step. The labels
are the symbolic target itself, evaluated by the project's one teacher
(:class:`~flt_theory.numeric.teacher.Teacher`, directions :math:`e_1 \dots e_r`). Student in
mean-field scaling

.. math:: \hat f(x) = \frac1p \sum_{j=1}^p a_j\,\sigma(\langle w_j, x\rangle),

student activation :math:`\sigma(u) = \tanh(u + b)` (``bias`` :math:`b = 1/2`: its Hermite coefficients of
every degree are nonzero; a ReLU's third one vanishes, and the leap-2 step needs
:math:`\mathbb E\,\sigma^{(3)} \ne 0`), square loss :math:`\tfrac12(y - \hat f)^2`, both layers trained by online
SGD with the mean-field learning rate
(the per-neuron gradient times :math:`p`):

.. math:: w_j \leftarrow w_j + \eta\,(y - \hat f)\,a_j\,\sigma'(u_j)\,x, \qquad
          a_j \leftarrow a_j + \eta\,(y - \hat f)\,\sigma(u_j), \qquad u_j = \langle w_j, x\rangle,

with :math:`\eta = \tilde\eta / d`. Time normalisation (Abbe et al. 2023): the mean-field time is
:math:`t = \eta\,n` with :math:`n` the samples used, so :math:`n = t\,d/\tilde\eta`; their main result is that the
dynamics learns a target of leap :math:`L` in :math:`n = \tilde\Theta(d^{\max(L-1, 1)})` samples, i.e. in
mean-field time :math:`t = O(1)` per leap-1 step, and :math:`t \asymp \log d` for a leap-2 step (the new
coordinates grow exponentially from their :math:`O(d^{-1/2})` start, at a rate independent of :math:`d`: the
saddle-to-saddle plateau).

Initialisation. :math:`w_j \sim \mathcal N(0, I_d/d)` (stream ``"online-sgd/multi-init"``),
:math:`a_j = \pm a_0` alternating in :math:`j` (a symmetric start: :math:`\hat f = 0` when :math:`p` is even).

Learned direction (the measurement). The mass of the first layer on :math:`e_i` is the mean squared cosine

.. math:: M_i(t) = \frac1p\sum_j \frac{\langle w_j, e_i\rangle^2}{\|w_j\|^2}, \qquad M_i(0) \approx 1/d;

direction :math:`i` is **learned** at the first recorded step (every ``record_every`` samples) with
:math:`M_i \ge` ``threshold``; a seed whose direction is not learned within ``max_steps`` is censored there.
The cosine is invariant to the growth of :math:`\|w_j\|` by the orthogonal noise (:math:`O(\tilde\eta)` per unit
of mean-field time).

Why not reduced coordinates. The dynamics is exactly reducible as the single-index one is (:mod:`.model`): the
state is the :math:`p\times r` matrix of components on :math:`e_1..e_r` and the :math:`p\times p` Gram matrix
:math:`G` of the orthogonal parts; a fresh sample's orthogonal part enters through :math:`L g`
(:math:`G = LL^\top`, :math:`g \sim \mathcal N(0, I_p)`) and an independent :math:`\chi^2_{d-r-p}` norm. That
needs a Cholesky factor per step (:math:`O(p^3)`), while the literal step costs :math:`O(p\,d)` — at the sizes
used here (:math:`p \le 16`, :math:`d \le 512`) both are dominated by the per-step overhead, so the literal
:math:`d`-dimensional SGD is simulated (no reduction to test).

Seeds and streams. Seeds are the leading batch dimension; the samples of steps :math:`bB \dots (b+1)B - 1`
(:math:`B` = :data:`BLOCK_STEPS`) of seed :math:`s` come from the stream ``"online-sgd/multi-x/b"``, so a seed's path
does not depend on which seeds share the batch. Arithmetic in float64.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..._validation import check_int, check_real
from ...errors import InvalidParameterError
from ...numeric.backend import check_finite, resolve_device
from ...numeric.data import as_seeds, seeded_normal
from ...numeric.teacher import Teacher
from ...symbolic.target import Target

__all__ = ["BLOCK_STEPS", "MultiIndexResult", "two_layer_online_sgd"]

#: Steps drawn per random block (seed contract in the module docstring).
BLOCK_STEPS = 256
_DTYPE = torch.float64


@dataclass(frozen=True, kw_only=True)
class MultiIndexResult:
    r"""Per-seed results of :func:`two_layer_online_sgd`, each of shape ``(seeds, r)``."""

    #: Samples until direction :math:`i` is learned (int64; ``max_steps`` where censored).
    times: torch.Tensor
    #: Whether ``max_steps`` ended first (bool).
    censored: torch.Tensor
    #: :math:`M_i` at the reading where the seed's last direction was learned (after ``max_steps`` if one is
    #: censored).
    final_mass: torch.Tensor


def _masses(w: torch.Tensor, r: int) -> torch.Tensor:
    """:math:`M_i`, shape ``(seeds, r)``, of first-layer weights ``w`` of shape ``(seeds, p, d)``."""
    return (w[..., :r] ** 2 / (w * w).sum(-1, keepdim=True)).mean(1)


def two_layer_online_sgd(
    target: str | Target,
    d: int,
    *,
    p: int,
    eta_tilde: float,
    seeds: int | Sequence[int],
    max_steps: int,
    bias: float = 0.5,
    a0: float = 1.0,
    init_scale: float = 1.0,
    threshold: float = 0.1,
    record_every: int = 16,
    device: str | torch.device = "auto",
) -> MultiIndexResult:
    r"""Online SGD of the mean-field two-layer network (module docstring), batched over seeds; stops when every
    direction of every seed is learned or after ``max_steps`` samples.

    Parameters
    ----------
    target
        :math:`f^*(z_1..z_r)` in the grammar of :class:`~flt_theory.symbolic.Target` (e.g. ``"z1 + z1*z2*z3"``).
    d
        Dimension, at least ``r + 1``.
    p
        Width (an even width makes the start :math:`\hat f = 0`).
    eta_tilde
        :math:`\tilde\eta` in :math:`\eta = \tilde\eta/d`.
    seeds
        Number of seeds or their values.
    max_steps
        Samples at most.
    bias
        :math:`b` in the student activation :math:`\sigma(u) = \tanh(u + b)` (module docstring).
    a0
        :math:`|a_j|` at the start.
    init_scale
        :math:`s` in :math:`w_j \sim \mathcal N(0, s^2 I_d/d)` at the start (default 1: the paper's start).
    threshold
        :math:`M_i` at which direction :math:`i` is learned.
    record_every
        Samples between two readings of :math:`M` (a divisor of :data:`BLOCK_STEPS`).
    device
        ``"auto"``, ``"cpu"``, ``"cuda"``…

    >>> res = two_layer_online_sgd("z1", 16, p=4, eta_tilde=0.5, seeds=2, max_steps=4096, device="cpu")
    >>> res.times.shape, bool(res.censored.any())
    (torch.Size([2, 1]), False)
    """
    caller = "two_layer_online_sgd"
    parsed = target if isinstance(target, Target) else Target.parse(target)
    r = parsed.rank
    d = check_int(d, "d", minimum=r + 1, caller=caller)
    p = check_int(p, "p", minimum=1, caller=caller)
    eta = check_real(eta_tilde, "eta_tilde", minimum=0, caller=caller) / d
    max_steps = check_int(max_steps, "max_steps", minimum=1, caller=caller)
    threshold = check_real(threshold, "threshold", minimum=0, caller=caller)
    record_every = check_int(record_every, "record_every", minimum=1, caller=caller)
    if BLOCK_STEPS % record_every:
        raise InvalidParameterError(f"The 'record_every' parameter of {caller} must divide {BLOCK_STEPS}. Got "
                                    f"{record_every!r} instead.")
    bias = check_real(bias, "bias", caller=caller)
    seeds = as_seeds(seeds)
    dev = resolve_device(device)
    n = len(seeds)
    teacher = Teacher(parsed, torch.eye(r, d, device=dev, dtype=_DTYPE).expand(n, r, d))
    w = seeded_normal(seeds, (p, d), "online-sgd/multi-init", device=dev, dtype=_DTYPE) * (
        check_real(init_scale, "init_scale", minimum=0, strict_minimum=True, caller=caller) / math.sqrt(d))
    a = a0 * torch.tensor([(-1.0) ** j for j in range(p)], device=dev, dtype=_DTYPE).expand(n, p).clone()
    times = torch.full((n, r), max_steps, device=dev, dtype=torch.int64)
    done = torch.zeros((n, r), device=dev, dtype=torch.bool)
    final = torch.zeros((n, r), device=dev, dtype=_DTYPE)
    with torch.no_grad():  # not inference_mode: seeded_normal fills its blocks from worker threads
        for block in range(math.ceil(max_steps / BLOCK_STEPS)):
            xs = seeded_normal(seeds, (BLOCK_STEPS, d), f"online-sgd/multi-x/{block}", device=dev, dtype=_DTYPE)
            ys = teacher.link(xs[..., :r])  # the projections on e_1..e_r are the first r coordinates
            length = min(BLOCK_STEPS, max_steps - block * BLOCK_STEPS)
            for t in range(length):
                x = xs[:, t]
                act = torch.bmm(w, x[:, :, None])[..., 0].add_(bias).tanh_()
                step = (ys[:, t] - (a * act).mean(-1)).mul_(eta)[:, None]
                w.baddbmm_((1 - act * act).mul_(a).mul_(step)[..., None], x[:, None, :])
                a.addcmul_(step, act)
                if (t + 1) % record_every == 0:
                    masses = _masses(w, r)
                    hit = (masses >= threshold) & ~done
                    times = torch.where(hit, block * BLOCK_STEPS + t + 1, times)
                    finished = (done | hit).all(-1) & ~done.all(-1)
                    final = torch.where(finished[:, None], masses, final)
                    done = done | hit
            check_finite(w, "the first-layer weights", "lower eta_tilde")
            if bool(done.all()):
                break
    final = torch.where(done.all(-1)[:, None], final, _masses(w, r))
    return MultiIndexResult(times=times.clone(), censored=(~done).clone(), final_mass=final.clone())
