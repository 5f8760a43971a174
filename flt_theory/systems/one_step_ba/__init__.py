"""One giant gradient step beats random features (Ba, Erdogdu, Suzuki, Wang, Wu, Yang 2022, arXiv 2205.01445).

``laws.py`` (sympy only): :math:`\\|P_{>1} f^*\\|^2`, the spike alignment law and the regime statement;
``model.py`` (torch only): the two-layer network, its one step and the ridge readouts.
"""
