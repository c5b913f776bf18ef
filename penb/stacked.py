"""K recurrent cores with per-run weights, one batched product per time step (issue 42).

:class:`penb.batched.BatchedTrainer` packs K runs' GRU/LSTM weights into one block-diagonal cuDNN call: exact, but it
multiplies K - 1 zero blocks for every run (at K = 64, 63/64 of the recurrent arithmetic) and lets one run's NaN
cross into the others (0 x NaN), which is why it fences bad runs. Here each run keeps its own weights stacked along
a leading axis K, and every step is one ``baddbmm`` over the K runs: no zero blocks, so no arithmetic is wasted and
no number of one run ever enters another's (a NaN stays in its run).

The equations are ``torch.nn.GRU``'s and ``torch.nn.LSTM``'s (one layer, batch first), gate order as theirs:

* GRU: r = sigma(W_ir x + b_ir + W_hr h + b_hr), z = sigma(W_iz x + b_iz + W_hz h + b_hz),
  n = tanh(W_in x + b_in + r * (W_hn h + b_hn))  (``b_hn`` inside the reset product), h' = (1 - z) * n + z * h;
* LSTM: i, f, g, o = sigma, sigma, tanh, sigma of (W_i. x + b_i. + W_h. h + b_h.), c' = f * c + i * g,
  h' = o * tanh(c').

Shapes: ``x: Tensor[K, B, T, D]``, ``w_ih: Tensor[K, G*H, D]``, ``w_hh: Tensor[K, G*H, H]``, ``b_ih, b_hh:
Tensor[K, G*H]`` (G = 3 for the GRU, 4 for the LSTM: ``nn.GRU.weight_ih_l0`` etc., stacked), output
``Tensor[K, B, T, H]`` (every step's hidden state, as ``nn.GRU(...)(x)[0]``).
"""
from __future__ import annotations

import torch


def _setup(x: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b_ih: torch.Tensor, b_hh: torch.Tensor):
    """What every step reads: every step's input projection ``gi [K, B, T, G*H]`` at once, the recurrent weights
    ``w [K, H, G*H]`` and bias ``[K, 1, G*H]``, and a zero state ``[K, B, H]``."""
    K, B, T, D = x.shape
    gi = torch.baddbmm(b_ih.unsqueeze(1), x.reshape(K, B * T, D), w_ih.transpose(1, 2))   # [K, B*T, G*H]
    return gi.view(K, B, T, -1), w_hh.transpose(1, 2), b_hh.unsqueeze(1), x.new_zeros(K, B, w_hh.shape[-1])


def gru(x: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b_ih: torch.Tensor,
        b_hh: torch.Tensor) -> torch.Tensor:
    """K GRUs, run k on ``x[k]`` with its own weights: ``[K, B, T, D]`` -> ``[K, B, T, H]``."""
    gi, w, bias, h = _setup(x, w_ih, w_hh, b_ih, b_hh)                # [K,B,T,3H], [K,H,3H], [K,1,3H], [K,B,H]
    out = []
    for t in range(x.shape[2]):
        gh = torch.baddbmm(bias, h, w)                                # [K, B, 3H]: W_h. h + b_h.
        i_r, i_z, i_n = gi[:, :, t].chunk(3, -1)                      # [K, B, H] each
        h_r, h_z, h_n = gh.chunk(3, -1)                               # [K, B, H] each
        r = torch.sigmoid(i_r + h_r)                                  # [K, B, H]
        z = torch.sigmoid(i_z + h_z)                                  # [K, B, H]
        n = torch.tanh(i_n + r * h_n)                                 # [K, B, H]: b_hn inside the reset product
        h = n + z * (h - n)                                           # [K, B, H]: (1 - z) n + z h, as ATen writes it
        out.append(h)
    return torch.stack(out, 2)                                        # [K, B, T, H]


def lstm(x: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b_ih: torch.Tensor,
         b_hh: torch.Tensor) -> torch.Tensor:
    """K LSTMs, run k on ``x[k]`` with its own weights: ``[K, B, T, D]`` -> ``[K, B, T, H]``."""
    gi, w, bias, h = _setup(x, w_ih, w_hh, b_ih, b_hh)                # [K,B,T,4H], [K,H,4H], [K,1,4H], [K,B,H]
    c = torch.zeros_like(h)                                           # [K, B, H]
    out = []
    for t in range(x.shape[2]):
        gates = gi[:, :, t] + torch.baddbmm(bias, h, w)               # [K, B, 4H]
        i, f, g, o = gates.chunk(4, -1)                               # [K, B, H] each, nn.LSTM's order
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)   # [K, B, H]
        h = torch.sigmoid(o) * torch.tanh(c)                          # [K, B, H]
        out.append(h)
    return torch.stack(out, 2)                                        # [K, B, T, H]


CORES = {"gru": (gru, 3), "lstm": (lstm, 4)}


def core(kind: str, x: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b_ih: torch.Tensor,
         b_hh: torch.Tensor) -> torch.Tensor:
    """The K cores of ``kind`` ("gru" or "lstm"): ``[K, B, T, D]`` -> ``[K, B, T, H]``."""
    if kind not in CORES:
        raise ValueError(f"unknown core {kind!r}; stacked cores: {', '.join(CORES)}")
    return CORES[kind][0](x, w_ih, w_hh, b_ih, b_hh)


def stack(modules) -> tuple[torch.Tensor, ...]:
    """(w_ih, w_hh, b_ih, b_hh), each ``[K, ...]``, of K one-layer ``nn.GRU``/``nn.LSTM`` modules (a copy, for
    tests and benchmarks; a trainer stacks its runs' parameters itself)."""
    names = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
    return tuple(torch.stack([getattr(m, n).detach() for m in modules]) for n in names)
