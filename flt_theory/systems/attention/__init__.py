"""Single-head softmax attention on signal-noise tokens (Jiang, Huang, Zhang, Suzuki, Nie 2024, arXiv 2409.19345):
``laws.py`` (sympy), ``model.py`` (torch), ``readouts.py`` (stored frame -> arrays, read by the comparisons and the
figures), ``figures.py``, ``simulate.py`` (``flt simulate``), ``declaration.py`` (experiments, claims, ``SYSTEM``)."""
