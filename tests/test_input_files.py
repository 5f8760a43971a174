"""Every JSON file a command reads is checked by its schema before anything runs (issue 38, failure 3).

A corpus of corrupted files — truncated, not UTF-8, not JSON, the wrong kinds, missing keys, deep nesting, numbers
a float cannot hold, an empty file, a folder — is handed to every reader through the command line: each answers
exit code 2 with one line naming the option, the file and (where one is at fault) the field, never ``flt: internal
error``, and nothing is measured or written. The readers: the BEFORE file of ``--restamp-from`` (``flt check``,
``flt calibrate``), the verdict record of ``flt check --record`` (before a run, in a carry-over, in
``--verify-record``) and the calibration record of ``flt calibrate --record`` (before a run, in a re-stamp). A
hypothesis test feeds the readers arbitrary bytes and arbitrary JSON: they accept a record or raise the one error.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings, strategies as st

from flt_theory.checking.power import RECORD as CALIBRATION
from flt_theory.checking.records import (
    BEFORE_RECORD,
    CALIBRATION_RECORD,
    MAX_DEPTH,
    VERDICT_RECORD,
    RecordFileError,
    load_json_file,
)
from flt_theory.checking.scale_record import RECORD as VERDICTS
from flt_theory.cli import cli

CLAIM = "giant-step/rank-one-update"
#: The modules whose measuring functions a bad file must never reach (``flt_theory.checking.check`` is also the name
#: of a function the package exports, hence ``import_module``).
check_module = importlib.import_module("flt_theory.checking.check")
calibrate_module = importlib.import_module("flt_theory.checking.calibrate")
importlib.import_module("flt_theory.checking.verify_record")  # binds `check` now, not while nothing_runs patches it

ENTRY = {"claim": CLAIM, "scale": "small", "fingerprint": "f", "code_fingerprint": "0" * 64, "verdict": "PASS",
         "seconds": 1.0, "created": "2026-01-01T00:00:00+00:00", "measured": 1.0, "ci": [0.9, 1.1], "p_check": 0.5,
         "p_control": 0.0, "message": "m", "control_message": "c", "n_seeds": 8, "seed_base": 0, "alpha": 0.05,
         "family": 80, "hardware": {"device": "cpu", "cores": 2, "torch_threads": 1, "gpu": None}}
CAL_ENTRY = {"claim": CLAIM, "fingerprint": "f", "code_fingerprint": "0" * 64, "repeats": 2, "false_rejections": 0,
             "false_rejection_ci": [0.0, 0.84], "law_passed": [True, True], "power": {"exponent": 0.5},
             "mutants": [{"kind": "exponent", "size": 0.5, "label": "+0.5", "rejected": 2, "fraction": 1.0,
                          "inert": False}]}
CALIBRATION_DOC = {"scale": "small", "repeats": 2, "alpha": 0.05, "runs_rejecting_a_true_law": 0,
                   "claims": [CAL_ENTRY]}


def _verdicts(**change):
    return json.dumps({"entries": [{**ENTRY, **change}]})


def _calibration(**change):
    return json.dumps({**CALIBRATION_DOC, "claims": [{**CAL_ENTRY, **change}]})


#: Corrupted files any reader must refuse: name -> (bytes, what the message must say).
FILE_CORPUS = {
    "empty": (b"", "empty file"),
    "blank": (b"  \n\t\n", "empty file"),
    "truncated": (b'{"entries": [{"claim": "a/b", ', "not valid JSON at line 1"),
    "truncated-multiline": (b'{\n "entries": [\n  {\n   "claim": "a/b",\n', "not valid JSON at line 5"),
    "not-utf8": (b'{"entries": [\xff\xfe]}', "not UTF-8 (byte 0xff at offset 13)"),
    "utf16": ('{"entries": []}'.encode("utf-16"), "not UTF-8"),
    "utf8-bom": (b"\xef\xbb\xbf" + b'{"entries": []}', "not valid JSON"),
    "latin1": ('{"entries": [{"claim": "é"}]}'.encode("latin-1"), "not UTF-8"),
    "binary": (bytes(range(256)), "not UTF-8"),
    "python-literal": (b"{'entries': []}", "not valid JSON at line 1, column 2"),
    "trailing-garbage": (b'{"entries": []} trailing', "not valid JSON at line 1, column 17"),
    "deep-nesting": (b"[" * 100_000 + b"]" * 100_000, f"nested deeper than {MAX_DEPTH} levels"),
    "deep-nesting-in-a-field": (json.dumps({"entries": [], "extra": [[[[0]]]]}).replace("[[[[0]]]]", "[" * 200 + "0"
                                                                                        + "]" * 200).encode(),
                                f"nested deeper than {MAX_DEPTH} levels"),
    "huge-integer": (b'{"entries": [], "n": 1' + b"0" * 5000 + b"}", "not valid JSON"),
    "top-level-list": (b"[]", "the document: expected an object, got a list"),
    "top-level-string": (b'"entries"', "the document: expected an object, got a string"),
    "top-level-null": (b"null", "the document: expected an object, got null"),
    "top-level-number": (b"5", "the document: expected an object, got a number"),
}

#: Verdict records (and BEFORE files) wrong in one field: name -> (text, the field and problem named).
VERDICT_CORPUS = {
    "no-entries": (json.dumps({}), "entries: missing"),
    "entries-number": (json.dumps({"entries": 5}), "entries: expected a list, got a number"),
    "entries-object": (json.dumps({"entries": {"a": 1}}), "entries: expected a list, got an object"),
    "entry-number": (json.dumps({"entries": [5]}), "entries[0]: expected an object, got a number"),
    "entry-null": (json.dumps({"entries": [None]}), "entries[0]: expected an object, got null"),
    "entry-empty": (json.dumps({"entries": [{}]}), "entries[0].claim: missing"),
    "no-scale": (json.dumps({"entries": [{k: v for k, v in ENTRY.items() if k != "scale"}]}),
                 "entries[0].scale: missing"),
    "no-fingerprint": (json.dumps({"entries": [{k: v for k, v in ENTRY.items() if k != "fingerprint"}]}),
                       "entries[0].fingerprint: missing"),
    "no-code-fingerprint": (json.dumps({"entries": [{k: v for k, v in ENTRY.items() if k != "code_fingerprint"}]}),
                            "entries[0].code_fingerprint: missing"),
    "claim-number": (_verdicts(claim=5), "entries[0].claim: expected a string, got a number"),
    "unknown-scale": (_verdicts(scale="huge"), "entries[0].scale: expected one of small, paper, got 'huge'"),
    "p-value-string": (_verdicts(p_check="0.5"), "entries[0].p_check: expected a number, got a string"),
    "p-value-infinite": (_verdicts(p_check=1e999), "entries[0].p_check: expected a finite number"),
    "p-value-nan": (_verdicts(p_check=float("nan")), "entries[0].p_check: expected a finite number"),
    "family-zero": (_verdicts(family=0), "entries[0].family: expected an integer in [1, inf], got 0"),
    "family-float": (_verdicts(family=80.5), "entries[0].family: expected an integer, got a number"),
    "family-huge": (_verdicts(family=10**400), "entries[0].family: an integer too large for a float"),
    "alpha-one": (_verdicts(alpha=1.0), "entries[0].alpha: expected a number in (0, 1)"),
    "seed-base-true": (_verdicts(seed_base=True), "entries[0].seed_base: expected an integer, got true/false"),
    "measured-object": (_verdicts(measured={"a": 1}), "entries[0].measured: expected a number, a string, null"),
    "ci-nested-infinite": (_verdicts(ci=[[0.0, 1e999]]), "entries[0].ci[0][1]: expected a finite number"),
    "restamped-string": (_verdicts(restamped="yes"), "entries[0].restamped: expected a list, got a string"),
    "evidence-without-fingerprint": (_verdicts(restamped=[{"date": "d"}]),
                                     "entries[0].restamped[0].from_code_fingerprint: missing"),
    "duplicate-entry": (json.dumps({"entries": [ENTRY, ENTRY]}), f"entries[1]: a second entry of '{CLAIM}'"),
}
#: What a verdict record of ``flt check --record`` must hold beyond a BEFORE file (merges and the report read it).
RECORD_ONLY_CORPUS = {
    "no-hardware": (json.dumps({"entries": [{k: v for k, v in ENTRY.items() if k != "hardware"}]}),
                    "entries[0].hardware: missing"),
    "hardware-list": (_verdicts(hardware=[]), "entries[0].hardware: expected an object, got a list"),
    "jobs-string": (_verdicts(hardware={**ENTRY["hardware"], "jobs": "two"}),
                    "entries[0].hardware.jobs: expected an integer, got a string"),  # --plan reads it as a job count
    "seconds-string": (_verdicts(seconds="48 s"), "entries[0].seconds: expected a number, got a string"),
    "seconds-negative": (_verdicts(seconds=-1.0), "entries[0].seconds: expected a number in [0, inf]"),
    # the ladder fields the report reads (effective exponents, the limit, a claim's own ladder, why none applies)
    "effective-from-string": (_verdicts(effective=[{"from": "64", "to": 128, "estimate": 1.0, "ci": [0.9, 1.1]}]),
                              "entries[0].effective[0].from: expected a number, got a string"),
    "limit-one-bound": (_verdicts(limit={"estimate": 1.0, "ci": [0.9], "model": "no correction"}),
                        "entries[0].limit.ci: expected 2 items"),
    "ladder-size-text": (_verdicts(ladder=[{"size": {"n": "big"}, "estimate": 1.0, "ci": [0.9, 1.1]}]),
                         "entries[0].ladder[0].size.n: expected a number, got a string"),
    "no-ladder-number": (_verdicts(no_ladder=1), "entries[0].no_ladder: expected a string, got a number"),
}
#: Calibration records wrong in one field.
CALIBRATION_CORPUS = {
    "no-claims": (json.dumps({k: v for k, v in CALIBRATION_DOC.items() if k != "claims"}), "claims: missing"),
    "claims-number": (json.dumps({**CALIBRATION_DOC, "claims": 5}), "claims: expected a list, got a number"),
    "repeats-zero": (json.dumps({**CALIBRATION_DOC, "repeats": 0}), "repeats: expected an integer in [1, inf]"),
    "scale-unknown": (json.dumps({**CALIBRATION_DOC, "scale": "tiny"}), "scale: expected one of small, paper"),
    "no-law-passed": (json.dumps({**CALIBRATION_DOC, "claims": [{k: v for k, v in CAL_ENTRY.items()
                                                                 if k != "law_passed"}]}),
                      "claims[0].law_passed: missing"),
    "law-passed-short": (_calibration(law_passed=[True]), "claims[0].law_passed: expected 2 results"),
    "law-passed-numbers": (_calibration(law_passed=[1, 0]), "claims[0].law_passed[0]: expected true/false"),
    "mutant-without-kind": (_calibration(mutants=[{"size": 1}]), "claims[0].mutants[0].kind: missing"),
    "power-string": (_calibration(power={"exponent": "big"}), "claims[0].power.exponent: expected a number"),
    "ci-one-number": (_calibration(false_rejection_ci=[0.0]), "claims[0].false_rejection_ci: expected 2 items"),
    "fraction-above-one": (_calibration(mutants=[{**CAL_ENTRY["mutants"][0], "fraction": 2.0}]),
                           "claims[0].mutants[0].fraction: expected a number in [0, 1]"),
    "duplicate-claim": (json.dumps({**CALIBRATION_DOC, "claims": [CAL_ENTRY, CAL_ENTRY]}),
                        f"claims[1]: a second entry of '{CLAIM}'"),
}


@pytest.fixture
def files(tmp_path):
    """A valid BEFORE / verdict record and calibration record, and a writer of bad ones."""
    good = {"verdicts": tmp_path / "verdicts.json", "before": tmp_path / "before.json",
            "calibration": tmp_path / "calibration.json"}
    good["verdicts"].write_text(_verdicts(), encoding="utf-8")
    good["before"].write_text(_verdicts(), encoding="utf-8")
    good["calibration"].write_text(json.dumps(CALIBRATION_DOC), encoding="utf-8")

    def bad(name: str, content: bytes | str) -> Path:
        path = tmp_path / f"{name}.json"
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    return good, bad


@pytest.fixture
def nothing_runs(monkeypatch):
    """Measuring or calibrating anything fails the test: a bad file must be refused before."""

    def refuse(*args, **kwargs):
        raise AssertionError("a claim was measured before the input file was checked")

    monkeypatch.setattr(check_module, "check", refuse)
    monkeypatch.setattr(calibrate_module, "calibrate", refuse)


#: Each reader: (name, the kinds of file it reads, the command line with {bad} and the good files).
READERS = [
    ("check --restamp-from", "before", ["check", "--restamp-from", "{bad}", "--record", "{verdicts}"]),
    ("calibrate --restamp-from", "before", ["calibrate", "--restamp-from", "{bad}", "--record", "{calibration}"]),
    ("check --record (carry-over)", "record", ["check", "--restamp-from", "{before}", "--record", "{bad}"]),
    ("check --record (before a run)", "record", ["check", CLAIM, "--no-report", "--record", "{bad}"]),
    ("check --verify-record", "record", ["check", "--verify-record", "--record", "{bad}"]),
    ("calibrate --record (before a run)", "calibration", ["calibrate", CLAIM, "--repeats", "2", "--record", "{bad}",
                                                          "--store", "{store}"]),
    ("calibrate --record (re-stamp)", "calibration", ["calibrate", "--restamp-from", "{before}", "--record",
                                                      "{bad}"]),
]
CORPORA = {"before": {**FILE_CORPUS, **VERDICT_CORPUS},
           "record": {**FILE_CORPUS, **VERDICT_CORPUS, **RECORD_ONLY_CORPUS},
           "calibration": {**FILE_CORPUS, **CALIBRATION_CORPUS}}
CASES = [pytest.param(args, name, *CORPORA[kind][name], id=f"{reader}: {name}")
         for reader, kind, args in READERS for name in CORPORA[kind]]


def _invoke(args, good, bad_path, tmp_path):
    line = [a.format(bad=bad_path, verdicts=good["verdicts"], before=good["before"],
                     calibration=good["calibration"], store=tmp_path / "s.sqlite") for a in args]
    return CliRunner().invoke(cli, line)


@pytest.mark.parametrize(("args", "name", "content", "says"), CASES)
def test_a_corrupted_file_is_one_error_naming_the_file_and_the_field(args, name, content, says, files, tmp_path,
                                                                        nothing_runs):
    good, bad = files
    path = bad(name, content)
    before = {p: p.read_bytes() for p in (*good.values(), path)}
    result = _invoke(args, good, path, tmp_path)
    assert result.exit_code == 2, (result.output, result.exception)
    assert "internal error" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flt: error: "), result.stderr
    if "refusing to overwrite" in lines[0]:  # a record to be written that is no record at all: the output check
        assert repr(str(path)) in lines[0]  # (flt_theory._files) refuses it before it is read
    else:
        assert f"{path}: " in lines[0] and says in lines[0], lines[0]
    assert {p: p.read_bytes() for p in before} == before  # nothing written
    assert not (tmp_path / "s.sqlite").exists()  # nothing measured


@pytest.mark.parametrize(("reader", "creates"), [(r[2], "before a run" in r[0]) for r in READERS],
                         ids=[r[0] for r in READERS])
def test_a_folder_or_a_missing_file_is_refused_in_one_line(reader, creates, files, tmp_path, nothing_runs):
    """A folder is never a record; a missing file is refused where one is read (a record before a run is created
    where none is: writing it is the output writer's part)."""
    good, _ = files
    folder = tmp_path / "folder.json"
    folder.mkdir()
    for path in (folder,) if creates else (folder, tmp_path / "absent" / "x.json"):
        result = _invoke(reader, good, path, tmp_path)
        assert result.exit_code == 2 and "internal error" not in result.output, result.output
        assert result.stderr.startswith("flt: error: ") and len(result.stderr.strip().splitlines()) == 1


def test_a_record_holding_entries_5_is_refused_before_the_claims_are_measured(files, nothing_runs):
    """Failure 3 of issue 38: ``--record`` holding ``{"entries": 5}`` passed the pre-run check, the claims were
    measured, then an internal error."""
    good, bad = files
    path = bad("five", '{"entries": 5}')
    result = CliRunner().invoke(cli, ["check", CLAIM, "--no-report", "--record", str(path)])
    assert result.exit_code == 2 and result.stderr.startswith("flt: error: --record: ") and str(path) in result.stderr
    nested = bad("five-deep", '{"entries": [5]}')  # a record to the output check, not to its schema
    result = CliRunner().invoke(cli, ["check", CLAIM, "--no-report", "--record", str(nested)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"flt: error: --record: {nested}: entries[0]: expected an object, got a number")


def test_a_calibration_record_of_other_options_is_refused_before_the_run(files, tmp_path, nothing_runs):
    good, _ = files
    result = CliRunner().invoke(cli, ["calibrate", CLAIM, "--repeats", "3", "--record", str(good["calibration"]),
                                      "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 2 and "2 repeats" in result.stderr and "use the same options" in result.stderr


def test_the_shipped_records_validate():
    load_json_file(VERDICTS, VERDICT_RECORD, "--record")
    load_json_file(VERDICTS, BEFORE_RECORD, "--restamp-from")
    load_json_file(CALIBRATION, CALIBRATION_RECORD, "--record")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["entries", "claims", "claim", "scale", "fingerprint", "code_fingerprint", "repeats",
                         "alpha", "p_check", "family", "law_passed", "restamped", "hardware", "x"]), children,
        max_size=6),
    max_leaves=24,
)


def _entry_like(base):
    """Records whose fields are each replaced or dropped: near the schema, where a reader is most likely to slip."""
    return st.fixed_dictionaries({}, optional={k: st.just(v) | JSON for k, v in base.items()})


#: Any JSON, records near the schema of each kind, and any bytes.
ANY_FILE = dict(document=JSON | st.builds(lambda es: {"entries": es}, st.lists(_entry_like(ENTRY), max_size=3))
                | st.builds(lambda cs, r: {**CALIBRATION_DOC, "repeats": r, "claims": cs},
                            st.lists(_entry_like(CAL_ENTRY), max_size=3), st.integers(-1, 3)),
                raw=st.binary(max_size=64))
_ANY_FILE_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@settings(max_examples=50, **_ANY_FILE_SETTINGS)
@given(**ANY_FILE)
# the branches the random draws reach only now and then, each given once: a list that is not one, a valid calibration
# record, one with a result per repeat missing, a verdict record with a claim twice
@example(document={"entries": 3}, raw=b"")
@example(document=CALIBRATION_DOC, raw=b"{}")
@example(document={**CALIBRATION_DOC, "repeats": 3}, raw=b"[]")
@example(document={"entries": [ENTRY, ENTRY]}, raw=b"\xff")
def test_any_bytes_or_json_is_a_record_or_one_error(document, raw, tmp_path):
    """Property: every reader accepts a file or raises :class:`RecordFileError`, nothing else (50 examples and the
    four above: they run the lines of the package 150 examples ran, measured with a line tracer; ``python -m pytest -m
    slow tests/test_input_files.py`` draws 1,000)."""
    _a_record_or_one_error(document, raw, tmp_path)


@pytest.mark.slow
@settings(max_examples=1000, **_ANY_FILE_SETTINGS)
@given(**ANY_FILE)
def test_any_bytes_or_json_many_cases(document, raw, tmp_path):
    """:func:`test_any_bytes_or_json_is_a_record_or_one_error` over 1,000 examples."""
    _a_record_or_one_error(document, raw, tmp_path)


def _a_record_or_one_error(document, raw, tmp_path) -> None:
    """Each reader given ``raw`` and ``document`` as a file accepts it or raises :class:`RecordFileError` naming the
    option and the file in one line."""
    for content in (raw, json.dumps(document).encode()):
        path = tmp_path / "any.json"
        path.write_bytes(content)
        for schema in (BEFORE_RECORD, VERDICT_RECORD, CALIBRATION_RECORD):
            try:
                load_json_file(path, schema, "--x")
            except RecordFileError as exc:
                assert str(exc).startswith(f"--x: {path}: ") and "\n" not in str(exc)
