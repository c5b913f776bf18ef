"""Gradient stability (Morita, Sec. 4.3, Eq. 3-4, Fig. 4-5): how alike the latent-to-latent Jacobians of
two sequences that share a target token but differ in their disturbants are.

**Similarity of two Jacobians** J_A, J_B [D_out, D_in] with rows g_i, h_i (the gradient of output i) and
row cosines c_i = <g_i, h_i> / (|g_i| |h_i|). ``METHODS`` (keys of :func:`similarity`):

    weighted_rows  sum_i <g_i, h_i> / sum_i |g_i||h_i|         (default; the official code's weighted mean)
    frobenius      sum_i <g_i, h_i> / (|J_A|_F |J_B|_F)       (cosine of the flattened matrices)
    mean_rows      mean_i c_i                                  (unweighted mean; also in the official code)
    printed        sum_i a_i b_i <g_i, h_i>, a_i = |g_i| / sum_k |g_k|   (Eq. 3-4 as printed)

Algebra. With the printed coefficients a_i = |g_i| / sum_k |g_k| (b_i likewise), Eq. 3 applied to the raw
rows is  S = sum_i |g_i|^2 |h_i|^2 c_i / (sum_k |g_k| sum_k |h_k|):  it grows as s^2 when both Jacobians are
scaled by s, and for J_A = J_B it equals sum_i |g_i|^4 / (sum_k |g_k|)^2, not 1. Applied to unit rows
g_i / |g_i| it gives sum_i a_i b_i c_i, which for J_A = J_B is sum_i a_i^2 in [1/D_out, 1] (1 only with a
single non-zero row). Two repairs score a perfect alignment 1:

* weighted mean: divide by the weights' sum,  sum_i a_i b_i c_i / sum_i a_i b_i = sum_i <g_i, h_i> / sum_i |g_i||h_i|
  (``weighted_rows``; the printed a_i or any a_i proportional to |g_i| give the same value);
* L2 coefficients: alpha_i = |g_i| / sqrt(sum_k |g_k|^2) (sum_i alpha_i^2 = 1) in Eq. 3 on unit rows gives
  sum_i alpha_i beta_i c_i = sum_i <g_i, h_i> / (|J_A|_F |J_B|_F) (``frobenius``).

So  weighted_rows = frobenius / sum_i alpha_i beta_i,  and  0 < sum_i alpha_i beta_i <= 1  (Cauchy-Schwarz):
|weighted_rows| >= |frobenius|, equal when the row-norm profiles are proportional (|h_i| = s |g_i|). Both
are symmetric, 1 for a positively scaled copy and -1 for a negated one. A zero denominator scores 0 (as the
official code's masking does).

**Jacobians** (:func:`latent_jacobians`): d out_end / d z_start through the model's own trained weights,
with the inputs after ``start`` held fixed, by ``torch.func``. GRU/LSTM ``engine``: "func" is vmap of
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

**Pairs** (:func:`make_pairs`): the dual-frequency task's tokens; each pair shares the target token at
``target_position`` and the disturbants before it (the S4D's shared prefix, Fig. 5) and draws the later
disturbants independently, all FREQUENT or all RARE; the four target x disturbant cells in equal numbers.
The paper's target sits at t = 1 for the RNNs and at t = 23 (0-based 22) of 64 for the S4D.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence, Union

import torch
import torch.nn.functional as F
from torch.func import grad, jacfwd, jacrev, vmap

from penb.tasks import Batch, Task, make_task

METHODS = ("weighted_rows", "frobenius", "mean_rows", "printed")
CORES = ("gru", "lstm", "s4d")
ENGINES = ("chain", "func")
RESCALE_EVERY = 8                # chain engine: steps between power-of-two rescalings
MODES = ("jacrev", "jacfwd")
LSTM_OUTPUTS = ("h", "hc")
S4D_OUTPUTS = ("output", "ssm")
LABELS = ("frequent", "rare")
S4D_TARGET_POSITION = 22        # t = 23 of L = 64 (Sec. 4.3)


# -- similarity --------------------------------------------------------------------------------------
def _methods(method: Union[str, Sequence[str]]) -> tuple:
    names = (method,) if isinstance(method, str) else tuple(method)
    bad = [m for m in names if m not in METHODS]
    if bad or not names:
        raise ValueError(f"unknown similarity method(s) {bad or names!r}; valid: {', '.join(METHODS)}")
    return names


def _ratio(num: torch.Tensor, den: torch.Tensor) -> torch.Tensor:
    return torch.where(den > 0, num / den.masked_fill(den == 0, 1), torch.zeros_like(num))


def similarity_batch(J_a: torch.Tensor, J_b: torch.Tensor, method: str = "weighted_rows") -> torch.Tensor:
    """Similarity of each pair: J_a, J_b Tensor[P, D_out, D_in] -> float64 Tensor[P] (see module docstring)."""
    (method,) = _methods(method)
    if J_a.shape != J_b.shape or J_a.dim() != 3:
        raise ValueError(f"need two Jacobian batches of one shape [P, D_out, D_in], got {tuple(J_a.shape)} "
                         f"and {tuple(J_b.shape)}")
    dots = (J_a.unsqueeze(-2) @ J_b.unsqueeze(-1))[..., 0, 0].double()          # [P, D_out]
    na = torch.linalg.vector_norm(J_a, dim=-1).double()                          # [P, D_out]
    nb = torch.linalg.vector_norm(J_b, dim=-1).double()
    if method == "weighted_rows":
        return _ratio(dots.sum(-1), (na * nb).sum(-1))
    if method == "frobenius":
        return _ratio(dots.sum(-1), na.square().sum(-1).sqrt() * nb.square().sum(-1).sqrt())
    if method == "mean_rows":
        return _ratio(dots, na * nb).mean(-1)
    a = _ratio(na, na.sum(-1, keepdim=True))                                     # printed Eq. 4
    b = _ratio(nb, nb.sum(-1, keepdim=True))
    return (a * b * dots).sum(-1)


def similarity(jac_a: torch.Tensor, jac_b: torch.Tensor, method: str = "weighted_rows") -> float:
    """Similarity of two Jacobians Tensor[D_out, D_in] (``method``: a key of ``METHODS``)."""
    if jac_a.dim() != 2:
        raise ValueError(f"need Jacobians [D_out, D_in], got shape {tuple(jac_a.shape)}")
    return float(similarity_batch(jac_a[None], jac_b[None], method)[0])


# -- Jacobians -----------------------------------------------------------------------------------------
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


# -- pairs ----------------------------------------------------------------------------------------------
@dataclass
class Pairs:
    """Two batches whose row p forms pair p; ``a.info``/``b.info`` hold ``target_rare``,
    ``disturbants_rare`` (0/1, LongTensor[P]) and ``target_position`` (LongTensor[P], 0-based)."""

    a: Batch
    b: Batch

    def __len__(self) -> int:
        return len(self.a)

    @property
    def target_position(self) -> int:
        return int(self.a.info["target_position"][0])

    def conditions(self) -> tuple[list, list]:
        """(target labels, disturbant labels), "frequent"/"rare" per pair."""
        return ([LABELS[int(v)] for v in self.a.info["target_rare"]],
                [LABELS[int(v)] for v in self.a.info["disturbants_rare"]])


def default_target_position(core: str, length: int) -> int:
    """The paper's target step: 0 for GRU/LSTM; for the S4D 22 of 64 (t = 23), scaled to ``length``."""
    return 0 if core != "s4d" else min(length - 1, round(S4D_TARGET_POSITION * length / 64))


def make_pairs(task: Task, n_pairs: int, generator: torch.Generator, target_position: int = 0) -> Pairs:
    """``n_pairs`` pairs (n_pairs/4 per target x disturbant cell, cells in the order FF, FR, RF, RR)."""
    if not (hasattr(task, "frequent") and hasattr(task, "rare")):
        raise ValueError(f"make_pairs needs the dual_frequency task, got {type(task).__name__}")
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, int) or n_pairs < 4 or n_pairs % 4:
        raise ValueError(f"n_pairs must be a positive multiple of 4 (four cells), got {n_pairs!r}")
    L = task.length
    if isinstance(target_position, bool) or not isinstance(target_position, int) or not 0 <= target_position < L - 1:
        raise ValueError(f"target_position must be an int in [0, {L - 2}] (disturbants must follow), "
                         f"got {target_position!r}")
    half, dev, m = task.vocab_size // 2, generator.device, n_pairs // 4
    cells = torch.tensor([[0, 0], [0, 1], [1, 0], [1, 1]], device=dev).repeat_interleave(m, 0)
    tr, dr = cells.unbind(1)
    target = torch.randint(half, (n_pairs,), generator=generator, device=dev) + tr * half
    raw = [torch.randint(half, (n_pairs, L), generator=generator, device=dev) + dr[:, None] * half
           for _ in range(2)]
    raw[1][:, :target_position] = raw[0][:, :target_position]              # shared prefix
    for r in raw:
        r[:, target_position] = target
    spec = torch.stack([tr, dr, torch.full_like(tr, target_position)], 1)
    return Pairs(task.render(raw[0], spec), task.render(raw[1], spec))


# -- over checkpoints -----------------------------------------------------------------------------------
_OPTIONS = {"engine": ENGINES, "mode": MODES, "lstm_output": LSTM_OUTPUTS, "s4d_output": S4D_OUTPUTS}


def _check_options(options: dict) -> None:
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise ValueError(f"unknown Jacobian option(s) {sorted(unknown)}; valid: {sorted(_OPTIONS)}")
    for k, v in options.items():
        if v not in _OPTIONS[k]:
            raise ValueError(f"unknown {k} {v!r}; valid: {', '.join(_OPTIONS[k])}")


def pair_similarities(model, pairs: Pairs, method: Union[str, Sequence[str]] = "weighted_rows",
                      chunk: int = 64, **options) -> dict:
    """{method: float64 Tensor[P]} for every pair; Jacobians are made ``chunk`` pairs at a time.

    ``options``: ``engine``, ``mode``, ``lstm_output``, ``s4d_output`` of :func:`latent_jacobians`.
    """
    methods = _methods(method)
    _check_options(options)
    start, out = pairs.target_position, {m: [] for m in methods}
    device = next(model.parameters()).device
    for i in range(0, len(pairs), chunk):
        both = torch.cat([pairs.a.inputs[i:i + chunk], pairs.b.inputs[i:i + chunk]]).to(device)
        J, e = scaled_latent_jacobians(model, both, start, chunk=2 * chunk, **options)
        (J_a, J_b), (e_a, e_b) = J.split(J.shape[0] // 2), e.double().split(J.shape[0] // 2)
        for m in methods:                  # only the printed reading is not invariant to positive scales
            sim = similarity_batch(J_a, J_b, m)
            out[m].append((sim * torch.exp2(e_a + e_b) if m == "printed" else sim).cpu())
    return {m: torch.cat(v) for m, v in out.items()}


def stability_at_checkpoint(model, pairs: Pairs, method: Union[str, Sequence[str]] = "weighted_rows",
                            chunk: int = 64, **options):
    """DataFrame: one row per method x target x disturbants with the mean similarity, sd and n."""
    import pandas as pd

    sims = pair_similarities(model, pairs, method, chunk, **options)
    target, disturbants = pairs.conditions()
    frames = [pd.DataFrame({"method": m, "target": target, "disturbants": disturbants, "similarity": v.numpy()})
              for m, v in sims.items()]
    g = pd.concat(frames).groupby(["method", "target", "disturbants"], sort=False)["similarity"]
    return g.agg(similarity="mean", sd="std", n="size").reset_index()


def stability_over_training(run, n_pairs: int = 1024, seed: int = 0,
                            method: Union[str, Sequence[str]] = "weighted_rows",
                            target_position: Optional[int] = None, steps: Optional[Iterable[int]] = None,
                            device: str = "cpu", chunk: int = 64, progress: bool = True, **options):
    """Tidy DataFrame over a run's kept checkpoints (``penb.runs.RunResult``) x methods x conditions.

    Columns: step, core, encoding, seed, method, target, disturbants, similarity, sd, n. The same pairs
    (drawn from ``seed``) serve every checkpoint; ``steps`` picks checkpoints (default: all kept).
    """
    import pandas as pd
    from tqdm.auto import tqdm

    cfg = run.config
    methods = _methods(method)
    _check_options(options)
    task = make_task(cfg["task"], cfg["vocab_size"], cfg["length"], **cfg["task_options"])
    pos = default_target_position(cfg["core"], cfg["length"]) if target_position is None else target_position
    pairs = make_pairs(task, n_pairs, torch.Generator().manual_seed(seed), pos)
    kept = [s for s, _ in run.checkpoints()]
    chosen = kept if steps is None else list(steps)
    missing = sorted(set(chosen) - set(kept))
    if missing:
        raise ValueError(f"run {run.key} has no checkpoint(s) at {missing}; kept: {kept}")
    frames = []
    for step in tqdm(chosen, desc=f"stability {cfg['core']}/{cfg['encoding']}", disable=not progress):
        model = run.load_model(step, device=device)
        frame = stability_at_checkpoint(model, pairs, methods, chunk, **options)
        frames.append(frame.assign(step=step, core=cfg["core"], encoding=cfg["encoding"], seed=cfg["seed"]))
    cols = ["step", "core", "encoding", "seed", "method", "target", "disturbants", "similarity", "sd", "n"]
    return pd.concat(frames, ignore_index=True)[cols]
