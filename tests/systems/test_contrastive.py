"""Contrastive system: seeds, the probe, the stop, bad input, the command."""

import math

import pytest

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.runner import get_experiment
from flt_theory.systems import get_claim
from flt_theory.systems.contrastive.declaration import simulate_document
from flt_theory.systems.contrastive.model import contrastive_rows, draw, probe_error, train

CPU = dict(device="cpu")
SMALL = dict(n=8, d=80, width=4, n_snr2=1.0, c_mu=4.0)


def _same(a, b):
    """Equal up to the rounding of batched products (nan equal to nan)."""
    return a.keys() == b.keys() and all(math.isclose(a[k], b[k], rel_tol=1e-9, abs_tol=1e-12)
                                        or (math.isnan(a[k]) and math.isnan(b[k])) for k in a)


def test_a_seed_does_not_depend_on_its_batch():
    both = contrastive_rows(mode="multi", **SMALL, steps=150, n_probe=40, n_test=40, seeds=[3, 5], **CPU)
    alone = contrastive_rows(mode="multi", **SMALL, steps=150, n_probe=40, n_test=40, seeds=[5], **CPU)
    assert _same(both[1], alone[0]) and not math.isnan(alone[0]["signal_T"])


def test_stop_is_the_first_step_at_the_level_and_the_loss_falls():
    data = draw([3, 5], **SMALL, **CPU)
    out = train("single", data, steps=200, level=1.0)
    assert bool((out["noise_T"] >= 1.0).all()) and bool((out["step_T"] > 0).all())
    assert bool((out["loss_end"] < math.log(8)).all())


def test_probe_is_at_chance_without_signal_and_exact_with_it():
    data = draw(2, **SMALL, **CPU)
    w = data.w0.clone()
    w[..., 0] = 0.0  # no neuron reads the signal: the embedding is independent of y
    assert all(abs(e - 0.5) < 0.1 for e in probe_error(data, w, n_probe=200, n_test=2000).tolist())
    w[..., 0] = 1.0
    assert probe_error(data, w).tolist() == [0.0, 0.0]


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="'mode'"):
        train("both", draw(1, **SMALL, **CPU))
    with pytest.raises(InvalidParameterError, match="'n_snr2'"):
        draw(1, n=8, d=80, width=4, n_snr2=0.0, c_mu=2.0, **CPU)
    with pytest.raises(InvalidParameterTypeError, match="'width'"):
        draw(1, n=8, d=80, width=2.5, n_snr2=1.0, c_mu=2.0, **CPU)
    with pytest.raises(InvalidParameterError, match="^--c-mu"):
        simulate_document(c_mu=-1.0, **CPU)
    with pytest.raises(InvalidParameterError, match="^--mode"):
        simulate_document(mode="tri", **CPU)


def test_simulate_document():
    doc = simulate_document(n=8, d=60, width=4, steps=10, seeds=2, **CPU)
    assert doc["system"] == "contrastive" and [r["mode"] for r in doc["records"]] == ["single"] * 2 + ["multi"] * 2


def test_the_probe_holds_one_seeds_samples_at_a_time(monkeypatch):
    """The probe's samples, (n_probe + n_test)·d per seed, are drawn and used one seed at a time (the errors are those
    of each seed alone), so the declared memory of a rung grows with the seeds only through the training data: the
    C_mu = 2 ladder's last rung (n = 160, d = 25600, 16 seeds) declares 2.2 GB, where a whole batch of probe samples
    would be 16 GB, above half of a 23 GB machine."""
    from flt_theory.systems.contrastive import model

    drawn = []
    draw_normal = model.seeded_normal

    def seeded_normal(seeds, shape, stream, **kwargs):
        if stream.startswith("contrastive/probe"):
            drawn.append((len(seeds), stream))
        return draw_normal(seeds, shape, stream, **kwargs)

    data, alone = draw([3, 5, 7], **SMALL, **CPU), draw([5], **SMALL, **CPU)
    w = data.w0 + 0.3
    monkeypatch.setattr(model, "seeded_normal", seeded_normal)
    errors = probe_error(data, w, n_probe=50, n_test=60).tolist()
    assert drawn and {size for size, _ in drawn} == {1} and len(drawn) == 2 * 3  # labels and noise, per seed
    assert errors[1] == probe_error(alone, w[1:2], n_probe=50, n_test=60).tolist()[0]
    exp = get_experiment("contrastive/train")
    point = next(p for p in get_claim("contrastive/multi-modal-needs-large-c-mu").measurement.points["paper"]
                 if p["n"] == 160)
    one, sixteen = (exp.estimate(exp.normalize(point), seeds).bytes for seeds in (1, 16))
    probe = 16 * (400 + 2000) * point["d"]  # one seed's samples, at the default n_probe and n_test
    assert one > probe and sixteen - one < 15 * (one - probe) + 1 and sixteen < 3e9


def test_weights_of_another_batch_are_refused():
    data = draw([3, 5], **SMALL, **CPU)
    with pytest.raises(InvalidParameterError, match="one weight matrix per seed of the data"):
        probe_error(data, data.w0[:1])
