"""Views of the encodings for the chapter "Positional encodings" (``penb.chapters.encodings``).

The encodings come from the registry ``penb.encodings``. Plain float64 numpy in, numpy/pandas out:
tables for display, similarities between positions, dot products by offset, 2-D PCA paths, and the
norm comparison with token embeddings.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pandas as pd
import torch
from sklearn.decomposition import PCA

from penb.encodings import BlogEncoding, build, sinusoidal


def display_table(key: str, num_positions: int, dim: int,
                  generator: Optional[torch.Generator] = None):
    """``ndarray[num_positions, dim]`` (float64) of ``key``; the blog's sentinel row becomes NaN."""
    enc = build(key, num_positions, dim, generator)
    with torch.no_grad():
        t = enc.table(sentinel=float("nan")) if isinstance(enc, BlogEncoding) else enc.table()
    return t.detach().double().cpu().numpy()


def similarity(table, kind: str = "cosine"):
    """``ndarray[P, P]`` of cosine similarities or dot products between rows (NaN rows stay NaN)."""

    if kind not in ("cosine", "dot"):
        raise ValueError(f"unknown similarity {kind!r}; valid: cosine, dot")
    x = np.asarray(table, dtype=np.float64)
    if kind == "cosine":
        with np.errstate(invalid="ignore", divide="ignore"):
            x = x / np.linalg.norm(x, axis=1, keepdims=True)   # a zero row (direct1 at 0) -> NaN
    return x @ x.T


def max_offdiag(sim) -> float:
    """Largest ``|sim[p, q]|`` over distinct positions ``p != q`` (NaN entries ignored)."""

    s = np.abs(np.asarray(sim, dtype=np.float64))
    np.fill_diagonal(s, np.nan)
    return float(np.nanmax(s))


def offset_dots(table, starts, max_offset: int):
    """``ndarray[len(starts), max_offset + 1]``: ``table[s] . table[s + k]`` for ``k = 0..max_offset``."""

    x = np.asarray(table, dtype=np.float64)
    if max(starts) + max_offset >= len(x) or min(starts) < 0:
        raise ValueError(f"starts {list(starts)} + max_offset {max_offset} leave the {len(x)} positions")
    return np.array([[x[s] @ x[s + k] for k in range(max_offset + 1)] for s in starts])


def pca_2d(table):
    """(``coords[P, 2]``, ``explained_variance_ratio[2]``) of a 2-D PCA over the finite rows.

    Rows with NaN (the blog's sentinel) get NaN coordinates. A component explaining less than 1e-9
    of the variance (rounding noise, e.g. PC2 of a rank-1 table) is set to exactly 0.
    """
    x = np.asarray(table, dtype=np.float64)
    ok = np.isfinite(x).all(axis=1)
    coords = np.full((len(x), 2), np.nan)
    ratio = np.zeros(2)
    k = min(2, x.shape[1], int(ok.sum()))
    if k >= 1:
        pca = PCA(n_components=k, svd_solver="full").fit(x[ok])
        coords[ok] = 0.0
        coords[ok, :k] = pca.transform(x[ok])
        ratio[:k] = np.nan_to_num(pca.explained_variance_ratio_)
        noise = ratio < 1e-9
        coords[np.ix_(ok, noise)] = 0.0
        ratio[noise] = 0.0
    return coords, ratio


def norm_comparison(dim: int, vocab: int, num_positions: int, hidden: int = 512,
                    generator: Optional[torch.Generator] = None):
    """DataFrame: L2 norms of the embedding rows, the command vector and the encodings (paper init).

    Embedding: ``vocab + 1`` standard-normal rows, the last being the command (Sec. 3.2).
    ``share`` = ``E|e|^2 / (E|x|^2 + E|e|^2)``: the encoding's share of the input's squared norm
    when ``[x, e]`` is concatenated; ``share_lstm`` measures the same share of ``|W [x; e]|^2`` in an
    LSTM input projection ``W [4*hidden, 2*dim] ~ U(+-1/sqrt(hidden))`` (PyTorch's init).
    """
    g = generator
    emb = torch.randn(vocab + 1, dim, generator=g, dtype=torch.float64)
    tokens, command = emb[:vocab], emb[vocab:]
    rows = {
        "token embedding rows, N(0,1)": tokens,
        "command vector (embedding row V)": command,
        "sinusoidal without the 1/sqrt(D/2)": sinusoidal(num_positions, dim).double() * math.sqrt(dim / 2),
        "sinusoidal, Eq. 1-2": sinusoidal(num_positions, dim).double(),
        "random (App. D)": build("random", num_positions, dim, g).table().double(),
        "learnable at init (App. D)": build("learnable", num_positions, dim, g).table().detach().double(),
    }
    bound = 1 / math.sqrt(hidden)
    w = (torch.rand(4 * hidden, 2 * dim, generator=g, dtype=torch.float64) * 2 - 1) * bound
    n_pairs = min(256, vocab)
    xs = tokens[torch.randint(vocab, (n_pairs,), generator=g)]                      # [n, D]
    x2 = tokens.pow(2).sum(1).mean().item()
    out = []
    for name, t in rows.items():
        n = t.norm(dim=1)
        e2 = t.pow(2).sum(1).mean().item()
        es = t[torch.randint(len(t), (n_pairs,), generator=g)]                     # [n, D]
        part = (es @ w[:, dim:].T).pow(2).sum(1)
        whole = (torch.cat([xs, es], 1) @ w.T).pow(2).sum(1)
        is_enc = not name.startswith(("token", "command"))
        out.append(dict(vector=name, norm_mean=n.mean().item(), norm_min=n.min().item(),
                        norm_max=n.max().item(), ratio_to_embedding=n.mean().item() / tokens.norm(dim=1).mean().item(),
                        share=e2 / (x2 + e2) if is_enc else math.nan,
                        share_lstm=(part.mean() / whole.mean()).item() if is_enc else math.nan))
    return pd.DataFrame(out).set_index("vector")


def share_closed_form(dims):
    """DataFrame over ``dims``: the encoding's share of ``|[x, e]|^2`` with ``x ~ N(0, I_D)``.

    Unit-norm encoding (Eq. 1-2, random): ``1 / (1 + D)``; unscaled sinusoid (norm ``sqrt(D/2)``):
    ``1/3``; learnable N(0,1) rows (norm ``~sqrt(D)``): ``1/2``.
    """
    return pd.DataFrame({"dim": list(dims),
                         "unit norm (Eq. 1-2, random)": [1 / (1 + d) for d in dims],
                         "sinusoid without scaling": [1 / 3 for _ in dims],
                         "learnable N(0,1)": [1 / 2 for _ in dims]}).set_index("dim")
