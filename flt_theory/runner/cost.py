r"""Cost models: the memory and work of a run as a function of its parameters, declared once and checked up front.

An experiment (``@experiment(..., cost=Cost(...))``) and a ``flt simulate`` command
(:class:`~flt_theory.systems.declaration.SimulateCommand` ``cost=``) declare their cost as two polynomials in
their parameters, in the text form ``"8*seeds*n*d + 4*seeds*width*d"``: terms separated by ``+``, factors by
``*``, each factor a parameter name, a number, or ``name**k``. ``memory`` is the peak bytes held, ``work`` the
number of elementary operations (floating-point operations, plus a per-step overhead term where a run takes
many small steps). :func:`check_cost` evaluates both and refuses a request whose memory is above
``$FLT_MAX_SIM_BYTES`` (default: half the physical memory) or whose time, work over :data:`OPS_PER_SECOND`, is
above ``$FLT_MAX_SIM_SECONDS`` (default :data:`MAX_SECONDS`, one day), naming the parameter that dominates the
estimate: the largest factor of the largest term. It is a pure function: nothing is allocated or run.

The runner's :func:`~flt_theory.runner.sweep` (so ``flt sweep``, ``flt check``, ``flt calibrate``) and
``flt simulate`` call it through :meth:`Experiment.check_budget <flt_theory.runner.registry.Experiment.check_budget>`
and :func:`check_cost`; it is an order of magnitude, meant to turn a request of terabytes or of years into a
one-line refusal.

Calibration. The declared work counts operations, not seconds: a run of many small torch operations spends
its time in per-call overheads the polynomial does not see, a dense one runs faster than
:data:`OPS_PER_SECOND`. Each experiment therefore has a calibration factor, the measured CPU seconds (one thread)
per declared second (:math:`t_\text{measured} / (\text{work}/10^9)`), stored in the data file :data:`FACTORS_FILE`
(``cost_factors.json``, keyed by experiment name) and written by ``python benchmarks/bench_cost_plan.py --write``,
which runs every claim's measurement at small scale on one thread and fits one factor per experiment (the
ratio of its summed measured time to its summed declared time, the runner's per-row work
``ROWS_COST`` included). :func:`check_cost` multiplies the time by :func:`calibration_factor` of ``what`` when
``what`` is the name of an experiment (as :meth:`Experiment.estimate
<flt_theory.runner.registry.Experiment.estimate>` and the plan of ``flt check --plan`` pass it), so the plan
predicts seconds on the machine the factors were measured on; an experiment absent from the file keeps
factor 1. The factors live outside the declarations so that recalibrating changes no experiment's code
fingerprint. An experiment without a declared ``Cost`` whose guard returns the estimate (giant-step's) does not
pass through :func:`check_cost`: its factor is stored but applies only where the caller multiplies by
:func:`calibration_factor` itself.

>>> cost = Cost(memory="8*seeds*n*d", work="1e5*steps + steps*seeds*n*d")
>>> cost.names
('d', 'n', 'seeds', 'steps')
>>> check_cost(cost, {"seeds": 4, "n": 64, "d": 128, "steps": 10}, what="demo").bytes
262144.0
>>> check_cost(cost, {"seeds": 10**9, "n": 64, "d": 128, "steps": 10}, what="demo", max_bytes=2e9)
Traceback (most recent call last):
...
flt_theory.errors.InvalidParameterError: The 'seeds' parameter is too large (1e+09): demo would need about 65.5 TB ...
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .._validation import env_limit, physical_memory
from ..errors import InvalidParameterError

__all__ = ["BYTES_ENV", "FACTORS_FILE", "MAX_SECONDS", "OPS_PER_SECOND", "SECONDS_ENV", "Cost", "CostEstimate",
           "calibration_factor", "calibration_factors", "check_cost", "count", "limits"]

#: Environment variables of the limits (bytes, suffix K/M/G/T allowed; seconds).
BYTES_ENV, SECONDS_ENV = "FLT_MAX_SIM_BYTES", "FLT_MAX_SIM_SECONDS"
#: Default time limit, seconds (one day).
MAX_SECONDS = 86400.0
#: Elementary operations per second assumed for the time estimate (one CPU core, small torch ops included).
OPS_PER_SECOND = 1e9

#: The data file of the per-experiment calibration factors (module docstring), shipped with the package.
FACTORS_FILE = Path(__file__).with_name("cost_factors.json")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
Term = tuple[float, tuple[tuple[str, int], ...]]


def _parse(text: str) -> tuple[Term, ...]:
    """``"8*seeds*n*d + 1e5*steps"`` -> ((8.0, (("seeds", 1), ("n", 1), ("d", 1))), (1e5, (("steps", 1),)))."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidParameterError(f"A cost polynomial must be a non-empty str. Got {text!r} instead.")
    terms = []
    for term in text.split("+"):
        coefficient, factors = 1.0, []
        for factor in term.replace("**", "^").split("*"):
            factor = factor.strip()
            base, _, power = factor.partition("^")
            if _NAME.fullmatch(base) and (not power or power.isdigit()):
                factors.append((base, int(power or 1)))
            elif _NUMBER.fullmatch(factor):
                coefficient *= float(factor)
            else:
                raise InvalidParameterError(
                    f"The cost polynomial {text!r} has the factor {factor!r}, which is neither a parameter name, a "
                    "number nor name**k; write the cost as terms 'c*a*b + ...'.")
        terms.append((coefficient, tuple(factors)))
    return tuple(terms)


@dataclass(frozen=True)
class CostEstimate:
    """What :func:`check_cost` estimated: bytes, operations, seconds (and the limits it compared them with)."""

    bytes: float
    operations: float
    seconds: float
    max_bytes: float
    max_seconds: float


@dataclass(frozen=True)
class Cost:
    """The declared cost of a run: ``memory`` (bytes) and ``work`` (operations) as polynomials in its parameters
    (module docstring). ``derived`` maps a name used in the polynomials to a function of the parameters (e.g.
    the number of grid points, or a size the run derives from others); ``derived_from`` names, for a derived size,
    the parameter a refusal should name when that size is too large (default: a parameter of the same value)."""

    memory: str
    work: str
    derived: Mapping[str, Callable[[Mapping[str, object]], float]] = field(default_factory=dict, repr=False)
    derived_from: Mapping[str, str] = field(default_factory=dict, repr=False)
    _memory: tuple[Term, ...] = field(init=False, repr=False, compare=False)  # ``memory`` parsed
    _work: tuple[Term, ...] = field(init=False, repr=False, compare=False)  # ``work`` parsed

    def __post_init__(self) -> None:
        object.__setattr__(self, "_memory", _parse(self.memory))
        object.__setattr__(self, "_work", _parse(self.work))

    @property
    def names(self) -> tuple[str, ...]:
        """Every parameter name the polynomials read, sorted."""
        return tuple(sorted({name for terms in (self._memory, self._work) for _, fs in terms for name, _ in fs}))

    def values(self, params: Mapping[str, object]) -> dict[str, float]:
        """The numbers the polynomials read: ``params`` (a list: its largest entry) with ``derived`` added."""
        values = {**params, **{name: f(params) for name, f in self.derived.items()}}
        out = {}
        for name in self.names:
            if name not in values:
                raise InvalidParameterError(f"The cost polynomial reads {name!r}, which is not a parameter here; "
                                            f"parameters: {sorted(values)}.")
            out[name] = _size(values[name])
        return out


def _size(value: object) -> float:
    if isinstance(value, (list, tuple)):
        return max((_size(v) for v in value), default=0.0)
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0  # not a size (e.g. 'theory')
    except OverflowError:
        return math.inf  # an integer past the floats (a 4000-digit --seeds): larger than any budget
    return abs(number) if not math.isnan(number) else 0.0


def count(name: str) -> Callable[[Mapping[str, object]], float]:
    """A ``Cost.derived`` entry: how many values the list parameter ``name`` holds (1 for a scalar)."""
    def counted(params: Mapping[str, object]) -> float:
        value = params.get(name)
        return float(len(value)) if isinstance(value, (list, tuple)) else 1.0

    return counted


def _evaluate(terms: tuple[Term, ...], values: Mapping[str, float]) -> list[Term]:
    out: list[Term] = []
    for coefficient, factors in terms:
        total = coefficient
        for name, power in factors:
            try:
                total *= values[name] ** power
            except OverflowError:
                total = math.inf
        out.append((total, factors))
    return out


@functools.cache
def calibration_factors(path: str | Path = FACTORS_FILE) -> dict[str, float]:
    """Experiment name -> calibration factor (measured seconds per declared second), read from ``path``
    (default :data:`FACTORS_FILE`: its ``"factors"`` object); an empty mapping when the file is missing.

    >>> all(value > 0 for value in calibration_factors().values())
    True
    """
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise InvalidParameterError(f"The cost calibration file {str(path)!r} is unreadable: {exc}.") from None
    factors = document.get("factors") if isinstance(document, dict) else None
    if not isinstance(factors, dict) or not all(
        isinstance(k, str) and isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for k, v in factors.items()
    ):
        raise InvalidParameterError(f"The cost calibration file {str(path)!r} must hold {{\"factors\": {{experiment: "
                                    f"positive number}}}}. Got {factors!r} instead.")
    return {k: float(v) for k, v in factors.items()}


def calibration_factor(experiment: str) -> float:
    """The calibration factor of ``experiment`` (:func:`calibration_factors`; 1 for an experiment not in the file).

    >>> calibration_factor("no/such-experiment")
    1.0
    """
    return calibration_factors().get(experiment, 1.0)


def limits() -> tuple[float, float]:
    """``(max_bytes, max_seconds)``: ``$FLT_MAX_SIM_BYTES`` (default half the physical memory) and
    ``$FLT_MAX_SIM_SECONDS`` (default :data:`MAX_SECONDS`)."""
    return env_limit(BYTES_ENV, physical_memory() / 2, True), env_limit(SECONDS_ENV, MAX_SECONDS, False)


def _bytes_text(n_bytes: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n_bytes >= size:
            return f"{n_bytes / size:.3g} {unit}" if n_bytes < 1e30 else f"{n_bytes:.3g} bytes"
    return f"{n_bytes:.3g} bytes"


def _dominant(terms: list[Term], values: Mapping[str, float], cost: Cost, params: Mapping[str, object],
              blame: Collection[str] | None) -> str:
    """The largest factor of the largest term, among the names in ``blame`` (None: any) — the sizes the user can
    change; a derived size is named by the parameter it was read from."""

    def source(name: str) -> str:
        if name in cost.derived_from and name not in params:
            return cost.derived_from[name]
        if name in cost.derived and name not in params:
            return next((k for k, v in params.items() if k not in cost.derived and _size(v) == values[name]), name)
        return name

    candidates = [(total, [source(n) for n, _ in factors]) for total, factors in terms]
    candidates = [(total, [n for n in names if blame is None or n in blame]) for total, names in candidates]
    _, names = max((c for c in candidates if c[1]), key=lambda c: c[0], default=(0.0, ["seeds"]))
    return max(names, key=lambda name: _size(params.get(name, values.get(name))))


def check_cost(cost: Cost, params: Mapping[str, object], *, what: str,
               label: Callable[[str], str] = lambda name: f"The {name!r} parameter",
               max_bytes: float | None = None, max_seconds: float | None = None, repeat: int = 1,
               blame: Collection[str] | None = None) -> CostEstimate:
    """Estimate ``cost`` at ``params`` and refuse it (:class:`~flt_theory.errors.InvalidParameterError`) when
    its memory or time is above the limits (default :func:`limits`); the message starts with ``label(name)`` of
    the dominant parameter and gives the size the request would need. ``what`` names the run in the message
    (an experiment's name: its time is calibrated, :func:`calibration_factor`);
    ``repeat`` runs of these sizes are done one after another (the work counts ``repeat`` times, the memory once);
    ``blame``: the names the message may name (e.g. a command's options; default any parameter)."""
    default_bytes, default_seconds = limits() if max_bytes is None or max_seconds is None else (0.0, 0.0)
    max_bytes = default_bytes if max_bytes is None else float(max_bytes)
    max_seconds = default_seconds if max_seconds is None else float(max_seconds)
    values = cost.values(params)
    memory, work = _evaluate(cost._memory, values), _evaluate(cost._work, values)
    work = [(repeat * total, factors) for total, factors in work]
    n_bytes, operations = sum(t for t, _ in memory), sum(t for t, _ in work)
    n_bytes = math.inf if math.isnan(n_bytes) else n_bytes
    seconds = operations / OPS_PER_SECOND * calibration_factor(what) if not math.isnan(operations) else math.inf

    def too_large(terms: list[Term], need: str) -> InvalidParameterError:
        name = _dominant(terms, values, cost, params, blame)
        size = _size(params.get(name, values.get(name)))
        return InvalidParameterError(f"{label(name)} is too large ({size:.3g}): {what} would {need}")

    if n_bytes > max_bytes:
        raise too_large(memory, f"need about {_bytes_text(n_bytes)} of memory, over the limit of "
                                f"{_bytes_text(max_bytes)} (raise it with ${BYTES_ENV}).")
    if seconds > max_seconds:
        raise too_large(work, f"take about {seconds:.3g} s ({operations:.3g} operations at {OPS_PER_SECOND:.0e}/s), "
                              f"over the limit of {max_seconds:.3g} s (raise it with ${SECONDS_ENV}).")
    return CostEstimate(n_bytes, operations, seconds, max_bytes, max_seconds)
