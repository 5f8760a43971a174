"""Test-session wiring shared by ``tests/`` and ``derivations/``.

Parallel runs (``pytest-xdist``, ``-n auto`` in ``pyproject.toml``): measurements are shared through the
process's in-memory session store (:func:`flt_theory.systems.registry.session_store`), so every test that
measures a system's claims must run in the same worker, or a claim is simulated once per worker. Each such
test is put in its system's ``xdist_group`` (``--dist loadgroup`` keeps a group on one worker): a test whose
parameters name a registered claim, and every test of a derivation module (its ``CLAIMS`` name the system).
Other tests are spread freely. Each worker runs torch on one thread: two workers on two cores with two
threads each would oversubscribe the cores.
"""

from __future__ import annotations

import os

import pytest


def _claim_system(value) -> str | None:
    """The system of a claim given as a :class:`~flt_theory.systems.declaration.Claim` or its key."""
    key = getattr(value, "key", value)
    if isinstance(key, str) and "/" in key:
        from flt_theory.systems import registered_claims

        if key in {claim.key for claim in registered_claims()}:
            return key.split("/", 1)[0]
    return None


def _group(item: pytest.Item) -> str | None:
    claims = getattr(getattr(item, "module", None), "CLAIMS", None)
    if isinstance(claims, (list, tuple)) and claims and all(isinstance(key, str) for key in claims):
        return claims[0].split("/", 1)[0]
    callspec = getattr(item, "callspec", None)
    for value in (callspec.params.values() if callspec else ()):
        for part in (value if isinstance(value, tuple) else (value,)):
            system = _claim_system(part)
            if system:
                return system
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups off the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        group = _group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)


@pytest.fixture(scope="module")
def runner():
    """A click test runner that keeps stderr apart from stdout (click < 8.2 mixes them unless told otherwise); the
    CLI tests share it."""
    from click.testing import CliRunner

    try:
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()
