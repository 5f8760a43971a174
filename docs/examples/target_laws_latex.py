"""LaTeX of a target's laws: the giant-step laws derived for f*(z) = z1 + He2(z2), as `flt laws TARGET` prints them.

Each law's LaTeX is rendered from its sympy value, so the formula and the number the checks read cannot
disagree. Every line printed below is ``name (status): LaTeX``; the documentation renders each as math.
`flt laws TARGET --latex` writes the same laws as a standalone LaTeX document (`flt_theory.laws_latex_document`).
"""

from flt_theory import Target, giant_step_laws, laws_latex_document

target = Target.parse("z1 + He2(z2)")
laws = giant_step_laws(target)
for law in laws:
    print(f"{law.name} ({law.status}): {law.latex()}")

document = laws_latex_document(target, laws)
assert document.startswith("\\documentclass") and document.rstrip().endswith("\\end{document}")
