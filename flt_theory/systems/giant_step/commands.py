r"""The ``flt`` commands the giant-step system adds (``staircase``, ``limits``, ``laws``, ``tour``) and the worked
examples its ``tour`` shows.

A system declares its commands here, as it declares its claims in ``declaration.py``: :data:`COMMANDS` is a literal
table (command name -> attribute of :mod:`flt_theory.commands.giant_step`, short help) that
:func:`flt_theory.cli.system_commands` reads from this file's source without importing it, so ``flt --help`` lists
the commands without importing sympy or torch. Their click code lives in :mod:`flt_theory.commands.giant_step`
(``flt_theory/commands/<system>.py`` for any system folder with such a table, a test checks each short help against
its command), which imports this module: nothing here imports the commands, so no arrow runs from the systems up to
the commands (``tests/test_layering.py``).

The worked examples are those of Dandi, Krzakala, Loureiro, Pesce, Stephan 2023 (arXiv 2305.18270): the staircases
(a)-(d) of Conjecture 1 and the five-direction target with its five :math:`(\kappa_n, \kappa_p)` regimes of
Conjecture 3.
"""

from __future__ import annotations

__all__ = ["COMMANDS", "TOUR_REGIMES", "TOUR_STAIRCASES", "TOUR_TARGET"]

#: The commands this system adds to ``flt``: name -> (attribute of :mod:`flt_theory.commands.giant_step`, short help as
#: ``flt --help`` lists it). Keep it a literal: ``flt`` reads it without importing this module.
COMMANDS = {
    "laws": ("laws_command", "Every predicted law of the giant-step system."),
    "limits": ("limits_command", "Learned subspace and learnable part P_{U,<=kappa} f*."),
    "staircase": ("staircase_command", "Subspaces U_1..U_T learned by T giant steps (n = O(d)), with their sizes."),
    "tour": ("tour_command", "Worked examples of Dandi et al. 2023 (start here)."),
}

#: Worked staircase examples (a)-(d) of Dandi et al. 2023 (arXiv 2305.18270): (label, links or None, target text).
TOUR_STAIRCASES: tuple[tuple[str, tuple[str, ...] | None, str | None], ...] = (
    ("(a)", ("z + He2(z)", "z - He2(z)"), None),
    ("(b)", ("z + He2(z)", "z + He2(z)"), None),
    ("(c)", None, "z1 + z1*z2 + z1*z3"),
    ("(d)", None, "z1 + z1*z2 + He3(z1)*z3"),
)
#: The five-direction example of Dandi et al. 2023 and its five (kappa_n, kappa_p) regimes.
TOUR_TARGET = "z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3 + He2(z2)*He2(z3)"
TOUR_REGIMES: tuple[tuple[int, int], ...] = ((1, 0), (1, 1), (2, 0), (2, 1), (2, 2))
