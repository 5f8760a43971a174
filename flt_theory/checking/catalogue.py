"""The catalogue of claims, generated from the registry (``flt claims``; the repository's ``CLAIMS.md``).

Per claim: its key, the claim in words, its law (words and LaTeX), status (theorem / conjecture /
derived here / finding of this project), source (authors, year, title, arXiv id), regime of
validity, the wrong law of its negative control and the measurement behind both; the source's
hypotheses as conditions (``hypotheses``: text, LaTeX, the sympy condition, where it is stated) and
where the measurement points lie (``in_hypotheses``: ``all`` / ``some`` / ``none`` of the points of both
scales inside them, or ``not stated``; per scale in ``in_hypotheses_by_scale`` and ``scope_by_scale``); whether it
declares a size ladder (``has_ladder``) and, where none applies, why (``no_ladder``).
:func:`catalogue` reads the entries from the registry; :mod:`flt_theory.report.catalogue` writes them as ``CLAIMS.md``.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..report.catalogue import catalogue_document
from ..systems import registry
from ..systems.declaration import SCALES, SCOPES
from .power import recorded_calibration
from .scale_record import load_verdicts, record_markdown

__all__ = ["catalogue", "catalogue_markdown"]


def catalogue(keys: Collection[str] | None = None) -> list[dict[str, Any]]:
    """One JSON-ready entry per registered claim, in registry order; with ``keys``, the entries of the claims whose key
    is one of ``keys`` only (each the same as in the whole catalogue; a check of one system's entries need not compute
    every system's)."""
    registry.check_loaded()
    entries = []
    for system in registry.systems():
        for claim in system.claims:
            if keys is not None and claim.key not in keys:
                continue
            law, wrong = claim.the_law, claim.the_wrong_law
            by_scale = {scale: claim.in_hypotheses(scale) for scale in SCALES}  # each point classified once
            entries.append({
                "key": claim.key,
                "system": system.name,
                "words": claim.words,
                "law": law.text(),
                "latex": law.latex(),
                "status": law.status,
                "source": law.source.to_dict(),
                "regime": law.regime or "; ".join(law.conditions),
                "wrong_law": wrong.text(),
                "wrong_law_latex": wrong.latex(),
                "experiment": claim.measurement.experiment,
                "seeds": dict(claim.measurement.seeds),
                "hypotheses": [h.to_dict() for h in law.hypotheses],
                "hypotheses_reading": law.hypotheses_reading,
                "in_hypotheses": _both_scales(by_scale.values()),
                "in_hypotheses_by_scale": by_scale,
                "scope_by_scale": {scale: SCOPES[label] for scale, label in by_scale.items()},
                "extrapolation_note": claim.extrapolation_note,
                "has_ladder": claim.ladder is not None,
                "no_ladder": claim.no_ladder,
            })
    return entries


def _both_scales(labels: Collection[str]) -> str:
    """The classification of the points of every scale together
    (:func:`~flt_theory.symbolic.hypothesis.classify_points` of their union), from each scale's: ``"not stated"`` where
    none is stated (no hypotheses, or no points anywhere), ``"all"`` / ``"none"`` where every stated scale says so,
    ``"some"`` otherwise.

    >>> _both_scales(["all", "all"]), _both_scales(["all", "none"]), _both_scales(["none", "not stated"])
    ('all', 'some', 'none')
    """
    stated = {label for label in labels if label != "not stated"}
    return stated.pop() if len(stated) == 1 and stated <= {"all", "none"} else "some" if stated else "not stated"


def catalogue_markdown() -> str:
    """``CLAIMS.md``: the systems, their sources, and every claim with its law and negative control
    (:func:`flt_theory.report.catalogue.catalogue_document` of :func:`catalogue`), the recorded calibration and the
    recorded verdicts at each scale."""
    entries = catalogue()
    systems = registry.systems()
    claims = [claim for system in systems for claim in system.claims]
    return catalogue_document(entries, systems, SCALES, calibration=recorded_calibration(claims),
                              recorded=record_markdown(load_verdicts(), claims))
