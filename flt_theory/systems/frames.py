"""Reading a claim's stored measurement: the frame of one runner experiment, one row per point and seed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["per_seed"]


def per_seed(frame: pd.DataFrame, column: str, **where: Any) -> np.ndarray:
    """``column`` at the rows matching ``where`` (floats compared with ``np.isclose``), in seed order, ``(seeds,)``.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"d": [64, 64, 128], "kappa": [1.0, 1.0, 1.0], "seed": [1, 0, 0], "m": [0.2, 0.1, 0.3]})
    >>> per_seed(frame, "m", d=64, kappa=1.0).tolist()
    [0.1, 0.2]
    """
    rows = frame
    for key, value in where.items():
        rows = rows[np.isclose(rows[key].astype(float), float(value))] if isinstance(value, float) else rows[rows[key] == value]
    if rows.empty:
        raise KeyError(f"no measured rows with {where}")
    return rows.sort_values("seed")[column].to_numpy(dtype=float)
