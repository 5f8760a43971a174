r"""Seed streams: the one way this project derives the seed of a named random stream.

:func:`fold_in` folds a seed and the words naming a stream (strings, by their CRC-32, and ints) into a new
64-bit seed, as JAX's ``random.fold_in(key, data)`` folds data into a key. The mixing is the SplitMix64
finaliser (Steele, Lea, Flood 2014, "Fast splittable pseudorandom number generators", OOPSLA; the
constants of Vigna's ``splitmix64.c``), applied once per word:

.. math::
    s_0 = 0, \qquad s_{k} = \mathrm{mix}\big((s_{k-1} \oplus w_k) + \mathtt{0x9E3779B97F4A7C15} \bmod 2^{64}\big),

with :math:`w_1` the seed and :math:`w_2, w_3, \dots` the stream's words, and :math:`\mathrm{mix}(z)` the
three xor-shift-multiply rounds of SplitMix64. So a stream's seed depends on (seed, stream) alone: never on
which other seeds share a batch, nor on which other streams were drawn. :func:`stream_generator` is the CPU
``torch.Generator`` of one stream; :func:`~flt_theory.numeric.data.seeded_normal` adds a block index as a
third word.

Note: torch's CPU generator (mt19937) keeps only the low 32 bits of its seed; CUDA's (Philox) keeps all 64.
"""

from __future__ import annotations

import numbers
import zlib

import torch

from ..errors import InvalidParameterTypeError

__all__ = ["fold_in", "stream_generator"]

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15  # 2^64 / golden ratio, the SplitMix64 increment


def _word(value: int | str) -> int:
    """A stream word as an unsigned 64-bit int (a string by the CRC-32 of its UTF-8 bytes)."""
    if isinstance(value, str):
        return zlib.crc32(value.encode())
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value) & _MASK
    raise InvalidParameterTypeError(
        f"A seed-stream word must be an int or a string. Got {value!r} of type {type(value).__name__} instead."
    )


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def fold_in(seed: int, *data: int | str) -> int:
    r"""The seed of the stream named ``data`` of seed ``seed``: SplitMix64 folded over ``(seed, *data)``.

    Parameters
    ----------
    seed
        The run's seed (a non-negative int).
    *data
        The stream's name: strings (hashed by CRC-32) and ints (a block or step index), in order.

    Returns
    -------
    int
        An unsigned 64-bit seed (``torch.Generator.manual_seed`` accepts it on every device).

    Examples
    --------
    >>> fold_in(0, "init") == fold_in(0, "init"), fold_in(0, "init") == fold_in(1, "init")
    (True, False)
    >>> fold_in(3, "test", 0) == fold_in(3, "test", 1), 0 <= fold_in(3, "test") < 2**64
    (False, True)
    """
    state = 0
    for word in (seed, *data):
        state = _mix(((state ^ _word(word)) + _GOLDEN) & _MASK)
    return state


def stream_generator(seed: int, *stream: int | str) -> torch.Generator:
    """A CPU ``torch.Generator`` seeded with :func:`fold_in` of (``seed``, ``*stream``): a stream's draws depend
    on that pair alone (draw on the CPU, then move: the numbers do not depend on the device).

    >>> a = torch.randn(2, generator=stream_generator(5, "labels"))
    >>> bool((a == torch.randn(2, generator=stream_generator(5, "labels"))).all())
    True
    """
    gen = torch.Generator(device="cpu")
    gen.manual_seed(fold_in(seed, *stream))
    return gen
