"""The presentation of ``flt check`` and ``flt verify``: tables, HTML, Markdown, LaTeX and figures of result objects.

* :mod:`.table` -- :func:`~.table.format_table` and the verdict table as HTML, Markdown and booktabs LaTeX;
* :mod:`.figures` -- :func:`~.figures.plot_comparisons` (one generic figure per claim) and the size ladder;
* :mod:`.markdown` -- the report folder (``report.md``, ``report.html``, ``results.json``, ``figures/``);
* :mod:`.power`, :mod:`.scale_record`, :mod:`.catalogue` -- the recorded calibration and verdicts and the catalogue
  of claims (``CLAIMS.md``), written from the rows the application layer decides;
* :mod:`.law_figure` -- the fit figure and report folder of ``flt verify --system``.

What runs claims and decides verdicts is the application layer, :mod:`flt_theory.checking`
(:func:`~flt_theory.checking.check.check`, :func:`~flt_theory.checking.check.run_check`,
:func:`~flt_theory.checking.check.resolve_claims`) and :mod:`flt_theory.laws_check`; this package imports neither,
nor the runner or the systems (``tests/test_layering.py``). ``check``, ``run_check``, ``resolve_claims`` and
``COLUMNS`` are still importable from here for one release, loaded on first use: import them from
:mod:`flt_theory.checking`.
"""

from typing import Any

from .figures import Comparison, comparisons, plot_comparisons
from .table import format_table

__all__ = ["Comparison", "comparisons", "format_table", "plot_comparisons"]

#: Names that lived here before the application layer existed, now in :mod:`flt_theory.checking.check`: kept for one
#: release (a re-export the layering test names), loaded on first use, since the application layer imports this
#: package and could not be imported while it is.
_MOVED = ("COLUMNS", "check", "resolve_claims", "run_check")


def __getattr__(name: str) -> Any:
    """The names of :data:`_MOVED`, from :mod:`flt_theory.checking.check`."""
    if name in _MOVED:
        from ..checking.check import COLUMNS, check, resolve_claims, run_check

        return {"COLUMNS": COLUMNS, "check": check, "resolve_claims": resolve_claims, "run_check": run_check}[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
