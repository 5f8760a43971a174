"""The commands of ``flt`` that are loaded on first use, and what they share.

:mod:`flt_theory.cli` names each heavy command as ``"module:attribute"`` with its short help
(``LAZY_COMMANDS``), so ``flt --version`` and ``flt --help`` import neither sympy nor torch:

* :mod:`.base` -- the parameter types, options and one-line errors every command uses (click only);
* :mod:`.symbolic` -- ``flt hermite`` and ``flt leap`` (sympy);
* :mod:`.simulate` -- ``flt simulate SYSTEM``, one subcommand per system, generated from its declaration.

A system adds its own commands in ``flt_theory/systems/<name>/commands.py`` (a literal ``COMMANDS`` table, read
without importing the system; see :func:`flt_theory.cli.system_commands`).
"""
