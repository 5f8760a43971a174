"""Denoising score matching against classification on two-patch signal-noise data (Han, Huang, Cao, Zou 2025, arXiv
2412.01021): ``laws.py`` (sympy), ``model.py`` (torch), ``readouts.py`` (stored frame -> arrays, read by the comparisons
and the figures), ``figures.py``, ``simulate.py`` (``flt simulate``), ``declaration.py`` (experiments, claims,
``SYSTEM``)."""
