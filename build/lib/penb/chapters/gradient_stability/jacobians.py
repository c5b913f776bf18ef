"""Latent-to-latent Jacobians for the gradient-stability analysis (Morita, Sec. 4.3, Fig. 4); used by
:mod:`penb.chapters.gradient_stability.similarity`.

:func:`latent_jacobians`: d out_end / d z_start through the model's own trained weights, with the inputs
after ``start`` held fixed, by ``torch.func``. GRU/LSTM ``engine``: "func" is vmap of
jacrev/jacfwd over the whole unrolled map (as the official code); "chain" (default) takes each step's
elementwise derivatives from torch.func and multiplies the per-step Jacobians out (same numbers to
rounding, 2-3x fewer operations; see ``_rnn_chain``).

* GRU: z = h (H), out = h (H): the PyTorch cell (gates r, z, n) re-implemented with ``rnn``'s weights.
* LSTM: z = [h, c] (2H; Fig. 4: "concatenation of the hidden and cell states"), out = h (H), the final RNN
  output of Fig. 4 and of the official code; ``lstm_output="hc"`` takes [h, c] (2H) instead.
* S4D: z = the complex SSM state after step ``start`` as real pairs, flattened [H, N/2, re/im] -> H*N
  ("merged with the channel dimension"). The SSM is linear, so z -> x_end = dA^(end-start) z + (inputs)
  exactly, with dA, dB, C from ``S4DKernel.discrete``; the input-driven part is a fixed Vandermonde sum.
  out (``s4d_output``): "output" (default, as the official code): the layer's output at ``end`` after
  D-skip, GELU, 1x1 convolution and GLU (H), what the readout sees. "ssm": y_end = 2 Re(C x_end) + D u_end
  before the GELU; it is linear in z with a Jacobian that does not depend on the disturbants, so every pair
  scores 1 (a control). Since J[i, (h, n, :)] = (d out_i / d y_h) K[h, n, :] with K input-independent,
  the S4D's similarity equals that of the H x H matrix (d out / d y) diag(|K_h|): the disturbants act only
  through the head's derivatives at y_end. The final state itself (J = dA^(end-start), block-diagonal) is likewise
  input-independent, and is not offered: at H=128, N=64 it is 8192 x 8192 per sequence.
"""
from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F
from torch.func import grad, jacfwd, jacrev, vmap

CORES = ("gru", "lstm", "s4d")
ENGINES = ("chain", "func")
RESCALE_EVERY = 8                # chain engine: steps between power-of-two rescalings
MODES = ("jacrev", "jacfwd")
LSTM_OUTPUTS = ("h", "hc")
S4D_OUTPUTS = ("output", "ssm")


def _gru_unit(h, p, gi, b_n):
    """h' of PyTorch's GRU, elementwise in the unit: h [..., H]; p = W_hh h (no bias) and gi = W_ih x + b_ih
    (+ b_hh for r, z) [..., 3, H], gates (r, z, n); b_n [H] = b_hh of n, which the reset gate multiplies."""
    r = torch.sigmoid(gi[..., 0, :] + p[..., 0, :])
    z = torch.sigmoid(gi[..., 1, :] + p[..., 1, :])
    n = torch.tanh(gi[..., 2, :] + r * (p[..., 2, :] + b_n))
    return n + z * (h - n)                                                      # (1 - z) n + z h


def _lstm_cell(c, p, gi):
    """c' of PyTorch's LSTM, elementwise in the unit: c [..., H]; p = W_hh h and gi = W_ih x + b_ih + b_hh
    [..., G, H] with gates (i, f, g, ...) first; the output gate o (index 3) acts only in ``_lstm_hidden``."""
    a = gi[..., :3, :] + p[..., :3, :]
    return torch.sigmoid(a[..., 1, :]) * c + torch.sigmoid(a[..., 0, :]) * torch.tanh(a[..., 2, :])


def _lstm_hidden(c2, p_o, gi_o):
    """h' = sigmoid(o) tanh(c') of PyTorch's LSTM: c2, p_o, gi_o [..., H]."""
    return torch.sigmoid(gi_o + p_o) * torch.tanh(c2)


def _rnn_setup(model, x, start, end):
    """W [G, H, H] (W_hh per gate), gi [P, n, G, H] (fixed inputs after ``start``), b_n, z0 [P, S]."""
    rnn = model.core.rnn
    W_ih, W_hh, b_ih, b_hh = (p.detach() for p in (rnn.weight_ih_l0, rnn.weight_hh_l0, rnn.bias_ih_l0,
                                                   rnn.bias_hh_l0))
    H = rnn.hidden_size
    G = W_hh.shape[0] // H
    _, state = rnn(x[:, :start + 1])
    gi = F.linear(x[:, start + 1:end + 1], W_ih, b_ih).unflatten(-1, (G, H))
    b = b_hh.reshape(G, H)
    if G == 3:
        gi[..., :2, :] += b[:2]
        return W_hh.reshape(G, H, H), gi, b[2], state[0]
    gi += b
    return W_hh.reshape(G, H, H), gi, None, torch.cat([state[0][0], state[1][0]], -1)


def _rnn_func(W, gi, b_n, z0, lstm_output, mode):
    """vmap(jacrev | jacfwd) of the whole map z_start -> out_end per sequence (the official code's way)."""
    G, H = W.shape[:2]
    Wf = W.reshape(G * H, H)

    def f(z, gi):
        if G == 3:
            for t in range(gi.shape[0]):
                z = _gru_unit(z, F.linear(z, Wf).unflatten(-1, (3, H)), gi[t], b_n)
            return z
        h, c = z[:H], z[H:]
        for t in range(gi.shape[0]):
            p = F.linear(h, Wf).unflatten(-1, (4, H))
            c = _lstm_cell(c, p, gi[t])
            h = _lstm_hidden(c, p[3], gi[t, 3])
        return h if lstm_output == "h" else torch.cat([h, c])
    return vmap((jacrev if mode == "jacrev" else jacfwd)(f))(z0, gi)


def _rescale(mats, exponent):
    """Divide each sequence's matrices [P, ...] by 2^e, e chosen so that their largest entry lands in
    [0.5, 1) (exact in floating point); returns them and ``exponent + e``. Keeps a vanishing product far from
    float32's subnormal range (slow, imprecise) and from underflow."""
    top = torch.stack([m.abs().flatten(1).amax(1) for m in mats]).amax(0)     # [P]
    e = torch.frexp(top).exponent                                              # 0 where top == 0
    return [torch.ldexp(m, -e.view(-1, *[1] * (m.dim() - 1)).to(m.dtype)) for m in mats], exponent + e


def _rnn_chain(W, gi, b_n, z0, lstm_output):
    """The same Jacobian as a product of per-step Jacobians J_t = dz_t / dz_(t-1), from the end backwards.

    A cell is elementwise in the unit given p = W_hh h (p_k = W_k h per gate k), so the chain rule through
    the linear map gives J_t from the unit's own derivatives, which torch.func computes (grad of the unit
    function summed over units); only this chain rule is written out. M <- M J_t, with M = d out / d z_t:

    * GRU: J_t = diag(dh'/dh) + sum_k diag(dh'/dp_k) W_k, formed and multiplied ([K, H] x [H, H]);
    * LSTM, as c' = u_c(c, p_i, p_f, p_g) then h' = u_h(c', p_o): with Q = M_h diag(dh'/dc') + M_c
      (= d out / d c'), M_c <- Q diag(dc'/dc) and M_h <- Q sum_(k=i,f,g) diag(dc'/dp_k) W_k +
      M_h diag(dh'/dp_o) W_o.

    Per step this is 2 K H^2 (GRU) or 4 K H^2 (LSTM) multiply-adds against reverse mode's 6 K H^2 and 8 K H^2.
    """
    G, H = W.shape[:2]
    Wf, (P, n) = W.reshape(G * H, H), gi.shape[:2]
    eye = torch.eye(H, dtype=z0.dtype, device=z0.device)

    def combine(coef, k):                          # sum_k diag(coef[:, k]) W_k: [P, H, H]
        out = coef[:, 0, :, None] * W[0]
        for j in range(1, k):
            out.addcmul_(coef[:, j, :, None], W[j])
        return out

    local = []
    if G == 3:
        def unit(h, p, g):
            out = _gru_unit(h, p, g, b_n)
            return out.sum(), out
        h = z0
        for t in range(n):
            p = F.linear(h, Wf).unflatten(-1, (3, H))
            (d_h, d_p), h = grad(unit, argnums=(0, 1), has_aux=True)(h, p, gi[:, t])
            local.append((d_h, d_p))                                           # [P, H], [P, 3, H]
        M, exponent = eye.expand(P, H, H), torch.zeros(P, dtype=torch.int32, device=z0.device)
        for t, (d_h, d_p) in enumerate(reversed(local)):
            J = combine(d_p, 3)
            J.diagonal(dim1=1, dim2=2).add_(d_h)
            M = torch.bmm(M, J)
            if t % RESCALE_EVERY == RESCALE_EVERY - 1:
                (M,), exponent = _rescale([M], exponent)
        return M, exponent

    def cell(c, p, g):
        out = _lstm_cell(c, p, g)
        return out.sum(), out

    def hidden(c2, p_o, g_o):
        out = _lstm_hidden(c2, p_o, g_o)
        return out.sum(), out
    h, c = z0[:, :H], z0[:, H:]
    for t in range(n):
        p = F.linear(h, Wf).unflatten(-1, (4, H))
        (d_c, d_p), c = grad(cell, argnums=(0, 1), has_aux=True)(c, p, gi[:, t])
        (d_c2, d_o), h = grad(hidden, argnums=(0, 1), has_aux=True)(c, p[:, 3], gi[:, t, 3])
        local.append((d_c, d_p, d_c2, d_o))                                    # [P, H], [P, 4, H], [P, H], [P, H]
    zero = torch.zeros(H, H, dtype=z0.dtype, device=z0.device)
    K = H if lstm_output == "h" else 2 * H
    M_h = (eye if K == H else torch.cat([eye, zero])).expand(P, K, H)
    M_c = (zero if K == H else torch.cat([zero, eye])).expand(P, K, H)
    exponent = torch.zeros(P, dtype=torch.int32, device=z0.device)
    for t, (d_c, d_p, d_c2, d_o) in enumerate(reversed(local)):
        Q = M_h * d_c2[:, None] + M_c
        M_h, M_c = torch.baddbmm((M_h * d_o[:, None]) @ W[3], Q, combine(d_p, 3)), Q * d_c[:, None]
        if t % RESCALE_EVERY == RESCALE_EVERY - 1:
            (M_h, M_c), exponent = _rescale([M_h, M_c], exponent)
    return torch.cat([M_h, M_c], -1), exponent


def _s4d_problem(model, x, start, end, s4d_output):
    """(f(z, fixed), z0 [P, H*N], fixed [P, H]) for an S4D core (see module docstring).

    x_end = dA^m z + rest (m = end - start), so y_end = sum_(n, re/im) K[h, n, :] z[h, n, :] + const with
    K = 2 (Re(C dA^m), -Im(C dA^m)) and const = 2 Re(C rest) + D u_end, both computed once outside.
    """
    ssm = model.core.ssm
    u = model.core.in_proj(x).to(ssm.D.dtype)                               # [P, T, H]
    dA, dB, C = (t.detach() for t in ssm.kernel.discrete())                   # complex [H, n]
    logA = torch.log(dA)

    def drive(a, b):                     # sum_{t=a..b} dA^(b-t) dB u_t: complex [P, H, n]
        powers = torch.exp(logA[..., None] * torch.arange(b - a, -1, -1, device=u.device)) * dB[..., None]
        return torch.einsum("pth,hnt->phn", u[:, a:b + 1].to(dA.dtype), powers)

    z0 = torch.view_as_real(drive(0, start)).flatten(1)                       # [P, H*n*2]
    CP = C * torch.exp(logA * (end - start))                                  # [H, n]
    K = (2 * torch.stack([CP.real, -CP.imag], -1)).flatten(1)                 # [H, n*2]
    const = 2 * (C * drive(start + 1, end)).sum(-1).real + ssm.D.detach() * u[:, end]   # [P, H]
    W, b = ssm.output.weight.detach()[..., 0], ssm.output.bias.detach()     # 1x1 conv [2H, H], [2H]
    H = K.shape[0]

    def f(z, const):
        y = (z.reshape(H, -1) * K).sum(-1) + const                             # pre-activation y_end [H]
        if s4d_output == "ssm":
            return y
        return F.glu(F.linear(F.gelu(y), W, b), dim=-1)                      # 1x1 conv = linear per step
    return f, z0, const


def scaled_latent_jacobians(model, inputs: torch.Tensor, start: int = 0, end: Optional[int] = None, *,
                            engine: str = "chain", mode: str = "jacrev", lstm_output: str = "h",
                            s4d_output: str = "output", chunk: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    """(J Tensor[P, D_out, D_in], e IntTensor[P]) with d out_end / d z_start = J * 2^e per sequence.

    The chain engine keeps J near 1 by powers of two (exact), so a strongly vanishing Jacobian stays
    resolved in float32; the func engine and the S4D give e = 0. See :func:`latent_jacobians`.
    """
    T = inputs.shape[-1]
    end = T - 1 if end is None else end
    for name, v, ok in (("engine", engine, ENGINES), ("mode", mode, MODES), ("lstm_output", lstm_output,
                        LSTM_OUTPUTS), ("s4d_output", s4d_output, S4D_OUTPUTS)):
        if v not in ok:
            raise ValueError(f"unknown {name} {v!r}; valid: {', '.join(ok)}")
    if inputs.dim() != 2 or not 0 <= start < end <= T - 1:
        raise ValueError(f"need inputs [P, T] and 0 <= start < end <= T-1, got shape {tuple(inputs.shape)}, "
                         f"start={start}, end={end}")
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be an int >= 1, got {chunk!r}")
    kind = getattr(model.core, "kind", None)
    if kind not in CORES:
        raise ValueError(f"latent Jacobians are defined for the cores {', '.join(CORES)}, got {kind!r}")
    jacs, exps = [], []
    for i in range(0, inputs.shape[0], chunk):
        with torch.no_grad():
            x = model.input_vectors(inputs[i:i + chunk])                     # [p, T, D_in]
            if kind == "s4d":
                f, z0, const = _s4d_problem(model, x, start, end, s4d_output)
            else:
                problem = _rnn_setup(model, x, start, end)
        if kind == "s4d":
            J, e = vmap(jacrev(f))(z0, const), None
        elif engine == "func":
            J, e = _rnn_func(*problem, lstm_output, mode), None
        else:
            J, e = _rnn_chain(*problem, lstm_output)
        jacs.append(J.detach())
        exps.append(torch.zeros(len(J), dtype=torch.int32, device=J.device) if e is None else e)
    return (jacs[0], exps[0]) if len(jacs) == 1 else (torch.cat(jacs), torch.cat(exps))


def latent_jacobians(model, inputs: torch.Tensor, start: int = 0, end: Optional[int] = None, *,
                     engine: str = "chain", mode: str = "jacrev", lstm_output: str = "h",
                     s4d_output: str = "output", chunk: int = 256) -> torch.Tensor:
    """d out_end / d z_start per sequence: inputs LongTensor[P, T] -> Tensor[P, D_out, D_in].

    ``start``: 0-based step after which the latent z is taken (the target's step); ``end``: the output's
    step (default T-1, i.e. t = 2L). Shapes: GRU [P, H, H]; LSTM [P, H, 2H] ("hc": [P, 2H, 2H]);
    S4D [P, H, H*N]. ``engine`` (GRU/LSTM): "func", vmap of ``mode`` ("jacrev" | "jacfwd") over the
    unrolled map, or "chain", per-step Jacobians from torch.func multiplied out (same numbers, faster).
    The S4D map is one affine step and a head: always vmap(jacrev). ``chunk``: sequences per call.
    Values below the dtype's range underflow as in any float computation; the similarities use
    :func:`scaled_latent_jacobians`, which does not.
    """
    J, e = scaled_latent_jacobians(model, inputs, start, end, engine=engine, mode=mode, lstm_output=lstm_output,
                                   s4d_output=s4d_output, chunk=chunk)
    return torch.ldexp(J, e.view(-1, 1, 1).to(J.dtype))
