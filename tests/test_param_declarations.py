"""Invalid values generated from the parameter declarations, for every system (after scikit-learn's
``check_param_validation``, which reads each estimator's ``_parameter_constraints``).

Each parameter is declared once (:class:`flt_theory.runner.Param`: kind, range or choices, unit, help, default); an
option of ``flt simulate SYSTEM`` that does not carry one yet is read through :meth:`Option.as_param` (its kind,
bounds and choices), so declaring a parameter can only make these tests stricter. From each declaration come values
below the minimum, above the maximum, of the wrong type, not finite, not among the choices, and

* ``flt simulate SYSTEM --option VALUE`` must exit 2 with one ``flt: error:`` line naming the option, before
  anything runs (the simulation is replaced by a stub that fails the test if it is reached);
* the runner's coercion (:meth:`Experiment.normalize`) must refuse it naming the parameter;
* a declared option's check (:meth:`SimulateCommand.check_options`) must refuse it naming the option;
* a config object that validates through its declarations must refuse it naming the parameter.

The last three are the public checks of :func:`flt_theory.testing.check_params` (the cases of
:func:`~flt_theory.testing.invalid_cases`), which ``check_system`` runs for a system outside the package; the command
line is tested here.

The generator itself is tested on a declaration that accepts everything, so these checks can fail.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.commands import simulate as simulate_command
from flt_theory.errors import FLTError
from flt_theory.runner import Param
from flt_theory.runner.registry import strict_int
from flt_theory.systems import discover
from flt_theory.systems.declaration import Option
from flt_theory.testing import invalid_cases


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


def _cases(where: str) -> list:
    """The invalid values :func:`flt_theory.testing.invalid_cases` generates for every system (``where``:
    ``experiment``, ``option`` or ``config``)."""
    return [case for name in sorted(discover()) for case in invalid_cases(name, where=(where,))]


def _sampled_cases(where: str):
    """:func:`_cases`, sampled per parameter as the command-line cases are."""
    by_parameter: dict[tuple, list] = {}
    for case in _cases(where):
        by_parameter.setdefault((case.target, case.key), []).append(case)
    for cases in by_parameter.values():
        for case, marks in _sampled(cases, cases[0].turn):
            yield pytest.param(case, marks=marks, id=case.id)


@pytest.mark.parametrize("case", list(_sampled_cases("experiment")))
def test_runner_refuses_the_invalid_values_of_its_declarations(case):
    case.check()  # the runner's coercion (Experiment.normalize) refuses it, naming the parameter


@pytest.mark.parametrize("case", list(_sampled_cases("option")))
def test_simulate_options_refuse_the_invalid_values_of_their_declarations(case):
    case.check()  # SimulateCommand.check_options refuses it, naming the option, before anything runs


def test_the_converted_configs_are_found():
    names = {case.target for case in _cases("config")}
    assert {"AttentionConfig", "DiffusionConfig"} <= names, names


@pytest.mark.parametrize("case", list(_sampled_cases("config")))
def test_configs_refuse_the_invalid_values_of_their_declarations(case):
    case.check()  # the config's __post_init__ refuses it: "The 'key' parameter of Config ..."


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
