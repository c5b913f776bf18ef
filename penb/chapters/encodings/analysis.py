"""Views of the encodings for the chapter "Positional encodings" (``penb.chapters.encodings``).

The encodings come from the registry ``penb.encodings``. Plain float64 numpy in, numpy/pandas out:
tables for display, similarities between positions, dot products by offset, 2-D PCA paths, and the
norm comparison with token embeddings.

Every random draw has its own generator, seeded with the config's ``seed`` plus a fixed
offset (``SEED_OFFSETS``), so that each figure can be redrawn on its own.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pandas as pd
import torch
from sklearn.decomposition import PCA

from penb.encodings import BLOG_KEYS, PAPER_KEYS, BlogEncoding, build, get, sinusoidal

TEXT_KEYS = PAPER_KEYS + BLOG_KEYS  # the two texts' encodings (BEYOND_KEYS: the book's)
SEED_OFFSETS = dict(random=1, learnable=2, norms=3, blog=10, explorer=20)  # + cfg.seed
SINUSOID = "sinusoidal (Eq. 1-2)"   # the titles of the paper's tables, as shown
PAPER_TITLES = (SINUSOID, "sinusoidal, code's [sin, cos]", "random",
                "learnable (at init)")


def display_table(key: str, num_positions: int, dim: int,
                  generator: Optional[torch.Generator] = None):
    """``ndarray[num_positions, dim]`` (float64) of ``key``; the blog's sentinel row becomes NaN."""
    enc = build(key, num_positions, dim, generator)
    with torch.no_grad():
        t = enc.table(sentinel=float("nan")) if isinstance(enc, BlogEncoding) else enc.table()
    return t.detach().double().cpu().numpy()


def generator(cfg, offset: int) -> torch.Generator:
    """A fresh generator seeded ``cfg.seed + offset`` (``SEED_OFFSETS``)."""
    return torch.Generator().manual_seed(cfg.seed + offset)


def blog_offset(key: str) -> int:
    """The seed offset of blog encoding ``key``; a ``*_learned`` key shares its fixed
    counterpart's, so that both start from the same values."""
    return SEED_OFFSETS["blog"] + BLOG_KEYS.index(key.removesuffix("_learned"))


def paper_tables(cfg) -> dict:
    """``{title: ndarray[num_positions, dim]}``: Eq. 1-2, the official code's layout of
    the same numbers, App. D's random and learnable (at initialisation) encodings."""
    p, d = cfg.num_positions, cfg.dim
    return dict(zip(PAPER_TITLES, [
        display_table("sinusoidal", p, d),
        sinusoidal(p, d, layout="concat").double().numpy(),
        display_table("random", p, d, generator(cfg, SEED_OFFSETS["random"])),
        display_table("learnable", p, d, generator(cfg, SEED_OFFSETS["learnable"]))]))


def blog_tables(cfg) -> dict:
    """``{key: ndarray[blog_positions, blog_dim]}`` for the blog's nine encodings (the
    learned ones at their initial draw; the sentinel row NaN)."""
    return {k: display_table(k, cfg.blog_positions, cfg.blog_dim,
                             generator(cfg, blog_offset(k)))
            for k in BLOG_KEYS}


def registry_table(keys=TEXT_KEYS) -> pd.DataFrame:
    """One row per encoding key: its source, whether it learns, its definition."""
    specs = [get(k) for k in keys]
    return pd.DataFrame([dict(key=s.key, source=s.source, learnable=s.learnable,
                              definition=s.description)
                         for s in specs]).set_index("key")


def draws_table(cfg) -> pd.DataFrame:
    """Each random draw of the chapter: its generator's seed and the size drawn."""
    p, d, blog = cfg.num_positions, cfg.dim, f"{cfg.blog_positions} x {cfg.blog_dim}"
    rows = [("random (App. D)", SEED_OFFSETS["random"], f"{p} x {d}"),
            ("learnable at init (App. D)", SEED_OFFSETS["learnable"], f"{p} x {d}"),
            ("norm comparison: embedding, LSTM matrix, samples", SEED_OFFSETS["norms"],
             f"V={cfg.vocab}"),
            ("explorer", SEED_OFFSETS["explorer"], "chosen in the widget")]
    rows += [(f"blog: {k} (and {k}_learned)" if k + "_learned" in BLOG_KEYS
              else f"blog: {k}", blog_offset(k), blog)
             for k in BLOG_KEYS if not k.endswith("_learned")]
    return pd.DataFrame([dict(draw=name, generator_seed=cfg.seed + o, size=size)
                         for name, o, size in rows]).set_index("draw")


def similarity(table, kind: str = "cosine"):
    """``ndarray[P, P]`` of cosine similarities or dot products between rows (NaN rows stay NaN)."""

    if kind not in ("cosine", "dot"):
        raise ValueError(f"unknown similarity {kind!r}; valid: cosine, dot")
    x = np.asarray(table, dtype=np.float64)
    if kind == "cosine":
        with np.errstate(invalid="ignore", divide="ignore"):
            x = x / np.linalg.norm(x, axis=1, keepdims=True)   # a zero row (direct1 at 0) -> NaN
    return x @ x.T


def similarities(tables: dict) -> dict:
    """``{title: ndarray[P, P]}``: the cosine similarity of each table's rows."""
    return {k: similarity(t) for k, t in tables.items()}


def max_offdiag(sim) -> float:
    """Largest ``|sim[p, q]|`` over distinct positions ``p != q`` (NaN entries ignored)."""

    s = np.abs(np.asarray(sim, dtype=np.float64))
    np.fill_diagonal(s, np.nan)
    return float(np.nanmax(s))


def offset_starts(num_positions: int) -> tuple[list, int]:
    """(start positions, largest offset) for :func:`offset_dots` over ``num_positions``:
    three starts over the first half (two where fewer than 8), offsets up to 64."""
    p = num_positions
    starts = [0, p // 4, p // 2 - 1] if p >= 8 else [0, 1]
    return starts, min(p - 1 - max(starts), 64)


def offset_dots(table, starts, max_offset: int):
    """``ndarray[len(starts), max_offset + 1]``: ``table[s] . table[s + k]`` for ``k = 0..max_offset``."""

    x = np.asarray(table, dtype=np.float64)
    if max(starts) + max_offset >= len(x) or min(starts) < 0:
        raise ValueError(f"starts {list(starts)} + max_offset {max_offset} leave the {len(x)} positions")
    return np.array([[x[s] @ x[s + k] for k in range(max_offset + 1)] for s in starts])


def pca_paths(tables: dict) -> dict:
    """``{title: (coords[P, 2], explained_variance_ratio[2])}`` of each table
    (:func:`pca_2d`)."""
    return {k: pca_2d(t) for k, t in tables.items()}


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


NORM_ROWS = {                   # norm_comparison's rows: a short name -> the row's label
    "tokens": "token embedding rows, N(0,1)",
    "command": "command vector (embedding row V)",
    "raw": "sinusoidal without the 1/sqrt(D/2)",
    "unit": "sinusoidal, Eq. 1-2",
    "random": "random (App. D)",
    "learnable": "learnable at init (App. D)",
}


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
        NORM_ROWS["tokens"]: tokens,
        NORM_ROWS["command"]: command,
        NORM_ROWS["raw"]: sinusoidal(num_positions, dim).double() * math.sqrt(dim / 2),
        NORM_ROWS["unit"]: sinusoidal(num_positions, dim).double(),
        NORM_ROWS["random"]: build("random", num_positions, dim, g).table().double(),
        NORM_ROWS["learnable"]: build("learnable", num_positions, dim, g).table().detach().double(),
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
