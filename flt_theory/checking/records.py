r"""The schemas of the JSON files the commands read, and the one reader that checks them before anything runs.

Three kinds of file are read: **verdict records** (``flt check --record FILE``,
:data:`.scale_record.RECORD`), **calibration records** (``flt calibrate --record FILE``, :data:`.power.RECORD`) and
the **BEFORE** files of ``--restamp-from`` (a verdict record written by older code, often ``git show
REV:flt_theory/report/verdict_record.json``). Each is read once by :func:`load_json_file` and checked against its
schema (:data:`VERDICT_RECORD`, :data:`CALIBRATION_RECORD`, :data:`BEFORE_RECORD`) before any claim is measured or
any record written; a file that does not conform raises :class:`RecordFileError` (exit code 2 in the CLI), one line
that names the option, the file and the field::

    --restamp-from: BEFORE.json: entries[3].scale: missing
    --record: r.json: not valid JSON at line 4, column 2 (Expecting ',' delimiter)
    --restamp-from: b.json: not UTF-8 (byte 0xff at offset 0)

A schema lists the fields the code reads, each with its kind (:class:`Text`, :class:`Number`, :class:`Flag`,
:class:`Values`, :class:`ListOf`, :class:`MapOf`, :class:`Record`); fields it does not list are kept as they are, so
a record written by newer code still reads. The file itself is refused when it is not a regular file, larger than
:data:`MAX_BYTES`, not UTF-8, not JSON, nested deeper than :data:`MAX_DEPTH`, or holds a number a float cannot hold
where a number is read. :func:`load_json_file` also returns the SHA-256 of the bytes it read: a carry-over names the
BEFORE file it relied on by that hash (:func:`.calibrate.restamped`).

>>> import json, pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "BEFORE.json"
>>> _ = path.write_text(json.dumps({"entries": [{"claim": "a/b", "scale": "small", "fingerprint": "f"}]}))
>>> load_json_file(path, BEFORE_RECORD, "--restamp-from")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
flt_theory.checking.records.RecordFileError: --restamp-from: ...BEFORE.json: entries[0].code_fingerprint: missing
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import InvalidParameterError
from ..systems.declaration import SCALES

__all__ = [
    "BEFORE_RECORD", "CALIBRATION_RECORD", "MAX_BYTES", "MAX_DEPTH", "VERDICT_RECORD", "Flag", "ListOf", "MapOf",
    "Number", "OrNull", "Record", "RecordFileError", "Text", "Values", "load_json_file", "validate",
]

#: The largest file read as a record (the package's verdict record is about 0.3 MB).
MAX_BYTES = 64 * 2**20
#: The deepest nesting of arrays and objects read (a record nests 4 deep).
MAX_DEPTH = 64


class RecordFileError(InvalidParameterError):
    """An input file that is not a record of its kind: ``OPTION: FILE: FIELD: problem`` (module docstring)."""


class _Problem(Exception):
    """A field that does not conform, with where it lies (``entries[3].scale``) and what is wrong."""

    def __init__(self, where: str, problem: str):
        super().__init__(where, problem)
        self.where, self.problem = where, problem


def _kind_of(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), "a number")


def _short(value: Any) -> str:
    """``repr(value)``, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Kind:
    """A kind of JSON value a schema declares; :meth:`check` raises :class:`_Problem` where ``value`` is not one."""

    expected = "a value"

    def check(self, value: Any, where: str) -> None:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def expected_text(self) -> str:
        """What the kind expects, as the error says it."""
        return self.expected

    def refuse(self, value: Any, where: str) -> _Problem:
        return _Problem(where, f"expected {self.expected_text()}, got {_kind_of(value)}")


@dataclasses.dataclass(frozen=True)
class Text(_Kind):
    """A string; one of ``choices`` where given."""

    choices: tuple[str, ...] | None = None
    nullable: bool = False
    expected = "a string"

    def check(self, value: Any, where: str) -> None:
        if value is None and self.nullable:
            return
        if not isinstance(value, str):
            raise self.refuse(value, where)
        if self.choices is not None and value not in self.choices:
            raise _Problem(where, f"expected one of {', '.join(self.choices)}, got {_short(value)}")


@dataclasses.dataclass(frozen=True)
class Number(_Kind):
    """A finite number (an int with ``integer``) in ``[low, high]`` (``(low, high)`` with ``open``)."""

    low: float | None = None
    high: float | None = None
    integer: bool = False
    open: bool = False
    nullable: bool = False

    def expected_text(self) -> str:
        return "an integer" if self.integer else "a number"

    def check(self, value: Any, where: str) -> None:
        if value is None and self.nullable:
            return
        if isinstance(value, bool) or not isinstance(value, int if self.integer else (int, float)):
            raise self.refuse(value, where)
        try:
            number = float(value)
        except OverflowError:
            raise _Problem(where, f"{self.expected_text()} too large for a float: {_short(value)}") from None
        if not math.isfinite(number):
            raise _Problem(where, f"expected a finite number, got {_short(value)}")
        low_ok = self.low is None or (number > self.low if self.open else number >= self.low)
        high_ok = self.high is None or (number < self.high if self.open else number <= self.high)
        if not (low_ok and high_ok):
            brackets = "()" if self.open else "[]"
            bounds = f"{brackets[0]}{'-inf' if self.low is None else f'{self.low:g}'}, " \
                     f"{'inf' if self.high is None else f'{self.high:g}'}{brackets[1]}"
            raise _Problem(where, f"expected {self.expected_text()} in {bounds}, got {_short(value)}")


@dataclasses.dataclass(frozen=True)
class Flag(_Kind):
    """``true`` or ``false``."""

    expected = "true/false"

    def check(self, value: Any, where: str) -> None:
        if not isinstance(value, bool):
            raise self.refuse(value, where)


@dataclasses.dataclass(frozen=True)
class Values(_Kind):
    """A measured value as the verdict table holds it: null, a finite number, a string, or a list of such values
    (a vector estimate, its intervals)."""

    expected = "a number, a string, null or a list of them"

    def check(self, value: Any, where: str) -> None:
        if isinstance(value, list):
            for i, item in enumerate(value):
                self.check(item, f"{where}[{i}]")
        elif value is not None and not isinstance(value, str):
            if isinstance(value, (dict, bool)):
                raise self.refuse(value, where)
            Number().check(value, where)


@dataclasses.dataclass(frozen=True)
class ListOf(_Kind):
    """A list whose items are each ``item``; of ``length`` items where given."""

    item: _Kind
    length: int | None = None
    expected = "a list"

    def check(self, value: Any, where: str) -> None:
        if not isinstance(value, list):
            raise self.refuse(value, where)
        if self.length is not None and len(value) != self.length:
            raise _Problem(where, f"expected {self.length} items, got {len(value)}")
        for i, item in enumerate(value):
            self.item.check(item, f"{where}[{i}]")


@dataclasses.dataclass(frozen=True)
class MapOf(_Kind):
    """An object whose values are each ``value`` (its keys are strings in JSON)."""

    value: _Kind
    expected = "an object"

    def check(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise self.refuse(value, where)
        for key, item in value.items():
            self.value.check(item, f"{where}.{key}")


@dataclasses.dataclass(frozen=True)
class OrNull(_Kind):
    """``null`` or a value of ``kind``."""

    kind: _Kind

    def expected_text(self) -> str:
        return f"null or {self.kind.expected_text()}"

    def check(self, value: Any, where: str) -> None:
        if value is not None:
            self.kind.check(value, where)


#: A rule across fields: the problem (where, what) with ``value`` (an object that passed its fields), or None.
Rule = Callable[[dict[str, Any], str], "tuple[str, str] | None"]


@dataclasses.dataclass(frozen=True)
class Record(_Kind):
    """An object with the ``required`` fields and, where present, the ``optional`` ones, each of its kind; other
    fields are kept unread. ``rules`` check what spans fields (e.g. one entry per claim and scale)."""

    required: Mapping[str, _Kind]
    optional: Mapping[str, _Kind] = dataclasses.field(default_factory=dict)
    rules: tuple[Rule, ...] = ()
    expected = "an object"

    def check(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise self.refuse(value, where or "the document")
        for name, kind in self.required.items():
            if name not in value:
                raise _Problem(_join(where, name), "missing")
            kind.check(value[name], _join(where, name))
        for name, kind in self.optional.items():
            if name in value:
                kind.check(value[name], _join(where, name))
        for rule in self.rules:
            problem = rule(value, where)
            if problem is not None:
                raise _Problem(*problem)

    def extended(self, required: Mapping[str, _Kind] | None = None, optional: Mapping[str, _Kind] | None = None
                 ) -> Record:
        """This schema with more fields (a field named again takes its new kind and place)."""
        new_required = {**{k: v for k, v in self.required.items() if k not in (optional or {})}, **(required or {})}
        new_optional = {**{k: v for k, v in self.optional.items() if k not in new_required}, **(optional or {})}
        return Record(new_required, new_optional, self.rules)


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _unique_entries(field: str) -> Rule:
    """Each claim at most once per scale in the list ``field`` (a second entry would shadow the first)."""

    def rule(value: dict[str, Any], where: str) -> tuple[str, str] | None:
        seen: set[tuple[str, str]] = set()
        for i, entry in enumerate(value[field]):
            key = (entry["claim"], entry.get("scale", ""))
            if key in seen:
                return f"{_join(where, field)}[{i}]", f"a second entry of {key[0]!r}" + (
                    f" at scale {key[1]!r}" if key[1] else "")
            seen.add(key)
        return None

    return rule


def _law_passed_per_repeat(value: dict[str, Any], where: str) -> tuple[str, str] | None:
    """Each claim's ``law_passed`` holds one result per repeat of the record."""
    for i, entry in enumerate(value["claims"]):
        if len(entry["law_passed"]) != value["repeats"]:
            return (f"{_join(where, 'claims')}[{i}].law_passed",
                    f"expected {value['repeats']} results (one per repeat), got {len(entry['law_passed'])}")
    return None


_TEXT, _MAYBE_TEXT = Text(), Text(nullable=True)
_COUNT, _FAMILY = Number(low=0, integer=True), Number(low=1, integer=True)
_ALPHA = Number(low=0, high=1, open=True)
_P_VALUE = Number(low=0, nullable=True)

#: The small-scale verdict a carry-over relied on (:data:`.calibrate.REPRODUCED`, the verdict and its family, and
#: the small-scale claim's fingerprint where kept), kept in each carry-over's evidence (``restamped[i].small``) and
#: compared by ``flt check --verify-record``.
SMALL_VERDICT = Record(required={}, optional={
    "n_seeds": Number(low=0, integer=True, nullable=True), "measured": Values(), "ci": Values(),
    "p_check": _P_VALUE, "p_control": _P_VALUE, "message": _MAYBE_TEXT, "control_message": _MAYBE_TEXT,
    "seed_base": _COUNT, "alpha": _ALPHA, "verdict": _TEXT, "family": _FAMILY, "fingerprint": _TEXT,
})

#: One carry-over of an entry (:func:`.calibrate.restamped`); ``source_sha256`` and ``source_git_commit`` name the
#: BEFORE file it relied on (absent in carry-overs made before they were kept: "source not hashed").
EVIDENCE = Record(
    required={"from_code_fingerprint": _TEXT},
    optional={"date": _TEXT, "git_commit": _MAYBE_TEXT, "reproduced": _TEXT,
              "source_sha256": Text(), "source_git_commit": _TEXT, "small": SMALL_VERDICT},
)

#: An entry of a BEFORE file: what a carry-over reads of it (older records lack ``seed_base``, ``alpha``,
#: ``family``: ``calibrate._UNRECORDED`` supplies them).
BEFORE_ENTRY = SMALL_VERDICT.extended(
    required={"claim": _TEXT, "scale": Text(choices=SCALES), "fingerprint": _TEXT, "code_fingerprint": _TEXT},
    optional={"git_commit": _MAYBE_TEXT, "restamped": ListOf(EVIDENCE),
              "redecided": ListOf(Record(required={"from_family": _FAMILY}))},
)
#: A BEFORE file of ``--restamp-from`` (and the verdict record ``flt calibrate --restamp-from`` reads as the
#: verdicts of now): a verdict record of which only what the carry-over reads is required.
BEFORE_RECORD = Record(required={"entries": ListOf(BEFORE_ENTRY)}, rules=(_unique_entries("entries"),))

#: One rung of a recorded ladder of effective exponents (``effective``: the local exponent between two sizes) and the
#: extrapolated limit (``limit``), as :func:`flt_theory.report.scale_record.effective_text` reads them.
_ESTIMATE, _INTERVAL = Number(nullable=True), ListOf(Number(nullable=True), length=2)
_EFFECTIVE = Record(required={"from": Number(), "to": Number(), "estimate": _ESTIMATE, "ci": _INTERVAL})
_LIMIT = Record(required={"estimate": _ESTIMATE, "ci": _INTERVAL, "model": _TEXT})
#: One rung of a claim's own size ladder (``ladder``): its size, the measured quantity and its interval, and the law's
#: and the literal statement's values where the ladder gives them.
_RUNG = Record(required={"size": MapOf(Number()), "estimate": _ESTIMATE, "ci": _INTERVAL},
               optional={"predicted": Number(nullable=True), "literal": Number(nullable=True)})
#: An entry of a verdict record (:func:`.scale_record.verdict_entries`): what a merge, a carry-over, the catalogue
#: and the report read of it.
VERDICT_ENTRY = BEFORE_ENTRY.extended(
    required={"verdict": _TEXT, "seconds": Number(low=0, nullable=True), "created": _TEXT,
              "hardware": Record(required={"device": _TEXT, "cores": Number(low=0, integer=True, nullable=True),
                                           "torch_threads": _COUNT},
                                 optional={"gpu": _MAYBE_TEXT,
                                           "jobs": Number(low=1, integer=True, nullable=True)})},
    optional={"passed": Flag(), "level": Number(low=0, nullable=True), "in_hypotheses": _MAYBE_TEXT,
              "effective": OrNull(ListOf(_EFFECTIVE)), "limit": OrNull(_LIMIT), "ladder": OrNull(ListOf(_RUNG)),
              "no_ladder": _MAYBE_TEXT, "seconds_carried": Flag()},
)
#: A verdict record (``flt check --record FILE``; the package's :data:`.scale_record.RECORD`).
VERDICT_RECORD = Record(required={"entries": ListOf(VERDICT_ENTRY)}, rules=(_unique_entries("entries"),))

#: One mutant's row in a calibration entry (:func:`.calibrate.calibrate`).
_MUTANT = Record(required={"kind": _TEXT, "size": Number(), "label": _TEXT, "rejected": _COUNT,
                           "fraction": Number(low=0, high=1), "inert": Flag()})
#: A claim's entry of a calibration record (records written before code fingerprints lack ``code_fingerprint``).
CALIBRATION_ENTRY = Record(
    required={"claim": _TEXT, "fingerprint": _TEXT, "repeats": Number(low=1, integer=True),
              "false_rejections": _COUNT, "false_rejection_ci": ListOf(Number(low=0, high=1), length=2),
              "law_passed": ListOf(Flag()), "mutants": ListOf(_MUTANT), "power": MapOf(Number(nullable=True))},
    optional={"code_fingerprint": _TEXT, "restamped": ListOf(EVIDENCE)},
)
#: A calibration record (``flt calibrate --record FILE``; the package's :data:`.power.RECORD`).
CALIBRATION_RECORD = Record(
    required={"scale": Text(choices=SCALES), "repeats": Number(low=1, integer=True), "alpha": _ALPHA,
              "runs_rejecting_a_true_law": _COUNT, "claims": ListOf(CALIBRATION_ENTRY)},
    optional={"power_level": Number(low=0, high=1), "level": Number(low=0), "created": _TEXT,
              "git_commit": _MAYBE_TEXT},
    rules=(_unique_entries("claims"), _law_passed_per_repeat),
)


def validate(document: Any, schema: Record, label: str) -> None:
    """Raise :class:`RecordFileError` (``LABEL: FIELD: problem``) where ``document`` does not conform to
    ``schema``.

    >>> validate({"entries": 5}, VERDICT_RECORD, "--record: r.json")
    Traceback (most recent call last):
    ...
    flt_theory.checking.records.RecordFileError: --record: r.json: entries: expected a list, got a number
    """
    try:
        schema.check(document, "")
    except _Problem as problem:
        raise RecordFileError(f"{label}: {problem.where}: {problem.problem}") from None


def _depth(document: Any) -> int:
    """How deep arrays and objects nest in ``document`` (iteratively: no recursion limit)."""
    deepest, stack = 0, [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def read_json_file(path: str | os.PathLike[str], option: str) -> tuple[Any, str]:
    """The JSON document in the file ``path`` and the SHA-256 of its bytes; :class:`RecordFileError` naming
    ``option`` and the file when it cannot be read as JSON (module docstring)."""
    label = f"{option}: {os.fspath(path)}"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a folder, a FIFO, a device: refused before it is opened
            raise RecordFileError(f"{label}: not a regular file")
        with open(path, "rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError as exc:
        raise RecordFileError(f"{label}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:
        raise RecordFileError(f"{label}: larger than {MAX_BYTES // 2**20} MiB: not a record")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordFileError(f"{label}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    if not text.strip():
        raise RecordFileError(f"{label}: empty file: not JSON")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordFileError(f"{label}: not valid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})") from None
    except RecursionError:
        raise RecordFileError(f"{label}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer of more digits than int() converts
        raise RecordFileError(f"{label}: not valid JSON ({' '.join(str(exc).split())})") from None
    if _depth(document) > MAX_DEPTH:
        raise RecordFileError(f"{label}: nested deeper than {MAX_DEPTH} levels")
    return document, hashlib.sha256(data).hexdigest()


def load_json_file(path: str | os.PathLike[str], schema: Record, option: str) -> tuple[dict[str, Any], str]:
    """The record in the file ``path``, checked against ``schema``, and the SHA-256 of its bytes; raises
    :class:`RecordFileError` naming ``option``, the file and the field (module docstring)."""
    document, sha256 = read_json_file(path, option)
    validate(document, schema, f"{option}: {os.fspath(path)}")
    return document, sha256


def load_if_present(path: str | os.PathLike[str], schema: Record, option: str) -> dict[str, Any] | None:
    """:func:`load_json_file`'s record, or None when nothing is at ``path`` (a record is created there)."""
    if not os.path.lexists(path):
        return None
    return load_json_file(Path(path), schema, option)[0]
