"""Invalid values generated from the parameter declarations, for every system (after scikit-learn's
``check_param_validation``, which reads each estimator's ``_parameter_constraints``).

Each parameter is declared once (:class:`flt_theory.runner.Param`: kind, range or choices, unit, help, default); an
option of ``flt simulate SYSTEM`` that does not carry one yet is read through :meth:`Option.as_param` (its kind,
bounds and choices), so declaring a parameter can only make these tests stricter. From each declaration come values
below the minimum, above the maximum, of the wrong type, not finite, not among the choices, and

* ``flt simulate SYSTEM --option VALUE`` must exit 2 with one ``flt: error:`` line naming the option, before
  anything runs (the simulation is replaced by a stub that fails the test if it is reached);
* the runner's coercion (:meth:`Experiment.normalize`) must refuse it naming the parameter;
* a config object that validates through its declarations must refuse it naming the parameter.

The generator itself is tested on a declaration that accepts everything, so these checks can fail.
"""

from __future__ import annotations

import dataclasses
import importlib
import math

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.commands import simulate as simulate_command
from flt_theory.errors import FLTError
from flt_theory.runner import Param, Params, registered_experiments
from flt_theory.runner.registry import finite_float, strict_int
from flt_theory.systems import discover
from flt_theory.systems.declaration import Option


def _sampled(values: list, turn: int) -> list[tuple[tuple, tuple]]:
    """``(value, marks)`` per invalid value of one parameter: the default run tries one of them (a different reason
    from one parameter to the next), the ``slow`` run every one (the grid sampled to bound the test time)."""
    keep = turn % len(values) if values else 0
    return [(v, () if i == keep else (pytest.mark.slow,)) for i, v in enumerate(values)]


def _text(value) -> str:
    return "nan" if isinstance(value, float) and math.isnan(value) else str(value)


def _refused(run: dict) -> None:
    raise AssertionError("the simulation ran: an invalid value was accepted")


@pytest.fixture(scope="module")
def stubbed():
    """Every system with a ``flt simulate`` command, its simulation replaced by a stub that must not be reached."""
    systems = {}
    for name, system in discover().items():
        if system.simulate is not None:
            systems[name] = dataclasses.replace(system, simulate=dataclasses.replace(
                system.simulate, run=lambda **options: _refused(options)))
    return systems


def _base_args(spec, tested: Option) -> list[str]:
    """Valid values for the required options and arguments (from their declarations), and the smallest sizes."""
    args = []
    for option in spec.options:
        if option is tested:
            continue
        param = option.as_param()
        if option.argument:
            args.append("He2(z)")
        elif option.required:
            args += ["--" + option.name, _text(param.example() if param is not None else "z")]
    return args


def _cli_cases():
    for name, system in sorted(discover().items()):
        if system.simulate is None:
            continue
        for turn, option in enumerate(system.simulate.options):
            param = option.as_param()
            if param is None or param.kind == "str":  # a free string, a flag or an expression argument
                continue
            for (reason, value), marks in _sampled(param.invalid_values(), turn):
                yield pytest.param(name, option.name, _text(value), marks=marks,
                                   id=f"{name}--{option.name}={_text(value)}-{reason}")


@pytest.mark.parametrize("system, option, value", list(_cli_cases()))
def test_simulate_refuses_the_invalid_values_of_its_declarations(system, option, value, stubbed, monkeypatch):
    monkeypatch.setattr(simulate_command._SimulateGroup, "_systems", lambda self: stubbed)
    spec = stubbed[system].simulate
    tested = next(o for o in spec.options if o.name == option)
    result = CliRunner().invoke(cli, ["simulate", system, *_base_args(spec, tested), f"--{option}", value])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, (system, option, value, result.output, result.exception)
    assert len(lines) == 1 and lines[0].startswith("flt: error: "), result.stderr
    assert f"--{tested.name}" in lines[0] or f"'{tested.dest}'" in lines[0], lines[0]


def _experiment_cases():
    for exp in registered_experiments():
        for turn, (key, convert) in enumerate((exp.types or {}).items()):
            if isinstance(convert, Param):
                values = convert.invalid_values()
            elif convert in (strict_int, finite_float):  # not declared yet: its kind only
                values = [("wrong type", "abc")]
            else:
                continue
            for (reason, value), marks in _sampled(values, turn):
                yield pytest.param(exp.name, key, value, marks=marks, id=f"{exp.name}:{key}={_text(value)}-{reason}")


def _valid_point(exp) -> dict:
    """A point of ``exp`` that normalises: a claim's small point, else the defaults and declared examples."""
    from flt_theory.systems import registered_claims

    for claim in registered_claims():
        if claim.measurement.experiment == exp.name:
            return dict(claim.measurement.points["small"][0])
    return {k: p.example() for k, p in (exp.types or {}).items() if isinstance(p, Param) and p.required}


@pytest.mark.parametrize("experiment, key, value", list(_experiment_cases()))
def test_runner_refuses_the_invalid_values_of_its_declarations(experiment, key, value):
    exp = next(e for e in registered_experiments() if e.name == experiment)
    point = _valid_point(exp)
    exp.normalize(point)  # the base point is valid
    with pytest.raises(FLTError, match=f"'{key}'"):
        exp.normalize({**point, key: value})


def _configs():
    """Every frozen dataclass of a system's ``model.py`` whose fields are declared in a :class:`Params` of it."""
    from flt_theory.systems.registry import declaring_module

    for name in sorted(discover()):
        try:
            model = importlib.import_module(declaring_module(name).rsplit(".", 1)[0] + ".model")
        except ModuleNotFoundError:
            continue
        declared = [v for v in vars(model).values() if isinstance(v, Params)]
        for cls in vars(model).values():
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == model.__name__
                    and "__post_init__" in vars(cls)):
                continue
            fields = {f.name: f for f in dataclasses.fields(cls)}
            for params in declared:
                if set(params) & set(fields):
                    yield cls, params


def _config_cases():
    for cls, params in _configs():
        for turn, key in enumerate(params):
            if key not in {f.name for f in dataclasses.fields(cls)}:
                continue
            for (reason, value), marks in _sampled(params[key].invalid_values(), turn):
                yield pytest.param(cls, params, key, value, marks=marks,
                                   id=f"{cls.__name__}:{key}={_text(value)}-{reason}")


def test_the_converted_configs_are_found():
    names = {cls.__name__ for cls, _ in _configs()}
    assert {"AttentionConfig", "DiffusionConfig"} <= names, names


@pytest.mark.parametrize("cls, params, key, value", list(_config_cases()))
def test_configs_refuse_the_invalid_values_of_their_declarations(cls, params, key, value):
    required = {f.name: params[f.name].example() for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    cls(**required)  # the base config is valid
    with pytest.raises(FLTError, match=f"The '{key}' parameter of {cls.__name__}"):
        cls(**{**required, key: value})


# ----------------------------------------------------------------------------------------------
# the generator can fail


def test_a_declaration_that_accepts_everything_yields_nothing_to_refuse():
    free = Param("x", "float")
    assert [reason for reason, _ in free.invalid_values()] == ["wrong type", "not finite"]
    assert free.check(1e300) == 1e300  # no range: a huge value is valid, so no case claims otherwise


def test_a_value_the_declaration_accepts_fails_the_check():
    """A bound given to the option but not enforced before the run is what the CLI test catches: an option whose
    declared minimum the command does not enforce reaches the (stubbed) simulation."""
    lax = Option(name="n", kind="str", param=Param("n", "int", minimum=2))  # a str option: click checks nothing
    from flt_theory.systems.declaration import SimulateCommand

    spec = SimulateCommand(help="", options=(lax,), run=lambda **o: {"records": []})
    with pytest.raises(FLTError, match="--n: The 'n' parameter must be an int >= 2"):
        spec.check_options({"n": 1})
    unchecked = SimulateCommand(help="", options=(Option(name="n", kind="str"),), run=lambda **o: {"records": []})
    assert unchecked.check_options({"n": 1}) == {"n": 1}  # nothing declared: nothing refused


def test_messages_name_the_parameter_and_the_expected_range():
    p = Param("eta", "float", minimum=0, exclusive_minimum=True, maximum=10)
    with pytest.raises(FLTError) as info:
        p.check(-1, "demo")
    assert str(info.value) == "The 'eta' parameter of demo must be a finite real number > 0 and <= 10. Got -1 instead."
    with pytest.raises(TypeError):
        p.check("abc", "demo")
    assert Param("n", "int", minimum=1)("64") == 64 and strict_int("64") == 64  # the runner's coercion is unchanged
