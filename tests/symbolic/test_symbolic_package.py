"""The package ``flt_theory.symbolic`` loads its names on first use (so that ``flt leap`` imports only what it
needs): every name of ``__all__`` still resolves to the object of the module that defines it, its import statements
(read by the code fingerprint) name every such module, and a name shared by a module and its function is the
function."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys

import flt_theory.symbolic as symbolic
from flt_theory.runner.fingerprint import code_files


def _imported_names() -> dict[str, str]:
    """name -> module of every ``from .module import name`` statement of the package's ``__init__``."""
    tree = ast.parse(inspect.getsource(symbolic))
    return {alias.name: node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1
            for alias in node.names}


def test_every_public_name_resolves_to_its_home_object():
    assert sorted(symbolic.__all__) == sorted(symbolic._HOME)
    for name, module in symbolic._HOME.items():
        assert getattr(symbolic, name) is getattr(importlib.import_module(f"flt_theory.symbolic.{module}"), name), name
    assert set(symbolic.__all__) <= set(dir(symbolic))


def test_the_import_statements_name_every_home_module():
    """The code fingerprint reads import statements, not ``_HOMES``: the two must agree, or a change of a symbolic
    module would leave the fingerprints of the experiments that import it through the package unchanged."""
    assert _imported_names() == symbolic._HOME


def test_the_fingerprint_of_a_package_import_reaches_the_defining_module():
    """A function of a module that imports ``from flt_theory.symbolic import ...`` is fingerprinted with the module
    that defines the name (``leap.py``); the control: a module that does not import the package is not."""
    from flt_theory._validation import check_int
    from flt_theory.systems.giant_step.laws import giant_step_laws  # imports leap_index from the package

    assert any(path.endswith("flt_theory/symbolic/leap.py") for path in code_files(giant_step_laws))
    assert not any(path.endswith("flt_theory/symbolic/leap.py") for path in code_files(check_int))


def test_a_missing_name_is_an_attribute_error():
    for name in ("leap_indx", "_private"):
        try:
            getattr(symbolic, name)
        except AttributeError as exc:
            assert f"has no attribute {name!r}" in str(exc)
        else:
            raise AssertionError(f"symbolic.{name} resolved")


def test_a_submodule_resolves_by_its_name():
    assert symbolic.law is importlib.import_module("flt_theory.symbolic.law")


def test_a_name_shared_with_its_module_is_the_function():
    """``staircase`` and ``staircase_sizes`` name a module and a function: after the modules are imported first (in
    a fresh process), the package's attributes are still the functions."""
    code = ("import flt_theory.symbolic.staircase_sizes, flt_theory.symbolic.staircase\n"
            "import flt_theory.symbolic as s\nprint(callable(s.staircase), callable(s.staircase_sizes))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["True", "True"], done.stderr
