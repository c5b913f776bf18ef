"""The local executor: the runs in this process, one after another."""
from __future__ import annotations

from typing import Optional

import torch

from penb.executors.interface import Executor, check_count


class LocalExecutor(Executor):
    """In this process, one item after another (``threads``: torch threads while it runs)."""

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
