r"""One vocabulary per system: the names of its parameters and observables, with their units, declared once.

A system speaks through four doors: the options of ``flt simulate SYSTEM`` and the fields of its JSON records, the
parameters of its runner experiments (what ``flt verify --law`` may vary: ``--over``, ``--fix``, ``PARAM*``) and their
outputs (``--law``'s OBS, ``--where``). The parameters are declared once
(:class:`~flt_theory.runner.params.Param`); a system's :class:`Vocabulary` declares the rest once:

* its **observables** (:class:`~flt_theory.runner.observables.Observables`): each with its one public name, meaning,
  unit, the experiments that record it and, where the experiments store it under another key (stored rows are keyed by
  their experiment's code and output names, so a stored key is never renamed), that key: the public name is mapped
  onto it at the front door, and the stored key stays accepted as an alias;
* **options** spelled otherwise than the parameter they set (``--lr`` sets ``eta_tilde``): ``flt simulate`` then
  takes the parameter's spelling too (``--eta-tilde``), the old one kept;
* **conversions**: a natural parameter an experiment is parametrised differently in, for a reason (the label-noise
  curve's axis is :math:`n\,\mathrm{SNR}^2`), as a monomial :math:`x = c \prod_k p_k^{a_k}` of the experiment's
  parameters (:class:`Conversion`), so ``--law "mu_norm* ~ ..."`` is read on that experiment and converted;
* **controls**: options and record fields that say how the command runs (``--device``, ``--trajectory``) or which
  experiment it runs (``--part``), each with what it does; ``seed``, ``seeds`` and ``device`` are every system's
  (:data:`COMMON`);
* **units** of parameters whose :class:`~flt_theory.runner.params.Param` keeps the default unit ``"1"``.

:func:`vocabulary_problems` is the contract: every simulate option and record field names a parameter, an observable,
a conversion or a control, with the same unit; every observable names the system's experiments. A system keeps its
vocabulary in ``VOCABULARY`` of the module that declares it, or, for a system folder, in its ``vocabulary.py`` (a
module no experiment imports, so declaring a name never touches a stored row's code fingerprint).

>>> mu = Conversion("mu_norm", "demo/label-noise", "n_snr2", {"n_snr2": 0.5, "d": 0.5, "n": -0.5})
>>> round(mu.natural({"n_snr2": 8.0, "d": 100, "n": 2}), 12), round(mu.parameter_value(20.0, {"d": 100, "n": 2}), 12)
(20.0, 8.0)
>>> mu.text()
'mu_norm = n_snr2^(1/2) d^(1/2) n^(-1/2)'
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameterError
from ..runner.observables import Observable, Observables

if TYPE_CHECKING:  # pragma: no cover
    from .declaration import System

__all__ = ["COMMON", "EMPTY", "Conversion", "Observable", "Observables", "Vocabulary", "describe_observables",
           "from_fields", "parameter_units", "recorded_by", "vocabulary_of", "vocabulary_problems"]

#: The controls every ``flt simulate`` command shares: the seed of a record, the number of seeds, the device.
COMMON = {
    "seed": "the run's seed (the runner's seed column; records of one point differ only by it)",
    "seeds": "independent runs, seeds 0..S-1 (the runner's seeds)",
    "device": "where torch runs ('auto': CUDA when present); no number depends on it beyond rounding",
}


@dataclass(frozen=True)
class Conversion:
    r"""A natural parameter of a system that one experiment is parametrised differently in, as a monomial of that
    experiment's parameters: :math:`x = c \prod_k p_k^{a_k}` (``powers`` :math:`\{p_k: a_k\}`, ``coefficient``
    :math:`c`), ``parameter`` the one it stands in for (solved for in :meth:`parameter_value`). ``why``: the reason
    the experiment takes the other parameter."""

    name: str
    experiment: str
    parameter: str
    powers: Mapping[str, float]
    coefficient: float = 1.0
    why: str = ""

    def __post_init__(self) -> None:
        if not self.powers.get(self.parameter):
            raise InvalidParameterError(f"Conversion {self.name!r}: the power of {self.parameter!r} must be "
                                        "non-zero (it is solved for).")
        object.__setattr__(self, "powers", dict(self.powers))

    def natural(self, point: Mapping[str, Any]) -> float:
        """:math:`x` at an experiment ``point``."""
        return float(self.coefficient * math.prod(float(point[k]) ** a for k, a in self.powers.items()))

    def parameter_value(self, value: float, point: Mapping[str, Any]) -> float:
        """The experiment's ``parameter`` at which :math:`x` = ``value``, the other parameters those of ``point``."""
        rest = self.coefficient * math.prod(float(point[k]) ** a for k, a in self.powers.items()
                                            if k != self.parameter)
        return float((float(value) / rest) ** (1.0 / self.powers[self.parameter]))

    def text(self) -> str:
        """The definition in words: ``mu_norm = n_snr2^(1/2) d^(1/2) n^(-1/2)``."""
        terms = [k if a == 1 else f"{k}^({Fraction(a).limit_denominator(64)})" for k, a in self.powers.items()]
        scale = "" if self.coefficient == 1 else f"{self.coefficient:g} "
        return f"{self.name} = {scale}{' '.join(terms)}"


@dataclass(frozen=True, kw_only=True)
class Vocabulary:
    """A system's names (module docstring): ``observables``; ``options`` (simulate option ``dest`` -> the parameter
    or observable it sets, where spelled otherwise); ``record_fields`` (record field -> the observable it is, where
    spelled otherwise: one value of a family per record); ``conversions``; ``controls`` (option or field -> what it
    does) and ``units`` (parameter -> its unit, where its ``Param`` keeps ``"1"``)."""

    observables: Observables
    options: Mapping[str, str] = field(default_factory=dict)
    record_fields: Mapping[str, str] = field(default_factory=dict)
    conversions: Sequence[Conversion] = ()
    controls: Mapping[str, str] = field(default_factory=dict)
    units: Mapping[str, str] = field(default_factory=dict)

    def conversion(self, experiment: str, name: str) -> Conversion | None:
        """The conversion of the natural parameter ``name`` on ``experiment``, if declared."""
        return next((c for c in self.conversions if c.experiment == experiment and c.name == name), None)

    def stored(self, name: str, experiment: str | None = None) -> str:
        """The stored output key ``name`` stands for (a public name, an alias, a stored key); ``name`` itself where it
        names no declared observable (the experiment's columns then decide)."""
        found = self.observables.resolve(name)
        if found is None or (experiment is not None and experiment not in found.experiments):
            return name
        return found.stored(name) or name

    def public(self, name: str) -> str:
        """The public name of the observable ``name`` names (itself where it names none)."""
        return self.observables.public(name) or name

    def controls_all(self) -> dict[str, str]:
        """The system's controls with the :data:`COMMON` ones."""
        return {**COMMON, **self.controls}


def recorded_by(*experiments: str, unit: str = "1") -> Callable[..., Observable]:
    """A declarer of observables recorded by ``experiments`` (none: ``flt simulate`` records only): ``declare(name,
    meaning, unit=unit)``, the shorthand a system's vocabulary uses for a run of observables of the same experiments.

    >>> early = recorded_by("good-sets/early-phase", unit="neurons")
    >>> o = early("sure_final", "size of S_sure after the early phase")
    >>> o.unit, o.experiments
    ('neurons', ('good-sets/early-phase',))
    """
    default = unit

    def declare(name: str, meaning: str, unit: str = default) -> Observable:
        return Observable(name, meaning, unit, experiments=experiments)

    return declare


def from_fields(fields: Sequence[Any], recorded_by: Mapping[str, Sequence[str]], *,
                keys: Mapping[str, str] | None = None) -> list[Observable]:
    """The observables that are fields of ``flt simulate`` records (``fields``: its
    :class:`~flt_theory.systems.declaration.RecordField` objects, whose meaning and unit they take), one per name of
    ``recorded_by`` (name -> the experiments that record it; empty: the records only); ``keys``: name -> the key the
    experiments store it under, where it differs."""
    by_name = {f.name: f for f in fields}
    missing = sorted(set(recorded_by) - set(by_name))
    if missing:
        raise InvalidParameterError(f"from_fields: no record field {missing}; the fields are {sorted(by_name)}.")
    keys = keys or {}
    return [Observable(name, by_name[name].meaning, by_name[name].unit, key=keys.get(name, ""),
                       experiments=tuple(experiments)) for name, experiments in recorded_by.items()]


#: The vocabulary of a system that declares none: no observables (``--law`` then reads the experiments' columns).
EMPTY = Vocabulary(observables=Observables())


def vocabulary_of(system: System | str) -> Vocabulary:
    """The :class:`Vocabulary` of ``system`` (module docstring: ``VOCABULARY`` of its declaring module, else of the
    ``vocabulary`` module beside a ``declaration`` module); :data:`EMPTY` where it declares none."""
    from .registry import declaring_module, get_system

    name = system if isinstance(system, str) else system.name
    get_system(name)  # discovered (an unknown name is refused there)
    module = importlib.import_module(declaring_module(name))
    found = getattr(module, "VOCABULARY", None)
    if found is None and module.__name__.endswith(".declaration"):
        try:
            found = getattr(importlib.import_module(module.__name__.rsplit(".", 1)[0] + ".vocabulary"), "VOCABULARY",
                            None)
        except ModuleNotFoundError:
            found = None
    return found if isinstance(found, Vocabulary) else EMPTY


def _experiments(system: System) -> list[Any]:
    """The runner experiments of ``system``: those its claims measure, then those it only registers."""
    from ..runner.registry import get_experiment

    names = list(dict.fromkeys([c.measurement.experiment for c in system.claims] + list(system.experiments)))
    return [get_experiment(n) for n in names]


def parameter_units(system: System, vocabulary: Vocabulary) -> dict[str, str]:
    """The unit of every parameter of ``system``'s experiments: its ``Param``'s, else the vocabulary's ``units``; a
    choice or free text without a unit is a ``"label"``."""
    units: dict[str, str] = {}
    for experiment in _experiments(system):
        for name, param in (experiment.types or {}).items():
            unit = getattr(param, "unit", "1")
            if unit == "1":
                unit = vocabulary.units.get(name, "label" if getattr(param, "kind", "") in ("choice", "str") else "1")
            units.setdefault(name, unit)
    return units


def vocabulary_problems(system: System, vocabulary: Vocabulary | None = None) -> list[str]:
    """What breaks the contract of one vocabulary (module docstring), one line each; empty when it holds.

    Checked: every ``flt simulate`` option names (its ``Param``, its ``dest`` or through ``options``) a parameter of
    the system's experiments, an observable, a conversion or a control; every record field names a parameter, an
    observable by its public name, a conversion or a control, with the same unit; an observable that is also a
    parameter has the parameter's unit; every observable's experiments are the system's, and every experiment of the
    system records a declared observable; every name the vocabulary maps or converts exists."""
    vocabulary = vocabulary_of(system) if vocabulary is None else vocabulary
    problems: list[str] = []
    experiments = {e.name: e for e in _experiments(system)}
    units = parameter_units(system, vocabulary)
    observables = vocabulary.observables
    naturals = {c.name for c in vocabulary.conversions}
    controls = vocabulary.controls_all()
    spec = system.simulate
    options = {} if spec is None else {o.dest: o for o in spec.options}
    fields = {} if spec is None else {f.name: f for f in spec.fields}

    def unit_of(name: str) -> str | None:
        if name in observables:
            return observables[name].unit
        return units.get(name)

    def names_something(name: str) -> bool:
        return name in units or name in observables or name in naturals or name in controls

    for dest, option in options.items():
        targets = [vocabulary.options[dest]] if dest in vocabulary.options else \
            [getattr(option.param, "name", None), dest]
        if not any(t is not None and names_something(t) for t in targets):
            problems.append(f"option --{option.name} names no parameter, observable, conversion or control of "
                            f"system {system.name!r}")
    for name, record_field in fields.items():
        target = vocabulary.record_fields.get(name, name)
        if target in controls and target not in units and target not in observables:
            continue
        if not names_something(target) and observables.resolve(target) is None:
            problems.append(f"record field {name!r} names no parameter, observable or conversion of system "
                            f"{system.name!r}")
            continue
        if target not in units and target not in observables and target not in naturals:
            public = observables.public(target)
            problems.append(f"record field {name!r} is another name of the observable {public!r}: one name, the "
                            "observable's")
            continue
        expected = unit_of(target)
        if expected is not None and record_field.unit != expected:
            what = "observable" if target in observables else "parameter"
            problems.append(f"record field {name!r} is in {record_field.unit!r}, its {what} {target!r} in "
                            f"{expected!r}")
    for name, observable in observables.items():
        if name in units and observable.unit != units[name]:
            problems.append(f"observable {name!r} is in {observable.unit!r}, the parameter {name!r} in "
                            f"{units[name]!r}")
        unknown = [e for e in observable.experiments if e not in experiments]
        if unknown:
            problems.append(f"observable {name!r} names experiments {unknown} that system {system.name!r} does not "
                            "run")
    for experiment in experiments:
        if not observables.of_experiment(experiment) and observables:
            problems.append(f"experiment {experiment!r} records no declared observable")
    for dest, target in vocabulary.options.items():
        if dest not in options:
            problems.append(f"the vocabulary maps the option {dest!r}, which flt simulate {system.name} lacks")
        elif not names_something(target):
            problems.append(f"the option {dest!r} is mapped onto {target!r}, which names nothing")
    for name in vocabulary.record_fields:
        if name not in fields:
            problems.append(f"the vocabulary maps the record field {name!r}, which flt simulate {system.name} lacks")
    for name in vocabulary.controls:
        if name not in options and name not in fields:
            problems.append(f"the control {name!r} is no option or record field of flt simulate {system.name}")
    for conversion in vocabulary.conversions:
        experiment = experiments.get(conversion.experiment)
        if experiment is None:
            problems.append(f"conversion {conversion.name!r} names the experiment {conversion.experiment!r}, not "
                            f"one of system {system.name!r}")
            continue
        missing = [k for k in conversion.powers if k not in (experiment.types or {})]
        if missing:
            problems.append(f"conversion {conversion.name!r} uses {missing}, not parameters of "
                            f"{conversion.experiment!r}")
        if conversion.name in (experiment.types or {}):
            problems.append(f"conversion {conversion.name!r}: {conversion.experiment!r} takes it already")
    for name in vocabulary.units:
        if name not in units:
            problems.append(f"the vocabulary gives a unit to {name!r}, no parameter of system {system.name!r}")
    return problems


def describe_observables(system: System, vocabulary: Vocabulary | None = None) -> list[dict[str, Any]]:
    """Every observable of ``system`` as JSON-ready data (:meth:`~flt_theory.runner.observables.Observable.to_dict`),
    with ``simulate``: whether ``flt simulate`` records carry it."""
    vocabulary = vocabulary_of(system) if vocabulary is None else vocabulary
    fields = set() if system.simulate is None else {vocabulary.record_fields.get(f.name, f.name)
                                                    for f in system.simulate.fields}
    return [{**o.to_dict(), "simulate": name in fields} for name, o in vocabulary.observables.items()]

