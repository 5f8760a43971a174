"""A system's observables, declared once (:class:`Observable`, :class:`Observables`): the outputs of its experiments
and the fields of its ``flt simulate`` records, each with its one public name, meaning and unit; the parameters they
are functions of are declared in :mod:`.params`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidParameterError, InvalidParameterTypeError
from .declared import Declared

__all__ = ["Observable", "Observables"]

#: A placeholder of a family of observables (``err_{i}``: ``err_0``, ``err_1``, ...): a name in braces, standing for a
#: non-negative integer.
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z_0-9]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@dataclass(frozen=True)
class Observable:
    r"""One observable of a system, declared once: an output of its experiments (a column of their stored rows), a
    field of its ``flt simulate`` records, or both.

    Attributes
    ----------
    name
        Its one public name: what ``flt simulate`` records show, what ``--law``'s OBS and ``--where`` take and
        ``flt observables`` lists. A *family* holds placeholders in braces, each standing for an integer index
        (``err_{i}``: ``err_0``, ``err_1``, ...; ``m{t}_{a}{b}``: ``m1_02``).
    meaning, unit
        What it is, and what it is measured in (``"1"`` for a pure number, ``"count"``, ``"fraction"``, ...).
    key
        The output key the experiments store it under, where that differs from ``name`` (stored rows are keyed by
        their experiment's code and output names, so a stored key is never renamed: the public name maps onto it).
    aliases
        Other names accepted for it where users may have typed them (the stored ``key`` is always accepted).
    experiments
        The runner experiments that record it (empty: only ``flt simulate`` records it, e.g. a trajectory).

    >>> err = Observable("err_{i}", "test error at the i-th grid point", "fraction", experiments=("demo/curve",))
    >>> err.is_family, err.stored("err_3"), err.stored("err_x")
    (True, 'err_3', None)
    >>> Observable("steps_to_weak_recovery", "samples to overlap 1/2", "samples", key="steps").stored("steps")
    'steps'
    """

    name: str
    meaning: str
    unit: str = "1"
    key: str = ""
    aliases: tuple[str, ...] = ()
    experiments: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "aliases", tuple(self.aliases))
        object.__setattr__(self, "experiments", tuple(self.experiments))
        if not _NAME.fullmatch(_PLACEHOLDER.sub("0", self.name)) or not self.meaning:
            raise InvalidParameterError(f"Observable {self.name!r}: a name (letters, digits, '_', placeholders such "
                                        "as '{i}') and a meaning are required.")
        if self.is_family and (self.key or self.aliases):
            raise InvalidParameterError(f"Observable {self.name!r}: a family takes no key or aliases.")
        for other in (self.key, *self.aliases):
            if other and not _NAME.fullmatch(other):
                raise InvalidParameterError(f"Observable {self.name!r}: {other!r} is not a name.")

    @property
    def is_family(self) -> bool:
        """Whether the name holds placeholders (a family of indexed observables)."""
        return _PLACEHOLDER.search(self.name) is not None

    @property
    def stored_key(self) -> str:
        """The output key of the experiments (``key``, else the name; a family's pattern for a family)."""
        return self.key or self.name

    def _pattern(self) -> re.Pattern[str]:
        parts = _PLACEHOLDER.split(self.name)  # text, placeholder, text, ...
        return re.compile("".join(re.escape(p) if i % 2 == 0 else r"\d+" for i, p in enumerate(parts)))

    def stored(self, name: str) -> str | None:
        """The stored output key ``name`` stands for when it names this observable (its name, key or an alias; a
        member of a family), else None."""
        if self.is_family:
            return name if self._pattern().fullmatch(name) else None
        return self.stored_key if name in (self.name, self.key, *self.aliases) else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: name, meaning, unit, key (the stored one), aliases, experiments."""
        return {"name": self.name, "meaning": self.meaning, "unit": self.unit, "key": self.stored_key,
                "aliases": list(self.aliases), "experiments": list(self.experiments)}


class Observables(Declared[Observable]):
    """The declared observables of a system, by public name (a read-only mapping name -> :class:`Observable`).

    >>> O = Observables(Observable("steps_to_weak_recovery", "samples to overlap 1/2", "samples", key="steps",
    ...                            experiments=("demo/recovery",)),
    ...                 Observable("err_{i}", "test error at grid point i", "fraction", experiments=("demo/curve",)))
    >>> O.resolve("steps").name, O.stored("steps"), O.stored("err_12"), O.stored("nothing")
    ('steps_to_weak_recovery', 'steps', 'err_12', None)
    >>> O.public("steps"), O.public("err_2"), sorted(O.of_experiment("demo/curve"))
    ('steps_to_weak_recovery', 'err_2', ['err_{i}'])
    """

    def __init__(self, *observables: Observable):
        self._items: dict[str, Observable] = {}
        names: dict[str, str] = {}
        for o in observables:
            if not isinstance(o, Observable):
                raise InvalidParameterTypeError(f"Observables takes Observable objects. Got {o!r} instead.")
            for name in (o.name, *o.aliases) + ((o.key,) if o.key else ()):
                if name in names:
                    raise InvalidParameterError(f"Observables: {name!r} names both {names[name]!r} and {o.name!r}.")
                names[name] = o.name
            self._items[o.name] = o

    def resolve(self, name: str) -> Observable | None:
        """The observable ``name`` names (its public name, stored key, an alias, a member of a family), else None;
        an exact name wins over a family's pattern."""
        exact = [o for o in self._items.values() if not o.is_family and o.stored(name) is not None]
        if exact:
            return exact[0]
        return next((o for o in self._items.values() if o.is_family and o.stored(name) is not None), None)

    def stored(self, name: str) -> str | None:
        """The stored output key ``name`` stands for (:meth:`resolve`), else None."""
        found = self.resolve(name)
        return None if found is None else found.stored(name)

    def public(self, name: str) -> str | None:
        """The public name of what ``name`` names (a family member keeps its own index), else None."""
        found = self.resolve(name)
        if found is None:
            return None
        return name if found.is_family else found.name

    def of_experiment(self, experiment: str) -> dict[str, Observable]:
        """The observables ``experiment`` records, by public name."""
        return {n: o for n, o in self._items.items() if experiment in o.experiments}
