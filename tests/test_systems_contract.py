"""Contract of every discovered system, through the public checks of :mod:`flt_theory.testing` (the ones
``check_system`` runs for an author outside the package), one test per system or per claim:

* the declaration (discovered, titled, sourced, its experiments registered) and its layers kept apart (``laws.py``
  imports no torch, ``model.py`` no sympy);
* every claim has a law and a DIFFERENT wrong law (with LaTeX, a status and a source), a measurement for both
  scales, and a derivation that exercises it;
* on ONE measurement per claim (the session's store: ``conftest.py``), the measurement honours its seeds and
  reproduces them, the law passes and its negative control fails, and every law a claim compares with is the one its
  comparison reads: mutating the law (its value or its relation) changes the verdict of its check.

``tests/test_system_checks_fail.py`` shows that each check can fail, on deliberately broken small systems.
"""

from __future__ import annotations

import unittest
from pathlib import Path

import pytest

from flt_theory import testing
from flt_theory.errors import InvalidParameterError
from flt_theory.systems import check_claim, get_claim, measure, registered_claims, systems

ROOT = Path(__file__).resolve().parent.parent
DERIVATIONS = ROOT / "derivations"
SYSTEMS = systems()
CLAIMS = registered_claims()
#: The first claim of each distinct measurement (experiment, points and seeds at the small scale): the seeds of a
#: measurement are checked once.
MEASUREMENTS = list({c.measurement.identity("small"): c
                     for c in reversed(CLAIMS)}.values())[::-1]


def _run(check, *args) -> None:
    """Run a check of :mod:`flt_theory.testing`; one that does not apply (``unittest.SkipTest``) skips the test here."""
    try:
        check(*args)
    except unittest.SkipTest as skip:
        pytest.skip(str(skip))


def test_systems_are_discovered():
    from flt_theory.systems.registry import load_errors

    assert load_errors() == {}
    names = [s.name for s in SYSTEMS]
    assert {"giant-step", "good-sets", "dictionary"} <= set(names)
    assert len(names) == len(set(names)) and len(CLAIMS) >= 23


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_declaration(system):
    testing.check_declaration(system)


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_layer_purity(system):
    _run(testing.check_layers, system)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_claim_contract(claim):
    testing.check_claim_declaration(claim)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_claim_is_exercised_by_a_derivation(claim):
    texts = [p.read_text() for p in DERIVATIONS.glob("derive_*.py")]
    assert any(f'"{claim.key}"' in t for t in texts), f"no derivation lists {claim.key} in its CLAIMS"


def test_verdicts_share_one_measurement():
    """The check and the control are two comparisons of one stored frame: verifying twice reuses it."""
    claim = get_claim("giant-step/rank-one-update")
    first = measure(claim, "small")
    again = measure(claim, "small")
    assert again.attrs["computed"] == 0 and again.attrs["reused"] == len(first)
    verdict = claim.verdict(again)
    assert verdict.passed and verdict.check.passed and not verdict.control.passed


def test_unknown_claim_and_scale():
    with pytest.raises(InvalidParameterError, match="no claim 'giant-step/nope'"):
        get_claim("giant-step/nope")
    with pytest.raises(InvalidParameterError, match="'scale' parameter"):
        check_claim(CLAIMS[0], "huge")


#: Measurements whose seeds are known to depend on their batch, with the reason (strict: fixing one fails its xfail).
BATCH_DEPENDENT = {
    "signal-noise-optimizers/" + name: "optimizers/run trains a batch until its LAST seed stops and records the "
    "trajectory on that shared grid: a seed's step_k, gamma_k, rho_k, loss_k, error_k depend on the seeds that share "
    "its batch (its final columns do not); found by check_seeds"
    for name in ("adam-overfits-noise", "sam-below-gd-boundary", "label-noise-gd-low-snr")
}


@pytest.mark.parametrize("claim", [
    pytest.param(c, marks=pytest.mark.xfail(reason=BATCH_DEPENDENT[c.key], strict=True,
                                            raises=testing.SystemCheckError)) if c.key in BATCH_DEPENDENT else c
    for c in MEASUREMENTS], ids=lambda c: c.key)
def test_seeds_are_honoured_and_reproduced(claim):
    testing.check_seeds(claim)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_control_fails_where_the_law_passes(claim):
    testing.check_control(claim)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_mutated_law_fails(claim):
    """Editing a law edits its check (:func:`flt_theory.testing.check_mutated_law`): the largest mutants of each kind
    fail on the same stored measurement the law passes on; skipped for a law without mutants, or whose mutants are
    all inert."""
    _run(testing.check_mutated_law, claim)


@pytest.mark.slow
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_every_system_keeps_the_whole_contract(system):
    """``check_system`` itself, every check in one call (every generated invalid value: the default run samples one
    per parameter in ``tests/test_param_declarations.py``); run with
    ``python -m pytest -m slow tests/test_systems_contract.py -k whole_contract``. The known batch-dependent seeds
    (:data:`BATCH_DEPENDENT`) fail it, strictly."""
    if any(c.key in BATCH_DEPENDENT for c in system.claims):
        with pytest.raises(testing.SystemCheckError, match=r"check_seeds\["):
            testing.check_system(system)
        return
    outcomes = testing.check_system(system)
    assert all(v == "passed" or v.startswith("skipped: ") for v in outcomes.values())


#: Pairs of claims declared to contradict each other (:attr:`Claim.contradicts`): about the same quantity in the
#: same regime, they cannot both hold.
CONTRADICTING = sorted({tuple(sorted((c.key, other))) for c in CLAIMS for other in c.contradicts})


def test_contradicting_claims_are_known_claims():
    keys = {c.key for c in CLAIMS}
    for pair in CONTRADICTING:
        assert set(pair) <= keys, f"contradicts names an unknown claim: {pair}"
        assert pair[0] != pair[1]


@pytest.mark.parametrize("pair", CONTRADICTING, ids=" vs ".join)
def test_contradicting_claims_do_not_both_pass(pair):
    first, second = (check_claim(get_claim(key)) for key in pair)
    assert not (first.passed and second.passed), f"{pair[0]} and {pair[1]} contradict each other and both pass"
