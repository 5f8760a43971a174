"""Giant-step GD on Gaussian multi-index targets (Dandi, Krzakala, Loureiro, Pesce, Stephan 2023,
arXiv 2305.18270): ``laws.py`` (sympy), ``model.py`` (torch), ``declaration.py`` (``SYSTEM``)."""
