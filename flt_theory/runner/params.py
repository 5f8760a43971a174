r"""Experiment parameters declared once: :class:`Param` (name, kind, range or choices, unit, help, default).

One :class:`Param` per parameter feeds every place that used to restate it (after scikit-learn's
``_parameter_constraints``, read by ``check_param_validation``):

* the runner's coercion — a :class:`Param` is the ``types=`` converter of :func:`~flt_theory.runner.experiment`
  (``"64"`` and ``64.0`` become ``64``; a value out of range is refused naming the parameter), and
  ``experiment(name, params=...)`` takes the converters and the defaults from a :class:`Params`;
* the validation of a config object — :meth:`Params.validate` checks (and normalises) the declared fields of a
  frozen dataclass in its ``__post_init__``;
* the options of ``flt simulate SYSTEM`` and their bounds — ``Option.of(param)`` in the systems layer
  (:class:`~flt_theory.systems.declaration.Option` objects carrying their :class:`Param`);
* the cost guard, which validates the options through their :class:`Param` before it evaluates a declared cost;
* a generated invalid-value test — :meth:`Param.invalid_values` (below the minimum, above the maximum, the wrong
  type, not among the choices).

Every refusal has one shape: ``The 'n' parameter of AttentionConfig must be an int >= 2. Got 1 instead.``
(:class:`~flt_theory.errors.InvalidParameterTypeError` for the wrong kind,
:class:`~flt_theory.errors.InvalidParameterError` for a bad value).

>>> n = Param("n", "int", minimum=2, unit="count", help="Training samples.")
>>> n("64"), n(64.0)
(64, 64)
>>> n(1)
Traceback (most recent call last):
...
flt_theory.errors.InvalidParameterError: The 'n' parameter must be an int >= 2. Got 1 instead.
>>> Param("eta", "float", minimum=0, exclusive_minimum=True).describe()
'a finite real number > 0'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, SupportsInt, cast

from ..errors import InvalidParameterError, InvalidParameterTypeError
from .declared import Declared

__all__ = ["REQUIRED", "Param", "Params"]


class _Required:
    """The default of a parameter without one (it must be given)."""

    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of a parameter that must be given.
REQUIRED: Any = _Required()

_KINDS = ("int", "float", "str", "choice")


def _parse(value: Any, kind: str) -> int | float | None:
    """``value`` as an int (``kind`` ``"int"``: ``64``, ``64.0``, ``"64"``) or a float, when it is one or its text;
    else None (a bool is not a number)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        return None
    if isinstance(value, str):
        try:
            return int(value.strip()) if kind == "int" else float(value.strip())
        except ValueError:
            return None
    if kind != "int":
        return float(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    # typeshed's numbers.Real promises __trunc__, not __int__; the reals met here (float, numpy's) have __int__
    return int(cast(SupportsInt, value)) if math.isfinite(float(value)) and float(value).is_integer() else None


def _number(value: float) -> str:
    """A bound as written: ``2``, ``0.5``, ``1e-12``."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"


@dataclass(frozen=True)
class Param:
    r"""One experiment parameter, declared once.

    Attributes
    ----------
    name
        Its Python name (the keyword of the experiment and of the config; ``flt simulate`` spells it with ``-``).
    kind
        ``"int"``, ``"float"`` (finite), ``"str"`` or ``"choice"`` (one of ``choices``).
    minimum, maximum
        Inclusive bounds of a number (None: unbounded); ``exclusive_minimum`` makes the minimum strict (``> 0``).
    choices
        The values of a ``"choice"``.
    default
        The value an experiment point takes when it does not set it (:data:`REQUIRED`: none).
    unit, help
        What it is measured in (``"count"``, ``"1"`` for a pure number, ...) and one line of help.
    nullable
        Whether None is a value (a config field whose default is derived from the others).
    words
        Words a number parameter also takes (``"theory"``, ``"auto"``: a value derived where it is used); other
        text is a bad value, not a wrong type.

    >>> eta = Param("eta", minimum=0, exclusive_minimum=True, words=("theory",))
    >>> eta(" theory"), eta("64"), eta.describe()
    ('theory', 64.0, "a finite real number > 0 or 'theory'")
    """

    name: str
    kind: str = "float"
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    choices: tuple[object, ...] = ()
    default: Any = REQUIRED
    unit: str = "1"
    help: str = ""
    nullable: bool = field(default=False, repr=False)
    words: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise InvalidParameterError(f"Param {self.name!r}: kind must be one of {_KINDS}. Got {self.kind!r} "
                                        "instead.")
        if self.kind == "choice" and not self.choices:
            raise InvalidParameterError(f"Param {self.name!r} of kind 'choice' needs its choices.")
        object.__setattr__(self, "choices", tuple(self.choices))
        object.__setattr__(self, "words", tuple(self.words))

    @property
    def __name__(self) -> str:  # the runner names a converter by its __name__
        return self.kind

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def describe(self) -> str:
        """What a valid value is, in words (``an int >= 2``, ``one of ('gd', 'sign-gd')``)."""
        if self.kind == "choice":
            return f"one of {self.choices}"
        if self.kind == "str":
            return "a str"
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.exclusive_minimum else '>='} {_number(self.minimum)}")
        if self.maximum is not None:
            parts.append(f"<= {_number(self.maximum)}")
        what = "an int" if self.kind == "int" else "a finite real number"
        return what + (" " + " and ".join(parts) if parts else "") + "".join(f" or {w!r}" for w in self.words)

    def _refuse(self, value: Any, caller: str | None, error: type[Exception]) -> Exception:
        where = f"The {self.name!r} parameter" + (f" of {caller}" if caller else "")
        return error(f"{where} must be {self.describe()}{' or None' if self.nullable else ''}. Got {value!r} instead.")

    def check(self, value: Any, caller: str | None = None, *, strict: bool = True) -> Any:
        """``value`` checked and normalised (an int, a float, a str); ``strict``: a number must already be of its kind
        (a config object), else text and integral floats are converted (the runner's coercion, the command line).
        Raises :class:`~flt_theory.errors.InvalidParameterTypeError` (wrong kind) or
        :class:`~flt_theory.errors.InvalidParameterError` (out of range, not among the choices), naming the parameter
        and ``caller``."""
        if value is None and self.nullable:
            return None
        if self.words and isinstance(value, str):
            if value.strip() in self.words:
                return value.strip()
            if _parse(value, self.kind) is None:
                raise self._refuse(value, caller, InvalidParameterError)
        if self.kind in ("str", "choice"):
            if not isinstance(value, str):
                raise self._refuse(value, caller, InvalidParameterTypeError)
            if self.kind == "choice" and value not in self.choices:
                raise self._refuse(value, caller, InvalidParameterError)
            return str(value)
        if strict and (
            isinstance(value, bool) or not isinstance(value, numbers.Integral if self.kind == "int" else numbers.Real)
        ):
            raise self._refuse(value, caller, InvalidParameterTypeError)
        number = _parse(value, self.kind)
        if number is None:
            raise self._refuse(value, caller, InvalidParameterTypeError if not isinstance(value, numbers.Real)
                               or isinstance(value, bool) else InvalidParameterError)
        low = self.minimum is not None and (number <= self.minimum if self.exclusive_minimum else number < self.minimum)
        if not math.isfinite(number) or low or (self.maximum is not None and number > self.maximum):
            raise self._refuse(value, caller, InvalidParameterError)
        return number

    def __call__(self, value: Any) -> Any:
        """The runner's coercion (a ``types=`` converter): :meth:`check` with ``strict=False``."""
        return self.check(value, strict=False)

    def invalid_values(self) -> list[tuple[str, Any]]:
        """``[(reason, value), ...]`` that :meth:`check` must refuse: below the minimum, above the maximum, the wrong
        type, not among the choices (for the generated invalid-value test).

        >>> Param("p0", "float", minimum=0, maximum=1).invalid_values()
        [('below minimum', -1.0), ('above maximum', 2.0), ('wrong type', 'abc'), ('not finite', nan)]
        """
        out: list[tuple[str, Any]] = []
        if self.kind == "choice":
            return [("not among the choices", "not-a-" + self.name), ("wrong type", 3)]
        if self.kind == "str":
            return [("wrong type", 3)]
        step = 1 if self.kind == "int" else max(1.0, abs(self.minimum or 0), abs(self.maximum or 0))
        if self.minimum is not None:
            below = self.minimum if self.exclusive_minimum else self.minimum - step
            out.append(("below minimum", int(below) if self.kind == "int" else float(below)))
        if self.maximum is not None:
            above = self.maximum + step
            out.append(("above maximum", int(above) if self.kind == "int" else float(above)))
        out.append(("wrong type", "abc"))
        out.append(("not an integer", 2.5) if self.kind == "int" else ("not finite", math.nan))
        return out

    def example(self) -> Any:
        """A valid value (the default, else the first choice, else a value in range)."""
        if not self.required and self.default is not None:
            return self.default
        if self.kind in ("choice", "str"):
            return self.choices[0] if self.choices else "z"
        low = self.minimum if self.minimum is not None else 1
        value = low + (1 if self.exclusive_minimum or self.minimum is None else 0)
        value = value if self.maximum is None else min(value, self.maximum)
        return int(value) if self.kind == "int" else float(value)


class Params(Declared[Param]):
    """The declared parameters of an experiment or a config, by name (a read-only mapping name -> :class:`Param`).

    >>> P = Params(Param("n", "int", minimum=2), Param("eta", "float", minimum=0, exclusive_minimum=True, default=0.1))
    >>> P.defaults(), list(P.types())
    ({'eta': 0.1}, ['n', 'eta'])
    >>> P.check({"n": 1}, caller="demo")
    Traceback (most recent call last):
    ...
    flt_theory.errors.InvalidParameterError: The 'n' parameter of demo must be an int >= 2. Got 1 instead.
    """

    def __init__(self, *params: Param):
        self._items: dict[str, Param] = {}
        for p in params:
            if not isinstance(p, Param):
                raise InvalidParameterTypeError(f"Params takes Param objects. Got {p!r} instead.")
            if p.name in self._items:
                raise InvalidParameterError(f"Params declares {p.name!r} twice.")
            self._items[p.name] = p

    def subset(self, *names: str, **defaults: Any) -> Params:
        """The parameters ``names`` (all when none are named), with ``defaults`` replacing their defaults."""
        from dataclasses import replace

        chosen = names or tuple(self._items)
        return Params(*(replace(self._items[n], default=defaults[n]) if n in defaults else self._items[n]
                        for n in chosen))

    def without(self, *names: str) -> Params:
        """These parameters but ``names`` (a config field that is not an experiment parameter)."""
        return Params(*(p for n, p in self._items.items() if n not in names))

    def types(self) -> dict[str, Param]:
        """The runner's converters (``experiment(types=...)``): each :class:`Param` itself."""
        return dict(self._items)

    def defaults(self) -> dict[str, Any]:
        """The declared defaults (the runner's ``defaults=``)."""
        return {n: p.default for n, p in self._items.items() if not p.required}

    def check(self, values: Mapping[str, Any], caller: str | None = None, *, strict: bool = True) -> dict[str, Any]:
        """The declared entries of ``values``, checked and normalised (:meth:`Param.check`); others pass unchanged."""
        return {k: self._items[k].check(v, caller, strict=strict) if k in self._items else v
                for k, v in values.items()}

    def check_flags(self, values: Mapping[str, Any], caller: str | None = None, *,
                    flags: Mapping[str, str] | None = None) -> None:
        """Check the values of a command's options (each element of a list or tuple: a grid), by parameter name; a
        refusal's message starts with the option (``--mu-norm: The 'mu_norm' parameter ...``; ``flags`` renames one).

        >>> mu_norm = Param("mu_norm", "float", minimum=0, exclusive_minimum=True)
        >>> Params(mu_norm).check_flags({"mu_norm": [1.0, 0.0]})  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        flt_theory.errors.InvalidParameterError: --mu-norm: The 'mu_norm' parameter must be a finite real number > 0.
        Got 0.0 instead.
        """
        for name, value in values.items():
            flag = "--" + (flags or {}).get(name, name.replace("_", "-"))
            for item in value if isinstance(value, (list, tuple)) else (value,):
                try:
                    self._items[name].check(item, caller)
                except (InvalidParameterError, InvalidParameterTypeError) as exc:
                    raise type(exc)(f"{flag}: {exc}") from None

    def option_named(self, message: str, default: str = "") -> str:
        """The command-line spelling (``_`` as ``-``) of the declared parameter an error ``message`` names
        (``The 'max_steps' parameter ...`` -> ``max-steps``), else ``default``.

        >>> Params(Param("max_steps", "int")).option_named("The 'max_steps' parameter of f must be an int.")
        'max-steps'
        """
        return next((n.replace("_", "-") for n in self._items if f"'{n}'" in message), default)

    def validate(self, config: Any, caller: str | None = None, *, skip: Iterable[str] = ()) -> None:
        """Check and normalise, in place, every declared field of the frozen dataclass ``config`` (in its
        ``__post_init__``), but those in ``skip``."""
        caller = caller or type(config).__name__
        for name, param in self._items.items():
            if name not in skip and hasattr(config, name):
                object.__setattr__(config, name, param.check(getattr(config, name), caller))
