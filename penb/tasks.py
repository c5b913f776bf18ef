"""The synthetic tasks of the main paper (Morita, Sec. 3.1, 4.2, App. A-B), in a registry keyed by string.

Every task lays a sequence out over ``T`` time steps covering the input and the output phase:

* ``inputs``: ``LongTensor[B, T]``; a step with no input token carries the command token ``V``
  (the paper's time-invariant learnable "command" vector is row ``V`` of the embedding);
* ``targets``: ``LongTensor[B, T]``; a step with no target carries ``IGNORE = -100``.

Keys (``V`` = vocabulary size, ``L`` = input length)::

    reverse           x_1..x_L, V..V            -> .., x_L..x_1                  (Sec. 3.1, T = 2L)
    sort              x_1..x_L, V..V            -> .., sorted ascending          (App. A.2, T = 2L)
    reverse_add       x_1..x_L, y_1..y_L        -> .., (x_{L+1-i} + y_i) mod V   (App. A.1, T = 2L)
    predecessor       x_1..x_L (distinct), x_q  -> .., x_{q-1}, 2 <= q <= L      (App. A.3, T = L+1)
    reverse_variable  lengths l ~ U{min_length..L}; reverse of the first l      (App. B, T = 2L)
    dual_frequency    reverse; token FREQUENT (first V/2) or RARE (last V/2), rare with prob. ``rarity``
                      per position; the test set is the paper's target x disturbants grid (Sec. 4.2)

Held-out sequences are drawn first (``held_out``), are pairwise distinct, and are never produced by
``sample`` afterwards: rows are compared by a 62-bit polynomial hash, and a hash match rejects the row
(a false match, probability ~1e-15, only rejects an unseen sequence; it never admits a test one).
All sampling is vectorised and runs on the device of the ``torch.Generator`` passed in.
"""
from __future__ import annotations

import math
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



class Reverse(Task):
    """``reverse``: inputs [x_1..x_L, V..V], targets [-100 (L times), x_L..x_1]."""

    name = "reverse"

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


TASKS = {c.name: c for c in (Reverse, Sort, ReverseAdd, Predecessor, ReverseVariable, DualFrequency)}
# Tasks defined in modules of their own (imported on first use; the module's ``TASK`` is the class):
# ``lm``, language modelling on tokenised WikiText paragraphs (penb.lm_task).
EXTRA_TASKS = {"lm": "penb.lm_task"}


def make_task(name: str, vocab_size: int, length: int, **options) -> Task:
    """The task registered as ``name``; ``ValueError`` for an unknown name or a bad option."""
    if name in EXTRA_TASKS:
        import importlib

        return importlib.import_module(EXTRA_TASKS[name]).TASK(vocab_size, length, **options)
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; valid: {', '.join([*TASKS, *EXTRA_TASKS])}")
    return TASKS[name](vocab_size, length, **options)
