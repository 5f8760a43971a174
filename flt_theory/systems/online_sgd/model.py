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

Mini-batches (``batch`` :math:`= n_b`; Arnaboldi, Dandi, Krzakala, Loureiro, Pesce, Stephan 2024, arXiv
2406.02157). Each gradient step uses :math:`n_b` fresh samples and the MEAN of their spherical gradients:

.. math:: \bar g = \frac1{n_b}\sum_{\nu=1}^{n_b} c_\nu\,(x_\nu - u_\nu w), \qquad \tilde w = w - \eta\,\bar g, \qquad
    w' = \tilde w / \|\tilde w\|.

With :math:`x_\nu = z_{1\nu} w^* + z_{2\nu} e + r_\nu` as above (independent across :math:`\nu`), the
coefficients :math:`c_\nu` are functions of :math:`(z_{1\nu}, z_{2\nu})` only, so given them
:math:`\sum_\nu c_\nu r_\nu \sim \mathcal N(0, (\sum_\nu c_\nu^2)\,I_{d-2})` on the orthogonal complement: its
squared norm is :math:`(\sum_\nu c_\nu^2)\,q` with ONE :math:`q \sim \chi^2_{d-2}` per step. Hence

.. math::

    A = m + \frac{\eta}{n_b}\sum_\nu c_\nu (m u_\nu - z_{1\nu}), \qquad
    B = s + \frac{\eta}{n_b}\sum_\nu c_\nu (s u_\nu - z_{2\nu}),

    \|\tilde w\|^2 = A^2 + B^2 + \frac{\eta^2}{n_b^2}\Big(\sum_\nu c_\nu^2\Big) q, \qquad m' = \frac{A}{\|\tilde w\|},

exact in distribution at cost :math:`O(n_b)` per step for any :math:`n_b` (:func:`batch_step`; the new
:math:`e'` is again a unit vector orthogonal to :math:`w^*` and the next batch is fresh).

Data repetition (``passes`` :math:`= P \ge 2`; Arnaboldi, Dandi, Krzakala, Pesce, Stephan 2024, "Repetita iuvant",
arXiv 2405.15459). :math:`P` consecutive gradient steps are taken on the SAME batch (each recomputes
:math:`u_\nu = \langle w, x_\nu\rangle` with the current :math:`w`) before a fresh batch is drawn. After the first
step :math:`w` has a component along :math:`\sum_\nu c_\nu r_\nu`, which the next step's :math:`u_\nu` sees through
the inner products :math:`\langle r_\mu, r_\nu\rangle`, so the reduction needs the Gram matrix of the
:math:`r_\nu`, which is Wishart\ :math:`(d-2, I_{n_b})`. In an orthonormal basis :math:`(w^*, e, f_1, \dots,
f_{n_b})` of :math:`\operatorname{span}(w^*, e, r_1, \dots, r_{n_b})` (Gram–Schmidt of the :math:`r_\nu`,
:math:`r_\nu = \sum_{j \le \nu} L_{\nu j} f_j`) the samples are the rows

.. math:: x_\nu = (z_{1\nu},\ z_{2\nu},\ L_{\nu,:}) \in \mathbb R^{2 + n_b},

with :math:`L` the lower-triangular Bartlett factor of that Gram matrix: :math:`L_{ii} = \sqrt{\chi^2_{d-2-i}}`
(:math:`i = 0 \dots n_b - 1`), :math:`L_{ij} \sim \mathcal N(0, 1)` for :math:`j < i`, all independent and
independent of the :math:`z` (the :math:`r_\nu` are isotropic on the complement of
:math:`\operatorname{span}(w^*, e)`, whatever the past). It needs :math:`n_b \le d - 2` (refused otherwise). The
state is the :math:`(2 + n_b)`-vector :math:`w = (m, s, 0, \dots, 0)`; every pass is the literal update above in these
coordinates (:func:`repeated_pass`, cost :math:`O(n_b^2)`), which never leaves the span; after the :math:`P` passes
:math:`m = w_0` and :math:`s = \|w_{1:}\|`, and only :math:`(m, s)` carries over, since the next batch is fresh and
isotropic on the complement of :math:`\operatorname{span}(w^*, e')`. For :math:`n_b = 1` this is the 3-d basis
:math:`(w^*, e, \hat r)` with :math:`L = \sqrt q`. Again an identity in distribution, checked against
:func:`literal_online_sgd` by ``tests/systems/test_online_sgd_batch.py`` (and the same test rejects the Gram matrix
replaced by :math:`(d-2)\,I`). The smoothed loss is not implemented with ``batch`` :math:`> 1` or ``passes``
:math:`> 1` (refused).

Initialisation. :math:`m_0 = a/\sqrt d` with :math:`a` = ``overlap0`` (the typical overlap of a uniform start,
taken positive), :math:`s_0 = \sqrt{1 - m_0^2}`.

Weak recovery. The first gradient step (iteration) :math:`t` with :math:`m_t \ge 1/2` — or :math:`|m_t| \ge 1/2`
when ``symmetric`` (a population loss even in :math:`m`, where :math:`\pm w^*` are equally good), checked after
EVERY gradient step, between the passes over one batch too; ``censored`` when ``max_steps`` (gradient steps) ends
first (its time is then reported as ``max_steps``, a lower bound). The samples used until then are
:math:`\lceil t / P\rceil\,n_b` (``steps``; :math:`= t` for one sample and one pass per step).

Seeds and streams. Seeds are the leading batch dimension. With ``batch`` :math:`= 1` and ``passes``
:math:`= 1`, the draws of steps :math:`bB \dots (b+1)B - 1` (:math:`B` = :data:`BLOCK_STEPS`) of seed :math:`s` come
from generators seeded by the project's stream seed (:func:`flt_theory.numeric.seeds.fold_in`) of
:math:`(s, \text{"online-sgd/z"}, b)` (normals :math:`z_1, z_2`) and :math:`(s, \text{"online-sgd/chi2"}, b)`
(:math:`q = 2\,\Gamma((d-2)/2)`). Otherwise (every other ``batch`` or ``passes``, :math:`n_b = 1` with
:math:`P \ge 2` included) block :math:`b` holds :math:`N` = :func:`batches_per_block` consecutive batches (a number
that depends on ``batch`` and on whether ``passes`` :math:`\ge 2`, never on the seeds or ``max_steps``; about
:math:`2^{13}` normals per seed and block, i.e. 64 KiB, so that a short run with many seeds draws little
beyond what it uses): :math:`(s, \text{"online-sgd/batch-z"}, b)` gives the
:math:`(N, n_b, 2)` normals :math:`z_1, z_2`, :math:`(s, \text{"online-sgd/batch-chi2"}, b)` the :math:`N` draws
:math:`q` (one pass) or the :math:`(N, n_b)` Bartlett diagonals :math:`L_{ii}^2 = 2\,\Gamma((d-2-i)/2)`
(:math:`P \ge 2`), and :math:`(s, \text{"online-sgd/gram"}, b)` the :math:`(N, n_b(n_b-1)/2)` normals below the
diagonal (:math:`P \ge 2`, :math:`n_b \ge 2`). So a seed's path does not depend on which seeds share the run or on
``max_steps`` (a shorter run reads a prefix). Arithmetic in float64: a step moves :math:`m` by :math:`O(\eta) \ll`
float32's resolution at :math:`m \approx 1`.

Cost. :math:`O(\text{seeds})` per step, independent of :math:`d`, times :math:`n_b` (one pass) or :math:`n_b^2`
(:math:`P \ge 2`); the loops over steps (and over the passes of a batch) are the only Python loops.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
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

__all__ = ["BLOCK_DRAWS", "BLOCK_STEPS", "LOSSES", "MAX_SMOOTHING", "PARAMS", "THRESHOLD", "OnlineSGDResult",
           "PolynomialLink", "batch_block_bytes", "batch_step", "batch_step_work", "batches_per_block",
           "gradient_coefficient", "literal_online_sgd", "online_sgd", "reduced_step", "repeated_pass"]

#: Steps drawn per random block with one sample and one pass per step (seed contract in the module docstring).
BLOCK_STEPS = 1024
#: Normals drawn per seed and random block with mini-batches or repeated passes (:func:`batches_per_block`).
BLOCK_DRAWS = 2**13
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
    Param("max_steps", "int", minimum=1, unit="steps",
          help="Gradient steps (iterations) at most per run (for batch 1 and one pass: samples)."),
    Param("smoothing", "float", minimum=0, maximum=MAX_SMOOTHING, default=0.0,
          help="Smoothing radius lambda = smoothing * d^(1/4) of the loss (Damian et al. 2023; polynomial target "
               "only), with eta = eta_tilde lambda^(2k-2) d^(-k/2); 0: plain online SGD."),
    Param("transform", "int", minimum=0, maximum=1, default=0,
          help="1: train the student He_{k*} on the labels T(y) (Damian et al. 2024)."),
    Param("batch", "int", minimum=1, default=1, unit="count",
          help="Fresh samples per gradient step (the gradient is their mean; Arnaboldi et al. 2024a), with eta = "
               "eta_tilde batch d^(-max(1, k/2))."),
    Param("passes", "int", minimum=1, default=1, unit="count",
          help="Gradient steps taken on each batch before a fresh one is drawn (data repetition, Arnaboldi et al. "
               "2024b; needs batch <= d - 2 from 2 on), with eta = eta_tilde batch/d from 2 on."),
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

    #: Gradient steps until weak recovery, checked after every step, between the passes over a batch too (int64;
    #: ``max_steps`` where censored).
    iterations: torch.Tensor
    #: Samples used until weak recovery, :math:`\lceil` ``iterations`` / ``passes`` :math:`\rceil \cdot` ``batch``
    #: (int64; from ``max_steps`` iterations where censored; equal to ``iterations`` for one sample and one pass
    #: per step).
    steps: torch.Tensor
    #: Whether ``max_steps`` ended first (bool).
    censored: torch.Tensor
    #: :math:`m` at the end of the seed's run: at its recovery step when ``stop_at_recovery``, else after
    #: ``max_steps`` steps.
    final_overlap: torch.Tensor
    #: With ``trace_every`` :math:`= k > 0`: :math:`m` after gradient steps :math:`k, 2k, \dots` of the steps run,
    #: shape ``(points, seeds)``; else None.
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


def _remainder_norm2(c: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    r""":math:`\|\sum_\nu c_\nu r_\nu\|^2 = (\sum_\nu c_\nu^2)\,q` in law (module docstring), ``c`` of shape
    ``(seeds, batch)``, ``q`` ``(seeds,)``."""
    return (c * c).sum(-1) * q


def batch_step(m: torch.Tensor, s: torch.Tensor, z1: torch.Tensor, z2: torch.Tensor, q: torch.Tensor,
               y: torch.Tensor, eta: float, loss: str,
               activation: Activation | PolynomialLink) -> tuple[torch.Tensor, torch.Tensor]:
    r"""One exact mini-batch step of the reduced dynamics, :math:`(m, s) \mapsto (m', s')` (module docstring,
    "Mini-batches"): ``m``, ``s``, ``q`` (:math:`\sim \chi^2_{d-2}`, one per step) of shape ``(seeds,)``; ``z1``,
    ``z2``, ``y`` of shape ``(seeds, batch)``; the gradient is the mean over the batch.

    With a batch of one it is :func:`reduced_step` (up to rounding):

    >>> one = torch.ones(1, 1, dtype=torch.float64)
    >>> m, s = batch_step(0 * one[0], one[0], one, 0 * one, 0 * one[0], one, 0.5, "correlation", as_activation("z"))
    >>> round(float(m), 6), round(float(m**2 + s**2), 12)
    (0.447214, 1.0)
    """
    mm, ss = m[:, None], s[:, None]
    u = torch.addcmul(mm * z1, ss, z2)
    c = gradient_coefficient(loss, activation, u, y)
    h = eta / z1.shape[-1]
    a = m + h * (c * (mm * u - z1)).sum(-1)
    b = s + h * (c * (ss * u - z2)).sum(-1)
    rest = torch.hypot(b, h * _remainder_norm2(c, q).sqrt())
    norm = torch.hypot(a, rest)
    return a / norm, rest / norm


def repeated_pass(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, eta: float, loss: str,
                  activation: Activation | PolynomialLink) -> torch.Tensor:
    r"""One spherical mini-batch step :math:`w \mapsto \tilde w/\|\tilde w\|`, :math:`\tilde w = w - \frac{\eta}{n_b}
    \sum_\nu c_\nu (x_\nu - u_\nu w)`, :math:`u_\nu = \langle w, x_\nu\rangle`, in any coordinates: ``w`` of shape
    ``(seeds, D)``, the batch ``x`` ``(seeds, batch, D)`` and its labels ``y`` ``(seeds, batch)``. The reduced
    repeated-pass dynamics calls it with :math:`D = 2 + n_b` (module docstring, "Data repetition"), the literal one
    (:func:`literal_online_sgd`) with :math:`D = d`.

    >>> w = torch.tensor([[0.0, 1.0, 0.0]], dtype=torch.float64)
    >>> x = torch.tensor([[[1.0, 0.0, 0.0]]], dtype=torch.float64)
    >>> repeated_pass(w, x, torch.ones(1, 1, dtype=torch.float64), 0.5, "correlation", as_activation("z"))
    tensor([[0.4472, 0.8944, 0.0000]], dtype=torch.float64)
    """
    u = (x @ w[..., None]).squeeze(-1)
    c = gradient_coefficient(loss, activation, u, y)
    g = (c[..., None, :] @ x).squeeze(-2) - (c * u).sum(-1, keepdim=True) * w
    w = w - (eta / x.shape[-2]) * g
    return w / w.norm(dim=-1, keepdim=True)


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


def _check_batch(batch: int, passes: int, d: int, smoothing: float, caller: str) -> tuple[int, int]:
    """``(batch, passes)`` checked: ints >= 1, ``batch <= d - 2`` with two passes or more (the Bartlett factor of the
    remainders' Gram matrix), no smoothing unless both are 1."""
    batch = check_int(batch, "batch", minimum=1, caller=caller)
    passes = check_int(passes, "passes", minimum=1, caller=caller)
    if passes > 1 and batch > d - 2:
        raise InvalidParameterError(f"The 'batch' parameter of {caller} must be <= d - 2 = {d - 2} with 'passes' = "
                                    f"{passes} >= 2 (repeated passes over a batch are simulated through the Gram "
                                    f"matrix of its d - 2 dimensional remainders). Got {batch!r} instead.")
    if smoothing and (batch > 1 or passes > 1):
        raise InvalidParameterError(f"The 'smoothing' parameter of {caller} is implemented for batch = passes = 1 "
                                    f"only. Got smoothing = {smoothing!r} with 'batch' = {batch} and 'passes' = "
                                    f"{passes} instead.")
    return batch, passes


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


def batches_per_block(batch: int, passes: int) -> int:
    r"""Batches per random block of the mini-batch and repeated-pass paths (seed contract, module docstring): about
    :data:`BLOCK_DRAWS` normals per seed, :math:`2 n_b` per batch plus the :math:`n_b(n_b-1)/2` below the Bartlett
    diagonal with two passes or more; at least one batch.

    >>> batches_per_block(256, 1), batches_per_block(1, 2), batches_per_block(64, 2)
    (16, 4096, 3)
    """
    return max(1, BLOCK_DRAWS // _draws_per_batch(batch, passes))


def _draws_per_batch(batch: int, passes: int) -> int:
    return 2 * batch + (batch * (batch - 1) // 2 if passes > 1 else 0)


def _batch_sizes(params: Mapping[str, object]) -> tuple[int, int]:
    values = []
    for name in ("batch", "passes"):
        try:
            values.append(max(1, int(params.get(name, 1))))  # type: ignore[call-overload]
        except (TypeError, ValueError, OverflowError):
            values.append(1)  # not a size: the option's own check refuses it
    return values[0], values[1]


def batch_block_bytes(params: Mapping[str, object]) -> float:
    """Bytes per seed of one random block of the mini-batch or repeated-pass paths (the draws and, at most seven times
    their size, their copies, the labels and the samples' coordinates and Bartlett factor), 0 for one sample and one
    pass per step: a ``Cost.derived`` entry of the experiment and of ``flt simulate online-sgd``.

    >>> batch_block_bytes({"batch": 1, "passes": 1}), batch_block_bytes({"batch": 4})
    (0, 524288)
    """
    batch, passes = _batch_sizes(params)
    if batch == passes == 1:
        return 0
    return 8 * 8 * batches_per_block(batch, passes) * _draws_per_batch(batch, passes)


def batch_step_work(params: Mapping[str, object]) -> float:
    """Operations per seed and gradient step beyond one sample and one pass (0 there): :math:`n_b` with one pass,
    :math:`n_b(n_b + 2)` with two or more (a ``Cost.derived`` entry, as :func:`batch_block_bytes`).

    >>> [batch_step_work(p) for p in ({"batch": 1, "passes": 1}, {"batch": 8}, {"batch": 8, "passes": 2})]
    [0, 8, 80]
    """
    batch, passes = _batch_sizes(params)
    return 0 if batch == passes == 1 else batch if passes == 1 else batch * (batch + 2)


def _bartlett_factor(root_chi2: torch.Tensor, below: torch.Tensor | None) -> torch.Tensor:
    r"""The lower-triangular Bartlett factor :math:`L` of a Wishart Gram matrix, ``(..., n_b, n_b)``: diagonal
    ``root_chi2`` (:math:`\sqrt{\chi^2_{d-2-i}}`, ``(..., n_b)``), the normals ``below`` (``(..., n_b(n_b-1)/2)``,
    row by row; None for :math:`n_b = 1`) under it."""
    factor = torch.diag_embed(root_chi2)
    if below is not None:
        rows, cols = torch.tril_indices(root_chi2.shape[-1], root_chi2.shape[-1], offset=-1,
                                        device=root_chi2.device)
        factor[..., rows, cols] = below
    return factor


def _batch_block(seeds: tuple[int, ...], block: int, d: int, batch: int, passes: int,
                 device: torch.device) -> tuple[torch.Tensor, ...]:
    """One random block of the mini-batch paths (seed contract), :math:`N` = :func:`batches_per_block` batches: with
    one pass ``(z1, z2, q)``, ``(N, seeds, batch)`` twice and ``(N, seeds)``; with two or more the samples in the
    basis of the module docstring, ``(x,)`` of shape ``(N, seeds, batch, 2 + batch)``."""
    n, count, repeat = len(seeds), batches_per_block(batch, passes), passes > 1
    below_size = batch * (batch - 1) // 2 if repeat else 0
    z = torch.empty((n, count, batch, 2), device=device, dtype=_DTYPE)
    chi2 = torch.empty((n, count, batch) if repeat else (n, count), device=device, dtype=_DTYPE)
    dof = (d - 2 - torch.arange(batch, device=device, dtype=_DTYPE)) if repeat else \
        torch.full((), d - 2, device=device, dtype=_DTYPE)
    alpha = (dof / 2).expand(chi2.shape[1:]).contiguous()
    below = torch.empty((n, count, below_size), device=device, dtype=_DTYPE) if below_size else None
    gen = torch.Generator(device=device)
    for row, seed in enumerate(seeds):
        gen.manual_seed(fold_in(seed, "online-sgd/batch-z", block))
        torch.randn((count, batch, 2), generator=gen, out=z[row], device=device, dtype=_DTYPE)
        gen.manual_seed(fold_in(seed, "online-sgd/batch-chi2", block))
        chi2[row] = 2 * torch._standard_gamma(alpha, generator=gen)
        if below is not None:
            gen.manual_seed(fold_in(seed, "online-sgd/gram", block))
            torch.randn((count, below_size), generator=gen, out=below[row], device=device, dtype=_DTYPE)
    if not repeat:
        z = z.transpose(0, 1)
        return z[..., 0].contiguous(), z[..., 1].contiguous(), chi2.transpose(0, 1).contiguous()
    x = torch.cat([z, _bartlett_factor(chi2.sqrt(), below)], dim=-1)
    return (x.transpose(0, 1).contiguous(),)


def _single_sample_paths(seeds: tuple[int, ...], d: int, max_steps: int, m: torch.Tensor, s: torch.Tensor,
                         step: Callable[..., tuple[torch.Tensor, torch.Tensor]], target: Activation | PolynomialLink,
                         dev: torch.device) -> Iterator[tuple[int, torch.Tensor]]:
    """``(first iteration of the block, overlaps (length, seeds))`` per block, one sample and one pass per step."""
    for block in range(math.ceil(max_steps / BLOCK_STEPS)):
        z1, z2, root_q = _block(seeds, block, d, dev)
        y = target(z1)
        length = min(BLOCK_STEPS, max_steps - block * BLOCK_STEPS)
        overlaps = []
        for t in range(length):
            m, s = step(m, s, z1[t], z2[t], root_q[t], y[t])
            overlaps.append(m)
        yield block * BLOCK_STEPS, torch.stack(overlaps)


def _batch_paths(seeds: tuple[int, ...], d: int, max_steps: int, m: torch.Tensor, s: torch.Tensor, batch: int,
                 passes: int, eta: float, loss: str, target: Activation | PolynomialLink,
                 student: Activation | PolynomialLink, dev: torch.device) -> Iterator[tuple[int, torch.Tensor]]:
    """The same per block of the mini-batch (``passes`` = 1: :func:`batch_step`) or repeated-pass
    (:func:`repeated_pass` in the basis of the module docstring) dynamics."""
    per_block = batches_per_block(batch, passes) * passes
    for block in range(math.ceil(max_steps / per_block)):
        draws = _batch_block(seeds, block, d, batch, passes, dev)
        length = min(per_block, max_steps - block * per_block)
        overlaps = []
        if passes == 1:
            z1, z2, q = draws
            y = target(z1)
            for t in range(length):
                m, s = batch_step(m, s, z1[t], z2[t], q[t], y[t], eta, loss, student)
                overlaps.append(m)
        else:
            (x,) = draws
            y = target(x[..., 0])
            rest = torch.zeros((len(seeds), batch), device=dev, dtype=_DTYPE)
            for j in range(math.ceil(length / passes)):
                w = torch.cat([m[:, None], s[:, None], rest], dim=1)
                for _ in range(min(passes, length - j * passes)):
                    w = repeated_pass(w, x[j], y[j], eta, loss, student)
                    overlaps.append(w[:, 0])
                m, s = w[:, 0], w[:, 1:].norm(dim=-1)
        yield block * per_block, torch.stack(overlaps)


def online_sgd(link: Link, d: int, *, eta: float, seeds: int | Sequence[int], max_steps: int,
               loss: str = "correlation", activation: Link | None = None, overlap0: float = 1.0,
               symmetric: bool = False, stop_at_recovery: bool = True, smoothing: float = 0.0, trace_every: int = 0,
               batch: int = 1, passes: int = 1, device: str | torch.device = "auto") -> OnlineSGDResult:
    r"""Spherical online SGD in reduced coordinates, batched over seeds (module docstring).

    Parameters
    ----------
    link
        The target link :math:`g(z)` (e.g. ``"He3(z)"``).
    d
        Dimension, at least 3 (enters only through the :math:`\chi^2` draws of the remainder and :math:`m_0`).
    eta
        Step size :math:`\eta`.
    seeds
        Number of seeds or their values.
    max_steps
        Gradient steps (iterations) at most per seed; for one sample and one pass per step, samples.
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
        Needs a polynomial student (a :class:`PolynomialLink`) and ``batch`` = ``passes`` = 1.
    trace_every
        Record the overlap every this many gradient steps (with ``batch`` = ``passes`` = 1 a divisor of
        :data:`BLOCK_STEPS`); 0 (default): no trace.
    batch
        Fresh samples per gradient step, :math:`n_b` (the gradient is their mean; module docstring).
    passes
        Gradient steps on each batch before a fresh one, :math:`P` (from 2 on: ``batch`` :math:`\le d - 2`).
    device
        ``"auto"``, ``"cpu"``, ``"cuda"``…

    >>> res = online_sgd("He2(z)", 64, eta=0.2 / 64, seeds=2, max_steps=20000, device="cpu")
    >>> bool(res.censored.any()), bool((res.final_overlap.abs() >= 0.5).all()), torch.equal(res.steps, res.iterations)
    (False, True, True)
    >>> res = online_sgd("He2(z)", 64, eta=0.8 / 64, seeds=2, max_steps=20000, batch=4, passes=2, device="cpu")
    >>> bool(res.censored.any()), (res.steps == 4 * ((res.iterations + 1) // 2)).tolist()
    (False, [True, True])
    """
    d, eta, max_steps, overlap0 = _check(d, eta, max_steps, overlap0, loss, "online_sgd")
    batch, passes = _check_batch(batch, passes, d, smoothing, "online_sgd")
    seeds = as_seeds(seeds)
    dev = resolve_device(device)
    target = _as_link(link)
    student = target if activation is None else _as_link(activation)
    smoothed = _smoothed(student, smoothing, d, loss, "online_sgd")
    single = batch == 1 and passes == 1
    trace_every = check_int(trace_every, "trace_every", minimum=0, caller="online_sgd")
    if single and trace_every and BLOCK_STEPS % trace_every:
        raise InvalidParameterError(f"The 'trace_every' parameter of online_sgd must divide {BLOCK_STEPS}. Got "
                                    f"{trace_every!r} instead.")
    traces = []
    n = len(seeds)
    m = torch.full((n,), overlap0 / math.sqrt(d), device=dev, dtype=_DTYPE)
    s = torch.sqrt(1 - m * m)
    iterations = torch.full((n,), max_steps, device=dev, dtype=torch.int64)
    final = torch.zeros(n, device=dev, dtype=_DTYPE)
    done = torch.zeros(n, device=dev, dtype=torch.bool)
    columns = torch.arange(n, device=dev)
    with torch.inference_mode():
        if single:
            def step(m: torch.Tensor, s: torch.Tensor, z1: torch.Tensor, z2: torch.Tensor, root_q: torch.Tensor,
                     y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
                return reduced_step(m, s, z1, z2, root_q, y, eta, loss, student, smoothed)

            paths = _single_sample_paths(seeds, d, max_steps, m, s, step, target, dev)
        else:
            paths = _batch_paths(seeds, d, max_steps, m, s, batch, passes, eta, loss, target, student, dev)
        for start, path in paths:
            check_finite(path, "the overlap", "lower the step size")
            if trace_every:
                traces.append(path[(trace_every - 1 - start) % trace_every::trace_every])
            hit = (path.abs() if symmetric else path) >= THRESHOLD
            first = hit.to(torch.int8).argmax(0)
            new = hit.any(0) & ~done
            iterations = torch.where(new, start + first + 1, iterations)
            final = torch.where(new, path[first, columns], final)
            done = done | new
            m = path[-1]
            if stop_at_recovery and bool(done.all()):
                break
    final = torch.where(done, final, m) if stop_at_recovery else m
    steps = iterations if single else torch.div(iterations + passes - 1, passes, rounding_mode="floor") * batch
    return OnlineSGDResult(iterations=iterations.clone(), steps=steps.clone(), censored=(~done).clone(),
                           final_overlap=final.clone(), trace=torch.cat(traces) if trace_every else None)


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
    batch: int = 1,
    passes: int = 1,
    device: str | torch.device = "auto",
) -> torch.Tensor:
    r"""The literal :math:`d`-dimensional spherical online SGD (module docstring), for checking the reduction.

    :math:`w^* = e_1`, :math:`w_0 = m_0 e_1 + \sqrt{1 - m_0^2}\,v` with :math:`v` uniform on the unit sphere of
    :math:`e_1^\perp` (stream ``"online-sgd/literal-init"``), samples :math:`x_t` from stream
    ``"online-sgd/literal-x"`` (with ``batch`` or ``passes`` above 1: the :math:`\lceil T/P\rceil` batches of
    ``batch`` samples from stream ``"online-sgd/literal-batch-x"``, batch :math:`j` used by gradient steps
    :math:`jP+1 \dots (j+1)P`; each step is :func:`repeated_pass` in :math:`d` dimensions). ``remainder=False``
    keeps only the two coordinates of each sample along :math:`w^*` and :math:`e` (the wrong reduction that drops
    :math:`r`: a negative control of the test).
    ``smoothing`` :math:`= \lambda > 0` differentiates the smoothed per-sample loss by its definition
    (:func:`~.smoothing.smoothed_loss_by_quadrature`, autograd in :math:`d` dimensions; needs :math:`d \ge 4` and a
    polynomial student).
    Returns the overlaps :math:`m_1 \dots m_T` after each gradient step, shape ``(seeds, steps)``; memory
    :math:`O(\text{seeds}\cdot T d\,n_b/P)`.

    >>> path = literal_online_sgd("He2(z)", 8, eta=0.05, seeds=2, steps=10, device="cpu")
    >>> path.shape, literal_online_sgd("He2(z)", 8, eta=0.05, seeds=2, steps=10, batch=3, passes=2).shape
    (torch.Size([2, 10]), torch.Size([2, 10]))
    """
    d, eta, steps, overlap0 = _check(d, eta, steps, overlap0, loss, "literal_online_sgd")
    batch, passes = _check_batch(batch, passes, d, smoothing, "literal_online_sgd")
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
    single = batch == 1 and passes == 1
    xs = seeded_normal(seeds, (steps, d), "online-sgd/literal-x", device=dev, dtype=_DTYPE) if single else \
        seeded_normal(seeds, (math.ceil(steps / passes), batch, d), "online-sgd/literal-batch-x", device=dev,
                      dtype=_DTYPE)
    out = []
    for t in range(steps):
        x = xs[:, t] if single else xs[:, t // passes]
        if not remainder:
            e = w.clone()
            e[:, 0] = 0
            e = (e / e.norm(dim=-1, keepdim=True)).reshape(len(seeds), *([1] * (x.dim() - 2)), d)
            x = x[..., :1] * torch.eye(1, d, device=dev, dtype=_DTYPE) + (x * e).sum(-1, keepdim=True) * e
        if not single:
            w = repeated_pass(w, x, target(x[..., 0]), eta, loss, student)
        elif nodes is None:
            u = (w * x).sum(-1)
            c = gradient_coefficient(loss, student, u, target(x[:, 0]))
            w = w - (eta * c)[:, None] * (x - u[:, None] * w)
        else:
            with torch.enable_grad():
                leaf = w.detach().requires_grad_(True)
                value = smoothed_loss_by_quadrature(leaf, x, target(x[:, 0]), student, smoothing, loss, nodes)
                w = w - eta * torch.autograd.grad(value.sum(), leaf)[0]
        if single:
            w = w / w.norm(dim=-1, keepdim=True)
        out.append(w[:, 0])
    return torch.stack(out, dim=1)
