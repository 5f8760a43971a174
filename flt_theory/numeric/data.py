r"""Gaussian data :math:`x \sim \mathcal N(0, I_d)` and teacher directions, for a batch of seeds.

Seeds are a leading batch dimension: every tensor of this package has shape ``(seeds, …)`` and
row ``s`` depends on the seed value ``seeds[s]`` only, never on which other seeds share the batch.

Seed contract (reproducibility)
-------------------------------
Every random draw is named by a *stream* (a short string: ``"teacher"``, ``"init"``, ``"step0"``,
``"ridge"``, ``"test"``, …). The draw of seed value ``s`` on stream ``k`` comes from a
``torch.Generator`` on the target device seeded with :func:`~.seeds.fold_in`\ ``(s, k, b)``, where ``b`` is a
block index: Gaussian samples are produced in blocks of ``B =`` :data:`BLOCK_ROWS`\ ``[device type]``
rows (1024 on the CPU, 16384 on CUDA, where a kernel launch per small block would dominate), block
``b`` holding samples ``b·B … (b+1)·B − 1``. Hence

* same (seed, stream, d, dtype, device) ⇒ bitwise-identical samples, whatever the chunk size used to
  consume them and whatever other seeds are batched alongside;
* streams are independent of one another (fresh data at each giant step), and ``n`` only decides
  how many samples of the stream are used (a smaller ``n`` reads a prefix).

Numbers differ between CPU and CUDA (different generator algorithms) and between float32 and
float64. Blocks are drawn one ``torch.randn`` call per (seed, block) — the price of streams that do not
depend on the batch — on a thread pool on the CPU (torch's CPU sampler is serial; the pool's size is
decided with torch's thread count in :mod:`.backend`) and queued in order on CUDA; all arithmetic is
batched.
"""

from __future__ import annotations

import numbers
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import torch

from .._validation import check_int
from ..errors import InvalidParameterError, InvalidParameterTypeError
from .backend import resolve_device, resolve_dtype, sampler_workers
from .seeds import fold_in

__all__ = ["BLOCK_ROWS", "as_seeds", "default_chunk_size", "gaussian_chunks", "seeded_normal", "teacher_directions"]

#: Rows per random block, per device type, the unit in which sample streams are generated (seed contract).
BLOCK_ROWS = {"cpu": 1024, "cuda": 16384}

#: Default budget of one chunk's inputs and pre-activations, in tensor elements, per device type:
#: on the CPU small enough to stay in cache between the elementwise passes (8 MB in float32), on CUDA
#: large enough to fill the device (128 MB).
CHUNK_ELEMENTS = {"cpu": 2**21, "cuda": 2**25}


def as_seeds(seeds: int | Sequence[int]) -> tuple[int, ...]:
    """Seed values from ``seeds``: an int ``k`` means the ``k`` seeds ``0, …, k−1``; a sequence
    lists the seed values (non-negative ints; repeats allowed).

    >>> as_seeds(3), as_seeds([7, 11])
    ((0, 1, 2), (7, 11))
    """
    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, bool):
        return tuple(range(check_int(seeds, "seeds", minimum=1)))
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence):
        raise InvalidParameterTypeError(
            f"The 'seeds' parameter must be an int (number of seeds) or a sequence of ints. Got {seeds!r} instead."
        )
    values = tuple(check_int(s, "seeds", minimum=0, maximum=2**63 - 1) for s in seeds)
    if not values:
        raise InvalidParameterError("The 'seeds' parameter must contain at least one seed. Got [] instead.")
    return values


_LOCAL = threading.local()
_POOLS: dict[int, ThreadPoolExecutor] = {}


def _generator(device: torch.device) -> torch.Generator:
    """This thread's generator for ``device`` (reseeded for every block, so which thread draws a
    block never changes its numbers)."""
    cache = _LOCAL.__dict__.setdefault("generators", {})
    if device not in cache:
        cache[device] = torch.Generator(device=device)
    return cache[device]


def _draw(task: tuple[torch.Tensor, int, str, int]) -> None:
    out, seed, stream, block = task
    gen = _generator(out.device)
    gen.manual_seed(fold_in(seed, stream, block))
    torch.randn(out.shape, generator=gen, out=out, device=out.device, dtype=out.dtype)


def _draw_all(tasks: list[tuple[torch.Tensor, int, str, int]]) -> None:
    """Fill every ``(out, seed, stream, block)`` in place. On the CPU the (serial) torch sampler
    runs on a pool of :func:`~.backend.sampler_workers` threads; on CUDA kernels are queued in order."""
    threads = sampler_workers()
    if len(tasks) < 2 or threads < 2 or tasks[0][0].device.type != "cpu":
        for task in tasks:
            _draw(task)
        return
    if threads not in _POOLS:
        _POOLS[threads] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="flt-rng")
    for _ in _POOLS[threads].map(_draw, tasks):
        pass


def seeded_normal(
    seeds: int | Sequence[int],
    shape: tuple[int, ...],
    stream: str,
    *,
    device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float32",
) -> torch.Tensor:
    """Standard normal tensor of shape ``(seeds, *shape)``, row ``s`` drawn from the generator of
    (``seeds[s]``, ``stream``) — see the module's seed contract.

    >>> x = seeded_normal([0, 5], (2, 3), "demo", device="cpu")
    >>> x.shape, bool((seeded_normal([5], (2, 3), "demo", device="cpu")[0] == x[1]).all())
    (torch.Size([2, 2, 3]), True)
    """
    seeds = as_seeds(seeds)
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    out = torch.empty((len(seeds), *shape), device=dev, dtype=dt)
    _draw_all([(row, seed, stream, 0) for row, seed in zip(out, seeds)])
    return out


def default_chunk_size(n_seeds: int, d: int, p: int = 0, device: str | torch.device = "auto") -> int:
    """A chunk size (a multiple of the device's :data:`BLOCK_ROWS`) keeping one chunk's inputs and
    pre-activations, ``n_seeds · chunk · (d + p)`` elements, near :data:`CHUNK_ELEMENTS`.

    >>> default_chunk_size(2, 512, 256, "cpu")
    1024
    """
    kind = resolve_device(device).type
    block = BLOCK_ROWS[kind]
    return max(block, CHUNK_ELEMENTS[kind] // max(1, n_seeds * (d + p)) // block * block)


def gaussian_chunks(
    seeds: int | Sequence[int],
    n: int,
    d: int,
    stream: str,
    *,
    chunk_size: int | None = None,
    reuse_buffer: bool = False,
    device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float32",
) -> Iterator[torch.Tensor]:
    r"""Iterate over the first ``n`` samples :math:`x \sim \mathcal N(0, I_d)` of ``stream``, in
    chunks of shape ``(seeds, chunk, d)`` with ``chunk <= chunk_size`` (the last may be shorter).

    Memory is :math:`O(\text{seeds} \cdot (\text{chunk\_size} + \text{BLOCK\_ROWS}) \cdot d)`,
    independent of ``n``; the samples do not depend on ``chunk_size`` (module docstring).

    Parameters
    ----------
    seeds
        Number of seeds, or the seed values (see :func:`as_seeds`).
    n, d
        Number of samples and input dimension.
    stream
        Name of the random stream (use a different one for every fresh batch).
    chunk_size
        Rows per chunk; default :func:`default_chunk_size`.
    reuse_buffer
        Yield the same tensor every time, overwritten by the next chunk (saves an allocation and
        its page faults per chunk; for consumers that do not keep chunks, like the training loop).
    device, dtype
        See :func:`~flt_theory.numeric.backend.resolve_device` / ``resolve_dtype``.

    Examples
    --------
    >>> chunks = list(gaussian_chunks(2, 10, 3, "demo", chunk_size=4, device="cpu"))
    >>> [tuple(c.shape) for c in chunks]
    [(2, 4, 3), (2, 4, 3), (2, 2, 3)]
    >>> whole = next(gaussian_chunks(2, 10, 3, "demo", chunk_size=100, device="cpu"))
    >>> bool((torch.cat(chunks, dim=1) == whole).all())
    True
    """
    seeds = as_seeds(seeds)
    n = check_int(n, "n", minimum=1, caller="gaussian_chunks")
    d = check_int(d, "d", minimum=1, caller="gaussian_chunks")
    if not isinstance(stream, str):
        raise InvalidParameterTypeError(f"The 'stream' parameter must be a str. Got {stream!r} instead.")
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    size = (
        default_chunk_size(len(seeds), d, 0, dev)
        if chunk_size is None
        else check_int(chunk_size, "chunk_size", minimum=1)
    )
    return _chunk_iterator(seeds, n, d, stream, min(size, n), bool(reuse_buffer), dev, dt)


def _chunk_iterator(
    seeds: tuple[int, ...], n: int, d: int, stream: str, size: int, reuse: bool, device: torch.device,
    dtype: torch.dtype,
) -> Iterator[torch.Tensor]:
    rows = BLOCK_ROWS[device.type]
    cache: torch.Tensor | None = None  # the block split by a chunk boundary
    cached = -1
    buffer = torch.empty((len(seeds), size, d), device=device, dtype=dtype) if reuse else None
    for start in range(0, n, size):
        stop = min(n, start + size)
        chunk = (
            buffer
            if buffer is not None and stop - start == size  # not None: ``reuse``
            else torch.empty((len(seeds), stop - start, d), device=device, dtype=dtype)
        )
        tasks = []
        for block in range(start // rows, (stop - 1) // rows + 1):
            lo, hi = max(start, block * rows), min(stop, (block + 1) * rows)
            if hi - lo == rows:  # a whole block: drawn in place
                tasks += [(chunk[i, lo - start : hi - start], s, stream, block) for i, s in enumerate(seeds)]
                continue
            if cached != block:
                if cache is None:
                    cache = torch.empty((len(seeds), rows, d), device=device, dtype=dtype)
                _draw_all(tasks + [(cache[i], s, stream, block) for i, s in enumerate(seeds)])
                tasks, cached = [], block
            assert cache is not None  # drawn when ``cached`` was set
            chunk[:, lo - start : hi - start] = cache[:, lo - block * rows : hi - block * rows]
        _draw_all(tasks)
        yield chunk


def teacher_directions(
    seeds: int | Sequence[int],
    d: int,
    r: int,
    *,
    basis: str = "random",
    device: str | torch.device = "auto",
    dtype: str | torch.dtype = "float32",
) -> torch.Tensor:
    r"""Orthonormal teacher directions :math:`W^* = (w^*_1, \dots, w^*_r)`, shape ``(seeds, r, d)``.

    ``basis="random"``: the first :math:`r` columns of a Haar rotation, :math:`Q` of the QR
    decomposition of a :math:`d \times r` Gaussian matrix with the signs of :math:`\operatorname{diag} R`
    made positive (stream ``"teacher"``). ``basis="canonical"``: :math:`w^*_k = e_k`.

    >>> w = teacher_directions(2, 5, 2, device="cpu", dtype="float64")
    >>> w.shape, bool(torch.allclose(w @ w.transpose(-1, -2), torch.eye(2, dtype=w.dtype)))
    (torch.Size([2, 2, 5]), True)
    """
    seeds = as_seeds(seeds)
    d = check_int(d, "d", minimum=1, caller="teacher_directions")
    r = check_int(r, "r", minimum=1, maximum=d, caller="teacher_directions")
    dev, dt = resolve_device(device), resolve_dtype(dtype)
    if basis == "canonical":
        return torch.eye(r, d, device=dev, dtype=dt).expand(len(seeds), r, d).clone()
    if basis != "random":
        raise InvalidParameterError(f"The 'basis' parameter must be 'random' or 'canonical'. Got {basis!r} instead.")
    q, upper = torch.linalg.qr(seeded_normal(seeds, (d, r), "teacher", device=dev, dtype=dt))
    signs = torch.sign(torch.diagonal(upper, dim1=-2, dim2=-1))
    signs = torch.where(signs == 0, torch.ones_like(signs), signs)
    return (q * signs[:, None, :]).transpose(-1, -2).contiguous()
