r"""The weak-recovery times of a stored online-SGD measurement, as the claims compare them and the figures draw them.

Per seed and :math:`d`: the samples to overlap 1/2 (``steps``; the step limit where censored, so that the seed mean
is the restricted mean :math:`\mathbb E\min(T, T_{\max})`), optionally plus the next-order term :math:`B\,d^{k/2}`
of the mean time that the theory predicts (:func:`~.laws.escape_correction`; Ben Arous, Gheissari, Jagannath 2021,
arXiv 2003.10409, for the drift), divided by the law's non-power factor (e.g. :math:`\log d`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import InvalidParameterError
from ...symbolic.law import Law
from ..frames import seed_table
from .laws import escape_correction, link_exponent

__all__ = ["escape_term", "recovery_times"]


def escape_term(frame: pd.DataFrame, ds: np.ndarray) -> np.ndarray:
    r""":math:`B\,d^{k/2}` at each :math:`d` of ``ds`` (:func:`~.laws.escape_correction`) for the frame's link and
    :math:`\tilde\eta` (one of each per measurement).

    >>> frame = pd.DataFrame({"target": ["He3(z)"] * 2, "eta_tilde": [0.05] * 2, "d": [64, 256]})
    >>> escape_term(frame, np.array([64.0, 256.0])).round(2).tolist()
    [825.28, 6602.27]
    """
    target, eta_tilde = (frame[c].drop_duplicates() for c in ("target", "eta_tilde"))
    if len(target) != 1 or len(eta_tilde) != 1:
        raise InvalidParameterError("The escape correction needs one target and one eta_tilde per measurement. Got "
                                    f"{list(target)} and {list(eta_tilde)} instead.")
    link = str(target.iloc[0])
    return escape_correction(link, float(eta_tilde.iloc[0])) * np.asarray(ds, float) ** (link_exponent(link) / 2)


def recovery_times(frame: pd.DataFrame, rest: Law, escape: bool = False,
                   column: str = "steps") -> tuple[np.ndarray, np.ndarray]:
    r"""``(ds, table)``: the distinct :math:`d` (ascending) and the times of the module docstring, ``(seeds, ds)``;
    ``rest`` is the law's non-power factor (:func:`~.laws.split_law`), ``escape`` adds :math:`B\,d^{k/2}`
    (:func:`escape_term`) before dividing; ``column``: ``"steps"`` (samples) or ``"iterations"`` (gradient steps,
    which differ with batches or repeated passes)."""
    ds, table = seed_table(frame, "d", column)
    if escape:
        table = table + escape_term(frame, ds)
    return ds, table / np.array([rest.number(d=float(d)) for d in ds])
