"""In-context system: seeds, the softmax-invariance identity, the risk's normalisation, bad input, the command."""

import math

import pytest

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.systems.in_context.declaration import simulate_document
from flt_theory.systems.in_context.model import concept_rows, features_rows

CPU = dict(device="cpu")


def _same(a, b):
    """Equal up to the rounding of batched products."""
    return a.keys() == b.keys() and all(math.isclose(a[k], b[k], rel_tol=1e-9, abs_tol=1e-12) for k in a)


def test_a_seed_does_not_depend_on_its_batch():
    kw = dict(concepts=2, dim=8, length=4, steps=5, batch=8, n_test=20, **CPU)
    assert _same(concept_rows(seeds=[1, 4], **kw)[1], concept_rows(seeds=[4], **kw)[0])
    kw = dict(tasks=2, steps=3, context=32, n_test=64, **CPU)
    assert _same(features_rows(seeds=[1, 4], **kw)[1], features_rows(seeds=[4], **kw)[0])


def test_untrained_attention_has_no_change_and_chance_error():
    rows = concept_rows(concepts=2, dim=8, length=4, steps=0, batch=8, n_test=4000, seeds=[0], **CPU)
    assert rows[0]["d_bb_q"] == 0.0 and rows[0]["d_od"] == 0.0


def test_features_risk_starts_near_one_and_falls_with_training():
    before = features_rows(tasks=8, steps=0, context=128, n_test=4096, seeds=[0], **CPU)[0]["risk_new"]
    after = features_rows(tasks=8, steps=150, context=128, n_test=4096, seeds=[0], **CPU)[0]["risk_new"]
    assert after < 0.5 * before


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="'dim'"):
        concept_rows(concepts=4, dim=6, length=3, seeds=[0], **CPU)
    with pytest.raises(InvalidParameterTypeError, match="'tasks'"):
        features_rows(tasks=1.5, seeds=[0], **CPU)
    with pytest.raises(InvalidParameterError, match="^--tasks"):
        simulate_document(tasks=(0,), **CPU)
    with pytest.raises(InvalidParameterError, match="^--part"):
        simulate_document(part="all", **CPU)


def test_simulate_document():
    doc = simulate_document(part="both", steps=2, tasks=(1,), feature_steps=2, seeds=2, **CPU)
    assert doc["system"] == "in-context" and {r["part"] for r in doc["records"]} == {"concepts", "features"}
