"""The ``--law`` engine of ``flt verify --system SYSTEM --law LAW``: a researcher's own law, checked on any system.

* :mod:`.parse` -- read the law (``OBS ~ EXPR``, ``OBS <= EXPR``, ``PARAM* ~ EXPR`` with ``--where``) and its
  mutation panel;
* :mod:`.design` -- design the grid from the time budget, the experiment's cost model and the system's stated
  hypotheses, and the plan printed before a run;
* :mod:`.level_set` -- solve a parameter for where an observable crosses a level, one crossing per seed group;
* :mod:`.verdict` -- decide the law against its mutation panel on one measurement;
* :mod:`.verify` -- :func:`verify_law`, the whole check (the fit figure and the report folder of a result:
  :mod:`flt_theory.report.law_figure`).

Part of the application layer with :mod:`flt_theory.checking`: it imports the systems and the runner; nothing below
it imports it (``tests/test_layering.py``).
"""

from .parse import LevelSetLaw, ObservableLaw, parse_level_set_law, parse_observable_law, parse_relation_law
from .verify import LawVerification, verify_law

__all__ = ["LawVerification", "LevelSetLaw", "ObservableLaw", "parse_level_set_law", "parse_observable_law",
           "parse_relation_law", "verify_law"]
