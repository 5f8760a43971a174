r"""The contract every system passes, as one public function: :func:`check_system` (after scikit-learn's
``check_estimator``).

An author of a system kept outside this package calls it in their own test::

    from flt_theory.testing import check_system

    def test_my_system():
        check_system("coin")  # raises SystemCheckError naming the check and the claim that failed

It runs the checks every in-tree system passes (``tests/test_systems_contract.py``,
``tests/test_param_declarations.py`` and ``tests/test_hypotheses_contract.py`` call the same functions, one test
per system or per claim):

* :func:`check_declaration` -- the system is discovered, has a title, a summary, sources and laws, and every claim's
  experiment is registered and listed in ``experiments``;
* :func:`check_layers` -- ``laws.py`` imports no torch and ``model.py`` no sympy, where the system's folder has them;
* :func:`check_claim_declaration` -- a law and a DIFFERENT wrong law about the same quantity (with LaTeX, a status
  and a source), words, points and at least two seeds at every scale, and a finding's size ladder or the reason none
  applies (``no_ladder``);
* :func:`check_hypotheses` -- the law carries its source's hypotheses or says why not, every hypothesis is readable
  at every point, and a theorem or finding has points inside them or says why not (``extrapolation_note``);
* :func:`check_params` -- values generated from the parameter declarations (:meth:`Param.invalid_values
  <flt_theory.runner.params.Param.invalid_values>`: below the minimum, above the maximum, the wrong type, not
  finite, not among the choices) are refused, naming the parameter, by the runner's coercion, by the ``flt simulate``
  options and by the configs of the system's ``model.py``;
* :func:`check_seeds` -- the measurement honours its seeds (two seeds give different numbers) and a seed gives the
  same numbers whoever shares its batch (one seed run again alone, to the rounding of batched kernels);
* :func:`check_control` -- the law passes AND the wrong law of the negative control fails, on the same measurement;
* :func:`check_mutated_law` -- editing the law edits its check: the largest mutants of each kind
  (:meth:`Law.mutation_panel <flt_theory.symbolic.law.Law.mutation_panel>`) fail on that same measurement;
* :func:`check_catalogue_entry` -- the claim's entry of the catalogue (``flt claims``, ``CLAIMS.md``) is complete.

A check that does not apply (a law naming an object has no mutants) raises :class:`unittest.SkipTest`, which pytest
reports as a skip and :func:`check_system` records as skipped. The checks that measure read the claim's measurement
through :func:`flt_theory.systems.measure`: with no ``store``, the process's session store, so the control, the
mutants and the seeds are compared on ONE measurement per claim, computed once.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import math
import unittest
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import sympy as sp

from .checking.calibrate import is_inert, mutant_result
from .checking.catalogue import catalogue
from .errors import FLTError, InvalidParameterTypeError
from .runner.params import Param, Params
from .runner.registry import Experiment, finite_float, get_experiment, strict_int
from .runner.store import ResultStore, canonical_json
from .symbolic.law import STATUSES, Law
from .systems import registry
from .systems.declaration import SCALES, Claim, System

if TYPE_CHECKING:  # pragma: no cover
    import os

    import pandas as pd

__all__ = [
    "InvalidCase",
    "SystemCheck",
    "SystemCheckError",
    "check_catalogue_entry",
    "check_claim_declaration",
    "check_control",
    "check_declaration",
    "check_hypotheses",
    "check_layers",
    "check_mutated_law",
    "check_params",
    "check_seeds",
    "check_system",
    "invalid_cases",
    "system_checks",
]

#: Mutations that make a law false whatever the data (a wrong exponent, value, bound or side): each such mutant
#: must fail. A subspace neighbour may be a weaker, still true law (a spike along v* also lies in any plane holding
#: v*), so of the other mutations only one need fail.
STRICT_MUTATIONS = ("exponent of", "value shift", "value scale", "bound side", "bound scale")

#: What the measuring checks take as ``store``: a results store, its path, or None (the process's session store).
Store: TypeAlias = "ResultStore | str | os.PathLike[str] | None"


class SystemCheckError(FLTError, AssertionError):
    """A check of :func:`check_system` failed; the message starts with the check and what it checked
    (``check_control[coin/fair]: ...``). An ``AssertionError``, so a test that calls a check fails as by ``assert``."""


def _fail(check: str, subject: str, message: str) -> SystemCheckError:
    return SystemCheckError(f"{check}[{subject}]: {message}")


def _require(condition: object, check: str, subject: str, message: str) -> None:
    if not condition:
        raise _fail(check, subject, message)


def _system(system: System | str) -> System:
    if isinstance(system, str):
        return registry.get_system(system)
    if not isinstance(system, System):
        raise InvalidParameterTypeError(f"The 'system' parameter must be a System or the name of one. Got {system!r} "
                                        "instead.")
    return system


# ----------------------------------------------------------------------------------------------
# the declaration


def check_declaration(system: System | str) -> None:
    """The system is discovered (the registry, ``flt check``, ``flt simulate`` and the catalogue find it), says what
    it is (title, summary, sources), returns its laws, and declares claims whose experiments are registered and
    listed in its ``experiments`` (``flt sweep --list``)."""
    system = _system(system)
    name, where = "check_declaration", system.name
    found = registry.discover().get(system.name)
    _require(found is system, name, where,
             f"system {system.name!r} is not discovered: name its declaration module in ${registry.ENV_VARIABLE} "
             f"or in an entry point of the group {registry.ENTRY_POINT_GROUP!r}"
             + (" (another system of that name is)" if found is not None else ""))
    _require(system.title.strip() and system.summary.strip(), name, where, "a title and a summary are needed")
    _require(system.sources, name, where, "no sources: name the papers the system encodes")
    laws = list(system.laws())
    _require(laws and all(isinstance(law, Law) for law in laws), name, where,
             f"laws() must return a non-empty list of Law objects. Got {laws!r} instead.")
    _require(system.claims, name, where, "no claims: a system is checked through its claims")
    for claim in system.claims:
        experiment = claim.measurement.experiment
        try:
            get_experiment(experiment)
        except FLTError as exc:
            raise _fail(name, claim.key, f"its experiment {experiment!r} is not registered: {exc}") from None
        _require(experiment in system.experiments, name, claim.key,
                 f"its experiment {experiment!r} is not listed in the system's experiments {tuple(system.experiments)}")


def _imports(path: Path) -> set[str]:
    """The top-level packages a Python file imports (absolute imports only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def check_layers(system: System | str) -> None:
    """The layers stay apart in the system's folder: ``laws.py`` imports no torch (sympy only), ``model.py`` no sympy
    (torch only). Skipped (:class:`unittest.SkipTest`) for a system whose folder has neither file."""
    system = _system(system)
    spec = importlib.util.find_spec(registry.declaring_module(system.name))
    origin = spec.origin if spec is not None else None
    if origin is None:
        raise unittest.SkipTest(f"the declaration of {system.name!r} is no file")
    package = Path(origin).parent
    laws, model = package / "laws.py", package / "model.py"
    if not (laws.exists() or model.exists()):
        raise unittest.SkipTest(f"the folder of {system.name!r} has no laws.py and no model.py")
    if laws.exists():
        _require("torch" not in _imports(laws), "check_layers", system.name, f"{laws.name} imports torch")
    if model.exists():
        _require("sympy" not in _imports(model), "check_layers", system.name, f"{model.name} imports sympy")


def check_claim_declaration(claim: Claim) -> None:
    """A law and a wrong law (Law objects with LaTeX, a status and a source), the wrong law DIFFERENT from the law but
    about the same quantity (same ``lhs``: a control about another quantity proves nothing), words, and points and
    at least two seeds at every scale. A ``finding`` (a claim that a published result is false or narrower) declares
    its size ladder (:attr:`Claim.ladder <flt_theory.systems.declaration.Claim.ladder>`: a finding is a statement
    about the limit too) or says why none applies (``no_ladder``); no claim does both."""
    name, key = "check_claim_declaration", claim.key
    law, wrong = claim.the_law, claim.the_wrong_law
    _require(isinstance(law, Law) and isinstance(wrong, Law), name, key, "its law and wrong law must be Law objects")
    _require(law.latex().strip() and law.status in STATUSES and law.source.authors, name, key,
             f"its law needs LaTeX, a status among {STATUSES} (got {law.status!r}) and a source with authors")
    _require((wrong.value, wrong.relation, wrong.lhs, wrong.name) != (law.value, law.relation, law.lhs, law.name),
             name, key, "the negative control must compare with a different law")
    _require(wrong.lhs == law.lhs, name, key,
             f"the negative control speaks of {wrong.lhs!r}, its law of {law.lhs!r}: the same quantity is needed")
    _require(claim.words.strip() and wrong.text().strip(), name, key, "the claim and its wrong law need words")
    for scale in SCALES:
        _require(claim.measurement.points[scale], name, key, f"no measurement points at scale {scale!r}")
        _require(claim.measurement.seeds[scale] >= 2, name, key,
                 f"at least 2 seeds are needed at scale {scale!r}; got {claim.measurement.seeds[scale]}")
    reason = claim.no_ladder
    _require(isinstance(reason, str), name, key, f"no_ladder must be a string (the reason); got {reason!r}")
    _require(claim.ladder is None or not reason.strip(), name, key,
             f"it declares a size ladder AND says none applies (no_ladder={reason!r}): keep one")
    if law.status == "finding":
        _require(claim.ladder is not None or reason.strip(), name, key,
                 "a finding needs its size ladder (ladder=, the effective exponents of the limit it speaks of) or the "
                 "reason none applies (no_ladder=)")


def check_hypotheses(claim: Claim) -> None:
    """The law carries its source's hypotheses as checkable conditions, or says why there are none
    (``hypotheses_reading``); every hypothesis can be read at every point of every scale; a ``theorem`` or a
    ``finding`` has points inside its hypotheses at some scale, or says why that is infeasible
    (``extrapolation_note``)."""
    name, key, law = "check_hypotheses", claim.key, claim.the_law
    _require(law.hypotheses or law.hypotheses_reading.strip(), name, key,
             "its law carries no hypotheses and does not say why (hypotheses_reading)")
    for h in law.hypotheses:
        _require(h.where.strip() and h.text.strip(), name, key, f"a hypothesis needs its text and where: {h!r}")
    labels = {}
    for scale in SCALES:
        try:
            points = claim.hypotheses_at(scale)
        except FLTError as exc:
            raise _fail(name, key, f"a hypothesis cannot be read at a point of scale {scale!r}: {exc}") from None
        _require(all(isinstance(p["inside"], bool) for p in points), name, key, "unreadable hypotheses")
        labels[scale] = claim.in_hypotheses(scale)
    if law.status in ("theorem", "finding"):
        _require(any(label in ("all", "some") for label in labels.values()) or claim.extrapolation_note.strip(),
                 name, key, f"({law.status}): no point inside its hypotheses at any scale ({labels}) and no "
                            "extrapolation_note saying why and what size it would need")


def check_catalogue_entry(claim: Claim, entries: Sequence[Mapping[str, Any]] | None = None) -> None:
    """The claim's entry of the catalogue (``flt claims``; ``entries``: :func:`flt_theory.checking.catalogue.catalogue`,
    read once by a caller checking many claims) is complete: law and wrong law in words and LaTeX, status, source,
    where its points lie, whether it has a size ladder and why not, and every hypothesis as text, LaTeX, a condition
    sympy reads back, and where it is stated."""
    name, key = "check_catalogue_entry", claim.key
    entries = catalogue(keys={key}) if entries is None else entries
    found = [e for e in entries if e["key"] == key]
    _require(len(found) == 1, name, key, f"the catalogue holds {len(found)} entries for it, not 1")
    entry = found[0]
    for field in ("words", "law", "latex", "wrong_law", "wrong_law_latex", "experiment"):
        _require(str(entry.get(field, "")).strip(), name, key, f"its entry has no {field!r}")
    _require(entry["status"] in STATUSES, name, key, f"status {entry['status']!r} is not one of {STATUSES}")
    _require(entry["source"].get("authors") and entry["source"].get("year"), name, key,
             f"its source names no authors or year: {entry['source']!r}")
    _require(entry["in_hypotheses"] in ("all", "some", "none", "not stated"), name, key,
             f"in_hypotheses is {entry['in_hypotheses']!r}")
    _require(isinstance(entry.get("has_ladder"), bool) and isinstance(entry.get("no_ladder"), str), name, key,
             f"its entry needs has_ladder (a bool) and no_ladder (a string); got {entry.get('has_ladder')!r}, "
             f"{entry.get('no_ladder')!r}")
    for h in entry["hypotheses"]:
        _require(set(h) == {"text", "latex", "condition", "where"}, name, key, f"a hypothesis entry is {h!r}")
        try:
            sp.parse_expr(h["condition"], evaluate=False)
        except Exception as exc:  # noqa: BLE001 - sympy raises many kinds; any is a condition it cannot read back
            raise _fail(name, key, f"sympy cannot read the condition {h['condition']!r} back: {exc}") from None


# ----------------------------------------------------------------------------------------------
# parameters: generated invalid values


@dataclass(frozen=True)
class InvalidCase:
    """One generated invalid value: ``where`` (``experiment``, ``option`` or ``config``) of ``target`` (its name),
    parameter ``key``, ``reason`` (:meth:`Param.invalid_values <flt_theory.runner.params.Param.invalid_values>`),
    ``value``, its position ``turn`` among the parameters of its target, and ``check()`` which raises
    :class:`SystemCheckError` unless the value is refused naming the parameter."""

    where: str
    target: str
    key: str
    reason: str
    value: Any
    turn: int
    check: Callable[[], None] = dataclasses.field(repr=False, compare=False)

    @property
    def id(self) -> str:
        text = "nan" if isinstance(self.value, float) and self.value != self.value else str(self.value)
        return f"{self.target}:{self.key}={text}-{self.reason}"


def _valid_point(exp: Experiment, claims: Sequence[Claim]) -> dict[str, Any]:
    """A point of ``exp`` that normalises: a claim's small point, else the defaults and declared examples."""
    for claim in claims:
        if claim.measurement.experiment == exp.name:
            return dict(claim.measurement.points["small"][0])
    return {k: p.example() for k, p in (exp.types or {}).items() if isinstance(p, Param) and p.required}


def _expect_refusal(subject: str, value: Any, invalid: Callable[[], object], names: Sequence[str], what: str,
                    base: tuple[Callable[[], object], str] | None = None, noun: str = "parameter") -> None:
    """The one shape of every ``check_params`` case: the valid ``base`` (a call and its text) is accepted, the
    ``invalid`` call is refused with the project's error naming one of ``names`` (the ``noun``), else
    :class:`SystemCheckError`."""
    if base is not None:
        accept, text = base
        try:
            accept()
        except FLTError as exc:
            raise _fail("check_params", subject, f"the valid {text} is refused: {exc}") from None
    try:
        invalid()
    except FLTError as exc:
        _require(any(name in str(exc) for name in names), "check_params", subject,
                 f"the refusal of {value!r} does not name the {noun}: {exc}")
        return
    raise _fail("check_params", subject, f"{what} accepted the invalid value {value!r}")


def _refuses_experiment(exp: Experiment, point: Mapping[str, Any], key: str, value: Any) -> Callable[[], None]:
    def check() -> None:
        _expect_refusal(f"{exp.name}:{key}", value, lambda: exp.normalize({**point, key: value}), [f"'{key}'"],
                        "the runner", base=(lambda: exp.normalize(point), f"base point {dict(point)}"))
    return check


def _refuses_option(system: System, option: Any, value: Any) -> Callable[[], None]:
    def check() -> None:
        assert system.simulate is not None  # the options come from it
        simulate = system.simulate
        _expect_refusal(f"{system.name} --{option.name}", value, lambda: simulate.check_options({option.dest: value}),
                        [f"--{option.name}", f"'{option.dest}'"], f"flt simulate {system.name}", noun="option")
    return check


def _refuses_config(cls: type, params: Params, key: str, value: Any) -> Callable[[], None]:
    def check() -> None:
        required = {f.name: params[f.name].example() for f in dataclasses.fields(cls)
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
        _expect_refusal(f"{cls.__name__}:{key}", value, lambda: cls(**{**required, key: value}),
                        [f"The '{key}' parameter of {cls.__name__}"], cls.__name__,
                        base=(lambda: cls(**required), f"base config {required}"))
    return check


def _configs(system: System) -> Iterator[tuple[type, Params]]:
    """Every frozen dataclass of the system's ``model.py`` (beside its declaration) that validates in
    ``__post_init__``, with each :class:`Params` of that module that declares some of its fields."""
    module = registry.declaring_module(system.name).rsplit(".", 1)[0] + ".model"
    try:
        model = importlib.import_module(module)
    except ModuleNotFoundError:
        return
    declared = [v for v in vars(model).values() if isinstance(v, Params)]
    for cls in vars(model).values():
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == model.__name__
                and "__post_init__" in vars(cls)):
            continue
        fields = {f.name for f in dataclasses.fields(cls)}
        for params in declared:
            if set(params) & fields:
                yield cls, params


def invalid_cases(system: System | str, *, where: Sequence[str] = ("experiment", "option", "config")) -> list[
        InvalidCase]:
    """The invalid values generated from the system's parameter declarations (module docstring), one
    :class:`InvalidCase` each: for every declared parameter of its experiments (``experiment``), of the options of
    its ``flt simulate`` command that carry a declaration (``option``; the command line itself is tested by
    ``tests/test_param_declarations.py``), and of the validating configs of its ``model.py`` (``config``)."""
    system = _system(system)
    cases: list[InvalidCase] = []
    if "experiment" in where:
        for name in dict.fromkeys([*system.experiments, *(c.measurement.experiment for c in system.claims)]):
            exp = get_experiment(name)
            point = _valid_point(exp, system.claims)
            for turn, (key, convert) in enumerate((exp.types or {}).items()):
                if isinstance(convert, Param):
                    values = convert.invalid_values()
                elif convert in (strict_int, finite_float):  # not declared yet: its kind only
                    values = [("wrong type", "abc")]
                else:
                    continue
                for reason, value in values:
                    cases.append(InvalidCase("experiment", exp.name, key, reason, value, turn,
                                             _refuses_experiment(exp, point, key, value)))
    if "option" in where and system.simulate is not None:
        declared_options = [(o, o.param) for o in system.simulate.options if o.param is not None]
        for turn, (option, param) in enumerate((o, p) for o, p in declared_options if p.kind != "str"):
            for reason, value in param.invalid_values():
                if option.kind == "eta" and isinstance(value, str):
                    continue  # a word of an ETA|theory option is read by the command line, not by check_options
                cases.append(InvalidCase("option", f"{system.name}--{option.name}", option.dest, reason, value, turn,
                                         _refuses_option(system, option, value)))
    if "config" in where:
        for cls, params in _configs(system):
            fields = {f.name for f in dataclasses.fields(cls)}
            for turn, key in enumerate(params):
                if key not in fields:
                    continue
                for reason, value in params[key].invalid_values():
                    cases.append(InvalidCase("config", cls.__name__, key, reason, value, turn,
                                             _refuses_config(cls, params, key, value)))
    return cases


def check_params(system: System | str) -> None:
    """Every value generated from the system's parameter declarations is refused, naming the parameter
    (:func:`invalid_cases`)."""
    for case in invalid_cases(system):
        case.check()


# ----------------------------------------------------------------------------------------------
# measurements: seeds, control, mutants


def _measure(claim: Claim, scale: str, store: Store) -> pd.DataFrame:
    return registry.measure(claim, scale) if store is None else registry.measure(claim, scale, store=store)


#: How close a seed's numbers run again must be to the measured ones: batched kernels round differently for another
#: batch size (float32 sums: about 1e-7 of the summands, more relative to a small difference of large terms, e.g.
#: 1e-8 on an overlap of 7e-4), while a seed whose random numbers or schedule depend on the seeds beside it moves by
#: far more (by the spread between seeds).
SEED_RTOL, SEED_ATOL = 1e-4, 1e-6


def check_seeds(claim: Claim, *, scale: str = "small", store: Store = None) -> None:
    """The claim's measurement honours its seeds and reproduces them: at its cheapest point (by the experiment's
    declared cost), the first two seeds give different numbers, and the second run again ALONE (in another batch than
    in the measurement) gives the measured numbers, to the rounding of batched kernels (:data:`SEED_RTOL`): one
    generator per seed, so a seed's numbers depend neither on the run nor on the seeds that share its batch. Costs one
    seed of one point beyond the measurement."""
    name, key = "check_seeds", claim.key
    frame = _measure(claim, scale, store)
    exp = get_experiment(claim.measurement.experiment)
    points = list({canonical_json(p): p for p in map(exp.normalize, claim.measurement.points[scale])}.values())
    seeds = list(dict.fromkeys(int(s) for s in frame["seed"]))
    _require(len(seeds) >= 2, name, key, f"{len(seeds)} seed(s) measured: two are needed to tell them apart")

    def cost(index: int) -> float:
        estimate = exp.estimate(points[index], 1)
        return float(estimate.seconds) if estimate is not None else float(index)

    at = min(range(len(points)), key=cost)  # the frame holds one row per point and seed, seeds fastest
    again = exp.run_seeds(points[at], [seeds[1]])[0]
    first, second = ({k: float(row[k]) for k in again} for _, row in frame.iloc[at * len(seeds):][:2].iterrows())
    _require(first != second, name, key,
             f"seeds {seeds[0]} and {seeds[1]} give the same numbers at {points[at]}: the experiment {exp.name!r} "
             "does not draw its random numbers from its seed")
    differ = {k: (second[k], v) for k, v in again.items()
              if not math.isclose(second[k], v, rel_tol=SEED_RTOL, abs_tol=SEED_ATOL)}
    _require(not differ, name, key,
             f"seed {seeds[1]} run again alone at {points[at]} gives other numbers (measured in a batch of "
             f"{len(seeds)}, again): {differ}; a seed's numbers must depend neither on the run nor on the seeds that "
             "share its batch")


def check_control(claim: Claim, *, scale: str = "small", store: Store = None) -> None:
    """The claim's law passes AND the wrong law of its negative control fails, on the same measurement."""
    verdict = claim.verdict(_measure(claim, scale, store))
    decision = verdict.decision()
    _require(decision.law.passed, "check_control", claim.key, f"its law failed: {verdict.check.message}")
    _require(decision.rejected, "check_control", claim.key,
             f"the wrong law ({claim.the_wrong_law.text()}) was NOT rejected, so the check has no power: "
             f"{verdict.control.message}")
    _require(verdict.passed, "check_control", claim.key, verdict.message)


def check_mutated_law(claim: Claim, *, scale: str = "small", store: Store = None) -> None:
    """Editing a law edits its check: of each kind of mutation of the law (:meth:`Law.mutation_panel
    <flt_theory.symbolic.law.Law.mutation_panel>`: an exponent ±1, a number or bound ×2 / ×0.5, a subspace rotated or a
    neighbour, a one-sided bound's side flipped — for a one-sided bound on a number only the flip, since moving the
    bound away from the data leaves a weaker, still true law), the largest mutants FAIL on the same measurement the
    law passes on. A mutant whose comparison predicts what the law's predicts is inert (the comparison does not read
    the mutated symbol, e.g. a size the measurement holds fixed) and left out, by ``flt calibrate``'s own rule
    (:func:`~flt_theory.checking.calibrate.is_inert`). Skipped (:class:`unittest.SkipTest`) for a law without
    mutants (one naming an object: its negative control names the alternative) and where every mutant is inert."""
    name, key = "check_mutated_law", claim.key
    panel = claim.the_law.mutation_panel()
    if not panel:
        raise unittest.SkipTest("a law naming an object (a set, a direction) has no mutants; its negative control "
                                "names the alternative")
    frame = _measure(claim, scale, store)
    law_result = claim.evaluate(frame)
    _require(law_result.passed, name, key, f"the law itself must pass first: {law_result.message}")
    if claim.the_law.relation in ("geq", "leq") and any(m.kind == "bound side" for m in panel):
        panel = [m for m in panel if m.kind == "bound side"]
    outcomes = []
    for kind in dict.fromkeys(m.kind for m in panel):
        largest = max(m.size for m in panel if m.kind == kind)
        for mutation in (m for m in panel if m.kind == kind and m.size == largest):
            result = mutant_result(claim, frame, mutation.law)
            if result is None or is_inert(result, law_result):
                continue  # unreadable or inert: left out, by flt calibrate's own rule
            outcomes.append((mutation, result))
    if not outcomes:
        raise unittest.SkipTest("every mutant of this law is inert (its value does not hold the symbol the "
                                "measurement varies); its negative control carries the check")
    for mutation, result in outcomes:
        if mutation.kind.startswith(STRICT_MUTATIONS):
            _require(not result.passed, name, key, f"the mutant [{mutation.label}] passed: {result.message}")
    _require(not all(result.passed for _, result in outcomes), name, key, "every mutant of its law passed")


# ----------------------------------------------------------------------------------------------
# all of them


@dataclass(frozen=True)
class SystemCheck:
    """One check of :func:`system_checks`: its ``name`` (``check_control``), its ``subject`` (the system's name or a
    claim's key) and ``run()``."""

    name: str
    subject: str
    run: Callable[[], None] = dataclasses.field(repr=False, compare=False)

    @property
    def id(self) -> str:
        return f"{self.name}[{self.subject}]"


def _measurement_signature(claim: Claim, scale: str) -> tuple[str, str, int]:
    m = claim.measurement
    return m.experiment, canonical_json([dict(p) for p in m.points[scale]]), int(m.seeds[scale])


def system_checks(system: System | str, *, scale: str = "small", store: Store = None) -> list[SystemCheck]:
    """The checks :func:`check_system` runs, in its order, without running them (for a test that runs each on its
    own, as scikit-learn's ``parametrize_with_checks``). The seeds are checked once per distinct measurement."""
    system = _system(system)
    checks = [SystemCheck("check_declaration", system.name, lambda: check_declaration(system)),
              SystemCheck("check_layers", system.name, lambda: check_layers(system)),
              SystemCheck("check_params", system.name, lambda: check_params(system))]
    entries: list[Mapping[str, Any]] = []

    def catalogue_entry(claim: Claim) -> None:
        if not entries:
            entries.extend(catalogue(keys={c.key for c in system.claims}))
        check_catalogue_entry(claim, entries)

    seen = set()
    for claim in system.claims:
        checks += [SystemCheck("check_claim_declaration", claim.key, partial(check_claim_declaration, claim)),
                   SystemCheck("check_hypotheses", claim.key, partial(check_hypotheses, claim)),
                   SystemCheck("check_catalogue_entry", claim.key, partial(catalogue_entry, claim))]
        signature = _measurement_signature(claim, scale)
        if signature not in seen:
            seen.add(signature)
            checks.append(SystemCheck("check_seeds", claim.key, partial(check_seeds, claim, scale=scale, store=store)))
        checks += [SystemCheck("check_control", claim.key, partial(check_control, claim, scale=scale, store=store)),
                   SystemCheck("check_mutated_law", claim.key,
                               partial(check_mutated_law, claim, scale=scale, store=store))]
    return checks


def check_system(system: System | str, *, scale: str = "small", store: Store = None) -> dict[str, str]:
    """Run every check of the contract (module docstring) on ``system`` (a :class:`~flt_theory.systems.System` or its
    name), measuring each claim once at ``scale`` (``store``: a results store or its path; default: the process's
    session store).

    Returns
    -------
    dict
        ``{check id: "passed" | "skipped: <why>"}``, e.g. ``{"check_control[coin/fair]": "passed", ...}``.

    Raises
    ------
    SystemCheckError
        At the first check that fails; the message starts with the check and the system or claim it checked
        (``check_control[coin/fair]: the wrong law (heads → 0.6) was NOT rejected ...``). An error raised inside a
        check (a comparison that crashes, an experiment that fails) is reported the same way, with its cause.

    Examples
    --------
    >>> from flt_theory.testing import check_system
    >>> outcomes = check_system("giant-step")  # doctest: +SKIP
    >>> outcomes["check_control[giant-step/norm-law]"]  # doctest: +SKIP
    'passed'
    """
    outcomes: dict[str, str] = {}
    for check in system_checks(system, scale=scale, store=store):
        try:
            check.run()
        except unittest.SkipTest as skip:
            outcomes[check.id] = f"skipped: {skip}"
            continue
        except SystemCheckError:
            raise
        except Exception as exc:  # noqa: BLE001 - named with the check that raised it, the cause chained
            raise _fail(check.name, check.subject, f"raised {type(exc).__name__}: {exc}") from exc
        outcomes[check.id] = "passed"
    return outcomes
