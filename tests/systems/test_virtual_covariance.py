"""Virtual-covariance system: back-propagation, residual readings, Theorem 3 counts, VCL, bad input, the command."""

import pandas as pd
import pytest
import sympy as sp
import torch

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError, UnsupportedError
from flt_theory.numeric.activation import as_activation
from flt_theory.systems.virtual_covariance.declaration import coefficients_of, compare_theorem3
from flt_theory.systems.virtual_covariance.laws import lipschitz_constant, residual_laws, theorem3_laws
from flt_theory.systems.virtual_covariance.model import (
    backprop,
    batch_backprop,
    gram_residuals,
    init_weights,
    theorem3_elements,
    train,
    violation_counts,
)
from flt_theory.systems.virtual_covariance.simulate import simulate_document

F64 = dict(device="cpu", dtype="float64")


def test_gradients_match_autograd_at_every_layer():
    ws = [w.requires_grad_(True) for w in init_weights(2, (3, 5, 4, 2), **F64)]
    x, y = torch.randn(2, 6, 3, dtype=torch.float64), torch.randn(2, 6, 2, dtype=torch.float64)
    act = as_activation("tanh")
    bp = backprop([w.detach() for w in ws], x, y, act)
    h = x.clone().requires_grad_(True)
    out, hidden = h, [h]
    for w in ws:
        out = torch.tanh(out @ w.transpose(-1, -2))
        out.retain_grad()
        hidden.append(out)
    ((out - y) ** 2).sum().div(2 * 6).backward()
    for layer, w in enumerate(ws):
        assert torch.allclose(w.grad, bp.grad_w[layer]) and torch.allclose(hidden[layer].grad, bp.grad_h[layer])


def test_summed_is_second_order_and_mean_first_order():
    bp = batch_backprop([0, 1], widths=(4, 6, 3), activation="relu", batch=5, **F64)
    gammas = [1e-4, 1e-3]
    summed, mean = gram_residuals(bp, gammas, "summed"), gram_residuals(bp, gammas, "mean")
    assert torch.allclose(summed[..., 1] / summed[..., 0], torch.full_like(summed[..., 0], 100.0), rtol=1e-6)
    assert torch.allclose(mean[..., 1] / mean[..., 0], torch.full_like(mean[..., 0], 10.0), rtol=1e-2)
    one = batch_backprop([0], widths=(4, 6, 3), activation="relu", batch=1, **F64)
    assert torch.equal(gram_residuals(one, gammas, "summed"), gram_residuals(one, gammas, "mean"))  # B = 1


def test_seed_rows_do_not_depend_on_the_batch_of_seeds():
    alone = batch_backprop([7], widths=(4, 5, 2), activation="tanh", batch=3, **F64)
    together = batch_backprop([3, 7], widths=(4, 5, 2), activation="tanh", batch=3, **F64)
    assert torch.equal(alone.grad_w[0][0], together.grad_w[0][1])


def test_violation_counts_cases():
    ds = torch.tensor([[0.5, 0.0, 1.0, 0.0, -0.2]], dtype=torch.float64)
    dh = torch.tensor([[1.0, 0.0, 1.0, 0.3, 0.1]], dtype=torch.float64)
    c = violation_counts(ds, dh, 1.0)
    # equality (3rd) and zero gradient (2nd) break <; dead unit (4th) breaks sign equality; the 5th flips sign
    assert c["strict_violations"] == 3 and c["weak_violations"] == 1
    assert c["sign_strict_violations"] == 2 and c["sign_weak_violations"] == 1 and c["max_ratio"] == 2.0


def test_rounding_floor_separates_equality_from_violation():
    """Tiny gradients: a ReLU ratio of ||h||^2 computed as 4(1 + 1e-9) is rounding, not a violation."""
    ds = torch.tensor([[4e-8 * (1 + 1e-8), 4.5e-8]], dtype=torch.float64)
    dh = torch.tensor([[1e-8, 1e-8]], dtype=torch.float64)
    floor = torch.tensor([[1e-15, 1e-15]], dtype=torch.float64)
    c = violation_counts(ds, dh, 4.0, floor=floor)
    assert c["weak_violations"] == 1 and c["max_ratio_low"] > 4.4
    assert violation_counts(ds[:, :1], dh[:, :1], 4.0, floor=floor)["weak_violations"] == 0


def test_theorem3_zero_unit_and_reproducibility():
    ds, dh = theorem3_elements([4, 9], activation="tanh", **F64)
    assert torch.all(dh[:, 0] == 0) and torch.all(ds[:, 0] == 0)
    ds2, dh2 = theorem3_elements([9], activation="tanh", **F64)
    assert torch.equal(dh2[0], dh[1])


def test_theorem3_comparison_reads_its_bound_from_the_law():
    frame = pd.DataFrame({"h_norm": [2.0], "max_ratio_low": [3.9], "max_ratio_high": [3.9], "zero_dh": [0.0],
                          "sign_strict_violations": [0.0], "sign_weak_violations": [0.0]})
    law = theorem3_laws("relu")["theorem 3 (corrected)"]
    assert compare_theorem3(frame, law).passed  # 3.9 <= L^2 R^2 = 4
    assert not compare_theorem3(frame, law.replace(value=(sp.Integer(1), sp.Integer(0)))).passed
    assert not compare_theorem3(frame, theorem3_laws("relu")["theorem 3 (literal)"]).passed


def test_law_coefficients_and_mutation():
    law = residual_laws()["residual (summed)"]
    assert coefficients_of(law) == (1.0, -1.0, 2)
    assert coefficients_of(law.replace(value=3 * law.value)) == (3.0, -3.0, 2)


def test_vcl_descends_slower_than_gd():
    gd = train(3, widths=(5, 6, 2), steps=20, n=16, **F64)
    vcl = train(3, widths=(5, 6, 2), steps=20, n=16, method="vcl", **F64)
    assert torch.all(vcl[:, -1] < vcl[:, 0]) and torch.all(vcl[:, -1] >= gd[:, -1])


def test_bad_input():
    with pytest.raises(InvalidParameterTypeError, match="'widths'"):
        init_weights(1, "10,3", **F64)
    with pytest.raises(InvalidParameterError, match="'cov'"):
        gram_residuals(batch_backprop([0], widths=(2, 2), activation="tanh", batch=1, **F64), [0.1], "average")
    with pytest.raises(InvalidParameterError, match="'method'"):
        train(1, method="adam", **F64)
    with pytest.raises(UnsupportedError, match="not Lipschitz"):
        lipschitz_constant("z**3")
    with pytest.raises(InvalidParameterError, match="^--cov"):
        simulate_document(cov="average", device="cpu")
    with pytest.raises(InvalidParameterError, match="^--nets"):
        simulate_document(theorem3=True, nets=0, device="cpu")
    with pytest.raises(InvalidParameterError, match="^--h-norm"):
        simulate_document(theorem3=True, h_norm=-1.0, device="cpu")


def test_simulate_records():
    doc = simulate_document(widths=(4, 5, 2), batch=3, gammas=(1e-3, 1e-2), seeds=2, device="cpu")
    assert {tuple(sorted(r)) for r in doc["records"]} == {("gamma", "layer", "residual", "seed")}
    assert len(doc["records"]) == 2 * 2 * 2
    assert all(abs(s["slope"] - 2) < 1e-3 for s in doc["slopes"])
    t3 = simulate_document(theorem3=True, activation="relu", h_norm=2.0, nets=30, device="cpu")["records"][0]
    assert {"elements", "strict_violations", "weak_violations", "sign_strict_violations", "sign_weak_violations",
            "max_ratio"} <= set(t3)
    assert t3["weak_violations"] > 0 and t3["corrected_weak_violations"] == 0 and t3["max_ratio"] == pytest.approx(4.0)
