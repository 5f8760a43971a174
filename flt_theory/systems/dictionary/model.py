r"""Dictionary-learning inputs, a truncated-ReLU network, and fixed (random) features (Shi, Wei, Liang).

Source: Shi, Wei, Liang 2022 (arXiv 2206.01717), "A theoretical analysis on feature learning in
neural networks: emergence from inputs and advantage over fixed features", ICLR 2022).

Data. :math:`x = M\phi` with :math:`M \in \mathbb R^{d\times D}` with orthonormal columns :math:`M_i`
(rows of :func:`~.data.teacher_directions` ``(seeds, D, d)``, stream ``"teacher"``) and
:math:`\phi \in \{0,1\}^D`. A relevant set :math:`A` of :math:`k` patterns (uniformly random per seed, stream
``"relevant"``). **With input structure** (default): the irrelevant :math:`\phi_i`, :math:`i \notin A`, are iid
Bernoulli(:math:`p_0`); the number :math:`c = \sum_{i\in A}\phi_i` of active relevant patterns is uniform on
:math:`\{1, \dots, k\}` and the active ones are a uniformly random :math:`c`-subset of :math:`A`. **Without input
structure** (``structured=False``): :math:`\phi` uniform on :math:`\{0,1\}^D`. Label (both cases)
:math:`y = +1` iff :math:`c` is even (:math:`P` = even counts), :math:`k` even. Classes are balanced
(:math:`k/2` even counts in :math:`1..k`; :math:`P(c \text{ even}) = \tfrac12` for
:math:`c \sim \mathrm{Bin}(k, \tfrac12)`), and
:math:`\gamma = \mathbb E[y\phi_i] - \mathbb E[y]\mathbb E[\phi_i] = 1/(2k)` for :math:`i \in A` with structure, 0
without (:func:`flt_theory.systems.dictionary.dictionary_gamma`). Streams ``"<name>/irrelevant"``, ``"/count"``,
``"/which"``, ``"/uniform"`` (uniforms are :math:`\Phi` of seeded normals).

Network. :math:`g(x) = \sum_{i\le 2m} a_i\,\sigma(\langle w_i, x\rangle + b_i)`,
:math:`\sigma(z) = \min(1, \max(0, z))`, symmetric Gaussian initialisation:
:math:`w_i \sim \mathcal N(0, \sigma_w^2 I_d)`, :math:`b_i \sim \mathcal N(\tfrac12, \sigma_b^2)`,
:math:`a_i \sim \mathcal N(0, 1/(2m))` for :math:`i \le m`, and :math:`w_{i+m} = w_i`, :math:`b_{i+m} = b_i`,
:math:`a_{i+m} = -a_i` (so :math:`g \equiv 0` at initialisation). Loss: hinge :math:`\max(0, 1 - yg)` plus L2. Training,
the two stages of Shi–Wei–Liang:

1. **Feature learning**: ``feature_steps`` full-batch GD steps on :math:`W` (hinge loss, :math:`a`, :math:`b` fixed);
   the first uses step :math:`\eta_1` = ``feature_lr`` with weight decay :math:`\lambda_1 = 1/\eta_1`, which cancels
   the initialisation exactly:
   :math:`w_i^{(1)} = -\eta_1 \nabla_{w_i} L = \eta_1 a_i\,\mathbb E_n[y\,\sigma'(\langle w_i^{(0)}, x\rangle +
   b_i)\,x]`. With :math:`b_i \in (0,1)` and small :math:`w_i^{(0)}`, :math:`\sigma' = 1` and
   :math:`\mathbb E[yx] = M\,\mathbb E[y\phi] = \gamma\sum_{i\in A}M_i`: every neuron moves to
   :math:`\pm\sum_{i\in A} M_i` (sign of :math:`a_i`), up to the sample noise. Further steps (if any) use
   ``feature_lr_later``.
2. **Classifier**: the second layer :math:`(a, \text{bias})` trained to optimum with :math:`W`, :math:`b` fixed:
   :math:`\min_\theta \frac1n\sum_\mu \ell(y_\mu\langle\theta, h_\mu\rangle) + \frac\lambda2\|\theta\|^2` with the hinge
   Huberised over a width :math:`\delta = 0.1` below the kink (a convex problem; L-BFGS, batched over
   seeds). Subgradient GD on the exact hinge oscillates for thousands of steps here, without changing
   what the features can represent.

Fixed features. Same width :math:`2m`: :math:`\Psi_i(x) = \sigma(\langle \tilde w_i, x\rangle + \tilde b_i) \in [0,1]`,
:math:`\tilde w_i` uniformly random directions (stream ``"fixed"``, data independent) with the norms of the
trained :math:`w_i` (the scale a learned neuron has, without its direction),
:math:`\tilde b_i \sim \mathcal N(\tfrac12, \sigma_b^2)`; second layer trained exactly as the network's (same
:math:`\lambda`, i.e. the same norm bound).

Observable of emergence: :math:`\cos_i = |\langle w_i, v\rangle| / \|w_i\|` with :math:`v = \sum_{i\in A} M_i/\sqrt k`;
the cluster fraction :math:`\#\{i : \cos_i > 0.9\}/2m` at every feature step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..._validation import check_int, check_real
from ...errors import InvalidParameterError
from ...numeric.backend import TensorOptions, check_finite, resolve_device, resolve_dtype
from ...numeric.data import as_seeds, seeded_normal, teacher_directions
from ...runner.params import Param, Params

__all__ = [
    "L2",
    "PARAMS",
    "DictionaryConfig",
    "DictionaryData",
    "DictionaryResult",
    "dictionary_data",
    "relevant_sets",
    "second_layer_optimum",
    "train_dictionary",
    "truncated_relu",
]


def truncated_relu(z: torch.Tensor) -> torch.Tensor:
    r""":math:`\sigma(z) = \min(1, \max(0, z))`.

    >>> truncated_relu(torch.tensor([-1.0, 0.25, 3.0])).tolist()
    [0.0, 0.25, 1.0]
    """
    return z.clamp(0.0, 1.0)


#: Ridge penalty of the second-layer solve.
L2 = 1e-4

#: The parameters of a run, declared once: the runner's ``dictionary/run`` (converters and defaults),
#: ``flt simulate dictionary`` (options and bounds) and :func:`train_dictionary` (validation) read them.
PARAMS = Params(
    Param("structured", "int", minimum=0, maximum=1, default=1, help="1: phi with input structure; 0: uniform."),
    Param("D", "int", minimum=2, default=64, unit="count", help="Number of patterns (= input dimension)."),
    Param("k", "int", minimum=2, default=4, unit="count", help="Relevant patterns (even, <= D)."),
    Param("p0", "float", minimum=0, maximum=1, default=0.25, unit="probability",
          help="Probability of an irrelevant pattern."),
    Param("width", "int", minimum=2, default=128, unit="count", help="Neurons (2m, even)."),
    Param("n", "int", minimum=2, default=4096, unit="count", help="Training samples."),
    Param("n_test", "int", minimum=2, default=4096, unit="count", help="Test samples."),
    Param("feature_lr", "float", minimum=0, exclusive_minimum=True, default=40.0,
          help="Step size of the feature step."),
    Param("iterations", "int", minimum=1, maximum=100_000, default=150, unit="count",
          help="Solver iterations of the second layer."),
    Param("l2", "float", minimum=0, exclusive_minimum=True, default=L2, help="Ridge penalty of the second layer."),
)


@dataclass(frozen=True)
class DictionaryConfig:
    """Everything that determines a :func:`train_dictionary` run (with the seeds)."""

    D: int
    d: int
    k: int
    p0: float
    width: int
    n: int
    n_test: int
    structured: bool
    sigma_w: float
    sigma_b: float
    feature_lr: float
    feature_steps: int
    feature_lr_later: float
    l2: float
    solver_iterations: int
    device: str
    dtype: str


@dataclass(frozen=True, eq=False)
class DictionaryData:
    r"""Samples: ``x`` ``(seeds, n, d)``, ``phi`` ``(seeds, n, D)``, counts ``c`` and labels ``y`` ``(seeds, n)``."""

    x: torch.Tensor
    phi: torch.Tensor
    count: torch.Tensor
    y: torch.Tensor


@dataclass(frozen=True, eq=False)
class DictionaryResult:
    r"""Outcome of :func:`train_dictionary` (``S`` seeds, ``T`` feature steps, width ``2m``).

    Attributes
    ----------
    config
        The resolved configuration.
    M, relevant
        Patterns (rows :math:`M_i`) ``(S, D, d)`` and the relevant set as a mask ``(S, D)``.
    weights, biases, a
        Trained :math:`W` ``(S, 2m, d)``, :math:`b` ``(S, 2m)``, second layer :math:`a` ``(S, 2m)`` (and its
        scalar bias ``a_bias`` ``(S,)``).
    cosines
        :math:`|\cos(w_i^{(t)}, v)|`, ``(T+1, S, 2m)``.
    gamma_hat
        Empirical :math:`\gamma` on the training set, averaged over :math:`i \in A`, ``(S,)``.
    test_error, train_error
        Errors of the trained network, ``(S,)``.
    fixed_test_error
        Test error of the fixed-feature model, ``(S,)``.
    a_norm, fixed_norm
        :math:`\|\theta\|` of the two second layers, ``(S,)``.
    """

    config: DictionaryConfig
    M: torch.Tensor
    relevant: torch.Tensor
    weights: torch.Tensor
    biases: torch.Tensor
    a: torch.Tensor
    a_bias: torch.Tensor
    cosines: torch.Tensor
    gamma_hat: torch.Tensor
    test_error: torch.Tensor
    train_error: torch.Tensor
    fixed_test_error: torch.Tensor
    a_norm: torch.Tensor
    fixed_norm: torch.Tensor

    def cluster_fraction(self, threshold: float = 0.9) -> torch.Tensor:
        r"""Fraction of neurons with :math:`\cos_i >` ``threshold`` at every feature step, ``(T+1, S)``."""
        return (self.cosines > threshold).to(self.cosines.dtype).mean(-1)


def relevant_sets(seeds: int | Sequence[int], D: int, k: int, *, device: str | torch.device = "auto") -> torch.Tensor:
    r"""Mask of the relevant set :math:`A` ``(seeds, D)``: the :math:`k` largest of :math:`D` iid normals (stream
    ``"relevant"``).

    >>> relevant_sets(2, 10, 4, device="cpu").sum(-1).tolist()
    [4, 4]
    """
    idx = seeded_normal(seeds, (D,), "relevant", device=device, dtype="float64").topk(k, dim=-1).indices
    return torch.zeros(len(as_seeds(seeds)), D, dtype=torch.bool, device=idx.device).scatter_(-1, idx, True)


def dictionary_data(
    seeds: int | Sequence[int], n: int, M: torch.Tensor, relevant: torch.Tensor, *, p0: float, structured: bool = True,
    stream: str,
) -> DictionaryData:
    r"""``n`` samples of the module's data model (with or without input structure).

    >>> M = teacher_directions(1, 8, 8, device="cpu")
    >>> A = relevant_sets(1, 8, 2, device="cpu")
    >>> data = dictionary_data(1, 6, M, A, p0=0.25, stream="demo")
    >>> data.x.shape, bool(((data.count >= 1) & (data.count <= 2)).all())
    (torch.Size([1, 6, 8]), True)
    """
    seeds = as_seeds(seeds)
    n = check_int(n, "n", minimum=1, caller="dictionary_data")
    p0 = check_real(p0, "p0", minimum=0.0, maximum=1.0, caller="dictionary_data")
    S, D = relevant.shape
    k = int(relevant[0].sum())
    kw = TensorOptions(device=M.device, dtype=M.dtype)
    if structured:
        phi = (torch.special.ndtr(seeded_normal(seeds, (n, D), stream + "/irrelevant", **kw)) < p0).to(M.dtype)
        count = (torch.special.ndtr(seeded_normal(seeds, (n,), stream + "/count",
                                                  **kw)) * k).floor().clamp(max=k - 1) + 1
        order = seeded_normal(seeds, (n, k), stream + "/which", **kw).argsort(-1).argsort(-1)  # a random rank per slot
        active = (order < count[..., None]).to(M.dtype)
        positions = relevant.nonzero()[:, 1].reshape(S, k)  # the k relevant indices, per seed
        phi = phi.scatter(-1, positions[:, None, :].expand(-1, n, -1), active)
    else:
        phi = (torch.special.ndtr(seeded_normal(seeds, (n, D), stream + "/uniform", **kw)) < 0.5).to(M.dtype)
    count = (phi * relevant[:, None, :].to(M.dtype)).sum(-1)
    y = torch.where(torch.remainder(count, 2) == 0, 1.0, -1.0).to(M.dtype)
    return DictionaryData(phi @ M, phi, count, y)


def _smooth_hinge(margin: torch.Tensor, delta: float = 0.1) -> torch.Tensor:
    z = 1.0 - margin
    return torch.where(z >= delta, z - delta / 2, torch.where(z > 0, z * z / (2 * delta), torch.zeros_like(z)))


def second_layer_optimum(features: torch.Tensor, y: torch.Tensor, l2: float, iterations: int = 200) -> torch.Tensor:
    r""":math:`\arg\min_{\theta, c} \frac1n\sum_\mu \ell(y_\mu(\langle\theta, h_\mu\rangle + c)) +
    \frac{\lambda}{2}\|\theta\|^2` (Huberised hinge, module docstring) by L-BFGS, one seed at a time: ``features`` ``(S,
    n, N)``, ``y`` ``(S, n)`` → ``(S, N + 1)`` (last entry: the bias :math:`c`).

    Each seed gets its own solver run. One L-BFGS run on the sum of the seeds' losses would share one line
    search and one curvature history between them, so a seed's solution would depend on which seeds share its
    batch (measured: seed 128 reached test error 0.036 alone and 0.37 in a batch of 16 at 150 iterations).

    >>> h = torch.tensor([[[1.0], [0.0], [1.0], [0.0]]]); y = torch.tensor([[1.0, -1.0, 1.0, -1.0]])
    >>> theta = second_layer_optimum(h, y, 1e-3)
    >>> torch.sign(h[0] @ theta[0, :1] + theta[0, 1]).tolist() == y[0].tolist()
    True
    """
    ones = torch.ones(*features.shape[:2], 1, device=features.device, dtype=features.dtype)
    design = torch.cat([features, ones], -1)
    return torch.stack([_hinge_optimum(design[s], y[s], l2, iterations) for s in range(design.shape[0])])


def _hinge_optimum(design: torch.Tensor, y: torch.Tensor, l2: float, iterations: int) -> torch.Tensor:
    """One seed of :func:`second_layer_optimum`: ``design`` ``(n, N + 1)`` (last column ones), ``y`` ``(n,)``."""
    theta = torch.zeros(design.shape[-1], device=design.device, dtype=design.dtype, requires_grad=True)
    opt = torch.optim.LBFGS([theta], max_iter=iterations, history_size=20, line_search_fn="strong_wolfe",
                            tolerance_grad=1e-10, tolerance_change=1e-14)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = _smooth_hinge(y * (design @ theta)).mean() + 0.5 * l2 * theta[:-1].square().sum()
        loss.backward()
        return loss

    with torch.enable_grad():
        opt.step(closure)
    return theta.detach()


def _hinge_grad_w(x, y, weights, biases, a, n):
    """Gradient of the mean hinge loss in :math:`W` (closed form), ``(S, 2m, d)``."""
    pre = x @ weights.transpose(-1, -2) + biases[:, None, :]
    out = (pre.clamp(0.0, 1.0) @ a[..., None]).squeeze(-1)
    dout = torch.where(y * out < 1, -y, torch.zeros_like(y)) / n  # d loss / d g
    inside = (pre > 0) & (pre < 1)
    dpre = torch.where(inside, dout[..., None] * a[:, None, :], torch.zeros((), dtype=x.dtype, device=x.device))
    return dpre.transpose(-1, -2) @ x


def train_dictionary(
    seeds: int | Sequence[int], *, D: int = 64, d: int | None = None, k: int = 4, p0: float = 0.25, width: int = 128,
    n: int = 4096, n_test: int = 4096, structured: bool = True, sigma_w: float = 1e-3, sigma_b: float = 0.25,
    feature_lr: float = 40.0, feature_steps: int = 1, feature_lr_later: float = 0.0, l2: float = 1e-4,
    solver_iterations: int = 200, device: str | torch.device = "auto", dtype: str | torch.dtype = "float32",
) -> DictionaryResult:
    r"""Train the truncated-ReLU network on dictionary data (module docstring) and the fixed-feature model.

    Parameters
    ----------
    seeds
        Number of seeds or seed values.
    D, d, k, p0
        Number of patterns (≥ 2), input dimension (≥ D, default D), relevant patterns (even, 2 ≤ k ≤ D),
        probability of an irrelevant pattern (in [0, 1]).
    width
        Number of neurons :math:`2m` (even, ≥ 2: neurons come in symmetric pairs).
    n, n_test
        Training and test samples.
    structured
        ``False``: :math:`\phi` uniform on :math:`\{0,1\}^D` (no input structure).
    sigma_w, sigma_b
        Initialisation scales of :math:`w_i` and of :math:`b_i - \tfrac12` (≥ 0).
    feature_lr, feature_steps, feature_lr_later
        :math:`\eta_1` (> 0) of the first step (weight decay :math:`1/\eta_1`), number of feature steps (≥ 1),
        step size of the later ones (≥ 0).
    l2, solver_iterations
        :math:`\lambda` (> 0) of the second-layer problems and L-BFGS iterations.
    device, dtype
        Torch device and dtype.

    Returns
    -------
    DictionaryResult

    Examples
    --------
    >>> res = train_dictionary(2, D=16, k=2, width=8, n=64, n_test=64, solver_iterations=5, device="cpu")
    >>> res.cosines.shape, res.test_error.shape
    (torch.Size([2, 2, 8]), torch.Size([2]))
    """
    caller = "train_dictionary"
    seeds = as_seeds(seeds)
    checked = PARAMS.check(dict(D=D, k=k, p0=p0, width=width, n=n, n_test=n_test, feature_lr=feature_lr, l2=l2),
                           caller=caller)
    D, k, p0, width, n, n_test, feature_lr, l2 = (checked[name] for name in
                                                  ("D", "k", "p0", "width", "n", "n_test", "feature_lr", "l2"))
    d = D if d is None else check_int(d, "d", minimum=D, caller=caller)
    k = check_int(k, "k", minimum=2, maximum=D, caller=caller)
    if k % 2:
        raise InvalidParameterError(f"The 'k' parameter of {caller} must be even (balanced parity labels). Got {k} "
                                    "instead.")
    if width % 2:
        raise InvalidParameterError(
            f"The 'width' parameter of {caller} must be even (neurons come in symmetric pairs). Got {width} instead."
        )
    sigma_w = check_real(sigma_w, "sigma_w", minimum=0.0, caller=caller)
    sigma_b = check_real(sigma_b, "sigma_b", minimum=0.0, caller=caller)
    feature_steps = check_int(feature_steps, "feature_steps", minimum=1, caller=caller)
    feature_lr_later = check_real(feature_lr_later, "feature_lr_later", minimum=0.0, caller=caller)
    solver_iterations = check_int(solver_iterations, "solver_iterations", minimum=1, caller=caller)
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    config = DictionaryConfig(D, d, k, p0, width, n, n_test, bool(structured), sigma_w, sigma_b, feature_lr,
                              feature_steps,
                              feature_lr_later, l2, solver_iterations, str(dev), str(dt).removeprefix("torch."))

    M = teacher_directions(seeds, d, D, device=dev, dtype=dt)  # (S, D, d): rows are the patterns M_i
    relevant = relevant_sets(seeds, D, k, device=dev)
    train = dictionary_data(seeds, n, M, relevant, p0=p0, structured=structured, stream="train")
    test = dictionary_data(seeds, n_test, M, relevant, p0=p0, structured=structured, stream="test")
    m = width // 2
    kw = TensorOptions(device=dev, dtype=dt)
    w_half = sigma_w * seeded_normal(seeds, (m, d), "init/w", **kw)
    b_half = 0.5 + sigma_b * seeded_normal(seeds, (m,), "init/b", **kw)
    a_half = seeded_normal(seeds, (m,), "init/a", **kw) / math.sqrt(width)
    weights, biases, a = torch.cat([w_half, w_half], 1), torch.cat([b_half, b_half], 1), torch.cat([a_half, -a_half], 1)

    v = (M * relevant[..., None].to(dt)).sum(-2) / math.sqrt(k)  # (S, d)

    def cosines(w: torch.Tensor) -> torch.Tensor:
        return (w @ v[..., None]).squeeze(-1).abs() / w.norm(dim=-1).clamp(min=torch.finfo(dt).tiny)

    trace = [cosines(weights)]
    for step in range(feature_steps):
        grad = _hinge_grad_w(train.x, train.y, weights, biases, a, n)
        if step == 0:
            weights = -feature_lr * grad  # weight decay 1/eta_1 cancels W^(0)
        else:
            weights = weights - feature_lr_later * grad
        trace.append(cosines(weights))
    check_finite(weights, "the first-layer weights", "lower 'feature_lr'")

    def features(w, b, x):
        return truncated_relu(x @ w.transpose(-1, -2) + b[:, None, :])

    theta = second_layer_optimum(features(weights, biases, train.x), train.y, l2, solver_iterations)
    out_train = features(weights, biases, train.x) @ theta[:, :-1, None]
    out_test = features(weights, biases, test.x) @ theta[:, :-1, None]
    train_error = (torch.sign(out_train.squeeze(-1) + theta[:, -1:]) != train.y).to(dt).mean(-1)
    test_error = (torch.sign(out_test.squeeze(-1) + theta[:, -1:]) != test.y).to(dt).mean(-1)

    directions = seeded_normal(seeds, (width, d), "fixed", **kw)
    fixed_w = directions / directions.norm(dim=-1, keepdim=True) * weights.norm(dim=-1, keepdim=True)
    fixed_b = 0.5 + sigma_b * seeded_normal(seeds, (width,), "fixed/bias", **kw)
    fixed_theta = second_layer_optimum(features(fixed_w, fixed_b, train.x), train.y, l2, solver_iterations)
    fixed_out = (features(fixed_w, fixed_b, test.x) @ fixed_theta[:, :-1, None]).squeeze(-1) + fixed_theta[:, -1:]
    fixed_error = (torch.sign(fixed_out) != test.y).to(dt).mean(-1)

    phi, y = train.phi, train.y
    cov = (y[..., None] * phi).mean(1) - y.mean(1, keepdim=True) * phi.mean(1)  # (S, D)
    gamma_hat = (cov * relevant.to(dt)).sum(-1) / k
    return DictionaryResult(
        config=config, M=M, relevant=relevant, weights=weights, biases=biases, a=theta[:, :-1], a_bias=theta[:, -1],
        cosines=torch.stack(trace), gamma_hat=gamma_hat, test_error=test_error, train_error=train_error,
        fixed_test_error=fixed_error, a_norm=theta[:, :-1].norm(dim=-1), fixed_norm=fixed_theta[:, :-1].norm(dim=-1),
    )
