"""Sweeps: grid × seeds, resumption, row identity, failures, the process pool, the giant-step experiment."""

import _runner_helpers  # noqa: F401  (registers the test experiments)
import numpy as np
import pandas as pd
import pytest

from flt_theory.errors import FLTError, InvalidParameterError, InvalidParameterTypeError
from flt_theory.runner import (
    ExperimentError,
    ResultStore,
    UnknownExperimentError,
    experiment,
    get_experiment,
    load_results,
    point_id,
    registered_experiments,
    sweep,
)
from flt_theory.runner.store import PROVENANCE_COLUMNS

GRID = {"x": [0.0, 1.0, 2.0], "k": [2, 3]}


def values(df):
    return df[["x", "k", "seed", "y", "s"]].reset_index(drop=True)


def test_sweep_grid_times_seeds_in_grid_order():
    df = sweep("test/poly", GRID, seeds=2, progress=False)
    assert list(df.columns) == ["experiment", "x", "k", "seed", "y", "s"]
    assert len(df) == 12
    assert df[["x", "k", "seed"]].values.tolist()[:4] == [[0.0, 2, 0], [0.0, 2, 1], [0.0, 3, 0], [0.0, 3, 1]]
    assert np.allclose(df.y, df.x ** df.k + df.seed)
    assert df.attrs["computed"] == 12 and df.attrs["reused"] == 0


def test_resume_computes_only_missing_points(tmp_path):
    store = tmp_path / "r.sqlite"
    first = sweep("test/poly", {"x": [0.0, 1.0]}, seeds=[0, 1], store=store, progress=False)
    assert (first.attrs["computed"], first.attrs["reused"]) == (4, 0)
    again = sweep("test/poly", {"x": [0.0, 1.0, 2.0]}, seeds=[0, 1, 5], store=store, progress=False)
    assert (again.attrs["computed"], again.attrs["reused"]) == (5, 4)
    pd.testing.assert_frame_equal(again.iloc[:2].reset_index(drop=True), first.iloc[:2].reset_index(drop=True))
    with ResultStore(store) as st:
        assert len(st) == 9
    assert len(load_results(store, "test/poly")) == 9


def test_row_identity_normalizes_defaults_and_number_types(tmp_path):
    store = tmp_path / "r.sqlite"
    sweep("test/poly", {"x": [1]}, seeds=1, store=store, progress=False)
    again = sweep("test/poly", points=[{"x": 1.0, "k": 2}, {"x": 1.0}], seeds=[0], store=store, progress=False)
    assert len(again) == 1 and again.attrs["computed"] == 0
    assert point_id("test/poly", {"x": 1.0, "k": 2}, 0) == point_id("test/poly", {"k": 2, "x": 1.0}, 0)


def test_provenance_columns():
    df = sweep("test/poly", {"x": [1.0]}, seeds=1, progress=False, provenance=True)
    assert list(df.columns[-len(PROVENANCE_COLUMNS) - 1 :]) == [*PROVENANCE_COLUMNS, "id"]
    row = df.iloc[0]
    assert row.flt_version and row.python_version and row.device == "cpu" and row.wall_time >= 0
    assert row.id == point_id("test/poly", {"x": 1.0, "k": 2}, 0)


def test_bad_input_is_rejected_before_running():
    with pytest.raises(UnknownExperimentError, match="no experiment 'test/nope'"):
        sweep("test/nope", {"x": [1]})
    with pytest.raises(InvalidParameterError, match="has no parameter 'y'"):
        sweep("test/poly", {"x": [1], "y": [2]})
    with pytest.raises(InvalidParameterError, match="needs the parameter 'x'"):
        sweep("test/poly", {"k": [2]})
    with pytest.raises(InvalidParameterError, match="'x' parameter of experiment 'test/poly' must be float"):
        sweep("test/poly", {"x": ["abc"]})
    with pytest.raises(InvalidParameterError, match="seeds"):
        sweep("test/poly", {"x": [1]}, seeds=0)
    with pytest.raises(InvalidParameterTypeError, match="seeds"):
        sweep("test/poly", {"x": [1]}, seeds="3")
    with pytest.raises(InvalidParameterError, match="not both"):
        sweep("test/poly", {"x": [1]}, points=[{"x": 1}])
    with pytest.raises(InvalidParameterError, match="reserved"):
        sweep("test/bad-return", {"seed": [1]})
    with pytest.raises(InvalidParameterError, match="jobs"):
        sweep("test/poly", {"x": [1]}, jobs=0)


def test_failing_point_names_itself_and_keeps_earlier_points(tmp_path):
    store = tmp_path / "r.sqlite"
    with pytest.raises(ExperimentError, match=r"test/fails-at-3\(x=3.0\) seed 0 failed: RuntimeError: boom") as info:
        sweep("test/fails-at-3", {"x": [1, 2, 3, 4]}, seeds=1, store=store, progress=False)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert load_results(store).x.tolist() == [1.0, 2.0]
    with pytest.raises(ExperimentError, match="results must be real numbers"):
        sweep("test/bad-return", {}, seeds=1, progress=False)


def test_registry():
    import flt_theory.systems  # noqa: F401  (the systems' experiments become findable by name)

    names = [e.name for e in registered_experiments()]
    assert "giant-step/one-step-mass" in names and "test/poly" in names
    with pytest.raises(InvalidParameterError, match="already registered"):
        experiment("test/poly")(lambda params, seed: {"y": 0.0})
    with pytest.raises(UnknownExperimentError, match="cannot be imported"):
        get_experiment("test/elsewhere", "no_such_module_xyz")
    assert issubclass(UnknownExperimentError, FLTError)


def test_process_pool_gives_the_in_process_table(tmp_path):
    grid = {"x": [0.5, 1.5, 2.5], "k": [1, 2]}
    local = sweep("test/poly", grid, seeds=2, progress=False)
    pooled = sweep("test/poly", grid, seeds=2, store=tmp_path / "p.sqlite", jobs=2, progress=False)
    pd.testing.assert_frame_equal(values(pooled), values(local))


def test_pool_workers_share_the_cores_without_oversubscription():
    from flt_theory.runner.executors import _cores

    df = sweep("test/threads", {"x": [1.0, 2.0]}, seeds=1, jobs=2, progress=False)
    assert df.omp.tolist() == df.mkl.tolist() == [max(1, _cores() // 2)] * 2


def test_set_torch_threads_in_a_loaded_torch(monkeypatch):
    import torch

    from flt_theory.runner.executors import set_torch_threads

    before = torch.get_num_threads()
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)  # restored after the test
    try:
        set_torch_threads(1)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_a_batched_experiment_gives_each_seed_the_numbers_it_gets_alone():
    """Batched over seeds in one call, or one seed at a time: the stored rows are the same."""
    import flt_theory.systems  # noqa: F401

    grid = {"target": "z + He2(z)", "d": [32], "kappa": [1.0, 1.5], "p": 16}
    together = sweep("giant-step/one-step-mass", grid, seeds=range(3), progress=False)
    alone = pd.concat([sweep("giant-step/one-step-mass", grid, seeds=[s], progress=False) for s in range(3)])
    alone = alone.sort_values(["kappa", "seed"]).reset_index(drop=True)
    assert together.columns.tolist()[-2:] == ["mass_V", "excess_mass"] and len(together) == 6
    np.testing.assert_allclose(together.excess_mass.to_numpy(), alone.excess_mass.to_numpy(), rtol=1e-5, atol=1e-7)
    assert np.allclose(together.excess_mass, (together.mass_V - 1 / 32) / (1 - 1 / 32))



def test_a_new_experiment_version_recomputes_rather_than_reuses(tmp_path):
    """An experiment whose numbers changed (a fixed bug) bumps its version: the store keeps the old rows but
    never serves them for the new code."""
    store = tmp_path / "r.sqlite"
    old = sweep("test/poly", {"x": [1.0]}, seeds=[0, 1], store=store, progress=False)
    try:
        experiment("test/poly", defaults={"k": 2}, types={"x": float, "k": int}, version=1)(_runner_helpers.poly)
        new = sweep("test/poly", {"x": [1.0]}, seeds=[0, 1], store=store, progress=False)
        assert (new.attrs["computed"], new.attrs["reused"]) == (2, 0) and new.y.tolist() == old.y.tolist()
        assert sweep("test/poly", {"x": [1.0]}, seeds=[0, 1], store=store, progress=False).attrs["reused"] == 2
        assert point_id("test/poly", {"x": 1.0, "k": 2}, 0, version=1) != point_id("test/poly", {"x": 1.0, "k": 2}, 0)
        with pytest.raises(InvalidParameterTypeError, match="'version' of experiment"):
            experiment("test/poly", version=-1)(_runner_helpers.poly)
    finally:
        experiment("test/poly", defaults={"k": 2}, types={"x": float, "k": int})(_runner_helpers.poly)
