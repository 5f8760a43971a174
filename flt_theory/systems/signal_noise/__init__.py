"""Signal-noise data and the two-layer CNN (Cao, Chen, Belkin, Gu 2022, arXiv 2202.06526; Kou, Chen, Chen, Gu 2023,
arXiv 2303.04145; Han et al. 2025, arXiv 2505.18909): :mod:`.laws` (sympy), :mod:`.model` (torch), :mod:`.figures`,
:mod:`.simulate` and :mod:`.declaration` (``SYSTEM``, found by discovery).
"""
