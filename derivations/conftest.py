"""Derivations: every test taking ``claim_key`` and ``scale`` runs each key of the module's
``CLAIMS`` at ``small`` (default run) and at ``paper`` (marked ``slow``: ``pytest -m slow``)."""

import pytest


def pytest_generate_tests(metafunc):
    if {"claim_key", "scale"} <= set(metafunc.fixturenames):
        params = [
            pytest.param(key, scale, id=f"{key}-{scale}", marks=[pytest.mark.slow] if scale == "paper" else [])
            for key in metafunc.module.CLAIMS
            for scale in ("small", "paper")
        ]
        metafunc.parametrize("claim_key,scale", params)
