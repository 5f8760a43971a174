r"""A two-layer network trained by full-batch GD in the NTK or the mean-field parameterisation (torch only).

Source: the lazy-vs-rich slide of Han & Huang's AJCAI 2025 feature-learning tutorial
(:math:`\|W(t) - W(0)\|_F = O(1/\sqrt N)` lazy vs :math:`\Omega(1)` with feature learning); the two
parameterisations are Jacot, Gabriel, Hongler 2018 (NTK, arXiv 1806.07572) and Mei, Montanari, Nguyen 2018
(mean field, arXiv 1804.06561); Chizat, Oyallon, Bach 2019 (arXiv 1812.07956) name the lazy regime.

Network. :math:`f(x) = N^{-\alpha}\sum_{i=1}^N a_i\,\sigma(\langle w_i, x\rangle/\sqrt d)` with
:math:`\alpha = 1/2` (``"ntk"``) or :math:`\alpha = 1` (``"mf"``); :math:`w_i \sim \mathcal N(0, I_d)`
(stream ``"init-W"``), :math:`a_i \sim \mathcal N(0, 1)` (stream ``"init-a"``), the same draws in both
parameterisations. Both layers follow full-batch GD on :math:`L = \frac1{2n}\sum_k (f(x_k) - y_k)^2` with step
:math:`\eta_0 N^{2\alpha - 1}` (:math:`\eta_0` for NTK, :math:`\eta_0 N` for mean field), so each neuron moves
:math:`O(N^{\alpha-1})` per step. Gradients in closed form, batched over seeds.

Task. Fixed per seed and shared by every width: :math:`n` inputs :math:`x \sim \mathcal N(0, I_d)` (stream
``"task-x"``) and labels :math:`y = f^*(\langle x, \beta\rangle)` of a single-index target (direction: stream
``"teacher"``).

Observables (per seed): ``abs_change`` :math:`\|W(T) - W(0)\|_F`, ``rel_change``
:math:`\|W(T) - W(0)\|_F/\|W(0)\|_F`, ``per_neuron_change`` :math:`\frac1N\sum_i\|w_i(T) - w_i(0)\|`,
``train_loss`` :math:`L(T)`, ``initial_loss`` :math:`L(0)`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ...numeric.activation import Activation, as_activation
from ...numeric.backend import TensorOptions, check_finite, resolve_device, resolve_dtype
from ...numeric.data import as_seeds, seeded_normal, teacher_directions
from ...numeric.teacher import Teacher
from ...runner.params import Param, Params
from ...symbolic.target import Target

__all__ = ["PARAMETERISATIONS", "PARAMS", "OUTPUT_EXPONENT", "train_two_layer", "training_rows"]


#: Output exponent :math:`\alpha` of :math:`N^{-\alpha}` per parameterisation.
OUTPUT_EXPONENT = {"ntk": 0.5, "mf": 1.0}
PARAMETERISATIONS = tuple(OUTPUT_EXPONENT)

#: The parameters of one training run, declared once (the runner's ``lazy-rich/train``, ``flt simulate lazy-rich``
#: and :func:`train_two_layer` read them).
PARAMS = Params(
    Param("param", "choice", choices=PARAMETERISATIONS, default="ntk", help="Parameterisation."),
    Param("width", "int", minimum=1, maximum=1 << 20, unit="count", help="Width N."),
    Param("steps", "int", minimum=1, maximum=1_000_000, default=200, unit="steps", help="GD steps T."),
    Param("d", "int", minimum=1, default=16, unit="count", help="Input dimension."),
    Param("n", "int", minimum=1, default=64, unit="count", help="Training samples."),
    Param("lr", "float", minimum=0, exclusive_minimum=True, maximum=1e6, default=1.0,
          help="Base learning rate (x N in mean field)."),
    Param("activation", "str", default="tanh", help="Activation, a 1-D function of z."),
    Param("target", "str", default="tanh(2*z)", help="Single-index target link in z."),
)


def train_two_layer(
    seeds: int | Sequence[int],
    *,
    width: int,
    param: str = "ntk",
    d: int = 16,
    n: int = 64,
    steps: int = 200,
    lr: float = 1.0,
    activation: str | Activation = "tanh",
    target: str | Target = "tanh(2*z)",
    device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float64",
) -> dict[str, torch.Tensor]:
    r"""Train one width for ``steps`` GD steps; the observables of the module docstring, each ``(seeds,)``.

    >>> out = train_two_layer(2, width=32, steps=5, device="cpu")
    >>> sorted(out), out["rel_change"].shape
    (['abs_change', 'initial_loss', 'per_neuron_change', 'rel_change', 'train_loss'], torch.Size([2]))
    """
    checked = PARAMS.check(dict(param=param, width=width, d=d, n=n, steps=steps, lr=lr), caller="train_two_layer")
    param, width, d, n, steps, lr = (checked[k] for k in ("param", "width", "d", "n", "steps", "lr"))
    act = as_activation(activation)
    if isinstance(target, str):
        target = Target.from_links([target])
    seeds = as_seeds(seeds)
    opts = TensorOptions(device=resolve_device(device), dtype=resolve_dtype(dtype))
    alpha = OUTPUT_EXPONENT[param]
    out_scale = width ** (-alpha)
    step = lr * width ** (2 * alpha - 1)

    teacher = Teacher(target, teacher_directions(seeds, d, 1, **opts))
    x = seeded_normal(seeds, (n, d), "task-x", **opts) / math.sqrt(d)  # the 1/sqrt(d) of the pre-activation
    y = teacher(x * math.sqrt(d))
    w0 = seeded_normal(seeds, (width, d), "init-W", **opts)
    a = seeded_normal(seeds, (width,), "init-a", **opts)
    w = w0.clone()

    def loss_and_grads(w: torch.Tensor, a: torch.Tensor):
        pre = x @ w.transpose(-1, -2)  # (S, n, N)
        feat = act(pre)
        resid = out_scale * (feat @ a.unsqueeze(-1)).squeeze(-1) - y  # (S, n)
        grad_a = out_scale * (feat.transpose(-1, -2) @ resid.unsqueeze(-1)).squeeze(-1) / n
        grad_w = out_scale * ((resid.unsqueeze(-1) * act.grad(pre)) * a.unsqueeze(-2)).transpose(-1, -2) @ x / n
        return (resid**2).mean(-1) / 2, grad_w, grad_a

    initial, _, _ = loss_and_grads(w, a)
    for _ in range(steps):
        _, grad_w, grad_a = loss_and_grads(w, a)
        w = w - step * grad_w
        a = a - step * grad_a
    final, _, _ = loss_and_grads(w, a)
    check_finite(final, "the training loss", "lower lr")
    delta = w - w0
    abs_change = delta.flatten(-2).norm(dim=-1)
    return {
        "abs_change": abs_change,
        "rel_change": abs_change / w0.flatten(-2).norm(dim=-1),
        "per_neuron_change": delta.norm(dim=-1).mean(-1),
        "train_loss": final,
        "initial_loss": initial,
    }


def training_rows(seeds: Sequence[int], **options) -> list[dict[str, float]]:
    """:func:`train_two_layer` as one dict of floats per seed (the rows the runner stores).

    >>> training_rows([3], width=16, steps=2, device="cpu")[0]["rel_change"] > 0
    True
    """
    out = train_two_layer(list(seeds), **options)
    return [{k: float(v[s]) for k, v in out.items()} for s in range(len(seeds))]
