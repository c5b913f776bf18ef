"""An independent reference for the language-modelling tests (Morita App. E): batches and perplexity.

A paragraph of ``n`` token ids gives ``n - 1`` next-token predictions: inputs ``ids[:-1]``, targets
``ids[1:]`` (no BOS/EOS, as in the official code, so the first token is never a target). To feed
1,024 inputs per paragraph as the official code does, encode with ``max_tokens=1025``; the paper's
text says "the first 1,024 tokens", i.e. ``max_tokens=1024`` (1,023 inputs).

Batches are right-padded: inputs with ``pad_id`` and targets with ``IGNORE`` (-100), so padding
never enters the loss or the token count. For a causal model (LSTM), right padding cannot change
the outputs at real positions, so the value of ``pad_id`` does not matter. ``ignore_ids`` drops
further targets from loss and count; the official code dropped SentencePiece's unknown piece.

The model is any callable ``model(inputs[B, T]) -> logits[B, T, V]``; none is defined here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Sequence

import numpy as np
import torch
import torch.nn.functional as F

IGNORE = -100
ORDERS = ("sorted", "given", "shuffled")


def _check_ids(seqs: Sequence[Sequence[int]]) -> None:
    if len(seqs) == 0:
        raise ValueError("no sequences to batch")
    short = [i for i, s in enumerate(seqs) if len(s) < 2]
    if short:
        raise ValueError(f"sequences need >= 2 tokens to give a target; index {short[0]} has {len(seqs[short[0]])}")


def shift_pad(seqs: Sequence[Sequence[int]], pad_id: int = 0,
              ignore_ids: Sequence[int] = ()) -> tuple[torch.Tensor, torch.Tensor]:
    """Next-token pairs of a list of id sequences, right-padded.

    Returns ``inputs`` LongTensor[B, T] (``pad_id`` after each sequence) and ``targets``
    LongTensor[B, T] (``IGNORE`` after each sequence and where the target is in ``ignore_ids``),
    with ``T = max(len) - 1``.
    """
    _check_ids(seqs)
    B, T = len(seqs), max(len(s) for s in seqs) - 1
    inputs = torch.full((B, T), pad_id, dtype=torch.long)
    targets = torch.full((B, T), IGNORE, dtype=torch.long)
    for b, s in enumerate(seqs):
        ids = torch.as_tensor(list(s), dtype=torch.long)
        inputs[b, : len(s) - 1] = ids[:-1]
        targets[b, : len(s) - 1] = ids[1:]
    for i in ignore_ids:
        targets[targets == i] = IGNORE
    return inputs, targets


def target_count(seqs: Sequence[Sequence[int]], ignore_ids: Sequence[int] = ()) -> int:
    """Number of targets the sequences give (``len - 1`` each, minus targets in ``ignore_ids``)."""
    drop = set(ignore_ids)
    return sum(sum(1 for t in s[1:] if t not in drop) for s in seqs if len(s) >= 2)


def batches(seqs: Sequence[Sequence[int]], batch_size: int, *, order: str = "sorted",
            generator: Optional[torch.Generator] = None, pad_id: int = 0,
            ignore_ids: Sequence[int] = ()) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """``shift_pad`` batches of at most ``batch_size`` sequences; sequences under 2 tokens are skipped.

    ``order``: ``sorted`` (longest first, least padding; for evaluation), ``given``, or
    ``shuffled`` (a permutation drawn from ``generator``; for training).
    """
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; valid: {', '.join(ORDERS)}")
    idx = [i for i, s in enumerate(seqs) if len(s) >= 2]
    if order == "sorted":
        idx.sort(key=lambda i: -len(seqs[i]))
    elif order == "shuffled":
        perm = torch.randperm(len(idx), generator=generator).tolist()
        idx = [idx[p] for p in perm]
    for k in range(0, len(idx), batch_size):
        yield shift_pad([seqs[i] for i in idx[k: k + batch_size]], pad_id, ignore_ids)


def nll_per_target(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Cross-entropy (nats) of each target, float64 [B, T], 0 where the target is ``IGNORE``.

    ``logits``: [B, T, V]; ``targets``: [B, T]. The log-softmax runs in float32 (no float64 copy of
    the logits); a target outside ``[0, V)`` raises ``ValueError``.
    """
    if logits.dim() != 3 or logits.shape[:2] != targets.shape:
        raise ValueError(f"logits must be [B, T, V] matching targets [B, T]; got {tuple(logits.shape)} "
                         f"and {tuple(targets.shape)}")
    V = logits.shape[-1]
    targets = targets.to(logits.device)
    keep = targets != IGNORE
    if keep.any() and (targets[keep].min() < 0 or targets[keep].max() >= V):
        raise ValueError(f"targets must lie in [0, {V}) or be {IGNORE}; got range "
                         f"[{int(targets[keep].min())}, {int(targets[keep].max())}]")
    nll = F.cross_entropy(logits.reshape(-1, V).float(), targets.reshape(-1), ignore_index=IGNORE, reduction="none")
    return nll.view_as(targets).double()


def nll_sum(logits: torch.Tensor, targets: torch.Tensor) -> tuple[float, int]:
    """Summed cross-entropy (nats) over targets != ``IGNORE`` of logits [B, T, V], and their count."""
    per = nll_per_target(logits, targets)
    return float(per.sum()), int((targets != IGNORE).sum())


def perplexity(total_nll: float, n_tokens: int) -> float:
    """``exp(total cross-entropy / number of target tokens)`` (cross-entropy in nats)."""
    if n_tokens <= 0:
        raise ValueError(f"perplexity needs at least one target token, got n_tokens={n_tokens}")
    if not math.isfinite(total_nll) or total_nll < 0:
        raise ValueError(f"total_nll must be a finite non-negative number of nats, got {total_nll}")
    return math.exp(total_nll / n_tokens)


@dataclass
class LMEval:
    """Summed negative log-likelihood over all targets, also per target position (0 = second token)."""

    total_nll: float
    n_tokens: int
    nll_by_position: np.ndarray  # [T_max] summed over paragraphs
    tokens_by_position: np.ndarray  # [T_max]

    @property
    def perplexity(self) -> float:
        return perplexity(self.total_nll, self.n_tokens)

    def perplexity_by_position(self) -> np.ndarray:
        """[T_max] perplexity of the targets at each position (NaN where there are none)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.exp(self.nll_by_position / self.tokens_by_position)


@torch.no_grad()
def evaluate(model: Callable[[torch.Tensor], torch.Tensor], seqs: Sequence[Sequence[int]], batch_size: int = 16,
             *, device: str | torch.device = "cpu", pad_id: int = 0, ignore_ids: Sequence[int] = ()) -> LMEval:
    """Sum the NLL of ``model`` over every target of ``seqs`` (padding and ``ignore_ids`` excluded).

    ``model(inputs[B, T]) -> logits[B, T, V]``; an ``nn.Module`` is put in eval mode for the call
    and restored afterwards. Sequences under 2 tokens give no target and are skipped.
    """
    device = torch.device(device)
    was_training = getattr(model, "training", None)
    if was_training is not None:
        model.eval()
    T_max = max((len(s) - 1 for s in seqs), default=0)
    by_pos = np.zeros(max(T_max, 0), dtype=np.float64)
    count_pos = np.zeros(max(T_max, 0), dtype=np.int64)
    total, n = 0.0, 0
    try:
        for inputs, targets in batches(seqs, batch_size, order="sorted", pad_id=pad_id, ignore_ids=ignore_ids):
            per = nll_per_target(model(inputs.to(device)), targets).cpu()
            counts = (targets != IGNORE).sum(0).numpy()
            T = targets.shape[1]
            by_pos[:T] += per.sum(0).numpy()
            count_pos[:T] += counts
            total, n = total + float(per.sum()), n + int(counts.sum())
    finally:
        if was_training:
            model.train()
    if n == 0:
        raise ValueError("no target tokens to evaluate (every sequence is shorter than 2 tokens or ignored)")
    return LMEval(total, n, by_pos, count_pos)
