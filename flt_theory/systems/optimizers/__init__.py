"""Training choices on signal-noise data: GD, Adam, sign-GD, SAM and label-noise GD on the two-layer CNN (Zou, Cao, Li,
Gu 2023, arXiv 2108.11371; Chen, Zhang, Kou, Chen, Hsieh, Gu 2023, arXiv 2310.07269; Huang, Han, Song, Chen, Wu, Zou,
Suzuki 2025): :mod:`.laws` (sympy), :mod:`.model` (torch), :mod:`.figures` and :mod:`.declaration` (``SYSTEM``, found
by discovery).
"""
