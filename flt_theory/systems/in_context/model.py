r"""In-context learning, two models batched over seeds (torch only).

(a) Concepts and semantics (Bu, Huang, Han, Nitanda, Suzuki, Zhang, Wong 2024, "Provably transformers harness
multi-concept word semantics for efficient in-context learning", arXiv 2411.02199)
-------------------------------------------------------------------------------------------------------------
Per seed, orthonormal dictionaries :math:`a_k, b_k \in \mathbb R^D` and :math:`c_k, d_k \in \mathbb R^D`,
:math:`k \in [K]` (rows of a Haar frame). A prompt samples a concept :math:`k` and labels
:math:`y_1, \dots, y_L, y_q \in \{\pm1\}`; :math:`x_\ell = a_k + y_\ell b_k + \xi_\ell`, label vectors
:math:`\mathbf y_\ell = c_k + y_\ell d_k + \xi'_\ell`, query :math:`x_q = a_k + y_q b_k + \xi`, noise
:math:`\mathcal N(0, \sigma^2 I_D)`. With the slide's parameterisation (:math:`W_Q, W_K` act on the
:math:`x`-part only, :math:`W_V` picks the label part, :math:`W_O = (0, w_O^y)`) the network is

.. math::
    f(H) = \frac1m\sum_{r=1}^m r_r\,\mathrm{ReLU}\big(\langle w_{O,r}, z\rangle\big), \qquad
    z = \sum_{\ell=1}^L \mathbf y_\ell\,\mathrm{softmax}_\ell\big(x_\ell^\top W_K^\top W_Q x_q\big),

with fixed :math:`r_r = \pm1` (half each), logistic (binary cross-entropy) loss on :math:`y_q`, trained by
SGD on fresh prompts (``batch`` per step, the expected loss) from :math:`W_Q, W_K, w_{O,r} \sim
\mathcal N(0, 1/D)`. Out-of-distribution prompts recombine a concept with another concept's semantics:
:math:`x_\ell = a_k + y_\ell b_{k'} + \xi_\ell`, :math:`\mathbf y_\ell = c_k + y_\ell d_{k'} + \xi'_\ell`,
:math:`k' \ne k` (never seen in training).

Measured per seed (changes from initialisation, so the random initial entries of order :math:`1/\sqrt D` do
not enter): :math:`\Delta^Q_{aa} = \frac1K\sum_k|a_k^\top(W_Q - W_Q^0)a_k|`, :math:`\Delta^Q_{bb}`,
:math:`\Delta^K_{aa}`, :math:`\Delta^K_{bb}` likewise; ``concept_ratio`` :math:`= (\Delta^Q_{aa} +
\Delta^K_{aa})/(\Delta^Q_{bb} + \Delta^K_{bb})`; :math:`\Delta^O_c = \frac1{mK}\sum_{r,k}|\langle w_{O,r} -
w^0_{O,r}, c_k\rangle|`, :math:`\Delta^O_d`; test errors in and out of distribution.

(b) Nonparametric ICL with a mean-field feature map (Kim, Suzuki 2024, "Transformers learn nonlinear features
in context: nonconvex mean-field dynamics on the attention landscape", arXiv 2402.01258)
------------------------------------------------------------------------------------------------------------
Tasks :math:`F_\beta(x) = \beta^\top f^\circ(x)`, :math:`x \sim \mathcal N(0, I_d)`, common features
:math:`f^\circ_j(x) = \mathrm{ReLU}(u_j^\top x) - 1/\sqrt{2\pi}` (:math:`u_1..u_k` orthonormal, centred). The
linear-attention predictor with the two-layer feature map :math:`h(x) = \frac1m\sum_r a_r\,\mathrm{ReLU}(w_r^\top x)`
(:math:`a_r \in \mathbb R^k`) in the infinite-prompt limit is

.. math::
    \hat y_q = \mathbb E_x\big[F_\beta(x)\,h(x)^\top\big]\,\Gamma\, h(x_q) = \beta^\top M\Gamma h(x_q),
    \qquad M = \mathbb E_x[f^\circ(x)h(x)^\top],

(:math:`M` estimated on ``context`` fresh points per step). Pretraining on :math:`K` fixed tasks
:math:`\beta_1..\beta_K \sim \mathcal N(0, I_k)` minimises
:math:`\frac1K\sum_i\mathbb E(\beta_i^\top(M\Gamma h(x_q) - f^\circ(x_q)))^2` (Adam on :math:`w, a, \Gamma`;
:math:`\Gamma^0 = I`). The ICL risk on unseen tasks :math:`\beta \sim \mathcal N(0, I_k)` is, relative to
:math:`\mathbb E F_\beta^2`, ``risk_new`` :math:`= \mathbb E\|M\Gamma h(x) - f^\circ(x)\|^2/\mathbb E\|f^\circ(x)\|^2`
(16384 fresh points).

Seeds: every random object of seed ``s`` comes from its own stream (:func:`flt_theory.numeric.data.seeded_normal`,
or a CPU ``torch.Generator`` seeded from ``s`` and the stream for integer draws), so a seed's row does not depend
on the batch. Python loops run over training steps only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ..._validation import check_int
from ...numeric.backend import TensorOptions, resolve_device, to_numpy
from ...numeric.data import as_seeds, seeded_normal
from ...numeric.seeds import stream_generator
from ...runner.params import Param, Params

__all__ = ["CONCEPT_PARAMS", "FEATURE_PARAMS", "concept_rows", "concept_prompts", "features_rows"]

#: The parameters of (a), declared once: the runner's ``in-context/concepts``, ``flt simulate in-context`` and
#: :func:`concept_rows` read them (``dim >= 2 * concepts`` is checked beside them).
CONCEPT_PARAMS = Params(
    Param("concepts", "int", minimum=2, unit="count", help="(a) number of concepts K."),
    Param("dim", "int", minimum=2, unit="count", help="(a) dimension D (>= 2K)."),
    Param("length", "int", minimum=1, unit="count", help="(a) demonstrations per prompt L."),
    Param("width", "int", minimum=2, default=8, unit="count", help="(a) width of the value readout."),
    Param("sigma", "float", minimum=0, default=0.1, help="(a) noise of the demonstrations."),
    Param("lr", "float", minimum=0, exclusive_minimum=True, default=1.0, help="(a) SGD step size."),
    Param("steps", "int", minimum=0, unit="steps", help="(a) SGD steps (batch fresh prompts each)."),
    Param("batch", "int", minimum=1, unit="count", help="(a) fresh prompts per SGD step."),
    Param("n_test", "int", minimum=1, default=2000, unit="count", help="(a) test prompts."),
)

#: The parameters of (b), declared once: the runner's ``in-context/features``, ``flt simulate in-context`` and
#: :func:`features_rows` read them (``d >= k`` is checked beside them).
FEATURE_PARAMS = Params(
    Param("tasks", "int", minimum=1, unit="count", help="(b) number of pretraining tasks K."),
    Param("k", "int", minimum=1, default=4, unit="count", help="(b) relevant directions k."),
    Param("d", "int", minimum=1, default=6, unit="count", help="(b) dimension d (>= k)."),
    Param("width", "int", minimum=1, default=32, unit="count", help="(b) width of the feature map."),
    Param("context", "int", minimum=2, default=256, unit="count", help="(b) context length."),
    Param("steps", "int", minimum=0, unit="steps", help="(b) Adam steps."),
    Param("lr", "float", minimum=0, exclusive_minimum=True, default=0.02, help="(b) Adam step size."),
    Param("n_test", "int", minimum=2, default=16384, unit="count", help="(b) test prompts."),
)

_F64 = torch.float64


def _ints(seeds: tuple[int, ...], shape: tuple[int, ...], high: int, stream: str, device: torch.device) -> torch.Tensor:
    """Uniform integers in ``[0, high)``, shape (S, *shape), one CPU generator per seed and stream."""
    out = [torch.randint(high, shape, generator=stream_generator(seed, stream)) for seed in seeds]
    return torch.stack(out).to(device)


def _frame(seeds: tuple[int, ...], dim: int, stream: str, device: torch.device) -> torch.Tensor:
    """Haar orthonormal rows, (S, dim, dim)."""
    q, r = torch.linalg.qr(seeded_normal(seeds, (dim, dim), stream, device=device, dtype=_F64))
    return (q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))[:, None, :]).transpose(1, 2)


def concept_prompts(dictionary: dict[str, torch.Tensor], seeds: tuple[int, ...], *, batch: int, length: int,
                    sigma: float, stream: str, ood: bool = False) -> tuple[torch.Tensor, ...]:
    r"""``batch`` prompts per seed: ``x`` (S, B, L, D), label vectors ``yv`` (S, B, L, D), query ``xq`` (S, B, D),
    query label ``yq`` (S, B); ``ood`` recombines concept :math:`k` with the semantics of :math:`k' \ne k`."""
    a = dictionary["a"]
    S, K, D = a.shape
    dev = a.device
    k = _ints(seeds, (batch,), K, stream + "/concept", dev)
    k2 = (k + 1 + _ints(seeds, (batch,), K - 1, stream + "/other", dev)) % K if ood else k
    y = _ints(seeds, (batch, length + 1), 2, stream + "/labels", dev).to(_F64) * 2 - 1
    pick = lambda name, kk: torch.gather(dictionary[name], 1, kk[..., None].expand(-1, -1, D))  # noqa: E731
    noise = sigma * seeded_normal(seeds, (2, batch, length + 1, D), stream + "/noise", device=dev, dtype=_F64)
    x = pick("a", k)[:, :, None] + y[..., None] * pick("b", k2)[:, :, None] + noise[:, 0]
    yv = pick("c", k)[:, :, None] + y[..., None] * pick("d", k2)[:, :, None] + noise[:, 1]
    return x[:, :, :length], yv[:, :, :length], x[:, :, length], y[:, :, length]


def _concept_output(params: dict[str, torch.Tensor], x, yv, xq) -> torch.Tensor:
    q = torch.einsum("sbd,sed->sbe", xq, params["wq"])  # W_Q x_q
    keys = torch.einsum("sbld,sed->sble", x, params["wk"])  # W_K x_l
    attention = torch.softmax((keys * q[:, :, None]).sum(-1), -1)
    z = (attention[..., None] * yv).sum(2)
    return (torch.relu(torch.einsum("sbd,smd->sbm", z, params["wo"])) * params["r"]).mean(-1)


def concept_rows(*, concepts: int, dim: int, length: int, width: int = 8, sigma: float = 0.1, lr: float = 1.0,
                 steps: int = 250, batch: int = 64, n_test: int = 2000, seeds: Sequence[int],
                 device: str | torch.device = "auto") -> list[dict[str, float]]:
    r"""Train the transformer of (a) and return one row per seed (module docstring).

    >>> rows = concept_rows(concepts=2, dim=8, length=4, steps=3, batch=8, n_test=50, seeds=[0, 1], device="cpu")
    >>> sorted(rows[0])[:4], 0 <= rows[0]["error_ood"] <= 1
    (['concept_ratio', 'd_aa_k', 'd_aa_q', 'd_bb_k'], True)
    """
    seeds = as_seeds(list(seeds))
    where = "concept_rows"
    K, D, L, m, sigma, lr, steps, batch, n_test = CONCEPT_PARAMS.check(dict(
        concepts=concepts, dim=dim, length=length, width=width, sigma=sigma, lr=lr, steps=steps, batch=batch,
        n_test=n_test), caller=where).values()
    D = check_int(D, "dim", minimum=2 * K, caller=where)
    dev = resolve_device(device)
    fx, fy = _frame(seeds, D, "icl/frame-x", dev), _frame(seeds, D, "icl/frame-y", dev)
    dictionary = {"a": fx[:, :K], "b": fx[:, K:2 * K], "c": fy[:, :K], "d": fy[:, K:2 * K]}
    init = seeded_normal(seeds, (2 * D + m, D), "icl/init", device=dev, dtype=_F64) / math.sqrt(D)
    start = {"wq": init[:, :D], "wk": init[:, D:2 * D], "wo": init[:, 2 * D:]}
    params = {k: v.clone().requires_grad_(True) for k, v in start.items()}
    params["r"] = torch.cat([torch.ones(m - m // 2), -torch.ones(m // 2)]).to(device=dev, dtype=_F64)
    trained = [params["wq"], params["wk"], params["wo"]]
    for t in range(steps):
        x, yv, xq, yq = concept_prompts(dictionary, seeds, batch=batch, length=L, sigma=sigma, stream=f"icl/train{t}")
        loss = torch.nn.functional.softplus(-yq * _concept_output(params, x, yv, xq)).mean(-1).sum()
        grads = torch.autograd.grad(loss, trained)
        with torch.no_grad():
            for p, g in zip(trained, grads, strict=True):
                p -= lr * g
    out: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for name, ood in (("error_id", False), ("error_ood", True)):
            x, yv, xq, yq = concept_prompts(dictionary, seeds, batch=n_test, length=L, sigma=sigma,
                                            stream=f"icl/{name}", ood=ood)
            out[name] = (_concept_output(params, x, yv, xq) * yq <= 0).to(_F64).mean(-1)
        quad = lambda w, v: torch.einsum("ski,sij,skj->sk", v, w, v).abs().mean(-1)  # noqa: E731
        dq, dk, do = (params[k] - start[k] for k in ("wq", "wk", "wo"))
        out.update(d_aa_q=quad(dq, dictionary["a"]), d_bb_q=quad(dq, dictionary["b"]),
                   d_aa_k=quad(dk, dictionary["a"]), d_bb_k=quad(dk, dictionary["b"]),
                   d_oc=torch.einsum("smi,ski->smk", do, dictionary["c"]).abs().mean((1, 2)),
                   d_od=torch.einsum("smi,ski->smk", do, dictionary["d"]).abs().mean((1, 2)))
        out["concept_ratio"] = (out["d_aa_q"] + out["d_aa_k"]) / (out["d_bb_q"] + out["d_bb_k"])
        out["output_both"] = torch.minimum(out["d_oc"], out["d_od"])
    values = {k: to_numpy(v) for k, v in out.items()}
    return [{k: float(v[s]) for k, v in values.items()} for s in range(len(seeds))]


def features_rows(*, tasks: int, k: int = 4, d: int = 6, width: int = 32, context: int = 256, steps: int = 300,
                  lr: float = 0.02, n_test: int = 16384, seeds: Sequence[int],
                  device: str | torch.device = "auto") -> list[dict[str, float]]:
    r"""Pretrain the linear-attention ICL model of (b) on ``tasks`` tasks; per seed the relative ICL risk on
    unseen tasks (``risk_new``) and on the pretraining tasks (``risk_train``).

    >>> rows = features_rows(tasks=2, steps=2, context=64, n_test=256, seeds=[0, 1], device="cpu")
    >>> sorted(rows[0]), rows[0]["risk_new"] > 0
    (['risk_new', 'risk_train'], True)
    """
    seeds = as_seeds(list(seeds))
    where = "features_rows"
    K, k, d, m, context, steps, lr, n_test = FEATURE_PARAMS.check(dict(
        tasks=tasks, k=k, d=d, width=width, context=context, steps=steps, lr=lr, n_test=n_test), caller=where).values()
    d = check_int(d, "d", minimum=k, caller=where)
    dev = resolve_device(device)
    opts = TensorOptions(device=dev, dtype=_F64)
    u = _frame(seeds, d, "icl-features/u", dev)[:, :k].transpose(1, 2)  # (S, d, k)
    beta = seeded_normal(seeds, (K, k), "icl-features/tasks", **opts)
    task_cov = beta.transpose(1, 2) @ beta / K
    offset = 1 / math.sqrt(2 * math.pi)

    def target(x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x @ u) - offset

    w = seeded_normal(seeds, (m, d), "icl-features/w", **opts).requires_grad_(True)
    a = seeded_normal(seeds, (m, k), "icl-features/a", **opts).requires_grad_(True)
    gamma = torch.eye(k, **opts).repeat(len(seeds), 1, 1).requires_grad_(True)

    def errors(xc: torch.Tensor, xq: torch.Tensor) -> torch.Tensor:
        features = torch.relu(xc @ w.transpose(1, 2)) @ a / m
        moment = target(xc).transpose(1, 2) @ features / xc.shape[1]
        query = torch.relu(xq @ w.transpose(1, 2)) @ a / m
        return query @ gamma.transpose(1, 2) @ moment.transpose(1, 2) - target(xq)  # (S, N, k)

    optimiser = torch.optim.Adam([w, a, gamma], lr=lr)
    for t in range(steps):
        x = seeded_normal(seeds, (2, context, d), f"icl-features/step{t}", **opts)
        e = errors(x[:, 0], x[:, 1])
        loss = torch.einsum("sni,sij,snj->s", e, task_cov, e) / context
        optimiser.zero_grad()
        loss.sum().backward()
        optimiser.step()
    with torch.no_grad():
        x = seeded_normal(seeds, (2, n_test, d), "icl-features/test", **opts)
        e, f = errors(x[:, 0], x[:, 1]), target(x[:, 1])
        risk_new = (e**2).sum(-1).mean(-1) / (f**2).sum(-1).mean(-1)
        quad = lambda v: torch.einsum("sni,sij,snj->s", v, task_cov, v)  # noqa: E731
        risk_train = quad(e) / quad(f)
    new, train = to_numpy(risk_new), to_numpy(risk_train)
    return [{"risk_new": float(new[s]), "risk_train": float(train[s])} for s in range(len(seeds))]
