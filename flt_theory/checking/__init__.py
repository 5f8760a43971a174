"""The application layer of ``flt check`` and ``flt calibrate``: run the claims, decide, record, carry over.

Between the systems (:mod:`flt_theory.systems`, which declare claims and measure them) and the presentation
(:mod:`flt_theory.report`, which only writes what it is given as tables, HTML, Markdown, LaTeX and figures):

* :mod:`.check` -- :func:`check` runs claims with their negative controls and returns the verdict table,
  :func:`run_check` is ``flt check`` as a function, :func:`resolve_claims` selects claims by key, system or file;
* :mod:`.calibrate` -- ``flt calibrate``: false rejections and the mutation panel's power per claim, and the
  re-stamp of a calibration over a change of code that changed none of its numbers;
* :mod:`.carry_over` -- ``flt check --restamp-from``: carry recorded verdicts over such a change;
  :mod:`.verify_record` -- ``flt check --verify-record``: re-run the small-scale verdicts a carry-over relied on;
* :mod:`.records` -- the schemas of the JSON files the commands read (verdict and calibration records, BEFORE
  files), checked before anything runs;
* :mod:`.power` and :mod:`.scale_record` -- the recorded calibration and verdicts, the claims' fingerprints, and
  each claim's row (calibrated, recorded, stale or not run);
* :mod:`.catalogue` -- the catalogue of claims (``flt claims``, ``CLAIMS.md``).

It imports the systems and the runner; nothing below it imports it (``tests/test_layering.py``).
"""

from .check import ALPHA, COLUMNS, check, resolve_claims, run_check

__all__ = ["ALPHA", "COLUMNS", "check", "resolve_claims", "run_check"]
