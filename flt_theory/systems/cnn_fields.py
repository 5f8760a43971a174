"""Record fields shared by the systems that train the signal-noise CNN (:mod:`flt_theory.numeric.signal_noise`):
``flt simulate signal-noise`` and ``flt simulate signal-noise-optimizers`` report the same run columns, declared
here once (a module beside the system folders, as :mod:`.frames` and :mod:`.levels`: systems do not import each
other)."""

from __future__ import annotations

from .declaration import RecordField

__all__ = ["CNN_RECORD_FIELDS"]

#: The columns of one CNN run, whatever the optimizer.
CNN_RECORD_FIELDS = (
    RecordField("n", "training samples", "count"),
    RecordField("d", "dimension", "count"),
    RecordField("width", "filters per class m", "count"),
    RecordField("q", "power of the activation ReLU^q (1: ReLU)", "1"),
    RecordField("mu_norm", "signal norm ||mu||", "units of x"),
    RecordField("snr", "SNR = ||mu|| / (sigma_xi sqrt d)", "1"),
    RecordField("sigma_xi", "noise scale sigma_xi", "units of x"),
    RecordField("sigma0", "initialisation scale sigma_0", "units of w"),
    RecordField("eta", "step size", "1"),
    RecordField("eps", "stopping level of the training loss", "nats"),
    RecordField("seed", "the run's seed", "index"),
    RecordField("steps", "GD steps taken (the stop: training loss <= eps, or the step limit)", "steps"),
    RecordField("train_loss", "mean training logistic loss at the stop", "nats"),
    RecordField("test_error", "0-1 error on fresh test samples", "fraction"),
    RecordField("gamma_max", "largest signal coefficient max_{j,r} gamma_{j,r}", "1"),
    RecordField("rho_max", "largest noise coefficient max_{j,r,i} rho_{j,r,i}", "1"),
)
