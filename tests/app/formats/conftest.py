"""Helpers shared by the format readers' tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from types import ModuleType

import pytest


def record_threads(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> list[int]:
    """Make ``module.in_order`` note how many threads each pass over a file asks for."""
    used: list[int] = []
    real = module.in_order

    def recording(
        work: Callable[[int], object], items: Iterable[int], threads: int
    ) -> Iterator[object]:
        used.append(threads)
        return real(work, items, threads)

    monkeypatch.setattr(module, "in_order", recording)
    return used
