"""One update of K runs: the one place where weights change (issue 48).

:func:`update` takes a batch of K runs' data, computes each run's loss over its scored steps, its gradients, clips
them to its own norm, applies Adam at its own rate and update count, and adds the run's loss, accuracy, one update
and whether the update was bad (a non-finite loss or gradient norm) to its ``[K, 4]`` accumulator. It reads nothing
back to the host, so it compiles whole (``torch.compile(fullgraph=True)``: the gradients then come from
``torch.func.grad_and_value``, which a graph can hold, instead of ``torch.autograd.grad``).
"""
from __future__ import annotations

from typing import Sequence

import torch
import torch.nn.functional as F

from penb.tasks import IGNORE
from penb.trainer.adam import adam_, clip_


def losses(logits: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``logits: Tensor[K, B, S, V]``, ``targets: LongTensor[K, B, S]`` (``IGNORE`` where unscored) -> (mean
    cross-entropy, token accuracy) over each run's scored steps, ``Tensor[K]`` each (fp32)."""
    mask = targets != IGNORE                                                   # [K, B, S]
    ce = F.cross_entropy(logits.float().flatten(0, 2), targets.clamp(min=0).flatten(),
                         reduction="none").view(targets.shape)                 # [K, B, S]
    n = mask.sum((1, 2)).clamp(min=1)                                          # [K]
    hit = (logits.argmax(-1) == targets) & mask                                # [K, B, S]
    return torch.where(mask, ce, 0.0).sum((1, 2)) / n, hit.sum((1, 2)) / n


def update(kernel, params: Sequence[torch.Tensor], exp_avg: Sequence[torch.Tensor],
           exp_avg_sq: Sequence[torch.Tensor], inputs: torch.Tensor, targets: torch.Tensor, rates: torch.Tensor,
           count: torch.Tensor, clip: torch.Tensor, acc: torch.Tensor, hyper: tuple, autocast,
           functional: bool = False) -> None:
    """One update of every run of ``kernel`` in place.

    ``inputs: LongTensor[K, B, T]``, ``targets: LongTensor[K, B, S]``; ``rates``: the schedule
    (``penb.trainer.schedule.Schedule.rates``); ``count: Tensor[K]`` float64, each run's updates so far (this one
    is number ``count + 1``; incremented here); ``clip: Tensor[K]``; ``acc: Tensor[K, 4]`` float64 (loss sum,
    accuracy sum, updates, bad updates); ``hyper``: (betas, eps, weight_decay); ``autocast``: a context factory.
    """
    betas, eps, weight_decay = hyper
    lr = rates(count)                                                          # [K] float64

    def loss_of(ps):
        with autocast():
            loss, hits = kernel.losses(ps, inputs, targets)                    # [K], [K]
        return loss.sum(), (loss.detach(), hits.detach())

    if functional:
        grads, (_, (loss, hits)) = torch.func.grad_and_value(loss_of, has_aux=True)(list(params))
    else:
        with torch.enable_grad():
            total, (loss, hits) = loss_of(params)
            grads = torch.autograd.grad(total, params)
    grads = list(grads)
    norm = clip_(grads, clip, kernel.stacked)                                  # [K]
    count += 1
    adam_(params, grads, exp_avg, exp_avg_sq, lr.float() if params[0].dtype != torch.float64 else lr, count,
          betas, eps, weight_decay, kernel.stacked)
    bad = ~(torch.isfinite(loss) & torch.isfinite(norm))                       # [K]
    acc += torch.stack([loss.double(), hits.double(), torch.ones_like(acc[:, 0]), bad.double()], 1)
