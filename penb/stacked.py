"""K recurrent cores with per-run weights, one batched product per time step (issue 42; the kernel of issue 48).

Each run keeps its own weights stacked along a leading axis K, and every step is one ``baddbmm`` over the K runs: no
number of one run ever enters another's (a NaN stays in its run). The input terms are computed before the
recurrence: for all steps at once (``input_terms``), or, for a token input, from a table of each token's terms and
each position's (:func:`from_table`: ``penb.trainer.kernels.Stacked`` folds the embedding into one product per
token and a positional encoding's share into one per position, as ``RNNCore.forward_positional`` does for one run).
On the CPU, eager and without autocast, the recurrence runs with its backward written out (:mod:`penb.recurrence`);
otherwise step by step under autograd (``gru_steps``, ``lstm_steps``; :func:`written_out`).

The equations are ``torch.nn.GRU``'s and ``torch.nn.LSTM``'s (one layer, batch first), gate order as theirs:

* GRU: r = sigma(W_ir x + b_ir + W_hr h + b_hr), z = sigma(W_iz x + b_iz + W_hz h + b_hz),
  n = tanh(W_in x + b_in + r * (W_hn h + b_hn))  (``b_hn`` inside the reset product), h' = (1 - z) * n + z * h;
* LSTM: i, f, g, o = sigma, sigma, tanh, sigma of (W_i. x + b_i. + W_h. h + b_h.), c' = f * c + i * g,
  h' = o * tanh(c').

Shapes: ``x: Tensor[K, B, T, D]``, ``w_ih: Tensor[K, G*H, D]``, ``w_hh: Tensor[K, G*H, H]``, ``b_ih, b_hh:
Tensor[K, G*H]`` (G = 3 for the GRU, 4 for the LSTM: ``nn.GRU.weight_ih_l0`` etc., stacked), input terms
``gi: Tensor[K, B, T, G*H]``, output ``Tensor[K, B, T, H]`` (every step's hidden state, as ``nn.GRU(...)(x)[0]``).
"""
from __future__ import annotations

import torch

from penb import recurrence

GATES = {"gru": 3, "lstm": 4}


def input_terms(x: torch.Tensor, w_ih: torch.Tensor, b_ih: torch.Tensor) -> torch.Tensor:
    """``W_i. x_t + b_i.`` of every step at once: ``[K, B, T, D]`` -> ``[K, B, T, G*H]``."""
    K, B, T, D = x.shape
    return torch.baddbmm(b_ih.unsqueeze(1), x.reshape(K, B * T, D), w_ih.transpose(1, 2)).view(K, B, T, -1)


def steps(gi: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The T steps of ``gi: Tensor[K, B, T, G*H]``, each ``[K, B, G*H]``, in one ``unbind``: its backward stacks the
    T step gradients once, where indexing each step (``gi[:, :, t]``) would build and add a whole ``[K, B, T, G*H]``
    gradient per step (T^2 work, most of an eager update's time at K = 64)."""
    return gi.unbind(2)


def written_out(x: torch.Tensor) -> bool:
    """Whether the recurrence runs as :class:`penb.recurrence.Recurrence`: on the CPU, eager, without autocast.
    Otherwise step by step under autograd: compiling (the compiler derives the backward), under autocast (other
    dtypes per operation), and on CUDA, where the batch was measured that way (benchmarks/README.md) and where the
    table's row-by-row gradient (``index_add_``, atomic there) would make a run's rounding vary from call to call."""
    return x.device.type == "cpu" and not (torch.compiler.is_compiling() or torch.is_autocast_enabled("cpu"))


def gru_from(gi: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor) -> torch.Tensor:
    """K GRUs from their input terms ``gi: Tensor[K, B, T, 3H]``: -> ``Tensor[K, B, T, H]``.

    On the CPU, eager and without autocast, the recurrence is :class:`penb.recurrence.Recurrence` (its backward
    written out); otherwise :func:`gru_steps`, whose backward autograd (or the compiler) derives (:func:`written_out`).
    Both compute the same function (a test compares them in fp64)."""
    if written_out(gi):
        return recurrence.from_terms("gru", gi, w_hh, b_hh)
    return gru_steps(gi, w_hh, b_hh)


def gru_steps(gi: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor) -> torch.Tensor:
    """:func:`gru_from` step by step in differentiable operations (what a compiler traces)."""
    w, bias, h = w_hh.transpose(1, 2), b_hh.unsqueeze(1), gi.new_zeros(gi.shape[0], gi.shape[1], w_hh.shape[-1])
    out = []                                                          # w: [K, H, 3H], bias: [K, 1, 3H]
    for g_t in steps(gi):                                             # [K, B, 3H]: W_i. x_t + b_i.
        gh = torch.baddbmm(bias, h, w)                                # [K, B, 3H]: W_h. h + b_h.
        i_r, i_z, i_n = g_t.chunk(3, -1)                              # [K, B, H] each
        h_r, h_z, h_n = gh.chunk(3, -1)                               # [K, B, H] each
        r = torch.sigmoid(i_r + h_r)                                  # [K, B, H]
        z = torch.sigmoid(i_z + h_z)                                  # [K, B, H]
        n = torch.tanh(i_n + r * h_n)                                 # [K, B, H]: b_hn inside the reset product
        h = n + z * (h - n)                                           # [K, B, H]: (1 - z) n + z h, as ATen writes it
        out.append(h)
    return torch.stack(out, 2)                                        # [K, B, T, H]


def lstm_from(gi: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor) -> torch.Tensor:
    """K LSTMs from their input terms ``gi: Tensor[K, B, T, 4H]``: -> ``Tensor[K, B, T, H]`` (as :func:`gru_from`:
    the written-out recurrence, else :func:`lstm_steps`)."""
    if written_out(gi):
        return recurrence.from_terms("lstm", gi, w_hh, b_hh)
    return lstm_steps(gi, w_hh, b_hh)


def lstm_steps(gi: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor) -> torch.Tensor:
    """:func:`lstm_from` step by step in differentiable operations (what a compiler traces)."""
    K, B, T, _ = gi.shape
    w, bias, h = w_hh.transpose(1, 2), b_hh.unsqueeze(1), gi.new_zeros(K, B, w_hh.shape[-1])   # [K,H,4H], [K,1,4H]
    c = torch.zeros_like(h)                                           # [K, B, H]
    out = []
    for g_t in steps(gi):                                             # [K, B, 4H]: W_i. x_t + b_i.
        gates = g_t + torch.baddbmm(bias, h, w)                       # [K, B, 4H]
        i, f, g, o = gates.chunk(4, -1)                               # [K, B, H] each, nn.LSTM's order
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)   # [K, B, H]
        h = torch.sigmoid(o) * torch.tanh(c)                          # [K, B, H]
        out.append(h)
    return torch.stack(out, 2)                                        # [K, B, T, H]


FROM_TERMS = {"gru": gru_from, "lstm": lstm_from}


def from_table(kind: str, table: torch.Tensor, tokens: torch.Tensor, pos: torch.Tensor, w_hh: torch.Tensor,
               b_hh: torch.Tensor) -> torch.Tensor:
    """K cores whose input term at step t of sequence b is ``table[tokens[k, b, t]] + pos[k, t]``: ``table:
    Tensor[N, G*H]`` (a run's rows ``W_i. x`` of each token, runs one after another), ``tokens: LongTensor[K, B, T]``
    (rows of ``table``), ``pos: Tensor[K, T, G*H]`` (the biases and an encoding's share) -> ``Tensor[K, B, T, H]``.
    Where the recurrence is written out (:func:`written_out`), the input terms ``[K, B, T, G*H]`` are never formed
    in full (:class:`penb.recurrence.Recurrence` reads each step's rows of the table)."""
    if written_out(table):
        return recurrence.Recurrence.apply(kind, table, tokens, pos, w_hh, b_hh)
    return FROM_TERMS[kind](torch.nn.functional.embedding(tokens, table) + pos.unsqueeze(1), w_hh, b_hh)


def core(kind: str, x: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b_ih: torch.Tensor,
         b_hh: torch.Tensor) -> torch.Tensor:
    """The K cores of ``kind`` ("gru" or "lstm") on inputs ``x``: ``[K, B, T, D]`` -> ``[K, B, T, H]``."""
    if kind not in FROM_TERMS:
        raise ValueError(f"unknown core {kind!r}; stacked cores: {', '.join(FROM_TERMS)}")
    return FROM_TERMS[kind](input_terms(x, w_ih, b_ih), w_hh, b_hh)


def gru(x, w_ih, w_hh, b_ih, b_hh):
    """K GRUs, run k on ``x[k]`` with its own weights: ``[K, B, T, D]`` -> ``[K, B, T, H]``."""
    return core("gru", x, w_ih, w_hh, b_ih, b_hh)


def lstm(x, w_ih, w_hh, b_ih, b_hh):
    """K LSTMs, run k on ``x[k]`` with its own weights: ``[K, B, T, D]`` -> ``[K, B, T, H]``."""
    return core("lstm", x, w_ih, w_hh, b_ih, b_hh)


def stack(modules) -> tuple[torch.Tensor, ...]:
    """(w_ih, w_hh, b_ih, b_hh), each ``[K, ...]``, of K one-layer ``nn.GRU``/``nn.LSTM`` modules (a copy, for
    tests and benchmarks; a trainer stacks its runs' parameters itself)."""
    names = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
    return tuple(torch.stack([getattr(m, n).detach() for m in modules]) for n in names)
