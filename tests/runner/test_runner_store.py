"""The results store refuses files that are not its own and survives failed writes, leaving every
existing result untouched; each failure is a clear FLTError subclass."""

import contextlib
import hashlib
import sqlite3

import _runner_helpers  # noqa: F401
import pytest

from flt_theory.errors import FLTError
from flt_theory.runner import (
    CorruptStoreError,
    ForeignStoreError,
    ResultStore,
    StoreError,
    StoreWriteError,
    load_results,
    sweep,
)
from flt_theory.runner.store import SCHEMA_VERSION, make_row


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_text_file_is_refused_untouched(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("my precious notes\n" * 100)
    before = digest(path)
    with pytest.raises(CorruptStoreError, match="is not an flt_theory results store.*not a database.*left untouched"):
        sweep("test/poly", {"x": [1.0]}, store=path, progress=False)
    with pytest.raises(CorruptStoreError):
        load_results(path)
    assert digest(path) == before
    assert issubclass(CorruptStoreError, FLTError) and issubclass(CorruptStoreError, ValueError)


def test_foreign_sqlite_database_is_refused_untouched(tmp_path):
    path = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO customers VALUES (1, 'Ada')")
        conn.commit()
    before = digest(path)
    with pytest.raises(ForeignStoreError, match=r"another application \(tables: customers\).*left this one untouched"):
        sweep("test/poly", {"x": [1.0]}, store=path, progress=False)
    assert digest(path) == before
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT name FROM customers").fetchall() == [("Ada",)]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    sweep("test/poly", {"x": [1.0]}, store=path, progress=False)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE flt_store SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
        conn.commit()
    with pytest.raises(ForeignStoreError, match="newer flt_theory"):
        ResultStore(path)


def test_truncated_database_is_reported_as_damaged(tmp_path):
    path = tmp_path / "r.sqlite"
    sweep("test/poly", {"x": [float(i) for i in range(50)]}, seeds=4, store=path, progress=False)
    with contextlib.closing(sqlite3.connect(path)) as conn:  # fold the WAL into the main file
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\xff" * 300 + data[400:])
    with pytest.raises(CorruptStoreError):
        load_results(path)


class _DiskFull:
    """A connection whose writes fail as on a full disk; reads go through."""

    def __init__(self, conn):
        self._conn = conn

    def execute(self, sql, *args):
        if sql.lstrip().upper().startswith("INSERT"):
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def test_full_disk_stops_the_sweep_and_keeps_stored_results(tmp_path, monkeypatch):
    path = tmp_path / "r.sqlite"
    sweep("test/poly", {"x": [1.0, 2.0]}, seeds=2, store=path, progress=False)
    before = load_results(path, provenance=True)
    with ResultStore(path) as store:
        monkeypatch.setattr(store, "_conn", _DiskFull(store._conn))
        with pytest.raises(
            StoreWriteError, match=r"database or disk is full.*nothing was half-written and the 4 results"
        ):
            sweep("test/poly", {"x": [1.0, 2.0, 3.0]}, seeds=2, store=store, progress=False)
        monkeypatch.undo()
    after = load_results(path, provenance=True)
    assert after.equals(before)
    assert issubclass(StoreWriteError, OSError) and issubclass(StoreWriteError, FLTError)
    resumed = sweep("test/poly", {"x": [1.0, 2.0, 3.0]}, seeds=2, store=path, progress=False)
    assert (resumed.attrs["computed"], resumed.attrs["reused"]) == (2, 4)


def test_paths_that_cannot_be_stores(tmp_path):
    with pytest.raises(StoreError, match="is a directory"):
        ResultStore(tmp_path)
    with pytest.raises(StoreError, match="does not exist"):
        ResultStore(tmp_path / "missing" / "r.sqlite")
    with pytest.raises(StoreError, match="no results store"):
        load_results(tmp_path / "absent.sqlite")
    assert not (tmp_path / "absent.sqlite").exists()


def test_store_rows_and_empty_file(tmp_path):
    path = tmp_path / "empty.sqlite"
    path.touch()  # an empty file is an empty database: it becomes a store
    with ResultStore(path) as store:
        row = make_row("demo", {"a": [1, 2], "b": "x"}, 3, {"v": float("nan")}, wall_time=0.5)
        assert store.put(row) and not store.put(row)
        (got,) = store.rows()
        assert (
            got["params"] == {"a": [1, 2], "b": "x"} and got["seed"] == 3 and got["result"]["v"] != got["result"]["v"]
        )
        assert store.experiments() == ["demo"] and store.count("demo") == 1
