"""The learning-rate schedule, one value per run: a run's rate at its own update, as a ``[K]`` tensor.

Runs of one batch may differ in peak rate, warm-up, budget and schedule (issue 48): each is a ``[K]`` tensor here, and
the rate of every run at its own update ``s`` comes from one vectorised expression, with no host round trip:

* warm-up: ``lr * s / warmup`` while ``s < warmup``;
* cosine (the paper's): ``lr * (1 + cos(pi * min(s - warmup, span) / span)) / 2``, ``span = max(steps - warmup, 1)``;
* WSD (protocol 4, :mod:`penb.trunks`): ``lr`` until ``D = decay_start(steps, decay)``, then
  ``lr * max(steps - s, 0) / max(steps - D, 1)``.

:func:`lr_at` is the same formula for one run and one update in Python floats (checkpoints record it, tests read it).
Past its budget a run's rate is 0 (both schedules end at 0), so a run that has reached its budget inside a batch
still moves no weight while it waits to be packed out.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import torch

from penb.run_config import decay_start


def lr_at(config: Mapping[str, Any], step: int) -> float:
    """Learning rate of update ``step`` (0-based) of the run ``config`` (a normalised run config)."""
    c = config
    if step >= c["steps"]:
        return 0.0
    if step < c["warmup"]:
        return c["lr"] * step / c["warmup"]
    if c.get("schedule") == "wsd":
        start = decay_start(c["steps"], c["decay"])
        return c["lr"] if step < start else c["lr"] * max(c["steps"] - step, 0) / max(c["steps"] - start, 1)
    span = max(c["steps"] - c["warmup"], 1)
    return c["lr"] * 0.5 * (1 + math.cos(math.pi * min(step - c["warmup"], span) / span))


class Schedule:
    """K runs' schedules as ``[K]`` float64 tensors on ``device``; ``rates(step)`` is each run's rate at its own
    update ``step: Tensor[K]`` (float64, 0-based), ``Tensor[K]`` in float64."""

    def __init__(self, configs: Sequence[Mapping[str, Any]], device: torch.device):
        def col(values):
            return torch.tensor([float(v) for v in values], dtype=torch.float64, device=device)   # [K]

        self.lr = col(c["lr"] for c in configs)
        self.warmup = col(c["warmup"] for c in configs)
        self.steps = col(c["steps"] for c in configs)
        self.wsd = torch.tensor([c.get("schedule") == "wsd" for c in configs], device=device)        # [K] bool
        self.start = col(decay_start(c["steps"], c["decay"]) if c.get("schedule") == "wsd" else c["steps"]
                         for c in configs)

    def rates(self, step: torch.Tensor) -> torch.Tensor:
        """``step: Tensor[K]`` -> ``Tensor[K]``: every run's rate at its own update (0 at and past its budget)."""
        warm = self.lr * step / self.warmup.clamp(min=1)                                   # [K]
        span = (self.steps - self.warmup).clamp(min=1)                                     # [K]
        cosine = self.lr * 0.5 * (1 + torch.cos(math.pi * (step - self.warmup).clamp(max=span) / span))
        decay = self.lr * (self.steps - step).clamp(min=0) / (self.steps - self.start).clamp(min=1)
        wsd = torch.where(step < self.start, self.lr, decay)                               # [K]
        rate = torch.where(step < self.warmup, warm, torch.where(self.wsd, wsd, cosine))
        return torch.where(step < self.steps, rate, torch.zeros_like(rate))
