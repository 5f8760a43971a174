"""Systems of CLAIMS.md: each module wires symbolic laws to a numeric experiment and a check.

Importing this package registers every system's claims (see :mod:`.claims`).
"""

from . import dictionary, giant_step, good_sets
from .claims import Claim, ClaimVerdict, assert_claim, get_claim, registered_claims, verify

__all__ = [
    "Claim",
    "ClaimVerdict",
    "assert_claim",
    "dictionary",
    "get_claim",
    "giant_step",
    "good_sets",
    "registered_claims",
    "verify",
]
