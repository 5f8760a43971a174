"""A read-only table of named declarations (parameters, observables): the mapping behaviour they share."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeVar

__all__ = ["Declared"]

T = TypeVar("T")


class Declared(Mapping[str, T]):
    """A read-only mapping name -> declaration, in declaration order (``_items``, filled by the subclass's
    constructor, which checks the declarations); its ``repr`` lists the names.

    >>> class Colours(Declared[int]):
    ...     def __init__(self, **items: int):
    ...         self._items = dict(items)
    >>> c = Colours(red=1, blue=2)
    >>> c["blue"], list(c), len(c), c
    (2, ['red', 'blue'], 2, Colours(red, blue))
    """

    _items: dict[str, T]

    def __getitem__(self, name: str) -> T:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._items)})"
