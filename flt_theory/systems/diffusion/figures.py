r"""Figure of the diffusion claims, drawn from the claim's stored measurement (no re-simulation), read through
:mod:`.readouts` (the same arrays the comparisons read).

``balanced-vs-dominant``: the denoiser's feature ratio :math:`R = |\langle w, \mu\rangle|/|\langle w, \xi\rangle|`
and the classification CNN's :math:`\gamma/\rho` against :math:`n\,\mathrm{SNR}^2` (geometric mean, min–max over
seeds), with the balanced law :math:`R \asymp n\,\mathrm{SNR}^2/2` and its wrong law, and the CNN's noise
(:math:`n\,\mathrm{SNR}^2 \le \underline C`) and signal (:math:`\ge \bar C`) regions shaded (Han, Huang, Cao, Zou
2025, arXiv 2412.01021). Drawn on a matplotlib ``Figure`` handed over by the report (object API; nothing global).
"""

from __future__ import annotations

import numpy as np

from .laws import dominant_law
from .readouts import alignment_bands

__all__ = ["draw_balanced"]


def draw_balanced(fig, frame, law, wrong_law, check, control) -> None:
    """Denoiser ratio R and the CNN's γ/ρ against n·SNR², with the law n·SNR²/2 and the wrong law."""
    ax = fig.subplots()
    for which, label, colour, marker in (("denoiser", "denoiser |<w,μ>|/|<w,ξ>|", "#1f4e9c", "o"),
                                         ("classification", "classification CNN γ/ρ", "#c2255c", "s")):
        x, geo, low, high = alignment_bands(frame, which)
        ax.errorbar(x, geo, yerr=[geo - low, high - geo], fmt=marker, color=colour, capsize=3,
                    label=f"measured: {label} (min–max over seeds)")
    grid = np.geomspace(frame["n_snr2"].min(), frame["n_snr2"].max(), 50)
    for used, ls, colour in ((law, "--", "#d9480f"), (wrong_law, ":", "#7a7a7a")):
        k = float(used.exponent("n"))
        ax.plot(grid, grid**k / 2, ls, color=colour, lw=2 if used is law else 1.5,
                label=f"{used.name}: (n·SNR²)^{k:g}/2")
    ax.axvspan(grid[0], float(dominant_law().numbers()[0]), color="#c2255c", alpha=0.05)
    ax.axvspan(10.0, grid[-1], color="#2b8a3e", alpha=0.05)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n · SNR²")
    ax.set_ylabel("signal / noise alignment")
    ax.set_title(f"diffusion (balanced) vs classification (dominant), d = {int(frame['d'].iloc[0])}, "
                 f"{frame['seed'].nunique()} seeds; shaded: n·SNR² ≤ C̲ = 2 and ≥ C̄ = 10", fontsize=8)
    ax.legend(fontsize=7)
