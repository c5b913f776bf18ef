"""A packing: the live runs of a trainer (``penb.trainer.loop``) laid into one batch.

Which run sits in which slot; the kernel (``penb.trainer.kernels``) holding their weights; Adam's moments in the
kernel's layout; the ``[K]`` update counts, clipping norms and accumulators; the per-run schedule
(``penb.trainer.schedule``), the data feed (``penb.trainer.data``) and the one update (``penb.trainer.update``),
compiled whole where ``penb.trainer.policy.compiles`` says so. A run that leaves is written back to its own model
first (:meth:`Packing.write_back`).
"""
from __future__ import annotations

from typing import Sequence

import torch

from penb.trainer import data, kernels, schedule
from penb.trainer.policy import _allow_recompiles, compiles
from penb.trainer.run import Run
from penb.trainer.update import update


class Packing:
    """The packed state of the live runs: which runs sit in which slot, the kernel, Adam's moments, the ``[K]``
    values, the feed and the (maybe compiled) update."""

    def __init__(self, runs: Sequence[Run], slots: list[int], kind: str, when: str):
        rs = [runs[j] for j in slots]
        c0, dev = rs[0].config, rs[0].device
        self.slots, self.active = slots, set(range(len(slots)))
        s0 = rs[0].task.scored_from
        if kind == "module":
            self.kernel = kernels.Module(rs[0].model, s0)
        else:
            self.kernel = kernels.Stacked([r.model for r in rs], [r.config for r in rs], rs[0].task.num_steps, s0)
        k = self.kernel
        with torch.no_grad():
            if k.stacked:
                for i, r in enumerate(rs):
                    own = dict(r.model.named_parameters())
                    for n, P in zip(k.names, k.params):
                        P[k.view(i)[n]] = own[n]
                for P in k.params:
                    P.requires_grad_()
            self.exp_avg = [torch.zeros_like(P) for P in k.params]
            self.exp_avg_sq = [torch.zeros_like(P) for P in k.params]
            for i, r in enumerate(rs):
                if r.moments:
                    for n, m, v in zip(k.names, self.exp_avg, self.exp_avg_sq):
                        m[k.view(i)[n]] = r.moments["exp_avg"][n]
                        v[k.view(i)[n]] = r.moments["exp_avg_sq"][n]
        self.count = torch.tensor([float(r.step) for r in rs], dtype=torch.float64, device=dev)       # [K]
        self.clip = torch.tensor([r.config["clip"] for r in rs], dtype=torch.float64, device=dev)      # [K]
        self.acc = torch.stack([r.acc for r in rs]).to(dev)                                          # [K, 4]
        self.rates = schedule.Schedule([r.config for r in rs], dev).rates
        self.feed = data.Feed([r.task for r in rs], [r.config["seed"] for r in rs], c0["batch_size"], s0, dev)
        hyper, autocast = (c0["betas"], c0["eps"], c0["weight_decay"]), rs[0].autocast
        to_go = max(r.config["steps"] - r.step for r in rs)
        self.compiled = compiles(dev, kind, len(rs), to_go, when)

        def step(params, exp_avg, exp_avg_sq, inputs, targets, count, acc):
            update(self.kernel, params, exp_avg, exp_avg_sq, inputs, targets, self.rates, count, self.clip, acc,
                   hyper, autocast, functional=self.compiled)

        if self.compiled:
            _allow_recompiles()
            if dev.type == "cuda":               # updated in place by the graph: fixed addresses, so it is captured
                for t in [*k.params, *self.exp_avg, *self.exp_avg_sq, self.count, self.acc]:
                    torch._dynamo.mark_static_address(t)
        self.step = (torch.compile(step, fullgraph=True, dynamic=False,
                                   mode="reduce-overhead" if dev.type == "cuda" else None)
                     if self.compiled else step)

    def write_back(self, i: int, run: Run) -> None:
        """Slot ``i``'s weights, moments and accumulators into ``run``'s own copies."""
        k = self.kernel
        with torch.no_grad():
            own = dict(run.model.named_parameters())
            if k.stacked:
                for n, P in zip(k.names, k.params):
                    own[n].copy_(P[k.view(i)[n]])
            run.moments = {"exp_avg": {n: m[k.view(i)[n]].detach().clone() for n, m in zip(k.names, self.exp_avg)},
                           "exp_avg_sq": {n: v[k.view(i)[n]].detach().clone()
                                          for n, v in zip(k.names, self.exp_avg_sq)}}
            run.acc = self.acc[i].detach().cpu().clone()
