"""Reports of ``flt check``: verdict tables, figures and the report folder.

* :func:`check` runs claims with their negative controls and returns the verdict table
  (a DataFrame, columns :data:`~flt_theory.report.check.COLUMNS`); with ``report_dir`` it writes
  ``report.md``, ``report.html``, ``results.json`` and ``figures/``;
* :func:`run_check` is the ``flt check`` command as a function (prints, returns the exit code);
* :mod:`flt_theory.report.cli` holds the click commands ``check_command`` and ``sweep_command``.
"""

from .check import COLUMNS, check, format_table, resolve_claims, run_check
from .figures import Comparison, comparisons, plot_comparisons

__all__ = [
    "COLUMNS", "Comparison", "check", "comparisons", "format_table", "plot_comparisons", "resolve_claims", "run_check",
]
