r"""``flt check``: measure each claim once, compare it with its law and its wrong law, tabulate, report.

A claim PASSES when its law's check passes AND its negative control — the same measurement
compared with a deliberately wrong law — is rejected (does not pass); it FAILS when the data exclude its law, and
is INCONCLUSIVE when its law's intervals straddle their bounds or its wrong law passes too. That is the one decision
of :class:`~flt_theory.systems.declaration.ClaimVerdict`, ``flt verify`` and this table
(:func:`flt_theory.compare.verdict.decide_claim`), made here at the run's level (below).

Selecting claims. ``paths`` may hold claim keys (``giant-step/norm-law``), system names
(``giant-step``: all its claims), Python files, or folders of derivation files (``derive_*.py``).
A Python file is the user's own code and is imported, the way pytest imports a test file: its
``CLAIMS`` (claim keys, or :class:`~flt_theory.systems.declaration.Claim` objects) and its
``SYSTEM`` (a :class:`~flt_theory.systems.declaration.System`) are what it selects. Nothing selects
every discovered claim. Anything else raises :class:`~flt_theory.runner.errors.UnknownClaimPathError`.

Measurements are stored. Each claim's measurement is a runner sweep into ONE store for the whole
run (``store``: an SQLite file, kept between runs, or an in-memory store for this call), so claims
that share points compute them once, and a second run on the same file reuses every stored point
(``fresh=True`` recomputes). ``seed_base`` shifts every claim's seeds. An exception inside a claim is
recorded as verdict ``ERROR``, not raised.

A level for the whole run. With :math:`K` claims, each comparison that has a p-value (the law as null
hypothesis: ``CheckResult.details["p_value"]``, :mod:`flt_theory.compare.family`) is decided at the
Bonferroni level :math:`\alpha/K` (``alpha`` = :data:`ALPHA` = 0.05 by default): the law's check passes
iff :math:`p \ge \alpha/K`, the control is rejected iff its :math:`p < \alpha/K`. Then the chance that a
run rejects any true law with a p-value is at most :math:`\alpha`, under any dependence between the
claims. Comparisons whose data must *demonstrate* the law (subspaces learned, ``mode="demonstrated"``)
have no p-value and keep their own verdict; their false rejections are a matter of power, measured by
``flt calibrate``. The table states the level each claim was decided at.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib.util
import json
import os
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from .._display import latex_document
from .._files import atomic_write_text
from ..compare.family import per_claim_level
from ..compare.verdict import decide as decide_verdict, decide_claim, p_value, passes
from ..errors import InvalidParameterError, InvalidParameterTypeError
from ..report.figures import plain_text
from ..report.markdown import prepare_report_dir, write_report
from ..report.table import format_table, verdict_html, verdict_latex, verdict_markdown, verdict_summary
from ..runner.errors import UnknownClaimPathError
from ..runner.executors import shared_backend
from ..runner.provenance import static_provenance, worker_provenance
from ..runner.store import ResultStore
from ..runner.sweep import progress_bar, progress_enabled
from ..symbolic.hypothesis import classify_points
from ..systems import registry
from ..systems.declaration import SCOPES, Claim, System, check_scale, plan
from .power import recorded_calibration
from .scale_record import check_record_path, code_fingerprints, load_verdicts, record_markdown, write_verdicts

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["ALPHA", "COLUMNS", "check", "check_latex_path", "declared_figures", "decide", "hypotheses_of",
           "import_claims_file", "progress_mode", "rejects", "resolve_claims", "run_check", "run_claims",
           "verdict_frame", "write_check_report"]

#: Columns of the verdict table, in order.
COLUMNS = (
    "claim", "law", "status", "predicted", "measured", "ci", "n_seeds", "seeds", "check", "control", "verdict",
    "passed", "level", "p_check", "p_control", "seconds", "computed", "reused", "wrong_law", "message",
    "control_message", "in_hypotheses", "scope", "effective", "limit", "ladder",
)

#: Family-wise false-rejection rate of a whole ``flt check`` run (module docstring).
ALPHA = 0.05


def import_claims_file(path: Path) -> list[Claim]:
    """Import the user's Python file ``path`` and return the claims it selects (module docstring)."""
    name = f"flt_user_claims_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UnknownClaimPathError(f"cannot import {str(path)!r} as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the user's code: named, one line
        raise UnknownClaimPathError(f"importing {str(path)!r} failed: {type(exc).__name__}: {exc}") from exc
    finally:
        sys.path.remove(str(path.resolve().parent))
    claims: list[Claim] = []
    system = getattr(module, "SYSTEM", None)
    if isinstance(system, System):
        claims += list(system.claims)
    for item in getattr(module, "CLAIMS", None) or []:
        if isinstance(item, str):
            claims.append(
                registry.get_claim(item)
                if item in {c.key for c in registry.registered_claims()}
                else _unknown(path, item)
            )
        elif isinstance(item, Claim):
            claims.append(item if item.system else _with_system(item, path.stem))
        else:
            raise UnknownClaimPathError(f"{str(path)!r}: CLAIMS holds {item!r}; expected claim keys or Claim objects")
    if not claims:
        raise UnknownClaimPathError(
            f"{str(path)!r} defines no CLAIMS list (claim keys or Claim objects) and no SYSTEM = System(...)")
    return claims


def _unknown(path: Path, key: str):
    raise UnknownClaimPathError(f"{str(path)!r} names the claim {key!r}, which is not registered")


def _with_system(claim: Claim, system: str) -> Claim:
    return dataclasses.replace(claim, system=system)


def resolve_claims(paths: Sequence[str] | None = None) -> list[Claim]:
    """The claims selected by ``paths`` (module docstring), in order, without duplicates."""
    claims = {c.key: c for c in registry.registered_claims()}
    if paths is None or len(paths) == 0:
        try:
            registry.check_loaded()  # "every claim" must not silently miss a broken system
        except registry.SystemLoadError as exc:
            raise UnknownClaimPathError(str(exc)) from exc
        return list(claims.values())
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    systems = {c.system for c in claims.values()}
    selected: dict[str, Any] = {}
    for raw in paths:
        if not isinstance(raw, (str, os.PathLike)):
            raise InvalidParameterTypeError(f"Each path given to check must be a str. Got {raw!r} instead.")
        text = os.fspath(raw)
        if text in claims:
            found = [claims[text]]
        elif text in systems:
            found = [c for c in claims.values() if c.system == text]
        elif Path(text).is_file():
            found = import_claims_file(Path(text))
        elif Path(text).is_dir():
            files = sorted(Path(text).glob("derive_*.py"))
            if not files:
                raise UnknownClaimPathError(f"folder {text!r} holds no derivation files (derive_*.py)")
            found = [c for f in files for c in import_claims_file(f)]
        else:
            near = difflib.get_close_matches(text, list(claims) + sorted(systems), n=3)
            hint = f" Did you mean {' or '.join(map(repr, near))}?" if near else ""
            raise UnknownClaimPathError(
                f"{text!r} is not a registered claim key, a system or an existing Python file or folder.{hint} "
                f"Known systems: {', '.join(sorted(systems))}; list the claims with 'flt check --list'."
            )
        for claim in found:
            selected[claim.key] = claim
    return list(selected.values())


# ----------------------------------------------------------------------------------------------
# running


def _run_one(claim: Claim, scale: str, store: ResultStore, refreshed: set, options: dict[str, Any]) -> dict[str, Any]:
    """Measure ``claim`` (reusing the store) and compare it with its law and its wrong law."""
    start = time.perf_counter()
    m = claim.measurement
    where = hypotheses_of(claim, scale)
    signature = (m.experiment, json.dumps(list(m.points[scale]), sort_keys=True, default=str))
    fresh = bool(options.get("fresh")) and signature not in refreshed
    refreshed.add(signature)
    try:
        frame = m.run(scale, seed_base=options.get("seed_base", 0), store=store, jobs=options.get("jobs", 1),
                      scheduler=options.get("scheduler"), fresh=fresh, progress=options.get("bar", False))
        verdict = claim.verdict(frame)
    except Exception as exc:  # noqa: BLE001 - a broken claim is an ERROR row, not a crash
        return {"key": claim.key, "check": None, "control": None, "seconds": time.perf_counter() - start,
                "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(), "frame": None,
                "computed": 0, "reused": 0, "seeds": [], **where}
    return {"key": claim.key, "check": verdict.check.to_dict(), "control": verdict.control.to_dict(),
            "seconds": time.perf_counter() - start, "error": None, "traceback": None, "frame": frame,
            "computed": int(frame.attrs.get("computed", 0)), "reused": int(frame.attrs.get("reused", 0)),
            "seeds": sorted(int(s) for s in frame["seed"].unique()), "ladder": _ladder_of(claim, frame), **where}


def _ladder_of(claim: Claim, frame: pd.DataFrame) -> dict[str, Any] | None:
    """The claim's size ladder read from ``frame`` (:attr:`Claim.ladder`): ``{"rungs": [...]}``, or ``{"error"}``
    when it cannot be read from this frame (a scale with one size, say); None when the claim declares none."""
    if claim.ladder is None:
        return None
    try:
        return {"rungs": list(claim.ladder(frame))}
    except Exception as exc:  # noqa: BLE001 - a ladder that cannot be read is said, not a crash
        return {"error": f"{type(exc).__name__}: {exc}", "rungs": []}


def hypotheses_of(claim: Claim, scale: str) -> dict[str, Any]:
    """Where the points run at ``scale`` lie with respect to the law's hypotheses: ``in_hypotheses``,
    ``scope`` (:meth:`Claim.scope`) and per point the hypotheses that fail there (``points``)."""
    try:
        points = claim.hypotheses_at(scale)
        label = classify_points(claim.the_law.hypotheses, [p["values"] for p in points])
    except Exception as exc:  # noqa: BLE001 - a hypothesis that cannot be read is named in the row
        return {"in_hypotheses": "unreadable", "scope": f"unreadable: {exc}", "hypothesis_points": []}
    return {"in_hypotheses": label, "scope": SCOPES[label], "hypothesis_points": points}


def run_claims(
    claims: Sequence[Claim],
    scale: str = "small",
    *,
    store: str | os.PathLike | ResultStore | None = None,
    seed_base: int = 0,
    fresh: bool = False,
    jobs: int = 1,
    scheduler: Any = None,
    progress: bool | None = None,
) -> list[dict[str, Any]]:
    """Measure and compare each claim, in order; one dict per claim (``check``/``control`` as dicts,
    ``frame``: the measured table, ``computed``/``reused``: points computed or read from the store)."""
    scale = check_scale(scale)
    if isinstance(seed_base, bool) or not isinstance(seed_base, int) or not 0 <= seed_base <= 2**62:
        raise InvalidParameterError(f"The 'seed_base' parameter must be an int in [0, 2**62]. Got {seed_base!r} "
                                    "instead.")
    own = not isinstance(store, ResultStore)
    st = store if isinstance(store, ResultStore) else ResultStore(":memory:" if store is None else store)
    options: dict[str, Any] = {"seed_base": seed_base, "fresh": fresh, "jobs": jobs}
    refreshed: set = set()
    mode = progress_mode(progress)
    options["bar"] = mode == "bar"  # a bar per measurement, its points done / total with an estimate
    lines = _ProgressLines(claims, scale) if mode == "lines" else None
    seen: set = set()  # the rows measured so far in this run: a later claim sharing them did not reuse a stored row
    runs = []
    try:
        with (shared_backend(jobs, scheduler) as backend,  # one pool (or Dask client) for every measurement of the run
              progress_bar(len(claims), desc=f"flt check ({scale})", unit="claim", enabled=mode == "bar") as bar):
            options["scheduler"] = backend
            for claim in claims:
                if lines is not None:
                    lines.start(claim)
                run = _run_one(claim, scale, st, refreshed, options)
                keys = _row_keys(run.get("frame"))
                run["reused_stored"] = max(0, run["reused"] - len(keys & seen))
                seen |= keys
                runs.append(run)
                bar.update(1)
                if lines is not None:
                    lines.done(run)
    finally:
        if own:
            st.close()
    return runs


def progress_mode(progress: bool | None) -> str | None:
    """How ``flt check`` shows its progress on stderr: ``"bar"`` (a bar per claim and per measurement's points,
    with an estimate) where stdout and stderr are both terminals and not under CI, ``"lines"`` (one plain line
    when a claim's measurement starts and one when it ends: rows done / total, elapsed, estimate) otherwise —
    ``flt check | cat``, a log file, CI — and None when ``progress`` is False."""
    if progress is False:
        return None
    terminal = progress_enabled(None) and sys.stdout is not None and sys.stdout.isatty()
    return "bar" if terminal else "lines"


def _row_keys(frame: pd.DataFrame | None) -> set:
    """(experiment, parameters, seed) of every row of a measured frame."""
    if frame is None or "seed" not in frame.columns:
        return set()
    head = list(frame.columns[: list(frame.columns).index("seed") + 1])
    return {json.dumps(row, default=str) for row in frame[head].values.tolist()}


class _ProgressLines:
    """Plain progress lines on stderr, one when a claim's measurement starts and one when it ends."""

    def __init__(self, claims: Sequence[Claim], scale: str):
        self.scale, self.count, self.index, self.begin = scale, len(claims), 0, time.perf_counter()
        self.sizes = {c.key: len(c.measurement.points[scale]) * len(c.measurement.seed_list(scale)) for c in claims}
        self.total, self.done_rows = sum(self.sizes.values()), 0

    def _write(self, text: str) -> None:
        if sys.stderr is not None:
            sys.stderr.write(f"flt check [{self.index}/{self.count}] {text}\n")
            sys.stderr.flush()

    def start(self, claim: Claim) -> None:
        self.index += 1
        m = claim.measurement
        self._write(f"{claim.key}: measuring {len(m.points[self.scale])} points x {len(m.seed_list(self.scale))} seeds "
                    f"of {m.experiment} ...")

    def done(self, run: dict[str, Any]) -> None:
        self.done_rows += self.sizes[run["key"]]
        elapsed = time.perf_counter() - self.begin
        left = elapsed / self.done_rows * (self.total - self.done_rows) if self.done_rows else 0.0
        state = "ERROR" if run["error"] else "measured"
        self._write(f"{run['key']}: {state} in {run['seconds']:.1f} s ({run['computed']} rows computed, "
                    f"{run['reused']} reused); {self.done_rows}/{self.total} rows, elapsed {_clock(elapsed)}, "
                    f"estimate {_clock(left)} left")


def _clock(seconds: float) -> str:
    """``1:02:03`` / ``2:03``.

    >>> _clock(3723.4), _clock(59.6)
    ('1:02:03', '1:00')
    """
    minutes, sec = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{sec:02d}" if hours else f"{minutes}:{sec:02d}"


def check_latex_path(path: str | os.PathLike) -> None:
    """Refuse a LaTeX file that could not be written, before any claim runs."""
    target = Path(path)
    folder = target.resolve().parent
    if target.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
        raise InvalidParameterError(f"--latex: cannot write {str(path)!r}: its folder does not exist or is not "
                                    "writable")


def decide(result: dict[str, Any], level: float) -> bool:
    """Whether a comparison passes at ``level``: by its p-value where it has one, else its own verdict
    (:func:`flt_theory.compare.verdict.passes`, the pass of the one decision; ``flt calibrate`` counts with it)."""
    return passes(result, level)


def rejects(result: dict[str, Any], level: float) -> bool:
    """Whether a wrong law's comparison is rejected at ``level`` as ``flt check`` reads a negative control: it does
    not pass, and its failure is settled (a limit comparison that only the extrapolation excludes is not a rejection:
    :func:`flt_theory.compare.verdict.decide_claim`); ``flt calibrate`` counts a mutant's rejections with it."""
    verdict = decide_verdict(result, level)
    return not verdict.passed and not verdict.unsettled


def _row(claim: Claim, run: dict[str, Any], level: float) -> dict[str, Any]:
    check, control = run["check"], run["control"]
    if run["error"] is not None:
        check_text, control_text, verdict = "ERROR", "", "ERROR"
    else:
        decision = decide_claim(check, control, level)
        check_text = decision.law.outcome.upper()  # PASS, FAIL, or INCONCLUSIVE (straddles its bound)
        control_text = "rejected" if decision.rejected else "NOT rejected"
        verdict = decision.outcome.upper()
    try:
        status, wrong = claim.the_law.status, claim.the_wrong_law.text()
    except Exception as exc:  # noqa: BLE001 - a law that cannot be built is reported in the row
        status, wrong = "unknown", f"(wrong law unavailable: {exc})"
    return {
        "claim": claim.key,
        "law": claim.words,
        "status": status,
        "predicted": plain_text(check["predicted"]) if check else "",
        "measured": check["measured"] if check else None,
        "ci": check["ci"] if check else None,
        "n_seeds": check["n_seeds"] if check else None,
        "seeds": run["seeds"],
        "check": check_text,
        "control": control_text,
        "verdict": verdict,
        "passed": verdict == "PASS",
        "level": level if p_value(check) is not None or p_value(control) is not None else None,
        "p_check": p_value(check),
        "p_control": p_value(control),
        "seconds": float(run["seconds"]),
        "computed": run["computed"],
        "reused": run["reused"],
        "wrong_law": wrong,
        "message": check["message"] if check else run["error"],
        "control_message": control["message"] if control else "",
        "in_hypotheses": run.get("in_hypotheses", "not stated"),
        "scope": run.get("scope", "not stated"),
        "effective": ((check or {}).get("details") or {}).get("effective"),
        "limit": ((check or {}).get("details") or {}).get("limit"),
        "ladder": (run.get("ladder") or {}).get("rungs"),
    }


def verdict_frame(claims: Sequence[Claim], runs: Sequence[dict[str, Any]], alpha: float = ALPHA,
                  family: int | None = None) -> pd.DataFrame:
    """The verdict table (:data:`COLUMNS`) of ``runs``, each claim decided at ``alpha / K``, :math:`K` = ``family``
    (default: the number of claims run; a record uses the whole catalogue's, so a verdict does not depend on
    which claims ran together)."""
    level = per_claim_level(alpha, max(1, family or len(claims)))
    frame = _verdict_table_class()([_row(c, r, level) for c, r in zip(claims, runs)], columns=list(COLUMNS))
    frame.attrs.update(alpha=alpha, level=level, law_latex={c.key: _law_latex(c) for c in claims},
                       labels={c.key: _labels(r["check"]) for c, r in zip(claims, runs)})
    return frame


def _law_latex(claim: Claim) -> str:
    try:
        return claim.the_law.latex()
    except Exception:  # noqa: BLE001 - a law that cannot be built is reported in its row; no formula then
        return ""


def _labels(check: dict[str, Any] | None) -> list[str] | None:
    labels = ((check or {}).get("details") or {}).get("labels")
    return [str(x) for x in labels] if isinstance(labels, (list, tuple)) else None


@functools.cache
def _verdict_table_class() -> type:
    """:class:`VerdictTable`, made on first use (pandas is imported only when a table is built)."""
    import pandas as pd

    class VerdictTable(pd.DataFrame):
        """The verdict table of ``flt check`` (a pandas DataFrame, columns :data:`COLUMNS`) that a notebook shows
        as an HTML table, one row per claim, its law typeset (``_repr_html_``); ``_repr_latex_`` is the booktabs
        table of ``flt check --latex`` and ``_repr_markdown_`` a Markdown table; ``print(table)`` and ``repr`` give
        the aligned text table ``flt check`` prints (claim, law, predicted, measured [95% CI], verdict, negative
        control, hypotheses) and its one-line summary, not pandas' column-elided repr, which hid the verdict.
        Derived frames (a selection of columns, say) are plain DataFrames."""

        def __repr__(self) -> str:
            if not set(COLUMNS) <= set(self.columns):  # columns removed in place: pandas' own form
                return cast(str, super().__repr__())
            return format_table(self) + "\n\n" + verdict_summary(self)

        __str__ = __repr__

        def _repr_html_(self) -> str:
            return verdict_html(self)

        def _repr_markdown_(self) -> str:
            return verdict_markdown(self)

        def _repr_latex_(self) -> str:
            return verdict_latex(self)

    VerdictTable.__module__, VerdictTable.__qualname__ = __name__, "VerdictTable"  # picklable: module __getattr__
    return VerdictTable


def __getattr__(name: str) -> Any:
    """``VerdictTable`` (the verdict table's class) is built on first use, with pandas."""
    if name == "VerdictTable":
        return _verdict_table_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def declared_figures(claim: Claim) -> list[Any]:
    """The figures ``claim``'s system declares for it (:meth:`~flt_theory.systems.declaration.System.figures_of`);
    none for a claim of the user's own file."""
    try:
        return list(registry.get_system(claim.system).figures_of(claim.name))
    except InvalidParameterError:  # a claim of the user's own file: no declared figures
        return []


def write_check_report(
    report_dir: str | os.PathLike,
    claims: Sequence[Claim],
    runs: Sequence[dict[str, Any]],
    frame: pd.DataFrame,
    scale: str,
    *,
    seed_base: int = 0,
) -> Path:
    """Write the report folder of a run (:func:`flt_theory.report.markdown.write_report`) with what it shows but does
    not compute: the provenance of this process, each claim's declared figures (:func:`declared_figures`), and the
    recorded calibration and verdicts (:func:`.power.recorded_calibration`, :func:`.scale_record.record_markdown`).
    Returns the path of ``report.md``."""
    return write_report(report_dir, claims, runs, frame, scale, seed_base=seed_base,
                        provenance={**static_provenance(), **worker_provenance({})}, figures_of=declared_figures,
                        calibration=recorded_calibration(list(claims)),
                        recorded=record_markdown(load_verdicts(), list(claims)))


def check(
    paths: Sequence[str] | None = None,
    *,
    scale: str = "small",
    report_dir: str | os.PathLike | None = None,
    store: str | os.PathLike | ResultStore | None = None,
    seed_base: int = 0,
    fresh: bool = False,
    alpha: float = ALPHA,
    jobs: int = 1,
    scheduler: Any = None,
    progress: bool | None = False,
    family: int | None = None,
) -> pd.DataFrame:
    """Run the claims selected by ``paths`` (all by default) at ``scale``; return the verdict table.

    Parameters
    ----------
    paths
        Claim keys, system names, Python files or folders of derivation files (module docstring); None: all.
    scale
        ``"small"`` (seconds per claim) or ``"paper"``.
    report_dir
        If given, write ``report.md``, ``report.html``, ``results.json`` and ``figures/*.png`` there.
    store
        SQLite file of the measurements (reused by later runs), a ResultStore, or None (in memory).
    seed_base
        Every claim's seeds are ``seed_base .. seed_base + S - 1``.
    fresh
        Recompute the measurements even when the store holds them.
    alpha
        Family-wise false-rejection rate of the run (module docstring).
    family
        The number of claims :math:`K` of the family each claim is decided in, at :math:`\alpha/K` (default: the
        claims run).
    jobs, scheduler
        As in :func:`flt_theory.runner.sweep` (the measurements' points run in parallel).
    progress
        Progress on stderr (off by default in the API): bars on a terminal, plain lines otherwise
        (:func:`progress_mode`).

    Returns
    -------
    pandas.DataFrame
        One row per claim, columns :data:`COLUMNS`; ``attrs["passed"]`` is True iff every claim
        passed (check passed AND control rejected), ``attrs["report"]`` the report path or None.

    Examples
    --------
    >>> table = check(["giant-step/rank-one-update"])
    >>> table[["claim", "check", "control", "verdict"]].values.tolist()
    [['giant-step/rank-one-update', 'PASS', 'rejected', 'PASS']]
    """
    claims = resolve_claims(paths)
    if report_dir is not None:
        prepare_report_dir(report_dir)  # before any claim runs: a folder we cannot write is bad input
    plan(claims, scale)  # an oversized request is refused before any claim runs (the declared costs)
    runs = run_claims(claims, scale, store=store, seed_base=seed_base, fresh=fresh, jobs=jobs, scheduler=scheduler,
                      progress=progress)
    frame = verdict_frame(claims, runs, alpha, family)
    report, report_error = None, None
    if report_dir is not None:
        try:
            report = write_check_report(report_dir, claims, runs, frame, scale, seed_base=seed_base)
        except (OSError, InvalidParameterError) as exc:  # filled up or removed during the run: keep the verdicts
            report_error = f"the report could not be written to {str(report_dir)!r}: {exc}"
    frame.attrs.update(passed=bool(len(frame)) and bool(frame["passed"].all()), scale=scale, seed_base=seed_base,
                       reused_stored=sum(int(run.get("reused_stored", 0)) for run in runs),
                       report=None if report is None else str(report), report_error=report_error,
                       stale=sum(_stale_rows(run.get("frame")) for run in runs))
    return frame


def _stale_rows(frame: pd.DataFrame | None) -> int:
    """The stored rows of other code a measured frame recomputed (0 for a claim that errored)."""
    return int((frame.attrs if frame is not None else {}).get("stale", 0))


def run_check(
    paths: Sequence[str] | None = None,
    scale: str = "small",
    report_dir: str | os.PathLike | None = "report",
    *,
    store: str | os.PathLike | None = None,
    seed_base: int = 0,
    fresh: bool = False,
    alpha: float = ALPHA,
    jobs: int = 1,
    scheduler: Any = None,
    as_json: bool = False,
    progress: bool | None = None,
    out: IO[str] | None = None,
    latex: str | os.PathLike | None = None,
    record: str | os.PathLike | None = None,
) -> int:
    """What ``flt check`` does: run, print (text table or one JSON document), write the report and, given
    ``latex``, the verdict table as a LaTeX file that compiles alone and can be ``\\input`` into a paper
    (:func:`~flt_theory.report.table.verdict_latex`, :func:`flt_theory._display.latex_document`). Given ``record``
    (a JSON file, e.g. :data:`.scale_record.RECORD`), every claim is decided at the level of the whole registered
    catalogue and its verdict is merged into the record (:mod:`flt_theory.checking.scale_record`).

    Returns the exit code: 0 when every claim passed, 1 otherwise. Bad input raises an
    :class:`~flt_theory.errors.FLTError` (the command turns it into exit code 2).
    """
    out = out or sys.stdout
    if latex is not None:
        check_latex_path(latex)
    family, before = None, None
    if record is not None:
        check_record_path(record)  # before anything runs
        family = sum(len(system.claims) for system in registry.systems())
        before = code_fingerprints(resolve_claims(paths))
    frame = check(paths, scale=scale, report_dir=report_dir, store=store, seed_base=seed_base, fresh=fresh, alpha=alpha,
                  jobs=jobs, scheduler=scheduler, progress=False if as_json else progress, family=family)
    if record is not None:
        write_verdicts(record, frame, resolve_claims(paths), scale, jobs=jobs, before=before,
                       decided={"alpha": alpha, "seed_base": seed_base, "family": family})
    passed = frame.attrs["passed"]
    if latex is not None:
        atomic_write_text(latex, latex_document(verdict_latex(frame)))
    if as_json:
        document = {
            "scale": scale,
            "seed_base": seed_base,
            "alpha": alpha,
            "level": frame.attrs["level"],
            "passed": passed,
            "report": frame.attrs["report"],
            "report_error": frame.attrs["report_error"],
            "stale_rows_recomputed": frame.attrs["stale"],
            "store": os.fspath(store) if isinstance(store, (str, os.PathLike)) else None,  # None: in memory
            "claims": json.loads(frame.to_json(orient="records")),
        }
        out.write(json.dumps(document) + "\n")
    else:
        out.write(format_table(frame) + "\n\n")
        n_pass = int(frame["passed"].sum())
        reused = int(frame.attrs.get("reused_stored", 0))
        summary = f"{n_pass}/{len(frame)} claims pass at scale {scale!r}, seeds from {seed_base}"
        summary += " (a claim passes when its law's check passes AND its negative control is rejected)"
        out.write(summary + "\n")
        out.write(f"family-wise level {alpha:g}: comparisons with a p-value decided at "
                  f"{alpha:g}/{family or len(frame)} = {frame.attrs['level']:.2g}; the others by their own verdict "
                  "(their power: flt calibrate)\n")
        if isinstance(store, (str, os.PathLike)) and os.fspath(store) != ":memory:":
            out.write(f"measurements stored in {os.fspath(store)} (a rerun reuses them)\n")
        if reused:
            out.write(f"{reused} measurement rows reused from the store of an earlier run (--fresh recomputes them)\n")
        for rec in frame.to_dict("records"):
            if not rec["passed"]:
                out.write(f"  {rec['verdict']} {rec['claim']}: {rec['message']}"
                          + (f" | control: {rec['control_message']}" if rec["control_message"] else "") + "\n")
        if frame.attrs["stale"]:
            out.write(f"{frame.attrs['stale']} stored rows were written by other code (a changed experiment or model) "
                      f"and were recomputed\n")
        if frame.attrs["report"]:
            out.write(f"report: {frame.attrs['report']}\n")
    out.flush()
    if frame.attrs["report_error"]:
        sys.stderr.write(f"error: {frame.attrs['report_error']}\n")
        return 2
    return 0 if passed else 1
