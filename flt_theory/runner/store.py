r"""The results store: one SQLite file, one row per ``(experiment, params, seed)``.

Row identity. :func:`point_id` hashes the canonical JSON of ``{"experiment", "params", "seed"}``
(keys sorted, no spaces, finite numbers only; and the experiment's ``version`` when it is not 0) with
SHA-256; it is the primary key, so a point is stored at most once whoever computes it, and re-running
a sweep computes only the missing ids.

Rows tied to their code. Each row also stores the ``code_fingerprint`` of the code that computed it
(:mod:`.fingerprint`: the experiment function's source and the project modules it imports). The
fingerprint is checked on read rather than put in the key, so that a row of edited code is *replaced*,
not kept beside the new one: a sweep treats a stored row whose fingerprint differs from its
experiment's current one (or is empty) as **stale**, recomputes it and overwrites it (:meth:`ResultStore.put`
replaces a row of another fingerprint), and never returns it; the count is ``frame.attrs["stale"]``.

Schema versions. Version 1 had no ``code_fingerprint`` column: opening such a store for writing
migrates it in place (one transaction: the column is added, empty, and the version set to 2), so its
rows are stale — kept, never served, replaced as sweeps recompute them. Opened read-only it is read
as it is (an empty fingerprint).

Durability. The file is in WAL mode and every result is ONE ``INSERT`` statement in
autocommit mode, i.e. one transaction: a process killed at any moment (SIGKILL included) leaves
either the whole row or none of it. ``synchronous=NORMAL``: a committed row survives the death of
the process; only a power cut may lose the last few commits, never corrupt the file.

Safety. A store is opened only if it is empty or was created by flt_theory (table ``flt_store``
with format ``flt_theory.results``); a text file, a damaged database or another application's
database raises :class:`~flt_theory.runner.errors.CorruptStoreError` /
:class:`~flt_theory.runner.errors.ForeignStoreError` before anything is written to it. A failed
write (disk full, read-only file) raises :class:`~flt_theory.runner.errors.StoreWriteError`; the
rows already stored are untouched.

>>> with ResultStore(":memory:") as store:
...     row = make_row("demo", {"x": 1.0}, 0, {"y": 2.0}, wall_time=0.1)
...     store.put(row), store.put(row), len(store)
(True, False, 1)
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import numbers
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameterError, InvalidParameterTypeError
from .errors import CorruptStoreError, ForeignStoreError, StoreError, StoreWriteError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "FORMAT",
    "PROVENANCE_COLUMNS",
    "SCHEMA_VERSION",
    "ResultStore",
    "canonical_json",
    "make_row",
    "point_id",
    "point_id_from_json",
]

FORMAT = "flt_theory.results"
SCHEMA_VERSION = 2

#: Provenance columns, in table order (``wall_time`` in seconds; ``finished_at`` UTC ISO 8601;
#: ``code_fingerprint``: :mod:`.fingerprint`, empty in rows of schema 1).
PROVENANCE_COLUMNS = (
    "wall_time", "finished_at", "flt_version", "git_commit", "python_version", "torch_version", "sympy_version",
    "numpy_version", "device", "dtype", "host", "torch_threads", "code_fingerprint",
)
_COLUMNS = ("id", "experiment", "params", "seed", "result") + PROVENANCE_COLUMNS
#: The columns of a schema-1 store (everything but ``code_fingerprint``, added by the migration to 2).
_COLUMNS_V1 = _COLUMNS[:-1]
_SCHEMA = f"""
CREATE TABLE flt_store (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE flt_results (
    id TEXT PRIMARY KEY,
    experiment TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    result TEXT NOT NULL,
    wall_time REAL NOT NULL,
    finished_at TEXT NOT NULL,
    {", ".join(f"{c} {'INTEGER' if c == 'torch_threads' else 'TEXT'}" for c in PROVENANCE_COLUMNS[2:])}
);
CREATE INDEX flt_results_experiment ON flt_results (experiment);
INSERT INTO flt_store VALUES ('format', '{FORMAT}'), ('schema_version', '{SCHEMA_VERSION}');
"""
#: Insert a row; one of the same id is replaced only when it was stored with another code fingerprint (stale).
_INSERT = (
    f"INSERT INTO flt_results ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
    f"ON CONFLICT (id) DO UPDATE SET {', '.join(f'{c} = excluded.{c}' for c in _COLUMNS[1:])} "
    "WHERE flt_results.code_fingerprint IS NOT excluded.code_fingerprint"
)
_CHUNK = 500  # ids per IN (...) query, below SQLite's parameter limit


def _plain(value: Any, where: str) -> Any:
    """``value`` as JSON builtins (numpy scalars and tuples converted); raises on anything else."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise InvalidParameterError(f"{where} must be finite. Got {number} instead.")
        return number
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidParameterTypeError(f"{where} must have str keys. Got {key!r} instead.")
            out[key] = _plain(item, f"{where}[{key!r}]")
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{where}[{i}]") for i, item in enumerate(value)]
    raise InvalidParameterTypeError(
        f"{where} must be None, bool, int, float, str, or a list or dict of those. Got {value!r} of type "
        f"{type(value).__name__} instead."
    )


def canonical_json(value: Any, where: str = "The value") -> str:
    """Canonical JSON: sorted keys, no spaces, finite numbers, numpy scalars as builtins.

    >>> canonical_json({"b": 1, "a": [0.5, "x"]})
    '{"a":[0.5,"x"],"b":1}'
    """
    return json.dumps(_plain(value, where), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def point_id(experiment: str, params: Mapping[str, Any], seed: int, version: int = 0) -> str:
    """SHA-256 (hex) of the canonical JSON of ``(experiment, params, seed)`` — and of the experiment's
    ``version`` when it is not 0 (an experiment whose numbers changed bumps it, so rows stored by the
    earlier code are not reused): a point's primary key.

    >>> point_id("demo", {"x": 1}, 0) == point_id("demo", {"x": 1}, 0) != point_id("demo", {"x": 1}, 1)
    True
    >>> point_id("demo", {"x": 1}, 0) != point_id("demo", {"x": 1}, 0, version=2)
    True
    """
    return point_id_from_json(experiment, canonical_json(params, "The parameters"), seed, version)


def point_id_from_json(experiment: str, params_json: str, seed: int, version: int = 0) -> str:
    """:func:`point_id` from the parameters' canonical JSON (computed once per point by sweeps).

    >>> point_id_from_json("demo", canonical_json({"x": 1}), 0) == point_id("demo", {"x": 1}, 0)
    True
    """
    name = json.dumps(experiment, ensure_ascii=False)
    text = f'{{"experiment":{name},"params":{params_json},"seed":{int(seed)}}}'
    if version:
        text = text[:-1] + f',"version":{int(version)}}}'
    return hashlib.sha256(text.encode()).hexdigest()


def make_row(
    experiment: str,
    params: Mapping[str, Any],
    seed: int,
    values: Mapping[str, float],
    *,
    wall_time: float,
    finished_at: str | None = None,
    params_json: str | None = None,
    version: int = 0,
    **provenance: Any,
) -> dict[str, Any]:
    """One row of the store (``provenance`` keys among :data:`PROVENANCE_COLUMNS`; ``params_json``:
    the parameters' canonical JSON, when the caller has it already)."""
    unknown = set(provenance) - set(PROVENANCE_COLUMNS)
    if unknown:
        raise InvalidParameterError(f"Unknown provenance fields {sorted(unknown)}; known: {list(PROVENANCE_COLUMNS)}.")
    params_json = params_json if params_json is not None else canonical_json(params, "The parameters")
    row = {
        "id": point_id_from_json(experiment, params_json, seed, version),
        "experiment": experiment,
        "params": params_json,
        "seed": int(seed),
        "result": json.dumps({k: float(v) for k, v in values.items()}),  # nan/inf kept as JSON tokens
        "wall_time": float(wall_time),
        "finished_at": finished_at or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    for column in PROVENANCE_COLUMNS[2:]:
        row[column] = provenance.get(column)
    return row


def _run_name(column: str, params: Mapping[str, Any]) -> str:
    return f"run_{column}" if column in params else column


class ResultStore:
    """An SQLite results store (module docstring).

    Parameters
    ----------
    path
        A file (created if missing; its folder must exist) or ``":memory:"``.
    readonly
        Open an existing store for reading only (:func:`~flt_theory.runner.load_results`).

    Raises
    ------
    CorruptStoreError, ForeignStoreError, StoreError
        The file is not a results store of flt_theory; it is left untouched.
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:", *, readonly: bool = False):
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidParameterTypeError(
                f"The 'store' parameter must be a path, ':memory:' or a ResultStore. Got {path!r} of type "
                f"{type(path).__name__} instead."
            )
        self.path = str(path)
        self.readonly = readonly
        # what rows() selects for the fingerprint and all columns (NULL in an unmigrated read-only store)
        self._fingerprint = "code_fingerprint"
        self._select = ", ".join(_COLUMNS)
        self._conn = self._connect()
        try:
            self._open()
        except BaseException:
            self._conn.close()
            raise

    # -- opening -----------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self.path == ":memory:":
            return sqlite3.connect(":memory:", isolation_level=None)
        file = Path(self.path)
        if file.is_dir():
            raise StoreError(f"results store {self.path!r} is a directory; give a file path such as results.sqlite")
        if not file.exists():
            if self.readonly:
                raise StoreError(f"no results store at {self.path!r} (the file does not exist)")
            if not file.parent.is_dir():
                raise StoreError(f"cannot create results store {self.path!r}: folder {str(file.parent)!r} does not "
                                 "exist")
        mode = "ro" if self.readonly else ("rw" if file.exists() else "rwc")
        uri = f"{file.resolve().as_uri()}?mode={mode}"
        try:
            return sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open results store {self.path!r}: {exc}") from None

    def _open(self) -> None:
        try:
            tables = {name for (name,) in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise CorruptStoreError(
                f"{self.path!r} is not an flt_theory results store: SQLite says {exc!s}. The file was left untouched; "
                "give another path, or move the file away."
            ) from None
        if not tables:
            if not self.readonly:
                self._initialize()
            return
        if "flt_store" not in tables:
            raise ForeignStoreError(
                f"{self.path!r} is an SQLite database of another application (tables: {', '.join(sorted(tables))}); "
                "flt_theory writes only to its own stores and left this one untouched. Give another path."
            )
        try:
            meta = dict(self._conn.execute("SELECT key, value FROM flt_store"))
            columns = {row[1] for row in self._conn.execute("PRAGMA table_info(flt_results)")}
        except sqlite3.DatabaseError as exc:
            raise CorruptStoreError(f"results store {self.path!r} is damaged: SQLite says {exc!s}.") from None
        if meta.get("format") != FORMAT:
            raise ForeignStoreError(
                f"{self.path!r} has a table flt_store but its format is {meta.get('format')!r}, not {FORMAT!r}; "
                "it was left untouched. Give another path."
            )
        try:
            version = int(meta.get("schema_version", "0"))
        except ValueError:
            version = -1
        if version > SCHEMA_VERSION:
            raise ForeignStoreError(
                f"results store {self.path!r} has schema version {version}, written by a newer flt_theory "
                f"(this one reads version {SCHEMA_VERSION}); it was left untouched. Upgrade flt_theory."
            )
        required = _COLUMNS_V1 if version == 1 else _COLUMNS
        if version < 1 or not set(required) <= columns:
            raise CorruptStoreError(
                f"results store {self.path!r} is damaged: schema version {meta.get('schema_version')!r}, "
                f"missing columns {sorted(set(required) - columns)}. It was left untouched."
            )
        if not self.readonly:
            self._pragma("PRAGMA synchronous = NORMAL")
            if version < SCHEMA_VERSION:
                self._migrate()
        elif version < SCHEMA_VERSION:  # read as it is: the fingerprint it lacks reads as empty
            self._fingerprint = "NULL"
            self._select = ", ".join(_COLUMNS_V1) + ", NULL AS code_fingerprint"

    def _migrate(self) -> None:
        """Schema 1 -> 2 in one transaction: add the empty ``code_fingerprint`` column (the rows become stale)."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                columns = {row[1] for row in self._conn.execute("PRAGMA table_info(flt_results)")}
                if "code_fingerprint" not in columns:  # another process may have migrated it meanwhile
                    self._conn.execute("ALTER TABLE flt_results ADD COLUMN code_fingerprint TEXT")
                self._conn.execute(
                    "UPDATE flt_store SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.rollback()
                raise
        except sqlite3.Error as exc:
            raise self._write_error(exc, f"migrate it from schema version 1 to {SCHEMA_VERSION}") from None

    def _pragma(self, statement: str) -> None:
        try:
            self._conn.execute(statement).fetchall()
        except sqlite3.Error as exc:
            raise self._write_error(exc, "configure") from None

    def _initialize(self) -> None:
        self._pragma("PRAGMA journal_mode = WAL")
        self._pragma("PRAGMA synchronous = NORMAL")
        try:
            self._conn.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
        except sqlite3.Error as exc:
            if self._conn.in_transaction:
                self._conn.rollback()
            try:  # another process may have initialised it meanwhile
                if "flt_store" in {n for (n,) in self._conn.execute("SELECT name FROM sqlite_master")}:
                    return
            except sqlite3.Error:
                pass
            raise self._write_error(exc, "initialise") from None

    # -- errors ------------------------------------------------------------------------------

    def _write_error(self, exc: sqlite3.Error, action: str) -> StoreError:
        text = str(exc)
        if isinstance(exc, sqlite3.DatabaseError) and ("malformed" in text or "not a database" in text):
            return CorruptStoreError(f"results store {self.path!r} is damaged: SQLite says {text} (while trying to "
                                     f"{action}).")
        try:
            kept = f"the {self._count()} results already stored are intact"
        except Exception:  # noqa: BLE001 - the count is informative only
            kept = "the results already stored are intact"
        return StoreWriteError(
            f"could not write to results store {self.path!r} ({text}) while trying to {action}; nothing was "
            f"half-written and {kept}. Free space or fix permissions, then re-run the same command to resume."
        )

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._conn.execute(sql, tuple(args)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise CorruptStoreError(f"cannot read results store {self.path!r}: SQLite says {exc!s}.") from None

    def _has_table(self) -> bool:
        return bool(self._read("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'flt_results'"))

    def _count(self, experiment: str | None = None) -> int:
        if not self._has_table():
            return 0
        if experiment is None:
            return int(self._read("SELECT COUNT(*) FROM flt_results")[0][0])
        return int(self._read("SELECT COUNT(*) FROM flt_results WHERE experiment = ?", (experiment,))[0][0])

    # -- public ------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._count()

    def count(self, experiment: str | None = None) -> int:
        """Number of stored rows (of one ``experiment``)."""
        return self._count(experiment)

    def experiments(self) -> list[str]:
        """Names of the experiments with at least one row."""
        if not self._has_table():
            return []
        return [name for (name,) in self._read("SELECT DISTINCT experiment FROM flt_results ORDER BY experiment")]

    def existing(self, ids: Iterable[str]) -> set[str]:
        """The subset of ``ids`` already stored (whatever code stored them; see :meth:`fingerprints`)."""
        return set(self.fingerprints(ids))

    def fingerprints(self, ids: Iterable[str]) -> dict[str, str | None]:
        """The stored ones of ``ids`` -> the code fingerprint stored with each (None: a row of schema 1).

        >>> with ResultStore(":memory:") as store:
        ...     _ = store.put(make_row("demo", {"x": 1.0}, 0, {"y": 2.0}, wall_time=0.1, code_fingerprint="abc"))
        ...     store.fingerprints([point_id("demo", {"x": 1.0}, 0), point_id("demo", {"x": 2.0}, 0)]).values()
        dict_values(['abc'])
        """
        ids = list(ids)
        if not ids or not self._has_table():
            return {}
        found: dict[str, str | None] = {}
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            found.update(
                self._read(
                    f"SELECT id, {self._fingerprint} FROM flt_results WHERE id IN ({','.join('?' * len(chunk))})", chunk
                )
            )
        return found

    def delete(self, ids: Iterable[str]) -> int:
        """Remove the rows ``ids``; the number removed (used to recompute them: ``sweep(..., fresh=True)``)."""
        if self.readonly:
            raise StoreError(f"results store {self.path!r} was opened read-only")
        ids = list(ids)
        removed = 0
        try:
            with self._conn:
                for start in range(0, len(ids), _CHUNK):
                    chunk = ids[start : start + _CHUNK]
                    removed += self._conn.execute(
                        f"DELETE FROM flt_results WHERE id IN ({','.join('?' * len(chunk))})", chunk
                    ).rowcount
        except sqlite3.Error as exc:
            raise self._write_error(exc, f"delete {len(ids)} rows") from None
        return removed

    def put(self, row: Mapping[str, Any]) -> bool:
        """Insert one row (from :func:`make_row`) in one transaction, replacing a stored row of the same id
        only when that one has another ``code_fingerprint`` (stale); False if its id was already stored with
        the same fingerprint (nothing changed)."""
        if self.readonly:
            raise StoreError(f"results store {self.path!r} was opened read-only")
        values = tuple(row[c] for c in _COLUMNS)
        try:
            cursor = self._conn.execute(_INSERT, values)
        except sqlite3.Error as exc:
            raise self._write_error(exc, f"store point {row['params']} seed {row['seed']}") from None
        return cursor.rowcount == 1

    def rows(self, *, ids: Sequence[str] | None = None, experiment: str | None = None,
             code_fingerprint: str | None = None) -> list[dict[str, Any]]:
        """Stored rows as dicts with ``params`` and ``result`` decoded: in ``ids`` order when given
        (missing ids skipped), else sorted by experiment, parameters and seed; with ``code_fingerprint``,
        only the rows stored with that fingerprint (the others are skipped like missing ids)."""
        if not self._has_table():
            return []
        select = f"SELECT {self._select} FROM flt_results"
        code = ("", ()) if code_fingerprint is None else (f" AND {self._fingerprint} IS ?", (code_fingerprint,))
        if ids is not None:
            ids = list(ids)
            found: dict[str, tuple[Any, ...]] = {}
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                for raw in self._read(
                    f"{select} WHERE id IN ({','.join('?' * len(chunk))}){code[0]}", [*chunk, *code[1]]
                ):
                    found[raw[0]] = raw
            raws = [found[i] for i in dict.fromkeys(ids) if i in found]
        elif experiment is not None:
            raws = self._read(f"{select} WHERE experiment = ?{code[0]} ORDER BY params, seed", (experiment, *code[1]))
        else:
            raws = self._read(f"{select} WHERE 1{code[0]} ORDER BY experiment, params, seed", code[1])
        out = []
        for raw in raws:
            row = dict(zip(_COLUMNS, raw))
            try:
                row["params"] = json.loads(row["params"])
                row["result"] = json.loads(row["result"])
            except (TypeError, ValueError) as exc:
                raise CorruptStoreError(f"results store {self.path!r} has an undecodable row {row['id']}: "
                                        f"{exc}") from None
            out.append(row)
        return out

    def frame(
        self,
        *,
        ids: Sequence[str] | None = None,
        experiment: str | None = None,
        provenance: bool = False,
        param_order: Sequence[str] = (),
        code_fingerprint: str | None = None,
    ) -> pd.DataFrame:
        """The rows (of :meth:`rows`) as a DataFrame: ``experiment``, one column per parameter, ``seed``, one
        column per result, then (``provenance=True``) :data:`PROVENANCE_COLUMNS` and ``id`` (``device``/``dtype``
        become ``run_device``/``run_dtype`` when the experiment has parameters of those names)."""
        import pandas as pd

        rows = self.rows(ids=ids, experiment=experiment, code_fingerprint=code_fingerprint)
        params_seen: dict[str, None] = dict.fromkeys(param_order)
        values_seen: dict[str, None] = {}
        for row in rows:
            params_seen.update(dict.fromkeys(row["params"]))
            values_seen.update(dict.fromkeys(row["result"]))
        names = {c: _run_name(c, params_seen) for c in PROVENANCE_COLUMNS}
        records = []
        for row in rows:
            record = {"experiment": row["experiment"], **row["params"], "seed": row["seed"], **row["result"]}
            if provenance:
                record.update({names[c]: row[c] for c in PROVENANCE_COLUMNS}, id=row["id"])
            records.append(record)
        columns = ["experiment", *params_seen, "seed", *values_seen]
        if provenance:
            columns += [*names.values(), "id"]
        return pd.DataFrame.from_records(records, columns=columns)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultStore({self.path!r})"
