r"""Experiments: pure functions ``f(params, seed) -> {name: float}`` registered by name.

A sweep point is identified by ``(experiment, params, seed)`` alone (and the experiment's ``version``),
so an experiment must be a *pure* function of its parameters and seed (draw every random number from
``seed``); its stored row is served only while the experiment's code is unchanged
(:attr:`Experiment.code_fingerprint`). It is looked up by name; a process-pool or Dask worker imports
the module that registered it (recorded with the experiment) and finds it there, so experiments must
live in importable modules, not in ``__main__``.

``defaults`` are merged into every point and ``types`` (name -> converter, e.g. ``int``, ``float``)
normalise the values, so that ``kappa=1`` and ``kappa=1.0``, or an omitted default and the same
value given explicitly, are the same point (the same row of the store). With ``types`` the set of
parameters is closed: an unknown name is an error.

>>> @experiment("demo/square", defaults={"scale": 1.0}, types={"x": float, "scale": float})
... def square(params, seed):
...     return {"y": params["scale"] * params["x"] ** 2 + seed}
>>> get_experiment("demo/square").normalize({"x": 2})
{'x': 2.0, 'scale': 1.0}
>>> get_experiment("demo/square")({"x": 2}, seed=1)
{'y': 5.0}
"""

from __future__ import annotations

import importlib
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from ..errors import InvalidParameterError, InvalidParameterTypeError
from .cost import OPS_PER_SECOND, Cost, CostEstimate, calibration_factor, check_cost
from .errors import DivergedPointError, ExperimentError, UnknownExperimentError
from .fingerprint import code_fingerprint as _code_fingerprint
from .params import Param, Params

__all__ = [
    "RESERVED_COLUMNS",
    "Experiment",
    "add_experiment_source",
    "check_values",
    "experiment",
    "finite_float",
    "get_experiment",
    "real_in",
    "registered_experiments",
    "strict_int",
]

#: An experiment ``f(params, seed) -> {name: value}``.
SeedExperiment = Callable[[dict[str, Any], int], Mapping[str, float]]
#: A batched experiment ``f(params, seeds) -> [{name: value}, ...]``, one mapping per seed, in order.
BatchedExperiment = Callable[[dict[str, Any], list[int]], Sequence[Mapping[str, float]]]
ExperimentFunction = SeedExperiment | BatchedExperiment
_Function = TypeVar("_Function", bound=ExperimentFunction)

#: Column names of the results table that no parameter may take. Results may not take these nor
#: ``device``/``dtype`` (parameters may: they are what the provenance records; the DataFrame then
#: names the provenance columns ``run_device``/``run_dtype``).
RESERVED_COLUMNS = frozenset(
    {
        "id", "experiment", "seed", "wall_time", "finished_at", "flt_version", "git_commit", "python_version",
        "torch_version", "sympy_version", "numpy_version", "host", "torch_threads", "code_fingerprint",
    }
)
_RESERVED_RESULTS = RESERVED_COLUMNS | {"device", "dtype"}

_REGISTRY: dict[str, Experiment] = {}
#: Callables that register more experiments when a name is unknown (see :func:`add_experiment_source`).
_SOURCES: list[Callable[[], Any]] = []


@dataclass(frozen=True)
class Experiment:
    """A registered experiment (see the module docstring).

    Attributes
    ----------
    name
        Registry key, e.g. ``"giant-step/one-step-mass"``.
    function
        ``f(params, seed) -> {name: float}``, pure.
    defaults
        Parameter values merged into every point.
    types
        Converters per parameter; when given, the parameter set is closed.
    description
        One line (the function's docstring summary by default).
    version
        0, or the number of times the experiment's numbers changed for the same parameters and seed for a
        reason its code fingerprint does not see (a data file, a library's behaviour): it enters the stored
        rows' keys, so a store never serves rows of the earlier version.
    """

    name: str
    function: ExperimentFunction = field(repr=False)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    types: Mapping[str, Callable[[Any], Any]] | None = None
    description: str = ""
    batched: bool = False
    guard: Callable[[dict[str, Any], int], Any] | None = None
    version: int = 0
    cost: Cost | None = None

    @property
    def module(self) -> str:
        """The module that registers the experiment (imported by workers to find it)."""
        return self.function.__module__

    @property
    def code_fingerprint(self) -> str:
        """SHA-256 of the function's source and of the project modules it imports, transitively
        (:mod:`~flt_theory.runner.fingerprint`; computed on first use, then re-checked at the cost of a
        ``stat`` per file): stored with every row, and a row of another fingerprint is stale — a sweep
        recomputes it rather than serve it."""
        return _code_fingerprint(self.function)

    def normalize(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` with defaults merged and every value converted; raises on unknown or missing names."""
        if not isinstance(params, Mapping):
            raise InvalidParameterTypeError(
                f"The parameters of experiment {self.name!r} must be a mapping name -> value. "
                f"Got {params!r} of type {type(params).__name__} instead."
            )
        for key in params:
            if not isinstance(key, str):
                raise InvalidParameterTypeError(
                    f"Parameter names of experiment {self.name!r} must be str. Got {key!r} instead."
                )
            if key in RESERVED_COLUMNS:
                raise InvalidParameterError(
                    f"The parameter name {key!r} of experiment {self.name!r} is reserved for the results table; "
                    f"reserved: {sorted(RESERVED_COLUMNS)}."
                )
        merged = {**self.defaults, **params}
        if self.types is None:
            return merged
        unknown = sorted(set(merged) - set(self.types))
        if unknown:
            raise InvalidParameterError(
                f"Experiment {self.name!r} has no parameter {', '.join(map(repr, unknown))}; "
                f"its parameters are {list(self.types)}."
            )
        missing = [k for k in self.types if k not in merged]
        if missing:
            raise InvalidParameterError(
                f"Experiment {self.name!r} needs the parameter {', '.join(map(repr, missing))} "
                f"(no default); its parameters are {list(self.types)}."
            )
        normalized = {}
        for key, convert in self.types.items():
            value = merged[key]
            if isinstance(convert, Param):  # declared once: its own message, naming the parameter and its range
                normalized[key] = convert.check(value, f"experiment {self.name!r}", strict=False)
                continue
            try:
                normalized[key] = convert(value)
            except (TypeError, ValueError) as exc:
                raise InvalidParameterError(
                    f"The {key!r} parameter of experiment {self.name!r} must be "
                    f"{getattr(convert, '__name__', 'convertible')}-like. Got {value!r} instead ({exc})."
                ) from None
        return normalized

    def __call__(self, params: Mapping[str, Any], seed: int) -> dict[str, float]:
        """Run one point and validate what it returns (a mapping of names to real numbers)."""
        return self.run_seeds(params, [seed])[0]

    def check_budget(self, params: Mapping[str, Any], seeds: int) -> None:
        """Refuse a point whose sizes would exceed the machine, before anything runs: its declared :attr:`cost`
        (:func:`~flt_theory.runner.cost.check_cost`, with ``seeds`` the number of seeds) and its ``guard``."""
        params = self.normalize(params)
        if self.cost is not None:
            check_cost(self.cost, {**params, "seeds": int(seeds)}, what=f"experiment {self.name!r} with {int(seeds)} "
                                                                        "seed(s)",
                       label=lambda name: f"The {name!r} parameter of experiment {self.name!r}")
        if self.guard is not None:
            self.guard(params, int(seeds))

    def estimate(self, params: Mapping[str, Any], seeds: int) -> CostEstimate | None:
        """The declared :attr:`cost` of one point with ``seeds`` seeds (bytes, operations, seconds), refusing nothing;
        None without a declared cost."""
        if self.cost is None:  # a guard that returns its estimate (bytes, seconds), as giant-step's
            budget = self.guard(self.normalize(params), int(seeds)) if self.guard is not None else None
            if budget is None or not hasattr(budget, "seconds"):
                return None
            seconds = float(budget.seconds) * calibration_factor(self.name)  # measured s per declared s (cost.py)
            return CostEstimate(float(budget.bytes), seconds * OPS_PER_SECOND, seconds,
                                float(budget.max_bytes), float(budget.max_seconds))
        return check_cost(self.cost, {**self.normalize(params), "seeds": int(seeds)}, what=self.name,
                          max_bytes=math.inf, max_seconds=math.inf)

    def run_seeds(self, params: Mapping[str, Any], seeds: Sequence[int]) -> list[dict[str, float]]:
        """Run one point for each of ``seeds`` (one call of a batched experiment, else one call per
        seed) and validate each result."""
        params = self.normalize(params)
        seeds = [int(s) for s in seeds]
        values: Sequence[object]
        if self.batched:  # the flag says which kind of function it is
            values = cast(BatchedExperiment, self.function)(dict(params), list(seeds))
            if (
                not isinstance(values, Sequence)
                or isinstance(values, (str, bytes, Mapping))
                or len(values) != len(seeds)
            ):
                raise ExperimentError(
                    f"Batched experiment {self.name!r} must return one mapping per seed ({len(seeds)}). Got {values!r} "
                    "instead."
                )
        else:
            per_seed = cast(SeedExperiment, self.function)
            values = [per_seed(dict(params), seed) for seed in seeds]
        return [check_values(self.name, v, params) for v in values]


def check_values(name: str, values: Any, params: Mapping[str, Any] = {}) -> dict[str, float]:
    """Validate an experiment's return value: ``{str: real}``, no clash with a parameter or column."""
    if not isinstance(values, Mapping) or not values:
        raise ExperimentError(
            f"Experiment {name!r} must return a non-empty mapping name -> float. Got {values!r} instead."
        )
    out = {}
    for key, value in values.items():
        if not isinstance(key, str) or key in _RESERVED_RESULTS or key in params:
            raise ExperimentError(
                f"Experiment {name!r} returned the result name {key!r}, which is not a str or clashes with a "
                "parameter or a column of the results table."
            )
        if isinstance(value, (str, bytes)) or not (isinstance(value, numbers.Real) or hasattr(value, "__float__")):
            raise ExperimentError(
                f"Experiment {name!r} returned {key}={value!r} of type {type(value).__name__}; results must be real "
                "numbers."
            )
        try:
            out[key] = float(value)
        except (TypeError, ValueError, RuntimeError) as exc:  # e.g. a torch tensor with several elements
            raise ExperimentError(f"Experiment {name!r} returned {key}={value!r}, not a real number ({exc}).") from None
        if not math.isfinite(out[key]):
            raise DivergedPointError(
                f"Experiment {name!r} returned {key}={out[key]} at {dict(params)}: the run diverged or is undefined "
                "there (a step size too large?); nothing is stored and a rerun retries it"
            )
    return out


def experiment(
    name: str,
    *,
    defaults: Mapping[str, Any] | None = None,
    types: Mapping[str, Callable[[Any], Any]] | None = None,
    description: str | None = None,
    batched: bool = False,
    guard: Callable[[dict[str, Any], int], Any] | None = None,
    version: int = 0,
    cost: Cost | None = None,
    params: Params | None = None,
) -> Callable[[_Function], _Function]:
    """Register ``f(params: dict, seed: int) -> dict[str, float]`` under ``name`` (a decorator).

    With ``batched=True`` the function is ``f(params: dict, seeds: list[int]) -> list[dict]`` (one
    result per seed, in order), called once for all the seeds of a point that the store lacks; its
    result for a seed must not depend on which other seeds share the call (draw each seed's numbers
    from its own generator), so that stored rows are the same whatever was computed together.

    Every stored row carries the experiment's :attr:`Experiment.code_fingerprint`, a hash of the source of the
    function and of the project code it imports, so an edit of that code makes the rows stored before it stale
    (recomputed, never served) without anything to bump. ``version`` (default 0) is for the changes a
    fingerprint cannot see — a data file read at run time, a library whose behaviour changed: bump it when
    the function's numbers change for the same parameters and seed; it enters the keys of the stored rows,
    so rows of the earlier version are recomputed, not reused.

    ``guard(params, seeds)`` (optional) estimates a point's memory and time and raises an
    :class:`~flt_theory.errors.InvalidParameterError` naming the size that is too large; a sweep calls it
    for every point before it runs any. ``cost`` (a :class:`~flt_theory.runner.cost.Cost`: memory and work as
    polynomials in the parameters and ``seeds``) is the declared cost every sweep checks the same way
    (:func:`~flt_theory.runner.cost.check_cost`); every built-in experiment declares one.

    ``params`` (a :class:`~flt_theory.runner.params.Params`: each parameter declared once, with its kind, range or
    choices, unit and help) gives the converters (each :class:`~flt_theory.runner.params.Param` coerces its value and
    refuses one out of range, naming it) and the defaults; ``defaults`` and ``types`` then add to it.

    Re-registering a name from the same module and function (a reload) replaces it; from another
    function it is an error. Returns the function unchanged.
    """
    if params is not None:
        if not isinstance(params, Params):
            raise InvalidParameterTypeError(f"The 'params' of experiment {name!r} must be a Params. Got {params!r} "
                                            "instead.")
        defaults, types = {**params.defaults(), **(defaults or {})}, {**params.types(), **(types or {})}
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        raise InvalidParameterError("The 'name' parameter of experiment must be a non-empty str without spaces. Got "
                                    f"{name!r} instead.")
    if cost is not None and not isinstance(cost, Cost):
        raise InvalidParameterTypeError(f"The 'cost' of experiment {name!r} must be a Cost. Got {cost!r} instead.")
    if types is not None:
        for key, convert in types.items():
            if not callable(convert):
                raise InvalidParameterTypeError(f"types[{key!r}] of experiment {name!r} must be callable. Got "
                                                f"{convert!r} instead.")

    def register(function: _Function) -> _Function:
        if not callable(function):
            raise InvalidParameterTypeError(f"experiment {name!r} must decorate a function. Got {function!r} instead.")
        old = _REGISTRY.get(name)
        if old is not None and (old.module, old.function.__qualname__) != (function.__module__, function.__qualname__):
            raise InvalidParameterError(
                f"An experiment named {name!r} is already registered by {old.module}.{old.function.__qualname__}."
            )
        summary = description if description is not None else (function.__doc__ or "").strip().split("\n")[0]
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise InvalidParameterTypeError(f"The 'version' of experiment {name!r} must be an int >= 0. Got "
                                            f"{version!r} instead.")
        exp = Experiment(name, function, dict(defaults or {}), None if types is None else dict(types), summary,
                         bool(batched), guard, version, cost)
        _REGISTRY[name] = exp
        return function

    return register


def add_experiment_source(loader: Callable[[], Any]) -> None:
    """Register ``loader``, called (once per lookup miss) to register more experiments — how the
    systems layer above makes its experiments findable by name without the runner importing it."""
    if loader not in _SOURCES:
        _SOURCES.append(loader)


def _load_builtins() -> None:
    for loader in list(_SOURCES):
        loader()


def get_experiment(name: str | Experiment, module: str | None = None) -> Experiment:
    """The experiment registered under ``name``; ``module`` is imported first if the name is unknown
    (how workers find experiments registered outside flt_theory)."""
    if isinstance(name, Experiment):
        return name
    if not isinstance(name, str):
        raise InvalidParameterTypeError(f"The 'experiment' parameter must be a registered name (str). Got {name!r} "
                                        "instead.")
    if name not in _REGISTRY and module is not None:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise UnknownExperimentError(
                f"experiment {name!r} is registered by module {module!r}, which cannot be imported here ({exc})."
            ) from None
    if name not in _REGISTRY:
        _load_builtins()
    if name not in _REGISTRY:
        raise UnknownExperimentError(
            f"no experiment {name!r}; registered experiments: {', '.join(sorted(_REGISTRY)) or 'none'} "
            "(register one with @flt_theory.runner.experiment(name) in an importable module)"
        )
    return _REGISTRY[name]


def registered_experiments() -> list[Experiment]:
    """Every registered experiment (the built-in ones included), sorted by name."""
    _load_builtins()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def finite_float(value: Any) -> float:
    """A finite float (a ``types`` converter that refuses nan and inf).

    >>> finite_float("1.5"), finite_float(2)
    (1.5, 2.0)
    """
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not finite")
    return number


def real_in(minimum: float | None = None, maximum: float | None = None) -> Callable[[Any], float]:
    """A ``types`` converter: a finite float in ``[minimum, maximum]`` (a declared range; ``None``: unbounded).

    >>> real_in(0, 16)("1.5")
    1.5
    >>> real_in(0, 16)(-1)
    Traceback (most recent call last):
    ...
    ValueError: -1.0 is not in [0, 16]
    """

    def real(value: Any) -> float:
        number = finite_float(value)
        if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
            raise ValueError(f"{number!r} is not in [{'-inf' if minimum is None else minimum}, "
                             f"{'inf' if maximum is None else maximum}]")
        return number

    real.__name__ = "float"
    return real


def strict_int(value: Any) -> int:
    """An int converter that refuses fractional values (``64.0`` is fine, ``64.5`` is not).

    >>> strict_int(64.0), strict_int("128")
    (64, 128)
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is a bool, not an int")
    if isinstance(value, str):
        return int(value.strip())
    number = float(value) if not isinstance(value, numbers.Integral) else value
    if isinstance(number, float) and not number.is_integer():
        raise ValueError(f"{value!r} is not an integer")
    return int(number)
