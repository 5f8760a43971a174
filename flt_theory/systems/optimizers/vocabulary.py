"""The names of the signal-noise-optimizers system, declared once (:mod:`flt_theory.systems.vocabulary`): the
observables of ``optimizers/run`` and the fields of ``flt simulate signal-noise-optimizers``'s records."""

from __future__ import annotations

from ..vocabulary import Observables, Vocabulary, from_fields, recorded_by
from .simulate import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_RUN = ("optimizers/run",)


_o = recorded_by(*_RUN)


VOCABULARY = Vocabulary(
    observables=Observables(
        *from_fields(RECORD_FIELDS, {**{name: _RUN for name in ("steps", "train_loss", "test_error", "gamma_max",
                                                                "rho_max", "rho_bar", "train_error")},
                                     "q": (), "snr": ()}),
        _o("eta_run", "the step size the run used (eta, or its default where eta = 0)"),
        _o("sigma0_run", "the initialisation scale the run used (sigma0, or its default where sigma0 = 0)",
           "units of w"),
        _o("noise_rate", "early phase: mean per-step increase of <w_{j,r} - w0_{j,r}, zeta_i> over the pairs with "
           "j = y_i and <w_{j,r}, xi_i> > 0 throughout"),
        _o("signal_rate", "early phase: mean over neurons of |change of <w_{j,r}, mu>| per step"),
        _o("l1_noise", "mean ||zeta_i||_1 of the noise patches", "units of x"),
        _o("step_{i}", "the step of the i-th sample of the trajectory", "steps"),
        _o("loss_{i}", "training loss at step_i", "nats"),
        _o("error_{i}", "test error at step_i", "fraction"),
        _o("gamma_{i}", "largest signal coefficient gamma at step_i"),
        _o("rho_{i}", "largest noise coefficient rho at step_i"),
    ),
    controls={"trajectory": "print the training trajectory of every run (step records)",
              "record_every": "record the printed trajectory every that many steps (the experiment samples its "
                              "trajectory at 'samples' points)"},
    units={"eps": "nats", "sigma0": "units of w"},
)
