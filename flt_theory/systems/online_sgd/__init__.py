"""Online SGD on single-index targets (Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409).

``laws.py`` (sympy only): the weak-recovery time exponent from the information exponent, and its regime;
``model.py`` (torch only): spherical online SGD in exact reduced coordinates, and the literal d-dimensional one;
``smoothing.py`` (torch only): the smoothed loss of Damian, Nichani, Ge, Lee 2023 (arXiv 2305.10633) in closed form.
``multi_index.py`` (torch only), ``leap_laws.py`` (sympy only), ``leap_claims.py``: a two-layer mean-field network on
multi-index targets, the leap law and the learned order (Abbe, Boix-Adserà, Misiakiewicz 2023, arXiv 2302.11055);
``verify.py``: ``flt verify TARGET --algorithm online-sgd`` (a link's weak-recovery exponent, checked by simulation).
"""
