"""Denoising score matching against classification on two-patch signal-noise data (Han, Huang, Cao, Zou 2025,
arXiv 2412.01021): ``laws.py`` (sympy), ``model.py`` (torch), ``declaration.py`` (``SYSTEM``)."""
