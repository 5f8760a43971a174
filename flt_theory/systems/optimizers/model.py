r"""Training choices on signal-noise data: GD, Adam, sign-GD, SAM and label-noise GD on the two-layer CNN (torch only).

The network and its data are the signal-noise model of the numeric layer (:mod:`flt_theory.numeric.signal_noise`:
:math:`x = [y\mu, \xi]`, :math:`\mu = \|\mu\|e_1`, :math:`f = F_{+1} - F_{-1}`,
:math:`F_j = \frac1m\sum_r[\sigma(\langle w_{j,r}, y\mu\rangle) + \sigma(\langle w_{j,r}, \xi\rangle)]`,
:math:`\sigma = \mathrm{ReLU}^q`, fixed second layer, logistic loss, :math:`W^0 \sim \mathcal N(0, \sigma_0^2)`);
the labels, the initialisation and, for dense noise, the noise vectors are the signal-noise draw itself
(:func:`~flt_theory.numeric.signal_noise.draw` and its Haar frame), so a seed here sees the same
labels and the same first coordinates of :math:`W^0` as in the signal-noise system, and GD here is GD there.

Data variants
-------------
* ``sparsity=None`` — dense noise :math:`\xi \sim \mathcal N(0, \sigma_\xi^2(I - e_1e_1^\top))` (Cao et al. 2022,
  Kou et al. 2023).
* ``sparsity=s`` — the sparse noise of Zou, Cao, Li, Gu 2023 (arXiv 2108.11371):
  :math:`\zeta = \tilde\xi \odot b`, :math:`\tilde\xi \sim \mathcal N(0, \sigma_\xi^2 I)` and :math:`b \in \{0, 1\}^d`
  the indicator of :math:`s` coordinates drawn uniformly without replacement among :math:`e_2, \dots, e_d`.
* ``feature_noise=alpha`` adds Zou et al.'s feature noise to the noise patch: :math:`\xi = \zeta - \alpha y\mu`
  (the noise patch carries a weak copy of the signal with the wrong sign; with :math:`\alpha = 0` the
  noise patch is pure noise). Zou et al.'s proof of "Adam's test error :math:`\ge 1/2`" goes through it:
  once a neuron memorises its noise (:math:`\sigma'(\langle w, \xi_i\rangle) \gg \sigma'(\langle w, y_i\mu\rangle)`),
  the feature-noise term dominates the gradient's signal coordinate and Adam/sign-GD *unlearn* the signal.

Algorithms (``optimizer``), per seed on the full batch, :math:`g_t = \nabla L_S(W^t)`
---------------------------------------------------------------------------------------
* ``gd``: :math:`W^{t+1} = W^t - \eta g_t`.
* ``adam`` (Kingma & Ba 2015, with bias correction): :math:`m_t = \beta_1 m_{t-1} + (1-\beta_1)g_t`,
  :math:`v_t = \beta_2 v_{t-1} + (1-\beta_2)g_t^2`, :math:`W^{t+1} = W^t - \eta\,\hat m_t/(\sqrt{\hat v_t} + \epsilon)`,
  :math:`\hat m_t = m_t/(1-\beta_1^t)`, :math:`\hat v_t = v_t/(1-\beta_2^t)` — coordinate-wise.
* ``sign-gd``: :math:`W^{t+1} = W^t - \eta\,\mathrm{sign}(g_t)` (Adam with :math:`\beta_1 = \beta_2 = \epsilon = 0`),
  coordinate-wise, :math:`\mathrm{sign}(0) = 0`.
* ``sam`` (Foret et al. 2021; Chen, Zhang, Kou, Chen, Hsieh, Gu 2023, arXiv 2310.07269):
  :math:`W^{t+1} = W^t - \eta\nabla L_S(W^t + \tau g_t/\|g_t\|)`, the norm over all first-layer weights of a seed.
* ``label-noise-gd`` (Huang, Han, Song, Chen, Wu, Zou, Suzuki 2025): at every step each training label is
  flipped independently with probability ``flip_prob`` (fresh flips every step, from the seed's own
  generator), and GD steps on the loss with those labels. The reported training loss is the loss on
  the clean training labels.

Reduced or literal
------------------
GD, SAM and label-noise GD keep :math:`W^t - W^0` in :math:`\mathrm{span}(\mu, \xi_1, \dots, \xi_n)` (SAM's
perturbation is a gradient, label flips only reweight the samples), so the signal-noise system's exact
reduced dynamics would apply to them. Adam and sign-GD act coordinate-wise: :math:`\mathrm{sign}(g)` is not
in the span, the decomposition :math:`w = w^0 + j\gamma\mu/\|\mu\|^2 + \sum_i\rho_i\xi_i/\|\xi_i\|^2` is no longer
exact and the reduced dynamics break. Every optimizer here therefore runs the *literal* network, with an
explicit (hand-derived, batched) gradient: :math:`\partial L_S/\partial w_{j,r} =
\frac{j}{m}\sum_i c_i[\sigma'(\langle w_{j,r}, y_i\mu\rangle)y_i\mu + \sigma'(\langle w_{j,r},\xi_i\rangle)\xi_i]`,
:math:`c_i = -\tilde y_i\,\mathrm{sigmoid}(-\tilde y_i f_i)/n` (checked against autograd in the tests).

* Dense noise: the weights live in :math:`\mathbb R^d`; a step costs :math:`O(S\,m\,n\,d)` (two batched
  products). Keep :math:`d` modest (:math:`d \le 4000`: about 1 ms per step for 8 seeds, :math:`n = 20`, :math:`m = 5`).
* Sparse noise, *exact support reduction*: every optimizer here moves a coordinate only where some
  gradient is non-zero (GD, SAM: the gradient itself; Adam: :math:`m_t = v_t = 0` gives a zero step; sign-GD:
  :math:`\mathrm{sign}(0) = 0`), i.e. on :math:`e_1` and on the union :math:`U` of the training supports
  (:math:`|U| \le ns`). The other :math:`d - 1 - |U|` coordinates of :math:`W` stay at their
  :math:`\mathcal N(0, \sigma_0^2)` initial values, independent of everything else, and enter only at test time:
  for a fresh :math:`\zeta` with support :math:`T`, :math:`\sum_{k \in T\setminus U} w_k\zeta_k \sim
  \mathcal N(0, \sigma_0^2\sum_{k\in T\setminus U}\zeta_k^2)` independently per neuron — drawn exactly. So the
  weights are stored on :math:`1 + |U|` coordinates and :math:`d` costs nothing (:math:`d = 10^6` as :math:`d = 10^3`);
  a step costs :math:`O(S\,m\,n\,s)`.

Signal and noise coefficients. :math:`\gamma_{j,r} = j\langle w_{j,r} - w^0_{j,r}, \mu\rangle` and
:math:`\rho_{j,r,\cdot}` the least-squares coefficients of :math:`w_{j,r} - w^0_{j,r}` on
:math:`(\zeta_i/\|\zeta_i\|^2)_i` — the signal-noise decomposition exactly when it holds (GD family,
:math:`\alpha = 0`: then :math:`\zeta_i = \xi_i`), its projection otherwise (the part of an Adam update
outside the span is not counted). ``noise_overlap`` is :math:`\langle w - w^0, \zeta_i\rangle` itself.

Test error: exact in distribution for dense noise (:math:`(\langle w_{j,r},\xi\rangle)_{j,r} \sim
\mathcal N(0, \sigma_\xi^2 W_PW_P^\top)`, :math:`P = I - e_1e_1^\top`, drawn from ``n_test`` fixed standard normal
rows per seed), Monte Carlo over ``n_test`` fresh sparse noise patches per seed (supports, values and the
untouched-coordinate normals from the seed's own generator) for sparse noise; always against the true
label, averaged over both labels: :math:`\frac12[\Pr(f(+1) \le 0) + \Pr(f(-1) \ge 0)]`.

Seeds are the leading dimension; every random object of seed ``s`` comes from its own CPU generator per
stream, so a seed's numbers do not depend on the batch. Python loops run over steps only (over seeds
only to draw, once; over blocks of test draws in the sparse test error, so that its products stay in cache).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from ..._validation import check_int
from ...errors import InvalidParameterError
from ...numeric import signal_noise as sn
from ...numeric.backend import NonFiniteError, resolve_device
from ...numeric.data import as_seeds
from ...numeric.seeds import stream_generator
from ...runner.params import Param, Params

__all__ = [
    "OPTIMIZERS",
    "PARAMS",
    "OptimizerConfig",
    "OptimizerData",
    "MIN_DISTINCT",
    "OptimizerRun",
    "distinct_probability",
    "final_columns",
    "make_data",
    "max_sparsity",
    "optimizer_rows",
    "sparsity_refusal",
    "train",
]

#: The training algorithms (module docstring).
OPTIMIZERS = ("gd", "adam", "sign-gd", "sam", "label-noise-gd")

#: Largest dimension of dense noise (the literal weights live in R^d; sparse noise takes any d).
MAX_DENSE_D = 20_000

#: The parameters of a run, declared once: :func:`make_data`, :class:`OptimizerConfig` (validation),
#: :func:`optimizer_rows`, the runner's ``optimizers/run`` (converters and defaults; it stores 0 for the derived
#: defaults of ``sparsity``, ``sigma0`` and ``eta``, :data:`.declaration.RUN_PARAMS`) and ``flt simulate
#: signal-noise-optimizers`` (options and bounds) read them. Ranges a value must lie in whatever the others are;
#: the joint conditions (``d > n``, ``sparsity < d``, dense ``d <= 20000``) and the open upper ends (``beta1, beta2
#: < 1``, ``flip_prob < 1/2``) stay with their readers.
PARAMS = Params(
    Param("optimizer", "choice", choices=OPTIMIZERS, help="Training algorithm."),
    Param("activation", "str", help="'relu' or 'relu(z)**q' (q = 1..8), the filters' activation."),
    Param("n", "int", minimum=2, unit="count", help="Training samples."),
    Param("d", "int", minimum=3, unit="count", help="Dimension d (> n; dense noise: <= 20000)."),
    Param("width", "int", minimum=1, unit="count", help="Filters per class m."),
    Param("sparsity", "int", minimum=1, default=None, nullable=True, unit="count",
          help="s nonzero noise coordinates (Zou et al.'s sparse model; None: dense noise)."),
    Param("mu_norm", "float", minimum=0, exclusive_minimum=True, unit="units of x", help="Signal norm ||mu||."),
    Param("sigma_xi", "float", minimum=0, exclusive_minimum=True, default=1.0, unit="units of x",
          help="Noise scale sigma_xi."),
    Param("sigma0", "float", minimum=0, exclusive_minimum=True, default=None, nullable=True,
          help="Initialisation scale (default 0.01/(sigma_xi sqrt(d)))."),
    Param("feature_noise", "float", minimum=0, default=0.0,
          help="alpha of the feature noise -alpha y mu in the noise patch."),
    Param("eta", "float", minimum=0, exclusive_minimum=True, help="Step size."),
    Param("max_steps", "int", minimum=0, unit="steps", help="Step limit."),
    Param("eps", "float", minimum=0, default=0.0, help="Stop once the clean training loss is <= eps (0: never)."),
    Param("beta1", "float", minimum=0, maximum=1, default=0.9, help="Adam's beta1, in [0, 1)."),
    Param("beta2", "float", minimum=0, maximum=1, default=0.999, help="Adam's beta2, in [0, 1)."),
    Param("adam_eps", "float", minimum=0, default=1e-8, help="Adam's epsilon."),
    Param("sam_radius", "float", minimum=0, exclusive_minimum=True, default=0.05, unit="units of w",
          help="SAM's radius tau."),
    Param("flip_prob", "float", minimum=0, maximum=0.5, default=0.1, unit="fraction",
          help="Label-noise GD's per-step flip probability, in [0, 0.5)."),
    Param("n_test", "int", minimum=1, default=2000, unit="count", help="Test draws per seed."),
    Param("samples", "int", minimum=2, default=16, unit="count", help="Recorded points of the trajectory in a row."),
    Param("record_every", "int", minimum=1, unit="steps", help="Record every that many steps."),
    Param("seeds", "int", minimum=1, default=3, unit="count", help="Independent runs (seeds 0..S-1)."),
)

#: Parameters whose declared range is closed at an upper end the run must stay below: name -> that end.
OPEN_BELOW = {"beta1": 1.0, "beta2": 1.0, "flip_prob": 0.5}


def check_open_ends(values: dict, caller: str, *, flags: bool = False) -> None:
    r"""Refuse a value of :data:`OPEN_BELOW` at (or above) its open upper end (the declared range closes it):
    ``beta1, beta2 < 1`` (Adam divides by :math:`1 - \beta^t`), ``flip_prob < 1/2`` (labels stay informative);
    ``flags``: the message starts with the option (``--flip-prob: ...``), as
    :meth:`~flt_theory.runner.Params.check_flags`.

    >>> check_open_ends({"beta1": 1.0}, "demo")
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: The 'beta1' parameter of demo must be < 1. Got 1.0 instead.
    """
    for name, end in OPEN_BELOW.items():
        if name in values and not values[name] < end:
            flag = f"--{name.replace('_', '-')}: " if flags else ""
            raise InvalidParameterError(f"{flag}The {name!r} parameter of {caller} must be < {end:g}. "
                                        f"Got {values[name]!r} instead.")


@dataclass(frozen=True, kw_only=True)
class OptimizerConfig:
    r"""The training algorithm and its hyper-parameters (keyword-only).

    Attributes
    ----------
    optimizer : str
        One of :data:`OPTIMIZERS`.
    eta : float
        Step size :math:`\eta > 0`.
    max_steps : int
        Step limit.
    eps : float
        Stop a seed at the first step with clean training loss :math:`\le` ``eps`` (0: never).
    beta1, beta2, adam_eps : float
        Adam's :math:`\beta_1, \beta_2 \in [0, 1)` and :math:`\epsilon \ge 0`.
    sam_radius : float
        SAM's :math:`\tau > 0`.
    flip_prob : float
        Label-noise GD's flip probability :math:`p \in [0, 1/2)`.

    >>> OptimizerConfig(optimizer="sam", eta=0.1, max_steps=10).sam_radius
    0.05
    >>> OptimizerConfig(optimizer="rmsprop", eta=0.1, max_steps=10)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: The 'optimizer' parameter of OptimizerConfig must be one of
    ('gd', 'adam', 'sign-gd', 'sam', 'label-noise-gd'). Got 'rmsprop' instead.
    """

    optimizer: str
    eta: float
    max_steps: int
    eps: float = 0.0
    beta1: float = 0.9
    beta2: float = 0.999
    adam_eps: float = 1e-8
    sam_radius: float = 0.05
    flip_prob: float = 0.1

    def __post_init__(self) -> None:
        PARAMS.validate(self)
        check_open_ends(vars(self), type(self).__name__)

    def hyper_parameters(self) -> dict[str, float]:
        """The hyper-parameters that matter for this optimizer (recorded with every run).

        >>> OptimizerConfig(optimizer="adam", eta=0.1, max_steps=1).hyper_parameters()
        {'beta1': 0.9, 'beta2': 0.999, 'adam_eps': 1e-08}
        """
        keys = {"adam": ("beta1", "beta2", "adam_eps"), "sam": ("sam_radius",), "label-noise-gd": ("flip_prob",)}
        return {key: getattr(self, key) for key in keys.get(self.optimizer, ())}


# ------------------------------------------------------------------------------------------------ data


@dataclass(frozen=True)
class OptimizerData:
    r"""One batch of seeds of signal-noise data and the initial weights, in stored coordinates.

    Coordinate 0 of every stored vector is :math:`e_1` (the signal direction); the others are all of
    :math:`e_2..e_d` (dense noise, ``D = d``) or the union of the training supports, padded to the batch's
    largest union with inert zero columns (sparse noise, module docstring).

    Attributes
    ----------
    seeds : tuple of int
    n, d, width, q : int
    sparsity : int or None
        :math:`s` (None: dense noise).
    mu_norm, sigma_xi, sigma0, feature_noise : float
    y : Tensor, shape (seeds, n)
        Training labels (balanced; the signal-noise draw's).
    zeta : Tensor, shape (seeds, n, D)
        The random part :math:`\zeta_i` of the noise patches (zero in coordinate 0).
    w0 : Tensor, shape (seeds, 2m, D)
        Initial weights, neurons ordered :math:`(+1, 1..m), (-1, 1..m)`.
    support, values : Tensor, shape (seeds, n, s), or None
        Sparse noise only: the stored coordinates of the supports and the values of :math:`\zeta_i` there
        (the sparse form of ``zeta``, used by the O(m n s) products).
    test : dict of Tensor
        Test draws: dense ``normals`` (seeds, n_test, 2m); sparse ``index`` (seeds, n_test, s) into the
        stored coordinates (``-1`` outside :math:`U`), ``value`` (seeds, n_test, s), ``outside``
        (seeds, n_test) :math:`(\sum_{k\in T\setminus U}\zeta_k^2)^{1/2}` and ``normals`` (seeds, n_test, 2m).
    """

    seeds: tuple[int, ...]
    n: int
    d: int
    width: int
    q: int
    sparsity: int | None
    mu_norm: float
    sigma_xi: float
    sigma0: float
    feature_noise: float
    y: torch.Tensor
    zeta: torch.Tensor
    w0: torch.Tensor
    test: dict[str, torch.Tensor] = field(repr=False)
    support: torch.Tensor | None = field(default=None, repr=False)
    values: torch.Tensor | None = field(default=None, repr=False)

    @property
    def sign(self) -> torch.Tensor:
        """Second-layer sign :math:`j` of each neuron, shape (2m,)."""
        return torch.cat([torch.ones(self.width), -torch.ones(self.width)]).to(self.y)

    @property
    def xi(self) -> torch.Tensor:
        r"""The noise patches :math:`\xi_i = \zeta_i - \alpha y_i\mu`, shape (seeds, n, D)."""
        if not self.feature_noise:
            return self.zeta
        xi = self.zeta.clone()
        xi[..., 0] = -self.feature_noise * self.mu_norm * self.y
        return xi


def _distinct_indices(rows: int, s: int, high: int, gen: torch.Generator) -> torch.Tensor:
    """``rows`` sets of ``s`` distinct integers uniform in ``[0, high)`` (rejection of rows with repeats:
    uniform over ordered tuples of distinct entries, hence over subsets), shape (rows, s)."""
    out = torch.randint(high, (rows, s), generator=gen)
    while True:
        srt = out.sort(-1).values
        bad = (srt[:, 1:] == srt[:, :-1]).any(-1)
        if not bool(bad.any()):
            return out
        out[bad] = torch.randint(high, (int(bad.sum()), s), generator=gen)


#: Smallest probability that ``s`` coordinates drawn uniformly in ``[0, d - 1)`` are distinct: the sparse noise draws
#: its supports by rejection (:func:`.model.make_data`), about ``1/p`` rounds per sample (``s`` up to about
#: ``2.4 sqrt(d)``; at ``s`` near ``d`` the rejection would not end).
MIN_DISTINCT = 0.05


def distinct_probability(s: int, d: int) -> float:
    """The probability that ``s`` integers drawn uniformly in ``[0, d - 1)`` are distinct.

    >>> round(distinct_probability(6, 10**6), 6), distinct_probability(99, 100) < 1e-40
    (0.999985, True)
    """
    high = d - 1
    if s > high:
        return 0.0
    return math.exp(math.lgamma(high + 1) - math.lgamma(high - s + 1) - s * math.log(high))


def max_sparsity(d: int) -> int:
    """The largest ``s`` whose draw succeeds with probability at least :data:`MIN_DISTINCT` (0 if none does).

    >>> max_sparsity(1000), max_sparsity(10**6)
    (76, 2447)
    """
    low, high = 0, max(0, d - 1)  # distinct_probability falls with s: bisect
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if distinct_probability(mid, d) >= MIN_DISTINCT else (low, mid - 1)
    return low


def sparsity_refusal(s: int, d: int) -> str | None:
    """Why the sparse noise of ``s`` coordinates cannot be drawn at dimension ``d`` (None when it can): its supports
    are drawn by rejection, which would not end when a draw succeeds with probability below :data:`MIN_DISTINCT`."""
    chance = distinct_probability(s, d)
    if chance >= MIN_DISTINCT:
        return None
    return (f"the supports of s = {s} distinct coordinates among d - 1 = {d - 1} are drawn by rejection, and a draw "
            f"succeeds with probability {chance:.2g} < {MIN_DISTINCT:g}; use s <= {max_sparsity(d)} at this d")


def make_data(
    seeds: int | Sequence[int], *, n: int, d: int, width: int, activation: str | int = "relu",
    sparsity: int | None = None, mu_norm: float, sigma_xi: float = 1.0, sigma0: float = 0.01,
    feature_noise: float = 0.0, n_test: int = 2000, device: str | torch.device = "auto",
) -> OptimizerData:
    r"""Draw the data, the initial weights and the test draws of a batch of seeds (module docstring).

    Parameters
    ----------
    seeds
        Number of seeds or their values.
    n, d, width
        Samples (:math:`\ge 2`), dimension, neurons per class :math:`m`.
    activation
        ``"relu"``, ``"relu(z)**q"`` or :math:`q` (:func:`~flt_theory.numeric.signal_noise.activation_power`).
    sparsity
        :math:`s` nonzero noise coordinates (``1 <= s <= d - 1``), or None for dense noise (then
        :math:`d \le 20000`: the literal weights live in :math:`\mathbb R^d`).
    mu_norm, sigma_xi, sigma0
        :math:`\|\mu\|`, :math:`\sigma_\xi`, :math:`\sigma_0` (all > 0; ``sigma0=None``:
        :math:`0.01/(\sigma_\xi\sqrt d)`).
    feature_noise
        :math:`\alpha \ge 0` of the noise patch :math:`\zeta - \alpha y\mu`.
    n_test
        Test draws per seed.
    device
        ``"auto"`` (CUDA when present), ``"cpu"``, ...; float64 throughout.

    Examples
    --------
    >>> data = make_data([0, 1], n=6, d=10**6, width=2, sparsity=3, mu_norm=1.0, n_test=5, device="cpu")
    >>> data.zeta.shape[-1] <= 1 + 6 * 3, (data.zeta != 0).sum(-1).tolist()
    (True, [[3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3]])
    >>> one = make_data([1], n=6, d=10**6, width=2, sparsity=3, mu_norm=1.0, n_test=5, device="cpu")
    >>> bool(torch.equal(one.w0[0, :, 0], data.w0[1, :, 0])), bool(torch.equal(one.y[0], data.y[1]))
    (True, True)
    """
    seeds = as_seeds(seeds)
    where = "make_data"
    n, d, m, sparsity, mu_norm, sigma_xi, sigma0, alpha, n_test = PARAMS.check(dict(
        n=n, d=d, width=width, sparsity=sparsity, mu_norm=mu_norm, sigma_xi=sigma_xi, sigma0=sigma0,
        feature_noise=feature_noise, n_test=n_test), where).values()
    q = sn.activation_power(activation)
    if sigma0 is None:
        sigma0 = 0.01 / (sigma_xi * math.sqrt(d))
    check_int(d, "d", minimum=n + 1, caller=where)
    if sparsity is not None:
        check_int(sparsity, "sparsity", minimum=1, maximum=d - 1, caller=where)
        refusal = sparsity_refusal(sparsity, d)
        if refusal is not None:
            raise InvalidParameterError(f"{where}: sparsity: {refusal}")
    elif d > MAX_DENSE_D:
        raise InvalidParameterError(
            f"The 'd' parameter of {where} must be <= {MAX_DENSE_D} for dense noise (the literal weights live in R^d; "
            f"sparse noise reduces to the supports and takes any d). Got {d} instead."
        )
    dr = sn.draw(list(seeds), n=n, d=d, width=m, n_test=1, device="cpu")  # labels, e1-coordinates of W0, Wishart
    support = values = None
    if sparsity is None:
        z = dr.frame() @ dr.bartlett  # (S, d-1, K): the signal-noise literal vectors
        w0 = sigma0 * torch.cat([dr.init_e1[:, :, None], z[:, :, : 2 * m].transpose(1, 2)], dim=-1)
        zeta = sigma_xi * torch.cat([torch.zeros(len(seeds), n, 1, dtype=torch.float64),
                                     z[:, :, 2 * m:].transpose(1, 2)], -1)
        test = {"normals": torch.stack([torch.randn(n_test, 2 * m, generator=stream_generator(s, "optimizers/test"),
                                                    dtype=torch.float64) for s in seeds])}
    else:
        w0, zeta, test, support, values = _sparse_draws(seeds, dr, n=n, d=d, m=m, s=sparsity, sigma_xi=sigma_xi,
                                                        sigma0=sigma0, n_test=n_test)
    dev = resolve_device(device)
    return OptimizerData(
        seeds=seeds, n=n, d=d, width=m, q=q, sparsity=sparsity, mu_norm=mu_norm, sigma_xi=sigma_xi, sigma0=sigma0,
        feature_noise=alpha, y=dr.y.to(dev), zeta=zeta.to(dev), w0=w0.to(dev),
        test={k: v.to(dev) for k, v in test.items()},
        support=None if support is None else support.to(dev), values=None if values is None else values.to(dev),
    )


def _sparse_draws(seeds, dr, *, n, d, m, s, sigma_xi, sigma0, n_test):
    """Sparse supports, values, stored coordinates and test draws, one generator per seed and stream."""
    per_seed = []
    for seed in seeds:
        # noise coordinates 0..d-2
        support = _distinct_indices(n, s, d - 1, stream_generator(seed, "optimizers/support"))
        values = sigma_xi * torch.randn(n, s, generator=stream_generator(seed, "optimizers/noise"), dtype=torch.float64)
        union, inverse = torch.unique(support, return_inverse=True)
        init = sigma0 * torch.randn(2 * m, len(union), generator=stream_generator(seed, "optimizers/init"),
                                    dtype=torch.float64)
        tg = stream_generator(seed, "optimizers/test")
        t_support = _distinct_indices(n_test, s, d - 1, tg)
        t_values = sigma_xi * torch.randn(n_test, s, generator=tg, dtype=torch.float64)
        normals = torch.randn(n_test, 2 * m, generator=tg, dtype=torch.float64)
        pos = torch.searchsorted(union, t_support).clamp_max(len(union) - 1)
        hit = union[pos] == t_support
        per_seed.append((union, inverse, values, init, pos, hit, t_values, normals))
    width = 1 + max(len(p[0]) for p in per_seed)
    S = len(seeds)
    zeta = torch.zeros(S, n, width, dtype=torch.float64)
    w0 = torch.zeros(S, 2 * m, width, dtype=torch.float64)
    index = torch.full((S, n_test, s), -1, dtype=torch.long)
    value, outside = torch.zeros(S, n_test, s, dtype=torch.float64), torch.zeros(S, n_test, dtype=torch.float64)
    normals = torch.zeros(S, n_test, 2 * m, dtype=torch.float64)
    support, vals = torch.zeros(S, n, s, dtype=torch.long), torch.zeros(S, n, s, dtype=torch.float64)
    for k, (union, inverse, values, init, pos, hit, t_values, t_normals) in enumerate(per_seed):
        zeta[k].scatter_(1, 1 + inverse, values)
        support[k], vals[k] = 1 + inverse, values
        w0[k, :, 0] = sigma0 * dr.init_e1[k]
        w0[k, :, 1: 1 + len(union)] = init
        index[k] = torch.where(hit, 1 + pos, -1)
        value[k] = torch.where(hit, t_values, 0.0)
        outside[k] = torch.where(hit, 0.0, t_values).pow(2).sum(-1).sqrt()
        normals[k] = t_normals
    return w0, zeta, {"index": index, "value": value, "outside": outside, "normals": normals}, support, vals


# --------------------------------------------------------------------------------------- the network


def _noise_inner(data: OptimizerData, w: torch.Tensor, xi: torch.Tensor) -> torch.Tensor:
    r""":math:`\langle w_{j,r}, \xi_i\rangle`, (S, 2m, n): a batched product (dense) or a gather over the supports
    (sparse)."""
    if data.support is None:
        return w @ xi.transpose(1, 2)
    assert data.values is not None  # sparse noise: support and values come together
    S, m2, n, s = w.shape[0], w.shape[1], data.n, data.support.shape[-1]
    picked = torch.gather(w, 2, data.support.reshape(S, 1, n * s).expand(S, m2, n * s)).reshape(S, m2, n, s)
    inner = picked.mul_(data.values[:, None]).sum(-1)
    if data.feature_noise:
        inner = inner + w[..., :1] * xi[:, None, :, 0]
    return inner


def _noise_combination(data: OptimizerData, coef: torch.Tensor, xi: torch.Tensor) -> torch.Tensor:
    r""":math:`\sum_i c_{j,r,i}\xi_i` for ``coef`` (S, 2m, n), (S, 2m, D): the transpose of :func:`_noise_inner`."""
    if data.support is None:
        return coef @ xi
    assert data.values is not None  # sparse noise: support and values come together
    S, m2, n, s = coef.shape[0], coef.shape[1], data.n, data.support.shape[-1]
    out = torch.zeros(S, m2, xi.shape[-1], dtype=coef.dtype, device=coef.device)
    contrib = (coef[..., None] * data.values[:, None]).reshape(S, m2, n * s)
    out.scatter_add_(2, data.support.reshape(S, 1, n * s).expand(S, m2, n * s), contrib)
    if data.feature_noise:
        out[..., 0] = out[..., 0] + (coef * xi[:, None, :, 0]).sum(-1)
    return out


def _outputs(data: OptimizerData, w: torch.Tensor, xi: torch.Tensor):
    """``(a, b, f)``: :math:`\\langle w, \\mu\\rangle` (S, 2m), :math:`\\langle w, \\xi_i\\rangle` (S, 2m, n),
    outputs (S, n)."""
    a = w[..., 0] * data.mu_norm
    b = _noise_inner(data, w, xi)
    act = sn.relu_power(a[:, :, None] * data.y[:, None, :], data.q) + sn.relu_power(b, data.q)
    return a, b, (data.sign[:, None] * act).sum(1) / data.width


def _loss(f: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.softplus(-labels * f).mean(-1)


def _gradient(data: OptimizerData, w: torch.Tensor, xi: torch.Tensor, labels: torch.Tensor):
    r"""``(grad, f)``: :math:`\nabla_W L_S` with observed labels ``labels`` (module docstring), (S, 2m, D)."""
    a, b, f = _outputs(data, w, xi)
    c = -labels * torch.sigmoid(-labels * f) / data.n  # dL/df_i, (S, n)
    jm = data.sign[None, :, None] / data.width
    signal = (jm[..., 0] * (sn.relu_power_derivative(a[:, :, None] * data.y[:, None, :], data.q)
                            * (c * data.y)[:, None, :]).sum(-1))
    grad = _noise_combination(data, jm * sn.relu_power_derivative(b, data.q) * c[:, None, :], xi)  # (S, 2m, D)
    grad[..., 0] = grad[..., 0] + signal * data.mu_norm
    return grad, f


#: Elements of the products :func:`_sparse_test_inner` forms at once (about 8 MB of float64): its blocks of test draws
#: stay in cache.
TEST_BLOCK_ELEMENTS = 2**20


def _sparse_test_inner(data: OptimizerData, w: torch.Tensor) -> torch.Tensor:
    r""":math:`\sum_{k \in T\cap U} w_{j,r,k}\zeta_k` of every sparse test patch (support :math:`T`, values
    ``data.test["value"]``, 0 outside :math:`U`), shape (S, n_test, 2m): per patch and neuron the ``s`` products summed
    along a contiguous last axis, a block of test draws at a time (:data:`TEST_BLOCK_ELEMENTS`)."""
    idx, value = data.test["index"], data.test["value"]
    S, T, s = idx.shape
    m2 = w.shape[1]
    padded = torch.cat([w, torch.zeros_like(w[..., :1])], dim=-1)  # column -1: outside U (value 0 there)
    where = torch.where(idx >= 0, idx, padded.shape[-1] - 1)
    z = torch.empty(S, T, m2, dtype=w.dtype, device=w.device)
    block = max(1, TEST_BLOCK_ELEMENTS // max(1, S * m2 * s))
    for a in range(0, T, block):
        b = min(block, T - a)
        picked = torch.gather(padded, 2, where[:, a:a + b].reshape(S, 1, b * s).expand(S, m2, b * s))
        z[:, a:a + b] = picked.reshape(S, m2, b, s).mul_(value[:, None, a:a + b]).sum(-1).transpose(1, 2)
    return z


def _test_error(data: OptimizerData, w: torch.Tensor) -> torch.Tensor:
    """Test error against the true label, both labels averaged (module docstring), (S,)."""
    if data.sparsity is None:
        tri = sn.positive_diagonal(torch.linalg.qr(w[..., 1:].transpose(1, 2), mode="r").R)  # (S, 2m, 2m)
        z = data.sigma_xi * data.test["normals"][..., : tri.shape[-2]] @ tri  # (S, n_test, 2m)
    else:
        z = _sparse_test_inner(data, w)
        z = z + data.sigma0 * data.test["outside"][..., None] * data.test["normals"]
    a = w[..., 0] * data.mu_norm  # (S, 2m)
    wrong: torch.Tensor | float = 0.0
    for y in (1.0, -1.0):
        noise = z - data.feature_noise * y * a[:, None, :]
        out = (((sn.relu_power(y * a, data.q)[:, None, :] + sn.relu_power(noise, data.q)) * data.sign).sum(-1)
               / data.width)
        wrong = wrong + ((y * out) <= 0).to(out).mean(-1)
    assert isinstance(wrong, torch.Tensor)  # both labels added
    return 0.5 * wrong


# ------------------------------------------------------------------------------------------- training

#: Keys of a trajectory record.
TRAJECTORY_KEYS = ("step", "train_loss", "test_error", "gamma_max", "rho_bar", "rho_max")


@dataclass(frozen=True)
class OptimizerRun:
    r"""The outcome of :func:`train` for a batch of seeds.

    Attributes
    ----------
    data, config
        What was run.
    w : Tensor, shape (seeds, 2m, D)
        Final weights.
    steps : Tensor, shape (seeds,)
        Steps taken (first step with clean training loss :math:`\le` eps, else ``max_steps``).
    train_loss, train_error, test_error : Tensor, shape (seeds,)
        Clean training loss and error, test error, at the stop.
    gamma : Tensor, shape (seeds, 2m)
        :math:`\gamma_{j,r}` at the stop.
    rho : Tensor, shape (seeds, 2m, n)
        :math:`\rho_{j,r,i}` at the stop.
    early : dict of Tensor, shape (seeds,)
        ``noise_rate`` (mean over the pairs :math:`(r, i)` with :math:`j = y_i` and
        :math:`\langle w_{j,r}, \xi_i\rangle > 0` throughout the first ``early_steps`` steps of the per-step
        increase of :math:`\langle w_{j,r} - w^0_{j,r}, \zeta_i\rangle`), ``signal_rate`` (mean over neurons of
        :math:`|\Delta\langle w_{j,r}, \mu\rangle|` per step), ``l1_noise`` (mean :math:`\|\zeta_i\|_1`).
    trajectory : dict of Tensor, shape (records, seeds), or None
        :data:`TRAJECTORY_KEYS` every ``record_every`` steps and at the last step, and ``time`` (the step of the
        record; ``step`` is a stopped seed's stopping step).
    """

    data: OptimizerData
    config: OptimizerConfig
    w: torch.Tensor
    steps: torch.Tensor
    train_loss: torch.Tensor
    train_error: torch.Tensor
    test_error: torch.Tensor
    gamma: torch.Tensor
    rho: torch.Tensor
    early: dict[str, torch.Tensor]
    trajectory: dict[str, torch.Tensor] | None = field(default=None, repr=False)


def _coefficients(data: OptimizerData, w: torch.Tensor, chol: torch.Tensor, zeta_sq: torch.Tensor):
    r"""``(gamma (S, 2m), rho (S, 2m, n))`` of ``w`` (module docstring: least squares on :math:`\zeta_i/\|\zeta_i\|^2`),
    ``chol`` the Cholesky factor of the Gram matrix of the :math:`\zeta_i` and ``zeta_sq`` :math:`\|\zeta_i\|^2`
    (S, n)."""
    delta = w - data.w0
    gamma = data.sign * delta[..., 0] * data.mu_norm
    inner = delta @ data.zeta.transpose(1, 2)  # (S, 2m, n) <Δw, ζ_k> = Σ_i c_i <ζ_i, ζ_k>
    coef = torch.cholesky_solve(inner.transpose(1, 2), chol).transpose(1, 2)  # Δw ≈ Σ_i c_i ζ_i
    return gamma, coef * zeta_sq[:, None, :]  # ρ_i = c_i ||ζ_i||²


def _zeta_sq(data: OptimizerData) -> torch.Tensor:
    return (data.zeta**2).sum(-1)


def _rho_summaries(data: OptimizerData, rho: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``rho_bar``: mean over i of :math:`\\max_r \\rho_{y_i, r, i}`; ``rho_max``:
    :math:`\\max_{j,r,i}\\rho_{j,r,i}`."""
    own = data.sign[None, :, None] == data.y[:, None, :]
    rho_own = torch.where(own, rho, torch.full_like(rho, -math.inf)).amax(1)  # (S, n)
    return rho_own.mean(-1), rho.flatten(1).amax(-1)


def train(data: OptimizerData, cfg: OptimizerConfig, *, record_every: int = 0, early_steps: int = 5) -> OptimizerRun:
    r"""Run ``cfg.optimizer`` on the literal CNN for every seed of ``data`` (module docstring).

    Parameters
    ----------
    data
        :func:`make_data`.
    cfg
        The algorithm.
    record_every
        Record :data:`TRAJECTORY_KEYS` every that many steps (0: no trajectory).
    early_steps
        Window of the early-phase rates (``OptimizerRun.early``).

    Raises
    ------
    NonFiniteError
        The run diverged.

    Examples
    --------
    >>> data = make_data(2, n=20, d=10**5, width=4, activation=3, sparsity=6, mu_norm=1.0, sigma0=0.05,
    ...                  n_test=500, device="cpu")
    >>> run = train(data, OptimizerConfig(optimizer="sign-gd", eta=0.01, max_steps=40))
    >>> ratio = run.early["noise_rate"] / (0.01 * run.early["l1_noise"])  # exact: disjoint supports
    >>> [round(float(r), 6) for r in ratio]
    [1.0, 1.0]
    """
    record_every = check_int(record_every, "record_every", minimum=0, caller="train")
    early_steps = check_int(early_steps, "early_steps", minimum=1, caller="train")
    S = len(data.seeds)
    xi = data.xi
    chol = torch.linalg.cholesky(data.zeta @ data.zeta.transpose(1, 2))
    zeta_sq = _zeta_sq(data)  # (S, n), read at every record
    w = data.w0.clone()
    state = {"m": torch.zeros_like(w), "v": torch.zeros_like(w)}
    flips = None
    if cfg.optimizer == "label-noise-gd":
        flips = torch.stack([torch.rand(max(cfg.max_steps, 1), data.n,
                                        generator=stream_generator(s, "optimizers/flips"), dtype=torch.float64)
                             < cfg.flip_prob for s in data.seeds]).to(data.y.device)
    active = torch.ones(S, dtype=torch.bool, device=w.device)
    steps = torch.full((S,), cfg.max_steps, dtype=torch.long, device=w.device)
    own = (data.sign[None, :, None] == data.y[:, None, :])
    b0 = _noise_inner(data, data.w0, xi)
    live = own & (b0 > 0)
    a_start = data.w0[..., 0] * data.mu_norm
    early: dict[str, torch.Tensor] = {}
    records = []
    coefficients: tuple[torch.Tensor, torch.Tensor] | None = None
    test_error: torch.Tensor | None = None
    for t in range(cfg.max_steps + 1):
        if cfg.optimizer == "label-noise-gd":  # its step uses flipped labels: the clean pass needs only f
            f = _outputs(data, w, xi)[2]
        else:
            grad, f = _gradient(data, w, xi, data.y)
        loss = _loss(f, data.y)
        done = active & (loss <= cfg.eps)
        steps = torch.where(done, t, steps)
        active = active & ~done
        last = t == cfg.max_steps or not bool(active.any())
        if t <= early_steps:
            b = _noise_inner(data, w, xi)
            live = live & (b > 0)
            if t == early_steps:
                overlap = (w - data.w0) @ data.zeta.transpose(1, 2)
                count = live.sum((1, 2)).clamp_min(1)
                early["noise_rate"] = (torch.where(live, overlap, 0.0).sum((1, 2)) / count) / early_steps
                early["signal_rate"] = (w[..., 0] * data.mu_norm - a_start).abs().mean(-1) / early_steps
                l1 = data.zeta.abs().sum(-1)[:, None, :]  # weighted like noise_rate: one term per live pair
                early["l1_noise"] = torch.where(live, l1, 0.0).sum((1, 2)) / count
        coefficients = test_error = None  # of this step's w, where a record computes them
        if record_every and (t % record_every == 0 or last):
            coefficients, test_error = _coefficients(data, w, chol, zeta_sq), _test_error(data, w)
            rbar, rmax = _rho_summaries(data, coefficients[1])
            records.append({"time": torch.full_like(loss, t), "step": torch.where(active | done, t, steps).to(loss),
                            "train_loss": loss, "test_error": test_error, "gamma_max": coefficients[0].amax(-1),
                            "rho_bar": rbar, "rho_max": rmax})
        if last:
            break
        if cfg.optimizer == "label-noise-gd":
            assert flips is not None  # drawn above for label-noise-gd
            grad, _ = _gradient(data, w, xi, torch.where(flips[:, t], -data.y, data.y))
        elif cfg.optimizer == "sam":
            norm = grad.flatten(1).norm(dim=-1).clamp_min(1e-300)[:, None, None]
            grad, _ = _gradient(data, w + cfg.sam_radius * grad / norm, xi, data.y)
        if cfg.optimizer in ("gd", "sam", "label-noise-gd"):
            step = grad.mul_(cfg.eta)  # grad is recomputed at the next step
        elif cfg.optimizer == "sign-gd":
            step = cfg.eta * torch.sign(grad)
        else:
            k = t + 1
            state["m"] = cfg.beta1 * state["m"] + (1 - cfg.beta1) * grad
            state["v"] = cfg.beta2 * state["v"] + (1 - cfg.beta2) * grad**2
            m_hat, v_hat = state["m"] / (1 - cfg.beta1**k), state["v"] / (1 - cfg.beta2**k)
            step = cfg.eta * m_hat / (v_hat.sqrt() + cfg.adam_eps)
            step = torch.nan_to_num(step, nan=0.0)  # 0/0 on untouched coordinates when adam_eps = 0
        # in place (w is this function's own copy); with every seed active, 1 * step is step: skip the product
        w.sub_(step if bool(active.all()) else active.to(w)[:, None, None] * step)
    if not bool(torch.isfinite(loss).all() & torch.isfinite(w).all()):
        raise NonFiniteError(f"the {cfg.optimizer} run diverged (NaN or infinite weights); lower 'eta'")
    if not early:
        nan = torch.full((S,), math.nan).to(w)
        early = {"noise_rate": nan, "signal_rate": nan, "l1_noise": nan}
    # the loop ended on the final w: its f (and, where that step was recorded, its coefficients and test error) serve
    gamma, rho = coefficients if coefficients is not None else _coefficients(data, w, chol, zeta_sq)
    trajectory = ({key: torch.stack([r[key] for r in records]) for key in ("time",) + TRAJECTORY_KEYS}
                  if records else None)
    return OptimizerRun(data=data, config=cfg, w=w, steps=steps, train_loss=loss,
                        train_error=((data.y * f) <= 0).to(f).mean(-1),
                        test_error=test_error if test_error is not None else _test_error(data, w), gamma=gamma,
                        rho=rho, early=early, trajectory=trajectory)


# ------------------------------------------------------------------------------------ rows of the runner


def final_columns(run: OptimizerRun, *, early: bool = False) -> dict[str, list[float]]:
    r"""The observables of ``run`` at the stop, one list entry per seed: ``steps, train_loss, train_error,
    test_error, gamma_max`` (:math:`\max_{j,r}\gamma_{j,r}`), ``rho_bar, rho_max`` (:func:`_rho_summaries`) and,
    with ``early``, the early-phase rates of ``run.early``."""
    rho_bar, rho_max = _rho_summaries(run.data, run.rho)
    cols = {"steps": run.steps, "train_loss": run.train_loss, "train_error": run.train_error,
            "test_error": run.test_error, "gamma_max": run.gamma.amax(-1), "rho_bar": rho_bar, "rho_max": rho_max,
            **(run.early if early else {})}
    return {k: v.detach().cpu().tolist() for k, v in cols.items()}


def optimizer_rows(
    *, optimizer: str, n: int, d: int, width: int, activation: str | int, sparsity: int | None, mu_norm: float,
    sigma_xi: float, sigma0: float, feature_noise: float, eta: float, max_steps: int, eps: float, beta1: float = 0.9,
    beta2: float = 0.999, adam_eps: float = 1e-8, sam_radius: float = 0.05, flip_prob: float = 0.1,
    n_test: int = 2000, samples: int = 16, seeds: Sequence[int], device: str | torch.device = "auto",
) -> list[dict[str, float]]:
    r"""One row of floats per seed: ``steps, train_loss, train_error, test_error, gamma_max, rho_bar, rho_max,
    noise_rate, signal_rate, l1_noise`` (:class:`OptimizerRun`) and the trajectory at ``samples`` evenly spaced
    recorded steps (``step_k, gamma_k`` = :math:`\max\gamma`, ``rho_k`` = :math:`\bar\rho`, ``loss_k``, ``error_k``).

    >>> rows = optimizer_rows(optimizer="adam", n=20, d=10**5, width=4, activation=3, sparsity=6, mu_norm=1.0,
    ...                       sigma_xi=1.0, sigma0=0.05, feature_noise=0.2, eta=0.01, max_steps=20, eps=0.0,
    ...                       n_test=200, samples=3, seeds=[0], device="cpu")
    >>> [rows[0][f"step_{k}"] for k in range(3)], rows[0]["steps"]
    ([0.0, 10.0, 20.0], 20.0)
    """
    data = make_data(list(seeds), n=n, d=d, width=width, activation=activation, sparsity=sparsity, mu_norm=mu_norm,
                     sigma_xi=sigma_xi, sigma0=sigma0, feature_noise=feature_noise, n_test=n_test, device=device)
    cfg = OptimizerConfig(optimizer=optimizer, eta=eta, max_steps=max_steps, eps=eps, beta1=beta1, beta2=beta2,
                          adam_eps=adam_eps, sam_radius=sam_radius, flip_prob=flip_prob)
    samples = PARAMS["samples"].check(samples, "optimizer_rows")
    every = max(1, -(-max(max_steps, 1) // (samples - 1)))
    run = train(data, cfg, record_every=every)
    assert run.trajectory is not None  # record_every >= 1: the last step is always recorded
    traj = {k: v.detach().cpu() for k, v in run.trajectory.items()}
    picks = torch.linspace(0, len(traj["step"]) - 1, samples).round().long().tolist()
    cols = final_columns(run, early=True)
    rows = []
    for s in range(len(data.seeds)):
        row = {k: float(v[s]) for k, v in cols.items()}
        for k, i in enumerate(picks):
            row[f"step_{k}"] = float(traj["time"][i, s])
            row[f"gamma_{k}"], row[f"rho_{k}"] = float(traj["gamma_max"][i, s]), float(traj["rho_bar"][i, s])
            row[f"loss_{k}"], row[f"error_{k}"] = float(traj["train_loss"][i, s]), float(traj["test_error"][i, s])
        rows.append(row)
    return rows
