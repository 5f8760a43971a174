"""Online SGD on single-index targets (Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409).

``laws.py`` (sympy only): the weak-recovery time exponent from the information exponent, and its regime;
``model.py`` (torch only): spherical online SGD in exact reduced coordinates, and the literal d-dimensional one;
``smoothing.py`` (torch only): the smoothed loss of Damian, Nichani, Ge, Lee 2023 (arXiv 2305.10633) in closed form.
"""
