"""A task's common part: ``Batch`` (whole sequences), the held-out row hash and ``Task``.

A task lays a sequence over ``T`` time steps (input and output phase): ``inputs`` LongTensor[B, T], where
a step without an input token carries the command token ``V``, and ``targets`` LongTensor[B, T], where a
step without a target carries ``IGNORE = -100``. Held-out sequences are drawn first, are pairwise
distinct, and ``sample`` never yields them afterwards (rows compared by a 62-bit polynomial hash).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import torch

IGNORE = -100
_M = 2**31 - 1                      # Mersenne prime modulus of the row hash
_P = (1_000_003, 998_244_353)       # two bases -> two 31-bit hashes -> one 62-bit key


@dataclass
class Batch:
    """A batch of whole sequences.

    inputs, targets: LongTensor[B, T]; lengths: LongTensor[B], each sequence's input length;
    info: per-sequence labels, e.g. ``target_position`` (LongTensor[B]) of the dual-frequency test set.
    """

    inputs: torch.Tensor
    targets: torch.Tensor
    lengths: torch.Tensor
    info: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return self.inputs.shape[0]

    def to(self, device) -> "Batch":
        return Batch(self.inputs.to(device), self.targets.to(device), self.lengths.to(device),
                     {k: v.to(device) for k, v in self.info.items()})

    def select(self, index) -> "Batch":
        """Rows ``index`` (a slice, LongTensor or BoolTensor[B])."""
        return Batch(self.inputs[index], self.targets[index], self.lengths[index],
                     {k: v[index] for k, v in self.info.items()})


_POWERS: dict = {}


def _powers(width: int, device) -> torch.Tensor:
    """LongTensor[2, width]: P^(width-1-j) mod M for both bases (cached per width and device)."""
    key = (width, str(device))
    if key not in _POWERS:
        rows = [[pow(p, width - 1 - j, _M) for j in range(width)] for p in _P]   # Horner order
        _POWERS[key] = torch.tensor(rows, dtype=torch.long, device=device)
    return _POWERS[key]


def row_keys(rows: torch.Tensor) -> torch.Tensor:
    """LongTensor[n] of 62-bit hashes of the rows of ``rows`` (LongTensor[n, S], values in [-1, 2^24)).

    Two polynomial hashes modulo the prime M = 2^31 - 1, exact in int64: over a chunk of 64 columns
    each product is below 2^25 * 2^31 and a chunk sums 64 of them (< 2^62); chunks are chained
    by h <- h * P^64 + chunk (mod M).
    """
    x = rows.long() + 2                                              # >= 1, < 2^25
    keys = []
    for i, p in enumerate(_P):
        h = torch.zeros(rows.shape[0], dtype=torch.long, device=rows.device)
        for start in range(0, rows.shape[1], 64):
            chunk = x[:, start:start + 64]
            pw = _powers(chunk.shape[1], rows.device)[i]
            h = (h * pow(p, chunk.shape[1], _M) + (chunk * pw).sum(1)) % _M
        keys.append(h)
    return keys[0] * _M + keys[1]


def _duplicates(keys: torch.Tensor) -> torch.Tensor:
    """BoolTensor[n]: True for every row whose key already occurred in an earlier row."""
    order = torch.sort(keys, stable=True).indices
    dup = torch.zeros_like(keys, dtype=torch.bool)
    dup[order[1:]] = keys[order[1:]] == keys[order[:-1]]
    return dup


class Task:
    """Base class: a task draws raw sequences (``_raw``) per row spec and renders them (``render``).

    ``raw`` (LongTensor[n, S]) is what identifies a sequence for the held-out exclusion; ``spec``
    (LongTensor[n, k]) carries per-row choices that are not drawn token by token (a length, a test cell).
    """

    name = ""
    options: dict = {}

    def __init__(self, vocab_size: int, length: int, **options):
        for key, v in (("vocab_size", vocab_size), ("length", length)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"{key} must be an int, got {v!r}")
        if vocab_size < 2:
            raise ValueError(f"vocab_size must be >= 2, got {vocab_size}")
        if vocab_size >= 2**24:
            raise ValueError(f"vocab_size must be < 2^24, got {vocab_size}")
        if length < 1:
            raise ValueError(f"length must be >= 1, got {length}")
        unknown = set(options) - set(self.options)
        if unknown:
            raise ValueError(f"task {self.name!r}: unknown option(s) {sorted(unknown)}; "
                             f"valid: {sorted(self.options) or 'none'}")
        self.vocab_size, self.length = vocab_size, length
        for k, default in self.options.items():
            setattr(self, k, options.get(k, default))
        self._held_keys: Optional[torch.Tensor] = None
        self._check()

    # -- to override ---------------------------------------------------------------------------------
    def _check(self) -> None:
        """Raise ValueError for impossible option values."""

    @property
    def num_steps(self) -> int:
        """T: time steps of one sequence (input and output phases); positions run 0..T-1."""
        return 2 * self.length

    @property
    def scored_from(self) -> int:
        """The first step at which any sequence of the task can carry a target (a training batch's loss and
        logits start there: ``penb.trainer``); 0 unless a task knows better."""
        return 0

    def _patterns(self) -> int:
        """Distinct raw sequences within one held-out group (see ``_groups``)."""
        return self.vocab_size ** self.length

    def _train_spec(self, n: int, g: torch.Generator) -> torch.Tensor:
        return torch.zeros(n, 0, dtype=torch.long, device=g.device)

    def _test_spec(self, n: int, device) -> torch.Tensor:
        return torch.zeros(n, 0, dtype=torch.long, device=device)

    def _groups(self, spec: torch.Tensor) -> torch.Tensor:
        """LongTensor[n]: held-out group of each row (rows of one group share their pattern space)."""
        return torch.zeros(spec.shape[0], dtype=torch.long, device=spec.device)

    def _raw(self, spec: torch.Tensor, g: torch.Generator) -> torch.Tensor:
        return torch.randint(self.vocab_size, (spec.shape[0], self.length), generator=g, device=g.device)

    def render(self, raw: torch.Tensor, spec: Optional[torch.Tensor] = None) -> Batch:
        """Lay raw sequences LongTensor[n, S] out as a Batch (inputs/targets LongTensor[n, T])."""
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------------------------
    @property
    def command(self) -> int:
        """Token id fed where a step has no input token."""
        return self.vocab_size

    def _fixed_lengths(self, n: int, device) -> torch.Tensor:
        return torch.full((n,), self.length, dtype=torch.long, device=device)

    def identity(self) -> dict:
        """What a run key must cover beyond the task's name and options (e.g. the digest of a corpus read
        from disk); {} for the synthetic tasks, whose options say everything."""
        return {}

    def check_held_out(self, num_sequences: int, device="cpu") -> torch.Tensor:
        """Raise ValueError unless ``num_sequences`` distinct test sequences (and training ones
        besides) exist; returns the test rows' spec."""
        if isinstance(num_sequences, bool) or not isinstance(num_sequences, int) or num_sequences < 1:
            raise ValueError(f"num_sequences must be a positive int, got {num_sequences!r}")
        spec = self._test_spec(num_sequences, device)
        largest = int(torch.bincount(self._groups(spec)).max())
        if largest >= self._patterns():
            raise ValueError(f"task {self.name!r} (V={self.vocab_size}, L={self.length}) has only "
                             f"{self._patterns()} distinct sequences per group; cannot hold out {largest}")
        return spec

    def held_out(self, num_sequences: int, generator: torch.Generator) -> Batch:
        """Draw the test set (distinct sequences) and exclude it from every later ``sample``.

        ``num_sequences`` is the task's count (per length for ``reverse_variable``; the whole
        4 x L grid for ``dual_frequency``). Draw it before training, as the original code does.
        """
        spec = self.check_held_out(num_sequences, generator.device)
        raw = self._raw(spec, generator)
        while True:
            dup = _duplicates(row_keys(raw))
            if not dup.any():
                break
            raw[dup] = self._raw(spec[dup], generator)
        self._held_keys = torch.unique(row_keys(raw))
        return self.render(raw, spec)

    def sample(self, batch_size: int, generator: torch.Generator) -> Batch:
        """A training batch of ``batch_size`` fresh sequences, none of them held out."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        spec = self._train_spec(batch_size, generator)
        raw = self._raw(spec, generator)
        if self._held_keys is not None:
            bad = torch.isin(row_keys(raw), self._held_keys)
            while bad.any():
                idx = bad.nonzero().squeeze(1)
                raw[idx] = self._raw(spec[idx], generator)
                bad = torch.zeros_like(bad)
                bad[idx] = torch.isin(row_keys(raw[idx]), self._held_keys)
        return self.render(raw, spec)
