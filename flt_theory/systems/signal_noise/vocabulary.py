r"""The names of the signal-noise system, declared once (:mod:`flt_theory.systems.vocabulary`).

``flt simulate signal-noise`` is parametrised by the natural quantities :math:`\|\mu\|` (``--mu-norm``),
:math:`\sigma_0` (``--sigma0``) and :math:`\eta` (``--eta``); the experiments by quantities that keep a point's regime
as :math:`d` grows, each for a reason. Each is converted (:class:`~flt_theory.systems.vocabulary.Conversion`), so
``--law "mu_norm* ~ ..."``, ``--over``/``--fix mu_norm=...`` read these experiments too:

* ``signal-noise/label-noise`` takes :math:`n\,\mathrm{SNR}^2` (the axis of the benign/harmful boundary):
  :math:`\mathrm{SNR} = \sqrt{n\mathrm{SNR}^2/n}` and :math:`\|\mu\| = \mathrm{SNR}\,\sigma_\xi\sqrt d` with
  :math:`\sigma_\xi = 1`, so :math:`\|\mu\| = (n\mathrm{SNR}^2\, d / n)^{1/2}`;
* ``signal-noise/growth`` takes :math:`\mathrm{SNR}`: :math:`\|\mu\| = \mathrm{SNR}\sqrt d`;
* every experiment takes :math:`s_0 = \sigma_0\sqrt d`: :math:`\sigma_0 = s_0 d^{-1/2}`;
* ``boundary``, ``error-curve`` and ``growth`` take the step in units of :math:`nm/d`: :math:`\eta =
  c\,n\,m/d` (``eta_scale`` :math:`c`, ``width`` :math:`m`; the label-noise step, :math:`c\min(nm/d,
  m/\|\mu\|^2)`, is no monomial and is not converted).
"""

from __future__ import annotations

from ..vocabulary import Conversion, Observable, Observables, Vocabulary, from_fields
from .simulate import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_BOUNDARY, _CURVE = "signal-noise/boundary", "signal-noise/error-curve"
_GROWTH, _LABEL = "signal-noise/growth", "signal-noise/label-noise"


def _o(name: str, meaning: str, unit: str, *experiments: str) -> Observable:
    return Observable(name, meaning, unit, experiments=experiments)


VOCABULARY = Vocabulary(
    observables=Observables(
        *from_fields(RECORD_FIELDS, {"mu_norm": (_GROWTH,), "snr": (_LABEL,), "sigma_xi": (_GROWTH,),
                                     "eta": (_GROWTH, _LABEL), "steps": (_LABEL,),
                                     "q": (), "train_loss": (), "test_error": (), "gamma_max": (), "rho_max": (),
                                     "flipped_fitted": ()}),
        _o("snr_star", "the boundary SNR*: the SNR at which the final test error crosses 'level' (bisected; NaN when "
           "[snr_low, snr_high] does not straddle it)", "1", _BOUNDARY),
        _o("mu_star", "||mu|| at the boundary: snr_star * sigma_xi sqrt(d)", "units of x", _BOUNDARY),
        _o("snr_{i}", "the SNR of the i-th point of the phase-diagram grid", "1", _BOUNDARY),
        _o("err_{i}", "final test error at the i-th grid point (of SNR, or of X = n||mu||^4/(sigma_xi^4 d))",
           "fraction", _BOUNDARY, _CURVE),
        _o("x_{i}", "X = n||mu||^4/(sigma_xi^4 d) at the i-th point of the error curve", "1", _CURVE),
        _o("early_steps", "steps of the early phase the slopes are fitted over", "steps", _GROWTH),
        _o("gamma_slope", "early-phase slope of the largest signal coefficient gamma per step", "1", _GROWTH),
        _o("rho_slope", "early-phase slope of the noise coefficient rho_bar per step", "1", _GROWTH),
        _o("signal_exponent", "log-log slope of the per-step increase of A on A for the neuron with the largest A",
           "1", _GROWTH),
        _o("noise_exponent", "the same log-log slope for the noise inner product B", "1", _GROWTH),
        _o("gamma_exponent", "the same log-log slope for gamma of that neuron alone (the literal recursion)", "1",
           _GROWTH),
        _o("step_{i}", "the step of the i-th recorded point of the trajectory", "steps", _GROWTH, _LABEL),
        _o("gamma_{i}", "largest signal coefficient gamma at step_i", "1", _GROWTH),
        _o("rho_{i}", "noise coefficient rho_bar at step_i", "1", _GROWTH),
        _o("error_{i}", "test error at step_i", "fraction", _LABEL),
        _o("fitted_{i}", "fraction of the flipped training labels fitted at step_i", "fraction", _LABEL),
        _o("final_error", "test error at the stop (stage II)", "fraction", _LABEL),
        _o("min_error", "minimum test error over the recorded steps (the early-stopped stage I)", "fraction", _LABEL),
        _o("rise", "final_error - min_error", "fraction", _LABEL),
        _o("fitted_at_min", "fraction of the flipped labels fitted at the step of min_error", "fraction", _LABEL),
        _o("fitted_final", "fraction of the flipped labels fitted at the stop", "fraction", _LABEL),
    ),
    conversions=(
        Conversion("mu_norm", _LABEL, "n_snr2", {"n_snr2": 0.5, "d": 0.5, "n": -0.5},
                   why="the boundary's axis is n SNR^2; SNR = sqrt(n_snr2/n), ||mu|| = SNR sqrt(d) (sigma_xi = 1)"),
        Conversion("mu_norm", _GROWTH, "snr", {"snr": 1.0, "d": 0.5}, why="||mu|| = SNR sqrt(d) (sigma_xi = 1)"),
        *(Conversion("sigma0", e, "sigma0_sqrt_d", {"sigma0_sqrt_d": 1.0, "d": -0.5},
                     why="the initialisation scale times sqrt(d) keeps its regime as d grows")
          for e in (_BOUNDARY, _CURVE, _GROWTH, _LABEL)),
        *(Conversion("eta", e, "eta_scale", {"eta_scale": 1.0, "n": 1.0, "width": 1.0, "d": -1.0},
                     why="the step in units of nm/d keeps its regime as n, m, d change")
          for e in (_BOUNDARY, _CURVE, _GROWTH)),
    ),
    controls={"trajectory": "print the training trajectory of every run (step records)",
              "project": "whether the run used the exact reduced (projected) dynamics, chosen by the command"},
    units={"eps": "nats"},
)
