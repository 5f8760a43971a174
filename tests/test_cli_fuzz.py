"""No internal error is reachable from the command line (issue 38): property tests over the fuzz corpus.

Every command line drawn from :mod:`fuzz_corpus` runs in process (click's ``CliRunner``) in a fresh workspace
folder and must keep the contract of :mod:`flt_theory.cli`:

* the exit code is 0, 2 (bad input: the last line on stderr is ``flt: error: ...``) or, for the commands that decide
  laws (``check``, ``calibrate``, ``verify``), 1 meaning "a law failed" (not ``flt: error:``, a failure while
  running);
* never ``internal error``, never a Python traceback, on stdout or stderr, and no exception escapes the command;
* the measurement store is never changed by an output option (its md5 is compared), nor is an existing file that
  is not an earlier output of the same kind unless ``--force`` is given, nor a corrupted input file.

Three properties: every option of every command with fuzzed values (:func:`test_every_option`), every input file
reader with corrupted and mutated files (:func:`test_every_input_file`), every output option with fuzzed paths
(:func:`test_every_output_option`). The runs are cheap by construction (:mod:`fuzz_corpus`): the cost limits are
lowered, the store of the workspace already holds the measurements of the cheap modes, and ``flt verify TARGET``
reads and writes a copy of it. Examples are drawn deterministically (``derandomize=True``); a command line that
takes longer than :data:`HANG_SECONDS` fails as a hang.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from fuzz_corpus import (
    BAD_FILES,
    CHEAP_CLAIM,
    CHEAP_LAW,
    CHEAP_SWEEP,
    PATHS,
    Invocation,
    Workspace,
    commands,
    invocations,
    mutate_record,
    paths_of,
    read_only_by,
    record_mutations,
)
from hypothesis import HealthCheck, Phase, example, given, settings, strategies as st

from flt_theory.cli import cli

#: A command line running longer than this fails as a hang (the slowest cheap mode takes about 2 s on a loaded core).
HANG_SECONDS = 30
#: Cost limits of the runs: a simulation accepted under them is a small one (``flt_theory.runner.cost``).
ENV = {"FLT_MAX_SIM_BYTES": "2e9", "FLT_MAX_SIM_SECONDS": "0.1", "FLT_DEBUG": None}
SIMULATE_ENV = {**ENV, "FLT_MAX_SIM_SECONDS": "0.02"}

#: No shrinking: the values are drawn from lists, and shrinking a hang would rerun it.
FUZZ = settings(derandomize=True, database=None, deadline=None, phases=(Phase.explicit, Phase.generate),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
#: Examples per test of the default run: per command (at most; fewer for a command with few parameters), per
#: file-reading option, per output option. A longer campaign raises them (``pytest -m slow`` does not: these tests
#: are not marked slow).
EXAMPLES = {"option": 5, "input": 6, "output": 4}

COMMANDS = commands()

pytestmark = pytest.mark.xdist_group("cli_fuzz")  # one worker measures the session's seed folder once


class Hang(BaseException):
    """A command line ran past :data:`HANG_SECONDS` (a BaseException: the CLI's ``except Exception`` lets it by)."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` after ``seconds`` of Python code (SIGALRM, where the platform and thread allow it)."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum, frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _invoke(args: list[str], folder: Path, env: dict[str, str | None]) -> Result:
    """``flt ARGS`` in process, in ``folder`` (the default outputs of the commands land there)."""
    runner = CliRunner(env=env)
    with _chdir(folder), _time_limit(HANG_SECONDS):
        return runner.invoke(cli, args)


@contextlib.contextmanager
def _chdir(folder: Path) -> Iterator[None]:
    """Run in ``folder`` (``contextlib.chdir`` is Python 3.11+)."""
    previous = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous)


@pytest.fixture(scope="session")
def seed_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the measurements of the cheap modes, a verdict record and a calibration record."""
    folder = tmp_path_factory.mktemp("fuzz-seed")
    store = str(folder / "store.sqlite")
    for args in (["check", CHEAP_CLAIM, "--no-report", "--store", store, "--record", str(folder / "record.json")],
                 ["calibrate", CHEAP_CLAIM, "--repeats", "1", "--store", store, "--record",
                  str(folder / "calibration.json")],
                 ["verify", *CHEAP_LAW, "--store", store, "--budget", "1"],
                 ["sweep", *CHEAP_SWEEP, "--store", store]):
        result = _invoke(args, folder, ENV)
        assert result.exit_code in (0, 1), (args, result.output)
    with _target_store(folder / "store.sqlite"):
        result = _invoke(["verify", "z1", "--steps", "1", "--budget", "1"], folder, ENV)
        assert result.exit_code in (0, 1), result.output
        from flt_theory.systems.giant_step.verify import verify

        _VERIFIED[folder] = verify("z1", steps=1, budget=60)
    return folder


#: ``flt verify z1 --steps 1``'s document, per seed folder (what the output test's ``flt verify --latex`` writes).
_VERIFIED: dict[Path, object] = {}


@contextlib.contextmanager
def _target_store(path: Path) -> Iterator[None]:
    """``flt verify TARGET`` measures into the store at ``path`` (instead of a new one in memory), so a target the
    store holds is not measured again."""
    from flt_theory.runner.store import ResultStore

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("flt_theory.systems.giant_step.verify.ResultStore", lambda *_args, **_kw: ResultStore(path))
        yield


def check_contract(invocation: Invocation, result: Result) -> None:
    """The command-line contract (module docstring) on one result."""
    where = str(invocation)
    text = result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"{where}: {type(result.exception).__name__}: {result.exception} escaped the command"
    assert "internal error" not in text, f"{where}: {result.stderr.strip().splitlines()[-1:]}"
    assert "Traceback (most recent call last)" not in text, f"{where}: a traceback\n{text[-2000:]}"
    lines = result.stderr.strip().splitlines()
    codes = (0, 1, 2) if invocation.command.decides_laws else (0, 2)
    assert result.exit_code in codes, f"{where}: exit code {result.exit_code}: {lines[-1:]}"
    if result.exit_code == 2:
        assert lines and lines[-1].startswith("flt: error: "), f"{where}: exit code 2 without one error line: {lines}"
    if result.exit_code == 1:
        assert not (lines and lines[-1].startswith("flt: error")), \
            f"{where}: exit code 1 is a law that failed, not an error: {lines[-1]}"


def run_fuzzed(invocation: Invocation, seed: Path, files: dict[str, bytes] | None = None) -> Result:
    """Run ``invocation`` in a fresh workspace (with ``files`` added, name -> content), check the contract, and check
    that the files it may not change (:func:`fuzz_corpus.read_only_by`) kept their md5."""
    with tempfile.TemporaryDirectory(prefix="flt-fuzz-") as tmp:
        workspace = Workspace(Path(tmp) / "w", seed)
        for name, content in (files or {}).items():
            (workspace.folder / name).write_bytes(content)
        shutil.copy(seed / "store.sqlite", workspace.folder / "target-store.sqlite")
        args = [workspace.resolve(word) for word in invocation.args()]
        before = workspace.snapshot()
        env = SIMULATE_ENV if invocation.command.words[0] == "simulate" else ENV
        try:
            with _target_store(workspace.folder / "target-store.sqlite"):
                result = _invoke(args, workspace.folder, env)
        except Hang as exc:
            raise AssertionError(f"{invocation}: {exc}") from None
        check_contract(invocation, result)
        after = workspace.snapshot()
        for token, why in read_only_by(invocation).items():
            for path in paths_of(token):
                assert before.get(path) == after.get(path), f"{invocation}: {token} was changed ({why})"
        return result


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option(name: str, seed_folder: Path) -> None:
    """Each command with one or two of its options or arguments fuzzed."""

    command = COMMANDS[name]

    @settings(FUZZ, max_examples=max(1, min(EXAMPLES["option"], len(command.params))))
    @given(invocations(command))
    def check(invocation: Invocation) -> None:
        run_fuzzed(invocation, seed_folder)

    check()


#: The command lines of the issue, each refused with exit code 2 (and run through the same contract): (command, mode,
#: the options changed). Failure 1: the store as --latex; 2: laws whose constant or exponent has no float; 3: corrupted
#: input files and a 4000-digit grid value; 4: an infinite constant, a non-finite simulation, --over with --fix.
ISSUE_LINES = [
    ("check", "run", (("--latex", "@store"),)),
    ("check", "run", (("--latex", "@store"), ("--force", None))),
    ("verify", "law", (("--law", "norm_growth ~ 1e99999999*d"),)),
    ("verify", "law", (("--law", "norm_growth ~ d**(1e9999999)"),)),
    ("verify", "law", (("--over", "d=" + "9" * 4000),)),
    ("check", "restamp", (("--restamp-from", "@bad/truncated.json"),)),
    ("calibrate", "restamp", (("--restamp-from", "@bad/deep.json"),)),
    ("check", "run", (("--record", "@bad/entries-int.json"),)),
    ("verify", "law", (("--law", "norm_growth <= 1e308*1e308*d"),)),
    ("simulate/contrastive", "", (("--c-mu", "1e300"),)),
    ("verify", "law", (("--fix", "d=64"),)),
]


@pytest.mark.parametrize("name, mode, changes", ISSUE_LINES, ids=[f"{n}:{'/'.join(o for o, _ in c)}={c[0][1]}"[:60]
                                                                    for n, _, c in ISSUE_LINES])
def test_the_issues_command_lines(name: str, mode: str, changes: tuple, seed_folder: Path) -> None:
    command = COMMANDS[name]
    params = {opt: p for p in command.params for opt in getattr(p, "opts", ())}
    invocation = Invocation(command, next(m for m in command.modes if m.name == mode),
                            tuple((params[option], value) for option, value in changes))
    result = run_fuzzed(invocation, seed_folder)
    assert result.exit_code == 2, f"{invocation}: exit code {result.exit_code}: {result.stderr.strip()[-300:]}"


#: The options that read a file: (command, option, the cheap mode it runs from, the record it holds when valid).
READERS = [
    ("check", "--record", "run", "record.json"),
    ("check", "--restamp-from", "restamp", "record.json"),
    ("check", "--store", "run", None),
    ("calibrate", "--record", "restamp", "calibration.json"),
    ("calibrate", "--restamp-from", "restamp", "record.json"),
    ("calibrate", "--store", "run", None),
    ("sweep", "--store", "run", None),
    ("verify", "--store", "law", None),
]


@pytest.mark.parametrize("command, option, mode, record", READERS, ids=[f"{c}{o}" for c, o, _, _ in READERS])
def test_every_input_file(command: str, option: str, mode: str, record: str | None, seed_folder: Path) -> None:
    """Each file-reading option given a corrupted file, or (for a record) a real record mutated field by field."""
    spec = COMMANDS[command]
    base = next(m for m in spec.modes if m.name == mode)
    param = next(p for p in spec.params if option in getattr(p, "opts", ()))
    mutated = record_mutations() if record is not None else st.nothing()

    @settings(FUZZ, max_examples=EXAMPLES["input"])
    @given(st.one_of(st.sampled_from(BAD_FILES).map(lambda token: (token, None)),
                     mutated.map(lambda changes: ("@mutated.json", changes))))
    def check(case: tuple[str, list | None]) -> None:
        token, changes = case
        files = {}
        if changes is not None:
            assert record is not None
            document = json.loads((seed_folder / record).read_text(encoding="utf-8"))
            files["mutated.json"] = json.dumps(mutate_record(document, changes)).encode()
        invocation = Invocation(spec, base, ((param, token),))
        run_fuzzed(invocation, seed_folder, files)

    check()


#: The output options: (command, option, the cheap mode it runs from).
WRITERS = [
    ("check", "--latex", "run"),
    ("check", "--record", "run"),
    ("check", "--report", "report"),
    ("verify", "--latex", "target"),
    ("verify", "--report", "law"),
    ("calibrate", "--record", "run"),
]


@pytest.mark.parametrize("command, option, mode", WRITERS, ids=[f"{c}{o}" for c, o, _ in WRITERS])
def test_every_output_option(command: str, option: str, mode: str, seed_folder: Path) -> None:
    """Each output option given a fuzzed path (the store, an unrelated file, a folder, ...), with or without
    ``--force``: the contract holds and the store's md5 never changes."""
    spec = COMMANDS[command]
    base = next(m for m in spec.modes if m.name == mode)
    param = next(p for p in spec.params if option in getattr(p, "opts", ()))
    force = next((p for p in spec.params if p.name == "force"), None)

    @settings(FUZZ, max_examples=EXAMPLES["output"])
    @given(st.sampled_from(PATHS), st.booleans())
    @example(path="@store", forced=False)  # the issue's failure 1: the store given to an output option
    @example(path="@store", forced=True)  # not even with --force
    @example(path="@notes", forced=False)  # an existing file of the user
    def check(path: str, forced: bool) -> None:
        changes = ((param, path),) + (((force, None),) if forced and force is not None else ())
        run_fuzzed(Invocation(spec, base, changes), seed_folder)

    with pytest.MonkeyPatch.context() as patch:
        if (command, mode) == ("verify", "target"):  # the verdicts of z1, measured once: this test is about the file
            document = _VERIFIED[seed_folder]
            patch.setattr("flt_theory.systems.giant_step.verify.verify", lambda *_args, **_kw: copy.deepcopy(document))
        check()
