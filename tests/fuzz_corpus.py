r"""The CLI fuzz corpus of issue 38: hostile command lines for every ``flt`` command, generated with hypothesis.

Nothing here runs by itself: :mod:`tests.test_cli_fuzz` draws from these strategies, runs each command line in
process (click's ``CliRunner``) inside a fresh :class:`Workspace`, and checks the command-line contract of
:mod:`flt_theory.cli` on every one of them.

What is fuzzed
--------------
* Every option and argument of every command, found by introspecting the click commands (:func:`commands`, the
  ``flt simulate SYSTEM`` subcommands included), so an option added later is fuzzed without editing this file. A
  value is drawn by what the parameter is (:func:`value_strategy`): numbers at the edges (:data:`EDGE_NUMBERS`:
  ``0``, ``-1``, ``1e300``, ``nan``, ``inf``, a 4000-digit integer, the empty string, unicode digits, ...), hostile
  text (:data:`EDGE_TEXTS`), targets and laws in and around the grammar (:data:`TARGETS`, :data:`LAWS`, the inputs
  the issue found slow or hanging included: :data:`ISSUE_SLOW_TARGETS`, :data:`ISSUE_HUGE_LAWS`), ``NAME=V1,V2``
  assignments (:data:`ASSIGNMENTS`) and paths (:data:`PATHS`: the measurement store, an unrelated file, a folder,
  a missing parent, the empty string, a unicode name, earlier outputs).
* Every input file: the BEFORE file of ``--restamp-from``, the records of ``--record`` and the store of ``--store``
  are drawn among corrupted files (:data:`BAD_JSON`, :data:`BAD_SQLITE`) and records mutated field by field from a
  real one (:func:`record_mutations`).
* Every output option (``--latex``, ``--record``, ``--report``): the paths above, the store among them.

Cheap by construction
---------------------
Each command starts from one of its cheap :data:`MODES` (``--list``, ``--plan``, the cheapest claim
``giant-step/rank-one-update`` on a store that already holds its rows, a two-point ``flt verify --system`` law, the
smallest simulate sizes) and one or two of its parameters are replaced by fuzzed values. The test lowers the cost
limits (``FLT_MAX_SIM_SECONDS``) so that an accepted simulation is a small one; values that would start a real
backend (a ``--jobs`` above 1, ``--dask local``, a scheduler address) or lengthen a run past the limits that guard
it (a ``--budget``, ``--repeats``, ``--sample`` or ``--seeds`` of ``flt verify`` larger than the edges) are drawn
from :data:`EDGE_NUMBERS` only.

Paths and files are written as tokens (``@store``, ``@bad/truncated.json``) so a failing example prints as a
readable command line; :meth:`Workspace.resolve` turns them into paths inside the example's folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from hypothesis import strategies as st

__all__ = [
    "ASSIGNMENTS",
    "BAD_JSON",
    "BAD_SQLITE",
    "CHEAP_CLAIM",
    "EDGE_NUMBERS",
    "EDGE_TEXTS",
    "ISSUE_HUGE_LAWS",
    "ISSUE_SLOW_TARGETS",
    "LAWS",
    "MODES",
    "PATHS",
    "TARGETS",
    "Invocation",
    "Mode",
    "Workspace",
    "commands",
    "invocations",
    "record_mutations",
    "value_strategy",
]

#: The cheapest claim of the catalogue (one point, 8 seeds, about 0.05 s by its declared cost).
CHEAP_CLAIM = "giant-step/rank-one-update"
#: A law of a system that the store of the workspace holds measured (2 points x 2 seeds).
CHEAP_LAW = ("--system", "giant-step", "--law", "norm_growth ~ d", "--over", "d=64,128", "--fix", "n=64", "--seeds",
             "2")
#: A sweep the store holds.
CHEAP_SWEEP = ("giant-step/one-step-mass", "-p", "target=z", "-p", "d=16", "-p", "kappa=1")

#: A 4000-digit integer (the issue's ``--over d=<4000-digit integer>``).
BIG_INT = "9" * 4000
#: Numbers at the edges, and things that are almost numbers.
EDGE_NUMBERS = ("0", "-1", "1", "2", "0.5", "1e300", "-1e300", "1e-300", "1e308", "1e309", "nan", "-nan", "inf",
                "-inf", "Infinity", BIG_INT, "-" + BIG_INT, str(2**63), str(2**64 + 1), "", " ", "0x10", "1_000",
                "1e99999", "-0", "1,2", "1.", ".5", "abc", "\u0661\u0662", "\u00bd", "\u221e", "\U0001d7d9", "5\x00")
#: Hostile text.
EDGE_TEXTS = ("", " ", "\t", "\u00e9", "\U0001f600", "\u202e", "a" * 5000, "-", "--", "'", '"', "%s", "{}", "\\",
              "None", "null", "\x00", "\ufeff", "z" * 300)
#: Targets (one-dimensional links too) in and around the grammar of :mod:`flt_theory.symbolic.parser`.
TARGETS = ("z", "z1", "z1 + He2(z2)", "He2(z)", "relu(z)", "tanh(2*z)", "z1 +", "(((", ")", "1e300*z", "nan*z", "inf",
           "zoo", "oo*z", "z0", "z99999999", "He(4000, z)", "He2(He2(He2(z)))", "__import__('os').getcwd()",
           "exp(z**2)", "1/z", "z**-1", "log(z)", "z**(1/3)", "1e308*1e308*z", BIG_INT + "*z", "z**" + BIG_INT,
           "z1*z2*z3*z4*z5*z6*z7*z8*z9*z10*z11*z12*z13*z14*z15*z16*z17", "He2(z1); z", "z;", "lambda: z", "z1 @ z2",
           "relu(z)**9", "sign(z)")
#: The symbolic inputs the issue measured at over 10 s (failure 5): refused within a budget, or answered, once
#: bounded parsing lands.
ISSUE_SLOW_TARGETS = ("He(64, sin((relu(z4) - (pi - z2))**1/3))",
                      "He64(He64(He64(He64(He64(He64(He64(He64(z1))))))))",
                      "*".join(["pi"] * 17) + "*z1",
                      "exp(tanh(z4*((5 + z4*relu(-z3 + 571.207))**59)))")
#: The laws the issue found to hang in parsing or to be read as infinite (failures 2 and 4).
ISSUE_HUGE_LAWS = ("norm_growth ~ 1e99999999*d", "norm_growth ~ d**(1e9999999)", "norm_growth <= 1e308*1e308*d")
#: ``--law`` values (a law of the giant-step system's observables, and worse).
LAWS = ("norm_growth ~ d", "norm_growth ~ d**(-1/2)", "norm_growth ~ n", "norm_growth = 1", "norm_growth <= d",
        "norm_growth >= 0", "nope ~ d", "norm_growth", "~", "", "norm_growth ~", "~ d", "norm_growth ~ nan",
        "norm_growth ~ inf*d", "norm_growth ~ zoo", "norm_growth ~ d**" + BIG_INT, "norm_growth ~ " + BIG_INT + "*d",
        "norm_growth ~ d**d", "norm_growth ~ sin(d)", "eta* ~ d", "norm_growth ~ d ~ d", "norm_growth == d",
        "\u00e9 ~ d", "norm_growth ~ __import__('os')", "norm_growth ~ d**(1/0)", "norm_growth ~ 0*d",
        "norm_growth ~ -d", "norm_growth ~ d**1e300")
#: ``--where`` values.
WHERES = ("norm_growth = 1", "norm_growth = nan", "norm_growth = inf", "norm_growth", "", "nope = 1",
          "norm_growth = " + BIG_INT, "norm_growth < 1")
#: ``NAME=V1,V2`` values of ``--over``, ``--fix`` and ``--param``.
ASSIGNMENTS = ("d=64,128", "d=64", "n=64", "d=", "=64", "d", "d=nan", "d=inf", "d=-1", "d=0", "d=" + BIG_INT,
               "d=1e300", "d=64,64", "d=64,,128", "n=1e308", "x y=1", "\u00e9=1", "d=64;128", "d=[64, 128]",
               "d=[", "target=z", "target=" + BIG_INT, "kappa=1e-300", "d=" + ",".join(["64"] * 200), "p=63",
               "seed=1", "d=0x40", "d=\u0661\u0662")
#: Device names.
DEVICES = ("cpu", "auto", "cuda", "cuda:99", "cuda:-1", "mps", "meta", "", "CPU", "tpu", "cuda:" + BIG_INT)
#: Scheduler values that reach no network (a value with a ``:`` is taken for an address and connected to).
SCHEDULERS = ("", "foo", "\u00e9", "inproc", "local ", "LOCAL", "tcp//host")
#: ``--dask`` values other than the one that starts a cluster.
DASKS = ("", "remote", "LOCAL", "local ")
#: Claim paths (``flt check PATHS``); never a Python file that exists (it would be imported and run).
CLAIM_PATHS = (CHEAP_CLAIM, "giant-step", "giant-step/", "nope/none", "nope", "", "/", "..", "@missing.py",
               "@notes", "@folder", "@store", "giant-step/rank-one-update/x", "\u00e9")
#: Experiment names (``flt sweep EXPERIMENT``).
EXPERIMENTS = ("giant-step/one-step-mass", "giant-step/nope", "nope", "", "/", "giant-step/", "\u00e9")
#: System names.
SYSTEMS = ("giant-step", "contrastive", "nope", "", "giant_step", "\u00e9", "../giant-step")

#: Path tokens (:meth:`Workspace.resolve`): the store, an unrelated file, a folder holding a file, an empty folder,
#: missing paths, names with odd characters, the records, the empty string, the current folder.
PATHS = ("@store", "@notes", "@folder", "@empty-folder", "@empty-file", "@missing", "@missing-dir/out", "@record",
         "@calibration", "@unicode-\u00e9\U0001f600", "@store-wal", "", ".", "-", "@folder/inner.txt")

#: Corrupted JSON files: name -> content.
BAD_JSON: dict[str, bytes] = {
    "empty.json": b"",
    "blank.json": b" \n\t",
    "truncated.json": b'{"entries": [{"claim": "giant-step/rank-one-update", ',
    "not-utf8.json": b'{"entries": [\xff\xfe]}',
    "utf16.json": '{"entries": []}'.encode("utf-16"),
    "binary.json": bytes(range(256)),
    "python-literal.json": b"{'entries': []}",
    "trailing.json": b'{"entries": []} x',
    "deep.json": b"[" * 100_000 + b"]" * 100_000,
    "deep-object.json": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "huge-int.json": b'{"entries": [], "n": 1' + b"0" * 5000 + b"}",
    "nan.json": b'{"entries": [{"claim": "giant-step/rank-one-update", "measured": NaN}]}',
    "list.json": b"[]",
    "null.json": b"null",
    "string.json": b'"entries"',
    "entries-int.json": b'{"entries": 5}',
    "entries-ints.json": b'{"entries": [5]}',
    "entries-empty-object.json": b'{"entries": [{}]}',
    "entries-claim-int.json": b'{"entries": [{"claim": 5}]}',
    "entries-null.json": b'{"entries": null}',
    "claims-int.json": b'{"scale": "small", "claims": 5}',
    "claims-objects.json": b'{"scale": "small", "claims": [{}]}',
    "scale-int.json": b'{"scale": 5, "claims": []}',
}
#: Corrupted stores: name -> content (``None``: a real SQLite file with another schema, made by the workspace).
BAD_SQLITE: dict[str, bytes | None] = {
    "empty.sqlite": b"",
    "text.sqlite": b"not a database\n",
    "json.sqlite": b'{"rows": []}',
    "header-only.sqlite": b"SQLite format 3\x00" + b"\x00" * 84,
    "random.sqlite": bytes((i * 7919) % 256 for i in range(8192)),
    "other-schema.sqlite": None,
    "truncated.sqlite": None,
}
#: Every corrupted file, as a path token.
BAD_FILES = tuple(f"@bad/{name}" for name in (*BAD_JSON, *BAD_SQLITE))


@dataclass(frozen=True)
class Mode:
    """A cheap starting command line of a command: its positional arguments and its options (``None``: a flag)."""

    arguments: tuple[str, ...] = ()
    options: tuple[tuple[str, str | None], ...] = ()
    #: A short name for the test ids and messages.
    name: str = ""


def _mode(name: str, *args: str) -> Mode:
    """A :class:`Mode` from a command line (options start with ``-``; an option followed by a value takes it)."""
    arguments: list[str] = []
    options: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        if args[i].startswith("-"):
            value = args[i + 1] if i + 1 < len(args) and not args[i + 1].startswith("-") else None
            options.append((args[i], value))
            i += 1 if value is None else 2
        else:
            arguments.append(args[i])
            i += 1
    return Mode(tuple(arguments), tuple(options), name)


#: The cheap starting command lines of each command (``simulate/SYSTEM`` from its declaration: :func:`commands`).
MODES: dict[str, tuple[Mode, ...]] = {
    "check": (_mode("list", "--list"), _mode("plan", CHEAP_CLAIM, "--plan"),
              _mode("run", CHEAP_CLAIM, "--no-report", "--store", "@store"),
              _mode("report", CHEAP_CLAIM, "--report", "@new-report", "--store", "@store"),
              _mode("restamp", "--restamp-from", "@record", "--record", "@record"),
              _mode("verify-record", "--verify-record", "--record", "@record", CHEAP_CLAIM)),
    "calibrate": (_mode("run", CHEAP_CLAIM, "--repeats", "1", "--store", "@store"),
                  _mode("restamp", "--restamp-from", "@record", "--record", "@calibration")),
    "verify": (_mode("law", *CHEAP_LAW, "--store", "@store", "--budget", "1"),
               _mode("target", "z1", "--steps", "1", "--budget", "1")),
    "sweep": (_mode("list", "--list"), _mode("run", *CHEAP_SWEEP, "--store", "@store")),
    "hermite": (_mode("", "He2(z)"),),
    "leap": (_mode("", "z1 + He2(z2)"),),
    "staircase": (_mode("", "z1 + He2(z2)"), _mode("sizes", "z1 + He2(z2)", "--d", "64", "--n", "128")),
    "limits": (_mode("", "z1 + He2(z2)", "--kappa-n", "1", "--kappa-p", "1"),),
    "laws": (_mode("", "z1 + He2(z2)"),),
    "tour": (_mode(""),),
    "claims": (_mode(""),),
}

#: Options whose valid values can make a run long: drawn from the edges only.
_EDGES_ONLY = {"budget", "repeats", "sample", "seed_base", "groups", "seeds"}
#: Options a simulate command's base sets to their smallest value (the run's length).
_SHORT = ("seeds", "steps", "max-steps", "feature-steps", "iterations", "nets", "n-test")
#: Values of required simulate options (not hostile themselves).
_REQUIRED = {"int": "64", "ints": "8", "float": "1", "floats": "1", "str": "He2(z)"}


def _simulate_mode(spec: Any) -> Mode:
    """The smallest command line of a ``flt simulate SYSTEM``: required options at a plain value, the run-length
    options at their smallest, the CPU."""
    args: list[str] = []
    for option in spec.options:
        if option.argument:
            args.append("He2(z)")
        elif option.required:
            args += ["--" + option.name, _REQUIRED[option.kind]]
        elif option.name in _SHORT:
            args += ["--" + option.name, str(max(2, int(option.minimum or 0)))]
        elif option.name == "device":
            args += ["--device", "cpu"]
    return _mode("", *args)


@dataclass(frozen=True)
class Command:
    """A command to fuzz: its words (``("simulate", "contrastive")``), its click parameters and its modes."""

    words: tuple[str, ...]
    params: tuple[click.Parameter, ...] = field(repr=False)
    modes: tuple[Mode, ...]

    @property
    def name(self) -> str:
        return "/".join(self.words)

    @property
    def decides_laws(self) -> bool:
        """Whether exit code 1 means "a law failed" for this command (``check``, ``calibrate``, ``verify``)."""
        return self.words[0] in ("check", "calibrate", "verify")


def commands() -> dict[str, Command]:
    """Every command of ``flt`` (``simulate/SYSTEM`` for the simulate subcommands), with its click parameters.

    >>> names = commands()
    >>> {"check", "verify", "simulate/contrastive"} <= set(names), len(names["check"].modes) > 1
    (True, True)
    """
    from flt_theory.cli import cli
    from flt_theory.systems import discover

    ctx = click.Context(cli)
    found: dict[str, Command] = {}
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            systems = discover()
            for sub in command.list_commands(ctx):
                subcommand = command.get_command(ctx, sub)
                assert subcommand is not None
                found[f"{name}/{sub}"] = Command((name, sub), tuple(subcommand.params),
                                                 (_simulate_mode(systems[sub].simulate),))
        else:
            found[name] = Command((name,), tuple(command.params), MODES.get(name, (_mode(""),)))
    return found


def _numbers(random: bool) -> st.SearchStrategy[str]:
    """Numbers at the edges; with ``random``, arbitrary integers and floats too."""
    edges = st.sampled_from(EDGE_NUMBERS)
    if not random:
        return edges
    return st.one_of(edges, st.integers(-(10**6), 10**6).map(str), st.floats().map(repr),
                     st.integers(-(2**80), 2**80).map(str))


def value_strategy(command: Command, param: click.Parameter) -> st.SearchStrategy[str | None]:
    """Fuzzed values of one parameter of ``command`` (``None``: a flag given)."""
    name = str(param.name)
    runner = command.words[0] in ("check", "calibrate", "verify", "sweep")
    if isinstance(param, click.Option) and param.is_flag:
        return st.just(None)
    if name in ("store", "record", "record_file", "restamp_from"):
        return st.sampled_from(PATHS + BAD_FILES)
    if name in ("latex_file", "report_dir"):
        return st.sampled_from(PATHS)
    if name == "paths":
        return st.sampled_from(CLAIM_PATHS + EDGE_TEXTS[:6])
    if name == "experiment":
        return st.sampled_from(EXPERIMENTS + EDGE_TEXTS[:6])
    if name == "system":
        return st.sampled_from(SYSTEMS)
    if name == "law":
        return st.sampled_from(LAWS + ISSUE_HUGE_LAWS + EDGE_TEXTS)
    if name == "where":
        return st.sampled_from(WHERES + EDGE_TEXTS[:6])
    if name in ("over", "fix", "params"):
        return st.sampled_from(ASSIGNMENTS)
    if name in ("target", "expr", "links", "activation"):
        return st.one_of(st.sampled_from(TARGETS + ISSUE_SLOW_TARGETS + EDGE_TEXTS),
                         st.text(alphabet="z12He()+-*/ .e^", max_size=24))
    if name == "device":
        return st.sampled_from(DEVICES)
    if name == "scheduler":
        return st.sampled_from(SCHEDULERS)
    if name == "dask":
        return st.sampled_from(DASKS)
    if name == "jobs":
        return st.sampled_from(tuple(v for v in EDGE_NUMBERS if v not in ("2", str(2**63), str(2**64 + 1), BIG_INT)))
    if isinstance(param.type, click.Choice):
        return st.sampled_from(tuple(str(c) for c in param.type.choices) + EDGE_TEXTS[:8])
    if name in _EDGES_ONLY:
        return st.sampled_from(EDGE_NUMBERS)
    type_name = type(param.type).__name__
    if isinstance(param.type, (click.types.IntParamType, click.types.FloatParamType)) or type_name in (
            "Bounded", "_NumberList", "_StepSize", "_NonNegativeReal", "FloatRange", "IntRange"):
        return _numbers(random=not runner)
    return st.one_of(st.sampled_from(EDGE_TEXTS + EDGE_NUMBERS[:12] + ("auto", "none", "theory")),
                     st.text(max_size=12))


@dataclass(frozen=True)
class Invocation:
    """One fuzzed command line, tokens unresolved (:meth:`Workspace.resolve`)."""

    command: Command
    mode: Mode
    changes: tuple[tuple[click.Parameter, str | None], ...]

    def args(self) -> list[str]:
        """The command line: the mode with each changed parameter replaced (or added)."""
        arguments = list(self.mode.arguments)
        options = list(self.mode.options)
        for param, value in self.changes:
            if isinstance(param, click.Argument):
                arguments = [value or ""] if param.nargs == -1 else (arguments[:0] + [value or ""])
                continue
            flag = param.opts[0]
            names = set(param.opts)
            at = next((i for i, (opt, _) in enumerate(options) if opt in names), None)
            if at is None:
                options.append((flag, value))
            else:
                options[at] = (flag, value)
        line = list(self.command.words)
        for opt, value in options:
            line += [opt] if value is None else [opt, value]
        return line + (["--"] if any(a.startswith("-") for a in arguments) else []) + arguments

    def __str__(self) -> str:
        return "flt " + " ".join(_shell_word(a) for a in self.args())


def _shell_word(word: str) -> str:
    shown = word if len(word) <= 80 else f"{word[:20]}...<{len(word)} chars>"
    return shown if shown and all(c.isalnum() or c in "-_./=@,:" for c in shown) else repr(shown)


def invocations(command: Command, *, files_only: bool = False) -> st.SearchStrategy[Invocation]:
    """Fuzzed command lines of ``command``: one of its modes with one or two parameters changed (``files_only``:
    only its file-reading and file-writing options, the other parameters as the mode has them)."""
    params = list(command.params)
    if files_only:
        params = [p for p in params if p.name in ("store", "record", "record_file", "restamp_from", "latex_file",
                                                  "report_dir", "force")]
    if not params:
        return st.builds(Invocation, st.just(command), st.sampled_from(command.modes), st.just(()))
    change = st.sampled_from(params).flatmap(lambda p: st.tuples(st.just(p), value_strategy(command, p)))
    return st.builds(Invocation, st.just(command), st.sampled_from(command.modes),
                     st.lists(change, min_size=1, max_size=2).map(tuple))


def record_mutations() -> st.SearchStrategy[list[tuple[int, str, Any]]]:
    """Changes to a real record, field by field: ``(index of the key, action, value)`` with action ``set`` (the
    value is a JSON value, a wrong kind, NaN, a huge number), ``delete`` or ``nest`` (the value wrapped in lists)."""
    leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
                       st.sampled_from([10**400, -(10**400), float("nan"), float("inf"), "", "PASS", "small"]))
    json_values = st.recursive(leaves, lambda c: st.one_of(st.lists(c, max_size=3),
                                                           st.dictionaries(st.text(max_size=6), c, max_size=3)),
                               max_leaves=6)
    one = st.tuples(st.integers(0, 40), st.sampled_from(["set", "delete", "nest"]), json_values)
    return st.lists(one, min_size=1, max_size=3)


def mutate_record(document: Any, mutations: Sequence[tuple[int, str, Any]]) -> Any:
    """``document`` (a verdict or calibration record) with ``mutations`` applied to its first entry (or to the
    document itself when it has none)."""
    document = json.loads(json.dumps(document))
    entries = document.get("entries") or document.get("claims") if isinstance(document, dict) else None
    target = entries[0] if isinstance(entries, list) and entries and isinstance(entries[0], dict) else document
    for index, action, value in mutations:
        keys = sorted(target)
        if not keys:
            break
        key = keys[index % len(keys)]
        if action == "delete":
            del target[key]
        elif action == "nest":
            target[key] = [[target[key]]]
        else:
            target[key] = value
    return document


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


class Workspace:
    """A fresh folder of the files a fuzzed command line may name (:data:`PATHS`, :data:`BAD_FILES`), copied from
    the ``seed`` folder that holds a real store (``store.sqlite``, with the rows of :data:`MODES`), a verdict record
    (``record.json``) and a calibration record (``calibration.json``)."""

    def __init__(self, folder: Path, seed: Path):
        self.folder = folder
        folder.mkdir(parents=True)
        shutil.copy(seed / "store.sqlite", folder / "store.sqlite")
        shutil.copy(seed / "record.json", folder / "record.json")
        shutil.copy(seed / "calibration.json", folder / "calibration.json")
        (folder / "notes.txt").write_text("notes of the user: not an output of flt\n", encoding="utf-8")
        (folder / "folder").mkdir()
        (folder / "folder" / "inner.txt").write_text("a file of the user\n", encoding="utf-8")
        (folder / "empty-folder").mkdir()
        (folder / "empty-file").write_bytes(b"")
        bad = folder / "bad"
        bad.mkdir()
        for name, content in BAD_JSON.items():
            (bad / name).write_bytes(content)
        for name, data in BAD_SQLITE.items():
            if data is not None:
                (bad / name).write_bytes(data)
        with sqlite3.connect(bad / "other-schema.sqlite") as connection:
            connection.execute("CREATE TABLE results (a TEXT, b BLOB)")
            connection.execute("INSERT INTO results VALUES ('x', x'00')")
        connection.close()
        (bad / "truncated.sqlite").write_bytes((seed / "store.sqlite").read_bytes()[:1500])

    #: Token -> path inside the folder.
    _NAMES = {"@store": "store.sqlite", "@store-wal": "store.sqlite-wal", "@notes": "notes.txt", "@folder": "folder",
              "@empty-folder": "empty-folder", "@empty-file": "empty-file", "@missing": "missing.txt",
              "@missing-dir/out": "missing-dir/out", "@record": "record.json", "@calibration": "calibration.json",
              "@new-report": "new-report", "@missing.py": "missing.py", "@folder/inner.txt": "folder/inner.txt"}

    def resolve(self, word: str) -> str:
        """``word`` with a path token replaced by its path in the folder (other words unchanged)."""
        if not word.startswith("@"):
            return word
        if word in self._NAMES:
            return str(self.folder / self._NAMES[word])
        if word.startswith("@bad/"):
            return str(self.folder / "bad" / word.removeprefix("@bad/"))
        return str(self.folder / word.removeprefix("@"))

    def snapshot(self) -> dict[str, str]:
        """The md5 of every file in the folder, by path relative to it."""
        return {str(p.relative_to(self.folder)): _md5(p) for p in sorted(self.folder.rglob("*")) if p.is_file()}

    def files(self) -> Iterator[Path]:
        yield from (p for p in self.folder.rglob("*") if p.is_file())


def outputs_of(invocation: Invocation) -> dict[str, str]:
    """The output options of the command line and the words they are given (``--latex`` -> ``@store``)."""
    found: dict[str, str] = {}
    args = invocation.args()
    for i, word in enumerate(args[:-1]):
        if word in ("--latex", "--record", "--report") and not (invocation.command.words[0] == "calibrate"
                                                                 and word == "--report"):
            found[word] = args[i + 1]
    return found


def read_only_by(invocation: Invocation) -> Mapping[str, str]:
    """The files of the workspace the command line may not change, token -> why (the check of the test).

    The store changes only as the ``--store`` of the run; any other existing file that is not an earlier output of
    the same kind changes only with ``--force``; a corrupted file never changes."""
    args = invocation.args()
    given = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("--")}
    store = given.get("--store")
    force = "--force" in args
    record_kind = "@calibration" if invocation.command.words[0] == "calibrate" else "@record"
    protected: dict[str, str] = {}
    if store != "@store":
        protected["@store"] = "the measurement store (not the --store of this run)"
    for option, word in outputs_of(invocation).items():
        if word == store:
            protected[word] = f"the measurement store of this run, given to {option}"
        elif word.startswith("@bad/") and not force:
            protected[word] = f"a file that is not an output, given to {option}"
        elif word in ("@notes", "@folder", "@folder/inner.txt", "@record", "@calibration") and not force and not (
                option == "--record" and word == record_kind):
            protected[word] = f"an existing file that is not an earlier output of {option}"
    return protected


def paths_of(token: str) -> list[str]:
    """The workspace-relative files a token names (a folder: the files in it)."""
    return {"@store": ["store.sqlite"], "@notes": ["notes.txt"], "@folder": ["folder/inner.txt"],
            "@folder/inner.txt": ["folder/inner.txt"], "@record": ["record.json"],
            "@calibration": ["calibration.json"]}.get(token, [os.path.join("bad", token.removeprefix("@bad/"))]
                                                      if token.startswith("@bad/") else [])
