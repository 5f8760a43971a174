"""Rows tied to their code: a stored row is served only to the code that computed it.

An experiment's code fingerprint hashes its module and the project modules it imports; a sweep
recomputes (and replaces) a row stored with another fingerprint — a model edited without a
``version`` bump, or a row of a schema-1 store — and counts it in ``attrs["stale"]``.
"""

import contextlib
import importlib
import json
import sqlite3
import subprocess
import sys
import uuid

import _runner_helpers  # noqa: F401  (registers test/poly)
import pytest

from flt_theory.runner import BackendError, ResultStore, get_experiment, load_results, point_id, sweep
from flt_theory.runner.fingerprint import code_files, code_fingerprint
from flt_theory.runner.store import SCHEMA_VERSION, make_row

MODEL = "SCALE = {scale}\n\n\ndef value(x):\n    return SCALE * x\n"
EXPERIMENT = """from flt_theory.runner import experiment

import {model}


@experiment("{name}", types={{"x": float}})
def run(params, seed):
    return {{"y": {model}.value(params["x"]) + seed}}
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A throwaway experiment module importing a helper model module, both in ``tmp_path``; yields
    ``(experiment name, model module, experiment module, model file)``."""
    suffix = uuid.uuid4().hex[:10]
    model, module, name = f"fp_model_{suffix}", f"fp_experiment_{suffix}", f"test/fingerprint-{suffix}"
    (tmp_path / f"{model}.py").write_text(MODEL.format(scale="2.0"))
    (tmp_path / f"{module}.py").write_text(EXPERIMENT.format(model=model, name=name))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # a reload compiles the edited source, never a cached .pyc
    try:
        yield name, importlib.import_module(model), importlib.import_module(module), tmp_path / f"{model}.py"
    finally:
        sys.modules.pop(module, None)
        sys.modules.pop(model, None)


def counts(frame):
    return frame.attrs["computed"], frame.attrs["reused"], frame.attrs["stale"]


def test_an_edited_model_makes_its_rows_stale_and_unchanged_code_reuses_them(project, tmp_path):
    name, model, module, model_file = project
    store = tmp_path / "r.sqlite"
    grid = {"x": [1.0, 2.0]}
    first = sweep(name, grid, seeds=2, store=store, progress=False)
    assert counts(first) == (4, 0, 0) and first.y.tolist() == [2.0, 3.0, 4.0, 5.0]

    importlib.reload(model)  # re-imported, not edited: the same code, the rows are served
    importlib.reload(module)
    again = sweep(name, grid, seeds=2, store=store, progress=False)
    assert counts(again) == (0, 4, 0) and again.y.tolist() == first.y.tolist()

    before = get_experiment(name).code_fingerprint
    model_file.write_text(MODEL.format(scale="30.0"))  # the auditor's edit: a number of the model, no version bump
    importlib.reload(model)
    importlib.reload(module)
    assert get_experiment(name).code_fingerprint != before
    edited = sweep(name, grid, seeds=2, store=store, progress=False)
    assert counts(edited) == (4, 0, 4) and edited.y.tolist() == [30.0, 31.0, 60.0, 61.0]
    with ResultStore(store) as st:  # replaced, not kept beside the new rows
        assert len(st) == 4 and {r["code_fingerprint"] for r in st.rows()} == {get_experiment(name).code_fingerprint}
    assert counts(sweep(name, grid, seeds=2, store=store, progress=False)) == (0, 4, 0)


def test_the_fingerprint_covers_the_helper_and_is_the_same_in_another_process(project, tmp_path):
    name, model, module, model_file = project
    exp = get_experiment(name)
    assert sorted(code_files(exp.function).values()) == sorted([model.__name__, module.__name__])
    script = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import {module.__name__}; "
              f"from flt_theory.runner import get_experiment; print(get_experiment({name!r}).code_fingerprint)")
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd="/",
                           check=True)
    assert other.stdout.strip() == exp.code_fingerprint


def test_paths_names_and_line_endings_do_not_enter_the_fingerprint(tmp_path, monkeypatch):
    source = "def run(params, seed):\n    return {'y': 1.0}\n"
    (tmp_path / "lf_module.py").write_bytes(source.encode())
    (tmp_path / "crlf_module.py").write_bytes(source.replace("\n", "\r\n").encode())
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        lf, crlf = importlib.import_module("lf_module"), importlib.import_module("crlf_module")
        assert code_fingerprint(lf.run) == code_fingerprint(crlf.run)
    finally:
        sys.modules.pop("lf_module", None)
        sys.modules.pop("crlf_module", None)


def test_a_system_fingerprint_covers_its_model_not_the_report_layers():
    import flt_theory.systems  # noqa: F401  (registers the systems' experiments)

    files = set(code_files(get_experiment("giant-step/norm-growth").function).values())
    assert {"flt_theory.systems.giant_step.model", "flt_theory.systems.giant_step.engine",
            "flt_theory.symbolic.target"} <= files
    layers = ("flt_theory.report", "flt_theory.cli", "flt_theory.runner", "flt_theory.compare")
    assert not {f for f in files if f.startswith(layers) or f.endswith(".figures")}


def test_put_replaces_only_a_row_of_other_code():
    with ResultStore(":memory:") as st:
        old = make_row("demo", {"x": 1.0}, 0, {"y": 1.0}, wall_time=0.1, code_fingerprint="a")
        assert st.put(old) and not st.put(old)
        assert st.put(make_row("demo", {"x": 1.0}, 0, {"y": 2.0}, wall_time=0.1, code_fingerprint="b"))
        (row,) = st.rows()
        assert (row["code_fingerprint"], row["result"]) == ("b", {"y": 2.0})
        assert len(st.frame(code_fingerprint="a")) == 0 and len(st.frame(code_fingerprint="b")) == 1


# The schema-1 table, as flt_theory wrote it before rows carried their code fingerprint.
SCHEMA_1 = """
CREATE TABLE flt_store (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE flt_results (
    id TEXT PRIMARY KEY, experiment TEXT NOT NULL, params TEXT NOT NULL, seed INTEGER NOT NULL, result TEXT NOT NULL,
    wall_time REAL NOT NULL, finished_at TEXT NOT NULL, flt_version TEXT, git_commit TEXT, python_version TEXT,
    torch_version TEXT, sympy_version TEXT, numpy_version TEXT, device TEXT, dtype TEXT, host TEXT,
    torch_threads INTEGER
);
CREATE INDEX flt_results_experiment ON flt_results (experiment);
INSERT INTO flt_store VALUES ('format', 'flt_theory.results'), ('schema_version', '1');
"""


def schema_1_store(path):
    """A schema-1 store holding one row of test/poly (x=1, seed 0) with a wrong value, y = 999."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.executescript(SCHEMA_1)
        conn.execute("INSERT INTO flt_results (id, experiment, params, seed, result, wall_time, finished_at) "
                     "VALUES (?, 'test/poly', ?, 0, ?, 0.1, '2025-01-01T00:00:00+00:00')",
                     (point_id("test/poly", {"x": 1.0, "k": 2}, 0),
                      json.dumps({"k": 2, "x": 1.0}, separators=(",", ":")), json.dumps({"y": 999.0, "s": 0.0})))
        conn.commit()
    return path


def test_a_schema_1_store_is_migrated_and_its_rows_are_stale(tmp_path):
    path = schema_1_store(tmp_path / "old.sqlite")
    old = load_results(path, provenance=True)  # read-only: read as it is, not migrated
    assert old.y.tolist() == [999.0] and old.code_fingerprint.isna().all()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT value FROM flt_store WHERE key = 'schema_version'").fetchone() == ("1",)

    frame = sweep("test/poly", {"x": [1.0, 2.0]}, seeds=[0], store=path, progress=False)
    assert counts(frame) == (2, 0, 1) and frame.y.tolist() == [1.0, 4.0]
    with contextlib.closing(sqlite3.connect(path)) as conn:
        version = conn.execute("SELECT value FROM flt_store WHERE key = 'schema_version'").fetchone()
        assert version == (str(SCHEMA_VERSION),)
        assert conn.execute("SELECT COUNT(*) FROM flt_results WHERE code_fingerprint IS NULL").fetchone() == (0,)
    assert counts(sweep("test/poly", {"x": [1.0, 2.0]}, seeds=[0], store=path, progress=False)) == (0, 2, 0)


def test_rows_from_a_worker_running_other_code_are_refused(tmp_path, monkeypatch):
    sweep_module = importlib.import_module("flt_theory.runner.sweep")  # the module (the package exports the function)
    real = sweep_module.run_point

    def other_code(task):
        return {**real(task), "code_fingerprint": "0" * 64}

    monkeypatch.setattr(sweep_module, "run_point", other_code)
    with pytest.raises(BackendError, match=r"a worker computed test/poly\(x=1.0, k=2\) seed 0 with other code"):
        sweep("test/poly", {"x": [1.0]}, store=tmp_path / "r.sqlite", progress=False)
    with ResultStore(tmp_path / "r.sqlite") as st:
        assert len(st) == 0


def test_flt_sweep_says_how_many_rows_were_stale(tmp_path):
    from click.testing import CliRunner

    from flt_theory.cli import cli

    path = schema_1_store(tmp_path / "old.sqlite")
    result = CliRunner().invoke(cli, ["sweep", "test/poly", "-p", "x=1,2", "--store", str(path)])
    assert result.exit_code == 0, result.output
    assert "2 points computed (1 of them stale rows of other code, replaced), 0 reused" in result.stderr
    again = CliRunner().invoke(cli, ["sweep", "test/poly", "-p", "x=1,2", "--store", str(path), "--json"])
    assert json.loads(again.stdout)["stale"] == 0 and json.loads(again.stdout)["reused"] == 2
