r"""Two-layer student :math:`\hat f(x) = \frac1p \sum_{i=1}^p a_i\, \sigma(\langle w_i, x\rangle)`.

Mean-field normalisation :math:`1/p` and symmetric initialisation of Dandi, Krzakala, Loureiro, Pesce,
Stephan 2023 (arXiv 2305.18270): :math:`w_i^0 \sim \mathrm{Unif}(\mathbb S^{d-1})`,
:math:`a_i \in \{\pm 1\}` uniform, and for :math:`i \le p/2`: :math:`w_{p/2+i} = w_i`,
:math:`a_{p/2+i} = -a_i`, so that :math:`\hat f \equiv 0` at initialisation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp
import torch

from .._validation import check_int
from ..errors import InvalidParameterError
from .activation import Activation, as_activation
from .data import as_seeds, seeded_normal

__all__ = ["Student"]


@dataclass(frozen=True, eq=False)  # holds tensors: compare their fields explicitly
class Student:
    r"""First-layer weights, second-layer weights and activation of a batch of students.

    Attributes
    ----------
    weights
        :math:`W = (w_1, \dots, w_p)`, shape ``(seeds, p, d)``.
    a
        Second layer :math:`a`, shape ``(seeds, p)``.
    activation
        :math:`\sigma`.

    Examples
    --------
    >>> s = Student.init(2, p=4, d=3, device="cpu")
    >>> s.weights.shape, s.a.shape
    (torch.Size([2, 4, 3]), torch.Size([2, 4]))
    >>> bool(s(torch.randn(2, 5, 3)).abs().max() < 1e-6)
    True
    """

    weights: torch.Tensor
    a: torch.Tensor
    activation: Activation

    def __post_init__(self) -> None:
        w, a = self.weights, self.a
        if w.ndim != 3 or a.shape != w.shape[:2]:
            raise InvalidParameterError(
                f"Student weights must have shape (seeds, p, d) and a shape (seeds, p). Got "
                f"{tuple(w.shape)=} and {tuple(a.shape)=} instead."
            )

    @classmethod
    def init(
        cls,
        seeds: int | Sequence[int],
        p: int,
        d: int,
        activation: str | sp.Expr | Activation = "relu",
        *,
        device: str | torch.device = "auto",
        dtype: str | torch.dtype = "float32",
    ) -> Student:
        """Symmetric initialisation (module docstring); random streams ``"init"`` (directions) and
        ``"init-a"`` (signs) of each seed."""
        seeds = as_seeds(seeds)
        p = check_int(p, "p", minimum=2, caller="Student.init")
        d = check_int(d, "d", minimum=1, caller="Student.init")
        if p % 2:
            raise InvalidParameterError(
                f"The 'p' parameter of Student.init must be an even int >= 2 (symmetric init pairs neuron i "
                f"with neuron p/2+i). Got {p} instead."
            )
        act = as_activation(activation)
        half = seeded_normal(seeds, (p // 2, d), "init", device=device, dtype=dtype)
        half = half / torch.linalg.vector_norm(half, dim=-1, keepdim=True)
        signs = torch.where(seeded_normal(seeds, (p // 2,), "init-a", device=device, dtype=dtype) >= 0, 1.0, -1.0)
        signs = signs.to(half.dtype)
        return cls(torch.cat([half, half], dim=1), torch.cat([signs, -signs], dim=1), act)

    @property
    def p(self) -> int:
        """Width :math:`p`."""
        return self.weights.shape[1]

    def preactivations(self, x: torch.Tensor) -> torch.Tensor:
        r""":math:`\langle w_i, x_\mu\rangle`: ``(seeds, n, d)`` → ``(seeds, n, p)``."""
        return x @ self.weights.transpose(-1, -2)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        r""":math:`\hat f(x)`: ``(seeds, n, d)`` → ``(seeds, n)``."""
        return self.output(self.activation(self.preactivations(x)))

    def output(self, features: torch.Tensor) -> torch.Tensor:
        r""":math:`\frac1p \sum_i a_i \phi_i` from features :math:`\phi = \sigma(Wx)`, ``(seeds, n, p)`` →
        ``(seeds, n)``."""
        return torch.linalg.vecdot(features, self.a.unsqueeze(-2)) / self.p
