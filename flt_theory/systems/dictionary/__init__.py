"""Dictionary-learning inputs: emergence and advantage over fixed features (Shi, Wei, Liang 2022)."""
