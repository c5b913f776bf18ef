"""How a batch's K runs compute their logits: a kernel holds the parameters the trainer updates.

Both kernels give ``logits(params, inputs: LongTensor[K, B, T]) -> Tensor[K, B, S, V_max]``, the logits of the steps
from ``scored_from`` on (S = T - scored_from), ``losses(params, inputs, targets)``: each run's mean cross-entropy
and accuracy over its scored steps (``[K]``; the module kernel reads out the scored steps alone, the stacked one
the whole span, masked, a fixed shape), and ``view(j)``: for each parameter name, the index of run j's own
values in that parameter (its shape in the run's own model). The trainer's packing (``penb.trainer.packing``) packs
and unpacks runs, checkpoints and Adam's moments through ``view`` alone.

* :class:`Module` (``"module"``): one run (K = 1), any core, its own ``SequenceModel`` (``nn.GRU``/``nn.LSTM``: cuDNN
  on a GPU, oneDNN's LSTM on the CPU; the S4D; the transformer). Its parameters are the model's: ``params`` is not
  read, the model's forward is.
* :class:`Stacked` (``"stacked"``): K GRU or LSTM runs of one hidden size, batch size, length and task, with per-run
  weights stacked ``[K, ...]`` (:mod:`penb.stacked`). Runs may differ in vocabulary (embedding and readout padded
  to the largest V, logits past a run's own V set to -inf, so its padding rows get no gradient and stay 0), in
  parameter-free encoding and input mode (each run's encoding rows enter through its own input weights; a vanilla
  run's missing columns are zero-padded and get no gradient), and in seed, budget, schedule and clipping (the
  trainer's ``[K]`` values). The input term ``W_e emb_t + W_p pe_t + b`` is read from two small tables: the
  embedding's share once per (run, token), ``W_e emb_v`` (``[K, V_max+1, G*H]``), and the encoding's once per (run,
  position), as ``RNNCore.forward_positional`` does for one run (``penb.stacked.from_table``): no ``[B*T, E]``
  product.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import torch
import torch.nn.functional as F

from penb import encodings, stacked
from penb.tasks import IGNORE
from penb.trainer.update import losses

KERNELS = ("module", "stacked")
CORES = tuple(stacked.GATES)
EMB, W_IH, W_HH, B_IH, B_HH, W_OUT, B_OUT = ("embedding.weight", "core.rnn.weight_ih_l0", "core.rnn.weight_hh_l0",
                                             "core.rnn.bias_ih_l0", "core.rnn.bias_hh_l0", "readout.weight",
                                             "readout.bias")
NAMES = (EMB, W_IH, W_HH, B_IH, B_HH, W_OUT, B_OUT)


def stackable(config: Mapping[str, Any]) -> bool:
    """Whether a normalised run config can train in a :class:`Stacked` batch: a GRU/LSTM core and an encoding
    without parameters."""
    return config["core"] in CORES and not encodings.get(config["encoding"]).learnable


class Module:
    """One run's own model: ``logits`` runs ``model.features`` and ``model.readout`` (``params`` are its own)."""

    stacked = False

    def __init__(self, model, scored_from: int):
        self.model, self.s0 = model, scored_from
        named = list(model.named_parameters())
        self.names, self.params = [n for n, _ in named], [p for _, p in named]
        self.K = 1

    def view(self, j: int) -> dict:
        return {n: () for n in self.names}

    def logits(self, params, inputs: torch.Tensor) -> torch.Tensor:
        """``inputs: LongTensor[1, B, T]`` -> ``Tensor[1, B, S, V]``."""
        h = self.model.features(inputs[0])[:, self.s0:]                        # [B, S, H]
        return self.model.readout(h).unsqueeze(0)                              # [1, B, S, V]

    def losses(self, params, inputs: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(mean cross-entropy, token accuracy) ``[1]`` each over the scored steps alone: the readout only where a
        target is (a task whose rows score different steps, as ``reverse_variable``, scores about half its span)."""
        mask = targets[0] != IGNORE                                            # [B, S]
        h = self.model.features(inputs[0])[:, self.s0:][mask]                  # [N, H]
        logits = self.model.readout(h)                                         # [N, V]
        y = targets[0][mask]                                                   # [N]
        loss = F.cross_entropy(logits.float(), y)
        return loss.reshape(1), (logits.argmax(-1) == y).float().mean().reshape(1)


class Stacked:
    """K GRU/LSTM runs as one: their models (``SequenceModel``, each at its own shape) give the initial values and
    the encoding rows; ``params`` (``[K, ...]`` each, :data:`NAMES` order) are the trainer's from then on."""

    stacked = True

    def __init__(self, models: Sequence, configs: Sequence[Mapping[str, Any]], num_steps: int, scored_from: int):
        c0 = configs[0]
        self.kind, self.s0, self.K = c0["core"], scored_from, len(models)
        self.names = list(NAMES)
        rnn = [m.core.rnn for m in models]
        self.E, self.H = models[0].embedding.weight.shape[1], rnn[0].hidden_size
        self.V = [c["vocab_size"] for c in configs]
        widths = [r.weight_ih_l0.shape[1] for r in rnn]                       # D_k: E + P_k, E or 2E
        p0 = models[0].embedding.weight
        dev, dt, K, T, E = p0.device, p0.dtype, self.K, num_steps, self.E
        shapes = {EMB: (max(self.V) + 1, E), W_IH: (rnn[0].weight_ih_l0.shape[0], max(widths)),
                  W_HH: tuple(rnn[0].weight_hh_l0.shape), B_IH: tuple(rnn[0].bias_ih_l0.shape),
                  B_HH: tuple(rnn[0].bias_hh_l0.shape), W_OUT: (max(self.V), self.H), B_OUT: (max(self.V),)}
        self.params = [torch.zeros((K,) + shapes[n], dtype=dt, device=dev) for n in self.names]
        self._views = [{EMB: (j, slice(0, v + 1)), W_IH: (j, slice(None), slice(0, d)), W_HH: (j,), B_IH: (j,),
                        B_HH: (j,), W_OUT: (j, slice(0, v)), B_OUT: (j, slice(0, v))}
                       for j, (v, d) in enumerate(zip(self.V, widths))]
        # each run's encoding: added to its embedding (add), concatenated after it (concat), or [emb, emb] (double)
        modes = [m.input_mode for m in models]
        rows = [m.encoding_rows(T, dt) for m in models]                        # [T, P_k] each
        self.P = max([r.shape[1] for r, mode in zip(rows, modes) if mode == "concat"] or [0])
        self.add = torch.zeros(K, T, E, dtype=dt, device=dev)                  # [K, T, E]
        self.cat = torch.zeros(K, T, self.P, dtype=dt, device=dev)             # [K, T, P]
        for k, (r, mode) in enumerate(zip(rows, modes)):
            if mode == "add" and r.shape[1]:
                self.add[k] = r
            elif mode == "concat":
                self.cat[k, :, :r.shape[1]] = r
        self.dbl = torch.tensor([float(mode == "double") for mode in modes], dtype=dt, device=dev).view(K, 1, 1)
        self.any_add, self.any_double = "add" in modes, "double" in modes
        self.offset = (torch.arange(K, device=dev) * (max(self.V) + 1)).view(K, 1, 1)          # [K, 1, 1]
        vocab = torch.arange(max(self.V), device=dev)
        self.vmask = (None if len(set(self.V)) == 1 else                                          # [K, 1, 1, V_max]
                      (vocab.view(1, -1) < torch.tensor(self.V, device=dev).view(-1, 1)).view(K, 1, 1, -1))

    def view(self, j: int) -> dict:
        return self._views[j]

    def losses(self, params, inputs: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(mean cross-entropy, token accuracy) ``[K]`` each: dense over the span, masked (a fixed shape compiles)."""
        return losses(self.logits(params, inputs), targets)

    def logits(self, params: Sequence[torch.Tensor], inputs: torch.Tensor) -> torch.Tensor:
        """``inputs: LongTensor[K, B, T]`` -> ``Tensor[K, B, S, V_max]``."""
        emb_w, w_ih, w_hh, b_ih, b_hh, w_out, b_out = params
        K, B, T = inputs.shape
        E = self.E
        w_e = w_ih[:, :, :E]                                                         # [K, G*H, E]
        if self.any_double:                                                          # [emb, emb]: (W_1 + W_2) emb
            w_e = w_e + self.dbl * w_ih[:, :, E:2 * E]
        table = torch.bmm(emb_w, w_e.transpose(1, 2))                                # [K, V_max+1, G*H]: W_e emb_v
        pos = b_ih.unsqueeze(1)                                                      # [K, 1, G*H]
        if self.any_add:
            pos = pos + torch.bmm(self.add.to(w_ih.dtype), w_ih[:, :, :E].transpose(1, 2))          # [K, T, G*H]
        if self.P:
            pos = pos + torch.bmm(self.cat.to(w_ih.dtype), w_ih[:, :, E:E + self.P].transpose(1, 2))  # [K, T, G*H]
        pos = pos.expand(K, T, -1)                                                   # [K, T, G*H]
        h = stacked.from_table(self.kind, table.flatten(0, 1), inputs + self.offset, pos, w_hh, b_hh)
        h = h[:, :, self.s0:]                                                        # [K, B, S, H]
        S = h.shape[2]
        logits = torch.baddbmm(b_out.unsqueeze(1), h.reshape(K, B * S, -1), w_out.transpose(1, 2))  # [K, B*S, V]
        logits = logits.view(K, B, S, -1)                                            # [K, B, S, V_max]
        if self.vmask is not None:
            logits = logits.masked_fill(~self.vmask, float("-inf"))
        return logits
