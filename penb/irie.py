"""Irie's claims as numerical checks on random, seeded float64 Transformers (no training).

Outputs are compared position by position and layer by layer: two output vectors count as
*equal* when max |difference| <= ``tol_equal``, *different* when it is >= ``tol_differ`` and
*unclear* in between (expected never). Token sequences hold distinct tokens, so every
non-identity permutation really changes the sequence. Functions return plain data.

* Q1 :func:`equivariance`: without a mask and without PE, outputs permute with the inputs.
* Q3/Q5 :func:`sensitivity`: permute the tokens before the last one; compare every position.
* Fig. 1 :func:`context_ids`, :func:`context_strings`: what each layer sees at each position,
  derived by composing the model's attention mask over its layers; :func:`reach_from_jacobian`
  checks the mask's composition against the model's own Jacobian.
* Sec. 4 / App. B :func:`fast_weight_recurrence`: linear attention as a loop over W_t.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from penb.device import resolve_device
from penb.transformer import SelfAttention, Transformer, attention_mask

CHUNK = 1000  # permuted sequences per forward pass


def make_model(cfg, layers: int, mask="causal", softmax: bool = True, encoding: str = "none",
               norm: str | None = None, seed: int | None = None) -> Transformer:
    """A float64 Transformer in eval mode with weights drawn from ``seed`` (default ``cfg.seed``)."""
    seed = cfg.seed if seed is None else seed
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
    output is unchanged (Irie Q5: all of them for one layer).
    """
    n, T = diff.shape
    after = torch.arange(T)[None] >= first[:, None]
    eq, ne = diff <= tol_equal, diff >= tol_differ
    return dict(permutations=n, checked=int(after.sum()), equal=int((eq & after).sum()),
                different=int((ne & after).sum()), unclear=int((~eq & ~ne).sum()),
                last_equal=int(eq[:, -1].sum()), before=int((~after).sum()), before_equal=int((eq & ~after).sum()),
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


# --- the chapter's demonstrations: a resolved config in, a DataFrame out ----------------------------------

def _labels(tokens: torch.Tensor, encoding: str) -> list:
    """Input labels for :func:`context_ids`: a token, or (token, position) when a PE is added."""
    toks = tokens.tolist()
    return toks if encoding == "none" else [(x, t) for t, x in enumerate(toks)]


def q1_table(cfg) -> pd.DataFrame:
    """Q1 over ``cfg.permutations`` full permutations: no mask without PE, with PE, and causal without PE."""
    g = torch.Generator().manual_seed(cfg.seed)
    tokens = distinct_tokens(cfg.vocab, cfg.length, g)
    perms = random_permutations(cfg.permutations, cfg.length, g, keep_last=False)
    rows = []
    for mask, enc in (("full", "none"), ("full", cfg.encoding), ("causal", "none")):
        model = make_model(cfg, max(cfg.layers), mask=mask, encoding=enc)
        rows.append(dict(mask=mask, encoding=enc, layers=max(cfg.layers),
                         **equivariance(model, tokens, perms, cfg.tol_equal)))
    return pd.DataFrame(rows)


def q35_table(cfg) -> pd.DataFrame:
    """Q3/Q5: permute all tokens but the last; compare top-layer outputs at every position.

    One row per (mask, attention, encoding, layers). ``agrees`` counts positions where the numbers
    match the prediction of :func:`context_ids` (query included) from the model's own mask.
    """
    g = torch.Generator().manual_seed(cfg.seed)
    tokens = distinct_tokens(cfg.vocab, cfg.length, g)
    perms = random_permutations(cfg.permutations, cfg.length, g, keep_last=True)
    first = first_change(perms)
    variants = [("causal", sm, enc, L) for enc in ("none", cfg.encoding) for sm in (True, False) for L in cfg.layers]
    variants.append(("full", True, "none", max(cfg.layers)))          # the non-autoregressive contrast
    rows = []
    for mask, softmax, enc, L in variants:
        model = make_model(cfg, L, mask=mask, softmax=softmax, encoding=enc)
        diff = differences(model, tokens, perms)[:, L]                # (n, T) top layer
        seqs = [_labels(tokens, enc)] + [_labels(tokens[p], enc) for p in perms]  # a PE stays with its position
        ids = context_ids(seqs, attention_mask(mask, cfg.length).numpy(), L, query=True)[:, L]
        predicted_equal = torch.from_numpy(ids[1:] == ids[0])
        agrees = (predicted_equal & (diff <= cfg.tol_equal)) | (~predicted_equal & (diff >= cfg.tol_differ))
        c = sensitivity(diff, first, cfg.tol_equal, cfg.tol_differ)
        rows.append(dict(mask=mask, attention="softmax" if softmax else "linear", encoding=enc, layers=L, **c,
                         agrees=int(agrees.sum()), positions=int(agrees.numel()),
                         fully_position_sensitive=c["equal"] == 0 and c["unclear"] == 0,
                         last_invariant=c["last_equal"] == c["permutations"]))
    return pd.DataFrame(rows)


def linear_table(cfg, sequences: int = 8) -> pd.DataFrame:
    """Sec. 4 / App. B: one causal attention layer vs :func:`fast_weight_recurrence`, float64.

    ``rel_error`` = max |parallel - recurrence| / max |recurrence| over ``sequences`` random inputs
    (T = cfg.length, D = cfg.dim); the equality holds without softmax and must fail with it.
    """
    rows = []
    for softmax in (False, True):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(cfg.seed)
            attn = SelfAttention(cfg.dim, cfg.heads, softmax).double()
        x = torch.randn(sequences, cfg.length, cfg.dim, dtype=torch.float64,
                        generator=torch.Generator().manual_seed(cfg.seed))
        with torch.no_grad():
            par = attn(x, attention_mask("causal", cfg.length)).numpy()
        rec = np.stack([fast_weight_recurrence(attn, xi) for xi in x.numpy()])
        err = np.abs(par - rec).max()
        rows.append(dict(attention="softmax" if softmax else "linear (no softmax)", sequences=sequences,
                         max_abs_error=err, rel_error=err / np.abs(rec).max(),
                         equal=bool(err / np.abs(rec).max() <= cfg.tol_equal)))
    return pd.DataFrame(rows)


def figure1(cfg, seqs=(("a", "b", "c"), ("b", "a", "c")), layers: int = 2) -> dict:
    """Irie's Fig. 1 from a ``layers``-deep causal model without PE, for two orderings of the same tokens.

    Returns ``sets`` (per sequence, (L+1) x T strings, Irie's set view), ``set_differs`` and
    ``query_differs`` ((L+1, T) bool, without / with the query's own context), ``measured``
    ((L+1, T) max |difference| of the random-weight model's states), ``mask`` (T, T) and the
    reachability from the mask and from the Jacobian ((L+1, T, T) bool each).
    """
    T = len(seqs[0])
    if any(sorted(s) != sorted(seqs[0]) or len(set(s)) != T for s in seqs) or len(seqs) != 2:
        raise ValueError(f"figure1 needs two orderings of the same distinct labels, got {seqs}")
    model = make_model(cfg, layers, mask="causal", encoding="none")
    mask = attention_mask(model.mask, T).numpy()                      # the model's own mask
    ids = {q: context_ids(seqs, mask, layers, query=q) for q in (False, True)}
    g = torch.Generator().manual_seed(cfg.seed)
    tok = dict(zip(seqs[0], distinct_tokens(cfg.vocab, T, g).tolist()))
    tokens = torch.tensor([tok[x] for x in seqs[0]])
    perm = torch.tensor([[seqs[0].index(x) for x in seqs[1]]])
    return dict(seqs=seqs, layers=layers, mask=mask,
                sets=[context_strings(s, mask, layers) for s in seqs],
                set_differs=ids[False][0] != ids[False][1], query_differs=ids[True][0] != ids[True][1],
                measured=differences(model, tokens, perm)[0].numpy(),
                reach_mask=reach_from_mask(mask, layers), reach_jacobian=reach_from_jacobian(model, tokens))


def figure1_table(data: dict) -> pd.DataFrame:
    """One row per (layer, position) of :func:`figure1`'s data."""
    rows = []
    for layer in range(data["layers"] + 1):
        for t in range(len(data["seqs"][0])):
            rows.append({"layer": layer, "position": t + 1,
                         "context " + "".join(data["seqs"][0]): data["sets"][0][layer][t],
                         "context " + "".join(data["seqs"][1]): data["sets"][1][layer][t],
                         "set differs (Fig. 1)": bool(data["set_differs"][layer, t]),
                         "set or query differs": bool(data["query_differs"][layer, t]),
                         "model: max |Δ|": float(data["measured"][layer, t])})
    return pd.DataFrame(rows).set_index(["layer", "position"])
