"""The dual-frequency task of Sec. 4.2: reverse ordering with FREQUENT and RARE tokens."""
from __future__ import annotations

import torch

from penb.tasks.task import IGNORE
from penb.tasks.ordering import Reverse


class DualFrequency(Reverse):
    """``dual_frequency`` (Sec. 4.2): reverse ordering, tokens 0..V/2-1 FREQUENT, V/2..V-1 RARE.

    Training: each position is RARE with probability ``rarity`` (1/8: a FREQUENT token is 7x as
    likely as a RARE one), the token uniform within its half. Test set: the grid target
    (FREQUENT/RARE) x disturbants (all FREQUENT/all RARE) x target position 0..L-1, ``num_sequences/(4L)``
    sequences per cell; only the target's output step is scored (other targets -100).
    ``info``: ``target_rare``, ``disturbants_rare`` (0/1), ``target_position`` (0-based input step).
    spec rows = (target_rare, disturbants_rare, target_position), all -1 for training rows.
    """

    name = "dual_frequency"
    options = {"rarity": 1 / 8}

    def _check(self):
        if self.vocab_size % 2:
            raise ValueError(f"dual_frequency needs an even vocab_size (two halves), got {self.vocab_size}")
        if not isinstance(self.rarity, (int, float)) or not 0 < self.rarity < 1:
            raise ValueError(f"rarity must be in (0, 1), got {self.rarity!r}")

    @property
    def frequent(self) -> range:
        return range(0, self.vocab_size // 2)

    @property
    def rare(self) -> range:
        return range(self.vocab_size // 2, self.vocab_size)

    def _patterns(self):
        return (self.vocab_size // 2) ** self.length

    def _train_spec(self, n, g):
        return torch.full((n, 3), -1, dtype=torch.long, device=g.device)

    def _test_spec(self, n, device):
        cells = 4 * self.length
        if n % cells:
            raise ValueError(f"dual_frequency holds out a multiple of 4 x L = {cells} sequences, got {n}")
        grid = torch.cartesian_prod(torch.arange(2, device=device), torch.arange(2, device=device),
                                    torch.arange(self.length, device=device))
        return grid.repeat_interleave(n // cells, 0)

    def _groups(self, spec):
        tr, dr, pos = spec.unbind(1)
        return torch.where(tr == dr, tr, 2 + 2 * pos + tr)

    def _raw(self, spec, g):
        n, half = spec.shape[0], self.vocab_size // 2
        tokens = torch.randint(half, (n, self.length), generator=g, device=g.device)
        rare = torch.rand(n, self.length, generator=g, device=g.device) < self.rarity
        tr, dr, pos = spec.unbind(1)
        test = pos >= 0
        at = torch.arange(self.length, device=g.device)[None, :] == pos[:, None]
        test_rare = torch.where(at, tr[:, None], dr[:, None]).bool()
        rare = torch.where(test[:, None], test_rare, rare)
        return tokens + rare.long() * half

    def render(self, raw, spec=None):
        batch = super().render(raw)
        if spec is None or not (spec[:, 2] >= 0).any():
            return batch
        tr, dr, pos = spec.unbind(1)
        step = torch.arange(2 * self.length, device=raw.device)[None, :]
        keep = (pos[:, None] < 0) | (step == 2 * self.length - 1 - pos[:, None])
        batch.targets = batch.targets.masked_fill(~keep, IGNORE)
        batch.info = {"target_rare": tr, "disturbants_rare": dr, "target_position": pos}
        return batch
