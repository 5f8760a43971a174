"""One safe writer for every output path (issue 38, failure 1): checked before any work, atomic, never over the store.

``flt check --store S --latex S`` replaced the measurement store with a LaTeX file (36 rows lost). Every output option
(``flt check --latex/--record/--report``, ``flt calibrate --record``, ``flt verify --latex``, ``flt verify --system
... --report``) now goes through :func:`flt_theory._files.check_outputs` before anything runs: the store in use is
refused even with ``--force``, an existing file that is not an earlier output of the same kind is refused unless
``--force``, an earlier output is overwritten; the writes are atomic, so an interrupted write leaves the old file.

The runs are cheap: ``giant-step/rank-one-update`` (the fastest claim of ``flt check --plan``, 8 rows) into one store
per module, reused by every run after the first; ``flt verify TARGET`` is given a document computed once.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from flt_theory import _files
from flt_theory._display import latex_document
from flt_theory._files import (
    CALIBRATION_RECORD,
    CHECK_REPORT,
    LATEX,
    LATEX_MARKER,
    LAW_REPORT,
    REPORT_MARKER,
    SQLITE_HEADER,
    VERDICT_RECORD,
    Output,
    OutputPathError,
    atomic_write_bytes,
    atomic_write_text,
    check_outputs,
    replacing,
)
from flt_theory.cli import cli

CLAIM = "giant-step/rank-one-update"  # the fastest claim of `flt check --plan` (1 point x 8 seeds)
UNRELATED = "my notes: not written by flt\n"
TOKEN = "EARLIER-OUTPUT-7f3a"  # in an earlier output made by hand: gone once the command has written
LAW = ["--system", "giant-step", "--law", "norm_growth ~ d", "--over", "d=64,128", "--fix", "n=64", "--seeds", "2"]


def md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def leftovers(folder: Path) -> list[str]:
    """Temporary files a write left behind."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp") or ".flt-new-" in p.name)


# ---------------------------------------------------------------------------------------------
# the writer


def test_an_interrupted_write_leaves_the_old_file(tmp_path, monkeypatch):
    """A write that raises midway (after the data went to the temporary file, before the rename) leaves the old file
    byte for byte and no temporary file."""
    path = tmp_path / "table.tex"
    path.write_text("old\n")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text(path, "new\n" * 1000)
    assert path.read_text() == "old\n" and leftovers(tmp_path) == []
    monkeypatch.undo()

    def refused(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(PermissionError):
        atomic_write_bytes(path, b"new")
    assert path.read_text() == "old\n" and leftovers(tmp_path) == []


def test_written_files_get_the_permissions_of_an_ordinary_write(tmp_path):
    """mkstemp makes 0600 files: a new file gets 0666 less the umask, an existing one keeps its mode; a link is
    written through."""
    mask = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "new.json", "{}")
        assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o644
        os.umask(0o077)
        atomic_write_text(tmp_path / "private.json", "{}")
        assert stat.S_IMODE((tmp_path / "private.json").stat().st_mode) == 0o600
    finally:
        os.umask(mask)
    shared = tmp_path / "shared.tex"
    shared.write_text("old")
    shared.chmod(0o664)
    atomic_write_text(shared, "new")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o664 and shared.read_text() == "new"
    (tmp_path / "link.tex").symlink_to(shared)
    atomic_write_text(tmp_path / "link.tex", "through")
    assert (tmp_path / "link.tex").is_symlink() and shared.read_text() == "through"


def test_the_latex_marker_is_what_the_latex_writer_puts_first():
    assert latex_document("TABLE").splitlines()[0].startswith(LATEX_MARKER)


# ---------------------------------------------------------------------------------------------
# the policy


def earlier(kind: _files.OutputKind, path: Path) -> Path:
    """``path`` made an earlier output of ``kind``."""
    if kind is LATEX:
        path.write_text(latex_document(TOKEN))
    elif kind is VERDICT_RECORD:
        path.write_text(json.dumps({"entries": []}))
    elif kind is CALIBRATION_RECORD:
        path.write_text(json.dumps({"scale": "small", "claims": []}))
    else:
        path.mkdir()
        _files.mark_report_folder(path, kind)
        (path / "report.md").write_text(f"# {TOKEN}\n")
    return path


def unrelated(kind: _files.OutputKind, path: Path) -> Path:
    if kind.folder:
        path.mkdir()
        (path / "paper.tex").write_text(UNRELATED)
    else:
        path.write_text(UNRELATED)
    return path


KINDS = {"latex": LATEX, "verdict record": VERDICT_RECORD, "calibration record": CALIBRATION_RECORD,
         "check report": CHECK_REPORT, "law report": LAW_REPORT}


@pytest.mark.parametrize("kind", KINDS.values(), ids=KINDS.keys())
def test_each_kind_takes_its_earlier_output_and_refuses_another_file(tmp_path, kind):
    check_outputs([Output("--out", tmp_path / "new", kind)])  # nothing there
    check_outputs([Output("--out", earlier(kind, tmp_path / "mine"), kind)])
    (tmp_path / "empty").mkdir() if kind.folder else (tmp_path / "empty").touch()
    check_outputs([Output("--out", tmp_path / "empty", kind)])  # nothing to lose
    theirs = unrelated(kind, tmp_path / "theirs")
    with pytest.raises(OutputPathError, match=r"^--out: refusing to overwrite '.*theirs': it exists and is not .*"
                                              r"--force to overwrite it$"):
        check_outputs([Output("--out", theirs, kind)])
    check_outputs([Output("--out", theirs, kind)], force=True)
    for other in KINDS.values():  # an earlier output of another kind is not one of this kind
        if other is not kind and other.folder == kind.folder:
            with pytest.raises(OutputPathError, match="refusing to overwrite"):
                check_outputs([Output("--out", earlier(other, tmp_path / f"other-{id(other)}"), kind)])


def test_a_report_folder_written_before_the_marker_is_recognised(tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "results.json").write_text(json.dumps({"scale": "small", "seed_base": 0, "provenance": {},
                                                               "claims": []}))
    check_outputs([Output("--report", tmp_path / "old", CHECK_REPORT)])
    assert not (tmp_path / "old" / REPORT_MARKER).exists()


@pytest.mark.parametrize("kind", KINDS.values(), ids=KINDS.keys())
def test_the_store_in_use_is_refused_even_with_force(tmp_path, kind):
    store = tmp_path / "s.sqlite"
    store.write_bytes(b"SQLite format 3\x00" + bytes(100))
    for path in (store, Path(f"{store}-wal"), tmp_path / "." / "s.sqlite"):
        with pytest.raises(OutputPathError, match=r"^--out: refusing to write .*: it is the measurement store"):
            check_outputs([Output("--out", path, kind)], store=store, force=True)
    (tmp_path / "link").symlink_to(store)
    with pytest.raises(OutputPathError, match="measurement store"):
        check_outputs([Output("--out", tmp_path / "link", kind)], store=store, force=True)


def test_a_report_folder_that_would_overwrite_the_store_is_refused(tmp_path):
    with pytest.raises(OutputPathError, match=r"^--report: .*would overwrite the measurement store"):
        check_outputs([Output("--report", tmp_path / "r", CHECK_REPORT)], store=tmp_path / "r" / "report.md",
                      force=True)
    with pytest.raises(OutputPathError, match="would overwrite the measurement store"):
        check_outputs([Output("--report", tmp_path / "r", LAW_REPORT)], store=tmp_path / "r" / "fit.png")
    check_outputs([Output("--report", tmp_path / "r", CHECK_REPORT)], store=tmp_path / "r" / "measurements.sqlite")


def test_a_folder_for_a_file_a_file_for_a_folder_and_two_outputs_at_one_path(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text(latex_document("TABLE"))
    with pytest.raises(OutputPathError, match=r"^--latex: '.*dir' is a folder; expected a file$"):
        check_outputs([Output("--latex", tmp_path / "dir", LATEX)], force=True)
    with pytest.raises(OutputPathError, match=r"^--report: '.*file' exists and is a file; expected a folder$"):
        check_outputs([Output("--report", tmp_path / "file", CHECK_REPORT)], force=True)
    with pytest.raises(OutputPathError, match=r"^--latex: cannot write .*: its folder does not exist"):
        check_outputs([Output("--latex", tmp_path / "missing" / "t.tex", LATEX)])
    with pytest.raises(OutputPathError, match=r"^--record: '.*t.tex' and --latex '.*t.tex' would write the same"):
        check_outputs([Output("--latex", tmp_path / "t.tex", LATEX), Output("--record", tmp_path / "t.tex",
                                                                             VERDICT_RECORD)])
    with pytest.raises(OutputPathError, match=r"^--report: .* and --latex .* would write the same file"):
        check_outputs([Output("--latex", tmp_path / "r" / "report.md", LATEX),
                       Output("--report", tmp_path / "r", CHECK_REPORT)])
    for folder in ("r[1]", "r*"):  # a user's folder name is a name, not a pattern
        with pytest.raises(OutputPathError, match="would write the same file"):
            check_outputs([Output("--latex", tmp_path / folder / "figures" / "t.png", LATEX),
                           Output("--report", tmp_path / folder, CHECK_REPORT)])
        (tmp_path / folder).mkdir()
        check_outputs([Output("--latex", tmp_path / folder / "t.tex", LATEX),
                       Output("--report", tmp_path / folder.replace("r", "q"), CHECK_REPORT)])


def test_a_forced_record_replaces_the_file_only_once_written(tmp_path):
    """``--record FILE --force`` over a file that is not a record: the writer starts a fresh record beside it, which
    replaces the file when written; a run that fails leaves the file."""
    path = tmp_path / "r.json"
    path.write_text(UNRELATED)
    path.chmod(0o640)
    output = Output("--record", path, VERDICT_RECORD)
    with pytest.raises(RuntimeError), replacing(output, force=True) as fresh:
        assert fresh != str(path) and not Path(fresh).exists()
        raise RuntimeError("the run failed")
    assert path.read_text() == UNRELATED and leftovers(tmp_path) == []
    with replacing(output, force=True) as fresh:
        atomic_write_text(fresh, '{"entries": []}')
    assert json.loads(path.read_text()) == {"entries": []} and stat.S_IMODE(path.stat().st_mode) == 0o640
    with replacing(output, force=True) as same:  # now an earlier record: merged into where it is
        assert same == str(path)
    assert leftovers(tmp_path) == []


@settings(max_examples=60, deadline=None)
@given(content=st.binary(min_size=1, max_size=200), force=st.booleans())
def test_any_existing_content_is_refused_unless_ours_or_forced(tmp_path_factory, content, force):
    """Property: over any bytes, a LaTeX output is accepted iff the file is ours (the marker first) or ``--force``
    is given and the file is no SQLite database (a store of another run); the store of the run never."""
    folder = tmp_path_factory.mktemp("p")
    path = folder / "out.tex"
    path.write_bytes(content)
    ours = content.startswith(LATEX_MARKER.encode())
    database = content.startswith(SQLITE_HEADER)
    try:
        check_outputs([Output("--latex", path, LATEX)], force=force)
        accepted = True
    except OutputPathError:
        accepted = False
    assert accepted == (ours or (force and not database))
    with pytest.raises(OutputPathError, match="measurement store"):
        check_outputs([Output("--latex", path, LATEX)], store=path, force=force)
    assert path.read_bytes() == content


# ---------------------------------------------------------------------------------------------
# the commands


@pytest.fixture(scope="module")
def store(tmp_path_factory, runner) -> Path:
    """A real measurement store: the cheap claim measured once."""
    path = tmp_path_factory.mktemp("store") / "s.sqlite"
    result = runner.invoke(cli, ["check", CLAIM, "--store", str(path), "--no-report"])
    assert result.exit_code == 0, result.output
    return path


def test_failure_1_latex_over_the_store_is_refused_and_the_store_unchanged(runner, store):
    """Issue 38 failure 1: ``flt check CLAIM --store S --no-report --latex S`` exits 2 and S is unchanged; so do
    ``--record S`` and ``--report S``, with or without ``--force``."""
    before = md5(store)
    for option in ("--latex", "--record", "--report"):
        for force in ([], ["--force"]):
            no_report = [] if option == "--report" else ["--no-report"]
            result = runner.invoke(cli, ["check", CLAIM, "--store", str(store), *no_report, option, str(store), *force])
            assert result.exit_code == 2, (option, result.output)
            assert result.stderr.startswith(f"flt: error: {option}: ") and str(store) in result.stderr
            assert len(result.stderr.splitlines()) == 1 and md5(store) == before


def commands(folder: Path, store: Path) -> dict[str, tuple[list[str], str, _files.OutputKind]]:
    """Each output option: (the command without the option, the option, its kind)."""
    return {
        "check --latex": (["check", CLAIM, "--store", str(store), "--no-report"], "--latex", LATEX),
        "check --record": (["check", CLAIM, "--store", str(store), "--no-report"], "--record", VERDICT_RECORD),
        "check --report": (["check", CLAIM, "--store", str(store)], "--report", CHECK_REPORT),
        "calibrate --record": (["calibrate", CLAIM, "--repeats", "1", "--store", str(folder / "c.sqlite")],
                               "--record", CALIBRATION_RECORD),
        "verify --latex": (["verify", "z1", "--budget", "1", "--seeds", "2"], "--latex", LATEX),
        "verify --report": (["verify", *LAW, "--store", str(folder / "law.sqlite")], "--report", LAW_REPORT),
    }


OPTIONS = ("check --latex", "check --record", "check --report", "calibrate --record", "verify --latex",
           "verify --report")


@pytest.mark.parametrize("name", OPTIONS)
def test_every_output_option_refuses_the_store_and_an_unrelated_file_before_running(runner, tmp_path, store, name):
    """Refused with exit code 2 and one line naming the option and the path, before anything runs (no row is added to
    the store, nothing is written)."""
    args, option, kind = commands(tmp_path, store)[name]
    used = Path(args[args.index("--store") + 1]) if "--store" in args else None
    if used is not None:  # the store this run uses, refused even with --force
        if not used.exists():
            used.write_bytes(store.read_bytes())
        before = md5(used)
        result = runner.invoke(cli, [*args, option, str(used), "--force"])
        assert result.exit_code == 2 and result.stderr.startswith(f"flt: error: {option}: refusing to write"), \
            result.output
        assert md5(used) == before
    theirs = unrelated(kind, tmp_path / "theirs")
    mine = theirs / "paper.tex" if kind.folder else theirs
    result = runner.invoke(cli, [*args, option, str(theirs)])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [result.stderr.strip()] and result.stderr.startswith(
        f"flt: error: {option}: refusing to overwrite {str(theirs)!r}: it exists and is not {kind.what}")
    assert mine.read_text() == UNRELATED and result.stdout == ""


@pytest.fixture(scope="module")
def verify_document():
    """What ``flt verify z1 --budget 1 --seeds 2`` computes (seconds): computed once, then given to the command."""
    from flt_theory.systems.giant_step.verify import verify

    return verify("z1", budget=1, seeds=2)


@pytest.mark.parametrize("name", OPTIONS)
def test_every_output_option_overwrites_its_earlier_output_and_force_overwrites_any(runner, tmp_path, store, name,
                                                                                    request, monkeypatch):
    args, option, kind = commands(tmp_path, store)[name]
    if name == "verify --latex":
        from flt_theory.systems.giant_step import verify as giant_step_verify

        document = request.getfixturevalue("verify_document")
        monkeypatch.setattr(giant_step_verify, "verify", lambda *a, **k: document)
    path = tmp_path / "out" if kind.merges else earlier(kind, tmp_path / "out")  # a record: written by a first run
    first = runner.invoke(cli, [*args, option, str(path)])
    assert first.exit_code in (0, 1), first.output  # 1: a verdict that did not pass is still written
    written = (path / "report.md") if kind.folder else path
    assert TOKEN not in written.read_text() and kind.recognise(path)
    if kind.merges:
        assert CLAIM in written.read_text()
    second = runner.invoke(cli, [*args, option, str(path)])  # its own output of the run before
    assert second.exit_code == first.exit_code, second.output
    theirs = unrelated(kind, tmp_path / "theirs")
    forced = runner.invoke(cli, [*args, option, str(theirs), "--force"])
    assert forced.exit_code == first.exit_code, forced.output
    assert kind.recognise(theirs) and leftovers(tmp_path) == []
    if kind.folder:
        assert (theirs / REPORT_MARKER).is_file() and (theirs / "paper.tex").read_text() == UNRELATED
    if kind.merges:
        assert json.loads(theirs.read_text())  # a fresh record replaced the file


def test_an_interrupted_latex_write_keeps_the_earlier_table(runner, tmp_path, store, monkeypatch):
    """The table is written after the claims ran: a write that fails then (a full disk) exits 1 with one line, and
    the table of the run before is unchanged."""
    path = earlier(LATEX, tmp_path / "t.tex")
    before = path.read_bytes()

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_files.os, "fsync", full_disk)
    result = runner.invoke(cli, ["check", CLAIM, "--store", str(store), "--no-report", "--latex", str(path)])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("flt: ")]  # after the progress lines
    assert errors == ["flt: error: cannot write: No space left on device; the file there before, if any, is unchanged"]
    assert path.read_bytes() == before and leftovers(tmp_path) == []


def test_a_store_of_another_run_is_refused_even_with_force(tmp_path):
    """An output option never replaces a SQLite store, the run's own or another's, ``--force`` or not."""
    from flt_theory.runner.store import ResultStore

    other = tmp_path / "other.sqlite"
    ResultStore(other).close()
    before = hashlib.md5(other.read_bytes()).hexdigest()
    for force in (False, True):
        with pytest.raises(OutputPathError, match="SQLite database"):
            check_outputs([Output("--latex", other, LATEX)], force=force)
    assert hashlib.md5(other.read_bytes()).hexdigest() == before


def test_a_pipe_is_refused_without_being_opened(tmp_path):
    """A named pipe (or a device) is never opened to recognise it: that would wait for a writer."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OutputPathError, match="not a regular file"):
        check_outputs([Output("--latex", fifo, LATEX)], force=True)

