"""Per-run gradient clipping and Adam over parameters that may carry a leading run axis (HFTA's way).

A batch's parameters are either stacked, ``[K, ...]`` with run k's values at index k (:class:`penb.trainer.kernels.
Stacked`), or one run's own (``K = 1``, :class:`penb.trainer.kernels.Module`). Both functions take the per-run
hyperparameters as ``[K]`` tensors and broadcast them over each parameter's run axis, so K runs with K learning
rates and K clipping norms are one set of elementwise kernels, and no number of one run enters another's.

The arithmetic is ``torch.optim.Adam``'s (``foreach=False``, ``amsgrad=False``) and
``torch.nn.utils.clip_grad_norm_``'s, written out because both take one scalar rate and one norm for all:

* clipping: ``norm_k = sqrt(sum over parameters of |g_k|^2)``, ``g_k *= min(clip_k / (norm_k + 1e-6), 1)``;
* Adam at the run's update count ``t_k`` (1 after the first update): ``g += weight_decay * p``;
  ``m = lerp(m, g, 1 - b1)``; ``v = b2 v + (1 - b2) g^2``;
  ``p -= lr_k / (1 - b1^t_k) * m / (sqrt(v) / sqrt(1 - b2^t_k) + eps)``.

A complex parameter (the S4D's) is taken as its real view, as ``torch.optim.Adam`` does.
"""
from __future__ import annotations

from typing import Sequence

import torch


def _real(t: torch.Tensor) -> torch.Tensor:
    return torch.view_as_real(t) if t.is_complex() else t


def per_run(x: torch.Tensor, p: torch.Tensor, stacked: bool) -> torch.Tensor:
    """``x: Tensor[K]`` shaped to broadcast over ``p``: ``[K, 1, ...]`` for a stacked parameter, a 0-d tensor for a
    single run's own (``K = 1``)."""
    return x.view((-1,) + (1,) * (p.dim() - 1)) if stacked else x.reshape(())


def clip_(grads: Sequence[torch.Tensor], clip: torch.Tensor, stacked: bool) -> torch.Tensor:
    """Scale each run's gradients (in place) to at most its ``clip: Tensor[K]``; returns the norms before, ``[K]``."""
    if stacked:
        sq = sum(_real(g).pow(2).flatten(1).sum(1) for g in grads)                 # [K]
    else:
        sq = sum(_real(g).pow(2).sum() for g in grads).reshape(1)                  # [1]
    norm = sq.sqrt()                                                               # [K]
    coef = (clip / (norm + 1e-6)).clamp(max=1.0)                                   # [K]
    for g in grads:
        g.mul_(per_run(coef, g, stacked).to(g.dtype))
    return norm


@torch.no_grad()
def adam_(params: Sequence[torch.Tensor], grads: Sequence[torch.Tensor], exp_avg: Sequence[torch.Tensor],
          exp_avg_sq: Sequence[torch.Tensor], lr: torch.Tensor, count: torch.Tensor, betas: tuple[float, float],
          eps: float, weight_decay: float, stacked: bool) -> None:
    """One Adam update of every run in place: ``lr``, ``count``: ``Tensor[K]`` (the rate of this update, and the
    number of updates including this one)."""
    b1, b2 = betas
    bc1 = 1 - b1 ** count                                                          # [K]
    bc2 = (1 - b2 ** count).sqrt()                                                 # [K]
    step = lr / bc1                                                                # [K]
    for p, g, m, v in zip(params, grads, exp_avg, exp_avg_sq):
        p, g, m, v = _real(p), _real(g), _real(m), _real(v)
        if weight_decay:
            g = g.add(p, alpha=weight_decay)
        m.lerp_(g, 1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        denom = (v.sqrt() / per_run(bc2, v, stacked).to(v.dtype)).add_(eps)
        p.sub_(per_run(step, p, stacked).to(p.dtype) * m / denom)
