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
from flt_theory.report.calibrate import is_inert, mutant_result
from flt_theory.symbolic.law import STATUSES, Law
from flt_theory.systems import SCALES, check_claim, get_claim, measure, registered_claims, systems

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
        check_claim(CLAIMS[0], "huge")


#: Mutations that make a law false whatever the data (a wrong exponent, value, bound or side). A
#: subspace neighbour may be a weaker, still true law (a spike along v* also lies in any plane holding
#: v*), so of the subspace mutations only one need fail.
STRICT = ("exponent of", "value shift", "value scale", "bound side", "bound scale")


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_mutated_law_fails(claim):
    """Editing a law edits its check: of each kind of mutation of the law (``Law.mutation_panel``: an
    exponent ±1, a number or bound ×2 / ×0.5, a subspace rotated or a neighbour, a one-sided bound's side
    flipped — for a one-sided bound on a number only the flip, since moving the bound away from the data
    leaves a weaker, still true law), the largest mutants FAIL on the same stored measurement the law
    passes on. A mutant whose comparison predicts what the law's predicts is inert (the comparison does not read
    the mutated symbol, e.g. a size the measurement holds fixed) and left out."""
    panel = claim.the_law.mutation_panel()
    if not panel:
        pytest.skip("a law naming an object (a set, a direction) has no mutants; its negative control names the "
                    "alternative")
    frame = measure(claim, "small")
    law_result = claim.evaluate(frame)
    assert law_result.passed, "the law itself must pass first"
    if claim.the_law.relation in ("geq", "leq") and any(m.kind == "bound side" for m in panel):
        panel = [m for m in panel if m.kind == "bound side"]
    outcomes = []
    for kind in dict.fromkeys(m.kind for m in panel):
        largest = max(m.size for m in panel if m.kind == kind)
        for mutation in (m for m in panel if m.kind == kind and m.size == largest):
            result = mutant_result(claim, frame, mutation.law)
            if result is None or is_inert(result, law_result):
                continue  # unreadable or inert: left out, by flt calibrate's own rule
            outcomes.append((mutation, result))
    if not outcomes:
        pytest.skip("every mutant of this law is inert (its value does not hold the symbol the measurement varies); "
                    "its negative control carries the check")
    for mutation, result in outcomes:
        if mutation.kind.startswith(STRICT):
            assert not result.passed, f"{claim.key}: the mutant [{mutation.label}] passed: {result.message}"
    assert not all(result.passed for _, result in outcomes), f"{claim.key}: every mutant of its law passed"


#: Pairs of claims declared to contradict each other (:attr:`Claim.contradicts`): about the same quantity in the
#: same regime, they cannot both hold.
CONTRADICTING = sorted({tuple(sorted((c.key, other))) for c in CLAIMS for other in c.contradicts})


def test_contradicting_claims_are_known_claims():
    keys = {c.key for c in CLAIMS}
    for pair in CONTRADICTING:
        assert set(pair) <= keys, f"contradicts names an unknown claim: {pair}"
        assert pair[0] != pair[1]


@pytest.mark.parametrize("pair", CONTRADICTING, ids=" vs ".join)
def test_contradicting_claims_do_not_both_pass(pair):
    first, second = (check_claim(get_claim(key)) for key in pair)
    assert not (first.passed and second.passed), f"{pair[0]} and {pair[1]} contradict each other and both pass"
