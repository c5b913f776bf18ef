"""The chapter's checks of Irie's claims on random, seeded float64 Transformers (no training).

A resolved config in, a DataFrame (or plain data) out; every number comes from the probes of
``penb.chapters.irie.probes``, counted over ``cfg.permutations`` random permutations:

* :func:`q1_table`: Question 1, outputs of an unmasked model without PE permute with the inputs.
* :func:`q35_table`: Questions 3 and 5, one causal layer vs several, with the prediction of the
  mask-composed contexts alongside the measured differences.
* :func:`linear_table`: Sec. 4 / App. B, linear causal attention is the fast-weight recurrence.
* :func:`figure1`, :func:`figure1_table`: Irie's Fig. 1 from the model's own mask and Jacobian.

Question 4 (trained models) is in ``penb.chapters.irie.q4``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from penb.chapters.irie.probes import (context_ids, context_strings, differences, distinct_tokens,
                                       equivariance, fast_weight_recurrence, first_change, make_model,
                                       random_permutations, reach_from_jacobian, reach_from_mask,
                                       sensitivity)
from penb.transformer import SelfAttention, attention_mask


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
