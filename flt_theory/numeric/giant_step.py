r"""Giant-step gradient descent on the first layer, then ridge on the second (DKLPS '23).

Source: CLAIMS.md §1, seed ``004`` (Dandi, Krzakala, Loureiro, Pesce, Stephan, arXiv 2305.18270).

First layer. :math:`T` full-batch GD steps on the square loss :math:`\ell = \frac12 (y - \hat f)^2`,
step :math:`t` on :math:`n` fresh samples (stream ``"step{t}"``), second layer frozen at :math:`a^0`:

.. math::

    w_i^{t+1} = w_i^t + \frac{\eta_t}{n} \sum_{\mu=1}^n \big(y_\mu - \hat f(x_\mu)\big)\,
    \frac{a_i}{p}\, \sigma'(\langle w_i^t, x_\mu\rangle)\, x_\mu .

The gradient is computed in closed form (not autograd), chunk by chunk with two batched matmuls:
:math:`P = X W^\top`, then :math:`G \mathrel{+}= \big(r \odot \sigma'(P)\big)^\top X`; the factor :math:`a_i/p` of
row :math:`i` is applied once at the end.

Step sizes. :math:`\eta` is a number or ``"theory"`` :math:`= p\, d^{(\ell-1)/2}` (:math:`\ell` the leap
index, given by the caller): with the :math:`1/p` normalisation the per-neuron step is
:math:`\eta/p`, and :math:`\langle w_i^1, w^*_k\rangle \approx (\eta a_i/p)\, c_\sigma \mu^*_{k,\ell}\,
\langle w_i^0, w^*_k\rangle^{\ell-1}` with :math:`\langle w_i^0, w^*_k\rangle \sim d^{-1/2}`, so this
:math:`\eta` is the smallest that makes the overlap :math:`\Theta(1)` in one step.

Multi-step normalisation (what is used, and why). The same :math:`\eta` is used at every step
(a per-step sequence may be given instead), and the weights are *not* renormalised between steps
unless ``renormalize=True`` (then :math:`w_i \leftarrow w_i / \lVert w_i\rVert` after each step).
Reason: after the first step :math:`\hat f = O(1)`, so the residual stays :math:`O(1)` and a constant
:math:`\eta = \Theta(p)` keeps every step :math:`\Theta(1)` per neuron — the regime in which CLAIMS.md
§1 reports the staircase visible (:math:`d = p = 256`, :math:`n = 64d\text{–}256d`, :math:`\eta` a few
times :math:`p`, ReLU). The seed's staircase conjecture writes ":math:`\eta = \sqrt p`"; under this
package's :math:`1/p` network that would be a vanishing per-neuron step :math:`p^{-1/2}`, so we read it
as the :math:`1/\sqrt p`-normalised network's :math:`\Theta(1)` per-neuron step, i.e. :math:`\eta = \Theta(p)`
here. The mass observables are scale-invariant, and for ReLU (positively homogeneous,
:math:`\sigma'` scale-free) renormalising only rescales :math:`\hat f`.

Second layer. Ridge on :math:`n_\text{ridge}` fresh samples (stream ``"ridge"``), the seed's
:math:`a^* = \arg\min_a \frac1n \sum_\mu \ell(y_\mu, \hat f(x_\mu; W^T, a)) + \frac{\lambda}{p}\lVert a\rVert^2`.
With :math:`\Phi = \sigma(X W^\top)` (:math:`n \times p`) and :math:`a = p\beta` this is the linear system

.. math::

    \Big(\tfrac1n \Phi^\top\Phi + 2\lambda p\, I\Big)\beta = \tfrac1n \Phi^\top y, \qquad a^* = p\,\beta,

accumulated chunk by chunk and solved batched over seeds (:math:`\lambda = 0`: the minimum-norm least-squares
solution, through the pseudo-inverse of the Gram matrix). Test error: mean squared error
:math:`\frac1{n_\text{test}}\sum_\mu (y_\mu - \hat f(x_\mu))^2` on fresh samples (stream ``"test"``),
per seed (no factor 1/2).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import sympy as sp
import torch

from .._validation import check_int, check_real
from ..errors import InvalidParameterError, InvalidParameterTypeError
from ..symbolic.target import Target
from .activation import Activation
from .backend import NonFiniteError, check_finite, resolve_device, resolve_dtype
from .data import as_seeds, default_chunk_size, gaussian_chunks, teacher_directions
from .student import Student
from .teacher import Teacher

__all__ = [
    "GiantStepConfig",
    "GiantStepResult",
    "fit_second_layer",
    "giant_steps",
    "gradient_step",
    "test_error",
    "theory_step_size",
]


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


def gradient_step(
    student: Student, teacher: Teacher, chunks: Iterable[torch.Tensor], eta: float
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""One full-batch GD step on the first layer over all samples in ``chunks`` (module formula).

    Parameters
    ----------
    student, teacher
        Current student and the teacher, batched over the same seeds.
    chunks
        Iterable of input chunks ``(seeds, chunk, d)`` (e.g. :func:`~.data.gaussian_chunks`);
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
    weights = student.weights
    w_t = weights.transpose(1, 2)
    grad = torch.zeros_like(weights)
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
        loss += 0.5 * residual.square().sum(-1)
        n += x.shape[1]
    _check_samples(n, "gradient_step")
    return weights + (eta / n) * (student.a / student.p).unsqueeze(-1) * grad, loss / n


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
    total, n = 0.0, 0
    for x in chunks:
        total = total + (teacher(x) - student(x)).square().sum(-1)
        n += x.shape[1]
    _check_samples(n, "test_error")
    return check_finite(total / n, "the test error")


test_error.__test__ = False  # not a pytest test despite its name


def _check_samples(n: int, caller: str) -> None:
    if n == 0:
        raise InvalidParameterError(f"The 'chunks' parameter of {caller} must hold at least one sample. Got none.")


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
        f"The 'eta' parameter must be a number, a sequence of numbers or 'theory'. Got {eta!r} of type {type(eta).__name__} instead."
    )


def giant_steps(
    target: Target,
    *,
    d: int,
    p: int,
    n: int,
    steps: int = 1,
    eta: float | str | Sequence[float] = "theory",
    leap_index: int = 1,
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
        :math:`= p\,d^{(\ell-1)/2}` with :math:`\ell` = ``leap_index``.
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

    Raises
    ------
    InvalidParameterError, InvalidParameterTypeError
        On bad input. NonFiniteError if training diverges (too large ``eta``).

    Examples
    --------
    >>> res = giant_steps(Target.from_links(["z + He2(z)"]), d=16, p=8, n=256, eta=8.0, seeds=2, device="cpu")
    >>> res.weights.shape, res.test_error.shape
    (torch.Size([2, 2, 8, 16]), torch.Size([2]))
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
    leap_index = check_int(leap_index, "leap_index", minimum=1, caller="giant_steps")
    etas = _step_sizes(eta, steps, p, d, leap_index)
    if ridge is not None:
        ridge = check_real(ridge, "ridge", minimum=0, caller="giant_steps")
    n_ridge = n if n_ridge is None else check_int(n_ridge, "n_ridge", minimum=1, caller="giant_steps")
    n_test = n if n_test is None else check_int(n_test, "n_test", minimum=1, caller="giant_steps")
    if not isinstance(renormalize, bool):
        raise InvalidParameterTypeError(f"The 'renormalize' parameter must be a bool. Got {renormalize!r} instead.")
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    chunk = (
        default_chunk_size(len(seeds), d, p, dev)
        if chunk_size is None
        else check_int(chunk_size, "chunk_size", minimum=1)
    )

    teacher = Teacher(target, teacher_directions(seeds, d, target.rank, basis=teacher_basis, device=dev, dtype=dt))
    student = Student.init(seeds, p, d, activation, device=dev, dtype=dt)

    def data(count: int, stream: str):
        return gaussian_chunks(seeds, count, d, stream, chunk_size=chunk, reuse_buffer=True, device=dev, dtype=dt)

    weights, losses = [student.weights], []
    for t, eta_t in enumerate(etas):
        w, loss = gradient_step(student, teacher, data(n, f"step{t}"), eta_t)
        check_finite(loss, f"the training loss at step {t + 1}", "the target overflows or training diverged")
        if renormalize:
            w = w / torch.linalg.vector_norm(w, dim=-1, keepdim=True)
        check_finite(w, f"the first-layer weights after step {t + 1}", f"training diverged; decrease eta (= {eta_t:g})")
        student = replace(student, weights=w)
        weights.append(w)
        losses.append(loss)

    a = error = None
    if ridge is not None:
        a = fit_second_layer(student, teacher, data(n_ridge, "ridge"), ridge)
        error = test_error(replace(student, a=a), teacher, data(n_test, "test"))

    config = GiantStepConfig(
        d=d,
        p=p,
        n=n,
        steps=steps,
        eta=etas,
        leap_index=leap_index,
        activation=str(student.activation),
        seeds=seeds,
        ridge=ridge,
        n_ridge=n_ridge,
        n_test=n_test,
        renormalize=renormalize,
        teacher_basis=teacher_basis,
        chunk_size=chunk,
        device=str(dev),
        dtype=str(dt).removeprefix("torch."),
    )
    empty = torch.empty(0, len(seeds), device=dev, dtype=dt)
    return GiantStepResult(
        config=config,
        teacher=teacher,
        weights=torch.stack(weights),
        a0=student.a,
        activation=student.activation,
        train_loss=torch.stack(losses) if losses else empty,
        a=a,
        test_error=error,
    )
