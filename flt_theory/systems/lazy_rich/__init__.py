"""Lazy (NTK) vs rich (mean-field) training of a two-layer network: how far the first layer moves.

``laws.py`` (sympy only): the width exponents of the raw, relative and per-neuron weight change in each
parameterisation; ``model.py`` (torch only): the network and its full-batch gradient descent.
"""
