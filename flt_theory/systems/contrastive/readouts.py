r"""Reading a contrastive claim's stored frame back into what the comparisons of :mod:`.declaration` and the
figures of :mod:`.figures` both read (one place, so that a figure draws exactly what its check compared).

The frame is ``contrastive/train`` at one point or along a ladder of :math:`n`, one row per point and seed
(:mod:`.model`; Huang, Han, Chen, Cao, Xu, Suzuki 2024, arXiv 2411.02837): overlaps :math:`\Gamma_T`,
:math:`\Xi` and the probe error at the stop :math:`T` and at the end of training.

* :func:`rows_by_n`: the rows of each measured :math:`n` (each rung of a ladder), ascending;
* :func:`setting`: the setting a frame was measured in (modality, :math:`n`, :math:`d`, :math:`n\,\mathrm{SNR}^2`,
  :math:`C_\mu`), read from its first row.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["rows_by_n", "setting"]


def rows_by_n(frame: pd.DataFrame) -> list[tuple[int, pd.DataFrame]]:
    """``(n, rows)`` per measured ``n``, ascending.

    >>> frame = pd.DataFrame({"n": [16, 8, 16], "seed": [0, 0, 1], "signal_T": [0.1, 0.2, 0.3]})
    >>> [(n, len(rows)) for n, rows in rows_by_n(frame)]
    [(8, 1), (16, 2)]
    """
    return [(n, frame[frame["n"] == n]) for n in sorted(int(v) for v in frame["n"].unique())]


def setting(frame: pd.DataFrame) -> dict[str, Any]:
    r"""``mode``, ``n``, ``d``, ``n_snr2`` and ``c_mu`` of the frame's first row."""
    first = frame.iloc[0]
    return {key: first[key] for key in ("mode", "n", "d", "n_snr2", "c_mu")}
