"""Lazy-rich system: the exponent table, the network's gradients, seeds, bad input, the command."""

import pytest
import torch

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.systems.lazy_rich.laws import change_exponent, lazy_rich_laws
from flt_theory.systems.lazy_rich.model import train_two_layer
from flt_theory.systems.lazy_rich.simulate import simulate_document

CPU = dict(device="cpu")


def test_laws_read_the_exponents_they_print():
    laws = lazy_rich_laws()
    assert laws["per_neuron_change (ntk)"].exponent("N") == -0.5
    assert laws["abs_change (mf)"].exponent("N") == 0.5
    assert laws["abs_change (ntk)"].status == "finding" and laws["rel_change (mf)"].status == "derived"
    assert all(law.source.authors for law in laws.values())
    with pytest.raises(InvalidParameterError, match="'reading'"):
        change_exponent("max_change", "ntk")


def test_one_step_change_has_the_predicted_scale():
    """After ONE step the change is exactly lr N^(2a-1) ||grad||: per-neuron ratio between widths ~ N^(a-1)."""
    small = train_two_layer(8, width=64, steps=1, param="mf", **CPU)["per_neuron_change"].mean()
    large = train_two_layer(8, width=1024, steps=1, param="mf", **CPU)["per_neuron_change"].mean()
    assert abs(float(large / small) - 1) < 0.15
    small = train_two_layer(8, width=64, steps=1, param="ntk", **CPU)["per_neuron_change"].mean()
    large = train_two_layer(8, width=1024, steps=1, param="ntk", **CPU)["per_neuron_change"].mean()
    assert abs(float(large / small) - 0.25) < 0.05


def test_training_lowers_the_loss_and_seeds_are_independent():
    out = train_two_layer([1, 2], width=32, steps=30, **CPU)
    assert torch.all(out["train_loss"] < out["initial_loss"])
    alone = train_two_layer([2], width=32, steps=30, **CPU)
    assert float(alone["abs_change"][0]) == float(out["abs_change"][1])


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="'param'"):
        train_two_layer(1, width=8, param="muP", **CPU)
    with pytest.raises(InvalidParameterError, match="'width'"):
        train_two_layer(1, width=0, **CPU)
    with pytest.raises(InvalidParameterTypeError, match="'steps'"):
        train_two_layer(1, width=8, steps=1.5, **CPU)
    with pytest.raises(InvalidParameterError, match="^--widths"):
        simulate_document(widths=(0,), **CPU)
    with pytest.raises(InvalidParameterError, match="^--activation"):
        simulate_document(widths=(8,), steps=1, seeds=1, activation="nope(z)", **CPU)


def test_simulate_records():
    doc = simulate_document(param="mf", widths=(8, 32), steps=3, seeds=2, **CPU)
    keys = {"param", "width", "seed", "abs_change", "rel_change", "per_neuron_change", "train_loss"}
    assert all(set(r) == keys for r in doc["records"]) and len(doc["records"]) == 4
    assert doc["slopes"]["abs_change"]["predicted"] == 0.5
