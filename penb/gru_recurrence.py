"""The GRU recurrence of K stacked runs with its backward written out (issue 48: the CPU batch that pays).

Autograd through :func:`penb.stacked.gru_steps` makes, per step and in the backward, two small products (the hidden
state's gradient and the weights') and a dozen element-wise operations, each one pass over memory. Here:

* **forward**, per step: one product ``u = W_h. h + b_h.`` (``[K, B, H] @ [K, H, 3H]``) and one fused element-wise
  step (:func:`forward_point`: the gates r, z, n and the next h);
* **backward**, per step: one fused element-wise step (:func:`backward_point`) and one product (the hidden state's
  gradient through ``W_h.``); the weights' gradient comes from all steps in one product at the end,
  ``[K, 3H, T*B] @ [K, T*B, H]``, where autograd adds T small ones.

With ``a = W_i. x + b_i.`` (the input terms), ``u`` as above and ``dh`` the gradient reaching h' (the output's plus
the next step's):

* ``dn' = dh (1 - z)(1 - n^2)``, ``dz' = dh (h - n) z (1 - z)``, ``dr' = dn' u_n r (1 - r)`` (pre-activations);
* ``da = [dr', dz', dn']``, ``du = [dr', dz', dn' r]``, ``dh_prev = dh z + du W_h.``;
* ``dW_h. = sum_t du_t^T h_{t-1}``, ``db_h. = sum_t du_t``.

On the CPU the two element-wise steps are compiled (``torch.compile``, a few seconds a shape, cached on disk by
inductor), one vectorised loop each instead of about ten; elsewhere, or with ``PENB_COMPILE=never``, or where the
compiler is missing, they run as written. A test checks the backward against autograd in fp64 (``gradcheck``).
"""
from __future__ import annotations

import os
import warnings

import torch


def forward_point(table: torch.Tensor, tokens: torch.Tensor, pos: torch.Tensor, u: torch.Tensor,
                  h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """One step's gates and next state. ``table: Tensor[N, 3H]`` (input terms by row), ``tokens: LongTensor[K, B]``
    (this step's row of each sequence), ``pos: Tensor[K, 1, 3H]`` (this step's positional share), ``u: Tensor[K, B,
    3H]`` (``W_h. h + b_h.``), ``h: Tensor[K, B, H]`` -> (``[r, z, n]: Tensor[K, B, 3H]``, ``h': Tensor[K, B, H]``)."""
    H = h.shape[-1]
    g = table[tokens] + pos                                           # [K, B, 3H]: W_i. x_t + b_i.
    rz = torch.sigmoid(g[..., :2 * H] + u[..., :2 * H])               # [K, B, 2H]
    n = torch.tanh(g[..., 2 * H:] + rz[..., :H] * u[..., 2 * H:])     # [K, B, H]: b_hn inside the reset product
    return torch.cat([rz, n], -1), n + rz[..., H:] * (h - n)          # (1 - z) n + z h, as ATen writes it


def backward_point(dh_next: torch.Tensor, dout: torch.Tensor, a: torch.Tensor, u: torch.Tensor, h: torch.Tensor):
    """One step back. ``dh_next, dout, h: Tensor[K, B, H]`` (the gradient from the step after, the output's, the
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


_COMPILED: dict = {}


def _points(device: torch.device):
    """(forward, backward) element-wise steps for ``device``: compiled on the CPU (once per process; a shape
    compiles on first use), else as written."""
    if device.type != "cpu" or os.environ.get("PENB_COMPILE", "auto") == "never":
        return forward_point, backward_point
    if "cpu" not in _COMPILED:
        import torch._dynamo.config as dynamo

        dynamo.recompile_limit = max(dynamo.recompile_limit, 256)    # a shape per (K, rows of the table)
        _COMPILED["cpu"] = tuple(torch.compile(f, fullgraph=True, dynamic=False)
                                 for f in (forward_point, backward_point))
    return _COMPILED["cpu"]


def _call(i: int, device: torch.device, *args):
    """Element-wise step ``i`` (0 forward, 1 backward); a compiler that fails falls back, once, to the plain one."""
    fn = _points(device)[i]
    try:
        return fn(*args)
    except Exception as e:              # no C++ compiler, an inductor bug: the same maths, uncompiled
        if fn is (forward_point, backward_point)[i]:
            raise
        warnings.warn(f"penb.gru_recurrence: compiling the element-wise GRU step failed ({type(e).__name__}: {e}); "
                      "running it uncompiled")
        _COMPILED["cpu"] = (forward_point, backward_point)
        return (forward_point, backward_point)[i](*args)


class GRURecurrence(torch.autograd.Function):
    """``apply(table: Tensor[N, 3H], tokens: LongTensor[K, B, T], pos: Tensor[K, T, 3H], w_hh: Tensor[K, 3H, H],
    b_hh: Tensor[K, 3H])`` -> every step's hidden state ``Tensor[K, B, T, H]`` (h_0 = 0) of K GRUs whose input term
    at step t of sequence b is ``table[tokens[k, b, t]] + pos[k, t]``, as :func:`penb.stacked.gru_steps` on those
    terms. The table's gradient is added row by row (a token's rows, as ``F.embedding``'s backward)."""

    @staticmethod
    def forward(ctx, table, tokens, pos, w_hh, b_hh):
        K, B, T = tokens.shape
        w, bias = w_hh.transpose(1, 2), b_hh.unsqueeze(1)             # [K, H, 3H], [K, 1, 3H]
        h = table.new_zeros(K, B, w_hh.shape[-1])                     # h_0: [K, B, H]
        acts, us, hs = [], [], [h]
        for t in range(T):
            u = torch.baddbmm(bias, h, w)                             # [K, B, 3H]
            a, h = _call(0, table.device, table, tokens[:, :, t], pos[:, t:t + 1], u, h)   # [K, B, 3H], [K, B, H]
            acts.append(a)
            us.append(u)
            hs.append(h)
        ctx.save_for_backward(table, tokens, w_hh)
        ctx.acts, ctx.us, ctx.hs = acts, us, hs
        return torch.stack(hs[1:], 2)                                 # [K, B, T, H]

    @staticmethod
    def backward(ctx, dout: torch.Tensor):
        table, tokens, w_hh = ctx.saved_tensors
        K, B, T = tokens.shape
        d_table, d_pos = torch.zeros_like(table), dout.new_empty(K, T, table.shape[1])
        d_w, d_b = torch.zeros_like(w_hh), dout.new_zeros(K, w_hh.shape[1])
        dh = torch.zeros_like(ctx.hs[0])                              # [K, B, H]
        for t in reversed(range(T)):
            h = ctx.hs[t]                                             # the state before step t
            da, du, dhz, d_pos[:, t], du_sum = _call(1, dout.device, dh, dout[:, :, t], ctx.acts[t], ctx.us[t], h)
            dh = torch.baddbmm(dhz, du, w_hh)                         # [K, B, 3H] @ [K, 3H, H]
            d_w.baddbmm_(du.transpose(1, 2), h)                       # [K, 3H, B] @ [K, B, H]
            d_b += du_sum
            d_table.index_add_(0, tokens[:, :, t].flatten(), da.flatten(0, 1))
        return d_table, None, d_pos, d_w, d_b


def gru(gi: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor) -> torch.Tensor:
    """K GRUs on input terms ``gi: Tensor[K, B, T, 3H]`` (each step its own row of the table): ``Tensor[K, B, T,
    H]``."""
    K, B, T, G = gi.shape
    rows = torch.arange(K * B * T, device=gi.device).view(K, B, T)
    return GRURecurrence.apply(gi.reshape(-1, G), rows, gi.new_zeros(K, T, G), w_hh, b_hh)
