r"""The ``flt`` command: derive, simulate and check feature-learning laws from a shell.

Commands (``flt COMMAND --help`` for details)::

    flt hermite EXPR [--degree K]                     Hermite coefficients mu_0..mu_K of a 1-D function
    flt leap TARGET                                   leap index, information exponent, leap complexity
    flt staircase TARGET [--steps T]                  learned subspaces U_1..U_T (n = O(d))
    flt limits TARGET --kappa-n A --kappa-p B         learned subspace and the learnable part P_{U,<=kappa} f*
    flt laws TARGET [--activation relu]               every predicted law of the giant-step system
    flt tour                                          the worked examples of Dandi et al. 2023
    flt simulate SYSTEM [OPTIONS]                     simulate a system, measure the observables of its laws
    flt check [PATHS]                                 run claims with their negative controls, write a report
    flt claims [--json | --markdown]                  the catalogue of claims
    flt sweep EXPERIMENT -p NAME=V1,V2                run a registered experiment on a grid (resumable)
    flt observables SYSTEM                            every observable of a system: meaning, unit, what records it

This module holds the group only; every command lives in :mod:`flt_theory.commands` and is imported when first named,
from :data:`LAZY_COMMANDS` (``hermite``, ``leap`` in :mod:`flt_theory.commands.symbolic`, ``simulate`` in
:mod:`flt_theory.commands.simulate`, ``verify`` in :mod:`flt_theory.commands.verify`, ``check`` and ``calibrate`` in
:mod:`flt_theory.commands.check`, ``sweep`` in :mod:`flt_theory.commands.sweep`, ``claims`` in
:mod:`flt_theory.commands.claims`, ``observables`` in :mod:`flt_theory.commands.observables`) or from the
commands a system declares in its ``commands.py``
(:func:`system_commands`: the giant-step system's ``staircase``, ``limits``, ``laws``, ``tour``, in
:mod:`flt_theory.commands.giant_step`), so ``flt --version`` and ``flt --help`` import no sympy, numpy or torch.

``TARGET`` is a function of ``z1 .. zr`` in the restricted grammar of
:mod:`flt_theory.symbolic.parser` (e.g. ``"z1 + He2(z2) + He2(z1)*z2"``); ``--links "z + He2(z); z -
He2(z)"`` gives a separable target :math:`\sum_k \sigma^*_k(z_k)` instead. Hermite convention:
probabilists' :math:`\mathrm{He}_j`, :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = j!\,\delta_{jk}`.

Output is plain text by default; ``--json`` prints exactly one JSON document on stdout (a
contract: keys are only ever added), ``--latex`` prints LaTeX. Exit codes: 0 success, 2 bad input
(one line on stderr, ``flt: error: PARAM: message``), 1 internal error (one line; set
``FLT_DEBUG=1`` for the traceback), 130 interrupted.

>>> from click.testing import CliRunner
>>> print(CliRunner().invoke(cli, ["leap", "z1 + He2(z2)"]).output, end="")  # doctest: +NORMALIZE_WHITESPACE
target                f*(z) = z1 + He2(z2)   (rank r = 2)
leap index            1
information exponent  none (defined for single-index targets, r = 1)
leap complexity       2
generative exponent   none (refused: the target has rank 2: the generative exponent is defined for single-index
                      targets (the multi-index analogue is not computed))
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import click

from . import __version__
from .commands.base import InputError, one_line
from .errors import FLTError, UnsupportedError

__all__ = ["LAZY_COMMANDS", "cli", "main", "system_commands"]

#: Commands imported on first use: name -> ("module:attribute", short help as ``flt --help`` lists it). Their imports
#: (sympy for the symbolic commands, the comparator and scipy for ``check``, torch for ``simulate``) are paid only by
#: the commands that run them, not by ``flt --version`` or ``flt --help`` (tests/test_cli.py checks the stored short
#: help against the command's own, and that ``flt --version`` and ``flt --help`` import none of them). A system adds
#: its own commands beside these through its ``commands.py`` (:func:`system_commands`).
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "calibrate": ("flt_theory.commands.check:calibrate_command",
                  "False rejections, mutation panel and power of each claim's check."),
    "check": ("flt_theory.commands.check:check_command",
              "Run the claims with their negative controls; write a report."),
    "claims": ("flt_theory.commands.claims:claims_command",
               "The catalogue of claims: laws, status, sources, negative controls."),
    "hermite": ("flt_theory.commands.symbolic:hermite_command", "Hermite coefficients mu_0..mu_K of a 1-D function."),
    "leap": ("flt_theory.commands.symbolic:leap_command", "Leap index, information exponent, leap complexity."),
    "observables": ("flt_theory.commands.observables:observables_command",
                    "Every observable of a system: meaning, unit, what records it."),
    "simulate": ("flt_theory.commands.simulate:simulate_group",
                 "Simulate a system and measure the observables of its laws."),
    "sweep": ("flt_theory.commands.sweep:sweep_command", "Run a registered experiment on a grid × seeds (resumable)."),
    "verify": ("flt_theory.commands.verify:verify_command",
               "Check predictions by simulation: a target's giant-step laws, or a system's law."),
}

#: The commands defined in this module (imported with it): none, every command lives in :mod:`flt_theory.commands`.
_EAGER: tuple[str, ...] = ()

#: The folder of the system packages, each ``<name>/`` possibly with a ``commands.py``.
_SYSTEMS_FOLDER = Path(__file__).resolve().parent / "systems"


@lru_cache(maxsize=4)
def system_commands(folder: Path = _SYSTEMS_FOLDER) -> dict[str, tuple[str, str]]:
    """The commands the system folders declare: name -> ("module:attribute", short help), from the literal
    ``COMMANDS`` table (name -> (attribute, short help)) of each ``<folder>/<system>/commands.py``, read from its
    source with :func:`ast.literal_eval`, without importing the system (which would import sympy and torch). The
    attribute is a click command of ``flt_theory.commands.<system>``: a system declares its commands, their code lives
    with the other commands (nothing under ``systems/`` imports them). Only the systems inside this package add
    commands; systems found through ``FLT_THEORY_SYSTEMS`` or entry points add ``flt simulate`` subcommands and claims,
    not top-level commands. A name taken twice is an :class:`~flt_theory.errors.UnsupportedError`."""
    import ast

    found: dict[str, tuple[str, str]] = {}
    for path in sorted(folder.glob("*/commands.py")):
        declared = f"{__package__}.systems.{path.parent.name}.commands"
        module = f"{__package__}.commands.{path.parent.name}"
        for node in ast.parse(path.read_text(encoding="utf-8"), str(path)).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "COMMANDS" for t in node.targets):
                for name, (attribute, short_help) in ast.literal_eval(node.value).items():
                    taken = found.get(name, LAZY_COMMANDS.get(name, ("flt_theory.cli",) if name in _EAGER else None))
                    if taken is not None:
                        raise UnsupportedError(f"{declared}: the command name {name!r} is already taken by {taken[0]}")
                    found[name] = (f"{module}:{attribute}", short_help)
    return found


def _lazy_commands() -> dict[str, tuple[str, str]]:
    """The built-in :data:`LAZY_COMMANDS` and the systems' commands (a built-in name wins; a test forbids clashes)."""
    return {**system_commands(), **LAZY_COMMANDS}


class _FLTGroup(click.Group):
    """A group whose failures are one line on stderr, never a traceback (also under CliRunner), with the
    subcommands of :data:`LAZY_COMMANDS` and :func:`system_commands` imported when first named."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_lazy_commands()})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands:
            lazy = LAZY_COMMANDS.get(name) or system_commands().get(name)
            if lazy is not None:
                import importlib

                module, attribute = lazy[0].split(":")
                self.add_command(getattr(importlib.import_module(module), attribute), name)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands section of ``--help``; a command not loaded yet shows its stored short help."""
        shown: dict[str, click.Command | str] = {}
        lazy = _lazy_commands()
        for name in self.list_commands(ctx):
            if name in lazy and name not in self.commands:
                shown[name] = lazy[name][1]
            elif (command := self.get_command(ctx, name)) is not None and not command.hidden:
                shown[name] = command
        if not shown:
            return
        limit = formatter.width - 6 - max(len(name) for name in shown)
        with formatter.section("Commands"):
            formatter.write_dl([(name, entry if isinstance(entry, str) else entry.get_short_help_str(limit))
                                for name, entry in shown.items()])

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
        except click.UsageError as exc:  # an InputError names its parameter; click's own usage errors get a pointer
            hint = "" if isinstance(exc, InputError) or exc.ctx is None else f" (see '{exc.ctx.command_path} --help')"
            click.echo(f"flt: error: {one_line(exc.format_message())}{hint}", err=True)
            code = exc.exit_code
        except click.ClickException as exc:
            click.echo(f"flt: error: {one_line(exc.format_message())}", err=True)
            code = exc.exit_code
        except click.Abort:
            click.echo("flt: interrupted", err=True)
            code = 130
        except FLTError as exc:  # not attributed to a parameter by a command
            click.echo(f"flt: error: {one_line(str(exc))}", err=True)
            code = 2
        except Exception as exc:  # a bug: still one line, traceback on request
            if os.environ.get("FLT_DEBUG"):
                raise
            click.echo(
                f"flt: internal error: {type(exc).__name__}: {one_line(str(exc))[:300]} "
                "(set FLT_DEBUG=1 for the traceback and please report it)",
                err=True,
            )
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code


@click.group(cls=_FLTGroup, name="flt", invoke_without_command=True)
@click.version_option(__version__, prog_name="flt")  # not from the metadata: importlib.metadata costs 20 ms
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Derive feature-learning-theory laws of two-layer networks (derive, simulate, check).

    TARGET is a function of z1..zr, e.g. "z1 + He2(z2) + He2(z1)*z2" (He_k: probabilists'
    Hermite polynomials, E[He_j He_k] = j! delta_jk). Start with `flt tour`.
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``flt`` console script; returns the exit code when ``argv`` is given."""
    if argv is None:
        return cli.main(prog_name="flt")
    return cli.main(list(argv), prog_name="flt", standalone_mode=False)


if __name__ == "__main__":
    main()
