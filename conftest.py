"""Test-session wiring shared by ``tests/`` and ``derivations/``.

One measurement per claim per test session. Every test that measures a claim without naming a store (the contract
checks of :mod:`flt_theory.testing`, a derivation's ``test_claim``, its ladders) reads the session store
(:func:`flt_theory.systems.registry.session_store`). In one process it is in memory; in a parallel run
(``pytest-xdist``, ``-n auto`` in ``pyproject.toml``) every worker opens ONE SQLite file in a temporary folder of the
session (made by the controller, removed at its end), so a claim measured by one worker is reused by the others: the
mutated-law test, the control test, the seed test and the derivation's test of a claim share one measurement
whichever worker runs them. Tests that measure a system's claims are still kept together in their system's
``xdist_group`` (``--dist loadgroup`` keeps a group on one worker), so two workers do not compute the same
measurement at the same time: a test whose parameters name a registered claim, and every test of a derivation
module (its ``CLAIMS`` name the system). Other tests are spread freely. Each worker runs torch on one thread: two
workers on two cores with two threads each would oversubscribe the cores. The end of a run says how many rows
(point × seed) the session simulated. ``flt simulate``'s cache of option declarations goes to a temporary folder of
the session (``FLT_CACHE_DIR``, unless it is set), never to the user's home.

Property tests (hypothesis) draw the same examples in every run (profile ``default``: ``derandomize=True``), so the
default run's time and verdict do not depend on a lucky draw (a random draw once hung a run on a sympy
simplification, another took 39 s in a reference function); ``pytest --hypothesis-profile=explore`` draws new examples
each run (with hypothesis' example database off, as before) for a search of fresh inputs.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import tempfile

import pytest
from hypothesis import settings as _hypothesis_settings

_hypothesis_settings.register_profile("default", derandomize=True, database=None)
_hypothesis_settings.register_profile("explore", derandomize=False, database=None)
_hypothesis_settings.load_profile("default")


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


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session):
    """Collection with the cyclic garbage collector off; then one full collection (the cycles collection left dead,
    finalizers run) and everything still alive frozen (:func:`gc.freeze`): the modules, their constants and the
    parametrized items live until the session ends, and a full collection would walk them again every time (9.2 s of
    full collections per worker in the default run before, 4.7 s after, measured with ``gc.callbacks``). What the
    tests allocate is collected as before."""
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        gc.freeze()
        gc.enable()


_SHARED_STORE = "flt_session_store"  # the key of the shared store's path in an xdist worker's workerinput
_FOLDER = pytest.StashKey[str]()  # the controller's temporary folder of the session
_CACHE = pytest.StashKey[str]()  # the option cache's temporary folder, where this process made it


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get("FLT_CACHE_DIR"):  # `flt simulate`'s option cache: a folder of the session, not the home's
        os.environ["FLT_CACHE_DIR"] = tempfile.mkdtemp(prefix="flt-cache-")  # (workers and subprocesses inherit it)
        config.stash[_CACHE] = os.environ["FLT_CACHE_DIR"]
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)
    shared = getattr(config, "workerinput", {}).get(_SHARED_STORE)
    if shared is not None:
        from flt_theory.runner.store import ResultStore
        from flt_theory.systems import registry

        registry._SESSION_STORE = ResultStore(shared)  # what measure() reads when it is given no store


def _shared_store(config: pytest.Config) -> str:
    """The controller's shared store of the session (its folder made on first use)."""
    if _FOLDER not in config.stash:
        from flt_theory.runner.store import ResultStore

        config.stash[_FOLDER] = tempfile.mkdtemp(prefix="flt-session-")
        ResultStore(os.path.join(config.stash[_FOLDER], "measurements.sqlite")).close()  # before any worker opens it
    return os.path.join(config.stash[_FOLDER], "measurements.sqlite")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist (controller), before a worker starts: give it the session's shared store."""
    node.workerinput[_SHARED_STORE] = _shared_store(node.config)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    """How many rows (point × seed) the session's measurements hold: what two runs of the same tests compare."""
    if _FOLDER in config.stash:
        from flt_theory.runner.store import ResultStore

        with ResultStore(_shared_store(config), readonly=True) as store:
            rows, experiments = len(store), len(store.experiments())
    elif "flt_theory.systems.registry" in sys.modules:  # one process that imported the systems
        session = sys.modules["flt_theory.systems.registry"].session_store()
        rows, experiments = len(session), len(session.experiments())
    else:
        return
    if rows:
        terminalreporter.write_line(f"flt_theory: the session's measurements hold {rows} rows (point x seed) of "
                                    f"{experiments} experiment(s)")


def pytest_unconfigure(config: pytest.Config) -> None:
    for key in (_FOLDER, _CACHE):
        if key in config.stash:
            shutil.rmtree(config.stash[key], ignore_errors=True)


@pytest.fixture(scope="module")
def runner():
    """A click test runner that keeps stderr apart from stdout (click < 8.2 mixes them unless told otherwise); the
    CLI tests share it."""
    from click.testing import CliRunner

    try:
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


@pytest.fixture
def counted_backends():
    """A stand-in for ``make_backend``: ``(make, made, closed)``, ``make(jobs, scheduler=None)`` returning a new
    in-process backend each call, recorded in ``made`` and, once closed, in ``closed`` (the tests that one pool serves
    a whole run: patch ``flt_theory.runner.executors.make_backend``)."""
    from flt_theory.runner.executors import InProcessBackend

    made: list = []
    closed: list = []

    class Counted(InProcessBackend):
        def close(self) -> None:
            closed.append(self)
            super().close()

    def make(jobs, scheduler=None):
        made.append(Counted())
        return made[-1]

    return make, made, closed
