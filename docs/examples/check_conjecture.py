"""Check your own conjecture: a law, a measurement, one comparison, and a wrong law that must fail.

The conjecture: one giant GD step on the first layer (Dandi, Krzakala, Loureiro, Pesce, Stephan 2023,
arXiv 2305.18270) learns the target f*(z) = z + He2(z) once the number of samples n = d^κ passes
n* ≍ d, i.e. κ* = 1. The comparison reads κ* FROM the law it is given: at every measured κ ≥ κ* the
excess mass on the teacher direction must be at least 0.1 (the whole 95% CI over seeds above it), at
every κ < κ* at most 0.1. The negative control is the same measurement compared with the wrong law
n* ≍ d² (κ* = 2): it must be rejected, or the check could not tell the two apart.
"""

import sympy as sp

from flt_theory import Claim, Law, Measurement, Source
from flt_theory.compare import check_at_least, check_at_most
from flt_theory.compare.result import all_of
from flt_theory.systems import check_claim

d = sp.Symbol("d", positive=True)
law = Law(name="threshold", lhs="n^*", relation="asymp", value=d, status="conjecture",
          source=Source(authors="Me", year=2026), words="one giant step learns z + He2(z) once n ≳ d")
LEARNED = 0.1  # excess mass on V* (above its random level r/d) that counts as learned


def compare(frame, law):
    """Learned at every κ at or above the law's threshold, not learned at every κ below it."""
    kappa_star = law.exponent("d")
    parts = []
    for kappa, rows in frame.groupby("kappa"):
        mass = rows.excess_mass.to_numpy()
        if kappa >= kappa_star:
            parts.append(check_at_least(mass, LEARNED, mode="demonstrated", name=f"learned at κ = {kappa}"))
        else:
            parts.append(check_at_most(mass, LEARNED, mode="demonstrated", name=f"not learned at κ = {kappa}"))
    return all_of(f"threshold κ* = {kappa_star:g}", kappa_star, parts)


points = [{"target": "z + He2(z)", "d": 64, "kappa": k} for k in (0.5, 1.5, 2.0)]
claim = Claim(name="leap-one-threshold", words=law.words, law=law,
              wrong_law=law.replace(value=d**2, words="learned once n ≳ d²"), compare=compare, system="mine",
              measurement=Measurement(experiment="giant-step/one-step-mass", points={"small": points, "paper": points},
                                      seeds={"small": 8, "paper": 16}))

if __name__ == "__main__":
    verdict = check_claim(claim)  # measures once (8 seeds per point), compares with the law AND the wrong law
    print("law     ", law.latex())
    for result, label in ((verdict.check, "check   "), (verdict.control, "control ")):
        print(label, result.message)
        for part in result.details["parts"]:
            print("         ", part["message"])
    print("passed  ", verdict.passed, "(the law passed AND the wrong law was rejected)")
    raise SystemExit(0 if verdict.passed else 1)
