"""Seed contract, chunking and teacher directions of flt_theory.numeric.data."""

import pytest
import torch

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.numeric.data import BLOCK_ROWS, as_seeds, gaussian_chunks, seeded_normal, teacher_directions


def _all(seeds, n, d, chunk, stream="s", dtype="float32"):
    return torch.cat(list(gaussian_chunks(seeds, n, d, stream, chunk_size=chunk, device="cpu", dtype=dtype)), dim=1)


def test_same_seed_gives_bitwise_equal_samples():
    assert torch.equal(_all([4, 9], 300, 5, 64), _all([4, 9], 300, 5, 64))
    assert not torch.equal(_all([4], 300, 5, 64), _all([5], 300, 5, 64))
    assert not torch.equal(_all([4], 300, 5, 64, "a"), _all([4], 300, 5, 64, "b"))


def test_samples_do_not_depend_on_chunk_size_batch_or_n():
    block = BLOCK_ROWS["cpu"]
    n = 2 * block + 37  # crosses block boundaries
    ref = _all([0, 3], n, 6, 1000)
    for chunk in (7, block, block + 1, 5000):
        assert torch.equal(_all([0, 3], n, 6, chunk), ref)
    assert torch.equal(_all([3], n, 6, 7)[0], ref[1])  # row of seed 3 independent of the batch
    assert torch.equal(_all([0, 3], 100, 6, 13), ref[:, :100])  # smaller n reads a prefix


def test_chunks_never_materialise_n_by_d():
    shapes = [tuple(c.shape) for c in gaussian_chunks(2, 10_000, 8, "m", chunk_size=333, device="cpu")]
    assert max(s[1] for s in shapes) == 333 and sum(s[1] for s in shapes) == 10_000
    assert all(s[0] == 2 and s[2] == 8 for s in shapes)
    default = next(gaussian_chunks(1, 10**9, 512, "m", device="cpu"))  # lazy: only one chunk drawn
    assert default.shape[1] < 10**5


def test_reused_buffer_yields_the_same_samples():
    chunks = gaussian_chunks([1, 2], 2500, 5, "r", chunk_size=1000, reuse_buffer=True, device="cpu")
    copies, full = [], set()
    for c in chunks:
        copies.append(c.clone())
        if c.shape[1] == 1000:
            full.add(c.data_ptr())
    assert len(full) == 1 and torch.equal(torch.cat(copies, 1), _all([1, 2], 2500, 5, 1000, "r"))


def test_samples_are_standard_gaussian():
    x = _all(2, 20_000, 4, 4096, dtype="float64")
    assert abs(float(x.mean())) < 0.02 and abs(float(x.var()) - 1) < 0.03


@pytest.mark.parametrize("basis", ["random", "canonical"])
def test_teacher_directions_are_orthonormal(basis):
    w = teacher_directions([1, 2, 3], 32, 4, basis=basis, device="cpu", dtype="float64")
    assert w.shape == (3, 4, 32)
    assert torch.allclose(w @ w.transpose(-1, -2), torch.eye(4, dtype=torch.float64).expand(3, 4, 4), atol=1e-12)
    if basis == "random":
        assert not torch.allclose(w[0], w[1])
        assert torch.equal(w[1], teacher_directions([2], 32, 4, device="cpu", dtype="float64")[0])


def test_seeded_normal_is_batch_independent():
    both = seeded_normal([8, 9], (3,), "x", device="cpu")
    assert torch.equal(both[1], seeded_normal([9], (3,), "x", device="cpu")[0])


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: as_seeds(0), InvalidParameterError, "'seeds' parameter must be an int >= 1"),
        (lambda: as_seeds("3"), InvalidParameterTypeError, "'seeds' parameter"),
        (lambda: as_seeds([1, -2]), InvalidParameterError, "'seeds' parameter must be an int >= 0"),
        (lambda: gaussian_chunks(1, 0, 3, "s"), InvalidParameterError, "'n' parameter of gaussian_chunks"),
        (lambda: gaussian_chunks(1, 5, 0, "s"), InvalidParameterError, "'d' parameter of gaussian_chunks"),
        (lambda: gaussian_chunks(1, 5, 3, "s", chunk_size=0), InvalidParameterError, "'chunk_size'"),
        (lambda: gaussian_chunks(1, 5, 3, "s", device="tpu"), InvalidParameterError, "'device' parameter"),
        (lambda: gaussian_chunks(1, 5, 3, "s", dtype="float16"), InvalidParameterError, "'dtype' parameter"),
        (lambda: teacher_directions(1, 3, 4), InvalidParameterError, "'r' parameter of teacher_directions"),
        (lambda: teacher_directions(1, 3, 1, basis="x"), InvalidParameterError, "'basis' parameter"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
