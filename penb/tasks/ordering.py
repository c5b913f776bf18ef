"""The ordering tasks of the main paper: ``reverse`` (Sec. 3.1), ``sort`` (App. A.2), ``reverse_add``
(App. A.1), ``predecessor`` (App. A.3) and ``reverse_variable`` (App. B)."""
from __future__ import annotations

import math

import torch

from penb.tasks.task import IGNORE, Batch, Task


class Reverse(Task):
    """``reverse``: inputs [x_1..x_L, V..V], targets [-100 (L times), x_L..x_1]."""

    name = "reverse"

    @property
    def scored_from(self):
        return self.length                        # the output phase

    def _output(self, x: torch.Tensor) -> torch.Tensor:
        return x.flip(1)

    def render(self, raw, spec=None):
        inputs = torch.cat([raw, torch.full_like(raw, self.command)], 1)
        targets = torch.cat([torch.full_like(raw, IGNORE), self._output(raw)], 1)
        return Batch(inputs, targets, self._fixed_lengths(raw.shape[0], raw.device))


class Sort(Reverse):
    """``sort``: targets are the inputs in ascending order (ties kept), App. A.2."""

    name = "sort"

    def _output(self, x):
        return x.sort(1).values


class ReverseAdd(Task):
    """``reverse_add``: raw [x_1..x_L, y_1..y_L]; y is fed in the output phase; target (x_{L+1-i}+y_i) mod V."""

    name = "reverse_add"

    @property
    def scored_from(self):
        return self.length                        # the output phase

    def _patterns(self):
        return self.vocab_size ** (2 * self.length)

    def _raw(self, spec, g):
        return torch.randint(self.vocab_size, (spec.shape[0], 2 * self.length), generator=g, device=g.device)

    def render(self, raw, spec=None):
        x, y = raw[:, :self.length], raw[:, self.length:]
        targets = torch.cat([torch.full_like(x, IGNORE), (x.flip(1) + y) % self.vocab_size], 1)
        return Batch(raw.clone(), targets, self._fixed_lengths(raw.shape[0], raw.device))


class Predecessor(Task):
    """``predecessor``: distinct x_1..x_L, then x_q (2 <= q <= L) at step L+1; target x_{q-1} there.

    raw = [x_1..x_L, q-1] (the 0-based index of the queried token); ``info["query_index"]`` is q-1.
    """

    name = "predecessor"

    def _check(self):
        if self.length < 2 or self.vocab_size < self.length:
            raise ValueError(f"predecessor needs length >= 2 and vocab_size >= length (distinct tokens), "
                             f"got V={self.vocab_size}, L={self.length}")

    @property
    def num_steps(self):
        return self.length + 1

    @property
    def scored_from(self):
        return self.length                        # the query step alone

    def _patterns(self):
        return math.perm(self.vocab_size, self.length) * (self.length - 1)

    def _raw(self, spec, g):
        n = spec.shape[0]
        x = torch.rand(n, self.vocab_size, generator=g, device=g.device).topk(self.length, 1).indices
        q = torch.randint(1, self.length, (n, 1), generator=g, device=g.device)
        return torch.cat([x, q], 1)

    def render(self, raw, spec=None):
        x, q = raw[:, :self.length], raw[:, self.length:]
        targets = torch.full_like(raw, IGNORE)
        targets[:, -1:] = x.gather(1, q - 1)
        inputs = torch.cat([x, x.gather(1, q)], 1)
        return Batch(inputs, targets, self._fixed_lengths(raw.shape[0], raw.device), {"query_index": q[:, 0]})


class ReverseVariable(Task):
    """``reverse_variable``: length l ~ U{min_length..L} per sequence (App. B), T = 2L.

    Sequence i: x_1..x_l, then V (l times), then V padding to 2L with targets -100 (the models are
    causal, so the padding cannot affect steps < 2l). raw = x padded with -1; ``lengths`` = l.
    The test set holds ``num_sequences`` per length.
    """

    name = "reverse_variable"
    options = {"min_length": None}

    def _check(self):
        if self.min_length is None:
            self.min_length = max(1, self.length // 2)
        if isinstance(self.min_length, bool) or not isinstance(self.min_length, int) \
                or not 1 <= self.min_length <= self.length:
            raise ValueError(f"min_length must be an int in [1, length={self.length}], got {self.min_length!r}")

    def _patterns(self):
        return self.vocab_size ** self.min_length

    def _train_spec(self, n, g):
        return torch.randint(self.min_length, self.length + 1, (n, 1), generator=g, device=g.device)

    def _test_spec(self, n, device):
        lengths = torch.arange(self.min_length, self.length + 1, device=device)
        return lengths.repeat_interleave(n)[:, None]

    def _groups(self, spec):
        return spec[:, 0]

    def _raw(self, spec, g):
        x = torch.randint(self.vocab_size, (spec.shape[0], self.length), generator=g, device=g.device)
        return x.masked_fill(torch.arange(self.length, device=x.device) >= spec, -1)

    def render(self, raw, spec=None):
        n, L = raw.shape
        lengths = (raw >= 0).sum(1) if spec is None else spec[:, 0]
        t = torch.arange(2 * L, device=raw.device)[None, :]
        inputs = torch.full((n, 2 * L), self.command, dtype=torch.long, device=raw.device)
        inputs[:, :L] = torch.where(raw >= 0, raw, self.command)
        src = (2 * lengths[:, None] - 1 - t).clamp(0, L - 1)
        valid = (t >= lengths[:, None]) & (t < 2 * lengths[:, None])
        targets = torch.where(valid, raw.gather(1, src), IGNORE)
        return Batch(inputs, targets, lengths.clone())
