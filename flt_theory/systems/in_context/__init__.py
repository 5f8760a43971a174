"""In-context learning: concepts and semantics (Bu et al. 2024, arXiv 2411.02199) and nonparametric ICL with a
mean-field feature map (Kim & Suzuki 2024, arXiv 2402.01258): ``laws.py`` (sympy), ``model.py`` (torch),
``readouts.py`` (stored frame -> arrays, read by the comparisons and the figures), ``figures.py``, ``simulate.py``
(``flt simulate``), ``declaration.py`` (experiments, claims, ``SYSTEM``)."""
