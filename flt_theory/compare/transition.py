r"""Phase transitions of an order parameter :math:`m(\kappa)` measured at several sizes :math:`d`.

Data: a grid ``kappas`` of shape ``(kappas,)`` (strictly increasing) and, for each :math:`d`, a
curve of shape ``(seeds, kappas)``. Two estimators of the transition point, both on the mean
curve over seeds and both with a bootstrap CI over seeds (:mod:`.bootstrap`):

* :func:`crossing_point` — where the mean curve crosses a ``level`` (e.g. 1/2 of the jump);
* :func:`curves_crossing` — where the mean curves of two sizes intersect. In finite-size scaling
  :math:`m \approx \Phi((\kappa - \kappa^*)\, d^{1/\nu})`, so curves of all :math:`d` meet at
  :math:`\kappa^*` and the larger :math:`d` is the steeper one there.

**Which crossing.** Noise makes a difference curve :math:`\Delta(\kappa)` (curve minus level, or
large-:math:`d` minus small-:math:`d`) flicker around 0 in the flat tails. We split the grid where
the weight of :math:`\Delta` after the split minus its weight before it is largest in magnitude:
with :math:`S_j = \sum_{i \le j} \Delta_i\, \delta\kappa_i`, the cell :math:`[\kappa_j,
\kappa_{j+1}]` maximising :math:`|S_j - S_{K-1}/2|` (a CUSUM change point). An interior maximum
always sits on a sign change of :math:`\Delta`, and the global one is the change with the most
weight on both sides, not a tail flicker; the location inside the cell is linear interpolation.
If there is no sign change there, the curve does not cross on the grid: for the data this raises
:class:`NoCrossingError`; for a bootstrap replicate it gives ``+inf`` (still on the pre-crossing
side: the crossing lies right of the grid) or ``-inf`` (left of it), so the interval honestly
reaches beyond the grid.

**p-value** (``details["p_value"]``): the largest :math:`\alpha` at which the threshold still
lies in the crossing's interval formed at confidence :math:`1-\alpha` from the same replicates
(:mod:`.family`); 0 when sharpening is required and absent, since the check then fails at every
level (sharpening compares point estimates, it is not a test with a level).

**Verdict** (:func:`check_transition`): PASSES iff the predicted threshold lies in the CI
(widened by ``tolerance``) of the crossing of the **largest** size (``level`` given) or of the two
largest sizes (``level=None``), the estimates closest to the large-:math:`d` limit, AND, unless
``require_sharpening=False``, the curves sharpen with :math:`d`. Sharpening compares the point
estimates of :math:`|\partial_\kappa \bar m|` (central differences, interpolated) at the
crossing: strictly increasing in :math:`d` at the level crossings, or larger for the larger
:math:`d` at each pairwise crossing. A wrong threshold (1 when the data switch at 2) therefore
fails on the CI, and curves that do not sharpen fail as "no transition".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_int, check_real
from ..errors import FLTError, InvalidParameterError, InvalidParameterTypeError
from ._arrays import as_array, check_nonnegative, check_options
from .bootstrap import Estimate, RngLike, as_generator, bootstrap_distribution
from .family import p_value_by_inversion
from .result import CheckResult, fmt, fmt_ci, make_assert, make_result, within

__all__ = [
    "NoCrossingError",
    "crossing_point",
    "curves_crossing",
    "check_transition",
    "assert_transition",
]


class NoCrossingError(FLTError, ValueError):
    """The mean curve does not cross (the level, or the other curve) anywhere on the grid."""


def _grid(kappas: ArrayLike, caller: str) -> np.ndarray:
    kappas = as_array(kappas, "kappas", caller, shape="(kappas,)", min_len=2)
    if np.any(np.diff(kappas) <= 0):
        raise InvalidParameterError(
            f"The 'kappas' parameter of {caller} must be strictly increasing. Got {kappas.tolist()} instead."
        )
    return kappas


def _curve(values: ArrayLike, name: str, kappas: np.ndarray, caller: str) -> np.ndarray:
    values = as_array(values, name, caller, shape="(seeds, kappas)", min_len=2)
    if values.shape[1] != len(kappas):
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller} must have shape (seeds, {len(kappas)}) to match kappas. "
            f"Got shape {values.shape} instead."
        )
    return values


def _crossings(kappas: np.ndarray, diff: np.ndarray, left_sign: float) -> tuple[np.ndarray, np.ndarray]:
    """Dominant zero of ``diff`` (batch, kappas) per row, ±inf off the grid; and the sign before it."""
    running = np.cumsum(diff * np.gradient(kappas), axis=-1)
    contrast = running[:, :-1] - running[:, -1:] / 2  # (sum after the split - sum before it) / -2
    j = np.argmax(np.abs(contrast), axis=-1)
    rows = np.arange(len(diff))
    before, after = diff[rows, j], diff[rows, j + 1]
    step = before - after
    fraction = np.divide(before, step, out=np.zeros_like(before), where=step != 0)
    at = kappas[j] + fraction * (kappas[j + 1] - kappas[j])
    beyond = np.where(np.sign(running[:, -1]) == left_sign, np.inf, -np.inf)
    return np.where(before * after <= 0, at, beyond), np.sign(contrast[rows, j])


def _locate(
    kappas: np.ndarray,
    groups: list[np.ndarray],
    difference: Callable[..., np.ndarray],
    what: str,
    confidence: float,
    n_resamples: int,
    rng: RngLike,
) -> Estimate:
    diff = difference(*(g[None] for g in groups))
    at, sign = _crossings(kappas, diff, 0.0)
    if not np.isfinite(at[0]):
        raise NoCrossingError(
            f"{what} never cross(es) on kappas in [{fmt(kappas[0])}, {fmt(kappas[-1])}]: the difference "
            f"stays in [{fmt(diff.min())}, {fmt(diff.max())}]."
        )
    dist = bootstrap_distribution(
        groups,
        lambda *batches: _crossings(kappas, difference(*batches), sign[0])[0],
        n_resamples=n_resamples,
        rng=rng,
    )
    low, high = dist(confidence)
    return Estimate(float(dist.point), low, high, confidence, dist.n_seeds, "bootstrap", None, dist)


def crossing_point(
    kappas: ArrayLike,
    values: ArrayLike,
    level: float,
    *,
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
) -> Estimate:
    r"""Where the mean curve crosses ``level``, with a bootstrap CI over seeds.

    Parameters
    ----------
    kappas : array_like, shape (kappas,)
        Strictly increasing grid, at least 2 points.
    values : array_like, shape (seeds, kappas)
        Order parameter per seed, at least 2 seeds.
    level : float
        The level whose crossing marks the transition.
    confidence, n_resamples, rng
        Bootstrap options (see :func:`~flt_theory.compare.bootstrap.bootstrap_groups`).

    Returns
    -------
    Estimate
        Ends may be ``±inf`` when replicates cross beyond the grid.

    Raises
    ------
    NoCrossingError
        The mean curve does not cross ``level`` on the grid.

    Examples
    --------
    >>> kappas = np.linspace(0.0, 4.0, 41)
    >>> m = np.tile(1 / (1 + np.exp(-4 * (kappas - 2))), (5, 1))
    >>> round(crossing_point(kappas, m, 0.5).value, 6)
    2.0
    """
    caller = "crossing_point"
    confidence, n_resamples = check_options(confidence, n_resamples, caller)
    kappas = _grid(kappas, caller)
    values = _curve(values, "values", kappas, caller)
    level = check_real(level, "level", caller=caller)
    return _locate(
        kappas,
        [values],
        lambda batch: batch.mean(axis=1) - level,
        f"the mean curve (level {fmt(level)})",
        confidence,
        n_resamples,
        rng,
    )


def curves_crossing(
    kappas: ArrayLike,
    curve_small_d: ArrayLike,
    curve_large_d: ArrayLike,
    *,
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
) -> Estimate:
    r"""Where the mean curves of two sizes intersect (the finite-size-scaling transition point).

    The two curves' seeds are independent and are resampled separately.

    Parameters
    ----------
    kappas : array_like, shape (kappas,)
        Strictly increasing grid, at least 2 points.
    curve_small_d, curve_large_d : array_like, shape (seeds, kappas)
        The order parameter at the smaller and the larger size (seed counts may differ).
    confidence, n_resamples, rng
        Bootstrap options.

    Returns
    -------
    Estimate

    Raises
    ------
    NoCrossingError
        The mean curves do not intersect on the grid.

    Examples
    --------
    >>> kappas = np.linspace(0.0, 4.0, 41)
    >>> small, large = (np.tile(1 / (1 + np.exp(-s * (kappas - 2))), (5, 1)) for s in (2, 8))
    >>> round(curves_crossing(kappas, small, large).value, 6)
    2.0
    """
    caller = "curves_crossing"
    confidence, n_resamples = check_options(confidence, n_resamples, caller)
    kappas = _grid(kappas, caller)
    small = _curve(curve_small_d, "curve_small_d", kappas, caller)
    large = _curve(curve_large_d, "curve_large_d", kappas, caller)
    return _locate(
        kappas,
        [small, large],
        lambda s, b: b.mean(axis=1) - s.mean(axis=1),
        "the two mean curves",
        confidence,
        n_resamples,
        rng,
    )


def _steepness(kappas: np.ndarray, curve: np.ndarray, at: float) -> float:
    return float(abs(np.interp(at, kappas, np.gradient(curve.mean(axis=0), kappas))))


def check_transition(
    kappas: ArrayLike,
    curves_by_d: Mapping[int, ArrayLike],
    predicted_threshold: float,
    *,
    level: float | None = None,
    tolerance: float = 0.0,
    require_sharpening: bool = True,
    name: str = "transition",
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
) -> CheckResult:
    r"""Check that the order parameter switches at ``predicted_threshold`` and sharpens with :math:`d`.

    Parameters
    ----------
    kappas : array_like, shape (kappas,)
        Strictly increasing grid.
    curves_by_d : mapping int -> array_like of shape (seeds, kappas)
        One curve per size :math:`d`; at least 2 sizes unless ``level`` is given and
        ``require_sharpening=False``.
    predicted_threshold : float
        The theory's :math:`\kappa^*`.
    level : float, optional
        If given, locate the transition where each mean curve crosses ``level``; if None, where
        the curves of successive sizes intersect.
    tolerance : float
        Absolute slack in :math:`\kappa` (finite-size shift), >= 0.
    require_sharpening : bool
        Whether the verdict also demands steeper curves at larger :math:`d`.
    name : str
        Label of the check.
    confidence, n_resamples, rng
        Bootstrap options; one generator is drawn from ``rng`` and shared by all crossings.

    Returns
    -------
    CheckResult
        ``measured``/``ci``: the crossing of the largest size(s). ``details``: ``crossings`` (every
        size or pair: value, low, high), ``steepness``, ``sharpens``, ``p_value`` (module
        docstring). If a mean curve never crosses, the result FAILS with ``measured = nan`` and
        no p-value.

    Examples
    --------
    >>> kappas = np.linspace(0.5, 3.5, 31)
    >>> rng = np.random.default_rng(0)
    >>> curves = {d: 1 / (1 + np.exp(-np.sqrt(d) / 2 * (kappas - 2))) + 0.02 * rng.standard_normal((8, 31))
    ...           for d in (64, 256, 1024)}
    >>> check_transition(kappas, curves, 2.0).passed, check_transition(kappas, curves, 1.0).passed
    (True, False)
    """
    caller = "check_transition"
    confidence, n_resamples = check_options(confidence, n_resamples, caller)
    predicted = check_real(predicted_threshold, "predicted_threshold", caller=caller)
    tolerance = check_nonnegative(tolerance, "tolerance", caller)
    kappas = _grid(kappas, caller)
    if not isinstance(curves_by_d, Mapping):
        raise InvalidParameterTypeError(
            f"The 'curves_by_d' parameter of {caller} must be a mapping d -> array of shape (seeds, kappas). "
            f"Got {type(curves_by_d).__name__} instead."
        )
    ds = sorted(check_int(d, "curves_by_d key", minimum=1, caller=caller) for d in curves_by_d)
    needed = 2 if level is None or require_sharpening else 1
    if len(ds) < needed:
        raise InvalidParameterError(
            f"The 'curves_by_d' parameter of {caller} must hold at least {needed} sizes "
            f"(level={level}, require_sharpening={require_sharpening}). Got sizes {ds} instead."
        )
    curves = {d: _curve(curves_by_d[d], f"curves_by_d[{d}]", kappas, caller) for d in ds}
    level = None if level is None else check_real(level, "level", caller=caller)
    n_seeds = min(len(c) for c in curves.values())
    generator = as_generator(rng)  # one stream for every crossing, in order
    steepness: dict[str, tuple[float, ...]] | dict[str, float]
    try:
        if level is None:  # keys "d-d'" for successive sizes
            pairs = {f"{a}-{b}": (a, b) for a, b in zip(ds, ds[1:])}
            crossings = {
                key: curves_crossing(kappas, curves[a], curves[b], confidence=confidence, n_resamples=n_resamples,
                                     rng=generator)
                for key, (a, b) in pairs.items()
            }
            steepness = {
                key: tuple(_steepness(kappas, curves[e], crossings[key].value) for e in pair)
                for key, pair in pairs.items()
            }
            sharpens = all(small < large for small, large in steepness.values())
        else:  # keys "d"
            crossings = {
                str(d): crossing_point(kappas, curves[d], level, confidence=confidence, n_resamples=n_resamples,
                                       rng=generator)
                for d in ds
            }
            steepness = {str(d): _steepness(kappas, curves[d], crossings[str(d)].value) for d in ds}
            slopes = list(steepness.values())
            sharpens = all(small < large for small, large in zip(slopes, slopes[1:]))
    except NoCrossingError as exc:
        return make_result(
            name=name,
            passed=False,
            predicted=predicted,
            measured=float("nan"),
            ci=(float("nan"), float("nan")),
            n_seeds=n_seeds,
            summary=f"no transition on the grid: {exc}",
        )
    largest = list(crossings)[-1]
    primary = crossings[largest]
    shape_ok = sharpens or not require_sharpening
    p_value = (
        p_value_by_inversion(lambda level: within(predicted, *primary.at(level), tolerance)) if shape_ok else 0.0
    )
    return make_result(
        name=name,
        passed=within(predicted, primary.low, primary.high, tolerance) and shape_ok,
        predicted=predicted,
        measured=primary.value,
        ci=primary.ci,
        n_seeds=n_seeds,
        summary=f"crossing (d={largest}) {fmt(primary.value)} {fmt_ci(primary.ci)} vs predicted {fmt(predicted)}"
        + (f" ± {fmt(tolerance)}" if tolerance else "")
        + (f"; sharpens with d: {'yes' if sharpens else 'NO'}" if require_sharpening
           else f"; sharpening not required (measured: {'sharper' if sharpens else 'not sharper'} at larger d)"),
        details={
            "crossings": {key: (e.value, e.low, e.high) for key, e in crossings.items()},
            "steepness": steepness,
            "sharpens": sharpens,
            "level": level,
            "tolerance": tolerance,
            "p_value": p_value,
        },
    )


assert_transition = make_assert(check_transition)
