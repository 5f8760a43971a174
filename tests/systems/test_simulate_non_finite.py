"""Non-finite is an error in ``flt simulate SYSTEM`` (issue 38, failure 4): one generic check per path.

* A record whose observable is NaN or infinite (:meth:`SimulateCommand.check_finite`, run by the command on every
  system's document) exits 2 with one line naming the point and the options given, the most extreme first; nothing is
  printed on stdout. A value undefined by design is ``None`` (JSON ``null``), never NaN.
* A run function that turns NaN into ``None`` for JSON checks its records before (:func:`check_finite_records`).
* A divergence the model detects (:class:`~flt_theory.errors.DivergenceError`) without naming an option is blamed on
  the options given, the most extreme first.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.systems.declaration import NonFiniteRecordError, check_finite_records


def _invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr.strip().splitlines()


def test_a_nan_observable_exits_2_naming_the_point_and_the_option():
    """The issue's reproduction: ``--c-mu 1e300`` printed NaN observables and exited 0."""
    code, out, err = _invoke("simulate", "contrastive", "--mode", "multi", "--n", "8", "--d", "60", "--width", "4",
                             "--steps", "20", "--seeds", "1", "--c-mu", "1e300", "--device", "cpu")
    assert code == 2 and out == "" and len(err) == 1, (code, out, err)
    line = err[0]
    assert line.startswith("flt: error: --c-mu: the observable ") and " is nan at " in line, line
    assert "mode=multi" in line and "c_mu=1e+300" in line and "seed=0" in line, line
    assert "the most extreme first: --c-mu," in line, line


def test_a_stop_never_reached_is_null_not_an_error():
    """NaN is kept for a broken number: the values at a stop the run never reached are ``None``."""
    from flt_theory.systems.contrastive.simulate import simulate_document

    doc = simulate_document(mode="multi", n=8, d=60, width=4, steps=20, seeds=1, device="cpu")
    record = doc["records"][0]
    assert record["step_T"] is None and record["signal_T"] is None and record["error_T"] is None, record
    assert math.isfinite(record["signal_end"])
    code, out, err = _invoke("simulate", "contrastive", "--mode", "multi", "--n", "8", "--d", "60", "--width", "4",
                             "--steps", "20", "--seeds", "1", "--device", "cpu", "--json")
    assert code == 0 and '"step_T": null' in out, (code, err)


def test_check_finite_records_finds_nested_and_array_values():
    records = [{"n": 8, "c": 0.5, "stop": None, "trajectory": [{"loss": 1.0}, {"loss": float("inf")}]}]
    with pytest.raises(NonFiniteRecordError) as info:
        check_finite_records({"records": records}, point=["n", "c"])
    assert (info.value.key, info.value.value) == ("trajectory[1].loss", math.inf)
    assert str(info.value).startswith("the observable trajectory[1].loss is inf at n=8, c=0.5: ")
    with pytest.raises(NonFiniteRecordError, match=r"the observable x\[1\] is nan at n=2"):
        check_finite_records({"records": [{"n": 2, "x": np.array([1.0, np.nan])}]})
    with pytest.raises(NonFiniteRecordError, match="the observable x is nan"):
        check_finite_records({"records": [{"x": np.float32("nan")}]})
    ok = {"records": [{"n": 2, "x": None, "y": "nan", "z": [1.0, np.float64(2.0)]}], "fit": float("nan")}
    assert check_finite_records(ok) is ok  # only the records are observables


def test_a_run_that_writes_null_for_json_checks_its_records_first(monkeypatch):
    """``flt simulate lazy-rich`` turns NaN into null for JSON inside its run: it checks its records before."""
    from flt_theory.systems.lazy_rich import simulate

    def rows(seeds, **_kw):
        return [{"abs_change": 1.0, "rel_change": 0.1, "per_neuron_change": 0.1, "train_loss": math.nan}
                for _ in seeds]

    monkeypatch.setattr(simulate, "training_rows", rows)
    with pytest.raises(NonFiniteRecordError, match="train_loss is nan"):
        simulate.simulate_document(widths=(16, 32), steps=2, seeds=2, device="cpu")
    code, out, err = _invoke("simulate", "lazy-rich", "--widths", "16,32", "--steps", "2", "--seeds", "2",
                             "--device", "cpu")
    assert code == 2 and out == "" and len(err) == 1, (code, err)
    assert "the observable train_loss is nan at param=ntk, width=16, seed=0" in err[0], err


def test_a_divergence_without_an_option_names_the_most_extreme_one():
    code, out, err = _invoke("simulate", "one-step-ba", "--d", "16", "--psi", "2", "--eta-tilde", "1", "--seeds",
                             "2", "--n-test", "16", "--noise", "1e308", "--device", "cpu")
    assert code == 2 and out == "" and len(err) == 1, (code, err)
    assert err[0].startswith("flt: error: --noise: the simulation diverged with the values given (--noise, "), err


def test_a_weight_change_of_zero_has_no_slope_and_no_error():
    """``--lr 1e-300``: W does not move in floating point; the slopes in N are undefined (null), the run exits 0."""
    from flt_theory.systems.lazy_rich.simulate import simulate_document

    doc = simulate_document(widths=(16, 32), steps=2, seeds=2, lr=1e-300, device="cpu")
    assert all(s["slope"] is None and s["slope_ci"] is None for s in doc["slopes"].values()), doc["slopes"]


def test_sparse_supports_the_rejection_sampler_cannot_draw_are_refused():
    """s distinct coordinates among d - 1 drawn by rejection: s near d would never end (it hung the command)."""
    code, out, err = _invoke("simulate", "signal-noise-optimizers", "--d", "1000", "--sparsity", "999", "--seeds",
                             "2", "--max-steps", "2", "--n-test", "2", "--device", "cpu")
    assert code == 2 and len(err) == 1 and err[0].startswith("flt: error: --sparsity: "), (code, err)
    assert "use s <= 76 at this d" in err[0], err
    from flt_theory.systems.optimizers.model import MIN_DISTINCT, distinct_probability, max_sparsity

    assert distinct_probability(6, 10**6) > 0.99  # the claims' s = 6 at d = 1e6: one round
    s = max_sparsity(1000)
    assert distinct_probability(s, 1000) >= MIN_DISTINCT > distinct_probability(s + 1, 1000)


def test_the_sampler_itself_refuses_sparse_supports_it_cannot_draw():
    """The same refusal guards the model, so `flt sweep optimizers/run` cannot hang either."""
    from flt_theory.errors import InvalidParameterError
    from flt_theory.systems.optimizers.model import make_data

    with pytest.raises(InvalidParameterError, match="sparsity: the supports of s = 999"):
        make_data([0], n=20, d=1000, width=4, sparsity=999, mu_norm=1.0, n_test=2, device="cpu")
