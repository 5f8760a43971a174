"""Single- vs multi-modal contrastive learning on signal-noise data (Huang, Han, Chen, Cao, Xu, Suzuki 2024, arXiv
2411.02837): ``laws.py`` (sympy), ``model.py`` (torch), ``readouts.py`` (stored frame -> arrays, read by the comparisons
and the figures), ``figures.py``, ``simulate.py`` (``flt simulate``), ``declaration.py`` (experiments, claims,
``SYSTEM``)."""
