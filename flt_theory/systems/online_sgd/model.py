r"""Spherical online SGD of one neuron on fresh Gaussian samples, in exact reduced coordinates (torch only).

Source: Ben Arous, Gheissari, Jagannath 2021, "Online stochastic gradient descent on non-convex losses from
high-dimensional inference", arXiv 2003.10409 (JMLR 22).

Setting. Target :math:`y = g(\langle w^*, x\rangle)`, :math:`\|w^*\| = 1`, :math:`x \sim \mathcal N(0, I_d)`, one
fresh sample per step. Student :math:`\sigma(\langle w, x\rangle)` with :math:`w` on the sphere
:math:`S^{d-1}` (default :math:`\sigma = g`). Per-sample loss :math:`L(w; x, y)`: the correlation loss
:math:`-y\,\sigma(u)` or the square loss :math:`\tfrac12(\sigma(u) - y)^2`, :math:`u = \langle w, x\rangle`. Its
gradient is a scalar times the sample, :math:`\nabla_w L = c\,x` with

.. math:: c = -y\,\sigma'(u) \ \text{(correlation)}, \qquad c = (\sigma(u) - y)\,\sigma'(u) \ \text{(square)}.

One step of spherical online SGD (the spherical gradient :math:`(I - ww^\top)\nabla_w L = c\,(x - u\,w)`, then a
retraction to the sphere):

.. math:: \tilde w = w - \eta\,c\,(x - u\,w), \qquad w' = \tilde w / \|\tilde w\|.

Reduced dynamics (exact). Write :math:`w = m\,w^* + s\,e` with :math:`m = \langle w, w^*\rangle`,
:math:`s = \sqrt{1 - m^2}` and :math:`e \perp w^*` a unit vector, and decompose the fresh sample along
:math:`(w^*, e)` and the rest: :math:`x = z_1 w^* + z_2 e + r`, :math:`r \perp \operatorname{span}(w^*, e)`. Since
:math:`x` is independent of the past and isotropic, :math:`z_1, z_2 \sim \mathcal N(0, 1)` and
:math:`r \sim \mathcal N(0, I_{d-2})` on the orthogonal complement are independent, and
:math:`\|r\|^2 = q \sim \chi^2_{d-2}`. Then :math:`u = m z_1 + s z_2`, :math:`y = g(z_1)`, :math:`c = c(u, y)`,
:math:`h = \eta c`, and

.. math::

    \tilde w = A\,w^* + B\,e - h\,r, \qquad A = m + h\,(m u - z_1), \qquad B = s + h\,(s u - z_2),

    \|\tilde w\|^2 = A^2 + B^2 + h^2 q, \qquad m' = \frac{A}{\|\tilde w\|}, \qquad
    s' = \frac{\sqrt{B^2 + h^2 q}}{\|\tilde w\|}.

The new orthogonal direction :math:`e' \propto B\,e - h\,r` is again a unit vector orthogonal to :math:`w^*`, and the
next sample is fresh, so its decomposition along :math:`(w^*, e')` has the same law: the overlap :math:`m_t` is a
Markov chain whose step draws :math:`(z_1, z_2, q)` — three numbers, whatever :math:`d` — and the remainder
:math:`r` enters only through its norm. This is an identity in distribution for the whole path
:math:`(m_t)_t`, not an approximation; ``tests/systems/test_online_sgd_model.py`` checks it against
:func:`literal_online_sgd` (the :math:`d`-dimensional update above, with the samples themselves) with a
two-sample Kolmogorov–Smirnov test, and checks that the same test rejects the reduction without the remainder
(:math:`q = 0`).

Smoothed loss (``smoothing`` :math:`= \lambda > 0`; Damian, Nichani, Ge, Lee 2023, arXiv 2305.10633). The per-sample
smoothed loss is a function of :math:`u` and :math:`\|x\|^2` only (:mod:`.smoothing`), so its spherical gradient is
again :math:`c\,(x - u w)` with :math:`c` a polynomial in :math:`(u, \|x\|^2 - u^2)`, and the reduction above holds
unchanged with :math:`\|x\|^2 = z_1^2 + z_2^2 + q`: the remainder now enters the coefficient too.

Initialisation. :math:`m_0 = a/\sqrt d` with :math:`a` = ``overlap0`` (the typical overlap of a uniform start,
taken positive), :math:`s_0 = \sqrt{1 - m_0^2}`.

Weak recovery. The first step :math:`t` (the number of samples used) with :math:`m_t \ge 1/2` — or
:math:`|m_t| \ge 1/2` when ``symmetric`` (a population loss even in :math:`m`, where :math:`\pm w^*` are equally
good); ``censored`` when ``max_steps`` ends first (its time is then reported as ``max_steps``, a lower bound).

Seeds and streams. Seeds are the leading batch dimension; the draws of steps :math:`bB \dots (b+1)B - 1`
(:math:`B` = :data:`BLOCK_STEPS`) of seed :math:`s` come from generators seeded by the project's stream seed
(:func:`flt_theory.numeric.seeds.fold_in`) of :math:`(s, \text{"online-sgd/z"}, b)` (normals :math:`z_1, z_2`) and
:math:`(s, \text{"online-sgd/chi2"}, b)` (:math:`q = 2\,\Gamma((d-2)/2)`), so a seed's path does not depend on
which seeds share the batch or on ``max_steps`` (a shorter run reads a prefix). Arithmetic in float64: a step
moves :math:`m` by :math:`O(\eta) \ll` float32's resolution at :math:`m \approx 1`.

Cost. :math:`O(\text{seeds})` per step, independent of :math:`d`; the loop over steps is the only Python loop.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from ..._validation import check_int, check_real
from ...errors import InvalidParameterError
from ...numeric.activation import Activation, as_activation
from ...numeric.backend import check_finite, resolve_device
from ...numeric.data import as_seeds, seeded_normal
from ...numeric.seeds import fold_in
from ...runner.params import Param, Params
from .smoothing import SmoothedLoss, smoothed_loss_by_quadrature, smoothing_nodes

__all__ = ["BLOCK_STEPS", "LOSSES", "MAX_SMOOTHING", "PARAMS", "THRESHOLD", "OnlineSGDResult", "PolynomialLink",
           "gradient_coefficient", "literal_online_sgd", "online_sgd", "reduced_step"]

#: Steps drawn per random block (seed contract in the module docstring).
BLOCK_STEPS = 1024
#: The per-sample losses.
LOSSES = ("correlation", "square")
#: Weak recovery: overlap at least 1/2.
THRESHOLD = 0.5
#: Largest ``smoothing`` (:math:`\tilde\lambda`; the theorem of Damian et al. 2023 needs :math:`\tilde\lambda \le 1`).
MAX_SMOOTHING = 10.0

#: The parameters of the system, declared once: the runner's ``online-sgd/recovery`` and ``online-sgd/multi-index``
#: (converters; each takes its subset and defaults) and ``flt simulate online-sgd`` (options and bounds) read them.
#: The joint conditions (``overlap0 < sqrt(d)``, smoothing only for a polynomial target) stay with :func:`online_sgd`.
PARAMS = Params(
    Param("target", "str", help="Target link g(z) (the student is sigma = g)."),
    Param("d", "int", minimum=3, unit="count", help="Dimension."),
    Param("eta_tilde", "float", minimum=0, exclusive_minimum=True,
          help="eta_tilde in eta = eta_tilde d^(-max(1, k/2))."),
    Param("overlap0", "float", minimum=0, default=1.0,
          help="Initial overlap times sqrt(d) (m0 = overlap0/sqrt(d) < 1)."),
    Param("loss", "choice", choices=LOSSES, default="correlation", help="Per-sample loss."),
    Param("max_steps", "int", minimum=1, unit="samples", help="Samples at most per run."),
    Param("smoothing", "float", minimum=0, maximum=MAX_SMOOTHING, default=0.0,
          help="Smoothing radius lambda = smoothing * d^(1/4) of the loss (Damian et al. 2023; polynomial target "
               "only), with eta = eta_tilde lambda^(2k-2) d^(-k/2); 0: plain online SGD."),
    Param("transform", "int", minimum=0, maximum=1, default=0,
          help="1: train the student He_{k*} on the labels T(y) (Damian et al. 2024)."),
    Param("seeds", "int", minimum=2, default=8, unit="count", help="Independent runs (seeds 0..S-1)."),
    Param("p", "int", minimum=1, unit="count", help="Student width (neurons) of the multi-index network."),
    Param("threshold", "float", minimum=0, exclusive_minimum=True, default=0.1,
          help="Overlap at which a direction counts as learned."),
    Param("init_scale", "float", minimum=0, exclusive_minimum=True, default=1.0, help="Initialisation scale."),
)

_DTYPE = torch.float64


@dataclass(frozen=True, kw_only=True)
class OnlineSGDResult:
    r"""Per-seed results of :func:`online_sgd`: tensors of shape ``(seeds,)`` except the trace."""

    #: Samples used until weak recovery (int64; ``max_steps`` where censored).
    steps: torch.Tensor
    #: Whether ``max_steps`` ended first (bool).
    censored: torch.Tensor
    #: :math:`m` at the end of the seed's run: at its recovery step when ``stop_at_recovery``, else after
    #: ``max_steps`` steps.
    final_overlap: torch.Tensor
    #: With ``trace_every`` :math:`= k > 0`: :math:`m` after steps :math:`k, 2k, \dots` of the steps run, shape
    #: ``(points, seeds)``; else None.
    trace: torch.Tensor | None = None


@dataclass(frozen=True)
class PolynomialLink:
    r"""A polynomial :math:`\sigma(z) = \sum_j a_j z^j` (``coefficients`` :math:`a_0, a_1, \dots`) evaluated by Horner's
    rule: the same interface as :class:`~flt_theory.numeric.activation.Activation` (``link(z)``, ``link.grad(z)``) at
    a few tensor operations per call — the per-step cost of :func:`online_sgd` for polynomial links (the symbolic
    layer supplies the coefficients: :func:`flt_theory.systems.online_sgd.laws.polynomial_coefficients`).

    >>> he3 = PolynomialLink((0.0, -3.0, 0.0, 1.0))
    >>> he3(torch.tensor([2.0])), he3.grad(torch.tensor([2.0]))
    (tensor([2.]), tensor([9.]))
    """

    coefficients: tuple[float, ...]
    #: :math:`a_1, 2a_2, \dots` (the coefficients of :math:`\sigma'`), set by ``__post_init__``.
    _derivative: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.coefficients or not all(math.isfinite(float(a)) for a in self.coefficients):
            raise InvalidParameterError("The 'coefficients' of a PolynomialLink must be a non-empty tuple of finite "
                                        f"numbers. Got {self.coefficients!r} instead.")
        derivative = tuple(float(j * a) for j, a in enumerate(self.coefficients))[1:] or (0.0,)
        object.__setattr__(self, "_derivative", derivative)

    @staticmethod
    def _horner(coefficients: Sequence[float], z: torch.Tensor) -> torch.Tensor:
        if len(coefficients) == 1:
            return torch.full_like(z, float(coefficients[0]))
        out = torch.mul(z, float(coefficients[-1])).add_(float(coefficients[-2]))
        for a in reversed(coefficients[:-2]):
            out.mul_(z).add_(float(a))
        return out

    def __call__(self, z: torch.Tensor) -> torch.Tensor:
        return self._horner(self.coefficients, z)

    def grad(self, z: torch.Tensor) -> torch.Tensor:
        return self._horner(self._derivative, z)


Link = str | Activation | PolynomialLink


def _as_link(link: Link) -> Activation | PolynomialLink:
    return link if isinstance(link, PolynomialLink) else as_activation(link)


def gradient_coefficient(loss: str, activation: Activation | PolynomialLink, u: torch.Tensor,
                         y: torch.Tensor) -> torch.Tensor:
    r"""The scalar :math:`c` of :math:`\nabla_w L = c\,x` (module docstring).

    >>> act = as_activation("z")
    >>> gradient_coefficient("square", act, torch.tensor([2.0]), torch.tensor([0.5]))
    tensor([1.5000])
    """
    if loss == "correlation":
        return -y * activation.grad(u)
    if loss == "square":
        return (activation(u) - y) * activation.grad(u)
    raise InvalidParameterError(f"The 'loss' parameter must be one of {LOSSES}. Got {loss!r} instead.")


def reduced_step(m: torch.Tensor, s: torch.Tensor, z1: torch.Tensor, z2: torch.Tensor, root_q: torch.Tensor,
                 y: torch.Tensor, eta: float, loss: str, activation: Activation | PolynomialLink,
                 smoothed: SmoothedLoss | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    r"""One exact step of the reduced dynamics: :math:`(m, s) \mapsto (m', s')` (module docstring), all ``(seeds,)``;
    ``root_q`` is :math:`\sqrt q = \|r\|`. With ``smoothed``, the coefficient :math:`c` is that of the smoothed
    per-sample loss (:mod:`.smoothing`), a function of :math:`u` and :math:`\|x\|^2 = z_1^2 + z_2^2 + q`.

    >>> one = torch.ones(1, dtype=torch.float64)
    >>> m, s = reduced_step(0 * one, one, one, 0 * one, 0 * one, one, 0.5, "correlation", as_activation("z"))
    >>> round(float(m), 6), round(float(m**2 + s**2), 12)
    (0.447214, 1.0)
    """
    u = torch.addcmul(m * z1, s, z2)
    if smoothed is None:
        h = eta * gradient_coefficient(loss, activation, u, y)
    else:
        h = eta * smoothed.coefficient(u, z1 * z1 + z2 * z2 + root_q * root_q - u * u, y)
    a = torch.addcmul(m, h, m * u - z1)
    b = torch.addcmul(s, h, s * u - z2)
    rest = torch.hypot(b, h * root_q)
    norm = torch.hypot(a, rest)
    return a / norm, rest / norm


def _check(d: int, eta: float, max_steps: int, overlap0: float, loss: str,
           caller: str) -> tuple[int, float, int, float]:
    d = check_int(d, "d", minimum=3, caller=caller)
    eta = check_real(eta, "eta", minimum=0, caller=caller)
    max_steps = check_int(max_steps, "max_steps", minimum=1, caller=caller)
    overlap0 = check_real(overlap0, "overlap0", minimum=0, caller=caller)
    if overlap0 >= math.sqrt(d):
        raise InvalidParameterError(f"The 'overlap0' parameter of {caller} must be < sqrt(d) = {math.sqrt(d):.4g} "
                                    f"(m0 = overlap0/sqrt(d) < 1). Got {overlap0!r} instead.")
    if loss not in LOSSES:
        raise InvalidParameterError(f"The 'loss' parameter of {caller} must be one of {LOSSES}. Got {loss!r} instead.")
    return d, eta, max_steps, overlap0


def _smoothed(student: Activation | PolynomialLink, smoothing: float, d: int, loss: str,
              caller: str) -> SmoothedLoss | None:
    smoothing = check_real(smoothing, "smoothing", minimum=0, caller=caller)
    if smoothing == 0:
        return None
    if not isinstance(student, PolynomialLink):
        raise InvalidParameterError(f"The 'smoothing' parameter of {caller} needs a polynomial student (a "
                                    f"PolynomialLink). Got {student!r} instead.")
    return SmoothedLoss(student.coefficients, lam=smoothing, d=d, loss=loss)


def _block(seeds: tuple[int, ...], block: int, d: int, device: torch.device) -> tuple[torch.Tensor, ...]:
    """``(z1, z2, sqrt(q))`` of one block of steps, each ``(BLOCK_STEPS, seeds)`` (seed contract)."""
    z = torch.empty((len(seeds), BLOCK_STEPS, 2), device=device, dtype=_DTYPE)
    q = torch.empty((len(seeds), BLOCK_STEPS), device=device, dtype=_DTYPE)
    alpha = torch.full((BLOCK_STEPS,), (d - 2) / 2, device=device, dtype=_DTYPE)
    gen = torch.Generator(device=device)
    for row, seed in enumerate(seeds):
        gen.manual_seed(fold_in(seed, "online-sgd/z", block))
        torch.randn((BLOCK_STEPS, 2), generator=gen, out=z[row], device=device, dtype=_DTYPE)
        gen.manual_seed(fold_in(seed, "online-sgd/chi2", block))
        q[row] = torch._standard_gamma(alpha, generator=gen)
    z = z.transpose(0, 1)
    return z[..., 0].contiguous(), z[..., 1].contiguous(), (2 * q).sqrt().transpose(0, 1).contiguous()


def online_sgd(link: Link, d: int, *, eta: float, seeds: int | Sequence[int], max_steps: int,
               loss: str = "correlation", activation: Link | None = None, overlap0: float = 1.0,
               symmetric: bool = False, stop_at_recovery: bool = True, smoothing: float = 0.0, trace_every: int = 0,
               device: str | torch.device = "auto") -> OnlineSGDResult:
    r"""Spherical online SGD in reduced coordinates, batched over seeds (module docstring).

    Parameters
    ----------
    link
        The target link :math:`g(z)` (e.g. ``"He3(z)"``).
    d
        Dimension, at least 3 (enters only through :math:`q \sim \chi^2_{d-2}` and :math:`m_0`).
    eta
        Step size :math:`\eta`.
    seeds
        Number of seeds or their values.
    max_steps
        Samples at most per seed.
    loss
        ``"correlation"`` or ``"square"``.
    activation
        Student :math:`\sigma` (default: the link).
    overlap0
        :math:`a` in :math:`m_0 = a/\sqrt d`.
    symmetric
        Weak recovery as :math:`|m| \ge 1/2` (else :math:`m \ge 1/2`).
    stop_at_recovery
        End the run once every seed has recovered (``final_overlap`` is then the overlap at recovery).
    smoothing
        Smoothing radius :math:`\lambda` of the loss (Damian et al. 2023, :mod:`.smoothing`); 0 (default): none.
        Needs a polynomial student (a :class:`PolynomialLink`).
    trace_every
        Record the overlap every this many steps (a divisor of :data:`BLOCK_STEPS`); 0 (default): no trace.
    device
        ``"auto"``, ``"cpu"``, ``"cuda"``…

    >>> res = online_sgd("He2(z)", 64, eta=0.2 / 64, seeds=2, max_steps=20000, device="cpu")
    >>> bool(res.censored.any()), bool((res.final_overlap.abs() >= 0.5).all())
    (False, True)
    """
    d, eta, max_steps, overlap0 = _check(d, eta, max_steps, overlap0, loss, "online_sgd")
    seeds = as_seeds(seeds)
    dev = resolve_device(device)
    target = _as_link(link)
    student = target if activation is None else _as_link(activation)
    smoothed = _smoothed(student, smoothing, d, loss, "online_sgd")
    trace_every = check_int(trace_every, "trace_every", minimum=0, caller="online_sgd")
    if trace_every and BLOCK_STEPS % trace_every:
        raise InvalidParameterError(f"The 'trace_every' parameter of online_sgd must divide {BLOCK_STEPS}. Got "
                                    f"{trace_every!r} instead.")
    traces = []
    n = len(seeds)
    m = torch.full((n,), overlap0 / math.sqrt(d), device=dev, dtype=_DTYPE)
    s = torch.sqrt(1 - m * m)
    steps = torch.full((n,), max_steps, device=dev, dtype=torch.int64)
    final = torch.zeros(n, device=dev, dtype=_DTYPE)
    done = torch.zeros(n, device=dev, dtype=torch.bool)
    columns = torch.arange(n, device=dev)
    with torch.inference_mode():
        for block in range(math.ceil(max_steps / BLOCK_STEPS)):
            z1, z2, root_q = _block(seeds, block, d, dev)
            y = target(z1)
            length = min(BLOCK_STEPS, max_steps - block * BLOCK_STEPS)
            overlaps = []
            for t in range(length):
                m, s = reduced_step(m, s, z1[t], z2[t], root_q[t], y[t], eta, loss, student, smoothed)
                overlaps.append(m)
            path = torch.stack(overlaps)
            check_finite(path, "the overlap", "lower the step size")
            if trace_every:
                traces.append(path[trace_every - 1::trace_every])
            hit = (path.abs() if symmetric else path) >= THRESHOLD
            first = hit.to(torch.int8).argmax(0)
            new = hit.any(0) & ~done
            steps = torch.where(new, block * BLOCK_STEPS + first + 1, steps)
            final = torch.where(new, path[first, columns], final)
            done = done | new
            if stop_at_recovery and bool(done.all()):
                break
    final = torch.where(done, final, m) if stop_at_recovery else m
    return OnlineSGDResult(steps=steps.clone(), censored=(~done).clone(), final_overlap=final.clone(),
                           trace=torch.cat(traces) if trace_every else None)


def literal_online_sgd(
    link: Link,
    d: int,
    *,
    eta: float,
    seeds: int | Sequence[int],
    steps: int,
    loss: str = "correlation",
    activation: Link | None = None,
    overlap0: float = 1.0,
    remainder: bool = True,
    smoothing: float = 0.0,
    device: str | torch.device = "auto",
) -> torch.Tensor:
    r"""The literal :math:`d`-dimensional spherical online SGD (module docstring), for checking the reduction.

    :math:`w^* = e_1`, :math:`w_0 = m_0 e_1 + \sqrt{1 - m_0^2}\,v` with :math:`v` uniform on the unit sphere of
    :math:`e_1^\perp` (stream ``"online-sgd/literal-init"``), samples :math:`x_t` from stream
    ``"online-sgd/literal-x"``. ``remainder=False`` keeps only the two coordinates of each sample along
    :math:`w^*` and :math:`e` (the wrong reduction that drops :math:`r`: a negative control of the test).
    ``smoothing`` :math:`= \lambda > 0` differentiates the smoothed per-sample loss by its definition
    (:func:`~.smoothing.smoothed_loss_by_quadrature`, autograd in :math:`d` dimensions; needs :math:`d \ge 4` and a
    polynomial student).
    Returns the overlaps :math:`m_1 \dots m_T`, shape ``(seeds, steps)``; memory :math:`O(\text{seeds}\cdot T d)`.

    >>> path = literal_online_sgd("He2(z)", 8, eta=0.05, seeds=2, steps=10, device="cpu")
    >>> path.shape
    torch.Size([2, 10])
    """
    d, eta, steps, overlap0 = _check(d, eta, steps, overlap0, loss, "literal_online_sgd")
    seeds = as_seeds(seeds)
    dev = resolve_device(device)
    target = _as_link(link)
    student = target if activation is None else _as_link(activation)
    smoothed = _smoothed(student, smoothing, d, loss, "literal_online_sgd")
    nodes = None if smoothed is None else smoothing_nodes(d, len(smoothed.coefficients) + 1, device=dev)
    v = seeded_normal(seeds, (d,), "online-sgd/literal-init", device=dev, dtype=_DTYPE)
    v[:, 0] = 0
    v = v / v.norm(dim=-1, keepdim=True)
    m0 = overlap0 / math.sqrt(d)
    w = m0 * torch.eye(1, d, device=dev, dtype=_DTYPE) + math.sqrt(1 - m0 * m0) * v
    xs = seeded_normal(seeds, (steps, d), "online-sgd/literal-x", device=dev, dtype=_DTYPE)
    out = []
    for t in range(steps):
        x = xs[:, t]
        if not remainder:
            e = w.clone()
            e[:, 0] = 0
            e = e / e.norm(dim=-1, keepdim=True)
            x = x[:, :1] * torch.eye(1, d, device=dev, dtype=_DTYPE) + (x * e).sum(-1, keepdim=True) * e
        if nodes is None:
            u = (w * x).sum(-1)
            c = gradient_coefficient(loss, student, u, target(x[:, 0]))
            w = w - (eta * c)[:, None] * (x - u[:, None] * w)
        else:
            with torch.enable_grad():
                leaf = w.detach().requires_grad_(True)
                value = smoothed_loss_by_quadrature(leaf, x, target(x[:, 0]), student, smoothing, loss, nodes)
                w = w - eta * torch.autograd.grad(value.sum(), leaf)[0]
        w = w / w.norm(dim=-1, keepdim=True)
        out.append(w[:, 0])
    return torch.stack(out, dim=1)
