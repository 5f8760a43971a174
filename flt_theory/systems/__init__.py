"""Systems: each folder wires its symbolic laws to its numeric model through claims.

A system is a folder ``flt_theory/systems/<name>/`` (``laws.py``, ``model.py``, ``declaration.py``
with ``SYSTEM = System(...)``), found by discovery (:mod:`.registry`). See :mod:`.declaration` for
what a declaration holds, and the guide "Adding a system" (``docs/guide/adding-a-system.md``).
"""

from .declaration import (
    DEVICE_OPTION,
    SCALES,
    Claim,
    ClaimVerdict,
    Figure,
    Measurement,
    Option,
    RecordField,
    SimulateCommand,
    System,
    check_scale,
)
from .registry import (
    assert_claim,
    check_claim,
    discover,
    get_claim,
    get_system,
    measure,
    registered_claims,
    systems,
)

__all__ = [
    "DEVICE_OPTION",
    "SCALES",
    "Claim",
    "ClaimVerdict",
    "Figure",
    "Measurement",
    "Option",
    "RecordField",
    "SimulateCommand",
    "System",
    "assert_claim",
    "check_claim",
    "check_scale",
    "discover",
    "get_claim",
    "get_system",
    "measure",
    "registered_claims",
    "systems",
]
