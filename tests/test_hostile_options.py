"""Hostile values for every option of every ``flt simulate SYSTEM`` (generated from the declarations): each exits 0
or 2 with one ``flt: error:`` line, never an internal error, and the run-size values are refused up front by the
declared cost (:mod:`flt_theory.runner.cost`) naming the option. The commands ``flt sweep``, ``flt calibrate`` and
``flt check`` refuse oversized requests the same way.

The cost limits are lowered for the test (``FLT_MAX_SIM_BYTES`` 2 GB, ``FLT_MAX_SIM_SECONDS`` 0.02 estimated seconds
in the default run, 5 in the ``slow`` one), so an accepted run is a small one and the default run takes seconds.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.systems import discover, get_claim

#: Values for a real option; an int option gets the integers among them, written out.
HOSTILE = ("0", "-1", "1e12", "nan", "inf", "1e30", "1e308", "1e-300")
HOSTILE_INT = ("0", "-1", str(10**12), "nan", "inf", str(10**30))
#: Values that ask for a run far above any machine: refused by the cost guard, naming the option.
HUGE = {"1e12", "1e30", "1e308", str(10**12), str(10**30)}
#: Values refused before anything runs (by the option's type or range, or by the cost guard for a size): the default
#: run tries these; values a command may accept and run (0, -1, 1e-300, a huge non-size) are in the slow run.
REFUSED = {"nan", "inf", "1e308", str(10**30)}
#: Values of required options so that the command can start (not hostile themselves).
REQUIRED = {"int": "64", "ints": "8", "float": "1", "floats": "1", "str": "He2(z)"}
#: Options that are not a size of the run: a huge value is a legitimate (if silly) input, refused or run small.
NOT_SIZES = {"eta", "eps", "lr", "mu_norm", "sigma_xi", "sigma0", "noise", "ridge", "kappa", "time", "c_mu", "n_snr2",
             "feature_lr", "p0", "overlap0", "h_norm", "gammas", "eta_tilde", "psi", "label_noise", "feature_noise",
             "beta1", "beta2", "adam_eps", "sam_radius", "flip_prob", "record_every", "sparsity", "k", "sigma",
             "d", "tokens", "concepts", "dim", "length"}


def _systems():
    return {name: s for name, s in discover().items() if s.simulate is not None}


#: Options that set how long an accepted run lasts: the base command sets them to their smallest value (at least 2).
SHORT = ("seeds", "steps", "max-steps", "feature-steps", "iterations", "nets", "n-test")


def _base(spec, tested: str) -> list[str]:
    args = []
    for option in spec.options:
        if option.argument:
            args.append("He2(z)")
        elif option.required:
            args += ["--" + option.name, REQUIRED[option.kind]]
        elif option.name in SHORT and option.name != tested:
            args += ["--" + option.name, str(max(2, int(option.minimum or 0)))]
    return args


def _cases():
    for name, system in sorted(_systems().items()):
        for option in system.simulate.options:
            if option.kind not in ("int", "float", "ints", "floats", "eta") or option.argument:
                continue
            values = HOSTILE_INT if option.kind in ("int", "ints") else HOSTILE
            for value in values + ((str(10**9),) if option.name == "seeds" else ()):
                refused = value in REFUSED or value in HUGE and option.dest not in NOT_SIZES or option.name == "seeds"
                yield pytest.param(name, option.name, value, id=f"{name}--{option.name}={value}",
                                   marks=() if refused else pytest.mark.slow)


@pytest.fixture(autouse=True)
def _limits(monkeypatch):
    monkeypatch.setenv("FLT_MAX_SIM_BYTES", "2e9")
    monkeypatch.setenv("FLT_MAX_SIM_SECONDS", "5")


#: Estimated-time caps: 0.02 s lets only tiny runs through (the others are refused by the cost guard, still one line
#: naming an option); 5 s (slow run) lets runs of a few seconds execute.
CAPS = [pytest.param("0.02", id="fast"), pytest.param("5", id="runs", marks=pytest.mark.slow)]


def _names_an_option(line: str, spec) -> bool:
    """Whether ``line`` names an option of the command, as ``--name`` or as its quoted parameter name."""
    return any(f"--{o.name}" in line or f"'{o.dest}'" in line or f"'{o.name}'" in line or
               (o.argument and o.name.upper() in line) for o in spec.options)


def _invoke(args: list[str]):
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("cap", CAPS)
@pytest.mark.parametrize("system, option, value", list(_cases()))
def test_hostile_option(system, option, value, cap, monkeypatch):
    monkeypatch.setenv("FLT_MAX_SIM_SECONDS", cap)
    spec = _systems()[system].simulate
    args = ["simulate", system, *_base(spec, option)]
    if "--" + option in args:  # a required option: replace its value
        args[args.index("--" + option) + 1] = value
    else:
        args += ["--" + option, value]
    code, _, err = _invoke(args)
    assert code in (0, 2), (args, code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("flt: error: "), (args, err)
        assert _names_an_option(lines[0], spec), (args, err)
        dest = option.replace("-", "_")
        if value in HUGE and dest not in NOT_SIZES or option == "seeds" and value in HUGE | {str(10**9)}:
            assert f"--{option}" in lines[0], (args, err)


@pytest.mark.parametrize("args, option", [
    (["sweep", "signal-noise/growth", "-p", "activation=relu", "-p", "n=8", "-p", "d=64", "-p", "snr=1",
      "-p", "sigma0_sqrt_d=0.01", "-p", "eta_scale=1", "--seeds", str(10**9)], "'seeds'"),
    (["sweep", "giant-step/one-step-mass", "-p", "target=z", "-p", "d=64", "-p", "kappa=1", "--seeds", str(10**9)],
     "'seeds'"),
    (["sweep", "attention/train", "-p", "n=100000", "-p", "mu_norm=1", "-p", "tokens=100000", "--seeds", "2"], "'n'"),
    (["sweep", "giant-step/one-step-mass", "-p", "target=z", "-p", "d=64", "-p", "kappa=-1"], "'kappa'"),
    (["sweep", "giant-step/one-step-mass", "-p", "target=z", "-p", "d=64", "-p", "kappa=1e308"], "'kappa'"),
    (["calibrate", "virtual-covariance/theorem3-tanh", "--repeats", str(10**9)], "--repeats"),
    (["calibrate", "giant-step/rank-one-update", "--repeats", str(10**9)], "--repeats"),
    (["check", "giant-step/rank-one-update", "--no-report", "--seed-base", "99999999999999999999"], "--seed-base"),
])
def test_commands_refuse_oversized_requests(tmp_path, args, option):
    """Refused up front (nothing runs, nothing is stored) with exit 2 and one line naming the parameter."""
    store = str(tmp_path / "store.sqlite")
    code, _, err = _invoke(args + (["--store", store] if args[0] in ("sweep", "calibrate") else []))
    assert code == 2, (args, code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flt: error: ") and option in lines[0], err
    assert not (tmp_path / "store.sqlite").exists() or args[0] == "calibrate"


def test_check_refuses_a_plan_over_the_time_limit(monkeypatch):
    """``flt check`` adds up the declared costs of its claims first and refuses a total over the limit."""
    monkeypatch.setenv("FLT_MAX_SIM_SECONDS", "1e-9")
    code, _, err = _invoke(["check", "virtual-covariance/theorem3-tanh", "--no-report"])
    assert code == 2 and err.startswith("flt: error: ") and "too large" in err, err
    assert len(err.strip().splitlines()) == 1, err


def test_check_plan_prints_each_claims_cost_and_runs_nothing(tmp_path, monkeypatch):
    """``flt check --plan --json``: per claim points, seeds, seconds (the declared cost's, or the verdict record's
    where it measured the same points and code: ``basis``) and memory; the total counts a measurement shared by several
    claims once; no report, no store."""
    import json

    monkeypatch.setenv("FLT_MAX_SIM_SECONDS", "86400")
    code, out, err = _invoke(["check", "attention", "--plan", "--json", "--report", str(tmp_path / "r")])
    assert code == 0, err
    document = json.loads(out)
    rows = document["claims"]
    assert [r["claim"] for r in rows][:1] == ["attention/benign"]
    assert set(rows[0]) == {"claim", "points", "seeds", "seconds", "memory_bytes", "declared_seconds", "basis"}
    assert all(r["seconds"] > 0 and r["memory_bytes"] > 0 for r in rows)
    measurements: dict[tuple, float] = {}  # benign/harmful/boundary share one measurement, counted once at its longest
    for r in rows:
        key = get_claim(r["claim"]).measurement.identity("small")
        measurements[key] = max(measurements.get(key, 0.0), r["seconds"])
    assert len(measurements) < len(rows) and document["total"]["seconds"] == pytest.approx(sum(measurements.values()))
    assert not (tmp_path / "r").exists()
