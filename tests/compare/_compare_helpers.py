"""Test helpers shared by the comparator tests."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import pytest


def raises_named_errors(cases: Sequence[tuple[Callable[[], Any], type[Exception], str]]) -> Callable[..., None]:
    """A test, parametrized over ``cases``, that each ``(call, error, match)`` raises ``error`` matching ``match``."""

    @pytest.mark.parametrize(("call", "error", "match"), cases)
    def test(call: Callable[[], Any], error: type[Exception], match: str) -> None:
        with pytest.raises(error, match=match):
            call()

    return test
