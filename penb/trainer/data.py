"""Training data keyed by (run seed, block): a run's batches do not depend on how or beside whom it trains.

Update ``s`` of a run draws its batch from block ``s // BLOCK``: :data:`BLOCK` updates' batches drawn at once by
``task.sample(BLOCK * batch_size, g)`` with ``g`` seeded ``derive_seed(seed, "train/<block>")``, rows
``(s % BLOCK) * batch_size`` onward. So a run's data are a function of its seed and update alone: the same when it
trains alone, inside any batch, or resumed from any checkpoint (no generator state to carry), and a batch of K runs
calls ``task.sample`` K times every :data:`BLOCK` updates, not K times an update. The held-out rows are excluded as
``Task.sample`` always does (each run's task holds its own held-out set).

:class:`Feed` holds the current block of K runs as ``[K, BLOCK * B, T]`` and hands out each update's
``inputs [K, B, T]`` and scored ``targets [K, B, S]`` (the steps from the batch's ``scored_from`` on).
"""
from __future__ import annotations

from typing import Sequence

import torch

from penb.run_config import derive_seed
from penb.tasks import Batch, Task

BLOCK = 16              # updates drawn per call: 16 x batch 512 x T 128 x 8 bytes = 8 MiB a run at the paper's size


def block(task: Task, seed: int, index: int, batch_size: int, device: torch.device) -> Batch:
    """Block ``index`` of the run with seed ``seed``: the batches of its updates ``index * BLOCK`` to
    ``(index + 1) * BLOCK - 1``, ``BLOCK * batch_size`` rows."""
    g = torch.Generator(device=device).manual_seed(derive_seed(seed, f"train/{index}"))
    return task.sample(BLOCK * batch_size, g)


def batch_at(task: Task, seed: int, step: int, batch_size: int, device: torch.device) -> Batch:
    """The batch of update ``step`` (0-based) of one run (what :class:`Feed` gives that run at that update)."""
    rows = slice((step % BLOCK) * batch_size, (step % BLOCK + 1) * batch_size)
    return block(task, seed, step // BLOCK, batch_size, device).select(rows)


class Feed:
    """Each update's batches of K runs (tasks, seeds), ``batch_size`` rows each, scored from step ``scored_from``."""

    def __init__(self, tasks: Sequence[Task], seeds: Sequence[int], batch_size: int, scored_from: int,
                 device: torch.device):
        self.tasks, self.seeds, self.B, self.s0, self.device = list(tasks), list(seeds), batch_size, scored_from, device
        self.index = [-1] * len(self.tasks)               # the block each run holds
        self.inputs = self.targets = None                 # [K, BLOCK * B, T] (targets: [K, BLOCK * B, S])

    def _load(self, steps: Sequence[int]) -> None:
        want = [s // BLOCK for s in steps]
        if want == self.index:
            return
        if self.inputs is None:
            rows = [block(t, seed, w, self.B, self.device) for t, seed, w in zip(self.tasks, self.seeds, want)]
            self.inputs = torch.stack([r.inputs for r in rows])                           # [K, BLOCK*B, T]
            self.targets = torch.stack([r.targets[:, self.s0:] for r in rows])            # [K, BLOCK*B, S]
        else:                                             # only the runs that moved to another block draw it
            for k, (t, seed, w) in enumerate(zip(self.tasks, self.seeds, want)):
                if w != self.index[k]:
                    r = block(t, seed, w, self.B, self.device)
                    self.inputs[k], self.targets[k] = r.inputs, r.targets[:, self.s0:]
        self.index = want

    def next(self, steps: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
        """The batches of every run at its own update ``steps[k]``: ``inputs [K, B, T]``, ``targets [K, B, S]``."""
        self._load(steps)
        offsets = [(s % BLOCK) * self.B for s in steps]
        if len(set(offsets)) == 1:                        # the usual case: one slice for all K runs
            rows = slice(offsets[0], offsets[0] + self.B)
            return self.inputs[:, rows], self.targets[:, rows]
        pick = torch.stack([torch.arange(o, o + self.B) for o in offsets]).to(self.device)   # [K, B]
        idx = pick.unsqueeze(-1)
        return (self.inputs.gather(1, idx.expand(-1, -1, self.inputs.shape[2])),
                self.targets.gather(1, idx.expand(-1, -1, self.targets.shape[2])))
