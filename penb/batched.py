"""K runs of one shape trained as one batched model on one device (issue 36).

An update of the quick GRU is about 0.5 GFLOP spread over hundreds of kernel launches: one run cannot fill a GPU.
:class:`BatchedTrainer` trains K GRU/LSTM runs that share every field of :func:`group_key` (model shape, task,
optimisation, schedule, device, precision) and differ only in :data:`FREE` (the seed, the clipping norm, the
held-out count, the logging and checkpoint intervals) as ONE computation, each run still the run it claims to be:

* its data: its own :class:`penb.train.Trainer` draws its batches from its own generator, as it would alone;
* its initial weights: that Trainer's model (``penb.train.build_model``), its parameters stacked ``[K, ...]``;
* its clipping: the norm of its own gradients, scaled to its own ``clip`` (``clip_grad_norm_`` per run);
* its Adam state and schedule: Adam is elementwise, so one Adam over the stacked ``[K, ...]`` parameters is K
  Adams; the runs share the schedule's fields, so every run has the lr it would have alone at every update.

Decision: the K recurrent cores run as ONE ``torch._VF.gru``/``lstm`` call (cuDNN on a GPU) whose weights are
block-diagonal per gate: hidden K*H, input K*D_in, run k's block at rows ``g*K*H + k*H + [0, H)`` of gate g and
columns ``k*D_in + [0, D_in)``. Not ``torch.func.vmap`` over ``functional_call``: torch 2.13 has no batching rule
for ``aten::gru.input`` (nor ``lstm``), "We could not generate a fallback". Not a hand-written cell loop over
``bmm``: it gives up cuDNN's fused recurrence for about ten launches per time step, forward and back. The blocks
are placed by ``diag_embed`` from the stacked parameters (zeros put there, not multiplied in), so a parameter's
gradient is its diagonal block alone: off-block gradients do not exist and no run's update reaches another's
weights. The price: the zero blocks are multiplied too, K times the recurrent FLOPs of K separate runs; at this
book's sizes the GPU is bound by launches, not arithmetic (``benchmarks/batched_gpu.py`` measures it).
``kernel="stacked"`` (issue 42) runs per-run weights instead, one ``baddbmm`` a step (:mod:`penb.stacked`).

Isolation: with finite numbers a zero block adds exact zeros, so a run's numbers do not depend on its batch-mates
at all (``tests/test_batched.py`` swaps a batch-mate and compares bit for bit). Against the run trained alone they
agree to float rounding (other GEMM shapes; on the CPU the single run folds its encoding's input projection).
A non-finite number would cross blocks (0 * NaN = NaN), so: the gradient entering the packed core has its
non-finite entries zeroed (a healthy run has none); a run whose update was bad (non-finite loss or gradient norm)
enters the core with zero input and weights from then on (its own weights stay as they are) and counts every later
update bad, as its non-finite weights would alone; and where two runs first turn bad at the same update (one may
have leaked into the other inside the recurrence) neither result is trusted: both come back as ``"alone"``, to be
trained again alone from their last checkpoint (:mod:`penb.executors.batched` does).
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

import torch
import torch.nn.functional as F

from penb import encodings, stacked, trunks
from penb.tasks import IGNORE
from penb.train import Diverged, Trainer, checkpoint_path

FREE = ("seed", "clip", "held_out", "checkpoint_every", "log_every")    # fields in which batch-mates may differ
CORES = ("gru", "lstm")
Outcome = Union[str, Diverged]            # "done", "alone" (train it again alone) or the run's Diverged
KERNELS = ("packed", "stacked")           # block-diagonal cuDNN call, or per-run weights (penb.stacked, issue 42)


def batchable(config: Mapping[str, Any]) -> bool:
    """Whether a normalised run config can train in a batch: a GRU/LSTM core, an encoding without parameters."""
    return config["core"] in CORES and not encodings.get(config["encoding"]).learnable


def group_key(config: Mapping[str, Any]) -> str:
    """What the runs of one batch share: the normalised config less :data:`FREE`, as canonical JSON."""
    return json.dumps({k: v for k, v in config.items() if k not in FREE}, sort_keys=True, default=str)


def blocks(w: torch.Tensor, gates: int) -> torch.Tensor:
    """K runs' gate weights ``w: Tensor[K, G*H, D]`` -> the block-diagonal ``Tensor[G*K*H, K*D]`` of the packed core:
    row ``g*K*H + k*H + i``, column ``k*D + j`` holds ``w[k, g*H + i, j]``; every other entry is 0."""
    K, GH, D = w.shape
    per_gate = w.view(K, gates, GH // gates, D).permute(1, 2, 3, 0)          # [G, H, D, K]
    square = torch.diag_embed(per_gate)                                       # [G, H, D, K, K], 0 off the diagonal
    return square.permute(0, 3, 1, 4, 2).reshape(gates * K * (GH // gates), K * D)  # [G, K, H, K, D] -> 2-D


def _finite(grad: torch.Tensor) -> torch.Tensor:
    return torch.nan_to_num(grad, nan=0.0, posinf=0.0, neginf=0.0)


class BatchedTrainer:
    """K single-run :class:`penb.train.Trainer` s (one :func:`group_key`, one step) trained as one model.

    ``run()`` trains every run to ``steps`` and returns each run's :data:`Outcome` by its index in ``trainers``.
    ``run_dirs[k]`` (optional) receives run k's checkpoints, ``trunk_dirs[k]`` (a WSD run's trunk folder) its branch
    points, as ``Trainer.run`` writes them. :meth:`unpack` writes the batch's weights, Adam state, step and records
    back into the Trainers before every checkpoint, at a run's exit and at the end, so that checkpoints, evaluation
    and results are the single run's own code.
    """

    def __init__(self, trainers: Sequence[Trainer], run_dirs: Optional[Sequence[Optional[Path]]] = None,
                 trunk_dirs: Optional[Sequence[Optional[Path]]] = None, kernel: str = "packed"):
        if kernel not in KERNELS:
            raise ValueError(f"unknown kernel {kernel!r}; valid: {', '.join(KERNELS)}")
        self.trainers, self.kernel = list(trainers), kernel
        n = len(self.trainers)
        self.run_dirs = list(run_dirs) if run_dirs is not None else [None] * n
        self.trunk_dirs = list(trunk_dirs) if trunk_dirs is not None else [None] * n
        configs = [t.config for t in self.trainers]
        if not n or not all(batchable(c) for c in configs) or len({group_key(c) for c in configs}) > 1:
            raise ValueError("a batch takes GRU/LSTM runs without encoding parameters that differ only in "
                             f"{', '.join(FREE)}")
        if len({t.step for t in self.trainers}) > 1:
            raise ValueError(f"the runs of a batch must start at one step, got {[t.step for t in self.trainers]}")
        self.c = configs[0]
        self.device = self.trainers[0].device
        self.outcome: dict[int, Outcome] = {}
        self.first_bad: dict[int, int] = {}       # run index -> the first update whose loss or norm was non-finite
        self.live = [i for i in range(n) if self.trainers[i].step < self.c["steps"]]
        self.outcome.update({i: "done" for i in range(n) if i not in self.live})
        self._pack()

    # -- the batch's state <-> the Trainers' ----------------------------------------------------------------
    def _pack(self) -> None:
        """Stack the live runs' parameters, Adam state, accumulators and encoding tables from their Trainers."""
        ts = [self.trainers[i] for i in self.live]
        self.K, self.step = len(ts), (ts[0].step if ts else self.c["steps"])
        if not ts:
            return
        named = [dict(t.model.named_parameters()) for t in ts]
        self.params = {n: torch.stack([m[n].detach() for m in named]).requires_grad_() for n in named[0]}  # [K, ...]
        self.optimizer = torch.optim.Adam(list(self.params.values()), lr=0.0, betas=self.c["betas"],
                                          eps=self.c["eps"], weight_decay=self.c["weight_decay"])
        for n, P in self.params.items():
            states = [t.optimizer.state.get(m[n]) for t, m in zip(ts, named)]
            if states[0]:                                   # resumed runs: their Adam state, stacked
                self.optimizer.state[P] = {k: v.clone() if v.dim() == 0 else torch.stack([s[k] for s in states])
                                           for k, v in states[0].items()}
        self.clip = torch.tensor([t.config["clip"] for t in ts], device=self.device)          # [K]
        self.acc = torch.stack([t._acc for t in ts])                                           # [K, 4] float64
        self.bad_since = torch.tensor([self.first_bad.get(i, -1) for i in self.live], device=self.device)  # [K]
        self.tables = {}                                    # (T, dtype) -> encoding rows [K, T, D_pos]

    def unpack(self) -> None:
        """Write the batch's state into the live runs' Trainers (weights, Adam state and lr, step, accumulators)."""
        if not self.live:
            return
        lr = self.optimizer.param_groups[0]["lr"]
        with torch.no_grad():
            for j, i in enumerate(self.live):
                t, named = self.trainers[i], dict(self.trainers[i].model.named_parameters())
                for n, P in self.params.items():
                    named[n].copy_(P[j])
                    if self.optimizer.state.get(P):
                        t.optimizer.state[named[n]] = {k: v.clone() if v.dim() == 0 else v[j].clone()
                                                       for k, v in self.optimizer.state[P].items()}
                t.optimizer.param_groups[0]["lr"] = lr
                t._acc, t.step = self.acc[j].clone(), self.step
        self.first_bad.update({i: f for i, f in zip(self.live, self.bad_since.tolist()) if f >= 0})

    # -- one update of K runs -------------------------------------------------------------------------------
    def _autocast(self):
        return torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.c["amp"] == "bf16")

    def _input_vectors(self, emb: torch.Tensor) -> torch.Tensor:
        """``emb: Tensor[K, B, T, E]`` -> the cores' inputs ``Tensor[K, B, T, D_in]`` (``SequenceModel.input_vectors``
        with each run's own encoding table)."""
        K, B, T, _ = emb.shape
        if self.c["input_mode"] == "double":
            return torch.cat([emb, emb], -1)                                 # [K, B, T, 2E]
        if (T, emb.dtype) not in self.tables:
            self.tables[T, emb.dtype] = torch.stack([self.trainers[i].model.encoding_rows(T, emb.dtype)
                                                     for i in self.live])   # [K, T, D_pos]
        enc = self.tables[T, emb.dtype].unsqueeze(1).expand(K, B, T, -1)     # [K, B, T, D_pos]
        if self.c["input_mode"] == "add":
            return emb + enc if enc.shape[-1] else emb                       # [K, B, T, E]
        return torch.cat([emb, enc], -1)                                     # [K, B, T, E + D_pos]

    def _core(self, x: torch.Tensor) -> torch.Tensor:
        """The K recurrent cores as one: ``x: Tensor[K, B, T, D_in]`` -> ``Tensor[K, B, T, H]``."""
        K, B, T, D = x.shape
        lstm, P = self.c["core"] == "lstm", self.params
        G, H = (4 if lstm else 3), self.c["hidden"]
        on = self.bad_since < 0                                              # [K]: runs not yet bad
        x = torch.where(on.view(K, 1, 1, 1), x, 0.0)                         # [K, B, T, D]
        if self.kernel == "stacked":                                         # per-run weights, no zero blocks
            w = [torch.where(on.view(K, *[1] * (P[f"core.rnn.{n}_l0"].dim() - 1)), P[f"core.rnn.{n}_l0"], 0.0)
                 for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]  # [K, G*H, D], [K, G*H, H], [K, G*H] x2
            return stacked.core(self.c["core"], x, *w)                       # [K, B, T, H]
        x = x.permute(1, 2, 0, 3).reshape(B, T, K * D)                       # [B, T, K*D]: run k at k*D + [0, D)
        w_ih = blocks(torch.where(on.view(K, 1, 1), P["core.rnn.weight_ih_l0"], 0.0), G)   # [G*K*H, K*D]
        w_hh = blocks(torch.where(on.view(K, 1, 1), P["core.rnn.weight_hh_l0"], 0.0), G)   # [G*K*H, K*H]
        b_ih, b_hh = (torch.where(on.view(K, 1), P[f"core.rnn.bias_{s}_l0"], 0.0)           # [K, G*H]
                      .view(K, G, H).transpose(0, 1).reshape(G * K * H) for s in ("ih", "hh"))  # [G*K*H]
        h0 = x.new_zeros(1, B, K * H)                                        # [1, B, K*H]
        args = ([w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, True, False, True)  # bias, layers, dropout, train, bidir, bf
        with warnings.catch_warnings():                # cuDNN copies the weights we build into its buffer; it says so
            warnings.filterwarnings("ignore", message="RNN module weights are not part")
            out = (torch._VF.lstm(x, (h0, h0), *args) if lstm else torch._VF.gru(x, h0, *args))[0]  # [B, T, K*H]
        if out.requires_grad:
            out.register_hook(_finite)                 # a bad run's NaN gradient must not cross the zero blocks
        return out.view(B, T, K, H).permute(2, 0, 1, 3)                      # [K, B, T, H]

    def losses(self, inputs: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``inputs, targets: LongTensor[K, B, T]`` -> (loss, accuracy), ``Tensor[K]`` each: run k's mean cross-entropy
        and token accuracy over its scored steps (``Trainer.loss`` per run)."""
        K, P = self.K, self.params
        table = P["embedding.weight"]                                        # [K, V+1, E]
        offset = torch.arange(K, device=inputs.device).view(K, 1, 1) * table.shape[1]
        mask = targets != IGNORE                                             # [K, B, T]
        counts = mask.flatten(1).sum(1).tolist()                             # N_k (a sync, as the single run's mask)
        W, b = P["readout.weight"], P["readout.bias"]                        # [K, V, H], [K, V]
        with self._autocast():
            emb = F.embedding(inputs + offset, table.flatten(0, 1))          # [K, B, T, E]
            h = self._core(self._input_vectors(emb))[mask]                   # [N_1 + ... + N_K, H], run-major
            y = targets[mask]                                                # [N_1 + ... + N_K]
            if len(set(counts)) == 1:                                        # every run scores N steps
                N = counts[0]
                logits = torch.baddbmm(b.unsqueeze(1), h.view(K, N, -1), W.transpose(1, 2))  # [K, N, V]
                loss = F.cross_entropy(logits.float().flatten(0, 1), y, reduction="none").view(K, N).mean(1)
                return loss, (logits.argmax(-1) == y.view(K, N)).float().mean(1)            # [K], [K]
            parts = [F.linear(hk, W[k], b[k]) for k, hk in enumerate(h.split(counts))]        # [N_k, V] each
            ys = y.split(counts)
            loss = torch.stack([F.cross_entropy(lg.float(), yk) for lg, yk in zip(parts, ys)])
            return loss, torch.stack([(lg.argmax(-1) == yk).float().mean() for lg, yk in zip(parts, ys)])

    def _clip(self) -> torch.Tensor:
        """Scale run k's gradients to norm at most ``clip[k]`` (``clip_grad_norm_`` per run).

        Returns the norms before scaling, ``Tensor[K]``."""
        grads = [P.grad for P in self.params.values()]                                        # [K, ...] each
        norms = torch.stack([torch.linalg.vector_norm(g.flatten(1), dim=1) for g in grads])   # [n_params, K]
        total = torch.linalg.vector_norm(norms, dim=0)                                        # [K]
        coef = torch.clamp((total + 1e-6).reciprocal() * self.clip, max=1.0)                 # [K]
        for g in grads:
            g.mul_(coef.view(-1, *[1] * (g.dim() - 1)))
        return total

    def train_step(self) -> torch.Tensor:
        """One update of every live run on its own fresh batch; the losses ``Tensor[K]`` (no device sync but the
        scored-step counts)."""
        ts = [self.trainers[i] for i in self.live]
        for group in self.optimizer.param_groups:
            group["lr"] = ts[0].lr_at(self.step)                      # one schedule: its fields are in the key
        batches = [t.task.sample(self.c["batch_size"], t.data_gen) for t in ts]
        inputs = torch.stack([bt.inputs for bt in batches])                                   # [K, B, T]
        targets = torch.stack([bt.targets for bt in batches])                                 # [K, B, T]
        loss, acc = self.losses(inputs, targets)                                              # [K], [K]
        self.optimizer.zero_grad(set_to_none=True)
        loss.sum().backward()                                         # run k's gradient comes from its loss alone
        norm = self._clip()                                                                   # [K]
        self.optimizer.step()
        self.step += 1
        bad = ~(torch.isfinite(loss.detach()) & torch.isfinite(norm)) | (self.bad_since >= 0)  # [K]
        self.bad_since = torch.where(bad & (self.bad_since < 0), self.step, self.bad_since)   # [K]
        self.acc += torch.stack([loss.detach().double(), acc.detach().double(), torch.ones_like(self.acc[:, 0]),
                                 bad.double()], 1)                                            # [K, 4]
        return loss

    # -- the whole batch ------------------------------------------------------------------------------------
    def _log(self) -> None:
        """At a logging step of some runs (one sync): their history entries, or their exit (diverged, or "alone"
        where two runs first turned bad at one update), after which the others are packed again."""
        due = [j for j, i in enumerate(self.live)
               if self.step % self.trainers[i].config["log_every"] == 0 or self.step == self.c["steps"]]
        if not due:
            return
        sums, since = self.acc.tolist(), self.bad_since.tolist()
        firsts = [f for i, f in self.first_bad.items() if i not in self.live] + [f for f in since if f >= 0]
        leave = {}
        for j in due:
            i, (loss, acc, n, nbad) = self.live[j], sums[j]
            t = self.trainers[i]
            if nbad > 0:
                last = t.history[-1]["loss"] if t.history else None
                shared = firsts.count(since[j]) > 1
                leave[i] = "alone" if shared else Diverged(self.step, self.step - int(n), last, int(nbad))
            else:
                t.history.append({"step": self.step, "loss": loss / n, "accuracy": acc / n})
                self.acc[j].zero_()
        if leave:
            self.unpack()
            self.outcome.update(leave)
            self.live = [i for i in self.live if i not in leave]
            self._pack()

    def run(self, progress: bool = False) -> dict[int, Outcome]:
        """Train every live run to ``steps``, with ``Trainer.run``'s checkpoints and trunk branch points; each run's
        :data:`Outcome` by its index. The Trainers hold the final state (``unpack``)."""
        from tqdm.auto import tqdm

        steps = self.c["steps"]
        branch = set(trunks.branch_points(self.c)) if any(self.trunk_dirs) else set()
        desc = f"{self.c['core']}/{self.c['encoding']} V={self.c['vocab_size']} x{self.K} runs"
        with tqdm(total=steps, initial=self.step, desc=desc, disable=not progress, mininterval=1.0) as bar:
            while self.live and self.step < steps:
                self.train_step()
                self._log()
                save = [i for i in self.live if self.run_dirs[i] is not None and (
                    self.step % self.trainers[i].config["checkpoint_every"] == 0 or self.step == steps)]
                grow = [i for i in self.live if self.trunk_dirs[i] is not None and self.step in branch
                        and not trunks.path(self.trunk_dirs[i], self.step).exists()]
                if save or grow:
                    self.unpack()
                for i in save:
                    self.trainers[i].save(checkpoint_path(self.run_dirs[i], self.step))
                for i in grow:
                    self.trainers[i].save(trunks.path(self.trunk_dirs[i], self.step), trunk=True)
                bar.update(1)
        self.unpack()
        self.outcome.update({i: "done" for i in self.live})
        return self.outcome
