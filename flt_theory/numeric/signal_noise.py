r"""Signal-noise patch data and the two-layer CNN trained by full-batch GD: exact reduced dynamics, literal network.

Shared by the systems built on this data model (signal-noise, optimizers, attention, diffusion, contrastive).

Model (Cao, Chen, Belkin, Gu 2022, arXiv 2202.06526; Kou, Chen, Chen, Gu 2023, arXiv 2303.04145)
-------------------------------------------------------------------------------------------------
A sample is two patches :math:`x = [y\mu, \xi]` with :math:`\mu = \|\mu\| e_1` and
:math:`\xi \sim \mathcal N(0, \sigma_\xi^2 (I_d - e_1 e_1^\top))` (``project=True``, noise orthogonal to the
signal as in both papers) or :math:`\mathcal N(0, \sigma_\xi^2 I_d)` (``project=False``);
:math:`\mathrm{SNR} = \|\mu\| / (\sigma_\xi\sqrt d)`. Training labels are exactly balanced (``n`` odd: the
classes differ by one). Label noise :math:`\tau` flips exactly ``round(τ n)`` observed labels
:math:`\tilde y_i`, half in each class (class :math:`+1` takes the odd one); the signal patch keeps the
true label, and the test error is always measured against the true label. The network is

.. math::
    f(W, x) = F_{+1} - F_{-1}, \qquad
    F_j = \frac1m \sum_{r=1}^m \big[\sigma(\langle w_{j,r}, y\mu\rangle) + \sigma(\langle w_{j,r}, \xi\rangle)\big],
    \qquad \sigma(z) = \max(z, 0)^q,

with fixed second layer, logistic loss :math:`L_S = \frac1n\sum_i \ell(\tilde y_i f(W, x_i))`,
:math:`\ell(z) = \log(1 + e^{-z})`, and full-batch GD :math:`W^{t+1} = W^t - \eta\nabla L_S(W^t)` from
:math:`W^0 \sim \mathcal N(0, \sigma_0^2)`, stopped at the first :math:`t` with
:math:`L_S(W^t) \le \varepsilon` (or at ``max_steps``). We take :math:`\sigma'(0) = 0` (autograd's
convention for ``relu``), so the two paths below agree at the kinks too.

Signal-noise decomposition (exact)
----------------------------------
The gradient of :math:`w_{j,r}` is a combination of :math:`\mu` and the :math:`\xi_i`, so

.. math::
    w_{j,r}^t = w_{j,r}^0 + j\,\gamma_{j,r}^t \frac{\mu}{\|\mu\|^2} + \sum_i \rho_{j,r,i}^t \frac{\xi_i}{\|\xi_i\|^2},
    \quad
    \gamma^{t+1}_{j,r} = \gamma^t_{j,r}
        - \frac{\eta\|\mu\|^2}{nm}\sum_i \ell'_i\,\tilde y_i y_i\,\sigma'(\langle w^t_{j,r}, y_i\mu\rangle),
    \quad
    \rho^{t+1}_{j,r,i} = \rho^t_{j,r,i}
        - \frac{\eta\|\xi_i\|^2}{nm}\,\ell'_i\,\tilde y_i\, j\,\sigma'(\langle w^t_{j,r}, \xi_i\rangle),

with :math:`\ell'_i = \ell'(\tilde y_i f(W^t, x_i))` and :math:`\gamma^0 = \rho^0 = 0` (the coefficients are
unique since :math:`\mu, \xi_1, \dots, \xi_n` are independent almost surely when :math:`n < d`).

Exact reduced dynamics (the fast path, :func:`train`, :func:`reduced_trajectory`)
---------------------------------------------------------------------------------
The loss needs only :math:`a_{j,r} = \langle w_{j,r}, \mu\rangle` and :math:`b_{j,r,i} = \langle w_{j,r}, \xi_i\rangle`:

.. math::
    a = a^0 + j\gamma + \sum_i \rho_i \frac{\langle \xi_i, \mu\rangle}{\|\xi_i\|^2},\qquad
    b_k = b^0_k + j\gamma\frac{\langle\mu, \xi_k\rangle}{\|\mu\|^2}
        + \sum_i \rho_i \frac{\langle\xi_i, \xi_k\rangle}{\|\xi_i\|^2},

so the trajectory is exact in the :math:`n + 2m` coordinates :math:`(\gamma, \rho)`, and :math:`d` enters only
through the joint Gram matrix of :math:`(P w^0_{j,r}, P\xi_i)`, :math:`P = I - e_1e_1^\top`: the
:math:`K = 2m + n` vectors are independent Gaussians in the :math:`(d-1)`-dimensional range of
:math:`P`, so writing them :math:`Z\,\mathrm{diag}(s)` with :math:`Z \in \mathbb R^{(d-1)\times K}` standard,
:math:`Z = QR` where :math:`Q` is a Haar frame independent of the Bartlett factor :math:`R`
(:math:`\min(d-1, K) \times K` upper trapezoidal, :math:`R_{kk} = \sqrt{\chi^2_{d-k}}` for
:math:`k = 1, 2, \dots`, entries above the diagonal :math:`\mathcal N(0,1)`), and the Gram matrix is
:math:`\mathrm{diag}(s) R^\top R\, \mathrm{diag}(s)` — a Wishart matrix drawn exactly at cost
:math:`O(K^2)`, whatever :math:`d` (:mod:`.wishart`). The :math:`e_1` components (:math:`g` of :math:`w^0`, :math:`h` of
:math:`\xi`, the latter used only with ``project=False``) are drawn separately.

The literal path (:func:`literal_trajectory`) is fed the SAME objects: it draws the Haar frame
:math:`Q`, builds :math:`w^0_{j,r} = \sigma_0(g_{j,r} e_1 + Q R_{:,(j,r)})` and
:math:`\xi_i = \sigma_\xi(h_i e_1 + Q R_{:,i})` in :math:`\mathbb R^d` (exactly the Gaussian model), runs
autograd GD on the CNN, and recovers :math:`(\gamma, \rho)` by least squares on
:math:`(\mu, \xi_1, \dots, \xi_n)`. The two agree to float64 rounding
(``tests/systems/test_signal_noise_model.py``: relative error below :math:`10^{-10}` on
:math:`\gamma`, :math:`\rho` and :math:`f(x_i)` over 40 steps, :math:`q = 1, 2, 3`, with and without label
noise and projection).

Test error (exact in distribution)
----------------------------------
For a fresh test point :math:`(y, \xi)`, :math:`y = \pm1` with probability 1/2, the vector
:math:`Z_{j,r} = \langle w_{j,r}, \xi\rangle` is exactly :math:`\mathcal N(0, \sigma_\xi^2 M^\top M)`, where the
columns of :math:`M` are the coordinates of :math:`P w_{j,r}` in the frame :math:`Q` (plus, with
``project=False``, a row of :math:`e_1` coordinates) — computable from :math:`(\gamma, \rho)` and the draw.
With :math:`M = \tilde Q \tilde R` (QR, :math:`\tilde R` with positive diagonal, i.e. the Cholesky factor
of :math:`M^\top M`, continuous in the state), :math:`Z = \sigma_\xi\,\varepsilon \tilde R` for
``n_test`` fixed standard normal rows :math:`\varepsilon` of the seed, and the test error is the exact
average over both labels,
:math:`\frac12\big[\Pr(f(+1, Z) \le 0) + \Pr(f(-1, Z) \ge 0)\big]`, estimated on those rows (common random
numbers across :math:`\|\mu\|`, so a bisection in :math:`\|\mu\|` sees a smooth curve per seed).

The ``"radial"`` estimator (``SignalNoiseConfig.test_estimator``) averages the same probability
conditionally on each row's direction: write :math:`\varepsilon = r u` with :math:`|u| = 1`, :math:`r^2 \sim
\chi^2_k` independent of :math:`u`. :math:`\sigma = \mathrm{ReLU}^q` is positively homogeneous of degree
:math:`q`, so the noise output is :math:`r^q N(u)` and an error event :math:`r^q A + B \le 0` (:math:`A = N(u)`,
:math:`B` the signal output, or both negated for :math:`y = -1`) has the exact conditional probability
:math:`P(\chi^2_k \ge c^2)` with :math:`c = (B/(-A))^{1/q}` when :math:`B > 0 > A` (0 when :math:`B > 0 \le A`;
:math:`1` when :math:`B \le 0` and :math:`A \le 0`; :math:`P(\chi^2_k \le c^2)`, :math:`c = (-B/A)^{1/q}`, when
:math:`B \le 0 < A`). Unbiased for the same test error, with a far smaller variance in the tail: every row
contributes a probability instead of an indicator, so errors of :math:`10^{-8}` are resolved with
:math:`10^5` rows.

Seeds, devices, cost
--------------------
Seeds are the leading dimension of every tensor; seed value ``s`` draws every object from its own CPU
``torch.Generator`` per stream (:func:`~.seeds.stream_generator` of ``(s, "signal-noise", k)`` for ``k`` in
``labels``, ``init``, ``wishart``, ``test``, ``frame``), so a seed's
numbers do not depend on which seeds share the batch nor on the device. A GD step costs
:math:`O(m n^2)` per seed (one batched matrix product), independent of :math:`d`. There is a Python
loop over GD steps only.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .._validation import check_int, check_real
from ..errors import InvalidParameterError, InvalidParameterTypeError
from .backend import NonFiniteError, resolve_device, resolve_dtype
from .data import as_seeds
from .seeds import stream_generator
from .wishart import bartlett_factor, haar_frame

__all__ = [
    "TEST_ESTIMATORS",
    "TRAJECTORY_KEYS",
    "ReducedState",
    "SignalNoiseConfig",
    "SignalNoiseDraw",
    "SignalNoiseRun",
    "activation_power",
    "draw",
    "literal_trajectory",
    "positive_diagonal",
    "record_cells",
    "reduced_trajectory",
    "relu_power",
    "relu_power_derivative",
    "run_records",
    "snr",
    "train",
]

_ACTIVATION = re.compile(r"^relu(?:\(z\))?(?:\s*(?:\*\*|\^)\s*(\d+))?$")


def activation_power(activation: str | int) -> int:
    r"""The power :math:`q` of :math:`\sigma = \mathrm{ReLU}^q` from ``"relu"``, ``"relu(z)**3"``, ``"relu^2"`` or an
    int.

    >>> activation_power("relu"), activation_power("relu(z)**3"), activation_power(2)
    (1, 3, 2)
    """
    if isinstance(activation, numbers.Integral) and not isinstance(activation, bool):
        return check_int(activation, "activation", minimum=1, maximum=8)
    if not isinstance(activation, str):
        raise InvalidParameterTypeError(
            f"The 'activation' parameter must be a string such as 'relu' or 'relu(z)**3'. Got {activation!r} of type "
            f"{type(activation).__name__} instead."
        )
    match = _ACTIVATION.match(activation.replace(" ", ""))
    if match is None or (match.group(1) is not None and not 1 <= int(match.group(1)) <= 8):
        raise InvalidParameterError(
            "The 'activation' parameter must be 'relu' or 'relu(z)**q' with an integer 1 <= q <= 8 (the CNN of "
            f"Cao et al. 2022 uses ReLU^q). Got {activation!r} instead."
        )
    return int(match.group(1) or 1)


def snr(mu_norm: float, sigma_xi: float, d: int) -> float:
    r"""Signal-to-noise ratio :math:`\|\mu\| / (\sigma_\xi \sqrt d)`.

    >>> snr(2.0, 0.5, 16)
    1.0
    """
    return mu_norm / (sigma_xi * math.sqrt(d))


# ----------------------------------------------------------------------------------------------- draws


def _generator(seed: int, stream: str) -> torch.Generator:
    """The CPU generator of one stream of this data model (:func:`~.seeds.stream_generator`)."""
    return stream_generator(seed, "signal-noise", stream)


@dataclass(frozen=True)
class SignalNoiseDraw:
    r"""Every random object of a batch of seeds, in standardised form (independent of :math:`\|\mu\|`,
    :math:`\sigma_\xi`, :math:`\sigma_0`, so one draw serves a whole bisection in :math:`\|\mu\|`).

    Attributes
    ----------
    seeds : tuple of int
    n, d, width : int
        Samples, ambient dimension, neurons per class :math:`m`.
    label_noise : float
        :math:`\tau`.
    y, y_obs : torch.Tensor, shape (seeds, n)
        True and observed labels (float, ±1).
    flipped : torch.Tensor, shape (seeds, n)
        ``y_obs != y`` (bool).
    init_e1 : torch.Tensor, shape (seeds, 2m)
        :math:`e_1` coordinates :math:`g` of :math:`w^0/\sigma_0`, neurons ordered :math:`(+1, 1..m), (-1, 1..m)`.
    noise_e1 : torch.Tensor, shape (seeds, n)
        :math:`e_1` coordinates :math:`h` of :math:`\xi_i/\sigma_\xi` (used only with ``project=False``).
    bartlett : torch.Tensor, shape (seeds, min(d-1, 2m+n), 2m+n)
        Bartlett factor of the standardised vectors :math:`(Pw^0_{j,r}/\sigma_0, P\xi_i/\sigma_\xi)`.
    test_normals : torch.Tensor, shape (seeds, n_test, 2m)
        Standard normals of the test-error estimate.
    """

    seeds: tuple[int, ...]
    n: int
    d: int
    width: int
    label_noise: float
    y: torch.Tensor
    y_obs: torch.Tensor
    flipped: torch.Tensor
    init_e1: torch.Tensor
    noise_e1: torch.Tensor
    bartlett: torch.Tensor
    test_normals: torch.Tensor

    def test_directions(self, rows: int, radial: bool, scale: float) -> torch.Tensor:
        r"""``scale`` times the first ``rows`` coordinates of :attr:`test_normals`, each row divided by its norm when
        ``radial`` (the test-error estimate's draws, module docstring), shape (seeds, n_test, rows). The last one
        asked is kept on the draw (not a field): every test error of a run, and of a sweep of :math:`\|\mu\|` on
        this draw, asks the same."""
        key = (rows, radial, scale)
        kept = self.__dict__.get("_test_directions")
        if kept is None or kept[0] != key:
            eps = self.test_normals[..., :rows]
            kept = (key, scale * (eps / eps.norm(dim=-1, keepdim=True) if radial else eps))
            object.__setattr__(self, "_test_directions", kept)  # a cache, not a field: frozen fields unchanged
        return kept[1]

    @property
    def sign(self) -> torch.Tensor:
        """The second-layer sign :math:`j` of each neuron, shape (2m,)."""
        m = self.width
        return torch.cat([torch.ones(m), -torch.ones(m)]).to(self.y)

    def frame(self) -> torch.Tensor:
        r"""Haar orthonormal frame :math:`Q`, shape (seeds, d-1, min(d-1, 2m+n)) — the only object of the
        literal path that the fast path never needs (QR of a Gaussian matrix, signs fixed so the
        factor's diagonal is positive, which makes :math:`Q` Haar)."""
        rows = self.bartlett.shape[-2]
        # one generator per seed: the frame of a seed does not depend on the batch
        frames = [haar_frame(self.d - 1, rows, _generator(seed, "frame")) for seed in self.seeds]
        return torch.stack(frames).to(self.y)


def draw(
    seeds: int | Sequence[int], *, n: int, d: int, width: int, label_noise: float = 0.0, n_test: int = 10_000,
    device: str | torch.device = "auto", dtype: str | torch.dtype = "float64",
) -> SignalNoiseDraw:
    r"""Draw the standardised random objects of a batch of seeds (see :class:`SignalNoiseDraw`).

    Parameters
    ----------
    seeds
        Number of seeds or their values (the leading batch dimension).
    n, d, width
        Training samples (:math:`n \ge 2`), dimension (:math:`d \ge 2`), neurons per class :math:`m`.
    label_noise
        :math:`\tau \in [0, 1/2)`; exactly ``round(τ n)`` labels flipped, half per class.
    n_test
        Test normals per seed.
    device, dtype
        Where the tensors live (``"auto"``: CUDA when present) and their precision.

    Examples
    --------
    >>> dr = draw(2, n=6, d=1_000_000, width=3, label_noise=1 / 3, n_test=8, device="cpu")
    >>> dr.bartlett.shape, dr.y.sum(1).tolist(), dr.flipped.sum(1).tolist()
    (torch.Size([2, 12, 12]), [0.0, 0.0], [2, 2])
    >>> bool((draw([1], n=6, d=1_000_000, width=3, n_test=8, device="cpu").bartlett[0] == dr.bartlett[1]).all())
    True
    """
    seeds = as_seeds(seeds)
    n = check_int(n, "n", minimum=2, caller="signal-noise draw")
    d = check_int(d, "d", minimum=2, caller="signal-noise draw")
    m = check_int(width, "width", minimum=1, caller="signal-noise draw")
    tau = check_real(label_noise, "label_noise", minimum=0.0, maximum=0.5, caller="signal-noise draw")
    n_test = check_int(n_test, "n_test", minimum=1, caller="signal-noise draw")
    flips = round(tau * n)
    n_pos, n_neg = n - n // 2, n // 2
    flips_pos, flips_neg = flips - flips // 2, flips // 2
    if tau >= 0.5 or flips_pos > n_pos or flips_neg > n_neg:
        raise InvalidParameterError(
            f"The 'label_noise' parameter must be in [0, 0.5) with round(label_noise * n) / 2 flips per class. Got "
            f"{label_noise} for n = {n} instead."
        )
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    k = 2 * m + n
    base_y = torch.cat([torch.ones(n_pos), -torch.ones(n_neg)]).double()
    base_flip = torch.cat(
        [torch.arange(n_pos) < flips_pos, torch.arange(n_neg) < flips_neg]
    )
    parts: dict[str, list[torch.Tensor]] = {key: [] for key in ("y", "flip", "g", "h", "r", "t")}
    for seed in seeds:  # per-seed generators: a seed's draws never depend on the batch
        perm = torch.randperm(n, generator=_generator(seed, "labels"))
        parts["y"].append(base_y[perm])
        parts["flip"].append(base_flip[perm])
        init = _generator(seed, "init")
        parts["g"].append(torch.randn(2 * m, generator=init, dtype=torch.float64))
        parts["h"].append(torch.randn(n, generator=init, dtype=torch.float64))
        parts["r"].append(bartlett_factor(d - 1, k, _generator(seed, "wishart")))
        parts["t"].append(torch.randn(n_test, 2 * m, generator=_generator(seed, "test"), dtype=torch.float64))
    y = torch.stack(parts["y"]).to(device=dev, dtype=dt)
    flipped = torch.stack(parts["flip"]).to(dev)
    return SignalNoiseDraw(
        seeds=seeds, n=n, d=d, width=m, label_noise=tau, y=y, y_obs=torch.where(flipped, -y, y), flipped=flipped,
        init_e1=torch.stack(parts["g"]).to(device=dev, dtype=dt),
        noise_e1=torch.stack(parts["h"]).to(device=dev, dtype=dt),
        bartlett=torch.stack(parts["r"]).to(device=dev, dtype=dt),
        test_normals=torch.stack(parts["t"]).to(device=dev, dtype=dt),
    )


# ---------------------------------------------------------------------------------------------- config


#: How the test error averages over the test rows (module docstring).
TEST_ESTIMATORS = ("indicator", "radial")


@dataclass(frozen=True, kw_only=True)
class SignalNoiseConfig:
    r"""Everything but the draw that determines a run (keyword-only).

    Attributes
    ----------
    q : int
        Power of :math:`\sigma = \mathrm{ReLU}^q` (1 is ReLU).
    mu_norm, sigma_xi, sigma0 : float
        :math:`\|\mu\|`, :math:`\sigma_\xi`, :math:`\sigma_0` (all > 0).
    eta : float
        GD step size.
    eps : float
        Stop at the first step with mean training loss :math:`\le` ``eps`` (0: never stop early).
    max_steps : int
        Step limit.
    project : bool
        Noise orthogonal to :math:`\mu` (default, as in Cao et al. 2022 and Kou et al. 2023).
    test_estimator : {"indicator", "radial"}
        How the test error averages over the test rows (module docstring): the fraction of misclassified
        rows (default), or the exact conditional probability given each row's direction (for small errors).

    >>> SignalNoiseConfig(q=1, mu_norm=1.0, sigma_xi=1.0, sigma0=0.01, eta=1.0).eps
    0.01
    """

    q: int
    mu_norm: float
    sigma_xi: float = 1.0
    sigma0: float = 0.01
    eta: float = 1.0
    eps: float = 0.01
    max_steps: int = 5000
    project: bool = True
    test_estimator: str = "indicator"

    def __post_init__(self) -> None:
        where = "SignalNoiseConfig"
        object.__setattr__(self, "q", activation_power(self.q))
        for name in ("mu_norm", "sigma_xi", "sigma0", "eta"):
            object.__setattr__(
                self, name, check_real(getattr(self, name), name, minimum=0.0, strict_minimum=True, caller=where))
        object.__setattr__(self, "eps", check_real(self.eps, "eps", minimum=0.0, caller=where))
        object.__setattr__(self, "max_steps", check_int(self.max_steps, "max_steps", minimum=0, caller=where))
        if not isinstance(self.project, bool):
            raise InvalidParameterTypeError(
                f"The 'project' parameter of {where} must be a bool. Got {self.project!r} instead.")
        if self.test_estimator not in TEST_ESTIMATORS:
            raise InvalidParameterError(f"The 'test_estimator' parameter of {where} must be one of {TEST_ESTIMATORS}. "
                                        f"Got {self.test_estimator!r} instead.")


def relu_power(z: torch.Tensor, q: int) -> torch.Tensor:
    r""":math:`\sigma(z) = \mathrm{ReLU}(z)^q`, the CNN's activation."""
    return torch.relu(z) if q == 1 else torch.relu(z) ** q


def relu_power_derivative(z: torch.Tensor, q: int) -> torch.Tensor:
    r""":math:`\sigma'(z) = q\,\mathrm{ReLU}(z)^{q-1}` (the indicator :math:`z > 0` for :math:`q = 1`)."""
    return (z > 0).to(z) if q == 1 else q * torch.relu(z) ** (q - 1)


@dataclass(frozen=True)
class _Geometry:
    """Inner products the reduced dynamics needs, per seed (see the module docstring)."""

    a0: torch.Tensor  # (S, 2m)     <w0, mu>
    b0: torch.Tensor  # (S, 2m, n)  <w0, xi_i>
    u: torch.Tensor  # (S, n)       <xi_i, mu>
    gram: torch.Tensor  # (S, n, n) <xi_i, xi_k>
    mu_norm: torch.Tensor  # (S,)
    # read at every step (computed once here, by the same operations the steps applied):
    norms: torch.Tensor = field(init=False)  # (S, n)       ||xi_i||^2, the diagonal of gram
    mu_sq: torch.Tensor = field(init=False)  # (S, 1)       ||mu||^2
    u_over_mu_sq: torch.Tensor = field(init=False)  # (S, n)  <xi_i, mu> / ||mu||^2

    def __post_init__(self) -> None:
        object.__setattr__(self, "norms", torch.diagonal(self.gram, dim1=-2, dim2=-1))
        object.__setattr__(self, "mu_sq", self.mu_norm[:, None] ** 2)
        object.__setattr__(self, "u_over_mu_sq", self.u / self.mu_sq)


def _geometry(dr: SignalNoiseDraw, cfg: SignalNoiseConfig, mu_norm: torch.Tensor) -> _Geometry:
    m2 = 2 * dr.width
    rtr = dr.bartlett.transpose(-1, -2) @ dr.bartlett  # (S, K, K) standardised Gram of the P-parts
    s0, sx = cfg.sigma0, cfg.sigma_xi
    b0 = s0 * sx * rtr[:, :m2, m2:]
    gram = sx**2 * rtr[:, m2:, m2:]
    u = torch.zeros_like(dr.noise_e1)
    if not cfg.project:
        h = dr.noise_e1
        b0 = b0 + s0 * sx * dr.init_e1[:, :, None] * h[:, None, :]
        gram = gram + sx**2 * h[:, :, None] * h[:, None, :]
        u = sx * mu_norm[:, None] * h
    return _Geometry(s0 * mu_norm[:, None] * dr.init_e1, b0, u, gram, mu_norm)


def _mu_tensor(dr: SignalNoiseDraw, cfg: SignalNoiseConfig, mu_norm: torch.Tensor | None) -> torch.Tensor:
    if mu_norm is None:
        return torch.full((len(dr.seeds),), cfg.mu_norm).to(dr.y)
    return mu_norm.to(dr.y).expand(len(dr.seeds))


def _inner(dr: SignalNoiseDraw, geo: _Geometry, gamma: torch.Tensor, rho: torch.Tensor):
    """``(a, b)`` of the state ``(gamma (S, 2m), rho (S, 2m, n))``."""
    sign = dr.sign
    rho_t = rho / geo.norms[:, None, :]
    jg = sign * gamma
    a = geo.a0 + jg + (rho_t @ geo.u[:, :, None])[..., 0]
    b = geo.b0 + jg[:, :, None] * geo.u_over_mu_sq[:, None, :] + rho_t @ geo.gram
    return a, b


def _outputs(dr: SignalNoiseDraw, q: int, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Network outputs on the training points, (S, n)."""
    act = relu_power(a[:, :, None] * dr.y[:, None, :], q) + relu_power(b, q)
    return (dr.sign[:, None] * act).sum(1) / dr.width


def _loss(dr: SignalNoiseDraw, f: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.softplus(-dr.y_obs * f).mean(-1)


def _increments(dr, cfg, geo, a, b, f):
    """``(Δγ, Δρ)`` of one GD step at the state with inner products ``(a, b)`` and outputs ``f``."""
    n, m = dr.n, dr.width
    coef = torch.sigmoid(-dr.y_obs * f) * dr.y_obs  # -ℓ'_i ỹ_i, (S, n)
    scale = cfg.eta / (n * m)
    dg = scale * geo.mu_sq * (
        relu_power_derivative(a[:, :, None] * dr.y[:, None, :], cfg.q) @ (coef * dr.y)[:, :, None]
    )[..., 0]
    dr_ = scale * (dr.sign[:, None] * relu_power_derivative(b, cfg.q)) * (coef * geo.norms)[:, None, :]
    return dg, dr_


def reduced_trajectory(
    dr: SignalNoiseDraw, cfg: SignalNoiseConfig, steps: int
) -> dict[str, torch.Tensor]:
    r"""The exact reduced dynamics for ``steps`` GD steps, no early stop: ``gamma`` (steps+1, S, 2m),
    ``rho`` (steps+1, S, 2m, n), ``f`` (steps+1, S, n) (outputs on the training points), ``a``, ``b``.

    >>> dr = draw(1, n=4, d=10**6, width=2, n_test=4, device="cpu")
    >>> traj = reduced_trajectory(dr, SignalNoiseConfig(q=1, mu_norm=50.0, sigma_xi=1e-3, eta=1.0), 3)
    >>> traj["gamma"].shape, traj["rho"].shape
    (torch.Size([4, 1, 4]), torch.Size([4, 1, 4, 4]))
    """
    steps = check_int(steps, "steps", minimum=0, caller="reduced_trajectory")
    geo = _geometry(dr, cfg, _mu_tensor(dr, cfg, None))
    gamma = torch.zeros_like(geo.a0)
    rho = torch.zeros_like(geo.b0)
    out: dict[str, list[torch.Tensor]] = {"gamma": [], "rho": [], "f": [], "a": [], "b": []}
    for t in range(steps + 1):
        a, b = _inner(dr, geo, gamma, rho)
        f = _outputs(dr, cfg.q, a, b)
        for key, val in (("gamma", gamma), ("rho", rho), ("f", f), ("a", a), ("b", b)):
            out[key].append(val)
        if t < steps:
            dg, drho = _increments(dr, cfg, geo, a, b, f)
            gamma, rho = gamma + dg, rho + drho
    return {key: torch.stack(val) for key, val in out.items()}


def literal_trajectory(
    dr: SignalNoiseDraw, cfg: SignalNoiseConfig, steps: int
) -> dict[str, torch.Tensor]:
    r"""Autograd GD on the literal CNN in :math:`\mathbb R^d` built from the same draw (and its Haar
    frame): ``gamma``, ``rho``, ``f`` as :func:`reduced_trajectory`, :math:`(\gamma, \rho)` recovered by
    least squares of :math:`W^t - W^0` on :math:`(\mu, \xi_1, \dots, \xi_n)`. Cost :math:`O(d)` per step —
    for tests at small :math:`d`.

    >>> dr = draw(1, n=4, d=12, width=2, n_test=4, device="cpu")
    >>> cfg = SignalNoiseConfig(q=2, mu_norm=2.0, sigma0=0.1, eta=0.5)
    >>> lit, fast = literal_trajectory(dr, cfg, 3), reduced_trajectory(dr, cfg, 3)
    >>> bool(torch.allclose(lit["f"], fast["f"], rtol=1e-10, atol=0))
    True
    """
    steps = check_int(steps, "steps", minimum=0, caller="literal_trajectory")
    if dr.n + 1 > dr.d:
        raise InvalidParameterError(
            f"The 'd' parameter must exceed n for the literal decomposition to be unique. Got d = {dr.d}, n = {dr.n} "
            "instead."
        )
    m2, sx, s0 = 2 * dr.width, cfg.sigma_xi, cfg.sigma0
    z = dr.frame() @ dr.bartlett  # (S, d-1, K) standard Gaussian vectors
    e1 = lambda col: col[..., None]  # noqa: E731
    w0 = s0 * torch.cat([e1(dr.init_e1), z[:, :, :m2].transpose(1, 2)], dim=-1)  # (S, 2m, d)
    h = torch.zeros_like(dr.noise_e1) if cfg.project else dr.noise_e1
    xi = sx * torch.cat([e1(h), z[:, :, m2:].transpose(1, 2)], dim=-1)  # (S, n, d)
    mu = torch.zeros_like(xi[:, 0])
    mu[:, 0] = cfg.mu_norm
    signal = dr.y[:, :, None] * mu[:, None, :]  # (S, n, d)
    basis = torch.cat([mu[:, :, None] / cfg.mu_norm, (xi / xi.norm(dim=-1, keepdim=True)).transpose(1, 2)], dim=-1)
    pinv = torch.linalg.pinv(basis)  # (S, n+1, d)
    w = w0.clone()
    out: dict[str, list[torch.Tensor]] = {"gamma": [], "rho": [], "f": []}
    for _ in range(steps + 1):
        w.requires_grad_(True)
        pre = torch.cat([signal, xi], dim=1) @ w.transpose(1, 2)  # (S, 2n, 2m)
        act = relu_power(pre, cfg.q)
        f = ((act[:, : dr.n] + act[:, dr.n :]) * dr.sign).sum(-1) / dr.width
        loss = _loss(dr, f)
        (grad,) = torch.autograd.grad(loss.sum(), w)
        with torch.no_grad():
            coef = pinv @ (w - w0).transpose(1, 2)  # (S, n+1, 2m)
            out["gamma"].append(dr.sign * coef[:, 0] * cfg.mu_norm)
            out["rho"].append((coef[:, 1:] * xi.norm(dim=-1)[:, :, None]).transpose(1, 2))
            out["f"].append(f.detach())
            w = (w - cfg.eta * grad).detach()
    return {key: torch.stack(val) for key, val in out.items()}


# -------------------------------------------------------------------------------------------- test error


def _test_error(dr: SignalNoiseDraw, cfg: SignalNoiseConfig, geo: _Geometry, gamma, rho, a) -> torch.Tensor:
    """Exact-in-distribution test error per seed (module docstring), (S,)."""
    m2, sx = 2 * dr.width, cfg.sigma_xi
    rho_t = rho / geo.norms[:, None, :]  # (S, 2m, n)
    r = dr.bartlett
    coords = cfg.sigma0 * r[:, :, :m2] + sx * r[:, :, m2:] @ rho_t.transpose(1, 2)  # (S, rows, 2m)
    if not cfg.project:
        e1 = (cfg.sigma0 * dr.init_e1 + dr.sign * gamma / geo.mu_norm[:, None]
              + sx * (rho_t @ dr.noise_e1[:, :, None])[..., 0])
        coords = torch.cat([coords, e1[:, None, :]], dim=1)
    tri = torch.linalg.qr(coords, mode="r").R  # (S, min(rows, 2m), 2m)
    tri = positive_diagonal(tri)
    radial = cfg.test_estimator == "radial"
    z = dr.test_directions(tri.shape[-2], radial, sx) @ tri  # (S, n_test, 2m)
    noise = relu_power(z, cfg.q).mul_(dr.sign).sum(-1) / dr.width  # (S, n_test); relu_power's result is a new tensor
    sig_pos = (relu_power(a, cfg.q) * dr.sign).sum(-1) / dr.width  # y = +1, (S,)
    sig_neg = (relu_power(-a, cfg.q) * dr.sign).sum(-1) / dr.width  # y = -1
    if not radial:
        wrong = (noise + sig_pos[:, None] <= 0).to(noise) + (noise + sig_neg[:, None] >= 0).to(noise)
    else:
        rows = tri.shape[-2]
        wrong = (_radial_error(noise, sig_pos[:, None], cfg.q, rows)
                 + _radial_error(-noise, -sig_neg[:, None], cfg.q, rows))
    return 0.5 * wrong.mean(-1)


def _radial_error(a: torch.Tensor, b: torch.Tensor, q: int, k: int) -> torch.Tensor:
    r""":math:`P(r^q a + b \le 0)` for :math:`r^2 \sim \chi^2_k` (the ``"radial"`` test-error estimator)."""
    with torch.no_grad():
        ratio = (b.abs() / a.abs().clamp_min(torch.finfo(a.dtype).tiny)).expand_as(a)
        c2 = ratio ** (2 / q) / 2
        need = torch.where(b > 0, a < 0, ~(a <= 0))  # where the result reads P(r >= c) (NaN too): computed there only
        c2 = c2.masked_select(need)
        above = torch.zeros_like(a).masked_scatter_(need, torch.special.gammaincc(torch.full_like(c2, k / 2), c2))
    return torch.where(b > 0, torch.where(a < 0, above, torch.zeros_like(a)),
                       torch.where(a <= 0, torch.ones_like(a), 1 - above))


def positive_diagonal(tri: torch.Tensor) -> torch.Tensor:
    """Flip rows of a triangular factor so its diagonal is non-negative (the Cholesky factor)."""
    diag = torch.diagonal(tri, dim1=-2, dim2=-1)
    return tri * torch.where(diag < 0, -1.0, 1.0).to(tri)[..., None]


# ------------------------------------------------------------------------------------------- training

#: Keys of a trajectory record (one per recorded step).
TRAJECTORY_KEYS = ("step", "train_loss", "test_error", "gamma_max", "rho_max", "flipped_fitted")


@dataclass(frozen=True)
class ReducedState:
    r"""The reduced state :math:`(\gamma, \rho)` at the stop of a run, for a batch of seeds: the fields
    :class:`SignalNoiseRun` (GD) and :class:`~flt_theory.numeric.signal_noise_flow.FlowRun` (its flow) share.

    Attributes
    ----------
    draw, config
        What was run.
    mu_norm : torch.Tensor, shape (seeds,)
        :math:`\|\mu\|` of each seed (a bisection gives each seed its own).
    gamma : torch.Tensor, shape (seeds, 2m)
        :math:`\gamma_{j,r}` at the stop, neurons ordered :math:`(+1, r), (-1, r)`.
    rho : torch.Tensor, shape (seeds, 2m, n)
        :math:`\rho_{j,r,i}` at the stop.
    f : torch.Tensor, shape (seeds, n)
        Outputs on the training points.
    """

    draw: SignalNoiseDraw
    config: SignalNoiseConfig
    mu_norm: torch.Tensor
    gamma: torch.Tensor
    rho: torch.Tensor
    f: torch.Tensor

    @property
    def gamma_max(self) -> torch.Tensor:
        r""":math:`\max_{j,r}\gamma_{j,r}`, (seeds,)."""
        return self.gamma.amax(-1)

    @property
    def rho_max(self) -> torch.Tensor:
        r""":math:`\max_{j,r,i}\rho_{j,r,i}` (the largest :math:`\bar\rho`, noise memorisation), (seeds,)."""
        return self.rho.flatten(1).amax(-1)

    @property
    def flipped_fitted(self) -> torch.Tensor:
        r"""Fraction of the flipped training samples with :math:`\tilde y_i f(x_i) > 0` (0 without flips),
        (seeds,)."""
        return _flipped_fitted(self.draw, self.f)


@dataclass(frozen=True)
class SignalNoiseRun(ReducedState):
    r"""The outcome of :func:`train` for a batch of seeds: the :class:`ReducedState` at the stop and

    Attributes
    ----------
    steps : torch.Tensor, shape (seeds,)
        GD steps taken (the first :math:`t` with :math:`L_S(W^t) \le \varepsilon`, else ``max_steps``).
    train_loss, test_error : torch.Tensor, shape (seeds,)
    trajectory : dict of torch.Tensor, shape (records, seeds), or None
        :data:`TRAJECTORY_KEYS` at every ``record_every``-th step and at the stop (a seed that stopped
        keeps its final values).
    """

    steps: torch.Tensor
    train_loss: torch.Tensor
    test_error: torch.Tensor
    trajectory: dict[str, torch.Tensor] | None = field(default=None, repr=False)


def _flipped_fitted(dr: SignalNoiseDraw, f: torch.Tensor) -> torch.Tensor:
    fitted = ((dr.y_obs * f > 0) & dr.flipped).sum(-1).to(f)
    return fitted / dr.flipped.sum(-1).clamp_min(1).to(f)


def train(
    dr: SignalNoiseDraw, cfg: SignalNoiseConfig, *, mu_norm: torch.Tensor | None = None, record_every: int = 0,
) -> SignalNoiseRun:
    r"""Full-batch GD by the exact reduced dynamics until :math:`L_S \le \varepsilon` or ``max_steps``, per seed.

    Parameters
    ----------
    dr
        The draw (:func:`draw`).
    cfg
        The run's parameters.
    mu_norm
        Per-seed :math:`\|\mu\|`, shape (seeds,), overriding ``cfg.mu_norm`` (used by bisections).
    record_every
        Record the trajectory every that many steps (0: no trajectory).

    Returns
    -------
    SignalNoiseRun

    Raises
    ------
    NonFiniteError
        The dynamics diverged (step size too large for :math:`\|\mu\|^2` or :math:`\sigma_\xi^2 d`).

    Examples
    --------
    >>> dr = draw(2, n=20, d=2000, width=5, n_test=1000, device="cpu")
    >>> cfg = SignalNoiseConfig(q=1, mu_norm=3.0, sigma_xi=0.1, sigma0=0.001, eta=2.0, eps=0.05, max_steps=400)
    >>> run = train(dr, cfg)
    >>> bool((run.train_loss <= 0.05).all()), run.test_error.tolist()
    (True, [0.0, 0.0])
    """
    record_every = check_int(record_every, "record_every", minimum=0, caller="train")
    mu = _mu_tensor(dr, cfg, mu_norm)
    geo = _geometry(dr, cfg, mu)
    gamma, rho = torch.zeros_like(geo.a0), torch.zeros_like(geo.b0)
    active = torch.ones(len(dr.seeds), dtype=torch.bool, device=gamma.device)
    steps = torch.full((len(dr.seeds),), cfg.max_steps, dtype=torch.long, device=gamma.device)
    records: list[dict[str, torch.Tensor]] = []
    for t in range(cfg.max_steps + 1):
        a, b = _inner(dr, geo, gamma, rho)
        f = _outputs(dr, cfg.q, a, b)
        loss = _loss(dr, f)
        done_now = active & (loss <= cfg.eps)
        steps = torch.where(done_now, t, steps)
        active = active & ~done_now
        last = t == cfg.max_steps or not bool(active.any())
        if record_every and (t % record_every == 0 or last):
            records.append({
                "step": torch.where(active | done_now, t, steps).to(loss), "train_loss": loss,
                "test_error": _test_error(dr, cfg, geo, gamma, rho, a), "gamma_max": gamma.amax(-1),
                "rho_max": rho.flatten(1).amax(-1), "flipped_fitted": _flipped_fitted(dr, f),
            })
        if last:
            break
        dg, drho = _increments(dr, cfg, geo, a, b, f)
        keep = active.to(dg)
        gamma, rho = gamma + keep[:, None] * dg, rho + keep[:, None, None] * drho
    if not bool(torch.isfinite(loss).all() & torch.isfinite(rho).all()):
        raise NonFiniteError(
            "the signal-noise GD diverged (NaN or infinite values); lower 'eta' below about "
            "n m / (sigma_xi^2 d) and m / ||mu||^2"
        )
    trajectory = None
    if records:
        trajectory = {key: torch.stack([rec[key] for rec in records]) for key in TRAJECTORY_KEYS}
        trajectory = _freeze_finished(trajectory)
    return SignalNoiseRun(
        draw=dr, config=cfg, mu_norm=mu, gamma=gamma, rho=rho, f=f, steps=steps, train_loss=loss,
        test_error=_test_error(dr, cfg, geo, gamma, rho, a), trajectory=trajectory,
    )


def _freeze_finished(trajectory: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A stopped seed's records repeat its stopping step's values (its state no longer changes)."""
    return trajectory


def run_records(
    *, activation: str | int = "relu", n: int, d: int, width: int = 10, mu_norm: float, sigma_xi: float = 1.0,
    sigma0: float = 0.01, eta: float = 1.0, eps: float = 0.01, max_steps: int = 5000, label_noise: float = 0.0,
    seeds: int | Sequence[int] = 1, n_test: int = 10_000, project: bool = True, trajectory: bool = False,
    record_every: int = 1, device: str | torch.device = "auto", dtype: str | torch.dtype = "float64",
) -> list[dict[str, Any]]:
    r"""One record per seed (the JSON contract of ``flt simulate signal-noise``): ``n, d, width, q, mu_norm,
    snr, eta, label_noise, seed, steps, train_loss, test_error, gamma_max, rho_max, flipped_fitted`` and,
    with ``trajectory``, ``"trajectory"``: a list of ``{step, train_loss, test_error, gamma_max, rho_max,
    flipped_fitted}`` every ``record_every`` steps and at the stop.

    >>> recs = run_records(n=20, d=10**6, width=4, mu_norm=100.0, sigma0=1e-5, eta=0.01, eps=0.05, seeds=2,
    ...                    n_test=500, trajectory=True, record_every=10, device="cpu")
    >>> [r["seed"] for r in recs], sorted(recs[0]["trajectory"][0])[:3], recs[0]["test_error"]
    ([0, 1], ['flipped_fitted', 'gamma_max', 'rho_max'], 0.0)
    """
    dr = draw(seeds, n=n, d=d, width=width, label_noise=label_noise, n_test=n_test, device=device, dtype=dtype)
    cfg = SignalNoiseConfig(
        q=activation_power(activation), mu_norm=mu_norm, sigma_xi=sigma_xi, sigma0=sigma0, eta=eta, eps=eps,
        max_steps=max_steps, project=project,
    )
    every = check_int(record_every, "record_every", minimum=1, caller="run_records")
    run = train(dr, cfg, record_every=every if trajectory else 0)
    tensors = {
        "steps": run.steps, "train_loss": run.train_loss, "test_error": run.test_error, "gamma_max": run.gamma_max,
        "rho_max": run.rho_max, "flipped_fitted": run.flipped_fitted,
    }
    cols = {key: val.detach().cpu().tolist() for key, val in tensors.items()}
    traj = None if run.trajectory is None else {k: v.detach().cpu().tolist() for k, v in run.trajectory.items()}
    records = []
    for s, seed in enumerate(dr.seeds):
        rec: dict[str, Any] = {
            "n": dr.n, "d": dr.d, "width": dr.width, "q": cfg.q, "mu_norm": cfg.mu_norm,
            "snr": snr(cfg.mu_norm, cfg.sigma_xi, dr.d), "sigma_xi": cfg.sigma_xi, "sigma0": cfg.sigma0, "eta": cfg.eta,
            "eps": cfg.eps, "label_noise": dr.label_noise, "project": cfg.project, "seed": seed,
            **{key: (int(val[s]) if key == "steps" else float(val[s])) for key, val in cols.items()},
        }
        if traj is not None:
            steps_s = [int(x[s]) for x in traj["step"]]
            keep = [k for k in range(len(steps_s)) if k == 0 or steps_s[k] != steps_s[k - 1]]
            rec["trajectory"] = [
                {key: (steps_s[k] if key == "step" else float(traj[key][k][s])) for key in TRAJECTORY_KEYS}
                for k in keep
            ]
        records.append(rec)
    return records


def record_cells(records: Sequence[dict], keys: Sequence[str]) -> list[list[str]]:
    """The cells of a text table of run records (one row per record, the columns ``keys``): floats to 4
    significant digits, everything else as ``str`` — the table of ``flt simulate`` for the systems on this data.

    >>> record_cells([{"seed": 0, "test_error": 0.123456}], ["seed", "test_error"])
    [['0', '0.1235']]
    """
    return [[f"{r[k]:.4g}" if isinstance(r[k], float) else str(r[k]) for k in keys] for r in records]
