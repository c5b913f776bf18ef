"""The GRU and LSTM recurrences of K stacked runs with their backward written out (issue 48: a CPU batch that pays).

Autograd through :func:`penb.stacked.gru_steps` (or ``lstm_steps``) makes, per step and in the backward, two small
products (the hidden state's gradient and the weights') and a dozen element-wise operations, each one pass over
memory, and needs the input terms of every step formed in full (``[K, B, T, G*H]``). Here:

* the input term of step t is read from a table, ``table[tokens[k, b, t]] + pos[k, t]`` (a run's rows ``W_i. x`` of
  each token, and the biases plus an encoding's share per position): never formed in full, its gradient added row
  by row, as ``F.embedding``'s;
* **forward**, per step: one product ``u = W_h. h + b_h.`` (``[K, B, H] @ [K, H, G*H]``) and one fused element-wise
  step (``forward_gru`` / ``forward_lstm``: the gates and the next state);
* **backward**, per step: one fused element-wise step and two products (the hidden state's gradient through
  ``W_h.`` and that step's share of the weights' gradient).

The GRU's gradients, with ``a`` the input term, ``u`` as above and ``dh`` the gradient reaching h' (the output's plus
the next step's): ``dn' = dh (1 - z)(1 - n^2)``, ``dz' = dh (h - n) z (1 - z)``, ``dr' = dn' u_n r (1 - r)`` (the
pre-activations); ``da = [dr', dz', dn']``, ``du = [dr', dz', dn' r]``, ``dh_prev = dh z + du W_h.``. The LSTM's,
with ``c' = f c + i g`` and ``h' = o tanh(c')``: ``dc = dc_next + dh o (1 - tanh(c')^2)``, ``di' = dc g i (1 - i)``,
``df' = dc c f (1 - f)``, ``dg' = dc i (1 - g^2)``, ``do' = dh tanh(c') o (1 - o)``, ``da = du = [di', df', dg',
do']``, ``dc_prev = dc f``, ``dh_prev = du W_h.``. Both: ``dW_h. = sum_t du_t^T h_{t-1}``, ``db_h. = sum_t du_t``.

On the CPU the element-wise steps are compiled (``torch.compile``, a few seconds a shape, cached on disk by
inductor), one vectorised loop each instead of about ten; elsewhere, or with ``PENB_COMPILE=never``, or where the
compiler fails, they run as written. ``penb.stacked`` takes this path on the CPU only (``written_out``). Tests
check the backward against finite differences in fp64 (``gradcheck``) and against autograd through the step-by-step
equations.
"""
from __future__ import annotations

import os
import warnings

import torch
from torch.autograd.function import once_differentiable


def forward_gru(table, tokens, pos, u, h):
    """One GRU step. ``table: Tensor[N, 3H]`` (input terms by row), ``tokens: LongTensor[K, B]`` (this step's row
    of each sequence), ``pos: Tensor[K, 1, 3H]``, ``u: Tensor[K, B, 3H]`` (``W_h. h + b_h.``), ``h: Tensor[K, B,
    H]`` -> (``[r, z, n]: Tensor[K, B, 3H]``, ``h': Tensor[K, B, H]``)."""
    H = h.shape[-1]
    g = table[tokens] + pos                                           # [K, B, 3H]: W_i. x_t + b_i.
    rz = torch.sigmoid(g[..., :2 * H] + u[..., :2 * H])               # [K, B, 2H]
    n = torch.tanh(g[..., 2 * H:] + rz[..., :H] * u[..., 2 * H:])     # [K, B, H]: b_hn inside the reset product
    return torch.cat([rz, n], -1), n + rz[..., H:] * (h - n)          # (1 - z) n + z h, as ATen writes it


def backward_gru(dh_next, dout, a, u, h):
    """One GRU step back. ``dh_next, dout, h: Tensor[K, B, H]`` (the gradient from the step after, the output's, the
    state before), ``a = [r, z, n], u: Tensor[K, B, 3H]`` -> (``da, du: Tensor[K, B, 3H]``, ``dh z: Tensor[K, B,
    H]``, ``da`` and ``du`` summed over the batch: ``Tensor[K, 3H]`` each)."""
    H = h.shape[-1]
    dh = dh_next + dout
    r, z, n = a[..., :H], a[..., H:2 * H], a[..., 2 * H:]
    dn = dh * (1 - z) * (1 - n * n)
    dz = dh * (h - n) * z * (1 - z)
    dr = dn * u[..., 2 * H:] * r * (1 - r)
    da, du = torch.cat([dr, dz, dn], -1), torch.cat([dr, dz, dn * r], -1)
    return da, du, dh * z, da.sum(1), du.sum(1)


def forward_lstm(table, tokens, pos, u, h, c):
    """One LSTM step. As :func:`forward_gru` with ``4H`` and the cell ``c: Tensor[K, B, H]`` -> (``[i, f, g, o]:
    Tensor[K, B, 4H]``, ``h', c': Tensor[K, B, H]``)."""
    H = h.shape[-1]
    x = table[tokens] + pos + u                                       # [K, B, 4H]: nn.LSTM's gate order
    a = torch.cat([torch.sigmoid(x[..., :2 * H]), torch.tanh(x[..., 2 * H:3 * H]), torch.sigmoid(x[..., 3 * H:])], -1)
    c = a[..., H:2 * H] * c + a[..., :H] * a[..., 2 * H:3 * H]        # f c + i g
    return a, a[..., 3 * H:] * torch.tanh(c), c                       # o tanh(c')


def backward_lstm(dh_next, dc_next, dout, a, c, c_prev):
    """One LSTM step back. ``dh_next, dc_next, dout: Tensor[K, B, H]``, ``a = [i, f, g, o]: Tensor[K, B, 4H]``,
    ``c, c_prev``: the cell after and before the step -> (``du: Tensor[K, B, 4H]`` (the input term's too),
    ``dc_prev: Tensor[K, B, H]``, ``du`` summed over the batch: ``Tensor[K, 4H]``)."""
    H = c.shape[-1]
    i, f, g, o = a[..., :H], a[..., H:2 * H], a[..., 2 * H:3 * H], a[..., 3 * H:]
    dh = dh_next + dout
    tc = torch.tanh(c)
    dc = dc_next + dh * o * (1 - tc * tc)
    du = torch.cat([dc * g * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - g * g), dh * tc * o * (1 - o)], -1)
    return du, dc * f, du.sum(1)


POINTS = {"gru": (forward_gru, backward_gru), "lstm": (forward_lstm, backward_lstm)}
_COMPILED: dict = {}


def _points(kind: str, device: torch.device):
    """(forward, backward) element-wise steps of ``kind`` on ``device``: compiled on the CPU (once per process; a
    shape compiles on first use), else as written."""
    if device.type != "cpu" or os.environ.get("PENB_COMPILE", "auto") == "never":
        return POINTS[kind]
    if kind not in _COMPILED:
        import torch._dynamo.config as dynamo  # deferred: dynamo loads only where a compile happens

        dynamo.recompile_limit = max(dynamo.recompile_limit, 256)    # a shape per (K, rows of the table)
        _COMPILED[kind] = tuple(torch.compile(f, fullgraph=True, dynamic=False) for f in POINTS[kind])
    return _COMPILED[kind]


def _call(kind: str, i: int, device: torch.device, *args):
    """Element-wise step ``i`` (0 forward, 1 backward) of ``kind``; a compile that fails falls back to the plain one,
    with a warning."""
    fn = _points(kind, device)[i]
    try:
        return fn(*args)
    except Exception as e:              # no C++ compiler, an inductor bug: the same maths, uncompiled
        if fn is POINTS[kind][i]:
            raise
        warnings.warn(f"penb.recurrence: compiling the element-wise {kind} step failed ({type(e).__name__}: {e}); "
                      "running it uncompiled")
        _COMPILED[kind] = POINTS[kind]
        return POINTS[kind][i](*args)


class Recurrence(torch.autograd.Function):
    """``apply(kind, table: Tensor[N, G*H], tokens: LongTensor[K, B, T], pos: Tensor[K, T, G*H], w_hh: Tensor[K,
    G*H, H], b_hh: Tensor[K, G*H])`` -> every step's hidden state ``Tensor[K, B, T, H]`` (zero initial state) of K
    GRUs or LSTMs (``kind``) whose input term at step t of sequence b is ``table[tokens[k, b, t]] + pos[k, t]``, as
    :func:`penb.stacked.gru_steps` / ``lstm_steps`` on those terms."""

    @staticmethod
    def forward(ctx, kind, table, tokens, pos, w_hh, b_hh):
        K, B, T = tokens.shape
        w, bias = w_hh.transpose(1, 2), b_hh.unsqueeze(1)             # [K, H, G*H], [K, 1, G*H]
        zero = table.new_zeros(K, B, w_hh.shape[-1])                  # [K, B, H]
        states = [(zero,) if kind == "gru" else (zero, zero)]         # (h,) or (h, c) before each step
        acts, us = [], []
        for t in range(T):
            u = torch.baddbmm(bias, states[-1][0], w)                 # [K, B, G*H]
            a, *state = _call(kind, 0, table.device, table, tokens[:, :, t], pos[:, t:t + 1], u, *states[-1])
            acts.append(a)
            us.append(u if kind == "gru" else None)
            states.append(tuple(state))
        ctx.save_for_backward(table, tokens, w_hh)
        ctx.kind, ctx.acts, ctx.us, ctx.states = kind, acts, us, states
        return torch.stack([s[0] for s in states[1:]], 2)             # [K, B, T, H]

    @staticmethod
    @once_differentiable
    def backward(ctx, dout: torch.Tensor):
        table, tokens, w_hh = ctx.saved_tensors
        kind, states = ctx.kind, ctx.states
        K, B, T = tokens.shape
        d_table, d_pos = torch.zeros_like(table), dout.new_empty(K, T, table.shape[1])
        d_w, d_b = torch.zeros_like(w_hh), dout.new_zeros(K, w_hh.shape[1])
        dh = dc = torch.zeros_like(states[0][0])                      # [K, B, H]
        for t in reversed(range(T)):
            h = states[t][0]                                          # the state before step t
            if kind == "gru":
                da, du, dhz, d_pos[:, t], du_sum = _call(kind, 1, dout.device, dh, dout[:, :, t], ctx.acts[t],
                                                         ctx.us[t], h)
                dh = torch.baddbmm(dhz, du, w_hh)                     # [K, B, G*H] @ [K, G*H, H]
            else:
                du, dc, du_sum = _call(kind, 1, dout.device, dh, dc, dout[:, :, t], ctx.acts[t], states[t + 1][1],
                                       states[t][1])
                da, d_pos[:, t] = du, du_sum
                dh = torch.bmm(du, w_hh)                              # [K, B, G*H] @ [K, G*H, H]
            d_w.baddbmm_(du.transpose(1, 2), h)                       # [K, G*H, B] @ [K, B, H]
            d_b += du_sum
            d_table.index_add_(0, tokens[:, :, t].flatten(), da.flatten(0, 1))
        return None, d_table, None, d_pos, d_w, d_b


def from_terms(kind: str, gi: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor) -> torch.Tensor:
    """K cores on input terms ``gi: Tensor[K, B, T, G*H]`` (each step its own row of the table): ``Tensor[K, B, T,
    H]``."""
    K, B, T, G = gi.shape
    rows = torch.arange(K * B * T, device=gi.device).view(K, B, T)
    return Recurrence.apply(kind, gi.reshape(-1, G), rows, gi.new_zeros(K, T, G), w_hh, b_hh)
