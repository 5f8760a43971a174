"""Every command of ``flt``, loaded on first use, and what the commands share.

:mod:`flt_theory.cli` names each command as ``"module:attribute"`` with its short help (``LAZY_COMMANDS``), so
``flt --version`` and ``flt --help`` import neither sympy nor torch:

* :mod:`flt_theory.commands.base` -- the parameter types, options and the one input error every command uses (click
  only: :mod:`flt_theory.cli` imports it);
* :mod:`flt_theory.commands.symbolic` -- ``flt hermite`` and ``flt leap`` (sympy);
* :mod:`flt_theory.commands.simulate` -- ``flt simulate SYSTEM``, one subcommand per system, generated from its
  declaration; :mod:`flt_theory.commands.declared` keeps the declared options as data, so that a bad option is
  refused before torch is imported;
* :mod:`flt_theory.commands.verify` -- ``flt verify``: a target's giant-step predictions, or any system's law
  (:mod:`flt_theory.laws_check`);
* :mod:`flt_theory.commands.check` -- ``flt check`` and ``flt calibrate`` (:mod:`flt_theory.checking`);
* :mod:`flt_theory.commands.sweep` -- ``flt sweep``; :mod:`flt_theory.commands.running` what the commands that run
  experiments share (backend options, exit codes);
* :mod:`flt_theory.commands.claims` -- ``flt claims``, the catalogue;
* :mod:`flt_theory.commands.giant_step` -- the giant-step system's ``staircase``, ``limits``, ``laws``, ``tour``.

A system declares its own commands in ``flt_theory/systems/<name>/commands.py`` (a literal ``COMMANDS`` table, read
without importing the system; see :func:`flt_theory.cli.system_commands`); their click code lives here, in
``flt_theory/commands/<name>.py``. Each command with more than a flag or two reads its options into one request, a
frozen dataclass (``VerifyRequest``, ``CheckRequest``, ...), and checks them (its output paths included:
:func:`flt_theory._files.check_outputs`) before it imports sympy, torch or the application layer. Floors, top down:
:mod:`flt_theory.cli`, these commands, the application layer (:mod:`flt_theory.checking`,
:mod:`flt_theory.laws_check`), the systems; nothing below imports a command (``tests/test_layering.py``).
"""
