r"""``flt check``: run claims with their negative controls, tabulate the verdicts, write a report.

A claim PASSES when its law's check passes AND its negative control — the same measurement
compared with a deliberately wrong law — fails (:class:`~flt_theory.systems.claims.ClaimVerdict`).

Selecting claims. ``paths`` may hold claim keys (``giant-step/norm-law``), system names
(``giant-step``: all its claims), derivation files (their module-level ``CLAIMS`` list, read
without importing the file) or folders of derivation files (``derive_*.py``). Nothing selects
every registered claim. Anything else raises
:class:`~flt_theory.runner.errors.UnknownClaimPathError`.

Execution. Each claim (its check, control and figure data, which share the system's cached
measurement) is one task for the runner's backends: in this process, a process pool (``jobs``) or
Dask (``scheduler``). An exception inside a claim is recorded as verdict ``ERROR``, not raised.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..compare.result import fmt, fmt_ci
from ..errors import InvalidParameterTypeError
from ..runner.errors import UnknownClaimPathError
from ..runner.executors import make_backend
from ..runner.sweep import progress_bar, progress_enabled
from .figures import figure_specs, plain_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..systems.claims import Claim

__all__ = ["COLUMNS", "check", "format_table", "resolve_claims", "run_check", "run_claims"]

#: Columns of the verdict table, in order.
COLUMNS = (
    "claim", "law", "status", "predicted", "measured", "ci", "n_seeds", "check", "control", "verdict", "passed",
    "seconds", "wrong_law", "message", "control_message",
)


def _claims_module():
    from ..systems import (
        claims,  # importing flt_theory.systems registers every system's claims
    )

    return claims


def _derivation_keys(path: Path) -> list[str]:
    """The ``CLAIMS`` list literal of a derivation file."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as exc:
        raise UnknownClaimPathError(f"cannot read derivation file {str(path)!r}: {exc}") from None
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "CLAIMS" for t in targets) and node.value is not None:
            try:
                keys = ast.literal_eval(node.value)
            except ValueError:
                break
            if isinstance(keys, (list, tuple)) and all(isinstance(k, str) for k in keys):
                return list(keys)
            break
    raise UnknownClaimPathError(
        f"derivation file {str(path)!r} has no CLAIMS = [\"system/claim\", ...] list of claim keys"
    )


def resolve_claims(paths: Sequence[str] | None = None) -> list[Claim]:
    """The claims selected by ``paths`` (module docstring), in order, without duplicates."""
    claims = _claims_module()
    registry = {c.key: c for c in claims.registered_claims()}
    if paths is None or len(paths) == 0:
        return list(registry.values())
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    systems = {c.system for c in registry.values()}
    selected: dict[str, Any] = {}
    for raw in paths:
        if not isinstance(raw, (str, os.PathLike)):
            raise InvalidParameterTypeError(f"Each path given to check must be a str. Got {raw!r} instead.")
        text = os.fspath(raw)
        keys: list[str]
        if text in registry:
            keys = [text]
        elif text in systems:
            keys = [c.key for c in registry.values() if c.system == text]
        elif Path(text).is_file():
            keys = _derivation_keys(Path(text))
        elif Path(text).is_dir():
            files = sorted(Path(text).glob("derive_*.py"))
            if not files:
                raise UnknownClaimPathError(f"folder {text!r} holds no derivation files (derive_*.py)")
            keys = [k for f in files for k in _derivation_keys(f)]
        else:
            near = difflib.get_close_matches(text, list(registry) + sorted(systems), n=3)
            hint = f" Did you mean {' or '.join(map(repr, near))}?" if near else ""
            raise UnknownClaimPathError(
                f"{text!r} is not a registered claim key, a system or an existing derivation file or folder.{hint} "
                f"Known claims: {', '.join(registry)}."
            )
        for key in keys:
            if key not in registry:
                raise UnknownClaimPathError(f"{text!r} names the claim {key!r}, which is not registered")
            selected[key] = registry[key]
    return list(selected.values())


# ----------------------------------------------------------------------------------------------
# running


def _claim_task(item: tuple[str, str, bool]) -> dict[str, Any]:
    """Verify one claim and gather its figure data (a backend task: picklable in and out)."""
    key, scale, with_figures = item
    claims = _claims_module()
    start = time.perf_counter()
    try:
        verdict = claims.verify(claims.get_claim(key), scale)
    except Exception as exc:  # noqa: BLE001 - a broken claim is an ERROR row, not a crash
        return {"key": key, "check": None, "control": None, "seconds": time.perf_counter() - start,
                "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(), "figures": {}}
    seconds = time.perf_counter() - start
    figures: dict[str, Any] = {}
    if with_figures:
        for spec in figure_specs(key):
            try:
                figures[spec.name] = spec.data(scale)
            except Exception as exc:  # noqa: BLE001 - a figure must not sink the verdict
                figures[spec.name] = {"error": f"{type(exc).__name__}: {exc}"}
    return {"key": key, "check": verdict.check.to_dict(), "control": verdict.control.to_dict(), "seconds": seconds,
            "error": None, "traceback": None, "figures": figures}


def run_claims(
    claims: Sequence[Claim],
    scale: str = "small",
    *,
    jobs: int = 1,
    scheduler: Any = None,
    figures: bool = True,
    progress: bool | None = None,
) -> list[dict[str, Any]]:
    """Run each claim's check and control (and figure data); one dict per claim, in ``claims`` order."""
    scale = _claims_module().check_scale(scale)
    items = [(c.key, scale, figures) for c in claims]
    done: dict[str, dict[str, Any]] = {}
    bar_options = {"desc": f"flt check ({scale})", "unit": "claim", "enabled": progress_enabled(progress)}
    with make_backend(jobs, scheduler) as backend, progress_bar(len(items), **bar_options) as bar:
        for outcome in backend.imap_unordered(_claim_task, items):
            done[outcome["key"]] = outcome
            bar.update(1)
    return [done[c.key] for c in claims]


def _row(claim: Claim, run: dict[str, Any]) -> dict[str, Any]:
    check, control = run["check"], run["control"]
    if run["error"] is not None:
        check_text, control_text, verdict = "ERROR", "", "ERROR"
    else:
        check_text = "PASS" if check["passed"] else "FAIL"
        control_text = "rejected" if not control["passed"] else "NOT rejected"
        verdict = "PASS" if check["passed"] and not control["passed"] else "FAIL"
    return {
        "claim": claim.key,
        "law": claim.words,
        "status": claim.law.status,
        "predicted": plain_text(check["predicted"]) if check else "",
        "measured": check["measured"] if check else None,
        "ci": check["ci"] if check else None,
        "n_seeds": check["n_seeds"] if check else None,
        "check": check_text,
        "control": control_text,
        "verdict": verdict,
        "passed": verdict == "PASS",
        "seconds": float(run["seconds"]),
        "wrong_law": claim.wrong_law,
        "message": check["message"] if check else run["error"],
        "control_message": control["message"] if control else "",
    }


def verdict_frame(claims: Sequence[Claim], runs: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The verdict table (:data:`COLUMNS`) of ``runs``."""
    import pandas as pd

    return pd.DataFrame([_row(c, r) for c, r in zip(claims, runs)], columns=list(COLUMNS))


def measured_text(measured: Any, ci: Any, limit: int | None = None) -> str:
    """``1.02 [0.95, 1.09]``; components joined by ``; `` (at most ``limit`` shown).

    >>> measured_text(1.0234, [0.95, 1.09]), measured_text([1.0, 2.0], [[0.9, 1.1], [1.8, 2.2]], limit=1)
    ('1.023 [0.95, 1.09]', '1 [0.9, 1.1]; … (+1)')
    """
    if measured is None:
        return "—"

    def one(value: Any, interval: Any) -> str:
        shown = fmt(float(value)) if not isinstance(value, str) else value
        if isinstance(interval, (list, tuple)) and len(interval) == 2 and not isinstance(interval[0], (list, tuple)):
            return f"{shown} {fmt_ci((float(interval[0]), float(interval[1])))}"
        return shown

    if isinstance(measured, (list, tuple)):
        cis = list(ci) if isinstance(ci, (list, tuple)) else [None] * len(measured)
        parts = [one(m, c) for m, c in zip(measured, cis)]
        if limit is not None and len(parts) > limit:
            parts = parts[:limit] + [f"… (+{len(measured) - limit})"]
        return "; ".join(parts)
    return one(measured, ci)


def _cut(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def format_table(frame: pd.DataFrame, *, wide: bool = False) -> str:
    """The verdict table as aligned text: claim, law, predicted, measured [CI], verdict, control."""
    header = ("claim", "law (in words)", "predicted", "measured [95% CI]", "verdict", "negative control")
    widths = (None, 58, 30, 44, None, None) if not wide else (None,) * 6
    rows = [header]
    for rec in frame.to_dict("records"):
        cells = (rec["claim"], plain_text(rec["law"]), rec["predicted"], measured_text(rec["measured"], rec["ci"], None if wide else 2),
                 rec["verdict"], rec["control"] or "—")
        rows.append(tuple(_cut(c, w) if w else str(c) for c, w in zip(cells, widths)))
    sizes = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(s) for c, s in zip(r, sizes)).rstrip() for r in rows)


def check(
    paths: Sequence[str] | None = None,
    *,
    scale: str = "small",
    report_dir: str | os.PathLike | None = None,
    jobs: int = 1,
    scheduler: Any = None,
    progress: bool | None = False,
) -> pd.DataFrame:
    """Run the claims selected by ``paths`` (all by default) at ``scale``; return the verdict table.

    Parameters
    ----------
    paths
        Claim keys, system names, derivation files or folders (module docstring); None: all.
    scale
        ``"small"`` (seconds per claim) or ``"paper"``.
    report_dir
        If given, write ``report.md``, ``report.html``, ``results.json`` and ``figures/*.png`` there.
    jobs, scheduler
        As in :func:`flt_theory.runner.sweep` (one task per claim).
    progress
        Progress bar on stderr (off by default in the API).

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
    runs = run_claims(claims, scale, jobs=jobs, scheduler=scheduler, figures=report_dir is not None, progress=progress)
    frame = verdict_frame(claims, runs)
    report = None
    if report_dir is not None:
        from .markdown import write_report

        report = write_report(report_dir, claims, runs, frame, scale)
    frame.attrs.update(passed=bool(len(frame)) and bool(frame["passed"].all()), scale=scale,
                       report=None if report is None else str(report))
    return frame


def run_check(
    paths: Sequence[str] | None = None,
    scale: str = "small",
    report_dir: str | os.PathLike | None = "report",
    *,
    jobs: int = 1,
    scheduler: Any = None,
    as_json: bool = False,
    progress: bool | None = None,
    out: IO[str] | None = None,
) -> int:
    """What ``flt check`` does: run, print (text table or one JSON document), write the report.

    Returns the exit code: 0 when every claim passed, 1 otherwise. Bad input raises an
    :class:`~flt_theory.errors.FLTError` (the command turns it into exit code 2).
    """
    out = out or sys.stdout
    frame = check(paths, scale=scale, report_dir=report_dir, jobs=jobs, scheduler=scheduler,
                  progress=False if as_json else progress)
    passed = frame.attrs["passed"]
    if as_json:
        document = {
            "scale": scale,
            "passed": passed,
            "report": frame.attrs["report"],
            "claims": json.loads(frame.to_json(orient="records")),
        }
        out.write(json.dumps(document) + "\n")
    else:
        out.write(format_table(frame) + "\n\n")
        n_pass = int(frame["passed"].sum())
        summary = f"{n_pass}/{len(frame)} claims pass at scale {scale!r}"
        summary += " (a claim passes when its law's check passes AND its negative control is rejected)"
        out.write(summary + "\n")
        for rec in frame.to_dict("records"):
            if not rec["passed"]:
                out.write(f"  {rec['verdict']} {rec['claim']}: {rec['message']}"
                          + (f" | control: {rec['control_message']}" if rec["control_message"] else "") + "\n")
        if frame.attrs["report"]:
            out.write(f"report: {frame.attrs['report']}\n")
    out.flush()
    return 0 if passed else 1
