"""Sparse coding + symmetric ReLU: good property sets (Allen-Zhu & Li 2020, arXiv 2005.10190)."""
