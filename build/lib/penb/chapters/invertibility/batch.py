"""The batched engine of the invertibility study (used by ``penb.chapters.invertibility.analysis``).

Each problem ``p`` (one encoding, one initialisation) fits ``sigmoid(E_p @ w_p + b_p)`` to ``t = pos / N``
(``E_p [N, K]`` the encoding table). Every table except sincos has rank <= 3, so it is kept factored:

    affine in t (direct1, directN, linear_*):  E = t a^T + c 1^T            (slope row a [K], scalar c)
    normal, normal_learned:                    E[0] = sentinel, E[n] = ndtri(t_n) sqrt|v| + mu   (n >= 1)

and the logits are ``z = C @ B`` with one shared basis ``B [5, N]`` and per-problem coefficients
``C [PL, 5]`` (O(N + K) per problem and step instead of O(N K)); sincos shares one fixed table.
Gradients are written by hand; one optax-style Adam step updates one flat vector ``theta`` holding the
trainable parameters of every problem, so each problem follows the updates of its own independent run
(up to the order of float rounding).
"""
from __future__ import annotations

import numpy as np
import torch

from penb.encodings import blog

ADAM_BETAS, ADAM_EPS = (0.9, 0.999), 1e-8  # optax.adam defaults, as the original
# low-rank order: affine encodings (learned linear ones last), then normal (normal_learned last)
LOWRANK_ORDER = ("direct1", "directN", "linear_normal", "linear_uniform", "linear_normal_learned",
                 "linear_uniform_learned", "normal", "normal_learned")


class InversionBatch:
    """Every problem's parameters in one flat vector ``theta`` (with named views); see the module docstring.

    Problems are rows: ``I`` sincos rows (``wS [I, K]``, ``bS [I]``), then ``PL`` low-rank rows
    (``wL [PL, K]``, ``bL [PL]``): the affine-in-t encodings first (``nA`` rows, learned linear ones
    last), then normal (``nN`` rows, normal_learned last). Each low-rank row ``p`` has a slope row
    ``a[p] [K]`` (direct: e_1 or ones; linear: its w; normal: sqrt|v|) and an intercept: a scalar
    ``c[p]`` (affine; linear: its b) or a row ``mu [K]`` (normal). Logits: ``z = C @ B`` with the
    shared basis ``B = [t; ndtri(t) (0 at pos 0); 1 (0 at pos 0); sentinel at pos 0; 1]`` ``[5, N]``.
    """

    def __init__(self, state, encodings, length, dim, sentinel, dtype, device):
        N, K, kw = length, dim, dict(dtype=dtype, device=device)
        self.sincos = "sincos" in encodings
        self.low = [k for k in LOWRANK_ORDER if k in encodings]
        I = state[encodings[0]]["w"].shape[0]
        aff = [k for k in self.low if not k.startswith("normal")]
        nA, nN = I * len(aff), I * (len(self.low) - len(aff))
        PS, PL = (I if self.sincos else 0), nA + nN
        nLL = I * sum(k in blog.LEARNED for k in aff)
        nNL = I * ("normal_learned" in self.low)
        sizes = dict(wS=(PS, K), bS=(PS,), wL=(PL, K), bL=(PL,), lw=(nLL, K), lb=(nLL,), mu=(nNL, K), v=(nNL, K))
        total = sum(int(np.prod(s)) for s in sizes.values())
        self.theta, self.grad = torch.zeros(total, **kw), torch.zeros(total, **kw)
        self.m, self.sq = torch.zeros(total, **kw), torch.zeros(total, **kw)
        off = 0
        for name, shape in sizes.items():
            n = int(np.prod(shape))
            setattr(self, name, self.theta[off:off + n].view(shape))
            setattr(self, "g" + name, self.grad[off:off + n].view(shape))
            off += n
        self.I, self.N, self.PS, self.nA, self.state0 = I, N, PS, nA, state
        # LL: learned linear rows of the affine block; NL: normal_learned rows of the normal block
        self.LL, self.NL = slice(nA - nLL, nA), slice(nN - nNL, nN)
        t = blog.positions(N, **kw)
        self.T = t
        q = torch.cat([torch.zeros(1, **kw), blog.normal_quantiles(N, **kw)])
        ones = torch.ones(N, **kw)
        body = torch.cat([torch.zeros(1, **kw), ones[1:]])
        head = torch.zeros(N, **kw)
        head[0] = float(sentinel)
        self.B = torch.stack([t, q, body, head, ones])                          # [5, N]
        self.BT = self.B.T.contiguous()                                         # [N, 5]
        if self.sincos:
            self.S = blog.sincos_table(N, K, **kw)                                # [N, K]
            self.ST = self.S.T.contiguous()
            self.wS.copy_(state["sincos"]["w"])
            self.bS.copy_(state["sincos"]["b"])
        self.a = torch.zeros(PL, K, **kw)                                       # slopes
        self.c = torch.zeros(nA, **kw)                                          # affine intercepts
        self.muN = torch.zeros(nN, K, **kw)                                     # normal intercept rows
        for j, k in enumerate(self.low):
            r, st = slice(j * I, (j + 1) * I), state[k]
            self.wL[r], self.bL[r] = st["w"], st["b"]
            if k == "direct1":
                self.a[r, 0] = 1.0
            elif k == "directN":
                self.a[r] = 1.0
            elif k.startswith("linear"):
                self.a[r], self.c[r] = st["enc_w"], st["enc_b"]
            else:
                rn = slice(r.start - nA, r.stop - nA)
                self.a[r], self.muN[rn] = st["v"].abs().sqrt(), st["mu"]
        if nLL:
            self.lw.copy_(self.a[self.LL]); self.lb.copy_(self.c[self.LL])
        if nNL:
            self.mu.copy_(state["normal_learned"]["mu"]); self.v.copy_(state["normal_learned"]["v"])
        self.C = torch.zeros(PL, 5, **kw)                                       # logit coefficients on B
        self.z = torch.empty(PS + PL, N, **kw)
        self._views()

    def _views(self) -> None:
        """Cache the slices used every step (saves Python work in the loop)."""
        PS, nA, LL, NL = self.PS, self.nA, self.LL, self.NL
        self.zS, self.zL = self.z[:PS], self.z[PS:]
        self.Caff, self.Cnor = self.C[:nA], self.C[nA:]
        self.aA, self.aN, self.wA, self.wN = self.a[:nA], self.a[nA:], self.wL[:nA], self.wL[nA:]
        self.bA, self.bN, self.gwA, self.gwN = self.bL[:nA], self.bL[nA:], self.gwL[:nA], self.gwL[nA:]
        self.has_LL, self.has_NL = LL.stop > LL.start, NL.stop > NL.start
        self.aLL, self.cLL, self.aNL, self.muNL = self.a[LL], self.c[LL], self.aN[NL], self.muN[NL]
        self.G = torch.empty(5, self.z.shape[0] - PS, dtype=self.z.dtype, device=self.z.device)  # dL/dC, transposed
        self.GA, self.GN = self.G[:, :nA], self.G[:, nA:]

    def forward_backward(self, loss_out: torch.Tensor) -> None:
        """Loss of every problem into ``loss_out [P]`` (sincos rows first); gradients into ``self.grad``."""
        PS, nA, N, LL, NL = self.PS, self.nA, self.N, self.LL, self.NL
        if PS:
            torch.addmm(self.bS[:, None], self.wS, self.ST, out=self.zS)         # [I, N]
        gam = self.wL.sum(1)                                                     # [PL] sum of weights
        alpha = torch.linalg.vecdot(self.a, self.wL)                             # [PL] slope . w
        Ca, Cn = self.Caff, self.Cnor
        Ca[:, 0] = alpha[:nA]
        torch.addcmul(self.bA, self.c, gam[:nA], out=Ca[:, 4])
        Cn[:, 1] = alpha[nA:]
        torch.linalg.vecdot(self.muN, self.wN, out=Cn[:, 2])
        Cn[:, 3], Cn[:, 4] = gam[nA:], self.bN
        torch.mm(self.C, self.B, out=self.zL)                                    # [PL, N]
        s = torch.sigmoid_(self.z)
        d = s - self.T                                                           # [P, N] residual
        torch.linalg.vector_norm(d, dim=1, out=loss_out)
        loss_out.square_().div_(N)
        g = torch.rsub(s, 1.0).mul_(s).mul_(d)                                   # dL/dz * N / 2
        k = 2.0 / N
        if PS:
            torch.mm(g[:PS], self.S, out=self.gwS).mul_(k)
            torch.sum(g[:PS], dim=1, out=self.gbS).mul_(k)
        G, GA, GN = self.G, self.GA, self.GN
        torch.mm(self.B, g[PS:].T, out=G).mul_(k)                                # [5, PL] dL/dC
        torch.addcmul((self.c * GA[4])[:, None], self.aA, GA[0][:, None], out=self.gwA)
        torch.addcmul(GN[3][:, None], self.aN, GN[1][:, None], out=self.gwN)
        self.gwN.addcmul_(self.muN, GN[2][:, None])
        self.gbL.copy_(G[4])
        if self.has_LL:
            torch.mul(self.wA[LL], GA[0][LL][:, None], out=self.glw)
            torch.mul(gam[:nA][LL], GA[4][LL], out=self.glb)
        if self.has_NL:
            wn = self.wN[NL]
            torch.mul(wn, GN[2][NL][:, None], out=self.gmu)
            torch.mul(wn, GN[1][NL][:, None], out=self.gv).mul_(self.v.sign()).div_(2 * self.aNL)

    def adam(self, step: int, lr: float) -> None:
        """One optax-style Adam update of ``theta`` (``step`` counts from 1), then refresh derived rows."""
        (b1, b2), eps = ADAM_BETAS, ADAM_EPS
        self.m.lerp_(self.grad, 1 - b1)
        self.sq.mul_(b2).addcmul_(self.grad, self.grad, value=1 - b2)
        denom = (self.sq / (1 - b2 ** step)).sqrt_().add_(eps)
        self.theta.addcdiv_(self.m, denom, value=-lr / (1 - b1 ** step))
        if self.has_LL:
            self.aLL.copy_(self.lw)
            self.cLL.copy_(self.lb)
        if self.has_NL:
            torch.sqrt(self.v.abs(), out=self.aNL)
            self.muNL.copy_(self.mu)

    def export(self, encodings) -> dict[str, dict[str, torch.Tensor]]:
        """Final parameters per encoding, named as in ``initial_state``."""
        out, I, nA = {}, self.I, self.nA
        if self.sincos:
            out["sincos"] = {"w": self.wS.clone(), "b": self.bS.clone()}
        for j, k in enumerate(self.low):
            r = slice(j * I, (j + 1) * I)
            d = {"w": self.wL[r].clone(), "b": self.bL[r].clone()}
            if k.startswith("normal"):
                d["mu"] = self.muN[r.start - nA:r.stop - nA].clone()
                d["v"] = self.v.clone() if k == "normal_learned" else self.state0[k]["v"].clone()
            elif k.startswith("linear"):
                d["enc_w"], d["enc_b"] = self.a[r].clone(), self.c[r].clone()
            out[k] = d
        return {k: out[k] for k in encodings}
