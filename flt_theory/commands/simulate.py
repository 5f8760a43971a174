r"""``flt simulate SYSTEM``: one subcommand per discovered system, generated from its declaration.

The options of ``flt simulate SYSTEM`` are the system's declared
:class:`~flt_theory.systems.declaration.Option` s, converted here into click parameters with the same bounds; torch and
the systems are imported only when ``flt simulate`` itself is named (loaded on first use by :mod:`flt_theory.cli`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import click
import numpy as np

from .._text import json_ready, table
from ..errors import FLTError
from ..systems import discover
from .base import Bounded, InputError, emit_json, one_line, range_text

__all__ = ["simulate_group"]


class _NumberList(click.ParamType):
    """Comma-separated numbers (``32,64,128`` / ``0.5,1,1.5``) within optional bounds."""

    def __init__(self, kind: type, minimum: float | None, maximum: float | None):
        self.kind, self.minimum, self.maximum = kind, minimum, maximum
        self.name = "N[,N...]" if kind is int else "X[,X...]"

    def convert(self, value: Any, param, ctx) -> tuple:
        if isinstance(value, tuple):
            return value
        try:
            numbers = tuple(self.kind(part.strip()) for part in str(value).split(","))
        except ValueError:
            self.fail(f"expected comma-separated {'integers' if self.kind is int else 'real numbers'}, e.g. "
                      f"{'32,64' if self.kind is int else '0.5,1.5'}; got {value!r}", param, ctx)
        for number in numbers:
            if not math.isfinite(number) or (self.minimum is not None and number < self.minimum) or (
                    self.maximum is not None and number > self.maximum):
                self.fail(f"expected finite values{range_text(self.minimum, self.maximum)}; got {value!r}", param, ctx)
        return numbers

class _StepSize(click.ParamType):
    """``theory`` or a finite real number > 0."""

    name = "ETA|theory"

    def convert(self, value: Any, param, ctx) -> float | str:
        if value == "theory" or isinstance(value, float):
            return value
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number) or number <= 0:
            self.fail(f"expected a finite real number > 0 or 'theory'; got {value!r}", param, ctx)
        return number


#: The largest value of an integer option of ``flt simulate`` without a declared maximum (a 64-bit integer).
_MAX_INT = 2**63 - 1


def _overflow_error(ctx: click.Context, exc: Exception) -> InputError:
    """An overflow (or an underflow to a zero divisor) inside a simulation as bad input: it names the options given
    on the command line, the most extreme value first (a value far from 1 in either direction is what overflows)."""
    given = []
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if (ctx.get_parameter_source(param.name) != click.core.ParameterSource.COMMANDLINE
                or isinstance(value, (bool, str))):
            continue
        numbers = [abs(float(v)) for v in (value if isinstance(value, tuple) else (value,))
                   if isinstance(v, (int, float))]
        extreme = max((abs(math.log10(v)) if v > 0 else 0.0 for v in numbers), default=0.0)
        given.append((extreme, param.opts[0] if param.opts else param.name))
    names = ", ".join(name for _, name in sorted(given, reverse=True)) or "the options"
    return InputError(names.split(", ")[0] if given else None,
                      f"the simulation overflowed with the values given ({names}): {one_line(str(exc))[:200]}; "
                      "use values of a moderate size")


def _click_parameter(option) -> click.Parameter:
    """The click argument or option of a declared :class:`~flt_theory.systems.declaration.Option`."""
    int_maximum = _MAX_INT if option.maximum is None else option.maximum  # a count or size is a 64-bit integer
    types = {
        "int": Bounded(int, option.minimum, int_maximum), "float": Bounded(float, option.minimum, option.maximum),
        "ints": _NumberList(int, option.minimum, int_maximum),
        "floats": _NumberList(float, option.minimum, option.maximum),
        "eta": _StepSize(), "str": click.STRING, "choice": click.Choice(list(option.choices)),
    }
    if option.argument:
        return click.Argument([option.dest], required=option.required)
    flag = "--" + option.name
    if option.kind == "flag":
        return click.Option([flag, option.dest], is_flag=True, help=option.help)
    # click: None is a value
    extra = {} if option.default is None else {"default": option.default, "show_default": True}
    return click.Option([flag, option.dest], type=types[option.kind], required=option.required, help=option.help,
                        **extra)


def _simulate_command(system) -> click.Command:
    spec = system.simulate

    def callback(as_json: bool, **options: Any) -> None:
        try:
            spec.check_cost(options)  # the declared cost, before anything runs
            with warnings.catch_warnings(), np.errstate(all="ignore"):  # no warning lines before the result or error
                warnings.simplefilter("ignore", RuntimeWarning)
                document = spec.run(**options)
        except FLTError as exc:
            raise InputError(None, str(exc)) from exc
        except (OverflowError, FloatingPointError, ZeroDivisionError) as exc:  # a value too large or too small
            raise _overflow_error(click.get_current_context(), exc) from exc
        except RuntimeError as exc:  # torch: "value cannot be converted to type float without overflow"
            if "overflow" not in str(exc):
                raise
            raise _overflow_error(click.get_current_context(), exc) from exc
        if as_json:
            emit_json(json_ready({k: v for k, v in document.items() if not k.startswith("_")}))
        else:
            click.echo(spec.table(document) if spec.table else _records_table(document["records"]))

    params = [_click_parameter(o) for o in spec.options]
    params.append(click.Option(["--json", "as_json"], is_flag=True, help="Print exactly one JSON document on stdout."))
    return click.Command(system.name, callback=callback, params=params, help=spec.help,
                         short_help=system.title, epilog=_fields_epilog(spec.fields))


def _fields_epilog(fields: Sequence) -> str | None:
    """The ``--help`` paragraph listing the JSON record fields of ``flt simulate SYSTEM`` (kept unwrapped)."""
    if not fields:
        return None
    width = max(len(f.name) for f in fields)
    lines = [f"  {f.name.ljust(width)}  {f.meaning} [{f.unit}]" for f in fields]
    return "\b\nJSON record fields (--json: one record per row of the table):\n" + "\n".join(lines)


def _records_table(records: Sequence[dict]) -> str:
    """Records as an aligned text table (one column per key, lists shortened)."""
    if not records:
        return "(no records)"
    keys = list(dict.fromkeys(k for r in records for k in r))

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, float):
            return f"{value:.4g}"
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(cell(v) for v in value[:4]) + (", ...]" if len(value) > 4 else "]")
        return str(value)

    return table([keys] + [[cell(r.get(k)) for k in keys] for r in records])


class _SimulateGroup(click.Group):
    """``flt simulate``: a subcommand per discovered system that declares one."""

    def _systems(self) -> dict:
        return {name: s for name, s in discover().items() if s.simulate is not None}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._systems())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        system = self._systems().get(name)
        return None if system is None else _simulate_command(system)


@click.group("simulate", cls=_SimulateGroup, invoke_without_command=True,
             short_help="Simulate a system and measure the observables of its laws.")
@click.pass_context
def simulate_group(ctx: click.Context) -> None:
    """Simulate a system (torch) and measure the observables of its laws: one subcommand per system,
    generated from its declaration. --json prints {"system", "records", ...}."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
