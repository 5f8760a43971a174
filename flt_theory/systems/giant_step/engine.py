r"""Giant-step gradient descent on the first layer, then ridge on the second.

Source: Dandi, Krzakala, Loureiro, Pesce, Stephan, "How two-layer neural networks learn, one (giant)
step at a time" (2023), arXiv 2305.18270 — the one-pass giant-step algorithm, the symmetric
initialisation and the ridge second layer simulated here.

First layer. :math:`T` full-batch GD steps on the square loss :math:`\ell = \frac12 (y - \hat f)^2`,
step :math:`t` on :math:`n` fresh samples, second layer frozen at :math:`a^0`:

.. math::

    w_i^{t+1} = w_i^t + \frac{\eta_t}{n} \sum_{\mu=1}^n \big(y_\mu - \hat f(x_\mu)\big)\,
    \frac{a_i}{p}\, \sigma'(\langle w_i^t, x_\mu\rangle)\, x_\mu ,
    \qquad\text{i.e.}\qquad W^{t+1} = W^t + \frac{\eta_t}{n}\, \mathrm{diag}(a/p)\, M^\top X,

with :math:`M_{\mu i} = (y_\mu - \hat f(x_\mu))\,\sigma'(\langle w_i^t, x_\mu\rangle)` (:math:`n \times p`)
and :math:`X` the :math:`n \times d` inputs. The gradient is computed in closed form (not autograd),
chunk by chunk with two batched matmuls: :math:`P = X W^\top`, then :math:`G \mathrel{+}= M^\top X`.

Two exact samplers of the same step (``method``)
------------------------------------------------
``"dense"`` draws :math:`X` (stream ``"step{t}"``): cost :math:`O(ndp)` FLOPs and :math:`nd` Gaussian draws.

``"projected"`` draws only what the step depends on. Let :math:`Q \in \mathbb R^{d\times k}` have
orthonormal columns whose span contains the rows of :math:`W^t` and of :math:`W^*` (Householder QR of
:math:`[W^{t\top}, W^{*\top}]`, :math:`k = \min(d, p + r)`; a rank-deficient :math:`W^t`, e.g. the
symmetric initialisation, only makes :math:`Q` span more than needed). Write
:math:`x = Q u + \xi` with :math:`u = Q^\top x` and :math:`\xi = (I - QQ^\top) x`. For
:math:`x \sim \mathcal N(0, I_d)` the pair is jointly Gaussian with
:math:`\mathrm{Cov}(u, \xi) = Q^\top (I - QQ^\top) = 0`, hence :math:`u \sim \mathcal N(0, I_k)` and
:math:`\xi \sim \mathcal N(0, I - QQ^\top)` are independent. Since :math:`W^t (I - QQ^\top) = 0` and
:math:`W^* (I - QQ^\top) = 0`, the pre-activations :math:`W^t x = (W^t Q) u`, the labels
:math:`g(W^* x) = g((W^* Q) u)` and therefore :math:`M` are functions of :math:`U` alone, and

.. math::

    M^\top X = (M^\top U)\, Q^\top + M^\top \Xi .

Given :math:`U`, :math:`M^\top \Xi = \sum_\mu m_\mu \xi_\mu^\top` is Gaussian with mean 0 and
:math:`\mathbb E[(M^\top\Xi)_{i\cdot}^\top (M^\top\Xi)_{j\cdot}] = (M^\top M)_{ij}\,(I - QQ^\top)`: the
matrix normal :math:`\mathcal{MN}_{p\times d}(0, M^\top M, I - QQ^\top)`. With any :math:`L` such that
:math:`L L^\top = M^\top M` (here the symmetric square root :math:`V \Lambda^{1/2} V^\top`, exact also
when :math:`M^\top M` is singular, as at the symmetric initialisation: ``_psd_factor``) and :math:`Z` a
:math:`p \times d` standard Gaussian matrix (stream ``"step{t}/noise"``), :math:`L Z (I - QQ^\top)` has the
same mean and the same covariance :math:`L L^\top \otimes (I - QQ^\top)^2 = M^\top M \otimes (I - QQ^\top)`, so it has
the same law given :math:`U`. The projected step draws :math:`U` (stream ``"step{t}/u"``, :math:`n \times k`) and
:math:`Z`, and returns :math:`W^t + \frac{\eta_t}{n}\mathrm{diag}(a/p)\big[(M^\top U) Q^\top + L Z (I -
QQ^\top)\big]`: the joint law of :math:`(U, W^{t+1})` given :math:`(W^t, W^*)` equals the dense one.
Each step uses fresh samples independent of the past and a fresh basis from :math:`W^t`, so by
induction the law of the whole trajectory :math:`(W^0, \dots, W^T)` and of the training losses is
exactly that of the dense sampler (not an approximation in :math:`d`; only the random numbers
differ). Cost per step :math:`O(nkp + np^2)` FLOPs (:math:`M^\top U` and :math:`M^\top M`),
:math:`nk + pd` draws, :math:`O(p^2 d + dk^2 + p^3)` for :math:`LZ(I - QQ^\top)`, the QR and the
eigendecomposition — instead of :math:`O(ndp)` and :math:`nd` draws. The ridge features
:math:`\sigma(Wx)` and the test error depend on :math:`x` only through :math:`W^T x` and :math:`W^* x`,
so they are computed from :math:`u = Q^\top x` with :math:`Q` built from :math:`W^T` (streams
``"ridge/u"``, ``"test/u"``), without any noise term: exact in law as well.

``"auto"`` (default) picks ``"projected"`` when :math:`2(p + r) \le d` (:func:`choose_method`): per
sample the dense step costs about :math:`d(2p + c)` and the projected one :math:`k(2p + c) + p^2 \le
k(3p + c)`, with :math:`c` the cost of one Gaussian draw in multiply-adds (tens to hundreds on a CPU),
so the projected step is faster as soon as :math:`k` is well below :math:`d`; the per-step overhead
:math:`O(p^2 d + dk^2)` is negligible once :math:`n \gg p + k`. Both paths are bit-for-bit reproducible
per seed and independent of which seeds share the batch (the seed contract of :mod:`flt_theory.numeric.data`); they
give different random numbers for the same seed, so stored results say which path produced them
(the ``method`` field of :class:`GiantStepConfig`).

Step sizes. :math:`\eta` is a number or ``"theory"`` :math:`= p\, d^{(\ell-1)/2}` (:math:`\ell` the leap
index, given by the caller): with the :math:`1/p` normalisation the per-neuron step is
:math:`\eta/p`, and :math:`\langle w_i^1, w^*_k\rangle \approx (\eta a_i/p)\, c_\sigma \mu^*_{k,\ell}\,
\langle w_i^0, w^*_k\rangle^{\ell-1}` with :math:`\langle w_i^0, w^*_k\rangle \sim d^{-1/2}`, so this
:math:`\eta` is the smallest that makes the overlap :math:`\Theta(1)` in one step.

Multi-step normalisation (what is used, and why). The same :math:`\eta` is used at every step
(a per-step sequence may be given instead), and the weights are *not* renormalised between steps
unless ``renormalize=True`` (then :math:`w_i \leftarrow w_i / \lVert w_i\rVert` after each step).
Reason: after the first step :math:`\hat f = O(1)`, so the residual stays :math:`O(1)` and a constant
:math:`\eta = \Theta(p)` keeps every step :math:`\Theta(1)` per neuron — the regime in which the
staircase is visible in simulations (:math:`d = p = 256`, :math:`n = 64d\text{–}256d`, :math:`\eta` a few
times :math:`p`, ReLU). The paper's multi-step discussion writes ":math:`\eta = \sqrt p`" for the
:math:`1/\sqrt p`-normalised network; under this package's :math:`1/p` network that would be a
vanishing per-neuron step :math:`p^{-1/2}`, so we read it as that network's :math:`\Theta(1)`
per-neuron step, i.e. :math:`\eta = \Theta(p)` here. The mass observables are scale-invariant, and for
ReLU (positively homogeneous, :math:`\sigma'` scale-free) renormalising only rescales :math:`\hat f`.

Second layer. Ridge on :math:`n_\text{ridge}` fresh samples (stream ``"ridge"``),
:math:`a^* = \arg\min_a \frac1n \sum_\mu \ell(y_\mu, \hat f(x_\mu; W^T, a)) + \frac{\lambda}{p}\lVert a\rVert^2`.
With :math:`\Phi = \sigma(X W^\top)` (:math:`n \times p`) and :math:`a = p\beta` this is the linear system

.. math::

    \Big(\tfrac1n \Phi^\top\Phi + 2\lambda p\, I\Big)\beta = \tfrac1n \Phi^\top y, \qquad a^* = p\,\beta,

accumulated chunk by chunk and solved batched over seeds (:math:`\lambda = 0`: the minimum-norm least-squares
solution, through the pseudo-inverse of the Gram matrix). Test error: mean squared error
:math:`\frac1{n_\text{test}}\sum_\mu (y_\mu - \hat f(x_\mu))^2` on fresh samples (stream ``"test"``),
per seed (no factor 1/2).

Divergence. A step whose weights, or their squared norms, are not finite in the working dtype (too
large :math:`\eta`) raises :class:`~flt_theory.numeric.backend.NonFiniteError`, a
:class:`~flt_theory.errors.DivergenceError` whose message names ``eta`` and its value.

Work budget. :func:`check_budget` estimates the peak memory and the time of a run from its sizes,
for either path, and refuses sizes that would not fit, naming the one that dominates.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import sympy as sp
import torch

from ..._validation import check_int, check_real, env_limit, physical_memory
from ...errors import InvalidParameterError, InvalidParameterTypeError
from ...numeric.activation import Activation
from ...numeric.backend import (
    NonFiniteError,
    available_cores,
    check_finite,
    configure_threads,
    resolve_device,
    resolve_dtype,
)
from ...numeric.data import (
    BLOCK_ROWS,
    as_seeds,
    default_chunk_size,
    gaussian_chunks,
    seeded_normal,
    teacher_directions,
)
from ...numeric.student import Student
from ...numeric.teacher import Teacher
from ...symbolic.target import Target

__all__ = [
    "METHODS",
    "GiantStepConfig",
    "GiantStepResult",
    "RunBudget",
    "check_budget",
    "choose_method",
    "fit_second_layer",
    "giant_steps",
    "gradient_step",
    "projected_gradient_step",
    "projection_basis",
    "test_error",
    "theory_step_size",
]

#: Values of the ``method`` parameter of :func:`giant_steps` (module docstring).
METHODS = ("auto", "projected", "dense")
#: Largest default chunk of the projected path, in random blocks (its chunks have only :math:`p + r`
#: columns, and with tens of thousands of rows the BLAS work space retained between chunks grows
#: with :math:`n`; measured: peak memory 1.7x higher at n = 2^24 than at 2^16 with 31 blocks, flat with 4).
PROJECTED_CHUNK_BLOCKS = 4


@dataclass(frozen=True)
class GiantStepConfig:
    """Everything that determines a :func:`giant_steps` run (with the target and the seeds)."""

    d: int
    p: int
    n: int
    steps: int
    eta: tuple[float, ...]
    leap_index: int
    activation: str
    seeds: tuple[int, ...]
    ridge: float | None
    n_ridge: int
    n_test: int
    renormalize: bool
    teacher_basis: str
    chunk_size: int
    device: str
    dtype: str
    method: str = "dense"  # the resolved sampler, "dense" or "projected" (never "auto")


@dataclass(frozen=True, eq=False)  # holds tensors: compare their fields explicitly
class GiantStepResult:
    r"""Outcome of :func:`giant_steps`.

    Attributes
    ----------
    config
        The resolved configuration.
    teacher
        Target and teacher directions ``w_star`` (seeds, r, d).
    weights
        :math:`W^0, \dots, W^T`, shape ``(T+1, seeds, p, d)``.
    a0
        Second layer used during the first-layer steps, ``(seeds, p)``.
    activation
        The student activation.
    train_loss
        :math:`\frac1{2n}\sum_\mu (y_\mu - \hat f(x_\mu))^2` on the batch of each step, before it, ``(T, seeds)``.
    a
        Ridge second layer :math:`a^*` on :math:`W^T`, ``(seeds, p)`` (``None`` if ``ridge=None``).
    test_error
        Test mean squared error of :math:`(W^T, a^*)`, ``(seeds,)`` (``None`` if ``ridge=None``).
    """

    config: GiantStepConfig
    teacher: Teacher
    weights: torch.Tensor
    a0: torch.Tensor
    activation: Activation
    train_loss: torch.Tensor
    a: torch.Tensor | None
    test_error: torch.Tensor | None

    @property
    def w_star(self) -> torch.Tensor:
        """Teacher directions, ``(seeds, r, d)``."""
        return self.teacher.w_star

    def student(self, step: int = -1) -> Student:
        """The student after ``step`` first-layer steps (default: the last) with the second layer
        :math:`a^0` it was trained with."""
        return Student(self.weights[step], self.a0, self.activation)

    @property
    def fitted_student(self) -> Student | None:
        """:math:`(W^T, a^*)`, the student whose test error is reported (``None`` without ridge)."""
        return None if self.a is None else Student(self.weights[-1], self.a, self.activation)


def theory_step_size(p: int, d: int, leap_index: int = 1) -> float:
    r"""The seed's one-step learning rate :math:`\eta = p\, d^{(\ell-1)/2}`.

    >>> theory_step_size(64, 100, 2)
    640.0
    """
    p = check_int(p, "p", minimum=1, caller="theory_step_size")
    d = check_int(d, "d", minimum=1, caller="theory_step_size")
    leap_index = check_int(leap_index, "leap_index", minimum=1, caller="theory_step_size")
    return float(p * d ** ((leap_index - 1) / 2))


def choose_method(method: str, *, d: int, p: int, r: int) -> str:
    r"""The sampler :func:`giant_steps` uses: ``method`` itself, or for ``"auto"`` ``"projected"`` when
    :math:`2(p + r) \le d` and ``"dense"`` otherwise (module docstring).

    >>> choose_method("auto", d=512, p=32, r=1), choose_method("auto", d=512, p=256, r=1)
    ('projected', 'dense')
    """
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidParameterError(
            f"The 'method' parameter must be one of {', '.join(map(repr, METHODS))}. Got {method!r} instead."
        )
    if method != "auto":
        return method
    return "projected" if 2 * (p + r) <= d else "dense"


#: Environment variables giving :func:`check_budget`'s default limits (bytes, e.g. ``8e9`` or ``8G``; seconds).
MEMORY_ENV, SECONDS_ENV = "FLT_MAX_MEMORY", "FLT_MAX_SECONDS"
#: Default time limit of :func:`check_budget`, in seconds (one day).
MAX_SECONDS = 86400.0
#: Throughput assumed by :func:`check_budget` per device type: GEMM FLOP/s and Gaussian draws/s per
#: CPU thread (measured on a 2-core Xeon: 40 GFLOP/s, 1.8e8 draws/s), and for a whole GPU.
RATES = {"cpu": (3e10, 1.5e8), "cuda": (3e13, 1e11)}
#: A dense symmetric eigendecomposition, pseudo-inverse or solve of size p counts as this many p^3 FLOPs.
_CUBIC = 20


@dataclass(frozen=True)
class RunBudget:
    """Estimate of a :func:`giant_steps` run returned by :func:`check_budget` (bytes, seconds)."""

    method: str
    bytes: int
    seconds: float
    max_bytes: int
    max_seconds: float


def _size_text(n_bytes: float) -> str:
    return f"{n_bytes / 1e9:.3g} GB" if n_bytes < 1e30 else f"{n_bytes:.3g} bytes"


def _estimate(d, n, p, seeds, steps, r, n_ridge, n_test, ridge, itemsize, method, kind, threads):
    """(bytes, seconds, memory terms, time terms); each term: (count, description, {parameter: value})."""
    k = d if method == "dense" else min(d, p + r)
    block = BLOCK_ROWS[kind]
    chunk = max(block, (2**21 if kind == "cpu" else 2**25) // max(1, seeds * (k + p)) // block * block)
    rows = min(chunk, max(n, n_ridge, n_test))
    memory = [
        (
            (2 * (steps + 1) + (3 if method == "dense" else 5)) * seeds * p * d + 3 * seeds * r * d,
            f"first-layer weights of every step and the step's work space, about {2 * (steps + 1) + 3} x seeds x p x d",
            {"seeds": seeds, "p": p, "d": d, "steps": steps},
        ),
        (
            seeds * (rows + block) * k + 4 * seeds * rows * p,
            f"one chunk of Gaussian inputs and its pre-activations, seeds x ({rows} + {block}) x "
            + ("d" if method == "dense" else "(p + r)"),
            {"seeds": seeds, "d": d} if method == "dense" else {"seeds": seeds, "p": p},
        ),
        (
            seeds * p * p * ((5 if ridge else 0) + (4 if method == "projected" and steps else 0)),
            "p x p Gram matrices and their factorisations, seeds x p x p",
            {"seeds": seeds, "p": p},
        ),
        (3 * seeds * d * k if method == "projected" else 0, "the projection basis, seeds x d x (p + r)",
         {"d": d, "p": p}),
    ]
    gemm_rate, draw_rate = RATES[kind]
    if kind == "cpu":
        gemm_rate, draw_rate = gemm_rate * threads, draw_rate * threads
    blocks = lambda count: -(-count // block) * block  # noqa: E731 - draws are whole blocks
    flops = steps * seeds * n * (4 * k * p + 2 * k * r + (2 * p * p if method == "projected" else 0))
    flops += seeds * (2 * n_ridge * (k * p + p * p) + 2 * n_test * k * p) if ridge else 0
    cubic = _CUBIC * seeds * p**3 * ((steps if method == "projected" else 0) + (1 if ridge else 0))
    if method == "projected":
        flops += steps * seeds * (2 * p * p * d + 4 * p * d * k + 4 * d * k * k)
    draws = seeds * (steps * blocks(n) + (blocks(n_ridge) + blocks(n_test) if ridge else 0)) * k
    draws += steps * seeds * p * d if method == "projected" and k < d else 0
    time_terms = [
        (flops / gemm_rate, "matrix products", {"n": n, "seeds": seeds, "p": p, "d": d, "steps": steps}),
        (draws / draw_rate, "Gaussian draws", {"n": n, "seeds": seeds, "d": d, "steps": steps}),
        (cubic / gemm_rate, "p x p eigendecompositions and ridge solves", {"p": p, "seeds": seeds}),
    ]
    total_bytes = itemsize * sum(term[0] for term in memory)
    return total_bytes, sum(term[0] for term in time_terms), memory, time_terms


def check_budget(
    *,
    d: int,
    n: int,
    p: int,
    seeds: int | Sequence[int],
    steps: int = 1,
    dtype: str | torch.dtype = "float32",
    method: str = "auto",
    r: int = 1,
    ridge: bool = False,
    n_ridge: int | None = None,
    n_test: int | None = None,
    device: str = "cpu",
    threads: int | None = None,
    max_bytes: float | None = None,
    max_seconds: float | None = None,
    force: bool = False,
) -> RunBudget:
    r"""Estimate the peak memory and the time of :func:`giant_steps` with these sizes, and refuse it
    up front when either exceeds its limit (a pure function: nothing is allocated or run).

    Memory counts every tensor the run holds at its peak, in the working dtype: the weights of all
    :math:`T + 1` steps (kept, then stacked), the step's work space, one chunk of inputs with one
    random block (:data:`~flt_theory.numeric.data.BLOCK_ROWS` rows, drawn whole even when :math:`n` is smaller) and its
    pre-activations, the :math:`p \times p` Gram matrices, and for ``"projected"`` the basis. Time is
    FLOPs and Gaussian draws over the rates of :data:`RATES` (per CPU thread; a dense :math:`p \times p`
    factorisation counts :math:`20p^3`): an order of magnitude, not a promise.

    Parameters
    ----------
    d, n, p, seeds, steps, dtype, method, r
        As in :func:`giant_steps` (``seeds``: a count or the seed values; ``r``: the target rank).
    ridge, n_ridge, n_test
        Whether the second layer is fitted, on how many samples (default ``n``).
    device
        ``"cpu"`` or ``"cuda"`` (rates and default memory limit; nothing is touched).
    threads
        CPU threads assumed (default: :func:`~flt_theory.numeric.backend.available_cores`).
    max_bytes, max_seconds
        Limits; default ``$FLT_MAX_MEMORY`` (bytes, suffix K/M/G/T allowed), else half the physical
        memory (the device's memory on CUDA), and ``$FLT_MAX_SECONDS``, else :data:`MAX_SECONDS`.
    force
        Return the estimate without refusing.

    Raises
    ------
    InvalidParameterError
        Naming the size that dominates the estimate above the limit, the estimate and how to raise
        the limit.

    Examples
    --------
    >>> check_budget(d=512, n=2**16, p=32, seeds=4).method
    'projected'
    >>> check_budget(d=10**7, n=2, p=2, seeds=1, method="dense", max_bytes=24e9)
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: The 'd' parameter is too large: ...
    """
    count = len(as_seeds(seeds)) if not isinstance(seeds, numbers.Integral) else check_int(seeds, "seeds", minimum=1)
    d = check_int(d, "d", minimum=1, caller="check_budget")
    n = check_int(n, "n", minimum=1, caller="check_budget")
    p = check_int(p, "p", minimum=1, caller="check_budget")
    steps = check_int(steps, "steps", minimum=0, caller="check_budget")
    r = check_int(r, "r", minimum=1, caller="check_budget")
    n_ridge = n if n_ridge is None else check_int(n_ridge, "n_ridge", minimum=1, caller="check_budget")
    n_test = n if n_test is None else check_int(n_test, "n_test", minimum=1, caller="check_budget")
    itemsize = torch.finfo(resolve_dtype(dtype)).bits // 8
    kind = device.type if isinstance(device, torch.device) else str(device).split(":")[0]
    if kind not in RATES:
        raise InvalidParameterError(
            f"The 'device' parameter of check_budget must be 'cpu' or 'cuda'. Got {device!r} instead.")
    threads = available_cores() if threads is None else check_int(threads, "threads", minimum=1, caller="check_budget")
    resolved = choose_method(method, d=d, p=p, r=r)
    if max_bytes is None:
        default = physical_memory() / 2
        if kind == "cuda" and torch.cuda.is_available():
            default = torch.cuda.get_device_properties(0).total_memory * 0.8
        max_bytes = env_limit(MEMORY_ENV, default, memory=True)
    max_bytes = check_real(max_bytes, "max_bytes", minimum=0, strict_minimum=True, caller="check_budget")
    if max_seconds is None:
        max_seconds = env_limit(SECONDS_ENV, MAX_SECONDS, memory=False)
    max_seconds = check_real(max_seconds, "max_seconds", minimum=0, strict_minimum=True, caller="check_budget")
    sizes = (d, n, p, count, steps, r, n_ridge, n_test, bool(ridge), itemsize)
    total_bytes, seconds, memory, time_terms = _estimate(*sizes, resolved, kind, threads)
    budget = RunBudget(resolved, int(total_bytes), float(seconds), int(max_bytes), float(max_seconds))
    if force:
        return budget
    what = (
        f"d={d}, n={n}, p={p}, seeds={count}, steps={steps}, {str(resolve_dtype(dtype)).removeprefix('torch.')}, "
        f"method={resolved!r}"
    )
    if total_bytes > max_bytes:
        elements, description, params = max(memory, key=lambda term: term[0])
        hint = ""
        if resolved == "dense" and min(d, p + r) < d:
            other = _estimate(*sizes, "projected", kind, threads)[0]
            if other <= max_bytes:
                hint = f"; method='projected' would need about {_size_text(other)}"
        raise InvalidParameterError(
            f"The {max(params, key=params.get)!r} parameter is too large: the giant-step run ({what}) needs about "
            f"{_size_text(total_bytes)} of memory, over the limit of {_size_text(max_bytes)}, mostly for {description} "
            f"({_size_text(itemsize * elements)}){hint}. Use smaller sizes, raise the limit with max_bytes or "
            f"${MEMORY_ENV}, or force the run."
        )
    if seconds > max_seconds:
        _, description, params = max(time_terms, key=lambda term: term[0])
        raise InvalidParameterError(
            f"The {max(params, key=params.get)!r} parameter is too large: the giant-step run ({what}) would take "
            f"about {seconds:.3g} s on {threads} {kind} thread(s), over the limit of {max_seconds:.3g} s, mostly "
            f"for {description}. Use smaller sizes, raise the limit with max_seconds or ${SECONDS_ENV}, or force "
            "the run."
        )
    return budget


def gradient_step(
    student: Student, teacher: Teacher, chunks: Iterable[torch.Tensor], eta: float
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""One full-batch GD step on the first layer over all samples in ``chunks`` (module formula).

    Parameters
    ----------
    student, teacher
        Current student and the teacher, batched over the same seeds.
    chunks
        Iterable of input chunks ``(seeds, chunk, d)`` (e.g. :func:`~flt_theory.numeric.data.gaussian_chunks`);
        :math:`n` is their total number of rows.
    eta
        Step size :math:`\eta`.

    Returns
    -------
    weights, loss
        :math:`W^{t+1}` ``(seeds, p, d)`` and the loss :math:`\frac1{2n}\sum_\mu r_\mu^2` before the step ``(seeds,)``.

    Examples
    --------
    >>> from flt_theory.numeric.data import teacher_directions
    >>> teacher = Teacher(Target.parse("z1"), teacher_directions(1, 4, 1, device="cpu"))
    >>> student = Student.init(1, p=2, d=4, device="cpu")
    >>> w1, loss = gradient_step(student, teacher, [torch.randn(1, 8, 4)], eta=2.0)
    >>> w1.shape, loss.shape
    (torch.Size([1, 2, 4]), torch.Size([1]))
    """
    grad, _, loss, n = _accumulate(student, teacher, chunks, with_gram=False, caller="gradient_step")
    return student.weights + (eta / n) * (student.a / student.p).unsqueeze(-1) * grad, loss / n


def _accumulate(
    student: Student, teacher: Teacher, chunks: Iterable[torch.Tensor], *, with_gram: bool, caller: str
) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor, int]:
    r""":math:`G = M^\top X` ``(seeds, p, d)``, :math:`M^\top M` ``(seeds, p, p)`` if ``with_gram``,
    :math:`\frac12\sum_\mu r_\mu^2` ``(seeds,)`` and :math:`n`, over the chunks ``(seeds, chunk, d)``
    (``d`` is whatever width the student and teacher act on: the input dimension, or :math:`k` for
    projected coordinates)."""
    weights = student.weights
    w_t = weights.transpose(1, 2)
    grad = torch.zeros_like(weights)
    gram = (torch.zeros(*weights.shape[:2], weights.shape[1], device=weights.device, dtype=weights.dtype)
            if with_gram else None)
    loss = torch.zeros(weights.shape[0], device=weights.device, dtype=weights.dtype)
    pre = torch.empty(0, device=weights.device, dtype=weights.dtype)  # reused while the chunk size repeats
    n = 0
    for x in chunks:
        if pre.shape[:2] != x.shape[:2]:
            pre = torch.empty(*x.shape[:2], weights.shape[1], device=x.device, dtype=x.dtype)
        torch.matmul(x, w_t, out=pre)  # (seeds, chunk, p)
        residual = teacher(x) - student.output(student.activation(pre))  # (seeds, chunk)
        # sigma'(pre) is a fresh tensor, or pre itself (sigma = z^2/2), no longer needed: update in place
        m = student.activation.grad(pre).mul_(residual.unsqueeze(-1))
        grad.baddbmm_(m.transpose(1, 2), x)
        if gram is not None:
            gram.baddbmm_(m.transpose(1, 2), m)
        loss += 0.5 * residual.square().sum(-1)
        n += x.shape[1]
    _check_samples(n, caller)
    return grad, gram, loss, n


def distinct_rows(weights: torch.Tensor) -> torch.Tensor:
    r"""The rows of ``weights`` ``(seeds, p, d)`` without the mirror half of the symmetric initialisation.

    At :math:`t = 0` the student has :math:`w_{p/2+i} = w_i` (:mod:`flt_theory.numeric.student`), so
    :math:`[W; W^*]` is rank deficient and the columns of its QR factor beyond the rank are arbitrary —
    LAPACK fills them differently with a different thread count, and the inputs drawn on them with it:
    the same seed would give different numbers. Dropping the duplicate half keeps the span and makes
    the basis a function of the seed alone (up to rounding). After a step the halves differ (their
    updates carry opposite :math:`a_i`) and every row is kept.

    >>> w = torch.randn(1, 2, 5)
    >>> distinct_rows(torch.cat([w, w], dim=1)).shape, distinct_rows(torch.randn(1, 4, 5)).shape
    (torch.Size([1, 2, 5]), torch.Size([1, 4, 5]))
    """
    half = weights.shape[-2] // 2
    if weights.shape[-2] % 2 == 0 and half and torch.equal(weights[..., :half, :], weights[..., half:, :]):
        return weights[..., :half, :]
    return weights


def projection_basis(weights: torch.Tensor, w_star: torch.Tensor) -> torch.Tensor:
    r"""Orthonormal columns :math:`Q` ``(seeds, d, k)``, :math:`k = \min(d, p + r)`, whose span contains
    the rows of ``weights`` ``(seeds, p, d)`` and of ``w_star`` ``(seeds, r, d)``: the reduced
    Householder QR of :math:`[W^\top, W^{*\top}]` (module docstring; orthonormal also when that matrix
    is rank-deficient).

    >>> w, s = torch.eye(2, 5).expand(3, 2, 5), torch.ones(3, 1, 5)
    >>> q = projection_basis(w, s)
    >>> q.shape, bool(torch.allclose(q.transpose(1, 2) @ q, torch.eye(3).expand(3, 3, 3), atol=1e-6))
    (torch.Size([3, 5, 3]), True)
    """
    stacked = torch.cat([weights, w_star], dim=1).transpose(1, 2)
    return torch.linalg.qr(stacked, mode="reduced")[0]


def _psd_factor(gram: torch.Tensor) -> torch.Tensor:
    r"""The symmetric square root :math:`L = V\Lambda^{1/2}V^\top` of ``gram`` (symmetric PSD
    ``(..., p, p)``), so :math:`LL^\top = ` ``gram``. Eigenvalues below :math:`32p\,\epsilon\,\lambda_{\max}`
    (the backward error of the eigensolver: indistinguishable from 0) are set to 0. Unlike
    :math:`V\Lambda^{1/2}` (eigenvector signs and bases of repeated eigenvalues are arbitrary), this is a
    continuous function of ``gram`` and, with the null space cut, stable at the exact rank deficiency
    of the symmetric initialisation: a rounding-level change of ``gram`` (another chunk size, another
    batch) moves :math:`L` at rounding level divided by the spectral gap."""
    values, vectors = torch.linalg.eigh(gram)
    cut = 32 * gram.shape[-1] * torch.finfo(gram.dtype).eps * values[..., -1:].clamp_min(0)
    roots = torch.where(values > cut, values.clamp_min(0).sqrt(), torch.zeros_like(values))
    return (vectors * roots.unsqueeze(-2)) @ vectors.transpose(-1, -2)


def projected_gradient_step(
    student: Student,
    teacher: Teacher,
    chunks: Iterable[torch.Tensor],
    eta: float,
    *,
    basis: torch.Tensor,
    noise: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""One giant step from projected inputs :math:`u = Q^\top x` (module docstring, ``"projected"``).

    .. math::

        W^{t+1} = W^t + \frac{\eta}{n}\,\mathrm{diag}(a/p)\big[(M^\top U) Q^\top + L Z (I - QQ^\top)\big],
        \qquad L L^\top = M^\top M .

    Parameters
    ----------
    student, teacher
        Current student ``(seeds, p, d)`` and teacher ``(seeds, r, d)``; the rows of both must lie in
        the span of ``basis``.
    chunks
        Iterable of projected inputs :math:`u \sim \mathcal N(0, I_k)`, chunks ``(seeds, chunk, k)``.
    eta
        Step size :math:`\eta`.
    basis
        :math:`Q` ``(seeds, d, k)`` with orthonormal columns (:func:`projection_basis`).
    noise
        :math:`Z` ``(seeds, p, d)`` standard Gaussian, independent of ``chunks``; ``None`` drops the
        orthogonal term and returns only the component of the update in the span of :math:`Q` (what
        the dense step gives for the same :math:`u`; for tests, not a GD step).

    Returns
    -------
    weights, loss
        :math:`W^{t+1}` ``(seeds, p, d)`` and :math:`\frac1{2n}\sum_\mu r_\mu^2` before the step ``(seeds,)``.

    Examples
    --------
    >>> from flt_theory.numeric.data import teacher_directions
    >>> teacher = Teacher(Target.parse("z1"), teacher_directions(1, 8, 1, device="cpu"))
    >>> student = Student.init(1, p=2, d=8, device="cpu")
    >>> q = projection_basis(student.weights, teacher.w_star)
    >>> w1, loss = projected_gradient_step(student, teacher, [torch.randn(1, 16, 3)], 2.0, basis=q,
    ...                                    noise=torch.randn(1, 2, 8))
    >>> w1.shape, loss.shape
    (torch.Size([1, 2, 8]), torch.Size([1]))
    """
    q_t = basis.transpose(1, 2)
    reduced_student = replace(student, weights=student.weights @ basis)
    reduced_teacher = Teacher(teacher.target, teacher.w_star @ basis)
    grad_u, gram, loss, n = _accumulate(
        reduced_student, reduced_teacher, chunks, with_gram=noise is not None, caller="projected_gradient_step"
    )
    grad = grad_u @ q_t  # (M^T U) Q^T, (seeds, p, d)
    if noise is not None and basis.shape[-1] < basis.shape[-2]:
        assert gram is not None  # with_gram=True: noise is given
        finite = torch.isfinite(gram).all(dim=(-2, -1))  # a diverged seed: NaN weights, as the dense step gives
        gram = torch.where(finite[:, None, None], gram, torch.zeros_like(gram))
        perp = noise - (noise @ basis) @ q_t  # Z (I - Q Q^T)
        grad.baddbmm_(_psd_factor(gram), perp)
        grad = torch.where(finite[:, None, None], grad, torch.full_like(grad, math.nan))
    return student.weights + (eta / n) * (student.a / student.p).unsqueeze(-1) * grad, loss / n


def fit_second_layer(student: Student, teacher: Teacher, chunks: Iterable[torch.Tensor], ridge: float) -> torch.Tensor:
    r"""Ridge second layer :math:`a^* = p\beta`, :math:`(\Phi^\top\Phi/n + 2\lambda p I)\beta = \Phi^\top y/n`
    (module docstring), on the samples of ``chunks``; returns ``(seeds, p)``.

    >>> from flt_theory.numeric.data import teacher_directions
    >>> teacher = Teacher(Target.parse("z1"), teacher_directions(2, 4, 1, device="cpu"))
    >>> student = Student.init(2, p=6, d=4, device="cpu")
    >>> fit_second_layer(student, teacher, [torch.randn(2, 50, 4)], ridge=1e-3).shape
    torch.Size([2, 6])
    """
    ridge = check_real(ridge, "ridge", minimum=0, caller="fit_second_layer")
    s, p = student.a.shape
    gram = torch.zeros(s, p, p, device=student.a.device, dtype=student.a.dtype)
    rhs = torch.zeros(s, p, 1, device=student.a.device, dtype=student.a.dtype)
    n = 0
    for x in chunks:
        phi = student.activation(student.preactivations(x))
        gram.baddbmm_(phi.transpose(1, 2), phi)
        rhs.baddbmm_(phi.transpose(1, 2), teacher(x).unsqueeze(-1))
        n += x.shape[1]
    _check_samples(n, "fit_second_layer")
    check_finite(gram, "the Gram matrix of the second-layer features", "the first layer is too large; decrease eta")
    system = gram / n + 2 * ridge * p * torch.eye(p, device=gram.device, dtype=gram.dtype)
    if ridge == 0:  # the lambda -> 0 limit: minimum-norm least squares
        beta = torch.linalg.pinv(system, hermitian=True) @ (rhs / n)
    else:
        beta, info = torch.linalg.solve_ex(system, rhs / n)
        if bool((info != 0).any()):
            raise NonFiniteError(f"the ridge system of the second layer is singular (ridge={ridge}, n={n}, p={p})")
    check_finite(beta, "the ridge solution of the second layer")
    return p * beta.squeeze(-1)


def test_error(student: Student, teacher: Teacher, chunks: Iterable[torch.Tensor]) -> torch.Tensor:
    r"""Mean squared error :math:`\frac1n\sum_\mu (f^*(x_\mu) - \hat f(x_\mu))^2` per seed, ``(seeds,)``.

    >>> from flt_theory.numeric.data import teacher_directions
    >>> teacher = Teacher(Target.parse("z1"), teacher_directions(1, 3, 1, device="cpu"))
    >>> test_error(Student.init(1, p=2, d=3, device="cpu"), teacher, [teacher.w_star])  # f_hat = 0, x = w*
    tensor([1.])
    """
    total: torch.Tensor | float = 0.0
    n = 0
    for x in chunks:
        total = total + (teacher(x) - student(x)).square().sum(-1)
        n += x.shape[1]
    _check_samples(n, "test_error")
    assert isinstance(total, torch.Tensor)  # n > 0: at least one chunk was added
    return check_finite(total / n, "the test error")


vars(test_error)["__test__"] = False  # not a pytest test despite its name (a function attribute mypy cannot see)


def _check_samples(n: int, caller: str) -> None:
    if n == 0:
        raise InvalidParameterError(f"The 'chunks' parameter of {caller} must hold at least one sample. Got none.")


def _check_step(loss: torch.Tensor, weights: torch.Tensor, t: int, eta: float) -> None:
    """Raise :class:`NonFiniteError` naming ``eta`` if step ``t`` diverged: the loss before it (for
    ``t = 0`` that is the target overflowing), or the new weights or their squared norms, not finite."""
    if t == 0:
        check_finite(loss, "the training loss at step 1", "the target overflows on Gaussian inputs")
    else:
        check_finite(loss, f"the training loss at step {t + 1}", f"training diverged; decrease eta (= {eta:g})")
    if not bool(torch.isfinite(weights.square().sum(-1)).all()):
        raise NonFiniteError(
            f"training diverged at step {t + 1}: the first-layer weights (or their squared norms, in "
            f"{str(weights.dtype).removeprefix('torch.')}) contain NaN or infinite values; decrease eta (= {eta:g})"
        )


def _step_sizes(eta: object, steps: int, p: int, d: int, leap_index: int) -> tuple[float, ...]:
    if isinstance(eta, str):
        if eta != "theory":
            raise InvalidParameterError(
                f"The 'eta' parameter must be a positive number, a sequence of them, or 'theory'. Got {eta!r} instead."
            )
        return (theory_step_size(p, d, leap_index),) * steps
    if isinstance(eta, numbers.Real):
        return (check_real(eta, "eta", minimum=0, caller="giant_steps"),) * steps
    if isinstance(eta, Sequence):
        if len(eta) != steps:
            raise InvalidParameterError(f"The 'eta' parameter has {len(eta)} step sizes for steps={steps}.")
        return tuple(check_real(e, "eta", minimum=0, caller="giant_steps") for e in eta)
    raise InvalidParameterTypeError(
        f"The 'eta' parameter must be a number, a sequence of numbers or 'theory'. Got {eta!r} of type "
        f"{type(eta).__name__} instead."
    )


def giant_steps(
    target: Target,
    *,
    d: int,
    p: int,
    n: int,
    steps: int = 1,
    eta: float | str | Sequence[float] = "theory",
    leap_index: int | None = None,
    activation: str | sp.Expr | Activation = "relu",
    seeds: int | Sequence[int] = 1,
    ridge: float | None = 1e-3,
    n_ridge: int | None = None,
    n_test: int | None = None,
    renormalize: bool = False,
    teacher_basis: str = "random",
    chunk_size: int | None = None,
    device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float32",
    method: str = "auto",
    threads: int | None = None,
) -> GiantStepResult:
    r"""Run :math:`T` giant steps on the first layer, then ridge on the second (module docstring).

    Parameters
    ----------
    target
        The link :math:`g` (:class:`~flt_theory.symbolic.target.Target`).
    d, p, n
        Input dimension (:math:`\ge r`), even width, samples per step.
    steps
        :math:`T \ge 0` (``0``: random features).
    eta
        Step size: a number (every step), a sequence of ``steps`` numbers, or ``"theory"``
        :math:`= p\,d^{(\ell-1)/2}` with :math:`\ell` = ``leap_index`` (default: the target's own leap
        index, derived by :func:`flt_theory.symbolic.leap_index`).
    activation
        Student :math:`\sigma`, e.g. ``"relu"``, ``"tanh(z)"``, ``"relu(z)**3"``.
    seeds
        Number of seeds or their values; the leading batch dimension of every tensor.
    ridge
        :math:`\lambda \ge 0` of the second layer; ``None`` skips the second layer and test error.
    n_ridge, n_test
        Fresh samples for ridge and test (default ``n``).
    renormalize
        Project each :math:`w_i` back to the unit sphere after every step.
    teacher_basis
        ``"random"`` (Haar) or ``"canonical"`` teacher directions.
    chunk_size
        Rows per chunk (memory is independent of ``n``); results do not depend on it beyond
        floating-point summation order.
    device, dtype
        ``"auto"`` (CUDA if available), ``"cpu"``, ``"cuda"``; ``"float32"`` or ``"float64"``.
    method
        ``"dense"`` (draw the :math:`n \times d` inputs), ``"projected"`` (draw only their projection on
        the span of :math:`W^t` and :math:`W^*`, plus the exact conditional law of the rest; same
        distribution of every output) or ``"auto"``: :func:`choose_method` (module docstring).
    threads
        Torch CPU threads, also the Gaussian sampler's workers (:func:`~flt_theory.numeric.backend.configure_threads`;
        default: ``$FLT_THREADS`` if set, else torch's current setting).

    Raises
    ------
    InvalidParameterError, InvalidParameterTypeError
        On bad input. NonFiniteError (a :class:`~flt_theory.errors.DivergenceError`) if training
        diverges, naming ``eta``.

    Examples
    --------
    >>> res = giant_steps(Target.from_links(["z + He2(z)"]), d=16, p=8, n=256, eta=8.0, seeds=2, device="cpu")
    >>> res.weights.shape, res.test_error.shape, res.config.method
    (torch.Size([2, 2, 8, 16]), torch.Size([2]), 'dense')
    >>> giant_steps(Target.parse("z1"), d=64, p=8, n=256, seeds=2, device="cpu").config.method
    'projected'
    """
    if not isinstance(target, Target):
        raise InvalidParameterTypeError(
            f"The 'target' parameter of giant_steps must be a Target (e.g. Target.parse('z1 + He2(z2)')). "
            f"Got {type(target).__name__} instead."
        )
    seeds = as_seeds(seeds)
    d = check_int(d, "d", minimum=1, caller="giant_steps")
    if d < target.rank:
        raise InvalidParameterError(
            f"The 'd' parameter of giant_steps must be >= the target rank {target.rank}. Got {d} instead."
        )
    p = check_int(p, "p", minimum=2, caller="giant_steps")
    n = check_int(n, "n", minimum=1, caller="giant_steps")
    steps = check_int(steps, "steps", minimum=0, caller="giant_steps")
    if leap_index is None:  # the target's own leap index (derived symbolically; an explicit value wins)
        from ...symbolic.leap import leap_index as _leap_index

        leap_index = _leap_index(target) if isinstance(eta, str) else 1
    leap_index = check_int(leap_index, "leap_index", minimum=1, caller="giant_steps")
    etas = _step_sizes(eta, steps, p, d, leap_index)
    if ridge is not None:
        ridge = check_real(ridge, "ridge", minimum=0, caller="giant_steps")
    n_ridge = n if n_ridge is None else check_int(n_ridge, "n_ridge", minimum=1, caller="giant_steps")
    n_test = n if n_test is None else check_int(n_test, "n_test", minimum=1, caller="giant_steps")
    if not isinstance(renormalize, bool):
        raise InvalidParameterTypeError(f"The 'renormalize' parameter must be a bool. Got {renormalize!r} instead.")
    method = choose_method(method, d=d, p=p, r=target.rank)
    if threads is not None:
        threads = check_int(threads, "threads", minimum=1, caller="giant_steps")
    configure_threads(threads)
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    width = d if method == "dense" else min(d, p + target.rank)  # columns of the drawn inputs
    if chunk_size is None:  # projected: few columns, so cap the rows (math library work space grows with them)
        chunk = default_chunk_size(len(seeds), width, p, dev)
        chunk = chunk if method == "dense" else min(chunk, PROJECTED_CHUNK_BLOCKS * BLOCK_ROWS[dev.type])
    else:
        chunk = check_int(chunk_size, "chunk_size", minimum=1)

    teacher = Teacher(target, teacher_directions(seeds, d, target.rank, basis=teacher_basis, device=dev, dtype=dt))
    student = Student.init(seeds, p, d, activation, device=dev, dtype=dt)

    def data(count: int, stream: str, columns: int = width):
        return gaussian_chunks(seeds, count, columns, stream, chunk_size=chunk, reuse_buffer=True, device=dev, dtype=dt)

    weights, losses = [student.weights], []
    for t, eta_t in enumerate(etas):
        if method == "dense":
            w, loss = gradient_step(student, teacher, data(n, f"step{t}"), eta_t)
        else:
            basis = projection_basis(distinct_rows(student.weights), teacher.w_star)
            k = basis.shape[-1]
            noise = seeded_normal(seeds, (p, d), f"step{t}/noise", device=dev, dtype=dt) if k < d else None
            w, loss = projected_gradient_step(student, teacher, data(n, f"step{t}/u", k), eta_t, basis=basis,
                                              noise=noise)
        _check_step(loss, w, t, eta_t)
        if renormalize:
            w = w / torch.linalg.vector_norm(w, dim=-1, keepdim=True)
        student = replace(student, weights=w)
        weights.append(w)
        losses.append(loss)

    a = error = None
    if ridge is not None:
        if method == "dense":
            fit_student, fit_teacher, suffix = student, teacher, ""
        else:  # sigma(W x) and g(W* x) are functions of u = Q^T x alone
            basis = projection_basis(distinct_rows(student.weights), teacher.w_star)
            fit_student = replace(student, weights=student.weights @ basis)
            fit_teacher, suffix = Teacher(target, teacher.w_star @ basis), "/u"
        columns = basis.shape[-1] if method != "dense" else width
        a = fit_second_layer(fit_student, fit_teacher, data(n_ridge, "ridge" + suffix, columns), ridge)
        error = test_error(replace(fit_student, a=a), fit_teacher, data(n_test, "test" + suffix, columns))

    config = GiantStepConfig(d=d, p=p, n=n, steps=steps, eta=etas, leap_index=leap_index,
                             activation=str(student.activation), seeds=seeds, ridge=ridge, n_ridge=n_ridge,
                             n_test=n_test, renormalize=renormalize, teacher_basis=teacher_basis, chunk_size=chunk,
                             device=str(dev), dtype=str(dt).removeprefix("torch."), method=method)
    empty = torch.empty(0, len(seeds), device=dev, dtype=dt)
    return GiantStepResult(config=config, teacher=teacher, weights=torch.stack(weights), a0=student.a,
                           activation=student.activation, train_loss=torch.stack(losses) if losses else empty, a=a,
                           test_error=error)
