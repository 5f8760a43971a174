"""Contract of every discovered system: layers kept apart, every claim falsifiable and visible.

* ``laws.py`` imports no torch (sympy only) and ``model.py`` no sympy (torch only);
* every claim has a law and a DIFFERENT wrong law (with LaTeX, a status and a source), a measurement
  for both scales, and a derivation that exercises it;
* every law a claim compares with is the one its comparison reads: mutating the law (its value or its
  relation) changes the verdict of its check on the same stored measurement (``test_mutated_law_fails``,
  run at the small scale on the session's shared store, so each measurement is computed once).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from flt_theory.errors import InvalidParameterError
from flt_theory.symbolic.law import STATUSES, Law
from flt_theory.systems import SCALES, get_claim, measure, registered_claims, systems, verify

ROOT = Path(__file__).resolve().parent.parent
DERIVATIONS = ROOT / "derivations"
SYSTEMS = systems()
CLAIMS = registered_claims()


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_systems_are_discovered():
    from flt_theory.systems.registry import load_errors

    assert load_errors() == {}
    names = [s.name for s in SYSTEMS]
    assert {"giant-step", "good-sets", "dictionary"} <= set(names)
    assert len(names) == len(set(names)) and len(CLAIMS) >= 23


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_layer_purity(system):
    import importlib

    from flt_theory.systems.registry import declaring_module

    package = Path(importlib.import_module(declaring_module(system.name)).__file__).parent
    if (package / "laws.py").exists():
        assert "torch" not in _imports(package / "laws.py"), f"{system.name}/laws.py imports torch"
    if (package / "model.py").exists():
        assert "sympy" not in _imports(package / "model.py"), f"{system.name}/model.py imports sympy"


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_claim_contract(claim):
    law, wrong = claim.the_law, claim.the_wrong_law
    assert isinstance(law, Law) and isinstance(wrong, Law)
    assert law.latex().strip() and law.status in STATUSES and law.source.authors
    assert (wrong.value, wrong.relation, wrong.lhs, wrong.name) != (law.value, law.relation, law.lhs, law.name), \
        "the negative control must compare with a different law"
    assert claim.words.strip() and wrong.text().strip()
    for scale in SCALES:
        assert claim.measurement.points[scale] and claim.measurement.seeds[scale] >= 2


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_claim_is_exercised_by_a_derivation(claim):
    texts = [p.read_text() for p in DERIVATIONS.glob("derive_*.py")]
    assert any(f'"{claim.key}"' in t for t in texts), f"no derivation lists {claim.key} in its CLAIMS"


def test_verdicts_share_one_measurement():
    """The check and the control are two comparisons of one stored frame: verifying twice reuses it."""
    claim = get_claim("giant-step/rank-one-update")
    first = measure(claim, "small")
    again = measure(claim, "small")
    assert again.attrs["computed"] == 0 and again.attrs["reused"] == len(first)
    verdict = claim.verdict(again)
    assert verdict.passed and verdict.check.passed and not verdict.control.passed


def test_unknown_claim_and_scale():
    with pytest.raises(InvalidParameterError, match="no claim 'giant-step/nope'"):
        get_claim("giant-step/nope")
    with pytest.raises(InvalidParameterError, match="'scale' parameter"):
        verify(CLAIMS[0], "huge")


MUTABLE = [c for c in CLAIMS if c.the_law.mutant() is not None]


@pytest.mark.parametrize("claim", MUTABLE, ids=lambda c: c.key)
def test_mutated_law_fails(claim):
    """Editing a law edits its check: the claim's comparison with a mutant of its law (``Law.mutant``:
    exponent +1, number doubled, subspace replaced by its complement, bound's side flipped) FAILS on the
    same stored measurement the law passes on. Claims whose law names an object (a set, a direction) have no
    mutant; their negative control names the alternative."""
    frame = measure(claim, "small")
    mutant = claim.the_law.mutant()
    assert claim.evaluate(frame).passed, "the law itself must pass first"
    result = claim.evaluate(frame, mutant)
    assert not result.passed, f"{claim.key}: the mutant {mutant.latex()} passed: {result.message}"
