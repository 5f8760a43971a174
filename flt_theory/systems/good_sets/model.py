r"""Sparse coding data, the symmetric-ReLU network and its good property sets (Allen-Zhu & Li).

Source: the good-property-set argument of Allen-Zhu & Li 2020 (arXiv 2005.10190), as presented in an FLT seminar.

Data. :math:`x = Mz + \xi` with :math:`M` orthonormal :math:`d\times d` (rows ``M[j]`` :math:`= M_j`; a Haar
rotation, stream ``"teacher"`` of :func:`~.data.teacher_directions`, or the identity),
:math:`\xi \sim \mathcal N(0, \sigma_0^2 I_d)` and :math:`z \in \{-1, 0, 1\}^d` with **exactly** :math:`s`
non-zeros: the support is a uniformly random :math:`s`-subset of :math:`[d]` (the indices of the :math:`s`
largest of :math:`d` iid normals) and the non-zero values are independent Rademacher signs. The default
:math:`s = 2\lfloor\sqrt d/4\rfloor + 1` is :math:`\Theta(\sqrt d)` and odd (see below).
Labels :math:`y = \operatorname{sign}\langle w^*, z\rangle` with balanced :math:`|w^*_j| = 1` and random signs
(``spread`` > 0 draws :math:`|w^*_j|` uniformly in :math:`[1-\text{spread}, 1+\text{spread}]` instead). With
:math:`|w^*_j| = 1` and :math:`s` odd, :math:`\langle w^*, z\rangle` is an odd integer, never 0, so :math:`y` is
always defined and :math:`y = ` the majority vote of the :math:`s` active signed features.

Network. :math:`f(x) = \sum_{i\le m} \big[\mathrm{ReLU}(\langle w_i,x\rangle - b_i) -
\mathrm{ReLU}(-\langle w_i,x\rangle - b_i)\big] = \sum_i \operatorname{sign}(u_i)\,\psi(|u_i| - b_i)`,
:math:`u_i = \langle w_i, x\rangle`, with :math:`\psi = \mathrm{ReLU}` or, for ``smoothing`` :math:`\varrho > 0`,
the smoothed ReLU :math:`\psi(v) = v^2/(2\varrho)` on :math:`[0, \varrho]`, :math:`v - \varrho/2` above
(:math:`C^1`, slope :math:`\min(1, v_+/\varrho)`). No second layer, as in the seed.

Thresholds (scheduled, not trained). At every step, :math:`b_i^{(t)}` is recomputed from the current
weights and held fixed in the gradient:

* ``"mean-abs"`` (default): :math:`b_i = \beta\cdot\frac1n\sum_\mu |\langle w_i^{(t)}, x_\mu\rangle|` on the
  training set. For a random neuron this is :math:`\beta\sqrt{2/\pi}` standard deviations of its
  pre-activation (selective: it fires on the rare samples where its largest coordinates line up); for a
  neuron that has learned one feature :math:`M_j` the mean is dominated by the samples with
  :math:`z_j = 0`, so :math:`b_i` falls to a fraction of :math:`|\langle w_i, M_j\rangle|` and the neuron fires
  exactly when :math:`z_j \ne 0` while the noise is cut (the denoising the linear model lacks).
* ``"norm"``: :math:`b_i = \beta\,\|w_i\|\sqrt{s/d + \sigma_0^2}` (:math:`\beta` times the RMS of
  :math:`\langle w_i, x\rangle` under the data law).

The thresholds of the last step are kept for the test set.

Training. Logistic loss :math:`\log(1 + e^{-yf})` averaged over a fixed training set of :math:`n` samples
(stream ``"train"``), full-batch GD :math:`w_i \leftarrow w_i - \eta \nabla_{w_i}` in closed form
(two batched matmuls per step), from :math:`w_i^{(0)} \sim \mathcal N(0, \sigma_1^2 I_d)` (stream ``"init"``).
The default :math:`\sigma_1 = 1/(m\sqrt d)` makes :math:`f \approx 0` at initialisation.

Good property sets. With :math:`C_{ij}^{(t)} = \langle w_i^{(t)}, M_j\rangle` and
:math:`L = \log d`:

* :math:`i \in S_{j,\text{sure}}^t` iff :math:`C_{ij}^2 \ge (c_1+c_2)\sigma_3^2 L`,
  :math:`C_{ij'}^2 < (c_1-c_2)\sigma_3^2 L` for every :math:`j' \ne j`, and :math:`C_{ij} w^*_j > 0`;
* :math:`i \in S_{j,\text{pot}}^t` iff :math:`C_{ij}^2 \ge (c_1-c_2)\sigma_3^2 L`.

The scale :math:`\sigma_3^{(t)}` ("the current scale of the coordinates") is

* ``"neuron"`` (default): :math:`\sigma_{3,i}^{(t)} = \sigma_1\,\|w_i^{(t)}\| / \|w_i^{(0)}\|` (the RMS over :math:`j`
  of neuron :math:`i`'s coordinates, normalised), so membership is a property of the neuron's direction;
* ``"global"``: :math:`\sigma_3^{(t)} = \sigma_1\,\mathrm{RMS}_{i,j}(C^{(t)}) / \mathrm{RMS}_{i,j}(C^{(0)})`, per seed
  (then a neuron can also leave :math:`S_\text{sure}` because the other neurons grew).

Why this form: at :math:`t = 0` both equal :math:`\sigma_1` **exactly**, the scale the initial law is
stated in (the :math:`C_{ij}^{(0)}` are iid :math:`\mathcal N(0, \sigma_1^2)` because :math:`M` is orthonormal),
so the measured initial sets are exact draws from the law of :mod:`flt_theory.symbolic.good_sets`;
for :math:`t > 0` it follows the growth of the coordinates continuously (an estimator recomputed at
every step, e.g. the plain RMS, would jump between :math:`t = 0` and :math:`t = 1` and move neurons
across the boundaries for no dynamical reason), and it makes the sets invariant under a global
rescaling of :math:`W` (the network is positively homogeneous).

Transition record. Every change of membership between consecutive steps is recorded as a row
``(t, seed, i, j, kind)`` of :attr:`SparseCodingResult.transitions` (``t`` the step after which the
change is seen, :math:`t \ge 1`), ``kind`` one of :data:`TRANSITION_KINDS`:

``enter-sure``; three ways of leaving :math:`S_{j,\text{sure}}`: ``exit-sure-second`` (only because another
coordinate reaches the pot level: the neuron picks up a second feature), ``exit-sure-demoted`` (its own
coordinate falls below the sure level but stays at the pot level with the sign of :math:`w^*_j`: it moves
down to :math:`S_{j,\text{pot}}`), ``exit-sure-lost`` (its coordinate falls below the pot level or changes
sign: it loses feature :math:`j`);
``enter-pot``, ``exit-pot``, ``pot-to-sure`` (in :math:`S_{j,\text{pot}}^{t-1}\setminus S_{j,\text{sure}}^{t-1}` and in
:math:`S_{j,\text{sure}}^{t}`), ``enter-sure-from-outside`` (in :math:`S_{j,\text{sure}}^{t}` without having been in
:math:`S_{j,\text{pot}}^{t-1}`: a jump over the lower set).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..._validation import check_int
from ...errors import InvalidParameterError
from ...numeric.backend import TensorOptions, check_finite, resolve_device, resolve_dtype
from ...numeric.data import as_seeds, seeded_normal, teacher_directions
from ...runner.params import Param, Params

__all__ = [
    "BASES",
    "PARAMS",
    "SCALES",
    "THRESHOLD_RULES",
    "TRANSITION_KINDS",
    "SparseCodingConfig",
    "SparseCodingData",
    "SparseCodingResult",
    "coding_matrix",
    "coordinate_scale",
    "default_sparsity",
    "good_sets",
    "label_weights",
    "sparse_coding_data",
    "symmetric_relu",
    "train_sparse_coding",
]

#: Choices of :math:`\sigma_3^{(t)}` (module docstring).
SCALES = ("global", "neuron")
#: Threshold schedules (module docstring).
THRESHOLD_RULES = ("mean-abs", "norm")
#: Coding matrices :math:`M`: a Haar rotation or the identity.
BASES = ("random", "identity")

#: The parameters of a run, declared once: :class:`SparseCodingConfig` (validation, in :func:`train_sparse_coding`),
#: the runner's ``good-sets/initial-counts``, ``early-phase`` and ``trained`` (converters; each takes its subset)
#: and ``flt simulate good-sets`` (options and bounds) read them. Ranges a value must lie in whatever the others are;
#: the joint conditions (``sparsity <= d``, ``c1 > c2``) stay with the config.
PARAMS = Params(
    Param("d", "int", minimum=2, unit="count", help="Input dimension d."),
    Param("m", "int", minimum=1, unit="count", help="Number of neurons m."),
    Param("sparsity", "int", minimum=1, default=None, nullable=True, unit="count",
          help="Nonzeros s of z (odd: no ties in y; default 2 floor(sqrt(d)/4) + 1)."),
    Param("sigma0", "float", minimum=0, default=0.1, unit="units of x", help="Input noise level sigma_0."),
    Param("sigma1", "float", minimum=0, exclusive_minimum=True, default=None, nullable=True,
          help="Initialisation scale sigma_1 (default 1/(m sqrt(d)))."),
    Param("lr", "float", minimum=0, exclusive_minimum=True, default=0.02, help="GD step size."),
    Param("steps", "int", minimum=0, default=100, unit="steps", help="GD steps."),
    Param("n", "int", minimum=1, default=2048, unit="count", help="Training samples."),
    Param("n_test", "int", minimum=1, default=4096, unit="count", help="Test samples."),
    Param("threshold", "float", minimum=0, default=2.5, help="Threshold factor beta of the schedule."),
    Param("threshold_rule", "choice", choices=THRESHOLD_RULES, default="mean-abs", help="Threshold schedule."),
    Param("smoothing", "float", minimum=0, default=0.0, help="Smoothing rho of the ReLU (0: plain ReLU)."),
    Param("c1", "float", minimum=0, exclusive_minimum=True, default=2.5, help="Set constant c_1 (> c_2)."),
    Param("c2", "float", minimum=0, default=0.5, help="Set constant c_2."),
    Param("scale", "choice", choices=SCALES, default="neuron", help="The scale sigma_3 of the sets."),
    Param("basis", "choice", choices=BASES, default="random", help="Coding matrix M: a Haar rotation or the identity."),
    Param("spread", "float", minimum=0, maximum=0.99, default=0.0, help="Spread of |w*_j| around 1."),
    Param("lr_ratio", "float", minimum=0, exclusive_minimum=True, unit="units of sigma_1",
          help="Step size in units of sigma_1."),
)
#: Kinds of rows of the transition record, in the order of their codes 0, 1, ...
TRANSITION_KINDS = (
    "enter-sure",
    "exit-sure-lost",
    "exit-sure-second",
    "exit-sure-demoted",
    "enter-pot",
    "exit-pot",
    "pot-to-sure",
    "enter-sure-from-outside",
)


def default_sparsity(d: int) -> int:
    r""":math:`s = 2\lfloor \sqrt d / 4\rfloor + 1`: odd and :math:`\Theta(\sqrt d)`.

    >>> [default_sparsity(d) for d in (16, 32, 64, 256)]
    [3, 3, 5, 9]
    """
    d = check_int(d, "d", minimum=1, caller="default_sparsity")
    return min(d, 2 * int(math.isqrt(d) // 4) + 1)


@dataclass(frozen=True, kw_only=True)
class SparseCodingConfig:
    r"""Everything that determines a :func:`train_sparse_coding` run (with the seeds), validated through
    :data:`PARAMS`, whose defaults it takes (keyword-only); ``sparsity`` defaults to :func:`default_sparsity` and
    ``sigma1`` to :math:`1/(m\sqrt d)`. Joint conditions: ``sparsity <= d``, ``c1 > c2``.

    >>> SparseCodingConfig(d=16, m=4).sparsity, SparseCodingConfig(d=16, m=4).sigma1
    (3, 0.0625)
    >>> SparseCodingConfig(d=16, m=4, c1=0.5, c2=0.5)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: The 'c1' parameter of SparseCodingConfig must be > c2 = 0.5. Got 0.5
    instead.
    """

    # the data: x = Mz + xi, y = sign<w*, z>
    d: int
    sparsity: int | None = PARAMS["sparsity"].default
    sigma0: float = PARAMS["sigma0"].default
    basis: str = PARAMS["basis"].default
    spread: float = PARAMS["spread"].default
    n: int = PARAMS["n"].default
    n_test: int = PARAMS["n_test"].default
    # the network, its thresholds and GD
    sigma1: float | None = PARAMS["sigma1"].default
    m: int
    threshold: float = PARAMS["threshold"].default
    threshold_rule: str = PARAMS["threshold_rule"].default
    smoothing: float = PARAMS["smoothing"].default
    lr: float = PARAMS["lr"].default
    steps: int = PARAMS["steps"].default
    # the good sets
    c1: float = PARAMS["c1"].default
    c2: float = PARAMS["c2"].default
    scale: str = PARAMS["scale"].default
    device: str = "cpu"
    dtype: str = "float32"

    def __post_init__(self) -> None:
        PARAMS.validate(self)
        where = type(self).__name__
        if self.sparsity is None:
            object.__setattr__(self, "sparsity", default_sparsity(self.d))
        elif self.sparsity > self.d:
            raise InvalidParameterError(f"The 'sparsity' parameter of {where} must be <= d = {self.d}. "
                                        f"Got {self.sparsity} instead.")
        if self.sigma1 is None:
            object.__setattr__(self, "sigma1", 1.0 / (self.m * math.sqrt(self.d)))
        if not self.c1 > self.c2:
            raise InvalidParameterError(f"The 'c1' parameter of {where} must be > c2 = {self.c2:g}. Got {self.c1:g} "
                                        "instead.")


@dataclass(frozen=True, eq=False)
class SparseCodingData:
    r"""One sample set: ``x`` ``(seeds, n, d)``, codes ``z`` ``(seeds, n, d)``, labels ``y`` ``(seeds, n)``."""

    x: torch.Tensor
    z: torch.Tensor
    y: torch.Tensor


@dataclass(frozen=True, eq=False)
class SparseCodingResult:
    r"""Outcome of :func:`train_sparse_coding` (shapes with ``S`` seeds, ``T`` steps).

    Attributes
    ----------
    config
        The resolved configuration.
    M, w_star
        Coding matrix (rows :math:`M_j`) ``(S, d, d)`` and label weights ``(S, d)``.
    weights0, weights
        :math:`W^{(0)}` and :math:`W^{(T)}`, ``(S, m, d)``.
    thresholds
        :math:`b_i^{(T)}` used on the test set, ``(S, m)``.
    sure_sizes, pot_sizes
        :math:`|S_{j,\text{sure}}^t|`, :math:`|S_{j,\text{pot}}^t|` for :math:`t = 0..T`, ``(T+1, S, d)``.
    sure0
        Membership :math:`i \in S_{j,\text{sure}}^0`, ``(S, m, d)`` bool; ``sure``, ``pot`` the same at :math:`T`.
    sigma3
        :math:`\sigma_3^{(t)}`, ``(T+1, S)`` (``"global"``) or ``(T+1, S, m)`` (``"neuron"``).
    lucky_trace
        :math:`\langle w_i^{(t)}, M_{j_i}\rangle\,\operatorname{sign} w^*_{j_i}` with :math:`j_i` the largest
        coordinate of :math:`w_i^{(0)}`, ``(T+1, S, m)``.
    output_scale
        Mean :math:`|f(x)|` on the training set before each step, ``(T, S)``.
    train_loss
        Logistic loss before each step, ``(T, S)``.
    transitions
        ``(K, 5)`` int64 rows ``(t, seed index, i, j, kind code)`` (module docstring).
    outside_pot, outside_sure
        :math:`\sum_t |S_{\cdot,\text{sure}}^t \setminus S_{\cdot,\text{pot}}^t|` and
        :math:`\sum_t |S_{\cdot,\text{pot}}^t \setminus S_{\cdot,\text{sure}}^t|` (pairs :math:`(i, j)`, all
        :math:`t = 0..T`), ``(S,)`` int64: violations of :math:`S_\text{sure} \subseteq S_\text{pot}` and of the
        reverse inclusion.
    fallen
        Number of pairs :math:`(i, j)` that were in :math:`S_{j,\text{sure}}` at some step and later were not in
        :math:`S_{j,\text{pot}}` or had :math:`C_{ij}w^*_j \le 0` (the neuron fell out of its feature's sets), ``(S,)``.
    label_correlation
        :math:`\frac1n\sum_\mu y_\mu z_{\mu j}\operatorname{sign} w^*_j` on the training set, ``(S, d)`` (its
        expectation is :math:`\tfrac sd\rho_s`; it sets the growth rate of good neurons).
    test_accuracy, linear_accuracy
        Test accuracy of the net and of the linear model :math:`\operatorname{sign}\langle M w^*, x\rangle`,
        ``(S,)``.
    """

    config: SparseCodingConfig
    M: torch.Tensor
    w_star: torch.Tensor
    weights0: torch.Tensor
    weights: torch.Tensor
    thresholds: torch.Tensor
    sure_sizes: torch.Tensor
    pot_sizes: torch.Tensor
    sure0: torch.Tensor
    sure: torch.Tensor
    pot: torch.Tensor
    sigma3: torch.Tensor
    lucky_trace: torch.Tensor
    output_scale: torch.Tensor
    train_loss: torch.Tensor
    transitions: torch.Tensor
    outside_pot: torch.Tensor
    outside_sure: torch.Tensor
    fallen: torch.Tensor
    label_correlation: torch.Tensor
    test_accuracy: torch.Tensor
    linear_accuracy: torch.Tensor

    def transition_counts(self) -> dict[str, torch.Tensor]:
        """Number of transitions of each kind, per seed: ``{kind: (S,) int64}``."""
        seeds = self.w_star.shape[0]
        out = {}
        for code, kind in enumerate(TRANSITION_KINDS):
            rows = self.transitions[self.transitions[:, 4] == code]
            out[kind] = torch.bincount(rows[:, 1], minlength=seeds)
        return out

    def coordinates(self, final: bool = True) -> torch.Tensor:
        r""":math:`C_{ij} = \langle w_i, M_j\rangle` at :math:`T` (or at 0), ``(S, m, d)``."""
        return (self.weights if final else self.weights0) @ self.M.transpose(-1, -2)

    def alignment(self) -> torch.Tensor:
        r"""Mean :math:`|\cos(w_i^{(T)}, M_j)|` over the pairs :math:`i \in S_{j,\text{sure}}^T`, per seed ``(S,)``
        (NaN for a seed with an empty set)."""
        c = self.coordinates()
        cos = c.abs() / self.weights.norm(dim=-1, keepdim=True)
        mask = self.sure.to(cos.dtype)
        return (cos * mask).sum((-1, -2)) / mask.sum((-1, -2))

    def feature_weights(self) -> torch.Tensor:
        r""":math:`\sum_{i\in S_{j,\text{sure}}^T} \langle w_i^{(T)}, M_j\rangle`, ``(S, d)``: the good neurons'
        total weight on feature :math:`j`, to compare with :math:`w^*_j` (sign and relative magnitude)."""
        return (self.coordinates() * self.sure.to(self.weights.dtype)).sum(-2)


def coding_matrix(
    seeds: int | Sequence[int], d: int, *, basis: str = "random", device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float32",
) -> torch.Tensor:
    r"""Orthonormal :math:`M`, rows :math:`M_j`, ``(seeds, d, d)``: a Haar rotation (``"random"``) or the identity.

    >>> M = coding_matrix(2, 4, device="cpu", dtype="float64")
    >>> bool(torch.allclose(M @ M.transpose(-1, -2), torch.eye(4, dtype=M.dtype)))
    True
    """
    d = check_int(d, "d", minimum=1, caller="coding_matrix")
    basis = PARAMS["basis"].check(basis, "coding_matrix")
    return teacher_directions(seeds, d, d, basis="canonical" if basis == "identity" else "random", device=device,
                              dtype=dtype)


def label_weights(
    seeds: int | Sequence[int], d: int, *, spread: float = 0.0, device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float32",
) -> torch.Tensor:
    r""":math:`w^*` ``(seeds, d)``: random signs (stream ``"w_star"``), magnitudes 1 or, with ``spread`` > 0,
    uniform in :math:`[1 - \text{spread}, 1 + \text{spread}]` (stream ``"w_star/magnitude"``).

    >>> label_weights(1, 5, device="cpu").abs().tolist()
    [[1.0, 1.0, 1.0, 1.0, 1.0]]
    """
    d = check_int(d, "d", minimum=1, caller="label_weights")
    spread = PARAMS["spread"].check(spread, "label_weights")
    signs = torch.sign(seeded_normal(seeds, (d,), "w_star", device=device, dtype=dtype))
    signs = torch.where(signs == 0, torch.ones_like(signs), signs)
    if spread == 0.0:
        return signs
    uniform = torch.special.ndtr(seeded_normal(seeds, (d,), "w_star/magnitude", device=device, dtype=dtype))
    return signs * (1.0 + spread * (2.0 * uniform - 1.0))


def sparse_coding_data(
    seeds: int | Sequence[int],
    n: int,
    M: torch.Tensor,
    w_star: torch.Tensor,
    *,
    sparsity: int,
    sigma0: float,
    stream: str,
) -> SparseCodingData:
    r"""``n`` samples :math:`x = Mz + \xi`, :math:`y = \operatorname{sign}\langle w^*, z\rangle` per seed (module
    docstring), streams ``stream + "/support"``, ``"/sign"``, ``"/noise"``. Ties (possible only with
    ``spread`` > 0 on a null set, or an even ``sparsity``) get :math:`y = +1`.

    >>> M, w = coding_matrix(1, 8, device="cpu"), label_weights(1, 8, device="cpu")
    >>> data = sparse_coding_data(1, 5, M, w, sparsity=3, sigma0=0.1, stream="demo")
    >>> data.x.shape, data.z.abs().sum(-1).tolist()
    (torch.Size([1, 5, 8]), [[3.0, 3.0, 3.0, 3.0, 3.0]])
    """
    seeds = as_seeds(seeds)
    n, sigma0 = PARAMS.check(dict(n=n, sigma0=sigma0), "sparse_coding_data").values()
    d = M.shape[-1]
    sparsity = check_int(sparsity, "sparsity", minimum=1, maximum=d, caller="sparse_coding_data")
    if M.shape != (len(seeds), d, d) or w_star.shape != (len(seeds), d):
        raise InvalidParameterError(
            f"M must have shape (seeds, d, d) and w_star (seeds, d) for {len(seeds)} seeds. "
            f"Got {tuple(M.shape)=} and {tuple(w_star.shape)=} instead."
        )
    kw = TensorOptions(device=M.device, dtype=M.dtype)
    support = seeded_normal(seeds, (n, d), stream + "/support", **kw).topk(sparsity, dim=-1).indices
    signs = torch.sign(seeded_normal(seeds, (n, sparsity), stream + "/sign", **kw))
    signs = torch.where(signs == 0, torch.ones_like(signs), signs)
    z = torch.zeros(len(seeds), n, d, **kw).scatter_(-1, support, signs)
    x = z @ M
    if sigma0 > 0:
        x = x + sigma0 * seeded_normal(seeds, (n, d), stream + "/noise", **kw)
    score = (z * w_star[:, None, :]).sum(-1)
    y = torch.where(score >= 0, torch.ones_like(score), -torch.ones_like(score))
    return SparseCodingData(x, z, y)


def symmetric_relu(u: torch.Tensor, b: torch.Tensor, smoothing: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    r""":math:`\operatorname{sign}(u)\,\psi(|u| - b)` and its derivative in :math:`u` (module docstring).

    >>> out, slope = symmetric_relu(torch.tensor([-2.0, 0.5, 3.0]), torch.tensor(1.0))
    >>> out.tolist(), slope.tolist()
    ([-1.0, 0.0, 2.0], [1.0, 0.0, 1.0])
    """
    excess = u.abs() - b
    if smoothing > 0:
        slope = (excess / smoothing).clamp(0.0, 1.0)
        value = torch.where(excess > smoothing, excess - smoothing / 2,
                            excess.clamp(min=0.0).square() / (2 * smoothing))
        return torch.sign(u) * value, slope
    return u - torch.clamp(u, -b, b), (excess > 0).to(u.dtype)


def coordinate_scale(coords: torch.Tensor, coords0: torch.Tensor, sigma1: float, scale: str = "neuron") -> torch.Tensor:
    r""":math:`\sigma_3^{(t)}` from :math:`C^{(t)}`, :math:`C^{(0)}` ``(seeds, m, d)``, broadcastable to
    ``(seeds, m, d)``.

    >>> c0 = torch.arange(1.0, 41.0, dtype=torch.float64).reshape(2, 5, 4)
    >>> [round(v, 12) for v in coordinate_scale(3 * c0, c0, 0.5, "global").flatten().tolist()]
    [1.5, 1.5]
    >>> coordinate_scale(3 * c0, c0, 0.5).shape
    torch.Size([2, 5, 1])
    """
    if scale == "global":
        rms = coords.square().mean((-1, -2)).sqrt()
        return (sigma1 * rms / coords0.square().mean((-1, -2)).sqrt())[:, None, None]
    if scale == "neuron":
        return (sigma1 * coords.norm(dim=-1) / coords0.norm(dim=-1))[..., None]
    raise InvalidParameterError(f"The 'scale' parameter must be one of {SCALES}. Got {scale!r} instead.")


def good_sets(
    coords: torch.Tensor, w_star: torch.Tensor, sigma3: torch.Tensor | float, c1: float, c2: float
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Memberships :math:`i \in S_{j,\text{sure}}`, :math:`i \in S_{j,\text{pot}}`, both ``(seeds, m, d)`` bool.

    ``coords`` :math:`C_{ij}` ``(seeds, m, d)``, ``w_star`` ``(seeds, d)``, ``sigma3`` broadcastable.

    >>> c = torch.tensor([[[3.0, 0.1, 0.2], [2.0, 2.0, 0.0]]])          # d = 3, log 3 = 1.0986
    >>> sure, pot = good_sets(c, torch.ones(1, 3), 1.0, c1=2.0, c2=1.0)
    >>> sure.int().tolist(), pot.int().tolist()
    ([[[1, 0, 0], [0, 0, 0]]], [[[1, 0, 0], [1, 1, 0]]])
    """
    d = coords.shape[-1]
    log_d = math.log(d) if d > 1 else 0.0
    sq = coords.square()
    unit = torch.as_tensor(sigma3, dtype=coords.dtype, device=coords.device).square() * log_d
    pot = sq >= (c1 - c2) * unit
    high = sq >= (c1 + c2) * unit
    alone = pot.sum(-1, keepdim=True) == 1
    signed = coords * w_star[:, None, :] > 0
    return high & alone & signed, pot


def train_sparse_coding(
    seeds: int | Sequence[int], *, d: int, m: int, sparsity: int | None = None, sigma0: float = 0.1,
    sigma1: float | None = None, lr: float = 0.02, steps: int = 100, n: int = 2048, n_test: int = 4096,
    threshold: float = 2.5, threshold_rule: str = "mean-abs", smoothing: float = 0.0, c1: float = 2.5, c2: float = 0.5,
    scale: str = "neuron", basis: str = "random", spread: float = 0.0, device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float32",
) -> SparseCodingResult:
    r"""Train the symmetric-ReLU network on sparse coding data by GD and record the good sets at every step.

    Parameters
    ----------
    seeds
        Number of seeds or seed values (leading batch dimension).
    d, m
        Input dimension (≥ 2) and number of neurons (≥ 1).
    sparsity
        :math:`s = \|z\|_0`, default :func:`default_sparsity`.
    sigma0, sigma1
        Noise level of :math:`\xi` (≥ 0) and initialisation scale (> 0, default :math:`1/(m\sqrt d)`).
    lr, steps, n, n_test
        Step size (> 0), number of GD steps (≥ 0), training and test set sizes.
    threshold, threshold_rule, smoothing
        :math:`\beta` (≥ 0), the schedule (:data:`THRESHOLD_RULES`) and :math:`\varrho` (≥ 0, 0 = plain ReLU).
    c1, c2, scale
        Set constants (:math:`c_1 > c_2 \ge 0`) and the choice of :math:`\sigma_3` (:data:`SCALES`).
    basis, spread
        :math:`M` (``"random"`` or ``"identity"``) and the spread of :math:`|w^*_j|` around 1 (in [0, 0.99]).
    device, dtype
        Torch device (``"auto"``: CUDA when available) and dtype.

    Returns
    -------
    SparseCodingResult

    Examples
    --------
    >>> res = train_sparse_coding(2, d=16, m=32, steps=3, n=64, n_test=64, device="cpu")
    >>> res.sure_sizes.shape, res.transitions.shape[1], res.test_accuracy.shape
    (torch.Size([4, 2, 16]), 5, torch.Size([2]))
    """
    seeds = as_seeds(seeds)
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    config = SparseCodingConfig(d=d, m=m, sparsity=sparsity, sigma0=sigma0, sigma1=sigma1, lr=lr, steps=steps, n=n,
                                n_test=n_test, threshold=threshold, threshold_rule=threshold_rule, smoothing=smoothing,
                                c1=c1, c2=c2, scale=scale, basis=basis, spread=spread, device=str(dev),
                                dtype=str(dt).removeprefix("torch."))
    d, m, sparsity, sigma0, sigma1, lr = config.d, config.m, config.sparsity, config.sigma0, config.sigma1, config.lr
    steps, n, n_test, threshold, smoothing = config.steps, config.n, config.n_test, config.threshold, config.smoothing
    c1, c2, spread = config.c1, config.c2, config.spread
    assert sparsity is not None and sigma1 is not None  # filled in by SparseCodingConfig.__post_init__

    M = coding_matrix(seeds, d, basis=basis, device=dev, dtype=dt)
    w_star = label_weights(seeds, d, spread=spread, device=dev, dtype=dt)
    train = sparse_coding_data(seeds, n, M, w_star, sparsity=sparsity, sigma0=sigma0, stream="train")
    x, y = train.x, train.y
    weights = sigma1 * seeded_normal(seeds, (m, d), "init", device=dev, dtype=dt)
    weights0 = weights.clone()
    m_t = M.transpose(-1, -2)
    coords0 = weights0 @ m_t
    lucky_j = coords0.abs().argmax(-1, keepdim=True)  # (S, m, 1)
    lucky_sign = torch.sign(torch.gather(w_star[:, None, :].expand(-1, m, -1), -1, lucky_j)).squeeze(-1)
    rms_factor = math.sqrt(sparsity / d + sigma0**2)

    def thresholds(w: torch.Tensor, pre: torch.Tensor) -> torch.Tensor:
        if threshold_rule == "mean-abs":
            return (threshold / pre.shape[-2]) * torch.linalg.vector_norm(pre, 1, dim=-2)
        return threshold * rms_factor * w.norm(dim=-1)

    def sets(coords: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        sigma3 = coordinate_scale(coords, coords0, sigma1, scale)
        sure, pot = good_sets(coords, w_star, sigma3, c1, c2)
        return sure, pot, sigma3

    sure, pot, sigma3 = sets(coords0)
    sure0 = sure
    outside_pot, outside_sure = (sure & ~pot).sum((-1, -2)), (pot & ~sure).sum((-1, -2))
    ever_sure, fell = sure.clone(), torch.zeros_like(sure)
    sure_sizes, pot_sizes = [sure.sum(-2)], [pot.sum(-2)]
    sigma3_trace = [sigma3.reshape(len(seeds), -1)[:, 0] if scale == "global" else sigma3[..., 0]]
    lucky = [torch.gather(coords0, -1, lucky_j).squeeze(-1) * lucky_sign]
    events, losses, scales = [], [], []
    b = torch.zeros(len(seeds), m, device=dev, dtype=dt)
    work = _Workspace.allocate(len(seeds), n, m, d, smoothing, device=dev, dtype=dt) if steps else None
    for t in range(1, steps + 1):
        assert work is not None  # allocated whenever steps >= 1
        f, b = work.forward(x, weights, thresholds, smoothing)
        margin = y * f
        losses.append(torch.nn.functional.softplus(-margin).mean(-1))
        scales.append(f.abs().mean(-1))
        residual = (-y * torch.sigmoid(-margin) / n)[..., None]  # d loss / d f
        weights = weights - lr * work.gradient(x, residual)
        coords = weights @ m_t
        new_sure, new_pot, sigma3 = sets(coords)
        events.append(_transitions(t, sure, pot, new_sure, new_pot, coords, w_star, sigma3, c1, c2))
        sure, pot = new_sure, new_pot
        fell |= ever_sure & ~(pot & (coords * w_star[:, None, :] > 0))
        ever_sure |= sure
        outside_pot += (sure & ~pot).sum((-1, -2))
        outside_sure += (pot & ~sure).sum((-1, -2))
        sure_sizes.append(sure.sum(-2))
        pot_sizes.append(pot.sum(-2))
        sigma3_trace.append(sigma3.reshape(len(seeds), -1)[:, 0] if scale == "global" else sigma3[..., 0])
        lucky.append(torch.gather(coords, -1, lucky_j).squeeze(-1) * lucky_sign)
    check_finite(weights, "the weights", "lower 'lr'")
    if steps == 0:
        b = thresholds(weights, x @ weights.transpose(-1, -2))

    test = sparse_coding_data(seeds, n_test, M, w_star, sparsity=sparsity, sigma0=sigma0, stream="test")
    f_test = symmetric_relu(test.x @ weights.transpose(-1, -2), b[:, None, :], smoothing)[0].sum(-1)
    linear = (test.x * (w_star[:, None, :] @ M)).sum(-1)
    empty = torch.zeros(0, len(seeds), device=dev, dtype=dt)
    return SparseCodingResult(
        config=config, M=M, w_star=w_star, weights0=weights0, weights=weights, thresholds=b,
        sure_sizes=torch.stack(sure_sizes), pot_sizes=torch.stack(pot_sizes), sure0=sure0, sure=sure, pot=pot,
        sigma3=torch.stack(sigma3_trace), lucky_trace=torch.stack(lucky),
        output_scale=torch.stack(scales) if scales else empty, train_loss=torch.stack(losses) if losses else empty,
        transitions=torch.cat(events) if events else torch.zeros(0, 5, dtype=torch.int64, device=dev),
        outside_pot=outside_pot, outside_sure=outside_sure, fallen=fell.sum((-1, -2)),
        label_correlation=(y[..., None] * train.z).mean(-2) * torch.sign(w_star),
        test_accuracy=(torch.sign(f_test) == test.y).to(dt).mean(-1),
        linear_accuracy=(torch.sign(linear) == test.y).to(dt).mean(-1),
    )


@dataclass(frozen=True, eq=False)
class _Workspace:
    r"""Buffers of one GD step, allocated once per run and overwritten at every step: the pre-activations
    ``pre`` ``(S, n, m)``; ``work`` ``(S, n, m)``, the clipped pre-activations and then the slopes; the
    activity ``mask`` ``(S, n, m)`` bool (None with smoothing); the gradient ``grad`` ``(S, m, d)``.

    A step is memory-bound outside its two products: writing its ``(S, n, m)`` results into fresh tensors
    cost more than computing them (the pages of each new tensor are faulted in and zeroed at every step).
    The operations are the batched ones on the same shapes, only with ``out=`` buffers: the numbers are
    bit for bit those of fresh tensors, at any thread count."""

    pre: torch.Tensor
    work: torch.Tensor
    mask: torch.Tensor | None
    grad: torch.Tensor

    @classmethod
    def allocate(cls, seeds: int, n: int, m: int, d: int, smoothing: float, *, device: torch.device,
                 dtype: torch.dtype) -> _Workspace:
        kw = TensorOptions(device=device, dtype=dtype)
        mask = None if smoothing > 0 else torch.empty(seeds, n, m, device=device, dtype=torch.bool)
        return cls(torch.empty(seeds, n, m, **kw), torch.empty(seeds, n, m, **kw), mask, torch.empty(seeds, m, d, **kw))

    def forward(self, x, weights, thresholds, smoothing: float) -> tuple[torch.Tensor, torch.Tensor]:
        r"""Network output ``(S, n)`` and thresholds ``(S, m)``; leaves :math:`u = xW^\top` in ``pre`` and, in
        ``work``, :math:`\operatorname{clip}(u_i, -b_i, b_i)` (plain ReLU) or the smoothed slope.

        For the plain ReLU, :math:`\operatorname{sign}(u)(|u| - b)_+ = u - \operatorname{clip}(u, -b, b)`, so
        :math:`f = \langle x, \sum_i w_i\rangle - \sum_i \operatorname{clip}(u_i, -b_i, b_i)`: one pass over ``pre``."""
        pre = torch.matmul(x, weights.transpose(-1, -2), out=self.pre)
        b = thresholds(weights, pre)
        edge = b[:, None, :]
        if smoothing > 0:
            value, slope = symmetric_relu(pre, edge, smoothing)
            self.work.copy_(slope)
            return value.sum(-1), b
        clipped = torch.clamp(pre, -edge, edge, out=self.work)
        return (x @ weights.sum(-2)[..., None]).squeeze(-1) - clipped.sum(-1), b

    def gradient(self, x, residual) -> torch.Tensor:
        r""":math:`\nabla_W` ``(S, m, d)`` of the loss whose derivative in :math:`f` is ``residual`` ``(S, n, 1)``,
        after :meth:`forward`: the slopes (the activity :math:`u_i \ne \operatorname{clip}(u_i, -b_i, b_i)`, or the
        smoothed slope) times ``residual``, then their product with ``x``."""
        if self.mask is None:
            slope = self.work.mul_(residual)
        else:
            slope = torch.where(torch.ne(self.pre, self.work, out=self.mask), residual,
                                torch.zeros((), device=x.device, dtype=x.dtype), out=self.work)
        return torch.matmul(slope.transpose(-1, -2), x, out=self.grad)


def _transitions(t, sure, pot, new_sure, new_pot, coords, w_star, sigma3, c1, c2) -> torch.Tensor:
    """Rows ``(t, seed, i, j, kind)`` of every membership change between two steps."""
    d = coords.shape[-1]
    unit = torch.as_tensor(sigma3, dtype=coords.dtype, device=coords.device).square() * math.log(d)
    signed = coords * w_star[:, None, :] > 0
    keeps_feature = (coords.square() >= (c1 + c2) * unit) & signed
    keeps_pot = new_pot & signed
    left = sure & ~new_sure
    kinds = (
        new_sure & ~sure,
        left & ~keeps_pot,
        left & keeps_feature,
        left & keeps_pot & ~keeps_feature,
        new_pot & ~pot,
        pot & ~new_pot,
        new_sure & pot & ~sure,
        new_sure & ~pot & ~sure,
    )
    rows = []
    for code, mask in enumerate(kinds):
        idx = mask.nonzero()
        if len(idx):
            rows.append(torch.cat([torch.full((len(idx), 1), t, dtype=torch.int64, device=idx.device), idx,
                                   torch.full((len(idx), 1), code, dtype=torch.int64, device=idx.device)], 1))
    return torch.cat(rows) if rows else torch.zeros(0, 5, dtype=torch.int64, device=coords.device)
