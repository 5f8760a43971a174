r"""The lazy-rich system: one declaration of its experiment, claims and ``flt simulate``.

A two-layer network of width :math:`N` trained by full-batch GD on a fixed small regression task in the NTK
parameterisation (output :math:`N^{-1/2}`, step :math:`O(1)`) and the mean-field one (output :math:`N^{-1}`,
step :math:`O(N)`) (:mod:`.model`). The tutorial slide states :math:`\|W(t) - W(0)\|_F = O(1/\sqrt N)` lazy vs
:math:`\Omega(1)` rich without saying which norm; :mod:`.laws` derives the width exponent of each reading.

Claims (each ONE stored measurement over widths and seeds, compared with its law and its wrong law; the
comparison decides the width exponent of the reading in the limit :math:`N \to \infty` — effective exponents between
adjacent widths, extrapolated — and reads the prediction from ``law.exponent("N")``):

* ``relative-change-ntk`` / ``relative-change-mf``: :math:`\|\Delta W\|_F/\|W(0)\|_F \asymp N^{-1/2}` / :math:`N^0`;
  each control is the other regime's exponent;
* ``per-neuron-change-ntk`` / ``per-neuron-change-mf``: the same for :math:`\frac1N\sum_i\|\Delta w_i\|`;
  each of these four has a ladder of the LOCAL exponent between adjacent widths (:func:`exponent_ladder`, predicted:
  the law's exponent; ``derivations/derive_lazy_rich.py`` gives the rungs and their trend);
* ``raw-frobenius-ntk`` [finding]: the raw :math:`\|\Delta W\|_F` is :math:`\Theta(1)` in the lazy regime; control:
  the slide read literally (raw norm :math:`O(N^{-1/2})`);
* ``raw-frobenius-mf`` [finding]: the raw norm grows like :math:`N^{1/2}` in the rich regime; control: the slide's
  :math:`\Theta(1)`.

Hypotheses (:data:`.laws.WIDE`): the findings are read against the infinite-width limit at fixed training time,
read as :math:`N \ge n` (:func:`hypothesis_values` maps a point to :math:`N` = ``width`` and :math:`n`); every width
of both scales (:math:`N \ge 64 = n`) is inside. Each finding has a ladder over
:math:`N` (:func:`width_ladder`): the raw norm divided by the finding's rate, :math:`\|\Delta W\|_F\,N^{-k}`, whose
literal-statement value is 0 (the slide's rate is :math:`N^{-1/2}` below the finding's in both regimes); a
deviation from 0 that does not shrink along :math:`N` is no finite-width effect
(``derivations/derive_lazy_rich.py`` reads it with :func:`flt_theory.compare.ladder_trend`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ...compare import check_limit_power_law
from ...compare.result import CheckResult
from ...runner.cost import Cost
from ...symbolic.law import THIS_PROJECT, Law
from ..declaration import DEVICE_OPTION, Claim, Measurement, Option, SimulateCommand, System
from ..frames import ladder_by, local_slope_ladder
from . import model
from .experiment import train
from .laws import TUTORIAL, lazy_rich_laws
from .readouts import rescaled, width_table
from .simulate import RECORD_FIELDS, simulate_document, simulate_table

__all__ = ["SIZES", "SYSTEM", "compare_slope", "exponent_ladder", "hypothesis_values", "train", "width_ladder"]

NAME = "lazy-rich"

#: The declared parameters (:data:`.model.PARAMS`): the experiment's converters and defaults, the options' bounds.
P = model.PARAMS

#: Sizes per scale.
SIZES: dict[str, dict[str, Any]] = {
    "small": dict(widths=(64, 128, 256, 512, 1024), steps=60, seeds=32),
    "paper": dict(widths=(64, 128, 256, 512, 1024, 2048, 4096), steps=200, seeds=16),
}
SCALES = tuple(SIZES)

# The width exponents are decided in the limit N -> infinity (flt_theory.compare.check_limit_power_law): the
# finite-width corrections of O(1/sqrt(N)) in the amplitudes shift the slope over these widths by a few hundredths
# (measured at the small scale, 32 seeds: effective exponents of the mean-field per-neuron change -0.022, -0.015,
# -0.002, -0.000 from N = 64 to 1024); the effective exponents between adjacent widths carry them, and their
# extrapolation removes them, with no hand-set tolerance. The ladder doubles N so that the limit has four effective
# exponents at the small scale (three widths a factor 4 apart left the NTK controls unrejected at the catalogue's
# level). 32 seeds at the small scale: with 16 the goal mutant N^(+1/2) of the three NTK claims (their own control's
# rate for two of them) was rejected in 18, 16 and 16 of 20 disjoint seed sets at the catalogue's level, with 24 in
# 19/20 each, with 32 in 20/20 each (seeds 0-639, 2026-12-07); every true law passed in 20/20 at each.


def compare_slope(frame: pd.DataFrame, law: Law, *, reading: str) -> CheckResult:
    r"""The exponent of ``reading`` in the width :math:`N` vs ``law.exponent("N")``, decided in the limit
    :math:`N \to \infty` (:func:`~flt_theory.compare.check_limit_power_law`: effective exponents between adjacent
    widths with paired seeds, extrapolated with corrections to scaling; no tolerance)."""
    widths, y = width_table(frame, reading)
    return check_limit_power_law(widths, y, law.exponent("N"), name=f"{reading} vs width ({law.name})",
                                 variable="N")


def exponent_ladder(frame: pd.DataFrame, *, reading: str, law: str) -> list[dict[str, Any]]:
    r"""Rungs between adjacent widths: the local exponent of ``reading`` in :math:`N` per seed (mean, 95% interval;
    :func:`~flt_theory.systems.frames.local_slope_ladder`) at :math:`\sqrt{N_kN_{k+1}}`, ``predicted`` the exponent
    of the law named ``law`` (the exponent :func:`compare_slope` fits across all widths)."""
    widths, table = width_table(frame, reading)
    return local_slope_ladder(widths, table, name="N", predicted=float(_law(law).exponent("N")))


def hypothesis_values(point: Mapping[str, Any]) -> dict[str, float]:
    """The symbols of the width hypothesis at a normalised point: :math:`N` (``width``), :math:`n`, :math:`d`."""
    return {"N": point["width"], "n": point["n"], "d": point["d"]}


def width_ladder(frame: pd.DataFrame, *, reading: str, exponent: float) -> list[dict[str, Any]]:
    r"""Rungs over the widths of ``frame``: the mean over seeds of ``reading`` times :math:`N^{-k}`, :math:`k` =
    ``exponent`` (the finding's rate), with its 95% interval; ``literal`` 0 (the slide's rate is lower by 1/2)."""
    return ladder_by(frame, "width", functools.partial(rescaled, reading=reading, exponent=exponent),
                     size=lambda width: {"N": width}, literal=0.0)


def _law(name: str) -> Law:
    return lazy_rich_laws()[name]


def _measurement(param: str) -> Measurement:
    return Measurement(experiment="lazy-rich/train", seeds={s: SIZES[s]["seeds"] for s in SCALES},
                       points={s: [{"param": param, "width": w, "steps": SIZES[s]["steps"]} for w in SIZES[s]["widths"]]
                               for s in SCALES}, hypothesis_values=hypothesis_values)


def _claims() -> list[Claim]:
    other = {"ntk": "mf", "mf": "ntk"}
    regime = {"ntk": "NTK (lazy)", "mf": "mean-field (rich)"}

    def other_regime(reading: str, param: str) -> Law:
        return _law(f"{reading} ({param})").replace(
            value=_law(f"{reading} ({other[param]})").value,
            words=f"{reading.replace('_', ' ')} scales as in the {regime[other[param]]} regime")

    claims = []
    for reading, key in (("rel_change", "relative-change"), ("per_neuron_change", "per-neuron-change")):
        for param in ("ntk", "mf"):
            claims.append(Claim(
                name=f"{key}-{param}",
                words=f"{regime[param]}: the {key.replace('-', ' ')} of W scales as "
                      f"N^{_law(f'{reading} ({param})').exponent('N'):g} "
                      "— the reading for which the slide's O(1/√N) vs Ω(1) holds",
                law=functools.partial(_law, f"{reading} ({param})"),
                wrong_law=functools.partial(other_regime, reading, param),
                measurement=_measurement(param), compare=functools.partial(compare_slope, reading=reading),
                ladder=functools.partial(exponent_ladder, reading=reading, law=f"{reading} ({param})")))
    # the raw-norm findings: parameterisation, the slide's statement it contradicts, the finding's rate in N
    findings = (
        ("ntk", "lazy", 0.0, "NTK (lazy): the RAW ‖W(T) − W(0)‖_F is Θ(1), not O(1/√N) — the slide holds only per "
                             "neuron or relative"),
        ("mf", "rich", 0.5, "mean field (rich): the RAW ‖W(T) − W(0)‖_F grows like √N (Ω(1), but not Θ(1))"),
    )
    for param, slide, exponent, words in findings:
        claims.append(Claim(
            name=f"raw-frobenius-{param}", words=words,
            law=functools.partial(_law, f"abs_change ({param})"), wrong_law=functools.partial(_law, f"slide ({slide})"),
            measurement=_measurement(param), compare=functools.partial(compare_slope, reading="abs_change"),
            ladder=functools.partial(width_ladder, reading="abs_change", exponent=exponent)))
    return claims


SYSTEM = System(
    name=NAME, title="Lazy (NTK) vs rich (mean-field) training: how far the first layer moves",
    summary=("A width-N two-layer network trained by GD on a fixed regression task in the NTK and mean-field "
             "parameterisations. ‖W(T) − W(0)‖ read as the raw Frobenius norm, relative to ‖W(0)‖_F and per neuron: "
             "the slide's O(1/√N) (lazy) vs Ω(1) (rich) holds for the relative and per-neuron readings."),
    sources=(TUTORIAL, THIS_PROJECT),
    laws=lambda: list(lazy_rich_laws().values()),
    claims=_claims(),
    experiments=("lazy-rich/train",),
    simulate=SimulateCommand(
        cost=Cost(memory="8*seeds*widths*d + 8*seeds*n*d + 8*seeds*n*widths",
                  work="1e6*steps + steps*seeds*n*widths*d"),
        help=("Train a two-layer network of each width by full-batch GD in the NTK (1/sqrt(N) output, O(1) learning "
              "rate) or mean-field (1/N output, learning rate x N) parameterisation and report how far the first "
              "layer moved: raw Frobenius, relative to ||W(0)||_F and per neuron, with slopes in N."),
        options=(
            Option.of(P["param"]),
            Option.of(P["width"], grid=True, name="widths", dest="widths", default=(64, 256, 1024),
                      help="Widths N, comma-separated."),
            Option.of(P["steps"]),
            Option(name="seeds", kind="int", default=4, minimum=1, help="Independent runs (seeds 0..K-1)."),
            Option.of(P["activation"]), Option.of(P["target"]), Option.of(P["d"]), Option.of(P["n"]),
            Option.of(P["lr"]), DEVICE_OPTION,
        ),
        run=simulate_document,
        table=simulate_table,
        fields=RECORD_FIELDS,
    ),
)
