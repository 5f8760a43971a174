r"""``flt simulate SYSTEM``: one subcommand per discovered system, generated from its declaration.

The options of ``flt simulate SYSTEM`` are the system's declared
:class:`~flt_theory.systems.declaration.Option` s, converted here into click parameters with the same bounds, each value
then checked through its declared :class:`~flt_theory.runner.params.Param`. Torch and the systems are imported only
to run a simulation: the options of the package's systems are kept as data by the first run that imports them
(:mod:`flt_theory.commands.declared`), so a later run parses and checks its options, and refuses a bad one, before it
imports anything heavy (this module imports click and the commands' shared types only).
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import click

from ..errors import DivergenceError, FLTError
from .base import Bounded, InputError, emit_json, one_line, range_text
from .declared import (
    cached_entries,
    check_values,
    describe,
    option_flags,
    options_of,
    source_fingerprint,
    store_entries,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..systems.declaration import NonFiniteRecordError, SimulateCommand, System

__all__ = ["simulate_group"]


def _finite(number: float) -> bool:
    """Whether ``number`` is finite (an integer beyond any float, 4000 digits, is not: it overflows every use)."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


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
            if not _finite(number) or (self.minimum is not None and number < self.minimum) or (
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


def _given_options(ctx: click.Context) -> list[str]:
    """The numeric options given on the command line, the most extreme value first (a value far from 1 in either
    direction is what overflows): the options an overflow or a non-finite observable is blamed on."""
    given = []
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if (ctx.get_parameter_source(param.name) != click.core.ParameterSource.COMMANDLINE
                or isinstance(value, (bool, str))):
            continue
        numbers = [abs(float(v)) for v in (value if isinstance(value, tuple) else (value,))
                   if isinstance(v, (int, float))]
        extreme = max((abs(math.log10(v)) if v > 0 else 0.0 for v in numbers), default=0.0)
        given.append((extreme, param.opts[0] if param.opts else str(param.name)))
    return [name for _, name in sorted(given, reverse=True)]


def _overflow_error(ctx: click.Context, exc: Exception, what: str = "overflowed") -> InputError:
    """An overflow (or an underflow to a zero divisor, or a divergence that names no option) inside a simulation as
    bad input: it names the options given on the command line, the most extreme value first."""
    given = _given_options(ctx)
    names = ", ".join(given) or "the options"
    return InputError(given[0] if given else None,
                      f"the simulation {what} with the values given ({names}): {one_line(str(exc))[:200]}; "
                      "use values of a moderate size")


def _non_finite_error(ctx: click.Context, spec: SimulateCommand, exc: NonFiniteRecordError) -> InputError:
    """A NaN or infinite observable as bad input (exit 2): the point (the record's options and seed), then the
    options given on the command line, the most extreme value first; nothing is printed on stdout."""
    given = _given_options(ctx)
    blamed = f"; the values given, the most extreme first: {', '.join(given)}" if given else " with the defaults"
    return InputError(given[0] if given else None,
                      f"{exc.describe(spec.point_keys)}{blamed}; use values inside the model's range")


#: The suffix of the ``dest`` of a positional argument's option spelling (``--target`` beside ``TARGET``).
_AS_OPTION = "__as_option"


def _click_parameter(option, flags: Sequence[str] = ()) -> list[click.Parameter]:
    """The click parameters of a declared :class:`~flt_theory.systems.declaration.Option`: its argument or option,
    ``flags`` its other spellings (:func:`~flt_theory.commands.declared.option_flags`: the parameter's own name first,
    the declared one kept; a positional argument's ``--NAME`` as an option of its own, merged by the callback)."""
    int_maximum = _MAX_INT if option.maximum is None else option.maximum  # a count or size is a 64-bit integer
    types = {
        "int": Bounded(int, option.minimum, int_maximum), "float": Bounded(float, option.minimum, option.maximum),
        "ints": _NumberList(int, option.minimum, int_maximum),
        "floats": _NumberList(float, option.minimum, option.maximum),
        "eta": _StepSize(), "str": click.STRING, "choice": click.Choice(list(option.choices)),
    }
    if option.argument:
        argument = click.Argument([option.dest], required=option.required and not flags)
        return [argument, *(click.Option([flag, option.dest + _AS_OPTION], help=f"{option.help} (the argument "
                                         f"{option.dest.upper()}, as an option)") for flag in flags)]
    names = [*flags, "--" + option.name]
    if option.kind == "flag":
        return [click.Option([*names, option.dest], is_flag=True, help=option.help)]
    # click: None is a value
    extra = {} if option.default is None else {"default": option.default, "show_default": True}
    return [click.Option([*names, option.dest], type=types[option.kind], required=option.required, help=option.help,
                         **extra)]


#: Where a command built from the kept declaration leaves its raw arguments (``ctx.meta``), for a second parse.
_RAW_ARGS = "flt_theory.simulate.raw_args"


class _DeclaredCommand(click.Command):
    """A ``flt simulate SYSTEM`` command that keeps its raw arguments (:data:`_RAW_ARGS`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_RAW_ARGS] = list(args)
        return super().parse_args(ctx, args)


def _simulate_command(system: System) -> click.Command:
    """The command of a system imported in this process, from its own declaration."""
    spec = system.simulate
    assert spec is not None  # only systems that declare a simulate command have one
    fields = [(f.name, f.meaning, f.unit) for f in spec.fields]
    return _declared_command(system.name, system.title, spec.help, fields, spec.options, lambda: system,
                             flags=option_flags(system))


def _cached_command(entry: Mapping[str, Any]) -> click.Command:
    """The command of a system from its kept declaration (:mod:`flt_theory.commands.declared`): its options are
    parsed and checked before the system is imported, and re-parsed by the system's own command should the
    declaration found on import differ from the kept one."""

    def load() -> System:
        from ..systems.registry import get_system

        try:
            return get_system(entry["name"])
        except FLTError as exc:
            raise InputError(None, str(exc)) from exc

    return _declared_command(entry["name"], entry["title"], entry["help"], entry["fields"], options_of(entry), load,
                             kept=entry, flags=entry.get("flags") or {})


def _declared_command(name: str, title: str, help_text: str, fields: Sequence[Sequence[str]], options: Sequence[Any],
                      load: Callable[[], System], *, kept: Mapping[str, Any] | None = None,
                      flags: Mapping[str, Sequence[str]] | None = None) -> click.Command:
    """``flt simulate NAME``: its click parameters from ``options`` (:class:`~flt_theory.systems.declaration.Option`
    or :class:`~flt_theory.commands.declared.DeclaredOption`), whose values are checked through their ``Param``
    before ``load()`` imports the system; ``kept``: the kept declaration the options came from (compared with the
    system's own once it is imported); ``flags``: the options' other spellings by ``dest``."""
    flags = flags or {}

    def callback(as_json: bool, **options_given: Any) -> None:
        for option in options:  # a positional argument given as --NAME
            if option.argument and option.dest + _AS_OPTION in options_given:
                spelled = options_given.pop(option.dest + _AS_OPTION)
                if spelled is not None and options_given.get(option.dest) is not None:
                    raise InputError(f"--{option.name}", f"give {option.dest.upper()} once, as the argument or as "
                                                         f"--{option.name}")
                if spelled is not None:
                    options_given[option.dest] = spelled
                if option.required and options_given.get(option.dest) is None:
                    raise InputError(None, f"missing argument {option.dest.upper()} (or --{option.name})")
        try:
            check_values(options, options_given)  # the declared ranges, before the system (and torch) is imported
        except FLTError as exc:
            raise InputError(None, str(exc)) from exc
        system = load()
        if kept is not None and describe(system) != kept:  # the kept declaration is not this system's: parse again
            ctx = click.get_current_context()
            own = _simulate_command(system)
            with own.make_context(own.name, list(ctx.meta.get(_RAW_ARGS, ())), parent=ctx.parent) as inner:
                own.invoke(inner)
            return
        _run(system, as_json, options_given)

    params = [p for o in options for p in _click_parameter(o, flags.get(o.dest, ()))]
    params.append(click.Option(["--json", "as_json"], is_flag=True, help="Print exactly one JSON document on stdout."))
    return _DeclaredCommand(name, callback=callback, params=params, help=help_text, short_help=title,
                            epilog=_fields_epilog(fields, name))


def _run(system: System, as_json: bool, options: dict[str, Any]) -> None:
    """Run ``flt simulate SYSTEM`` with its parsed options and print the result (or one JSON document)."""
    import numpy as np

    from .._text import json_ready
    from ..systems.declaration import NonFiniteRecordError

    spec = system.simulate
    assert spec is not None  # only systems that declare a simulate command have one
    try:
        spec.check_cost(options)  # the declared cost, before anything runs
        with warnings.catch_warnings(), np.errstate(all="ignore"):  # no warning lines before the result or error
            warnings.simplefilter("ignore", RuntimeWarning)
            document = spec.run(**options)
        spec.check_finite(document)  # a NaN or infinite observable is an error, never printed
    except NonFiniteRecordError as exc:
        raise _non_finite_error(click.get_current_context(), spec, exc) from exc
    except DivergenceError as exc:  # NaN or inf inside the run (numeric.backend.check_finite)
        if str(exc).startswith("--"):  # the system named the option
            raise InputError(None, str(exc)) from exc
        raise _overflow_error(click.get_current_context(), exc, "diverged") from exc
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


def _fields_epilog(fields: Sequence[Sequence[str]], system: str = "SYSTEM") -> str | None:
    """The ``--help`` paragraph listing the JSON record fields of ``flt simulate SYSTEM`` (kept unwrapped), from
    ``(name, meaning, unit)`` triples, and where every observable of the system is listed."""
    if not fields:
        return None
    width = max(len(name) for name, _, _ in fields)
    lines = [f"  {name.ljust(width)}  {meaning} [{unit}]" for name, meaning, unit in fields]
    return ("\b\nJSON record fields (--json: one record per row of the table):\n" + "\n".join(lines)
            + f"\n\b\nEvery observable of {system} (these and its experiments'), with its meaning, unit and the "
              f"experiments that record it: flt observables {system}")


def _records_table(records: Sequence[dict]) -> str:
    """Records as an aligned text table (one column per key, lists shortened)."""
    from .._text import table

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
    """``flt simulate``: a subcommand per discovered system that declares one; a system of the package is built
    from its kept declaration while the systems are not imported yet (:mod:`flt_theory.commands.declared`)."""

    def _systems(self) -> dict[str, System]:
        """The systems that declare a simulate command (imported), their declarations kept for the next run."""
        from ..systems import discover

        fingerprint = source_fingerprint()  # of the code about to be imported
        found = {name: s for name, s in discover().items() if s.simulate is not None}
        store_entries(found, fingerprint=fingerprint)
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._systems())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if "flt_theory.systems" not in sys.modules:  # nothing imported yet: the kept declaration, if it is current
            entry = cached_entries().get(name)
            if entry is not None:
                return _cached_command(entry)
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
