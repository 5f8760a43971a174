"""The top-level names of ``flt_theory``: every name of ``__all__`` resolves (most are loaded on first use, so that
``import flt_theory`` stays light) to the object of the module that defines it, and ``dir()`` lists them all."""

from __future__ import annotations

import subprocess
import sys

import pytest

import flt_theory


def test_every_public_name_resolves_to_its_home_object():
    import flt_theory.symbolic as symbolic
    import flt_theory.systems as systems

    assert len(flt_theory.__all__) == len(set(flt_theory.__all__))
    assert set(flt_theory.__all__) <= set(dir(flt_theory))
    for name in flt_theory.__all__:
        value = getattr(flt_theory, name)
        if name in symbolic.__all__:
            assert value is getattr(symbolic, name), name
        elif name in ("Claim", "Measurement", "Option", "SimulateCommand", "System"):
            assert value is getattr(systems, name), name
    from flt_theory.checking import check
    from flt_theory.runner import sweep
    from flt_theory.systems.giant_step.verify import verify

    assert (flt_theory.check, flt_theory.sweep, flt_theory.verify) == (check, sweep, verify)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'flt_theory' has no attribute 'leap_indx'"):
        flt_theory.leap_indx  # noqa: B018


def test_import_is_light_until_a_symbolic_name_is_used():
    """``import flt_theory`` imports no sympy, numpy or torch; using ``flt_theory.Target`` imports sympy (the
    control: the check can fail)."""
    code = ("import sys, flt_theory\nheavy = ('sympy', 'numpy', 'torch', 'scipy', 'pandas')\n"
            "print(sorted(m for m in heavy if m in sys.modules))\nflt_theory.Target\n"
            "print(sorted(m for m in heavy if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    before, after = done.stdout.splitlines()
    assert before == "[]" and "'sympy'" in after


def test_the_moved_names_keep_their_old_paths_for_one_release():
    """What ran or decided moved from :mod:`flt_theory.report` to the application layer (issue 39); the names users
    imported from the old paths still import, for one release, as the same objects."""
    from flt_theory import checking
    from flt_theory.checking import calibrate, catalogue
    from flt_theory.report import COLUMNS, check, format_table, resolve_claims, run_check
    from flt_theory.report.calibrate import is_inert, mutant_result
    from flt_theory.report.catalogue import catalogue as old_catalogue, catalogue_markdown
    from flt_theory.report.table import format_table as table_format

    assert (check, run_check, resolve_claims, COLUMNS) == (checking.check, checking.run_check,
                                                           checking.resolve_claims, checking.COLUMNS)
    assert format_table is table_format
    assert (is_inert, mutant_result) == (calibrate.is_inert, calibrate.mutant_result)
    assert (old_catalogue, catalogue_markdown) == (catalogue.catalogue, catalogue.catalogue_markdown)
    with pytest.raises(AttributeError, match="has no attribute 'verify_law'"):
        import flt_theory.report

        flt_theory.report.verify_law  # noqa: B018
