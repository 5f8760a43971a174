"""Contract of every registered claim: a law with LaTeX, a negative control, and a derivation.

The claims themselves (check and control) run in the derivation files; this test makes sure no
claim can be registered without the pieces that make it falsifiable and visible.
"""

from pathlib import Path

import pytest

import flt_theory.systems  # noqa: F401  (registers every system's claims)
from flt_theory.errors import InvalidParameterError
from flt_theory.symbolic.laws import Law
from flt_theory.systems.claims import get_claim, registered_claims, verify

DERIVATIONS = Path(__file__).resolve().parent.parent / "derivations"
CLAIMS = registered_claims()


def test_claims_are_registered():
    assert len(CLAIMS) >= 10
    assert len({c.key for c in CLAIMS}) == len(CLAIMS)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_claim_contract(claim):
    assert isinstance(claim.law, Law)
    assert claim.law.latex().strip()
    assert claim.law.status in ("theorem", "conjecture", "derived")
    assert claim.words.strip() and claim.wrong_law.strip()
    assert callable(claim.check) and callable(claim.control)
    assert claim.check is not claim.control


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_claim_is_exercised_by_a_derivation(claim):
    texts = [p.read_text() for p in DERIVATIONS.glob("derive_*.py")]
    assert any(claim.key in t or f'"{claim.name}"' in t for t in texts), f"no derivation exercises {claim.key}"


def test_unknown_claim_and_scale():
    with pytest.raises(InvalidParameterError, match="no claim 'giant-step/nope'"):
        get_claim("giant-step/nope")
    with pytest.raises(InvalidParameterError, match="'scale' parameter"):
        verify(CLAIMS[0], "huge")
