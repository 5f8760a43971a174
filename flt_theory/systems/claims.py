"""Claims: a symbolic law, the measurement that tests it, and its negative control, as one object.

A system module (one per system of CLAIMS.md) registers :class:`Claim` objects. Each claim knows

* its :class:`~flt_theory.symbolic.laws.Law` (LaTeX, status, source),
* ``check(scale)``: measure at ``scale`` and compare with the law (a
  :class:`~flt_theory.compare.result.CheckResult`),
* ``control(scale)``: the SAME measurement compared with a deliberately wrong law (wrong exponent,
  threshold or subspace), which must FAIL — otherwise the check could not fail either.

:func:`verify` runs both; derivations in ``derivations/`` call it, and one contract test
(``tests/test_claims_contract.py``) checks that every registered claim has a law, a control and a
derivation that exercises it. Measurements are cached per scale by the system modules, so the check
and its control cost one simulation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Union

from ..compare.result import CheckResult
from ..errors import InvalidParameterError
from ..symbolic.laws import Law

__all__ = [
    "Claim",
    "ClaimVerdict",
    "SCALES",
    "assert_claim",
    "check_scale",
    "get_claim",
    "register",
    "registered_claims",
    "verify",
]

#: ``small``: the default pytest run (seconds per claim); ``paper``: the sizes of the source.
SCALES = ("small", "paper")

_REGISTRY: dict[str, "Claim"] = {}


@dataclass(frozen=True)
class Claim:
    """One comparator-backed claim of a system.

    Attributes
    ----------
    system, name
        Registry key ``"system/name"``.
    law
        The symbolic law being checked (a :class:`Law`, or a function returning it, evaluated on
        first use so that importing a system stays cheap).
    words
        The law in one line of words (for tables).
    check, control
        ``scale -> CheckResult``; ``control`` compares the same measurement with a wrong law.
    wrong_law
        One line saying what the negative control claims instead.
    """

    system: str
    name: str
    law_source: Union[Law, Callable[[], Law]]
    words: str
    check: Callable[[str], CheckResult]
    control: Callable[[str], CheckResult]
    wrong_law: str

    @property
    def key(self) -> str:
        return f"{self.system}/{self.name}"

    @cached_property
    def law(self) -> Law:
        """The law (built on first access when given as a function)."""
        return self.law_source if isinstance(self.law_source, Law) else self.law_source()


@dataclass(frozen=True)
class ClaimVerdict:
    """The outcome of :func:`verify`: the law's check and the wrong law's control."""

    claim: Claim
    check: CheckResult
    control: CheckResult

    @property
    def passed(self) -> bool:
        """True iff the law passed AND the wrong law failed on the same measurement."""
        return bool(self.check.passed) and not bool(self.control.passed)

    def message(self) -> str:
        control = "rejected" if not self.control.passed else "NOT rejected (the check has no power)"
        return f"{self.claim.key}: {self.check.message}; wrong law ({self.claim.wrong_law}) {control}"


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry (re-registering the same key replaces it)."""
    _REGISTRY[claim.key] = claim
    return claim


def registered_claims(system: str | None = None) -> list[Claim]:
    """All registered claims, or those of one ``system``, in registration order."""
    return [c for c in _REGISTRY.values() if system is None or c.system == system]


def get_claim(key: str) -> Claim:
    """The claim registered under ``"system/name"``."""
    if key not in _REGISTRY:
        raise InvalidParameterError(f"no claim {key!r}; known claims: {', '.join(_REGISTRY) or 'none'}")
    return _REGISTRY[key]


def check_scale(scale: str) -> str:
    """Validate a scale name."""
    if scale not in SCALES:
        raise InvalidParameterError(f"The 'scale' parameter must be one of {SCALES}. Got {scale!r} instead.")
    return scale


def verify(claim: Claim, scale: str = "small") -> ClaimVerdict:
    """Run ``claim``'s check and its negative control at ``scale``."""
    scale = check_scale(scale)
    return ClaimVerdict(claim, claim.check(scale), claim.control(scale))


def assert_claim(key: str, scale: str = "small") -> ClaimVerdict:
    """Verify the claim registered under ``key``; raise ``AssertionError`` unless its law passed
    AND its negative control failed (the form derivations use)."""
    verdict = verify(get_claim(key), scale)
    if not verdict.passed:
        raise AssertionError(verdict.message())
    return verdict
