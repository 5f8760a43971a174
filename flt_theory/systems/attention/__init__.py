"""Single-head softmax attention on signal-noise tokens (Jiang, Huang, Zhang, Suzuki, Nie 2024, arXiv 2409.19345):
``laws.py`` (sympy), ``model.py`` (torch), ``declaration.py`` (``SYSTEM``)."""
