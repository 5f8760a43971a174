"""The contract of one vocabulary per system (:mod:`flt_theory.systems.vocabulary`), for all 13 systems: every
``flt simulate`` option and record field names a parameter, an observable, a conversion or a control of the system's
experiments, with the same unit; every observable names the system's experiments and every experiment records a
declared one. Each rule is shown to fail on a deliberately broken declaration."""

from __future__ import annotations

import dataclasses

import pytest

from flt_theory.runner.observables import Observable, Observables
from flt_theory.systems import discover
from flt_theory.systems.vocabulary import EMPTY, Conversion, vocabulary_of, vocabulary_problems

SYSTEMS = sorted(discover())


def test_all_thirteen_systems_are_checked():
    assert len(SYSTEMS) == 13, SYSTEMS


@pytest.mark.parametrize("name", SYSTEMS)
def test_one_vocabulary_per_system(name):
    system = discover()[name]
    vocabulary = vocabulary_of(system)
    assert vocabulary is not EMPTY, f"{name} declares no vocabulary"
    assert vocabulary_problems(system, vocabulary) == []


def _online():
    system = discover()["online-sgd"]
    return system, vocabulary_of(system)


def test_an_unmapped_option_fails():
    system, vocabulary = _online()
    broken = dataclasses.replace(vocabulary, options={})
    assert any("option --lr names no parameter" in p for p in vocabulary_problems(system, broken))


def test_a_record_field_under_another_name_fails():
    system, vocabulary = _online()
    renamed = [o if o.name != "steps_to_weak_recovery" else
               Observable("steps", o.meaning, o.unit, aliases=("steps_to_weak_recovery",), experiments=o.experiments)
               for o in vocabulary.observables.values()]
    broken = dataclasses.replace(vocabulary, observables=Observables(*renamed))
    problems = vocabulary_problems(system, broken)
    assert any("'steps_to_weak_recovery' is another name of the observable 'steps'" in p for p in problems)


def test_a_record_field_without_counterpart_fails():
    system, vocabulary = _online()
    kept = [o for o in vocabulary.observables.values() if o.name != "final_overlap"]
    problems = vocabulary_problems(system, dataclasses.replace(vocabulary, observables=Observables(*kept)))
    assert any("record field 'final_overlap' names no parameter" in p for p in problems)


def test_a_unit_that_differs_fails():
    system, vocabulary = _online()
    changed = [dataclasses.replace(o, unit="steps") if o.name == "steps_to_weak_recovery" else o
               for o in vocabulary.observables.values()]
    problems = vocabulary_problems(system, dataclasses.replace(vocabulary, observables=Observables(*changed)))
    assert any("'steps_to_weak_recovery' is in 'samples', its observable 'steps_to_weak_recovery' in 'steps'" in p
               for p in problems)


def test_an_experiment_without_observables_and_unknown_names_fail():
    system, vocabulary = _online()
    kept = [o for o in vocabulary.observables.values() if o.name != "time_{i}"]
    kept = [dataclasses.replace(o, experiments=("online-sgd/recovery",)) if o.name == "censored" else o for o in kept]
    broken = dataclasses.replace(
        vocabulary, observables=Observables(*kept, Observable("ghost", "nothing", experiments=("online-sgd/none",))),
        controls={**vocabulary.controls, "no_such_option": "nothing"},
        conversions=(Conversion("x", "online-sgd/recovery", "d", {"d": 1.0, "nope": 1.0}),), units={"nope": "m"})
    problems = vocabulary_problems(system, broken)
    for expected in ("experiment 'online-sgd/multi-index' records no declared observable",
                     "observable 'ghost' names experiments ['online-sgd/none']",
                     "the control 'no_such_option' is no option or record field",
                     "conversion 'x' uses ['nope']", "the vocabulary gives a unit to 'nope'"):
        assert any(expected in p for p in problems), (expected, problems)


def test_a_parameter_unit_left_undeclared_fails():
    system = discover()["signal-noise"]
    vocabulary = vocabulary_of(system)
    problems = vocabulary_problems(system, dataclasses.replace(vocabulary, units={}))
    assert any("record field 'eps' is in 'nats', its parameter 'eps' in '1'" in p for p in problems)


def test_observables_resolve_names_aliases_and_families():
    _, vocabulary = _online()
    assert vocabulary.stored("steps_to_weak_recovery") == "steps"
    assert vocabulary.stored("steps") == "steps" and vocabulary.public("steps") == "steps_to_weak_recovery"
    assert vocabulary.stored("time_2") == "time_2" and vocabulary.public("time_2") == "time_2"
    assert vocabulary.stored("unknown") == "unknown"
    with pytest.raises(Exception, match="names both"):
        Observables(Observable("a", "x", key="b"), Observable("b", "y"))


def test_the_boundary_conversion_inverts_its_definition():
    system = discover()["signal-noise"]
    conversion = vocabulary_of(system).conversion("signal-noise/label-noise", "mu_norm")
    point = {"n": 50, "d": 400, "n_snr2": 8.0}
    mu = conversion.natural(point)
    assert mu == pytest.approx((8.0 / 50) ** 0.5 * 400 ** 0.5)  # SNR = sqrt(n_snr2/n), ||mu|| = SNR sqrt(d)
    assert conversion.parameter_value(mu, point) == pytest.approx(8.0)
