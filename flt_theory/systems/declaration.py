r"""Systems as declarations: one :class:`System` object names a system's laws, experiments, claims,
figures and the options of its ``flt simulate`` subcommand.

A system is a folder ``flt_theory/systems/<name>/`` with

* ``laws.py`` — its laws (sympy only, :class:`~flt_theory.symbolic.law.Law` objects);
* ``model.py`` — its data model, network and training (torch only);
* ``declaration.py`` — the runner experiments (per-seed measurements registered with
  :func:`flt_theory.runner.experiment`) and ONE ``SYSTEM = System(...)``.

The registry (:mod:`.registry`) finds systems by discovery, so the runner, the report and the CLI
know a new system without being edited.

A claim is a measurement plus two comparisons
---------------------------------------------
:class:`Measurement` names a registered experiment, the parameter points it runs at each scale and
the number of seeds; it runs through :func:`flt_theory.runner.sweep`, so every (point, seed) is
stored once in the SQLite store with its provenance and reused by every claim and every later run
that asks for it. :class:`Claim` holds that measurement, its :class:`Law`, the deliberately wrong
law of its negative control (another :class:`Law`), and ONE comparison function
``compare(frame, law) -> CheckResult``. The check is ``compare(frame, claim.law)`` and the control
is ``compare(frame, claim.wrong_law)`` on the same ``frame``: both read their predictions from
the law object they are given (exponents, thresholds, subspaces, bounds), so the control differs
from the check only by its law, and editing a law edits its check.

>>> from flt_theory.symbolic.law import Law, THIS_PROJECT
>>> import sympy as sp
>>> law = Law(name="mean", lhs=r"\bar y", relation="eq", value=sp.Integer(1), source=THIS_PROJECT, status="derived")
>>> claim = Claim(name="mean-one", words="the mean is 1", law=law, wrong_law=law.replace(value=sp.Integer(3)),
...               measurement=Measurement(experiment="demo/none", points={"small": [{}], "paper": [{}]},
...                                       seeds={"small": 4, "paper": 8}),
...               compare=lambda frame, law: None)
>>> claim.wrong_law.rhs_latex(), claim.measurement.seed_list("small", seed_base=100)
('3', [100, 101, 102, 103])
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Union

from ..compare.result import CheckResult
from ..compare.verdict import ClaimDecision, decide_claim
from ..errors import DivergenceError, FLTError, InvalidParameterError, InvalidParameterTypeError
from ..runner.params import REQUIRED, Param, Params
from ..symbolic.law import Law, Source

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "SCALES",
    "SCOPES",
    "Claim",
    "ClaimVerdict",
    "DEVICE_OPTION",
    "Figure",
    "Measurement",
    "Option",
    "Param",
    "Params",
    "REQUIRED",
    "RecordField",
    "NonFiniteRecordError",
    "SimulateCommand",
    "System",
    "check_finite_records",
    "check_scale",
    "plan",
    "recorded_basis",
]

#: ``small``: the default pytest run (seconds per claim); ``paper``: the sizes of the source.
SCALES = ("small", "paper")

#: What a verdict speaks of, by where its points lie (:meth:`Claim.scope`).
SCOPES = {"all": "inside", "some": "partly inside", "none": "extrapolation", "not stated": "not stated"}

LawLike = Union[Law, Callable[[], Law]]
Comparison = Callable[["pd.DataFrame", Law], CheckResult]


def check_scale(scale: str) -> str:
    """Validate a scale name."""
    if scale not in SCALES:
        raise InvalidParameterError(f"The 'scale' parameter must be one of {SCALES}. Got {scale!r} instead.")
    return scale


def _law(value: LawLike, what: str) -> Law:
    law = value() if callable(value) and not isinstance(value, Law) else value
    if not isinstance(law, Law):
        raise InvalidParameterTypeError(f"{what} must be a Law (or a function returning one). Got {law!r} instead.")
    return law


@dataclass(frozen=True, kw_only=True)
class Measurement:
    r"""A registered runner experiment at a list of parameter points per scale, over seeds.

    Attributes
    ----------
    experiment
        Name of a registered experiment (:func:`flt_theory.runner.experiment`).
    points
        ``{scale: [params, ...]}`` (every scale of :data:`SCALES`).
    seeds
        ``{scale: number of seeds}``; the seeds are ``seed_base .. seed_base + k - 1``.
    hypothesis_values
        ``f(point) -> {symbol name: number}``: the values of the law's hypothesis symbols at a point (with the
        experiment's defaults merged), where the experiment's parameters are not the source's symbols (e.g.
        :math:`\sigma_0 = s_0/\sqrt d` from ``sigma0_sqrt_d``). Default: the point's numeric parameters as they are.
    """

    experiment: str
    points: Mapping[str, Sequence[Mapping[str, Any]]]
    seeds: Mapping[str, int]
    hypothesis_values: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for scale in SCALES:
            if scale not in self.points or scale not in self.seeds:
                raise InvalidParameterError(
                    f"Measurement of {self.experiment!r} needs points and seeds for every scale {SCALES}; "
                    f"got points for {sorted(self.points)} and seeds for {sorted(self.seeds)}."
                )

    def values_at(self, scale: str) -> list[dict[str, Any]]:
        """Per point of ``scale``: the values the law's hypotheses read (see :attr:`hypothesis_values`)."""
        from ..runner.registry import get_experiment

        exp = get_experiment(self.experiment)
        out = []
        for point in self.points[check_scale(scale)]:
            full = exp.normalize(point)
            values = self.hypothesis_values(full) if self.hypothesis_values is not None else full
            out.append({k: v for k, v in dict(values).items()
                        if isinstance(v, (int, float)) and not isinstance(v, bool)})
        return out

    def seed_list(self, scale: str, *, seed_base: int = 0) -> list[int]:
        """The seeds of ``scale``, shifted by ``seed_base``."""
        base = int(seed_base)
        if base < 0:
            raise InvalidParameterError(f"The 'seed_base' parameter must be ≥ 0. Got {seed_base!r} instead.")
        return list(range(base, base + int(self.seeds[check_scale(scale)])))

    def busy_workers(self, scale: str, jobs: int | None) -> int:
        """How many of a run's ``jobs`` workers (None: 1) its tasks could keep busy at ``scale``: the sweep runs one
        task per point of a batched experiment, else one per point and seed (:func:`flt_theory.runner.sweep`)."""
        from ..runner.registry import get_experiment
        from ..runner.sweep import task_count

        tasks = task_count(get_experiment(self.experiment), len(self.points[check_scale(scale)]),
                           int(self.seeds[scale]))
        return max(1, min(int(jobs or 1), tasks))

    def identity(self, scale: str) -> tuple[str, str, int]:
        """``(experiment, points, seeds)`` at ``scale``: what two claims measured alike share (their stored rows, a
        recorded time), however their Measurement objects were built."""
        scale = check_scale(scale)
        return self.experiment, repr(self.points[scale]), int(self.seeds[scale])

    def plan(self, scale: str, *, repeats: int = 1) -> dict[str, Any]:
        """``{"points", "seeds", "seconds", "memory_bytes"}`` of running the measurement ``repeats`` times at
        ``scale`` (seconds summed over points and repeats, memory the largest point's), from the experiment's
        declared cost; refuses (:class:`~flt_theory.errors.InvalidParameterError`) a point over the limits. Runs
        nothing."""
        from ..runner.cost import check_cost
        from ..runner.registry import get_experiment
        from ..runner.sweep import ROWS_COST

        exp, seeds = get_experiment(self.experiment), int(self.seeds[check_scale(scale)])
        seconds = check_cost(ROWS_COST, {"points": len(self.points[scale]), "seeds": seeds}, what=self.experiment,
                             max_bytes=float("inf"), max_seconds=float("inf")).seconds  # the runner's own work
        memory = 0.0
        for point in self.points[scale]:
            exp.check_budget(point, seeds)
            estimate = exp.estimate(point, seeds)
            if estimate is not None:
                seconds, memory = seconds + estimate.seconds, max(memory, estimate.bytes)
        return {"points": len(self.points[scale]), "seeds": seeds, "seconds": int(repeats) * seconds,
                "memory_bytes": memory}

    def run(self, scale: str, *, seed_base: int = 0, store: Any = None, jobs: int = 1, scheduler: Any = None,
            fresh: bool = False, progress: bool | None = False) -> pd.DataFrame:
        """The measurement's table (one row per point and seed), computing only what ``store`` lacks."""
        from ..runner import sweep

        return sweep(self.experiment, points=list(self.points[check_scale(scale)]),
                     seeds=self.seed_list(scale, seed_base=seed_base), store=store, jobs=jobs, scheduler=scheduler,
                     progress=progress, fresh=fresh)


def plan(claims: Sequence[Claim], scale: str, *, repeats: int = 1, option: str = "--scale",
         recorded: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The cost of running ``claims`` at ``scale`` ``repeats`` times, running nothing:
    ``{"claims": [{"claim", "points", "seeds", "seconds", "memory_bytes", "basis", "declared_seconds"}, ...],
    "total": {... "declared_seconds"}}`` (the total counts a measurement shared by several claims once, at its
    longest: they share its stored rows).

    ``seconds`` are worker-seconds (the declared costs count the work of one single-threaded worker; a worker with
    more torch threads may take less): ``declared_seconds``, from the declared costs (``basis``
    ``"declared cost"``), unless ``recorded`` holds the claim: a measurement of the same points and seeds by the code
    of now (:func:`flt_theory.checking.scale_record.recorded_seconds`); then ``seconds`` is ``repeats`` times its wall
    time times the workers its run could keep busy (:meth:`Measurement.busy_workers`: at most its jobs, one task per
    point of a batched experiment; an upper bound where workers idled), and ``basis`` says so
    (:func:`recorded_basis`). A declared cost is a polynomial in the sizes and can be far off where the work is not:
    against the verdict record it ranges from 0.004x the measured time (an online-SGD run that stops early) to 123x
    (a gradient flow whose integrator takes far more steps than its cost counts).

    Refuses (:class:`~flt_theory.errors.InvalidParameterError` naming ``option``) a total declared time over the limit
    (:func:`~flt_theory.runner.cost.limits`; what ``flt check`` and ``flt calibrate`` refuse before they run), and a
    point over the limits (naming its parameter)."""
    from ..runner.cost import SECONDS_ENV, limits

    recorded = recorded or {}
    rows = []
    for claim in claims:
        row = {"claim": claim.key, **claim.measurement.plan(scale, repeats=repeats)}
        row["declared_seconds"], row["basis"] = row["seconds"], "declared cost"
        measured = recorded.get(claim.key)
        if measured is not None:
            busy = claim.measurement.busy_workers(scale, measured.get("jobs"))
            row["seconds"], row["basis"] = int(repeats) * float(measured["seconds"]) * busy, recorded_basis(measured)
        rows.append(row)
    # claims sharing a measurement share its stored rows: the total counts each measurement once, at its longest
    unique: dict[tuple[str, str, int], dict[str, Any]] = {}
    for c, r in zip(claims, rows):
        key = c.measurement.identity(scale)
        if key not in unique or r["seconds"] > unique[key]["seconds"]:
            unique[key] = r
    total = {"points": sum(r["points"] for r in unique.values()),
             "seeds": max((r["seeds"] for r in rows), default=0),
             "seconds": sum(r["seconds"] for r in unique.values()),
             "declared_seconds": sum(r["declared_seconds"] for r in unique.values()),
             "memory_bytes": max((r["memory_bytes"] for r in rows), default=0.0)}
    max_seconds = limits()[1]
    if total["declared_seconds"] > max_seconds:
        raise InvalidParameterError(
            f"{option}: too large a request: {len(rows)} claim(s) at scale {scale!r} x {repeats} repeat(s) would take "
            f"about {total['declared_seconds']:.3g} s by their declared costs, over the limit of {max_seconds:.3g} s "
            f"(raise it with ${SECONDS_ENV}).")
    return {"scale": scale, "repeats": int(repeats), "claims": rows, "total": total}


def recorded_basis(measured: Mapping[str, Any]) -> str:
    """How a plan's seconds were read from a recorded measurement (:func:`plan`): ``"record, 2 jobs"``, with
    ``(carried over)`` where the entry was carried over a change of code and ``(rows partly reused: at least)`` where
    its run timed only part of the work.

    >>> recorded_basis({"seconds": 3.0, "jobs": 1, "carried": True, "partial": False})
    'record (carried over), 1 job'
    """
    notes = [text for flag, text in (("carried", "carried over"), ("partial", "rows partly reused: at least"))
             if measured.get(flag)]
    jobs = measured.get("jobs")
    return ("record" + (f" ({'; '.join(notes)})" if notes else "")
            + ("" if jobs is None else f", {jobs} job{'s' if jobs != 1 else ''}"))


@dataclass(frozen=True, kw_only=True)
class Claim:
    """A comparator-backed claim: one measurement, compared with its law and with a wrong law.

    Attributes
    ----------
    name
        Key within its system (``"norm-law"``); the registry key is ``"system/name"``.
    words
        The claim in one line of plain text.
    law, wrong_law
        :class:`Law` objects (or functions returning them, built on first use). ``wrong_law`` is the
        negative control: the same measurement compared with it must FAIL.
    measurement
        What to measure (:class:`Measurement`).
    compare
        ``compare(frame, law) -> CheckResult``: reads its prediction from ``law``.
    system
        Set by the :class:`System` that declares the claim.
    power_note
        Why some mutants of the law are not caught, where the calibration finds such (``flt calibrate``);
        shown beside the claim's power in the report and the catalogue.
    extrapolation_note
        For a claim none of whose points lies inside its law's hypotheses at some scale: why points inside
        are infeasible here (the size they would need and its cost). Its verdict is then an
        ``extrapolation`` (:meth:`scope`), not a check of the theorem.
    ladder
        For a law about a limit or a rate: ``ladder(frame) -> [{"size": {name: value}, "estimate": x,
        "ci": [lo, hi], "predicted": y}, ...]``, the estimate of the law's quantity at each rung of a ladder
        of growing sizes, read from the same measured frame (``predicted``: the law's value there, optional;
        ``literal``: for a finding, the literal statement's value). ``flt check`` stores it in
        ``results.json`` and draws it: a law that holds better as sizes grow shows it.
    no_ladder
        Why no size ladder applies to the claim, where none is declared (an exact inequality at a point, say, which
        no size can bring closer to or further from its law): a finding states a ladder or this reason
        (:func:`flt_theory.testing.check_claim_declaration`), and the catalogue, the recorded verdicts and the report
        show the reason where the ladder would be. Never together with ``ladder``.
    contradicts
        Keys of claims about the same quantity in the same regime that cannot both hold with this one; a test
        runs them together and fails when both pass.
    """

    name: str
    words: str
    law: LawLike = field(repr=False)
    wrong_law: LawLike = field(repr=False)
    measurement: Measurement
    compare: Comparison = field(repr=False)
    system: str = ""
    power_note: str = field(default="", repr=False)
    extrapolation_note: str = field(default="", repr=False)
    ladder: Callable[["pd.DataFrame"], list[dict[str, Any]]] | None = field(default=None, repr=False)
    no_ladder: str = field(default="", repr=False)
    contradicts: Sequence[str] = field(default=(), repr=False)

    @property
    def key(self) -> str:
        return f"{self.system}/{self.name}"

    def hypotheses_at(self, scale: str) -> list[dict[str, Any]]:
        """Per measurement point of ``scale``: ``{"values", "inside", "failed"}`` — the values the law's
        hypotheses read there, whether all of them hold, and where the failing ones are stated."""
        from ..symbolic.hypothesis import failed_hypotheses

        hypotheses = self.the_law.hypotheses
        out = []
        for values in self.measurement.values_at(scale):
            failed = failed_hypotheses(hypotheses, values)
            out.append({"values": values, "inside": not failed, "failed": [f"{h.where}: {h.text}" for h in failed]})
        return out

    def in_hypotheses(self, scale: str) -> str:
        """``"all"``, ``"some"`` or ``"none"`` of the points of ``scale`` lie inside the law's hypotheses;
        ``"not stated"`` when the law carries none (:func:`~flt_theory.symbolic.hypothesis.classify_points`)."""
        from ..symbolic.hypothesis import classify_points

        return classify_points(self.the_law.hypotheses, self.measurement.values_at(scale))

    def scope(self, scale: str) -> str:
        """What a verdict at ``scale`` speaks of: ``"inside"`` (every point inside the hypotheses),
        ``"partly inside"``, ``"extrapolation"`` (no point inside: not a check of the theorem) or
        ``"not stated"`` (the law carries no hypotheses)."""
        return SCOPES[self.in_hypotheses(scale)]

    @cached_property
    def the_law(self) -> Law:
        """The law (built on first access when given as a function)."""
        return _law(self.law, f"the law of claim {self.key!r}")

    @cached_property
    def the_wrong_law(self) -> Law:
        """The wrong law of the negative control."""
        return _law(self.wrong_law, f"the wrong law of claim {self.key!r}")

    def evaluate(self, frame: pd.DataFrame, law: Law | None = None) -> CheckResult:
        """The comparison of ``frame`` with ``law`` (default: the claim's law)."""
        return self.compare(frame, self.the_law if law is None else law)

    def verdict(self, frame: pd.DataFrame) -> ClaimVerdict:
        """Check and control on the same measured ``frame``."""
        return ClaimVerdict(claim=self, check=self.evaluate(frame), control=self.evaluate(frame, self.the_wrong_law))


@dataclass(frozen=True, kw_only=True)
class ClaimVerdict:
    """A claim's check (its law) and control (its wrong law) on one measurement, decided by the one decision of
    every surface (:func:`flt_theory.compare.verdict.decide_claim`: pass / fail / inconclusive at a level)."""

    claim: Claim
    check: CheckResult
    control: CheckResult

    def decision(self, level: float | None = None) -> ClaimDecision:
        """The claim decided at ``level`` (comparisons with a p-value; None: each at its own confidence)."""
        return decide_claim(self.check, self.control, level)

    @property
    def passed(self) -> bool:
        """True iff the law passed AND the wrong law was rejected on the same measurement (at each comparison's own
        confidence)."""
        return self.decision().passed

    @property
    def message(self) -> str:
        control = "rejected" if self.decision().rejected else "NOT rejected (the check has no power)"
        return f"{self.claim.key}: {self.check.message}; wrong law ({self.claim.the_wrong_law.text()}) {control}"

    def _display_rows(self, math: Callable[[str], str], text: Callable[[str], str]) -> list[tuple[str, str]]:
        """(what, shown) pairs of the rich display; ``math`` wraps LaTeX, ``text`` escapes plain text."""
        from ..compare.result import fmt, fmt_ci

        try:
            measured = "; ".join(f"{label}: {fmt(v)} {fmt_ci(ci)}" for label, v, ci in self.check.entries())
        except (TypeError, ValueError):
            measured = str(self.check.measured)
        decision = self.decision()
        control = "rejected" if decision.rejected else "NOT rejected (the check has no power)"
        return [("law", math(self.claim.the_law.latex())), ("measured [95% CI]", text(measured)),
                ("check of the law", text(f"{'PASS' if decision.law.passed else 'FAIL'}: {self.check.message}")),
                ("negative control", f"{math(self.claim.the_wrong_law.latex())}: {text(control)}"),
                ("verdict", decision.outcome.upper())]

    def _repr_html_(self) -> str:
        """Rich display (IPython): the claim, its law, the measurement, the check, the control and the verdict."""
        import html

        from .._display import html_table, math_html

        rows = self._display_rows(math_html, lambda t: html.escape(t, quote=False))
        return html_table(("claim", f"{self.claim.key}: {self.claim.words}"), rows, escaped=True)

    def _repr_markdown_(self) -> str:
        """Rich display (IPython) as Markdown: the same rows as :meth:`_repr_html_`."""
        from .._display import markdown_table

        return markdown_table(("claim", f"`{self.claim.key}`: {self.claim.words}"),
                              self._display_rows(lambda latex: f"${latex}$", str))


@dataclass(frozen=True, kw_only=True)
class Option:
    """One option of a generated ``flt simulate SYSTEM`` subcommand.

    ``kind`` is one of ``int``, ``float``, ``str``, ``choice`` (with ``choices``), ``flag``,
    ``ints`` / ``floats`` (comma-separated lists), or ``eta`` (``"theory"`` or a positive number);
    ``argument=True`` makes it a positional argument. ``dest`` is the keyword passed to the run
    function (default: the name with ``-`` as ``_``). ``minimum``/``maximum`` bound numeric values.
    """

    name: str
    kind: str = "str"
    default: Any = None
    required: bool = False
    help: str = ""
    choices: Sequence[str] = ()
    dest: str = ""
    argument: bool = False
    minimum: float | None = None
    maximum: float | None = None
    param: Param | None = field(default=None, repr=False)

    _KINDS = ("int", "float", "str", "choice", "flag", "ints", "floats", "eta")

    def __post_init__(self) -> None:
        if self.kind not in self._KINDS:
            raise InvalidParameterError(f"Option {self.name!r}: kind must be one of {self._KINDS}. Got {self.kind!r} "
                                        "instead.")
        if self.kind == "choice" and not self.choices:
            raise InvalidParameterError(f"Option {self.name!r} of kind 'choice' needs its choices.")
        if not self.dest:
            object.__setattr__(self, "dest", self.name.replace("-", "_"))

    @classmethod
    def of(cls, param: Param, *, grid: bool = False, **fields: Any) -> Option:
        """The option of a declared :class:`~flt_theory.runner.params.Param`: its name (``_`` as ``-``), kind, bounds,
        choices, default and help (with its unit); ``grid``: a comma-separated list of values (``ints``/``floats``);
        ``fields`` override (``default=``, ``help=``, ``required=``). The command validates the value through the
        ``param`` before anything runs (:meth:`SimulateCommand.check_options`).

        >>> from flt_theory.runner import Param
        >>> o = Option.of(Param("n_test", "int", minimum=2, default=500, unit="count", help="Test samples."))
        >>> o.name, o.kind, o.minimum, o.default, o.help
        ('n-test', 'int', 2, 500, 'Test samples. [count]')
        """
        kind = param.kind + ("s" if grid and param.kind in ("int", "float") else "")
        unit = f" [{param.unit}]" if param.unit not in ("", "1") else ""
        base = dict(name=param.name.replace("_", "-"), dest=param.name, kind=kind, required=param.required,
                    default=None if param.required else param.default, help=param.help + unit, choices=param.choices,
                    minimum=param.minimum, maximum=param.maximum, param=param)
        if fields.get("default") is not None:  # a default given here: not required any more
            base["required"] = False
        return cls(**{**base, **fields})

    def as_param(self) -> Param | None:
        """The declared :class:`~flt_theory.runner.params.Param` of a value of this option (one element of a list),
        or one read from its kind, bounds and choices; None for a flag, a free string or a positional argument."""
        if self.param is not None:
            return self.param
        if self.argument or self.kind in ("flag", "str"):
            return None
        kind = {"ints": "int", "floats": "float", "eta": "float"}.get(self.kind, self.kind)
        minimum, exclusive = (0.0, True) if self.kind == "eta" else (self.minimum, False)
        return Param(self.dest, kind, minimum=minimum, maximum=self.maximum, exclusive_minimum=exclusive,
                     choices=tuple(self.choices))


#: The ``--device`` option every simulate command shares (``auto``: CUDA when present).
DEVICE_OPTION = Option(name="device", default="auto", help="'auto' (CUDA if available), 'cpu', 'cuda', 'cuda:K'.")


@dataclass(frozen=True)
class RecordField:
    """One field of the JSON records of ``flt simulate SYSTEM``: its key, what it is, and its unit
    (``"1"`` for a pure number, ``"count"``, ``"fraction"``, ...). Declared once per system next to its experiment
    (a module-level ``RECORD_FIELDS`` tuple in its ``declaration.py`` or ``simulate.py``), shown by ``flt simulate
    SYSTEM --help`` and read by the documentation."""

    name: str
    meaning: str
    unit: str = "1"

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "meaning": self.meaning, "unit": self.unit}


class NonFiniteRecordError(DivergenceError):
    """An observable of a ``flt simulate`` record is NaN or infinite: the run diverged or overflowed at that point.

    A record says that a value is undefined by design (a stop never reached, the interval of one seed) with ``None``
    (JSON ``null``); NaN and infinity only ever mean that the numbers broke down. ``record`` is the record, ``key`` the
    path of the value inside it (``"signal_end"``, ``"trajectory[3].train_loss"``), ``value`` the value."""

    def __init__(self, record: Mapping[str, Any], key: str, value: float, point: Sequence[str] | None = None):
        self.record, self.key, self.value = record, key, value
        super().__init__(self.describe(point))

    def describe(self, point: Sequence[str] | None = None) -> str:
        """The message: the value, and the point as the record's entries named in ``point`` (default: those that
        are an integer, a string or a flag, the labels and sizes of the point)."""
        if point is None:
            point = [k for k, v in self.record.items() if isinstance(v, (int, str))]
        shown = ", ".join(f"{k}={_point_value(self.record[k])}" for k in point if k in self.record)
        return (f"the observable {self.key} is {self.value} at {shown or 'a point of the grid'}: the run diverged or "
                "overflowed there")


def _point_value(value: Any) -> str:
    """A parameter's value as the non-finite error shows it (``1e+300``, ``64``, ``multi``)."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_point_value(v) for v in value) + "]"
    return str(value)


def _non_finite(value: Any) -> tuple[list[str | int], float] | None:
    """Where the first NaN or infinite number in ``value`` is (nested mappings and sequences, numpy arrays and scalars
    included; ``None`` and strings are not numbers): its keys and indices from the innermost out, and the value; or
    None."""
    if value is None or isinstance(value, (str, int)):  # the common cases first (a record holds thousands)
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else ([], value)
    items: Any
    if isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, (list, tuple)) or (hasattr(value, "tolist") and not isinstance(value, numbers.Number)):
        listed = value.tolist() if hasattr(value, "tolist") else value
        if not isinstance(listed, list):  # a 0-d array
            return _non_finite(listed)
        items = enumerate(listed)
    elif isinstance(value, numbers.Real) and not math.isfinite(float(value)):
        return [], float(value)
    else:
        return None
    for key, item in items:
        found = _non_finite(item)
        if found is not None:
            found[0].append(key if isinstance(key, int) and not isinstance(value, Mapping) else str(key))
            return found
    return None


def _path_text(keys: Sequence[str | int]) -> str:
    """``trajectory[3].train_loss`` from the keys and indices, outermost first."""
    text = ""
    for key in keys:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text


def check_finite_records(document: Mapping[str, Any], point: Sequence[str] | None = None) -> Mapping[str, Any]:
    """``document`` unchanged, or :class:`NonFiniteRecordError` at the first of its ``"records"`` holding a NaN or
    infinite number (a nested trajectory or interval included): the one non-finite check of every ``flt simulate``
    command (:meth:`SimulateCommand.check_finite`), which a run function that turns NaN into ``None`` for JSON
    (:func:`flt_theory._text.json_ready`) calls before it does. ``point``: the record keys that name the point in the
    message (default: :meth:`NonFiniteRecordError.describe`'s).

    >>> check_finite_records({"records": [{"n": 8, "loss": 0.5, "stop": None}]})["records"][0]["loss"]
    0.5
    >>> try:
    ...     check_finite_records({"records": [{"n": 8, "c": 1e300, "loss": float("nan")}]}, point=["n", "c"])
    ... except NonFiniteRecordError as exc:
    ...     print(exc)
    the observable loss is nan at n=8, c=1e+300: the run diverged or overflowed there
    """
    for record in document.get("records") or ():
        if isinstance(record, Mapping):
            found = _non_finite(record)
            if found is not None:
                keys, value = found
                raise NonFiniteRecordError(record, _path_text(keys[::-1]), value, point=point)
    return document


@dataclass(frozen=True, kw_only=True)
class SimulateCommand:
    """``flt simulate SYSTEM``: options, a run function and a text renderer.

    ``run(**options) -> dict`` returns the JSON-ready document ``{"system": name, "records": [...],
    ...}`` that ``--json`` prints (keys starting with ``_`` are private to ``table`` and not
    printed); ``table(document) -> str`` renders it as text (default: one aligned row per record).
    ``fields`` declares the keys of a record (:class:`RecordField`: name, meaning, unit); ``flt simulate SYSTEM
    --help`` lists them.
    Bad input raises an :class:`~flt_theory.errors.FLTError` whose message starts with the option
    (``--p: ...``): the command prints it as one line and exits 2. So does a record holding a NaN or infinite
    observable (:meth:`check_finite`, run by the command on every document): the message names the point and the
    options given, the most extreme value first.
    """

    help: str
    options: Sequence[Option]
    run: Callable[..., dict] = field(repr=False)
    table: Callable[[dict], str] | None = field(default=None, repr=False)
    fields: Sequence[RecordField] = ()
    experiment: str | None = None
    cost: Any = field(default=None, repr=False)

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options checked through their declared :class:`~flt_theory.runner.params.Param` (every value of a
        list), refusing a bad one with :class:`~flt_theory.errors.InvalidParameterError` whose message starts with
        the option (``--n: The 'n' parameter must be an int >= 2. Got 1 instead.``)."""
        out = dict(options)
        for option in self.options:
            value = options.get(option.dest)
            if option.param is None or value is None or (isinstance(value, str) and option.kind == "eta"):
                continue
            try:
                if isinstance(value, (list, tuple)):
                    out[option.dest] = type(value)(option.param.check(v, strict=False) for v in value)
                else:
                    out[option.dest] = option.param.check(value, strict=False)
            except FLTError as exc:
                raise InvalidParameterError(f"{'' if option.argument else '--'}{option.name}: {exc}") from None
        return out

    def check_finite(self, document: Mapping[str, Any]) -> Mapping[str, Any]:
        """``document`` unchanged, or :class:`NonFiniteRecordError` at the first record holding a NaN or infinite
        number (:func:`check_finite_records`), naming the point by the record's entries that are options of this
        command and its ``seed``."""
        return check_finite_records(document, point=self.point_keys)

    @property
    def point_keys(self) -> list[str]:
        """The record keys that name a point: the options' ``dest`` names, their declared parameter's name and, for a
        grid (``--widths``), the singular (``width``, one value a record holds), and ``seed``."""
        keys: list[str] = []
        for option in self.options:
            if option.kind != "flag":
                keys += [option.dest, option.param.name if option.param is not None else option.dest]
                keys += [option.dest.removesuffix("s")] if option.kind in ("ints", "floats") else []
        return [*dict.fromkeys(keys), "seed"]

    def check_cost(self, options: Mapping[str, Any]) -> Any:
        """Refuse options whose run would exceed the machine, before anything runs (one line naming the option).

        The cost is the declared :class:`~flt_theory.runner.cost.Cost` of ``experiment`` (the runner experiment
        this command runs at every point of its grid, its defaults filling what the options do not set), or
        ``cost`` (a :class:`~flt_theory.runner.cost.Cost` over the options' ``dest`` names, plus ``points``). A
        list option is a grid: memory is that of its largest value, work that of every point
        (:func:`~flt_theory.runner.cost.check_cost` with ``repeat``). Returns the estimate (None without a cost).
        """
        from ..runner.cost import check_cost
        from ..runner.registry import get_experiment

        options = self.check_options(options)  # the declared ranges first: the guard never sees a bad value
        cost, values = self.cost, {k: v for k, v in options.items() if v is not None}
        if self.experiment is not None:
            exp = get_experiment(self.experiment)
            cost, values = cost if cost is not None else exp.cost, {**exp.defaults, **values}
        if cost is None:
            return None
        points = 1
        for option in self.options:
            if option.kind in ("ints", "floats") and isinstance(options.get(option.dest), (list, tuple)):
                points *= max(1, len(options[option.dest]))
        flags = {o.dest: ("" if o.argument else "--") + o.name for o in self.options}
        return check_cost(cost, {**values, "points": points}, what="this simulation", repeat=points, blame=flags,
                          label=lambda name: f"{flags[name]}" if name in flags else f"The {name!r} parameter")


@dataclass(frozen=True, kw_only=True)
class Figure:
    """A system-specific figure of a claim, drawn from the claim's measured frame.

    ``draw(figure, frame, law, wrong_law)`` draws on a matplotlib ``Figure`` (object API, Agg).
    """

    name: str
    claim: str
    caption: str
    draw: Callable[..., None] = field(repr=False)
    width: float = 6.4
    height: float = 4.0


@dataclass(frozen=True, kw_only=True)
class System:
    """Everything one system declares (module docstring).

    Attributes
    ----------
    name
        CLI and registry name (``"giant-step"``).
    title, summary
        One line, and a paragraph of plain text for the catalogue.
    sources
        The papers the system encodes.
    laws
        A function returning the system's laws (built on first use).
    claims
        The :class:`Claim` objects (their ``system`` is set here).
    experiments
        Names of the runner experiments the declaration registers (``flt sweep --list``).
    figures
        System-specific :class:`Figure` objects (a generic comparison figure is drawn for every claim).
    simulate
        The ``flt simulate`` subcommand, if any.
    """

    name: str
    title: str
    summary: str
    sources: Sequence[Source]
    laws: Callable[[], Sequence[Law]] = field(repr=False)
    claims: Sequence[Claim]
    experiments: Sequence[str] = ()
    figures: Sequence[Figure] = ()
    simulate: SimulateCommand | None = None

    def __post_init__(self) -> None:
        if not self.name or any(c.isspace() or c == "/" for c in self.name):
            raise InvalidParameterError(f"A system name must be non-empty, without spaces or '/'. Got {self.name!r} "
                                        "instead.")
        claims = tuple(dataclasses.replace(c, system=self.name) for c in self.claims)
        names = [c.name for c in claims]
        if len(set(names)) != len(names):
            raise InvalidParameterError(f"system {self.name!r} declares a claim name twice: {names}")
        object.__setattr__(self, "claims", claims)
        object.__setattr__(self, "sources", tuple(self.sources))
        object.__setattr__(self, "figures", tuple(self.figures))
        unknown = sorted({f.claim for f in self.figures} - set(names))
        if unknown:
            raise InvalidParameterError(f"system {self.name!r}: figures name unknown claims {unknown}")

    def claim(self, name: str) -> Claim:
        for c in self.claims:
            if c.name == name:
                return c
        raise InvalidParameterError(f"system {self.name!r} has no claim {name!r}; its claims: "
                                    f"{[c.name for c in self.claims]}")

    def figures_of(self, claim_name: str) -> list[Figure]:
        return [f for f in self.figures if f.claim == claim_name]
