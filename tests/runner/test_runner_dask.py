"""The Dask backend: a LocalCluster on loopback (2 worker processes, no dashboard) gives the same
table as the in-process run; ``scheduler="local"`` and an unreachable address behave."""

import _runner_helpers  # noqa: F401  (registers test/poly; workers import it by name)
import pandas as pd
import pytest

from flt_theory.runner import BackendError, load_results, sweep
from flt_theory.runner.executors import local_cluster_options

distributed = pytest.importorskip("distributed", reason="the Dask backend needs dask[distributed] (pip install "
                                                        "'dask[distributed]')")

GRID = {"x": [0.5, 1.5, 2.5, 3.5], "k": [1, 2]}
COLUMNS = ["x", "k", "seed", "y", "s"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(**local_cluster_options(2))  # loopback, no dashboard, 2 processes
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def test_dask_cluster_gives_the_in_process_table(client, tmp_path):
    local = sweep("test/poly", GRID, seeds=2, progress=False)
    on_dask = sweep("test/poly", GRID, seeds=2, store=tmp_path / "d.sqlite", scheduler=client, progress=False)
    assert on_dask.attrs["computed"] == 16
    pd.testing.assert_frame_equal(on_dask[COLUMNS], local[COLUMNS])
    stored = load_results(tmp_path / "d.sqlite", provenance=True)
    assert len(stored) == 16 and stored.id.is_unique and (stored.device == "cpu").all()
    assert set(client.run(lambda: __import__("os").getpid()).values()).isdisjoint({__import__("os").getpid()})
    again = sweep("test/poly", GRID, seeds=3, store=tmp_path / "d.sqlite", scheduler=client, progress=False)
    assert (again.attrs["computed"], again.attrs["reused"]) == (8, 16)


def test_unreachable_scheduler_is_a_backend_error(monkeypatch):
    monkeypatch.setattr("flt_theory.runner.executors.CONNECT_TIMEOUT", "1s")
    with pytest.raises(BackendError, match="could not connect to the Dask scheduler at 'tcp://127.0.0.1:9'"):
        sweep("test/poly", {"x": [1.0]}, scheduler="tcp://127.0.0.1:9", progress=False)


def test_dask_local_starts_and_stops_its_own_cluster():
    local = sweep("test/poly", {"x": [1.0, 2.0]}, seeds=2, progress=False)
    on_dask = sweep("test/poly", {"x": [1.0, 2.0]}, seeds=2, scheduler="local", jobs=2, progress=False)
    pd.testing.assert_frame_equal(on_dask[COLUMNS[:1] + COLUMNS[2:]], local[COLUMNS[:1] + COLUMNS[2:]])
