r"""The system registry, filled by discovery: the runner, the report and the CLI iterate it.

Where systems are found, in this order:

1. every sub-package ``flt_theory.systems.<pkg>`` that has a ``declaration`` module;
2. the modules named in the environment variable ``FLT_THEORY_SYSTEMS`` (comma-separated, e.g.
   ``my_lab.my_system``), for systems kept outside this package;
3. the entry points of the group ``flt_theory.systems`` of installed distributions.

Each such module defines ``SYSTEM``, a :class:`~flt_theory.systems.declaration.System`. Importing it
registers its runner experiments. A module that fails to import, or lacks ``SYSTEM``, does not stop
the other systems from loading, but it is never silently dropped: :func:`load_errors` names it, a
request for all claims (``flt check`` with no path, ``flt claims``) fails with that message, and the
contract test asserts there is none.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
from importlib import metadata
from typing import Any

from ..errors import InvalidParameterError, UnsupportedError
from ..runner.registry import add_experiment_source
from .declaration import Claim, ClaimVerdict, System, check_scale

__all__ = [
    "ENTRY_POINT_GROUP",
    "ENV_VARIABLE",
    "SystemLoadError",
    "assert_claim",
    "check_claim",
    "check_loaded",
    "load_errors",
    "declaring_module",
    "discover",
    "get_claim",
    "get_system",
    "measure",
    "registered_claims",
    "reset",
    "session_store",
    "systems",
]

ENV_VARIABLE = "FLT_THEORY_SYSTEMS"
ENTRY_POINT_GROUP = "flt_theory.systems"

_SYSTEMS: dict[str, System] | None = None
_MODULES: dict[str, str] = {}  # system name -> the module that declares it
_ERRORS: dict[str, str] = {}  # module -> why it could not be loaded


class SystemLoadError(UnsupportedError):
    """A system module could not be imported or does not declare ``SYSTEM``."""


def _package_modules() -> list[str]:
    package = importlib.import_module(__package__)
    names = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.ispkg and importlib.util.find_spec(f"{__package__}.{info.name}.declaration") is not None:
            names.append(f"{__package__}.{info.name}.declaration")
    return names


def _environment_modules() -> list[str]:
    return [m.strip() for m in os.environ.get(ENV_VARIABLE, "").split(",") if m.strip()]


def _entry_point_modules() -> list[str]:
    return [ep.value.split(":")[0] for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)]


def _load(module_name: str) -> System:
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - named in the error, with its cause
        raise SystemLoadError(f"system module {module_name!r} failed to import: {type(exc).__name__}: {exc}") from exc
    system = getattr(module, "SYSTEM", None)
    if not isinstance(system, System):
        raise SystemLoadError(f"system module {module_name!r} defines no SYSTEM = System(...)")
    return system


def discover() -> dict[str, System]:
    """Every system (module docstring), by name, in discovery order; cached until :func:`reset`."""
    global _SYSTEMS
    if _SYSTEMS is None:
        found: dict[str, System] = {}
        _ERRORS.clear()
        for module_name in dict.fromkeys(_package_modules() + _environment_modules() + _entry_point_modules()):
            try:
                system = _load(module_name)
            except SystemLoadError as exc:
                _ERRORS[module_name] = str(exc)
                continue
            if system.name in found and found[system.name] is not system:
                raise SystemLoadError(f"two systems are named {system.name!r} (the second from {module_name!r})")
            found[system.name] = system
            _MODULES[system.name] = module_name
        _SYSTEMS = found
    return _SYSTEMS


def load_errors() -> dict[str, str]:
    """The system modules that could not be loaded, with the reason (empty when all loaded)."""
    discover()
    return dict(_ERRORS)


def check_loaded() -> None:
    """Raise :class:`SystemLoadError` naming every system module that could not be loaded."""
    errors = load_errors()
    if errors:
        raise SystemLoadError("; ".join(errors.values()))


def _unloaded_hint() -> str:
    return f" (not loaded: {'; '.join(_ERRORS.values())})" if _ERRORS else ""


def reset() -> None:
    """Forget the discovered systems (the next :func:`discover` looks again)."""
    global _SYSTEMS
    _SYSTEMS = None


def declaring_module(name: str) -> str:
    """The module that declares the system ``name`` (its folder holds ``laws.py`` and ``model.py``)."""
    get_system(name)
    return _MODULES[name]


def systems() -> list[System]:
    """Every discovered system."""
    return list(discover().values())


def get_system(name: str) -> System:
    """The system called ``name``."""
    found = discover()
    if name not in found:
        raise InvalidParameterError(
            f"no system {name!r}; known systems: {', '.join(found) or 'none'}{_unloaded_hint()}")
    return found[name]


def registered_claims(system: str | None = None) -> list[Claim]:
    """Every claim of every system (or of ``system``), in declaration order."""
    return [c for s in systems() if system is None or s.name == system for c in s.claims]


def get_claim(key: str) -> Claim:
    """The claim registered under ``"system/name"``."""
    claims = {c.key: c for c in registered_claims()}
    if key not in claims:
        raise InvalidParameterError(f"no claim {key!r}; known claims: {', '.join(claims) or 'none'}{_unloaded_hint()}")
    return claims[key]


_SESSION_STORE = None


def session_store():
    """The in-memory store shared by :func:`measure` calls that name no store (one per process), so
    that claims measured on the same points in one process (a test session, say) compute them once."""
    global _SESSION_STORE
    if _SESSION_STORE is None:
        from ..runner.store import ResultStore

        _SESSION_STORE = ResultStore(":memory:")
    return _SESSION_STORE


def measure(claim: Claim, scale: str = "small", **options: Any):
    """The claim's measured frame (:meth:`~flt_theory.systems.declaration.Measurement.run`); without a
    ``store`` option, the process's :func:`session_store`."""
    options.setdefault("store", session_store())
    return claim.measurement.run(check_scale(scale), **options)


def check_claim(claim: Claim | str, scale: str = "small", **options: Any) -> ClaimVerdict:
    """Measure ``claim`` once at ``scale`` and compare it with its law and its wrong law.

    ``options`` go to the measurement: ``seed_base``, ``store``, ``jobs``, ``scheduler``, ``fresh``.
    """
    claim = get_claim(claim) if isinstance(claim, str) else claim
    return claim.verdict(measure(claim, scale, **options))


def assert_claim(key: str, scale: str = "small", **options: Any) -> ClaimVerdict:
    """Check the claim ``key`` (:func:`check_claim`); raise ``AssertionError`` unless its law passed AND its negative
    control failed (the form derivations use)."""
    verdict = check_claim(get_claim(key), scale, **options)
    if not verdict.passed:
        raise AssertionError(verdict.message)
    return verdict


add_experiment_source(discover)
