"""Single- vs multi-modal contrastive learning on signal-noise data (Huang, Han, Chen, Cao, Xu, Suzuki 2024,
arXiv 2411.02837): ``laws.py`` (sympy), ``model.py`` (torch), ``declaration.py`` (``SYSTEM``)."""
