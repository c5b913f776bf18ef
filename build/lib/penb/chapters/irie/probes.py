"""Irie's constructions as numerical probes of random, seeded float64 Transformers (no training).

Outputs are compared position by position and layer by layer: two output vectors count as
*equal* when max |difference| <= ``tol_equal``, *different* when it is >= ``tol_differ`` and
*unclear* in between (expected never). Token sequences hold distinct tokens, so every
non-identity permutation really changes the sequence. Functions return plain data; the chapter's
tables built from them are in ``penb.chapters.irie.analysis``.

* Q1 :func:`equivariance`: without a mask and without PE, outputs permute with the inputs.
* Q3/Q5 :func:`sensitivity`: permute the tokens before the last one; compare every position.
* Fig. 1 :func:`context_ids`, :func:`context_strings`: what each layer sees at each position,
  derived by composing the model's attention mask over its layers; :func:`reach_from_jacobian`
  checks the mask's composition against the model's own Jacobian.
* Sec. 4 / App. B :func:`fast_weight_recurrence`: linear attention as a loop over W_t.
"""
from __future__ import annotations

import numpy as np
import torch

from penb.device import resolve_device
from penb.transformer import SelfAttention, Transformer

CHUNK = 1000  # permuted sequences per forward pass


def make_model(cfg, layers: int, mask="causal", softmax: bool = True, encoding: str = "none",
               norm: str | None = None, seed: int | None = None) -> Transformer:
    """A float64 Transformer in eval mode with weights drawn from ``seed`` (default: the first of
    ``cfg.seeds``)."""
    seed = cfg.seeds[0] if seed is None else seed
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Transformer(cfg.vocab, cfg.dim, cfg.heads, layers, cfg.ffn, softmax, norm or cfg.norm, mask,
                            encoding, max_len=cfg.length, generator=torch.Generator().manual_seed(seed))
    return model.double().to(resolve_device(cfg.device)).eval()


def distinct_tokens(vocab: int, length: int, generator: torch.Generator) -> torch.Tensor:
    """(T,) long: ``length`` different token ids drawn from ``range(vocab)``."""
    if length > vocab:
        raise ValueError(f"cannot draw {length} distinct tokens from a vocabulary of {vocab}")
    return torch.randperm(vocab, generator=generator)[:length]


def random_permutations(n: int, length: int, generator: torch.Generator, keep_last: bool) -> torch.Tensor:
    """(n, T) long: random non-identity permutations of ``range(T)``; ``keep_last`` fixes index T-1."""
    free = length - 1 if keep_last else length
    if free < 2:
        raise ValueError(f"length {length} leaves no non-identity permutation (keep_last={keep_last})")
    out = torch.arange(length).repeat(n, 1)
    for i in range(n):
        p = torch.randperm(free, generator=generator)
        while bool((p == torch.arange(free)).all()):
            p = torch.randperm(free, generator=generator)
        out[i, :free] = p
    return out


def first_change(perms: torch.Tensor) -> torch.Tensor:
    """(n,) long: the first index where each permutation (n, T) moves a token."""
    return (perms != torch.arange(perms.shape[1])).int().argmax(1)


@torch.no_grad()
def differences(model: Transformer, tokens: torch.Tensor, perms: torch.Tensor) -> torch.Tensor:
    """(n, L+1, T): max |state(tokens[perm]) - state(tokens)| per layer and position (layer 0 = inputs)."""
    dev = next(model.parameters()).device
    tokens, perms = tokens.to(dev), perms.to(dev)
    ref = model.states(tokens[None])
    out = []
    for chunk in perms.split(CHUNK):                                  # bounded memory for many permutations
        new = model.states(tokens[chunk])
        out.append(torch.stack([(a - r).abs().amax(-1) for a, r in zip(new, ref)], 1).cpu())
    return torch.cat(out)


@torch.no_grad()
def equivariance(model: Transformer, tokens: torch.Tensor, perms: torch.Tensor, tol_equal: float) -> dict:
    """Q1: is f(x[perm]) == f(x)[perm] (top layer, every position)? Counts over the permutations.

    ``multiset`` checks the weaker claim independently: the outputs of x[perm] can be matched one to
    one with those of x (each nearest neighbour within ``tol_equal``, no neighbour used twice).
    """
    dev = next(model.parameters()).device
    tokens, perms = tokens.to(dev), perms.to(dev)
    ref = model.states(tokens[None])[-1][0]                           # (T, D)
    out = torch.cat([model.states(tokens[c])[-1] for c in perms.split(CHUNK)])  # (n, T, D)
    err = (out - ref[perms]).abs().amax(-1).amax(-1)                  # (n,)
    dist = torch.cdist(out, ref[None].expand_as(out))                 # (n, T, T)
    best, match = dist.min(-1)
    one_to_one = torch.tensor([len(set(m.tolist())) == len(m) for m in match], device=dev)
    multiset = (best.amax(-1) <= tol_equal) & one_to_one
    return dict(permutations=len(perms), equivariant=int((err <= tol_equal).sum()),
                multiset_invariant=int(multiset.sum()), max_error=float(err.max()), min_error=float(err.min()))


def sensitivity(diff: torch.Tensor, first: torch.Tensor, tol_equal: float, tol_differ: float) -> dict:
    """Q3/Q5 counts from top-layer differences ``diff`` (n, T) and first changed indices ``first`` (n,).

    Positions t >= first are "checked" (Irie's full position-sensitivity asks all of them to differ);
    positions t < first must be equal in a causal model; ``last_equal`` counts permutations whose last
    output is unchanged (Irie Q5: all of them for one layer). ``min_checked`` is the smallest
    difference at a checked position (Q3: above rounding for two or more layers), ``max_last`` and
    ``min_last`` the largest and smallest differences at the last position (Q5: rounding for one
    layer).
    """
    n, T = diff.shape
    after = torch.arange(T)[None] >= first[:, None]
    eq, ne = diff <= tol_equal, diff >= tol_differ
    return dict(permutations=n, checked=int(after.sum()), equal=int((eq & after).sum()),
                different=int((ne & after).sum()), unclear=int((~eq & ~ne).sum()),
                last_equal=int(eq[:, -1].sum()), before=int((~after).sum()), before_equal=int((eq & ~after).sum()),
                min_checked=float(diff[after].min()), max_last=float(diff[:, -1].max()),
                min_last=float(diff[:, -1].min()),
                min_different=float(diff[ne].min()) if ne.any() else float("nan"),
                max_equal=float(diff[eq].max()) if eq.any() else float("nan"))


def context_ids(seqs, mask: np.ndarray, layers: int, query: bool = True, table: dict | None = None) -> np.ndarray:
    """(n, L+1, T) int: an id per (layer, position) context; equal ids <=> identical contexts.

    Layer 0 sees its own input label. Layer l at position t sees the multiset of layer-(l-1)
    contexts at the positions its mask row allows, plus (``query=True``) its own layer-(l-1)
    context, which reaches it through the query and the residual. ``query=False`` keeps only the
    set, as drawn in Irie's Fig. 1. ``seqs``: (n, T) hashable labels (with a PE: (token, position)).
    ``table`` interns contexts; share it between calls to compare their ids.
    """
    table = {} if table is None else table
    intern = lambda c: table.setdefault(c, len(table))  # noqa: E731
    allowed = [np.flatnonzero(row) for row in np.asarray(mask, bool)]
    out = np.empty((len(seqs), layers + 1, len(allowed)), dtype=np.int64)
    for i, seq in enumerate(seqs):
        c = [intern(("input", x)) for x in seq]
        out[i, 0] = c
        for layer in range(1, layers + 1):
            c = [intern((c[t] if query else None, tuple(sorted(c[s] for s in allowed[t])))) for t in range(len(c))]
            out[i, layer] = c
    return out


def context_strings(labels, mask: np.ndarray, layers: int, query: bool = False) -> list[list[str]]:
    """(L+1) x T readable contexts, e.g. layer 1 at position 2 of (a, b, c) -> "{a,b}" (as :func:`context_ids`)."""
    allowed = [np.flatnonzero(row) for row in np.asarray(mask, bool)]
    c = [str(x) for x in labels]
    out = [c]
    for _ in range(layers):
        members = [sorted((c[s] for s in allowed[t]), key=lambda x: (len(x), x)) for t in range(len(c))]
        c = [(c[t] + "|" if query else "") + "{" + ",".join(m) + "}" for t, m in enumerate(members)]
        out.append(c)
    return out


def reach_from_mask(mask: np.ndarray, layers: int) -> np.ndarray:
    """(L+1, T, T) bool: input position s can reach layer l's output at t (the mask composed l times)."""
    m = np.asarray(mask, bool) | np.eye(len(mask), dtype=bool)  # the residual keeps each position's own input
    out = [np.eye(len(m), dtype=bool)]
    for _ in range(layers):
        out.append((m.astype(int) @ out[-1].astype(int)) > 0)      # t reaches u (mask), u reached s before
    return np.stack(out)


def reach_from_jacobian(model: Transformer, tokens: torch.Tensor, mask=None) -> np.ndarray:
    """(L+1, T, T) bool: d state_l[t] / d input[s] is not exactly zero (autograd on the embedded input)."""
    dev = next(model.parameters()).device
    x = model.inputs(tokens.to(dev)[None]).detach()                   # (1, T, D)
    T = x.shape[1]
    out = np.zeros((len(model.blocks) + 1, T, T), dtype=bool)
    for layer in range(len(model.blocks) + 1):
        f = lambda inp: model.states(x=inp, mask=mask)[layer][0]      # noqa: E731  (T, D)
        jac = torch.autograd.functional.jacobian(f, x, vectorize=True)[:, :, 0]      # (T, D, T, D)
        out[layer] = (jac.abs().amax((1, 3)) > 0).cpu().numpy()
    return out


def fast_weight_recurrence(attn: SelfAttention, x: np.ndarray) -> np.ndarray:
    """Irie Eq. 7-8 with the layer's own weights, as a plain loop: x (T, D) -> y (T, D).

    Per head: W_0 = 0, W_t = W_{t-1} + v_t (x) k_t (outer product), y_t = W_t q_t; then the heads
    are concatenated and the output projection applied, as in the attention layer.
    """
    get = lambda lin: lin.weight.detach().cpu().double().numpy()      # noqa: E731  (D, D)
    Wq, Wk, Wv, Wo = get(attn.q), get(attn.k), get(attn.v), get(attn.out)
    T, D = x.shape
    E = D // attn.heads
    y = np.zeros((T, D))
    for h in range(attn.heads):
        rows = slice(h * E, (h + 1) * E)
        W = np.zeros((E, E))
        for t in range(T):
            q, k, v = Wq[rows] @ x[t], Wk[rows] @ x[t], Wv[rows] @ x[t]
            W = W + np.outer(v, k)
            y[t, rows] = W @ q
    return y @ Wo.T

