r"""Figures of the contrastive claims, drawn from the claim's stored measurement (no re-simulation).

Each figure shows the per-seed values of the compared quantity (one point per seed, the mean and its 95% interval), the
region the law allows and the region of the wrong law (the negative control)
(:func:`flt_theory.systems.levels.draw_levels`), titled with the claim's setting (:func:`.readouts.setting`). Drawn on a
matplotlib ``Figure`` handed over by the report (object API; nothing global).
"""

from __future__ import annotations

from .. import levels
from .readouts import setting

__all__ = ["draw_levels"]


def draw_levels(fig, frame, law, wrong_law, check, control, *, column: str, tolerance: float, label: str,
                log: bool = False) -> None:
    """Per-seed values of ``column`` against the law's region and the wrong law's region."""
    levels.draw_levels(fig, frame, law, wrong_law, check, control, column=column, tolerance=tolerance, label=label,
                       log=log)
    first = setting(frame)
    fig.axes[0].set_title(f"{first['mode']}-modal, n = {first['n']}, d = {first['d']}, "
                          f"n·SNR² = {first['n_snr2']:g}, C_μ = {first['c_mu']:g}", fontsize=10)
