"""The front doors of one vocabulary per system: ``flt observables SYSTEM``, the observables of ``flt sweep --list``,
``--law``'s names (public, alias, stored key), a natural parameter converted for a level-set law, and ``flt simulate``'s
other spellings (``--eta-tilde`` beside ``--lr``, ``--target`` beside a positional TARGET)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.errors import InvalidParameterError
from flt_theory.laws_check.parse import parse_level_set_law
from flt_theory.laws_check.verify import _measure_level_set, _natural_parameters, _observable
from flt_theory.runner import experiment, get_experiment
from flt_theory.runner.params import Param, Params
from flt_theory.runner.store import ResultStore
from flt_theory.systems import discover
from flt_theory.systems.vocabulary import Conversion, vocabulary_of


def _run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_observables_of_a_system_with_meaning_unit_and_records():
    result = _run("observables", "online-sgd")
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("steps_to_weak_recovery"))
    assert "samples" in line and "online-sgd/recovery" in line and "flt simulate" in line and "stored as steps" in line
    assert "--lr  sets eta_tilde" in result.output


def test_observables_json_names_every_family_and_conversion():
    document = json.loads(_run("observables", "signal-noise", "--json").output)
    by_name = {o["name"]: o for o in document["observables"]}
    assert by_name["err_{i}"]["experiments"] == ["signal-noise/boundary", "signal-noise/error-curve"]
    assert by_name["test_error"]["simulate"] and not by_name["snr_star"]["simulate"]
    assert {"name": "mu_norm", "experiment": "signal-noise/label-noise", "parameter": "n_snr2"}.items() <= \
        next(c for c in document["conversions"] if c["experiment"] == "signal-noise/label-noise").items()


def test_observables_of_an_unknown_system_is_bad_input():
    result = _run("observables", "no-such-system")
    assert result.exit_code == 2 and "no system 'no-such-system'" in result.output


def test_sweep_list_shows_the_observables():
    result = _run("sweep", "--list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    at = lines.index(next(x for x in lines if x.startswith("online-sgd/recovery ")))
    assert lines[at + 1].strip().startswith("observables: steps_to_weak_recovery [samples]")
    listed = {e["name"]: e for e in json.loads(_run("sweep", "--list", "--json").output)}
    assert [o["key"] for o in listed["online-sgd/recovery"]["observables"]][0] == "steps"


def test_law_names_resolve_to_the_stored_column():
    vocabulary = vocabulary_of("online-sgd")
    assert _observable(vocabulary, "online-sgd/recovery", "steps") == ("steps", "steps", "steps_to_weak_recovery")
    assert _observable(vocabulary, "online-sgd/recovery", "steps_to_weak_recovery")[1] == "steps"
    assert _observable(vocabulary, "online-sgd/recovery", "time_1") is None  # recorded by multi-index only
    assert _observable(vocabulary, "online-sgd/multi-index", "time_1") == ("time_1", "time_1", "time_1")
    assert _observable(vocabulary, "online-sgd/recovery", "undeclared") == ("undeclared",) * 3


def test_a_fixed_natural_parameter_is_converted_and_a_varied_one_refused():
    discover()
    vocabulary, label_noise = vocabulary_of("signal-noise"), get_experiment("signal-noise/label-noise")
    base = label_noise.normalize({"n": 64, "d": 128, "n_snr2": 2.0, "label_noise": 0.2})
    fixed, conversion = _natural_parameters(vocabulary, label_noise, base, "final_error ~ eta", None,
                                            {"mu_norm": 3.0})
    assert conversion is None and fixed == {"n_snr2": pytest.approx(64 * 3.0**2 / 128)}  # n_snr2 = n ||mu||^2 / d
    _, conversion = _natural_parameters(vocabulary, label_noise, base, "mu_norm* ~ n**(-1/2)", None, None)
    assert conversion is vocabulary.conversion("signal-noise/label-noise", "mu_norm")
    with pytest.raises(InvalidParameterError, match="--fix: signal-noise/label-noise takes n_snr2, not mu_norm"):
        _natural_parameters(vocabulary, label_noise, base, "final_error ~ d", {"n": [32, 64]}, {"mu_norm": 3.0})
    with pytest.raises(InvalidParameterError, match="--over: signal-noise/label-noise takes n_snr2, not mu_norm"):
        _natural_parameters(vocabulary, label_noise, base, "final_error ~ mu_norm", {"mu_norm": [1, 2]}, None)
    with pytest.raises(InvalidParameterError, match="with d varied, give n_snr2 instead"):  # a designed grid varies d
        _natural_parameters(vocabulary, label_noise, base, "final_error ~ d", None, {"mu_norm": 3.0})


@experiment("test-vocabulary/ramp", params=Params(Param("p", "float", minimum=0, exclusive_minimum=True, default=1.0),
                                                  Param("d", "int", minimum=1, default=4)))
def _ramp(params, seed):
    """An observable equal to its parameter p (seed-free): its level set at L is p* = L exactly."""
    return {"obs": params["p"]}


def test_a_level_set_in_a_natural_parameter_is_the_converted_crossing():
    ramp = get_experiment("test-vocabulary/ramp")
    conversion = Conversion("x", "test-vocabulary/ramp", "p", {"p": 0.5, "d": 1.0})  # x = p^(1/2) d
    law = parse_level_set_law("p* ~ d", "obs = 2", ["p", "d"])
    points = [ramp.normalize({"d": 4}), ramp.normalize({"d": 8})]
    table, records = _measure_level_set(ramp, law, points, ["d"], [0, 1], 2, 0.95, ResultStore(":memory:"), 1,
                                         conversion=conversion)
    assert np.allclose(table, [[math.sqrt(2) * 4, math.sqrt(2) * 8]] * 2, rtol=0.02)  # x* = sqrt(p*) d, p* = 2
    assert records[1]["x*"] == pytest.approx(math.sqrt(2) * 8, rel=0.02) and "p*" not in records[1]


def test_simulate_takes_the_parameter_spelling_and_the_argument_as_an_option():
    help_text = _run("simulate", "online-sgd", "--help").output
    assert "--eta-tilde, --lr" in help_text
    refused = _run("simulate", "online-sgd", "--eta-tilde", "-1")
    assert refused.exit_code == 2 and "--eta-tilde" in refused.output
    assert "--target TEXT" in _run("simulate", "giant-step", "--help").output
    twice = _run("simulate", "giant-step", "z", "--target", "He2(z)", "--d", "16", "--kappa", "1")
    assert twice.exit_code == 2 and "give TARGET once, as the argument or as --target" in twice.output
