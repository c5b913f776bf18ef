"""The executor interface every executor implements, and the check of their count options (``workers``,
``threads``, ``max_runs``, ``gpus_per_job``, ``array_parallelism``, ...)."""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, Iterable


class Executor(ABC):
    """Runs ``fn`` over ``items``; returns the results in the order of ``items``; errors propagate."""

    @abstractmethod
    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list:
        ...


def check_count(name: str, v, optional: bool = False):
    """``v`` if it is a positive int (or None, when ``optional``); else ``ValueError``."""
    if optional and v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return v
