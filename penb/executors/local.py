"""The executor interface, and the local (in-process) executor."""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, Iterable, Optional

import torch


class Executor(ABC):
    """Runs ``fn`` over ``items``; returns the results in the order of ``items``; errors propagate."""

    @abstractmethod
    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list:
        ...


class LocalExecutor(Executor):
    """In this process, one item after another."""

    def __init__(self, threads: Optional[int] = None):
        self.threads = check_count("threads", threads, optional=True)

    def map(self, fn, items):
        before = torch.get_num_threads()
        if self.threads:
            torch.set_num_threads(self.threads)
        try:
            return [fn(item) for item in items]
        finally:
            torch.set_num_threads(before)


def check_count(name: str, v, optional: bool = False):
    """``v`` if it is a positive int (or None, when ``optional``); else ``ValueError``."""
    if optional and v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return v
