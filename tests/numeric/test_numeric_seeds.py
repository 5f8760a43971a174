"""The one seed-stream function (flt_theory.numeric.seeds) and the Bartlett sampler (flt_theory.numeric.wishart)."""

import math
import zlib

import pytest
import torch

from flt_theory.errors import InvalidParameterTypeError
from flt_theory.numeric.data import seeded_normal
from flt_theory.numeric.seeds import fold_in, stream_generator
from flt_theory.numeric.wishart import bartlett_factor, haar_frame


def _splitmix64_reference(*words):
    """SplitMix64 as written in Vigna's splitmix64.c: x += golden; z = x; three xor-shift-multiply rounds."""
    mask, state = (1 << 64) - 1, 0
    for word in words:
        x = ((state ^ word) + 0x9E3779B97F4A7C15) & mask
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        state = z ^ (z >> 31)
    return state


def test_fold_in_is_splitmix64_of_the_words():
    # the first output of splitmix64.c seeded with 0
    assert fold_in(0) == 0xE220A8397B1DCDAF
    assert fold_in(7, "init", 3) == _splitmix64_reference(7, zlib.crc32(b"init"), 3)


def test_seeded_normal_uses_fold_in():
    row = seeded_normal([11], (4,), "demo", device="cpu", dtype="float64")[0]
    gen = torch.Generator().manual_seed(fold_in(11, "demo", 0))
    assert torch.equal(row, torch.randn(4, generator=gen, dtype=torch.float64))


def test_streams_differ_and_repeat():
    seeds = {fold_in(s, name) for s in range(50) for name in ("init", "test", "labels")}
    assert len(seeds) == 150 and all(0 <= s < 2**64 for s in seeds)
    assert fold_in(3, "a", "b") != fold_in(3, "b", "a") != fold_in(3, "ab")
    a, b = (torch.randn(3, generator=stream_generator(5, "x", 1)) for _ in range(2))
    assert torch.equal(a, b) and not torch.equal(a, torch.randn(3, generator=stream_generator(5, "x", 2)))


@pytest.mark.parametrize("word", [1.5, None, True, b"init"])
def test_fold_in_rejects_other_words(word):
    with pytest.raises(InvalidParameterTypeError, match="seed-stream word"):
        fold_in(0, word)


def test_bartlett_gram_has_the_wishart_mean_and_variance():
    # R^T R ~ Wishart_k(dim, I): E = dim I, Var of a diagonal entry 2 dim, of an off-diagonal entry dim
    dim, k, draws = 7, 3, 600
    gen = torch.Generator().manual_seed(fold_in(0, "test-bartlett"))
    gram = torch.stack([(r.T @ r) for r in (bartlett_factor(dim, k, gen) for _ in range(draws))])
    stderr = math.sqrt(2 * dim / draws)
    diag = torch.diagonal(gram, dim1=-2, dim2=-1).mean(0)
    assert float((diag - dim).abs().max()) < 4 * stderr < float((diag - (dim - 1)).abs().min())  # not dim - 1
    assert float(gram[:, 0, 1].mean().abs()) < 4 * math.sqrt(dim / draws)
    assert abs(float(gram[:, 0, 0].var()) / (2 * dim) - 1) < 0.3 and abs(float(gram[:, 0, 2].var()) / dim - 1) < 0.3


def test_haar_frame_is_orthonormal_and_signed():
    q = haar_frame(20, 5, stream_generator(1, "frame"))
    assert torch.allclose(q.T @ q, torch.eye(5, dtype=torch.float64), atol=1e-12)
    assert q.shape == (20, 5)
