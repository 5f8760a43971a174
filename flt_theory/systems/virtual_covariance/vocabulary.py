"""The names of the virtual-covariance system, declared once (:mod:`flt_theory.systems.vocabulary`).

A record of ``flt simulate virtual-covariance`` holds one layer: its ``residual`` is the
``residual_l{l}`` that ``virtual-covariance/residual`` stores for layer ``l``. ``--theorem3`` runs
``virtual-covariance/theorem3`` instead; its ``--nets`` random nets are that experiment's seeds."""

from __future__ import annotations

from ..vocabulary import Observable, Observables, Vocabulary, from_fields
from .simulate import RECORD_FIELDS

__all__ = ["VOCABULARY"]

_RESIDUAL, _THEOREM3 = ("virtual-covariance/residual",), ("virtual-covariance/theorem3",)
_TRAINING = ("virtual-covariance/training",)


def _o(name: str, meaning: str, unit: str, experiments: tuple[str, ...]) -> Observable:
    return Observable(name, meaning, unit, experiments=experiments)


VOCABULARY = Vocabulary(
    observables=Observables(
        *from_fields(RECORD_FIELDS, {
            **{name: _THEOREM3 for name in ("elements", "strict_violations", "weak_violations",
                                            "sign_strict_violations", "sign_weak_violations", "max_ratio",
                                            "max_ratio_low", "max_ratio_high")},
            "layer": (), "lipschitz": (), "bound": (), "corrected_bound": (), "corrected_weak_violations": ()}),
        _o("residual_l{l}", "||W_l+^T W_l+ - W_l^T W_l - [cov(H_l+) - cov(H_l)]||_F at layer l", "squared units of W",
           _RESIDUAL),
        _o("c_weight_l{l}", "coefficient of the weight-covariance change fitted at layer l", "1", _RESIDUAL),
        _o("c_virtual_l{l}", "coefficient of the virtual-covariance change fitted at layer l", "1", _RESIDUAL),
        _o("misfit_l{l}", "relative misfit of that fit at layer l", "1", _RESIDUAL),
        _o("degenerate_l{l}", "1 when every gradient of layer l vanishes (e.g. all ReLU outputs dead)", "1",
           _RESIDUAL),
        _o("rounding_l{l}", "float64 resolution of the comparison at layer l: "
           "eps (||W^T W||_F + ||H^T H||_F) / ||R||_F", "1", _RESIDUAL),
        _o("zero_dh", "elements with d h_i = 0, where no strict bound holds", "count", _THEOREM3),
        _o("loss_0", "training loss at initialisation", "1", _TRAINING),
        _o("loss_gd", "training loss after 'steps' steps of GD", "1", _TRAINING),
        _o("loss_vcl", "training loss after 'steps' steps of VCL", "1", _TRAINING),
    ),
    record_fields={"residual": "residual_l{l}"},
    controls={"theorem3": "run the Theorem 3 check (virtual-covariance/theorem3) instead of the residual",
              "nets": "random nets of the Theorem 3 check: the seeds of virtual-covariance/theorem3"},
)
